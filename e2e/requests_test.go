package e2e_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/wasmtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Requests a server could read otherwise than the plugin judged them
// (issue 12): request targets servers route differently, bodies declared
// in another charset or media type, bodies on methods that carry none.
// Each is refused by the plugin (or by serve, as Envoy's connection
// manager would) and the call never reaches the real go-sdk server, which
// runs MCP on any path and reads any body it gets. Helpers are prefixed rq.

// rqConfig denies delete_* and reads the principal from a header.
const rqConfig = `{"policy": {"name": "t", "deny_tools": ["delete_*"]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]}}`

// rqResponse is what one raw exchange produced.
type rqResponse struct {
	status int
	header http.Header
	body   string
}

// rqRaw sends one request exactly as written (target, headers in order,
// repeated ones included) on its own connection; chunked sends the body
// in chunked encoding instead of with a content-length.
func rqRaw(t *testing.T, base, method, target string, headers [][2]string, body string, chunked bool) rqResponse {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n", method, target)
	for _, h := range headers {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
	}
	switch {
	case chunked:
		fmt.Fprintf(&b, "Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(body), body)
	case body != "":
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(body), body)
	default:
		b.WriteString("\r\n")
	}
	if _, err := io.WriteString(c, b.String()); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: method})
	if err != nil {
		t.Fatalf("%s %q: %v", method, target, err)
	}
	defer res.Body.Close()
	rb, _ := io.ReadAll(res.Body)
	return rqResponse{status: res.StatusCode, header: res.Header, body: string(rb)}
}

// rqSession opens a session as alice and returns the headers a raw request
// of that session carries.
func rqSession(t *testing.T, p *plugin) ([][2]string, *mcp.ClientSession) {
	t.Helper()
	cs := connect(t, p.URL, "alice", "")
	return [][2]string{
		{"x-mcp-principal", "alice"},
		{"mcp-session-id", cs.ID()},
		{"mcp-protocol-version", cs.InitializeResult().ProtocolVersion},
		{"accept", "application/json, text/event-stream"},
	}, cs
}

// rqCall is a tools/call of tool (the demo's search_customers or
// delete_customer, or a spelling of them) whose argument is marker.
func rqCall(tool, marker string) string {
	arg := "query"
	if strings.HasPrefix(tool, "delete") {
		arg = "id"
	}
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"` + arg + `":"` + marker + `"}}}`
}

// rqControl proves the recorder: a sound call on the same session, with the
// same kind of request, does reach the server.
func rqControl(t *testing.T, p *plugin, up *upstream, headers [][2]string, marker string) {
	t.Helper()
	res := rqRaw(t, p.URL, "POST", "/mcp", append(headers, [2]string{"content-type", "application/json"}), rqCall("search_customers", marker), false)
	if res.status != 200 || !up.received(marker) {
		t.Fatalf("a sound call did not reach the server (%d %s): the recorder proves nothing", res.status, res.body)
	}
}

// Request targets servers read differently never carry a call to the
// server: /mcp#x reached it as /mcp, /mcp%2F and friends ran MCP under
// another route.
func TestAmbiguousTargetsNeverReachServer(t *testing.T) {
	up := startUpstream(t, false)
	p := startPlugin(t, up.URL, rqConfig)
	headers, _ := rqSession(t, p)
	headers = append(headers, [2]string{"content-type", "application/json"})
	for i, target := range []string{
		// Refused by serve, as by Envoy's connection manager.
		"/mcp#x", "/mcp?x=1#y", "/mcp%2F", "/mcp%2f", "/x%2F..%2Fmcp", "/mcp%5C", "/x%5c..%5cmcp",
		// Refused by the plugin.
		"/mcp\\", "/x\\..\\mcp", "/x/../mcp", "/mcp/.", "/mcp/..;/x", "/mcp.", "/mcp./", "/%2e%2e/mcp", "/mcp%2E",
		"/mcp%252F", "/%256Dcp", "/mcp%00", "/mcp%00.json", "/mcp%20", "/mcp%C0%AF", "/%EF%BD%8Dcp",
		"/\xef\xbd\x8dcp", "/mcp\xc2\xa0", "/mcp%3Bx=1", "/mcp%3F", "/mcp%23",
	} {
		for _, tool := range []string{"search_customers", "delete_customer"} {
			marker := fmt.Sprintf("rq-target-%d-%s", i, tool)
			res := rqRaw(t, p.URL, "POST", target, headers, rqCall(tool, marker), false)
			if res.status != 400 {
				t.Errorf("POST %q (%s): %d %s, want 400", target, tool, res.status, res.body)
			}
			if res.header.Get("x-mcp-privacy") != "" && !strings.Contains(res.body, `"code":-32600`) {
				t.Errorf("POST %q: the plugin's refusal is not -32600: %s", target, res.body)
			}
			if up.received(marker) {
				t.Errorf("POST %q: the call reached the server", target)
			}
		}
	}
	rqControl(t, p, up, headers[:len(headers)-1], "rq-target-control")
}

// A body declared in a charset other than UTF-8, or in a way a server may
// decode otherwise (a second content-type, two media types, a parameter,
// another media type), is refused with 415 before it is judged: the
// plugin would judge the UTF-8 reading ("delete+AF8-customer", an unknown
// tool) while Express decodes UTF-7 (delete_customer).
func TestRequestEncodingsNeverReachServer(t *testing.T) {
	up := startUpstream(t, false)
	p := startPlugin(t, up.URL, rqConfig)
	headers, _ := rqSession(t, p)
	ct := func(vs ...string) [][2]string {
		var out [][2]string
		for _, v := range vs {
			out = append(out, [2]string{"content-type", v})
		}
		return out
	}
	for i, tc := range []struct {
		name    string
		tool    string
		headers [][2]string
		why     string // in the error message
	}{
		{"utf-7", "delete+AF8-customer", ct("application/json; charset=utf-7"), "charset"},
		{"UTF-7 quoted", "delete+AF8-customer", ct(`application/json; charset="UTF-7"`), "charset"},
		{"utf-16", "search_customers", ct("application/json; charset=utf-16"), "charset"},
		{"latin-1", "search_customers", ct("application/json; charset=iso-8859-1"), "charset"},
		{"utf-8 then utf-7", "delete+AF8-customer", ct("application/json; charset=utf-8; charset=utf-7"), "second charset"},
		{"two content-types", "delete+AF8-customer", ct("application/json", "application/json; charset=utf-7"), "more than one content-type"},
		{"two media types", "delete+AF8-customer", ct("application/json, application/json; charset=utf-7"), "more than one media type"},
		{"other parameter", "search_customers", ct("application/json; boundary=x"), "parameter"},
		{"text/plain", "search_customers", ct("text/plain"), "not application/json"},
		{"form", "search_customers", ct("application/x-www-form-urlencoded"), "not application/json"},
		{"json-rpc media type", "search_customers", ct("application/json-rpc"), "not application/json"},
	} {
		marker := fmt.Sprintf("rq-encoding-%d", i)
		for _, chunked := range []bool{false, true} {
			res := rqRaw(t, p.URL, "POST", "/mcp", append(append([][2]string{}, headers...), tc.headers...), rqCall(tc.tool, marker), chunked)
			if res.status != 415 || !strings.Contains(res.body, `"code":-32600`) || !strings.Contains(res.body, "Unsupported Media Type: ") || !strings.Contains(res.body, tc.why) {
				t.Errorf("%s (chunked %v): %d %s, want 415 with -32600", tc.name, chunked, res.status, res.body)
			}
			if up.received(marker) {
				t.Errorf("%s (chunked %v): the body reached the server", tc.name, chunked)
			}
		}
	}
	// UTF-8 declared in any spelling, or nothing declared, is judged as
	// usual: allowed calls reach the server, denied ones do not.
	for i, v := range []string{"application/json; charset=utf-8", `Application/JSON;charset="UTF-8"`, ""} {
		h := append([][2]string{}, headers...)
		if v != "" {
			h = append(h, [2]string{"content-type", v})
		}
		ok, denied := fmt.Sprintf("rq-utf8-ok-%d", i), fmt.Sprintf("rq-utf8-denied-%d", i)
		// The hidden tool's call goes upstream as a stand-in without its
		// arguments, and the server answers as it would (a 415 when nothing
		// is declared): never the call as sent.
		if res := rqRaw(t, p.URL, "POST", "/mcp", h, rqCall("delete_customer", denied), false); up.received(denied) {
			t.Errorf("%q: a denied call: %d %s (reached the server: %v)", v, res.status, res.body, up.received(denied))
		}
		rqRaw(t, p.URL, "POST", "/mcp", h, rqCall("search_customers", ok), false)
		if !up.received(ok) {
			t.Errorf("%q: an allowed call did not reach the server", v)
		}
	}
}

// A body on GET, HEAD, DELETE or OPTIONS is refused, announced by its
// content-length or sent chunked (the plugin sees no header then and
// refuses at the first data); before, it went to the server unjudged. A
// body on another method is judged as a POST's. Under hold_headers nothing
// of such a request reaches the server, so the session survives even a
// DELETE with a body; without it the request's headers go on at once, as
// a POST's do.
func TestBodiesOnBodilessMethodsNeverReachServer(t *testing.T) {
	for _, hold := range []bool{false, true} {
		t.Run(fmt.Sprintf("hold_headers=%v", hold), func(t *testing.T) {
			up := startUpstream(t, false)
			config := strings.Replace(rqConfig, `"identity"`, fmt.Sprintf(`"gateway": {"hold_headers": %v}, "identity"`, hold), 1)
			p := startPlugin(t, up.URL, config)
			headers, cs := rqSession(t, p)
			rqControl(t, p, up, headers, "rq-body-control-"+strconv.FormatBool(hold))
			headers = append(headers, [2]string{"content-type", "application/json"})
			for _, method := range []string{"GET", "HEAD", "OPTIONS", "DELETE"} {
				for _, chunked := range []bool{false, true} {
					marker := fmt.Sprintf("rq-body-%s-%v-%v", method, chunked, hold)
					res := rqRaw(t, p.URL, method, "/mcp", headers, rqCall("delete_customer", marker), chunked)
					if res.status != 400 || method != "HEAD" && !strings.Contains(res.body, `"code":-32600`) {
						t.Errorf("%s with a body (chunked %v): %d %s, want 400 with -32600", method, chunked, res.status, res.body)
					}
					if up.received(marker) {
						t.Errorf("%s with a body (chunked %v): the body reached the server", method, chunked)
					}
				}
			}
			for _, method := range []string{"PATCH", "PUT"} {
				marker := "rq-body-" + method
				res := rqRaw(t, p.URL, method, "/mcp", headers, rqCall("delete_customer", marker), true)
				// Judged: the hidden tool's call reaches the server only as its
				// stand-in, without the arguments (the server answers PATCH
				// and PUT as it would any).
				if up.received(marker) {
					t.Errorf("%s: a denied call not judged: %d %s (reached the server: %v)", method, res.status, res.body, up.received(marker))
				}
			}
			if hold {
				// Nothing reached the server: the session is intact.
				if _, err := cs.CallTool(ctxT(t), &mcp.CallToolParams{Name: "search_customers", Arguments: map[string]any{"query": "rq-after"}}); err != nil {
					t.Fatalf("the session after the refused requests: %v", err)
				}
			}
			// Without a body they pass: a bodiless DELETE ends a session
			// at the server.
			headers, _ = rqSession(t, p)
			if res := rqRaw(t, p.URL, "DELETE", "/mcp", headers, "", false); res.status >= 300 {
				t.Errorf("a bodiless DELETE: %d %s", res.status, res.body)
			}
			if res := rqRaw(t, p.URL, "POST", "/mcp", append(headers, [2]string{"content-type", "application/json"}), rqCall("search_customers", "rq-gone"), false); res.status != 404 {
				t.Errorf("the session outlived its DELETE: %d %s", res.status, res.body)
			}
		})
	}
}

// The TypeScript SDK's Express server (installed under build/ts-sdk by
// rqTSServer) reads a body by its declared charset: the case the issue
// found, run against the real thing.
const (
	rqTSSDKVersion     = "1.32.2"
	rqExpressVersion   = "5.3.0"
	rqTSInstallTimeout = 5 * time.Minute
)

var (
	rqTSOnce sync.Once
	rqTSDir  string
	rqTSErr  error
)

// rqTSInstall installs @modelcontextprotocol/sdk and express with npm into
// build/ts-sdk (reused while the versions match) and returns that
// directory (nodeservers_test.go).
func rqTSInstall() (string, error) {
	rqTSOnce.Do(func() {
		root, err := wasmtest.RepoRoot()
		if err != nil {
			rqTSErr = err
			return
		}
		rqTSDir = filepath.Join(root, "build", "ts-sdk")
		rqTSErr = npmInstall(rqTSDir, "e2e/requests_test.go",
			map[string]string{"@modelcontextprotocol/sdk": rqTSSDKVersion, "express": rqExpressVersion})
	})
	return rqTSDir, rqTSErr
}

// rqTSServer starts the TypeScript server and returns its base URL.
func rqTSServer(t *testing.T) string { return tsV1Server(t, "server.mjs") }

// rqTSCalls are the tool calls the TypeScript server executed.
func rqTSCalls(t *testing.T, base string) string {
	t.Helper()
	res, err := http.Get(base + "/calls")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

// Under charset=utf-7 the TypeScript SDK's server executes
// "delete+AF8-customer" as delete_customer, which the policy denies; the
// plugin judged it as an unknown tool and let it through. Now it refuses
// any charset but UTF-8 (and the other declarations of
// TestRequestEncodingsNeverReachServer) before the body is judged.
func TestCharsetThroughTypeScriptServer(t *testing.T) {
	ts := rqTSServer(t)
	p := startPlugin(t, ts, rqConfig)
	headers := [][2]string{{"x-mcp-principal", "alice"}, {"accept", "application/json, text/event-stream"}}
	utf7 := append(append([][2]string{}, headers...), [2]string{"content-type", "application/json; charset=utf-7"})

	// The class is real: straight to the server, UTF-7 names delete_customer.
	if res := rqRaw(t, ts, "POST", "/mcp", utf7, rqCall("delete+AF8-customer", "rq-ts-direct"), false); res.status != 200 ||
		!strings.Contains(rqTSCalls(t, ts), `{"name":"delete_customer","arguments":{"id":"rq-ts-direct"}}`) {
		t.Fatalf("the TypeScript server did not read UTF-7 (%d %s): the test proves nothing", res.status, res.body)
	}
	for i, ct := range []string{"application/json; charset=utf-7", "application/json; charset=UTF-7", `application/json; charset="utf-7"`,
		"application/json;charset=utf-16le"} {
		marker := fmt.Sprintf("rq-ts-%d", i)
		for _, chunked := range []bool{false, true} {
			h := append(append([][2]string{}, headers...), [2]string{"content-type", ct})
			res := rqRaw(t, p.URL, "POST", "/mcp", h, rqCall("delete+AF8-customer", marker), chunked)
			if res.status != 415 || !strings.Contains(res.body, `"code":-32600`) {
				t.Errorf("%q (chunked %v) through the plugin: %d %s, want 415", ct, chunked, res.status, res.body)
			}
		}
		if calls := rqTSCalls(t, ts); strings.Contains(calls, marker) {
			t.Errorf("%q: the server executed the call: %s", ct, calls)
		}
	}
	// Declared as UTF-8 JSON, calls are judged as usual.
	h := append(append([][2]string{}, headers...), [2]string{"content-type", "application/json"})
	rqRaw(t, p.URL, "POST", "/mcp", h, rqCall("search_customers", "rq-ts-ok"), false)
	rqRaw(t, p.URL, "POST", "/mcp", h, rqCall("delete_customer", "rq-ts-denied"), false)
	calls := rqTSCalls(t, ts)
	if !strings.Contains(calls, "rq-ts-ok") || strings.Contains(calls, "rq-ts-denied") {
		t.Errorf("UTF-8 calls not judged as usual: %s", calls)
	}
}

// Express, under the TypeScript SDK's createMcpExpressApp, routes /mcp/ to
// its /mcp route (and /MCP, which the plugin already matched): with
// gateway.paths ["/mcp"] a denied call sent to /mcp/ passed the plugin
// uninspected and ran.
func TestTrailingSlashThroughTypeScriptServer(t *testing.T) {
	ts := rqTSServer(t)
	config := strings.Replace(rqConfig, `"identity"`, `"gateway": {"paths": ["/mcp"]}, "identity"`, 1)
	p := startPlugin(t, ts, config)
	headers := [][2]string{{"x-mcp-principal", "alice"}, {"accept", "application/json, text/event-stream"},
		{"content-type", "application/json"}}

	// The class is real: straight to the server, /mcp/ and /MCP/ run MCP.
	for _, target := range []string{"/mcp/", "/MCP/"} {
		marker := "rq-slash-direct" + target
		if res := rqRaw(t, ts, "POST", target, headers, rqCall("search_customers", marker), false); res.status != 200 ||
			!strings.Contains(rqTSCalls(t, ts), marker) {
			t.Fatalf("the TypeScript server does not route %s to /mcp (%d %s): the test proves nothing", target, res.status, res.body)
		}
	}
	for i, target := range []string{"/mcp/", "/MCP/", "//mcp/", "/mcp;x=1/", "/mcp/?x=1"} {
		denied, ok := fmt.Sprintf("rq-slash-denied-%d", i), fmt.Sprintf("rq-slash-ok-%d", i)
		// The hidden tool's call reaches the server only as its stand-in,
		// without arguments (below: the marker never runs).
		rqRaw(t, p.URL, "POST", target, headers, rqCall("delete_customer", denied), false)
		rqRaw(t, p.URL, "POST", target, headers, rqCall("search_customers", ok), false)
		calls := rqTSCalls(t, ts)
		if strings.Contains(calls, denied) {
			t.Errorf("POST %q: the server executed the denied call", target)
		}
		if strings.Contains(target, ";") || strings.HasPrefix(target, "//") {
			continue // Express routes these nowhere; only the refusal matters
		}
		if !strings.Contains(calls, ok) {
			t.Errorf("POST %q: an allowed call did not run: %s", target, calls)
		}
	}
}
