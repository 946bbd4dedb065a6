package policy

import (
	"fmt"
	"strconv"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

// ParseJSON reads one strict JSON document (RFC 8259): the members of its
// objects in document order, a duplicate key an error, nesting at most
// maxDocumentDepth deep; invalid UTF-8 and lone surrogates are errors. It
// reads strings with jsondoc, the plugin's message reader, not with
// encoding/json's Decoder: the Decoder's token code is 20 KB more of the
// plugin's .wasm.
func ParseJSON(data []byte) (*Value, error) {
	r := jsonReader{src: data}
	r.space()
	if r.pos == len(r.src) {
		return nil, fmt.Errorf("JSON: empty document")
	}
	v, err := r.value(0)
	if err != nil {
		return nil, err
	}
	if r.space(); r.pos < len(r.src) {
		return nil, fmt.Errorf("JSON: trailing data after the document at offset %d", r.pos)
	}
	return v, nil
}

const maxDocumentDepth = 64

// jsonReader reads src from pos.
type jsonReader struct {
	src []byte
	pos int
}

func (r *jsonReader) fail(what string) error {
	return fmt.Errorf("JSON: %s at offset %d", what, r.pos)
}

func (r *jsonReader) space() {
	for r.pos < len(r.src) {
		switch r.src[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// value reads one value; depth is how many arrays and objects enclose it.
func (r *jsonReader) value(depth int) (*Value, error) {
	if r.pos >= len(r.src) {
		return nil, r.fail("looking for a value")
	}
	switch c := r.src[r.pos]; {
	case c == '{' || c == '[':
		if depth >= maxDocumentDepth {
			return nil, fmt.Errorf("JSON: nesting deeper than %d at offset %d", maxDocumentDepth, r.pos)
		}
		r.pos++
		return r.container(depth, c+2) // '[' + 2 is ']', '{' + 2 is '}'
	case c == '"':
		s, err := r.str()
		if err != nil {
			return nil, err
		}
		return String(s), nil
	case c == '-' || c >= '0' && c <= '9':
		return r.number()
	}
	for _, lit := range [...]struct {
		text string
		v    func() *Value
	}{{"true", func() *Value { return Bool(true) }}, {"false", func() *Value { return Bool(false) }}, {"null", Null}} {
		if len(r.src)-r.pos >= len(lit.text) && string(r.src[r.pos:r.pos+len(lit.text)]) == lit.text {
			r.pos += len(lit.text)
			return lit.v(), nil
		}
	}
	return nil, r.fail("looking for a value")
}

// container reads the members of an object (close '}') or the elements
// of an array (close ']') after its opening bracket.
func (r *jsonReader) container(depth int, close byte) (*Value, error) {
	v := &Value{Kind: ArrayValue, Array: []*Value{}}
	if close == '}' {
		v = &Value{Kind: ObjectValue, Object: []Member{}}
	}
	if r.space(); r.pos < len(r.src) && r.src[r.pos] == close {
		r.pos++
		return v, nil
	}
	for {
		r.space()
		key := ""
		if close == '}' {
			if r.pos >= len(r.src) || r.src[r.pos] != '"' {
				return nil, r.fail("looking for an object key")
			}
			at := r.pos
			var err error
			if key, err = r.str(); err != nil {
				return nil, err
			}
			if v.Get(key) != nil {
				return nil, fmt.Errorf("JSON: duplicate key %q at offset %d", key, at)
			}
			if r.space(); r.pos >= len(r.src) || r.src[r.pos] != ':' {
				return nil, r.fail("after an object key")
			}
			r.pos++
			r.space()
		}
		e, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if close == '}' {
			v.Object = append(v.Object, Member{key, e})
		} else {
			v.Array = append(v.Array, e)
		}
		if r.space(); r.pos < len(r.src) && r.src[r.pos] == ',' {
			r.pos++
			continue
		}
		if r.pos < len(r.src) && r.src[r.pos] == close {
			r.pos++
			return v, nil
		}
		return nil, r.fail("after a member or an element")
	}
}

// number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, keeping
// its text.
func (r *jsonReader) number() (*Value, error) {
	start, s := r.pos, r.src
	digits := func() int {
		n := 0
		for r.pos < len(s) && s[r.pos] >= '0' && s[r.pos] <= '9' {
			r.pos++
			n++
		}
		return n
	}
	if s[r.pos] == '-' {
		r.pos++
	}
	if r.pos < len(s) && s[r.pos] == '0' {
		r.pos++
	} else if digits() == 0 {
		return nil, r.fail("in a number")
	}
	if r.pos < len(s) && s[r.pos] == '.' {
		r.pos++
		if digits() == 0 {
			return nil, r.fail("after a number's decimal point")
		}
	}
	if r.pos < len(s) && (s[r.pos] == 'e' || s[r.pos] == 'E') {
		r.pos++
		if r.pos < len(s) && (s[r.pos] == '+' || s[r.pos] == '-') {
			r.pos++
		}
		if digits() == 0 {
			return nil, r.fail("in a number's exponent")
		}
	}
	text := string(s[start:r.pos])
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, fmt.Errorf("JSON: number %s out of range", text)
	}
	return &Value{Kind: NumberValue, Num: f, Text: text}, nil
}

// str reads a string at its opening quote: its end found here, the
// string validated and decoded by jsondoc (the plugin's own reader, which
// refuses invalid UTF-8 and lone surrogates).
func (r *jsonReader) str() (string, error) {
	start := r.pos
	for r.pos++; r.pos < len(r.src); r.pos++ {
		switch r.src[r.pos] {
		case '\\':
			r.pos++
		case '"':
			r.pos++
			d, err := jsondoc.Parse(r.src[start:r.pos])
			if err != nil {
				return "", fmt.Errorf("JSON: %v, in the string at offset %d", err, start)
			}
			v, _ := d.Str(jsondoc.Root)
			return v, nil
		}
	}
	return "", r.fail("in a string")
}
