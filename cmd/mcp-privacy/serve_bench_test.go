package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/demo"
)

// BenchmarkServeVsDirect: requests per second of the same MCP calls sent
// straight to the demo server (go-sdk, stateful, JSON responses) and
// through `mcp-privacy serve` in front of it (the plugin in wazero, two
// worker VMs, the standard profile: results pseudonymised and redacted).
// One client, one request at a time over a kept-alive connection per
// target, in one session each; every op sends the call once to each,
// alternating which goes first, and times each. Reported: direct-req/s,
// serve-req/s and serve/direct, the share of the direct rate that serve
// keeps (ns/op is the sum of both requests).
//
//	go test ./cmd/mcp-privacy/ -run '^$' -bench ServeVsDirect -benchtime 3s -count 3
//
// Client, server and serve share the machine's CPUs, as they would on a
// developer's laptop; serve runs the plugin in wazero, which is slower than
// Envoy's V8 (docs/BENCHMARKS.md), so this is serve's figure, not Envoy's.
func BenchmarkServeVsDirect(b *testing.B) {
	if testing.Short() {
		b.Skip("builds the plugin")
	}
	up := httptest.NewServer(demo.Handler(true))
	defer up.Close()
	policyFile := filepath.Join(b.TempDir(), "policy.json")
	if err := os.WriteFile(policyFile, []byte(`{
  "policy": {"name": "bench", "extends": "standard", "allow_tools": ["*"], "vault": {"key": "benchmark key, not a secret"}},
  "identity": {"principal": [{"header": "x-mcp-principal"}]}
}`), 0o600); err != nil {
		b.Fatal(err)
	}
	s := startServe(b, "--policy", policyFile, "--upstream", up.URL, "--listen", "127.0.0.1:0", "--wasm", stBuildPlugin(b))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}, Timeout: 30 * time.Second}
	direct := sbSession(b, client, up.URL+"/mcp")
	served := sbSession(b, client, "http://"+s.listen+"/mcp")

	calls := []struct {
		name, body string
		// direct and served: what the answer must hold, straight and
		// through serve (checked once before the loop).
		direct, served, notServed string
	}{
		{"tools_call", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_customers","arguments":{"query":"alice"}}}`,
			"alice.martin@example.com", "EMAIL_", "alice.martin@example.com"},
		{"tools_list", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
			`"search_customers"`, `"search_customers"`, "\x00"},
	}
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			if out := direct.post(b, c.body); !strings.Contains(out, c.direct) {
				b.Fatalf("directly: %s", out)
			}
			if out := served.post(b, c.body); !strings.Contains(out, c.served) || strings.Contains(out, c.notServed) {
				b.Fatalf("through serve: %s\n%s", out, s.stderr)
			}
			var tDirect, tServed time.Duration
			i := 0
			for b.Loop() {
				first, second, t1, t2 := direct, served, &tDirect, &tServed
				if i%2 == 1 {
					first, second, t1, t2 = served, direct, &tServed, &tDirect
				}
				i++
				start := time.Now()
				first.post(b, c.body)
				mid := time.Now()
				second.post(b, c.body)
				*t1 += mid.Sub(start)
				*t2 += time.Since(mid)
			}
			b.ReportMetric(float64(i)/tDirect.Seconds(), "direct-req/s")
			b.ReportMetric(float64(i)/tServed.Seconds(), "serve-req/s")
			b.ReportMetric(tDirect.Seconds()/tServed.Seconds(), "serve/direct")
		})
	}
}

// sbTarget is one MCP session at an endpoint.
type sbTarget struct {
	client   *http.Client
	endpoint string
	session  string
}

// sbSession initializes a session at endpoint as alice.
func sbSession(b *testing.B, client *http.Client, endpoint string) *sbTarget {
	t := &sbTarget{client: client, endpoint: endpoint}
	header, _ := t.do(b, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"v1"}}}`)
	t.session = header.Get("Mcp-Session-Id")
	if t.session == "" {
		b.Fatalf("%s: no session", endpoint)
	}
	t.do(b, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return t
}

// post sends one request of the session and returns the answer's body.
func (t *sbTarget) post(b *testing.B, body string) string {
	_, out := t.do(b, body)
	return out
}

// do sends one request and reads the whole answer; anything but a 2xx
// ends the benchmark.
func (t *sbTarget) do(b *testing.B, body string) (http.Header, string) {
	req, err := http.NewRequest("POST", t.endpoint, strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-Mcp-Principal", "alice")
	if t.session != "" {
		req.Header.Set("Mcp-Session-Id", t.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	res, err := t.client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	var out bytes.Buffer
	_, err = io.Copy(&out, res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode/100 != 2 {
		b.Fatalf("%s: %d %v: %s", t.endpoint, res.StatusCode, err, out.String())
	}
	return res.Header, out.String()
}
