package transforms

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/transforms/detect"
	"github.com/cloudg/mcp-privacy/transforms/vault"
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
// character or a joining punctuation mark followed by one. Whatever the
// value, a combining mark or an invisible character right after it (which
// would change or hide what touches its last character) refuses it.
// Neighbours are read through the reader view (restoreContext bytes either
// side), so an invisible or fullwidth character does not hide what touches
// the value.
//
// A refused pseudonym stays as it is (the safe direction) and is counted
// (Run.Refused).

// restoreContext is how many bytes of text on either side of a pseudonym
// the check reads (more than any detector looks back for a keyword or
// forward past a separator).
const restoreContext = 256

// selectAll selects every detector a policy enables.
var selectAll = detect.Select(nil, 0)

// restoreRounds bounds how often restorable checks again after refusing
// some: a refused pseudonym changes its neighbours' context. Past it,
// nothing in the string is restored.
const restoreRounds = 4

// restorable is the engine's RestoreCheck (see above). Each value is
// checked in the text with every other value still marked restored in
// place ("10.0.0.1-IP_ADDRESS_…" is no address, "10.0.0.1-10.0.0.255" is
// two); refusing one changes its neighbours' context, so the check runs
// again until nothing more is refused.
func (e *Engine) restorable(s string, spans []vault.Span, values []string, ok []bool) {
	at := make([]int, len(spans))
	for round := 0; ; round++ {
		var b strings.Builder
		last := 0
		for i, sp := range spans {
			if ok[i] {
				b.WriteString(s[last:sp.Start])
				at[i] = b.Len()
				b.WriteString(values[i])
				last = sp.End
			}
		}
		b.WriteString(s[last:])
		t := b.String()
		refused := false
		for i, sp := range spans {
			if label, _ := vault.SplitPseudonym(s[sp.Start:sp.End]); ok[i] && !e.restoresAt(t, at[i], at[i]+len(values[i]), label) {
				ok[i], refused = false, true
			}
		}
		if !refused {
			return
		}
		if round == restoreRounds-1 {
			clear(ok)
			return
		}
	}
}

// restoresAt: the value at [a, b) of t, restored from a pseudonym of
// label, reads as exactly that value (see above).
func (e *Engine) restoresAt(t string, a, b int, label string) bool {
	lo := max(0, a-restoreContext)
	for lo > 0 && !utf8.RuneStart(t[lo]) {
		lo--
	}
	hi := min(len(t), b+restoreContext)
	for hi < len(t) && !utf8.RuneStart(t[hi]) {
		hi++
	}
	ctx := t[lo:hi]
	a, b = a-lo, b-lo
	if modifiesLast(ctx[b:]) {
		return false
	}
	exact := false
	for _, d := range e.detectors.Detect(ctx, selectAll) {
		if d.End <= a || d.Start >= b {
			continue
		}
		if d.Start != a || d.End != b {
			return false // part of, or overlapping, another value
		}
		// Exactly the value, under this label or another detector's that
		// finds the same span ("Zoë Smith" of a custom detector is also a
		// PERSON): it joins nothing around it.
		exact = true
	}
	if exact {
		return true
	}
	// Not found at its place: refused if the value alone is found (its
	// surroundings changed what it reads as); else a context-dependent
	// value, which must not touch a word.
	if ds := e.detectors.Detect(ctx[a:b], selectAll); len(ds) > 0 {
		return false
	}
	return !joinsBefore(ctx[:a]) && !joinsAfter(ctx[b:])
}

// modifiesLast: after begins with a character that changes the one before
// it, the value's last (a combining mark: "com" + U+0301 reads "coḿ"), or
// that the reader view deletes (a joiner, a variation selector, U+200B):
// restoring there would hand over a value that is not quite the value.
func modifiesLast(after string) bool {
	r, n := utf8.DecodeRuneInString(after)
	if n == 0 || r < utf8.RuneSelf {
		return false
	}
	if unicode.IsMark(r) {
		return true
	}
	to, keep := detect.ReaderMap(r)
	return !keep && to == ""
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
	if detect.NeedsView(t) {
		t = detect.ReaderText(t)
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
	if detect.NeedsView(t) {
		t = detect.ReaderText(t)
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
