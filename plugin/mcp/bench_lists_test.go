package mcp

import (
	"bytes"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/benchdata"
)

// Benchmarks of the response path (issue 4): a 500-tool tools/list result
// filtered, as application/json and as one server-sent event, and the
// throughput of an event stream through the plugin. e2e/bench_lists_test.go
// runs the same inputs (internal/benchdata) through the compiled plugin.
// See docs/BENCHMARKS.md.

func blConfig(tb testing.TB, envelope string) *Config {
	tb.Helper()
	cfg, errs := NewConfig([]byte(envelope), nil)
	if len(errs) > 0 {
		tb.Fatal(errs)
	}
	return cfg
}

// blToolsList500 is one stream per op: the POST of tools/list from alice,
// then the response headers and the whole result in one body callback at
// end of stream, returning what the client gets. Each op's list differs
// from the last in its nextCursor (the same length), so none is answered
// from the VM's memo of lists (listmemo.go): the cost of a list the VM
// sees for the first time, memoising it included. repeated sends the
// same list every op: the cost of a list answered from the memo.
func blToolsList500(b *testing.B, envelope string, visible int, contentType string, body []byte) {
	blToolsList500Of(b, envelope, contentType, body, false, func(shown int) bool { return shown == visible+benchdata.VirtualTools })
}

// blToolsList500Of is blToolsList500 for any list: shown tells whether
// the number of tools the client gets is right.
func blToolsList500Of(b *testing.B, envelope string, contentType string, body []byte, repeated bool, shown func(int) bool) {
	cfg := blConfig(b, envelope)
	next := func() []byte { return body }
	if !repeated {
		next = benchdata.Fresh(body)
	}
	req := hdr("x-mcp-principal", "alice", "content-length", "46")
	reqBody := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	readReq := func() []byte { return reqBody }
	run := func() []byte {
		body := next()
		read := func() []byte { return body }
		s := NewStream(cfg)
		s.OnRequestHeaders(req, "POST", "/mcp", false)
		if r := s.OnRequestBody(len(reqBody), true, readReq); r.Reply != nil || r.Body != nil {
			b.Fatal("tools/list not forwarded as is")
		}
		s.OnResponseHeaders(200, contentType, "", false)
		a, edit := s.OnResponseBody(len(body), true, read)
		if a != Continue || !edit.Replace {
			b.Fatalf("list not filtered (action %v)", a)
		}
		return edit.Data
	}
	// Once, checked: the client gets the visible tools and the virtual ones.
	if n := blCount(b, run()); !shown(n) {
		b.Fatalf("%d tools listed", n)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		run()
	}
}

// BenchmarkToolsList500: a 500-tool tools/list result (144 KB, 10%
// with privacy metadata) filtered for a caller who may see 400 of them:
// parse, learn each tool's metadata, judge each, re-serialize. The same
// runs in wasm as BenchmarkToolsList500Wasm in e2e.
func BenchmarkToolsList500(b *testing.B) {
	blToolsList500(b, benchdata.ListsEnvelope, benchdata.Visible, "application/json", benchdata.ToolsList())
}

// BenchmarkToolsList500Repeated: BenchmarkToolsList500 with the same
// list every time, for the same class of caller: answered from the VM's
// memo of lists (listmemo.go).
func BenchmarkToolsList500Repeated(b *testing.B) {
	blToolsList500Of(b, benchdata.ListsEnvelope, "application/json", benchdata.ToolsList(), true, func(shown int) bool {
		return shown == benchdata.Visible+benchdata.VirtualTools
	})
}

// BenchmarkToolsList500SSE: the same result as one server-sent event.
func BenchmarkToolsList500SSE(b *testing.B) {
	blToolsList500(b, benchdata.ListsEnvelope, benchdata.Visible, "text/event-stream", benchdata.SSE(benchdata.ToolsList()))
}

// BenchmarkToolsList500NoLearn: BenchmarkToolsList500 with
// server.learn_from_lists off (nothing learned, metadata not read; 425
// tools shown): what learning costs. In wasm each learned tool is also a
// proxy_set_shared_data call.
func BenchmarkToolsList500NoLearn(b *testing.B) {
	blToolsList500(b, benchdata.ListsEnvelopeNoLearn, benchdata.VisibleNoLearn, "application/json", benchdata.ToolsList())
}

// BenchmarkEventStreamThroughput: a 1 MiB GET event stream of ~1 KB events
// (notifications/message and tools/call results) in 16 KiB chunks: every
// event is parsed and passes unchanged.
func BenchmarkEventStreamThroughput(b *testing.B) {
	cfg := blConfig(b, benchdata.ListsEnvelope)
	stream, events := benchdata.EventStream()
	req := hdr("x-mcp-principal", "alice")
	run := func(out []byte) []byte {
		s := NewStream(cfg)
		if r := s.OnRequestHeaders(req, "GET", "/mcp", true); r.Reply != nil {
			b.Fatalf("GET answered locally: %s", r.Reply.Body)
		}
		s.OnResponseHeaders(200, "text/event-stream", "", false)
		for off := 0; off < len(stream); off += benchdata.Chunk {
			chunk := stream[off:min(off+benchdata.Chunk, len(stream))]
			a, edit := s.OnResponseBody(len(chunk), off+len(chunk) == len(stream), func() []byte { return chunk })
			if a != Continue {
				b.Fatal("an event stream chunk was paused")
			}
			if out != nil {
				if edit.Replace {
					out = append(out, edit.Data...)
				} else {
					out = append(out, chunk...)
				}
			}
		}
		return out
	}
	// Once, checked: every event reaches the client (the padding comment
	// as an empty one).
	if out := run(make([]byte, 0, len(stream))); bytes.Count(out, []byte("\ndata: ")) != events || !bytes.HasSuffix(out, []byte("\n:\n\n")) {
		b.Fatalf("%d of %d events passed, %d bytes of %d", bytes.Count(out, []byte("\ndata: ")), events, len(out), len(stream))
	}
	b.SetBytes(benchdata.StreamBytes)
	b.ReportAllocs()
	for b.Loop() {
		run(nil)
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
