// Package e2e holds the host-side harness and the end-to-end tests: the
// compiled plugin under an Envoy-like proxy-wasm host (wasmhost), an HTTP
// proxy around it (proxy), and tests that drive real MCP servers and
// clients (github.com/modelcontextprotocol/go-sdk) through it. The demo
// server (demo) is the upstream of `make run` and of many tests.
package e2e
