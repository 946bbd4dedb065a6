package hmacsha256

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"sync"
	"testing"
)

func reference(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}

// implementations are the MACs under test: MAC (crypto/hmac natively, the
// plain Go in the wasm module) and the plain Go itself, so that the plain
// Go is compared with crypto/hmac by every native `go test` too.
func implementations(key []byte) []struct {
	name string
	sum  func(dst *[Size]byte, msg []byte)
} {
	m, p := New(key), newPlainMAC(key)
	return []struct {
		name string
		sum  func(dst *[Size]byte, msg []byte)
	}{{"MAC", m.Sum}, {"plainMAC", p.sum}}
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
		for _, impl := range implementations(key) {
			for _, n := range lengths {
				var got [Size]byte
				impl.sum(&got, msg[:n])
				if want := reference(key, msg[:n]); !bytes.Equal(got[:], want) {
					t.Fatalf("%s, key of %d bytes, message of %d: %x, want %x", impl.name, len(key), n, got, want)
				}
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
		want := sha256.Sum256(msg[:n])
		if got := Sum256(msg[:n]); got != want {
			t.Fatalf("Sum256, message of %d bytes: %x, want %x", n, got, want)
		}
		if got := plainSum256(msg[:n]); got != want {
			t.Fatalf("plainSum256, message of %d bytes: %x, want %x", n, got, want)
		}
	}
}

// TestRFC4231 is test case 2 of RFC 4231 (key "Jefe"), independent of
// crypto/hmac.
func TestRFC4231(t *testing.T) {
	for _, impl := range implementations([]byte("Jefe")) {
		var got [Size]byte
		impl.sum(&got, []byte("what do ya want for nothing?"))
		if want := "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"; hex.EncodeToString(got[:]) != want {
			t.Fatalf("%s: got %x, want %s", impl.name, got, want)
		}
	}
}

var sink byte

// TestSumAllocatesNothing also checks that the message and the MAC can
// live on the caller's stack (Sum must not let them escape).
func TestSumAllocatesNothing(t *testing.T) {
	m, p := New([]byte("key")), newPlainMAC([]byte("key"))
	for name, f := range map[string]func(){
		"MAC.Sum": func() {
			msg := [300]byte{1, 2, 3}
			var out [Size]byte
			m.Sum(&out, msg[:])
			sink = out[0]
		},
		"plainMAC.sum": func() {
			msg := [300]byte{1, 2, 3}
			var out [Size]byte
			p.sum(&out, msg[:])
			sink = out[0]
		},
		"Sum256": func() {
			msg := [300]byte{1, 2, 3}
			sink = Sum256(msg[:])[0]
		},
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s allocates %v times", name, n)
		}
	}
}

// TestConcurrentSum shares one MAC between goroutines (run with -race).
func TestConcurrentSum(t *testing.T) {
	key := []byte("shared key")
	m := New(key)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			msg := make([]byte, 0, 200)
			for i := range 200 {
				msg = append(msg[:0], byte(g), byte(i))
				msg = msg[:2+(g*37+i)%198]
				var got [Size]byte
				m.Sum(&got, msg)
				if want := reference(key, msg); !bytes.Equal(got[:], want) {
					t.Errorf("goroutine %d, message %x: %x, want %x", g, msg, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

func FuzzMatchesCryptoHMAC(f *testing.F) {
	f.Add([]byte("key"), []byte("message"))
	f.Add(bytes.Repeat([]byte{0xaa}, 131), bytes.Repeat([]byte{'x'}, 55))
	f.Add([]byte{}, bytes.Repeat([]byte{'y'}, 64))
	f.Fuzz(func(t *testing.T, key, msg []byte) {
		want := reference(key, msg)
		for _, impl := range implementations(key) {
			var got [Size]byte
			impl.sum(&got, msg)
			if !bytes.Equal(got[:], want) {
				t.Fatalf("%s, key %x, message %x: %x, want %x", impl.name, key, msg, got, want)
			}
		}
	})
}

// The benchmarks compare MAC (this build's choice), the plain Go and
// crypto/hmac for a message of one block once padded (a pseudonym's
// input) and of four blocks, each MAC under an existing key. Under wazero
// (scripts/bench-wasm-go.sh) MAC is the plain Go; natively it is
// crypto/hmac behind a mutex.
var benchSizes = []struct {
	name string
	n    int
}{{"40B", 40}, {"256B", 256}}

const benchKey = "benchmark key, 32 bytes........."

func benchSum(b *testing.B, sum func(dst *[Size]byte, msg []byte)) {
	for _, s := range benchSizes {
		msg := make([]byte, s.n)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(s.n))
			b.ReportAllocs()
			var out [Size]byte
			for b.Loop() {
				sum(&out, msg)
			}
		})
	}
}

func BenchmarkSum(b *testing.B) { benchSum(b, New([]byte(benchKey)).Sum) }

func BenchmarkPlainSum(b *testing.B) {
	p := newPlainMAC([]byte(benchKey))
	benchSum(b, p.sum)
}

func BenchmarkCryptoHMAC(b *testing.B) {
	m := hmac.New(sha256.New, []byte(benchKey))
	benchSum(b, func(dst *[Size]byte, msg []byte) {
		m.Reset()
		m.Write(msg)
		m.Sum(dst[:0])
	})
}
