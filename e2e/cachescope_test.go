package e2e_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/demo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// csDemo is the demo server (go-sdk 1.8), stateless for 2026-07-28
// requests and with sessions for the 2025 revisions, as a server that
// speaks both is deployed.
func csDemo(t *testing.T) string {
	stateless := demo.HandlerWith(&mcp.StreamableHTTPOptions{Stateless: true})
	stateful := demo.Handler(false)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			stateless.ServeHTTP(w, r)
		} else {
			stateful.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s.URL
}

// A caller's view is never cached as public, at any revision (issue 32,
// item 4; manual 8.4): the go-sdk 1.8 server writes ttlMs and cacheScope
// "public" on its list and read results at 2025 revisions too, and what
// the plugin filtered or transformed for a caller must leave as
// "private". The go-sdk client reads the hints at every revision.
func TestCacheScopePrivateAtEveryRevisionGoSDK(t *testing.T) {
	up := csDemo(t)
	p := startPlugin(t, up, envelope(true, false))
	ctx := ctxT(t)
	for _, version := range []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			session := &mcp.ClientSessionOptions{ProtocolVersion: version}
			direct := connectWith(t, up, "", "", nil, session)
			if got := direct.InitializeResult().ProtocolVersion; got != version {
				t.Fatalf("negotiated %s, want %s", got, version)
			}
			list, err := direct.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if list.CacheScope != "public" {
				t.Fatalf("the server's own tools/list has cacheScope %q: the test proves nothing", list.CacheScope)
			}

			for _, caller := range []struct{ principal, roles string }{{"ann", "support"}, {"ann", ""}, {"root", "admin"}} {
				cs := connectWith(t, p.URL, caller.principal, caller.roles, nil, session)
				scopes := map[string]string{}
				tools, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				scopes["tools/list"] = tools.CacheScope
				if prompts, err := cs.ListPrompts(ctx, nil); err == nil {
					scopes["prompts/list"] = prompts.CacheScope
				} else {
					t.Fatal(err)
				}
				if resources, err := cs.ListResources(ctx, nil); err == nil {
					scopes["resources/list"] = resources.CacheScope
				} else {
					t.Fatal(err)
				}
				if templates, err := cs.ListResourceTemplates(ctx, nil); err == nil {
					scopes["resources/templates/list"] = templates.CacheScope
				} else {
					t.Fatal(err)
				}
				if read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "docs://readme"}); err == nil {
					scopes["resources/read"] = read.CacheScope
				} else {
					t.Fatal(err)
				}
				for method, scope := range scopes {
					if scope != "private" {
						t.Errorf("%s as %s (%s): %s has cacheScope %q, want private", version, caller.principal, caller.roles, method, scope)
					}
				}
			}
		})
	}
}

// As a new user tries it (make run, then tools/list as support, with
// curl): the filtered list leaves private at the revision curl names and
// at none.
func TestCacheScopeFilteredListAsSupport(t *testing.T) {
	up := startUpstream(t, false)
	p := startPlugin(t, up.URL, envelope(true, false))
	for _, version := range []string{"", "2025-03-26", "2025-06-18", "2025-11-25"} {
		// The demo server wants a session: initialize first, as curl would.
		headers := [][2]string{{"x-mcp-principal", "ann"}, {"x-mcp-roles", "support"},
			{"accept", "application/json, text/event-stream"}, {"content-type", "application/json"}}
		v := version
		if v == "" {
			v = "2025-03-26"
		}
		init := rqRaw(t, p.URL, "POST", "/mcp", headers,
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+v+`","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`, false)
		sid := init.header.Get("Mcp-Session-Id")
		if init.status != http.StatusOK || sid == "" {
			t.Fatalf("initialize: %d %s", init.status, init.body)
		}
		headers = append(headers, [2]string{"mcp-session-id", sid})
		rqRaw(t, p.URL, "POST", "/mcp", headers, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, false)
		if version != "" {
			headers = append(headers, [2]string{"mcp-protocol-version", version})
		}
		res := rqRaw(t, p.URL, "POST", "/mcp", headers, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, false)
		if !strings.Contains(res.body, `"cacheScope":"private"`) || strings.Contains(res.body, `"public"`) ||
			strings.Contains(res.body, "delete_customer") {
			t.Errorf("tools/list as support at %q: %d %s", version, res.status, res.body)
		}
	}
}
