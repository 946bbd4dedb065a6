// Package observability builds mcp-privacy's Grafana dashboard and
// Prometheus alert rules, and its tests check them: the dashboard is made
// with the Grafana foundation SDK (dashboard.go), the rules as
// Prometheus's own rule-file types and as a prometheus-operator
// PrometheusRule (rules.go). The committed files beside this one are what
// these builders produce (`go generate` rewrites them; a test fails when
// they differ):
//
//	mcp-privacy-dashboard.json       Grafana dashboard (import it)
//	mcp-privacy-rules.yaml           Prometheus rule file (rule_files)
//	mcp-privacy-prometheusrule.yaml  the same rules for prometheus-operator
//
// The tests parse the rules with Prometheus's rule-file parser and every
// PromQL expression with its PromQL parser, and check that each metric
// and label an expression names is one the plugin emits, under the name
// Envoy's /stats/prometheus gives it with the stats_tags of the shipped
// Envoy configurations (testdata/plugin-metrics.prom, which a test of
// cmd/mcp-privacy writes from the compiled plugin), or one of Envoy's own
// latency histograms. docs/DEPLOYMENT.md says how to load them.
package observability

//go:generate go test -run TestGeneratedFiles -update .
