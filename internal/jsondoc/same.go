package jsondoc

import "unsafe"

// SameBytes reports whether b holds exactly the bytes of s: names and
// enumeration values, compared a word at a time. Inside the VM every
// iteration of a byte loop is a jump through the function's dispatch, and
// a call to the runtime's comparison costs more than the short names it
// would compare: two overlapping loads compare 4 to 16 bytes without a
// loop, in one call whatever the length.
func SameBytes(b []byte, s string) bool {
	n := len(s)
	if len(b) != n {
		return false
	}
	pb, ps := unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.StringData(s))
	switch {
	case n >= 8 && n <= 16:
		return *(*uint64)(pb) == *(*uint64)(ps) && *(*uint64)(unsafe.Add(pb, n-8)) == *(*uint64)(unsafe.Add(ps, n-8))
	case n >= 4 && n < 8:
		return *(*uint32)(pb) == *(*uint32)(ps) && *(*uint32)(unsafe.Add(pb, n-4)) == *(*uint32)(unsafe.Add(ps, n-4))
	case n < 4:
		return n == 0 || b[0] == s[0] && b[n>>1] == s[n>>1] && b[n-1] == s[n-1]
	}
	return string(b) == s
}
