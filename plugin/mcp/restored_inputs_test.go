package mcp

import (
	"strings"
	"testing"
)

// Regression (review of issue 13): the values the plugin restored were
// remembered, for putting back in the server's errors, only from
// tools/call and prompts/get arguments and resource URIs. A pseudonym
// restored in an MRTR retry's inputResponses, or in a completion's
// argument value or context arguments, came back in plain in a server
// error that quoted it.
func TestNoRestoredValueInErrorsFromAnyInput(t *testing.T) {
	const env = `
policy:
  name: errs
  allow_tools: ["*"]
  allow_resources: ["*"]
  allow_prompts: ["*"]
  transforms:
    - {type: pseudonymise, options: {detectors: [email], fields: [email]}}
  vault: {key: "test key, not secret"}
identity:
  principal: [{header: x-mcp-principal}]
gateway: {hold_headers: true}
`
	cfg := mustConfig(t, env)
	p := issuePseudonymIn(t, cfg, `{"content":[],"structuredContent":{"email":"alice@example.com"}}`)
	responses := `"inputResponses":{"contact":{"action":"accept","content":{"to":"` + p + `"}}},"requestState":"opaque"`
	for _, c := range []struct {
		name, request string
		req           fakeRequest
	}{
		{"tools/call retry's inputResponses", call("2", "tools/call", `{"name":"send","arguments":{},`+responses+`,`+meta2026+`}`),
			req2026("tools/call", "send")},
		{"prompts/get retry's inputResponses", call("2", "prompts/get", `{"name":"greet",`+responses+`,`+meta2026+`}`),
			req2026("prompts/get", "greet")},
		{"resources/read retry's inputResponses", call("2", "resources/read", `{"uri":"file:///x",`+responses+`,`+meta2026+`}`),
			req2026("resources/read", "file:///x")},
		{"completion argument value", call("2", "completion/complete", `{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"to","value":"`+p+`"},`+meta2026+`}`),
			req2026("completion/complete", "")},
		{"completion context arguments", call("2", "completion/complete", `{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"x","value":""},"context":{"arguments":{"to":"`+p+`"}},`+meta2026+`}`),
			req2026("completion/complete", "")},
		{"unjudged method's inputResponses", call("2", "server/discover", `{`+responses+`,`+meta2026+`}`),
			req2026("server/discover", "")},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, r, s := postOnce(cfg, c.req, c.request)
			if r.Reply != nil {
				t.Fatalf("refused: %s", r.Reply.Body)
			}
			if !strings.Contains(string(r.Body), "alice@example.com") {
				t.Fatalf("nothing restored upstream: %s", r.Body)
			}
			got := finish(t, s, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"cannot send to alice@example.com"}}`)
			if strings.Contains(got, "alice") || !strings.Contains(got, p) {
				t.Errorf("client got %s: want the pseudonym %s, not the value", got, p)
			}
		})
	}
}

// Regression (review of issue 13): when the plugin rewrote a mirrored
// header to a restored value that needs the Base64 sentinel (non-ASCII),
// a server's error quoting the header as it got it (the go-sdk's
// -32020, which compares Mcp-Name raw) carried the restored value in
// Base64 back to the client: only the decoded value was put back.
// The custom detector's value is also a built-in PERSON: restoring it
// must not be refused for reading as another detector's exact span
// (regression, issue 31).
func TestNoRestoredHeaderValueInErrors(t *testing.T) {
	const env = `
policy:
  name: errs
  allow_tools: ["*"]
  allow_resources: ["*"]
  detectors:
    - {name: zoe_name, pattern: 'Zoë [A-Z][a-z]+'}
  transforms:
    - {type: pseudonymise, options: {detectors: [zoe_name]}}
  vault: {key: "test key, not secret"}
identity:
  principal: [{header: x-mcp-principal}]
gateway: {hold_headers: true}
`
	cfg := mustConfig(t, env)
	p := issuePseudonymIn(t, cfg, `{"content":[{"type":"text","text":"Zoë Smith"}]}`)
	uri := "file:///people/" + p
	for _, c := range []struct {
		name, header, request string
		req                   fakeRequest
	}{
		{"Mcp-Name", "mcp-name", call("2", "resources/read", `{"uri":"`+uri+`",`+meta2026+`}`), req2026("resources/read", uri)},
		{"Mcp-Param", "mcp-param-who", call("2", "tools/call", `{"name":"send","arguments":{"who":"`+p+`"},`+meta2026+`}`),
			req2026("tools/call", "send", "mcp-param-who", p)},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, r, s := postOnce(cfg, c.req, c.request)
			if r.Reply != nil {
				t.Fatalf("refused: %s", r.Reply.Body)
			}
			sentHeader := ""
			for _, kv := range r.Set {
				if strings.EqualFold(kv[0], c.header) {
					sentHeader = kv[1]
				}
			}
			if !strings.HasPrefix(sentHeader, sentinelPrefix) {
				t.Fatalf("%s not rewritten in the sentinel: %v", c.header, r.Set)
			}
			got := finishStatus(t, s, 400, `{"jsonrpc":"2.0","id":2,"error":{"code":-32020,"message":"header mismatch: header value '`+sentHeader+`' does not match"}}`)
			if strings.Contains(got, sentHeader) || !strings.Contains(got, p) {
				t.Errorf("client got %s: want the pseudonym %s, not the header the plugin wrote", got, p)
			}
		})
	}
}
