package mcp

import (
	"slices"
	"strings"
	"time"

	"github.com/cloudg/mcp-privacy/internal/shareddata"
	"github.com/cloudg/mcp-privacy/internal/uritemplate"
	"github.com/cloudg/mcp-privacy/policy"
)

// catalog knows the upstream server's primitives and their metadata (spec
// 4): what server.primitives configures, and what was learned from list
// results. It resolves a request's target to the Primitive the policy
// judges.
type catalog struct {
	server *policy.ServerConfig
	// templates are known resource templates in the order they became
	// known: a concrete URI is the first that matches it strictly, else
	// the first that matches it loosely, and is judged by every one that
	// matches it loosely too (manual 4).
	templates []*uritemplate.Template
	// resources are known static resource URIs.
	resources map[string]bool
	// learned is metadata learned from list results (manual 4, source 2):
	// this VM's copy of what Shared holds for all worker VMs.
	learned learnedMaps
	// Shared is the host's shared data, so a call on any worker VM is
	// judged with what any other learned; nil keeps learning local.
	Shared shareddata.Store
	// templatesCAS is the version of the shared template list last read.
	templatesCAS uint32
	// deferred holds deferred answers when there is no shared data, and
	// standIns the stand-ins' names (hidden.go).
	deferred map[string][]byte
	standIns map[string][]byte
	// local holds the session bindings when there is no shared data;
	// sessionPrefix is their keys' prefix, principalTags the digests of
	// principal ids (shared.go).
	local         *shareddata.Local
	sessionPrefix string
	principalTags map[string][sessionTag]byte
}

// learnedMaps are the learned entries by kind, then name: a string key
// is hashed with one call inside the VM, a struct's with a call per field
// and another to compare it. n counts the entries.
type learnedMaps struct {
	byKind [policy.KindCompletion + 1]map[string]learnedEntry
	n      int
}

func (l *learnedMaps) get(k policy.Kind, name string) (learnedEntry, bool) {
	if int(k) >= len(l.byKind) {
		return learnedEntry{}, false
	}
	e, ok := l.byKind[k][name]
	return e, ok
}

// set writes the entry of (k, name), which is new unless known says so.
func (l *learnedMaps) set(k policy.Kind, name string, e learnedEntry, known bool) {
	m := l.byKind[k]
	if m == nil {
		m = map[string]learnedEntry{}
		l.byKind[k] = m
	}
	if !known {
		l.n++
	}
	m[name] = e
}

// each calls fn for every entry's kind and name.
func (l *learnedMaps) each(fn func(k policy.Kind, name string)) {
	for k, m := range l.byKind {
		for name := range m {
			fn(policy.Kind(k), name)
		}
	}
}

type learnedEntry struct {
	meta policy.Metadata
	// synced is when this VM last wrote the entry to Shared (Unix ns; 0
	// for an entry it read from there).
	synced int64
}

// learnedResync is how long a VM trusts that the shared slot still holds
// what it wrote. A list repeating known metadata within it writes
// nothing (in the VM each write is a host call and an encoding, 500 of
// them for a 500-tool list); after it, the write is repeated, so a slot
// another VM overwrote with different metadata from an inconsistent
// server is set right again within this time.
const learnedResync = 30 * time.Second

// maxCatalog bounds what list results can add to the catalog, so a server
// cannot grow the VM's memory without limit.
const maxCatalog = 10000

// newCatalog builds a catalog from the envelope's server block. Entries of
// kind resource_template whose names are literal template texts make those
// templates known; literal resource names make static resources known.
func newCatalog(server *policy.ServerConfig) *catalog {
	c := &catalog{server: server, resources: map[string]bool{}}
	for _, p := range server.Primitives {
		if p.Names == nil {
			continue
		}
		for _, name := range p.Names.Patterns() {
			if strings.ContainsAny(name, "*?[!") {
				continue // a glob, not one primitive
			}
			if p.Kinds.Has(policy.KindResourceTemplate) {
				c.addTemplate(name)
			}
			if p.Kinds.Has(policy.KindResource) {
				c.resources[name] = true
			}
		}
	}
	return c
}

// addTemplate makes a URI template known, to every worker VM. Texts that
// are not valid RFC 6570 templates are ignored (they can still be judged by
// name).
func (c *catalog) addTemplate(text string) bool {
	known := len(c.templates)
	ok := c.addLocalTemplate(text)
	if ok && len(c.templates) > known {
		c.shareTemplate(text)
	}
	return ok
}

func (c *catalog) addLocalTemplate(text string) bool {
	if c.isTemplate(text) {
		return true
	}
	if !strings.Contains(text, "{") || len(c.templates) >= maxCatalog {
		return false
	}
	// A copy: text may be a view of a list's body (filterList), and the
	// template and its regexps keep parts of it.
	tmpl, err := uritemplate.Parse(strings.Clone(text))
	if err != nil {
		return false
	}
	c.templates = append(c.templates, tmpl)
	return true
}

// addResource makes a static resource URI known.
func (c *catalog) addResource(uri string) {
	if len(c.resources) < maxCatalog && !c.resources[uri] {
		c.resources[strings.Clone(uri)] = true // uri may be a view of a body
	}
}

// learn records metadata a list result gave a primitive at now (Unix ns),
// for every worker VM. It reports whether this VM keeps it (it does unless
// the catalog is full), so that Resolve would find exactly m. name may be
// a view of a body's bytes: what is kept is a copy.
func (c *catalog) learn(k policy.Kind, name string, m policy.Metadata, now int64) bool {
	prev, ok := c.learned.get(k, name)
	if ok && prev.synced != 0 && prev.synced <= now && now-prev.synced < int64(learnedResync) && sameMetadata(&prev.meta, &m) {
		return true
	}
	if ok || c.learned.n < maxCatalog {
		c.learned.set(k, strings.Clone(name), learnedEntry{meta: ownMetadata(m), synced: now}, ok)
		ok = true
	}
	c.shareLearned(k, name, m)
	return ok
}

// resolveLearned is Resolve for a primitive a list result named, just
// learned with m and kept: known, with m under the configured metadata,
// without looking it up again.
func (c *catalog) resolveLearned(k policy.Kind, name string, m policy.Metadata) policy.Primitive {
	if k == policy.KindResource && c.isTemplate(name) {
		x, _ := c.resolve(target{Kind: k, Name: name, Args: -1})
		return x
	}
	return policy.Primitive{Kind: k, Name: name, Metadata: c.server.Metadata(k, name, m)}
}

// ownMetadata is m with its own copies of the strings a list's body
// holds (learnedMetadata reads them as views).
func ownMetadata(m policy.Metadata) policy.Metadata {
	m.Category = strings.Clone(m.Category)
	if m.Tags != nil {
		tags := make([]string, len(m.Tags))
		for i, t := range m.Tags {
			tags[i] = strings.Clone(t)
		}
		m.Tags = tags
	}
	return m
}

func sameMetadata(a, b *policy.Metadata) bool {
	if a.Category != b.Category || a.Sensitivity != b.Sensitivity || a.Capabilities != b.Capabilities ||
		!slices.Equal(a.Tags, b.Tags) || (a.Hints == nil) != (b.Hints == nil) {
		return false
	}
	return a.Hints == nil || a.Hints.JSON("") == b.Hints.JSON("")
}

// lookup finds learned metadata: this VM's copy, else what another worker
// VM learned.
func (c *catalog) lookup(k policy.Kind, name string) (policy.Metadata, bool) {
	if e, ok := c.learned.get(k, name); ok {
		return e.meta, true
	}
	m, ok := c.sharedLearned(k, name)
	if ok && c.learned.n < maxCatalog {
		// Not written by this VM; name may be a view of a body.
		c.learned.set(k, strings.Clone(name), learnedEntry{meta: m}, false)
	}
	return m, ok
}

// resolve turns a request's target into the primitive the policy judges,
// with its metadata, and reports whether any source knows it (for
// server.require_known). A concrete URI is a known static resource, else
// the known template it is an instance of (matchTemplate), else a
// resource named by the URI (manual 4).
func (c *catalog) resolve(t target) (x policy.Primitive, known bool) {
	x.Kind, x.Name = t.Kind, t.Name
	if t.Kind == policy.KindResource {
		// The templates other worker VMs learned, once per resolution:
		// the caller's template checks (decideConcrete) rely on it too.
		c.refreshTemplates()
		if c.isTemplate(t.Name) {
			// A template's own text (a completion's ref/resource names it
			// so) is that template, not a resource no template matches.
			x.Kind = policy.KindResourceTemplate
		} else if !c.resources[t.Name] {
			if _, static := c.lookup(policy.KindResource, t.Name); !static {
				if tmpl := c.matchTemplate(t.Name); tmpl != nil {
					x.Kind, x.Name, x.URI = policy.KindResourceTemplate, tmpl.Text(), t.Name
				}
			}
		}
	}
	x.Metadata, known = c.lookup(x.Kind, x.Name)
	x.Metadata = c.server.Metadata(x.Kind, x.Name, x.Metadata)
	known = known || c.server.Known(x.Kind, x.Name)
	return x, known
}

// isTemplate reports whether text is a known template's text (as of the
// last refreshTemplates).
func (c *catalog) isTemplate(text string) bool {
	for _, t := range c.templates {
		if t.Text() == text {
			return true
		}
	}
	return false
}

// matchTemplate is the known template (as of the last refreshTemplates)
// a concrete URI is an instance of, or nil: the first that matches it
// under the strict reading, else the first under the loose one (a
// TypeScript or Python server reads it so: manual 4).
func (c *catalog) matchTemplate(uri string) *uritemplate.Template {
	for _, t := range c.templates {
		if t.Match(uri, uritemplate.Strict) {
			return t
		}
	}
	for _, t := range c.templates {
		if t.Match(uri, uritemplate.Loose) {
			return t
		}
	}
	return nil
}

// eachLooseMatch calls fn with every known template that can match uri
// under some server's reading (the loose one), in order, until fn
// returns false.
func (c *catalog) eachLooseMatch(uri string, fn func(t *uritemplate.Template) bool) {
	for _, t := range c.templates {
		if t.Match(uri, uritemplate.Loose) && !fn(t) {
			return
		}
	}
}

// count judges every primitive learned from list results with visible and
// returns, per kind, how many are visible and how many hidden.
func (c *catalog) count(visible func(*policy.Primitive) bool) map[string][2]int {
	out := map[string][2]int{}
	c.learned.each(func(k policy.Kind, name string) {
		x, _ := c.resolve(target{Kind: k, Name: name, Args: -1})
		x.Kind = k
		n := out[k.String()]
		if visible(&x) {
			n[0]++
		} else {
			n[1]++
		}
		out[k.String()] = n
	})
	return out
}
