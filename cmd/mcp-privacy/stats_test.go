package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/demo"
	"github.com/cloudg/mcp-privacy/internal/wasmhost"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stGet fetches a URL and returns its body.
func stGet(t *testing.T, h http.Handler, target string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
	return rec.Code, rec.Body.String()
}

func TestStatsHandler(t *testing.T) {
	ms := map[string]wasmhost.Metric{
		"mcp_privacy.requests.method.tools_call.decision.allowed": {Type: wasmhost.MetricCounter, Value: 3},
		"mcp_privacy.requests.method.tools_call.decision.denied":  {Type: wasmhost.MetricCounter, Value: 1},
		"mcp_privacy.requests.method.ping.decision.allowed":       {Type: wasmhost.MetricCounter, Value: 0},
		"mcp_privacy.detections.label.EMAIL":                      {Type: wasmhost.MetricCounter, Value: 2},
		"mcp_privacy.pseudonyms.issued":                           {Type: wasmhost.MetricCounter, Value: 2},
		"mcp_privacy.errors.kind.parse_error":                     {Type: wasmhost.MetricCounter, Value: 0},
	}
	h := statsHandler(func() map[string]wasmhost.Metric { return ms })

	code, body := stGet(t, h, "/stats")
	want := `wasmcustom.mcp_privacy.detections.label.EMAIL: 2
wasmcustom.mcp_privacy.errors.kind.parse_error: 0
wasmcustom.mcp_privacy.pseudonyms.issued: 2
wasmcustom.mcp_privacy.requests.method.ping.decision.allowed: 0
wasmcustom.mcp_privacy.requests.method.tools_call.decision.allowed: 3
wasmcustom.mcp_privacy.requests.method.tools_call.decision.denied: 1
`
	if code != 200 || body != want {
		t.Errorf("/stats %d:\n%s\nwant\n%s", code, body, want)
	}
	if _, body = stGet(t, h, "/stats?usedonly&filter=requests"); body != `wasmcustom.mcp_privacy.requests.method.tools_call.decision.allowed: 3
wasmcustom.mcp_privacy.requests.method.tools_call.decision.denied: 1
` {
		t.Errorf("/stats?usedonly&filter=requests:\n%s", body)
	}
	if code, _ = stGet(t, h, "/stats?filter=("); code != 400 {
		t.Errorf("bad filter: %d", code)
	}
	_, body = stGet(t, h, "/stats/prometheus")
	want = `# TYPE mcp_privacy_detections counter
mcp_privacy_detections{mcp_label="EMAIL"} 2
# TYPE mcp_privacy_errors counter
mcp_privacy_errors{mcp_error="parse_error"} 0
# TYPE mcp_privacy_pseudonyms_issued counter
mcp_privacy_pseudonyms_issued 2
# TYPE mcp_privacy_requests counter
mcp_privacy_requests{mcp_decision="allowed",mcp_method="ping"} 0
mcp_privacy_requests{mcp_decision="allowed",mcp_method="tools_call"} 3
mcp_privacy_requests{mcp_decision="denied",mcp_method="tools_call"} 1
`
	if body != want {
		t.Errorf("/stats/prometheus:\n%s\nwant\n%s", body, want)
	}
}

// The tags serve applies are the stats_tags docs/METRICS.md gives Envoy.
func TestStatsTagsAreTheDocumentedOnes(t *testing.T) {
	doc, err := os.ReadFile("../../docs/METRICS.md")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^\s*- tag_name: (\S+)\n\s*regex: '([^']+)'`)
	found := re.FindAllStringSubmatch(string(doc), -1)
	if len(found) != len(statsTags) {
		t.Fatalf("docs/METRICS.md has %d stats_tags, serve %d", len(found), len(statsTags))
	}
	for i, m := range found {
		if statsTags[i].name != m[1] || statsTags[i].re.String() != m[2] {
			t.Errorf("stats_tags[%d]: serve %s %s, docs %s %s", i, statsTags[i].name, statsTags[i].re, m[1], m[2])
		}
	}
}

// lockedBuffer is a goroutine-safe writer (serve's log).
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// stBuildPlugin builds the plugin with scripts/build-wasm.sh into
// build/mcp-privacy-cmdtest.wasm, once per test binary.
func stBuildPlugin(t testing.TB) string {
	t.Helper()
	stBuild.Do(func() {
		root, err := filepath.Abs("../..")
		if err != nil {
			stBuildErr = err
			return
		}
		stBuildPath = filepath.Join(root, "build", "mcp-privacy-cmdtest.wasm")
		cmd := exec.Command("bash", filepath.Join(root, "scripts", "build-wasm.sh"), stBuildPath)
		cmd.Dir = root
		for _, kv := range os.Environ() {
			if k, _, _ := strings.Cut(kv, "="); k != "GOFLAGS" && k != "GOOS" && k != "GOARCH" && k != "GOWORK" {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		if b, err := cmd.CombinedOutput(); err != nil {
			stBuildErr = fmt.Errorf("building the plugin: %v\n%s", err, b)
		}
	})
	if stBuildErr != nil {
		t.Fatal(stBuildErr)
	}
	return stBuildPath
}

// stBuild builds the plugin once for all tests of this binary.
var (
	stBuild     sync.Once
	stBuildPath string
	stBuildErr  error
)

// serve shows the plugin's counters on its admin listener while it runs,
// and those in use in its log at shutdown, after a scripted session.
func TestServeShowsMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin")
	}
	wasm := stBuildPlugin(t)
	dir := writeFiles(t, map[string]string{"policy.yaml": `
policy:
  name: served
  deny_tools: ["delete_*"]
  audit: true
identity:
  principal: [{header: x-mcp-principal}]
`})
	up := httptest.NewServer(demo.Handler(false))
	defer up.Close()

	a := startServe(t, "--policy", filepath.Join(dir, "policy.yaml"), "--upstream", up.URL,
		"--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--wasm", wasm, "--workers", "2")
	defer a.stop()
	stderr := a.stderr

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "stats-test", Version: "v1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + a.listen + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
		t.Fatalf("echo: %v", err)
	}
	var wire *jsonrpc.Error
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_customer", Arguments: map[string]any{"id": "c-1"}}); !errors.As(err, &wire) || wire.Code != -32602 {
		t.Fatalf("delete_customer: %v", err)
	}
	cs.Close()

	res, err := http.Get("http://" + a.admin + "/stats?usedonly")
	if err != nil {
		t.Fatal(err)
	}
	stats, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, line := range []string{
		"wasmcustom.mcp_privacy.requests.method.initialize.decision.allowed: 1",
		"wasmcustom.mcp_privacy.requests.method.tools_call.decision.allowed: 1",
		"wasmcustom.mcp_privacy.requests.method.tools_call.decision.denied: 1",
	} {
		if !strings.Contains(string(stats), line+"\n") {
			t.Errorf("/stats?usedonly lacks %q:\n%s", line, stats)
		}
	}
	res, err = http.Get("http://" + a.admin + "/stats/prometheus")
	if err != nil {
		t.Fatal(err)
	}
	prom, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(prom), `mcp_privacy_requests{mcp_decision="denied",mcp_method="tools_call"} 1`+"\n") {
		t.Errorf("/stats/prometheus:\n%s", prom)
	}

	if c := a.stop(); c != 0 {
		t.Errorf("serve exited %d", c)
	}
	log := stderr.String()
	if !strings.Contains(log, "mcp-privacy serve: metrics at http://"+a.admin+"/stats") ||
		!strings.Contains(log, "stats at shutdown:\nwasmcustom.mcp_privacy.") ||
		!strings.Contains(log, "wasmcustom.mcp_privacy.requests.method.tools_call.decision.denied: 1\n") {
		t.Errorf("serve's log:\n%s", log)
	}
	if !strings.Contains(log, `cloudg.mcp.audit {`) {
		t.Errorf("no audit line in serve's log:\n%s", log)
	}
}

// served is a running `mcp-privacy serve` (in this process).
type served struct {
	listen, admin string
	stderr        *lockedBuffer
	stop          func() int // stops it as a signal would; its exit code
}

// startServe runs serve with args until the test stops it (or ends).
func startServe(t testing.TB, args ...string) *served {
	t.Helper()
	type addrs struct {
		listen, admin string
		stop          func()
	}
	started := make(chan addrs, 1)
	serveStarted = func(listen, admin string, stop func()) { started <- addrs{listen, admin, stop} }
	defer func() { serveStarted = nil }()
	stderr := &lockedBuffer{}
	code := make(chan int, 1)
	go func() { code <- serve(args, io.Discard, stderr) }()
	var a addrs
	select {
	case a = <-started:
	case c := <-code:
		t.Fatalf("serve exited %d:\n%s", c, stderr)
	case <-time.After(60 * time.Second):
		t.Fatalf("serve did not start:\n%s", stderr)
	}
	var once sync.Once
	exit := -1
	s := &served{listen: a.listen, admin: a.admin, stderr: stderr}
	s.stop = func() int {
		once.Do(func() {
			a.stop()
			select {
			case exit = <-code:
			case <-time.After(30 * time.Second):
				t.Error("serve did not stop")
			}
		})
		return exit
	}
	t.Cleanup(func() { s.stop() })
	return s
}
