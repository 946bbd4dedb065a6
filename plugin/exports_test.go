package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// These tests check the .wasm that `make wasm` builds (scripts/build-wasm.sh),
// not the native package: what a proxy-wasm host links against.
//
// By default the module is (re)built first with the script, so the tests see
// the current source; the build is incremental and takes about a second when
// nothing changed (15-30 s from a cold Go cache). MCP_PRIVACY_WASM=<file>
// checks that file instead, without building.

const i32, i64 = api.ValueTypeI32, api.ValueTypeI64

// sig is a function signature, e.g. "i32,i32->i32".
func sig(params, results []api.ValueType) string {
	name := func(ts []api.ValueType) string {
		s := make([]string, len(ts))
		for i, t := range ts {
			s[i] = api.ValueTypeName(t)
		}
		return strings.Join(s, ",")
	}
	return name(params) + "->" + name(results)
}

func i32s(n int) []api.ValueType {
	ts := make([]api.ValueType, n)
	for i := range ts {
		ts[i] = i32
	}
	return ts
}

// requiredExports are the exports a proxy-wasm 0.2.1 host looks for, with
// their ABI signatures. A host silently skips a callback that is missing,
// and refuses the module when one has the wrong signature.
var requiredExports = map[string]string{
	"_initialize":                          "->",
	"proxy_abi_version_0_2_1":              "->",
	"proxy_on_memory_allocate":             "i32->i32",
	"proxy_on_vm_start":                    "i32,i32->i32",
	"proxy_on_configure":                   "i32,i32->i32",
	"proxy_on_context_create":              "i32,i32->",
	"proxy_on_request_headers":             "i32,i32,i32->i32",
	"proxy_on_request_body":                "i32,i32,i32->i32",
	"proxy_on_request_trailers":            "i32,i32->i32",
	"proxy_on_response_headers":            "i32,i32,i32->i32",
	"proxy_on_response_body":               "i32,i32,i32->i32",
	"proxy_on_response_trailers":           "i32,i32->i32",
	"proxy_on_log":                         "i32->",
	"proxy_on_done":                        "i32->i32",
	"proxy_on_delete":                      "i32->",
	"proxy_on_tick":                        "i32->",
	"proxy_on_queue_ready":                 "i32,i32->",
	"proxy_on_http_call_response":          "i32,i32,i32,i32,i32->",
	"proxy_on_new_connection":              "i32->i32",
	"proxy_on_downstream_data":             "i32,i32,i32->i32",
	"proxy_on_upstream_data":               "i32,i32,i32->i32",
	"proxy_on_downstream_connection_close": "i32,i32->",
	"proxy_on_upstream_connection_close":   "i32,i32->",
}

// hostCalls are the env imports the SDK may use, with their ABI 0.2.1
// signatures (all i32 but the metric values). The linker drops the ones the
// plugin never reaches, so the module imports a subset.
var hostCalls = map[string]string{
	"proxy_log":                          sig(i32s(3), i32s(1)),
	"proxy_set_property":                 sig(i32s(4), i32s(1)),
	"proxy_get_property":                 sig(i32s(4), i32s(1)),
	"proxy_send_local_response":          sig(i32s(8), i32s(1)),
	"proxy_get_shared_data":              sig(i32s(5), i32s(1)),
	"proxy_set_shared_data":              sig(i32s(5), i32s(1)),
	"proxy_register_shared_queue":        sig(i32s(3), i32s(1)),
	"proxy_resolve_shared_queue":         sig(i32s(5), i32s(1)),
	"proxy_dequeue_shared_queue":         sig(i32s(3), i32s(1)),
	"proxy_enqueue_shared_queue":         sig(i32s(3), i32s(1)),
	"proxy_get_header_map_value":         sig(i32s(5), i32s(1)),
	"proxy_add_header_map_value":         sig(i32s(5), i32s(1)),
	"proxy_replace_header_map_value":     sig(i32s(5), i32s(1)),
	"proxy_remove_header_map_value":      sig(i32s(3), i32s(1)),
	"proxy_get_header_map_pairs":         sig(i32s(3), i32s(1)),
	"proxy_set_header_map_pairs":         sig(i32s(3), i32s(1)),
	"proxy_continue_stream":              sig(i32s(1), i32s(1)),
	"proxy_close_stream":                 sig(i32s(1), i32s(1)),
	"proxy_get_buffer_bytes":             sig(i32s(5), i32s(1)),
	"proxy_set_buffer_bytes":             sig(i32s(5), i32s(1)),
	"proxy_http_call":                    sig(i32s(10), i32s(1)),
	"proxy_call_foreign_function":        sig(i32s(6), i32s(1)),
	"proxy_set_tick_period_milliseconds": sig(i32s(1), i32s(1)),
	"proxy_set_effective_context":        sig(i32s(1), i32s(1)),
	"proxy_done":                         sig(nil, i32s(1)),
	"proxy_define_metric":                sig(i32s(4), i32s(1)),
	"proxy_increment_metric":             sig([]api.ValueType{i32, i64}, i32s(1)),
	"proxy_record_metric":                sig([]api.ValueType{i32, i64}, i32s(1)),
	"proxy_get_metric":                   sig(i32s(2), i32s(1)),
}

var (
	wasmOnce  sync.Once
	wasmBytes []byte
	wasmErr   string
)

// wasmModule returns the built module, building it once per test binary.
func wasmModule(t *testing.T) []byte {
	t.Helper()
	wasmOnce.Do(func() { wasmBytes, wasmErr = loadWasm() })
	if wasmErr != "" {
		t.Fatal(wasmErr)
	}
	return wasmBytes
}

func loadWasm() ([]byte, string) {
	path := os.Getenv("MCP_PRIVACY_WASM")
	if path == "" {
		root, err := filepath.Abs("..") // tests run in plugin/
		if err != nil {
			return nil, err.Error()
		}
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
			return nil, "repository root not found: " + err.Error()
		}
		path = filepath.Join(root, "build", "mcp-privacy.wasm")
		// The build must not inherit this test's settings (go test -race,
		// GOFLAGS, GOOS, CGO_ENABLED): the script sets its own.
		cmd := exec.Command("bash", filepath.Join(root, "scripts", "build-wasm.sh"), path)
		cmd.Dir = root
		for _, kv := range os.Environ() {
			switch strings.SplitN(kv, "=", 2)[0] {
			case "GOFLAGS", "GOOS", "GOARCH", "CGO_ENABLED", "GOEXPERIMENT", "BUILD":
				continue
			}
			cmd.Env = append(cmd.Env, kv)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, "scripts/build-wasm.sh: " + err.Error() + "\n" + string(out)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err.Error()
	}
	return b, ""
}

// The tests use wazero's interpreter: compiling the module to native code
// takes about 15 s under -race, interpreting it well under a second. The
// cache shares the compiled module between the tests' runtimes.
var compileCache = wazero.NewCompilationCache()

func compile(t *testing.T) (context.Context, wazero.Runtime, wazero.CompiledModule) {
	t.Helper()
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter().WithCompilationCache(compileCache))
	t.Cleanup(func() { r.Close(ctx) })
	cm, err := r.CompileModule(ctx, wasmModule(t))
	if err != nil {
		t.Fatalf("compiling the module: %v", err)
	}
	return ctx, r, cm
}

func TestWasmExports(t *testing.T) {
	_, _, cm := compile(t)
	exports := cm.ExportedFunctions()

	names := make([]string, 0, len(exports))
	for name := range exports {
		names = append(names, name)
	}
	sort.Strings(names)
	t.Logf("exports: %s", strings.Join(names, " "))

	for name, want := range requiredExports {
		def, ok := exports[name]
		if !ok {
			t.Errorf("missing export %s", name)
			continue
		}
		if got := sig(def.ParamTypes(), def.ResultTypes()); got != want {
			t.Errorf("export %s has signature %s, want %s", name, got, want)
		}
	}

	var markers []string
	for _, name := range names {
		if strings.HasPrefix(name, "proxy_abi_version_") {
			markers = append(markers, name)
		}
	}
	if len(markers) != 1 || !strings.HasPrefix(markers[0], "proxy_abi_version_0_2_") {
		t.Errorf("ABI markers %q: want exactly one proxy_abi_version_0_2_*", markers)
	}

	// cpp-host looks up malloc before proxy_on_memory_allocate.
	if _, ok := exports["malloc"]; ok {
		t.Error("malloc is exported; only proxy_on_memory_allocate may be")
	}
}

func TestWasmImports(t *testing.T) {
	_, _, cm := compile(t)
	var env []string
	for _, def := range cm.ImportedFunctions() {
		module, name, _ := def.Import()
		switch module {
		case "wasi_snapshot_preview1":
		case "env":
			env = append(env, name)
			if !strings.HasPrefix(name, "proxy_") {
				t.Errorf("import env.%s: env imports must be proxy_* host calls", name)
				continue
			}
			want, ok := hostCalls[name]
			if !ok {
				t.Errorf("import env.%s is not a host call this test knows; check it against the ABI spec and add it to hostCalls", name)
				continue
			}
			if got := sig(def.ParamTypes(), def.ResultTypes()); got != want {
				t.Errorf("import env.%s has signature %s, want %s", name, got, want)
			}
		default:
			t.Errorf("import %s.%s: only env and wasi_snapshot_preview1 are provided by proxy-wasm hosts", module, name)
		}
	}
	for _, def := range cm.ImportedMemories() {
		module, name, _ := def.Import()
		t.Errorf("imported memory %s.%s: the module must define its own", module, name)
	}
	sort.Strings(env)
	t.Logf("env imports: %s", strings.Join(env, " "))
	if len(env) == 0 {
		t.Error("no env imports: the SDK's host calls were not linked as wasm imports")
	}
}

// TestWasmInitialize instantiates the module with stub host calls (every
// env.proxy_* returns 0 = OK) and runs _initialize, which runs Go's init():
// it must not trap, and it must make no proxy_* host call (hosts forbid most
// of them while _initialize runs). Then the allocator is exercised.
func TestWasmInitialize(t *testing.T) {
	ctx, r, cm := compile(t)
	wasi_snapshot_preview1.MustInstantiate(ctx, r)

	var calls []string
	env := r.NewHostModuleBuilder("env")
	for _, def := range cm.ImportedFunctions() {
		module, name, _ := def.Import()
		if module != "env" {
			continue
		}
		results := len(def.ResultTypes())
		env.NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, _ api.Module, stack []uint64) {
				calls = append(calls, name)
				for i := 0; i < results; i++ {
					stack[i] = 0
				}
			}), def.ParamTypes(), def.ResultTypes()).
			Export(name)
	}
	if _, err := env.Instantiate(ctx); err != nil {
		t.Fatalf("instantiating the stub env module: %v", err)
	}

	var stdout, stderr bytes.Buffer
	mod, err := r.InstantiateModule(ctx, cm, wazero.NewModuleConfig().
		WithStartFunctions(). // a reactor: the host calls _initialize itself
		WithStdout(&stdout).WithStderr(&stderr))
	if err != nil {
		t.Fatalf("instantiating the module: %v", err)
	}
	if _, err := mod.ExportedFunction("_initialize").Call(ctx); err != nil {
		t.Fatalf("_initialize: %v\nstdout: %s\nstderr: %s", err, &stdout, &stderr)
	}
	if len(calls) != 0 {
		t.Errorf("_initialize made host calls %q; init() may only register the VM context", calls)
	}

	alloc := mod.ExportedFunction("proxy_on_memory_allocate")
	seen := map[uint64]bool{}
	for _, size := range []uint64{0, 1, 64, 1 << 20} {
		res, err := alloc.Call(ctx, size)
		if err != nil {
			t.Fatalf("proxy_on_memory_allocate(%d): %v", size, err)
		}
		p := res[0]
		memSize := uint64(mod.Memory().Size()) // the allocation may grow memory
		if p == 0 || p+size > memSize || seen[p] {
			t.Errorf("proxy_on_memory_allocate(%d) = %#x: want a fresh non-zero address inside the %d-byte memory", size, p, memSize)
		}
		seen[p] = true
	}
}
