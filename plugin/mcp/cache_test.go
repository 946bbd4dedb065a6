package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every 2026-07-28 list or read result that passes the filter is marked
// cacheScope "private" with its ttlMs kept: filtered, transformed, or
// passed as the server sent it, under a policy the same for everyone or
// not. Marking only the pages the filter changed would tell a caller
// which page lost a hidden item (found in review: "a" and "b" public,
// "a" and a hidden "delete_b" private). 2025 results get no caching
// hints, and MRTR's interim results none either.
func TestCacheScopePrivate(t *testing.T) {
	const base = `
policy:
  name: cache
  hide_denied: true
  allow_tools: ["*"]
  deny_tools: ["delete_*"]
  transforms: [pseudonymise]
  vault: {key: "test key, not secret"}
RULES
identity:
  principal: [{header: x-mcp-principal}]
  roles: [{header: x-mcp-roles}]
gateway: {hold_headers: true, virtual_tools: false}
`
	sameForAll := strings.Replace(base, "RULES", "", 1)
	byRole := strings.Replace(base, "RULES", `  rules:
    - name: admins
      match: {roles: [admin]}
      allow_tools: ["delete_*"]`, 1)
	list := func(tools ...string) string {
		var items []string
		for _, n := range tools {
			items = append(items, `{"name":"`+n+`","inputSchema":{"type":"object"}}`)
		}
		return `{"jsonrpc":"2.0","id":1,"result":{"tools":[` + strings.Join(items, ",") + `],"ttlMs":60000,"cacheScope":"public","resultType":"complete"}}`
	}
	listReq := call("1", "tools/list", `{`+meta2026+`}`)
	read := `{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"file:///a","text":"mail alice@example.com"}],"ttlMs":5,"cacheScope":"public","resultType":"complete"}}`
	readReq := call("1", "resources/read", `{"uri":"file:///a",`+meta2026+`}`)
	interim := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{}}}`
	v2025 := hdr("x-mcp-principal", "ann", "content-type", "application/json")
	for _, c := range []struct {
		name, env string
		req       fakeRequest
		request   string
		response  string
		scope     string // "": no cacheScope member
	}{
		{"filtered list", sameForAll, req2026("tools/list", ""), listReq, list("a", "delete_b"), "private"},
		{"list passed as sent, same for all", sameForAll, req2026("tools/list", ""), listReq, list("a", "b"), "private"},
		{"list passed as sent, rules by role", byRole, req2026("tools/list", ""), listReq, list("a", "b"), "private"},
		{"read transformed", sameForAll, req2026("resources/read", "file:///a"), readReq, read, "private"},
		{"interim result", byRole, req2026("resources/read", "file:///a"), readReq, interim, ""},
		{"2025 list filtered", sameForAll, v2025, call("1", "tools/list", `{}`),
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"delete_b","inputSchema":{"type":"object"}}]}}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := mustConfig(t, c.env)
			out := respond(t, cfg, c.req, c.request, c.response)
			var m struct {
				Result map[string]any
			}
			if err := json.Unmarshal([]byte(out), &m); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			scope, _ := m.Result["cacheScope"].(string)
			if scope != c.scope {
				t.Errorf("cacheScope %q, want %q in %s", scope, c.scope, out)
			}
			var in struct{ Result map[string]any }
			_ = json.Unmarshal([]byte(c.response), &in)
			if in.Result["ttlMs"] != m.Result["ttlMs"] {
				t.Errorf("ttlMs %v, want %v kept", m.Result["ttlMs"], in.Result["ttlMs"])
			}
		})
	}
}

// The HTTP response to a 2026-07-28 list or read request is marked
// Cache-Control: private (its headers leave before the body is judged),
// keeping the server's other directives; a server's no-store or private
// stands. Any other response loses a server's public and s-maxage to
// private, at any revision (issue 32, item 4), and is otherwise left alone.
func TestCacheControlPrivate(t *testing.T) {
	cfg := mustConfig(t, rev2026Envelope)
	for _, c := range []struct {
		name     string
		req      fakeRequest
		body     string
		existing string
		want     string // "" : unchanged
	}{
		{"none", req2026("tools/list", ""), call("1", "tools/list", `{`+meta2026+`}`), "", "private"},
		{"public", req2026("tools/list", ""), call("1", "tools/list", `{`+meta2026+`}`), "public, max-age=60, s-maxage=600", "max-age=60, private"},
		{"no-store stands", req2026("tools/list", ""), call("1", "tools/list", `{`+meta2026+`}`), "no-store", ""},
		{"read", req2026("resources/read", "file:///a"), call("1", "resources/read", `{"uri":"file:///a",`+meta2026+`}`), "max-age=5", "max-age=5, private"},
		{"tools/call without shared-cache directives", req2026("tools/call", "t"), call("1", "tools/call", `{"name":"t",`+meta2026+`}`), "max-age=5", ""},
		{"tools/call public", req2026("tools/call", "t"), call("1", "tools/call", `{"name":"t",`+meta2026+`}`), "public", "private"},
		{"2025 none", hdr("x-mcp-principal", "ann", "content-type", "application/json"), call("1", "tools/list", `{}`), "", ""},
		{"2025 max-age", hdr("x-mcp-principal", "ann", "content-type", "application/json"), call("1", "tools/list", `{}`), "max-age=60", ""},
		{"2025 public", hdr("x-mcp-principal", "ann", "content-type", "application/json"), call("1", "tools/list", `{}`), "public, max-age=60", "max-age=60, private"},
		{"2025 s-maxage", hdr("x-mcp-principal", "ann", "content-type", "application/json"), call("1", "resources/read", `{"uri":"file:///a"}`), "s-maxage=60", "private"},
		{"2025 private stands", hdr("x-mcp-principal", "ann", "content-type", "application/json"), call("1", "tools/list", `{}`), "private, max-age=60", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, r, s := postOnce(cfg, c.req, c.body)
			if r.Reply != nil {
				t.Fatalf("refused: %s", r.Reply.Body)
			}
			s.OnResponseHeaders(200, "text/event-stream", "", false)
			got, ok := s.CacheControl(c.existing)
			if c.want == "" {
				if ok {
					t.Errorf("Cache-Control set to %q, want it left", got)
				}
				return
			}
			if !ok || got != c.want {
				t.Errorf("Cache-Control %q (%v), want %q", got, ok, c.want)
			}
		})
	}
}

// Servers send caching hints at 2025 revisions too (the go-sdk 1.8 server
// writes ttlMs and cacheScope "public" on every list and read result),
// and on results of other methods: every result a caller gets through the
// filter (a filtered list, a transformed result, a tool's error, the
// server's answer to a stand-in, a response no request explains) leaves
// with cacheScope "private" whenever it carries a hint, at every
// revision (issue 32, item 4). One without hints gets none, except a
// complete 2026-07-28 result of a cacheable method.
func TestCacheScopePrivateAtEveryRevision(t *testing.T) {
	const env = `
policy:
  name: cache
  hide_denied: true
  deny_tools: ["delete_*"]
  deny_resources: ["secret://*"]
  transforms: [pseudonymise]
  vault: {key: "test key, not secret"}
identity:
  principal: [{header: x-mcp-principal}]
gateway: {hold_headers: true, virtual_tools: false}
`
	type revision struct {
		name string
		req  func(method, name string) fakeRequest
		meta string // the params' _meta, with its comma
	}
	revs := []revision{
		{"2025-11-25", func(string, string) fakeRequest {
			return hdr("x-mcp-principal", "ann", "content-type", "application/json", "mcp-protocol-version", "2025-11-25")
		}, ""},
		{"2025-06-18", func(string, string) fakeRequest {
			return hdr("x-mcp-principal", "ann", "content-type", "application/json", "mcp-protocol-version", "2025-06-18")
		}, ""},
		{"2026-07-28", func(method, name string) fakeRequest { return req2026(method, name) }, "," + meta2026},
	}
	const hints = `"ttlMs":60000,"cacheScope":"public"`
	cases := []struct {
		what, method, name, params, result string
		scope                              string // want; "" for none
	}{
		{"filtered list", "tools/list", "", `{"x":1`,
			`{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"delete_b","inputSchema":{"type":"object"}}],` + hints + `}`, "private"},
		{"list as sent", "tools/list", "", `{"x":1`, `{"tools":[{"name":"a","inputSchema":{"type":"object"}}],` + hints + `}`, "private"},
		{"prompts list", "prompts/list", "", `{"x":1`, `{"prompts":[{"name":"p"}],` + hints + `}`, "private"},
		{"resources list", "resources/list", "", `{"x":1`, `{"resources":[{"uri":"file:///a","name":"a"},{"uri":"secret://b","name":"b"}],` + hints + `}`, "private"},
		{"templates list", "resources/templates/list", "", `{"x":1`, `{"resourceTemplates":[{"uriTemplate":"file:///{x}","name":"a"}],` + hints + `}`, "private"},
		{"read transformed", "resources/read", "file:///a", `{"uri":"file:///a"`,
			`{"contents":[{"uri":"file:///a","text":"mail alice@example.com"}],` + hints + `}`, "private"},
		{"tool result transformed", "tools/call", "t", `{"name":"t","arguments":{}`,
			`{"content":[{"type":"text","text":"mail alice@example.com"}],` + hints + `}`, "private"},
		{"tool error", "tools/call", "t", `{"name":"t","arguments":{}`,
			`{"content":[{"type":"text","text":"failed"}],"isError":true,"cacheScope":"public"}`, "private"},
		{"stand-in of a hidden tool", "tools/call", "delete_x", `{"name":"delete_x","arguments":{}`,
			`{"content":[{"type":"text","text":"Tool not found"}],"isError":true,` + hints + `}`, "private"},
		{"ttlMs alone", "tools/list", "", `{"x":1`, `{"tools":[],"ttlMs":5}`, "private"},
		{"a scope of another type", "tools/list", "", `{"x":1`, `{"tools":[],"cacheScope":1}`, "private"},
		{"no hints on a call", "tools/call", "t", `{"name":"t","arguments":{}`, `{"content":[]}`, ""},
	}
	for _, rv := range revs {
		for _, c := range cases {
			t.Run(rv.name+"/"+c.what, func(t *testing.T) {
				cfg := mustConfig(t, env)
				params := strings.Replace(c.params, `{"x":1`, `{`, 1) + rv.meta + `}`
				params = strings.Replace(params, `{,`, `{`, 1)
				out := respond(t, cfg, rv.req(c.method, c.name), call("1", c.method, params), `{"jsonrpc":"2.0","id":1,"result":`+c.result+`}`)
				var m struct{ Result map[string]any }
				if err := json.Unmarshal([]byte(out), &m); err != nil {
					t.Fatalf("%s: %v", out, err)
				}
				if scope, _ := m.Result["cacheScope"].(string); scope != c.scope {
					t.Errorf("cacheScope %q, want %q in %s", scope, c.scope, out)
				}
				if strings.Contains(c.result, "60000") && m.Result["ttlMs"] != float64(60000) {
					t.Errorf("ttlMs not kept: %s", out)
				}
			})
		}
	}
	// A response no request of the stream explains (a resumed stream, a
	// GET stream) is filtered and transformed as the caller's: private too.
	cfg := mustConfig(t, env)
	out := getStream(t, cfg, `{"jsonrpc":"2.0","id":9,"result":{"tools":[{"name":"a"}],`+hints+`}}`)
	if !strings.Contains(out, `"cacheScope":"private"`) || strings.Contains(out, "public") {
		t.Errorf("unattributed response: %s", out)
	}
}
