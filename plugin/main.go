// Command plugin is the mcp-privacy proxy-wasm HTTP filter, built into
// build/mcp-privacy.wasm by `make wasm` (scripts/build-wasm.sh).
//
// SKELETON: this file only proves the build pipeline end to end. The
// plugin logic (configuration, identity, policy decisions, rewriting)
// replaces the contexts below; keep init() to SetVMContext only (hosts
// forbid most host calls while _initialize runs) and parse configuration
// in OnPluginStart.
package main

import (
	"github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm"
	"github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm/types"
)

// main is never called: the .wasm is a WASI reactor (-buildmode=c-shared),
// whose _initialize export runs init().
func main() {}

func init() {
	proxywasm.SetVMContext(&vmContext{})
}

// vmContext is the skeleton VM context (one per VM instance).
type vmContext struct {
	types.DefaultVMContext
}

func (*vmContext) NewPluginContext(uint32) types.PluginContext {
	return &pluginContext{}
}

// pluginContext is the skeleton plugin (root) context: one per filter
// configuration.
type pluginContext struct {
	types.DefaultPluginContext
}

// OnPluginStart reads the plugin configuration and accepts it.
func (*pluginContext) OnPluginStart(pluginConfigurationSize int) types.OnPluginStartStatus {
	config, err := proxywasm.GetPluginConfiguration()
	if err != nil && pluginConfigurationSize > 0 {
		proxywasm.LogErrorf("mcp-privacy: reading the plugin configuration: %v", err)
		return types.OnPluginStartStatusFailed
	}
	proxywasm.LogInfof("mcp-privacy: plugin configuration of %d bytes", len(config))
	return types.OnPluginStartStatusOK
}

func (*pluginContext) NewHttpContext(uint32) types.HttpContext {
	return &httpContext{}
}

// httpContext is the skeleton per-stream context: every callback is
// DefaultHttpContext's, which returns Continue.
type httpContext struct {
	types.DefaultHttpContext
}
