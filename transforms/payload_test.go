package transforms

import (
	"bytes"
	"encoding/base64"
	"reflect"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/benchdata"
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

// walkSeeds are documents for FuzzDocumentWalk: a slice of the benchmark's
// tool list, and the places where the walk's shortcuts decide (names,
// enumerations, data: URIs, base64 words, escapes, numbers).
func walkSeeds() []string {
	list := string(benchdata.ToolsList())
	start := strings.Index(list, `"result":`) + len(`"result":`)
	cut := start // the first eight tools
	for range 9 {
		cut += strings.Index(list[cut+1:], `{"name":"`) + 1
	}
	return []string{
		list[start:cut-1] + `],"nextCursor":"page-2"}`,
		`{"tools":[{"name":"summarize_customer","title":"alice@example.com","inputSchema":{"type":"object","properties":{"bob@example.com":{"type":"strin","description":"call +1 415 555 0100"}},"required":["alice@example.com","summarize_customer"]},"annotations":{"title":"t","readOnlyHint":true,"x":null}}]}`,
		`{"tools":[{"name":"aGVsbG8gd29ybGQsIGFsaWNlQGV4YW1wbGUuY29t","icons":[{"src":"data:text/plain;base64,YWxpY2VAZXhhbXBsZS5jb20=","mimeType":"image/png","theme":"dark"}],"description":"YWxpY2VAZXhhbXBsZS5jb20gd3JvdGUgdGhpcw=="}],"nextCursor":"YWxpY2VAZXhhbXBsZS5jb20="}`,
		`{"content":[{"type":"text","text":"{\"a\":\"bob@example.com\"}"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"structuredContent":{"a\u0062":"b\u006fb@example.com","n":4111111111111111,"m":[12,"x",{"y":"4111 1111 1111 1111"}]},"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"alice@example.com"}}}`,
		`{"messages":[{"role":"user","content":{"type":"text","text":"ssn 078-05-1120"}}],"description":"data:x","resultType":"complete","ttlMs":5}`,
		`{"method":"elicitation/create","params":{"mode":"form","requestedSchema":{"type":"object","properties":{"email":{"type":"string","format":"email","default":"carol@example.com"}}},"message":"hi"}}`,
	}
}

// FuzzDocumentWalk: a walk without fields reads each object's members in
// its loop (docWalk.object), a walk with fields node by node (visit). The
// same steps with an exclude_fields that reaches nothing take the second
// path: every payload must come out the same, with the same counts, with
// and without deleted members.
func FuzzDocumentWalk(f *testing.F) {
	for _, seed := range walkSeeds() {
		f.Add([]byte(seed), uint8(0))
		f.Add([]byte(seed), uint8(3))
	}
	var pairs [][2]*Pipeline
	var engines []*Engine
	for _, steps := range [][2]string{
		{`{type: redact, options: {detectors: ["@secrets"]}}, {type: pseudonymise, options: {detectors: ["@pii"]}}`,
			`{type: redact, options: {detectors: ["@secrets"], exclude_fields: ["zz_nowhere"]}}, {type: pseudonymise, options: {detectors: ["@pii"]}}`},
		{`detect, {type: mask, options: {detectors: [email]}}, {type: truncate, options: {max_chars: 12}}, annotate`,
			`detect, {type: mask, options: {detectors: [email], exclude_fields: ["zz_nowhere"]}}, {type: truncate, options: {max_chars: 12}}, annotate`},
		{`{type: block, options: {detectors: [us_ssn]}}, hash`,
			`{type: block, options: {detectors: [us_ssn], exclude_fields: ["zz_nowhere"]}}, hash`},
	} {
		var pair [2]*Pipeline
		var e *Engine
		for i, s := range steps {
			eng, p, _ := engineFor(f, `{name: p, transforms: [`+s+`]}`)
			if i == 0 {
				e = eng
			}
			pl, err := e.Compile(p.OutputPipeline(nil, nil))
			if err != nil {
				f.Fatal(err)
			}
			pair[i] = pl
		}
		if pair[0].runs[0].scoped || !pair[1].runs[0].scoped {
			f.Fatal("the pair does not take both paths")
		}
		pairs, engines = append(pairs, pair), append(engines, e)
	}
	f.Fuzz(func(t *testing.T, data []byte, every uint8) {
		for k, pair := range pairs {
			for kind := Payload(0); kind < numPayloads; kind++ {
				var out [2]string
				var runs [2]Run
				for i, pl := range pair {
					doc, err := jsondoc.Parse(data)
					if err != nil {
						return
					}
					if every > 0 {
						deleteEvery(doc, jsondoc.Root, int(every%8)+2)
					}
					engines[k].Apply(pl, doc, jsondoc.Root, kind, &runs[i])
					out[i] = string(doc.Bytes())
				}
				if out[0] != out[1] || !reflect.DeepEqual(runs[0], runs[1]) {
					t.Fatalf("pipeline %d, payload %d: by members\n%s\n%+v\nby nodes\n%s\n%+v", k, kind, out[0], runs[0], out[1], runs[1])
				}
			}
		}
	})
}

// deleteEvery deletes every nth child of every container under n, as
// filterList deletes the tools a caller may not see.
func deleteEvery(d *jsondoc.Doc, n int32, nth int) {
	i := 0
	for c := d.First(n); c != jsondoc.None; c = d.Next(c) {
		if i++; i%nth == 0 {
			d.Delete(c)
			continue
		}
		deleteEvery(d, c, nth)
	}
}

func TestNotBase64Text(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"summarize_customer", true},   // 's' decodes to a continuation byte
		{"AAAAAAAAAAAAAAAAAAAA", true}, // NUL bytes
		{base64.StdEncoding.EncodeToString([]byte("alice@example.com wrote this")), false},
		{base64.RawURLEncoding.EncodeToString([]byte("héllo wörld, plain text")), false},
		{"aGVsbG8gd29ybGQsIGFsaWNlQGV4YW1wbGUuY29t", false},
		{"aGVs\nbG8gd29ybGQsIGFsaWNl", false}, // a line break in the head
		{"aGVsbG8=", false},                   // padding: what precedes it decides
		{"a\n\n\nbcdefghijklmnopq", false},    // a head of one character in a quantum: cannot tell
	} {
		if got := notBase64Text([]byte(c.s)); got != c.want {
			t.Errorf("notBase64Text(%q) = %v, want %v", c.s, got, c.want)
		}
		if c.want {
			if _, ok := base64Text(c.s); ok {
				t.Errorf("%q is base64 of text", c.s)
			}
		}
	}
}

// FuzzNotBase64Text: notBase64Text never rules out a base64 word that
// base64Text reads as text.
func FuzzNotBase64Text(f *testing.F) {
	for _, s := range []string{"summarize_customer", "aGVsbG8gd29ybGQsIGFsaWNlQGV4YW1wbGUuY29t", "aGVs\nbG8gd29ybGQsIGFsaWNl",
		"w6l0w6kgw6AgUGFyaXM=", "8J+YgCBzbWlsZSBwbGVhc2U", "4oKsIDEwMCBldXJvcyBwYXllZA-_"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !base64Word(raw) || !notBase64Text(raw) {
			return
		}
		if text, ok := base64Text(string(raw)); ok {
			t.Fatalf("%q ruled out, but it is base64 of %q", raw, text)
		}
	})
}

// readingReference is readingAt as it was before the table of readings:
// the oracle of TestReadings.
func readingReference(raw []byte, sh shape, separate bool) reading {
	switch sh {
	case shOwn, shEnvID, shOpaque:
		return readNone
	case shID:
		return readFindings
	case shBinary:
		return readNone
	case shSepText, shSepStructured:
		if separate {
			return readNone
		}
		return readText
	case shIconSrc, shMime, shProtocolVersion:
	default:
		if tokens[sh] == nil {
			return readText
		}
	}
	switch sh {
	case shIconSrc:
		if bytes.HasPrefix(raw, []byte("data:")) && bytes.Contains(raw, []byte(";base64,")) {
			return readInline
		}
		return readText
	case shMime:
		if mimeToken(raw) {
			return readFindings
		}
		return readText
	case shProtocolVersion:
		if isDate(raw) {
			return readNone
		}
		return readText
	}
	for _, t := range tokens[sh] {
		if string(raw) == t {
			return readNone
		}
	}
	return readText
}

// TestReadings: readingAt, through its table, reads every shape's strings
// as the plain switch does.
func TestReadings(t *testing.T) {
	values := []string{"", "text", "object", "objec", "objects", "string", "user", "assistant", "data:image/png;base64,AAAA",
		"image/png", "Image/PNG", "2025-06-18", "2025-6-18", "elicitation/create", "input_required", "task", "x\u00e9", `a\"b`}
	for sh := range shape(numShapes) {
		for _, v := range append(values, tokens[sh]...) {
			doc, err := jsondoc.Parse([]byte(jsondoc.Quote(v)))
			if err != nil {
				t.Fatal(err)
			}
			for _, separate := range []bool{false, true} {
				if got, want := readingAt(doc, jsondoc.Root, sh, separate), readingReference([]byte(v), sh, separate); got != want {
					t.Errorf("shape %d, separate %v, %q: %d, want %d", sh, separate, v, got, want)
				}
			}
		}
	}
}
