package wasmhost

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestStreamPassThroughAndHeaderMutation(t *testing.T) {
	h, sink := testHost(t, Options{Workers: 2})
	s := h.NewStream()
	in := req("POST", "/orig", "hdr-mutate,remove-content-length", "x-remove", "r", "x-replace", "old", "content-length", "5")
	expectStatus(t, "request headers", s.RequestHeaders(in, false), Continue)
	up := s.Upstream()
	if !up.HeadersSent || up.EndOfStream {
		t.Fatalf("upstream headers: %+v", up)
	}
	if up.Headers.Value(":path") != "/rewritten?q=1" || up.Headers.Value("x-added") != "1" ||
		up.Headers.Value("x-replace") != "new" {
		t.Fatalf("mutations missing: %v", up.Headers)
	}
	for _, gone := range []string{"x-remove", "content-length"} {
		if _, ok := up.Headers.Get(gone); ok {
			t.Fatalf("%s not removed: %v", gone, up.Headers)
		}
	}
	expectStatus(t, "body 1", s.RequestBody([]byte("hel"), false), Continue)
	expectStatus(t, "body 2", s.RequestBody([]byte("lo"), true), Continue)
	if up := s.Upstream(); string(up.Body) != "hello" || !up.EndOfStream {
		t.Fatalf("upstream body %q eos %v", up.Body, up.EndOfStream)
	}
	expectStatus(t, "response headers", s.ResponseHeaders(H(":status", "200", "x-upstream", "u"), false), Continue)
	expectStatus(t, "response body", s.ResponseBody([]byte("ok"), true), Continue)
	down := s.Downstream()
	if down.Status() != 200 || string(down.Body) != "ok" || !down.EndOfStream ||
		down.Headers.Value("x-plugin-saw-response") != "1" || down.Headers.Value("x-request-body-sizes") != "3 2" {
		t.Fatalf("downstream: %+v", down)
	}
	evs := s.Events()
	want := []EventType{EventUpstreamHeaders, EventUpstreamData, EventUpstreamData, EventDownstreamHeaders, EventDownstreamData}
	if !reflect.DeepEqual(types(evs), want) {
		t.Fatalf("events %v, want %v", types(evs), want)
	}
	s.Close()
	// proxy_on_log can read the request headers as they went upstream.
	if !sink.contains(`path="/rewritten?q=1"`) || !sink.contains(`status="200"`) {
		t.Fatalf("on_log did not see the headers: %v", sink.all())
	}
}

func TestHeaderMapsUnavailableAfterRelease(t *testing.T) {
	h, _ := testHost(t, Options{})
	s := h.NewStream()
	s.RequestHeaders(req("GET", "/x", "read-req-in-resp"), true)
	s.ResponseHeaders(H(":status", "204"), true)
	// Envoy drops its pointer to the request headers once they moved on.
	if got := s.Downstream().Headers.Value("x-req-path"); !strings.Contains(got, `"" `) || !strings.Contains(got, "bad argument") {
		t.Fatalf("reading request headers in the response phase gave %q", got)
	}
}

// Envoy's default: PAUSE on request headers is StopAllIterationAndWatermark.
func TestPauseOnHeadersStopsAll(t *testing.T) {
	h, _ := testHost(t, Options{})
	s := h.NewStream()
	expectStatus(t, "headers", s.RequestHeaders(req("POST", "/", "hdr-pause,body-buffer"), false), StopAllIterationAndWatermark)
	if !s.RequestStalled() {
		t.Fatal("request not stalled")
	}
	expectStatus(t, "body", s.RequestBody([]byte("abc"), false), Skipped)
	expectStatus(t, "body", s.RequestBody([]byte("def"), true), Skipped)
	if up := s.Upstream(); up.HeadersSent || len(up.Body) > 0 {
		t.Fatalf("something went upstream: %+v", up)
	}
	if !s.RequestStalled() {
		t.Fatal("request not stalled after the body")
	}

	// A bodiless request paused on headers stalls too.
	g := h.NewStream()
	expectStatus(t, "GET headers", g.RequestHeaders(req("GET", "/", "hdr-pause"), true), StopAllIterationAndWatermark)
	if !g.RequestStalled() || g.Upstream().HeadersSent {
		t.Fatal("bodiless paused request not stalled")
	}
}

// With allow_on_headers_stop_iteration, body callbacks arrive while the
// headers are held, and the last body CONTINUE releases both.
func TestAllowOnHeadersStopIteration(t *testing.T) {
	h, _ := testHost(t, Options{AllowOnHeadersStopIteration: true})
	s := h.NewStream()
	expectStatus(t, "headers", s.RequestHeaders(req("POST", "/", "hdr-pause,body-buffer,body-hdr-mutate"), false), StopIteration)
	if s.RequestStalled() {
		t.Fatal("StopIteration with a body to come is not a stall")
	}
	expectStatus(t, "body 1", s.RequestBody([]byte("abc"), false), StopIterationAndBuffer)
	if s.Upstream().HeadersSent {
		t.Fatal("headers released before the body continued")
	}
	expectStatus(t, "body 2", s.RequestBody([]byte("def"), true), Continue)
	up := s.Upstream()
	if !up.HeadersSent || string(up.Body) != "ABCDEF" || !up.EndOfStream {
		t.Fatalf("upstream: %+v", up)
	}
	// Headers changed in a body callback (still held) went upstream.
	if up.Headers.Value("x-from-body") != "1" {
		t.Fatalf("header added in the body callback missing: %v", up.Headers)
	}
	s.ResponseHeaders(H(":status", "200"), true)
	// The second body callback saw the whole body so far.
	if got := s.Downstream().Headers.Value("x-request-body-sizes"); got != "3 6" {
		t.Fatalf("body sizes seen: %q", got)
	}
}

func TestBodyBufferingAndRewriting(t *testing.T) {
	h, _ := testHost(t, Options{})
	t.Run("buffer until end", func(t *testing.T) {
		s := h.NewStream()
		expectStatus(t, "headers", s.RequestHeaders(req("POST", "/", "body-buffer"), false), Continue)
		if !s.Upstream().HeadersSent {
			t.Fatal("headers not released")
		}
		expectStatus(t, "body 1", s.RequestBody([]byte("ab"), false), StopIterationAndBuffer)
		expectStatus(t, "body 2", s.RequestBody([]byte("cd"), false), StopIterationAndBuffer)
		if len(s.Upstream().Body) != 0 {
			t.Fatal("buffered body leaked")
		}
		expectStatus(t, "body 3", s.RequestBody([]byte("ef"), true), Continue)
		if up := s.Upstream(); string(up.Body) != "ABCDEF" || !up.EndOfStream {
			t.Fatalf("upstream: %+v", up)
		}
		s.ResponseHeaders(H(":status", "200"), true)
		if got := s.Downstream().Headers.Value("x-request-body-sizes"); got != "2 4 6" {
			t.Fatalf("sizes %q", got)
		}
	})
	t.Run("rewrite each chunk", func(t *testing.T) {
		s := h.NewStream()
		s.RequestHeaders(req("POST", "/", "body-append"), false)
		s.RequestBody([]byte("a"), false)
		if got := string(s.Upstream().Body); got != "[a]" {
			t.Fatalf("first chunk not released at once: %q", got)
		}
		s.RequestBody([]byte("b"), true)
		if up := s.Upstream(); string(up.Body) != "[a][b]" || !up.EndOfStream {
			t.Fatalf("upstream: %+v", up)
		}
	})
	t.Run("prepend and append", func(t *testing.T) {
		s := h.NewStream()
		s.RequestHeaders(req("POST", "/", "body-wrap"), false)
		s.RequestBody([]byte("mid"), false)
		s.RequestBody([]byte("dle"), true)
		if got := string(s.Upstream().Body); got != "<middle>" {
			t.Fatalf("upstream body %q", got)
		}
	})
	t.Run("pause at end stalls", func(t *testing.T) {
		s := h.NewStream()
		s.RequestHeaders(req("POST", "/", "body-pause-eos"), false)
		s.RequestBody([]byte("x"), false)
		if s.RequestStalled() {
			t.Fatal("stalled before the end")
		}
		expectStatus(t, "last", s.RequestBody([]byte("y"), true), StopIterationAndBuffer)
		if !s.RequestStalled() || s.Upstream().EndOfStream {
			t.Fatal("pause at end of stream did not stall")
		}
	})
	t.Run("trailers", func(t *testing.T) {
		s := h.NewStream()
		s.RequestHeaders(req("POST", "/", "trailers-mutate"), false)
		s.RequestBody([]byte("x"), false)
		expectStatus(t, "trailers", s.RequestTrailers(H("x-t", "1")), Continue)
		up := s.Upstream()
		if !up.EndOfStream || up.Trailers.Value("x-trailer-added") != "1" || up.Trailers.Value("x-t") != "1" {
			t.Fatalf("upstream: %+v", up)
		}
	})
}

func TestBufferLimit(t *testing.T) {
	h, _ := testHost(t, Options{BufferLimitBytes: 8})
	s := h.NewStream()
	s.RequestHeaders(req("POST", "/", "body-buffer"), false)
	s.RequestBody([]byte("12345"), false)
	s.RequestBody([]byte("67890"), false)
	down := s.Downstream()
	if down.Status() != 413 || string(down.Body) != "Payload Too Large" || !down.EndOfStream {
		t.Fatalf("downstream: %+v", down)
	}
	// The 413 went through the plugin's response callbacks, and the
	// upstream request (headers already sent) was abandoned.
	if down.Headers.Value("x-plugin-saw-response") != "1" || !s.Upstream().Reset {
		t.Fatalf("413 handling: %+v / %+v", down, s.Upstream())
	}
}

// TestLaterFilterBufferLimit: a filter after the plugin that sets the
// stream's buffer limit when the request headers reach it (Envoy's mcp
// filter) limits what the plugin buffers in both directions, from then on,
// on that stream only.
func TestLaterFilterBufferLimit(t *testing.T) {
	lower := func(h Headers, eos bool) int {
		if h.Value(":method") == "POST" && !eos {
			return 8
		}
		return 0
	}
	h, _ := testHost(t, Options{LaterFilterBufferLimit: lower})

	s := h.NewStream()
	s.RequestHeaders(req("POST", "/", "body-buffer"), false)
	s.RequestBody([]byte("12345"), false)
	s.RequestBody([]byte("67890"), false)
	if down := s.Downstream(); down.Status() != 413 {
		t.Fatalf("request over the lowered limit: %+v", down)
	}

	r := h.NewStream()
	r.RequestHeaders(req("POST", "/", "resp-body-buffer"), false)
	r.RequestBody([]byte("{}"), true)
	r.ResponseHeaders(H(":status", "200"), false)
	r.ResponseBody([]byte("12345"), false)
	r.ResponseBody([]byte("67890"), false)
	// The plugin let the response headers go: Envoy resets the stream
	// (a 500 before them); nothing of the body went out.
	if down := r.Downstream(); !down.Reset || len(down.Body) != 0 {
		t.Fatalf("response over the lowered limit: %+v", down)
	}

	// A GET passes the later filter untouched: the host's limit (1 MiB).
	g := h.NewStream()
	g.RequestHeaders(req("GET", "/", "resp-body-buffer"), true)
	g.ResponseHeaders(H(":status", "200"), false)
	g.ResponseBody([]byte("1234567890"), true)
	if down := g.Downstream(); down.Status() != 200 || !strings.Contains(string(down.Body), "1234567890") {
		t.Fatalf("GET: %+v", down)
	}
}

func TestResumeFromQueueAndTick(t *testing.T) {
	h, _ := testHost(t, Options{Workers: 2, PluginConfig: []byte("tick")})
	s := h.Worker(0).NewStream()
	expectStatus(t, "headers", s.RequestHeaders(req("GET", "/", "hdr-resume-on-queue"), true), StopAllIterationAndWatermark)
	if !s.RequestStalled() {
		t.Fatal("not stalled")
	}
	// The last worker to register "q" gets proxy_on_queue_ready; enqueue
	// from the other worker and check that the right one resumes its stream.
	target := h.Worker(1)
	if target == s.VM() {
		t.Fatal("test assumes the queue belongs to worker 1")
	}
	s2 := target.NewStream()
	s2.RequestHeaders(req("GET", "/", "hdr-resume-on-queue"), true)
	other := h.Worker(0).NewStream()
	other.RequestHeaders(req("GET", "/", "enqueue=wake"), true)
	select {
	case <-s2.Ready():
	default:
	}
	if !s2.Upstream().HeadersSent || s2.RequestStalled() {
		t.Fatal("queue-ready did not resume the stream on the registering worker")
	}
	if !s.RequestStalled() {
		t.Fatal("a stream on a worker without the queue registration resumed")
	}

	t2 := h.Worker(0).NewStream()
	t2.RequestHeaders(req("GET", "/", "hdr-resume-on-tick"), true)
	if h.Worker(0).TickPeriod() == 0 {
		t.Fatal("tick period not set")
	}
	h.Tick()
	if !t2.Upstream().HeadersSent {
		t.Fatal("tick did not resume the stream")
	}
	if h.Metrics()["ticks"].Value != 2 {
		t.Fatalf("ticks metric: %+v", h.Metrics()["ticks"])
	}
}

func TestLocalReplies(t *testing.T) {
	h, _ := testHost(t, Options{})
	t.Run("from request headers", func(t *testing.T) {
		s := h.NewStream()
		expectStatus(t, "headers", s.RequestHeaders(req("POST", "/", "hdr-reply"), false), StopAllIterationAndWatermark)
		expectStatus(t, "body after reply", s.RequestBody([]byte("x"), true), Skipped)
		down := s.Downstream()
		if down.Status() != 403 || string(down.Body) != `{"denied":true}` || !down.EndOfStream {
			t.Fatalf("downstream: %+v", down)
		}
		// Through the plugin's own response callbacks, with its headers and
		// Envoy's content-length; its content-type is kept.
		hd := down.Headers
		if hd.Value("x-plugin-saw-response") != "1" || hd.Value("x-reply") != "plugin" ||
			hd.Value("content-length") != "15" || !reflect.DeepEqual(hd.Values("content-type"), []string{"application/json"}) {
			t.Fatalf("reply headers: %v", hd)
		}
		if s.Upstream().HeadersSent {
			t.Fatal("request went upstream")
		}
		if r := s.LocalReply(); r == nil || r.Status != 403 {
			t.Fatalf("LocalReply = %+v", r)
		}
		if s.ResponseHeaders(H(":status", "200"), true) != Skipped {
			t.Fatal("a late upstream response was not ignored")
		}
	})
	t.Run("from the request body after headers went upstream", func(t *testing.T) {
		s := h.NewStream()
		s.RequestHeaders(req("POST", "/", "body-reply"), false)
		s.RequestBody([]byte("payload"), true)
		evs := types(s.Events())
		want := []EventType{EventUpstreamHeaders, EventUpstreamReset, EventDownstreamHeaders, EventDownstreamData}
		if !reflect.DeepEqual(evs, want) {
			t.Fatalf("events %v, want %v", evs, want)
		}
		if d := s.Downstream(); d.Status() != 400 || string(d.Body) != "bad body: payload" || d.Headers.Value("content-type") != "text/plain" {
			t.Fatalf("downstream %+v", d)
		}
	})
	t.Run("from response headers: direct reply", func(t *testing.T) {
		s := h.NewStream()
		s.RequestHeaders(req("GET", "/", "resp-hdr-reply"), true)
		s.ResponseHeaders(H(":status", "200", "x-upstream", "1"), false)
		expectStatus(t, "upstream body after reply", s.ResponseBody([]byte("upstream"), true), Skipped)
		d := s.Downstream()
		if d.Status() != 502 || string(d.Body) != "replaced" || d.Headers.Value("x-upstream") != "" {
			t.Fatalf("downstream %+v", d)
		}
		// Direct: the plugin's response callbacks did not see its reply.
		if d.Headers.Value("x-plugin-saw-response") != "" {
			t.Fatalf("direct reply went through the filter: %v", d.Headers)
		}
		if !s.Upstream().Reset {
			t.Fatal("upstream response not abandoned")
		}
	})
	t.Run("after response headers were sent: reset", func(t *testing.T) {
		s := h.NewStream()
		s.RequestHeaders(req("GET", "/", "resp-body-reply"), true)
		s.ResponseHeaders(H(":status", "200"), false)
		s.ResponseBody([]byte("chunk"), false)
		d := s.Downstream()
		if !d.Reset || d.Status() != 200 || d.EndOfStream {
			t.Fatalf("downstream %+v", d)
		}
	})
}

func TestResponseStreaming(t *testing.T) {
	h, _ := testHost(t, Options{})
	s := h.NewStream()
	s.RequestHeaders(req("GET", "/", "resp-body-upper,resp-hdr-mutate"), true)
	s.Events()
	s.ResponseHeaders(H(":status", "200", "content-length", "6", "x-upstream", "u"), false)
	d := s.Downstream()
	if _, ok := d.Headers.Get("content-length"); ok || d.Headers.Value("x-upstream") != "rewritten" {
		t.Fatalf("response headers %v", d.Headers)
	}
	for i, chunk := range []string{"abc", "def", ""} {
		s.ResponseBody([]byte(chunk), i == 2)
		evs := s.Events()
		if i < 2 && (len(evs) < 1 || string(evs[len(evs)-1].Data) != strings.ToUpper(chunk)) {
			t.Fatalf("chunk %d not released at once: %+v", i, evs)
		}
	}
	if d := s.Downstream(); string(d.Body) != "ABCDEF" || !d.EndOfStream {
		t.Fatalf("downstream %+v", d)
	}

	b := h.NewStream()
	b.RequestHeaders(req("GET", "/", "resp-body-buffer"), true)
	b.ResponseHeaders(H(":status", "200"), false)
	b.ResponseBody([]byte("a"), false)
	b.ResponseBody([]byte("b"), false)
	if len(b.Downstream().Body) != 0 {
		t.Fatal("buffered response leaked")
	}
	b.ResponseBody([]byte("c"), true)
	if got := string(b.Downstream().Body); got != "<abc>" {
		t.Fatalf("buffered response %q", got)
	}

	p := h.NewStream()
	p.RequestHeaders(req("GET", "/", "resp-hdr-pause"), true)
	expectStatus(t, "paused response headers", p.ResponseHeaders(H(":status", "200"), false), StopAllIterationAndWatermark)
	expectStatus(t, "held body", p.ResponseBody([]byte("x"), true), Skipped)
	if !p.ResponseStalled() || p.Downstream().HeadersSent {
		t.Fatal("paused response not stalled")
	}
}

func TestHTTPCall(t *testing.T) {
	calls := make(chan HTTPCallRequest, 1)
	h, _ := testHost(t, Options{HTTPCall: func(ctx context.Context, r HTTPCallRequest) (*HTTPCallResponse, error) {
		calls <- r
		return &HTTPCallResponse{Headers: H(":status", "200"), Body: []byte("answer")}, nil
	}})
	s := h.NewStream()
	expectStatus(t, "headers", s.RequestHeaders(req("GET", "/", "httpcall=lookup-cluster"), true), StopAllIterationAndWatermark)
	r := <-calls
	if r.Cluster != "lookup-cluster" || r.Headers.Value(":path") != "/lookup" || string(r.Body) != "q" || r.Timeout != 5*time.Second {
		t.Fatalf("call %+v", r)
	}
	// The response arrives asynchronously and resumes the stream.
	for !s.Upstream().HeadersSent {
		<-s.Ready()
	}
	if v := s.Upstream().Headers.Value("x-callout"); v != "200/answer" {
		t.Fatalf("x-callout = %q", v)
	}

	// Without Options.HTTPCall the guest gets UNIMPLEMENTED.
	u, _ := testHost(t, Options{})
	s2 := u.NewStream()
	s2.RequestHeaders(req("GET", "/", "httpcall=x"), true)
	if v := s2.Upstream().Headers.Value("x-callout-err"); !strings.Contains(v, "unimplemented") {
		t.Fatalf("x-callout-err = %q", v)
	}
}
