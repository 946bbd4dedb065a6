package mcp

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// holdEnvelope redacts emails in results, denies delete_*.
const holdEnvelope = `
policy:
  name: hold
  deny_tools: ["delete_*"]
  hide_denied: false
  transforms: [redact]
identity:
  principal: [{header: x-mcp-principal}]
gateway:
  max_request_bytes: 65536
  max_response_bytes: 65536
  max_event_bytes: 16384
`

// hostHolds is the oracle: a host that keeps a paused body (Envoy). Each
// callback sees everything held so far; what it continues goes out, as
// the plugin left it.
type hostHolds struct{ held []byte }

func (h *hostHolds) response(s *Stream, chunk []byte, eos bool) []byte {
	h.held = append(h.held, chunk...)
	act, edit := s.OnResponseBody(len(h.held), eos, func() []byte { return h.held })
	if act == Pause {
		return nil
	}
	out := h.held
	if edit.Replace {
		out = edit.Data
	}
	h.held = nil
	return out
}

// hostPasses is a host that does not hold bodies (ngx_wasm_module): each
// callback sees its chunk only, replacing it replaces that chunk, and,
// with withLength, end of stream is never signalled; the plugin holds the
// body with BodyHold.
type hostPasses struct {
	hold       *BodyHold
	withLength bool
}

func (h *hostPasses) response(s *Stream, chunk []byte, eos bool) []byte {
	if h.hold.Ended() {
		return nil
	}
	view, end := h.hold.Add(chunk, eos && !h.withLength)
	act, edit := s.OnResponseBody(len(view), end, func() []byte { return view })
	out, replace := h.hold.Settle(view, act == Pause, edit.Data, edit.Replace)
	if !replace {
		return chunk
	}
	return out
}

// exchangeVia runs a tools/call and its response, cut into chunks of
// size, through a stream and a host; it returns what the client gets.
func exchangeVia(t testing.TB, cfg *Config, contentType, body string, size int, host func(*Stream, []byte, bool) []byte, expect func(string)) string {
	t.Helper()
	s := NewStream(cfg)
	s.OnRequestHeaders(hdr("x-mcp-principal", "alice"), "POST", "/mcp", false)
	req := call("7", "tools/call", `{"name":"lookup","arguments":{}}`)
	if r := s.OnRequestBody(len(req), true, func() []byte { return []byte(req) }); r.Reply != nil {
		t.Fatalf("request answered: %s", r.Reply.Body)
	}
	s.OnResponseHeaders(200, contentType, "", false)
	if expect != nil {
		expect(strconv.Itoa(len(body)))
	}
	var out []byte
	for i := 0; i < len(body) || i == 0; i += size {
		end := min(i+size, len(body))
		out = append(out, host(s, []byte(body[i:end]), end == len(body))...)
	}
	return string(out)
}

func heldResult(text string) string {
	return `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":` + strconv.Quote(text) + `}]}}`
}

// Where the host does not hold bodies, the plugin's own holding makes the
// client get exactly what a holding host gives it: a JSON result judged
// whole (an email in its last chunk redacted), an event stream filtered
// event by event, a too-large body failed closed with the manual's
// answer, never a truncated one.
func TestBodyHoldMatchesHostHolding(t *testing.T) {
	cfg := mustConfig(t, holdEnvelope)
	big := strings.Repeat("lorem ipsum ", 4000) + " write to carol@example.com"
	tests := []struct {
		name, contentType, body string
		chunk                   int
		leak                    string // must not reach the client
	}{
		{name: "json, email in the last chunk", contentType: "application/json", body: heldResult(big), chunk: 4096, leak: "carol@example.com"},
		{name: "json, one chunk", contentType: "application/json", body: heldResult("bob@example.com"), chunk: 1 << 20, leak: "bob@example.com"},
		{name: "json over max_response_bytes", contentType: "application/json", body: heldResult(strings.Repeat("x@example.com ", 6000)), chunk: 4096, leak: "x@example.com"},
		{name: "event stream in 4 KiB chunks", contentType: "text/event-stream",
			body: "event: message\ndata: " + heldResult(big[:9000]+" dave@example.com") + "\n\n", chunk: 4096, leak: "dave@example.com"},
		{name: "text body", contentType: "text/plain", body: "error for erin@example.com", chunk: 5, leak: "erin@example.com"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oracle := &hostHolds{}
			want := exchangeVia(t, cfg, tc.contentType, tc.body, tc.chunk, oracle.response, nil)
			for _, withLength := range []bool{false, true} {
				h := &hostPasses{hold: NewBodyHold(), withLength: withLength}
				expect := func(string) {}
				if withLength {
					expect = h.hold.Expect
				}
				got := exchangeVia(t, cfg, tc.contentType, tc.body, tc.chunk, h.response, expect)
				if got != want {
					t.Errorf("content-length %v: client got\n%.300s\nwant (host holding)\n%.300s", withLength, got, want)
				}
				if strings.Contains(got, tc.leak) {
					t.Errorf("content-length %v: %s reached the client", withLength, tc.leak)
				}
			}
		})
	}
}

// A request body the plugin holds reaches the server only once judged:
// every chunk before the end is emptied, and the judged body replaces the
// last one; one over max_request_bytes is answered 413 before any byte
// went on.
func TestBodyHoldRequest(t *testing.T) {
	cfg := mustConfig(t, holdEnvelope)
	allowed := call("1", "tools/call", `{"name":"lookup","arguments":{"q":"`+strings.Repeat("a", 10000)+`"}}`)
	denied := call("2", "tools/call", `{"name":"delete_user","arguments":{}}`)
	huge := call("3", "tools/call", `{"name":"lookup","arguments":{"q":"`+strings.Repeat("a", 70000)+`"}}`)
	for _, tc := range []struct {
		name, body string
		status     int // of the local reply, 0: forwarded
	}{
		{name: "allowed", body: allowed},
		{name: "denied", body: denied, status: 200},
		{name: "too large", body: huge, status: 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStream(cfg)
			s.OnRequestHeaders(hdr("x-mcp-principal", "alice"), "POST", "/mcp", false)
			h := NewBodyHold()
			var upstream []byte
			var reply *LocalReply
			for i := 0; i < len(tc.body) && reply == nil; i += 4096 {
				end := min(i+4096, len(tc.body))
				chunk := []byte(tc.body[i:end])
				view, eos := h.Add(chunk, end == len(tc.body))
				res := s.OnRequestBody(len(view), eos, func() []byte { return view })
				if res.Reply != nil {
					reply = res.Reply
					break
				}
				out, replace := h.Settle(view, res.Action == Pause, res.Body, res.Body != nil)
				if !replace {
					out = chunk
				}
				if !eos && len(out) > 0 {
					t.Fatalf("%d bytes released before the end of the body", len(out))
				}
				upstream = append(upstream, out...)
			}
			switch {
			case tc.status == 0 && (reply != nil || string(upstream) != tc.body):
				t.Fatalf("upstream got %.200q (reply %v), want the body", upstream, reply)
			case tc.status != 0 && (reply == nil || reply.Status != tc.status || len(upstream) > 0):
				t.Fatalf("reply %v, upstream %d bytes; want %d and nothing upstream", reply, len(upstream), tc.status)
			}
		})
	}
}

// Counting against the content-length ends the body when the host never
// says so; an unreadable length leaves the end to the host.
func TestBodyHoldExpect(t *testing.T) {
	for _, tc := range []struct {
		cl     string
		chunks []string
		ends   []bool
	}{
		{cl: "6", chunks: []string{"abc", "def"}, ends: []bool{false, true}},
		{cl: "0", chunks: []string{""}, ends: []bool{true}},
		{cl: "", chunks: []string{"abc", "def"}, ends: []bool{false, false}},
		{cl: "x", chunks: []string{"abc"}, ends: []bool{false}},
		{cl: " 3 ", chunks: []string{"abc"}, ends: []bool{true}},
	} {
		h := NewBodyHold()
		h.Expect(tc.cl)
		for i, c := range tc.chunks {
			if _, end := h.Add([]byte(c), false); end != tc.ends[i] {
				t.Errorf("content-length %q, chunk %d: end %v, want %v", tc.cl, i, end, tc.ends[i])
			}
		}
	}
}

// FuzzBodyHold: however a response is cut into chunks, and whether or not
// the host signals its end, a client behind a host that does not hold
// bodies gets what a holding host gives it (the oracle).
func FuzzBodyHold(f *testing.F) {
	f.Add([]byte(heldResult("mail alice@example.com now")), uint16(7), false, false)
	f.Add([]byte("event: message\ndata: "+heldResult("bob@example.com")+"\n\n"), uint16(3), true, true)
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"result":`), uint16(1), false, true)
	cfg, errs := NewConfig([]byte(holdEnvelope), nil)
	if len(errs) > 0 {
		f.Fatal(errs)
	}
	f.Fuzz(func(t *testing.T, body []byte, size uint16, sse, withLength bool) {
		if size == 0 || len(body) > 1<<16 {
			return
		}
		ct := "application/json"
		if sse {
			ct = "text/event-stream"
		}
		// The stream's state (pseudonyms, ...) is per configuration: both
		// runs see a fresh configuration so that one cannot feed the other.
		want := exchangeVia(t, cfg, ct, string(body), int(size), (&hostHolds{}).response, nil)
		h := &hostPasses{hold: NewBodyHold(), withLength: withLength}
		expect := func(string) {}
		if withLength {
			expect = h.hold.Expect
		}
		got := exchangeVia(t, cfg, ct, string(body), int(size), h.response, expect)
		if !bytes.Equal([]byte(got), []byte(want)) {
			t.Fatalf("plugin holding gave\n%q\nhost holding\n%q", got, want)
		}
	})
}
