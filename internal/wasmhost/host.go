package wasmhost

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

// FailurePolicy is what happens to streams once a VM has trapped (Envoy's
// failure_policy; the deprecated fail_open is FailOpen).
type FailurePolicy int

const (
	// FailClosed (Envoy's default): every stream of a failed VM is answered
	// with a local reply 503 (or reset once response headers went out).
	FailClosed FailurePolicy = iota
	// FailOpen: streams of a failed VM pass unfiltered.
	FailOpen
	// FailReload (Envoy ≥ 1.33): a new stream on a VM that trapped first
	// replaces it with a fresh instance (_initialize, vm start, configure)
	// once Options.ReloadBackoff allows; streams still on the failed
	// instance, and those created during the back-off, fail closed
	// (reload.go).
	FailReload
)

// Options configure a Host. Only Wasm is required.
type Options struct {
	// Wasm is the module binary.
	Wasm []byte
	// PluginConfig is the plugin configuration (Envoy: config.configuration),
	// readable by the guest during proxy_on_configure.
	PluginConfig []byte
	// VMConfig is the VM configuration (Envoy: vm_config.configuration).
	VMConfig []byte
	// PluginName, RootID and VMID are Envoy's config.name, config.root_id and
	// vm_config.vm_id: the properties plugin_name, plugin_root_id and
	// plugin_vm_id; VMID also keys shared data, queues and metrics.
	PluginName, RootID, VMID string

	// Workers is the number of worker VMs (Envoy: one per worker thread);
	// default 1.
	Workers int
	// SkipCanary leaves out the configuration-canary VM: by default, like
	// proxy-wasm-cpp-host, New first starts and configures an extra VM to
	// validate the configuration and then discards it (whatever it wrote to
	// shared data stays).
	SkipCanary bool

	// HostEnvKeys and Env are Envoy's vm_config.environment_variables:
	// host_env_keys copies the named variables from this process's
	// environment (unset ones are skipped), key_values sets literals (and
	// wins on a clash). The guest reads them through WASI environ_get.
	HostEnvKeys []string
	Env         map[string]string

	// Logger receives proxy_log lines, the guest's stdout (info) and stderr
	// (error) lines, and the host's own messages about the VM (traps,
	// proc_exit). It is called with the VM's lock held: it must not call
	// back into the Host. Nil discards.
	Logger func(level LogLevel, msg string)
	// LogLevel is what proxy_get_log_level reports; lines below it are
	// dropped. Envoy's default is info; the zero value here is trace.
	LogLevel LogLevel

	// Clock is the host's wall clock: proxy_get_current_time_nanoseconds and
	// the guest's WASI realtime clock (time.Now in the guest). Default
	// time.Now, with the guest's monotonic clock real elapsed time. A
	// custom Clock is simulated time, as Envoy's SimulatedTimeSystem: the
	// guest's monotonic clock then moves only as far as Clock moved since
	// New (and a nanosecond per read, so it never stands still), so a
	// guest that derives the wall time from the monotonic one (plugin/mcp
	// does) sees exactly Clock however long a test really takes.
	Clock func() time.Time

	// Properties answers proxy_get_property for paths the host does not
	// know itself; keys are paths with segments joined by NUL (see
	// PropertyPath). Per-stream values go through Stream.SetProperty.
	Properties map[string][]byte

	// PollOneoff selects the WASI poll_oneoff behaviour (default: current
	// Envoy, no events).
	PollOneoff PollOneoff
	// FailurePolicy: what happens after a trap (default FailClosed).
	FailurePolicy FailurePolicy
	// ReloadBackoff is FailReload's back-off base interval (Envoy's
	// reload_config.backoff.base_interval); 0 is Envoy's default of 1 s,
	// negative none (the next stream reloads).
	ReloadBackoff time.Duration
	// AllowOnHeadersStopIteration is Envoy's
	// config.allow_on_headers_stop_iteration: PAUSE from a headers callback
	// is plain StopIteration (body callbacks still arrive and a body
	// CONTINUE releases headers and body) instead of Envoy's default
	// StopAllIterationAndWatermark (nothing more reaches the plugin until
	// proxy_continue_stream).
	AllowOnHeadersStopIteration bool
	// BufferLimitBytes is the stream buffer limit (Envoy:
	// per_connection_buffer_limit_bytes, default 1 MiB). A body the plugin
	// buffers (PAUSE from a body callback) beyond it gets a local reply 413
	// on requests, 500 (or a reset) on responses. Negative: no limit.
	BufferLimitBytes int
	// LaterFilterBufferLimit models a decoder filter after the plugin that
	// sets the stream's buffer limit when the request headers reach it
	// (Envoy's setDecoderBufferLimit: the stream has one limit, for its
	// buffered request and response data). Envoy's mcp filter sets its
	// max_request_body_size so on every JSON POST with a body
	// (docs/HARNESS.md). It gets the request headers the plugin released
	// and whether they end the stream, and returns the stream's new limit,
	// or 0 to keep it. Nil: no such filter.
	LaterFilterBufferLimit func(h Headers, endOfStream bool) int
	// Semantics: where the host departs from Envoy around bodies,
	// trailers and local replies (ngxwasm.go); the zero value is Envoy.
	Semantics Semantics

	// HTTPCall answers proxy_http_call (Envoy: an HTTP request to a
	// configured cluster). It runs on its own goroutine; its result reaches
	// the guest as proxy_on_http_call_response on the root context (an error
	// arrives as a response with no headers, body or trailers, like a reset
	// in Envoy). Nil: proxy_http_call answers UNIMPLEMENTED.
	HTTPCall func(ctx context.Context, req HTTPCallRequest) (*HTTPCallResponse, error)

	// Process holds shared data, queues and metrics; default a new one.
	Process *Process
	// CompilationCacheDir is wazero's compilation cache; default
	// $TMPDIR/mcp-privacy-wazero-cache; "-" disables the cache.
	CompilationCacheDir string
}

// HTTPCallRequest is what a guest's proxy_http_call asked for.
type HTTPCallRequest struct {
	Cluster  string
	Headers  Headers // with :method, :path and :authority
	Body     []byte
	Trailers Headers
	Timeout  time.Duration // 0: none
}

// HTTPCallResponse is what Options.HTTPCall answers.
type HTTPCallResponse struct {
	Headers  Headers // with :status
	Body     []byte
	Trailers Headers
}

// PropertyPath joins property path segments the way proxy_get_property
// receives them (NUL-separated).
func PropertyPath(segments ...string) string { return strings.Join(segments, "\x00") }

// ConfigError is returned by New when a VM refuses its configuration:
// proxy_on_vm_start or proxy_on_configure returned false, or the VM trapped
// while starting.
type ConfigError struct {
	// Stage is "vm_start", "configure" or "initialize".
	Stage string
	// Logs are the lines the VM logged while starting.
	Logs []LogLine
	// Err is the trap, if the VM trapped.
	Err error
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	switch {
	case e.Err != nil:
		fmt.Fprintf(&b, "wasmhost: VM failed during %s: %v", e.Stage, e.Err)
	case e.Stage == "configure":
		b.WriteString("wasmhost: proxy_on_configure rejected the plugin configuration")
	default:
		fmt.Fprintf(&b, "wasmhost: proxy_on_%s returned false", e.Stage)
	}
	for _, l := range e.Logs {
		fmt.Fprintf(&b, "\n  [%s] %s", l.Level, l.Msg)
	}
	return b.String()
}

func (e *ConfigError) Unwrap() error { return e.Err }

// Host is a proxy-wasm 0.2.1 host that behaves like Envoy: one compiled
// module, a canary VM and N worker VMs, shared process state.
type Host struct {
	opts     Options
	runtime  wazero.Runtime
	compiled wazero.CompiledModule
	process  *Process
	env      [][2]string
	clock    func() time.Time
	start    time.Time

	unimplemented []string
	moduleSeq     atomic.Uint64
	rr            atomic.Uint64

	mu      sync.Mutex
	workers []*VM
	closed  bool
}

var (
	cacheMu sync.Mutex
	caches  = map[string]wazero.CompilationCache{}
)

func compilationCache(dir string) (wazero.CompilationCache, error) {
	if dir == "-" {
		return nil, nil
	}
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "mcp-privacy-wazero-cache")
	}
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if c, ok := caches[dir]; ok {
		return c, nil
	}
	c, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return nil, err
	}
	caches[dir] = c
	return c, nil
}

// New compiles the module once, instantiates the canary VM (unless
// SkipCanary) and the worker VMs, and starts and configures each: _initialize,
// proxy_on_context_create(1, 0), proxy_on_vm_start, proxy_on_configure. A
// refused configuration is a *ConfigError carrying what the plugin logged.
func New(ctx context.Context, opts Options) (*Host, error) {
	if len(opts.Wasm) == 0 {
		return nil, errors.New("wasmhost: Options.Wasm is empty")
	}
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	if opts.BufferLimitBytes == 0 {
		opts.BufferLimitBytes = 1 << 20
	}
	h := &Host{opts: opts, process: opts.Process, clock: opts.Clock}
	if h.process == nil {
		h.process = NewProcess()
	}
	if h.clock == nil {
		h.clock = time.Now
	}
	h.start = h.clock()
	h.env = environment(opts.HostEnvKeys, opts.Env)

	cfg := wazero.NewRuntimeConfigCompiler()
	cache, err := compilationCache(opts.CompilationCacheDir)
	if err != nil {
		return nil, fmt.Errorf("wasmhost: compilation cache: %w", err)
	}
	if cache != nil {
		cfg = cfg.WithCompilationCache(cache)
	}
	h.runtime = wazero.NewRuntimeWithConfig(ctx, cfg)
	ok := false
	defer func() {
		if !ok {
			h.runtime.Close(ctx)
		}
	}()
	h.compiled, err = h.runtime.CompileModule(ctx, opts.Wasm)
	if err != nil {
		return nil, fmt.Errorf("wasmhost: compiling the module: %w", err)
	}
	if err := h.instantiateWASI(ctx); err != nil {
		return nil, err
	}
	if err := h.instantiateHostModules(ctx); err != nil {
		return nil, err
	}
	if !opts.SkipCanary {
		canary, err := h.newVM(ctx, -1)
		if err != nil {
			return nil, err
		}
		canary.close(ctx, false)
	}
	for i := 0; i < opts.Workers; i++ {
		vm, err := h.newVM(ctx, i)
		if err != nil {
			for _, w := range h.workers {
				w.close(ctx, false)
			}
			return nil, err
		}
		h.workers = append(h.workers, vm)
	}
	ok = true
	return h, nil
}

func environment(hostKeys []string, kv map[string]string) [][2]string {
	m := map[string]string{}
	for _, k := range hostKeys {
		if v, ok := os.LookupEnv(k); ok {
			m[k] = v
		}
	}
	for k, v := range kv {
		m[k] = v
	}
	out := make([][2]string, 0, len(m))
	for k, v := range m {
		out = append(out, [2]string{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// Close shuts the VMs down (proxy_on_done and proxy_on_delete on each root
// context) and releases the runtime.
func (h *Host) Close(ctx context.Context) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	workers := h.workers
	h.mu.Unlock()
	for _, vm := range workers {
		vm.close(ctx, true)
	}
	return h.runtime.Close(ctx)
}

// Workers returns the worker VMs.
func (h *Host) Workers() []*VM {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*VM(nil), h.workers...)
}

// Worker returns worker VM i.
func (h *Host) Worker(i int) *VM {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.workers[i]
}

// NextWorker picks a worker round robin (how connections spread over
// Envoy's worker threads, roughly).
func (h *Host) NextWorker() *VM {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.rr.Add(1) - 1
	return h.workers[n%uint64(len(h.workers))]
}

// NewStream starts an HTTP stream on the next worker VM.
func (h *Host) NewStream() *Stream { return h.NextWorker().NewStream() }

// Process returns the process-wide state the VMs share.
func (h *Host) Process() *Process { return h.process }

// SharedData returns the shared-data store of this host's vm_id.
func (h *Host) SharedData() *SharedData { return h.process.SharedData(h.opts.VMID) }

// Metrics returns a snapshot of the metrics of this host's vm_id.
func (h *Host) Metrics() map[string]Metric { return h.process.Metrics(h.opts.VMID) }

// Unimplemented lists the imports of the module ("module.name") that the
// host answers with a stub (UNIMPLEMENTED, or zero results).
func (h *Host) Unimplemented() []string { return append([]string(nil), h.unimplemented...) }

// Tick delivers proxy_on_tick to the root context of every worker whose
// guest set a tick period, regardless of how much time has passed.
func (h *Host) Tick() {
	for _, vm := range h.Workers() {
		if vm.TickPeriod() > 0 {
			vm.Tick()
		}
	}
}

// RunTicker delivers proxy_on_tick to each worker at the period its guest
// set (checked every 10 ms of real time) until ctx is done.
func (h *Host) RunTicker(ctx context.Context) {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	last := map[*VM]time.Time{}
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			for _, vm := range h.Workers() {
				p := vm.TickPeriod()
				if p <= 0 {
					continue
				}
				if now.Sub(last[vm]) >= p {
					last[vm] = now
					vm.Tick()
				}
			}
		}
	}
}

// instantiateWASI instantiates wazero's wasi_snapshot_preview1 with the
// functions where proxy-wasm-cpp-host differs replaced: poll_oneoff (see
// PollOneoff) and proc_exit (only logs).
func (h *Host) instantiateWASI(ctx context.Context) error {
	b := h.runtime.NewHostModuleBuilder(wasi_snapshot_preview1.ModuleName)
	wasi_snapshot_preview1.NewFunctionExporter().ExportFunctions(b)
	i32 := api.ValueTypeI32
	mode := h.opts.PollOneoff
	b.NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, mod api.Module, stack []uint64) {
			vm := vmFrom(ctx)
			if vm != nil {
				vm.pollOneoffCalls.Add(1)
			}
			if mode == PollOneoffENOSYS {
				stack[0] = wasiENOSYS
				return
			}
			// Current cpp-host: no event is ready, nothing sleeps.
			if !mod.Memory().WriteUint32Le(uint32(stack[3]), 0) {
				stack[0] = wasiEFAULT
				return
			}
			stack[0] = wasiESUCCESS
		}), []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32}).
		WithParameterNames("in", "out", "nsubscriptions", "result.nevents").
		Export("poll_oneoff")
	b.NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, mod api.Module, stack []uint64) {
			if vm := vmFrom(ctx); vm != nil {
				vm.hostLog(LogError, fmt.Sprintf("wasi proc_exit(%d) called; ignored (proxy-wasm hosts only log it)", uint32(stack[0])))
			}
		}), []api.ValueType{i32}, nil).
		WithParameterNames("rval").
		Export("proc_exit")
	if _, err := b.Instantiate(ctx); err != nil {
		return fmt.Errorf("wasmhost: instantiating WASI: %w", err)
	}
	return nil
}

// instantiateHostModules provides the env module (every proxy-wasm call the
// host implements) and stubs for every other import the module declares.
func (h *Host) instantiateHostModules(ctx context.Context) error {
	builders := map[string]wazero.HostModuleBuilder{}
	builder := func(name string) wazero.HostModuleBuilder {
		b := builders[name]
		if b == nil {
			b = h.runtime.NewHostModuleBuilder(name)
			builders[name] = b
		}
		return b
	}
	env := builder("env")
	for name, hc := range hostCalls {
		fn := hc.fn
		name := name
		env.NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, mod api.Module, stack []uint64) {
				vm := vmFrom(ctx)
				if vm == nil {
					stack[0] = uint64(StatusInternalFailure)
					return
				}
				vm.checkRestricted(name)
				stack[0] = uint64(fn(vm, mod, stack))
			}), hc.params, []api.ValueType{api.ValueTypeI32}).
			Export(name)
	}
	for _, def := range h.compiled.ImportedFunctions() {
		module, name, _ := def.Import()
		if module == wasi_snapshot_preview1.ModuleName {
			continue
		}
		if module == "env" {
			if hc, ok := hostCalls[name]; ok {
				if !sameTypes(hc.params, def.ParamTypes()) || len(def.ResultTypes()) != 1 || def.ResultTypes()[0] != api.ValueTypeI32 {
					return fmt.Errorf("wasmhost: import env.%s has signature %v -> %v, proxy-wasm 0.2.1 says %v -> [i32]",
						name, def.ParamTypes(), def.ResultTypes(), hc.params)
				}
				continue
			}
		}
		results := def.ResultTypes()
		full := module + "." + name
		h.unimplemented = append(h.unimplemented, full)
		builder(module).NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, mod api.Module, stack []uint64) {
				if vm := vmFrom(ctx); vm != nil {
					vm.hostLog(LogDebug, "unimplemented host call "+full)
				}
				for i := range results {
					stack[i] = 0
				}
				if len(results) == 1 {
					stack[0] = uint64(StatusUnimplemented)
				}
			}), def.ParamTypes(), results).
			Export(name)
	}
	sort.Strings(h.unimplemented)
	for name, b := range builders {
		if _, err := b.Instantiate(ctx); err != nil {
			return fmt.Errorf("wasmhost: instantiating host module %q: %w", name, err)
		}
	}
	return nil
}

func sameTypes(a, b []api.ValueType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// moduleConfig is the per-VM WASI configuration.
func (h *Host) moduleConfig(vm *VM) wazero.ModuleConfig {
	clock := h.clock
	start, realStart := h.start, time.Now()
	custom := h.opts.Clock != nil
	var lastMono atomic.Int64
	cfg := wazero.NewModuleConfig().
		WithName(fmt.Sprintf("vm-%d", h.moduleSeq.Add(1))).
		WithStartFunctions().
		WithStdout(&lineWriter{vm: vm, level: LogInfo}).
		WithStderr(&lineWriter{vm: vm, level: LogError}).
		WithRandSource(rand.Reader).
		WithWalltime(sys.Walltime(func() (int64, int32) {
			t := clock()
			return t.Unix(), int32(t.Nanosecond())
		}), sys.ClockResolution(1)).
		WithNanotime(sys.Nanotime(func() int64 {
			// Monotonic: real elapsed time, or with a custom Clock how far
			// it moved (see Options.Clock); never zero (the Go runtime
			// refuses that), never backwards, and under a custom Clock a
			// nanosecond further per read.
			n := int64(time.Since(realStart)) + 1
			if custom {
				n = int64(clock().Sub(start)) + 1
			}
			for {
				last := lastMono.Load()
				if n <= last {
					if !custom {
						return last
					}
					n = last + 1
				}
				if lastMono.CompareAndSwap(last, n) {
					return n
				}
			}
		}), sys.ClockResolution(1))
	for _, kv := range h.env {
		cfg = cfg.WithEnv(kv[0], kv[1])
	}
	return cfg
}
