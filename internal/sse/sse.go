// Package sse rewrites a stream of server-sent events (text/event-stream)
// as it streams: each body chunk goes to a Rewriter, which returns the
// events that chunk completed and holds back only the incomplete one (a
// stream is never buffered to its end, since an MCP client may have to
// answer a server request before the stream goes on). What an event's data
// becomes is the caller's: the package knows nothing of MCP or JSON-RPC.
//
// Parsing follows the WHATWG HTML "server-sent events" rules: lines end
// with CRLF, LF or CR (a CRLF split across chunks still counts once); an
// empty line ends an event; a line starting with ':' is a comment;
// otherwise the field name runs to the first ':' (or the whole line) and
// one space after the colon is dropped from the value; the values of `data`
// lines (case-sensitive) are joined with "\n".
//
// Clients do not all read a stream that way (see Rewriter), so what goes
// out has one reading: the canonical form of what was parsed. UTF-8 with
// no BOM, LF line endings, data lines, `id`, `event` and `retry` lines in a
// form every client reads alike, comments emptied, and nothing else.
package sse

import (
	"bytes"
	"encoding/binary"
	"errors"

	"github.com/cloudg/mcp-privacy/internal/streq"
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
// What goes out is read alike by every client, whatever each makes of the
// bytes received. The readings differ: eventsource-parser (the TypeScript
// SDK's client, 3.x) drops the characters "ï»¿" (a BOM decoded as Latin-1)
// at the start of the stream; httpx-sse (the Python SDK's client, 0.4.1,
// over httpx's LineDecoder) ends lines wherever Python's str.splitlines
// does, also at VT, FF, FS, GS, RS, NEL, U+2028 and U+2029; the go-sdk's
// client (v1.8.0, mcp/event.go, scanEventsLimited) ends lines at LF only,
// trims values and fails on a line without a colon. So an event goes out
// in its canonical form:
//
//   - its lines end with LF, the empty line that ends it too;
//   - its data lines: "data: " and the value (or "data:" for an empty one),
//     one per line of its data, where every character some client reads
//     as a line break starts a new line (data the caller keeps as it is
//     must not hold one: JSON can escape them, see NewRewriter);
//   - `id` and `event` lines whose value is printable ASCII without
//     spaces, and `retry` lines whose value is digits, in place; others
//     are dropped (an id a client cannot resume from is no id);
//   - each comment as an empty comment, ":" (keep-alives keep working,
//     their text goes nowhere);
//   - any other line (an unknown field, a field name a client reads
//     otherwise, such as "ï»¿data") is dropped.
//
// A BOM at the start of the stream is dropped. An event already in its
// canonical form, whose data the rewrite leaves unchanged (every event of
// a well-behaved server), goes out byte for byte as received, without a
// copy. Events that end up with no line go out as nothing.
//
// An Rewriter is used by one stream; it is not safe for concurrent use.
type Rewriter struct {
	maxEvent int
	rewrite  func(data []byte) ([]byte, bool)
	// judge, when set, must accept the value of each id and event line
	// that goes out (JudgeFields).
	judge FieldJudge

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
// or equal bytes, leaves the data unchanged; nil or empty removes the data
// lines and keeps the event's other lines) and whether to drop the whole
// event, every line of it, from the output (for instance a response
// answered elsewhere). Every character a client reads as a line break in
// the data (LF, CR, CRLF, and VT, FF, FS, GS, RS, NEL, U+2028, U+2029 for
// Python's) starts a new data line, so data can never add fields or events
// for any client; data that must stay one line (JSON) is returned with
// those characters escaped. Events without data lines (a priming event
// with only id and retry, comment keep-alives, empty events) are written
// in their canonical form without a call. A nil rewrite changes no data.
func NewRewriter(maxEvent int, rewrite func(data []byte) (newData []byte, drop bool)) *Rewriter {
	return &Rewriter{maxEvent: max(maxEvent, 1), rewrite: rewrite}
}

// FieldJudge judges the value of an id or event line (JudgeFields).
type FieldJudge interface {
	// JudgeField gets the field's name and value, valid only during the
	// call, and reports whether the line may go out.
	JudgeField(name, value []byte) bool
}

// JudgeFields sets a check on the id and event lines that would go out
// (plain ones, see Rewriter): a line judge refuses is dropped like a line
// that is not plain. Clients hand ids and event names to their
// application (a resumption token, a log line), so their text is the
// caller's to judge. (An interface, not a func: a pointer to the caller's
// state costs no allocation per stream.)
func (r *Rewriter) JudgeFields(judge FieldJudge) { r.judge = judge }

// Write takes the next chunk of the stream and returns the bytes that may
// go out now: every event this chunk completed, rewritten or not, in order.
// It returns nil when the chunk completed no event; those bytes are held.
// Only whole events go out; the one exception is the LF of a CRLF that
// ends an event split between its CR and its LF, which is dropped (the
// event went out with LF endings). A BOM at the start of the stream is
// dropped.
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
// arrive split across chunks, and returns the rest of p. A BOM is dropped
// (clients that decode UTF-8 by the WHATWG rules drop it, Python's "utf-8"
// codec keeps it in the first field name); bytes that began like one but
// were not become the start of the first line.
func (r *Rewriter) startStream(p []byte) []byte {
	n := 0
	for r.bomLen+n < len(utf8BOM) && n < len(p) && p[n] == utf8BOM[r.bomLen+n] {
		n++
	}
	switch {
	case r.bomLen+n == len(utf8BOM):
		r.bomDone = true
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
	plain := r.plain(ev)
	if n == 0 || r.rewrite == nil {
		if plain {
			r.emit(ev)
			return
		}
		r.canonical(ev, data, n > 0)
		return
	}
	nd, drop := r.rewrite(data)
	unchanged := len(nd) == len(data) && (len(nd) == 0 || &nd[0] == &data[0]) || streq.Bytes(nd, data)
	switch {
	case drop:
		r.lfDrop = true
	case unchanged && plain:
		r.emit(ev)
	default:
		r.canonical(ev, nd, unchanged)
	}
}

// plain reports whether the event is in its canonical form already: every
// line ended by LF (at Close the last may have no ending), the empty line
// that ends it an LF, each line a data line with a colon, a plain id,
// event or retry line, or an empty comment, and no byte of it a line break
// to some client but LF.
func (r *Rewriter) plain(ev []byte) bool {
	end := 0
	for _, l := range r.lines {
		if l.next-l.end != 1 || ev[l.end] != '\n' {
			if !r.closing || l.next != len(ev) || l.next != l.end {
				return false
			}
		}
		if line := ev[l.start:l.end]; !plainLine(line) || r.judge != nil && !r.judged(line) {
			return false
		}
		end = l.next
	}
	if !r.closing && (len(ev)-end != 1 || ev[end] != '\n') {
		return false
	}
	return !hasOddBreak(ev)
}

// hasOddBreak reports whether b holds a byte oddBreak marks. Eight bytes
// at a time are passed over while none is a control byte or above ASCII
// (JSON text is mostly ASCII; the loop costs what a byte search does).
func hasOddBreak(b []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if (w|(w-0x20*ones)&^w)&highs == 0 {
			continue
		}
		for _, c := range b[i : i+8] {
			if oddBreak[c] {
				return true
			}
		}
	}
	for _, c := range b[i:] {
		if oddBreak[c] {
			return true
		}
	}
	return false
}

// judged reports whether judge accepts a plain line that is not data or a
// comment (data and comments are not its to judge).
func (r *Rewriter) judged(line []byte) bool {
	if line[0] == ':' || len(line) >= 5 && string(line[:5]) == "data:" {
		return true
	}
	name, value, _ := bytes.Cut(line, []byte{':'})
	if len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	return string(name) == "retry" || r.judge.JudgeField(name, value)
}

// oddBreak marks the bytes that may start a line break to some client
// other than CR and LF: VT, FF, FS, GS, RS, and the first bytes of NEL,
// U+2028 and U+2029 in UTF-8 (which also start other characters).
var oddBreak = [256]bool{0x0B: true, 0x0C: true, 0x1C: true, 0x1D: true, 0x1E: true, 0xC2: true, 0xE2: true}

// plainLine reports whether a line is canonical as it is: "data:" and
// anything, an empty comment, or an id, event or retry line that
// plainField keeps, written with a colon.
func plainLine(line []byte) bool {
	if len(line) >= 5 && string(line[:5]) == "data:" || len(line) == 1 && line[0] == ':' {
		return true
	}
	name, value, ok := bytes.Cut(line, []byte{':'})
	return ok && plainField(name, value) != ""
}

// plainField returns the name of a field kept in the output, with value
// as received after the colon (one leading space is not part of it): id
// and event when the value is printable ASCII without spaces (clients
// trim, keep or drop others differently: the go-sdk trims spaces,
// eventsource-parser and httpx-sse ignore an id with NUL), retry when it
// is digits (the others are ignored by every client). Anything else is "".
func plainField(name, value []byte) string {
	if len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	switch string(name) {
	case "id", "event":
		for _, c := range value {
			if c <= ' ' || c >= 0x7F {
				return ""
			}
		}
		return string(name)
	case "retry":
		if len(value) == 0 {
			return ""
		}
		for _, c := range value {
			if c < '0' || c > '9' {
				return ""
			}
		}
		return "retry"
	}
	return ""
}

// canonical appends the event in its canonical form (see Rewriter): its
// data lines replaced by nd (kept even when empty if keepData: the data
// was not removed, only rewritten), its id, event and retry lines when
// plain, its comments emptied, other lines dropped, and an LF for the
// empty line. A CRLF whose LF is still to come is swallowed (lfDrop).
func (r *Rewriter) canonical(ev, nd []byte, keepData bool) {
	r.materialize()
	start := len(r.out)
	written := false
	for _, l := range r.lines {
		line := ev[l.start:l.end]
		if _, ok := dataValue(line); ok {
			if !written && (len(nd) > 0 || keepData) {
				r.out = appendDataLines(r.out, nd)
			}
			written = true
			continue
		}
		if len(line) > 0 && line[0] == ':' {
			r.out = append(r.out, ":\n"...)
			continue
		}
		name, value, _ := bytes.Cut(line, []byte{':'})
		f := plainField(name, value)
		if f == "" {
			continue
		}
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		if f != "retry" && r.judge != nil && !r.judge.JudgeField(name, value) {
			continue
		}
		r.out = append(r.out, name...)
		r.out = append(r.out, ':')
		if len(value) > 0 {
			r.out = append(append(r.out, ' '), value...)
		}
		r.out = append(r.out, '\n')
	}
	if !r.closing { // at Close the event has no empty line
		if len(r.out) > start {
			r.out = append(r.out, '\n')
		}
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

// appendDataLines appends one data line per line of nd (not empty), each
// ended by LF. Every line break a client reads (breakAt) ends a line, so
// none may reach the output inside a data line.
func appendDataLines(out, nd []byte) []byte {
	for {
		j, n := nextBreak(nd)
		line := nd
		if j >= 0 {
			line = nd[:j]
		}
		out = append(out, "data:"...)
		if len(line) > 0 {
			out = append(append(out, ' '), line...)
		}
		out = append(out, '\n')
		if j < 0 {
			return out
		}
		nd = nd[j+n:]
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

// nextBreak returns the index and length of the first line break in b
// that some client reads as one (breakAt), or -1.
func nextBreak(b []byte) (int, int) {
	for i, c := range b {
		if c == '\n' || c == '\r' || oddBreak[c] {
			if n := breakAt(b, i); n > 0 {
				return i, n
			}
		}
	}
	return -1, 0
}

// breakAt returns the length of the line break at b[i], 0 if there is
// none: LF, CR and CRLF end a line for every client; VT, FF, FS, GS, RS,
// NEL (U+0085), U+2028 and U+2029 for httpx-sse, whose lines are Python's
// str.splitlines (httpx 0.28, _decoders.py, LineDecoder.decode).
func breakAt(b []byte, i int) int {
	switch b[i] {
	case '\n', 0x0B, 0x0C, 0x1C, 0x1D, 0x1E:
		return 1
	case '\r':
		if i+1 < len(b) && b[i+1] == '\n' {
			return 2
		}
		return 1
	case 0xC2:
		if i+1 < len(b) && b[i+1] == 0x85 {
			return 2
		}
	case 0xE2:
		if i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9) {
			return 3
		}
	}
	return 0
}

func indexByteFrom(p []byte, i int, c byte) int {
	if k := bytes.IndexByte(p[i:], c); k >= 0 {
		return i + k
	}
	return len(p)
}
