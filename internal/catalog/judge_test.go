package catalog

import (
	"testing"

	"github.com/cloudg/mcp-privacy/internal/uritemplate"
	"github.com/cloudg/mcp-privacy/policy"
)

// listed is a captured catalog over the Model: the names lists gave, with
// their metadata (what the CLI reads from a catalog file).
type listed struct {
	model *Model
	names map[policy.Kind]map[string]policy.Metadata
}

func newListed(server *policy.ServerConfig) *listed {
	return &listed{model: NewModel(server), names: map[policy.Kind]map[string]policy.Metadata{}}
}

// list adds what a list result names.
func (c *listed) list(k policy.Kind, name string, m policy.Metadata) {
	if c.names[k] == nil {
		c.names[k] = map[string]policy.Metadata{}
	}
	c.names[k][name] = m
	switch k {
	case policy.KindResource:
		c.model.AddResource(name)
	case policy.KindResourceTemplate:
		c.model.Templates.Add(name)
	}
}

func (c *listed) Lookup(k policy.Kind, name string) (policy.Metadata, bool) {
	m, ok := c.names[k][name]
	return m, ok
}

func (c *listed) Resolve(kind policy.Kind, name string) (policy.Primitive, bool) {
	return c.model.Resolve(kind, name, c)
}

func (c *listed) EachLooseMatch(uri string, fn func(*uritemplate.Template) bool) {
	c.model.Templates.EachLooseMatch(uri, fn)
}

func (c *listed) ReadingsOf(name string) policy.Readings { return policy.ReadingsOf(name) }

func TestJudgeDecideConcrete(t *testing.T) {
	env, errs := policy.ParseEnvelope([]byte(`{
  "policy": {"name": "j", "deny_tools": ["delete_*"], "deny_resources": ["db://secrets/{id}", "file:///private%20notes", "db://*/admin"],
             "rules": [{"name": "reports", "match": {"names": ["db://reports/{id}", "db://{table}/{id}"]}, "transforms": [{"type": "redact"}]}]},
  "server": {"require_known": true, "primitives": [{"match": {"names": ["unlisted_tool"], "kinds": ["tool"]}}]}
}`), policy.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	cat := newListed(&env.Server)
	for _, name := range []string{"search", "delete_all", "ｄelete_all"} {
		cat.list(policy.KindTool, name, policy.Metadata{})
	}
	for _, uri := range []string{"file:///private%20notes", "file:///private notes"} {
		cat.list(policy.KindResource, uri, policy.Metadata{})
	}
	for _, text := range []string{"db://reports/{id}", "db://secrets/{id}", "db://{table}/{id}", "db://{table}/admin"} {
		cat.list(policy.KindResourceTemplate, text, policy.Metadata{})
	}
	pr := &policy.Principal{ID: "alice"}
	j := Judge{Policy: env.Policy, Server: &env.Server, Principal: *pr, Catalog: cat}
	for _, c := range []struct {
		kind    policy.Kind
		name    string
		allowed bool
		judged  string // what the decision is about (a denial: what it denied)
		rules   int    // matched rules of an allowed call
	}{
		{policy.KindTool, "search", true, "search", 0},
		{policy.KindTool, "delete_all", false, "delete_all", 0},
		{policy.KindTool, "ｄelete_all", false, "ｄelete_all", 0},               // its reading delete_all is denied
		{policy.KindTool, "nobody_listed", false, "nobody_listed", 0},         // require_known
		{policy.KindTool, "unlisted_tool", true, "unlisted_tool", 0},          // known from server.primitives
		{policy.KindResource, "db://reports/7", true, "db://reports/{id}", 1}, // the reports rule, also by db://{table}/{id}
		{policy.KindResource, "db://secrets/7", false, "db://secrets/{id}", 0},
		// A URI another known template matches: a server may run its
		// handler, so its denial wins.
		{policy.KindResource, "db://reports/admin", false, "db://{table}/admin", 0},
		// Read by a WHATWG URL reader as the denied static resource.
		{policy.KindResource, "file:///private notes", false, "file:///private%20notes", 0},
	} {
		x, known := cat.Resolve(c.kind, c.name)
		d := j.DecideConcrete(&x, known)
		if d.Allowed != c.allowed || x.Name != c.judged || d.Allowed && len(d.Matched) != c.rules {
			t.Errorf("%s %q: allowed %v (%s), judged %q, %d rules; want %v, %q, %d", c.kind, c.name, d.Allowed, d.Reason(), x.Name, len(d.Matched), c.allowed, c.judged, c.rules)
		}
	}
}

// An ASCII tool's decision allocates nothing the policy's own does not.
func TestJudgeToolAllocations(t *testing.T) {
	env, errs := policy.ParseEnvelope([]byte(`{"policy": "standard"}`), policy.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	env.Policy.EnableDecisionMemo()
	cat := newListed(&env.Server)
	pr := &policy.Principal{ID: "alice"}
	x := policy.Primitive{Kind: policy.KindTool, Name: "search"}
	if n := testing.AllocsPerRun(100, func() { y := x; _ = env.Policy.Decide(pr, &y) }); n != 0 {
		t.Errorf("policy: %v allocations", n)
	}
	if n := testing.AllocsPerRun(100, func() {
		j := Judge{Policy: env.Policy, Server: &env.Server, Principal: *pr, Catalog: cat}
		y := x
		_ = j.Decide(&y, true)
	}); n != 0 {
		t.Errorf("Decide: %v allocations", n)
	}
	if n := testing.AllocsPerRun(100, func() {
		j := Judge{Policy: env.Policy, Server: &env.Server, Principal: *pr, Catalog: cat}
		y := x
		_ = j.DecideConcrete(&y, true)
	}); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
