// Package e2e holds the end-to-end tests: the compiled plugin under the
// Envoy-like proxy-wasm host (internal/wasmhost) behind its HTTP proxy
// (internal/proxy), driven by real MCP servers and clients (the go-sdk, the
// TypeScript SDK), with the demo server (internal/demo) as a common
// upstream. The host, the proxy and the demo are product code: `mcp-privacy
// serve` and `make run` ship them.
package e2e
