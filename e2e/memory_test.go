package e2e_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/benchdata"
	"github.com/cloudg/mcp-privacy/internal/wasmhost"
)

// TestVMPagesMixedTraffic: the linear memory of one VM, in 64 KiB pages,
// over many streams of mixed traffic under the runtime's defaults (GOGC
// 100, as Envoy runs the plugin unless an operator sets
// vm_config.environment_variables): tools/list of 500 tools with learning,
// tools/call results transformed by the standard profile with a vault
// (a new e-mail address and phone number in every result), the same as an
// event stream, denied and hidden calls, server errors, unparseable
// bodies, and GET event streams ended by a reset. Linear memory never
// shrinks, so its size is the high-water mark of the guest's heap.
//
// The test logs the pages after 1k, 2k, 5k, 10k and 20k streams (10k
// under -race, 5k with -short), and requires the growth after 5k to be
// one heap step at most (maxHeapStep), in one of the two halves of the
// streams after 5k: the other half must stay within maxLatePages. MCP_PRIVACY_MEMORY_STREAMS=100000 runs longer (logging at 50k and
// 100k too); docs/BENCHMARKS.md reports that run:
//
//	MCP_PRIVACY_MEMORY_STREAMS=100000 go test ./e2e/ -run TestVMPagesMixedTraffic -v
//
// TestVMMemoryFlat (robustness_test.go) is the leak detector: it runs
// with GOGC=10, so that a few hundred bytes kept per stream show, and a
// control proves it sees one. This test is the figure an operator sees.
func TestVMPagesMixedTraffic(t *testing.T) {
	total := 20000
	if s := os.Getenv("MCP_PRIVACY_MEMORY_STREAMS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 5000 {
			t.Fatalf("MCP_PRIVACY_MEMORY_STREAMS=%q: want a number of streams ≥ 5000", s)
		}
		total = n
	} else if testing.Short() {
		total = 5000
	} else if raceBuild {
		total = 10000 // the host's Go code runs several times slower under -race
	}
	const warm = 5000
	// maxLatePages bounds the growth after warm-up. The runtime grows the
	// heap in whole pages when its goal (twice the live heap at GOGC 100)
	// passes the memory it has; the live heap after warm-up is the
	// configuration, the learned metadata and the caches, all bounded.
	// Measured (5 December): no page after stream 1 000 up to 50 000;
	// past it, in each run, one step of 8 pages (a heap goal set while a
	// 500-tool list is in hand, most likely) at a different stream, and
	// none after it up to 400 000, so a run of 100 000 streams may fail
	// this bound by that step. Per-stream state kept by mistake grows
	// memory steadily instead (TestVMMemoryFlat's control).
	const maxLatePages = 2
	// maxHeapStep is that one step, wherever it falls: 8 pages on
	// 5 December, 15 (177 -> 192) with the larger module of issues 26-28,
	// after stream 1 000 in one run and 5 000 in another. Growth kept per
	// stream does not stop after a step: it shows in both halves.
	const maxHeapStep = 16

	h, err := wasmhost.New(context.Background(), wasmhost.Options{
		Wasm: benchPlugin(t), PluginConfig: []byte(memEnvelope), Workers: 1, SkipCanary: true,
		AllowOnHeadersStopIteration: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	vm := h.Worker(0)
	traffic := newMemTraffic(t, h)

	pages := func() uint32 { return vm.MemorySize() >> 16 }
	half := warm + (total-warm)/2
	checkpoints := map[int]bool{1000: true, 2000: true, 5000: true, 10000: true, 20000: true, 50000: true, 100000: true, half: true, total: true}
	var atWarm, atHalf uint32
	line := []string{"at start: " + strconv.Itoa(int(pages()))}
	for i := 1; i <= total; i++ {
		traffic.stream(i)
		if checkpoints[i] {
			p := pages()
			line = append(line, strconv.Itoa(i)+": "+strconv.Itoa(int(p)))
			if i == warm {
				atWarm = p
			}
			if i == half {
				atHalf = p
			}
		}
	}
	if err := vm.Err(); err != nil {
		t.Fatalf("VM failed: %v", err)
	}
	t.Logf("VM linear memory in 64 KiB pages after N streams (every %d-th a 500-tool list, the others of %d kinds in turn): %s",
		memListEvery, memKinds, strings.Join(line, ", "))
	// One step, in either half, passes; growth in both halves, or more
	// than a step, does not.
	end := pages()
	if end > atWarm+maxHeapStep || atHalf > atWarm+maxLatePages && end > atHalf+maxLatePages {
		t.Fatalf("VM memory grew from %d pages after %d streams to %d after %d and %d after %d (bounds: one step of %d pages, else %d)",
			atWarm, warm, atHalf, half, end, total, maxHeapStep, maxLatePages)
	}
}

// raceBuild is set by race_on_test.go in a -race build.
var raceBuild bool

// memEnvelope: the standard profile (secrets redacted, personal data
// pseudonymised) with a vault, tools hidden by glob and by the metadata
// learned from lists (benchdata.ListsEnvelope) and delete_* hidden
// (hide_denied defaults to true: a denied call goes upstream as its
// stand-in).
const memEnvelope = `{
  "policy": {
    "name": "memory",
    "extends": "standard",
    "deny_tools": ["admin_*", "debug_*", "delete_*"],
    "roles": {"admin": {"allow_tools": ["admin_*", "debug_*"], "allow_capabilities": ["exec"]}},
    "vault": {"key": "memory test key, not a secret"}
  },
  "identity": {"principal": [{"header": "x-mcp-principal"}], "roles": [{"header": "x-mcp-roles"}]}
}`

const (
	memKinds     = 10 // stream i is of kind i % memKinds
	memListEvery = 50 // and every memListEvery-th is a 500-tool list instead
)

// memTraffic drives the streams of TestVMPagesMixedTraffic, checking that
// each did what its kind should (a test that measured streams failing
// early would measure little).
type memTraffic struct {
	t               *testing.T
	h               *wasmhost.Host
	list, listSSE   []byte
	post, get       func(body string) wasmhost.Headers
	anonymous       func(body string) wasmhost.Headers // a POST without x-mcp-principal
	jsonResp, sseOK wasmhost.Headers
	listed          int // tools in the first filtered list
}

func newMemTraffic(t *testing.T, h *wasmhost.Host) *memTraffic {
	headers := func(method, accept, principal string) func(string) wasmhost.Headers {
		return func(body string) wasmhost.Headers {
			kv := []string{":method", method, ":path", "/mcp", ":authority", "mcp.test", ":scheme", "http",
				"accept", accept, "mcp-session-id", "mem-session"}
			if principal != "" {
				kv = append(kv, "x-mcp-principal", principal)
			}
			if method == "POST" {
				kv = append(kv, "content-type", "application/json", "content-length", strconv.Itoa(len(body)))
			}
			return wasmhost.H(kv...)
		}
	}
	list := benchdata.ToolsList()
	return &memTraffic{
		t: t, h: h, list: list, listSSE: benchdata.SSE(list),
		post:      headers("POST", "application/json, text/event-stream", "alice"),
		anonymous: headers("POST", "application/json, text/event-stream", ""),
		get:       headers("GET", "text/event-stream", "alice"),
		jsonResp:  wasmhost.H(":status", "200", "content-type", "application/json", "mcp-session-id", "mem-session"),
		sseOK:     wasmhost.H(":status", "200", "content-type", "text/event-stream", "mcp-session-id", "mem-session"),
	}
}

// memResult is a tools/call result with personal data unique to stream i
// (so the vault and any cache of pseudonyms see new values throughout).
func memResult(id string, i int) string {
	n := strconv.Itoa(i)
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"customer ` + n +
		`: user` + n + `@example.com, +44 20 7946 ` + strconv.Itoa(1000+i%9000) + `, from 203.0.113.` + strconv.Itoa(i%250) +
		`"}],"structuredContent":{"id":"c-` + n + `","email":"user` + n + `@example.org","notes":"key sk_live_4eC39HqLyjWDarjtT1zdp7dc"},"isError":false}}`
}

func (m *memTraffic) stream(i int) {
	t := m.t
	s := m.h.NewStream()
	defer func() {
		s.Close()
		if s.Failed() {
			t.Fatalf("stream %d (kind %d) failed closed", i, i%memKinds)
		}
	}()
	id := strconv.Itoa(i)
	call := func(tool string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"query":"customer ` + id + `"}}}`
	}
	send := func(body string) {
		s.RequestHeaders(m.post(body), false)
		s.RequestBody([]byte(body), true)
	}
	down := func() string { return string(s.Downstream().Body) }
	if i%memListEvery == 0 {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
		send(body)
		if i%(2*memListEvery) == 0 {
			s.ResponseHeaders(m.jsonResp, false)
			s.ResponseBody(m.list, true)
		} else {
			s.ResponseHeaders(m.sseOK, false)
			s.ResponseBody(m.listSSE, true)
		}
		// Fewer than the server's 500 (the globs and the learned metadata
		// hide some), and the same every time.
		n, err := benchdata.CountTools(s.Downstream().Body)
		if m.listed == 0 {
			m.listed = n
		}
		if err != nil || n != m.listed || n >= benchdata.ToolCount {
			t.Fatalf("stream %d: tools/list: %d tools, %d the first time (%v)", i, n, m.listed, err)
		}
		return
	}
	switch i % memKinds {
	case 0, 1, 2: // an allowed call, its result transformed
		send(call("search_customers"))
		s.ResponseHeaders(m.jsonResp, false)
		s.ResponseBody([]byte(memResult(id, i)), true)
		if out := down(); strings.Contains(out, "user"+id+"@") || !strings.Contains(out, "EMAIL_") {
			t.Fatalf("stream %d: result not transformed: %s", i, out)
		}
	case 3: // the same answered as an event stream, in two chunks
		send(call("search_customers"))
		s.ResponseHeaders(m.sseOK, false)
		ev := "event: message\ndata: " + memResult(id, i) + "\n\n"
		s.ResponseBody([]byte(ev[:len(ev)/2]), false)
		s.ResponseBody([]byte(ev[len(ev)/2:]), true)
		if out := down(); strings.Contains(out, "user"+id+"@") || !strings.Contains(out, "EMAIL_") {
			t.Fatalf("stream %d: event not transformed: %s", i, out)
		}
	case 4: // no principal: refused by the plugin
		body := call("search_customers")
		s.RequestHeaders(m.anonymous(body), false)
		s.RequestBody([]byte(body), true)
		if r := s.LocalReply(); r == nil || !strings.Contains(string(r.Body), `"error"`) {
			t.Fatalf("stream %d: call without a principal not refused: %+v", i, r)
		}
	case 5: // hidden by glob: sent upstream as its stand-in, the server's error given back
		send(call("delete_customer"))
		up := string(s.Upstream().Body)
		name := up[strings.Index(up, `"name":"`)+8:]
		name = name[:strings.IndexByte(name, '"')]
		s.ResponseHeaders(m.jsonResp, false)
		s.ResponseBody([]byte(`{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32602,"message":"unknown tool \"`+name+`\""}}`), true)
		if out := down(); !strings.Contains(out, `delete_customer`) {
			t.Fatalf("stream %d: hidden call's answer: %s (upstream got %s)", i, out, up)
		}
	case 6: // the server's JSON-RPC error
		send(call("search_customers"))
		s.ResponseHeaders(m.jsonResp, false)
		s.ResponseBody([]byte(`{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32000,"message":"backend unavailable for user`+id+`@example.com"}}`), true)
		if out := down(); !strings.Contains(out, `"error"`) {
			t.Fatalf("stream %d: server error not passed: %s", i, out)
		}
	case 7: // an unparseable body, answered by the plugin
		send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":`)
		if r := s.LocalReply(); r == nil {
			t.Fatalf("stream %d: unparseable body not answered locally", i)
		}
	case 8: // the server fails with an HTTP 502 page
		send(call("search_customers"))
		s.ResponseHeaders(wasmhost.H(":status", "502", "content-type", "text/html"), false)
		s.ResponseBody([]byte("<html><body>bad gateway</body></html>"), true)
		if d := s.Downstream(); d.Status() != 502 {
			t.Fatalf("stream %d: the server's 502 reached the client as %d", i, d.Status())
		}
	case 9: // a GET event stream, a notification, then the client goes away
		s.RequestHeaders(m.get(""), true)
		s.ResponseHeaders(m.sseOK, false)
		s.ResponseBody([]byte(`event: message`+"\n"+`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"sync for user`+id+`@example.com done"}}`+"\n\n"), false)
		s.Reset("client went away")
	}
}
