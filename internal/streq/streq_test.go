package streq

import (
	"strings"
	"testing"
)

func TestSame(t *testing.T) {
	s := "alice@example.com"
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"", "", true},
		{"", s[:0], true},
		{s, s, true},                // the same bytes
		{s, strings.Clone(s), true}, // equal bytes elsewhere
		{s[:5], strings.Clone(s[:5]), true},
		{s, "alice@example.con", false}, // same length
		{s, "blice@example.com", false},
		{s, s[:len(s)-1], false}, // a prefix, same start
		{s[1:], s[:len(s)-1], false},
		{"", "a", false},
	} {
		if got := Same(c.a, c.b); got != c.want {
			t.Errorf("Same(%q, %q) = %v", c.a, c.b, got)
		}
		if got := Same(c.b, c.a); got != c.want {
			t.Errorf("Same(%q, %q) = %v", c.b, c.a, got)
		}
	}
}

// Bytes agrees with bytes.Equal on every length and every position of a
// difference.
func TestBytes(t *testing.T) {
	base := make([]byte, 200)
	for i := range base {
		base[i] = byte(i*7 + 3)
	}
	for n := 0; n <= len(base); n++ {
		a := base[:n]
		b := append([]byte(nil), a...)
		if !Bytes(a, b) || !Bytes(a, a) {
			t.Fatalf("length %d: equal bytes differ", n)
		}
		for i := 0; i < n; i++ {
			b[i] ^= 0x40
			if Bytes(a, b) {
				t.Fatalf("length %d: a difference at %d not seen", n, i)
			}
			b[i] ^= 0x40
		}
		if n > 0 && Bytes(a, b[:n-1]) {
			t.Fatalf("length %d: a shorter slice is equal", n)
		}
	}
}
