// Command wasmcalls counts the Go function calls one iteration of a
// benchmark makes inside the VM: it builds the package's tests for wasip1,
// runs the benchmark under wazero with a function listener twice (with
// -benchtime 2x and (2+n)x: both call the benchmark function twice, once
// with b.N = 1 and once with b.N = the count, so setup cancels out) and
// prints, per function, the difference divided by n.
// Inside the VM a call and an allocation cost far more than natively, so
// the counts say where a benchmark's time can go. See docs/BENCHMARKS.md.
//
//	go run ./internal/tools/wasmcalls -bench 'ParseInputs/list500' ./internal/jsondoc/
//
// -callers REGEXP also counts the calls to the matching functions by their
// caller ("runtime.memmove <- jsondoc.(*Doc).write"): who makes the
// runtime calls.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

func main() {
	bench := flag.String("bench", "", "benchmark pattern (go test -bench); it should match one benchmark")
	n := flag.Int("n", 20, "extra iterations the counts are averaged over")
	top := flag.Int("top", 40, "functions to print")
	callers := flag.String("callers", "", "also count the calls to functions matching this regexp by their caller (callee <- caller)")
	flag.Parse()
	if *callers != "" {
		byCaller = regexp.MustCompile(*callers)
	}
	if *bench == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: wasmcalls -bench PATTERN [-n N] [-top K] PACKAGE")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "wasmcalls")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "test.wasm")
	build := exec.Command("go", "test", "-c", "-o", bin, flag.Arg(0))
	build.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fail(err)
	}
	wasm, err := os.ReadFile(bin)
	if err != nil {
		fail(err)
	}
	once := count(wasm, *bench, 2)
	more := count(wasm, *bench, 2+*n)
	type row struct {
		name  string
		calls float64
	}
	var rows []row
	total := 0.0
	for name, c := range more {
		if d := float64(c-once[name]) / float64(*n); d > 0 {
			rows = append(rows, row{name, d})
			total += d
		}
	}
	slices.SortFunc(rows, func(a, b row) int { return cmp.Compare(b.calls, a.calls) })
	fmt.Printf("%.0f calls per iteration of %s\n", total, *bench)
	for i, r := range rows {
		if i == *top {
			break
		}
		fmt.Printf("%10.1f  %s\n", r.calls, r.name)
	}
}

// count runs the benchmark for iterations and returns the calls made to
// each function (setup included; the caller subtracts a shorter run).
func count(wasm []byte, bench string, iterations int) map[string]int {
	calls := map[string]int{}
	ctx := experimental.WithFunctionListenerFactory(context.Background(), listener(calls))
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
	cwd, err := os.Getwd()
	if err != nil {
		fail(err)
	}
	cfg := wazero.NewModuleConfig().WithStderr(os.Stderr).WithSysWalltime().WithSysNanotime().WithRandSource(nil).
		// / mounted and PWD set, as make bench-wasm runs a test binary:
		// Go takes its working directory from PWD, and a test may read
		// testdata above its package (../testdata).
		WithFSConfig(wazero.NewFSConfig().WithDirMount("/", "/")).WithEnv("PWD", cwd).
		WithArgs("test.wasm", "-test.run", "^$", "-test.bench", bench, "-test.benchtime", fmt.Sprintf("%dx", iterations))
	if _, err := r.InstantiateWithConfig(ctx, wasm, cfg); err != nil {
		if exit, ok := err.(interface{ ExitCode() uint32 }); !ok || exit.ExitCode() != 0 {
			fail(err)
		}
	}
	return calls
}

type listener map[string]int

// byCaller (-callers): the callees whose calls are also counted per caller.
var byCaller *regexp.Regexp

func (l listener) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	name := def.DebugName()
	perCaller := byCaller != nil && byCaller.MatchString(name)
	return experimental.FunctionListenerFunc(func(_ context.Context, _ api.Module, _ api.FunctionDefinition, _ []uint64, stack experimental.StackIterator) {
		l[name]++
		if perCaller && stack.Next() && stack.Next() {
			l[name+" <- "+stack.Function().Definition().DebugName()]++
		}
	})
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "wasmcalls:", err)
	os.Exit(1)
}
