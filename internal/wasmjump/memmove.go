package wasmjump

import "fmt"

// Go's runtime.memmove for wasm is one memory.copy. V8 compiles that
// instruction as a call out of the module into its own C++ (a wrapper
// around libc's memmove), which costs more than the copy itself for the
// few bytes most copies move: a member name, a short value, a piece of a
// rewritten string. Rewrite gives runtime.memmove a path of its own for
// copies of at most smallCopy bytes, written as wasm loads and stores;
// longer copies keep the memory.copy.
//
// Each short copy loads every byte it copies before it stores any (two
// overlapping words from each end, or the first, middle and last byte),
// so it is a correct memmove whatever the overlap, and it reads and
// writes no byte outside the two ranges, so it traps exactly where
// memory.copy would. A copy of 0 bytes does nothing.

// smallCopy is the longest copy made without memory.copy.
const smallCopy = 32

// memmoveName is the function whose body is rewritten.
const memmoveName = "runtime.memmove"

// The opcodes the short copies are written with.
const (
	opI32Load8U  = 0x2d
	opI64Load    = 0x29
	opI64Load8U  = 0x31
	opI64Load32U = 0x35
	opI32Store8  = 0x3a
	opI64Store   = 0x37
	opI64Store8  = 0x3c
	opI64Store32 = 0x3e
	opI32Eqz     = 0x45
	opI32GtU     = 0x4b
	opI32GeU     = 0x4f
	opI32Add     = 0x6a
	opI32ShrU    = 0x76
	opI32WrapI64 = 0xa7
	opPrefixFC   = 0xfc
	fcMemoryCopy = 10
	typeVoid     = 0x40
	typeI32      = 0x7f
	typeI64      = 0x7e
)

// smallCopies returns the body of Go's runtime.memmove with its
// memory.copy preceded by the short copies. params is the number of the
// function's parameters (its first locals). ok is false, and the body is
// to be kept, unless the body is Go's: locals, then instructions among
// which one memory.copy whose three operands are each a local.get and an
// i32.wrap_i64 (the 64-bit arguments made addresses). A body this
// function wrote does not have that shape, so a second pass leaves it.
func smallCopies(body []byte, params uint32) (out []byte, ok bool, err error) {
	r := reader{b: body}
	locals := params
	groups := r.u32()
	groupsStart := r.i
	for g := uint32(0); g < groups && r.err == nil; g++ {
		locals += r.u32()
		r.byte()
	}
	declEnd := r.i
	var in inst
	type step struct {
		op       byte
		imm      uint64
		at, next int
	}
	var last [6]step // the instructions before the current one, latest last
	copyAt, copyEnd := -1, -1
	for r.i < len(r.b) && r.err == nil {
		at := r.i
		if err := r.next(&in); err != nil {
			return nil, false, err
		}
		if in.op == opPrefixFC && body[at+1] == fcMemoryCopy {
			if copyAt >= 0 {
				return nil, false, nil // two copies: not Go's memmove
			}
			shape := true
			for k := 0; k < 6; k += 2 {
				shape = shape && last[k].op == opLocalGet && last[k+1].op == opI32WrapI64
			}
			if !shape {
				return nil, false, nil
			}
			copyAt, copyEnd = last[0].at, r.i
		}
		copy(last[:], last[1:])
		last[5] = step{in.op, in.imm, at, r.i}
	}
	if r.err != nil {
		return nil, false, r.err
	}
	if copyAt < 0 {
		return nil, false, nil
	}
	if locals > 50000 {
		return nil, false, fmt.Errorf("%d locals", locals)
	}
	// New locals: the operands as addresses and a length (i32), and the
	// words and bytes a short copy holds (i64).
	dst, src, n, b3 := locals, locals+1, locals+2, locals+3
	w := [4]uint32{locals + 4, locals + 5, locals + 6, locals + 7}

	out = appendU32(make([]byte, 0, len(body)+256), groups+2)
	out = append(out, body[groupsStart:declEnd]...)
	out = appendU32(out, 4)
	out = append(out, typeI32)
	out = appendU32(out, 4)
	out = append(out, typeI64)
	out = append(out, body[declEnd:copyAt]...)
	// The three operands as Go computed them, kept in locals.
	out = append(out, body[copyAt:copyEnd-4]...) // without the memory.copy
	out = setLocal(out, n)
	out = setLocal(out, src)
	out = setLocal(out, dst)

	// back appends the address local+n-k: k bytes back from the end.
	back := func(out []byte, local uint32, k int32) []byte {
		out = getLocal(out, local)
		out = getLocal(out, n)
		out = append(out, opI32Add)
		out = append(out, opI32Const)
		out = appendS32(out, k)
		return append(out, opI32Sub)
	}
	mem := func(out []byte, op byte, offset uint32) []byte {
		out = append(out, op, 0) // alignment 1: addresses are any
		return appendU32(out, offset)
	}
	// words copies with loads of width op at the given places (offsets
	// from the start, or back from the end when negative), all loads
	// first.
	words := func(out []byte, load, store byte, places []int32) []byte {
		for i, p := range places {
			if p >= 0 {
				out = getLocal(out, src)
				out = mem(out, load, uint32(p))
			} else {
				out = back(out, src, -p)
				out = mem(out, load, 0)
			}
			out = setLocal(out, w[i])
		}
		for i, p := range places {
			if p >= 0 {
				out = getLocal(out, dst)
				out = getLocal(out, w[i])
				out = mem(out, store, uint32(p))
			} else {
				out = back(out, dst, -p)
				out = getLocal(out, w[i])
				out = mem(out, store, 0)
			}
		}
		return out
	}
	lengthAtLeast := func(out []byte, k int32, op byte) []byte {
		out = getLocal(out, n)
		out = append(out, opI32Const)
		out = appendS32(out, k)
		return append(out, op)
	}

	out = append(out, opBlock, typeVoid) // done
	out = append(out, opBlock, typeVoid) // long: the memory.copy
	out = lengthAtLeast(out, smallCopy, opI32GtU)
	out = append(out, opBrIf, 0)
	// 16..32 bytes: four words, two from each end.
	out = lengthAtLeast(out, 16, opI32GeU)
	out = append(out, opIf, typeVoid)
	out = words(out, opI64Load, opI64Store, []int32{0, 8, -16, -8})
	out = append(out, opBr, 2, opEnd)
	// 8..15 bytes: two words.
	out = lengthAtLeast(out, 8, opI32GeU)
	out = append(out, opIf, typeVoid)
	out = words(out, opI64Load, opI64Store, []int32{0, -8})
	out = append(out, opBr, 2, opEnd)
	// 4..7 bytes: two half words.
	out = lengthAtLeast(out, 4, opI32GeU)
	out = append(out, opIf, typeVoid)
	out = words(out, opI64Load32U, opI64Store32, []int32{0, -4})
	out = append(out, opBr, 2, opEnd)
	// 1..3 bytes: the first, the middle and the last.
	out = getLocal(out, n)
	out = append(out, opI32Eqz, opBrIf, 1)
	out = getLocal(out, src)
	out = mem(out, opI64Load8U, 0)
	out = setLocal(out, w[0])
	out = getLocal(out, src)
	out = getLocal(out, n)
	out = append(out, opI32Const, 1, opI32ShrU, opI32Add)
	out = mem(out, opI64Load8U, 0)
	out = setLocal(out, w[1])
	out = back(out, src, 1)
	out = mem(out, opI32Load8U, 0)
	out = setLocal(out, b3)
	out = getLocal(out, dst)
	out = getLocal(out, w[0])
	out = mem(out, opI64Store8, 0)
	out = getLocal(out, dst)
	out = getLocal(out, n)
	out = append(out, opI32Const, 1, opI32ShrU, opI32Add)
	out = getLocal(out, w[1])
	out = mem(out, opI64Store8, 0)
	out = back(out, dst, 1)
	out = getLocal(out, b3)
	out = mem(out, opI32Store8, 0)
	out = append(out, opBr, 1)
	out = append(out, opEnd) // long
	out = getLocal(out, dst)
	out = getLocal(out, src)
	out = getLocal(out, n)
	out = append(out, body[copyEnd-4:copyEnd]...) // the memory.copy
	out = append(out, opEnd)                      // done
	out = append(out, body[copyEnd:]...)
	return out, true, nil
}

func getLocal(out []byte, l uint32) []byte { return appendU32(append(out, opLocalGet), l) }
func setLocal(out []byte, l uint32) []byte { return appendU32(append(out, opLocalSet), l) }

// locate turns m.memmove from an index among all functions (the name
// section's) into one among the code section's, and reads its number of
// parameters, from the type, import and function sections. Without
// them, or for an imported function, m.memmove becomes -1.
func (m *moduleInfo) locate(types, imports, funcs []byte) error {
	idx := uint32(m.memmove)
	m.memmove = -1
	imported := uint32(0)
	if imports != nil {
		r := reader{b: imports}
		for n := r.u32(); n > 0 && r.err == nil; n-- {
			r.skip(int(r.u32())) // module
			r.skip(int(r.u32())) // name
			switch kind := r.byte(); kind {
			case 0: // function: type index
				r.u32()
				imported++
			case 1: // table: reference type, limits
				r.byte()
				skipLimits(&r)
			case 2: // memory: limits
				skipLimits(&r)
			case 3: // global: value type, mutability
				r.byte()
				r.byte()
			default:
				r.fail(fmt.Sprintf("import of kind %d", kind))
			}
		}
		if r.err != nil {
			return fmt.Errorf("import section: %w", r.err)
		}
	}
	if idx < imported || funcs == nil || types == nil {
		return nil
	}
	def := idx - imported
	r := reader{b: funcs}
	n := r.u32()
	if def >= n {
		return nil
	}
	var typ uint32
	for i := uint32(0); i <= def && r.err == nil; i++ {
		typ = r.u32()
	}
	t := reader{b: types}
	nt := t.u32()
	for i := uint32(0); i < nt && t.err == nil; i++ {
		if t.byte() != 0x60 {
			t.fail("not a function type")
			break
		}
		params := t.u32()
		if i == typ {
			if r.err != nil || t.err != nil {
				break
			}
			m.memmove, m.memmoveParams = int64(def), params
			return nil
		}
		t.skip(int(params))
		t.skip(int(t.u32())) // results
	}
	if r.err != nil {
		return fmt.Errorf("function section: %w", r.err)
	}
	if t.err != nil {
		return fmt.Errorf("type section: %w", t.err)
	}
	return nil
}

func skipLimits(r *reader) {
	if flags := r.byte(); flags&1 != 0 {
		r.u32()
		r.u32()
	} else {
		r.u32()
	}
}
