package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/wasmtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sfPost sends one JSON-RPC body to serve and returns the status and body.
func sfPost(t *testing.T, url string, headers map[string]string, body string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	return res.StatusCode, string(b)
}

// Issue 27, item 4: under serve a VM that traps is replaced, as Envoy's
// FAIL_RELOAD replaces it. The test-hook build traps the VM on a marker
// header: that request gets the fail-closed 503; the next one (after the
// back-off) is served by a new VM on the same (single) worker; and a
// pseudonym issued before the trap still restores after it, since the
// vault, the session and the catalog live in shared data.
func TestServeReloadsATrappedVM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin")
	}
	dir := t.TempDir()
	wasm := filepath.Join(dir, "hooks.wasm")
	if err := os.WriteFile(wasm, wasmtest.PluginWithTestHooks(t), 0o600); err != nil {
		t.Fatal(err)
	}
	policyFile := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policyFile, []byte(`
policy:
  name: served
  extends: standard
  vault: {key_env: SERVE_RELOAD_TEST_KEY}
identity:
  principal: [{header: x-mcp-principal}]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SERVE_RELOAD_TEST_KEY", "serve reload test key")

	up := newRecordingDemo(t)

	a := startServe(t, "--policy", policyFile, "--upstream", up.URL, "--listen", "127.0.0.1:0",
		"--wasm", wasm, "--workers", "1")
	defer a.stop()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "reload-test", Version: "v1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + a.listen + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, a.stderr)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_customer", Arguments: map[string]any{"id": "c-1"}})
	if err != nil {
		t.Fatalf("get_customer: %v", err)
	}
	record, _ := res.StructuredContent.(map[string]any)
	email, _ := record["email"].(string)
	if !strings.HasPrefix(email, "EMAIL_") {
		raw, _ := json.Marshal(record)
		t.Fatalf("no pseudonym: %s", raw)
	}

	// The trap: the request fails closed, and nothing of it goes upstream.
	status, body := sfPost(t, "http://"+a.listen+"/mcp", map[string]string{
		"x-mcp-privacy-test-trap": "request_body",
		"mcp-session-id":          cs.ID(),
		"mcp-protocol-version":    cs.InitializeResult().ProtocolVersion,
	}, `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"echo","arguments":{"text":"trap-marker"}}}`)
	if status != http.StatusServiceUnavailable {
		t.Fatalf("the trapping request: HTTP %d %q, want the fail-closed 503\n%s", status, body, a.stderr)
	}
	if !strings.Contains(a.stderr.String(), "VM 0 failed") {
		t.Fatalf("no trap logged:\n%s", a.stderr)
	}
	if b := up.last("trap-marker"); b != "" {
		t.Errorf("the trapping request reached the server: %s", b)
	}

	// The next request, once the back-off since the VM's load has passed
	// (at most 1.5 times the base interval), gets a new VM, which restores
	// the pseudonym the old one issued.
	time.Sleep(envoyReloadBackoff * 3 / 2)
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "write to " + email}})
	if err != nil || res.IsError {
		t.Fatalf("echo after the trap: %v %+v\n%s", err, res, a.stderr)
	}
	if !strings.Contains(a.stderr.String(), "failed VM reloaded") {
		t.Errorf("no reload logged:\n%s", a.stderr)
	}
	last := up.last(`"echo"`)
	if !strings.Contains(last, "write to alice.martin@example.com") {
		t.Errorf("after the reload the server received %s", last)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; text != "write to "+email {
		t.Errorf("the echo came back as %q, want the pseudonym again", text)
	}
}

// Issue 27, item 5, through serve: an upstream that answers a tools/call
// with a malformed event and closes the stream; the client gets a -32603
// error event for the call's id before the stream ends (it waited until
// its own timeout before).
func TestServeAnswersAMalformedEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin")
	}
	wasm := stBuildPlugin(t)
	dir := t.TempDir()
	policyFile := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policyFile, []byte("policy:\n  name: served\n  allow_tools: [\"*\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("content-type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
		_, _ = io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[\n\n")
	}))
	defer up.Close()
	a := startServe(t, "--policy", policyFile, "--upstream", up.URL, "--listen", "127.0.0.1:0", "--wasm", wasm)
	defer a.stop()
	for _, id := range []string{"7", `"call-7"`} {
		status, body := sfPost(t, "http://"+a.listen+"/mcp", nil,
			`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"search","arguments":{}}}`)
		if status != http.StatusOK {
			t.Fatalf("HTTP %d %q", status, body)
		}
		var answers []map[string]any
		for _, l := range strings.Split(body, "\n") {
			if d, ok := strings.CutPrefix(l, "data: "); ok {
				var m map[string]any
				if err := json.Unmarshal([]byte(d), &m); err != nil {
					t.Fatalf("event data %q: %v", d, err)
				}
				answers = append(answers, m)
			}
		}
		if len(answers) != 2 {
			t.Fatalf("id %s: events %q, want the progress notification and an error", id, body)
		}
		got, _ := json.Marshal(answers[1]["id"])
		e, _ := answers[1]["error"].(map[string]any)
		if string(got) != id || e["code"] != float64(-32603) || !strings.Contains(e["message"].(string), "withheld a server event") {
			t.Errorf("id %s: last event %v, want a -32603 error for the call", id, answers[1])
		}
	}
}

// serve's FAIL_RELOAD back-off is envoy/envoy.yaml's.
func TestServeReloadBackoffIsEnvoyYAMLs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "envoy", "envoy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*base_interval:\s*(\S+)\s*(#.*)?$`).FindAllSubmatch(b, -1)
	if len(m) != 1 {
		t.Fatalf("envoy/envoy.yaml: %d base_interval settings, want 1", len(m))
	}
	if d, err := time.ParseDuration(string(m[0][1])); err != nil || d != envoyReloadBackoff {
		t.Fatalf("envoy/envoy.yaml reloads after %s, serve after %v", m[0][1], envoyReloadBackoff)
	}
}
