package mcp

import "strings"

// contentTypeProblem says why a request body declared with these
// content-type values (every value of every content-type header) could be
// decoded by a server otherwise than as the UTF-8 JSON the plugin judges,
// or "" when it cannot. JSON is UTF-8 (RFC 8259), and the plugin judges
// the bytes as UTF-8; but Express's body-parser decodes any charset
// iconv-lite knows (charset=utf-7 makes "delete+AF8-customer" the tool
// delete_customer), and servers pick one of two content-types, or one of
// two media types in a value, as they please. So the only declaration
// accepted is application/json (any case), alone, with at most a charset
// parameter naming utf-8 (any case, quoted or not). No content-type at all
// is accepted: a server that reads a body without a declared type reads it
// as UTF-8 JSON or refuses it.
func contentTypeProblem(values []string) string {
	switch {
	case len(values) == 0:
		return ""
	case len(values) > 1:
		return "more than one content-type"
	}
	v := values[0]
	if strings.IndexByte(v, ',') >= 0 {
		return "a content-type listing more than one media type"
	}
	v = strings.Trim(v, " \t")
	mt, params, _ := strings.Cut(v, ";")
	if mt = strings.TrimRight(mt, " \t"); !strings.EqualFold(mt, "application/json") {
		return "content-type " + quoteHeader(mt) + " is not application/json"
	}
	if len(v) == len(mt) {
		return ""
	}
	charset := false
	for {
		params = strings.TrimLeft(params, " \t")
		param, rest, more := strings.Cut(params, ";")
		param = strings.TrimRight(param, " \t")
		name, value, ok := strings.Cut(param, "=")
		if !ok || !isToken(name) {
			return "a malformed content-type parameter"
		}
		if !strings.EqualFold(name, "charset") {
			return "content-type parameter " + quoteHeader(name) + " (only charset=utf-8 is accepted)"
		}
		if charset {
			return "a second charset"
		}
		charset = true
		if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
			value = value[1 : len(value)-1]
		}
		if !strings.EqualFold(value, "utf-8") {
			return "charset " + quoteHeader(value) + " (JSON is UTF-8)"
		}
		if !more {
			return ""
		}
		params = rest
	}
}

// isToken reports whether s is an HTTP token (RFC 9110 5.6.2).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// quoteHeader quotes a client-sent header fragment for an error message:
// cut short, every byte but printable ASCII other than " and \ shown as ?.
func quoteHeader(s string) string {
	if len(s) > 40 {
		s = s[:40]
	}
	b := []byte(s)
	for i, c := range b {
		if c < ' ' || c >= 0x7f || c == '"' || c == '\\' {
			b[i] = '?'
		}
	}
	return `"` + string(b) + `"`
}
