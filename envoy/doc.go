// Package envoy holds mcp-privacy's deployment configurations (plain Envoy,
// Istio, Envoy Gateway) and the tests that load each into the proxy's own
// API types and check it, so that a typo fails CI instead of a rollout. The
// configurations are the YAML files in this directory and its istio/ and
// gateway/ subdirectories; docs/DEPLOYMENT.md explains them.
package envoy
