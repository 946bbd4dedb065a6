// Package claims reads a verified JWT payload by the paths of identity's
// jwt_claim sources (manual 3): the principal and the roles a request
// carries. The plugin and the CLI's policy test both read claims here.
//
// A path is written in gjson's path syntax, which operators' configurations
// use: keys joined by '.', '\' escaping the next character, '*' and '?'
// matching any run of characters and any one in a key, a number indexing an
// array, and '#' counting an array's elements or, followed by more path,
// applying the rest to each element. gjson's queries (#(…)), modifiers
// (@…), multipaths ([…], {…}), literals (!…) and pipes (|) are refused when
// the policy is loaded. What a path selects is what gjson selects, on every
// payload both read (FuzzAgainstGJSON); gjson itself is 600 KB of the
// plugin with what it links (docs/RATIONALE.md).
//
// The payload is read by jsondoc, strictly: a payload two JSON readers
// could read differently (duplicate keys, keys equal but for case, invalid
// UTF-8) has no claims.
package claims

import (
	"errors"
	"strconv"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/tidwall/match"
)

// Syntax is what Compile accepts, as a regular expression (RE2 and
// ECMA-262 alike) for the policy's JSON Schema: '#' alone, a key without
// escapes (wildcards allowed), or a key with escapes and no wildcards;
// none starting with what gjson reads as a modifier, literal or multipath.
const Syntax = `^` + component + `(?:\.` + component + `)*$`

const component = `(?:#|[^.\\|#@!\[{][^.\\|#]*|` + escapedKey + `)`

// escapedKey is a key with escapes and no wildcards: groups of escaped
// dots (D), then a plain character or another escape (A, C), then
// characters that may not open a key (B: @ ! [ {), which may therefore
// follow neither the key's start nor an escaped dot.
const escapedKey = `(?:(?:\\\.)*(?:[^.\\|#*?@!\[{]|\\[^.|])[@!\[{]*)+(?:\\\.)*|(?:\\\.)+`

// Path is a compiled claim path.
type Path struct {
	parts []part
}

// part is one component of a path.
type part struct {
	key   string // unescaped: compared with object keys
	glob  bool   // key has an unescaped '*' or '?' (and no escape)
	count bool   // the component is '#'
	index int64  // written as digits alone: the array index (-1 otherwise)
}

// Compile reads a claim path, refusing what is outside the subset above
// with the reason.
func Compile(s string) (Path, error) {
	if s == "" {
		return Path{}, errors.New("empty claim path")
	}
	var p Path
	for start := 0; start <= len(s); {
		var key []byte
		escaped, glob := false, false
		i := start
		for ; i < len(s) && s[i] != '.'; i++ {
			switch c := s[i]; c {
			case '\\':
				if i+1 == len(s) {
					return Path{}, errors.New("the path ends in an escape ('\\')")
				}
				i++
				if s[i] == '|' {
					// gjson reads a pipe in an array's path though escaped
					return Path{}, errors.New("gjson pipes (|) are not supported, escaped or not")
				}
				if s[i] == '.' && i+1 < len(s) && strings.IndexByte("@![{", s[i+1]) >= 0 {
					// and after an escaped dot, what a dot would start
					return Path{}, errors.New("an escaped dot cannot be followed by '@', '!', '[' or '{'")
				}
				escaped = true
				key = append(key, s[i])
				continue
			case '|':
				return Path{}, errors.New("gjson pipes (|) are not supported")
			case '*', '?':
				glob = true
			case '#':
				if i+1 < len(s) && (s[i+1] == '(' || s[i+1] == '[') {
					return Path{}, errors.New("gjson queries (#(…)) are not supported")
				}
				if i != start || i+1 < len(s) && s[i+1] != '.' {
					return Path{}, errors.New("'#' stands alone between dots (to mean the character, escape it: \\#)")
				}
			case '@':
				if i == start {
					return Path{}, errors.New("gjson modifiers (@…) are not supported (to mean the character, escape it: \\@)")
				}
			case '!':
				if i == start {
					return Path{}, errors.New("gjson literals (!…) are not supported (to mean the character, escape it: \\!)")
				}
			case '[', '{':
				if i == start {
					return Path{}, errors.New("gjson multipaths ([…], {…}) are not supported")
				}
			}
			key = append(key, s[i])
		}
		if i == start {
			return Path{}, errors.New("empty key between dots (write a literal dot as \\.)")
		}
		if escaped && glob {
			return Path{}, errors.New("a key cannot both escape characters and use wildcards")
		}
		raw := s[start:i]
		pt := part{key: string(key), glob: glob, count: raw == "#", index: -1}
		if n, ok := digits(raw); ok {
			pt.index = n
		}
		p.parts = append(p.parts, pt)
		start = i + 1
	}
	return p, nil
}

// digits reads an array index as gjson does: digits only, leading zeros
// allowed, an index too large for any array when it overflows.
func digits(s string) (int64, bool) {
	var n uint64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		if next := n*10 + uint64(s[i]-'0'); next >= n && next <= 1<<62 {
			n = next
		} else {
			n = 1 << 62
		}
	}
	return int64(n), true
}

// Payload is a parsed JWT payload.
type Payload struct {
	doc jsondoc.Doc
	ok  bool
}

// Parse reads a payload: a JSON object. A payload jsondoc refuses has no
// claims.
func Parse(js []byte) *Payload {
	p := new(Payload)
	p.Read(js)
	return p
}

// Read is Parse into p.
func (p *Payload) Read(js []byte) {
	p.ok = len(js) > 0 && jsondoc.ParseInto(&p.doc, js) == nil
}

// Release gives the payload's node array back to jsondoc for the body's
// parse (a request's claims are read before its body); the strings read
// from p stay valid.
func (p *Payload) Release() {
	if p.ok {
		p.doc.Release()
		p.ok = false
	}
}

// Principal is the claim as a principal id: a string's text, a number as
// gjson writes it (digits as written; other numbers in Go's shortest
// decimal form), an array's count; "" for anything else or nothing.
func (p *Payload) Principal(path Path) string {
	r := p.lookup(path)
	switch {
	case r.count >= 0:
		return strconv.Itoa(r.count)
	case r.items != nil:
		return ""
	}
	switch p.doc.Kind(r.node) {
	case jsondoc.String:
		s, _ := p.doc.Str(r.node)
		return s
	case jsondoc.Number:
		return numberText(string(p.doc.Raw(r.node)))
	}
	return ""
}

// Roles is the claim as roles: the non-empty strings of an array, or a
// string split as SplitRoles splits it; nil for anything else.
func (p *Payload) Roles(path Path) []string {
	r := p.lookup(path)
	var out []string
	switch {
	case r.count >= 0:
		return nil
	case r.items != nil:
		for _, it := range r.items {
			if s, ok := p.doc.Str(it.node); ok && s != "" { // a count's or items' node is None
				out = append(out, s)
			}
		}
		return out
	}
	switch p.doc.Kind(r.node) {
	case jsondoc.Array:
		for e := p.doc.First(r.node); e != jsondoc.None; e = p.doc.Next(e) {
			if s, ok := p.doc.Str(e); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	case jsondoc.String:
		s, _ := p.doc.Str(r.node)
		return SplitRoles(s)
	}
	return nil
}

// SplitRoles splits a comma- or space-separated role string (a claim, a
// header or a property).
func SplitRoles(s string) []string {
	if s == "" {
		return nil // most requests name no role: FieldsFunc's span array not zeroed
	}
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}

// numberText is gjson's text of a number: as written when it is an
// integer's digits, else the float it reads as, shortest form.
func numberText(raw string) string {
	i := 0
	if i < len(raw) && raw[0] == '-' {
		i++
	}
	for ; i < len(raw); i++ {
		if raw[i] < '0' || raw[i] > '9' {
			f, _ := strconv.ParseFloat(raw, 64)
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
	}
	return raw
}

// result is what a path selects: a node, an array's count (count ≥ 0), or
// the results of '#.' over an array's elements (items non-nil); node is
// jsondoc.None when nothing is selected.
type result struct {
	node  int32
	count int
	items []result
}

var none = result{node: jsondoc.None, count: -1}

func (p *Payload) lookup(path Path) result {
	if !p.ok || p.doc.Kind(jsondoc.Root) != jsondoc.Object && p.doc.Kind(jsondoc.Root) != jsondoc.Array {
		return none
	}
	return p.walk(jsondoc.Root, path.parts)
}

// walk selects parts from container n, as gjson does: in an object the
// first key that matches and holds the rest; in an array the element at
// the index, or with '#' the count or the rest of each element.
func (p *Payload) walk(n int32, parts []part) result {
	d, pt, rest := &p.doc, parts[0], parts[1:]
	switch d.Kind(n) {
	case jsondoc.Object:
		for m := d.First(n); m != jsondoc.None; m = d.Next(m) {
			if k := d.Key(m); k != pt.key && !(pt.glob && globMatch(k, pt.key)) {
				continue
			}
			if len(rest) == 0 {
				return result{node: m, count: -1}
			}
			if r := p.walk(m, rest); r.found() {
				return r
			}
		}
	case jsondoc.Array:
		if pt.count {
			if len(rest) == 0 {
				return result{node: jsondoc.None, count: d.Len(n)}
			}
			items := []result{}
			for e := d.First(n); e != jsondoc.None; e = d.Next(e) {
				if r := p.walk(e, rest); r.found() {
					items = append(items, r)
				}
			}
			return result{node: jsondoc.None, count: -1, items: items}
		}
		if pt.index < 0 {
			break
		}
		i := int64(0)
		for e := d.First(n); e != jsondoc.None; e = d.Next(e) {
			if i == pt.index {
				if len(rest) == 0 {
					return result{node: e, count: -1}
				}
				return p.walk(e, rest)
			}
			i++
		}
	}
	return none
}

// globMatch is gjson's wildcard match, with its bound on the work one
// key may cost.
func globMatch(key, pattern string) bool {
	ok, _ := match.MatchLimit(key, pattern, 10000)
	return ok
}

func (r result) found() bool { return r.node != jsondoc.None || r.count >= 0 || r.items != nil }
