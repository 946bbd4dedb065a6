package vault

import (
	"strings"
	"testing"
)

// cacheHash hashes triples, not their concatenation: moving a byte from
// one string to the next, or to an empty neighbour, gives another hash.
// Every byte and every length counts, the tail's bytes included.
func TestCacheHashTellsTriplesApart(t *testing.T) {
	seed := newCacheSeed()
	long := strings.Repeat("x", 17)
	triples := [][3]string{
		{"", "", ""},
		{"", "", "a"},
		{"", "a", ""},
		{"a", "", ""},
		{"ab", "c", ""},
		{"a", "bc", ""},
		{"", "EMAIL", "alice@example.com"},
		{"", "EMAIL", "alice@example.con"},
		{"", "EMAIL", "blice@example.com"},
		{"", "EMAIL", "alice@example.co"},
		{"", "EMAIL", "alice@example.com\x00"},
		{"", "PHONE", "alice@example.com"},
		{"t", "EMAIL", "alice@example.com"},
		{"", long, ""},
		{"", long[:16], "x"},
		{"", long[:8], long[:9]},
	}
	seen := map[uint64][3]string{}
	for _, tr := range triples {
		h := cacheHash(seed, tr[0], tr[1], tr[2])
		if h != cacheHash(seed, strings.Clone(tr[0]), strings.Clone(tr[1]), strings.Clone(tr[2])) {
			t.Errorf("%q: the hash depends on more than the bytes", tr)
		}
		if prev, dup := seen[h]; dup {
			t.Errorf("%q and %q have the same hash", prev, tr)
		}
		seen[h] = tr
	}
	// Another seed puts the same values in other sets.
	other := newCacheSeed()
	moved := 0
	for _, tr := range triples {
		if cacheSetOf(cacheHash(seed, tr[0], tr[1], tr[2])) != cacheSetOf(cacheHash(other, tr[0], tr[1], tr[2])) {
			moved++
		}
	}
	if moved < len(triples)/2 {
		t.Errorf("only %d of %d triples change sets with the seed", moved, len(triples))
	}
}
