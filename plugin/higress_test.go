package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm/proxytest"
	"github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm/types"
)

// higressConfig is what Higress hands the plugin for a WasmPlugin with a
// defaultConfig and matchRules (policy/higress.go): a global policy and a
// rule per route, domain and service, each its own policy.
const higressConfig = `{"policy": {"name": "global", "deny_tools": ["delete_*"]},
  "_rules_": [
    {"_match_route_": ["route-a"], "policy": {"name": "a", "deny_tools": ["search"]}},
    {"_match_route_": ["route-b"], "policy": {"name": "b"}},
    {"_match_domain_": ["*.tenant.example"], "policy": {"name": "d", "deny_tools": ["search", "delete_*"]}},
    {"_match_service_": ["crm.ns.svc.cluster.local:3000"], "policy": {"name": "s", "deny_tools": ["*"]}}]}`

// callTool sends a tools/call of tool on a stream with these properties
// and :authority, and reports whether the plugin denied it and whether
// it judged the request at all (it removes accept-encoding when it does).
func callTool(t *testing.T, host proxytest.HostEmulator, authority, route, cluster, tool string) (denied, judged bool) {
	t.Helper()
	for name, v := range map[string]string{"route_name": route, "cluster_name": cluster} {
		if v == "" {
			v = "-" // proxytest refuses an empty property; "-" matches no rule
		}
		if err := host.SetProperty([]string{name}, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	id := host.InitializeHttpContext()
	defer host.CompleteHttpContext(id)
	headers := [][2]string{{":method", "POST"}, {":path", "/mcp"}, {":authority", authority}, {"content-type", "application/json"}, {"accept-encoding", "gzip"}}
	host.CallOnRequestHeaders(id, headers, false)
	_, kept := headerValue(host.GetCurrentRequestHeaders(id), "accept-encoding")
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `"}}`
	host.CallOnRequestBody(id, []byte(body), true)
	// A denied call is answered with an error, or (a hidden primitive,
	// plugin/mcp/hidden.go) forwarded under a stand-in name.
	lr := host.GetSentLocalResponse(id)
	forwarded := strings.Contains(string(host.GetCurrentRequestBody(id)), `"name":"`+tool+`"`)
	return lr != nil && strings.Contains(string(lr.Data), `"error"`) || lr == nil && !forwarded, !kept
}

func headerValue(h [][2]string, name string) (string, bool) {
	for _, kv := range h {
		if kv[0] == name {
			return kv[1], true
		}
	}
	return "", false
}

// TestHigressRulesPerRequest: each request is judged by the configuration
// Higress's matcher gives it: the first rule matching its route_name,
// :authority or cluster_name, else the global one.
func TestHigressRulesPerRequest(t *testing.T) {
	host, reset := startPlugin(t, higressConfig)
	defer reset()
	if got := host.StartPlugin(); got != types.OnPluginStartStatusOK {
		t.Fatalf("StartPlugin = %v: %q", got, host.GetErrorLogs())
	}
	logs := strings.Join(host.GetInfoLogs(), "\n")
	for _, want := range []string{`_rules_[0], route "route-a": policy "a"`, `_rules_[3], service "crm.ns.svc.cluster.local:3000": policy "s"`, `policy "global" for server "default" where no rule matches`} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
	}
	const crm = "outbound|3000||crm.ns.svc.cluster.local"
	for _, c := range []struct {
		authority, route, cluster, tool string
		denied                          bool
	}{
		{"mcp.example", "", "", "search", false}, // global
		{"mcp.example", "", "", "delete_x", true},
		{"mcp.example", "route-a", "", "search", true}, // rule 0
		{"mcp.example", "route-a", "", "delete_x", false},
		{"mcp.example", "route-b", "", "delete_x", false},       // rule 1
		{"acme.tenant.example:8443", "", "", "search", true},    // rule 2, port stripped
		{"acme.tenant.example", "route-b", "", "search", false}, // rule 1 comes first
		{"mcp.example", "", crm, "lookup", true},                // rule 3
		{"mcp.example", "", "outbound|80||crm.ns.svc.cluster.local", "lookup", false},
	} {
		denied, judged := callTool(t, host, c.authority, c.route, c.cluster, c.tool)
		if denied != c.denied || !judged {
			t.Errorf("%+v: denied %v judged %v, want denied %v", c, denied, judged, c.denied)
		}
	}
}

// TestHigressRulesOnly: without global keys (defaultConfigDisable), a
// request no rule matches is not the plugin's: it passes untouched, as
// Higress passes it by.
func TestHigressRulesOnly(t *testing.T) {
	host, reset := startPlugin(t, `{"_rules_": [{"_match_route_": ["route-a"], "policy": {"deny_tools": ["*"]}}]}`)
	defer reset()
	if got := host.StartPlugin(); got != types.OnPluginStartStatusOK {
		t.Fatalf("StartPlugin = %v: %q", got, host.GetErrorLogs())
	}
	if denied, judged := callTool(t, host, "mcp.example", "route-b", "", "search"); denied || judged {
		t.Errorf("unmatched request: denied %v judged %v, want passed untouched", denied, judged)
	}
	if denied, _ := callTool(t, host, "mcp.example", "route-a", "", "search"); !denied {
		t.Error("matched request not judged by its rule")
	}
}

// TestHigressRulesRejected: a rule's error refuses the whole
// configuration, named by its JSON path.
func TestHigressRulesRejected(t *testing.T) {
	host, reset := startPlugin(t, `{"policy": "standard", "_rules_": [{"_match_route_": ["a"], "policy": {"max_sensitivity": "secret"}}]}`)
	defer reset()
	if got := host.StartPlugin(); got != types.OnPluginStartStatusFailed {
		t.Fatalf("StartPlugin = %v, want failed", got)
	}
	if logs := strings.Join(host.GetErrorLogs(), "\n"); !strings.Contains(logs, "_rules_[0].policy.max_sensitivity") {
		t.Errorf("error logs lack the rule's path:\n%s", logs)
	}
}

// higressSharedConfig has two routes of one MCP server (server.id crm)
// and a route of another (server.id other), each policy with the vault
// settings vault (JSON members, or ""). Route a pseudonymises the emails of
// results (standard); b and c let every tool through. Each rule has the
// same rate limit on search.
func higressSharedConfig(vault string) string {
	rule := func(route, server, policy string) string {
		return `{"_match_route_": ["` + route + `"], "server": {"id": "` + server + `"}, "identity": {"principal": [{"header": "x-mcp-principal"}]},
   "policy": {` + policy + vault + `, "rate_limits": [{"rate": 1, "per": "hour", "burst": 1, "tools": ["search"]}]}}`
	}
	return `{"_rules_": [` + rule("route-a", "crm", `"name": "a", "extends": "standard"`) + `,
  ` + rule("route-b", "crm", `"name": "b"`) + `,
  ` + rule("route-c", "other", `"name": "c"`) + `]}`
}

// higressExchange sends body on route as alice and, unless the plugin
// answered itself, answers it with response. It returns what the server
// received, and what the client received.
func higressExchange(t *testing.T, host proxytest.HostEmulator, route, body, response string) (forwarded, answer string) {
	t.Helper()
	if err := host.SetProperty([]string{"route_name"}, []byte(route)); err != nil {
		t.Fatal(err)
	}
	id := host.InitializeHttpContext()
	defer host.CompleteHttpContext(id)
	host.CallOnRequestHeaders(id, [][2]string{{":method", "POST"}, {":path", "/mcp"}, {":authority", "mcp.example"},
		{"content-type", "application/json"}, {"x-mcp-principal", "alice"}}, false)
	host.CallOnRequestBody(id, []byte(body), true)
	if lr := host.GetSentLocalResponse(id); lr != nil {
		return "", string(lr.Data)
	}
	forwarded = string(host.GetCurrentRequestBody(id))
	host.CallOnResponseHeaders(id, [][2]string{{":status", "200"}, {"content-type", "application/json"}}, false)
	host.CallOnResponseBody(id, []byte(response), true)
	return forwarded, string(host.GetCurrentResponseBody(id))
}

// TestHigressRulesShareServerState: the rules of one server.id share its
// vault and its rate-limit buckets (manual 2, "Higress"): a pseudonym
// issued on one route is restored on another route of the same server,
// and a limit both rules have counts the calls of both. A rule of another
// server.id has neither: the pseudonym reaches its server as sent, and
// its bucket is its own, whether each server has its ephemeral key or
// both the same configured key (server.id is bound into pseudonyms,
// manual 13.9).
func TestHigressRulesShareServerState(t *testing.T) {
	for _, vault := range []string{"", `, "vault": {"key": "one key for both servers"}`} {
		t.Run("vault"+vault, func(t *testing.T) { testHigressRulesShareServerState(t, higressSharedConfig(vault)) })
	}
}

func testHigressRulesShareServerState(t *testing.T, config string) {
	host, reset := startPlugin(t, config)
	defer reset()
	if got := host.StartPlugin(); got != types.OnPluginStartStatusOK {
		t.Fatalf("StartPlugin = %v: %q", got, host.GetErrorLogs())
	}
	const email = "alice@example.com"
	_, answer := higressExchange(t, host, "route-a", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`+email+`"}]}}`)
	pseudonym := regexp.MustCompile(`EMAIL_[A-Z2-7]{12,}`).FindString(answer)
	if pseudonym == "" || strings.Contains(answer, email) {
		t.Fatalf("route-a's result not pseudonymised: %s", answer)
	}
	send := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"send_mail","arguments":{"to":"` + pseudonym + `"}}}`
	for _, c := range []struct{ route, want string }{
		{"route-b", email},     // same server.id: its vault
		{"route-c", pseudonym}, // another server.id: not its pseudonym
	} {
		forwarded, answer := higressExchange(t, host, c.route, send, `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`)
		if !strings.Contains(forwarded, `"to":"`+c.want+`"`) {
			t.Errorf("%s: server received %q (reply %s), want the argument %q", c.route, forwarded, answer, c.want)
		}
	}

	search := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search"}}`
	for _, c := range []struct {
		route   string
		limited bool
	}{
		{"route-a", false},
		{"route-b", true},  // route-a took the bucket's one token
		{"route-c", false}, // another server.id's bucket
		{"route-c", true},
	} {
		_, answer := higressExchange(t, host, c.route, search, `{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`)
		if limited := strings.Contains(answer, `"code":-32029`); limited != c.limited {
			t.Errorf("search on %s: answer %s, want rate-limited %v", c.route, answer, c.limited)
		}
	}
}
