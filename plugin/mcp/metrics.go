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
// per name and VM) and MetricCounter.Increment; NopMetrics and memMetrics
// serve native tests and hosts without stats.
type Metrics interface {
	// Add adds n (> 0) to the counter name.
	Add(name string, n uint64)
}

// NopMetrics discards every count.
type NopMetrics struct{}

// Add does nothing.
func (NopMetrics) Add(string, uint64) {}

// memMetrics keeps counts in memory, for tests and the CLI. It is not safe
// for concurrent use (a VM never calls into itself concurrently).
type memMetrics map[string]uint64

// Add adds n to name.
func (m memMetrics) Add(name string, n uint64) {
	if n > 0 {
		m[name] += n
	}
}

// names lists the counters with a value, sorted.
func (m memMetrics) names() []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// metricPrefix starts every metric name.
const metricPrefix = "mcp_privacy."

// outcome is what became of a request: the decision of an audit entry and
// the decision tag of the requests metric.
type outcome string

const (
	outcomeAllowed     outcome = "allowed"
	outcomeDenied      outcome = "denied"
	outcomeRateLimited outcome = "rate_limited"
	outcomeBlocked     outcome = "blocked"
	outcomeError       outcome = "error"
)

// outcomes are every outcome, in documentation order.
var outcomes = []outcome{outcomeAllowed, outcomeDenied, outcomeRateLimited, outcomeBlocked, outcomeError}

// errorKind names a class of failure: the value of the errors metric's
// error tag (a label, not a Go error).
type errorKind string

// Failure kinds. Each is one failure the plugin answers itself (manual 15,
// 16); the Fail prefix keeps them apart from errors and error codes.
const (
	failParse              errorKind = "parse_error"         // -32700: the request body is not JSON
	failInvalidRequest     errorKind = "invalid_request"     // -32600: not JSON-RPC, or ambiguous JSON
	failInvalidParams      errorKind = "invalid_params"      // -32602 for params that name no primitive
	failRequestTooLarge    errorKind = "request_too_large"   // 413
	failCompressedRequest  errorKind = "compressed_request"  // 415
	failUnauthenticated    errorKind = "unauthenticated"     // 401, identity.require
	failResponseTooLarge   errorKind = "response_too_large"  // over max_response_bytes / max_event_bytes
	failResponseInvalid    errorKind = "response_invalid"    // a response that is not JSON or not JSON-RPC
	failResponseCompressed errorKind = "response_compressed" // a compressed response
	failTransform          errorKind = "transform"           // a transform could not run
	failInternal           errorKind = "internal"            // a panic, failed closed
	failSharedData         errorKind = "shared_data"         // shared data contention beyond retries
	failRateLimitEviction  errorKind = "rate_limit_eviction" // a bucket with state lost its slot
	failAmbiguousID        errorKind = "ambiguous_id"        // a response to an id the session used twice, withheld
	failSessionPrincipal   errorKind = "session_principal"   // a session used by another principal than its own: refused, or its answer withheld
	failHeaderMismatch     errorKind = "header_mismatch"     // headers that mirror the body (2026-07-28) disagree with it: refused
)

// errorKinds are every errorKind, in documentation order.
var errorKinds = []errorKind{failParse, failInvalidRequest, failInvalidParams, failRequestTooLarge,
	failCompressedRequest, failUnauthenticated, failResponseTooLarge, failResponseInvalid, failResponseCompressed,
	failTransform, failInternal, failSharedData, failRateLimitEviction, failAmbiguousID, failSessionPrincipal, failHeaderMismatch}

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

// metricMethod is the method tag value of a JSON-RPC method: known methods
// with / as _ (tools_call), every notification "notifications", a client's
// response to a server request "responses", anything else "other".
func metricMethod(method string) string {
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

// requestsMetricName counts JSON-RPC requests by method and outcome:
// mcp_privacy.requests.method.<method>.decision.<outcome>.
func requestsMetricName(method string, o outcome) string {
	return metricPrefix + "requests.method." + metricMethod(method) + ".decision." + string(o)
}

// detectionsMetric counts detections by label (built-in labels, and the
// labels of the policy's custom detectors): mcp_privacy.detections.label.<LABEL>.
func detectionsMetric(label string) string {
	return metricPrefix + "detections.label." + tagValue(label)
}

// Pseudonym counters.
const (
	pseudonymsIssuedMetric   = metricPrefix + "pseudonyms.issued"
	pseudonymsResolvedMetric = metricPrefix + "pseudonyms.resolved"
	// Pseudonyms in a call's arguments the depseudonymiser could not
	// resolve for the caller, and those it refused to restore at their
	// place (transforms.Run): probing shows up here.
	pseudonymsUnresolvedMetric = metricPrefix + "pseudonyms.unresolved"
	pseudonymsRefusedMetric    = metricPrefix + "pseudonyms.refused"
)

// countRestores counts a call's unresolved and refused pseudonyms.
func countRestores(m Metrics, unresolved, refused int) {
	if unresolved > 0 {
		m.Add(pseudonymsUnresolvedMetric, uint64(unresolved))
	}
	if refused > 0 {
		m.Add(pseudonymsRefusedMetric, uint64(refused))
	}
}

// rateLimitedMetric counts calls refused by a rate limit, by the scope of
// the refusing limit: mcp_privacy.rate_limited.scope.<scope>.
func rateLimitedMetric(s policy.Scope) string {
	return metricPrefix + "rate_limited.scope." + s.String()
}

// errorsMetric counts errors by kind: mcp_privacy.errors.kind.<kind>.
func errorsMetric(k errorKind) string {
	return metricPrefix + "errors.kind." + string(k)
}

// The calls counter: tools/call requests by tool, role and outcome,
// mcp_privacy.calls.tool.<tool>.role.<role>.decision.<outcome>. Its tag
// values come from the policy only, so that the number of stats is bounded
// by the policy, never by clients: <tool> is a tool the policy names
// literally (no glob character) in an allow_tools or deny_tools list, at
// the top or in a role or rule, else "other"; <role> is each role of the
// caller that the policy's roles map defines (a call counts once under
// each), "none" for a caller with none of them. Past maxCallTools tools or
// maxCallRoles roles (in name order) the rest count as "other".
const (
	maxCallTools = 32
	maxCallRoles = 16
	callOther    = "other"
	callNoRole   = "none"
)

// callMetricTable holds every name of the calls counter for one policy,
// so that counting a call builds no string.
type callMetricTable struct {
	tools map[string]string // tool name -> tag value
	roles map[string]string // role name -> tag value
	names map[[3]string]string
}

// newCallMetricTable builds the table of p's tools and roles.
func newCallMetricTable(p *policy.Policy) *callMetricTable {
	t := &callMetricTable{tools: map[string]string{}, roles: map[string]string{}, names: map[[3]string]string{}}
	var tools, roles []string
	if p != nil {
		lists := []*policy.GlobList{p.Access.AllowTools, p.Access.DenyTools}
		for i, r := range p.Rules {
			lists = append(lists, r.Access.AllowTools, r.Access.DenyTools)
			if i < p.Roles && r.Role != "" {
				roles = append(roles, r.Role)
			}
		}
		for _, l := range lists {
			for _, pat := range l.Patterns() {
				if pat != "" && !strings.ContainsAny(pat, "*?[") && pat[0] != '!' {
					tools = append(tools, pat)
				}
			}
		}
	}
	tags := []string{callOther}
	for i, name := range sortedUnique(tools) {
		if i < maxCallTools {
			t.tools[name] = tagValue(name)
			tags = append(tags, tagValue(name))
		}
	}
	roleTags := []string{callNoRole}
	for i, name := range sortedUnique(roles) {
		v := callOther
		if i < maxCallRoles {
			v = tagValue(name)
		}
		t.roles[name] = v
		roleTags = append(roleTags, v)
	}
	for _, tool := range tags {
		for _, role := range roleTags {
			for _, o := range outcomes {
				t.names[[3]string{tool, role, string(o)}] = metricPrefix + "calls.tool." + tool + ".role." + role + ".decision." + string(o)
			}
		}
	}
	return t
}

// sortedUnique sorts s and drops repeats.
func sortedUnique(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// count counts one tools/call of tool by a caller with roles.
func (t *callMetricTable) count(m Metrics, tool string, roles []string, o outcome) {
	if t == nil { // a Config not built by newConfig (tests)
		return
	}
	toolTag, ok := t.tools[tool]
	if !ok {
		toolTag = callOther
	}
	counted := false
	for i, r := range roles {
		role, ok := t.roles[r]
		if !ok || t.countedBefore(roles[:i], role) {
			continue
		}
		counted = true
		m.Add(t.names[[3]string{toolTag, role, string(o)}], 1)
	}
	if !counted {
		m.Add(t.names[[3]string{toolTag, callNoRole, string(o)}], 1)
	}
}

// countedBefore says whether one of roles has the tag value role: a role
// given twice, or two roles past maxCallRoles, count once.
func (t *callMetricTable) countedBefore(roles []string, role string) bool {
	for _, r := range roles {
		if v, ok := t.roles[r]; ok && v == role {
			return true
		}
	}
	return false
}

// sortedNames lists the table's names, sorted.
func (t *callMetricTable) sortedNames() []string {
	out := make([]string, 0, len(t.names))
	for _, n := range t.names {
		out = append(out, n)
	}
	return sortedUnique(out)
}

// auditDroppedMetric counts audit entries that could not be stored in the
// ring buffer (they were still logged).
const auditDroppedMetric = metricPrefix + "audit.dropped"

// countTransforms counts what transforming one message found: detections
// per label, pseudonyms issued and resolved.
func countTransforms(m Metrics, detections map[string]int, issued, resolved int) {
	for label, n := range detections {
		if n > 0 {
			m.Add(detectionsMetric(label), uint64(n))
		}
	}
	if issued > 0 {
		m.Add(pseudonymsIssuedMetric, uint64(issued))
	}
	if resolved > 0 {
		m.Add(pseudonymsResolvedMetric, uint64(resolved))
	}
}

// countRateLimited counts a refusal by a rate limit, and any bucket that
// lost its state to make room.
func countRateLimited(m Metrics, v *ratelimit.Verdict) {
	if v.LossyEvictions > 0 {
		m.Add(errorsMetric(failRateLimitEviction), uint64(v.LossyEvictions))
	}
	if v.Allowed {
		return
	}
	if v.Contended {
		m.Add(errorsMetric(failSharedData), 1)
	}
	if v.Bucket.Limit != nil {
		m.Add(rateLimitedMetric(v.Bucket.Limit.Scope), 1)
	}
}

// countError counts one error of kind k.
func countError(m Metrics, k errorKind) { m.Add(errorsMetric(k), 1) }

// MetricNames lists the names the plugin can emit for a policy: every
// method and outcome pair, the built-in labels (manual 12) and those of the
// policy's custom detectors, the calls counter's tools, roles and outcomes,
// the scopes, the error kinds. Package main may
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
		for _, o := range outcomes {
			out = append(out, requestsMetricName(m, o))
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
		if n := detectionsMetric(l); !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	out = append(out, newCallMetricTable(p).sortedNames()...)
	out = append(out, pseudonymsIssuedMetric, pseudonymsResolvedMetric, pseudonymsUnresolvedMetric, pseudonymsRefusedMetric)
	for _, s := range []policy.Scope{policy.ScopePrincipal, policy.ScopeTool, policy.ScopePrincipalTool, policy.ScopeGlobal} {
		out = append(out, rateLimitedMetric(s))
	}
	for _, k := range errorKinds {
		out = append(out, errorsMetric(k))
	}
	return append(out, auditDroppedMetric)
}
