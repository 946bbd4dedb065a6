package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/wasmhost"
	"github.com/cloudg/mcp-privacy/internal/wasmtest"
)

// Rate limits of the compiled plugin under the Envoy-like host (manual 9):
// four worker VMs driven in parallel share every bucket through shared
// data, exactly. The host's clock is fixed (no refill) or stepped. Helpers
// are prefixed rl.

// rlHost starts the plugin with workers worker VMs, one rate limit, and a
// clock the test controls (Unix ns).
func rlHost(t *testing.T, limit string, workers int, clock *atomic.Int64) *wasmhost.Host {
	t.Helper()
	config := `{"policy": {"name": "rl", "rate_limits": [` + limit + `]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]}}`
	h, err := wasmhost.New(context.Background(), wasmhost.Options{
		Wasm: wasmtest.Plugin(t), PluginConfig: []byte(config), Workers: workers,
		Clock: func() time.Time { return time.Unix(0, clock.Load()) },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

// rlOutcome is what became of one call.
type rlOutcome struct {
	passed bool
	// For a refusal: the JSON-RPC error and the Retry-After header.
	code       int
	message    string
	data       map[string]any
	retryAfter string
	status     uint32
}

// rlCall sends one tools/call through a stream on vm.
func rlCall(t *testing.T, vm *wasmhost.VM, id int, principal, tool string) rlOutcome {
	s := vm.NewStream()
	defer s.Close()
	s.RequestHeaders(wasmhost.H(":method", "POST", ":path", "/mcp", ":authority", "mcp.test", ":scheme", "http",
		"content-type", "application/json", "accept", "application/json, text/event-stream",
		"x-mcp-principal", principal), false)
	body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
	s.RequestBody([]byte(body), true)
	r := s.LocalReply()
	if r == nil {
		if up := s.Upstream(); !up.EndOfStream || !bytes.Contains(up.Body, []byte(`"`+tool+`"`)) {
			t.Errorf("call %d neither answered nor forwarded: %+v", id, up)
		}
		return rlOutcome{passed: true}
	}
	var m struct {
		Error struct {
			Code    int            `json:"code"`
			Message string         `json:"message"`
			Data    map[string]any `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Errorf("call %d: reply %s: %v", id, r.Body, err)
	}
	return rlOutcome{code: m.Error.Code, message: m.Error.Message, data: m.Error.Data,
		retryAfter: r.Headers.Value("retry-after"), status: r.Status}
}

// A bucket of burst N that does not refill lets exactly N calls through
// out of 10·N sent by four worker VMs at once, for every scope; every
// other call gets -32029 with its data and a Retry-After header.
func TestRateLimitExactAcrossWorkers(t *testing.T) {
	const workers, burst = 4, 20
	cases := []struct {
		scope string
		// who and what call number i of worker w names: everything the
		// scope does not key on varies.
		call func(w, i int) (principal, tool string)
	}{
		{"principal", func(w, i int) (string, string) { return "alice", "tool" + strconv.Itoa((w+i)%3) }},
		{"tool", func(w, i int) (string, string) { return "p" + strconv.Itoa((w+i)%5), "search" }},
		{"principal_tool", func(w, i int) (string, string) { return "alice", "search" }},
		{"global", func(w, i int) (string, string) { return "p" + strconv.Itoa(w), "tool" + strconv.Itoa(i%4) }},
	}
	for _, c := range cases {
		t.Run(c.scope, func(t *testing.T) {
			var clock atomic.Int64
			clock.Store(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC).UnixNano())
			limit := `{"rate": 1, "per": "day", "burst": ` + strconv.Itoa(burst) + `, "scope": "` + c.scope + `"}`
			h := rlHost(t, limit, workers, &clock)
			var passed atomic.Int64
			var wg sync.WaitGroup
			var mu sync.Mutex
			var refusals []rlOutcome
			for w := range workers {
				vm := h.Worker(w)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 10 * burst / workers {
						principal, tool := c.call(w, i)
						o := rlCall(t, vm, w*1000+i, principal, tool)
						if o.passed {
							passed.Add(1)
							continue
						}
						mu.Lock()
						refusals = append(refusals, o)
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			for _, vm := range h.Workers() {
				if err := vm.Err(); err != nil {
					t.Fatalf("worker %d failed: %v", vm.Index(), err)
				}
			}
			if got := passed.Load(); got != burst {
				t.Errorf("%d of %d calls passed, want exactly %d", got, 10*burst, burst)
			}
			wantLimit := "rate_limits[0]: 1/day burst " + strconv.Itoa(burst) + " per " + c.scope
			for _, o := range refusals {
				if o.status != 200 || o.code != -32029 || o.message != "Rate limit exceeded" ||
					o.data["policy"] != "rl" || o.data["limit"] != wantLimit || o.data["retry_after"] != float64(86400) ||
					o.retryAfter != "86400" || len(o.data) != 3 {
					t.Errorf("refusal: %+v, want HTTP 200, -32029 {policy: rl, limit: %q, retry_after: 86400}, Retry-After 86400", o, wantLimit)
					break
				}
			}
			// The counters (docs/METRICS.md), summed over the worker VMs.
			m := h.Metrics()
			want := map[string]int64{
				"mcp_privacy.requests.method.tools_call.decision.allowed":      burst,
				"mcp_privacy.requests.method.tools_call.decision.rate_limited": 9 * burst,
				"mcp_privacy.rate_limited.scope." + c.scope:                    9 * burst,
			}
			for name, v := range want {
				if got, ok := m[name]; !ok || got.Value != v {
					t.Errorf("metric %s = %d (defined: %v), want %d", name, got.Value, ok, v)
				}
			}
		})
	}
}

// Refill over time matches the configured rate within one token: the
// host's clock advances 100 ms per round while four workers ask for more
// than the bucket gets.
func TestRateLimitRefillAcrossWorkers(t *testing.T) {
	const workers, rounds = 4, 40
	for _, scope := range []string{"global", "principal"} {
		t.Run(scope, func(t *testing.T) {
			var clock atomic.Int64
			t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC).UnixNano()
			clock.Store(t0)
			h := rlHost(t, `{"rate": 10, "per": "second", "burst": 5, "scope": "`+scope+`"}`, workers, &clock)
			passed := 0
			for r := range rounds {
				clock.Store(t0 + int64(r)*int64(100*time.Millisecond))
				var n atomic.Int64
				var wg sync.WaitGroup
				for w := range workers {
					vm := h.Worker(w)
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := range 2 {
							if rlCall(t, vm, r*100+w*10+i, "alice", "search").passed {
								n.Add(1)
							}
						}
					}()
				}
				wg.Wait()
				passed += int(n.Load())
			}
			// burst 5, then 10 per second over (rounds-1) * 100 ms.
			want := 5 + 10*float64(rounds-1)*0.1
			if d := float64(passed) - want; d < -1 || d > 1 {
				t.Errorf("%d calls passed over %.1f s, want %.0f within one token", passed, float64(rounds-1)*0.1, want)
			}
		})
	}
}

// The plugin reads the time as the host's: under a simulated clock that
// stands still, real time passing refills nothing. Regression: the
// plugin derives the wall time from the monotonic clock between reads of
// the wall clock, and the harness's monotonic clock ran in real time under
// a custom Clock, so a slow run refilled buckets the test had not
// advanced (TestRateLimitRefillAcrossWorkers passed 46-49 calls, not 44).
func TestRateLimitFollowsHostClockNotRealTime(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	// 10 per second: 300 ms of real time would refill three tokens.
	h := rlHost(t, `{"rate": 10, "per": "second", "burst": 1, "scope": "global"}`, 1, &clock)
	vm := h.Worker(0)
	if !rlCall(t, vm, 1, "alice", "search").passed {
		t.Fatal("the first call (the burst) was refused")
	}
	time.Sleep(300 * time.Millisecond)
	if rlCall(t, vm, 2, "alice", "search").passed {
		t.Fatal("a call passed with the host clock unchanged: real time refilled the bucket")
	}
	clock.Add(int64(150 * time.Millisecond))
	if !rlCall(t, vm, 3, "alice", "search").passed {
		t.Fatal("a call was refused after the host clock moved one and a half tokens' time")
	}
}
