package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// higressCLIConfig has a global policy and two route rules, one extending
// a policy file (resolved by the CLI as for any envelope).
const higressCLIConfig = `{"policy": {"name": "global", "deny_tools": ["delete_*"]},
  "server": {"id": "mcp"},
  "_rules_": [
    {"_match_route_": ["route-a"], "policy": {"name": "a", "deny_tools": ["search"]}, "server": {"id": "mcp"}},
    {"_match_route_": ["route-b"], "_match_service_": ["crm.ns.svc.cluster.local:3000"], "policy": {"name": "b", "extends": "base.yaml"}, "server": {"id": "crm"}},
    {"_match_domain_": ["*.tenant.example"], "policy": "strict"}]}`

// higressWasmPlugin is the same as a Higress WasmPlugin resource: the CLI
// injects it as Higress's controller does.
const higressWasmPlugin = `apiVersion: extensions.higress.io/v1alpha1
kind: WasmPlugin
metadata: {name: mcp-privacy, namespace: higress-system}
spec:
  url: oci://ghcr.io/cloudg/mcp-privacy:0.1.0
  defaultConfig:
    policy: {name: global, deny_tools: ["delete_*"]}
  matchRules:
  - ingress: [route-a]
    config:
      policy: {name: a, deny_tools: [search]}
  - ingress: [route-off]
    configDisable: true
  - domain: ["*.tenant.example"]
    config: {policy: strict}
`

func TestPolicyCheckHigress(t *testing.T) {
	dir := writeFiles(t, map[string]string{"h.json": higressCLIConfig, "base.yaml": basePolicy, "wp.yaml": higressWasmPlugin,
		"bad.json":  `{"policy": "standard", "_rules_": [{"_match_route_": ["a"], "policy": {"roles": {"r": {"allow_tools": 3}}}}]}`,
		"only.json": `{"_rules_": [{"_match_route_": ["a"], "policy": "standard"}]}`})
	code, out, errOut := runCLI("policy", "check", filepath.Join(dir, "h.json"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := `ok
_rules_[0]: route "route-a": policy "a" for server "mcp"
_rules_[1]: route "route-b" and service "crm.ns.svc.cluster.local:3000": policy "b" for server "crm"
_rules_[2]: domain "*.tenant.example": policy "strict" for server "default"
no rule matches: the global configuration: policy "global" for server "mcp"
`
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	code, out, errOut = runCLI("policy", "check", filepath.Join(dir, "wp.yaml"))
	if code != 0 || !strings.Contains(out, `_rules_[1]: domain "*.tenant.example": policy "strict"`) || strings.Contains(out, "route-off") {
		t.Errorf("WasmPlugin: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCLI("policy", "check", filepath.Join(dir, "only.json"))
	if code != 0 || !strings.Contains(out, "no global configuration: Higress passes the request by, unjudged") {
		t.Errorf("rules only: exit %d\n%s", code, out)
	}
	code, _, errOut = runCLI("policy", "check", filepath.Join(dir, "bad.json"))
	if code != 1 || !strings.Contains(errOut, "_rules_[0].policy.roles.r.allow_tools: ") {
		t.Errorf("bad rule: exit %d, stderr %s", code, errOut)
	}
	for _, sub := range []string{"flatten", "describe"} {
		if code, _, errOut := runCLI("policy", sub, filepath.Join(dir, "h.json")); code != 2 || !strings.Contains(errOut, "policy check lists the rules") {
			t.Errorf("policy %s: exit %d, stderr %s", sub, code, errOut)
		}
	}
}

// TestExplainHigress: explain judges with the configuration the request
// --route, --domain and --service describe would get.
func TestExplainHigress(t *testing.T) {
	dir := writeFiles(t, map[string]string{"h.json": higressCLIConfig, "base.yaml": basePolicy,
		"only.json": `{"_rules_": [{"_match_route_": ["a"], "policy": "standard"}]}`})
	file := filepath.Join(dir, "h.json")
	for _, c := range []struct {
		args             []string
		config, decision string
	}{
		{[]string{"--tool", "search"}, "global", "allow"},
		{[]string{"--tool", "delete_x"}, "global", "deny"},
		{[]string{"--tool", "search", "--route", "route-a"}, "_rules_[0]", "deny"},
		{[]string{"--tool", "delete_x", "--route", "route-a"}, "_rules_[0]", "allow"},
		{[]string{"--tool", "drop_table", "--route", "route-b"}, "global", "allow"}, // route and service both needed
		{[]string{"--tool", "drop_table", "--route", "route-b", "--service", "crm.ns.svc.cluster.local:3000"}, "_rules_[1]", "deny"},
		{[]string{"--tool", "drop_table", "--route", "route-b", "--service", "outbound|3000|v1|crm.ns.svc.cluster.local"}, "_rules_[1]", "deny"},
		{[]string{"--tool", "drop_table", "--route", "route-b", "--service", "crm.ns.svc.cluster.local:80"}, "global", "allow"},
		{[]string{"--tool", "search", "--domain", "acme.tenant.example:8443"}, "_rules_[2]", "deny"}, // strict: above its ceiling
		{[]string{"--tool", "search", "--domain", "acme.tenant.example", "--route", "route-a"}, "_rules_[0]", "deny"},
	} {
		code, out, errOut := runCLI(append([]string{"explain", "--policy", file, "--json"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		var got explanation
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if got.Config != c.config || got.Decision != c.decision {
			t.Errorf("%v: config %q decision %q, want %q %q", c.args, got.Config, got.Decision, c.config, c.decision)
		}
	}
	code, out, _ := runCLI("explain", "--policy", filepath.Join(dir, "only.json"), "--tool", "search", "--route", "b")
	if code != 0 || !strings.Contains(out, "unjudged") {
		t.Errorf("no rule, no global: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI("explain", "--policy", file, "--tool", "search", "--route", "route-a")
	if code != 0 || !strings.HasPrefix(out, "config:           _rules_[0]\ndecision:         deny\n") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
}
