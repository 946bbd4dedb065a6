package transforms

import (
	"errors"
	"strconv"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

// Path is a compiled projection path (SPEC 11.7; docs/PATHS.md): dotted
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

// CompilePath parses a projection path.
func CompilePath(p string) (Path, error) {
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

// CompilePaths compiles every path, stopping at the first error.
func CompilePaths(ps []string) (Paths, error) {
	out := make(Paths, 0, len(ps))
	for _, p := range ps {
		c, err := CompilePath(p)
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
