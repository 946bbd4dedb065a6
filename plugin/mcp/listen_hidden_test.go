package mcp

import (
	"strings"
	"testing"
)

// Regression (review of issue 13): a subscriptions/listen request's
// resourceSubscriptions reached the server as the client wrote them, a
// hidden resource's URI included: the server subscribes to a resource
// it has (and acknowledges it, or calls its subscribe handler, which may
// refuse a missing one), so a client told a hidden resource apart from a
// missing one by the acknowledgement or the error. A hidden URI goes
// upstream as its stand-in, as a read of it does, and the client's URI
// comes back in the acknowledgement and in errors.
func TestListenHiddenResourceLooksMissing(t *testing.T) {
	env := strings.Replace(rev2026Envelope, "hide_denied: false", "hide_denied: true", 1)
	cfg := mustConfig(t, env)
	body := call("1", "subscriptions/listen", `{"notifications":{"resourceSubscriptions":["secret://x","file:///ok"]},`+meta2026+`}`)
	for _, c := range []struct {
		name, answer string
	}{
		{"acknowledged", "event: message\ndata: " + `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"resourceSubscriptions":[UPSTREAM]}}}` + "\n\n"},
		{"refused", "event: message\ndata: " + `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Resource not found: STANDIN"}}` + "\n\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, r, s := postOnce(cfg, req2026("subscriptions/listen", ""), body)
			if r.Reply != nil {
				t.Fatalf("listen refused: %s", r.Reply.Body)
			}
			up := string(r.Body)
			if strings.Contains(up, "secret://x") || !strings.Contains(up, "secret://"+standInPrefix) || !strings.Contains(up, `"file:///ok"`) {
				t.Fatalf("upstream %s: want the hidden URI's stand-in, the other as sent", up)
			}
			i := strings.Index(up, "secret://"+standInPrefix)
			standIn := up[i : i+strings.IndexByte(up[i:], '"')]
			ev := strings.ReplaceAll(strings.ReplaceAll(c.answer, "UPSTREAM", `"`+standIn+`","file:///ok"`), "STANDIN", standIn)
			s.OnResponseHeaders(200, "text/event-stream", "", false)
			_, edit := s.OnResponseBody(len(ev), false, func() []byte { return []byte(ev) })
			got := ev
			if edit.Replace {
				got = string(edit.Data)
			}
			if strings.Contains(got, standInPrefix) || !strings.Contains(got, "secret://x") {
				t.Errorf("client got %s: want the URI it sent, no stand-in", got)
			}
		})
	}
}
