package policy

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// Helpers shared by decide_test.go, pipeline_test.go and ratelimit_test.go.
// They carry a dt prefix so they cannot collide with other test files of
// the package.

// dtParse parses a policy (YAML or JSON) and fails the test on errors.
func dtParse(t testing.TB, src string) *Policy {
	t.Helper()
	return dtParseOpt(t, src, Options{})
}

func dtParseOpt(t testing.TB, src string, opt Options) *Policy {
	t.Helper()
	p, errs := ParsePolicy([]byte(src), opt)
	if len(errs) > 0 {
		t.Fatalf("policy does not parse:\n%s\n--- policy ---\n%s", errs.Error(), src)
	}
	return p
}

func dtCaps(cs ...Capability) CapabilitySet {
	var s CapabilitySet
	for _, c := range cs {
		s = s.With(c)
	}
	return s
}

func dtWho(id string, roles ...string) Principal { return Principal{ID: id, Roles: roles} }

var dtAnon = Principal{ID: "anonymous"}

type dtOpt func(*Primitive)

func dtCat(c string) dtOpt            { return func(x *Primitive) { x.Category = c } }
func dtTags(ts ...string) dtOpt       { return func(x *Primitive) { x.Tags = ts } }
func dtSens(s Sensitivity) dtOpt      { return func(x *Primitive) { x.Sensitivity = s } }
func dtCapsOf(cs ...Capability) dtOpt { return func(x *Primitive) { x.Capabilities = dtCaps(cs...) } }
func dtURI(u string) dtOpt            { return func(x *Primitive) { x.URI = u } }
func dtTool(name string, o ...dtOpt) Primitive {
	return dtPrim(KindTool, name, o...)
}
func dtPrompt(name string, o ...dtOpt) Primitive  { return dtPrim(KindPrompt, name, o...) }
func dtRes(uri string, o ...dtOpt) Primitive      { return dtPrim(KindResource, uri, o...) }
func dtTemplate(tpl string, o ...dtOpt) Primitive { return dtPrim(KindResourceTemplate, tpl, o...) }

func dtPrim(k Kind, name string, opts ...dtOpt) Primitive {
	x := Primitive{Kind: k, Name: name}
	for _, o := range opts {
		o(&x)
	}
	return x
}

func dtRuleNames(rs []*Rule) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

// dtAnyRule in a case's rule field means the spec does not say which rule
// name an allowed decision carries; the test then checks only the verdict.
const dtAnyRule = "\x00any"

type decideCase struct {
	name      string
	policy    string
	principal Principal
	prim      Primitive
	allowed   bool
	rule      string // deciding rule name, "policy", or dtAnyRule
	step      Step
	// visible marks policies with hide_denied: false; otherwise a denial
	// must be hidden (hide_denied defaults to true).
	visible bool
	// reason lists substrings Reason() must contain besides the rule name.
	reason []string
	// matched, when non-nil, is M by rule name.
	matched []string
}

func runDecideCases(t *testing.T, cases []decideCase) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("duplicate case name %q", c.name)
		}
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			p := dtParse(t, c.policy)
			pr, x := c.principal, c.prim
			d := p.Decide(&pr, &x)
			checkDecision(t, p, &d, c)
		})
	}
}

func checkDecision(t *testing.T, p *Policy, d *Decision, c decideCase) {
	t.Helper()
	if d.Allowed != c.allowed {
		t.Errorf("Allowed = %v, want %v (rule %q, step %d, reason %q)", d.Allowed, c.allowed, d.Rule, d.Step, d.Reason())
	}
	if c.rule != dtAnyRule && d.Rule != c.rule {
		t.Errorf("Rule = %q, want %q (reason %q)", d.Rule, c.rule, d.Reason())
	}
	if d.Step != c.step {
		t.Errorf("Step = %d, want %d (reason %q)", d.Step, c.step, d.Reason())
	}
	wantHidden := !c.allowed && !c.visible
	if d.Hidden != wantHidden {
		t.Errorf("Hidden = %v, want %v", d.Hidden, wantHidden)
	}
	reason := d.Reason()
	if reason == "" {
		t.Errorf("Reason() is empty")
	}
	if c.rule != dtAnyRule && !strings.Contains(reason, c.rule) {
		t.Errorf("Reason() = %q does not name the deciding rule %q", reason, c.rule)
	}
	for _, s := range c.reason {
		if !strings.Contains(reason, s) {
			t.Errorf("Reason() = %q does not mention %q", reason, s)
		}
	}
	if c.matched != nil {
		if got := dtRuleNames(d.Matched); !reflect.DeepEqual(got, c.matched) {
			t.Errorf("Matched = %q, want %q", got, c.matched)
		}
	}
	e := d.Error()
	if c.allowed {
		if e != nil {
			t.Errorf("Error() = %+v for an allowed call, want nil", e)
		}
		return
	}
	if e == nil {
		t.Fatalf("Error() = nil for a denied call")
	}
	switch {
	case !wantHidden:
		if e.Code != CodeAccessDenied {
			t.Errorf("Error().Code = %d, want %d", e.Code, CodeAccessDenied)
		}
	case c.prim.Kind.Family() == FamilyResources:
		if e.Code != CodeResourceNotFound {
			t.Errorf("Error().Code = %d, want %d", e.Code, CodeResourceNotFound)
		}
	default:
		if e.Code != CodeInvalidParams {
			t.Errorf("Error().Code = %d, want %d", e.Code, CodeInvalidParams)
		}
	}
}

// ---------------------------------------------------------------------------
// Policy-level lists (manual 6.2 "At policy level", manual 7 step 2).

func TestDecidePolicyLists(t *testing.T) {
	alice := dtWho("alice")
	runDecideCases(t, []decideCase{
		{name: "allow_tools absent means all", policy: `name: t`,
			principal: alice, prim: dtTool("anything"), allowed: true, rule: "policy", step: StepAllowed,
			reason: []string{"allowed"}},
		{name: "allow_tools null means all", policy: `allow_tools: null`,
			principal: alice, prim: dtTool("anything"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "allow_tools [] allows none", policy: `allow_tools: []`,
			principal: alice, prim: dtTool("search"), rule: "policy", step: StepPolicyList,
			reason: []string{"allow_tools"}},
		{name: "allow_tools glob allows a match", policy: `allow_tools: ["search*"]`,
			principal: alice, prim: dtTool("search_docs"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "allow_tools glob denies a non-match", policy: `allow_tools: ["search*"]`,
			principal: alice, prim: dtTool("get_doc"), rule: "policy", step: StepPolicyList,
			reason: []string{"allow_tools"}},
		{name: "deny_tools denies", policy: `deny_tools: ["drop_*"]`,
			principal: alice, prim: dtTool("drop_table"), rule: "policy", step: StepPolicyList,
			reason: []string{"deny_tools"}},
		{name: "deny_tools leaves others", policy: `deny_tools: ["drop_*"]`,
			principal: alice, prim: dtTool("select"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "deny_tools beats policy allow_tools", policy: "allow_tools: [\"*\"]\ndeny_tools: [drop_table]",
			principal: alice, prim: dtTool("drop_table"), rule: "policy", step: StepPolicyList,
			reason: []string{"deny_tools"}},
		{name: "deny beats an explicit allow of the same name", policy: "allow_tools: [drop_table]\ndeny_tools: [drop_table]",
			principal: alice, prim: dtTool("drop_table"), rule: "policy", step: StepPolicyList},

		// Families: tool lists judge tools only.
		{name: "allow_tools [] does not touch prompts", policy: `allow_tools: []`,
			principal: alice, prim: dtPrompt("summarise"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "allow_tools [] does not touch resources", policy: `allow_tools: []`,
			principal: alice, prim: dtRes("file:///a"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "allow_prompts [] denies prompts", policy: `allow_prompts: []`,
			principal: alice, prim: dtPrompt("summarise"), rule: "policy", step: StepPolicyList,
			reason: []string{"allow_prompts"}},
		{name: "allow_prompts [] leaves tools", policy: `allow_prompts: []`,
			principal: alice, prim: dtTool("summarise"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "deny_prompts denies a prompt", policy: `deny_prompts: [leak]`,
			principal: alice, prim: dtPrompt("leak"), rule: "policy", step: StepPolicyList,
			reason: []string{"deny_prompts"}},
		{name: "deny_prompts does not deny the tool of that name", policy: `deny_prompts: [leak]`,
			principal: alice, prim: dtTool("leak"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "deny_resources denies a static resource", policy: `deny_resources: ["file:///etc/*"]`,
			principal: alice, prim: dtRes("file:///etc/passwd"), rule: "policy", step: StepPolicyList,
			reason: []string{"deny_resources"}},
		{name: "deny_resources denies a resource template", policy: `deny_resources: ["file:///etc/*"]`,
			principal: alice, prim: dtTemplate("file:///etc/{name}"), rule: "policy", step: StepPolicyList,
			reason: []string{"deny_resources"}},
		{name: "deny_resources does not deny the tool of that name", policy: `deny_resources: ["file:///etc/*"]`,
			principal: alice, prim: dtTool("file:///etc/passwd"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "allow_resources [] denies templates too", policy: `allow_resources: []`,
			principal: alice, prim: dtTemplate("cloudg://assets/{+ref}"), rule: "policy", step: StepPolicyList,
			reason: []string{"allow_resources"}},
		{name: "deny_tools does not deny a prompt of that name", policy: `deny_tools: [leak]`,
			principal: alice, prim: dtPrompt("leak"), allowed: true, rule: "policy", step: StepAllowed},

		// Category lists.
		{name: "allow_categories allows a match", policy: `allow_categories: [ops]`,
			principal: alice, prim: dtTool("deploy", dtCat("ops")), allowed: true, rule: "policy", step: StepAllowed},
		{name: "allow_categories denies a non-match", policy: `allow_categories: [ops]`,
			principal: alice, prim: dtTool("deploy", dtCat("dev")), rule: "policy", step: StepPolicyList,
			reason: []string{"allow_categories", `"dev"`}},
		{name: "allow_categories applies to prompts", policy: `allow_categories: [ops]`,
			principal: alice, prim: dtPrompt("p", dtCat("dev")), rule: "policy", step: StepPolicyList},
		{name: "allow_categories applies to resources", policy: `allow_categories: [ops]`,
			principal: alice, prim: dtRes("file:///x", dtCat("dev")), rule: "policy", step: StepPolicyList},
		{name: "allow_categories null means all", policy: `allow_categories: null`,
			principal: alice, prim: dtTool("deploy", dtCat("dev")), allowed: true, rule: "policy", step: StepAllowed},
		{name: "allow_categories [] allows none", policy: `allow_categories: []`,
			principal: alice, prim: dtTool("deploy", dtCat("dev")), rule: "policy", step: StepPolicyList},
		{name: "deny_categories denies", policy: `deny_categories: ["fin*"]`,
			principal: alice, prim: dtTool("pay", dtCat("finance")), rule: "policy", step: StepPolicyList,
			reason: []string{"deny_categories", `"finance"`}},
		{name: "deny_categories beats allow_categories", policy: "allow_categories: [\"*\"]\ndeny_categories: [finance]",
			principal: alice, prim: dtTool("pay", dtCat("finance")), rule: "policy", step: StepPolicyList},

		// A primitive without a category has category "".
		{name: "no category: * in deny_categories matches it", policy: `deny_categories: ["*"]`,
			principal: alice, prim: dtTool("x"), rule: "policy", step: StepPolicyList,
			reason: []string{"deny_categories"}},
		{name: "no category: allow_categories [x] denies it", policy: `allow_categories: [x]`,
			principal: alice, prim: dtTool("x"), rule: "policy", step: StepPolicyList,
			reason: []string{"allow_categories"}},
		{name: "no category: allow_categories [*] allows it", policy: `allow_categories: ["*"]`,
			principal: alice, prim: dtTool("x"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "no category: a named deny_categories leaves it", policy: `deny_categories: [x]`,
			principal: alice, prim: dtTool("x"), allowed: true, rule: "policy", step: StepAllowed},
	})
}

// ---------------------------------------------------------------------------
// Rule grants (manual 6.2 "In a rule or role", manual 7 step 2 and details).

func TestDecideGrants(t *testing.T) {
	ops := dtWho("alice", "ops")
	dev := dtWho("bob", "dev")
	runDecideCases(t, []decideCase{
		{name: "grant skips policy allow_tools",
			policy:    "allow_tools: [other]\nroles:\n  ops: {allow_tools: [deploy]}",
			principal: ops, prim: dtTool("deploy"), allowed: true, rule: "role:ops", step: StepAllowed,
			reason: []string{"allow_tools"}},
		{name: "without the grant policy allow_tools denies",
			policy:    "allow_tools: [other]\nroles:\n  ops: {allow_tools: [deploy]}",
			principal: dev, prim: dtTool("deploy"), rule: "policy", step: StepPolicyList},
		{name: "grant skips policy deny_tools",
			policy:    "deny_tools: [deploy]\nroles:\n  ops: {allow_tools: [deploy]}",
			principal: ops, prim: dtTool("deploy"), allowed: true, rule: "role:ops", step: StepAllowed},
		{name: "grant skips policy allow_categories",
			policy:    "allow_categories: [safe]\nroles:\n  ops: {allow_tools: [deploy]}",
			principal: ops, prim: dtTool("deploy", dtCat("ops")), allowed: true, rule: "role:ops", step: StepAllowed},
		{name: "without the grant policy allow_categories denies",
			policy:    "allow_categories: [safe]\nroles:\n  ops: {allow_tools: [deploy]}",
			principal: dev, prim: dtTool("deploy", dtCat("ops")), rule: "policy", step: StepPolicyList},
		{name: "grant skips policy deny_categories",
			policy:    "deny_categories: [ops]\nroles:\n  ops: {allow_tools: [deploy]}",
			principal: ops, prim: dtTool("deploy", dtCat("ops")), allowed: true, rule: "role:ops", step: StepAllowed},
		{name: "grant skips all four lists at once",
			policy:    "allow_tools: []\ndeny_tools: [deploy]\nallow_categories: []\ndeny_categories: [\"*\"]\nroles:\n  ops: {allow_tools: [\"dep*\"]}",
			principal: ops, prim: dtTool("deploy", dtCat("ops")), allowed: true, rule: "role:ops", step: StepAllowed},
		{name: "grant from the rules list",
			policy:    "allow_tools: []\nrules:\n  - {match: {kinds: [tool]}, allow_tools: [\"*\"]}",
			principal: dev, prim: dtTool("x"), allowed: true, rule: "rule[0]", step: StepAllowed},
		{name: "grant of a rule that does not match grants nothing",
			policy:    "allow_tools: []\nrules:\n  - {match: {names: [other]}, allow_tools: [\"*\"]}",
			principal: dev, prim: dtTool("x"), rule: "policy", step: StepPolicyList},

		// Category grants bypass the name lists.
		{name: "category grant bypasses policy allow_tools []",
			policy:    "allow_tools: []\nroles:\n  ops: {allow_categories: [ops]}",
			principal: ops, prim: dtTool("deploy", dtCat("ops")), allowed: true, rule: "role:ops", step: StepAllowed,
			reason: []string{"allow_categories", `"ops"`}},
		{name: "category grant bypasses policy deny_tools",
			policy:    "deny_tools: [deploy]\nroles:\n  ops: {allow_categories: [\"op*\"]}",
			principal: ops, prim: dtTool("deploy", dtCat("ops")), allowed: true, rule: "role:ops", step: StepAllowed},
		{name: "category grant bypasses policy deny_categories",
			policy:    "deny_categories: [ops]\nroles:\n  ops: {allow_categories: [ops]}",
			principal: ops, prim: dtTool("deploy", dtCat("ops")), allowed: true, rule: "role:ops", step: StepAllowed},
		{name: "category grant bypasses policy allow_prompts []",
			policy:    "allow_prompts: []\nroles:\n  ops: {allow_categories: [ops]}",
			principal: ops, prim: dtPrompt("runbook", dtCat("ops")), allowed: true, rule: "role:ops", step: StepAllowed},
		{name: "category grant needs the category",
			policy:    "allow_tools: []\nroles:\n  ops: {allow_categories: [ops]}",
			principal: ops, prim: dtTool("deploy", dtCat("dev")), rule: "policy", step: StepPolicyList},
		{name: "category grant * grants an uncategorised primitive",
			policy:    "allow_tools: []\nroles:\n  ops: {allow_categories: [\"*\"]}",
			principal: ops, prim: dtTool("deploy"), allowed: true, rule: "role:ops", step: StepAllowed},

		// Families: a grant for tools does not grant prompts or resources.
		{name: "tool grant does not grant a prompt",
			policy:    "allow_prompts: []\nroles:\n  ops: {allow_tools: [\"*\"]}",
			principal: ops, prim: dtPrompt("deploy"), rule: "policy", step: StepPolicyList,
			reason: []string{"allow_prompts"}},
		{name: "tool grant does not skip deny_resources",
			policy:    "deny_resources: [\"*\"]\nroles:\n  ops: {allow_tools: [\"*\"]}",
			principal: ops, prim: dtRes("file:///x"), rule: "policy", step: StepPolicyList,
			reason: []string{"deny_resources"}},
		{name: "tool grant does not grant a template",
			policy:    "allow_resources: []\nroles:\n  ops: {allow_tools: [\"*\"]}",
			principal: ops, prim: dtTemplate("file:///{x}"), rule: "policy", step: StepPolicyList},
		{name: "prompt grant does not grant the tool of that name",
			policy:    "allow_tools: []\nroles:\n  ops: {allow_prompts: [deploy]}",
			principal: ops, prim: dtTool("deploy"), rule: "policy", step: StepPolicyList},
		{name: "prompt grant grants the prompt",
			policy:    "allow_prompts: []\nroles:\n  ops: {allow_prompts: [deploy]}",
			principal: ops, prim: dtPrompt("deploy"), allowed: true, rule: "role:ops", step: StepAllowed,
			reason: []string{"allow_prompts"}},
		{name: "resource grant grants a template by its text",
			policy:    "allow_resources: []\nroles:\n  ops: {allow_resources: [\"cloudg://assets/*\"]}",
			principal: ops, prim: dtTemplate("cloudg://assets/{+ref}"), allowed: true, rule: "role:ops", step: StepAllowed,
			reason: []string{"allow_resources"}},
		{name: "resource grant skips deny_resources for a static resource",
			policy:    "deny_resources: [\"file:///*\"]\nroles:\n  ops: {allow_resources: [\"file:///ok\"]}",
			principal: ops, prim: dtRes("file:///ok"), allowed: true, rule: "role:ops", step: StepAllowed},

		// At rule level, null and [] grant nothing.
		{name: "rule allow_tools null grants nothing",
			policy:    "allow_tools: []\nroles:\n  ops: {allow_tools: null}",
			principal: ops, prim: dtTool("x"), rule: "policy", step: StepPolicyList},
		{name: "rule allow_tools [] grants nothing",
			policy:    "allow_tools: []\nroles:\n  ops: {allow_tools: []}",
			principal: ops, prim: dtTool("x"), rule: "policy", step: StepPolicyList},
		{name: "rule allow_tools null does not skip policy deny_tools",
			policy:    "deny_tools: [x]\nroles:\n  ops: {allow_tools: null}",
			principal: ops, prim: dtTool("x"), rule: "policy", step: StepPolicyList},
		{name: "rule allow_categories null grants nothing",
			policy:    "allow_tools: []\nroles:\n  ops: {allow_categories: null}",
			principal: ops, prim: dtTool("x"), rule: "policy", step: StepPolicyList},
		{name: "rule allow_categories [] grants nothing",
			policy:    "allow_tools: []\nroles:\n  ops: {allow_categories: []}",
			principal: ops, prim: dtTool("x"), rule: "policy", step: StepPolicyList},
		{name: "rule allow_resources null grants nothing",
			policy:    "allow_resources: []\nroles:\n  ops: {allow_resources: null}",
			principal: ops, prim: dtRes("file:///x"), rule: "policy", step: StepPolicyList},
		{name: "rule allow_prompts [] grants nothing",
			policy:    "allow_prompts: []\nroles:\n  ops: {allow_prompts: []}",
			principal: ops, prim: dtPrompt("p"), rule: "policy", step: StepPolicyList},
		{name: "rule without allow lists leaves the policy's",
			policy:    "deny_tools: [x]\nroles:\n  ops: {deny_tools: [y]}",
			principal: ops, prim: dtTool("x"), rule: "policy", step: StepPolicyList},

		// A grant skips step 2 only: capabilities and sensitivity still apply.
		{name: "grant does not skip the capability deny set",
			policy:    "deny_capabilities: [exec]\nroles:\n  ops: {allow_tools: [deploy]}",
			principal: ops, prim: dtTool("deploy", dtCapsOf(Exec)), rule: "policy", step: StepCapability,
			reason: []string{"exec"}},
		{name: "grant does not skip the sensitivity ceiling",
			policy:    "max_sensitivity: internal\nroles:\n  ops: {allow_tools: [deploy]}",
			principal: ops, prim: dtTool("deploy"), rule: "policy", step: StepSensitivity,
			reason: []string{"confidential", "internal"}},
	})
}

// ---------------------------------------------------------------------------
// Explicit denies of rules (manual 7 step 1).

func TestDecideRuleDenies(t *testing.T) {
	ops := dtWho("alice", "ops")
	both := dtWho("carol", "ops", "contractor")
	runDecideCases(t, []decideCase{
		{name: "rule deny_tools denies a policy-allowed tool",
			policy:    "roles:\n  ops: {deny_tools: [deploy]}",
			principal: ops, prim: dtTool("deploy"), rule: "role:ops", step: StepRuleDeny,
			reason: []string{"deny_tools"}},
		{name: "rule deny_tools only for matching principals",
			policy:    "roles:\n  ops: {deny_tools: [deploy]}",
			principal: dtWho("bob", "dev"), prim: dtTool("deploy"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "rule deny_tools beats another rule's grant",
			policy:    "allow_tools: []\nroles:\n  ops: {allow_tools: [deploy]}\nrules:\n  - {deny_tools: [deploy]}",
			principal: ops, prim: dtTool("deploy"), rule: "rule[0]", step: StepRuleDeny,
			reason: []string{"deny_tools"}},
		{name: "earlier rule deny beats a later rule's grant",
			policy:    "roles:\n  contractor: {deny_tools: [deploy]}\n  ops: {allow_tools: [deploy]}",
			principal: both, prim: dtTool("deploy"), rule: "role:contractor", step: StepRuleDeny},
		{name: "rule deny_tools beats a grant in the same rule",
			policy:    "rules:\n  - {allow_tools: [\"*\"], deny_tools: [deploy]}",
			principal: ops, prim: dtTool("deploy"), rule: "rule[0]", step: StepRuleDeny},
		{name: "rule deny_tools beats a category grant",
			policy:    "roles:\n  ops: {allow_categories: [ops]}\n  contractor: {deny_tools: [\"dep*\"]}",
			principal: both, prim: dtTool("deploy", dtCat("ops")), rule: "role:contractor", step: StepRuleDeny},
		{name: "rule deny_tools is per family",
			policy:    "roles:\n  ops: {deny_tools: [deploy]}",
			principal: ops, prim: dtPrompt("deploy"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "rule deny_prompts denies a prompt",
			policy:    "roles:\n  ops: {deny_prompts: [\"*\"]}",
			principal: ops, prim: dtPrompt("deploy"), rule: "role:ops", step: StepRuleDeny,
			reason: []string{"deny_prompts"}},
		{name: "rule deny_resources denies a template",
			policy:    "roles:\n  ops: {deny_resources: [\"cloudg://assets/*\"]}",
			principal: ops, prim: dtTemplate("cloudg://assets/{+ref}"), rule: "role:ops", step: StepRuleDeny,
			reason: []string{"deny_resources"}},
		{name: "rule deny_categories denies",
			policy:    "roles:\n  contractor: {deny_categories: [finance]}",
			principal: both, prim: dtTool("pay", dtCat("finance")), rule: "role:contractor", step: StepRuleDeny,
			reason: []string{"deny_categories", `"finance"`}},
		{name: "rule deny_categories beats a category grant of another rule",
			policy:    "roles:\n  ops: {allow_categories: [finance]}\n  contractor: {deny_categories: [finance]}",
			principal: both, prim: dtTool("pay", dtCat("finance")), rule: "role:contractor", step: StepRuleDeny},
		{name: "rule deny_categories beats a name grant of the same rule",
			policy:    "roles:\n  contractor: {allow_tools: [pay], deny_categories: [finance]}",
			principal: both, prim: dtTool("pay", dtCat("finance")), rule: "role:contractor", step: StepRuleDeny},
		{name: "rule deny_categories * denies an uncategorised primitive",
			policy:    "roles:\n  ops: {deny_categories: [\"*\"]}",
			principal: ops, prim: dtTool("x"), rule: "role:ops", step: StepRuleDeny,
			reason: []string{"deny_categories"}},
		{name: "rule deny_capabilities beats a name grant",
			policy:    "roles:\n  ops: {allow_tools: [deploy], allow_capabilities: [exec]}\nrules:\n  - {name: no-exec, match: {roles: [contractor]}, deny_capabilities: [exec]}",
			principal: both, prim: dtTool("deploy", dtCapsOf(Exec, ReadFS)), rule: "no-exec", step: StepRuleDeny,
			reason: []string{"deny_capabilities", "exec"}},
		{name: "rule deny_capabilities beats allow_capabilities of the same rule",
			policy:    "roles:\n  ops: {allow_capabilities: [exec], deny_capabilities: [exec]}",
			principal: ops, prim: dtTool("deploy", dtCapsOf(Exec)), rule: "role:ops", step: StepRuleDeny,
			reason: []string{"exec"}},
		{name: "rule deny_capabilities beats allow_capabilities of another rule",
			policy:    "deny_capabilities: [exec]\nroles:\n  ops: {allow_capabilities: [exec]}\n  contractor: {deny_capabilities: [exec]}",
			principal: both, prim: dtTool("deploy", dtCapsOf(Exec)), rule: "role:contractor", step: StepRuleDeny},
		{name: "rule deny_capabilities ignores undeclared capabilities",
			policy:    "roles:\n  ops: {deny_capabilities: [exec, reveal]}",
			principal: ops, prim: dtTool("read", dtCapsOf(ReadFS)), allowed: true, rule: "policy", step: StepAllowed},
		{name: "rule deny_capabilities needs one shared capability",
			policy:    "roles:\n  ops: {deny_capabilities: [reveal]}",
			principal: ops, prim: dtTool("x", dtCapsOf(ReadFS, Reveal)), rule: "role:ops", step: StepRuleDeny,
			reason: []string{"reveal"}},
	})
}

// ---------------------------------------------------------------------------
// Capabilities (manual 6.2, manual 7 step 3).

func TestDecideCapabilities(t *testing.T) {
	ops := dtWho("alice", "ops")
	dev := dtWho("bob", "dev")
	twoCaps := "deny_capabilities: [exec, cloud_access]\nroles:\n  a: {allow_capabilities: [exec]}\n  b: {allow_capabilities: [cloud_access]}"
	runDecideCases(t, []decideCase{
		{name: "capability in the deny set is denied",
			policy:    `deny_capabilities: [exec]`,
			principal: dev, prim: dtTool("run", dtCapsOf(Exec)), rule: "policy", step: StepCapability,
			reason: []string{"exec"}},
		{name: "capability in the deny set granted by a matched rule",
			policy:    "deny_capabilities: [exec]\nroles:\n  ops: {allow_capabilities: [exec]}",
			principal: ops, prim: dtTool("run", dtCapsOf(Exec)), allowed: true, rule: dtAnyRule, step: StepAllowed},
		{name: "capability grant of an unmatched rule does not help",
			policy:    "deny_capabilities: [exec]\nroles:\n  ops: {allow_capabilities: [exec]}",
			principal: dev, prim: dtTool("run", dtCapsOf(Exec)), rule: "policy", step: StepCapability},
		{name: "capability grant of a rule whose match fails does not help",
			policy:    "deny_capabilities: [exec]\nrules:\n  - {match: {names: [other]}, allow_capabilities: [exec]}",
			principal: dev, prim: dtTool("run", dtCapsOf(Exec)), rule: "policy", step: StepCapability},
		{name: "capability not in the deny set passes",
			policy:    `deny_capabilities: [exec]`,
			principal: dev, prim: dtTool("read", dtCapsOf(ReadFS, ReadState)), allowed: true, rule: "policy", step: StepAllowed},
		{name: "no capabilities pass any deny set",
			policy:    `deny_capabilities: [read_state, write_state, read_fs, write_fs, cloud_access, exec, reveal]`,
			principal: dev, prim: dtTool("noop"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "every denied capability must be granted: both granted by different rules",
			policy:    twoCaps,
			principal: dtWho("u", "a", "b"), prim: dtTool("x", dtCapsOf(Exec, CloudAccess)), allowed: true, rule: dtAnyRule, step: StepAllowed},
		{name: "every denied capability must be granted: cloud_access missing",
			policy:    twoCaps,
			principal: dtWho("u", "a"), prim: dtTool("x", dtCapsOf(Exec, CloudAccess)), rule: "policy", step: StepCapability,
			reason: []string{"cloud_access"}},
		{name: "every denied capability must be granted: exec missing",
			policy:    twoCaps,
			principal: dtWho("u", "b"), prim: dtTool("x", dtCapsOf(Exec, CloudAccess)), rule: "policy", step: StepCapability,
			reason: []string{"exec"}},
		{name: "a granted capability plus one outside the deny set",
			policy:    twoCaps,
			principal: dtWho("u", "a"), prim: dtTool("x", dtCapsOf(Exec, ReadFS)), allowed: true, rule: dtAnyRule, step: StepAllowed},
		{name: "rule allow_capabilities does not skip the name lists",
			policy:    "allow_tools: []\nroles:\n  ops: {allow_capabilities: [exec]}",
			principal: ops, prim: dtTool("run", dtCapsOf(Exec)), rule: "policy", step: StepPolicyList},
		{name: "policy allow_capabilities removes an inherited capability",
			policy:    "extends: standard\nallow_capabilities: [exec]",
			principal: dev, prim: dtTool("run", dtCapsOf(Exec)), allowed: true, rule: "policy", step: StepAllowed},
		{name: "policy allow_capabilities leaves the rest of the inherited set",
			policy:    "extends: standard\nallow_capabilities: [exec]",
			principal: dev, prim: dtTool("reveal", dtCapsOf(Reveal)), rule: "policy", step: StepCapability,
			reason: []string{"reveal"}},
		{name: "child deny_capabilities adds to the inherited set",
			policy:    "extends: permissive\ndeny_capabilities: [write_fs]",
			principal: dev, prim: dtTool("w", dtCapsOf(WriteFS)), rule: "policy", step: StepCapability,
			reason: []string{"write_fs"}},
	})
}

// ---------------------------------------------------------------------------
// Sensitivity (manual 6.2 max_sensitivity, manual 4 default, manual 7 step 4).

func TestDecideSensitivity(t *testing.T) {
	admin := dtWho("root", "admin")
	contractor := dtWho("ext", "contractor")
	adminContractor := dtWho("mixed", "admin", "contractor")
	dev := dtWho("bob", "dev")
	raise := "max_sensitivity: internal\nroles:\n  admin: {max_sensitivity: restricted}"
	lower := "roles:\n  contractor: {max_sensitivity: internal}"
	adminFirst := "roles:\n  admin: {max_sensitivity: restricted}\n  contractor: {max_sensitivity: internal}"
	contractorFirst := "roles:\n  contractor: {max_sensitivity: internal}\n  admin: {max_sensitivity: restricted}"
	runDecideCases(t, []decideCase{
		{name: "default sensitivity is confidential: above internal",
			policy:    `max_sensitivity: internal`,
			principal: dev, prim: dtTool("x"), rule: "policy", step: StepSensitivity,
			reason: []string{"confidential", "internal"}},
		{name: "default sensitivity is confidential: within confidential",
			policy:    `max_sensitivity: confidential`,
			principal: dev, prim: dtTool("x"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "restricted above confidential",
			policy:    `max_sensitivity: confidential`,
			principal: dev, prim: dtTool("x", dtSens(Restricted)), rule: "policy", step: StepSensitivity,
			reason: []string{"restricted", "confidential"}},
		{name: "public within public",
			policy:    `max_sensitivity: public`,
			principal: dev, prim: dtTool("x", dtSens(Public)), allowed: true, rule: "policy", step: StepAllowed},
		{name: "internal above public",
			policy:    `max_sensitivity: public`,
			principal: dev, prim: dtTool("x", dtSens(Internal)), rule: "policy", step: StepSensitivity},
		{name: "no max_sensitivity means no ceiling",
			policy:    `name: t`,
			principal: dev, prim: dtTool("x", dtSens(Restricted)), allowed: true, rule: "policy", step: StepAllowed},
		{name: "max_sensitivity null means no ceiling",
			policy:    `max_sensitivity: null`,
			principal: dev, prim: dtTool("x", dtSens(Restricted)), allowed: true, rule: "policy", step: StepAllowed},
		{name: "ceiling applies to resource templates",
			policy:    `max_sensitivity: internal`,
			principal: dev, prim: dtTemplate("cloudg://a/{x}", dtSens(Restricted)), rule: "policy", step: StepSensitivity},

		{name: "rule ceiling raises the policy ceiling",
			policy:    raise,
			principal: admin, prim: dtTool("x", dtSens(Restricted)), allowed: true, rule: "policy", step: StepAllowed},
		{name: "raised ceiling only for matching callers",
			policy:    raise,
			principal: dev, prim: dtTool("x", dtSens(Restricted)), rule: "policy", step: StepSensitivity},
		{name: "rule ceiling lowers: contractor denied confidential",
			policy:    lower,
			principal: contractor, prim: dtTool("x"), rule: "role:contractor", step: StepSensitivity,
			reason: []string{"confidential", "internal"}},
		{name: "rule ceiling lowers: contractor allowed internal",
			policy:    lower,
			principal: contractor, prim: dtTool("x", dtSens(Internal)), allowed: true, rule: "policy", step: StepAllowed},
		{name: "rule ceiling lowers: others unaffected",
			policy:    lower,
			principal: dev, prim: dtTool("x", dtSens(Restricted)), allowed: true, rule: "policy", step: StepAllowed},
		{name: "last matching rule wins: contractor last lowers",
			policy:    adminFirst,
			principal: adminContractor, prim: dtTool("x", dtSens(Restricted)), rule: "role:contractor", step: StepSensitivity},
		{name: "last matching rule wins: admin last raises",
			policy:    contractorFirst,
			principal: adminContractor, prim: dtTool("x", dtSens(Restricted)), allowed: true, rule: "policy", step: StepAllowed},
		{name: "a rule after the roles sets the last ceiling",
			policy:    "roles:\n  admin: {max_sensitivity: restricted}\nrules:\n  - {name: payroll-ceiling, match: {tags: [payroll]}, max_sensitivity: internal}",
			principal: admin, prim: dtTool("x", dtSens(Restricted), dtTags("payroll")), rule: "payroll-ceiling", step: StepSensitivity},
		{name: "an unmatched rule sets no ceiling",
			policy:    "roles:\n  admin: {max_sensitivity: restricted}\nrules:\n  - {name: payroll-ceiling, match: {tags: [payroll]}, max_sensitivity: internal}",
			principal: admin, prim: dtTool("x", dtSens(Restricted)), allowed: true, rule: "policy", step: StepAllowed},
		{name: "a rule without max_sensitivity keeps the ceiling",
			policy:    "max_sensitivity: internal\nroles:\n  admin: {max_sensitivity: restricted}\n  contractor: {deny_tools: [other]}",
			principal: adminContractor, prim: dtTool("x", dtSens(Restricted)), allowed: true, rule: "policy", step: StepAllowed},
		{name: "rule ceiling null does not replace",
			policy:    "max_sensitivity: internal\nroles:\n  admin: {max_sensitivity: null}",
			principal: admin, prim: dtTool("x"), rule: "policy", step: StepSensitivity},
	})
}

// ---------------------------------------------------------------------------
// Step order (manual 7: 1 before 2 before 3 before 4).

func TestDecideStepOrder(t *testing.T) {
	ops := dtWho("alice", "ops")
	runDecideCases(t, []decideCase{
		{name: "rule deny before policy list, capability and sensitivity",
			policy:    "allow_tools: []\ndeny_capabilities: [exec]\nmax_sensitivity: public\nroles:\n  ops: {deny_tools: [x]}",
			principal: ops, prim: dtTool("x", dtCapsOf(Exec)), rule: "role:ops", step: StepRuleDeny},
		{name: "policy list before capability and sensitivity",
			policy:    "allow_tools: []\ndeny_capabilities: [exec]\nmax_sensitivity: public",
			principal: ops, prim: dtTool("x", dtCapsOf(Exec)), rule: "policy", step: StepPolicyList},
		{name: "capability before sensitivity",
			policy:    "deny_capabilities: [exec]\nmax_sensitivity: public",
			principal: ops, prim: dtTool("x", dtCapsOf(Exec)), rule: "policy", step: StepCapability},
	})
}

// ---------------------------------------------------------------------------
// RuleMatch (manual 6.4) and rule names (manual 6.3, manual 7).

func TestDecideRuleMatch(t *testing.T) {
	alice := dtWho("alice")
	ops := dtWho("alice", "ops")
	kinds := func(k string) string {
		return "rules:\n  - {match: {kinds: [" + k + "]}, deny_tools: [\"*\"], deny_resources: [\"*\"], deny_prompts: [\"*\"]}"
	}
	deny := func(match string) string {
		return "rules:\n  - {match: " + match + ", deny_tools: [\"*\"]}"
	}
	runDecideCases(t, []decideCase{
		// roles
		{name: "roles * matches the anonymous principal",
			policy:    deny(`{roles: ["*"]}`),
			principal: dtAnon, prim: dtTool("x"), rule: "rule[0]", step: StepRuleDeny},
		{name: "roles * matches a principal with roles",
			policy:    deny(`{roles: ["*"]}`),
			principal: ops, prim: dtTool("x"), rule: "rule[0]", step: StepRuleDeny},
		{name: "roles map key * matches the anonymous principal",
			policy:    "roles:\n  \"*\": {deny_tools: [x]}",
			principal: dtAnon, prim: dtTool("x"), rule: "role:*", step: StepRuleDeny},
		{name: "roles exact name matches",
			policy:    deny(`{roles: [admin, ops]}`),
			principal: ops, prim: dtTool("x"), rule: "rule[0]", step: StepRuleDeny},
		{name: "roles are exact: no prefix",
			policy:    deny(`{roles: [op]}`),
			principal: ops, prim: dtTool("x"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "roles are exact: no glob",
			policy:    deny(`{roles: ["op*"]}`),
			principal: ops, prim: dtTool("x"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "roles are exact: case-sensitive",
			policy:    deny(`{roles: [OPS]}`),
			principal: ops, prim: dtTool("x"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "roles do not match the anonymous principal",
			policy:    deny(`{roles: [ops]}`),
			principal: dtAnon, prim: dtTool("x"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "roles map entry needs the role",
			policy:    "roles:\n  ops: {deny_tools: [x]}",
			principal: alice, prim: dtTool("x"), allowed: true, rule: "policy", step: StepAllowed},

		// principals
		{name: "principals glob matches",
			policy:    deny(`{principals: ["svc-*"]}`),
			principal: dtWho("svc-build"), prim: dtTool("x"), rule: "rule[0]", step: StepRuleDeny},
		{name: "principals glob does not match",
			policy:    deny(`{principals: ["svc-*"]}`),
			principal: alice, prim: dtTool("x"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "principals * crosses / and :",
			policy:    deny(`{principals: ["spiffe://*"]}`),
			principal: dtWho("spiffe://cluster.local/ns/a:b/sa/x"), prim: dtTool("x"), rule: "rule[0]", step: StepRuleDeny},
		{name: "principals are anchored",
			policy:    deny(`{principals: ["svc"]}`),
			principal: dtWho("svc-build"), prim: dtTool("x"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "principals negation excludes",
			policy:    deny(`{principals: ["*", "!svc-*"]}`),
			principal: dtWho("svc-build"), prim: dtTool("x"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "principals negation keeps others",
			policy:    deny(`{principals: ["*", "!svc-*"]}`),
			principal: alice, prim: dtTool("x"), rule: "rule[0]", step: StepRuleDeny},

		// names
		{name: "names glob matches a tool",
			policy:    deny(`{names: ["get_*"]}`),
			principal: alice, prim: dtTool("get_user"), rule: "rule[0]", step: StepRuleDeny},
		{name: "names glob does not match",
			policy:    deny(`{names: ["get_*"]}`),
			principal: alice, prim: dtTool("list_users"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "names ? matches one character",
			policy:    deny(`{names: ["get_?"]}`),
			principal: alice, prim: dtTool("get_ab"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "names are case-sensitive",
			policy:    deny(`{names: ["get_*"]}`),
			principal: alice, prim: dtTool("GET_user"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "names match a template text",
			policy:    "rules:\n  - {match: {names: [\"cloudg://assets/*\"]}, deny_resources: [\"*\"]}",
			principal: alice, prim: dtTemplate("cloudg://assets/{+ref}", dtURI("cloudg://assets/x")), rule: "rule[0]", step: StepRuleDeny},
		{name: "names match a prompt name",
			policy:    "rules:\n  - {match: {names: [summarise]}, deny_prompts: [\"*\"]}",
			principal: alice, prim: dtPrompt("summarise"), rule: "rule[0]", step: StepRuleDeny},
		{name: "empty names list means any",
			policy:    deny(`{names: []}`),
			principal: alice, prim: dtTool("x"), rule: "rule[0]", step: StepRuleDeny},

		// categories
		{name: "categories glob matches",
			policy:    deny(`{categories: ["fin*"]}`),
			principal: alice, prim: dtTool("pay", dtCat("finance")), rule: "rule[0]", step: StepRuleDeny},
		{name: "categories glob does not match",
			policy:    deny(`{categories: ["fin*"]}`),
			principal: alice, prim: dtTool("pay", dtCat("ops")), allowed: true, rule: "policy", step: StepAllowed},
		{name: "categories fin* does not match an uncategorised primitive",
			policy:    deny(`{categories: ["fin*"]}`),
			principal: alice, prim: dtTool("pay"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "categories * matches an uncategorised primitive",
			policy:    deny(`{categories: ["*"]}`),
			principal: alice, prim: dtTool("pay"), rule: "rule[0]", step: StepRuleDeny},

		// tags
		{name: "tags: one shared tag matches",
			policy:    deny(`{tags: [pii, payroll]}`),
			principal: alice, prim: dtTool("x", dtTags("other", "payroll")), rule: "rule[0]", step: StepRuleDeny},
		{name: "tags: no shared tag",
			policy:    deny(`{tags: [pii, payroll]}`),
			principal: alice, prim: dtTool("x", dtTags("other")), allowed: true, rule: "policy", step: StepAllowed},
		{name: "tags: untagged primitive does not match",
			policy:    deny(`{tags: [pii]}`),
			principal: alice, prim: dtTool("x"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "tags are exact: case",
			policy:    deny(`{tags: [pii]}`),
			principal: alice, prim: dtTool("x", dtTags("PII")), allowed: true, rule: "policy", step: StepAllowed},
		{name: "tags are exact: not globs",
			policy:    deny(`{tags: ["pi*"]}`),
			principal: alice, prim: dtTool("x", dtTags("pii")), allowed: true, rule: "policy", step: StepAllowed},

		// kinds
		{name: "kinds tool matches a tool", policy: kinds("tool"),
			principal: alice, prim: dtTool("x"), rule: "rule[0]", step: StepRuleDeny},
		{name: "kinds tool does not match a prompt", policy: kinds("tool"),
			principal: alice, prim: dtPrompt("x"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "kinds resource matches a resource", policy: kinds("resource"),
			principal: alice, prim: dtRes("file:///x"), rule: "rule[0]", step: StepRuleDeny},
		{name: "kinds resource also matches a template", policy: kinds("resource"),
			principal: alice, prim: dtTemplate("file:///{x}"), rule: "rule[0]", step: StepRuleDeny},
		{name: "kinds resource does not match a tool", policy: kinds("resource"),
			principal: alice, prim: dtTool("x"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "kinds resource_template matches a template", policy: kinds("resource_template"),
			principal: alice, prim: dtTemplate("file:///{x}"), rule: "rule[0]", step: StepRuleDeny},
		{name: "kinds resource_template does not match a resource", policy: kinds("resource_template"),
			principal: alice, prim: dtRes("file:///x"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "kinds prompt matches a prompt", policy: kinds("prompt"),
			principal: alice, prim: dtPrompt("x"), rule: "rule[0]", step: StepRuleDeny},
		{name: "kinds prompt does not match a tool", policy: kinds("prompt"),
			principal: alice, prim: dtTool("x"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "kinds list matches any listed", policy: kinds("prompt, tool"),
			principal: alice, prim: dtTool("x"), rule: "rule[0]", step: StepRuleDeny},

		// sensitivity
		{name: "sensitivity matches",
			policy:    deny(`{sensitivity: [restricted]}`),
			principal: alice, prim: dtTool("x", dtSens(Restricted)), rule: "rule[0]", step: StepRuleDeny},
		{name: "sensitivity does not match",
			policy:    deny(`{sensitivity: [restricted]}`),
			principal: alice, prim: dtTool("x", dtSens(Internal)), allowed: true, rule: "policy", step: StepAllowed},
		{name: "sensitivity confidential matches the default",
			policy:    deny(`{sensitivity: [confidential]}`),
			principal: alice, prim: dtTool("x"), rule: "rule[0]", step: StepRuleDeny},
		{name: "sensitivity public does not match the default",
			policy:    deny(`{sensitivity: [public, internal]}`),
			principal: alice, prim: dtTool("x"), allowed: true, rule: "policy", step: StepAllowed},

		// capabilities
		{name: "capabilities: one shared matches",
			policy:    deny(`{capabilities: [exec, write_fs]}`),
			principal: alice, prim: dtTool("x", dtCapsOf(ReadFS, Exec)), rule: "rule[0]", step: StepRuleDeny},
		{name: "capabilities: none shared",
			policy:    deny(`{capabilities: [exec, write_fs]}`),
			principal: alice, prim: dtTool("x", dtCapsOf(ReadFS)), allowed: true, rule: "policy", step: StepAllowed},
		{name: "capabilities: primitive without capabilities",
			policy:    deny(`{capabilities: [exec]}`),
			principal: alice, prim: dtTool("x"), allowed: true, rule: "policy", step: StepAllowed},

		// every condition must hold
		{name: "all conditions hold",
			policy:    deny(`{roles: [ops], names: ["deploy*"], kinds: [tool], categories: [ops]}`),
			principal: ops, prim: dtTool("deploy_prod", dtCat("ops")), rule: "rule[0]", step: StepRuleDeny},
		{name: "one condition fails: role",
			policy:    deny(`{roles: [ops], names: ["deploy*"], kinds: [tool], categories: [ops]}`),
			principal: alice, prim: dtTool("deploy_prod", dtCat("ops")), allowed: true, rule: "policy", step: StepAllowed},
		{name: "one condition fails: category",
			policy:    deny(`{roles: [ops], names: ["deploy*"], kinds: [tool], categories: [ops]}`),
			principal: ops, prim: dtTool("deploy_prod", dtCat("dev")), allowed: true, rule: "policy", step: StepAllowed},
		{name: "roles map entry with extra match conditions",
			policy:    "roles:\n  ops: {match: {names: [\"deploy*\"]}, deny_tools: [\"*\"]}",
			principal: ops, prim: dtTool("read"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "roles map entry with extra match conditions that hold",
			policy:    "roles:\n  ops: {match: {names: [\"deploy*\"]}, deny_tools: [\"*\"]}",
			principal: ops, prim: dtTool("deploy_prod"), rule: "role:ops", step: StepRuleDeny},
	})
}

func TestDecideRuleNames(t *testing.T) {
	const pol = `
roles:
  a: {deny_tools: [ta]}
  b: {name: Team B, deny_tools: [tb]}
rules:
  - {deny_tools: [t0]}
  - {name: custom, deny_tools: [t1]}
  - {deny_tools: [t2]}
`
	ab := dtWho("u", "a", "b")
	all := []string{"role:a", "Team B", "rule[0]", "custom", "rule[2]"}
	runDecideCases(t, []decideCase{
		{name: "role default name", policy: pol, principal: ab, prim: dtTool("ta"), rule: "role:a", step: StepRuleDeny, matched: all},
		{name: "role explicit name", policy: pol, principal: ab, prim: dtTool("tb"), rule: "Team B", step: StepRuleDeny, matched: all},
		{name: "rule[0] counts rules, not roles", policy: pol, principal: ab, prim: dtTool("t0"), rule: "rule[0]", step: StepRuleDeny},
		{name: "rule explicit name", policy: pol, principal: ab, prim: dtTool("t1"), rule: "custom", step: StepRuleDeny},
		{name: "rule[2] keeps its index after a named rule", policy: pol, principal: ab, prim: dtTool("t2"), rule: "rule[2]", step: StepRuleDeny},
		{name: "M holds roles first then rules, in order", policy: pol, principal: ab, prim: dtTool("free"),
			allowed: true, rule: "policy", step: StepAllowed, matched: all},
		{name: "M without role b", policy: pol, principal: dtWho("u", "a"), prim: dtTool("free"),
			allowed: true, rule: "policy", step: StepAllowed, matched: []string{"role:a", "rule[0]", "custom", "rule[2]"}},
		{name: "M for an anonymous caller", policy: pol, principal: dtAnon, prim: dtTool("free"),
			allowed: true, rule: "policy", step: StepAllowed, matched: []string{"rule[0]", "custom", "rule[2]"}},
		{name: "roles keep document order, not alphabetical",
			policy: "roles:\n  zeta: {}\n  alpha: {}", principal: dtWho("u", "alpha", "zeta"), prim: dtTool("x"),
			allowed: true, rule: "policy", step: StepAllowed, matched: []string{"role:zeta", "role:alpha"}},
	})
}

// Rule indices count in the flattened rules list when a policy extends a
// file or a profile (manual 5.2: rule[i] is the 0-based index in that list).
func TestDecideRuleNamesAfterExtends(t *testing.T) {
	files := map[string]string{
		"/cfg/base.yaml": `
name: base
extends: grand.yaml
roles:
  ops: {deny_tools: [p_role]}
rules:
  - {deny_tools: [p_rule0]}
  - {name: named, deny_tools: [p_named]}
`,
		"/cfg/grand.yaml": `
rules:
  - {deny_tools: [g_rule]}
`,
	}
	read := func(path string) ([]byte, error) {
		if s, ok := files[path]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}
	child := `
extends: base.yaml
roles:
  dev: {deny_tools: [c_role]}
rules:
  - {deny_tools: [c_rule0]}
  - {deny_tools: [c_rule1]}
`
	p := dtParseOpt(t, child, Options{File: "/cfg/child.yaml", ReadFile: read})
	pr := dtWho("u", "ops", "dev")
	cases := []struct{ tool, rule string }{
		{"g_rule", "rule[0]"},
		{"p_rule0", "rule[1]"},
		{"p_named", "named"},
		{"c_rule0", "rule[3]"},
		{"c_rule1", "rule[4]"},
		{"p_role", "role:ops"},
		{"c_role", "role:dev"},
	}
	for _, c := range cases {
		x := dtTool(c.tool)
		d := p.Decide(&pr, &x)
		if d.Allowed || d.Rule != c.rule || d.Step != StepRuleDeny {
			t.Errorf("%s: allowed=%v rule=%q step=%d, want denied by %q at step 1", c.tool, d.Allowed, d.Rule, d.Step, c.rule)
		}
	}
	x := dtTool("free")
	d := p.Decide(&pr, &x)
	want := []string{"role:ops", "role:dev", "rule[0]", "rule[1]", "named", "rule[3]", "rule[4]"}
	if got := dtRuleNames(d.Matched); !reflect.DeepEqual(got, want) {
		t.Errorf("M = %q, want %q", got, want)
	}

	// A profile has no rules, so a child's rules start at 0 after its roles.
	pp := dtParse(t, "extends: strict\nroles:\n  ops: {deny_tools: [a]}\nrules:\n  - {deny_tools: [b]}\n  - {deny_tools: [c]}")
	for _, c := range []struct{ tool, rule string }{{"a", "role:ops"}, {"b", "rule[0]"}, {"c", "rule[1]"}} {
		x := dtTool(c.tool, dtSens(Public))
		d := pp.Decide(&pr, &x)
		if d.Allowed || d.Rule != c.rule {
			t.Errorf("profile child %s: allowed=%v rule=%q, want denied by %q", c.tool, d.Allowed, d.Rule, c.rule)
		}
	}
}

// A rule with only roles and principals conditions applies when no
// primitive is involved (manual 6.4 last sentence, manual 7).
func TestMatchPrincipal(t *testing.T) {
	p := dtParse(t, `
roles:
  ops: {deny_tools: [x]}
  dev: {match: {names: [x]}}
rules:
  - {name: by-role, match: {roles: [ops]}}
  - {name: by-principal, match: {principals: ["ali*"]}}
  - {name: by-both, match: {roles: [ops], principals: [alice]}}
  - {name: everything}
  - {name: empty-lists, match: {names: [], kinds: [], tags: [], categories: []}}
  - {name: any-role, match: {roles: ["*"]}}
  - {name: by-name, match: {roles: [ops], names: ["*"]}}
  - {name: by-kind, match: {kinds: [tool]}}
  - {name: by-category, match: {categories: ["*"]}}
  - {name: by-tags, match: {tags: [a]}}
  - {name: by-sensitivity, match: {sensitivity: [confidential]}}
  - {name: by-capability, match: {capabilities: [exec]}}
  - {name: other-role, match: {roles: [qa]}}
  - {name: other-principal, match: {principals: [bob]}}
`)
	cases := []struct {
		name string
		pr   Principal
		want []string
	}{
		{"alice with ops", dtWho("alice", "ops"), []string{"role:ops", "by-role", "by-principal", "by-both", "everything", "empty-lists", "any-role"}},
		{"alice without roles", dtWho("alice"), []string{"by-principal", "everything", "empty-lists", "any-role"}},
		{"anonymous", dtAnon, []string{"everything", "empty-lists", "any-role"}},
		{"dev role with a names condition", dtWho("carol", "dev"), []string{"everything", "empty-lists", "any-role"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pr := c.pr
			if got := dtRuleNames(p.MatchPrincipal(&pr)); !reflect.DeepEqual(got, c.want) {
				t.Errorf("MatchPrincipal = %q, want %q", got, c.want)
			}
		})
	}
	// The same rules with a primitive: the primitive conditions now count.
	pr := dtWho("alice", "ops", "dev")
	x := dtTool("x", dtCat("c"), dtTags("a"), dtCapsOf(Exec))
	want := []string{"role:ops", "role:dev", "by-role", "by-principal", "by-both", "everything", "empty-lists", "any-role",
		"by-name", "by-kind", "by-category", "by-tags", "by-sensitivity", "by-capability"}
	if got := dtRuleNames(p.Match(&pr, &x)); !reflect.DeepEqual(got, want) {
		t.Errorf("Match with a primitive = %q, want %q", got, want)
	}
}

// ---------------------------------------------------------------------------
// Globs: the negation examples and template text (manual 6.7).

func TestDecideNegationExamples(t *testing.T) {
	alice := dtWho("alice")
	ops := dtWho("alice", "ops")
	onlyNeg := `allow_tools: ["!get_secret*"]`
	withStar := `allow_tools: ["*", "!get_secret*"]`
	runDecideCases(t, []decideCase{
		{name: "only negations allow no tools: search", policy: onlyNeg,
			principal: alice, prim: dtTool("search"), rule: "policy", step: StepPolicyList},
		{name: "only negations allow no tools: get_secret_key", policy: onlyNeg,
			principal: alice, prim: dtTool("get_secret_key"), rule: "policy", step: StepPolicyList},
		{name: "star and negation allow search", policy: withStar,
			principal: alice, prim: dtTool("search"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "star and negation deny get_secret_key", policy: withStar,
			principal: alice, prim: dtTool("get_secret_key"), rule: "policy", step: StepPolicyList,
			reason: []string{"allow_tools"}},
		{name: "deny list with only negations denies nothing", policy: `deny_tools: ["!safe_*"]`,
			principal: alice, prim: dtTool("danger"), allowed: true, rule: "policy", step: StepAllowed},
		{name: "rule grant with only negations grants nothing",
			policy:    "allow_tools: []\nroles:\n  ops: {allow_tools: [\"!get_secret*\"]}",
			principal: ops, prim: dtTool("search"), rule: "policy", step: StepPolicyList},
		{name: "rule grant with star and negation grants search",
			policy:    "allow_tools: []\nroles:\n  ops: {allow_tools: [\"*\", \"!get_secret*\"]}",
			principal: ops, prim: dtTool("search"), allowed: true, rule: "role:ops", step: StepAllowed},
		{name: "rule grant with star and negation does not grant get_secret_key",
			policy:    "allow_tools: []\nroles:\n  ops: {allow_tools: [\"*\", \"!get_secret*\"]}",
			principal: ops, prim: dtTool("get_secret_key"), rule: "policy", step: StepPolicyList},
		{name: "rule deny with star and negation",
			policy:    "roles:\n  ops: {deny_tools: [\"*\", \"!search\"]}",
			principal: ops, prim: dtTool("search"), allowed: true, rule: "policy", step: StepAllowed},
	})
}

func TestDecideTemplateTextNotConcreteURI(t *testing.T) {
	alice := dtWho("alice")
	const tpl = "cloudg://assets/{+ref}"
	const concrete = "cloudg://assets/arn:aws:s3:::payroll"
	read := dtTemplate(tpl, dtURI(concrete))
	runDecideCases(t, []decideCase{
		{name: "deny of the template text denies a read through it",
			policy:    `deny_resources: ["cloudg://assets/{+ref}"]`,
			principal: alice, prim: read, rule: "policy", step: StepPolicyList, reason: []string{"deny_resources", tpl}},
		{name: "deny of the concrete URI does not deny the template read",
			policy:    `deny_resources: ["cloudg://assets/arn:aws:s3:::payroll"]`,
			principal: alice, prim: read, allowed: true, rule: "policy", step: StepAllowed},
		{name: "glob over the template text denies",
			policy:    `deny_resources: ["cloudg://assets/*"]`,
			principal: alice, prim: read, rule: "policy", step: StepPolicyList},
		{name: "glob that matches only the concrete URI does not deny",
			policy:    `deny_resources: ["*payroll*"]`,
			principal: alice, prim: read, allowed: true, rule: "policy", step: StepAllowed},
		{name: "allow of the concrete URI does not allow the template read",
			policy:    `allow_resources: ["cloudg://assets/arn:aws:s3:::payroll"]`,
			principal: alice, prim: read, rule: "policy", step: StepPolicyList},
		{name: "rule deny of the concrete URI does not deny",
			policy:    "rules:\n  - {deny_resources: [\"cloudg://assets/arn:*\"]}",
			principal: alice, prim: read, allowed: true, rule: "policy", step: StepAllowed},
		{name: "match.names on the concrete URI does not match",
			policy:    "rules:\n  - {match: {names: [\"cloudg://assets/arn:*\"]}, deny_resources: [\"*\"]}",
			principal: alice, prim: read, allowed: true, rule: "policy", step: StepAllowed},
		{name: "a static resource of the concrete URI is denied by it",
			policy:    `deny_resources: ["cloudg://assets/arn:aws:s3:::payroll"]`,
			principal: alice, prim: dtRes(concrete), rule: "policy", step: StepPolicyList},
	})
}

// ---------------------------------------------------------------------------
// hide_denied and Error() (manual 6.1 hide_denied, manual 7 last paragraph).

func TestDecideHideDeniedFalse(t *testing.T) {
	alice := dtWho("alice", "ops")
	runDecideCases(t, []decideCase{
		{name: "policy list denial is visible", policy: "hide_denied: false\nallow_tools: []",
			principal: alice, prim: dtTool("x"), rule: "policy", step: StepPolicyList, visible: true},
		{name: "rule denial is visible", policy: "hide_denied: false\nroles:\n  ops: {deny_tools: [x]}",
			principal: alice, prim: dtTool("x"), rule: "role:ops", step: StepRuleDeny, visible: true},
		{name: "sensitivity denial is visible", policy: "hide_denied: false\nmax_sensitivity: public",
			principal: alice, prim: dtRes("file:///x"), rule: "policy", step: StepSensitivity, visible: true},
		{name: "hide_denied true is hidden", policy: "hide_denied: true\nallow_tools: []",
			principal: alice, prim: dtTool("x"), rule: "policy", step: StepPolicyList},
		{name: "allowed is not hidden", policy: "hide_denied: true",
			principal: alice, prim: dtTool("x"), allowed: true, rule: "policy", step: StepAllowed},
	})
}

func dtErrorJSON(t *testing.T, e *RPCError) map[string]any {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatalf("marshal %+v: %v", e, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	return m
}

func TestDecisionError(t *testing.T) {
	const tpl = "cloudg://assets/{+ref}"
	const concrete = "cloudg://assets/arn:aws:s3:::payroll"
	hidden := `deny_tools: ["*"]
deny_prompts: ["*"]
deny_resources: ["*"]`
	visible := "name: corp\nhide_denied: false\n" + hidden
	cases := []struct {
		name   string
		policy string
		prim   Primitive
		want   map[string]any // "reason" in data is filled from Reason()
	}{
		{"hidden tool", hidden, dtTool("get_secret"),
			map[string]any{"code": float64(-32602), "message": "Unknown tool: get_secret"}},
		{"hidden prompt", hidden, dtPrompt("leak"),
			map[string]any{"code": float64(-32602), "message": "Unknown prompt: leak"}},
		{"hidden static resource", hidden, dtRes("file:///etc/passwd"),
			map[string]any{"code": float64(-32002), "message": "Resource not found",
				"data": map[string]any{"uri": "file:///etc/passwd"}}},
		{"hidden template reports the concrete URI", hidden, dtTemplate(tpl, dtURI(concrete)),
			map[string]any{"code": float64(-32002), "message": "Resource not found",
				"data": map[string]any{"uri": concrete}}},
		{"visible tool", visible, dtTool("get_secret"),
			map[string]any{"code": float64(-32003), "message": "Access denied",
				"data": map[string]any{"policy": "corp", "rule": "policy", "kind": "tool", "name": "get_secret"}}},
		{"visible prompt", visible, dtPrompt("leak"),
			map[string]any{"code": float64(-32003), "message": "Access denied",
				"data": map[string]any{"policy": "corp", "rule": "policy", "kind": "prompt", "name": "leak"}}},
		{"visible resource", visible, dtRes("file:///etc/passwd"),
			map[string]any{"code": float64(-32003), "message": "Access denied",
				"data": map[string]any{"policy": "corp", "rule": "policy", "kind": "resource", "name": "file:///etc/passwd"}}},
		{"visible template names the template", visible, dtTemplate(tpl, dtURI(concrete)),
			map[string]any{"code": float64(-32003), "message": "Access denied",
				"data": map[string]any{"policy": "corp", "rule": "policy", "kind": "resource_template", "name": tpl}}},
		{"visible rule denial names the rule and default policy name",
			"hide_denied: false\nrules:\n  - {name: no-exec, deny_capabilities: [exec]}", dtTool("run", dtCapsOf(Exec)),
			map[string]any{"code": float64(-32003), "message": "Access denied",
				"data": map[string]any{"policy": "custom", "rule": "no-exec", "kind": "tool", "name": "run"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := dtParse(t, c.policy)
			pr, x := dtWho("alice"), c.prim
			d := p.Decide(&pr, &x)
			if d.Allowed {
				t.Fatalf("allowed, want denied")
			}
			if data, ok := c.want["data"].(map[string]any); ok && data["rule"] != nil {
				data["reason"] = d.Reason()
			}
			got := dtErrorJSON(t, d.Error())
			if !reflect.DeepEqual(got, c.want) {
				gb, _ := json.Marshal(got)
				wb, _ := json.Marshal(c.want)
				t.Errorf("Error() JSON =\n %s\nwant\n %s", gb, wb)
			}
			if data, ok := got["data"].(map[string]any); ok && data["reason"] == "" {
				t.Errorf("error data has an empty reason")
			}
		})
	}

	// An allowed decision has no error.
	p := dtParse(t, `name: t`)
	pr, x := dtWho("alice"), dtTool("x")
	d := p.Decide(&pr, &x)
	if e := d.Error(); e != nil {
		t.Errorf("Error() for an allowed call = %+v, want nil", e)
	}
}

// ---------------------------------------------------------------------------
// Built-in profiles (manual 5.2).

func TestDecideProfiles(t *testing.T) {
	u := dtWho("alice")
	pub := func(name string, cs ...Capability) Primitive {
		return dtTool(name, dtSens(Public), dtCapsOf(cs...))
	}
	var cases []decideCase
	add := func(profile string, x Primitive, allowed bool, step Step, reason ...string) {
		for _, src := range []string{profile, "extends: " + profile} {
			cases = append(cases, decideCase{
				name:   fmt.Sprintf("%s/%s/%s", src, x.Name, x.EffectiveSensitivity()),
				policy: src, principal: u, prim: x, allowed: allowed, rule: "policy", step: step, reason: reason,
			})
		}
	}
	add("permissive", pub("reveal", Reveal), false, StepCapability, "reveal")
	add("permissive", pub("exec", Exec), true, StepAllowed)
	add("permissive", pub("write_fs", WriteFS), true, StepAllowed)
	add("permissive", dtTool("restricted", dtSens(Restricted)), true, StepAllowed)

	add("standard", pub("reveal", Reveal), false, StepCapability, "reveal")
	add("standard", pub("exec", Exec), false, StepCapability, "exec")
	add("standard", pub("cloud_access", CloudAccess), true, StepAllowed)
	add("standard", dtTool("confidential"), true, StepAllowed)
	add("standard", dtTool("restricted", dtSens(Restricted)), false, StepSensitivity, "confidential")

	add("strict", pub("write_state", WriteState), false, StepCapability, "write_state")
	add("strict", pub("write_fs", WriteFS), false, StepCapability, "write_fs")
	add("strict", pub("cloud_access", CloudAccess), false, StepCapability, "cloud_access")
	add("strict", pub("exec", Exec), false, StepCapability, "exec")
	add("strict", pub("reveal", Reveal), false, StepCapability, "reveal")
	add("strict", pub("read_state", ReadState, ReadFS), true, StepAllowed)
	add("strict", dtTool("internal", dtSens(Internal)), true, StepAllowed)
	add("strict", dtTool("confidential"), false, StepSensitivity, "internal")

	add("audit-only", pub("reveal", Reveal), false, StepCapability, "reveal")
	add("audit-only", pub("exec", Exec), true, StepAllowed)
	add("audit-only", dtTool("restricted", dtSens(Restricted), dtCapsOf(WriteFS, CloudAccess)), true, StepAllowed)
	runDecideCases(t, cases)

	for _, c := range []struct {
		profile string
		audit   bool
	}{{"permissive", false}, {"standard", false}, {"strict", true}, {"audit-only", true}} {
		p := dtParse(t, c.profile)
		if p.Name != c.profile || p.Audit != c.audit || !p.HideDenied {
			t.Errorf("profile %s: name %q audit %v hide_denied %v, want %q %v true", c.profile, p.Name, p.Audit, p.HideDenied, c.profile, c.audit)
		}
	}
}

// ---------------------------------------------------------------------------
// Concurrency: a Policy is immutable and Decide is safe from many goroutines.

func TestDecideConcurrent(t *testing.T) {
	p := dtParse(t, `
name: conc
hide_denied: false
deny_capabilities: [exec]
max_sensitivity: confidential
allow_tools: ["*", "!get_secret*"]
roles:
  ops: {allow_capabilities: [exec], allow_tools: ["get_secret_ro"]}
  contractor: {max_sensitivity: internal, deny_categories: [finance]}
rules:
  - {match: {kinds: [resource]}, deny_resources: ["cloudg://assets/{+ref}"]}
  - {match: {tags: [payroll]}, max_sensitivity: public}
`)
	principals := []Principal{dtAnon, dtWho("a", "ops"), dtWho("b", "contractor"), dtWho("c", "ops", "contractor")}
	prims := []Primitive{
		dtTool("search"), dtTool("get_secret_key"), dtTool("get_secret_ro"),
		dtTool("run", dtCapsOf(Exec)), dtTool("pay", dtCat("finance")), dtTool("x", dtTags("payroll"), dtSens(Internal)),
		dtTemplate("cloudg://assets/{+ref}", dtURI("cloudg://assets/1")), dtTool("big", dtSens(Restricted)),
	}
	type result struct {
		allowed bool
		rule    string
		reason  string
		err     string
		matched string
	}
	snapshot := func(pr Principal, x Primitive) result {
		d := p.Decide(&pr, &x)
		eb, _ := json.Marshal(d.Error())
		return result{d.Allowed, d.Rule, d.Reason(), string(eb), strings.Join(dtRuleNames(d.Matched), ",")}
	}
	want := make([]result, 0, len(principals)*len(prims))
	for _, pr := range principals {
		for _, x := range prims {
			want = append(want, snapshot(pr, x))
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for it := 0; it < 50; it++ {
				i := 0
				for _, pr := range principals {
					for _, x := range prims {
						if got := snapshot(pr, x); got != want[i] {
							select {
							case errs <- fmt.Sprintf("goroutine %d: %s/%s: %+v, want %+v", g, pr.ID, x.Name, got, want[i]):
							default:
							}
						}
						i++
					}
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// ---------------------------------------------------------------------------
// Benchmark: 50 roles, 100 rules, a principal with 3 roles.

func benchPolicySource() string {
	var b strings.Builder
	b.WriteString(`{"name": "bench", "max_sensitivity": "confidential", "deny_capabilities": ["exec", "reveal"],`)
	b.WriteString(`"deny_tools": ["drop_*", "delete_everything"], "roles": {`)
	for i := 0; i < 50; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"role_%d": {"allow_tools": ["tool_%d", "pre_%d_*", "list_%d"], "deny_tools": ["bad_%d", "zap_%d_*"]`, i, i, i, i, i, i)
		switch i % 5 {
		case 1:
			fmt.Fprintf(&b, `, "match": {"names": ["pre_*", "tool_*"]}`)
		case 2:
			fmt.Fprintf(&b, `, "match": {"categories": ["ops", "cat_%d*"]}`, i)
		case 3:
			fmt.Fprintf(&b, `, "match": {"kinds": ["tool", "prompt"]}, "deny_categories": ["secret_%d"]`, i)
		case 4:
			fmt.Fprintf(&b, `, "allow_capabilities": ["exec"], "max_sensitivity": "restricted"`)
		}
		b.WriteString("}")
	}
	b.WriteString(`}, "rules": [`)
	for i := 0; i < 100; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"match": {"roles": ["role_%d"]`, i%50)
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, `, "names": ["pre_%d_*", "n_%d"]`, i%50, i)
		case 1:
			b.WriteString(`, "kinds": ["tool"]`)
		case 2:
			fmt.Fprintf(&b, `, "tags": ["t_%d", "pii"]`, i)
		case 3:
			b.WriteString(`, "kinds": ["resource"]`)
		}
		fmt.Fprintf(&b, `}, "deny_tools": ["x_%d", "y_%d_*"], "deny_prompts": ["p_%d"]`, i, i, i)
		if i%10 == 0 {
			b.WriteString(`, "max_sensitivity": "restricted"`)
		}
		b.WriteString("}")
	}
	b.WriteString("]}")
	return b.String()
}

func BenchmarkDecide(b *testing.B) {
	p := dtParse(b, benchPolicySource())
	if len(p.Rules) != 150 || p.Roles != 50 {
		b.Fatalf("bench policy has %d rules of which %d roles, want 150 and 50", len(p.Rules), p.Roles)
	}
	pr := dtWho("svc-bench", "role_3", "role_17", "role_42")
	x := dtTool("pre_17_search", dtCat("ops"), dtTags("pii", "billing"), dtCapsOf(ReadState))
	d := p.Decide(&pr, &x)
	if !d.Allowed || d.Rule != "role:role_17" || len(d.Matched) < 4 {
		b.Fatalf("bench decision: allowed=%v rule=%q |M|=%d reason=%q", d.Allowed, d.Rule, len(d.Matched), d.Reason())
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		d = p.Decide(&pr, &x)
	}
	_ = d
}

// UnionRules keeps the policy's order (roles first, then rules), whatever
// the order of its arguments, and returns a itself when b adds nothing.
func TestUnionRules(t *testing.T) {
	p := MustParsePolicy(`{"name": "u", "roles": {"a": {}, "b": {}},
		"rules": [{"match": {"roles": ["a"]}}, {"match": {"roles": ["b"]}}]}`)
	r := p.Rules // role:a, role:b, rule[0], rule[1]
	names := func(rs []*Rule) string {
		var s []string
		for _, x := range rs {
			s = append(s, x.Name)
		}
		return strings.Join(s, ",")
	}
	for _, c := range []struct {
		a, b []*Rule
		want string
	}{
		{[]*Rule{r[0], r[2]}, []*Rule{r[1], r[3]}, "role:a,role:b,rule[0],rule[1]"},
		{[]*Rule{r[2]}, []*Rule{r[0]}, "role:a,rule[0]"},
		{[]*Rule{r[3], r[1]}, nil, "rule[1],role:b"},
		{nil, []*Rule{r[3], r[0]}, "role:a,rule[1]"},
		{[]*Rule{r[0], r[1]}, []*Rule{r[1]}, "role:a,role:b"},
	} {
		got := p.UnionRules(c.a, c.b)
		if names(got) != c.want {
			t.Errorf("UnionRules(%s, %s) = %s, want %s", names(c.a), names(c.b), names(got), c.want)
		}
	}
	a := []*Rule{r[1]}
	if got := p.UnionRules(a, []*Rule{r[1]}); &got[0] != &a[0] {
		t.Error("UnionRules copied a, which b does not add to")
	}
}
