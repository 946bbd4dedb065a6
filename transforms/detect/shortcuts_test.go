package detect

// Shortcuts of the hot path against the long way they stand for.

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/policy"
)

// TestSortHitsAsStableSort: the merge of resolve puts any hits, in runs
// or not, in the order a stable sort by hitBefore gives (ties keep their
// order), and leaves the buffer it is given reusable.
func TestSortHitsAsStableSort(t *testing.T) {
	ds, err := NewSet(&policy.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var buf []hit
	for round := range 3000 {
		n := r.IntN(40)
		hs := make([]hit, n)
		// Runs in order, as the pass and the families append them, or
		// hits in no order at all.
		runs := round%3 != 0
		at := 0
		for i := range hs {
			if runs && r.IntN(8) == 0 {
				at = r.IntN(50)
			} else if runs {
				at += r.IntN(3)
			} else {
				at = r.IntN(50)
			}
			hs[i] = hit{start: at, end: at + 1 + r.IntN(4), det: uint16(r.IntN(numBuiltins)), basis: Basis(r.IntN(3))}
		}
		want := slices.Clone(hs)
		slices.SortStableFunc(want, func(a, b hit) int {
			switch {
			case ds.hitBefore(&a, &b):
				return -1
			case ds.hitBefore(&b, &a):
				return 1
			}
			return 0
		})
		buf = ds.sortHits(hs, buf)
		if !slices.Equal(hs, want) {
			t.Fatalf("round %d: sortHits gave\n%v\nwant\n%v", round, hs, want)
		}
	}
}

// TestWordStartsRulesOutOnlyAbsentWords: a context word wordStarts rules
// out is one lastWord does not find in the window, for every identifier
// word, in windows of text around them (camelCase, JSON escapes, accents,
// CJK, words glued to letters).
func TestWordStartsRulesOutOnlyAbsentWords(t *testing.T) {
	var words []string
	for _, d := range idDefs {
		words = append(words, d.words...)
	}
	words = append(words, phoneWords[:]...)
	pieces := []string{" ", "  ", ":", "\\n", "customer", "x", "Ab", "é", "日本", "2024", "-", "(", "\"", "sécu", "Nr."}
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 20000 {
		var b []byte
		for len(b) < 80 {
			switch r.IntN(3) {
			case 0:
				w := words[r.IntN(len(words))]
				if r.IntN(2) == 0 {
					w = strings.ToUpper(w)
				}
				b = append(b, strings.TrimSuffix(w, "*")...)
			default:
				b = append(b, pieces[r.IntN(len(pieces))]...)
			}
		}
		s := string(b)
		a := r.IntN(len(s) + 1)
		lo := max(0, a-idWindow)
		var ws wordStarts
		ws.read(s, lo, a)
		for _, w := range words {
			if !ws.may(w) && lastWord(s, lo, a, w) >= 0 {
				t.Fatalf("round %d: %q in %q before %d ruled out, lastWord finds it", round, w, s[lo:a], a)
			}
		}
	}
}

// TestWordTableAsFoldedMap: a wordTable answers as a map of its words
// looked up with the word folded (lowerKey's folding, or ASCII alone),
// for the scans' tables in every case and for words it does not hold.
func TestWordTableAsFoldedMap(t *testing.T) {
	fold := func(w string, latin1 bool) string {
		b := []byte(w)
		for k, c := range b {
			if c-'A' < 26 {
				b[k] = c + 32
			} else if latin1 && k > 0 && w[k-1] == 0xc3 && c >= 0x80 && c <= 0x9e && c != 0x97 {
				b[k] = c + 0x20
			}
		}
		return string(b)
	}
	upper := func(w string, latin1 bool) string {
		b := []byte(w)
		for k, c := range b {
			if c-'a' < 26 {
				b[k] = c - 32
			} else if latin1 && k > 0 && w[k-1] == 0xc3 && c >= 0xa0 && c <= 0xbe && c != 0xb7 {
				b[k] = c - 0x20
			}
		}
		return string(b)
	}
	tables := map[string]*wordTable{"streetTypes": streetTypes, "connectors": connectors, "unitWords": unitWords,
		"addrMarks": addrMarks, "monthNames": monthNames, "gapWords": gapWords}
	for name, tab := range tables {
		ref := map[string]uint16{}
		for _, sl := range tab.slots {
			if sl.val != 0 {
				ref[sl.word] = sl.val
			}
		}
		if len(ref) == 0 {
			t.Fatalf("%s holds no word", name)
		}
		for w, v := range ref {
			for _, q := range []string{w, upper(w, tab.latin1), strings.ToUpper(w[:1]) + w[1:], w + "x", w[:len(w)-1], "x" + w} {
				if got, want := tab.get(q), ref[fold(q, tab.latin1)]; got != want {
					t.Fatalf("%s.get(%q) = %d, want %d (%q: %d)", name, q, got, want, w, v)
				}
			}
		}
	}
	// A table of random words against its map.
	r := rand.New(rand.NewPCG(5, 6))
	m := map[string]uint16{}
	word := func() string {
		b := make([]byte, 1+r.IntN(wordTableMax))
		for k := range b {
			b[k] = "abcxyzé\xc3"[r.IntN(8)]
		}
		return string(b)
	}
	for range 500 {
		m[word()] = uint16(1 + r.IntN(100))
	}
	tab := newWordTable(m, false)
	for w, v := range m {
		if tab.get(w) != v || tab.get(upper(w, false)) != v {
			t.Fatalf("random table: %q not found", w)
		}
	}
	for range 5000 {
		if w := word(); tab.get(w) != m[w] {
			t.Fatalf("random table: get(%q) = %d, want %d", w, tab.get(w), m[w])
		}
	}
}
