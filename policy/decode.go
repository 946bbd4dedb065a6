package policy

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// decoder turns Values into typed configuration, collecting every error
// with its JSON path instead of stopping at the first.
type decoder struct {
	errs Errors
	// partial skips checks that need the whole extends chain (references to
	// transform ids and custom detectors a parent may define).
	partial bool
	// customDetectors are the names of the policy's custom detectors, for
	// checking references.
	customDetectors map[string]bool
	// transformIDs maps every transform id in the policy to its type.
	transformIDs map[string]string
	// inherited is the flattened parent of the policy being decoded: its
	// custom detectors and transform ids may be referenced.
	inherited *Value
}

func (d *decoder) fail(path, format string, args ...any) { d.errs.add(path, format, args...) }

func (d *decoder) wrongType(path string, v *Value, want string) {
	d.fail(path, "want %s, got %s", want, v.describe())
}

// object checks that v is an object whose keys are all in allowed.
func (d *decoder) object(v *Value, path string, allowed []string) bool {
	if v.Kind != ObjectValue {
		d.wrongType(path, v, "object")
		return false
	}
	for _, m := range v.Object {
		if !contains(allowed, m.Key) {
			d.fail(joinPath(path, m.Key), "unknown key %q (want one of %s)", m.Key, quoteList(allowed))
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// isStr reports whether key is present in o as a string (so checks on its
// value make sense; a wrong type was already reported by str).
func isStr(o *Value, key string) bool {
	v := o.Get(key)
	return v != nil && v.Kind == StringValue
}

func (d *decoder) str(o *Value, key, path, def string) string {
	v := o.Get(key)
	if v == nil {
		return def
	}
	if v.Kind != StringValue {
		d.wrongType(joinPath(path, key), v, "string")
		return def
	}
	return v.Text
}

// nullableStr returns "" for null or absent.
func (d *decoder) nullableStr(o *Value, key, path string) string {
	if v := o.Get(key); v != nil && v.Kind == NullValue {
		return ""
	}
	return d.str(o, key, path, "")
}

func (d *decoder) boolean(o *Value, key, path string, def bool) bool {
	v := o.Get(key)
	if v == nil {
		return def
	}
	if v.Kind != BoolValue {
		d.wrongType(joinPath(path, key), v, "bool")
		return def
	}
	return v.Bool
}

// nullableBool returns nil for null or absent.
func (d *decoder) nullableBool(o *Value, key, path string) *bool {
	v := o.Get(key)
	if v == nil || v.Kind == NullValue {
		return nil
	}
	if v.Kind != BoolValue {
		d.wrongType(joinPath(path, key), v, "bool or null")
		return nil
	}
	b := v.Bool
	return &b
}

// integer reads an integer >= min.
func (d *decoder) integer(o *Value, key, path string, def, min int) int {
	v := o.Get(key)
	if v == nil {
		return def
	}
	return d.intValue(v, joinPath(path, key), def, min)
}

func (d *decoder) intValue(v *Value, path string, def, min int) int {
	want := "integer >= " + strconv.Itoa(min)
	if v.Kind != NumberValue || v.Num != math.Trunc(v.Num) || math.Abs(v.Num) > 1<<53 {
		d.wrongType(path, v, want)
		return def
	}
	if int(v.Num) < min {
		d.fail(path, "want %s, got %s", want, v.Text)
		return def
	}
	return int(v.Num)
}

// positive reads a number > 0.
func (d *decoder) positive(v *Value, path string) float64 {
	if v.Kind != NumberValue {
		d.wrongType(path, v, "number > 0")
		return 0
	}
	if !(v.Num > 0) {
		d.fail(path, "want number > 0, got %s", v.Text)
		return 0
	}
	return v.Num
}

// list checks that v is a list and calls each for every element.
func (d *decoder) list(v *Value, path, want string, each func(e *Value, path string)) bool {
	if v.Kind != ArrayValue {
		d.wrongType(path, v, want)
		return false
	}
	for i, e := range v.Array {
		each(e, indexPath(path, i))
	}
	return true
}

func (d *decoder) strings(o *Value, key, path string) []string {
	v := o.Get(key)
	if v == nil {
		return nil
	}
	out := []string{}
	d.list(v, joinPath(path, key), "list of strings", func(e *Value, p string) {
		if e.Kind != StringValue {
			d.wrongType(p, e, "string")
			return
		}
		out = append(out, e.Text)
	})
	return out
}

// globs reads a list of globs. Absent gives def; null gives nil when
// nullable (else an error); a list gives a compiled, non-nil GlobList.
func (d *decoder) globs(o *Value, key, path string, nullable bool, def *GlobList) *GlobList {
	v := o.Get(key)
	if v == nil {
		return def
	}
	p := joinPath(path, key)
	if v.Kind == NullValue && nullable {
		return nil
	}
	want := "list of globs"
	if nullable {
		want = "list of globs or null"
	}
	var patterns []string
	if !d.list(v, p, want, func(e *Value, ep string) {
		if e.Kind != StringValue {
			d.wrongType(ep, e, "glob string")
			patterns = append(patterns, "")
			return
		}
		patterns = append(patterns, e.Text)
	}) {
		return def
	}
	for i, pat := range patterns {
		if len(pat) > maxGlobBytes {
			d.fail(indexPath(p, i), "glob longer than %d bytes", maxGlobBytes)
			return def
		}
	}
	g, errs := CompileGlobs(patterns)
	for _, ge := range errs {
		switch {
		case ge.Index < 0: // the list as a whole
			msg := ge.Msg
			if i := strings.Index(msg, ": `"); i >= 0 {
				msg = msg[:i] // RE2 quotes the whole expression
			}
			d.fail(p, "the list cannot be compiled into one expression (%s); split or simplify it", msg)
		case v.Array[ge.Index].Kind == StringValue:
			d.fail(indexPath(p, ge.Index), "bad glob %q: %s", ge.Pattern, ge.Msg)
		}
	}
	if len(errs) > 0 {
		return def
	}
	return g
}

// maxGlobBytes bounds one pattern, which keeps compiling a list fast.
const maxGlobBytes = 1024

func emptyGlobs() *GlobList { return MustCompileGlobs() }

func (d *decoder) sensitivity(v *Value, path string) Sensitivity {
	if v.Kind != StringValue {
		d.wrongType(path, v, "sensitivity ("+wantSensitivities+")")
		return SensitivityUnset
	}
	s, ok := ParseSensitivity(v.Text)
	if !ok {
		d.fail(path, "unknown sensitivity %q (want %s)", v.Text, wantSensitivities)
	}
	return s
}

func (d *decoder) capabilities(o *Value, key, path string) CapabilitySet {
	var set CapabilitySet
	v := o.Get(key)
	if v == nil {
		return 0
	}
	d.list(v, joinPath(path, key), "list of capabilities", func(e *Value, p string) {
		if e.Kind != StringValue {
			d.wrongType(p, e, "capability ("+wantCapabilities+")")
			return
		}
		c, ok := ParseCapability(e.Text)
		if !ok {
			d.fail(p, "unknown capability %q (want %s)", e.Text, wantCapabilities)
			return
		}
		set = set.With(c)
	})
	return set
}

func (d *decoder) kinds(o *Value, key, path string, withCompletion bool) KindSet {
	var set KindSet
	v := o.Get(key)
	if v == nil {
		return 0
	}
	want := wantKinds
	if withCompletion {
		want = wantRateKinds
	}
	d.list(v, joinPath(path, key), "list of kinds", func(e *Value, p string) {
		if e.Kind != StringValue {
			d.wrongType(p, e, "kind ("+want+")")
			return
		}
		k, ok := ParseKind(e.Text, withCompletion)
		if !ok {
			d.fail(p, "unknown kind %q (want %s)", e.Text, want)
			return
		}
		set |= 1 << k
	})
	return set
}

func (d *decoder) enum(o *Value, key, path string, names []string, want string, def int) int {
	v := o.Get(key)
	if v == nil {
		return def
	}
	p := joinPath(path, key)
	if v.Kind != StringValue {
		d.wrongType(p, v, "one of "+want)
		return def
	}
	for i, n := range names {
		if n == v.Text {
			return i
		}
	}
	d.fail(p, "unknown %s %q (want %s)", key, v.Text, want)
	return def
}

// access reads the AccessRules fields. At policy level deny lists default to
// [] and allow lists to null; in rules null and [] both mean "nothing".
func (d *decoder) access(o *Value, path string) AccessRules {
	var a AccessRules
	empty := emptyGlobs()
	a.AllowTools = d.globs(o, "allow_tools", path, true, nil)
	a.DenyTools = d.globs(o, "deny_tools", path, false, empty)
	a.AllowResources = d.globs(o, "allow_resources", path, true, nil)
	a.DenyResources = d.globs(o, "deny_resources", path, false, empty)
	a.AllowPrompts = d.globs(o, "allow_prompts", path, true, nil)
	a.DenyPrompts = d.globs(o, "deny_prompts", path, false, empty)
	a.AllowCategories = d.globs(o, "allow_categories", path, true, nil)
	a.DenyCategories = d.globs(o, "deny_categories", path, false, empty)
	a.AllowCapabilities = d.capabilities(o, "allow_capabilities", path)
	a.DenyCapabilities = d.capabilities(o, "deny_capabilities", path)
	if v := o.Get("max_sensitivity"); v != nil && v.Kind != NullValue {
		a.MaxSensitivity = d.sensitivity(v, joinPath(path, "max_sensitivity"))
	}
	return a
}

// The keys each object accepts come from the schema's table (schema.go).
var (
	accessKeys    = fieldKeys(accessFields)
	policyKeys    = objectKeys("PolicyConfig")
	ruleKeys      = objectKeys("RuleConfig")
	matchKeys     = objectKeys("RuleMatch")
	entryKeys     = objectKeys("TransformEntry")
	rateLimitKeys = objectKeys("RateLimit")
	vaultKeys     = objectKeys("Vault")
	detectorKeys  = objectKeys("Detector")
	envelopeKeys  = objectKeys("Envelope")
	serverKeys    = objectKeys("Server")
	primitiveKeys = objectKeys("Primitive")
	primMatchKeys = objectKeys("PrimitiveMatch")
	identityKeys  = objectKeys("Identity")
	jwtKeys       = objectKeys("JWT")
	sourceKeys    = objectKeys("IdentitySource")
	gatewayKeys   = objectKeys("Gateway")
)

// policy decodes a PolicyConfig. With d.partial it only checks the
// document's own structure (one link of an extends chain).
func (d *decoder) policy(v *Value, path string) *Policy {
	if !d.object(v, path, policyKeys) {
		return nil
	}
	p := &Policy{doc: v}
	p.Name = d.str(v, "name", path, "custom")
	p.Description = d.str(v, "description", path, "")
	if e := v.Get("extends"); e != nil && e.Kind != NullValue && e.Kind != StringValue {
		d.wrongType(joinPath(path, "extends"), e, "profile name, file or null")
	}
	p.HideDenied = d.boolean(v, "hide_denied", path, true)
	p.HonorHints = d.boolean(v, "honor_hints", path, true)
	p.Audit = d.boolean(v, "audit", path, false)
	p.AuditSize = d.integer(v, "audit_size", path, 1000, 0)
	p.Access = d.access(v, path)
	// A policy's own allow_capabilities only subtracts from an inherited
	// deny set; Flatten has already applied it (manual 5.2).
	p.Access.AllowCapabilities = 0

	p.Detectors = d.detectors(v, path)
	d.customDetectors = map[string]bool{}
	for _, dc := range p.Detectors {
		d.customDetectors[dc.Name] = true
	}
	if dets := d.inherited.Get("detectors"); dets != nil {
		for _, dc := range dets.Array {
			d.customDetectors[dc.Get("name").Text] = true
		}
	}
	if dd := d.strings(v, "disabled_detectors", path); dd != nil {
		p.DisabledDetectors = dd
		for i, name := range dd {
			if !d.partial && !d.knownDetector(name) {
				d.fail(indexPath(joinPath(path, "disabled_detectors"), i), "unknown detector %q (want a built-in or custom detector name)", name)
			}
		}
	}

	// Transform entries first, so transform_options can be checked
	// against every id the policy uses.
	d.transformIDs = map[string]string{}
	p.Transforms = d.pipeline(v, "transforms", path)
	p.InputTransforms = d.pipeline(v, "input_transforms", path)

	if r := v.Get("roles"); r != nil {
		rp := joinPath(path, "roles")
		if r.Kind != ObjectValue {
			d.wrongType(rp, r, "object of role name to rule")
		} else {
			for _, m := range r.Object {
				if m.Key == "" {
					d.fail(rp, "empty role name")
				}
				rule := d.rule(m.Value, joinPath(rp, m.Key))
				if rule == nil {
					continue
				}
				rule.Role = m.Key
				if rule.Name == "" {
					rule.Name = "role:" + m.Key
				}
				if !contains(rule.Match.Roles, m.Key) {
					rule.Match.Roles = append(rule.Match.Roles, m.Key)
				}
				rule.Match.AnyRole = rule.Match.AnyRole || m.Key == "*"
				rule.Index = len(p.Rules)
				p.Rules = append(p.Rules, rule)
			}
		}
	}
	p.Roles = len(p.Rules)
	if r := v.Get("rules"); r != nil {
		d.list(r, joinPath(path, "rules"), "list of rules", func(e *Value, ep string) {
			rule := d.rule(e, ep)
			if rule == nil {
				return
			}
			if rule.Name == "" {
				rule.Name = "rule[" + strconv.Itoa(len(p.Rules)-p.Roles) + "]"
			}
			rule.Index = len(p.Rules)
			p.Rules = append(p.Rules, rule)
		})
	}
	p.RateLimits = d.rateLimits(v, path)
	p.TransformOptions = d.transformOptions(v, path)
	for _, r := range p.Rules {
		r.TransformOptions = d.transformOptions(r.Doc, r.Path)
	}
	p.Vault = d.vault(v.Get("vault"), joinPath(path, "vault"))
	p.indexRoles()
	return p
}

func (d *decoder) rule(v *Value, path string) *Rule {
	if !d.object(v, path, ruleKeys) {
		return nil
	}
	r := &Rule{Path: path, Doc: v}
	r.Name = d.str(v, "name", path, "")
	r.Description = d.str(v, "description", path, "")
	if m := v.Get("match"); m != nil {
		r.Match = d.match(m, joinPath(path, "match"))
	}
	r.Access = d.access(v, path)
	r.Transforms = d.pipeline(v, "transforms", path)
	r.TransformsMode = TransformsMode(d.enum(v, "transforms_mode", path, transformsModeNames, wantTransformModes, 0))
	r.InputTransforms = d.pipeline(v, "input_transforms", path)
	r.RateLimits = d.rateLimits(v, path)
	r.HonorHints = d.nullableBool(v, "honor_hints", path)
	return r
}

func (d *decoder) match(v *Value, path string) RuleMatch {
	var m RuleMatch
	if !d.object(v, path, matchKeys) {
		return m
	}
	m.Roles = d.strings(v, "roles", path)
	for i, r := range m.Roles {
		if r == "" {
			d.fail(indexPath(joinPath(path, "roles"), i), "empty role name")
		}
		if r == "*" {
			m.AnyRole = true
		}
	}
	nonEmpty := func(g *GlobList) *GlobList {
		if g.Len() == 0 {
			return nil // an empty list means "any"
		}
		return g
	}
	m.Principals = nonEmpty(d.globs(v, "principals", path, false, nil))
	m.Names = nonEmpty(d.globs(v, "names", path, false, nil))
	m.Categories = nonEmpty(d.globs(v, "categories", path, false, nil))
	m.Tags = d.strings(v, "tags", path)
	m.Kinds = d.kinds(v, "kinds", path, false)
	if s := v.Get("sensitivity"); s != nil {
		d.list(s, joinPath(path, "sensitivity"), "list of sensitivities", func(e *Value, p string) {
			m.Sensitivities |= 1 << d.sensitivity(e, p)
		})
		m.Sensitivities &^= 1 // SensitivityUnset from bad entries
	}
	m.Capabilities = d.capabilities(v, "capabilities", path)
	return m
}

// pipeline reads a list of transform entries.
func (d *decoder) pipeline(o *Value, key, path string) []TransformEntry {
	v := o.Get(key)
	if v == nil {
		return nil
	}
	p := joinPath(path, key)
	var out []TransformEntry
	seen := map[string]bool{}
	d.list(v, p, "list of transforms", func(e *Value, ep string) {
		var t TransformEntry
		switch e.Kind {
		case StringValue:
			t.Type = e.Text
		case ObjectValue:
			if !d.object(e, ep, entryKeys) {
				return
			}
			tv := e.Get("type")
			if tv == nil {
				d.fail(ep, "missing required key \"type\" (want one of %s)", transformTypeNames())
				return
			}
			if tv.Kind != StringValue {
				d.wrongType(joinPath(ep, "type"), tv, "transform type")
				return
			}
			t.Type = tv.Text
			t.ID = d.str(e, "id", ep, "")
			if t.ID == "" && isStr(e, "id") {
				d.fail(joinPath(ep, "id"), "empty id")
			}
			t.Options = e.Get("options")
		default:
			d.wrongType(ep, e, "transform type name or {type, id, options}")
			return
		}
		typePath := ep
		if e.Kind == ObjectValue {
			typePath = joinPath(ep, "type")
		}
		tt := LookupTransformType(t.Type)
		if tt == nil {
			d.fail(typePath, "unknown transform type %q (want %s)", t.Type, transformTypeNames())
			return
		}
		t.Type = tt.Name
		if t.ID == "" {
			t.ID = t.Type
		}
		if t.ID != t.Type && LookupTransformType(t.ID) != nil {
			d.fail(joinPath(ep, "id"), "id %q is the name of a transform type; options keyed by it would reach every %s entry (choose another id)", t.ID, LookupTransformType(t.ID).Name)
		}
		if seen[t.ID] {
			d.fail(ep, "duplicate transform id %q in one pipeline (give the entry an id)", t.ID)
		}
		seen[t.ID] = true
		if prev, ok := d.transformIDs[t.ID]; ok && prev != t.Type {
			d.fail(ep, "transform id %q is used for types %s and %s", t.ID, prev, t.Type)
		}
		d.transformIDs[t.ID] = t.Type
		if t.Options == nil {
			t.Options = Object()
		} else {
			d.options(t.Options, joinPath(ep, "options"), tt)
		}
		out = append(out, t)
	})
	return out
}

// options checks an option map against a transform type.
func (d *decoder) options(v *Value, path string, tt *TransformType) {
	if v.Kind != ObjectValue {
		d.wrongType(path, v, "object of options")
		return
	}
	for _, m := range v.Object {
		kind, ok := tt.Options[m.Key]
		p := joinPath(path, m.Key)
		if !ok {
			names := make([]string, 0, len(tt.Options))
			for n := range tt.Options {
				names = append(names, n)
			}
			slices.Sort(names)
			d.fail(p, "unknown option %q for transform %s (want one of %s)", m.Key, tt.Name, quoteList(names))
			continue
		}
		d.option(m.Value, p, kind)
	}
}

func (d *decoder) option(v *Value, path string, kind optionKind) {
	want := optionKindWant[kind]
	switch kind {
	case optBool:
		if v.Kind != BoolValue {
			d.wrongType(path, v, want)
		}
	case optString:
		if v.Kind != StringValue {
			d.wrongType(path, v, want)
		}
	case optChar:
		if v.Kind != StringValue || len([]rune(v.Text)) != 1 {
			d.wrongType(path, v, want)
		}
	case optNonNeg:
		d.intValue(v, path, 0, 0)
	case optPositive:
		d.intValue(v, path, 0, 1)
	case optSensitivity:
		d.sensitivity(v, path)
	case optPaths:
		d.list(v, path, want, func(e *Value, ep string) {
			if e.Kind != StringValue {
				d.wrongType(ep, e, "projection path string")
				return
			}
			if msg := checkProjectionPath(e.Text); msg != "" {
				d.fail(ep, "bad projection path %q: %s", e.Text, msg)
			}
		})
	case optDetectors:
		d.list(v, path, want, func(e *Value, ep string) {
			if e.Kind != StringValue {
				d.wrongType(ep, e, "detector name or @pii/@secrets")
				return
			}
			if !d.partial && !contains(DetectorGroups, e.Text) && !d.knownDetector(e.Text) {
				d.fail(ep, "unknown detector %q (want a built-in or custom detector name, @pii or @secrets)", e.Text)
			}
		})
	}
}

// checkProjectionPath validates the dotted syntax of manual 11.7.
func checkProjectionPath(p string) string {
	if p == "" {
		return "empty path"
	}
	seg := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			if i+1 >= len(p) || (p[i+1] != '.' && p[i+1] != '*' && p[i+1] != '\\') {
				return `"\" escapes only ".", "*" and "\"`
			}
			i++
			seg++
		case '.':
			if seg == 0 {
				return "empty segment"
			}
			seg = 0
		default:
			seg++
		}
	}
	if seg == 0 {
		return "empty segment"
	}
	return ""
}

func (d *decoder) knownDetector(name string) bool {
	return builtinDetector(name) != nil || d.customDetectors[name]
}

// transformOptions reads a transform_options map: keys are transform types
// or ids, values option objects.
func (d *decoder) transformOptions(o *Value, path string) *Value {
	v := o.Get("transform_options")
	if v == nil {
		return Object()
	}
	p := joinPath(path, "transform_options")
	if v.Kind != ObjectValue {
		d.wrongType(p, v, "object of transform type or id to options")
		return Object()
	}
	for _, m := range v.Object {
		d.optionsFor(m.Key, m.Value, joinPath(p, m.Key))
	}
	return v
}

// optionsFor checks the options keyed by a transform type or id.
func (d *decoder) optionsFor(key string, v *Value, path string) {
	if tt := LookupTransformType(key); tt != nil {
		d.options(v, path, tt)
		return
	}
	if typ, ok := d.transformIDs[key]; ok {
		d.options(v, path, LookupTransformType(typ))
		return
	}
	if typ := inheritedTransformType(d.inherited, key); typ != nil {
		d.options(v, path, typ)
		return
	}
	if d.partial {
		if v.Kind != ObjectValue {
			d.wrongType(path, v, "object of options")
		}
		return
	}
	d.fail(path, "%q is neither a transform type (%s) nor the id of a transform in this policy", key, transformTypeNames())
}

func (d *decoder) rateLimits(o *Value, path string) []RateLimit {
	v := o.Get("rate_limits")
	if v == nil {
		return nil
	}
	var out []RateLimit
	d.list(v, joinPath(path, "rate_limits"), "list of rate limits", func(e *Value, ep string) {
		if !d.object(e, ep, rateLimitKeys) {
			return
		}
		l := RateLimit{Path: ep}
		if r := e.Get("rate"); r == nil {
			d.fail(ep, "missing required key \"rate\" (want number > 0)")
		} else {
			l.Rate = d.positive(r, joinPath(ep, "rate"))
		}
		l.Per = Period(d.enum(e, "per", ep, periodNames[:], wantPeriods, int(PerMinute)))
		l.Burst = int(math.Max(1, math.Ceil(l.Rate)))
		if b := e.Get("burst"); b != nil && b.Kind != NullValue {
			l.Burst = d.intValue(b, joinPath(ep, "burst"), l.Burst, 1)
		}
		l.Scope = Scope(d.enum(e, "scope", ep, scopeNames[:], wantScopes, int(ScopePrincipalTool)))
		l.Tools = d.globs(e, "tools", ep, false, MustCompileGlobs("*"))
		l.Kinds = d.kinds(e, "kinds", ep, true)
		l.config = rateLimitIdentity(&l)
		out = append(out, l)
	})
	return out
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (d *decoder) vault(v *Value, path string) VaultConfig {
	c := VaultConfig{KeyEnv: "CLOUDG_MCP_VAULT_KEY", Encrypt: true, MaxEntries: 100000}
	if v == nil {
		return c
	}
	if !d.object(v, path, vaultKeys) {
		return c
	}
	if k := v.Get("key"); k != nil && k.Kind != NullValue && k.Kind != StringValue {
		// Never echo a key: say only what type it was.
		d.fail(joinPath(path, "key"), "want secret string or null, got %s", k.Kind)
	} else {
		c.Key = d.nullableStr(v, "key", path)
		if k != nil && k.Kind == StringValue && c.Key == "" {
			d.fail(joinPath(path, "key"), "empty key (want a secret string, or null to use key_env)")
		}
	}
	c.KeyEnv = d.str(v, "key_env", path, c.KeyEnv)
	if !envName.MatchString(c.KeyEnv) {
		d.fail(joinPath(path, "key_env"), "want an environment variable name, got %q", c.KeyEnv)
	}
	c.Scope = VaultScope(d.enum(v, "scope", path, vaultScopeNames, "global, principal", 0))
	if t := v.Get("ttl_seconds"); t != nil && t.Kind != NullValue {
		c.TTLSeconds = d.positive(t, joinPath(path, "ttl_seconds"))
	}
	c.Path = d.nullableStr(v, "path", path)
	c.Autosave = d.boolean(v, "autosave", path, false)
	c.Encrypt = d.boolean(v, "encrypt", path, true)
	c.MaxEntries = d.integer(v, "max_entries", path, c.MaxEntries, 1)
	c.Mode = VaultMode(d.enum(v, "mode", path, vaultModeNames[:], "auto, store, sealed", int(VaultAuto)))
	if pk := v.Get("previous_keys_env"); pk != nil {
		// Names of variables, not keys: keys never sit in the policy
		// beside their successor, where one leak would give both.
		seen := map[string]string{c.KeyEnv: "key_env"}
		c.PreviousKeysEnv = []string{}
		d.list(pk, joinPath(path, "previous_keys_env"), "list of environment variable names", func(e *Value, ep string) {
			switch {
			case e.Kind != StringValue:
				d.wrongType(ep, e, "environment variable name")
			case !envName.MatchString(e.Text):
				d.fail(ep, "want an environment variable name, got %q", e.Text)
			case seen[e.Text] != "":
				d.fail(ep, "%q is already %s", e.Text, seen[e.Text])
			default:
				seen[e.Text] = ep
				c.PreviousKeysEnv = append(c.PreviousKeysEnv, e.Text)
			}
		})
	}
	return c
}

var detectorName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
var detectorLabel = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

func (d *decoder) detectors(o *Value, path string) []DetectorConfig {
	v := o.Get("detectors")
	if v == nil {
		return nil
	}
	var out []DetectorConfig
	seen := map[string]bool{}
	d.list(v, joinPath(path, "detectors"), "list of detectors", func(e *Value, ep string) {
		if !d.object(e, ep, detectorKeys) {
			return
		}
		c := DetectorConfig{Sensitivity: Confidential, Validate: "none", Window: 32}
		c.Name = d.str(e, "name", ep, "")
		switch {
		case e.Get("name") == nil:
			d.fail(ep, "missing required key \"name\"")
		case !isStr(e, "name"):
		case !detectorName.MatchString(c.Name):
			d.fail(joinPath(ep, "name"), "want a lower-case identifier ([a-z][a-z0-9_]*), got %q", c.Name)
		case builtinDetector(c.Name) != nil:
			d.fail(joinPath(ep, "name"), "%q is a built-in detector (switch it off with disabled_detectors and give yours another name)", c.Name)
		case seen[c.Name]:
			d.fail(joinPath(ep, "name"), "duplicate detector name %q", c.Name)
		}
		seen[c.Name] = true
		c.Label = d.str(e, "label", ep, strings.ToUpper(c.Name))
		if isStr(e, "label") && !detectorLabel.MatchString(c.Label) {
			d.fail(joinPath(ep, "label"), "want an upper-case label ([A-Z][A-Z0-9_]*), got %q", c.Label)
		}
		if s := e.Get("sensitivity"); s != nil {
			c.Sensitivity = d.sensitivity(s, joinPath(ep, "sensitivity"))
		}
		c.CaseInsensitive = d.boolean(e, "case_insensitive", ep, false)
		c.Pattern = d.str(e, "pattern", ep, "")
		var re *regexp.Regexp
		if e.Get("pattern") == nil {
			d.fail(ep, "missing required key \"pattern\" (want an RE2 expression)")
		} else if !isStr(e, "pattern") {
		} else if c.Pattern == "" {
			d.fail(joinPath(ep, "pattern"), "empty pattern (want an RE2 expression)")
		} else {
			src := c.Pattern
			if c.CaseInsensitive {
				src = "(?i)" + src
			}
			var err error
			if re, err = regexp.Compile(src); err != nil {
				d.fail(joinPath(ep, "pattern"), "does not compile as RE2: %v", err)
			}
		}
		if g := e.Get("group"); g != nil {
			gp := joinPath(ep, "group")
			switch g.Kind {
			case StringValue:
				c.GroupName = g.Text
				if re != nil {
					if c.Group = re.SubexpIndex(g.Text); c.Group < 0 {
						d.fail(gp, "the pattern has no capture group named %q", g.Text)
					}
				}
			default:
				c.Group = d.intValue(g, gp, 0, 0)
				if re != nil && c.Group > re.NumSubexp() {
					d.fail(gp, "the pattern has %d capture groups, got group %d", re.NumSubexp(), c.Group)
				}
			}
		}
		c.Validate = detectorValidations[d.enum(e, "validate", ep, detectorValidations, "none, luhn, mod97", 0)]
		c.Keywords = d.strings(e, "keywords", ep)
		c.Window = d.integer(e, "window", ep, 32, 1)
		out = append(out, c)
	})
	return out
}

// inheritedTransformType finds the type of transform id in a flattened
// parent policy (its pipelines and its rules' pipelines), or nil.
func inheritedTransformType(parent *Value, id string) *TransformType {
	if parent == nil {
		return nil
	}
	docs := []*Value{parent}
	if roles := parent.Get("roles"); roles != nil {
		for _, m := range roles.Object {
			docs = append(docs, m.Value)
		}
	}
	if rules := parent.Get("rules"); rules != nil {
		docs = append(docs, rules.Array...)
	}
	for _, doc := range docs {
		for _, key := range []string{"transforms", "input_transforms"} {
			list := doc.Get(key)
			if list == nil {
				continue
			}
			for _, e := range list.Array {
				typ, eid := e.Text, e.Text
				if e.Kind == ObjectValue {
					typ = e.Get("type").Text
					eid = typ
					if i := e.Get("id"); i != nil {
						eid = i.Text
					}
				}
				if eid == id {
					return LookupTransformType(typ)
				}
			}
		}
	}
	return nil
}
