package jsondoc

import (
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// Doc is a parsed JSON body. Nodes are addressed by index; the root is 0.
// Edits (SetString, SetRaw, Delete, Append) are recorded beside the parse,
// and Bytes writes the result: the original bytes when nothing changed,
// else a fresh canonical serialization.
type Doc struct {
	src   []byte
	nodes []node
	// edits hold replacement values (a string for SetString, raw JSON
	// for SetRaw), the first few in the Doc itself (no allocation for the
	// few values a message's transforms change), node.edit telling where;
	// past maxEdits they are in moreEdits by node index. Not a map per
	// document: in the VM a map's making, hashing and growing cost more
	// than the edits.
	edits     [inlineEdits]replacement
	more      []replacement
	moreEdits map[int32]replacement
	// extra holds members or elements appended to a container.
	extra map[int32][]appended
	// keys holds member names replaced by SetKey, by node index.
	keys     map[int32]string
	numEdits int // in edits and more
	changed  bool
	// mark is the member whose place in the output BytesAt reports
	// (0, the root, when none: the root is no member), markAt that place.
	mark   int32
	markAt int
}

// replacement is a node's new value: a string, or raw JSON (SetRaw's
// bytes, viewed as a string: the caller guarantees they stay as given).
type replacement struct {
	str   string
	isRaw bool
}

// inlineEdits is how many replacements a Doc holds in itself, maxEdits
// how many node.edit can point to.
const (
	inlineEdits = 8
	maxEdits    = 1<<16 - 1
)

// edit returns the replacement of node n (flagged replaced).
func (d *Doc) edit(n int32) replacement {
	switch i := int(d.nodes[n].edit) - 1; {
	case i < 0:
		return d.moreEdits[n]
	case i < inlineEdits:
		return d.edits[i]
	default:
		return d.more[i-inlineEdits]
	}
}

// setEdit makes r node n's replacement.
func (d *Doc) setEdit(n int32, r replacement) {
	m := &d.nodes[n]
	if m.flags&replaced != 0 {
		switch i := int(m.edit) - 1; {
		case i < 0:
			d.moreEdits[n] = r
		case i < inlineEdits:
			d.edits[i] = r
		default:
			d.more[i-inlineEdits] = r
		}
		return
	}
	m.flags |= replaced
	switch i := d.numEdits; {
	case i < inlineEdits:
		d.edits[i] = r
	case i < maxEdits:
		d.more = append(d.more, r)
	default:
		if d.moreEdits == nil {
			d.moreEdits = map[int32]replacement{}
		}
		d.moreEdits[n] = r
		return
	}
	d.numEdits++
	m.edit = uint16(d.numEdits)
}

type appended struct {
	key string // for objects
	raw []byte // a complete JSON value, already valid
}

// Root is the index of the top-level value.
const Root int32 = 0

// Kind returns the node's kind.
func (d *Doc) Kind(n int32) Kind {
	if n < 0 || int(n) >= len(d.nodes) {
		return Invalid
	}
	return d.nodes[n].kind
}

// First returns the first child (element or member) of n, or None.
// Deleted children are skipped.
func (d *Doc) First(n int32) int32 {
	if n < 0 {
		return None
	}
	if c := n + 1; c < d.nodes[n].after {
		return d.live(c)
	}
	return None
}

// Next returns the next sibling of n, or None. Deleted siblings are skipped.
func (d *Doc) Next(n int32) int32 {
	for {
		m := &d.nodes[n]
		if m.parent == None || m.after >= d.nodes[m.parent].after {
			return None
		}
		if n = m.after; d.nodes[n].flags&deleted == 0 {
			return n
		}
	}
}

// next is n's next sibling, deleted or not: the node after n's subtree,
// if that is still inside n's parent.
func (d *Doc) next(n int32) int32 {
	m := &d.nodes[n]
	if m.parent != None && m.after < d.nodes[m.parent].after {
		return m.after
	}
	return None
}

func (d *Doc) live(n int32) int32 {
	for n != None && d.nodes[n].flags&deleted != 0 {
		n = d.next(n)
	}
	return n
}

// Parent returns n's container, or None for the root.
func (d *Doc) Parent(n int32) int32 { return d.nodes[n].parent }

// Len counts n's live children.
func (d *Doc) Len(n int32) int {
	c := 0
	for i := d.First(n); i != None; i = d.Next(i) {
		c++
	}
	return c
}

// Get returns the member of object n named key, or None.
func (d *Doc) Get(n int32, key string) int32 {
	if n < 0 || int(n) >= len(d.nodes) || d.nodes[n].kind != Object {
		return None
	}
	// The members are the nodes from n+1, each after the last's subtree:
	// walked without Next's checks. A plain key is told apart by its
	// length and first byte before it is compared whole (a call inside
	// the VM).
	for c, end := n+1, d.nodes[n].after; c < end; c = d.nodes[c].after {
		m := &d.nodes[c]
		if m.flags&(deleted|renamed|keyEscaped) == 0 {
			if int(m.keyEnd-m.keyStart)-2 == len(key) && SameBytes(d.src[m.keyStart+1:m.keyEnd-1], key) {
				return c
			}
			continue
		}
		switch {
		case m.flags&deleted != 0:
		case m.flags&renamed != 0:
			if d.keys[c] == key {
				return c
			}
		case decodeString(d.src[m.keyStart:m.keyEnd]) == key:
			return c
		}
	}
	return None
}

// GetMany finds several members of object n in one pass: found[i] is
// the member named keys[i], or None (found must be as long as keys).
func (d *Doc) GetMany(n int32, keys []string, found []int32) {
	for i := range found {
		found[i] = None
	}
	if n < 0 || int(n) >= len(d.nodes) || d.nodes[n].kind != Object {
		return
	}
	for c, end := n+1, d.nodes[n].after; c < end; c = d.nodes[c].after {
		m := &d.nodes[c]
		var name string
		switch {
		case m.flags&deleted != 0:
			continue
		case m.flags&(renamed|keyEscaped) == 0:
			raw := d.src[m.keyStart+1 : m.keyEnd-1]
			for i, key := range keys {
				if found[i] == None && len(raw) == len(key) && SameBytes(raw, key) {
					found[i] = c
					break
				}
			}
			continue
		case m.flags&renamed != 0:
			name = d.keys[c]
		default:
			name = decodeString(d.src[m.keyStart:m.keyEnd])
		}
		for i, key := range keys {
			if found[i] == None && name == key {
				found[i] = c
				break
			}
		}
	}
}

// Path follows object keys from n; None when a step is missing.
func (d *Doc) Path(n int32, keys ...string) int32 {
	for _, k := range keys {
		if n = d.Get(n, k); n == None {
			return None
		}
	}
	return n
}

// Key returns the key of member n ("" for array elements and the root).
func (d *Doc) Key(n int32) string {
	m := &d.nodes[n]
	if m.keyStart < 0 {
		return ""
	}
	if m.flags&renamed != 0 {
		return d.keys[n]
	}
	if m.flags&keyEscaped == 0 {
		return string(d.src[m.keyStart+1 : m.keyEnd-1])
	}
	return decodeString(d.src[m.keyStart:m.keyEnd])
}

// KeyRaw returns the key of member n as written, without allocating, and
// true, when it holds no escape and was not replaced; else false (use Key).
func (d *Doc) KeyRaw(n int32) ([]byte, bool) {
	m := &d.nodes[n]
	if m.keyStart < 0 || m.flags&(keyEscaped|renamed) != 0 {
		return nil, false
	}
	return d.src[m.keyStart+1 : m.keyEnd-1], true
}

// StrRaw returns the value of string node n as written, without
// allocating, and true, when it holds no escape and was not replaced;
// else false (use Str).
func (d *Doc) StrRaw(n int32) ([]byte, bool) {
	if d.Kind(n) != String {
		return nil, false
	}
	m := &d.nodes[n]
	if m.flags&(escaped|replaced) != 0 {
		return nil, false
	}
	return d.src[m.start+1 : m.end-1], true
}

// Str returns the value of a string node (decoded, or as replaced), and
// whether n is a string.
func (d *Doc) Str(n int32) (string, bool) {
	if d.Kind(n) != String {
		return "", false
	}
	m := &d.nodes[n]
	if m.flags&replaced != 0 {
		if r := d.edit(n); !r.isRaw {
			return r.str, true
		}
		return "", false
	}
	if m.flags&escaped == 0 {
		return string(d.src[m.start+1 : m.end-1]), true
	}
	return decodeString(d.src[m.start:m.end]), true
}

// StrView is Str without a copy when string node n holds no escape and
// was not replaced: the result then shares the document's source bytes,
// so it is valid only as long as they are unmodified (the Doc keeps src),
// and a caller keeping it beyond the body's processing (a catalog entry, a
// map key) keeps a copy (strings.Clone), which also spares the body's
// bytes from being held alive by it. Other strings come as Str gives them.
func (d *Doc) StrView(n int32) (string, bool) {
	if d.Kind(n) != String {
		return "", false
	}
	m := &d.nodes[n]
	if m.flags&(escaped|replaced) == 0 {
		if m.end-m.start == 2 {
			return "", true
		}
		return unsafe.String(&d.src[m.start+1], m.end-m.start-2), true
	}
	return d.Str(n)
}

// ValueString is string(d.AppendValue(nil, n)) with one allocation, not
// two: the canonical serialization of node n.
func (d *Doc) ValueString(n int32) string {
	if m := &d.nodes[n]; m.flags&dirty == 0 {
		return string(d.src[m.start:m.end])
	}
	return string(d.write(nil, n))
}

// StrEquals reports whether n is a string whose value is s, without
// allocating for plain strings.
func (d *Doc) StrEquals(n int32, s string) bool {
	if d.Kind(n) != String {
		return false
	}
	m := &d.nodes[n]
	if m.flags&(escaped|replaced) == 0 {
		return string(d.src[m.start+1:m.end-1]) == s
	}
	v, _ := d.Str(n)
	return v == s
}

// Offset is where n starts in the source.
func (d *Doc) Offset(n int32) int { return int(d.nodes[n].start) }

// Raw returns the source bytes of n as parsed (edits not applied).
func (d *Doc) Raw(n int32) []byte {
	m := &d.nodes[n]
	return d.src[m.start:m.end]
}

// Replaced reports whether node n's value was replaced (SetString,
// SetRaw).
func (d *Doc) Replaced(n int32) bool { return d.nodes[n].flags&replaced != 0 }

// Changed reports whether any edit was made.
func (d *Doc) Changed() bool { return d.changed }

// touch marks n and its containers edited, so Bytes re-serializes them and
// copies every untouched subtree as it was received.
func (d *Doc) touch(n int32) {
	for ; n != None && d.nodes[n].flags&dirty == 0; n = d.nodes[n].parent {
		d.nodes[n].flags |= dirty
	}
	d.changed = true
}

// SetString replaces the value of string node n.
func (d *Doc) SetString(n int32, s string) {
	d.setEdit(n, replacement{str: s})
	d.touch(n)
}

// SetRaw replaces node n by raw JSON, which the caller guarantees is one
// valid JSON value (it is written as is).
func (d *Doc) SetRaw(n int32, raw []byte) {
	d.setEdit(n, replacement{str: unsafe.String(unsafe.SliceData(raw), len(raw)), isRaw: true})
	d.touch(n)
}

// SetKey replaces the name of member n. The caller keeps the object's
// names distinct (the strict parser refuses duplicates, and names equal
// under case folding).
func (d *Doc) SetKey(n int32, key string) {
	if d.nodes[n].keyStart < 0 {
		return
	}
	if d.keys == nil {
		d.keys = map[int32]string{}
	}
	d.keys[n] = key
	d.nodes[n].flags |= renamed
	d.touch(n)
}

// Delete removes node n from its container.
func (d *Doc) Delete(n int32) {
	d.nodes[n].flags |= deleted
	d.touch(n)
}

// Append adds raw JSON (one valid value) at the end of container n, under
// key when n is an object.
func (d *Doc) Append(n int32, key string, raw []byte) {
	if d.extra == nil {
		d.extra = map[int32][]appended{}
	}
	d.extra[n] = append(d.extra[n], appended{key: key, raw: raw})
	d.touch(n)
}

// appendedTo returns what Append added to container n. Most documents
// have no appended values: the map, nil, is not read (inside the VM a
// read of even a nil map is a call).
func (d *Doc) appendedTo(n int32) []appended {
	if d.extra == nil {
		return nil
	}
	return d.extra[n]
}

// Bytes returns the document: the original bytes when unchanged; otherwise
// the edited parts serialized canonically (no insignificant space, strings
// re-escaped from their decoded values, numbers as written) around the
// untouched values, copied as received (the strict parse proved them
// unambiguous).
func (d *Doc) Bytes() []byte {
	if !d.changed {
		return d.src
	}
	out := make([]byte, 0, len(d.src)+len(d.src)/8)
	return d.write(out, Root)
}

// BytesAt is Bytes, and the offset in it where the value of n, a member
// of the root object, begins (-1 if n is not one).
func (d *Doc) BytesAt(n int32) ([]byte, int) {
	if n <= Root || int(n) >= len(d.nodes) || d.nodes[n].parent != Root || d.Kind(Root) != Object {
		return d.Bytes(), -1
	}
	if !d.changed {
		return d.src, int(d.nodes[n].start)
	}
	d.mark, d.markAt = n, -1
	out := d.Bytes()
	at := d.markAt
	d.mark = 0
	return out, at
}

// AppendValue appends the canonical serialization of node n to out.
func (d *Doc) AppendValue(out []byte, n int32) []byte { return d.write(out, n) }

func (d *Doc) write(out []byte, n int32) []byte {
	m := &d.nodes[n]
	if m.flags&dirty == 0 {
		return append(out, d.src[m.start:m.end]...)
	}
	if m.flags&replaced != 0 {
		r := d.edit(n)
		if r.isRaw {
			return append(out, r.str...)
		}
		return AppendString(out, r.str)
	}
	switch m.kind {
	case String:
		if m.flags&escaped == 0 {
			return append(out, d.src[m.start:m.end]...)
		}
		return AppendString(out, decodeString(d.src[m.start:m.end]))
	case Object:
		out = append(out, '{')
		first := true
		for c := d.First(n); c != None; c = d.Next(c) {
			if !first {
				out = append(out, ',')
			}
			first = false
			cm := &d.nodes[c]
			if cm.flags&renamed != 0 {
				out = AppendString(out, d.keys[c])
			} else if cm.flags&keyEscaped == 0 {
				out = append(out, d.src[cm.keyStart:cm.keyEnd]...)
			} else {
				out = AppendString(out, decodeString(d.src[cm.keyStart:cm.keyEnd]))
			}
			out = append(out, ':')
			if c == d.mark {
				d.markAt = len(out)
			}
			if cm.flags&dirty == 0 {
				out = append(out, d.src[cm.start:cm.end]...) // write's first case, without the call
			} else {
				out = d.write(out, c)
			}
		}
		for _, e := range d.appendedTo(n) {
			if !first {
				out = append(out, ',')
			}
			first = false
			out = AppendString(out, e.key)
			out = append(out, ':')
			out = append(out, e.raw...)
		}
		return append(out, '}')
	case Array:
		out = append(out, '[')
		first := true
		for c := d.First(n); c != None; c = d.Next(c) {
			if !first {
				out = append(out, ',')
			}
			first = false
			if cm := &d.nodes[c]; cm.flags&dirty == 0 {
				out = append(out, d.src[cm.start:cm.end]...)
			} else {
				out = d.write(out, c)
			}
		}
		for _, e := range d.appendedTo(n) {
			if !first {
				out = append(out, ',')
			}
			first = false
			out = append(out, e.raw...)
		}
		return append(out, ']')
	}
	return append(out, d.src[m.start:m.end]...)
}

// decodeString decodes a validated, quoted JSON string.
func decodeString(q []byte) string {
	s := q[1 : len(q)-1]
	// Eight bytes at a time, stored whole, up to the next backslash: a
	// JSON text inside a string has an escape every few bytes, and a call
	// to find each and another to copy the stretch before it cost more
	// inside the VM than the stretch. What is decoded is never longer
	// than s, so buf has room for every word stored.
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	buf := make([]byte, len(s)+8)
	n := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			w := *(*uint64)(unsafe.Pointer(&s[i]))
			*(*uint64)(unsafe.Pointer(&buf[n])) = w
			x := w ^ '\\'*ones
			t := (x - ones) &^ x & highs
			if t == 0 {
				n, i = n+8, i+8
				continue
			}
			k := bits.TrailingZeros64(t) >> 3
			n, i = n+k, i+k
		} else if s[i] != '\\' {
			buf[n] = s[i]
			n, i = n+1, i+1
			continue
		}
		// s[i] is a backslash.
		buf = buf[:n]
		switch s[i+1] {
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, _ := hex4(s, i+2)
			if r >= 0xD800 && r < 0xDC00 {
				lo, _ := hex4(s, i+8)
				r = (r-0xD800)<<10 | (lo - 0xDC00) + 0x10000
				i += 6
			}
			buf = utf8.AppendRune(buf, r)
			i += 4 // and 2 below
		default: // " \ /
			buf = append(buf, s[i+1])
		}
		i += 2
		n, buf = len(buf), buf[:cap(buf)]
	}
	if n == 0 {
		return ""
	}
	// buf is this call's own and never written again: the string can be
	// a view of it (one allocation, not two).
	return unsafe.String(&buf[0], n)
}

// Edited reports whether node n or anything in it was edited (set,
// renamed, deleted, appended to).
func (d *Doc) Edited(n int32) bool { return d.nodes[n].flags&dirty != 0 }

// AppendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD;
// <, > and & stay as they are (this is not HTML).
func AppendString(out []byte, s string) []byte {
	// Eight bytes at a time, stored whole, as long as none needs a look
	// (plainEnd's test): '"', '\\', a control character or the first
	// byte of a non-ASCII rune. A body's JSON text is mostly such bytes
	// between quotes; copying each stretch with append would be a call
	// to the runtime per stretch, which inside the VM costs more than
	// the stretch. out keeps room for a word and the longest escape
	// (room), so no write below checks it.
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	const room = 16
	out = append(out, '"')
	n := len(out)
	out = slices.Grow(out, len(s)+room)
	out = out[:cap(out)]
	for i := 0; i < len(s); {
		if len(out)-n < room {
			out = slices.Grow(out[:n], len(s)-i+room)
			out = out[:cap(out)]
		}
		if i+8 <= len(s) {
			w := *(*uint64)(unsafe.Pointer(unsafe.StringData(s[i:])))
			t := ((w - 0x20*ones) | ((w ^ '"'*ones) - ones) | ((w ^ '\\'*ones) - ones) | w) & highs
			*(*uint64)(unsafe.Pointer(&out[n])) = w // only the bytes before the first flagged one count
			if t == 0 {
				n, i = n+8, i+8
				continue
			}
			k := bits.TrailingZeros64(t) >> 3
			n, i = n+k, i+k
		}
		switch c := s[i]; {
		case c >= 0x80:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				n += copy(out[n:], "\ufffd")
				i++
			case r == '\u2028' || r == '\u2029':
				// Valid JSON, but it breaks JavaScript parsers that
				// treat JSON as code: escaped.
				n += copy(out[n:], `\u202`)
				out[n] = "89"[r-'\u2028']
				n, i = n+1, i+size
			default:
				for end := i + size; i < end; i++ {
					out[n] = s[i]
					n++
				}
			}
		case c == '"' || c == '\\':
			out[n], out[n+1] = '\\', c
			n, i = n+2, i+1
		case c < 0x20:
			switch c {
			case '\n':
				out[n], out[n+1] = '\\', 'n'
				n += 2
			case '\r':
				out[n], out[n+1] = '\\', 'r'
				n += 2
			case '\t':
				out[n], out[n+1] = '\\', 't'
				n += 2
			default:
				n += copy(out[n:], `\u00`)
				out[n], out[n+1] = hexDigits[c>>4], hexDigits[c&0xF]
				n += 2
			}
			i++
		default: // a byte of the last, short, word
			out[n] = c
			n, i = n+1, i+1
		}
	}
	out = out[:n]
	return append(out, '"')
}

const hexDigits = "0123456789abcdef"

// Quote returns s as a JSON string.
func Quote(s string) string { return string(AppendString(nil, s)) }

// Int returns a number node's value as an int64 when it is an integer.
func (d *Doc) Int(n int32) (int64, bool) {
	if d.Kind(n) != Number {
		return 0, false
	}
	v, err := strconv.ParseInt(string(d.Raw(n)), 10, 64)
	return v, err == nil
}

// AppendStrings appends list as a JSON array of strings.
func AppendStrings(out []byte, list []string) []byte {
	out = append(out, '[')
	for i, s := range list {
		if i > 0 {
			out = append(out, ',')
		}
		out = AppendString(out, s)
	}
	return append(out, ']')
}

// AppendCounts appends counts as a JSON object with its keys sorted, so
// equal maps always serialize alike.
func AppendCounts(out []byte, counts map[string]int) []byte {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out = append(out, '{')
	for i, k := range keys {
		if i > 0 {
			out = append(out, ',')
		}
		out = AppendString(out, k)
		out = append(out, ':')
		out = strconv.AppendInt(out, int64(counts[k]), 10)
	}
	return append(out, '}')
}
