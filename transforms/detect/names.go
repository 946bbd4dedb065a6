package detect

import (
	_ "embed"
	"math/bits"
	"slices"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/cloudg/mcp-privacy/transforms/detect/internal/nameword"
)

// People's names in text (manual 12.9.3). A name is a run of capitalised
// words (with particles such as van der, da, de la between them, hyphens
// and apostrophes inside them: Jean-Pierre, O'Brien, McDonald), reported
// whole and without what introduced it, when
//
//   - context comes before it: an honorific (Mr, Frau, Mme, Sr., Sig.,
//     Dhr., Pan …), a greeting that a name in the tables follows (Dear,
//     Hi, Hallo, Hola …), a label (customer, patient, Kunde …, and the
//     policy's context words for person), or a signature: a dash, or the
//     line after a closing (Best regards, Mit freundlichen Grüßen …);
//   - or the name tables say so: a given name followed by a capitalised
//     word (a surname in the tables when the given name is also a common
//     word, place or brand: May, Will, Grant, Paris …), or a known
//     surname followed by a known given name.
//
// Nothing is reported next to a company form, a street or place word
// (GmbH, Inc, &, Street, Rue, Straße …), nor for a single word without
// context. Japanese, Chinese and Korean names are a family name of the
// tables followed by a given name of the tables, or by a space and a
// short run, or by an honorific suffix (さん, 様, 氏, 先生, 님 …).
//
// The tables (names_table.bin, made by internal/gennames from the person
// names of @faker-js/faker and the vocabulary in its words.go) hold only
// 32-bit hashes of folded words and their flags (package nameword).
//
// Cost: the scan visits capitalised word starts, found eight bytes at a
// time, and non-ASCII letters; ALL CAPS and CamelCase words are skipped
// at their second letter; a word is hashed as it is read (no allocation,
// no string map) and looked up by binary search in the bucket of its
// hash's top 12 bits (about seven words). A prefilter on the first three
// letters was tried and dropped: the tables start with most three-letter
// prefixes that text does (92% of capitalised words passed it).

//go:generate go run ./internal/gennames -o names_table.bin

//go:embed names_table.bin
var nameTable string

// The parts of nameTable: n hashes from nameKeys, n flags from
// nameFlags, 4097 index entries from nameIndex.
var (
	nameCount = int(le32(nameTable, 0))
	nameKeys  = 4
	nameFlags = 4 + 4*nameCount
	nameIndex = 4 + 6*nameCount
	nameCJK   = nameIndex + 2*4097
	// the English words' filter: its size in bits, then its bits
	nameEnglish  = nameCJK + 1<<16/8
	englishBits  = le32(nameTable, nameEnglish)
	englishStart = nameEnglish + 4
)

// englishWord reports whether the word with hash h is an English word
// that is no name of the tables (wrong for about 1% of other words).
func englishWord(h uint32) bool {
	for i := 0; i < nameword.BloomK; i++ {
		b := nameword.BloomBit(h, englishBits, i)
		if nameTable[englishStart+int(b>>3)]>>(b&7)&1 == 0 {
			return false
		}
	}
	return true
}

// cjkFirst reports whether some CJK surname of the tables starts with r
// (a bitmap: false for most characters).
func cjkFirst(r rune) bool {
	k := int(r & 0xffff)
	return nameTable[nameCJK+k>>3]>>(k&7)&1 != 0
}

func le32(s string, i int) uint32 {
	_ = s[i+3]
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

// nameLookup returns the flags of the word with hash h (0: not in the
// tables).
func nameLookup(h uint32) uint16 {
	t := nameTable
	b := int(h>>20) * 2
	p := unsafe.Pointer(unsafe.StringData(t))
	lo := int(*(*uint16)(unsafe.Add(p, nameIndex+b)))
	hi := int(*(*uint16)(unsafe.Add(p, nameIndex+b+2)))
	if bigEndian {
		lo, hi = int(bits.ReverseBytes16(uint16(lo))), int(bits.ReverseBytes16(uint16(hi)))
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		k := *(*uint32)(unsafe.Add(p, nameKeys+4*m))
		if bigEndian {
			k = bits.ReverseBytes32(k)
		}
		switch {
		case k == h:
			f := *(*uint16)(unsafe.Add(p, nameFlags+2*m))
			if bigEndian {
				f = bits.ReverseBytes16(f)
			}
			return f
		case k < h:
			lo = m + 1
		default:
			hi = m
		}
	}
	return 0
}

// The flags a word must have none of to be part of a name.
const notName = nameword.Stop | nameword.Org | nameword.Honorific | nameword.Greeting | nameword.Closing | nameword.Label | nameword.Suffix

// Word shapes.
const (
	shapeOther   = iota // camelCase, digits inside …: no name
	shapeCap            // Capitalised (McDonald, O'Brien, DiCaprio too)
	shapeUpper          // ALL CAPS
	shapeLower          // lower case
	shapeInitial        // one capital letter
)

// nameTok is a word as read for the person scan.
type nameTok struct {
	start, end int
	flags      uint16
	shape      uint8
	dot        bool // a '.' follows
	hash       uint32
}

// nameByte classifies ASCII bytes for words: 1 letter, 2 upper case, 4
// digit or '_'.
var nameByte = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = 1
		t[c-32] = 3
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = 4
	}
	t['_'] = 4
	return t
}()

// isCJK reports whether r is written without spaces between words: Han
// and its iteration mark, Hiragana, Katakana, Hangul.
func isCJK(r rune) bool {
	return r >= 0x3040 && r <= 0x30ff || r >= 0x3400 && r <= 0x9fff || r >= 0xac00 && r <= 0xd7a3 || r >= 0xf900 && r <= 0xfaff || r >= 0x20000 && r <= 0x2ffff || r == iterationMark
}

// iterationMark (々) repeats the Han character before it: part of a name
// (佐々木, 野々村, 奈々), though Unicode files it with the punctuation.
const iterationMark = 0x3005

// readWord reads the word of letters at i (i at a letter): apostrophes
// between letters (O'Brien, not the possessive 's) are inside it; a
// hyphen ends it. It stops at CJK characters.
func readWord(s string, i int) nameTok {
	var t nameTok
	readWordTo(&t, s, i)
	return t
}

// readWordTo is readWord into *t.
func readWordTo(t *nameTok, s string, i int) {
	n := len(s)
	if i >= n {
		*t = nameTok{start: i, end: i}
		return
	}
	if c := s[i]; nameByte[c] == 3 {
		// Most words: a capital and ASCII lower-case letters.
		h := nameword.Mix(nameword.Offset, rune(c|0x20))
		j := i + 1
		for j < n && nameByte[s[j]] == 1 {
			h = nameword.Mix(h, rune(s[j]))
			j++
		}
		if j == n || s[j] < 0x80 && nameByte[s[j]] == 0 && s[j] != '\'' {
			t.start, t.end, t.hash, t.shape, t.dot = i, j, h, shapeCap, j < n && s[j] == '.'
			if j == i+1 {
				t.shape = shapeInitial
			}
			t.flags = caseFlags(nameLookup(h), t.shape)
			return
		}
	}
	*t = nameTok{start: i, hash: nameword.Offset}
	letters, uppers, secondUpper, caseless := 0, 0, -1, 0
	firstUpper, digit := false, false
	for i < n {
		c := s[i]
		var r rune
		size := 1
		if c < utf8.RuneSelf {
			k := nameByte[c]
			if k == 0 {
				if (c == '\'') && i+1 < n && letters > 0 && nameByte[s[i+1]]&1 != 0 && !(s[i+1] == 's' && (i+2 >= n || nameByte[s[i+2]]&1 == 0)) {
					i++
					continue
				}
				break
			}
			if k == 4 {
				digit = true
				r = rune(c)
			} else {
				r = rune(c) | 0x20
				if k == 3 {
					if letters == 0 {
						firstUpper = true
					} else if secondUpper < 0 {
						secondUpper = letters
					}
					uppers++
				}
			}
		} else {
			r, size = utf8.DecodeRuneInString(s[i:])
			if r == '’' && letters > 0 && i+3 < n && nameByte[s[i+3]]&1 != 0 && !(s[i+3] == 's' && (i+4 >= n || nameByte[s[i+4]]&1 == 0)) {
				i += size
				continue
			}
			if isCJK(r) || !unicode.IsLetter(r) {
				if nameword.IgnoredMark(r) {
					i += size // an accent or vowel point of its letter
					continue
				}
				if letters > 0 && nameword.VowelSign(r) {
					// A vowel sign or virama (शर्मा): part of the word
					// and of its hash, no letter of its own.
					t.hash = nameword.Mix(t.hash, r)
					i += size
					continue
				}
				break
			}
			if unicode.IsUpper(r) {
				if letters == 0 {
					firstUpper = true
				} else if secondUpper < 0 {
					secondUpper = letters
				}
				uppers++
			} else if !unicode.IsLower(r) {
				caseless++
			}
			r = nameword.Fold(r)
		}
		t.hash = nameword.Mix(t.hash, r)
		letters++
		i += size
	}
	t.end = i
	switch {
	case digit || letters == 0:
		t.shape = shapeOther
	case letters == 1 && firstUpper:
		t.shape = shapeInitial
	case caseless == letters && letters > 1:
		// A script without case (Devanagari, Arabic, Hebrew, Thai):
		// its words may be names as capitalised ones are; without
		// context only the tables' names are.
		t.shape = shapeCap
	case uppers == 0:
		t.shape = shapeLower
	case firstUpper && uppers == 1:
		t.shape = shapeCap
	case uppers == letters:
		t.shape = shapeUpper
	case firstUpper && uppers == 2 && innerCapOK(s[t.start:t.end], secondUpper):
		t.shape = shapeCap
	default:
		t.shape = shapeOther
	}
	t.dot = i < n && s[i] == '.'
	if !digit && letters > 0 {
		t.flags = caseFlags(nameLookup(t.hash), t.shape)
	}
}

// innerCapOK: the second capital letter of w (at letter index k) follows a
// prefix of surnames: Mc, Mac, O', D', De, Di, Da, Du, La, Le, Van, Von,
// Fitz.
func innerCapOK(w string, k int) bool {
	if len(w) > 2 && (w[1] == '\'' || w[1] == 0xe2) {
		return k == 1
	}
	switch k {
	case 2:
		p := w[:2]
		return p == "Mc" || p == "De" || p == "Di" || p == "Da" || p == "Du" || p == "La" || p == "Le"
	case 3:
		p := w[:3]
		return p == "Mac" || p == "Van" || p == "Von"
	case 4:
		return w[:4] == "Fitz"
	}
	return false
}

// caseFlags is the flags f of a word of shape sh: a company form
// written in capitals (AG, IS) is Org only so written, a lower-case Org
// word (figli, ligure) only after a name.
func caseFlags(f uint16, sh uint8) uint16 {
	if f&nameword.OrgCase != 0 {
		if sh == shapeUpper || sh == shapeOther {
			f |= nameword.Org
		} else {
			f &^= nameword.Company // "is", "Sa": no company form
		}
	}
	return f
}

// nameScan is one scan for names: it emits into p, or (p nil) only
// records that it would find something.
type nameScan struct {
	s     string
	p     *pass
	found bool
	extra []uint32 // hashes of the policy's context words for person
	// from, when ≥ 0, is where the next name reported starts: a
	// honorific or greeting that is also a given name (Don, Kara).
	from int
	// labelColon: the run being read follows a label and a colon.
	labelColon bool
	// skipTo: where run1 refused a run as a brand's or a company's, the
	// end of the run, whose words start no name.
	skipTo int
	// The last word read (at ck-1): a run reads its words more than once.
	ck int
	cw nameTok
}

// word is readWord(sc.s, i), remembered: valid until the next call.
func (sc *nameScan) word(i int) *nameTok {
	if sc.ck != i+1 {
		readWordTo(&sc.cw, sc.s, i)
		sc.ck = i + 1
	}
	return &sc.cw
}

func (sc *nameScan) emit(start, end int, b Basis) {
	if end <= start {
		return
	}
	sc.found = true
	if sc.from >= 0 && sc.from < start {
		start = sc.from
	}
	if sc.p != nil {
		sc.p.emitBy(detPerson, b, start, end)
	}
}

// personExtra caches the hashes of the context words of the last Extra
// seen.
var personExtra atomic.Pointer[struct {
	e *Extra
	h []uint32
}]

func personExtraHashes(e *Extra) []uint32 {
	if e == nil || len(e.Context["person"]) == 0 {
		return nil
	}
	if c := personExtra.Load(); c != nil && c.e == e {
		return c.h
	}
	var hs []uint32
	for _, w := range e.Context["person"] {
		// The last word of a phrase ("account holder": holder).
		k := len(w)
		for k > 0 && w[k-1] == ' ' || k > 0 && w[k-1] == ':' {
			k--
		}
		j := k
		for j > 0 && w[j-1] != ' ' {
			j--
		}
		if j < k {
			hs = append(hs, readWord(w[j:k], 0).hash)
		}
	}
	personExtra.Store(&struct {
		e *Extra
		h []uint32
	}{e, hs})
	return hs
}

// scanPersons reports people's names.
func (p *pass) scanPersons() {
	sc := nameScan{s: p.s, p: p, extra: personExtraHashes(p.extra), from: -1}
	sc.run()
}

// personsClean reports whether scanPersons surely finds nothing in s
// (without operator context words: see personsCleanExtra).
func personsClean(s string) bool { return personsCleanExtra(s, nil) }

// personsCleanExtra is personsClean for a policy that adds e.
func personsCleanExtra(s string, e *Extra) bool {
	sc := nameScan{s: s, extra: personExtraHashes(e), from: -1}
	sc.run()
	return !sc.found
}

const swarLow7 = 0x7f7f7f7f7f7f7f7f

// capsOrHigh marks (high bit of each byte) the bytes of x that are ASCII
// capitals or non-ASCII.
func capsOrHigh(x uint64) uint64 {
	t := x & swarLow7
	ge := t + 0x3f3f3f3f3f3f3f3f // high bit: byte ≥ 'A'
	gt := t + 0x2525252525252525 // high bit: byte > 'Z'
	return (ge&^gt)&^x&swarHigh | x&swarHigh
}

// run scans sc.s.
func (sc *nameScan) run() {
	s := sc.s
	n := len(s)
	i := 0
	for i < n {
		for i+8 <= n {
			// Capitals and non-ASCII bytes (a capital inside a word is
			// skipped with its word).
			if m := capsOrHigh(load64(s, i)); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto found
			}
			i += 8
		}
		for i < n && s[i] < 0x80 && nameByte[s[i]] != 3 {
			i++
		}
		if i >= n {
			return
		}
	found:
		c := s[i]
		if c < 0x80 {
			if len(sc.extra) == 0 {
				// The cheap tests before a capitalised word is read, here
				// to save calls (each costs in the VM): a capital inside a
				// word (latin's), ALL CAPS and CamelCase (MM, MME:
				// honorifics), then what follows or comes before the
				// word: whether it may be part of a name.
				if i > 0 && (nameByte[s[i-1]] != 0 || s[i-1] >= 0x80 && letterBefore(s, i)) || i+1 < n && nameByte[s[i+1]] == 3 && c != 'M' {
					// skipWord, its ASCII letters here.
					i++
					for i < n && nameByte[s[i]] != 0 {
						i++
					}
					if i < n && s[i] >= 0x80 {
						i = skipWord(s, i)
					}
					continue
				}
				// Whether the word is worth reading and looking up: what
				// follows it or comes before it may make it part of a
				// name. A name of two words or more has a capital (or a
				// particle, then a capital) after a space, or a
				// honorific's dot or a greeting's comma before it; a name
				// of one word has a space or a line break before it (for
				// a label, a dash, a closing). First the word's end e:
				// most words end within eight bytes, one load.
				e := i + 1
				if e+8 <= n {
					x := load64(s, e)
					y := x & swarLow7
					lower := (y + 0x1f1f1f1f1f1f1f1f) &^ (y + 0x0505050505050505) &^ x & swarHigh
					if stop := ^lower & swarHigh; stop != 0 {
						e += bits.TrailingZeros64(stop) >> 3
					} else {
						e = lowerRun(s, e+8)
					}
				} else {
					e = lowerRun(s, e)
				}
				worth := e+2 >= n
				if !worth {
					switch a, b := s[e], s[e+1]; {
					case a >= 0x80 || a == '\'' || a == '-':
						worth = true // Müller, O'Brien, Jean-Pierre
					case a == ' ':
						worth = nameByte[b] == 3 || b >= 0x80 || nameByte[b] == 1 && (particleStart[b] != 0 && particleThenCap(s, e+1) || sonOf(s, e+1)) || dutchArticle(s, e+1)
					case a == '.' || a == ',':
						worth = b == ' ' && (nameByte[s[e+2]] == 3 || s[e+2] >= 0x80 || s[e+2]-'a' < 26)
					case a == ':':
						worth = b == ' ' && (nameByte[s[e+2]] == 3 || s[e+2] >= 0x80) // Patient: Siobhan Sullivan
					}
				}
				if !worth && i == 0 && s[e] == ' ' && nameByte[s[e+1]] == 1 {
					// One word opening the text: a verb may follow (Anna
					// möchte …, verbAfter); after a sentence's end the
					// test below passes it.
					worth = true
				}
				if !worth && i > 0 {
					// One word: context must come before it.
					switch s[i-1] {
					case '\n':
						worth = true
					case ' ', '\t':
						if i >= 2 {
							b := s[i-2]
							worth = nameByte[b]&1 != 0 || b == '.' || b == ':' || b == '-' || b >= 0x80 || b == '\n' || b == ' '
						}
					}
				}
				if !worth {
					i = e
					continue
				}
				i = sc.latinWord(i)
				continue
			}
			i = sc.latin(i)
			continue
		}
		if c < 0xc0 {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isCJK(r):
			i = sc.cjk(i)
		case unicode.IsUpper(r), caselessLetter(r) && !letterBefore(s, i):
			// A capital, or a word of a script without case (Hebrew,
			// Arabic, Devanagari…: श्री राजेश शर्मा).
			i = sc.latin(i)
		default:
			i += size
		}
		if sc.found && sc.p == nil {
			return
		}
	}
}

// caselessAt: the word at i is of a script without case.
func caselessAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return caselessLetter(r)
}

// caselessLetter: r is a letter of a script without case (Hebrew,
// Arabic, Devanagari…), whose names no capital marks.
func caselessLetter(r rune) bool {
	return r >= 0x590 && unicode.IsLetter(r) && !unicode.IsUpper(r) && !unicode.IsLower(r)
}

// letterBefore reports whether a letter, digit or '_' ends s[:i].
func letterBefore(s string, i int) bool {
	if i == 0 {
		return false
	}
	c := s[i-1]
	if c < 0x80 {
		return nameByte[c] != 0
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// Contexts a run may have.
const (
	ctxNone      = iota
	ctxHonorific // Mr, Frau, the policy's words: any name
	ctxGreeting  // Dear, Hi: a name of the tables
	ctxSignature // a dash or a closing line before: a name of the tables
	ctxLabel     // customer, patient, Kunde: any name of two words or more, one a name of the tables
)

// honorificTok: t is an honorific (a one-letter one needs its dot: M.).
func honorificTok(t *nameTok) bool {
	return t.flags&nameword.Honorific != 0 && (t.end-t.start > 1 || t.dot)
}

// honorificAt is honorificTok for the word t of s, where a one-letter
// honorific may also go without its dot before a capitalised word (M
// Jean Dupont).
func honorificAt(s string, t *nameTok) bool {
	return honorificTok(t) || t.flags&nameword.Honorific != 0 && t.end+1 < len(s) && s[t.end] == ' ' && nameByte[s[t.end+1]] == 3
}

// latin looks at the capitalised word at t and returns where to go on.
func (sc *nameScan) latin(t int) int {
	s := sc.s
	if letterBefore(s, t) {
		// Inside a word: go to its end.
		return skipWord(s, t)
	}
	// run's other tests pass every non-ASCII capital (a continuation
	// byte follows it), and are not made with the policy's context words.
	return sc.latinWord(t)
}

// latinWord is latin past its cheap tests (which run makes itself).
func (sc *nameScan) latinWord(t int) int {
	s := sc.s
	// sc.word(t), without the call around readWordTo: the word is
	// seldom the one last read.
	readWordTo(&sc.cw, s, t)
	sc.ck = t + 1
	w := &sc.cw
	if w.end == t {
		_, size := utf8.DecodeRuneInString(s[t:])
		return t + size
	}
	end := w.end
	if w.flags&(nameword.Honorific|nameword.Label|nameword.Greeting) == 0 && len(sc.extra) == 0 {
		// Most capitalised words start a sentence or a heading: unless
		// the tables know them or context comes before, nothing starts
		// here.
		// J. Smith, J. R. Smith: initials open a name that a surname of
		// the tables ends (run1); not inside U.S.
		initial := w.shape == shapeInitial && w.dot && (t == 0 || s[t-1] != '.')
		if w.shape != shapeCap && !initial {
			return w.end
		}
		if w.flags&(nameword.Given|nameword.Surname) == 0 && !initial {
			// An unknown word opens a name only after context, and with
			// a capitalised word after it (the customer Xylo Quarnby, my
			// name is Siobhan Sullivan).
			if e := w.end; e+1 >= len(s) || s[e] != ' ' || nameByte[s[e+1]] != 3 && s[e+1] < 0x80 {
				return w.end
			}
			ctx := sc.contextBefore(t)
			if ctx == ctxNone {
				return w.end
			}
			if e, ok := sc.run1(t, ctx); ok {
				return e
			}
			return w.end
		}
	}
	ctx := ctxNone
	switch {
	case honorificAt(s, w) || sc.isExtra(w.hash):
		ctx = ctxHonorific
	case w.flags&nameword.Label != 0:
		ctx = ctxLabel
	case w.flags&nameword.Greeting != 0:
		ctx = ctxGreeting
	}
	if ctx != ctxNone {
		// The words after it, past further honorifics (Dear Mr, Herr Dr.).
		pos := w.end
		sc.labelColon = ctx == ctxLabel && pos < len(s) && s[pos] == ':'
		if sc.labelColon {
			pos++ // Patient: Siobhan Sullivan
		}
		for k := 0; k < 4; k++ {
			pos = skipAfterWord(s, pos, ctx == ctxGreeting)
			if pos < 0 || pos >= len(s) {
				return w.end
			}
			nx := sc.word(pos)
			if nx.end == pos || !honorificTok(nx) {
				break
			}
			ctx, pos = ctxHonorific, nx.end
		}
		sc.from = -1
		if w.flags&nameword.Given != 0 && w.shape == shapeCap && !w.dot {
			sc.from = t // Don Juan, Kara Bednar: the word is a name too
		}
		if nx := sc.word(pos); ctx == ctxHonorific && nx.end > pos && brandPair(s, t, nx.end) {
			return nx.end // Dr Pepper, Dr. Oetker: a brand
		}
		e, ok := sc.run1(pos, ctx)
		sc.from = -1
		if ok {
			return e
		}
		return end
	}
	ctx = sc.contextBefore(t)
	if ctx == ctxNone {
		// An honorific, then the particles that open the surname
		// (mevrouw de Koning, meneer van der Berg): the name starts at
		// them.
		if p := particlesBefore(s, t); p < t && sc.contextBefore(p) == ctxHonorific {
			if e, ok := sc.run1(p, ctxHonorific); ok {
				return e
			}
		}
	}
	sc.skipTo = 0
	if e, ok := sc.run1(t, ctx); ok {
		return e
	}
	return max(end, sc.skipTo)
}

// particlesBefore is where the lower-case particles (at most two, each
// followed by one space) before the word at t start: t when there are
// none.
func particlesBefore(s string, t int) int {
	p := t
	for n := 0; n < 2 && p >= 2 && s[p-1] == ' '; n++ {
		k := lettersBefore(s, p-1)
		if w := readWord(s, k); k == p-1 || w.end != p-1 || w.shape != shapeLower || w.flags&nameword.Particle == 0 {
			break
		}
		p = k
	}
	return p
}

// particleThenCap: up to three short lower-case words from i, each
// followed by a space (or an apostrophe), then a capital: the particles
// of a name (van der Berg, de la Cruz, d'Alembert).
func particleThenCap(s string, i int) bool {
	n := len(s)
	if particleStart[s[i]] == 0 {
		return false
	}
	for k := 0; k < 3; k++ {
		// lowerRun, to six letters (more is no particle).
		j := i
		for j < n && j-i <= 5 && nameByte[s[j]] == 1 {
			j++
		}
		if j == i || j-i > 5 || j+1 >= n || s[j] != ' ' && s[j] != '\'' {
			return false
		}
		i = j + 1
		if nameByte[s[i]] == 3 || s[i] >= 0x80 || dutchArticle(s, i) {
			return true
		}
	}
	return false
}

// particleStart marks the first letters of particles.
var particleStart = func() (t [256]uint8) {
	for _, c := range "abdehilotvyz" {
		t[c] = 1
	}
	return t
}()

// lowerRun returns the end of the run of ASCII lower-case letters from i,
// eight bytes at a time.
func lowerRun(s string, i int) int {
	n := len(s)
	for i+8 <= n {
		x := load64(s, i)
		t := x & swarLow7
		lower := (t + 0x1f1f1f1f1f1f1f1f) &^ (t + 0x0505050505050505) &^ x & swarHigh
		if stop := ^lower & swarHigh; stop != 0 {
			return i + bits.TrailingZeros64(stop)>>3
		}
		i += 8
	}
	for i < n && nameByte[s[i]] == 1 {
		i++
	}
	return i
}

// skipWord returns the end of the word of letters around t.
func skipWord(s string, t int) int {
	for t < len(s) {
		c := s[t]
		if c < 0x80 {
			if nameByte[c] == 0 {
				return t
			}
			t++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[t:])
		if !unicode.IsLetter(r) || isCJK(r) {
			return t
		}
		t += size
	}
	return t
}

// skipAfterWord skips what may follow a context word before the name: a
// dot, spaces (a comma too after a greeting: "Hello, Anna"). -1 if not
// followed by a space.
func skipAfterWord(s string, i int, greeting bool) int {
	if i < len(s) && s[i] == '.' {
		i++
	}
	if greeting && i < len(s) && s[i] == ',' {
		i++
	}
	k := i
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i == k || i-k > 3 {
		return -1
	}
	return i
}

func (sc *nameScan) isExtra(h uint32) bool {
	for _, x := range sc.extra {
		if x == h {
			return true
		}
	}
	return false
}

// contextBefore looks before the run at t for a lower-case label or
// honorific (customer, mr), a policy's context word, a dash of a
// signature, or a closing on the line before.
func (sc *nameScan) contextBefore(t int) int {
	s := sc.s
	i := t
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	if i == 0 || i == t && s[i-1] != '\n' {
		return ctxNone
	}
	// A dash: "— Jean Dupont", "-- Anna", at a line start or after a space.
	if c := s[i-1]; c == '-' || c == 0x94 || c == 0x93 {
		j := i - 1
		if c != '-' {
			if j < 2 || s[j-2] != 0xe2 || s[j-1] != 0x80 {
				return ctxNone
			}
			j -= 2
		} else if j > 0 && s[j-1] == '-' {
			j--
		}
		for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
			j--
		}
		if j == 0 || s[j-1] == '\n' {
			return ctxSignature // at a line's start: "— Jean Dupont"
		}
		return ctxNone // "Crona - Graham": a company
	}
	if s[i-1] == '\n' || s[i-1] == ',' {
		// The last word of the line before (past one blank line), or
		// before the comma on this one: a closing? ("Kind regards,\n\n
		// Aoife", "Regards, Siobhan")
		j := i - 1
		for lines := 0; j > 0; j-- {
			c := s[j-1]
			if c == '\n' {
				if lines++; lines > 1 {
					break
				}
				continue
			}
			if c != '\r' && c != ' ' && c != ',' && c != '!' && c != '.' && c != '\t' {
				break
			}
		}
		k := lettersBefore(s, j)
		if k < j && readWord(s, k).flags&nameword.Closing != 0 {
			return ctxSignature
		}
		return ctxNone
	}
	// The word before, as a label or honorific in any case.
	if s[i-1] == '.' || s[i-1] == ':' {
		i--
	}
	k := lettersBefore(s, i)
	if k == i {
		return ctxNone
	}
	pw := readWord(s, k)
	if pw.end != i && !(pw.end == i-1 && s[i-1] == '.') {
		return ctxNone
	}
	if honorificTok(&pw) && pw.end-pw.start > 1 || sc.isExtra(pw.hash) {
		return ctxHonorific
	}
	if k >= 2 && (s[k-1] == '-' || s[k-1] == '.') {
		// An honorific the reader reads as two words: г-н, Г-жа, Sig.ra,
		// Dott.ssa.
		if j := lettersBefore(s, k-1); j < k-1 && nameLookup(nameword.Hash(s[j:pw.end]))&nameword.Honorific != 0 {
			return ctxHonorific
		}
	}
	if pw.flags&nameword.Label != 0 || nameIsBefore(s, &pw) {
		return ctxLabel
	}
	return ctxNone
}

// The words of "my name is" in the locales of 12.9, as hashes: the
// copula, the noun before it, and a person's possessive before that
// (my name is, mein Name ist, mijn naam is, meu nome é, il mio nome è,
// mit navn er, mi nombre es, mon nom est, mitt namn är, moje nazwisko
// to; Finnish nimeni on is "my name is"). "The product name is Visual
// Studio" names no one.
var (
	copulaHashes     = wordHashes("is", "ist", "é", "è", "er", "on", "es", "est", "är", "to")
	nameNounHashes   = wordHashes("name", "naam", "nome", "navn", "nombre", "nom", "namn", "nazwisko")
	possessiveHashes = wordHashes("my", "your", "his", "her", "their", "mein", "dein", "sein", "ihr", "mijn", "zijn", "haar", "uw",
		"meu", "seu", "mio", "suo", "mi", "su", "tu", "mon", "son", "ton", "mitt", "ditt", "sitt", "hans", "hennes", "mit", "dit", "moje", "jego", "jej")
	nimeniHash = nameword.Hash("nimeni")
)

func wordHashes(ws ...string) []uint32 {
	hs := make([]uint32, len(ws))
	for i, w := range ws {
		hs[i] = nameword.Hash(w)
	}
	return hs
}

// nameIsBefore reports whether pw, the word before a name, is the copula
// of "my name is" (the name a speaker gives as their own).
func nameIsBefore(s string, pw *nameTok) bool {
	if pw.end-pw.start > 3 || !slices.Contains(copulaHashes, pw.hash) {
		return false
	}
	j := pw.start
	if j < 2 || s[j-1] != ' ' {
		return false
	}
	k := lettersBefore(s, j-1)
	if k == j-1 {
		return false
	}
	nw := readWord(s, k)
	if nw.end != j-1 {
		return false
	}
	if nw.hash == nimeniHash {
		return true
	}
	if !slices.Contains(nameNounHashes, nw.hash) || k < 2 || s[k-1] != ' ' {
		return false
	}
	m := lettersBefore(s, k-1)
	if m == k-1 {
		return false
	}
	mw := readWord(s, m)
	return mw.end == k-1 && slices.Contains(possessiveHashes, mw.hash)
}

// nameGroup is a word of a run: its parts joined by hyphens.
type nameGroup struct {
	start, end int
	hash       uint32 // of the first part
	org        bool   // a part is a company, street or place word and no name
	first      uint16 // flags of the first part
	any        uint16 // of every part
	shape      uint8  // of the first part
	parts      int
	initial    bool
}

// maxGroups is the most words a name has.
const maxGroups = 6

// run1 reads the run of name words from t and reports it if its context
// ctx or the tables make it a name; it returns the end of what it
// reported.
func (sc *nameScan) run1(t int, ctx int) (int, bool) {
	s := sc.s
	var gs [maxGroups]nameGroup
	k := 0
	pos := t
	leading := ctx != ctxNone // particles may open the run after context (Dhr. de Vries)
	lead := false             // they did
	after := -1               // where the word after the run starts (-1: none)
	for k < maxGroups && pos < len(s) {
		// Particles before the next word: van der, de la, da.
		q := pos
		np := 0
		for np < 3 && q < len(s) && (s[q]-'a' < 26 || k > 0 && s[q]-'A' < 26 || s[q] == '\'') {
			if k > 0 && sonOf(s, q) {
				// Rajesh s/o Kumar, Priya d/o Raman (Singapore,
				// Malaysia: son of, daughter of).
				q += 4
				np++
				continue
			}
			if dutchArticle(s, q) { // van 't Hof, 's Gravensande
				q += 3
				np++
				continue
			}
			if s[q] == '\'' {
				break
			}
			pw := sc.word(q)
			if pw.end == q || pw.flags&nameword.Particle == 0 || pw.shape != shapeLower && !(pw.shape == shapeUpper && upperAfter(s, pw.end)) {
				break // VAN DEN BROEK after a given name: particles in capitals
			}
			nq := pw.end
			if nq < len(s) && s[nq] == ' ' {
				nq++
			} else if nq < len(s) && (s[nq] == '\'' || s[nq] == '-') { // d'Alembert, dell'Acqua
				nq++
			} else {
				break
			}
			q = nq
			np++
		}
		if np > 0 && k == 0 && !leading {
			break
		}
		g, ok := sc.group(q)
		if !ok || !nameWordOK(&g, k) && !(k > 0 && g.shape == shapeUpper && g.end-g.start >= 5 && g.first&notName == 0 && gs[0].shape == shapeCap && gs[0].first&(nameword.Given|nameword.Common) == nameword.Given) {
			// (Robert RUTOWICZ: a surname in capitals after a given
			// name that is no common word, though the tables lack it.)
			after = q
			break
		}
		if ctx == ctxNone && k > 0 && g.first&(nameword.Given|nameword.Surname|nameword.Particle) == 0 && caselessAt(s, g.start) {
			// In a script without case a word the tables do not know ends
			// the name (أفاد خليل العجلان بأن الطرد: "reported Khalil
			// al-Ajlan that the parcel"); after context, it may be one.
			after = q
			break
		}
		if k == 0 && np > 0 {
			g.start, lead = pos, true // the particles open the name
		}
		gs[k] = g
		k++
		// What joins it to the next word: one space, or ". " after an
		// initial.
		e := g.end
		if e < len(s) && s[e] == '.' && g.initial {
			e++
		}
		if e < len(s) && s[e] == ' ' && e+1 < len(s) {
			pos = e + 1
			continue
		}
		if e < len(s) && s[e] == ' ' {
			break
		}
		if e+1 < len(s) && s[e] == '&' {
			after = e
		}
		break
	}
	if k > 0 && k < maxGroups && after >= 0 {
		// A name does not end with a particle: the word after one is the
		// surname, however it is cased (De rosa, Di marzio, as records
		// and careless typing write them).
		if last := &gs[k-1]; last.parts == 1 && last.shape == shapeCap && last.first&nameword.Particle != 0 && surnameOpener(s[last.start:last.end]) {
			if w := sc.word(after); w.shape == shapeLower && w.end-w.start >= 3 && w.flags&(nameword.Given|nameword.Surname) != 0 && w.flags&(nameword.Particle|nameword.Stop|nameword.Org) == 0 {
				gs[k] = nameGroup{start: w.start, end: w.end, first: w.flags | nameword.Surname, any: w.flags | nameword.Surname, shape: shapeCap, parts: 1}
				k++
				after = -1
			}
		}
	}
	trimmed := k
	for k > 0 && gs[k-1].initial {
		k--
	}
	if k == 0 {
		return 0, false
	}
	if k < trimmed && dottedCompanyForm(s, gs[k].start) {
		return 0, false // Guerin Lefort S.A.S., Souza Silva S/A: the initials are a company form
	}
	if ctx == ctxSignature && !signatureEnd(s, gs[k-1].end) {
		// "- Branch at the office" (a list item), "Grazie, Antioco
		// Diamanti!" (thanks in a sentence): no signature, the tables
		// decide.
		ctx = ctxNone
	}
	// Next to a company form, '&', a street or place word: no person.
	if after >= 0 && after < len(s) {
		if s[after] == '&' {
			return 0, false
		}
		if nw := sc.word(after); nw.end > after && nw.flags&nameword.Org != 0 {
			sc.skipTo = gs[k-1].end // Thomas Müller Stiftung: none of its words
			return 0, false
		}
	}
	if e := gs[k-1].end; e+2 < len(s) && s[e] == ' ' && s[e+1] == '&' {
		return 0, false
	}
	if ctx == ctxNone && companyChain(s, gs[k-1].end) {
		sc.skipTo = gs[k-1].end
		return 0, false // "Smith, Inc.", "Zepeda y Pelayo Medina Asociados"
	}
	if e := gs[k-1].end; ctx == ctxNone && e+4 <= len(s) && s[e:e+4] == " s/n" {
		return 0, false // a street without number
	}
	if ctx == ctxNone && (orgBefore(s, t) || digitAround(s, gs[0].start, gs[k-1].end)) {
		return 0, false // Rue Victor Hugo, 10807 Reanna Ridge
	}
	if ctx == ctxNone && placeInBefore(s, t) && !possessiveAfter(s, gs[k-1].end) {
		return 0, false // takes place in Upton Beier, en Palma de Mallorca
	}
	for j := 0; j < k; j++ {
		if gs[j].org {
			return 0, false // Karl-Marx-Straße
		}
	}
	var table bool
	caseless := true
	for j := 0; j < k; j++ {
		if gs[j].any&(nameword.Given|nameword.Surname) != 0 {
			table = true
		}
		if r, _ := utf8.DecodeRuneInString(s[gs[j].start:]); !caselessLetter(r) {
			caseless = false
		}
	}
	if caseless && ctx == ctxLabel {
		table = true // a script without case: the tables hold none of its names (Patient: أحمد محمد)
	}
	if sc.from >= 0 && gs[0].first&nameword.Given != 0 && !lead {
		sc.from = -1 // Hi Tom, Don Juan: the word was a greeting or honorific
	}
	switch ctx {
	case ctxHonorific:
		end := invertedEnd(s, gs[k-1].end)
		sc.emit(gs[0].start, end, BasisContext)
		return end, true
	case ctxLabel:
		// A label is also a department's or a role's first word
		// (Customer Success, Patient Care): one word after it is a
		// name only when the tables know it as one and as nothing else.
		// After "Label:" (a record's field, as often a company's or a
		// team's: Customer: Northwind Traders, Owner: Platform
		// Engineering) more words need one the tables know as a name.
		if k > 1 && (table || !sc.labelColon) || gs[0].first&(nameword.Given|nameword.Surname) != 0 && gs[0].first&nameword.Common == 0 {
			end := invertedEnd(s, gs[k-1].end)
			if end == gs[k-1].end {
				end = max(end, proseInverted(s, gs[:k])) // Der Kunde Dilla, Irem hat angerufen
			}
			sc.emit(gs[0].start, end, BasisContext)
			return end, true
		}
		return 0, false
	case ctxGreeting, ctxSignature:
		// A name of the tables first, or one among more words (Dear
		// Aoife Murphy: the given name is rare, the surname is known).
		if gs[0].first&(nameword.Given|nameword.Surname) != 0 && (k > 1 || gs[0].first&nameword.Common == 0 || ctx == ctxGreeting) || k > 1 && table {
			sc.emit(gs[0].start, gs[k-1].end, BasisContext)
			return gs[k-1].end, true
		}
	}
	if ctx == ctxNone && k >= 2 && brandPair(s, gs[0].start, gs[1].end) {
		// Calvin Klein, Morgan Stanley, Martin Luther King…: and no word
		// of the run starts a name (Johnnie Walker Black Label).
		sc.skipTo = gs[k-1].end
		return 0, false
	}
	if e := gs[k-1].end; ctx == ctxNone && e+2 < len(s) && s[e] == '.' && s[e+1] == ' ' && sc.word(e+2).flags&nameword.Org != 0 {
		return 0, false // Martin Luther King Jr. Boulevard
	}
	if ctx == ctxNone && k >= 2 {
		// Faith Hill Concert Tickets, Susan Sticker Abacus, Baby Lid
		// Report: a heading's Title Case, where two words or more are no
		// names of the tables (a capitalised word that ended the run
		// counts).
		unknown := 0
		if after >= 0 && after < len(s) && nameByte[s[after]] == 3 {
			unknown++
		}
		for j := 0; j < k; j++ {
			if gs[j].any&(nameword.Given|nameword.Surname|nameword.Particle) == 0 && !gs[j].initial {
				unknown++
			}
		}
		if unknown >= 2 {
			return 0, false
		}
	}
	// The tables: from each word of the run, a given name and what follows.
	for j := 0; j+1 < k; j++ {
		a, b := &gs[j], &gs[j+1]
		if a.initial {
			// J. Smith, J. R. Smith, G. Gálvez Urrutia, Q. De Blasi:
			// initials, then a surname of the tables.
			m := j + 1
			for m < k-1 && (gs[m].initial || gs[m].first&nameword.Particle != 0) {
				m++
			}
			rest := true // what follows the surname is names too (Gálvez Urrutia; not A. Wagner Act)
			for _, g := range gs[m+1 : k] {
				rest = rest && g.any&(nameword.Given|nameword.Surname) != 0
			}
			if c := &gs[m]; rest && c.shape == shapeCap && c.first&nameword.Surname != 0 && c.first&nameword.Stop == 0 {
				sc.emit(a.start, gs[k-1].end, BasisNameTable)
				return gs[k-1].end, true
			}
			continue
		}
		if a.shape != shapeCap || a.first&(nameword.Particle|nameword.Org) != 0 {
			continue // La Rochelle, Lake Pauline: a particle or place word opens no name here
		}
		if j > 0 && ctx == ctxNone && gs[j-1].first&nameword.Org != 0 {
			continue // Santa Cruz de Tenerife: a name after a place word is the place's
		}
		ok := false
		switch {
		case a.first&nameword.Given != 0 && a.first&nameword.Common == 0:
			// An unambiguous given name: a capitalised word follows that is
			// not only a common word or another name that is a common word.
			// In a script without case no capital says the next word is a
			// name: the tables must know it as one (جميل حقا, "really
			// nice", is no name; أحمد العتيبي is).
			ok = (b.first&nameword.Common == 0 || b.first&nameword.Surname != 0 ||
				b.first&nameword.Given != 0 && k > j+2 && gs[j+2].first&nameword.Surname != 0) && // Ana Júlia Martins
				(!caseless || b.any&(nameword.Given|nameword.Surname) != 0) &&
				// A word the tables do not know that is an English word is
				// a heading's (Art Director, Iris Scanner, Gene Therapy).
				(b.any&(nameword.Given|nameword.Surname) != 0 || ctx != ctxNone || !englishWord(b.hash))
		case a.first&nameword.Given != 0:
			ok = b.first&(nameword.Surname|nameword.Given) != 0 && b.first&nameword.Common == 0
		case a.first&nameword.Surname != 0 && a.first&nameword.Common == 0:
			// Dupont Jean; not Kemmer Heath, Sawayn Green (a town: the
			// last word is a place word too).
			ok = b.first&nameword.Given != 0 && b.first&(nameword.Common|nameword.Org) == 0 && k == j+2
		}
		if !ok && a.first&nameword.Surname != 0 && k == j+3 {
			// Tan Wei Ming: a surname, then two given names.
			c := &gs[j+2]
			ok = b.first&nameword.Given != 0 && c.first&nameword.Given != 0 && (b.first|c.first)&nameword.Common == 0
		}
		if ok {
			end := gs[k-1].end
			if j == 0 {
				// Rubio Jaime, Andrés: two surnames, then the given name.
				end = max(end, proseInverted(s, gs[:k]))
			}
			sc.emit(a.start, end, BasisNameTable)
			return end, true
		}
	}
	if ctx == ctxNone && k == 1 && (sc.verbAfter(&gs[0], after) || sc.verbBefore(&gs[0])) {
		sc.emit(gs[0].start, gs[0].end, BasisContext)
		return gs[0].end, true
	}
	if ctx == ctxNone && !joinerBefore(s, gs[0].start) {
		// Smith, John; García López, Ana: surnames, a comma, a given
		// name (not "Littel and Weissnat, Cole - D'Amore": a firm's).
		if end := proseInverted(s, gs[:k]); end > 0 {
			sc.emit(gs[0].start, end, BasisNameTable)
			return end, true
		}
	}
	return 0, false
}

// loneName: the word g may be a name alone beside its speaker's verb: a
// given name or surname of the tables that is no common word, place or
// particle.
func loneName(g *nameGroup) bool {
	return g.first&(nameword.Given|nameword.Surname) != 0 && g.first&(nameword.Common|nameword.Org|nameword.Particle) == 0
}

// verbAfter reports whether g, a capitalised name of the tables alone
// (no common word: May said, Will asked), is followed by the verb of its
// speaker at after: Lindgren ringde igen, Anna möchte die Rechnung,
// Korhonen kertoi.
func (sc *nameScan) verbAfter(g *nameGroup, after int) bool {
	if g.shape != shapeCap || !loneName(g) || after != g.end+1 || sc.s[g.end] != ' ' {
		return false
	}
	if joinerBefore(sc.s, g.start) {
		return false // Schowalter, Barton and Bayer reported: a firm's
	}
	if st := g.start; st >= 2 && sc.s[st-1] == ' ' {
		// Not the last word of a run the rules above refused (Ralph
		// Lauren reported, Aston Martin said: a brand's).
		if k := lettersBefore(sc.s, st-1); k < st-1 {
			if r, _ := utf8.DecodeRuneInString(sc.s[k:]); unicode.IsUpper(r) {
				return false
			}
		}
	}
	w := sc.word(after)
	return (w.shape == shapeLower || caselessAt(sc.s, after)) && w.flags&nameword.Verb != 0
}

// verbBefore reports whether g, a name of the tables alone in a script
// without case, follows its speaker's verb: Arabic puts the verb first
// (طلب وسيم إرسال الفاتورة, "Wasim asked to send the invoice").
func (sc *nameScan) verbBefore(g *nameGroup) bool {
	s := sc.s
	if !loneName(g) || g.start < 2 || s[g.start-1] != ' ' || !caselessAt(s, g.start) {
		return false
	}
	k := lettersBefore(s, g.start-1)
	if k == g.start-1 {
		return false
	}
	w := sc.word(k)
	return w.end == g.start-1 && w.flags&nameword.Verb != 0
}

// invertedCommon: the flags a given name after the words gs and a comma
// must lack ("Surname, Given"): Common when gs are capitalised surnames
// of the tables and no stop word, one also a common word (Savage,
// Winter: Savage, Christina but not Woods, Dawn); none when no word is;
// every flag when gs are no surnames.
func invertedCommon(gs []nameGroup) uint16 {
	var c uint16
	for j := range gs {
		if gs[j].shape != shapeCap || gs[j].first&nameword.Surname == 0 || gs[j].first&nameword.Stop != 0 {
			return ^uint16(0)
		}
		c |= gs[j].first & nameword.Common
	}
	return c
}

// proseInverted: after the surnames gs, ", " and a given name of the
// tables that has none of the flags invertedCommon(gs) (Common after a
// surname that is also a common word: Silva, Carolina but not Woods, Dawn),
// perhaps a second one or an initial (Smith, John A.): the end of the
// given names, or 0.
func proseInverted(s string, gs []nameGroup) int {
	e := gs[len(gs)-1].end
	if e+2 >= len(s) || s[e] != ',' || s[e+1] != ' ' {
		return 0
	}
	common := invertedCommon(gs)
	end := 0
	for i, n := e+2, 0; n < 2 && i < len(s); n++ {
		w, ok := readGroup(s, i) // Niemi, Marja-Liisa
		if ok && n > 0 && w.initial {
			end = w.end + 1
			break
		}
		if !ok || w.shape != shapeCap || w.first&nameword.Given == 0 || w.first&notName != 0 || w.first&common != 0 {
			break
		}
		end = w.end
		if end+1 >= len(s) || s[end] != ' ' {
			break
		}
		i = end + 1
	}
	if end > 0 && chainNext(s, end) {
		return 0 // Schowalter, Barton and Bayer: a firm's names
	}
	if end+1 < len(s) && s[end] == ' ' && (nameByte[s[end+1]] == 3 || s[end+1] >= 0x80 || s[end+1] == '-' || s[end+1] == '&' || particleThenCap(s, end+1) && readWord(s, end+1).flags&nameword.Particle != 0) {
		return 0 // Esther Jamrozy, Nino Wanner, Mila van der Sprong: the next name of a list; Cole - D'Amore
	}
	return end
}

// upperAfter: a space and two capitals follow i.
func upperAfter(s string, i int) bool {
	return i+2 < len(s) && s[i] == ' ' && nameByte[s[i+1]] == 3 && nameByte[s[i+2]] == 3
}

// joinerBefore: a joiner (and, und, y …) and a space come before i.
func joinerBefore(s string, i int) bool {
	if i < 3 || s[i-1] != ' ' {
		return false
	}
	k := lettersBefore(s, i-1)
	return k < i-1 && i-1-k <= 3 && nameJoiner(s[k:i-1]) && (k == 0 || s[k-1] == ' ')
}

// chainNext: a joiner (and, und, y …) or a comma and a capital follow e:
// the name before e is one of a chain of names (a firm's).
func chainNext(s string, e int) bool {
	i := e
	if i+2 < len(s) && s[i] == ',' && s[i+1] == ' ' {
		return nameByte[s[i+2]] == 3
	}
	if i+1 >= len(s) || s[i] != ' ' {
		return false
	}
	w := readWord(s, i+1)
	if w.end == i+1 || w.shape != shapeLower || !nameJoiner(s[w.start:w.end]) || w.end+1 >= len(s) || s[w.end] != ' ' {
		return false
	}
	return nameByte[s[w.end+1]] == 3 || s[w.end+1] >= 0x80
}

// signatureEnd reports whether a signature's name ending at e ends its
// line: past spaces and a full stop, the text ends, the line does, or a
// comma, bracket or bar brings the sender's title (— Jean Dupont, CEO).
func signatureEnd(s string, e int) bool {
	for e < len(s) && (s[e] == ' ' || s[e] == '\t' || s[e] == '.') {
		e++
	}
	if e == len(s) {
		return true
	}
	switch s[e] {
	case '\n', '\r', ',', '(', '|', '<', '"', '\\':
		return true // '"' and '\\': a string's end or its escaped line break
	}
	return false
}

// dutchArticle: 't or 's and a space at q, the contracted articles of
// Dutch surnames (van 't Hof, 's Gravensande).
func dutchArticle(s string, q int) bool {
	return q+4 <= len(s) && s[q] == '\'' && (s[q+1] == 't' || s[q+1] == 's') && s[q+2] == ' ' && nameByte[s[q+3]] == 3
}

// surnameOpener: particle p (capitalised) opens a surname and is no name
// or word of its own (unlike Le, Van, Do or Al, which are).
func surnameOpener(p string) bool {
	switch p {
	case "De", "Di", "Da", "Del", "Della", "Dos", "Das", "Du", "Des", "Von", "Der", "Dal", "Dalla", "Degli":
		return true
	}
	return false
}

// sonOf reports whether "s/o ", "d/o ", "a/l " or "a/p " (son or
// daughter of, in Singapore and Malaysia) starts at q.
func sonOf(s string, q int) bool {
	if q+4 > len(s) || s[q+1] != '/' || s[q+3] != ' ' {
		return false
	}
	switch s[q : q+3] {
	case "s/o", "d/o", "a/l", "a/p":
		return true
	}
	return false
}

// invertedEnd: a name after context that ends at e before a comma goes
// on over the given names after it when they fill the field ("Patient:
// Smith, John A.", keys.go's invertedGiven); else it ends at e.
func invertedEnd(s string, e int) int {
	if e < len(s) && s[e] == ',' {
		if t := invertedGiven(s, e+1, fieldEnd(s, e+1)); t > 0 {
			return t
		}
	}
	return e
}

// companyChain: from i, a chain of capitalised words joined by spaces,
// commas, '&', '-' and y, e, and, und, et, en, og, och ends in a company
// form (Becerra Martínez y León Asociados, Müller & Söhne).
func companyChain(s string, i int) bool {
	for n := 0; n < 10 && i < len(s); n++ {
		for i < len(s) && (s[i] == ' ' || s[i] == ',' || s[i] == '&' || s[i] == '-') {
			i++
		}
		if i >= len(s) {
			return false
		}
		if dottedCompanyForm(s, i) {
			return true
		}
		w := readWord(s, i)
		switch {
		case w.end == i:
			return false
		case w.flags&nameword.Company != 0:
			return true
		case w.shape == shapeLower && w.end-w.start <= 3:
			if !nameJoiner(s[w.start:w.end]) {
				return false
			}
		case w.shape != shapeCap && w.shape != shapeUpper:
			return false
		}
		i = w.end
		if i < len(s) && s[i] == '.' {
			i++
		}
	}
	return false
}

// nameJoiner: w joins the names of a chain (Becerra y León, Müller und
// Söhne).
//
//go:noinline
func nameJoiner(w string) bool {
	switch w {
	case "y", "e", "and", "und", "et", "en", "og", "och", "i":
		return true
	}
	return false
}

// dottedCompanyForm: a company form written as letters with dots or
// slashes starts at i (S.A.S., S.A.R.L., e.V., S.p.A., S/A, A/S, B.V.):
// two to six single letters, each followed by '.' or '/' but perhaps
// the last, which together are a company form of the table (SAS, eV)
// with a capital (not e.g.), ending at a word's end. Read as words they
// are initials, which a name takes in (J. R. R. Tolkien).
func dottedCompanyForm(s string, i int) bool {
	h := nameword.Offset
	letters, uppers := 0, 0
	for i < len(s) && letters < 6 {
		c := s[i]
		if !isASCIILetter(c) || i+1 < len(s) && isASCIILetter(s[i+1]) {
			break
		}
		h = nameword.Mix(h, rune(c|0x20))
		letters++
		if c < 'a' {
			uppers++
		}
		i++
		if i < len(s) && (s[i] == '.' || s[i] == '/') {
			i++
			continue
		}
		break
	}
	if letters < 2 || uppers == 0 || i < len(s) && (nameByte[s[i]] != 0 || s[i] >= 0x80) {
		return false
	}
	shape := uint8(shapeOther)
	if uppers == letters {
		shape = shapeUpper
	}
	return caseFlags(nameLookup(h), shape)&nameword.Company != 0
}

// brandPair: s[i:j], two words with a space, is a brand named after a
// person (folded and hashed as the generator hashes "Calvin Klein"; '&'
// and a second space are left out: Ben & Jerry).
func brandPair(s string, i, j int) bool {
	h := nameword.Offset
	space := false
	for _, r := range s[i:j] {
		switch {
		case r == ' ':
			if space {
				continue
			}
			space = true
		case r == '&' || r == '\'' || r == '’' || r == '.' || r == '-':
			continue
		default:
			space = false
		}
		if r < utf8.RuneSelf {
			if r >= 'A' && r <= 'Z' { // nameword.Fold's ASCII, without a call
				r += 'a' - 'A'
			}
		} else {
			r = nameword.Fold(r)
		}
		h = nameword.Mix(h, r)
	}
	return nameLookup(h)&nameword.Brand != 0
}

// digitAround: a number stands just before start or after end (a house
// number: 10807 Reanna Ridge, Rincón Eva 4).
func digitAround(s string, start, end int) bool {
	if start >= 2 && s[start-1] == ' ' && nameByte[s[start-2]] == 4 && s[start-2] != '_' {
		return true
	}
	return end+1 < len(s) && s[end] == ' ' && s[end+1]-'0' < 10
}

// lettersBefore is where the run of letters ending at i starts (i when
// none ends there).
func lettersBefore(s string, i int) int {
	k := i
	for k > 0 {
		if c := s[k-1]; c < utf8.RuneSelf {
			// letterBefore's ASCII case, without its calls.
			if nameByte[c] == 0 {
				break
			}
			k--
			continue
		}
		if !letterBefore(s, k) {
			break
		}
		_, size := utf8.DecodeLastRuneInString(s[:k])
		k -= size
	}
	return k
}

// orgBefore: the word before t is a street, place or company word (Rue
// Victor Hugo, Via Giuseppe Verdi, San Martín).
func orgBefore(s string, t int) bool {
	i := t
	if i == 0 || s[i-1] != ' ' {
		return false
	}
	i--
	if i > 0 && s[i-1] == '.' {
		i--
	}
	k := lettersBefore(s, i)
	if k == i {
		return false
	}
	w := readWord(s, k)
	return w.flags&nameword.Org != 0 && (w.shape != shapeLower || w.flags&nameword.StreetBefore != 0)
}

// placeInBefore: the word before t is the preposition of being in a
// place (in, Spanish en, Portuguese em), in lower case after a space or
// at the start. What the tables alone read as a name there is a town or
// a venue: people are rarely written "in" without a possessive.
func placeInBefore(s string, t int) bool {
	if t < 3 || s[t-1] != ' ' || t > 3 && s[t-4] != ' ' {
		return false
	}
	switch s[t-3 : t-1] {
	case "in", "em":
		return true
	case "en":
		// Dutch "and" after a name (Femke Post en Brian Hazes), Spanish
		// "in" after a lower-case word (vive en Palma).
		j := t - 4
		for j > 0 && (nameByte[s[j-1]] == 1 || s[j-1] >= 0x80) {
			j--
		}
		return j <= 0 || nameByte[s[j-1]] != 3
	}
	return false
}

// possessiveAfter: an apostrophe follows the name ending at e, or the
// one word after it (a suffix: Jr., PhD), its possessive (in John
// Smith's office, in Pedro Alves' office, in Edgar Trantow Sr.'s).
func possessiveAfter(s string, e int) bool {
	w := e
	if w < len(s) && s[w] == ' ' {
		w++
	}
	j := w
	for j < len(s) && j < w+12 && (s[j]|0x20-'a' < 26 || s[j] == '.') {
		j++
	}
	if j == w {
		j = e // no word after the space
	}
	r := s[j:]
	return len(r) >= 1 && r[0] == '\'' || len(r) >= 3 && r[:3] == "\u2019"
}

// readGroup reads a word and the parts hyphenated to it.
func readGroup(s string, i int) (nameGroup, bool) {
	sc := nameScan{s: s, from: -1}
	return sc.group(i)
}

// group is readGroup through sc's memory.
func (sc *nameScan) group(i int) (nameGroup, bool) {
	s := sc.s
	if i >= len(s) {
		return nameGroup{}, false
	}
	w := sc.word(i)
	if w.end == i {
		return nameGroup{}, false
	}
	g := nameGroup{start: w.start, end: w.end, hash: w.hash, first: w.flags, any: w.flags, shape: w.shape, parts: 1, initial: w.shape == shapeInitial && w.dot}
	if w.flags == 0 && w.shape == shapeCap && w.end-w.start > 4 && s[w.end-1] == 's' {
		// Clausens, Jensens, Müllers: a name's genitive (da, sv, nb, de).
		if f := nameLookup(nameword.Hash(s[w.start : w.end-1])); f&(nameword.Given|nameword.Surname) != 0 && f&notName == 0 {
			g.first, g.any = f, f
		}
	}
	g.org = orgNotName(w.flags)
	if w.shape == shapeInitial && !w.dot {
		return g, false
	}
	for g.end+1 < len(s) && s[g.end] == '-' && !g.initial {
		p := readWord(s, g.end+1)
		if p.end == g.end+1 {
			break
		}
		if p.shape != shapeCap && p.shape != shapeUpper {
			if p.flags&nameword.Org != 0 {
				g.org = true // Goethe-straße
			}
			// Min-jun, Seo-yeon: a short lower-case part of a given name.
			if p.shape != shapeLower || p.end-p.start > 5 || p.flags&(nameword.Given|nameword.Surname) == 0 || p.flags&nameword.Org != 0 {
				if p.shape == shapeLower {
					// Cross-contamination, Follow-up: a compound word,
					// no name however the tables read its first part.
					g.first, g.any = 0, 0
				}
				break
			}
		}
		g.any |= p.flags
		g.org = g.org || orgNotName(p.flags)
		g.end = p.end
		g.parts++
	}
	return g, true
}

// nameWordOK: the group g can be the k-th word of a name.
func nameWordOK(g *nameGroup, k int) bool {
	switch g.shape {
	case shapeCap:
	case shapeInitial:
		return g.initial
	case shapeUpper:
		// DUPONT after a given name, when the tables know it.
		if k == 0 || g.first&nameword.Surname == 0 || g.end-g.start < 2 {
			return false
		}
	default:
		return false
	}
	if g.first&notName != 0 && g.first&(nameword.Given|nameword.Surname) == 0 {
		return false
	}
	if g.first&(nameword.Honorific|nameword.Greeting) != 0 && g.first&(nameword.Given|nameword.Surname) == 0 || g.org {
		return false
	}
	return true
}

// orgNotName: flags f are a company, street or place word's that is no
// given name or surname (Hall, West and Park are names too).
func orgNotName(f uint16) bool {
	return f&nameword.Company != 0 || f&nameword.Org != 0 && f&(nameword.Given|nameword.Surname) == 0
}

// cjk looks for names in the run of CJK characters at t and returns its
// end.
func (sc *nameScan) cjk(t int) int {
	s := sc.s
	e := t
	for e < len(s) {
		r, size := decodeCJK(s, e)
		if !isCJK(r) {
			break
		}
		e += size
	}
	next := e
	for j := t; j < e; {
		r, size := decodeCJK(s, j)
		if end := sc.cjkAt(j, e, r); end > j {
			j = end
			next = max(next, end) // 山田 太郎: past the run
			continue
		}
		if end := sc.cjkGivenAt(j, t, e, r); end > j {
			j = end
			next = max(next, end)
			continue
		}
		j += size
	}
	return next
}

// cjkGivenAt reports a given name of the tables alone, at the start of a
// word, before an honorific suffix: 翔さんから, 正二さん (Japanese), 현민 님이,
// 지우 씨 (Korean, the suffix perhaps after a space), and a Korean family
// name alone before one (라 님). It returns the end of the name, or j.
func (sc *nameScan) cjkGivenAt(j, t, e int, r rune) int {
	s := sc.s
	hangul := isHangul(r)
	if !hangul && (r < 0x3400 || r > 0x9fff) {
		return j
	}
	if j > t {
		// A word's start: not inside a run of Han or Hangul.
		if pr, _ := utf8.DecodeLastRuneInString(s[:j]); isHangul(pr) || pr >= 0x3400 && pr <= 0x9fff {
			return j
		}
	}
	if hangul {
		// A family name alone, a word of one syllable, before 님, 씨 or
		// 선생님 after a space (라 님 말씀으로는); not before 고객님
		// ("this customer": 이 is also "this").
		if g := cjkChars(s, j, e, 1); g == e && g+4 < len(s) && s[g] == ' ' && nameLookup(cjkHash(s[j:g]))&nameword.Surname != 0 {
			if k := g + 1; strings.HasPrefix(s[k:], "님") || strings.HasPrefix(s[k:], "씨") || strings.HasPrefix(s[k:], "선생님") {
				sc.emit(j, g, BasisContext)
				return g
			}
		}
	}
	for m := 3; m >= 1; m-- {
		g := cjkChars(s, j, e, m)
		if g-j != 3*m || hangul && m == 1 {
			continue
		}
		after := g
		if hangul && g == e && g+1 < len(s) && s[g] == ' ' {
			after = g + 1 // 현민 님
		}
		if !cjkSuffixAt(s, after, len(s)) || nameLookup(cjkHash(s[j:g]))&nameword.Given == 0 {
			continue
		}
		if hangul {
			if k := cjkChars(s, j, e, m+1); k > g && g < e {
				continue // more syllables follow: another word
			}
		}
		sc.emit(j, g, BasisContext)
		return g
	}
	return j
}

// decodeCJK is utf8.DecodeRuneInString with the three-byte characters of
// CJK text decoded inline.
func decodeCJK(s string, i int) (rune, int) {
	if i+2 < len(s) && s[i]&0xf0 == 0xe0 && s[i+1]&0xc0 == 0x80 && s[i+2]&0xc0 == 0x80 {
		r := rune(s[i]&0x0f)<<12 | rune(s[i+1]&0x3f)<<6 | rune(s[i+2]&0x3f)
		if r >= 0x800 && (r < 0xd800 || r > 0xdfff) {
			return r, 3
		}
	}
	return utf8.DecodeRuneInString(s[i:])
}

// cjkChars returns the end of up to n characters of s from i, within end.
func cjkChars(s string, i, end, n int) int {
	for ; n > 0 && i < end; n-- {
		_, size := decodeCJK(s, i)
		i += size
	}
	return i
}

// cjkHash hashes s[i:j].
func cjkHash(s string) uint32 {
	h := nameword.Offset
	for i := 0; i < len(s); {
		r, size := decodeCJK(s, i)
		h = nameword.Mix(h, r)
		i += size
	}
	return h
}

// cjkSuffixAt: an honorific suffix starts at i.
func cjkSuffixAt(s string, i, end int) bool {
	if i >= end {
		return false
	}
	for n := 1; n <= 3; n++ {
		j := cjkChars(s, i, end, n)
		if j == i {
			return false
		}
		if nameLookup(cjkHash(s[i:j]))&nameword.Suffix != 0 {
			return true
		}
		if j >= end {
			return false
		}
	}
	return false
}

// cjkGivenAfterSpace returns the end of a given name at g, after a
// family name and a space (山田 太郎に, 中谷 さくらに): one of the tables,
// else one to three Han or katakana characters (hiragana ends them) not
// followed by more Han; 0 if none.
func cjkGivenAfterSpace(s string, g int) int {
	end := g
	for end < len(s) {
		r, size := utf8.DecodeRuneInString(s[end:])
		if !isCJK(r) {
			break
		}
		end += size
	}
	if end == g {
		return 0
	}
	k, chars := g, 0
	for k < end && chars < 4 {
		r, size := utf8.DecodeRuneInString(s[k:])
		if r < 0x30a0 && r != iterationMark || cjkSuffixAt(s, k, end) { // hiragana: a particle
			break
		}
		k += size
		chars++
	}
	if chars > 0 && chars < 4 && (k == end || cjkSuffixAt(s, k, end) || cjkParticle(s, k)) && !cjkOrg(s[g:k]) {
		return k
	}
	for m := 4; m >= 1; m-- { // さくら: a given name of the tables in kana
		k := cjkChars(s, g, end, m)
		if k-g == 3*m && nameLookup(cjkHash(s[g:k]))&nameword.Given != 0 && !cjkOrgAt(s, k, end) {
			return k
		}
	}
	return 0
}

// cjkOrgAt: a company, place or title word starts at i (within end).
func cjkOrgAt(s string, i, end int) bool {
	for n := 1; n <= 4 && i < end; n++ {
		k := cjkChars(s, i, end, n)
		if nameLookup(cjkHash(s[i:k]))&nameword.Org != 0 {
			return true
		}
		if k >= end {
			break
		}
	}
	return false
}

// cjkOrgBefore: a company form ends at j (株式会社, 有限会社).
func cjkOrgBefore(s string, j int) bool {
	k := j
	for n := 0; n < 4 && k > 0; n++ {
		r, size := utf8.DecodeLastRuneInString(s[:k])
		if !isCJK(r) {
			return false
		}
		k -= size
		if nameLookup(cjkHash(s[k:j]))&nameword.Org != 0 {
			return true
		}
	}
	return false
}

// zhNameBounds: the two Han characters s[j:g] (a family name and a given
// name of the tables: 段娟, 安伟) stand between Chinese words that go
// around a person's name: the start of the run, a preposition or verb
// before (由 给 和 与 跟 向 对 据 请 让 叫 把 被) or a role word's end (客户,
// 成员, 工程师), and a verb, conjunction, particle or adverb after (将 于
// 和 与 说 在 是 已 也 都 会 要 的 了 负 又 还 再 就 曾 正 刚; 吗 呢, 留下,
// 反映, 希望, 表示, 提出, 问, 打电话, 确认).
func zhNameBounds(s string, j, g, e int) bool {
	if j > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:j])
		if isCJK(r) && !strings.ContainsRune("由给和与跟同向对据请让叫把被及、户员师", r) {
			return false
		}
	}
	r, _ := utf8.DecodeRuneInString(s[g:e])
	return strings.ContainsRune("将于和与及、说在是已也都会要的了负又还再就曾正刚吗呢留反希表提问打确", r)
}

// zhWordsAfterName are Chinese function words that follow a name and
// end no given name, Chinese or Japanese (王伟于1975年…: 于 "on" is not
// part of the name; 和, 也 and 正 end Japanese names: 美和, 拓也).
const zhWordsAfterName = "于将说在是的了还再就曾又及与、"

// cjkNameEnd: a Han name may end at g (run end e): the end of the run, an
// honorific suffix, or hiragana (a particle or the verb after a noun:
// 山田太郎様から, 佐藤花子です).
func cjkNameEnd(s string, g, e int) bool {
	if g >= e || cjkSuffixAt(s, g, e) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[g:])
	return r >= 0x3041 && r <= 0x309f
}

// cjkParticle: a hiragana particle that follows a noun starts at i (は
// が を に の と も へ で).
func cjkParticle(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	switch r {
	case 'は', 'が', 'を', 'に', 'の', 'と', 'も', 'へ', 'で':
		return true
	}
	return false
}

// cjkOrg: the run w ends in, or is, a company, place or title word.
func cjkOrg(w string) bool {
	for i := range w {
		if nameLookup(cjkHash(w[i:]))&nameword.Org != 0 {
			return true
		}
	}
	return false
}

func isKatakana(r rune) bool { return r >= 0x30a0 && r <= 0x30ff }
func isHangul(r rune) bool   { return r >= 0xac00 && r <= 0xd7a3 }

// cjkAt looks for a name starting at j (character r) in the CJK run that
// ends at e; it returns the end of what it reported, or j.
func (sc *nameScan) cjkAt(j, e int, r rune) int {
	s := sc.s
	if !isKatakana(r) && !cjkFirst(r) {
		return j // no family name starts here
	}
	if isHangul(r) {
		// Korean: a word of a family syllable and a given name.
		if j > 0 {
			if pr, _ := utf8.DecodeLastRuneInString(s[:j]); isHangul(pr) {
				return j
			}
		}
		f := cjkChars(s, j, e, 1)
		if nameLookup(cjkHash(s[j:f]))&nameword.Surname == 0 {
			return j
		}
		for n := 2; n >= 1; n-- {
			g := cjkChars(s, f, e, n)
			if g-f < 3*n {
				continue
			}
			if nameLookup(cjkHash(s[f:g]))&nameword.Given != 0 && (g == e || cjkSuffixAt(s, g, e) || n == 2) {
				sc.emit(j, g, BasisNameTable)
				return g
			}
		}
		return j
	}
	if isKatakana(r) {
		// A foreign name in katakana before an honorific: スミスさん.
		if j > 0 {
			if pr, _ := utf8.DecodeLastRuneInString(s[:j]); isKatakana(pr) {
				return j
			}
		}
		k := j
		for k < e {
			kr, size := utf8.DecodeRuneInString(s[k:])
			if !isKatakana(kr) {
				break
			}
			k += size
		}
		if k-j >= 6 && cjkSuffixAt(s, k, e) {
			sc.emit(j, k, BasisContext)
			return k
		}
		return j
	}
	if r < 0x3400 {
		return j // kana: no family name starts here
	}
	// A family name of the tables, longest first.
	for n := 3; n >= 1; n-- {
		f := cjkChars(s, j, e, n)
		if f-j < 3*n || nameLookup(cjkHash(s[j:f]))&nameword.Surname == 0 {
			continue
		}
		if cjkOrgBefore(s, j) {
			return j // 株式会社石崎食品: a company's name
		}
		if f+3 <= e && strings.Contains("市省县県区郡", s[f:f+3]) {
			return j // 西原市, 石川県: a place named like a family
		}
		// A given name of the tables after it, longest first.
		for m := 4; m >= 1; m-- {
			g := cjkChars(s, f, e, m)
			if g-f < 3*m || nameLookup(cjkHash(s[f:g]))&nameword.Given == 0 {
				continue
			}
			if (n+m >= 3 || cjkSuffixAt(s, g, e) || g == e || n+m == 2 && zhNameBounds(s, j, g, e)) && !cjkOrgAt(s, g, e) {
				// 佐藤花子: the tables know 花, and 子 is part of the
				// name: a given name of up to three characters that
				// ends where a name ends is taken whole.
				if m < 3 && !cjkNameEnd(s, g, e) {
					if h := cjkChars(s, g, e, 1); h-g == 3 && !cjkSuffixAt(s, g, e) && cjkNameEnd(s, h, e) && !cjkOrg(s[f:h]) && !strings.Contains(zhWordsAfterName, s[g:h]) {
						g = h
					}
				}
				sc.emit(j, g, BasisNameTable)
				return g
			}
		}
		if cjkSuffixAt(s, f, e) {
			sc.emit(j, f, BasisContext)
			return f
		}
		if n >= 2 {
			// 山田太郎: one to three Han characters after a family name of two
			// or more, then the end of the run, a suffix or a particle,
			// and no company or place word among them.
			g := f
			for m := 0; m < 3 && g < e && !cjkSuffixAt(s, g, e); m++ {
				gr, size := utf8.DecodeRuneInString(s[g:])
				if gr < 0x3400 && gr != iterationMark {
					break
				}
				g += size
			}
			if g > f && cjkNameEnd(s, g, e) && !cjkOrg(s[f:g]) {
				sc.emit(j, g, BasisNameTable)
				return g
			}
		}
		if f == e && e < len(s) && s[e] == ' ' {
			if k := cjkGivenAfterSpace(s, e+1); k > 0 {
				sc.emit(j, k, BasisNameTable)
				return k
			}
		}
	}
	return j
}

// personNameShape reports whether the whole of s looks like a person's
// name (for a value under a key such as "name"): words that are
// capitalised (or particles, initials, a name of the tables in capitals
// or in lower case: ALICE MARTIN, alice martin), honorifics first and
// generations or degrees anywhere (Dr., Jr., MD) left aside, no digit,
// no company form (GmbH, Inc, Ltd, S.A. …) or street word, at least one
// word in the name tables and not only common words; or a CJK family
// name of the tables with a given name; or two to four words of a script
// without case. basis is BasisNameTable when the tables know a word.
func personNameShape(s string) (ok bool, basis Basis) {
	ok, basis, _ = personNameWords(s)
	return ok, basis
}

// personNameWords is personNameShape, also saying whether every word of
// the name (particles, honorifics and affixes aside) is in the tables:
// what a value needs under a bare "name" key with nothing else saying
// it is a person's (keys.go).
func personNameWords(s string) (ok bool, basis Basis, allKnown bool) {
	i, n := 0, len(s)
	for i < n && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	for n > i && (s[n-1] == ' ' || s[n-1] == '\t') {
		n--
	}
	s = s[i:n]
	if s == "" || len(s) > 120 {
		return false, BasisPattern, false
	}
	if r, _ := utf8.DecodeRuneInString(s); isCJK(r) {
		ok := cjkNameShape(s, r)
		return ok, BasisNameTable, ok
	}
	words, known, common, caseless := 0, 0, 0, 0
	for j := 0; j < len(s); {
		c := s[j]
		if c == ' ' || c == ',' {
			j++
			continue
		}
		if words > 0 && sonOf(s, j) {
			j += 3 // Muthusamy a/l Krishnan
			continue
		}
		if words > 0 && dottedCompanyForm(s, j) {
			return false, BasisPattern, false // Souza Silva S/A
		}
		if w := readWord(s, j); w.end > j && (w.shape == shapeLower && w.flags&nameword.Particle != 0 || words == 0 && honorificAt(s, &w) || nameAffix(s[w.start:w.end])) {
			j = w.end // de, van; Mr., Prof. Dr.; Jr., MD, III
			if j < len(s) && s[j] == '.' {
				j++
			}
			continue
		}
		g, ok := readGroup(s, j)
		if !ok {
			return false, BasisPattern, false
		}
		if g.initial {
			j = g.end + 1
			continue
		}
		if g.org || g.first&notName != 0 && g.first&(nameword.Given|nameword.Surname) == 0 {
			return false, BasisPattern, false
		}
		inTable := g.first&(nameword.Given|nameword.Surname) != 0
		if g.shape != shapeCap && !(g.shape == shapeUpper && inTable) && !(g.shape == shapeLower && inTable && g.first&(nameword.Common|nameword.Stop|nameword.Particle) == 0) {
			return false, BasisPattern, false
		}
		words++
		if r, _ := utf8.DecodeRuneInString(s[j:]); caselessLetter(r) {
			caseless++
		}
		if g.any&(nameword.Given|nameword.Surname) != 0 {
			known++
			if g.first&nameword.Common != 0 {
				common++
			}
		}
		j = g.end
		if j < len(s) && s[j] == '.' {
			j++
		}
		if j < len(s) && s[j] != ' ' && s[j] != ',' {
			return false, BasisPattern, false
		}
	}
	if known == 0 && caseless == words && words >= 2 && words <= 4 {
		// A script without case and without tables here (राजेश शर्मा,
		// أحمد محمد): two to four of its words, where a key or label says
		// a person's name stands.
		return true, BasisPattern, false
	}
	if words == 0 || words > maxGroups || known == 0 || known == common && known == words || brandPair(s, 0, len(s)) {
		return false, BasisPattern, false
	}
	return true, BasisNameTable, known == words
}

// nameAffix: a generation or degree after a name (Jr, III, MD, PhD,
// Filho).
func nameAffix(w string) bool {
	switch w {
	case "Jr", "Sr", "Snr", "Jnr", "I", "II", "III", "IV", "V", "VI", "MD", "DDS", "DVM", "PhD", "Esq", "CPA", "RN", "MBA", "MSc", "Msc", "BSc", "Bsc", "MA", "BA",
		"Neto", "Filho", "Júnior", "Junior", "Sobrinho", "Dr", "Prof", "Ing", "Dipl":
		return true
	}
	return false
}

// cjkNameShape is personNameShape for s starting with the CJK character
// r: a katakana name (ジョン・スミス), a family name and given name the
// scan finds, or a family name of the tables with at most four CJK
// characters after it.
func cjkNameShape(s string, r rune) bool {
	if isKatakana(r) {
		for _, r := range s {
			if !isKatakana(r) && r != '・' && r != ' ' {
				return false
			}
		}
		return true
	}
	e := 0
	for e < len(s) {
		r, size := utf8.DecodeRuneInString(s[e:])
		if !isCJK(r) {
			break
		}
		e += size
	}
	sc := nameScan{s: s, from: -1}
	if end := sc.cjkAt(0, e, r); end == len(s) {
		return true
	}
	for f := cjkChars(s, 0, e, 1); f > 0 && f <= e; f = cjkChars(s, f, e, 1) {
		if nameLookup(cjkHash(s[:f]))&nameword.Surname != 0 {
			rest := s[f:]
			if len(rest) > 0 && rest[0] == ' ' {
				rest = rest[1:]
			}
			if utf8.RuneCountInString(rest) <= 4 && allCJK(rest) && !cjkOrg(rest) {
				return true
			}
		}
		if f == e {
			break
		}
	}
	return false
}

func allCJK(s string) bool {
	for _, r := range s {
		if !isCJK(r) {
			return false
		}
	}
	return s != ""
}
