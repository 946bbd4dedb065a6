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
