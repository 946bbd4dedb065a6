//go:build wasm

package hmacsha256

// MAC is HMAC-SHA256 under one key, safe for concurrent use. In the wasm
// module it is the plain Go of plainMAC, keyed once.
type MAC struct{ p plainMAC }

// New returns the MAC for key.
func New(key []byte) *MAC { return &MAC{newPlainMAC(key)} }

// Sum writes the HMAC of msg to dst. It does not allocate, and neither msg
// nor dst escapes.
func (m *MAC) Sum(dst *[Size]byte, msg []byte) { m.p.sum(dst, msg) }

// Sum256 returns the SHA-256 digest of msg.
func Sum256(msg []byte) [Size]byte { return plainSum256(msg) }
