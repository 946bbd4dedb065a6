package jsondoc

import (
	"bytes"
	"testing"
)

// BytesAt finds a root member's value in the output, edited or not.
func TestBytesAt(t *testing.T) {
	for _, c := range []struct {
		src, edit, member string
	}{
		{`{"jsonrpc":"2.0","id":17,"result":{"a":1}}`, "", "id"},
		{`{"jsonrpc":"2.0", "id" : "x-1" ,"result":{"a":1}}`, "a", "id"},
		{`{"result":{"a":1},"id":17}`, "a", "id"},
		{`{"result":{"a":1},"id":17}`, "", "result"},
	} {
		d, err := Parse([]byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		if c.edit != "" {
			d.SetRaw(d.Path(Root, "result", c.edit), []byte(`[2]`))
		}
		n := d.Get(Root, c.member)
		out, at := d.BytesAt(n)
		if string(out) != string(d.Bytes()) {
			t.Errorf("%s: BytesAt %s, Bytes %s", c.src, out, d.Bytes())
		}
		if raw := d.AppendValue(nil, n); at < 0 || !bytes.HasPrefix(out[at:], raw) {
			t.Errorf("%s: %s at %d in %s", c.src, raw, at, out)
		}
	}
	d, _ := Parse([]byte(`{"a":{"b":1}}`))
	if _, at := d.BytesAt(d.Path(Root, "a", "b")); at != -1 {
		t.Errorf("a member of a member found at %d", at)
	}
}
