package policy

import (
	"fmt"
	"slices"

	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
)

// Principal is who makes a call (manual 3).
type Principal struct {
	ID    string
	Roles []string
}

func (p *Principal) hasRole(roles []string) bool {
	for _, want := range roles {
		for _, have := range p.Roles {
			if want == have {
				return true
			}
		}
	}
	return false
}

// Metadata describes a primitive (manual 4).
type Metadata struct {
	Category string
	Tags     []string
	// Sensitivity is Confidential when unset.
	Sensitivity  Sensitivity
	Capabilities CapabilitySet
	// Hints are transform_hints (manual 10.4): an object keyed by transform
	// type or id, plus "skip". Nil when none.
	Hints *Value
}

// EffectiveSensitivity is the sensitivity with the default applied.
func (m *Metadata) EffectiveSensitivity() Sensitivity {
	if m.Sensitivity == SensitivityUnset {
		return Confidential
	}
	return m.Sensitivity
}

// Primitive is what a call names (manual 4).
type Primitive struct {
	Kind Kind
	// Name is the tool or prompt name, the static resource URI, or the
	// URI template text.
	Name string
	// URI is the concrete URI a resources/read named when Name is a
	// template; it is what a hidden resource's error reports.
	URI string
	Metadata
}

// Step is the step of manual 7 that decided.
type Step uint8

const (
	StepAllowed     Step = iota // every step passed
	StepRuleDeny                // 1: a matching rule's explicit deny
	StepPolicyList              // 2: the policy's name or category lists
	StepCapability              // 3: a capability in the deny set not granted
	StepSensitivity             // 4: above the ceiling
	StepUnknown                 // server.require_known: no metadata from any source
)

// RequireKnownRule is the deciding rule of a StepUnknown denial.
const RequireKnownRule = "server.require_known"

// deniedBy says which list or field decided, for reasons.
type listField uint8

const (
	fieldNone listField = iota
	fieldAllowNames
	fieldDenyNames
	fieldAllowCategories
	fieldDenyCategories
	fieldCapability
	fieldSensitivity
	fieldReadings // too many readings of the name to judge (readings.go)
)

// Decision is the result of judging one call (manual 7). It holds what
// Reason and Error format, so deciding allocates only the matched list.
type Decision struct {
	Allowed bool
	// Hidden is true for a denial under hide_denied: the primitive vanishes
	// from lists and calls get "does not exist" errors.
	Hidden bool
	// Rule is the deciding rule's name, or "policy".
	Rule string
	Step Step
	// Matched is M: the rules that match the call, in evaluation order.
	// It shapes pipelines, options, hints and rate limits.
	Matched []*Rule
	// Reading is the reading of a tool or prompt name that was denied
	// when it is not the name as sent (DecideReadings), else "".
	Reading string

	policy    *Policy
	primitive *Primitive
	field     listField
	cap       Capability
	ceiling   Sensitivity
}

const policyRule = "policy"

// Match returns M for a principal and primitive (nil for a call that names
// no primitive, which matches rules with only roles and principals).
func (p *Policy) Match(pr *Principal, x *Primitive) []*Rule {
	var buf [16]*Rule
	m := buf[:0]
	var roles uint64
	for _, role := range pr.Roles {
		roles |= p.roleBits[role]
	}
	for _, r := range p.Rules {
		if r.roleMaskExact && roles&r.roleMask == 0 {
			continue
		}
		if r.matches(pr, x) {
			m = append(m, r)
		}
	}
	if len(m) == 0 {
		return nil
	}
	out := make([]*Rule, len(m))
	copy(out, m)
	return out
}

func (r *Rule) matches(pr *Principal, x *Primitive) bool {
	m := &r.Match
	if len(m.Roles) > 0 && !m.AnyRole && !pr.hasRole(m.Roles) {
		return false
	}
	if m.Principals != nil && !m.Principals.Match(pr.ID) {
		return false
	}
	if x == nil {
		return m.principalOnly()
	}
	if m.Kinds != 0 && !m.Kinds.covers(x.Kind) {
		return false
	}
	if m.Names != nil && !m.Names.Match(x.Name) {
		return false
	}
	if m.Categories != nil && !m.Categories.Match(x.Category) {
		return false
	}
	if len(m.Tags) > 0 && !anyShared(m.Tags, x.Tags) {
		return false
	}
	if m.Sensitivities != 0 && !m.Sensitivities.Has(x.EffectiveSensitivity()) {
		return false
	}
	if m.Capabilities != 0 && m.Capabilities&x.Capabilities == 0 {
		return false
	}
	return true
}

func anyShared(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// Decide judges a call by principal pr to primitive x (manual 7).
func (p *Policy) Decide(pr *Principal, x *Primitive) Decision {
	var d Decision
	if p.memo != nil {
		d = p.memo.decide(p, pr, x)
	} else {
		d = Decision{policy: p, Matched: p.Match(pr, x)}
		d.decideOn(x)
	}
	d.primitive = x
	d.Hidden = !d.Allowed && p.HideDenied
	return d
}

// DenyUnknown is the decision for a primitive with no metadata from any
// source when server.require_known is set (manual 4).
func (p *Policy) DenyUnknown(pr *Principal, x *Primitive) Decision {
	d := Decision{policy: p, primitive: x, Matched: p.Match(pr, x)}
	d.deny(StepUnknown, RequireKnownRule, fieldNone)
	d.Hidden = p.HideDenied
	return d
}

func (d *Decision) deny(step Step, rule string, field listField) {
	d.Allowed, d.Step, d.Rule, d.field = false, step, rule, field
}

// decideOn decides the call to x (d.primitive is set by the caller: a
// memoised decision is stored without it, decidememo.go).
func (d *Decision) decideOn(x *Primitive) {
	p, fam := d.policy, x.Kind.Family()

	// 1. Explicit denies of matching rules win.
	for _, r := range d.Matched {
		switch {
		case r.Access.deny(fam).Match(x.Name):
			d.deny(StepRuleDeny, r.Name, fieldDenyNames)
			return
		case r.Access.DenyCategories.Match(x.Category):
			d.deny(StepRuleDeny, r.Name, fieldDenyCategories)
			return
		case r.Access.DenyCapabilities&x.Capabilities != 0:
			d.deny(StepRuleDeny, r.Name, fieldCapability)
			d.cap = (r.Access.DenyCapabilities & x.Capabilities).first()
			return
		}
	}

	// 2. A rule's grant skips the policy's four lists of the family.
	var granter *Rule
	for _, r := range d.Matched {
		if r.Access.allow(fam).Match(x.Name) {
			granter, d.field = r, fieldAllowNames
			break
		}
		if r.Access.AllowCategories.Match(x.Category) {
			granter, d.field = r, fieldAllowCategories
			break
		}
	}
	if granter == nil {
		a := &p.Access
		switch {
		case a.allow(fam) != nil && !a.allow(fam).Match(x.Name):
			d.deny(StepPolicyList, policyRule, fieldAllowNames)
			return
		case a.deny(fam).Match(x.Name):
			d.deny(StepPolicyList, policyRule, fieldDenyNames)
			return
		case a.AllowCategories != nil && !a.AllowCategories.Match(x.Category):
			d.deny(StepPolicyList, policyRule, fieldAllowCategories)
			return
		case a.DenyCategories.Match(x.Category):
			d.deny(StepPolicyList, policyRule, fieldDenyCategories)
			return
		}
	}

	// 3. Capabilities the policy denies must be granted by a matching rule.
	need := x.Capabilities & p.Access.DenyCapabilities
	for _, r := range d.Matched {
		need &^= r.Access.AllowCapabilities
	}
	if need != 0 {
		d.deny(StepCapability, policyRule, fieldCapability)
		d.cap = need.first()
		return
	}

	// 4. Sensitivity ceiling: the last matching rule that sets one wins.
	d.ceiling = p.Access.MaxSensitivity
	setter := policyRule
	for _, r := range d.Matched {
		if r.Access.MaxSensitivity != SensitivityUnset {
			d.ceiling, setter = r.Access.MaxSensitivity, r.Name
		}
	}
	if d.ceiling != SensitivityUnset && x.EffectiveSensitivity() > d.ceiling {
		d.deny(StepSensitivity, setter, fieldSensitivity)
		return
	}

	d.Allowed, d.Step, d.Rule = true, StepAllowed, policyRule
	if granter != nil {
		d.Rule = granter.Name
	} else {
		d.field = fieldNone
	}
}

// Reason says in words why the call was allowed or denied.
func (d *Decision) Reason() string {
	x := d.primitive
	what := fmt.Sprintf("%s %q", x.Kind, x.Name)
	if d.Reading != "" {
		what = fmt.Sprintf("%s %q, which a server may read as %q,", x.Kind, x.Name, d.Reading)
	}
	fam := x.Kind.Family().String()
	switch d.Step {
	case StepAllowed:
		switch d.field {
		case fieldAllowNames:
			return fmt.Sprintf("%s is granted by rule %q (allow_%s)", what, d.Rule, fam)
		case fieldAllowCategories:
			return fmt.Sprintf("%s is granted by rule %q (allow_categories matches category %q)", what, d.Rule, x.Category)
		}
		return fmt.Sprintf("%s is allowed by the policy", what)
	case StepRuleDeny:
		switch d.field {
		case fieldDenyNames:
			return fmt.Sprintf("%s is denied by rule %q (deny_%s)", what, d.Rule, fam)
		case fieldDenyCategories:
			return fmt.Sprintf("%s is denied by rule %q (deny_categories matches category %q)", what, d.Rule, x.Category)
		}
		return fmt.Sprintf("%s is denied by rule %q (deny_capabilities: %s)", what, d.Rule, d.cap)
	case StepPolicyList:
		switch d.field {
		case fieldAllowNames:
			return fmt.Sprintf("%s is not in the policy's allow_%s and no matching rule grants it", what, fam)
		case fieldDenyNames:
			return fmt.Sprintf("%s is in the policy's deny_%s and no matching rule grants it", what, fam)
		case fieldAllowCategories:
			return fmt.Sprintf("%s has category %q, which is not in the policy's allow_categories, and no matching rule grants it", what, x.Category)
		case fieldReadings:
			return fmt.Sprintf("%s is beyond ASCII and too long (over %d bytes) or has too many readings (over %d) to judge each way a server may read it", what, maxReadingName, maxNameReadings)
		}
		return fmt.Sprintf("%s has category %q, which is in the policy's deny_categories, and no matching rule grants it", what, x.Category)
	case StepCapability:
		return fmt.Sprintf("%s needs capability %s, which the policy denies and no matching rule grants", what, d.cap)
	case StepSensitivity:
		by := "the policy"
		if d.Rule != policyRule {
			by = fmt.Sprintf("rule %q", d.Rule)
		}
		return fmt.Sprintf("%s has sensitivity %s, above the ceiling %s set by %s", what, x.EffectiveSensitivity(), d.ceiling, by)
	case StepUnknown:
		return fmt.Sprintf("%s has no metadata from any source and server.require_known is set", what)
	}
	return ""
}

// RPCError is a JSON-RPC error object (manual 15); internal/mcpvocab
// writes it.
type RPCError = mcpvocab.RPCError

// JSON-RPC error codes of manual 15 (2025 revisions); the list is
// internal/mcpvocab's.
const (
	CodeParseError       = mcpvocab.CodeParseError
	CodeInvalidRequest   = mcpvocab.CodeInvalidRequest
	CodeInvalidParams    = mcpvocab.CodeInvalidParams
	CodeInternalError    = mcpvocab.CodeInternalError
	CodeResourceNotFound = mcpvocab.CodeResourceNotFound
	CodeAccessDenied     = mcpvocab.CodeAccessDenied
	CodeBlocked          = mcpvocab.CodeBlocked
	CodeRateLimited      = mcpvocab.CodeRateLimited
)

// AccessDeniedData is the data of a visible denial (-32003).
type AccessDeniedData = mcpvocab.AccessDeniedData

// ResourceNotFoundData is what servers send with -32002.
type ResourceNotFoundData = mcpvocab.ResourceNotFoundData

// Renamed is the decision with its primitive's name and URI, where they
// are from, written as to: what a reply says when the name judged is not
// the one the caller sent (a resource URI whose pseudonyms the input
// pipeline restored: the caller must not read the value back).
func (d Decision) Renamed(from, to string) Decision {
	if d.primitive == nil {
		return d
	}
	x := *d.primitive
	if x.Name == from {
		x.Name = to
	}
	if x.URI == from {
		x.URI = to
	}
	d.primitive = &x
	return d
}

// Error is the JSON-RPC error a denied call gets under the 2025
// revisions (ErrorFor).
func (d *Decision) Error() *RPCError { return d.ErrorFor(mcpvocab.Rev2025) }

// ErrorFor is the JSON-RPC error a denied call of revision rev gets, or
// nil when allowed. Hidden denials look exactly like a primitive that
// does not exist under that revision (a resource's code changed in
// 2026-07-28).
func (d *Decision) ErrorFor(rev mcpvocab.Revision) *RPCError {
	vocab := mcpvocab.For(rev)
	if d.Allowed {
		return nil
	}
	x := d.primitive
	if d.Hidden {
		uri := x.URI
		if uri == "" {
			uri = x.Name
		}
		return MissingError(rev, x.Kind, x.Name, uri)
	}
	return vocab.NewError(mcpvocab.ErrAccessDenied, "", AccessDeniedData{
		Policy: d.policy.Name, Rule: d.Rule, Reason: d.Reason(), Kind: x.Kind.String(), Name: x.Name,
	})
}

// MissingError is the error a request naming a primitive that does not
// exist gets under revision rev (a resource by uri, others by name): what
// a hidden one is answered with.
func MissingError(rev mcpvocab.Revision, kind Kind, name, uri string) *RPCError {
	vocab := mcpvocab.For(rev)
	switch kind.Family() {
	case FamilyResources:
		return vocab.NewError(mcpvocab.ErrResourceNotFound, "", ResourceNotFoundData{URI: uri})
	case FamilyPrompts:
		return &RPCError{Code: vocab.Error(mcpvocab.ErrInvalidParams).Code, Message: "Unknown prompt: " + name}
	}
	return &RPCError{Code: vocab.Error(mcpvocab.ErrInvalidParams).Code, Message: "Unknown tool: " + name}
}

// RulesFor returns the rules whose roles and principals conditions hold for
// pr, whatever their primitive conditions: the rules that can apply to the
// caller (privacy_status shows them).
func (p *Policy) RulesFor(pr *Principal) []*Rule {
	var out []*Rule
	for _, r := range p.Rules {
		m := &r.Match
		if len(m.Roles) > 0 && !m.AnyRole && !pr.hasRole(m.Roles) {
			continue
		}
		if m.Principals != nil && !m.Principals.Match(pr.ID) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// MatchPrincipal returns the rules that apply when no primitive is involved
// (privacy_status, preview_transform without a tool): those with only roles
// and principals conditions.
func (p *Policy) MatchPrincipal(pr *Principal) []*Rule { return p.Match(pr, nil) }

// UnionRules is the rules of a or b (each a Match result) in the
// policy's order, as Match gives them; a itself when b adds none. A call
// judged under several primitives (a URI several templates may match)
// is shaped by the rules of all of them.
func (p *Policy) UnionRules(a, b []*Rule) []*Rule {
	adds := false
	for _, r := range b {
		if !slices.Contains(a, r) {
			adds = true
			break
		}
	}
	if !adds {
		return a
	}
	out := make([]*Rule, 0, len(a)+len(b))
	for _, r := range p.Rules {
		if slices.Contains(a, r) || slices.Contains(b, r) {
			out = append(out, r)
		}
	}
	return out
}

// indexRoles gives the first 64 role names used by rules a bit each and
// computes every rule's mask.
func (p *Policy) indexRoles() {
	p.roleBits = map[string]uint64{}
	for _, r := range p.Rules {
		if r.Match.AnyRole || len(r.Match.Roles) == 0 {
			continue
		}
		r.roleMaskExact = true
		for _, role := range r.Match.Roles {
			bit, ok := p.roleBits[role]
			if !ok && len(p.roleBits) < 64 {
				bit = 1 << len(p.roleBits)
				p.roleBits[role] = bit
			}
			if bit == 0 {
				r.roleMaskExact = false
			}
			r.roleMask |= bit
		}
	}
}
