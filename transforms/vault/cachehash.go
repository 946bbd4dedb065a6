package vault

import (
	"math/bits"
	"math/rand/v2"
)

// The in-process caches (Vault.issued and .resolved, Sealed's) choose a
// set by a seeded hash of the strings a mapping is looked up by. The seed
// is random per instance, so which values share a set cannot be chosen
// from outside to make every lookup miss. The hash is written out here
// rather than taken from hash/maphash: inside the VM maphash.String is
// four calls a string, and a cached pseudonym is otherwise a few loads.

// cacheSeed seeds cacheHash; newCacheSeed draws one.
type cacheSeed uint64

func newCacheSeed() cacheSeed { return cacheSeed(rand.Uint64()) }

// cacheHash hashes the strings a, b and c, each with its length (so no
// two different triples are the same input), under seed: the set is
// hash % sets, and the whole hash is kept beside the entry so a lookup
// compares strings only when it is the same.
func cacheHash(seed cacheSeed, a, b, c string) uint64 {
	const k0, k1 = 0x9e3779b97f4a7c15, 0xc2b2ae3d27d4eb4f
	h := uint64(seed)
	for _, s := range [3]string{a, b, c} {
		h = mum(h^uint64(len(s)), k0)
		for ; len(s) >= 8; s = s[8:] {
			h = mum(h^littleEndian(s), k1)
		}
		if len(s) > 0 {
			var t uint64
			for i := range len(s) {
				t |= uint64(s[i]) << (8 * i)
			}
			h = mum(h^t, k1)
		}
	}
	return h ^ h>>32
}

// mum is the 128-bit product of a and b folded to 64 bits: every input
// bit reaches every output bit.
func mum(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// littleEndian is the first 8 bytes of s as a little-endian word (one
// load).
func littleEndian(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
