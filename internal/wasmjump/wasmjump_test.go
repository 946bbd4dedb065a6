package wasmjump

import (
	"bytes"
	"context"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

// buildProg builds testdata/prog for wasip1.
func buildProg(t *testing.T) []byte {
	return build(t, "testdata/prog", "build")
}

// raceBuild is set by race_on_test.go in a -race build.
var raceBuild bool

// build runs go build (or go test -c) for wasip1 in dir and returns the
// module.
func build(t *testing.T, dir string, verb ...string) []byte {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a wasm module")
	}
	if raceBuild {
		// The rewrite runs on one goroutine; the race detector would
		// only make wazero compile the modules ten times slower.
		t.Skip("builds and runs wasm modules: the plain run covers it")
	}
	out := filepath.Join(t.TempDir(), "module.wasm")
	cmd := exec.Command("go", append(verb, "-o", out, ".")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOFLAGS=", "GOWORK=off", "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, msg)
	}
	module, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return module
}

// run runs module under wazero and returns what it wrote.
func run(t *testing.T, module []byte) string {
	t.Helper()
	out, err := runIn(module, "", "prog")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	return out
}

// runIn runs module under wazero with args, with the file system mounted
// and dir its working directory (PWD, as Go's wasip1 programs take it)
// when dir is not empty, and returns what it wrote.
func runIn(module []byte, dir string, args ...string) (string, error) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	var out bytes.Buffer
	cfg := wazero.NewModuleConfig().WithStdout(&out).WithStderr(&out).WithArgs(args...).
		WithSysWalltime().WithSysNanotime().WithRandSource(rand.Reader)
	if dir != "" {
		cfg = cfg.WithFSConfig(wazero.NewFSConfig().WithDirMount("/", "/")).WithEnv("PWD", dir)
	}
	_, err := rt.InstantiateWithConfig(ctx, module, cfg)
	if exit, ok := err.(*sys.ExitError); ok && exit.ExitCode() == 0 {
		err = nil
	}
	return out.String(), err
}

// TestRewrittenProgramBehavesTheSame: a Go program built for wasip1 and
// the same program rewritten print the same, to the byte (tracebacks with
// their offsets included), while most of its jumps were made direct and
// most of its loops wasm loops of their own.
func TestRewrittenProgramBehavesTheSame(t *testing.T) {
	module := buildProg(t)
	rewritten, st, err := Rewrite(module, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Laid < st.Functions/2 || st.Forward < 1000 || st.Loops < 100 || st.LoopJumps < st.Loops || st.Backward > st.Loops || st.Copies != 1 {
		t.Errorf("stats %+v: expected most functions laid out by Go, thousands of forward jumps and most loops made, and runtime.memmove's short copies", st)
	}
	if len(rewritten) >= len(module) {
		t.Errorf("rewritten module %d bytes, not smaller than %d", len(rewritten), len(module))
	}
	want, got := run(t, module), run(t, rewritten)
	if got != want {
		t.Fatalf("rewritten program printed\n%s\nwant\n%s", got, want)
	}
	for _, s := range []string{"collatz", "deep", "copies 57581", "recovered", "worker 3", "main.main("} {
		if !strings.Contains(got, s) {
			t.Errorf("output lacks %q (the program did not run its course):\n%s", s, got)
		}
	}

	// Rounds went on to a fixed point: a second pass finds nothing to do.
	again, st2, err := Rewrite(rewritten, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st2.Forward != 0 || st2.Backward != st.Backward || st2.Copies != 0 || !bytes.Equal(again, rewritten) {
		t.Errorf("second pass: %+v (first %+v), changed %v", st2, st, !bytes.Equal(again, rewritten))
	}
}

// TestRewrittenTestSuitesPass: packages' own test suites (the JSON parser
// against encoding/json, the detectors against their corpora and former
// scanners), built for wasip1 and rewritten, pass under wazero: the
// rewrite keeps what the hot paths compute, loop by loop.
func TestRewrittenTestSuitesPass(t *testing.T) {
	for _, pkg := range []string{"../jsondoc", "../../transforms/detect"} {
		t.Run(filepath.Base(pkg), func(t *testing.T) {
			dir, err := filepath.Abs(pkg)
			if err != nil {
				t.Fatal(err)
			}
			rewritten, st, err := Rewrite(build(t, dir, "test", "-c"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if st.Forward == 0 || st.Leaf == 0 || st.Loops == st.Leaf {
				t.Errorf("stats %+v: expected direct jumps, and loops of both kinds", st)
			}
			out, err := runIn(rewritten, dir, "pkg.test", "-test.count=1")
			if err != nil || !strings.HasSuffix(strings.TrimSpace(out), "PASS") {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
}

// goLayoutModule is a module of one function laid out as Go's backend
// lays functions out: a dispatch loop around a table of two regions,
// region 0 jumping forward to region 1, which returns 7.
func goLayoutModule() []byte {
	body := []byte{
		0x00,         // no locals
		opLoop, 0x40, // the dispatch loop
		opBlock, 0x40, // region 1's block
		opBlock, 0x40, // region 0's block
		opLocalGet, 0x00, // PC_B
		opBrTable, 0x01, 0x00, 0x01, // [0] default 1
		opEnd,                                          // region 0
		opI32Const, 0x01, opLocalSet, 0x00, opBr, 0x01, // Go's jump to region 1
		opEnd, // region 1
		opI32Const, 0x07, opReturn,
		opEnd,         // the dispatch loop
		opUnreachable, // as Go ends a function
		opEnd,
	}
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = append(m, 1, 6, 1, 0x60, 1, 0x7f, 1, 0x7f)                   // type (i32) -> i32
	m = append(m, 3, 2, 1, 0)                                        // one function of it
	m = append(m, 7, 5, 1, 1, 'f', 0, 0)                             // exported as f
	code := append(appendU32([]byte{1}, uint32(len(body))), body...) // one body
	m = append(m, 10)
	m = appendU32(m, uint32(len(code)))
	return append(m, code...)
}

// TestGoLayoutModule: the smallest Go-shaped function gets its jump made
// direct and still returns what it returned.
func TestGoLayoutModule(t *testing.T) {
	in := goLayoutModule()
	out, st, err := Rewrite(in, Options{})
	if err != nil || st.Laid != 1 || st.Forward != 1 {
		t.Fatalf("stats %+v, err %v", st, err)
	}
	if !bytes.Contains(out, []byte{opEnd, opBr, 0x00, opEnd}) || bytes.Contains(out, []byte{opI32Const, 0x01, opLocalSet}) {
		t.Errorf("jump not made direct: % x", out)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	for _, m := range [][]byte{in, out} {
		mod, err := rt.Instantiate(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		if res, err := mod.ExportedFunction("f").Call(ctx, 0); err != nil || res[0] != 7 {
			t.Errorf("f(0) = %v, %v; want 7", res, err)
		}
		mod.Close(ctx)
	}
}

// FuzzRewrite: Rewrite never panics, and never makes a module wazero
// accepts into one it refuses.
func FuzzRewrite(f *testing.F) {
	f.Add(goLayoutModule())
	f.Add([]byte("\x00asm\x01\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, _, err := Rewrite(in, Options{})
		if err != nil {
			return
		}
		if !vectorsFit(in) {
			return // invalid, and wazero would allocate what the count says first
		}
		ctx := context.Background()
		rt := wazero.NewRuntime(ctx)
		defer rt.Close(ctx)
		if _, err := rt.CompileModule(ctx, in); err != nil {
			return
		}
		if _, err := rt.CompileModule(ctx, out); err != nil {
			t.Fatalf("valid module rewritten into an invalid one: %v", err)
		}
	})
}

// vectorsFit reports whether every section of module m that opens with a
// vector (types, imports … code, data; not start) declares no more items
// than it has bytes. wazero's decoder makes a slice of the declared count
// before reading an item (an import section claiming 2³¹−1 imports ran the
// fuzzer out of memory), so FuzzRewrite asks it only about modules whose
// counts could be true.
func vectorsFit(m []byte) bool {
	r := &reader{b: m, i: 8}
	for r.i < len(m) && r.err == nil {
		id := r.byte()
		size := int(r.u32())
		start := r.i
		if r.err != nil || size > len(m)-start {
			return false
		}
		if id >= 1 && id <= 11 && id != 8 {
			if n := int(r.u32()); r.err != nil || n > size {
				return false
			}
		}
		r.i = start + size
	}
	return r.err == nil
}

// memmoveModule is a module whose one function is shaped as Go's
// runtime.memmove and named so: f(n) copies n bytes from 60 to 64 in a
// memory whose first 128 bytes are 0, 1, 2, ... Its locals' count is
// written in two bytes when paddedCount is set (LEB128 allows it).
func memmoveModule(paddedCount bool) []byte {
	count := []byte{0x01}
	if paddedCount {
		count = []byte{0x81, 0x00}
	}
	body := append(count, 0x03, 0x7e) // three i64 locals: 1, 2, 3
	body = append(body,
		0x42, 0xc0, 0x00, opLocalSet, 1, // dst: i64.const 64
		0x42, 60, opLocalSet, 2, // src
		opLocalGet, 0, 0xad, opLocalSet, 3, // n: i64.extend_i32_u
		opLocalGet, 1, opI32WrapI64, opLocalGet, 2, opI32WrapI64, opLocalGet, 3, opI32WrapI64,
		opPrefixFC, fcMemoryCopy, 0, 0,
		opI32Const, 0, opEnd)
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = append(m, 1, 6, 1, 0x60, 1, 0x7f, 1, 0x7f) // type (i32) -> i32
	m = append(m, 3, 2, 1, 0)                      // one function of it
	m = append(m, 5, 3, 1, 0, 1)                   // one page of memory
	m = append(m, 7, 11, 2, 1, 'f', 0, 0, 3, 'm', 'e', 'm', 2, 0)
	code := append(appendU32([]byte{1}, uint32(len(body))), body...)
	m = append(m, 10)
	m = appendU32(m, uint32(len(code)))
	m = append(m, code...)
	data := appendU32([]byte{1, 0, opI32Const, 0, opEnd}, 128)
	for i := range 128 {
		data = append(data, byte(i))
	}
	m = append(m, 11)
	m = appendU32(m, uint32(len(data)))
	m = append(m, data...)
	names := []byte{1} // function names
	fn := append([]byte{1, 0, byte(len(memmoveName))}, memmoveName...)
	names = append(appendU32(names, uint32(len(fn))), fn...)
	sec := append([]byte{4, 'n', 'a', 'm', 'e'}, names...)
	m = append(m, 0)
	m = appendU32(m, uint32(len(sec)))
	return append(m, sec...)
}

// TestSmallCopies: runtime.memmove rewritten copies every length from 0 to
// 40 (short and long paths, overlapping) as memory.copy does, whether its
// locals' count was written in one byte or more; a second pass leaves it.
func TestSmallCopies(t *testing.T) {
	if raceBuild {
		t.Skip("runs wasm modules: the plain run covers it")
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	memory := func(module []byte, n uint64) []byte {
		t.Helper()
		mod, err := rt.InstantiateWithConfig(ctx, module, wazero.NewModuleConfig().WithName(""))
		if err != nil {
			t.Fatal(err)
		}
		defer mod.Close(ctx)
		if _, err := mod.ExportedFunction("f").Call(ctx, n); err != nil {
			t.Fatal(err)
		}
		b, _ := mod.Memory().Read(0, 128)
		return bytes.Clone(b)
	}
	for _, padded := range []bool{false, true} {
		in := memmoveModule(padded)
		out, st, err := Rewrite(in, Options{})
		if err != nil || st.Copies != 1 {
			t.Fatalf("padded %v: stats %+v, err %v", padded, st, err)
		}
		if again, st2, err := Rewrite(out, Options{}); err != nil || st2.Copies != 0 || !bytes.Equal(again, out) {
			t.Errorf("padded %v: second pass %+v, err %v", padded, st2, err)
		}
		for n := uint64(0); n <= 40; n++ {
			if got, want := memory(out, n), memory(in, n); !bytes.Equal(got, want) {
				t.Errorf("padded %v: copy of %d bytes gives\n% x\nwant\n% x", padded, n, got, want)
			}
		}
	}
}
