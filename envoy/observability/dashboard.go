package observability

import (
	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
)

// DashboardUID is the dashboard's uid in Grafana.
const DashboardUID = "mcp-privacy"

// The dashboard's template variables. jobSelector restricts every plugin
// query to the scrape jobs chosen in $job; the latency panels read Envoy's
// own histograms of the connection manager ($http) and cluster
// ($cluster) in front of the MCP server.
const (
	jobSelector = `job=~"$job"`
	rateWindow  = "$__rate_interval"
)

// panel is one time series panel: a title, what it shows, its unit and
// its queries (PromQL with Grafana's variables, legend).
type panel struct {
	title, description, unit string
	stacked                  bool
	queries                  [][2]string
}

// row is a titled group of panels.
type row struct {
	title  string
	panels []panel
}

// rate is the per-second rate of metric (with selector) summed by labels.
func rate(metric, selector, by string) string {
	sel := jobSelector
	if selector != "" {
		sel += "," + selector
	}
	q := "rate(" + metric + "{" + sel + "}[" + rateWindow + "])"
	if by == "" {
		return "sum(" + q + ")"
	}
	return "sum by (" + by + ") (" + q + ")"
}

// latency is the quantile q of one of Envoy's time histograms (ms).
func latency(q, metric, selector string) string {
	return "histogram_quantile(" + q + ", sum by (le) (rate(" + metric + "_bucket{" + jobSelector + "," + selector + "}[" + rateWindow + "])))"
}

// dashboardRows are the dashboard's contents, top to bottom.
var dashboardRows = []row{
	{"Traffic and decisions", []panel{
		{title: "Messages by method and decision", unit: "reqps", stacked: true,
			description: "JSON-RPC messages from clients (mcp_privacy_requests), by method and what became of them: allowed, denied, rate_limited, blocked, error.",
			queries:     [][2]string{{rate("mcp_privacy_requests", "", "mcp_method, mcp_decision"), "{{mcp_method}} {{mcp_decision}}"}}},
		{title: "Tool calls by tool and decision", unit: "reqps", stacked: true,
			description: "tools/call by tool (tools the policy names literally; the rest are other) and decision (mcp_privacy_calls, summed over roles: a caller with two roles counts twice).",
			queries:     [][2]string{{rate("mcp_privacy_calls", "", "mcp_tool, mcp_decision"), "{{mcp_tool}} {{mcp_decision}}"}}},
		{title: "Tool calls by role and decision", unit: "reqps", stacked: true,
			description: "tools/call by each role of the caller the policy defines (none: no such role) and decision (mcp_privacy_calls).",
			queries:     [][2]string{{rate("mcp_privacy_calls", "", "mcp_role, mcp_decision"), "{{mcp_role}} {{mcp_decision}}"}}},
	}},
	{"Denials and rate limits", []panel{
		{title: "Denials by method", unit: "reqps", stacked: true,
			description: "Messages the policy refused (-32003, or as a primitive that does not exist).",
			queries:     [][2]string{{rate("mcp_privacy_requests", `mcp_decision="denied"`, "mcp_method"), "{{mcp_method}}"}}},
		{title: "Denied share of judged messages", unit: "percentunit",
			description: "Denied over allowed plus denied messages; what the MCPPrivacyDenialSpike alert watches.",
			queries: [][2]string{{rate("mcp_privacy_requests", `mcp_decision="denied"`, "") + " / " +
				rate("mcp_privacy_requests", `mcp_decision=~"allowed|denied"`, ""), "denied share"}}},
		{title: "Rate-limited calls by scope", unit: "reqps", stacked: true,
			description: "Calls refused by a rate limit (-32029), by the scope of the refusing limit.",
			queries:     [][2]string{{rate("mcp_privacy_rate_limited", "", "mcp_scope"), "{{mcp_scope}}"}}},
		{title: "Rate-limit bucket evictions and shared-data contention", unit: "ops",
			description: "Buckets that still held state and lost their slot (their principal or tool starts afresh), and shared-data updates that kept losing to other workers.",
			queries: [][2]string{{rate("mcp_privacy_errors", `mcp_error="rate_limit_eviction"`, ""), "rate_limit_eviction"},
				{rate("mcp_privacy_errors", `mcp_error="shared_data"`, ""), "shared_data"}}},
	}},
	{"Transforms and detections", []panel{
		{title: "Detections by label", unit: "ops", stacked: true,
			description: "Values found by every detecting transform step, input and output, by detector label.",
			queries:     [][2]string{{rate("mcp_privacy_detections", "", "mcp_label"), "{{mcp_label}}"}}},
		{title: "Results blocked by a transform", unit: "reqps",
			description: "Messages whose result a block transform replaced (-32004). There is no per-step counter; detections and pseudonyms count what the other steps did.",
			queries:     [][2]string{{rate("mcp_privacy_requests", `mcp_decision="blocked"`, "mcp_method"), "{{mcp_method}}"}}},
		{title: "Pseudonyms issued and restored", unit: "ops",
			description: "Pseudonyms issued by pseudonymise, and restored to their value in calls' arguments.",
			queries: [][2]string{{rate("mcp_privacy_pseudonyms_issued", "", ""), "issued"},
				{rate("mcp_privacy_pseudonyms_resolved", "", ""), "restored"}}},
		{title: "Pseudonyms unresolved or refused", unit: "ops",
			description: "Well-formed pseudonyms in calls' arguments that could not be restored for the caller (unknown, expired, another principal's, or sealed under another vault key), and those restored values refused at their place. Across a fleet, a steady unresolved rate means replicas with different vault keys.",
			queries: [][2]string{{rate("mcp_privacy_pseudonyms_unresolved", "", ""), "unresolved"},
				{rate("mcp_privacy_pseudonyms_refused", "", ""), "refused"}}},
	}},
	{"Errors", []panel{
		{title: "Errors by kind", unit: "ops", stacked: true,
			description: "Every error the plugin answered or counted (docs/METRICS.md lists the kinds).",
			queries:     [][2]string{{rate("mcp_privacy_errors", "", "mcp_error"), "{{mcp_error}}"}}},
		{title: "Parse errors and fail-closed streams", unit: "ops",
			description: "Request bodies that were not JSON or not JSON-RPC, responses that were not, and internal failures that failed a stream closed.",
			queries: [][2]string{{rate("mcp_privacy_errors", `mcp_error=~"parse_error|invalid_request|response_invalid"`, "mcp_error"), "{{mcp_error}}"},
				{rate("mcp_privacy_errors", `mcp_error="internal"`, ""), "internal (failed closed)"}}},
		{title: "Audit entries dropped", unit: "ops",
			description: "Audit entries the ring buffer could not store (they were still logged).",
			queries:     [][2]string{{rate("mcp_privacy_audit_dropped", "", ""), "dropped"}}},
	}},
	{"Latency (Envoy)", []panel{
		{title: "Downstream request time", unit: "ms",
			description: "Envoy's own histogram of whole requests through the connection manager $http (the plugin has no latency metric; its processing time is in each audit entry). Event streams last as long as they are open.",
			queries: [][2]string{{latency("0.5", "envoy_http_downstream_rq_time", `envoy_http_conn_manager_prefix=~"$http"`), "p50"},
				{latency("0.99", "envoy_http_downstream_rq_time", `envoy_http_conn_manager_prefix=~"$http"`), "p99"}}},
		{title: "Upstream request time", unit: "ms",
			description: "Envoy's histogram of requests to the MCP server's cluster $cluster: the difference to the downstream time is the time spent in Envoy's filters, the plugin among them.",
			queries: [][2]string{{latency("0.5", "envoy_cluster_upstream_rq_time", `envoy_cluster_name=~"$cluster"`), "p50"},
				{latency("0.99", "envoy_cluster_upstream_rq_time", `envoy_cluster_name=~"$cluster"`), "p99"}}},
	}},
}

// dashboardVariables are the template variables: a Prometheus data
// source, then label values found through it.
var dashboardVariables = [][3]string{
	// name, label_values query, default
	{"job", "label_values(mcp_privacy_requests, job)", ""},
	{"http", "label_values(envoy_http_downstream_rq_time_count, envoy_http_conn_manager_prefix)", "mcp"},
	{"cluster", "label_values(envoy_cluster_upstream_rq_time_count, envoy_cluster_name)", "mcp_server"},
}

// Dashboard builds the Grafana dashboard in the classic JSON model, which
// Grafana's import and file provisioning read in every version; the SDK
// prefers its v2 schema, which only Grafana 12 with dashboard v2 enabled
// reads.
//
//lint:ignore SA1019 the classic model is the one every Grafana imports
func Dashboard() (dashboard.Dashboard, error) {
	ds := common.DataSourceRef{Type: cog.ToPtr("prometheus"), Uid: cog.ToPtr("${datasource}")}
	//lint:ignore SA1019 see above
	b := dashboard.NewDashboardBuilder("mcp-privacy").
		Uid(DashboardUID).
		Description("MCP traffic through the mcp-privacy plugin: decisions, denials, rate limits, detections, pseudonyms, errors; Envoy's latency. Built by envoy/observability (docs/METRICS.md, docs/DEPLOYMENT.md).").
		Tags([]string{"mcp-privacy", "envoy", "mcp"}).
		Refresh("1m").
		Time("now-6h", "now").
		Timezone(common.TimeZoneBrowser).
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		WithVariable(dashboard.NewDatasourceVariableBuilder("datasource").Label("Data source").Type("prometheus"))
	for _, v := range dashboardVariables {
		vb := dashboard.NewQueryVariableBuilder(v[0]).
			Label(v[0]).
			Datasource(ds).
			Query(dashboard.StringOrMap{String: cog.ToPtr(v[1])}).
			Definition(v[1]).
			Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
			Sort(dashboard.VariableSortAlphabeticalAsc).
			Multi(true).
			IncludeAll(true).
			AllValue(".*")
		if v[2] != "" {
			vb = vb.Current(dashboard.VariableOption{Text: dashboard.StringOrArrayOfString{String: cog.ToPtr(v[2])},
				Value: dashboard.StringOrArrayOfString{String: cog.ToPtr(v[2])}})
		}
		b = b.WithVariable(vb)
	}
	for _, r := range dashboardRows {
		b = b.WithRow(dashboard.NewRowBuilder(r.title))
		for _, p := range r.panels {
			pb := timeseries.NewPanelBuilder().
				Title(p.title).
				Description(p.description).
				Datasource(ds).
				Unit(p.unit).
				Min(0).
				Height(8).
				Span(8).
				Legend(common.NewVizLegendOptionsBuilder().DisplayMode(common.LegendDisplayModeList).Placement(common.LegendPlacementBottom).ShowLegend(true))
			if p.stacked {
				pb = pb.Stacking(common.NewStackingConfigBuilder().Mode(common.StackingModeNormal))
			}
			for i, q := range p.queries {
				pb = pb.WithTarget(prometheus.NewDataqueryBuilder().
					Datasource(ds).
					Expr(q[0]).
					LegendFormat(q[1]).
					RefId(string(rune('A' + i))).
					Range())
			}
			b = b.WithPanel(pb)
		}
	}
	return b.Build()
}
