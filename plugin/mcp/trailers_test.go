package mcp

import (
	"strings"
	"testing"
)

// bodyEndingInTrailers runs a POST whose body ends in trailers the way a
// host delivers it: every body callback with endOfStream false (each must
// buffer: a Continue would release the body unjudged), then the trailers
// callback with the size of the last body callback.
func bodyEndingInTrailers(t *testing.T, cfg *Config, req fakeRequest, path string, chunks ...string) (*Stream, BodyResult) {
	t.Helper()
	s := NewStream(cfg)
	if h := s.OnRequestHeaders(req, "POST", path, false); h.Reply != nil {
		t.Fatalf("headers answered locally: %d %s", h.Reply.Status, h.Reply.Body)
	}
	body := ""
	for _, c := range chunks {
		body += c
		r := s.OnRequestBody(len(body), false, func() []byte { return []byte(body) })
		if r.Reply != nil {
			return s, r
		}
		if s.inspect && r.Action != Pause {
			t.Fatalf("body chunk %q released before the end of the message", c)
		}
	}
	return s, s.OnRequestTrailers(len(body), func() []byte { return []byte(body) })
}

// A request body that ends in trailers is judged when the trailers arrive,
// exactly as one whose last body chunk ends the stream.
func TestRequestEndingInTrailersIsJudged(t *testing.T) {
	// Visible denials are answered by the filter itself (a hidden one goes
	// upstream as a stand-in, hidden_test.go).
	cfg := mustConfig(t, strings.Replace(testEnvelope, "hide_denied: true", "hide_denied: false", 1))
	alice := hdr("x-mcp-principal", "alice")
	denied := call("1", "tools/call", `{"name":"delete_user","arguments":{"id":"u-1"}}`)
	allowed := call("2", "tools/call", `{"name":"search","arguments":{}}`)
	tests := []struct {
		name   string
		path   string
		chunks []string
		// status of the local reply (0: none) and what its body holds;
		// forwarded: the body that goes upstream ("" = as received).
		status    int
		reply     string
		forwarded string
	}{
		{name: "denied call, one chunk", path: "/mcp", chunks: []string{denied},
			status: 200, reply: `"code":-32003`},
		{name: "denied call, split", path: "/mcp", chunks: []string{denied[:17], denied[17:40], denied[40:]},
			status: 200, reply: `"code":-32003`},
		{name: "denied element of a batch", path: "/mcp", chunks: []string{"[" + allowed + ",", denied + "]"},
			forwarded: "[" + allowed + "]"},
		{name: "allowed call", path: "/mcp", chunks: []string{allowed}},
		{name: "not JSON", path: "/mcp", chunks: []string{`{"jsonrpc":`}, status: 200, reply: `"code":-32700`},
		{name: "no body before the trailers", path: "/mcp", chunks: nil, status: 400, reply: "empty body"},
		{name: "path not inspected", path: "/other", chunks: []string{denied}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, r := bodyEndingInTrailers(t, cfg, alice, tt.path, tt.chunks...)
			if tt.status == 0 {
				if r.Reply != nil {
					t.Fatalf("answered locally: %d %s", r.Reply.Status, r.Reply.Body)
				}
				if r.Action != Continue {
					t.Fatal("the body is held after its end")
				}
				if string(r.Body) != tt.forwarded {
					t.Fatalf("forwarded %q, want %q", r.Body, tt.forwarded)
				}
			} else if r.Reply == nil || r.Reply.Status != tt.status || !strings.Contains(string(r.Reply.Body), tt.reply) {
				t.Fatalf("reply %+v, want %d with %s", r.Reply, tt.status, tt.reply)
			}
			if got, want := s.StripTrailers(), tt.path == "/mcp"; got != want {
				t.Errorf("StripTrailers %v, want %v (removed on inspected paths only)", got, want)
			}
		})
	}
}

// hostResponse plays a response through a stream as a host does and
// collects what goes to the client. Body callbacks see the whole buffer
// after a Pause, else the new chunk; trailers, when set, end the message
// (the last body callback had endOfStream false), and the host can then
// change only a body still buffered.
func hostResponse(t *testing.T, s *Stream, contentType string, trailers bool, chunks ...string) string {
	t.Helper()
	if h := s.OnResponseHeaders(200, contentType, "", false); h.Reply != nil {
		t.Fatalf("response headers answered locally: %s", h.Reply.Body)
	}
	var out, held []byte
	buffering := false
	for i, c := range chunks {
		eos := !trailers && i == len(chunks)-1
		held = append(held, c...)
		view := held
		a, edit := s.OnResponseBody(len(view), eos, func() []byte { return view })
		if edit.Replace {
			view = edit.Data
		}
		buffering = a == Pause
		if !buffering {
			out, held = append(out, view...), nil
		} else {
			held = view
		}
	}
	if !trailers {
		return string(out)
	}
	view := held
	a, edit := s.OnResponseTrailers(len(view), func() []byte { return view })
	if edit.Replace {
		if !buffering {
			t.Fatal("the body was replaced at trailers time with nothing buffered: the host refuses that and resets the stream")
		}
		view = edit.Data
	}
	if a != Continue {
		t.Fatal("response held at its end")
	}
	return string(append(out, view...))
}

// A response whose body ends in trailers is processed as one whose last
// body chunk ends the stream: a buffered JSON answer when the trailers
// arrive, an event stream event by event with nothing unfiltered left at
// the end.
func TestResponseEndingInTrailersIsProcessed(t *testing.T) {
	cfg := mustConfig(t, transformEnvelope)
	alice := hdr("x-mcp-principal", "alice")
	request := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"lookup","arguments":{}}}`
	result := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"mail alice@example.com"}]}}`
	event := "event: message\ndata: " + result + "\n\n"
	tests := []struct {
		name        string
		contentType string
		chunks      []string
		// want holds, absent must not be in what the client gets.
		want, absent []string
	}{
		{name: "json", contentType: "application/json", chunks: []string{result},
			want: []string{`"text":"mail EMAIL_`}, absent: []string{"alice@example.com"}},
		{name: "json split", contentType: "application/json", chunks: []string{result[:30], result[30:70], result[70:]},
			want: []string{`"text":"mail EMAIL_`}, absent: []string{"alice@example.com"}},
		{name: "json not parseable", contentType: "application/json", chunks: []string{result[:60]},
			want: []string{`"id":7,"error":{"code":-32603`}, absent: []string{"alice@example.com"}},
		{name: "event stream", contentType: "text/event-stream", chunks: []string{event[:40], event[40:]},
			want: []string{"data: {", `"text":"mail EMAIL_`}, absent: []string{"alice@example.com"}},
		// The last event lacks its closing empty line: it never goes out.
		{name: "event stream, incomplete last event", contentType: "text/event-stream",
			chunks: []string{event, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"carol@example.com\"}}"},
			want:   []string{`"text":"mail EMAIL_`}, absent: []string{"alice@example.com", "carol", "notifications/message"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, r := post(t, cfg, alice, request)
			if r.Reply != nil {
				t.Fatalf("answered locally: %s", r.Reply.Body)
			}
			got := hostResponse(t, s, tt.contentType, true, tt.chunks...)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("client got %q, want it to hold %q", got, w)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(got, a) {
					t.Errorf("client got %q, holding %q", got, a)
				}
			}
		})
	}
}

// A batch's denied elements are answered after the server's answer to the
// last request it got, not only at the end of the stream: an event stream
// that ends in trailers can have nothing added at its end. A JSON batch
// answer is still buffered then, and gets them merged in.
func TestBatchAnswersWithTrailers(t *testing.T) {
	cfg := mustConfig(t, strings.Replace(testEnvelope, "hide_denied: true", "hide_denied: false", 1))
	alice := hdr("x-mcp-principal", "alice")
	body := `[` + call("1", "tools/call", `{"name":"search"}`) + `,` + call("2", "tools/call", `{"name":"delete_user"}`) + `]`
	// The filter's own answer to the denied element, as it answers it alone.
	_, alone := post(t, cfg, alice, call("2", "tools/call", `{"name":"delete_user"}`))
	if alone.Reply == nil || !strings.Contains(string(alone.Reply.Body), `"code":-32003`) {
		t.Fatalf("the denied call alone: %+v", alone)
	}
	denial := string(alone.Reply.Body)
	answer := `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`
	tests := []struct {
		name, contentType string
		chunks            []string
		want              string
	}{
		{"json", "application/json", []string{"[" + answer + "]"}, "[" + answer + "," + denial + "]"},
		{"event stream", "text/event-stream", []string{": keep-alive\n\n", "data: " + answer + "\n\n", ": bye\n\n"},
			":\n\ndata: " + answer + "\n\nevent: message\ndata: " + denial + "\n\n:\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, r := post(t, cfg, alice, body)
			if r.Reply != nil {
				t.Fatalf("answered locally: %s", r.Reply.Body)
			}
			if got := hostResponse(t, s, tt.contentType, true, tt.chunks...); got != tt.want {
				t.Errorf("client got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
