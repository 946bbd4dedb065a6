package wasmhost

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/wasmtest"
)

// logSink collects what the host logs, for assertions.
type logSink struct {
	mu    sync.Mutex
	lines []LogLine
}

func (l *logSink) log(level LogLevel, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, LogLine{level, msg})
}

func (l *logSink) contains(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, x := range l.lines {
		if strings.Contains(x.Msg, s) {
			return true
		}
	}
	return false
}

func (l *logSink) all() []LogLine {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]LogLine(nil), l.lines...)
}

// testHost starts the scripted test plugin (Wasm defaults to it).
func testHost(t *testing.T, opts Options) (*Host, *logSink) {
	t.Helper()
	if opts.Wasm == nil {
		opts.Wasm = wasmtest.TestPlugin(t)
	}
	sink := &logSink{}
	if opts.Logger == nil {
		opts.Logger = sink.log
	}
	h, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h, sink
}

// req builds request headers with the x-test directives.
func req(method, path, directives string, extra ...string) Headers {
	h := H(":method", method, ":path", path, ":authority", "example.test", ":scheme", "http")
	if directives != "" {
		h.Add("x-test", directives)
	}
	return append(h, H(extra...)...)
}

func types(evs []Event) []EventType {
	out := make([]EventType, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

func expectStatus(t *testing.T, what string, got, want FilterStatus) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: %s, want %s", what, got, want)
	}
}
