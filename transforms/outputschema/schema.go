// Package outputschema keeps a listed tool's outputSchema true to what the
// caller will receive (manual 8): clients validate structuredContent
// against it, and a pseudonymised email under {"format": "email"} fails
// validation.
//
// The schema is read as a description of document locations (the abstract
// locations of transforms/fieldpath): `properties.X` is the member X,
// `additionalProperties`, `patternProperties` and `unevaluatedProperties`
// are members of unknown name, `prefixItems[i]` (and `items[i]` in the
// pre-2020 tuple form) the element i, `items`, `additionalItems`,
// `unevaluatedItems` and `contains` elements of unknown index. allOf,
// anyOf, oneOf, dependentSchemas and `$ref` targets describe the same
// location as the schema holding them. For every location we know whether
// each path may reach it (in some document of that shape) and whether it
// must (in every one), and edit with whichever answer is safe:
//
//   - loosening is always safe, tightening never is: a constraint is
//     removed when a step may invalidate it, and nothing is ever added;
//   - a string a rewriting step may reach (its fields may cover it, its
//     exclude_fields need not) loses format, pattern, minLength,
//     maxLength, and enum/const when they hold a string;
//   - a number a step that rewrites numbers may reach may become a
//     string: its type admits "string" too, and it loses the same
//     keywords, and enum/const when they hold a number;
//   - a member project may remove leaves `required` (and
//     dependentRequired); one it must remove also leaves `properties`.
//
// Everything else follows from these rules; each case is commented where
// it is handled, and docs/PATHS.md has the summary.
package outputschema

import (
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/transforms/fieldpath"
)

// Effects is what a caller's output pipeline does to structuredContent, as
// far as the tool's outputSchema is concerned.
type Effects struct {
	// Include holds the include paths of the pipeline's project steps,
	// merged; empty when no step includes (as for the step itself, an
	// empty include keeps everything). Merging several include steps
	// over-states what survives (only what every one keeps does): a member
	// that one of them drops may stay required.
	Include fieldpath.Paths
	// Exclude holds the exclude paths of every project step.
	Exclude fieldpath.Paths
	// Rewrites has one scope per string-rewriting step (redact,
	// pseudonymise, mask, hash, truncate).
	Rewrites []FieldScope
}

// FieldScope is where one rewriting step acts: inside Fields (nil or
// empty: everywhere), except inside Exclude. As in the step itself, a path
// selects the subtree it reaches. Numbers: the step also makes a number
// it finds something in a string (redact, pseudonymise, mask and hash
// read numbers; truncate does not).
type FieldScope struct {
	Fields, Exclude fieldpath.Paths
	Numbers         bool
}

// Rewrite edits the JSON Schema at node schema of doc in place
// and reports whether it changed anything. A schema that is not an object,
// or that is malformed in a keyword this function reads (properties that
// is not an object, a subschema that is neither an object nor a boolean,
// required that is not a list of strings, ...), is left as is. Only
// Delete and Append are used, so what is not edited stays byte-identical
// (a type that admits "string" too is deleted and appended again).
func Rewrite(doc *jsondoc.Doc, schema int32, eff Effects) bool {
	if doc.Kind(schema) != jsondoc.Object {
		return false
	}
	r := &rewriter{doc: doc, root: schema, isSchema: map[int32]bool{}}
	if !r.check(schema, true) {
		return false
	}
	if len(eff.Include) == 0 && len(eff.Exclude) == 0 && len(eff.Rewrites) == 0 {
		return false
	}
	r.resolveRefs()
	r.compile(eff)
	r.seen = map[string]bool{}
	r.convert = map[int32]bool{}
	// Without $ref every schema node is visited once. A $ref target is
	// visited once per distinct set of path positions, and recursive
	// schemas could, in theory, produce many; past the budget every visit
	// uses the top state (every path may reach, none must), which is
	// conservative and visits each node at most once more.
	r.budget = visitBudget(len(r.schemas))
	r.visit(schema, r.start())
	r.finish()
	return r.changed
}

// visitBudget is how many visits a schema of n subschemas gets
// before the rewriting falls back to the top state (a variable for tests).
var visitBudget = func(n int) int { return 16*n + 1024 }

// schemaNode is a node checked as a schema; positive is false under `not`
// and `if`, where loosening a subschema would tighten the schema.
type schemaNode struct {
	n        int32
	positive bool
}

// pathSlot is one compiled path and where its position sets sit in a state:
// the may set at off, the must set at off+words.
type pathSlot struct {
	p     fieldpath.Path
	off   int
	words int
}

func (s pathSlot) may(st []uint64) []uint64  { return st[s.off : s.off+s.words] }
func (s pathSlot) must(st []uint64) []uint64 { return st[s.off+s.words : s.off+2*s.words] }

// reachedMay: some document reaches this location (or an ancestor).
func (s pathSlot) reachedMay(st []uint64) bool { return s.p.Reached(s.may(st)) }

// reachedMust: every document does.
func (s pathSlot) reachedMust(st []uint64) bool { return s.p.Reached(s.must(st)) }

// alive: the path may reach this location or something below it.
func (s pathSlot) alive(st []uint64) bool { return fieldpath.AnyPosition(s.may(st)) }

type scopeSlots struct {
	fields, exclude []pathSlot
	numbers         bool // FieldScope.Numbers
}

type rewriter struct {
	doc  *jsondoc.Doc
	root int32

	// Found by check.
	schemas   []schemaNode
	isSchema  map[int32]bool
	refs      []int32 // $ref, $dynamicRef and $recursiveRef members
	negatives []int32 // not and if members
	// Found by resolveRefs.
	refTarget map[int32]int32 // $ref member -> target schema, or None
	targets   map[int32]bool

	all              []pathSlot
	include, exclude []pathSlot
	rewrites         []scopeSlots
	width            int
	top              []uint64

	seen           map[string]bool
	visits, budget int
	key            []byte

	convert         map[int32]bool // schemas whose oneOf becomes anyOf
	dropUnevaluated bool
	editedShared    bool
	changed         bool
}

// check validates the keywords the rewriting reads and records every
// subschema. It follows no $ref.
func (r *rewriter) check(n int32, positive bool) bool {
	d := r.doc
	switch d.Kind(n) {
	case jsondoc.True, jsondoc.False:
		return true
	case jsondoc.Object:
	default:
		return false
	}
	r.isSchema[n] = true
	r.schemas = append(r.schemas, schemaNode{n, positive})
	for m := d.First(n); m != jsondoc.None; m = d.Next(m) {
		ok := true
		switch d.Key(m) {
		case "properties", "patternProperties", "dependentSchemas":
			ok = d.Kind(m) == jsondoc.Object && r.checkEach(m, positive)
		case "$defs", "definitions":
			// Definitions apply where they are referenced; the polarity of
			// those places is handled in finish.
			ok = d.Kind(m) == jsondoc.Object && r.checkEach(m, true)
		case "prefixItems", "allOf", "anyOf", "oneOf":
			ok = d.Kind(m) == jsondoc.Array && r.checkEach(m, positive)
		case "items":
			if d.Kind(m) == jsondoc.Array {
				ok = r.checkEach(m, positive)
			} else {
				ok = r.check(m, positive)
			}
		case "additionalProperties", "unevaluatedProperties", "additionalItems",
			"unevaluatedItems", "contains", "propertyNames", "then", "else":
			ok = r.check(m, positive)
		case "not", "if":
			r.negatives = append(r.negatives, m)
			ok = r.check(m, false)
		case "required":
			ok = r.stringList(m)
		case "dependentRequired":
			ok = d.Kind(m) == jsondoc.Object
			for v := d.First(m); ok && v != jsondoc.None; v = d.Next(v) {
				ok = r.stringList(v)
			}
		case "dependencies": // draft 7: a list of names or a schema
			ok = d.Kind(m) == jsondoc.Object
			for v := d.First(m); ok && v != jsondoc.None; v = d.Next(v) {
				if d.Kind(v) == jsondoc.Array {
					ok = r.stringList(v)
				} else {
					ok = r.check(v, positive)
				}
			}
		case "type":
			ok = d.Kind(m) == jsondoc.String || r.stringList(m)
		case "enum":
			ok = d.Kind(m) == jsondoc.Array
		case "$ref", "$dynamicRef", "$recursiveRef":
			ok = d.Kind(m) == jsondoc.String
			r.refs = append(r.refs, m)
		}
		if !ok {
			return false
		}
	}
	return true
}

func (r *rewriter) checkEach(container int32, positive bool) bool {
	for c := r.doc.First(container); c != jsondoc.None; c = r.doc.Next(c) {
		if !r.check(c, positive) {
			return false
		}
	}
	return true
}

func (r *rewriter) stringList(n int32) bool {
	d := r.doc
	if d.Kind(n) != jsondoc.Array {
		return false
	}
	for c := d.First(n); c != jsondoc.None; c = d.Next(c) {
		if d.Kind(c) != jsondoc.String {
			return false
		}
	}
	return true
}
