package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	yaml "go.yaml.in/yaml/v3"
)

// ValueKind is the JSON type of a Value.
type ValueKind uint8

const (
	NullValue ValueKind = iota
	BoolValue
	NumberValue
	StringValue
	ArrayValue
	ObjectValue
)

// Value is a configuration document as written: JSON types with object keys
// in document order. Configuration is read into Values first so that
// validation can name the JSON path of every error, tell null from absent,
// keep the order of roles, and merge `extends` chains field by field.
type Value struct {
	Kind ValueKind
	Bool bool
	Num  float64
	// Text is the string of a StringValue and the literal of a NumberValue.
	Text   string
	Array  []*Value
	Object []Member
}

// Member is one key of an object Value.
type Member struct {
	Key   string
	Value *Value
}

// Get returns the value of key in an object, or nil when absent.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != ObjectValue {
		return nil
	}
	for i := range v.Object {
		if v.Object[i].Key == key {
			return v.Object[i].Value
		}
	}
	return nil
}

// Set replaces key's value in an object, appending the key when absent.
func (v *Value) Set(key string, val *Value) {
	for i := range v.Object {
		if v.Object[i].Key == key {
			v.Object[i].Value = val
			return
		}
	}
	v.Object = append(v.Object, Member{key, val})
}

// Delete removes key from an object.
func (v *Value) Delete(key string) {
	for i := range v.Object {
		if v.Object[i].Key == key {
			v.Object = append(v.Object[:i:i], v.Object[i+1:]...)
			return
		}
	}
}

// Clone returns a deep copy.
func (v *Value) Clone() *Value {
	if v == nil {
		return nil
	}
	c := *v
	if v.Array != nil {
		c.Array = make([]*Value, len(v.Array))
		for i, e := range v.Array {
			c.Array[i] = e.Clone()
		}
	}
	if v.Object != nil {
		c.Object = make([]Member, len(v.Object))
		for i, m := range v.Object {
			c.Object[i] = Member{m.Key, m.Value.Clone()}
		}
	}
	return &c
}

// String, Number, Bool, Null, Array and Object build Values.
func String(s string) *Value { return &Value{Kind: StringValue, Text: s} }
func Number(f float64) *Value {
	return &Value{Kind: NumberValue, Num: f, Text: strconv.FormatFloat(f, 'g', -1, 64)}
}
func Bool(b bool) *Value        { return &Value{Kind: BoolValue, Bool: b} }
func Null() *Value              { return &Value{Kind: NullValue} }
func Array(vs ...*Value) *Value { return &Value{Kind: ArrayValue, Array: append([]*Value{}, vs...)} }

// Object is not inlined: the transform types' defaults call it at
// package initialisation, each inlined copy code of the .wasm.
//
//go:noinline
func Object(ms ...Member) *Value { return &Value{Kind: ObjectValue, Object: append([]Member{}, ms...)} }
func Strings(ss []string) *Value {
	a := &Value{Kind: ArrayValue, Array: make([]*Value, len(ss))}
	for i, s := range ss {
		a.Array[i] = String(s)
	}
	return a
}

// ParseDocument reads a JSON or YAML document. Text whose first
// non-blank character is '{' or '[' is read as strict JSON; anything else as
// YAML. Duplicate keys are errors in both.
func ParseDocument(data []byte) (*Value, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("document is not valid UTF-8")
	}
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return ParseJSON(data)
	}
	return ParseYAML(data)
}

// ParseYAML reads one YAML document (YAML 1.2 core schema types).
func ParseYAML(data []byte) (*Value, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, fmt.Errorf("YAML: empty document")
		}
		return nil, fmt.Errorf("YAML: %v", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		return nil, fmt.Errorf("YAML: more than one document")
	}
	var c yamlConverter
	return c.convert(&doc, 0)
}

// maxAliasNodes bounds what aliases may expand to, so a small document
// cannot blow up into millions of nodes (a "billion laughs").
const maxAliasNodes = 10000

type yamlConverter struct {
	aliasDepth int // > 0 while expanding an alias
	aliasNodes int
}

// convert turns a YAML node into a Value; depth is how many sequences and
// mappings enclose it.
func (c *yamlConverter) convert(n *yaml.Node, depth int) (*Value, error) {
	if c.aliasDepth > 0 {
		if c.aliasNodes++; c.aliasNodes > maxAliasNodes {
			return nil, fmt.Errorf("YAML line %d: excessive aliasing (aliases expand to more than %d nodes)", n.Line, maxAliasNodes)
		}
	}
	if (n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode) && depth >= maxDocumentDepth {
		return nil, fmt.Errorf("YAML line %d: nesting deeper than %d", n.Line, maxDocumentDepth)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, fmt.Errorf("YAML: empty document")
		}
		return c.convert(n.Content[0], depth)
	case yaml.AliasNode:
		c.aliasDepth++
		v, err := c.convert(n.Alias, depth)
		c.aliasDepth--
		return v, err
	case yaml.SequenceNode:
		a := &Value{Kind: ArrayValue, Array: make([]*Value, 0, len(n.Content))}
		for _, item := range n.Content {
			e, err := c.convert(item, depth+1)
			if err != nil {
				return nil, err
			}
			a.Array = append(a.Array, e)
		}
		return a, nil
	case yaml.MappingNode:
		o := &Value{Kind: ObjectValue, Object: make([]Member, 0, len(n.Content)/2)}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, vn := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
				return nil, fmt.Errorf("YAML line %d: keys must be plain strings", k.Line)
			}
			if o.Get(k.Value) != nil {
				return nil, fmt.Errorf("YAML line %d: duplicate key %q", k.Line, k.Value)
			}
			e, err := c.convert(vn, depth+1)
			if err != nil {
				return nil, err
			}
			o.Object = append(o.Object, Member{k.Value, e})
		}
		return o, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return Null(), nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, fmt.Errorf("YAML line %d: the value is not a valid !!bool", n.Line)
			}
			return Bool(b), nil
		case "!!int", "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				// Don't quote the value: it may be a secret (vault.key).
				return nil, fmt.Errorf("YAML line %d: the value is not a valid %s", n.Line, n.ShortTag())
			}
			if math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, fmt.Errorf("YAML line %d: not a finite number", n.Line)
			}
			return &Value{Kind: NumberValue, Num: f, Text: strconv.FormatFloat(f, 'g', -1, 64)}, nil
		default:
			return String(n.Value), nil
		}
	}
	return nil, fmt.Errorf("YAML line %d: unsupported node", n.Line)
}

// MarshalJSON writes the value as JSON, keeping key order.
func (v *Value) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	v.writeJSON(&b)
	return b.Bytes(), nil
}

// JSON returns the value as indented JSON.
func (v *Value) JSON(indent string) string {
	raw, _ := v.MarshalJSON()
	if indent == "" {
		return string(raw)
	}
	var out bytes.Buffer
	_ = json.Indent(&out, raw, "", indent)
	return out.String()
}

func (v *Value) writeJSON(b *bytes.Buffer) {
	if v == nil {
		b.WriteString("null")
		return
	}
	switch v.Kind {
	case NullValue:
		b.WriteString("null")
	case BoolValue:
		b.WriteString(strconv.FormatBool(v.Bool))
	case NumberValue:
		if v.Text != "" && json.Valid([]byte(v.Text)) {
			b.WriteString(v.Text)
		} else {
			b.WriteString(strconv.FormatFloat(v.Num, 'g', -1, 64))
		}
	case StringValue:
		b.Write(jsondoc.AppendString(b.AvailableBuffer(), v.Text))
	case ArrayValue:
		b.WriteByte('[')
		for i, e := range v.Array {
			if i > 0 {
				b.WriteByte(',')
			}
			e.writeJSON(b)
		}
		b.WriteByte(']')
	case ObjectValue:
		b.WriteByte('{')
		for i, m := range v.Object {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(jsondoc.AppendString(b.AvailableBuffer(), m.Key))
			b.WriteByte(':')
			m.Value.writeJSON(b)
		}
		b.WriteByte('}')
	}
}

// describe renders a value briefly for error messages.
func (v *Value) describe() string {
	if v == nil {
		return "nothing"
	}
	switch v.Kind {
	case NullValue:
		return "null"
	case BoolValue:
		return "bool " + strconv.FormatBool(v.Bool)
	case NumberValue:
		return "number " + v.Text
	case StringValue:
		s := v.Text
		if len(s) > 60 {
			s = s[:57] + "..."
		}
		return "string " + strconv.Quote(s)
	case ArrayValue:
		return "list"
	case ObjectValue:
		return "object"
	}
	return "value"
}

// kindName is the JSON type name used in "want ..." messages.
func (k ValueKind) String() string {
	return [...]string{"null", "bool", "number", "string", "list", "object"}[k]
}

// deepMerge merges src over dst: objects recursively, anything else replaced.
func deepMerge(dst, src *Value) *Value {
	if dst == nil || src == nil || dst.Kind != ObjectValue || src.Kind != ObjectValue {
		return src.Clone()
	}
	out := dst.Clone()
	for _, m := range src.Object {
		out.Set(m.Key, deepMerge(out.Get(m.Key), m.Value))
	}
	return out
}

// ToAny converts the value to plain Go values (map[string]any, []any,
// float64, string, bool, nil), for callers that want them.
func (v *Value) ToAny() any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case BoolValue:
		return v.Bool
	case NumberValue:
		return v.Num
	case StringValue:
		return v.Text
	case ArrayValue:
		a := make([]any, len(v.Array))
		for i, e := range v.Array {
			a[i] = e.ToAny()
		}
		return a
	case ObjectValue:
		m := make(map[string]any, len(v.Object))
		for _, mb := range v.Object {
			m[mb.Key] = mb.Value.ToAny()
		}
		return m
	}
	return nil
}

func quoteList(ss []string) string {
	return strings.Join(ss, ", ")
}
