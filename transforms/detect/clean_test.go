package detect

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/policy"
)

// cleanSelections are selections whose tables differ: every detector, each
// group, a sensitivity floor, and each built-in alone.
func cleanSelections() []Selection {
	sels := []Selection{Select(nil, 0), groupSelections["pii"], groupSelections["secrets"], Select(nil, policy.Confidential)}
	for _, name := range builtinNames {
		sels = append(sels, Select([]string{name}, 0))
	}
	return sels
}

// cleanSame fails t if Clean says s holds nothing for a selection in which
// Detect finds something.
func cleanSame(t *testing.T, ds *Set, sels []Selection, s string) {
	t.Helper()
	for i := range sels {
		if ds.Clean(s, &sels[i]) {
			if found := ds.Detect(s, sels[i]); len(found) > 0 {
				t.Fatalf("Clean(%q) with selection %d, but Detect finds %v", s, i, found)
			}
		}
	}
}

// TestCleanFindsNothing: a string Clean passes has no detection, for every
// selection: on the detector corpus (whole lines, and every value with a
// little context cut at every length), the mixed corpus, and random
// strings over the detectors' alphabets, the reader view's special bytes
// among them.
func TestCleanFindsNothing(t *testing.T) {
	ds, sels := allDetectors(t), cleanSelections()
	for _, name := range builtinNames {
		for _, c := range readCorpus(t, name) {
			cleanSame(t, ds, sels, c.text)
			for _, w := range c.want {
				v := c.text[max(0, w.Start-3):min(len(c.text), w.End+3)]
				for k := 0; k <= len(v); k++ {
					cleanSame(t, ds, sels, v[:k])
					cleanSame(t, ds, sels, v[k:])
				}
			}
		}
	}
	_, docs := readMixed(t)
	for _, doc := range docs {
		cleanSame(t, ds, sels, doc)
		for _, line := range strings.Split(doc, "\n") {
			cleanSame(t, ds, sels, line)
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	// The detectors' alphabets, and the reader view's special bytes.
	alphabets := append(slices.Clip(detectorAlphabets), "://user:pass@host#@ \\\"0123&%", "ａｌｉｃｅ＠ｅｘａｍｐｌｅ.com\u200b&#64;%40 alice bob")
	for range 20000 {
		alpha := []rune(alphabets[r.IntN(len(alphabets))])
		b := make([]rune, 1+r.IntN(60))
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
		}
		cleanSame(t, ds, sels, string(b))
	}
}

// TestCleanPasses: prose and names without a trigger are clean (Clean is
// the whole scan for them), whatever their length and wherever the eight-
// byte words end; a trigger or a byte the reader view reads differently
// anywhere in them, at the start, in the middle or in the last bytes, is
// not.
func TestCleanPasses(t *testing.T) {
	ds, all := allDetectors(t), Select(nil, 0)
	clean := []string{
		"", "gold", "bob keller", "Get customers. Supports paging.", "prefers email, renewal due in March",
		"Search terms", "Only validate", "Comment on invoices", "Export repositories for the next window opened",
	}
	for _, s := range clean {
		for pad := 0; pad < 9; pad++ {
			p := strings.Repeat("a", pad) + s
			if !ds.Clean(p, &all) {
				t.Errorf("Clean(%q) = false", p)
			}
		}
	}
	for _, dirty := range []string{"4", "a@b", "x:y", "\\", "&", "%", "é", "\u200b", "Bearer", " AKIA", "_"} {
		for _, s := range clean {
			for _, at := range []int{0, len(s) / 2, len(s)} {
				d := s[:at] + dirty + s[at:]
				if ds.Clean(d, &all) {
					t.Errorf("Clean(%q) = true", d)
				}
			}
		}
	}
	// A detector the selection leaves out does not make its trigger dirty.
	emailOnly := Select([]string{"email"}, 0)
	if !ds.Clean("call 555 0100 at 10:30", &emailOnly) || ds.Clean("mail a@b.c", &emailOnly) {
		t.Error("Clean does not follow the selection")
	}
	// Custom detectors may match anything: never clean.
	withCustom, err := NewSet(&policy.Policy{Detectors: []policy.DetectorConfig{{Name: "word", Pattern: "gold", Label: "WORD"}}})
	if err != nil {
		t.Fatal(err)
	}
	if withCustom.Clean("gold", &all) {
		t.Error("Clean with a custom detector")
	}
}

// FuzzClean: Clean never passes a string in which Detect finds something.
func FuzzClean(f *testing.F) {
	addCorpusSeeds(f)
	ds, sels := allDetectors(f), cleanSelections()
	f.Fuzz(func(t *testing.T, s string) {
		cleanSame(t, ds, sels, s)
	})
}

// A policy's context words make names of what the built-ins leave: Clean
// must look with them (regression: familiesClean read no Extra).
func TestCleanWithPolicyContext(t *testing.T) {
	ds := dictSet(t, `
detection:
  context:
    person: [zxqkunde]
`)
	sel := Select(nil, 0)
	s := "zxqkunde Alice"
	found := ds.Detect(s, sel)
	if len(found) == 0 {
		t.Fatalf("the person scan finds nothing in %q with the policy's word", s)
	}
	if !familiesClean(s, 1<<detPerson) {
		t.Fatalf("%q is not clean without the policy's word: the test would prove nothing", s)
	}
	if ds.Clean(s, &sel) {
		t.Errorf("Clean(%q) with the policy's context word, but Detect finds %v", s, found)
	}
}
