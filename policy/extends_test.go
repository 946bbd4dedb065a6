package policy

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// exFS is an in-memory set of policy files for extends.
type exFS map[string]string

// reader returns a ReadFileFunc over the files, recording every path read.
func (fs exFS) reader(calls *[]string) ReadFileFunc {
	return func(p string) ([]byte, error) {
		if calls != nil {
			*calls = append(*calls, p)
		}
		s, ok := fs[p]
		if !ok {
			return nil, fmt.Errorf("open %s: no such file", p)
		}
		return []byte(s), nil
	}
}

// flatten runs Flatten on file.
func (fs exFS) flatten(t testing.TB, file string) (*Value, Errors) {
	t.Helper()
	doc, err := ParseDocument([]byte(fs[file]))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return cfCatch(t, func() (*Value, Errors) { return Flatten(doc, file, fs.reader(nil)) })
}

// parse runs ParsePolicy on file, as the CLI does.
func (fs exFS) parse(t testing.TB, file string) (*Policy, Errors) {
	t.Helper()
	return cfCatch(t, func() (*Policy, Errors) {
		return ParsePolicy([]byte(fs[file]), Options{File: file, ReadFile: fs.reader(nil)})
	})
}

func (fs exFS) mustParse(t testing.TB, file string) *Policy {
	t.Helper()
	p, errs := fs.parse(t, file)
	if len(errs) > 0 {
		t.Fatalf("%s: %v", file, errs)
	}
	return p
}

// exNormal sorts deny_capabilities (a set: the spec gives it no order) so
// documents compare by value.
func exNormal(v *Value) *Value {
	v = v.Clone()
	if dc := v.Get("deny_capabilities"); dc != nil && dc.Kind == ArrayValue {
		sort.Slice(dc.Array, func(i, j int) bool { return dc.Array[i].Text < dc.Array[j].Text })
	}
	return v
}

func exSameDoc(t testing.TB, what string, got *Value, want string) {
	t.Helper()
	w, err := ParseJSON([]byte(want))
	if err != nil {
		t.Fatalf("bad expected JSON: %v", err)
	}
	cfSameJSON(t, what, exNormal(got), exNormal(w).JSON(""))
}

// TestExtendsMergeTable: one case per row of the table of manual 5.2, through
// Flatten and through ParsePolicy (whose Document() is the flattened doc).
func TestExtendsMergeTable(t *testing.T) {
	cases := []struct {
		name          string
		parent, child string // YAML; child gets "extends: base.yaml"
		want          string // the flattened document, JSON
	}{
		{
			name: "scalars: child's when present",
			parent: "name: base\ndescription: parent\nhide_denied: false\nhonor_hints: false\naudit: true\n" +
				"audit_size: 5\nmax_sensitivity: internal\n",
			child: "name: child\ndescription: kid\nhide_denied: true\nhonor_hints: true\naudit: false\n" +
				"audit_size: 0\nmax_sensitivity: restricted\n",
			want: `{"name": "child", "description": "kid", "hide_denied": true, "honor_hints": true, "audit": false,
				"audit_size": 0, "max_sensitivity": "restricted"}`,
		},
		{
			name: "scalars: parent's when absent",
			parent: "name: base\ndescription: parent\nhide_denied: false\nhonor_hints: false\naudit: true\n" +
				"audit_size: 5\nmax_sensitivity: internal\n",
			child: "",
			want: `{"name": "base", "description": "parent", "hide_denied": false, "honor_hints": false, "audit": true,
				"audit_size": 5, "max_sensitivity": "internal"}`,
		},
		{
			name:   "scalars: some of each",
			parent: "name: base\naudit: true\naudit_size: 5\n",
			child:  "description: kid\naudit_size: 10\n",
			want:   `{"name": "base", "description": "kid", "audit": true, "audit_size": 10}`,
		},
		{
			name:   "max_sensitivity: explicit null replaces the parent's ceiling",
			parent: "max_sensitivity: internal\n",
			child:  "max_sensitivity: null\n",
			want:   `{"max_sensitivity": null}`,
		},
		{
			name:   "allow lists: child's when present, not a union",
			parent: "allow_tools: [a*, b*]\nallow_resources: [r]\nallow_prompts: [p]\nallow_categories: [c]\n",
			child:  "allow_tools: [x*]\nallow_categories: [d]\n",
			want:   `{"allow_tools": ["x*"], "allow_resources": ["r"], "allow_prompts": ["p"], "allow_categories": ["d"]}`,
		},
		{
			name:   "allow lists: explicit null = all overrides a parent's list",
			parent: "allow_tools: [a*]\nallow_resources: [r]\nallow_prompts: [p]\nallow_categories: [c]\n",
			child:  "allow_tools: null\nallow_resources: ~\nallow_prompts: null\nallow_categories: null\n",
			want:   `{"allow_tools": null, "allow_resources": null, "allow_prompts": null, "allow_categories": null}`,
		},
		{
			name:   "allow lists: [] = none overrides a parent's null",
			parent: "allow_tools: null\nallow_prompts: [p]\n",
			child:  "allow_tools: []\nallow_prompts: []\n",
			want:   `{"allow_tools": [], "allow_prompts": []}`,
		},
		{
			name:   "allow lists: parent's when absent",
			parent: "allow_tools: [a*]\nallow_categories: null\n",
			child:  "name: c\n",
			want:   `{"name": "c", "allow_tools": ["a*"], "allow_categories": null}`,
		},
		{
			name: "deny lists and disabled_detectors: union",
			parent: "deny_tools: [a, b]\ndeny_resources: [r1]\ndeny_prompts: [p1]\ndeny_categories: [c1]\n" +
				"disabled_detectors: [phone]\n",
			child: "deny_tools: [b, c]\ndeny_resources: [r2]\ndeny_categories: [c1, c2]\ndisabled_detectors: [email, phone]\n",
			want: `{"deny_tools": ["a", "b", "c"], "deny_resources": ["r1", "r2"], "deny_prompts": ["p1"],
				"deny_categories": ["c1", "c2"], "disabled_detectors": ["phone", "email"]}`,
		},
		{
			name:   "deny lists: a child's [] removes nothing",
			parent: "deny_tools: [a]\ndisabled_detectors: [phone]\n",
			child:  "deny_tools: []\ndisabled_detectors: []\n",
			want:   `{"deny_tools": ["a"], "disabled_detectors": ["phone"]}`,
		},
		{
			name:   "deny lists: child only",
			parent: "name: p\n",
			child:  "deny_prompts: [x]\n",
			want:   `{"name": "p", "deny_prompts": ["x"]}`,
		},
		{
			name:   "capabilities: child's allow removes from the parent's deny, child's deny adds",
			parent: "deny_capabilities: [exec, reveal, write_fs]\n",
			child:  "allow_capabilities: [exec]\ndeny_capabilities: [cloud_access]\n",
			want:   `{"deny_capabilities": ["write_fs", "cloud_access", "reveal"]}`,
		},
		{
			name:   "capabilities: child's deny wins over its own allow",
			parent: "deny_capabilities: [exec]\n",
			child:  "allow_capabilities: [exec, reveal]\ndeny_capabilities: [exec]\n",
			want:   `{"deny_capabilities": ["exec"]}`,
		},
		{
			name:   "capabilities: allow of something the parent does not deny",
			parent: "deny_capabilities: [reveal]\n",
			child:  "allow_capabilities: [read_fs]\n",
			want:   `{"deny_capabilities": ["reveal"]}`,
		},
		{
			name:   "capabilities: allow of everything empties the deny set",
			parent: "deny_capabilities: [reveal, exec]\n",
			child:  "allow_capabilities: [reveal, exec]\n",
			want:   `{}`,
		},
		{
			name:   "capabilities: parent's when the child says nothing",
			parent: "deny_capabilities: [reveal, exec]\n",
			child:  "name: c\n",
			want:   `{"name": "c", "deny_capabilities": ["exec", "reveal"]}`,
		},
		{
			name:   "roles: by name, child replaces the whole role, new roles follow",
			parent: "roles:\n  admin: {allow_tools: [a]}\n  dev: {allow_tools: [d], deny_tools: [z]}\n  ops: {}\n",
			child:  "roles:\n  qa: {}\n  dev: {name: developers, allow_tools: [x]}\n",
			want: `{"roles": {"admin": {"allow_tools": ["a"]}, "dev": {"name": "developers", "allow_tools": ["x"]},
				"ops": {}, "qa": {}}}`,
		},
		{
			name:   "rules and rate_limits: parent's first, then child's",
			parent: "rules: [{name: p0}, {name: p1}]\nrate_limits: [{rate: 1}]\n",
			child:  "rules: [{name: c0}]\nrate_limits: [{rate: 2}, {rate: 3}]\n",
			want: `{"rules": [{"name": "p0"}, {"name": "p1"}, {"name": "c0"}],
				"rate_limits": [{"rate": 1}, {"rate": 2}, {"rate": 3}]}`,
		},
		{
			name:   "rules: parent only / child only",
			parent: "rules: [{name: p0}]\n",
			child:  "rate_limits: [{rate: 2}]\n",
			want:   `{"rules": [{"name": "p0"}], "rate_limits": [{"rate": 2}]}`,
		},
		{
			name:   "detectors: by name, child replaces",
			parent: "detectors:\n  - {name: a, pattern: A}\n  - {name: b, pattern: B, label: BEE}\n",
			child:  "detectors:\n  - {name: c, pattern: C}\n  - {name: b, pattern: B2}\n",
			want: `{"detectors": [{"name": "a", "pattern": "A"}, {"name": "b", "pattern": "B2"},
				{"name": "c", "pattern": "C"}]}`,
		},
		{
			name:   "transforms and input_transforms: child's when present",
			parent: "transforms: [redact, detect]\ninput_transforms: [redact]\n",
			child:  "transforms: [{type: mask, id: m}]\n",
			want:   `{"transforms": [{"type": "mask", "id": "m"}], "input_transforms": ["redact"]}`,
		},
		{
			name:   "transforms: an empty child list replaces the parent's",
			parent: "transforms: [redact]\ninput_transforms: [redact]\n",
			child:  "transforms: []\ninput_transforms: []\n",
			want:   `{"transforms": [], "input_transforms": []}`,
		},
		{
			name: "transform_options: deep merge, lists and scalars replace",
			parent: "transform_options:\n  redact: {placeholder: P, detectors: [email, phone], fields: [a]}\n" +
				"  mask: {keep_last: 2}\n",
			child: "transform_options:\n  redact: {detectors: [iban], placeholder: Q}\n  hash: {length: 8}\n",
			want: `{"transform_options": {"redact": {"placeholder": "Q", "detectors": ["iban"], "fields": ["a"]},
				"mask": {"keep_last": 2}, "hash": {"length": 8}}}`,
		},
		{
			name:   "vault: deep merge, scalars replace (null too)",
			parent: "vault: {key_env: PARENT_KEY, scope: principal, ttl_seconds: 60, max_entries: 10, path: p.json}\n",
			child:  "vault: {ttl_seconds: 120, encrypt: false, path: null}\n",
			want: `{"vault": {"key_env": "PARENT_KEY", "scope": "principal", "ttl_seconds": 120, "max_entries": 10,
				"path": null, "encrypt": false}}`,
		},
		{
			name:   "vault and transform_options: child only",
			parent: "name: p\n",
			child:  "vault: {scope: principal}\ntransform_options: {redact: {placeholder: x}}\n",
			want:   `{"name": "p", "vault": {"scope": "principal"}, "transform_options": {"redact": {"placeholder": "x"}}}`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := exFS{"base.yaml": c.parent, "child.yaml": "extends: base.yaml\n" + c.child}
			flat, errs := fs.flatten(t, "child.yaml")
			if len(errs) > 0 {
				t.Fatalf("Flatten: %v", errs)
			}
			exSameDoc(t, "Flatten", flat, c.want)
			if flat.Get("extends") != nil {
				t.Error("flattened document still has extends")
			}
			if flat.Get("allow_capabilities") != nil {
				t.Error("flattened document keeps allow_capabilities (already applied to deny_capabilities)")
			}
			p := fs.mustParse(t, "child.yaml")
			exSameDoc(t, "ParsePolicy(...).Document()", p.Document(), c.want)
			// The flattened document, decoded on its own, is the same policy.
			p2 := cfParse(t, p.Document().JSON(""))
			exSameDoc(t, "re-parsed Document()", p2.Document(), c.want)
			if p2.Access.DenyCapabilities != p.Access.DenyCapabilities {
				t.Errorf("re-parsed deny_capabilities %v, want %v", p2.Access.DenyCapabilities, p.Access.DenyCapabilities)
			}
		})
	}
}

// TestExtendsDecodedPolicy checks the merged policy as decoded, for rows
// whose effect is easier to see there.
func TestExtendsDecodedPolicy(t *testing.T) {
	fs := exFS{
		"base.yaml": `
name: base
max_sensitivity: internal
allow_tools: [a*]
deny_tools: [a_secret]
deny_capabilities: [exec, reveal]
roles:
  admin: {allow_tools: ["*"]}
  dev: {deny_tools: [z]}
rules:
  - {}
  - name: p1
rate_limits:
  - {rate: 1}
`,
		"child.yaml": `
extends: base.yaml
max_sensitivity: null
allow_tools: null
deny_tools: [b_secret]
allow_capabilities: [exec]
roles:
  qa: {}
  dev: {name: developers, allow_tools: [x]}
rules:
  - {}
  - name: c1
  - {}
rate_limits:
  - {rate: 2}
`,
	}
	p := fs.mustParse(t, "child.yaml")
	if p.Name != "base" || p.Access.MaxSensitivity != SensitivityUnset || p.Access.AllowTools != nil {
		t.Errorf("name=%q max_sensitivity=%v allow_tools=%v", p.Name, p.Access.MaxSensitivity, p.Access.AllowTools.Patterns())
	}
	if !p.Access.DenyTools.Match("a_secret") || !p.Access.DenyTools.Match("b_secret") {
		t.Errorf("deny_tools = %q, want the union", p.Access.DenyTools.Patterns())
	}
	if p.Access.DenyCapabilities != cfCaps(Reveal) {
		t.Errorf("effective deny = %v, want reveal", p.Access.DenyCapabilities)
	}
	want := []string{"role:admin", "developers", "role:qa", "rule[0]", "p1", "rule[2]", "c1", "rule[4]"}
	if got := cfRuleNames(p.Rules); !slices.Equal(got, want) {
		t.Fatalf("rules = %q, want %q", got, want)
	}
	if p.Roles != 3 {
		t.Errorf("Roles = %d, want 3", p.Roles)
	}
	for i, r := range p.Rules {
		if r.Index != i {
			t.Errorf("%s: Index %d, want %d", r.Name, r.Index, i)
		}
	}
	dev := p.Rules[1]
	if dev.Role != "dev" || !dev.Access.AllowTools.Match("x") || dev.Access.DenyTools.Match("z") {
		t.Errorf("role dev should be the child's whole role: role=%q allow=%q deny=%q",
			dev.Role, dev.Access.AllowTools.Patterns(), dev.Access.DenyTools.Patterns())
	}
	if got := []string{p.Rules[3].Path, p.Rules[6].Path}; !slices.Equal(got, []string{"rules[0]", "rules[3]"}) {
		t.Errorf("rule paths = %q, want paths in the flattened list", got)
	}
	if len(p.RateLimits) != 2 || p.RateLimits[0].Rate != 1 || p.RateLimits[1].Rate != 2 ||
		p.RateLimits[1].Path != "rate_limits[1]" {
		t.Errorf("rate_limits = %+v", p.RateLimits)
	}
}

func TestExtendsCapabilitiesThreeLevels(t *testing.T) {
	cases := []struct {
		name                string
		grand, parent, kid  string
		want                CapabilitySet
		wantParent, wantTop CapabilitySet
	}{
		{
			name:       "subtract and add at each level",
			grand:      "deny_capabilities: [exec, reveal, write_fs]\n",
			parent:     "allow_capabilities: [reveal]\ndeny_capabilities: [cloud_access]\n",
			kid:        "allow_capabilities: [exec]\ndeny_capabilities: [reveal]\n",
			wantTop:    cfCaps(Exec, Reveal, WriteFS),
			wantParent: cfCaps(Exec, WriteFS, CloudAccess),
			want:       cfCaps(WriteFS, CloudAccess, Reveal),
		},
		{
			name:       "an ancestor's allow does not cancel a later deny",
			grand:      "allow_capabilities: [exec]\ndeny_capabilities: [reveal]\n",
			parent:     "deny_capabilities: [exec]\n",
			kid:        "name: kid\n",
			wantTop:    cfCaps(Reveal),
			wantParent: cfCaps(Exec, Reveal),
			want:       cfCaps(Exec, Reveal),
		},
		{
			name:       "a grandchild may allow what the grandparent denied",
			grand:      "deny_capabilities: [exec]\n",
			parent:     "deny_capabilities: [write_state]\n",
			kid:        "allow_capabilities: [exec, write_state]\n",
			wantTop:    cfCaps(Exec),
			wantParent: cfCaps(Exec, WriteState),
			want:       0,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := exFS{
				"grand.yaml":  c.grand,
				"parent.yaml": "extends: grand.yaml\n" + c.parent,
				"kid.yaml":    "extends: parent.yaml\n" + c.kid,
			}
			for file, want := range map[string]CapabilitySet{"grand.yaml": c.wantTop, "parent.yaml": c.wantParent, "kid.yaml": c.want} {
				if got := fs.mustParse(t, file).Access.DenyCapabilities; got != want {
					t.Errorf("%s: effective deny = {%v}, want {%v}", file, got, want)
				}
			}
		})
	}
	// Through the built-in profiles.
	p := cfParse(t, `{"extends": "strict", "allow_capabilities": ["write_fs", "reveal"], "deny_capabilities": ["read_fs"]}`)
	if want := cfCaps(WriteState, CloudAccess, Exec, ReadFS); p.Access.DenyCapabilities != want {
		t.Errorf("strict with allow write_fs, reveal and deny read_fs: deny = {%v}, want {%v}", p.Access.DenyCapabilities, want)
	}
}

// manual 5.2's profiles, copied as written.
const exSpecProfiles = `
permissive: {name: permissive, deny_capabilities: [reveal],
             transforms: [{type: redact, id: secrets, options: {detectors: ["@secrets"]}}]}
standard:   {name: standard, extends: permissive, deny_capabilities: [exec],
             max_sensitivity: confidential,
             transforms: [{type: redact, id: secrets, options: {detectors: ["@secrets"]}},
                          {type: pseudonymise, id: pii, options: {detectors: ["@pii"]}}]}
strict:     {name: strict, extends: standard,
             deny_capabilities: [write_state, write_fs, cloud_access],
             max_sensitivity: internal, audit: true,
             input_transforms: [{type: redact, id: secrets_in, options: {detectors: ["@secrets"]}}]}
audit-only: {name: audit-only, deny_capabilities: [reveal], transforms: [detect], audit: true}
`

func TestExtendsBuiltinProfiles(t *testing.T) {
	spec, err := ParseYAML([]byte(exSpecProfiles))
	if err != nil {
		t.Fatal(err)
	}
	if len(Profiles) != 4 || !slices.Equal(ProfileNames, []string{"permissive", "standard", "strict", "audit-only"}) {
		t.Errorf("profiles = %v, want exactly permissive, standard, strict, audit-only", ProfileNames)
	}
	const secrets = `{"type": "redact", "id": "secrets", "options": {"detectors": ["@secrets"]}}`
	const pii = `{"type": "pseudonymise", "id": "pii", "options": {"detectors": ["@pii"]}}`
	const secretsIn = `{"type": "redact", "id": "secrets_in", "options": {"detectors": ["@secrets"]}}`
	flat := map[string]string{
		"permissive": `{"name": "permissive", "deny_capabilities": ["reveal"], "transforms": [` + secrets + `]}`,
		"standard": `{"name": "standard", "deny_capabilities": ["exec", "reveal"], "max_sensitivity": "confidential",
			"transforms": [` + secrets + `, ` + pii + `]}`,
		"strict": `{"name": "strict", "deny_capabilities": ["write_state", "write_fs", "cloud_access", "exec", "reveal"],
			"max_sensitivity": "internal", "audit": true, "transforms": [` + secrets + `, ` + pii + `],
			"input_transforms": [` + secretsIn + `]}`,
		"audit-only": `{"name": "audit-only", "deny_capabilities": ["reveal"], "transforms": ["detect"], "audit": true}`,
	}
	for _, name := range ProfileNames {
		t.Run(name, func(t *testing.T) {
			src, ok := Profiles[name]
			if !ok {
				t.Fatalf("no profile %q", name)
			}
			raw, err := ParseJSON([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			cfSameJSON(t, "profile as written vs spec 5.2", raw, spec.Get(name).JSON(""))

			got, errs := Flatten(raw, "", nil)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			exSameDoc(t, "Flatten", got, flat[name])

			p, errs := DecodePolicy(String(name), "", Options{})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			exSameDoc(t, "DecodePolicy(profile name).Document()", p.Document(), flat[name])
			exSameDoc(t, "extends: name", cfParse(t, `{"extends": "`+name+`"}`).Document(), flat[name])
			env, errs := ParseEnvelope([]byte(`{"policy": "`+name+`"}`), Options{})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			exSameDoc(t, "envelope policy: name", env.Policy.Document(), flat[name])
			if !p.HideDenied || !p.HonorHints || p.AuditSize != 1000 || len(p.Rules) != 0 {
				t.Errorf("defaults: hide_denied=%v honor_hints=%v audit_size=%d rules=%d", p.HideDenied, p.HonorHints, p.AuditSize, len(p.Rules))
			}
		})
	}

	strict := cfParse(t, `{"extends": "strict"}`)
	if strict.Name != "strict" || !strict.Audit || strict.Access.MaxSensitivity != Internal {
		t.Errorf("strict: name=%q audit=%v max_sensitivity=%v", strict.Name, strict.Audit, strict.Access.MaxSensitivity)
	}
	if want := cfCaps(WriteState, WriteFS, CloudAccess, Exec, Reveal); strict.Access.DenyCapabilities != want {
		t.Errorf("strict deny = {%v}, want {%v}", strict.Access.DenyCapabilities, want)
	}
	if got := cfEntryIDs(strict.Transforms); !slices.Equal(got, []string{"redact:secrets", "pseudonymise:pii"}) {
		t.Errorf("strict transforms = %v", got)
	}
	if got := cfEntryIDs(strict.InputTransforms); !slices.Equal(got, []string{"redact:secrets_in"}) {
		t.Errorf("strict input_transforms = %v", got)
	}
	std := cfParse(t, `{"extends": "standard"}`)
	if std.Access.MaxSensitivity != Confidential || std.Audit || std.Access.DenyCapabilities != cfCaps(Exec, Reveal) || len(std.InputTransforms) != 0 {
		t.Errorf("standard: max=%v audit=%v deny={%v} input=%v", std.Access.MaxSensitivity, std.Audit, std.Access.DenyCapabilities, std.InputTransforms)
	}
	ao := cfParse(t, `{"extends": "audit-only"}`)
	if got := cfEntryIDs(ao.Transforms); !ao.Audit || !slices.Equal(got, []string{"detect:detect"}) || ao.Access.DenyCapabilities != cfCaps(Reveal) {
		t.Errorf("audit-only: audit=%v transforms=%v deny={%v}", ao.Audit, got, ao.Access.DenyCapabilities)
	}
	perm := cfParse(t, `{"extends": "permissive"}`)
	if perm.Access.MaxSensitivity != SensitivityUnset || perm.Audit || perm.Access.DenyCapabilities != cfCaps(Reveal) {
		t.Errorf("permissive: max=%v audit=%v deny={%v}", perm.Access.MaxSensitivity, perm.Audit, perm.Access.DenyCapabilities)
	}
}

// TestExtendsProfileReferences: a child may refer to what its ancestors
// define (transform ids, custom detectors).
func TestExtendsProfileReferences(t *testing.T) {
	cfParse(t, `{"extends": "standard", "transform_options": {"pii": {"detectors": ["email"]}, "secrets": {"placeholder": "[s]"}}}`)
	cfParse(t, `{"extends": "strict", "rules": [{"transform_options": {"secrets_in": {"placeholder": "?"}}}]}`)
	fs := exFS{
		"base.yaml": "detectors: [{name: emp, pattern: 'E-\\d+'}]\ntransforms: [{type: mask, id: cards}]\n" +
			"rules: [{input_transforms: [{type: hash, id: hh}]}]\n",
		"child.yaml": "extends: base.yaml\ndisabled_detectors: [emp]\n" +
			"transform_options: {cards: {keep_last: 1, detectors: [emp]}, hh: {length: 4}}\n",
	}
	fs.mustParse(t, "child.yaml")

	cfRunErrCases(t, []cfErrCase{
		{name: "option-of-inherited-id", src: `{"extends": "standard", "transform_options": {"pii": {"placeholder": "x"}}}`,
			paths: []string{"transform_options.pii.placeholder"}, contains: []string{`unknown option "placeholder" for transform pseudonymise`}},
		{name: "unknown-id", src: `{"extends": "standard", "transform_options": {"pi": {}}}`, paths: []string{"transform_options.pi"}},
		{name: "unknown-detector", src: `{"extends": "strict", "disabled_detectors": ["emp"]}`, paths: []string{"disabled_detectors[0]"}},
	})
}

func TestExtendsCycles(t *testing.T) {
	cases := []struct {
		name  string
		fs    exFS
		root  string
		chain string
	}{
		{"a-b-a", exFS{"a.yaml": "extends: b.yaml\n", "b.yaml": "extends: a.yaml\n"}, "a.yaml", "a.yaml -> b.yaml -> a.yaml"},
		{"self", exFS{"a.yaml": "name: a\nextends: a.yaml\n"}, "a.yaml", "a.yaml -> a.yaml"},
		{"self-dot-slash", exFS{"dir/a.yaml": "extends: ./a.yaml\n"}, "dir/a.yaml", "dir/a.yaml -> dir/a.yaml"},
		{"self-up-and-back", exFS{"x/a.yaml": "extends: ../x/a.yaml\n"}, "x/a.yaml", "x/a.yaml -> x/a.yaml"},
		{"root-not-clean", exFS{"./a.yaml": "extends: b.yaml\n", "a.yaml": "extends: b.yaml\n", "b.yaml": "extends: a.yaml\n"}, "./a.yaml", "a.yaml -> b.yaml -> a.yaml"},
		{"a-b-c-b", exFS{"a.yaml": "extends: b.yaml\n", "b.yaml": "extends: c.yaml\n", "c.yaml": "extends: b.yaml\n"},
			"a.yaml", "a.yaml -> b.yaml -> c.yaml -> b.yaml"},
		{"through-dirs", exFS{"p/a.yaml": "extends: ../q/b.yaml\n", "q/b.yaml": "extends: ../p/a.yaml\n"},
			"p/a.yaml", "p/a.yaml -> q/b.yaml -> p/a.yaml"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errs := c.fs.flatten(t, c.root)
			_, perrs := c.fs.parse(t, c.root)
			for what, es := range map[string]Errors{"Flatten": errs, "ParsePolicy": perrs} {
				if len(es) != 1 {
					t.Errorf("%s: errors = %v, want one cycle error", what, es)
					continue
				}
				if !strings.Contains(es[0].Msg, "cycle") || !strings.Contains(es[0].Msg, c.chain) {
					t.Errorf("%s: %q does not name the chain %q", what, es[0].Error(), c.chain)
				}
				if !strings.HasSuffix(es[0].Path, "extends") {
					t.Errorf("%s: path %q, want the extends key", what, es[0].Path)
				}
			}
		})
	}
}

// exChain makes root.yaml with n ancestor files f1..fn; the last one
// extends last ("" for nothing).
func exChain(n int, last string) exFS {
	fs := exFS{}
	prev := "root.yaml"
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("f%d.yaml", i)
		fs[prev] = fmt.Sprintf("extends: %s\ndeny_tools: [t%d]\n", name, i-1)
		prev = name
	}
	if last != "" {
		fs[prev] = "extends: " + last + "\n"
	} else {
		fs[prev] = "name: top\n"
	}
	return fs
}

func TestExtendsDepth(t *testing.T) {
	for _, c := range []struct {
		files int
		last  string
		ok    bool
	}{
		{1, "", true},
		{7, "", true},
		{8, "", true},
		{9, "", false},
		{12, "", false},
		{5, "strict", true}, // 5 files + strict, standard, permissive = 8 ancestors
		{6, "strict", false},
		{6, "standard", true}, // 6 files + standard, permissive
		{7, "standard", false},
		{8, "audit-only", false},
		{7, "audit-only", true},
	} {
		name := fmt.Sprintf("%d-files-then-%q", c.files, c.last)
		t.Run(name, func(t *testing.T) {
			fs := exChain(c.files, c.last)
			_, errs := fs.flatten(t, "root.yaml")
			p, perrs := fs.parse(t, "root.yaml")
			if c.ok {
				if len(errs) > 0 || len(perrs) > 0 {
					t.Fatalf("want success, got %v / %v", errs, perrs)
				}
				if !p.Access.DenyTools.Match("t0") || !p.Access.DenyTools.Match(fmt.Sprintf("t%d", c.files-1)) {
					t.Errorf("deny_tools = %q, want the union of the whole chain", p.Access.DenyTools.Patterns())
				}
				return
			}
			for what, es := range map[string]Errors{"Flatten": errs, "ParsePolicy": perrs} {
				if len(es) != 1 || !strings.Contains(es[0].Msg, "deeper than 8") {
					t.Errorf("%s: errors = %v, want one depth error", what, es)
				}
			}
		})
	}
}

func TestExtendsPluginMode(t *testing.T) {
	cases := []struct {
		src, path, want string
	}{
		{`{"extends": "nope"}`, "extends", `unknown profile "nope"`},
		{`{"extends": "Strict"}`, "extends", `unknown profile "Strict"`},
		{`{"extends": "base.yaml"}`, "extends", `unknown profile "base.yaml"`},
		{"extends: ./policies/base.yaml\n", "extends", `unknown profile "./policies/base.yaml"`},
	}
	for _, c := range cases {
		errs := cfErrors(t, c.src)
		if len(errs) != 1 || errs[0].Path != c.path || !strings.Contains(errs[0].Msg, c.want) ||
			!strings.Contains(errs[0].Msg, "permissive, standard, strict, audit-only") {
			t.Errorf("%q: errors = %v, want one at %s with %s and the profile names", c.src, errs, c.path, c.want)
		}
		_, eerrs := ParseEnvelope([]byte(`{"policy": `+strings.TrimSpace(mustJSON(t, c.src))+`}`), Options{})
		if len(eerrs) != 1 || eerrs[0].Path != "policy."+c.path {
			t.Errorf("envelope: errors = %v, want one at policy.%s", eerrs, c.path)
		}
	}
	if _, errs := DecodePolicy(String("nope"), "", Options{}); len(errs) != 1 || !strings.Contains(errs[0].Msg, `unknown profile "nope"`) {
		t.Errorf("DecodePolicy(\"nope\") errors = %v", errs)
	}
	if _, errs := ParseEnvelope([]byte(`{"policy": "nope"}`), Options{}); len(errs) != 1 || errs[0].Path != "policy" {
		t.Errorf("policy: nope errors = %v, want one at policy", errs)
	}
	// Flatten in plugin mode.
	doc, _ := ParseJSON([]byte(`{"extends": "nope"}`))
	if _, errs := Flatten(doc, "", nil); len(errs) != 1 || errs[0].Path != "extends" {
		t.Errorf("Flatten: errors = %v", errs)
	}
}

func mustJSON(t testing.TB, src string) string {
	t.Helper()
	v, err := ParseDocument([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return v.JSON("")
}

func TestExtendsParentErrors(t *testing.T) {
	t.Run("parent-with-errors", func(t *testing.T) {
		fs := exFS{
			"base.yaml":  "audit_size: -1\nrules:\n  - bogus: 1\n",
			"child.yaml": "extends: base.yaml\nname: c\n",
		}
		for what, errs := range map[string]Errors{"Flatten": second(fs.flatten(t, "child.yaml")), "ParsePolicy": second(fs.parse(t, "child.yaml"))} {
			if len(errs) != 2 {
				t.Errorf("%s: errors = %v, want 2", what, errs)
				continue
			}
			for i, suffix := range []string{"audit_size", "rules[0].bogus"} {
				if errs[i].File != "base.yaml" || errs[i].Path != suffix || !strings.HasPrefix(errs[i].Error(), "base.yaml: "+suffix+": ") {
					t.Errorf("%s: errors[%d] = %q in file %q, want base.yaml: %s", what, i, errs[i].Path, errs[i].File, suffix)
				}
			}
		}
	})
	t.Run("parent-and-child-errors", func(t *testing.T) {
		fs := exFS{
			"base.yaml":  "audit_size: -1\n",
			"child.yaml": "extends: base.yaml\nhide_denied: maybe\n",
		}
		_, errs := fs.parse(t, "child.yaml")
		var got []string
		for _, e := range errs {
			got = append(got, e.File+"|"+e.Path)
		}
		sort.Strings(got)
		if len(got) != 2 || got[0] != "base.yaml|audit_size" || got[1] != "|hide_denied" {
			t.Errorf("errors = %v, want the parent's and the child's", errs)
		}
	})
	t.Run("grandparent", func(t *testing.T) {
		fs := exFS{
			"a.yaml":      "extends: sub/b.yaml\n",
			"sub/b.yaml":  "extends: ../c/c.yaml\n",
			"c/c.yaml":    "rules: [{match: {kinds: [tools]}}]\n",
			"other.yaml":  "name: x\n",
			"unused.yaml": "bogus: 1\n",
		}
		_, errs := fs.parse(t, "a.yaml")
		if len(errs) != 1 || errs[0].File != "c/c.yaml" || errs[0].Path != "rules[0].match.kinds[0]" ||
			!strings.Contains(errs[0].Msg, `unknown kind "tools"`) {
			t.Errorf("errors = %v, want one in c/c.yaml", errs)
		}
	})
	t.Run("parent-does-not-parse", func(t *testing.T) {
		fs := exFS{"base.yaml": "a: [\n", "child.yaml": "extends: base.yaml\n"}
		_, errs := fs.parse(t, "child.yaml")
		if len(errs) != 1 || errs[0].File != "base.yaml" || !strings.Contains(errs[0].Msg, "YAML") {
			t.Errorf("errors = %v, want one at base.yaml", errs)
		}
		fs = exFS{"base.json": `{"a": 1, "a": 2}`, "child.yaml": "extends: base.json\n"}
		_, errs = fs.parse(t, "child.yaml")
		if len(errs) != 1 || errs[0].File != "base.json" || !strings.Contains(errs[0].Msg, "duplicate") {
			t.Errorf("errors = %v, want one at base.json", errs)
		}
	})
	t.Run("parent-missing", func(t *testing.T) {
		fs := exFS{"dir/child.yaml": "extends: base.yaml\n"}
		_, errs := fs.parse(t, "dir/child.yaml")
		if len(errs) != 1 || errs[0].Path != "extends" || !strings.Contains(errs[0].Msg, "cannot read") ||
			!strings.Contains(errs[0].Msg, "base.yaml") {
			t.Errorf("errors = %v, want one at extends saying it cannot read base.yaml", errs)
		}
	})
	t.Run("parent-vault-key-not-echoed", func(t *testing.T) {
		fs := exFS{"base.yaml": "vault: {key: 987654321}\n", "child.yaml": "extends: base.yaml\n"}
		_, errs := fs.parse(t, "child.yaml")
		if len(errs) == 0 || strings.Contains(errs.Error(), "987654321") {
			t.Errorf("errors = %v, want an error that does not echo the key", errs)
		}
	})
}

func second[A, B any](_ A, b B) B { return b }

// TestExtendsRelativePaths: a file named by extends resolves against the
// directory of the file that names it.
func TestExtendsRelativePaths(t *testing.T) {
	fs := exFS{
		"policies/team/child.yaml":    "extends: ../base.yaml\nname: child\n",
		"policies/base.yaml":          "extends: shared/common.yaml\ndeny_tools: [b]\n",
		"policies/shared/common.yaml": "extends: /etc/mcp/root.yaml\ndeny_tools: [c]\n",
		"/etc/mcp/root.yaml":          "extends: standard\ndeny_tools: [r]\n",
	}
	var calls []string
	p, errs := ParsePolicy([]byte(fs["policies/team/child.yaml"]), Options{File: "policies/team/child.yaml", ReadFile: fs.reader(&calls)})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []string{"policies/base.yaml", "policies/shared/common.yaml", "/etc/mcp/root.yaml"}
	// Reading a file more than once is allowed; reading another is not.
	if got := slices.Compact(slices.Clone(calls)); !slices.Equal(got, want) && !sameSet(calls, want) {
		t.Errorf("ReadFile calls = %q, want %q", calls, want)
	}
	if got := p.Access.DenyTools.Patterns(); !slices.Equal(got, []string{"r", "c", "b"}) {
		t.Errorf("deny_tools = %q, want root's, then common's, then base's", got)
	}
	if p.Name != "child" || p.Access.DenyCapabilities != cfCaps(Exec, Reveal) {
		t.Errorf("name=%q deny={%v}", p.Name, p.Access.DenyCapabilities)
	}
	// No file: relative to the working directory.
	calls = nil
	fs2 := exFS{"base.yaml": "name: b\n"}
	if _, errs := ParsePolicy([]byte("extends: base.yaml\n"), Options{ReadFile: fs2.reader(&calls)}); len(errs) > 0 || !slices.Contains(calls, "base.yaml") {
		t.Errorf("errors %v, calls %q", errs, calls)
	}
}

func sameSet(a, b []string) bool {
	m := map[string]bool{}
	for _, s := range a {
		m[s] = true
	}
	if len(m) != len(b) {
		return false
	}
	for _, s := range b {
		if !m[s] {
			return false
		}
	}
	return true
}
