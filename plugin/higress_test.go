package main

import (
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
