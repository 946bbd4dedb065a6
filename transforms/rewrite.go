package transforms

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// Replace returns s with every detection's span replaced by what with
// returns for it. Detections must not overlap and must be in order (as
// Detect returns them).
func Replace(s string, ds []Detection, with func(d Detection, value string) string) string {
	if len(ds) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, d := range ds {
		b.WriteString(s[last:d.Start])
		b.WriteString(with(d, s[d.Start:d.End]))
		last = d.End
	}
	b.WriteString(s[last:])
	return b.String()
}

// Placeholder fills a redact placeholder: {label} becomes the detection's
// label, {detector} its detector (SPEC 11, redact).
func Placeholder(template string, d Detection) string {
	if !strings.Contains(template, "{") {
		return template
	}
	// Two plain replacements: a strings.Replacer would be built per call.
	return strings.ReplaceAll(strings.ReplaceAll(template, "{label}", d.Label), "{detector}", d.Detector)
}

// Mask keeps the last keepLast characters of value and replaces the rest
// with char; emails keep their first character and their domain (SPEC 11,
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
// pseudonyms or the other way round. Nothing is stored.
type Hasher struct{ key []byte }

// NewHasher derives the hash subkey from the vault key.
func NewHasher(vaultKey []byte) *Hasher {
	k, err := hkdf.Key(sha256.New, vaultKey, nil, "mcp-privacy hash v1", 32)
	if err != nil {
		panic("transforms: HKDF: " + err.Error())
	}
	return &Hasher{key: k}
}

// Hash returns `{label}:{hex}` with length hex digits (1 to 64).
func (h *Hasher) Hash(label, value string, length int) string {
	mac := hmac.New(sha256.New, h.key)
	mac.Write([]byte(label))
	mac.Write([]byte{0})
	mac.Write([]byte(Normalize(label, value)))
	sum := hex.EncodeToString(mac.Sum(nil))
	length = max(1, min(length, len(sum)))
	return label + ":" + sum[:length]
}
