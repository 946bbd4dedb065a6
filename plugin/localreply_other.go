//go:build !wasip1 || tinygo

package main

import "github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm"

// sendLocalReply is proxywasm.SendHttpResponse; natively (the SDK's test
// host) there is nowhere for the response code details to go.
func sendLocalReply(status uint32, headers [][2]string, body []byte, _ string) error {
	return proxywasm.SendHttpResponse(status, headers, body, -1)
}
