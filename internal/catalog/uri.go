package catalog

import (
	"strings"

	"github.com/cloudg/mcp-privacy/internal/whatwgurl"
)

// URINotNormal is the detail of the invalid-params error a request
// naming a resource URI that is not normal (URINormal) gets.
const URINotNormal = "the resource URI must be in normal form, as a WHATWG URL parser writes it (lower-case scheme and host, no default port, no . or .. segments, no surrounding spaces, tabs or line breaks, percent-encoded where it encodes)"

// URINormal reports whether a resource URI is already in the form SDKs
// look resources up by. The TypeScript SDK's McpServer looks a URI up as
// new URL(uri).toString(), the WHATWG URL serialisation (FastMCP 1.x's
// pydantic AnyUrl reads it alike): the scheme and a special URL's host
// lower-cased, surrounding spaces and controls and every tab and line
// break dropped, \ read as / in special URLs, . and .. segments
// resolved, a default or zero-padded port dropped, https:host and
// https:///host read as https://host/, file://localhost/ as file:///, a
// host's percent-escapes and IDNA mapping applied, an IPv4 address in
// any of its spellings (one number, hex, octal, a trailing dot) written
// dotted, and characters outside a part's set percent-encoded. A URI
// that form would change is refused rather than judged as written:
// SECRET://x, secret://a/../x or https://secret.example.com:443/x must
// not pass a deny and then be read as the denied resource
// (internal/whatwgurl, checked against Node's own parser). A URI the
// WHATWG parser refuses is read by no such server (it throws), and by
// the others as written; it is judged as written, with the checks above
// that do not need the parser.
//
// A URI the serialisation changes only by percent-encoding characters
// (a space, a character beyond ASCII, in a path, query, fragment or a
// non-special URL's host) is normal: it is judged in both readings
// (WHATWGReading). parse is false for a completion's ref, which servers
// compare with a template's text as it is, unparsed.
func URINormal(uri string, parse bool) bool {
	if uri == "" || uri[0] <= ' ' || uri[len(uri)-1] <= ' ' || strings.ContainsAny(uri, "\t\n\r") {
		return false
	}
	if parse {
		switch href, st := whatwgurl.Href(uri); st {
		case whatwgurl.Inexact:
			return false
		case whatwgurl.Exact:
			if href != uri && !EncodedOnly(uri, href) {
				return false
			}
		}
	}
	colon := strings.IndexByte(uri, ':')
	if colon <= 0 {
		return !hasDotSegment(uri)
	}
	scheme, rest := uri[:colon], uri[colon+1:]
	for i := 0; i < len(scheme); i++ {
		if c := scheme[i]; c >= 'A' && c <= 'Z' {
			return false
		}
	}
	switch scheme {
	case "http", "https", "ws", "wss", "ftp", "file":
		if strings.ContainsRune(rest, '\\') {
			return false
		}
		if host, ok := strings.CutPrefix(rest, "//"); ok {
			if end := strings.IndexAny(host, "/?#"); end >= 0 {
				host = host[:end]
			}
			if strings.ToLower(host) != host {
				return false
			}
		}
	}
	return !hasDotSegment(rest)
}

// EncodedOnly reports whether href is uri with some of its bytes
// percent-encoded and nothing else changed.
func EncodedOnly(uri, href string) bool {
	i, j := 0, 0
	for i < len(uri) && j < len(href) {
		switch c := uri[i]; {
		case c == href[j]:
			i, j = i+1, j+1
		case href[j] == '%' && j+2 < len(href) && href[j+1] == upperHex[c>>4] && href[j+2] == upperHex[c&15]:
			i, j = i+1, j+3
		default:
			return false
		}
	}
	return i == len(uri) && j == len(href)
}

const upperHex = "0123456789ABCDEF"

// hasDotSegment reports whether the path of a URI (before ? or #) has a
// segment that is . or .., spelt plainly or percent-encoded.
func hasDotSegment(s string) bool {
	if end := strings.IndexAny(s, "?#"); end >= 0 {
		s = s[:end]
	}
	for _, seg := range strings.Split(s, "/") {
		switch strings.ToLower(seg) {
		case ".", "..", "%2e", "%2e%2e", ".%2e", "%2e.":
			return true
		}
	}
	return false
}
