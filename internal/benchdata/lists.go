// Package benchdata generates the inputs of the response benchmarks (a
// 500-tool tools/list, a 1 MiB event stream) and the envelope they run
// with, so the native benchmarks (plugin/mcp) and the wasm ones (e2e)
// measure the same bytes, and reads the mixed corpus the detectors'
// tests and benchmarks scan (mixed.go). See docs/BENCHMARKS.md.
package benchdata

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// ListsEnvelope is the configuration of these benchmarks (the same JSON in
// e2e): the standard profile (denies the exec capability and sensitivity
// above confidential) plus two deny globs, so that alice, without roles,
// is shown 400 of ToolCount tools (Visible).
const ListsEnvelope = `{
  "policy": {
    "name": "lists-bench",
    "extends": "standard",
    "deny_tools": ["admin_*", "debug_*"],
    "roles": {"admin": {"allow_tools": ["admin_*", "debug_*"], "allow_capabilities": ["exec"]}}
  },
  "identity": {"principal": [{"header": "x-mcp-principal"}], "roles": [{"header": "x-mcp-roles"}]}
}`

const (
	ToolCount = 500
	Visible   = 400 // hidden: 50 admin_*, 25 debug_*, 13 exec, 12 restricted
	// VisibleNoLearn: with server.learn_from_lists off the metadata is
	// not read, so only the globs hide tools.
	VisibleNoLearn = 425
	// VirtualTools are the plugin's own tools the first page gains:
	// privacy_status, and preview_transform because the standard profile
	// transforms results.
	VirtualTools = 2
)

// ListsEnvelopeNoLearn is ListsEnvelope with server.learn_from_lists off.
var ListsEnvelopeNoLearn = strings.Replace(ListsEnvelope, `"identity"`, `"server": {"learn_from_lists": false},
  "identity"`, 1)

var (
	verbs = []string{"get", "list", "search", "create", "update", "delete", "export", "import", "sync", "count",
		"archive", "restore", "tag", "assign", "approve", "comment_on", "summarize", "validate", "share", "watch"}
	nouns = []string{"customer", "invoice", "order", "ticket", "project", "document", "contact", "account",
		"payment", "shipment", "product", "employee", "report", "event", "repository", "issue", "deployment",
		"metric", "alert", "campaign", "lead", "contract", "asset", "vendor", "task"}
	props = []struct{ name, typ, desc string }{
		{"id", "string", "Record id"},
		{"query", "string", "Search terms"},
		{"limit", "integer", "Max results"},
		{"cursor", "string", "Page cursor"},
		{"fields", "array", "Fields to return"},
		{"since", "string", "ISO 8601 time"},
		{"dry_run", "boolean", "Only validate"},
	}
)

// tool is tool i of the list: every tenth (i%10 == 3) is admin_*, every
// twentieth (i%20 == 9) debug_*, and every tenth (i%10 == 7) carries
// _meta["io.cloudg/privacy"]: with the exec capability (i%40 == 7) or
// restricted sensitivity (i%40 == 27), both denied by the standard
// profile, or harmless metadata (category, tags, internal sensitivity).
func tool(out []byte, i int) []byte {
	verb, noun := verbs[i%len(verbs)], nouns[i/len(verbs)%len(nouns)]
	name := verb + "_" + noun
	if round := i / (len(verbs) * len(nouns)); round > 0 {
		name += "_" + strconv.Itoa(round)
	}
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
		p := props[(i+k)%len(props)]
		if k > 0 {
			out = append(out, ',')
		}
		out = append(out, `"`+p.name+`":{"type":"`+p.typ+`"`...)
		if k == 0 && i%2 == 0 {
			out = append(out, `,"description":"`+p.desc+`"`...)
		}
		out = append(out, '}')
	}
	out = append(out, `},"required":["`+props[i%len(props)].name+`"]},"annotations":{"readOnlyHint":`...)
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

// ToolsList is the JSON-RPC response with id 1 to tools/list: 500 tools,
// 143,723 bytes.
func ToolsList() []byte { return ToolsListN(ToolCount) }

// ToolsListN is ToolsList with n tools: the first 500 are ToolsList's,
// and from the 501st on each name has the round it was made in as a
// suffix ("get_customer_1"), so names stay unique and the proportions of
// hidden tools stay those of ToolsList.
func ToolsListN(n int) []byte {
	out := []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[`)
	for i := range n {
		if i > 0 {
			out = append(out, ',')
		}
		out = tool(out, i)
	}
	return append(out, `],"nextCursor":"page-2"}}`...)
}

// Fresh returns a function that gives list (made by ToolsListN, or SSE
// of it) each time with another nextCursor of the same length, in one
// buffer it rewrites: a list the plugin has not seen lately, so its memo
// of lists (plugin/mcp listmemo.go) does not answer it.
func Fresh(list []byte) func() []byte {
	list = bytes.Clone(list)
	at := bytes.Index(list, []byte(`"nextCursor":"page-2"`))
	if at < 0 {
		panic("benchdata.Fresh: no nextCursor in the list")
	}
	at += len(`"nextCursor":"page-`)
	n := byte(0)
	return func() []byte {
		n++
		list[at] = '0' + n%10
		return list
	}
}

// SSE is msg as one server-sent event, as the SDKs send it.
func SSE(msg []byte) []byte {
	out := append([]byte("event: message\ndata: "), msg...)
	return append(out, "\n\n"...)
}

const (
	StreamBytes = 1 << 20
	Chunk       = 16 << 10
)

// EventStream is a GET event stream of exactly 1 MiB: events of about
// 1 KB, three notifications/message for each tools/call result with text
// content, each with an SSE id, the rest filled by a comment. The plugin
// changes none of them. It returns the stream and its number of events.
func EventStream() ([]byte, int) {
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
		if len(out)+len(ev)+64 > StreamBytes {
			break
		}
		out = append(out, ev...)
		events++
	}
	pad := StreamBytes - len(out) - len(": \n\n")
	out = append(out, ": "...)
	out = append(out, strings.Repeat("-", pad)...)
	return append(out, "\n\n"...), events
}

// CountTools returns the number of tools in a tools/list response given
// as JSON or as event-stream data lines.
func CountTools(body []byte) (int, error) {
	if rest, ok := bytes.CutPrefix(body, []byte("event: message\ndata: ")); ok {
		body = bytes.TrimSuffix(rest, []byte("\n\n"))
	}
	var msg struct {
		Result struct {
			Tools []struct{ Name string }
		}
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		return 0, err
	}
	return len(msg.Result.Tools), nil
}
