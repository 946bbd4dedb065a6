package e2e_test

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/e2e/internal/wasmtest"
	"github.com/cloudg/mcp-privacy/e2e/wasmhost"
)

// The response-path benchmarks of plugin/mcp (bench_lists_test.go: a
// 500-tool tools/list filtered, event-stream throughput) through the
// compiled plugin in the Envoy-like host: one worker VM, a Stream driven
// directly (no HTTP). The generator below is a copy of plugin/mcp's, so
// both measure the same bytes. B/op and allocs/op count the host's Go
// allocations only (including its copies of every body chunk); the guest
// allocates inside its own memory. See docs/BENCHMARKS.md.

// blEnvelope is the configuration of these benchmarks (the same JSON as in
// plugin/mcp): the standard profile (denies the exec capability and
// sensitivity above confidential) plus two deny globs, so that alice,
// without roles, is shown 400 of blToolCount tools (blVisible).
const blEnvelope = `{
  "policy": {
    "name": "lists-bench",
    "extends": "standard",
    "deny_tools": ["admin_*", "debug_*"],
    "roles": {"admin": {"allow_tools": ["admin_*", "debug_*"], "allow_capabilities": ["exec"]}}
  },
  "identity": {"principal": [{"header": "x-mcp-principal"}], "roles": [{"header": "x-mcp-roles"}]}
}`

const (
	blToolCount = 500
	blVisible   = 400 // hidden: 50 admin_*, 25 debug_*, 13 exec, 12 restricted
	// blVisibleNoLearn: with server.learn_from_lists off the metadata is
	// not read, so only the globs hide tools.
	blVisibleNoLearn = 425
)

// blNoLearn is blEnvelope with server.learn_from_lists off.
var blNoLearn = strings.Replace(blEnvelope, `"identity"`, `"server": {"learn_from_lists": false},
  "identity"`, 1)

var (
	blVerbs = []string{"get", "list", "search", "create", "update", "delete", "export", "import", "sync", "count",
		"archive", "restore", "tag", "assign", "approve", "comment_on", "summarize", "validate", "share", "watch"}
	blNouns = []string{"customer", "invoice", "order", "ticket", "project", "document", "contact", "account",
		"payment", "shipment", "product", "employee", "report", "event", "repository", "issue", "deployment",
		"metric", "alert", "campaign", "lead", "contract", "asset", "vendor", "task"}
	blProps = []struct{ name, typ, desc string }{
		{"id", "string", "Record id"},
		{"query", "string", "Search terms"},
		{"limit", "integer", "Max results"},
		{"cursor", "string", "Page cursor"},
		{"fields", "array", "Fields to return"},
		{"since", "string", "ISO 8601 time"},
		{"dry_run", "boolean", "Only validate"},
	}
)

// blTool is tool i of the list: every tenth (i%10 == 3) is admin_*, every
// twentieth (i%20 == 9) debug_*, and every tenth (i%10 == 7) carries
// _meta["io.cloudg/privacy"]: with the exec capability (i%40 == 7) or
// restricted sensitivity (i%40 == 27), both denied by the standard
// profile, or harmless metadata (category, tags, internal sensitivity).
func blTool(out []byte, i int) []byte {
	verb, noun := blVerbs[i%len(blVerbs)], blNouns[i/len(blVerbs)%len(blNouns)]
	name := verb + "_" + noun
	switch {
	case i%10 == 3:
		name = "admin_" + name
	case i%20 == 9:
		name = "debug_" + name
	}
	title := strings.ToUpper(verb[:1]) + strings.ReplaceAll(verb[1:], "_", " ") + " " + noun + "s"
	out = append(out, `{"name":"`...)
	out = append(out, name...)
	out = append(out, `","title":"`...)
	out = append(out, title...)
	out = append(out, `","description":"`...)
	out = append(out, title...)
	out = append(out, '.')
	if i%3 == 0 {
		out = append(out, ` Supports paging.`...)
	}
	out = append(out, `","inputSchema":{"type":"object","properties":{`...)
	n := [...]int{2, 3, 2, 4, 2}[i%5] // 2 to 4 properties
	for k := range n {
		p := blProps[(i+k)%len(blProps)]
		if k > 0 {
			out = append(out, ',')
		}
		out = append(out, `"`+p.name+`":{"type":"`+p.typ+`"`...)
		if k == 0 && i%2 == 0 {
			out = append(out, `,"description":"`+p.desc+`"`...)
		}
		out = append(out, '}')
	}
	out = append(out, `},"required":["`+blProps[i%len(blProps)].name+`"]},"annotations":{"readOnlyHint":`...)
	out = strconv.AppendBool(out, i%20 < 9)
	out = append(out, '}')
	if i%10 == 7 {
		out = append(out, `,"_meta":{"io.cloudg/privacy":`...)
		switch i % 40 {
		case 7:
			out = append(out, `{"category":"ops","capabilities":["exec","write_fs"]}`...)
		case 27:
			out = append(out, `{"category":"hr","sensitivity":"restricted","tags":["payroll"]}`...)
		default:
			out = append(out, `{"category":"crm","sensitivity":"internal","tags":["sales","eu"]}`...)
		}
		out = append(out, '}')
	}
	return append(out, '}')
}

// blToolsList is the JSON-RPC response with id 1 to tools/list: 500 tools,
// 143,723 bytes.
func blToolsList() []byte {
	out := []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[`)
	for i := range blToolCount {
		if i > 0 {
			out = append(out, ',')
		}
		out = blTool(out, i)
	}
	return append(out, `],"nextCursor":"page-2"}}`...)
}

// blSSE is msg as one server-sent event, as the SDKs send it.
func blSSE(msg []byte) []byte {
	out := append([]byte("event: message\ndata: "), msg...)
	return append(out, "\n\n"...)
}

const (
	blStreamBytes = 1 << 20
	blChunk       = 16 << 10
)

// blEventStream is a GET event stream of exactly 1 MiB: events of about
// 1 KB, three notifications/message for each tools/call result with text
// content, each with an SSE id, the rest filled by a comment. The plugin
// changes none of them. It returns the stream and its number of events.
func blEventStream() ([]byte, int) {
	words := strings.Fields("the index run for region north finished its batch of records and wrote a summary " +
		"of changed rows with totals per account while the queue kept draining at a steady rate " +
		"before the next window opened for reconciliation of open items across all ledgers")
	seed := uint32(1)
	text := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			seed = seed*1664525 + 1013904223
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[seed>>8%uint32(len(words))])
		}
		return b.String()
	}
	var out []byte
	events := 0
	for i := 0; ; i++ {
		var msg string
		if i%4 == 3 {
			msg = `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"result":{"content":[{"type":"text","text":"` + text(880) +
				`"}],"isError":false}}`
		} else {
			msg = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"indexer","data":"` +
				text(860) + `"}}`
		}
		ev := "event: message\nid: " + strconv.Itoa(i) + "\ndata: " + msg + "\n\n"
		if len(out)+len(ev)+64 > blStreamBytes {
			break
		}
		out = append(out, ev...)
		events++
	}
	pad := blStreamBytes - len(out) - len(": \n\n")
	out = append(out, ": "...)
	out = append(out, strings.Repeat("-", pad)...)
	return append(out, "\n\n"...), events
}

// blCountTools returns the number of tools in a tools/list response given
// as JSON or as event-stream data lines.
func blCountTools(tb testing.TB, body []byte) int {
	tb.Helper()
	if rest, ok := bytes.CutPrefix(body, []byte("event: message\ndata: ")); ok {
		body = bytes.TrimSuffix(rest, []byte("\n\n"))
	}
	var msg struct {
		Result struct {
			Tools []struct{ Name string }
		}
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		tb.Fatalf("filtered list: %v", err)
	}
	return len(msg.Result.Tools)
}

// blListRequest is the POST of tools/list from alice.
const blListRequest = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

// blToolsList500Wasm is one stream per op: the tools/list request
// (headers, body at end of stream), the response headers with
// contentType, the whole result in one body chunk at end of stream, and
// the stream's end.
func blToolsList500Wasm(b *testing.B, wasm []byte, envelope string, visible int, contentType string, body []byte) {
	h := rbBenchHost(b, wasm, envelope)
	reqBody := []byte(blListRequest)
	req := rbBenchRequest(blListRequest)
	resp := wasmhost.H(":status", "200", "content-type", contentType,
		"content-length", strconv.Itoa(len(body)), "mcp-session-id", "bl-session")
	run := func() *wasmhost.Stream {
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
	// visible tools and privacy_status, not the 500 the server sent.
	s := run()
	if up := s.Upstream(); string(up.Body) != blListRequest {
		b.Fatalf("request not forwarded as is: %q", up.Body)
	}
	down := s.Downstream()
	if down.Status() != 200 || !down.EndOfStream {
		b.Fatalf("response: %d, end of stream %v", down.Status(), down.EndOfStream)
	}
	if n := blCountTools(b, down.Body); n != visible+1 {
		b.Fatalf("%d tools listed, want %d", n, visible+1)
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
	wasm := wasmtest.Plugin(b)
	list := blToolsList()
	b.Run("json", func(b *testing.B) { blToolsList500Wasm(b, wasm, blEnvelope, blVisible, "application/json", list) })
	b.Run("sse", func(b *testing.B) {
		blToolsList500Wasm(b, wasm, blEnvelope, blVisible, "text/event-stream", blSSE(list))
	})
	// As plugin/mcp's BenchmarkToolsList500NoLearn: without learning, so
	// without the 500 proxy_set_shared_data calls learning makes.
	b.Run("json-nolearn", func(b *testing.B) {
		blToolsList500Wasm(b, wasm, blNoLearn, blVisibleNoLearn, "application/json", list)
	})
}

// BenchmarkEventStreamThroughputWasm: plugin/mcp's
// BenchmarkEventStreamThroughput through build/mcp-privacy.wasm: a GET
// stream, then 1 MiB of ~1 KB events in 16 KiB chunks, each released
// downstream as the plugin continues it.
func BenchmarkEventStreamThroughputWasm(b *testing.B) {
	h := rbBenchHost(b, wasmtest.Plugin(b), blEnvelope)
	stream, events := blEventStream()
	req := wasmhost.H(":authority", "mcp.test", ":path", "/mcp", ":method", "GET", ":scheme", "http",
		"accept", "text/event-stream", "x-mcp-principal", "alice", "mcp-session-id", "bl-session")
	resp := wasmhost.H(":status", "200", "content-type", "text/event-stream", "mcp-session-id", "bl-session")
	run := func() *wasmhost.Stream {
		s := h.NewStream()
		s.RequestHeaders(req, true)
		s.ResponseHeaders(resp, false)
		for off := 0; off < len(stream); off += blChunk {
			chunk := stream[off:min(off+blChunk, len(stream))]
			if st := s.ResponseBody(chunk, off+len(chunk) == len(stream)); st != wasmhost.Continue {
				b.Fatalf("chunk at %d: %v", off, st)
			}
		}
		s.Close()
		return s
	}
	// Once, checked: every event reaches the client.
	down := run().Downstream()
	if n := bytes.Count(down.Body, []byte("\ndata: ")); n != events || !down.EndOfStream || !bytes.HasSuffix(down.Body, []byte("-\n\n")) {
		b.Fatalf("%d of %d events passed, %d bytes of %d (end of stream %v)", n, events, len(down.Body), len(stream), down.EndOfStream)
	}
	b.SetBytes(blStreamBytes)
	b.ReportAllocs()
	for b.Loop() {
		run()
	}
	if err := h.Worker(0).Err(); err != nil {
		b.Fatal(err)
	}
}
