package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// demoVariant writes the demo envelope with each old string replaced by
// its new one (each must occur).
func demoVariant(t *testing.T, pairs ...string) string {
	t.Helper()
	src, err := os.ReadFile(demoPolicy(t))
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("demo.yaml has no %q", pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	f := filepath.Join(t.TempDir(), "demo.yaml")
	if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func diffJSON(t *testing.T, args ...string) (int, []diffChange) {
	t.Helper()
	code, out, errOut := runCLI(append([]string{"policy", "diff", "--format", "json"}, args...)...)
	var r struct{ Changes []diffChange }
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: exit %d, stderr %q, not JSON: %v\n%s", args, code, errOut, err, out)
	}
	return code, r.Changes
}

// TestPolicyDiff: each kind of change is reported for the roles and
// primitives it touches and no other, and exits 1; no change exits 0.
func TestPolicyDiff(t *testing.T) {
	demo := demoPolicy(t)
	catalog := filepath.Join(filepath.Dir(demo), "demo_catalog.json")
	for _, c := range []struct {
		name    string
		variant []string
		catalog bool
		want    []diffChange
	}{
		{"support may delete customers", []string{
			"allow_tools: [search_customers, get_customer]", "allow_tools: [search_customers, get_customer, delete_customer]",
			"      deny_tools: [delete_customer]\n", "      max_sensitivity: restricted\n"}, false,
			[]diffChange{
				{Role: "support", Kind: "tool", Name: "delete_customer", Field: "decision", Before: "hidden", After: "allow", BeforeRule: "role:support", AfterRule: "role:support"},
				{Role: "support", Field: "max_sensitivity", Before: "confidential", After: "restricted"},
			}},
		{"a rule grants support the deletion alone", []string{
			"\nserver:\n", "\n  rules:\n    - {match: {roles: [support], names: [delete_customer]}, allow_tools: [delete_customer], max_sensitivity: restricted}\nserver:\n",
			"      deny_tools: [delete_customer]\n", ""}, false,
			[]diffChange{
				{Role: "support", Kind: "tool", Name: "delete_customer", Field: "decision", Before: "hidden", After: "allow", BeforeRule: "role:support", AfterRule: "rule[0]"},
			}},
		{"denials become visible", []string{"hide_denied: true", "hide_denied: false"}, false, nil}, // checked below
		{"support's pipeline", []string{"      deny_tools: [delete_customer]\n",
			"      deny_tools: [delete_customer]\n      transforms: [{type: truncate, id: short}]\n"}, false, nil},
		{"the docs with the catalog", []string{`allow_resources: ["docs://*"]`, `allow_resources: []`}, true,
			[]diffChange{
				{Role: "", Kind: "resource", Name: "docs://readme", Field: "decision", Before: "allow", After: "hidden", BeforeRule: "policy", AfterRule: "policy"},
				{Role: "support", Kind: "resource", Name: "docs://readme", Field: "decision", Before: "allow", After: "hidden", BeforeRule: "policy", AfterRule: "policy"},
			}},
		{"a rate limit for the admin", []string{"      max_sensitivity: restricted\n",
			"      max_sensitivity: restricted\n      rate_limits: [{rate: 5, per: minute}]\n"}, false, nil},
		{"exec for support", []string{"      deny_tools: [delete_customer]\n",
			"      deny_tools: [delete_customer]\n      allow_capabilities: [exec]\n"}, false,
			[]diffChange{{Role: "support", Field: "denied_capabilities", Before: "exec; reveal", After: "reveal"}}},
	} {
		args := []string{demo, demoVariant(t, c.variant...)}
		if c.catalog {
			args = append(args, "--catalog", catalog)
		}
		code, got := diffJSON(t, args...)
		if code != 1 || len(got) == 0 {
			t.Errorf("%s: exit %d, %d changes; want 1 and some", c.name, code, len(got))
			continue
		}
		switch c.name {
		case "denials become visible":
			for _, g := range got {
				if g.Field != "decision" || g.Before != "hidden" || g.After != "deny" {
					t.Errorf("%s: %+v", c.name, g)
				}
			}
			continue
		case "support's pipeline":
			for _, g := range got {
				if g.Role != "support" || g.Field != "transforms" || g.Before != "secrets; pii" || g.After != "secrets; pii; short" {
					t.Errorf("%s: %+v", c.name, g)
				}
			}
			if len(got) != 5 { // echo, search_customers, get_customer, the template, the prompt
				t.Errorf("%s: %d changes: %+v", c.name, len(got), got)
			}
			continue
		case "a rate limit for the admin":
			for _, g := range got {
				if g.Role != "admin" || g.Field != "rate_limits" || g.Before != "none" || !strings.Contains(g.After, "5/minute") {
					t.Errorf("%s: %+v", c.name, g)
				}
			}
			continue
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: %d changes, want %d: %+v", c.name, len(got), len(c.want), got)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: change %d\n got %+v\nwant %+v", c.name, i, got[i], c.want[i])
			}
		}
	}

	for _, f := range []string{"text", "markdown", "json"} {
		code, out, errOut := runCLI("policy", "diff", demo, demo, "--catalog", catalog, "--format", f)
		if code != 0 || errOut != "" || strings.Contains(out, "delete_customer") {
			t.Errorf("against itself, %s: exit %d, stderr %q:\n%s", f, code, errOut, out)
		}
	}
	variant := demoVariant(t, "      deny_tools: [delete_customer]\n", "      deny_tools: [delete_customer, search_customers]\n")
	code, out, _ := runCLI("policy", "diff", demo, variant)
	if code != 1 || !strings.Contains(out, "role support:\n  tool search_customers: allow (role:support) -> hidden (role:support)  [takes away]\n") ||
		!strings.HasSuffix(out, "1 change\n") {
		t.Errorf("text: exit %d:\n%s", code, out)
	}
	code, out, _ = runCLI("policy", "diff", "--format", "markdown", demo, variant)
	if code != 1 || !strings.Contains(out, "| Caller | Primitive | Change | Before | After |\n|---|---|---|---|---|\n"+
		"| role support | tool `search_customers` | **takes away** | allow (role:support) | hidden (role:support) |\n") {
		t.Errorf("markdown: exit %d:\n%s", code, out)
	}
	for _, args := range [][]string{{demo}, {demo, demo, demo}, {demo, demo, "--format", "html"}, {demo, "nowhere.yaml"},
		{demo, demo, "--catalog", demo}} {
		if code, _, _ := runCLI(append([]string{"policy", "diff"}, args...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
