package mcp

import (
	"strconv"
	"strings"
	"testing"
)

func BenchmarkUnrestoreManyPairs(b *testing.B) {
	cfg, errs := NewConfig([]byte(strings.Replace(mirrorEnvelope, "HOLD", "true", 1)), nil)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	const n = 4000
	var emails []string
	for i := 0; i < n; i++ {
		emails = append(emails, `{"type":"text","text":"u`+strconv.Itoa(i)+`@example.com"}`)
	}
	s := NewStream(cfg)
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup",` + meta2026 + `}}`
	s.OnRequestHeaders(req2026("tools/call", "lookup"), "POST", "/mcp", false)
	s.OnRequestBody(len(req), true, func() []byte { return []byte(req) })
	resp := `{"jsonrpc":"2.0","id":1,"result":{"content":[` + strings.Join(emails, ",") + `]}}`
	s.OnResponseHeaders(200, "application/json", "", false)
	_, edit := s.OnResponseBody(len(resp), true, func() []byte { return []byte(resp) })
	ps := pseudonymRE.FindAllString(string(edit.Data), -1)
	if len(ps) != n {
		b.Fatalf("%d pseudonyms", len(ps))
	}
	var args []string
	for i, p := range ps {
		args = append(args, `"a`+strconv.Itoa(i)+`":"`+p+`"`)
	}
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"send","arguments":{` + strings.Join(args, ",") + `},` + meta2026 + `}}`
	echo := strings.Repeat("u1@example.com ", 60000)
	answer := `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"` + echo + `"}}`
	b.ResetTimer()
	for b.Loop() {
		s := NewStream(cfg)
		s.OnRequestHeaders(req2026("tools/call", "send"), "POST", "/mcp", false)
		r := s.OnRequestBody(len(call), true, func() []byte { return []byte(call) })
		if r.Reply != nil {
			b.Fatalf("refused %s", r.Reply.Body)
		}
		s.OnResponseHeaders(400, "application/json", "", false)
		s.OnResponseBody(len(answer), true, func() []byte { return []byte(answer) })
	}
}

// Regression (review of issue 13): every value restored in a request
// was put back in the server's error by its own pass over each string
// (strings.ReplaceAll per pair): a request restoring thousands of
// pseudonyms and an error quoting a megabyte made thousands of passes
// over it (BenchmarkUnrestoreManyPairs: 4,000 pairs, a 900 kB error).
// One pass now, longest value first where two begin alike: in pair
// order, a value that begins another one (bob@ex.co in bob@ex.com) was
// put back inside it, and the longer one never was.
func TestUnrestoreOnePassLongestFirst(t *testing.T) {
	pairs := []restoredPair{
		{"bob@ex.co", "P1"},
		{"bob@ex.com", "P2"},
		{"file:///people/alice@example.com", "file:///people/P3"},
		{"alice@example.com", "P3"},
	}
	for _, c := range []struct{ in, want string }{
		{"to bob@ex.com and bob@ex.co.", "to P2 and P1."},
		{"no file:///people/alice@example.com (alice@example.com)", "no file:///people/P3 (P3)"},
		{"nothing restored", "nothing restored"},
	} {
		if got := unrestoreText(c.in, pairs); got != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}
