package detect

// The personal-data detectors of manual 12: email, phone, credit_card, iban,
// us_ssn, ipv4, ipv6, mac_address and aws_arn.
//
// Every detector is driven by a cheap trigger and validates only around
// it; the single pass of detect.go finds the triggers for all of them and
// calls the steps here: '@' (email), '.' (ipv4), ':' (ipv6, and aws_arn's
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

// ---------------------------------------------------------------- email

// stepEmail, at an '@', finds local@domain.tld. Decisions:
//   - The local part is letters, digits and . _ % + - (the part of RFC 5322
//     atext that is not also common punctuation), an apostrophe between two
//     alphanumerics (o'brien), and two-byte UTF-8 letters (RFC 6531,
//     "émile"). Other atext (! # $ & * / = ? ^ ` { | } ~ and the quote
//     when leading) is a delimiter: in text it is query strings
//     (email=…), paths, markdown and quoting far more often than address.
//     At most 64 bytes; no trailing dot; a leading dot or ".." ends the
//     walk back (the address starts after it). Quoted local parts are not
//     recognised.
//   - The domain is two or more labels of letters, digits and inner hyphens
//     (1–63 bytes each, 253 in all), ASCII only; the TLD is two or more
//     letters or an xn-- label. Trailing '.' and '-' are not included;
//     IP-literal domains ([10.0.0.1]) are not recognised.
//   - Not emails: URL userinfo in schemes that carry a user name
//     (https://user@host, ssh://, databases…; scheme://user:pw@host is
//     url_credentials'), scp-style and host:port forms
//     (git@github.com:org/repo, user@host:22), retina asset names
//     (icon@2x.png), and addresses glued to '_', '@' or a letter after the
//     domain. "mailto:" is never part of the span.
func (p *pass) stepEmail(at int) {
	s := p.s
	p.emailNext = at + 1
	a := emailLocalStart(s, p.emailLo, at)
	if a < 0 {
		return
	}
	e := emailDomainEnd(s, at+1)
	if e < 0 {
		return
	}
	p.emit(detEmail, a, e)
	p.emailNext, p.emailLo = e, e
}

// emailLocalStart returns where the local part ending at s[at] starts, or
// -1; lo is the end of the previous match.
func emailLocalStart(s string, lo, at int) int {
	j := at
	for j > lo && at-j <= 64 {
		c := s[j-1]
		if piiClass[c]&pcLocal != 0 {
			j--
			continue
		}
		if c == '\'' && j < at && j-2 >= lo && piiIs(s[j-2], pcAlnum) && piiIs(s[j], pcAlnum) {
			j--
			continue
		}
		if c >= utf8.RuneSelf && j-2 >= lo && piiLetter2(s[j-2], c) {
			j -= 2
			continue
		}
		break
	}
	if at-j > 64 || j == at || s[at-1] == '.' {
		return -1
	}
	// The rest of a JSON escape: "\nalice@…", "\u003calice@…".
	if j > 0 && s[j-1] == '\\' {
		switch c := s[j]; {
		case c == 'n' || c == 't' || c == 'r' || c == 'b' || c == 'f':
			j++
		case c == 'u' && at-j > 5 && piiIs(s[j+1], pcHex) && piiIs(s[j+2], pcHex) && piiIs(s[j+3], pcHex) && piiIs(s[j+4], pcHex):
			j += 5
		}
	}
	// A leading dot or a ".." ends the local part.
	st := j
	for q := j; q < at; q++ {
		if s[q] == '.' && (q == st || s[q-1] == '.') {
			st = q + 1
		}
	}
	if st >= at {
		return -1
	}
	if st > 0 {
		switch s[st-1] {
		case '@':
			// a@b.com@c.org: not an address; "@alice@mastodon.social" (a
			// fediverse handle, same shape) is.
			if st >= 2 && piiIs(s[st-2], pcLocal) {
				return -1
			}
		case '/':
			// scheme://user@host: URL userinfo, not an email, in the
			// schemes that carry a user name there; after "///" the
			// authority is empty and this is a path. Other schemes
			// (customers://alice@example.com/profile, an MCP server's
			// own) hold what every reader takes for an address.
			if st >= 2 && s[st-2] == '/' && (st < 3 || s[st-3] != '/') && userinfoScheme(s, st-3) {
				return -1
			}
		case ':':
			// scheme://user:password@host: a credential (url_credentials).
			u := st - 1
			for u > lo && st-u < 256 && emailUserinfo(s[u-1]) {
				u--
			}
			if u >= 2 && s[u-1] == '/' && s[u-2] == '/' {
				return -1
			}
		}
	}
	return st
}

// userinfoScheme reports whether the URL scheme ending before "//" at
// colon (s[colon] is ':') is one whose URLs put a user name before '@'
// (http, ssh, databases, ...), or there is no scheme (a "//user@host"
// reference).
func userinfoScheme(s string, colon int) bool {
	if colon < 0 || s[colon] != ':' {
		return true
	}
	a := colon
	for a > 0 && colon-a < 16 && (piiIs(s[a-1], pcAlnum) || s[a-1] == '+' || s[a-1] == '.' || s[a-1] == '-') {
		a--
	}
	scheme := s[a:colon]
	for _, u := range userinfoSchemes {
		if len(scheme) == len(u) && strings.EqualFold(scheme, u) {
			return true
		}
	}
	return false
}

// userinfoSchemes carry a user name in the authority.
var userinfoSchemes = [...]string{"http", "https", "ftp", "ftps", "sftp", "ssh", "git", "git+ssh", "svn", "svn+ssh",
	"smb", "ldap", "ldaps", "ws", "wss", "rtsp", "telnet", "imap", "imaps", "pop", "pop3", "smtp", "smtps", "xmpp",
	"postgres", "postgresql", "mysql", "mariadb", "mongodb", "mongodb+srv", "redis", "rediss", "amqp", "amqps",
	"mqtt", "mqtts", "jdbc", "s3", "ssh+git", "socks5", "socks", "irc", "nntp", "sip", "sips"}

func emailUserinfo(c byte) bool {
	return piiClass[c]&pcLocal != 0 || strings.IndexByte("~!$&'()*,;=", c) >= 0
}

// emailDomainEnd returns where the domain starting at s[d] ends, or -1.
func emailDomainEnd(s string, d int) int {
	n := len(s)
	r := d
	for r < n && r-d <= 253 && piiClass[s[r]]&pcDomain != 0 {
		r++
	}
	if r-d > 253 {
		return -1
	}
	e := r
	for e > d && (s[e-1] == '.' || s[e-1] == '-') {
		e--
	}
	if e-d < 4 { // a.bc
		return -1
	}
	labels, ls, last := 0, d, d
	for q := d; q <= e; q++ {
		if q < e && s[q] != '.' {
			continue
		}
		l := q - ls
		if l == 0 || l > 63 || s[ls] == '-' || s[q-1] == '-' {
			return -1
		}
		labels++
		last, ls = ls, q+1
	}
	if labels < 2 || !emailTLD(s[last:e]) {
		return -1
	}
	// icon@2x.png, logo@3x.webp: retina asset names.
	if labels == 2 {
		q := d
		for piiDigit(s[q]) {
			q++
		}
		if q > d && (s[q] == 'x' || s[q] == 'X') && s[q+1] == '.' {
			return -1
		}
	}
	if e == r && r < n {
		switch c := s[r]; {
		case c == '_' || c == '@':
			return -1
		case c == ':':
			// git@github.com:org/repo.git, user@host:22
			if r+1 < n && (piiIs(s[r+1], pcWord) || s[r+1] == '/' || s[r+1] == '~') {
				return -1
			}
		case c >= utf8.RuneSelf:
			if piiWordAt(s, r) {
				return -1
			}
		}
	}
	return e
}

func emailTLD(t string) bool {
	if len(t) < 2 {
		return false
	}
	if len(t) > 4 && (t[0]|0x20) == 'x' && (t[1]|0x20) == 'n' && t[2] == '-' && t[3] == '-' {
		return true // punycode TLD; its characters were checked as a label
	}
	for i := 0; i < len(t); i++ {
		if !piiIs(t[i], pcUpper|pcLower) {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------- phone

// phoneMaxGroups bounds the digit groups of one run that are considered
// together; a longer run (a space-separated table of numbers) is cut into
// pieces of this size.
const phoneMaxGroups = 24

// Separators between two digit groups of a phone run.
const (
	psSpace uint8 = 1 << iota
	psDash
	psDot
	psSlash
	psParen // a '(' or ')' is part of it
)

type phoneGroup struct {
	start, end int   // the digits
	sep        uint8 // separator before the group (0 for a run's first)
}

// stepDigits, at the first digit of a run, runs the phone and card steps
// that are due. Most runs (times, dates, ids, amounts) sit in a stretch of
// phone bytes with fewer than 7 digits from here, where neither a phone (7
// digits after '+', else 9) nor a card (13) can start: then both skip the
// stretch after this one walk.
func (p *pass) stepDigits(d int) {
	s := p.s
	n := len(s)
	e, digits := d, 0
	for e < n && digits < 7 {
		m := piiClass[s[e]]
		if m&pcPhone == 0 {
			break
		}
		digits += int(m & pcDigit) // pcDigit is bit 0
		e++
	}
	phone := p.on&(1<<detPhone) != 0 && d >= p.phoneNext
	card := p.on&(1<<detCard) != 0 && d >= p.cardNext
	if digits < 7 {
		if phone {
			p.phoneNext = e
		}
		if card {
			p.cardNext = e
		}
		return
	}
	if phone {
		p.stepPhone(d)
	}
	if card {
		p.stepCard(d)
	}
}

// stepPhone, at the first digit since the last run, finds telephone
// numbers. A run is digit groups joined by one
// separator each: a space, '-', '.', '/', or parentheses around one group
// (with an optional space or dash after ')'); a leading '+' makes it
// international. Sub-runs split at plain spaces are tried too (longest
// first), so "020 7946 0958 2 items" still yields the number; but nothing
// is taken from a run glued to a word on its left (a printed IBAN's
// digits, "DE89 3704 0044 0532 0130 00").
//
// International (+): 7–15 digits (E.164), country code not starting with 0.
//
// National: at least two groups (bare digit runs are never phones), 9–12
// digits (10–17 after a 00 international prefix), groups of at most 8
// digits, the last of at least 2, dots only with dots, '/' only in
// 0AAA/NNNNNN. It must also have a recognisable shape: a parenthesised
// area code ("(415) 555-0132", "(0)20 …"), a trunk prefix 0 in a first
// group of two or more digits ("020 7946 0958", "06-12345678"), or the
// NANP shape NXX-NXX-XXXX with an optional leading 1. So "12345-67890"
// (an order number: no trunk prefix, not NANP) is not a phone, and neither
// are dates (2024-01-15, 01-15-2024 10…), four dotted groups of up to 3
// digits (IPv4), ddd-dd-dddd (SSN), ddddd-dddd (ZIP+4), card numbers (13+
// digits) or one digit repeated. Known gap: national numbers of countries
// without a trunk prefix (Spain 912 345 678, Denmark, Norway) are found only
// in +international form.
func (p *pass) stepPhone(d int) {
	s := p.s
	n := len(s)
	// The stretch of phone bytes around the digit needs 9 digits and a
	// separator, or '+' and 7 digits. (The count stops there: a long
	// stretch is parsed a run at a time, and must not be walked again
	// for each.)
	q := d
	for q > p.phoneNext && piiClass[s[q-1]]&pcPhone != 0 {
		q--
	}
	e, digits, plus := q, 0, 0
	for e < n && (digits < 9 || digits == e-q) {
		m := piiClass[s[e]]
		if m&pcPhone == 0 {
			break
		}
		digits += int(m & pcDigit) // pcDigit is bit 0
		plus |= int(m & pcPlus)
		e++
	}
	if digits == e-q || digits < 9 && (plus == 0 || digits < 7) {
		p.phoneNext = e
		return
	}
	// d is the first digit since phoneNext: the run starts there.
	var g [phoneMaxGroups]phoneGroup
	k := len(p.spans)
	p.phoneNext, p.spans = phoneRun(s, d, &g, p.spans)
	p.tag(k, detPhone)
}

// phoneRun parses the run whose first digit is s[i] into g, appends the
// phones in it to dst and returns where the run ends.
func phoneRun(s string, i int, g *[phoneMaxGroups]phoneGroup, dst []Span) (int, []Span) {
	n := len(s)
	st, plus, paren, inParen := i, false, -1, false
	if i > 0 {
		switch s[i-1] {
		case '+':
			st, plus = i-1, true
			if i > 1 && s[i-2] == '(' { // (+44) 20 7946 0958
				st, paren, inParen = i-2, 0, true
			}
		case '(':
			st, paren, inParen = i-1, 0, true
		}
	}
	ng, valid, digits := 0, true, 0
	j := i
	var sep uint8
	for {
		gs := j
		for j < n && piiDigit(s[j]) {
			j++
		}
		g[ng] = phoneGroup{gs, j, sep}
		ng++
		digits += j - gs
		k := j
		var f uint8
		if inParen {
			if k >= n || s[k] != ')' {
				valid = false
				break
			}
			k++
			inParen = false
			f = psParen
		}
		if k < n {
			switch s[k] {
			case ' ':
				f |= psSpace
				k++
			case '-':
				f |= psDash
				k++
			case '.':
				f |= psDot
				k++
			case '/':
				f |= psSlash
				k++
			}
		}
		if paren < 0 && k+1 < n && s[k] == '(' && piiDigit(s[k+1]) {
			f |= psParen
			k++
			inParen, paren = true, ng
		}
		if k == j || k >= n || !piiDigit(s[k]) || ng == phoneMaxGroups {
			break
		}
		sep = f
		j = k
	}
	if digits < 7 || !plus && digits < 9 {
		return j, dst
	}
	switch {
	case paren >= ng:
		paren = -1 // cut at phoneMaxGroups before the '(' group
	case paren >= 0 && (!valid || paren == ng-1):
		// "(415 555", "… (24h)", "(415) abc": the parenthesised group is
		// not part of a phone; what came before it may be.
		if paren == 0 {
			return j, dst
		}
		ng, paren = paren, -1
	case !valid:
		return j, dst
	}
	return j, phoneCandidates(s, g[:ng], st, plus, paren, dst)
}

// phoneCandidates tries the run g (and its sub-runs split at plain spaces)
// and appends the phones it finds.
func phoneCandidates(s string, g []phoneGroup, st int, plus bool, paren int, dst []Span) []Span {
	ng := len(g)
	if piiWordBefore(s, st) {
		return dst // the tail of a word ("DE89 3704 0044 …"): no phone in it
	}
	cuts := false
	for x := 1; x < ng; x++ {
		cuts = cuts || g[x].sep == psSpace
	}
	if !cuts { // the whole run or nothing (most runs)
		if !plus && !piiNumStartOK(s, st) || !piiNumEndOK(s, g[ng-1].end) {
			return dst
		}
		d := 0
		for x := range g {
			d += g[x].end - g[x].start
		}
		if d <= 17 && phoneValid(s, g, plus, paren, d) {
			dst = append(dst, Span{st, g[ng-1].end})
		}
		return dst
	}
	for a := 0; a < ng; a++ {
		start := g[a].start
		if a == 0 {
			start = st
			if !plus && !piiNumStartOK(s, st) {
				continue
			}
		} else if g[a].sep != psSpace {
			continue
		}
		best, d := -1, 0
		for b := a; b < ng; b++ {
			d += g[b].end - g[b].start
			if d > 17 {
				break
			}
			if b+1 < ng && g[b+1].sep != psSpace {
				continue
			}
			if b+1 == ng && !piiNumEndOK(s, g[b].end) {
				continue
			}
			p := -1
			if paren >= a && paren <= b {
				p = paren - a
			}
			if phoneValid(s, g[a:b+1], plus && a == 0, p, d) {
				best = b
			}
		}
		if best >= 0 {
			dst = append(dst, Span{start, g[best].end})
			a = best
		}
	}
	return dst
}

// phoneValid applies the rules of scanPhone to groups g holding d digits;
// paren is the index of the parenthesised group or -1.
func phoneValid(s string, g []phoneGroup, plus bool, paren, d int) bool {
	k := len(g)
	first := g[0].start
	l0 := g[0].end - first
	if plus {
		return d >= 7 && d <= 15 && s[first] != '0' && !phoneSame(s, g)
	}
	if k < 2 {
		return false
	}
	// The shape first: it rejects most digit runs.
	switch {
	case paren >= 0:
		if g[paren].end-g[paren].start > 5 || paren > 1 || paren == 1 && s[first] != '0' && (l0 != 1 || s[first] != '1') {
			return false
		}
	case s[first] == '0':
		if l0 < 2 {
			return false
		}
	default: // NANP: [1] NXX NXX XXXX
		h := g
		if k == 4 && l0 == 1 && s[first] == '1' {
			h = g[1:]
		}
		if len(h) != 3 || !phoneLens(h, 3, 3, 4, 0, false) || s[h[0].start] < '2' || s[h[1].start] < '2' {
			return false
		}
	}
	if s[first] == '0' && l0 >= 2 && s[first+1] == '0' {
		if d < 10 || d > 17 {
			return false
		}
	} else if d < 9 || d > 12 {
		return false
	}
	var seps uint8
	for x := range g {
		if g[x].end-g[x].start > 8 {
			return false
		}
		seps |= g[x].sep
	}
	if g[k-1].end-g[k-1].start < 2 {
		return false
	}
	if seps&psDot != 0 && seps != psDot {
		return false
	}
	if seps&psSlash != 0 && (seps != psSlash || k != 2 || s[first] != '0') {
		return false
	}
	if seps == psDot && k == 4 && phoneLens(g, 3, 3, 3, 3, true) {
		return false // 10.120.33.200
	}
	if seps == psDash && k == 3 && phoneLens(g, 3, 2, 4, 0, false) {
		return false // ddd-dd-dddd: us_ssn
	}
	if seps == psDash && k == 2 && phoneLens(g, 5, 4, 0, 0, false) {
		return false // ZIP+4
	}
	if k >= 3 && phoneDate(s, g) {
		return false
	}
	return !phoneSame(s, g)
}

// phoneSame reports whether all digits of g are the same digit.
func phoneSame(s string, g []phoneGroup) bool {
	c := s[g[0].start]
	for x := range g {
		for q := g[x].start; q < g[x].end; q++ {
			if s[q] != c {
				return false
			}
		}
	}
	return true
}

// phoneLens reports whether the groups have these lengths (up to four;
// 0 ends the list); with atMost, lengths are maxima.
func phoneLens(g []phoneGroup, l0, l1, l2, l3 int, atMost bool) bool {
	want := [4]int{l0, l1, l2, l3}
	for x := range g {
		if x >= 4 || want[x] == 0 {
			return false
		}
		l := g[x].end - g[x].start
		if l > want[x] || !atMost && l != want[x] {
			return false
		}
	}
	return len(g) == 4 || want[len(g)] == 0
}

// phoneDate reports whether the first three groups read as a date:
// dd mm yyyy, mm dd yyyy or yyyy mm dd.
func phoneDate(s string, g []phoneGroup) bool {
	v := [3]int{}
	l := [3]int{}
	for x := 0; x < 3; x++ {
		l[x] = g[x].end - g[x].start
		if l[x] > 4 {
			return false
		}
		for q := g[x].start; q < g[x].end; q++ {
			v[x] = v[x]*10 + int(s[q]-'0')
		}
	}
	year := func(y int) bool { return y >= 1900 && y <= 2099 }
	day := func(x int) bool { return x >= 1 && x <= 31 }
	switch {
	case l[0] == 2 && l[1] == 2 && l[2] == 4:
		return day(v[0]) && day(v[1]) && year(v[2])
	case l[0] == 4 && l[1] == 2 && l[2] == 2:
		return year(v[0]) && v[1] >= 1 && v[1] <= 12 && day(v[2])
	}
	return false
}

// ---------------------------------------------------------------- credit_card

const ccMaxGroups = 24

type ccGroup struct {
	start, end int
	space      bool // the separator before the group is a space
}

// stepCard, at the first digit since the last run, finds payment card
// numbers: 13–19 digits, optionally
// split by single spaces or dashes (grouping need not be consistent, but
// every group except the last has at least 4 digits), Luhn-valid, with a
// known issuer prefix for its length (Visa 4: 13/16/19; Mastercard 51–55,
// 2221–2720: 16; Amex 34/37: 15; Diners 300–305, 309, 36, 38, 39: 14–19;
// JCB 3528–3589: 16–19; Mir 2200–2204: 16–19; Maestro 50, 56–59: 13–19;
// 6 (Discover, UnionPay, Maestro, RuPay…): 16–19). The IIN check cuts the
// Luhn false-positive rate of arbitrary 13–19 digit ids by about two
// thirds. A run of more than 19 digits is never split at a dash, only at a
// space ("4111 1111 1111 1111 2025" yields the card), so a card is never
// found inside a longer number; nor in a run glued to a word on its left
// (the digits of a printed IBAN, "DE89 3704 0044 …").
func (p *pass) stepCard(d int) {
	s := p.s
	n := len(s)
	// A card is at least 13 digits with single separators between them.
	q := d
	for q > p.cardNext && piiClass[s[q-1]]&pcCard != 0 {
		q--
	}
	e, digits := q, 0
	for e < n && digits < 13 { // stops there, as in stepPhone
		m := piiClass[s[e]]
		if m&pcCard == 0 {
			break
		}
		digits += int(m & pcDigit) // pcDigit is bit 0
		e++
	}
	if digits < 13 {
		p.cardNext = e
		return
	}
	var g [ccMaxGroups]ccGroup
	k := len(p.spans)
	p.cardNext, p.spans = ccRun(s, d, &g, p.spans)
	p.tag(k, detCard)
}

// ccRun parses the run of digit groups starting at s[i] into g, appends
// the cards in it to dst and returns where the run ends.
func ccRun(s string, i int, g *[ccMaxGroups]ccGroup, dst []Span) (int, []Span) {
	n := len(s)
	ng, digits := 0, 0
	j := i
	space := false
	for {
		gs := j
		for j < n && piiDigit(s[j]) {
			j++
		}
		g[ng] = ccGroup{gs, j, space}
		ng++
		digits += j - gs
		if ng == ccMaxGroups || j+1 >= n || (s[j] != ' ' && s[j] != '-') || !piiDigit(s[j+1]) {
			break
		}
		space = s[j] == ' '
		j++
	}
	if digits < 13 {
		return j, dst
	}
	return j, ccCandidates(s, g[:ng], dst)
}

func ccCandidates(s string, g []ccGroup, dst []Span) []Span {
	ng := len(g)
	if piiWordBefore(s, g[0].start) {
		return dst // the tail of a word ("DE89 3704 0044 …"): no card in it
	}
	for a := 0; a < ng; a++ {
		if a == 0 {
			if !piiNumStartOK(s, g[0].start) || g[0].start > 0 && s[g[0].start-1] == '+' {
				continue
			}
		} else if !g[a].space {
			continue
		}
		best, d := -1, 0
		for b := a; b < ng; b++ {
			if b > a && g[b-1].end-g[b-1].start < 4 {
				break
			}
			d += g[b].end - g[b].start
			if d > 19 {
				break
			}
			if d < 13 || b+1 < ng && !g[b+1].space || b+1 == ng && !piiNumEndOK(s, g[b].end) {
				continue
			}
			if ccValid(s, g[a:b+1], d) {
				best = b
			}
		}
		if best >= 0 {
			dst = append(dst, Span{g[a].start, g[best].end})
			a = best
		}
	}
	return dst
}

// ccValid checks the issuer prefix and length, then Luhn, of the d digits
// in groups g (the first group has at least 4 digits).
func ccValid(s string, g []ccGroup, d int) bool {
	p := g[0].start
	if !ccIIN(int(s[p]-'0')*1000+int(s[p+1]-'0')*100+int(s[p+2]-'0')*10+int(s[p+3]-'0'), d) {
		return false
	}
	sum, double := 0, false
	for x := len(g) - 1; x >= 0; x-- {
		for q := g[x].end - 1; q >= g[x].start; q-- {
			v := int(s[q] - '0')
			if double {
				v *= 2
				if v > 9 {
					v -= 9
				}
			}
			sum += v
			double = !double
		}
	}
	return sum%10 == 0
}

// ccIIN reports whether a number of d digits starting with the four digits
// p4 has a known issuer prefix for that length.
func ccIIN(p4, d int) bool {
	p2, p3 := p4/100, p4/10
	switch p4 / 1000 {
	case 2:
		return p4 >= 2200 && p4 <= 2204 && d >= 16 || p4 >= 2221 && p4 <= 2720 && d == 16
	case 3:
		switch {
		case p2 == 34 || p2 == 37:
			return d == 15
		case p3 >= 300 && p3 <= 305 || p3 == 309 || p2 == 36 || p2 == 38 || p2 == 39:
			return d >= 14
		case p4 >= 3528 && p4 <= 3589:
			return d >= 16
		}
	case 4:
		return d == 13 || d == 16 || d == 19
	case 5:
		if p2 >= 51 && p2 <= 55 {
			return d == 16
		}
		return p2 == 50 || p2 >= 56
	case 6:
		return d >= 16
	}
	return false
}

// ---------------------------------------------------------------- iban

// ibanLength is the IBAN length of each country of the SWIFT IBAN
// registry (2025 release), indexed by (c0-'A')*26 + (c1-'A') for country
// code c0c1; 0 for codes without IBANs.
var ibanLength = func() (t [26 * 26]uint8) {
	const registry = "AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BI27 BR29 BY28 CH21 CR22 CY28 CZ24 " +
		"DE22 DJ27 DK18 DO28 EE20 EG29 ES24 FI18 FK18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 " +
		"GT28 HN28 HR21 HU28 IE22 IL23 IQ23 IS26 IT27 JO30 KW30 KZ20 LB28 LC32 LI21 LT20 " +
		"LU20 LV21 LY25 MC27 MD24 ME22 MK19 MN20 MR27 MT31 MU30 NI28 NL18 NO15 OM23 PK24 " +
		"PL28 PS29 PT25 QA29 RO24 RS22 RU33 SA24 SC31 SD18 SE24 SI19 SK24 SM27 SO23 ST25 " +
		"SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20 YE30"
	for i := 0; i+4 <= len(registry); i += 5 {
		t[int(registry[i]-'A')*26+int(registry[i+1]-'A')] = (registry[i+2]-'0')*10 + registry[i+3] - '0'
	}
	return t
}()

// stepIBAN, at two upper-case letters and two digits, finds IBANs: a country code of the SWIFT registry, two check
// digits (02–98) and the BBAN, exactly as long as the registry says for
// that country, mod-97 == 1; compact or printed in groups of four
// separated by single spaces (the last group shorter). Letters must be
// upper case, as ISO 13616 writes them: lower-case IBANs are rare, and
// accepting them would make every lower-case word a candidate.
func (p *pass) stepIBAN(a int) {
	if e := ibanAt(p.s, a); e > 0 {
		p.emit(detIBAN, a, e)
		p.ibanNext = e
	}
}

// ibanAt returns the end of an IBAN starting at s[a] (country code, then
// two digits), or -1.
func ibanAt(s string, a int) int {
	c0, c1 := s[a], s[a+1] // A-Z, checked by the caller
	if piiWordBefore(s, a) {
		return -1
	}
	L := int(ibanLength[int(c0-'A')*26+int(c1-'A')])
	if L == 0 {
		return -1
	}
	cd := int(s[a+2]-'0')*10 + int(s[a+3]-'0')
	if cd < 2 || cd > 98 {
		return -1
	}
	n := len(s)
	grouped := a+4 < n && s[a+4] == ' '
	// mod 97 of BBAN + country code + check digits, letters as 10..35
	r := 0
	j := a + 4
	for m := 4; m < L; m++ {
		if grouped && m%4 == 0 {
			if j >= n || s[j] != ' ' {
				return -1
			}
			j++
		}
		if j >= n {
			return -1
		}
		c := s[j]
		switch {
		case piiDigit(c):
			r = (r*10 + int(c-'0')) % 97
		case piiIs(c, pcUpper):
			r = (r*100 + int(c-'A') + 10) % 97
		default:
			return -1
		}
		j++
	}
	if piiWordAt(s, j) {
		return -1
	}
	r = (r*100 + int(c0-'A') + 10) % 97
	r = (r*100 + int(c1-'A') + 10) % 97
	r = (r*100 + cd) % 97
	if r != 1 {
		return -1
	}
	return j
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
	p.emit(detIPv4, a, e)
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
		// "Note:", "std::": skip the rest of this token.
		i := q + 1
		for i < n && s[i] == ':' {
			i++
		}
		p.ipv6Next = i
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
