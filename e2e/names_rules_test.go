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
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// A call runs under the rules of the tool the server will run (issue 32,
// item 3; manual 6.7): where a server reads ｅxport_customers or
// export_cuſtomers as export_customers, the call gets export_customers's
// project step and takes from its bucket. Helpers are prefixed nr.

// nrConfig gives export_customers, kyc_report and the prompt summary a
// rule: a project step that drops the salary, and a bucket of two calls
// an hour per caller.
const nrConfig = `{"policy": {"name": "names-rules", "rules": [{"name": "exports",
    "match": {"names": ["export_customers", "kyc_report", "summary"]},
    "transforms": [{"type": "project", "options": {"exclude": ["salary"]}}],
    "rate_limits": [{"rate": 1, "per": "hour", "burst": 2}]}]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]}, "gateway": {"virtual_tools": false}}`

// nrSpellings are names a normalising server reads as a tool with rules,
// one per kind of reading manual 6.7 lists.
var nrSpellings = []struct{ what, sent, read string }{
	{"fullwidth letter", "ｅxport_customers", "export_customers"},
	{"long s", "export_cuſtomers", "export_customers"},
	{"fullwidth low line", "export＿customers", "export_customers"},
	{"mathematical bold", "𝐞𝐱𝐩𝐨𝐫𝐭_customers", "export_customers"},
	{"Kelvin sign", "\u212Ayc_report", "kyc_report"},
	{"soft hyphen", "export\u00ad_customers", "export_customers"},
	{"zero width space", "export_\u200bcustomers", "export_customers"},
}

// nrNormalise is how a lenient Go server reads a name: NFKC, case folding
// (golang.org/x/text's full folding), default-ignorable format characters
// dropped: NFKC_Casefold, near enough.
func nrNormalise(name string) string {
	name = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) {
			return -1
		}
		return r
	}, name)
	return cases.Fold().String(norm.NFKC.String(name))
}

// nrGoServer is a go-sdk server whose receiving middleware looks tool
// names up normalised (nrNormalise); ran counts the calls each tool ran.
func nrGoServer(t *testing.T) (string, func(string) int) {
	var mu sync.Mutex
	ran := map[string]int{}
	s := mcp.NewServer(&mcp.Implementation{Name: "names-rules", Version: "v1"}, nil)
	for _, name := range []string{"export_customers", "kyc_report", "search"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				mu.Lock()
				ran[name]++
				mu.Unlock()
				return &mcp.CallToolResult{
					Content:           []mcp.Content{&mcp.TextContent{Text: `{"name":"c-1","salary":91000}`}},
					StructuredContent: map[string]any{"name": "c-1", "salary": 91000},
				}, nil
			})
	}
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.CallToolRequest); ok {
				r.Params.Name = nrNormalise(r.Params.Name)
			}
			return next(ctx, method, req)
		}
	})
	server := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(server.Close)
	return server.URL, func(name string) int {
		mu.Lock()
		defer mu.Unlock()
		return ran[name]
	}
}

// nrResultText is what a caller reads of a tool result: its text items
// and structuredContent.
func nrResultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	sc, _ := json.Marshal(res.StructuredContent)
	b.Write(sc)
	return b.String()
}

// Through the go-sdk client and a go-sdk server that normalises names:
// every spelling runs the tool (straight to the server, with the salary),
// and through the plugin comes back without the salary, and stops once
// the tool's bucket is empty; each spelling's calls empty the tool's
// bucket for the caller as calls of the tool would.
func TestNameReadingsRunUnderTheToolsRulesGoSDK(t *testing.T) {
	url, ran := nrGoServer(t)
	p := startPlugin(t, url, nrConfig)
	ctx := ctxT(t)

	direct := connect(t, url, "", "")
	for _, n := range nrSpellings {
		before := ran(n.read)
		res, err := direct.CallTool(ctx, &mcp.CallToolParams{Name: n.sent, Arguments: map[string]any{}})
		if err != nil || ran(n.read) != before+1 || !strings.Contains(nrResultText(res), "91000") {
			t.Fatalf("%s: %q straight to the server did not run %s with the salary (%v): the test proves nothing", n.what, n.sent, n.read, err)
		}
	}

	for i, n := range nrSpellings {
		// One caller per spelling: the buckets are per caller and tool.
		cs := connect(t, p.URL, fmt.Sprintf("ann-%d", i), "")
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		for call := range 2 {
			before := ran(n.read)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: n.sent, Arguments: map[string]any{}})
			if err != nil || ran(n.read) != before+1 {
				t.Fatalf("%s: %q call %d through the plugin did not run %s: %v", n.what, n.sent, call, n.read, err)
			}
			if got := nrResultText(res); strings.Contains(got, "salary") || strings.Contains(got, "91000") || !strings.Contains(got, "c-1") {
				t.Errorf("%s: %q through the plugin answered %s: want %s's project step", n.what, n.sent, got, n.read)
			}
		}
		// Two calls of the spelling took the tool's two tokens.
		before := ran(n.read)
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: n.read, Arguments: map[string]any{}}); err == nil ||
			!strings.Contains(err.Error(), "Rate limit exceeded") || ran(n.read) != before {
			t.Errorf("%s: %s after two calls of %q: %v, want -32029", n.what, n.read, n.sent, err)
		}

		// And the other way round: the tool's calls empty the spelling's.
		cs = connect(t, p.URL, fmt.Sprintf("bob-%d", i), "")
		for range 2 {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: n.read, Arguments: map[string]any{}}); err != nil {
				t.Fatal(err)
			}
		}
		before = ran(n.read)
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: n.sent, Arguments: map[string]any{}}); err == nil ||
			!strings.Contains(err.Error(), "Rate limit exceeded") || ran(n.read) != before {
			t.Errorf("%s: %q ran after %s's bucket was empty: %v", n.what, n.sent, n.read, err)
		}
	}

	// A name whose readings have no rule keeps its answer.
	cs := connect(t, p.URL, "carol", "")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ｓearch", Arguments: map[string]any{}})
	if err != nil || !strings.Contains(nrResultText(res), "91000") {
		t.Errorf("ｓearch: %v %v, want the server's answer as it is", res, err)
	}
}

// Through the TypeScript SDK v1's low-level Server, looking names up
// after NFKC and lower-casing (e2e/testdata/tsserver/names.mjs): the
// spellings of export_customers run it, through the plugin without the
// salary, and not past the tool's bucket.
func TestNameReadingsRunUnderTheToolsRulesTypeScript(t *testing.T) {
	ts := tsV1Server(t, "names.mjs", "normalise")
	p := startPlugin(t, ts, nrConfig)
	for i, n := range nrSpellings {
		if n.read != "export_customers" || strings.ContainsAny(n.sent, "\u00ad\u200b") {
			continue // the server reads by NFKC and toLowerCase only
		}
		headers := [][2]string{{"x-mcp-principal", fmt.Sprintf("ts-%d", i)}, {"accept", "application/json, text/event-stream"},
			{"content-type", "application/json"}, {"mcp-protocol-version", "2025-11-25"}}
		direct := rqRaw(t, ts, "POST", "/mcp", headers, nmCall(n.sent, fmt.Sprintf("nr-direct-%d;", i)), false)
		if !strings.Contains(direct.body, "91000") {
			t.Fatalf("%s: %q straight to the server: %d %s: the test proves nothing", n.what, n.sent, direct.status, direct.body)
		}
		for call := range 2 {
			marker := fmt.Sprintf("nr-through-%d-%d;", i, call)
			res := rqRaw(t, p.URL, "POST", "/mcp", headers, nmCall(n.sent, marker), false)
			if !strings.Contains(rqTSCalls(t, ts), marker) {
				t.Fatalf("%s: %q call %d did not run: %d %s", n.what, n.sent, call, res.status, res.body)
			}
			if strings.Contains(res.body, "salary") || strings.Contains(res.body, "91000") || !strings.Contains(res.body, "c-1") {
				t.Errorf("%s: %q through the plugin answered %s: want export_customers's project step", n.what, n.sent, res.body)
			}
		}
		marker := fmt.Sprintf("nr-over-%d;", i)
		res := rqRaw(t, p.URL, "POST", "/mcp", headers, nmCall("export_customers", marker), false)
		if strings.Contains(rqTSCalls(t, ts), marker) || !strings.Contains(res.body, "-32029") {
			t.Errorf("%s: export_customers after two calls of %q: %d %s, want -32029", n.what, n.sent, res.status, res.body)
		}
	}

	// A prompt too: two prompts/get of summary empty its bucket, and its
	// spellings, which the server serves as summary, stop there.
	headers := [][2]string{{"x-mcp-principal", "ts-prompt"}, {"accept", "application/json, text/event-stream"},
		{"content-type", "application/json"}, {"mcp-protocol-version", "2025-11-25"}}
	for call := range 2 {
		marker := fmt.Sprintf("nr-prompt-%d;", call)
		if res := rqRaw(t, p.URL, "POST", "/mcp", headers, nmPrompt("summary", marker), false); !strings.Contains(rqTSCalls(t, ts), marker) {
			t.Fatalf("summary call %d did not run: %d %s", call, res.status, res.body)
		}
	}
	for i, name := range []string{"ｓummary", "ſummary", "ＳＵＭＭＡＲＹ"} {
		if direct := rqRaw(t, ts, "POST", "/mcp", headers, nmPrompt(name, fmt.Sprintf("nr-prompt-direct-%d;", i)), false); !strings.Contains(direct.body, "summary text") {
			t.Fatalf("%q straight to the server: %d %s: the test proves nothing", name, direct.status, direct.body)
		}
		marker := fmt.Sprintf("nr-prompt-over-%d;", i)
		res := rqRaw(t, p.URL, "POST", "/mcp", headers, nmPrompt(name, marker), false)
		if strings.Contains(rqTSCalls(t, ts), marker) || !strings.Contains(res.body, "-32029") {
			t.Errorf("prompts/get %q after summary's bucket was empty: %d %s, want -32029", name, res.status, res.body)
		}
	}
}
