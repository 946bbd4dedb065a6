// Package catalog is how a call is judged against what a server offers:
// the one decision the plugin makes in a stream and the operator CLI
// makes over a captured catalog (policy test, diff, matrix, explain), so
// that the two cannot drift apart. A Catalog resolves a name to the
// primitive the policy judges (the plugin's learns from list results and
// shares it between worker VMs; the CLI's reads a captured file; ServerOnly
// knows only the envelope's server block); Judge decides a call through
// it: require_known, the policy, every reading a server may give a tool's
// or prompt's name (manual 6.7), and every known template a concrete URI
// may also be read as (manual 4), in each reading a server library applies
// (the WHATWG URL serialisation: internal/whatwgurl).
package catalog

import (
	"github.com/cloudg/mcp-privacy/internal/uritemplate"
	"github.com/cloudg/mcp-privacy/internal/whatwgurl"
	"github.com/cloudg/mcp-privacy/policy"
)

// Catalog is what is known of a server's primitives.
type Catalog interface {
	// Resolve is the primitive (kind, name) names, with its metadata, and
	// whether any source knows it (for server.require_known). A concrete
	// URI is a known static resource, else the known template it is an
	// instance of, else a resource named by the URI (manual 4).
	Resolve(kind policy.Kind, name string) (x policy.Primitive, known bool)
	// EachLooseMatch calls fn with every known template that can match
	// uri under some server's reading, in order, until fn returns false.
	EachLooseMatch(uri string, fn func(t *uritemplate.Template) bool)
	// ReadingsOf are the readings of a tool or prompt name
	// (policy.ReadingsOf; the plugin keeps them per VM).
	ReadingsOf(name string) policy.Readings
}

// Judge decides the calls of one caller. It holds a copy of the
// principal, not a pointer: its closures escape (Catalog is an
// interface), and a pointer into the caller's stream would move the
// stream to the heap.
type Judge struct {
	Policy    *policy.Policy
	Server    *policy.ServerConfig
	Principal policy.Principal
	Catalog   Catalog
}

// Decide judges a resolved primitive for the caller; with require_known,
// one no source knows is denied.
func (j *Judge) Decide(x *policy.Primitive, known bool) policy.Decision {
	if j.Server.RequireKnown && !known {
		return j.Policy.DenyUnknown(&j.Principal, x)
	}
	return j.Policy.Decide(&j.Principal, x)
}

// DecideConcrete judges x: a tool or prompt in every reading of its name
// (DecideReadings); when x names a concrete URI (a static resource, or an
// instance of a template), the URI as a WHATWG URL reader looks it up when
// that differs, and every other known template that can match either under
// some server's reading (the loose one, manual 4): a server may run any of
// their handlers for it, so a denial of any wins (the first; *x becomes
// what it denied), also for a static resource a list made known. When all
// allow, the rules matching any of them shape the request (each one's
// transforms and limits apply).
func (j *Judge) DecideConcrete(x *policy.Primitive, known bool) policy.Decision {
	d := j.Decide(x, known)
	if x.Kind == policy.KindTool || x.Kind == policy.KindPrompt {
		return j.DecideReadings(x, d)
	}
	if !d.Allowed || x.Kind != policy.KindResource && (x.Kind != policy.KindResourceTemplate || x.URI == "") {
		return d
	}
	rules, denial, denied, ok := decideURI(*j, *x)
	if !ok {
		*x = denied
		return denial
	}
	if len(rules) > 0 {
		d.Matched = j.Policy.UnionRules(d.Matched, rules)
	}
	return d
}

// decideURI judges the other readings of the concrete URI x names: the
// rules matching them all when all allow, else the first denial and what
// it denied (ok false). It never sees x's own decision, nor x itself: what
// its closures capture escapes to the heap (Catalog is an interface), and
// the caller's primitive, which a decision holds, must not go with it.
func decideURI(j Judge, x policy.Primitive) (rules []*policy.Rule, denial policy.Decision, denied policy.Primitive, ok bool) {
	uri, own := x.Name, ""
	if x.Kind == policy.KindResourceTemplate {
		uri, own = x.URI, x.Name
	}
	// The URI as a WHATWG URL reader looks it up, when that differs (only
	// by percent-encoding: the plugin refuses every other change): a
	// TypeScript server reads that resource, or that template's instance.
	reading := WHATWGReading(uri)
	if reading != "" {
		rx, rknown := j.Catalog.Resolve(policy.KindResource, reading)
		if rx.Kind != x.Kind || rx.Name != x.Name {
			rd := j.Decide(&rx, rknown)
			if !rd.Allowed {
				return nil, rd, rx, false
			}
			rules = rd.Matched
		}
	}
	ok = true
	judge := func(uri string) func(t *uritemplate.Template) bool {
		return func(t *uritemplate.Template) bool {
			if t.Text() == own {
				return true
			}
			tx, tknown := j.Catalog.Resolve(policy.KindResourceTemplate, t.Text())
			tx.URI = uri
			td := j.Decide(&tx, tknown)
			if !td.Allowed {
				denial, denied, ok = td, tx, false
				return false
			}
			rules = j.Policy.UnionRules(rules, td.Matched)
			return true
		}
	}
	j.Catalog.EachLooseMatch(uri, judge(uri))
	if ok && reading != "" {
		j.Catalog.EachLooseMatch(reading, judge(reading))
	}
	if !ok {
		return nil, denial, denied, false
	}
	return rules, policy.Decision{}, policy.Primitive{}, true
}

// DecideReadings is d, the decision on the tool or prompt x, unless a
// reading a server may make of its name (policy.NameReadings: NFKC, case
// folding... of the characters beyond ASCII) is denied (manual 6.7):
// ｄelete_db must not pass as another name where the server runs
// delete_db. Each reading is resolved against the catalog, so it is
// judged with the metadata of the primitive it names; one no source knows
// is judged with x's metadata (the server may still run it), and
// require_known applies to the name as sent only. A name of ASCII
// characters has no other reading: one pass over it, no allocation. When
// every reading is allowed, the rules matching any of them join d's
// (policy.Readings.Decide): the server may run the tool a reading names,
// under that tool's transforms and limits.
func (j *Judge) DecideReadings(x *policy.Primitive, d policy.Decision) policy.Decision {
	if !d.Allowed || ASCIIName(x.Name) {
		return d
	}
	return decideReadings(*j, x, d)
}

// decideReadings is DecideReadings past its test of an ASCII name (j a
// copy, as in decideURI).
func decideReadings(j Judge, x *policy.Primitive, d policy.Decision) policy.Decision {
	kind, meta := x.Kind, x.Metadata
	return j.Catalog.ReadingsOf(x.Name).Decide(x, d, func(name string) policy.Decision {
		rx, known := j.Catalog.Resolve(kind, name)
		if !known {
			rx.Metadata = meta
		}
		return j.Policy.Decide(&j.Principal, &rx)
	})
}

// ASCIIName reports whether a name is ASCII only: it has no reading but
// itself (policy.NameReadings).
func ASCIIName(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// WHATWGReading is the URI a WHATWG URL reader (the TypeScript SDK's
// McpServer, new URL(uri).toString()) looks up for uri, when it reads it
// exactly and differently; else "".
func WHATWGReading(uri string) string {
	if href, st := whatwgurl.Href(uri); st == whatwgurl.Exact && href != uri {
		return href
	}
	return ""
}

// ServerOnly is the catalog of the envelope's server block alone (no list
// learned, no template): what explain and preview judge a named primitive
// against.
type ServerOnly struct{ Server *policy.ServerConfig }

func (c ServerOnly) Resolve(kind policy.Kind, name string) (policy.Primitive, bool) {
	x := policy.Primitive{Kind: kind, Name: name}
	x.Metadata = c.Server.Metadata(kind, name, x.Metadata)
	return x, c.Server.Known(kind, name)
}

func (ServerOnly) EachLooseMatch(string, func(*uritemplate.Template) bool) {}

func (ServerOnly) ReadingsOf(name string) policy.Readings { return policy.ReadingsOf(name) }
