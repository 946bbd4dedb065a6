package jsondoc

import "testing"

// KeyRaw and StrRaw give the bytes as written only when they are the
// value: no escape, not replaced.
func TestKeyRawStrRaw(t *testing.T) {
	d, err := Parse([]byte(`{"plain":"v","\u0065sc":"a\u0062","k":1}`))
	if err != nil {
		t.Fatal(err)
	}
	plain, esc, num := d.First(Root), d.Next(d.First(Root)), d.Get(Root, "k")
	if k, ok := d.KeyRaw(plain); !ok || string(k) != "plain" {
		t.Errorf("KeyRaw(plain) = %q, %v", k, ok)
	}
	if v, ok := d.StrRaw(plain); !ok || string(v) != "v" {
		t.Errorf("StrRaw(plain) = %q, %v", v, ok)
	}
	if _, ok := d.KeyRaw(esc); ok {
		t.Error("KeyRaw of an escaped key")
	}
	if _, ok := d.StrRaw(esc); ok {
		t.Error("StrRaw of an escaped string")
	}
	if _, ok := d.StrRaw(num); ok {
		t.Error("StrRaw of a number")
	}
	if _, ok := d.KeyRaw(Root); ok {
		t.Error("KeyRaw of the root")
	}
	d.SetString(plain, "w")
	if _, ok := d.StrRaw(plain); ok {
		t.Error("StrRaw of a replaced string")
	}
}
