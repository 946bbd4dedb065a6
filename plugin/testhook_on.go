//go:build mcpprivacy_testhooks

package main

import "github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm"

// The harness's test build (-tags mcpprivacy_testhooks) panics in the
// callback named by the request header x-mcp-privacy-test-panic, to prove
// that a panic fails one stream and the VM keeps serving. Release builds
// don't contain this file.
func init() {
	testHook = func(stage string) {
		if v, err := proxywasm.GetHttpRequestHeader("x-mcp-privacy-test-panic"); err == nil && v == stage {
			panic("test panic in " + stage)
		}
	}
}
