package policy

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Key sources reported by ResolveKey.
const (
	KeySourcePolicy    = "vault.key"
	KeySourceEphemeral = "ephemeral"
)

// ResolveKey finds the vault key (manual 13): vault.key, else the environment
// variable key_env, else none (the caller then makes an ephemeral key).
// source says where it came from, for status pages; the key itself must
// never be shown.
func (v *VaultConfig) ResolveKey(lookupEnv func(string) (string, bool)) (key []byte, source string) {
	if v.Key != "" {
		return []byte(v.Key), KeySourcePolicy
	}
	if lookupEnv != nil {
		if k, ok := lookupEnv(v.KeyEnv); ok && k != "" {
			return []byte(k), "env " + v.KeyEnv
		}
	}
	return nil, KeySourceEphemeral
}

// PreviousKey is one restore-only key of vault.previous_keys_env, as
// ResolvePreviousKeys finds it: Key is nil when the variable is unset or
// empty.
type PreviousKey struct {
	Env string
	Key []byte
}

// ResolvePreviousKeys reads the keys named by previous_keys_env, in order.
// Unset ones are returned with a nil Key, for the caller to report.
func (v *VaultConfig) ResolvePreviousKeys(lookupEnv func(string) (string, bool)) []PreviousKey {
	out := make([]PreviousKey, 0, len(v.PreviousKeysEnv))
	for _, name := range v.PreviousKeysEnv {
		pk := PreviousKey{Env: name}
		if lookupEnv != nil {
			if k, ok := lookupEnv(name); ok && k != "" {
				pk.Key = []byte(k)
			}
		}
		out = append(out, pk)
	}
	return out
}

// KeyFingerprint is a short, one-way identifier of a key, so operators can
// tell whether two proxies share a key without seeing it.
func KeyFingerprint(key []byte) string {
	fp, err := hkdf.Key(sha256.New, key, nil, "mcp-privacy key fingerprint", 6)
	if err != nil {
		return ""
	}
	return hex.EncodeToString(fp)
}

// Description is the effective policy for people: everything after
// extends, the vault key replaced by its source and fingerprint.
type Description struct {
	Name            string         `json:"name"`
	Description     string         `json:"description"`
	HideDenied      bool           `json:"hide_denied"`
	HonorHints      bool           `json:"honor_hints"`
	Audit           bool           `json:"audit"`
	AuditSize       int            `json:"audit_size"`
	Access          *Value         `json:"access"`
	Rules           []RuleSummary  `json:"rules"`
	Transforms      []EntrySummary `json:"transforms"`
	InputTransforms []EntrySummary `json:"input_transforms"`
	Detectors       DetectorsInUse `json:"detectors"`
	RateLimits      []string       `json:"rate_limits"`
	Vault           VaultSummary   `json:"vault"`
}

// RuleSummary is one rule as describe shows it.
type RuleSummary struct {
	Name string `json:"name"`
	// From is where it is configured: roles.<r> or rules[<i>].
	From string `json:"from"`
	// Rule is the rule's document.
	Rule *Value `json:"rule"`
}

// EntrySummary is one pipeline entry with its merged options.
type EntrySummary struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Options *Value `json:"options"`
}

// DetectorsInUse lists which detectors the policy runs.
type DetectorsInUse struct {
	Builtin  []string `json:"builtin"`
	Custom   []string `json:"custom"`
	Disabled []string `json:"disabled"`
	// Dictionaries are the policy's dictionaries not disabled, each as
	// "name: N terms" (and whether its file was read); absent when none.
	Dictionaries []string `json:"dictionaries,omitempty"`
}

// VaultSummary is the vault configuration without the key.
type VaultSummary struct {
	KeySource      string  `json:"key_source"`
	KeyFingerprint string  `json:"key_fingerprint,omitempty"`
	KeyEnv         string  `json:"key_env"`
	Scope          string  `json:"scope"`
	TTLSeconds     float64 `json:"ttl_seconds,omitempty"`
	Path           string  `json:"path,omitempty"`
	Autosave       bool    `json:"autosave"`
	Encrypt        bool    `json:"encrypt"`
	MaxEntries     int     `json:"max_entries"`
	Mode           string  `json:"mode"`
	// PreviousKeys are the restore-only keys, each by its variable and
	// fingerprint (empty when unset: nothing is looked up, or it is not
	// set).
	PreviousKeys []PreviousKeySummary `json:"previous_keys,omitempty"`
}

// PreviousKeySummary is a restore-only key without the key.
type PreviousKeySummary struct {
	Env         string `json:"env"`
	Fingerprint string `json:"fingerprint,omitempty"`
}

// Describe summarises the policy. lookupEnv finds the vault key's
// environment variable (nil: not looked up).
func (p *Policy) Describe(lookupEnv func(string) (string, bool)) *Description {
	d := &Description{
		Name: p.Name, Description: p.Description, HideDenied: p.HideDenied,
		HonorHints: p.HonorHints, Audit: p.Audit, AuditSize: p.AuditSize,
		Rules: []RuleSummary{}, RateLimits: []string{},
	}
	access := Object()
	for _, k := range accessKeys {
		switch v := p.doc.Get(k); {
		case k == "allow_capabilities":
		case v != nil:
			access.Set(k, v.Clone())
		case strings.HasPrefix(k, "allow_") || k == "max_sensitivity":
			access.Set(k, Null())
		default:
			access.Set(k, Array())
		}
	}
	d.Access = access
	for _, r := range p.Rules {
		d.Rules = append(d.Rules, RuleSummary{Name: r.Name, From: r.Path, Rule: r.Doc})
	}
	d.Transforms = summarise(p.OutputPipeline(nil, nil))
	d.InputTransforms = summarise(p.InputPipeline(nil, nil))
	disabled := map[string]bool{}
	for _, n := range p.DisabledDetectors {
		disabled[n] = true
	}
	d.Detectors = DetectorsInUse{Builtin: []string{}, Custom: []string{}, Disabled: append([]string{}, p.DisabledDetectors...)}
	custom := map[string]bool{}
	for _, c := range p.Detectors {
		custom[c.Name] = true
		if !disabled[c.Name] {
			d.Detectors.Custom = append(d.Detectors.Custom, c.Name)
		}
	}
	for _, b := range BuiltinDetectors {
		if !disabled[b.Name] && !custom[b.Name] {
			d.Detectors.Builtin = append(d.Detectors.Builtin, b.Name)
		}
	}
	if p.Detection != nil {
		for _, dc := range p.Detection.Dictionaries {
			if disabled[dc.Name] {
				continue
			}
			s := fmt.Sprintf("%s: %d terms", dc.Name, len(dc.Terms))
			switch {
			case dc.File != "" && dc.FileRead:
				s += " (with " + dc.File + ")"
			case dc.File != "":
				s += " (" + dc.File + " not read: no file system)"
			}
			d.Detectors.Dictionaries = append(d.Detectors.Dictionaries, s)
		}
	}
	for i := range p.RateLimits {
		l := &p.RateLimits[i]
		d.RateLimits = append(d.RateLimits, l.Path+": "+l.String()+" on "+limitTarget(l))
	}
	for _, r := range p.Rules {
		for i := range r.RateLimits {
			l := &r.RateLimits[i]
			d.RateLimits = append(d.RateLimits, l.Path+": "+l.String()+" on "+limitTarget(l)+" (when "+r.Name+" matches)")
		}
	}
	key, source := p.Vault.ResolveKey(lookupEnv)
	d.Vault = VaultSummary{
		KeySource: source, KeyEnv: p.Vault.KeyEnv, Scope: p.Vault.Scope.String(),
		TTLSeconds: p.Vault.TTLSeconds, Path: p.Vault.Path, Autosave: p.Vault.Autosave,
		Encrypt: p.Vault.Encrypt, MaxEntries: p.Vault.MaxEntries, Mode: p.Vault.Mode.String(),
	}
	if key != nil {
		d.Vault.KeyFingerprint = KeyFingerprint(key)
	}
	for _, pk := range p.Vault.ResolvePreviousKeys(lookupEnv) {
		s := PreviousKeySummary{Env: pk.Env}
		if pk.Key != nil {
			s.Fingerprint = KeyFingerprint(pk.Key)
		}
		d.Vault.PreviousKeys = append(d.Vault.PreviousKeys, s)
	}
	return d
}

func limitTarget(l *RateLimit) string {
	s := strings.Join(l.Tools.Patterns(), ", ")
	if l.Kinds != 0 {
		var ks []string
		for k := KindTool; k <= KindCompletion; k++ {
			if l.Kinds.Has(k) {
				ks = append(ks, k.String())
			}
		}
		s += " (" + strings.Join(ks, ", ") + ")"
	}
	return s
}

func summarise(entries []PipelineEntry) []EntrySummary {
	out := make([]EntrySummary, len(entries))
	for i, e := range entries {
		out[i] = EntrySummary{ID: e.ID, Type: e.Type, Options: e.Options}
	}
	return out
}

// Text renders the description for a terminal.
func (d *Description) Text() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("policy %q\n", d.Name)
	if d.Description != "" {
		w("  %s\n", d.Description)
	}
	w("  hide_denied: %v   honor_hints: %v   audit: %v   audit_size: %d\n", d.HideDenied, d.HonorHints, d.Audit, d.AuditSize)
	w("\naccess (policy level)\n")
	for _, m := range d.Access.Object {
		w("  %-18s %s\n", m.Key+":", m.Value.JSON(""))
	}
	w("\nrules (roles first, then rules; M is evaluated in this order)\n")
	if len(d.Rules) == 0 {
		w("  none\n")
	}
	for _, r := range d.Rules {
		w("  %-16s %s  %s\n", r.Name, r.From, r.Rule.JSON(""))
	}
	w("\noutput pipeline (no rule matched)\n")
	writeEntries(&b, d.Transforms)
	w("\ninput pipeline (no rule matched)\n")
	writeEntries(&b, d.InputTransforms)
	w("\ndetectors\n  built-in: %s\n", listOrNone(d.Detectors.Builtin))
	w("  custom:   %s\n  disabled: %s\n", listOrNone(d.Detectors.Custom), listOrNone(d.Detectors.Disabled))
	if len(d.Detectors.Dictionaries) > 0 {
		w("  dictionaries: %s\n", strings.Join(d.Detectors.Dictionaries, "; "))
	}
	w("\nrate limits\n")
	if len(d.RateLimits) == 0 {
		w("  none\n")
	}
	for _, l := range d.RateLimits {
		w("  %s\n", l)
	}
	v := d.Vault
	w("\nvault\n  key: %s", v.KeySource)
	if v.KeyFingerprint != "" {
		w(" (fingerprint %s)", v.KeyFingerprint)
	} else {
		w(" (set %s to keep pseudonyms stable across restarts)", v.KeyEnv)
	}
	ttl := "none"
	if v.TTLSeconds > 0 {
		ttl = fmt.Sprintf("%gs", v.TTLSeconds)
	}
	w("\n  mode: %s   scope: %s   ttl: %s   max_entries: %d\n", v.Mode, v.Scope, ttl, v.MaxEntries)
	for _, pk := range v.PreviousKeys {
		if pk.Fingerprint != "" {
			w("  previous key: env %s (fingerprint %s), restores only\n", pk.Env, pk.Fingerprint)
		} else {
			w("  previous key: env %s (unset)\n", pk.Env)
		}
	}
	if v.Path != "" {
		w("  file: %s (autosave %v, encrypt %v)\n", v.Path, v.Autosave, v.Encrypt)
	}
	return b.String()
}

func writeEntries(b *strings.Builder, es []EntrySummary) {
	if len(es) == 0 {
		b.WriteString("  none\n")
	}
	for _, e := range es {
		fmt.Fprintf(b, "  %-16s %-13s %s\n", e.ID, e.Type, e.Options.JSON(""))
	}
}

func listOrNone(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	return strings.Join(ss, ", ")
}
