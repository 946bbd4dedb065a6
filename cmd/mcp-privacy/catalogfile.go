package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	judging "github.com/cloudg/mcp-privacy/internal/catalog"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/internal/uritemplate"
	"github.com/cloudg/mcp-privacy/policy"
)

// catalogEntry is one primitive a captured list result names.
type catalogEntry struct {
	Kind policy.Kind
	Name string
	// Meta is its _meta["io.cloudg/privacy"]; HasMeta says there was one.
	Meta    policy.Metadata
	HasMeta bool
}

// catalogFile is what captured list results say of a server's primitives
// (the catalog file of policy test, diff and matrix): the entries in the
// order the lists gave them.
type catalogFile struct {
	Entries []catalogEntry
}

// listMembers are the four list results by the member holding their
// items, with the item member naming each (as plugin/mcp's list methods).
var listMembers = []struct {
	items, key string
	kind       policy.Kind
}{
	{"tools", "name", policy.KindTool},
	{"resources", "uri", policy.KindResource},
	{"resourceTemplates", "uriTemplate", policy.KindResourceTemplate},
	{"prompts", "name", policy.KindPrompt},
}

// readCatalogFile reads captured list results: one or more JSON values
// in a row, each a list result, a JSON-RPC response carrying one, or an
// array of either (YAML is read as one value).
func readCatalogFile(file string) (*catalogFile, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return parseCatalog(data)
}

func parseCatalog(data []byte) (*catalogFile, error) {
	var values []*policy.Value
	if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		dec := json.NewDecoder(bytes.NewReader(data))
		for i := 0; ; i++ {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err == io.EOF {
				break
			} else if err != nil {
				return nil, fmt.Errorf("JSON value %d: %v", i+1, err)
			}
			v, err := policy.ParseJSON(raw)
			if err != nil {
				return nil, fmt.Errorf("JSON value %d: %v", i+1, err)
			}
			values = append(values, v)
		}
	} else {
		v, err := policy.ParseDocument(data)
		if err != nil {
			return nil, err
		}
		values = append(values, v)
	}
	c := &catalogFile{}
	for i, v := range values {
		if err := c.add(v, fmt.Sprintf("$[%d]", i)); err != nil {
			return nil, err
		}
	}
	if len(c.Entries) == 0 {
		return nil, fmt.Errorf("no tools, resources, resourceTemplates or prompts list in it")
	}
	return c, nil
}

// add reads one value: an array of results, a JSON-RPC response, or a
// list result.
func (c *catalogFile) add(v *policy.Value, path string) error {
	switch {
	case v.Kind == policy.ArrayValue:
		for i, e := range v.Array {
			if err := c.add(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case v.Kind != policy.ObjectValue:
		return fmt.Errorf("%s: a list result or a JSON-RPC response, not a %s", path, v.Kind)
	case v.Get("jsonrpc") != nil:
		r := v.Get("result")
		if r == nil {
			return fmt.Errorf("%s: a JSON-RPC message without result", path)
		}
		return c.add(r, path+".result")
	}
	found := false
	for _, lm := range listMembers {
		items := v.Get(lm.items)
		if items == nil {
			continue
		}
		found = true
		if items.Kind != policy.ArrayValue {
			return fmt.Errorf("%s.%s: an array, not a %s", path, lm.items, items.Kind)
		}
		for i, it := range items.Array {
			name := ""
			if it.Kind == policy.ObjectValue && it.Get(lm.key) != nil && it.Get(lm.key).Kind == policy.StringValue {
				name = it.Get(lm.key).Text
			}
			if name == "" {
				// The plugin drops an item it cannot name (lists.go).
				return fmt.Errorf("%s.%s[%d]: no %s string", path, lm.items, i, lm.key)
			}
			e := catalogEntry{Kind: lm.kind, Name: name}
			if meta := it.Get("_meta"); meta != nil && meta.Kind == policy.ObjectValue {
				e.Meta, e.HasMeta = learnedMetadata(meta.Get(mcpvocab.MetaKey))
			}
			c.Entries = append(c.Entries, e)
		}
	}
	if !found {
		return fmt.Errorf("%s: none of tools, resources, resourceTemplates, prompts", path)
	}
	return nil
}

// learnedMetadata reads an item's _meta["io.cloudg/privacy"] by the rules
// of plugin/mcp's learnedMetadata (lists.go), which reads the same five
// keys from the body in place: values of the wrong type are ignored,
// unknown sensitivities and capabilities too.
func learnedMetadata(v *policy.Value) (policy.Metadata, bool) {
	var m policy.Metadata
	if v == nil || v.Kind != policy.ObjectValue {
		return m, false
	}
	if c := v.Get("category"); c != nil && c.Kind == policy.StringValue {
		m.Category = c.Text
	}
	if t := v.Get("tags"); t != nil && t.Kind == policy.ArrayValue {
		for _, e := range t.Array {
			if e.Kind == policy.StringValue {
				m.Tags = append(m.Tags, e.Text)
			}
		}
	}
	if s := v.Get("sensitivity"); s != nil && s.Kind == policy.StringValue {
		m.Sensitivity, _ = policy.ParseSensitivity(s.Text)
	}
	if cs := v.Get("capabilities"); cs != nil && cs.Kind == policy.ArrayValue {
		for _, e := range cs.Array {
			if e.Kind == policy.StringValue {
				if cp, ok := policy.ParseCapability(e.Text); ok {
					m.Capabilities = m.Capabilities.With(cp)
				}
			}
		}
	}
	if h := v.Get("transform_hints"); h != nil && h.Kind == policy.ObjectValue {
		m.Hints = h
	}
	return m, true
}

// judge decides calls for a loaded policy and what the server lists, the
// way plugin/mcp's catalog and exchange resolve and decide them (catalog.go
// resolve, exchange.go decideConcrete): the decisions themselves are
// policy.Decide's.
type judge struct {
	l      *loaded
	server *policy.ServerConfig
	// learned is the catalog's metadata by kind and name (when the
	// envelope learns from lists); listed every name the catalog lists.
	learned map[kindName]policy.Metadata
	listed  map[kindName]bool
	// templates are the known templates in the order they became known:
	// server.primitives' literal texts, then the catalog's.
	templates []*uritemplate.Template
}

type kindName struct {
	Kind policy.Kind
	Name string
}

func newJudge(l *loaded, cat *catalogFile) *judge {
	j := &judge{l: l, server: &policy.ServerConfig{ID: "default", LearnFromLists: true},
		learned: map[kindName]policy.Metadata{}, listed: map[kindName]bool{}}
	if l.Envelope != nil {
		j.server = &l.Envelope.Server
	}
	for _, p := range j.server.Primitives {
		if p.Names == nil || !p.Kinds.Has(policy.KindResourceTemplate) {
			continue
		}
		for _, name := range p.Names.Patterns() {
			if !strings.ContainsAny(name, "*?[!") {
				j.addTemplate(name)
			}
		}
	}
	if cat != nil {
		for _, e := range cat.Entries {
			k := kindName{e.Kind, e.Name}
			j.listed[k] = true
			if j.server.LearnFromLists {
				j.learned[k] = e.Meta
			}
			if e.Kind == policy.KindResourceTemplate {
				j.addTemplate(e.Name)
			}
		}
	}
	return j
}

func (j *judge) addTemplate(text string) {
	for _, t := range j.templates {
		if t.Text() == text {
			return
		}
	}
	if t, err := uritemplate.Parse(text); err == nil {
		j.templates = append(j.templates, t)
	}
}

// resolve is the primitive a call names, with its metadata, and whether
// any source knows it (plugin/mcp catalog.resolve): a concrete URI is a
// listed static resource, else the first known template matching it
// strictly, else loosely, else a resource of that URI.
func (j *judge) resolve(kind policy.Kind, name string) (x policy.Primitive, known bool) {
	x.Kind, x.Name = kind, name
	if kind == policy.KindResource {
		switch {
		case j.isTemplate(name):
			x.Kind = policy.KindResourceTemplate
		case j.listed[kindName{policy.KindResource, name}] || j.staticResource(name):
		default:
			if t := j.matchTemplate(name); t != nil {
				x.Kind, x.Name, x.URI = policy.KindResourceTemplate, t.Text(), name
			}
		}
	}
	m, learned := j.learned[kindName{x.Kind, x.Name}]
	x.Metadata = j.server.Metadata(x.Kind, x.Name, m)
	return x, learned || j.listed[kindName{x.Kind, x.Name}] || j.server.Known(x.Kind, x.Name)
}

// staticResource: server.primitives names the URI as a resource.
func (j *judge) staticResource(uri string) bool {
	for _, p := range j.server.Primitives {
		if p.Names != nil && p.Kinds.Has(policy.KindResource) && slices.Contains(p.Names.Patterns(), uri) {
			return true
		}
	}
	return false
}

func (j *judge) isTemplate(text string) bool {
	for _, t := range j.templates {
		if t.Text() == text {
			return true
		}
	}
	return false
}

func (j *judge) matchTemplate(uri string) *uritemplate.Template {
	for _, r := range []uritemplate.Reading{uritemplate.Strict, uritemplate.Loose} {
		for _, t := range j.templates {
			if t.Match(uri, r) {
				return t
			}
		}
	}
	return nil
}

// decide judges a call of pr to the primitive (kind, name) as the plugin
// does, through the same judging.Judge: require_known, then the policy,
// every reading of a tool's or prompt's name, every known template a
// concrete URI may also be read as. x is what was judged (what a denial
// denied).
func (j *judge) decide(pr *policy.Principal, kind policy.Kind, name string) (policy.Decision, policy.Primitive) {
	x, known := j.resolve(kind, name)
	jd := judging.Judge{Policy: j.l.Policy, Server: j.server, Principal: *pr, Catalog: j}
	d := jd.DecideConcrete(&x, known)
	return d, x
}

// Resolve, EachLooseMatch and ReadingsOf make the captured catalog a
// judging.Catalog.
func (j *judge) Resolve(kind policy.Kind, name string) (policy.Primitive, bool) {
	return j.resolve(kind, name)
}

func (j *judge) EachLooseMatch(uri string, fn func(t *uritemplate.Template) bool) {
	for _, t := range j.templates {
		if t.Match(uri, uritemplate.Loose) && !fn(t) {
			return
		}
	}
}

func (j *judge) ReadingsOf(name string) policy.Readings { return policy.ReadingsOf(name) }

// verdict is one call judged: the decision as the client sees it and what
// an allowed call runs. Field names are the JSON of diff and matrix.
type verdict struct {
	Decision        string   `json:"decision"` // allow, deny or hidden
	Rule            string   `json:"rule"`
	Reason          string   `json:"reason"`
	Transforms      []string `json:"transforms"`
	InputTransforms []string `json:"input_transforms"`
	RateLimits      []string `json:"rate_limits"`

	d policy.Decision
	x policy.Primitive
}

// verdictOf judges a call and resolves what explain reports for it.
func (j *judge) verdictOf(pr *policy.Principal, kind policy.Kind, name string) verdict {
	d, x := j.decide(pr, kind, name)
	v := verdict{Decision: "deny", Rule: d.Rule, Reason: d.Reason(), d: d, x: x,
		Transforms: []string{}, InputTransforms: []string{}, RateLimits: []string{}}
	switch {
	case d.Hidden:
		v.Decision = "hidden"
	case d.Allowed:
		p := j.l.Policy
		v.Decision = "allow"
		v.Transforms = policy.IDs(p.OutputPipeline(d.Matched, &x.Metadata))
		v.InputTransforms = policy.IDs(p.InputPipeline(d.Matched, &x.Metadata))
		for _, b := range p.Buckets(rateCallOf(&x, pr.ID, func(name string) bool {
			_, known := j.resolve(x.Kind, name)
			return known
		}), d.Matched) {
			v.RateLimits = append(v.RateLimits, b.String())
		}
	}
	return v
}
