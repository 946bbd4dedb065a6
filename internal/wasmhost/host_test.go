package wasmhost

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/wasmtest"
)

// The real plugin (build/mcp-privacy.wasm), two workers.
func TestPluginStartsOnWorkers(t *testing.T) {
	h, sink := testHost(t, Options{Wasm: wasmtest.Plugin(t), PluginConfig: []byte(`{"policy":"standard"}`), Workers: 2})
	if n := len(h.Workers()); n != 2 {
		t.Fatalf("%d workers", n)
	}
	for _, vm := range h.Workers() {
		if vm.Err() != nil || vm.MemorySize() == 0 {
			t.Fatalf("worker %d: err %v, memory %d", vm.Index(), vm.Err(), vm.MemorySize())
		}
	}
	// Every host call the plugin imports is one the host implements: a
	// stub would answer it without doing what Envoy does.
	if u := h.Unimplemented(); len(u) != 0 {
		t.Errorf("imports answered by stubs: %v", u)
	}
	// A request off the gateway paths passes untouched, on each worker.
	for i := 0; i < 2; i++ {
		s := h.NewStream()
		in := req("GET", "/healthz", "", "accept", "*/*")
		s.RequestHeaders(in, true)
		s.ResponseHeaders(H(":status", "200", "content-type", "text/plain"), false)
		s.ResponseBody([]byte("ok"), true)
		s.Close()
		up, down := s.Upstream(), s.Downstream()
		if fmt.Sprint(up.Headers) != fmt.Sprint(in) || !up.EndOfStream {
			t.Fatalf("upstream %v, want %v", up.Headers, in)
		}
		if down.Status() != 200 || string(down.Body) != "ok" || !down.EndOfStream {
			t.Fatalf("downstream %+v", down)
		}
	}
	// The canary and both workers configured the plugin (it logs one line
	// per configuration).
	n := 0
	for _, l := range sink.all() {
		if strings.Contains(l.Msg, `policy "standard"`) {
			n++
		}
	}
	if n != 3 {
		t.Errorf("configure log lines: %d, want 3 (the canary and 2 workers)", n)
	}
}

func TestPluginRejectsInvalidConfig(t *testing.T) {
	_, err := New(context.Background(), Options{Wasm: wasmtest.Plugin(t), PluginConfig: []byte(`{"policy":{"bogus":1}}`), Workers: 2})
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Stage != "configure" {
		t.Fatalf("err = %v, want a ConfigError from configure", err)
	}
	if !strings.Contains(err.Error(), "bogus") {
		t.Fatalf("the plugin's explanation is missing: %v", err)
	}
}

func TestTestPluginConfigRejectAndPanic(t *testing.T) {
	wasm := wasmtest.TestPlugin(t)
	_, err := New(context.Background(), Options{Wasm: wasm, PluginConfig: []byte("reject")})
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Err != nil || !strings.Contains(err.Error(), "rejecting the configuration") {
		t.Fatalf("reject: %v", err)
	}
	_, err = New(context.Background(), Options{Wasm: wasm, PluginConfig: []byte("panic")})
	if !errors.As(err, &ce) || ce.Err == nil || !strings.Contains(err.Error(), "unreachable") ||
		!strings.Contains(err.Error(), "configuration panic") {
		t.Fatalf("panic: %v", err)
	}
}

// proxy-wasm hosts refuse host calls other than proxy_log while
// _initialize runs (Go's init functions).
func TestHostCallsDuringInitialize(t *testing.T) {
	wasm := wasmtest.TestPlugin(t)
	h, sink := testHost(t, Options{Wasm: wasm, Env: map[string]string{"TESTPLUGIN_INIT_LOG": "1"}})
	if !sink.contains("logging from init") || h.Worker(0).Err() != nil {
		t.Fatal("proxy_log during _initialize failed")
	}
	_, err := New(context.Background(), Options{Wasm: wasm, Env: map[string]string{"TESTPLUGIN_INIT_HOSTCALL": "1"}})
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Stage != "initialize" ||
		!strings.Contains(err.Error(), "env.proxy_set_tick_period_milliseconds is not allowed while _initialize runs") {
		t.Fatalf("a host call in init: %v", err)
	}
}

func TestTrapFailsClosed(t *testing.T) {
	h, sink := testHost(t, Options{Workers: 2})
	vm := h.Worker(0)
	s := vm.NewStream()
	expectStatus(t, "trapping headers", s.RequestHeaders(req("GET", "/", "hdr-panic"), true), StopAllIterationAndWatermark)
	if vm.Err() == nil || !strings.Contains(vm.Err().Error(), "unreachable") {
		t.Fatalf("VM error %v", vm.Err())
	}
	if !sink.contains("panic: testplugin: request headers panic") {
		t.Fatal("the guest's panic message was not logged")
	}
	d := s.Downstream()
	if d.Status() != 503 || !d.EndOfStream || !s.Failed() || s.Upstream().HeadersSent {
		t.Fatalf("failed stream: %+v failed=%v", d, s.Failed())
	}
	s.Close()
	// Later streams on the failed VM are refused without calling it.
	s2 := vm.NewStream()
	s2.RequestHeaders(req("GET", "/", ""), true)
	if s2.Downstream().Status() != 503 {
		t.Fatalf("second stream: %+v", s2.Downstream())
	}
	// The other worker is unaffected.
	s3 := h.Worker(1).NewStream()
	s3.RequestHeaders(req("GET", "/", ""), true)
	if !s3.Upstream().HeadersSent {
		t.Fatal("the healthy worker refused a stream")
	}

	// A trap once response headers went downstream resets the stream.
	r := h.Worker(1).NewStream()
	r.RequestHeaders(req("GET", "/", "resp-panic"), true)
	r.ResponseHeaders(H(":status", "200"), false)
	r.ResponseBody([]byte("x"), false)
	if d := r.Downstream(); !d.Reset || d.Status() != 200 {
		t.Fatalf("trap mid-response: %+v", d)
	}
}

func TestFailOpen(t *testing.T) {
	h, _ := testHost(t, Options{FailurePolicy: FailOpen})
	s := h.NewStream()
	expectStatus(t, "fail open", s.RequestHeaders(req("GET", "/", "hdr-panic"), true), Continue)
	if !s.Upstream().HeadersSent || s.Failed() {
		t.Fatal("fail open did not pass the request")
	}
	s.ResponseHeaders(H(":status", "200"), true)
	if d := s.Downstream(); d.Status() != 200 || d.Headers.Value("x-plugin-saw-response") != "" {
		t.Fatalf("fail open response: %+v", d)
	}
}

func TestPropertiesEnvClockLogs(t *testing.T) {
	t.Setenv("WASMHOST_TEST_HOST_VAR", "from-host")
	clock := time.Date(2001, 2, 3, 4, 5, 6, 7, time.UTC)
	sink := &logSink{}
	h, _ := testHost(t, Options{
		PluginName: "pname", RootID: "root", VMID: "vmid",
		HostEnvKeys: []string{"WASMHOST_TEST_HOST_VAR", "WASMHOST_TEST_UNSET"},
		Env:         map[string]string{"LITERAL": "lit"},
		Clock:       func() time.Time { return clock },
		Properties:  map[string][]byte{PropertyPath("node", "id"): []byte("node-1")},
		Logger:      sink.log,
		LogLevel:    LogWarn,
	})
	prop := func(path string, set ...[]string) string {
		s := h.NewStream()
		if len(set) > 0 {
			s.SetProperty(set[0], []byte("per-stream"))
		}
		s.RequestHeaders(req("GET", "/p?q=1", "prop="+path), true)
		s.ResponseHeaders(H(":status", "200"), true)
		return s.Downstream().Headers.Value("x-prop")
	}
	for path, want := range map[string]string{
		"plugin_name":    `"pname" <nil>`,
		"plugin_root_id": `"root" <nil>`,
		"plugin_vm_id":   `"vmid" <nil>`,
		"request/path":   `"/p?q=1" <nil>`,
		"request/host":   `"example.test" <nil>`,
		"node/id":        `"node-1" <nil>`,
		"no/such":        `"" error status returned by host: not found`,
	} {
		if got := prop(path); got != want {
			t.Errorf("property %s = %s, want %s", path, got, want)
		}
	}
	if got := prop("source/address", []string{"source", "address"}); got != `"per-stream" <nil>` {
		t.Errorf("per-stream property = %s", got)
	}

	s := h.NewStream()
	s.RequestHeaders(req("GET", "/", "env=WASMHOST_TEST_HOST_VAR,time,setprop,log,stdout"), true)
	s.ResponseHeaders(H(":status", "200"), true)
	d := s.Downstream().Headers
	if d.Value("x-env") != "from-host" {
		t.Errorf("host env key: %q", d.Value("x-env"))
	}
	if d.Value("x-time") != fmt.Sprint(clock.UnixNano()) {
		t.Errorf("guest time.Now = %s, want %d", d.Value("x-time"), clock.UnixNano())
	}
	if d.Value("x-setprop") != `"stored" <nil>` {
		t.Errorf("set_property round trip: %s", d.Value("x-setprop"))
	}
	if v, ok := s.FilterState("testplugin_state"); !ok || string(v) != "stored" {
		t.Errorf("FilterState = %q %v", v, ok)
	}
	s2 := h.NewStream()
	s2.RequestHeaders(req("GET", "/", "env=LITERAL"), true)
	s2.ResponseHeaders(H(":status", "200"), true)
	if v := s2.Downstream().Headers.Value("x-env"); v != "lit" {
		t.Errorf("key_values env: %q", v)
	}

	// LogLevel warn: the Logger gets warn and up; VM.Logs keeps everything.
	for _, l := range sink.all() {
		if l.Level < LogWarn {
			t.Errorf("below the log level: %+v", l)
		}
	}
	for _, want := range []string{"warn line", "error line", "critical line", "hello stderr"} {
		if !sink.contains(want) {
			t.Errorf("Logger missed %q", want)
		}
	}
	logs := fmt.Sprint(s.VM().Logs())
	for _, want := range []string{"{trace trace line}", "{debug debug line}", "{info info line}", "{info hello stdout}", "{error hello stderr}"} {
		if !strings.Contains(logs, want) {
			t.Errorf("VM.Logs missed %s", want)
		}
	}
}

func TestMetricsAndSharedDataAcrossWorkers(t *testing.T) {
	h, _ := testHost(t, Options{Workers: 3, VMID: "shared"})
	for i := 0; i < 6; i++ {
		s := h.NewStream()
		s.RequestHeaders(req("GET", "/", "metric,shared=key"), true)
		s.ResponseHeaders(H(":status", "200"), true)
		if i == 5 && s.Downstream().Headers.Value("x-requests") != "6" {
			t.Fatalf("counter seen by the guest: %s", s.Downstream().Headers.Value("x-requests"))
		}
		s.Close()
	}
	m := h.Metrics()
	if m["requests"].Value != 6 || m["inflight"].Value != 0 || m["sizes"].Count != 6 || m["sizes"].Sum != 42 {
		t.Fatalf("metrics %+v", m)
	}
	v, _, st := h.SharedData().Get("key")
	if st != StatusOK || string(v) != "xxxxxx" {
		t.Fatalf("shared data %q %s", v, st)
	}
	if _, _, st := h.Process().SharedData("").Get("key"); st != StatusNotFound {
		t.Fatal("shared data leaked to another vm_id")
	}
}

func TestConcurrentStreams(t *testing.T) {
	h, _ := testHost(t, Options{Workers: 4})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s := h.NewStream()
			defer s.Close()
			s.RequestHeaders(req("POST", "/", "body-buffer,resp-body-upper,metric"), false)
			body := fmt.Sprintf("req-%d", i)
			s.RequestBody([]byte(body[:3]), false)
			s.RequestBody([]byte(body[3:]), true)
			s.ResponseHeaders(H(":status", "200"), false)
			s.ResponseBody([]byte(body), true)
			if up, down := s.Upstream(), s.Downstream(); string(up.Body) != strings.ToUpper(body) || string(down.Body) != strings.ToUpper(body) {
				errs <- fmt.Errorf("stream %d: up %q down %q", i, up.Body, down.Body)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := h.Metrics()["requests"].Value; got != 64 {
		t.Fatalf("requests = %d", got)
	}
}
