package entropy

import (
	"bytes"
	"testing"
)

func TestReadFills(t *testing.T) {
	a, b := make([]byte, 32), make([]byte, 32)
	if err := Read(a); err != nil {
		t.Fatal(err)
	}
	if err := Read(b); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a, b) || bytes.Equal(a, make([]byte, 32)) {
		t.Fatalf("not random: %x %x", a, b)
	}
}
