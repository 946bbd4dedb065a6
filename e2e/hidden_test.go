package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/demo"
	"github.com/cloudg/mcp-privacy/internal/proxy"
	"github.com/cloudg/mcp-privacy/internal/wasmhost"
	"github.com/cloudg/mcp-privacy/internal/wasmtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hiddenEnvelope hides, for every caller, a tool, a prompt, a static
// resource, a template and privacy_reveal (no caller has the reveal
// capability); everything else is allowed, so a name the server does not
// have reaches it.
func hiddenEnvelope(hold bool, extra string) string {
	return fmt.Sprintf(`{
  "policy": {
    "name": "hidden",
    "hide_denied": true,
    "deny_tools": ["delete_customer", "drop_database"],
    "deny_prompts": ["summarize_customer"],
    "deny_resources": ["docs://readme", "customers://{id}/profile"],
    "deny_capabilities": ["reveal"],
    "vault": {"key": "an e2e key, not a secret"}%s
  },
  "server": {"primitives": [{"match": {"kinds": ["resource_template"], "names": ["customers://{id}/profile"]}}]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]},
  "gateway": {"hold_headers": %v, "virtual_tools": true}
}`, extra, hold)
}

// httpAnswer is an HTTP answer as a client sees it.
type httpAnswer struct {
	status int
	header http.Header
	body   string
}

// String is the answer without what differs between any two answers
// (Date, Content-Length, the session id, the order of events), with the
// name the request asked for replaced by NAME (as written and as JSON
// escapes it inside a string).
func (a httpAnswer) String(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", a.status)
	keys := make([]string, 0, len(a.header))
	for k := range a.header {
		switch k {
		case "Date", "Content-Length", "Mcp-Session-Id":
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(a.header[k], ", "))
	}
	body := strings.ReplaceAll(a.body, strings.ReplaceAll(strconv.Quote(name), `"`, `\"`), `\"NAME\"`)
	body = strings.ReplaceAll(body, name, "NAME")
	// A server answers a batch's elements in any order.
	var items []json.RawMessage
	if strings.Contains(a.header.Get("Content-Type"), "event-stream") {
		events := strings.SplitAfter(body, "\n\n")
		sort.Strings(events)
		body = strings.Join(events, "")
	} else if json.Unmarshal([]byte(body), &items) == nil {
		answers := make([]string, len(items))
		for i, it := range items {
			answers[i] = string(it)
		}
		sort.Strings(answers)
		body = "[" + strings.Join(answers, ",") + "]"
	}
	b.WriteString(body)
	return b.String()
}

func rawAnswer(t *testing.T, url, session, principal, body string) httpAnswer {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/mcp", strings.NewReader(body))
	setRawHeaders(req, session, principal, "")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return httpAnswer{res.StatusCode, res.Header, string(b)}
}

// A hidden primitive looks missing (manual 7, hide_denied): for every
// method that names one, the whole HTTP answer (status, headers but the
// date, length and session, content type, body framing and text) is the
// answer for a name the server does not have, name for name, with the
// real go-sdk server answering in event streams or JSON. Before, the
// plugin answered hidden ones itself: as JSON, in its own words, with an
// x-mcp-privacy header, and preview_transform refused only hidden tools.
func TestHiddenLooksMissingOnTheWire(t *testing.T) {
	call := func(method, params string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":` + params + `}`
	}
	q := strconv.Quote
	tests := []struct {
		name            string
		hidden, missing string
		request         func(name, marker string) string
		// want is in the answer: the server's (or for preview_transform the
		// filter's) real answer, not a failure both happen to share.
		want string
	}{
		{"tools/call", "delete_customer", "no_such_tool", func(n, marker string) string {
			return call("tools/call", `{"name":`+q(n)+`,"arguments":{"id":"`+marker+`"}}`)
		}, `unknown tool \"NAME\"`},
		{"tools/call of a virtual tool", "privacy_reveal", "privacy_nothing", func(n, marker string) string {
			return call("tools/call", `{"name":`+q(n)+`,"arguments":{"text":"`+marker+`"}}`)
		}, `unknown tool \"NAME\"`},
		{"prompts/get", "summarize_customer", "no_such_prompt", func(n, marker string) string {
			return call("prompts/get", `{"name":`+q(n)+`,"arguments":{"id":"`+marker+`"}}`)
		}, `unknown prompt \"NAME\"`},
		{"resources/read of a static resource", "docs://readme", "nothing://readme", func(n, marker string) string {
			return call("resources/read", `{"uri":`+q(n)+`}`)
		}, `"message":"Resource not found","data":{"uri":"NAME"}`},
		{"resources/read of a template's instance", "customers://c-1/profile", "nothing://c-1/profile", func(n, marker string) string {
			return call("resources/read", `{"uri":`+q(n)+`}`)
		}, `"message":"Resource not found","data":{"uri":"NAME"}`},
		{"resources/subscribe", "docs://readme", "nothing://readme", func(n, marker string) string {
			return call("resources/subscribe", `{"uri":`+q(n)+`}`)
		}, `method not found`},
		{"completion/complete of a prompt", "summarize_customer", "no_such_prompt", func(n, marker string) string {
			return call("completion/complete", `{"ref":{"type":"ref/prompt","name":`+q(n)+`},"argument":{"name":"id","value":"`+marker+`"}}`)
		}, `method not found`},
		{"completion/complete of a template", "customers://{id}/profile", "nothing://{id}/profile", func(n, marker string) string {
			return call("completion/complete", `{"ref":{"type":"ref/resource","uri":`+q(n)+`},"argument":{"name":"id","value":"`+marker+`"}}`)
		}, `method not found`},
		{"batch with a hidden element", "delete_customer", "no_such_tool", func(n, marker string) string {
			return `[{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}},` +
				call("tools/call", `{"name":`+q(n)+`,"arguments":{"id":"`+marker+`"}}`) + `]`
		}, `unknown tool \"NAME\"`},
		{"tools/call with a _meta that is no object", "delete_customer", "no_such_tool", func(n, marker string) string {
			// The go-sdk refuses it quoting the params, the caller's data
			// and all; the hidden name's stand-in would have no _meta.
			return call("tools/call", `{"name":`+q(n)+`,"_meta":"`+marker+`"}`)
		}, `params._meta must be an object`},
		{"preview_transform of a hidden tool", "delete_customer", "no_such_tool", func(n, marker string) string {
			return call("tools/call", `{"name":"preview_transform","arguments":{"text":"mail alice@example.com","tool":`+q(n)+`}}`)
		}, `"structuredContent":{"output":"mail alice@example.com"`},
	}
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			up := startUpstream(t, mode.jsonResponse)
			p := startPlugin(t, up.URL, hiddenEnvelope(mode.hold, ""))
			session := rawInitialize(t, p.URL, "ann", "")
			// The lists make the catalog know the server's primitives.
			for _, list := range []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
				rawAnswer(t, p.URL, session, "ann", call(list, `{}`))
			}
			for _, tc := range tests {
				hidden := rawAnswer(t, p.URL, session, "ann", tc.request(tc.hidden, "marker-hidden")).String(tc.hidden)
				missing := rawAnswer(t, p.URL, session, "ann", tc.request(tc.missing, "marker-missing")).String(tc.missing)
				if hidden != missing || !strings.HasPrefix(missing, "200\n") || !strings.Contains(missing, tc.want) {
					t.Errorf("%s: hidden\n%s\nmissing\n%s\nwant 200 and %s", tc.name, hidden, missing, tc.want)
				}
			}
			for _, s := range []string{"marker-hidden", "delete_customer", "privacy_reveal", "summarize_customer", "docs://readme", "customers://c-1", "customers://{id}"} {
				if up.received(s) {
					t.Errorf("%s reached the server: a hidden primitive's name or the caller's data", s)
				}
			}
		})
	}
}

// In front of the TypeScript SDK's Express server too, a hidden tool
// looks missing, whole HTTP answer for whole HTTP answer, also when the
// request's params are malformed or its body too large for the server:
// that server refuses arguments that are no object with -32603 and a
// _meta it cannot read with HTTP 400, before it looks the name up, so the
// filter refuses both for any name; and express.json() refuses bodies
// over 100 KB with 413, so the stand-in keeps the body's size. Before,
// the hidden name's stand-in (well-formed params, no arguments) got
// "Unknown tool" where the missing name got those.
func TestHiddenLooksMissingTypeScript(t *testing.T) {
	p := startPlugin(t, rqTSServer(t), hiddenEnvelope(true, ""))
	q := strconv.Quote
	tests := []struct {
		name, params string
		status       int
		want         string
	}{
		{"well-formed", `,"arguments":{"id":"c-1"}`, 200, `Unknown tool: NAME`},
		{"arguments a number", `,"arguments":5`, 200, `params.arguments must be an object`},
		{"a progressToken that is an object", `,"_meta":{"progressToken":{}}`, 200, `params._meta.progressToken must be a string or an integer`},
		{"arguments over 100 KB", `,"arguments":{"text":"` + strings.Repeat("a", 150_000) + `"}`, 413, `PayloadTooLargeError`},
	}
	for _, tc := range tests {
		request := func(n string) string {
			return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":` + q(n) + tc.params + `}}`
		}
		// Names of one length: the bodies compared have one size.
		hidden := rawAnswer(t, p.URL, "", "ann", request("delete_customer")).String("delete_customer")
		missing := rawAnswer(t, p.URL, "", "ann", request("no_such_tool_xy")).String("no_such_tool_xy")
		if hidden != missing || !strings.HasPrefix(missing, strconv.Itoa(tc.status)+"\n") || !strings.Contains(missing, tc.want) {
			t.Errorf("%s: hidden\n%.600s\nmissing\n%.600s\nwant %d and %s", tc.name, hidden, missing, tc.status, tc.want)
		}
	}
}

// Hidden calls take rate-limit tokens as calls of missing primitives do,
// so a limit does not tell them apart: ann calling a hidden tool and bob
// calling a missing one get the same answers, the third one refused.
func TestHiddenRateLimitedAsMissing(t *testing.T) {
	up := startUpstream(t, false)
	p := startPlugin(t, up.URL, hiddenEnvelope(true, `,
    "rate_limits": [{"rate": 1, "per": "hour", "burst": 2, "scope": "principal", "kinds": ["tool"]}]`))
	for _, c := range []struct{ hidden, missing string }{{"delete_customer", "no_such_tool"}, {"privacy_reveal", "privacy_nothing"}} {
		annSession, bobSession := rawInitialize(t, p.URL, "ann-"+c.hidden, ""), rawInitialize(t, p.URL, "bob-"+c.hidden, "")
		for i := 1; i <= 3; i++ {
			hidden := rawAnswer(t, p.URL, annSession, "ann-"+c.hidden, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+c.hidden+`"}}`)
			missing := rawAnswer(t, p.URL, bobSession, "bob-"+c.hidden, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+c.missing+`"}}`)
			if h, m := hidden.String(c.hidden), missing.String(c.missing); h != m {
				t.Errorf("%s, call %d: hidden\n%s\nmissing\n%s", c.hidden, i, h, m)
			}
			if want := map[bool]string{true: "-32029", false: "unknown tool"}[i == 3]; !strings.Contains(missing.body, want) {
				t.Errorf("call %d of a missing tool: %s, want %s", i, missing.body, want)
			}
		}
	}
}

// Whether the server has a hidden primitive changes nothing a caller
// sees: with the same policy in front of a server with one more hidden
// tool, lists, privacy_status and calls of that tool answer the same.
// Before, privacy_status counted the hidden tool.
func TestHiddenPrimitiveChangesNothing(t *testing.T) {
	serve := func(extra bool) string {
		s := demo.NewServer()
		if extra {
			mcp.AddTool(s, &mcp.Tool{Name: "drop_database", Description: "Drop everything."},
				func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "dropped"}}}, nil, nil
				})
		}
		srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	answers := func(upstream string) []string {
		// One worker VM: privacy_status counts what its VM learned.
		p := startPlugin(t, upstream, hiddenEnvelope(true, ""), func(o *proxy.Options) { o.Workers = 1 })
		session := rawInitialize(t, p.URL, "ann", "")
		var out []string
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"privacy_status","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"drop_database","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"preview_transform","arguments":{"text":"x","tool":"drop_database"}}}`,
		} {
			out = append(out, rawAnswer(t, p.URL, session, "ann", body).String("drop_database"))
		}
		return out
	}
	with, without := answers(serve(true)), answers(serve(false))
	if !strings.Contains(with[0], `"name":"echo"`) || strings.Contains(with[0], "NAME") || strings.Contains(with[0], "delete_customer") {
		t.Errorf("tools/list: %s", with[0])
	}
	if !strings.Contains(with[1], `\"tool\":{\"visible\":`) {
		t.Errorf("privacy_status counts no tools: %s", with[1])
	}
	if !strings.Contains(with[2], `unknown tool \"NAME\"`) || !strings.Contains(with[3], `\"output\":\"x\"`) {
		t.Errorf("the hidden tool's call %s\nand preview %s", with[2], with[3])
	}
	for i := range with {
		if with[i] != without[i] {
			t.Errorf("answer %d with the hidden tool\n%s\nwithout\n%s", i+1, with[i], without[i])
		}
	}
}

// Why the filter answered itself reaches the host as the local reply's
// response code details (what Envoy's access logs show as
// %RESPONSE_CODE_DETAILS%), not only in the x-mcp-privacy header. Before,
// the plugin passed the host no details.
func TestLocalReplyDetails(t *testing.T) {
	config := `{"policy": {"name": "details", "hide_denied": false, "deny_tools": ["delete_customer"]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]}}`
	h, err := wasmhost.New(context.Background(), wasmhost.Options{Wasm: wasmtest.Plugin(t), PluginConfig: []byte(config), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	for _, c := range []struct{ body, details string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_customer"}}`, "mcp_privacy_denied"},
		{`{"jsonrpc":"2.0",`, "mcp_privacy_bad_request"},
	} {
		s := h.NewStream()
		s.RequestHeaders(wasmhost.H(":method", "POST", ":path", "/mcp", ":authority", "mcp.test", ":scheme", "http",
			"content-type", "application/json", "x-mcp-principal", "ann"), false)
		s.RequestBody([]byte(c.body), true)
		r := s.LocalReply()
		s.Close()
		if r == nil || r.Details != c.details || r.Headers.Value("x-mcp-privacy") != c.details {
			t.Errorf("%s: local reply %+v, want details %q", c.body, r, c.details)
		}
	}
}

// hiddenCatalogServer is a go-sdk server with what e2e/testdata's
// catalog.mjs servers have: two of each kind, one of each hidden by
// hiddenEnvelope. Its completion handler completes ids for the refs it
// knows and nothing (a result without values) for any other, as a handler
// that does not look the ref up answers. Requests of 2026-07-28 are served
// statelessly, the others with sessions, as a server of both revisions.
func hiddenCatalogServer() http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: "go-catalog", Version: "v1"}, &mcp.ServerOptions{
		CompletionHandler: func(_ context.Context, r *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			switch ref := r.Params.Ref; ref.Name + ref.URI {
			case "greet", "summarize_customer", "orders://{id}/status", "customers://{id}/profile":
				return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{"c-1", "c-2"}}}, nil
			}
			return &mcp.CompleteResult{}, nil
		},
	})
	for _, name := range []string{"search_customers", "delete_customer"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " done"}}}, nil
			})
	}
	for _, name := range []string{"greet", "summarize_customer"} {
		s.AddPrompt(&mcp.Prompt{Name: name, Arguments: []*mcp.PromptArgument{{Name: "id"}}},
			func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: name}}}}, nil
			})
	}
	read := func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: "the text of " + r.Params.URI}}}, nil
	}
	for _, uri := range []string{"docs://guide", "docs://readme"} {
		s.AddResource(&mcp.Resource{URI: uri, Name: uri}, read)
	}
	for _, template := range []string{"orders://{id}/status", "customers://{id}/profile"} {
		s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: template, Name: template}, read)
	}
	get := func(*http.Request) *mcp.Server { return s }
	stateless := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true})
	stateful := mcp.NewStreamableHTTPHandler(get, nil)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			stateless.ServeHTTP(w, r)
		} else {
			stateful.ServeHTTP(w, r)
		}
	})
}

// recordedUpstream serves h, recording every request body it receives.
func recordedUpstream(t *testing.T, h http.Handler) *upstream {
	u := &upstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.bodies = append(u.bodies, string(body))
		u.mu.Unlock()
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

// nodeUpstream is the Node.js server at base behind a recordedUpstream,
// its event streams passed on as they come.
func nodeUpstream(t *testing.T, base string) *upstream {
	target, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	return recordedUpstream(t, proxy)
}

// A hidden primitive looks missing in front of every SDK's server, for
// every way a server says "not found": each kind (a tool, a prompt, a
// static resource, a template's instance, a prompt's and a template's
// completion, a subscription), on the go-sdk's server, the TypeScript
// SDK v1's McpServer (2025 revisions) and v2's (2025-11-25 and
// 2026-07-28), at 2025-11-25 (in a session where the server has them) and
// at 2026-07-28 (stateless), through one plugin and server per SDK:
// the whole HTTP answer for the hidden name is the answer for a missing
// name of the same shape, name for name. Before, the plugin turned every
// result answering a stand-in into its own error: the TypeScript SDK v1
// answers an unknown tool with a result (isError: true, "Tool <name> not
// found") and the go-sdk server's completion handler a ref it lacks with
// a result without values, so the hidden tool and ref got an error where
// missing ones got the result.
func TestHiddenLooksMissingEverySDK(t *testing.T) {
	q := strconv.Quote
	kinds := []struct {
		name, method    string
		hidden, missing string // a hidden name and a missing one of its shape
		nameMember      string // the Mcp-Name header's member (2026-07-28)
		params          func(name, marker string) string
		rev2025Only     bool
		// want is in the missing name's answer, by server: the server's
		// own not-found, not a failure both happen to share.
		want map[string]string
	}{
		{"tool", "tools/call", "delete_customer", "delete_kustomer", "name", func(n, marker string) string {
			return `{"name":` + q(n) + `,"arguments":{"id":"` + marker + `"}`
		}, false, map[string]string{"go": `unknown tool \"NAME\"`, "ts-v1": `"text":"MCP error -32602: Tool NAME not found"}],"isError":true`, "ts-v2": `Tool NAME not found`}},
		{"prompt", "prompts/get", "summarize_customer", "summarize_kustomer", "name", func(n, marker string) string {
			return `{"name":` + q(n) + `,"arguments":{"id":"` + marker + `"}`
		}, false, map[string]string{"go": `unknown prompt \"NAME\"`, "ts-v1": `Prompt NAME not found`, "ts-v2": `Prompt NAME not found`}},
		{"static resource", "resources/read", "docs://readme", "docs://readmf", "uri", func(n, _ string) string {
			return `{"uri":` + q(n)
		}, false, map[string]string{"go": `"data":{"uri":"NAME"}`, "ts-v1": `Resource NAME not found`, "ts-v2": `"data":{"uri":"NAME"}`}},
		{"template instance", "resources/read", "customers://c-1/profile", "customers://c-1/profilf", "uri", func(n, _ string) string {
			return `{"uri":` + q(n)
		}, false, map[string]string{"go": `"data":{"uri":"NAME"}`, "ts-v1": `Resource NAME not found`, "ts-v2": `"data":{"uri":"NAME"}`}},
		{"prompt completion", "completion/complete", "summarize_customer", "summarize_kustomer", "", func(n, marker string) string {
			return `{"ref":{"type":"ref/prompt","name":` + q(n) + `},"argument":{"name":"id","value":"` + marker + `"}`
		}, false, map[string]string{"go": `"completion":{"values":null}`, "ts-v1": `Prompt NAME not found`, "ts-v2": `Prompt NAME not found`}},
		{"template completion", "completion/complete", "customers://{id}/profile", "customers://{id}/profilf", "", func(n, marker string) string {
			return `{"ref":{"type":"ref/resource","uri":` + q(n) + `},"argument":{"name":"id","value":"` + marker + `"}`
		}, false, map[string]string{"go": `"completion":{"values":null}`, "ts-v1": `Resource template NAME not found`, "ts-v2": `Resource template NAME not found`}},
		{"subscription", "resources/subscribe", "docs://readme", "docs://readmf", "uri", func(n, _ string) string {
			return `{"uri":` + q(n)
		}, true, map[string]string{"go": `method not found`, "ts-v1": `Method not found`, "ts-v2": `Method not found`}},
	}
	type revision struct {
		name, version string
	}
	rev2025, rev2026 := revision{"2025-11-25", "2025-11-25"}, revision{"2026-07-28", "2026-07-28"}
	servers := []struct {
		name      string
		start     func(t *testing.T) *upstream
		revisions []revision
		// sessions: at 2025-11-25 an initialize opens a session (v2's
		// createMcpHandler answers 2025 requests statelessly).
		sessions bool
	}{
		{"go", func(t *testing.T) *upstream { return recordedUpstream(t, hiddenCatalogServer()) }, []revision{rev2025, rev2026}, true},
		{"ts-v1", func(t *testing.T) *upstream { return nodeUpstream(t, tsV1Server(t, "catalog.mjs")) }, []revision{rev2025}, true},
		{"ts-v2", func(t *testing.T) *upstream { return nodeUpstream(t, tsV2Server(t, "catalog.mjs")) }, []revision{rev2025, rev2026}, false},
	}
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			up := srv.start(t)
			p := startPlugin(t, up.URL, hiddenEnvelope(true, ""))
			for _, rev := range srv.revisions {
				t.Run(rev.name, func(t *testing.T) {
					post := func(session, method, nameHeader, params string) httpAnswer {
						if rev.version >= "2026-07-28" {
							if params != "{" {
								params += ","
							}
							params += `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"e2e","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
						}
						body := `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":` + params + `}}`
						req, _ := http.NewRequest("POST", p.URL+"/mcp", strings.NewReader(body))
						req.Header.Set("Content-Type", "application/json")
						req.Header.Set("Accept", "application/json, text/event-stream")
						req.Header.Set("MCP-Protocol-Version", rev.version)
						req.Header.Set("x-mcp-principal", "ann")
						if session != "" {
							req.Header.Set("Mcp-Session-Id", session)
						}
						if rev.version >= "2026-07-28" {
							req.Header.Set("Mcp-Method", method)
							if nameHeader != "" {
								req.Header.Set("Mcp-Name", nameHeader)
							}
						}
						res, err := http.DefaultClient.Do(req)
						if err != nil {
							t.Fatal(err)
						}
						defer res.Body.Close()
						b, _ := io.ReadAll(res.Body)
						return httpAnswer{res.StatusCode, res.Header, string(b)}
					}
					session := ""
					if rev.version < "2026-07-28" {
						init := post("", "initialize", "", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}`)
						if init.status != 200 || srv.sessions && init.header.Get("Mcp-Session-Id") == "" {
							t.Fatalf("initialize: %d %s", init.status, init.body)
						}
						if session = init.header.Get("Mcp-Session-Id"); session != "" {
							rawPost(t, p.URL, session, "ann", "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
						}
					}
					// The lists make the catalog know the server's primitives.
					for _, list := range []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
						post(session, list, "", `{`)
					}
					for _, k := range kinds {
						if k.rev2025Only && rev.version >= "2026-07-28" {
							continue // resources/subscribe: removed by 2026-07-28
						}
						answer := func(name, marker string) string {
							header := ""
							if k.nameMember != "" {
								header = name
							}
							return post(session, k.method, header, k.params(name, marker)).String(name)
						}
						hidden, missing := answer(k.hidden, "marker-hidden"), answer(k.missing, "marker-missing")
						if want := k.want[srv.name]; hidden != missing || !strings.Contains(missing, want) {
							t.Errorf("%s: hidden\n%s\nmissing\n%s\nwant both with %s", k.name, hidden, missing, want)
						}
					}
					for _, s := range []string{"marker-hidden", "delete_customer", "summarize_customer", "docs://readme", "customers://c-1/profile", "customers://{id}/profile"} {
						if up.received(s) {
							t.Errorf("%s reached the server: a hidden primitive's name or the caller's data", s)
						}
					}
				})
			}
		})
	}
}
