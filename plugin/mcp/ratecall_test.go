package mcp

import (
	"testing"

	"github.com/cloudg/mcp-privacy/internal/ratelimit"
	"github.com/cloudg/mcp-privacy/internal/shareddata/shareddatatest"
	"github.com/cloudg/mcp-privacy/policy"
)

// Helpers of this file are prefixed rl.

// rlT0 is an arbitrary wall-clock instant (Unix ns).
const rlT0 = int64(1_700_000_000) * 1e9

func rlAt(seconds float64) int64 { return rlT0 + int64(seconds*1e9) }

func rlPolicy(t testing.TB, src string) *policy.Policy {
	t.Helper()
	// YAML (a leading "{" would be read as JSON).
	p, errs := policy.ParsePolicy([]byte("# policy\n"+src), policy.Options{})
	if len(errs) > 0 {
		t.Fatalf("policy:\n%s\n%s", errs.Error(), src)
	}
	return p
}

func rlTool(principal, name string) policy.Call {
	return policy.Call{Kind: policy.KindTool, Name: name, Principal: principal}
}

// newRLHost is shared data with proxy-wasm-cpp-host's exact semantics.
func newRLHost() *shareddatatest.Host { return shareddatatest.NewHost() }

// A refused call's JSON-RPC error (manual 9, 15).
func TestRateLimitRefusal(t *testing.T) {
	p := rlPolicy(t, `{name: pol, rate_limits: [{rate: 1, per: day, burst: 3, scope: principal}]}`)
	l := ratelimit.New(newRLHost(), "srv")
	c := rlTool("alice", "search")
	var v ratelimit.Verdict
	for range 4 {
		v = l.Check(p, c, nil, rlAt(0))
	}
	got := string(ErrorResponse("7", rateLimitRefusal(&v, p.Name)))
	want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32029,"message":"Rate limit exceeded","data":{"policy":"pol","limit":"rate_limits[0]: 1/day burst 3 per principal","retry_after":86400}}}`
	if got != want {
		t.Errorf("error response\n got %s\nwant %s", got, want)
	}
	if rateLimitRefusal(&v, "x") == nil || rateLimitRefusal(&ratelimit.Verdict{Allowed: true}, "x") != nil {
		t.Error("the error of a refusal is nil, or of an allowed call non-nil")
	}
}

// Which limits cover which calls: the calls rateCall makes of targets
// (completion named by its ref, resource covering templates), tools
// globs, and limits of every matched rule (manual 9).
func TestLimiterCoverage(t *testing.T) {
	p := rlPolicy(t, `
rate_limits:
  - {rate: 1, per: day, burst: 1, scope: principal, kinds: [completion]}
  - {rate: 1, per: day, burst: 1, scope: principal, kinds: [resource], tools: ["cloudg://assets/*"]}
roles:
  ops: {rate_limits: [{rate: 1, per: day, burst: 2, scope: principal, tools: ["search*"]}]}
rules:
  - {match: {names: ["search_docs"]}, rate_limits: [{rate: 1, per: day, burst: 1, scope: principal}]}
`)
	l := ratelimit.New(newRLHost(), "s")
	pr := policy.Principal{ID: "alice", Roles: []string{"ops"}}
	check := func(t target, x policy.Primitive) ratelimit.Verdict {
		m := p.Match(&pr, &x)
		return l.Check(p, rateCall(t, &x, pr.ID), m, rlAt(0))
	}
	passes := func(n int, t target, x policy.Primitive) int {
		ok := 0
		for range n {
			if check(t, x).Allowed {
				ok++
			}
		}
		return ok
	}
	// completion/complete on a prompt is limited as a completion, not as
	// the prompt.
	prompt := policy.Primitive{Kind: policy.KindPrompt, Name: "greet"}
	if n := passes(3, target{Completion: true}, prompt); n != 1 {
		t.Errorf("completion limit: %d calls passed, want 1", n)
	}
	if n := passes(3, target{}, prompt); n != 3 {
		t.Errorf("prompts/get is not a completion, and no limit covers it: %d of 3 passed", n)
	}
	// resource covers a template named by its text.
	tmpl := policy.Primitive{Kind: policy.KindResourceTemplate, Name: "cloudg://assets/{+ref}", URI: "cloudg://assets/x"}
	if n := passes(3, target{}, tmpl); n != 1 {
		t.Errorf("resource limit over a template: %d calls passed, want 1", n)
	}
	// The role's limit (burst 2) and the rule's (burst 1) both apply to
	// search_docs; the role's alone to search_web.
	docs := policy.Primitive{Kind: policy.KindTool, Name: "search_docs"}
	web := policy.Primitive{Kind: policy.KindTool, Name: "search_web"}
	if v := check(target{}, docs); !v.Allowed || v.Buckets != 2 {
		t.Fatalf("search_docs: %+v, want allowed by 2 buckets", v)
	}
	if v := check(target{}, docs); v.Allowed || v.Bucket.Limit.Path != "rules[0].rate_limits[0]" {
		t.Errorf("second search_docs: %+v, want refused by the rule's limit", v)
	}
	if !check(target{}, web).Allowed {
		t.Error("search_web refused: the refused search_docs call must not have taken the role's token")
	}
	if check(target{}, web).Allowed {
		t.Error("search_web: the role's burst of 2 is spent")
	}
}
