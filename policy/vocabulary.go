package policy

import (
	"math/bits"
	"strings"
)

// Kind is the kind of an MCP primitive (manual 4).
type Kind uint8

const (
	KindTool Kind = iota
	KindResource
	KindResourceTemplate
	KindPrompt
	// KindCompletion names completion/complete calls in rate limits only.
	KindCompletion
)

var kindNames = [...]string{"tool", "resource", "resource_template", "prompt", "completion"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// ParseKind reads a kind name; completion is accepted only when withCompletion.
func ParseKind(s string, withCompletion bool) (Kind, bool) {
	for i, n := range kindNames {
		if n == s && (withCompletion || Kind(i) != KindCompletion) {
			return Kind(i), true
		}
	}
	return 0, false
}

// KindSet is a set of kinds; the zero set means "any" where a list may be empty.
type KindSet uint8

func (s KindSet) Has(k Kind) bool { return s&(1<<k) != 0 }

// covers reports whether a kind condition holds: resource also covers
// resource_template (manual 6.4, 6.5).
func (s KindSet) covers(k Kind) bool {
	return s.Has(k) || (k == KindResourceTemplate && s.Has(KindResource))
}

// Family is the access-list family of a kind (manual 6.2): tools, resources
// (static resources and templates) or prompts.
type Family uint8

const (
	FamilyTools Family = iota
	FamilyResources
	FamilyPrompts
)

// Family returns the list family that judges primitives of kind k.
func (k Kind) Family() Family {
	switch k {
	case KindResource, KindResourceTemplate:
		return FamilyResources
	case KindPrompt:
		return FamilyPrompts
	}
	return FamilyTools
}

func (f Family) String() string { return [...]string{"tools", "resources", "prompts"}[f] }

// Sensitivity orders how sensitive a primitive is (manual 6.2). The zero value
// means "not set".
type Sensitivity uint8

const (
	SensitivityUnset Sensitivity = iota
	Public
	Internal
	Confidential
	Restricted
)

var sensitivityNames = [...]string{"", "public", "internal", "confidential", "restricted"}

func (s Sensitivity) String() string {
	if int(s) < len(sensitivityNames) {
		return sensitivityNames[s]
	}
	return "unknown"
}

// ParseSensitivity reads a sensitivity name.
func ParseSensitivity(s string) (Sensitivity, bool) {
	for i, n := range sensitivityNames[1:] {
		if n == s {
			return Sensitivity(i + 1), true
		}
	}
	return SensitivityUnset, false
}

// SensitivitySet is a set of sensitivities.
type SensitivitySet uint8

func (s SensitivitySet) Has(v Sensitivity) bool { return s&(1<<v) != 0 }

// Capability is something a primitive may do (manual 6.2).
type Capability uint8

const (
	ReadState Capability = iota
	WriteState
	ReadFS
	WriteFS
	CloudAccess
	Exec
	Reveal
)

var capabilityNames = [...]string{"read_state", "write_state", "read_fs", "write_fs", "cloud_access", "exec", "reveal"}

func (c Capability) String() string { return capabilityNames[c] }

// ParseCapability reads a capability name.
func ParseCapability(s string) (Capability, bool) {
	for i, n := range capabilityNames {
		if n == s {
			return Capability(i), true
		}
	}
	return 0, false
}

// CapabilitySet is a set of capabilities.
type CapabilitySet uint8

func (s CapabilitySet) Has(c Capability) bool { return s&(1<<c) != 0 }

// With returns s plus c.
func (s CapabilitySet) With(c Capability) CapabilitySet { return s | 1<<c }

// first returns the lowest capability of a non-empty set.
func (s CapabilitySet) first() Capability { return Capability(bits.TrailingZeros8(uint8(s))) }

// List returns the capabilities in canonical order.
func (s CapabilitySet) List() []Capability {
	var out []Capability
	for c := range Capability(len(capabilityNames)) {
		if s.Has(c) {
			out = append(out, c)
		}
	}
	return out
}

// Names returns the capability names in canonical order.
func (s CapabilitySet) Names() []string {
	var out []string
	for _, c := range s.List() {
		out = append(out, c.String())
	}
	return out
}

func (s CapabilitySet) String() string { return strings.Join(s.Names(), ", ") }

// wantKinds etc. are the "want ..." parts of enum errors.
var (
	wantKinds          = "tool, resource, resource_template, prompt"
	wantRateKinds      = "tool, resource, resource_template, prompt, completion"
	wantSensitivities  = "public, internal, confidential, restricted"
	wantCapabilities   = quoteList(capabilityNames[:])
	wantPeriods        = "second, minute, hour, day"
	wantScopes         = "principal, tool, principal_tool, global"
	wantTransformModes = "append, prepend, replace"
)
