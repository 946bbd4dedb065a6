package transforms

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

// Base64 that carries text is read: what it says is transformed like any
// text and encoded again; declared text that cannot be read is withheld;
// real binary data passes (issue 12: base64 image data and blobs that
// decode to text came out raw).
func TestBase64TextPayloads(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [redact]}`)
	pl := compileOutput(t, e, p)
	b64 := base64.StdEncoding.EncodeToString
	long := strings.Repeat("row without data, ", 100) + "owner alice@example.com"
	wrapped := b64([]byte(long))
	var lines []string
	for len(wrapped) > 76 {
		lines, wrapped = append(lines, wrapped[:76]), wrapped[76:]
	}
	wrapped = strings.Join(append(lines, wrapped), "\r\n")
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR alice@example.com"
	cases := []struct {
		name, payload string
		kind          Payload
		path          []string // to the base64 string in the result, "" = dropped
		want          string   // decoded text after the pipeline
	}{
		{"image data holding text", `{"content":[{"type":"image","mimeType":"image/png","data":"` + b64([]byte("mail alice@example.com")) + `"}]}`,
			ToolResult, []string{"content", "0", "data"}, "mail [REDACTED:EMAIL]"},
		{"audio data holding text", `{"content":[{"type":"audio","mimeType":"audio/wav","data":"` + b64([]byte("card 4111 1111 1111 1111")) + `"}]}`,
			ToolResult, []string{"content", "0", "data"}, "card [REDACTED:CREDIT_CARD]"},
		{"embedded resource blob", `{"content":[{"type":"resource","resource":{"uri":"file:///a.csv","mimeType":"text/csv","blob":"` + b64([]byte("name,email\nA,alice@example.com\n")) + `"}}]}`,
			ToolResult, []string{"content", "0", "resource", "blob"}, "name,email\nA,[REDACTED:EMAIL]\n"},
		{"resources/read blob", `{"contents":[{"uri":"file:///a.json","mimeType":"application/json","blob":"` + b64([]byte(`{"ssn":"078-05-1120"}`)) + `"}]}`,
			ResourceContents, []string{"contents", "0", "blob"}, `{"ssn":"[REDACTED:US_SSN]"}`},
		{"URL alphabet without padding", `{"contents":[{"uri":"x:a","blob":"` + base64.RawURLEncoding.EncodeToString([]byte("ÿÿ? alice@example.com")) + `"}]}`,
			ResourceContents, []string{"contents", "0", "blob"}, "ÿÿ? [REDACTED:EMAIL]"},
		{"line-wrapped, longer than the first look", `{"contents":[{"uri":"x:a","blob":"` + jsonEsc(wrapped) + `"}]}`,
			ResourceContents, []string{"contents", "0", "blob"}, strings.Repeat("row without data, ", 100) + "owner [REDACTED:EMAIL]"},
		{"real binary passes", `{"content":[{"type":"image","mimeType":"image/png","data":"` + b64([]byte(png)) + `"}]}`,
			ToolResult, []string{"content", "0", "data"}, png},
		{"declared text that is not UTF-8 is withheld", `{"contents":[{"uri":"x:a","mimeType":"text/plain; charset=latin1","blob":"` + b64([]byte("caf\xe9 alice@example.com")) + `"}]}`,
			ResourceContents, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := jsondoc.Parse([]byte(c.payload))
			if err != nil {
				t.Fatal(err)
			}
			e.Apply(pl, doc, jsondoc.Root, c.kind, &Run{})
			if c.path == nil {
				out := string(doc.Bytes())
				if strings.Contains(out, `"blob":`) || !strings.Contains(out, "withheld by privacy policy") {
					t.Fatalf("not withheld: %s", out)
				}
				return
			}
			n := jsondoc.Root
			for _, k := range c.path {
				if k == "0" {
					n = doc.First(n)
				} else {
					n = doc.Get(n, k)
				}
			}
			s, _ := doc.Str(n)
			got, err := base64.StdEncoding.DecodeString(s)
			if err != nil && c.want != png {
				t.Fatalf("not base64 after the pipeline: %q", s)
			}
			if c.want == png {
				got = []byte(c.want)
				if s != b64([]byte(png)) {
					t.Fatalf("binary data changed: %q", s)
				}
			}
			if string(got) != c.want {
				t.Errorf("decoded %q, want %q", got, c.want)
			}
		})
	}
}

func jsonEsc(s string) string { q := jsondoc.Quote(s); return q[1 : len(q)-1] }

// A block step fires on a secret carried as base64.
func TestBase64SecretBlocks(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [{type: block, options: {detectors: ["@secrets"]}}]}`)
	doc, _ := jsondoc.Parse([]byte(`{"content":[{"type":"image","mimeType":"image/png","data":"` + base64.StdEncoding.EncodeToString([]byte("key AKIAYPKZVCGCKMHTXPVQ")) + `"}]}`))
	run := &Run{}
	e.Apply(compileOutput(t, e, p), doc, jsondoc.Root, ToolResult, run)
	if !run.Blocked {
		t.Error("not blocked")
	}
}
