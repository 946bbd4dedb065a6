package transforms

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/streq"
)

// Text carried as base64.
//
// An image's or audio item's data and a resource's blob are base64. A
// server can put text there (a resource read as a blob, a "PNG" that is a
// CSV) and a client that decodes it shows the text. The string steps act
// on such text like on any other:
//
//   - base64 whose bytes are UTF-8 text (no control characters but tab,
//     line breaks and form feed) is decoded, whatever its mimeType says;
//     the string steps of the run act on the text as on plain text that
//     failed the strict JSON parse (a step limited by fields acts on all
//     of it); if anything changed, the text is encoded again (standard
//     base64, padded) in place of the data. A block step blocks.
//   - data declared as text (text/*, JSON, XML, YAML, JavaScript, CSV
//     mimeTypes) that is not UTF-8 or not base64 is withheld: the item
//     becomes a text note, as drop_binary makes it, since nothing that
//     reads it can be checked.
//   - any other data (real images, audio, binary files) passes unchanged:
//     the detectors do not read pixels or sound. drop_binary removes it.
//   - "data" that is not base64 at all (characters outside its alphabets
//     in the first kilobyte) is no binary: what the detectors find in it
//     is transformed, as in any protocol value.
//
// Only runs with a detecting step decode anything, and the first 1 KiB
// decides whether data is text before the rest is decoded.

// withheldNote replaces declared text the steps cannot read.
const withheldNote = "[{type} withheld by privacy policy: text that cannot be read]"

// binaryText runs the string steps of sg over the text a binary item's
// base64 carries (see above).
func (e *Engine) binaryText(sg *stepRun, doc *jsondoc.Doc, t *target, run *Run) {
	if t.kind != binaryItem || !runDetects(sg) {
		return
	}
	holder := t.node // the object with data or blob, and mimeType
	key := "blob"
	switch {
	case t.bin != "blob":
		key = "data"
	case t.binContent:
		holder = doc.Get(t.node, "resource")
	}
	n := doc.Get(holder, key)
	raw, ok := doc.Str(n)
	if !ok || raw == "" {
		return
	}
	mime, _ := doc.Str(doc.Get(holder, "mimeType"))
	out, isText := e.base64Steps(sg, raw, ^uint64(0), false, run)
	switch {
	case !isText && declaredText(mime):
		dropBinary(doc, t, withheldNote)
	case out != raw:
		doc.SetString(n, out)
	case !isText && !base64Form(raw[:min(len(raw), base64Head)]):
		// Not base64 (the first kilobyte decides, as for text): no
		// client decodes it, and whatever shows it shows it as it is.
		// What the detectors find in it is transformed, as in any
		// protocol value.
		if r := e.runString(sg, raw, sg.findMask, run); r != raw && !run.Blocked {
			doc.SetString(n, r)
		}
	}
}

// base64Steps runs the string steps of sg that mask selects over the text
// raw carries, if it is base64 of UTF-8 text, and returns raw, or the
// changed text encoded again: standard and padded, or (keepForm) in raw's
// alphabet and padding.
func (e *Engine) base64Steps(sg *stepRun, raw string, mask uint64, keepForm bool, run *Run) (out string, isText bool) {
	text, ok := base64Text(raw)
	if !ok {
		return raw, false
	}
	if t := e.runString(sg, text, mask, run); t != text && !run.Blocked {
		enc := base64.StdEncoding
		if keepForm && strings.ContainsAny(raw, "-_") {
			enc = base64.URLEncoding
		}
		if keepForm && !strings.Contains(raw, "=") {
			enc = enc.WithPadding(base64.NoPadding)
		}
		return enc.EncodeToString([]byte(t)), true
	}
	return raw, true
}

// minBase64Text is the shortest string read as base64 text where the
// schema puts none (a JSON value, a text, a cursor): shorter words of the
// base64 alphabet ("Test", "admin123") are words.
const minBase64Text = 16

// base64Word reports whether s, whole, has the form of base64: at least
// minBase64Text characters of the base64 alphabets, padding only at the
// end, line breaks allowed. Most text stops at its first space.
func base64Word[S string | []byte](s S) bool {
	if len(s) < minBase64Text {
		return false
	}
	pad := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/', c == '-', c == '_':
			if pad > 0 {
				return false
			}
		case c == '=':
			if pad++; pad > 2 {
				return false
			}
		case c == '\n', c == '\r':
		default:
			return false
		}
	}
	return true
}

// runText runs the steps of mask over string s found where the schema
// puts text or a protocol value: first over the text s carries when s,
// whole, is base64 of text (a file's content in structuredContent, a log
// line sent as base64, a cursor of base64 JSON: a client or a model that
// decodes it reads that text), then over s itself.
func (e *Engine) runText(sg *stepRun, s string, mask uint64, run *Run) string {
	if base64Word(s) && mask&sg.findMask != 0 {
		if out, _ := e.base64Steps(sg, s, mask&sg.findMask, true, run); !streq.Same(out, s) && !run.Blocked {
			s = out
		}
		if run.Blocked {
			return s
		}
	}
	return e.runString(sg, s, mask, run)
}

// runDetects: some step of sg detects.
func runDetects(sg *stepRun) bool {
	for _, st := range sg.steps {
		if st.detecting() {
			return true
		}
	}
	return false
}

// base64Head is how much of a base64 string decides whether it is base64
// of text: 1,368 characters, 1 KiB and some.
const base64Head = 1368

// base64Text decodes raw (standard or URL alphabet, padded or not, line
// breaks ignored) when it holds UTF-8 text.
func base64Text(raw string) (string, bool) {
	if strings.ContainsAny(raw, "\r\n") {
		raw = strings.NewReplacer("\r", "", "\n", "").Replace(raw)
	}
	enc := base64.StdEncoding
	if strings.ContainsAny(raw, "-_") {
		enc = base64.URLEncoding
	}
	if !strings.HasSuffix(raw, "=") && len(raw)%4 != 0 {
		enc = enc.WithPadding(base64.NoPadding)
	}
	// The first 1 KiB (a multiple of 4 characters) decides.
	if head := raw[:min(len(raw), base64Head)&^3]; len(head) < len(raw) && head != "" {
		b, err := enc.WithPadding(base64.NoPadding).DecodeString(head)
		if err != nil || !textBytes(b, true) {
			return "", false
		}
	}
	b, err := enc.DecodeString(raw)
	if err != nil || !textBytes(b, false) {
		return "", false
	}
	return string(b), true
}

// textBytes: b is UTF-8 without control characters other than tab, line
// breaks and form feed; cut allows a character cut off at the end.
func textBytes(b []byte, cut bool) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return cut && !utf8.FullRune(b[i:])
		}
		i += size
	}
	return true
}

// declaredText: a mimeType of text.
func declaredText(mime string) bool {
	m := strings.ToLower(strings.TrimSpace(mime))
	if i := strings.IndexByte(m, ';'); i >= 0 {
		m = strings.TrimSpace(m[:i])
	}
	if strings.HasPrefix(m, "text/") {
		return true
	}
	for _, suffix := range []string{"/json", "+json", "/xml", "+xml", "/yaml", "+yaml", "/x-yaml", "/javascript", "/ecmascript", "/csv", "/x-ndjson", "/jsonl"} {
		if strings.HasSuffix(m, suffix) {
			return true
		}
	}
	return false
}
