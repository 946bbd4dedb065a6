package wasmhost

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/wasmtest"
)

// A message that ends in trailers, as Envoy delivers it: the body
// callbacks see end_of_stream false, the trailers callback comes after the
// last one and ends the message; in it the plugin can read and replace a
// body it held (paused) but not one it passed on (Envoy's stand-in buffer
// refuses writes with BAD_ARGUMENT); what goes on is the body, then the
// trailers, which carry end of stream.
func TestTrailersEndTheMessage(t *testing.T) {
	h, _ := testHost(t, Options{})
	// The SDK reads an empty buffer as NOT_FOUND.
	const noBody, refused = "error status returned by host: not found", "error status returned by host: bad argument"
	tests := []struct {
		name       string
		resp       bool
		directives string
		// The body callbacks' results; what the trailers callback read and
		// what replacing gave; the body that goes on.
		statuses  []FilterStatus
		read, set string
		body      string
	}{
		{"request, body held", false, "body-buffer,trailers-body",
			[]FilterStatus{StopIterationAndBuffer, StopIterationAndBuffer}, `"abcd" <nil>`, "<nil>", "<abcd>"},
		{"request, body passed on", false, "trailers-body",
			[]FilterStatus{Continue, Continue}, `"" ` + noBody, refused, "abcd"},
		{"response, body held", true, "resp-body-buffer,resp-trailers-body",
			[]FilterStatus{StopIterationAndBuffer, StopIterationAndBuffer}, `"abcd" <nil>`, "<nil>", "{abcd}"},
		{"response, body passed on", true, "resp-trailers-body",
			[]FilterStatus{Continue, Continue}, `"" ` + noBody, refused, "abcd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := h.NewStream()
			defer s.Close()
			body, trailers := s.RequestBody, s.RequestTrailers
			dataEv, trailersEv := EventUpstreamData, EventUpstreamTrailers
			if tt.resp {
				expectStatus(t, "request", s.RequestHeaders(req("GET", "/", tt.directives), true), Continue)
				expectStatus(t, "response headers", s.ResponseHeaders(H(":status", "200"), false), Continue)
				body, trailers = s.ResponseBody, s.ResponseTrailers
				dataEv, trailersEv = EventDownstreamData, EventDownstreamTrailers
			} else {
				expectStatus(t, "request headers", s.RequestHeaders(req("POST", "/", tt.directives), false), Continue)
			}
			s.Events()
			for i, c := range []string{"ab", "cd"} {
				expectStatus(t, "body "+c, body([]byte(c), false), tt.statuses[i])
			}
			expectStatus(t, "trailers", trailers(H("x-t", "1")), Continue)
			m := s.Upstream()
			if tt.resp {
				m = s.Downstream()
			}
			if string(m.Body) != tt.body || !m.EndOfStream {
				t.Fatalf("body %q (end of stream %v), want %q", m.Body, m.EndOfStream, tt.body)
			}
			want := H("x-t", "1", "x-body-read", tt.read, "x-body-set", tt.set, "x-body-eos", "false false")
			if !reflect.DeepEqual(m.Trailers, want) {
				t.Fatalf("trailers %v, want %v", m.Trailers, want)
			}
			// Data never ends the stream; the trailers do, last.
			evs := s.Events()
			for i, ev := range evs {
				last := i == len(evs)-1
				if last && (ev.Type != trailersEv || !ev.EndOfStream) || !last && (ev.Type != dataEv || ev.EndOfStream) {
					t.Fatalf("events %v: event %d is %s (end of stream %v)", types(evs), i, ev.Type, ev.EndOfStream)
				}
			}
		})
	}
}

// The trailer maps can be replaced whole (the plugin removes them), and a
// local reply from the request trailers callback answers the stream and
// abandons the upstream request.
func TestTrailersClearedAndReply(t *testing.T) {
	h, _ := testHost(t, Options{})
	s := h.NewStream()
	s.RequestHeaders(req("POST", "/", "body-buffer,trailers-clear"), false)
	s.RequestBody([]byte("x"), false)
	expectStatus(t, "trailers", s.RequestTrailers(H("x-t", "1", "x-u", "2")), Continue)
	if up := s.Upstream(); string(up.Body) != "x" || len(up.Trailers) != 0 || !up.EndOfStream {
		t.Fatalf("upstream %+v, want the body and no trailers", up)
	}
	s.ResponseHeaders(H(":status", "200"), false)
	s.ResponseBody([]byte("y"), false)
	s.ResponseTrailers(H("x-r", "1"))
	if down := s.Downstream(); string(down.Body) != "y" || len(down.Trailers) != 1 {
		t.Fatalf("downstream %+v: the response trailers are the plugin's to remove", down)
	}

	r := h.NewStream()
	r.RequestHeaders(req("POST", "/", "body-buffer,trailers-reply"), false)
	r.RequestBody([]byte("x"), false)
	expectStatus(t, "trailers", r.RequestTrailers(H("x-t", "1")), StopIteration)
	down, up := r.Downstream(), r.Upstream()
	if down.Status() != 403 || string(down.Body) != "refused at trailers" || !down.EndOfStream {
		t.Fatalf("downstream %+v", down)
	}
	if len(up.Body) != 0 || len(up.Trailers) != 0 || !up.Reset {
		t.Fatalf("upstream %+v: the body went on, or the request was not abandoned", up)
	}
}

// The real plugin judges and transforms a message that ends in trailers,
// and removes the trailers on its paths.
func TestPluginMessagesEndingInTrailers(t *testing.T) {
	const principal = "x-mcp-principal"
	denied := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_user","arguments":{"id":"marker-denied"}}}`
	allowed := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lookup","arguments":{}}}`
	result := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"mail alice@example.com"}]}}`
	for _, hold := range []bool{false, true} {
		config := `{"policy": {"name": "trailers", "extends": "standard", "hide_denied": false,
			"allow_tools": ["lookup"], "deny_tools": ["delete_*"]},
			"identity": {"principal": [{"header": "x-mcp-principal"}]},
			"gateway": {"hold_headers": ` + map[bool]string{false: "false", true: "true"}[hold] + `}}`
		h, sink := testHost(t, Options{Wasm: wasmtest.Plugin(t), PluginConfig: []byte(config), AllowOnHeadersStopIteration: hold})
		name := map[bool]string{false: "headers-on", true: "hold-headers"}[hold]
		post := func(t *testing.T, body string) *Stream {
			s := h.NewStream()
			t.Cleanup(s.Close)
			s.RequestHeaders(req("POST", "/mcp", "", principal, "alice", "content-type", "application/json",
				"accept", "application/json, text/event-stream"), false)
			half := len(body) / 2
			s.RequestBody([]byte(body[:half]), false)
			s.RequestBody([]byte(body[half:]), false)
			s.RequestTrailers(H("x-checksum", "abc"))
			return s
		}
		t.Run(name+"/denied request", func(t *testing.T) {
			s := post(t, denied)
			up, down := s.Upstream(), s.Downstream()
			if strings.Contains(string(up.Body), "marker-denied") || len(up.Trailers) != 0 {
				t.Fatalf("the denied call went upstream: %s trailers %v", up.Body, up.Trailers)
			}
			if down.Status() != 200 || !strings.Contains(string(down.Body), `"code":-32003`) {
				t.Fatalf("downstream %d %s, want the denial\n%v", down.Status(), down.Body, sink.all())
			}
		})
		t.Run(name+"/allowed request", func(t *testing.T) {
			s := post(t, allowed)
			up := s.Upstream()
			if string(up.Body) != allowed || !up.EndOfStream || len(up.Trailers) != 0 {
				t.Fatalf("upstream %s (end of stream %v) trailers %v, want the call and its trailers removed", up.Body, up.EndOfStream, up.Trailers)
			}
		})
		t.Run(name+"/json answer", func(t *testing.T) {
			s := post(t, allowed)
			s.ResponseHeaders(H(":status", "200", "content-type", "application/json"), false)
			s.ResponseBody([]byte(result[:40]), false)
			s.ResponseBody([]byte(result[40:]), false)
			s.ResponseTrailers(H("x-debug", "alice@example.com"))
			down := s.Downstream()
			if !down.EndOfStream || strings.Contains(string(down.Body), "alice@example.com") ||
				!strings.Contains(string(down.Body), `"text":"mail EMAIL_`) || len(down.Trailers) != 0 {
				t.Fatalf("downstream %s (end of stream %v) trailers %v, want the answer transformed, no trailers", down.Body, down.EndOfStream, down.Trailers)
			}
		})
		t.Run(name+"/event stream", func(t *testing.T) {
			s := post(t, allowed)
			s.ResponseHeaders(H(":status", "200", "content-type", "text/event-stream"), false)
			s.ResponseBody([]byte("event: message\ndata: "+result+"\n\n"), false)
			// An event the server never ended: it does not go out.
			s.ResponseBody([]byte(`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"carol@example.com"}}`), false)
			s.ResponseTrailers(H("x-t", "1"))
			down := s.Downstream()
			if down.Reset || !down.EndOfStream || strings.Contains(string(down.Body), "@example.com") ||
				strings.Contains(string(down.Body), "notifications/message") || !strings.Contains(string(down.Body), `"text":"mail EMAIL_`) {
				t.Fatalf("downstream %s (end of stream %v, reset %v)", down.Body, down.EndOfStream, down.Reset)
			}
		})
	}
}

// A panic in a trailers callback fails that stream closed, as in any other
// callback: the held request never goes upstream and gets -32603; a
// response whose headers went out is reset. The VM serves on.
func TestPluginTrailersPanicFailsClosed(t *testing.T) {
	config := `{"policy": "standard", "identity": {"principal": [{"header": "x-mcp-principal"}]}}`
	h, _ := testHost(t, Options{Wasm: wasmtest.PluginWithTestHooks(t), PluginConfig: []byte(config)})
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{"q":"marker"}}}`
	result := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"alice@example.com"}]}}`
	for _, stage := range []string{"request_trailers", "response_trailers", ""} {
		name := "panic in " + stage
		if stage == "" {
			name = "no panic"
		}
		t.Run(name, func(t *testing.T) {
			s := h.NewStream()
			defer s.Close()
			s.RequestHeaders(req("POST", "/mcp", "", "x-mcp-principal", "alice", "content-type", "application/json",
				"x-mcp-privacy-test-panic", stage), false)
			s.RequestBody([]byte(call), false)
			s.RequestTrailers(H("x-t", "1"))
			up := s.Upstream()
			if stage == "request_trailers" {
				down := s.Downstream()
				if len(up.Body) != 0 || down.Status() != 500 || !strings.Contains(string(down.Body), `"code":-32603`) {
					t.Fatalf("upstream %q, downstream %d %s: want nothing upstream and -32603", up.Body, down.Status(), down.Body)
				}
				return
			}
			if string(up.Body) != call {
				t.Fatalf("upstream %q", up.Body)
			}
			s.ResponseHeaders(H(":status", "200", "content-type", "application/json"), false)
			s.ResponseBody([]byte(result), false)
			s.ResponseTrailers(H("x-t", "1"))
			down := s.Downstream()
			if strings.Contains(string(down.Body), "alice@example.com") {
				t.Fatalf("raw answer went out: %s", down.Body)
			}
			if stage == "response_trailers" && !down.Reset || stage == "" && (down.Reset || !strings.Contains(string(down.Body), "EMAIL_")) {
				t.Fatalf("downstream %s (reset %v)", down.Body, down.Reset)
			}
		})
	}
}
