package mcp

import (
	"slices"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

// A server quotes what it received in its errors ("Resource not found"
// with the URI, a HeaderMismatch naming both values, "no such user ..."):
// for a request whose pseudonyms the plugin restored, that is the real
// value, which the client must not read back (it sent the pseudonym; the
// value may be one its policy never shows it). So the plugin remembers
// what it restored in each forwarded request, and an error answering it
// gets the values back as the client sent them, before the output
// pipeline runs. Results are not rewritten: a result's data is the
// output pipeline's to judge.

// restoredPair is a value the plugin restored and what the client sent
// in its place.
type restoredPair struct{ restored, sent string }

// minRestoredSpan is the shortest differing span of a restored string
// that is replaced on its own: shorter ones would replace unrelated text.
const minRestoredSpan = 3

// restoredOnly reports whether now is sent with pseudonyms restored and
// nothing else changed: the text around sent's pseudonyms is in now, in
// order, from its start to its end. A value a detecting step changed (a
// redaction) is not.
func restoredOnly(sent, now string) bool {
	spans := vault.FindPseudonyms(sent, nil)
	if len(spans) == 0 || sent == now {
		return false
	}
	head, tail := sent[:spans[0].Start], sent[spans[len(spans)-1].End:]
	if !strings.HasPrefix(now, head) || !strings.HasSuffix(now[len(head):], tail) {
		return false
	}
	mid := now[len(head) : len(now)-len(tail)]
	for i := 0; i+1 < len(spans); i++ {
		lit := sent[spans[i].End:spans[i+1].Start]
		k := strings.Index(mid, lit)
		if k < 0 {
			return false
		}
		mid = mid[k+len(lit):]
	}
	return true
}

// appendRestored adds the pair (restored, sent), when restored is sent
// with its pseudonyms restored, and, when the two share a beginning or an
// end (a URI with a pseudonym in one segment), the span that differs,
// which a server may quote alone.
func appendRestored(out []restoredPair, restored, sent string) []restoredPair {
	if !restoredOnly(sent, restored) {
		return out
	}
	out = append(out, restoredPair{restored, sent})
	p := 0
	for p < len(restored) && p < len(sent) && restored[p] == sent[p] {
		p++
	}
	q := 0
	for q < len(restored)-p && q < len(sent)-p && restored[len(restored)-1-q] == sent[len(sent)-1-q] {
		q++
	}
	if p+q > 0 && len(restored)-p-q >= minRestoredSpan {
		out = append(out, restoredPair{restored[p : len(restored)-q], sent[p : len(sent)-q]})
	}
	return out
}

// restoredStrings compares the strings of node n in doc (after the input
// pipeline) with those of sent (the same node as the client sent it, raw
// JSON) and returns the pairs that differ.
func restoredStrings(doc *jsondoc.Doc, n int32, sent []byte, out []restoredPair) []restoredPair {
	was, err := jsondoc.Parse(sent)
	if err != nil {
		return out
	}
	var walk func(a int32, b int32)
	walk = func(a, b int32) {
		switch doc.Kind(a) {
		case jsondoc.String:
			now, _ := doc.Str(a)
			then, ok := was.Str(b)
			if ok {
				out = appendRestored(out, now, then)
			}
		case jsondoc.Object:
			for c := doc.First(a); c != jsondoc.None; c = doc.Next(c) {
				if o := was.Get(b, doc.Key(c)); o != jsondoc.None {
					walk(c, o)
				}
			}
		case jsondoc.Array:
			o := was.First(b)
			for c := doc.First(a); c != jsondoc.None && o != jsondoc.None; c = doc.Next(c) {
				walk(c, o)
				o = was.Next(o)
			}
		}
	}
	walk(n, jsondoc.Root)
	return out
}

// unrestoreError puts back what the client sent wherever the error object
// of response n quotes a value restored in its request.
func unrestoreError(doc *jsondoc.Doc, n int32, pairs []restoredPair) {
	e := doc.Get(n, "error")
	if len(pairs) == 0 || doc.Kind(e) != jsondoc.Object {
		return
	}
	r := replacerOf(pairs)
	var walk func(int32)
	walk = func(v int32) {
		switch doc.Kind(v) {
		case jsondoc.String:
			s, _ := doc.Str(v)
			t := r.Replace(s)
			if t != s {
				doc.SetString(v, t)
			}
		case jsondoc.Object, jsondoc.Array:
			for c := doc.First(v); c != jsondoc.None; c = doc.Next(c) {
				walk(c)
			}
		}
	}
	walk(e)
}

// unrestoreText is unrestoreError for a response body that is not JSON
// (an HTTP error page a server writes before JSON-RPC, such as a header
// check's refusal).
func unrestoreText(text string, pairs []restoredPair) string {
	if len(pairs) == 0 {
		return text
	}
	return replacerOf(pairs).Replace(text)
}

// replacerOf replaces every restored value of pairs by what was sent in
// one pass over a text, whatever the number of pairs (a request may
// restore thousands of pseudonyms, and the server's error may quote a
// megabyte): at each place the longest restored value that matches wins
// (a whole value before the span of it appendRestored added, a value
// before a shorter one that begins it).
func replacerOf(pairs []restoredPair) *strings.Replacer {
	pairs = slices.Clone(pairs)
	slices.SortStableFunc(pairs, func(a, b restoredPair) int { return len(b.restored) - len(a.restored) })
	old := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		old = append(old, p.restored, p.sent)
	}
	return strings.NewReplacer(old...)
}
