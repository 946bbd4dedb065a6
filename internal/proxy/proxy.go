// Package proxy is an HTTP reverse proxy that runs every request through a
// proxy-wasm plugin hosted by internal/wasmhost, the way Envoy's HTTP connection
// manager runs a single Wasm filter in front of its router: request headers
// and body chunks go through the plugin as they arrive, what it releases is
// forwarded to the upstream, and the upstream response is streamed back
// through the plugin chunk by chunk and flushed to the client as soon as
// the plugin lets each chunk go (so server-sent events arrive event by
// event, and long-lived GET streams work). It knows nothing about MCP.
package proxy

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cloudg/mcp-privacy/internal/wasmhost"
)

// Options configure a Proxy. Wasm and Upstream are required.
type Options struct {
	// Wasm is the plugin module; PluginConfig its configuration.
	Wasm         []byte
	PluginConfig []byte
	// Upstream is where requests go: scheme and host (and an optional path
	// prefix); the request's path and query and its Host header are kept.
	Upstream *url.URL
	// Workers is the number of worker VMs (default 1); requests are spread
	// over them round robin.
	Workers int
	// Env and HostEnvKeys are the VMs' environment variables (Envoy's
	// vm_config.environment_variables key_values and host_env_keys).
	Env         map[string]string
	HostEnvKeys []string
	// Logger receives the plugin's log lines (see wasmhost.Options.Logger).
	Logger   func(level wasmhost.LogLevel, msg string)
	LogLevel wasmhost.LogLevel
	// PollOneoff selects the emulated host generation (default: current
	// Envoy, no events).
	PollOneoff wasmhost.PollOneoff
	// FailurePolicy, ReloadBackoff, AllowOnHeadersStopIteration,
	// BufferLimitBytes, VMID, PluginName, RootID: see wasmhost.Options.
	FailurePolicy               wasmhost.FailurePolicy
	ReloadBackoff               time.Duration
	AllowOnHeadersStopIteration bool
	BufferLimitBytes            int
	VMID, PluginName, RootID    string
	// LaterFilterBufferLimit: see wasmhost.Options (a filter after the
	// plugin, such as Envoy's mcp filter, setting the stream's limit).
	LaterFilterBufferLimit func(h wasmhost.Headers, endOfStream bool) int
	// Semantics: the host's departures from Envoy (wasmhost.Semantics);
	// its ChunkSize, when set, is the size of the body chunks handed over.
	Semantics wasmhost.Semantics
	// HostProperties are properties every request has (wasmhost.Options.Properties).
	HostProperties map[string][]byte
	// Properties adds per-request properties for proxy_get_property (keys
	// as wasmhost.PropertyPath), e.g. JWT claims in metadata. The proxy
	// already sets source.address, source.port, destination.address,
	// destination.port and connection.mtls.
	Properties func(r *http.Request) map[string][]byte
	// HTTPCall answers the plugin's proxy_http_call (see
	// wasmhost.Options.HTTPCall); nil: UNIMPLEMENTED.
	HTTPCall func(ctx context.Context, req wasmhost.HTTPCallRequest) (*wasmhost.HTTPCallResponse, error)
	// StreamIdleTimeout is Envoy's stream_idle_timeout (Envoy's default is
	// 5 minutes): a stream with no activity for this long is answered 408
	// "stream timeout" (or reset once the response started). It makes a
	// request the plugin stalls visible instead of hanging. 0: none.
	StreamIdleTimeout time.Duration
	// Transport carries upstream requests; default a clone of
	// http.DefaultTransport that never asks for compression.
	Transport http.RoundTripper
}

// Proxy is an http.Handler; see the package documentation.
type Proxy struct {
	opts      Options
	host      *wasmhost.Host
	transport http.RoundTripper
	stop      context.CancelFunc
}

// New starts the plugin's VMs (a *wasmhost.ConfigError if the plugin
// rejects its configuration) and a ticker delivering proxy_on_tick.
func New(ctx context.Context, opts Options) (*Proxy, error) {
	if opts.Upstream == nil {
		return nil, errors.New("proxy: Options.Upstream is nil")
	}
	h, err := wasmhost.New(ctx, wasmhost.Options{
		Wasm: opts.Wasm, PluginConfig: opts.PluginConfig, Workers: opts.Workers,
		Env: opts.Env, HostEnvKeys: opts.HostEnvKeys, Logger: opts.Logger, LogLevel: opts.LogLevel,
		PollOneoff: opts.PollOneoff, FailurePolicy: opts.FailurePolicy, ReloadBackoff: opts.ReloadBackoff,
		AllowOnHeadersStopIteration: opts.AllowOnHeadersStopIteration,
		BufferLimitBytes:            opts.BufferLimitBytes,
		LaterFilterBufferLimit:      opts.LaterFilterBufferLimit,
		Semantics:                   opts.Semantics,
		Properties:                  opts.HostProperties,
		VMID:                        opts.VMID, PluginName: opts.PluginName, RootID: opts.RootID,
		HTTPCall: opts.HTTPCall,
	})
	if err != nil {
		return nil, err
	}
	p := &Proxy{opts: opts, host: h, transport: opts.Transport}
	if p.transport == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DisableCompression = true
		p.transport = t
	}
	tctx, cancel := context.WithCancel(context.Background())
	p.stop = cancel
	go h.RunTicker(tctx)
	return p, nil
}

// Host is the wasmhost.Host behind the proxy (metrics, shared data, VMs).
func (p *Proxy) Host() *wasmhost.Host { return p.host }

// Close stops the ticker and the VMs.
func (p *Proxy) Close(ctx context.Context) error {
	p.stop()
	return p.host.Close(ctx)
}

// hopByHop are the headers Envoy's connection manager strips: they belong
// to one connection, not to the request.
var hopByHop = map[string]bool{
	"connection": true, "keep-alive": true, "proxy-connection": true,
	"transfer-encoding": true, "upgrade": true, "te": true,
}

func stripHopByHop(h http.Header) (http.Header, bool) {
	trailersTE := false
	drop := map[string]bool{}
	for _, c := range h.Values("Connection") {
		for _, f := range strings.Split(c, ",") {
			if f = strings.TrimSpace(strings.ToLower(f)); f != "" {
				drop[f] = true
			}
		}
	}
	for _, v := range h.Values("Te") {
		if strings.Contains(strings.ToLower(v), "trailers") {
			trailersTE = true
		}
	}
	out := http.Header{}
	for k, vs := range h {
		lk := strings.ToLower(k)
		if hopByHop[lk] || drop[lk] {
			continue
		}
		out[k] = vs
	}
	return out, trailersTE
}

// requestHeaders is the request as Envoy's filters see it: pseudo-headers
// first, lower-case names, no hop-by-hop headers, x-forwarded-proto and
// x-request-id added when missing.
func requestHeaders(r *http.Request) wasmhost.Headers {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	path, _ := requestTarget(r)
	h := wasmhost.H(":authority", r.Host, ":path", path, ":method", r.Method, ":scheme", scheme)
	hdr, trailersTE := stripHopByHop(r.Header)
	for _, k := range sortedKeys(hdr) {
		for _, v := range hdr[k] {
			h.Add(k, v)
		}
	}
	if trailersTE {
		h.Add("te", "trailers")
	}
	if _, ok := h.Get("x-forwarded-proto"); !ok {
		h.Add("x-forwarded-proto", scheme)
	}
	if _, ok := h.Get("x-request-id"); !ok {
		h.Add("x-request-id", newRequestID())
	}
	return h
}

func sortedKeys(h http.Header) []string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	s := hex.EncodeToString(b[:])
	return s[:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:]
}

func int64Bytes(v int64) []byte {
	b := make([]byte, 8)
	binary.LittleEndian.PutUint64(b, uint64(v))
	return b
}

// setProperties gives the stream the connection attributes Envoy provides.
func (p *Proxy) setProperties(s *wasmhost.Stream, r *http.Request) {
	addr := func(prefix, hostport string) {
		_, port, err := net.SplitHostPort(hostport)
		if err != nil {
			return
		}
		s.SetProperty([]string{prefix, "address"}, []byte(hostport))
		if n, err := strconv.ParseInt(port, 10, 64); err == nil {
			s.SetProperty([]string{prefix, "port"}, int64Bytes(n))
		}
	}
	addr("source", r.RemoteAddr)
	if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		addr("destination", la.String())
	}
	mtls := byte(0)
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		mtls = 1
	}
	s.SetProperty([]string{"connection", "mtls"}, []byte{mtls})
	if p.opts.Properties != nil {
		for k, v := range p.opts.Properties(r) {
			s.SetProperty(strings.Split(k, "\x00"), v)
		}
	}
}

// requestTarget is the request target as Envoy's connection manager,
// configured as envoy/envoy.yaml is, hands it to the filters (:path), or
// why that connection manager refuses it (400). Go's server delivers the
// target as the client wrote it, fragment, backslashes, NUL escapes and
// non-ASCII bytes included (it refuses only raw control characters,
// malformed escapes and targets that are neither a path, an absolute URL
// nor *). Like Envoy, an absolute URL becomes its path, a fragment is
// refused (Envoy's default), and so is an escaped slash or backslash
// (path_with_escaped_slashes_action: REJECT_REQUEST). Anything else goes
// to the plugin, and upstream, byte for byte.
func requestTarget(r *http.Request) (target, refused string) {
	target = r.RequestURI
	if target == "" {
		target = r.URL.RequestURI()
	}
	if !strings.HasPrefix(target, "/") {
		if _, rest, ok := strings.Cut(target, "://"); ok {
			if i := strings.IndexAny(rest, "/?#"); i >= 0 && rest[i] == '/' {
				target = rest[i:]
			} else if i >= 0 {
				target = "/" + rest[i:]
			} else {
				target = "/"
			}
		} else {
			return target, "the request target is not a path"
		}
	}
	if strings.IndexByte(target, '#') >= 0 {
		return target, "the request target has a fragment"
	}
	p, _, _ := strings.Cut(target, "?")
	for i := 0; i+2 < len(p); i++ {
		if p[i] == '%' && p[i+1] == '2' && (p[i+2]|0x20) == 'f' || p[i] == '%' && p[i+1] == '5' && (p[i+2]|0x20) == 'c' {
			return target, "the request path has an escaped slash or backslash"
		}
	}
	return target, ""
}

// ServeHTTP runs one request through the plugin and the upstream.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, refused := requestTarget(r); refused != "" {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, "Bad Request: "+refused)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	rc := http.NewResponseController(w)
	_ = rc.EnableFullDuplex() // HTTP/1: keep reading the body after the response started

	s := p.host.NewStream()
	defer s.Close()
	p.setProperties(s, r)

	hasBody := r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0
	s.RequestHeaders(requestHeaders(r), !hasBody)
	if hasBody {
		// net/http forbids reading the body after the handler returned
		// (a local reply can end the response before the client finished
		// sending): wait for the reader, which sees the stream closed.
		fed := make(chan struct{})
		go func() {
			defer close(fed)
			feedRequest(s, r, p.chunk())
		}()
		defer func() { <-fed }()
	}

	var (
		upBody      *bodyPipe
		upCancel    context.CancelFunc = func() {}
		upMethod    string
		upAbandoned bool
		respCh      = make(chan upstreamResult, 1)
		idle        <-chan time.Time
		idleTimer   *time.Timer
	)
	defer func() { upCancel() }()
	if p.opts.StreamIdleTimeout > 0 {
		idleTimer = time.NewTimer(p.opts.StreamIdleTimeout)
		defer idleTimer.Stop()
		idle = idleTimer.C
	}
	for {
		evs := s.Events()
		if len(evs) > 0 && idleTimer != nil {
			idleTimer.Reset(p.opts.StreamIdleTimeout)
		}
		for _, ev := range evs {
			switch ev.Type {
			case wasmhost.EventUpstreamHeaders:
				upCtx, c := context.WithCancel(ctx)
				upCancel = c
				if !ev.EndOfStream {
					upBody = newBodyPipe()
				}
				upMethod = ev.Headers.Value(":method")
				req, err := p.upstreamRequest(upCtx, ev.Headers, upBody)
				if err != nil {
					s.SendLocalReply(wasmhost.LocalReply{Status: 503, Body: []byte(err.Error()), Details: "upstream_request_invalid"})
					continue
				}
				go func() {
					res, err := p.transport.RoundTrip(req)
					respCh <- upstreamResult{res, err}
				}()
			case wasmhost.EventUpstreamData:
				if upBody != nil {
					upBody.push(ev.Data)
					if ev.EndOfStream {
						upBody.close(nil)
					}
				}
			case wasmhost.EventUpstreamTrailers:
				// The body ends here, with the trailers as the plugin left
				// them (none: a plain end of the chunked body).
				if upBody != nil {
					upBody.closeWithTrailers(ev.Headers)
				}
			case wasmhost.EventUpstreamReset:
				upAbandoned = true
				if upBody != nil {
					upBody.close(errors.New("proxy: upstream request abandoned"))
				}
				upCancel()
			case wasmhost.EventDownstreamHeaders:
				writeResponseHeaders(w, ev.Headers)
				_ = rc.Flush()
				if ev.EndOfStream {
					return
				}
			case wasmhost.EventDownstreamData:
				if len(ev.Data) > 0 {
					if _, err := w.Write(ev.Data); err != nil {
						s.Reset("downstream write: " + err.Error())
						return
					}
					_ = rc.Flush()
				}
				if ev.EndOfStream {
					return
				}
			case wasmhost.EventDownstreamTrailers:
				for _, f := range ev.Headers {
					w.Header().Add(http.TrailerPrefix+f.Key, f.Value)
				}
				return
			case wasmhost.EventDownstreamReset:
				s.Close()
				// Abort the client's connection: no complete response.
				panic(http.ErrAbortHandler)
			}
		}
		select {
		case <-s.Ready():
		case res := <-respCh:
			if upAbandoned {
				if res.res != nil {
					res.res.Body.Close()
				}
				continue
			}
			if res.err != nil {
				if ctx.Err() == nil {
					s.SendLocalReply(wasmhost.LocalReply{
						Status:  503,
						Body:    []byte("upstream connect error or disconnect/reset before headers. reset reason: " + res.err.Error()),
						Details: "upstream_reset_before_response_started",
					})
				}
				continue
			}
			go feedResponse(s, res.res, upMethod, p.chunk())
		case <-ctx.Done():
			s.Reset("downstream disconnected")
			return
		case <-idle:
			// Envoy's idle timeout: a local reply while the response has
			// not started, else a reset.
			s.SendLocalReply(wasmhost.LocalReply{Status: 408, Body: []byte("stream timeout"), Details: "stream_idle_timeout"})
			if !s.Done() {
				s.Reset("stream idle timeout")
			}
		}
	}
}

type upstreamResult struct {
	res *http.Response
	err error
}

// upstreamRequest builds the request the router would send: the plugin's
// headers, :path and :authority kept, sent to the upstream address.
func (p *Proxy) upstreamRequest(ctx context.Context, h wasmhost.Headers, body *bodyPipe) (*http.Request, error) {
	u := *p.opts.Upstream
	path := h.Value(":path")
	rawPath, rawQuery, hasQuery := strings.Cut(path, "?")
	if prefix := strings.TrimSuffix(u.Path, "/"); prefix != "" {
		rawPath = prefix + rawPath
	}
	var rbody io.ReadCloser
	if body != nil {
		rbody = body
	}
	req, err := http.NewRequestWithContext(ctx, h.Value(":method"), u.Scheme+"://"+u.Host, rbody)
	if err != nil {
		return nil, err
	}
	// The upstream must get the target the plugin judged, byte for byte:
	// parsing it as a URL would drop a fragment and re-escape backslashes
	// and non-ASCII bytes. Opaque is written as is, except that one
	// starting with // would become an absolute URL; such a path goes as
	// Path and RawPath, and a target that cannot be written unchanged is
	// refused.
	req.URL.Path, req.URL.RawPath, req.URL.RawQuery, req.URL.ForceQuery = "", "", rawQuery, hasQuery && rawQuery == ""
	if strings.HasPrefix(rawPath, "//") {
		if req.URL.Path, err = url.PathUnescape(rawPath); err != nil {
			return nil, fmt.Errorf("proxy: request path %q: %w", rawPath, err)
		}
		req.URL.RawPath = rawPath
	} else {
		req.URL.Opaque = rawPath
	}
	want := rawPath
	if hasQuery {
		want += "?" + rawQuery
	}
	if got := req.URL.RequestURI(); got != want {
		return nil, fmt.Errorf("proxy: request target %q would reach the upstream as %q", want, got)
	}
	req.Host = h.Value(":authority")
	req.Header = http.Header{}
	req.ContentLength = -1
	if body == nil {
		req.ContentLength = 0
		req.Body = nil
	} else {
		// Filled when the body ends (an empty map sends nothing).
		req.Trailer = body.trailer
	}
	for _, f := range h {
		if strings.HasPrefix(f.Key, ":") || hopByHop[f.Key] || f.Key == "host" {
			continue
		}
		if f.Key == "content-length" {
			if n, err := strconv.ParseInt(f.Value, 10, 64); err == nil && body != nil {
				req.ContentLength = n
			}
			continue
		}
		req.Header.Add(f.Key, f.Value)
	}
	if _, ok := req.Header["User-Agent"]; !ok {
		req.Header["User-Agent"] = []string{""} // no Go default
	}
	if body != nil && req.ContentLength < 0 {
		req.TransferEncoding = []string{"chunked"}
	}
	return req, nil
}

// responseHeaders is the upstream response as Envoy's filters see it.
func responseHeaders(res *http.Response) wasmhost.Headers {
	h := wasmhost.H(":status", strconv.Itoa(res.StatusCode))
	hdr, _ := stripHopByHop(res.Header)
	for _, k := range sortedKeys(hdr) {
		for _, v := range hdr[k] {
			h.Add(k, v)
		}
	}
	return h
}

func writeResponseHeaders(w http.ResponseWriter, h wasmhost.Headers) {
	status, err := strconv.Atoi(h.Value(":status"))
	if err != nil || status < 100 {
		status = http.StatusBadGateway
	}
	out := w.Header()
	for _, f := range h {
		if strings.HasPrefix(f.Key, ":") || hopByHop[f.Key] {
			continue
		}
		out.Add(f.Key, f.Value)
	}
	if _, ok := out["Content-Type"]; !ok {
		out["Content-Type"] = nil // no sniffing: send what the plugin left
	}
	w.WriteHeader(status)
}

const chunkSize = 32 << 10

// chunk is the size of the body chunks the stream gets.
func (p *Proxy) chunk() int {
	if n := p.opts.Semantics.ChunkSize; n > 0 {
		return n
	}
	return chunkSize
}

// feedRequest hands the client's body to the stream chunk by chunk as it
// arrives (end of stream on the last chunk when the length is known).
func feedRequest(s *wasmhost.Stream, r *http.Request, size int) {
	buf := make([]byte, size)
	remaining := r.ContentLength
	// Declared trailers (HTTP/2 may send them after a body of known
	// length) end the message, not its last chunk.
	trailers := len(r.Trailer) > 0
	for {
		n, err := r.Body.Read(buf)
		if n > 0 {
			eos := false
			if remaining > 0 {
				remaining -= int64(n)
				eos = remaining <= 0 && !trailers
			}
			s.RequestBody(buf[:n], eos)
			if eos {
				return
			}
		}
		if err == io.EOF {
			if t := toHeaders(r.Trailer); len(t) > 0 {
				s.RequestTrailers(t)
			} else {
				s.RequestBody(nil, true)
			}
			return
		}
		if err != nil {
			s.Reset("downstream body: " + err.Error())
			return
		}
	}
}

// feedResponse streams the upstream response into the stream chunk by
// chunk as it arrives.
func feedResponse(s *wasmhost.Stream, res *http.Response, method string, size int) {
	defer res.Body.Close()
	noBody := res.ContentLength == 0 || method == http.MethodHead ||
		res.StatusCode == http.StatusNoContent || res.StatusCode == http.StatusNotModified
	if s.ResponseHeaders(responseHeaders(res), noBody) == wasmhost.Skipped || noBody {
		return // answered locally meanwhile, or nothing more to read
	}
	buf := make([]byte, size)
	remaining := res.ContentLength
	trailers := len(res.Trailer) > 0
	for {
		n, err := res.Body.Read(buf)
		if n > 0 {
			eos := false
			if remaining > 0 {
				remaining -= int64(n)
				eos = remaining <= 0 && !trailers
			}
			s.ResponseBody(buf[:n], eos)
			if eos {
				return
			}
		}
		if err == io.EOF {
			if t := toHeaders(res.Trailer); len(t) > 0 {
				s.ResponseTrailers(t)
			} else {
				s.ResponseBody(nil, true)
			}
			return
		}
		if err != nil {
			// Envoy resets the client's stream when the upstream breaks
			// off mid-response (unless the proxy itself gave up on it).
			if res.Request == nil || res.Request.Context().Err() == nil {
				s.Reset("upstream reset: " + err.Error())
			}
			return
		}
	}
}

func toHeaders(h http.Header) wasmhost.Headers {
	var out wasmhost.Headers
	for _, k := range sortedKeys(h) {
		for _, v := range h[k] {
			out.Add(k, v)
		}
	}
	return out
}

// bodyPipe is the upstream request body: chunks the plugin released, read
// by the transport as they come.
type bodyPipe struct {
	mu     sync.Mutex
	chunks [][]byte
	closed bool
	err    error
	wake   chan struct{}
	// trailer is the upstream request's Trailer map. The transport reads
	// it when it writes the headers and again after the body's EOF, so it
	// is filled (from trailers) by Read, just before returning that EOF,
	// in the transport's goroutine.
	trailer  http.Header
	trailers wasmhost.Headers
}

func newBodyPipe() *bodyPipe {
	return &bodyPipe{wake: make(chan struct{}, 1), trailer: http.Header{}}
}

// closeWithTrailers ends the body; the trailers follow it.
func (b *bodyPipe) closeWithTrailers(t wasmhost.Headers) {
	b.mu.Lock()
	if !b.closed {
		b.trailers = t.Clone()
	}
	b.mu.Unlock()
	b.close(nil)
}

func (b *bodyPipe) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

func (b *bodyPipe) push(p []byte) {
	if len(p) == 0 {
		return
	}
	b.mu.Lock()
	if !b.closed {
		b.chunks = append(b.chunks, append([]byte(nil), p...))
	}
	b.mu.Unlock()
	b.signal()
}

func (b *bodyPipe) close(err error) {
	b.mu.Lock()
	if !b.closed {
		b.closed, b.err = true, err
	}
	b.mu.Unlock()
	b.signal()
}

func (b *bodyPipe) Read(p []byte) (int, error) {
	for {
		b.mu.Lock()
		if len(b.chunks) > 0 {
			n := copy(p, b.chunks[0])
			if n == len(b.chunks[0]) {
				b.chunks = b.chunks[1:]
			} else {
				b.chunks[0] = b.chunks[0][n:]
			}
			b.mu.Unlock()
			return n, nil
		}
		if b.closed {
			err := b.err
			if err == nil {
				for _, f := range b.trailers {
					b.trailer[http.CanonicalHeaderKey(f.Key)] = append(b.trailer[http.CanonicalHeaderKey(f.Key)], f.Value)
				}
				b.trailers = nil
				err = io.EOF
			}
			b.mu.Unlock()
			return 0, err
		}
		b.mu.Unlock()
		<-b.wake
	}
}

func (b *bodyPipe) Close() error {
	b.close(fmt.Errorf("proxy: upstream body closed"))
	return nil
}
