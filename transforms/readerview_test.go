package transforms

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

// Disguised values are found as a reader reads them, and the rewrite
// covers the original bytes, the invisible characters inside included:
// nothing of the value reaches the output (issue 12, detector evasion).
func TestReaderViewEvasion(t *testing.T) {
	e, p, store := engineFor(t, `{name: p, transforms: [pseudonymise]}`)
	pl := compileOutput(t, e, p)
	cases := []struct {
		name, before, value, after, label, clean string
	}{
		{"card, no-break spaces", "card ", "4111\u00a01111\u00a01111\u00a01111", " on file", "CREDIT_CARD", "4111 1111 1111 1111"},
		{"card, narrow no-break and figure spaces", "card ", "4111\u202f1111\u20071111\u20091111", ".", "CREDIT_CARD", "4111 1111 1111 1111"},
		{"card, ideographic spaces", "卡号", "4111\u30001111\u30001111\u30001111", "。", "CREDIT_CARD", "4111 1111 1111 1111"},
		{"card, non-breaking hyphens", "card ", "4111\u20111111\u20111111\u20111111", "", "CREDIT_CARD", "4111-1111-1111-1111"},
		{"card, fullwidth digits", "card ", "４１１１１１１１１１１１１１１１", "", "CREDIT_CARD", "4111111111111111"},
		{"card, combining mark", "card ", "4111\u0336 1111 1111 1111", " ok", "CREDIT_CARD", "4111 1111 1111 1111"},
		{"email, zero-width space", "mail ", "ali\u200bce@example.com", " now", "EMAIL", "alice@example.com"},
		{"email, fullwidth at", "mail ", "alice＠example.com", "", "EMAIL", "alice@example.com"},
		{"email, small commercial at", "mail ", "alice\ufe6bexample.com", "", "EMAIL", "alice@example.com"},
		{"email, soft hyphen in the domain", "", "alice@exam\u00adple.com", "", "EMAIL", "alice@example.com"},
		{"email, word joiner, ZWJ, ZWNJ, BOM", "to: ", "a\u2060l\u200di\u200cc\ufeffe@example.com", "", "EMAIL", "alice@example.com"},
		{"email, fullwidth letters", "mail ", "ａｌｉｃｅ@ｅｘａｍｐｌｅ．ｃｏｍ", "", "EMAIL", "alice@example.com"},
		{"email, JSON escape", `{"a":1,"a":"`, `alice\u0040example.com`, `"}`, "EMAIL", "alice@example.com"},
		{"email, escaped fullwidth at", `x `, `alice\uFF20example.com`, ``, "EMAIL", "alice@example.com"},
		{"SSN, Arabic-Indic digits", "ssn ", "٠٧٨-٠٥-١١٢٠", "", "US_SSN", "078-05-1120"},
		{"phone, hyphens U+2010", "call ", "+1 415\u2010555\u20100132", "", "PHONE", "+1 415-555-0132"},
		{"IBAN, no-break spaces", "IBAN ", "DE89\u00a03704\u00a00044\u00a00532\u00a00130\u00a000", "", "IBAN", "DE89 3704 0044 0532 0130 00"},
		{"AWS key, mathematical bold", "key ", "𝐀𝐊𝐈𝐀YPKZVCGCKMHTXPVQ", "", "AWS_ACCESS_KEY", "AKIAYPKZVCGCKMHTXPVQ"},
		{"IPv4, fullwidth dots", "host ", "10．0．0．1", "", "IP_ADDRESS", "10.0.0.1"},
		// URL escapes and HTML character references (review): a link's
		// query, a page's obfuscated address read as the value.
		{"email, URL escape", "https://x.example/?to=", "alice%40example.com", "&a=1", "EMAIL", "alice@example.com"},
		{"email, HTML decimal reference", "<p>", "alice&#64;example.com", "</p>", "EMAIL", "alice@example.com"},
		{"email, HTML hex references", "", "alice&#x40;example&#X2E;com", " ", "EMAIL", "alice@example.com"},
		{"email, named references", "", "alice&commat;example&period;com", "", "EMAIL", "alice@example.com"},
		{"card, &nbsp;", "card ", "4111&nbsp;1111&nbsp;1111&nbsp;1111", "", "CREDIT_CARD", "4111 1111 1111 1111"},
		{"card, URL-escaped spaces", "q=", "4111%201111%201111%201111", "", "CREDIT_CARD", "4111 1111 1111 1111"},
		{"phone, URL-escaped plus", "tel=", "%2B44 20 7946 0958", "", "PHONE", "+44 20 7946 0958"},
		{"email, reference of a fullwidth at", "", "alice&#65312;example.com", "", "EMAIL", "alice@example.com"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.before + c.value + c.after
			ds := e.Detectors().Detect(in, Select(nil, 0))
			if len(ds) != 1 || ds[0].Label != c.label || ds[0].Start != len(c.before) || ds[0].End != len(c.before)+len(c.value) || ds[0].Seen(in) != c.clean {
				t.Fatalf("Detect(%q) = %+v, want one %s over the original bytes %d..%d seen as %q", in, ds, c.label, len(c.before), len(c.before)+len(c.value), c.clean)
			}
			run := &Run{}
			out := e.ApplyText(pl, in, run)
			want := c.before + store.pz.Pseudonym("", c.label, c.clean) + c.after
			if out != want {
				t.Errorf("output %q, want %q", out, want)
			}
		})
	}
}

// Text that looks like JSON but fails the strict parse (a duplicate key)
// is plain text: its \u escapes are read as what they stand for.
func TestLenientJSONEscapesDetected(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [redact]}`)
	text := `{"user":"x","user":"alice\u0040example.com","card":"4111\u00201111\u00201111\u00201111"}`
	doc, err := jsondoc.Parse([]byte(`{"content":[{"type":"text","text":` + jsondoc.Quote(text) + `}]}`))
	if err != nil {
		t.Fatal(err)
	}
	run := &Run{}
	e.Apply(compileOutput(t, e, p), doc, jsondoc.Root, ToolResult, run)
	got, _ := doc.Str(doc.Get(doc.First(doc.Get(jsondoc.Root, "content")), "text"))
	want := `{"user":"x","user":"[REDACTED:EMAIL]","card":"[REDACTED:CREDIT_CARD]"}`
	if got != want || run.Detections["EMAIL"] != 1 || run.Detections["CREDIT_CARD"] != 1 {
		t.Errorf("text %q, detections %v; want %q", got, run.Detections, want)
	}
}

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

func checkView(t *testing.T, s string) {
	t.Helper()
	if !needsView(s) {
		for i := 0; i < len(s); i++ {
			if s[i] >= utf8.RuneSelf {
				t.Fatalf("needsView(%q) = false with a non-ASCII byte", s)
			}
		}
		if strings.ContainsAny(s, `\%&`) {
			t.Fatalf("needsView(%q) = false with a character that may start an escape", s)
		}
	}
	v := newView(s)
	if !needsView(s) && (v.text != s || len(v.segs) != 0) {
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

// Disguises of a value that leave what a reader sees unchanged: an
// invisible character inserted, a space or dash or digit or letter swapped
// for a variant, a URL escape or an HTML character reference.
var (
	invisibles = []string{"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u034f", "\u0301", "\u180e", "\ufe0f", "\U000e0041"}
	spaceForms = []string{"\u00a0", "\u2000", "\u2007", "\u2009", "\u202f", "\u205f", "\u3000", "\u1680", "\u2800"}
	dashForms  = []string{"\u2010", "\u2011", "\u2012", "\u2013", "\u2212", "\ufe63", "\uff0d"}
)

// disguise rewrites value with the operations of ops (two bytes each: a
// position and a choice), keeping what a reader sees.
func disguise(value string, ops []byte) string {
	runes := []string{}
	for _, r := range value {
		runes = append(runes, string(r))
	}
	for k := 0; k+1 < len(ops); k += 2 {
		at, pick := int(ops[k])%len(runes), int(ops[k+1])
		r := runes[at]
		switch c := r[0]; {
		case pick%3 == 0:
			runes[at] = invisibles[pick/3%len(invisibles)] + r
		case len(r) != 1:
		case c == ' ':
			runes[at] = spaceForms[pick%len(spaceForms)]
		case c == '-':
			runes[at] = dashForms[pick%len(dashForms)]
		case c >= '0' && c <= '9' && pick%2 == 0:
			zeros := []rune{'٠', '۰', '०', '০', '０', '𝟎', '𝟘'}
			runes[at] = string(zeros[pick%len(zeros)] + rune(c-'0'))
		case c > ' ' && c < 0x7f && pick/3%3 == 1:
			runes[at] = fmt.Sprintf("%%%02X", c) // a URL escape
		case c > ' ' && c < 0x7f && pick/3%3 == 2:
			runes[at] = fmt.Sprintf("&#%d;", c) // an HTML character reference
		case c > ' ' && c < 0x7f:
			runes[at] = string(rune(c) + 0xfee0) // fullwidth
		}
	}
	return strings.Join(runes, "")
}

// FuzzDisguisedValueDetected: a detected value with invisible, space,
// dash, digit or fullwidth variants inserted is still detected and is
// gone from the output.
func FuzzDisguisedValueDetected(f *testing.F) {
	values := []string{
		"alice.smith@example.com", "4111 1111 1111 1111", "5500-0000-0000-0004", "+44 20 7946 0958",
		"DE89 3704 0044 0532 0130 00", "078-05-1120", "192.168.10.20", "AKIAYPKZVCGCKMHTXPVQ", "00:1a:2b:3c:4d:5e",
		"2001:db8::8a2e:370:7334", "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",
	}
	f.Add(uint8(0), []byte{3, 0, 5, 1})
	f.Add(uint8(1), []byte{4, 1, 9, 3})
	f.Add(uint8(4), []byte{4, 1, 2, 2, 7, 5})
	e, p, _ := engineFor(f, `{name: p, transforms: [redact]}`)
	pl := compileOutput(f, e, p)
	f.Fuzz(func(t *testing.T, which uint8, ops []byte) {
		if len(ops) > 64 {
			ops = ops[:64]
		}
		value := values[int(which)%len(values)]
		d := disguise(value, ops)
		if newView(d).text != value {
			t.Fatalf("disguise %q reads %q, not %q", d, newView(d).text, value)
		}
		in := "see " + d + " here"
		clean := e.Detectors().Detect("see "+value+" here", Select(nil, 0))
		got := e.Detectors().Detect(in, Select(nil, 0))
		if len(got) != len(clean) || len(got) == 0 {
			t.Fatalf("%q: %+v, the plain value gives %+v", in, got, clean)
		}
		// The output reads as the plain value's output: invisible
		// characters may stay around the placeholder, never inside what
		// replaced the value.
		out := e.ApplyText(pl, in, &Run{})
		want := e.ApplyText(pl, "see "+value+" here", &Run{})
		if newView(out).text != want || strings.Contains(newView(out).text, value) {
			t.Fatalf("%q became %q, want %q", in, out, want)
		}
		for _, dt := range got {
			if a, b := dt.Start, dt.End; strings.Contains(out, in[a:b]) {
				t.Fatalf("%q became %q: the original bytes %q are left", in, out, in[a:b])
			}
		}
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
