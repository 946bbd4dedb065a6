package transforms

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/internal/hmacsha256"
	"github.com/cloudg/mcp-privacy/transforms/detect"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

// Placeholder fills a redact placeholder: {label} becomes the detection's
// label, {detector} its detector (manual 11, redact).
func Placeholder(template string, d detect.Detection) string {
	if !strings.Contains(template, "{") {
		return template
	}
	return string(appendPlaceholder(nil, template, &d))
}

// Mask keeps the last keepLast characters of value and replaces the rest
// with char; emails keep their first character and their domain (manual 11,
// mask). Characters, not bytes: a multi-byte character is never split.
func Mask(label, value string, keepLast int, char string) string {
	if label == "EMAIL" {
		if at := strings.LastIndexByte(value, '@'); at > 0 {
			_, first := utf8.DecodeRuneInString(value)
			n := utf8.RuneCountInString(value[:at]) - 1
			return value[:first] + strings.Repeat(char, n) + value[at:]
		}
	}
	n := utf8.RuneCountInString(value)
	if keepLast >= n {
		return value
	}
	cut := len(value)
	for i := 0; i < keepLast; i++ {
		_, size := utf8.DecodeLastRuneInString(value[:cut])
		cut -= size
	}
	return strings.Repeat(char, n-keepLast) + value[cut:]
}

// Hasher computes the irreversible hash transform: `{label}:{hex}` of a
// keyed HMAC, with a subkey of its own so hashes cannot be turned into
// pseudonyms or the other way round. Nothing is stored. A Hasher is safe
// for concurrent use.
type Hasher struct {
	// mac is keyed once (keying costs two SHA-256 blocks, as much as a
	// short value) and safe for concurrent use; each Hash keeps its input
	// on its own stack.
	mac *hmacsha256.MAC
}

// NewHasher derives the hash subkey from the vault key.
func NewHasher(vaultKey []byte) *Hasher {
	k, err := hkdf.Key(sha256.New, vaultKey, nil, "mcp-privacy hash v1", 32)
	if err != nil {
		panic("transforms: HKDF: " + err.Error())
	}
	return &Hasher{mac: hmacsha256.New(k)}
}

// Hash returns `{label}:{hex}` with length hex digits (1 to 64): the HMAC
// of label, a zero byte and the normalised value.
func (h *Hasher) Hash(label, value string, length int) string {
	var buf [128]byte // most labels and values: longer ones allocate
	in := append(append(buf[:0], label...), 0)
	if vault.NormalizedLen(label, value) >= 0 {
		in = vault.AppendNormalized(in, label, value)
	} else {
		in = append(in, vault.Normalize(label, value)...)
	}
	var sum [hmacsha256.Size]byte
	h.mac.Sum(&sum, in)
	var digits [2 * hmacsha256.Size]byte
	hex.Encode(digits[:], sum[:])
	length = max(1, min(length, len(digits)))
	var b strings.Builder
	b.Grow(len(label) + 1 + length)
	b.WriteString(label)
	b.WriteByte(':')
	b.Write(digits[:length])
	return b.String()
}
