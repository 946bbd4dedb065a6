package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/wasmhost"
	"github.com/cloudg/mcp-privacy/internal/wasmtest"
)

// echo is what the echo upstream saw.
type echo struct {
	Method, URI, Host string
	Header            http.Header
	Body              string
}

func echoUpstream(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Upstream", "echo")
		_ = json.NewEncoder(w).Encode(echo{r.Method, r.RequestURI, r.Host, r.Header, string(b)})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func startProxy(t *testing.T, upstream string, opts Options) *httptest.Server {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	opts.Upstream = u
	if opts.Wasm == nil {
		opts.Wasm = wasmtest.Plugin(t)
		opts.PluginConfig = []byte(`{"policy":"standard"}`)
	}
	if opts.Logger == nil {
		opts.Logger = func(l wasmhost.LogLevel, m string) {
			if l >= wasmhost.LogWarn {
				t.Logf("[%s] %s", l, m)
			}
		}
	}
	p, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(p)
	t.Cleanup(func() {
		front.Close()
		p.Close(context.Background())
	})
	return front
}

func decodeEcho(t *testing.T, res *http.Response) echo {
	t.Helper()
	defer res.Body.Close()
	var e echo
	if err := json.NewDecoder(res.Body).Decode(&e); err != nil {
		t.Fatalf("decoding the echo: %v", err)
	}
	return e
}

// A request off the plugin's gateway paths passes through unchanged:
// method, path and query, Host, headers and body.
func TestPassThroughUnchanged(t *testing.T) {
	up := echoUpstream(t)
	front := startProxy(t, up.URL, Options{Workers: 2})
	req, _ := http.NewRequest("POST", front.URL+"/api/items?x=1&y=%2F", strings.NewReader(`{"k":"v"}`))
	req.Host = "service.example:8443"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Custom", "kept")
	req.Header.Add("X-Multi", "a")
	req.Header.Add("X-Multi", "b")
	req.Header.Set("Connection", "X-Hop")
	req.Header.Set("X-Hop", "connection-scoped")
	req.Header.Set("Keep-Alive", "timeout=5")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || res.Header.Get("X-Upstream") != "echo" || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("response %d %v", res.StatusCode, res.Header)
	}
	e := decodeEcho(t, res)
	if e.Method != "POST" || e.URI != "/api/items?x=1&y=%2F" || e.Host != "service.example:8443" || e.Body != `{"k":"v"}` {
		t.Fatalf("upstream saw %+v", e)
	}
	if e.Header.Get("X-Custom") != "kept" || strings.Join(e.Header.Values("X-Multi"), ",") != "a,b" ||
		e.Header.Get("Content-Type") != "application/json" || e.Header.Get("Content-Length") != "9" {
		t.Fatalf("headers lost: %v", e.Header)
	}
	for _, hop := range []string{"X-Hop", "Keep-Alive", "Connection"} {
		if v := e.Header.Get(hop); v != "" {
			t.Fatalf("hop-by-hop header %s reached the upstream: %q", hop, v)
		}
	}
	if e.Header.Get("X-Request-Id") == "" || e.Header.Get("X-Forwarded-Proto") != "http" {
		t.Fatalf("Envoy's x-request-id / x-forwarded-proto missing: %v", e.Header)
	}
}

// Server-sent events reach the client event by event: the upstream sends
// event 2 only after the client has read event 1.
func TestSSEChunkByChunk(t *testing.T) {
	for _, c := range []struct {
		name   string
		opts   Options
		header string
		upper  bool
	}{
		{name: "plugin", opts: Options{}},
		{name: "rewriting each chunk", opts: Options{Wasm: wasmtest.TestPlugin(t)}, header: "resp-body-upper", upper: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			clientGot1 := make(chan struct{})
			upstreamDone := make(chan struct{})
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				defer close(upstreamDone)
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(200)
				fmt.Fprint(w, "id: 1\ndata: first\n\n")
				w.(http.Flusher).Flush()
				select {
				case <-clientGot1:
				case <-r.Context().Done():
					return
				}
				fmt.Fprint(w, "id: 2\ndata: second\n\n")
			}))
			defer up.Close()
			front := startProxy(t, up.URL, c.opts)
			req, _ := http.NewRequest("GET", front.URL+"/events", nil)
			req.Header.Set("Accept", "text/event-stream")
			if c.header != "" {
				req.Header.Set("X-Test", c.header)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			br := bufio.NewReader(res.Body)
			readEvent := func() string {
				var ev strings.Builder
				for {
					line, err := br.ReadString('\n')
					if err != nil {
						t.Fatalf("reading the stream: %v (got %q)", err, ev.String())
					}
					if line == "\n" {
						return ev.String()
					}
					ev.WriteString(line)
				}
			}
			want := func(s string) string {
				if c.upper {
					return strings.ToUpper(s)
				}
				return s
			}
			if ev := readEvent(); ev != want("id: 1\ndata: first\n") {
				t.Fatalf("event 1 = %q", ev)
			}
			close(clientGot1) // only now may the upstream send event 2
			if ev := readEvent(); ev != want("id: 2\ndata: second\n") {
				t.Fatalf("event 2 = %q", ev)
			}
			if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
				t.Fatalf("after the events: %q %v", rest, err)
			}
			<-upstreamDone
		})
	}
}

// A client that goes away cancels the upstream request.
func TestClientDisconnectCancelsUpstream(t *testing.T) {
	started := make(chan struct{})
	canceled := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done()
		close(canceled)
	}))
	defer up.Close()
	front := startProxy(t, up.URL, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", front.URL+"/stream", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	<-started
	cancel()
	res.Body.Close()
	select {
	case <-canceled:
	case <-time.After(10 * time.Second): // a failure guard, not a delay
		t.Fatal("the upstream request was not canceled")
	}
}

func TestLocalReplyNeverReachesUpstream(t *testing.T) {
	var hits sync.Map
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Store(r.URL.Path, true)
	}))
	defer up.Close()
	front := startProxy(t, up.URL, Options{Wasm: wasmtest.TestPlugin(t)})
	req, _ := http.NewRequest("POST", front.URL+"/denied", strings.NewReader("body"))
	req.Header.Set("X-Test", "hdr-reply")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 403 || string(b) != `{"denied":true}` || res.Header.Get("X-Reply") != "plugin" ||
		res.Header.Get("Content-Type") != "application/json" || res.Header.Get("X-Plugin-Saw-Response") != "1" {
		t.Fatalf("local reply %d %v %q", res.StatusCode, res.Header, b)
	}
	if _, hit := hits.Load("/denied"); hit {
		t.Fatal("the upstream was called")
	}
}

// The request body goes to the plugin chunk by chunk as the client sends
// it; each chunk the plugin rewrites and continues goes upstream.
func TestRequestBodyStreaming(t *testing.T) {
	up := echoUpstream(t)
	front := startProxy(t, up.URL, Options{Wasm: wasmtest.TestPlugin(t)})
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", front.URL+"/upload", pr)
	req.Header.Set("X-Test", "body-append")
	go func() {
		for _, c := range []string{"one", "two", "three"} {
			pw.Write([]byte(c))
		}
		pw.Close()
	}()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	e := decodeEcho(t, res)
	// How the chunks were cut depends on the transport; each was wrapped.
	if strings.ReplaceAll(strings.ReplaceAll(e.Body, "[", ""), "]", "") != "onetwothree" || !strings.HasPrefix(e.Body, "[") {
		t.Fatalf("upstream body %q", e.Body)
	}
	if len(e.Header.Values("Content-Length")) != 0 {
		t.Fatalf("chunked request grew a content-length: %v", e.Header)
	}

	// Buffered and rewritten as a whole; the plugin left content-length
	// alone, so it must keep the size (it does: upper-casing).
	req2, _ := http.NewRequest("POST", front.URL+"/upload", strings.NewReader("abc"))
	req2.Header.Set("X-Test", "body-buffer")
	res2, err := http.DefaultClient.Do(req2)
	if err != nil {
		t.Fatal(err)
	}
	if e := decodeEcho(t, res2); e.Body != "ABC" {
		t.Fatalf("buffered body %q", e.Body)
	}
}

func TestUpstreamUnreachable(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	front := startProxy(t, dead.URL, Options{Wasm: wasmtest.TestPlugin(t)})
	res, err := http.Get(front.URL + "/x")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	// Envoy's router answers 503, through the plugin's response callbacks.
	if res.StatusCode != 503 || !strings.HasPrefix(string(b), "upstream connect error") || res.Header.Get("X-Plugin-Saw-Response") != "1" {
		t.Fatalf("%d %v %q", res.StatusCode, res.Header, b)
	}
}

func TestResetAfterHeadersAbortsClient(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("chunk"))
	}))
	defer up.Close()
	front := startProxy(t, up.URL, Options{Wasm: wasmtest.TestPlugin(t)})
	req, _ := http.NewRequest("GET", front.URL+"/x", nil)
	req.Header.Set("X-Test", "resp-body-reply")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return // the reset may already hit the response headers
	}
	_, err = io.ReadAll(res.Body)
	res.Body.Close()
	if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) && !strings.Contains(err.Error(), "reset") && !strings.Contains(err.Error(), "EOF") {
		t.Fatalf("client read the body without error (%v)", err)
	}
}

// A request the plugin holds forever (PAUSE on request headers, Envoy's
// StopAllIterationAndWatermark, nothing resumes it) hits the stream idle
// timeout.
func TestStalledRequestTimesOut(t *testing.T) {
	up := echoUpstream(t)
	front := startProxy(t, up.URL, Options{Wasm: wasmtest.TestPlugin(t), StreamIdleTimeout: 200 * time.Millisecond})
	req, _ := http.NewRequest("POST", front.URL+"/x", strings.NewReader("body"))
	req.Header.Set("X-Test", "hdr-pause")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 408 || string(b) != "stream timeout" {
		t.Fatalf("%d %q", res.StatusCode, b)
	}
}

// Trailers travel as Envoy passes them: request trailers to the upstream
// after the body, response trailers to the client, as the plugin left
// them (here it rewrites the held body and adds trailers in its trailers
// callbacks); the upstream sees the body end with them.
func TestTrailersForwarded(t *testing.T) {
	type seen struct {
		body    string
		trailer http.Header
	}
	got := make(chan seen, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{string(b), r.Trailer}
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(200)
		_, _ = w.Write([]byte("answer"))
		w.(http.Flusher).Flush()
		w.Header().Set(http.TrailerPrefix+"X-Resp-Sum", "r1")
	}))
	t.Cleanup(up.Close)
	front := startProxy(t, up.URL, Options{Wasm: wasmtest.TestPlugin(t)})

	req, _ := http.NewRequest("POST", front.URL+"/upload", io.MultiReader(strings.NewReader("one"), strings.NewReader("two")))
	req.ContentLength = -1 // chunked: Go's client sends trailers only so
	req.Trailer = http.Header{"X-Req-Sum": {"q1"}}
	req.Header.Set("X-Test", "body-buffer,trailers-body,resp-body-buffer,resp-trailers-body")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	s := <-got
	if s.body != "<onetwo>" || s.trailer.Get("X-Req-Sum") != "q1" || s.trailer.Get("X-Body-Set") != "<nil>" ||
		strings.Contains(s.trailer.Get("X-Body-Eos"), "true") {
		t.Fatalf("upstream got %q with trailers %v, want the body as the plugin left it and both trailers", s.body, s.trailer)
	}
	if string(body) != "{answer}" || res.Trailer.Get("X-Resp-Sum") != "r1" || res.Trailer.Get("X-Body-Set") != "<nil>" ||
		strings.Contains(res.Trailer.Get("X-Body-Eos"), "true") {
		t.Fatalf("client got %q with trailers %v, want the body rewritten at trailers time and the trailers", body, res.Trailer)
	}
}
