package mcp

import (
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms/outputschema"
)

// filterList removes from a list result the items the caller may not use
// (under hide_denied) and learns the metadata the items carry. It reports
// whether the result changed.
func (s *exchange) filterList(doc *jsondoc.Doc, result int32, lm listMethod, firstPage bool) bool {
	items := doc.Get(result, lm.items)
	if doc.Kind(items) != jsondoc.Array {
		return false
	}
	defer func() {
		// Virtual tools join the first page of tools/list.
		if lm.kind == policy.KindTool && firstPage {
			for _, name := range virtualTools {
				if d, on := s.virtualAllowed(name); on && d.Allowed {
					doc.Append(items, "", virtualTool(name))
				}
			}
		}
	}()
	changed := false
	var now int64
	if s.cfg.Env.Server.LearnFromLists {
		now = s.cfg.now()
	}
	if lm.kind == policy.KindResource || lm.kind == policy.KindResourceTemplate {
		// Once per list, not per item: the templates other worker VMs
		// learned, which a listed resource is also judged by.
		s.cfg.catalog.refreshTemplates()
	}
	// Each item's name, _meta and outputSchema, found in one pass over
	// its members.
	keys := [3]string{lm.key, "_meta", "outputSchema"}
	var found [3]int32
	var tagBuf [8]string // an item's tags, while it is judged
	for it := doc.First(items); it != jsondoc.None; it = doc.Next(it) {
		doc.GetMany(it, keys[:], found[:])
		// The name is a view of the body's bytes (no copy per item): the
		// catalog copies what it keeps.
		name, ok := doc.StrView(found[0])
		if !ok || name == "" || (lm.kind == policy.KindResource && !uriNormal(name, true)) {
			// An item we cannot name cannot be judged: it does not go out;
			// nor does a resource whose URI a call could not name (targetOf).
			doc.Delete(it)
			changed = true
			continue
		}
		var meta policy.Metadata
		kept := false
		if s.cfg.Env.Server.LearnFromLists {
			// Listed means known (for require_known), with or without metadata.
			meta, _ = learnedMetadata(doc, doc.Get(found[1], mcpvocab.MetaKey), tagBuf[:0])
			kept = s.cfg.catalog.learn(lm.kind, name, meta, now)
		}
		switch lm.kind {
		case policy.KindResource:
			s.cfg.catalog.addResource(name)
		case policy.KindResourceTemplate:
			s.cfg.catalog.addTemplate(name)
		}
		x, known := policy.Primitive{}, true
		if kept {
			x = s.cfg.catalog.resolveLearned(lm.kind, name, meta)
		} else {
			x, known = s.cfg.catalog.resolve(target{Kind: lm.kind, Name: name, Args: jsondoc.None})
		}
		// A listed resource is that resource, even if a template also
		// matches it; a denied template hides it all the same.
		x.Kind = lm.kind
		d := s.decideConcrete(&x, known)
		if d.Hidden {
			doc.Delete(it)
			changed = true
			continue
		}
		if lm.kind == policy.KindTool && d.Allowed {
			s.rewriteOutputSchema(doc, found[2], &d, &x)
		}
	}
	return changed
}

// learnedMetadata reads an item's _meta["io.cloudg/privacy"]: the five
// metadata keys of manual 4. Values of the wrong type are ignored, so a
// server cannot break the plugin with odd metadata. The category and tags
// are views of the body's bytes (Doc.StrView), the tags appended to tags:
// a list repeating known metadata copies nothing, and the catalog copies
// what it keeps (Learn).
func learnedMetadata(doc *jsondoc.Doc, n int32, tags []string) (policy.Metadata, bool) {
	var m policy.Metadata
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
// order learnedMetadata reads them.
var metadataMembers = [5]string{"category", "tags", "sensitivity", "capabilities", "transform_hints"}

// rewriteOutputSchema keeps a listed tool's outputSchema (schema) true to
// what the caller will receive from it (manual 8): clients validate
// structuredContent against it, and a pseudonym is no longer an "email".
func (s *exchange) rewriteOutputSchema(doc *jsondoc.Doc, schema int32, d *policy.Decision, x *policy.Primitive) {
	if doc.Kind(schema) != jsondoc.Object {
		return
	}
	out, err := s.cfg.pipeline(false, d.Matched, &x.Metadata)
	if err != nil || out.Empty() {
		return // a call would fail closed: its schema does not matter
	}
	outputschema.Rewrite(doc, schema, out.SchemaEffects())
}
