package wasmhost

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/wasmtest"
)

// run sends one GET with the directives through a new stream on vm.
func run(vm *VM, directives string) {
	s := vm.NewStream()
	s.RequestHeaders(req("GET", "/", directives), true)
	s.Close()
}

// The Go runtime reaches WASI poll_oneoff only once its netpoller is
// initialized, which happens the first time a runtime timer is armed
// (time.Sleep, time.AfterFunc, tickers, context deadlines, the GC's
// background scavenger going to sleep). From then on every stop-the-world
// (two per GC) calls poll_oneoff; on a host answering ENOSYS the runtime
// throws "poll_oneoff failed" and the VM traps.
func TestPollOneoffGC(t *testing.T) {
	for _, mode := range []PollOneoff{PollOneoffNoEvents, PollOneoffENOSYS} {
		t.Run(mode.String(), func(t *testing.T) {
			h, sink := testHost(t, Options{PollOneoff: mode, SkipCanary: true})
			vm := h.Worker(0)
			// GC before any timer: no poll_oneoff at all.
			for i := 0; i < 3; i++ {
				run(vm, "gc,gc-alloc=8")
			}
			if vm.Err() != nil || vm.PollOneoffCalls() != 0 {
				t.Fatalf("GC without timers: err %v, %d poll_oneoff calls", vm.Err(), vm.PollOneoffCalls())
			}
			run(vm, "timer") // arms (and stops) a runtime timer: netpoller on
			if vm.Err() != nil || vm.PollOneoffCalls() != 0 {
				t.Fatalf("arming a timer: err %v, %d calls", vm.Err(), vm.PollOneoffCalls())
			}
			run(vm, "gc")
			switch mode {
			case PollOneoffNoEvents:
				if vm.Err() != nil || vm.PollOneoffCalls() == 0 {
					t.Fatalf("GC after a timer: err %v, %d calls", vm.Err(), vm.PollOneoffCalls())
				}
			case PollOneoffENOSYS:
				err := vm.Err()
				if err == nil || !strings.Contains(err.Error(), "unreachable") ||
					!strings.Contains(err.Error(), "runtime.netpoll") {
					t.Fatalf("GC after a timer on an ENOSYS host: %v", err)
				}
				for _, want := range []string{"errno= 52", "fatal error: poll_oneoff failed", "runtime.startTheWorldWithSema"} {
					if !sink.contains(want) {
						t.Errorf("the guest did not log %q", want)
					}
				}
				t.Logf("trap: %v", err)
			}
		})
	}
}

func TestPollOneoffSleep(t *testing.T) {
	for _, mode := range []PollOneoff{PollOneoffNoEvents, PollOneoffENOSYS} {
		t.Run(mode.String(), func(t *testing.T) {
			h, sink := testHost(t, Options{PollOneoff: mode, SkipCanary: true})
			vm := h.Worker(0)
			// time.Sleep(1ms) traps at once on an ENOSYS host if the
			// scheduler goes idle before the timer is due (usually); the
			// GC after it traps in any case, the timer having started the
			// netpoller.
			run(vm, "sleep")
			run(vm, "gc")
			if mode == PollOneoffENOSYS {
				if vm.Err() == nil || !sink.contains("fatal error: poll_oneoff failed") {
					t.Fatalf("time.Sleep on an ENOSYS host: %v", vm.Err())
				}
				return
			}
			// Current hosts never sleep: the guest spins on poll_oneoff
			// until the timer is due.
			if vm.Err() != nil || !sink.contains("time.Sleep returned") || vm.PollOneoffCalls() == 0 {
				t.Fatalf("time.Sleep: err %v, %d calls", vm.Err(), vm.PollOneoffCalls())
			}
		})
	}
}

// The real module under an ENOSYS host: a lot of garbage collection, driven
// both by the host's allocations (what proxy_get_buffer_bytes and friends
// do) and by MCP-shaped traffic. It survives as long as nothing arms a
// runtime timer.
func TestPluginSurvivesGCOnENOSYSHost(t *testing.T) {
	h, _ := testHost(t, Options{
		Wasm: wasmtest.Plugin(t), PluginConfig: []byte(`{"policy":"standard"}`),
		PollOneoff: PollOneoffENOSYS, AllowOnHeadersStopIteration: true, BufferLimitBytes: -1,
	})
	vm := h.Worker(0)
	big := strings.Repeat("a", 64<<10)
	for i := 0; i < 400; i++ {
		if _, err := vm.Allocate(1 << 20); err != nil {
			t.Fatalf("allocation %d: %v", i, err)
		}
		if i%4 != 0 {
			continue
		}
		s := vm.NewStream()
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"s":%q}}}`, i, big)
		s.RequestHeaders(H(":method", "POST", ":path", "/mcp", ":authority", "x", "content-type", "application/json",
			"accept", "application/json, text/event-stream"), false)
		s.RequestBody([]byte(body[:len(body)/2]), false)
		s.RequestBody([]byte(body[len(body)/2:]), true)
		s.ResponseHeaders(H(":status", "200", "content-type", "application/json"), false)
		s.ResponseBody([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}`, i, big)), true)
		s.Close()
		if err := vm.Err(); err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
	}
	// 400 MiB allocated (plus the traffic) in a memory that stayed far
	// smaller: the collector ran, and never called poll_oneoff.
	if mem := vm.MemorySize(); mem > 256<<20 {
		t.Fatalf("memory grew to %d MiB: no GC?", mem>>20)
	}
	if n := vm.PollOneoffCalls(); n != 0 {
		t.Fatalf("the plugin called poll_oneoff %d times", n)
	}
	t.Logf("memory %d MiB after 400 MiB of allocations and 100 streams", vm.MemorySize()>>20)
}
