// Package wasmhost runs a proxy-wasm 0.2.1 module (build/mcp-privacy.wasm)
// on wazero with the semantics of Envoy's Wasm HTTP filter: one VM per
// worker thread, shared data and queues across them, the filter manager's
// buffering, pausing and local replies around a single filter, and Envoy's
// answers to the module's host calls. `mcp-privacy serve` runs the plugin
// under it, and the end-to-end tests drive it (through internal/proxy or a
// Stream directly). It knows nothing of MCP or policies. docs/HARNESS.md
// says what it models and from which sources.
package wasmhost
