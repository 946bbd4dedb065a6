package policy

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The vocabularies the random policies, callers and catalogs draw from:
// few enough that rules, lists and primitives meet often.
var (
	mmNames   = []string{"get_customer", "get_invoice", "delete_customer", "export_all", "admin_reset", "file:///etc/hosts", "db://orders/{id}", "summarize"}
	mmGlobs   = []string{"get_*", "*_customer", "admin_*", "delete_*", "export_*", "file://*", "db://*", "*", "!get_invoice", "summ?rize"}
	mmCats    = []string{"crm", "hr", "ops", ""}
	mmCatGlob = []string{"crm", "h*", "ops", "*"}
	mmTags    = []string{"pii", "finance", "internal"}
	mmRoles   = []string{"admin", "support", "analyst", "auditor", "guest"}
	mmIDs     = []string{"alice", "bob", "svc-batch", "carol@example.com", ""}
	mmSens    = []string{"public", "internal", "confidential", "restricted"}
	mmCaps    = []string{"read_state", "write_state", "read_fs", "write_fs", "cloud_access", "exec", "reveal"}
	mmKinds   = []string{"tool", "resource", "resource_template", "prompt"}
)

func mmPick(r *rand.Rand, from []string, max int) []string {
	n := r.IntN(max + 1)
	out := make([]string, 0, n)
	for range n {
		out = append(out, from[r.IntN(len(from))])
	}
	return out
}

// mmAccess adds random AccessRules fields to m.
func mmAccess(r *rand.Rand, m map[string]any) {
	for _, f := range []struct {
		key  string
		from []string
	}{
		{"allow_tools", mmGlobs}, {"deny_tools", mmGlobs}, {"allow_resources", mmGlobs}, {"deny_resources", mmGlobs},
		{"allow_prompts", mmGlobs}, {"deny_prompts", mmGlobs}, {"allow_categories", mmCatGlob}, {"deny_categories", mmCatGlob},
		{"allow_capabilities", mmCaps}, {"deny_capabilities", mmCaps},
	} {
		if r.IntN(4) == 0 {
			m[f.key] = mmPick(r, f.from, 3)
		}
	}
	if r.IntN(4) == 0 {
		m["max_sensitivity"] = mmSens[r.IntN(len(mmSens))]
	}
}

// mmPolicy is a random policy: random lists, roles and rules matching on
// every condition a RuleMatch has.
func mmPolicy(r *rand.Rand) string {
	p := map[string]any{"name": "random", "hide_denied": r.IntN(2) == 0}
	mmAccess(r, p)
	roles := map[string]any{}
	for _, role := range mmPick(r, mmRoles, 3) {
		m := map[string]any{}
		mmAccess(r, m)
		roles[role] = m
	}
	p["roles"] = roles
	rules := []any{}
	for range r.IntN(6) {
		rule := map[string]any{}
		mmAccess(r, rule)
		match := map[string]any{}
		if r.IntN(2) == 0 {
			rs := mmPick(r, mmRoles, 2)
			if r.IntN(8) == 0 {
				rs = append(rs, "*")
			}
			match["roles"] = rs
		}
		for _, c := range []struct {
			key  string
			from []string
		}{{"principals", []string{"alice", "b*", "svc-*", "*@example.com"}}, {"names", mmGlobs}, {"categories", mmCatGlob},
			{"tags", mmTags}, {"kinds", mmKinds}, {"sensitivity", mmSens}, {"capabilities", mmCaps}} {
			if r.IntN(4) == 0 {
				match[c.key] = mmPick(r, c.from, 2)
			}
		}
		rule["match"] = match
		rules = append(rules, rule)
	}
	p["rules"] = rules
	b, _ := json.Marshal(p)
	return string(b)
}

func mmPrimitive(r *rand.Rand) *Primitive {
	x := &Primitive{Kind: Kind(r.IntN(4)), Name: mmNames[r.IntN(len(mmNames))]}
	x.Category = mmCats[r.IntN(len(mmCats))]
	x.Tags = mmPick(r, mmTags, 2)
	x.Sensitivity = Sensitivity(r.IntN(5)) // unset included
	for _, c := range mmPick(r, mmCaps, 2) {
		cp, _ := ParseCapability(c)
		x.Capabilities = x.Capabilities.With(cp)
	}
	return x
}

func mmPrincipal(r *rand.Rand) *Principal {
	return &Principal{ID: mmIDs[r.IntN(len(mmIDs))], Roles: mmPick(r, append(mmRoles, "unnamed"), 3)}
}

// mmOutcome is everything a decision tells its users.
func mmOutcome(p *Policy, d *Decision) string {
	var b strings.Builder
	fmt.Fprintf(&b, "allowed=%v hidden=%v rule=%q step=%d reason=%q matched=[", d.Allowed, d.Hidden, d.Rule, d.Step, d.Reason())
	for _, r := range d.Matched {
		fmt.Fprintf(&b, "%d ", r.Index)
	}
	b.WriteString("]")
	if !d.Allowed {
		e := d.Error()
		fmt.Fprintf(&b, " error=%d %q", e.Code, e.Message)
	}
	if d.primitive != nil {
		fmt.Fprintf(&b, " primitive=%p", d.primitive)
	}
	return b.String()
}

// TestDecisionMemoExact: over random policies, callers and catalogs, a
// policy with the memo decides exactly as the same policy without it, on
// first sight and on every repeat, and each decision reports the
// primitive it was asked about.
func TestDecisionMemoExact(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 3))
	hits := 0
	for range 300 {
		src := mmPolicy(r)
		fresh, memo := dtParse(t, src), dtParse(t, src)
		memo.EnableDecisionMemo()
		prims := make([]*Primitive, 12)
		for i := range prims {
			prims[i] = mmPrimitive(r)
		}
		callers := make([]*Principal, 6)
		for i := range callers {
			callers[i] = mmPrincipal(r)
		}
		for range 200 {
			x, pr := prims[r.IntN(len(prims))], callers[r.IntN(len(callers))]
			// The same primitive asked about anew (a list item's copy):
			// the memo must report this one.
			if r.IntN(2) == 0 {
				c := *x
				x = &c
			}
			want := fresh.Decide(pr, x)
			got := memo.Decide(pr, x)
			if a, b := mmOutcome(fresh, &want), mmOutcome(memo, &got); a != b || got.primitive != x {
				t.Fatalf("policy %s\ncaller %+v, primitive %+v:\nfresh %s\nmemo  %s", src, pr, x, a, b)
			}
		}
		for _, s := range memo.memo.slots {
			if s.d.policy != nil {
				hits++
			}
		}
	}
	if hits == 0 {
		t.Fatal("the memo never kept a decision")
	}
}

// TestDecisionMemoKeys: inputs that differ in one field the policy reads
// never share a memo entry.
func TestDecisionMemoKeys(t *testing.T) {
	p := dtParse(t, `{"name":"k","rules":[{"match":{"principals":["alice"]},"deny_tools":["*"]}],
		"roles":{"admin":{"deny_tools":["x"]}}}`)
	p.EnableDecisionMemo()
	m := p.memo
	base := func() (*Principal, *Primitive) {
		return &Principal{ID: "alice", Roles: []string{"admin"}}, &Primitive{Kind: KindTool, Name: "ab", Metadata: Metadata{Category: "c", Tags: []string{"t"}}}
	}
	pr0, x0 := base()
	k0 := string(m.appendKey(nil, p, pr0, x0))
	for name, change := range map[string]func(*Principal, *Primitive){
		"kind":        func(_ *Principal, x *Primitive) { x.Kind = KindPrompt },
		"name":        func(_ *Principal, x *Primitive) { x.Name = "a" },
		"name/cat":    func(_ *Principal, x *Primitive) { x.Name, x.Category = "a", "bc" },
		"category":    func(_ *Principal, x *Primitive) { x.Category = "d" },
		"tags":        func(_ *Principal, x *Primitive) { x.Tags = []string{"t", "u"} },
		"tag split":   func(_ *Principal, x *Primitive) { x.Tags = nil; x.Category = "c\x01t" },
		"sensitivity": func(_ *Principal, x *Primitive) { x.Sensitivity = Restricted },
		"capability":  func(_ *Principal, x *Primitive) { x.Capabilities = x.Capabilities.With(Exec) },
		"id":          func(pr *Principal, _ *Primitive) { pr.ID = "bob" },
		"role":        func(pr *Principal, _ *Primitive) { pr.Roles = nil },
	} {
		pr, x := base()
		change(pr, x)
		if string(m.appendKey(nil, p, pr, x)) == k0 {
			t.Errorf("%s: same key as the base", name)
		}
	}
	// What the policy does not read is not in the key: a role no rule
	// names.
	pr, x := base()
	pr.Roles = append(pr.Roles, "unnamed")
	if string(m.appendKey(nil, p, pr, x)) != k0 {
		t.Error("a role no rule names changed the key")
	}
}
