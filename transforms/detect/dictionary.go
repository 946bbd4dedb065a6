package detect

import (
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Dictionaries (manual 12.9.6): an operator's terms, always reported
// under their dictionary's label, found in one pass however many there
// are (100,000 customer names is an ordinary CRM export).
//
// A term matches on word boundaries, case-insensitively (Unicode simple
// folding: what RE2's (?i) treats as equal), any run of white space in
// the text standing for the white space inside the term. That is a match
// of token sequences: the text is read as tokens (a run of word
// characters; a run of white space; any other character alone, and so
// each character of the scripts written without spaces, Han, kana,
// Thai…), and a term matches where its tokens follow one another, with
// white space between the same ones. The matcher is a trie of tokens kept
// as hashes (RATIONALE): a term's tokens chain into a 64-bit hash, token
// by token; every chain prefix of every term is in a Bloom filter, every
// whole term in an open-addressed table of hashes. The scan hashes each
// token as it reads it (folding as it goes) and looks the filter up once
// per token; only a token that begins some term's chain walks on, token
// by token, while the filter holds the chain. No allocation, no regexp,
// and the tables are a few bytes per term (dictTableBytes).
//
// A 64-bit hash stands for the term: two different token sequences with
// one hash would report text that is no term, about once in 10^14
// lookups.

// Token kinds.
const (
	tkPunct = iota // a character alone
	tkWord         // a run of letters, digits, marks and '_'
	tkSpace        // a run of white space
)

// dictClass is the kind of each ASCII byte (tkPunct for the others, which
// are decoded); dictFold is an ASCII byte folded (the least rune of its
// simple-folding orbit: upper case, as for every ASCII letter).
var dictClass, dictFold = func() (cls, fold [256]uint8) {
	for c := 0; c < 256; c++ {
		fold[c] = uint8(c)
		switch {
		case c >= 0x80:
		case c >= 'a' && c <= 'z':
			cls[c], fold[c] = tkWord, uint8(c-'a'+'A')
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
			cls[c] = tkWord
		case c == ' ', c >= '\t' && c <= '\r':
			cls[c] = tkSpace
		}
	}
	return
}()

// foldRune is the least rune of r's simple-folding orbit: runes RE2's
// (?i) takes as equal fold to one.
func foldRune(r rune) rune {
	if r < 0x80 {
		return rune(dictFold[r])
	}
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < least {
			least = f
		}
	}
	return least
}

// runeKind is the token kind of a non-ASCII rune.
func runeKind(r rune) uint8 {
	switch {
	case unicode.IsSpace(r):
		return tkSpace
	case r == utf8.RuneError:
		return tkPunct
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
		if noSpaceScript(r) {
			return tkPunct // each character is a word of its own
		}
		return tkWord
	}
	return tkPunct
}

// noSpaceScript reports whether r is of a script written without spaces
// between words: its characters match on their own.
func noSpaceScript(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

const (
	fnvOffset = 0xcbf29ce484222325
	fnvPrime  = 0x100000001b3
	chainSeed = 0x2d358dccaa6c78a5
	mixMul1   = 0x9e3779b97f4a7c15
	mixMul2   = 0xbf58476d1ce4e5b9
)

// dictToken reads the token at s[i:] (i < len(s)): where it ends, its
// kind and, but for white space, the hash of its folded runes.
func dictToken(s string, i int) (end int, kind uint8, h uint64) {
	r, size := rune(s[i]), 1
	if r >= 0x80 {
		r, size = utf8.DecodeRuneInString(s[i:])
		kind = runeKind(r)
	} else {
		kind = dictClass[r]
	}
	end = i + size
	switch kind {
	case tkPunct:
		return end, kind, (fnvOffset ^ uint64(foldRune(r))) * fnvPrime
	case tkSpace:
		for end < len(s) {
			c := s[end]
			if c < 0x80 {
				if dictClass[c] != tkSpace {
					break
				}
				end++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[end:])
			if !unicode.IsSpace(r) {
				break
			}
			end += size
		}
		return end, kind, 0
	}
	h = (fnvOffset ^ uint64(foldRune(r))) * fnvPrime
	for end < len(s) {
		c := s[end]
		if c < 0x80 {
			if dictClass[c] != tkWord {
				break
			}
			h = (h ^ uint64(dictFold[c])) * fnvPrime
			end++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[end:])
		if runeKind(r) != tkWord {
			break
		}
		h = (h ^ uint64(foldRune(r))) * fnvPrime
		end += size
	}
	return end, kind, h
}

// chain extends a term's hash by a token: its hash, and whether white
// space came before it.
func chain(h, tok uint64, space bool) uint64 {
	h ^= tok
	if space {
		h ^= 0x5bd1e9955bd1e995
	}
	h *= mixMul1
	h = bits.RotateLeft64(h, 29) * mixMul2
	return h ^ h>>32
}

// dictMatcher is the terms of some dictionaries, matched together.
type dictMatcher struct {
	// keys is the table of whole terms (hash|1; 0 is a free slot), dicts
	// the dictionary of each (its index in the matcher's, from 1).
	keys  []uint64
	dicts []uint16
	shift uint8
	// bloom holds every chain prefix of every term, two bits each;
	// starts the hash of every term's first token, and startByte the
	// bytes its first character may begin with (any non-ASCII byte).
	bloom      []uint64
	bloomShift uint8
	starts     []uint64
	startShift uint8
	startByte  [256]bool
	terms      int
	// digits: some term has a digit (it may be in a JSON number).
	digits bool
}

// dictHit is a term found: bytes [start, end) of its dictionary (from 0).
type dictHit struct {
	start, end int32
	dict       uint16
}

// termTokens returns the chain hashes of term's prefixes, one per token
// that is no white space (white space around the term ignored).
func termTokens(term string, dst []uint64) []uint64 {
	h, space := uint64(chainSeed), false
	for i := 0; i < len(term); {
		end, kind, th := dictToken(term, i)
		i = end
		if kind == tkSpace {
			space = len(dst) > 0
			continue
		}
		h = chain(h, th, space)
		space = false
		dst = append(dst, h)
	}
	return dst
}

// newDictMatcher builds the matcher of dictionaries of terms (the first
// dictionary with a term reports it).
func newDictMatcher(dicts [][]string) *dictMatcher {
	m := &dictMatcher{}
	var prefixes []uint64
	type term struct {
		h    uint64
		dict uint16
	}
	var whole []term
	seen := map[uint64]bool{}
	var buf []uint64
	var firsts []uint64
	for c := 0x80; c < 256; c++ {
		m.startByte[c] = true
	}
	for d, terms := range dicts {
		for _, t := range terms {
			buf = termTokens(t, buf[:0])
			if len(buf) == 0 {
				continue
			}
			t = strings.TrimLeftFunc(t, isSpaceRune)
			_, _, th := dictToken(t, 0)
			firsts = append(firsts, th)
			f, _ := utf8.DecodeRuneInString(t)
			for c := 0; c < 0x80; c++ {
				if foldRune(rune(c)) == foldRune(f) {
					m.startByte[c] = true
				}
			}
			for _, c := range t {
				m.digits = m.digits || unicode.IsDigit(c)
			}
			prefixes = append(prefixes, buf...)
			h := buf[len(buf)-1]
			if !seen[h] {
				seen[h] = true
				whole = append(whole, term{h, uint16(d + 1)})
			}
		}
	}
	m.terms = len(whole)
	// The table at most four fifths full (a lookup that misses is rare:
	// the filters come first); the filter 16 bits per prefix.
	size := 16
	for 4*size < 5*len(whole) {
		size <<= 1
	}
	m.keys, m.dicts = make([]uint64, size), make([]uint16, size)
	m.shift = uint8(64 - bits.TrailingZeros(uint(size)))
	for _, t := range whole {
		k := t.h | 1
		for i := (t.h * mixMul1) >> m.shift; ; i = (i + 1) & uint64(size-1) {
			if m.keys[i] == 0 {
				m.keys[i], m.dicts[i] = k, t.dict
				break
			}
		}
	}
	m.bloom, m.bloomShift = bitFilter(16 * len(prefixes))
	for _, h := range prefixes {
		a, b := m.bloomBits(h)
		m.bloom[a>>6] |= 1 << (a & 63)
		m.bloom[b>>6] |= 1 << (b & 63)
	}
	// The first tokens' filter, read for every token of the text, is
	// small (8 bits a token) so that it stays in cache.
	m.starts, m.startShift = bitFilter(8 * len(firsts))
	for _, h := range firsts {
		a, b := m.startBits(h)
		m.starts[a>>6] |= 1 << (a & 63)
		m.starts[b>>6] |= 1 << (b & 63)
	}
	return m
}

func (m *dictMatcher) startBits(h uint64) (a, b uint64) {
	x := h * mixMul1
	return x >> m.startShift, (x << 20) >> m.startShift
}

// mayStart reports whether a term may start with the token hashed h.
func (m *dictMatcher) mayStart(h uint64) bool {
	a, b := m.startBits(h)
	return m.starts[a>>6]&(1<<(a&63)) != 0 && m.starts[b>>6]&(1<<(b&63)) != 0
}

func (m *dictMatcher) bloomBits(h uint64) (a, b uint64) {
	x := h * mixMul2
	return x >> m.bloomShift, (x << 24) >> m.bloomShift
}

func (m *dictMatcher) mayBe(h uint64) bool {
	a, b := m.bloomBits(h)
	return m.bloom[a>>6]&(1<<(a&63)) != 0 && m.bloom[b>>6]&(1<<(b&63)) != 0
}

// lookup is the dictionary of the term hashed h (from 1), or 0.
func (m *dictMatcher) lookup(h uint64) uint16 {
	k, mask := h|1, uint64(len(m.keys)-1)
	for i := (h * mixMul1) >> m.shift; ; i = (i + 1) & mask {
		switch m.keys[i] {
		case k:
			return m.dicts[i]
		case 0:
			return 0
		}
	}
}

// bytes is the size of the matcher's tables.
func (m *dictMatcher) bytes() int {
	return 8*len(m.keys) + 2*len(m.dicts) + 8*len(m.bloom) + 8*len(m.starts) + len(m.startByte)
}

// scan appends to dst every term found in s (at one start, every term
// that starts there); with first, it stops at the first.
func (m *dictMatcher) scan(s string, dst []dictHit, first bool) []dictHit {
	n := len(s)
	for i := 0; i < n; {
		c := s[i]
		var end int
		var h uint64
		switch dictClass[c] {
		case tkSpace:
			i++
			continue
		case tkWord:
			// An ASCII word, hashed inline unless no term starts with
			// its first byte; a non-ASCII character in it sends it to
			// dictToken.
			end = i + 1
			if !m.startByte[c] {
				for end < n && dictClass[s[end]] == tkWord {
					end++
				}
				if end < n && s[end] >= 0x80 {
					end, _, _ = dictToken(s, i)
				}
				i = end
				continue
			}
			h = (fnvOffset ^ uint64(dictFold[c])) * fnvPrime
			for end < n && dictClass[s[end]] == tkWord {
				h = (h ^ uint64(dictFold[s[end]])) * fnvPrime
				end++
			}
			if end < n && s[end] >= 0x80 {
				end, _, h = dictToken(s, i)
			}
		default:
			if !m.startByte[c] {
				i++ // ASCII punctuation no term starts with
				continue
			}
			var kind uint8
			if end, kind, h = dictToken(s, i); kind == tkSpace {
				i = end
				continue
			}
		}
		if m.mayStart(h) {
			if hc := chain(chainSeed, h, false); m.mayBe(hc) {
				k := len(dst)
				dst = m.walk(s, i, end, hc, dst)
				if first && len(dst) > k {
					return dst
				}
			}
		}
		i = end
	}
	return dst
}

// walk follows the chain of terms from the token [start, end) hashed h,
// token by token while the filter holds it, appending the terms it ends.
func (m *dictMatcher) walk(s string, start, end int, h uint64, dst []dictHit) []dictHit {
	for {
		if d := m.lookup(h); d != 0 {
			dst = append(dst, dictHit{int32(start), int32(end), d - 1})
		}
		if end >= len(s) {
			return dst
		}
		next, kind, th := dictToken(s, end)
		space := kind == tkSpace
		if space {
			if next >= len(s) {
				return dst
			}
			next, _, th = dictToken(s, next)
		}
		h = chain(h, th, space)
		if !m.mayBe(h) {
			return dst
		}
		end = next
	}
}

// bitFilter makes a filter's bits: a power of two, at least 1024 and at
// least want, and the shift that maps a 64-bit hash to a bit of it.
func bitFilter(want int) ([]uint64, uint8) {
	nbits := 1024
	for nbits < want {
		nbits <<= 1
	}
	return make([]uint64, nbits/64), uint8(64 - bits.TrailingZeros(uint(nbits)))
}
