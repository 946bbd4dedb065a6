// Package streq compares strings without a call where that settles it.
// Inside the VM a string comparison is a call to the runtime, even when
// the two are the same string (a detector's label compared with the label
// it returned, a transform's result with its unchanged input) or empty,
// which is most of the comparisons on a message's hot path.
package streq

import "unsafe"

// Same is a == b, without a call when a and b are empty, differ in
// length or start at the same byte.
func Same(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// Bytes is bytes.Equal for long inputs: 32 bytes an iteration. Go's
// runtime compares a byte an iteration inside the VM (internal/bytealg's
// equal_wasm.s), about a millisecond per megabyte in V8; the plugin's
// memo of lists compares whole list responses.
func Bytes(a, b []byte) bool {
	n := len(a)
	if n != len(b) {
		return false
	}
	if n < 32 {
		return string(a) == string(b)
	}
	pa, pb := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b))
	if pa == pb {
		return true
	}
	i := 0
	for ; i+32 <= n; i += 32 {
		x := *(*uint64)(unsafe.Add(pa, i)) ^ *(*uint64)(unsafe.Add(pb, i))
		x |= *(*uint64)(unsafe.Add(pa, i+8)) ^ *(*uint64)(unsafe.Add(pb, i+8))
		x |= *(*uint64)(unsafe.Add(pa, i+16)) ^ *(*uint64)(unsafe.Add(pb, i+16))
		x |= *(*uint64)(unsafe.Add(pa, i+24)) ^ *(*uint64)(unsafe.Add(pb, i+24))
		if x != 0 {
			return false
		}
	}
	// The last 32 bytes, overlapping what was compared (n ≥ 32).
	i = n - 32
	x := *(*uint64)(unsafe.Add(pa, i)) ^ *(*uint64)(unsafe.Add(pb, i))
	x |= *(*uint64)(unsafe.Add(pa, i+8)) ^ *(*uint64)(unsafe.Add(pb, i+8))
	x |= *(*uint64)(unsafe.Add(pa, i+16)) ^ *(*uint64)(unsafe.Add(pb, i+16))
	x |= *(*uint64)(unsafe.Add(pa, i+24)) ^ *(*uint64)(unsafe.Add(pb, i+24))
	return x == 0
}
