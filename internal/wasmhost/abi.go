package wasmhost

import "fmt"

// Status is a proxy-wasm ABI 0.2.1 result code, the value every env.proxy_*
// host call returns.
type Status uint32

// Status codes of proxy-wasm ABI 0.2.1.
const (
	StatusOK                   Status = 0
	StatusNotFound             Status = 1
	StatusBadArgument          Status = 2
	StatusSerializationFailure Status = 3
	StatusParseFailure         Status = 4
	StatusInvalidMemoryAccess  Status = 6
	StatusEmpty                Status = 7
	StatusCASMismatch          Status = 8
	StatusInternalFailure      Status = 10
	StatusUnimplemented        Status = 12
)

func (s Status) String() string {
	switch s {
	case StatusOK:
		return "OK"
	case StatusNotFound:
		return "NOT_FOUND"
	case StatusBadArgument:
		return "BAD_ARGUMENT"
	case StatusSerializationFailure:
		return "SERIALIZATION_FAILURE"
	case StatusParseFailure:
		return "PARSE_FAILURE"
	case StatusInvalidMemoryAccess:
		return "INVALID_MEMORY_ACCESS"
	case StatusEmpty:
		return "EMPTY"
	case StatusCASMismatch:
		return "CAS_MISMATCH"
	case StatusInternalFailure:
		return "INTERNAL_FAILURE"
	case StatusUnimplemented:
		return "UNIMPLEMENTED"
	}
	return fmt.Sprintf("Status(%d)", uint32(s))
}

// BufferType selects a buffer in proxy_get_buffer_bytes / proxy_set_buffer_bytes.
type BufferType uint32

// Buffer types of proxy-wasm ABI 0.2.1.
const (
	BufferRequestBody          BufferType = 0
	BufferResponseBody         BufferType = 1
	BufferDownstreamData       BufferType = 2
	BufferUpstreamData         BufferType = 3
	BufferHTTPCallResponseBody BufferType = 4
	BufferGRPCReceiveBuffer    BufferType = 5
	BufferVMConfiguration      BufferType = 6
	BufferPluginConfiguration  BufferType = 7
	BufferCallData             BufferType = 8
	bufferTypeMax                         = BufferCallData
)

// MapType selects a header map in the proxy_*_header_map_* calls.
type MapType uint32

// Map types of proxy-wasm ABI 0.2.1.
const (
	MapRequestHeaders           MapType = 0
	MapRequestTrailers          MapType = 1
	MapResponseHeaders          MapType = 2
	MapResponseTrailers         MapType = 3
	MapGRPCReceiveInitialMeta   MapType = 4
	MapGRPCReceiveTrailingMeta  MapType = 5
	MapHTTPCallResponseHeaders  MapType = 6
	MapHTTPCallResponseTrailers MapType = 7
	mapTypeMax                          = MapHTTPCallResponseTrailers
)

// StreamType selects a direction in proxy_continue_stream / proxy_close_stream.
type StreamType uint32

// Stream types of proxy-wasm ABI 0.2.1.
const (
	StreamRequest    StreamType = 0
	StreamResponse   StreamType = 1
	StreamDownstream StreamType = 2
	StreamUpstream   StreamType = 3
)

// MetricType is the type argument of proxy_define_metric.
type MetricType uint32

// Metric types of proxy-wasm ABI 0.2.1.
const (
	MetricCounter   MetricType = 0
	MetricGauge     MetricType = 1
	MetricHistogram MetricType = 2
)

func (t MetricType) String() string {
	switch t {
	case MetricCounter:
		return "counter"
	case MetricGauge:
		return "gauge"
	case MetricHistogram:
		return "histogram"
	}
	return fmt.Sprintf("MetricType(%d)", uint32(t))
}

// LogLevel is a proxy-wasm log level (the same numbering as Envoy's spdlog
// levels, which is what proxy_get_log_level returns).
type LogLevel uint32

// Log levels of proxy-wasm ABI 0.2.1.
const (
	LogTrace    LogLevel = 0
	LogDebug    LogLevel = 1
	LogInfo     LogLevel = 2
	LogWarn     LogLevel = 3
	LogError    LogLevel = 4
	LogCritical LogLevel = 5
)

func (l LogLevel) String() string {
	switch l {
	case LogTrace:
		return "trace"
	case LogDebug:
		return "debug"
	case LogInfo:
		return "info"
	case LogWarn:
		return "warn"
	case LogError:
		return "error"
	case LogCritical:
		return "critical"
	}
	return fmt.Sprintf("LogLevel(%d)", uint32(l))
}

// FilterStatus is what the host (Envoy's filter manager) made of a callback's
// result: the plugin returns only CONTINUE (0) or PAUSE (1); the host turns
// PAUSE into the iteration status Envoy uses, and forces a stop after
// proxy_send_local_response or a failure.
type FilterStatus int

// Filter statuses, named after Envoy's Http::Filter*Status values.
const (
	// Continue: the callback returned CONTINUE; what it was handed moves on.
	Continue FilterStatus = iota
	// StopIteration: PAUSE from a headers callback with
	// Options.AllowOnHeadersStopIteration (body callbacks still arrive), or
	// PAUSE from a trailers callback.
	StopIteration
	// StopAllIterationAndWatermark: PAUSE from a headers callback (Envoy's
	// default): no body or trailers callback until proxy_continue_stream.
	StopAllIterationAndWatermark
	// StopIterationAndBuffer: PAUSE from a body callback; the chunk is kept
	// and the next body callback sees everything buffered so far.
	StopIterationAndBuffer
	// StopIterationNoBuffer: a body callback after which the host stops
	// without buffering (a local reply was sent, or the stream failed).
	StopIterationNoBuffer
	// Skipped: the plugin was not called (the stream is already answered or
	// reset, the VM failed open, or the stream is stopped and the input was
	// buffered by the host).
	Skipped
)

func (s FilterStatus) String() string {
	switch s {
	case Continue:
		return "Continue"
	case StopIteration:
		return "StopIteration"
	case StopAllIterationAndWatermark:
		return "StopAllIterationAndWatermark"
	case StopIterationAndBuffer:
		return "StopIterationAndBuffer"
	case StopIterationNoBuffer:
		return "StopIterationNoBuffer"
	case Skipped:
		return "Skipped"
	}
	return fmt.Sprintf("FilterStatus(%d)", int(s))
}

// PollOneoff selects what the host's WASI poll_oneoff does.
type PollOneoff int

const (
	// PollOneoffNoEvents is current proxy-wasm-cpp-host (after PR #533,
	// Envoy 1.39+): success with zero events written; never sleeps.
	PollOneoffNoEvents PollOneoff = iota
	// PollOneoffENOSYS is proxy-wasm-cpp-host before PR #533 (Envoy up to
	// 1.38 and the Istio releases built on it): errno ENOSYS (52).
	PollOneoffENOSYS
)

func (p PollOneoff) String() string {
	switch p {
	case PollOneoffNoEvents:
		return "no-events"
	case PollOneoffENOSYS:
		return "ENOSYS"
	}
	return fmt.Sprintf("PollOneoff(%d)", int(p))
}

// WASI errno values used by the host's own WASI functions.
const (
	wasiESUCCESS = 0
	wasiEFAULT   = 21
	wasiENOSYS   = 52
)
