package main

import (
	"strings"
	"testing"

	"github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm"
	"github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm/proxytest"
	"github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm/types"
)

// These tests run the plugin natively against proxytest's host emulator:
// they check the seam (what main.go reads from and applies to the host).
// The same plugin compiled to .wasm is driven by e2e/ under wazero.

const testConfig = `{"policy": {"name": "t", "deny_tools": ["delete_*"]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]},
  "gateway": {"hold_headers": true, "export_headers": {"principal": "x-export-principal", "decision": "x-export-decision"}}}`

func startPlugin(t *testing.T, config string) (proxytest.HostEmulator, func()) {
	t.Helper()
	opt := proxytest.NewEmulatorOption().WithVMContext(&vmContext{}).WithPluginConfiguration([]byte(config))
	host, reset := proxytest.NewHostEmulator(opt)
	if got := host.StartVM(); got != types.OnVMStartStatusOK {
		t.Fatalf("StartVM = %v", got)
	}
	return host, reset
}

func TestConfiguration(t *testing.T) {
	tests := []struct {
		name, config string
		ok           bool
		wantLog      string
	}{
		{"valid envelope", testConfig, true, `policy "t" for server "default"`},
		{"profile name", `{"policy": "strict"}`, true, `policy "strict"`},
		{"invalid: every error logged", `{"policy": {"bogus": 1, "audit_size": -1}, "gateway": {"paths": 3}}`, false, `policy.bogus: unknown key "bogus"`},
		{"missing", ``, false, "no plugin configuration"},
		{"not JSON", `{policy`, false, "configuration rejected"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			host, reset := startPlugin(t, tc.config)
			defer reset()
			got := host.StartPlugin()
			if (got == types.OnPluginStartStatusOK) != tc.ok {
				t.Fatalf("StartPlugin = %v, want ok=%v; logs %q", got, tc.ok, host.GetErrorLogs())
			}
			logs := strings.Join(append(host.GetInfoLogs(), host.GetErrorLogs()...), "\n")
			if !strings.Contains(logs, tc.wantLog) {
				t.Errorf("logs %q lack %q", logs, tc.wantLog)
			}
			if tc.name == "invalid: every error logged" {
				for _, want := range []string{"policy.audit_size", "gateway.paths"} {
					if !strings.Contains(logs, want) {
						t.Errorf("logs lack %q:\n%s", want, logs)
					}
				}
			}
		})
	}
}

func TestStreams(t *testing.T) {
	host, reset := startPlugin(t, testConfig)
	defer reset()
	if host.StartPlugin() != types.OnPluginStartStatusOK {
		t.Fatal("plugin did not start")
	}
	headers := [][2]string{{":method", "POST"}, {":path", "/mcp"}, {"x-mcp-principal", "alice"},
		{"content-length", "80"}, {"accept-encoding", "gzip"}, {"x-export-decision", "allow"}}

	t.Run("allowed call forwarded as is", func(t *testing.T) {
		id := host.InitializeHttpContext()
		if a := host.CallOnRequestHeaders(id, headers, false); a != types.ActionPause {
			t.Fatalf("headers: %v, want Pause until the body is judged", a)
		}
		got := map[string]string{}
		for _, kv := range host.GetCurrentRequestHeaders(id) {
			got[kv[0]] = kv[1]
		}
		for _, gone := range []string{"content-length", "accept-encoding"} {
			if _, ok := got[gone]; ok {
				t.Errorf("%s not removed", gone)
			}
		}
		if got["x-export-decision"] == "allow" {
			t.Error("client-supplied export header kept")
		}
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search"}}`
		if a := host.CallOnRequestBody(id, []byte(body), true); a != types.ActionContinue {
			t.Fatalf("body: %v", a)
		}
		if string(host.GetCurrentRequestBody(id)) != body {
			t.Errorf("body changed: %s", host.GetCurrentRequestBody(id))
		}
		if host.GetSentLocalResponse(id) != nil {
			t.Error("local response for an allowed call")
		}
		exported := map[string]string{}
		for _, kv := range host.GetCurrentRequestHeaders(id) {
			exported[kv[0]] = kv[1]
		}
		if exported["x-export-principal"] != "alice" || exported["x-export-decision"] != "allow" {
			t.Errorf("export headers %v", exported)
		}
		host.CompleteHttpContext(id)
	})

	t.Run("refused call answered locally", func(t *testing.T) {
		id := host.InitializeHttpContext()
		host.CallOnRequestHeaders(id, headers, false)
		if a := host.CallOnRequestBody(id, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":""}}`), true); a != types.ActionPause {
			t.Fatalf("body: %v, want Pause (local reply)", a)
		}
		lr := host.GetSentLocalResponse(id)
		if lr == nil || lr.StatusCode != 200 || string(lr.Data) != `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: params.name must be a non-empty string"}}` {
			t.Fatalf("local response %+v", lr)
		}
		// Envoy sends the reply through our response callbacks: it passes.
		if a := host.CallOnResponseHeaders(id, [][2]string{{":status", "200"}, {"content-type", "application/json"}}, false); a != types.ActionContinue {
			t.Errorf("own reply held at response headers: %v", a)
		}
		if a := host.CallOnResponseBody(id, lr.Data, true); a != types.ActionContinue {
			t.Errorf("own reply held at response body: %v", a)
		}
		host.CompleteHttpContext(id)
	})

	t.Run("other paths untouched", func(t *testing.T) {
		id := host.InitializeHttpContext()
		h := [][2]string{{":method", "POST"}, {":path", "/other"}, {"accept-encoding", "gzip"}}
		if a := host.CallOnRequestHeaders(id, h, false); a != types.ActionContinue {
			t.Fatalf("headers: %v", a)
		}
		if a := host.CallOnRequestBody(id, []byte("not json"), true); a != types.ActionContinue {
			t.Fatalf("body: %v", a)
		}
		if len(host.GetCurrentRequestHeaders(id)) != 3 {
			t.Errorf("headers changed: %v", host.GetCurrentRequestHeaders(id))
		}
		host.CompleteHttpContext(id)
	})
}

// A panic inside a callback fails that stream closed with a JSON-RPC
// internal error, and the next stream is served normally.
func TestPanicFailsOneStream(t *testing.T) {
	host, reset := startPlugin(t, testConfig)
	defer reset()
	host.StartPlugin()
	testHook = func(_ *httpContext, stage string) {
		if v, _ := proxywasmHeader("x-test-panic"); v == stage {
			panic("injected")
		}
	}
	defer func() { testHook = nil }()
	id := host.InitializeHttpContext()
	if a := host.CallOnRequestHeaders(id, [][2]string{{":method", "POST"}, {":path", "/mcp"}, {"x-test-panic", "request_headers"}}, false); a != types.ActionPause {
		t.Fatalf("panicking callback returned %v, want Pause", a)
	}
	lr := host.GetSentLocalResponse(id)
	if lr == nil || lr.StatusCode != 500 || !strings.Contains(string(lr.Data), `"code":-32603`) {
		t.Fatalf("failed stream got %+v", lr)
	}
	if logs := strings.Join(host.GetErrorLogs(), "\n"); !strings.Contains(logs, "internal error in request headers") {
		t.Errorf("panic not logged: %s", logs)
	}
	if v, err := host.GetCounterMetric("mcp_privacy.errors.kind.internal"); err != nil || v != 1 {
		t.Errorf("errors.kind.internal = %d (%v), want 1", v, err)
	}
	if logs := strings.Join(host.GetInfoLogs(), "\n"); !strings.Contains(logs, `"decision":"error","rule":"","reason":"internal error in request headers`) {
		t.Errorf("no audit entry for the failed stream: %s", logs)
	}
	host.CompleteHttpContext(id)

	id = host.InitializeHttpContext()
	host.CallOnRequestHeaders(id, [][2]string{{":method", "POST"}, {":path", "/mcp"}}, false)
	if a := host.CallOnRequestBody(id, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), true); a != types.ActionContinue || host.GetSentLocalResponse(id) != nil {
		t.Fatalf("next stream not served: %v %+v", a, host.GetSentLocalResponse(id))
	}
}

func proxywasmHeader(name string) (string, error) { return proxywasm.GetHttpRequestHeader(name) }

// The counters are proxy-wasm metrics defined at start (at 0), audit
// entries are info lines, a rate-limited call's reply carries Retry-After,
// and a call whose stream ends without an answer is recorded then.
func TestMetricsAuditAndRateLimits(t *testing.T) {
	host, reset := startPlugin(t, `{"policy": {"name": "m", "audit": true, "deny_tools": ["delete_*"],
    "rate_limits": [{"rate": 1, "per": "hour", "burst": 1, "tools": ["search"]}]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]}}`)
	defer reset()
	if host.StartPlugin() != types.OnPluginStartStatusOK {
		t.Fatal("plugin did not start")
	}
	if v, err := host.GetCounterMetric("mcp_privacy.requests.method.tools_call.decision.denied"); err != nil || v != 0 {
		t.Fatalf("counter not defined at start: %d %v", v, err)
	}
	headers := [][2]string{{":method", "POST"}, {":path", "/mcp"}, {"x-mcp-principal", "alice"}}
	send := func(body string) uint32 {
		id := host.InitializeHttpContext()
		host.CallOnRequestHeaders(id, headers, false)
		host.CallOnRequestBody(id, []byte(body), true)
		return id
	}
	call := func(id, tool string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `"}}`
	}
	id := send(call("1", "search"))
	if host.GetSentLocalResponse(id) != nil {
		t.Fatal("first call refused")
	}
	host.CompleteHttpContext(id) // no answer: recorded at stream end
	id = send(call("2", "search"))
	lr := host.GetSentLocalResponse(id)
	if lr == nil || !strings.Contains(string(lr.Data), `"code":-32029`) {
		t.Fatalf("second call %+v", lr)
	}
	retry := ""
	for _, kv := range lr.Headers {
		if kv[0] == "retry-after" {
			retry = kv[1]
		}
	}
	if retry != "3600" {
		t.Errorf("Retry-After %q in %v", retry, lr.Headers)
	}
	host.CompleteHttpContext(id)
	host.CompleteHttpContext(send(call("3", "delete_all")))

	for name, want := range map[string]uint64{
		"mcp_privacy.requests.method.tools_call.decision.allowed":      1,
		"mcp_privacy.requests.method.tools_call.decision.rate_limited": 1,
		"mcp_privacy.requests.method.tools_call.decision.denied":       1,
		"mcp_privacy.rate_limited.scope.principal_tool":                1,
	} {
		if v, err := host.GetCounterMetric(name); err != nil || v != want {
			t.Errorf("%s = %d (%v), want %d", name, v, err, want)
		}
	}
	var audit []string
	for _, l := range host.GetInfoLogs() {
		if strings.HasPrefix(l, "cloudg.mcp.audit {") {
			audit = append(audit, l)
		}
	}
	if len(audit) != 3 || !strings.Contains(audit[0], `"decision":"allowed"`) || !strings.Contains(audit[1], `"decision":"rate_limited"`) ||
		!strings.Contains(audit[2], `"decision":"denied"`) {
		t.Errorf("audit lines:\n%s", strings.Join(audit, "\n"))
	}
}

// Response headers are read as clients read them: repeated lines joined
// (two content-type lines are two media types: fail closed; identity then
// gzip is gzip: fail closed), the content type written canonically, a
// redirect's Location through the output pipeline.
func TestResponseHeadersAsClientsRead(t *testing.T) {
	host, reset := startPlugin(t, `{"policy": {"name": "t", "transforms": ["redact"]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]}}`)
	defer reset()
	if host.StartPlugin() != types.OnPluginStartStatusOK {
		t.Fatal("plugin did not start")
	}
	open := func() uint32 {
		id := host.InitializeHttpContext()
		host.CallOnRequestHeaders(id, [][2]string{{":method", "POST"}, {":path", "/mcp"}, {"x-mcp-principal", "alice"}}, false)
		host.CallOnRequestBody(id, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search"}}`), true)
		return id
	}
	for _, h := range [][][2]string{
		{{":status", "200"}, {"content-type", "application/json"}, {"content-type", "text/event-stream"}},
		{{":status", "200"}, {"content-type", "application/json"}, {"content-encoding", "identity"}, {"content-encoding", "gzip"}},
	} {
		id := open()
		host.CallOnResponseHeaders(id, h, false)
		if lr := host.GetSentLocalResponse(id); lr == nil || !strings.Contains(string(lr.Data), "-32603") {
			t.Errorf("%v: not failed closed: %+v", h, lr)
		}
		host.CompleteHttpContext(id)
	}
	id := open()
	host.CallOnResponseHeaders(id, [][2]string{{":status", "307"}, {"location", "https://elsewhere.example/u/alice@corp.example"},
		{"content-type", "Text/Event-Stream; charset=UTF-8"}}, false)
	got := map[string]string{}
	for _, kv := range host.GetCurrentResponseHeaders(id) {
		got[kv[0]] = kv[1]
	}
	if strings.Contains(got["location"], "alice@corp.example") || !strings.HasPrefix(got["location"], "https://elsewhere.example/u/") {
		t.Errorf("location %q", got["location"])
	}
	if got["content-type"] != "text/plain; charset=utf-8" {
		t.Errorf("content-type %q (a 307's body is read as text)", got["content-type"])
	}
	host.CompleteHttpContext(id)
}
