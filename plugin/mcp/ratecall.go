package mcp

import (
	"strconv"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/internal/ratelimit"
	"github.com/cloudg/mcp-privacy/policy"
)

// What rate limits (internal/ratelimit) see of an MCP call, and the
// JSON-RPC error of a refused one.

// rateLimitRefusal is the JSON-RPC error of a refused call (manual 9, 15):
// -32029 "Rate limit exceeded" with data {policy, limit, retry_after}; nil
// when allowed.
func rateLimitRefusal(v *ratelimit.Verdict, policyName string) *policy.RPCError {
	if v.Allowed {
		return nil
	}
	return rateLimitError(policyName, v.Limit(), v.RetryAfterSeconds())
}

// rateLimitError builds the -32029 error: data {policy, limit, retry_after}
// with retry_after in whole seconds.
func rateLimitError(policyName, limit string, retryAfter int) *policy.RPCError {
	data := make([]byte, 0, 48+len(policyName)+len(limit))
	data = append(data, `{"policy":`...)
	data = jsondoc.AppendString(data, policyName)
	data = append(data, `,"limit":`...)
	data = jsondoc.AppendString(data, limit)
	data = append(data, `,"retry_after":`...)
	data = strconv.AppendInt(data, int64(retryAfter), 10)
	data = append(data, '}')
	return vocab.NewError(mcpvocab.ErrRateLimited, "", rawJSON(data))
}

// rateCall is what rate limits see of a judged call: the resolved
// primitive's kind and name (a resource template by its text), except that
// completion/complete is of kind completion, named by its ref.
func rateCall(t target, x *policy.Primitive, principal string) policy.Call {
	c := policy.Call{Kind: x.Kind, Name: x.Name, Principal: principal}
	if t.Completion {
		c.Kind = policy.KindCompletion
	}
	return c
}

// rateCall is rateCall of this caller, with the readings of a tool or
// prompt name (manual 6.7): the call takes from the buckets of each name
// a server may read it as, so that ｅxport_customers stops where
// export_customers's bucket is empty.
func (s *exchange) rateCall(t target, x *policy.Primitive) policy.Call {
	c := rateCall(t, x, s.id.ID)
	if x.Kind == policy.KindTool || x.Kind == policy.KindPrompt {
		c.Readings = s.readingsOf(x.Name).Names
	}
	return c
}
