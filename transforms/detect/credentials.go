package detect

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The url_credentials, bearer_token and generic_secret detectors
// (manual 12): secrets found by what names them; steps of the pass
// (detect.go); what they share is in secrets.go.

// ---------------------------------------------------------------- URLs

// stepURLCredentials, at an '@': the userinfo of scheme://user:password@host, any
// scheme, password required and not a placeholder; the user may be empty
// (redis://:pw@host). The authority ends at whitespace, / ? quotes < > `
// or \; its last @ ends the userinfo: raw @ and # occur in real passwords
// (a # right after a port-like number is a fragment instead).
func (p *pass) stepURLCredentials(u int) {
	// Walk back over the userinfo to "://", then forward to the end of
	// the authority.
	s := p.s
	a := u
	for a > 0 && !secURLStop(s[a-1]) && u-a < 512 {
		if a-1 == p.urlPrevU { // same run as the previous '@': reuse its walk
			a = p.urlPrevA
			break
		}
		a--
	}
	p.urlPrevU, p.urlPrevA = u, a
	p.urlNext = u + 1
	if u-a >= 512 || a < 4 || s[a-1] != '/' || s[a-2] != '/' || s[a-3] != ':' {
		return
	}
	k := a - 3
	for k > 0 && a-3-k < 32 && secIs(s[k-1], secAlnum|secDash|secDot|secPlusSl) && s[k-1] != '/' {
		k--
	}
	for k < a-3 && !secIs(s[k], secAlpha) {
		k++
	}
	e, at := u, u
	for e < len(s) && e-a < 512 && !secURLStop(s[e]) {
		if s[e] == '@' {
			at = e
		}
		e++
	}
	p.urlNext = max(e, u+1)
	if k == a-3 || at+1 >= e || !secIs(s[at+1], secAlnum) && s[at+1] != '[' {
		return
	}
	c := strings.IndexByte(s[a:at], ':')
	if c < 0 || a+c+1 == at || secPlaceholder(s[a+c+1:at]) {
		return
	}
	if h := strings.IndexByte(s[a:at], '#'); h >= 0 && (h < c || secRun(s, a+c+1, secDigit) == a+h) {
		return // host:port#fragment@…
	}
	if a >= p.urlLast {
		p.secEmit(detURL, a, at)
		p.urlLast = at
	}
}

// secURLStop reports the bytes that end a URL's authority.
func secURLStop(c byte) bool {
	return c <= ' ' || c == '/' || c == '?' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`' || c == '\\' || c == 0x7f
}

// ---------------------------------------------------------------- Bearer

// stepBearer, at a 'B' or 'b' with 8 bytes left (next is the resume
// point of the tokens after that letter): the token after "Bearer"/"bearer"/"BEARER" and one or
// more spaces or tabs: a run of [A-Za-z0-9._~+/=-] (RFC 6750 b64token) of
// 16 or more characters with at least two of lower case, upper case and
// digits, so prose ("bearer authentication"), placeholders
// (YOUR_ACCESS_TOKEN, xxxx…) and CamelCase identifiers
// (TokenAuthenticationHandler) do not qualify. A final full stop is prose.
func (p *pass) stepBearer(b int, next *int) {
	s := p.s
	i := b + 6
	if c := s[b+1] | 0x20; c != 'e' || s[b+2]|0x20 != 'a' || b > 0 && secIs(s[b-1], secWord) {
		*next = b + 1
		return
	}
	if w := s[b+1 : i]; w != "earer" && (s[b] != 'B' || w != "EARER") {
		*next = b + 1
		return
	}
	k := i
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	*next = k
	if k == i {
		return
	}
	e := secRun(s, k, secBearer)
	for e > k && s[e-1] == '.' {
		e--
	}
	if e-k < 16 || secLongRun(s[k:e], 8) {
		return
	}
	var cls uint16
	for q := k; q < e; q++ {
		cls |= secCls[s[q]]
	}
	if n := min(cls&secUpper, 1) + min(cls&secLower, 1) + min(cls&secDigit, 1); n < 2 || cls&^secAlpha == 0 && secCamelWords(s[k:e]) {
		return
	}
	p.secEmit(detBearer, k, e)
	*next = e
}

// secCamelWords reports letters that read as CamelCase words, each capital
// followed by at least two lower-case letters (TokenAuthenticationHandler):
// an identifier in prose or code, not a random token.
func secCamelWords(t string) bool {
	n := 0 // lower-case letters since the last capital
	for k := 0; k < len(t); k++ {
		if secIs(t[k], secUpper) {
			if k > 0 && n < 2 {
				return false
			}
			n = 0
		} else {
			n++
		}
	}
	return n >= 2
}

// ---------------------------------------------------------------- generic

// stepGeneric, at a ':' or '=': the value of an assignment (= : := =>) whose key
// names a secret (secGenericAt).
func (p *pass) stepGeneric(i int) {
	vs, ve, next := secGenericAt(p.s, i)
	p.genericNext = next
	if vs >= 0 {
		p.secEmit(detGeneric, vs, ve)
	}
}

// secGenericAt reads the assignment whose separator is at i and returns
// its value [vs, ve) (vs -1 when there is none to report) and where the
// scan resumes. The key's last word (words split at _ - . and
// lower→Upper) is or ends with password, passwd, passphrase or secret, or
// is token / key qualified by the word before (access_token, apiKey,
// X-Api-Key, AWS_SECRET_ACCESS_KEY; not pageToken, progressToken,
// nextPageToken, primary_key), or is credential. Keys may be quoted, also
// as \"key\" inside JSON shown as text. The value is reported whole or
// not at all (secValueAfter says where it ends). Not values: placeholders
// (see secPlaceholder), nested objects/lists/YAML block markers, code
// (calls, member access, the key's own name as in password=password, type
// names as in password: str) and file paths. An unquoted identifier that
// itself names a secret is a variable (password=password, self.api_key =
// api_key).
func secGenericAt(s string, i int) (int, int, int) {
	if !genericKeyEnd(s, i) {
		return -1, -1, i + 1
	}
	ks, ke := secKeyBefore(s, i)
	if ks < 0 {
		return -1, -1, i + 1
	}
	vs, ve, next, quoted := secValueAfter(s, i, secLineStart(s, ks))
	if vs < 0 || ve-vs < 3 {
		return -1, -1, max(i+1, next)
	}
	we := ve // the first word of a YAML line value: a word like the others
	if !quoted {
		we = vs + max(0, strings.IndexAny(s[vs:ve], " \t"))
		if we == vs {
			we = ve
		}
	}
	for _, v := range [...]string{s[vs:ve], s[vs:we]} {
		if secPlaceholder(v) || secCodeOrPath(v, quoted) {
			return -1, -1, i + 1
		}
	}
	if v := s[vs:we]; !quoted && (strings.EqualFold(v, s[ks:ke]) || secRun(v, 0, secWord) == len(v) && secNamesSecret(s, vs, we)) {
		return -1, -1, i + 1 // a variable: password=password, key = api_key
	}
	return vs, ve, next
}

// genericKeyEnd is stepGeneric's quick filter for the separator at i: the
// key's last letters (before spaces and a quote) end password/passwd,
// passphrase, secret, token, key or credential.
func genericKeyEnd(s string, i int) bool {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		j--
		if j > 0 && s[j-1] == '\\' {
			j--
		}
	}
	if j < 3 {
		return false
	}
	c1, c2, c3 := s[j-1]|0x20, s[j-2]|0x20, s[j-3]|0x20
	switch {
	case c1 == 'd' && (c2 == 'r' && c3 == 'o' || c2 == 'w' && c3 == 's'): // password, passwd
	case c1 == 'e' && c2 == 's' && c3 == 'a': // passphrase
	case c1 == 't' && c2 == 'e' && c3 == 'r': // secret
	case c2 == 'e' && c3 == 'k' && (c1 == 'n' || c1 == 'y'): // token, key
	case c1 == 'l' && c2 == 'a' && c3 == 'i': // credential
	default:
		return false
	}
	return true
}

func secIsQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

// secKeyBefore finds the key that the separator at i assigns to and
// reports [start, end) when it names a secret, else -1.
func secKeyBefore(s string, i int) (int, int) {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	var q byte
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		q = s[j-1]
		j--
		if j > 0 && s[j-1] == '\\' {
			j--
		}
	}
	ke := j
	for j > 0 && ke-j <= 64 && secIs(s[j-1], secKey) {
		j--
	}
	ks := j
	if ks == ke || ke-ks > 64 || q != 0 && (ks == 0 || s[ks-1] != q) || !secNamesSecret(s, ks, ke) {
		return -1, -1
	}
	return ks, ke
}

// secNamesSecret reports whether the name s[ks:ke] names a secret, by its
// last word and the word before it.
func secNamesSecret(s string, ks, ke int) bool {
	w1e := ke
	for w1e > ks && secIs(s[w1e-1], secDash|secDot|secUnder) {
		w1e--
	}
	w1s := secWordStart(s, ks, w1e)
	w0e := w1s
	for w0e > ks && secIs(s[w0e-1], secDash|secDot|secUnder) {
		w0e--
	}
	w0s := secWordStart(s, ks, w0e)
	return secKeyNamesSecret(s[w1s:w1e], s[w0s:w0e])
}

// secWordStart walks back from e over one word: it stops at _ - . and at
// a lower/digit→Upper camelCase step.
func secWordStart(s string, ks, e int) int {
	k := e
	for k > ks {
		c := s[k-1]
		if secIs(c, secDash|secDot|secUnder) {
			break
		}
		k--
		if secIs(c, secUpper) && k > ks && secIs(s[k-1], secLower|secDigit) {
			break
		}
	}
	return k
}

func secHasSuffixFold(s, suf string) bool {
	return len(s) >= len(suf) && strings.EqualFold(s[len(s)-len(suf):], suf)
}

func secKeyNamesSecret(w1, w0 string) bool {
	switch {
	case secHasSuffixFold(w1, "password"), secHasSuffixFold(w1, "passwd"), secHasSuffixFold(w1, "passphrase"), secHasSuffixFold(w1, "secret"):
		return true
	case strings.EqualFold(w1, "credential"):
		return true
	case secHasSuffixFold(w1, "token"):
		q := w1[:len(w1)-5]
		if q == "" {
			q = w0
		}
		for _, x := range [...]string{"page", "progress", "continuation", "sync", "next", "cursor", "max", "resume"} {
			if secHasSuffixFold(q, x) {
				return false
			}
		}
		return true
	case secHasSuffixFold(w1, "key"):
		q := w1[:len(w1)-3]
		if q == "" {
			q = w0
		}
		for _, x := range [...]string{"api", "secret", "access", "private", "auth", "signing", "encryption", "master", "app", "license"} {
			if secHasSuffixFold(q, x) {
				return true
			}
		}
	}
	return false
}

// secValueAfter returns the value assigned by the separator at i:
// [start, end), where scanning resumes, and whether the value was quoted;
// start -1 when there is none. lineStart says the key starts its line
// (secLineStart).
//
// The value is whole or nothing, by its own grammar:
//   - quoted ("…", '…', `…`, also \"…\" inside JSON shown as text, after a
//     string prefix such as Objective-C's @"…" or Python's r'…', and
//     triple-quoted """…"""): everything up to the closing quote on the
//     same line (≤ 1 KB), backslash escapes and doubled quotes ('it”s')
//     inside; no closing quote on the line, no value;
//   - unquoted: up to white space, a line break or an escape of the
//     enclosing JSON text (\" \n \r \t), ≤ 512 bytes. Brackets the value
//     opens it also closes (q7{R2}x…). Punctuation that may belong to
//     the enclosing syntax ends the value only where that syntax goes on:
//     a quote or an unopened ) ] } > followed by white space, the end, or
//     more such punctuation ("PASSWORD=abc", {password:abc}); , ; &
//     followed by that or by the next key (a=1&b=2, Password=x;Database=y);
//     a tag (abc</td>). Elsewhere they are part of the value (ab,cd and
//     x)y are values). A final full stop is prose;
//   - unquoted after "key: " at the start of a line (YAML, headers): the
//     rest of the line when it reads as plain words (no brackets, quotes,
//     = | & ; < > , or backquote), less a " #" comment and trailing space
//     (passphrase: correct horse battery staple).
func secValueAfter(s string, i int, lineStart bool) (int, int, int, bool) {
	k := i + 1
	sep := s[i]
	if k < len(s) {
		switch c := s[k]; {
		case c == s[i]: // == and ::
			return -1, -1, 0, false
		case s[i] == ':' && c == '=', s[i] == '=' && c == '>':
			k++
			sep = 0 // := and => are code, never YAML
		case s[i] == ':' && c == '/': // scheme://
			return -1, -1, 0, false
		}
	}
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	if k >= len(s) {
		return -1, -1, 0, false
	}
	k = secStringPrefix(s, k)
	c := s[k]
	if secIsQuote(c) || c == '\\' && k+1 < len(s) && s[k+1] == '"' {
		vs, ve, next := secQuotedValue(s, k)
		return vs, ve, next, vs >= 0
	}
	if strings.IndexByte("{[|>!&*#\r\n", c) >= 0 {
		return -1, -1, 0, false
	}
	vs, ve, next := secBareValue(s, k)
	if vs >= 0 && lineStart && sep == ':' && k > i+1 && next < len(s) && (s[next] == ' ' || s[next] == '\t') {
		if e, ok := secLineValue(s, next); ok {
			return vs, e, e, false
		}
	}
	return vs, ve, next, false
}

// secStringPrefix returns where the quote of a prefixed string literal
// at k sits (@"…" in Objective-C and C#, r'…', b"…", f"…", u"…", rb"…"
// in Python), else k.
func secStringPrefix(s string, k int) int {
	switch {
	case k+1 < len(s) && strings.IndexByte("@rRbBfFuU", s[k]) >= 0 && (s[k+1] == '"' || s[k+1] == '\''):
		return k + 1
	case k+2 < len(s) && strings.IndexByte("rRbB", s[k]) >= 0 && strings.IndexByte("rRbB", s[k+1]) >= 0 && (s[k+2] == '"' || s[k+2] == '\''):
		return k + 2
	}
	return k
}

// secQuotedValue reads the quoted value whose opening quote (or \" of
// JSON shown as text) is at k: [start, end) and where scanning resumes,
// start -1 when it has no closing quote on its line.
func secQuotedValue(s string, k int) (int, int, int) {
	c := s[k]
	esc := c == '\\'
	if esc {
		k++
		c = '"'
	}
	if !esc && k+2 < len(s) && s[k+1] == c && s[k+2] == c { // """…"""
		b := k + 3
		if e := strings.Index(s[b:min(len(s), b+1027)], s[k:k+3]); e >= 0 && !strings.ContainsAny(s[b:b+e], "\r\n") {
			return b, b + e, b + e + 3
		}
		return -1, -1, 0
	}
	b := k + 1
	for e := b; e < len(s) && e-b <= 1024; e++ {
		switch s[e] {
		case '\n', '\r':
			return -1, -1, 0
		case '\\':
			if esc && e+1 < len(s) && s[e+1] == '"' {
				return b, e, e + 2
			}
			e++ // an escaped character
		case c:
			if esc {
				break
			}
			if e > b && e+1 < len(s) && s[e+1] == c && c != '`' {
				e++ // a doubled quote: 'it''s'
				break
			}
			return b, e, e + 1
		}
	}
	return -1, -1, 0
}

// secBareValue reads the unquoted value from k (secValueAfter's
// grammar): [start, end) and where scanning resumes.
func secBareValue(s string, k int) (int, int, int) {
	var paren, square, curly int // brackets the value opened
	e := k
scan:
	for e < len(s) && e-k <= 512 {
		switch c := s[e]; c {
		case '\\':
			if e+1 < len(s) && (s[e+1] == '"' || s[e+1] == 'n' || s[e+1] == 'r' || s[e+1] == 't') {
				break scan
			}
		case '"', '\'', '`':
			if secClosesAt(s, e+1) {
				break scan
			}
		case ',', ';', '&':
			if secClosesAt(s, e+1) || secKeyAt(s, e+1) {
				break scan
			}
		case '(':
			paren++
		case '[':
			square++
		case '{':
			curly++
		case ')', ']', '}', '>':
			n := &paren
			switch c {
			case ']':
				n = &square
			case '}':
				n = &curly
			case '>':
				n = nil
			}
			if n != nil && *n > 0 {
				*n--
			} else if secClosesAt(s, e+1) {
				break scan
			}
		case '<':
			if secTagAt(s, e) {
				break scan
			}
		default:
			if c <= ' ' || c == 0x7f {
				break scan
			}
		}
		e++
	}
	if e-k > 512 {
		return -1, -1, e // one long token: no assignment starts inside it
	}
	v := e
	for v > k && s[v-1] == '.' {
		v--
	}
	return k, v, e
}

// secClosesAt reports whether the text from j goes on as the syntax
// around a value does after its end: the end, white space, an escape,
// a quote, a closing bracket or , ; & — after any full stops.
func secClosesAt(s string, j int) bool {
	for j < len(s) && s[j] == '.' {
		j++
	}
	if j >= len(s) {
		return true
	}
	c := s[j]
	return c <= ' ' || c == 0x7f || strings.IndexByte("\"'`)]}>,;&\\", c) >= 0
}

// secKeyAt reports whether a key and its separator (a name, then = or
// :) start at j: the next member after , ; or &.
func secKeyAt(s string, j int) bool {
	k := j
	for k < len(s) && k-j < 64 && secIs(s[k], secKey) {
		k++
	}
	return k > j && secIs(s[j], secAlpha|secUnder) && k < len(s) && (s[k] == '=' || s[k] == ':')
}

// secTagAt reports whether a markup tag starts at the '<' at j: </x…>,
// <x…> or <x…/> with a name of letters and digits.
func secTagAt(s string, j int) bool {
	k := j + 1
	if k < len(s) && s[k] == '/' {
		k++
	}
	b := k
	for k < len(s) && k-b < 32 && secIs(s[k], secAlnum|secDash) {
		k++
	}
	return k > b && secIs(s[b], secAlpha) && k < len(s) && (s[k] == '>' || s[k] == ' ' || s[k] == '/')
}

// secLineStart reports whether the key at ks starts its line: only
// spaces, tabs and a list marker "- " stand between it and the start of
// s or a line break (also \n written out, in JSON shown as text).
func secLineStart(s string, ks int) bool {
	j := ks
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		return false // a quoted key: JSON, not YAML's plain lines
	}
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j >= 2 && s[j-1] == '-' && s[j-2] == ' ' || j == 1 && s[0] == '-' {
		j--
		for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
			j--
		}
	}
	return j == 0 || s[j-1] == '\n' || s[j-1] == '\r' || j >= 2 && s[j-2] == '\\' && (s[j-1] == 'n' || s[j-1] == 'r')
}

// secLineValue extends a YAML-style value whose first word ends at e (a
// space or tab follows) to the rest of its line when that reads as plain
// words (secValueAfter): the end of the value, false when it stays one
// word.
func secLineValue(s string, e int) (int, bool) {
	end := e
	k := e
line:
	for ; k < len(s); k++ {
		c := s[k]
		switch {
		case k-e > 512:
			return e, false
		case c == '\n' || c == '\r' || c == '\\' && k+1 < len(s) && (s[k+1] == 'n' || s[k+1] == 'r'),
			c == '#' && (s[k-1] == ' ' || s[k-1] == '\t'):
			break line // the line, or its text, ends here
		case c < ' ' && c != '\t' || c == 0x7f || strings.IndexByte("()[]{}\"`=|&;<>,", c) >= 0:
			return e, false
		case c != ' ' && c != '\t':
			end = k + 1
		}
	}
	for end > e && s[end-1] == '.' {
		end--
	}
	return end, end > e
}

// secPlaceholder reports values that stand for a secret without being
// one: masks (***, xxxx, ••••, any value without a letter or digit), templates (${VAR}, {{var}}, $(cmd), %s,
// <value>, [REDACTED]), environment references ($VAR), YAML/JSON non-
// strings (null, true, …) and "your_…" fill-ins. Literal words such as
// changeme or password are kept: they may be the real (default) secret.
func secPlaceholder(v string) bool {
	if strings.Trim(v, "*•xX#.?_-") == "" || !secHasAlnum(v) {
		return true
	}
	switch v[0] {
	case '<':
		return v[len(v)-1] == '>'
	case '[':
		return v[len(v)-1] == ']'
	case '%':
		return v == "%s" || len(v) > 1 && v[1] == '('
	case '{':
		return len(v) > 1 && v[1] == '{'
	case '$':
		if len(v) > 1 && (v[1] == '{' || v[1] == '(') {
			return true
		}
		return secRun(v, 1, secWord) == len(v)
	case '#':
		return len(v) > 1 && v[1] == '{'
	}
	for _, w := range [...]string{"null", "nil", "none", "undefined", "true", "false", "redacted", "hidden", "masked", "omitted", "n/a"} {
		if strings.EqualFold(v, w) {
			return true
		}
	}
	return len(v) > 5 && (v[4] == '_' || v[4] == '-') && strings.EqualFold(v[:4], "your")
}

// secCodeOrPath reports unquoted values that are code rather than a
// literal (a call or an index such as get_pw() or env["X"], member access such as process.env.X or
// self.password, a type such as str or string) and file paths.
func secCodeOrPath(v string, quoted bool) bool {
	if !quoted {
		// a call or an index: a name or member path, then ( or [
		if n := secRun(v, 0, secWord|secDot); n > 0 && n < len(v) && (v[n] == '(' || v[n] == '[') && !secIs(v[0], secDigit) {
			return true
		}
		// member access: identifiers joined by dots
		if strings.IndexByte(v, '.') > 0 && secIs(v[0], secAlpha|secUnder) && secRun(v, 0, secWord|secDot) == len(v) && !secIs(v[len(v)-1], secDot) {
			digits := false
			for k := 0; k < len(v); k++ {
				digits = digits || secIs(v[k], secDigit)
			}
			if !digits {
				return true
			}
		}
		for _, w := range [...]string{"str", "string", "bool", "boolean", "int", "number", "any", "bytes", "secretstr", "unknown", "object"} {
			if strings.EqualFold(v, w) {
				return true
			}
		}
	}
	if v[0] == '/' || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || strings.HasPrefix(v, "~/") {
		return strings.Count(v, "/") >= 2 && secRun(v, 0, secKey|secPlusSl|secTildeEq) == len(v)
	}
	return false
}

// secHasAlnum reports whether v holds a letter or a digit (of any
// script).
func secHasAlnum(v string) bool {
	for _, r := range v {
		if r < utf8.RuneSelf && secIs(byte(r), secAlnum) || r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return true
		}
	}
	return false
}
