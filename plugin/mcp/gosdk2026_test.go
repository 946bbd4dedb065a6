package mcp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// metaFull is the _meta a go-sdk v1.8.0 server requires of a 2026-07-28
// request: the version and the client's capabilities.
const metaFull = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// goSDKStateless is a go-sdk v1.8.0 server in stateless mode (it speaks
// 2026-07-28) with one tool and one resource.
func goSDKStateless(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "real", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "lookup", Description: "Look up."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	s.AddResource(&mcp.Resource{URI: "file:///present", Name: "present"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///present", Text: "x"}}}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// send POSTs body with headers to url and returns the status, media type
// and body of the answer.
func send(t *testing.T, url string, headers [][2]string, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for _, kv := range headers {
		req.Header.Set(kv[0], kv[1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// through runs one request through the plugin to the real server: the
// headers and body the plugin lets go upstream (rewritten as it says),
// and the server's answer back through the plugin. It returns what the
// client gets.
func through(t *testing.T, cfg *Config, url string, headers [][2]string, body string) (int, string) {
	t.Helper()
	req := hdr("x-mcp-principal", "ann", "content-type", "application/json")
	for _, kv := range headers {
		req.headers[strings.ToLower(kv[0])] = kv[1]
	}
	_, r, s := postOnce(cfg, req, body)
	if r.Reply != nil {
		return r.Reply.Status, string(r.Reply.Body)
	}
	up := append([][2]string(nil), headers...)
	for _, name := range r.Remove {
		for i := range up {
			if strings.EqualFold(up[i][0], name) {
				up[i][1] = ""
			}
		}
	}
	up = append(up, r.Set...)
	if r.Body != nil {
		body = string(r.Body)
	}
	status, ct, answer := send(t, url, up, body)
	s.OnResponseHeaders(status, ct, "", false)
	_, edit := s.OnResponseBody(len(answer), true, func() []byte { return []byte(answer) })
	if edit.Replace {
		answer = string(edit.Data)
	}
	return status, answer
}

// Against a real go-sdk v1.8.0 stateless server: a hidden resource and a
// hidden tool get, through the plugin, exactly what the server answers
// for a missing one under 2026-07-28 (status, code, message, data), and
// an allowed call passes its header checks.
func TestHiddenAgainstGoSDKStateless(t *testing.T) {
	url := goSDKStateless(t)
	env := strings.Replace(hidden2026Envelope, "HOLD", "true", 1)
	env = strings.Replace(env, `deny_tools: ["delete_*"]`, `deny_tools: ["lookup"]`, 1)
	env = strings.Replace(env, `deny_resources: ["secret://*"]`, `deny_resources: ["file:///present"]`, 1)
	cfg := mustConfig(t, env)
	h := func(method, name string) [][2]string {
		return [][2]string{{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", method}, {"Mcp-Name", name}}
	}
	for _, c := range []struct {
		name, method, hidden, missing, params, says string
	}{
		{"resource", "resources/read", "file:///present", "file:///absent", `{"uri":"NAME",` + metaFull + `}`, "Resource not found"},
		{"tool", "tools/call", "lookup", "absent", `{"name":"NAME","arguments":{},` + metaFull + `}`, `unknown tool`},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := func(name string) string {
				return call("7", c.method, strings.Replace(c.params, "NAME", name, 1))
			}
			wantStatus, _, want := send(t, url, h(c.method, c.missing), body(c.missing))
			if wantStatus == 200 || !strings.Contains(want, `"code":-32602`) || !strings.Contains(want, c.says) {
				t.Fatalf("the server's own not-found: %d %s", wantStatus, want)
			}
			gotStatus, got := through(t, cfg, url, h(c.method, c.hidden), body(c.hidden))
			want = strings.ReplaceAll(want, c.missing, c.hidden)
			if gotStatus != wantStatus || compactJSON([]byte(got)) != compactJSON([]byte(want)) {
				t.Errorf("hidden %s: got %d %s\nwant %d %s", c.name, gotStatus, got, wantStatus, want)
			}
		})
	}
	// Allowed, through the plugin, headers and all.
	cfg = mustConfig(t, strings.Replace(hidden2026Envelope, "HOLD", "true", 1))
	status, got := through(t, cfg, url, h("tools/call", "lookup"), call("8", "tools/call", `{"name":"lookup","arguments":{},`+metaFull+`}`))
	if status != 200 || !strings.Contains(got, `"text":"ok"`) {
		t.Errorf("allowed call: %d %s", status, got)
	}
}

// Against a real go-sdk v1.8.0 stateless server, whose tool mirrors its
// argument email into Mcp-Param-Email (x-mcp-header) and which checks the
// header against the body: a pseudonym the client sends there is restored
// in the body and the header together (hold_headers), so the server gets
// the value and accepts the call; without hold_headers the header already
// left, so neither is restored and the server gets the pseudonym in both.
// Before, the header kept the pseudonym and the server refused (-32020).
func TestParamHeaderAgainstGoSDKStateless(t *testing.T) {
	var got []string
	s := mcp.NewServer(&mcp.Implementation{Name: "real", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "who", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "alice@example.com"}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "send", InputSchema: map[string]any{"type": "object",
		"properties": map[string]any{"email": map[string]any{"type": "string", "x-mcp-header": "Email"}}}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			got = append(got, string(req.Params.Arguments))
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sent"}}}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	t.Cleanup(srv.Close)
	h := func(name string, kv ...[2]string) [][2]string {
		return append([][2]string{{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/call"}, {"Mcp-Name", name}}, kv...)
	}
	for _, hold := range []bool{true, false} {
		cfg := mustConfig(t, strings.Replace(mirrorEnvelope, "HOLD", map[bool]string{true: "true", false: "false"}[hold], 1))
		_, out := through(t, cfg, srv.URL, h("who"), call("1", "tools/call", `{"name":"who","arguments":{},`+metaFull+`}`))
		p := pseudonymRE.FindString(out)
		if p == "" {
			t.Fatalf("no pseudonym in %s", out)
		}
		got = nil
		status, out := through(t, cfg, srv.URL, h("send", [2]string{"Mcp-Param-Email", p}),
			call("2", "tools/call", `{"name":"send","arguments":{"email":"`+p+`"},`+metaFull+`}`))
		if status != 200 || !strings.Contains(out, `"text":"sent"`) {
			t.Fatalf("hold %v: the server refused the call: %d %s", hold, status, out)
		}
		want := `{"email":"alice@example.com"}`
		if !hold {
			want = `{"email":"` + p + `"}`
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("hold %v: the server got %v, want %s", hold, got, want)
		}
	}
}

// Against a real go-sdk v1.8.0 stateless server: methods 2026-07-28
// removed reach it as sent and come back as its own answer (the
// conformance scenario server-stateless compares them), and a tools/list
// the plugin filtered is marked private.
func TestRemovedMethodsAndCacheScopeAgainstGoSDKStateless(t *testing.T) {
	url := goSDKStateless(t)
	cfg := mustConfig(t, strings.Replace(strings.Replace(hidden2026Envelope, "HOLD", "true", 1), `deny_tools: ["delete_*"]`, `deny_tools: ["lookup"]`, 1))
	for _, method := range []string{"resources/subscribe", "ping", "logging/setLevel"} {
		hs := [][2]string{{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", method}}
		body := call("3", method, `{"uri":"file:///present","level":"info",`+metaFull+`}`)
		wantStatus, _, want := send(t, url, hs, body)
		gotStatus, got := through(t, cfg, url, hs, body)
		if gotStatus != wantStatus || got != want {
			t.Errorf("%s: through the plugin %d %s, directly %d %s", method, gotStatus, got, wantStatus, want)
		}
	}
	hs := [][2]string{{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/list"}}
	_, _, direct := send(t, url, hs, call("4", "tools/list", `{`+metaFull+`}`))
	_, got := through(t, cfg, url, hs, call("4", "tools/list", `{`+metaFull+`}`))
	if !strings.Contains(direct, `"name":"lookup"`) || strings.Contains(got, `"name":"lookup"`) ||
		!strings.Contains(got, `"cacheScope":"private"`) {
		t.Errorf("tools/list: directly %s\nthrough the plugin %s", direct, got)
	}
}
