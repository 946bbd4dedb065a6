package mcp

import (
	"sort"
	"strconv"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/policy"
)

// Virtual tools are answered by the plugin itself (spec 13) when
// gateway.virtual_tools is on. They are judged by the policy like any tool,
// with the metadata below; one the caller may not use is neither listed
// nor answered.
const privacyStatus = "privacy_status"

// privacyStatusTool is the tools/list entry.
var privacyStatusTool = []byte(`{"name":"privacy_status","title":"Privacy status",` +
	`"description":"What the privacy filter in front of this server does for you: the policy, who you are to it, the rules that apply to you, and how many tools, resources and prompts you can see.",` +
	`"inputSchema":{"type":"object","properties":{}},` +
	`"annotations":{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}`)

func virtualPrimitive(name string) policy.Primitive {
	return policy.Primitive{Kind: policy.KindTool, Name: name,
		Metadata: policy.Metadata{Category: "privacy", Sensitivity: policy.Public}}
}

// virtualAllowed reports whether the caller may use a virtual tool.
func (s *Stream) virtualAllowed(name string) (policy.Decision, bool) {
	if !s.cfg.Env.Gateway.VirtualTools {
		return policy.Decision{}, false
	}
	x := virtualPrimitive(name)
	d := s.cfg.Env.Policy.Decide(&s.id.Principal, &x)
	return d, true
}

// statusResult is the CallToolResult of privacy_status: the facts as
// structuredContent and as JSON text for clients that read only text.
func (s *Stream) statusResult() []byte {
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
	st = append(st, `,"roles":[`...)
	for i, r := range s.id.Roles {
		if i > 0 {
			st = append(st, ',')
		}
		st = jsondoc.AppendString(st, r)
	}
	st = append(st, `],"anonymous":`...)
	st = strconv.AppendBool(st, s.id.Anonymous)
	st = append(st, `},"rules":[`...)
	for i, r := range p.RulesFor(&s.id.Principal) {
		if i > 0 {
			st = append(st, ',')
		}
		st = jsondoc.AppendString(st, r.Name)
	}
	st = append(st, `],"primitives":{`...)
	counts := s.cfg.Catalog.count(func(x *policy.Primitive) bool {
		return !p.Decide(&s.id.Principal, x).Hidden
	})
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for i, k := range kinds {
		if i > 0 {
			st = append(st, ',')
		}
		st = jsondoc.AppendString(st, k)
		st = append(st, `:{"visible":`...)
		st = strconv.AppendInt(st, int64(counts[k][0]), 10)
		st = append(st, `,"hidden":`...)
		st = strconv.AppendInt(st, int64(counts[k][1]), 10)
		st = append(st, '}')
	}
	st = append(st, `}}`...)

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
