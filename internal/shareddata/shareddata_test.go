package shareddata

import "testing"

// Local keeps proxy-wasm's semantics: a set of a missing key or with CAS 0
// always succeeds, a stale CAS fails, values are copied.
func TestLocal(t *testing.T) {
	s := NewLocal()
	if _, _, ok := s.Get("k"); ok {
		t.Fatal("a key before any set")
	}
	v := []byte("a")
	if !s.Set("k", v, 12345) {
		t.Fatal("set of a missing key with a CAS failed")
	}
	v[0] = 'x'
	got, cas, ok := s.Get("k")
	if !ok || string(got) != "a" {
		t.Fatalf("got %q %v: the store must copy", got, ok)
	}
	if s.Set("k", []byte("b"), cas+1) {
		t.Error("a stale CAS succeeded")
	}
	if !s.Set("k", []byte("b"), cas) || !s.Set("k", []byte("c"), 0) {
		t.Error("a matching CAS, or CAS 0, failed")
	}
}

// casPerKey refuses a non-zero CAS for a missing key, unlike proxy-wasm.
type casPerKey map[string]uint32

func (s casPerKey) Get(key string) ([]byte, uint32, bool) {
	c, ok := s[key]
	return nil, c, ok
}

func (s casPerKey) Set(key string, _ []byte, cas uint32) bool {
	if cas != 0 && cas != s[key] {
		return false
	}
	s[key]++
	return true
}

func TestCreate(t *testing.T) {
	for name, s := range map[string]Store{"local": NewLocal(), "cas per key": casPerKey{}} {
		if !Create(s, "k", []byte("1")) {
			t.Errorf("%s: creating a missing key failed", name)
		}
		if Create(s, "k", []byte("2")) {
			t.Errorf("%s: Create overwrote an existing key", name)
		}
	}
}
