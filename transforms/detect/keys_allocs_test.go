//go:build !race

package detect

import "testing"

// TestKeyedPhoneNoAllocs: a value read as a phone under its key costs no
// allocation once the scratch is pooled (it cost two, per value, in the
// output pipeline). Not under -race, whose sync.Pool drops items.
func TestKeyedPhoneNoAllocs(t *testing.T) {
	for _, v := range []string{"+44 20 7946 0958", "030 12345678", "not a phone"} {
		want := v != "not a phone"
		if got := keyedPhone(v); got != want {
			t.Fatalf("keyedPhone(%q) = %v", v, got)
		}
		if n := testing.AllocsPerRun(50, func() { keyedPhone(v) }); n != 0 {
			t.Errorf("keyedPhone(%q): %.1f allocations", v, n)
		}
	}
}
