package detect

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/transforms/detect/internal/nameword"
)

// checkView holds the view's invariants for s.
// mapBackPlain is mapBack without its shortcut: every span through orig
// and a comparison with the original.
func mapBackPlain(v *view, s string, ds []Detection) []Detection {
	out := ds[:0]
	end := -1
	for _, d := range ds {
		a, b := v.orig(s, d.Start, d.End)
		if a < end {
			continue
		}
		if seen := v.text[d.Start:d.End]; seen != s[a:b] {
			d.Value = seen
		}
		d.Start, d.End = a, b
		out = append(out, d)
		end = b
	}
	return out
}

// vowelSignAt: the character at i of a view is an abugida's mark, which
// the view keeps only after a letter of its script.
func vowelSignAt(text string, i int) bool {
	r, _ := utf8.DecodeRuneInString(text[i:])
	return nameword.VowelSign(r)
}

func checkView(t *testing.T, s string) {
	t.Helper()
	if !NeedsView(s) {
		for i := 0; i < len(s); i++ {
			if s[i] >= utf8.RuneSelf {
				t.Fatalf("NeedsView(%q) = false with a non-ASCII byte", s)
			}
		}
		if strings.ContainsAny(s, `\%&`) {
			t.Fatalf("NeedsView(%q) = false with a character that may start an escape", s)
		}
	}
	v := newView(s)
	if !NeedsView(s) && (v.text != s || len(v.segs) != 0) {
		t.Fatalf("ASCII %q: view %q", s, v.text)
	}
	if utf8.ValidString(s) && !utf8.ValidString(v.text) {
		t.Fatalf("%q: view %q is not UTF-8", s, v.text)
	}
	prev := -1
	for i := range len(v.text) {
		o, _ := v.at(i)
		if o < prev || o >= len(s) || utf8.RuneStart(v.text[i]) && !unitStart(s, o) {
			t.Fatalf("%q: view byte %d comes from %d (previous %d): not monotone, in range and on a character", s, i, o, prev)
		}
		prev = o
	}
	// Every span of the view between rune boundaries maps into s on
	// character boundaries, in order, covering what the view read.
	var cuts []int
	for i := 0; i <= len(v.text); i++ {
		if i == len(v.text) || utf8.RuneStart(v.text[i]) {
			cuts = append(cuts, i)
		}
	}
	// mapBack (which skips the search and the comparison inside a stretch
	// copied as it is) maps spans as orig and a comparison do: spans in
	// order, overlapping, and out of order.
	if len(v.segs) > 0 {
		var spans []Detection
		for x := 0; x+1 < len(cuts) && x < 40; x++ {
			for y := x + 1; y < len(cuts) && y < x+6; y++ {
				spans = append(spans, Detection{Start: cuts[x], End: cuts[y]})
			}
		}
		for _, d := range spans {
			want := mapBackPlain(&v, s, []Detection{d})
			if got := v.mapBack(s, []Detection{d}); !slices.Equal(got, want) {
				t.Fatalf("%q: mapBack %v, orig gives %v", s, got, want)
			}
		}
		for range 2 {
			want := mapBackPlain(&v, s, slices.Clone(spans))
			if got := v.mapBack(s, slices.Clone(spans)); !slices.Equal(got, want) {
				t.Fatalf("%q: mapBack %v, orig gives %v", s, got, want)
			}
			slices.Reverse(spans)
		}
	}
	for x := 0; x < len(cuts) && x < 40; x++ {
		for y := x + 1; y < len(cuts); y++ {
			a, b := v.orig(s, cuts[x], cuts[y])
			if a < 0 || b > len(s) || a >= b || !unitStart(s, a) || b < len(s) && !unitStart(s, b) {
				t.Fatalf("%q: view span %d..%d maps to %d..%d", s, cuts[x], cuts[y], a, b)
			}
			// (A vowel sign the view keeps for the letter before it is
			// read again with that letter: alone, it is a stray mark.)
			ctx := x
			for ctx > 0 && vowelSignAt(v.text, cuts[ctx]) {
				ctx--
			}
			if ctx < x {
				a, _ = v.orig(s, cuts[ctx], cuts[y])
			}
			if seen := newView(s[a:b]).text; !strings.Contains(seen, v.text[cuts[x]:cuts[y]]) {
				t.Fatalf("%q: view span %q maps to %q, read %q", s, v.text[cuts[x]:cuts[y]], s[a:b], seen)
			}
		}
	}
}

func TestReaderViewInvariants(t *testing.T) {
	for _, s := range []string{
		"", "plain ascii", "a\\u0040b", "\\u00", "\\ud83d\\ude00!", "\\ud83dx", "x\\uD800\\u0041",
		"ﬁne", "caf\u00e9 e\u0301", "\u200b\u200b", "\xff\xfe a", "a\u00a0b\u3000c", "𝟏𝟐", "٣", "⑩⒈",
		"%", "%4", "%41%", "%7f%1f%20", "&", "&#", "&#;", "&#64", "&#x;", "&#0;", "&#xD800;", "&#1114112;", "&#x10FFFF;", "&nbsp", "&commat;&",
	} {
		checkView(t, s)
	}
}

// FuzzReaderView: the offset map is monotone, maps every span into the
// original on character boundaries, and ASCII without \u is its own view.
func FuzzReaderView(f *testing.F) {
	for _, s := range []string{"alice＠example.com", "4111\u00a01111", `a\u0040b\ud83d\ude00`, "ﬁ\u200bx", "\xc3", "plain"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 256 {
			s = s[:256]
		}
		checkView(t, s)
	})
}

// unitStart: a character starts at i of s (an invalid byte counts as one).
func unitStart(s string, i int) bool {
	if utf8.RuneStart(s[i]) {
		return true
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	return r == utf8.RuneError && size == 1
}

// BenchmarkReaderView: what the view costs before any detector runs, on
// ASCII text (its own view), on the mixed corpus (accented names, CJK,
// dashes) and on text full of disguises.
func BenchmarkReaderView(b *testing.B) {
	whole, _ := readMixed(b)
	ascii := strings.Map(func(r rune) rune {
		if r >= utf8.RuneSelf {
			return 'x'
		}
		return r
	}, whole)
	disguised := strings.Repeat("card 4111\u00a01111\u00a01111\u00a01111, mail ali\u200bce\uff20example.com; ", len(whole)/80)
	for _, c := range []struct{ name, s string }{{"ascii", ascii}, {"mixed", whole}, {"disguised", disguised}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.s)))
			b.ReportAllocs()
			for b.Loop() {
				newView(c.s)
			}
		})
	}
}

// The view deletes the marks a reader reads through (accents, Hebrew and
// Arabic vowel points, joiners) and keeps an abugida's vowel signs, which
// spell the word: with them deleted, the names' tables matched कल
// (yesterday) as काले, a surname.
func TestReaderViewMarks(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Rene\u0301e", "Renee"},
		{"a\u200db", "ab"},
		{"דָּוִד", "דוד"},
		{"مُحَمَّد", "محمد"},
		{"कुमार", "कुमार"},
		{"प्रेम कुण्डा", "प्रेम कुण्डा"},
		{"কুমার", "কুমার"},
		{"ประยุทธ์", "ประยุทธ์"},
		// on a digit or a Latin letter, a vowel sign is a stray mark
		{"4111\u0941 1111", "4111 1111"},
		{"4111\u093e 1111", "4111 1111"},
		{"a\u0947lice", "alice"},
		{"क\u200b\u0941", "कु"},
	} {
		if got := newView(c.in).text; got != c.want {
			t.Errorf("view of %q = %q, want %q", c.in, got, c.want)
		}
	}
}

// A stray vowel sign (on a digit or a Latin letter) hides no value: the
// view deletes it as any combining mark, and the value is reported
// whole, the mark inside its span.
func TestStrayVowelSignHidesNothing(t *testing.T) {
	sel := Select(nil, 0)
	ds := allDetectors(t)
	for _, c := range []struct{ text, det, value string }{
		{"Card 4111\u0941 1111 1111 1111 on file", "credit_card", "4111\u0941 1111 1111 1111"},
		{"SSN 078-05\u0947-1120", "us_ssn", "078-05\u0947-1120"},
		{"mail a\u0941lice@example.com now", "email", "a\u0941lice@example.com"},
		{"Tel. +44 20 7946\u093e 0958", "phone", "+44 20 7946\u093e 0958"},
	} {
		found := false
		for _, d := range ds.Detect(c.text, sel) {
			found = found || d.Detector == c.det && c.text[d.Start:d.End] == c.value
		}
		if !found {
			t.Errorf("%q: no %s %q in %+v", c.text, c.det, c.value, ds.Detect(c.text, sel))
		}
	}
}
