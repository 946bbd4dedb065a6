package hmacsha256

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"testing"
)

func reference(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}

// testKeys are empty, short, one block, one byte either side of a block
// and longer than a block (hashed first).
func testKeys() [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	var keys [][]byte
	for _, n := range []int{0, 1, 32, 63, 64, 65, 100, 200} {
		k := make([]byte, n)
		for i := range k {
			k[i] = byte(r.Uint32())
		}
		keys = append(keys, k)
	}
	return keys
}

func TestMatchesCryptoHMAC(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	msg := make([]byte, 4096)
	for i := range msg {
		msg[i] = byte(r.Uint32())
	}
	lengths := make([]int, 0, 400)
	for n := 0; n <= 300; n++ { // every padding case of one to five blocks
		lengths = append(lengths, n)
	}
	for range 60 {
		lengths = append(lengths, r.IntN(len(msg)+1))
	}
	for _, key := range testKeys() {
		m := New(key)
		for _, n := range lengths {
			var got [Size]byte
			m.Sum(&got, msg[:n])
			if want := reference(key, msg[:n]); !bytes.Equal(got[:], want) {
				t.Fatalf("key of %d bytes, message of %d: %x, want %x", len(key), n, got, want)
			}
		}
	}
}

func TestSum256MatchesCryptoSHA256(t *testing.T) {
	msg := make([]byte, 1000)
	for i := range msg {
		msg[i] = byte(i * 7)
	}
	for n := range len(msg) + 1 {
		var got [Size]byte
		Sum256(&got, msg[:n])
		if want := sha256.Sum256(msg[:n]); got != want {
			t.Fatalf("message of %d bytes: %x, want %x", n, got, want)
		}
	}
}

// TestRFC4231 is test case 2 of RFC 4231 (key "Jefe"), independent of
// crypto/hmac.
func TestRFC4231(t *testing.T) {
	var got [Size]byte
	New([]byte("Jefe")).Sum(&got, []byte("what do ya want for nothing?"))
	if want := "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"; hex.EncodeToString(got[:]) != want {
		t.Fatalf("got %x, want %s", got, want)
	}
}

func TestSumAllocatesNothing(t *testing.T) {
	m := New([]byte("key"))
	msg := []byte("a short message")
	var out [Size]byte
	if n := testing.AllocsPerRun(100, func() { m.Sum(&out, msg) }); n != 0 {
		t.Fatalf("Sum allocates %v times", n)
	}
}

func FuzzMatchesCryptoHMAC(f *testing.F) {
	f.Add([]byte("key"), []byte("message"))
	f.Add(bytes.Repeat([]byte{0xaa}, 131), bytes.Repeat([]byte{'x'}, 55))
	f.Add([]byte{}, bytes.Repeat([]byte{'y'}, 64))
	f.Fuzz(func(t *testing.T, key, msg []byte) {
		var got [Size]byte
		New(key).Sum(&got, msg)
		if want := reference(key, msg); !bytes.Equal(got[:], want) {
			t.Fatalf("key %x, message %x: %x, want %x", key, msg, got, want)
		}
	})
}

// The benchmarks compare this package with crypto/hmac for a message of
// one block once padded (a pseudonym's input) and of four blocks, each
// MAC under an existing key. Under wazero (scripts/bench-wasm-go.sh) the
// difference is what this package is for.
var benchSizes = []struct {
	name string
	n    int
}{{"40B", 40}, {"256B", 256}}

func BenchmarkSum(b *testing.B) {
	m := New([]byte("benchmark key, 32 bytes........."))
	for _, s := range benchSizes {
		msg := make([]byte, s.n)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(s.n))
			b.ReportAllocs()
			var out [Size]byte
			for b.Loop() {
				m.Sum(&out, msg)
			}
		})
	}
}

func BenchmarkCryptoHMAC(b *testing.B) {
	m := hmac.New(sha256.New, []byte("benchmark key, 32 bytes........."))
	for _, s := range benchSizes {
		msg := make([]byte, s.n)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(s.n))
			b.ReportAllocs()
			var out [Size]byte
			for b.Loop() {
				m.Reset()
				m.Write(msg)
				m.Sum(out[:0])
			}
		})
	}
}
