package main

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/demo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeHigressRoutes: under serve --host higress, a configuration with
// a global policy and two route rules gives each route its own decisions:
// the route comes from --route (the request's path), as Higress's router
// names it, and the plugin picks the rule from route_name.
func TestServeHigressRoutes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin")
	}
	wasm := stBuildPlugin(t)
	dir := t.TempDir()
	policyFile := filepath.Join(dir, "higress.yaml")
	// A Higress WasmPlugin: serve injects it as Higress's controller does.
	if err := os.WriteFile(policyFile, []byte(`apiVersion: extensions.higress.io/v1alpha1
kind: WasmPlugin
metadata: {name: mcp-privacy, namespace: higress-system}
spec:
  defaultConfig:
    policy: {name: global, extends: permissive}
    gateway: {paths: ["/mcp", "/mcp/*"]}
  matchRules:
  - ingress: [mcp-a]
    config:
      policy: {name: route-a, extends: permissive, deny_tools: [get_customer]}
      gateway: {paths: ["/mcp/*"]}
  - ingress: [mcp-b]
    config:
      policy: {name: route-b, extends: permissive, deny_tools: [echo]}
      gateway: {paths: ["/mcp/*"]}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(demo.Handler(false))
	defer up.Close()
	a := startServe(t, "--policy", policyFile, "--upstream", up.URL, "--listen", "127.0.0.1:0",
		"--wasm", wasm, "--workers", "2", "--host", "higress", "--route", "mcp-a=/mcp/a", "--route", "mcp-b=/mcp/b")

	// allowed reports whether a tool is callable through one path.
	allowed := func(path, tool string, args map[string]any) bool {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		client := mcp.NewClient(&mcp.Implementation{Name: "higress-test", Version: "v1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + a.listen + path, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatalf("connect %s: %v\n%s", path, err, a.stderr)
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		return err == nil && !res.IsError
	}
	customer, echo := map[string]any{"id": "c-1"}, map[string]any{"text": "hi"}
	for _, c := range []struct {
		path, tool string
		args       map[string]any
		want       bool
	}{
		{"/mcp", "get_customer", customer, true},
		{"/mcp", "echo", echo, true},
		{"/mcp/a", "get_customer", customer, false},
		{"/mcp/a", "echo", echo, true},
		{"/mcp/b", "get_customer", customer, true},
		{"/mcp/b", "echo", echo, false},
	} {
		if got := allowed(c.path, c.tool, c.args); got != c.want {
			t.Errorf("%s %s: allowed %v, want %v\n%s", c.path, c.tool, got, c.want, a.stderr)
		}
	}
	if log := a.stderr.String(); !strings.Contains(log, `_rules_[1], route "mcp-b": policy "route-b"`) {
		t.Errorf("serve's log lacks the rules:\n%s", log)
	}
}

func TestServeHostFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--host", "nginx"}, `--host "nginx": want one of envoy, envoy-1.34, higress, ngx-wasm`},
		{[]string{"--route", "a=/x"}, "add --host higress"},
		{[]string{"--host", "higress", "--route", "a"}, "want NAME=[HOST]/PATH-PREFIX"},
	} {
		code, _, errOut := runCLI(append([]string{"serve", "--policy", "p.yaml", "--upstream", "http://127.0.0.1:1"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errOut, c.want)
		}
	}
}

// An Envoy without allow_on_headers_stop_iteration would hang every POST
// under hold_headers: serve refuses the combination at once (the plugin
// cannot tell that Envoy from a later one). ngx-wasm takes it: the plugin
// detects the host and nginx holds the request itself.
func TestServeRefusesHoldHeadersWithoutStopIteration(t *testing.T) {
	dir := t.TempDir()
	policyFile := filepath.Join(dir, "hold.yaml")
	if err := os.WriteFile(policyFile, []byte("policy: standard\ngateway: {hold_headers: true}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		host    string
		refused bool
	}{{"envoy-1.34", true}, {"envoy", false}, {"ngx-wasm", false}} {
		code, _, errOut := runCLI("serve", "--policy", policyFile, "--upstream", "http://127.0.0.1:1", "--host", c.host, "--wasm", filepath.Join(dir, "missing.wasm"))
		refused := strings.Contains(errOut, "allow_on_headers_stop_iteration")
		if refused != c.refused || code != 1 {
			t.Errorf("--host %s: exit %d, refused %v, want %v: %s", c.host, code, refused, c.refused, errOut)
		}
	}
}
