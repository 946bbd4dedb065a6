// Package sse rewrites a stream of server-sent events (text/event-stream)
// as it streams: each body chunk goes to a Rewriter, which returns the
// events that chunk completed and holds back only the incomplete one (a
// stream is never buffered to its end, since an MCP client may have to
// answer a server request before the stream goes on). What an event's data
// becomes is the caller's: the package knows nothing of MCP or JSON-RPC.
//
// Parsing follows the WHATWG HTML "server-sent events" rules, which is what
// the rewrite callback must agree with clients on: lines end with CRLF, LF
// or CR (a CRLF split across chunks still counts once); an empty line ends
// an event; a line starting with ':' is a comment; otherwise the field name
// runs to the first ':' (or the whole line) and one space after the colon
// is dropped from the value; the values of `data` lines (case-sensitive)
// are joined with "\n"; a UTF-8 BOM is ignored at the start of the stream
// only.
package sse

import (
	"bytes"
	"errors"
)

// ErrEventTooLarge is returned when a server-sent event is larger than the
// limit the rewriter was made with. The caller fails the stream closed.
var ErrEventTooLarge = errors.New("sse: event exceeds the rewriter's size limit")

const utf8BOM = "\xEF\xBB\xBF"

// sseKeep is the capacity above which buffers are released rather than
// kept for reuse once their contents are no longer needed, so that one
// large event or chunk does not pin its memory for the life of the stream.
const sseKeep = 64 << 10

// sseLine is one line of the event being parsed, as offsets from the
// event's first byte: the line is [start:end), its terminator [end:next)
// (empty only for an unterminated last line at Close).
type sseLine struct{ start, end, next int }

// Rewriter turns a stream of body chunks into a stream of complete
// events, each possibly rewritten; it holds back only an incomplete event.
//
// Unchanged events go out byte for byte as received (line endings,
// comments, field order, unknown fields). A rewritten event keeps every
// line that is not a data line (id, event, retry, comments, unknown fields)
// in its original order with its original line ending; the event's data
// lines are replaced, at the position of the first of them, by one
// "data: " line per line of the new data, ended with the event's line
// ending style (LF when its lines mix styles). The empty line that ends an
// event is always kept as received.
//
// An Rewriter is used by one stream; it is not safe for concurrent use.
type Rewriter struct {
	maxEvent int
	rewrite  func(data []byte) ([]byte, bool)

	// hold is the incomplete event, from its first byte; spare is the
	// previous hold, which the last returned slice may alias.
	hold, spare []byte
	// lines are the complete lines of the incomplete event; lineStart is
	// where its current line starts.
	lines     []sseLine
	lineStart int
	// crPending: the last byte taken was a CR ending a line, so an LF
	// first in the next chunk belongs to it. lfDrop: that CR ended an event
	// that was dropped, so such an LF goes too.
	crPending, lfDrop bool
	// closing is set while Close dispatches the final, unterminated event.
	closing bool
	// bomDone is set once the start of the stream was checked for a BOM;
	// until then bomLen bytes of a possible BOM were seen.
	bomDone bool
	bomLen  int

	// The output of one call: alias while it is a single slice of the
	// input or of spare, out once it had to be assembled.
	alias, out []byte
	// data holds the joined data of an event with several data lines.
	data []byte
	err  error
}

// NewRewriter makes a rewriter for one event stream. maxEvent bounds
// one event's size in bytes (gateway.max_event_bytes): the bytes of its
// lines up to the empty line that ends it; values below 1 count as 1, so a
// misconfiguration fails closed rather than unbounded.
//
// rewrite is called once for each complete event that has at least one
// data line, with the joined data exactly as a client sees it (the value
// of each data line, joined with "\n"; "" for a lone empty data line such
// as a priming event's `data: `). data is valid only during the call and
// must not be modified. rewrite returns the replacement data (data itself,
// or equal bytes, leaves the event byte for byte unchanged; nil or empty
// removes the data lines and keeps the event's other lines) and whether to
// drop the whole event, every line of it, from the output (for instance a
// response answered elsewhere). Line breaks in the new data (LF, CR or
// CRLF) start a new data line, so new data can never add fields or events
// (a client reads CR and CRLF there as "\n"). Events without data lines
// (a priming event with only id and retry, comment keep-alives, empty
// events) pass unchanged without a call. A nil rewrite changes nothing.
func NewRewriter(maxEvent int, rewrite func(data []byte) (newData []byte, drop bool)) *Rewriter {
	return &Rewriter{maxEvent: max(maxEvent, 1), rewrite: rewrite}
}

// Write takes the next chunk of the stream and returns the bytes that may
// go out now: every event this chunk completed, rewritten or not, in order.
// It returns nil when the chunk completed no event; those bytes are held.
// Only whole events go out; the one exception is the LF of a CRLF that
// ends an event split between its CR and its LF, which follows in the next
// output (or is dropped with its event). A BOM at the start of the stream
// goes out first, as received.
//
// The returned slice may alias chunk or the rewriter's buffers: it is
// valid until the next Write or Close and must not be modified. When every
// event a chunk completes is unchanged and the chunk did not continue a
// held event, the result is a subslice of chunk, with no copy.
//
// When an event exceeds maxEvent (the held incomplete event, or a complete
// one) Write returns ErrEventTooLarge and no output; the error is sticky
// and the caller fails the stream closed.
func (r *Rewriter) Write(chunk []byte) ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	r.reset()
	p := chunk
	if !r.bomDone {
		if p = r.startStream(p); !r.bomDone {
			return r.result(), nil
		}
	}
	i, evStart := 0, 0
	if r.crPending && len(p) > 0 {
		r.crPending = false
		if p[0] == '\n' {
			if len(r.hold) == 0 {
				// The LF of a CRLF that ended the previous event.
				if !r.lfDrop {
					r.emit(p[:1])
				}
				evStart = 1
			} else if n := len(r.lines); n > 0 {
				r.lines[n-1].next++
				r.lineStart++
			}
			i = 1
		}
	}
	// The event offset of p[k] is base+k. lf and cr cache the position of
	// the next LF and CR at or after i (len(p) when there is none), so each
	// byte is searched at most once for each, however the endings mix.
	base := len(r.hold) - evStart
	lf, cr := -1, -1
	for i < len(p) {
		if lf < i {
			lf = indexByteFrom(p, i, '\n')
		}
		if cr < i {
			cr = indexByteFrom(p, i, '\r')
		}
		t := min(lf, cr)
		if t == len(p) {
			break
		}
		next := t + 1
		if p[t] == '\r' {
			if next == len(p) {
				r.crPending = true
			} else if p[next] == '\n' {
				next++
			}
		}
		end := base + t
		i = next
		if end != r.lineStart {
			r.lines = append(r.lines, sseLine{r.lineStart, end, base + next})
			r.lineStart = base + next
			continue
		}
		// An empty line: the event is complete.
		if end > r.maxEvent {
			return nil, r.fail(ErrEventTooLarge)
		}
		ev := p[evStart:next]
		if len(r.hold) > 0 {
			ev = append(r.hold, ev...)
			r.hold, r.spare = r.spare[:0], ev
		}
		r.dispatch(ev)
		r.lines, r.lineStart = r.lines[:0], 0
		evStart, base = next, -next
	}
	if tail := p[evStart:]; len(tail) > 0 {
		if len(r.hold)+len(tail) > r.maxEvent {
			return nil, r.fail(ErrEventTooLarge)
		}
		r.hold = append(r.hold, tail...)
	}
	return r.result(), nil
}

// Close is called at the end of the stream and returns what is still held:
// an incomplete final event, one the server did not end with an empty line.
//
// WHATWG clients discard such an event, but not every MCP client does: the
// Go SDK's client (v1.8.0, mcp/event.go) dispatches it at EOF. Passing it
// through unchanged would therefore let its data reach those clients
// unfiltered. Close runs it through rewrite like a complete event (a last
// line without a line ending counts as a line, as lenient clients read it)
// and emits the result without adding the empty line: conforming clients
// still discard it, lenient ones see only rewritten data, and an event
// rewrite leaves unchanged goes out byte for byte as received (so a stream
// that rewrite never changes comes out exactly as it went in). A
// rewritten event's new data lines end with a line ending even where the
// original last line had none; to both kinds of client that is the same.
//
// The returned slice is valid until the next call. The rewriter must not be
// used after Close, except that Close returns any earlier error again.
func (r *Rewriter) Close() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	r.reset()
	if !r.bomDone {
		// A stream that ended within what could have been a BOM.
		r.bomDone = true
		r.hold = append(r.hold, utf8BOM[:r.bomLen]...)
	}
	if ev := r.hold; len(ev) > 0 {
		if r.lineStart < len(ev) {
			r.lines = append(r.lines, sseLine{r.lineStart, len(ev), len(ev)})
		}
		if len(ev) > r.maxEvent {
			return nil, r.fail(ErrEventTooLarge)
		}
		r.hold, r.spare = r.spare[:0], ev
		r.closing = true
		r.dispatch(ev)
		r.closing = false
	}
	r.lines, r.lineStart, r.crPending = r.lines[:0], 0, false
	return r.result(), nil
}

// startStream checks the start of the stream for a UTF-8 BOM, which may
// arrive split across chunks, and returns the rest of p. A BOM goes out as
// received (it precedes the first event and belongs to none); bytes that
// began like one but were not become the start of the first line.
func (r *Rewriter) startStream(p []byte) []byte {
	n := 0
	for r.bomLen+n < len(utf8BOM) && n < len(p) && p[n] == utf8BOM[r.bomLen+n] {
		n++
	}
	switch {
	case r.bomLen+n == len(utf8BOM):
		r.bomDone = true
		if r.bomLen == 0 {
			r.emit(p[:n])
		} else {
			r.out = append(r.out, utf8BOM...)
		}
		return p[n:]
	case n == len(p):
		r.bomLen += n
		return p[n:]
	default:
		r.bomDone = true
		r.hold = append(r.hold, utf8BOM[:r.bomLen]...)
		return p
	}
}

// dispatch handles a complete event ev (at Close, one without its ending
// empty line); r.lines are its lines before the empty line.
func (r *Rewriter) dispatch(ev []byte) {
	r.lfDrop = false
	data, n := r.joinData(ev)
	loneCR := r.hasLoneCR(ev)
	if n == 0 || r.rewrite == nil {
		if loneCR {
			r.canonical(ev, data, n > 0)
			return
		}
		r.emit(ev)
		return
	}
	nd, drop := r.rewrite(data)
	switch {
	case drop:
		r.lfDrop = true
	case loneCR:
		// Clients that split lines on LF only (the Go SDK's) would read
		// this event differently from the rewrite: it goes out with LF
		// endings, as everyone reads them.
		unchanged := len(nd) == len(data) && (len(nd) == 0 || &nd[0] == &data[0]) || bytes.Equal(nd, data)
		r.canonical(ev, nd, unchanged)
	case len(nd) == len(data) && (len(nd) == 0 || &nd[0] == &data[0]), bytes.Equal(nd, data):
		r.emit(ev)
	default:
		r.reserialize(ev, nd)
	}
}

// hasLoneCR reports whether a line of the event (not the empty line that
// ends it) ends with a CR alone.
func (r *Rewriter) hasLoneCR(ev []byte) bool {
	for _, l := range r.lines {
		if l.next-l.end == 1 && ev[l.end] == '\r' {
			return true
		}
	}
	return false
}

// canonical appends the event with LF line endings: its non-data lines as
// they are, its data lines replaced by nd (kept even when empty if
// keepData: the data was not removed, only re-ended), and an LF for the
// empty line. A CRLF whose LF is still to come is swallowed (lfDrop).
func (r *Rewriter) canonical(ev, nd []byte, keepData bool) {
	r.materialize()
	written := false
	for _, l := range r.lines {
		if _, ok := dataValue(ev[l.start:l.end]); ok {
			if !written && (len(nd) > 0 || keepData) {
				r.out = appendDataLines(r.out, nd, "\n")
			}
			written = true
			continue
		}
		r.out = append(append(r.out, ev[l.start:l.end]...), '\n')
	}
	if !r.closing { // at Close the event has no empty line
		r.out = append(r.out, '\n')
		r.lfDrop = ev[len(ev)-1] == '\r'
	}
}

// joinData returns the event's joined data and its number of data lines.
// With one data line the data is a slice of ev; with more it is joined in
// r.data.
func (r *Rewriter) joinData(ev []byte) (data []byte, n int) {
	for _, l := range r.lines {
		v, ok := dataValue(ev[l.start:l.end])
		if !ok {
			continue
		}
		switch n {
		case 0:
			data = v
		case 1:
			r.data = append(r.data[:0], data...)
			r.data = append(append(r.data, '\n'), v...)
			data = r.data
		default:
			r.data = append(append(r.data, '\n'), v...)
			data = r.data
		}
		n++
	}
	return data, n
}

// dataValue returns the value of a data line (field name exactly "data",
// followed by ':' or nothing; one space after the colon is not part of the
// value), and whether line is one.
func dataValue(line []byte) ([]byte, bool) {
	if len(line) < 4 || string(line[:4]) != "data" {
		return nil, false
	}
	if len(line) == 4 {
		return line[4:], true
	}
	if line[4] != ':' {
		return nil, false
	}
	v := line[5:]
	if len(v) > 0 && v[0] == ' ' {
		v = v[1:]
	}
	return v, true
}

// reserialize appends ev with its data lines replaced by nd.
func (r *Rewriter) reserialize(ev, nd []byte) {
	nl := r.lineEnding(ev)
	r.materialize()
	k, written := 0, false // ev[k:] is not written yet
	for _, l := range r.lines {
		if _, ok := dataValue(ev[l.start:l.end]); !ok {
			continue
		}
		r.out = append(r.out, ev[k:l.start]...)
		k = l.next
		if !written && len(nd) > 0 {
			r.out = appendDataLines(r.out, nd, nl)
		}
		written = true
	}
	r.out = append(r.out, ev[k:]...) // with the empty line, as received
}

// lineEnding is the line ending the event's lines share ("\n" when they
// mix styles or none has one). The ending of the empty line that ends the
// event is not considered: its CR may arrive without the LF that follows.
func (r *Rewriter) lineEnding(ev []byte) string {
	const lf, cr, crlf = 1, 2, 4
	seen := 0
	for _, l := range r.lines {
		switch {
		case l.next-l.end == 2:
			seen |= crlf
		case l.next-l.end == 1 && ev[l.end] == '\r':
			seen |= cr
		case l.next-l.end == 1:
			seen |= lf
		}
	}
	switch seen {
	case cr:
		return "\r"
	case crlf:
		return "\r\n"
	}
	return "\n"
}

// appendDataLines appends one data line per line of nd (not empty), each
// ended by nl.
// LF, CR and CRLF in nd all end a line: a client would read any of them as
// one, so none may reach the output inside a data line.
func appendDataLines(out, nd []byte, nl string) []byte {
	for {
		j := lineBreak(nd)
		line := nd
		if j >= 0 {
			line = nd[:j]
		}
		out = append(out, "data:"...)
		if len(line) > 0 {
			out = append(append(out, ' '), line...)
		}
		out = append(out, nl...)
		if j < 0 {
			return out
		}
		if nd[j] == '\r' && j+1 < len(nd) && nd[j+1] == '\n' {
			j++
		}
		nd = nd[j+1:]
	}
}

// reset starts the output of a call. Buffers whose contents are no longer
// needed are released when large.
func (r *Rewriter) reset() {
	r.alias = nil
	// out is kept at the size recent calls needed, not the largest ever.
	if cap(r.out) > sseKeep && cap(r.out) > 2*len(r.out) {
		r.out = nil
	}
	r.out = r.out[:0]
	if cap(r.spare) > sseKeep {
		r.spare = nil
	}
	if len(r.hold) == 0 && cap(r.hold) > sseKeep {
		r.hold = nil
	}
	if cap(r.data) > sseKeep {
		r.data = nil
	}
}

// emit adds b to the output: as a slice while the output is one run of
// contiguous input, copied once it is not.
func (r *Rewriter) emit(b []byte) {
	if len(b) == 0 {
		return
	}
	if len(r.out) == 0 {
		a := r.alias
		if a == nil {
			r.alias = b
			return
		}
		if cap(a)-len(a) >= len(b) && &a[:len(a)+1][len(a)] == &b[0] {
			r.alias = a[:len(a)+len(b)]
			return
		}
	}
	r.materialize()
	r.out = append(r.out, b...)
}

// materialize moves an aliased output into r.out, to append to it.
func (r *Rewriter) materialize() {
	if r.alias != nil {
		r.out = append(r.out, r.alias...)
		r.alias = nil
	}
}

func (r *Rewriter) result() []byte {
	if r.alias != nil {
		return r.alias
	}
	if len(r.out) == 0 {
		return nil
	}
	return r.out
}

func (r *Rewriter) fail(err error) error {
	r.err = err
	r.hold, r.spare, r.lines, r.alias, r.out, r.data = nil, nil, nil, nil, nil, nil
	return err
}

// lineBreak returns the index of the first CR or LF in b, or -1. Each byte
// is searched at most twice, with IndexByte (bytes.IndexAny tests bytes one
// by one).
func lineBreak(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		i = len(b)
	}
	if j := bytes.IndexByte(b[:i], '\r'); j >= 0 {
		return j
	}
	if i == len(b) {
		return -1
	}
	return i
}

func indexByteFrom(p []byte, i int, c byte) int {
	if k := bytes.IndexByte(p[i:], c); k >= 0 {
		return i + k
	}
	return len(p)
}
