package vault

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPseudonymsPinned pins pseudonyms as the first implementation
// (crypto/hmac, base32) issued them: the native and the wasm build
// (internal/hmacsha256) must both give these, or vaults written by one
// would not resolve in the other. The last input is three SHA-256 blocks.
func TestPseudonymsPinned(t *testing.T) {
	p := NewPseudonymizer([]byte("test key material"))
	for _, c := range [][4]string{
		{"", "EMAIL", "Alice@Corp.com", "EMAIL_UNUEQUWWXZBV"},
		{"alice", "EMAIL", "alice@corp.com", "EMAIL_PQ3XO6X7FF7Z"},
		{"", "CREDIT_CARD", "4111 1111 1111 1111", "CREDIT_CARD_GKDOIB2XVBHV"},
		{"", "IBAN", "GB82 WEST 1234 5698 7654 32", "IBAN_YLMJ3S7GX7PV"},
		{"", "IP_ADDRESS", "2001:DB8::1", "IP_ADDRESS_2WJEHVLR52G6"},
		{"", "SECRET", "", "SECRET_TYTC7XAXWXXZ"},
		{"tenant-with-a-long-principal-identifier", "AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS_SECRET_ACCESS_KEY_LK2KMNJV4TMS"},
	} {
		if got := p.Pseudonym(c[0], c[1], c[2]); got != c[3] {
			t.Errorf("Pseudonym(%q, %q, %q) = %q, want %q", c[0], c[1], c[2], got, c[3])
		}
	}
}

// referencePseudonym is Pseudonym as first written, with crypto/hmac and
// encoding/base32.
func referencePseudonym(vaultKey []byte, namespace, label, value string) string {
	k, err := hkdf.Key(sha256.New, vaultKey, nil, "mcp-privacy pseudonym v1", 32)
	if err != nil {
		panic(err)
	}
	var in []byte
	for _, f := range []string{namespace, label, Normalize(label, value)} {
		in = binary.AppendUvarint(in, uint64(len(f)))
		in = append(in, f...)
	}
	m := hmac.New(sha256.New, k)
	m.Write(in)
	tok := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(m.Sum(nil)[:8])
	return label + "_" + tok[:TokenLen]
}

// TestPseudonymMatchesReference compares Pseudonym with the reference for
// values of every label and of lengths across several SHA-256 blocks, in
// whichever build runs the test (run it under wazero too).
func TestPseudonymMatchesReference(t *testing.T) {
	key := []byte("a vault key of thirty-two bytes.")
	p := NewPseudonymizer(key)
	r := rand.New(rand.NewPCG(5, 6))
	labels := []string{"EMAIL", "PHONE", "CREDIT_CARD", "US_SSN", "IBAN", "IP_ADDRESS", "MAC_ADDRESS", "SECRET", "CUSTOM_LABEL_OF_SOME_LENGTH"}
	const chars = "abcXYZ019 -+@.:É"
	for n := range 400 {
		label := labels[n%len(labels)]
		namespace := strings.Repeat("p", r.IntN(3)*r.IntN(40))
		var value strings.Builder
		for range n % 200 {
			value.WriteByte(chars[r.IntN(len(chars))])
		}
		got := p.Pseudonym(namespace, label, value.String())
		if want := referencePseudonym(key, namespace, label, value.String()); got != want {
			t.Fatalf("Pseudonym(%q, %q, %q) = %q, want %q", namespace, label, value.String(), got, want)
		}
	}
}

// FuzzPseudonymMatchesReference: Pseudonym (its value normalised in one
// pass behind a length fixed up afterwards) equals the reference for any
// value under every label that normalises.
func FuzzPseudonymMatchesReference(f *testing.F) {
	key := []byte("a vault key of thirty-two bytes.")
	p := NewPseudonymizer(key)
	labels := []string{"EMAIL", "PHONE", "CREDIT_CARD", "US_SSN", "IBAN", "IP_ADDRESS", "MAC_ADDRESS", "SECRET"}
	f.Add(uint8(0), "Alice@Corp.COM")
	f.Add(uint8(1), "+1 (555) 123-4567")
	f.Add(uint8(4), "gb82 west-1234 5698 7654 32")
	f.Add(uint8(4), "GB82 WEST 1234 5698 7654 32 ß")
	f.Add(uint8(7), strings.Repeat("x", 130))
	f.Fuzz(func(t *testing.T, l uint8, value string) {
		label := labels[int(l)%len(labels)]
		if got, want := p.Pseudonym("", label, value), referencePseudonym(key, "", label, value); got != want {
			t.Fatalf("Pseudonym(%q, %q) = %q, want %q", label, value, got, want)
		}
	})
}
