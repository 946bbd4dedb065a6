package mcp

import (
	"bytes"
	"math"
	"strconv"

	judging "github.com/cloudg/mcp-privacy/internal/catalog"
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/policy"
)

// target is what a judged request names, before catalog resolution: a
// tool, a prompt, or a concrete resource URI (manual 8).
type target struct {
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

// judged reports whether requests of this method name a primitive and are
// judged by the policy under revision rev.
func judged(rev mcpvocab.Revision, method string) bool { return methodOf(rev, method).Judged }

func badParams(msg string) *policy.RPCError {
	return rpcError(mcpvocab.ErrInvalidParams, msg)
}

// targetOf reads the primitive a judged request names. Requests whose
// params don't name one properly get -32602: they are never forwarded
// unjudged. rev is the request's revision.
func targetOf(rev mcpvocab.Revision, doc *jsondoc.Doc, m *message) (target, *policy.RPCError) {
	t := target{Method: m.Method, Args: jsondoc.None}
	params := doc.Get(m.Node, "params")
	if doc.Kind(params) != jsondoc.Object {
		return t, badParams("params must be an object")
	}
	// The members read here and by paramsProblem, in one pass.
	var f [4]int32
	var ok bool
	target := methodOf(rev, m.Method).Target
	switch target {
	case mcpvocab.KindTool, mcpvocab.KindPrompt:
		doc.GetMany(params, callMembers, f[:])
		t.Kind = policyKinds[target]
		if t.Name, ok = doc.Str(f[0]); !ok || t.Name == "" {
			return t, badParams("params.name must be a non-empty string")
		}
		t.Args = f[1]
	case mcpvocab.KindResource:
		doc.GetMany(params, resourceMembers, f[:])
		t.Kind = policy.KindResource
		if t.Name, ok = doc.Str(f[0]); !ok || t.Name == "" {
			return t, badParams("params.uri must be a non-empty string")
		}
	case mcpvocab.KindRef:
		doc.GetMany(params, completeMembers, f[:])
		t.Completion = true
		ref := f[0]
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
	if why := paramsProblem(doc, target, &f); why != "" {
		return t, badParams(why)
	}
	if t.Kind == policy.KindResource && !judging.URINormal(t.Name, !t.Completion) {
		return t, badParams(judging.URINotNormal)
	}
	return t, nil
}

// The params members targetOf reads by what the method targets; _meta is
// always the last ("" marks a slot the method does not use).
var (
	callMembers     = []string{"name", "arguments", "task", "_meta"}
	resourceMembers = []string{"uri", "", "", "_meta"}
	completeMembers = []string{"ref", "argument", "context", "_meta"}
	metaMembers     = []string{"progressToken", "io.modelcontextprotocol/related-task"}
)

// paramsProblem says what in a judged request's params breaks MCP's schema
// for its method, known by what it targets ("" if nothing), over the
// members servers check before they look the name up: the TypeScript and
// Go SDKs refuse such a request as invalid params, the go-sdk quoting the
// params back. The filter refuses it itself, whatever it names: a hidden
// name goes upstream as a stand-in with well-formed params (hidden.go), so
// a server refusing only the missing name's request would tell the two
// apart. f holds the members of the method's list above (targetOf).
func paramsProblem(doc *jsondoc.Doc, target mcpvocab.Kind, f *[4]int32) string {
	if meta := f[3]; meta != jsondoc.None {
		if doc.Kind(meta) != jsondoc.Object {
			return "params._meta must be an object"
		}
		var mf [2]int32
		doc.GetMany(meta, metaMembers, mf[:])
		if tok := mf[0]; tok != jsondoc.None && doc.Kind(tok) != jsondoc.String && !integral(doc, tok) {
			return "params._meta.progressToken must be a string or an integer"
		}
		if rel := mf[1]; rel != jsondoc.None && doc.Kind(doc.Get(rel, "taskId")) != jsondoc.String {
			return `params._meta["io.modelcontextprotocol/related-task"] must be an object with a string taskId`
		}
	}
	switch target {
	case mcpvocab.KindTool: // tools/call
		if args := f[1]; args != jsondoc.None && doc.Kind(args) != jsondoc.Object {
			return "params.arguments must be an object"
		}
		if task := f[2]; task != jsondoc.None {
			if ttl := doc.Get(task, "ttl"); doc.Kind(task) != jsondoc.Object || ttl != jsondoc.None && doc.Kind(ttl) != jsondoc.Number {
				return "params.task must be an object whose ttl is a number"
			}
		}
	case mcpvocab.KindPrompt: // prompts/get
		if args := f[1]; args != jsondoc.None && !stringMap(doc, args) {
			return "params.arguments must be an object of strings"
		}
	case mcpvocab.KindRef: // completion/complete
		arg := f[1]
		if doc.Kind(doc.Get(arg, "name")) != jsondoc.String || doc.Kind(doc.Get(arg, "value")) != jsondoc.String {
			return "params.argument must be an object with a string name and value"
		}
		if c := f[2]; c != jsondoc.None {
			if a := doc.Get(c, "arguments"); doc.Kind(c) != jsondoc.Object || a != jsondoc.None && !stringMap(doc, a) {
				return "params.context must be an object whose arguments are an object of strings"
			}
		}
	}
	return ""
}

// stringMap reports whether node n is an object whose values are strings.
func stringMap(doc *jsondoc.Doc, n int32) bool {
	if doc.Kind(n) != jsondoc.Object {
		return false
	}
	for c := doc.First(n); c != jsondoc.None; c = doc.Next(c) {
		if doc.Kind(c) != jsondoc.String {
			return false
		}
	}
	return true
}

// integral reports whether node n is a number with an integer value (the
// TypeScript SDK's z.number().int(): 7, 7.0 and 7e2, not 7.5).
func integral(doc *jsondoc.Doc, n int32) bool {
	if doc.Kind(n) != jsondoc.Number {
		return false
	}
	raw := doc.Raw(n)
	if !bytes.ContainsAny(raw, ".eE") {
		return true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	return err == nil && f == math.Trunc(f)
}
