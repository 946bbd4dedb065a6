package main

import (
	"errors"

	"github.com/cloudg/mcp-privacy/plugin/mcp"
	"github.com/cloudg/mcp-privacy/policy"
	"github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm"
	"github.com/tetratelabs/proxy-wasm-go-sdk/proxywasm/types"
)

// Plugin-side body holding (gateway.body_buffering, manual 2): where the
// host does not hold a paused body, the host's chunk is replaced with
// nothing while mcp.BodyHold keeps it, and the judged body is written in
// place of the last chunk (heldAction: what the callbacks return). On a host that
// holds bodies (Envoy, body_buffering host or auto) none of this runs:
// httpContext.reqHold and respHold stay nil and the callbacks take the
// path they always took, with no copy.

// hostKind is what auto detected of this VM's host: hostUnknown until
// the first request that needed to know.
var hostKind uint8

const (
	hostUnknown uint8 = iota
	hostHoldsBodies
	// hostNgxWasm is ngx_wasm_module (nginx, OpenResty, Kong): a PAUSE on
	// a response body buffers at most wasm_response_body_buffers and later
	// pauses are treated as continue; a PAUSE on request headers stalls
	// until the plugin resumes the request; the request body callback runs
	// once, from the content phase, before proxy_pass starts the upstream
	// request (src/http/proxy_wasm/ngx_http_proxy_wasm.c and
	// src/http/ngx_http_wasm_filter_module.c at Kong/ngx_wasm_module commit
	// 3bed27836bb402143c6cbde17994b1d11a1084bc).
	hostNgxWasm
)

// detectHost tells ngx_wasm_module from Envoy by the nginx variables it
// serves as ngx.* properties (path segments are joined with dots there:
// ngx_proxy_wasm_properties.c, replace_nulls_by_dots); Envoy serves no
// ngx property. Asked once per VM, at a request (ngx_wasm_module refuses
// scoped properties outside one).
func detectHost() uint8 {
	if hostKind == hostUnknown {
		hostKind = hostHoldsBodies
		if _, err := proxywasm.GetProperty([]string{"ngx", "hostname"}); err == nil {
			hostKind = hostNgxWasm
			proxywasm.LogInfo("mcp-privacy: ngx_wasm_module detected (ngx.* properties): the plugin holds bodies itself (gateway.body_buffering: auto)")
		}
	}
	return hostKind
}

// probeHostAtConfiguration reads the host at configuration time, where
// ngx_wasm_module refuses scoped properties with INTERNAL_FAILURE ("cannot
// get scoped properties outside of a request",
// ngx_proxy_wasm_properties.c; ngx_proxy_wasm_host.c turns its NGX_ERROR
// into INTERNAL_FAILURE) and Envoy answers an unknown one NOT_FOUND. It
// returns an error for a configuration that cannot be safe there:
// gateway.body_buffering: host, whose paused bodies that host would
// release unjudged.
func probeHostAtConfiguration(cfgs []*mcp.Config) error {
	_, err := proxywasm.GetProperty([]string{"ngx", "hostname"})
	if err != types.ErrorInternalFailure {
		return nil
	}
	hostKind = hostNgxWasm
	proxywasm.LogInfo("mcp-privacy: ngx_wasm_module detected at configuration: the plugin holds bodies itself where gateway.body_buffering is auto")
	for _, cfg := range cfgs {
		if cfg.Env.Gateway.BodyBuffering == policy.BufferHost {
			return errors.New("gateway.body_buffering: host on ngx_wasm_module, which does not hold paused bodies (a pause holds at most wasm_response_body_buffers, then bodies pass unjudged): use auto or plugin")
		}
	}
	return nil
}

// startHolding decides, at the request headers of a stream the plugin
// inspects, who holds its bodies.
func (h *httpContext) startHolding(mode policy.BodyBuffering, requestContentLength string) {
	switch mode {
	case policy.BufferHost:
		return
	case policy.BufferAuto:
		if detectHost() != hostNgxWasm {
			return
		}
	}
	h.reqHold, h.respHold = mcp.NewBodyHold(), mcp.NewBodyHold()
	h.reqHold.Expect(requestContentLength)
}

// holdRequestBody is OnHttpRequestBody where the plugin holds the body.
func (h *httpContext) holdRequestBody(bodySize int, endOfStream bool) types.Action {
	if h.reqHold.Ended() {
		return types.ActionContinue
	}
	var chunk []byte
	if bodySize > 0 {
		chunk = requestBody(bodySize)()
	}
	view, end := h.reqHold.Add(chunk, endOfStream)
	res := h.stream.OnRequestBody(len(view), end, func() []byte { return view })
	if res.Reply != nil {
		return h.reply(res.Reply)
	}
	for _, name := range res.Remove {
		_ = proxywasm.RemoveHttpRequestHeader(name)
	}
	for _, kv := range res.Set {
		_ = proxywasm.ReplaceHttpRequestHeader(kv[0], kv[1])
	}
	out, replace := h.reqHold.Settle(view, res.Action == mcp.Pause, res.Body, res.Body != nil)
	if replace {
		if err := proxywasm.ReplaceHttpRequestBody(out); err != nil {
			return h.fail("request body", err)
		}
	}
	return heldAction(h.reqHold)
}

// heldAction is what a request body callback returns once the plugin
// settled the chunk. While the plugin holds the body, Envoy is paused over
// the empty chunk, so that a trailers callback still finds a body it may
// write, where the judged body then goes (Envoy refuses writes to a body
// it no longer holds). Envoy adds each chunk that arrives while it is
// paused to its buffer before the plugin sees it, so a request chunk above
// the stream's buffer limit is answered 413 (Envoy's mcp filter after the
// plugin refuses such a body anyway). ngx_wasm_module takes a second pause
// as a continue and writes no body in a trailers callback (it has none):
// there every callback continues. A response continues over its emptied
// chunks on every host (heldResponseAction).
func heldAction(hold *mcp.BodyHold) types.Action {
	if hold.Holding() && hostKind != hostNgxWasm {
		return types.ActionPause
	}
	return types.ActionContinue
}

// heldResponseAction is what a response body callback returns once the
// plugin settled the chunk: continue, whether or not the plugin holds the
// body, its emptied chunks passing on as nothing. A pause would have
// Envoy add the next chunk to its buffer before the plugin empties it
// (source/extensions/common/wasm/context.cc, Context::encodeData calls
// addEncodedData while buffering_response_body_), and a chunk above the
// stream's buffer limit then resets the response: 8 KiB where Envoy's mcp
// filter set its max_request_body_size, less than one read of the
// upstream may hand over. So only the plugin's limits
// (gateway.max_response_bytes) bound a held response. The price: a held
// response ending in trailers cannot be written at the trailers (Envoy
// holds no body there) and fails closed (failHeldResponse), a reset.
func heldResponseAction() types.Action { return types.ActionContinue }

// holdResponseBody is OnHttpResponseBody (and, with an empty chunk at the
// end, OnHttpResponseTrailers) where the plugin holds the body.
func (h *httpContext) holdResponseBody(stage string, bodySize int, endOfStream bool) types.Action {
	if h.respHold.Ended() {
		// Past the announced length nothing is the body's.
		if bodySize > 0 {
			_ = proxywasm.ReplaceHttpResponseBody(nil)
		}
		return types.ActionContinue
	}
	view, end := h.respHold.Add(responseBody(bodySize)(), endOfStream)
	act, edit := h.stream.OnResponseBody(len(view), end, func() []byte { return view })
	out, replace := h.respHold.Settle(view, act == mcp.Pause, edit.Data, edit.Replace)
	if replace {
		if err := proxywasm.ReplaceHttpResponseBody(out); err != nil {
			return h.fail(stage, err)
		}
	}
	return heldResponseAction()
}

// failHeldResponse fails a held response from a body callback: a host
// that does not hold bodies may not answer locally there either
// (ngx_wasm_module traps "response already sent",
// ngx_http_wasm_local_response.c), so the JSON-RPC error replaces the
// chunk, and every later chunk is emptied (h.failed). Where no body can
// be written (Envoy's trailers callback after the chunks continued) the
// reply is local, which resets a response whose headers went out: never
// an empty body standing for the server's.
func (h *httpContext) failHeldResponse() types.Action {
	body := mcp.ErrorResponse("null", &mcp.InternalError)
	if err := proxywasm.ReplaceHttpResponseBody(body); err != nil {
		if err := proxywasm.SendHttpResponse(500, [][2]string{{"content-type", "application/json"}}, body, -1); err != nil {
			proxywasm.LogErrorf("mcp-privacy: failing the stream: %v", err)
		}
		return types.ActionPause
	}
	return types.ActionContinue
}

// ngxRequestHeaders adapts what the stream made of the request headers to
// ngx_wasm_module:
//   - A pause on request headers stalls there; nginx sends nothing
//     upstream before the body callback ran (hostNgxWasm), which holds
//     what hold_headers holds.
//   - Removing content-length sets nginx's content_length_n to -1
//     (ngx_http_wasm_set_cl_header_handler,
//     src/http/ngx_http_wasm_headers_request.c at commit 3bed278): nginx
//     would then read no body. It stays: replacing the body sets
//     content_length_n to the new length (ngx_http_wasm_set_req_body,
//     src/http/ngx_http_wasm_util.c), and proxy_pass sends that.
func ngxRequestHeaders(res mcp.HeadersResult) mcp.HeadersResult {
	if res.Action == mcp.Pause {
		res.Action = mcp.Continue
	}
	for i, name := range res.Remove {
		if name == "content-length" {
			// A new slice: Remove is the configuration's.
			res.Remove = append(append([]string(nil), res.Remove[:i]...), res.Remove[i+1:]...)
			break
		}
	}
	return res
}
