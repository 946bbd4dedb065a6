// Package fieldpath compiles and follows projection paths (manual 11.7;
// docs/PATHS.md): the `include`/`exclude` of the project transform and the
// `fields`/`exclude_fields` of every transform. A path is followed two
// ways: over a document (Walk, Nodes), and over the abstract locations an
// output schema describes (Step and the state functions), which
// transforms/outputschema uses to know where a path may or must reach.
package fieldpath

import (
	"errors"
	"strconv"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

// Path is a compiled projection path (manual 11.7; docs/PATHS.md): dotted
// segments, `*` for any one key or index, `**` for any depth (zero or more
// levels), a number for an array index, arrays transparent to names, and
// `\.` `\*` `\\` as escapes.
type Path struct {
	text string
	segs []segment
}

type segment struct {
	name  string
	index int  // >= 0 when the segment is a number
	star  bool // *
	deep  bool // **
}

// Compile parses a projection path.
func Compile(p string) (Path, error) {
	if p == "" {
		return Path{}, errors.New("empty path")
	}
	var segs []segment
	var b strings.Builder
	escaped := false // the current segment had an escape: never a wildcard
	flush := func() error {
		s := b.String()
		if s == "" && !escaped {
			return errors.New("empty segment")
		}
		seg := segment{name: s, index: -1}
		if !escaped {
			switch s {
			case "*":
				seg.star = true
			case "**":
				seg.deep = true
			default:
				if n, err := strconv.Atoi(s); err == nil && n >= 0 && s == strconv.Itoa(n) {
					seg.index = n
				}
			}
		}
		segs = append(segs, seg)
		b.Reset()
		escaped = false
		return nil
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '\\':
			if i+1 >= len(p) || (p[i+1] != '.' && p[i+1] != '*' && p[i+1] != '\\') {
				return Path{}, errors.New(`"\" escapes only ".", "*" and "\"`)
			}
			b.WriteByte(p[i+1])
			escaped = true
			i++
		case '.':
			if err := flush(); err != nil {
				return Path{}, err
			}
		default:
			b.WriteByte(c)
		}
	}
	if err := flush(); err != nil {
		return Path{}, err
	}
	return Path{text: p, segs: segs}, nil
}

func (p Path) String() string { return p.text }

// Walk calls fn once for every node of doc under root that the path
// reaches.
func (p Path) Walk(doc *jsondoc.Doc, root int32, fn func(n int32)) {
	seen := map[int32]bool{}
	var match func(n int32, segs []segment)
	match = func(n int32, segs []segment) {
		if len(segs) == 0 {
			if !seen[n] {
				seen[n] = true
				fn(n)
			}
			return
		}
		seg, rest := segs[0], segs[1:]
		kind := doc.Kind(n)
		switch {
		case seg.deep:
			match(n, rest)
			for c := doc.First(n); c != jsondoc.None; c = doc.Next(c) {
				match(c, segs)
			}
		case seg.star:
			for c := doc.First(n); c != jsondoc.None; c = doc.Next(c) {
				match(c, rest)
			}
		case kind == jsondoc.Array && seg.index >= 0:
			i := 0
			for c := doc.First(n); c != jsondoc.None; c = doc.Next(c) {
				if i == seg.index {
					match(c, rest)
					break
				}
				i++
			}
		case kind == jsondoc.Array:
			// Arrays are transparent: users.email reaches every user's email.
			for c := doc.First(n); c != jsondoc.None; c = doc.Next(c) {
				match(c, segs)
			}
		case kind == jsondoc.Object:
			if c := doc.Get(n, seg.name); c != jsondoc.None {
				match(c, rest)
			}
		}
	}
	match(root, p.segs)
}

// Paths is a list of compiled paths.
type Paths []Path

// CompileAll compiles every path, stopping at the first error.
func CompileAll(ps []string) (Paths, error) {
	out := make(Paths, 0, len(ps))
	for _, p := range ps {
		c, err := Compile(p)
		if err != nil {
			return nil, errors.New(strconv.Quote(p) + ": " + err.Error())
		}
		out = append(out, c)
	}
	return out, nil
}

// Nodes returns the set of nodes any of the paths reaches.
func (ps Paths) Nodes(doc *jsondoc.Doc, root int32) map[int32]bool {
	out := map[int32]bool{}
	for _, p := range ps {
		p.Walk(doc, root, func(n int32) { out[n] = true })
	}
	return out
}

// Abstract locations. An output schema describes documents without being
// one: `properties.email` is a member named email, but `items` is every
// element of an array and `additionalProperties` every member whose name
// the schema does not know. outputschema.Rewrite asks, for such a location,
// whether a path may reach it (in some document of that shape) and whether
// it must (in every one). The answer is kept as two sets of positions in
// the path's segments (bit sets of StateWords words): position k means
// "segments k onwards are still to match here"; position len(segs) means
// the path reached this location or one of its ancestors, and stays set
// below it (paths select subtrees).

// StepKind is how precisely a location step is known.
type StepKind uint8

const (
	KeyStep      StepKind = iota // the object member named Key
	AnyKeyStep                   // an object member, name unknown
	IndexStep                    // the array element at Index
	AnyIndexStep                 // an array element, index unknown
)

// Step is one level of an abstract location.
type Step struct {
	Kind  StepKind
	Key   string
	Index int
}

// StateWords is how many words a position set of p takes.
func (p Path) StateWords() int { return (len(p.segs) + 1 + 63) / 64 }

func bitHas(set []uint64, k int) bool { return set[k/64]&(1<<(k%64)) != 0 }
func bitSet(set []uint64, k int)      { set[k/64] |= 1 << (k % 64) }

// Reached reports whether set holds the final position: p reached this
// location or one of its ancestors.
func (p Path) Reached(set []uint64) bool { return bitHas(set, len(p.segs)) }

// AnyPosition reports whether set holds a position: the path may still
// reach this location or something below it.
func AnyPosition(set []uint64) bool {
	for _, w := range set {
		if w != 0 {
			return true
		}
	}
	return false
}

// AllStates adds every position of p to set: the path may be anywhere.
func (p Path) AllStates(set []uint64) {
	for k := 0; k <= len(p.segs); k++ {
		bitSet(set, k)
	}
}

// StartStates adds the positions p stands at on the document itself.
func (p Path) StartStates(set []uint64) {
	bitSet(set, 0)
	p.closeStates(set)
}

// closeStates adds, for every position at a `**`, the position after it:
// `**` matches zero levels too. Positions grow, so runs of `**` close in
// one pass.
func (p Path) closeStates(set []uint64) {
	for k, s := range p.segs {
		if s.deep && bitHas(set, k) {
			bitSet(set, k+1)
		}
	}
}

// AdvanceStates adds to nmay and nmust the positions p stands at on the
// child that step leads to, from may and must at its container. It mirrors
// Walk: `**` stays, `*` takes any child, a name takes the member so named
// and passes through array elements, a number takes that element of an
// array (and the member spelled so of an object). A step whose key or
// index is unknown may match a name or number, but need not: those moves
// go to nmay only.
func (p Path) AdvanceStates(may, must, nmay, nmust []uint64, st Step) {
	end := len(p.segs)
	for k := 0; k <= end; k++ {
		inMay, inMust := bitHas(may, k), bitHas(must, k)
		if !inMay && !inMust {
			continue
		}
		to, certain := p.move(k, st)
		if to < 0 {
			continue
		}
		if inMay {
			bitSet(nmay, to)
		}
		if inMust && certain {
			bitSet(nmust, to)
		}
	}
	p.closeStates(nmay)
	p.closeStates(nmust)
}

// move is where position k goes on step st (-1: nowhere), and whether it
// goes there whatever the unknown key or index turns out to be.
func (p Path) move(k int, st Step) (int, bool) {
	if k == len(p.segs) {
		return k, true // reached: everything below is inside
	}
	seg := p.segs[k]
	switch {
	case seg.deep:
		return k, true
	case seg.star:
		return k + 1, true
	}
	switch st.Kind {
	case KeyStep:
		if seg.name == st.Key {
			return k + 1, true
		}
	case AnyKeyStep:
		return k + 1, false
	case IndexStep:
		if seg.index < 0 {
			return k, true // arrays are transparent to names
		}
		if seg.index == st.Index {
			return k + 1, true
		}
	case AnyIndexStep:
		if seg.index < 0 {
			return k, true
		}
		return k + 1, false
	}
	return -1, false
}
