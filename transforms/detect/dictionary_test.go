package detect

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/cloudg/mcp-privacy/policy"
)

// dictSet builds the Set of a policy given as YAML.
func dictSet(t testing.TB, src string) *Set {
	t.Helper()
	p, errs := policy.ParsePolicy([]byte(src), policy.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	ds, err := NewSet(p)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// spansOf lists "detector:text" of every detection.
func spansOf(s string, ds []Detection) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, d.Detector+":"+s[d.Start:d.End])
	}
	return out
}

func TestDictionary(t *testing.T) {
	ds := dictSet(t, `
detection:
  dictionaries:
    - name: crm
      label: CUSTOMER
      terms: ["Acme Widgets", "Acme", "AT&T", "Müller Bau", "Ωmega Σοφία", "東京商事", "C++ Guild", "#bluebird", "  Initech  "]
    - name: codes
      terms: ["Project Bluebird", "acme"]
`)
	sel := Select(nil, 0)
	cases := []struct {
		text string
		want []string
	}{
		{"Order from Acme Widgets today", []string{"crm:Acme Widgets"}},
		{"ACME WIDGETS and acme", []string{"crm:ACME WIDGETS", "crm:acme"}},
		{"Acme\n\t  Widgets", []string{"crm:Acme\n\t  Widgets"}},
		{"AcmeWidgets, Acmes, xAcme, Acme_1", []string{}},
		{"(Acme)", []string{"crm:Acme"}},
		{"AT&T AT & T at&t", []string{"crm:AT&T", "crm:at&t"}},
		{"MÜLLER BAU GmbH", []string{"crm:MÜLLER BAU"}},
		{"Müllers Bau", []string{}},
		{"ωMEGA ΣΟΦΊΑ", []string{"crm:ωMEGA ΣΟΦΊΑ"}},
		{"ωmega σοφίας", []string{}},
		{"株式会社東京商事の件", []string{"crm:東京商事"}},
		{"c++ guild", []string{"crm:c++ guild"}},
		{"x#Bluebird y", []string{"crm:#Bluebird"}},
		{"Initech", []string{"crm:Initech"}},
		{"project bluebird", []string{"codes:project bluebird"}},
		{"Project Bluebird2", []string{}},
		{"", []string{}},
	}
	for _, c := range cases {
		got := spansOf(c.text, ds.Detect(c.text, sel))
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: %v, want %v", c.text, got, c.want)
		}
		for _, d := range ds.Detect(c.text, sel) {
			if d.Basis != BasisDictionary || (d.Detector == "crm" && d.Label != "CUSTOMER") {
				t.Errorf("%q: %+v", c.text, d)
			}
		}
		if clean := ds.Clean(c.text, &sel); clean && len(c.want) > 0 {
			t.Errorf("Clean(%q) with a term in it", c.text)
		}
	}
}

// TestDictionarySelection: a dictionary is a detector like a custom one:
// selected by name or its group, switched off by disabled_detectors, and
// a longer built-in finding wins an overlap.
func TestDictionarySelection(t *testing.T) {
	src := `
detection:
  dictionaries:
    - {name: crm, terms: ["Acme Widgets", "alice@example.com support"]}
    - {name: codes, group: secrets, sensitivity: restricted, terms: [Bluebird]}
`
	ds := dictSet(t, src)
	text := "Acme Widgets ships Bluebird; mail alice@example.com support"
	for _, c := range []struct {
		names []string
		want  []string
	}{
		{nil, []string{"crm:Acme Widgets", "codes:Bluebird", "crm:alice@example.com support"}},
		{[]string{"@pii"}, []string{"crm:Acme Widgets", "crm:alice@example.com support"}},
		{[]string{"@secrets"}, []string{"codes:Bluebird"}},
		{[]string{"codes", "email"}, []string{"codes:Bluebird", "email:alice@example.com"}},
	} {
		sel := Select(c.names, 0)
		if got := spansOf(text, ds.Detect(text, sel)); !slices.Equal(got, c.want) {
			t.Errorf("%v: %v, want %v", c.names, got, c.want)
		}
	}
	if got := spansOf(text, ds.Detect(text, Select(nil, policy.Restricted))); !slices.Equal(got, []string{"codes:Bluebird"}) {
		t.Errorf("min_sensitivity restricted: %v", got)
	}
	off := dictSet(t, src+"disabled_detectors: [crm]\n")
	if got := spansOf(text, off.Detect(text, Select(nil, 0))); !slices.Equal(got, []string{"codes:Bluebird", "email:alice@example.com"}) {
		t.Errorf("crm disabled: %v", got)
	}
}

// dictOracle finds the terms in s by a naive search: one RE2 expression
// per term ((?i) folds as dictionaries do), tried at every position, and
// the boundary rule checked around each match.
func dictOracle(terms []string, s string) [][2]int {
	word := func(r rune) bool {
		if r == '_' {
			return true
		}
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar) {
			return false
		}
		return r != unicode.ReplacementChar && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r))
	}
	var out [][2]int
	for _, term := range terms {
		rs := []rune(strings.TrimFunc(term, unicode.IsSpace))
		if len(rs) == 0 {
			continue
		}
		var src strings.Builder
		src.WriteString(`(?i)^`)
		for i := 0; i < len(rs); i++ {
			if unicode.IsSpace(rs[i]) {
				for i+1 < len(rs) && unicode.IsSpace(rs[i+1]) {
					i++
				}
				src.WriteString(`[\t\n\v\f\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]+`)
				continue
			}
			src.WriteString(regexp.QuoteMeta(string(rs[i])))
		}
		re := regexp.MustCompile(src.String())
		first, last := word(rs[0]), word(rs[len(rs)-1])
		for i := 0; i < len(s); i++ {
			if i > 0 && !boundary(s, i) {
				continue
			}
			m := re.FindStringIndex(s[i:])
			if m == nil {
				continue
			}
			end := i + m[1]
			before, _ := lastRune(s[:i])
			after, _ := firstRune(s[end:])
			if (first && i > 0 && word(before)) || (last && end < len(s) && word(after)) {
				continue
			}
			out = append(out, [2]int{i, end})
		}
	}
	slices.SortFunc(out, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return slices.Compact(out)
}

func lastRune(s string) (rune, bool) {
	rs := []rune(s)
	if len(rs) == 0 {
		return 0, false
	}
	return rs[len(rs)-1], true
}

func firstRune(s string) (rune, bool) {
	for _, r := range s {
		return r, true
	}
	return 0, false
}

// dictMatches runs the matcher: every (start, end) it finds.
func dictMatches(m *dictMatcher, s string) [][2]int {
	var out [][2]int
	for _, h := range m.scan(s, nil, false) {
		out = append(out, [2]int{int(h.start), int(h.end)})
	}
	slices.SortFunc(out, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return slices.Compact(out)
}

// FuzzDictionary holds the matcher to the naive oracle.
func FuzzDictionary(f *testing.F) {
	f.Add("Acme Widgets\nAT&T\nΣοφία", "see ACME  widgets, at&t and σοφία!")
	f.Add("ſtar\nK9", "STAR k9 Kelvin K9")
	f.Add("東京\n a b ", "東京都 a\u00a0b")
	f.Add("x\u0301y", "X\u0301Y x\u0301yz")
	f.Fuzz(func(t *testing.T, termList, text string) {
		var terms []string
		for _, term := range strings.Split(termList, "\n") {
			if strings.TrimSpace(term) != "" && len(term) <= policy.MaxTermBytes && !strings.ContainsRune(term, unicode.ReplacementChar) && validUTF8(term) {
				terms = append(terms, term)
			}
		}
		if len(terms) > 8 || !validUTF8(text) {
			return
		}
		m := newDictMatcher([][]string{terms})
		got, want := dictMatches(m, text), dictOracle(terms, text)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("terms %q in %q: matcher %v, oracle %v", terms, text, got, want)
		}
	})
}

func validUTF8(s string) bool { return strings.ToValidUTF8(s, "\x00") == s }

// TestDictionaryRandom: generated terms found in generated text, against
// the oracle.
func TestDictionaryRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"acme", "Widgets", "Müller", "σοφία", "東京", "&", "-", "Co.", "42", "ſ", "K"}
	pick := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 && r.IntN(3) > 0 {
				b.WriteString([]string{" ", "  ", "\n", "\u00a0"}[r.IntN(4)])
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		return b.String()
	}
	for range 300 {
		var terms []string
		for range 1 + r.IntN(5) {
			terms = append(terms, pick(1+r.IntN(3)))
		}
		text := pick(5 + r.IntN(20))
		m := newDictMatcher([][]string{terms})
		if got, want := dictMatches(m, text), dictOracle(terms, text); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("terms %q in %q: matcher %v, oracle %v", terms, text, got, want)
		}
	}
}

// benchTerms generates n distinct company names and codenames of one to
// three words, from syllables (no real names).
func benchTerms(n int) []string {
	r := rand.New(rand.NewPCG(7, 11))
	syl := []string{"ka", "vel", "mor", "tri", "xan", "lo", "qui", "ber", "sto", "nex", "dra", "ul", "fen", "zor", "pa", "rin", "tho", "gla", "wes", "ony"}
	tails := []string{"Holdings", "GmbH", "Ltd", "Systems", "Partners", "& Söhne", "S.A.", "Logistics", "Labs", "Group"}
	word := func() string {
		var b strings.Builder
		for range 2 + r.IntN(2) {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		w := b.String()
		return strings.ToUpper(w[:1]) + w[1:]
	}
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var t string
		switch r.IntN(3) {
		case 0:
			t = word() + " " + tails[r.IntN(len(tails))]
		case 1:
			t = "Project " + word() + " " + fmt.Sprint(r.IntN(100))
		default:
			t = word() + " " + word()
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// BenchmarkDictionary100k scans the mixed corpus (realistic text: tool
// results, prose, JSON) with a dictionary of 100,000 terms, one in every
// few hundred bytes of the text being a term: /matcher is the matcher
// alone over the whole corpus, /detect the Set with the dictionary
// selected alone over each input (reader view, hits, overlaps).
func BenchmarkDictionary100k(b *testing.B) {
	terms := benchTerms(100_000)
	whole, docs := readMixed(b)
	// A term every ~400 bytes, at a space.
	var tb strings.Builder
	planted := 0
	for i, w := range strings.SplitAfter(whole, " ") {
		tb.WriteString(w)
		if i%60 == 59 {
			tb.WriteString(terms[(i*7919)%len(terms)] + " ")
			planted++
		}
	}
	text := tb.String()
	p := &policy.Policy{Detection: &policy.Detection{Dictionaries: []policy.Dictionary{
		{Name: "crm", Label: "CUSTOMER", Sensitivity: policy.Confidential, Group: "pii", Terms: terms},
	}}}
	ds, err := NewSet(p)
	if err != nil {
		b.Fatal(err)
	}
	m := ds.main.dict
	if found := len(m.scan(text, nil, false)); found < planted {
		b.Fatalf("found %d terms, planted %d", found, planted)
	}
	b.Run("matcher", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		var buf []dictHit
		b.ResetTimer()
		for b.Loop() {
			buf = m.scan(text, buf[:0], false)
		}
		b.ReportMetric(float64(m.bytes()), "table-bytes")
	})
	b.Run("detect", func(b *testing.B) {
		sel := Select([]string{"crm"}, 0)
		var inputs []string
		n := 0
		for i, d := range docs {
			if i%4 == 0 {
				d = terms[i%len(terms)] + ", " + d
			}
			inputs = append(inputs, d)
			n += len(d)
		}
		b.SetBytes(int64(n))
		var dst []Detection
		b.ResetTimer()
		for b.Loop() {
			for _, s := range inputs {
				dst = ds.DetectAppend(dst[:0], s, sel)
			}
		}
	})
}

// FuzzCleanDictionary: with dictionaries, Clean(s) still implies that
// Detect finds nothing in s (the contract transforms rely on to skip
// strings), for every selection.
func FuzzCleanDictionary(f *testing.F) {
	ds := dictSet(f, `
detection:
  dictionaries:
    - {name: crm, terms: ["Acme Widgets", "Σοφία", "東京", "AT&T", "x"]}
    - {name: codes, group: secrets, terms: [Bluebird, "42"]}
`)
	sels := []Selection{Select(nil, 0), Select([]string{"@pii"}, 0), Select([]string{"@secrets"}, 0), Select([]string{"codes"}, 0), Select([]string{"email"}, 0)}
	f.Add("see ACME  widgets")
	f.Add("at&t 42 bluebird")
	f.Add("ΣΟΦΊΑ in 東京都")
	f.Add("code \u0359" + "42; B&#108;uebird") // the reader view joins and decodes: Detect finds both
	f.Fuzz(func(t *testing.T, s string) {
		for i := range sels {
			if ds.Clean(s, &sels[i]) {
				if found := ds.Detect(s, sels[i]); len(found) > 0 {
					t.Fatalf("selection %d: Clean(%q), but Detect finds %v", i, s, found)
				}
			}
		}
	})
}
