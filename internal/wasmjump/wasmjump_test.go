package wasmjump

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// buildProg builds testdata/prog for wasip1.
func buildProg(t *testing.T) []byte {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a wasm module")
	}
	out := filepath.Join(t.TempDir(), "prog.wasm")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", out, ".")
	cmd.Dir = "testdata/prog"
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
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	var stdout, stderr bytes.Buffer
	cfg := wazero.NewModuleConfig().WithStdout(&stdout).WithStderr(&stderr).WithArgs("prog")
	if _, err := rt.InstantiateWithConfig(ctx, module, cfg); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	return stdout.String()
}

// TestRewrittenProgramBehavesTheSame: a Go program built for wasip1 and
// the same program rewritten print the same, to the byte (tracebacks with
// their offsets included), while most of its jumps were made direct and
// most of its loops wasm loops of their own.
func TestRewrittenProgramBehavesTheSame(t *testing.T) {
	module := buildProg(t)
	rewritten, st, err := Rewrite(module)
	if err != nil {
		t.Fatal(err)
	}
	if st.Laid < st.Functions/2 || st.Forward < 1000 || st.Loops < 100 || st.LoopJumps < st.Loops || st.Backward > st.Loops {
		t.Errorf("stats %+v: expected most functions laid out by Go, thousands of forward jumps and most loops made", st)
	}
	if len(rewritten) >= len(module) {
		t.Errorf("rewritten module %d bytes, not smaller than %d", len(rewritten), len(module))
	}
	want, got := run(t, module), run(t, rewritten)
	if got != want {
		t.Fatalf("rewritten program printed\n%s\nwant\n%s", got, want)
	}
	for _, s := range []string{"collatz", "deep", "recovered", "worker 3", "main.main("} {
		if !strings.Contains(got, s) {
			t.Errorf("output lacks %q (the program did not run its course):\n%s", s, got)
		}
	}

	// Rounds went on to a fixed point: a second pass finds nothing to do.
	again, st2, err := Rewrite(rewritten)
	if err != nil {
		t.Fatal(err)
	}
	if st2.Forward != 0 || st2.Backward != st.Backward || !bytes.Equal(again, rewritten) {
		t.Errorf("second pass: %+v (first %+v), changed %v", st2, st, !bytes.Equal(again, rewritten))
	}
}
