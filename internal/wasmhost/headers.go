package wasmhost

import (
	"encoding/binary"
	"errors"
	"strings"
)

// Header is one header (or trailer) field. Keys are lower case, as Envoy's
// codecs and header maps keep them; pseudo-headers (":path", ":status", ...)
// are ordinary entries.
type Header struct {
	Key, Value string
}

// Headers is an ordered header map that may hold a key more than once, like
// Envoy's HeaderMap. The zero value is an empty map.
type Headers []Header

// H builds Headers from alternating keys and values; keys are lower-cased.
// It panics on an odd number of arguments.
func H(kv ...string) Headers {
	if len(kv)%2 != 0 {
		panic("wasmhost.H: odd number of arguments")
	}
	h := make(Headers, 0, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		h = append(h, Header{strings.ToLower(kv[i]), kv[i+1]})
	}
	return h
}

// Clone returns a copy of h (nil stays nil).
func (h Headers) Clone() Headers {
	if h == nil {
		return nil
	}
	return append(Headers(make([]Header, 0, len(h))), h...)
}

// Get returns the first value of key (case-insensitive), as
// proxy_get_header_map_value does.
func (h Headers) Get(key string) (string, bool) {
	key = strings.ToLower(key)
	for _, f := range h {
		if f.Key == key {
			return f.Value, true
		}
	}
	return "", false
}

// Value returns the first value of key, or "".
func (h Headers) Value(key string) string {
	v, _ := h.Get(key)
	return v
}

// Values returns every value of key in order.
func (h Headers) Values(key string) []string {
	key = strings.ToLower(key)
	var vs []string
	for _, f := range h {
		if f.Key == key {
			vs = append(vs, f.Value)
		}
	}
	return vs
}

// Add appends a field (proxy_add_header_map_value; Envoy's addCopy).
func (h *Headers) Add(key, value string) {
	*h = append(*h, Header{strings.ToLower(key), value})
}

// Set replaces the value of the first field named key, leaving any later
// duplicates alone, or appends the field when there is none
// (proxy_replace_header_map_value; Envoy's setCopy).
func (h *Headers) Set(key, value string) {
	key = strings.ToLower(key)
	for i := range *h {
		if (*h)[i].Key == key {
			(*h)[i].Value = value
			return
		}
	}
	*h = append(*h, Header{key, value})
}

// Del removes every field named key (proxy_remove_header_map_value).
func (h *Headers) Del(key string) {
	key = strings.ToLower(key)
	out := (*h)[:0]
	for _, f := range *h {
		if f.Key != key {
			out = append(out, f)
		}
	}
	*h = out
}

// lowered returns a copy of h with lower-case keys.
func (h Headers) lowered() Headers {
	out := make(Headers, len(h))
	for i, f := range h {
		out[i] = Header{strings.ToLower(f.Key), f.Value}
	}
	return out
}

// EncodePairs serializes h in the proxy-wasm pairs format: a little-endian
// u32 count, then a (u32 key length, u32 value length) per pair, then each
// key and value followed by a NUL byte.
func EncodePairs(h Headers) []byte {
	size := 4
	for _, f := range h {
		size += 8 + len(f.Key) + 1 + len(f.Value) + 1
	}
	b := make([]byte, size)
	binary.LittleEndian.PutUint32(b, uint32(len(h)))
	off := 4
	for _, f := range h {
		binary.LittleEndian.PutUint32(b[off:], uint32(len(f.Key)))
		binary.LittleEndian.PutUint32(b[off+4:], uint32(len(f.Value)))
		off += 8
	}
	for _, f := range h {
		off += copy(b[off:], f.Key) + 1 // the NUL is already there
		off += copy(b[off:], f.Value) + 1
	}
	return b
}

// ErrPairsTruncated is returned by DecodePairs when the sizes in a pairs
// buffer run past its end.
var ErrPairsTruncated = errors.New("wasmhost: pairs data shorter than its sizes say")

// DecodePairs parses the proxy-wasm pairs format. Like proxy-wasm-cpp-host,
// a buffer shorter than its count field, or whose count does not fit the
// size table, decodes as no pairs; the NUL separators are skipped, not
// checked. Keys are returned as sent (not lower-cased).
func DecodePairs(b []byte) (Headers, error) {
	if len(b) < 4 {
		return Headers{}, nil
	}
	n := uint64(binary.LittleEndian.Uint32(b))
	if 4+n*8 > uint64(len(b)) {
		return Headers{}, nil
	}
	h := make(Headers, n)
	sizes := b[4:]
	off := uint64(4 + n*8)
	for i := uint64(0); i < n; i++ {
		kl := uint64(binary.LittleEndian.Uint32(sizes[i*8:]))
		vl := uint64(binary.LittleEndian.Uint32(sizes[i*8+4:]))
		if off+kl > uint64(len(b)) {
			return nil, ErrPairsTruncated
		}
		k := string(b[off : off+kl])
		off += kl + 1
		if off+vl > uint64(len(b)) {
			return nil, ErrPairsTruncated
		}
		v := string(b[off : off+vl])
		off += vl + 1
		h[i] = Header{k, v}
	}
	return h, nil
}
