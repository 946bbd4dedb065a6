package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Acceptance of issue 27: under serve --host ngx-wasm (a host that does
// not hold bodies, in 4 KiB chunks) a 5 MiB tools/call result with an
// email in its last KiB reaches the client transformed, with a
// content-length (whose end the host never signals) and without.
func TestServeNgxWasmTransformsLargeResults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin")
	}
	wasm := stBuildPlugin(t)
	policyFile := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(policyFile, []byte("policy: {name: p, extends: standard, allow_tools: [lookup]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const email = "in.the.last.kib@example.com"
	result := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` +
		strings.Repeat("nothing to see ", 5<<20/15) + `write to ` + email + `"}]}}`
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("chunked") == "" {
			w.Header().Set("Content-Length", strconv.Itoa(len(result)))
		}
		_, _ = io.WriteString(w, result)
	}))
	defer up.Close()
	a := startServe(t, "--policy", policyFile, "--upstream", up.URL, "--listen", "127.0.0.1:0", "--wasm", wasm, "--host", "ngx-wasm")
	for _, query := range []string{"", "?chunked=1"} {
		req, _ := http.NewRequest("POST", "http://"+a.listen+"/mcp"+query,
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || strings.Contains(string(body), email) || !strings.Contains(string(body), "write to EMAIL_") ||
			strings.Count(string(body), `"jsonrpc"`) != 1 {
			t.Errorf("%q: HTTP %d, %d bytes, ends %q\n%s", query, res.StatusCode, len(body), body[max(0, len(body)-120):], a.stderr)
		}
	}
	if !strings.Contains(a.stderr.String(), "ngx_wasm_module detected") {
		t.Errorf("the plugin did not detect the host:\n%s", a.stderr)
	}
}
