package wasmhost

import (
	"math"
	"testing"
)

func TestSetBufferBytesRules(t *testing.T) {
	for _, c := range []struct {
		buf         string
		start, size uint32
		data, want  string
		st          Status
	}{
		{"hello", 0, 5, "bye", "bye", StatusOK},                              // (0, len) replaces
		{"hello", 0, math.MaxInt32, "bye", "bye", StatusOK},                  // the SDK's Replace
		{"hello", 0, 0, "<", "<hello", StatusOK},                             // the SDK's Prepend
		{"hello", 0, 2, "J", "Jllo", StatusOK},                               // drains 2, prepends
		{"hello", 5, 0, ">", "hello>", StatusOK},                             // start == len appends
		{"hello", math.MaxInt32, 0, ">", "hello>", StatusOK},                 // the SDK's Append
		{"hello", 9, 3, "!", "hello!", StatusOK},                             // start > len appends, size ignored
		{"hello", 2, 1, "X", "hello", StatusBadArgument},                     // 0 < start < len
		{"", 0, 0, "new", "new", StatusOK},                                   // empty buffer
		{"", 0, math.MaxInt32, "", "", StatusOK},                             // replace with nothing
		{"abc", 0, math.MaxInt32, "", "", StatusOK},                          // clear
		{"abc", 1, 0, "", "abc", StatusBadArgument},                          // even with no data
		{"abcdef", 0, 3, "", "def", StatusOK},                                // pure drain
		{"ab", 0, 10, "0123456789", "0123456789", StatusOK},                  // longer replacement
		{"0123456789", 0, 10, "ab", "ab", StatusOK},                          // shorter replacement
		{"0123456789", 0, 2, "ab", "ab23456789", StatusOK},                   // (0, len(data)) is not a replace
		{"x", 1, math.MaxUint32, "y", "xy", StatusOK},                        // append ignores size
		{"xyz", 0, math.MaxUint32, "q", "q", StatusOK},                       // size beyond len drains all
		{"xyz", math.MaxUint32, math.MaxUint32, "q", "xyzq", StatusOK},       // huge start appends
		{"xyz", 2, math.MaxUint32, "q", "xyz", StatusBadArgument},            // start inside
		{"xyz", 0, 1, "", "yz", StatusOK},                                    // drain one
		{"xyz", 3, 0, "", "xyz", StatusOK},                                   // append nothing
		{"héllo", 0, 6, "hello", "hello", StatusOK},                          // bytes, not runes
		{"héllo", 1, 0, "!", "héllo", StatusBadArgument},                     // inside, bytes
		{"héllo", 6, 0, "!", "héllo!", StatusOK},                             // at len in bytes
		{"a", 0, 1, "b", "b", StatusOK},                                      // single byte replace
		{"ab", 1, 1, "c", "ab", StatusBadArgument},                           // single byte inside
		{"ab", 2, 1, "c", "abc", StatusOK},                                   // at len
		{"", 1, 0, "z", "z", StatusOK},                                       // start >= len on empty
		{"", 0, 1, "z", "z", StatusOK},                                       // drain more than there is
		{"keep", 0, 0, "", "keep", StatusOK},                                 // no-op
		{"keep", 4, 4, "", "keep", StatusOK},                                 // no-op append
		{"ABCDEFGH", 0, 4, "1234", "1234EFGH", StatusOK},                     // partial overwrite at the front
		{"ABCDEFGH", 4, 4, "1234", "ABCDEFGH", StatusBadArgument},            // can't overwrite the back
		{"ABCDEFGH", 8, 4, "1234", "ABCDEFGH1234", StatusOK},                 // append
		{"ABCDEFGH", 0, 8, "ABCDEFGH", "ABCDEFGH", StatusOK},                 // replace with same
		{"ABCDEFGH", 0, 9, "X", "X", StatusOK},                               // replace with shorter
		{"ABCDEFGH", 0, 7, "X", "XH", StatusOK},                              // drain all but one
		{"ABCDEFGH", 7, 0, "X", "ABCDEFGH", StatusBadArgument},               // start len-1
		{"ABCDEFGH", 1, 7, "X", "ABCDEFGH", StatusBadArgument},               // start 1
		{"ABCDEFGH", 0, math.MaxInt32, "ABCDEFGHIJ", "ABCDEFGHIJ", StatusOK}, // replace with longer
	} {
		got, st := setBufferBytes([]byte(c.buf), c.start, c.size, []byte(c.data))
		if st != c.st || string(got) != c.want {
			t.Errorf("setBufferBytes(%q, %d, %d, %q) = %q, %s; want %q, %s", c.buf, c.start, c.size, c.data, got, st, c.want, c.st)
		}
	}
}
