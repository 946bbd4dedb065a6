package mcp

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// Benchmarks of the response path (issue 4): a 500-tool tools/list result
// filtered, as application/json and as one server-sent event, and the
// throughput of an event stream through the plugin. e2e/bench_lists_test.go
// runs the same inputs through the compiled plugin; its generator is a copy
// of the one here, so both measure the same bytes. See docs/BENCHMARKS.md.

// blEnvelope is the configuration of these benchmarks (the same JSON in
// e2e): the standard profile (denies the exec capability and sensitivity
// above confidential) plus two deny globs, so that alice, without roles,
// is shown 400 of blToolCount tools (blVisible).
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
// end of stream, returning what the client gets.
func blToolsList500(b *testing.B, envelope string, visible int, contentType string, body []byte) {
	cfg := blConfig(b, envelope)
	req := hdr("x-mcp-principal", "alice", "content-length", "46")
	reqBody := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	readReq := func() []byte { return reqBody }
	read := func() []byte { return body }
	run := func() []byte {
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
	// Once, checked: the client gets the visible tools and privacy_status.
	if n := blCountTools(b, run()); n != visible+1 {
		b.Fatalf("%d tools listed, want %d", n, visible+1)
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
	blToolsList500(b, blEnvelope, blVisible, "application/json", blToolsList())
}

// BenchmarkToolsList500SSE: the same result as one server-sent event.
func BenchmarkToolsList500SSE(b *testing.B) {
	blToolsList500(b, blEnvelope, blVisible, "text/event-stream", blSSE(blToolsList()))
}

// BenchmarkToolsList500NoLearn: BenchmarkToolsList500 with
// server.learn_from_lists off (nothing learned, metadata not read; 425
// tools shown): what learning costs. In wasm each learned tool is also a
// proxy_set_shared_data call.
func BenchmarkToolsList500NoLearn(b *testing.B) {
	blToolsList500(b, blNoLearn, blVisibleNoLearn, "application/json", blToolsList())
}

// BenchmarkEventStreamThroughput: a 1 MiB GET event stream of ~1 KB events
// (notifications/message and tools/call results) in 16 KiB chunks: every
// event is parsed and passes unchanged.
func BenchmarkEventStreamThroughput(b *testing.B) {
	cfg := blConfig(b, blEnvelope)
	stream, events := blEventStream()
	req := hdr("x-mcp-principal", "alice")
	run := func(out []byte) []byte {
		s := NewStream(cfg)
		if r := s.OnRequestHeaders(req, "GET", "/mcp", true); r.Reply != nil {
			b.Fatalf("GET answered locally: %s", r.Reply.Body)
		}
		s.OnResponseHeaders(200, "text/event-stream", "", false)
		for off := 0; off < len(stream); off += blChunk {
			chunk := stream[off:min(off+blChunk, len(stream))]
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
	// Once, checked: every event reaches the client.
	if out := run(make([]byte, 0, len(stream))); bytes.Count(out, []byte("\ndata: ")) != events || !bytes.HasSuffix(out, []byte("-\n\n")) {
		b.Fatalf("%d of %d events passed, %d bytes of %d", bytes.Count(out, []byte("\ndata: ")), events, len(out), len(stream))
	}
	b.SetBytes(blStreamBytes)
	b.ReportAllocs()
	for b.Loop() {
		run(nil)
	}
}
