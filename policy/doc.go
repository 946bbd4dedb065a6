// Package policy is the policy language of mcp-privacy: it parses a plugin
// envelope or a policy (JSON or YAML), resolves extends and the built-in
// profiles, validates everything with errors that name the JSON path, and
// decides calls (access, rate-limit arithmetic, pipelines) on the result.
// The keys and enumerations it accepts are one table (schema.go), from
// which it also prints a JSON Schema. It is pure Go and knows nothing of
// proxy-wasm; a Policy is immutable once decoded and safe for concurrent
// use. docs/MCP_PRIVACY.md is its manual (sections 2 to 7 and 9).
package policy
