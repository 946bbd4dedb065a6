package mcp

import (
	"sort"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/internal/ratelimit"
	"github.com/cloudg/mcp-privacy/policy"
)

// Metrics are the plugin's counters (manual 14): proxy-wasm metrics, which
// Envoy exports as stats named "wasmcustom.<name>". Tags travel inside the
// name as ".<tag>.<value>" pairs, which Envoy's stats_tags regexes turn
// back into tags (docs/METRICS.md lists the names and the regexes). Every
// tag value comes from a fixed vocabulary or the configuration, never from
// a request, so the set of stats is bounded.
//
// Package main implements Metrics with proxywasm.DefineCounterMetric (once
// per name and VM) and MetricCounter.Increment; NopMetrics and MemMetrics
// serve native tests and hosts without stats.
type Metrics interface {
	// Add adds n (> 0) to the counter name.
	Add(name string, n uint64)
}

// NopMetrics discards every count.
type NopMetrics struct{}

// Add does nothing.
func (NopMetrics) Add(string, uint64) {}

// MemMetrics keeps counts in memory, for tests and the CLI. It is not safe
// for concurrent use (a VM never calls into itself concurrently).
type MemMetrics map[string]uint64

// Add adds n to name.
func (m MemMetrics) Add(name string, n uint64) {
	if n > 0 {
		m[name] += n
	}
}

// Names lists the counters with a value, sorted.
func (m MemMetrics) Names() []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// MetricPrefix starts every metric name.
const MetricPrefix = "mcp_privacy."

// Outcome is what became of a request: the decision of an audit entry and
// the decision tag of the requests metric.
type Outcome string

const (
	OutcomeAllowed     Outcome = "allowed"
	OutcomeDenied      Outcome = "denied"
	OutcomeRateLimited Outcome = "rate_limited"
	OutcomeBlocked     Outcome = "blocked"
	OutcomeError       Outcome = "error"
)

// Outcomes are every Outcome, in documentation order.
var Outcomes = []Outcome{OutcomeAllowed, OutcomeDenied, OutcomeRateLimited, OutcomeBlocked, OutcomeError}

// ErrorKind names a class of failure: the value of the errors metric's
// error tag (a label, not a Go error).
type ErrorKind string

// Failure kinds. Each is one failure the plugin answers itself (manual 15,
// 16); the Fail prefix keeps them apart from errors and error codes.
const (
	FailParse              ErrorKind = "parse_error"         // -32700: the request body is not JSON
	FailInvalidRequest     ErrorKind = "invalid_request"     // -32600: not JSON-RPC, or ambiguous JSON
	FailInvalidParams      ErrorKind = "invalid_params"      // -32602 for params that name no primitive
	FailRequestTooLarge    ErrorKind = "request_too_large"   // 413
	FailCompressedRequest  ErrorKind = "compressed_request"  // 415
	FailUnauthenticated    ErrorKind = "unauthenticated"     // 401, identity.require
	FailResponseTooLarge   ErrorKind = "response_too_large"  // over max_response_bytes / max_event_bytes
	FailResponseInvalid    ErrorKind = "response_invalid"    // a response that is not JSON or not JSON-RPC
	FailResponseCompressed ErrorKind = "response_compressed" // a compressed response
	FailTransform          ErrorKind = "transform"           // a transform could not run
	FailInternal           ErrorKind = "internal"            // a panic, failed closed
	FailSharedData         ErrorKind = "shared_data"         // shared data contention beyond retries
	FailRateLimitEviction  ErrorKind = "rate_limit_eviction" // a bucket with state lost its slot
	FailAmbiguousID        ErrorKind = "ambiguous_id"        // a response to an id the session used twice, withheld
	FailSessionPrincipal   ErrorKind = "session_principal"   // a session used by another principal than its own: refused, or its answer withheld
	FailHeaderMismatch     ErrorKind = "header_mismatch"     // headers that mirror the body (2026-07-28) disagree with it: refused
)

// ErrorKinds are every ErrorKind, in documentation order.
var ErrorKinds = []ErrorKind{FailParse, FailInvalidRequest, FailInvalidParams, FailRequestTooLarge,
	FailCompressedRequest, FailUnauthenticated, FailResponseTooLarge, FailResponseInvalid, FailResponseCompressed,
	FailTransform, FailInternal, FailSharedData, FailRateLimitEviction, FailAmbiguousID, FailSessionPrincipal, FailHeaderMismatch}

// metricMethods are the JSON-RPC methods with their own requests tag value
// (the method table's Metric, internal/mcpvocab), and every notification
// and every client answer counted as one; any other method counts as
// "other", so a client cannot mint stats.
var metricMethods = func() map[string]string {
	out := map[string]string{"notifications": "notifications", "responses": "responses"}
	for _, r := range [...]mcpvocab.Revision{mcpvocab.Rev2025, mcpvocab.Rev2026} {
		for _, m := range mcpvocab.For(r).Methods() {
			if m.Metric != "" {
				out[m.Name] = m.Metric
			}
		}
	}
	return out
}()

// MetricMethod is the method tag value of a JSON-RPC method: known methods
// with / as _ (tools_call), every notification "notifications", a client's
// response to a server request "responses", anything else "other".
func MetricMethod(method string) string {
	if v, ok := metricMethods[method]; ok {
		return v
	}
	if strings.HasPrefix(method, mcpvocab.NotificationPrefix) {
		return "notifications"
	}
	return "other"
}

// tagValue makes s safe as one segment of a stat name: letters, digits,
// _ and - stay, anything else becomes _; at most 64 bytes; empty is "none".
func tagValue(s string) string {
	if s == "" {
		return "none"
	}
	if len(s) > 64 {
		s = s[:64]
	}
	clean := true
	for i := 0; i < len(s); i++ {
		if !tagByte(s[i]) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if !tagByte(c) {
			b[i] = '_'
		}
	}
	return string(b)
}

func tagByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// RequestsMetric counts JSON-RPC requests by method and outcome:
// mcp_privacy.requests.method.<method>.decision.<outcome>.
func RequestsMetric(method string, o Outcome) string {
	return MetricPrefix + "requests.method." + MetricMethod(method) + ".decision." + string(o)
}

// DetectionsMetric counts detections by label (built-in labels, and the
// labels of the policy's custom detectors): mcp_privacy.detections.label.<LABEL>.
func DetectionsMetric(label string) string {
	return MetricPrefix + "detections.label." + tagValue(label)
}

// Pseudonym counters.
const (
	PseudonymsIssuedMetric   = MetricPrefix + "pseudonyms.issued"
	PseudonymsResolvedMetric = MetricPrefix + "pseudonyms.resolved"
	// Pseudonyms in a call's arguments the depseudonymiser could not
	// resolve for the caller, and those it refused to restore at their
	// place (transforms.Run): probing shows up here.
	PseudonymsUnresolvedMetric = MetricPrefix + "pseudonyms.unresolved"
	PseudonymsRefusedMetric    = MetricPrefix + "pseudonyms.refused"
)

// CountRestores counts a call's unresolved and refused pseudonyms.
func CountRestores(m Metrics, unresolved, refused int) {
	if unresolved > 0 {
		m.Add(PseudonymsUnresolvedMetric, uint64(unresolved))
	}
	if refused > 0 {
		m.Add(PseudonymsRefusedMetric, uint64(refused))
	}
}

// RateLimitedMetric counts calls refused by a rate limit, by the scope of
// the refusing limit: mcp_privacy.rate_limited.scope.<scope>.
func RateLimitedMetric(s policy.Scope) string {
	return MetricPrefix + "rate_limited.scope." + s.String()
}

// ErrorsMetric counts errors by kind: mcp_privacy.errors.kind.<kind>.
func ErrorsMetric(k ErrorKind) string {
	return MetricPrefix + "errors.kind." + string(k)
}

// AuditDroppedMetric counts audit entries that could not be stored in the
// ring buffer (they were still logged).
const AuditDroppedMetric = MetricPrefix + "audit.dropped"

// CountTransforms counts what transforming one message found: detections
// per label, pseudonyms issued and resolved.
func CountTransforms(m Metrics, detections map[string]int, issued, resolved int) {
	for label, n := range detections {
		if n > 0 {
			m.Add(DetectionsMetric(label), uint64(n))
		}
	}
	if issued > 0 {
		m.Add(PseudonymsIssuedMetric, uint64(issued))
	}
	if resolved > 0 {
		m.Add(PseudonymsResolvedMetric, uint64(resolved))
	}
}

// CountRateLimited counts a refusal by a rate limit, and any bucket that
// lost its state to make room.
func CountRateLimited(m Metrics, v *ratelimit.Verdict) {
	if v.LossyEvictions > 0 {
		m.Add(ErrorsMetric(FailRateLimitEviction), uint64(v.LossyEvictions))
	}
	if v.Allowed {
		return
	}
	if v.Contended {
		m.Add(ErrorsMetric(FailSharedData), 1)
	}
	if v.Bucket.Limit != nil {
		m.Add(RateLimitedMetric(v.Bucket.Limit.Scope), 1)
	}
}

// CountError counts one error of kind k.
func CountError(m Metrics, k ErrorKind) { m.Add(ErrorsMetric(k), 1) }

// MetricNames lists the names the plugin can emit for a policy: every
// method and outcome pair, the built-in labels (manual 12) and those of the
// policy's custom detectors, the scopes, the error kinds. Package main may
// define them all at configure time so that stats exist (at 0) before the
// first request.
func MetricNames(p *policy.Policy) []string {
	var out []string
	methods := make([]string, 0, len(metricMethods)+1)
	for m := range metricMethods {
		methods = append(methods, m)
	}
	methods = append(methods, "other")
	sort.Strings(methods)
	for _, m := range methods {
		for _, o := range Outcomes {
			out = append(out, RequestsMetric(m, o))
		}
	}
	labels := make([]string, 0, len(policy.BuiltinDetectors))
	for _, d := range policy.BuiltinDetectors {
		labels = append(labels, d.Label)
	}
	if p != nil {
		for _, d := range p.Detectors {
			labels = append(labels, d.Label)
		}
	}
	seen := map[string]bool{}
	for _, l := range labels {
		if n := DetectionsMetric(l); !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	out = append(out, PseudonymsIssuedMetric, PseudonymsResolvedMetric, PseudonymsUnresolvedMetric, PseudonymsRefusedMetric)
	for _, s := range []policy.Scope{policy.ScopePrincipal, policy.ScopeTool, policy.ScopePrincipalTool, policy.ScopeGlobal} {
		out = append(out, RateLimitedMetric(s))
	}
	for _, k := range ErrorKinds {
		out = append(out, ErrorsMetric(k))
	}
	return append(out, AuditDroppedMetric)
}
