package policy

// Policy is a validated PolicyConfig (manual 6.1) with extends resolved. It is
// immutable after Parse and safe for concurrent use.
type Policy struct {
	Name        string
	Description string
	HideDenied  bool
	HonorHints  bool
	Audit       bool
	AuditSize   int

	// Access holds the policy-level lists. Access.DenyCapabilities is the
	// effective deny set after extends (manual 5.2).
	Access AccessRules

	Transforms        []TransformEntry
	InputTransforms   []TransformEntry
	TransformOptions  *Value // object: type or id -> options
	Detectors         []DetectorConfig
	DisabledDetectors []string
	RateLimits        []RateLimit
	Vault             VaultConfig
	// Detection is the policy's detection block (manual 12.9.6); nil
	// when absent.
	Detection *Detection

	// Rules are the roles (as rules, in document order) followed by the
	// rules; Rules[i].Index is i. Roles is how many of them come from roles.
	Rules []*Rule
	Roles int

	// doc is the flattened document the policy was decoded from.
	doc *Value
	// roleBits numbers up to 64 role names used in rules, so matching a
	// principal's roles against a rule is one AND (see Policy.Match).
	roleBits map[string]uint64
	// memo remembers decisions once EnableDecisionMemo is called
	// (decidememo.go).
	memo *decisionMemo
}

// AccessRules are the allow/deny fields shared by policies and rules
// (manual 6.2). A nil glob list is null: "all" for a policy's allow lists,
// "grants nothing" in a rule.
type AccessRules struct {
	AllowTools, DenyTools           *GlobList
	AllowResources, DenyResources   *GlobList
	AllowPrompts, DenyPrompts       *GlobList
	AllowCategories, DenyCategories *GlobList
	AllowCapabilities               CapabilitySet
	DenyCapabilities                CapabilitySet
	// MaxSensitivity is SensitivityUnset when null.
	MaxSensitivity Sensitivity
}

// allow and deny return the name lists of a family.
func (a *AccessRules) allow(f Family) *GlobList {
	switch f {
	case FamilyResources:
		return a.AllowResources
	case FamilyPrompts:
		return a.AllowPrompts
	}
	return a.AllowTools
}

func (a *AccessRules) deny(f Family) *GlobList {
	switch f {
	case FamilyResources:
		return a.DenyResources
	case FamilyPrompts:
		return a.DenyPrompts
	}
	return a.DenyTools
}

// TransformsMode says how a rule's transforms combine with the pipeline.
type TransformsMode uint8

const (
	ModeAppend TransformsMode = iota
	ModePrepend
	ModeReplace
)

func (m TransformsMode) String() string { return [...]string{"append", "prepend", "replace"}[m] }

// Rule is a RuleConfig (manual 6.3), or a role turned into one.
type Rule struct {
	// Name is the explicit name, or role:<role> / rule[<i>].
	Name        string
	Description string
	// Role is the role name for rules that come from the roles map.
	Role string
	// Index is the position in Policy.Rules; Path is the rule's JSON path
	// (roles.<name> or rules[<i>]).
	Index int
	Path  string

	Match RuleMatch
	// roleMask has the bits of Match.Roles; roleMaskExact says every role
	// got a bit, so the mask alone decides the roles condition.
	roleMask         uint64
	roleMaskExact    bool
	Access           AccessRules
	Transforms       []TransformEntry
	TransformsMode   TransformsMode
	TransformOptions *Value
	InputTransforms  []TransformEntry
	RateLimits       []RateLimit
	HonorHints       *bool
	// Detection is the rule's allow lists and dictionaries, for matching
	// calls (nil: none).
	Detection *Detection

	// Doc is the rule as written (after extends), for describe.
	Doc *Value
}

// RuleMatch is the condition of a rule (manual 6.4). Empty conditions hold for
// anything.
type RuleMatch struct {
	Roles         []string
	AnyRole       bool // roles contains "*"
	Principals    *GlobList
	Names         *GlobList
	Categories    *GlobList
	Tags          []string
	Kinds         KindSet
	Sensitivities SensitivitySet
	Capabilities  CapabilitySet
}

// principalOnly reports whether the rule has only roles and principals
// conditions, so it also applies when no primitive is involved.
func (m *RuleMatch) principalOnly() bool {
	return m.Names == nil && m.Categories == nil && len(m.Tags) == 0 &&
		m.Kinds == 0 && m.Sensitivities == 0 && m.Capabilities == 0
}

// TransformEntry is one entry of a pipeline as written.
type TransformEntry struct {
	Type    string // canonical type name
	ID      string // defaults to Type
	Options *Value // object; may be empty
}

// DetectorConfig is a custom detector (manual 12.5).
type DetectorConfig struct {
	Name            string
	Pattern         string
	Label           string
	Sensitivity     Sensitivity
	Group           int // capture group replaced; 0 = whole match
	GroupName       string
	Validate        string // none, luhn, mod97
	Keywords        []string
	Window          int
	CaseInsensitive bool
}

// Period is the unit of a rate.
type Period uint8

const (
	PerSecond Period = iota
	PerMinute
	PerHour
	PerDay
)

var periodNames = [...]string{"second", "minute", "hour", "day"}
var periodSeconds = [...]float64{1, 60, 3600, 86400}

func (p Period) String() string { return periodNames[p] }

// Seconds is the length of the period.
func (p Period) Seconds() float64 { return periodSeconds[p] }

// Scope picks which calls share a bucket (manual 9).
type Scope uint8

const (
	ScopePrincipal Scope = iota
	ScopeTool
	ScopePrincipalTool
	ScopeGlobal
)

var scopeNames = [...]string{"principal", "tool", "principal_tool", "global"}

func (s Scope) String() string { return scopeNames[s] }

// RateLimit is a RateLimitConfig (manual 6.5).
type RateLimit struct {
	Rate  float64
	Per   Period
	Burst int // resolved: the configured burst or max(1, ceil(rate))
	Scope Scope
	Tools *GlobList
	Kinds KindSet // 0 = all
	// Path is where the limit was configured, e.g. rate_limits[0] or
	// rules[3].rate_limits[1]; it names the limit in errors and explain.
	Path string
	// config is the canonical JSON of the limit, part of the bucket identity.
	config string
}

// VaultScope is the pseudonym namespace rule (manual 13).
type VaultScope uint8

const (
	VaultGlobal VaultScope = iota
	VaultPerPrincipal
)

func (s VaultScope) String() string { return [...]string{"global", "principal"}[s] }

// VaultMode is which vault issues pseudonyms (manual 13): the table in
// shared data (store), the key alone (sealed), or the one that fits the
// request (auto).
type VaultMode uint8

const (
	// VaultAuto seals the pseudonyms of requests without a session (MCP
	// 2026-07-28) when a key is configured, and stores the others'.
	VaultAuto VaultMode = iota
	// VaultStore keeps every mapping in the per-process table.
	VaultStore
	// VaultSealed seals every pseudonym: any proxy holding the key
	// restores it.
	VaultSealed
)

var vaultModeNames = [...]string{"auto", "store", "sealed"}

func (m VaultMode) String() string { return vaultModeNames[m] }

// VaultConfig is manual 6.6 plus max_entries, mode and previous_keys_env.
type VaultConfig struct {
	Key        string // secret: never printed
	KeyEnv     string
	Scope      VaultScope
	TTLSeconds float64 // 0 = no expiry
	Path       string
	Autosave   bool
	Encrypt    bool
	MaxEntries int
	Mode       VaultMode
	// PreviousKeysEnv names the environment variables holding earlier
	// keys: sealed pseudonyms issued under them still restore, none is
	// issued under them (key rotation).
	PreviousKeysEnv []string
}

// Seals reports whether a request's pseudonyms are sealed: always in mode
// sealed, never in mode store, and in mode auto for a request without a
// session (stateless) when the key is configured rather than ephemeral
// (an ephemeral key is per process: sealing under it serves no other
// proxy).
func (v *VaultConfig) Seals(stateless, keyConfigured bool) bool {
	switch v.Mode {
	case VaultSealed:
		return true
	case VaultStore:
		return false
	}
	return stateless && keyConfigured
}
