package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/demo"
	"github.com/cloudg/mcp-privacy/internal/proxy"
	"github.com/cloudg/mcp-privacy/internal/wasmhost"
	"github.com/cloudg/mcp-privacy/internal/wasmtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// upstream is a real MCP server (the demo) that records every request body
// it receives, so tests can prove what never reached it.
type upstream struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func startUpstream(t testing.TB, jsonResponse bool) *upstream {
	t.Helper()
	u := &upstream{}
	h := demo.Handler(jsonResponse)
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.bodies = append(u.bodies, string(body))
		u.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

// received reports whether any body the server got contains s.
func (u *upstream) received(s string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, b := range u.bodies {
		if strings.Contains(b, s) {
			return true
		}
	}
	return false
}

// plugin is the compiled plugin in front of an upstream.
type plugin struct {
	*httptest.Server
	proxy *proxy.Proxy
	logs  *logLines
}

type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(level wasmhost.LogLevel, msg string) {
	l.mu.Lock()
	l.lines = append(l.lines, level.String()+" "+msg)
	l.mu.Unlock()
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// startPlugin runs build/mcp-privacy.wasm (2 worker VMs) with config in
// front of target. Envoy's allow_on_headers_stop_iteration follows the
// envelope's hold_headers, as the shipped configs keep them.
func startPlugin(t testing.TB, target string, config string, tweak ...func(*proxy.Options)) *plugin {
	t.Helper()
	up, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	logs := &logLines{}
	opts := proxy.Options{
		Wasm: wasmtest.Plugin(t), PluginConfig: []byte(config), Upstream: up, Workers: 2,
		Logger: logs.add, AllowOnHeadersStopIteration: strings.Contains(config, `"hold_headers": true`),
		// Envoy's default, as serve: a shorter one cut the idle standalone
		// GET stream of a session whose test ran longer (a corpus of calls
		// under -race on a loaded machine), and a go-sdk client without
		// retries then fails the session. A stalled request still ends at
		// the tests' 30-second contexts.
		StreamIdleTimeout: 5 * time.Minute,
	}
	for _, f := range tweak {
		f(&opts)
	}
	p, err := proxy.New(context.Background(), opts)
	if err != nil {
		t.Fatalf("plugin: %v\n%s", err, logs)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(func() {
		srv.Close()
		_ = p.Close(context.Background())
	})
	return &plugin{Server: srv, proxy: p, logs: logs}
}

// withHeaders adds fixed headers (the caller's identity) to every request.
type withHeaders struct {
	base    http.RoundTripper
	headers map[string]string
}

func (w withHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range w.headers {
		r.Header.Set(k, v)
	}
	return w.base.RoundTrip(r)
}

// connect opens an MCP session through url as principal with roles.
func connect(t testing.TB, url, principal, roles string) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, url, principal, roles, nil, nil)
}

// connectWith is connect with client and session options.
func connectWith(t testing.TB, url, principal, roles string, opts *mcp.ClientOptions, sessionOpts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	headers := map[string]string{}
	if principal != "" {
		headers["x-mcp-principal"] = principal
	}
	if roles != "" {
		headers["x-mcp-roles"] = roles
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   url + "/mcp",
		HTTPClient: &http.Client{Transport: withHeaders{http.DefaultTransport, headers}},
		MaxRetries: -1,
	}, sessionOpts)
	if err != nil {
		t.Fatalf("connect as %s (%s): %v", principal, roles, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// writeRPC writes the JSON-RPC answer to id (a raw id, as read): the
// error when there is one, else the result.
func writeRPC(w http.ResponseWriter, id json.RawMessage, result any, rpcErr map[string]any) {
	msg := map[string]any{"jsonrpc": "2.0", "id": id}
	if rpcErr != nil {
		msg["error"] = rpcErr
	} else {
		msg["result"] = result
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(msg)
}
