// Package wasmjump rewrites the jumps of Go's WebAssembly code into
// direct branches, and its loops into wasm loops of their own.
//
// Go's wasm backend (cmd/internal/obj/wasm) lays every function out as one
// loop around a br_table: each basic block begins after the end of a
// block of its own nested around the table (a "region" here), and every
// jump between basic blocks, forward or backward, is
//
//	i32.const K      ;; the target's entry in the table
//	local.set PC_B   ;; the function's parameter 0
//	br ENTRY_LOOP    ;; back to the top, where br_table dispatches on PC_B
//
// so that a goroutine switch can resume a function at any block. V8 and
// wazero compile that as it reads: every if/else of the Go code and every
// round of a loop goes through the loop's head (a stack check, the
// table's bounds check, one indirect jump shared by all blocks of the
// function), and every value live across it is merged into one place
// there, which costs spills in large functions.
//
// A forward jump needs none of that: the target's code starts at the end
// of a block that still encloses the jump, so `br` to that block lands
// exactly where the table would have sent it. A loop (the regions from a
// back edge's target to its last back edge) is moved into a wasm loop:
// written from the one region it is entered at when nothing can enter it
// elsewhere (a leaf loop), else with a dispatch of its own over its
// regions only (layout).
//
// The value of PC_B after a direct jump is stale, and that is safe: the
// tables are the only readers of PC_B, and every path that reaches one
// sets it first (the caller at entry, a goroutine's resumption calling
// the function again, a jump to a loop's dispatch keeping Go's
// local.set); a jump is made direct only where its target's code does not
// read PC_B. Return addresses are constants the compiler wrote, not read
// from PC_B, so tracebacks, the collector's stack maps and goroutine
// switches see the same program counters as before.
//
// Functions not laid out this way (Go's hand-written assembly without
// resume points, functions with no jumps) are copied unchanged, and so are
// all other sections. The package knows nothing of what the module does.
package wasmjump

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Stats counts what Rewrite did.
type Stats struct {
	Functions int // function bodies in the module
	Laid      int // bodies laid out as Go's dispatch loop
	Forward   int // jumps made direct
	Loops     int // loops made (each a wasm loop of its own)
	Leaf      int // of Loops, those that need no dispatch (loop.leaf)
	LoopJumps int // jumps to a made loop (its back edges) or into one
	Backward  int // jumps left to the dispatch loop
	Copies    int // runtime.memmove given short copies (smallCopies): 0 or 1
}

// Options say what Rewrite does besides the jumps.
type Options struct {
	// StripNames drops the name section (function names), as the
	// linker's -s does for wasm. Rewrite reads the names first: they say
	// which calls never return (noResume), so that loops making only
	// those calls need no dispatch.
	StripNames bool
}

// Rewrite returns module with the jumps and loops of its Go functions
// rewritten (see the package comment). The input is not modified.
func Rewrite(module []byte, opt Options) ([]byte, Stats, error) {
	var st Stats
	if len(module) < 8 || string(module[:4]) != "\x00asm" || binary.LittleEndian.Uint32(module[4:8]) != 1 {
		return nil, st, errors.New("not a WebAssembly module (version 1)")
	}
	type section struct {
		id   byte
		body []byte
	}
	var sections []section
	m := moduleInfo{memmove: -1}
	r := reader{b: module, i: 8}
	for r.i < len(r.b) {
		id := r.byte()
		size := r.u32()
		if r.err != nil || int(size) > len(r.b)-r.i {
			return nil, st, fmt.Errorf("section at byte %d: truncated", r.i)
		}
		body := r.b[r.i : r.i+int(size)]
		r.i += int(size)
		sections = append(sections, section{id, body})
		if id == 0 && customName(body) == "name" {
			m.noResume = noResume(body)
			m.memmove = functionNamed(body, memmoveName)
		}
	}
	if r.err != nil {
		return nil, st, r.err
	}
	if m.memmove >= 0 {
		var types, imports, funcs []byte
		for _, sec := range sections {
			switch sec.id {
			case 1:
				types = sec.body
			case 2:
				imports = sec.body
			case 3:
				funcs = sec.body
			}
		}
		if err := m.locate(types, imports, funcs); err != nil {
			return nil, st, err
		}
	}
	out := make([]byte, 0, len(module))
	out = append(out, module[:8]...)
	for _, sec := range sections {
		body := sec.body
		switch {
		case sec.id == 0 && opt.StripNames && customName(body) == "name":
			continue
		case sec.id == 10:
			code, err := m.rewriteCode(body, &st)
			if err != nil {
				return nil, st, fmt.Errorf("code section: %w", err)
			}
			body = code
		}
		out = append(out, sec.id)
		out = appendU32(out, uint32(len(body)))
		out = append(out, body...)
	}
	return out, st, nil
}

// moduleInfo is what Rewrite knows of the module around the code.
type moduleInfo struct {
	// noResume: the functions (by index) a call to which never returns
	// to its caller, so no goroutine is ever resumed after it: the
	// runtime's panics for failed bounds, nil, division, shift and type
	// checks. Empty without a name section.
	noResume map[uint32]bool
	// memmove is the index of runtime.memmove among the functions of the
	// code section (-1: none, or no name section), memmoveParams the
	// number of its parameters.
	memmove       int64
	memmoveParams uint32
}

// customName is the name of a custom section.
func customName(body []byte) string {
	r := reader{b: body}
	n := r.u32()
	if r.err != nil || int(n) > len(body)-r.i {
		return ""
	}
	return string(body[r.i : r.i+int(n)])
}

// noResume reads the function names of a name section and returns the
// functions that never return (moduleInfo.noResume).
func noResume(body []byte) map[uint32]bool {
	out := map[uint32]bool{}
	functionNames(body, func(idx uint32, name string) {
		if neverReturns(name) {
			out[idx] = true
		}
	})
	return out
}

// functionNamed returns the index of the function of that name in a
// name section (-1: none).
func functionNamed(body []byte, name string) int64 {
	found := int64(-1)
	functionNames(body, func(idx uint32, n string) {
		if n == name {
			found = int64(idx)
		}
	})
	return found
}

// functionNames calls each with the index and name of every function a
// name section names.
func functionNames(body []byte, each func(idx uint32, name string)) {
	r := reader{b: body}
	r.i += int(r.u32()) // the section's name
	for r.i < len(r.b) && r.err == nil {
		id := r.byte()
		size := int(r.u32())
		if r.err != nil || size > len(r.b)-r.i {
			break
		}
		sub := reader{b: r.b[r.i : r.i+size]}
		r.i += size
		if id != 1 { // function names
			continue
		}
		for n := sub.u32(); n > 0 && sub.err == nil; n-- {
			idx := sub.u32()
			l := int(sub.u32())
			if sub.err != nil || l > len(sub.b)-sub.i {
				break
			}
			each(idx, string(sub.b[sub.i:sub.i+l]))
			sub.i += l
		}
	}
}

// neverReturns reports whether the Go function of that name (as the
// linker names it in wasm) never returns to its caller: it panics. Such
// a call's resume point is never used; a goroutine switch inside the
// panic (a deferred call blocking) resumes in the deferred call and goes
// on to the recovering frame, never back to the panicking one.
func neverReturns(name string) bool {
	switch name {
	case "runtime.gopanic", "runtime.sigpanic", "runtime.throw", "runtime.fatal",
		"runtime.panicdivide", "runtime.panicshift", "runtime.panicmem", "runtime.panicmemAddr",
		"runtime.panicdottypeE", "runtime.panicdottypeI", "runtime.panicnildottype", "runtime.panicwrap",
		"runtime.panicrangestate", "runtime.panicunsafestringlen", "runtime.panicunsafestringnilptr",
		"runtime.panicunsafeslicelen", "runtime.panicunsafeslicenilptr":
		return true
	}
	return strings.HasPrefix(name, "runtime.goPanic") // bounds: goPanicIndex, goPanicSliceB, ...
}

// rewriteCode rewrites the code section's function bodies.
func (m *moduleInfo) rewriteCode(sec []byte, st *Stats) ([]byte, error) {
	r := reader{b: sec}
	n := r.u32()
	out := appendU32(make([]byte, 0, len(sec)), n)
	for f := 0; f < int(n); f++ {
		size := r.u32()
		if r.err != nil || int(size) > len(r.b)-r.i {
			return nil, fmt.Errorf("function %d: truncated", f)
		}
		body := r.b[r.i : r.i+int(size)]
		r.i += int(size)
		st.Functions++
		if int64(f) == m.memmove {
			nb, ok, err := smallCopies(body, m.memmoveParams)
			if err != nil {
				return nil, fmt.Errorf("function %d (%s): %w", f, memmoveName, err)
			}
			if ok {
				st.Copies++
				out = appendU32(out, uint32(len(nb)))
				out = append(out, nb...)
				continue
			}
		}
		nb, err := m.rewriteBody(body, st)
		if err != nil {
			return nil, fmt.Errorf("function %d: %w", f, err)
		}
		out = appendU32(out, uint32(len(nb)))
		out = append(out, nb...)
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.i != len(r.b) {
		return nil, fmt.Errorf("%d bytes after the last function", len(r.b)-r.i)
	}
	return out, nil
}

// The opcodes this package reads or writes; every other instruction is
// only stepped over (reader.next).
const (
	opUnreachable  = 0x00
	opBlock        = 0x02
	opLoop         = 0x03
	opIf           = 0x04
	opEnd          = 0x0b
	opBr           = 0x0c
	opBrIf         = 0x0d
	opBrTable      = 0x0e
	opReturn       = 0x0f
	opCall         = 0x10
	opCallIndirect = 0x11
	opLocalGet     = 0x20
	opLocalSet     = 0x21
	opLocalTee     = 0x22
	opGlobalGet    = 0x23
	opI32Const     = 0x41
	opI32Eq        = 0x46
	opI32Sub       = 0x6b
)

// rewriteBody rewrites one function body (locals and expression). A body
// that is not laid out as Go's dispatch loop is returned as it is.
//
// A round makes the innermost loops (layout) and the jumps direct that the
// layout allows; a made loop is one block of the next round's layout, so
// the loop around it is made in the next round. Rounds go on until one
// makes no loop (at most maxRounds). A round whose branches the loops
// would not let it encode is made again with forward jumps only.
func (m *moduleInfo) rewriteBody(body []byte, st *Stats) ([]byte, error) {
	for round := 0; round < maxRounds; round++ {
		f, ok, err := parseBody(body)
		if err != nil || !ok {
			return body, err
		}
		f.noResume = m.noResume
		if round == 0 {
			st.Laid++
		}
		var s Stats
		out, ok := f.emit(f.chooseLoops(), &s)
		if !ok {
			s = Stats{}
			if out, ok = f.emit(nil, &s); !ok {
				return body, nil
			}
		}
		st.Forward += s.Forward
		st.Loops += s.Loops
		st.Leaf += s.Leaf
		st.LoopJumps += s.LoopJumps
		body = out
		if s.Loops == 0 {
			st.Backward += s.Backward
			break
		}
	}
	return body, nil
}

// maxRounds bounds the rounds of rewriteBody: loops nested deeper than
// this keep their outer back edges on the dispatch loop.
const maxRounds = 8

// goFunc is a function body laid out by Go's backend: the locals and
// prologue up to and including the dispatch loop's `loop` (head), the
// dispatch table, and the instructions after it.
type goFunc struct {
	body   []byte
	head   int      // body[:head]: locals, prologue, `loop`
	pcb    uint64   // the local the table reads (PC_B)
	blocks int      // B: resume blocks around the table, so regions 0..B-1
	table  []uint32 // the table's labels (a region each), the default last
	code   []inst   // the instructions after the table, with their places
	// readsPCB: per region, whether its code reads PC_B before setting it
	// (a loop an earlier round made, whose dispatch reads it); every jump
	// there keeps setting PC_B, and it heads no loop.
	readsPCB []bool
	noResume map[uint32]bool // moduleInfo.noResume
	starts   []int           // per region (and B): the index in code of its first instruction
}

// parseBody recognises Go's layout: [global.get; local.set; block] loop,
// then B blocks, local.get PC_B, br_table.
func parseBody(body []byte) (*goFunc, bool, error) {
	r := reader{b: body}
	for groups := r.u32(); groups > 0 && r.err == nil; groups-- {
		r.u32()  // count
		r.byte() // type
	}
	if r.err != nil {
		return nil, false, r.err
	}
	f := &goFunc{body: body}
	var in inst
	depth := 0
	for {
		if err := r.next(&in); err != nil {
			return nil, false, err
		}
		if in.op == opLoop {
			break
		}
		switch in.op {
		case opBlock:
			depth++
		case opLocalSet, opGlobalGet:
		default:
			return nil, false, nil
		}
		if depth > 1 {
			return nil, false, nil
		}
	}
	f.head = r.i
	for {
		if err := r.next(&in); err != nil {
			return nil, false, err
		}
		if in.op != opBlock {
			break
		}
		f.blocks++
	}
	if f.blocks == 0 || in.op != opLocalGet {
		return nil, false, nil
	}
	f.pcb = in.imm
	if err := r.next(&in); err != nil {
		return nil, false, err
	}
	if in.op != opBrTable {
		return nil, false, nil
	}
	f.table = append([]uint32(nil), in.table...)
	for _, t := range f.table {
		if int(t) >= f.blocks {
			return nil, false, nil
		}
	}
	// The rest, each instruction with its region (the resume point whose
	// code it is: the resume blocks closed so far, minus one; B and more
	// past the loop) and its nesting inside the region.
	region, nested := -1, 0
	for r.i < len(r.b) {
		at := r.i
		var in inst
		if err := r.next(&in); err != nil {
			return nil, false, err
		}
		in.at, in.end, in.region, in.nested = at, r.i, region, nested
		switch in.op {
		case opBlock, opLoop, opIf:
			nested++
		case opEnd:
			if nested > 0 {
				nested--
			} else {
				in.boundary = true
				region++
				if region <= f.blocks {
					f.starts = append(f.starts, len(f.code)+1)
				}
			}
		}
		f.code = append(f.code, in)
	}
	if len(f.starts) != f.blocks+1 {
		return nil, false, nil
	}
	if len(f.code) == 0 || !f.code[0].boundary || nested != 0 {
		return nil, false, nil
	}
	f.readsPCB = make([]bool, f.blocks)
	for r := range f.readsPCB {
		start, end := f.regionSpan(r)
		for _, in := range f.code[start:end] {
			if in.imm == f.pcb && (in.op == opLocalSet || in.op == opLocalGet || in.op == opLocalTee) {
				f.readsPCB[r] = in.op == opLocalGet
				break
			}
		}
	}
	return f, true, nil
}

// tableEntry is a table entry that sends the dispatch to region t (the
// last one, len-1, is the default's: every value from it on reads it).
func (f *goFunc) tableEntry(t int) (int64, bool) {
	for k, u := range f.table {
		if int(u) == t {
			return int64(k), true
		}
	}
	return 0, false
}

// regionOf is the region table entry k sends the dispatch to.
func (f *goFunc) regionOf(k int64) int {
	if k >= 0 && k < int64(len(f.table)-1) {
		return int(f.table[k])
	}
	return int(f.table[len(f.table)-1])
}

// loop is a range of regions [h, i] made into a wasm loop of its own:
// its back edges branch to the loop, which goes straight to the region
// they return to (a leaf loop) or dispatches among its own regions only
// (and straight to its head for the head's table entry kh).
type loop struct {
	h, i       int
	kh         int64 // the table entry of region h the back edges set
	kmin, kmax int64 // the table entries of regions h..i
	// leaf: the loop is entered at one region only (entry: no call
	// inside it that a goroutine could be resumed after, every jump from
	// outside to entry), and its regions can be ordered from entry so
	// that every edge inside goes forward or back to entry
	// (goFunc.leafEntry): it needs no dispatch, its back edges branch to
	// entry's code itself.
	leaf  bool
	entry int
}

// jump is Go's jump at code[j]: i32.const K (code[j-2]), local.set PC_B
// (code[j-1]), br to the dispatch loop (code[j]), or to the region K
// stands for (a jump an earlier round kept setting PC_B).
func (f *goFunc) jump(j int) (int64, bool) {
	if j < 2 || f.code[j].op != opBr || f.code[j].region < 0 || f.code[j].region >= f.blocks {
		return 0, false
	}
	c, set, br := &f.code[j-2], &f.code[j-1], &f.code[j]
	if c.op != opI32Const || set.op != opLocalSet || set.imm != f.pcb || c.boundary || set.boundary ||
		c.region != br.region || set.region != br.region {
		return 0, false
	}
	// To the dispatch loop as Go wrote it, or (an earlier round's) to
	// the region PC_B sends the dispatch to.
	k := int64(int32(c.imm))
	if tgt, _ := f.label(br.region, br.nested, int(br.imm)); tgt != targetE && (tgt < 0 || tgt != f.regionOf(k)) {
		return 0, false
	}
	return k, true
}

// Targets of a branch in Go's layout, as label reads them: a region's
// start (>= 0), the dispatch loop, or beyond it.
const (
	targetNested = -1
	targetE      = -2
	targetBeyond = -3
)

// label is what label d of a branch in region r at nesting e targets in
// Go's layout; for targetBeyond, the second result counts the levels
// past the dispatch loop.
func (f *goFunc) label(r, e, d int) (int, int) {
	if d < e {
		return targetNested, 0
	}
	k := d - e
	open := f.blocks - 1 - r // resume blocks still open around region r
	switch {
	case k < open:
		return r + 1 + k, 0
	case k == open:
		return targetE, 0
	default:
		return targetBeyond, k - open - 1
	}
}

// chooseLoops picks the loops to make: for each region some jump goes
// back to, the range from it to the last region jumping back to it;
// innermost first, none overlapping another, none at region 0 (the
// function's entry and stack check).
func (f *goFunc) chooseLoops() []loop {
	last := map[int]int{}
	for j := range f.code {
		k, ok := f.jump(j)
		if !ok {
			continue
		}
		r, t := f.code[j].region, f.regionOf(k)
		if t <= r && t > 0 && !f.readsPCB[t] {
			last[t] = max(last[t], r)
		}
	}
	var cands []loop
	for h, i := range last {
		cands = append(cands, loop{h: h, i: i})
	}
	slices.SortFunc(cands, func(a, b loop) int {
		if c := cmp.Compare(a.i-a.h, b.i-b.h); c != 0 {
			return c
		}
		return cmp.Compare(a.h, b.h)
	})
	var chosen []loop
	for _, c := range cands {
		if !slices.ContainsFunc(chosen, func(o loop) bool { return c.h <= o.i && o.h <= c.i }) {
			chosen = append(chosen, c)
		}
	}
	slices.SortFunc(chosen, func(a, b loop) int { return cmp.Compare(a.h, b.h) })
	made := chosen[:0]
	for _, l := range chosen {
		l.entry, l.leaf = f.leafEntry(l.h, l.i)
		l.kh, l.kmin, l.kmax = -1, -1, -1
		for k, t := range f.table[:len(f.table)-1] {
			if int(t) == l.h && l.kh < 0 {
				l.kh = int64(k)
			}
			if int(t) >= l.h && int(t) <= l.i {
				if l.kmin < 0 {
					l.kmin = int64(k)
				}
				l.kmax = int64(k)
			}
		}
		// A dispatch reads the loop's entries kmin..kmax, so none of its
		// regions may be reached by the table's default (the last
		// region's, read by every entry from len-1 on).
		if l.leaf || l.kh >= 0 && l.i < f.blocks-1 {
			made = append(made, l)
		}
	}
	return made
}

// leafEntry reports whether regions [h, i] can be a loop without a
// dispatch (loop.leaf), and the one region anything outside enters it at:
// no region of it reads PC_B; no call in regions h..i-1 that a goroutine
// could be resumed after; one region entered from outside (by a jump, a
// branch, or falling through or returning from a call at the end of
// region h-1); every jump and branch inside going forward in the loop's
// order (entry .. i, then h .. entry-1) or to its entry; and a region
// after it (i < B-1) for region i to leave to.
func (f *goFunc) leafEntry(h, i int) (int, bool) {
	if i >= f.blocks-1 {
		return 0, false
	}
	for r := h; r <= i; r++ {
		if f.readsPCB[r] {
			return 0, false
		}
	}
	entry := -1
	enter := func(t int) bool {
		if entry >= 0 && entry != t {
			return false
		}
		entry = t
		return true
	}
	if f.mayFallThrough(h-1) && !enter(h) {
		return 0, false
	}
	type edge struct{ from, to int }
	var inner []edge
	for j := range f.code {
		in := &f.code[j]
		r := in.region
		if r < 0 || r >= f.blocks || in.boundary {
			continue
		}
		inside := r >= h && r <= i
		if f.resumable(in) && r >= h && r < i {
			return 0, false
		}
		var targets []int
		if k, ok := f.jump(j); ok {
			targets = append(targets, f.regionOf(k))
		} else {
			switch in.op {
			case opBr, opBrIf:
				if t, _ := f.label(r, in.nested, int(in.imm)); t >= 0 {
					targets = append(targets, t)
				}
			case opBrTable:
				for _, d := range in.table {
					if t, _ := f.label(r, in.nested, int(d)); t >= 0 {
						targets = append(targets, t)
					}
				}
			}
		}
		for _, t := range targets {
			switch {
			case t < h || t > i:
			case !inside:
				if !enter(t) {
					return 0, false
				}
			default:
				inner = append(inner, edge{r, t})
			}
		}
	}
	if entry < 0 {
		entry = h
	}
	for _, e := range inner {
		if e.to != entry && leafPos(e.to, h, i, entry) <= leafPos(e.from, h, i, entry) {
			return 0, false
		}
	}
	return entry, true
}

// leafPos is region r's place in the order a leaf loop over [h, i]
// entered at entry is written in: entry .. i, then h .. entry-1.
func leafPos(r, h, i, entry int) int {
	if r >= entry {
		return r - entry
	}
	return r - h + i - entry + 1
}

// resumable reports whether in is a call a goroutine may be resumed
// after (any call but to the functions that never return, noResume).
func (f *goFunc) resumable(in *inst) bool {
	return in.op == opCallIndirect || in.op == opCall && !f.noResume[uint32(in.imm)]
}

// mayFallThrough reports whether region r's code may go on into region
// r+1, by falling through or by returning from a call at its end (whose
// resume point is region r+1): unless it ends in an unconditional branch
// of its own level.
func (f *goFunc) mayFallThrough(r int) bool {
	start, end := f.regionSpan(r)
	if end <= start {
		return true
	}
	switch last := &f.code[end-1]; last.op {
	case opBr, opBrTable, opReturn, opUnreachable:
		return last.nested != 0
	}
	return true
}

// regionSpan is the index range of region r's instructions in code (the
// boundary that begins it excluded, the one that ends it too).
func (f *goFunc) regionSpan(r int) (start, end int) {
	return f.starts[r], f.starts[r+1] - 1
}

// layout is where everything lands once loops are made. The resume
// blocks left around the dispatch table ("outer" blocks, in the order of
// their ends) are those of the regions outside loops, and for each loop
// one or two: a leaf loop's (loop.leaf) ends where the loop begins, and
// its regions follow in the loop's order (entry .. i, h .. entry-1), each
// but the first after a block of the loop's own:
//
//	end        ;; the loop's block: jumps to its entry land here
//	loop
//	  block (one per region after the entry, the last first)
//	    code of the entry region
//	  end
//	  code of the next region ...
//	end        ;; the loop: its last region branches out or back
//
// A dispatch loop's regions stay in their order, after its head's block
// and a block of the loop's own (its entry, where the table sends a
// resumption inside the loop with PC_B set):
//
//	end        ;; region h-1 ends: fallthrough and jumps to h land here
//	i32.const kh
//	local.set PC_B
//	end        ;; the loop's entry: the table's resumptions inside the loop
//	loop
//	  block (regions i..h+1, then h, then a trap)
//	    local.get PC_B; i32.const kh; i32.eq; br_if (region h)
//	    local.get PC_B; i32.const kmin; i32.sub; br_table (regions h..i; else the trap)
//	  end; unreachable
//	  end        ;; region h
//	  ...
//	  end        ;; region i
//	end        ;; the loop
type layout struct {
	loops   []loop
	reads   []bool // per region: goFunc.readsPCB
	loopOf  []int  // per region: the loop it is in, or -1
	pos     []int  // per region in a loop: its place in the loop's order
	outerOf []int  // per region: its outer block's index, or -1 (inside a loop but its head or entry)
	entryOf []int  // per dispatch loop: its entry block's index
	order   []int  // the regions in the order they are written
	nOuter  int
}

func (f *goFunc) layout(loops []loop) *layout {
	l := &layout{loops: loops, reads: f.readsPCB, loopOf: make([]int, f.blocks), pos: make([]int, f.blocks),
		outerOf: make([]int, f.blocks), entryOf: make([]int, len(loops))}
	for r := range l.loopOf {
		l.loopOf[r], l.outerOf[r] = -1, -1
	}
	for n, lp := range loops {
		for r := lp.h; r <= lp.i; r++ {
			l.loopOf[r] = n
		}
	}
	for r := 0; r < f.blocks; r++ {
		n := l.loopOf[r]
		switch {
		case n < 0:
			l.outerOf[r] = l.nOuter
			l.nOuter++
			l.order = append(l.order, r)
		case r != loops[n].h:
		case loops[n].leaf:
			lp := &loops[n]
			l.outerOf[lp.entry] = l.nOuter
			l.nOuter++
			base := len(l.order)
			l.order = append(l.order, make([]int, lp.i-lp.h+1)...)
			for t := lp.h; t <= lp.i; t++ {
				l.pos[t] = leafPos(t, lp.h, lp.i, lp.entry)
				l.order[base+l.pos[t]] = t
			}
		default:
			lp := &loops[n]
			l.outerOf[r] = l.nOuter
			l.entryOf[n] = l.nOuter + 1
			l.nOuter += 2
			for t := lp.h; t <= lp.i; t++ {
				l.pos[t] = t - lp.h
				l.order = append(l.order, t)
			}
		}
	}
	return l
}

// size is the number of regions of loop n.
func (l *layout) size(n int) int { return l.loops[n].i - l.loops[n].h + 1 }

// openBase is the index of the first outer block still open in region r.
func (l *layout) openBase(r int) int {
	n := l.loopOf[r]
	switch {
	case n < 0:
		return l.outerOf[r] + 1
	case l.loops[n].leaf:
		return l.outerOf[l.loops[n].entry] + 1
	default:
		return l.entryOf[n] + 1
	}
}

// inner is the number of the loop's own structures open in region r:
// the blocks of the loop's later regions, and the loop.
func (l *layout) inner(r int) int {
	if n := l.loopOf[r]; n >= 0 {
		return l.size(n) - l.pos[r]
	}
	return 0
}

// toOuter is the label of outer block x (nOuter: the dispatch loop) from
// region r at nesting e, or -1 when x has ended there.
func (l *layout) toOuter(r, e, x int) int {
	if b := l.openBase(r); x >= b {
		return e + l.inner(r) + x - b
	}
	return -1
}

// landing is how a branch in region r at nesting e reaches region t: the
// label, and whether PC_B must hold t's table entry (a branch to a
// dispatch loop or its entry, or to a region whose code reads PC_B). ok
// is false when only the function's dispatch reaches t (a backward jump
// outside loops), or nothing does.
func (l *layout) landing(r, e, t int) (d int, viaPCB, ok bool) {
	n, m := l.loopOf[r], l.loopOf[t]
	switch {
	case m >= 0 && m == n && l.pos[t] > l.pos[r]: // ahead in the same loop
		return e + l.pos[t] - l.pos[r] - 1, l.reads[t], true
	case m >= 0 && m == n && l.loops[n].leaf: // to its entry, straight
		return e + l.size(n) - 1 - l.pos[r], false, t == l.loops[n].entry
	case m >= 0 && m == n: // back in the same dispatch loop
		return e + l.size(n) - 1 - l.pos[r], true, true
	case m >= 0 && l.loops[m].leaf: // into a leaf loop: at its entry only
		if t != l.loops[m].entry {
			return -1, false, false
		}
		d = l.toOuter(r, e, l.outerOf[t])
		return d, false, d >= 0
	case m >= 0 && t > l.loops[m].h: // into a dispatch loop: its entry
		d = l.toOuter(r, e, l.entryOf[m])
		return d, true, d >= 0
	default:
		d = l.toOuter(r, e, l.outerOf[t])
		return d, l.reads[t], d >= 0
	}
}

// emit writes the body with loops made and the jumps they and the
// layout allow made direct. It reports false when a branch cannot be
// encoded (a branch Go did not write, into a loop).
func (f *goFunc) emit(loops []loop, st *Stats) ([]byte, bool) {
	l := f.layout(loops)
	out := make([]byte, 0, len(f.body)+64)
	out = append(out, f.body[:f.head]...)
	for range l.nOuter {
		out = append(out, opBlock, 0x40)
	}
	out = append(out, opLocalGet)
	out = appendU32(out, uint32(f.pcb))
	out = append(out, opBrTable)
	out = appendU32(out, uint32(len(f.table)-1))
	for _, t := range f.table {
		x := l.outerOf[t]
		if n := l.loopOf[t]; n >= 0 && x < 0 {
			// Inside a leaf loop nothing is resumed (leafEntry): those
			// entries are never taken, and go to the loop's entry.
			x = l.outerOf[loops[n].entry]
			if !loops[n].leaf {
				x = l.entryOf[n]
			}
		}
		out = appendU32(out, uint32(x))
	}
	st.Loops = len(loops)
	for _, lp := range loops {
		if lp.leaf {
			st.Leaf++
		}
	}
	for p, r := range l.order {
		// What comes before region r's code: the end of its block, and a
		// loop's beginning.
		out = append(out, opEnd)
		if n := l.loopOf[r]; n >= 0 && l.pos[r] == 0 {
			out = f.loopHead(out, loops[n])
		}
		start, end := f.regionSpan(r)
		var ok bool
		if out, ok = f.emitRegion(out, l, start, end, st); !ok {
			return nil, false
		}
		// Where region r went on to the next region it may now have to
		// branch there.
		next := r + 1
		if (p+1 == len(l.order) || l.order[p+1] != next) && next < f.blocks && f.mayFallThrough(r) {
			d, viaPCB, ok := l.landing(r, 0, next)
			if !ok || viaPCB {
				return nil, false
			}
			out = append(out, opBr)
			out = appendU32(out, uint32(d))
		}
		if n := l.loopOf[r]; n >= 0 && l.pos[r] == l.size(n)-1 {
			out = append(out, opEnd) // the loop
		}
	}
	// The dispatch loop's end and what follows it, as they are.
	_, end := f.regionSpan(f.blocks - 1)
	return append(out, f.body[f.code[end].at:]...), true
}

// emitRegion writes the instructions code[start:end] of one region.
func (f *goFunc) emitRegion(out []byte, l *layout, start, end int, st *Stats) ([]byte, bool) {
	for j := start; j < end; j++ {
		in := &f.code[j]
		r, e := in.region, in.nested
		if j+2 < end {
			if k, ok := f.jump(j + 2); ok {
				// Go's jump: made direct where the layout allows it.
				var kind jumpKind
				if out, kind, ok = f.branchTo(out, l, r, f.code[j+2].nested, f.regionOf(k), k, true); !ok {
					return nil, false // never: leafEntry saw the jump
				}
				switch kind {
				case jumpDirect:
					st.Forward++
				case jumpToLoop:
					st.LoopJumps++
				default:
					st.Backward++
				}
				j += 2
				continue
			}
		}
		switch in.op {
		case opBr:
			// A direct branch to a region (an earlier round's jump) may
			// now need PC_B, as Go's jumps do: it gets Go's local.set back.
			if t, _ := f.label(r, e, int(in.imm)); t >= 0 {
				var ok bool
				if out, _, ok = f.branchTo(out, l, r, e, t, 0, false); !ok {
					return nil, false
				}
				break
			}
			d, _ := f.relabel(l, r, e, int(in.imm))
			out = append(out, opBr)
			out = appendU32(out, uint32(d))
		case opBrIf:
			d, ok := f.relabel(l, r, e, int(in.imm))
			if !ok {
				return nil, false
			}
			out = append(out, in.op)
			out = appendU32(out, uint32(d))
		case opBrTable:
			out = append(out, opBrTable)
			out = appendU32(out, uint32(len(in.table)-1))
			for _, lab := range in.table {
				d, ok := f.relabel(l, r, e, int(lab))
				if !ok {
					return nil, false
				}
				out = appendU32(out, uint32(d))
			}
		default:
			out = append(out, f.body[in.at:in.end]...)
		}
	}
	return out, true
}

// jumpKind is how branchTo reached its target.
type jumpKind uint8

const (
	jumpDirect   jumpKind = iota // one br
	jumpToLoop                   // PC_B set, br to a made loop's dispatch or entry, or back in a leaf loop
	jumpDispatch                 // PC_B set, br to the function's dispatch, as Go wrote it
)

// branchTo writes a branch from region r at nesting e to region t: one
// br where the layout allows it, else PC_B set to k and a br to a
// dispatch (a made loop's, or the function's). k is Go's own table entry
// for a jump; without one (known false) tableEntry finds one. It reports
// false when no branch reaches t (inside a leaf loop but at its entry).
func (f *goFunc) branchTo(out []byte, l *layout, r, e, t int, k int64, known bool) ([]byte, jumpKind, bool) {
	d, viaPCB, ok := l.landing(r, e, t)
	kind := jumpDirect
	switch {
	case !ok:
		if m := l.loopOf[t]; m >= 0 && l.loops[m].leaf && t != l.loops[m].entry {
			return nil, 0, false
		}
		d, viaPCB, kind = l.toOuter(r, e, l.nOuter), true, jumpDispatch
	case viaPCB || l.loopOf[t] >= 0 && l.loopOf[t] == l.loopOf[r] && l.pos[t] <= l.pos[r]:
		kind = jumpToLoop
	}
	if viaPCB {
		if !known {
			if k, ok = f.tableEntry(t); !ok {
				return nil, 0, false
			}
		}
		out = append(out, opI32Const)
		out = appendS32(out, int32(k))
		out = append(out, opLocalSet)
		out = appendU32(out, uint32(f.pcb))
	}
	out = append(out, opBr)
	return appendU32(out, uint32(d)), kind, true
}

// relabel is label d of a branch (not one of Go's jumps) in region r at
// nesting e, in the new layout.
func (f *goFunc) relabel(l *layout, r, e, d int) (int, bool) {
	t, beyond := f.label(r, e, d)
	switch t {
	case targetNested:
		return d, true
	case targetE:
		return l.toOuter(r, e, l.nOuter), true
	case targetBeyond:
		return l.toOuter(r, e, l.nOuter) + 1 + beyond, true
	}
	nd, viaPCB, ok := l.landing(r, e, t)
	return nd, ok && !viaPCB
}

// loopHead writes what comes between the end of the block before loop
// lp's first region and that region's code (see layout).
func (f *goFunc) loopHead(out []byte, lp loop) []byte {
	if lp.leaf {
		out = append(out, opLoop, 0x40)
		for range lp.i - lp.h { // the regions after the first
			out = append(out, opBlock, 0x40)
		}
		return out
	}
	setPCB := func(out []byte, k int64) []byte {
		out = append(out, opI32Const)
		out = appendS32(out, int32(k))
		out = append(out, opLocalSet)
		return appendU32(out, uint32(f.pcb))
	}
	getPCB := func(out []byte) []byte {
		out = append(out, opLocalGet)
		return appendU32(out, uint32(f.pcb))
	}
	out = setPCB(out, lp.kh)
	out = append(out, opEnd) // the loop's entry block
	out = append(out, opLoop, 0x40)
	for range lp.i - lp.h + 2 { // regions i..h, and the trap
		out = append(out, opBlock, 0x40)
	}
	out = getPCB(out)
	out = append(out, opI32Const)
	out = appendS32(out, int32(lp.kh))
	out = append(out, opI32Eq, opBrIf, 1)
	out = getPCB(out)
	if lp.kmin != 0 {
		out = append(out, opI32Const)
		out = appendS32(out, int32(lp.kmin))
		out = append(out, opI32Sub)
	}
	out = append(out, opBrTable)
	out = appendU32(out, uint32(lp.kmax-lp.kmin+1))
	for k := lp.kmin; k <= lp.kmax; k++ {
		out = appendU32(out, uint32(1+f.regionOf(k)-lp.h))
	}
	out = append(out, 0) // default: the trap
	out = append(out, opEnd, opUnreachable, opEnd)
	return out
}

// inst is one decoded instruction: its opcode and, where the package needs
// it, its immediate (a label, a local, an i32 constant) or br_table's
// labels (the default last).
type inst struct {
	op    byte
	imm   uint64
	table []uint32

	at, end  int  // its bytes in the body
	region   int  // the resume point whose code it is (parseBody)
	nested   int  // blocks of the code's own open around it
	boundary bool // the end of a resume block (or of the dispatch loop)
}

type reader struct {
	b   []byte
	i   int
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("byte %d: %s", r.i, what)
	}
	r.i = len(r.b)
}

func (r *reader) byte() byte {
	if r.i >= len(r.b) {
		r.fail("truncated")
		return 0
	}
	c := r.b[r.i]
	r.i++
	return c
}

// leb reads an unsigned LEB128 of at most bits bits.
func (r *reader) leb(bits uint) uint64 {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if shift >= bits+7 {
			r.fail("LEB128 too long")
			return 0
		}
		c := r.byte()
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
}

// sleb reads a signed LEB128 of at most bits bits.
func (r *reader) sleb(bits uint) int64 {
	var v int64
	shift := uint(0)
	for {
		if shift >= bits+7 {
			r.fail("LEB128 too long")
			return 0
		}
		c := r.byte()
		v |= int64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
}

func (r *reader) u32() uint32 { return uint32(r.leb(32)) }

func (r *reader) skip(n int) {
	if n > len(r.b)-r.i {
		r.fail("truncated")
		return
	}
	r.i += n
}

// next decodes the instruction at r.i into in.
func (r *reader) next(in *inst) error {
	in.op = r.byte()
	in.imm = 0
	in.table = in.table[:0]
	switch op := in.op; {
	case op == opBlock || op == opLoop || op == opIf:
		// A block type: the empty type (0x40), a value type (one byte
		// with the sign bit set in LEB terms), or a type index (s33).
		if c := r.peek(); c == 0x40 || c >= 0x6f && c <= 0x7f {
			r.i++
		} else {
			r.sleb(33)
		}
	case op == opBr || op == 0x0d: // br, br_if
		in.imm = r.leb(32)
	case op == opBrTable:
		n := r.u32()
		if int(n) > len(r.b)-r.i {
			r.fail("br_table too long")
			break
		}
		for j := uint32(0); j <= n && r.err == nil; j++ {
			in.table = append(in.table, r.u32())
		}
	case op == opCall:
		in.imm = r.leb(32)
	case op == 0x11: // call_indirect: type, table
		r.u32()
		r.u32()
	case op == 0x1c: // select with types
		for n := r.u32(); n > 0 && r.err == nil; n-- {
			r.byte()
		}
	case op >= opLocalGet && op <= 0x24: // local.get/set/tee, global.get/set
		in.imm = r.leb(32)
	case op == 0x25 || op == 0x26: // table.get/set
		r.u32()
	case op >= 0x28 && op <= 0x3e: // loads and stores: align, offset
		r.u32()
		r.leb(64)
	case op == 0x3f || op == 0x40: // memory.size/grow
		r.byte()
	case op == opI32Const:
		in.imm = uint64(r.sleb(32))
	case op == 0x42: // i64.const
		r.sleb(64)
	case op == 0x43: // f32.const
		r.skip(4)
	case op == 0x44: // f64.const
		r.skip(8)
	case op == 0xd0: // ref.null
		r.byte()
	case op == 0xd2: // ref.func
		r.u32()
	case op == 0xfc:
		switch sub := r.u32(); {
		case sub <= 7: // saturating truncations
		case sub == 8: // memory.init: segment, memory
			r.u32()
			r.byte()
		case sub == 9: // data.drop
			r.u32()
		case sub == 10: // memory.copy: two memories
			r.byte()
			r.byte()
		case sub == 11: // memory.fill
			r.byte()
		case sub == 12 || sub == 14: // table.init, table.copy
			r.u32()
			r.u32()
		case sub == 13 || sub >= 15 && sub <= 17: // elem.drop, table.grow/size/fill
			r.u32()
		default:
			r.fail(fmt.Sprintf("unknown instruction 0xfc %d", sub))
		}
	case op <= 0x01 || op == 0x05 || op == opEnd || op == 0x0f || op == 0x1a || op == 0x1b ||
		op >= 0x45 && op <= 0xc4 || op == 0xd1:
		// no immediates: unreachable, nop, else, end, return, drop,
		// select, the numeric instructions, ref.is_null
	default:
		r.fail(fmt.Sprintf("unknown instruction 0x%02x", op))
	}
	return r.err
}

func (r *reader) peek() byte {
	if r.i >= len(r.b) {
		return 0
	}
	return r.b[r.i]
}

func appendU32(b []byte, v uint32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendS32(b []byte, v int32) []byte {
	x := int64(v)
	for {
		c := byte(x & 0x7f)
		x >>= 7
		if x == 0 && c&0x40 == 0 || x == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
