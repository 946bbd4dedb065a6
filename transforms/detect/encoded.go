package detect

import "strings"

// The jwt and private_key (PEM) detectors (manual 12), steps of the pass
// (detect.go); what they share is in secrets.go.

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
// it is a JSON object (closed by its '}' when shorter) with a string "alg", whether that alg is "none",
// and whether it has "enc" (JWE).
func secJWTHeader(h string) (ok, none, enc bool) {
	whole := len(h) <= 2048
	if !whole {
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
	if whole { // the object closes: a header cut short is no JOSE header
		e := len(d)
		for e > p && (d[e-1] == ' ' || d[e-1] == '\t' || d[e-1] == '\r' || d[e-1] == '\n') {
			e--
		}
		if d[e-1] != '}' {
			return false, false, false
		}
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
