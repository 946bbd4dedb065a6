package policy

import (
	"fmt"
	"slices"
	"strings"
)

// Higress (manual 2, "Higress") hands a plugin one JSON: the WasmPlugin's
// defaultConfig (the global configuration) plus "_rules_", one entry per
// matchRule, each the rule's config with "_match_route_", "_match_domain_"
// or "_match_service_" beside its own keys. What follows reads that form and
// picks the configuration of a request as Higress's own plugins do, from
// github.com/higress-group/wasm-go pkg/matcher/rule_matcher.go at commit
// d153aa413bfa55139be9654fc2733dc3fa81976e (ParseRuleConfig,
// GetMatchConfig) and alibaba/higress pkg/ingress/config/ingress_config.go
// at commit 4e0d69143208d713e88880d5af1c86f4386e425c (convertIstioWasmPlugin,
// which injects the keys).

// The keys Higress adds to a plugin configuration.
const (
	HigressRulesKey       = "_rules_"
	HigressRouteKey       = "_match_route_"
	HigressDomainKey      = "_match_domain_"
	HigressServiceKey     = "_match_service_"
	HigressRoutePrefixKey = "_match_route_prefix_"
)

// higressMatchKeys are the match keys of a rule, in the order the matcher
// reads them.
var higressMatchKeys = []string{HigressRouteKey, HigressDomainKey, HigressServiceKey, HigressRoutePrefixKey}

// HostCategory is what a Higress rule matches on. The matcher gives a rule
// exactly one, from the keys it has: a route (with a service too: both),
// else a domain, else a service, else a route prefix. Keys of lower rank
// beside a higher one are ignored, as Higress ignores them.
type HostCategory uint8

const (
	MatchRoute HostCategory = iota
	MatchRouteAndService
	MatchDomain
	MatchService
	MatchRoutePrefix
)

// DomainPattern is one _match_domain_ entry: "*suffix", "prefix*" or an
// exact host, compared case-sensitively with :authority without its port.
type DomainPattern struct {
	// Suffix or Prefix say which end the pattern's * stood at (a leading
	// * wins over a trailing one); neither: an exact host.
	Suffix, Prefix bool
	Text           string
}

func (p DomainPattern) matches(host string) bool {
	switch {
	case p.Suffix:
		return strings.HasSuffix(host, p.Text)
	case p.Prefix:
		return strings.HasPrefix(host, p.Text)
	}
	return host == p.Text
}

func (p DomainPattern) String() string {
	switch {
	case p.Suffix:
		return "*" + p.Text
	case p.Prefix:
		return p.Text + "*"
	}
	return p.Text
}

// HostMatch is the match condition of one rule. Empty names are dropped, as
// Higress drops them.
type HostMatch struct {
	Category      HostCategory
	Routes        []string
	Domains       []DomainPattern
	Services      []string
	RoutePrefixes []string
	// Ignored are the match keys the rule has that its category does not
	// read (Higress ignores them too).
	Ignored []string
}

// HostRule is one _rules_ entry, validated.
type HostRule struct {
	// Path is the rule's JSON path, e.g. _rules_[1].
	Path  string
	Match HostMatch
	// Env is the rule's configuration: its own keys only. It replaces the
	// global configuration for the requests the rule matches; nothing is
	// inherited from it.
	Env *Envelope
	// Doc is the rule's own keys as written (the match keys removed).
	Doc *Value
}

// HostRules is a plugin configuration with Higress's _rules_.
type HostRules struct {
	// Global is the configuration of requests no rule matches; nil when the
	// configuration has no key besides _rules_ (defaultConfigDisable, or
	// no defaultConfig): Higress then runs the plugin only on the requests
	// a rule matches, and passes the others by.
	Global    *Envelope
	GlobalDoc *Value
	Rules     []HostRule
}

// HasHostRules reports whether a configuration document carries Higress's
// _rules_.
func HasHostRules(doc *Value) bool {
	return doc != nil && doc.Kind == ObjectValue && doc.Get(HigressRulesKey) != nil
}

// DecodeHostRules validates a configuration with _rules_: the global part
// (if any) and every rule as strictly as a configuration of its own, each
// error named by its JSON path (_rules_[1].policy.roles...).
func DecodeHostRules(doc *Value, opt Options) (*HostRules, Errors) {
	h := &HostRules{}
	var errs Errors
	if doc == nil || doc.Kind != ObjectValue {
		errs.add("", "want an object with %s", HigressRulesKey)
		return nil, errs
	}
	global := Object()
	for _, m := range doc.Object {
		if m.Key != HigressRulesKey {
			global.Object = append(global.Object, m)
		}
	}
	if len(global.Object) > 0 {
		env, gerrs := DecodeEnvelope(global, opt)
		h.Global, h.GlobalDoc = env, global
		errs = append(errs, gerrs...)
	}
	rules := doc.Get(HigressRulesKey)
	if rules == nil {
		errs.add("", "no %s: not a configuration with Higress rules", HigressRulesKey)
		return nil, errs
	}
	if rules.Kind != ArrayValue {
		errs.add(HigressRulesKey, "want a list of rules, got %s", rules.describe())
		return nil, errs
	}
	if len(rules.Array) == 0 && len(global.Object) == 0 {
		// Higress refuses this too ("no valid rules").
		errs.add(HigressRulesKey, "no rules and no global configuration: the plugin would judge nothing")
	}
	for i, r := range rules.Array {
		path := indexPath(HigressRulesKey, i)
		rule, rerrs := decodeHostRule(r, path, opt)
		errs = append(errs, rerrs...)
		if rule != nil {
			h.Rules = append(h.Rules, *rule)
		}
	}
	errs = append(errs, h.vaultConflicts()...)
	if len(errs) > 0 {
		return nil, errs
	}
	return h, nil
}

func decodeHostRule(r *Value, path string, opt Options) (*HostRule, Errors) {
	var errs Errors
	if r.Kind != ObjectValue {
		errs.add(path, "want a rule object (its configuration plus %s), got %s", strings.Join(higressMatchKeys, ", "), r.describe())
		return nil, errs
	}
	rule := &HostRule{Path: path, Doc: Object()}
	names := map[string][]string{}
	for _, m := range r.Object {
		if !slices.Contains(higressMatchKeys, m.Key) {
			rule.Doc.Object = append(rule.Doc.Object, m)
			continue
		}
		kp := joinPath(path, m.Key)
		if m.Value.Kind != ArrayValue {
			errs.add(kp, "want a list of names, got %s", m.Value.describe())
			continue
		}
		for j, e := range m.Value.Array {
			if e.Kind != StringValue {
				errs.add(indexPath(kp, j), "want a name, got %s", e.describe())
				continue
			}
			if e.Text != "" {
				names[m.Key] = append(names[m.Key], e.Text)
			}
		}
	}
	rule.Match = newRuleMatch(names)
	if len(names) == 0 && len(errs) == 0 {
		errs.add(path, "no match condition: want a non-empty %s (Higress refuses a rule without one)", strings.Join(higressMatchKeys, ", "))
	}
	if len(rule.Doc.Object) == 0 {
		// Higress hands the plugin the rule's keys alone: the global
		// configuration is not inherited, so such a rule would run an empty
		// policy where the operator most likely meant the global one.
		errs.add(path, "no configuration of its own: a rule's configuration replaces the global one (nothing is inherited), "+
			"so this rule would run an empty policy; give it its configuration (e.g. the global one's policy), or set configDisable on the matchRule")
	} else {
		env, rerrs := DecodeEnvelope(rule.Doc, opt)
		rule.Env = env
		errs = append(errs, rerrs.prefixed(path)...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return rule, nil
}

// newRuleMatch gives a rule its category as the matcher does.
func newRuleMatch(names map[string][]string) HostMatch {
	m := HostMatch{Routes: names[HigressRouteKey], Services: names[HigressServiceKey], RoutePrefixes: names[HigressRoutePrefixKey]}
	for _, d := range names[HigressDomainKey] {
		switch {
		case strings.HasPrefix(d, "*"):
			m.Domains = append(m.Domains, DomainPattern{Suffix: true, Text: d[1:]})
		case strings.HasSuffix(d, "*"):
			m.Domains = append(m.Domains, DomainPattern{Prefix: true, Text: d[:len(d)-1]})
		default:
			m.Domains = append(m.Domains, DomainPattern{Text: d})
		}
	}
	var read []string
	switch {
	case len(m.Routes) > 0 && len(m.Services) > 0:
		m.Category, read = MatchRouteAndService, []string{HigressRouteKey, HigressServiceKey}
	case len(m.Routes) > 0:
		m.Category, read = MatchRoute, []string{HigressRouteKey}
	case len(m.Domains) > 0:
		m.Category, read = MatchDomain, []string{HigressDomainKey}
	case len(m.Services) > 0:
		m.Category, read = MatchService, []string{HigressServiceKey}
	default:
		m.Category, read = MatchRoutePrefix, []string{HigressRoutePrefixKey}
	}
	for _, k := range higressMatchKeys {
		if len(names[k]) > 0 && !slices.Contains(read, k) {
			m.Ignored = append(m.Ignored, k)
		}
	}
	return m
}

// vaultConflicts refuses two configurations of one server.id with
// different vault settings: the vault, the ephemeral key and the stand-in
// key live in shared data under the server.id, so a pseudonym issued on
// one route must restore on another (manual 2, "Higress").
func (h *HostRules) vaultConflicts() Errors {
	var errs Errors
	type owner struct {
		path string
		env  *Envelope
	}
	seen := map[string]owner{}
	if h.Global != nil {
		seen[h.Global.Server.ID] = owner{"the global configuration", h.Global}
	}
	for _, r := range h.Rules {
		prev, ok := seen[r.Env.Server.ID]
		if !ok {
			seen[r.Env.Server.ID] = owner{r.Path, r.Env}
			continue
		}
		if !prev.env.Policy.Vault.sameVault(&r.Env.Policy.Vault) {
			errs.add(joinPath(r.Path, "server.id"), "server %q is also %s's, whose vault differs (key, key_env, previous_keys_env, mode, scope, ttl_seconds, max_entries, path, autosave or encrypt): "+
				"one server's pseudonyms live in one vault; give this rule its own server.id, or the same vault settings", r.Env.Server.ID, prev.path)
		}
	}
	return errs
}

func (v *VaultConfig) sameVault(o *VaultConfig) bool {
	return v.Key == o.Key && v.KeyEnv == o.KeyEnv && v.Scope == o.Scope && v.TTLSeconds == o.TTLSeconds &&
		v.Path == o.Path && v.Autosave == o.Autosave && v.Encrypt == o.Encrypt && v.MaxEntries == o.MaxEntries &&
		v.Mode == o.Mode && slices.Equal(v.PreviousKeysEnv, o.PreviousKeysEnv)
}

// RequestPlace is what the matcher reads of a request: the :authority
// header and the route_name and cluster_name properties ("" when absent).
// The plugin reads the properties only when a rule needs them.
type RequestPlace interface {
	Authority() string
	RouteName() string
	ClusterName() string
}

// Select returns the index of the rule whose configuration a request gets:
// the first rule that matches, in order; -1 when none does (the global
// configuration, or none when Global is nil).
func (h *HostRules) Select(p RequestPlace) int {
	for i := range h.Rules {
		if h.Rules[i].Match.matches(p) {
			return i
		}
	}
	return -1
}

func (m *HostMatch) matches(p RequestPlace) bool {
	switch m.Category {
	case MatchRoute:
		return slices.Contains(m.Routes, p.RouteName())
	case MatchRouteAndService:
		return slices.Contains(m.Routes, p.RouteName()) && serviceMatch(m.Services, p.ClusterName())
	case MatchDomain:
		host := StripPort(p.Authority())
		for _, d := range m.Domains {
			if d.matches(host) {
				return true
			}
		}
	case MatchService:
		return serviceMatch(m.Services, p.ClusterName())
	case MatchRoutePrefix:
		route := p.RouteName()
		for _, pre := range m.RoutePrefixes {
			if strings.HasPrefix(route, pre) {
				return true
			}
		}
	}
	return false
}

// StripPort removes the port from an :authority as Higress's matcher does
// (stripPortFromHost): after the last colon, unless that colon is inside an
// IPv6 literal's brackets.
func StripPort(host string) string {
	colon := strings.LastIndexByte(host, ':')
	if colon < 0 {
		return host
	}
	if bracket := strings.LastIndexByte(host, ']'); bracket == -1 || bracket < colon {
		return host[:colon]
	}
	return host
}

// serviceMatch matches a cluster name of Istio's form
// "outbound|PORT|SUBSET|FQDN" (anything else matches nothing) against
// "FQDN:PORT" or "FQDN" entries, as Higress's serviceMatch does.
func serviceMatch(services []string, cluster string) bool {
	_, rest, ok1 := strings.Cut(cluster, "|")
	port, rest, ok2 := strings.Cut(rest, "|")
	_, fqdn, ok3 := strings.Cut(rest, "|")
	if !ok1 || !ok2 || !ok3 || strings.Contains(fqdn, "|") {
		return false
	}
	for _, s := range services {
		if c := strings.LastIndexByte(s, ':'); c >= 0 && s[:c] == fqdn && s[c+1:] == port {
			return true
		}
		if s == fqdn {
			return true
		}
	}
	return false
}

// Describe says what the rule matches, in words for policy check.
func (m *HostMatch) Describe() string {
	var s string
	switch m.Category {
	case MatchRoute:
		s = "route " + quotedList(m.Routes)
	case MatchRouteAndService:
		s = "route " + quotedList(m.Routes) + " and service " + quotedList(m.Services)
	case MatchDomain:
		ds := make([]string, len(m.Domains))
		for i, d := range m.Domains {
			ds[i] = d.String()
		}
		s = "domain " + quotedList(ds)
	case MatchService:
		s = "service " + quotedList(m.Services)
	case MatchRoutePrefix:
		s = "route prefix " + quotedList(m.RoutePrefixes)
	}
	if len(m.Ignored) > 0 {
		s += fmt.Sprintf(" (%s ignored, as Higress ignores it beside %s)", strings.Join(m.Ignored, ", "), map[HostCategory]string{
			MatchRoute: HigressRouteKey, MatchRouteAndService: HigressRouteKey, MatchDomain: HigressDomainKey, MatchService: HigressServiceKey,
		}[m.Category])
	}
	return s
}

func quotedList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
