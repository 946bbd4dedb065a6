package mcp

import (
	judging "github.com/cloudg/mcp-privacy/internal/catalog"
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
// prompt name (manual 6.7, 9) whose buckets the call takes too
// (bucketReadings): ｅxport_customers stops where export_customers's
// bucket is empty.
func (s *exchange) rateCall(t target, x *policy.Primitive) policy.Call {
	c := rateCall(t, x, s.id.ID)
	if x.Kind == policy.KindTool || x.Kind == policy.KindPrompt {
		c.Readings = s.bucketReadings(x.Kind, x.Name)
	}
	return c
}

// bucketReadings are the readings of a tool or prompt name whose buckets
// a call of it takes from: those of ASCII characters only (what the
// tools a server lists are mostly named, listed or not yet) and those the
// catalog knows (a list or server.primitives named them). Not every
// reading: a name mixing characters of special case mappings has up to
// 64, and a bucket for each would let a few calls fill the slot table
// (manual 9, Where buckets live) and evict other callers' buckets.
func (s *exchange) bucketReadings(kind policy.Kind, name string) []string {
	rs := vmCatalog{s.cfg}.ReadingsOf(name).Names
	var out []string
	for i, r := range rs {
		keep := judging.ASCIIName(r)
		if !keep {
			_, keep = s.cfg.catalog.resolve(target{Kind: kind, Name: r, Args: jsondoc.None})
		}
		switch {
		case keep && out != nil:
			out = append(out, r)
		case !keep && out == nil:
			out = append(make([]string, 0, len(rs)), rs[:i]...)
		}
	}
	if out == nil {
		return rs
	}
	return out
}
