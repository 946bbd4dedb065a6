// This file is not compiled in place (the leading underscore of its
// directory hides it from ./...). scripts/build-wasm.sh copies it into a
// copy of github.com/tetratelabs/proxy-wasm-go-sdk v0.24.0 at
// build/sdk/proxywasm/internal for the standard-Go wasip1 build. See
// docs/RATIONALE.md, "Building the .wasm".
//
// The SDK marks its callbacks with TinyGo's //export, which the standard
// compiler ignores; here each one is exported with //go:wasmexport under
// its proxy-wasm ABI name and wraps the SDK's unexported function, with
// i32 parameters and results (int and bool converted). A host skips a
// callback that is not exported without a word, so every callback the SDK
// defines is here; scripts/build-wasm.sh checks that against the SDK and
// plugin/exports_test.go checks the built module. No malloc: cpp-host
// would prefer it over proxy_on_memory_allocate.

//go:build wasip1 && !tinygo

package internal

import "github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm/types"

func fromBool(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// The SDK's ABI marker says 0_2_0; the host calls below are those of
// v0.2.1 (a superset), which is what Envoy implements, so the module
// advertises 0.2.1.
//
//go:wasmexport proxy_abi_version_0_2_1
func exportABIVersion() { proxyABIVersion() }

// allocations keeps the buffers handed to the host reachable until the host
// call that asked for them has returned and the SDK holds a real pointer to
// them (see returned in wasmimport_hostcalls.go). The host only has the
// buffer's address, which the garbage collector does not see. (The copied
// SDK's go.mod says go 1.19, so no clear() in these files.)
var allocations []*byte

func releaseAllocations() {
	for i := range allocations {
		allocations[i] = nil
	}
	allocations = allocations[:0]
}

//go:wasmexport proxy_on_memory_allocate
func exportOnMemoryAllocate(size uint32) *byte {
	if size == 0 {
		size = 1 // the SDK's allocator indexes buf[0]
	}
	p := proxyOnMemoryAllocate(uint(size))
	allocations = append(allocations, p)
	return p
}

//go:wasmexport proxy_on_vm_start
func exportOnVMStart(pluginContextID, vmConfigurationSize uint32) uint32 {
	return fromBool(bool(proxyOnVMStart(pluginContextID, int(vmConfigurationSize))))
}

//go:wasmexport proxy_on_configure
func exportOnConfigure(pluginContextID, pluginConfigurationSize uint32) uint32 {
	return fromBool(bool(proxyOnConfigure(pluginContextID, int(pluginConfigurationSize))))
}

//go:wasmexport proxy_on_context_create
func exportOnContextCreate(contextID, pluginContextID uint32) {
	proxyOnContextCreate(contextID, pluginContextID)
}

//go:wasmexport proxy_on_log
func exportOnLog(contextID uint32) { proxyOnLog(contextID) }

//go:wasmexport proxy_on_done
func exportOnDone(contextID uint32) uint32 { return fromBool(proxyOnDone(contextID)) }

//go:wasmexport proxy_on_delete
func exportOnDelete(contextID uint32) { proxyOnDelete(contextID) }

//go:wasmexport proxy_on_request_headers
func exportOnRequestHeaders(contextID, numHeaders, endOfStream uint32) uint32 {
	return uint32(proxyOnRequestHeaders(contextID, int(numHeaders), endOfStream != 0))
}

//go:wasmexport proxy_on_request_body
func exportOnRequestBody(contextID, bodySize, endOfStream uint32) uint32 {
	return uint32(proxyOnRequestBody(contextID, int(bodySize), endOfStream != 0))
}

//go:wasmexport proxy_on_request_trailers
func exportOnRequestTrailers(contextID, numTrailers uint32) uint32 {
	return uint32(proxyOnRequestTrailers(contextID, int(numTrailers)))
}

//go:wasmexport proxy_on_response_headers
func exportOnResponseHeaders(contextID, numHeaders, endOfStream uint32) uint32 {
	return uint32(proxyOnResponseHeaders(contextID, int(numHeaders), endOfStream != 0))
}

//go:wasmexport proxy_on_response_body
func exportOnResponseBody(contextID, bodySize, endOfStream uint32) uint32 {
	return uint32(proxyOnResponseBody(contextID, int(bodySize), endOfStream != 0))
}

//go:wasmexport proxy_on_response_trailers
func exportOnResponseTrailers(contextID, numTrailers uint32) uint32 {
	return uint32(proxyOnResponseTrailers(contextID, int(numTrailers)))
}

//go:wasmexport proxy_on_http_call_response
func exportOnHttpCallResponse(pluginContextID, calloutID, numHeaders, bodySize, numTrailers uint32) {
	proxyOnHttpCallResponse(pluginContextID, calloutID, int(numHeaders), int(bodySize), int(numTrailers))
}

//go:wasmexport proxy_on_tick
func exportOnTick(pluginContextID uint32) { proxyOnTick(pluginContextID) }

//go:wasmexport proxy_on_queue_ready
func exportOnQueueReady(contextID, queueID uint32) { proxyOnQueueReady(contextID, queueID) }

//go:wasmexport proxy_on_new_connection
func exportOnNewConnection(contextID uint32) uint32 {
	return uint32(proxyOnNewConnection(contextID))
}

//go:wasmexport proxy_on_downstream_data
func exportOnDownstreamData(contextID, dataSize, endOfStream uint32) uint32 {
	return uint32(proxyOnDownstreamData(contextID, int(dataSize), endOfStream != 0))
}

//go:wasmexport proxy_on_upstream_data
func exportOnUpstreamData(contextID, dataSize, endOfStream uint32) uint32 {
	return uint32(proxyOnUpstreamData(contextID, int(dataSize), endOfStream != 0))
}

//go:wasmexport proxy_on_downstream_connection_close
func exportOnDownstreamConnectionClose(contextID, peerType uint32) {
	proxyOnDownstreamConnectionClose(contextID, types.PeerType(peerType))
}

//go:wasmexport proxy_on_upstream_connection_close
func exportOnUpstreamConnectionClose(contextID, peerType uint32) {
	proxyOnUpstreamConnectionClose(contextID, types.PeerType(peerType))
}
