package e2e_test

import (
	"strings"
	"testing"
)

// What rate limits and audit cost per call in wasm: the allowed tools/call
// of BenchmarkToolsCallWasm (request and response, one stream per op)
// under the same policy with limits and audit switched on. The difference
// to "plain" is a rate-limit check (reads and CAS writes of shared data
// through the host) and an audit append (the entry scrubbed by the
// detectors, encoded, logged, and written to the ring in shared data).
// See docs/BENCHMARKS.md.

// obBenchPolicy adds JSON members to rbBenchEnvelope's policy.
func obBenchPolicy(members string) string {
	if members == "" {
		return rbBenchEnvelope
	}
	return strings.Replace(rbBenchEnvelope, `"name": "test",`, `"name": "test", `+members+`,`, 1)
}

func BenchmarkToolsCallWasmObserved(b *testing.B) {
	wasm := benchPlugin(b)
	const huge = `"rate": 1000000000, "per": "second"`
	cases := []struct{ name, policy string }{
		{"plain", ""},
		{"1limit", `"rate_limits": [{` + huge + `, "scope": "principal_tool"}]`},
		{"4limits", `"rate_limits": [{` + huge + `, "scope": "principal"}, {` + huge + `, "scope": "tool"}, {` +
			huge + `, "scope": "principal_tool"}, {` + huge + `, "scope": "global"}]`},
		{"audit", `"audit": true, "audit_size": 1000`},
		{"1limit+audit", `"audit": true, "audit_size": 1000, "rate_limits": [{` + huge + `, "scope": "principal_tool"}]`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) { rbBenchAllowed(b, wasm, obBenchPolicy(c.policy), true) })
	}
}
