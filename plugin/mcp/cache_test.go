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
// stands, and other requests and revisions are left alone.
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
		{"tools/call is not cacheable", req2026("tools/call", "t"), call("1", "tools/call", `{"name":"t",`+meta2026+`}`), "public", ""},
		{"2025", hdr("x-mcp-principal", "ann", "content-type", "application/json"), call("1", "tools/list", `{}`), "public", ""},
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
