package wasmhost

import (
	"strconv"
	"strings"
)

// Semantics are what a host does with HTTP bodies and callbacks where it
// departs from Envoy; the zero value is Envoy. NgxWasmSemantics are
// ngx_wasm_module's (nginx, OpenResty, Kong Gateway's Wasm filters).
type Semantics struct {
	// PauseBuffersOnce: a PAUSE from a response body callback does not
	// hold the body until the plugin continues. The first one buffers
	// that chunk and the following ones up to PauseBufferBytes (or the
	// end) and hands them over in one callback; every later PAUSE is
	// taken as CONTINUE. Replacing the body replaces the chunk the
	// callback sees, nothing released before it.
	PauseBuffersOnce bool
	PauseBufferBytes int
	// LengthHidesEnd: when the response has a content-length, a response
	// body callback's end_of_stream is set only when its chunk is the
	// whole body; without one, the end comes as an empty last chunk.
	LengthHidesEnd bool
	// RequestBodyWhole: the request body callback runs once, with
	// end_of_stream, over the whole body (none at all for an empty one),
	// after the host read it; headers callbacks always get
	// end_of_stream false.
	RequestBodyWhole bool
	// NoTrailerCallbacks: trailers callbacks are never called; request
	// trailers are dropped, response trailers pass.
	NoTrailerCallbacks bool
	// NoLocalReplyFromResponseBody: proxy_send_local_response from a
	// response body callback traps ("response already sent").
	NoLocalReplyFromResponseBody bool
	// ChunkSize is the size of the body chunks the host hands over (0:
	// internal/proxy's 32 KiB).
	ChunkSize int
	// ScopedPropertiesNeedRequest: outside a request (the root context, at
	// configuration), a property path of more than one segment is
	// INTERNAL_FAILURE, not NOT_FOUND.
	ScopedPropertiesNeedRequest bool
}

// NgxWasmSemantics are ngx_wasm_module's, as read from its source at
// github.com/Kong/ngx_wasm_module commit
// 3bed27836bb402143c6cbde17994b1d11a1084bc (2025-04-02):
//
//   - src/http/ngx_http_wasm_filter_module.c,
//     ngx_http_wasm_body_filter_handler and _body_filter_buffer: the first
//     PAUSE buffers into wasm_response_body_buffers (default 4 × 4 KiB,
//     NGX_WASM_DEFAULT_RESP_BODY_BUF_NUM/_SIZE in ngx_http_wasm_module.c)
//     until full or at the end; src/http/proxy_wasm/ngx_http_proxy_wasm.c,
//     ngx_http_proxy_wasm_on_response_body: a PAUSE once buffering was
//     requested is "invalid" and taken as CONTINUE, and with a
//     content-length end_of_stream is resp_chunk_len == content_length_n.
//   - ngx_http_proxy_wasm.c, ngx_http_proxy_wasm_on_request_body(_handler):
//     one call with the whole client body and eof 1, from the content
//     phase; the headers callbacks pass eof 0. Removing the request's
//     content-length makes nginx read no body
//     (src/http/ngx_http_wasm_headers_request.c).
//   - src/common/proxy_wasm/ngx_proxy_wasm_host.c, set_buffer_bytes:
//     the response body set is rctx->resp_chunk, the current chunk.
//   - src/http/ngx_http_wasm_local_response.c,
//     ngx_http_wasm_stash_local_response: NGX_ABORT once the header filter
//     ran, which send_local_response turns into a trap.
//   - src/common/proxy_wasm/ngx_proxy_wasm_properties.c,
//     ngx_proxy_wasm_properties_get: "cannot get scoped properties outside
//     of a request" (NGX_ERROR, which ngx_proxy_wasm_hfuncs_get_property in
//     ngx_proxy_wasm_host.c answers INTERNAL_FAILURE).
//   - The trailers callback is compiled only under NGX_WASM_RESPONSE_TRAILERS,
//     which nothing in the source tree defines: no trailers callbacks.
var NgxWasmSemantics = Semantics{
	PauseBuffersOnce: true, PauseBufferBytes: 4 * 4096,
	LengthHidesEnd: true, RequestBodyWhole: true, NoTrailerCallbacks: true,
	NoLocalReplyFromResponseBody: true, ChunkSize: 4096, ScopedPropertiesNeedRequest: true,
}

// ngxStream is a stream's state under Semantics other than Envoy's.
type ngxStream struct {
	reqBody       []byte
	collecting    bool  // the first PAUSE buffers what follows
	pausedOnce    bool  // later pauses are continues
	contentLength int64 // of the response as it arrived, -1 none
	inRespBody    bool  // a response body callback runs
	reqHadLength  bool  // the request arrived with a content-length
}

func (s *Stream) sem() *Semantics { return &s.vm.host.opts.Semantics }

// ngxState is the stream's ngxStream, made on first use: streams under
// Envoy's semantics carry none.
func (s *Stream) ngxState() *ngxStream {
	if s.ngx == nil {
		s.ngx = &ngxStream{contentLength: -1}
	}
	return s.ngx
}

// ngxResponseHeaders notes the response's content-length before the
// plugin can remove it (ngx_wasm_module reads content_length_n first).
func (s *Stream) ngxResponseHeaders(h Headers) {
	s.ngxState().contentLength = -1
	if v, ok := h.lowered().Get("content-length"); ok {
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n > 0 {
			s.ngx.contentLength = n
		}
	}
}

// ngxRequestData collects the request body and runs the body callback
// once at its end.
func (s *Stream) ngxRequestData(d *direction, chunk []byte, eos bool) FilterStatus {
	s.ngxState()
	if _, ok := d.headers.Get("content-length"); s.ngx.reqHadLength && !ok {
		// The plugin removed it: nginx's content_length_n is -1 and it
		// reads no body (ngx_http_wasm_set_cl_header_handler,
		// src/http/ngx_http_wasm_headers_request.c); the request goes on
		// without one.
		chunk = nil
	}
	s.ngx.reqBody = append(s.ngx.reqBody, chunk...)
	if !eos {
		return Skipped
	}
	body := s.ngx.reqBody
	s.ngx.reqBody = nil
	if len(body) == 0 {
		// No body: no callback, the request goes on.
		d.stopped = false
		s.releaseLocked(d)
		return Continue
	}
	return s.bodyLocked(d, body, true)
}

// ngxResponseData is a response body chunk under PauseBuffersOnce.
func (s *Stream) ngxResponseData(d *direction, chunk []byte, eos bool) FilterStatus {
	s.ngxState()
	if s.ngx.collecting {
		d.buffer = append(d.buffer, chunk...)
		if len(d.buffer) < s.sem().PauseBufferBytes && !eos {
			return Skipped
		}
		s.ngx.collecting = false
		chunk, d.buffer = d.buffer, nil
	}
	if len(chunk) == 0 && !eos {
		return Skipped // ngx_wasm_module calls on_response_body only with data or at the end
	}
	cbEOS := eos
	if s.sem().LengthHidesEnd && s.ngx.contentLength > 0 {
		cbEOS = int64(len(chunk)) == s.ngx.contentLength
	}
	// A copy: the callback's view is the host's, and the caller's chunk
	// must not escape (Envoy's path keeps it on the caller's stack).
	view := append([]byte(nil), chunk...)
	d.chunk = &view
	s.ngx.inRespBody = true
	st := s.callback(d, cbBody, uint64(len(view)), b2u(cbEOS))
	s.ngx.inRespBody = false
	d.chunk = nil
	if d.aborted {
		return st
	}
	if st == StopIterationAndBuffer && !s.ngx.pausedOnce {
		s.ngx.pausedOnce = true
		d.buffer = view
		if eos {
			// Buffered to the end at once: handed over again at the end.
			s.ngx.collecting = false
			d.buffer = nil
			return s.ngxResponseData(d, view, true)
		}
		s.ngx.collecting = true
		return st
	}
	// CONTINUE, or a PAUSE once buffering was requested (taken as
	// CONTINUE): the chunk as the plugin left it goes on.
	d.buffer = append(d.buffer, view...)
	d.stopped = false
	s.releaseLocked(d)
	return Continue
}

// ngxTrailers ends a message whose host calls no trailers callback: a
// response's trailers pass after a last empty body callback with its end;
// a request's are dropped and its body ends.
func (s *Stream) ngxTrailers(d *direction, t Headers) FilterStatus {
	if d.aborted || !d.headersSeen || d.eosSeen {
		return Skipped
	}
	d.eosSeen = true
	if !d.resp {
		if d.stopAll {
			return Skipped
		}
		return s.ngxRequestData(d, nil, true)
	}
	d.trailers = t.lowered()
	d.trailersSeen, d.trailersPassed = true, true
	if d.stopAll {
		return Skipped
	}
	return s.ngxResponseData(d, nil, true)
}

// ngxRequestReady reports whether a request may go upstream: nginx's
// proxy_pass runs after the content phase, where the body callback ran
// (ngx_http_proxy_wasm_on_request_body_handler), so the headers wait for
// the whole body. They then carry its final length: proxy_pass sends
// content_length_n, which replacing the body updates
// (ngx_http_wasm_set_req_body, src/http/ngx_http_wasm_util.c).
func (s *Stream) ngxRequestReady(d *direction) bool {
	if !d.eosSeen {
		return false
	}
	if !d.headersEOS {
		d.headers.Del("content-length")
		d.headers.Add("content-length", strconv.Itoa(len(d.buffer)))
	}
	return true
}
