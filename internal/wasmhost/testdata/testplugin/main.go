// Command testplugin is a proxy-wasm plugin scripted by its requests, used
// to exercise the wasmhost harness (internal/wasmhost). It is built like the real
// plugin (standard Go, wasip1, c-shared, the patched SDK; see
// internal/wasmtest) and knows nothing about MCP.
//
// The request header x-test holds comma-separated directives (name or
// name=value); see the switch statements below. The plugin configuration
// may contain "reject" (proxy_on_configure fails), "panic" (it traps) and
// "tick" (a 1 s tick period).
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm"
	"github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm/types"
)

func main() {}

func init() {
	proxywasm.SetVMContext(&vmContext{})
	// Host calls during _initialize: proxy_log is allowed, others are not.
	if os.Getenv("TESTPLUGIN_INIT_LOG") != "" {
		proxywasm.LogInfo("testplugin: logging from init")
	}
	if os.Getenv("TESTPLUGIN_INIT_HOSTCALL") != "" {
		proxywasm.SetTickPeriodMilliSeconds(1000)
	}
}

type vmContext struct{ types.DefaultVMContext }

func (*vmContext) NewPluginContext(uint32) types.PluginContext { return &pluginContext{} }

var (
	waitingQueue []uint32
	waitingTick  []uint32
	requests     proxywasm.MetricCounter
	inflight     proxywasm.MetricGauge
	sizes        proxywasm.MetricHistogram
	ticks        proxywasm.MetricCounter
	garbage      [][]byte
)

type pluginContext struct {
	types.DefaultPluginContext
}

func (p *pluginContext) OnPluginStart(int) types.OnPluginStartStatus {
	cfg, _ := proxywasm.GetPluginConfiguration()
	c := string(cfg)
	proxywasm.LogInfof("testplugin: configuration %q", c)
	if strings.Contains(c, "reject") {
		proxywasm.LogError("testplugin: rejecting the configuration")
		return types.OnPluginStartStatusFailed
	}
	if strings.Contains(c, "panic") {
		panic("testplugin: configuration panic")
	}
	if _, err := proxywasm.RegisterSharedQueue("q"); err != nil {
		proxywasm.LogErrorf("register queue: %v", err)
	}
	if strings.Contains(c, "tick") {
		proxywasm.SetTickPeriodMilliSeconds(1000)
	}
	requests = proxywasm.DefineCounterMetric("requests")
	inflight = proxywasm.DefineGaugeMetric("inflight")
	sizes = proxywasm.DefineHistogramMetric("sizes")
	ticks = proxywasm.DefineCounterMetric("ticks")
	return types.OnPluginStartStatusOK
}

func resume(ids *[]uint32) {
	for _, id := range *ids {
		if err := proxywasm.SetEffectiveContext(id); err != nil {
			proxywasm.LogErrorf("set effective context %d: %v", id, err)
			continue
		}
		if err := proxywasm.ResumeHttpRequest(); err != nil {
			proxywasm.LogErrorf("resume %d: %v", id, err)
		}
	}
	*ids = nil
}

func (p *pluginContext) OnQueueReady(id uint32) {
	for {
		v, err := proxywasm.DequeueSharedQueue(id)
		if err != nil {
			break
		}
		proxywasm.LogInfof("testplugin: queue item %s", v)
	}
	resume(&waitingQueue)
}

func (p *pluginContext) OnTick() {
	ticks.Increment(1)
	resume(&waitingTick)
}

func (p *pluginContext) NewHttpContext(id uint32) types.HttpContext {
	return &httpContext{id: id, dirs: map[string]string{}}
}

type httpContext struct {
	types.DefaultHttpContext
	id        uint32
	dirs      map[string]string
	bodySizes []string
	respBody  int
	replied   bool
	// The last body callback's size and every body callback's
	// end_of_stream, per direction, for the trailers directives.
	reqSize, respSize int
	reqEOS, respEOS   []string
}

// trailersBody is the trailers-body and resp-trailers-body directive: the
// body the host still holds (size bytes) is read and replaced by it
// wrapped in open/close, and the trailers get what the callbacks saw.
func trailersBody(size int, eos []string, get func(int, int) ([]byte, error), set func([]byte) error,
	add func(string, string) error, open, close string) {
	b, err := get(0, size)
	add("x-body-read", fmt.Sprintf("%q %v", b, err))
	add("x-body-set", fmt.Sprint(set([]byte(open+string(b)+close))))
	add("x-body-eos", strings.Join(eos, " "))
}

func (h *httpContext) has(name string) bool { _, ok := h.dirs[name]; return ok }

func (h *httpContext) OnHttpRequestHeaders(n int, eos bool) types.Action {
	hs, err := proxywasm.GetHttpRequestHeaders()
	if err != nil {
		proxywasm.LogErrorf("get request headers: %v", err)
	}
	for _, kv := range hs {
		if kv[0] != "x-test" {
			continue
		}
		for _, d := range strings.Split(kv[1], ",") {
			d = strings.TrimSpace(d)
			name, value, _ := strings.Cut(d, "=")
			h.dirs[name] = value
		}
	}
	proxywasm.LogDebugf("testplugin: request headers n=%d eos=%v directives=%v", n, eos, h.dirs)
	if h.has("metric") {
		requests.Increment(1)
		inflight.Add(1)
		sizes.Record(7)
	}
	if h.has("log") {
		proxywasm.LogTrace("trace line")
		proxywasm.LogDebug("debug line")
		proxywasm.LogInfo("info line")
		proxywasm.LogWarn("warn line")
		proxywasm.LogError("error line")
		proxywasm.LogCritical("critical line")
	}
	if h.has("stdout") {
		fmt.Println("hello stdout")
		fmt.Fprintln(os.Stderr, "hello stderr")
	}
	if v, ok := h.dirs["gc-alloc"]; ok {
		mb, _ := strconv.Atoi(v)
		for i := 0; i < mb; i++ {
			garbage = append(garbage, make([]byte, 1<<20))
		}
		garbage = nil
	}
	if h.has("gc") {
		runtime.GC()
		proxywasm.LogInfo("testplugin: runtime.GC returned")
	}
	if h.has("timer") {
		// Arming any runtime timer initializes the Go netpoller; from then
		// on every stop-the-world (each GC) calls WASI poll_oneoff.
		// (A channel timer nobody waits on is not enough since Go 1.23.)
		tm := time.AfterFunc(time.Hour, func() {})
		tm.Stop()
	}
	if h.has("yield") {
		for i := 0; i < 10; i++ {
			runtime.Gosched()
		}
	}
	if h.has("chan") {
		ch := make(chan int)
		go func() {
			runtime.Gosched()
			ch <- 1
		}()
		<-ch
	}
	if h.has("sleep") {
		time.Sleep(time.Millisecond)
		proxywasm.LogInfo("testplugin: time.Sleep returned")
	}
	if v, ok := h.dirs["enqueue"]; ok {
		q, err := proxywasm.ResolveSharedQueue("", "q")
		if err == nil {
			err = proxywasm.EnqueueSharedQueue(q, []byte(v))
		}
		if err != nil {
			proxywasm.LogErrorf("enqueue: %v", err)
		}
	}
	if v, ok := h.dirs["shared"]; ok {
		old, cas, err := proxywasm.GetSharedData(v)
		proxywasm.LogInfof("testplugin: shared get %q cas=%d err=%v", old, cas, err)
		err = proxywasm.SetSharedData(v, append(old, 'x'), cas)
		proxywasm.LogInfof("testplugin: shared set err=%v", err)
	}
	if h.has("setprop") {
		if err := proxywasm.SetProperty([]string{"testplugin_state"}, []byte("stored")); err != nil {
			proxywasm.LogErrorf("set property: %v", err)
		}
	}
	if h.has("hdr-mutate") {
		proxywasm.AddHttpRequestHeader("x-added", "1")
		proxywasm.RemoveHttpRequestHeader("x-remove")
		proxywasm.ReplaceHttpRequestHeader("x-replace", "new")
		proxywasm.ReplaceHttpRequestHeader(":path", "/rewritten?q=1")
	}
	if h.has("remove-content-length") {
		proxywasm.RemoveHttpRequestHeader("content-length")
	}
	if h.has("hdr-panic") {
		panic("testplugin: request headers panic")
	}
	if v, ok := h.dirs["httpcall"]; ok {
		_, err := proxywasm.DispatchHttpCall(v, [][2]string{{":method", "GET"}, {":path", "/lookup"}, {":authority", "svc"}},
			[]byte("q"), nil, 5000, func(nh, nb, nt int) {
				status, _ := proxywasm.GetHttpCallResponseHeaders()
				b, _ := proxywasm.GetHttpCallResponseBody(0, nb)
				s := ""
				for _, kv := range status {
					if kv[0] == ":status" {
						s = kv[1]
					}
				}
				proxywasm.AddHttpRequestHeader("x-callout", s+"/"+string(b))
				proxywasm.ResumeHttpRequest()
			})
		if err != nil {
			proxywasm.AddHttpRequestHeader("x-callout-err", err.Error())
			return types.ActionContinue
		}
		return types.ActionPause
	}
	if h.has("hdr-reply") {
		h.replied = true
		proxywasm.SendHttpResponse(403, [][2]string{{"x-reply", "plugin"}, {"content-type", "application/json"}},
			[]byte(`{"denied":true}`), -1)
		return types.ActionPause
	}
	if h.has("hdr-resume-on-queue") {
		waitingQueue = append(waitingQueue, h.id)
		return types.ActionPause
	}
	if h.has("hdr-resume-on-tick") {
		waitingTick = append(waitingTick, h.id)
		return types.ActionPause
	}
	if h.has("hdr-pause") {
		return types.ActionPause
	}
	return types.ActionContinue
}

func (h *httpContext) OnHttpRequestBody(size int, eos bool) types.Action {
	h.bodySizes = append(h.bodySizes, strconv.Itoa(size))
	h.reqSize, h.reqEOS = size, append(h.reqEOS, strconv.FormatBool(eos))
	if h.has("body-panic") {
		panic("testplugin: request body panic")
	}
	if h.has("body-hdr-mutate") {
		// Only possible while the headers are still held.
		if err := proxywasm.AddHttpRequestHeader("x-from-body", "1"); err != nil {
			proxywasm.LogInfof("testplugin: add header in body: %v", err)
		}
	}
	switch {
	case h.has("body-append"):
		b, _ := proxywasm.GetHttpRequestBody(0, size)
		proxywasm.ReplaceHttpRequestBody([]byte("[" + string(b) + "]"))
		return types.ActionContinue
	case h.has("body-buffer"), h.has("body-wrap"), h.has("body-reply"):
		if !eos {
			return types.ActionPause
		}
		b, _ := proxywasm.GetHttpRequestBody(0, size)
		switch {
		case h.has("body-reply"):
			h.replied = true
			proxywasm.SendHttpResponse(400, nil, []byte("bad body: "+string(b)), -1)
			return types.ActionPause
		case h.has("body-wrap"):
			proxywasm.PrependHttpRequestBody([]byte("<"))
			proxywasm.AppendHttpRequestBody([]byte(">"))
		default:
			proxywasm.ReplaceHttpRequestBody([]byte(strings.ToUpper(string(b))))
		}
		return types.ActionContinue
	case h.has("body-pause-eos"):
		return types.ActionPause
	}
	return types.ActionContinue
}

func (h *httpContext) OnHttpRequestTrailers(n int) types.Action {
	if h.has("trailers-mutate") {
		proxywasm.AddHttpRequestTrailer("x-trailer-added", "1")
	}
	if h.has("trailers-body") {
		trailersBody(h.reqSize, h.reqEOS, proxywasm.GetHttpRequestBody, proxywasm.ReplaceHttpRequestBody,
			proxywasm.AddHttpRequestTrailer, "<", ">")
	}
	if h.has("trailers-clear") {
		proxywasm.ReplaceHttpRequestTrailers(nil)
	}
	if h.has("trailers-reply") {
		h.replied = true
		proxywasm.SendHttpResponse(403, nil, []byte("refused at trailers"), -1)
		return types.ActionPause
	}
	return types.ActionContinue
}

func (h *httpContext) OnHttpResponseHeaders(n int, eos bool) types.Action {
	proxywasm.AddHttpResponseHeader("x-plugin-saw-response", "1")
	proxywasm.AddHttpResponseHeader("x-request-body-sizes", strings.Join(h.bodySizes, " "))
	if h.has("read-req-in-resp") {
		v, err := proxywasm.GetHttpRequestHeader(":path")
		proxywasm.AddHttpResponseHeader("x-req-path", fmt.Sprintf("%q %v", v, err))
	}
	if v, ok := h.dirs["env"]; ok {
		proxywasm.AddHttpResponseHeader("x-env", os.Getenv(v))
	}
	if h.has("time") {
		proxywasm.AddHttpResponseHeader("x-time", strconv.FormatInt(time.Now().UnixNano(), 10))
	}
	if v, ok := h.dirs["prop"]; ok {
		b, err := proxywasm.GetProperty(strings.Split(v, "/"))
		proxywasm.AddHttpResponseHeader("x-prop", fmt.Sprintf("%q %v", b, err))
	}
	if h.has("setprop") {
		b, err := proxywasm.GetProperty([]string{"testplugin_state"})
		proxywasm.AddHttpResponseHeader("x-setprop", fmt.Sprintf("%q %v", b, err))
	}
	if h.has("metric") {
		proxywasm.AddHttpResponseHeader("x-requests", strconv.FormatUint(requests.Value(), 10))
	}
	if h.has("resp-hdr-mutate") {
		proxywasm.RemoveHttpResponseHeader("content-length")
		proxywasm.ReplaceHttpResponseHeader("x-upstream", "rewritten")
	}
	if h.has("resp-hdr-reply") && !h.replied {
		h.replied = true
		proxywasm.SendHttpResponse(502, nil, []byte("replaced"), -1)
		return types.ActionPause
	}
	if h.has("resp-hdr-pause") {
		return types.ActionPause
	}
	return types.ActionContinue
}

func (h *httpContext) OnHttpResponseBody(size int, eos bool) types.Action {
	h.respBody++
	h.respSize, h.respEOS = size, append(h.respEOS, strconv.FormatBool(eos))
	if h.has("resp-panic") {
		panic("testplugin: response body panic")
	}
	switch {
	case h.has("resp-body-upper"):
		b, _ := proxywasm.GetHttpResponseBody(0, size)
		proxywasm.ReplaceHttpResponseBody([]byte(strings.ToUpper(string(b))))
	case h.has("resp-body-buffer"):
		if !eos {
			return types.ActionPause
		}
		b, _ := proxywasm.GetHttpResponseBody(0, size)
		proxywasm.ReplaceHttpResponseBody([]byte("<" + string(b) + ">"))
	case h.has("resp-body-reply") && !h.replied:
		h.replied = true
		proxywasm.SendHttpResponse(500, nil, []byte("too late"), -1)
		return types.ActionPause
	}
	return types.ActionContinue
}

func (h *httpContext) OnHttpResponseTrailers(n int) types.Action {
	if h.has("resp-trailers-body") {
		trailersBody(h.respSize, h.respEOS, proxywasm.GetHttpResponseBody, proxywasm.ReplaceHttpResponseBody,
			proxywasm.AddHttpResponseTrailer, "{", "}")
	}
	if h.has("resp-trailers-clear") {
		proxywasm.ReplaceHttpResponseTrailers(nil)
	}
	return types.ActionContinue
}

func (h *httpContext) OnHttpStreamDone() {
	path, err := proxywasm.GetHttpRequestHeader(":path")
	status, err2 := proxywasm.GetHttpResponseHeader(":status")
	proxywasm.LogInfof("testplugin: done id=%d path=%q (%v) status=%q (%v)", h.id, path, err, status, err2)
	if h.has("metric") {
		inflight.Add(-1)
	}
}
