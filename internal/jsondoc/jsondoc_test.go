package jsondoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/internal/benchdata"
)

func TestParseRejects(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	tests := []struct {
		name, body, wantErr string
	}{
		{"empty", "", "empty body"},
		{"spaces only", "  \n", "empty body"},
		{"duplicate key", `{"a":1,"a":2}`, `duplicate key "a" at offset 7`},
		{"duplicate key escaped", `{"a":1,"\u0061":2}`, `duplicate key "\u0061"`},
		{"case-folded keys", `{"method":"x","Method":"y"}`, `keys "method" and "Method" differ only in case`},
		{"unicode case folding", `{"k":1,"\u212a":2}`, `differ only in case`},
		{"long s folds to s", `{"s":1,"ſ":2}`, `differ only in case`},
		{"nested duplicate", `{"params":{"name":"a","name":"b"}}`, `duplicate key "name"`},
		{"invalid UTF-8", "{\"a\":\"\xff\"}", "invalid UTF-8 at offset 6"},
		{"overlong UTF-8", "\"\xc0\xaf\"", "invalid UTF-8"},
		{"UTF-16 surrogate encoded in UTF-8", "\"\xed\xa0\x80\"", "invalid UTF-8"},
		{"lone high surrogate", `"\ud800"`, "lone surrogate"},
		{"lone low surrogate", `"\udc00"`, "lone surrogate"},
		{"high then non-low", `"\ud800\u0041"`, "lone surrogate"},
		{"high at end", `"\ud800`, "lone surrogate"},
		{"trailing data", `{} {}`, "data after the JSON value at offset 3"},
		{"trailing garbage", `{"a":1}x`, "data after the JSON value"},
		{"too deep", deep, fmt.Sprintf("nesting deeper than %d", MaxDepth)},
		{"control char", "\"a\x01b\"", "control character"},
		{"bad escape", `"\x"`, "invalid escape"},
		{"bad unicode escape", `"\u12g4"`, `invalid \u escape`},
		{"leading zero", `01`, "data after the JSON value"},
		{"bare minus", `-`, "invalid number"},
		{"no fraction digits", `1.`, "no digits after '.'"},
		{"no exponent digits", `1e+`, "no digits in the exponent"},
		{"single quotes", `{'a':1}`, "want a string key"},
		{"trailing comma object", `{"a":1,}`, "want a string key"},
		{"trailing comma array", `[1,]`, "unexpected character"},
		{"unterminated string", `"abc`, "unterminated string"},
		{"unterminated object", `{"a":1`, "unexpected end of body in an object"},
		{"missing colon", `{"a" 1}`, "want ':' after a key"},
		{"NaN", `NaN`, "unexpected character"},
		{"number beyond float64", `{"id":1e400}`, "number out of range"},
		{"long number beyond float64", "2" + strings.Repeat("0", 310), "number out of range"},
		{"bad literal", `tru`, "invalid literal"},
		{"BOM", "\ufeff{}", "unexpected character"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse([]byte(tc.body))
			if err == nil {
				t.Fatalf("accepted %q: %s", tc.body, d.Bytes())
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %q, want it to contain %q", err, tc.wantErr)
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	tests := []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.5e-7`, `-12E+3`, `""`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"q":"x"}}}`,
		` { "a" : [ 1 , 2 , { "b" : null } ] } `,
		`"\ud83d\ude00 \u00e9 \" \\ \/ \b \f \n \r \t"`,
		"\"日本語 ✓\"",
		`{"a":1,"b":2,"A1":3}`,
		deep,
	}
	for _, body := range tests {
		d, err := Parse([]byte(body))
		if err != nil {
			t.Errorf("rejected %q: %v", body, err)
			continue
		}
		if !bytes.Equal(d.Bytes(), []byte(body)) {
			t.Errorf("unchanged document not returned as is: %q", d.Bytes())
		}
	}
}

// A huge object must not make duplicate detection quadratic, and must
// still catch duplicates beyond the pairwise threshold.
func TestLargeObjectKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 50000 {
		fmt.Fprintf(&b, `"k%d":%d,`, i, i)
	}
	body := b.String()
	if _, err := Parse([]byte(body + `"last":0}`)); err != nil {
		t.Fatalf("large object rejected: %v", err)
	}
	if _, err := Parse([]byte(body + `"K49999":0}`)); err == nil || !strings.Contains(err.Error(), "differ only in case") {
		t.Fatalf("case-folded duplicate in a large object: %v", err)
	}
	if _, err := Parse([]byte(body + `"k7":0}`)); err == nil || !strings.Contains(err.Error(), "duplicate key") {
		t.Fatalf("duplicate in a large object: %v", err)
	}
	if _, err := Parse([]byte(body + `"\u006b7":0}`)); err == nil || !strings.Contains(err.Error(), "duplicate key") {
		t.Fatalf("escaped duplicate in a large object: %v", err)
	}
}

func TestAccessors(t *testing.T) {
	d, err := Parse([]byte(`{"id":7,"method":"tools/call","params":{"name":"se\u0061rch","arguments":{"email":"alice\u0040corp.com","n":[1,2,3]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := d.Int(d.Get(Root, "id")); !ok || n != 7 {
		t.Errorf("id = %d %v", n, ok)
	}
	if s, _ := d.Str(d.Path(Root, "params", "name")); s != "search" {
		t.Errorf("name = %q", s)
	}
	email := d.Path(Root, "params", "arguments", "email")
	if s, _ := d.Str(email); s != "alice@corp.com" {
		t.Errorf("escaped string decoded to %q", s)
	}
	if d.Path(Root, "params", "missing") != None || d.Get(email, "x") != None {
		t.Error("missing keys found")
	}
	arr := d.Path(Root, "params", "arguments", "n")
	if d.Kind(arr) != Array || d.Len(arr) != 3 {
		t.Errorf("array kind %v len %d", d.Kind(arr), d.Len(arr))
	}
	var keys []string
	for c := d.First(d.Path(Root, "params")); c != None; c = d.Next(c) {
		keys = append(keys, d.Key(c))
	}
	if !reflect.DeepEqual(keys, []string{"name", "arguments"}) {
		t.Errorf("keys %v", keys)
	}
}

func TestEdits(t *testing.T) {
	src := `{"content":[{"type":"text","text":"mail alice@corp.com"},{"type":"image","data":"AAA="}],"x":"\u00e9"}`
	tests := []struct {
		name string
		edit func(d *Doc)
		want string
	}{
		{"set string", func(d *Doc) {
			d.SetString(d.Path(d.First(d.Get(Root, "content")), "text"), "mail EMAIL_abc \"q\"\n")
		}, `{"content":[{"type":"text","text":"mail EMAIL_abc \"q\"\n"},{"type":"image","data":"AAA="}],"x":"\u00e9"}`},
		{"delete element", func(d *Doc) {
			c := d.Get(Root, "content")
			d.Delete(d.Next(d.First(c)))
		}, `{"content":[{"type":"text","text":"mail alice@corp.com"}],"x":"\u00e9"}`},
		{"delete first member", func(d *Doc) { d.Delete(d.Get(Root, "content")) }, `{"x":"\u00e9"}`},
		{"set raw", func(d *Doc) {
			d.SetRaw(d.Next(d.First(d.Get(Root, "content"))), []byte(`{"type":"text","text":"[image removed]"}`))
		}, `{"content":[{"type":"text","text":"mail alice@corp.com"},{"type":"text","text":"[image removed]"}],"x":"\u00e9"}`},
		{"append to array and object", func(d *Doc) {
			d.Append(d.Get(Root, "content"), "", []byte(`{"type":"text","text":"more"}`))
			d.Append(Root, "_meta", []byte(`{"k":1}`))
		}, `{"content":[{"type":"text","text":"mail alice@corp.com"},{"type":"image","data":"AAA="},{"type":"text","text":"more"}],"x":"\u00e9","_meta":{"k":1}}`},
		{"append to emptied array", func(d *Doc) {
			c := d.Get(Root, "content")
			d.Delete(d.First(c))
			d.Delete(d.First(c))
			d.Append(c, "", []byte(`1`))
		}, `{"content":[1],"x":"\u00e9"}`},
	}
	// Untouched values are copied as received ("x" keeps its escape);
	// edited ones are written canonically.
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			tc.edit(d)
			got := d.Bytes()
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if _, err := Parse(got); err != nil {
				t.Errorf("output does not parse strictly: %v", err)
			}
		})
	}
}

func TestAppendString(t *testing.T) {
	tests := map[string]string{
		"plain":          `"plain"`,
		"q\"b\\s/":       `"q\"b\\s/"`,
		"\x00\x1f\t\n\r": `"\u0000\u001f\t\n\r"`,
		"<&>":            `"<&>"`,
		"\u2028\u2029":   `"\u2028\u2029"`,
		"bad \xff utf8":  "\"bad \ufffd utf8\"",
		"é😀":             "\"é😀\"",
		"a longer plain string, then \"quoted\" and a tab\t and \u2028 and \xc3 and é at odd places": "\"a longer plain string, then \\\"quoted\\\" and a tab\\t and \\u2028 and \ufffd and é at odd places\"",
	}
	for in, want := range tests {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
		var back string
		if err := json.Unmarshal([]byte(Quote(in)), &back); err != nil {
			t.Errorf("Quote(%q) is not JSON: %v", in, err)
		}
	}
}

// AppendString writes what it wrote when it went byte by byte.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "q\"b\\s/", "\x00\x1f\t\n\r", "\u2028\u2029 x", "bad \xff utf8", "é😀 and more text to pass a word"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := AppendString([]byte("x"), s), refAppendString([]byte("x"), s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
	})
}

// Anything Parse accepts, encoding/json accepts and decodes to the same
// value; the canonical serialization parses back to the same value too.
// Parse builds the same nodes, and fails with the same error at the same
// offset, as the recursive reference parser.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{}}}`,
		`[{"a":1},{"b":[true,false,null]}]`, `"\ud83d\ude00"`, `{"a":1,"A":2}`, `{"a":"\u0041"}`,
		`1e5`, `-0.0`, "\"\xff\"", `{"a":{"b":{"c":[[[]]]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		matchesReference(t, body)
		d, err := Parse(body)
		if err != nil {
			return
		}
		// Independently of the parser's own key checks (which the
		// reference shares): nothing accepted has invalid UTF-8 or two
		// keys of one object equal under case folding.
		if !utf8.Valid(body) {
			t.Fatalf("accepted invalid UTF-8: %q", body)
		}
		noFoldedDuplicates(t, body)
		if !json.Valid(body) {
			t.Fatalf("Parse accepted what encoding/json rejects: %q", body)
		}
		var want any
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatal(err)
		}
		if fresh, err := Parse(body); err == nil {
			getMatchesReference(t, fresh) // it edits the document
			// A released array (flags set by the edits, a longer body's
			// nodes past the end) parses the body again to the same nodes.
			fresh.Release()
			if fresh.Kind(Root) != Invalid {
				t.Fatal("a released document still has a root")
			}
			again, err := Parse(body)
			if err != nil || !slices.Equal(again.nodes, d.nodes) {
				t.Fatalf("parsed again into a released array: %v, nodes differ: %v", err, !slices.Equal(again.nodes, d.nodes))
			}
			again.Release()
		}
		// Force a re-serialization by touching a string, if there is one.
		for i := range d.nodes {
			if d.nodes[i].kind == String {
				s, _ := d.Str(int32(i))
				d.SetString(int32(i), s)
				break
			}
		}
		out := d.Bytes()
		var got any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("serialization %q is not JSON: %v", out, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip changed the value:\n in  %q\n out %q", body, out)
		}
		// Every string decodes as encoding/json decodes it.
		for i := range d.nodes {
			if d.nodes[i].kind == String && d.nodes[i].flags&replaced == 0 {
				var want string
				if err := json.Unmarshal(d.Raw(int32(i)), &want); err != nil {
					t.Fatal(err)
				}
				if s, _ := d.Str(int32(i)); s != want {
					t.Fatalf("Str(%s) = %q, want %q", d.Raw(int32(i)), s, want)
				}
			}
			if v, ok := d.StrView(int32(i)); ok != (d.nodes[i].kind == String) {
				t.Fatalf("StrView(%s) ok = %v", d.Raw(int32(i)), ok)
			} else if s, _ := d.Str(int32(i)); v != s {
				t.Fatalf("StrView(%s) = %q, Str %q", d.Raw(int32(i)), v, s)
			}
			if v, want := d.ValueString(int32(i)), string(d.AppendValue(nil, int32(i))); v != want {
				t.Fatalf("ValueString = %q, AppendValue %q", v, want)
			}
		}
		if _, err := Parse(out); err != nil {
			t.Fatalf("serialization %q does not parse strictly: %v", out, err)
		}
	})
}

func BenchmarkParseToolsCall(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"search_customers","arguments":{"query":"alice","limit":10,"filters":{"country":"DE","active":true,"tags":["vip","eu"]}},"_meta":{"progressToken":"abc-123"}}}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := Parse(body)
		if err != nil {
			b.Fatal(err)
		}
		_ = d.Path(Root, "params", "name")
	}
}

func TestAmbiguous(t *testing.T) {
	tests := map[string]bool{
		`{"a":1,"a":2}`:                 true,
		`{"a":1,"A":2}`:                 true,
		"\"\xff\"":                      true,
		`"\ud800"`:                      true,
		`{} x`:                          true,
		strings.Repeat("[", MaxDepth+1): true,
		`{"a":}`:                        false,
		`nope`:                          false,
		`{"a":1`:                        false,
	}
	for body, want := range tests {
		_, err := Parse([]byte(body))
		se, ok := err.(*SyntaxError)
		if !ok {
			t.Fatalf("%q: error %v is not a *SyntaxError", body, err)
		}
		if se.Ambiguous != want {
			t.Errorf("%q: Ambiguous = %v, want %v (%v)", body, se.Ambiguous, want, err)
		}
	}
}

// Bytes copies untouched subtrees as received and re-serializes only the
// path to each edit.
func TestBytesCopiesUntouchedSubtrees(t *testing.T) {
	src := `{"a": {"x" : [1, 2.50, "\u0041"]}, "b": [ {"k": "v"}, {"k": "w"} ]}`
	d, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d.Delete(d.First(d.Get(Root, "b")))
	want := `{"a":{"x" : [1, 2.50, "\u0041"]},"b":[{"k": "w"}]}`
	if got := string(d.Bytes()); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// BenchmarkParseInputs parses the bodies the plugin benchmarks carry: a
// 500-tool tools/list result, the 1 KB tool result, and the events of a
// notification stream (long text strings).
func BenchmarkParseInputs(b *testing.B) {
	stream, _ := benchdata.EventStream()
	var events [][]byte
	for _, line := range bytes.Split(stream, []byte("\n")) {
		if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			events = append(events, data)
		}
	}
	inputs := []struct {
		name   string
		bodies [][]byte
	}{
		{"list500", [][]byte{benchdata.ToolsList()}},
		{"result1KB", [][]byte{[]byte(benchdata.ToolResult1KB)}},
		{"events", events},
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			size := 0
			for _, body := range in.bodies {
				size += len(body)
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for _, body := range in.bodies {
					if _, err := Parse(body); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// matchesReference fails t unless Parse and refParse agree on body.
func matchesReference(t *testing.T, body []byte) {
	t.Helper()
	d, err := Parse(body)
	rd, rerr := refParse(body)
	if (err == nil) != (rerr == nil) {
		t.Fatalf("%q: Parse error %v, reference error %v", body, err, rerr)
	}
	if err != nil {
		se, rse := err.(*SyntaxError), rerr.(*SyntaxError)
		if *se != *rse {
			t.Fatalf("%q: Parse error %+v, reference error %+v", body, *se, *rse)
		}
		return
	}
	if !slices.Equal(d.nodes, rd.nodes) {
		t.Fatalf("%q: nodes differ\n got  %+v\n want %+v", body, d.nodes, rd.nodes)
	}
}

// Every prefix, and every single-byte change, of a set of bodies that
// reach every branch of the grammar parses as the reference parses it.
func TestParseMatchesReference(t *testing.T) {
	bodies := []string{
		benchdata.ToolCallRequest, benchdata.ToolResult1KB,
		` { "a" : [ 1 , -2.5e3 , true , false , null , "x\\n\\u00e9\\ud83d\\ude00" ] , "b" : { } , "c" : [ ] } `,
		`{"k\\u0041":"caf\xc3\xa9","K\\u0061":1}`, "\"\xff\"", `"\\ud800"`, `[01]`, `1.`, `1e`, `-`, `tru`,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"A":18}`,
		strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), strings.Repeat("[", MaxDepth+1),
	}
	for _, body := range bodies {
		for i := 0; i <= len(body); i++ {
			matchesReference(t, []byte(body[:i]))
		}
		for i := 0; i < len(body); i++ {
			for _, c := range []byte{' ', '"', '\\', ',', ':', '}', ']', '{', '[', '0', 'e', 0x01, 0x80, 0xe9} {
				b := []byte(body)
				b[i] = c
				matchesReference(t, b)
			}
		}
	}
}

// The members of MCP's usual objects get distinct bits in keyBits, so a
// message's keys are not compared pairwise (a cost, not a result: a
// collision only makes the parse slower).
func TestKeyBitsOfMCPObjects(t *testing.T) {
	for _, keys := range [][]string{
		{"jsonrpc", "id", "method", "params"}, {"jsonrpc", "id", "result", "error"}, {"code", "message", "data"},
		{"name", "arguments", "_meta", "task"}, {"tools", "nextCursor"}, {"content", "structuredContent", "isError"},
		{"name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta", "icons", "execution"},
		{"type", "properties", "required", "$schema", "additionalProperties"},
		{"type", "description", "enum", "default", "items", "format", "title"},
		{"uri", "name", "title", "description", "mimeType", "size", "annotations"},
	} {
		var seen uint64
		for _, k := range keys {
			bit := uint64(1) << keyBit([]byte(k))
			if seen&bit != 0 {
				t.Errorf("%s shares its bit with an earlier key of %v", k, keys)
			}
			seen |= bit
		}
	}
}

// Keys equal, or equal under case folding, to an earlier key are found
// whatever their spelling and wherever they are: keyBits only lets keys
// that cannot repeat one skip the comparison.
func TestDuplicateKeysFound(t *testing.T) {
	many := ""
	for i := range 40 {
		many += fmt.Sprintf(`"key%d":%d,`, i, i)
	}
	for _, body := range []string{
		`{"a":1,"a":2}`, `{"ab":1,"AB":2}`, `{"a":1,"\u0061":2}`, `{"\u0061":1,"a":2}`, `{"\u0041":1,"a":2}`,
		`{"k":1,"\u212a":2}`, `{"\u212a":1,"k":2}`, "{\"k\":1,\"\u212a\":2}", "{\"\u212a\":1,\"K\":2}",
		`{"x":{"a":1},"y":{"b":1,"c":2,"B":3}}`, `{"a":[{"z":1,"Z":2}]}`,
		"{" + many + `"KEY7":1}`, "{" + many + `"key39":1}`, "{" + many + `"\u006bey0":1}`,
		`{"":1,"":2}`,
	} {
		if _, err := Parse([]byte(body)); err == nil || !strings.Contains(err.Error(), "key") {
			t.Errorf("%s: error %v, want a duplicate key", body, err)
		}
		matchesReference(t, []byte(body))
	}
	for _, body := range []string{`{"ab":1,"ba":2,"aB ":3}`, "{" + many + `"key40":1}`, `{"a":{"a":{"a":1}},"b":{"a":2}}`} {
		if _, err := Parse([]byte(body)); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
}

// plainEnd stops exactly where a byte-by-byte scan stops, for every byte
// value at every position of a word and in the tail.
func TestPlainEnd(t *testing.T) {
	for n := 0; n <= 20; n++ {
		for pos := 0; pos < n; pos++ {
			for c := 0; c < 256; c++ {
				b := bytes.Repeat([]byte{'a'}, n)
				b[pos] = byte(c)
				want := n
				for i, x := range b {
					if x < 0x20 || x == '"' || x == '\\' || x >= 0x80 {
						want = i
						break
					}
				}
				if got := plainEnd(b, 0); got != want {
					t.Fatalf("plainEnd(%q) = %d, want %d", b, got, want)
				}
			}
		}
	}
}

// noFoldedDuplicates fails t if an object in body has two keys equal under
// Unicode case folding, read with encoding/json's tokenizer.
func noFoldedDuplicates(t *testing.T, body []byte) {
	t.Helper()
	type frame struct {
		object, wantKey bool
		keys            []string
	}
	var stack []frame
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := dec.Token()
		if err != nil {
			return // end of input (Parse accepted it, so nothing else)
		}
		top := len(stack) - 1
		if delim, ok := tok.(json.Delim); ok {
			switch delim {
			case '{', '[':
				if top >= 0 && stack[top].object {
					stack[top].wantKey = true
				}
				stack = append(stack, frame{object: delim == '{', wantKey: delim == '{'})
			default:
				stack = stack[:top]
			}
			continue
		}
		if top < 0 || !stack[top].object {
			continue
		}
		if !stack[top].wantKey {
			stack[top].wantKey = true // a value
			continue
		}
		key := tok.(string)
		for _, k := range stack[top].keys {
			if strings.EqualFold(k, key) {
				t.Fatalf("accepted keys %q and %q in one object: %q", k, key, body)
			}
		}
		stack[top].keys = append(stack[top].keys, key)
		stack[top].wantKey = false
	}
}

// GetMany finds what Get finds for each key, in one pass, escaped keys
// too, and None for keys absent or on a value that is no object.
func TestGetMany(t *testing.T) {
	d, err := Parse([]byte(`{"name":"x","_m\u0065ta":{"a":1},"arguments":[],"z":null}`))
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"name", "missing", "_meta", "arguments", "z"}
	for _, n := range []int32{Root, d.Get(Root, "arguments"), None} {
		found := make([]int32, len(keys))
		d.GetMany(n, keys, found)
		for i, k := range keys {
			if want := d.Get(n, k); found[i] != want {
				t.Errorf("node %d, %q: GetMany %d, Get %d", n, k, found[i], want)
			}
		}
	}
	found := []int32{0}
	if d.GetMany(Root, []string{"_meta"}, found); d.Kind(found[0]) != Object {
		t.Errorf("escaped key not found: %d", found[0])
	}
}

// getMatchesReference checks Get and GetMany against a plain search of
// each object's live members by Key, for every member's name and names
// near them, before and after deleting and renaming members.
func getMatchesReference(t *testing.T, d *Doc) {
	t.Helper()
	refGet := func(n int32, key string) int32 {
		if d.Kind(n) != Object {
			return None
		}
		for c := d.First(n); c != None; c = d.Next(c) {
			if d.Key(c) == key {
				return c
			}
		}
		return None
	}
	check := func() {
		for i := range d.nodes {
			n := int32(i)
			if d.Kind(n) != Object {
				continue
			}
			keys := []string{"", "x"}
			for c := n + 1; c < d.nodes[n].after; c = d.nodes[c].after {
				k := d.Key(c)
				keys = append(keys, k, k+"x", strings.ToUpper(k))
				if k != "" {
					keys = append(keys, k[1:], k[:len(k)-1])
				}
			}
			found := make([]int32, len(keys))
			d.GetMany(n, keys, found)
			for i, k := range keys {
				want := refGet(n, k)
				if got := d.Get(n, k); got != want {
					t.Fatalf("Get(%d, %q) = %d, want %d", n, k, got, want)
				}
				if slices.Index(keys, k) == i && found[i] != want {
					t.Fatalf("GetMany(%d, %q) = %d, want %d", n, k, found[i], want)
				}
			}
		}
	}
	check()
	// Delete every third member and rename every other one.
	for i := range d.nodes {
		n := int32(i)
		if d.Kind(n) != Object {
			continue
		}
		j := 0
		for c := n + 1; c < d.nodes[n].after; c = d.nodes[c].after {
			switch j % 3 {
			case 0:
				d.Delete(c)
			case 1:
				d.SetKey(c, d.Key(c)+"\u0000renamed")
			}
			j++
		}
	}
	check()
}

// A document's replacements live in the Doc (the first inlineEdits), in a
// slice (up to maxEdits) and in a map (past it): each node reads back its
// own, the last one set wins, and a string replaced by raw JSON (or raw
// JSON by a string) is written as the last set.
func TestEditsKeptApart(t *testing.T) {
	for _, n := range []int{1, inlineEdits, inlineEdits + 1, 100, maxEdits + 10} {
		var src strings.Builder
		src.WriteByte('[')
		for i := range n {
			if i > 0 {
				src.WriteByte(',')
			}
			src.WriteString(`"v"`)
		}
		src.WriteByte(']')
		d, err := Parse([]byte(src.String()))
		if err != nil {
			t.Fatal(err)
		}
		want := make([]any, n)
		i := 0
		for c := d.First(Root); c != None; c = d.Next(c) {
			switch i % 3 {
			case 0:
				d.SetString(c, fmt.Sprint("s", i))
				want[i] = fmt.Sprint("s", i)
			case 1:
				d.SetRaw(c, []byte(fmt.Sprint(i)))
				want[i] = float64(i)
			case 2: // set twice, the other kind first
				d.SetRaw(c, []byte(`null`))
				d.SetString(c, fmt.Sprint("t", i))
				want[i] = fmt.Sprint("t", i)
			}
			i++
		}
		// Set again, after every other: the first node's last value wins.
		d.SetRaw(d.First(Root), []byte(`true`))
		want[0] = true
		var got []any
		if err := json.Unmarshal(d.Bytes(), &got); err != nil {
			t.Fatalf("%d edits: %v", n, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%d edits: got %.200v\nwant %.200v", n, got, want)
		}
		if n > 2 {
			if s, ok := d.Str(d.Next(d.Next(d.First(Root)))); s != "t2" || !ok {
				t.Errorf("%d edits: Str of the third: %q %v", n, s, ok)
			}
		}
		if _, ok := d.Str(d.First(Root)); ok {
			t.Errorf("%d edits: Str of raw JSON reads as a string", n)
		}
	}
}

// decodeString reads eight bytes at a time between escapes: every escape
// at every offset from a word's start, runs of plain bytes of every
// length, decode as encoding/json decodes them.
func TestDecodeString(t *testing.T) {
	escapes := []string{`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0041`, `\u00e9`, `\u20ac`, `\ud83d\ude00`, `é`, `€`}
	for _, esc := range escapes {
		for pre := range 18 {
			for post := range 10 {
				q := `"` + strings.Repeat("a", pre) + esc + strings.Repeat("b", post) + esc + `"`
				var want string
				if err := json.Unmarshal([]byte(q), &want); err != nil {
					t.Fatal(err)
				}
				if got := decodeString([]byte(q)); got != want {
					t.Fatalf("decodeString(%s) = %q, want %q", q, got, want)
				}
			}
		}
	}
	if got := decodeString([]byte(`""`)); got != "" {
		t.Errorf("empty: %q", got)
	}
}

// FuzzDecodeString: any string written as JSON (by AppendString, and with
// every third ASCII byte escaped as \u00XX) decodes as
// encoding/json decodes it.
func FuzzDecodeString(f *testing.F) {
	for _, s := range []string{"", `{"a":"b \"c\" d"}`, "tab\there\nline é€ \u2028", strings.Repeat(`\"x`, 9)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // the parser refuses it before anything is decoded
		}
		escaped := []byte{'"'}
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x80 && (i%3 == 0 || c < 0x20 || c == '"' || c == '\\') {
				escaped = append(escaped, `\u00`...)
				escaped = append(escaped, hexDigits[c>>4], hexDigits[c&0xF])
			} else {
				escaped = append(escaped, c)
			}
		}
		escaped = append(escaped, '"')
		for _, q := range [][]byte{AppendString(nil, s), escaped} {
			var want string
			if err := json.Unmarshal(q, &want); err != nil {
				t.Fatal(err)
			}
			if got := decodeString(q); got != want {
				t.Fatalf("decodeString(%s) = %q, want %q", q, got, want)
			}
		}
	})
}
