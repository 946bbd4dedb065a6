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
