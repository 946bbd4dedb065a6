package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/policy"
)

// serve buffers what envoy/envoy.yaml's Envoy buffers.
func TestServeBufferLimitIsEnvoyYAMLs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "envoy", "envoy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*per_connection_buffer_limit_bytes:\s*(\d+)\s*(#.*)?$`).FindAllSubmatch(b, -1)
	if len(m) != 1 {
		t.Fatalf("envoy/envoy.yaml: %d per_connection_buffer_limit_bytes settings, want 1", len(m))
	}
	if n, _ := strconv.Atoi(string(m[0][1])); n != envoyBufferLimit {
		t.Fatalf("envoy/envoy.yaml buffers %d bytes, serve %d", n, envoyBufferLimit)
	}
	// And it leaves room for what the plugin buffers by default.
	env, errs := policy.ParseEnvelope([]byte(`{"policy": "standard"}`), policy.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if m := max(env.Gateway.MaxRequestBytes, env.Gateway.MaxResponseBytes); envoyBufferLimit <= m {
		t.Fatalf("buffer limit %d, but the plugin buffers up to %d", envoyBufferLimit, m)
	}
}

// A JSON answer larger than Envoy's default buffer (1 MiB) but within
// gateway.max_response_bytes comes out of serve transformed; one over
// max_response_bytes gets the plugin's fail-closed error, not a reset.
// Regression: serve kept the harness's 1 MiB limit and reset both.
func TestServeLargeJSONAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin")
	}
	wasm := stBuildPlugin(t)
	policyFile := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(policyFile, []byte("policy: {name: big, extends: standard}\nidentity: {principal: [{header: x-mcp-principal}]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The upstream answers a call with a text of the size it asks for,
	// holding an email address.
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			ID     json.RawMessage
			Params struct {
				Arguments struct{ Size int }
			}
		}
		if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		text := "write to alice@example.com " + strings.Repeat("x", msg.Params.Arguments.Size)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"content":[{"type":"text","text":"`+text+`"}]}}`)
	}))
	defer up.Close()
	a := startServe(t, "--policy", policyFile, "--upstream", up.URL, "--listen", "127.0.0.1:0", "--wasm", wasm)

	const maxResponse = 16 << 20 // gateway.max_response_bytes' default
	tests := []struct {
		name      string
		size      int
		want      []string
		wantLarge bool // the answer keeps its size
	}{
		{"above 1 MiB", 1<<20 + 100<<10, []string{`"id":1,"result"`, "write to EMAIL_"}, true},
		{"above max_response_bytes", maxResponse + 64<<10,
			[]string{`"id":1,"error":{"code":-32603`, "exceeds gateway.max_response_bytes"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", "http://"+a.listen+"/mcp", strings.NewReader(
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{"size":`+strconv.Itoa(tt.size)+`}}}`))
			req.Header.Set("content-type", "application/json")
			req.Header.Set("accept", "application/json, text/event-stream")
			req.Header.Set("x-mcp-principal", "alice")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil {
				t.Fatalf("the answer broke off after %d bytes: %v\n%s", len(b), err, a.stderr)
			}
			body := string(b)
			if res.StatusCode != 200 || strings.Contains(body, "alice@example.com") || (len(b) > tt.size) != tt.wantLarge {
				t.Fatalf("HTTP %d, %d bytes: %.300s", res.StatusCode, len(b), body)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("answer %.300s lacks %s", body, w)
				}
			}
		})
	}
}

// A policy that buffers more than envoy/envoy.yaml's Envoy would is
// served, with a warning that an Envoy needs a larger buffer for it.
func TestServeWarnsAboveBufferLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin")
	}
	wasm := stBuildPlugin(t)
	dir := t.TempDir()
	for _, tt := range []struct {
		maxResponse int
		warn        bool
	}{{16 << 20, false}, {envoyBufferLimit, true}, {32 << 20, true}} {
		policyFile := filepath.Join(dir, "policy-"+strconv.Itoa(tt.maxResponse)+".yaml")
		if err := os.WriteFile(policyFile, []byte("policy: {name: big, extends: standard}\ngateway: {max_response_bytes: "+strconv.Itoa(tt.maxResponse)+"}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		a := startServe(t, "--policy", policyFile, "--upstream", "http://127.0.0.1:9", "--listen", "127.0.0.1:0", "--wasm", wasm)
		a.stop()
		if got := strings.Contains(a.stderr.String(), "per_connection_buffer_limit_bytes"); got != tt.warn {
			t.Errorf("max_response_bytes %d: warned %v, want %v:\n%s", tt.maxResponse, got, tt.warn, a.stderr)
		}
	}
}
