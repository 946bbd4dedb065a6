package transforms

import (
	"bytes"
	"encoding/base64"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/streq"
	"github.com/cloudg/mcp-privacy/transforms/detect"
)

// The walk of a JSON document by a run of string steps (runDocument): each
// string, name and number the steps' fields reach, read by its schema
// shape (structural.go), with the cheap checks that let most of them go
// by unscanned.

// runDocument runs a run of string steps over the strings of a JSON
// structure in one walk: each string gets, in order, the steps whose
// fields reach it and whose exclude_fields do not. The walk reads the
// structure as the schema shape sh: structural strings are left alone
// (structural.go), and so are the places that are targets of their own.
//
// shares (pairTexts), in node order, are the subtrees of the structure
// another place repeats: in a JSON text, twins, left to their sources; in
// the message, sources, whose counts count for their twins too.
func (e *Engine) runDocument(sg *stepRun, d *jsondoc.Doc, root int32, sh shape, separate bool, shares []share, run *Run) {
	// Protocol text (descriptions, titles, a message's other members) is
	// mostly clean: each string is looked at in place before it is
	// copied. Data (structuredContent, arguments, JSON text) often holds
	// findings, which the look would only scan twice.
	w := docWalk{e: e, sg: sg, d: d, run: run, separate: separate, precheck: sh != shData, detects: runDetects(sg), shares: shares}
	if run.sc != nil {
		w.keys, w.kcache = run.sc.keys[:0], &run.sc.kcache
		defer func() { run.sc.keys = w.keys[:0] }()
	}
	if sg.scoped {
		w.in, w.out = make([]map[int32]bool, len(sg.steps)), make([]map[int32]bool, len(sg.steps))
		for i, st := range sg.steps {
			if len(st.fields) > 0 {
				w.in[i] = st.fields.Nodes(d, root)
			}
			if len(st.exclude) > 0 {
				w.out[i] = st.exclude.Nodes(d, root)
			}
		}
	}
	if shares != nil && w.shared(root, sh, ^sg.fieldMask, 0) {
		return
	}
	w.visit(root, sh, ^sg.fieldMask, 0, false)
}

// docWalk is runDocument's walk of one structure. A walk without fields
// or exclude_fields (most: every output pipeline of the standard
// profiles) gives every node the same steps, so its containers read their
// members themselves: a boolean, a clean name or a structural value costs
// no call, which inside the VM costs more than the look itself.
type docWalk struct {
	e        *Engine
	sg       *stepRun
	d        *jsondoc.Doc
	run      *Run
	separate bool
	precheck bool
	detects  bool               // some step of the run detects (runDetects)
	in, out  []map[int32]bool   // per step: the nodes its fields and exclude_fields reach
	names    map[int32]*nameSet // the objects whose members were renamed
	looks    [2]stepLook        // what the steps of the last two masks do (look)
	nextLook uint8              // the slot of looks the next new mask takes
	// shares are the twins or sources of the structure (runDocument), in
	// node order, which is the walk's; next is the first not passed.
	shares []share
	next   int
	// keys holds the Keys of the members of the data objects being
	// walked (a stack: each object's after its parent's); nested is the
	// context the member being entered gives the object or list it
	// holds, elem the Key of the scalars of a list (keyed.go).
	keys   []detect.Key
	nested detect.KeyContext
	elem   detect.Key
	cur    detect.Key // the Key of the next scalar walked
	kcache *keyCache  // the scratch's (nil: none)
}

// shared walks node n, reached as sh, if it is a share, and reports
// whether it was: a twin is left alone (writeTwins writes it), a source
// walked with its counts counting for its twins as well. Walks without
// fields or exclude_fields only (Pipeline.mirrorable).
func (w *docWalk) shared(n int32, sh shape, reached, excluded uint64) bool {
	for w.next < len(w.shares) && w.shares[w.next].node < n {
		w.next++
	}
	if w.next == len(w.shares) || w.shares[w.next].node != n {
		return false
	}
	twins := w.shares[w.next].twins
	if twins == 0 {
		return true
	}
	run := w.run
	times := run.times
	run.times = run.weight() + twins
	w.visit(n, sh, reached, excluded, false) // its name is its parent's to read
	run.times = times
	return true
}

// stepLook is what the steps of one mask may do to a string, as
// Engine.mayChange works it out: worked out once per walk, not per
// string (a walk without fields sees two masks: text, and protocol
// values).
type stepLook struct {
	mask     uint64
	known    bool
	always   bool // a step that may change any string
	maxChars int  // the shortest truncation (math.MaxInt: none)
	scans    bool // a scanning step
}

// look is the stepLook of mask.
func (w *docWalk) look(mask uint64) *stepLook {
	for i := range w.looks {
		if l := &w.looks[i]; l.known && l.mask == mask {
			return l
		}
	}
	l := &w.looks[w.nextLook&1]
	w.nextLook++
	*l = stepLook{mask: mask, known: true, maxChars: math.MaxInt}
	for i, st := range w.sg.steps {
		if mask&(1<<i) == 0 {
			continue
		}
		switch {
		case st.kind == stepTruncate:
			l.maxChars = min(l.maxChars, st.maxChars)
		case st.detecting():
			l.scans = l.scans || st.scan
		default:
			l.always = true
		}
	}
	return l
}

// unchanged reports whether the steps of mask surely leave plain string
// raw (no escapes) as it is, looking in place: Engine.mayChange, and
// runText's reading of base64 (a base64 word whose first characters do
// not decode to text carries none, notBase64Text).
func (w *docWalk) unchanged(raw []byte, mask uint64) bool {
	if len(raw) == 0 {
		return true // no step changes an empty string, nor reads base64 in it
	}
	if len(raw) >= minBase64Text && base64Word(raw) && !notBase64Text(raw) {
		return false
	}
	l := &w.looks[0] // look, in line for the two masks it keeps
	if !l.known || l.mask != mask {
		if l = &w.looks[1]; !l.known || l.mask != mask {
			l = w.look(mask)
		}
	}
	if l.always || len(raw) > l.maxChars {
		return false
	}
	e := w.e
	return !l.scans || !w.run.key.Reports() && e.detectors.SurelyClean(bytesView(raw)) || len(e.detect(bytesView(raw), &w.sg.anyScan, w.sg.anyScanID, w.run)) == 0
}

func (w *docWalk) visit(n int32, sh shape, reached, excluded uint64, named bool) {
	sg := w.sg
	if sg.scoped {
		for i := range sg.steps {
			if w.out[i][n] {
				excluded |= 1 << i
			}
			if w.in[i][n] {
				reached |= 1 << i
			}
		}
	}
	if named {
		w.e.runName(sg, w.d, n, reached&^excluded&sg.findMask, &w.names, w.run)
	}
	switch w.d.Kind(n) {
	case jsondoc.String:
		w.run.key, w.cur = w.cur, 0
		w.str(n, sh, reached&^excluded)
		w.run.key = 0
	case jsondoc.Number:
		w.run.key, w.cur = w.cur, 0
		w.number(n, sh, reached&^excluded)
		w.run.key = 0
	case jsondoc.Object:
		w.object(n, sh, reached, excluded)
	case jsondoc.Array:
		w.array(n, sh, reached, excluded)
	}
}

// object walks the members of object n reached as sh.
func (w *docWalk) object(n int32, sh shape, reached, excluded uint64) {
	if skipped(sh, w.separate) {
		return
	}
	d, run := w.d, w.run
	if sh <= shEnvelope || sh == shContent || sh == shInputParams {
		sh = refine(d, n, sh)
	}
	// A data object's members are read with what their names say
	// (keyed.go).
	ctx, k0, keyed := w.nested, len(w.keys), false
	w.nested = 0
	if w.detects && sh == shData {
		ctx, keyed = w.memberKeys(n, ctx)
	}
	if w.sg.scoped {
		// Each member may be reached by other steps: visit works it out.
		i := k0
		for c := d.First(n); c != jsondoc.None && !run.Blocked; c = d.Next(c) {
			csh := childOf(d, c, sh)
			if keyed {
				w.enter(ctx, w.keys[i])
				i++
			} else {
				w.cur = 0
			}
			w.visit(c, csh, reached, excluded, nameIsData(sh, csh))
		}
		w.keys = w.keys[:k0]
		w.cur, w.nested, w.elem = 0, 0, 0
		return
	}
	mask := reached &^ excluded
	nameMask := mask & w.sg.findMask
	every, table := memberShapes(sh)
	i := k0
	for c := d.First(n); c != jsondoc.None && !run.Blocked; c = d.Next(c) {
		if keyed {
			w.enter(ctx, w.keys[i])
			i++
		} else {
			w.cur = 0
		}
		key, plain := d.KeyRaw(c)
		csh := every
		switch {
		case table == nil:
		case plain && len(key) > 0:
			// memberTable.shapeOf, in line.
			csh = shData
			for _, m := range table[bucket(key)] {
				if len(key) == len(m.key) && jsondoc.SameBytes(key, m.key) {
					csh = m.sh
					break
				}
			}
		default:
			csh = table.shapeOf(d, c)
		}
		if nameMask != 0 && nameIsData(sh, csh) && (!plain || !w.e.detectors.SurelyClean(bytesView(key))) {
			// Most names are short words, settled here as runName
			// would first (only detecting steps read names).
			w.e.runName(w.sg, d, c, nameMask, &w.names, run)
		}
		if w.shares != nil && w.next < len(w.shares) && w.shares[w.next].node <= c && w.shared(c, csh, reached, excluded) {
			continue // a share (shared's first test, in line)
		}
		switch d.Kind(c) {
		case jsondoc.String:
			run.key, w.cur = w.cur, 0
			w.str(c, csh, mask)
			run.key = 0
		case jsondoc.Number:
			run.key, w.cur = w.cur, 0
			w.number(c, csh, mask)
			run.key = 0
		case jsondoc.Object:
			w.object(c, csh, reached, excluded)
		case jsondoc.Array:
			w.array(c, csh, reached, excluded)
		}
	}
	w.keys = w.keys[:k0]
	w.cur, w.nested, w.elem = 0, 0, 0
}

// array walks the elements of array n reached as sh.
func (w *docWalk) array(n int32, sh shape, reached, excluded uint64) {
	if isPart(sh) || sh == shOpaque {
		sh = shData // what these places hold is an object, or a string
	}
	if skipped(sh, w.separate) {
		return
	}
	if sh == shEnvID {
		sh = shData // an id, method or version is never a list
	}
	d, run := w.d, w.run
	// The elements of a list under a key are what the key says (given
	// names, customers).
	nested, elem := w.nested, w.elem
	w.nested, w.elem = 0, 0
	if w.sg.scoped {
		for c := d.First(n); c != jsondoc.None && !run.Blocked; c = d.Next(c) {
			w.cur, w.nested = elem, nested
			w.visit(c, sh, reached, excluded, false)
		}
		w.cur, w.nested, w.elem = 0, 0, 0
		return
	}
	mask := reached &^ excluded
	for c := d.First(n); c != jsondoc.None && !run.Blocked; c = d.Next(c) {
		w.cur, w.nested = elem, nested
		if w.shares != nil && w.next < len(w.shares) && w.shares[w.next].node <= c && w.shared(c, sh, reached, excluded) {
			continue // a share (shared's first test, in line)
		}
		switch d.Kind(c) {
		case jsondoc.String:
			run.key, w.cur = w.cur, 0
			w.str(c, sh, mask)
			run.key = 0
		case jsondoc.Number:
			run.key, w.cur = w.cur, 0
			w.number(c, sh, mask)
			run.key = 0
		case jsondoc.Object:
			w.object(c, sh, reached, excluded)
		case jsondoc.Array:
			w.array(c, sh, reached, excluded)
		}
	}
	w.cur, w.nested, w.elem = 0, 0, 0
}

// str runs the steps of mask over string node n reached as sh.
func (w *docWalk) str(n int32, sh shape, mask uint64) {
	if mask == 0 {
		return
	}
	e, sg, d, run := w.e, w.sg, w.d, w.run
	raw, plain := d.StrRaw(n)
	rd := readText
	if sh != shData {
		if rd = readings[b2i(w.separate)][sh]; rd == readByValue {
			if toks := tokens[sh]; toks != nil && plain {
				// An enumeration's value, written plainly: readingAt,
				// in line.
				rd = readText
				for _, t := range toks {
					if len(raw) == len(t) && jsondoc.SameBytes(raw, t) {
						rd = readNone
						break
					}
				}
			} else {
				rd = readingAt(d, n, sh, w.separate)
			}
		}
	}
	// A data: URI (checked by its first byte before anything is called),
	// wherever it is: its base64 is read for the text it carries (a
	// protocol value then holds nothing more). One whose "base64" is not
	// base64 (text after ;base64,) carries nothing: it is read for what
	// it says, as any protocol value.
	if rd != readNone && w.detects && (!plain || len(raw) > 0 && raw[0] == 'd') && inlineBase64(d, n) {
		read := e.dataURINode(sg, d, n, mask, run)
		if run.Blocked {
			return
		}
		if rd != readText {
			if read {
				return
			}
			rd = readFindings
		}
	}
	look := w.precheck // look in place before running the steps
	switch rd {
	case readText:
	case readFindings:
		// Only what a detector finds changes a protocol value.
		if mask &= sg.findMask; mask == 0 {
			return
		}
		look = true
	default: // readNone, and readInline without a detecting step
		return
	}
	// A string without escapes is run as a view of the document's bytes:
	// only what the steps change is copied (PseudonymStore copies what it
	// keeps).
	var s string
	if plain {
		if look && w.unchanged(raw, mask) {
			return // nothing to find
		}
		s = bytesView(raw)
	} else {
		s, _ = d.Str(n)
	}
	if r := e.runText(sg, s, mask, run); !streq.Same(r, s) {
		d.SetString(n, r)
	}
}

// number runs the steps of mask over number node n reached as sh. A
// number is read as its readers print it back (numberReadings: a card
// number sent as 4111111111111111 or as 4.111111111111111e15); what the
// detectors find makes it a string (runNumber). Protocol numbers (error
// codes, progress) are too short for any built-in.
func (w *docWalk) number(n int32, sh shape, mask uint64) {
	e, sg, d, run := w.e, w.sg, w.d, w.run
	if mask &= sg.findMask; mask == 0 || !numberRead(sh, w.separate) || d.Replaced(n) {
		return
	}
	raw := d.Raw(n)
	if len(raw) < minDetectedNumber && !e.detectors.HasCustom() && !mayGrow(raw) && !run.key.Reports() {
		return // no reading is long enough for a built-in, and no key says what it is
	}
	if plainNumber(raw) {
		// The common case: every reader prints it as sent.
		if e.mayChange(sg, raw, mask, run) {
			if r := e.runString(sg, bytesView(raw), mask, run); r != bytesView(raw) {
				d.SetString(n, r)
			}
		}
		return
	}
	if r, ok := e.runNumber(sg, raw, mask, run); ok {
		d.SetString(n, r)
	}
}

// numberRead reports whether a number reached as sh is read: not where
// another target reads it (structuredContent that is a number, under
// separate, is one of its own: structure), nor the envelope's id.
func numberRead(sh shape, separate bool) bool {
	return sh != shOwn && sh != shEnvID && !(separate && sh == shSepStructured)
}

// notBase64Text reports whether base64 word raw (base64Word) surely
// carries no text: its first characters (at most 16, before any padding)
// decode, in the alphabet base64Text would pick, to bytes that are not
// UTF-8 text however they go on, so base64Text fails. Most identifiers
// that are base64 words ("summarize_customer") fail at the first bytes,
// and are then looked at as any string, without the decoding. False when
// it cannot tell.
func notBase64Text(raw []byte) bool {
	head := raw[:min(len(raw), 16)]
	if i := bytes.IndexByte(head, '='); i >= 0 {
		head = head[:i]
	}
	enc := base64.RawStdEncoding
	if bytes.ContainsAny(raw, "-_") {
		enc = base64.RawURLEncoding
	}
	var buf [12]byte
	// Line breaks are skipped, as base64Text removes them; a head cut
	// inside a quantum decodes the bytes it holds whole.
	k, err := enc.Decode(buf[:], head)
	return err == nil && !textBytes(buf[:k], true)
}

// runName runs the detecting steps of mask over the name of member n (see
// nameIsData); the depseudonymiser leaves names alone (MCP_PRIVACY.md
// 13.6). A new name equal to a sibling's, or to one under case folding
// (two addresses redacted to one placeholder), gets a number, so the
// object keeps its members apart. names holds, per object, the names
// taken (folded) and the next number of each new name: renaming every
// member of a large object stays linear.
func (e *Engine) runName(sg *stepRun, d *jsondoc.Doc, n int32, mask uint64, names *map[int32]*nameSet, run *Run) {
	if mask == 0 {
		return
	}
	var k string
	if raw, ok := d.KeyRaw(n); ok {
		// Most names are short words: settled before mayChange looks at
		// the steps (only detecting steps read names).
		if e.detectors.SurelyClean(bytesView(raw)) || !e.mayChange(sg, raw, mask, run) {
			return // the common case: nothing to find
		}
		k = bytesView(raw) // copied only if the steps change it
	} else {
		k = d.Key(n)
	}
	r := e.runString(sg, k, mask, run)
	if r == k || run.Blocked {
		return
	}
	parent := d.Parent(n)
	if *names == nil {
		*names = map[int32]*nameSet{}
	}
	ns := (*names)[parent]
	if ns == nil {
		ns = &nameSet{taken: map[string]bool{}, next: map[string]int{}}
		for c := d.First(parent); c != jsondoc.None; c = d.Next(c) {
			ns.taken[jsondoc.FoldKey(d.Key(c))] = true
		}
		(*names)[parent] = ns
	}
	delete(ns.taken, jsondoc.FoldKey(k))
	name := r
	for i := max(ns.next[r], 2); ns.taken[jsondoc.FoldKey(name)]; i++ {
		name = r + " (" + strconv.Itoa(i) + ")"
		ns.next[r] = i + 1
	}
	ns.taken[jsondoc.FoldKey(name)] = true
	d.SetKey(n, name)
}

// nameSet is what runName knows of one object's names.
type nameSet struct {
	taken map[string]bool // folded
	next  map[string]int  // the next number to try after each new name
}

// minDetectedNumber is the shortest reading of a JSON number a built-in
// detector can find anything in (a 13-digit card number).
const minDetectedNumber = 13

// inlineBase64 reports whether string node n is a whole data: URI with
// base64 data (data:text/plain;base64,…): what it says is in its base64.
func inlineBase64(d *jsondoc.Doc, n int32) bool {
	raw, ok := d.StrRaw(n)
	if !ok {
		s, _ := d.Str(n)
		return strings.HasPrefix(s, "data:") && strings.Contains(s, ";base64,")
	}
	return bytes.HasPrefix(raw, []byte("data:")) && bytes.Contains(raw, []byte(";base64,"))
}

// dataURINode runs the string steps of mask over the text the base64 of
// data: URI n carries, as a result's binary items are read
// (binarytext.go). It reports whether the URI carries base64 (text it
// read, or bytes such as an image's); false when what follows ;base64,
// is not base64, which no reader decodes and every reader reads as it is.
func (e *Engine) dataURINode(sg *stepRun, d *jsondoc.Doc, n int32, mask uint64, run *Run) bool {
	s, _ := d.Str(n)
	i := strings.Index(s, ";base64,") + len(";base64,")
	head, payload := s[:i], s[i:]
	out, isText := e.base64Steps(sg, payload, mask, false, run)
	if out != payload && !run.Blocked {
		d.SetString(n, head+out)
	}
	return isText || base64Form(payload)
}

// base64Form reports whether s holds only characters of the base64
// alphabets, padding and line breaks.
func base64Form(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9',
			c == '+', c == '/', c == '-', c == '_', c == '=', c == '\r', c == '\n':
		default:
			return false
		}
	}
	return true
}

// mayChange reports whether the steps of a run that mask selects could
// change or find anything in raw, the bytes of a string written without
// escapes. Most strings of a message hold nothing: they are looked at in
// place, and only the others copied and run (runString).
func (e *Engine) mayChange(sg *stepRun, raw []byte, mask uint64, run *Run) bool {
	if len(raw) == 0 {
		return false
	}
	// A view, only for the duration of the scans: detectors keep offsets,
	// never the text.
	view := unsafe.String(&raw[0], len(raw))
	scans := false
	for i, st := range sg.steps {
		if mask&(1<<i) == 0 {
			continue
		}
		switch {
		case st.kind == stepTruncate:
			if len(raw) > st.maxChars {
				return true
			}
		case st.detecting():
			scans = scans || st.scan
		default:
			return true
		}
	}
	// One pass for all the run's scanning steps.
	return scans && (run.key.Reports() || !e.detectors.SurelyClean(bytesView(raw))) && len(e.detect(view, &sg.anyScan, sg.anyScanID, run)) > 0
}
