package wasmhost

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"
)

func TestEncodePairsLayout(t *testing.T) {
	got := EncodePairs(Headers{{":path", "/a"}, {"k", ""}})
	var want []byte
	le := func(v uint32) { want = binary.LittleEndian.AppendUint32(want, v) }
	le(2)
	le(5)
	le(2)
	le(1)
	le(0)
	want = append(want, ":path\x00/a\x00k\x00\x00"...)
	if !bytes.Equal(got, want) {
		t.Fatalf("EncodePairs:\n got %q\nwant %q", got, want)
	}
	if got := EncodePairs(nil); !bytes.Equal(got, []byte{0, 0, 0, 0}) {
		t.Fatalf("EncodePairs(nil) = %q", got)
	}
}

func TestPairsRoundTrip(t *testing.T) {
	for _, h := range []Headers{
		{},
		{{":method", "POST"}, {":path", "/mcp?x=1"}, {":authority", "example.com"}},
		{{"dup", "1"}, {"dup", "2"}, {"empty", ""}, {"", "empty key"}},
		{{"utf8", "héllo ✓"}, {"binary", "a\x00b\xff"}},
	} {
		got, err := DecodePairs(EncodePairs(h))
		if err != nil {
			t.Fatalf("DecodePairs(EncodePairs(%v)): %v", h, err)
		}
		if !reflect.DeepEqual(got, h) {
			t.Fatalf("round trip: got %v want %v", got, h)
		}
	}
}

func TestDecodePairsMalformed(t *testing.T) {
	// Like proxy-wasm-cpp-host: too short for the count, or a count the
	// size table cannot hold, decodes as no pairs.
	for _, b := range [][]byte{nil, {1, 0}, {5, 0, 0, 0, 1, 0, 0, 0}} {
		h, err := DecodePairs(b)
		if err != nil || len(h) != 0 {
			t.Fatalf("DecodePairs(%q) = %v, %v; want no pairs", b, h, err)
		}
	}
	b := EncodePairs(Headers{{"key", "value"}})
	if _, err := DecodePairs(b[:len(b)-4]); err != ErrPairsTruncated {
		t.Fatalf("truncated data: err = %v", err)
	}
}

func TestHeadersOps(t *testing.T) {
	h := H("A", "1", "b", "2", "a", "3")
	if v, ok := h.Get("a"); !ok || v != "1" {
		t.Fatalf("Get = %q %v", v, ok)
	}
	if got := h.Values("A"); !reflect.DeepEqual(got, []string{"1", "3"}) {
		t.Fatalf("Values = %v", got)
	}
	h.Set("A", "x") // Envoy's setCopy: first entry only
	if !reflect.DeepEqual(h, H("a", "x", "b", "2", "a", "3")) {
		t.Fatalf("Set: %v", h)
	}
	h.Set("new", "n")
	h.Add("B", "4")
	h.Del("a")
	if !reflect.DeepEqual(h, H("b", "2", "new", "n", "b", "4")) {
		t.Fatalf("after Set/Add/Del: %v", h)
	}
}
