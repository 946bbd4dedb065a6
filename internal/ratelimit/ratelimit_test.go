package ratelimit

import (
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/shareddata"
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

// newMemShared is shared data stricter than the host's
// (shareddatatest.PerKey).
func newMemShared() *shareddatatest.PerKey { return shareddatatest.NewPerKey() }

// rlView is one VM's view of a store, with a hook before its own sets.
type rlView struct {
	shareddata.Store
	onSet func(key string)
}

func (v *rlView) Set(key string, b []byte, cas uint32) bool {
	if v.onSet != nil {
		v.onSet(key)
	}
	return v.Store.Set(key, b, cas)
}

// rlSlotKeys are the keys of the two slots a call's bucket of limit i may
// live in.
func rlSlotKeys(l *Limiter, p *policy.Policy, c policy.Call, i int) [2]string {
	bs := p.Buckets(c, nil)
	for _, b := range bs {
		if b.Limit == &p.RateLimits[i] {
			s1, s2 := bucketSlots(b.Key)
			return [2]string{l.prefix + strconv.Itoa(s1), l.prefix + strconv.Itoa(s2)}
		}
	}
	panic("no bucket")
}

// ---------------------------------------------------------------------------

func TestLimiterBurstAndRefusal(t *testing.T) {
	p := rlPolicy(t, `{name: pol, rate_limits: [{rate: 1, per: day, burst: 3, scope: principal}]}`)
	l := New(newRLHost(), "srv")
	c := rlTool("alice", "search")
	for i := range 3 {
		if v := l.Check(p, c, nil, rlAt(0)); !v.Allowed || v.Buckets != 1 {
			t.Fatalf("call %d: %+v, want allowed", i+1, v)
		}
	}
	v := l.Check(p, c, nil, rlAt(0))
	if v.Allowed {
		t.Fatal("4th call allowed, want refused")
	}
	if got, want := v.Limit(), "rate_limits[0]: 1/day burst 3 per principal"; got != want {
		t.Errorf("Limit() = %q, want %q", got, want)
	}
	if v.Bucket.Limit != &p.RateLimits[0] || v.Bucket.ScopeKey != "alice" {
		t.Errorf("refusing bucket %v", v.Bucket)
	}
	if v.RetryAfterSeconds() != 86400 {
		t.Errorf("retry after %d s, want 86400", v.RetryAfterSeconds())
	}
	if h := v.Header(); h != [2]string{"retry-after", "86400"} {
		t.Errorf("header %q", h)
	}
	if v.Path() != "rate_limits[0]" {
		t.Errorf("Path() = %q", v.Path())
	}
	// Another principal has its own bucket.
	if v := l.Check(p, rlTool("bob", "search"), nil, rlAt(0)); !v.Allowed {
		t.Errorf("bob refused: %+v", v)
	}
	// No limits: allowed without touching shared data.
	store := newRLHost()
	free := New(store, "srv")
	if v := free.Check(rlPolicy(t, `{}`), c, nil, rlAt(0)); !v.Allowed || v.Buckets != 0 || store.Sets.Load() != 0 {
		t.Errorf("no limits: %+v, %d sets", v, store.Sets.Load())
	}
}

func TestLimiterRefill(t *testing.T) {
	p := rlPolicy(t, `{rate_limits: [{rate: 2, per: second, burst: 1, scope: global}]}`)
	l := New(nil, "srv") // a VM without shared data
	c := rlTool("alice", "t")
	if !l.Check(p, c, nil, rlAt(0)).Allowed {
		t.Fatal("first call refused")
	}
	v := l.Check(p, c, nil, rlAt(0.1))
	if v.Allowed || v.RetryAfter < 0.39 || v.RetryAfter > 0.41 || v.RetryAfterSeconds() != 1 {
		t.Fatalf("at 0.1 s: %+v, want refused with 0.4 s to wait", v)
	}
	if !l.Check(p, c, nil, rlAt(0.5)).Allowed {
		t.Error("no token 0.5 s later")
	}
	if l.Check(p, c, nil, rlAt(0.9)).Allowed {
		t.Error("a token 0.4 s after the last")
	}
	// Long idle: full again, burst 1.
	if !l.Check(p, c, nil, rlAt(100)).Allowed || l.Check(p, c, nil, rlAt(100)).Allowed {
		t.Error("after idling: want exactly burst (1) calls")
	}
}

// Scope picks which calls share a bucket (manual 9), across Limiters of
// different VMs.
func TestLimiterScopes(t *testing.T) {
	type call struct {
		principal, tool string
		allowed         bool
	}
	cases := []struct {
		scope string
		calls []call
	}{
		{"principal", []call{{"alice", "a", true}, {"alice", "b", false}, {"bob", "a", true}}},
		{"tool", []call{{"alice", "a", true}, {"bob", "a", false}, {"bob", "b", true}}},
		{"principal_tool", []call{{"alice", "a", true}, {"alice", "b", true}, {"bob", "a", true}, {"alice", "a", false}}},
		{"global", []call{{"alice", "a", true}, {"bob", "b", false}}},
	}
	for _, c := range cases {
		t.Run(c.scope, func(t *testing.T) {
			p := rlPolicy(t, `{rate_limits: [{rate: 1, per: day, burst: 1, scope: `+c.scope+`}]}`)
			store := newRLHost()
			vms := []*Limiter{New(store, "s"), New(store, "s")}
			for i, cl := range c.calls {
				if v := vms[i%2].Check(p, rlTool(cl.principal, cl.tool), nil, rlAt(0)); v.Allowed != cl.allowed {
					t.Errorf("call %d (%s %s): allowed %v, want %v", i, cl.principal, cl.tool, v.Allowed, cl.allowed)
				}
			}
		})
	}
}

// A call takes a token from every covering bucket or from none; a refused
// call reports the first empty bucket in check order.
func TestLimiterAllOrNothing(t *testing.T) {
	p := rlPolicy(t, `
rate_limits:
  - {rate: 1, per: day, burst: 5, scope: global}
  - {rate: 1, per: hour, burst: 1, scope: principal}
`)
	l := New(newRLHost(), "s")
	if !l.Check(p, rlTool("alice", "t"), nil, rlAt(0)).Allowed {
		t.Fatal("first call refused")
	}
	for range 3 {
		v := l.Check(p, rlTool("alice", "t"), nil, rlAt(0))
		if v.Allowed || v.Bucket.Limit != &p.RateLimits[1] {
			t.Fatalf("alice again: %+v, want refused by her principal bucket", v)
		}
	}
	// The global bucket lost only alice's first token: 4 more calls.
	for i := range 4 {
		if v := l.Check(p, rlTool("p"+strconv.Itoa(i), "t"), nil, rlAt(0)); !v.Allowed {
			t.Fatalf("principal %d refused: %+v", i, v)
		}
	}
	// Both buckets empty for alice: the first in check order is reported.
	v := l.Check(p, rlTool("alice", "t"), nil, rlAt(0))
	if v.Allowed || v.Bucket.Limit != &p.RateLimits[0] || v.RetryAfterSeconds() != 86400 {
		t.Errorf("both empty: %+v, want the global bucket, a day", v)
	}
	if v := l.Check(p, rlTool("zed", "t"), nil, rlAt(0)); v.Allowed {
		t.Errorf("a 6th principal passed a global burst of 5")
	}
}

// The exactness the e2e test checks in the .wasm: VMs running in parallel
// over one store let exactly burst calls through, for every scope, and
// with several buckets per call.
func TestLimiterConcurrentExact(t *testing.T) {
	const vms, burst = 4, 25
	limits := map[string]string{
		"principal":      `[{rate: 1, per: day, burst: 25, scope: principal}]`,
		"tool":           `[{rate: 1, per: day, burst: 25, scope: tool}]`,
		"principal_tool": `[{rate: 1, per: day, burst: 25, scope: principal_tool}]`,
		"global":         `[{rate: 1, per: day, burst: 25, scope: global}]`,
		// Every call covered by four buckets; the global one runs out
		// first, the others hold more.
		"all scopes": `[{rate: 1, per: day, burst: 100, scope: principal}, {rate: 1, per: day, burst: 100, scope: tool},
		                {rate: 1, per: day, burst: 100, scope: principal_tool}, {rate: 1, per: day, burst: 25, scope: global}]`,
	}
	for name, lim := range limits {
		{
			t.Run(name, func(t *testing.T) {
				p := rlPolicy(t, `{rate_limits: `+lim+`}`)
				shared := newRLHost()
				var passed atomic.Int64
				var wg sync.WaitGroup
				for range vms {
					l := New(shared, "s") // one per VM
					wg.Add(1)
					go func() {
						defer wg.Done()
						for range 10 * burst / vms {
							if l.Check(p, rlTool("alice", "search"), nil, rlAt(0)).Allowed {
								passed.Add(1)
							}
						}
					}()
				}
				wg.Wait()
				if got := passed.Load(); got != burst {
					t.Errorf("%d of %d calls passed, want exactly %d", got, 10*burst/vms*vms, burst)
				}
			})
		}
	}
}

// A store that refuses a CAS for a missing key (the test double memShared,
// unlike proxy-wasm hosts) still works, one VM at a time.
func TestLimiterOverMemShared(t *testing.T) {
	p := rlPolicy(t, `{rate_limits: [{rate: 1, per: day, burst: 3, scope: global}]}`)
	shared := newMemShared()
	vms := []*Limiter{New(shared, "s"), New(shared, "s")}
	passed := 0
	for i := range 30 {
		if vms[i%2].Check(p, rlTool("a", "t"), nil, rlAt(0)).Allowed {
			passed++
		}
	}
	if passed != 3 {
		t.Errorf("%d calls passed, want 3", passed)
	}
}

// Refill under concurrency matches the rate within one token.
func TestLimiterConcurrentRefill(t *testing.T) {
	p := rlPolicy(t, `{rate_limits: [{rate: 10, per: second, burst: 5, scope: global}]}`)
	shared := newRLHost()
	var passed atomic.Int64
	var wg sync.WaitGroup
	const steps = 200 // 2 s in 10 ms steps
	for range 4 {
		l := New(shared, "s")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range steps {
				for range 3 {
					if l.Check(p, rlTool("a", "t"), nil, rlAt(float64(i)*0.01)).Allowed {
						passed.Add(1)
					}
				}
			}
		}()
	}
	wg.Wait()
	// burst 5 + 10/s over 1.99 s = 24.9: 24 or 25.
	if got := passed.Load(); got < 24 || got > 25 {
		t.Errorf("%d calls passed, want 5 + 10/s * 1.99 s within one token", got)
	}
}

// A VM whose CAS fails re-reads and takes again; a VM that finds a later
// bucket empty gives back what it took, exactly (deterministic
// interleavings of two VMs).
func TestLimiterInterleavings(t *testing.T) {
	t.Run("cas retry", func(t *testing.T) {
		p := rlPolicy(t, `{rate_limits: [{rate: 1, per: day, burst: 2, scope: global}]}`)
		store := newRLHost()
		a, b := &rlView{Store: store}, &rlView{Store: store}
		la, lb := New(a, "s"), New(b, "s")
		c := rlTool("alice", "t")
		la.Check(p, c, nil, rlAt(0)) // the slot exists: 1 token left
		fired := false
		a.onSet = func(string) {
			if !fired {
				fired = true
				if !lb.Check(p, c, nil, rlAt(0)).Allowed {
					t.Error("B refused with a token left")
				}
			}
		}
		// A read 1 token, B took it before A's write: A must be refused.
		if v := la.Check(p, c, nil, rlAt(0)); v.Allowed || v.Contended {
			t.Errorf("A: %+v, want refused (B took the last token)", v)
		}
		a.onSet = nil
		if la.Check(p, c, nil, rlAt(0)).Allowed || lb.Check(p, c, nil, rlAt(0)).Allowed {
			t.Error("a token appeared")
		}
	})
	t.Run("creation race", func(t *testing.T) {
		p := rlPolicy(t, `{rate_limits: [{rate: 1, per: day, burst: 2, scope: global}]}`)
		store := newRLHost()
		a, b := &rlView{Store: store}, &rlView{Store: store}
		la, lb := New(a, "s"), New(b, "s")
		c := rlTool("alice", "t")
		fired := false
		a.onSet = func(string) {
			if !fired {
				fired = true
				lb.Check(p, c, nil, rlAt(0)) // B creates the bucket after A saw it absent
			}
		}
		if !la.Check(p, c, nil, rlAt(0)).Allowed {
			t.Error("A refused with a token left")
		}
		a.onSet = nil
		if la.Check(p, c, nil, rlAt(0)).Allowed {
			t.Error("A's creation overwrote B's: a third token")
		}
	})
	t.Run("refund", func(t *testing.T) {
		// alice's call covers X(alice) and Y; bob's X(bob) and Y.
		p := rlPolicy(t, `{rate_limits: [{rate: 1, per: day, burst: 2, scope: principal}, {rate: 1, per: day, burst: 1, scope: global}]}`)
		store := newRLHost()
		a, b := &rlView{Store: store}, &rlView{Store: store}
		la, lb := New(a, "s"), New(b, "s")
		ySlots := rlSlotKeys(la, p, rlTool("alice", "t"), 1)
		fired := false
		a.onSet = func(key string) {
			if !fired && (key == ySlots[0] || key == ySlots[1]) {
				fired = true
				if !lb.Check(p, rlTool("bob", "t"), nil, rlAt(0)).Allowed {
					t.Error("bob refused")
				}
			}
		}
		v := la.Check(p, rlTool("alice", "t"), nil, rlAt(0))
		if !fired {
			t.Fatal("the interleaving did not happen")
		}
		if v.Allowed || v.Bucket.Limit != &p.RateLimits[1] {
			t.Fatalf("alice: %+v, want refused by the global bucket bob emptied", v)
		}
		a.onSet = nil
		// alice's own bucket got its token back: still 2.
		hs := la.Headroom(p, "alice", nil, rlAt(0))
		if len(hs) != 2 || !hs[0].Known || hs[0].Remaining != 2 {
			t.Errorf("alice's headroom after the refund: %+v, want 2 left", hs)
		}
	})
}

// Buckets are keyed by a hash of the limit's configuration and scope key:
// a reload keeps them; another server.id has its own.
func TestLimiterReloadKeepsBuckets(t *testing.T) {
	store := newRLHost()
	p1 := rlPolicy(t, `{rate_limits: [{rate: 1, per: day, burst: 1, scope: principal}]}`)
	if !New(store, "s").Check(p1, rlTool("alice", "t"), nil, rlAt(0)).Allowed {
		t.Fatal("first call refused")
	}
	p2 := rlPolicy(t, `{name: reloaded, rate_limits: [{rate: 5, tools: [other]}, {rate: 1, per: day, burst: 1, scope: principal}]}`)
	if New(store, "s").Check(p2, rlTool("alice", "t"), nil, rlAt(1)).Allowed {
		t.Error("after a reload the bucket was full again")
	}
	if !New(store, "other-server").Check(p2, rlTool("alice", "t"), nil, rlAt(1)).Allowed {
		t.Error("another server.id shares the bucket")
	}
	p3 := rlPolicy(t, `{rate_limits: [{rate: 1, per: day, burst: 2, scope: principal}]}`)
	if !New(store, "s").Check(p3, rlTool("alice", "t"), nil, rlAt(1)).Allowed {
		t.Error("a changed limit is a new bucket")
	}
}

// Shared data has no delete: the table is bounded, whatever the traffic,
// and running out of slots only ever lets calls through.
func TestLimiterSlotsBounded(t *testing.T) {
	store := newRLHost()
	l := New(store, "s")
	// Buckets that are full again a millisecond after use are forgotten
	// without loss.
	fast := rlPolicy(t, `{rate_limits: [{rate: 1000, per: second, burst: 1, scope: principal}]}`)
	lossy := 0
	for i := range 3 * rateSlots {
		v := l.Check(fast, rlTool("p"+strconv.Itoa(i), "t"), nil, rlAt(float64(i)*0.01))
		if !v.Allowed {
			t.Fatalf("principal %d refused", i)
		}
		lossy += v.LossyEvictions
	}
	if lossy != 0 {
		t.Errorf("%d lossy evictions of buckets that were full", lossy)
	}
	if n := store.Keys("mcp-privacy|s|rl|"); n > rateSlots {
		t.Errorf("%d bucket keys, want at most %d", n, rateSlots)
	}
	// Buckets that never refill: once the table is full, new buckets
	// evict (lossy, counted) and are never refused for want of a slot.
	slow := rlPolicy(t, `{rate_limits: [{rate: 1, per: day, burst: 1, scope: principal}]}`)
	lossy = 0
	for i := range 3 * rateSlots {
		v := l.Check(slow, rlTool("q"+strconv.Itoa(i), "t"), nil, rlAt(1000))
		if !v.Allowed {
			t.Fatalf("principal q%d refused", i)
		}
		lossy += v.LossyEvictions
	}
	if lossy == 0 {
		t.Error("no lossy eviction counted")
	}
	if n := store.Keys("mcp-privacy|s|rl|"); n > rateSlots {
		t.Errorf("%d bucket keys, want at most %d", n, rateSlots)
	}
	// The most recent principal still has its bucket.
	if l.Check(slow, rlTool("q"+strconv.Itoa(3*rateSlots-1), "t"), nil, rlAt(1000)).Allowed {
		t.Error("the newest bucket was lost")
	}
}

// Whatever a slot holds, a check neither panics nor trusts it.
func TestLimiterUnreadableSlots(t *testing.T) {
	p := rlPolicy(t, `{rate_limits: [{rate: 1, per: day, burst: 1, scope: global}]}`)
	store := newRLHost()
	l := New(store, "s")
	keys := rlSlotKeys(l, p, rlTool("a", "t"), 0)
	for _, v := range [][]byte{nil, {1}, {1, 200}, []byte("garbage that is long enough to be read as something........."), {9, 0, 0}} {
		store.Set(keys[0], v, 0)
		store.Set(keys[1], v, 0)
		if !l.Check(p, rlTool("a", "t"), nil, rlAt(0)).Allowed {
			t.Errorf("slot %q: refused", v)
		}
		if l.Check(p, rlTool("a", "t"), nil, rlAt(0)).Allowed {
			t.Errorf("slot %q: the bucket was not kept", v)
		}
	}
	for i := range 64 {
		b := encodeBucket(&p.Buckets(rlTool("a", "t"), nil)[0], policy.BucketState{Tokens: 0.5, Updated: rlT0})
		decodeBucket(b[:i%len(b)]) // truncated values must not panic
	}
}

func TestHeadroom(t *testing.T) {
	p := rlPolicy(t, `
rate_limits:
  - {rate: 1, per: day, burst: 3, scope: principal, tools: ["search*"]}
  - {rate: 1, per: day, burst: 2, scope: tool}
roles:
  ops: {rate_limits: [{rate: 1, per: day, burst: 4, scope: global, kinds: [prompt], tools: ["p?"]}]}
`)
	l := New(nil, "s")
	pr := policy.Principal{ID: "alice", Roles: []string{"ops"}}
	l.Check(p, rlTool("alice", "search_docs"), nil, rlAt(0))
	x := policy.Primitive{Kind: policy.KindPrompt, Name: "p1"}
	l.Check(p, policy.Call{Kind: policy.KindPrompt, Name: "p1", Principal: "bob"}, p.Match(&policy.Principal{ID: "bob", Roles: []string{"ops"}}, &x), rlAt(0))
	hs := l.Headroom(p, pr.ID, p.RulesFor(&pr), rlAt(0))
	got := string(AppendHeadroomJSON(nil, hs))
	want := `[{"path":"rate_limits[0]","limit":"1/day burst 3 per principal","scope":"principal","burst":3,"remaining":2},` +
		`{"path":"rate_limits[1]","limit":"1/day burst 2 per tool","scope":"tool","burst":2,"remaining":null},` +
		`{"path":"roles.ops.rate_limits[0]","limit":"1/day burst 4 per global","scope":"global","burst":4,"remaining":3}]`
	if got != want {
		t.Errorf("headroom\n got %s\nwant %s", got, want)
	}
	var parsed []map[string]any
	if err := json.Unmarshal([]byte(got), &parsed); err != nil {
		t.Error(err)
	}
	// Reading takes nothing.
	if hs2 := l.Headroom(p, pr.ID, p.RulesFor(&pr), rlAt(0)); hs2[0].Remaining != 2 {
		t.Errorf("headroom read twice: %+v", hs2)
	}
}

func BenchmarkLimiterCheck(b *testing.B) {
	p := rlPolicy(b, `{rate_limits: [{rate: 1000000, per: second, scope: principal_tool}]}`)
	c := rlTool("alice", "search")
	for _, s := range []struct {
		name  string
		store func() shareddata.Store
	}{{"local", func() shareddata.Store { return nil }}, {"host", func() shareddata.Store { return newRLHost() }}} {
		b.Run("1bucket/"+s.name, func(b *testing.B) {
			l := New(s.store(), "default")
			b.ReportAllocs()
			for i := range b.N {
				if !l.Check(p, c, nil, rlT0+int64(i)*1000).Allowed {
					b.Fatal("refused")
				}
			}
		})
	}
	p4 := rlPolicy(b, `{rate_limits: [{rate: 1000000, per: second, scope: principal}, {rate: 1000000, per: second, scope: tool},
		{rate: 1000000, per: second, scope: principal_tool}, {rate: 1000000, per: second, scope: global}]}`)
	b.Run("4buckets/host", func(b *testing.B) {
		l := New(newRLHost(), "default")
		b.ReportAllocs()
		for i := range b.N {
			if !l.Check(p4, c, nil, rlT0+int64(i)*1000).Allowed {
				b.Fatal("refused")
			}
		}
	})
	// What policy.Buckets (bucket identities: SHA-256) costs of a check.
	b.Run("policy.Buckets/1bucket", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			p.Buckets(c, nil)
		}
	})
	b.Run("nolimits", func(b *testing.B) {
		l := New(nil, "default")
		p0 := rlPolicy(b, `{}`)
		b.ReportAllocs()
		for range b.N {
			l.Check(p0, c, nil, rlT0)
		}
	})
}
