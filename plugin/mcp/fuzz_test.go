package mcp

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
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

// FuzzNotFoundResult reads any server result to a stand-in request as
// not-found or as content, and agrees with notFoundOracle, which reads it
// with encoding/json: a result it lets through (with the name given back)
// carries nothing of a primitive, however the server wrote its JSON
// (escaped keys, numbers as 0.0 or -0e1, spacing).
func FuzzNotFoundResult(f *testing.F) {
	for _, seed := range []string{
		`{"content":[{"type":"text","text":"Tool x not found"}],"isError":true}`,
		`{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}],"isError":true}`,
		`{"content":[],"structuredContent":{},"isError":true}`,
		`{"is\u0045rror":true,"content":[{"t\u0079pe":"text","text":"x"}]}`,
		`{"messages":[],"resultType":"complete","_meta":{"a":1}}`,
		`{"description":"d","messages":[]}`,
		`{"contents":[],"ttlMs":0,"cacheScope":"public"}`,
		`{"contents":[{"uri":"a://b","text":"secret"}]}`,
		`{"completion":{"values":[],"total":-0e1,"hasMore":false}}`,
		`{"completion":{"values":["a"]}}`, `{"completion":{"values":null},"content":null,"contents":null,"messages":null}`,
		`{}`, `{"resultType":"input_required","inputRequests":{}}`, `[]`, `null`,
	} {
		for shape := mcpvocab.ResultAny; shape < mcpvocab.NumResults; shape++ {
			f.Add([]byte(seed), uint8(shape))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte, shape uint8) {
		want := mcpvocab.Result(shape % uint8(mcpvocab.NumResults))
		doc, err := jsondoc.Parse(raw)
		if err != nil {
			return // the filter refuses what it cannot parse
		}
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return // a number beyond float64 (1e999): the oracle cannot read it
		}
		if got, oracle := notFoundResult(doc, jsondoc.Root, want), notFoundOracle(v, want); got != oracle {
			t.Fatalf("%q as result %d: notFoundResult %v, oracle %v", raw, want, got, oracle)
		}
	})
}

// notFoundOracle is manual 7's rule for a result that says not found, on
// the value encoding/json decoded: no member that carries a primitive's
// content.
func notFoundOracle(v any, want mcpvocab.Result) bool {
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	isEmpty := func(v any) bool { a, ok := v.([]any); return v == nil || ok && len(a) == 0 }
	hints := map[string]func(any) bool{
		"_meta":      func(any) bool { return true },
		"resultType": func(v any) bool { return v == "complete" },
		"ttlMs":      func(v any) bool { _, ok := v.(float64); return ok },
		"cacheScope": func(v any) bool { _, ok := v.(string); return ok },
	}
	allowed := map[mcpvocab.Result]map[string]func(any) bool{
		mcpvocab.ResultTool: {
			"isError": func(v any) bool { return v == true },
			"content": func(v any) bool {
				items, ok := v.([]any)
				ok = ok || v == nil
				for _, it := range items {
					item, isObj := it.(map[string]any)
					_, text := item["text"].(string)
					ok = ok && isObj && item["type"] == "text" && text
					for k := range item {
						ok = ok && (k == "type" || k == "text" || k == "annotations" || k == "_meta")
					}
				}
				return ok
			},
		},
		mcpvocab.ResultPrompt:   {"messages": isEmpty},
		mcpvocab.ResultResource: {"contents": isEmpty},
		mcpvocab.ResultCompletion: {"completion": func(v any) bool {
			c, ok := v.(map[string]any)
			for k, x := range c {
				switch k {
				case "values":
					ok = ok && isEmpty(x)
				case "total":
					ok = ok && x == 0.0
				case "hasMore":
					ok = ok && x == false
				default:
					ok = false
				}
			}
			return ok
		}},
		mcpvocab.ResultEmpty: {},
	}
	members, known := allowed[want]
	if !known {
		return false
	}
	for k, x := range obj {
		check, ok := members[k]
		if !ok {
			check, ok = hints[k]
		}
		if !ok || !check(x) {
			return false
		}
	}
	return want != mcpvocab.ResultTool || obj["isError"] == true
}
