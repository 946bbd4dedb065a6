package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A stream neither side ends (a client's GET event stream) does not keep
// serve from stopping: after the grace period its connection is closed,
// and serve exits 0. Regression: serve waited 5 s, then exited 1 with
// "context deadline exceeded".
func TestServeStopsWithStreamsOpen(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin")
	}
	wasm := stBuildPlugin(t)
	policyFile := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(policyFile, []byte(`
policy: {name: streams, extends: standard}
identity: {principal: [{header: x-mcp-principal}]}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(": open\n\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the server never ends the stream
	}))
	defer up.Close()
	a := startServe(t, "--policy", policyFile, "--upstream", up.URL, "--listen", "127.0.0.1:0", "--wasm", wasm)

	req, _ := http.NewRequest("GET", "http://"+a.listen+"/mcp", nil)
	req.Header.Set("accept", "text/event-stream")
	req.Header.Set("x-mcp-principal", "alice")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET stream: %s", resp.Status)
	}
	if c := a.stop(); c != 0 {
		t.Fatalf("serve exited %d with a stream open:\n%s", c, a.stderr)
	}
	if !strings.Contains(a.stderr.String(), "closing the connections still open") {
		t.Errorf("stderr does not say the stream was closed:\n%s", a.stderr)
	}
}
