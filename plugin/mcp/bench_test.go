package mcp

import (
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/benchdata"
)

// BenchmarkToolsCall is the request path of a small allowed tools/call:
// headers, identity, strict parse, decision (the body is forwarded as is).
// The same path runs in wasm in e2e (see docs/BENCHMARKS.md).
func BenchmarkToolsCall(b *testing.B) {
	call, size := toolsCallRun(b)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		call()
	}
}

// heldStream keeps a benchmark's stream, so that it lives on the heap as
// in the plugin.
var heldStream *Stream

// toolsCallRun is BenchmarkToolsCall's op: a stream, the headers and
// body of one tools/call from alice, judged and forwarded as is; and the
// body's size. The stream is on the heap, as the plugin's host glue keeps
// it (plugin/main.go): its allocation and size count.
func toolsCallRun(tb testing.TB) (func(), int) {
	cfg, errs := NewConfig([]byte(testEnvelope), nil)
	if len(errs) > 0 {
		tb.Fatal(errs)
	}
	req := pairRequest{HeaderPairs{{"x-mcp-principal", "alice"}, {"content-length", "200"}}}
	body := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"search_customers","arguments":{"query":"alice","limit":10,"filters":{"country":"DE","active":true,"tags":["vip","eu"]}},"_meta":{"progressToken":"abc-123"}}}`)
	read := func() []byte { return body }
	return func() {
		s := NewStream(cfg)
		heldStream = s
		s.OnRequestHeaders(req, "POST", "/mcp", false)
		if r := s.OnRequestBody(len(body), true, read); r.Reply != nil || r.Body != nil {
			tb.Fatal("not forwarded as is")
		}
	}, len(body)
}

// BenchmarkToolResult1KB is the response path of a 1 KB tools/call result
// under the standard profile: the request judged and remembered, then the
// JSON response parsed, its text (JSON inside) and structuredContent run
// through the output pipeline (secrets redacted, personal data
// pseudonymised into the vault) and re-serialized. The same stream runs in
// wasm in e2e BenchmarkToolResultWasm.
func BenchmarkToolResult1KB(b *testing.B) {
	cfg, errs := NewConfig([]byte(benchdata.TransformEnvelope), nil)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	req := hdr("x-mcp-principal", "alice")
	body := []byte(benchdata.ToolCallRequest)
	result := []byte(benchdata.ToolResult1KB)
	run := func() []byte {
		s := NewStream(cfg)
		s.OnRequestHeaders(req, "POST", "/mcp", false)
		if r := s.OnRequestBody(len(body), true, func() []byte { return body }); r.Reply != nil {
			b.Fatalf("answered locally: %s", r.Reply.Body)
		}
		s.OnResponseHeaders(200, "application/json", "", false)
		_, edit := s.OnResponseBody(len(result), true, func() []byte { return result })
		return edit.Data
	}
	if out := string(run()); strings.Contains(out, "alice.martin@example.com") || strings.Contains(out, "sk_live_") || !strings.Contains(out, "EMAIL_") {
		b.Fatalf("not transformed: %s", out)
	}
	b.SetBytes(int64(len(result)))
	b.ReportAllocs()
	for b.Loop() {
		run()
	}
}

// pairRequest is a Request as the plugin's host glue makes one
// (plugin/main.go, hostRequest): HeaderPairs. The tests' fakeRequest, a
// map, costs more than the plugin's own work on its headers: a benchmark
// measures the plugin with this one.
type pairRequest struct{ HeaderPairs }

func (pairRequest) Property(...string) ([]byte, bool) { return nil, false }
