package transforms

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/cloudg/mcp-privacy/transforms/vault"
)

// TestHashesPinned pins the hash transform's output as the first
// implementation (crypto/hmac keyed per call) gave it: a policy's hashes
// must not change with the build (native or wasm) or the HMAC code. The
// cases cover normalised labels, non-ASCII and a value of three SHA-256
// blocks.
func TestHashesPinned(t *testing.T) {
	h := NewHasher([]byte("test key material"))
	for _, c := range []struct {
		label, value string
		length       int
		want         string
	}{
		{"EMAIL", "Alice@Corp.com", 16, "EMAIL:71493913ec6e2f8d"},
		{"EMAIL", "ÉLISE@corp.com", 64, "EMAIL:bcd95bf7f63f130e7f699bb5dfdead71ec5d9382c4e601dfaa12e21d138ef8fb"},
		{"PHONE", "+1 (555) 010-9999", 8, "PHONE:6156daaf"},
		{"CREDIT_CARD", "4111 1111 1111 1111", 999, "CREDIT_CARD:0f37e679efe2e95d6331c6bedceefce56f9e5bcb7cee1eea12ac9388511bf0a9"},
		{"IBAN", "gb82 west 1234 5698 7654 32", 0, "IBAN:d"},
		{"SECRET", "", 12, "SECRET:301d064bcb69"},
		{"AWS_SECRET_ACCESS_KEY", strings.Repeat("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", 4), 20, "AWS_SECRET_ACCESS_KEY:c2a117dc92937e51228a"},
	} {
		if got := h.Hash(c.label, c.value, c.length); got != c.want {
			t.Errorf("Hash(%q, %q, %d) = %q, want %q", c.label, c.value, c.length, got, c.want)
		}
	}
}

// referenceHash is Hasher.Hash as first written: crypto/hmac keyed per
// call over label, a zero byte and the normalised value.
func referenceHash(vaultKey []byte, label, value string, length int) string {
	k, err := hkdf.Key(sha256.New, vaultKey, nil, "mcp-privacy hash v1", 32)
	if err != nil {
		panic(err)
	}
	m := hmac.New(sha256.New, k)
	m.Write([]byte(label))
	m.Write([]byte{0})
	m.Write([]byte(vault.Normalize(label, value)))
	sum := hex.EncodeToString(m.Sum(nil))
	length = max(1, min(length, len(sum)))
	return label + ":" + sum[:length]
}

// TestHashMatchesReference compares Hash with the reference for every
// label, lengths across several SHA-256 blocks and every hex length, from
// several goroutines at once (run with -race, and under wazero).
func TestHashMatchesReference(t *testing.T) {
	key := []byte("a vault key of thirty-two bytes.")
	h := NewHasher(key)
	labels := []string{"EMAIL", "PHONE", "CREDIT_CARD", "US_SSN", "IBAN", "IP_ADDRESS", "MAC_ADDRESS", "SECRET", "CUSTOM_LABEL_OF_SOME_LENGTH"}
	const chars = "abcXYZ019 -+@.:É"
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(7, uint64(g)))
			for n := range 300 {
				label := labels[n%len(labels)]
				var value strings.Builder
				for range (n * 7) % 230 {
					value.WriteByte(chars[r.IntN(len(chars))])
				}
				length := n%70 - 2
				got := h.Hash(label, value.String(), length)
				if want := referenceHash(key, label, value.String(), length); got != want {
					t.Errorf("Hash(%q, %q, %d) = %q, want %q", label, value.String(), length, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkHasher is the hash transform of one finding (an email, 16 hex
// digits).
func BenchmarkHasher(b *testing.B) {
	h := NewHasher([]byte("benchmark key"))
	if got := h.Hash("EMAIL", "Alice@Corp.com", 16); got != referenceHash([]byte("benchmark key"), "EMAIL", "Alice@Corp.com", 16) {
		b.Fatalf("Hash = %q", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		h.Hash("EMAIL", "Alice@Corp.com", 16)
	}
}
