package mcp

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzHeaderValue: whatever value the plugin writes into a mirrored
// header (encodeHeaderValue, encodeLike after any header the client sent)
// is a header value (no CR, LF, NUL or other control but tab, no edge
// space) that decodeHeaderValue reads back as the value; and
// decodeHeaderValue never accepts a value with a control character.
func FuzzHeaderValue(f *testing.F) {
	for _, s := range []string{"", "plain", " lead", "trail\t", "Zoë", "a\r\nb", "=?base64?Zm9v?=", "=?base64?", "?=", "\x00", "\x7f", "=?base64?not*?="} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, was, v string) {
		if d, ok := decodeHeaderValue(was); ok {
			for i := 0; i < len(was); i++ {
				if c := was[i]; (c < 0x20 && c != '\t') || c == 0x7f {
					t.Fatalf("accepted %q with a control character", was)
				}
			}
			if !utf8.ValidString(d) {
				t.Fatalf("%q decoded to invalid UTF-8 %q", was, d)
			}
		}
		if !utf8.ValidString(v) {
			return
		}
		for _, enc := range []string{encodeHeaderValue(v), encodeLike(was, v)} {
			if strings.ContainsAny(enc, "\r\n\x00") || strings.TrimLeft(enc, " \t") != enc || strings.TrimRight(enc, " \t") != enc {
				t.Fatalf("%q written as %q: not a header value", v, enc)
			}
			for i := 0; i < len(enc); i++ {
				if c := enc[i]; c < 0x20 || c == 0x7f {
					t.Fatalf("%q written as %q: a control character", v, enc)
				}
			}
			if d, ok := decodeHeaderValue(enc); !ok || d != v {
				t.Fatalf("%q written as %q reads back as %q, %v", v, enc, d, ok)
			}
		}
	})
}
