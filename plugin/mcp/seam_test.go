package mcp

import (
	"strings"
	"testing"
)

// The split moved the marking of a stream answered locally out of the
// exchange: Stream sets replied from judgeBody's result. Every way a
// complete request body can end (a parse error, a batch under 2026-07-28,
// headers that disagree with the body, a denial, a partly denied batch, a
// forwarded call) marks the stream answered exactly when a reply went
// back, so the plugin's own reply passes the response callbacks untouched
// and a forwarded request's response is still inspected.
func TestBodyOutcomeMarksReplied(t *testing.T) {
	cfg := mustConfig(t, testEnvelope)
	visible := mustConfig(t, strings.Replace(testEnvelope, "hide_denied: true", "hide_denied: false", 1))
	cfg26 := mustConfig(t, rev2026Envelope)
	bob := hdr("x-mcp-principal", "bob") // export_* is denied to him (visible-export)
	cases := []struct {
		name  string
		cfg   *Config
		req   fakeRequest
		body  string
		reply bool
	}{
		{"parse error", cfg, bob, `{"jsonrpc":`, true},
		{"invalid request", cfg, bob, `{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"search"}}`, true},
		{"denied", visible, bob, call("1", "tools/call", `{"name":"export_all"}`), true},
		{"batch all denied", visible, bob, `[` + call("1", "tools/call", `{"name":"export_all"}`) + `]`, true},
		{"2026 batch", cfg26, req2026("tools/call", "t"), `[` + call("1", "tools/call", `{"name":"t",`+meta2026+`}`) + `]`, true},
		{"2026 header mismatch", cfg26, req2026("tools/call", "other"), call("1", "tools/call", `{"name":"t",`+meta2026+`}`), true},
		{"forwarded", cfg, bob, call("1", "tools/call", `{"name":"search"}`), false},
		{"hidden, sent as its stand-in", cfg, bob, call("1", "tools/call", `{"name":"delete_user"}`), false},
		{"batch partly denied", visible, bob, `[` + call("1", "tools/call", `{"name":"export_all"}`) + `,` + call("2", "tools/call", `{"name":"search"}`) + `]`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, r, s := postOnce(c.cfg, c.req, c.body)
			if h.Reply != nil {
				t.Fatalf("refused at headers: %d %s", h.Reply.Status, h.Reply.Body)
			}
			if (r.Reply != nil) != c.reply {
				t.Fatalf("reply %+v (body %s), want a reply: %v", r.Reply, r.Body, c.reply)
			}
			if s.replied != c.reply {
				t.Errorf("replied = %v, want %v", s.replied, c.reply)
			}
			// What comes back next: the plugin's own reply passes untouched;
			// a forwarded request's JSON response is buffered and inspected.
			rh := s.OnResponseHeaders(200, "application/json", "", false)
			if inspected := rh.Remove != nil || rh.Reply != nil; inspected == c.reply {
				t.Errorf("response headers %+v: inspected %v, want %v", rh, inspected, !c.reply)
			}
		})
	}
}
