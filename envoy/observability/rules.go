package observability

import (
	"time"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// alert is one alerting rule.
type alert struct {
	name, expr, severity string
	forDur               time.Duration
	summary, description string
}

// alerts are the rules of the group mcp-privacy. Rates are per scrape
// job, so that one fleet (all Envoys of a job) is judged as one; each
// ratio has a floor on the traffic under it, so that a quiet gateway
// does not alert on a handful of messages.
var alerts = []alert{
	{name: "MCPPrivacyDenialSpike", severity: "warning", forDur: 10 * time.Minute,
		expr: `sum by (job) (rate(mcp_privacy_requests{mcp_decision="denied"}[5m]))
  / sum by (job) (rate(mcp_privacy_requests{mcp_decision=~"allowed|denied"}[5m])) > 0.25
and sum by (job) (rate(mcp_privacy_requests{mcp_decision="denied"}[5m])) > 0.1`,
		summary: "More than a quarter of MCP messages denied by the policy",
		description: "{{ $labels.job }}: {{ $value | humanizePercentage }} of judged MCP messages were denied over 5 minutes. " +
			"A client probing for tools it may not use, or a policy change that took access away: see the audit entries (decision denied) and the dashboard's denials by method."},
	{name: "MCPPrivacyFailClosed", severity: "critical", forDur: 0,
		expr:    `sum by (job) (increase(mcp_privacy_errors{mcp_error="internal"}[5m])) > 0`,
		summary: "mcp-privacy failed MCP streams closed",
		description: "{{ $labels.job }}: {{ $value }} streams failed closed after an internal error (a panic in a callback) in 5 minutes. " +
			"Their clients got errors; Envoy's log holds the panic."},
	{name: "MCPPrivacyParseErrors", severity: "warning", forDur: 15 * time.Minute,
		expr: `sum by (job) (rate(mcp_privacy_errors{mcp_error=~"parse_error|invalid_request|response_invalid"}[5m]))
  / sum by (job) (rate(mcp_privacy_requests[5m])) > 0.05
and sum by (job) (rate(mcp_privacy_requests[5m])) > 0.1`,
		summary: "Many MCP messages are not valid JSON-RPC",
		description: "{{ $labels.job }}: parse and invalid-message errors are {{ $value | humanizePercentage }} of messages. " +
			"A broken client or server, or one speaking another transport: the dashboard's errors by kind tells which."},
	{name: "MCPPrivacyUnresolvedPseudonyms", severity: "warning", forDur: 15 * time.Minute,
		expr: `sum by (job) (rate(mcp_privacy_pseudonyms_unresolved[10m]))
  / (sum by (job) (rate(mcp_privacy_pseudonyms_unresolved[10m])) + sum by (job) (rate(mcp_privacy_pseudonyms_resolved[10m]))) > 0.1
and sum by (job) (rate(mcp_privacy_pseudonyms_unresolved[10m])) > 0.01`,
		summary: "Pseudonyms in calls cannot be restored",
		description: "{{ $labels.job }}: {{ $value | humanizePercentage }} of pseudonyms in calls' arguments could not be restored. " +
			"Steady across a fleet, this is replicas with different vault keys (CLOUDG_MCP_VAULT_KEY, vault.previous_keys_env after a rotation): a pseudonym sealed by one is unknown to another. Otherwise expired pseudonyms or clients probing."},
	{name: "MCPPrivacyRateLimitEvictions", severity: "warning", forDur: 15 * time.Minute,
		expr:    `sum by (job) (increase(mcp_privacy_errors{mcp_error="rate_limit_eviction"}[15m])) > 0`,
		summary: "Rate-limit buckets in use are being evicted",
		description: "{{ $labels.job }}: {{ $value }} rate-limit buckets that still held state lost their slot in 15 minutes, so their principals or tools started afresh. " +
			"More distinct principals and tools than the slot table holds: limits are looser than configured."},
	{name: "MCPPrivacyAuditDropped", severity: "warning", forDur: 15 * time.Minute,
		expr:        `sum by (job) (increase(mcp_privacy_audit_dropped[15m])) > 0`,
		summary:     "Audit entries not stored in the ring buffer",
		description: "{{ $labels.job }}: {{ $value }} audit entries could not be stored in the ring buffer in 15 minutes (they were still logged)."},
}

// RuleGroupName is the name of the rule group.
const RuleGroupName = "mcp-privacy"

// RuleGroups are the rules as a Prometheus rule file.
func RuleGroups() rulefmt.RuleGroups {
	g := rulefmt.RuleGroup{Name: RuleGroupName}
	for _, a := range alerts {
		g.Rules = append(g.Rules, rulefmt.Rule{
			Alert:       a.name,
			Expr:        a.expr,
			For:         model.Duration(a.forDur),
			Labels:      map[string]string{"severity": a.severity},
			Annotations: map[string]string{"summary": a.summary, "description": a.description},
		})
	}
	return rulefmt.RuleGroups{Groups: []rulefmt.RuleGroup{g}}
}

// PrometheusRule is the same rules as a prometheus-operator resource.
func PrometheusRule() monitoringv1.PrometheusRule {
	pr := monitoringv1.PrometheusRule{
		TypeMeta:   metav1.TypeMeta{APIVersion: monitoringv1.SchemeGroupVersion.String(), Kind: monitoringv1.PrometheusRuleKind},
		ObjectMeta: metav1.ObjectMeta{Name: "mcp-privacy", Labels: map[string]string{"app.kubernetes.io/name": "mcp-privacy"}},
	}
	for _, g := range RuleGroups().Groups {
		og := monitoringv1.RuleGroup{Name: g.Name}
		for _, r := range g.Rules {
			or := monitoringv1.Rule{Alert: r.Alert, Expr: intstr.FromString(r.Expr), Labels: r.Labels, Annotations: r.Annotations}
			if r.For != 0 {
				d := monitoringv1.Duration(r.For.String())
				or.For = &d
			}
			og.Rules = append(og.Rules, or)
		}
		pr.Spec.Groups = append(pr.Spec.Groups, og)
	}
	return pr
}
