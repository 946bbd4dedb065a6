package mcp

import (
	"strings"
	"testing"
)

// Regression (issue 27, item 6): the audit entry of a -32020 refusal had
// an empty method and name; it carries what the body said.
func TestHeaderMismatchAuditNamesTheBody(t *testing.T) {
	for _, c := range []struct {
		name, body, method, kind, primitive string
		headers                             []string
	}{
		{"tools/call", call("1", "tools/call", `{"name":"lookup","arguments":{"region":"us"},`+meta2026+`}`),
			"tools/call", "tool", "lookup", []string{"mcp-method", "tools/call", "mcp-name", "other"}},
		{"resources/read", call("2", "resources/read", `{"uri":"file:///a.txt",`+meta2026+`}`),
			"resources/read", "resource", "file:///a.txt", []string{"mcp-method", "resources/read", "mcp-name", "file:///b.txt"}},
		{"method only", call("3", "tools/list", `{`+meta2026+`}`),
			"tools/list", "", "", []string{"mcp-method", "prompts/list"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, _, lines, _ := wrConfig(t, rev2026Envelope)
			s := NewStream(cfg)
			h := hdr(append([]string{"x-mcp-principal", "ann", "content-type", "application/json",
				"mcp-protocol-version", "2026-07-28"}, c.headers...)...)
			if r := s.OnRequestHeaders(h, "POST", "/mcp", false); r.Reply != nil {
				t.Fatalf("headers refused %s", r.Reply.Body)
			}
			r := s.OnRequestBody(len(c.body), true, func() []byte { return []byte(c.body) })
			if r.Reply == nil || !strings.Contains(string(r.Reply.Body), `"code":-32020`) {
				t.Fatalf("want -32020, got %+v", r.Reply)
			}
			es := wrEntries(t, *lines)
			if len(es) != 1 {
				t.Fatalf("audit entries %v", es)
			}
			e := es[0]
			if e["decision"] != "error" || e["method"] != c.method {
				t.Errorf("entry %v: want decision error, method %q", e, c.method)
			}
			kind, _ := e["kind"].(string)
			name, _ := e["name"].(string)
			if kind != c.kind || name != c.primitive {
				t.Errorf("entry kind %q name %q, want %q %q (%v)", kind, name, c.kind, c.primitive, e)
			}
		})
	}
}
