package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	judging "github.com/cloudg/mcp-privacy/internal/catalog"
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
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

// listMembers are the list results by the member holding their items,
// with the item member naming each (the table plugin/mcp filters lists
// by, internal/mcpvocab).
var listMembers = func() (out []mcpvocab.List) {
	for _, m := range mcpvocab.For(mcpvocab.Rev2025).Lists() {
		out = append(out, m.List)
	}
	return out
}()

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
		kind := judging.PolicyKinds[lm.Kind]
		items := v.Get(lm.Items)
		if items == nil {
			continue
		}
		found = true
		if items.Kind != policy.ArrayValue {
			return fmt.Errorf("%s.%s: an array, not a %s", path, lm.Items, items.Kind)
		}
		for i, it := range items.Array {
			name := ""
			if it.Kind == policy.ObjectValue && it.Get(lm.Key) != nil && it.Get(lm.Key).Kind == policy.StringValue {
				name = it.Get(lm.Key).Text
			}
			if name == "" {
				// The plugin drops an item it cannot name (lists.go).
				return fmt.Errorf("%s.%s[%d]: no %s string", path, lm.Items, i, lm.Key)
			}
			e := catalogEntry{Kind: kind, Name: name}
			if meta := it.Get("_meta"); meta != nil && meta.Kind == policy.ObjectValue {
				e.Meta, e.HasMeta = listedMetadata(meta.Get(mcpvocab.MetaKey))
			}
			c.Entries = append(c.Entries, e)
		}
	}
	if !found {
		return fmt.Errorf("%s: none of tools, resources, resourceTemplates, prompts", path)
	}
	return nil
}

// listedMetadata reads an item's _meta["io.cloudg/privacy"] as the
// plugin does (judging.ListedMetadata, over the value's JSON).
func listedMetadata(v *policy.Value) (policy.Metadata, bool) {
	if v == nil {
		return policy.Metadata{}, false
	}
	doc, err := jsondoc.Parse([]byte(v.JSON("")))
	if err != nil {
		return policy.Metadata{}, false
	}
	return judging.ListedMetadata(doc, jsondoc.Root, nil)
}

// judge decides calls for a loaded policy and what the server lists,
// through the plugin's catalog model and judge (internal/catalog): the
// catalog file stands for the lists the plugin learns from.
type judge struct {
	l     *loaded
	model *judging.Model
	// learned is what the lists say of each primitive they name: listed
	// means known, with its metadata when the envelope learns from lists.
	learned listed
}

type kindName struct {
	Kind policy.Kind
	Name string
}

// listed is the catalog file's judging.Learned.
type listed map[kindName]policy.Metadata

func (l listed) Lookup(k policy.Kind, name string) (policy.Metadata, bool) {
	m, ok := l[kindName{k, name}]
	return m, ok
}

func newJudge(l *loaded, cat *catalogFile) *judge {
	server := &policy.ServerConfig{ID: "default", LearnFromLists: true}
	if l.Envelope != nil {
		server = &l.Envelope.Server
	}
	j := &judge{l: l, model: judging.NewModel(server), learned: listed{}}
	if cat == nil {
		return j
	}
	for _, e := range cat.Entries {
		if !judging.Listable(e.Kind, e.Name) {
			continue // the plugin drops it from the list (lists.go)
		}
		var m policy.Metadata
		if server.LearnFromLists {
			m = e.Meta
		}
		j.learned[kindName{e.Kind, e.Name}] = m
		switch e.Kind {
		case policy.KindResource:
			j.model.AddResource(e.Name)
		case policy.KindResourceTemplate:
			j.model.Templates.Add(e.Name)
		}
	}
	return j
}

// resolve is the primitive a call names, with its metadata, and whether
// any source knows it (judging.Model.Resolve).
func (j *judge) resolve(kind policy.Kind, name string) (x policy.Primitive, known bool) {
	return j.model.Resolve(kind, name, j.learned)
}

// decide judges a call of pr to the primitive (kind, name) as the plugin
// does, through the same judging.Judge: require_known, then the policy,
// every reading of a tool's or prompt's name, every known template a
// concrete URI may also be read as. x is what was judged (what a denial
// denied).
func (j *judge) decide(pr *policy.Principal, kind policy.Kind, name string) (policy.Decision, policy.Primitive) {
	x, known := j.resolve(kind, name)
	jd := judging.Judge{Policy: j.l.Policy, Server: j.model.Server, Principal: *pr, Catalog: j}
	d := jd.DecideConcrete(&x, known)
	return d, x
}

// Resolve, EachLooseMatch and ReadingsOf make the captured catalog a
// judging.Catalog.
func (j *judge) Resolve(kind policy.Kind, name string) (policy.Primitive, bool) {
	return j.resolve(kind, name)
}

func (j *judge) EachLooseMatch(uri string, fn func(t *uritemplate.Template) bool) {
	j.model.Templates.EachLooseMatch(uri, fn)
}

func (j *judge) ReadingsOf(name string) policy.Readings { return policy.ReadingsOf(name) }

// verdict is one call judged: the decision as the client sees it and what
// an allowed call runs. Field names are the JSON of diff and matrix.
type verdict struct {
	Decision        string   `json:"decision"` // allow, deny, hidden or refused
	Rule            string   `json:"rule"`
	Reason          string   `json:"reason"`
	Transforms      []string `json:"transforms"`
	InputTransforms []string `json:"input_transforms"`
	RateLimits      []string `json:"rate_limits"`

	d policy.Decision
	x policy.Primitive
	// refusal is the error of a call refused before it is judged (a
	// resource URI that is not normal, judging.URINormal), else nil.
	refusal *policy.RPCError
}

// verdictOf judges a call and resolves what explain reports for it.
func (j *judge) verdictOf(pr *policy.Principal, kind policy.Kind, name string) verdict {
	if kind == policy.KindResource && !judging.URINormal(name, true) {
		// The plugin refuses the request as invalid params, whoever sends
		// it (plugin/mcp call.go).
		return verdict{Decision: "refused", Reason: judging.URINotNormal,
			Transforms: []string{}, InputTransforms: []string{}, RateLimits: []string{},
			refusal: mcpvocab.For(mcpvocab.Rev2025).NewError(mcpvocab.ErrInvalidParams, judging.URINotNormal, nil)}
	}
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
