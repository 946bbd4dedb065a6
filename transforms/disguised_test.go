package transforms

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/transforms/detect"
)

// The reader view (transforms/detect) through the pipeline: disguised
// values are found and rewritten whole.

// Disguises of a value that leave what a reader sees unchanged: an
// invisible character inserted, a space or dash or digit or letter swapped
// for a variant, a URL escape or an HTML character reference.
var (
	invisibles = []string{"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u034f", "\u0301", "\u180e", "\ufe0f", "\U000e0041"}
	spaceForms = []string{"\u00a0", "\u2000", "\u2007", "\u2009", "\u202f", "\u205f", "\u3000", "\u1680", "\u2800"}
	dashForms  = []string{"\u2010", "\u2011", "\u2012", "\u2013", "\u2212", "\ufe63", "\uff0d"}
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
			ds := e.Detectors().Detect(in, detect.Select(nil, 0))
			if len(ds) != 1 || ds[0].Label != c.label || ds[0].Start != len(c.before) || ds[0].End != len(c.before)+len(c.value) || ds[0].Seen(in) != c.clean {
				t.Fatalf("Detect(%q) = %+v, want one %s over the original bytes %d..%d seen as %q", in, ds, c.label, len(c.before), len(c.before)+len(c.value), c.clean)
			}
			run := &Run{}
			out := e.ApplyText(pl, in, run)
			spelt := c.clean
			if c.name == "email, URL escape" {
				// An address a URI spells with escapes is pseudonymised as
				// written, so that it goes back as written (issue 32,
				// class 5): a pseudonym of its own.
				spelt = c.value
			}
			want := c.before + store.pz.Pseudonym("", c.label, spelt) + c.after
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
		if detect.ReaderText(d) != value {
			t.Fatalf("disguise %q reads %q, not %q", d, detect.ReaderText(d), value)
		}
		in := "see " + d + " here"
		clean := e.Detectors().Detect("see "+value+" here", detect.Select(nil, 0))
		got := e.Detectors().Detect(in, detect.Select(nil, 0))
		if len(got) != len(clean) || len(got) == 0 {
			t.Fatalf("%q: %+v, the plain value gives %+v", in, got, clean)
		}
		// The output reads as the plain value's output: invisible
		// characters may stay around the placeholder, never inside what
		// replaced the value.
		out := e.ApplyText(pl, in, &Run{})
		want := e.ApplyText(pl, "see "+value+" here", &Run{})
		if detect.ReaderText(out) != want || strings.Contains(detect.ReaderText(out), value) {
			t.Fatalf("%q became %q, want %q", in, out, want)
		}
		for _, dt := range got {
			if a, b := dt.Start, dt.End; strings.Contains(out, in[a:b]) {
				t.Fatalf("%q became %q: the original bytes %q are left", in, out, in[a:b])
			}
		}
	})
}

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
