package detect

// Secret detectors of manual 12 (group "secrets"). Every detector is a
// hand-written trigger scan: the single pass of detect.go calls its step
// at a byte of its literal prefix ('A' of AKIA…, '_' of gh?_ and sk_, 'x'
// of xox, 'z' of AIza, 'J' of eyJ, 'G' of -----BEGIN, '@' of a URL's
// userinfo, 'B'/'b' of Bearer) or at ':'/'=' (generic_secret), and the
// step validates forward, bounded. No regexp, no allocation besides
// appending to the pass's output; every span boundary sits next to an
// ASCII byte, so spans never split a multi-byte character.

import (
	"hash/crc32"
	"strings"
)

// Byte classes, one table lookup per byte.
const (
	secUpper   uint16 = 1 << iota // A-Z
	secLower                      // a-z
	secDigit                      // 0-9
	secUnder                      // _
	secDash                       // -
	secDot                        // .
	secPlusSl                     // + /
	secTildeEq                    // ~ =
	secSep                        // : = (generic_secret triggers)
	secSpace                      // ' ' \t

	secAlpha  = secUpper | secLower
	secAlnum  = secAlpha | secDigit
	secWord   = secAlnum | secUnder                         // \w
	secB64URL = secWord | secDash                           // base64url alphabet
	secKey    = secWord | secDash | secDot                  // assignment key names
	secBearer = secB64URL | secDot | secPlusSl | secTildeEq // RFC 6750 b64token
)

var secCls = func() (t [256]uint16) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] |= secUpper
		t[c+'a'-'A'] |= secLower
	}
	for c := '0'; c <= '9'; c++ {
		t[c] |= secDigit
	}
	t['_'] |= secUnder
	t['-'] |= secDash
	t['.'] |= secDot
	t['+'] |= secPlusSl
	t['/'] |= secPlusSl
	t['~'] |= secTildeEq
	t['='] |= secTildeEq | secSep
	t[':'] |= secSep
	t[' '] |= secSpace
	t['\t'] |= secSpace
	return t
}()

// secEmit records [a, b) for detector d unless an edge sits on a UTF-8
// continuation byte, which only invalid UTF-8 can bring next to the ASCII
// bytes that end every span.
func (p *pass) secEmit(d uint8, a, b int) {
	if boundary(p.s, a) && boundary(p.s, b) {
		p.emit(d, a, b)
	}
}

func secIs(c byte, m uint16) bool { return secCls[c]&m != 0 }

// secRun returns the end of the run of bytes of class m starting at i.
func secRun(s string, i int, m uint16) int {
	for i < len(s) && secCls[s[i]]&m != 0 {
		i++
	}
	return i
}

// secLongRun reports whether s repeats one byte n or more times in a row:
// random key material practically never does, placeholders (XXXX, 0000,
// ****) do.
func secLongRun(s string, n int) bool {
	r := 1
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			if r++; r >= n {
				return true
			}
		} else {
			r = 1
		}
	}
	return false
}

// ---------------------------------------------------------------- AWS

// stepAWSKey, at an 'A' with 20 bytes left: AKIA/ASIA/AIDA/AROA/AIPA/ANPA/ANVA/AGPA/ABIA/ACCA +
// 16 of [A-Z0-9], \b on both sides. AWS's documentation keys (…EXAMPLE)
// and runs such as AKIAXXXXXXXXXXXXXXXX are placeholders.
func (p *pass) stepAWSKey(i int) {
	if secAWSKeyAt(p.s, i) {
		p.secEmit(detAWSKey, i, i+20)
		p.awsNext = i + 20
		return
	}
	p.awsNext = i + 1
}

func secAWSKeyAt(s string, i int) bool {
	if s[i+3] != 'A' {
		return false
	}
	switch s[i+1 : i+4] {
	case "KIA", "SIA", "IDA", "ROA", "IPA", "NPA", "NVA", "GPA", "BIA", "CCA":
	default:
		return false
	}
	if i > 0 && secIs(s[i-1], secWord) || i+20 < len(s) && secIs(s[i+20], secWord) {
		return false
	}
	for k := i + 4; k < i+20; k++ {
		if !secIs(s[k], secUpper|secDigit) {
			return false
		}
	}
	return !strings.HasSuffix(s[i:i+20], "EXAMPLE") && !secLongRun(s[i+4:i+20], 6)
}

// ---------------------------------------------------------------- GitHub

// stepGitHub, at the '_' of gh?_ or github_pat_: ghp_/gho_/ghu_/ghs_/ghr_ + 36 base62 whose last 6 are
// the base62 CRC32 of the 30 before (GitHub's 2021 format; verified on
// public examples), github_pat_ + 82 of [A-Za-z0-9_], and the stateless
// ghs_ installation tokens of 2026 (ghs_ + more than 36 of [A-Za-z0-9._-]).
func (p *pass) stepGitHub(u int) {
	// A candidate starts before its trigger, so it must not start inside
	// the previous span.
	s := p.s
	p.githubNext = u + 1
	st := -2
	if s[u-2] == 'h' && s[u-3] == 'g' {
		st = u - 3
	} else if u >= 6 && s[u-1] == 'b' && s[u-6:u] == "github" {
		st = u - 6
	}
	if st >= p.githubLast && (st == 0 || !secIs(s[st-1], secWord)) {
		if end := secGitHubAt(s, st); end > 0 {
			p.secEmit(detGitHub, st, end)
			p.githubNext, p.githubLast = end, end
		}
	}
}

func secGitHubAt(s string, i int) int {
	if len(s)-i < 40 {
		return -1
	}
	if s[i+1] == 'h' && s[i+3] == '_' {
		switch s[i+2] {
		case 'p', 'o', 'u', 'r', 's':
		default:
			return -1
		}
		b := i + 4
		e := secRun(s, b, secAlnum)
		if s[i+2] == 's' {
			// The stateless installation tokens: variable length, with . _ -.
			x := secRun(s, e, secB64URL|secDot)
			for x > e && s[x-1] == '.' { // a sentence's full stop
				x--
			}
			if x > e || e-b > 36 {
				if x-b > 36 {
					return x
				}
				return -1
			}
		}
		if e-b != 36 || e < len(s) && s[e] == '_' || !secGitHubCRC(s[b:e]) {
			return -1
		}
		return e
	}
	if !strings.HasPrefix(s[i:], "github_pat_") {
		return -1
	}
	b := i + len("github_pat_")
	e := secRun(s, b, secWord)
	if e-b != 82 || secLongRun(s[b:e], 8) {
		return -1
	}
	return e
}

// secGitHubCRC checks the classic token's tail: the 6 last characters are
// CRC32-IEEE of the 30 first, in base62 (0-9A-Za-z), zero-padded.
func secGitHubCRC(t string) bool {
	tab := crc32.IEEETable
	crc := ^uint32(0)
	for k := 0; k < 30; k++ {
		crc = tab[byte(crc)^t[k]] ^ crc>>8
	}
	crc = ^crc
	var v uint64
	for k := 30; k < 36; k++ {
		c := t[k]
		var d byte
		switch {
		case c <= '9':
			d = c - '0'
		case c <= 'Z':
			d = c - 'A' + 10
		default:
			d = c - 'a' + 36
		}
		v = v*62 + uint64(d)
	}
	return v == uint64(crc)
}

// ---------------------------------------------------------------- Slack

// stepSlack, at an 'x' with 25 bytes left: xox[abeprs]- (also wrapped in the rotating xoxe. form)
// and xapp- followed by dash-separated alphanumeric segments, the first
// all digits, no empty segment, at least 20 characters after the prefix
// (xapp-: at least three segments).
func (p *pass) stepSlack(i int) {
	s := p.s
	if (s[i+1] == 'o' || s[i+1] == 'a') && (i == 0 || !secIs(s[i-1], secAlnum)) {
		end := secSlackAt(s, i)
		if end > 0 {
			p.secEmit(detSlack, i, end)
		} else {
			// Later candidates inside this run follow an alphanumeric
			// or a dash: skip it (linear time on xoxb-xoxb-…).
			end = secRun(s, i+1, secAlnum|secDash)
		}
		p.slackNext = end
		return
	}
	p.slackNext = i + 1
}

func secSlackAt(s string, i int) int {
	p := i
	if strings.HasPrefix(s[p:], "xoxe.") {
		p += 5
	}
	minSeg := 2
	switch {
	case len(s)-p > 5 && s[p+1] == 'o' && s[p] == 'x' && s[p+2] == 'x' && s[p+4] == '-' && strings.IndexByte("abeprs", s[p+3]) >= 0:
	case p == i && strings.HasPrefix(s[p:], "xapp-"):
		minSeg = 3
	default:
		return -1
	}
	b := p + 5
	e := secRun(s, b, secAlnum|secDash)
	for e > b && s[e-1] == '-' {
		e--
	}
	if e-b < 20 || e < len(s) && s[e] == '_' {
		return -1
	}
	segs, first := 1, true
	for k := b; k < e; k++ {
		c := s[k]
		if c == '-' {
			if s[k-1] == '-' || k == b {
				return -1
			}
			segs++
			first = false
		} else if first && !secIs(c, secDigit) {
			return -1
		}
	}
	if segs < minSeg || secLongRun(s[b:e], 10) {
		return -1
	}
	return e
}

// ---------------------------------------------------------------- Stripe

// stepStripe, at the first '_' of sk_live_ and the like: sk_live_/sk_test_/rk_live_/rk_test_ + at least 24
// alphanumerics, \b on both sides. Publishable keys (pk_) are public.
func (p *pass) stepStripe(u int) {
	p.stripeNext = u + 1
	if p.s[u-1] == 'k' && u-2 >= p.stripeLast {
		if end := secStripeAt(p.s, u-2); end > 0 {
			p.secEmit(detStripe, u-2, end)
			p.stripeNext, p.stripeLast = end, end
		}
	}
}

func secStripeAt(s string, i int) int {
	if s[i] != 's' && s[i] != 'r' || i > 0 && secIs(s[i-1], secWord) || len(s)-i < 32 {
		return -1
	}
	if m := s[i+3 : i+8]; m != "live_" && m != "test_" {
		return -1
	}
	b := i + 8
	e := secRun(s, b, secAlnum)
	if e-b < 24 || e < len(s) && s[e] == '_' || secLongRun(s[b:e], 6) {
		return -1
	}
	return e
}

// ---------------------------------------------------------------- Google

// stepGoogle, at the rare 'z' of AIza with 37 bytes left: AIza + exactly 35 of [A-Za-z0-9_-], not inside a
// longer base64url run.
func (p *pass) stepGoogle(u int) {
	s := p.s
	i := u - 2
	if s[i] == 'A' && s[i+1] == 'I' && s[i+3] == 'a' && i >= p.googleLast && (i == 0 || !secIs(s[i-1], secB64URL)) {
		e := secRun(s, i+4, secB64URL)
		if e-i == 39 && !secLongRun(s[i+4:e], 6) {
			p.secEmit(detGoogle, i, e)
			p.googleLast = e
		}
		p.googleNext = e // any later AIza in this run is inside it
		return
	}
	p.googleNext = u + 1
}

// ---------------------------------------------------------------- JWT

// stepJWT, at the rare 'J' of eyJ: compact JWS header.payload.signature (base64url segments) whose
// header decodes to a JSON object with "alg"; it starts with eyJ (`{"`).
// The signature may be empty only for "alg":"none" (an unsecured JWT; the
// span then keeps the final dot). Compact JWE (five segments, the second
// may be empty, header with "enc") is taken whole. A trailing dot that
// ends a sentence is not part of the token.
func (p *pass) stepJWT(u int) {
	s := p.s
	p.jwtNext = u + 1
	i := u - 2
	if s[i+1] == 'y' && s[i] == 'e' && i >= p.jwtLast && (i == 0 || !secIs(s[i-1], secB64URL|secDot)) {
		if end := secJWTAt(s, i); end > 0 {
			p.secEmit(detJWT, i, end)
			p.jwtNext, p.jwtLast = end, end
		}
	}
}

func secJWTAt(s string, i int) int {
	var ends [7]int // end of each segment; 7 means too many
	n := 0
	k := i
	for {
		e := secRun(s, k, secB64URL)
		if (e-k)%4 == 1 {
			return -1 // no base64 text has this length
		}
		ends[n] = e
		n++
		if e >= len(s) || s[e] != '.' || n == len(ends) {
			break
		}
		k = e + 1
	}
	if n > 3 && ends[n-1] == ends[n-2]+1 {
		n-- // "….sig." ends a sentence
	}
	if n != 3 && n != 5 {
		return -1
	}
	ok, none, enc := secJWTHeader(s[i:ends[0]])
	if !ok {
		return -1
	}
	seg := func(x int) int { return ends[x] - ends[x-1] - 1 }
	if n == 5 {
		if !enc || seg(2) == 0 || seg(3) == 0 || seg(4) == 0 {
			return -1
		}
		return ends[4]
	}
	if seg(1) == 0 {
		return -1
	}
	if seg(2) == 0 {
		if !none {
			return -1
		}
		return ends[2] // just after the final dot
	}
	return ends[2]
}

var secB64Val = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	const a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := 0; i < len(a); i++ {
		t[a[i]] = byte(i)
	}
	return t
}()

// secJWTHeader decodes a JOSE header (its first 2 KB) and reports whether
// it is a JSON object with a string "alg", whether that alg is "none",
// and whether it has "enc" (JWE).
func secJWTHeader(h string) (ok, none, enc bool) {
	if len(h) > 2048 {
		h = h[:2048]
	}
	var buf [1536]byte
	n := 0
	var acc uint32
	bits := 0
	for k := 0; k < len(h); k++ {
		acc = acc<<6 | uint32(secB64Val[h[k]])
		if bits += 6; bits >= 8 {
			bits -= 8
			buf[n] = byte(acc >> bits)
			n++
		}
	}
	d := buf[:n]
	p := secSkipJSONSpace(d, 0)
	if p == len(d) || d[p] != '{' {
		return false, false, false
	}
	a := secJWTFind(d, `"alg"`)
	if a < 0 {
		return false, false, false
	}
	q := secSkipJSONSpace(d, a+5)
	if q == len(d) || d[q] != ':' {
		return false, false, false
	}
	q = secSkipJSONSpace(d, q+1)
	if q == len(d) || d[q] != '"' {
		return false, false, false
	}
	q++
	v := q
	for v < len(d) && d[v] != '"' && v-q < 32 {
		v++
	}
	if v == q || v == len(d) || d[v] != '"' {
		return false, false, false
	}
	none = v-q == 4 && d[q]|0x20 == 'n' && d[q+1]|0x20 == 'o' && d[q+2]|0x20 == 'n' && d[q+3]|0x20 == 'e'
	return true, none, secJWTFind(d, `"enc"`) >= 0
}

func secSkipJSONSpace(d []byte, p int) int {
	for p < len(d) && (d[p] == ' ' || d[p] == '\t' || d[p] == '\r' || d[p] == '\n') {
		p++
	}
	return p
}

func secJWTFind(d []byte, pat string) int {
	for k := 0; k+len(pat) <= len(d); k++ {
		if d[k] == '"' && string(d[k:k+len(pat)]) == pat {
			return k
		}
	}
	return -1
}

// ---------------------------------------------------------------- PEM

// stepPEM, at the rare 'G' of -----BEGIN: the whole PEM block, -----BEGIN <label>----- through the
// matching -----END <label>-----, for any label containing "PRIVATE KEY"
// (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP … BLOCK, plain PKCS#8). Line
// breaks may be real or the two characters \n (a JSON string shown as
// text). The body must hold a base64 run of 40 or more characters, which
// placeholders ("...", "<your key>") do not. A block cut off before its
// END line (truncated output) is taken up to the last base64 character.
func (p *pass) stepPEM(u int) {
	// An END line's dashes may also open the next BEGIN: a block must not
	// start inside the previous one.
	s := p.s
	p.pemNext = u + 1
	i := u - 7
	if s[i] == '-' && s[u-1] == 'E' && i >= p.pemLast && strings.HasPrefix(s[i:], "-----BEGIN ") {
		if end := secPEMAt(s, i); end > 0 {
			p.secEmit(detPEM, i, end)
			p.pemNext, p.pemLast = end, end
		}
	}
}

func secPEMAt(s string, i int) int {
	ls := i + len("-----BEGIN ")
	le := ls
	for le < len(s) && le-ls <= 40 && secIs(s[le], secUpper|secDigit|secSpace) && s[le] != '\t' {
		le++
	}
	label := s[ls:le]
	if !strings.HasPrefix(s[le:], "-----") || !strings.Contains(label, "PRIVATE KEY") {
		return -1
	}
	b := le + 5
	m := strings.Index(s[b:], "-----")
	if m >= 0 {
		m += b
		if e := m + len("-----END ") + len(label); strings.HasPrefix(s[m:], "-----END ") && e+5 <= len(s) && s[m+9:e] == label && s[e:e+5] == "-----" {
			if secB64Longest(s[b:m]) >= 40 {
				return e + 5
			}
			return -1
		}
	} else {
		m = len(s)
	}
	// No matching END: a truncated block, strict body characters only.
	last, run, longest := -1, 0, 0
	for k := b; k < m; k++ {
		c := s[k]
		switch {
		case secIs(c, secAlnum|secPlusSl) || c == '=':
			run++
			last = k
			if run > longest {
				longest = run
			}
			continue
		case c == '\\' && k+1 < m && (s[k+1] == 'n' || s[k+1] == 'r'):
			k++
		case c == '\n' || c == '\r' || c == ' ' || c == '\t' || c == ':' || c == ',' || c == '-':
		default:
			k = m
		}
		run = 0
	}
	if longest < 40 {
		return -1
	}
	return last + 1
}

// secB64Longest is the longest run of base64 characters in s, where the
// escape \n (as two characters) breaks a run like a newline does.
func secB64Longest(s string) int {
	run, longest := 0, 0
	for k := 0; k < len(s); k++ {
		c := s[k]
		if secIs(c, secAlnum|secPlusSl) || c == '=' {
			if c == 'n' || c == 'r' {
				if k > 0 && s[k-1] == '\\' {
					run = 0
					continue
				}
			}
			run++
			if run > longest {
				longest = run
			}
			continue
		}
		run = 0
	}
	return longest
}

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
