package jsondoc

import (
	"bytes"
	"testing"
	"unsafe"
)

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

// StrView is Str, sharing the source's bytes for a plain string;
// ValueString is the canonical serialization, edits applied; ParseInto
// fills a Doc as Parse does and leaves it empty on an error.
func TestStrViewValueStringParseInto(t *testing.T) {
	src := []byte(`{"plain":"v","esc":"a\u0062","empty":"","k":1.50,"o":{"x":[1, 2]}}`)
	var d Doc
	if err := ParseInto(&d, src); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key, want  string
		ok, shared bool
	}{
		{"plain", "v", true, true},
		{"esc", "ab", true, false},
		{"empty", "", true, false},
		{"k", "", false, false},
		{"o", "", false, false},
	} {
		n := d.Get(Root, c.key)
		v, ok := d.StrView(n)
		if v != c.want || ok != c.ok {
			t.Errorf("StrView(%s) = %q, %v; want %q, %v", c.key, v, ok, c.want, c.ok)
		}
		if shared := len(v) > 0 && bytes.Contains(src, []byte(v)) && unsafe.StringData(v) == &src[bytes.Index(src, []byte(`"`+v+`"`))+1]; shared != c.shared {
			t.Errorf("StrView(%s) shares the source: %v, want %v", c.key, shared, c.shared)
		}
	}
	if v := d.ValueString(d.Get(Root, "k")); v != "1.50" {
		t.Errorf("ValueString(k) = %q", v)
	}
	o := d.Get(Root, "o")
	if v := d.ValueString(o); v != `{"x":[1, 2]}` {
		t.Errorf("ValueString(o) = %q, want it as received", v)
	}
	d.SetString(d.Get(Root, "plain"), "w")
	if v, _ := d.StrView(d.Get(Root, "plain")); v != "w" {
		t.Errorf("StrView of a replaced string = %q", v)
	}
	d.Delete(d.First(d.Get(o, "x")))
	if v := d.ValueString(o); v != `{"x":[2]}` {
		t.Errorf("ValueString(o) after an edit = %q", v)
	}
	if err := ParseInto(&d, []byte(`{"a":1,"a":2}`)); err == nil || d.Kind(Root) != Invalid {
		t.Errorf("ParseInto of a bad body: %v, root %v", err, d.Kind(Root))
	}
}
