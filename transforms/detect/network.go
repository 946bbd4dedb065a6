package detect

import (
	"strings"
	"unicode/utf8"
)

// The ipv4, ipv6, mac_address and aws_arn detectors (manual 12), steps of
// the pass (detect.go);
// the byte classes and decisions they share are in pii.go.

// ---------------------------------------------------------------- ipv4

// stepIPv4, at a '.' between two digits, finds dotted quads of decimal octets 0–255 without leading zeros
// (as net/netip: 010 is octal to some parsers, and zero-padded dotted
// numbers are mostly not addresses). A dotted number of other than four
// parts (versions 1.2.3.4.5, OIDs) is never cut into an address; neither
// is one glued to a letter or '_', following "x." (v.1.2.3.4) or followed
// by "-letter" (1.2.3.4-rc1). A following ":port" or "/prefix" is fine. Four-part versions such as
// "version 1.2.3.4" are indistinguishable from addresses and are reported.
func (p *pass) stepIPv4(q int) {
	s := p.s
	n := len(s)
	a := q - 1
	for a > p.ipv4Next && piiDigit(s[a-1]) {
		a--
	}
	e, parts, ok := a, 0, true
	for {
		gs, v := e, 0
		for e < n && piiDigit(s[e]) {
			if e-gs < 3 {
				v = v*10 + int(s[e]-'0')
			}
			e++
		}
		if l := e - gs; l > 3 || v > 255 || l > 1 && s[gs] == '0' {
			ok = false
		}
		parts++
		if e+1 < n && s[e] == '.' && piiDigit(s[e+1]) {
			e++
			continue
		}
		break
	}
	p.ipv4Next = e
	if !ok || parts != 4 || piiWordBefore(s, a) || piiWordAt(s, e) {
		return
	}
	if a >= 2 && s[a-1] == '.' && piiIs(s[a-2], pcAlnum) {
		return
	}
	if e+1 < n && s[e] == '-' && piiIs(s[e+1], pcUpper|pcLower) {
		return // 1.2.3.4-rc1: a version
	}
	if versionBefore(s, a) {
		return // Version 10.2.3.4, build: 4.0.3.1
	}
	p.emit(detIPv4, a, e)
}

// versionBefore: the word before s[a:] (past spaces, ':', '#', '=') names
// a version, as a member's key would (keys.go's kVersion words), which a
// dotted quad also writes (file and assembly versions: 10.0.19041.1).
func versionBefore(s string, a int) bool {
	j := a
	for j > 0 && j > a-3 && (s[j-1] == ' ' || s[j-1] == ':' || s[j-1] == '#' || s[j-1] == '=') {
		j--
	}
	if j == a || j == 0 || !isASCIILetter(s[j-1]) {
		return false
	}
	var k normKey
	if !k.set(s[wordBefore(s, j):j]) || k.nw != 1 {
		return false
	}
	v, ok := lookupKey(k.words(0, 1))
	return ok && v.class() == kVersion
}

// ipv4Valid reports whether t is exactly a dotted quad (for IPv6 tails).
func ipv4Valid(t string) bool {
	parts, i := 0, 0
	for {
		j, v := i, 0
		for j < len(t) && j-i < 4 && piiDigit(t[j]) {
			v = v*10 + int(t[j]-'0')
			j++
		}
		if l := j - i; l == 0 || l > 3 || v > 255 || l > 1 && t[i] == '0' {
			return false
		}
		parts++
		if j == len(t) {
			return parts == 4
		}
		if t[j] != '.' || parts == 4 {
			return false
		}
		i = j + 1
	}
}

// ---------------------------------------------------------------- ipv6

// stepIPv6, at a ':' next to a hex digit or ':', finds RFC 4291 text
// forms: eight groups of 1–4 hex digits, or
// fewer with one "::", optionally ending in a dotted quad; a zone (%eth0),
// prefix length (/64), brackets and port are not part of the span. A
// trailing '.' or single ':' (end of a sentence or a log field) is left
// out. Heuristics against code and times, which RFC syntax alone lets
// through: the text must contain a decimal digit ("dead::beef", "a::b",
// "::" are code); it must not touch a word character (std::vector); it
// must not be an index like x[1::2] (a '[' right after a word, ')' or ']');
// and a compressed form whose only groups are at most two short decimal
// numbers (1::2, ::2, 3::) is a slice, except ::1 (loopback). Times
// (12:30:45) and MAC addresses (six groups, no "::") fail the syntax.
func (p *pass) stepIPv6(q int) {
	s := p.s
	n := len(s)
	a := q
	for a > p.ipv6Next && piiClass[s[a-1]]&(pcHex|pcV6) != 0 && s[a-1] != '.' {
		a--
	}
	if piiWordBefore(s, a) {
		p.ipv6Next = ipv6SkipGlued(s, a, q)
		return
	}
	e := q + 1
	for e < n && piiClass[s[e]]&pcV6 != 0 {
		e++
	}
	p.ipv6Next = e
	for e > a && s[e-1] == '.' {
		e--
	}
	if e-a >= 2 && s[e-1] == ':' && s[e-2] != ':' {
		e--
	}
	if e < n && s[e] != ':' && s[e] != '.' && piiWordAt(s, e) {
		return
	}
	if a >= 2 && s[a-1] == '[' && (piiWordBefore(s, a-1) || s[a-2] == ')' || s[a-2] == ']') {
		return
	}
	if ipv6Valid(s[a:e]) {
		p.emit(detIPv6, a, e)
	}
}

// ipv6SkipGlued returns where the IPv6 scan resumes when the hex digits
// [a, q) before the ':' at q touch a word. A label ("Note:", "IPv6:",
// "std::": the hex tail of a word, one character or without a decimal
// digit) is skipped with its colons, so an address may follow it. Two or
// more hex characters with a decimal digit are an address's first group
// glued to a word (text2001:db8::1): the whole run of address bytes is
// skipped, so no part of it is reported.
func ipv6SkipGlued(s string, a, q int) int {
	i := q + 1
	digit := false
	for k := a; k < q; k++ {
		digit = digit || piiDigit(s[k])
	}
	if q-a >= 2 && digit {
		for i < len(s) && piiClass[s[i]]&(pcHex|pcV6) != 0 {
			i++
		}
		return i
	}
	for i < len(s) && s[i] == ':' {
		i++
	}
	return i
}

// ipv6Valid reports whether t (hex digits, ':' and '.') is an IPv6 address
// in RFC 4291 text form that passes the heuristics of scanIPv6.
func ipv6Valid(t string) bool {
	n := len(t)
	if n < 3 {
		return false
	}
	groups, dbl, i := 0, false, 0
	digit, short := false, true // a decimal digit seen; only short decimal groups
	if t[0] == ':' {
		if t[1] != ':' {
			return false
		}
		dbl, i = true, 2
	}
	for {
		j := i
		for j < n && piiIs(t[j], pcHex) {
			j++
		}
		if j < n && t[j] == '.' {
			if !ipv4Valid(t[i:]) {
				return false
			}
			groups += 2
			digit, short = true, false
			break
		}
		if j == i || j-i > 4 {
			return false
		}
		for q := i; q < j; q++ {
			if piiDigit(t[q]) {
				digit = true
			} else {
				short = false
			}
		}
		if j-i > 2 {
			short = false
		}
		groups++
		if j == n {
			break
		}
		j++ // t[j] was ':'
		if j < n && t[j] == ':' {
			if dbl {
				return false
			}
			dbl = true
			j++
			if j == n {
				break
			}
		} else if j == n {
			return false
		}
		i = j
	}
	if !digit {
		return false
	}
	if !dbl {
		return groups == 8
	}
	if short && groups <= 2 && t != "::1" {
		return false
	}
	return groups <= 7
}

// ---------------------------------------------------------------- mac_address

// stepMAC, at the first ':' or '-' of a MAC (next is the resume point
// of that separator's MACs), finds six pairs of hex digits joined by ':' or by '-' (the same
// one throughout; either case), not part of a longer run of pairs (EUI-64,
// certificate fingerprints) nor glued to a word character; a label joined
// by the separator ("MAC:00:1b:…", "MAC-00-1B-…") is fine. Cisco's dotted
// form (0011.2233.4455) is not recognised.
func (p *pass) stepMAC(f int, next *int) {
	s := p.s
	*next = f + 1
	if f < 2 {
		return
	}
	if f+15 > len(s) {
		*next = len(s) // no room for another
		return
	}
	if s[f+3] != s[f] || piiClass[s[f-2]]&piiClass[s[f-1]]&pcHex == 0 {
		return
	}
	if e := macAt(s, f); e > 0 {
		p.emit(detMAC, f-2, e)
		*next = e
	}
}

// macAt returns the end of a MAC whose first separator is s[f], or -1.
func macAt(s string, f int) int {
	n := len(s)
	sep := s[f]
	a, e := f-2, f+15
	if !piiIs(s[a], pcHex) || !piiIs(s[a+1], pcHex) {
		return -1
	}
	for q := f; q < e; q += 3 {
		if s[q] != sep || !piiIs(s[q+1], pcHex) || !piiIs(s[q+2], pcHex) {
			return -1
		}
	}
	if piiWordBefore(s, a) || piiWordAt(s, e) {
		return -1
	}
	// The same pair six times: broadcast (ff:ff:…), the null address
	// (00:00:…) and placeholders, which name no device.
	if x, y := s[a]|0x20, s[a+1]|0x20; (s[a+3]|0x20)^x|(s[a+4]|0x20)^y|(s[a+6]|0x20)^x|(s[a+7]|0x20)^y|(s[a+9]|0x20)^x|(s[a+10]|0x20)^y|(s[a+12]|0x20)^x|(s[a+13]|0x20)^y|(s[a+15]|0x20)^x|(s[a+16]|0x20)^y == 0 {
		return -1
	}
	// Not part of a longer run of pairs: no stand-alone hex pair joined by
	// ':' or '-' on either side ("MAC:00:1b:…" is fine).
	if a >= 3 && (s[a-1] == ':' || s[a-1] == '-') && piiIs(s[a-2], pcHex) && piiIs(s[a-3], pcHex) && !piiWordBefore(s, a-3) {
		return -1
	}
	if e+2 < n && (s[e] == ':' || s[e] == '-') && piiIs(s[e+1], pcHex) && piiIs(s[e+2], pcHex) && !piiWordAt(s, e+3) {
		return -1
	}
	return e
}

// ---------------------------------------------------------------- aws_arn

// stepARN, at the ':' of "arn:", finds
// arn:partition:service:region:account:resource.
// partition: aws, aws-cn, aws-us-gov, aws-iso, aws-iso-[a-z], aws-eusc.
// service: lower-case letters, digits and '-', starting with a letter.
// region: empty or lower-case letters, digits and '-', with a '-' and
// ending in a digit (us-east-1, us-gov-west-1). account: empty, 12 digits,
// or "aws" (AWS-managed policies: arn:aws:iam::aws:policy/…). resource:
// non-empty, up to whitespace, a quote or backtick, a closing bracket
// (braces may nest, for ${aws:username}), '<', '\', ',', ';', '|' or a
// non-ASCII byte; trailing '.', ':', '!' and '?' are left out.
func (p *pass) stepARN(q int) {
	a := q - 3
	if piiWordBefore(p.s, a) {
		return
	}
	if e := arnAt(p.s, q+1); e > 0 {
		p.emit(detARN, a, e)
		p.arnNext = e
	}
}

// arnField returns the end of the field of s starting at i: the index of
// the ':' that ends it, or -1 if a byte outside [a-z0-9-] comes first.
func arnField(s string, i int) int {
	for j := i; j < len(s); j++ {
		c := s[j]
		if c == ':' {
			return j
		}
		if !piiIs(c, pcLower|pcDigit) && c != '-' {
			return -1
		}
	}
	return -1
}

func arnAt(s string, i int) int {
	// partition
	j := arnField(s, i)
	if j < 0 {
		return -1
	}
	switch p := s[i:j]; p {
	case "aws", "aws-cn", "aws-us-gov", "aws-iso", "aws-eusc":
	default:
		if len(p) != 9 || p[:8] != "aws-iso-" || !piiIs(p[8], pcLower) {
			return -1
		}
	}
	// service
	i = j + 1
	if j = arnField(s, i); j <= i || !piiIs(s[i], pcLower) {
		return -1
	}
	// region
	i = j + 1
	if j = arnField(s, i); j < 0 {
		return -1
	}
	if j > i && (!piiIs(s[i], pcLower) || !piiDigit(s[j-1]) || strings.IndexByte(s[i:j], '-') < 0) {
		return -1
	}
	// account
	i = j + 1
	if j = arnField(s, i); j < 0 {
		return -1
	}
	if acct := s[i:j]; acct != "" && acct != "aws" {
		if len(acct) != 12 {
			return -1
		}
		for q := 0; q < 12; q++ {
			if !piiDigit(acct[q]) {
				return -1
			}
		}
	}
	// resource
	i = j + 1
	e, depth := i, 0
	for e < len(s) {
		c := s[e]
		if c == '{' {
			depth++
		} else if c == '}' && depth > 0 {
			depth--
		} else if piiClass[c]&pcARNStop != 0 {
			break
		}
		e++
	}
	for e > i && strings.IndexByte(".:!?", s[e-1]) >= 0 {
		e--
	}
	if e == i || e < len(s) && !utf8.RuneStart(s[e]) {
		return -1
	}
	return e
}
