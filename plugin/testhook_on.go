//go:build mcpprivacy_testhooks

package main

import (
	"sync"

	"github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm"
)

// The harness's test build (-tags mcpprivacy_testhooks) injects two kinds
// of failure in the callback a request header names:
//
//   - x-mcp-privacy-test-panic: <callback> panics there, to prove that a
//     panic fails one stream and the VM keeps serving;
//   - x-mcp-privacy-test-trap: <callback> traps the whole VM there with a
//     fatal error no recover catches (what running out of memory does), to
//     prove that the host fails the stream closed and, with FAIL_RELOAD,
//     serves later streams from a new VM that finds the shared data.
//
// Release builds don't contain this file. The headers are read with the
// request headers and kept in the context: hosts make the request headers
// unavailable once they were passed on.
func init() {
	testHook = func(h *httpContext, stage string) {
		if stage == "request_headers" {
			h.testPanicAt, _ = proxywasm.GetHttpRequestHeader("x-mcp-privacy-test-panic")
			h.testTrapAt, _ = proxywasm.GetHttpRequestHeader("x-mcp-privacy-test-trap")
		}
		if h.testTrapAt == stage {
			// A fatal error (runtime.fatal), not a panic: the Go runtime
			// aborts and the VM traps (wasm unreachable).
			var mu sync.Mutex
			mu.Unlock() //lint:ignore SA2001 the fatal error is the point
		}
		if h.testPanicAt == stage {
			panic("test panic in " + stage)
		}
	}
}
