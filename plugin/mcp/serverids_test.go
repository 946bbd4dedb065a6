package mcp

import (
	"regexp"
	"strings"
	"testing"
)

// Issue 12, leaks: the ids a server chooses (its own requests' ids, and a
// response's id that no request of the stream explains) are strings like
// any other, and may hold data. They are read by the pipeline; a
// pseudonym in a request's id is restored in the client's answer, so the
// server still matches it.
func TestServerChosenIDsRead(t *testing.T) {
	pseudo := mustConfig(t, `
policy: {name: p, transforms: [pseudonymise], vault: {key: "server ids test key"}}
identity: {principal: [{header: x-mcp-principal}]}
`)
	block := mustConfig(t, `
policy: {name: p, transforms: [{type: block, options: {detectors: [email]}}]}
identity: {principal: [{header: x-mcp-principal}]}
`)
	const value = "alice@corp.example"
	request := `{"jsonrpc":"2.0","id":"` + value + `","method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}`
	ping := `{"jsonrpc":"2.0","id":"` + value + `","method":"ping"}`
	stray := `{"jsonrpc":"2.0","id":"` + value + `","result":{}}`
	pseudonymRE := regexp.MustCompile(`EMAIL_[A-Z2-7]{12}`)

	for _, tc := range []struct {
		name string
		cfg  *Config
		got  func() string
		// wantPseudonym: the id comes out as a pseudonym; else no id
		// holding the value comes out at all.
		wantPseudonym bool
	}{
		{"server request on a POST stream", pseudo, func() string { return postSSE(t, pseudo, call("1", "tools/call", `{"name":"x"}`), request) }, true},
		{"server request without params on a GET stream", pseudo, func() string { return getStream(t, pseudo, ping) }, true},
		{"response no request explains, GET stream", pseudo, func() string { return getStream(t, pseudo, stray) }, true},
		{"server request, id blocked", block, func() string { return getStream(t, block, request) }, false},
		{"response no request explains, id blocked", block, func() string { return getStream(t, block, stray) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := tc.got()
			if strings.Contains(out, "alice") {
				t.Fatalf("the id went out raw: %s", out)
			}
			if tc.wantPseudonym && !pseudonymRE.MatchString(out) {
				t.Fatalf("no pseudonym for the id: %s", out)
			}
		})
	}

	// The client answers the request under the pseudonym: the server gets
	// its own id back.
	out := getStream(t, pseudo, request)
	p := pseudonymRE.FindString(out)
	if p == "" {
		t.Fatalf("no pseudonym in %s", out)
	}
	for _, answer := range []string{
		`{"jsonrpc":"2.0","id":"` + p + `","result":{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m"}}`,
		`{"jsonrpc":"2.0","id":"` + p + `","error":{"code":-1,"message":"declined"}}`,
	} {
		_, r := post(t, pseudo, hdr("x-mcp-principal", "ann"), answer)
		if r.Reply != nil || !strings.Contains(string(r.Body), `"id":"`+value+`"`) {
			t.Errorf("the client's answer reached the server as %q (reply %v), want the id %q restored", r.Body, r.Reply, value)
		}
	}
}
