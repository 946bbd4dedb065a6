package policy

import (
	"fmt"
	"strings"
)

// RouterWarnings are the name globs of an envelope that no name an
// aggregating router gives can match, when server.router_backends says
// such a router stands between the filter and the servers (manual 4):
// tools and prompts are named backend__name there, resources
// backend+scheme://..., so a glob written with a server's own names
// (deploy_*, file:///*) matches nothing, and the allow, deny or metadata
// it carries never applies. Each warning names the glob's JSON path.
func (e *Envelope) RouterWarnings() []string {
	backends := e.Server.RouterBackends
	if len(backends) == 0 {
		return nil
	}
	var out []string
	// check warns of each glob of g no routed name of any of families can
	// match.
	check := func(path string, g *GlobList, families ...Family) {
		for _, pat := range g.Patterns() {
			var nouns, forms []string
			ok := false
			for _, f := range families {
				delim := "__"
				if f == FamilyResources {
					delim = "+"
				}
				ok = ok || routable(pat, delim, backends)
				nouns = append(nouns, familyNoun(f))
				forms = append(forms, "backend"+delim+"…")
			}
			if !ok {
				out = append(out, fmt.Sprintf("%s: %q matches no name the router gives: behind it %s are named %s, backends %s",
					path, pat, strings.Join(nouns, " and "), strings.Join(forms, " and "), strings.Join(backends, ", ")))
			}
		}
	}
	access := func(path string, a *AccessRules) {
		check(path+".allow_tools", a.AllowTools, FamilyTools)
		check(path+".deny_tools", a.DenyTools, FamilyTools)
		check(path+".allow_prompts", a.AllowPrompts, FamilyPrompts)
		check(path+".deny_prompts", a.DenyPrompts, FamilyPrompts)
		check(path+".allow_resources", a.AllowResources, FamilyResources)
		check(path+".deny_resources", a.DenyResources, FamilyResources)
	}
	if p := e.Policy; p != nil {
		access("policy", &p.Access)
		for _, r := range p.Rules {
			access("policy."+r.Path, &r.Access)
			check("policy."+r.Path+".match.names", r.Match.Names, familiesOf(r.Match.Kinds)...)
			for i, l := range r.RateLimits {
				check(fmt.Sprintf("policy.%s.rate_limits[%d].tools", r.Path, i), l.Tools, familiesOf(l.Kinds)...)
			}
		}
		for i, l := range p.RateLimits {
			check(fmt.Sprintf("policy.rate_limits[%d].tools", i), l.Tools, familiesOf(l.Kinds)...)
		}
	}
	for i, c := range e.Server.Primitives {
		check(fmt.Sprintf("server.primitives[%d].match.names", i), c.Names, familiesOf(c.Kinds)...)
	}
	return dedupe(out)
}

// routable reports whether glob pat can match a name that starts with a
// backend and delim: its literal start (up to the first wildcard) and some
// backend's prefix agree as far as both go.
func routable(pat, delim string, backends []string) bool {
	lit := pat
	if i := strings.IndexAny(pat, "*?["); i >= 0 {
		lit = pat[:i]
	}
	for _, b := range backends {
		prefix := b + delim
		if strings.HasPrefix(lit, prefix) || strings.HasPrefix(prefix, lit) {
			return true
		}
	}
	return false
}

// familiesOf are the families a kind set covers (all for 0).
func familiesOf(k KindSet) []Family {
	var out []Family
	if k == 0 || k.Has(KindTool) {
		out = append(out, FamilyTools)
	}
	if k == 0 || k.Has(KindPrompt) {
		out = append(out, FamilyPrompts)
	}
	if k == 0 || k.Has(KindResource) || k.Has(KindResourceTemplate) {
		out = append(out, FamilyResources)
	}
	return out
}

func familyNoun(f Family) string {
	switch f {
	case FamilyResources:
		return "resource URIs"
	case FamilyPrompts:
		return "prompts"
	}
	return "tools"
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	out := s[:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
