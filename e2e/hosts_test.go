package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/proxy"
	"github.com/cloudg/mcp-privacy/internal/wasmhost"
	"github.com/cloudg/mcp-privacy/internal/wasmtest"
)

// The host matrix: the suites that judge requests and transform responses,
// in representative cases, under every host profile serve --host knows
// (internal/wasmhost/profile.go), and under an Envoy whose buffer limit is
// below the body limits with gateway.body_buffering: plugin. On every host
// the client must get what it gets under envoy, byte for byte.

// hostCase is one host of the matrix.
type hostCase struct {
	name      string
	profile   string
	buffering string // gateway.body_buffering ("": the default, auto)
	bufferCap int    // Envoy's buffer limit (0: envoy/envoy.yaml's 17 MiB)
}

var hostMatrix = []hostCase{
	{name: "envoy", profile: "envoy"},
	{name: "envoy-1.34", profile: "envoy-1.34"},
	{name: "higress", profile: "higress"},
	{name: "ngx-wasm", profile: "ngx-wasm"},
	// An Envoy whose buffer limit (1 MiB, its default) is below the 5 MiB
	// answer: only the plugin's own holding processes it.
	{name: "envoy-small-buffer-plugin", profile: "envoy", buffering: "plugin", bufferCap: 1 << 20},
}

// startOnHost runs the plugin with envelope under a host of the matrix.
func startOnHost(t *testing.T, hc hostCase, target, envelope string) *plugin {
	t.Helper()
	p := wasmhost.Profiles[hc.profile]
	if hc.buffering != "" {
		envelope = strings.Replace(envelope, `"gateway": {`, `"gateway": {"body_buffering": "`+hc.buffering+`", `, 1)
	}
	config := envelope
	if p.Configure != nil {
		out, err := p.Configure([]byte(`{"defaultConfig": ` + envelope + `}`))
		if err != nil {
			t.Fatal(err)
		}
		config = string(out)
	}
	return startPlugin(t, target, config, func(o *proxy.Options) {
		o.Semantics, o.HostProperties = p.Semantics, p.HostProperties
		o.AllowOnHeadersStopIteration = p.AllowStopIteration(o.AllowOnHeadersStopIteration)
		o.BufferLimitBytes = 17825792 // envoy/envoy.yaml's, as serve
		if hc.bufferCap > 0 {
			o.BufferLimitBytes = hc.bufferCap
		}
		if p.Properties != nil {
			o.Properties = func(*http.Request) map[string][]byte { return p.Properties("mcp", "outbound|80||mcp.local") }
		}
	})
}

// hostUpstream is a scripted MCP server: a tools/call with {"big": true}
// answers a 5 MiB
// result whose last KiB holds an email (with a content-length, or chunked
// when its argument says so); tools/list answers an event stream written
// in 4 KiB pieces; every other call is echoed.
type hostUpstream struct {
	upstream // its server, the bodies it received and received (setup_test.go)
}

const bigEmail = "last.kib@example.com"

func bigResult(id json.RawMessage) string {
	text := strings.Repeat("All quiet on the wire. ", 5<<20/23) + " Write to " + bigEmail + " for more."
	return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"content":[{"type":"text","text":"` + text + `"}]}}`
}

func hostToolsList(id json.RawMessage) string {
	var tools []string
	for _, name := range []string{"echo", "delete_customer", "search_customers", "wipe_everything", "get_customer"} {
		tools = append(tools, `{"name":"`+name+`","description":"`+strings.Repeat("A tool. ", 400)+`","inputSchema":{"type":"object"}}`)
	}
	return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"tools":[` + strings.Join(tools, ",") + `]}}`
}

func startHostUpstream(t *testing.T) *hostUpstream {
	u := &hostUpstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.bodies = append(u.bodies, string(body))
		u.mu.Unlock()
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &msg)
		switch {
		case msg.Method == "tools/list":
			w.Header().Set("Content-Type", "text/event-stream")
			ev := []byte("event: message\ndata: " + hostToolsList(msg.ID) + "\n\n")
			for i := 0; i < len(ev); i += 4096 {
				_, _ = w.Write(ev[i:min(i+4096, len(ev))])
				w.(http.Flusher).Flush()
			}
		case msg.Params.Arguments["big"] == true:
			w.Header().Set("Content-Type", "application/json")
			b := bigResult(msg.ID)
			if msg.Params.Arguments["chunked"] != true {
				w.Header().Set("Content-Length", strconv.Itoa(len(b)))
			}
			_, _ = io.WriteString(w, b)
		default:
			w.Header().Set("Content-Type", "application/json")
			text, _ := json.Marshal(fmt.Sprint(msg.Params.Arguments["text"]))
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"content":[{"type":"text","text":`+string(text)+`}]}}`)
		}
	}))
	t.Cleanup(u.Close)
	return u
}

func TestHostMatrix(t *testing.T) {
	up := startHostUpstream(t)
	tcall := func(id int, name, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, name, args)
	}
	type answer struct {
		status int
		body   string
	}
	results := map[string]map[string]answer{} // host -> case -> answer
	for _, hc := range hostMatrix {
		t.Run(hc.name, func(t *testing.T) {
			p := startOnHost(t, hc, up.URL, envelope(true, false))
			results[hc.name] = map[string]answer{}
			for _, tc := range []struct {
				name, body string
				want       []string // in the answer
				never      []string // neither in the answer nor at the server
			}{
				{name: "allowed call, email transformed", body: tcall(1, "echo", `{"text":"mail ann@example.com"}`),
					want: []string{`"id":1`, "EMAIL_"}, never: []string{"ann@example.com\""}},
				{name: "denied call never reaches the server", body: tcall(2, "delete_customer", `{"id":"marker-host-denied"}`),
					want: []string{`"id":2`}, never: []string{"marker-host-denied"}},
				{name: "5 MiB result, content-length", body: tcall(3, "echo", `{"big":true}`),
					want: []string{`"id":3`, "EMAIL_", "for more."}, never: []string{bigEmail}},
				{name: "5 MiB result, chunked", body: tcall(4, "echo", `{"big":true,"chunked":true}`),
					want: []string{`"id":4`, "EMAIL_", "for more."}, never: []string{bigEmail}},
				{name: "tools/list event stream in 4 KiB chunks", body: `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`,
					want: []string{`"id":5`, `"name":"echo"`, `"name":"search_customers"`}, never: []string{`"name":"delete_customer"`, `"name":"wipe_everything"`}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					status, body := rawPost(t, p.URL, "", "ann", "support", tc.body)
					results[hc.name][tc.name] = answer{status, body}
					if status != 200 {
						t.Fatalf("HTTP %d: %.300s\n%s", status, body, p.logs)
					}
					for _, w := range tc.want {
						if !strings.Contains(body, w) {
							t.Errorf("answer (%d bytes) %.200s...%.200s lacks %s", len(body), body, body[max(0, len(body)-200):], w)
						}
					}
					for _, n := range tc.never {
						if strings.Contains(body, n) {
							t.Errorf("%s reached the client", n)
						}
						if strings.HasPrefix(n, "marker") && up.received(n) {
							t.Errorf("%s reached the server", n)
						}
					}
					if strings.Count(body, `"jsonrpc"`) != 1 {
						t.Errorf("answer holds %d messages, want 1: %.300s", strings.Count(body, `"jsonrpc"`), body)
					}
				})
			}
		})
	}
	// Every host gives the client what envoy gives it, byte for byte but
	// for the pseudonyms (each plugin instance has its own key).
	pseudonym := regexp.MustCompile(`EMAIL_[A-Z2-7]+`)
	for _, hc := range hostMatrix[1:] {
		for name, want := range results["envoy"] {
			got, ok := results[hc.name][name]
			got.body = pseudonym.ReplaceAllString(got.body, "EMAIL_")
			want.body = pseudonym.ReplaceAllString(want.body, "EMAIL_")
			if ok && got != want {
				t.Errorf("%s, %s: HTTP %d, %d bytes; envoy gave HTTP %d, %d bytes", hc.name, name, got.status, len(got.body), want.status, len(want.body))
			}
		}
	}
}

// gateway.hold_headers under the hosts that honour it: envoy (with
// allow_on_headers_stop_iteration) and ngx-wasm, where the plugin does
// not pause the headers (a pause stalls there) because nginx sends
// nothing upstream before the body was judged. A denied call never
// reaches the server; an allowed one is answered. (envoy-1.34 cannot:
// serve refuses the combination, TestServeRefusesHoldHeadersWithoutStopIteration.)
// And a body over max_response_bytes fails closed with the manual's
// answer on every host, never a truncated body.
func TestHostMatrixHoldHeadersAndLimits(t *testing.T) {
	up := startHostUpstream(t)
	limited := strings.Replace(envelope(true, true), `"gateway": {`, `"gateway": {"max_response_bytes": 1048576, `, 1)
	var envoyTooLarge string
	for _, hc := range []hostCase{{name: "envoy", profile: "envoy"}, {name: "ngx-wasm", profile: "ngx-wasm"}} {
		t.Run(hc.name, func(t *testing.T) {
			p := startOnHost(t, hc, up.URL, limited)
			status, body := rawPost(t, p.URL, "", "ann", "support", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_customer","arguments":{"id":"marker-hold-denied"}}}`)
			if status != 200 || !strings.Contains(body, `"id":1`) || up.received("marker-hold-denied") {
				t.Errorf("denied call: HTTP %d %s (reached the server: %v)", status, body, up.received("marker-hold-denied"))
			}
			status, body = rawPost(t, p.URL, "", "ann", "support", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
			if status != 200 || !strings.Contains(body, `"text":"hello"`) {
				t.Errorf("allowed call: HTTP %d %s\n%s", status, body, p.logs)
			}
			status, body = rawPost(t, p.URL, "", "ann", "support", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"big":true}}}`)
			if status != 200 || !strings.Contains(body, `"code":-32603`) || strings.Contains(body, "All quiet") {
				t.Errorf("too large: HTTP %d %.300s", status, body)
			}
			if hc.name == "envoy" {
				envoyTooLarge = body
			} else if body != envoyTooLarge {
				t.Errorf("too large: %s; envoy answered %s", body, envoyTooLarge)
			}
		})
	}
}

// Failures on ngx-wasm, where the plugin holds bodies and a local reply
// from a response body traps the VM: the -32603 error reaches the client
// whole, nothing of the server's answer goes out, and the VM keeps
// serving.
func TestNgxWasmFailureInHeldResponse(t *testing.T) {
	up := startHostUpstream(t)
	logs := &logLines{}
	prof := wasmhost.Profiles["ngx-wasm"]
	target, _ := url.Parse(up.URL)
	px, err := proxy.New(context.Background(), proxy.Options{Wasm: wasmtest.PluginWithTestHooks(t), PluginConfig: []byte(envelope(true, false)),
		Upstream: target, Workers: 1, Logger: logs.add, Semantics: prof.Semantics, HostProperties: prof.HostProperties})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(px)
	t.Cleanup(func() { srv.Close(); _ = px.Close(context.Background()) })
	post := func(panicAt string) (int, string) {
		req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"secret ann@example.com"}}}`))
		setRawHeaders(req, "", "ann", "support")
		if panicAt != "" {
			req.Header.Set("x-mcp-privacy-test-panic", panicAt)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	// A failure before the response is the plugin's local 500, passed
	// whole through its own response callbacks (regression: they emptied
	// its body); one in the held response body is written as the body.
	for _, tc := range []struct {
		stage  string
		status int
	}{{"request_body", 500}, {"response_headers", 500}, {"response_body", 200}} {
		status, body := post(tc.stage)
		if status != tc.status || !strings.Contains(body, `"code":-32603`) || strings.Contains(body, "secret") {
			t.Errorf("failure in %s: HTTP %d %q, want %d and the -32603 error\n%s", tc.stage, status, body, tc.status, logs)
		}
	}
	if status, body := post(""); status != 200 || !strings.Contains(body, "EMAIL_") {
		t.Fatalf("the next request: HTTP %d %s (the VM trapped?)\n%s", status, body, logs)
	}
}

// A request ending in trailers, where the plugin holds the body: on an
// Envoy with a small buffer under body_buffering: plugin the judged body
// is written at the trailers (Envoy keeps the emptied, paused body
// writable); on ngx-wasm trailers never reach the plugin and the body
// ends with its last chunk. A denied call never reaches the server.
func TestHeldRequestEndingInTrailers(t *testing.T) {
	for _, hc := range []hostCase{hostMatrix[3], hostMatrix[4]} {
		t.Run(hc.name, func(t *testing.T) {
			up := startUpstream(t, true)
			p := startOnHost(t, hc, up.URL, envelope(true, false))
			session := rawInitialize(t, p.URL, "ann", "support")
			denied := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_customer","arguments":{"id":"marker-held-trailers"}}}`
			allowed := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_customers","arguments":{"query":"alice"}}}`
			res, body := postChunkedWithTrailers(t, p.URL, session, "ann", "support", denied)
			if res.StatusCode != 200 || !strings.Contains(body, `"id":2`) || up.received("marker-held-trailers") {
				t.Errorf("denied: HTTP %d %s (at the server: %v)\n%s", res.StatusCode, body, up.received("marker-held-trailers"), p.logs)
			}
			res, body = postChunkedWithTrailers(t, p.URL, session, "ann", "support", allowed)
			if res.StatusCode != 200 || !strings.Contains(body, `"id":3`) || !strings.Contains(body, "EMAIL_") {
				t.Errorf("allowed: HTTP %d %s\n%s", res.StatusCode, body, p.logs)
			}
		})
	}
}

// A response ending in trailers, where the plugin holds the body on an
// Envoy: the response continued over its emptied chunks (a pause would
// let Envoy's buffer limit reset a large one, TestMCPRouterLargeResultTransformed),
// so at the trailers Envoy holds no body to write the judged one into.
// It fails closed: the client's read breaks, never an empty or raw answer.
func TestHeldResponseEndingInTrailers(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct{ ID json.RawMessage }
		_ = json.NewDecoder(r.Body).Decode(&msg)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Trailer", "X-Debug")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"content":[{"type":"text","text":"Alice <alice.martin@example.com>"}]}}`)
		w.Header().Set("X-Debug", "served")
	}))
	t.Cleanup(up.Close)
	p := startOnHost(t, hostMatrix[4], up.URL, envelope(true, false))
	req, _ := http.NewRequest("POST", p.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"search_customers","arguments":{"query":"alice"}}}`))
	setRawHeaders(req, "", "ann", "support")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err == nil || strings.Contains(string(b), "alice.martin") {
		t.Errorf("HTTP %d %q, read error %v: want a broken read and nothing of the server's answer\n%s", res.StatusCode, b, err, p.logs)
	}
}

// gateway.body_buffering: host on ngx_wasm_module would pass bodies
// unjudged: the plugin detects that host at configuration time and
// refuses to start there, loudly; on Envoy the same configuration runs.
func TestNgxWasmRefusesHostBuffering(t *testing.T) {
	config := strings.Replace(envelope(true, false), `"gateway": {`, `"gateway": {"body_buffering": "host", `, 1)
	target, _ := url.Parse("http://127.0.0.1:1")
	for _, name := range []string{"envoy", "ngx-wasm"} {
		prof := wasmhost.Profiles[name]
		logs := &logLines{}
		px, err := proxy.New(context.Background(), proxy.Options{Wasm: wasmtest.Plugin(t), PluginConfig: []byte(config), Upstream: target,
			Workers: 1, Logger: logs.add, Semantics: prof.Semantics, HostProperties: prof.HostProperties})
		if px != nil {
			_ = px.Close(context.Background())
		}
		refused := err != nil && strings.Contains(logs.String(), "body_buffering: host on ngx_wasm_module")
		if refused != (name == "ngx-wasm") {
			t.Errorf("%s: error %v, refused %v\n%s", name, err, refused, logs)
		}
	}
}
