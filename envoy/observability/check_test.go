package observability

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	grafanaprom "github.com/grafana/grafana-foundation-sdk/go/prometheus"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
	"sigs.k8s.io/yaml"
)

var promql = parser.NewParser(parser.Options{})

// The rule file parses and validates with Prometheus's own rule-file
// parser (unknown fields refused, every expression through the PromQL
// parser, templates of annotations), and holds the built rules.
func TestRuleFile(t *testing.T) {
	got, errs := rulefmt.ParseFile(rulesFile, false, model.UTF8Validation, promql, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, err := range errs {
		t.Error(err)
	}
	if got == nil {
		t.FailNow()
	}
	if want := RuleGroups(); !reflect.DeepEqual(got.Groups, want.Groups) {
		t.Errorf("%s holds other rules than RuleGroups()", rulesFile)
	}
	names := map[string]bool{}
	for _, r := range got.Groups[0].Rules {
		names[r.Alert] = true
	}
	for _, a := range []string{"MCPPrivacyDenialSpike", "MCPPrivacyFailClosed", "MCPPrivacyParseErrors",
		"MCPPrivacyUnresolvedPseudonyms", "MCPPrivacyRateLimitEvictions"} {
		if !names[a] {
			t.Errorf("no alert %s", a)
		}
	}
}

// The PrometheusRule loads strictly into prometheus-operator's type and
// holds the rule file's groups.
func TestPrometheusRule(t *testing.T) {
	data, err := os.ReadFile(prometheusRuleFile)
	if err != nil {
		t.Fatal(err)
	}
	var pr monitoringv1.PrometheusRule
	if err := yaml.UnmarshalStrict(data, &pr); err != nil {
		t.Fatal(err)
	}
	if pr.APIVersion != "monitoring.coreos.com/v1" || pr.Kind != "PrometheusRule" || pr.Name == "" {
		t.Errorf("type meta %s %s %q", pr.APIVersion, pr.Kind, pr.Name)
	}
	plain, errs := rulefmt.ParseFile(rulesFile, false, model.UTF8Validation, promql, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	// What prometheus-operator writes into Prometheus's rule file.
	var groups rulefmt.RuleGroups
	for _, g := range pr.Spec.Groups {
		rg := rulefmt.RuleGroup{Name: g.Name}
		for _, r := range g.Rules {
			rr := rulefmt.Rule{Alert: r.Alert, Record: r.Record, Expr: r.Expr.String(), Labels: r.Labels, Annotations: r.Annotations}
			if r.For != nil {
				d, err := model.ParseDuration(string(*r.For))
				if err != nil {
					t.Errorf("%s: for: %v", r.Alert, err)
				}
				rr.For = d
			}
			rg.Rules = append(rg.Rules, rr)
		}
		groups.Groups = append(groups.Groups, rg)
	}
	if !reflect.DeepEqual(groups.Groups, plain.Groups) {
		t.Errorf("%s and %s hold different rules", prometheusRuleFile, rulesFile)
	}
}

// exprs are every PromQL expression of the dashboard and the rules, by
// where they are, with Grafana's variables replaced by values PromQL
// reads (an interval, a regex that matches anything).
func exprs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	plugins.RegisterDefaultPlugins()
	data, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1019 the classic model, as Dashboard builds it
	var d dashboard.Dashboard
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	grafanaVars := strings.NewReplacer("$__rate_interval", "5m", "$job", ".*", "$http", ".*", "$cluster", ".*")
	labelValues := regexp.MustCompile(`^label_values\(([^,]+), *([a-zA-Z_][a-zA-Z0-9_]*)\)$`)
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		q := ""
		if v.Query != nil && v.Query.String != nil {
			q = *v.Query.String
		}
		m := labelValues.FindStringSubmatch(q)
		if m == nil {
			t.Errorf("variable %s: query %q is not label_values(metric, label)", v.Name, q)
			continue
		}
		out["variable "+v.Name] = "count by (" + m[2] + ") (" + m[1] + ")"
	}
	n := 0
	for _, p := range d.Panels {
		if p.Panel == nil {
			continue
		}
		for _, tgt := range p.Panel.Targets {
			q, ok := tgt.(*grafanaprom.Dataquery)
			if !ok {
				t.Errorf("panel %q: a query that is not Prometheus's: %T", deref(p.Panel.Title), tgt)
				continue
			}
			out["panel "+deref(p.Panel.Title)+" "+deref(q.RefId)] = grafanaVars.Replace(q.Expr)
			n++
		}
	}
	if n < 15 {
		t.Errorf("%d panel queries in %s", n, dashboardFile)
	}
	for _, g := range RuleGroups().Groups {
		for _, r := range g.Rules {
			out["alert "+r.Alert] = r.Expr
		}
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// family is a metric's label names and the values each takes.
type family map[string]map[string]bool

// emitted reads the plugin's metrics (testdata/plugin-metrics.prom: the
// compiled plugin under envoy/envoy.yaml, as serve --admin and Envoy with
// the shipped stats_tags show them) with Prometheus's text parser.
func emitted(t *testing.T) map[string]family {
	t.Helper()
	data, err := os.ReadFile("testdata/plugin-metrics.prom")
	if err != nil {
		t.Fatal(err)
	}
	tp := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := tp.TextToMetricFamilies(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]family{}
	for name, mf := range mfs {
		f := family{}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if f[l.GetName()] == nil {
					f[l.GetName()] = map[string]bool{}
				}
				f[l.GetName()][l.GetValue()] = true
			}
		}
		out[name] = f
	}
	// Envoy's own latency histograms (stats http.<stat_prefix>.downstream_rq_time
	// and cluster.<name>.upstream_rq_time, tagged by Envoy's default
	// extractors envoy.http_conn_manager_prefix and envoy.cluster_name,
	// source/common/config/well_known_names.cc); the values are the shipped
	// envoy.yaml's stat_prefix and cluster.
	for _, h := range []struct{ name, tag, value string }{
		{"envoy_http_downstream_rq_time", "envoy_http_conn_manager_prefix", "mcp"},
		{"envoy_cluster_upstream_rq_time", "envoy_cluster_name", "mcp_server"},
	} {
		for _, suffix := range []string{"_bucket", "_count", "_sum"} {
			f := family{h.tag: {h.value: true}}
			if suffix == "_bucket" {
				f["le"] = map[string]bool{"+Inf": true}
			}
			out[h.name+suffix] = f
		}
	}
	return out
}

// targetLabels are the labels Prometheus adds to every scraped series.
var targetLabels = map[string]bool{"job": true, "instance": true}

// Every metric and label an expression of the dashboard or the rules
// names is one the plugin emits (or Envoy's latency histograms), read
// from the PromQL parser's AST: selectors' names and matchers, and the
// labels of by/without and on/ignoring.
func TestEveryMetricExists(t *testing.T) {
	metrics := emitted(t)
	if len(metrics["mcp_privacy_requests"]) == 0 || len(metrics["mcp_privacy_calls"]) == 0 {
		t.Fatal("testdata/plugin-metrics.prom lacks the requests or calls counters")
	}
	used := map[string]bool{}
	for where, src := range exprs(t) {
		expr, err := promql.ParseExpr(src)
		if err != nil {
			t.Errorf("%s: %v\n%s", where, err, src)
			continue
		}
		var names []string
		var grouping []string
		parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
			switch n := node.(type) {
			case *parser.VectorSelector:
				names = append(names, checkSelector(t, where, n, metrics)...)
			case *parser.AggregateExpr:
				grouping = append(grouping, n.Grouping...)
			case *parser.BinaryExpr:
				if n.VectorMatching != nil {
					grouping = append(grouping, n.VectorMatching.MatchingLabels...)
				}
			}
			return nil
		})
		for _, n := range names {
			used[n] = true
		}
		for _, l := range grouping {
			found := targetLabels[l]
			for _, n := range names {
				if _, ok := metrics[n][l]; ok {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: groups by %s, a label none of its metrics has", where, l)
			}
		}
	}
	// The dashboard shows every family the plugin emits.
	for name := range metrics {
		if strings.HasPrefix(name, "mcp_privacy_") && !used[name] {
			t.Errorf("no panel or rule shows %s", name)
		}
	}
}

// checkSelector checks one vector selector and returns its metric name.
func checkSelector(t *testing.T, where string, vs *parser.VectorSelector, metrics map[string]family) []string {
	t.Helper()
	name := vs.Name
	if name == "" {
		t.Errorf("%s: a selector without a metric name: %s", where, vs)
		return nil
	}
	f, ok := metrics[name]
	if !ok {
		t.Errorf("%s: %s is not a metric the plugin (or Envoy) emits", where, name)
		return nil
	}
	for _, m := range vs.LabelMatchers {
		if m.Name == model.MetricNameLabel || targetLabels[m.Name] {
			continue
		}
		values, ok := f[m.Name]
		if !ok {
			t.Errorf("%s: %s has no label %s", where, name, m.Name)
			continue
		}
		switch m.Type {
		case labels.MatchEqual, labels.MatchNotEqual:
			if !values[m.Value] {
				t.Errorf("%s: %s{%s} never takes the value %q", where, name, m.Name, m.Value)
			}
		case labels.MatchRegexp, labels.MatchNotRegexp:
			if m.Value == ".*" { // a Grafana variable's "All"
				continue
			}
			// Each alternative of a plain alternation is a value.
			for _, alt := range strings.Split(m.Value, "|") {
				if !values[alt] {
					t.Errorf("%s: %s{%s=~%q}: %q is never a value", where, name, m.Name, m.Value, alt)
				}
			}
		}
	}
	return []string{name}
}
