//go:build !wasm

package hmacsha256

import (
	"crypto/hmac"
	"crypto/sha256"
	"hash"
	"sync"
)

// MAC is HMAC-SHA256 under one key, safe for concurrent use. Outside the
// wasm module it is one keyed crypto/hmac, whose SHA-256 uses the CPU's
// SHA instructions; mu guards its state (Sum is a few hundred
// nanoseconds, so one MAC shared by goroutines is not worth a pool).
type MAC struct {
	mu  sync.Mutex
	h   hash.Hash
	buf [4 * BlockSize]byte // msg passes through here, and
	out [Size]byte          // the MAC through here, so that neither escapes
}

// New returns the MAC for key.
func New(key []byte) *MAC { return &MAC{h: hmac.New(sha256.New, key)} }

// Sum writes the HMAC of msg to dst. It does not allocate, and neither msg
// nor dst escapes: hash.Hash's methods see only m's buffers.
func (m *MAC) Sum(dst *[Size]byte, msg []byte) {
	m.mu.Lock()
	m.h.Reset()
	for len(msg) > 0 {
		n := copy(m.buf[:], msg)
		m.h.Write(m.buf[:n])
		msg = msg[n:]
	}
	m.h.Sum(m.out[:0])
	*dst = m.out
	m.mu.Unlock()
}

// Sum256 returns the SHA-256 digest of msg.
func Sum256(msg []byte) [Size]byte { return sha256.Sum256(msg) }
