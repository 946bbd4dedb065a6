package transforms

import (
	"unicode"
	"unicode/utf8"
)

// Where a pseudonym may be restored.
//
// A pseudonym stands for a value the detectors found as one whole value.
// Putting the value back where the text around it makes it part of
// something longer hands a tool, and through an echo the client, a value
// the detectors no longer recognise: EMAIL_… followed by "é", ".5" or
// "-x" became alice@example.coméé, alice@example.com.5, alice@example.com-x,
// none of which the email detector reports, so the echoed value went out
// raw. The rule, the same one the writer follows:
//
//	A value is restored only where the detectors read it back as exactly
//	that value: run over the restored text, they report a span of the
//	pseudonym's label covering the value exactly, and nothing else that
//	overlaps it.
//
// The pseudonymiser writes a pseudonym in place of exactly such a span, so
// what it wrote restores in the same place. Values whose detection depends
// on their context (a password found after "password=", a bearer token,
// URL credentials, a custom detector's keyword or group) are not found
// alone: for them it suffices that nothing overlapping them is detected
// and that neither neighbour, as the reader view reads it, is a word
// character or a joining punctuation mark followed by one. Neighbours are
// read through the reader view (restoreContext bytes either side), so an
// invisible or fullwidth character does not hide what touches the value.
//
// A refused pseudonym stays as it is (the safe direction) and is counted
// (Run.Refused).

// RestoreCheck reports whether the pseudonym at sp of s may be replaced by
// value.
type RestoreCheck func(s string, sp Span, value string) bool

// Restored counts what one Restore saw: pseudonyms replaced, well-formed
// pseudonyms that did not resolve in the caller's namespace, and resolved
// ones the check refused.
type Restored struct{ Resolved, Unresolved, Refused int }

// restoreContext is how many bytes of text on either side of a pseudonym
// the check reads (more than any detector looks back for a keyword or
// forward past a separator).
const restoreContext = 256

// selectAll selects every detector a policy enables.
var selectAll = Select(nil, 0)

// restorable is the engine's RestoreCheck (see above).
func (e *Engine) restorable(s string, sp Span, value string) bool {
	label := s[sp.Start : sp.End-TokenLen-1]
	lo := max(0, sp.Start-restoreContext)
	for lo > 0 && !utf8.RuneStart(s[lo]) {
		lo--
	}
	hi := min(len(s), sp.End+restoreContext)
	for hi < len(s) && !utf8.RuneStart(s[hi]) {
		hi++
	}
	before, after := s[lo:sp.Start], s[sp.End:hi]
	ctx := before + value + after
	a, b := len(before), len(before)+len(value)
	exact := false
	for _, d := range e.detectors.Detect(ctx, selectAll) {
		if d.End <= a || d.Start >= b {
			continue
		}
		if d.Start != a || d.End != b || d.Label != label {
			return false // part of, or overlapping, another value
		}
		exact = true
	}
	if exact {
		return true
	}
	// Not found at its place: refused if the value alone is found (its
	// surroundings changed what it reads as); else a context-dependent
	// value, which must not touch a word.
	if ds := e.detectors.Detect(value, selectAll); len(ds) > 0 {
		return false
	}
	return !joinsBefore(before) && !joinsAfter(after)
}

// joinPunct are the marks that continue a value when a word character
// follows: decimal points, dashes, colons, ats, apostrophes, slashes…
const joinPunct = ".-:@'+/%~=&"

// wordRune: a letter, digit, mark or connector (as '_') in Unicode terms.
func wordRune(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') ||
		r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || unicode.IsMark(r) || unicode.Is(unicode.Pc, r))
}

// joinsAfter: the text after a value starts, as a reader reads it, with a
// word character, or with a joining mark and a word character.
func joinsAfter(after string) bool {
	t := after
	if needsView(t) {
		t = newView(t).text
	}
	r, n := utf8.DecodeRuneInString(t)
	if n == 0 {
		return false
	}
	if wordRune(r) {
		return true
	}
	if r < utf8.RuneSelf && containsByte(joinPunct, byte(r)) {
		r2, n2 := utf8.DecodeRuneInString(t[n:])
		return n2 > 0 && wordRune(r2)
	}
	return false
}

// joinsBefore is joinsAfter for the text before a value.
func joinsBefore(before string) bool {
	t := before
	if needsView(t) {
		t = newView(t).text
	}
	r, n := utf8.DecodeLastRuneInString(t)
	if n == 0 {
		return false
	}
	if wordRune(r) {
		return true
	}
	if r < utf8.RuneSelf && containsByte(joinPunct, byte(r)) {
		r2, n2 := utf8.DecodeLastRuneInString(t[:len(t)-n])
		return n2 > 0 && wordRune(r2)
	}
	return false
}

func containsByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}
