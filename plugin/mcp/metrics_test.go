package mcp

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/ratelimit"
	"github.com/cloudg/mcp-privacy/policy"
)

// Helpers of this file are prefixed mt.

func TestMetricNames(t *testing.T) {
	cases := []struct{ got, want string }{
		{requestsMetricName("tools/call", outcomeAllowed), "mcp_privacy.requests.method.tools_call.decision.allowed"},
		{requestsMetricName("resources/templates/list", outcomeError), "mcp_privacy.requests.method.resources_templates_list.decision.error"},
		{requestsMetricName("notifications/progress", outcomeAllowed), "mcp_privacy.requests.method.notifications.decision.allowed"},
		{requestsMetricName("x.y/evil\nmethod", outcomeDenied), "mcp_privacy.requests.method.other.decision.denied"},
		{requestsMetricName("", outcomeDenied), "mcp_privacy.requests.method.other.decision.denied"},
		{detectionsMetric("EMAIL"), "mcp_privacy.detections.label.EMAIL"},
		{detectionsMetric("my.label/x"), "mcp_privacy.detections.label.my_label_x"},
		{detectionsMetric(""), "mcp_privacy.detections.label.none"},
		{rateLimitedMetric(policy.ScopePrincipalTool), "mcp_privacy.rate_limited.scope.principal_tool"},
		{errorsMetric(failInternal), "mcp_privacy.errors.kind.internal"},
		{pseudonymsIssuedMetric, "mcp_privacy.pseudonyms.issued"},
		{pseudonymsResolvedMetric, "mcp_privacy.pseudonyms.resolved"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if n := detectionsMetric(strings.Repeat("A", 100)); len(n) > len("mcp_privacy.detections.label.")+64 {
		t.Errorf("long label: %s", n)
	}
}

func TestMetricCounting(t *testing.T) {
	m := memMetrics{}
	m.Add(requestsMetricName("tools/call", outcomeAllowed), 2)
	m.Add(requestsMetricName("tools/call", outcomeRateLimited), 1)
	countTransforms(m, map[string]int{"EMAIL": 2, "PHONE": 0}, 2, 1)
	countTransforms(m, nil, 0, 0)
	p := rlPolicy(t, `{rate_limits: [{rate: 1, per: day, burst: 1, scope: global}]}`)
	l := ratelimit.New(nil, "s")
	v := l.Check(p, rlTool("a", "t"), nil, rlAt(0))
	countRateLimited(m, &v)
	v = l.Check(p, rlTool("a", "t"), nil, rlAt(0))
	countRateLimited(m, &v)
	countError(m, failParse)
	NopMetrics{}.Add("x", 1)
	m.Add("zero", 0)
	want := map[string]uint64{
		"mcp_privacy.requests.method.tools_call.decision.allowed":      2,
		"mcp_privacy.requests.method.tools_call.decision.rate_limited": 1,
		"mcp_privacy.detections.label.EMAIL":                           2,
		"mcp_privacy.pseudonyms.issued":                                2,
		"mcp_privacy.pseudonyms.resolved":                              1,
		"mcp_privacy.rate_limited.scope.global":                        1,
		"mcp_privacy.errors.kind.parse_error":                          1,
	}
	if len(m) != len(want) {
		t.Errorf("counters %v, want %v", m, want)
	}
	for k, n := range want {
		if m[k] != n {
			t.Errorf("%s = %d, want %d", k, m[k], n)
		}
	}
	if names := m.names(); len(names) != len(want) || names[0] > names[1] {
		t.Errorf("names() = %v", names)
	}
}

// Every name the plugin can emit is in MetricNames, safe as a stat name,
// and split into tags by the stats_tags regexes docs/METRICS.md gives
// Envoy (first capture group removed from the name, second the value).
func TestMetricNamesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/METRICS.md")
	if err != nil {
		t.Fatal(err)
	}
	p := rlPolicy(t, `{detectors: [{name: emp, pattern: "EMP-[0-9]{6}", label: EMPLOYEE_ID}]}`)
	names := MetricNames(p)
	seen := map[string]bool{}
	safe := regexp.MustCompile(`^mcp_privacy(\.[A-Za-z0-9_-]+)+$`)
	for _, n := range names {
		if seen[n] {
			t.Errorf("%s listed twice", n)
		}
		seen[n] = true
		if !safe.MatchString(n) {
			t.Errorf("%s: not a safe stat name", n)
		}
	}
	for _, n := range []string{requestsMetricName("tools/call", outcomeBlocked), requestsMetricName("whatever", outcomeError),
		detectionsMetric("EMPLOYEE_ID"), detectionsMetric("EMAIL"), detectionsMetric("IP_ADDRESS"),
		detectionsMetric("SECRET"), rateLimitedMetric(policy.ScopeTool),
		errorsMetric(failSharedData), pseudonymsResolvedMetric, auditDroppedMetric} {
		if !seen[n] {
			t.Errorf("MetricNames lacks %s", n)
		}
	}
	// The doc names every family, outcome and error kind.
	for _, s := range []string{"mcp_privacy.requests.method.<method>.decision.<decision>", "mcp_privacy.detections.label.<LABEL>",
		"mcp_privacy.calls.tool.<tool>.role.<role>.decision.<decision>",
		"mcp_privacy.pseudonyms.issued", "mcp_privacy.pseudonyms.resolved", "mcp_privacy.rate_limited.scope.<scope>",
		"mcp_privacy.errors.kind.<kind>", auditDroppedMetric} {
		if !strings.Contains(string(doc), s) {
			t.Errorf("docs/METRICS.md does not name %s", s)
		}
	}
	for _, o := range outcomes {
		if !strings.Contains(string(doc), "`"+string(o)+"`") {
			t.Errorf("docs/METRICS.md does not name the decision %s", o)
		}
	}
	for _, k := range errorKinds {
		if !strings.Contains(string(doc), "`"+string(k)+"`") {
			t.Errorf("docs/METRICS.md does not name the error kind %s", k)
		}
	}
	for _, d := range policy.BuiltinDetectors {
		if !strings.Contains(string(doc), "`"+d.Label+"`") {
			t.Errorf("docs/METRICS.md does not name the label %s", d.Label)
		}
	}
	for m, v := range metricMethods {
		if !strings.Contains(string(doc), "`"+v+"`") {
			t.Errorf("docs/METRICS.md does not name the method tag %s (%s)", v, m)
		}
	}

	// The stats_tags of the doc, applied as Envoy does.
	type extractor struct {
		tag string
		re  *regexp.Regexp
	}
	var exs []extractor
	tagRE := regexp.MustCompile(`(?m)^\s*- tag_name: (\S+)\n\s*regex: '([^']+)'`)
	for _, m := range tagRE.FindAllStringSubmatch(string(doc), -1) {
		exs = append(exs, extractor{m[1], regexp.MustCompile(m[2])})
	}
	if len(exs) != 8 {
		t.Fatalf("%d stats_tags in docs/METRICS.md, want 8", len(exs))
	}
	extract := func(name string) (string, map[string]string) {
		tags := map[string]string{}
		remove := make([]bool, len(name))
		for _, ex := range exs {
			m := ex.re.FindStringSubmatchIndex(name)
			if _, dup := tags[ex.tag]; m == nil || dup {
				continue
			}
			tags[ex.tag] = name[m[4]:m[5]]
			for i := m[2]; i < m[3]; i++ {
				remove[i] = true
			}
		}
		var b strings.Builder
		for i := range name {
			if !remove[i] {
				b.WriteByte(name[i])
			}
		}
		return b.String(), tags
	}
	cases := []struct {
		name, base string
		tags       map[string]string
	}{
		{requestsMetricName("tools/call", outcomeRateLimited), "wasmcustom.mcp_privacy.requests",
			map[string]string{"mcp_method": "tools_call", "mcp_decision": "rate_limited"}},
		{detectionsMetric("EMAIL"), "wasmcustom.mcp_privacy.detections", map[string]string{"mcp_label": "EMAIL"}},
		{rateLimitedMetric(policy.ScopeGlobal), "wasmcustom.mcp_privacy.rate_limited", map[string]string{"mcp_scope": "global"}},
		{errorsMetric(failResponseTooLarge), "wasmcustom.mcp_privacy.errors", map[string]string{"mcp_error": "response_too_large"}},
		{pseudonymsIssuedMetric, "wasmcustom.mcp_privacy.pseudonyms.issued", map[string]string{}},
		{"mcp_privacy.calls.tool.drop_table.role.sre-oncall.decision.denied", "wasmcustom.mcp_privacy.calls",
			map[string]string{"mcp_tool": "drop_table", "mcp_role": "sre-oncall", "mcp_decision": "denied"}},
		{"mcp_privacy.calls.tool.decision.role.role.decision.allowed", "wasmcustom.mcp_privacy.calls",
			map[string]string{"mcp_tool": "decision", "mcp_role": "role", "mcp_decision": "allowed"}},
	}
	for _, c := range cases {
		base, tags := extract("wasmcustom." + c.name)
		if base != c.base || len(tags) != len(c.tags) {
			t.Errorf("%s: %s %v, want %s %v", c.name, base, tags, c.base, c.tags)
			continue
		}
		for k, v := range c.tags {
			if tags[k] != v {
				t.Errorf("%s: tag %s = %q, want %q", c.name, k, tags[k], v)
			}
		}
	}
}

// requestsMetric's table gives requestsMetricName's name for every method,
// known or not, and every outcome.
func TestRequestsMetricTable(t *testing.T) {
	methods := []string{"other", "notifications/x", "no/such", "", "responses"}
	for m := range metricMethods {
		methods = append(methods, m)
	}
	for _, m := range methods {
		for _, o := range outcomes {
			if got, want := requestsMetric(m, o), requestsMetricName(m, o); got != want {
				t.Errorf("%q %s: %q, want %q", m, o, got, want)
			}
			if _, ok := requestsMetricNames[[2]string{metricMethod(m), string(o)}]; !ok {
				t.Errorf("%q %s: not in the table", m, o)
			}
		}
	}
}
