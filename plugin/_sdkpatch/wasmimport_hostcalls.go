// This file is not compiled in place (the leading underscore of its
// directory hides it from ./...). scripts/build-wasm.sh copies it into a
// copy of github.com/tetratelabs/proxy-wasm-go-sdk v0.24.0 at
// build/sdk/proxywasm/internal, where it replaces abi_hostcalls_mock.go for
// the standard-Go wasip1 build. See docs/RATIONALE.md, "Building the .wasm".
//
// Every Proxy* function has exactly the signature of the deleted mock file
// and calls the host function of the same name in module "env". In standard
// Go on wasm, int, uint and pointers are 64 bits wide while the proxy-wasm
// ABI passes i32, so the imports take uint32 and unsafe.Pointer and the
// wrappers convert. Out-parameters that the host fills with a pointer and a
// size (4 bytes each) are read into uint32 locals and converted back.

//go:build wasip1 && !tinygo

package internal

import "unsafe"

// ptr passes a guest pointer to the host as an i32 address.
func ptr(p *byte) unsafe.Pointer { return unsafe.Pointer(p) }

// fromHost turns an address the host wrote into an out-parameter back into
// a Go pointer. The address is one proxy_on_memory_allocate returned during
// the same host call (or 0), so it points into the Go heap.
func fromHost(addr uint32) *byte {
	if addr == 0 {
		return nil
	}
	return (*byte)(unsafe.Pointer(uintptr(addr)))
}

// returned stores the host's (address, size) out-values into the SDK's
// out-parameters and drops the references kept by proxy_on_memory_allocate:
// from here on the SDK's own pointer keeps the buffer alive.
func returned(data **byte, size *int, addr, n uint32) {
	*data = fromHost(addr)
	*size = int(n)
	releaseAllocations()
}

//go:wasmimport env proxy_log
func proxyLog(logLevel uint32, messageData unsafe.Pointer, messageSize uint32) uint32

func ProxyLog(logLevel LogLevel, messageData *byte, messageSize int) Status {
	return Status(proxyLog(uint32(logLevel), ptr(messageData), uint32(messageSize)))
}

//go:wasmimport env proxy_set_property
func proxySetProperty(pathData unsafe.Pointer, pathSize uint32, valueData unsafe.Pointer, valueSize uint32) uint32

func ProxySetProperty(pathData *byte, pathSize int, valueData *byte, valueSize int) Status {
	return Status(proxySetProperty(ptr(pathData), uint32(pathSize), ptr(valueData), uint32(valueSize)))
}

//go:wasmimport env proxy_get_property
func proxyGetProperty(pathData unsafe.Pointer, pathSize uint32, returnValueData *uint32, returnValueSize *uint32) uint32

func ProxyGetProperty(pathData *byte, pathSize int, returnValueData **byte, returnValueSize *int) Status {
	var addr, n uint32
	st := proxyGetProperty(ptr(pathData), uint32(pathSize), &addr, &n)
	returned(returnValueData, returnValueSize, addr, n)
	return Status(st)
}

//go:wasmimport env proxy_send_local_response
func proxySendLocalResponse(statusCode uint32, statusCodeDetailData unsafe.Pointer, statusCodeDetailsSize uint32,
	bodyData unsafe.Pointer, bodySize uint32, headersData unsafe.Pointer, headersSize uint32, grpcStatus int32) uint32

func ProxySendLocalResponse(statusCode uint32, statusCodeDetailData *byte, statusCodeDetailsSize int,
	bodyData *byte, bodySize int, headersData *byte, headersSize int, grpcStatus int32) Status {
	return Status(proxySendLocalResponse(statusCode, ptr(statusCodeDetailData), uint32(statusCodeDetailsSize),
		ptr(bodyData), uint32(bodySize), ptr(headersData), uint32(headersSize), grpcStatus))
}

//go:wasmimport env proxy_get_shared_data
func proxyGetSharedData(keyData unsafe.Pointer, keySize uint32, returnValueData *uint32, returnValueSize *uint32, returnCas *uint32) uint32

func ProxyGetSharedData(keyData *byte, keySize int, returnValueData **byte, returnValueSize *int, returnCas *uint32) Status {
	var addr, n, cas uint32
	st := proxyGetSharedData(ptr(keyData), uint32(keySize), &addr, &n, &cas)
	returned(returnValueData, returnValueSize, addr, n)
	*returnCas = cas
	return Status(st)
}

//go:wasmimport env proxy_set_shared_data
func proxySetSharedData(keyData unsafe.Pointer, keySize uint32, valueData unsafe.Pointer, valueSize uint32, cas uint32) uint32

func ProxySetSharedData(keyData *byte, keySize int, valueData *byte, valueSize int, cas uint32) Status {
	return Status(proxySetSharedData(ptr(keyData), uint32(keySize), ptr(valueData), uint32(valueSize), cas))
}

//go:wasmimport env proxy_register_shared_queue
func proxyRegisterSharedQueue(nameData unsafe.Pointer, nameSize uint32, returnID *uint32) uint32

func ProxyRegisterSharedQueue(nameData *byte, nameSize int, returnID *uint32) Status {
	return Status(proxyRegisterSharedQueue(ptr(nameData), uint32(nameSize), returnID))
}

//go:wasmimport env proxy_resolve_shared_queue
func proxyResolveSharedQueue(vmIDData unsafe.Pointer, vmIDSize uint32, nameData unsafe.Pointer, nameSize uint32, returnID *uint32) uint32

func ProxyResolveSharedQueue(vmIDData *byte, vmIDSize int, nameData *byte, nameSize int, returnID *uint32) Status {
	return Status(proxyResolveSharedQueue(ptr(vmIDData), uint32(vmIDSize), ptr(nameData), uint32(nameSize), returnID))
}

//go:wasmimport env proxy_dequeue_shared_queue
func proxyDequeueSharedQueue(queueID uint32, returnValueData *uint32, returnValueSize *uint32) uint32

func ProxyDequeueSharedQueue(queueID uint32, returnValueData **byte, returnValueSize *int) Status {
	var addr, n uint32
	st := proxyDequeueSharedQueue(queueID, &addr, &n)
	returned(returnValueData, returnValueSize, addr, n)
	return Status(st)
}

//go:wasmimport env proxy_enqueue_shared_queue
func proxyEnqueueSharedQueue(queueID uint32, valueData unsafe.Pointer, valueSize uint32) uint32

func ProxyEnqueueSharedQueue(queueID uint32, valueData *byte, valueSize int) Status {
	return Status(proxyEnqueueSharedQueue(queueID, ptr(valueData), uint32(valueSize)))
}

//go:wasmimport env proxy_get_header_map_value
func proxyGetHeaderMapValue(mapType uint32, keyData unsafe.Pointer, keySize uint32, returnValueData *uint32, returnValueSize *uint32) uint32

func ProxyGetHeaderMapValue(mapType MapType, keyData *byte, keySize int, returnValueData **byte, returnValueSize *int) Status {
	var addr, n uint32
	st := proxyGetHeaderMapValue(uint32(mapType), ptr(keyData), uint32(keySize), &addr, &n)
	returned(returnValueData, returnValueSize, addr, n)
	return Status(st)
}

//go:wasmimport env proxy_add_header_map_value
func proxyAddHeaderMapValue(mapType uint32, keyData unsafe.Pointer, keySize uint32, valueData unsafe.Pointer, valueSize uint32) uint32

func ProxyAddHeaderMapValue(mapType MapType, keyData *byte, keySize int, valueData *byte, valueSize int) Status {
	return Status(proxyAddHeaderMapValue(uint32(mapType), ptr(keyData), uint32(keySize), ptr(valueData), uint32(valueSize)))
}

//go:wasmimport env proxy_replace_header_map_value
func proxyReplaceHeaderMapValue(mapType uint32, keyData unsafe.Pointer, keySize uint32, valueData unsafe.Pointer, valueSize uint32) uint32

func ProxyReplaceHeaderMapValue(mapType MapType, keyData *byte, keySize int, valueData *byte, valueSize int) Status {
	return Status(proxyReplaceHeaderMapValue(uint32(mapType), ptr(keyData), uint32(keySize), ptr(valueData), uint32(valueSize)))
}

//go:wasmimport env proxy_continue_stream
func proxyContinueStream(streamType uint32) uint32

func ProxyContinueStream(streamType StreamType) Status {
	return Status(proxyContinueStream(uint32(streamType)))
}

//go:wasmimport env proxy_close_stream
func proxyCloseStream(streamType uint32) uint32

func ProxyCloseStream(streamType StreamType) Status {
	return Status(proxyCloseStream(uint32(streamType)))
}

//go:wasmimport env proxy_remove_header_map_value
func proxyRemoveHeaderMapValue(mapType uint32, keyData unsafe.Pointer, keySize uint32) uint32

func ProxyRemoveHeaderMapValue(mapType MapType, keyData *byte, keySize int) Status {
	return Status(proxyRemoveHeaderMapValue(uint32(mapType), ptr(keyData), uint32(keySize)))
}

//go:wasmimport env proxy_get_header_map_pairs
func proxyGetHeaderMapPairs(mapType uint32, returnValueData *uint32, returnValueSize *uint32) uint32

func ProxyGetHeaderMapPairs(mapType MapType, returnValueData **byte, returnValueSize *int) Status {
	var addr, n uint32
	st := proxyGetHeaderMapPairs(uint32(mapType), &addr, &n)
	returned(returnValueData, returnValueSize, addr, n)
	return Status(st)
}

//go:wasmimport env proxy_set_header_map_pairs
func proxySetHeaderMapPairs(mapType uint32, mapData unsafe.Pointer, mapSize uint32) uint32

func ProxySetHeaderMapPairs(mapType MapType, mapData *byte, mapSize int) Status {
	return Status(proxySetHeaderMapPairs(uint32(mapType), ptr(mapData), uint32(mapSize)))
}

//go:wasmimport env proxy_get_buffer_bytes
func proxyGetBufferBytes(bufferType uint32, start uint32, maxSize uint32, returnBufferData *uint32, returnBufferSize *uint32) uint32

func ProxyGetBufferBytes(bufferType BufferType, start int, maxSize int, returnBufferData **byte, returnBufferSize *int) Status {
	var addr, n uint32
	st := proxyGetBufferBytes(uint32(bufferType), uint32(start), uint32(maxSize), &addr, &n)
	returned(returnBufferData, returnBufferSize, addr, n)
	return Status(st)
}

//go:wasmimport env proxy_set_buffer_bytes
func proxySetBufferBytes(bufferType uint32, start uint32, maxSize uint32, bufferData unsafe.Pointer, bufferSize uint32) uint32

func ProxySetBufferBytes(bufferType BufferType, start int, maxSize int, bufferData *byte, bufferSize int) Status {
	return Status(proxySetBufferBytes(uint32(bufferType), uint32(start), uint32(maxSize), ptr(bufferData), uint32(bufferSize)))
}

//go:wasmimport env proxy_http_call
func proxyHttpCall(upstreamData unsafe.Pointer, upstreamSize uint32, headerData unsafe.Pointer, headerSize uint32,
	bodyData unsafe.Pointer, bodySize uint32, trailersData unsafe.Pointer, trailersSize uint32, timeout uint32, calloutIDPtr *uint32) uint32

func ProxyHttpCall(upstreamData *byte, upstreamSize int, headerData *byte, headerSize int,
	bodyData *byte, bodySize int, trailersData *byte, trailersSize int, timeout uint32, calloutIDPtr *uint32) Status {
	return Status(proxyHttpCall(ptr(upstreamData), uint32(upstreamSize), ptr(headerData), uint32(headerSize),
		ptr(bodyData), uint32(bodySize), ptr(trailersData), uint32(trailersSize), timeout, calloutIDPtr))
}

//go:wasmimport env proxy_call_foreign_function
func proxyCallForeignFunction(funcNamePtr unsafe.Pointer, funcNameSize uint32, paramPtr unsafe.Pointer, paramSize uint32,
	returnData *uint32, returnSize *uint32) uint32

func ProxyCallForeignFunction(funcNamePtr *byte, funcNameSize int, paramPtr *byte, paramSize int, returnData **byte, returnSize *int) Status {
	var addr, n uint32
	st := proxyCallForeignFunction(ptr(funcNamePtr), uint32(funcNameSize), ptr(paramPtr), uint32(paramSize), &addr, &n)
	returned(returnData, returnSize, addr, n)
	return Status(st)
}

//go:wasmimport env proxy_set_tick_period_milliseconds
func proxySetTickPeriodMilliseconds(period uint32) uint32

func ProxySetTickPeriodMilliseconds(period uint32) Status {
	return Status(proxySetTickPeriodMilliseconds(period))
}

//go:wasmimport env proxy_set_effective_context
func proxySetEffectiveContext(contextID uint32) uint32

func ProxySetEffectiveContext(contextID uint32) Status {
	return Status(proxySetEffectiveContext(contextID))
}

//go:wasmimport env proxy_done
func proxyDone() uint32

func ProxyDone() Status {
	return Status(proxyDone())
}

//go:wasmimport env proxy_define_metric
func proxyDefineMetric(metricType uint32, metricNameData unsafe.Pointer, metricNameSize uint32, returnMetricIDPtr *uint32) uint32

func ProxyDefineMetric(metricType MetricType, metricNameData *byte, metricNameSize int, returnMetricIDPtr *uint32) Status {
	return Status(proxyDefineMetric(uint32(metricType), ptr(metricNameData), uint32(metricNameSize), returnMetricIDPtr))
}

//go:wasmimport env proxy_increment_metric
func proxyIncrementMetric(metricID uint32, offset int64) uint32

func ProxyIncrementMetric(metricID uint32, offset int64) Status {
	return Status(proxyIncrementMetric(metricID, offset))
}

//go:wasmimport env proxy_record_metric
func proxyRecordMetric(metricID uint32, value uint64) uint32

func ProxyRecordMetric(metricID uint32, value uint64) Status {
	return Status(proxyRecordMetric(metricID, value))
}

//go:wasmimport env proxy_get_metric
func proxyGetMetric(metricID uint32, returnMetricValue *uint64) uint32

func ProxyGetMetric(metricID uint32, returnMetricValue *uint64) Status {
	return Status(proxyGetMetric(metricID, returnMetricValue))
}
