// Package jsondoc parses JSON strictly into a flat, editable document and
// writes it back. It is the one parse of a message body that the decision,
// the transforms and the re-serialization share.
//
// Strict means: a body that two JSON parsers could read differently is an
// error. Duplicate keys, keys equal under Unicode case folding in one
// object, invalid UTF-8, lone UTF-16 surrogates in escapes, nesting deeper
// than MaxDepth and data after the value are all rejected, so what the
// plugin judges is what the server reads.
//
// The package knows nothing of MCP, HTTP or proxy-wasm.
package jsondoc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of arrays and objects accepted.
const MaxDepth = 64

// Kind is the JSON type of a node.
type Kind uint8

const (
	Invalid Kind = iota
	Null
	False
	True
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"invalid", "null", "false", "true", "number", "string", "array", "object"}

func (k Kind) String() string { return kindNames[k] }

// node flags
const (
	escaped     uint8 = 1 << iota // the string (value) has backslash escapes
	keyEscaped                    // the member key has backslash escapes
	deleted                       // removed from its parent
	replaced                      // value replaced (see Doc.edit)
	keyNonASCII                   // the member key has bytes >= 0x80
	dirty                         // the node or something inside it was edited
	keySet                        // an object whose keys are in parser.keySets
	renamed                       // the member key was replaced (see Doc.keys)
)

// node is one JSON value. Nodes are stored in document order, each
// container followed by its subtree, so a container's first child is the
// next node and a node's next sibling is the first node after its
// subtree: no links to write while parsing. Object members carry their
// key's span. Spans of strings include the quotes.
type node struct {
	kind  Kind
	flags uint8
	// edit is where the node's replacement is (Doc.edit), 1-based; 0
	// when it has none (or its is in Doc.moreEdits).
	edit             uint16
	start, end       int32
	keyStart, keyEnd int32 // member key span (quotes included), -1 if none
	after            int32 // the index just past the node's subtree
	parent           int32
}

// None is the index returned when there is no such node.
const None int32 = -1

// SyntaxError says what is wrong with a body and where.
type SyntaxError struct {
	Offset int
	Msg    string
	// Ambiguous marks bodies that some JSON parsers accept and read
	// differently (duplicate or case-folded keys, invalid UTF-8, lone
	// surrogates, excessive nesting, trailing data), as opposed to text
	// that is not JSON at all.
	Ambiguous bool
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s at offset %d", e.Msg, e.Offset) }

// Parse parses src strictly. The document keeps src; don't modify it.
func Parse(src []byte) (*Doc, error) {
	d := new(Doc)
	if err := ParseInto(d, src); err != nil {
		return nil, err
	}
	return d, nil
}

// ParseInto is Parse into a Doc the caller allocated (for instance as a
// field of a larger struct, saving an allocation per body: each costs
// about half a microsecond inside the VM). d is overwritten; on error it
// is left empty.
func ParseInto(d *Doc, src []byte) error {
	// Lists of small objects take about 16 bytes a node; bodies of long
	// strings need far fewer. Guessing that density keeps dense bodies from
	// growing (and copying) the array.
	p := parser{src: src, nodes: takeNodes(8 + len(src)/16)}
	if err := p.parse(); err != nil {
		*d = Doc{}
		putNodes(p.nodes)
		return err
	}
	if d.numEdits == 0 && d.extra == nil && d.keys == nil {
		// Nothing edited (a released or new Doc, the common case): the
		// rest is already zero. Two fields written, not the whole Doc,
		// which inside the VM is a bulk copy under the collector's write
		// barrier while it marks.
		d.src, d.nodes, d.changed, d.mark, d.markAt = src, p.nodes, false, 0, 0
		return nil
	}
	*d = Doc{src: src, nodes: p.nodes}
	return nil
}

// Release gives d's node array to a later parse: the caller is done with
// d and every node index of it. d reads as empty afterwards (and a node
// index of it is out of range). Strings read from d are not affected:
// they are copies, or views of src (StrView), which is not reused.
// Inside the VM a body's node array is its largest allocation (28 bytes a
// node, about 250 KB for a 500-tool list), zeroed when made and scanned
// for by the collector; a plugin handles one body at a time, so one array
// serves them all.
func (d *Doc) Release() {
	nodes := d.nodes
	if d.numEdits == 0 && d.extra == nil && d.keys == nil {
		// Nothing edited: the other fields are zero (see ParseInto).
		d.src, d.nodes, d.changed, d.mark, d.markAt = nil, nil, false, 0, 0
	} else {
		*d = Doc{}
	}
	putNodes(nodes)
}

// freeNodes holds released node arrays, at most maxFreeNodes nodes in
// all, so what it keeps is bounded whatever the bodies.
var freeNodes struct {
	sync.Mutex
	arrays [4][]node
	total  int
}

const maxFreeNodes = 1 << 16 // 1.8 MB

// takeNodes returns an empty node array of capacity at least want: a
// released one if one is large enough, else a new one.
func takeNodes(want int) []node {
	f := &freeNodes
	f.Lock()
	for i, a := range f.arrays {
		if cap(a) >= want {
			f.arrays[i] = nil
			f.total -= cap(a)
			f.Unlock()
			return a[:0]
		}
	}
	f.Unlock()
	return make([]node, 0, want)
}

func putNodes(a []node) {
	if cap(a) == 0 {
		return
	}
	f := &freeNodes
	f.Lock()
	defer f.Unlock()
	if f.total+cap(a) > maxFreeNodes {
		return
	}
	for i := range f.arrays {
		if f.arrays[i] == nil {
			f.arrays[i] = a
			f.total += cap(a)
			return
		}
	}
}

type parser struct {
	src   []byte
	pos   int
	nodes []node
	// keySets holds the folded keys of objects too big to check pairwise.
	keySets map[int32]map[string]int32
	// nonASCII is set by str when the string it scanned has a byte >= 0x80.
	nonASCII bool
}

func (p *parser) fail(msg string) error { return &SyntaxError{Offset: p.pos, Msg: msg} }

func (p *parser) ambiguous(msg string) error {
	return &SyntaxError{Offset: p.pos, Msg: msg, Ambiguous: true}
}

// parse is the whole grammar as one loop over an explicit stack of open
// containers rather than a function per value: inside the VM a Go call
// costs far more than a jump, and a body is mostly small values. For the
// same reason the node array is a local (p.nodes is set before the rare
// calls that read it, and at the end: on an error it does not matter),
// which containers are objects is a bit per depth, and the first words of
// a string are tested here, in line, before plainEnd is called for the
// rest.
func (p *parser) parse() error {
	src := p.src
	n := len(src)
	nodes := p.nodes
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	var (
		open [MaxDepth]int32 // open containers, innermost last
		// keyBits has a bit per key of each open object (see keyBit):
		// only a key whose bit is already set can repeat an earlier one.
		keyBits [MaxDepth]uint64
		// objects has bit d set when the container open at depth d is an
		// object.
		objects uint64
		depth   int
		parent  = None
		// the key of the member whose value comes next (-1: none)
		ks, ke int32 = -1, -1
		kf     uint8
		i      = spaceEnd(src, 0)
		j      int
		start  int
		kind   Kind
		flags  uint8
		m      *node
		err    error
	)
	if i >= n {
		return &SyntaxError{Offset: i, Msg: "empty body"}
	}

value: // i is on the first byte of a value
	if i >= n {
		p.pos = i
		return p.fail("unexpected end of body")
	}
	start = i
	flags = kf
	switch c := src[i]; {
	case c == '{' || c == '[':
		if depth >= MaxDepth {
			p.pos = i
			return p.ambiguous(fmt.Sprintf("nesting deeper than %d", MaxDepth))
		}
		kind = Array
		objects &^= 1 << depth
		if c == '{' {
			kind = Object
			objects |= 1 << depth
		}
		// Nodes are written in place: building one and appending it
		// would copy the struct, which inside the VM costs a call.
		if len(nodes) == cap(nodes) {
			nodes = slices.Grow(nodes, 1)
		}
		open[depth] = int32(len(nodes))
		nodes = nodes[:len(nodes)+1]
		m = &nodes[open[depth]]
		m.kind, m.flags, m.start, m.end, m.keyStart, m.keyEnd, m.after, m.parent = kind, flags, int32(start), 0, ks, ke, 0, parent
		parent, keyBits[depth] = open[depth], 0
		depth++
		ks, ke, kf = -1, -1, 0
		i = spaceEnd(src, i+1)
		if c == '[' {
			if i < n && src[i] == ']' {
				i++
				goto closed
			}
			goto value
		}
		if i < n && src[i] == '}' {
			i++
			goto closed
		}
		goto key
	case c == '"':
		for j = i + 1; ; j += 8 {
			if j+8 > n {
				j = plainEnd(src, j)
				break
			}
			w := binary.LittleEndian.Uint64(src[j:])
			if t := ((w - 0x20*ones) | ((w ^ '"'*ones) - ones) | ((w ^ '\\'*ones) - ones) | w) & highs; t != 0 {
				j += bits.TrailingZeros64(t) >> 3
				break
			}
		}
		if j < n && src[j] == '"' {
			i = j + 1
		} else {
			p.pos = start
			var esc bool
			if esc, err = p.str(j); err != nil {
				return err
			}
			if esc {
				flags |= escaped
			}
			i = p.pos
		}
		kind = String
	case c == '-' || (c >= '0' && c <= '9'):
		p.pos = i
		if err = p.number(); err != nil {
			return err
		}
		i, kind = p.pos, Number
	case c == 't':
		if n-i < 4 || src[i+1] != 'r' || src[i+2] != 'u' || src[i+3] != 'e' {
			p.pos = i
			return p.fail("invalid literal")
		}
		i, kind = i+4, True
	case c == 'f':
		if n-i < 5 || src[i+1] != 'a' || src[i+2] != 'l' || src[i+3] != 's' || src[i+4] != 'e' {
			p.pos = i
			return p.fail("invalid literal")
		}
		i, kind = i+5, False
	case c == 'n':
		if n-i < 4 || src[i+1] != 'u' || src[i+2] != 'l' || src[i+3] != 'l' {
			p.pos = i
			return p.fail("invalid literal")
		}
		i, kind = i+4, Null
	default:
		p.pos = i
		return p.fail(fmt.Sprintf("unexpected character %q", rune(c)))
	}
	if len(nodes) == cap(nodes) {
		nodes = slices.Grow(nodes, 1)
	}
	nodes = nodes[:len(nodes)+1]
	m = &nodes[len(nodes)-1]
	m.kind, m.flags, m.start, m.end, m.keyStart, m.keyEnd, m.after, m.parent = kind, flags, int32(start), int32(i), ks, ke, int32(len(nodes)), parent
	ks, ke, kf = -1, -1, 0

next: // after a value: a separator, the end of its container, or the end
	if depth == 0 {
		if i = spaceEnd(src, i); i != n {
			p.pos = i
			return p.ambiguous("data after the JSON value")
		}
		p.nodes = nodes
		return nil
	}
	i = spaceEnd(src, i)
	if i < n {
		switch c := src[i]; {
		case c == ',':
			i = spaceEnd(src, i+1)
			if objects&(1<<(depth-1)) != 0 {
				goto key
			}
			goto value
		case c == '}' && objects&(1<<(depth-1)) != 0, c == ']' && objects&(1<<(depth-1)) == 0:
			i++
			goto closed
		}
	}
	p.pos = i
	if objects&(1<<(depth-1)) != 0 {
		if i >= n {
			return p.fail("unexpected end of body in an object")
		}
		return p.fail("want ',' or '}' in an object")
	}
	if i >= n {
		return p.fail("unexpected end of body in an array")
	}
	return p.fail("want ',' or ']' in an array")

closed: // i is just past the bracket closing the innermost container
	depth--
	m = &nodes[open[depth]]
	m.end, m.after = int32(i), int32(len(nodes))
	parent = m.parent
	goto next

key: // i is where a member's key must start
	if i >= n || src[i] != '"' {
		p.pos = i
		return p.fail("want a string key")
	}
	ks, kf = int32(i), 0
	// The same word-at-a-time scan as for string values above, written out
	// again: in the VM a call per string is a measurable share of a parse.
	for j = i + 1; ; j += 8 {
		if j+8 > n {
			j = plainEnd(src, j)
			break
		}
		w := binary.LittleEndian.Uint64(src[j:])
		if t := ((w - 0x20*ones) | ((w ^ '"'*ones) - ones) | ((w ^ '\\'*ones) - ones) | w) & highs; t != 0 {
			j += bits.TrailingZeros64(t) >> 3
			break
		}
	}
	if j < n && src[j] == '"' {
		i = j + 1
	} else {
		p.pos = int(ks)
		var esc bool
		if esc, err = p.str(j); err != nil {
			return err
		}
		if esc {
			kf = keyEscaped
		}
		if p.nonASCII {
			kf |= keyNonASCII
		}
		i = p.pos
	}
	ke = int32(i)
	if kf != 0 {
		// Escaped and non-ASCII keys are compared with every earlier key,
		// and make every later key compare too: decoded or folded, they
		// can equal a key of another length (U+212A folds to "k").
		if int(parent)+1 < len(nodes) {
			p.nodes = nodes
			if err = p.checkKey(parent, ks, ke, kf); err != nil {
				return err
			}
		}
		keyBits[depth-1] = ^uint64(0)
	} else if bit := uint64(1) << keyBit(src[ks+1:ke-1]); keyBits[depth-1]&bit == 0 {
		keyBits[depth-1] |= bit
	} else {
		p.nodes = nodes
		if err = p.checkKey(parent, ks, ke, kf); err != nil {
			return err
		}
		if nodes[parent].flags&keySet != 0 {
			keyBits[depth-1] = ^uint64(0) // every key goes into the set
		}
	}
	if i = spaceEnd(src, i); i >= n || src[i] != ':' {
		p.pos = i
		return p.fail("want ':' after a key")
	}
	i = spaceEnd(src, i+1)
	goto value
}

// keyBit is a plain ASCII key's bit in keyBits: keys equal under ASCII
// case folding have equal lengths and equal first and last bytes up to
// case, so they get the same bit. The weights give distinct bits to the
// members of MCP's usual objects (TestKeyBitsOfMCPObjects: id and params
// shared one, so every request's keys were compared pairwise).
func keyBit(key []byte) uint {
	if len(key) == 0 {
		return 0
	}
	return uint(len(key)+int(key[0]|0x20)+int(key[len(key)-1]|0x20)*7) & 63
}

// spaceEnd returns the index of the first byte at or after i that is not
// JSON white space.
func spaceEnd(src []byte, i int) int {
	for i < len(src) && src[i] <= ' ' && (src[i] == ' ' || src[i] == '\n' || src[i] == '\r' || src[i] == '\t') {
		i++
	}
	return i
}

// plainEnd returns the index of the first byte at or after i that a string
// scan must look at: '"', '\\', a control character or a byte >= 0x80. It
// tests eight bytes at a time: a byte sets its high bit in t when it is
// below 0x20 (subtracting 0x20 borrows), equal to '"' or '\\' (the XOR
// is zero, subtracting 1 borrows), or >= 0x80. A borrow can only come out
// of a byte that is itself flagged, so the lowest flagged byte is exact.
func plainEnd(src []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(src); i += 8 {
		w := binary.LittleEndian.Uint64(src[i:])
		t := (w - 0x20*ones) | ((w ^ '"'*ones) - ones) | ((w ^ '\\'*ones) - ones) | w
		if t &= highs; t != 0 {
			return i + bits.TrailingZeros64(t)>>3
		}
	}
	for ; i < len(src); i++ {
		if c := src[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return i
		}
	}
	return i
}

// checkKey rejects a key equal, or equal under case folding, to an earlier
// key of the same object. Small objects are checked pairwise; from
// pairwiseKeys members on, a set of folded keys keeps the check linear, so
// a body with a huge object cannot make the parse quadratic.
func (p *parser) checkKey(obj int32, ks, ke int32, kf uint8) error {
	esc := kf&keyEscaped != 0
	key := ""
	if esc {
		key = decodeString(p.src[ks:ke])
	}
	if p.nodes[obj].flags&keySet != 0 {
		return p.checkKeyInSet(p.keySets[obj], obj, ks, ke, esc, key)
	}
	n := 0
	for c := obj + 1; c < int32(len(p.nodes)); c = p.nodes[c].after {
		n++
		m := &p.nodes[c]
		var same, folded bool
		if (kf|m.flags)&(keyEscaped|keyNonASCII) == 0 {
			// Plain ASCII keys: folding keeps lengths, so most pairs
			// differ by length alone.
			a, b := p.src[ks+1:ke-1], p.src[m.keyStart+1:m.keyEnd-1]
			if len(a) != len(b) {
				continue
			}
			same = string(a) == string(b)
			folded = !same && asciiEqualFold(a, b)
		} else if !esc && m.flags&keyEscaped == 0 {
			a, b := p.src[ks+1:ke-1], p.src[m.keyStart+1:m.keyEnd-1]
			same = string(a) == string(b)
			folded = !same && bytes.EqualFold(a, b)
		} else {
			if !esc {
				key = string(p.src[ks+1 : ke-1])
			}
			other := decodeString(p.src[m.keyStart:m.keyEnd])
			same = key == other
			folded = !same && strings.EqualFold(key, other)
		}
		if same {
			return &SyntaxError{Offset: int(ks), Msg: fmt.Sprintf("duplicate key %s", p.src[ks:ke]), Ambiguous: true}
		}
		if folded {
			return &SyntaxError{Offset: int(ks), Msg: fmt.Sprintf("keys %s and %s differ only in case", p.src[m.keyStart:m.keyEnd], p.src[ks:ke]), Ambiguous: true}
		}
	}
	if n+1 >= pairwiseKeys {
		set := make(map[string]int32, 2*n)
		for c := obj + 1; c < int32(len(p.nodes)); c = p.nodes[c].after {
			m := &p.nodes[c]
			set[foldKey(p.keyText(m.keyStart, m.keyEnd, m.flags&keyEscaped != 0))] = m.keyStart
		}
		if p.keySets == nil {
			p.keySets = map[int32]map[string]int32{}
		}
		p.keySets[obj] = set
		p.nodes[obj].flags |= keySet
		return p.checkKeyInSet(set, obj, ks, ke, esc, key)
	}
	return nil
}

const pairwiseKeys = 16

func asciiEqualFold(a, b []byte) bool {
	for i := range a {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if x|0x20 != y|0x20 || x|0x20 < 'a' || x|0x20 > 'z' {
			return false
		}
	}
	return true
}

func (p *parser) keyText(ks, ke int32, esc bool) string {
	if esc {
		return decodeString(p.src[ks:ke])
	}
	return string(p.src[ks+1 : ke-1])
}

func (p *parser) checkKeyInSet(set map[string]int32, obj int32, ks, ke int32, esc bool, key string) error {
	if !esc {
		key = string(p.src[ks+1 : ke-1])
	}
	folded := foldKey(key)
	if prev, ok := set[folded]; ok {
		for c := obj + 1; c < int32(len(p.nodes)); c = p.nodes[c].after {
			if m := &p.nodes[c]; m.keyStart == prev {
				if p.keyText(m.keyStart, m.keyEnd, m.flags&keyEscaped != 0) == key {
					return &SyntaxError{Offset: int(ks), Msg: fmt.Sprintf("duplicate key %s", p.src[ks:ke]), Ambiguous: true}
				}
				return &SyntaxError{Offset: int(ks), Msg: fmt.Sprintf("keys %s and %s differ only in case", p.src[m.keyStart:m.keyEnd], p.src[ks:ke]), Ambiguous: true}
			}
		}
	}
	set[folded] = ks
	return nil
}

// foldKey maps every rune to the smallest rune of its case-folding orbit,
// so two keys are equal under strings.EqualFold exactly when their folded
// forms are equal.
// FoldKey is what the strict parser compares member names by: two names
// with the same FoldKey make a body ambiguous.
func FoldKey(s string) string { return foldKey(s) }

func foldKey(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		// The smallest member of an ASCII letter's orbit is its upper
		// case (the orbits of k and s also hold U+212A and U+017F, which
		// are larger).
		return strings.ToUpper(s)
	}
	var b strings.Builder
	for _, r := range s {
		min := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < min {
				min = f
			}
		}
		b.WriteRune(min)
	}
	return b.String()
}

// str scans the string whose opening quote is at p.pos, from i, the first
// byte plainEnd stopped at, validating UTF-8, escapes and surrogate pairs.
// It leaves p.pos past the closing quote and reports whether the string
// has escapes; p.nonASCII says whether it has bytes >= 0x80.
func (p *parser) str(i int) (bool, error) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	src := p.src
	esc := false
	p.nonASCII = false
	for {
		// plainEnd, in line: the strings that come here are mostly JSON
		// texts, with an escape every few bytes.
		for {
			if i+8 > len(src) {
				i = plainEnd(src, i)
				break
			}
			w := binary.LittleEndian.Uint64(src[i:])
			if t := ((w - 0x20*ones) | ((w ^ '"'*ones) - ones) | ((w ^ '\\'*ones) - ones) | w) & highs; t != 0 {
				i += bits.TrailingZeros64(t) >> 3
				break
			}
			i += 8
		}
		if i >= len(src) {
			p.pos = i
			return esc, p.fail("unterminated string")
		}
		c := src[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return esc, nil
		case c < 0x20:
			p.pos = i
			return esc, p.fail("control character in a string")
		case c == '\\':
			esc = true
			if i+1 >= len(src) {
				p.pos = i
				return esc, p.fail("unterminated escape")
			}
			switch src[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				r, ok := hex4(src, i+2)
				if !ok {
					p.pos = i
					return esc, p.fail(`invalid \u escape`)
				}
				switch {
				case r >= 0xD800 && r < 0xDC00:
					lo, ok := -1, false
					if i+7 < len(src) && src[i+6] == '\\' && src[i+7] == 'u' {
						var l rune
						l, ok = hex4(src, i+8)
						lo = int(l)
					}
					if !ok || lo < 0xDC00 || lo > 0xDFFF {
						p.pos = i
						return esc, p.ambiguous("lone surrogate in a \\u escape")
					}
					i += 12
				case r >= 0xDC00 && r < 0xE000:
					p.pos = i
					return esc, p.ambiguous("lone surrogate in a \\u escape")
				default:
					i += 6
				}
			default:
				p.pos = i
				return esc, p.fail("invalid escape")
			}
		default: // c >= 0x80
			p.nonASCII = true
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size <= 1 {
				p.pos = i
				return esc, p.ambiguous("invalid UTF-8")
			}
			i += size
		}
	}
}

func hex4(src []byte, i int) (rune, bool) {
	if i+4 > len(src) {
		return 0, false
	}
	var r rune
	for _, c := range src[i : i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// number scans a number per the JSON grammar.
func (p *parser) number() error {
	src, i := p.src, p.pos
	if src[i] == '-' {
		i++
	}
	switch {
	case i < len(src) && src[i] == '0':
		i++
	case i < len(src) && src[i] >= '1' && src[i] <= '9':
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
	default:
		p.pos = i
		return p.fail("invalid number")
	}
	if i < len(src) && src[i] == '.' {
		i++
		d := i
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
		if i == d {
			p.pos = i
			return p.fail("invalid number: no digits after '.'")
		}
	}
	exponent := i < len(src) && (src[i] == 'e' || src[i] == 'E')
	if exponent {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		d := i
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
		if i == d {
			p.pos = i
			return p.fail("invalid number: no digits in the exponent")
		}
	}
	// Parsers disagree on numbers beyond float64 (infinity, an error, a
	// big number); refuse them. Short plain numbers cannot overflow.
	if lit := src[p.pos:i]; len(lit) > 15 || exponent {
		if _, err := strconv.ParseFloat(string(lit), 64); err != nil {
			return p.ambiguous("number out of range")
		}
	}
	p.pos = i
	return nil
}
