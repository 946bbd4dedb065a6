//go:build !wasip1

package entropy

import "crypto/rand"

// Read fills b with random bytes (crypto/rand outside the wasm module).
func Read(b []byte) error {
	_, err := rand.Read(b)
	return err
}
