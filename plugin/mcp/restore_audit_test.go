package mcp

import (
	"regexp"
	"strings"
	"testing"
)

// A call whose arguments hold pseudonyms the depseudonymiser cannot
// restore for the caller (never issued, or glued to text that would make
// the value part of a longer token) is audited and counted.
func TestAuditUnrestoredPseudonyms(t *testing.T) {
	cfg, m, lines, _ := wrConfig(t, wrEnvelope)
	alice := hdr("x-mcp-principal", "alice", "mcp-session-id", "sess-1")
	s, _ := post(t, cfg, alice, wrToolCall("1", "lookup", `{}`))
	resp := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"mail carol@example.com"}]}}`
	s.OnResponseHeaders(200, "application/json", "", false)
	_, edit := s.OnResponseBody(len(resp), true, func() []byte { return []byte(resp) })
	s.Done()
	p := regexp.MustCompile(`EMAIL_[A-Z2-7]{12}`).FindString(string(edit.Data))
	if p == "" {
		t.Fatalf("no pseudonym in %s", edit.Data)
	}
	s, _ = post(t, cfg, alice, wrToolCall("2", "lookup", `{"to":"`+p+`.5","cc":"EMAIL_AAAAAAAAAAAA","bcc":"`+p+`"}`))
	s.Done()
	entries := wrEntries(t, *lines)
	e := entries[len(entries)-1]
	if e["resolved"] != float64(1) || e["unresolved"] != float64(1) || e["refused"] != float64(1) {
		t.Errorf("entry %v: want resolved 1, unresolved 1, refused 1", e)
	}
	if m[pseudonymsUnresolvedMetric] != 1 || m[pseudonymsRefusedMetric] != 1 {
		t.Errorf("unresolved %d, refused %d; want 1, 1", m[pseudonymsUnresolvedMetric], m[pseudonymsRefusedMetric])
	}
}

// Two notifications on one event stream, a value split between them: the
// continuation in the second is replaced (the first part has left).
func TestValueSplitAcrossNotifications(t *testing.T) {
	cfg := mustConfig(t, transformEnvelope)
	s := NewStream(cfg)
	s.OnRequestHeaders(fakeRequest{headers: map[string]string{"x-mcp-principal": "alice"}}, "GET", "/mcp", true)
	s.OnResponseHeaders(200, "text/event-stream", "", false)
	for i, ev := range []string{
		"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"mail erin@exa\"}}\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"mple.com now\"}}\n\n",
	} {
		_, edit := s.OnResponseBody(len(ev), false, func() []byte { return []byte(ev) })
		got := ev
		if edit.Replace {
			got = string(edit.Data)
		}
		if i == 1 && (strings.Contains(got, "mple.com") || !strings.Contains(got, `"data":"EMAIL_`)) {
			t.Errorf("continuation went out: %q", got)
		}
	}
}
