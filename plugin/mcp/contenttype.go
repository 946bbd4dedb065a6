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

// contentTypeReadings says why clients could read a response declared
// with contentType (every line joined with ", ") otherwise than the plugin
// reads it as mt (mediaType), or "" when they cannot: a value listing
// several media types (the TypeScript client reads a joined
// "application/json, text/event-stream" as neither, the Python client's
// startswith as JSON, the plugin as an event stream), or a charset other
// than UTF-8 on JSON or an event stream (httpx decodes the stream by it;
// the other clients and the plugin read UTF-8).
func contentTypeReadings(contentType, mt string) string {
	if strings.IndexByte(contentType, ',') >= 0 {
		return "lists more than one media type"
	}
	if mt != "application/json" && mt != "text/event-stream" {
		return ""
	}
	_, params, _ := strings.Cut(contentType, ";")
	for params != "" {
		var param string
		param, params, _ = strings.Cut(params, ";")
		name, value, _ := strings.Cut(param, "=")
		if !strings.EqualFold(strings.TrimSpace(name), "charset") {
			continue
		}
		value = strings.Trim(strings.TrimSpace(value), `"`)
		if !strings.EqualFold(value, "utf-8") && !strings.EqualFold(value, "utf8") {
			return "declares charset " + quoteHeader(value)
		}
	}
	return ""
}

// canonicalType is the content-type a response read as mt goes out with:
// "application/json" and "text/event-stream" as such, parameters dropped
// (the body is UTF-8: contentTypeReadings refused any other charset);
// another type by its own media type when that is a plain type/subtype,
// else text/plain, with charset=utf-8 (what the plugin read, and what
// fetch's text() reads whatever the header says); none when none was
// declared. Clients show the header in their errors ("Unexpected content
// type: ..."), so no other text of it goes out.
func canonicalType(contentType, mt string) string {
	switch {
	case mt == "application/json" || mt == "text/event-stream":
		return mt
	case strings.TrimSpace(contentType) == "":
		return ""
	}
	base, _, _ := strings.Cut(contentType, ";")
	base = strings.ToLower(strings.TrimSpace(base))
	typ, sub, ok := strings.Cut(base, "/")
	if m := mediaType(base); !ok || !isToken(typ) || !isToken(sub) || m == "application/json" || m == "text/event-stream" {
		// Not plain, or a type clients would read as JSON or an event
		// stream (a body that is not 2xx is read as text).
		base = "text/plain"
	}
	return base + "; charset=utf-8"
}
