package e2e_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/proxy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Issue 32, classes 2 and 5: a resource URI as each server reads it
// before lookup, and a pseudonym restored into one, on real servers. Each
// server has the static resources https://secret.example.com/payroll,
// file:///etc/passwd and http://127.0.0.1/admin, the template
// customers://{id}/profile, which knows one customer,
// alice.martin@example.com, and a tool lookup naming her address and
// linking her profile (urLink).

// urSecrets are the static resources and a word of each one's text.
var urSecrets = map[string]string{
	"https://secret.example.com/payroll": "salaries",
	"file:///etc/passwd":                 "root:x",
	"http://127.0.0.1/admin":             "admin console",
}

// urLink is the link to her profile the tool lookup gives, the address
// in it percent-encoded.
const urLink = "customers://alice.martin%40example.com/profile"

// urGoServer is that server on go-sdk v1.8.0, which looks URIs up as
// written.
func urGoServer(t *testing.T) utServer {
	var mu sync.Mutex
	var reads []string
	read := func(text string) mcp.ResourceHandler {
		return func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			mu.Lock()
			reads = append(reads, r.Params.URI)
			mu.Unlock()
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/plain", Text: text}}}, nil
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "go-records", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "lookup"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "alice.martin@example.com"},
			&mcp.ResourceLink{Name: "profile", URI: urLink}}}, nil, nil
	})
	s.AddResource(&mcp.Resource{URI: "https://secret.example.com/payroll", Name: "payroll"}, read("payroll: salaries"))
	s.AddResource(&mcp.Resource{URI: "file:///etc/passwd", Name: "passwd"}, read("root:x:0:0"))
	s.AddResource(&mcp.Resource{URI: "http://127.0.0.1/admin", Name: "admin"}, read("admin console"))
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "customers://{id}/profile", Name: "profile"},
		func(ctx context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			mu.Lock()
			reads = append(reads, r.Params.URI)
			mu.Unlock()
			if r.Params.URI != "customers://alice.martin%40example.com/profile" && r.Params.URI != "customers://alice.martin@example.com/profile" {
				return nil, mcp.ResourceNotFoundError(r.Params.URI)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: "profile: plan pro"}}}, nil
		})
	up := stServe(t, s, true)
	return utServer{up.URL, func(*testing.T) []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), reads...)
	}}
}

// urTSServer is that server on the TypeScript SDK v1, which looks URIs up
// as new URL(uri).toString().
func urTSServer(t *testing.T) utServer { return utNodeServer(t, tsV1Server(t, "records.mjs")) }

// urTSV2Server is that server on the TypeScript SDK v2.
func urTSV2Server(t *testing.T) utServer { return utNodeServer(t, tsV2Server(t, "records.mjs")) }

func urServers() map[string]func(*testing.T) utServer {
	return map[string]func(*testing.T) utServer{"go-sdk": urGoServer, "typescript-v1": urTSServer, "typescript-v2": urTSV2Server}
}

// urForms are URIs a WHATWG URL reader reads as a denied resource, and
// which one.
var urForms = []struct{ uri, reads string }{
	{"https://secret.example.com:443/payroll", "https://secret.example.com/payroll"},
	{"https://secret.example.com:0443/payroll", "https://secret.example.com/payroll"},
	{"https://secret.example.com:/payroll", "https://secret.example.com/payroll"},
	{"https:secret.example.com/payroll", "https://secret.example.com/payroll"},
	{"https:/secret.example.com/payroll", "https://secret.example.com/payroll"},
	{"https:///secret.example.com/payroll", "https://secret.example.com/payroll"},
	{"https://@secret.example.com/payroll", "https://secret.example.com/payroll"},
	{"https://SECRET.example.com/payroll", "https://secret.example.com/payroll"},
	{"https://s%65cret.example.com/payroll", "https://secret.example.com/payroll"},
	{"https://ｓｅｃｒｅｔ.example.com/payroll", "https://secret.example.com/payroll"},
	{"https://secret．example.com/payroll", "https://secret.example.com/payroll"},
	{"https://se\u00adcret.example.com/payroll", "https://secret.example.com/payroll"},
	{"file://localhost/etc/passwd", "file:///etc/passwd"},
	{"file:/etc/passwd", "file:///etc/passwd"},
	{"file:etc/passwd", "file:///etc/passwd"},
	{"http://2130706433/admin", "http://127.0.0.1/admin"},
	{"http://127.1/admin", "http://127.0.0.1/admin"},
	{"http://0x7f.0.0.1/admin", "http://127.0.0.1/admin"},
	{"http://0177.0.0.1/admin", "http://127.0.0.1/admin"},
	{"http://127.0.0.1./admin", "http://127.0.0.1/admin"},
	{"http://127.0.0.1:80/admin", "http://127.0.0.1/admin"},
}

// A URI the server reads as a denied resource is refused, in every form
// the TypeScript SDK's McpServer reads so. Regression (issue 32, class
// 2): each form was judged as written, passed the deny, and the server
// returned the denied resource.
func TestURIReadAsDeniedResource(t *testing.T) {
	for name, start := range urServers() {
		t.Run(name, func(t *testing.T) {
			up := start(t)
			ctx := ctxT(t)
			direct := connect(t, up.url, "ann", "")
			for _, f := range urForms {
				res, err := direct.ReadResource(ctx, &mcp.ReadResourceParams{URI: f.uri})
				served := err == nil && len(res.Contents) == 1 && strings.Contains(res.Contents[0].Text, urSecrets[f.reads])
				// The class is real where the SDK reads URIs as WHATWG URLs.
				// (The v2 server refuses a go-sdk client's Mcp-Name header
				// beyond ASCII: it reads the header as Latin-1.)
				if name == "typescript-v2" && !ascii(f.uri) {
					continue
				}
				if want := name != "go-sdk"; served != want {
					t.Errorf("straight to the server: %s served %v, want %v (%v)", f.uri, served, want, err)
				}
			}
			before := len(up.reads(t))
			for _, hide := range []string{"false", "true"} {
				p := startPlugin(t, up.url, `{
  "policy": {"name": "readings", "hide_denied": `+hide+`, "allow_tools": ["*"], "allow_resources": ["*"],
             "deny_resources": ["https://secret.example.com/*", "file:///etc/*", "http://127.0.0.1/*"]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]},
  "gateway": {"hold_headers": true}
}`)
				cs := connect(t, p.URL, "ann", "")
				for _, f := range urForms {
					if res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: f.uri}); err == nil {
						t.Errorf("hide %s: read %s through the plugin: %+v", hide, f.uri, res.Contents)
					}
				}
			}
			if after := up.reads(t); len(after) != before {
				t.Errorf("a denied resource's handler ran through the plugin: %v", after[before:])
			}
		})
	}
}

// A hidden resource answers exactly as a missing one, the URI aside.
// Regression (issue 32, class 2): the stand-in of a hidden https:// or
// file: resource kept only the scheme, and the TypeScript server's
// not-found text then ended in a "/" that a missing one's lacks.
func TestHiddenURIAnswersAsMissing(t *testing.T) {
	for name, start := range urServers() {
		t.Run(name, func(t *testing.T) {
			up := start(t)
			p := startPlugin(t, up.url, `{
  "policy": {"name": "hidden", "hide_denied": true, "allow_tools": ["*"], "allow_resources": ["*"],
             "deny_resources": ["https://secret.example.com/*", "file:///etc/*", "http://127.0.0.1/*"]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]},
  "gateway": {"hold_headers": true}
}`)
			ctx := ctxT(t)
			cs := connect(t, p.URL, "ann", "")
			for _, c := range [][2]string{
				{"https://secret.example.com/payroll", "https://other.example.com/payroll"},
				{"file:///etc/passwd", "file:///var/passwd"},
				{"http://127.0.0.1/admin", "http://127.0.0.2/admin"},
			} {
				_, errHidden := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: c[0]})
				_, errMissing := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: c[1]})
				if errHidden == nil || errMissing == nil {
					t.Fatalf("%s: %v; %s: %v", c[0], errHidden, c[1], errMissing)
				}
				hidden := strings.ReplaceAll(errHidden.Error(), c[0], "URI")
				missing := strings.ReplaceAll(errMissing.Error(), c[1], "URI")
				if hidden != missing {
					t.Errorf("hidden %s answers %q, missing %s %q", c[0], errHidden, c[1], errMissing)
				}
			}
		})
	}
}

// A pseudonym restored into a URI reaches the server as the client that
// saw the value writes it: the read through the plugin does what the
// direct read does. Regression (issue 32, class 5): the address went in
// percent-encoded (customers://alice.martin%40example.com/profile), which
// the TypeScript SDK's servers match to {id} without decoding: a customer
// they do not have.
func TestRestoredURIAsTheClientWritesIt(t *testing.T) {
	const raw = "customers://alice.martin@example.com/profile"
	env := func(o *proxy.Options) { o.Env = map[string]string{"E2E_VAULT_KEY": "an e2e key, not a secret"} }
	for name, start := range urServers() {
		t.Run(name, func(t *testing.T) {
			up := start(t)
			ctx := ctxT(t)
			direct, directErr := connect(t, up.url, "ann", "").ReadResource(ctx, &mcp.ReadResourceParams{URI: raw})
			p := startPlugin(t, up.url, `{
  "policy": {"name": "restore", "allow_tools": ["*"], "allow_resources": ["*"], "transforms": ["pseudonymise"],
             "vault": {"key_env": "E2E_VAULT_KEY"}},
  "server": {"primitives": [{"match": {"kinds": ["resource_template"], "names": ["customers://{id}/profile"]}}]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]},
  "gateway": {"hold_headers": true}
}`, env)
			cs := connect(t, p.URL, "ann", "")
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			pseudonym := res.Content[0].(*mcp.TextContent).Text
			if !strings.HasPrefix(pseudonym, "EMAIL_") {
				t.Fatalf("lookup gave %q, want a pseudonym", pseudonym)
			}
			n := len(up.reads(t))
			uri := "customers://" + pseudonym + "/profile"
			read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if (err == nil) != (directErr == nil) {
				t.Fatalf("read %s through the plugin: %v; straight: %v", uri, err, directErr)
			}
			if got := up.reads(t)[n:]; len(got) > 0 && got[0] != raw {
				t.Errorf("the server read %v, want %s", got, raw)
			}
			if err != nil {
				if strings.Contains(err.Error(), "alice") {
					t.Errorf("the error names the address: %v", err)
				}
				return
			}
			if name != "go-sdk" && !strings.Contains(direct.Contents[0].Text, "plan pro") {
				t.Errorf("straight to the server: %+v", direct.Contents)
			}
			if b, _ := json.Marshal(read); !strings.Contains(string(b), "plan pro") || strings.Contains(string(b), "alice") {
				t.Errorf("read through the plugin: %s", b)
			}
		})
	}
}

// The link a tool gave, its address percent-encoded, reaches the server
// as the server wrote it when the client reads it back: the read through
// the plugin does what the direct read of the link does.
func TestRestoredLinkAsTheServerWroteIt(t *testing.T) {
	env := func(o *proxy.Options) { o.Env = map[string]string{"E2E_VAULT_KEY": "an e2e key, not a secret"} }
	for name, start := range urServers() {
		t.Run(name, func(t *testing.T) {
			up := start(t)
			ctx := ctxT(t)
			_, directErr := connect(t, up.url, "ann", "").ReadResource(ctx, &mcp.ReadResourceParams{URI: urLink})
			p := startPlugin(t, up.url, `{
  "policy": {"name": "restore", "allow_tools": ["*"], "allow_resources": ["*"], "transforms": ["pseudonymise"],
             "vault": {"key_env": "E2E_VAULT_KEY"}},
  "server": {"primitives": [{"match": {"kinds": ["resource_template"], "names": ["customers://{id}/profile"]}}]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]},
  "gateway": {"hold_headers": true}
}`, env)
			cs := connect(t, p.URL, "ann", "")
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			var link string
			for _, c := range res.Content {
				if l, ok := c.(*mcp.ResourceLink); ok {
					link = l.URI
				}
			}
			if !strings.HasPrefix(link, "customers://EMAIL_") {
				t.Fatalf("lookup linked %q, want the link with a pseudonym", link)
			}
			n := len(up.reads(t))
			_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: link})
			if (err == nil) != (directErr == nil) {
				t.Errorf("read %s through the plugin: %v; the link straight: %v", link, err, directErr)
			}
			if got := up.reads(t)[n:]; len(got) == 0 || got[0] != urLink {
				t.Errorf("the server read %v, want %s", got, urLink)
			}
		})
	}
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
