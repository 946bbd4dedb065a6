package mcp

import (
	"strings"
	"testing"
)

// Regression (review of issue 13): a POST whose query named a legacy
// session (?sessionid=...) skipped the mirrored-header check entirely, so
// a client could send Mcp-Method, Mcp-Name or Mcp-Param headers that
// disagree with its body (which a Streamable HTTP server ignoring the
// query serves, and filters after this one act on) by adding a query
// parameter. Only the one thing the legacy transport lacks is excused: a
// 2026 _meta without the MCP-Protocol-Version header.
func TestLegacyQueryKeepsMirroredHeadersChecked(t *testing.T) {
	cfg := mustConfig(t, rev2026Envelope)
	toolCall := call("1", "tools/call", `{"name":"lookup","arguments":{"region":"us"}}`)
	for _, c := range []struct {
		name    string
		headers []string
		body    string
		ok      bool
	}{
		{"no mirrored headers", nil, toolCall, true},
		{"2026 _meta without the version header", nil, call("1", "server/discover", `{`+meta2026+`}`), true},
		{"agreeing Mcp-Name", []string{"mcp-method", "tools/call", "mcp-name", "lookup"}, toolCall, true},
		{"disagreeing Mcp-Name", []string{"mcp-name", "other"}, toolCall, false},
		{"disagreeing Mcp-Method", []string{"mcp-method", "tools/list"}, toolCall, false},
		{"Mcp-Param matching nothing", []string{"mcp-param-region", "eu"}, toolCall, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewStream(cfg)
			h := hdr(append([]string{"x-mcp-principal", "ann", "content-type", "application/json"}, c.headers...)...)
			if r := s.OnRequestHeaders(h, "POST", "/mcp?sessionid=abc", false); r.Reply != nil {
				t.Fatalf("headers refused %s", r.Reply.Body)
			}
			r := s.OnRequestBody(len(c.body), true, func() []byte { return []byte(c.body) })
			if c.ok {
				if r.Reply != nil {
					t.Fatalf("refused: %s", r.Reply.Body)
				}
				return
			}
			if r.Reply == nil || r.Reply.Status != 400 || !strings.Contains(string(r.Reply.Body), `"code":-32020`) {
				t.Fatalf("want 400 -32020, got %+v", r.Reply)
			}
		})
	}
}
