package mcp

import (
	"sort"
	"strconv"

	"github.com/cloudg/mcp-privacy/internal/auditring"
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/ratelimit"
	"github.com/cloudg/mcp-privacy/policy"
)

// Virtual tools are answered by the plugin itself (manual 13) when
// gateway.virtual_tools is on. They are judged by the policy like any tool,
// with the metadata below; one the caller may not use is neither listed
// nor answered.
const (
	privacyStatus    = "privacy_status"
	previewTransform = "preview_transform"
	privacyReveal    = "privacy_reveal"
)

// virtualTools lists them in tools/list order.
var virtualTools = []string{privacyStatus, previewTransform, privacyReveal}

// privacyStatusTool is the tools/list entry.
var privacyStatusTool = []byte(`{"name":"privacy_status","title":"Privacy status",` +
	`"description":"What the privacy filter in front of this server does for you: the policy, who you are to it, the rules that apply to you, and how many tools, resources and prompts you can see.",` +
	`"inputSchema":{"type":"object","properties":{}},` +
	`"annotations":{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}`)

var previewTransformTool = []byte(`{"name":"preview_transform","title":"Preview privacy transforms",` +
	`"description":"Shows what you would receive if a tool returned this text or JSON: the privacy transforms applied, with the detections per label. Pseudonyms shown here are not stored.",` +
	`"inputSchema":{"type":"object","properties":{"text":{"type":"string","description":"text to transform"},` +
	`"json":{"description":"a JSON value (a tool result, or any structured data) to transform"},` +
	`"tool":{"type":"string","description":"the tool whose result it would be (default: no tool, the policy's own transforms)"}}},` +
	`"annotations":{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}`)

var privacyRevealTool = []byte(`{"name":"privacy_reveal","title":"Reveal pseudonyms",` +
	`"description":"Replaces the pseudonyms in a text by the values they stand for, for callers the privacy policy allows to reveal them.",` +
	`"inputSchema":{"type":"object","properties":{"text":{"type":"string","description":"text containing pseudonyms such as EMAIL_ABCDEFGHIJKL"}},"required":["text"]},` +
	`"annotations":{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}`)

// virtualTool returns a virtual tool's tools/list entry.
func virtualTool(name string) []byte {
	switch name {
	case previewTransform:
		return previewTransformTool
	case privacyReveal:
		return privacyRevealTool
	}
	return privacyStatusTool
}

// isVirtual reports whether name is a virtual tool's.
func isVirtual(name string) bool {
	return name == privacyStatus || name == previewTransform || name == privacyReveal
}

// virtualPrimitive is how the policy sees a virtual tool: privacy tools
// that are public, except privacy_reveal, which needs the reveal
// capability and is restricted (manual 13).
func virtualPrimitive(name string) policy.Primitive {
	m := policy.Metadata{Category: "privacy", Sensitivity: policy.Public}
	if name == privacyReveal {
		m.Sensitivity = policy.Restricted
		m.Capabilities = 1 << policy.Reveal
	}
	return policy.Primitive{Kind: policy.KindTool, Name: name, Metadata: m}
}

// virtualAllowed reports whether the caller may use a virtual tool.
func (s *exchange) virtualAllowed(name string) (policy.Decision, bool) {
	if !s.cfg.Env.Gateway.VirtualTools {
		return policy.Decision{}, false
	}
	x := virtualPrimitive(name)
	d := s.cfg.Env.Policy.Decide(&s.id.Principal, &x)
	return d, true
}

// statusAuditEntries is how many audit entries privacy_status shows.
const statusAuditEntries = 20

// statusResult is the CallToolResult of privacy_status: the facts as
// structuredContent and as JSON text for clients that read only text.
func (s *exchange) statusResult() []byte {
	p := s.cfg.Env.Policy
	var st []byte
	st = append(st, `{"policy":{"name":`...)
	st = jsondoc.AppendString(st, p.Name)
	st = append(st, `,"description":`...)
	st = jsondoc.AppendString(st, p.Description)
	st = append(st, `,"hide_denied":`...)
	st = strconv.AppendBool(st, p.HideDenied)
	st = append(st, `},"principal":{"id":`...)
	st = jsondoc.AppendString(st, s.id.ID)
	st = append(st, `,"roles":`...)
	st = jsondoc.AppendStrings(st, s.id.Roles)
	st = append(st, `,"anonymous":`...)
	st = strconv.AppendBool(st, s.id.Anonymous)
	st = append(st, `},"rules":`...)
	rules := p.RulesFor(&s.id.Principal)
	names := make([]string, len(rules))
	for i, r := range rules {
		names[i] = r.Name
	}
	st = jsondoc.AppendStrings(st, names)
	st = append(st, `,"primitives":{`...)
	counts := s.cfg.catalog.count(func(x *policy.Primitive) bool {
		return !p.Decide(&s.id.Principal, x).Hidden
	})
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	first := true
	for _, k := range kinds {
		if p.HideDenied && counts[k][0] == 0 {
			continue // a kind with only hidden primitives is not there
		}
		if !first {
			st = append(st, ',')
		}
		first = false
		st = jsondoc.AppendString(st, k)
		st = append(st, `:{"visible":`...)
		st = strconv.AppendInt(st, int64(counts[k][0]), 10)
		if !p.HideDenied {
			// Under hide_denied, hidden primitives look missing: no count
			// may tell that the server has them (manual 7).
			st = append(st, `,"hidden":`...)
			st = strconv.AppendInt(st, int64(counts[k][1]), 10)
		}
		st = append(st, '}')
	}
	st = append(st, '}')
	st = s.appendTransformStatus(st)
	// Rate-limit headroom: the limits that can apply to the caller, with
	// what its buckets hold now (manual 13).
	st = append(st, `,"rate_limits":`...)
	st = ratelimit.AppendHeadroomJSON(st, s.cfg.limiter.Headroom(p, s.id.ID, p.RulesFor(&s.id.Principal), s.cfg.now()))
	// The most recent audit entries, for principals granted privacy_audit.
	if mayViewAudit(p, &s.id.Principal) {
		st = append(st, `,"audit":`...)
		st = auditring.AppendJSON(st, s.cfg.Audit.recent(statusAuditEntries, p.AuditSize))
	}
	st = append(st, '}')
	return toolResult(st)
}

// toolResult is a CallToolResult carrying st (a JSON object) as
// structuredContent and as JSON text for clients that read only text.
func toolResult(st []byte) []byte {
	out := make([]byte, 0, 2*len(st)+64)
	out = append(out, `{"content":[{"type":"text","text":`...)
	out = jsondoc.AppendString(out, string(st))
	out = append(out, `}],"structuredContent":`...)
	out = append(out, st...)
	return append(out, '}')
}

// resultResponse builds a JSON-RPC result response.
func resultResponse(id string, result []byte) []byte {
	out := make([]byte, 0, len(result)+48)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"result":`...)
	out = append(out, result...)
	return append(out, '}')
}
