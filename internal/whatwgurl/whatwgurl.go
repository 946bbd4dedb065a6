// Package whatwgurl reads a string as the WHATWG URL Standard's basic URL
// parser does (no base URL, no state override) and serialises the result:
// what `new URL(s).href` is in Node.js and in browsers. The TypeScript
// SDK's McpServer looks resources up by that serialisation
// (`new URL(uri).toString()`), so the plugin needs it to know which
// resource such a server reads for a URI (manual 4).
//
// It owns the parser's states, the host parser (IPv4 in every form the
// standard reads: one number, fewer parts, hex, octal, a trailing dot;
// IPv6 with its compression), ports (a default port dropped, zeros read
// as a number) and the percent-encode sets. It does not implement IDNA
// (UTS #46): a host that is not ASCII once its percent-escapes are
// decoded is reported Inexact, since its serialisation, if any, is ASCII
// and so differs from the input. A label starting "xn--" is taken as
// written (lower-cased); the standard would check its Punycode and may
// fail it, where a server then reads nothing.
//
// It knows nothing of MCP: plugin/mcp asks it whether a URI is its own
// serialisation.
package whatwgurl

import (
	"strconv"
	"strings"
)

// Status says what Href could tell of a string.
type Status uint8

const (
	// Failure: the parser fails (new URL throws).
	Failure Status = iota
	// Exact: href is the serialisation.
	Exact
	// Inexact: the host needs IDNA. The parser fails or serialises to an
	// ASCII string other than the input; href is "".
	Inexact
)

// specialPort is the default port of each special scheme (-1: none).
func specialPort(scheme string) (port int, special bool) {
	switch scheme {
	case "http", "ws":
		return 80, true
	case "https", "wss":
		return 443, true
	case "ftp":
		return 21, true
	case "file":
		return -1, true
	}
	return -1, false
}

// Href is new URL(s).href (package doc).
func Href(s string) (string, Status) {
	// Leading and trailing C0 controls and spaces go, then every tab and
	// line break.
	for len(s) > 0 && s[0] <= ' ' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] <= ' ' {
		s = s[:len(s)-1]
	}
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
	}
	// Scheme.
	if s == "" || !alpha(s[0]) {
		return "", Failure
	}
	colon := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ':' {
			colon = i
			break
		}
		if !(alpha(c) || digit(c) || c == '+' || c == '-' || c == '.') {
			return "", Failure
		}
	}
	if colon < 0 {
		return "", Failure
	}
	u := url{scheme: strings.ToLower(s[:colon]), port: -1}
	defPort, special := specialPort(u.scheme)
	u.special = special
	rest := s[colon+1:]
	switch {
	case u.scheme == "file":
		if st := u.parseFile(rest); st != Exact {
			return "", st
		}
	case special:
		// Special authority (ignore) slashes: any run of / and \.
		rest = strings.TrimLeft(rest, `/\`)
		if st := u.parseAuthority(rest, defPort); st != Exact {
			return "", st
		}
	case strings.HasPrefix(rest, "//"):
		if st := u.parseAuthority(rest[2:], defPort); st != Exact {
			return "", st
		}
	case strings.HasPrefix(rest, "/"):
		u.parsePathQueryFragment(rest, false)
	default:
		u.parseOpaque(rest)
	}
	return u.serialise(), Exact
}

type url struct {
	scheme            string
	special           bool
	user, pass        string
	hasHost           bool
	host              string
	port              int // -1: none
	opaque            bool
	opaquePath        string
	path              []string
	hasQuery, hasFrag bool
	query, fragment   string
}

func (u *url) serialise() string {
	var b strings.Builder
	b.WriteString(u.scheme)
	b.WriteByte(':')
	if u.hasHost {
		b.WriteString("//")
		if u.user != "" || u.pass != "" {
			b.WriteString(u.user)
			if u.pass != "" {
				b.WriteByte(':')
				b.WriteString(u.pass)
			}
			b.WriteByte('@')
		}
		b.WriteString(u.host)
		if u.port >= 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(u.port))
		}
	}
	if u.opaque {
		b.WriteString(u.opaquePath)
	} else {
		if !u.hasHost && len(u.path) > 1 && u.path[0] == "" {
			b.WriteString("/.")
		}
		for _, seg := range u.path {
			b.WriteByte('/')
			b.WriteString(seg)
		}
	}
	if u.hasQuery {
		b.WriteByte('?')
		b.WriteString(u.query)
	}
	if u.hasFrag {
		b.WriteByte('#')
		b.WriteString(u.fragment)
	}
	return b.String()
}

// authorityEnd is the length of s's authority: up to /, ?, # (and \ in a
// special URL).
func (u *url) authorityEnd(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '/', '?', '#':
			return i
		case '\\':
			if u.special {
				return i
			}
		}
	}
	return len(s)
}

// parseAuthority reads the authority state onwards, after the slashes.
func (u *url) parseAuthority(s string, defPort int) Status {
	end := u.authorityEnd(s)
	auth, rest := s[:end], s[end:]
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		cred := auth[:at]
		auth = auth[at+1:]
		if auth == "" {
			return Failure // credentials and no host
		}
		user, pass, _ := strings.Cut(cred, ":")
		u.user = encode(user, userinfoSet)
		u.pass = encode(pass, userinfoSet)
	}
	// Host, then port: the first : outside brackets.
	hostEnd := len(auth)
	inBrackets := false
	for i := 0; i < len(auth); i++ {
		switch auth[i] {
		case '[':
			inBrackets = true
		case ']':
			inBrackets = false
		case ':':
			if !inBrackets {
				hostEnd = i
				i = len(auth)
			}
		}
	}
	hostText := auth[:hostEnd]
	if hostEnd < len(auth) && hostText == "" {
		return Failure
	}
	if u.special && hostText == "" {
		return Failure
	}
	host, st := parseHost(hostText, !u.special)
	if st != Exact {
		return st
	}
	u.hasHost, u.host = true, host
	if hostEnd < len(auth) {
		port := auth[hostEnd+1:]
		for i := 0; i < len(port); i++ {
			if !digit(port[i]) {
				return Failure
			}
		}
		if port != "" {
			p := 0
			for i := 0; i < len(port); i++ {
				p = p*10 + int(port[i]-'0')
				if p > 65535 {
					return Failure
				}
			}
			if p != defPort {
				u.port = p
			}
		}
	}
	u.parsePathStart(rest)
	return Exact
}

// parseFile reads what follows "file:".
func (u *url) parseFile(s string) Status {
	u.hasHost, u.host = true, ""
	if len(s) >= 2 && slash(s[0]) && slash(s[1]) {
		// File host state.
		s = s[2:]
		end := len(s)
		for i := 0; i < len(s); i++ {
			if c := s[i]; c == '/' || c == '\\' || c == '?' || c == '#' {
				end = i
				break
			}
		}
		buf := s[:end]
		switch {
		case windowsDriveLetter(buf):
			// The drive letter quirk: the buffer is the path's start.
			u.parsePath(s)
			return Exact
		case buf == "":
		default:
			host, st := parseHost(buf, false)
			if st != Exact {
				return st
			}
			if host == "localhost" {
				host = ""
			}
			u.host = host
		}
		u.parsePathStart(s[end:])
		return Exact
	}
	if len(s) >= 1 && slash(s[0]) {
		// File slash state, then path.
		u.parsePath(s[1:])
		return Exact
	}
	u.parsePath(s)
	return Exact
}

func slash(c byte) bool { return c == '/' || c == '\\' }

// parsePathStart is the path start state over s (which begins at the
// code point after the host and port).
func (u *url) parsePathStart(s string) {
	if u.special {
		if s != "" && slash(s[0]) {
			s = s[1:]
		}
		u.parsePath(s)
		return
	}
	u.parsePathQueryFragment(s, true)
}

// parsePathQueryFragment is the non-special path start state: ? and #
// start a query or fragment, anything else a path.
func (u *url) parsePathQueryFragment(s string, afterHost bool) {
	if s == "" {
		return
	}
	switch s[0] {
	case '?', '#':
		if afterHost {
			u.parseQueryFragment(s)
			return
		}
	case '/':
		s = s[1:]
	}
	u.parsePath(s)
}

// parsePath is the path state from the start of a segment.
func (u *url) parsePath(s string) {
	var buf strings.Builder
	i := 0
	for {
		var c byte
		eof := i >= len(s)
		if !eof {
			c = s[i]
		}
		if eof || c == '/' || (u.special && c == '\\') || c == '?' || c == '#' {
			seg := buf.String()
			isSep := !eof && (c == '/' || (u.special && c == '\\'))
			switch {
			case doubleDot(seg):
				// Node.js (ada 2) appends no empty segment where a
				// non-special URL's path was already empty: a:/.. is a:.
				empty := len(u.path) == 0
				u.shorten()
				if !isSep && (u.special || !empty) {
					u.path = append(u.path, "")
				}
			case singleDot(seg):
				if !isSep {
					u.path = append(u.path, "")
				}
			default:
				if u.scheme == "file" && len(u.path) == 0 && windowsDriveLetter(seg) {
					seg = seg[:1] + ":"
				}
				u.path = append(u.path, seg)
			}
			buf.Reset()
			if eof {
				return
			}
			if c == '?' || c == '#' {
				u.parseQueryFragment(s[i:])
				return
			}
			i++
			continue
		}
		appendEncoded(&buf, c, pathSet)
		i++
	}
}

func (u *url) shorten() {
	// Node.js 20 (ada 2) keeps a first segment that starts with a
	// normalized drive letter (A:0 too); the standard, one that is one.
	if p := u.path; u.scheme == "file" && len(p) == 1 && len(p[0]) >= 2 && normalizedDriveLetter(p[0][:2]) {
		return
	}
	if len(u.path) > 0 {
		u.path = u.path[:len(u.path)-1]
	}
}

// parseOpaque is the opaque path state.
func (u *url) parseOpaque(s string) {
	u.opaque = true
	end := strings.IndexAny(s, "?#")
	if end < 0 {
		end = len(s)
	}
	u.opaquePath = encode(s[:end], c0Set)
	u.parseQueryFragment(s[end:])
}

// parseQueryFragment reads s, which is "" or starts with ? or #.
func (u *url) parseQueryFragment(s string) {
	if strings.HasPrefix(s, "?") {
		s = s[1:]
		end := strings.IndexByte(s, '#')
		if end < 0 {
			end = len(s)
		}
		set := querySet
		if u.special {
			set = specialQuerySet
		}
		u.hasQuery, u.query = true, encode(s[:end], set)
		s = s[end:]
	}
	if strings.HasPrefix(s, "#") {
		u.hasFrag, u.fragment = true, encode(s[1:], fragmentSet)
	}
}

func doubleDot(s string) bool {
	switch strings.ToLower(s) {
	case "..", ".%2e", "%2e.", "%2e%2e":
		return true
	}
	return false
}

func singleDot(s string) bool { return s == "." || strings.EqualFold(s, "%2e") }

func windowsDriveLetter(s string) bool {
	return len(s) == 2 && alpha(s[0]) && (s[1] == ':' || s[1] == '|')
}

func normalizedDriveLetter(s string) bool {
	return len(s) == 2 && alpha(s[0]) && s[1] == ':'
}

func alpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func digit(c byte) bool { return c >= '0' && c <= '9' }

// The percent-encode sets, as bitmaps of the ASCII bytes they hold (every
// byte above 0x7E is in every set).
type encodeSet [2]uint64

func (e *encodeSet) has(c byte) bool {
	return c >= 0x7f || c < 0x20 || e[c>>6]&(1<<(c&63)) != 0
}

func makeSet(base encodeSet, chars string) encodeSet {
	for i := 0; i < len(chars); i++ {
		c := chars[i]
		base[c>>6] |= 1 << (c & 63)
	}
	return base
}

var (
	c0Set           encodeSet
	fragmentSet     = makeSet(c0Set, " \"<>`")
	querySet        = makeSet(c0Set, " \"#<>")
	specialQuerySet = makeSet(querySet, "'")
	// The path set with ^, as the standard has it since 2024 and newer
	// Node.js releases read it; Node.js 20 (ada 2) keeps ^. A caller that
	// judges both a URI and this reading covers both.
	pathSet     = makeSet(querySet, "?^`{}")
	userinfoSet = makeSet(pathSet, "/:;=@[\\]^|")
)

const upperHex = "0123456789ABCDEF"

func appendEncoded(b *strings.Builder, c byte, set encodeSet) {
	if set.has(c) {
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&15])
		return
	}
	b.WriteByte(c)
}

// encode is s with every byte of set percent-encoded.
func encode(s string, set encodeSet) string {
	i := 0
	for i < len(s) && !set.has(s[i]) {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		appendEncoded(&b, s[i], set)
	}
	return b.String()
}

// The host parser.

const forbiddenHost = "\x00\t\n\r #/:<>?@[\\]^|"

func parseHost(s string, opaque bool) (string, Status) {
	if strings.HasPrefix(s, "[") {
		if !strings.HasSuffix(s, "]") || len(s) < 2 {
			return "", Failure
		}
		v6, ok := parseIPv6(s[1 : len(s)-1])
		if !ok {
			return "", Failure
		}
		return "[" + v6 + "]", Exact
	}
	if opaque {
		if strings.ContainsAny(s, forbiddenHost) {
			return "", Failure
		}
		return encode(s, c0Set), Exact
	}
	d := percentDecode(s)
	ascii := true
	for i := 0; i < len(d); i++ {
		if d[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if !ascii {
		return "", Inexact
	}
	d = strings.ToLower(d)
	if d == "" {
		return "", Failure
	}
	for i := 0; i < len(d); i++ {
		c := d[i]
		if c < 0x20 || c == 0x7f || c == '%' || strings.IndexByte(forbiddenHost, c) >= 0 {
			return "", Failure
		}
	}
	if endsInNumber(d) {
		v4, ok := parseIPv4(d)
		if !ok {
			return "", Failure
		}
		return v4, Exact
	}
	return d, Exact
}

func percentDecode(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && hexVal(s[i+1]) >= 0 && hexVal(s[i+2]) >= 0 {
			b = append(b, byte(hexVal(s[i+1])<<4|hexVal(s[i+2])))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

func hexVal(c byte) int {
	switch {
	case digit(c):
		return int(c - '0')
	case c|0x20 >= 'a' && c|0x20 <= 'f':
		return int(c|0x20-'a') + 10
	}
	return -1
}

// endsInNumber is the standard's "ends in a number" checker.
func endsInNumber(d string) bool {
	parts := strings.Split(d, ".")
	if parts[len(parts)-1] == "" {
		if len(parts) == 1 {
			return false
		}
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last != "" {
		all := true
		for i := 0; i < len(last); i++ {
			if !digit(last[i]) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	_, ok := parseIPv4Number(last)
	return ok
}

// parseIPv4Number reads one part: decimal, 0x hex or 0 octal.
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	radix := uint64(10)
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s, radix = s[2:], 16
	} else if len(s) >= 2 && s[0] == '0' {
		s, radix = s[1:], 8
	}
	if s == "" {
		return 0, true
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		v := hexVal(s[i])
		if v < 0 || uint64(v) >= radix {
			return 0, false
		}
		if n > 1<<40 { // already past every IPv4 value: only the failure matters
			n = 1 << 41
			continue
		}
		n = n*radix + uint64(v)
	}
	return n, true
}

func parseIPv4(d string) (string, bool) {
	parts := strings.Split(d, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return "", false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return "", false
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return "", false
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return "", false
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return strconv.Itoa(int(v>>24)) + "." + strconv.Itoa(int(v>>16&255)) + "." +
		strconv.Itoa(int(v>>8&255)) + "." + strconv.Itoa(int(v&255)), true
}

// parseIPv6 is the standard's IPv6 parser, and the serialisation of what
// it reads.
func parseIPv6(s string) (string, bool) {
	var addr [8]uint16
	piece, compress := 0, -1
	i := 0
	if strings.HasPrefix(s, ":") {
		if !strings.HasPrefix(s, "::") {
			return "", false
		}
		i += 2
		piece++
		compress = piece
	}
	for i < len(s) {
		if piece == 8 {
			return "", false
		}
		if s[i] == ':' {
			if compress >= 0 {
				return "", false
			}
			i++
			piece++
			compress = piece
			continue
		}
		value, length := 0, 0
		for length < 4 && i < len(s) && hexVal(s[i]) >= 0 {
			value = value*16 + hexVal(s[i])
			i++
			length++
		}
		if i < len(s) && s[i] == '.' {
			if length == 0 {
				return "", false
			}
			i -= length
			if piece > 6 {
				return "", false
			}
			seen := 0
			for i < len(s) {
				v4 := -1
				if seen > 0 {
					if s[i] == '.' && seen < 4 {
						i++
					} else {
						return "", false
					}
				}
				if i >= len(s) || !digit(s[i]) {
					return "", false
				}
				for i < len(s) && digit(s[i]) {
					n := int(s[i] - '0')
					switch {
					case v4 == -1:
						v4 = n
					case v4 == 0:
						return "", false
					default:
						v4 = v4*10 + n
					}
					if v4 > 255 {
						return "", false
					}
					i++
				}
				addr[piece] = addr[piece]*0x100 + uint16(v4)
				seen++
				if seen == 2 || seen == 4 {
					piece++
				}
			}
			if seen != 4 {
				return "", false
			}
			break
		} else if i < len(s) && s[i] == ':' {
			i++
			if i >= len(s) {
				return "", false
			}
		} else if i < len(s) {
			return "", false
		}
		addr[piece] = uint16(value)
		piece++
	}
	if compress >= 0 {
		swaps := piece - compress
		piece = 7
		for piece != 0 && swaps > 0 {
			addr[piece], addr[compress+swaps-1] = addr[compress+swaps-1], addr[piece]
			piece--
			swaps--
		}
	} else if piece != 8 {
		return "", false
	}
	// Serialise: the first longest run of two or more zero pieces is ::.
	best, bestLen := -1, 1
	for j := 0; j < 8; {
		if addr[j] != 0 {
			j++
			continue
		}
		k := j
		for k < 8 && addr[k] == 0 {
			k++
		}
		if k-j > bestLen {
			best, bestLen = j, k-j
		}
		j = k
	}
	var b strings.Builder
	ignore0 := false
	for j := 0; j < 8; j++ {
		if ignore0 && addr[j] == 0 {
			continue
		}
		ignore0 = false
		if j == best {
			if j == 0 {
				b.WriteString("::")
			} else {
				b.WriteByte(':')
			}
			ignore0 = true
			continue
		}
		b.WriteString(strconv.FormatUint(uint64(addr[j]), 16))
		if j != 7 {
			b.WriteByte(':')
		}
	}
	return b.String(), true
}
