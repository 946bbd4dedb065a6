package catalog

import (
	"strings"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/internal/uritemplate"
	"github.com/cloudg/mcp-privacy/policy"
)

// MaxEntries bounds what list results can add to a catalog (templates,
// static resources, learned entries), so a server cannot grow a VM's
// memory without limit.
const MaxEntries = 10000

// Model is what is known of a server's primitives besides learned
// metadata: the envelope's server block, the static resources and the
// resource templates, from configuration and from list results. The
// plugin keeps one per VM (filled from the lists passing it and from what
// other worker VMs share); the CLI builds one from captured list results.
// Both resolve through it, so a call names the same primitive in both.
type Model struct {
	Server    *policy.ServerConfig
	Templates Templates
	// resources are the known static resource URIs.
	resources map[string]bool
}

// Learned is where a model finds the metadata list results gave a
// primitive: found reports whether a list named it (with or without
// metadata), which makes it known (manual 4).
type Learned interface {
	Lookup(k policy.Kind, name string) (m policy.Metadata, found bool)
}

// NewModel is the model of the envelope's server block: server.primitives
// names that are literal (not globs) make templates known (kind
// resource_template) and static resources known (kind resource).
func NewModel(server *policy.ServerConfig) *Model {
	m := &Model{Server: server, resources: map[string]bool{}}
	for _, p := range server.Primitives {
		if p.Names == nil {
			continue
		}
		for _, name := range p.Names.Patterns() {
			if strings.ContainsAny(name, "*?[!") {
				continue // a glob, not one primitive
			}
			if p.Kinds.Has(policy.KindResourceTemplate) {
				m.Templates.Add(name)
			}
			if p.Kinds.Has(policy.KindResource) {
				m.resources[name] = true
			}
		}
	}
	return m
}

// AddResource makes a static resource URI known. uri may be a view of a
// body: what is kept is a copy.
func (m *Model) AddResource(uri string) {
	if len(m.resources) < MaxEntries && !m.resources[uri] {
		m.resources[strings.Clone(uri)] = true
	}
}

// IsResource reports whether uri is a known static resource (configured
// or listed).
func (m *Model) IsResource(uri string) bool { return m.resources[uri] }

// Resolve is the primitive a call names, with its metadata, and whether
// any source knows it (for server.require_known). A concrete URI is a
// known static resource (configured, listed, or learned by another
// worker), else the known template it is an instance of (the first that
// matches it strictly, else the first that matches it loosely: a
// TypeScript or Python server reads it so), else a resource named by the
// URI; a template's own text (a completion's ref names it so) is that
// template (manual 4). Metadata is learned, under the configured layers.
func (m *Model) Resolve(kind policy.Kind, name string, learned Learned) (x policy.Primitive, known bool) {
	x.Kind, x.Name = kind, name
	if kind == policy.KindResource {
		if m.Templates.Has(name) {
			x.Kind = policy.KindResourceTemplate
		} else if !m.IsResource(name) {
			if _, static := learned.Lookup(policy.KindResource, name); !static {
				if t := m.Templates.Instance(name); t != nil {
					x.Kind, x.Name, x.URI = policy.KindResourceTemplate, t.Text(), name
				}
			}
		}
	}
	x.Metadata, known = learned.Lookup(x.Kind, x.Name)
	x.Metadata = m.Server.Metadata(x.Kind, x.Name, x.Metadata)
	return x, known || m.Server.Known(x.Kind, x.Name)
}

// ResolveListed is Resolve for an item a list result names, just learned
// with meta: known, with meta under the configured layers, without
// looking it up again; a listed resource whose URI is a template's text
// resolves as Resolve does. x.Kind stays the list's kind: a listed
// resource is that resource even if a template also matches it.
func (m *Model) ResolveListed(k policy.Kind, name string, meta policy.Metadata, learned Learned) policy.Primitive {
	if k == policy.KindResource && m.Templates.Has(name) {
		x, _ := m.Resolve(k, name, learned)
		x.Kind = k
		return x
	}
	return policy.Primitive{Kind: k, Name: name, Metadata: m.Server.Metadata(k, name, meta)}
}

// Templates are the known resource templates in the order they became
// known: a concrete URI is an instance of the first that matches it
// strictly, else of the first that matches it loosely, and is judged by
// every one that matches it loosely too (manual 4).
type Templates struct{ list []*uritemplate.Template }

// Add makes a template known; added reports whether it is new. Texts
// that are not RFC 6570 templates (or beyond MaxEntries) are not added,
// ok false: they can still be judged by name.
func (ts *Templates) Add(text string) (added, ok bool) {
	if ts.Has(text) {
		return false, true
	}
	if !strings.Contains(text, "{") || len(ts.list) >= MaxEntries {
		return false, false
	}
	// A copy: text may be a view of a list's body, and the template and
	// its regexps keep parts of it.
	t, err := uritemplate.Parse(strings.Clone(text))
	if err != nil {
		return false, false
	}
	ts.list = append(ts.list, t)
	return true, true
}

// Has reports whether text is a known template's text.
func (ts *Templates) Has(text string) bool {
	for _, t := range ts.list {
		if t.Text() == text {
			return true
		}
	}
	return false
}

// Len is how many templates are known.
func (ts *Templates) Len() int { return len(ts.list) }

// Instance is the known template a concrete URI is an instance of, or
// nil: the first that matches it under the strict reading, else the first
// under the loose one.
func (ts *Templates) Instance(uri string) *uritemplate.Template {
	for _, r := range [...]uritemplate.Reading{uritemplate.Strict, uritemplate.Loose} {
		for _, t := range ts.list {
			if t.Match(uri, r) {
				return t
			}
		}
	}
	return nil
}

// EachLooseMatch calls fn with every known template that can match uri
// under some server's reading (the loose one), in order, until fn
// returns false.
func (ts *Templates) EachLooseMatch(uri string, fn func(t *uritemplate.Template) bool) {
	for _, t := range ts.list {
		if t.Match(uri, uritemplate.Loose) && !fn(t) {
			return
		}
	}
}

// PolicyKinds is the policy's kind of each kind internal/mcpvocab's
// table names (not KindNone, nor KindRef, which names a prompt or
// resource by its type).
var PolicyKinds = [...]policy.Kind{
	mcpvocab.KindTool: policy.KindTool, mcpvocab.KindPrompt: policy.KindPrompt,
	mcpvocab.KindResource: policy.KindResource, mcpvocab.KindResourceTemplate: policy.KindResourceTemplate,
}

// Listable reports whether a list item named name joins the catalog: an
// item without a name cannot be judged, and a resource whose URI a call
// could not name (URINormal) is dropped from the list, not judged.
func Listable(k policy.Kind, name string) bool {
	return name != "" && (k != policy.KindResource || URINormal(name, true))
}

// ListedMetadata reads an item's _meta["io.cloudg/privacy"] (node n of
// doc): the five metadata keys of manual 4. Values of the wrong type are
// ignored, unknown sensitivities and capabilities too, so a server cannot
// break the plugin with odd metadata. found reports an object was there.
// The category and tags are views of the body's bytes (Doc.StrView), the
// tags appended to tags: a list repeating known metadata copies nothing,
// and a catalog copies what it keeps (OwnMetadata).
func ListedMetadata(doc *jsondoc.Doc, n int32, tags []string) (m policy.Metadata, found bool) {
	if doc.Kind(n) != jsondoc.Object {
		return m, false
	}
	var f [5]int32
	doc.GetMany(n, metadataMembers[:], f[:])
	if c, ok := doc.StrView(f[0]); ok {
		m.Category = c
	}
	if doc.Kind(f[1]) == jsondoc.Array {
		for t := doc.First(f[1]); t != jsondoc.None; t = doc.Next(t) {
			if s, ok := doc.StrView(t); ok {
				tags = append(tags, s)
			}
		}
		if len(tags) > 0 {
			m.Tags = tags
		}
	}
	if s, ok := doc.StrView(f[2]); ok {
		m.Sensitivity, _ = policy.ParseSensitivity(s)
	}
	if doc.Kind(f[3]) == jsondoc.Array {
		for c := doc.First(f[3]); c != jsondoc.None; c = doc.Next(c) {
			if s, ok := doc.StrView(c); ok {
				if cp, ok := policy.ParseCapability(s); ok {
					m.Capabilities = m.Capabilities.With(cp)
				}
			}
		}
	}
	if doc.Kind(f[4]) == jsondoc.Object {
		if v, err := policy.ParseJSON(doc.AppendValue(nil, f[4])); err == nil {
			m.Hints = v
		}
	}
	return m, true
}

// metadataMembers are the members of an item's privacy metadata, in the
// order ListedMetadata reads them.
var metadataMembers = [5]string{"category", "tags", "sensitivity", "capabilities", "transform_hints"}

// OwnMetadata is m with its own copies of the strings a list's body
// holds (ListedMetadata reads them as views).
func OwnMetadata(m policy.Metadata) policy.Metadata {
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
