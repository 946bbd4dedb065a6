package transforms

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/transforms/detect"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

// textItems returns the texts of a result's content items.
func textItems(t *testing.T, doc *jsondoc.Doc) []string {
	t.Helper()
	var out []string
	for it := doc.First(doc.Get(jsondoc.Root, "content")); it != jsondoc.None; it = doc.Next(it) {
		s, _ := doc.Str(doc.Get(it, "text"))
		out = append(out, s)
	}
	return out
}

func resultOf(items ...string) string {
	var b strings.Builder
	b.WriteString(`{"content":[`)
	for i, s := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"text","text":` + jsondoc.Quote(s) + `}`)
	}
	b.WriteString(`]}`)
	return b.String()
}

// A value split across two adjacent text items, at any point, is found
// and rewritten: the items joined read as the value's text transformed
// whole (issue 12: clients concatenate text items).
func TestValueSplitAcrossTextItems(t *testing.T) {
	for _, pol := range []string{`[redact]`, `[pseudonymise]`, `[{type: mask}]`, `[{type: hash}]`} {
		e, p, _ := engineFor(t, `{name: p, transforms: `+pol+`}`)
		pl := compileOutput(t, e, p)
		for _, value := range []string{"alice@example.com", "4111 1111 1111 1111", "+44 20 7946 0958", "DE89 3704 0044 0532 0130 00",
			"AKIAYPKZVCGCKMHTXPVQ", "192.168.10.20", "ali\u200bce＠example.com"} {
			text := "see " + value + " now"
			whole := e.ApplyText(pl, text, &Run{})
			for k := 1; k < len(value); k++ {
				if !strings.HasPrefix(value[k:], "") || !utf8Start(value, k) {
					continue
				}
				doc, err := jsondoc.Parse([]byte(resultOf("see "+value[:k], value[k:]+" now")))
				if err != nil {
					t.Fatal(err)
				}
				e.Apply(pl, doc, jsondoc.Root, ToolResult, &Run{})
				items := textItems(t, doc)
				if got := strings.Join(items, ""); got != whole {
					t.Fatalf("%s: %q split at %d became %q, want %q", pol, value, k, items, whole)
				}
			}
		}
	}
}

// A pseudonym cut at a joint is set apart from an ASCII word character
// after it as one in a single item is (TestPseudonymsGluedSetApart).
func TestJointPseudonymSetApart(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [pseudonymise]}`)
	pl := compileOutput(t, e, p)
	value, text := "山田太郎", "担当山田太郎090-1234-5678"
	whole := e.ApplyText(pl, text, &Run{})
	if n := len(vault.FindPseudonyms(whole, nil)); n != 2 {
		t.Fatalf("%q became %q: %d pseudonyms, want 2", text, whole, n)
	}
	for k := 3; k < len(value); k += 3 {
		doc, err := jsondoc.Parse([]byte(resultOf("担当"+value[:k], value[k:]+"090-1234-5678")))
		if err != nil {
			t.Fatal(err)
		}
		e.Apply(pl, doc, jsondoc.Root, ToolResult, &Run{})
		if got := strings.Join(textItems(t, doc), ""); got != whole {
			t.Errorf("split at %d: %q, want %q", k, got, whole)
		}
	}
}

func utf8Start(s string, i int) bool { return i == len(s) || s[i] < 0x80 || s[i] >= 0xc0 }

// A block step fires on a secret split across two items.
func TestSplitSecretBlocks(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [{type: block, options: {detectors: ["@secrets"]}}]}`)
	doc, _ := jsondoc.Parse([]byte(resultOf("key AKIAYPKZVC", "GCKMHTXPVQ")))
	run := &Run{}
	e.Apply(compileOutput(t, e, p), doc, jsondoc.Root, ToolResult, run)
	if !run.Blocked || run.BlockLabels[0] != "AWS_ACCESS_KEY" {
		t.Errorf("blocked %v %v", run.Blocked, run.BlockLabels)
	}
}

// A value split between an embedded resource's text and the next text
// item, or across two contents entries of resources/read, is found like
// one split across text items. Regression (issue 12 review): only two
// text items were joined.
func TestValueSplitAcrossResourceTexts(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [redact]}`)
	pl := compileOutput(t, e, p)
	cases := []struct {
		name  string
		kind  Payload
		doc   string
		parts []string
	}{
		{"resource then text", ToolResult,
			`{"content":[{"type":"resource","resource":{"uri":"a://b","text":"mail alice@exa"}},{"type":"text","text":"mple.com now"}]}`,
			[]string{"mail alice@exa", "mple.com now"}},
		{"text then resource", ToolResult,
			`{"content":[{"type":"text","text":"card 4111 1111"},{"type":"resource","resource":{"uri":"a://b","text":" 1111 1111"}}]}`,
			[]string{"card 4111 1111", " 1111 1111"}},
		{"two contents entries", ResourceContents,
			`{"contents":[{"uri":"a://1","text":"key AKIAYPKZ"},{"uri":"a://2","text":"VCGCKMHTXPVQ"}]}`,
			[]string{"key AKIAYPKZ", "VCGCKMHTXPVQ"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := jsondoc.Parse([]byte(c.doc))
			if err != nil {
				t.Fatal(err)
			}
			run := &Run{}
			e.Apply(pl, doc, jsondoc.Root, c.kind, run)
			out := string(doc.Bytes())
			if len(run.Detections) != 1 || !strings.Contains(out, "[REDACTED:") {
				t.Errorf("detections %v in %s", run.Detections, out)
			}
			for _, part := range c.parts {
				if strings.Contains(out, part) {
					t.Errorf("%q is left in %s", part, out)
				}
			}
		})
	}
}

// TestJointWithEmptyReplacementOwnsItsText: a value split across two text
// items and replaced by nothing leaves the first item's text as the
// document's replacement; it must not alias the message's bytes (strings
// are views of them while a message is transformed), or overwriting the
// body would change what the document says (found in review).
func TestJointWithEmptyReplacementOwnsItsText(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [{type: redact, options: {placeholder: ""}}]}`)
	pl := compileOutput(t, e, p)
	src := []byte(`{"content":[{"type":"text","text":"mail bob@exa"},{"type":"text","text":"mple.com now"}]}`)
	doc, err := jsondoc.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	e.Apply(pl, doc, jsondoc.Root, ToolResult, &Run{})
	first := doc.Get(doc.First(doc.Path(jsondoc.Root, "content")), "text")
	before, _ := doc.Str(first)
	for i := range src {
		src[i] = 'Z'
	}
	if after, _ := doc.Str(first); after != before || strings.Contains(after, "Z") {
		t.Errorf("the first item's text %q became %q when the body was overwritten", before, after)
	}
}

// A value complete at the end of one item, read joined to the next item's
// first word, must not take that word: the joined read
// "bob@example.comID" cut "ID" from "ID card 110105…", and the identifier
// after it went out in clear; "bob@example.comCall" took "Call" from
// "Call +44 …" and gave the address a pseudonym of a value no one wrote.
// Each item comes out as alone, for any first item ending in a value that
// glues to letters.
func TestJointKeepsTheNextItemsContext(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [pseudonymise]}`)
	pl := compileOutput(t, e, p)
	firsts := []string{"Mail bob@example.com", "write to jean.dupont@exemple.fr", "mailto:ops@example.org", "Call (415) 555-0132", "Tel. 030 12345678", "Routing number: 114441306"}
	seconds := []struct{ text, value string }{
		{"ID card 11010519491231002x issued", "11010519491231002x"},
		{"NHS 943 476 5919 on file", "943 476 5919"},
		{"SSN 123 45 6789 in the form", "123 45 6789"},
		{"BSN 111222333 hier", "111222333"},
		{"Tel 0612345678 le soir", "0612345678"},
		{"Passport C03005988 valid", "C03005988"},
		{"Call +44 20 7946 0958 now", "+44 20 7946 0958"},
		{"Write to alice@example.org", "alice@example.org"},
		{"231 Baker Street, London NW1 6XE", "Baker Street"},
		{"12 rue de la Paix, 75002 Paris", "rue de la Paix"},
		{"ABA 659242675", "659242675"},
		{"and then write to alice@example.org", "alice@example.org"},
		{"or the NHS 943 476 5919 on file", "943 476 5919"},
	}
	for _, first := range firsts {
		for _, second := range seconds {
			alone := e.ApplyText(pl, second.text, &Run{})
			if strings.Contains(alone, second.value) {
				t.Fatalf("%q alone keeps %q: the case tests nothing", second.text, second.value)
			}
			eachAsAlone(t, e, pl, first, second.text)
		}
	}
}

// Two items that hold no value alone make none joined: "Routing number:
// 617233679" (no valid number) and "order 015072845" read as a bank
// account "617233679order 015072845", and the second item was emptied.
func TestJointMakesNoValueOfGlue(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [pseudonymise]}`)
	pl := compileOutput(t, e, p)
	for _, c := range [][2]string{
		{"Routing number: 617233679", "order 015072845"},
		{"Account number: 12345678", "order 4711"},
		{"Patel Brothers shipped the order.", "alice＠example.com"},
	} {
		eachAsAlone(t, e, pl, c[0], c[1])
	}
}

// eachAsAlone checks that two adjacent text items a and b come out of
// the output pipeline pl each as it does alone.
func eachAsAlone(t *testing.T, e *Engine, pl *Pipeline, a, b string) {
	t.Helper()
	doc, err := jsondoc.Parse([]byte(resultOf(a, b)))
	if err != nil {
		t.Fatal(err)
	}
	e.Apply(pl, doc, jsondoc.Root, ToolResult, &Run{})
	items := textItems(t, doc)
	if want0, want1 := e.ApplyText(pl, a, &Run{}), e.ApplyText(pl, b, &Run{}); items[0] != want0 || items[1] != want1 {
		t.Errorf("%q + %q became %q, want each as alone: %q, %q", a, b, items, want0, want1)
	}
}

// Two values that meet at a joint are read apart, each item as alone:
// the joined read took the second item's value into the first's
// ("DE89…3000a@b.co" as one address), or ended inside the second item's
// first word ("…4Nn", and "úmero de DNI" was left).
func TestJointReadsTwoValuesApart(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [pseudonymise]}`)
	pl := compileOutput(t, e, p)
	for _, c := range [][2]string{
		{"IBAN DE89370400440532013000", "a@b.co"},
		{"X-Goog-Api-Key: AIzaSyKIS5252EaHiyG0wO6Dz99C6LFna2VbVjQ", "電話番号：03(4649)8817"},
		{"Authorization: Bearer ya29.HmxB4_hPVy9tanT0tpXV05_fkueWsnwlmifgRNQ5PFQxASi_PR2DYkCu95oy0sWwlN", "número de DNI: 60840185-x"},
		{"Card 4111 1111 1111 1111", "alice@example.com wrote"},
		{"Card 4111 1111 1111 1111", "2alice@example.com wrote"},
		{"Card 4111 1111 1111 1111", "_bob@example.org"},
		{"Please email j.doe@example.io.", "artikel 990628-9899 and alice@example.org"},
		{"AUTHORIZATION: BEARER tcW7QORhwMFJ1c4u3tfsBcDP", "Meeting in Pedro Alves’ office"},
		{"STRIPE_SECRET_KEY=sk_test_XXXXXXXXXXXXXXXXXXXXXXXX", "Het congres is in Rosa Smit volgend jaar, zegt alice@example.org."},
		{"GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "user frank@example.de registered"},
	} {
		want0, want1 := e.ApplyText(pl, c[0], &Run{}), e.ApplyText(pl, c[1], &Run{})
		if want0 == c[0] || want1 == c[1] {
			t.Fatalf("%q, %q: each item alone must hold a value (%q, %q)", c[0], c[1], want0, want1)
		}
		eachAsAlone(t, e, pl, c[0], c[1])
	}
}

// cutLosesValues, which both joints (items and messages) ask before they
// cut a value's continuation from the second side: true only where the
// cut takes what a value of the rest needs.
func TestCutLosesValues(t *testing.T) {
	e, _, _ := engineFor(t, `{name: p, transforms: [redact]}`)
	sel := detect.Select(nil, 0)
	for _, c := range []struct {
		head string
		k    int
		want bool
	}{
		{"ID card 11010519491231002x issued", 2, true},  // "ID" is the identifier's context
		{"NHS 943 476 5919 on file", 3, true},           // so is "NHS"
		{"ID card 11010519491231002x issued", 0, false}, // nothing cut
		{"mple.com now", 8, false},                      // the rest of an address
		{"m now, ID card 11010519491231002x", 1, false}, // the context stays
		{"Call +44 20 7946 0958 now", 4, false},         // the phone needs no word
		{"0958 and alice@example.com", 4, false},        // values of their own shape
	} {
		if got := e.cutLosesValues(e.side(c.head, sel), c.k); got != c.want {
			t.Errorf("cutLosesValues(%q, %d) = %v, want %v", c.head, c.k, got, c.want)
		}
	}
}

// FuzzJointKeepsValues: two text items, whatever their ends and starts,
// leave in clear no value that either item alone hides: a joint finds
// values split by it, and costs neither side one of its own.
func FuzzJointKeepsValues(f *testing.F) {
	for _, seed := range [][2]string{
		{"Mail bob@example.com", "ID card 11010519491231002x issued"},
		{"Mail bob@example.com", "Call +44 20 7946 0958 now"},
		{"see alice@exa", "mple.com now"},
		{"write to jean.dupont@exemple.fr", "NHS 943 476 5919 on file"},
		{"Call me at", "alice@example.com"},
		{"card 4111 1111", " 1111 1111 and BSN 111222333"},
		{"Card 4111 1111 1111 1111", "alice@example.com wrote"},
	} {
		f.Add(seed[0], seed[1])
	}
	e, p, _ := engineFor(f, `{name: p, transforms: [redact]}`)
	pl := compileOutput(f, e, p)
	sel := detect.Select(nil, 0)
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) || len(a) > 300 || len(b) > 300 {
			return
		}
		doc, err := jsondoc.Parse([]byte(resultOf(a, b)))
		if err != nil {
			return
		}
		e.Apply(pl, doc, jsondoc.Root, ToolResult, &Run{})
		items := textItems(t, doc)
		for k, side := range []string{a, b} {
			alone := e.ApplyText(pl, side, &Run{})
			for _, d := range e.detectors.Detect(side, sel) {
				v := side[d.Start:d.End]
				if len(v) >= 4 && !strings.Contains(alone, v) && strings.Contains(items[k], v) {
					t.Fatalf("%q + %q: item %d %q keeps %s %q, which alone becomes %q", a, b, k, items[k], d.Label, v, alone)
				}
				// Nor most of it: the first item its head, the second
				// its tail ("Card 4111 1111 1111 1111" and
				// "alice@example.com" kept "4111 1111 1111").
				part := v[:len(v)*2/3]
				if k == 1 {
					part = v[len(v)/3:]
				}
				if len(part) >= 8 && !strings.Contains(alone, part) && strings.Contains(items[k], part) {
					t.Fatalf("%q + %q: item %d %q keeps %q of %s %q, which alone becomes %q", a, b, k, items[k], part, d.Label, v, alone)
				}
			}
		}
	})
}

// A label in one item and its value in the next: the value, which its
// item alone does not show to be one, is found by the label across the
// joint and moves, replaced, to the first item ("Date of birth:" and
// "1957-04-17" read "Date of birth: DATE_OF_BIRTH_…" and "").
func TestLabelItemThenValueItem(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [pseudonymise]}`)
	pl := compileOutput(t, e, p)
	for _, c := range []struct{ label, value string }{
		{"Date of birth:", "1957-04-17"},
		{"Geburtsdatum: ", "17.04.1957"},
		{"Telefone:", "(30) 48977-2600"},
		{"Passport No.:", " C03005988"},
		{"BSN:", "111222333"},
		{"Phone", "(30) 48977-2600 (home)"},
	} {
		if alone := e.ApplyText(pl, c.value, &Run{}); alone != c.value {
			t.Fatalf("%q alone becomes %q: the case tests nothing", c.value, alone)
		}
		doc, err := jsondoc.Parse([]byte(resultOf(c.label, c.value)))
		if err != nil {
			t.Fatal(err)
		}
		e.Apply(pl, doc, jsondoc.Root, ToolResult, &Run{})
		items := textItems(t, doc)
		v := strings.TrimSpace(strings.TrimSuffix(c.value, " (home)"))
		if got := strings.Join(items, ""); strings.Contains(got, v) || !strings.HasPrefix(got, c.label) || len(vault.FindPseudonyms(got, nil)) != 1 {
			t.Errorf("%q + %q became %q: want the value pseudonymised after its label", c.label, c.value, items)
		}
	}
}
