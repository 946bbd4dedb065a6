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
