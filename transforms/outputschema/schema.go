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
//   - a member project may remove leaves `required` (and
//     dependentRequired); one it must remove also leaves `properties`.
//
// Everything else follows from these rules; each case is commented where
// it is handled, and docs/PATHS.md has the summary.
package outputschema

import (
	"encoding/binary"
	"sort"
	"strconv"
	"strings"

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
// selects the subtree it reaches.
type FieldScope struct{ Fields, Exclude fieldpath.Paths }

// Rewrite edits the JSON Schema at node schema of doc in place
// and reports whether it changed anything. A schema that is not an object,
// or that is malformed in a keyword this function reads (properties that
// is not an object, a subschema that is neither an object nor a boolean,
// required that is not a list of strings, ...), is left as is. Only
// Delete and Append are used, so what is not edited stays byte-identical.
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

type scopeSlots struct{ fields, exclude []pathSlot }

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

// resolveRefs resolves every $ref that is a JSON pointer into this schema
// ("#", "#/$defs/x", "#/definitions/x", or any other pointer to a
// subschema), relative to the closest enclosing resource (a schema with a
// non-fragment $id, else the outputSchema itself). Anything else (another
// document, an anchor, a pointer with percent-escapes or to something that
// is not a subschema) stays unresolved; see visit for what that costs.
func (r *rewriter) resolveRefs() {
	d := r.doc
	r.refTarget = map[int32]int32{}
	r.targets = map[int32]bool{}
	for _, m := range r.refs {
		if d.Key(m) != "$ref" {
			continue
		}
		v, _ := d.Str(m)
		t := r.resolve(d.Parent(m), v)
		r.refTarget[m] = t
		if t != jsondoc.None {
			r.targets[t] = true
		}
	}
}

func (r *rewriter) resolve(holder int32, ref string) int32 {
	d := r.doc
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok || strings.Contains(ptr, "%") {
		return jsondoc.None
	}
	n := r.resource(holder)
	if ptr != "" {
		if ptr[0] != '/' {
			return jsondoc.None // a plain-name fragment: an anchor
		}
		for _, tok := range strings.Split(ptr[1:], "/") {
			tok, ok = unescapeJSONPointer(tok)
			if !ok {
				return jsondoc.None
			}
			switch d.Kind(n) {
			case jsondoc.Object:
				n = d.Get(n, tok)
			case jsondoc.Array:
				n = r.nth(n, tok)
			default:
				n = jsondoc.None
			}
			if n == jsondoc.None {
				return jsondoc.None
			}
		}
	}
	if !r.isSchema[n] {
		return jsondoc.None
	}
	return n
}

// resource is the schema a "#..." reference in holder is relative to.
func (r *rewriter) resource(holder int32) int32 {
	d := r.doc
	for n := holder; n != jsondoc.None && n != r.root; n = d.Parent(n) {
		if r.isSchema[n] {
			if id, ok := d.Str(d.Get(n, "$id")); ok && id != "" && id[0] != '#' {
				return n
			}
		}
	}
	return r.root
}

func unescapeJSONPointer(tok string) (string, bool) {
	if !strings.Contains(tok, "~") {
		return tok, true
	}
	var b strings.Builder
	for i := 0; i < len(tok); i++ {
		if tok[i] != '~' {
			b.WriteByte(tok[i])
			continue
		}
		if i+1 >= len(tok) || (tok[i+1] != '0' && tok[i+1] != '1') {
			return "", false
		}
		b.WriteByte("~/"[tok[i+1]-'0'])
		i++
	}
	return b.String(), true
}

func (r *rewriter) nth(arr int32, tok string) int32 {
	d := r.doc
	i, err := strconv.Atoi(tok)
	if err != nil || i < 0 || tok != strconv.Itoa(i) {
		return jsondoc.None
	}
	for c := d.First(arr); c != jsondoc.None; c = d.Next(c) {
		if i == 0 {
			return c
		}
		i--
	}
	return jsondoc.None
}

// shared reports whether n lies in a $ref target: it then describes every
// place that refers to it, and an edit there must suit all of them.
func (r *rewriter) shared(n int32) bool {
	for ; n != jsondoc.None; n = r.doc.Parent(n) {
		if r.targets[n] {
			return true
		}
		if n == r.root {
			return false
		}
	}
	return false
}

func (r *rewriter) compile(eff Effects) {
	add := func(ps fieldpath.Paths) []pathSlot {
		var out []pathSlot
		for _, p := range ps {
			s := pathSlot{p: p, off: r.width, words: p.StateWords()}
			r.width += 2 * s.words
			r.all = append(r.all, s)
			out = append(out, s)
		}
		return out
	}
	r.include = add(eff.Include)
	r.exclude = add(eff.Exclude)
	for _, sc := range eff.Rewrites {
		r.rewrites = append(r.rewrites, scopeSlots{fields: add(sc.Fields), exclude: add(sc.Exclude)})
	}
	// The top state: every position possible, none certain.
	r.top = make([]uint64, r.width)
	for _, s := range r.all {
		s.p.AllStates(s.may(r.top))
	}
}

// start is the state at the document itself.
func (r *rewriter) start() []uint64 {
	st := make([]uint64, r.width)
	for _, s := range r.all {
		s.p.StartStates(s.may(st))
		s.p.StartStates(s.must(st))
	}
	return st
}

// step is the state at the child of a location that ls leads to.
func (r *rewriter) step(st []uint64, ls fieldpath.Step) []uint64 {
	if r.visits >= r.budget {
		return r.top
	}
	out := make([]uint64, r.width)
	for _, s := range r.all {
		s.p.AdvanceStates(s.may(st), s.must(st), s.may(out), s.must(out), ls)
	}
	return out
}

// rewriting reports whether a rewriting step may act on a string at this
// location (at), and whether one may act at it or anywhere below (under).
func (r *rewriter) rewriting(st []uint64) (at, under bool) {
	for _, sc := range r.rewrites {
		excluded := false
		for _, s := range sc.exclude {
			// must: a path that reaches only some documents' nodes here
			// (users.0.email, under items) does not protect them all.
			excluded = excluded || s.reachedMust(st)
		}
		if excluded {
			continue
		}
		if len(sc.fields) == 0 {
			return true, true
		}
		for _, s := range sc.fields {
			at = at || s.reachedMay(st)
			under = under || s.alive(st)
		}
	}
	return at, under
}

// removed reports whether project may remove the node at this location,
// and whether it must. The include side mirrors prune: a node stays when
// an include path reaches it or an ancestor, or when it holds something
// reached; so it may go unless an include path must reach it (a container
// on the way goes when nothing below is reached in that document), and it
// must go when no include path is alive here, or when only paths below it
// are alive and scalar says it cannot hold anything.
func (r *rewriter) removed(st []uint64, scalar bool) (may, must bool) {
	for _, s := range r.exclude {
		may = may || s.reachedMay(st)
		must = must || s.reachedMust(st)
	}
	if len(r.include) > 0 {
		covered, reachable, alive := false, false, false
		for _, s := range r.include {
			covered = covered || s.reachedMust(st)
			reachable = reachable || s.reachedMay(st)
			alive = alive || s.alive(st)
		}
		may = may || !covered
		must = must || !alive || (scalar && !reachable)
	}
	return may, must
}

// projectUnder reports whether project may remove something below this
// location.
func (r *rewriter) projectUnder(st []uint64) bool {
	for _, s := range r.exclude {
		if s.alive(st) {
			return true
		}
	}
	if len(r.include) > 0 {
		for _, s := range r.include {
			if s.reachedMust(st) {
				return false
			}
		}
		return true
	}
	return false
}

func (r *rewriter) memoKey(n int32, st []uint64) string {
	r.key = binary.LittleEndian.AppendUint32(r.key[:0], uint32(n))
	for _, w := range st {
		r.key = binary.LittleEndian.AppendUint64(r.key, w)
	}
	return string(r.key)
}

// del deletes member m of schema owner.
func (r *rewriter) del(owner, m int32) {
	r.doc.Delete(m)
	r.noteEdit(owner)
}

func (r *rewriter) noteEdit(owner int32) {
	r.changed = true
	if r.shared(owner) {
		r.editedShared = true
	}
}

// drop deletes keyword key of schema s, if present.
func (r *rewriter) drop(s int32, key string) bool {
	m := r.doc.Get(s, key)
	if m == jsondoc.None {
		return false
	}
	r.del(s, m)
	return true
}

// stringConstraintKeywords constrain only strings. They go where a
// rewriting step may act: placeholders, pseudonyms, masks, hashes and
// truncation markers fit no format or pattern, and change lengths either
// way.
var stringConstraintKeywords = [...]string{"format", "pattern", "minLength", "maxLength"}

// visit edits schema s, which describes the location whose path positions
// are st.
func (r *rewriter) visit(s int32, st []uint64) {
	d := r.doc
	if d.Kind(s) != jsondoc.Object {
		return // true and false accept or reject whatever we do
	}
	if r.visits >= r.budget {
		st = r.top
	}
	key := r.memoKey(s, st)
	if r.seen[key] {
		return
	}
	r.seen[key] = true
	r.visits++

	rwAt, rwUnder := r.rewriting(st)
	projUnder := r.projectUnder(st)
	// What the value here can be (its type: every valid value has it)
	// bounds what can change. Numbers, booleans and null are never
	// rewritten, and project takes nothing out of a scalar. With no type,
	// or a type list naming string, the value may be a string.
	str, scalar := r.mayBeString(s), r.scalarOnly(s)
	rwAt = rwAt && str
	rwUnder = rwUnder && (str || !scalar)
	projUnder = projUnder && !scalar
	if !rwUnder && !projUnder {
		return // nothing here or below can change
	}

	// The value here is a string the rewriting may change: the keywords
	// that constrain only strings go (without a type they constrain
	// nothing else, so that costs nothing).
	if rwAt {
		for _, k := range stringConstraintKeywords {
			r.drop(s, k)
		}
	}
	// enum and const name whole values: they go when a string in them may
	// be rewritten, or when project may take something out of an object or
	// array in them. An enum of numbers stays.
	for _, k := range [...]string{"enum", "const"} {
		v := d.Get(s, k)
		if v == jsondoc.None {
			continue
		}
		values := []int32{v}
		if k == "enum" {
			values = values[:0]
			for c := d.First(v); c != jsondoc.None; c = d.Next(c) {
				values = append(values, c)
			}
		}
		for _, c := range values {
			if rwUnder && r.hasString(c) || projUnder && (d.Kind(c) == jsondoc.Object || d.Kind(c) == jsondoc.Array) {
				r.del(s, v)
				break
			}
		}
	}
	// not and if hold a schema the value must fail, or whose outcome picks
	// then or else. Loosening them would tighten the schema and we cannot
	// tell how a changed value fares, so where anything may change they go
	// (and if takes then and else along). visit never enters them.
	r.drop(s, "not")
	if d.Get(s, "if") != jsondoc.None {
		r.drop(s, "if")
		r.drop(s, "then")
		r.drop(s, "else")
		r.dropUnevaluated = true // their annotations are gone
	}

	r.objectKeywords(s, st)
	r.arrayKeywords(s, st)

	// Same location.
	for _, k := range [...]string{"allOf", "anyOf", "oneOf"} {
		for c := d.First(d.Get(s, k)); c != jsondoc.None; c = d.Next(c) {
			r.visit(c, st)
		}
	}
	if d.Get(s, "oneOf") != jsondoc.None {
		// Loosened branches (and changed values) may match more than one
		// branch, which oneOf rejects: it becomes anyOf (in finish, once
		// the branches are edited).
		r.convert[s] = true
		r.noteEdit(s)
	}
	for c := d.First(d.Get(s, "dependentSchemas")); c != jsondoc.None; c = d.Next(c) {
		r.visit(c, st)
	}
	for c := d.First(d.Get(s, "dependencies")); c != jsondoc.None; c = d.Next(c) {
		if d.Kind(c) != jsondoc.Array {
			r.visit(c, st)
		}
	}
	if m := d.Get(s, "$ref"); m != jsondoc.None {
		if t, ok := r.refTarget[m]; ok && t != jsondoc.None {
			// The target is edited for this location too, and so for
			// every other place that refers to it: an over-approximation
			// that only loosens.
			r.visit(t, st)
		} else {
			// We cannot see what an unresolved reference constrains, so
			// we cannot loosen it: it goes.
			r.del(s, m)
			r.dropUnevaluated = true
		}
	}
	for _, k := range [...]string{"$dynamicRef", "$recursiveRef"} {
		if r.drop(s, k) {
			r.dropUnevaluated = true
		}
	}
}

func (r *rewriter) objectKeywords(s int32, st []uint64) {
	d := r.doc
	mayGo := func(name string) bool {
		may, _ := r.removed(r.step(st, fieldpath.Step{Kind: fieldpath.KeyStep, Key: name}), false)
		return may
	}
	// required and dependentRequired: names project may remove. required
	// is checked by name, not through properties: it may sit in an allOf
	// branch beside them.
	if req := d.Get(s, "required"); req != jsondoc.None {
		gone := false
		for c := d.First(req); c != jsondoc.None; c = d.Next(c) {
			if name, _ := d.Str(c); mayGo(name) {
				r.del(s, c)
				gone = true
			}
		}
		if gone && d.First(req) == jsondoc.None {
			r.del(s, req) // [] is invalid before draft 6
		}
	}
	for _, k := range [...]string{"dependentRequired", "dependencies"} {
		for v := d.First(d.Get(s, k)); v != jsondoc.None; v = d.Next(v) {
			if d.Kind(v) != jsondoc.Array {
				continue
			}
			for c := d.First(v); c != jsondoc.None; c = d.Next(c) {
				if name, _ := d.Str(c); mayGo(name) {
					r.del(s, c) // an empty list is valid: it requires nothing
				}
			}
		}
	}
	anyKey := r.step(st, fieldpath.Step{Kind: fieldpath.AnyKeyStep})
	if d.Get(s, "minProperties") != jsondoc.None {
		if may, _ := r.removed(anyKey, false); may {
			r.drop(s, "minProperties")
		}
	}
	// properties: a member project must remove leaves; one it may remove
	// stays (keeping a declaration of an absent member is harmless, and
	// removing one that is present breaks additionalProperties: false).
	// In a $ref target "must" would have to hold for every place that
	// refers to it, so there members stay.
	shared := r.shared(s)
	for m := d.First(d.Get(s, "properties")); m != jsondoc.None; m = d.Next(m) {
		child := r.step(st, fieldpath.Step{Kind: fieldpath.KeyStep, Key: d.Key(m)})
		if _, must := r.removed(child, r.scalarOnly(m)); must && !shared {
			r.del(s, m)
			continue
		}
		r.visit(m, child)
	}
	for m := d.First(d.Get(s, "patternProperties")); m != jsondoc.None; m = d.Next(m) {
		r.visit(m, anyKey)
	}
	for _, k := range [...]string{"additionalProperties", "unevaluatedProperties"} {
		if m := d.Get(s, k); m != jsondoc.None {
			r.visit(m, anyKey)
		}
	}
	// propertyNames: project never renames, rewrites never touch keys.
}

func (r *rewriter) arrayKeywords(s int32, st []uint64) {
	d := r.doc
	elem := r.step(st, fieldpath.Step{Kind: fieldpath.AnyIndexStep})
	if may, _ := r.removed(elem, false); may {
		// Elements may go: counts from below fail, and the remaining
		// elements shift, so positional schemas would judge them against
		// another position's schema. All go; items would apply to every
		// element once prefixItems is gone, so it goes with them.
		r.drop(s, "minItems")
		r.drop(s, "minContains")
		if r.drop(s, "contains") {
			r.dropUnevaluated = true
		}
		if d.Get(s, "prefixItems") != jsondoc.None || d.Kind(d.Get(s, "items")) == jsondoc.Array {
			r.drop(s, "prefixItems")
			r.drop(s, "items")
			r.drop(s, "additionalItems")
			r.dropUnevaluated = true
		}
	}
	if d.Get(s, "uniqueItems") != jsondoc.None {
		// Different values may become equal: two emails, one placeholder;
		// two objects, once project has taken what told them apart.
		strs, containers := r.elementKinds(s)
		if _, under := r.rewriting(elem); under && strs || containers && r.projectUnder(elem) {
			r.drop(s, "uniqueItems")
		}
	}
	i := 0
	for c := d.First(d.Get(s, "prefixItems")); c != jsondoc.None; c = d.Next(c) {
		r.visit(c, r.step(st, fieldpath.Step{Kind: fieldpath.IndexStep, Index: i}))
		i++
	}
	if items := d.Get(s, "items"); d.Kind(items) == jsondoc.Array {
		i = 0
		for c := d.First(items); c != jsondoc.None; c = d.Next(c) {
			r.visit(c, r.step(st, fieldpath.Step{Kind: fieldpath.IndexStep, Index: i}))
			i++
		}
	} else if items != jsondoc.None {
		// After prefixItems, items covers only the later indices; any
		// index is the over-approximation.
		r.visit(items, elem)
	}
	for _, k := range [...]string{"additionalItems", "unevaluatedItems", "contains"} {
		if m := d.Get(s, k); m != jsondoc.None {
			r.visit(m, elem)
		}
	}
}

// elementKinds reports whether the elements of an array valid under s may
// hold strings (be or contain one), and whether they may be containers,
// judging by the type of every element schema s has.
func (r *rewriter) elementKinds(s int32) (strs, containers bool) {
	d := r.doc
	var elems []int32
	for c := d.First(d.Get(s, "prefixItems")); c != jsondoc.None; c = d.Next(c) {
		elems = append(elems, c)
	}
	items := d.Get(s, "items")
	switch d.Kind(items) {
	case jsondoc.Array:
		for c := d.First(items); c != jsondoc.None; c = d.Next(c) {
			elems = append(elems, c)
		}
		if more := d.Get(s, "additionalItems"); more != jsondoc.None {
			elems = append(elems, more)
		} else {
			return true, true
		}
	case jsondoc.Invalid:
		return true, true // elements past prefixItems, if any, are anything
	default:
		elems = append(elems, items)
	}
	for _, e := range elems {
		if d.Kind(e) == jsondoc.True {
			return true, true
		}
		if d.Kind(e) != jsondoc.Object {
			continue // false: no element here
		}
		c := !r.scalarOnly(e)
		strs = strs || c || r.mayBeString(e)
		containers = containers || c
	}
	return strs, containers
}

// mayBeString reports whether a value valid under schema s may be a
// string: its type names string, or it has no type (allOf branches and
// $ref targets often carry format without type, relying on a sibling).
func (r *rewriter) mayBeString(s int32) bool {
	d := r.doc
	t := d.Get(s, "type")
	switch d.Kind(t) {
	case jsondoc.String:
		return d.StrEquals(t, "string")
	case jsondoc.Array:
		for c := d.First(t); c != jsondoc.None; c = d.Next(c) {
			if d.StrEquals(c, "string") {
				return true
			}
		}
		return false
	}
	return true
}

// scalarOnly reports whether a value valid under schema s cannot be an
// object or array (so it holds nothing an include path could reach).
func (r *rewriter) scalarOnly(s int32) bool {
	d := r.doc
	if d.Kind(s) == jsondoc.False {
		return true
	}
	t := d.Get(s, "type")
	switch d.Kind(t) {
	case jsondoc.String:
		return !d.StrEquals(t, "object") && !d.StrEquals(t, "array")
	case jsondoc.Array:
		for c := d.First(t); c != jsondoc.None; c = d.Next(c) {
			if d.StrEquals(c, "object") || d.StrEquals(c, "array") {
				return false
			}
		}
		return true
	}
	return false
}

func (r *rewriter) hasString(n int32) bool {
	d := r.doc
	switch d.Kind(n) {
	case jsondoc.String:
		return true
	case jsondoc.Object, jsondoc.Array:
		for c := d.First(n); c != jsondoc.None; c = d.Next(c) {
			if r.hasString(c) {
				return true
			}
		}
	}
	return false
}

// finish makes the edits that depend on all others.
func (r *rewriter) finish() {
	d := r.doc
	unevaluatedDone, negativesDone := false, false
	for {
		progress := false
		// Removed applicators (if/then/else, positional items, contains,
		// unresolved references) no longer mark members or elements
		// evaluated, so unevaluatedProperties/Items would judge them
		// anew: they go, wherever loosening is safe.
		if r.dropUnevaluated && !unevaluatedDone {
			unevaluatedDone, progress = true, true
			for _, s := range r.schemas {
				if s.positive {
					r.drop(s.n, "unevaluatedProperties")
					r.drop(s.n, "unevaluatedItems")
				}
			}
		}
		// A $ref target loosened for one place is loosened for all, and
		// under not (or if) that tightens. So once a shared schema is
		// edited, every not and if that may see one goes: those holding a
		// reference or a target, or lying in a target.
		if r.editedShared && !negativesDone {
			negativesDone, progress = true, true
			near := map[int32]bool{}
			marks := append([]int32(nil), r.refs...)
			for t := range r.targets {
				marks = append(marks, t)
			}
			for _, m := range marks {
				for n := m; n != jsondoc.None && !near[n]; n = d.Parent(n) {
					near[n] = true
					if n == r.root {
						break
					}
				}
			}
			for _, m := range r.negatives {
				owner := d.Parent(m)
				if !near[m] && !r.shared(owner) {
					continue
				}
				if d.Key(m) == "not" {
					r.drop(owner, "not")
				} else if r.drop(owner, "if") {
					r.drop(owner, "then")
					r.drop(owner, "else")
					r.dropUnevaluated = true
				}
			}
		}
		if !progress {
			break
		}
	}
	// oneOf becomes anyOf, innermost first (children have larger node
	// indices), so each serialized list carries the edits inside it.
	var conv []int32
	for s := range r.convert {
		conv = append(conv, s)
	}
	sort.Slice(conv, func(i, j int) bool { return conv[i] > conv[j] })
	for _, s := range conv {
		one := d.Get(s, "oneOf")
		if one == jsondoc.None {
			continue
		}
		list := d.AppendValue(nil, one)
		r.del(s, one)
		switch all := d.Get(s, "allOf"); {
		case d.Get(s, "anyOf") == jsondoc.None:
			d.Append(s, "anyOf", list)
		case all != jsondoc.None:
			d.Append(all, "", r.wrapAnyOf(list, false))
		default:
			d.Append(s, "allOf", r.wrapAnyOf(list, true))
		}
	}
}

// wrapAnyOf returns {"anyOf":list}, or [{"anyOf":list}] when inList.
func (r *rewriter) wrapAnyOf(list []byte, inList bool) []byte {
	out := make([]byte, 0, len(list)+12)
	if inList {
		out = append(out, '[')
	}
	out = append(out, `{"anyOf":`...)
	out = append(out, list...)
	out = append(out, '}')
	if inList {
		out = append(out, ']')
	}
	return out
}
