package e2e_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/proxy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Issue 26, classes 4 and 5: how a concrete URI relates to an RFC 6570
// template, on real servers. Each server has one resource template,
// customers://{id}/profile, whose handler answers any id with the whole
// profile, and a tool lookup that names the customer's address.

// utServer is an upstream and the URIs its template handler ran for.
type utServer struct {
	url   string
	reads func(t *testing.T) []string
}

// utGoServer is the customers server on go-sdk v1.8.0, which reads {id}
// strictly (yosida95/uritemplate's Regexp).
func utGoServer(t *testing.T) utServer {
	var mu sync.Mutex
	var reads []string
	s := mcp.NewServer(&mcp.Implementation{Name: "go-customers", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "lookup"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "alice@example.com"}}}, nil, nil
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "customers://{id}/profile", Name: "profile", MIMEType: "text/plain"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			mu.Lock()
			reads = append(reads, r.Params.URI)
			mu.Unlock()
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/plain", Text: "profile: plan pro"}}}, nil
		})
	up := stServe(t, s, true)
	return utServer{up.URL, func(*testing.T) []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), reads...)
	}}
}

// utNodeServer is the customers server of a TypeScript SDK line.
func utNodeServer(t *testing.T, base string) utServer {
	return utServer{base, func(t *testing.T) []string {
		resp, err := http.Get(base + "/reads")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var reads []string
		if err := json.NewDecoder(resp.Body).Decode(&reads); err != nil {
			t.Fatal(err)
		}
		return reads
	}}
}

func utServers(t *testing.T) map[string]func(*testing.T) utServer {
	return map[string]func(*testing.T) utServer{
		"go-sdk":        utGoServer,
		"typescript-v1": func(t *testing.T) utServer { return utNodeServer(t, tsV1Server(t, "customers.mjs")) },
		"typescript-v2": func(t *testing.T) utServer { return utNodeServer(t, tsV2Server(t, "customers.mjs")) },
	}
}

// A URI a TypeScript server reads as an instance of a denied template is
// refused, though RFC 6570's strict classes do not match it: the server
// would run the denied template's handler. Regression (issue 26, class
// 5): under allow_resources ["*"], customers://c-1@x/profile was judged
// an unlisted static resource and its profile returned.
func TestURIReadLooselyAsDeniedTemplate(t *testing.T) {
	const uri = "customers://c-1@x/profile"
	for name, start := range utServers(t) {
		t.Run(name, func(t *testing.T) {
			up := start(t)
			ctx := ctxT(t)
			// Straight to the server: the class is real where the SDK reads
			// {id} loosely (TypeScript); go-sdk reads it strictly.
			direct, err := connect(t, up.url, "ann", "").ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			ranHandler := err == nil && len(direct.Contents) == 1 && strings.Contains(direct.Contents[0].Text, "plan pro")
			if want := name != "go-sdk"; ranHandler != want {
				t.Fatalf("straight to the server: handler ran %v, want %v (%v)", ranHandler, want, err)
			}
			before := len(up.reads(t))
			for _, hide := range []bool{false, true} {
				p := startPlugin(t, up.url, `{
  "policy": {"name": "loose", "hide_denied": `+map[bool]string{false: "false", true: "true"}[hide]+`,
             "allow_tools": ["*"], "allow_resources": ["*"], "deny_resources": ["customers://{id}/profile"]},
  "server": {"primitives": [{"match": {"kinds": ["resource_template"], "names": ["customers://{id}/profile"]}}]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]}
}`)
				for _, u := range []string{uri, "customers://c-1/profile", "customers://c%401/profile", "customers://c 1/profile"} {
					res, err := connect(t, p.URL, "ann", "").ReadResource(ctx, &mcp.ReadResourceParams{URI: u})
					if err == nil {
						t.Errorf("hide %v: read %s through the plugin: %+v", hide, u, res.Contents)
					}
				}
			}
			if after := up.reads(t); len(after) != before {
				t.Errorf("the denied template's handler ran through the plugin: %v", after[before:])
			}
		})
	}
}

// A pseudonym restored into a URI goes to the server as the client that
// saw the value writes it, raw: the TypeScript servers match it to the
// template and answer; go-sdk, which reads {id} strictly, answers not
// found, as it does to that client straight. Regression (issue 26,
// class 4, reversed by issue 32, class 5): the address went in
// percent-encoded, which the TypeScript servers pass to the handler
// undecoded.
func TestRestoredURIMatchesItsTemplate(t *testing.T) {
	const want = "customers://alice@example.com/profile"
	env := func(o *proxy.Options) { o.Env = map[string]string{"E2E_VAULT_KEY": "an e2e key, not a secret"} }
	config := `{
  "policy": {"name": "restore", "allow_tools": ["*"], "allow_resources": ["*"], "transforms": ["pseudonymise"],
             "vault": {"key_env": "E2E_VAULT_KEY"}},
  "server": {"primitives": [{"match": {"kinds": ["resource_template"], "names": ["customers://{id}/profile"]}}]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]},
  "gateway": {"hold_headers": true}
}`
	for name, start := range utServers(t) {
		t.Run(name, func(t *testing.T) {
			up := start(t)
			p := startPlugin(t, up.url, config, env)
			ctx := ctxT(t)
			cs := connect(t, p.URL, "ann", "")
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			pseudonym := res.Content[0].(*mcp.TextContent).Text
			if !strings.HasPrefix(pseudonym, "EMAIL_") {
				t.Fatalf("lookup gave %q, want a pseudonym", pseudonym)
			}
			uri := "customers://" + pseudonym + "/profile"
			read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if name == "go-sdk" {
				_, direct := connect(t, up.url, "ann", "").ReadResource(ctx, &mcp.ReadResourceParams{URI: want})
				if err == nil || direct == nil {
					t.Errorf("go-sdk: read %s through the plugin: %v; %s straight: %v", uri, err, want, direct)
				}
				return
			}
			if err != nil {
				t.Fatalf("read %s: %v", uri, err)
			}
			if got := up.reads(t); len(got) == 0 || got[len(got)-1] != want {
				t.Errorf("the server read %v, want %s", got, want)
			}
			if b, _ := json.Marshal(read); strings.Contains(string(b), "alice") {
				t.Errorf("the client read the address: %s", b)
			}
			if name != "typescript-v2" {
				return
			}
			// At 2026-07-28, sealed: no session, the pseudonym a stateless
			// request got, the Mcp-Name header mirroring the URI.
			out := utPost2026(t, p.URL, "tools/call", "lookup", `"name":"lookup","arguments":{}`)
			sealed := pseudonymIn(out)
			if sealed == "" {
				t.Fatalf("no pseudonym in %s", out)
			}
			uri = "customers://" + sealed + "/profile"
			n := len(up.reads(t))
			out = utPost2026(t, p.URL, "resources/read", uri, `"uri":`+jsondoc.Quote(uri))
			if !strings.Contains(out, "plan pro") || strings.Contains(out, "alice") {
				t.Errorf("2026-07-28 read %s: %s", uri, out)
			}
			if got := up.reads(t); len(got) != n+1 || got[n] != want {
				t.Errorf("2026-07-28: the server read %v, want %s", got[n:], want)
			}
		})
	}
}

// utPost2026 sends one 2026-07-28 request with its mirrored headers as
// ann and returns the answer's body.
func utPost2026(t *testing.T, url, method, name, params string) string {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"e2e","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest("POST", url+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	req.Header.Set("x-mcp-principal", "ann")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return string(out)
}

// pseudonymIn is the first EMAIL_ pseudonym of s, or "".
func pseudonymIn(s string) string {
	i := strings.Index(s, "EMAIL_")
	if i < 0 {
		return ""
	}
	j := i + len("EMAIL_")
	for j < len(s) && (s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '2' && s[j] <= '7') {
		j++
	}
	return s[i:j]
}
