// Command wasmjump rewrites a Go wasm module's jumps between basic blocks
// into direct branches and its loops into wasm loops (internal/wasmjump):
//
//	wasmjump IN.wasm OUT.wasm   (OUT may be IN)
package main

import (
	"fmt"
	"os"

	"github.com/cloudg/mcp-privacy/internal/wasmjump"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: wasmjump IN.wasm OUT.wasm")
		os.Exit(2)
	}
	in, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail(err)
	}
	out, st, err := wasmjump.Rewrite(in)
	if err != nil {
		fail(fmt.Errorf("%s: %w", os.Args[1], err))
	}
	if err := os.WriteFile(os.Args[2], out, 0o644); err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "wasmjump: %d of %d functions laid out by Go: %d jumps made direct, %d loops made (%d jumps to them), %d jumps left to the dispatch; %d -> %d bytes\n",
		st.Laid, st.Functions, st.Forward, st.Loops, st.LoopJumps, st.Backward, len(in), len(out))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "wasmjump:", err)
	os.Exit(1)
}
