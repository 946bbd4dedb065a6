package policy

import (
	"math"
	"testing"
)

// rlT0 is an arbitrary wall-clock instant in Unix nanoseconds.
const rlT0 = int64(1_700_000_000) * 1e9

func rlAt(seconds float64) int64 { return rlT0 + int64(seconds*1e9) }

func rlLimit(t *testing.T, src string) *RateLimit {
	t.Helper()
	p := dtParse(t, "rate_limits:\n  - "+src)
	if len(p.RateLimits) != 1 {
		t.Fatalf("%s: %d limits", src, len(p.RateLimits))
	}
	return &p.RateLimits[0]
}

func rlNear(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// rlTokensAt is how many tokens a bucket in state s holds at now (a state
// never used holds burst).
func rlTokensAt(b Bucket, s BucketState, now int64) float64 { return b.Limit.refill(s, now).Tokens }

// ---------------------------------------------------------------------------
// Which calls a limit covers (manual 6.5 kinds and tools, manual 9).

func TestRateLimitCovers(t *testing.T) {
	call := func(k Kind, name string) Call { return Call{Kind: k, Name: name, Principal: "alice"} }
	cases := []struct {
		name  string
		limit string
		call  Call
		want  bool
	}{
		{"no kinds covers a tool", `{rate: 1}`, call(KindTool, "x"), true},
		{"no kinds covers a resource", `{rate: 1}`, call(KindResource, "file:///x"), true},
		{"no kinds covers a template", `{rate: 1}`, call(KindResourceTemplate, "file:///{x}"), true},
		{"no kinds covers a prompt", `{rate: 1}`, call(KindPrompt, "p"), true},
		{"no kinds covers a completion", `{rate: 1}`, call(KindCompletion, "p"), true},
		{"empty kinds covers all", `{rate: 1, kinds: []}`, call(KindPrompt, "p"), true},
		{"kinds tool covers a tool", `{rate: 1, kinds: [tool]}`, call(KindTool, "x"), true},
		{"kinds tool does not cover a prompt", `{rate: 1, kinds: [tool]}`, call(KindPrompt, "x"), false},
		{"kinds tool does not cover a completion", `{rate: 1, kinds: [tool]}`, call(KindCompletion, "x"), false},
		{"kinds resource covers a resource", `{rate: 1, kinds: [resource]}`, call(KindResource, "file:///x"), true},
		{"kinds resource covers a template", `{rate: 1, kinds: [resource]}`, call(KindResourceTemplate, "file:///{x}"), true},
		{"kinds resource_template covers a template", `{rate: 1, kinds: [resource_template]}`, call(KindResourceTemplate, "file:///{x}"), true},
		{"kinds resource_template does not cover a resource", `{rate: 1, kinds: [resource_template]}`, call(KindResource, "file:///x"), false},
		{"kinds completion covers a completion", `{rate: 1, kinds: [completion]}`, call(KindCompletion, "p"), true},
		{"kinds completion does not cover a prompt", `{rate: 1, kinds: [completion]}`, call(KindPrompt, "p"), false},
		{"kinds completion does not cover a template", `{rate: 1, kinds: [completion]}`, call(KindResourceTemplate, "file:///{x}"), false},
		{"kinds prompt does not cover a completion", `{rate: 1, kinds: [prompt]}`, call(KindCompletion, "p"), false},
		{"kinds resource_template does not cover a completion", `{rate: 1, kinds: [resource_template]}`, call(KindCompletion, "file:///{x}"), false},
		{"kinds list covers each", `{rate: 1, kinds: [prompt, completion]}`, call(KindCompletion, "p"), true},
		{"default tools covers everything", `{rate: 1}`, call(KindTool, "anything/at:all"), true},
		{"tools glob covers a match", `{rate: 1, tools: ["search*"]}`, call(KindTool, "search_docs"), true},
		{"tools glob does not cover a non-match", `{rate: 1, tools: ["search*"]}`, call(KindTool, "get_doc"), false},
		{"tools are anchored", `{rate: 1, tools: [search]}`, call(KindTool, "search_docs"), false},
		{"tools glob on a template text", `{rate: 1, tools: ["cloudg://assets/*"]}`, call(KindResourceTemplate, "cloudg://assets/{+ref}"), true},
		{"tools negation", `{rate: 1, tools: ["*", "!admin_*"]}`, call(KindTool, "admin_reset"), false},
		{"tools negation keeps others", `{rate: 1, tools: ["*", "!admin_*"]}`, call(KindTool, "search"), true},
		{"tools with only a negation cover nothing", `{rate: 1, tools: ["!admin_*"]}`, call(KindTool, "search"), false},
		{"tools and kinds both must hold", `{rate: 1, tools: ["search*"], kinds: [prompt]}`, call(KindTool, "search"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := dtParse(t, "rate_limits:\n  - "+c.limit)
			if got := p.RateLimits[0].Covers(c.call.Kind, c.call.Name); got != c.want {
				t.Errorf("Covers = %v, want %v", got, c.want)
			}
			bs := p.Buckets(c.call, nil)
			if got := len(bs) == 1; got != c.want || len(bs) > 1 {
				t.Errorf("Buckets = %d buckets, want covered=%v", len(bs), c.want)
			}
		})
	}
}

// A call is checked against the policy's limits and those of every rule in
// M (manual 9).
func TestBucketsPolicyAndMatchedRules(t *testing.T) {
	p := dtParse(t, `
rate_limits:
  - {rate: 1}
  - {rate: 2, kinds: [prompt]}
roles:
  ops: {rate_limits: [{rate: 3}]}
  dev: {rate_limits: [{rate: 4}]}
rules:
  - {match: {names: ["search*"]}, rate_limits: [{rate: 5}, {rate: 6, tools: [other]}]}
`)
	rates := func(bs []Bucket) []float64 {
		out := []float64{}
		for _, b := range bs {
			out = append(out, b.Limit.Rate)
		}
		return out
	}
	cases := []struct {
		name  string
		pr    Principal
		x     Primitive
		rates []float64
	}{
		{"policy limit only", dtWho("alice"), dtTool("get"), []float64{1}},
		{"policy limit of the kind", dtWho("alice"), dtPrompt("get"), []float64{1, 2}},
		{"role limit of a matched role", dtWho("alice", "ops"), dtTool("get"), []float64{1, 3}},
		{"limits of every matched rule in order", dtWho("alice", "ops", "dev"), dtTool("search_docs"), []float64{1, 3, 4, 5}},
		{"rule limits of an unmatched rule do not apply", dtWho("alice", "dev"), dtTool("get"), []float64{1, 4}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pr, x := c.pr, c.x
			m := p.Match(&pr, &x)
			got := rates(p.Buckets(Call{Kind: x.Kind, Name: x.Name, Principal: pr.ID}, m))
			if len(got) != len(c.rates) {
				t.Fatalf("bucket rates %v, want %v", got, c.rates)
			}
			for i := range got {
				if got[i] != c.rates[i] {
					t.Fatalf("bucket rates %v, want %v", got, c.rates)
				}
			}
		})
	}
}

// Scope picks which calls share a bucket (manual 9).
func TestBucketScopes(t *testing.T) {
	p := dtParse(t, `
rate_limits:
  - {rate: 10, scope: principal}
  - {rate: 11, scope: tool}
  - {rate: 12, scope: principal_tool}
  - {rate: 13, scope: global}
  - {rate: 14}
`)
	key := func(limit int, principal, tool string) string {
		bs := p.Buckets(Call{Kind: KindTool, Name: tool, Principal: principal}, nil)
		if len(bs) != 5 {
			t.Fatalf("%d buckets, want 5", len(bs))
		}
		for _, b := range bs {
			if b.Limit == &p.RateLimits[limit] {
				return b.Key
			}
		}
		t.Fatalf("no bucket for limit %d", limit)
		return ""
	}
	const (
		principal = iota
		tool
		principalTool
		global
		dflt
	)
	type pair struct {
		scope      int
		p1, t1     string
		p2, t2     string
		sameBucket bool
	}
	cases := []struct {
		name string
		pair
	}{
		{"principal: same principal, different tools share", pair{principal, "alice", "a", "alice", "b", true}},
		{"principal: different principals do not share", pair{principal, "alice", "a", "bob", "a", false}},
		{"tool: different principals share", pair{tool, "alice", "a", "bob", "a", true}},
		{"tool: different tools do not share", pair{tool, "alice", "a", "alice", "b", false}},
		{"principal_tool: same pair shares", pair{principalTool, "alice", "a", "alice", "a", true}},
		{"principal_tool: different principals do not share", pair{principalTool, "alice", "a", "bob", "a", false}},
		{"principal_tool: different tools do not share", pair{principalTool, "alice", "a", "alice", "b", false}},
		{"global: different principals share", pair{global, "alice", "a", "bob", "a", true}},
		{"global: different tools share", pair{global, "alice", "a", "alice", "b", true}},
		{"global: everything shares", pair{global, "alice", "a", "bob", "b", true}},
		{"default scope is principal_tool: principals", pair{dflt, "alice", "a", "bob", "a", false}},
		{"default scope is principal_tool: tools", pair{dflt, "alice", "a", "alice", "b", false}},
		{"default scope is principal_tool: same pair", pair{dflt, "alice", "a", "alice", "a", true}},
		{"principal_tool keys do not collide across the split", pair{principalTool, "a", "b:c", "a:b", "c", false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k1, k2 := key(c.scope, c.p1, c.t1), key(c.scope, c.p2, c.t2)
			if (k1 == k2) != c.sameBucket {
				t.Errorf("same bucket = %v, want %v (%s vs %s)", k1 == k2, c.sameBucket, k1, k2)
			}
		})
	}

	// Different limits never share a bucket.
	seen := map[string]int{}
	for i := range p.RateLimits {
		k := key(i, "alice", "a")
		if j, ok := seen[k]; ok {
			t.Errorf("limits %d and %d share bucket %s", j, i, k)
		}
		seen[k] = i
	}
	// A global bucket's scope key is empty; a principal bucket's is the id.
	for _, b := range p.Buckets(Call{Kind: KindTool, Name: "a", Principal: "alice"}, nil) {
		switch b.Limit.Scope {
		case ScopeGlobal:
			if b.ScopeKey != "" {
				t.Errorf("global ScopeKey = %q, want empty", b.ScopeKey)
			}
		case ScopePrincipal:
			if b.ScopeKey != "alice" {
				t.Errorf("principal ScopeKey = %q, want alice", b.ScopeKey)
			}
		}
		if b.String() == "" {
			t.Errorf("Bucket.String() is empty")
		}
	}
}

// Bucket identity is a hash of the limit's config and the scope key, so a
// reload keeps state (manual 9).
func TestBucketKeyIdentity(t *testing.T) {
	const pol = `
rate_limits:
  - {rate: 10, per: minute, burst: 20, scope: principal, tools: ["search*"], kinds: [tool]}
`
	call := Call{Kind: KindTool, Name: "search", Principal: "alice"}
	keyOf := func(src string) string {
		t.Helper()
		bs := dtParse(t, src).Buckets(call, nil)
		if len(bs) != 1 {
			t.Fatalf("%d buckets for %s", len(bs), src)
		}
		return bs[0].Key
	}
	base := keyOf(pol)
	if base == "" {
		t.Fatal("empty bucket key")
	}
	if again := keyOf(pol); again != base {
		t.Errorf("parsing the same policy twice gives keys %s and %s", base, again)
	}
	// The same limit at another position (a limit inserted before it) or
	// inside a rule keeps its identity.
	moved := keyOf(`
rate_limits:
  - {rate: 1, tools: [other]}
  - {rate: 10, per: minute, burst: 20, scope: principal, tools: ["search*"], kinds: [tool]}
`)
	if moved != base {
		t.Errorf("moving the limit changed its bucket key: %s vs %s", moved, base)
	}
	variants := map[string]string{
		"rate":    `{rate: 11, per: minute, burst: 20, scope: principal, tools: ["search*"], kinds: [tool]}`,
		"per":     `{rate: 10, per: hour, burst: 20, scope: principal, tools: ["search*"], kinds: [tool]}`,
		"burst":   `{rate: 10, per: minute, burst: 21, scope: principal, tools: ["search*"], kinds: [tool]}`,
		"scope":   `{rate: 10, per: minute, burst: 20, scope: principal_tool, tools: ["search*"], kinds: [tool]}`,
		"tools":   `{rate: 10, per: minute, burst: 20, scope: principal, tools: ["sea*"], kinds: [tool]}`,
		"kinds":   `{rate: 10, per: minute, burst: 20, scope: principal, tools: ["search*"], kinds: [tool, prompt]}`,
		"no kind": `{rate: 10, per: minute, burst: 20, scope: principal, tools: ["search*"]}`,
	}
	keys := map[string]string{base: "base"}
	for field, l := range variants {
		k := keyOf("rate_limits:\n  - " + l)
		if prev, ok := keys[k]; ok {
			t.Errorf("changing %s gives the same bucket key as %s", field, prev)
		}
		keys[k] = field
	}
	// The scope key is part of the identity.
	p := dtParse(t, pol)
	a := p.Buckets(call, nil)[0].Key
	b := p.Buckets(Call{Kind: KindTool, Name: "search", Principal: "bob"}, nil)[0].Key
	if a == b {
		t.Errorf("principals alice and bob share a principal-scoped bucket key %s", a)
	}
}

// burst defaults to max(1, ceil(rate)) (manual 6.5, manual 9).
func TestRateLimitBurstDefault(t *testing.T) {
	cases := []struct {
		limit string
		burst int
	}{
		{`{rate: 0.5}`, 1},
		{`{rate: 0.01}`, 1},
		{`{rate: 1}`, 1},
		{`{rate: 2.5}`, 3},
		{`{rate: 10}`, 10},
		{`{rate: 10.0001}`, 11},
		{`{rate: 2.5, burst: null}`, 3},
		{`{rate: 2.5, burst: 7}`, 7},
		{`{rate: 100, burst: 1}`, 1},
	}
	for _, c := range cases {
		if got := rlLimit(t, c.limit).Burst; got != c.burst {
			t.Errorf("%s: burst %d, want %d", c.limit, got, c.burst)
		}
	}
	// Other defaults of manual 6.5.
	l := rlLimit(t, `{rate: 3}`)
	if l.Per != PerMinute || l.Scope != ScopePrincipalTool || l.Kinds != 0 || !l.Tools.Match("anything") {
		t.Errorf("defaults: per %s scope %s kinds %d tools %q", l.Per, l.Scope, l.Kinds, l.Tools.Patterns())
	}
}

// ---------------------------------------------------------------------------
// Token bucket arithmetic (manual 9).

func TestTakeArithmetic(t *testing.T) {
	l := rlLimit(t, `{rate: 2, per: second, burst: 3}`)
	var s BucketState // never used: full
	var ok bool
	var retry float64
	for i := 0; i < 3; i++ {
		s, ok, retry = l.Take(s, rlAt(0))
		if !ok || retry != 0 {
			t.Fatalf("take %d at t=0: ok=%v retry=%v, want a token", i+1, ok, retry)
		}
		if want := float64(2 - i); !rlNear(s.Tokens, want) {
			t.Fatalf("after take %d: %v tokens, want %v", i+1, s.Tokens, want)
		}
	}
	s, ok, retry = l.Take(s, rlAt(0))
	if ok {
		t.Fatal("4th take at the same instant succeeded, want refusal")
	}
	if !rlNear(retry, 0.5) { // (1-0) * 1s / 2
		t.Errorf("retryAfter = %v, want 0.5", retry)
	}
	// 0.25 s later: 0.5 tokens, still refused; one more token in 0.25 s.
	s, ok, retry = l.Take(s, rlAt(0.25))
	if ok || !rlNear(s.Tokens, 0.5) || !rlNear(retry, 0.25) {
		t.Errorf("at 0.25s: ok=%v tokens=%v retry=%v, want refused, 0.5, 0.25", ok, s.Tokens, retry)
	}
	// 0.5 s after the start: exactly one token.
	s, ok, _ = l.Take(s, rlAt(0.5))
	if !ok || !rlNear(s.Tokens, 0) {
		t.Errorf("at 0.5s: ok=%v tokens=%v, want a token and 0 left", ok, s.Tokens)
	}
	// Long idle: refilled to burst, not beyond.
	s, ok, _ = l.Take(s, rlAt(3600))
	if !ok || !rlNear(s.Tokens, 2) {
		t.Errorf("after an hour: ok=%v tokens=%v, want a token taken from a full bucket of 3", ok, s.Tokens)
	}
	if s.Updated != rlAt(3600) {
		t.Errorf("Updated = %d, want %d", s.Updated, rlAt(3600))
	}
}

func TestTakePeriods(t *testing.T) {
	cases := []struct {
		limit   string
		retry   float64 // from an empty bucket
		refillS float64 // seconds for one token
	}{
		{`{rate: 2, per: minute, burst: 1}`, 30, 30},
		{`{rate: 6, burst: 1}`, 10, 10}, // per defaults to minute
		{`{rate: 1, per: hour, burst: 1}`, 3600, 3600},
		{`{rate: 4, per: day, burst: 1}`, 21600, 21600},
		{`{rate: 0.5, per: second}`, 2, 2},
	}
	for _, c := range cases {
		l := rlLimit(t, c.limit)
		s, ok, _ := l.Take(BucketState{}, rlAt(0))
		if !ok {
			t.Fatalf("%s: first take refused", c.limit)
		}
		_, ok, retry := l.Take(s, rlAt(0))
		if ok || !rlNear(retry, c.retry) {
			t.Errorf("%s: ok=%v retry=%v, want refused with %v", c.limit, ok, retry, c.retry)
		}
		if _, ok, _ := l.Take(s, rlAt(c.refillS*0.999)); ok {
			t.Errorf("%s: a token before %vs", c.limit, c.refillS)
		}
		if _, ok, _ := l.Take(s, rlAt(c.refillS)); !ok {
			t.Errorf("%s: no token after %vs", c.limit, c.refillS)
		}
	}
}

func TestTakeClockBackwards(t *testing.T) {
	l := rlLimit(t, `{rate: 2, per: second, burst: 1}`)
	s, ok, _ := l.Take(BucketState{}, rlAt(10))
	if !ok {
		t.Fatal("first take refused")
	}
	// The clock steps back 5 s: nothing is added.
	s2, ok, retry := l.Take(s, rlAt(5))
	if ok {
		t.Fatal("a token after the clock stepped back")
	}
	if !rlNear(s2.Tokens, 0) || retry <= 0 {
		t.Errorf("after stepping back: tokens %v retry %v, want 0 and > 0", s2.Tokens, retry)
	}
	// Back at 10.4 s: 0.8 tokens since 10 s, not since 5 s.
	if _, ok, _ := l.Take(s2, rlAt(10.4)); ok {
		t.Error("the step back was counted as refill time")
	}
	if _, ok, _ := l.Take(s2, rlAt(10.5)); !ok {
		t.Error("no token 0.5 s after the last real update")
	}
}

func TestTakeAllAllOrNone(t *testing.T) {
	p := dtParse(t, `
rate_limits:
  - {rate: 5, per: second, burst: 5, scope: global}
  - {rate: 1, per: second, burst: 1, scope: principal}
  - {rate: 3, per: second, burst: 3, scope: tool}
`)
	bs := p.Buckets(Call{Kind: KindTool, Name: "t", Principal: "alice"}, nil)
	if len(bs) != 3 {
		t.Fatalf("%d buckets", len(bs))
	}
	now := rlAt(0)
	states := []BucketState{
		{Tokens: 2.5, Updated: now},
		{Tokens: 0.25, Updated: now}, // empty: refuses
		{Tokens: 1.5, Updated: now},
	}
	next, ok, refused, retry := TakeAll(bs, states, now)
	if ok || refused != 1 {
		t.Fatalf("ok=%v refused=%d, want refused by bucket 1", ok, refused)
	}
	if !rlNear(retry, 0.75) { // (1-0.25) * 1s / 1
		t.Errorf("retryAfter = %v, want 0.75", retry)
	}
	// A refusal takes nothing from any bucket: each must hold what it held.
	for i := range states {
		if got, want := rlTokensAt(bs[i], next[i], now), rlTokensAt(bs[i], states[i], now); !rlNear(got, want) {
			t.Errorf("bucket %d after a refused TakeAll holds %v tokens (state %+v), want %v", i, got, next[i], want)
		}
	}
	// Concretely: the untouched third bucket must not come back full.
	if st, ok, _ := bs[2].Limit.Take(next[2], now); ok && st.Tokens > 0.5+1e-9 {
		t.Errorf("bucket 2 was refilled by a refused TakeAll: tokens %v after one take", st.Tokens)
	}

	// Success takes one from each.
	states[1].Tokens = 1
	next, ok, refused, retry = TakeAll(bs, states, now)
	if !ok || refused != -1 || retry != 0 {
		t.Fatalf("ok=%v refused=%d retry=%v, want success", ok, refused, retry)
	}
	for i := range states {
		if !rlNear(next[i].Tokens, states[i].Tokens-1) {
			t.Errorf("bucket %d: %v tokens, want %v", i, next[i].Tokens, states[i].Tokens-1)
		}
	}

	// Refused by the first bucket: the others keep their state.
	states = []BucketState{{Tokens: 0, Updated: now}, {Tokens: 1, Updated: now}, {Tokens: 0, Updated: now}}
	next, ok, refused, _ = TakeAll(bs, states, now)
	if ok || refused != 0 {
		t.Fatalf("ok=%v refused=%d, want refused by bucket 0", ok, refused)
	}
	for i := range states {
		if got, want := rlTokensAt(bs[i], next[i], now), rlTokensAt(bs[i], states[i], now); !rlNear(got, want) {
			t.Errorf("bucket %d after refusal by bucket 0 holds %v tokens (state %+v), want %v", i, got, next[i], want)
		}
	}
	// New buckets start full: a first call passes even with burst 1.
	next, ok, _, _ = TakeAll(bs, make([]BucketState, 3), now)
	if !ok || !rlNear(next[0].Tokens, 4) || !rlNear(next[1].Tokens, 0) || !rlNear(next[2].Tokens, 2) {
		t.Errorf("fresh buckets: ok=%v next=%+v, want 4, 0, 2 tokens left", ok, next)
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	cases := []struct {
		in   float64
		want int
	}{
		{0, 1}, {0.001, 1}, {0.5, 1}, {1, 1}, {1.0001, 2}, {1.5, 2}, {2, 2}, {29.2, 30}, {3600, 3600},
	}
	for _, c := range cases {
		if got := RetryAfterSeconds(c.in); got != c.want {
			t.Errorf("RetryAfterSeconds(%v) = %d, want %d", c.in, got, c.want)
		}
	}
}

// BucketFor names the same bucket Buckets returns for a covered call, and
// a principal-scoped limit's bucket does not depend on the primitive.
func TestBucketFor(t *testing.T) {
	p := MustParsePolicy(`{"rate_limits": [{"rate": 1, "per": "minute", "scope": "principal", "tools": ["crm_*"]}]}`)
	l := &p.RateLimits[0]
	call := Call{Kind: KindTool, Name: "crm_lookup", Principal: "alice"}
	bs := p.Buckets(call, nil)
	if len(bs) != 1 || l.BucketFor(call).Key != bs[0].Key {
		t.Fatalf("Buckets %v, BucketFor %v", bs, l.BucketFor(call))
	}
	if got := l.BucketFor(Call{Principal: "alice"}).Key; got != bs[0].Key {
		t.Errorf("principal bucket without a primitive: %s, want %s", got, bs[0].Key)
	}
	if l.BucketFor(Call{Principal: "bob"}).Key == bs[0].Key {
		t.Error("bob shares alice's bucket")
	}
}
