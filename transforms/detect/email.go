package detect

import (
	"strings"
	"unicode/utf8"
)

// The email detector (manual 12), a step of the pass (detect.go); the
// byte classes and decisions it shares are in pii.go.

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
