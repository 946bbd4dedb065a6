package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// aggregatePolicy is the envelope for a plugin in front of Envoy's
// mcp_router (testdata/policies/aggregate.yaml), and aggregateCatalog the
// lists as the router merges them: tools and prompts named backend__name,
// resources backend+scheme://..., no _meta.
func aggregatePolicy(t *testing.T) string {
	t.Helper()
	return filepath.Join(filepath.Dir(demoPolicy(t)), "aggregate.yaml")
}

func aggregateCatalog(t *testing.T) string {
	t.Helper()
	return filepath.Join(filepath.Dir(demoPolicy(t)), "aggregate_catalog.json")
}

// TestExplainAggregatedNames: explain judges the router's names as names:
// globs on the prefix give the metadata the router stripped (_meta), deny
// globs match, and the backend's own name or a renamed backend's is not
// the primitive the policy describes.
func TestExplainAggregatedNames(t *testing.T) {
	cases := []struct {
		args           []string
		decision, rule string
		hidden         bool
	}{
		{[]string{"--tool", "crm__lookup_customer"}, "allow", "policy", false},
		{[]string{"--tool", "crm__delete_customer"}, "deny", "policy", true},
		{[]string{"--tool", "ops__deploy"}, "deny", "policy", true},
		{[]string{"--tool", "ops__deploy", "--roles", "sre"}, "allow", "role:sre", false},
		{[]string{"--resource", "crm+file:///customers/42"}, "allow", "policy", false},
		{[]string{"--resource", "crm+file:///customers/42/notes"}, "deny", "policy", true},
		{[]string{"--prompt", "crm__summarize_customer"}, "allow", "policy", false},
		// Not the names the client sees behind the router.
		{[]string{"--tool", "deploy", "--roles", "sre"}, "deny", "server.require_known", true},
		{[]string{"--tool", "platform__deploy", "--roles", "sre"}, "deny", "server.require_known", true},
		{[]string{"--resource", "file:///customers/42"}, "deny", "server.require_known", true},
	}
	for _, c := range cases {
		args := append([]string{"explain", "--json", "--policy", aggregatePolicy(t), "--principal", "ann"}, c.args...)
		code, out, errOut := runCLI(args...)
		var e explanation
		if err := json.Unmarshal([]byte(out), &e); err != nil {
			t.Fatalf("%v: exit %d, %v, stderr %q", c.args, code, err, errOut)
		}
		if e.Decision != c.decision || e.Rule != c.rule || e.Hidden != c.hidden {
			t.Errorf("%v: %s by %s (hidden %v), want %s by %s (hidden %v): %s", c.args, e.Decision, e.Rule, e.Hidden, c.decision, c.rule, c.hidden, e.Reason)
		}
	}
}

// TestPolicyMatrixAggregatedNames: the matrix over the router's merged
// lists lists the prefixed names and says of each what explain says; a
// listed item no primitives entry describes is judged with the defaults.
func TestPolicyMatrixAggregatedNames(t *testing.T) {
	code, out, errOut := runCLI("policy", "matrix", aggregatePolicy(t), "--catalog", aggregateCatalog(t), "--format", "json")
	var m matrix
	if err := json.Unmarshal([]byte(out), &m); code != 0 || err != nil {
		t.Fatalf("exit %d, %v, stderr %q:\n%s", code, err, errOut, out)
	}
	var names []string
	for _, p := range m.Primitives {
		names = append(names, p.Kind+" "+p.Name)
	}
	want := "tool crm__lookup_customer,tool crm__delete_customer,tool ops__deploy,resource crm+file:///customers/42," +
		"resource crm+file:///customers/42/notes,prompt crm__summarize_customer,prompt ops__runbook"
	if got := strings.Join(names, ","); got != want {
		t.Fatalf("primitives %s\nwant %s", got, want)
	}
	flags := map[string]string{"tool": "--tool", "resource": "--resource", "prompt": "--prompt"}
	for i, role := range m.Roles {
		for k, p := range m.Primitives {
			c := m.Cells[i][k]
			if p.Name == "ops__runbook" {
				// Listed (so known) but described by no entry: the
				// defaults, and not the ops category. explain, without
				// the catalog, would call it unknown.
				if c.Decision != "allow" || c.State != "transformed" {
					t.Errorf("%q ops__runbook: %+v, want allowed with the defaults", role, c)
				}
				continue
			}
			args := []string{"explain", "--policy", aggregatePolicy(t), "--json", flags[p.Kind], p.Name}
			if role != "" {
				args = append(args, "--roles", role)
			}
			_, eo, _ := runCLI(args...)
			var e explanation
			if err := json.Unmarshal([]byte(eo), &e); err != nil {
				t.Fatal(err)
			}
			want := e.Decision
			if e.Hidden {
				want = "hidden"
			}
			if c.Decision != want || c.Rule != e.Rule {
				t.Errorf("%q %s %s: matrix %s by %s, explain %s by %s", role, p.Kind, p.Name, c.Decision, c.Rule, want, e.Rule)
			}
		}
	}
}

// TestPolicyCheckRouterWarnings: with server.router_backends, policy check
// warns of every glob written with a server's own names (it matches
// nothing behind the router) and still exits 0; the aggregate envelope has
// none.
func TestPolicyCheckRouterWarnings(t *testing.T) {
	code, out, errOut := runCLI("policy", "check", aggregatePolicy(t))
	if code != 0 || out != "ok\n" || errOut != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	src, err := os.ReadFile(aggregatePolicy(t))
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(src), `deny_tools: ["crm__delete_*"]`, `deny_tools: ["delete_*"]`, 1)
	broken = strings.Replace(broken, `names: ["ops__*"]`, `names: ["deploy"]`, 1)
	dir := writeFiles(t, map[string]string{"aggregate.yaml": broken})
	code, out, errOut = runCLI("policy", "check", filepath.Join(dir, "aggregate.yaml"))
	if code != 0 || out != "ok\n" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, w := range []string{`policy.deny_tools: "delete_*" matches no name the router gives`, `server.primitives[2].match.names: "deploy"`} {
		if !strings.Contains(errOut, "warning: ") || !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
	if n := strings.Count(errOut, "\n"); n != 2 {
		t.Errorf("%d warnings, want 2:\n%s", n, errOut)
	}
}
