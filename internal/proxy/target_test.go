package proxy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// rawRequest sends a request line as written (no client normalises it)
// and returns the response.
func rawRequest(t *testing.T, addr, method, target string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: mcp.example\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", method, target)
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s %q: %v", method, target, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// Off the plugin's gateway paths, the upstream gets the request target
// byte for byte, however odd (before, the proxy parsed it as a URL: a
// backslash reached the upstream as %5C and non-ASCII bytes re-escaped);
// an absolute URL becomes its path, as in Envoy.
func TestRequestTargetForwardedVerbatim(t *testing.T) {
	up := echoUpstream(t)
	front := startProxy(t, up.URL, Options{})
	addr := strings.TrimPrefix(front.URL, "http://")
	for target, want := range map[string]string{
		"/api/items":           "/api/items",
		"/api/a\\b":            "/api/a\\b",
		"/api/caf\xc3\xa9":     "/api/caf\xc3\xa9",
		"/api/%C3%A9%00":       "/api/%C3%A9%00",
		"//api/x":              "//api/x",
		"//api/a\\b":           "", // cannot be written unchanged: refused, not altered
		"/api/./x/../y":        "/api/./x/../y",
		"/api/x?y=%2F&z=\\":    "/api/x?y=%2F&z=\\",
		"/api/x?":              "/api/x?",
		"/api/%41%7e":          "/api/%41%7e",
		"http://h.example/api": "/api",
		"http://h.example?q=1": "/?q=1",
	} {
		status, body := rawRequest(t, addr, "GET", target)
		if want == "" {
			if status < 500 || strings.Contains(body, `"URI"`) {
				t.Errorf("%q: %d %s, want it refused before the upstream", target, status, body)
			}
			continue
		}
		if status != 200 {
			t.Errorf("%q: %d %s", target, status, body)
			continue
		}
		var e echo
		if err := json.Unmarshal([]byte(body), &e); err != nil || e.URI != want {
			t.Errorf("%q reached the upstream as %q (%v), want %q", target, e.URI, err, want)
		}
	}
}

// Targets Envoy's connection manager refuses as envoy.yaml configures it
// (a fragment, an escaped slash or backslash, no path) are refused with 400
// on every path and never reach the upstream (before, /mcp#x reached it as
// /mcp).
func TestRequestTargetRefused(t *testing.T) {
	var mu sync.Mutex
	var hits []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, r.RequestURI)
		mu.Unlock()
	}))
	defer up.Close()
	front := startProxy(t, up.URL, Options{})
	addr := strings.TrimPrefix(front.URL, "http://")
	for _, target := range []string{"/mcp#x", "/mcp?a=1#x", "/api/x#y", "/mcp%2F", "/mcp%2f", "/api%2Fx", "/x%5Cy", "/x%5c..%5cmcp",
		"*", "http://h.example/mcp#x"} {
		for _, method := range []string{"POST", "GET", "OPTIONS"} {
			if target == "*" && method == "OPTIONS" {
				continue // Go's server answers OPTIONS * itself
			}
			if status, body := rawRequest(t, addr, method, target); status != 400 {
				t.Errorf("%s %q: %d %s, want 400", method, target, status, body)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(hits) > 0 {
		t.Errorf("the upstream was reached: %q", hits)
	}
}
