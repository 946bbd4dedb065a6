package detect

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/cloudg/mcp-privacy/transforms/detect/internal/nameword"
)

// The reader view: detectors match what a reader sees, not the bytes.
// A card number split by no-break spaces, an email holding U+200B or
// written with a fullwidth ＠, `alice\u0040example.com` in text that is
// JSON but not strict JSON: a model or a person reads each as the plain
// value, so the detectors must too. The view is the string with
//
//   - invisible characters deleted: format characters (U+200B–U+200F,
//     U+2060, U+FEFF, the soft hyphen U+00AD…), combining marks (but
//     an abugida's vowel signs: a reader sees कुमार, not कमार), variation
//     selectors and other default-ignorable characters;
//   - every space separator (Zs: U+00A0, U+2000–U+200A, U+202F, U+3000…)
//     a space, line and paragraph separators (and NEL) a line break;
//   - compatibility characters whose NFKC form is ASCII (fullwidth forms,
//     mathematical letters and digits, ligatures, ①…) that ASCII text;
//     decimal digits of every script ASCII digits; dashes (Pd) and the
//     minus sign '-'; ideographic full stops '.';
//   - JSON escapes \uXXXX (and surrogate pairs) decoded, then mapped as
//     above.
//
// Every byte of the view remembers where its character starts in the
// original, so a span found in the view maps back to the original bytes it
// came from, the invisible characters inside it included: the rewrite
// replaces those. Text that is ASCII without a \u escape (most text) is
// its own view and costs one read of eight bytes at a time (NeedsView).
//
// The table of characters (readerTable, generated from the Unicode tables
// of Go and golang.org/x/text by TestReaderTable) keeps the NFKC data out
// of the plugin: golang.org/x/text/unicode/norm would add its tables to
// the .wasm, and does not cover the invisible characters, digits and
// dashes (docs/RATIONALE.md).

// readerEntry maps the characters lo..hi: deleted, to one byte (the same
// for all, or c+r-lo), or to a string.
type readerEntry struct {
	lo, hi rune
	op     uint8
	c      byte
	s      string
}

const (
	readerDelete uint8 = iota
	readerSame
	readerShift
	readerString
)

// readerBMP has a bit set for each character of the Basic Multilingual
// Plane in readerTable: most non-ASCII text (accented letters, CJK) is
// kept after one bit test instead of a binary search.
var readerBMP = func() *[0x10000 / 8]byte {
	var t [0x10000 / 8]byte
	for _, e := range readerTable {
		for r := e.lo; r <= e.hi && r < 0x10000; r++ {
			t[r>>3] |= 1 << (r & 7)
		}
	}
	return &t
}()

// ReaderMap returns what the view makes of the non-ASCII character r: its
// text ("" when deleted), or keep when it stays as it is.
func ReaderMap(r rune) (to string, keep bool) {
	if r < 0x10000 && readerBMP[r>>3]&(1<<(r&7)) == 0 {
		return "", true
	}
	i, j := 0, len(readerTable)
	for i < j {
		h := int(uint(i+j) >> 1)
		if readerTable[h].hi < r {
			i = h + 1
		} else {
			j = h
		}
	}
	if i == len(readerTable) || readerTable[i].lo > r {
		return "", true
	}
	e := &readerTable[i]
	switch e.op {
	case readerSame:
		return asciiStrings[e.c], false
	case readerShift:
		return asciiStrings[e.c+byte(r-e.lo)], false
	case readerString:
		return e.s, false
	}
	return "", false
}

// asciiStrings[c] is string(rune(c)) without an allocation.
var asciiStrings = func() (t [128]string) {
	const all = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f" +
		" !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\x7f"
	for c := range t {
		t[c] = all[c : c+1]
	}
	return t
}()

// ReaderText is the reader view of s: what a reader sees of it.
func ReaderText(s string) string { return newView(s).text }

// NeedsView reports whether s may read differently from its bytes: it
// holds a non-ASCII byte, or a backslash, '%' or '&' (which may start an
// escape).
func NeedsView(s string) bool {
	return plainRun(s) < len(s)
}

// view is the reader view of a string: its text, and a map from the
// text's bytes back to the original. The map is a list of segments, one
// where the difference between the offsets changes: most of a text is
// copied as it is, so only the characters the view changes cost a
// segment, never a word per byte.
type view struct {
	text string
	segs []viewSeg // by v; empty when text is the original
	buf  []byte    // the memory of text when it is not the original, for reuse
}

// viewSeg: from view byte v on (to the next segment), byte v+k comes from
// original byte o+k; in a flat segment every byte comes from the
// character that starts at o (its expansion).
type viewSeg struct {
	v, o int32
	flat bool
}

// newView builds the reader view of s. Nothing is copied until the first
// character the view changes; a string it does not change is its own view
// (no segments). For ASCII text without a backslash this is one read of the
// string eight bytes at a time (plainRun): the whole cost of the view.
func newView(s string) view { return buildView(s, nil, nil) }

// afterAbugida reports whether the character before s[i] in the view
// (the end of b once it differs from s) is of an abugida's script
// (a letter or another sign).
func afterAbugida(s string, i int, b []byte, changed bool) bool {
	var r rune
	if changed {
		r, _ = utf8.DecodeLastRune(b)
	} else {
		r, _ = utf8.DecodeLastRuneInString(s[:i])
	}
	return nameword.Abugida(r)
}

// buildView is newView writing the text into buf and the segments into
// segs when they have room (a caller's scratch, reused from one string to
// the next). The view's text then lives in buf: it is valid until buf is
// written again.
func buildView(s string, buf []byte, segs []viewSeg) view {
	b := buf[:0]
	segs = segs[:0]
	changed := false
	// seg starts a segment at the current end of b: an empty one before
	// it goes, and an identity segment with the same difference goes on.
	seg := func(o int, flat bool) {
		v := int32(len(b))
		if n := len(segs); n > 0 && segs[n-1].v == v {
			segs = segs[:n-1]
		}
		if n := len(segs); !flat && n > 0 && !segs[n-1].flat && segs[n-1].o-segs[n-1].v == int32(o)-v {
			return
		}
		segs = append(segs, viewSeg{v, int32(o), flat})
	}
	for i := 0; i < len(s); {
		j := i + plainRun(s[i:])
		if changed {
			b = append(b, s[i:j]...)
		}
		if i = j; i == len(s) {
			break
		}
		r, size := unitAt(s, i)
		var to string
		keep := false
		switch {
		case size == 1 && r < utf8.RuneSelf:
			keep = true // a backslash that starts no escape
		case r < utf8.RuneSelf:
			to = asciiStrings[r]
		case r == utf8.RuneError && size == 1:
			keep = true // an invalid byte stays as it is
		default:
			to, keep = ReaderMap(r)
			if keep && nameword.VowelSign(r) && !afterAbugida(s, i, b, changed) {
				// An abugida's vowel sign stays only on a letter of its
				// script (कुमार): on a digit or a Latin letter it is a
				// stray mark, deleted as other combining marks are
				// (4111ु 1111 … is a card number).
				to, keep = "", false
			} else if keep && size > 1 && (s[i] == '\\' || s[i] == '&') {
				to, keep = string(r), false // a kept character written as an escape
			}
		}
		if keep {
			if changed {
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
		if !changed {
			changed = true
			if cap(b) < len(s) {
				b = make([]byte, 0, len(s))
			}
			b = append(b, s[:i]...)
			segs = append(segs, viewSeg{0, 0, false})
		}
		seg(i, true)
		b = append(b, to...)
		i += size
		seg(i, false)
	}
	if !changed {
		return view{text: s, buf: b, segs: segs}
	}
	if len(b) == 0 {
		return view{text: "", buf: b, segs: segs[:0]}
	}
	return view{text: unsafe.String(&b[0], len(b)), buf: b, segs: segs}
}

// plainRun is the length of the prefix of s that the view copies as it
// is: ASCII other than '\\', '%' and '&', eight bytes at a time.
func plainRun(s string) int {
	i := 0
	// 32 bytes per test: one branch where four would each cost in the VM.
	for ; i+32 <= len(s); i += 32 {
		if (special8(load64(s, i))|special8(load64(s, i+8))|special8(load64(s, i+16))|special8(load64(s, i+24)))&swarHigh != 0 {
			break
		}
	}
	for ; i+8 <= len(s); i += 8 {
		if special8(load64(s, i))&swarHigh != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || c == '\\' || c == '%' || c == '&' {
			return i
		}
	}
	return i
}

const swarHigh, swarOnes = 0x8080808080808080, 0x0101010101010101

// special8 has the high bit set in a byte of x that is non-ASCII, '\\',
// '%' or '&' (and possibly in a byte after one: the caller then looks
// byte by byte).
func special8(x uint64) uint64 {
	const bs, pct, amp = 0x5c * swarOnes, 0x25 * swarOnes, 0x26 * swarOnes
	y, p, a := x^bs, x^pct, x^amp // a zero byte where s has the character
	return x | (y-swarOnes)&^y | (p-swarOnes)&^p | (a-swarOnes)&^a
}

// at is where view byte i comes from in the original: the byte itself,
// or (flat) the start of the character whose expansion holds it.
func (v *view) at(i int) (int, bool) {
	if len(v.segs) == 0 {
		return i, false
	}
	lo, hi := 0, len(v.segs)
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if int(v.segs[m].v) <= i {
			lo = m
		} else {
			hi = m
		}
	}
	sg := v.segs[lo]
	if sg.flat {
		return int(sg.o), true
	}
	return int(sg.o) + i - int(sg.v), false
}

// unitAt reads the character at i of s: a \uXXXX escape (a surrogate pair
// as one character), a URL escape %XX of a printable ASCII character, an
// HTML character reference (&#64;, &#x40;, and &commat;, &period;,
// &nbsp;), else one UTF-8 character; an invalid byte is RuneError of size
// 1. A lone surrogate escape is not decoded: the backslash stands for
// itself; so do '%' and '&' that start no escape.
func unitAt(s string, i int) (rune, int) {
	switch s[i] {
	case '%':
		if i+3 <= len(s) {
			h, l := hexVal(s[i+1]), hexVal(s[i+2])
			if v := h<<4 | l; h >= 0 && l >= 0 && v >= 0x20 && v < 0x7f {
				return v, 3
			}
		}
		return '%', 1
	case '&':
		if r, n := charRef(s[i:]); n > 0 {
			return r, n
		}
		return '&', 1
	}
	if s[i] == '\\' {
		if r, ok := hex4At(s, i); ok {
			if r < 0xd800 || r > 0xdfff {
				return r, 6
			}
			if r <= 0xdbff {
				if r2, ok := hex4At(s, i+6); ok && r2 >= 0xdc00 && r2 <= 0xdfff {
					return 0x10000 + (r-0xd800)<<10 + (r2 - 0xdc00), 12
				}
			}
		}
		return '\\', 1
	}
	if s[i] < utf8.RuneSelf {
		return rune(s[i]), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// hexVal is the value of hex digit c, or -1.
func hexVal(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c - 'a' + 10)
	case c >= 'A' && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// charRef decodes the HTML character reference s starts with: &#NNN; or
// &#xHHH; of a Unicode scalar value other than NUL, or one of the named
// references that disguise addresses and numbers. n is 0 when s starts
// none.
func charRef(s string) (r rune, n int) {
	if len(s) < 4 || s[1] != '#' {
		for _, ref := range namedRefs {
			if strings.HasPrefix(s, ref.name) {
				return ref.r, len(ref.name)
			}
		}
		return 0, 0
	}
	i, base := 2, rune(10)
	if s[2] == 'x' || s[2] == 'X' {
		i, base = 3, 16
	}
	start := i
	for ; i < len(s) && i-start < 7; i++ {
		d := hexVal(s[i])
		if d < 0 || d >= base {
			break
		}
		r = r*base + d
	}
	if i == start || i >= len(s) || s[i] != ';' || r == 0 || r > utf8.MaxRune || r >= 0xd800 && r <= 0xdfff {
		return 0, 0
	}
	return r, i + 1
}

// namedRefs are the named HTML references the view reads.
var namedRefs = [...]struct {
	name string
	r    rune
}{{"&commat;", '@'}, {"&period;", '.'}, {"&nbsp;", '\u00a0'}, {"&hyphen;", '-'}, {"&dash;", '-'}, {"&plus;", '+'}}

// hex4At decodes \uXXXX at i of s.
func hex4At(s string, i int) (rune, bool) {
	if i+6 > len(s) || s[i] != '\\' || s[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i+2 : i+6]) {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// orig maps the view span [a, b) back to the original s: from the start of
// the character that gave byte a to the end of the one that gave byte
// b-1. A span that begins or ends inside a character's expansion (the
// "f" of "ﬁ") widens to the whole character.
func (v *view) orig(s string, a, b int) (int, int) {
	start, _ := v.at(a)
	last, flat := v.at(b - 1)
	if !flat {
		return start, last + 1
	}
	_, size := unitAt(s, last)
	return start, last + size
}

// mapBack turns detections in the view into detections in the original s,
// in place: spans mapped by orig, Value set where the original bytes
// differ from what the view read. Spans that widening made overlap an
// earlier one are dropped (the earlier covers the character).
//
// A span inside one stretch the view copied as it is (most spans: the
// view differs only at the characters it changes) maps by its offset
// alone, with no search and no comparison: its bytes are the original's.
// The segments are walked along with the detections, which come in order.
func (v *view) mapBack(s string, ds []Detection) []Detection {
	out := ds[:0]
	end := -1
	k := 0 // the segment holding the last span's start
	for _, d := range ds {
		if int(v.segs[k].v) > d.Start {
			k = 0 // out of order: start again
		}
		for k+1 < len(v.segs) && int(v.segs[k+1].v) <= d.Start {
			k++
		}
		var a, b int
		if sg := v.segs[k]; !sg.flat && (k+1 == len(v.segs) || d.End <= int(v.segs[k+1].v)) {
			a = int(sg.o) + d.Start - int(sg.v)
			b = a + d.End - d.Start
			if a < end {
				continue
			}
		} else {
			if a, b = v.orig(s, d.Start, d.End); a < end {
				continue
			}
			if seen := v.text[d.Start:d.End]; seen != s[a:b] {
				d.Value = strings.Clone(seen) // the text's memory may be reused
			}
		}
		d.Start, d.End = a, b
		out = append(out, d)
		end = b
	}
	return out
}
