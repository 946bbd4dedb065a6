//go:build wasip1

package entropy

import "syscall"

// Read fills b with random bytes from WASI random_get.
func Read(b []byte) error { return syscall.RandomGet(b) }
