package policy

import (
	"fmt"
	"reflect"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"testing"
)

// Helpers shared by decode_test.go, extends_test.go, envelope_test.go and
// fuzz_test.go carry the prefix cf.

// cfParse parses a policy and fails the test on any error.
func cfParse(t testing.TB, src string) *Policy {
	t.Helper()
	p, errs := ParsePolicy([]byte(src), Options{})
	if len(errs) > 0 {
		t.Fatalf("ParsePolicy(%q) failed:\n%v", src, errs)
	}
	if p == nil {
		t.Fatalf("ParsePolicy(%q) returned neither a policy nor errors", src)
	}
	return p
}

// cfErrors parses a policy that must be invalid and returns its errors.
func cfErrors(t testing.TB, src string) Errors {
	t.Helper()
	p, errs := cfCatch(t, func() (*Policy, Errors) { return ParsePolicy([]byte(src), Options{}) })
	if len(errs) == 0 {
		name := "<nil>"
		if p != nil {
			name = p.Name
		}
		t.Fatalf("ParsePolicy(%q) succeeded (policy %q), want errors", src, name)
	}
	if p != nil {
		t.Errorf("ParsePolicy(%q) returned a policy together with errors", src)
	}
	return errs
}

// cfCatch runs f and turns a panic into a test failure, so that one bad
// input does not take down every other test of the package.
func cfCatch[T any](t testing.TB, f func() (T, Errors)) (out T, errs Errors) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return f()
}

func cfPaths(errs Errors) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Path
	}
	return out
}

// cfYAMLFlow makes ParseDocument read a JSON text with the YAML reader
// (YAML flow style is a superset of JSON): the first non-blank character is
// then '#', not '{'.
func cfYAMLFlow(src string) string { return "# yaml\n" + src + "\n" }

// cfSameJSON compares a document with the JSON text want by value (object
// key order ignored, list order kept).
func cfSameJSON(t testing.TB, what string, got *Value, want string) {
	t.Helper()
	w, err := ParseJSON([]byte(want))
	if err != nil {
		t.Fatalf("%s: bad expected JSON %q: %v", what, want, err)
	}
	if !reflect.DeepEqual(got.ToAny(), w.ToAny()) {
		t.Errorf("%s:\n got  %s\n want %s", what, got.JSON(""), w.JSON(""))
	}
}

func cfGlobs(t testing.TB, what string, g *GlobList, want ...string) {
	t.Helper()
	if g == nil {
		t.Errorf("%s = nil, want %q", what, want)
		return
	}
	if got := g.Patterns(); !slices.Equal(got, want) {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

func cfEmptyGlobs(t testing.TB, what string, g *GlobList) {
	t.Helper()
	if g == nil {
		t.Errorf("%s = nil (null), want an empty non-nil list", what)
		return
	}
	if g.Len() != 0 || g.Match("") || g.Match("x") {
		t.Errorf("%s = %q, want empty", what, g.Patterns())
	}
}

func cfCaps(cs ...Capability) CapabilitySet {
	var s CapabilitySet
	for _, c := range cs {
		s = s.With(c)
	}
	return s
}

func cfKinds(ks ...Kind) KindSet {
	var s KindSet
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

func cfRuleNames(rs []*Rule) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Name
	}
	return out
}

func cfEntryIDs(es []TransformEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Type + ":" + e.ID
	}
	return out
}

// cfCheckDefaults checks every documented default of manual 6.1, 6.2 and 6.6
// (plus vault.max_entries of manual 6).
func cfCheckDefaults(t *testing.T, p *Policy) {
	t.Helper()
	if p.Name != "custom" {
		t.Errorf("name = %q, want \"custom\"", p.Name)
	}
	if p.Description != "" {
		t.Errorf("description = %q, want \"\"", p.Description)
	}
	if !p.HideDenied {
		t.Error("hide_denied = false, want true")
	}
	if !p.HonorHints {
		t.Error("honor_hints = false, want true")
	}
	if p.Audit {
		t.Error("audit = true, want false")
	}
	if p.AuditSize != 1000 {
		t.Errorf("audit_size = %d, want 1000", p.AuditSize)
	}
	a := &p.Access
	for name, g := range map[string]*GlobList{
		"allow_tools": a.AllowTools, "allow_resources": a.AllowResources,
		"allow_prompts": a.AllowPrompts, "allow_categories": a.AllowCategories,
	} {
		if g != nil {
			t.Errorf("%s = %q, want nil (null = all)", name, g.Patterns())
		}
	}
	cfEmptyGlobs(t, "deny_tools", a.DenyTools)
	cfEmptyGlobs(t, "deny_resources", a.DenyResources)
	cfEmptyGlobs(t, "deny_prompts", a.DenyPrompts)
	cfEmptyGlobs(t, "deny_categories", a.DenyCategories)
	if a.AllowCapabilities != 0 || a.DenyCapabilities != 0 {
		t.Errorf("capabilities allow=%v deny=%v, want none", a.AllowCapabilities, a.DenyCapabilities)
	}
	if a.MaxSensitivity != SensitivityUnset {
		t.Errorf("max_sensitivity = %v, want null", a.MaxSensitivity)
	}
	if len(p.Transforms) != 0 || len(p.InputTransforms) != 0 {
		t.Errorf("transforms = %v / %v, want []", p.Transforms, p.InputTransforms)
	}
	if p.TransformOptions == nil || p.TransformOptions.Kind != ObjectValue || len(p.TransformOptions.Object) != 0 {
		t.Errorf("transform_options = %v, want {}", p.TransformOptions.JSON(""))
	}
	if len(p.Detectors) != 0 || len(p.DisabledDetectors) != 0 {
		t.Errorf("detectors = %v, disabled = %v, want []", p.Detectors, p.DisabledDetectors)
	}
	if len(p.Rules) != 0 || p.Roles != 0 || len(p.RateLimits) != 0 {
		t.Errorf("rules = %v, roles = %d, rate_limits = %v, want none", cfRuleNames(p.Rules), p.Roles, p.RateLimits)
	}
	want := VaultConfig{KeyEnv: "CLOUDG_MCP_VAULT_KEY", Scope: VaultGlobal, Encrypt: true, MaxEntries: 100000}
	if !reflect.DeepEqual(p.Vault, want) {
		t.Errorf("vault = %+v, want %+v", p.Vault, want)
	}
}

func TestDecodeDefaults(t *testing.T) {
	for _, src := range []string{
		`{}`,
		`{"extends": null}`,
		"extends: null\n",
		"extends: ~\n",
		"# comment\n{}\n",
		`{"vault": {}}`,
		"vault: {}\n",
	} {
		t.Run(src, func(t *testing.T) {
			cfCheckDefaults(t, cfParse(t, src))
		})
	}
}

// cfFullJSON and cfFullYAML set every key of manual 6.1-6.6 (and 12.5) to a
// non-default value; cfCheckFull checks the decoded policy.
const cfFullJSON = `{
  "name": "team",
  "description": "Team policy",
  "extends": null,
  "hide_denied": false,
  "honor_hints": false,
  "audit": true,
  "audit_size": 0,
  "allow_tools": ["get_*", "!get_secret*"],
  "deny_tools": ["delete_*"],
  "allow_resources": ["file:///pub/*"],
  "deny_resources": ["file:///etc/*"],
  "allow_prompts": [],
  "deny_prompts": ["admin_*"],
  "allow_categories": ["*"],
  "deny_categories": ["billing"],
  "allow_capabilities": ["read_fs"],
  "deny_capabilities": ["exec", "write_fs"],
  "max_sensitivity": "internal",
  "transforms": [
    "redact",
    {"type": "mask", "id": "cards", "options": {"detectors": ["credit_card"], "keep_last": 2, "char": "#"}}
  ],
  "input_transforms": [
    {"type": "pseudonymize", "id": "pii_in", "options": {"detectors": ["@pii", "employee_id"]}}
  ],
  "transform_options": {
    "redact": {"placeholder": "<{label}>"},
    "cards": {"keep_last": 3}
  },
  "detectors": [
    {"name": "employee_id", "pattern": "EMP-(\\d{6})", "label": "EMPLOYEE", "sensitivity": "restricted",
     "group": 1, "validate": "luhn", "keywords": ["employee", "staff"], "window": 16, "case_insensitive": true},
    {"name": "ticket", "pattern": "T-\\d+"}
  ],
  "disabled_detectors": ["phone", "ticket"],
  "roles": {
    "admin": {"allow_tools": ["*"], "allow_capabilities": ["exec"], "max_sensitivity": "restricted"},
    "auditor": {"name": "auditors", "description": "read only", "match": {"principals": ["*@corp.com"]}}
  },
  "rules": [
    {
      "name": "finance",
      "description": "finance tools",
      "match": {
        "roles": ["finance", "*"],
        "principals": ["svc-*"],
        "names": ["fin_*"],
        "categories": ["finance"],
        "tags": ["pii"],
        "kinds": ["tool", "resource"],
        "sensitivity": ["confidential", "restricted"],
        "capabilities": ["read_state"]
      },
      "allow_tools": ["fin_*"],
      "deny_tools": ["fin_delete"],
      "allow_resources": null,
      "deny_resources": [],
      "allow_prompts": ["p"],
      "deny_prompts": ["q"],
      "allow_categories": ["finance"],
      "deny_categories": ["hr"],
      "allow_capabilities": ["read_state"],
      "deny_capabilities": ["reveal"],
      "max_sensitivity": "restricted",
      "transforms": [{"type": "hash", "id": "h", "options": {"length": 8}}],
      "transforms_mode": "replace",
      "transform_options": {"h": {"length": 12}, "redact": {"placeholder": "x"}},
      "input_transforms": ["truncate"],
      "rate_limits": [{"rate": 2.5, "per": "second"}],
      "honor_hints": false
    },
    {"match": {"kinds": ["prompt"]}, "transforms_mode": "prepend"}
  ],
  "rate_limits": [
    {"rate": 10, "per": "hour", "burst": 20, "scope": "global", "tools": ["search_*"], "kinds": ["tool", "completion"]},
    {"rate": 0.5}
  ],
  "vault": {
    "key": "s3cr3t-key",
    "key_env": "MY_KEY",
    "scope": "principal",
    "ttl_seconds": 86400,
    "path": "/var/lib/vault.json",
    "autosave": true,
    "encrypt": false,
    "max_entries": 5000
  }
}`

const cfFullYAML = `# every key of seed section 6
name: team
description: Team policy
extends: null
hide_denied: false
honor_hints: false
audit: true
audit_size: 0
allow_tools: ["get_*", "!get_secret*"]
deny_tools: [delete_*]
allow_resources: ["file:///pub/*"]
deny_resources: ["file:///etc/*"]
allow_prompts: []
deny_prompts: [admin_*]
allow_categories: ["*"]
deny_categories: [billing]
allow_capabilities: [read_fs]
deny_capabilities: [exec, write_fs]
max_sensitivity: internal
transforms:
  - redact
  - type: mask
    id: cards
    options:
      detectors: [credit_card]
      keep_last: 2
      char: "#"
input_transforms:
  - {type: pseudonymize, id: pii_in, options: {detectors: ["@pii", employee_id]}}
transform_options:
  redact:
    placeholder: "<{label}>"
  cards: {keep_last: 3}
detectors:
  - name: employee_id
    pattern: 'EMP-(\d{6})'
    label: EMPLOYEE
    sensitivity: restricted
    group: 1
    validate: luhn
    keywords: [employee, staff]
    window: 16
    case_insensitive: true
  - name: ticket
    pattern: 'T-\d+'
disabled_detectors:
  - phone
  - ticket
roles:
  admin:
    allow_tools: ["*"]
    allow_capabilities: [exec]
    max_sensitivity: restricted
  auditor:
    name: auditors
    description: read only
    match:
      principals: ["*@corp.com"]
rules:
  - name: finance
    description: finance tools
    match:
      roles: [finance, "*"]
      principals: [svc-*]
      names: [fin_*]
      categories: [finance]
      tags: [pii]
      kinds: [tool, resource]
      sensitivity: [confidential, restricted]
      capabilities: [read_state]
    allow_tools: [fin_*]
    deny_tools: [fin_delete]
    allow_resources: ~
    deny_resources: []
    allow_prompts: [p]
    deny_prompts: [q]
    allow_categories: [finance]
    deny_categories: [hr]
    allow_capabilities: [read_state]
    deny_capabilities: [reveal]
    max_sensitivity: restricted
    transforms:
      - {type: hash, id: h, options: {length: 8}}
    transforms_mode: replace
    transform_options:
      h: {length: 12}
      redact: {placeholder: x}
    input_transforms: [truncate]
    rate_limits:
      - rate: 2.5
        per: second
    honor_hints: false
  - match: {kinds: [prompt]}
    transforms_mode: prepend
rate_limits:
  - rate: 10
    per: hour
    burst: 20
    scope: global
    tools: [search_*]
    kinds: [tool, completion]
  - rate: 0.5
vault:
  key: s3cr3t-key
  key_env: MY_KEY
  scope: principal
  ttl_seconds: 86400
  path: /var/lib/vault.json
  autosave: true
  encrypt: false
  max_entries: 5000
`

func cfCheckFull(t *testing.T, p *Policy) {
	t.Helper()
	if p.Name != "team" || p.Description != "Team policy" {
		t.Errorf("name/description = %q/%q", p.Name, p.Description)
	}
	if p.HideDenied || p.HonorHints || !p.Audit || p.AuditSize != 0 {
		t.Errorf("hide_denied=%v honor_hints=%v audit=%v audit_size=%d, want false false true 0",
			p.HideDenied, p.HonorHints, p.Audit, p.AuditSize)
	}
	a := &p.Access
	cfGlobs(t, "allow_tools", a.AllowTools, "get_*", "!get_secret*")
	cfGlobs(t, "deny_tools", a.DenyTools, "delete_*")
	cfGlobs(t, "allow_resources", a.AllowResources, "file:///pub/*")
	cfGlobs(t, "deny_resources", a.DenyResources, "file:///etc/*")
	cfEmptyGlobs(t, "allow_prompts", a.AllowPrompts)
	cfGlobs(t, "deny_prompts", a.DenyPrompts, "admin_*")
	cfGlobs(t, "allow_categories", a.AllowCategories, "*")
	cfGlobs(t, "deny_categories", a.DenyCategories, "billing")
	if !a.AllowTools.Match("get_user") || a.AllowTools.Match("get_secret_key") {
		t.Error("allow_tools does not apply the negation of seed 6.7")
	}
	if want := cfCaps(Exec, WriteFS); a.DenyCapabilities != want {
		t.Errorf("deny_capabilities = %v, want %v", a.DenyCapabilities, want)
	}
	if a.MaxSensitivity != Internal {
		t.Errorf("max_sensitivity = %v, want internal", a.MaxSensitivity)
	}
	if got, want := cfEntryIDs(p.Transforms), []string{"redact:redact", "mask:cards"}; !slices.Equal(got, want) {
		t.Errorf("transforms = %v, want %v", got, want)
	} else {
		cfSameJSON(t, "transforms[0].options", p.Transforms[0].Options, `{}`)
		cfSameJSON(t, "transforms[1].options", p.Transforms[1].Options, `{"detectors": ["credit_card"], "keep_last": 2, "char": "#"}`)
	}
	if got, want := cfEntryIDs(p.InputTransforms), []string{"pseudonymise:pii_in"}; !slices.Equal(got, want) {
		t.Errorf("input_transforms = %v, want %v (pseudonymize is an alias)", got, want)
	}
	cfSameJSON(t, "transform_options", p.TransformOptions, `{"redact": {"placeholder": "<{label}>"}, "cards": {"keep_last": 3}}`)

	wantDet := []DetectorConfig{
		{Name: "employee_id", Pattern: `EMP-(\d{6})`, Label: "EMPLOYEE", Sensitivity: Restricted, Group: 1,
			Validate: "luhn", Keywords: []string{"employee", "staff"}, Window: 16, CaseInsensitive: true},
		{Name: "ticket", Pattern: `T-\d+`, Label: "TICKET", Sensitivity: Confidential, Validate: "none", Window: 32},
	}
	if !reflect.DeepEqual(p.Detectors, wantDet) {
		t.Errorf("detectors =\n %+v\nwant\n %+v", p.Detectors, wantDet)
	}
	if !slices.Equal(p.DisabledDetectors, []string{"phone", "ticket"}) {
		t.Errorf("disabled_detectors = %v", p.DisabledDetectors)
	}

	if got, want := cfRuleNames(p.Rules), []string{"role:admin", "auditors", "finance", "rule[1]"}; !slices.Equal(got, want) {
		t.Fatalf("rules = %v, want %v", got, want)
	}
	if p.Roles != 2 {
		t.Errorf("Roles = %d, want 2", p.Roles)
	}
	for i, r := range p.Rules {
		if r.Index != i {
			t.Errorf("rules[%d].Index = %d", i, r.Index)
		}
	}
	admin, auditor, fin, last := p.Rules[0], p.Rules[1], p.Rules[2], p.Rules[3]
	if admin.Role != "admin" || !slices.Contains(admin.Match.Roles, "admin") || admin.Path != "roles.admin" {
		t.Errorf("admin role: Role=%q Match.Roles=%v Path=%q", admin.Role, admin.Match.Roles, admin.Path)
	}
	cfGlobs(t, "roles.admin.allow_tools", admin.Access.AllowTools, "*")
	if admin.Access.AllowCapabilities != cfCaps(Exec) || admin.Access.MaxSensitivity != Restricted {
		t.Errorf("admin: allow_capabilities=%v max_sensitivity=%v", admin.Access.AllowCapabilities, admin.Access.MaxSensitivity)
	}
	if auditor.Role != "auditor" || auditor.Description != "read only" || !slices.Contains(auditor.Match.Roles, "auditor") {
		t.Errorf("auditor role: Role=%q Description=%q Match.Roles=%v", auditor.Role, auditor.Description, auditor.Match.Roles)
	}
	cfGlobs(t, "roles.auditor.match.principals", auditor.Match.Principals, "*@corp.com")

	if fin.Description != "finance tools" || fin.Role != "" || fin.Path != "rules[0]" {
		t.Errorf("finance rule: Description=%q Role=%q Path=%q", fin.Description, fin.Role, fin.Path)
	}
	m := &fin.Match
	if !slices.Equal(m.Roles, []string{"finance", "*"}) || !m.AnyRole {
		t.Errorf("match.roles = %v AnyRole=%v", m.Roles, m.AnyRole)
	}
	cfGlobs(t, "match.principals", m.Principals, "svc-*")
	cfGlobs(t, "match.names", m.Names, "fin_*")
	cfGlobs(t, "match.categories", m.Categories, "finance")
	if !slices.Equal(m.Tags, []string{"pii"}) {
		t.Errorf("match.tags = %v", m.Tags)
	}
	if m.Kinds != cfKinds(KindTool, KindResource) {
		t.Errorf("match.kinds = %b", m.Kinds)
	}
	if !m.Sensitivities.Has(Confidential) || !m.Sensitivities.Has(Restricted) || m.Sensitivities.Has(Public) || m.Sensitivities.Has(Internal) {
		t.Errorf("match.sensitivity = %b", m.Sensitivities)
	}
	if m.Capabilities != cfCaps(ReadState) {
		t.Errorf("match.capabilities = %v", m.Capabilities)
	}
	fa := &fin.Access
	cfGlobs(t, "rule allow_tools", fa.AllowTools, "fin_*")
	cfGlobs(t, "rule deny_tools", fa.DenyTools, "fin_delete")
	if fa.AllowResources != nil {
		t.Errorf("rule allow_resources = %q, want nil", fa.AllowResources.Patterns())
	}
	cfEmptyGlobs(t, "rule deny_resources", fa.DenyResources)
	cfGlobs(t, "rule allow_prompts", fa.AllowPrompts, "p")
	cfGlobs(t, "rule deny_prompts", fa.DenyPrompts, "q")
	cfGlobs(t, "rule allow_categories", fa.AllowCategories, "finance")
	cfGlobs(t, "rule deny_categories", fa.DenyCategories, "hr")
	if fa.AllowCapabilities != cfCaps(ReadState) || fa.DenyCapabilities != cfCaps(Reveal) || fa.MaxSensitivity != Restricted {
		t.Errorf("rule capabilities %v/%v max_sensitivity %v", fa.AllowCapabilities, fa.DenyCapabilities, fa.MaxSensitivity)
	}
	if got := cfEntryIDs(fin.Transforms); !slices.Equal(got, []string{"hash:h"}) {
		t.Errorf("rule transforms = %v", got)
	}
	if fin.TransformsMode != ModeReplace || last.TransformsMode != ModePrepend {
		t.Errorf("transforms_mode = %v, %v", fin.TransformsMode, last.TransformsMode)
	}
	cfSameJSON(t, "rule transform_options", fin.TransformOptions, `{"h": {"length": 12}, "redact": {"placeholder": "x"}}`)
	if got := cfEntryIDs(fin.InputTransforms); !slices.Equal(got, []string{"truncate:truncate"}) {
		t.Errorf("rule input_transforms = %v", got)
	}
	if len(fin.RateLimits) != 1 {
		t.Fatalf("rule rate_limits = %v", fin.RateLimits)
	}
	rl := fin.RateLimits[0]
	if rl.Rate != 2.5 || rl.Per != PerSecond || rl.Burst != 3 || rl.Path != "rules[0].rate_limits[0]" {
		t.Errorf("rule rate limit = %+v", rl)
	}
	if fin.HonorHints == nil || *fin.HonorHints {
		t.Errorf("rule honor_hints = %v, want false", fin.HonorHints)
	}
	if last.HonorHints != nil || last.Match.Kinds != cfKinds(KindPrompt) {
		t.Errorf("rules[1]: honor_hints=%v kinds=%b", last.HonorHints, last.Match.Kinds)
	}

	if len(p.RateLimits) != 2 {
		t.Fatalf("rate_limits = %+v", p.RateLimits)
	}
	r0, r1 := p.RateLimits[0], p.RateLimits[1]
	if r0.Rate != 10 || r0.Per != PerHour || r0.Burst != 20 || r0.Scope != ScopeGlobal || r0.Kinds != cfKinds(KindTool, KindCompletion) || r0.Path != "rate_limits[0]" {
		t.Errorf("rate_limits[0] = %+v", r0)
	}
	cfGlobs(t, "rate_limits[0].tools", r0.Tools, "search_*")
	if r1.Rate != 0.5 || r1.Per != PerMinute || r1.Burst != 1 || r1.Scope != ScopePrincipalTool || r1.Kinds != 0 || r1.Path != "rate_limits[1]" {
		t.Errorf("rate_limits[1] = %+v", r1)
	}
	cfGlobs(t, "rate_limits[1].tools", r1.Tools, "*")

	wantVault := VaultConfig{Key: "s3cr3t-key", KeyEnv: "MY_KEY", Scope: VaultPerPrincipal, TTLSeconds: 86400,
		Path: "/var/lib/vault.json", Autosave: true, Encrypt: false, MaxEntries: 5000}
	if !reflect.DeepEqual(p.Vault, wantVault) {
		t.Errorf("vault = %+v, want %+v", p.Vault, wantVault)
	}
}

func TestDecodeEveryKey(t *testing.T) {
	t.Run("json", func(t *testing.T) { cfCheckFull(t, cfParse(t, cfFullJSON)) })
	t.Run("yaml", func(t *testing.T) { cfCheckFull(t, cfParse(t, cfFullYAML)) })
	t.Run("yaml-flow", func(t *testing.T) { cfCheckFull(t, cfParse(t, cfYAMLFlow(cfFullJSON))) })
	t.Run("same-document", func(t *testing.T) {
		j, y := cfParse(t, cfFullJSON), cfParse(t, cfFullYAML)
		cfSameJSON(t, "YAML document vs JSON document", y.Document(), j.Document().JSON(""))
	})
}

// TestDecodeKeyDefaults sets one key at a time and checks that it is read
// and that everything else keeps its default, in JSON and in YAML.
func TestDecodeKeyDefaults(t *testing.T) {
	cases := []struct {
		src   string
		check func(p *Policy) bool
	}{
		{`{"name": "x"}`, func(p *Policy) bool { return p.Name == "x" }},
		{`{"description": "d"}`, func(p *Policy) bool { return p.Description == "d" }},
		{`{"hide_denied": false}`, func(p *Policy) bool { return !p.HideDenied }},
		{`{"hide_denied": true}`, func(p *Policy) bool { return p.HideDenied }},
		{`{"honor_hints": false}`, func(p *Policy) bool { return !p.HonorHints }},
		{`{"audit": true}`, func(p *Policy) bool { return p.Audit }},
		{`{"audit_size": 0}`, func(p *Policy) bool { return p.AuditSize == 0 }},
		{`{"audit_size": 7}`, func(p *Policy) bool { return p.AuditSize == 7 }},
		{`{"audit_size": 7.0}`, func(p *Policy) bool { return p.AuditSize == 7 }},
		{`{"allow_tools": null}`, func(p *Policy) bool { return p.Access.AllowTools == nil }},
		{`{"allow_tools": []}`, func(p *Policy) bool { return p.Access.AllowTools != nil && p.Access.AllowTools.Len() == 0 }},
		{`{"allow_resources": []}`, func(p *Policy) bool { return p.Access.AllowResources != nil && p.Access.AllowResources.Len() == 0 }},
		{`{"allow_prompts": ["a"]}`, func(p *Policy) bool { return p.Access.AllowPrompts.Match("a") }},
		{`{"allow_categories": null}`, func(p *Policy) bool { return p.Access.AllowCategories == nil }},
		{`{"deny_tools": []}`, func(p *Policy) bool { return p.Access.DenyTools != nil && p.Access.DenyTools.Len() == 0 }},
		{`{"deny_resources": ["r"]}`, func(p *Policy) bool { return p.Access.DenyResources.Match("r") }},
		{`{"deny_prompts": ["p"]}`, func(p *Policy) bool { return p.Access.DenyPrompts.Match("p") }},
		{`{"deny_categories": ["*"]}`, func(p *Policy) bool { return p.Access.DenyCategories.Match("") }},
		{`{"deny_capabilities": []}`, func(p *Policy) bool { return p.Access.DenyCapabilities == 0 }},
		{`{"deny_capabilities": ["read_state", "write_state", "read_fs", "write_fs", "cloud_access", "exec", "reveal"]}`,
			func(p *Policy) bool {
				return p.Access.DenyCapabilities == cfCaps(ReadState, WriteState, ReadFS, WriteFS, CloudAccess, Exec, Reveal)
			}},
		{`{"max_sensitivity": null}`, func(p *Policy) bool { return p.Access.MaxSensitivity == SensitivityUnset }},
		{`{"max_sensitivity": "public"}`, func(p *Policy) bool { return p.Access.MaxSensitivity == Public }},
		{`{"max_sensitivity": "confidential"}`, func(p *Policy) bool { return p.Access.MaxSensitivity == Confidential }},
		{`{"max_sensitivity": "restricted"}`, func(p *Policy) bool { return p.Access.MaxSensitivity == Restricted }},
		{`{"transforms": []}`, func(p *Policy) bool { return len(p.Transforms) == 0 }},
		{`{"transforms": ["redact", "pseudonymise", "mask", "hash", "truncate", "project", "drop_binary", "block", "detect", "annotate"]}`,
			func(p *Policy) bool { return len(p.Transforms) == 10 && p.Transforms[9].ID == "annotate" }},
		{`{"transforms": ["pseudonymize"]}`, func(p *Policy) bool {
			return len(p.Transforms) == 1 && p.Transforms[0].Type == "pseudonymise" && p.Transforms[0].ID == "pseudonymise"
		}},
		{`{"transforms": [{"type": "redact"}]}`, func(p *Policy) bool {
			return p.Transforms[0].ID == "redact" && p.Transforms[0].Options.Kind == ObjectValue
		}},
		{`{"input_transforms": ["redact"]}`, func(p *Policy) bool { return len(p.InputTransforms) == 1 }},
		{`{"transform_options": {}}`, func(p *Policy) bool { return len(p.TransformOptions.Object) == 0 }},
		{`{"transform_options": {"pseudonymize": {"detectors": ["email"]}}}`, func(p *Policy) bool { return p.TransformOptions.Get("pseudonymize") != nil }},
		{`{"detectors": []}`, func(p *Policy) bool { return len(p.Detectors) == 0 }},
		{`{"detectors": [{"name": "d", "pattern": "x", "group": 0}]}`, func(p *Policy) bool { return p.Detectors[0].Group == 0 }},
		{`{"detectors": [{"name": "d", "pattern": "(?P<v>x)", "group": "v"}]}`, func(p *Policy) bool {
			return p.Detectors[0].Group == 1 && p.Detectors[0].GroupName == "v"
		}},
		{`{"detectors": [{"name": "d2_x", "pattern": "x", "validate": "mod97"}]}`, func(p *Policy) bool {
			return p.Detectors[0].Validate == "mod97" && p.Detectors[0].Label == "D2_X"
		}},
		{`{"detectors": [{"name": "d", "pattern": "x", "validate": "none"}]}`, func(p *Policy) bool { return p.Detectors[0].Validate == "none" }},
		{`{"disabled_detectors": []}`, func(p *Policy) bool { return len(p.DisabledDetectors) == 0 }},
		{`{"disabled_detectors": ["email", "generic_secret"]}`, func(p *Policy) bool { return len(p.DisabledDetectors) == 2 }},
		{`{"roles": {}}`, func(p *Policy) bool { return len(p.Rules) == 0 && p.Roles == 0 }},
		{`{"rules": []}`, func(p *Policy) bool { return len(p.Rules) == 0 }},
		{`{"rate_limits": []}`, func(p *Policy) bool { return len(p.RateLimits) == 0 }},
		{`{"vault": {"key": null}}`, func(p *Policy) bool { return p.Vault.Key == "" }},
		{`{"vault": {"key": "k"}}`, func(p *Policy) bool { return p.Vault.Key == "k" }},
		{`{"vault": {"key_env": "OTHER_KEY"}}`, func(p *Policy) bool { return p.Vault.KeyEnv == "OTHER_KEY" }},
		{`{"vault": {"scope": "global"}}`, func(p *Policy) bool { return p.Vault.Scope == VaultGlobal }},
		{`{"vault": {"scope": "principal"}}`, func(p *Policy) bool { return p.Vault.Scope == VaultPerPrincipal }},
		{`{"vault": {"ttl_seconds": null}}`, func(p *Policy) bool { return p.Vault.TTLSeconds == 0 }},
		{`{"vault": {"ttl_seconds": 0.25}}`, func(p *Policy) bool { return p.Vault.TTLSeconds == 0.25 }},
		{`{"vault": {"path": null}}`, func(p *Policy) bool { return p.Vault.Path == "" }},
		{`{"vault": {"path": "v.json"}}`, func(p *Policy) bool { return p.Vault.Path == "v.json" }},
		{`{"vault": {"autosave": true}}`, func(p *Policy) bool { return p.Vault.Autosave }},
		{`{"vault": {"encrypt": false}}`, func(p *Policy) bool { return !p.Vault.Encrypt }},
		{`{"vault": {"max_entries": 1}}`, func(p *Policy) bool { return p.Vault.MaxEntries == 1 }},
		{`{"vault": {}}`, func(p *Policy) bool { return p.Vault.Mode == VaultAuto && p.Vault.PreviousKeysEnv == nil }},
		{`{"vault": {"mode": "auto"}}`, func(p *Policy) bool { return p.Vault.Mode == VaultAuto }},
		{`{"vault": {"mode": "store"}}`, func(p *Policy) bool { return p.Vault.Mode == VaultStore }},
		{`{"vault": {"mode": "sealed"}}`, func(p *Policy) bool { return p.Vault.Mode == VaultSealed }},
		{`{"vault": {"previous_keys_env": []}}`, func(p *Policy) bool { return p.Vault.PreviousKeysEnv != nil && len(p.Vault.PreviousKeysEnv) == 0 }},
		{`{"vault": {"previous_keys_env": ["OLD_KEY", "OLDER_KEY"]}}`, func(p *Policy) bool {
			return slices.Equal(p.Vault.PreviousKeysEnv, []string{"OLD_KEY", "OLDER_KEY"})
		}},
	}
	for _, c := range cases {
		if c.check == nil {
			continue
		}
		for _, form := range []struct{ name, src string }{{"json", c.src}, {"yaml", cfYAMLFlow(c.src)}} {
			t.Run(form.name+" "+c.src, func(t *testing.T) {
				p := cfParse(t, form.src)
				if !c.check(p) {
					t.Errorf("%s: decoded value is wrong: %s", c.src, p.Document().JSON(""))
				}
			})
		}
	}
}

// TestDecodeRuleDefaults covers manual 6.3, 6.4 and 6.5 defaults.
func TestDecodeRuleDefaults(t *testing.T) {
	for _, src := range []string{
		`{"rules": [{}], "roles": {"r": {}}, "rate_limits": [{"rate": 3}]}`,
		"roles:\n  r: {}\nrules:\n  - {}\nrate_limits:\n  - rate: 3\n",
	} {
		p := cfParse(t, src)
		if len(p.Rules) != 2 {
			t.Fatalf("%q: rules = %v", src, cfRuleNames(p.Rules))
		}
		for _, r := range p.Rules {
			if r.Description != "" || r.TransformsMode != ModeAppend || r.HonorHints != nil {
				t.Errorf("%s: description=%q mode=%v honor_hints=%v, want \"\" append nil", r.Name, r.Description, r.TransformsMode, r.HonorHints)
			}
			a := &r.Access
			if a.AllowTools != nil || a.AllowResources != nil || a.AllowPrompts != nil || a.AllowCategories != nil {
				t.Errorf("%s: rule allow lists should default to null", r.Name)
			}
			for _, g := range []*GlobList{a.DenyTools, a.DenyResources, a.DenyPrompts, a.DenyCategories} {
				if g.Match("x") || g.Match("") {
					t.Errorf("%s: rule deny lists should default to []", r.Name)
				}
			}
			if a.AllowCapabilities != 0 || a.DenyCapabilities != 0 || a.MaxSensitivity != SensitivityUnset {
				t.Errorf("%s: capabilities/sensitivity not defaulted", r.Name)
			}
			if len(r.Transforms) != 0 || len(r.InputTransforms) != 0 || len(r.RateLimits) != 0 {
				t.Errorf("%s: lists not empty", r.Name)
			}
			if r.TransformOptions == nil || len(r.TransformOptions.Object) != 0 {
				t.Errorf("%s: transform_options = %v, want {}", r.Name, r.TransformOptions.JSON(""))
			}
			m := &r.Match
			if m.Principals != nil || m.Names != nil || m.Categories != nil || len(m.Tags) != 0 ||
				m.Kinds != 0 || m.Sensitivities != 0 || m.Capabilities != 0 {
				t.Errorf("%s: match should default to everything: %+v", r.Name, m)
			}
		}
		if r := p.Rules[1]; len(r.Match.Roles) != 0 || r.Match.AnyRole {
			t.Errorf("rule match.roles = %v, want none", r.Match.Roles)
		}
		l := p.RateLimits[0]
		if l.Per != PerMinute || l.Scope != ScopePrincipalTool || l.Burst != 3 || l.Kinds != 0 {
			t.Errorf("rate limit defaults = %+v", l)
		}
		cfGlobs(t, "rate limit tools", l.Tools, "*")
		if !l.Tools.Match("any/thing:at all") {
			t.Error(`default tools ["*"] should cover every name`)
		}
	}
	// Empty match lists mean "any".
	p := cfParse(t, `{"rules": [{"match": {"roles": [], "principals": [], "names": [], "categories": [], "tags": [], "kinds": [], "sensitivity": [], "capabilities": []}}]}`)
	m := &p.Rules[0].Match
	if len(m.Roles) != 0 || m.Principals != nil || m.Names != nil || m.Categories != nil || len(m.Tags) != 0 ||
		m.Kinds != 0 || m.Sensitivities != 0 || m.Capabilities != 0 {
		t.Errorf("empty match lists should mean any: %+v", m)
	}
}

func TestDecodeBurstDefault(t *testing.T) {
	for _, c := range []struct {
		rate  string
		burst int
	}{
		{"0.001", 1}, {"0.5", 1}, {"1", 1}, {"1.01", 2}, {"2.5", 3}, {"10", 10}, {"1000.5", 1001},
	} {
		for _, b := range []string{"", `, "burst": null`} {
			src := `{"rate_limits": [{"rate": ` + c.rate + b + `}]}`
			p := cfParse(t, src)
			if got := p.RateLimits[0].Burst; got != c.burst {
				t.Errorf("%s: burst = %d, want max(1, ceil(rate)) = %d", src, got, c.burst)
			}
		}
	}
	p := cfParse(t, `{"rate_limits": [{"rate": 100, "burst": 1}, {"rate": 0.1, "burst": 50}]}`)
	if p.RateLimits[0].Burst != 1 || p.RateLimits[1].Burst != 50 {
		t.Errorf("explicit bursts = %d, %d, want 1, 50", p.RateLimits[0].Burst, p.RateLimits[1].Burst)
	}
	for _, per := range []string{"second", "minute", "hour", "day"} {
		p := cfParse(t, `{"rate_limits": [{"rate": 1, "per": "`+per+`"}]}`)
		if p.RateLimits[0].Per.String() != per {
			t.Errorf("per %s decoded as %v", per, p.RateLimits[0].Per)
		}
	}
	for _, scope := range []string{"principal", "tool", "principal_tool", "global"} {
		p := cfParse(t, `{"rate_limits": [{"rate": 1, "scope": "`+scope+`"}]}`)
		if p.RateLimits[0].Scope.String() != scope {
			t.Errorf("scope %s decoded as %v", scope, p.RateLimits[0].Scope)
		}
	}
	p = cfParse(t, `{"rate_limits": [{"rate": 1, "kinds": ["tool", "resource", "resource_template", "prompt", "completion"]}]}`)
	if p.RateLimits[0].Kinds != cfKinds(KindTool, KindResource, KindResourceTemplate, KindPrompt, KindCompletion) {
		t.Errorf("rate limit kinds = %b", p.RateLimits[0].Kinds)
	}
}

// TestDecodeDetectorDefaults: manual 12.5.
func TestDecodeDetectorDefaults(t *testing.T) {
	p := cfParse(t, `{"detectors": [{"name": "order_id", "pattern": "ORD-[0-9]+"}]}`)
	want := DetectorConfig{Name: "order_id", Pattern: "ORD-[0-9]+", Label: "ORDER_ID", Sensitivity: Confidential, Validate: "none", Window: 32}
	if !reflect.DeepEqual(p.Detectors[0], want) {
		t.Errorf("detector = %+v, want %+v", p.Detectors[0], want)
	}
	// A custom detector may be referenced by transforms and disabled.
	cfParse(t, `{"detectors": [{"name": "order_id", "pattern": "x"}], "disabled_detectors": ["order_id"],
		"transforms": [{"type": "redact", "options": {"detectors": ["order_id", "@pii", "@secrets", "email"]}}],
		"transform_options": {"redact": {"detectors": ["order_id"]}},
		"rules": [{"transforms": [{"type": "mask", "options": {"detectors": ["order_id"]}}]}]}`)
	// Every built-in detector name is known.
	for _, d := range BuiltinDetectors {
		cfParse(t, `{"disabled_detectors": ["`+d.Name+`"], "transforms": [{"type": "detect", "options": {"detectors": ["`+d.Name+`"]}}]}`)
	}
}

// TestDecodeTransformOptions checks the valid options of every type.
func TestDecodeTransformOptions(t *testing.T) {
	for _, src := range []string{
		`{"transforms": [{"type": "redact", "options": {"detectors": ["@pii"], "min_sensitivity": "restricted", "fields": ["a.b"], "exclude_fields": ["**.id"], "required": true, "placeholder": "[X]"}}]}`,
		`{"transforms": [{"type": "pseudonymise", "options": {"detectors": ["email"], "min_sensitivity": "public", "fields": ["*"], "exclude_fields": [], "required": false}}]}`,
		`{"transforms": [{"type": "mask", "options": {"keep_last": 0, "char": "•", "detectors": ["phone"]}}]}`,
		`{"transforms": [{"type": "hash", "options": {"length": 1, "detectors": ["email"]}}]}`,
		`{"transforms": [{"type": "truncate", "options": {"max_chars": 1, "fields": ["text"], "exclude_fields": ["id"], "required": true}}]}`,
		`{"transforms": [{"type": "project", "options": {"include": ["users.email", "a\\.b", "a\\*", "x.0.y", "**"], "exclude": ["users.*.ssn"], "required": true}}]}`,
		`{"transforms": [{"type": "drop_binary", "options": {"note": "[gone]", "required": true}}]}`,
		`{"transforms": [{"type": "block", "options": {"detectors": ["@secrets"], "min_sensitivity": "restricted"}}]}`,
		`{"transforms": [{"type": "detect", "options": {"fields": ["a"]}}]}`,
		`{"transforms": [{"type": "annotate", "options": {"exclude_fields": ["a"]}}]}`,
		// transform_options keyed by type or by id, at policy and rule level.
		`{"transforms": [{"type": "mask", "id": "cards"}], "transform_options": {"cards": {"keep_last": 2}, "mask": {"char": "x"}, "project": {"include": ["a"]}}}`,
		`{"rules": [{"transforms": [{"type": "hash", "id": "h"}], "transform_options": {"h": {"length": 4}}}], "transform_options": {"h": {"length": 5}}}`,
		`{"input_transforms": [{"type": "redact", "id": "in"}], "rules": [{"transform_options": {"in": {"placeholder": "?"}}}]}`,
	} {
		for _, form := range []string{src, cfYAMLFlow(src)} {
			cfParse(t, form)
		}
	}
}

type cfErrCase struct {
	name  string
	src   string
	paths []string
	// contains are substrings of the joined messages (the offending value
	// and what was expected).
	contains []string
	// full, when set, is the exact Error() of the whole list.
	full string
}

func cfRunErrCases(t *testing.T, cases []cfErrCase) {
	t.Helper()
	for _, c := range cases {
		// The policy's JSON Schema rejects it too.
		schemaAgrees(t, t.Name()+"/"+c.name, c.src)
		forms := []struct{ name, src string }{{"json", c.src}}
		if strings.HasPrefix(strings.TrimSpace(c.src), "{") {
			forms = append(forms, struct{ name, src string }{"yaml", cfYAMLFlow(c.src)})
		}
		for _, f := range forms {
			t.Run(c.name+"/"+f.name, func(t *testing.T) {
				errs := cfErrors(t, f.src)
				if got := cfPaths(errs); !slices.Equal(got, c.paths) {
					t.Errorf("%s\npaths = %q\nwant    %q\nerrors:\n%v", c.src, got, c.paths, errs)
				}
				msgs := errs.Error()
				for _, s := range c.contains {
					if !strings.Contains(msgs, s) {
						t.Errorf("%s\nerrors do not contain %q:\n%v", c.src, s, msgs)
					}
				}
				if c.full != "" && msgs != c.full {
					t.Errorf("%s\nError() = %q\nwant      %q", c.src, msgs, c.full)
				}
				for _, e := range errs {
					if e.Msg == "" {
						t.Errorf("error at %q has no message", e.Path)
					}
					if want := e.Path + ": " + e.Msg; e.Path == "" && e.Error() != e.Msg || e.Path != "" && e.Error() != want {
						t.Errorf("FieldError.Error() = %q, want \"path: message\"", e.Error())
					}
				}
			})
		}
		// The same policy inside an envelope: every path gains "policy.".
		if strings.HasPrefix(strings.TrimSpace(c.src), "{") {
			t.Run(c.name+"/envelope", func(t *testing.T) {
				_, errs := cfCatch(t, func() (*Envelope, Errors) {
					return ParseEnvelope([]byte(`{"policy": `+c.src+`}`), Options{})
				})
				want := make([]string, len(c.paths))
				for i, p := range c.paths {
					want[i] = joinPath("policy", p)
				}
				if got := cfPaths(errs); !slices.Equal(got, want) {
					t.Errorf("envelope paths = %q, want %q\n%v", got, want, errs)
				}
			})
		}
	}
}

func TestDecodeErrorsUnknownKeys(t *testing.T) {
	cases := []cfErrCase{
		{name: "top", src: `{"name": "x", "bogus": 1}`, paths: []string{"bogus"},
			contains: []string{`unknown key "bogus"`, "want one of", "allow_tools", "vault"}},
		{name: "top-typo", src: `{"hide_denid": true}`, paths: []string{"hide_denid"}, contains: []string{`"hide_denid"`, "hide_denied"}},
		{name: "rule", src: `{"rules": [{"bogus": 1}]}`, paths: []string{"rules[0].bogus"}, contains: []string{`unknown key "bogus"`, "transforms_mode"}},
		{name: "role", src: `{"roles": {"admin": {"bogus": 1}}}`, paths: []string{"roles.admin.bogus"}},
		{name: "match", src: `{"rules": [{"match": {"role": ["a"]}}]}`, paths: []string{"rules[0].match.role"},
			contains: []string{`unknown key "role"`, "roles, principals, names, categories, tags, kinds, sensitivity, capabilities"}},
		{name: "role-match", src: `{"roles": {"a": {"match": {"kind": ["tool"]}}}}`, paths: []string{"roles.a.match.kind"}},
		{name: "rate-limit", src: `{"rate_limits": [{"rate": 1, "window": 5}]}`, paths: []string{"rate_limits[0].window"},
			contains: []string{`unknown key "window"`, "rate, per, burst, scope, tools, kinds"}},
		{name: "rule-rate-limit", src: `{"rules": [{"rate_limits": [{"rate": 1, "bogus": 1}]}]}`, paths: []string{"rules[0].rate_limits[0].bogus"}},
		{name: "vault", src: `{"vault": {"keys": "x"}}`, paths: []string{"vault.keys"},
			contains: []string{`unknown key "keys"`, "key, key_env, scope, ttl_seconds, path, autosave, encrypt, max_entries"}},
		{name: "detector", src: `{"detectors": [{"name": "d", "pattern": "x", "regex": "y"}]}`, paths: []string{"detectors[0].regex"},
			contains: []string{`unknown key "regex"`, "case_insensitive"}},
		{name: "transform-entry", src: `{"transforms": [{"type": "redact", "option": {}}]}`, paths: []string{"transforms[0].option"},
			contains: []string{`unknown key "option"`, "type, id, options"}},
		{name: "input-transform-entry", src: `{"input_transforms": [{"type": "redact", "opts": {}}]}`, paths: []string{"input_transforms[0].opts"}},
		{name: "rule-transform-entry", src: `{"rules": [{"transforms": [{"type": "redact", "ID": "x"}]}]}`, paths: []string{"rules[0].transforms[0].ID"}},
		{name: "transform_options", src: `{"transform_options": {"redact": {"bogus": 1}}}`, paths: []string{"transform_options.redact.bogus"},
			contains: []string{`unknown option "bogus" for transform redact`}},
		{name: "rule-transform_options", src: `{"rules": [{"transform_options": {"mask": {"bogus": 1}}}]}`, paths: []string{"rules[0].transform_options.mask.bogus"}},
		{name: "option-of-other-type", src: `{"transforms": [{"type": "redact", "options": {"keep_last": 2}}]}`, paths: []string{"transforms[0].options.keep_last"},
			contains: []string{`unknown option "keep_last" for transform redact`, "placeholder"}},
		{name: "placeholder-on-project", src: `{"transforms": [{"type": "project", "options": {"placeholder": "x"}}]}`, paths: []string{"transforms[0].options.placeholder"}},
		{name: "detectors-on-truncate", src: `{"transforms": [{"type": "truncate", "options": {"detectors": ["email"]}}]}`, paths: []string{"transforms[0].options.detectors"}},
		{name: "include-on-redact", src: `{"transforms": [{"type": "redact", "options": {"include": ["a"]}}]}`, paths: []string{"transforms[0].options.include"}},
		{name: "max_chars-on-mask", src: `{"transforms": [{"type": "mask", "options": {"max_chars": 3}}]}`, paths: []string{"transforms[0].options.max_chars"}},
		{name: "option-by-id", src: `{"transforms": [{"type": "pseudonymise", "id": "pii"}], "transform_options": {"pii": {"placeholder": "x"}}}`,
			paths: []string{"transform_options.pii.placeholder"}, contains: []string{`unknown option "placeholder" for transform pseudonymise`}},
		{name: "alias-key", src: `{"transform_options": {"pseudonymize": {"keep_last": 1}}}`, paths: []string{"transform_options.pseudonymize.keep_last"}},
	}
	// The options of each transform type reject unknown keys.
	for _, tt := range TransformTypes {
		cases = append(cases, cfErrCase{
			name:     "options-" + tt.Name,
			src:      `{"transforms": [{"type": "` + tt.Name + `", "options": {"bogus": 1}}]}`,
			paths:    []string{"transforms[0].options.bogus"},
			contains: []string{`unknown option "bogus" for transform ` + tt.Name, "want one of"},
		}, cfErrCase{
			name:  "transform_options-" + tt.Name,
			src:   `{"transform_options": {"` + tt.Name + `": {"bogus": 1}}}`,
			paths: []string{"transform_options." + tt.Name + ".bogus"},
		})
	}
	cfRunErrCases(t, cases)
}

func TestDecodeErrorsTypes(t *testing.T) {
	cfRunErrCases(t, []cfErrCase{
		{name: "document-list", src: `[]`, paths: []string{""}, contains: []string{"want policy object or profile name, got list"}},
		{name: "document-number", src: `5`, paths: []string{""}},
		{name: "name", src: `{"name": 5}`, paths: []string{"name"}, full: `name: want string, got number 5`},
		{name: "description", src: `{"description": true}`, paths: []string{"description"}, contains: []string{"want string", "bool true"}},
		{name: "extends", src: `{"extends": 5}`, paths: []string{"extends"}, contains: []string{"number 5"}},
		{name: "extends-list", src: `{"extends": ["standard"]}`, paths: []string{"extends"}, contains: []string{"got list"}},
		{name: "hide_denied", src: `{"hide_denied": "yes"}`, paths: []string{"hide_denied"}, full: `hide_denied: want bool, got string "yes"`},
		{name: "honor_hints", src: `{"honor_hints": 1}`, paths: []string{"honor_hints"}, contains: []string{"want bool", "number 1"}},
		{name: "honor_hints-null", src: `{"honor_hints": null}`, paths: []string{"honor_hints"}, contains: []string{"want bool", "null"}},
		{name: "audit", src: `{"audit": "true"}`, paths: []string{"audit"}, contains: []string{`string "true"`}},
		{name: "audit_size-negative", src: `{"audit_size": -1}`, paths: []string{"audit_size"}, full: `audit_size: want integer >= 0, got -1`},
		{name: "audit_size-fraction", src: `{"audit_size": 1.5}`, paths: []string{"audit_size"}, contains: []string{"integer >= 0", "1.5"}},
		{name: "audit_size-string", src: `{"audit_size": "10"}`, paths: []string{"audit_size"}, contains: []string{"integer >= 0", `string "10"`}},
		{name: "transforms-object", src: `{"transforms": {"type": "redact"}}`, paths: []string{"transforms"}, contains: []string{"want list of transforms, got object"}},
		{name: "transforms-number", src: `{"transforms": [5]}`, paths: []string{"transforms[0]"}, contains: []string{"number 5"}},
		{name: "transforms-type-number", src: `{"transforms": [{"type": 5}]}`, paths: []string{"transforms[0].type"}},
		{name: "input_transforms", src: `{"input_transforms": "redact"}`, paths: []string{"input_transforms"}, contains: []string{`string "redact"`}},
		{name: "transform_options-list", src: `{"transform_options": []}`, paths: []string{"transform_options"}},
		{name: "transform_options-entry", src: `{"transform_options": {"redact": "x"}}`, paths: []string{"transform_options.redact"}, contains: []string{"want object of options", `string "x"`}},
		{name: "options-list", src: `{"transforms": [{"type": "redact", "options": []}]}`, paths: []string{"transforms[0].options"}},
		{name: "detectors-object", src: `{"detectors": {}}`, paths: []string{"detectors"}},
		{name: "detectors-string", src: `{"detectors": ["email"]}`, paths: []string{"detectors[0]"}, contains: []string{`string "email"`}},
		{name: "disabled_detectors", src: `{"disabled_detectors": "phone"}`, paths: []string{"disabled_detectors"}},
		{name: "disabled_detectors-entry", src: `{"disabled_detectors": [1]}`, paths: []string{"disabled_detectors[0]"}},
		{name: "roles-list", src: `{"roles": []}`, paths: []string{"roles"}},
		{name: "role-list", src: `{"roles": {"a": []}}`, paths: []string{"roles.a"}},
		{name: "rules-object", src: `{"rules": {}}`, paths: []string{"rules"}},
		{name: "rules-string", src: `{"rules": ["x"]}`, paths: []string{"rules[0]"}},
		{name: "rate_limits-object", src: `{"rate_limits": {}}`, paths: []string{"rate_limits"}},
		{name: "vault-string", src: `{"vault": "x"}`, paths: []string{"vault"}},
		{name: "vault-null", src: `{"vault": null}`, paths: []string{"vault"}},
		{name: "allow_tools-string", src: `{"allow_tools": "get_*"}`, paths: []string{"allow_tools"}, contains: []string{"list of globs or null", `string "get_*"`}},
		{name: "allow_tools-entry", src: `{"allow_tools": ["a", 1]}`, paths: []string{"allow_tools[1]"}},
		{name: "deny_tools-null", src: `{"deny_tools": null}`, paths: []string{"deny_tools"}, contains: []string{"want list of globs, got null"}},
		{name: "deny_resources", src: `{"deny_resources": {}}`, paths: []string{"deny_resources"}},
		{name: "allow_capabilities", src: `{"allow_capabilities": "exec"}`, paths: []string{"allow_capabilities"}},
		{name: "deny_capabilities", src: `{"deny_capabilities": ["exec", "fly"]}`, paths: []string{"deny_capabilities[1]"},
			full: `deny_capabilities[1]: unknown capability "fly" (want read_state, write_state, read_fs, write_fs, cloud_access, exec, reveal)`},
		{name: "max_sensitivity", src: `{"max_sensitivity": "secret"}`, paths: []string{"max_sensitivity"},
			full: `max_sensitivity: unknown sensitivity "secret" (want public, internal, confidential, restricted)`},
		{name: "max_sensitivity-number", src: `{"max_sensitivity": 3}`, paths: []string{"max_sensitivity"}},
		{name: "rule-name", src: `{"rules": [{"name": 1}]}`, paths: []string{"rules[0].name"}},
		{name: "rule-honor_hints", src: `{"rules": [{"honor_hints": "yes"}]}`, paths: []string{"rules[0].honor_hints"}, contains: []string{"bool or null", `"yes"`}},
		{name: "rule-transforms_mode", src: `{"rules": [{"transforms_mode": "merge"}]}`, paths: []string{"rules[0].transforms_mode"},
			contains: []string{`"merge"`, "append, prepend, replace"}},
		{name: "rule-max_sensitivity", src: `{"rules": [{"max_sensitivity": "top"}]}`, paths: []string{"rules[0].max_sensitivity"}},
		{name: "rule-allow_capabilities", src: `{"roles": {"a": {"allow_capabilities": ["root"]}}}`, paths: []string{"roles.a.allow_capabilities[0]"}},
		{name: "match-string", src: `{"rules": [{"match": "x"}]}`, paths: []string{"rules[0].match"}},
		{name: "match-roles", src: `{"rules": [{"match": {"roles": "admin"}}]}`, paths: []string{"rules[0].match.roles"}},
		{name: "match-empty-role", src: `{"rules": [{"match": {"roles": [""]}}]}`, paths: []string{"rules[0].match.roles[0]"}},
		{name: "match-tags", src: `{"rules": [{"match": {"tags": [1]}}]}`, paths: []string{"rules[0].match.tags[0]"}},
		{name: "match-kinds-spec-example", src: `{"rules": [{}, {}, {"match": {"kinds": ["tools"]}}]}`, paths: []string{"rules[2].match.kinds[0]"},
			full: `rules[2].match.kinds[0]: unknown kind "tools" (want tool, resource, resource_template, prompt)`},
		{name: "match-kinds-completion", src: `{"rules": [{"match": {"kinds": ["completion"]}}]}`, paths: []string{"rules[0].match.kinds[0]"}},
		{name: "match-kinds-string", src: `{"rules": [{"match": {"kinds": "tool"}}]}`, paths: []string{"rules[0].match.kinds"}},
		{name: "match-sensitivity", src: `{"rules": [{"match": {"sensitivity": ["internal", "secret"]}}]}`, paths: []string{"rules[0].match.sensitivity[1]"},
			contains: []string{`unknown sensitivity "secret"`}},
		{name: "match-sensitivity-string", src: `{"rules": [{"match": {"sensitivity": "internal"}}]}`, paths: []string{"rules[0].match.sensitivity"}},
		{name: "match-capabilities", src: `{"rules": [{"match": {"capabilities": ["fly"]}}]}`, paths: []string{"rules[0].match.capabilities[0]"}},
		{name: "role-match-kinds", src: `{"roles": {"ops": {"match": {"kinds": ["tools"]}}}}`, paths: []string{"roles.ops.match.kinds[0]"},
			full: `roles.ops.match.kinds[0]: unknown kind "tools" (want tool, resource, resource_template, prompt)`},
	})
}

func TestDecodeErrorsRateLimits(t *testing.T) {
	cfRunErrCases(t, []cfErrCase{
		{name: "rate-zero", src: `{"rate_limits": [{"rate": 0}]}`, paths: []string{"rate_limits[0].rate"}, full: `rate_limits[0].rate: want number > 0, got 0`},
		{name: "rate-negative", src: `{"rate_limits": [{"rate": -2.5}]}`, paths: []string{"rate_limits[0].rate"}, contains: []string{"number > 0", "-2.5"}},
		{name: "rate-string", src: `{"rate_limits": [{"rate": "5"}]}`, paths: []string{"rate_limits[0].rate"}, contains: []string{`string "5"`}},
		{name: "rate-null", src: `{"rate_limits": [{"rate": null}]}`, paths: []string{"rate_limits[0].rate"}},
		{name: "rate-missing", src: `{"rate_limits": [{"per": "second"}]}`, paths: []string{"rate_limits[0]"}, contains: []string{`missing required key "rate"`}},
		{name: "per", src: `{"rate_limits": [{"rate": 1, "per": "week"}]}`, paths: []string{"rate_limits[0].per"},
			contains: []string{`"week"`, "second, minute, hour, day"}},
		{name: "per-plural", src: `{"rate_limits": [{"rate": 1, "per": "minutes"}]}`, paths: []string{"rate_limits[0].per"}},
		{name: "burst-zero", src: `{"rate_limits": [{"rate": 1, "burst": 0}]}`, paths: []string{"rate_limits[0].burst"}, full: `rate_limits[0].burst: want integer >= 1, got 0`},
		{name: "burst-negative", src: `{"rate_limits": [{"rate": 1, "burst": -3}]}`, paths: []string{"rate_limits[0].burst"}},
		{name: "burst-fraction", src: `{"rate_limits": [{"rate": 1, "burst": 1.5}]}`, paths: []string{"rate_limits[0].burst"}, contains: []string{"1.5"}},
		{name: "burst-string", src: `{"rate_limits": [{"rate": 1, "burst": "2"}]}`, paths: []string{"rate_limits[0].burst"}},
		{name: "scope", src: `{"rate_limits": [{"rate": 1, "scope": "user"}]}`, paths: []string{"rate_limits[0].scope"},
			contains: []string{`"user"`, "principal, tool, principal_tool, global"}},
		{name: "tools-string", src: `{"rate_limits": [{"rate": 1, "tools": "x"}]}`, paths: []string{"rate_limits[0].tools"}},
		{name: "tools-empty-glob", src: `{"rate_limits": [{"rate": 1, "tools": [""]}]}`, paths: []string{"rate_limits[0].tools[0]"}},
		{name: "kinds", src: `{"rate_limits": [{"rate": 1, "kinds": ["tool", "completions"]}]}`, paths: []string{"rate_limits[0].kinds[1]"},
			full: `rate_limits[0].kinds[1]: unknown kind "completions" (want tool, resource, resource_template, prompt, completion)`},
		{name: "not-object", src: `{"rate_limits": [5]}`, paths: []string{"rate_limits[0]"}},
		{name: "rule-level", src: `{"rules": [{"rate_limits": [{"rate": 0}]}]}`, paths: []string{"rules[0].rate_limits[0].rate"}},
		{name: "role-level", src: `{"roles": {"a": {"rate_limits": [{"rate": 1, "burst": 0}]}}}`, paths: []string{"roles.a.rate_limits[0].burst"}},
	})
}

func TestDecodeErrorsGlobs(t *testing.T) {
	cfRunErrCases(t, []cfErrCase{
		{name: "empty", src: `{"allow_tools": [""]}`, paths: []string{"allow_tools[0]"}, contains: []string{`bad glob ""`, "empty pattern"}},
		{name: "lone-bang", src: `{"deny_tools": ["ok", "!"]}`, paths: []string{"deny_tools[1]"}, contains: []string{`bad glob "!"`}},
		{name: "two-bad", src: `{"deny_tools": ["", "x", "!"]}`, paths: []string{"deny_tools[0]", "deny_tools[2]"}},
		{name: "allow_resources", src: `{"allow_resources": ["!"]}`, paths: []string{"allow_resources[0]"}},
		{name: "allow_prompts", src: `{"allow_prompts": [""]}`, paths: []string{"allow_prompts[0]"}},
		{name: "categories", src: `{"allow_categories": ["!"], "deny_categories": [""]}`, paths: []string{"allow_categories[0]", "deny_categories[0]"}},
		{name: "match-names", src: `{"rules": [{"match": {"names": [""]}}]}`, paths: []string{"rules[0].match.names[0]"}},
		{name: "match-principals", src: `{"rules": [{"match": {"principals": ["!"]}}]}`, paths: []string{"rules[0].match.principals[0]"}},
		{name: "match-categories", src: `{"rules": [{"match": {"categories": [""]}}]}`, paths: []string{"rules[0].match.categories[0]"}},
		{name: "rule-lists", src: `{"rules": [{"allow_tools": [""], "deny_prompts": ["!"]}]}`, paths: []string{"rules[0].allow_tools[0]", "rules[0].deny_prompts[0]"}},
	})
	// Valid globs, including an unclosed "[" (a literal in fnmatch).
	cfParse(t, `{"allow_tools": ["*", "!get_secret*", "a[bc]", "[!x]y", "[", "!!x", "?"]}`)
}

func TestDecodeErrorsDetectors(t *testing.T) {
	cfRunErrCases(t, []cfErrCase{
		{name: "pattern-unclosed", src: `{"detectors": [{"name": "d", "pattern": "("}]}`, paths: []string{"detectors[0].pattern"},
			contains: []string{"does not compile as RE2", "missing closing )"}},
		{name: "pattern-lookahead", src: `{"detectors": [{"name": "d", "pattern": "a(?=b)"}]}`, paths: []string{"detectors[0].pattern"}, contains: []string{"RE2"}},
		{name: "pattern-backref", src: `{"detectors": [{"name": "d", "pattern": "(a)\\1"}]}`, paths: []string{"detectors[0].pattern"}},
		{name: "pattern-repeat", src: `{"detectors": [{"name": "d", "pattern": "a{1001}"}]}`, paths: []string{"detectors[0].pattern"}},
		{name: "pattern-empty", src: `{"detectors": [{"name": "d", "pattern": ""}]}`, paths: []string{"detectors[0].pattern"}},
		{name: "pattern-missing", src: `{"detectors": [{"name": "d"}]}`, paths: []string{"detectors[0]"}, contains: []string{`missing required key "pattern"`}},
		// A wrong type is one error, not also a second about the "" used in its place.
		{name: "name-number", src: `{"detectors": [{"name": 5, "pattern": "x"}]}`, paths: []string{"detectors[0].name"}, contains: []string{"number 5"}},
		{name: "pattern-number", src: `{"detectors": [{"name": "d", "pattern": 5}]}`, paths: []string{"detectors[0].pattern"}, contains: []string{"number 5"}},
		{name: "name-missing", src: `{"detectors": [{"pattern": "x"}]}`, paths: []string{"detectors[0]"}, contains: []string{`missing required key "name"`}},
		{name: "name-bad", src: `{"detectors": [{"name": "Bad", "pattern": "x"}]}`, paths: []string{"detectors[0].name"}, contains: []string{`"Bad"`}},
		{name: "name-duplicate", src: `{"detectors": [{"name": "d", "pattern": "x"}, {"name": "d", "pattern": "y"}]}`, paths: []string{"detectors[1].name"},
			contains: []string{`duplicate detector name "d"`}},
		{name: "label", src: `{"detectors": [{"name": "d", "pattern": "x", "label": "lower"}]}`, paths: []string{"detectors[0].label"}, contains: []string{`"lower"`}},
		{name: "sensitivity", src: `{"detectors": [{"name": "d", "pattern": "x", "sensitivity": "secret"}]}`, paths: []string{"detectors[0].sensitivity"}},
		{name: "group-too-big", src: `{"detectors": [{"name": "d", "pattern": "(a)", "group": 2}]}`, paths: []string{"detectors[0].group"}},
		{name: "group-name", src: `{"detectors": [{"name": "d", "pattern": "(a)", "group": "nope"}]}`, paths: []string{"detectors[0].group"}, contains: []string{`"nope"`}},
		{name: "group-negative", src: `{"detectors": [{"name": "d", "pattern": "(a)", "group": -1}]}`, paths: []string{"detectors[0].group"}},
		{name: "validate", src: `{"detectors": [{"name": "d", "pattern": "x", "validate": "crc"}]}`, paths: []string{"detectors[0].validate"},
			contains: []string{`"crc"`, "none, luhn, mod97"}},
		{name: "keywords", src: `{"detectors": [{"name": "d", "pattern": "x", "keywords": "k"}]}`, paths: []string{"detectors[0].keywords"}},
		{name: "window", src: `{"detectors": [{"name": "d", "pattern": "x", "window": 0}]}`, paths: []string{"detectors[0].window"}},
		{name: "case_insensitive", src: `{"detectors": [{"name": "d", "pattern": "x", "case_insensitive": "yes"}]}`, paths: []string{"detectors[0].case_insensitive"}},
	})
}

func TestDecodeErrorsTransforms(t *testing.T) {
	const types = "redact, pseudonymise, mask, hash, truncate, project, drop_binary, block, detect, annotate"
	cfRunErrCases(t, []cfErrCase{
		{name: "unknown-type-string", src: `{"transforms": ["bogus"]}`, paths: []string{"transforms[0]"},
			full: `transforms[0]: unknown transform type "bogus" (want ` + types + `)`},
		{name: "unknown-type-object", src: `{"transforms": [{"type": "encrypt"}]}`, paths: []string{"transforms[0].type"}, contains: []string{`"encrypt"`, types}},
		{name: "unknown-input-type", src: `{"input_transforms": ["redact", "depseudonymise"]}`, paths: []string{"input_transforms[1]"}},
		{name: "unknown-rule-type", src: `{"rules": [{"transforms": ["bogus"]}]}`, paths: []string{"rules[0].transforms[0]"}},
		{name: "missing-type", src: `{"transforms": [{"id": "x"}]}`, paths: []string{"transforms[0]"}, contains: []string{`missing required key "type"`}},
		{name: "id-number", src: `{"transforms": [{"type": "redact", "id": 5}]}`, paths: []string{"transforms[0].id"}, contains: []string{"number 5"}},
		{name: "empty-id", src: `{"transforms": [{"type": "redact", "id": ""}]}`, paths: []string{"transforms[0].id"}},
		{name: "duplicate-id", src: `{"transforms": ["redact", "redact"]}`, paths: []string{"transforms[1]"}, contains: []string{`"redact"`}},
		{name: "id-two-types", src: `{"transforms": [{"type": "redact", "id": "x"}], "input_transforms": [{"type": "mask", "id": "x"}]}`,
			paths: []string{"input_transforms[0]"}},
		{name: "detector-unknown", src: `{"transforms": [{"type": "redact", "options": {"detectors": ["email", "nope"]}}]}`,
			paths: []string{"transforms[0].options.detectors[1]"}, contains: []string{`unknown detector "nope"`}},
		{name: "detector-group", src: `{"transforms": [{"type": "redact", "options": {"detectors": ["@people"]}}]}`,
			paths: []string{"transforms[0].options.detectors[0]"}, contains: []string{`"@people"`, "@pii"}},
		{name: "detector-not-list", src: `{"transforms": [{"type": "redact", "options": {"detectors": "email"}}]}`, paths: []string{"transforms[0].options.detectors"}},
		{name: "detector-rule", src: `{"rules": [{"transforms": [{"type": "mask", "options": {"detectors": ["nope"]}}]}]}`,
			paths: []string{"rules[0].transforms[0].options.detectors[0]"}},
		{name: "detector-input", src: `{"input_transforms": [{"type": "redact", "options": {"detectors": ["nope"]}}]}`,
			paths: []string{"input_transforms[0].options.detectors[0]"}},
		{name: "detector-transform_options", src: `{"transform_options": {"redact": {"detectors": ["nope"]}}}`,
			paths: []string{"transform_options.redact.detectors[0]"}},
		{name: "disabled-unknown", src: `{"disabled_detectors": ["email", "nope"]}`, paths: []string{"disabled_detectors[1]"}, contains: []string{`unknown detector "nope"`}},
		{name: "options-key-neither", src: `{"transform_options": {"nope": {}}}`, paths: []string{"transform_options.nope"},
			contains: []string{`"nope" is neither a transform type`}},
		{name: "rule-options-key-neither", src: `{"rules": [{"transform_options": {"nope": {}}}]}`, paths: []string{"rules[0].transform_options.nope"}},
		{name: "min_sensitivity", src: `{"transforms": [{"type": "redact", "options": {"min_sensitivity": "secret"}}]}`, paths: []string{"transforms[0].options.min_sensitivity"}},
		{name: "required", src: `{"transforms": [{"type": "redact", "options": {"required": "yes"}}]}`, paths: []string{"transforms[0].options.required"}},
		{name: "placeholder", src: `{"transforms": [{"type": "redact", "options": {"placeholder": 5}}]}`, paths: []string{"transforms[0].options.placeholder"}},
		{name: "mask-char", src: `{"transforms": [{"type": "mask", "options": {"char": "ab"}}]}`, paths: []string{"transforms[0].options.char"}, contains: []string{`"ab"`}},
		{name: "mask-keep_last", src: `{"transforms": [{"type": "mask", "options": {"keep_last": -1}}]}`, paths: []string{"transforms[0].options.keep_last"}},
		{name: "hash-length", src: `{"transforms": [{"type": "hash", "options": {"length": 0}}]}`, paths: []string{"transforms[0].options.length"}},
		{name: "truncate-max_chars", src: `{"transforms": [{"type": "truncate", "options": {"max_chars": 0}}]}`, paths: []string{"transforms[0].options.max_chars"}},
		{name: "drop_binary-note", src: `{"transforms": [{"type": "drop_binary", "options": {"note": []}}]}`, paths: []string{"transforms[0].options.note"}},
		{name: "fields-not-list", src: `{"transforms": [{"type": "redact", "options": {"fields": "a"}}]}`, paths: []string{"transforms[0].options.fields"}},
	})
}

func TestDecodeErrorsProjectionPaths(t *testing.T) {
	var cases []cfErrCase
	for i, bad := range []string{``, `a..b`, `.a`, `a.`, `a\\x`, `a\\`, `.`} {
		for _, key := range []string{"include", "exclude"} {
			cases = append(cases, cfErrCase{
				name:     fmt.Sprintf("%s-%d", key, i),
				src:      `{"transforms": [{"type": "project", "options": {"` + key + `": ["ok", "` + bad + `"]}}]}`,
				paths:    []string{"transforms[0].options." + key + "[1]"},
				contains: []string{"bad projection path"},
			})
		}
		for _, key := range []string{"fields", "exclude_fields"} {
			cases = append(cases, cfErrCase{
				name:  fmt.Sprintf("%s-%d", key, i),
				src:   `{"transform_options": {"redact": {"` + key + `": ["` + bad + `"]}}}`,
				paths: []string{"transform_options.redact." + key + "[0]"},
			})
		}
	}
	cases = append(cases, cfErrCase{name: "number", src: `{"transforms": [{"type": "project", "options": {"include": [1]}}]}`,
		paths: []string{"transforms[0].options.include[0]"}})
	cfRunErrCases(t, cases)
}

func TestDecodeErrorsVault(t *testing.T) {
	cfRunErrCases(t, []cfErrCase{
		{name: "max_entries-zero", src: `{"vault": {"max_entries": 0}}`, paths: []string{"vault.max_entries"}, full: `vault.max_entries: want integer >= 1, got 0`},
		{name: "max_entries-fraction", src: `{"vault": {"max_entries": 1.5}}`, paths: []string{"vault.max_entries"}},
		{name: "ttl-zero", src: `{"vault": {"ttl_seconds": 0}}`, paths: []string{"vault.ttl_seconds"}, full: `vault.ttl_seconds: want number > 0, got 0`},
		{name: "ttl-negative", src: `{"vault": {"ttl_seconds": -5}}`, paths: []string{"vault.ttl_seconds"}},
		{name: "ttl-string", src: `{"vault": {"ttl_seconds": "1h"}}`, paths: []string{"vault.ttl_seconds"}, contains: []string{`"1h"`}},
		{name: "key_env-bad", src: `{"vault": {"key_env": "1BAD"}}`, paths: []string{"vault.key_env"}, contains: []string{`"1BAD"`}},
		{name: "key_env-number", src: `{"vault": {"key_env": 5}}`, paths: []string{"vault.key_env"}},
		{name: "scope", src: `{"vault": {"scope": "team"}}`, paths: []string{"vault.scope"}, contains: []string{`"team"`, "global, principal"}},
		{name: "path", src: `{"vault": {"path": 5}}`, paths: []string{"vault.path"}},
		{name: "autosave", src: `{"vault": {"autosave": "no"}}`, paths: []string{"vault.autosave"}},
		{name: "encrypt", src: `{"vault": {"encrypt": 1}}`, paths: []string{"vault.encrypt"}},
		{name: "key-empty", src: `{"vault": {"key": ""}}`, paths: []string{"vault.key"}},
		{name: "key-number", src: `{"vault": {"key": 12345}}`, paths: []string{"vault.key"}},
		{name: "mode", src: `{"vault": {"mode": "shared"}}`, paths: []string{"vault.mode"}, full: `vault.mode: unknown mode "shared" (want auto, store, sealed)`},
		{name: "mode-bool", src: `{"vault": {"mode": true}}`, paths: []string{"vault.mode"}, contains: []string{"auto, store, sealed"}},
		{name: "previous_keys_env-string", src: `{"vault": {"previous_keys_env": "OLD_KEY"}}`, paths: []string{"vault.previous_keys_env"}, contains: []string{"list of environment variable names"}},
		{name: "previous_keys_env-bad-name", src: `{"vault": {"previous_keys_env": ["OK_KEY", "2BAD"]}}`, paths: []string{"vault.previous_keys_env[1]"},
			full: `vault.previous_keys_env[1]: want an environment variable name, got "2BAD"`},
		{name: "previous_keys_env-number", src: `{"vault": {"previous_keys_env": [5]}}`, paths: []string{"vault.previous_keys_env[0]"}},
		{name: "previous_keys_env-duplicate", src: `{"vault": {"previous_keys_env": ["OLD_KEY", "OLD_KEY"]}}`, paths: []string{"vault.previous_keys_env[1]"},
			full: `vault.previous_keys_env[1]: "OLD_KEY" is already vault.previous_keys_env[0]`},
		{name: "previous_keys_env-is-key_env", src: `{"vault": {"key_env": "K", "previous_keys_env": ["K"]}}`, paths: []string{"vault.previous_keys_env[0]"},
			full: `vault.previous_keys_env[0]: "K" is already key_env`},
		{name: "previous_keys_env-default-key_env", src: `{"vault": {"previous_keys_env": ["CLOUDG_MCP_VAULT_KEY"]}}`, paths: []string{"vault.previous_keys_env[0]"}},
	})
}

// A request's pseudonyms are sealed in mode sealed, never in mode store,
// and in mode auto for stateless requests under a configured key.
func TestVaultSeals(t *testing.T) {
	for _, c := range []struct {
		mode                     VaultMode
		stateless, keyConfigured bool
		want                     bool
	}{
		{VaultAuto, true, true, true},
		{VaultAuto, true, false, false},
		{VaultAuto, false, true, false},
		{VaultAuto, false, false, false},
		{VaultStore, true, true, false},
		{VaultSealed, false, false, true},
		{VaultSealed, true, true, true},
	} {
		v := VaultConfig{Mode: c.mode}
		if got := v.Seals(c.stateless, c.keyConfigured); got != c.want {
			t.Errorf("mode %s, stateless %v, key configured %v: Seals = %v, want %v", c.mode, c.stateless, c.keyConfigured, got, c.want)
		}
	}
}

// describe shows the restore-only keys by variable and fingerprint, never
// the keys.
func TestDescribePreviousKeys(t *testing.T) {
	p := cfParse(t, `{"vault": {"mode": "sealed", "previous_keys_env": ["OLD_KEY", "GONE_KEY"]}}`)
	env := map[string]string{"CLOUDG_MCP_VAULT_KEY": "current-secret-key", "OLD_KEY": "previous-secret-key"}
	d := p.Describe(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	want := []PreviousKeySummary{{Env: "OLD_KEY", Fingerprint: KeyFingerprint([]byte("previous-secret-key"))}, {Env: "GONE_KEY"}}
	if d.Vault.Mode != "sealed" || !reflect.DeepEqual(d.Vault.PreviousKeys, want) {
		t.Errorf("vault = %+v, want mode sealed and previous keys %+v", d.Vault, want)
	}
	text := d.Text()
	for _, s := range []string{"mode: sealed", "previous key: env OLD_KEY (fingerprint " + want[0].Fingerprint + ")", "previous key: env GONE_KEY (unset)"} {
		if !strings.Contains(text, s) {
			t.Errorf("describe text lacks %q:\n%s", s, text)
		}
	}
	if strings.Contains(text, "secret-key") {
		t.Errorf("describe text shows a key:\n%s", text)
	}
}

// TestDecodeVaultKeyNeverEchoed: manual 13, the key is never printed.
func TestDecodeVaultKeyNeverEchoed(t *testing.T) {
	cases := []struct{ src, secret string }{
		{`{"vault": {"key": 12345}}`, "12345"},
		{`{"vault": {"key": 1.2345e4}}`, "2345"},
		{`{"vault": {"key": true}}`, "true"},
		{`{"vault": {"key": ["s3cr3tvalue"]}}`, "s3cr3tvalue"},
		{`{"vault": {"key": {"k": "s3cr3tvalue"}}}`, "s3cr3tvalue"},
		{"vault:\n  key: 12345\n", "12345"},
		{"vault:\n  key: [s3cr3tvalue]\n", "s3cr3tvalue"},
		{"vault:\n  key: !!int s3cr3tvalue\n", "s3cr3tvalue"},
		{"vault:\n  key: !!float s3cr3tvalue\n", "s3cr3tvalue"},
		{"vault:\n  key: !!bool s3cr3tvalue\n", "s3cr3tvalue"},
		// A valid key next to other mistakes.
		{`{"vault": {"key": "s3cr3tvalue", "scope": "s3cr3tvalue-no", "bogus": 1}}`, "s3cr3tvalue\""},
	}
	for _, c := range cases {
		_, errs := ParsePolicy([]byte(c.src), Options{})
		if len(errs) == 0 {
			t.Errorf("%q: accepted, want an error", c.src)
			continue
		}
		if msg := errs.Error(); strings.Contains(msg, c.secret) {
			t.Errorf("%q: error echoes the vault key %q:\n%s", c.src, c.secret, msg)
		}
		_, eerrs := ParseEnvelope([]byte(c.src), Options{})
		if msg := eerrs.Error(); len(eerrs) == 0 || strings.Contains(msg, c.secret) {
			t.Errorf("%q: envelope errors echo the vault key %q or are missing:\n%s", c.src, c.secret, msg)
		}
	}
}

// TestDecodeAllErrorsAtOnce: manual 2, every error of a configuration is
// reported, each with its path, in document order.
func TestDecodeAllErrorsAtOnce(t *testing.T) {
	t.Run("structural", func(t *testing.T) {
		errs := cfErrors(t, `{
			"name": 5,
			"audit_size": -1,
			"rules": [{"match": {"kinds": ["tools"]}}],
			"rate_limits": [{"rate": 0}],
			"vault": {"scope": "team"}
		}`)
		want := []string{"name", "audit_size", "rules[0].match.kinds[0]", "rate_limits[0].rate", "vault.scope"}
		if got := cfPaths(errs); !slices.Equal(got, want) {
			t.Errorf("paths = %q, want %q\n%v", got, want, errs)
		}
		for i, s := range []string{"number 5", "-1", `"tools"`, "got 0", `"team"`} {
			if i < len(errs) && !strings.Contains(errs[i].Msg, s) {
				t.Errorf("errors[%d] = %q does not quote %s", i, errs[i].Error(), s)
			}
		}
	})
	t.Run("document-order", func(t *testing.T) {
		// The same kinds of mistakes, written in another order than the
		// decoder reads keys: errors must follow the document.
		errs := cfErrors(t, `{
			"vault": {"scope": "team"},
			"rules": [
				{"transform_options": {"redact": {"bogus": 1}}},
				{"match": {"kinds": ["tools"]}}
			],
			"audit_size": -1,
			"name": 5
		}`)
		want := []string{"vault.scope", "rules[0].transform_options.redact.bogus", "rules[1].match.kinds[0]", "audit_size", "name"}
		if got := cfPaths(errs); !slices.Equal(got, want) {
			t.Errorf("errors are not in document order:\n got  %q\n want %q", got, want)
		}
	})
	t.Run("structure-and-references", func(t *testing.T) {
		// Mistakes in references (unknown detectors, unknown transform ids)
		// are reported together with structural ones.
		errs := cfErrors(t, `{
			"audit_size": -1,
			"disabled_detectors": ["nope"],
			"transforms": [{"type": "redact", "options": {"detectors": ["zzz"]}}],
			"rules": [{"bogus": 1}],
			"transform_options": {"qq": {}}
		}`)
		want := []string{"audit_size", "disabled_detectors[0]", "transforms[0].options.detectors[0]", "rules[0].bogus", "transform_options.qq"}
		got := cfPaths(errs)
		if !slices.Equal(got, want) {
			g, w := slices.Clone(got), slices.Clone(want)
			sort.Strings(g)
			sort.Strings(w)
			if slices.Equal(g, w) {
				t.Errorf("all errors found but not in document order:\n got  %q\n want %q", got, want)
			} else {
				t.Errorf("not every error is reported at once:\n got  %q\n want %q\n%v", got, want, errs)
			}
		}
	})
	t.Run("many-in-one-list", func(t *testing.T) {
		errs := cfErrors(t, `{"rules": [{"match": {"kinds": ["a", "tool", "b"]}}, {"bogus": 1}, {"transforms_mode": "x"}]}`)
		want := []string{"rules[0].match.kinds[0]", "rules[0].match.kinds[2]", "rules[1].bogus", "rules[2].transforms_mode"}
		if got := cfPaths(errs); !slices.Equal(got, want) {
			t.Errorf("paths = %q, want %q", got, want)
		}
	})
}

// TestDecodeRoleAndRuleNames: manual 6.3 names, roles in document order.
func TestDecodeRoleAndRuleNames(t *testing.T) {
	for _, src := range []string{
		`{"roles": {"zeta": {}, "alpha": {"name": "alphas"}, "mid": {}, "*": {}},
		  "rules": [{}, {"name": "named"}, {"description": "d"}]}`,
		"roles:\n  zeta: {}\n  alpha: {name: alphas}\n  mid: {}\n  \"*\": {}\nrules:\n  - {}\n  - name: named\n  - description: d\n",
	} {
		p := cfParse(t, src)
		want := []string{"role:zeta", "alphas", "role:mid", "role:*", "rule[0]", "named", "rule[2]"}
		if got := cfRuleNames(p.Rules); !slices.Equal(got, want) {
			t.Errorf("rule names = %q, want %q", got, want)
			continue
		}
		if p.Roles != 4 {
			t.Errorf("Roles = %d, want 4", p.Roles)
		}
		roles := []string{"zeta", "alpha", "mid", "*"}
		for i, r := range p.Rules {
			if r.Index != i {
				t.Errorf("%s: Index = %d, want %d", r.Name, r.Index, i)
			}
			if i < 4 {
				if r.Role != roles[i] || !slices.Contains(r.Match.Roles, roles[i]) || r.Path != "roles."+roles[i] {
					t.Errorf("%s: Role=%q Match.Roles=%v Path=%q", r.Name, r.Role, r.Match.Roles, r.Path)
				}
			} else if r.Role != "" || r.Path != fmt.Sprintf("rules[%d]", i-4) {
				t.Errorf("%s: Role=%q Path=%q", r.Name, r.Role, r.Path)
			}
		}
		if !p.Rules[3].Match.AnyRole {
			t.Error(`role "*" should match every principal`)
		}
	}
	// A role keeps its own match conditions and gains its role.
	p := cfParse(t, `{"roles": {"admin": {"match": {"roles": ["ops"], "kinds": ["tool"]}}}}`)
	r := p.Rules[0]
	if !slices.Contains(r.Match.Roles, "ops") || !slices.Contains(r.Match.Roles, "admin") || r.Match.Kinds != cfKinds(KindTool) {
		t.Errorf("role match = %+v", r.Match)
	}
}

// TestParseDocumentStrict: duplicate keys, trailing data, invalid UTF-8,
// nesting over 64 (manual 16), in JSON and YAML.
func TestParseDocumentStrict(t *testing.T) {
	nest := func(n int, open, close, inner string) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	cases := []struct {
		name string
		src  string
		ok   bool
		want string // substring of the error
	}{
		{"json-dup", `{"a": 1, "a": 2}`, false, "duplicate key"},
		{"json-dup-nested", `{"rules": [{"name": "a", "name": "b"}]}`, false, `duplicate key "name"`},
		{"yaml-dup", "a: 1\na: 2\n", false, "duplicate key"},
		{"yaml-dup-nested", "rules:\n  - name: a\n    name: b\n", false, `duplicate key "name"`},
		{"yaml-dup-quoted", "a: 1\n\"a\": 2\n", false, "duplicate key"},
		{"yaml-dup-flow", "# y\n{a: 1, a: 2}\n", false, "duplicate key"},
		{"json-trailing-object", `{"a": 1} {"b": 2}`, false, "trailing"},
		{"json-trailing-garbage", `{"a": 1} x`, false, ""},
		{"json-trailing-bracket", `{"a": 1}]`, false, ""},
		{"json-trailing-comma", `{"a": 1},`, false, ""},
		{"json-trailing-array", `[1] [2]`, false, "trailing"},
		{"json-trailing-space", "{\"a\": 1}  \n\t", true, ""},
		{"yaml-two-documents", "a: 1\n---\nb: 2\n", false, ""},
		{"json-bad-utf8", "{\"name\": \"\xff\"}", false, "UTF-8"},
		{"json-bad-utf8-key", "{\"\xc3\": 1}", false, "UTF-8"},
		{"yaml-bad-utf8", "name: \xfe\xff\n", false, "UTF-8"},
		{"json-empty", ``, false, ""},
		{"yaml-comment-only", "# nothing\n", false, ""},
		{"json-unclosed", `{"a": [1, 2}`, false, ""},
		{"json-depth-64-arrays", nest(64, "[", "]", ""), true, ""},
		{"json-depth-64-arrays-scalar", nest(64, "[", "]", "1"), true, ""},
		{"json-depth-65-arrays", nest(65, "[", "]", ""), false, "nesting"},
		{"json-depth-65-arrays-scalar", nest(65, "[", "]", "1"), false, "nesting"},
		{"json-depth-64-objects", nest(63, `{"a":`, "}", "{}"), true, ""},
		{"json-depth-65-objects", nest(64, `{"a":`, "}", "{}"), false, "nesting"},
		{"json-depth-1000", nest(1000, "[", "]", ""), false, "nesting"},
		{"yaml-depth-64", "# y\n" + nest(64, "[", "]", ""), true, ""},
		{"yaml-depth-65", "# y\n" + nest(65, "[", "]", ""), false, "nesting"},
		{"yaml-depth-65-scalar", "# y\n" + nest(65, "[", "]", "x"), false, "nesting"},
		{"yaml-self-alias", "a: &a [*a]\n", false, ""},
		{"json-number-range", `{"a": 1e400}`, false, ""},
		{"yaml-inf", "a: .inf\n", false, ""},
		{"yaml-nan", "a: .nan\n", false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := cfCatch(t, func() (*Value, Errors) {
				v, err := ParseDocument([]byte(c.src))
				if err != nil {
					return nil, Errors{{Msg: err.Error()}}
				}
				return v, nil
			})
			if c.ok {
				if err != nil {
					t.Errorf("ParseDocument(%.80q) = %v, want success", c.src, err)
				}
				return
			}
			if err == nil {
				t.Errorf("ParseDocument(%.80q) succeeded (%.80s), want an error", c.src, v.JSON(""))
				return
			}
			if c.want != "" && !strings.Contains(err.Error(), c.want) {
				t.Errorf("ParseDocument(%.80q) error %q does not mention %q", c.src, err, c.want)
			}
			// ParsePolicy and ParseEnvelope report it as one error of the
			// document, named by the file.
			_, perrs := ParsePolicy([]byte(c.src), Options{File: "p.yaml"})
			if len(perrs) != 1 || perrs[0].Path != "p.yaml" {
				t.Errorf("ParsePolicy: errors = %v, want one error at p.yaml", perrs)
			}
			if _, eerrs := ParseEnvelope([]byte(c.src), Options{}); len(eerrs) == 0 {
				t.Error("ParseEnvelope accepted it")
			}
		})
	}
}

// TestParseDocumentYAMLAliasExpansion: a YAML document whose aliases
// expand exponentially must be refused rather than expanded (a 400-byte
// configuration would otherwise need 10^9 nodes).
func TestParseDocumentYAMLAliasExpansion(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	src := b.String() // ~300 bytes, 10^5 leaves after expansion
	v, err := ParseDocument([]byte(src))
	if err == nil {
		t.Errorf("ParseDocument of a %d-byte YAML alias bomb expanded it to %d bytes of JSON; want an error such as yaml.v3's \"excessive aliasing\"",
			len(src), len(v.JSON("")))
	}
	// Modest, legitimate aliasing still works.
	v, err = ParseDocument([]byte("base: &b {deny_tools: [x]}\nother: *b\n"))
	if err != nil || v.Get("other").Get("deny_tools") == nil {
		t.Errorf("plain alias: %v", err)
	}
}

// TestDecodeGlobListTooComplex: a glob list whose combined expression RE2
// refuses (here: two long patterns with a common prefix nest too deeply)
// must be reported as an error of that list, never a panic.
func TestDecodeGlobListTooComplex(t *testing.T) {
	long := strings.Repeat("?", 1000)
	src := `{"deny_tools": ["` + long + `0", "` + long + `1"]}`
	_, errs := cfCatch(t, func() (*Policy, Errors) { return ParsePolicy([]byte(src), Options{}) })
	if len(errs) == 0 {
		return // compiling it is fine too
	}
	for _, e := range errs {
		if !strings.HasPrefix(e.Path, "deny_tools") {
			t.Errorf("error path = %q, want deny_tools...", e.Path)
		}
	}
}
