package detect

import "strings"

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
// names a secret: its last word (words split at _ - . and lower→Upper) is
// or ends with password, passwd, passphrase or secret, or is token / key
// qualified by the word before (access_token, apiKey, X-Api-Key,
// AWS_SECRET_ACCESS_KEY; not pageToken, progressToken, nextPageToken,
// primary_key), or is credential. Keys may be quoted, also as \"key\"
// inside JSON shown as text. Values: a quoted string without its quotes
// (spaces allowed, one line, ≤ 1 KB), else up to whitespace , ; & ) ] }
// < > or a quote. Not values: placeholders (see secPlaceholder), nested
// objects/lists/YAML block markers, code (calls, member access, the key's
// own name as in password=password, type names as in password: str) and
// file paths. An unquoted identifier that itself names a secret is a
// variable (password=password, self.api_key = api_key).
func (p *pass) stepGeneric(i int) {
	s := p.s
	p.genericNext = i + 1
	if !genericKeyEnd(s, i) {
		return
	}
	ks, ke := secKeyBefore(s, i)
	if ks < 0 {
		return
	}
	vs, ve, next := secValueAfter(s, i)
	if vs < 0 || ve-vs < 3 {
		p.genericNext = max(i+1, next)
		return
	}
	v := s[vs:ve]
	quoted := vs > 0 && secIsQuote(s[vs-1])
	if secPlaceholder(v) || secCodeOrPath(v, quoted) {
		return
	}
	if !quoted && (strings.EqualFold(v, s[ks:ke]) || secRun(v, 0, secWord) == len(v) && secNamesSecret(s, vs, ve)) {
		return // a variable: password=password, key = api_key
	}
	p.secEmit(detGeneric, vs, ve)
	p.genericNext = next
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
// [start, end) and where scanning resumes; start -1 when there is none.
func secValueAfter(s string, i int) (int, int, int) {
	k := i + 1
	if k < len(s) {
		switch c := s[k]; {
		case c == s[i]: // == and ::
			return -1, -1, 0
		case s[i] == ':' && c == '=', s[i] == '=' && c == '>':
			k++
		case s[i] == ':' && c == '/': // scheme://
			return -1, -1, 0
		}
	}
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	if k >= len(s) {
		return -1, -1, 0
	}
	c := s[k]
	if secIsQuote(c) || c == '\\' && k+1 < len(s) && s[k+1] == '"' {
		esc := c == '\\'
		if esc {
			k++
			c = '"'
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
				if !esc {
					return b, e, e + 1
				}
			}
		}
		return -1, -1, 0
	}
	if strings.IndexByte("{[|>!&*#\r\n", c) >= 0 {
		return -1, -1, 0
	}
	e := k
	for e < len(s) && e-k <= 512 {
		c := s[e]
		if c <= ' ' || c == '"' || c == '\'' || c == '`' || c == ',' || c == ';' || c == '&' || c == ')' || c == ']' || c == '}' || c == '<' || c == '>' {
			break
		}
		if c == '\\' && e+1 < len(s) && (s[e+1] == '"' || s[e+1] == 'n' || s[e+1] == 'r' || s[e+1] == 't') {
			break
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

// secPlaceholder reports values that stand for a secret without being
// one: masks (***, xxxx, ••••), templates (${VAR}, {{var}}, $(cmd), %s,
// <value>, [REDACTED]), environment references ($VAR), YAML/JSON non-
// strings (null, true, …) and "your_…" fill-ins. Literal words such as
// changeme or password are kept: they may be the real (default) secret.
func secPlaceholder(v string) bool {
	if strings.Trim(v, "*•xX#.?_-") == "" {
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
// literal (a call, an index, member access such as process.env.X or
// self.password, a type such as str or string) and file paths.
func secCodeOrPath(v string, quoted bool) bool {
	if !quoted {
		if strings.IndexByte(v, '(') >= 0 || strings.IndexByte(v, '[') >= 0 {
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
