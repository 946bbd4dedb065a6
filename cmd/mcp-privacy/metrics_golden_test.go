package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/cloudg/mcp-privacy/internal/wasmhost"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of the plugin's metrics")

// The metrics the compiled plugin defines when Envoy configures it with
// envoy/envoy.yaml, as serve's admin listener shows them: /stats and
// /stats/prometheus. The files are the contract with envoy/observability,
// whose tests check that every metric the dashboard and the alert rules
// name is among them, and that the stats_tags of the shipped Envoy
// configurations give exactly these Prometheus names and labels. Rewrite
// them with `go test ./cmd/mcp-privacy -run TestPluginMetricsGolden -update`.
func TestPluginMetricsGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin")
	}
	wasm, err := os.ReadFile(stBuildPlugin(t))
	if err != nil {
		t.Fatal(err)
	}
	envelope := envoyYAMLEnvelope(t, "../../envoy/envoy.yaml")
	ctx := context.Background()
	h, err := wasmhost.New(ctx, wasmhost.Options{Wasm: wasm, PluginConfig: envelope,
		PluginName: "mcp-privacy", RootID: "mcp-privacy", VMID: "mcp-privacy",
		Env: map[string]string{"CLOUDG_MCP_VAULT_KEY": "golden test key, not secret"}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	ms := h.Metrics()
	if len(ms) == 0 {
		t.Fatal("the plugin defined no metrics")
	}
	var stats, prom bytes.Buffer
	writeStats(&stats, ms, nil, false)
	writePrometheus(&prom, ms)
	dir := filepath.Join("..", "..", "envoy", "observability", "testdata")
	for name, got := range map[string][]byte{"plugin-stats.txt": stats.Bytes(), "plugin-metrics.prom": prom.Bytes()} {
		path := filepath.Join(dir, name)
		if *updateGolden {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what the plugin defines; rerun with -update and check the dashboard and rules (cd envoy && go test ./observability/)", path)
		}
	}
}

// envoyYAMLEnvelope returns the plugin configuration of an Envoy bootstrap:
// the value of the wasm filter's configuration.
func envoyYAMLEnvelope(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var found []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if c, ok := v["configuration"].(map[string]any); ok {
				if s, ok := c["value"].(string); ok && strings.HasPrefix(strings.TrimSpace(s), "{") {
					found = append(found, s)
				}
			}
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(doc)
	if len(found) != 1 {
		t.Fatalf("%s: %d plugin configurations, want 1", path, len(found))
	}
	return []byte(found[0])
}
