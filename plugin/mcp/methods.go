package mcp

import (
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/policy"
)

// What the plugin knows of each MCP method is internal/mcpvocab's table;
// these read it for the plugin's steps.

// methodOf is the table entry of method (the zero entry for one the
// table does not know). Every request is read by the 2025 revisions'
// table: the one place a request's revision will choose the table.
func methodOf(method string) *mcpvocab.Method {
	return vocab.Method(method)
}

// vocab is the table requests are read by, for now the 2025 revisions'
// (see methodOf); its error column gives the codes and standard messages
// of the plugin's own errors.
var vocab = mcpvocab.For(mcpvocab.Rev2025)

// rpcError is error e with its standard message followed by ": detail".
func rpcError(e mcpvocab.Err, detail string) *policy.RPCError {
	return vocab.NewError(e, detail, nil)
}

// errCode is the code of error e.
func errCode(e mcpvocab.Err) int { return vocab.Error(e).Code }

// policyKinds is the policy's kind of each kind the table names (not
// KindNone, nor KindRef, which names a prompt or resource by its type).
var policyKinds = [...]policy.Kind{
	mcpvocab.KindTool: policy.KindTool, mcpvocab.KindPrompt: policy.KindPrompt,
	mcpvocab.KindResource: policy.KindResource, mcpvocab.KindResourceTemplate: policy.KindResourceTemplate,
}

// resultCarriesPrimitive reports whether a result to method carries the
// data of the primitive its request named (it gets that primitive's
// output pipeline).
func resultCarriesPrimitive(method string) bool {
	return methodOf(method).Output == mcpvocab.OutputPrimitive
}

// listMethod describes how one list method's result names its items.
type listMethod struct {
	items string      // the result's array of items
	key   string      // the item's name field
	kind  policy.Kind // the kind of each item
}

func listMethodOf(l mcpvocab.List) listMethod {
	return listMethod{items: l.Items, key: l.Key, kind: policyKinds[l.Kind]}
}

// listOf is how a result to method names its items, if it is a list.
func listOf(method string) (listMethod, bool) {
	l := methodOf(method).List
	if l.Items == "" {
		return listMethod{}, false
	}
	return listMethodOf(l), true
}

// lists2025 are the list methods in the order a result no request
// explains is filtered in.
var lists2025 = func() []listMethod {
	var out []listMethod
	for _, m := range mcpvocab.For(mcpvocab.Rev2025).Lists() {
		out = append(out, listMethodOf(m.List))
	}
	return out
}()

// listsInOrder are the list methods, in the order a result no request
// explains is filtered in.
func listsInOrder() []listMethod { return lists2025 }
