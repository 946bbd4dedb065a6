package policy

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// plainValue is v as encoding/json decodes a document with UseNumber.
func plainValue(v *Value) any {
	switch v.Kind {
	case BoolValue:
		return v.Bool
	case NumberValue:
		return json.Number(v.Text)
	case StringValue:
		return v.Text
	case ArrayValue:
		a := []any{}
		for _, e := range v.Array {
			a = append(a, plainValue(e))
		}
		return a
	case ObjectValue:
		m := map[string]any{}
		for _, e := range v.Object {
			m[e.Key] = plainValue(e.Value)
		}
		return m
	}
	return nil
}

// checkParseJSON holds ParseJSON to encoding/json: a document one accepts
// the other reads the same, but for what ParseJSON refuses on purpose (a
// duplicate key, nesting past maxDocumentDepth, a number out of range);
// and the value written back reads the same again.
func checkParseJSON(t *testing.T, data []byte) {
	t.Helper()
	v, err := ParseJSON(data)
	if err != nil {
		if !json.Valid(data) {
			return
		}
		msg := err.Error()
		if !strings.Contains(msg, "duplicate key") && !strings.Contains(msg, "nesting deeper") && !strings.Contains(msg, "out of range") &&
			!strings.Contains(msg, "in the string") { // invalid UTF-8, a lone surrogate: jsondoc's refusals
			t.Fatalf("ParseJSON(%q) refused a document encoding/json reads: %v", data, err)
		}
		return
	}
	if !json.Valid(data) {
		t.Fatalf("ParseJSON(%q) read a document encoding/json refuses: %s", data, v.JSON(""))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var want any
	if err := dec.Decode(&want); err != nil {
		t.Fatal(err)
	}
	if got := plainValue(v); !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseJSON(%q) = %#v, encoding/json %#v", data, got, want)
	}
	again, err := ParseJSON([]byte(v.JSON("")))
	if err != nil || !reflect.DeepEqual(plainValue(again), want) {
		t.Fatalf("ParseJSON(%q) written back as %s reads %v, %v", data, v.JSON(""), again, err)
	}
}

var parseJSONCases = []string{
	`{}`, `[]`, ` {"a": [1, -2.5e3, 0, 1E+2, true, false, null, "x"]} `, `"\u00e9\ud83d\ude00\\\/\b\f\n\r\t"`,
	`"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800"`, "\"\xff\xfe\"", `"<&>\u2028"`, `{"a":1,"a":2}`, `{"a":{"a":1}}`,
	`1e400`, `-0`, `01`, `1.`, `.5`, `-`, `+1`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `[1 2]`, `tru`, `nul`,
	`"a` + "\n" + `"`, `"\x"`, `"\u12"`, ``, ` `, `[] []`, "\ufeff{}", `{"":0}`, strings.Repeat("[", 64) + strings.Repeat("]", 64),
	strings.Repeat("[", 65) + strings.Repeat("]", 65),
}

func TestParseJSON(t *testing.T) {
	for _, c := range parseJSONCases {
		checkParseJSON(t, []byte(c))
	}
	for _, c := range []struct{ doc, err string }{
		{`{"a":1,"a":2}`, `duplicate key "a" at offset 7`},
		{`["ok", "\ud800"]`, "lone surrogate"},
		{"[\"\xff\"]", "in the string at offset 1"},
		{``, "empty document"},
		{`{} x`, "trailing data after the document at offset 3"},
		{`1e400`, "number 1e400 out of range"},
		{`[1,]`, "looking for a value at offset 3"},
		{`{"a":`, "looking for a value at offset 5"},
		{strings.Repeat("[", 65), "nesting deeper than 64"},
	} {
		if _, err := ParseJSON([]byte(c.doc)); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("ParseJSON(%q): %v, want %q", c.doc, err, c.err)
		}
	}
	v, err := ParseJSON([]byte(`{"b":1,"a":[]}`))
	if err != nil || v.Object[0].Key != "b" || v.Object[1].Key != "a" || v.Object[1].Value.Array == nil {
		t.Errorf("members out of order or an empty array nil: %v, %v", v, err)
	}
}

func FuzzParseJSON(f *testing.F) {
	for _, c := range parseJSONCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkParseJSON(t, data) })
}
