package uritemplate

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	rfc6570 "github.com/yosida95/uritemplate/v3"
)

func TestMatchReadings(t *testing.T) {
	tests := []struct {
		template, uri string
		strict, loose bool
	}{
		{"customers://{id}/profile", "customers://c-1/profile", true, true},
		// The case: TS v1/v2 read {id} as [^/,]+, Python as [^/]+.
		{"customers://{id}/profile", "customers://c-1@x/profile", false, true},
		{"customers://{id}/profile", "customers://alice%40example.com/profile", true, true},
		{"customers://{id}/profile", "customers://a/b/profile", false, false},
		{"files://{+path}", "files://a/b@c?d", true, true},
		{"files://{+path}", "files://a b", false, true}, // TS .+
		{"doc://x{#frag}", "doc://x#a/b", true, true},
		{"doc://x{#frag}", "doc://xa/b", false, true}, // TS: no "#"
		{"f://x{.ext}", "f://x.tar.gz", true, true},
		{"f://x{.ext}", "f://x.a@b", false, true},
		{"f://r{/seg}", "f://r/a", true, true},
		{"f://r{/seg}", "f://r/a/b", false, false},
		{"f://r{/seg*}", "f://r/a/b", true, true},
		{"f://r{/seg}", "f://r/a:b", false, true}, // Python /[^/?#]*
		{"m://x{;p}", "m://x;p=1", true, true},
		{"m://x{;p}", "m://xanything", false, true}, // TS [^/]+, no ";"
		{"q://x{?a,b}", "q://x?a=1&b=2", true, true},
		{"q://x{?a,b}", "q://x?b=@&a=/", false, true}, // Python: any order
		{"q://x{?a}", "q://x#frag", false, true},      // Python strips it
		{"q://x{?a}", "q://xy", false, false},
		{"q://x{&a}", "q://x&a=1", true, true},
		// Python 1.x: a literal "." matches any character.
		{"n://{name}.txt", "n://aXtxt", false, true},
		{"n://{+name}.txt", "n://aXtxt", false, false},
	}
	for _, tt := range tests {
		tmpl, err := Parse(tt.template)
		if err != nil {
			t.Fatalf("%s: %v", tt.template, err)
		}
		if got := tmpl.Match(tt.uri, Strict); got != tt.strict {
			t.Errorf("%s strict %q = %v, want %v", tt.template, tt.uri, got, tt.strict)
		}
		if got := tmpl.Match(tt.uri, Loose); got != tt.loose {
			t.Errorf("%s loose %q = %v, want %v", tt.template, tt.uri, got, tt.loose)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, text := range []string{"plain://x", "x://{", "x://{a b}", "x://{=a}", "x://{a:0}"} {
		if _, err := Parse(text); err == nil {
			t.Errorf("Parse(%q) accepted", text)
		}
	}
}

func TestSpans(t *testing.T) {
	tmpl, err := Parse("customers://{id}/orders{/n}{?q,r}")
	if err != nil {
		t.Fatal(err)
	}
	uri := "customers://c%401/orders/7?q=a&r=b"
	spans, ok := tmpl.Spans(uri, Strict, nil)
	if !ok || len(spans) != 3 {
		t.Fatalf("spans %v %v", spans, ok)
	}
	want := []string{"c%401", "/7", "?q=a&r=b"}
	for i, sp := range spans {
		if got := uri[sp.Start:sp.End]; got != want[i] || sp.Expr != i {
			t.Errorf("span %d = %q (expr %d), want %q", i, got, sp.Expr, want[i])
		}
	}
}

func TestEncode(t *testing.T) {
	tests := []struct {
		op          Op
		value, want string
	}{
		{0, "alice@example.com", "alice%40example.com"},
		{0, "plain-1.2_~", "plain-1.2_~"},
		{0, "a b/c", "a%20b%2Fc"},
		{0, "é", "%C3%A9"},
		{'+', "a/b@c?d", "a/b@c?d"},
		{'+', "a b", "a%20b"},
		{'+', "50%25 off%", "50%25%20off%25"}, // triplets kept, a lone % not
		{'#', "a/b", "a/b"},
		{'.', "a.b@c", "a.b%40c"},
		{'/', "a/b", "a%2Fb"},
		{';', "a;b", "a%3Bb"},
		{'?', "a&b=c", "a%26b%3Dc"},
		{'&', "x y", "x%20y"},
	}
	for _, tt := range tests {
		if got := Encode(tt.op, tt.value); got != tt.want {
			t.Errorf("Encode(%q, %q) = %q, want %q", tt.op, tt.value, got, tt.want)
		}
	}
}

// FuzzStrictIsGoSDK: the Strict reading accepts exactly what go-sdk's
// matcher (yosida95/uritemplate's Regexp) accepts, and Loose accepts at
// least that.
func FuzzStrictIsGoSDK(f *testing.F) {
	for _, s := range [][2]string{
		{"customers://{id}/profile", "customers://c-1@x/profile"},
		{"f://r{/seg*}{?q,r}", "f://r/a/b?q=1&r=2"},
		{"x{;a,b*}{.c:3}{#d}", "x;a=1;b=2.c#d/e"},
		{"{+p}{&q}", "a/b&q=%41"},
		{"{0} ", "x "}, // refused by yosida95, read by FastMCP 1.x
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, text, uri string) {
		tmpl, err := Parse(text)
		if err != nil {
			return
		}
		oracle, err := rfc6570.New(text)
		if err != nil {
			// A text only FastMCP 1.x reads (Parse): go-sdk serves
			// nothing for it, so the strict reading matches nothing.
			if tmpl.Match(uri, Strict) {
				t.Fatalf("Parse accepted %q, which yosida95 refuses (%v), and it matches %q strictly", text, err, uri)
			}
			return
		}
		strict := tmpl.Match(uri, Strict)
		if want := oracle.Regexp().MatchString(uri); strict != want {
			t.Fatalf("%q strict %q = %v, go-sdk reads %v", text, uri, strict, want)
		}
		if strict && !tmpl.Match(uri, Loose) {
			t.Fatalf("%q: %q matches strictly, not loosely", text, uri)
		}
		spans, ok := tmpl.Spans(uri, Loose, nil)
		if ok != tmpl.Match(uri, Loose) {
			t.Fatalf("Spans and Match disagree on %q %q", text, uri)
		}
		for _, sp := range spans {
			if sp.Start < 0 || sp.End > len(uri) || sp.Start >= sp.End || sp.Expr >= len(tmpl.Exprs()) {
				t.Fatalf("bad span %v of %q", sp, uri)
			}
		}
	})
}

// FuzzExpansionRoundTrip: a value expanded into a template with Encode is
// what yosida95/uritemplate's Expand writes (for + and #, whose triplets
// RFC 6570 keeps and it does not, when the value holds no "%"; for ASCII
// values: it encodes a code point's bytes, not UTF-8's, so "é" is its
// "%E9" where RFC 6570 1.6 has "%C3%A9"); the URI
// matches the template under both readings; the span of its expression
// decodes back to the value.
func FuzzExpansionRoundTrip(f *testing.F) {
	for _, s := range [][2]string{
		{"customers://{id}/profile", "alice@example.com"},
		{"files://{+path}", "a/b c@d"},
		{"doc://x{#frag}", "é/ü"},
		{"f://x{.ext}", "gz"},
		{"f://r{/seg}", "a/b"},
		{"m://x{;p}", "1;2"},
		{"q://x{?a}", "x&y=z"},
		{"q://x?k=1{&a}", "50%"},
		{"{0} ", "v"}, // refused by yosida95, read by FastMCP 1.x
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, text, value string) {
		tmpl, err := Parse(text)
		if err != nil || !utf8.ValidString(value) {
			return
		}
		exprs := tmpl.Exprs()
		if len(exprs) != 1 || len(exprs[0].Vars) != 1 || exprs[0].Vars[0].Explode || exprs[0].Vars[0].Prefix != 0 {
			return // one plain variable: its value is the expression's
		}
		e := exprs[0]
		oracle, err := rfc6570.New(text)
		if err != nil {
			return // a text only FastMCP 1.x reads: no RFC 6570 expansion
		}
		vals := rfc6570.Values{}
		vals.Set(e.Vars[0].Name, rfc6570.String(value))
		want, err := oracle.Expand(vals)
		if err != nil {
			return
		}
		first, _, named, reserved := opSyntax(e.Op)
		piece := first
		if named {
			piece += e.Vars[0].Name
			if value != "" || e.Op != ';' {
				piece += "="
			}
		}
		piece += Encode(e.Op, value)
		i := strings.IndexByte(text, '{')
		j := strings.IndexByte(text, '}')
		uri := text[:i] + piece + text[j+1:]
		if (!reserved || !strings.Contains(value, "%")) && ascii(value) && uri != want {
			t.Fatalf("%q with %q: Encode gives %q, Expand %q", text, value, uri, want)
		}
		for r := Strict; r <= Loose; r++ {
			spans, ok := tmpl.Spans(uri, r, nil)
			if !ok {
				t.Fatalf("%q: expansion %q does not match (reading %d)", text, uri, r)
			}
			got := ""
			if len(spans) == 1 {
				got = uri[spans[0].Start:spans[0].End]
			}
			if got != piece {
				t.Fatalf("%q reading %d: span %q, want %q", text, r, got, piece)
			}
		}
		if !reserved || !strings.Contains(value, "%") {
			enc := piece[len(piece)-len(Encode(e.Op, value)):]
			if dec, err := url.PathUnescape(enc); err != nil || dec != value {
				t.Fatalf("%q: %q decodes to %q, want %q", text, enc, dec, value)
			}
		}
	})
}

// ascii: s is ASCII without NUL (yosida95 drops a zero byte's "%00").
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] == 0 {
			return false
		}
	}
	return true
}
