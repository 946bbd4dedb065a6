package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/proxy"
	"github.com/cloudg/mcp-privacy/internal/wasmhost"
	"github.com/cloudg/mcp-privacy/internal/wasmtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Robustness of the compiled plugin (build/mcp-privacy.wasm) under the
// Envoy-like host, over real HTTP where it matters: a panic fails one
// stream and not the VM (manual 16), per-stream memory is freed, bodies that
// JSON parsers could read differently never reach the server, and an
// invalid configuration is refused whole. Helpers are prefixed rb.

// rbResponse is what a raw HTTP exchange through the plugin produced.
type rbResponse struct {
	status  int
	header  http.Header
	body    []byte
	bodyErr error // reading the body failed (the stream was reset)
}

// rbClient sends the raw requests, one connection each, so that no case
// depends on the state a hostile request left its connection in (a reply
// sent before the request body was read used to break the connection; see
// TestLocalReplyBeforeBodyEnds). Its own transport also keeps these
// connections out of the pool the go-sdk client sessions use
// (http.DefaultTransport).
var rbClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// rbPost sends one raw POST to base+"/mcp", with a content-length, or
// chunked (no content-length) when chunked is set.
func rbPost(t *testing.T, base string, headers map[string]string, body string, chunked bool) rbResponse {
	t.Helper()
	var rd io.Reader = strings.NewReader(body)
	if chunked {
		// A reader of unknown length: Go's client sends it chunked.
		rd = io.MultiReader(strings.NewReader(body))
	}
	req, err := http.NewRequestWithContext(ctxT(t), http.MethodPost, base+"/mcp", rd)
	if err != nil {
		t.Fatal(err)
	}
	if chunked {
		req.ContentLength = -1
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := rbClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return rbResponse{status: res.StatusCode, header: res.Header, body: b, bodyErr: err}
}

// rbRPCError decodes a JSON-RPC error response body (a single object).
func rbRPCError(t *testing.T, body []byte) (code int, message string) {
	t.Helper()
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil || m.JSONRPC != "2.0" || m.Error == nil {
		t.Fatalf("not a JSON-RPC error response (%v): %q", err, body)
	}
	return m.Error.Code, m.Error.Message
}

// rbCheckWorkers fails the test if any worker VM of p failed (trapped).
func rbCheckWorkers(t *testing.T, p *plugin) {
	t.Helper()
	for _, vm := range p.proxy.Host().Workers() {
		if err := vm.Err(); err != nil {
			t.Fatalf("worker %d failed: %v", vm.Index(), err)
		}
	}
}

// rbServedNormally proves the plugin still serves: a new MCP session
// (initialize, notifications/initialized) and an allowed tools/call.
func rbServedNormally(t *testing.T, p *plugin) {
	t.Helper()
	cs := connect(t, p.URL, "alice", "")
	res, err := cs.CallTool(ctxT(t), &mcp.CallToolParams{Name: "search_customers", Arguments: map[string]any{"query": "alice"}})
	if err != nil || res.IsError {
		t.Fatalf("tools/call after the failure: %v %+v", err, res)
	}
	if b, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(b), `"customers"`) {
		t.Fatalf("tools/call after the failure: unexpected result %s", b)
	}
}

// rbLogStage is how plugin/main.go names a callback in its
// "internal error in <stage>" log line (the hook's stage names use
// underscores, the log uses words).
var rbLogStage = map[string]string{
	"request_headers":  "request headers",
	"request_body":     "request body",
	"response_headers": "response headers",
	"response_body":    "response body",
}

// TestPanicFailsOneStream: a panic in any callback is recovered and fails
// only that stream (manual 16). The failure-injection build panics in the
// callback named by x-mcp-privacy-test-panic (plugin/testhook_on.go).
//
// What the client must see depends on how far the stream got, by Envoy's
// rules for proxy_send_local_response (docs/HARNESS.md):
//   - request_headers, request_body: the reply is sent from the request
//     phase and passes the plugin's (already failed, so pass-through)
//     response callbacks: HTTP 500 with a JSON-RPC -32603 body, and the
//     request never reaches the server;
//   - response_headers: the upstream's headers arrived but were not sent
//     on: the reply replaces the response directly, HTTP 500 with -32603;
//   - response_body: the response headers already went to the client, so
//     the host resets the stream: the client gets the 200 headers and then
//     a broken body (a reset, never a complete response).
//
// In every case the VM is not failed, the panic is logged, and the same
// (single) worker serves the next session normally.
func TestPanicFailsOneStream(t *testing.T) {
	wasm := wasmtest.PluginWithTestHooks(t)
	for _, hold := range []bool{true, false} {
		t.Run(fmt.Sprintf("hold_headers=%v", hold), func(t *testing.T) {
			up := startUpstream(t, false)
			config := fmt.Sprintf(`{"policy": {"name": "t", "deny_tools": ["delete_*"]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]},
  "gateway": {"hold_headers": %v}}`, hold)
			p := startPlugin(t, up.URL, config, func(o *proxy.Options) {
				o.Wasm = wasm
				o.Workers = 1 // "the next request" runs on the very VM that panicked
			})
			// A session for the raw requests, so the ones that reach the
			// server (response stages) are valid there.
			cs := connect(t, p.URL, "alice", "")
			for _, stage := range []string{"request_headers", "request_body", "response_headers", "response_body"} {
				t.Run(stage, func(t *testing.T) {
					marker := "rb-panic-marker-" + stage
					body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_customers","arguments":{"query":"` + marker + `"}}}`
					res := rbPost(t, p.URL, map[string]string{
						"x-mcp-principal":          "alice",
						"x-mcp-privacy-test-panic": stage,
						"mcp-session-id":           cs.ID(),
						"mcp-protocol-version":     cs.InitializeResult().ProtocolVersion,
					}, body, false)

					panicked := strings.Contains(p.logs.String(), "internal error in "+rbLogStage[stage])
					if !panicked {
						// (The hook must take the header from the request
						// headers callback: hosts make the request header map
						// unavailable once the headers were passed on.)
						t.Errorf("no %q logged: the injected panic never fired (got HTTP %d %.200q)",
							"internal error in "+rbLogStage[stage], res.status, res.body)
					}
					switch stage {
					case "request_headers", "request_body", "response_headers":
						if res.status != http.StatusInternalServerError || res.bodyErr != nil {
							t.Errorf("want HTTP 500 with a complete body, got %d (body error %v): %.200q", res.status, res.bodyErr, res.body)
							break
						}
						if ct := res.header.Get("content-type"); ct != "application/json" {
							t.Errorf("content-type %q", ct)
						}
						if code, _ := rbRPCError(t, res.body); code != -32603 {
							t.Errorf("JSON-RPC code %d, want -32603: %s", code, res.body)
						}
						if stage != "response_headers" && up.received(marker) {
							t.Errorf("the failed request reached the server")
						}
					case "response_body":
						if res.status != http.StatusOK || res.bodyErr == nil {
							t.Errorf("want the 200 headers and then a reset body, got %d, body error %v: %.200q", res.status, res.bodyErr, res.body)
						}
					}
					rbCheckWorkers(t, p)
					rbServedNormally(t, p)
				})
			}
		})
	}
}

// TestVMMemoryFlat: per-stream state is freed at stream end (manual 16).
// Thousands of MCP-shaped streams run through one worker VM. Wasm linear
// memory never shrinks, so its size is the high-water mark of the guest's
// Go heap: once warmed up it must stay flat; state kept per stream would
// make it grow again.
//
// The VM runs with GOGC=10 in its environment (Envoy:
// vm_config.environment_variables). With the default GOGC=100 the heap
// goal is at least 4 MiB, and memory only grows once the live heap passes
// about half of that: a leak of a few hundred bytes per stream stays
// invisible for thousands of streams (measured: leaking the context of one
// stream in ten moved nothing between stream 5 000 and 30 000), and the
// warm-up itself lasts ~5 000 streams (8.0 MiB after 1 000, 9.3 MiB from
// 5 000 on, flat to 100 000). With GOGC=10 the goal follows the live heap
// (x1.1, 0.4 MiB minimum): memory is flat from stream ~350 on, and the
// control subtest below shows that the same leak is caught.
func TestVMMemoryFlat(t *testing.T) {
	total, warm := 10000, 1000
	if testing.Short() {
		total = 2000
	}
	atWarm, atEnd := rbStreamMemory(t, total, warm, 0)
	t.Logf("VM memory: %d KiB after %d streams, %d KiB after %d", atWarm>>10, warm, atEnd>>10, total)
	// Bound: one 64 KiB page. Memory grows in whole pages; leak-free
	// traffic was measured to take at most one page after warm-up (with
	// GOGC 1, 5 or 20 the runtime takes exactly one more page once, between
	// stream 1 100 and 1 900; with 10, none). Anything kept per stream over
	// the 9 000 streams after warm-up that the control detects is far more.
	if atEnd > atWarm+64<<10 {
		t.Fatalf("VM memory grew from %d to %d bytes between stream %d and %d: per-stream state is not freed",
			atWarm, atEnd, warm, total)
	}

	// The host counts no proxy_on_delete calls, so they are not checked
	// one by one; the control proves the bound above catches missing ones:
	// streams the host never ends (no proxy_on_log/done/delete) keep their
	// SDK http context and the plugin's per-stream state alive, exactly
	// what a plugin leaking per-stream state would do.
	t.Run("control: 1 stream in 10 never ended", func(t *testing.T) {
		if testing.Short() {
			t.Skip("needs the full run to show")
		}
		w, e := rbStreamMemory(t, 10000, warm, 10)
		t.Logf("VM memory: %d KiB after %d streams, %d KiB after %d", w>>10, warm, e>>10, 10000)
		if e <= w+64<<10 {
			t.Fatalf("900 leaked stream contexts did not grow memory (%d -> %d bytes): the test cannot see a leak", w, e)
		}
	})
}

// rbStreamMemory runs total streams of mixed MCP traffic through a fresh
// host (one worker VM) and returns the VM's memory size after warm streams
// and at the end. leakEvery > 0 leaves every leakEvery-th stream unended.
func rbStreamMemory(t *testing.T, total, warm, leakEvery int) (atWarm, atEnd uint32) {
	t.Helper()
	// hold_headers true with allow_on_headers_stop_iteration, as shipped,
	// plus export headers: every per-stream code path that keeps state.
	config := `{"policy": {"name": "t", "deny_tools": ["delete_*"]},
  "identity": {"principal": [{"header": "x-mcp-principal"}], "roles": [{"header": "x-mcp-roles"}]},
  "gateway": {"hold_headers": true, "export_headers": {"principal": "x-p", "primitive": "x-prim", "decision": "x-dec"}}}`
	h, err := wasmhost.New(context.Background(), wasmhost.Options{
		Wasm: wasmtest.Plugin(t), PluginConfig: []byte(config), Workers: 1, SkipCanary: true,
		AllowOnHeadersStopIteration: true, Env: map[string]string{"GOGC": "10"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	vm := h.Worker(0)

	pad := strings.Repeat("x", 200) // bodies of a few hundred bytes
	post := wasmhost.H(":method", "POST", ":path", "/mcp", ":authority", "mcp.test", ":scheme", "http",
		"content-type", "application/json", "accept", "application/json, text/event-stream",
		"x-mcp-principal", "alice", "x-mcp-roles", "support", "mcp-session-id", "rb-session")
	get := wasmhost.H(":method", "GET", ":path", "/mcp", ":authority", "mcp.test", ":scheme", "http",
		"accept", "text/event-stream", "x-mcp-principal", "alice", "mcp-session-id", "rb-session")
	jsonResp := wasmhost.H(":status", "200", "content-type", "application/json")
	sseResp := wasmhost.H(":status", "200", "content-type", "text/event-stream")

	// Stream i is of kind i%5: an allowed call answered in JSON, the same
	// answered as an event stream, a hidden call (sent as its stand-in, the
	// server's answer given the name back), a batch with an invalid element
	// (local answers merged into the upstream's), a GET stream ended by a
	// reset.
	one := func(i int) {
		s := h.NewStream()
		if leakEvery == 0 || i%leakEvery != 0 {
			defer s.Close()
		}
		id := strconv.Itoa(i)
		switch i % 5 {
		case 0, 1:
			body := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"search_customers","arguments":{"query":"` + pad + `"}}}`
			s.RequestHeaders(post, false)
			if st := s.RequestBody([]byte(body), true); st != wasmhost.Continue {
				t.Fatalf("stream %d: allowed call: %v", i, st)
			}
			result := `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"` + pad + `"}]}}`
			if i%5 == 0 {
				s.ResponseHeaders(jsonResp, false)
				s.ResponseBody([]byte(result), true)
			} else {
				s.ResponseHeaders(sseResp, false)
				s.ResponseBody([]byte("event: message\ndata: "+result+"\n\n"), false)
				s.ResponseBody(nil, true)
			}
			if d := s.Downstream(); !d.EndOfStream || !strings.Contains(string(d.Body), `"result"`) {
				t.Fatalf("stream %d: response not passed: %+v", i, d)
			}
		case 2:
			body := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"delete_customer","arguments":{"id":"` + pad + `"}}}`
			s.RequestHeaders(post, false)
			if st := s.RequestBody([]byte(body), true); st != wasmhost.Continue || s.LocalReply() != nil {
				t.Fatalf("stream %d: hidden call: %v %+v", i, st, s.LocalReply())
			}
			up := string(s.Upstream().Body)
			name := up[strings.Index(up, `"name":"`)+8:]
			name = name[:strings.IndexByte(name, '"')]
			s.ResponseHeaders(jsonResp, false)
			s.ResponseBody([]byte(`{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32602,"message":"unknown tool \"`+name+`\""}}`), true)
			if d := s.Downstream(); !strings.Contains(string(d.Body), `unknown tool \"delete_customer\"`) {
				t.Fatalf("stream %d: hidden call's answer: %s (upstream got %s)", i, d.Body, up)
			}
		case 3:
			body := `[{"jsonrpc":"2.0","id":"a` + id + `","method":"tools/call","params":{"name":"search_customers","arguments":{"query":"` + pad + `"}}},` +
				`{"jsonrpc":"2.0","id":"b` + id + `","method":"tools/call","params":{"name":""}}]`
			s.RequestHeaders(post, false)
			s.RequestBody([]byte(body), true)
			s.ResponseHeaders(jsonResp, false)
			s.ResponseBody([]byte(`[{"jsonrpc":"2.0","id":"a`+id+`","result":{"content":[]}}]`), true)
			if d := s.Downstream(); !strings.Contains(string(d.Body), `"b`+id+`"`) {
				t.Fatalf("stream %d: batch answers not merged: %s", i, d.Body)
			}
		case 4:
			s.RequestHeaders(get, true)
			s.ResponseHeaders(sseResp, false)
			s.ResponseBody([]byte(`event: message`+"\n"+`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`+pad+`"}}`+"\n\n"), false)
			s.Reset("client went away") // long-lived GET streams end by a reset
		}
	}
	for i := 0; i < total; i++ {
		one(i)
		if i+1 == warm {
			atWarm = vm.MemorySize()
		}
	}
	if err := vm.Err(); err != nil {
		t.Fatalf("VM failed: %v", err)
	}
	return atWarm, vm.MemorySize()
}

// TestHostileBodiesNeverForwarded: bodies that JSON parsers could read
// differently, that cannot be inspected, or that are too large are answered
// by the plugin with the right HTTP status and JSON-RPC code (manual 15, 16),
// and none of them reaches the server (each carries a unique marker the
// recording upstream is searched for). Both request-header modes: headers
// held until the verdict, or sent on before the body is judged.
func TestHostileBodiesNeverForwarded(t *testing.T) {
	for _, hold := range []bool{true, false} {
		t.Run(fmt.Sprintf("hold_headers=%v", hold), func(t *testing.T) {
			up := startUpstream(t, false)
			config := fmt.Sprintf(`{"policy": {"name": "t", "deny_tools": ["delete_*"]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]},
  "gateway": {"hold_headers": %v, "max_request_bytes": 4096}}`, hold)
			p := startPlugin(t, up.URL, config)
			cs := connect(t, p.URL, "alice", "")
			session := map[string]string{
				"x-mcp-principal":      "alice",
				"mcp-session-id":       cs.ID(),
				"mcp-protocol-version": cs.InitializeResult().ProtocolVersion,
			}

			call := func(params string) string {
				return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + params + `}`
			}
			deep := call(`{"name":"search_customers","arguments":{"query":` + // depth 3
				strings.Repeat("[", 62) + `"MARKER"` + strings.Repeat("]", 62) + `}}`) // 65 levels
			big := call(`{"name":"search_customers","arguments":{"query":"MARKER","pad":"` + strings.Repeat("p", 5000) + `"}}`)
			// The empty batch cannot carry a marker inside; its unusual
			// whitespace is the marker.
			emptyBatch := "[" + strings.Repeat(" \t\n", 11) + "]"

			cases := []struct {
				name    string
				body    string // "MARKER" is replaced by a unique marker
				marker  string // the marker, when not in the body (empty batch)
				headers map[string]string
				chunked bool
				status  int
				code    int
			}{
				{name: "duplicate keys", body: call(`{"name":"search_customers","name":"delete_customer","arguments":{"id":"MARKER"}}`), status: 200, code: -32600},
				{name: "keys equal under case folding", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_customers","arguments":{"query":"MARKER"}},"Params":{"name":"delete_customer"}}`, status: 200, code: -32600},
				{name: "invalid UTF-8", body: call(`{"name":"search_customers","arguments":{"query":"MARKER` + "\xff\xfe" + `"}}`), status: 200, code: -32600},
				{name: "lone surrogate", body: call(`{"name":"search_customers","arguments":{"query":"MARKER\ud800"}}`), status: 200, code: -32600},
				{name: "nesting depth 65", body: deep, status: 200, code: -32600},
				{name: "trailing data", body: call(`{"name":"search_customers","arguments":{"query":"MARKER"}}`) + `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_customer"}}`, status: 200, code: -32600},
				{name: "number beyond float64", body: call(`{"name":"search_customers","arguments":{"query":"MARKER","limit":1e400}}`), status: 200, code: -32600},
				{name: "empty batch", body: emptyBatch, marker: emptyBatch, status: 200, code: -32600},
				{name: "over max_request_bytes with content-length", body: big, status: 413, code: -32600},
				{name: "over max_request_bytes chunked", body: big, chunked: true, status: 413, code: -32600},
				{name: "gzip content-encoding", body: call(`{"name":"search_customers","arguments":{"query":"MARKER"}}`),
					headers: map[string]string{"content-encoding": "gzip"}, status: 415, code: -32600},
				{name: "not JSON", body: `tools/call search_customers MARKER`, status: 200, code: -32700},
			}
			for i, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					marker := tc.marker
					body := tc.body
					if marker == "" {
						marker = fmt.Sprintf("rb-hostile-%v-%d", hold, i)
						body = strings.Replace(body, "MARKER", marker, 1)
						if !strings.Contains(body, marker) {
							t.Fatal("no marker in the body")
						}
					}
					if strings.HasPrefix(tc.name, "over max_request_bytes") && len(body) <= 4096 {
						t.Fatalf("body of %d bytes is not over the limit", len(body))
					}
					headers := map[string]string{}
					for k, v := range session {
						headers[k] = v
					}
					for k, v := range tc.headers {
						headers[k] = v
					}
					res := rbPost(t, p.URL, headers, body, tc.chunked)
					if res.bodyErr != nil {
						t.Fatalf("reading the answer: %v", res.bodyErr)
					}
					if res.status != tc.status {
						t.Errorf("HTTP %d, want %d: %s", res.status, tc.status, res.body)
					}
					if code, msg := rbRPCError(t, res.body); code != tc.code {
						t.Errorf("JSON-RPC code %d (%s), want %d", code, msg, tc.code)
					}
					if up.received(marker) {
						t.Errorf("the server received the hostile body")
					}
				})
			}
			// The session is intact: the same client still works. This also
			// controls the recorder: a sound body does reach the server.
			if _, err := cs.CallTool(ctxT(t), &mcp.CallToolParams{Name: "search_customers", Arguments: map[string]any{"query": "rb-sound-body"}}); err != nil {
				t.Fatalf("session after the hostile bodies: %v", err)
			}
			if !up.received("rb-sound-body") {
				t.Fatal("a sound tools/call did not reach the server: the recorder proves nothing")
			}
			rbCheckWorkers(t, p)
		})
	}
}

// TestConfigRejected: an invalid envelope is refused as a whole
// (proxy_on_configure false, manual 2), and the refusal carries every error
// with its JSON path, not just the first.
func TestConfigRejected(t *testing.T) {
	up, _ := url.Parse("http://127.0.0.1:1") // never contacted
	config := `{"policy": {"name": "t", "deny_tool": ["delete_*"]},
  "identity": {"principal": [{"header": "x-mcp-principal"}, {"heder": "x-user"}]},
  "gateway": {"max_request_bytes": "big", "hold_headers": true}}`
	logs := &logLines{}
	p, err := proxy.New(context.Background(), proxy.Options{
		Wasm: wasmtest.Plugin(t), PluginConfig: []byte(config), Upstream: up, Workers: 2,
		Logger: logs.add, AllowOnHeadersStopIteration: true,
	})
	if err == nil {
		_ = p.Close(context.Background())
		t.Fatal("the plugin accepted an invalid configuration")
	}
	var ce *wasmhost.ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("want a *wasmhost.ConfigError, got %T: %v", err, err)
	}
	if ce.Stage != "configure" || ce.Err != nil {
		t.Errorf("stage %q, trap %v: want a clean refusal in configure", ce.Stage, ce.Err)
	}
	var all strings.Builder
	for _, l := range ce.Logs {
		all.WriteString(l.Msg + "\n")
	}
	// Three mistakes in three sections: each is reported with its path,
	// in the ConfigError and in the host's log (what Envoy's log shows).
	for _, want := range []string{"3 error(s)", "policy.deny_tool:", "identity.principal[1].heder:", "gateway.max_request_bytes:"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("the refusal does not mention %q; logs:\n%s", want, all.String())
		}
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the host log does not mention %q", want)
		}
	}
	t.Logf("refusal:\n%s", all.String())
}

// TestLocalReplyBeforeBodyEnds: the plugin answers from the request headers
// (here 415 for a compressed body) while the client is still sending the
// body. The HTTP/1.1 connection must then either be closed cleanly (the
// reply says Connection: close, as Envoy does when a response completes
// before its request) or stay usable for the next request: a client that
// reuses it (Go's transport, the go-sdk client) must not break.
func TestLocalReplyBeforeBodyEnds(t *testing.T) {
	up := startUpstream(t, false)
	p := startPlugin(t, up.URL, `{"policy": {"name": "t"}, "identity": {"principal": [{"header": "x-mcp-principal"}]}}`)
	c, err := net.Dial("tcp", strings.TrimPrefix(p.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	half := `{"jsonrpc":"2.0","id":1,"method":"ping"` // of a 2x-long body
	if _, err := io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: mcp.test\r\nContent-Type: application/json\r\n"+
		"Content-Encoding: gzip\r\nContent-Length: "+strconv.Itoa(2*len(half))+"\r\n\r\n"+half); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("first response: %v", err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusUnsupportedMediaType {
		t.Fatalf("first response: HTTP %d, want 415", res.StatusCode)
	}
	if res.Close {
		return // closed cleanly: the client will not reuse the connection
	}
	// Kept alive: the rest of the body, then a second request.
	if _, err := io.WriteString(c, strings.Repeat(" ", len(half))+"GET /other HTTP/1.1\r\nHost: mcp.test\r\n\r\n"); err != nil {
		t.Fatalf("the connection was kept alive but writing on it failed: %v", err)
	}
	res, err = http.ReadResponse(br, nil)
	if err != nil {
		// (The cause seen first: the proxy's handler returned while its
		// goroutine was still reading the request body; net/http then
		// panicked "invalid concurrent Body.Read call" and dropped the
		// connection.)
		t.Fatalf("the 415 kept the connection alive (no Connection: close), but the next request on it failed: %v", err)
	}
	res.Body.Close()
}
