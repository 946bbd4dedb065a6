package e2e_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/benchdata"
	"github.com/cloudg/mcp-privacy/internal/wasmhost"
	"github.com/cloudg/mcp-privacy/internal/wasmtest"
)

// The request path of plugin/mcp's BenchmarkToolsCall (the native figure),
// through the compiled plugin in the Envoy-like host: one worker VM, a
// Stream driven directly (no HTTP), so the figure is the plugin plus the
// proxy-wasm host calls it makes. See docs/BENCHMARKS.md.

// rbBenchEnvelope is plugin/mcp's testEnvelope (stream_test.go), as JSON.
const rbBenchEnvelope = `{
  "policy": {
    "name": "test",
    "hide_denied": true,
    "deny_tools": ["delete_*"],
    "deny_resources": ["cloudg://assets/{+ref}"],
    "roles": {"admin": {"allow_tools": ["delete_*"]}},
    "rules": [{"name": "visible-export", "match": {"names": ["export_*"]}, "deny_tools": ["export_*"]}]
  },
  "server": {"primitives": [{"match": {"kinds": ["resource_template"], "names": ["cloudg://assets/{+ref}", "users://{id}/profile"]}}]},
  "identity": {"principal": [{"header": "x-mcp-principal"}], "roles": [{"header": "x-mcp-roles"}]},
  "gateway": {
    "hold_headers": true,
    "export_headers": {"principal": "x-export-principal", "primitive": "x-export-primitive", "decision": "x-export-decision", "rule": "x-export-rule", "method": "x-export-method"}
  }
}`

// rbBenchBody is BenchmarkToolsCall's body (222 bytes).
const rbBenchBody = `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"search_customers","arguments":{"query":"alice","limit":10,"filters":{"country":"DE","active":true,"tags":["vip","eu"]}},"_meta":{"progressToken":"abc-123"}}}`

// rbBenchDenied is a call of the same size to a denied tool.
const rbBenchDenied = `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"delete_customer","arguments":{"id":"c-1","reason":"requested by the customer","confirm":true,"filters":{"country":"DE"}},"_meta":{"progressToken":"abc-123"}}}`

// rbBenchResult is a small JSON tools/call result.
const rbBenchResult = `{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"2 customers"}],"structuredContent":{"count":2}}}`

// rbBenchHost starts wasm with config on one worker VM (hold_headers true,
// so Envoy's allow_on_headers_stop_iteration is on, as shipped).
// benchPlugin is the plugin the benchmarks run: build/mcp-privacy.wasm, or
// with MCP_PRIVACY_BENCH_WASM=<file> another build (for instance one from
// before a change, built with scripts/build-wasm.sh from a git archive),
// so that before and after run in one test binary, interleaved.
func benchPlugin(tb testing.TB) []byte {
	if f := os.Getenv("MCP_PRIVACY_BENCH_WASM"); f != "" {
		wasm, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		return wasm
	}
	return wasmtest.Plugin(tb)
}

func rbBenchHost(b *testing.B, wasm []byte, config string) *wasmhost.Host {
	b.Helper()
	h, err := wasmhost.New(context.Background(), wasmhost.Options{
		Wasm: wasm, PluginConfig: []byte(config), Workers: 1, SkipCanary: true,
		AllowOnHeadersStopIteration: true, LogLevel: wasmhost.LogInfo,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close(context.Background()) })
	return h
}

func rbBenchRequest(body string) wasmhost.Headers {
	return wasmhost.H(":authority", "mcp.test", ":path", "/mcp", ":method", "POST", ":scheme", "http",
		"content-type", "application/json", "accept", "application/json, text/event-stream",
		"content-length", strconv.Itoa(len(body)), "x-mcp-principal", "alice",
		"x-forwarded-proto", "http", "x-request-id", "3f2a9c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b")
}

var rbBenchResponse = wasmhost.H(":status", "200", "content-type", "application/json",
	"content-length", strconv.Itoa(len(rbBenchResult)), "mcp-session-id", "rb-session")

// rbAllowedStream runs one allowed tools/call: request headers, the body
// (end of stream), response headers, the response body, stream end.
// withResponse false stops after the request (the part the native
// benchmark measures, plus stream creation and end).
func rbAllowedStream(b *testing.B, h *wasmhost.Host, req wasmhost.Headers, body []byte, withResponse bool) *wasmhost.Stream {
	s := h.NewStream()
	s.RequestHeaders(req, false)
	if st := s.RequestBody(body, true); st != wasmhost.Continue {
		b.Fatalf("request body: %v", st)
	}
	if withResponse {
		s.ResponseHeaders(rbBenchResponse, false)
		s.ResponseBody([]byte(rbBenchResult), true)
	}
	s.Close()
	return s
}

func rbBenchAllowed(b *testing.B, wasm []byte, config string, withResponse bool) {
	h := rbBenchHost(b, wasm, config)
	body := []byte(rbBenchBody)
	req := rbBenchRequest(rbBenchBody)
	// Once, checked: the body goes upstream as is, the answer comes back.
	s := rbAllowedStream(b, h, req, body, true)
	if up := s.Upstream(); string(up.Body) != rbBenchBody || !up.EndOfStream {
		b.Fatalf("not forwarded as is: %q", up.Body)
	}
	if down := s.Downstream(); down.Status() != 200 || string(down.Body) != rbBenchResult {
		b.Fatalf("response: %d %q", down.Status(), down.Body)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		rbAllowedStream(b, h, req, body, withResponse)
	}
	if err := h.Worker(0).Err(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkToolsCallWasm: a small allowed tools/call from alice through
// build/mcp-privacy.wasm, request and response, one stream per op.
func BenchmarkToolsCallWasm(b *testing.B) {
	wasm := benchPlugin(b)
	b.Run("stream", func(b *testing.B) { rbBenchAllowed(b, wasm, rbBenchEnvelope, true) })
	// Only what plugin/mcp BenchmarkToolsCall measures natively (headers,
	// identity, parse, decision), plus stream creation and end.
	b.Run("request", func(b *testing.B) { rbBenchAllowed(b, wasm, rbBenchEnvelope, false) })
}

// BenchmarkToolsCallWasmDenied: a denied tools/call answered locally
// (the JSON-RPC error passes the plugin's response callbacks). The denial
// is visible: a hidden one goes upstream as its stand-in (plugin/mcp/hidden.go).
func BenchmarkToolsCallWasmDenied(b *testing.B) {
	h := rbBenchHost(b, benchPlugin(b), strings.Replace(rbBenchEnvelope, `"hide_denied": true`, `"hide_denied": false`, 1))
	body := []byte(rbBenchDenied)
	req := rbBenchRequest(rbBenchDenied)
	run := func() *wasmhost.Stream {
		s := h.NewStream()
		s.RequestHeaders(req, false)
		s.RequestBody(body, true)
		s.Close()
		return s
	}
	s := run()
	if down := s.Downstream(); down.Status() != 200 || s.Upstream().HeadersSent ||
		!strings.HasPrefix(string(down.Body), `{"jsonrpc":"2.0","id":42,"error":{"code":-32003,"message":"Access denied"`) {
		b.Fatalf("not denied locally: %d %q (upstream %v)", down.Status(), down.Body, s.Upstream().HeadersSent)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		run()
	}
	if err := h.Worker(0).Err(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkToolsCallWasmHostOnly: the same streams through modules that do
// (almost) nothing, to separate the host's cost from the plugin's.
//
//   - noop: rbNoopModule, a hand-assembled proxy-wasm module (no Go
//     runtime) whose callbacks return at once: the host's own cost per
//     stream (wazero calls, header and buffer copies, the emulated filter
//     manager), the floor any plugin pays under this harness.
//   - testplugin: the scripted test plugin (wasmtest.TestPlugin), a
//     standard-Go module like ours, which with no x-test directive reads
//     the request headers, adds two response headers, reads :path and
//     :status at stream end and formats two log lines: roughly the cost of
//     a standard-Go plugin that does very little.
func BenchmarkToolsCallWasmHostOnly(b *testing.B) {
	noop := rbNoopModule()
	b.Run("noop/stream", func(b *testing.B) { rbBenchAllowed(b, noop, "", true) })
	b.Run("noop/request", func(b *testing.B) { rbBenchAllowed(b, noop, "", false) })
	wasm := wasmtest.TestPlugin(b)
	b.Run("testplugin/stream", func(b *testing.B) { rbBenchAllowed(b, wasm, "bench", true) })
	b.Run("testplugin/request", func(b *testing.B) { rbBenchAllowed(b, wasm, "bench", false) })
}

// rbNoopModule assembles a minimal proxy-wasm 0.2.1 module: one page of
// memory, the ABI marker, an allocator that is never needed (the module
// makes no host calls), and stream callbacks that return CONTINUE.
func rbNoopModule() []byte {
	uleb := func(out []byte, v uint32) []byte {
		for {
			c := byte(v & 0x7f)
			v >>= 7
			if v != 0 {
				out = append(out, c|0x80)
				continue
			}
			return append(out, c)
		}
	}
	vec := func(items ...[]byte) []byte {
		out := uleb(nil, uint32(len(items)))
		for _, it := range items {
			out = append(out, it...)
		}
		return out
	}
	section := func(id byte, body []byte) []byte {
		return append(uleb([]byte{id}, uint32(len(body))), body...)
	}
	const i32 = 0x7f
	functype := func(params, results []byte) []byte {
		out := append([]byte{0x60}, uleb(nil, uint32(len(params)))...)
		out = append(out, params...)
		out = append(out, uleb(nil, uint32(len(results)))...)
		return append(out, results...)
	}
	types := vec(
		functype(nil, nil),                           // 0: ()
		functype([]byte{i32}, []byte{i32}),           // 1: (i32) -> i32
		functype([]byte{i32, i32}, nil),              // 2: (i32, i32)
		functype([]byte{i32, i32}, []byte{i32}),      // 3: (i32, i32) -> i32
		functype([]byte{i32, i32, i32}, []byte{i32}), // 4: (i32, i32, i32) -> i32
		functype([]byte{i32}, nil),                   // 5: (i32)
	)
	// Functions: type, body (no locals).
	ret := func(v byte) []byte { return []byte{0x00, 0x41, v, 0x0b} } // i32.const v
	void := []byte{0x00, 0x0b}
	funcs := []struct {
		typ  uint32
		body []byte
	}{
		{0, void}, // 0 proxy_abi_version_0_2_1
		{1, []byte{0x00, 0x41, 0x80, 0x08, 0x0b}}, // 1 allocator: i32.const 1024
		{2, void},   // 2 proxy_on_context_create
		{3, ret(1)}, // 3 proxy_on_vm_start, proxy_on_configure: true
		{4, ret(0)}, // 4 stream callbacks: CONTINUE
		{5, void},   // 5 proxy_on_log, proxy_on_delete
		{1, ret(1)}, // 6 proxy_on_done: true
	}
	var fsec, csec [][]byte
	for _, f := range funcs {
		fsec = append(fsec, uleb(nil, f.typ))
		csec = append(csec, append(uleb(nil, uint32(len(f.body))), f.body...))
	}
	export := func(name string, kind byte, idx uint32) []byte {
		out := append(uleb(nil, uint32(len(name))), name...)
		return append(append(out, kind), uleb(nil, idx)...)
	}
	exports := vec(
		export("memory", 2, 0),
		export("proxy_abi_version_0_2_1", 0, 0),
		export("proxy_on_memory_allocate", 0, 1),
		export("proxy_on_context_create", 0, 2),
		export("proxy_on_vm_start", 0, 3),
		export("proxy_on_configure", 0, 3),
		export("proxy_on_request_headers", 0, 4),
		export("proxy_on_request_body", 0, 4),
		export("proxy_on_response_headers", 0, 4),
		export("proxy_on_response_body", 0, 4),
		export("proxy_on_log", 0, 5),
		export("proxy_on_delete", 0, 5),
		export("proxy_on_done", 0, 6),
	)
	mod := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	mod = append(mod, section(1, types)...)
	mod = append(mod, section(3, vec(fsec...))...)
	mod = append(mod, section(5, []byte{0x01, 0x00, 0x01})...) // one memory, min 1 page
	mod = append(mod, section(7, exports)...)
	mod = append(mod, section(10, vec(csec...))...)
	return mod
}

// BenchmarkToolResultWasm: plugin/mcp BenchmarkToolResult1KB through
// build/mcp-privacy.wasm — a tools/call and its 1 KB JSON result under the
// standard profile (secrets redacted, personal data pseudonymised), one
// stream per op. See docs/BENCHMARKS.md.
func BenchmarkToolResultWasm(b *testing.B) {
	h := rbBenchHost(b, benchPlugin(b), benchdata.TransformEnvelope)
	body := []byte(benchdata.ToolCallRequest)
	req := rbBenchRequest(benchdata.ToolCallRequest)
	resp := wasmhost.H(":status", "200", "content-type", "application/json",
		"content-length", strconv.Itoa(len(benchdata.ToolResult1KB)), "mcp-session-id", "rb-session")
	result := []byte(benchdata.ToolResult1KB)
	run := func() *wasmhost.Stream {
		s := h.NewStream()
		s.RequestHeaders(req, false)
		s.RequestBody(body, true)
		s.ResponseHeaders(resp, false)
		s.ResponseBody(result, true)
		s.Close()
		return s
	}
	down := run().Downstream()
	if out := string(down.Body); down.Status() != 200 || strings.Contains(out, "alice.martin@example.com") || !strings.Contains(out, "EMAIL_") {
		b.Fatalf("not transformed: %d %s", down.Status(), out)
	}
	b.SetBytes(int64(len(result)))
	b.ReportAllocs()
	for b.Loop() {
		run()
	}
	if err := h.Worker(0).Err(); err != nil {
		b.Fatal(err)
	}
}
