package vault

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"strings"
	"sync"
	"unicode"
	"unsafe"

	"github.com/cloudg/mcp-privacy/internal/hmacsha256"
)

// TokenLen is the length of a pseudonym's token: the first 12 characters
// of the base32 HMAC (60 bits), enough that two values of one label and
// namespace collide with negligible probability in any real vault.
const TokenLen = 12

// Pseudonymizer issues pseudonyms `{LABEL}_{token}` (manual 13): the token is
// derived from the value with a keyed HMAC, so one value always gets one
// pseudonym in a namespace, the model can still tell entities apart, and
// nobody without the key can compute or reverse one.
type Pseudonymizer struct {
	// mac is keyed once with the HKDF subkey for pseudonyms (never the
	// vault key itself): keying an HMAC costs two SHA-256 blocks, as much
	// as hashing a short value, and a pseudonym is computed for every
	// finding (hmacsha256 is crypto/hmac natively and plain Go keyed once
	// in the VM; both give the same pseudonyms). mu guards the buffers
	// (the CLI and tests share one across goroutines; in the VM it is
	// never contended).
	mu  sync.Mutex
	mac *hmacsha256.MAC
	in  []byte
	sum [hmacsha256.Size]byte
}

// NewPseudonymizer derives the pseudonym subkey from the vault key.
func NewPseudonymizer(vaultKey []byte) *Pseudonymizer {
	k, err := hkdf.Key(sha256.New, vaultKey, nil, "mcp-privacy pseudonym v1", 32)
	if err != nil {
		panic("vault: HKDF: " + err.Error())
	}
	return &Pseudonymizer{mac: hmacsha256.New(k)}
}

var tokenEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// Pseudonym returns the pseudonym of value (found by a detector with
// label) in namespace: "" for a global vault, the principal id for a vault
// scoped per principal.
func (p *Pseudonymizer) Pseudonym(namespace, label, value string) string {
	p.mu.Lock()
	// Length-prefixed fields: no two (namespace, label, value) triples
	// feed the HMAC the same bytes. The buffers are the Pseudonymizer's,
	// so a value longer than any before allocates once, not every time.
	in := p.in[:0]
	for _, f := range [2]string{namespace, label} {
		in = binary.AppendUvarint(in, uint64(len(f)))
		in = append(in, f...)
	}
	// The normalised value is written after a one-byte length, which
	// holds it unless it is 128 bytes or longer: one pass over the value
	// and one look at the label, where counting first would be two of
	// each.
	in = append(in, 0)
	at := len(in)
	var ascii bool
	if in, ascii = appendNormalizedASCII(in, label, value); !ascii {
		f := Normalize(label, value)
		in = binary.AppendUvarint(in[:at-1], uint64(len(f)))
		in = append(in, f...)
	} else if n := len(in) - at; n < 0x80 {
		in[at-1] = byte(n)
	} else {
		var l [binary.MaxVarintLen64]byte
		k := binary.PutUvarint(l[:], uint64(n))
		in = append(in, l[1:k]...)
		copy(in[at-1+k:], in[at:at+n])
		copy(in[at-1:], l[:k])
	}
	p.mac.Sum(&p.sum, in)
	p.in = in
	// The token's 12 base32 characters carry the MAC's first 60 bits.
	top := binary.BigEndian.Uint64(p.sum[:8])
	p.mu.Unlock()
	// One allocation, the pseudonym's own, written in place.
	b := make([]byte, len(label)+1+TokenLen)
	copy(b, label)
	b[len(label)] = '_'
	tok := (*[TokenLen]byte)(b[len(label)+1:])
	for i := range tok {
		tok[i] = base32Alphabet[top>>(59-5*i)&31]
	}
	return unsafe.String(&b[0], len(b))
}

// base32Alphabet is RFC 4648's base32 (tokenEncoding's), by value.
const base32Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

// normKind is how a label's values are normalised (Normalize).
type normKind uint8

const (
	normExact  normKind = iota
	normLower           // lower case
	normPhone           // digits and '+'
	normDigits          // digits
	normIBAN            // upper case, spaces and dashes removed
	normWords           // lower case, runs of white space as one space, trimmed
	normIdent           // upper case letters and digits only
)

// normKinds maps each label with a normalisation to it; any other label
// is exact.
var normKinds = map[string]normKind{
	"EMAIL": normLower, "MAC_ADDRESS": normLower, "IP_ADDRESS": normLower,
	"PHONE":       normPhone,
	"CREDIT_CARD": normDigits, "US_SSN": normDigits,
	"IBAN":   normIBAN,
	"PERSON": normWords, "ADDRESS": normWords,
	// Identifiers are written with and without their separators, and
	// some with letters in either case (a codice fiscale, a passport).
	"UK_NINO": normIdent, "UK_NHS": normIdent, "DE_TAX_ID": normIdent, "FR_NIR": normIdent,
	"ES_DNI": normIdent, "ES_NIE": normIdent, "IT_FISCAL_CODE": normIdent, "NL_BSN": normIdent,
	"BE_NATIONAL_NUMBER": normIdent, "PL_PESEL": normIdent, "SE_PERSONNUMMER": normIdent,
	"FI_HETU": normIdent, "DK_CPR": normIdent, "BR_CPF": normIdent, "BR_CNPJ": normIdent,
	"IN_AADHAAR": normIdent, "IN_PAN": normIdent, "CA_SIN": normIdent, "AU_TFN": normIdent,
	"AU_MEDICARE": normIdent, "SG_NRIC": normIdent, "JP_MY_NUMBER": normIdent, "US_ITIN": normIdent,
	"PASSPORT": normIdent, "ABA_ROUTING": normIdent, "BANK_ACCOUNT": normIdent,
	"NATIONAL_ID": normIdent, "TAX_ID": normIdent, "DRIVER_LICENSE": normIdent,
}

func kindOf(label string) normKind {
	if len(label) < 4 || label[0] < 'A' || label[0] > 'Z' {
		return normExact
	}
	return normKinds[label]
}

// KeepsCharacters reports whether label's values are normalised without
// dropping characters (case aside): an address or an exact value, not a
// number kept as its digits.
func KeepsCharacters(label string) bool {
	k := kindOf(label)
	return k == normLower || k == normExact
}

// Normalize is the form of a value that pseudonyms are computed from, so
// that spellings of one entity share a pseudonym: emails and addresses in
// lower case, numbers and identifiers without their separators, names
// and street addresses whatever their case and inner white space.
func Normalize(label, value string) string {
	switch kindOf(label) {
	case normLower:
		return strings.ToLower(value)
	case normPhone:
		return keep(value, func(c byte) bool { return c >= '0' && c <= '9' || c == '+' })
	case normDigits:
		return keep(value, func(c byte) bool { return c >= '0' && c <= '9' })
	case normIBAN:
		return strings.ToUpper(keep(value, func(c byte) bool { return c != ' ' && c != '-' }))
	case normWords:
		return strings.Join(strings.Fields(strings.ToLower(value)), " ")
	case normIdent:
		return strings.Map(func(r rune) rune {
			switch {
			case r >= '0' && r <= '9', r >= 'A' && r <= 'Z':
				return r
			case r >= 'a' && r <= 'z':
				return r - 'a' + 'A'
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				return unicode.ToUpper(r)
			}
			return -1
		}, value)
	}
	return value
}

// NormalizedLen is the length of Normalize(label, value) when
// AppendNormalized can write it without allocating (ASCII), else -1.
func NormalizedLen(label, value string) int {
	k := kindOf(label)
	switch k {
	case normExact:
		return len(value)
	case normPhone:
		return count(value, func(c byte) bool { return c >= '0' && c <= '9' || c == '+' })
	case normDigits:
		return count(value, func(c byte) bool { return c >= '0' && c <= '9' })
	case normIBAN:
		return -1
	}
	n := 0
	space := true // at the start: leading white space is dropped
	for i := 0; i < len(value); i++ {
		c := value[i]
		switch {
		case c >= 0x80:
			return -1 // Unicode case mapping may change the length
		case k == normLower:
			n++
		case k == normIdent:
			if asciiAlnum(c) {
				n++
			}
		case asciiSpace(c):
			space = true
		default:
			if space && n > 0 {
				n++
			}
			space = false
			n++
		}
	}
	return n
}

// AppendNormalized appends Normalize(label, value) for the cases
// NormalizedLen accepts.
func AppendNormalized(dst []byte, label, value string) []byte {
	if kindOf(label) == normExact {
		return append(dst, value...)
	}
	dst, _ = appendNormalizedASCII(dst, label, value)
	return dst
}

// appendNormalizedASCII appends Normalize(label, value) and true when
// value is ASCII; else it may have appended part of it, and reports false.
func appendNormalizedASCII(dst []byte, label, value string) ([]byte, bool) {
	switch k := kindOf(label); k {
	case normLower:
		for i := 0; i < len(value); i++ {
			c := value[i]
			if c >= 0x80 {
				return dst, false // Unicode lower case may change the length
			}
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
		}
	case normPhone:
		for i := 0; i < len(value); i++ {
			if c := value[i]; c >= '0' && c <= '9' || c == '+' {
				dst = append(dst, c)
			}
		}
	case normDigits:
		for i := 0; i < len(value); i++ {
			if c := value[i]; c >= '0' && c <= '9' {
				dst = append(dst, c)
			}
		}
	case normIBAN, normIdent:
		for i := 0; i < len(value); i++ {
			c := value[i]
			if c >= 0x80 {
				return dst, false // Unicode upper case may change the length
			}
			if c >= 'a' && c <= 'z' {
				c -= 'a' - 'A'
			}
			if k == normIBAN && c != ' ' && c != '-' || k == normIdent && asciiAlnum(c) {
				dst = append(dst, c)
			}
		}
	case normWords:
		start, space := len(dst), false
		for i := 0; i < len(value); i++ {
			c := value[i]
			switch {
			case c >= 0x80:
				return dst, false // Unicode lower case and white space
			case asciiSpace(c):
				space = true
				continue
			case c >= 'A' && c <= 'Z':
				c += 'a' - 'A'
			}
			if space && len(dst) > start {
				dst = append(dst, ' ')
			}
			space = false
			dst = append(dst, c)
		}
	default:
		dst = append(dst, value...)
	}
	return dst, true
}

func asciiAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// asciiSpace is the ASCII white space strings.Fields splits on.
func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func count(s string, ok func(byte) bool) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if ok(s[i]) {
			n++
		}
	}
	return n
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

// Span is where a pseudonym is in a string: s[Start:End].
type Span struct{ Start, End int }

// FindPseudonyms appends to dst the spans of s that have the form of a
// pseudonym: an upper-case label (letters, digits, underscores, starting
// with a letter), an underscore and a base32 token (a stored pseudonym's
// TokenLen characters, or a sealed one's, sealed.go), not inside a longer
// ASCII word. Any non-ASCII character is a boundary, so a pseudonym is
// found next to «», “”, → or in text without spaces such as Japanese:
// labels and tokens are ASCII, and only an ASCII word around them could
// make a different token. The depseudonymiser resolves those the vault
// knows.
func FindPseudonyms(s string, dst []Span) []Span {
	for i := 0; i+1+TokenLen <= len(s); {
		j := strings.IndexByte(s[i:], '_')
		if j < 0 {
			break
		}
		u := i + j // an underscore: is a token right after it?
		end := tokenEnd(s, u+1)
		if end < 0 {
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
		if start == u || (start > 0 && isWordByte(s[start-1]) && !escapeLetter(s, start-1)) {
			i = u + 1
			continue
		}
		dst = append(dst, Span{start, end})
		i = end
	}
	return dst
}

// tokenEnd is the end of the token starting at s[i]: a run of base32
// characters as long as a stored pseudonym's token or a sealed one's, and
// no word character after it. -1: there is none. The run is read no
// further than the longest sealed token, so a scan stays linear.
func tokenEnd[T string | []byte](s T, i int) int {
	j := i
	for j < len(s) && j-i <= sealedTokenMax && isTokenByte(s[j]) {
		j++
	}
	if j < len(s) && isWordByte(s[j]) {
		return -1
	}
	if n := j - i; n == TokenLen || isSealedTokenLen(n) {
		return j
	}
	return -1
}

// SplitPseudonym returns the label and the token of a pseudonym (as
// FindPseudonyms finds them: the token follows the last underscore).
func SplitPseudonym(p string) (label, token string) {
	u := strings.LastIndexByte(p, '_')
	return p[:u], p[u+1:]
}

// escapeLetter: s[i] is the letter of a JSON escape written out in text
// (\n, \t, \r, \b, \f), which the detectors do not count as a word
// character either (transforms/detect/pii.go): "prev\tEMAIL_…" holds a
// pseudonym.
func escapeLetter(s string, i int) bool {
	switch s[i] {
	case 'n', 't', 'r', 'b', 'f':
		return i > 0 && s[i-1] == '\\'
	}
	return false
}

// GluesTo reports whether the byte c next to a pseudonym would make it
// part of a longer ASCII word, which FindPseudonyms does not read as one:
// a writer puts a space between them (王伟1975年 and two adjacent values
// in text without spaces).
func GluesTo(c byte) bool { return isWordByte(c) }

func isTokenByte(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '2' && c <= '7' }

func isUpper(c byte) bool     { return c >= 'A' && c <= 'Z' }
func isLabelByte(c byte) bool { return isUpper(c) || c >= '0' && c <= '9' || c == '_' }
func isWordByte(c byte) bool  { return isLabelByte(c) || c >= 'a' && c <= 'z' }

// MayHoldPseudonym is a cheap test that raw JSON may hold a pseudonym in
// one of its strings: an underscore after a label character, a token, no
// word character after it. The label's start is not checked: in raw JSON
// a pseudonym may follow an escape (`\nEMAIL_…`), whose letter would look
// like part of a word.
func MayHoldPseudonym(raw []byte) bool {
	for i := 0; i+1+TokenLen <= len(raw); i++ {
		j := bytes.IndexByte(raw[i:], '_')
		if j < 0 {
			return false
		}
		u := i + j
		if u > 0 && isLabelByte(raw[u-1]) && tokenEnd(raw, u+1) >= 0 {
			return true
		}
		i = u
	}
	return false
}
