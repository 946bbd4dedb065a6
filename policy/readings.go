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
//     applied to the characters beyond ASCII only.
//
// ASCII case stays significant (manual 6.7): a name of ASCII characters
// only has one reading, itself, and a case mapping leaves the ASCII
// characters of a name as they are. The sequences are followed to their
// end: the readings are the closure of the name under the operations.

// NameReadings returns the readings of a tool or prompt name other than
// the name itself, in a fixed order (nil for a name of ASCII characters
// only, which costs one pass over its bytes and no allocation).
func NameReadings(name string) []string {
	rs, _ := nameReadings(name)
	return rs
}

// nameReadings is NameReadings, and whether the closure is complete (it
// stops at maxNameReadings).
func nameReadings(name string) (readings []string, complete bool) {
	if asciiOnly(name) {
		return nil, true
	}
	if len(name) > maxReadingName {
		return nil, false
	}
	rs := []string{name}
	for i := 0; i < len(rs); i++ {
		if len(rs) > maxNameReadings {
			return rs[1:], false
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
	return rs[1:], true
}

// maxNameReadings bounds the closure. Every operation maps each character
// to a fixed text and is nearly idempotent, so the closure of a name is
// small (FuzzNameReadings finds no name with more than a few dozen); past
// the bound NameReadings stops and DecideReadings denies.
const maxNameReadings = 256

// maxReadingName bounds the length in bytes of a name beyond ASCII whose
// readings are judged: each reading costs a pass over the name per
// operation, and MCP's tool names are at most 128 characters. A longer
// one is denied by DecideReadings.
const maxReadingName = 1024

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
	nameOpCount
)

func nameOp(op int, s string) string {
	switch op {
	case opNFC:
		return norm.NFC.String(s)
	case opNFD:
		return norm.NFD.String(s)
	case opNFKC:
		return norm.NFKC.String(s)
	case opNFKD:
		return norm.NFKD.String(s)
	}
	return mapCase(op, s)
}

// mapCase applies a case operation to the characters of s beyond ASCII.
// Invalid UTF-8 bytes stay as they are.
func mapCase(op int, s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			b.WriteByte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteByte(c)
			i++
			continue
		}
		i += size
		full, special := caseSpecial(r)
		switch {
		case op == opLowerSimple:
			b.WriteRune(unicode.ToLower(r))
		case op == opUpperSimple:
			b.WriteRune(unicode.ToUpper(r))
		case special && op == opLowerFull:
			b.WriteString(full.lower)
		case special && op == opUpperFull:
			b.WriteString(full.upper)
		case special && op == opFold:
			b.WriteString(full.fold)
		case op == opUpperFull:
			b.WriteRune(unicode.ToUpper(r))
		default: // the full lower case and the folding of the others
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
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
// named: its pipelines, options and rate limits are those of d.
func DecideReadings(x *Primitive, d Decision, judge func(reading string) Decision) Decision {
	if !d.Allowed || x.Kind != KindTool && x.Kind != KindPrompt || asciiOnly(x.Name) {
		return d
	}
	readings, complete := nameReadings(x.Name)
	for _, r := range readings {
		if rd := judge(r); !rd.Allowed {
			rd = rd.Renamed(r, x.Name)
			rd.Reading = r
			return rd
		}
	}
	if !complete {
		// A name too long to read, or (not expected, maxNameReadings) one
		// with more readings than are judged, is denied.
		d.deny(StepPolicyList, policyRule, fieldReadings)
		d.Hidden = d.policy.HideDenied
	}
	return d
}
