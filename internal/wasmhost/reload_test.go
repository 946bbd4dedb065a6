package wasmhost

import (
	"sync"
	"testing"
	"time"
)

// simClock is a settable clock for Options.Clock.
type simClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *simClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *simClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// FailReload as Envoy does it (reload.go): the trapping stream and the
// streams of the failed instance fail closed; a new stream reloads the VM
// once the back-off since its last load has passed ([base, 1.5 base)),
// and fails closed before; shared data survives.
func TestFailReload(t *testing.T) {
	for _, c := range []struct {
		name    string
		backoff time.Duration // Options.ReloadBackoff
		base    time.Duration // the interval that applies
	}{
		{"default 1s", 0, time.Second},
		{"configured 5s", 5 * time.Second, 5 * time.Second},
		{"none", -1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			clock := &simClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
			h, sink := testHost(t, Options{FailurePolicy: FailReload, ReloadBackoff: c.backoff, Clock: clock.Now, SkipCanary: true})
			h.SharedData().Set("kept", []byte("before the trap"), 0)
			vm := h.Worker(0)
			old := vm.NewStream()
			if st := old.RequestHeaders(req("GET", "/", "hdr-panic"), true); st != StopAllIterationAndWatermark || old.Downstream().Status() != 503 {
				t.Fatalf("trapping stream: %s %+v", st, old.Downstream())
			}
			if vm.Err() == nil {
				t.Fatal("no trap")
			}
			if c.base > 0 {
				// Within the back-off, counted from the VM's load: no
				// reload, the new stream fails closed.
				clock.advance(c.base - time.Millisecond)
				early := vm.NewStream()
				early.RequestHeaders(req("GET", "/", ""), true)
				if vm.Err() == nil || early.Upstream().HeadersSent || early.Downstream().Status() != 503 {
					t.Fatalf("reloaded within the back-off: err %v, upstream %v, downstream %+v", vm.Err(), early.Upstream().HeadersSent, early.Downstream())
				}
				if r := vm.Reloads(); r.Backoff != 1 || r.Success != 0 {
					t.Fatalf("reload stats %+v", r)
				}
				clock.advance(c.base / 2) // past the longest jittered interval
			}
			fresh := vm.NewStream()
			if vm.Err() != nil {
				t.Fatalf("not reloaded: %v", vm.Err())
			}
			fresh.RequestHeaders(req("GET", "/", ""), true)
			if !fresh.Upstream().HeadersSent {
				t.Fatal("reloaded VM did not pass the stream")
			}
			if r := vm.Reloads(); r.Success != 1 || r.Failure != 0 {
				t.Fatalf("reload stats %+v", r)
			}
			if !sink.contains("failed VM reloaded") {
				t.Error("the reload was not logged")
			}
			if v, _, st := h.SharedData().Get("kept"); st != StatusOK || string(v) != "before the trap" {
				t.Errorf("shared data after the reload: %q %v", v, st)
			}
			if expectStatus(t, "orphaned stream", old.ResponseHeaders(H(":status", "200"), true), Skipped); old.Downstream().Status() != 503 {
				t.Fatalf("stream of the replaced instance: %+v", old.Downstream())
			}
			// A second trap: the back-off counts from the reload.
			again := vm.NewStream()
			again.RequestHeaders(req("GET", "/", "hdr-panic"), true)
			if vm.Err() == nil {
				t.Fatal("no second trap")
			}
			if c.base > 0 {
				vm.NewStream().RequestHeaders(req("GET", "/", ""), true)
				if vm.Err() == nil {
					t.Fatal("reloaded at once after a reload")
				}
				clock.advance(c.base * 3 / 2)
			}
			vm.NewStream()
			if vm.Err() != nil || vm.Reloads().Success != 2 {
				t.Fatalf("second reload: %v %+v", vm.Err(), vm.Reloads())
			}
		})
	}
}

// FailClosed and FailOpen never reload.
func TestNoReloadWithoutFailReload(t *testing.T) {
	for _, p := range []FailurePolicy{FailClosed, FailOpen} {
		clock := &simClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
		h, _ := testHost(t, Options{FailurePolicy: p, Clock: clock.Now, SkipCanary: true})
		vm := h.Worker(0)
		vm.NewStream().RequestHeaders(req("GET", "/", "hdr-panic"), true)
		clock.advance(time.Hour)
		vm.NewStream()
		if vm.Err() == nil || vm.Reloads() != (ReloadStats{}) {
			t.Errorf("policy %d: reloaded: %v %+v", p, vm.Err(), vm.Reloads())
		}
	}
}
