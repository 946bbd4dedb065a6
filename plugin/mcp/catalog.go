package mcp

import (
	"slices"
	"strings"
	"time"

	judging "github.com/cloudg/mcp-privacy/internal/catalog"
	"github.com/cloudg/mcp-privacy/internal/shareddata"
	"github.com/cloudg/mcp-privacy/policy"
)

// catalog knows the upstream server's primitives and their metadata (spec
// 4): what server.primitives configures, and what was learned from list
// results. It resolves a request's target to the Primitive the policy
// judges.
type catalog struct {
	// model is the server block, the static resources and the templates
	// (internal/catalog, which the CLI's policy test resolves through too).
	model *judging.Model
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

// newCatalog builds a catalog from the envelope's server block
// (judging.NewModel).
func newCatalog(server *policy.ServerConfig) *catalog {
	return &catalog{model: judging.NewModel(server)}
}

// addTemplate makes a URI template known, to every worker VM. Texts that
// are not valid RFC 6570 templates are ignored (they can still be judged by
// name).
func (c *catalog) addTemplate(text string) {
	if added, _ := c.model.Templates.Add(text); added {
		c.shareTemplate(text)
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
	if ok || c.learned.n < judging.MaxEntries {
		c.learned.set(k, strings.Clone(name), learnedEntry{meta: judging.OwnMetadata(m), synced: now}, ok)
		ok = true
	}
	c.shareLearned(k, name, m)
	return ok
}

// resolveListed is resolve for an item a list result named, just
// learned with m and kept (judging.Model.ResolveListed).
func (c *catalog) resolveListed(k policy.Kind, name string, m policy.Metadata) policy.Primitive {
	return c.model.ResolveListed(k, name, m, c)
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
	if ok && c.learned.n < judging.MaxEntries {
		// Not written by this VM; name may be a view of a body.
		c.learned.set(k, strings.Clone(name), learnedEntry{meta: m}, false)
	}
	return m, ok
}

// Lookup is judging.Learned's: learned metadata, this VM's copy, else
// what another worker VM learned.
func (c *catalog) Lookup(k policy.Kind, name string) (policy.Metadata, bool) {
	return c.lookup(k, name)
}

// resolve turns a request's target into the primitive the policy judges,
// with its metadata, and reports whether any source knows it
// (judging.Model.Resolve).
func (c *catalog) resolve(t target) (x policy.Primitive, known bool) {
	if t.Kind == policy.KindResource {
		// The templates other worker VMs learned, once per resolution:
		// the caller's template checks (decideConcrete) rely on it too.
		c.refreshTemplates()
	}
	return c.model.Resolve(t.Kind, t.Name, c)
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
