// Command plugin is the mcp-privacy proxy-wasm HTTP filter, built into
// build/mcp-privacy.wasm by `make wasm` (scripts/build-wasm.sh).
//
// This file is the seam between the host and our logic: it reads headers,
// bodies and properties through the SDK, hands them to package mcp, and
// applies what mcp decides. No MCP or policy logic lives here.
//
// init() only registers the VM context (hosts forbid most host calls while
// _initialize runs); configuration is parsed in OnPluginStart.
package main

import (
	"fmt"
	"strconv"

	"github.com/cloudg/mcp-privacy/plugin/mcp"
	"github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm"
	"github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm/types"
)

// main is never called: the .wasm is a WASI reactor (-buildmode=c-shared),
// whose _initialize export runs init().
func main() {}

func init() {
	proxywasm.SetVMContext(&vmContext{})
}

type vmContext struct {
	types.DefaultVMContext
}

func (*vmContext) NewPluginContext(uint32) types.PluginContext {
	return &pluginContext{}
}

// pluginContext holds one filter configuration: cfg, or with Higress's
// _rules_ (cfgs routed) a Config per rule, picked at each request's headers.
type pluginContext struct {
	types.DefaultPluginContext
	cfg  *mcp.Config
	cfgs *mcp.Configs
}

// OnPluginStart validates the configuration as a whole: on any error it
// logs every one and refuses, so a policy is never half applied.
func (p *pluginContext) OnPluginStart(int) (status types.OnPluginStartStatus) {
	defer func() {
		if r := recover(); r != nil {
			proxywasm.LogCriticalf("mcp-privacy: configuration failed: %v", r)
			status = types.OnPluginStartStatusFailed
		}
	}()
	data, err := proxywasm.GetPluginConfiguration()
	if err != nil && err != types.ErrorStatusNotFound {
		proxywasm.LogErrorf("mcp-privacy: reading the plugin configuration: %v", err)
		return types.OnPluginStartStatusFailed
	}
	if len(data) == 0 {
		proxywasm.LogError("mcp-privacy: no plugin configuration (want a JSON envelope, e.g. {\"policy\": \"standard\"})")
		return types.OnPluginStartStatusFailed
	}
	cfgs, errs := mcp.NewConfigs(data, sharedData{})
	if len(errs) > 0 {
		proxywasm.LogErrorf("mcp-privacy: configuration rejected, %d error(s):", len(errs))
		for _, e := range errs {
			proxywasm.LogErrorf("mcp-privacy: %s", e.Error())
		}
		return types.OnPluginStartStatusFailed
	}
	if err := probeHostAtConfiguration(cfgs.All()); err != nil {
		proxywasm.LogCriticalf("mcp-privacy: configuration rejected: %v", err)
		return types.OnPluginStartStatusFailed
	}
	// Audit lines go to the log at info level (manual 14); counters to
	// proxy-wasm metrics, every name defined now so that stats exist, at 0,
	// before the first request.
	var names []string
	for _, cfg := range cfgs.All() {
		names = append(names, mcp.MetricNames(cfg.Env.Policy)...)
	}
	metrics := defineMetrics(names)
	warned := map[string]bool{}
	for _, cfg := range cfgs.All() {
		cfg.Audit.Log = proxywasm.LogInfo
		cfg.Metrics = metrics
		for _, w := range cfg.Warnings() {
			if !warned[w] {
				warned[w] = true
				proxywasm.LogWarn(w)
			}
		}
	}
	if !cfgs.Routed() {
		p.cfg = cfgs.Global
		proxywasm.LogInfof("mcp-privacy: policy %q for server %q", p.cfg.Env.Policy.Name, p.cfg.Env.Server.ID)
		return types.OnPluginStartStatusOK
	}
	p.cfgs = cfgs
	if g := cfgs.Global; g != nil {
		proxywasm.LogInfof("mcp-privacy: policy %q for server %q where no rule matches", g.Env.Policy.Name, g.Env.Server.ID)
	} else {
		proxywasm.LogInfo("mcp-privacy: no global configuration: requests no rule matches pass unjudged")
	}
	for i, r := range cfgs.HostRules().Rules {
		proxywasm.LogInfof("mcp-privacy: %s, %s: policy %q for server %q", r.Path, r.Match.Describe(), cfgs.Rules[i].Env.Policy.Name, cfgs.Rules[i].Env.Server.ID)
	}
	return types.OnPluginStartStatusOK
}

func (p *pluginContext) NewHttpContext(uint32) types.HttpContext {
	if p.cfgs != nil {
		return &httpContext{routes: p.cfgs} // the stream starts at the headers
	}
	return &httpContext{stream: mcp.NewStream(p.cfg)}
}

// httpContext is one HTTP stream. Every callback recovers a panic and fails
// that stream closed; the VM keeps serving the others.
type httpContext struct {
	types.DefaultHttpContext
	// stream is nil until the request headers when the configuration is
	// routed (routes), and stays nil for a request that is not the
	// plugin's: every callback then lets it through.
	stream *mcp.Stream
	routes *mcp.Configs
	// failed is set once the stream was failed closed: later callbacks
	// let the failure reply through.
	failed bool
	// requestBodySize and responseBodySize are what the last body callback
	// saw: the body the host still holds when trailers end the message.
	requestBodySize, responseBodySize int
	// reqHold and respHold hold the bodies where the host does not
	// (bodyhold.go); nil where it does.
	reqHold, respHold *mcp.BodyHold
	// failedHeld: the stream failed while the plugin held its response
	// body; the failure was written as the body (failHeldResponse).
	failedHeld bool
	// testPanicAt is the callback a test build makes panic, testTrapAt the
	// one it makes trap the VM (testhook_on.go).
	testPanicAt string //lint:ignore U1000 used by testhook_on.go (tag mcpprivacy_testhooks)
	testTrapAt  string //lint:ignore U1000 used by testhook_on.go (tag mcpprivacy_testhooks)
}

// sharedData is the host's shared data (one store per vm_id for all worker
// VMs).
type sharedData struct{}

func (sharedData) Get(key string) ([]byte, uint32, bool) {
	v, cas, err := proxywasm.GetSharedData(key)
	return v, cas, err == nil
}

func (sharedData) Set(key string, value []byte, cas uint32) bool {
	return proxywasm.SetSharedData(key, value, cas) == nil
}

// hostMetrics are proxy-wasm counters, defined once per name and VM (the
// host keeps one counter per name for all VMs of a vm_id). A VM calls into
// itself one callback at a time, so the map needs no lock.
type hostMetrics struct{}

var counters = map[string]proxywasm.MetricCounter{}

// defineMetrics defines names up front (again at every configuration: a
// host returns the same counter for a name it knows). A host that refuses
// metrics leaves the plugin without them: it logs that and counts nothing.
func defineMetrics(names []string) (m mcp.Metrics) {
	defer func() {
		if r := recover(); r != nil {
			proxywasm.LogWarnf("mcp-privacy: metrics unavailable, none will be counted: %v", r)
			m = mcp.NopMetrics{}
		}
	}()
	counters = make(map[string]proxywasm.MetricCounter, len(names))
	for _, name := range names {
		counters[name] = proxywasm.DefineCounterMetric(name)
	}
	return hostMetrics{}
}

// Add adds n to the counter name, defining it on first use. A failing
// host call loses the count, never the request.
func (hostMetrics) Add(name string, n uint64) {
	defer func() { _ = recover() }()
	c, ok := counters[name]
	if !ok {
		c = proxywasm.DefineCounterMetric(name)
		counters[name] = c
	}
	c.Increment(n)
}

// headerPairs are a header map read with one host call (mcp.HeaderPairs).
type headerPairs = mcp.HeaderPairs

// hostRequest is the current request for identity resolution: its
// headers, and Envoy's properties.
type hostRequest struct{ headerPairs }

func (hostRequest) Property(path ...string) ([]byte, bool) {
	v, err := proxywasm.GetProperty(path)
	return v, err == nil
}

// fail answers the stream with a JSON-RPC internal error (or, after the
// response started, has the host reset it) and logs why.
func (h *httpContext) fail(stage string, r any) types.Action {
	proxywasm.LogErrorf("mcp-privacy: internal error in %s, stream failed closed: %v", stage, r)
	if h.failed {
		return types.ActionPause
	}
	h.failed = true
	if h.respHold != nil && (stage == "response body" || stage == "response trailers") {
		func() {
			defer func() { _ = recover() }()
			h.stream.Failed(stage)
		}()
		h.failedHeld = true
		return h.failHeldResponse()
	}
	func() {
		defer func() { _ = recover() }() // the stream's state may be what broke
		h.stream.Failed(stage)
	}()
	body := mcp.ErrorResponse("null", &mcp.InternalError)
	if err := proxywasm.SendHttpResponse(500, [][2]string{{"content-type", "application/json"}}, body, -1); err != nil {
		proxywasm.LogErrorf("mcp-privacy: failing the stream: %v", err)
	}
	return types.ActionPause
}

// reply sends a local reply; its details name why, to the client in the
// x-mcp-privacy header and to Envoy's access logs as the response code
// details. A hidden primitive is answered by the server, for its stand-in
// (plugin/mcp/hidden.go); where the filter must answer it itself (2026-07-28
// without hold_headers) the reply stands for the server's and carries no
// such header (LocalReply.AsServer).
func (h *httpContext) reply(r *mcp.LocalReply) types.Action {
	headers := r.Headers
	if !r.AsServer {
		headers = append(headers, [2]string{"x-mcp-privacy", r.Details})
	}
	if err := sendLocalReply(uint32(r.Status), headers, r.Body, r.Details); err != nil {
		return h.fail("local reply", err)
	}
	return types.ActionPause
}

func (h *httpContext) OnHttpRequestHeaders(_ int, endOfStream bool) (action types.Action) {
	defer func() {
		if r := recover(); r != nil {
			action = h.fail("request headers", r)
		}
	}()
	if h.failed {
		return types.ActionContinue
	}
	h.hook("request_headers")
	pairs, err := proxywasm.GetHttpRequestHeaders()
	if err != nil {
		panic(fmt.Sprintf("reading the request headers: %v", err))
	}
	headers := headerPairs(pairs)
	if h.stream == nil {
		cfg := h.routes.Select(hostRequest{headers})
		if cfg == nil {
			return types.ActionContinue
		}
		h.stream = mcp.NewStream(cfg)
	}
	method, _ := headers.Header(":method")
	path, _ := headers.Header(":path")
	res := h.stream.OnRequestHeaders(hostRequest{headers}, method, path, endOfStream)
	if res.Reply == nil && h.stream.Inspected() {
		cl, _ := headers.Header("content-length")
		h.startHolding(h.stream.BodyBuffering(), cl)
		if hostKind == hostNgxWasm {
			res = ngxRequestHeaders(res)
		}
	}
	for _, name := range res.Remove {
		if _, present := headers.Header(name); present {
			_ = proxywasm.RemoveHttpRequestHeader(name)
		}
	}
	if res.Reply != nil {
		return h.reply(res.Reply)
	}
	for _, kv := range res.Set {
		_ = proxywasm.ReplaceHttpRequestHeader(kv[0], kv[1])
	}
	return toAction(res.Action)
}

func (h *httpContext) OnHttpRequestBody(bodySize int, endOfStream bool) (action types.Action) {
	defer func() {
		if r := recover(); r != nil {
			action = h.fail("request body", r)
		}
	}()
	if h.failed || h.stream == nil {
		return types.ActionContinue
	}
	h.hook("request_body")
	h.requestBodySize = bodySize
	if h.reqHold != nil {
		return h.holdRequestBody(bodySize, endOfStream)
	}
	return h.applyRequestBody("request body", h.stream.OnRequestBody(bodySize, endOfStream, requestBody(bodySize)))
}

// requestBody reads the first size bytes of the request body the host
// holds.
func requestBody(size int) func() []byte {
	return func() []byte {
		b, err := proxywasm.GetHttpRequestBody(0, size)
		if err != nil {
			panic(fmt.Sprintf("reading the request body: %v", err))
		}
		return b
	}
}

// applyRequestBody carries out what the stream made of the request body
// at stage: a local reply, exported headers, a replaced body.
func (h *httpContext) applyRequestBody(stage string, res mcp.BodyResult) types.Action {
	if res.Reply != nil {
		return h.reply(res.Reply)
	}
	for _, name := range res.Remove {
		_ = proxywasm.RemoveHttpRequestHeader(name)
	}
	for _, kv := range res.Set {
		_ = proxywasm.ReplaceHttpRequestHeader(kv[0], kv[1])
	}
	if res.Body != nil {
		if err := proxywasm.ReplaceHttpRequestBody(res.Body); err != nil {
			return h.fail(stage, err)
		}
	}
	return toAction(res.Action)
}

func (h *httpContext) OnHttpResponseHeaders(_ int, endOfStream bool) (action types.Action) {
	defer func() {
		if r := recover(); r != nil {
			action = h.fail("response headers", r)
		}
	}()
	if h.failed || h.stream == nil {
		return types.ActionContinue
	}
	h.hook("response_headers")
	pairs, err := proxywasm.GetHttpResponseHeaders()
	if err != nil {
		panic(fmt.Sprintf("reading the response headers: %v", err))
	}
	headers := headerPairs(pairs)
	statusText, _ := headers.Header(":status")
	status, _ := strconv.Atoi(statusText)
	// Every line of a repeated header, joined as clients join them.
	contentType := headers.Joined("content-type")
	contentEncoding := headers.Joined("content-encoding")
	if h.respHold != nil {
		// Read before the plugin removes it: the end of a body whose
		// length was announced may be known only by counting.
		cl, _ := headers.Header("content-length")
		h.respHold.Expect(cl)
	}
	res := h.stream.OnResponseHeaders(status, contentType, contentEncoding, endOfStream)
	for _, name := range res.Remove {
		if _, present := headers.Header(name); present {
			_ = proxywasm.RemoveHttpResponseHeader(name)
		}
	}
	if res.Reply != nil {
		return h.reply(res.Reply)
	}
	for _, kv := range res.Set {
		_ = proxywasm.ReplaceHttpResponseHeader(kv[0], kv[1])
	}
	existing, _ := headers.Header("cache-control")
	if v, ok := h.stream.CacheControl(existing); ok {
		_ = proxywasm.ReplaceHttpResponseHeader("cache-control", v)
	}
	if loc := headers.Joined("location"); loc != "" {
		// Clients quote a redirect's target in their errors.
		if v, keep := h.stream.ResponseLocation(loc); !keep {
			_ = proxywasm.RemoveHttpResponseHeader("location")
		} else if v != loc {
			_ = proxywasm.RemoveHttpResponseHeader("location")
			_ = proxywasm.AddHttpResponseHeader("location", v)
		}
	}
	return toAction(res.Action)
}

// OnHttpStreamDone ends the stream: calls whose answer never passed it
// are recorded.
func (h *httpContext) OnHttpStreamDone() {
	defer func() {
		if r := recover(); r != nil {
			proxywasm.LogErrorf("mcp-privacy: internal error at stream end: %v", r)
		}
	}()
	if h.stream != nil {
		h.stream.Done()
	}
}

func (h *httpContext) OnHttpResponseBody(bodySize int, endOfStream bool) (action types.Action) {
	defer func() {
		if r := recover(); r != nil {
			action = h.fail("response body", r)
		}
	}()
	if h.failedHeld {
		// Failed from a held response's body callback: the error went
		// out, nothing more does. (A failure before the response passes
		// its local reply like any other.)
		if bodySize > 0 {
			_ = proxywasm.ReplaceHttpResponseBody(nil)
		}
		return types.ActionContinue
	}
	if h.failed || h.stream == nil {
		return types.ActionContinue
	}
	h.hook("response_body")
	h.responseBodySize = bodySize
	if h.respHold != nil {
		return h.holdResponseBody("response body", bodySize, endOfStream)
	}
	act, edit := h.stream.OnResponseBody(bodySize, endOfStream, responseBody(bodySize))
	return h.applyResponseBody("response body", act, edit)
}

// responseBody reads the first size bytes of the response body the host
// holds (none when size is 0: a host may then answer NOT_FOUND).
func responseBody(size int) func() []byte {
	return func() []byte {
		if size == 0 {
			return nil
		}
		b, err := proxywasm.GetHttpResponseBody(0, size)
		if err != nil {
			panic(fmt.Sprintf("reading the response body: %v", err))
		}
		return b
	}
}

// applyResponseBody carries out what the stream made of the response body
// at stage.
func (h *httpContext) applyResponseBody(stage string, act mcp.Action, edit mcp.BodyEdit) types.Action {
	if edit.Replace {
		if err := proxywasm.ReplaceHttpResponseBody(edit.Data); err != nil {
			return h.fail(stage, err)
		}
	}
	return toAction(act)
}

// OnHttpRequestTrailers ends a request whose body ended in trailers: the
// last body callback had endOfStream false, so the body is judged here
// (the SDK's default would answer Continue and release it unjudged).
func (h *httpContext) OnHttpRequestTrailers(numTrailers int) (action types.Action) {
	defer func() {
		if r := recover(); r != nil {
			action = h.fail("request trailers", r)
		}
	}()
	if h.failed || h.stream == nil {
		return types.ActionContinue
	}
	h.hook("request_trailers")
	if numTrailers > 0 && h.stream.StripTrailers() {
		if err := proxywasm.ReplaceHttpRequestTrailers(nil); err != nil {
			panic(fmt.Sprintf("removing the request trailers: %v", err))
		}
	}
	if h.reqHold != nil {
		if h.reqHold.Ended() {
			return types.ActionContinue
		}
		return h.holdRequestBody(0, true)
	}
	size := h.requestBodySize
	return h.applyRequestBody("request trailers", h.stream.OnRequestTrailers(size, requestBody(size)))
}

// OnHttpResponseTrailers ends a response whose body ended in trailers: a
// buffered JSON body is processed and replaced here.
func (h *httpContext) OnHttpResponseTrailers(numTrailers int) (action types.Action) {
	defer func() {
		if r := recover(); r != nil {
			action = h.fail("response trailers", r)
		}
	}()
	if h.failed || h.stream == nil {
		return types.ActionContinue
	}
	h.hook("response_trailers")
	if numTrailers > 0 && h.stream.StripTrailers() {
		if err := proxywasm.ReplaceHttpResponseTrailers(nil); err != nil {
			panic(fmt.Sprintf("removing the response trailers: %v", err))
		}
	}
	if h.respHold != nil {
		// The last body callback emptied its chunk: the held body ends here.
		return h.holdResponseBody("response trailers", 0, true)
	}
	size := h.responseBodySize
	act, edit := h.stream.OnResponseTrailers(size, responseBody(size))
	return h.applyResponseBody("response trailers", act, edit)
}

// testHook is nil in release builds; tests set it to inject failures.
var testHook func(h *httpContext, stage string)

func (h *httpContext) hook(stage string) {
	if testHook != nil {
		testHook(h, stage)
	}
}

func toAction(a mcp.Action) types.Action {
	if a == mcp.Pause {
		return types.ActionPause
	}
	return types.ActionContinue
}
