package outputschema

import (
	"sort"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/transforms/fieldpath"
)

// The walk itself: each subschema visited with its path states, the
// keywords that constrain a string made looser or dropped, and the edits
// written back in finish.

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

	rwAt, rwUnder, rwNum := r.rewriting(st)
	projUnder := r.projectUnder(st)
	// What the value here can be (its type: every valid value has it)
	// bounds what can change. Booleans and null are never rewritten, a
	// number only by a step that reads numbers (what it finds makes the
	// number a string), and project takes nothing out of a scalar. With
	// no type, or a type list naming string, the value may be a string.
	str, scalar := r.mayBeString(s), r.scalarOnly(s)
	rwAt = rwAt && str
	rwNum = rwNum && r.mayBeNumber(s)
	rwUnder = rwUnder && (str || !scalar)
	projUnder = projUnder && !scalar
	if !rwUnder && !projUnder && !rwNum {
		return // nothing here or below can change
	}

	// The value here is a string the rewriting may change, or a number it
	// may make a string: the keywords that constrain only strings go
	// (without a type they constrain nothing else, so that costs
	// nothing), and a type that names no string admits one.
	if rwAt || rwNum {
		for _, k := range stringConstraintKeywords {
			r.drop(s, k)
		}
	}
	if rwNum && !str {
		r.admitString(s)
	}
	// enum and const name whole values: they go when a string in them may
	// be rewritten (a number, by a step that reads numbers), or when
	// project may take something out of an object or array in them.
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
			if rwUnder && r.hasString(c) || rwNum && r.hasNumber(c) || projUnder && (d.Kind(c) == jsondoc.Object || d.Kind(c) == jsondoc.Array) {
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
		// two card numbers, one placeholder; two objects, once project has
		// taken what told them apart.
		strs, nums, containers := r.elementKinds(s)
		if _, under, num := r.rewriting(elem); under && strs || num && nums || containers && r.projectUnder(elem) {
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
func (r *rewriter) elementKinds(s int32) (strs, nums, containers bool) {
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
			return true, true, true
		}
	case jsondoc.Invalid:
		return true, true, true // elements past prefixItems, if any, are anything
	default:
		elems = append(elems, items)
	}
	for _, e := range elems {
		if d.Kind(e) == jsondoc.True {
			return true, true, true
		}
		if d.Kind(e) != jsondoc.Object {
			continue // false: no element here
		}
		c := !r.scalarOnly(e)
		strs = strs || c || r.mayBeString(e)
		nums = nums || r.mayBeNumber(e)
		containers = containers || c
	}
	return strs, nums, containers
}

// mayBeNumber reports whether a value valid under schema s may be a
// number: its type names number or integer, or it has no type.
func (r *rewriter) mayBeNumber(s int32) bool {
	d := r.doc
	t := d.Get(s, "type")
	switch d.Kind(t) {
	case jsondoc.String:
		return d.StrEquals(t, "number") || d.StrEquals(t, "integer")
	case jsondoc.Array:
		for c := d.First(t); c != jsondoc.None; c = d.Next(c) {
			if d.StrEquals(c, "number") || d.StrEquals(c, "integer") {
				return true
			}
		}
		return false
	}
	return true
}

// admitString makes the type of schema s, which names no string, admit
// one too: "integer" becomes ["integer","string"], a list gets "string"
// appended. The member is deleted and appended again (Rewrite edits by
// Delete and Append only).
func (r *rewriter) admitString(s int32) {
	d := r.doc
	t := d.Get(s, "type")
	var list []byte
	switch d.Kind(t) {
	case jsondoc.String:
		list = append(append(append([]byte{'['}, d.Raw(t)...), ","...), `"string"]`...)
	case jsondoc.Array:
		list = []byte{'['}
		for c := d.First(t); c != jsondoc.None; c = d.Next(c) {
			list = append(append(list, d.Raw(c)...), ',')
		}
		list = append(list, `"string"]`...)
	default:
		return
	}
	r.del(s, t)
	d.Append(s, "type", list)
}

func (r *rewriter) hasNumber(n int32) bool {
	d := r.doc
	switch d.Kind(n) {
	case jsondoc.Number:
		return true
	case jsondoc.Object, jsondoc.Array:
		for c := d.First(n); c != jsondoc.None; c = d.Next(c) {
			if r.hasNumber(c) {
				return true
			}
		}
	}
	return false
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
