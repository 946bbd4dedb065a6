package jsondoc

// The recursive parser Parse used before it became one loop, kept as the
// reference FuzzParse compares Parse with (same nodes, same errors at the
// same offsets), and AppendString as it was before it skipped plain bytes
// eight at a time, which FuzzAppendString compares with.

import (
	"fmt"
	"unicode/utf8"
)

// Parse parses src strictly. The document keeps src; don't modify it.
func refParse(src []byte) (*Doc, error) {
	p := parser{src: src}
	// A JSON value needs at least ~3 bytes per node; most bodies need far
	// fewer nodes, so guess low and let append grow.
	p.nodes = make([]node, 0, 8+len(src)/16)
	p.refSkipSpace()
	if p.pos >= len(src) {
		return nil, &SyntaxError{Offset: p.pos, Msg: "empty body"}
	}
	if err := p.refValue(None, 0); err != nil {
		return nil, err
	}
	p.refSkipSpace()
	if p.pos != len(src) {
		return nil, &SyntaxError{Offset: p.pos, Msg: "data after the JSON value", Ambiguous: true}
	}
	return &Doc{src: src, nodes: p.nodes}, nil
}

func (p *parser) refSkipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// add appends a node as the last child of parent and returns its index.
func (p *parser) refAdd(parent int32, n node) int32 {
	i := int32(len(p.nodes))
	n.parent, n.after = parent, i+1
	p.nodes = append(p.nodes, n)
	return i
}

// value parses one value at p.pos (after spaces) as a child of parent.
// keyStart/keyEnd of the new node are set by the caller for members.
func (p *parser) refValue(parent int32, depth int) error {
	return p.refMember(parent, depth, -1, -1, 0)
}

func (p *parser) refMember(parent int32, depth int, keyStart, keyEnd int32, keyFlags uint8) error {
	if p.pos >= len(p.src) {
		return p.fail("unexpected end of body")
	}
	start := int32(p.pos)
	n := node{start: start, keyStart: keyStart, keyEnd: keyEnd, flags: keyFlags}
	switch c := p.src[p.pos]; {
	case c == '{':
		if depth >= MaxDepth {
			return p.ambiguous(fmt.Sprintf("nesting deeper than %d", MaxDepth))
		}
		n.kind = Object
		i := p.refAdd(parent, n)
		if err := p.refObject(i, depth+1); err != nil {
			return err
		}
		p.nodes[i].end = int32(p.pos)
		p.nodes[i].after = int32(len(p.nodes))
		return nil
	case c == '[':
		if depth >= MaxDepth {
			return p.ambiguous(fmt.Sprintf("nesting deeper than %d", MaxDepth))
		}
		n.kind = Array
		i := p.refAdd(parent, n)
		if err := p.refArray(i, depth+1); err != nil {
			return err
		}
		p.nodes[i].end = int32(p.pos)
		p.nodes[i].after = int32(len(p.nodes))
		return nil
	case c == '"':
		esc, err := p.str(p.pos + 1)
		if err != nil {
			return err
		}
		n.kind, n.end = String, int32(p.pos)
		if esc {
			n.flags |= escaped
		}
	case c == '-' || (c >= '0' && c <= '9'):
		if err := p.number(); err != nil {
			return err
		}
		n.kind, n.end = Number, int32(p.pos)
	case c == 't':
		if err := p.literal("true"); err != nil {
			return err
		}
		n.kind, n.end = True, int32(p.pos)
	case c == 'f':
		if err := p.literal("false"); err != nil {
			return err
		}
		n.kind, n.end = False, int32(p.pos)
	case c == 'n':
		if err := p.literal("null"); err != nil {
			return err
		}
		n.kind, n.end = Null, int32(p.pos)
	default:
		return p.fail(fmt.Sprintf("unexpected character %q", rune(c)))
	}
	p.refAdd(parent, n)
	return nil
}

func (p *parser) refObject(obj int32, depth int) error {
	p.pos++ // {
	p.refSkipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		return nil
	}
	for {
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return p.fail("want a string key")
		}
		ks := int32(p.pos)
		esc, err := p.str(p.pos + 1)
		if err != nil {
			return err
		}
		ke := int32(p.pos)
		var kf uint8
		if esc {
			kf = keyEscaped
		}
		if p.nonASCII {
			kf |= keyNonASCII
		}
		if err := p.checkKey(obj, ks, ke, kf); err != nil {
			return err
		}
		p.refSkipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return p.fail("want ':' after a key")
		}
		p.pos++
		p.refSkipSpace()
		if err := p.refMember(obj, depth, ks, ke, kf); err != nil {
			return err
		}
		p.refSkipSpace()
		if p.pos >= len(p.src) {
			return p.fail("unexpected end of body in an object")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			p.refSkipSpace()
		case '}':
			p.pos++
			return nil
		default:
			return p.fail("want ',' or '}' in an object")
		}
	}
}

func (p *parser) refArray(arr int32, depth int) error {
	p.pos++ // [
	p.refSkipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		return nil
	}
	for {
		if err := p.refValue(arr, depth); err != nil {
			return err
		}
		p.refSkipSpace()
		if p.pos >= len(p.src) {
			return p.fail("unexpected end of body in an array")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			p.refSkipSpace()
		case ']':
			p.pos++
			return nil
		default:
			return p.fail("want ',' or ']' in an array")
		}
	}
}

func (p *parser) literal(word string) error {
	if len(p.src)-p.pos < len(word) || string(p.src[p.pos:p.pos+len(word)]) != word {
		return p.fail("invalid literal")
	}
	p.pos += len(word)
	return nil
}

// AppendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD;
// <, > and & stay as they are (this is not HTML).
func refAppendString(out []byte, s string) []byte {
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < 0x80 {
			i++
			continue
		}
		if c >= 0x80 {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				out = append(out, s[start:i]...)
				out = append(out, "\ufffd"...)
				i++
				start = i
				continue
			}
			// U+2028 and U+2029 are valid JSON but break JavaScript
			// parsers that treat JSON as code; escape them.
			if r == '\u2028' || r == '\u2029' {
				out = append(out, s[start:i]...)
				out = append(out, `\u202`...)
				out = append(out, "89"[r-'\u2028'])
				i += size
				start = i
				continue
			}
			i += size
			continue
		}
		out = append(out, s[start:i]...)
		switch c {
		case '"':
			out = append(out, `\"`...)
		case '\\':
			out = append(out, `\\`...)
		case '\n':
			out = append(out, `\n`...)
		case '\r':
			out = append(out, `\r`...)
		case '\t':
			out = append(out, `\t`...)
		default:
			out = append(out, `\u00`...)
			out = append(out, hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	out = append(out, s[start:]...)
	return append(out, '"')
}
