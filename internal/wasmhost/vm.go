package wasmhost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero/api"
)

// rootContextID is the id of the plugin (root) context in every VM.
const rootContextID = 1

// LogLine is one line a VM logged.
type LogLine struct {
	Level LogLevel
	Msg   string
}

// maxLogLines bounds VM.Logs.
const maxLogLines = 512

// VM is one instance of the module (one Envoy worker thread's VM). Calls
// into it never overlap; a Stream is pinned to the VM that created it.
type VM struct {
	host  *Host
	index int
	ctx   context.Context // carries the VM to the host functions

	mu     sync.Mutex
	mod    api.Module
	fns    map[string]api.Function
	alloc  api.Function
	gen    uint64
	failed error
	// runtimeFailure: failed is a trap in a callback, which FailReload
	// reloads (not a failure to start); lastLoad is when the instance was
	// last (re)loaded, which its back-off counts from (reload.go).
	runtimeFailure bool
	lastLoad       time.Time
	reloads        ReloadStats
	closed         bool
	streams        map[uint32]*Stream
	nextID         uint32
	call           *callState
	// restricted is set while _initialize or the allocator runs: proxy-wasm
	// hosts refuse env.proxy_* calls other than proxy_log then.
	restricted string
	metrics    map[uint32]*metric
	metricSeq  [3]uint32
	// pending proxy_on_queue_ready deliveries, run once the lock is released
	pending []queueReady
	// proxy_http_call: the next token, and the response the guest may read
	// during proxy_on_http_call_response
	nextCallout uint32
	httpResp    *HTTPCallResponse

	tickPeriod      atomic.Int64
	pollOneoffCalls atomic.Uint64

	logMu   sync.Mutex
	logs    []LogLine
	capture *[]LogLine // lines logged while starting, for ConfigError
	out     [2]bytes.Buffer
}

// callState is the state of one top-level call into the guest.
type callState struct {
	contextID   uint32
	effective   uint32 // proxy_set_effective_context
	configuring bool   // PLUGIN_CONFIGURATION is readable
	stopNext    bool   // proxy_send_local_response was called
	actions     []action
}

type actionKind int

const (
	actionContinue actionKind = iota
	actionClose
	actionLocalReply
)

// action is work proxy-wasm hosts defer until the guest call returns.
type action struct {
	kind   actionKind
	stream *Stream
	dir    StreamType
	reply  LocalReply
}

type queueReady struct {
	vm        *VM
	contextID uint32
	token     uint32
}

type vmKey struct{}

func vmFrom(ctx context.Context) *VM {
	vm, _ := ctx.Value(vmKey{}).(*VM)
	return vm
}

// newVM instantiates, initializes, starts and configures a VM. index -1 is
// the configuration canary.
func (h *Host) newVM(ctx context.Context, index int) (*VM, error) {
	vm := &VM{host: h, index: index}
	vm.ctx = context.WithValue(context.Background(), vmKey{}, vm)
	vm.mu.Lock()
	err := vm.startLocked(ctx)
	vm.unlock()
	if err != nil {
		vm.mu.Lock()
		if vm.mod != nil {
			vm.mod.Close(ctx)
		}
		vm.mu.Unlock()
		return nil, err
	}
	return vm, nil
}

// startLocked (re)instantiates the module and runs the start sequence.
func (vm *VM) startLocked(ctx context.Context) error {
	h := vm.host
	var captured []LogLine
	vm.logMu.Lock()
	vm.capture = &captured
	vm.logMu.Unlock()
	defer func() {
		vm.logMu.Lock()
		vm.capture = nil
		vm.logMu.Unlock()
	}()
	logs := func() []LogLine {
		vm.flushOutput()
		vm.logMu.Lock()
		defer vm.logMu.Unlock()
		return append([]LogLine(nil), captured...)
	}

	mod, err := h.runtime.InstantiateModule(vm.ctx, h.compiled, h.moduleConfig(vm))
	if err != nil {
		return fmt.Errorf("wasmhost: instantiating the module: %w", err)
	}
	vm.mod = mod
	vm.fns = map[string]api.Function{}
	vm.gen++
	vm.failed, vm.runtimeFailure = nil, false
	vm.lastLoad = h.clock()
	vm.streams = map[uint32]*Stream{}
	vm.nextID = rootContextID + 1
	vm.metrics = map[uint32]*metric{}
	vm.metricSeq = [3]uint32{}
	vm.tickPeriod.Store(0)

	// cpp-host prefers malloc over proxy_on_memory_allocate.
	vm.alloc = mod.ExportedFunction("malloc")
	if vm.alloc == nil {
		vm.alloc = mod.ExportedFunction("proxy_on_memory_allocate")
	}
	if vm.alloc == nil {
		return errors.New("wasmhost: the module exports no allocator (proxy_on_memory_allocate or malloc)")
	}
	abi := false
	for _, name := range []string{"proxy_abi_version_0_2_1", "proxy_abi_version_0_2_0", "proxy_abi_version_0_1_0"} {
		if mod.ExportedFunction(name) != nil {
			abi = true
		}
	}
	if !abi {
		return errors.New("wasmhost: the module exports no proxy_abi_version_0_x_y marker")
	}

	for _, name := range []string{"_initialize", "_start"} {
		if f := mod.ExportedFunction(name); f != nil {
			vm.restricted = name
			_, err := f.Call(vm.ctx)
			vm.restricted = ""
			if err != nil {
				vm.fail(name, err)
				return &ConfigError{Stage: "initialize", Logs: logs(), Err: vm.failed}
			}
			break
		}
	}

	cs := &callState{contextID: rootContextID, configuring: true}
	vm.callWith(cs, "proxy_on_context_create", rootContextID, 0)
	vm.runActions(cs.actions)
	cs = &callState{contextID: rootContextID}
	res, called := vm.callWith(cs, "proxy_on_vm_start", rootContextID, uint64(len(h.opts.VMConfig)))
	vm.runActions(cs.actions)
	if vm.failed != nil {
		return &ConfigError{Stage: "vm_start", Logs: logs(), Err: vm.failed}
	}
	if called && uint32(res) == 0 {
		return &ConfigError{Stage: "vm_start", Logs: logs()}
	}
	cs = &callState{contextID: rootContextID, configuring: true}
	res, called = vm.callWith(cs, "proxy_on_configure", rootContextID, uint64(len(h.opts.PluginConfig)))
	vm.runActions(cs.actions)
	if vm.failed != nil {
		return &ConfigError{Stage: "configure", Logs: logs(), Err: vm.failed}
	}
	if called && uint32(res) == 0 {
		return &ConfigError{Stage: "configure", Logs: logs()}
	}
	return nil
}

// reloadLocked replaces a failed instance (FailReload).
func (vm *VM) reloadLocked() {
	old := vm.mod
	for _, s := range vm.streams {
		s.orphaned = true
	}
	if err := vm.startLocked(context.Background()); err != nil {
		vm.hostLog(LogError, "reloading the failed VM: "+err.Error())
		if vm.failed == nil {
			vm.failed = err
		}
		// A reload that fails to start is retried after the back-off, as
		// Envoy retries it.
		vm.runtimeFailure = true
	} else {
		vm.hostLog(LogInfo, "failed VM reloaded")
	}
	if old != nil && old != vm.mod {
		old.Close(context.Background())
	}
}

func (vm *VM) close(ctx context.Context, shutdown bool) {
	vm.mu.Lock()
	if shutdown && vm.failed == nil && vm.mod != nil {
		cs := &callState{contextID: rootContextID}
		res, called := vm.callWith(cs, "proxy_on_done", rootContextID)
		if !called || uint32(res) != 0 {
			vm.callWith(&callState{contextID: rootContextID}, "proxy_on_delete", rootContextID)
		}
	}
	if vm.mod != nil {
		vm.mod.Close(ctx)
	}
	vm.closed = true
	vm.flushOutput()
	vm.mu.Unlock()
}

// unlock releases the VM and then delivers pending proxy_on_queue_ready
// calls (which may target this or other VMs).
func (vm *VM) unlock() {
	pending := vm.pending
	vm.pending = nil
	vm.mu.Unlock()
	if len(pending) > 0 {
		vm.deliverQueueReady(pending)
	}
}

func (vm *VM) deliverQueueReady(notes []queueReady) {
	for _, n := range notes {
		t := n.vm
		t.mu.Lock()
		if t.failed == nil && !t.closedLocked() {
			cs := &callState{contextID: n.contextID}
			t.callWith(cs, "proxy_on_queue_ready", uint64(n.contextID), uint64(n.token))
			t.runActions(cs.actions)
		}
		t.unlock()
	}
}

func (vm *VM) export(name string) api.Function {
	if f, ok := vm.fns[name]; ok {
		return f
	}
	f := vm.mod.ExportedFunction(name)
	vm.fns[name] = f
	return f
}

// callWith calls an export with vm.mu held. A missing export is skipped
// (called false), as proxy-wasm hosts do; so is every call once the VM has
// failed. A trap marks the VM failed.
func (vm *VM) callWith(cs *callState, name string, args ...uint64) (uint64, bool) {
	if vm.failed != nil || vm.closedLocked() {
		return 0, false
	}
	f := vm.export(name)
	if f == nil {
		return 0, false
	}
	prev := vm.call
	vm.call = cs
	res, err := f.Call(vm.ctx, args...)
	vm.call = prev
	if err != nil {
		vm.fail(name, err)
		vm.runtimeFailure = true
		return 0, true
	}
	if vm.failed != nil { // the allocator trapped during a host call
		vm.runtimeFailure = true
		return 0, true
	}
	if len(res) > 0 {
		return res[0], true
	}
	return 0, true
}

// runActions runs deferred work in order (vm.mu held). Actions of a VM that
// failed meanwhile are dropped.
func (vm *VM) runActions(actions []action) {
	for _, a := range actions {
		if vm.failed != nil {
			return
		}
		s := a.stream
		if s == nil || s.closed || s.orphaned {
			continue
		}
		switch a.kind {
		case actionContinue:
			s.continueLocked(a.dir)
		case actionClose:
			s.resetLocked("wasm_close_stream")
		case actionLocalReply:
			s.localReplyLocked(a.reply)
		}
	}
}

func (vm *VM) fail(where string, err error) {
	vm.flushOutput()
	vm.failed = fmt.Errorf("%s: %w", where, err)
	vm.hostLog(LogCritical, fmt.Sprintf("VM %d failed in %s: %v", vm.index, where, err))
}

// checkRestricted panics (which wazero turns into a trap of the current
// call) when the guest makes a host call proxy-wasm hosts refuse while
// _initialize or the allocator runs.
func (vm *VM) checkRestricted(name string) {
	if vm.restricted != "" && name != "proxy_log" {
		panic(fmt.Errorf("host call env.%s is not allowed while %s runs", name, vm.restricted))
	}
}

// allocate copies data into guest memory through the guest's allocator
// (re-entrantly, inside a host call) and returns its address.
func (vm *VM) allocate(mem api.Memory, data []byte) (uint32, bool) {
	if len(data) == 0 {
		return 0, true
	}
	prev := vm.restricted
	vm.restricted = "proxy_on_memory_allocate"
	res, err := vm.alloc.Call(vm.ctx, uint64(len(data)))
	vm.restricted = prev
	if err != nil {
		vm.fail("proxy_on_memory_allocate", err)
		return 0, false
	}
	ptr := uint32(res[0])
	if ptr == 0 {
		return 0, false
	}
	return ptr, mem.Write(ptr, data)
}

// copyOut returns data to the guest: allocated copy, then pointer and size
// written to the out-parameters.
func (vm *VM) copyOut(mod api.Module, data []byte, ptrPtr, sizePtr uint32) Status {
	mem := mod.Memory()
	ptr, ok := vm.allocate(mem, data)
	if !ok {
		return StatusInvalidMemoryAccess
	}
	if !mem.WriteUint32Le(ptrPtr, ptr) || !mem.WriteUint32Le(sizePtr, uint32(len(data))) {
		return StatusInvalidMemoryAccess
	}
	return StatusOK
}

// startHTTPCall runs Options.HTTPCall and delivers its response.
func (vm *VM) startHTTPCall(req HTTPCallRequest) uint32 {
	vm.nextCallout++
	token, gen := vm.nextCallout, vm.gen
	call := vm.host.opts.HTTPCall
	go func() {
		ctx := context.Background()
		if req.Timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, req.Timeout)
			defer cancel()
		}
		resp, err := call(ctx, req)
		if err != nil || resp == nil {
			resp = &HTTPCallResponse{}
		}
		vm.mu.Lock()
		defer vm.unlock()
		if vm.gen != gen || vm.failed != nil || vm.closedLocked() {
			return
		}
		vm.httpResp = resp
		cs := &callState{contextID: rootContextID}
		vm.callWith(cs, "proxy_on_http_call_response", rootContextID, uint64(token),
			uint64(len(resp.Headers)), uint64(len(resp.Body)), uint64(len(resp.Trailers)))
		vm.httpResp = nil
		vm.runActions(cs.actions)
	}()
	return token
}

// Index is the worker number (-1 for the canary).
func (vm *VM) Index() int { return vm.index }

// Err reports why the VM failed (a trap), or nil.
func (vm *VM) Err() error {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return vm.failed
}

// MemorySize is the size of the VM's linear memory in bytes.
func (vm *VM) MemorySize() uint32 {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	if vm.mod == nil {
		return 0
	}
	return vm.mod.Memory().Size()
}

// TickPeriod is the period the guest set with
// proxy_set_tick_period_milliseconds (0: none).
func (vm *VM) TickPeriod() time.Duration { return time.Duration(vm.tickPeriod.Load()) }

// Tick calls proxy_on_tick on the root context.
func (vm *VM) Tick() {
	vm.mu.Lock()
	cs := &callState{contextID: rootContextID}
	vm.callWith(cs, "proxy_on_tick", rootContextID)
	vm.runActions(cs.actions)
	vm.unlock()
}

// PollOneoffCalls counts the guest's WASI poll_oneoff calls.
func (vm *VM) PollOneoffCalls() uint64 { return vm.pollOneoffCalls.Load() }

// Allocate calls the guest's allocator for size bytes outside any callback,
// as a host does before returning data, and returns the address. (Tests use
// it to grow the guest heap.) A trap fails the VM and is returned.
func (vm *VM) Allocate(size uint32) (uint32, error) {
	vm.mu.Lock()
	defer vm.unlock()
	if vm.failed != nil {
		return 0, vm.failed
	}
	if vm.closedLocked() {
		return 0, errors.New("wasmhost: the VM is closed")
	}
	prev := vm.restricted
	vm.restricted = "proxy_on_memory_allocate"
	res, err := vm.alloc.Call(vm.ctx, uint64(size))
	vm.restricted = prev
	if err != nil {
		vm.fail("proxy_on_memory_allocate", err)
		vm.runtimeFailure = true
		return 0, vm.failed
	}
	return uint32(res[0]), nil
}

// Logs returns the last lines the VM logged (up to 512), whatever
// Options.LogLevel says.
func (vm *VM) Logs() []LogLine {
	vm.logMu.Lock()
	defer vm.logMu.Unlock()
	return append([]LogLine(nil), vm.logs...)
}

// hostLog records a line and passes it on to Options.Logger.
func (vm *VM) hostLog(level LogLevel, msg string) {
	vm.logMu.Lock()
	line := LogLine{level, msg}
	if len(vm.logs) >= maxLogLines {
		copy(vm.logs, vm.logs[1:])
		vm.logs = vm.logs[:len(vm.logs)-1]
	}
	vm.logs = append(vm.logs, line)
	if vm.capture != nil {
		*vm.capture = append(*vm.capture, line)
	}
	vm.logMu.Unlock()
	if level >= vm.host.opts.LogLevel && vm.host.opts.Logger != nil {
		vm.host.opts.Logger(level, msg)
	}
}

// lineWriter turns the guest's stdout/stderr into log lines.
type lineWriter struct {
	vm    *VM
	level LogLevel
}

func (w *lineWriter) Write(p []byte) (int, error) {
	vm := w.vm
	i := 0
	if w.level == LogError {
		i = 1
	}
	vm.logMu.Lock()
	buf := &vm.out[i]
	buf.Write(p)
	var lines []string
	for {
		b := buf.Bytes()
		j := bytes.IndexByte(b, '\n')
		if j < 0 {
			break
		}
		lines = append(lines, string(b[:j]))
		buf.Next(j + 1)
	}
	vm.logMu.Unlock()
	for _, l := range lines {
		vm.hostLog(w.level, l)
	}
	return len(p), nil
}

// flushOutput logs partial stdout/stderr lines.
func (vm *VM) flushOutput() {
	var lines [2]string
	vm.logMu.Lock()
	for i := range vm.out {
		lines[i] = vm.out[i].String()
		vm.out[i].Reset()
	}
	vm.logMu.Unlock()
	if lines[0] != "" {
		vm.hostLog(LogInfo, lines[0])
	}
	if lines[1] != "" {
		vm.hostLog(LogError, lines[1])
	}
}
