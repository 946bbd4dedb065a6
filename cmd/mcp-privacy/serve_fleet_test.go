package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Two `serve` processes with the same vault key in front of one stateless
// go-sdk v1.8.0 server, clients at 2026-07-28 (issue 13: a fleet behind a
// plain load balancer). A pseudonym issued through one is restored
// through the other, which shares nothing with it but the key: under
// 2026-07-28 a policy with a configured key seals its pseudonyms.
func TestServeFleetRestoresTheOthersPseudonyms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin")
	}
	wasm := stBuildPlugin(t)
	policyFile := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(policyFile, []byte(`
policy:
  name: fleet
  allow_tools: ["*"]
  transforms: [{type: pseudonymise, options: {detectors: [email]}}]
  vault: {key_env: SERVE_FLEET_TEST_KEY}
identity:
  principal: [{header: x-mcp-principal}]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SERVE_FLEET_TEST_KEY", "serve fleet test key, not secret")

	var mu sync.Mutex
	var sentTo []string
	server := mcp.NewServer(&mcp.Implementation{Name: "contacts", Version: "v1"}, nil)
	type none struct{}
	mcp.AddTool(server, &mcp.Tool{Name: "lookup"}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "alice@example.com"}}}, nil, nil
	})
	type sendArgs struct {
		To string `json:"to"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "send"}, func(_ context.Context, _ *mcp.CallToolRequest, a sendArgs) (*mcp.CallToolResult, any, error) {
		mu.Lock()
		sentTo = append(sentTo, a.To)
		mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sent"}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true})
	var versions []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		versions = append(versions, r.Header.Get("Mcp-Protocol-Version"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer up.Close()

	args := []string{"--policy", policyFile, "--upstream", up.URL, "--listen", "127.0.0.1:0", "--wasm", wasm, "--workers", "1"}
	a, b := startServe(t, args...), startServe(t, args...)

	call := func(via *served, name string, args map[string]any) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		client := mcp.NewClient(&mcp.Implementation{Name: "fleet-test", Version: "v1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + via.listen + "/mcp",
			HTTPClient: &http.Client{Transport: principal("ann")}, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, via.stderr)
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || len(res.Content) == 0 {
			t.Fatalf("%s: %v %v", name, err, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}

	pseudonym := call(a, "lookup", map[string]any{})
	if !regexp.MustCompile(`^EMAIL_[A-Z2-7]{13,}$`).MatchString(pseudonym) {
		t.Fatalf("lookup through serve A: %q, want a sealed pseudonym", pseudonym)
	}
	call(b, "send", map[string]any{"to": pseudonym})
	mu.Lock()
	defer mu.Unlock()
	for _, v := range versions {
		if v != "2026-07-28" {
			t.Fatalf("the server got requests at %q, want every one at 2026-07-28: %q", v, versions)
		}
	}
	if len(sentTo) != 1 || sentTo[0] != "alice@example.com" {
		t.Errorf("through serve B the server got %q, want the address serve A pseudonymised", sentTo)
	}
}

// principal is a transport that names the caller in x-mcp-principal.
type principal string

func (p principal) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("x-mcp-principal", string(p))
	return http.DefaultTransport.RoundTrip(r)
}
