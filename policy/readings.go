package policy

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Readings of a tool or prompt name (manual 6.7). Servers look a name up
// as they read it, and some read it after a Unicode normalisation or a
// case mapping: a JavaScript server calling name.normalize("NFKC"), a
// Python one calling casefold(), a Go one comparing with strings.EqualFold.
// Under such a server ｄｅｌｅｔｅ_ｄｂ (fullwidth letters), ſecret (long s)
// or Kill (Kelvin sign) run delete_db, secret or kill. A name is therefore
// judged in every reading a server could make of it, and denied when any
// reading is denied.
//
// A reading is the name after any sequence of these operations:
//
//   - NFC, NFD, NFKC, NFKD (the whole name: ASCII is stable under them,
//     except a letter a combining mark composes with);
//   - lower case, upper case and case folding, each in its simple form
//     (one character to one, Go's unicode.ToLower and ToUpper) and its
//     full form (ß to ss or SS, ﬁ to fi or FI, İ to i̇: JavaScript's
//     toLowerCase and toUpperCase, Python's lower, upper and casefold),
//     applied to the characters beyond ASCII only;
//   - the default-ignorable characters dropped (U+200B, the soft hyphen,
//     variation selectors), as NFKC_Casefold does.
//
// ASCII case stays significant (manual 6.7): a name of ASCII characters
// only has one reading, itself, and a case mapping leaves the ASCII
// characters of a name as they are. The sequences are followed to their
// end: the readings are the closure of the name under the operations.

// NameReadings returns the readings of a tool or prompt name other than
// the name itself, in a fixed order (nil for a name of ASCII characters
// only, which costs one pass over its bytes and no allocation).
func NameReadings(name string) []string { return ReadingsOf(name).Names }

// Readings are the readings of a name other than itself (ReadingsOf).
type Readings struct {
	// Names are the readings, the fewer operations the earlier.
	Names []string
	// Incomplete: the name is longer than maxReadingName bytes, or has
	// more than maxNameReadings readings; Names holds those found.
	Incomplete bool
}

// ReadingsOf computes the readings of a name, the closure of the name
// under the operations; a caller judging the same names again and again
// may keep them (the plugin does, per VM).
func ReadingsOf(name string) Readings {
	if asciiOnly(name) {
		return Readings{}
	}
	if len(name) > maxReadingName {
		return Readings{Incomplete: true}
	}
	rs := []string{name}
	for i := 0; i < len(rs); i++ {
		if len(rs) > maxNameReadings {
			return Readings{Names: rs[1:], Incomplete: true}
		}
		s := rs[i]
		if asciiOnly(s) {
			continue // every operation keeps it
		}
		for op := range nameOpCount {
			if r := nameOp(op, s); !slices.Contains(rs, r) {
				rs = append(rs, r)
			}
		}
	}
	return Readings{Names: rs[1:]}
}

// maxNameReadings bounds the closure. A name as tools and prompts are
// named has a few readings (a dozen for Straßenverzeichnis_öffnen); one
// mixing many characters of special case mappings (ǅﬁßΐ...) can have
// hundreds, since each operation changes each of them its own way. Past
// the bound ReadingsOf stops, and such a name is denied.
const maxNameReadings = 64

// maxReadingName bounds the length in bytes of a name beyond ASCII whose
// readings are judged: each reading costs a pass over the name per
// operation, and MCP's tool names are at most 128 characters. A longer
// one is denied by DecideReadings.
const maxReadingName = 512

// The operations of a reading.
const (
	opNFC = iota
	opNFD
	opNFKC
	opNFKD
	opLowerSimple
	opUpperSimple
	opLowerFull
	opUpperFull
	opFold
	opDropIgnorable
	nameOpCount
)

// nameOp applies operation op to s; s itself when op keeps it (no
// allocation then).
func nameOp(op int, s string) string {
	var f norm.Form
	switch op {
	case opNFC:
		f = norm.NFC
	case opNFD:
		f = norm.NFD
	case opNFKC:
		f = norm.NFKC
	case opNFKD:
		f = norm.NFKD
	case opDropIgnorable:
		return dropIgnorable(s)
	default:
		return mapCase(op, s)
	}
	if f.IsNormalString(s) {
		return s
	}
	return f.String(s)
}

// mapCase applies a case operation to the characters of s beyond ASCII.
// Invalid UTF-8 bytes stay as they are.
func mapCase(op int, s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if b.Cap() > 0 {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			if b.Cap() > 0 {
				b.WriteByte(c)
			}
			i++
			continue
		}
		to, toText := caseOf(op, r)
		if b.Cap() == 0 {
			if toText == "" && to == r || toText != "" && toText == s[i:i+size] {
				i += size
				continue // unchanged so far: nothing to build
			}
			b.Grow(len(s) + 8)
			b.WriteString(s[:i])
		}
		if toText != "" {
			b.WriteString(toText)
		} else {
			b.WriteRune(to)
		}
		i += size
	}
	if b.Cap() == 0 {
		return s
	}
	return b.String()
}

// dropIgnorable is s without its default-ignorable characters (U+200B,
// the soft hyphen, variation selectors...), which NFKC_Casefold removes:
// invisible to a reader, and to a server that reads names under it.
func dropIgnorable(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if r >= utf8.RuneSelf && defaultIgnorable(r) {
			if b.Cap() == 0 {
				b.Grow(len(s))
				b.WriteString(s[:i])
			}
		} else if b.Cap() > 0 {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	if b.Cap() == 0 {
		return s
	}
	return b.String()
}

// defaultIgnorable reports whether r is a Default_Ignorable_Code_Point,
// as Unicode's DerivedCoreProperties.txt derives it: format characters,
// variation selectors and the other default ignorables, but no white
// space, interlinear annotation, Egyptian format control or prepended
// concatenation mark.
func defaultIgnorable(r rune) bool {
	switch {
	case unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r), unicode.Is(unicode.Variation_Selector, r):
		return true
	case !unicode.Is(unicode.Cf, r), unicode.Is(unicode.White_Space, r), unicode.Is(unicode.Prepended_Concatenation_Mark, r),
		r >= 0xFFF9 && r <= 0xFFFB, r >= 0x13430 && r <= 0x1345F:
		return false
	}
	return true
}

// caseOf is what case operation op makes of the character r beyond
// ASCII: a text of a caseTable entry, else one character.
func caseOf(op int, r rune) (rune, string) {
	if full, special := caseSpecial(r); special {
		switch op {
		case opLowerFull:
			return 0, full.lower
		case opUpperFull:
			return 0, full.upper
		case opFold:
			return 0, full.fold
		}
	}
	switch op {
	case opUpperSimple, opUpperFull:
		return unicode.ToUpper(r), ""
	}
	return unicode.ToLower(r), "" // simple and full lower case, and the folding of the others
}

// caseEntry is a character whose full case mappings or folding are not
// its simple lower and upper case (Unicode's SpecialCasing.txt and the
// foldings of CaseFolding.txt that differ from the lower case).
type caseEntry struct {
	r                  rune
	lower, upper, fold string
}

func caseSpecial(r rune) (caseEntry, bool) {
	i, ok := slices.BinarySearchFunc(caseTable[:], r, func(e caseEntry, r rune) int { return int(e.r - r) })
	if !ok {
		return caseEntry{}, false
	}
	return caseTable[i], true
}

// ASCIIName reports whether a name is of ASCII characters only: its only
// reading is itself.
func ASCIIName(name string) bool { return asciiOnly(name) }

// asciiOnly reports whether s holds ASCII bytes only.
func asciiOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// DecideReadings is d, the decision on x as named, unless x is a tool or
// prompt with another reading (NameReadings) that judge, which decides
// the primitive a reading names, denies: then it is that reading's
// denial, about x's name as the client sent it (Decision.Reading says
// which reading), hidden if that denial is. A call allowed goes on as
// named, under the rules of every reading too: the server may run the
// tool a reading names, so the rules matching any reading join d's
// (Matched: their transforms, options and rate limits apply, as a
// concrete URI takes the rules of every template it matches, manual 4).
// Its buckets are those of the name and of each reading (Call.Readings).
func DecideReadings(x *Primitive, d Decision, judge func(reading string) Decision) Decision {
	if !d.Allowed || x.Kind != KindTool && x.Kind != KindPrompt || asciiOnly(x.Name) {
		return d
	}
	return ReadingsOf(x.Name).Decide(x, d, judge)
}

// Decide is DecideReadings with the readings of x's name given.
func (rs Readings) Decide(x *Primitive, d Decision, judge func(reading string) Decision) Decision {
	if !d.Allowed || x.Kind != KindTool && x.Kind != KindPrompt {
		return d
	}
	matched := d.Matched
	for _, r := range rs.Names {
		rd := judge(r)
		if !rd.Allowed {
			rd = rd.Renamed(r, x.Name)
			rd.Reading = r
			return rd
		}
		if d.policy != nil {
			matched = d.policy.UnionRules(matched, rd.Matched)
		}
	}
	d.Matched = matched
	if rs.Incomplete {
		// A name whose readings cannot all be judged is denied.
		d.deny(StepPolicyList, policyRule, fieldReadings)
		d.Hidden = d.policy.HideDenied
	}
	return d
}
