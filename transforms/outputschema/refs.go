package outputschema

import (
	"strconv"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

// $ref resolution inside one outputSchema: JSON pointers to its own
// subschemas, relative to the closest enclosing resource.

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
