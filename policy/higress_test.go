package policy

import (
	"strings"
	"testing"
)

func hrDecode(t *testing.T, src string) (*HostRules, Errors) {
	t.Helper()
	doc, err := ParseDocument([]byte(src))
	if err != nil {
		t.Fatalf("ParseDocument(%q): %v", src, err)
	}
	if !HasHostRules(doc) {
		t.Fatalf("HasHostRules(%q) = false", src)
	}
	return DecodeHostRules(doc, Options{})
}

// place is a request as the matcher sees it.
type place struct{ authority, route, cluster string }

func (p place) Authority() string   { return p.authority }
func (p place) RouteName() string   { return p.route }
func (p place) ClusterName() string { return p.cluster }

// TestHostRulesAccepted: the forms Higress's controller and hand-written
// pluginConfigs produce are accepted, each part compiled on its own.
func TestHostRulesAccepted(t *testing.T) {
	for _, c := range []struct {
		name, src  string
		global     string // the global policy's name, "" for none
		rules      int
		categories []HostCategory
	}{
		{"global and two routes", `{"policy": {"name": "g"}, "_rules_": [
			{"_match_route_": ["mcp/a"], "policy": {"name": "a"}},
			{"_match_route_": ["mcp/b"], "policy": "standard", "server": {"id": "b"}}]}`,
			"g", 2, []HostCategory{MatchRoute, MatchRoute}},
		{"rules only (defaultConfigDisable)", `{"_rules_": [{"_match_domain_": ["*.example.com"], "policy": {"name": "a"}}]}`,
			"", 1, []HostCategory{MatchDomain}},
		{"empty rule list beside a global", `{"policy": "standard", "_rules_": []}`, "standard", 0, nil},
		{"bare policy as a rule", `{"_rules_": [{"_match_service_": ["mcp.ns.svc.cluster.local:3000"], "deny_tools": ["x"]}]}`,
			"", 1, []HostCategory{MatchService}},
		{"route and service", `{"_rules_": [{"_match_route_": ["r"], "_match_service_": ["s"], "policy": "standard"}]}`,
			"", 1, []HostCategory{MatchRouteAndService}},
		{"route prefix", `{"_rules_": [{"_match_route_prefix_": ["ai-route-"], "policy": "standard"}]}`,
			"", 1, []HostCategory{MatchRoutePrefix}},
		{"empty names dropped", `{"_rules_": [{"_match_route_": [""], "_match_domain_": ["x"], "policy": "standard"}]}`,
			"", 1, []HostCategory{MatchDomain}},
		{"same server, same vault", `{"policy": {"name": "g", "vault": {"key_env": "K"}}, "_rules_": [{"_match_route_": ["a"], "policy": {"name": "a", "vault": {"key_env": "K"}}}]}`,
			"g", 1, []HostCategory{MatchRoute}},
		{"other server, other vault", `{"policy": {"name": "g", "vault": {"key_env": "K"}}, "_rules_": [{"_match_route_": ["a"], "server": {"id": "a"}, "policy": {"vault": {"key_env": "L"}}}]}`,
			"g", 1, []HostCategory{MatchRoute}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, errs := hrDecode(t, c.src)
			if len(errs) > 0 {
				t.Fatalf("errors:\n%v", errs)
			}
			if (h.Global != nil) != (c.global != "") {
				t.Fatalf("global = %v, want one: %v", h.Global, c.global != "")
			}
			if h.Global != nil && h.Global.Policy.Name != c.global {
				t.Errorf("global policy %q, want %q", h.Global.Policy.Name, c.global)
			}
			if len(h.Rules) != c.rules {
				t.Fatalf("%d rules, want %d", len(h.Rules), c.rules)
			}
			for i, r := range h.Rules {
				if r.Match.Category != c.categories[i] {
					t.Errorf("rule %d category %v, want %v", i, r.Match.Category, c.categories[i])
				}
				if r.Env == nil || r.Env.Policy == nil {
					t.Errorf("rule %d has no configuration", i)
				}
				if r.Doc.Get(HigressRouteKey) != nil || r.Doc.Get(HigressDomainKey) != nil {
					t.Errorf("rule %d keeps its match keys in its own configuration", i)
				}
			}
		})
	}
}

// TestHostRulesRuleReplacesGlobal: a rule's configuration is its own keys;
// nothing of the global configuration is inherited (Higress's
// ParseRuleConfig parses the rule's JSON alone).
func TestHostRulesRuleReplacesGlobal(t *testing.T) {
	h, errs := hrDecode(t, `{"policy": {"name": "g"}, "server": {"id": "g"}, "gateway": {"paths": ["/x"]},
		"_rules_": [{"_match_route_": ["a"], "policy": {"name": "a"}}]}`)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	r := h.Rules[0].Env
	if r.Server.ID != "default" || !r.Gateway.Paths.Match("/mcp") || r.Gateway.Paths.Match("/x") {
		t.Errorf("rule inherited from the global configuration: server %q, paths %v", r.Server.ID, r.Gateway.Paths)
	}
}

// TestHostRulesRefused: every rule is validated as strictly as the global
// configuration, its errors named by their JSON path from the document's
// root.
func TestHostRulesRefused(t *testing.T) {
	for _, c := range []struct {
		name, src string
		paths     []string // the error paths, in order
		msg       string   // in the first error
	}{
		{"bad role in rule 1", `{"policy": "standard", "_rules_": [
			{"_match_route_": ["a"], "policy": "standard"},
			{"_match_route_": ["b"], "policy": {"roles": {"r": {"allow_categories": "crm"}}}}]}`,
			[]string{"_rules_[1].policy.roles.r.allow_categories"}, "want"},
		{"unknown key in rule", `{"_rules_": [{"_match_route_": ["a"], "policy": "standard", "gateway": {"pathz": []}}]}`,
			[]string{"_rules_[0].gateway.pathz"}, "unknown"},
		{"global error and rule error", `{"policy": {"max_sensitivity": "maybe"}, "_rules_": [{"_match_route_": ["a"], "server": {"id": ""}, "policy": "standard"}]}`,
			[]string{"policy.max_sensitivity", "_rules_[0].server.id"}, ""},
		{"rules not a list", `{"policy": "standard", "_rules_": {"_match_route_": ["a"]}}`, []string{"_rules_"}, "list of rules"},
		{"rule not an object", `{"_rules_": ["a"]}`, []string{"_rules_[0]"}, "rule object"},
		{"match key not a list", `{"_rules_": [{"_match_route_": "a", "policy": "standard"}]}`, []string{"_rules_[0]._match_route_"}, "list of names"},
		{"match name not a string", `{"_rules_": [{"_match_domain_": ["a", 3], "policy": "standard"}]}`, []string{"_rules_[0]._match_domain_[1]"}, "want a name"},
		{"no match condition", `{"_rules_": [{"policy": "standard"}]}`, []string{"_rules_[0]"}, "no match condition"},
		{"only empty names", `{"_rules_": [{"_match_route_": [""], "policy": "standard"}]}`, []string{"_rules_[0]"}, "no match condition"},
		{"no keys of its own", `{"policy": "standard", "_rules_": [{"_match_route_": ["a"]}]}`, []string{"_rules_[0]"}, "replaces the global"},
		{"no rules, no global", `{"_rules_": []}`, []string{"_rules_"}, "judge nothing"},
		{"missing policy", `{"_rules_": [{"_match_route_": ["a"], "server": {"id": "a"}}]}`, []string{"_rules_[0]"}, `"policy"`},
		{"same server, other vault key", `{"policy": {"vault": {"key_env": "K"}}, "_rules_": [{"_match_route_": ["a"], "policy": {"vault": {"key_env": "L"}}}]}`,
			[]string{"_rules_[0].server.id"}, "the global configuration"},
		{"two rules, same server, other vault mode", `{"_rules_": [
			{"_match_route_": ["a"], "server": {"id": "s"}, "policy": "standard"},
			{"_match_route_": ["b"], "server": {"id": "s"}, "policy": {"vault": {"mode": "sealed"}}}]}`,
			[]string{"_rules_[1].server.id"}, "_rules_[0]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, errs := hrDecode(t, c.src)
			if h != nil {
				t.Errorf("configuration returned with errors")
			}
			var paths []string
			for _, e := range errs {
				paths = append(paths, e.Path)
			}
			if strings.Join(paths, " ") != strings.Join(c.paths, " ") {
				t.Fatalf("error paths %q, want %q:\n%v", paths, c.paths, errs)
			}
			if !strings.Contains(errs[0].Msg, c.msg) {
				t.Errorf("error %q does not say %q", errs[0].Msg, c.msg)
			}
		})
	}
}

// TestHostRulesSelect: the first matching rule in order wins, else the
// global configuration (-1), as Higress's GetMatchConfig picks.
func TestHostRulesSelect(t *testing.T) {
	h, errs := hrDecode(t, `{"policy": "standard", "_rules_": [
		{"_match_route_": ["r1"], "_match_domain_": ["route-wins.example"], "policy": "standard", "server": {"id": "0"}},
		{"_match_domain_": ["*.example.com", "api.*", "exact.org"], "policy": "standard", "server": {"id": "1"}},
		{"_match_service_": ["mcp.ns.svc.cluster.local:3000", "other.ns.svc.cluster.local"], "policy": "standard", "server": {"id": "2"}},
		{"_match_route_": ["r3"], "_match_service_": ["svc3"], "policy": "standard", "server": {"id": "3"}},
		{"_match_route_prefix_": ["ai-"], "policy": "standard", "server": {"id": "4"}},
		{"_match_route_": ["r1", "r5"], "policy": "standard", "server": {"id": "5"}}]}`)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, c := range []struct {
		p    place
		want int
	}{
		{place{route: "r1"}, 0},
		{place{route: "r5"}, 5},
		{place{authority: "route-wins.example"}, -1}, // rule 0 reads only its route
		{place{authority: "a.example.com"}, 1},
		{place{authority: "a.example.com:8443"}, 1},
		{place{authority: ".example.com"}, 1},
		{place{authority: "example.com"}, -1},
		{place{authority: "A.EXAMPLE.COM"}, -1}, // case-sensitive, as Higress
		{place{authority: "api.internal"}, 1},
		{place{authority: "exact.org"}, 1},
		{place{authority: "exact.org.evil"}, -1},
		{place{authority: "[::1]:80"}, -1},
		{place{cluster: "outbound|3000||mcp.ns.svc.cluster.local"}, 2},
		{place{cluster: "outbound|80||mcp.ns.svc.cluster.local"}, -1},
		{place{cluster: "outbound|80|v1|other.ns.svc.cluster.local"}, 2},
		{place{cluster: "other.ns.svc.cluster.local"}, -1}, // not outbound|port|subset|fqdn
		{place{cluster: "outbound|80||other.ns.svc.cluster.local|x"}, -1},
		{place{route: "r3", cluster: "outbound|1||svc3"}, 3},
		{place{route: "r3", cluster: "outbound|1||svc4"}, -1},
		{place{route: "ai-chat"}, 4},
		{place{route: "r1", authority: "a.example.com"}, 0}, // order decides
		{place{}, -1},
	} {
		if got := h.Select(c.p); got != c.want {
			t.Errorf("Select(%+v) = %d, want %d", c.p, got, c.want)
		}
	}
}

func TestStripPort(t *testing.T) {
	for in, want := range map[string]string{
		"a.example": "a.example", "a.example:80": "a.example", "[::1]": "[::1]", "[::1]:443": "[::1]",
		"a:b:c": "a:b", "": "", "a:": "a", ":80": "",
	} {
		if got := StripPort(in); got != want {
			t.Errorf("StripPort(%q) = %q, want %q", in, got, want)
		}
	}
}

// refServiceMatch is Higress's serviceMatch as written there (strings.Split
// into exactly four parts), the oracle of FuzzHigressServiceMatch.
func refServiceMatch(services []string, cluster string) bool {
	parts := strings.Split(cluster, "|")
	if len(parts) != 4 {
		return false
	}
	for _, s := range services {
		c := strings.LastIndexByte(s, ':')
		if c != -1 && parts[3] == s[:c] && parts[1] == s[c+1:] || parts[3] == s {
			return true
		}
	}
	return false
}

func FuzzHigressServiceMatch(f *testing.F) {
	f.Add("mcp.ns:3000", "outbound|3000||mcp.ns")
	f.Add("mcp.ns", "outbound|80|v1|mcp.ns")
	f.Add("a:b:c", "x|c||a:b")
	f.Add("", "|||")
	f.Fuzz(func(t *testing.T, service, cluster string) {
		if got, want := serviceMatch([]string{service}, cluster), refServiceMatch([]string{service}, cluster); got != want {
			t.Fatalf("serviceMatch(%q, %q) = %v, Higress's gives %v", service, cluster, got, want)
		}
	})
}

// FuzzDecodeHostRules: any document is refused with errors or accepted
// with every rule compiled, never a crash (DecodeHostRules is exported: a
// document without _rules_ too).
func FuzzDecodeHostRules(f *testing.F) {
	f.Add(`{"policy": "standard", "_rules_": [{"_match_route_": ["a"], "policy": {"deny_tools": ["x"]}}]}`)
	f.Add(`{"_rules_": [{"_match_domain_": ["*.a", "b*"], "_match_service_": ["s:1"], "server": {"id": "s"}, "policy": "strict"}]}`)
	f.Add(`{"_rules_": {}}`)
	f.Add(`{"policy": "standard"}`)
	f.Fuzz(func(t *testing.T, src string) {
		doc, err := ParseDocument([]byte(src))
		if err != nil {
			return
		}
		h, errs := DecodeHostRules(doc, Options{})
		if (h == nil) == (len(errs) == 0) {
			t.Fatalf("rules %v with errors %v", h, errs)
		}
		if h != nil {
			for _, r := range h.Rules {
				if r.Env == nil || r.Env.Policy == nil {
					t.Fatalf("%s accepted without a configuration", r.Path)
				}
			}
			h.Select(place{authority: "a:1", route: "a", cluster: "outbound|1||s"})
		}
	})
}
