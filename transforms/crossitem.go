package transforms

import (
	"strings"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms/detect"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

// Values split across text items.
//
// Clients show, and pass to the model, the text items of one result one
// after the other: content[0].text "mail alice@exa" and content[1].text
// "mple.com" read as one address, though neither string holds it. The
// same holds for the text of a resource embedded in a content item next
// to a text item, and for the contents entries of resources/read. Before
// a run of string steps acts on each item, every joint between two
// adjacent text items is scanned by the run's steps: the last crossWindow
// bytes of the first item and the first crossWindow bytes of the second,
// joined. A detection that crosses the joint is cut out of both parts;
// after the run has acted on the items, its replacement is appended to
// the first (so no step rescans it: a hash reads like a key assignment).
// Values longer than the window on either side, and values spread over
// three or more items, are not joined.

// crossWindow is how much of each side of a joint is scanned.
const crossWindow = 1024

// joints are the replacements of values cut out at joints, to append to
// their first items once the run has acted on them.
type joints []joint

type joint struct {
	t *target
	r string
}

func (js joints) rejoin() {
	for _, j := range js {
		if j.r == "" {
			// The text may be a view of the message's bytes, and it
			// becomes the node's replacement: it must own its bytes.
			j.t.text = strings.Clone(j.t.text)
			continue
		}
		j.t.text += j.r
	}
}

// acrossItems scans the joints between adjacent text items of ts with the
// string steps of sg, before the run acts on each item (so that neither
// part has been rewritten on its own yet).
func (e *Engine) acrossItems(sg *stepRun, doc *jsondoc.Doc, ts []target, run *Run) (js joints) {
	if sg.structural {
		return nil
	}
	for j := 0; j+1 < len(ts) && !run.Blocked; j++ {
		a, b := &ts[j], &ts[j+1]
		if !adjacentTextItems(doc, a, b) {
			continue
		}
		for i, st := range sg.steps {
			if sg.fieldMask&(1<<i) != 0 && !(a.unparsed && b.unparsed) {
				continue // fields name JSON paths: plain text has none
			}
			if js = e.acrossJoint(st, a, b, run, js); run.Blocked {
				return js
			}
		}
	}
	return js
}

// adjacentTextItems: a and b are the texts of two items read one after
// the other: text items, or resources embedded in content items, b's item
// directly after a's in one content array; or two entries of a
// resources/read result's contents.
func adjacentTextItems(d *jsondoc.Doc, a, b *target) bool {
	if a.kind != plainText || b.kind != plainText || a.node == jsondoc.None || b.node == jsondoc.None {
		return false
	}
	ia, ib := textItemOf(d, a.node), textItemOf(d, b.node)
	return ia != jsondoc.None && ib != jsondoc.None && d.Next(ia) == ib
}

// textItemOf is the array element whose text string node n is (a text
// item, a content item embedding a resource, a contents entry), or None.
func textItemOf(d *jsondoc.Doc, n int32) int32 {
	p := d.Parent(n)
	if p < 0 || d.Kind(p) != jsondoc.Object {
		return jsondoc.None
	}
	if d.Kind(d.Parent(p)) == jsondoc.Array {
		if t := d.Get(p, "type"); t == jsondoc.None || d.StrEquals(t, "text") {
			return p
		}
		return jsondoc.None
	}
	if q := d.Parent(p); q >= 0 && d.Kind(d.Parent(q)) == jsondoc.Array && d.StrEquals(d.Get(q, "type"), "resource") {
		return q
	}
	return jsondoc.None
}

// acrossJoint runs one step over the joint of a and b.
func (e *Engine) acrossJoint(st *step, a, b *target, run *Run, js joints) joints {
	if !st.detecting() || !st.scan {
		return js
	}
	from := len(a.text) - min(len(a.text), crossWindow)
	for from < len(a.text) && !utf8.RuneStart(a.text[from]) {
		from++
	}
	to := min(len(b.text), crossWindow)
	for to < len(b.text) && !utf8.RuneStart(b.text[to]) {
		to++
	}
	tail, head := a.text[from:], b.text[:to]
	if tail == "" || head == "" {
		return js
	}
	cut := len(tail)
	window := tail + head
	second := e.side(head, st.sel)
	for _, d := range e.detectors.Detect(window, st.sel) {
		if !e.acrossCut(window, cut, &d, second) {
			continue
		}
		run.count(d.Label)
		if st.kind == stepBlock {
			run.blockedBy(d.Label)
			continue
		}
		r, ok := e.jointReplacement(st, d, window, run)
		if !ok {
			continue
		}
		// At most one detection crosses the joint. A value after it
		// moves to the first item with what stands before it (nothing
		// but spaces and punctuation: contextAcross).
		if d.Start >= cut {
			r = window[cut:d.Start] + r
			d.Start = cut
		}
		a.text, a.changed = a.text[:from+d.Start], true
		b.text, b.changed = b.text[d.End-cut:], true
		return append(js, joint{a, r})
	}
	return js
}

// side is one side of a joint, as its own steps read it: scanned once,
// when a detection at the joint first asks.
type side struct {
	e       *Engine
	text    string
	sel     detect.Selection
	hits    []detect.Detection
	scanned bool
}

func (e *Engine) side(text string, sel detect.Selection) *side {
	return &side{e: e, text: text, sel: sel}
}

// found is what the side's own steps find in it.
func (s *side) found() []detect.Detection {
	if !s.scanned {
		s.hits, s.scanned = s.e.detectors.Detect(s.text, s.sel), true
	}
	return s.hits
}

// acrossCut reports whether detection d in window (two sides joined at
// cut) is a value the joint makes: one that crosses it and that the
// sides read apart do not hold (readApart), or one after it that only
// the first side's context finds (contextAcross).
func (e *Engine) acrossCut(window string, cut int, d *detect.Detection, second *side) bool {
	switch {
	case d.End <= cut:
		return false
	case d.Start >= cut:
		return contextAcross(window, cut, d, second)
	}
	return !e.readApart(window, cut, d, second)
}

// contextAcross reports whether detection d, which starts in the second
// side of the joint at cut of window, within three bytes of it and after
// nothing but spaces and punctuation, was found by the first side's
// context alone: its label in one item, its value in the next ("Date of
// birth:" and "1957-04-17", "Phone" and "(30) 48977-2600"). The second side
// alone does not find it, and would pass it in clear.
func contextAcross(window string, cut int, d *detect.Detection, second *side) bool {
	if d.Start-cut > 3 {
		return false
	}
	for _, c := range []byte(window[cut:d.Start]) {
		if c >= 0x80 || c-'0' < 10 || c|0x20-'a' < 26 {
			return false
		}
	}
	for _, h := range second.found() {
		if h.Start < d.End-cut && h.End > d.Start-cut {
			return false // the second side's own steps find it
		}
	}
	return true
}

// readApart reports whether detection d, which crosses the joint at cut
// of window (second: the second side's part scanned), is rather two
// things glued by the join than one value split by it; the sides are then
// read apart, each by its own steps. The join can glue a value complete
// at the end of the first side to the second side's first word:
// "bob@example.com" and "ID card 110105…" read "bob@example.comID".
//   - Cut from the second side, that word may have given what follows it
//     its context (" card 110105…": no identifier, which would pass in
//     clear): cutLosesValues.
//   - Where the first side alone ends with a value (of any label) that
//     the joined one holds, the joint glues when a capital after a
//     lower-case letter or digit starts a word ("…example.com" and "Call
//     +44 …": joined, the first side's pseudonym would stand for
//     "bob@example.comCall" and the second side would lose "Call"), when
//     all the joined value takes of the second side is a function word
//     ("…example.com" and "and more") or a value of that side's own
//     ("…DE89 3704 …3000" and "a@b.co"), and when the joined value ends
//     inside the second side's first word ("…4N" and "número"), or
//     takes a whole word as sentences write it after a digit or capital
//     ("…BcDP" and "Meeting in …"). The first side's value may stand
//     before a full stop or a closing bracket ("…example.io." and
//     "artikel …"); after one, the second side's own value is its own
//     ("… shipped the order." and "alice＠example.com").
//   - A joined value that starts inside a value the first side holds
//     alone would leave that value's head in clear ("Card 4111 1111 1111
//     1111" and "2alice@example.com").
//
// Only a detection that crosses a joint, which is rare, pays for the
// scans.
func (e *Engine) readApart(window string, cut int, d *detect.Detection, second *side) bool {
	k := d.End - cut
	if e.cutLosesValues(second, k) {
		return true
	}
	first := e.side(window[:cut], second.sel)
	for _, t := range first.found() {
		if t.Start < d.Start && t.End > d.Start {
			// A value of the first side's own that the joined one starts
			// inside: cut at d.Start, its head would pass in clear ("Card
			// 4111 1111 1111 1111" and "2alice@example.com").
			return true
		}
	}
	b, c := window[cut-1], window[cut]
	switch {
	case wordChar(b) && b < 0x80 && c-'A' < 26 && b-'A' >= 26:
	case wordChar(b) && b < 0x80 && c-'a' < 26 && functionWord(window[cut:d.End]) && (d.End == len(window) || !wordChar(window[d.End])):
		// "bob@example.com" and "and more": a value would not go on
		// with a whole word of the sentence's glue.
	case d.End < len(window) && window[d.End-1]|0x20-'a' < 26 && (window[d.End]|0x20-'a' < 26 || window[d.End] >= 0xc0) &&
		!strings.ContainsAny(window[cut:d.End], " \t\n"):
		// "…4N" and "número": the joined value ends inside the second
		// side's first word.
	case second.holdsWithin(k):
		// "DE89…3000" and "a@b.co": the part the value would take from
		// the second side is a value of that side's own.
	case wordChar(b) && b < 0x80 && (b-'a' >= 26 || first.endsWithToken(cut)) && plainWord(window[cut:d.End]) && (d.End == len(window) || !wordChar(window[d.End])):
		// "…tcW7QORhwMFJ1c4u3tfsBcDP" and "Meeting in …": what the
		// joined value takes of the second side is a word as sentences
		// write it, whole, after a digit or capital (a name or a domain,
		// which may go on in lower case, ends in neither), or after a
		// token ("ghp_xxx…" and "user frank@…").
	case closing(b) && (c|0x20-'a' < 26 || c >= 0xc0):
		// "…j.doe@example.io." and "artikel …": the first side's last
		// sentence ended with its value.
	default:
		return false
	}
	if closing(b) && second.holdsWithin(k) {
		return true // "… shipped the order." and "alice＠example.com"
	}
	for _, t := range first.found() {
		if t.End == cut || closing(b) && t.End == cut-1 {
			return true // of any label: "Routing number: 114441306" and "ABA 659242675" read as one bank account
		}
	}
	return false
}

// endsWithToken reports whether the side alone ends at cut with a
// secret or an ARN: a token, which no sentence's word goes on.
func (s *side) endsWithToken(cut int) bool {
	for _, t := range s.found() {
		if t.End == cut {
			if b := policy.LookupBuiltinDetector(t.Detector); b != nil && (b.Group == "secrets" || b.Name == "aws_arn") {
				return true
			}
		}
	}
	return false
}

// holdsWithin reports whether the side holds a value of its own within
// its first k bytes.
func (s *side) holdsWithin(k int) bool {
	for _, h := range s.found() {
		if h.End <= k {
			return true
		}
	}
	return false
}

// closing reports whether c ends a sentence, a clause or a bracket.
func closing(c byte) bool {
	switch c {
	case '.', ',', ';', '!', '?', ')', ']', '}', '"', '\'':
		return true
	}
	return false
}

// plainWord reports whether w is a word as sentences write it: three
// ASCII letters or more, lower case but perhaps the first.
func plainWord(w string) bool {
	if len(w) < 3 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; c-'a' >= 26 && (i > 0 || c-'A' >= 26) {
			return false
		}
	}
	return true
}

// functionWord reports whether w is one of the words that join a
// sentence's parts in the languages of the detectors' vocabularies (and,
// or, the, und, et, y …), ASCII lower case.
func functionWord(w string) bool {
	if w == "" || strings.IndexByte(w, ' ') >= 0 {
		return false
	}
	i := strings.Index(functionWords, w)
	return i > 0 && functionWords[i-1] == ' ' && functionWords[i+len(w)] == ' '
}

// functionWords is functionWord's list, each word between spaces (one
// string: a switch over them cost the .wasm some kilobytes of compares).
const functionWords = " and or but the to is are was were at on in for with from of by as if then not" +
	" und oder aber der die das ist zu mit von et ou mais le la les est pour avec" +
	" y o pero el los las es con para e ma il per di en het een met voor och eller og "

func wordChar(c byte) bool { return c-'a' < 26 || c-'A' < 26 || c-'0' < 10 || c >= 0x80 }

// cutLosesValues reports whether cutting the first k bytes of the second
// side (the part of a value read across a joint that lies after it) loses
// or splits a value the side holds alone (readApart).
func (e *Engine) cutLosesValues(second *side, k int) bool {
	var rest *side
	for _, h := range second.found() {
		if h.Start < k {
			if h.End > k {
				// A value of the second side's own that the cut would
				// split: two values meeting at the joint ("… 540-4987"
				// and "231 The Mews, HR31 7PD …").
				return true
			}
			continue // within the part cut
		}
		if rest == nil {
			rest = e.side(second.text[k:], second.sel)
		}
		kept := false
		for _, r := range rest.found() {
			if r.Start+k == h.Start && r.End+k == h.End && r.Label == h.Label {
				kept = true
				break
			}
		}
		if !kept {
			return true
		}
	}
	return false
}

// jointReplacement is the replacement of detection d read across a
// joint in window: a pseudonym is set apart from the words around it, as
// rewriteFound sets apart those it writes in one string.
func (e *Engine) jointReplacement(st *step, d detect.Detection, window string, run *Run) (string, bool) {
	r, ok := e.replacement(st, d, window, run)
	if ok && st.kind == stepPseudonymise {
		r = setApart(r, window, &d)
	}
	return r, ok
}

// replacement is what a rewriting step puts in place of detection d in
// the scanned string s; ok is false for steps that rewrite nothing
// (detect, annotate, block).
func (e *Engine) replacement(st *step, d detect.Detection, s string, run *Run) (string, bool) {
	v := d.Seen(s)
	switch st.kind {
	case stepRedact:
		return Placeholder(st.placeholder, d), true
	case stepPseudonymise:
		run.Pseudonyms += run.weight()
		return e.pseudonym(run, d.Label, pseudonymValue(&d, s, v)), true
	case stepMask:
		return Mask(d.Label, v, st.keepLast, st.char), true
	case stepHash:
		return e.hasher.Hash(d.Label, v, st.length), true
	}
	return "", false
}

// pseudonymValue is the value a pseudonym of detection d in s stands
// for: the value as read (v), unless the server wrote it with URL escapes
// (alice%40example.com, as a URI spells it) and its label keeps its
// characters when normalised (an address, not a number: 13.1), when it
// is the text as written. The depseudonymiser then puts back exactly the
// text the pseudonym replaced (manual 13.6): a server that compares URIs
// as written finds what it wrote. That spelling has a pseudonym of its
// own.
func pseudonymValue(d *detect.Detection, s, v string) string {
	if d.Value == "" || !vault.KeepsCharacters(d.Label) {
		return v
	}
	if w := s[d.Start:d.End]; urlEscapedOnly(w, v) {
		return w
	}
	return v
}

// urlEscapedOnly reports whether written is value with some of its
// characters written as %XX escapes and nothing else changed.
func urlEscapedOnly(written, value string) bool {
	i, j, escaped := 0, 0, false
	for i < len(written) && j < len(value) {
		if written[i] == value[j] {
			i, j = i+1, j+1
			continue
		}
		if written[i] != '%' || i+2 >= len(written) {
			return false
		}
		hi, lo := unhex(written[i+1]), unhex(written[i+2])
		if hi < 0 || lo < 0 || byte(hi<<4|lo) != value[j] {
			return false
		}
		i, j, escaped = i+3, j+1, true
	}
	return escaped && i == len(written) && j == len(value)
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
