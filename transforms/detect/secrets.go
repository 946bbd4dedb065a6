package detect

// Secret detectors of manual 12 (group "secrets"). Every detector is a
// hand-written trigger scan: the single pass of detect.go calls its step
// at a byte of its literal prefix ('A' of AKIA…, '_' of gh?_ and sk_, 'x'
// of xox, 'z' of AIza, 'J' of eyJ, 'G' of -----BEGIN, '@' of a URL's
// userinfo, 'B'/'b' of Bearer) or at ':'/'=' (generic_secret), and the
// step validates forward, bounded. No regexp, no allocation besides
// appending to the pass's output; every span boundary sits next to an
// ASCII byte, so spans never split a multi-byte character.
//
// The steps live by family: tokens.go (AWS, GitHub, Slack, Stripe,
// Google), encoded.go (JWT, PEM), credentials.go (URL userinfo, Bearer,
// generic_secret). This file holds what they share.

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
