// Package hmacsha256 computes HMAC-SHA256 (RFC 2104 over FIPS 180-4
// SHA-256) and SHA-256 of short messages, each build with the code that is
// fastest there, so callers need no build tags of their own.
//
// In the wasm module crypto/sha256 runs Go's generic block function, and
// for a message of one block most of crypto/hmac's cost is around it:
// Reset restores the inner and outer states from their marshaled form,
// every step is a hash.Hash interface call through the FIPS wrappers, and
// Sum pads through a copy of the digest. There MAC is this package's plain
// Go (plainMAC): the states after the key's inner and outer blocks are
// computed once by New, and Sum copies eight words, compresses the padded
// message and compresses one outer block: no allocation, no interface, no
// marshaling. Natively crypto/sha256 uses the CPU's SHA instructions (4x
// faster than the plain Go), so MAC is one keyed crypto/hmac (mac_other.go).
// Both give the same MACs and digests; the plain Go is compiled and
// compared with crypto/hmac natively too.
//
// The package knows nothing of what it authenticates.
package hmacsha256

import (
	"encoding/binary"
	"math/bits"
)

// Size is the length of a MAC in bytes.
const Size = 32

// BlockSize is SHA-256's block length in bytes.
const BlockSize = 64

// plainMAC is HMAC-SHA256 under one key in plain Go, keyed once: MAC in
// the wasm module. sum does not modify it.
type plainMAC struct {
	inner, outer [8]uint32 // the states after the key's ipad and opad blocks
}

// newPlainMAC returns the MAC for key. A key longer than BlockSize is
// hashed first, as RFC 2104 says.
func newPlainMAC(key []byte) plainMAC {
	var k [BlockSize]byte
	if len(key) > BlockSize {
		d := plainSum256(key)
		copy(k[:], d[:])
	} else {
		copy(k[:], key)
	}
	m := plainMAC{inner: iv, outer: iv}
	var pad [BlockSize]byte
	for i, c := range k {
		pad[i] = c ^ 0x36
	}
	blocks(&m.inner, pad[:])
	for i, c := range k {
		pad[i] = c ^ 0x5c
	}
	blocks(&m.outer, pad[:])
	return m
}

// sum writes the HMAC of msg to dst.
func (m *plainMAC) sum(dst *[Size]byte, msg []byte) {
	h := m.inner
	finish(&h, msg, BlockSize)
	// The outer message is the inner digest: one block of the digest's
	// eight words, the padding bit and the length of ipad block + digest.
	w := [16]uint32{h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], 0x80000000, 15: (BlockSize + Size) * 8}
	o := m.outer
	compress(&o, &w)
	put(dst, &o)
}

// plainSum256 is the SHA-256 digest of msg in plain Go.
func plainSum256(msg []byte) [Size]byte {
	h := iv
	finish(&h, msg, 0)
	var d [Size]byte
	put(&d, &h)
	return d
}

var iv = [8]uint32{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}

// finish hashes msg and its padding into h, which has already hashed
// prefix bytes (a multiple of BlockSize).
func finish(h *[8]uint32, msg []byte, prefix int) {
	n := len(msg) &^ (BlockSize - 1)
	blocks(h, msg[:n])
	var b [2 * BlockSize]byte
	r := copy(b[:], msg[n:])
	b[r] = 0x80
	end := BlockSize
	if r >= BlockSize-8 {
		end = 2 * BlockSize
	}
	binary.BigEndian.PutUint64(b[end-8:end], uint64(prefix+len(msg))*8)
	blocks(h, b[:end])
}

// blocks hashes p, a multiple of BlockSize long, into h.
func blocks(h *[8]uint32, p []byte) {
	var w [16]uint32
	for ; len(p) >= BlockSize; p = p[BlockSize:] {
		for i := range w {
			w[i] = binary.BigEndian.Uint32(p[4*i:])
		}
		compress(h, &w)
	}
}

func put(dst *[Size]byte, h *[8]uint32) {
	for i, v := range h {
		binary.BigEndian.PutUint32(dst[4*i:], v)
	}
}

// compress is SHA-256's compression function of h with the block w. The
// rounds go eight to a loop iteration, each naming the working variables
// in their new places, so nothing is shuffled between rounds (in the VM
// this is 15% faster than one round per iteration; unrolling all 64
// gains under 10% more).
func compress(h *[8]uint32, w *[16]uint32) {
	var s [64]uint32
	copy(s[:], w[:])
	for i := 16; i < 64; i++ {
		v1, v2 := s[i-2], s[i-15]
		s[i] = (bits.RotateLeft32(v1, -17) ^ bits.RotateLeft32(v1, -19) ^ v1>>10) + s[i-7] +
			(bits.RotateLeft32(v2, -7) ^ bits.RotateLeft32(v2, -18) ^ v2>>3) + s[i-16]
	}
	a, b, c, d, e, f, g, hh := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
	for i := 0; i < 64; i += 8 {
		kw, sw := (*[8]uint32)(k[i:]), (*[8]uint32)(s[i:])
		d, hh = round(a, b, c, d, e, f, g, hh, kw[0]+sw[0])
		c, g = round(hh, a, b, c, d, e, f, g, kw[1]+sw[1])
		b, f = round(g, hh, a, b, c, d, e, f, kw[2]+sw[2])
		a, e = round(f, g, hh, a, b, c, d, e, kw[3]+sw[3])
		hh, d = round(e, f, g, hh, a, b, c, d, kw[4]+sw[4])
		g, c = round(d, e, f, g, hh, a, b, c, kw[5]+sw[5])
		f, b = round(c, d, e, f, g, hh, a, b, kw[6]+sw[6])
		e, a = round(b, c, d, e, f, g, hh, a, kw[7]+sw[7])
	}
	h[0] += a
	h[1] += b
	h[2] += c
	h[3] += d
	h[4] += e
	h[5] += f
	h[6] += g
	h[7] += hh
}

// round is one SHA-256 round: given the working variables a..h and the
// round's constant plus schedule word, the new d and h (the others only
// move, which the caller's naming does).
func round(a, b, c, d, e, f, g, h, kw uint32) (newD, newH uint32) {
	t1 := h + (bits.RotateLeft32(e, -6) ^ bits.RotateLeft32(e, -11) ^ bits.RotateLeft32(e, -25)) + (e&f ^ ^e&g) + kw
	t2 := (bits.RotateLeft32(a, -2) ^ bits.RotateLeft32(a, -13) ^ bits.RotateLeft32(a, -22)) + (a&b ^ a&c ^ b&c)
	return d + t1, t1 + t2
}

// k holds SHA-256's round constants.
var k = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}
