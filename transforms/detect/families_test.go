package detect

import (
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/benchdata"
)

var updateFamilies = flag.Bool("update-families", false, "rewrite testdata/families_golden.txt")

const familiesGolden = "testdata/families_golden.txt"

// TestFamiliesFindAsBefore pins what the family scans (ids, addresses,
// birth dates, labels; not the names, whose scan is another's) find over
// the mixed corpus (its strings, documents and the whole) and every line
// of the detector corpus: per scan and detector, how many spans and a
// fingerprint of them (input, start, end, basis), and which inputs
// familiesClean passes. The scans' drivers are rewritten for speed from
// time to time; each rewrite must find exactly what the pin says (run
// with -update-families only when what they find is meant to change).
func TestFamiliesFindAsBefore(t *testing.T) {
	whole, docs := readMixed(t)
	var texts []string
	for _, in := range benchdata.MixedInputs(whole, docs) {
		texts = append(texts, in.Texts...)
	}
	for _, name := range builtinNames {
		f, err := os.ReadFile(filepath.Join(corpusDir, name+".txt"))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(f), "\n") {
			if len(line) < 2 || line[0] == '#' {
				continue
			}
			line = strings.NewReplacer("«", "", "»", "", `\n`, "\n").Replace(line[2:])
			texts = append(texts, line)
		}
	}
	type tally struct {
		n int
		h uint64
	}
	got := map[string]*tally{}
	add := func(scope string, i int, spans []Span, dets []uint16) {
		for k, sp := range spans {
			d := int(dets[k] & detMask)
			key := scope + " " + builtinNames[d]
			tl := got[key]
			if tl == nil {
				tl = &tally{h: 14695981039346656037}
				got[key] = tl
			}
			tl.n++
			h := fnv.New64a()
			fmt.Fprintf(h, "%x %d %d %d %d", tl.h, i, sp.Start, sp.End, dets[k]>>basisShift)
			tl.h = h.Sum64()
		}
	}
	fam := familyMask &^ (1 << detPerson)
	scans := []struct {
		name string
		f    func(*pass)
	}{
		{"ids", (*pass).scanIDs},
		{"addresses", (*pass).scanAddresses},
		{"dob", (*pass).scanBirthDates},
		{"labelled", (*pass).scanLabelled},
		{"families", (*pass).runFamilies},
	}
	for i, s := range texts {
		for _, sc := range scans {
			p := pass{s: s, fam: fam, multi: true}
			sc.f(&p)
			add(sc.name, i, p.spans, p.dets)
		}
		// One detector alone (Builtin, scanBuiltin).
		for d := numPass; d < numBuiltins; d++ {
			if d == detPerson {
				continue
			}
			p := pass{s: s, fam: 1 << d, multi: true}
			p.runFamilies()
			add("alone", i, p.spans, p.dets)
		}
		for _, f := range []struct {
			name string
			fam  uint64
		}{{"all", fam}, {"ids", idScanned}, {"addresses", 1 << detStreetAddress}, {"dob", 1 << detDateOfBirth}, {"labelled", labelFamily}} {
			if familiesClean(s, f.fam) {
				key := "clean " + f.name
				tl := got[key]
				if tl == nil {
					tl = &tally{h: 14695981039346656037}
					got[key] = tl
				}
				tl.n++
				h := fnv.New64a()
				fmt.Fprintf(h, "%x %d", tl.h, i)
				tl.h = h.Sum64()
			}
		}
	}
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "# TestFamiliesFindAsBefore: %d inputs; scope detector count fingerprint\n", len(texts))
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %d %#x\n", k, got[k].n, got[k].h)
	}
	if *updateFamilies {
		if err := os.WriteFile(familiesGolden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(familiesGolden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != b.String() {
		wl, gl := strings.Split(string(want), "\n"), strings.Split(b.String(), "\n")
		wm := map[string]bool{}
		for _, l := range wl {
			wm[l] = true
		}
		gm := map[string]bool{}
		for _, l := range gl {
			gm[l] = true
			if !wm[l] {
				t.Errorf("now:    %s", l)
			}
		}
		for _, l := range wl {
			if !gm[l] {
				t.Errorf("pinned: %s", l)
			}
		}
	}
}

// BenchmarkFamilyScans: each family scan alone over the whole mixed
// corpus (one string), and all of them (runFamilies without the names),
// and familiesClean over the corpus's strings.
func BenchmarkFamilyScans(b *testing.B) {
	whole, docs := readMixed(b)
	fam := familyMask &^ (1 << detPerson)
	for _, sc := range []struct {
		name string
		f    func(*pass)
	}{
		{"ids", (*pass).scanIDs},
		{"addresses", (*pass).scanAddresses},
		{"dob", (*pass).scanBirthDates},
		{"labelled", (*pass).scanLabelled},
		{"all", (*pass).runFamilies},
	} {
		b.Run(sc.name, func(b *testing.B) {
			b.SetBytes(int64(len(whole)))
			b.ReportAllocs()
			var spans []Span
			var dets []uint16
			for b.Loop() {
				p := pass{s: whole, fam: fam, multi: true, spans: spans[:0], dets: dets[:0]}
				sc.f(&p)
				spans, dets = p.spans, p.dets
			}
		})
	}
	strs := benchdata.MixedStrings(docs)
	b.Run("clean", func(b *testing.B) {
		b.SetBytes(benchdata.TotalLen(strs))
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range strs {
				familiesClean(s, fam)
			}
		}
	})
}

// TestDigitFamiliesCleanAlike: familiesClean tests the digit families
// with one look for a digit, which is what each of their clean tests is.
func TestDigitFamiliesCleanAlike(t *testing.T) {
	for _, s := range []string{"", "abc", "a1", "12", "éà 9", strings.Repeat("x", 17) + "0"} {
		want := nextDigit(s, 0) == len(s)
		if idsClean(s) != want || addressesClean(s) != want || birthDatesClean(s) != want {
			t.Errorf("%q: the digit families' clean tests differ", s)
		}
	}
}

// A family's span that loses an overlap keeps what lies past the winner,
// so none of it stays in clear (regression: the address after a birth
// date whose year its scan read as a house number was dropped whole).
func TestOverlapKeepsFamilyRemainder(t *testing.T) {
	ds := allDetectors(t)
	for _, c := range []struct{ text, det, want string }{
		{"Szanowna Pani Anna Kowalska, urodzona 4 marca 1985, ul. Marszałkowska 1, 00-624 Warszawa.", "street_address", "ul. Marszałkowska 1, 00-624 Warszawa"},
		{"urodzona 4 marca 1985, ul. Marszałkowska 1, 00-624 Warszawa.", "date_of_birth", "4 marca 1985"},
	} {
		found := false
		for _, d := range ds.Detect(c.text, Select(nil, 0)) {
			if d.Detector == c.det && c.text[d.Start:d.End] == c.want {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: no %s %q in %v", c.text, c.det, c.want, ds.Detect(c.text, Select(nil, 0)))
		}
	}
}

// digitFilterInputs is what the digit walk's filters are checked on: the
// mixed corpus's documents and every line of the detector corpus.
func digitFilterInputs(tb testing.TB) []string {
	_, docs := readMixed(tb)
	texts := append([]string(nil), docs...)
	for _, name := range builtinNames {
		f, err := os.ReadFile(filepath.Join(corpusDir, name+".txt"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(f), "\n") {
			if len(line) >= 2 && line[0] != '#' {
				texts = append(texts, strings.NewReplacer("«", "", "»", "", `\n`, "\n").Replace(line[2:]))
			}
		}
	}
	return texts
}

// checkDigitFilters fails when one of scanDigits' filters refuses a digit
// run whose scan finds something there: addrBefore/addrWorth before
// addressAt.
func checkDigitFilters(t *testing.T, s string) {
	for i := nextDigit(s, 0); i < len(s); i = nextDigit(s, skipDigits(s, i)) {
		var b byte
		if i > 0 {
			b = s[i-1]
		}
		if a, e := addressAt(s, i); e > a && (addrBefore[b] == 0 || addrBefore[b] != 1 && !addrWorth(s, i, addrBefore[b])) {
			t.Fatalf("%q: addressAt(%d) = %d, %d past a refusing filter (kind %d)", s, i, a, e, addrBefore[b])
		}
	}
}

// TestDigitFilters: the digit walk's filters refuse no run the scans find
// something at, over the corpora.
func TestDigitFilters(t *testing.T) {
	for _, s := range digitFilterInputs(t) {
		checkDigitFilters(t, s)
	}
}

// FuzzDigitFilters is TestDigitFilters on any text.
func FuzzDigitFilters(f *testing.F) {
	for _, s := range []string{"12 rue de la Paix", "Hauptstraße 12, 10115 Berlin", "〒100-0001 東京都千代田区千代田1-1", "PLZ: 10115", "D-10115 Berlin", "221B Baker Street, London NW1 6XE", "Flat 3, 5 High Road", "(12 Main St)", "\"5 Place Vendôme\"", "a,12, Calle Mayor", "12 5th Ave"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkDigitFilters(t, s) })
}

// TestRecordedFamilies: the family scans find the same from what the
// pass recorded (Set.Detect) as from walking the string themselves, over
// the corpora.
func TestRecordedFamilies(t *testing.T) {
	texts := digitFilterInputs(t)
	_, docs := readMixed(t)
	texts = append(texts, benchdata.MixedStrings(docs)...)
	for _, s := range texts {
		recordedSame(t, s)
	}
}

// FuzzRecordedFamilies is TestRecordedFamilies on any text, with seeds
// for labelCands's borrow (a byte one more than a separator after it)
// at every position in a word.
func FuzzRecordedFamilies(f *testing.F) {
	for _, s := range []string{"Name: Alice Martin", "Nom：\x9bAlice", "Date of birth:; 4 March 1985", "IBAN=<DE89", "Name\t\bAlice",
		"Tel – \x92 555", "Passport No.: C01X00T47", "born 04/03/1985", "12 rue de la Paix, 75002 Paris", "BSN 111222333"} {
		for pad := range 8 {
			f.Add(strings.Repeat(" ", pad) + s)
		}
	}
	f.Fuzz(func(t *testing.T, s string) { recordedSame(t, s) })
}

// recordedSame fails t unless every family scan finds in s from the
// pass's records what it finds walking s, with the pass's detectors and
// without them.
func recordedSame(t *testing.T, s string) {
	t.Helper()
	for _, on := range []uint32{0, allPass} {
		got := pass{s: s, on: on, fam: familyMask, tab: newTrigTable(on | trigRuns | trigLabels), multi: true, recRuns: true, recLabels: true}
		got.run()
		got.runFamilies()
		want := pass{s: s, on: on, fam: familyMask, tab: newTrigTable(on), multi: true}
		want.run()
		want.runFamilies()
		if !slices.Equal(got.spans, want.spans) || !slices.Equal(got.dets, want.dets) {
			t.Fatalf("recorded %v %v, walked %v %v, in %q", got.spans, got.dets, want.spans, want.dets, s)
		}
	}
}
