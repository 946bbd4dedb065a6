package policy

import (
	"math"
	"regexp"
	"strconv"
)

// The policy's own sections as the decoder reads them: access lists,
// the policy object, rules and their match, rate limits and the vault.
// The typed readers they use are in decode.go.

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
	accessKeys    = objectKeys("AccessRules")
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
	d.ownDetectors = map[string]bool{}
	for n := range d.customDetectors {
		d.ownDetectors[n] = true
	}
	d.dictionaries = map[string]string{}
	d.dictionaryNames(v)
	p.Detection = d.detection(v, path, false)
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
	r.Detection = d.detection(v, path, true)
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
