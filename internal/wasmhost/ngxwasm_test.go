package wasmhost

import (
	"strconv"
	"strings"
	"testing"
)

// Under ngx_wasm_module's rules a PAUSE holds a body once, up to the
// response body buffers, and never again; with a content-length the end
// is not signalled. The scripted plugin pauses until the end and wraps
// what it then sees in <>: on Envoy the whole body, here only what the
// last callback saw, and nothing at all when the end never comes.
func TestNgxWasmResponseBody(t *testing.T) {
	const chunk = 4096
	body := make([]string, 10)
	for i := range body {
		body[i] = strings.Repeat(string(rune('a'+i)), chunk)
	}
	whole := strings.Join(body, "")
	for _, tc := range []struct {
		name   string
		sem    Semantics
		length bool
		want   string
	}{
		{name: "envoy", want: "<" + whole + ">"},
		// The first pause buffers chunks 1-4 (16 KiB), handed over and
		// released; later pauses release each chunk; the last is wrapped.
		{name: "ngx, chunked", sem: NgxWasmSemantics, want: whole[:9*chunk] + "<" + body[9] + ">"},
		{name: "ngx, content-length", sem: NgxWasmSemantics, length: true, want: whole},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := testHost(t, Options{Semantics: tc.sem})
			s := h.NewStream()
			s.RequestHeaders(req("GET", "/", "resp-body-buffer"), true)
			rh := H(":status", "200")
			if tc.length {
				rh.Add("content-length", strconv.Itoa(len(whole)))
			}
			s.ResponseHeaders(rh, false)
			for i, b := range body {
				s.ResponseBody([]byte(b), i == len(body)-1)
			}
			down := s.Downstream()
			if string(down.Body) != tc.want || !down.EndOfStream {
				t.Fatalf("client got %d bytes (eos %v) %.40q...%.40q, want %d", len(down.Body), down.EndOfStream, down.Body, down.Body[max(0, len(down.Body)-40):], len(tc.want))
			}
		})
	}
}

// The request body reaches the plugin once, whole, at its end; nothing
// goes upstream before.
func TestNgxWasmRequestBodyWhole(t *testing.T) {
	for _, tc := range []struct {
		sem   Semantics
		sizes string
	}{{Semantics{}, "3 2"}, {NgxWasmSemantics, "5"}} {
		h, _ := testHost(t, Options{Semantics: tc.sem})
		s := h.NewStream()
		s.RequestHeaders(req("POST", "/", ""), false)
		s.RequestBody([]byte("hel"), false)
		if up := s.Upstream(); tc.sem.RequestBodyWhole && (len(up.Body) > 0 || up.HeadersSent) {
			// nginx's proxy_pass starts after the body callback.
			t.Fatal("the request went upstream before the body callback")
		}
		s.RequestBody([]byte("lo"), true)
		s.ResponseHeaders(H(":status", "200"), true)
		if up, down := s.Upstream(), s.Downstream(); string(up.Body) != "hello" || down.Headers.Value("x-request-body-sizes") != tc.sizes {
			t.Errorf("request body callbacks saw %q (upstream %q), want %q", down.Headers.Value("x-request-body-sizes"), up.Body, tc.sizes)
		}
	}
}

// A local reply from a response body callback traps on ngx_wasm_module
// (the VM fails: its streams fail closed); Envoy resets the stream.
func TestNgxWasmLocalReplyFromResponseBody(t *testing.T) {
	for _, tc := range []struct {
		sem    Semantics
		failed bool
	}{{Semantics{}, false}, {NgxWasmSemantics, true}} {
		h, sink := testHost(t, Options{Semantics: tc.sem})
		s := h.NewStream()
		s.RequestHeaders(req("GET", "/", "resp-body-reply"), true)
		s.ResponseHeaders(H(":status", "200"), false)
		s.ResponseBody([]byte("x"), true)
		if got := sink.contains("response already sent"); got != tc.failed {
			t.Errorf("semantics %+v: trapped %v, want %v", tc.sem, got, tc.failed)
		}
		if !tc.failed && !s.Downstream().Reset {
			t.Error("envoy: the stream was not reset")
		}
	}
}

// Trailers callbacks are never called: the plugin cannot clear them, and
// the body's end comes as an empty last body callback.
func TestNgxWasmNoTrailerCallbacks(t *testing.T) {
	h, _ := testHost(t, Options{Semantics: NgxWasmSemantics})
	s := h.NewStream()
	s.RequestHeaders(req("GET", "/", "resp-trailers-clear,resp-body-buffer"), true)
	s.ResponseHeaders(H(":status", "200"), false)
	s.ResponseBody([]byte("abc"), false)
	s.ResponseTrailers(H("grpc-status", "0"))
	down := s.Downstream()
	if down.Trailers.Value("grpc-status") != "0" || !down.EndOfStream {
		t.Fatalf("trailers %v eos %v: want them passed unchanged", down.Trailers, down.EndOfStream)
	}
	if string(down.Body) != "<abc>" {
		t.Fatalf("body %q: want the body buffered by the first pause, handed over at the end", down.Body)
	}
}

// Every profile serve --host names exists, and the Envoy ones keep
// Envoy's semantics.
func TestProfiles(t *testing.T) {
	for _, name := range ProfileNames {
		p, ok := Profiles[name]
		if !ok || p.Name != name {
			t.Fatalf("profile %q missing or misnamed", name)
		}
		envoyLike := name != "ngx-wasm"
		if envoyLike != (p.Semantics == Semantics{}) {
			t.Errorf("%s: semantics %+v", name, p.Semantics)
		}
	}
	if len(Profiles) != len(ProfileNames) {
		t.Errorf("Profiles has %d entries, ProfileNames %d", len(Profiles), len(ProfileNames))
	}
	if Profiles["envoy"].AllowStopIteration(true) != true || Profiles["envoy-1.34"].AllowStopIteration(true) || Profiles["ngx-wasm"].AllowStopIteration(true) {
		t.Error("allow_on_headers_stop_iteration: only envoy (1.35+) has it")
	}
	if _, ok := Profiles["ngx-wasm"].HostProperties[PropertyPath("ngx", "hostname")]; !ok {
		t.Error("ngx-wasm serves no ngx.* property")
	}
}

// Removing a request's content-length makes nginx read no body: the
// request goes upstream without one (Envoy recomputes the length).
func TestNgxWasmRemovedRequestLengthDropsTheBody(t *testing.T) {
	for _, tc := range []struct {
		sem  Semantics
		want string
	}{{Semantics{}, "hello"}, {NgxWasmSemantics, ""}} {
		h, _ := testHost(t, Options{Semantics: tc.sem})
		s := h.NewStream()
		s.RequestHeaders(req("POST", "/", "remove-content-length", "content-length", "5"), false)
		s.RequestBody([]byte("hello"), true)
		if cl := s.Upstream().Headers.Value("content-length"); tc.sem.RequestBodyWhole && cl != "0" {
			t.Errorf("upstream content-length %q, want 0 (proxy_pass sends the body's length)", cl)
		}
		if up := s.Upstream(); string(up.Body) != tc.want || !up.EndOfStream {
			t.Errorf("semantics %+v: upstream body %q (eos %v), want %q", tc.sem, up.Body, up.EndOfStream, tc.want)
		}
	}
}
