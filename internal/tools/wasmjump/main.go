// Command wasmjump rewrites a Go wasm module's jumps between basic blocks
// into direct branches and its loops into wasm loops (internal/wasmjump):
//
//	wasmjump [-strip-names] IN.wasm OUT.wasm   (OUT may be IN)
//
// -strip-names drops the name section after reading it, as the linker's
// -s does: scripts/build-wasm.sh links with the names and strips them here,
// so that the rewrite knows which calls never return.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/cloudg/mcp-privacy/internal/wasmjump"
)

func main() {
	strip := flag.Bool("strip-names", false, "drop the name section (function names) from OUT")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: wasmjump [-strip-names] IN.wasm OUT.wasm")
		os.Exit(2)
	}
	in, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fail(err)
	}
	out, st, err := wasmjump.Rewrite(in, wasmjump.Options{StripNames: *strip})
	if err != nil {
		fail(fmt.Errorf("%s: %w", flag.Arg(0), err))
	}
	if err := os.WriteFile(flag.Arg(1), out, 0o644); err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "wasmjump: %d of %d functions laid out by Go: %d jumps made direct, %d loops made (%d without a dispatch; %d jumps to them), %d jumps left to the dispatch; short copies in runtime.memmove: %d; %d -> %d bytes\n",
		st.Laid, st.Functions, st.Forward, st.Loops, st.Leaf, st.LoopJumps, st.Backward, st.Copies, len(in), len(out))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "wasmjump:", err)
	os.Exit(1)
}
