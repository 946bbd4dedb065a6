package policy

import (
	"strings"
	"testing"
)

// RouterWarnings: behind a router that names primitives backend__name and
// backend+scheme://..., every glob that no such name can match is named,
// and nothing else.
func TestRouterWarnings(t *testing.T) {
	tests := []struct {
		name, envelope string
		want           []string // substrings, one per warning, in order
	}{
		{"no router: no warnings", `{"policy": {"deny_tools": ["deploy"]}}`, nil},
		{"prefixed names", `{"policy": {"deny_tools": ["crm__delete_*"], "allow_prompts": ["ops__*"], "deny_resources": ["crm+file:///secret/*"]},
			"server": {"router_backends": ["crm", "ops"], "primitives": [{"match": {"kinds": ["tool", "prompt"], "names": ["crm__*"]}}, {"match": {"kinds": ["resource"], "names": ["ops+*"]}}]}}`, nil},
		{"wildcards match every backend", `{"policy": {"deny_tools": ["*delete*", "?rm__x", "[co]*"], "allow_resources": ["*"]}, "server": {"router_backends": ["crm"]}}`, nil},
		{"a prefix cut short by a wildcard", `{"policy": {"deny_tools": ["cr*", "crm_*"]}, "server": {"router_backends": ["crm"]}}`, nil},
		{"the servers' own names", `{"policy": {"deny_tools": ["delete_customer"], "allow_resources": ["file:///*"], "deny_prompts": ["x__y"]},
			"server": {"router_backends": ["crm", "ops"]}}`,
			[]string{`policy.deny_tools: "delete_customer"`, `policy.deny_prompts: "x__y"`, `policy.allow_resources: "file:///*"`}},
		{"a tool's prefix on a resource", `{"policy": {"deny_resources": ["crm__*"]}, "server": {"router_backends": ["crm"]}}`,
			[]string{`policy.deny_resources: "crm__*"`}},
		{"roles, rules, rate limits and primitives", `{"policy": {
			"roles": {"sre": {"allow_tools": ["deploy"]}},
			"rules": [{"match": {"names": ["deploy"]}, "deny_tools": ["crm__ok"]}, {"match": {"names": ["crm__*"]}}],
			"rate_limits": [{"rate": 1, "tools": ["deploy"]}]},
			"server": {"router_backends": ["crm"], "primitives": [{"match": {"names": ["lookup"]}}, {"match": {"kinds": ["resource"], "names": ["crm+*"]}}]}}`,
			[]string{`policy.roles.sre.allow_tools: "deploy"`, `policy.rules[0].match.names: "deploy"`, `policy.rate_limits[0].tools: "deploy"`, `server.primitives[0].match.names: "lookup"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, errs := ParseEnvelope([]byte(tc.envelope), Options{})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			got := env.RouterWarnings()
			if len(got) != len(tc.want) {
				t.Fatalf("warnings:\n%s\nwant %d", strings.Join(got, "\n"), len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("warning %d: %s, want %s", i, got[i], w)
				}
			}
		})
	}
}

// server.router_backends takes the names a router can split names by.
func TestRouterBackendsRefused(t *testing.T) {
	for _, tc := range []struct{ backends, path string }{
		{`[""]`, "server.router_backends[0]"},
		{`["a__b"]`, "server.router_backends[0]"},
		{`["ok", "a+b"]`, "server.router_backends[1]"},
		{`["a:b"]`, "server.router_backends[0]"},
		{`["crm", "crm"]`, "server.router_backends[1]"},
		{`"crm"`, "server.router_backends"},
	} {
		_, errs := ParseEnvelope([]byte(`{"policy": "standard", "server": {"router_backends": `+tc.backends+`}}`), Options{})
		if len(errs) != 1 || errs[0].Path != tc.path {
			t.Errorf("%s: %v, want one error at %s", tc.backends, errs, tc.path)
		}
	}
}
