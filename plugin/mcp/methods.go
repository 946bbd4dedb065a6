package mcp

import (
	judging "github.com/cloudg/mcp-privacy/internal/catalog"
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/policy"
)

// What the plugin knows of each MCP method is internal/mcpvocab's table;
// these read it for the plugin's steps.

// methodOf is the entry of method in the table of revision rev (the zero
// entry for one that table does not know). A request is read by the
// table of its own revision (exchange.rev, from MCP-Protocol-Version and
// _meta), its response by the table of the request it answers
// (forwarded.rev).
func methodOf(rev mcpvocab.Revision, method string) *mcpvocab.Method {
	return mcpvocab.For(rev).Method(method)
}

// judgedInAny reports whether some revision judges requests of method: a
// notification of such a method is refused whatever the revision, as a
// call without an id would reach the server unjudged.
func judgedInAny(method string) bool {
	return methodOf(mcpvocab.Rev2025, method).Judged || methodOf(mcpvocab.Rev2026, method).Judged
}

// vocab is the 2025 revisions' table. Its error column gives the codes
// and standard messages of the plugin's own errors whose code no revision
// changed (every one but a missing resource's; TestSharedErrorCodes); an
// error that differs by revision is read from the request's table.
var vocab = mcpvocab.For(mcpvocab.Rev2025)

// rpcError is error e with its standard message followed by ": detail".
func rpcError(e mcpvocab.Err, detail string) *policy.RPCError {
	return vocab.NewError(e, detail, nil)
}

// errCode is the code of error e.
func errCode(e mcpvocab.Err) int { return vocab.Error(e).Code }

// policyKinds is the policy's kind of each kind the table names.
var policyKinds = judging.PolicyKinds

// resultCarriesPrimitive reports whether a result to method carries the
// data of the primitive its request named (it gets that primitive's
// output pipeline).
func resultCarriesPrimitive(rev mcpvocab.Revision, method string) bool {
	return methodOf(rev, method).Output == mcpvocab.OutputPrimitive
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
func listOf(rev mcpvocab.Revision, method string) (listMethod, bool) {
	l := methodOf(rev, method).List
	if l.Items == "" {
		return listMethod{}, false
	}
	return listMethodOf(l), true
}

// listsByRevision are each revision's list methods in the order a result
// no request explains is filtered in.
var listsByRevision = func() (out [2][]listMethod) {
	for _, r := range [...]mcpvocab.Revision{mcpvocab.Rev2025, mcpvocab.Rev2026} {
		for _, m := range mcpvocab.For(r).Lists() {
			out[r] = append(out[r], listMethodOf(m.List))
		}
	}
	return out
}()

// listsInOrder are the list methods of revision rev, in the order a
// result no request explains is filtered in.
func listsInOrder(rev mcpvocab.Revision) []listMethod { return listsByRevision[rev] }
