// Package envoy holds mcp-privacy's deployment configurations (plain Envoy,
// Istio, Envoy Gateway) and the tests that load each into the proxy's own
// API types and check it, so that a typo fails CI instead of a rollout. The
// configurations are the YAML files in this directory and its istio/ and
// gateway/ subdirectories; docs/DEPLOYMENT.md explains them.
//
// It is a Go module of its own, so that those projects' Go types (and the
// Kubernetes libraries under them) stay out of the plugin's module; it
// reads the plugin's policy package from this checkout (the replace in
// go.mod). make test and make lint run it.
package envoy
