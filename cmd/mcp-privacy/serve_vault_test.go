package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/demo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A pseudonym issued by one `serve` still resolves after a restart with
// the same key and vault.path: serve saves the vault at shutdown and
// loads it before the first request.
func TestServeKeepsTheVaultAcrossRestarts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin")
	}
	wasm := stBuildPlugin(t)
	dir := t.TempDir()
	policyFile := filepath.Join(dir, "policy.yaml")
	vaultFile := filepath.Join(dir, "vault.json")
	if err := os.WriteFile(policyFile, []byte(`
policy:
  name: served
  extends: standard
  vault: {key_env: SERVE_VAULT_TEST_KEY, path: `+strconv.Quote(vaultFile)+`}
identity:
  principal: [{header: x-mcp-principal}]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SERVE_VAULT_TEST_KEY", "serve restart test key")

	up := newRecordingDemo(t)

	// run starts serve, makes one tools/call, stops serve and returns the
	// call's structuredContent and text.
	run := func(name string, args map[string]any) (map[string]any, string) {
		t.Helper()
		a := startServe(t, "--policy", policyFile, "--upstream", up.URL, "--listen", "127.0.0.1:0",
			"--wasm", wasm, "--workers", "2")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		client := mcp.NewClient(&mcp.Implementation{Name: "vault-test", Version: "v1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + a.listen + "/mcp", MaxRetries: -1}, nil)
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, a.stderr)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cs.Close()
		if c := a.stop(); c != 0 {
			t.Fatalf("serve exited %d:\n%s", c, a.stderr)
		}
		sc, _ := res.StructuredContent.(map[string]any)
		text := ""
		if len(res.Content) > 0 {
			text = res.Content[0].(*mcp.TextContent).Text
		}
		return sc, text
	}

	record, _ := run("get_customer", map[string]any{"id": "c-1"})
	email, _ := record["email"].(string)
	if !strings.HasPrefix(email, "EMAIL_") {
		raw, _ := json.Marshal(record)
		t.Fatalf("no pseudonym: %s", raw)
	}
	if saved, err := os.ReadFile(vaultFile); err != nil || bytes.Contains(saved, []byte("alice.martin")) {
		t.Fatalf("no sealed vault file after the first run: %v\n%s", err, saved)
	}
	// Second process: the pseudonym goes back as an argument.
	_, text := run("echo", map[string]any{"text": "write to " + email})
	last := up.last(`"echo"`)
	if !strings.Contains(last, "write to alice.martin@example.com") {
		t.Errorf("after a restart the server received %s", last)
	}
	if text != "write to "+email {
		t.Errorf("the echo came back as %q, want the pseudonym again", text)
	}
}

// recordingDemo is the demo MCP server, keeping every request body it
// receives.
type recordingDemo struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newRecordingDemo(t *testing.T) *recordingDemo {
	d := &recordingDemo{}
	h := demo.Handler(false)
	d.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		d.mu.Lock()
		d.bodies = append(d.bodies, string(b))
		d.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(d.Close)
	return d
}

// last is the last body the server received that contains s, or "".
func (d *recordingDemo) last(s string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := len(d.bodies) - 1; i >= 0; i-- {
		if strings.Contains(d.bodies[i], s) {
			return d.bodies[i]
		}
	}
	return ""
}
