package transforms

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"strings"
)

// TokenLen is the length of a pseudonym's token: the first 12 characters
// of the base32 HMAC (60 bits), enough that two values of one label and
// namespace collide with negligible probability in any real vault.
const TokenLen = 12

// Pseudonymizer issues pseudonyms `{LABEL}_{token}` (SPEC 13): the token is
// derived from the value with a keyed HMAC, so one value always gets one
// pseudonym in a namespace, the model can still tell entities apart, and
// nobody without the key can compute or reverse one.
type Pseudonymizer struct {
	key []byte // HKDF subkey for pseudonyms, never the vault key itself
}

// NewPseudonymizer derives the pseudonym subkey from the vault key.
func NewPseudonymizer(vaultKey []byte) *Pseudonymizer {
	k, err := hkdf.Key(sha256.New, vaultKey, nil, "mcp-privacy pseudonym v1", 32)
	if err != nil {
		panic("transforms: HKDF: " + err.Error())
	}
	return &Pseudonymizer{key: k}
}

var tokenEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// Pseudonym returns the pseudonym of value (found by a detector with
// label) in namespace: "" for a global vault, the principal id for a vault
// scoped per principal.
func (p *Pseudonymizer) Pseudonym(namespace, label, value string) string {
	mac := hmac.New(sha256.New, p.key)
	// Length-prefixed fields: no two (namespace, label, value) triples
	// feed the HMAC the same bytes.
	var n [binary.MaxVarintLen64]byte
	for _, f := range []string{namespace, label, Normalize(label, value)} {
		mac.Write(n[:binary.PutUvarint(n[:], uint64(len(f)))])
		mac.Write([]byte(f))
	}
	sum := mac.Sum(nil)
	return label + "_" + tokenEncoding.EncodeToString(sum)[:TokenLen]
}

// Normalize is the form of a value that pseudonyms are computed from, so
// that spellings of one entity share a pseudonym: emails and addresses in
// lower case, numbers without their separators.
func Normalize(label, value string) string {
	switch label {
	case "EMAIL", "MAC_ADDRESS", "IP_ADDRESS":
		return strings.ToLower(value)
	case "PHONE":
		return keep(value, func(c byte) bool { return c >= '0' && c <= '9' || c == '+' })
	case "CREDIT_CARD", "US_SSN":
		return keep(value, func(c byte) bool { return c >= '0' && c <= '9' })
	case "IBAN":
		return strings.ToUpper(keep(value, func(c byte) bool { return c != ' ' && c != '-' }))
	}
	return value
}

func keep(s string, ok func(byte) bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if ok(s[i]) {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// FindPseudonyms appends to dst the spans of s that have the form of a
// pseudonym: an upper-case label (letters, digits, underscores, starting
// with a letter), an underscore and a TokenLen-character base32 token, not
// inside a longer ASCII word. Any non-ASCII character is a boundary, so a
// pseudonym is found next to «», “”, → or in text without spaces such as
// Japanese: labels and tokens are ASCII, and only an ASCII word around
// them could make a different token. The depseudonymiser resolves those
// the vault knows.
func FindPseudonyms(s string, dst []Span) []Span {
	for i := 0; i+1+TokenLen <= len(s); {
		j := strings.IndexByte(s[i:], '_')
		if j < 0 {
			break
		}
		u := i + j // an underscore: is a token right after it?
		end := u + 1 + TokenLen
		if end > len(s) || !isToken(s[u+1:end]) || (end < len(s) && isWordByte(s[end])) {
			i = u + 1
			continue
		}
		// Walk back over the label.
		start := u
		for start > 0 && isLabelByte(s[start-1]) {
			start--
		}
		for start < u && !isUpper(s[start]) { // a label starts with a letter
			start++
		}
		if start == u || (start > 0 && isWordByte(s[start-1])) {
			i = u + 1
			continue
		}
		dst = append(dst, Span{start, end})
		i = end
	}
	return dst
}

func isToken(t string) bool {
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

func isUpper(c byte) bool     { return c >= 'A' && c <= 'Z' }
func isLabelByte(c byte) bool { return isUpper(c) || c >= '0' && c <= '9' || c == '_' }
func isWordByte(c byte) bool  { return isLabelByte(c) || c >= 'a' && c <= 'z' }
