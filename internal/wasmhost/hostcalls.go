package wasmhost

import (
	"strings"
	"time"

	"github.com/tetratelabs/wazero/api"
)

// hostCall is one env.proxy_* import: its parameter types (the result is
// always an i32 Status) and its implementation, which runs with vm.mu held
// inside a guest call.
type hostCall struct {
	params []api.ValueType
	fn     func(vm *VM, mod api.Module, stack []uint64) Status
}

func i32s(n int) []api.ValueType {
	ts := make([]api.ValueType, n)
	for i := range ts {
		ts[i] = api.ValueTypeI32
	}
	return ts
}

// hostCalls are the env imports of proxy-wasm ABI 0.2.1 the host
// implements (everything the proxy-wasm Go SDK v0.24.0 declares, and a few
// more). Any other import gets an UNIMPLEMENTED stub.
var hostCalls = map[string]hostCall{
	"proxy_log":                          {i32s(3), hcLog},
	"proxy_get_log_level":                {i32s(1), hcGetLogLevel},
	"proxy_set_tick_period_milliseconds": {i32s(1), hcSetTickPeriod},
	"proxy_get_current_time_nanoseconds": {i32s(1), hcGetCurrentTime},
	"proxy_get_buffer_bytes":             {i32s(5), hcGetBufferBytes},
	"proxy_set_buffer_bytes":             {i32s(5), hcSetBufferBytes},
	"proxy_get_buffer_status":            {i32s(3), hcGetBufferStatus},
	"proxy_get_header_map_pairs":         {i32s(3), hcGetHeaderMapPairs},
	"proxy_set_header_map_pairs":         {i32s(3), hcSetHeaderMapPairs},
	"proxy_get_header_map_value":         {i32s(5), hcGetHeaderMapValue},
	"proxy_add_header_map_value":         {i32s(5), hcAddHeaderMapValue},
	"proxy_replace_header_map_value":     {i32s(5), hcReplaceHeaderMapValue},
	"proxy_remove_header_map_value":      {i32s(3), hcRemoveHeaderMapValue},
	"proxy_get_header_map_size":          {i32s(2), hcGetHeaderMapSize},
	"proxy_get_property":                 {i32s(4), hcGetProperty},
	"proxy_set_property":                 {i32s(4), hcSetProperty},
	"proxy_send_local_response":          {i32s(8), hcSendLocalResponse},
	"proxy_continue_stream":              {i32s(1), hcContinueStream},
	"proxy_close_stream":                 {i32s(1), hcCloseStream},
	"proxy_continue_request":             {nil, hcContinueRequest},
	"proxy_continue_response":            {nil, hcContinueResponse},
	"proxy_get_shared_data":              {i32s(5), hcGetSharedData},
	"proxy_set_shared_data":              {i32s(5), hcSetSharedData},
	"proxy_register_shared_queue":        {i32s(3), hcRegisterSharedQueue},
	"proxy_resolve_shared_queue":         {i32s(5), hcResolveSharedQueue},
	"proxy_enqueue_shared_queue":         {i32s(3), hcEnqueueSharedQueue},
	"proxy_dequeue_shared_queue":         {i32s(3), hcDequeueSharedQueue},
	"proxy_define_metric":                {i32s(4), hcDefineMetric},
	"proxy_increment_metric":             {[]api.ValueType{api.ValueTypeI32, api.ValueTypeI64}, hcIncrementMetric},
	"proxy_record_metric":                {[]api.ValueType{api.ValueTypeI32, api.ValueTypeI64}, hcRecordMetric},
	"proxy_get_metric":                   {i32s(2), hcGetMetric},
	"proxy_http_call":                    {i32s(10), hcHTTPCall},
	"proxy_set_effective_context":        {i32s(1), hcSetEffectiveContext},
	"proxy_done":                         {nil, hcDone},
	"proxy_call_foreign_function":        {i32s(6), hcCallForeignFunction},
}

func u32(v uint64) uint32 { return uint32(v) }

// read copies size bytes of guest memory at ptr.
func read(mod api.Module, ptr, size uint32) ([]byte, bool) {
	b, ok := mod.Memory().Read(ptr, size)
	if !ok {
		return nil, false
	}
	return append([]byte(nil), b...), true
}

func readString(mod api.Module, ptr, size uint32) (string, bool) {
	b, ok := mod.Memory().Read(ptr, size)
	if !ok {
		return "", false
	}
	return string(b), true
}

// currentStream resolves the context host calls act on: the effective
// context if the guest set one, else the context of the running callback.
// It returns nil for the root context.
func (vm *VM) currentStream() *Stream {
	cs := vm.call
	if cs == nil {
		return nil
	}
	id := cs.contextID
	if cs.effective != 0 {
		id = cs.effective
	}
	if id == rootContextID {
		return nil
	}
	return vm.streams[id]
}

func (vm *VM) defer_(a action) {
	if vm.call != nil {
		vm.call.actions = append(vm.call.actions, a)
	}
}

func hcLog(vm *VM, mod api.Module, s []uint64) Status {
	level := LogLevel(u32(s[0]))
	if level > LogCritical {
		return StatusBadArgument
	}
	msg, ok := readString(mod, u32(s[1]), u32(s[2]))
	if !ok {
		return StatusInvalidMemoryAccess
	}
	vm.hostLog(level, msg)
	return StatusOK
}

func hcGetLogLevel(vm *VM, mod api.Module, s []uint64) Status {
	if !mod.Memory().WriteUint32Le(u32(s[0]), uint32(vm.host.opts.LogLevel)) {
		return StatusInvalidMemoryAccess
	}
	return StatusOK
}

func hcSetTickPeriod(vm *VM, _ api.Module, s []uint64) Status {
	vm.tickPeriod.Store(int64(u32(s[0])) * 1e6)
	return StatusOK
}

func hcGetCurrentTime(vm *VM, mod api.Module, s []uint64) Status {
	if !mod.Memory().WriteUint64Le(u32(s[0]), uint64(vm.host.clock().UnixNano())) {
		return StatusInvalidMemoryAccess
	}
	return StatusOK
}

// buffer returns the buffer a proxy_*_buffer_* call addresses: a pointer
// to it (nil when the host has none right now: NOT_FOUND) and whether the
// guest may change it.
func (vm *VM) buffer(t BufferType) (buf *[]byte, writable bool, st Status) {
	switch t {
	case BufferRequestBody, BufferResponseBody:
		s := vm.currentStream()
		if s == nil {
			return &emptyBuffer, false, StatusOK
		}
		d := &s.req
		if t == BufferResponseBody {
			d = &s.resp
		}
		if v := d.bodyView(); v != nil {
			return v, true, StatusOK
		}
		// Envoy hands out an empty buffer when it has no body to show.
		return &emptyBuffer, false, StatusOK
	case BufferVMConfiguration:
		b := vm.host.opts.VMConfig
		return &b, false, StatusOK
	case BufferHTTPCallResponseBody:
		if vm.httpResp != nil {
			return &vm.httpResp.Body, false, StatusOK
		}
	case BufferPluginConfiguration:
		if vm.call != nil && vm.call.configuring {
			b := vm.host.opts.PluginConfig
			return &b, false, StatusOK
		}
	}
	return nil, false, StatusNotFound
}

var emptyBuffer []byte

func hcGetBufferBytes(vm *VM, mod api.Module, s []uint64) Status {
	t := BufferType(u32(s[0]))
	if t > bufferTypeMax {
		return StatusBadArgument
	}
	start, length := uint64(u32(s[1])), uint64(u32(s[2]))
	buf, _, st := vm.buffer(t)
	if st != StatusOK {
		return st
	}
	size := uint64(len(*buf))
	if start > size {
		return StatusBadArgument
	}
	if start+length > size {
		length = size - start
	}
	if length == 0 {
		// Like cpp-host: OK, and the out-parameters are left alone.
		return StatusOK
	}
	return vm.copyOut(mod, (*buf)[start:start+length], u32(s[3]), u32(s[4]))
}

// setBufferBytes applies proxy_set_buffer_bytes(start, size, data) to buf
// with Envoy's rules: start 0 drains size bytes (at most all) and prepends
// data, so (0, len) replaces; start >= len appends; anything else is
// BAD_ARGUMENT.
func setBufferBytes(buf []byte, start, size uint32, data []byte) ([]byte, Status) {
	switch {
	case start == 0:
		n := int(size)
		if uint64(size) > uint64(len(buf)) {
			n = len(buf)
		}
		out := make([]byte, 0, len(data)+len(buf)-n)
		out = append(out, data...)
		return append(out, buf[n:]...), StatusOK
	case uint64(start) >= uint64(len(buf)):
		return append(buf, data...), StatusOK
	}
	return buf, StatusBadArgument
}

func hcSetBufferBytes(vm *VM, mod api.Module, s []uint64) Status {
	t := BufferType(u32(s[0]))
	if t > bufferTypeMax {
		return StatusBadArgument
	}
	buf, writable, st := vm.buffer(t)
	if st != StatusOK {
		return st
	}
	data, ok := read(mod, u32(s[3]), u32(s[4]))
	if !ok {
		return StatusInvalidMemoryAccess
	}
	if !writable {
		// Also a body Envoy does not hold (a trailers callback after the
		// last body chunk was passed on): its empty stand-in refuses writes.
		return StatusBadArgument
	}
	out, st := setBufferBytes(*buf, u32(s[1]), u32(s[2]), data)
	if st == StatusOK {
		*buf = out
	}
	return st
}

func hcGetBufferStatus(vm *VM, mod api.Module, s []uint64) Status {
	t := BufferType(u32(s[0]))
	if t > bufferTypeMax {
		return StatusBadArgument
	}
	buf, _, st := vm.buffer(t)
	if st != StatusOK {
		return st
	}
	mem := mod.Memory()
	if !mem.WriteUint32Le(u32(s[1]), uint32(len(*buf))) || !mem.WriteUint32Le(u32(s[2]), 0) {
		return StatusInvalidMemoryAccess
	}
	return StatusOK
}

// headerMap returns the map a header call addresses, or nil when the host
// has none to offer right now (see Stream for when maps are available).
func (vm *VM) headerMap(t MapType) (h *Headers, writable bool) {
	switch t {
	case MapHTTPCallResponseHeaders, MapHTTPCallResponseTrailers:
		if vm.httpResp == nil {
			return nil, false
		}
		if t == MapHTTPCallResponseHeaders {
			return &vm.httpResp.Headers, false
		}
		return &vm.httpResp.Trailers, false
	}
	s := vm.currentStream()
	if s == nil {
		return nil, false
	}
	return s.headerMap(t)
}

func hcGetHeaderMapPairs(vm *VM, mod api.Module, s []uint64) Status {
	t := MapType(u32(s[0]))
	if t > mapTypeMax {
		return StatusBadArgument
	}
	h, _ := vm.headerMap(t)
	var pairs Headers
	if h != nil {
		pairs = *h
	}
	if len(pairs) == 0 {
		// cpp-host returns an empty string (null pointer, size 0).
		mem := mod.Memory()
		if !mem.WriteUint32Le(u32(s[1]), 0) || !mem.WriteUint32Le(u32(s[2]), 0) {
			return StatusInvalidMemoryAccess
		}
		return StatusOK
	}
	return vm.copyOut(mod, EncodePairs(pairs), u32(s[1]), u32(s[2]))
}

func hcSetHeaderMapPairs(vm *VM, mod api.Module, s []uint64) Status {
	t := MapType(u32(s[0]))
	if t > mapTypeMax {
		return StatusBadArgument
	}
	data, ok := read(mod, u32(s[1]), u32(s[2]))
	if !ok {
		return StatusInvalidMemoryAccess
	}
	h, writable := vm.headerMap(t)
	if h == nil || !writable {
		return StatusBadArgument
	}
	pairs, err := DecodePairs(data)
	if err != nil {
		return StatusBadArgument
	}
	*h = pairs.lowered()
	return StatusOK
}

func hcGetHeaderMapValue(vm *VM, mod api.Module, s []uint64) Status {
	t := MapType(u32(s[0]))
	if t > mapTypeMax {
		return StatusBadArgument
	}
	key, ok := readString(mod, u32(s[1]), u32(s[2]))
	if !ok {
		return StatusInvalidMemoryAccess
	}
	h, _ := vm.headerMap(t)
	if h == nil {
		if st := vm.currentStream(); st != nil && st.logPhase {
			return StatusNotFound
		}
		return StatusBadArgument
	}
	v, found := h.Get(key)
	if !found {
		return StatusNotFound
	}
	if v == "" {
		mem := mod.Memory()
		if !mem.WriteUint32Le(u32(s[3]), 0) || !mem.WriteUint32Le(u32(s[4]), 0) {
			return StatusInvalidMemoryAccess
		}
		return StatusOK
	}
	return vm.copyOut(mod, []byte(v), u32(s[3]), u32(s[4]))
}

func writableMap(vm *VM, mod api.Module, s []uint64) (*Headers, string, Status) {
	t := MapType(u32(s[0]))
	if t > mapTypeMax {
		return nil, "", StatusBadArgument
	}
	key, ok := readString(mod, u32(s[1]), u32(s[2]))
	if !ok {
		return nil, "", StatusInvalidMemoryAccess
	}
	h, writable := vm.headerMap(t)
	if h == nil || !writable {
		return nil, "", StatusBadArgument
	}
	return h, strings.ToLower(key), StatusOK
}

func hcAddHeaderMapValue(vm *VM, mod api.Module, s []uint64) Status {
	return writeHeaderMapValue(vm, mod, s, (*Headers).Add)
}

func hcReplaceHeaderMapValue(vm *VM, mod api.Module, s []uint64) Status {
	return writeHeaderMapValue(vm, mod, s, (*Headers).Set)
}

// writeHeaderMapValue reads the key and value of an add or replace call
// and applies op to the map.
func writeHeaderMapValue(vm *VM, mod api.Module, s []uint64, op func(*Headers, string, string)) Status {
	h, key, st := writableMap(vm, mod, s)
	if st != StatusOK {
		return st
	}
	v, ok := readString(mod, u32(s[3]), u32(s[4]))
	if !ok {
		return StatusInvalidMemoryAccess
	}
	op(h, key, v)
	return StatusOK
}

func hcRemoveHeaderMapValue(vm *VM, mod api.Module, s []uint64) Status {
	h, key, st := writableMap(vm, mod, s)
	if st != StatusOK {
		return st
	}
	h.Del(key)
	return StatusOK
}

func hcGetHeaderMapSize(vm *VM, mod api.Module, s []uint64) Status {
	t := MapType(u32(s[0]))
	if t > mapTypeMax {
		return StatusBadArgument
	}
	h, writable := vm.headerMap(t)
	if h == nil || !writable {
		return StatusBadArgument
	}
	n := 0
	for _, f := range *h {
		n += len(f.Key) + len(f.Value)
	}
	if !mod.Memory().WriteUint32Le(u32(s[1]), uint32(n)) {
		return StatusInvalidMemoryAccess
	}
	return StatusOK
}

func hcGetProperty(vm *VM, mod api.Module, s []uint64) Status {
	path, ok := readString(mod, u32(s[0]), u32(s[1]))
	if !ok {
		return StatusInvalidMemoryAccess
	}
	v, st := vm.property(path)
	if st != StatusOK {
		return st
	}
	if len(v) == 0 {
		mem := mod.Memory()
		if !mem.WriteUint32Le(u32(s[2]), 0) || !mem.WriteUint32Le(u32(s[3]), 0) {
			return StatusInvalidMemoryAccess
		}
		return StatusOK
	}
	return vm.copyOut(mod, v, u32(s[2]), u32(s[3]))
}

func hcSetProperty(vm *VM, mod api.Module, s []uint64) Status {
	path, ok := readString(mod, u32(s[0]), u32(s[1]))
	if !ok {
		return StatusInvalidMemoryAccess
	}
	v, ok := read(mod, u32(s[2]), u32(s[3]))
	if !ok {
		return StatusInvalidMemoryAccess
	}
	st := vm.currentStream()
	if st == nil {
		// Envoy keeps these in the stream's filter state; the root
		// context has none.
		return StatusNotFound
	}
	st.setFilterState(path, v)
	return StatusOK
}

// LocalReply is a response the plugin (or the host, like Envoy's router or
// buffer limits) answers a stream with instead of the upstream's.
type LocalReply struct {
	Status     uint32
	Body       []byte
	Headers    Headers // additional headers (keys lower-cased)
	Details    string
	GRPCStatus int32
}

func hcSendLocalResponse(vm *VM, mod api.Module, s []uint64) Status {
	details, ok1 := readString(mod, u32(s[1]), u32(s[2]))
	body, ok2 := read(mod, u32(s[3]), u32(s[4]))
	hdrs, ok3 := read(mod, u32(s[5]), u32(s[6]))
	if !ok1 || !ok2 || !ok3 {
		return StatusInvalidMemoryAccess
	}
	pairs, err := DecodePairs(hdrs)
	if err != nil {
		pairs = nil
	}
	if st := vm.currentStream(); st != nil && st.ngx != nil && st.ngx.inRespBody && vm.host.opts.Semantics.NoLocalReplyFromResponseBody {
		panic("proxy_send_local_response from on_response_body: response already sent") // ngx_wasm_module's trap
	}
	if vm.call != nil {
		vm.call.stopNext = true
	}
	if st := vm.currentStream(); st != nil {
		vm.defer_(action{kind: actionLocalReply, stream: st, reply: LocalReply{
			Status: u32(s[0]), Body: body, Headers: pairs.lowered(),
			Details: details, GRPCStatus: int32(u32(s[7])),
		}})
	}
	return StatusOK
}

func continueStream(vm *VM, t StreamType) Status {
	switch t {
	case StreamRequest, StreamResponse:
		if st := vm.currentStream(); st != nil {
			vm.defer_(action{kind: actionContinue, stream: st, dir: t})
		}
		return StatusOK
	case StreamDownstream, StreamUpstream:
		return StatusUnimplemented
	}
	return StatusBadArgument
}

func hcContinueStream(vm *VM, _ api.Module, s []uint64) Status {
	return continueStream(vm, StreamType(u32(s[0])))
}

func hcContinueRequest(vm *VM, _ api.Module, _ []uint64) Status {
	return continueStream(vm, StreamRequest)
}

func hcContinueResponse(vm *VM, _ api.Module, _ []uint64) Status {
	return continueStream(vm, StreamResponse)
}

func hcCloseStream(vm *VM, _ api.Module, s []uint64) Status {
	switch t := StreamType(u32(s[0])); t {
	case StreamRequest, StreamResponse:
		if st := vm.currentStream(); st != nil {
			vm.defer_(action{kind: actionClose, stream: st, dir: t})
		}
		return StatusOK
	case StreamDownstream, StreamUpstream:
		return StatusOK
	}
	return StatusBadArgument
}

func hcGetSharedData(vm *VM, mod api.Module, s []uint64) Status {
	key, ok := readString(mod, u32(s[0]), u32(s[1]))
	if !ok {
		return StatusInvalidMemoryAccess
	}
	v, cas, st := vm.host.SharedData().Get(key)
	if st != StatusOK {
		return st
	}
	if len(v) == 0 {
		mem := mod.Memory()
		if !mem.WriteUint32Le(u32(s[2]), 0) || !mem.WriteUint32Le(u32(s[3]), 0) {
			return StatusInvalidMemoryAccess
		}
	} else if st := vm.copyOut(mod, v, u32(s[2]), u32(s[3])); st != StatusOK {
		return st
	}
	if !mod.Memory().WriteUint32Le(u32(s[4]), cas) {
		return StatusInvalidMemoryAccess
	}
	return StatusOK
}

func hcSetSharedData(vm *VM, mod api.Module, s []uint64) Status {
	key, ok1 := readString(mod, u32(s[0]), u32(s[1]))
	v, ok2 := read(mod, u32(s[2]), u32(s[3]))
	if !ok1 || !ok2 {
		return StatusInvalidMemoryAccess
	}
	return vm.host.SharedData().Set(key, v, u32(s[4]))
}

func hcRegisterSharedQueue(vm *VM, mod api.Module, s []uint64) Status {
	name, ok := readString(mod, u32(s[0]), u32(s[1]))
	if !ok {
		return StatusInvalidMemoryAccess
	}
	token := vm.host.process.registerQueue(vm.host.opts.VMID, name, vm, rootContextID)
	if !mod.Memory().WriteUint32Le(u32(s[2]), token) {
		return StatusInvalidMemoryAccess
	}
	return StatusOK
}

func hcResolveSharedQueue(vm *VM, mod api.Module, s []uint64) Status {
	vmID, ok1 := readString(mod, u32(s[0]), u32(s[1]))
	name, ok2 := readString(mod, u32(s[2]), u32(s[3]))
	if !ok1 || !ok2 {
		return StatusInvalidMemoryAccess
	}
	if vmID == "" {
		vmID = vm.host.opts.VMID
	}
	token, found := vm.host.process.resolveQueue(vmID, name)
	if !found {
		return StatusNotFound
	}
	if !mod.Memory().WriteUint32Le(u32(s[4]), token) {
		return StatusInvalidMemoryAccess
	}
	return StatusOK
}

func hcEnqueueSharedQueue(vm *VM, mod api.Module, s []uint64) Status {
	v, ok := read(mod, u32(s[1]), u32(s[2]))
	if !ok {
		return StatusInvalidMemoryAccess
	}
	token := u32(s[0])
	target, ctxID, st := vm.host.process.enqueue(token, v)
	if st == StatusOK && target != nil {
		// Envoy posts proxy_on_queue_ready to the registering VM's thread;
		// here it runs right after the current call into this VM.
		vm.pending = append(vm.pending, queueReady{vm: target, contextID: ctxID, token: token})
	}
	return st
}

func hcDequeueSharedQueue(vm *VM, mod api.Module, s []uint64) Status {
	v, st := vm.host.process.dequeue(u32(s[0]))
	if st != StatusOK {
		return st
	}
	if len(v) == 0 {
		mem := mod.Memory()
		if !mem.WriteUint32Le(u32(s[1]), 0) || !mem.WriteUint32Le(u32(s[2]), 0) {
			return StatusInvalidMemoryAccess
		}
		return StatusOK
	}
	return vm.copyOut(mod, v, u32(s[1]), u32(s[2]))
}

// Metric ids carry their type in the low two bits, as in Envoy.
const (
	metricTypeMask = 0x3
	metricIDStep   = 0x4
)

func hcDefineMetric(vm *VM, mod api.Module, s []uint64) Status {
	t := MetricType(u32(s[0]))
	if t > MetricHistogram {
		return StatusBadArgument
	}
	name, ok := readString(mod, u32(s[1]), u32(s[2]))
	if !ok {
		return StatusInvalidMemoryAccess
	}
	vm.metricSeq[t]++
	id := uint32(t) + metricIDStep*vm.metricSeq[t]
	vm.metrics[id] = vm.host.process.metric(vm.host.opts.VMID, name, t)
	if !mod.Memory().WriteUint32Le(u32(s[3]), id) {
		return StatusInvalidMemoryAccess
	}
	return StatusOK
}

func hcIncrementMetric(vm *VM, _ api.Module, s []uint64) Status {
	id := u32(s[0])
	if MetricType(id&metricTypeMask) == MetricHistogram {
		return StatusBadArgument
	}
	m := vm.metrics[id]
	if m == nil {
		return StatusNotFound
	}
	return vm.host.process.incrementMetric(m, int64(s[1]))
}

func hcRecordMetric(vm *VM, _ api.Module, s []uint64) Status {
	m := vm.metrics[u32(s[0])]
	if m == nil {
		return StatusNotFound
	}
	return vm.host.process.recordMetric(m, s[1])
}

func hcGetMetric(vm *VM, mod api.Module, s []uint64) Status {
	id := u32(s[0])
	if MetricType(id&metricTypeMask) == MetricHistogram {
		return StatusBadArgument
	}
	m := vm.metrics[id]
	if m == nil {
		return StatusNotFound
	}
	v, st := vm.host.process.getMetric(m)
	if st != StatusOK {
		return st
	}
	if !mod.Memory().WriteUint64Le(u32(s[1]), v) {
		return StatusInvalidMemoryAccess
	}
	return StatusOK
}

func hcHTTPCall(vm *VM, mod api.Module, s []uint64) Status {
	mem := mod.Memory()
	if !mem.WriteUint32Le(u32(s[9]), 0) {
		return StatusInvalidMemoryAccess
	}
	if vm.host.opts.HTTPCall == nil {
		return StatusUnimplemented
	}
	cluster, ok1 := readString(mod, u32(s[0]), u32(s[1]))
	hdrs, ok2 := read(mod, u32(s[2]), u32(s[3]))
	body, ok3 := read(mod, u32(s[4]), u32(s[5]))
	trls, ok4 := read(mod, u32(s[6]), u32(s[7]))
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return StatusInvalidMemoryAccess
	}
	h, err1 := DecodePairs(hdrs)
	t, err2 := DecodePairs(trls)
	if err1 != nil || err2 != nil {
		return StatusBadArgument
	}
	h = h.lowered()
	// Envoy refuses a request without these (and an unknown cluster).
	for _, k := range []string{":path", ":method", ":authority"} {
		if _, ok := h.Get(k); !ok {
			return StatusBadArgument
		}
	}
	token := vm.startHTTPCall(HTTPCallRequest{
		Cluster: cluster, Headers: h, Body: body, Trailers: t.lowered(),
		Timeout: time.Duration(u32(s[8])) * time.Millisecond,
	})
	if !mem.WriteUint32Le(u32(s[9]), token) {
		return StatusInvalidMemoryAccess
	}
	return StatusOK
}

func hcSetEffectiveContext(vm *VM, _ api.Module, s []uint64) Status {
	id := u32(s[0])
	if id != rootContextID && vm.streams[id] == nil {
		return StatusBadArgument
	}
	if vm.call != nil {
		vm.call.effective = id
	}
	return StatusOK
}

func hcDone(*VM, api.Module, []uint64) Status {
	// Only meaningful while a root context whose proxy_on_done returned
	// false is pending; the host deletes root contexts at Close regardless.
	return StatusNotFound
}

func hcCallForeignFunction(*VM, api.Module, []uint64) Status {
	return StatusNotFound
}
