// Package uritemplate reads RFC 6570 URI templates the way MCP servers
// read them: it tells which templates a concrete URI can be an instance
// of, and where each expression's value lies in it, and it encodes a
// value for an expression as RFC 6570 expansion does. The plugin judges
// a resources/read by the templates that can match its URI (manual 4) and
// restores pseudonyms into a URI encoded for their place (manual 13.6).
//
// # Readings
//
// RFC 6570 defines expansion only; matching a URI back to a template is
// each SDK's own reading, and they differ. Strict is the reading of
// github.com/yosida95/uritemplate/v3 v3.0.2 (Template.Regexp), which
// go-sdk v1.8.0 uses as is (mcp/resource.go, serverResourceTemplate.
// Matches): a variable matches unreserved characters, pct-triplets and
// ",", "=" too in named and exploded expressions; "+" and "#" also
// reserved characters; every expression may be absent. Loose is, per
// operator, the union of what any SDK in use accepts, so every SDK's
// reading accepts a subset of it:
//
//	op   go-sdk (Strict)       TS v1 1.32.2, v2 2.4.0   Python main        Python 1.x
//	{x}  [U,%]* (optional)     [^/,]+ (explode: ,-list) [^/?#&,]*          [^/]+
//	{+x} [U R %]*              .+                        [^?#]*             error
//	{#x} #[U R %]*             .+ (no "#")               #.*                error
//	{.x} \.[U,%]*…             \.[^/,]+                  (\.[^./?#]*)+      error
//	{/x} /[U,%]* (/… if many)  /[^/,]+ (explode: ,-list) /[^/?#]* (repeat)  error
//	{;x} ;[U,=%]*…             [^/]+ (no ";")            ;name=[^;/?#]*…    error
//	{?x} \?[U,=%]*(&…)*        \?x=[^&]+(&y=[^&]+)*      trailing: ?… any   error
//	{&x} &[U,=%]*(&…)*         &x=[^&]+(&y=[^&]+)*       order, extras; #…  error
//
// U is the unreserved set, R the reserved one. Sources: TypeScript
// dist/esm/shared/uriTemplate.js (sdk 1.32.2), UriTemplate in
// @modelcontextprotocol/server 2.4.0 dist/src-DdvbAHrR.mjs (the same
// matcher); Python src/mcp/shared/uri_template.py (python-sdk main,
// commit 57394b0548d1e2dc2dce8d67d84985769df3b8bb: a linear scan with
// _STOP_CHARS per operator, and a trailing {?…} read leniently: any query,
// any order, extras, a fragment stripped); Python 1.x (v1.29.0)
// src/mcp/server/fastmcp/resources/templates.py, which turns each {name}
// into (?P<name>[^/]+) without escaping the literals, so the literal text
// is a pattern of Python's re (python1.go; an operator makes the pattern
// invalid). So Loose reads, with the literals as written:
//
//	{x} {;x}      [^/]*                  {+x} {#x} {?x} {&x}: see below
//	{.x}          (\.[^/]*)?             {/x}  (/[^/]*)? ((/[^/]*)* for a list or explode)
//	{+x} {#x}     .*                     {?x} {&x}  ([?&#].*)?
//
// or, when every expression is a plain {name}, Python 1.x's pattern
// (python1Regexp). URL normalisation a server applies before matching is
// not this package's: the plugin refuses a URI that a WHATWG URL parser
// would serialise otherwise (internal/whatwgurl).
package uritemplate

import (
	"errors"
	"regexp"
	"strings"

	rfc6570 "github.com/yosida95/uritemplate/v3"
)

// Op is an expression's operator: 0 for a simple expression, else one of
// + # . / ; ? &.
type Op byte

// Var is one varspec of an expression.
type Var struct {
	Name    string
	Explode bool
	Prefix  int // the :N modifier, 0 without
}

// Expr is one expression: its operator and variables.
type Expr struct {
	Op   Op
	Vars []Var
}

// Reading is how a concrete URI is read as an instance of a template.
type Reading uint8

const (
	// Strict is the RFC 6570 character classes as go-sdk reads them.
	Strict Reading = iota
	// Loose is the widest reading any SDK in use accepts, per operator.
	Loose
)

// Span is where expression Expr of a template lies in a concrete URI:
// [Start, End), the operator's leading character included.
type Span struct {
	Start, End int
	Expr       int
}

// Template is a parsed template with its compiled readings.
type Template struct {
	text  string
	exprs []Expr
	// re holds the readings, one capture group per expression; prefix
	// their literal prefixes, a cheap filter before the regexp.
	re     [2]*regexp.Regexp
	prefix [2]string
	// py is Python 1.x's reading (python1Regexp), nil without one; pyAny:
	// a Python 1.x pattern this package cannot bound, read as matching
	// every URI.
	py    *regexp.Regexp
	pyAny bool
}

// ErrNotTemplate is returned for a text without expressions.
var ErrNotTemplate = errors.New("uritemplate: no expression")

// Parse parses an RFC 6570 template (levels 1-4, as yosida95/uritemplate
// accepts them: its parser is the judge of validity, as it is go-sdk's).
//
// A text RFC 6570 refuses whose expressions are all plain {name} is a
// template FastMCP 1.x still serves (its literal a Python pattern: "a|b"
// and "\\d" are no RFC 6570 literals): it is returned with Python 1.x's
// reading alone, Loose, and the strict reading matching nothing.
func Parse(text string) (*Template, error) {
	if _, err := rfc6570.New(text); err != nil {
		if t := parsePython1Only(text); t != nil {
			return t, nil
		}
		return nil, err
	}
	t := &Template{text: text}
	var lits []string
	rest := text
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			lits = append(lits, rest)
			break
		}
		j := strings.IndexByte(rest[i:], '}') + i // valid: there is one
		lits = append(lits, rest[:i])
		t.exprs = append(t.exprs, parseExpr(rest[i+1:j]))
		rest = rest[j+1:]
	}
	if len(t.exprs) == 0 {
		return nil, ErrNotTemplate
	}
	python1 := true // Python 1.x reads this template (all plain {name})
	for _, e := range t.exprs {
		if e.Op != 0 || len(e.Vars) != 1 || e.Vars[0].Explode || e.Vars[0].Prefix != 0 || !wordName(e.Vars[0].Name) {
			python1 = false
		}
	}
	for r := Strict; r <= Loose; r++ {
		var b strings.Builder
		b.WriteString(`(?s)^`)
		for i, lit := range lits {
			b.WriteString(regexp.QuoteMeta(lit))
			if i < len(t.exprs) {
				b.WriteByte('(')
				if r == Strict {
					strictRegexp(&b, &t.exprs[i])
				} else {
					looseRegexp(&b, &t.exprs[i])
				}
				b.WriteByte(')')
			}
		}
		b.WriteByte('$')
		re, err := regexp.Compile(b.String())
		if err != nil {
			return nil, err
		}
		t.re[r] = re
		t.prefix[r], _ = re.LiteralPrefix()
	}
	if python1 {
		var ok bool
		t.py, ok = python1Regexp(text)
		t.pyAny = !ok
	}
	return t, nil
}

// neverRegexp matches no string.
var neverRegexp = regexp.MustCompile(`[^\x00-\x{10FFFF}]`)

// parsePython1Only is the template of a text only FastMCP 1.x reads
// (Parse), or nil.
func parsePython1Only(text string) *Template {
	t := &Template{text: text, re: [2]*regexp.Regexp{neverRegexp, neverRegexp}}
	rest := text
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 || !wordName(rest[i+1:i+j]) {
			return nil
		}
		t.exprs = append(t.exprs, Expr{Vars: []Var{{Name: rest[i+1 : i+j]}}})
		rest = rest[i+j+1:]
	}
	if len(t.exprs) == 0 || strings.IndexByte(rest, '}') >= 0 {
		return nil
	}
	var ok bool
	t.py, ok = python1Regexp(text)
	t.pyAny = !ok
	if t.py == nil && !t.pyAny {
		return nil // re refuses it: FastMCP 1.x serves nothing by it
	}
	return t
}

func parseExpr(body string) Expr {
	var e Expr
	if body != "" && strings.IndexByte("+#./;?&", body[0]) >= 0 {
		e.Op, body = Op(body[0]), body[1:]
	}
	for _, spec := range strings.Split(body, ",") {
		v := Var{Name: spec}
		if strings.HasSuffix(spec, "*") {
			v.Name, v.Explode = spec[:len(spec)-1], true
		} else if k := strings.IndexByte(spec, ':'); k >= 0 {
			v.Name = spec[:k]
			for _, c := range spec[k+1:] {
				v.Prefix = v.Prefix*10 + int(c-'0')
			}
		}
		e.Vars = append(e.Vars, v)
	}
	return e
}

func wordName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return s != ""
}

// The character classes of yosida95/uritemplate v3.0.2 escape.go.
const (
	reUnreserved = `\x2d\x2e\x30-\x39\x41-\x5a\x5f\x61-\x7a\x7e`
	reReserved   = `\x21\x23\x24\x26-\x2c\x2f\x3a\x3b\x3d\x3f\x40\x5b\x5d`
)

// strictRegexp writes the expression's pattern as yosida95/uritemplate
// v3.0.2 expression.regexp writes it, its groups not capturing.
func strictRegexp(b *strings.Builder, e *Expr) {
	first, sep, named, reserved := opSyntax(e.Op)
	explode0 := e.Vars[0].Explode
	b.WriteString("(?:")
	b.WriteString(regexp.QuoteMeta(first))
	strictClass(b, reserved, named || explode0)
	if len(e.Vars) > 1 || explode0 {
		n := len(e.Vars) - 1
		for _, v := range e.Vars {
			if v.Explode {
				n = -1
				break
			}
		}
		b.WriteString("(?:")
		b.WriteString(regexp.QuoteMeta(sep))
		strictClass(b, reserved, named || n < 0)
		b.WriteByte(')')
		if n > 0 {
			b.WriteString("{0,")
			b.WriteString(itoa(n))
			b.WriteByte('}')
		} else {
			b.WriteByte('*')
		}
	}
	b.WriteString(")?")
}

func strictClass(b *strings.Builder, reserved, named bool) {
	b.WriteString("(?:[")
	if !reserved {
		b.WriteString(`\x2c`)
		if named {
			b.WriteString(`\x3d`)
		}
	}
	b.WriteString(reUnreserved)
	if reserved {
		b.WriteString(reReserved)
	}
	b.WriteString("]|%[[:xdigit:]][[:xdigit:]])*")
}

// looseRegexp writes the union reading of the expression (package doc).
func looseRegexp(b *strings.Builder, e *Expr) {
	switch e.Op {
	case 0, ';':
		b.WriteString(`[^/]*`)
	case '+', '#':
		b.WriteString(`.*`)
	case '.':
		b.WriteString(`(?:\.[^/]*)?`)
	case '/':
		if len(e.Vars) > 1 || e.Vars[0].Explode {
			b.WriteString(`(?:/[^/]*)*`)
		} else {
			b.WriteString(`(?:/[^/]*)?`)
		}
	case '?', '&':
		b.WriteString(`(?:[?&#].*)?`)
	}
}

// opSyntax is RFC 6570 appendix A for op: the first character, the
// separator, whether it is named, whether it keeps reserved characters.
func opSyntax(op Op) (first, sep string, named, reserved bool) {
	switch op {
	case '+':
		return "", ",", false, true
	case '#':
		return "#", ",", false, true
	case '.':
		return ".", ".", false, false
	case '/':
		return "/", "/", false, false
	case ';':
		return ";", ";", true, false
	case '?':
		return "?", "&", true, false
	case '&':
		return "&", "&", true, false
	}
	return "", ",", false, false
}

func itoa(n int) string {
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(buf[i:])
		}
	}
}

// Text is the template's text.
func (t *Template) Text() string { return t.text }

// Exprs are the template's expressions, in order.
func (t *Template) Exprs() []Expr { return t.exprs }

// Match reports whether uri is an instance of t under reading r.
func (t *Template) Match(uri string, r Reading) bool {
	if strings.HasPrefix(uri, t.prefix[r]) && t.re[r].MatchString(uri) {
		return true
	}
	return r == Loose && (t.pyAny || t.py != nil && t.py.MatchString(uri))
}

// Spans appends to dst where each expression that matched a non-empty
// part of uri lies, under reading r, and reports whether uri matches. Of
// the ways uri can be split, the regexp's leftmost-first one is taken.
func (t *Template) Spans(uri string, r Reading, dst []Span) ([]Span, bool) {
	var m []int
	if strings.HasPrefix(uri, t.prefix[r]) {
		m = t.re[r].FindStringSubmatchIndex(uri)
	}
	if m == nil && r == Loose && t.py != nil {
		m = t.py.FindStringSubmatchIndex(uri) // a group per expression too
	}
	if m == nil {
		return dst, r == Loose && t.pyAny
	}
	for i := range t.exprs {
		if a, z := m[2+2*i], m[3+2*i]; a >= 0 && z > a {
			dst = append(dst, Span{Start: a, End: z, Expr: i})
		}
	}
	return dst, true
}

// Encode is value as RFC 6570 expansion writes it in an expression of
// operator op (sections 3.2.1-3.2.9): every byte outside the unreserved
// set percent-encoded (of its UTF-8 encoding), and for + and # the
// reserved characters and pct-triplets kept. A value with nothing to
// encode is returned as is.
func Encode(op Op, value string) string {
	_, _, _, reserved := opSyntax(op)
	for i := 0; i < len(value); i++ {
		if !kept(value, i, reserved) {
			return string(AppendEncoded(make([]byte, 0, len(value)+16), op, value))
		}
	}
	return value
}

// AppendEncoded appends Encode(op, value) to dst.
func AppendEncoded(dst []byte, op Op, value string) []byte {
	_, _, _, reserved := opSyntax(op)
	for i := 0; i < len(value); i++ {
		c := value[i]
		if kept(value, i, reserved) {
			dst = append(dst, c)
			continue
		}
		dst = append(dst, '%', hexDigit[c>>4], hexDigit[c&15])
	}
	return dst
}

const hexDigit = "0123456789ABCDEF"

// kept: value[i] is written as is.
func kept(value string, i int, reserved bool) bool {
	c := value[i]
	if unreserved(c) {
		return true
	}
	if !reserved {
		return false
	}
	if c == '%' {
		return i+2 < len(value) && isHex(value[i+1]) && isHex(value[i+2])
	}
	return strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0
}

func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
