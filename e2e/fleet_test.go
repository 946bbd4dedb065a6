package e2e_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/proxy"
)

// A fleet is what MCP 2026-07-28 is for: several Envoys, each running the
// plugin, behind a plain load balancer without sticky sessions. Here two
// replicas: two startPlugin proxies (each its own wasmhost, so its own VMs
// and shared data: nothing passes from one to the other but the
// configuration and the environment they both get), and in front of them
// a load balancer that alternates between them, or sends everything to
// one while a test pins it.
type flFleet struct {
	*httptest.Server // the load balancer: clients talk to this
	replicas         []*plugin

	mu     sync.Mutex
	pinned int // the replica every request goes to; -1: alternate
	turn   int // the next replica when alternating
	served []flServed
}

// flServed is one request as the load balancer routed it, with the
// answer's status and headers.
type flServed struct {
	replica int
	method  string // Mcp-Method, or the HTTP method when there is none
	name    string // Mcp-Name
	status  int
	header  http.Header
}

// flFleetKey is the vault key both replicas get, as a fleet's Envoys would
// get one Secret: in the environment variable the policy's vault.key_env
// names by default, passed to the VM (Envoy's
// vm_config.environment_variables).
const flFleetKey = "an e2e fleet key, not a secret"

// startFleet runs two replicas of the plugin with config in front of
// target, both with flFleetKey in CLOUDG_MCP_VAULT_KEY.
func startFleet(t *testing.T, target, config string, tweak ...func(*proxy.Options)) *flFleet {
	t.Helper()
	f := &flFleet{pinned: -1}
	for range 2 {
		opts := append([]func(*proxy.Options){func(o *proxy.Options) {
			o.Env = map[string]string{"CLOUDG_MCP_VAULT_KEY": flFleetKey}
		}}, tweak...)
		f.replicas = append(f.replicas, startPlugin(t, target, config, opts...))
	}
	f.Server = httptest.NewServer(http.HandlerFunc(f.route))
	t.Cleanup(f.Close)
	return f
}

func (f *flFleet) route(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	i := f.pinned
	if i < 0 {
		i = f.turn
		f.turn = (f.turn + 1) % len(f.replicas)
	}
	f.mu.Unlock()
	method := r.Header.Get("Mcp-Method")
	if method == "" {
		method = r.Method
	}
	// Recorded before it is served: a client may read a streamed answer
	// whole, and send its next request, before ServeHTTP returns.
	f.mu.Lock()
	f.served = append(f.served, flServed{replica: i, method: method, name: r.Header.Get("Mcp-Name")})
	rec := &flRecorder{ResponseWriter: w, fleet: f, index: len(f.served) - 1}
	f.mu.Unlock()
	f.replicas[i].proxy.ServeHTTP(rec, r)
}

// pin sends every request to replica i from now on; -1 alternates again.
func (f *flFleet) pin(i int) {
	f.mu.Lock()
	f.pinned = i
	f.mu.Unlock()
}

// last is the last request of method the load balancer routed.
func (f *flFleet) last(method string) (flServed, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.served) - 1; i >= 0; i-- {
		if f.served[i].method == method {
			return f.served[i], true
		}
	}
	return flServed{}, false
}

// String is the routing so far and both replicas' logs, for failures.
func (f *flFleet) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b strings.Builder
	b.WriteString("routed:")
	for _, s := range f.served {
		fmt.Fprintf(&b, " %s(%s)->%c:%d", s.method, s.name, 'A'+s.replica, s.status)
	}
	for i, p := range f.replicas {
		fmt.Fprintf(&b, "\nreplica %c log:\n%s", 'A'+i, p.logs)
	}
	return b.String()
}

// flRecorder passes a response through and keeps its status and headers
// in the fleet's record of the request.
type flRecorder struct {
	http.ResponseWriter
	fleet  *flFleet
	index  int
	status int
}

func (r *flRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
		r.fleet.mu.Lock()
		r.fleet.served[r.index].status, r.fleet.served[r.index].header = code, r.ResponseWriter.Header().Clone()
		r.fleet.mu.Unlock()
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *flRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	return r.ResponseWriter.Write(b)
}

func (r *flRecorder) Flush() {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	if fl, ok := r.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}

func (r *flRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// flSeen is what an upstream received: every POST's headers and body.
type flSeen struct {
	mu       sync.Mutex
	requests []flRequest
}

type flRequest struct {
	header http.Header
	body   string
}

// record wraps an upstream handler so that it keeps what it received.
func (s *flSeen) record(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.requests = append(s.requests, flRequest{r.Header.Clone(), string(body)})
		s.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	})
}

// lastWith is the last request whose body contains s.
func (s *flSeen) lastWith(sub string) (flRequest, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.requests) - 1; i >= 0; i-- {
		if strings.Contains(s.requests[i].body, sub) {
			return s.requests[i], true
		}
	}
	return flRequest{}, false
}

// contains reports whether any request the upstream received holds sub,
// in a header or the body.
func (s *flSeen) contains(sub string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.requests {
		if strings.Contains(r.body, sub) {
			return true
		}
		for _, vs := range r.header {
			for _, v := range vs {
				if strings.Contains(v, sub) {
					return true
				}
			}
		}
	}
	return false
}
