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

// compress is SHA-256's compression function of h with the block w,
// written out round by round: round i names the working variables
// rotated by i places and uses schedule word i mod 16, which rounds 16 to
// 63 first overwrite with their successor. In the VM that leaves no loop,
// no bounds check, no 256-byte schedule to clear and fill, and no call: a
// 40-byte HMAC takes 15-20% less time in V8 than with the loop of eight
// rounds it replaces. (Rounds on uint64 words, rotating a value doubled
// into both halves to spare the VM the wrap and extend around each 32-bit
// operation, ran slower in V8 than either.)
func compress(h *[8]uint32, w *[16]uint32) {
	w0, w1, w2, w3, w4, w5, w6, w7 := w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]
	w8, w9, w10, w11, w12, w13, w14, w15 := w[8], w[9], w[10], w[11], w[12], w[13], w[14], w[15]
	a, b, c, d, e, f, g, hh := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
	d, hh = round(a, b, c, d, e, f, g, hh, 0x428a2f98+w0)
	c, g = round(hh, a, b, c, d, e, f, g, 0x71374491+w1)
	b, f = round(g, hh, a, b, c, d, e, f, 0xb5c0fbcf+w2)
	a, e = round(f, g, hh, a, b, c, d, e, 0xe9b5dba5+w3)
	hh, d = round(e, f, g, hh, a, b, c, d, 0x3956c25b+w4)
	g, c = round(d, e, f, g, hh, a, b, c, 0x59f111f1+w5)
	f, b = round(c, d, e, f, g, hh, a, b, 0x923f82a4+w6)
	e, a = round(b, c, d, e, f, g, hh, a, 0xab1c5ed5+w7)
	d, hh = round(a, b, c, d, e, f, g, hh, 0xd807aa98+w8)
	c, g = round(hh, a, b, c, d, e, f, g, 0x12835b01+w9)
	b, f = round(g, hh, a, b, c, d, e, f, 0x243185be+w10)
	a, e = round(f, g, hh, a, b, c, d, e, 0x550c7dc3+w11)
	hh, d = round(e, f, g, hh, a, b, c, d, 0x72be5d74+w12)
	g, c = round(d, e, f, g, hh, a, b, c, 0x80deb1fe+w13)
	f, b = round(c, d, e, f, g, hh, a, b, 0x9bdc06a7+w14)
	e, a = round(b, c, d, e, f, g, hh, a, 0xc19bf174+w15)
	w0 += (bits.RotateLeft32(w14, -17) ^ bits.RotateLeft32(w14, -19) ^ w14>>10) + w9 + (bits.RotateLeft32(w1, -7) ^ bits.RotateLeft32(w1, -18) ^ w1>>3)
	d, hh = round(a, b, c, d, e, f, g, hh, 0xe49b69c1+w0)
	w1 += (bits.RotateLeft32(w15, -17) ^ bits.RotateLeft32(w15, -19) ^ w15>>10) + w10 + (bits.RotateLeft32(w2, -7) ^ bits.RotateLeft32(w2, -18) ^ w2>>3)
	c, g = round(hh, a, b, c, d, e, f, g, 0xefbe4786+w1)
	w2 += (bits.RotateLeft32(w0, -17) ^ bits.RotateLeft32(w0, -19) ^ w0>>10) + w11 + (bits.RotateLeft32(w3, -7) ^ bits.RotateLeft32(w3, -18) ^ w3>>3)
	b, f = round(g, hh, a, b, c, d, e, f, 0x0fc19dc6+w2)
	w3 += (bits.RotateLeft32(w1, -17) ^ bits.RotateLeft32(w1, -19) ^ w1>>10) + w12 + (bits.RotateLeft32(w4, -7) ^ bits.RotateLeft32(w4, -18) ^ w4>>3)
	a, e = round(f, g, hh, a, b, c, d, e, 0x240ca1cc+w3)
	w4 += (bits.RotateLeft32(w2, -17) ^ bits.RotateLeft32(w2, -19) ^ w2>>10) + w13 + (bits.RotateLeft32(w5, -7) ^ bits.RotateLeft32(w5, -18) ^ w5>>3)
	hh, d = round(e, f, g, hh, a, b, c, d, 0x2de92c6f+w4)
	w5 += (bits.RotateLeft32(w3, -17) ^ bits.RotateLeft32(w3, -19) ^ w3>>10) + w14 + (bits.RotateLeft32(w6, -7) ^ bits.RotateLeft32(w6, -18) ^ w6>>3)
	g, c = round(d, e, f, g, hh, a, b, c, 0x4a7484aa+w5)
	w6 += (bits.RotateLeft32(w4, -17) ^ bits.RotateLeft32(w4, -19) ^ w4>>10) + w15 + (bits.RotateLeft32(w7, -7) ^ bits.RotateLeft32(w7, -18) ^ w7>>3)
	f, b = round(c, d, e, f, g, hh, a, b, 0x5cb0a9dc+w6)
	w7 += (bits.RotateLeft32(w5, -17) ^ bits.RotateLeft32(w5, -19) ^ w5>>10) + w0 + (bits.RotateLeft32(w8, -7) ^ bits.RotateLeft32(w8, -18) ^ w8>>3)
	e, a = round(b, c, d, e, f, g, hh, a, 0x76f988da+w7)
	w8 += (bits.RotateLeft32(w6, -17) ^ bits.RotateLeft32(w6, -19) ^ w6>>10) + w1 + (bits.RotateLeft32(w9, -7) ^ bits.RotateLeft32(w9, -18) ^ w9>>3)
	d, hh = round(a, b, c, d, e, f, g, hh, 0x983e5152+w8)
	w9 += (bits.RotateLeft32(w7, -17) ^ bits.RotateLeft32(w7, -19) ^ w7>>10) + w2 + (bits.RotateLeft32(w10, -7) ^ bits.RotateLeft32(w10, -18) ^ w10>>3)
	c, g = round(hh, a, b, c, d, e, f, g, 0xa831c66d+w9)
	w10 += (bits.RotateLeft32(w8, -17) ^ bits.RotateLeft32(w8, -19) ^ w8>>10) + w3 + (bits.RotateLeft32(w11, -7) ^ bits.RotateLeft32(w11, -18) ^ w11>>3)
	b, f = round(g, hh, a, b, c, d, e, f, 0xb00327c8+w10)
	w11 += (bits.RotateLeft32(w9, -17) ^ bits.RotateLeft32(w9, -19) ^ w9>>10) + w4 + (bits.RotateLeft32(w12, -7) ^ bits.RotateLeft32(w12, -18) ^ w12>>3)
	a, e = round(f, g, hh, a, b, c, d, e, 0xbf597fc7+w11)
	w12 += (bits.RotateLeft32(w10, -17) ^ bits.RotateLeft32(w10, -19) ^ w10>>10) + w5 + (bits.RotateLeft32(w13, -7) ^ bits.RotateLeft32(w13, -18) ^ w13>>3)
	hh, d = round(e, f, g, hh, a, b, c, d, 0xc6e00bf3+w12)
	w13 += (bits.RotateLeft32(w11, -17) ^ bits.RotateLeft32(w11, -19) ^ w11>>10) + w6 + (bits.RotateLeft32(w14, -7) ^ bits.RotateLeft32(w14, -18) ^ w14>>3)
	g, c = round(d, e, f, g, hh, a, b, c, 0xd5a79147+w13)
	w14 += (bits.RotateLeft32(w12, -17) ^ bits.RotateLeft32(w12, -19) ^ w12>>10) + w7 + (bits.RotateLeft32(w15, -7) ^ bits.RotateLeft32(w15, -18) ^ w15>>3)
	f, b = round(c, d, e, f, g, hh, a, b, 0x06ca6351+w14)
	w15 += (bits.RotateLeft32(w13, -17) ^ bits.RotateLeft32(w13, -19) ^ w13>>10) + w8 + (bits.RotateLeft32(w0, -7) ^ bits.RotateLeft32(w0, -18) ^ w0>>3)
	e, a = round(b, c, d, e, f, g, hh, a, 0x14292967+w15)
	w0 += (bits.RotateLeft32(w14, -17) ^ bits.RotateLeft32(w14, -19) ^ w14>>10) + w9 + (bits.RotateLeft32(w1, -7) ^ bits.RotateLeft32(w1, -18) ^ w1>>3)
	d, hh = round(a, b, c, d, e, f, g, hh, 0x27b70a85+w0)
	w1 += (bits.RotateLeft32(w15, -17) ^ bits.RotateLeft32(w15, -19) ^ w15>>10) + w10 + (bits.RotateLeft32(w2, -7) ^ bits.RotateLeft32(w2, -18) ^ w2>>3)
	c, g = round(hh, a, b, c, d, e, f, g, 0x2e1b2138+w1)
	w2 += (bits.RotateLeft32(w0, -17) ^ bits.RotateLeft32(w0, -19) ^ w0>>10) + w11 + (bits.RotateLeft32(w3, -7) ^ bits.RotateLeft32(w3, -18) ^ w3>>3)
	b, f = round(g, hh, a, b, c, d, e, f, 0x4d2c6dfc+w2)
	w3 += (bits.RotateLeft32(w1, -17) ^ bits.RotateLeft32(w1, -19) ^ w1>>10) + w12 + (bits.RotateLeft32(w4, -7) ^ bits.RotateLeft32(w4, -18) ^ w4>>3)
	a, e = round(f, g, hh, a, b, c, d, e, 0x53380d13+w3)
	w4 += (bits.RotateLeft32(w2, -17) ^ bits.RotateLeft32(w2, -19) ^ w2>>10) + w13 + (bits.RotateLeft32(w5, -7) ^ bits.RotateLeft32(w5, -18) ^ w5>>3)
	hh, d = round(e, f, g, hh, a, b, c, d, 0x650a7354+w4)
	w5 += (bits.RotateLeft32(w3, -17) ^ bits.RotateLeft32(w3, -19) ^ w3>>10) + w14 + (bits.RotateLeft32(w6, -7) ^ bits.RotateLeft32(w6, -18) ^ w6>>3)
	g, c = round(d, e, f, g, hh, a, b, c, 0x766a0abb+w5)
	w6 += (bits.RotateLeft32(w4, -17) ^ bits.RotateLeft32(w4, -19) ^ w4>>10) + w15 + (bits.RotateLeft32(w7, -7) ^ bits.RotateLeft32(w7, -18) ^ w7>>3)
	f, b = round(c, d, e, f, g, hh, a, b, 0x81c2c92e+w6)
	w7 += (bits.RotateLeft32(w5, -17) ^ bits.RotateLeft32(w5, -19) ^ w5>>10) + w0 + (bits.RotateLeft32(w8, -7) ^ bits.RotateLeft32(w8, -18) ^ w8>>3)
	e, a = round(b, c, d, e, f, g, hh, a, 0x92722c85+w7)
	w8 += (bits.RotateLeft32(w6, -17) ^ bits.RotateLeft32(w6, -19) ^ w6>>10) + w1 + (bits.RotateLeft32(w9, -7) ^ bits.RotateLeft32(w9, -18) ^ w9>>3)
	d, hh = round(a, b, c, d, e, f, g, hh, 0xa2bfe8a1+w8)
	w9 += (bits.RotateLeft32(w7, -17) ^ bits.RotateLeft32(w7, -19) ^ w7>>10) + w2 + (bits.RotateLeft32(w10, -7) ^ bits.RotateLeft32(w10, -18) ^ w10>>3)
	c, g = round(hh, a, b, c, d, e, f, g, 0xa81a664b+w9)
	w10 += (bits.RotateLeft32(w8, -17) ^ bits.RotateLeft32(w8, -19) ^ w8>>10) + w3 + (bits.RotateLeft32(w11, -7) ^ bits.RotateLeft32(w11, -18) ^ w11>>3)
	b, f = round(g, hh, a, b, c, d, e, f, 0xc24b8b70+w10)
	w11 += (bits.RotateLeft32(w9, -17) ^ bits.RotateLeft32(w9, -19) ^ w9>>10) + w4 + (bits.RotateLeft32(w12, -7) ^ bits.RotateLeft32(w12, -18) ^ w12>>3)
	a, e = round(f, g, hh, a, b, c, d, e, 0xc76c51a3+w11)
	w12 += (bits.RotateLeft32(w10, -17) ^ bits.RotateLeft32(w10, -19) ^ w10>>10) + w5 + (bits.RotateLeft32(w13, -7) ^ bits.RotateLeft32(w13, -18) ^ w13>>3)
	hh, d = round(e, f, g, hh, a, b, c, d, 0xd192e819+w12)
	w13 += (bits.RotateLeft32(w11, -17) ^ bits.RotateLeft32(w11, -19) ^ w11>>10) + w6 + (bits.RotateLeft32(w14, -7) ^ bits.RotateLeft32(w14, -18) ^ w14>>3)
	g, c = round(d, e, f, g, hh, a, b, c, 0xd6990624+w13)
	w14 += (bits.RotateLeft32(w12, -17) ^ bits.RotateLeft32(w12, -19) ^ w12>>10) + w7 + (bits.RotateLeft32(w15, -7) ^ bits.RotateLeft32(w15, -18) ^ w15>>3)
	f, b = round(c, d, e, f, g, hh, a, b, 0xf40e3585+w14)
	w15 += (bits.RotateLeft32(w13, -17) ^ bits.RotateLeft32(w13, -19) ^ w13>>10) + w8 + (bits.RotateLeft32(w0, -7) ^ bits.RotateLeft32(w0, -18) ^ w0>>3)
	e, a = round(b, c, d, e, f, g, hh, a, 0x106aa070+w15)
	w0 += (bits.RotateLeft32(w14, -17) ^ bits.RotateLeft32(w14, -19) ^ w14>>10) + w9 + (bits.RotateLeft32(w1, -7) ^ bits.RotateLeft32(w1, -18) ^ w1>>3)
	d, hh = round(a, b, c, d, e, f, g, hh, 0x19a4c116+w0)
	w1 += (bits.RotateLeft32(w15, -17) ^ bits.RotateLeft32(w15, -19) ^ w15>>10) + w10 + (bits.RotateLeft32(w2, -7) ^ bits.RotateLeft32(w2, -18) ^ w2>>3)
	c, g = round(hh, a, b, c, d, e, f, g, 0x1e376c08+w1)
	w2 += (bits.RotateLeft32(w0, -17) ^ bits.RotateLeft32(w0, -19) ^ w0>>10) + w11 + (bits.RotateLeft32(w3, -7) ^ bits.RotateLeft32(w3, -18) ^ w3>>3)
	b, f = round(g, hh, a, b, c, d, e, f, 0x2748774c+w2)
	w3 += (bits.RotateLeft32(w1, -17) ^ bits.RotateLeft32(w1, -19) ^ w1>>10) + w12 + (bits.RotateLeft32(w4, -7) ^ bits.RotateLeft32(w4, -18) ^ w4>>3)
	a, e = round(f, g, hh, a, b, c, d, e, 0x34b0bcb5+w3)
	w4 += (bits.RotateLeft32(w2, -17) ^ bits.RotateLeft32(w2, -19) ^ w2>>10) + w13 + (bits.RotateLeft32(w5, -7) ^ bits.RotateLeft32(w5, -18) ^ w5>>3)
	hh, d = round(e, f, g, hh, a, b, c, d, 0x391c0cb3+w4)
	w5 += (bits.RotateLeft32(w3, -17) ^ bits.RotateLeft32(w3, -19) ^ w3>>10) + w14 + (bits.RotateLeft32(w6, -7) ^ bits.RotateLeft32(w6, -18) ^ w6>>3)
	g, c = round(d, e, f, g, hh, a, b, c, 0x4ed8aa4a+w5)
	w6 += (bits.RotateLeft32(w4, -17) ^ bits.RotateLeft32(w4, -19) ^ w4>>10) + w15 + (bits.RotateLeft32(w7, -7) ^ bits.RotateLeft32(w7, -18) ^ w7>>3)
	f, b = round(c, d, e, f, g, hh, a, b, 0x5b9cca4f+w6)
	w7 += (bits.RotateLeft32(w5, -17) ^ bits.RotateLeft32(w5, -19) ^ w5>>10) + w0 + (bits.RotateLeft32(w8, -7) ^ bits.RotateLeft32(w8, -18) ^ w8>>3)
	e, a = round(b, c, d, e, f, g, hh, a, 0x682e6ff3+w7)
	w8 += (bits.RotateLeft32(w6, -17) ^ bits.RotateLeft32(w6, -19) ^ w6>>10) + w1 + (bits.RotateLeft32(w9, -7) ^ bits.RotateLeft32(w9, -18) ^ w9>>3)
	d, hh = round(a, b, c, d, e, f, g, hh, 0x748f82ee+w8)
	w9 += (bits.RotateLeft32(w7, -17) ^ bits.RotateLeft32(w7, -19) ^ w7>>10) + w2 + (bits.RotateLeft32(w10, -7) ^ bits.RotateLeft32(w10, -18) ^ w10>>3)
	c, g = round(hh, a, b, c, d, e, f, g, 0x78a5636f+w9)
	w10 += (bits.RotateLeft32(w8, -17) ^ bits.RotateLeft32(w8, -19) ^ w8>>10) + w3 + (bits.RotateLeft32(w11, -7) ^ bits.RotateLeft32(w11, -18) ^ w11>>3)
	b, f = round(g, hh, a, b, c, d, e, f, 0x84c87814+w10)
	w11 += (bits.RotateLeft32(w9, -17) ^ bits.RotateLeft32(w9, -19) ^ w9>>10) + w4 + (bits.RotateLeft32(w12, -7) ^ bits.RotateLeft32(w12, -18) ^ w12>>3)
	a, e = round(f, g, hh, a, b, c, d, e, 0x8cc70208+w11)
	w12 += (bits.RotateLeft32(w10, -17) ^ bits.RotateLeft32(w10, -19) ^ w10>>10) + w5 + (bits.RotateLeft32(w13, -7) ^ bits.RotateLeft32(w13, -18) ^ w13>>3)
	hh, d = round(e, f, g, hh, a, b, c, d, 0x90befffa+w12)
	w13 += (bits.RotateLeft32(w11, -17) ^ bits.RotateLeft32(w11, -19) ^ w11>>10) + w6 + (bits.RotateLeft32(w14, -7) ^ bits.RotateLeft32(w14, -18) ^ w14>>3)
	g, c = round(d, e, f, g, hh, a, b, c, 0xa4506ceb+w13)
	w14 += (bits.RotateLeft32(w12, -17) ^ bits.RotateLeft32(w12, -19) ^ w12>>10) + w7 + (bits.RotateLeft32(w15, -7) ^ bits.RotateLeft32(w15, -18) ^ w15>>3)
	f, b = round(c, d, e, f, g, hh, a, b, 0xbef9a3f7+w14)
	w15 += (bits.RotateLeft32(w13, -17) ^ bits.RotateLeft32(w13, -19) ^ w13>>10) + w8 + (bits.RotateLeft32(w0, -7) ^ bits.RotateLeft32(w0, -18) ^ w0>>3)
	e, a = round(b, c, d, e, f, g, hh, a, 0xc67178f2+w15)
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
