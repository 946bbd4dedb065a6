package mcp

import (
	"testing"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/policy"
)

// FuzzStream drives one stream with any request body and any response
// (JSON or an event stream) under a policy that uses every part of the
// plugin: nothing panics, and a rewritten request or JSON response is
// valid JSON.
func FuzzStream(f *testing.F) {
	cfg, errs := NewConfig([]byte(`
policy:
  name: fuzz
  extends: standard
  allow_tools: ["*"]
  audit: true
  rate_limits: [{rate: 1000, per: second, burst: 1000, scope: principal}]
  transforms:
    - {type: block, options: {detectors: [aws_access_key]}}
    - redact
    - pseudonymise
    - {type: project, options: {exclude: ["**.secret"]}}
    - annotate
  vault: {key: "fuzz key"}
identity:
  principal: [{header: x-mcp-principal}]
gateway: {virtual_tools: true}
`), newMemShared())
	if len(errs) > 0 {
		f.Fatal(errs)
	}
	for _, seed := range [][3]string{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{"to":"EMAIL_AAAAAAAAAAAA"}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"e\":\"a@example.com\"}"}],"structuredContent":{"e":"a@example.com"}}}`, "json"},
		{`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"privacy_status"}}]`,
			"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"x\",\"outputSchema\":{\"type\":\"object\",\"properties\":{\"e\":{\"type\":\"string\",\"format\":\"email\"}}}}]}}\n\n", "sse"},
		{`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///EMAIL_AAAAAAAAAAAA"}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"contents":[{"uri":"file:///x","blob":"AA"}]}}`, "json"},
		{`{"jsonrpc":"2.0","id":4,"result":{"action":"accept","content":{"e":"EMAIL_AAAAAAAAAAAA"}}}`,
			"data: {\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[]}}\n\n", "sse"},
		// A hidden tool (reveal is denied), answered by the server for its stand-in.
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"privacy_reveal","arguments":{"text":"x"}}}`,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"unknown tool \"` + cfg.standIn(policy.KindTool, "privacy_reveal") + `\""}}`, "json"},
	} {
		f.Add([]byte(seed[0]), []byte(seed[1]), seed[2] == "sse")
	}
	req := fakeRequest{headers: map[string]string{"x-mcp-principal": "alice", "content-type": "application/json"}}
	f.Fuzz(func(t *testing.T, request, response []byte, sse bool) {
		fuzzOneStream(t, cfg, req, request, response, sse)
	})
}

// fuzzOneStream drives one stream of cfg with request (headers req) and
// response (an event stream when sse): nothing panics, a forwarded body
// is JSON, and so is a rewritten JSON response.
func fuzzOneStream(t *testing.T, cfg *Config, req fakeRequest, request, response []byte, sse bool) {
	s := NewStream(cfg)
	s.OnRequestHeaders(req, "POST", "/mcp", false)
	r := s.OnRequestBody(len(request), true, func() []byte { return request })
	if r.Body != nil {
		if _, err := jsondoc.Parse(r.Body); err != nil {
			t.Fatalf("forwarded body does not parse: %v\n%s", err, r.Body)
		}
	}
	if r.Reply != nil {
		return
	}
	ct := "application/json"
	if sse {
		ct = "text/event-stream"
	}
	if h := s.OnResponseHeaders(200, ct, "", false); h.Reply != nil {
		return
	}
	_, edit := s.OnResponseBody(len(response), true, func() []byte { return response })
	if !sse && edit.Replace {
		if _, err := jsondoc.Parse(edit.Data); err != nil {
			t.Fatalf("JSON response does not parse: %v\n%s", err, edit.Data)
		}
	}
}

// FuzzRespell puts a hidden name back into any server answer: nothing
// panics, and a valid JSON answer stays valid JSON.
func FuzzRespell(f *testing.F) {
	cfg, errs := NewConfig([]byte(`{"policy": {"name": "fuzz", "vault": {"key": "fuzz key"}}}`), nil)
	if len(errs) > 0 {
		f.Fatal(errs)
	}
	for _, name := range []string{"delete_user", `a"b\c/d`, "secret://dé/jà?a=1&b=<2>", "x😀\n\t'+`="} {
		for _, st := range []jsonStyle{{}, {asciiOnly: true, slash: true, spaced: true}, {escape: "<>&'=+`", upperHex: true, controlHex: true}} {
			f.Add([]byte(st.notFound("1", "tools/call", cfg.standIn(policy.KindResource, name))), name)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte, name string) {
		if !utf8.ValidString(name) || name == "" {
			return
		}
		for _, kind := range []policy.Kind{policy.KindTool, policy.KindResource} {
			out, ok := respell(raw, cfg.standIn(kind, name), name)
			if _, err := jsondoc.Parse(raw); ok && err == nil {
				if _, err := jsondoc.Parse(out); err != nil {
					t.Fatalf("%q with %q respelt: %s: %v", raw, name, out, err)
				}
			}
		}
	})
}
