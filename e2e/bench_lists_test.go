package e2e_test

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/benchdata"

	"github.com/cloudg/mcp-privacy/internal/wasmhost"
)

// The response-path benchmarks of plugin/mcp (bench_lists_test.go: a
// 500-tool tools/list filtered, event-stream throughput) through the
// compiled plugin in the Envoy-like host: one worker VM, a Stream driven
// directly (no HTTP), on the inputs of internal/benchdata, as plugin/mcp's, so
// both measure the same bytes. B/op and allocs/op count the host's Go
// allocations only (including its copies of every body chunk); the guest
// allocates inside its own memory. See docs/BENCHMARKS.md.

// blListRequest is the POST of tools/list from alice.
const blListRequest = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

// blToolsList500Wasm is one stream per op: the tools/list request
// (headers, body at end of stream), the response headers with
// contentType, the whole result in one body chunk at end of stream, and
// the stream's end.
// Each op's list differs from the last in its nextCursor (benchdata.Fresh):
// the cost of a list the plugin has not seen lately; repeated sends the
// same list every op, which the plugin answers from its memo of lists.
func blToolsList500Wasm(b *testing.B, wasm []byte, envelope string, visible int, contentType string, body []byte, repeated bool) {
	h := rbBenchHost(b, wasm, envelope)
	reqBody := []byte(blListRequest)
	req := rbBenchRequest(blListRequest)
	resp := wasmhost.H(":status", "200", "content-type", contentType,
		"content-length", strconv.Itoa(len(body)), "mcp-session-id", "bl-session")
	next := func() []byte { return body }
	if !repeated {
		next = benchdata.Fresh(body)
	}
	run := func() *wasmhost.Stream {
		body := next()
		s := h.NewStream()
		s.RequestHeaders(req, false)
		if st := s.RequestBody(reqBody, true); st != wasmhost.Continue {
			b.Fatalf("request body: %v", st)
		}
		s.ResponseHeaders(resp, false)
		s.ResponseBody(body, true)
		s.Close()
		return s
	}
	// Once, checked: the list went upstream as is and the client gets the
	// visible tools and the virtual ones, not the 500 the server sent.
	s := run()
	if up := s.Upstream(); string(up.Body) != blListRequest {
		b.Fatalf("request not forwarded as is: %q", up.Body)
	}
	down := s.Downstream()
	if down.Status() != 200 || !down.EndOfStream {
		b.Fatalf("response: %d, end of stream %v", down.Status(), down.EndOfStream)
	}
	if n := blCount(b, down.Body); n != visible+benchdata.VirtualTools {
		b.Fatalf("%d tools listed, want %d", n, visible+benchdata.VirtualTools)
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

// BenchmarkToolsList500Wasm: plugin/mcp's BenchmarkToolsList500 (a
// 500-tool tools/list result, 144 KB, filtered to 400 tools) through
// build/mcp-privacy.wasm, as application/json and as one server-sent
// event; each op also carries the request and the stream's creation and
// end (about 70 µs in BenchmarkToolsCallWasm/request).
func BenchmarkToolsList500Wasm(b *testing.B) {
	wasm := benchPlugin(b)
	list := benchdata.ToolsList()
	b.Run("json", func(b *testing.B) {
		blToolsList500Wasm(b, wasm, benchdata.ListsEnvelope, benchdata.Visible, "application/json", list, false)
	})
	b.Run("json-repeated", func(b *testing.B) {
		blToolsList500Wasm(b, wasm, benchdata.ListsEnvelope, benchdata.Visible, "application/json", list, true)
	})
	b.Run("sse", func(b *testing.B) {
		blToolsList500Wasm(b, wasm, benchdata.ListsEnvelope, benchdata.Visible, "text/event-stream", benchdata.SSE(list), false)
	})
	// As plugin/mcp's BenchmarkToolsList500NoLearn: without learning, so
	// without the 500 proxy_set_shared_data calls learning makes.
	b.Run("json-nolearn", func(b *testing.B) {
		blToolsList500Wasm(b, wasm, benchdata.ListsEnvelopeNoLearn, benchdata.VisibleNoLearn, "application/json", list, false)
	})
}

// BenchmarkEventStreamThroughputWasm: plugin/mcp's
// BenchmarkEventStreamThroughput through build/mcp-privacy.wasm: a GET
// stream, then 1 MiB of ~1 KB events in 16 KiB chunks, each released
// downstream as the plugin continues it.
func BenchmarkEventStreamThroughputWasm(b *testing.B) {
	h := rbBenchHost(b, benchPlugin(b), benchdata.ListsEnvelope)
	stream, events := benchdata.EventStream()
	req := wasmhost.H(":authority", "mcp.test", ":path", "/mcp", ":method", "GET", ":scheme", "http",
		"accept", "text/event-stream", "x-mcp-principal", "alice", "mcp-session-id", "bl-session")
	resp := wasmhost.H(":status", "200", "content-type", "text/event-stream", "mcp-session-id", "bl-session")
	run := func() *wasmhost.Stream {
		s := h.NewStream()
		s.RequestHeaders(req, true)
		s.ResponseHeaders(resp, false)
		for off := 0; off < len(stream); off += benchdata.Chunk {
			chunk := stream[off:min(off+benchdata.Chunk, len(stream))]
			if st := s.ResponseBody(chunk, off+len(chunk) == len(stream)); st != wasmhost.Continue {
				b.Fatalf("chunk at %d: %v", off, st)
			}
		}
		s.Close()
		return s
	}
	// Once, checked: every event reaches the client.
	down := run().Downstream()
	if n := bytes.Count(down.Body, []byte("\ndata: ")); n != events || !down.EndOfStream || !bytes.HasSuffix(down.Body, []byte("\n:\n\n")) {
		b.Fatalf("%d of %d events passed, %d bytes of %d (end of stream %v)", n, events, len(down.Body), len(stream), down.EndOfStream)
	}
	b.SetBytes(benchdata.StreamBytes)
	b.ReportAllocs()
	for b.Loop() {
		run()
	}
	if err := h.Worker(0).Err(); err != nil {
		b.Fatal(err)
	}
}

// blCount counts the tools of a filtered list, failing the benchmark when
// it does not parse.
func blCount(tb testing.TB, body []byte) int {
	tb.Helper()
	n, err := benchdata.CountTools(body)
	if err != nil {
		tb.Fatalf("filtered list: %v", err)
	}
	return n
}
