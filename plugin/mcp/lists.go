package mcp

import (
	judging "github.com/cloudg/mcp-privacy/internal/catalog"
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
	now := s.cfg.now()
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
		if !ok || !judging.Listable(lm.kind, name) {
			// An item we cannot name cannot be judged: it does not go out;
			// nor does a resource whose URI a call could not name (targetOf).
			doc.Delete(it)
			changed = true
			continue
		}
		// Listed means known (for require_known), with or without
		// metadata, and whether or not the metadata is learned (manual 4).
		var meta policy.Metadata
		if s.cfg.Env.Server.LearnFromLists {
			meta, _ = judging.ListedMetadata(doc, doc.Get(found[1], mcpvocab.MetaKey), tagBuf[:0])
		}
		kept := s.cfg.catalog.learn(lm.kind, name, meta, now)
		switch lm.kind {
		case policy.KindResource:
			s.cfg.catalog.model.AddResource(name)
		case policy.KindResourceTemplate:
			s.cfg.catalog.addTemplate(name)
		}
		x, known := policy.Primitive{}, true
		if kept {
			x = s.cfg.catalog.resolveListed(lm.kind, name, meta)
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
