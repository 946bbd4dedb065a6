package jsondoc

import (
	"strings"
	"testing"
)

// TestSameBytes: SameBytes is string(b) == s at every length (each branch
// of its loads, and past them), whatever byte differs, and for b cut
// from a larger buffer (its loads stay within b).
func TestSameBytes(t *testing.T) {
	for n := 0; n <= 40; n++ {
		s := strings.Repeat("abcdefghij", 5)[:n]
		buf := []byte("[" + s + "]")
		b := buf[1 : 1+n]
		if !SameBytes(b, s) {
			t.Errorf("SameBytes(%q, %q) = false", b, s)
		}
		if n > 0 && SameBytes(b[:n-1], s) {
			t.Errorf("SameBytes of a shorter slice of %q = true", s)
		}
		for i := 0; i < n; i++ {
			other := []byte(s)
			other[i] ^= 0x20
			if SameBytes(other, s) {
				t.Errorf("SameBytes(%q, %q) = true", other, s)
			}
		}
	}
}
