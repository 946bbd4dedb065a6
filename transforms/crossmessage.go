package transforms

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

// Values split across two server messages.
//
// A server can send "alice@exa" in one log or progress notification and
// "mple.com" in the next, on one stream. The first message has already
// gone to the client when the second arrives, and holding every message
// back until the next one comes would stall progress and logs, so the
// first part cannot be taken back. What the filter does: a stream keeps,
// of the last server message it passed (MessageTail), its method and the
// last messageWindow bytes of each of its first messageStrings strings,
// by their place in it. In the next message of the same method, each
// string at one of those places is joined to its tail; a detection that
// crosses the joint has its continuation cut from the new string and the
// step's replacement put there instead (after the message's own steps,
// which do not rescan it). The client then sees "alice@exa" and a
// placeholder: the part sent first has left.

// MessageTail is what a stream keeps of the last server message it
// passed, for ApplyMessage. The zero value is an empty tail.
type MessageTail struct {
	method string
	tails  []stringTail
}

// stringTail is the end of one string of a message, by its path.
type stringTail struct {
	path, text string
}

// Bounds of what a stream keeps: the first messageStrings strings of a
// message, the last messageWindow bytes of each.
const (
	messageStrings = 32
	messageWindow  = 256
)

// ApplyMessage is Apply over a server request's or notification's params
// (read as kind) that also joins the message to the tail of the previous
// one on the stream (see above), and updates tail.
func (e *Engine) ApplyMessage(p *Pipeline, doc *jsondoc.Doc, n int32, kind Payload, method string, tail *MessageTail, run *Run) bool {
	if p.Empty() {
		return false
	}
	type cut struct {
		node int32
		r    string
	}
	var cuts []cut
	if tail.method == method {
		for _, st := range tail.tails {
			node := stringAt(doc, n, st.path)
			if node == jsondoc.None {
				continue
			}
			if r := e.continuation(p, doc, node, st.text, run); r != "" {
				cuts = append(cuts, cut{node, r})
			}
			if run.Blocked {
				*tail = MessageTail{}
				return false
			}
		}
	}
	changed := e.Apply(p, doc, n, kind, run)
	*tail = MessageTail{}
	if run.Blocked {
		return changed
	}
	for _, c := range cuts {
		s, _ := doc.Str(c.node)
		doc.SetString(c.node, c.r+s)
		changed = true
	}
	tail.method = method
	eachString(doc, n, kind, messageStrings, func(node int32, path string) {
		s, _ := doc.Str(node)
		from := len(s) - min(len(s), messageWindow)
		for from < len(s) && !utf8.RuneStart(s[from]) {
			from++
		}
		if from < len(s) {
			tail.tails = append(tail.tails, stringTail{path, s[from:]})
		}
	})
	return changed
}

// continuation scans the joint of prev and the string at node with each
// detecting step of p, cuts a value that crosses it from the string, and
// returns what replaces it.
func (e *Engine) continuation(p *Pipeline, doc *jsondoc.Doc, node int32, prev string, run *Run) string {
	s, _ := doc.Str(node)
	to := min(len(s), messageWindow)
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to++
	}
	if to == 0 {
		return ""
	}
	window, cut := prev+s[:to], len(prev)
	for i := range p.steps {
		st := &p.steps[i]
		if !st.detecting() || !st.scan || len(st.fields) > 0 {
			continue
		}
		second := e.side(s[:to], st.sel)
		for _, d := range e.detectors.Detect(window, st.sel) {
			if !e.acrossCut(window, cut, &d, second) {
				continue
			}
			run.count(d.Label)
			if st.kind == stepBlock {
				run.blockedBy(d.Label)
				return ""
			}
			if r, ok := e.jointReplacement(st, d, window, run); ok {
				// A value after the joint (contextAcross) is replaced
				// where it stands, after what precedes it.
				r = window[cut:max(cut, d.Start)] + r
				doc.SetString(node, s[d.End-cut:])
				return r
			}
		}
	}
	return ""
}

// eachString calls f for the first max strings of a server message's
// params (read as kind) that the output pipeline reads as text (what the
// structural table leaves to it, not binary data), with their paths:
// "\x00k" and a key or "\x00i" and an index per level.
func eachString(d *jsondoc.Doc, root int32, kind Payload, max int, f func(node int32, path string)) {
	if kind >= numPayloads {
		return
	}
	ps := payloadShapes[kind]
	var steps []string
	count := 0
	var walk func(n int32, sh shape)
	walk = func(n int32, sh shape) {
		if count >= max {
			return
		}
		switch d.Kind(n) {
		case jsondoc.String:
			if sh == shData || textAt(d, n, sh, ps.separate) {
				count++
				f(n, strings.Join(steps, ""))
			}
		case jsondoc.Object:
			if skipped(sh, ps.separate) {
				return
			}
			sh = refine(d, n, sh)
			for c := d.First(n); c != jsondoc.None && count < max; c = d.Next(c) {
				steps = append(steps, "\x00k"+d.Key(c))
				walk(c, childOf(d, c, sh))
				steps = steps[:len(steps)-1]
			}
		case jsondoc.Array:
			if skipped(sh, ps.separate) {
				return
			}
			i := 0
			for c := d.First(n); c != jsondoc.None && count < max; c = d.Next(c) {
				steps = append(steps, "\x00i"+strconv.Itoa(i))
				walk(c, sh)
				steps = steps[:len(steps)-1]
				i++
			}
		}
	}
	walk(root, ps.root)
}

// stringAt finds the string at path under root.
func stringAt(d *jsondoc.Doc, root int32, path string) int32 {
	n := root
	for _, step := range strings.Split(path, "\x00")[1:] {
		switch {
		case step == "":
			return jsondoc.None
		case step[0] == 'k':
			n = d.Get(n, step[1:])
		default:
			i, err := strconv.Atoi(step[1:])
			if err != nil || d.Kind(n) != jsondoc.Array {
				return jsondoc.None
			}
			c := d.First(n)
			for ; i > 0 && c != jsondoc.None; i-- {
				c = d.Next(c)
			}
			n = c
		}
		if n == jsondoc.None {
			return jsondoc.None
		}
	}
	if d.Kind(n) != jsondoc.String {
		return jsondoc.None
	}
	return n
}
