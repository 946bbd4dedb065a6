package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Names a server may normalise (issue 26, class 3; manual 6.7): a tool or
// prompt name is judged in every reading a server could make of it, so
// that ｄelete_customer (fullwidth d), delete＿customer (fullwidth low
// line), ſhred_files (long s) or \u212Aill_session (Kelvin sign) do not pass
// as other names where a server reads them as the denied ones. Helpers
// are prefixed nm.

// nmConfig denies tools and a prompt by name, hidden (the default).
const nmConfig = `{"policy": {"name": "names", "deny_tools": ["delete_*", "kill_*", "shred_*"], "deny_prompts": ["internal_*"]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]}, "gateway": {"virtual_tools": false}}`

// nmDenied are spellings beyond ASCII of denied names, each with the
// name a normalising server reads it as.
var nmDenied = []struct{ sent, read string }{
	{"ｄelete_customer", "delete_customer"},
	{"delete＿customer", "delete_customer"},
	{"ｄｅｌｅｔｅ_ｃｕｓｔｏｍｅｒ", "delete_customer"},
	{"𝐝𝐞𝐥𝐞𝐭𝐞_customer", "delete_customer"},
	{"ＤＥＬＥＴＥ_customer", "delete_customer"},
	{"\u212Aill_session", "kill_session"},
	{"ſhred_files", "shred_files"},
}

// nmHeaders are a raw request's headers, as principal alice.
var nmHeaders = [][2]string{{"x-mcp-principal", "alice"}, {"accept", "application/json, text/event-stream"},
	{"content-type", "application/json"}, {"mcp-protocol-version", "2025-11-25"}}

func nmCall(name, marker string) string {
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":` + nmQuote(name) + `,"arguments":{"marker":"` + marker + `"}}}`
}

func nmPrompt(name, marker string) string {
	return `{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":` + nmQuote(name) + `,"arguments":{"marker":"` + marker + `"}}}`
}

func nmComplete(name, marker string) string {
	return `{"jsonrpc":"2.0","id":9,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":` + nmQuote(name) +
		`},"argument":{"name":"marker","value":"` + marker + `"}}}`
}

func nmQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A lenient server on the TypeScript SDK v1 that looks names up after
// NFKC and lower-casing runs the denied tool, prompt or completion for a
// name spelt beyond ASCII: straight to it, each bypass is real. Through
// the plugin none runs, and a name whose every reading is allowed still
// does.
func TestNormalisedNamesThroughLenientServer(t *testing.T) {
	ts := tsV1Server(t, "names.mjs", "normalise")
	p := startPlugin(t, ts, nmConfig)
	requests := []struct {
		what    string
		request func(name, marker string) string
		names   []struct{ sent, read string }
	}{
		{"tools/call", nmCall, nmDenied},
		{"prompts/get", nmPrompt, []struct{ sent, read string }{{"ｉnternal_notes", "internal_notes"}, {"internal＿notes", "internal_notes"}}},
		{"completion/complete", nmComplete, []struct{ sent, read string }{{"ｉnternal_notes", "internal_notes"}}},
	}
	for _, r := range requests {
		for i, n := range r.names {
			direct, through := fmt.Sprintf("nm-direct-%s-%d;", r.what, i), fmt.Sprintf("nm-through-%s-%d;", r.what, i)
			// The class is real: the server runs what the name reads as.
			if res := rqRaw(t, ts, "POST", "/mcp", nmHeaders, r.request(n.sent, direct), false); res.status != 200 ||
				!strings.Contains(rqTSCalls(t, ts), `"`+n.read+`","sent":`+nmQuote(n.sent)) {
				t.Fatalf("%s %q straight to the lenient server did not run %s (%d %s): the test proves nothing",
					r.what, n.sent, n.read, res.status, res.body)
			}
			res := rqRaw(t, p.URL, "POST", "/mcp", nmHeaders, r.request(n.sent, through), false)
			if strings.Contains(rqTSCalls(t, ts), through) {
				t.Errorf("%s %q through the plugin: the server ran %s (%d %s)", r.what, n.sent, n.read, res.status, res.body)
			}
			// Hidden: the client is told the name it sent does not exist.
			if !strings.Contains(res.body, "Unknown") || !strings.Contains(res.body, nmQuote(n.sent)[1:len(nmQuote(n.sent))-1]) {
				t.Errorf("%s %q through the plugin: %d %s, want the server's answer for a missing name", r.what, n.sent, res.status, res.body)
			}
		}
	}
	// Names whose every reading is allowed pass, and the server reads them.
	for i, name := range []string{"ｓearch_customers", "search_customers"} {
		marker := fmt.Sprintf("nm-allowed-%d;", i)
		if res := rqRaw(t, p.URL, "POST", "/mcp", nmHeaders, nmCall(name, marker), false); res.status != 200 ||
			!strings.Contains(rqTSCalls(t, ts), marker) {
			t.Errorf("allowed %q through the plugin did not run (%d %s)", name, res.status, res.body)
		}
	}
	if res := rqRaw(t, p.URL, "POST", "/mcp", nmHeaders, nmPrompt("ｓummary", "nm-allowed-prompt"), false); !strings.Contains(rqTSCalls(t, ts), "nm-allowed-prompt") {
		t.Errorf("allowed prompt ｓummary through the plugin did not run (%d %s)", res.status, res.body)
	}
}

// The TypeScript SDK v2's McpServer looks names up as sent, a name
// beyond ASCII included: through the plugin, a denied name's spellings
// are answered as missing by the server itself and run nothing, also
// ｄelete_customer, which the server has (straight to it, it runs);
// résumé, a tool the server has, runs; tools/list leaves out the denied
// tool and the one whose name reads as it.
func TestNormalisedNamesThroughTypeScriptV2(t *testing.T) {
	ts := tsV2Server(t, "names.mjs")
	p := startPlugin(t, ts, nmConfig)
	calls := func() string { return rqTSCalls(t, ts) }
	if res := rqRaw(t, ts, "POST", "/mcp", nmHeaders, nmCall("ｄelete_customer", "nm-v2-direct"), false); !strings.Contains(calls(), "nm-v2-direct") {
		t.Fatalf("ｄelete_customer straight to the server did not run (%d %s): the test proves nothing", res.status, res.body)
	}
	for i, n := range nmDenied {
		marker := fmt.Sprintf("nm-v2-call-%d;", i)
		res := rqRaw(t, p.URL, "POST", "/mcp", nmHeaders, nmCall(n.sent, marker), false)
		if strings.Contains(calls(), marker) || !strings.Contains(res.body, nmQuote(n.sent)[1:len(nmQuote(n.sent))-1]) {
			t.Errorf("tools/call %q: %d %s; calls %s", n.sent, res.status, res.body, calls())
		}
	}
	res := rqRaw(t, p.URL, "POST", "/mcp", nmHeaders, nmPrompt("ｉnternal_notes", "nm-v2-prompt"), false)
	if strings.Contains(calls(), "nm-v2-prompt") || !strings.Contains(res.body, "ｉnternal_notes") {
		t.Errorf("prompts/get ｉnternal_notes: %d %s", res.status, res.body)
	}
	if res := rqRaw(t, p.URL, "POST", "/mcp", nmHeaders, nmCall("résumé", "nm-v2-resume"), false); !strings.Contains(calls(), "nm-v2-resume") {
		t.Errorf("résumé did not run through the plugin: %d %s", res.status, res.body)
	}
	list := rqRaw(t, p.URL, "POST", "/mcp", nmHeaders, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, false)
	if strings.Contains(list.body, "elete_customer") || !strings.Contains(list.body, "résumé") || !strings.Contains(list.body, "search_customers") {
		t.Errorf("tools/list through the plugin: %s", list.body)
	}
}

// The Go SDK looks names up as sent: through the plugin, with its own
// client, a denied name's spellings get the server's "unknown tool" and
// run nothing; tools listed under a name whose reading is denied are left
// out; names beyond ASCII whose readings are allowed work.
func TestNormalisedNamesThroughGoSDK(t *testing.T) {
	var mu sync.Mutex
	var ran []string
	s := mcp.NewServer(&mcp.Implementation{Name: "names", Version: "v1"}, nil)
	tool := func(name string) {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				mu.Lock()
				ran = append(ran, name)
				mu.Unlock()
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " done"}}}, nil
			})
	}
	// The server lists ｄelete_customer too: a name whose reading is
	// denied is no more visible than the denied one.
	for _, name := range []string{"search_customers", "delete_customer", "ｄelete_customer", "ｓearch_all"} {
		tool(name)
	}
	for _, name := range []string{"summary", "internal_notes", "résumé"} {
		s.AddPrompt(&mcp.Prompt{Name: name}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			mu.Lock()
			ran = append(ran, name)
			mu.Unlock()
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: name}}}}, nil
		})
	}
	server := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(server.Close)
	p := startPlugin(t, server.URL, nmConfig)
	ctx := ctxT(t)
	cs := connect(t, p.URL, "alice", "")
	has := func(name string) bool {
		mu.Lock()
		defer mu.Unlock()
		for _, r := range ran {
			if r == name {
				return true
			}
		}
		return false
	}

	for _, name := range []string{"ｄelete_customer", "delete＿customer", "𝐝𝐞𝐥𝐞𝐭𝐞_customer"} {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err == nil || !strings.Contains(err.Error(), `unknown tool "`+name+`"`) {
			t.Errorf("CallTool %q: %v, want the server's unknown tool", name, err)
		}
	}
	if has("delete_customer") || has("ｄelete_customer") {
		t.Errorf("a denied tool ran: %v", ran)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "ｉnternal_notes"}); err == nil || !strings.Contains(err.Error(), "ｉnternal_notes") {
		t.Errorf("GetPrompt ｉnternal_notes: %v", err)
	}
	for _, name := range []string{"ｓearch_all", "search_customers"} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}}); err != nil || !has(name) {
			t.Errorf("CallTool %q: %v, want it run", name, err)
		}
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "résumé"}); err != nil || !has("résumé") {
		t.Errorf("GetPrompt résumé: %v", err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, tl := range tools.Tools {
		listed = append(listed, tl.Name)
	}
	if got := strings.Join(listed, ","); strings.Contains(got, "delete") || !strings.Contains(got, "ｓearch_all") || !strings.Contains(got, "search_customers") {
		t.Errorf("tools/list through the plugin: %s", got)
	}
}
