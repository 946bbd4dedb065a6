package sse

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/cloudg/mcp-privacy/internal/sse/ssereaders"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// sseRun is what feeding a stream through an Rewriter produced.
type sseRun struct {
	out   string
	calls []string // the data rewrite was called with, in order
	err   error
}

// runSSE feeds chunks to a fresh rewriter and closes it. Each chunk is
// given in its own buffer that is scribbled over once Write returns, as a
// host may reuse its buffers: the rewriter must not keep slices of it.
func runSSE(maxEvent int, rw func([]byte) ([]byte, bool), chunks [][]byte) sseRun {
	var res sseRun
	var out []byte
	r := NewRewriter(maxEvent, func(data []byte) ([]byte, bool) {
		res.calls = append(res.calls, string(data))
		return rw(data)
	})
	for _, c := range chunks {
		buf := append([]byte(nil), c...)
		got, err := r.Write(buf)
		if err != nil {
			res.err = err
			return res
		}
		out = append(out, got...)
		for i := range buf {
			buf[i] = '#'
		}
	}
	got, err := r.Close()
	res.out, res.err = string(append(out, got...)), err
	return res
}

// chunkings returns ways to cut s: whole, at every byte position into two,
// byte by byte, and random cuts from a fixed seed.
func chunkings(s string, random int) map[string][][]byte {
	b := []byte(s)
	m := map[string][][]byte{"whole": {b}}
	for k := 0; k <= len(b); k++ {
		m[fmt.Sprintf("split@%d", k)] = [][]byte{b[:k], b[k:]}
	}
	var bytewise [][]byte
	for i := range b {
		bytewise = append(bytewise, b[i:i+1])
	}
	m["bytewise"] = bytewise
	rng := rand.New(rand.NewPCG(1, uint64(len(b))))
	for n := range random {
		var cs [][]byte
		for rest := b; len(rest) > 0; {
			k := min(len(rest), rng.IntN(40))
			cs, rest = append(cs, rest[:k]), rest[k:]
		}
		m[fmt.Sprintf("random%d", n)] = cs
	}
	return m
}

func identityRewrite(data []byte) ([]byte, bool) { return data, false }

// markerRewrite is the rewrite of most tests: "secret" becomes "SECRET"
// (bytes.ReplaceAll always returns a copy, so events without it exercise
// the equal-bytes path), and whole data values act as markers.
func markerRewrite(data []byte) ([]byte, bool) {
	switch string(data) {
	case "DROP":
		return nil, true
	case "EMPTY":
		return nil, false
	case "LINES":
		return []byte("one\n\nthree\n"), false
	case "CR":
		return []byte("a\rb\r\nc"), false
	case "INJECT":
		return []byte("x\n\nid: evil\r\rdata: y"), false
	}
	return bytes.ReplaceAll(data, []byte("secret"), []byte("SECRET")), false
}

func TestRewriterEvents(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  string // "" means the input, unchanged
		calls []string
	}{
		{name: "basic", in: "data: hello\n\n", calls: []string{"hello"}},
		{name: "rewritten", in: "data: a secret\n\n", want: "data: a SECRET\n\n", calls: []string{"a secret"}},
		{name: "two events", in: "data: a\n\ndata: secret\n\n", want: "data: a\n\ndata: SECRET\n\n", calls: []string{"a", "secret"}},
		{name: "multi-line data", in: "data: a\ndata: b\n\n", calls: []string{"a\nb"}},
		{name: "multi-line rewritten", in: "data: a secret\ndata: b\ndata: c\n\n", want: "data: a SECRET\ndata: b\ndata: c\n\n", calls: []string{"a secret\nb\nc"}},
		{name: "comment keep-alive", in: ": keep-alive\n\n", want: ":\n\n"},
		{name: "empty comment", in: ":\n\n"},
		{name: "comments kept in place", in: ": c1\ndata: secret\n: c2\n\n", want: ":\ndata: SECRET\n:\n\n", calls: []string{"secret"}},
		{name: "id event retry", in: "id: 7\nevent: message\nretry: 10\ndata: secret\n\n",
			want: "id: 7\nevent: message\nretry: 10\ndata: SECRET\n\n", calls: []string{"secret"}},
		{name: "new data at the first data line", in: "event: e\ndata: x secret\nid: 3\ndata: y\nretry: 5\n\n",
			want: "event: e\ndata: x SECRET\ndata: y\nid: 3\nretry: 5\n\n", calls: []string{"x secret\ny"}},
		{name: "priming event with empty data", in: "id: 1\nretry: 1000\ndata: \n\n", calls: []string{""}},
		{name: "priming event without data", in: "id: 1\nretry: 1000\n\n"},
		{name: "empty events", in: "\n\n\r\n\rdata: x\n\n\n", want: "\n\ndata: x\n\n\n", calls: []string{"x"}},
		{name: "CRLF", in: "id: 1\r\ndata: secret\r\ndata: b\r\n\r\n", want: "id: 1\ndata: SECRET\ndata: b\n\n", calls: []string{"secret\nb"}},
		{name: "CRLF unchanged", in: "id: 1\r\ndata: b\r\n\r\n", want: "id: 1\ndata: b\n\n", calls: []string{"b"}},
		// Lone CRs end lines for WHATWG clients but not for clients that
		// split on LF (the Go SDK): such events go out with LF endings,
		// which both read alike (a regression test for that differential).
		{name: "lone CR", in: "id: 1\rdata: secret\r\r", want: "id: 1\ndata: SECRET\n\n", calls: []string{"secret"}},
		{name: "lone CR unchanged", in: "data: a\rdata: b\r\r: c\r\r", want: "data: a\ndata: b\n\n:\n\n", calls: []string{"a\nb"}},
		{name: "lone CR hiding data from LF-only clients", in: "data: {\"a\":\"b\"\r,\"c\":\"secret\"}\n\n",
			want: "data: {\"a\":\"b\"\n\n", calls: []string{"{\"a\":\"b\""}},
		{name: "mixed endings with a lone CR use LF", in: "id: 1\r\ndata: secret\rdata: b\n\r\n",
			want: "id: 1\ndata: SECRET\ndata: b\n\n", calls: []string{"secret\nb"}},
		{name: "lone CR before a CRLF empty line", in: "data: secret\r\r\n", want: "data: SECRET\n\n", calls: []string{"secret"}},
		{name: "BOM at start", in: utf8BOM + "data: secret\n\n", want: "data: SECRET\n\n", calls: []string{"secret"}},
		{name: "BOM only at start", in: "data: a\n\n" + utf8BOM + "data: b\n\n", want: "data: a\n\n", calls: []string{"a"}},
		{name: "second BOM is part of the field name", in: utf8BOM + utf8BOM + "data: b\n\n", want: "-"},
		{name: "BOM-like start", in: "\xEF\xBBdata: x\n\ndata: y\n\n", want: "data: y\n\n", calls: []string{"y"}},
		{name: "field without colon", in: "data\n\n", want: "data:\n\n", calls: []string{""}},
		{name: "two fields without colon", in: "data\ndata\n\n", want: "data:\ndata:\n\n", calls: []string{"\n"}},
		{name: "no space after colon", in: "data:secret\n\n", want: "data: SECRET\n\n", calls: []string{"secret"}},
		{name: "one space removed", in: "data:  x\ndata:x\n\n", calls: []string{" x\nx"}},
		{name: "colons in the value", in: "data: a: b:c\n\n", calls: []string{"a: b:c"}},
		{name: "unknown fields passed through", in: "foo: secret\ndata: secret\nbar\n\n",
			want: "data: SECRET\n\n", calls: []string{"secret"}},
		{name: "field names are exact", in: "Data: x\n data: x\ndatax: x\ndata : x\n\n", want: "-"},
		{name: "unknown fields only", in: "foo: secret\n\n", want: "-"},
		{name: "data removed", in: "id: 1\ndata: EMPTY\n: c\n\n", want: "id: 1\n:\n\n", calls: []string{"EMPTY"}},
		{name: "dropped", in: "data: a\n\nid: 2\nevent: x\ndata: DROP\n\ndata: b\n\n",
			want: "data: a\n\ndata: b\n\n", calls: []string{"a", "DROP", "b"}},
		{name: "dropped with CRLF", in: "data: DROP\r\n\r\ndata: b\r\n\r\n", want: "data: b\n\n", calls: []string{"DROP", "b"}},
		{name: "dropped with lone CR", in: "data: DROP\r\rdata: b\r\r", want: "data: b\n\n", calls: []string{"DROP", "b"}},
		{name: "new data lines", in: "data: LINES\r\n\r\n", want: "data: one\ndata:\ndata: three\ndata:\n\n", calls: []string{"LINES"}},
		{name: "CR in new data starts a line", in: "data: CR\n\n", want: "data: a\ndata: b\ndata: c\n\n", calls: []string{"CR"}},
		{name: "new data cannot inject fields", in: "id: 1\ndata: INJECT\n\n",
			want: "id: 1\ndata: x\ndata:\ndata: id: evil\ndata:\ndata: data: y\n\n", calls: []string{"INJECT"}},
		// What clients other than WHATWG's read otherwise (issue 32): a BOM
		// decoded as Latin-1 (eventsource-parser drops "ï»¿" first in the
		// stream), the line breaks of Python's str.splitlines (httpx-sse), a
		// line without a colon (the go-sdk fails on it, quoting it).
		{name: "garbled BOM", in: "ï»¿data: secret\n\ndata: b\n\n", want: "data: b\n\n", calls: []string{"b"}},
		{name: "garbled BOM after a BOM", in: utf8BOM + "ï»¿data: secret\n\n", want: "-"},
		{name: "comment with U+2028", in: ": c\u2028data: secret\ndata: b\n\n", want: ":\ndata: b\n\n", calls: []string{"b"}},
		{name: "comment with VT FF FS GS RS NEL", in: ": \v\f\x1c\x1d\x1e\u0085data: secret\n\n", want: ":\n\n"},
		{name: "id with U+2029", in: "id: 1\u2029data: secret\ndata: b\n\n", want: "data: b\n\n", calls: []string{"b"}},
		{name: "event with FF", in: "event: m\fdata: secret\ndata: b\n\n", want: "data: b\n\n", calls: []string{"b"}},
		{name: "unknown field with NEL", in: "x: \u0085data: secret\ndata: b\n\n", want: "data: b\n\n", calls: []string{"b"}},
		{name: "data with U+2028 unchanged", in: "data: a\u2028data: b\n\n", want: "data: a\ndata: data: b\n\n", calls: []string{"a\u2028data: b"}},
		{name: "data with VT unchanged", in: "data: a\vb\n\n", want: "data: a\ndata: b\n\n", calls: []string{"a\vb"}},
		{name: "ids and events kept plain", in: "id: 0_1\nevent: message\nretry: 5\ndata: b\n\n", calls: []string{"b"}},
		{name: "ids and events not plain", in: "id: a b\nevent: m\x00\nretry: 5x\nid: \u00e9\ndata: b\n\n", want: "data: b\n\n", calls: []string{"b"}},
		{name: "id without colon", in: "id\nevent\ndata: b\n\n", want: "id:\nevent:\ndata: b\n\n", calls: []string{"b"}},
		{name: "id without space", in: "id:7\ndata:b\n\n", calls: []string{"b"}},
		{name: "multibyte data", in: "data: José — 日本 secret 🔑\n\n", want: "data: José — 日本 SECRET 🔑\n\n", calls: []string{"José — 日本 secret 🔑"}},
	}
	for _, tt := range tests {
		want := tt.want
		switch want {
		case "":
			want = tt.in
		case "-":
			want = ""
		}
		for how, chunks := range chunkings(tt.in, 5) {
			got := runSSE(1<<20, markerRewrite, chunks)
			if got.err != nil || got.out != want || !slices.Equal(got.calls, tt.calls) {
				t.Errorf("%s (%s):\n got %q, %q, %v\nwant %q, %q", tt.name, how, got.out, got.calls, got.err, want, tt.calls)
				break
			}
		}
	}
}

// sseStream is a realistic Streamable HTTP response stream: a priming
// event, progress, a log message with CRLF endings, one with lone CR
// endings, a comment keep-alive, and the response with multi-line JSON
// (a comment between its data lines) and multi-byte characters.
const sseStream = "id: 1\nretry: 1000\ndata: \n\n" +
	"event: message\nid: 2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t1\",\"progress\":50,\"total\":100,\"message\":\"reading secret files\"}}\n\n" +
	"id: 3\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"logger\":\"db\",\"data\":\"José — 日本 token=secret\"}}\r\n\r\n" +
	"event: message\rdata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"debug\",\"data\":\"no secrets here? secret!\"}}\r\r" +
	": keep-alive\n\n" +
	"id: 4\nevent: message\ndata: {\ndata:   \"jsonrpc\": \"2.0\",\ndata:   \"id\": 7,\n: a comment inside\ndata:   \"result\": {\"content\": [{\"type\": \"text\", \"text\": \"the secret is 🔑 ✓\"}]}\ndata: }\n\n"

func TestRewriterStream(t *testing.T) {
	for _, must := range []string{"\r\n", "\r\r", "日", "🔑", "\n\n"} {
		if !strings.Contains(sseStream, must) {
			t.Fatalf("test stream lost %q", must)
		}
	}
	calls := []string{
		"",
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":50,"total":100,"message":"reading secret files"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"db","data":"José — 日本 token=secret"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"no secrets here? secret!"}}`,
		"{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 7,\n  \"result\": {\"content\": [{\"type\": \"text\", \"text\": \"the secret is 🔑 ✓\"}]}\n}",
	}
	upper := "id: 1\nretry: 1000\ndata: \n\n" +
		"event: message\nid: 2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t1\",\"progress\":50,\"total\":100,\"message\":\"reading SECRET files\"}}\n\n" +
		"id: 3\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"logger\":\"db\",\"data\":\"José — 日本 token=SECRET\"}}\n\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"debug\",\"data\":\"no SECRETs here? SECRET!\"}}\n\n" +
		":\n\n" +
		"id: 4\nevent: message\ndata: {\ndata:   \"jsonrpc\": \"2.0\",\ndata:   \"id\": 7,\ndata:   \"result\": {\"content\": [{\"type\": \"text\", \"text\": \"the SECRET is 🔑 ✓\"}]}\ndata: }\n:\n\n"
	// dropResponses drops responses (answered elsewhere) and log messages.
	dropResponses := func(data []byte) ([]byte, bool) {
		return data, bytes.Contains(data, []byte(`"result"`)) || bytes.Contains(data, []byte("notifications/message"))
	}
	// Unchanged data, in the canonical form: LF endings, empty comments.
	unchanged := strings.ReplaceAll(upper, "SECRET", "secret")
	dropped := "id: 1\nretry: 1000\ndata: \n\n" +
		"event: message\nid: 2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t1\",\"progress\":50,\"total\":100,\"message\":\"reading secret files\"}}\n\n" +
		":\n\n"
	tests := []struct {
		name string
		rw   func([]byte) ([]byte, bool)
		want string
	}{
		{"unchanged", identityRewrite, unchanged},
		{"rewritten", markerRewrite, upper},
		{"dropped", dropResponses, dropped},
	}
	for _, tt := range tests {
		whole := runSSE(1<<20, tt.rw, [][]byte{[]byte(sseStream)})
		if whole.err != nil || whole.out != tt.want || !slices.Equal(whole.calls, calls) {
			t.Fatalf("%s whole:\n got %q\n     %q %v\nwant %q", tt.name, whole.out, whole.calls, whole.err, tt.want)
		}
		n := 0
		for how, chunks := range chunkings(sseStream, 200) {
			got := runSSE(1<<20, tt.rw, chunks)
			if got.err != nil || got.out != whole.out || !slices.Equal(got.calls, calls) {
				t.Fatalf("%s %s:\n got %q\n     %q %v\nwant %q", tt.name, how, got.out, got.calls, got.err, whole.out)
			}
			n++
		}
		if n < len(sseStream)+200 {
			t.Fatalf("only %d chunkings", n)
		}
	}
}

func TestRewriterNoCopy(t *testing.T) {
	r := NewRewriter(1<<10, identityRewrite)
	if out, err := r.Write([]byte("data: partial")); out != nil || err != nil {
		t.Fatalf("incomplete event went out: %q %v", out, err)
	}
	if out, err := r.Write([]byte(" still")); out != nil || err != nil {
		t.Fatalf("incomplete event went out: %q %v", out, err)
	}
	out, err := r.Write([]byte("\n\n"))
	if string(out) != "data: partial still\n\n" || err != nil {
		t.Fatalf("got %q %v", out, err)
	}

	chunk := []byte("data: a\n\n:\n\nid: 2\ndata: bb\ndata: c\n\ndata: held")
	out, err = r.Write(chunk)
	if want := "data: a\n\n:\n\nid: 2\ndata: bb\ndata: c\n\n"; string(out) != want || err != nil {
		t.Fatalf("got %q %v, want %q", out, err, want)
	}
	if &out[0] != &chunk[0] {
		t.Error("unchanged events were copied; want a slice of the chunk")
	}

	// Steady state: no allocation per Write, whether the chunk is whole
	// events, continues a held one, or has rewritten events (the rewrite
	// here allocates nothing itself).
	complete := []byte("\n\ndata: a\n\nid: 2\ndata: bb\ndata: c\n\n")
	if n := testing.AllocsPerRun(100, func() {
		if _, err := r.Write(complete); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("complete events: %v allocs per Write", n)
	}
	halves := [][]byte{[]byte("id: 9\ndata: {\"jsonrpc\":\"2.0\",\"me"), []byte("thod\":\"ping\"}\n\n: x\n\ndata: ab")}
	if n := testing.AllocsPerRun(100, func() {
		for _, h := range halves {
			if _, err := r.Write(h); err != nil {
				t.Fatal(err)
			}
		}
	}); n != 0 {
		t.Errorf("held events: %v allocs per two Writes", n)
	}
	replacement := []byte("new\ndata")
	rw := NewRewriter(1<<10, func([]byte) ([]byte, bool) { return replacement, false })
	if n := testing.AllocsPerRun(100, func() {
		for _, h := range halves {
			if _, err := rw.Write(h); err != nil {
				t.Fatal(err)
			}
		}
	}); n != 0 {
		t.Errorf("rewritten events: %v allocs per two Writes", n)
	}
}

func TestRewriterTooLarge(t *testing.T) {
	const limit = 16
	tests := []struct {
		name    string
		in      string
		wantErr bool
	}{
		{name: "incomplete event over the limit", in: "data: 0123456789abcdef", wantErr: true},
		{name: "complete event over the limit", in: "data: 0123456789\n\n", wantErr: true},
		{name: "event at the limit", in: "data: 012345678\n\n"},
		{name: "lines count with their endings", in: "data: 012345678\r\n\r\n", wantErr: true},
		{name: "many small events", in: strings.Repeat("data: abc\n\n", 50) + strings.Repeat(":\n\n", 50)},
		{name: "many empty lines", in: strings.Repeat("\n", 100)},
		{name: "held incomplete event at Close", in: "data: a\n\nid: 0123456789abcdef", wantErr: true},
	}
	for _, tt := range tests {
		for how, chunks := range chunkings(tt.in, 5) {
			got := runSSE(limit, identityRewrite, chunks)
			if tt.wantErr != errors.Is(got.err, ErrEventTooLarge) || (!tt.wantErr && got.out != tt.in) {
				t.Errorf("%s (%s): got %q, %v", tt.name, how, got.out, got.err)
				break
			}
		}
	}

	// The error is sticky, and the output of the failing call withheld.
	r := NewRewriter(limit, identityRewrite)
	if out, err := r.Write([]byte("data: ok\n\ndata: 0123456789abcdef")); out != nil || !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("got %q, %v", out, err)
	}
	if out, err := r.Write([]byte("\n\ndata: ok\n\n")); out != nil || !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("after the error: got %q, %v", out, err)
	}
	if out, err := r.Close(); out != nil || !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("Close after the error: got %q, %v", out, err)
	}
}

func TestRewriterClose(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		writes string // what the Writes returned, together
		closed string // what Close returned
		calls  []string
	}{
		{name: "nothing held", chunks: []string{"data: a\n\n"}, writes: "data: a\n\n", calls: []string{"a"}},
		{name: "rewritten", chunks: []string{"data: a\n\ndata: sec", "ret"}, writes: "data: a\n\n", closed: "data: SECRET\n", calls: []string{"a", "secret"}},
		{name: "unchanged passes as received", chunks: []string{"id: 5\ndata: x\r\ndata: y"}, closed: "id: 5\ndata: x\ndata: y\n", calls: []string{"x\ny"}},
		{name: "without data", chunks: []string{"id: 5\n: c"}, closed: "id: 5\n:\n"},
		{name: "plain passes as received", chunks: []string{"id: 5\ndata: x\ndata: y"}, closed: "id: 5\ndata: x\ndata: y", calls: []string{"x\ny"}},
		{name: "dropped", chunks: []string{"id: 5\ndata: DROP\n"}, calls: []string{"DROP"}},
		{name: "line ended by CR", chunks: []string{"data: secret\r"}, closed: "data: SECRET\n", calls: []string{"secret"}},
		{name: "other lines kept", chunks: []string{"data: secret\nid: 9"}, closed: "data: SECRET\nid: 9\n", calls: []string{"secret"}},
		{name: "partial BOM", chunks: []string{"\xEF", "\xBB"}},
		{name: "BOM", chunks: []string{"\xEF", "\xBB", "\xBF"}},
	}
	for _, tt := range tests {
		var calls []string
		r := NewRewriter(1<<10, func(data []byte) ([]byte, bool) {
			calls = append(calls, string(data))
			return markerRewrite(data)
		})
		var writes []byte
		for _, c := range tt.chunks {
			out, err := r.Write([]byte(c))
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			writes = append(writes, out...)
		}
		closed, err := r.Close()
		if string(writes) != tt.writes || string(closed) != tt.closed || err != nil || !slices.Equal(calls, tt.calls) {
			t.Errorf("%s: got %q then %q, %v, calls %q\nwant %q then %q, calls %q", tt.name, writes, closed, err, calls, tt.writes, tt.closed, tt.calls)
		}
	}
}

// sseEvent is an event as a WHATWG client dispatches it.
type sseEvent struct{ typ, data, lastID string }

// sseClient parses a whole stream the way the WHATWG rules tell a browser
// to, independently of the rewriter: the events dispatched, in order.
func sseClient(stream string) []sseEvent {
	s := strings.TrimPrefix(stream, utf8BOM)
	var evs []sseEvent
	var data, typ, idBuf string
	for {
		j := strings.IndexAny(s, "\r\n")
		if j < 0 {
			return evs // an unterminated line and event are discarded
		}
		line := s[:j]
		if s[j] == '\r' && j+1 < len(s) && s[j+1] == '\n' {
			j++
		}
		s = s[j+1:]
		switch {
		case line == "":
			lastID := idBuf
			if data != "" {
				t := typ
				if t == "" {
					t = "message"
				}
				evs = append(evs, sseEvent{t, strings.TrimSuffix(data, "\n"), lastID})
			}
			data, typ = "", ""
		case line[0] == ':':
		default:
			field, value, ok := strings.Cut(line, ":")
			if ok {
				value = strings.TrimPrefix(value, " ")
			}
			switch field {
			case "event":
				typ = value
			case "data":
				data += value + "\n"
			case "id":
				if !strings.Contains(value, "\x00") {
					idBuf = value
				}
			}
		}
	}
}

// growRewrite adds a line after every "x": rewritten events change shape.
func growRewrite(data []byte) ([]byte, bool) {
	return bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("secret"), []byte("SECRET")), []byte("x"), []byte("x\ny")), false
}

func dropRewrite(data []byte) ([]byte, bool) { return data, bytes.Contains(data, []byte("d")) }

func FuzzRewriter(f *testing.F) {
	f.Add([]byte(sseStream), uint(40), false)
	f.Add([]byte(utf8BOM+"data: x\r\n\r\nid: 1\rdata: secret\r\r"), uint(13), false)
	f.Add([]byte("data: a\n\ndata: d\r\n\r\n: c\n\ndata: x"), uint(19), true)
	f.Add([]byte("\xEF\xBBdata\ndata:\n\n\r\r\n"), uint(1), false)
	f.Add([]byte("ï»¿data: x\n\n: c\u2028data: y\n\nid: 1\u2029data: z\ndata: a\vb\u0085c\n\n"), uint(7), false)
	f.Add([]byte(utf8BOM+"ï»¿data: x\n\nevent: \x1cdata: y\nid\ndata\n\n"), uint(3), false)
	f.Add([]byte("id: 1\ndata: DROP\n\nid: 5\rdata: CR\r\rdata: EMPTY\n\ndata: INJECT\r\n\r\ndata: LINES\n\n"), uint(30), false)
	f.Fuzz(func(t *testing.T, in []byte, split uint, small bool) {
		maxEvent := 1 << 20
		if small {
			maxEvent = 24
		}
		k := int(split % uint(len(in)+1))
		ways := [][][]byte{{in[:k], in[k:]}}
		if len(in) <= 1024 {
			var bytewise [][]byte
			for i := range in {
				bytewise = append(bytewise, in[i:i+1])
			}
			ways = append(ways, bytewise)
		}
		rewrites := []struct {
			name string
			rw   func([]byte) ([]byte, bool)
		}{{"identity", identityRewrite}, {"marker", markerRewrite}, {"grow", growRewrite}, {"drop", dropRewrite}}
		for _, x := range rewrites {
			whole := runSSE(maxEvent, x.rw, [][]byte{in})
			for _, chunks := range ways {
				got := runSSE(maxEvent, x.rw, chunks)
				if got.out != whole.out || !slices.Equal(got.calls, whole.calls) || got.err != whole.err {
					t.Fatalf("%s, split at %d (%d chunks):\n got %q %q %v\nwant %q %q %v", x.name, k, len(chunks), got.out, got.calls, got.err, whole.out, whole.calls, whole.err)
				}
			}
			if whole.err != nil {
				if !errors.Is(whole.err, ErrEventTooLarge) || !small {
					t.Fatalf("%s: unexpected error %v", x.name, whole.err)
				}
				continue
			}
			// rewrite is called for the events a client dispatches (and
			// for an incomplete final one with data, at Close), with the
			// data the client sees.
			evs := sseClient(string(in))
			if len(whole.calls) < len(evs) || len(whole.calls) > len(evs)+1 {
				t.Fatalf("%s: %d calls for %d client events: %q", x.name, len(whole.calls), len(evs), whole.calls)
			}
			for i, e := range evs {
				if whole.calls[i] != e.data {
					t.Fatalf("%s: call %d with %q, the client sees %q", x.name, i, whole.calls[i], e.data)
				}
			}
			// What goes out has one reading: canonical, and every client
			// model reads the same events from it (sseclients_test.go).
			if why := notCanonical(whole.out); why != "" {
				t.Fatalf("%s: output not canonical (%s): %q", x.name, why, whole.out)
			}
			if why := ssereaders.Disagree(whole.out); why != "" {
				t.Fatalf("%s: %s\nin  %q\nout %q", x.name, why, in, whole.out)
			}
			switch x.name {
			case "identity":
				// The data a client sees is the data received, each line
				// break some client reads read as LF by all.
				want := eventData(evs, true)
				if got := eventData(sseClient(whole.out), false); !slices.Equal(got, want) {
					t.Fatalf("unchanged stream reads differently:\n got %q\nwant %q", got, want)
				}
			case "marker", "grow":
				// The client sees each event's data rewritten, minus the
				// dropped ones and those whose data was removed.
				var want []string
				for _, e := range evs {
					nd, drop := x.rw([]byte(e.data))
					if drop || len(nd) == 0 && e.data != "" {
						continue
					}
					want = append(want, breaksAsLF(string(nd)))
				}
				if got := eventData(sseClient(whole.out), false); !slices.Equal(got, want) {
					t.Fatalf("%s: the client sees\n%q\nwant\n%q", x.name, got, want)
				}
			}
		}
	})
}

// eventData is the data of each event, with breaksAsLF when asOutput.
func eventData(evs []sseEvent, asOutput bool) []string {
	var out []string
	for _, e := range evs {
		if asOutput {
			e.data = breaksAsLF(e.data)
		}
		out = append(out, e.data)
	}
	return out
}

// sseBenchStream is about 1 MB of ~1 KB JSON-RPC notification events, as a
// chatty tools/call stream carries them.
func sseBenchStream() []byte {
	text := strings.Repeat("lorem ipsum dolor sit amet ", 34)
	var b []byte
	for i := 0; len(b) < 1<<20; i++ {
		b = fmt.Appendf(b, "id: %d\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"logger\":\"tool\",\"data\":\"%d MARK %s\"}}\n\n", i, i, text)
	}
	return b
}

func BenchmarkRewriter(b *testing.B) {
	stream := sseBenchStream()
	// changed replaces a marker in every event; it reuses its buffer, so
	// the allocations reported are the rewriter's own.
	var buf []byte
	changed := func(data []byte) ([]byte, bool) {
		buf = append(buf[:0], data...)
		if i := bytes.Index(buf, []byte("MARK")); i >= 0 {
			copy(buf[i:], "XXXX")
		}
		return buf, false
	}
	for _, bc := range []struct {
		name  string
		chunk int
		rw    func([]byte) ([]byte, bool)
	}{
		{"unchanged/16KiB", 16 << 10, identityRewrite},
		{"unchanged/1MiB", len(stream), identityRewrite},
		{"changed/16KiB", 16 << 10, changed},
		{"changed/1MiB", len(stream), changed},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			r := NewRewriter(4<<20, bc.rw)
			for b.Loop() {
				n := 0
				for off := 0; off < len(stream); off += bc.chunk {
					out, err := r.Write(stream[off:min(off+bc.chunk, len(stream))])
					if err != nil {
						b.Fatal(err)
					}
					n += len(out)
				}
				if n != len(stream) {
					b.Fatalf("%d bytes out of %d", n, len(stream))
				}
			}
		})
	}
}

func ExampleRewriter() {
	r := NewRewriter(4<<20, func(data []byte) ([]byte, bool) {
		return bytes.ReplaceAll(data, []byte("alice@corp.com"), []byte("[REDACTED:EMAIL]")), false
	})
	for _, chunk := range []string{
		"id: 1\nretry: 1000\ndata: \n\nevent: message\ndata: {\"text\":\"mail alice@",
		"corp.com\"}\n\n: keep-alive\n\n",
	} {
		out, err := r.Write([]byte(chunk))
		fmt.Printf("%q %v\n", out, err)
	}
	// Output:
	// "id: 1\nretry: 1000\ndata: \n\n" <nil>
	// "event: message\ndata: {\"text\":\"mail [REDACTED:EMAIL]\"}\n\n:\n\n" <nil>
}

// JudgeFields drops the id and event lines its check refuses, in events
// passed as they are and in rewritten ones alike; retry, comments and
// data are not its to judge.
func TestRewriterJudgeFields(t *testing.T) {
	in := "id: 1\nevent: message\nretry: 5\ndata: a\n\nid: bad\nevent: bad\ndata: secret\n\n: c\n\n"
	want := "id: 1\nevent: message\nretry: 5\ndata: a\n\ndata: SECRET\n\n:\n\n"
	for how, chunks := range chunkings(in, 5) {
		r := NewRewriter(1<<10, markerRewrite)
		var seen []string
		r.JudgeFields(judgeFunc(func(name, value []byte) bool {
			seen = append(seen, string(name)+"="+string(value))
			return string(value) != "bad"
		}))
		var out []byte
		for _, c := range chunks {
			b, err := r.Write(c)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b...)
		}
		if string(out) != want {
			t.Fatalf("%s: got %q, want %q", how, out, want)
		}
		if !slices.Contains(seen, "id=1") || !slices.Contains(seen, "event=bad") || slices.ContainsFunc(seen, func(s string) bool { return strings.HasPrefix(s, "retry") }) {
			t.Fatalf("%s: judged %q", how, seen)
		}
	}
}

type judgeFunc func(name, value []byte) bool

func (f judgeFunc) JudgeField(name, value []byte) bool { return f(name, value) }
