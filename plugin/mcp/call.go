package mcp

import (
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/policy"
)

// Target is what a judged request names, before catalog resolution: a
// tool, a prompt, or a concrete resource URI (spec 8).
type Target struct {
	Method string
	// Kind is KindTool, KindPrompt or KindResource (a concrete URI that
	// the catalog may resolve to a template).
	Kind policy.Kind
	Name string
	// Completion is set for completion/complete, which is judged as the
	// prompt or resource it references but rate-limited as a completion.
	Completion bool
	// Args is the node holding the arguments the input pipeline sees
	// (tools/call arguments, prompts/get arguments), or None.
	Args int32
}

// judgedMethods are the client requests that name a primitive.
var judgedMethods = map[string]bool{
	"tools/call": true, "prompts/get": true, "resources/read": true,
	"resources/subscribe": true, "resources/unsubscribe": true,
	"completion/complete": true,
}

// Judged reports whether requests of this method name a primitive and are
// judged by the policy.
func Judged(method string) bool { return judgedMethods[method] }

func badParams(msg string) *policy.RPCError {
	return &policy.RPCError{Code: policy.CodeInvalidParams, Message: "Invalid params: " + msg}
}

// TargetOf reads the primitive a judged request names. Requests whose
// params don't name one properly get -32602: they are never forwarded
// unjudged.
func TargetOf(doc *jsondoc.Doc, m *Message) (Target, *policy.RPCError) {
	t := Target{Method: m.Method, Args: jsondoc.None}
	params := doc.Get(m.Node, "params")
	if doc.Kind(params) != jsondoc.Object {
		return t, badParams("params must be an object")
	}
	str := func(key string) (string, bool) {
		s, ok := doc.Str(doc.Get(params, key))
		return s, ok && s != ""
	}
	var ok bool
	switch m.Method {
	case "tools/call":
		t.Kind = policy.KindTool
		if t.Name, ok = str("name"); !ok {
			return t, badParams("params.name must be a non-empty string")
		}
		t.Args = doc.Get(params, "arguments")
	case "prompts/get":
		t.Kind = policy.KindPrompt
		if t.Name, ok = str("name"); !ok {
			return t, badParams("params.name must be a non-empty string")
		}
		t.Args = doc.Get(params, "arguments")
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		t.Kind = policy.KindResource
		if t.Name, ok = str("uri"); !ok {
			return t, badParams("params.uri must be a non-empty string")
		}
	case "completion/complete":
		t.Completion = true
		ref := doc.Get(params, "ref")
		typ, _ := doc.Str(doc.Get(ref, "type"))
		switch typ {
		case "ref/prompt":
			t.Kind = policy.KindPrompt
			t.Name, ok = doc.Str(doc.Get(ref, "name"))
		case "ref/resource":
			t.Kind = policy.KindResource
			t.Name, ok = doc.Str(doc.Get(ref, "uri"))
		default:
			return t, badParams(`params.ref.type must be "ref/prompt" or "ref/resource"`)
		}
		if !ok || t.Name == "" {
			return t, badParams("params.ref must name a prompt or a resource")
		}
	}
	return t, nil
}
