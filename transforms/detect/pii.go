package detect

// The personal-data detectors of manual 12: email, phone, credit_card, iban,
// us_ssn, ipv4, ipv6, mac_address and aws_arn.
//
// Every detector is driven by a cheap trigger and validates only around
// it; the single pass of detect.go finds the triggers for all of them and
// calls their steps (email.go, phone.go, card.go, network.go, and us_ssn
// below): '@' (email), '.' (ipv4), ':' (ipv6, and aws_arn's
// "arn:"), ':' and '-' (mac_address), '-' (us_ssn), and the first digit
// of a run (phone, credit_card, iban). The digit-run detectors count the
// digits of the stretch of bytes a match could be made of before parsing
// it, and skip the stretch when there are too few (a phone needs 9, or '+'
// and 7; a card 13); the tests hold each of them equal to a per-byte
// reference scan. No regexp, no allocation beyond appending to the pass's
// output, no function call per byte.
//
// Decisions shared by all of them:
//
//   - Word boundaries. A match must not touch a letter, digit or '_' on
//     either side. Non-ASCII characters count as letters when they are
//     two-byte UTF-8 letters (U+00C0–U+07FF except × and ÷: accented Latin,
//     Greek, Cyrillic, Armenian, Hebrew, Arabic), so "é4111…" is not a card
//     and "émile@example.com" keeps its "é". Three- and four-byte characters
//     (CJK, kana, fullwidth and general punctuation, emoji) are separators,
//     because CJK text does not put spaces around numbers or addresses.
//   - JSON escapes. Text items often carry JSON text, so a letter that ends
//     an escape (\n, \t, \r, \b, \f) is not a word character, and an email's
//     local part never starts with the rest of such an escape or of \uXXXX.
//   - Numbers stay whole. A digit detector never reports part of a longer
//     number: no match directly after or before '.', '-', '/' or ':' that
//     joins it to another digit (decimals, dates, versions, ranges of
//     digits), except where the format itself allows it (an IPv4 address
//     may be followed by ":port" or "/prefix").
//   - Spans start and end on rune boundaries: every span edge is an ASCII
//     byte or the lead byte of a two-byte letter.

import (
	"strings"
	"unicode/utf8"
)

// Byte classes of the PII scanners.
const (
	pcDigit   uint16 = 1 << iota // 0-9
	pcHex                        // 0-9 A-F a-f
	pcUpper                      // A-Z
	pcLower                      // a-z
	pcWord                       // letters, digits, '_'
	pcLocal                      // email local part: letters, digits, . _ % + -
	pcDomain                     // email domain: letters, digits, . -
	pcARNStop                    // ends an ARN resource
	pcV6                         // IPv6 text: hex digits, ':', '.'
	pcPhone                      // phone run: digits, space, - . / ( ) +
	pcCard                       // card run: digits, space, -
	pcIBAN                       // IBAN: A-Z, 0-9
	pcPlus                       // '+'
	pcPhoneX                     // digits, ( ) +: one of any two adjacent bytes of a phone
	pcWordish                    // pcWord and bytes >= 0x80: maybe a word character
	pcGlue                       // . - / : join two numbers into one token

	pcAlnum = pcDigit | pcUpper | pcLower
)

var piiClass = func() (t [256]uint16) {
	for c := 0; c < 256; c++ {
		var m uint16
		switch {
		case c >= '0' && c <= '9':
			m = pcDigit | pcHex | pcWord | pcLocal | pcDomain | pcV6
		case c >= 'A' && c <= 'Z':
			m = pcUpper | pcWord | pcLocal | pcDomain
			if c <= 'F' {
				m |= pcHex | pcV6
			}
		case c >= 'a' && c <= 'z':
			m = pcLower | pcWord | pcLocal | pcDomain
			if c <= 'f' {
				m |= pcHex | pcV6
			}
		case c == '_' || c == '%' || c == '+':
			m = pcLocal
			if c == '_' {
				m |= pcWord
			}
		case c == '.':
			m = pcLocal | pcDomain | pcV6
		case c == '-':
			m = pcLocal | pcDomain
		case c == ':':
			m = pcV6
		}
		if c >= '0' && c <= '9' || c == ' ' || c == '-' {
			m |= pcPhone | pcCard
		}
		if c == '.' || c == '/' || c == '(' || c == ')' || c == '+' {
			m |= pcPhone
		}
		if c == '+' {
			m |= pcPlus
		}
		if c >= '0' && c <= '9' || c == '(' || c == ')' || c == '+' {
			m |= pcPhoneX
		}
		if c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' {
			m |= pcIBAN
		}
		if m&pcWord != 0 || c >= utf8.RuneSelf {
			m |= pcWordish
		}
		if c == '.' || c == '-' || c == '/' || c == ':' {
			m |= pcGlue
		}
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"'`)]}<>\\,;|", byte(c)) >= 0 {
			m |= pcARNStop
		}
		t[c] = m
	}
	return t
}()

func piiIs(c byte, m uint16) bool { return piiClass[c]&m != 0 }

// piiDigit reports whether c is an ASCII digit (one compare, inlined).
func piiDigit(c byte) bool { return c-'0' <= 9 }

// piiLetter2 reports whether lead, cont is a two-byte UTF-8 letter: U+00C0
// to U+07FF except U+00D7 (×) and U+00F7 (÷). U+0080–U+00BF (lead 0xC2) is
// Latin-1 punctuation and symbols (NBSP, «, », ©, °, ·), not letters.
func piiLetter2(lead, cont byte) bool {
	return lead >= 0xC3 && lead <= 0xDF && cont&0xC0 == 0x80 && (lead != 0xC3 || (cont != 0x97 && cont != 0xB7))
}

// piiWordBefore reports whether the character that ends at s[i-1] is a word
// character (see the notes above). The common case is inlined.
func piiWordBefore(s string, i int) bool {
	return i > 0 && piiClass[s[i-1]]&pcWordish != 0 && piiWordBeforeSlow(s, i)
}

func piiWordBeforeSlow(s string, i int) bool {
	c := s[i-1]
	if c < utf8.RuneSelf {
		// \n, \t, \r, \b, \f of JSON text end in a letter but separate words.
		return i < 2 || s[i-2] != '\\' || (c != 'n' && c != 't' && c != 'r' && c != 'b' && c != 'f')
	}
	return i >= 2 && piiLetter2(s[i-2], c)
}

// piiWordAt reports whether the character that starts at s[i] is a word
// character. The common case is inlined.
func piiWordAt(s string, i int) bool {
	return i < len(s) && piiClass[s[i]]&pcWordish != 0 && (s[i] < utf8.RuneSelf || piiWordAtSlow(s, i))
}

func piiWordAtSlow(s string, i int) bool {
	c := s[i]
	if !utf8.RuneStart(c) {
		return true // a stray continuation byte (invalid UTF-8): no boundary here
	}
	return i+1 < len(s) && piiLetter2(c, s[i+1])
}

// piiNumStartOK: a number starting at s[i] is not the tail of a longer
// token (a word, or digits joined by '.', '-', '/' or ':').
func piiNumStartOK(s string, i int) bool {
	return !piiWordBefore(s, i) && (i < 2 || piiClass[s[i-1]]&pcGlue == 0 || !piiDigit(s[i-2]))
}

// piiNumEndOK: a number ending before s[e] is not the head of a longer
// token.
func piiNumEndOK(s string, e int) bool {
	return !piiWordAt(s, e) && (e+1 >= len(s) || piiClass[s[e]]&pcGlue == 0 || !piiDigit(s[e+1]))
}

// ---------------------------------------------------------------- us_ssn

// stepSSN, at a '-', finds ddd-dd-dddd (dashes only; bare nine digits and spaced
// forms are too ambiguous) with area not 000, 666 or 9xx, group not 00 and
// serial not 0000. Published sample numbers (078-05-1120, 219-09-9999) are
// still reported: they are what leaks in test data and screenshots. Not
// inside a longer token: no letter, digit or '_' on either side, no '-'
// joined to a letter or digit, no '.', '/' or ':' joined to a digit.
func (p *pass) stepSSN(q int) {
	s := p.s
	n := len(s)
	p.ssnNext = q + 1
	a, e := q-3, q+8
	if a < 0 {
		return
	}
	if e > n {
		p.ssnNext = n // no room for another
		return
	}
	if s[q+3] != '-' || !piiDigit(s[a]) || !piiDigit(s[a+1]) || !piiDigit(s[a+2]) || !piiDigit(s[q+1]) || !piiDigit(s[q+2]) ||
		!piiDigit(s[q+4]) || !piiDigit(s[q+5]) || !piiDigit(s[q+6]) || !piiDigit(s[q+7]) {
		return
	}
	if !piiNumStartOK(s, a) || a >= 2 && s[a-1] == '-' && piiIs(s[a-2], pcAlnum) || a >= 1 && s[a-1] == '+' {
		return
	}
	if !piiNumEndOK(s, e) || e+1 < n && s[e] == '-' && piiIs(s[e+1], pcAlnum) {
		return
	}
	area := s[a : a+3]
	if area == "000" || area == "666" || area[0] == '9' || s[q+1] == '0' && s[q+2] == '0' || s[q+4:e] == "0000" {
		return
	}
	p.emit(detSSN, a, e)
	p.ssnNext = e
}
