package mcp

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/policy"
)

// The request target (:path) is read here, once per request (readTarget):
// its path and query, the readings servers give them (escapes, dot
// segments, case, empty segments, parameters), whether they agree, whether
// one is a gateway path, and the legacy transport's session in the query.

// requestTarget is a request target as the plugin reads it.
type requestTarget struct {
	// path and query are the target split at its first '?'.
	path, query string
	// ambiguity says why servers read the target differently from one
	// another ("": they agree); such a target is refused.
	ambiguity string
	// gateway: a reading of the target is one of gateway.paths.
	gateway bool
	// session is the legacy transport's session id in the query;
	// sessionAmbiguous, that the query names two or one that does not
	// decode (legacySession).
	session          string
	sessionAmbiguous bool
}

// readTarget reads the request target raw against gateway.paths. A
// target servers read differently (a fragment, an encoded slash, a dot
// segment, ...) is the gateway's wherever one of its readings could be a
// gateway path; the others are matched as the server will route them:
// /mc%70, //mcp and /mcp;x=1 are /mcp to it, and so is /MCP to the many
// routers that match case-insensitively (Express, ASP.NET Core): none may
// slip past gateway.paths.
func readTarget(raw string, paths *policy.GlobList) requestTarget {
	t := requestTarget{path: raw}
	if i := strings.IndexByte(raw, '?'); i >= 0 {
		t.path, t.query = raw[:i], raw[i+1:]
	}
	if t.ambiguity = targetAmbiguity(raw); t.ambiguity != "" {
		t.gateway = anyPathMatch(paths, targetReadings(raw)...)
		return t
	}
	t.gateway = anyPathMatch(paths, t.path, normalizePath(t.path))
	t.session, t.sessionAmbiguous = legacySession(t.query)
	return t
}

// targetAmbiguity says why servers may read a request target (:path, with
// its query) differently from one another, or "" when they all read it
// alike. Such a target is refused rather than normalised: the plugin would
// judge one reading while the server acts on another (a fragment that the
// plugin matched and the forwarder dropped; /mcp%2F, which WSGI servers
// decode to /mcp/). The classes are
//
//   - a fragment (#): never sent by clients (RFC 9112 3.2), dropped or kept
//     by servers;
//   - a backslash, raw or encoded: a slash to Envoy's normalize_path,
//     Windows servers and some routers;
//   - an encoded slash (%2F), dot (%2E), percent sign (%25, double
//     encoding), ; ? or #: decoded by some servers before routing and not
//     by others;
//   - a dot segment (. or ..): resolved by some servers, kept by others;
//   - a segment ending in a dot (/mcp.): trimmed by Windows servers (IIS,
//     http.sys), kept by others;
//   - control characters, space and NUL, raw or encoded, and non-ASCII
//     bytes, raw or encoded: truncated, dropped or folded (fullwidth forms,
//     overlong UTF-8) differently;
//   - a malformed escape (% not followed by two hex digits);
//   - a target that is not a path (absolute form, no leading /).
//
// Empty segments (//mcp), segment parameters (;x=1), case and encoded
// unreserved characters (%70) are not ambiguous in that way: the plugin
// matches them normalised (normalizePath), so no reading passes
// uninspected.
func targetAmbiguity(target string) string {
	if target == "" || target[0] != '/' {
		if target == "*" {
			return "" // OPTIONS *: no resource
		}
		return "is not a path"
	}
	path := target
	for i := 0; i < len(target); i++ {
		switch c := target[i]; {
		case c == '#':
			return "has a fragment"
		case c == '?' && len(path) == len(target):
			path = target[:i]
		case c < 0x20 || c == 0x7f || c == ' ':
			return "has a control character"
		case c >= 0x80:
			return "has a non-ASCII byte"
		}
	}
	for i := 0; i < len(path); i++ {
		switch path[i] {
		case '\\':
			return "has a backslash"
		case '%':
			if i+2 >= len(path) {
				return "has a malformed escape"
			}
			c, ok := unhex2(path[i+1], path[i+2])
			switch {
			case !ok:
				return "has a malformed escape"
			case c == '/' || c == '\\':
				return "has an encoded slash or backslash"
			case c == '.':
				return "has an encoded dot"
			case c == '%':
				return "is encoded twice"
			case c == ';' || c == '?' || c == '#':
				return "has an encoded delimiter"
			case c < 0x20 || c == 0x7f || c == ' ':
				return "has an encoded control character"
			case c >= 0x80:
				return "has an encoded non-ASCII byte"
			}
			i += 2
		case '.':
			if (i == 0 || path[i-1] == '/') && dotSegmentAt(path[i:]) {
				return "has a dot segment"
			}
			if i+1 == len(path) || path[i+1] == '/' || path[i+1] == ';' {
				return "has a segment ending in a dot"
			}
		}
	}
	return ""
}

// dotSegmentAt reports whether s (just after a /) starts with a . or ..
// segment (ended by /, ; or the end).
func dotSegmentAt(s string) bool {
	n := 1
	if len(s) > 1 && s[1] == '.' {
		n = 2
	}
	return len(s) == n || s[n] == '/' || s[n] == ';'
}

// targetReadings are the paths a server might route an ambiguous target
// to, each normalised: the target with its fragment dropped or kept, its
// escapes decoded zero to three times, and then read plainly or leniently
// (backslash as slash, overlong UTF-8 and fullwidth forms folded to ASCII,
// other non-ASCII dropped, control characters and spaces dropped or ending
// the path at the first one, and trailing dots and spaces trimmed from
// segments as Windows servers do), and also as they are, not normalised. A target none of whose readings matches gateway.paths
// is proved to stay outside them.
func targetReadings(target string) []string {
	base := target
	if !strings.HasPrefix(base, "/") {
		// Absolute form: the path after scheme://authority; else as if
		// a server put a / in front.
		if i := strings.Index(base, "://"); i >= 0 {
			rest := base[i+3:]
			if j := strings.IndexByte(rest, '/'); j >= 0 {
				base = rest[j:]
			} else {
				base = "/"
			}
		} else {
			base = "/" + base
		}
	}
	cut := func(s string, at string) string {
		if i := strings.IndexAny(s, at); i >= 0 {
			return s[:i]
		}
		return s
	}
	out := make([]string, 0, 80)
	for _, s := range []string{cut(base, "?#"), cut(base, "?")} {
		for depth := 0; depth <= 3; depth++ {
			// A server that splits off the query (or fragment) after
			// decoding reads /mcp%3Fx as /mcp.
			for _, c := range []string{s, cut(s, "?#")} {
				lenient := normalizePath(lenientPath(c, false))
				out = append(out, c, normalizePath(c), normalizePath(lenientPath(c, true)), lenient, trimSegments(lenient))
			}
			s = percentDecode(s)
		}
	}
	return out
}

// percentDecode decodes every valid %XX escape once, and IIS's %uXXXX
// (as UTF-8).
func percentDecode(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if c, ok := unhex2(s[i+1], s[i+2]); ok {
				b = append(b, c)
				i += 2
				continue
			}
			if (s[i+1] == 'u' || s[i+1] == 'U') && i+5 < len(s) {
				hi, ok1 := unhex2(s[i+2], s[i+3])
				lo, ok2 := unhex2(s[i+4], s[i+5])
				if ok1 && ok2 {
					b = utf8.AppendRune(b, rune(hi)<<8|rune(lo))
					i += 5
					continue
				}
			}
		}
		b = append(b, s[i])
	}
	return string(b)
}

// lenientPath reads s as the most forgiving servers do: a backslash is a
// slash; an overlong two-byte UTF-8 sequence (C0 AF) and a fullwidth form
// (U+FF01..U+FF5E) are their ASCII character; a % that starts no escape,
// other non-ASCII bytes,
// control characters and spaces are dropped, or, with truncate, the path
// ends at the first control character or space (C strings end at NUL,
// some servers trim).
func lenientPath(s string, truncate bool) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			b = append(b, '/')
		case c == '%' && (i+2 >= len(s) || !validEscape(s[i+1], s[i+2])):
			// A lone % (no escape): dropped by lenient decoders.
		case c <= 0x20 || c == 0x7f:
			if truncate {
				return string(b)
			}
		case (c == 0xc0 || c == 0xc1) && i+1 < len(s) && s[i+1]&0xc0 == 0x80:
			b = append(b, (c&0x1f)<<6|s[i+1]&0x3f)
			i++
		case c == 0xef && i+2 < len(s) && (s[i+1] == 0xbc || s[i+1] == 0xbd) && s[i+2]&0xc0 == 0x80:
			// U+FF01..U+FF5E is EF BC 81..EF BD 9E: ASCII 0x21..0x7E.
			r := rune(s[i+1]&0x3f)<<6 | rune(s[i+2]&0x3f) + 0xf000
			if r >= 0xff01 && r <= 0xff5e {
				a := byte(r - 0xfee0)
				if a == '\\' {
					a = '/'
				}
				b = append(b, a)
				i += 2
			}
		case c >= 0x80:
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// trimSegments trims trailing dots and spaces from every segment of a
// normalised path (IIS reads /mcp. as /mcp).
func trimSegments(p string) string {
	if !strings.Contains(p, ".") && !strings.Contains(p, " ") {
		return p
	}
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		segs[i] = strings.TrimRight(seg, ". ")
	}
	return normalizePath(strings.Join(segs, "/"))
}

func validEscape(a, b byte) bool {
	_, ok := unhex2(a, b)
	return ok
}

// anyPathMatch reports whether one of paths matches gateway.paths as a
// router may read it: as it is, in lower case, and without or with a
// trailing slash (Express, Spring's PathPattern and ASP.NET Core route
// /mcp/ to a /mcp route and /rpc to a /rpc/ one).
func anyPathMatch(g *policy.GlobList, paths ...string) bool {
	for _, p := range paths {
		for _, v := range [2]string{p, strings.ToLower(p)} {
			if g.Match(v) {
				return true
			}
			if t := strings.TrimRight(v, "/"); len(t) < len(v) {
				if g.Match(t) {
					return true
				}
			} else if g.Match(v + "/") {
				return true
			}
		}
	}
	return false
}

// legacySession finds the session id in a legacy endpoint's query, under
// any name sessionParam accepts. ambiguous is set when the query names two
// different sessions (servers take the first, the last, or both joined)
// or one whose escapes do not decode.
func legacySession(query string) (session string, ambiguous bool) {
	seen := false
	for query != "" {
		kv := query
		// ; separates parameters too for some parsers (Python before
		// 3.9.2, Rack): a session hidden behind one counts.
		if i := strings.IndexAny(query, "&;"); i >= 0 {
			kv, query = query[:i], query[i+1:]
		} else {
			query = ""
		}
		k, v, _ := strings.Cut(kv, "=")
		if !sessionParam(k) {
			continue
		}
		u, err := url.QueryUnescape(v)
		if err != nil || seen && u != session {
			// Two sessions, or one servers decode differently (Go drops
			// a malformed escape's parameter, Python keeps it raw).
			return "", true
		}
		session, seen = u, true
	}
	return session, false
}

// sessionParam reports whether a query parameter's name is the legacy
// session's as some server reads it: sessionid (the go-sdk), sessionId
// (the TypeScript SDK) or session_id (the Python SDK), in any case
// (ASP.NET Core), percent-encoded or not (servers decode names).
func sessionParam(k string) bool {
	if strings.IndexByte(k, '%') >= 0 || strings.IndexByte(k, '+') >= 0 {
		if u, err := url.QueryUnescape(k); err == nil {
			k = u
		}
	}
	return strings.EqualFold(k, "sessionid") || strings.EqualFold(k, "session_id")
}

// normalizePath is the path as a server resolves it (RFC 3986): percent-
// encoded unreserved characters decoded, empty segments merged, dot
// segments removed, and ;parameters dropped from segments (Spring and
// others route /mcp;x=1 as /mcp). Encoded slashes stay encoded (servers
// don't split on them).
func normalizePath(p string) string {
	if !strings.ContainsAny(p, "%.;") && !strings.Contains(p, "//") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && i+2 < len(p) {
			if c, ok := unhex2(p[i+1], p[i+2]); ok && unreserved(c) {
				b.WriteByte(c)
				i += 2
				continue
			}
		}
		b.WriteByte(p[i])
	}
	var out []string
	for _, seg := range strings.Split(b.String(), "/") {
		seg, _, _ = strings.Cut(seg, ";")
		switch seg {
		case "", ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, seg)
		}
	}
	n := "/" + strings.Join(out, "/")
	if strings.HasSuffix(p, "/") && n != "/" {
		n += "/"
	}
	return n
}

func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func unhex2(a, b byte) (byte, bool) {
	h := func(c byte) (byte, bool) {
		switch {
		case c >= '0' && c <= '9':
			return c - '0', true
		case c >= 'a' && c <= 'f':
			return c - 'a' + 10, true
		case c >= 'A' && c <= 'F':
			return c - 'A' + 10, true
		}
		return 0, false
	}
	x, ok1 := h(a)
	y, ok2 := h(b)
	return x<<4 | y, ok1 && ok2
}
