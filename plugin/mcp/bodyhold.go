package mcp

import (
	"strconv"
	"strings"

	"github.com/cloudg/mcp-privacy/policy"
)

// BodyHold holds one direction's body in the plugin's memory, for a host
// whose PAUSE does not hold a body (gateway.body_buffering: plugin, manual
// 2). The seam in plugin/bodyhold.go hands every chunk to Add, lets Stream
// judge the view Add returns exactly as if the host had buffered it, and
// replaces the host's chunk with what Settle returns:
//
//   - Stream paused: the view stays held and the host's chunk is emptied,
//     so the host passes nothing on.
//   - Stream continued and replaced the body: the replacement goes out in
//     place of the last chunk.
//   - Stream continued unchanged: everything held goes out in its place.
//
// What is held is bounded by the Stream's own limits: a view over
// gateway.max_request_bytes or max_response_bytes is answered by Stream
// (413, the failure of section 16), which then stops pausing.
//
// A host may never signal the end of a body that has a content-length
// (ngx_wasm_module); Expect makes the end the moment that many bytes
// arrived.
type BodyHold struct {
	held []byte
	// holding: the last Settle paused, held carries the body so far.
	holding bool
	// expect is the length the headers announced, -1 when none;
	// received counts the bytes seen.
	expect, received int64
	// ended: the body ended; what still comes is not the body's.
	ended bool
}

// NewBodyHold starts holding a body of unknown length.
func NewBodyHold() *BodyHold { return &BodyHold{expect: -1} }

// Expect sets the length a content-length header announced ("" or an
// unreadable value: unknown).
func (h *BodyHold) Expect(contentLength string) {
	n, err := strconv.ParseInt(strings.TrimSpace(contentLength), 10, 64)
	if contentLength == "" || err != nil || n < 0 {
		h.expect = -1
		return
	}
	h.expect = n
}

// Ended reports that the body ended: later callbacks carry nothing of it.
func (h *BodyHold) Ended() bool { return h.ended }

// Holding reports that the last Settle kept the body: nothing of it went on.
func (h *BodyHold) Holding() bool { return h.holding }

// Add takes the chunk the host handed over and returns the body Stream
// must see (the chunk alone unless earlier chunks are held) and whether
// the body ended with it: at the host's end of stream, or once the
// announced length arrived.
func (h *BodyHold) Add(chunk []byte, endOfStream bool) (view []byte, end bool) {
	h.received += int64(len(chunk))
	end = endOfStream || h.expect >= 0 && h.received >= h.expect
	if h.holding {
		h.held = append(h.held, chunk...)
		view = h.held
	} else {
		view = chunk
	}
	h.ended = end
	return view, end
}

// Settle takes what Stream decided about the view Add returned (paused,
// or continued with replace the replacement, nil for none) and returns
// what replaces the host's current chunk; replaceChunk is false when the
// chunk may go on as it is (nothing was held and nothing replaced).
func (h *BodyHold) Settle(view []byte, paused bool, replace []byte, replaced bool) (out []byte, replaceChunk bool) {
	if paused && !h.ended {
		if !h.holding {
			// The first held chunk is copied: the host's memory for it is
			// the SDK's buffer, not ours to keep.
			h.held = append(make([]byte, 0, 2*len(view)), view...)
			h.holding = true
		}
		return nil, true
	}
	wasHolding := h.holding
	h.holding = false
	h.held = nil
	if replaced {
		return replace, true
	}
	// A pause at the end is a host-mode idiom the plugin never uses; the
	// body goes out whole either way.
	return view, wasHolding
}

// Inspected reports that the stream's request is on gateway.paths and was
// not answered at its headers: its bodies are judged.
func (s *Stream) Inspected() bool { return s.inspect && !s.replied }

// BodyBuffering is the stream's gateway.body_buffering.
func (s *Stream) BodyBuffering() policy.BodyBuffering { return s.cfg.Env.Gateway.BodyBuffering }
