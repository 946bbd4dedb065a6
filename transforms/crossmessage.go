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
// first part cannot be taken back. What the filter does: a stream keeps
// the last crossWindow bytes of the last string of the last server
// message it passed (MessageTail), with that message's method and the
// string's place in it. In the next message of the same method, the
// string at the same place is joined to that tail; a detection that
// crosses the joint has its continuation cut from the new string and the
// step's replacement put there instead. The client then sees "alice@exa"
// and a placeholder: the part sent first stays out.

// MessageTail is what a stream keeps of the last server message it
// passed, for ApplyMessage. The zero value is an empty tail.
type MessageTail struct {
	key  string // method and the string's path
	text string // the last bytes of the string as sent
}

// ApplyMessage is Apply over a server request's or notification's params
// (AnyStrings) that also joins the message to the tail of the previous
// one on the stream (see above), and updates tail.
func (e *Engine) ApplyMessage(p *Pipeline, doc *jsondoc.Doc, n int32, method string, tail *MessageTail, run *Run) bool {
	if p.Empty() {
		return false
	}
	var cont int32 = jsondoc.None
	var repl string
	if tail.text != "" {
		if cont = stringAt(doc, n, tail.key, method); cont != jsondoc.None {
			repl = e.continuation(p, doc, cont, tail.text, run)
			if run.Blocked {
				*tail = MessageTail{}
				return false
			}
		}
	}
	changed := e.Apply(p, doc, n, AnyStrings, run)
	if repl != "" && !run.Blocked {
		s, _ := doc.Str(cont)
		doc.SetString(cont, repl+s)
		changed = true
	}
	*tail = MessageTail{}
	if run.Blocked {
		return changed
	}
	if node := lastString(doc, n); node != jsondoc.None {
		key := pathKey(doc, n, node, method)
		s, _ := doc.Str(node)
		from := len(s) - min(len(s), crossWindow)
		for from < len(s) && !utf8.RuneStart(s[from]) {
			from++
		}
		*tail = MessageTail{key: key, text: s[from:]}
	}
	return changed
}

// continuation scans the joint of prev and the string at node with each
// detecting step of p, cuts a value that crosses it from the string, and
// returns what replaces it.
func (e *Engine) continuation(p *Pipeline, doc *jsondoc.Doc, node int32, prev string, run *Run) string {
	s, _ := doc.Str(node)
	to := min(len(s), crossWindow)
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to++
	}
	if to == 0 {
		return ""
	}
	window := prev + s[:to]
	for i := range p.steps {
		st := &p.steps[i]
		if !st.detecting() || !st.scan || len(st.fields) > 0 {
			continue
		}
		for _, d := range e.detectors.Detect(window, st.sel) {
			if d.Start >= len(prev) || d.End <= len(prev) {
				continue
			}
			run.count(d.Label)
			if st.kind == stepBlock {
				run.blockedBy(d.Label)
				return ""
			}
			if r, ok := e.replacement(st, d, d.Seen(window), run); ok {
				doc.SetString(node, s[d.End-len(prev):])
				return r
			}
		}
	}
	return ""
}

// lastString finds the last string of a server message's params that the
// output pipeline reads (not a protocol member, not binary data).
func lastString(d *jsondoc.Doc, root int32) int32 {
	last := jsondoc.None
	var walk func(n int32)
	walk = func(n int32) {
		switch d.Kind(n) {
		case jsondoc.String:
			last = n
		case jsondoc.Object:
			binary := isBinaryContent(d, n)
			for c := d.First(n); c != jsondoc.None; c = d.Next(c) {
				if !(protocolMember(d, n, c, n == root) || binary && d.Key(c) == "data") {
					walk(c)
				}
			}
		case jsondoc.Array:
			for c := d.First(n); c != jsondoc.None; c = d.Next(c) {
				walk(c)
			}
		}
	}
	walk(root)
	return last
}

// pathKey is method and the path from root to node: "\x00k" and a key or
// "\x00i" and an index per level.
func pathKey(d *jsondoc.Doc, root, node int32, method string) string {
	var steps []string
	for n := node; n != root && n != jsondoc.None; n = d.Parent(n) {
		parent := d.Parent(n)
		if d.Kind(parent) == jsondoc.Array {
			i := 0
			for c := d.First(parent); c != n && c != jsondoc.None; c = d.Next(c) {
				i++
			}
			steps = append(steps, "\x00i"+strconv.Itoa(i))
		} else {
			steps = append(steps, "\x00k"+d.Key(n))
		}
	}
	var b strings.Builder
	b.WriteString(method)
	for i := len(steps) - 1; i >= 0; i-- {
		b.WriteString(steps[i])
	}
	return b.String()
}

// stringAt finds the string at key's path in a message of method.
func stringAt(d *jsondoc.Doc, root int32, key, method string) int32 {
	path, ok := strings.CutPrefix(key, method)
	if !ok || path != "" && path[0] != 0 {
		return jsondoc.None
	}
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
