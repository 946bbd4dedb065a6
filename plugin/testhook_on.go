//go:build mcpprivacy_testhooks

package main

import "github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm"

// The harness's test build (-tags mcpprivacy_testhooks) panics in the
// callback named by the request header x-mcp-privacy-test-panic, to prove
// that a panic fails one stream and the VM keeps serving. Release builds
// don't contain this file.
//
// The header is read with the request headers and kept in the context:
// hosts make the request headers unavailable once they were passed on.
func init() {
	testHook = func(h *httpContext, stage string) {
		if stage == "request_headers" {
			h.testPanicAt, _ = proxywasm.GetHttpRequestHeader("x-mcp-privacy-test-panic")
		}
		if h.testPanicAt == stage {
			panic("test panic in " + stage)
		}
	}
}
