package wasmhost

import (
	"fmt"
	"strconv"
	"sync"
)

// EventType says what a stream passed on, and in which direction.
type EventType int

// Event types. Upstream events are what the filter chain hands to Envoy's
// router (the request as the plugin left it); downstream events are what
// goes to the client.
const (
	EventUpstreamHeaders EventType = iota
	EventUpstreamData
	EventUpstreamTrailers
	// EventUpstreamReset: the host gave up on the upstream exchange (a local
	// reply or a reset ended the stream after request headers went
	// upstream); a proxy cancels its upstream request.
	EventUpstreamReset
	EventDownstreamHeaders
	EventDownstreamData
	EventDownstreamTrailers
	// EventDownstreamReset: the client's stream is reset (no complete
	// response), e.g. a local reply after response headers were sent.
	EventDownstreamReset
)

func (t EventType) String() string {
	switch t {
	case EventUpstreamHeaders:
		return "upstream-headers"
	case EventUpstreamData:
		return "upstream-data"
	case EventUpstreamTrailers:
		return "upstream-trailers"
	case EventUpstreamReset:
		return "upstream-reset"
	case EventDownstreamHeaders:
		return "downstream-headers"
	case EventDownstreamData:
		return "downstream-data"
	case EventDownstreamTrailers:
		return "downstream-trailers"
	case EventDownstreamReset:
		return "downstream-reset"
	}
	return fmt.Sprintf("EventType(%d)", int(t))
}

// Event is one thing a stream released (headers, a body chunk, trailers) or
// a reset.
type Event struct {
	Type        EventType
	Headers     Headers // headers and trailers events
	Data        []byte  // data events
	EndOfStream bool
	Reason      string // reset events
}

// Message accumulates everything a stream released in one direction.
type Message struct {
	Headers     Headers
	Body        []byte
	Trailers    Headers
	HeadersSent bool
	EndOfStream bool
	Reset       bool
	ResetReason string
}

// Status is the :status of a downstream message (0 if none).
func (m Message) Status() int {
	n, _ := strconv.Atoi(m.Headers.Value(":status"))
	return n
}

// direction is one half of a stream as Envoy's filter manager sees it with
// this plugin as its only filter.
type direction struct {
	resp bool

	headers         Headers
	headersSeen     bool
	headersEOS      bool // the headers ended the stream
	headersAvail    bool // the plugin can read and change the header map
	headersReleased bool

	stopAll   bool // StopAllIterationAndWatermark: nothing reaches the plugin
	stopped   bool // StopIteration / StopIterationAndBuffer / paused trailers
	buffering bool // the last body callback paused: the next one sees the whole buffer
	buffer    []byte
	chunk     *[]byte // the chunk a body callback is looking at

	eosSeen bool // the input ended

	trailers         Headers
	trailersSeen     bool
	trailersAvail    bool
	trailersPassed   bool
	trailersReleased bool

	eosReleased bool
	aborted     bool // nothing more is accepted or passed on
}

// bodyView is the body buffer the plugin sees right now, or nil.
func (d *direction) bodyView() *[]byte {
	if d.chunk != nil {
		return d.chunk
	}
	if d.buffering {
		return &d.buffer
	}
	return nil
}

// stalled: only proxy_continue_stream (or a local reply) can move the
// direction on.
func (d *direction) stalled() bool {
	if d.aborted || d.eosReleased || !d.headersSeen {
		return false
	}
	return d.stopAll || (d.stopped && d.eosSeen)
}

// Stream is one HTTP stream through the plugin on one VM, with the
// semantics of Envoy's filter manager around a single proxy-wasm filter:
//
//   - Headers: CONTINUE passes them on; PAUSE is StopAllIterationAndWatermark
//     (nothing more reaches the plugin until proxy_continue_stream, which
//     passes the headers on and hands the plugin what was held), or plain
//     StopIteration with Options.AllowOnHeadersStopIteration.
//   - Body: a callback sees the new chunk, or, when the previous body
//     callback paused, everything buffered so far; CONTINUE passes on what
//     it saw (as the plugin changed it) together with held headers; PAUSE
//     keeps it (StopIterationAndBuffer). Paused at end of stream, the
//     direction stalls until proxy_continue_stream.
//   - Header maps are available to the plugin only until they are passed
//     on (afterwards reads find nothing and writes are BAD_ARGUMENT), and
//     read-only in proxy_on_log.
//   - proxy_send_local_response takes effect when the callback returns:
//     from the request phase the reply goes through the plugin's own
//     response callbacks; once upstream response headers arrived it
//     replaces the response directly; once response headers went
//     downstream the stream is reset.
//
// Inputs are the methods named after the callbacks; outputs are Events and
// the Upstream / Downstream messages. Methods are safe for concurrent use;
// calls into the VM are serialized.
type Stream struct {
	vm       *VM
	id       uint32
	gen      uint64
	created  bool
	closed   bool
	orphaned bool // its VM instance was replaced (FailReload)
	logPhase bool

	req, resp direction

	localReply       *LocalReply
	streamFailed     bool
	failureReplySent bool
	reset            bool
	upstreamDone     bool // the upstream response ended
	upstreamAborted  bool
	downHeadersSent  bool
	downDone         bool

	// bufferLimit is the stream's buffer limit once a filter after the
	// plugin set it (Options.LaterFilterBufferLimit); 0: the host's.
	bufferLimit int

	props       map[string][]byte
	filterState map[string][]byte

	ngx *ngxStream // under Options.Semantics other than Envoy's (ngxwasm.go), else nil

	emu    sync.Mutex
	events []Event
	ready  chan struct{}
	up     Message
	down   Message
}

// NewStream creates a stream context on this VM
// (proxy_on_context_create(id, root)).
func (vm *VM) NewStream() *Stream {
	vm.mu.Lock()
	defer vm.unlock()
	vm.maybeReloadLocked()
	s := &Stream{
		vm: vm, gen: vm.gen,
		req:         direction{},
		resp:        direction{resp: true},
		props:       map[string][]byte{},
		filterState: map[string][]byte{},
		ready:       make(chan struct{}, 1),
	}
	s.id = vm.nextID
	vm.nextID++
	vm.streams[s.id] = s
	if vm.failed == nil {
		cs := &callState{contextID: s.id}
		vm.callWith(cs, "proxy_on_context_create", uint64(s.id), rootContextID)
		vm.runActions(cs.actions)
	}
	s.created = true
	return s
}

func (vm *VM) closedLocked() bool { return vm.mod == nil || vm.closed }

// ID is the stream's context id.
func (s *Stream) ID() uint32 { return s.id }

// VM is the VM the stream runs on.
func (s *Stream) VM() *VM { return s.vm }

// SetProperty sets a property the plugin can read with proxy_get_property
// on this stream (e.g. source.address, connection.mtls, metadata paths).
func (s *Stream) SetProperty(path []string, value []byte) {
	s.vm.mu.Lock()
	defer s.vm.unlock()
	s.props[PropertyPath(path...)] = append([]byte(nil), value...)
}

func (s *Stream) setFilterState(path string, v []byte) { s.filterState[path] = v }

// FilterState returns what the plugin stored with proxy_set_property on
// this stream (Envoy keeps it in the stream's filter state as "wasm.<path>").
func (s *Stream) FilterState(path ...string) ([]byte, bool) {
	s.vm.mu.Lock()
	defer s.vm.unlock()
	v, ok := s.filterState[PropertyPath(path...)]
	return append([]byte(nil), v...), ok
}

// RequestHeaders delivers the request headers (proxy_on_request_headers).
// Keys are lower-cased; pseudo-headers (:method, :path, :authority,
// :scheme) are ordinary entries, first by convention.
func (s *Stream) RequestHeaders(h Headers, endOfStream bool) FilterStatus {
	s.vm.mu.Lock()
	defer s.vm.unlock()
	if s.closed || s.req.headersSeen || s.req.aborted {
		return Skipped
	}
	if s.sem().RequestBodyWhole {
		_, s.ngxState().reqHadLength = h.lowered().Get("content-length")
	}
	return s.headersLocked(&s.req, h, endOfStream)
}

// RequestBody delivers a request body chunk (proxy_on_request_body).
func (s *Stream) RequestBody(chunk []byte, endOfStream bool) FilterStatus {
	s.vm.mu.Lock()
	defer s.vm.unlock()
	if s.closed {
		return Skipped
	}
	return s.dataLocked(&s.req, chunk, endOfStream)
}

// RequestTrailers delivers request trailers (proxy_on_request_trailers);
// they end the request.
func (s *Stream) RequestTrailers(t Headers) FilterStatus {
	s.vm.mu.Lock()
	defer s.vm.unlock()
	if s.closed {
		return Skipped
	}
	return s.trailersLocked(&s.req, t)
}

// ResponseHeaders delivers the upstream's response headers (with :status).
func (s *Stream) ResponseHeaders(h Headers, endOfStream bool) FilterStatus {
	s.vm.mu.Lock()
	defer s.vm.unlock()
	if s.closed || s.upstreamAborted || s.resp.headersSeen {
		return Skipped
	}
	if endOfStream {
		s.upstreamDone = true
	}
	if s.sem().LengthHidesEnd {
		s.ngxResponseHeaders(h)
	}
	return s.headersLocked(&s.resp, h, endOfStream)
}

// ResponseBody delivers an upstream response body chunk; each chunk the
// plugin continues is released downstream at once.
func (s *Stream) ResponseBody(chunk []byte, endOfStream bool) FilterStatus {
	s.vm.mu.Lock()
	defer s.vm.unlock()
	if s.closed || s.upstreamAborted {
		return Skipped
	}
	if endOfStream {
		s.upstreamDone = true
	}
	return s.dataLocked(&s.resp, chunk, endOfStream)
}

// ResponseTrailers delivers upstream response trailers.
func (s *Stream) ResponseTrailers(t Headers) FilterStatus {
	s.vm.mu.Lock()
	defer s.vm.unlock()
	if s.closed || s.upstreamAborted {
		return Skipped
	}
	s.upstreamDone = true
	return s.trailersLocked(&s.resp, t)
}

// SendLocalReply answers the stream on the host's behalf, as another Envoy
// filter or the router would (e.g. 503 when the upstream cannot be
// reached), with the same rules as the plugin's proxy_send_local_response.
func (s *Stream) SendLocalReply(r LocalReply) {
	s.vm.mu.Lock()
	defer s.vm.unlock()
	if !s.closed {
		s.localReplyLocked(r)
	}
}

// Reset resets the stream from outside (the client went away, or the
// upstream connection broke mid-response).
func (s *Stream) Reset(reason string) {
	s.vm.mu.Lock()
	defer s.vm.unlock()
	if !s.closed {
		s.resetLocked(reason)
	}
}

// Close ends the stream: proxy_on_log (header maps readable), proxy_on_done,
// proxy_on_delete. An unfinished upstream exchange is abandoned.
func (s *Stream) Close() {
	vm := s.vm
	vm.mu.Lock()
	defer vm.unlock()
	if s.closed {
		return
	}
	if !s.downDone {
		s.req.aborted, s.resp.aborted = true, true
		s.abortUpstreamLocked()
	}
	s.closed = true
	if s.created && !s.orphaned && vm.failed == nil && s.gen == vm.gen {
		s.logPhase = true
		vm.callWith(&callState{contextID: s.id}, "proxy_on_log", uint64(s.id))
		s.logPhase = false
		vm.callWith(&callState{contextID: s.id}, "proxy_on_done", uint64(s.id))
		vm.callWith(&callState{contextID: s.id}, "proxy_on_delete", uint64(s.id))
	}
	if vm.streams[s.id] == s {
		delete(vm.streams, s.id)
	}
}

// Events returns (and forgets) what the stream released since the last call.
func (s *Stream) Events() []Event {
	s.emu.Lock()
	defer s.emu.Unlock()
	ev := s.events
	s.events = nil
	return ev
}

// Ready is signalled whenever new events are queued, including ones caused
// by another context (proxy_continue_stream from proxy_on_queue_ready, ...).
func (s *Stream) Ready() <-chan struct{} { return s.ready }

// Upstream is everything released towards the upstream so far.
func (s *Stream) Upstream() Message {
	s.emu.Lock()
	defer s.emu.Unlock()
	return copyMessage(s.up)
}

// Downstream is everything released towards the client so far.
func (s *Stream) Downstream() Message {
	s.emu.Lock()
	defer s.emu.Unlock()
	return copyMessage(s.down)
}

func copyMessage(m Message) Message {
	m.Headers = m.Headers.Clone()
	m.Trailers = m.Trailers.Clone()
	m.Body = append([]byte(nil), m.Body...)
	return m
}

// RequestStalled reports that the request is held by the plugin and only
// proxy_continue_stream can release it: paused headers (Envoy's
// StopAllIterationAndWatermark), or a pause at end of stream.
func (s *Stream) RequestStalled() bool {
	s.vm.mu.Lock()
	defer s.vm.unlock()
	return s.req.stalled()
}

// ResponseStalled is RequestStalled for the response.
func (s *Stream) ResponseStalled() bool {
	s.vm.mu.Lock()
	defer s.vm.unlock()
	return s.resp.stalled()
}

// Done reports that the client got a complete response or a reset.
func (s *Stream) Done() bool {
	s.vm.mu.Lock()
	defer s.vm.unlock()
	return s.downDone
}

// LocalReply returns the first local reply of the stream (the plugin's, the
// host's, or the 503 of a failed VM), or nil.
func (s *Stream) LocalReply() *LocalReply {
	s.vm.mu.Lock()
	defer s.vm.unlock()
	if s.localReply == nil {
		return nil
	}
	r := *s.localReply
	return &r
}

// Failed reports that the stream was failed closed because its VM trapped.
func (s *Stream) Failed() bool {
	s.vm.mu.Lock()
	defer s.vm.unlock()
	return s.streamFailed
}

// emit queues an event (vm.mu held).
func (s *Stream) emit(ev Event) {
	if ev.Data != nil {
		ev.Data = append([]byte(nil), ev.Data...)
	}
	ev.Headers = ev.Headers.Clone()
	switch ev.Type {
	case EventDownstreamHeaders:
		s.downHeadersSent = true
		if ev.EndOfStream {
			s.downDone = true
		}
	case EventDownstreamData:
		if ev.EndOfStream {
			s.downDone = true
		}
	case EventDownstreamTrailers, EventDownstreamReset:
		s.downDone = true
	}
	s.emu.Lock()
	m := &s.up
	if ev.Type >= EventDownstreamHeaders {
		m = &s.down
	}
	switch ev.Type {
	case EventUpstreamHeaders, EventDownstreamHeaders:
		m.Headers, m.HeadersSent = ev.Headers, true
	case EventUpstreamData, EventDownstreamData:
		m.Body = append(m.Body, ev.Data...)
	case EventUpstreamTrailers, EventDownstreamTrailers:
		m.Trailers = ev.Headers
	case EventUpstreamReset, EventDownstreamReset:
		m.Reset, m.ResetReason = true, ev.Reason
	}
	if ev.EndOfStream {
		m.EndOfStream = true
	}
	s.events = append(s.events, ev)
	s.emu.Unlock()
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

type cbKind int

const (
	cbHeaders cbKind = iota
	cbBody
	cbTrailers
)

var callbackNames = [2][3]string{
	{"proxy_on_request_headers", "proxy_on_request_body", "proxy_on_request_trailers"},
	{"proxy_on_response_headers", "proxy_on_response_body", "proxy_on_response_trailers"},
}

func stopStatus(kind cbKind) FilterStatus {
	switch kind {
	case cbHeaders:
		return StopAllIterationAndWatermark
	case cbBody:
		return StopIterationNoBuffer
	}
	return StopIteration
}

func (s *Stream) vmUnusable() bool {
	return s.orphaned || s.vm.failed != nil || s.gen != s.vm.gen
}

// callback runs one stream callback with proxy-wasm-cpp-host's failure
// handling and converts its result the way Envoy does.
func (s *Stream) callback(d *direction, kind cbKind, args ...uint64) FilterStatus {
	vm := s.vm
	if d.resp && s.failureReplySent {
		// Envoy lets its own failure reply pass the failed plugin.
		return Continue
	}
	if s.vmUnusable() {
		if vm.host.opts.FailurePolicy == FailOpen {
			return Continue
		}
		s.failLocked()
		return stopStatus(kind)
	}
	name := callbackNames[0][kind]
	if d.resp {
		name = callbackNames[1][kind]
	}
	cs := &callState{contextID: s.id}
	rc, called := vm.callWith(cs, name, append([]uint64{uint64(s.id)}, args...)...)
	if vm.failed != nil {
		if vm.host.opts.FailurePolicy == FailOpen {
			return Continue
		}
		s.failLocked()
		return stopStatus(kind)
	}
	if !called {
		return Continue
	}
	st := convertResult(kind, uint32(rc), cs.stopNext, vm.host.opts.AllowOnHeadersStopIteration)
	vm.runActions(cs.actions)
	return st
}

func convertResult(kind cbKind, rc uint32, stopNext, allowStopIteration bool) FilterStatus {
	switch kind {
	case cbHeaders:
		switch {
		case stopNext || rc > 1:
			return StopAllIterationAndWatermark
		case rc == 0:
			return Continue
		case allowStopIteration:
			return StopIteration
		}
		return StopAllIterationAndWatermark
	case cbBody:
		switch {
		case stopNext || rc > 2:
			return StopIterationNoBuffer
		case rc == 0:
			return Continue
		}
		return StopIterationAndBuffer
	}
	if stopNext || rc != 0 {
		return StopIteration
	}
	return Continue
}

func (s *Stream) headersLocked(d *direction, h Headers, eos bool) FilterStatus {
	d.headers = h.lowered()
	d.headersSeen, d.headersEOS, d.eosSeen, d.headersAvail = true, eos, eos, true
	st := s.callback(d, cbHeaders, uint64(len(d.headers)), b2u(eos && (d.resp || !s.sem().RequestBodyWhole)))
	if d.aborted {
		return st
	}
	switch st {
	case Continue:
		s.releaseLocked(d)
	case StopIteration:
		d.stopped = true
	default:
		d.stopAll = true
	}
	return st
}

func (s *Stream) dataLocked(d *direction, chunk []byte, eos bool) FilterStatus {
	if d.aborted || !d.headersSeen || d.eosSeen {
		return Skipped
	}
	d.eosSeen = eos
	if d.stopAll {
		// Envoy's filter manager holds the data; the plugin sees it only
		// after proxy_continue_stream.
		d.buffer = append(d.buffer, chunk...)
		return Skipped
	}
	if sem := s.sem(); !d.resp && sem.RequestBodyWhole {
		return s.ngxRequestData(d, chunk, eos)
	} else if d.resp && sem.PauseBuffersOnce {
		return s.ngxResponseData(d, chunk, eos)
	}
	if d.buffering {
		d.buffer = append(d.buffer, chunk...)
		if s.overLimit(d) {
			s.bufferOverflowLocked(d)
			return Skipped
		}
		return s.bodyLocked(d, nil, eos)
	}
	return s.bodyLocked(d, append([]byte(nil), chunk...), eos)
}

// bodyLocked runs the body callback over chunk, or over the whole buffer
// when the previous body callback paused.
func (s *Stream) bodyLocked(d *direction, chunk []byte, eos bool) FilterStatus {
	wasBuffering := d.buffering
	view := &d.buffer
	if !wasBuffering {
		view = &chunk
		d.chunk = view
	}
	st := s.callback(d, cbBody, uint64(len(*view)), b2u(eos))
	d.chunk = nil
	if d.aborted {
		return st
	}
	d.buffering = false
	switch st {
	case Continue:
		if !wasBuffering {
			d.buffer = append(d.buffer, chunk...)
		}
		d.stopped = false
		s.releaseLocked(d)
	case StopIterationAndBuffer:
		if !wasBuffering {
			d.buffer = append(d.buffer, chunk...)
		}
		d.buffering, d.stopped = true, true
		if s.overLimit(d) {
			s.bufferOverflowLocked(d)
		}
	default: // StopIterationNoBuffer: the chunk is not kept
		d.stopped = true
	}
	return st
}

func (s *Stream) trailersLocked(d *direction, t Headers) FilterStatus {
	if s.sem().NoTrailerCallbacks {
		return s.ngxTrailers(d, t)
	}
	if d.aborted || !d.headersSeen || d.eosSeen {
		return Skipped
	}
	d.trailers = t.lowered()
	d.trailersSeen, d.eosSeen = true, true
	if d.stopAll {
		return Skipped
	}
	return s.trailersCallbackLocked(d)
}

func (s *Stream) trailersCallbackLocked(d *direction) FilterStatus {
	d.trailersAvail = true
	st := s.callback(d, cbTrailers, uint64(len(d.trailers)))
	d.trailersAvail = false
	if d.aborted {
		return st
	}
	if st == Continue {
		d.trailersPassed = true
		d.stopped, d.buffering = false, false
		s.releaseLocked(d)
	} else {
		d.stopped = true
	}
	return st
}

func (s *Stream) overLimit(d *direction) bool {
	limit := s.vm.host.opts.BufferLimitBytes
	if s.bufferLimit != 0 {
		limit = s.bufferLimit
	}
	return limit > 0 && len(d.buffer) > limit
}

// bufferOverflowLocked is Envoy's reaction to a buffered body over the
// buffer limit: 413 for requests, 500 (or a reset) for responses.
func (s *Stream) bufferOverflowLocked(d *direction) {
	if d.resp {
		s.localReplyLocked(LocalReply{Status: 500, Body: []byte("Internal Server Error"), Details: "response_payload_too_large"})
		return
	}
	s.localReplyLocked(LocalReply{Status: 413, Body: []byte("Payload Too Large"), Details: "request_payload_too_large"})
}

// releaseLocked passes on what the direction holds: headers (once), the
// buffered body, trailers the plugin has let through.
func (s *Stream) releaseLocked(d *direction) {
	if d.aborted {
		return
	}
	data, trl := EventUpstreamData, EventUpstreamTrailers
	if d.resp {
		data, trl = EventDownstreamData, EventDownstreamTrailers
	}
	s.releaseHeadersLocked(d)
	if d.eosReleased {
		return
	}
	eos := d.eosSeen && !d.trailersSeen
	if len(d.buffer) > 0 || eos {
		s.emit(Event{Type: data, Data: d.buffer, EndOfStream: eos})
		d.buffer = nil
		if eos {
			d.eosReleased = true
		}
	}
	if d.trailersSeen && d.trailersPassed && !d.trailersReleased {
		d.trailersReleased, d.eosReleased = true, true
		s.emit(Event{Type: trl, Headers: d.trailers, EndOfStream: true})
	}
}

// releaseHeadersLocked passes the headers on (once).
func (s *Stream) releaseHeadersLocked(d *direction) {
	if d.aborted || d.headersReleased {
		return
	}
	if !d.resp && s.sem().RequestBodyWhole && !s.ngxRequestReady(d) {
		return
	}
	d.headersReleased, d.headersAvail = true, false
	t := EventUpstreamHeaders
	if d.resp {
		t = EventDownstreamHeaders
	}
	s.emit(Event{Type: t, Headers: d.headers, EndOfStream: d.headersEOS})
	if d.headersEOS {
		d.eosReleased = true
	}
	if f := s.vm.host.opts.LaterFilterBufferLimit; f != nil && !d.resp {
		if l := f(d.headers, d.headersEOS); l != 0 {
			s.bufferLimit = l
		}
	}
}

// continueLocked is proxy_continue_stream for one direction.
func (s *Stream) continueLocked(t StreamType) {
	d := &s.req
	if t == StreamResponse {
		d = &s.resp
	}
	if d.aborted || !d.headersSeen || d.eosReleased {
		return
	}
	switch {
	case d.stopAll:
		// Headers move on; what Envoy held reaches the plugin now
		// (iteration resumes at this filter).
		d.stopAll = false
		held := d.buffer
		d.buffer = nil
		s.releaseHeadersLocked(d)
		if d.headersEOS || d.aborted {
			return
		}
		if len(held) > 0 || (d.eosSeen && !d.trailersSeen) {
			if st := s.bodyLocked(d, held, d.eosSeen && !d.trailersSeen); st != Continue || d.aborted {
				return
			}
		}
		if d.trailersSeen && !d.trailersPassed {
			s.trailersCallbackLocked(d)
		}
	case d.stopped:
		d.stopped, d.buffering = false, false
		if d.trailersSeen {
			d.trailersPassed = true
		}
		s.releaseLocked(d)
	}
}

// localReplyHeaders builds the reply's headers like Envoy's sendLocalReply:
// :status, the plugin's additional headers, content-length and a default
// content-type for a non-empty body.
func localReplyHeaders(r LocalReply) Headers {
	h := Headers{{":status", strconv.Itoa(int(r.Status))}}
	for _, f := range r.Headers {
		h.Add(f.Key, f.Value)
	}
	if len(r.Body) > 0 {
		h.Del("content-length")
		h.Add("content-length", strconv.Itoa(len(r.Body)))
		if _, ok := h.Get("content-type"); !ok {
			h.Add("content-type", "text/plain")
		}
	} else {
		h.Del("content-length")
		h.Del("content-type")
	}
	return h
}

// localReplyLocked answers the stream locally (Envoy's sendLocalReply).
func (s *Stream) localReplyLocked(r LocalReply) {
	if s.reset || s.downDone {
		return
	}
	if s.localReply == nil {
		rc := r
		s.localReply = &rc
	}
	if s.downHeadersSent {
		s.resetLocked("local reply after response headers were sent")
		return
	}
	s.req.aborted = true
	s.abortUpstreamLocked()
	hdrs := localReplyHeaders(r)
	if s.resp.headersSeen {
		// The response already started in the filter chain: a direct reply
		// that replaces it without passing the filters.
		s.resp.aborted = true
		s.emit(Event{Type: EventDownstreamHeaders, Headers: hdrs, EndOfStream: len(r.Body) == 0})
		if len(r.Body) > 0 {
			s.emit(Event{Type: EventDownstreamData, Data: r.Body, EndOfStream: true})
		}
		return
	}
	// Through the encoder filters, including this plugin's response callbacks.
	s.resp = direction{resp: true}
	s.headersLocked(&s.resp, hdrs, len(r.Body) == 0)
	if len(r.Body) > 0 {
		s.dataLocked(&s.resp, r.Body, true)
	}
}

func (s *Stream) abortUpstreamLocked() {
	if s.upstreamAborted {
		return
	}
	s.upstreamAborted = true
	if s.req.headersReleased && !s.upstreamDone {
		s.emit(Event{Type: EventUpstreamReset, Reason: "stream ended before the upstream response"})
	}
}

func (s *Stream) resetLocked(reason string) {
	if s.reset {
		return
	}
	s.reset = true
	s.req.aborted, s.resp.aborted = true, true
	s.abortUpstreamLocked()
	if !s.downDone {
		s.emit(Event{Type: EventDownstreamReset, Reason: reason})
	}
}

// failLocked fails the stream closed after a trap: a 503 local reply
// (Envoy's failStream; grpc-status UNAVAILABLE for gRPC).
func (s *Stream) failLocked() {
	if s.streamFailed {
		return
	}
	s.streamFailed, s.failureReplySent = true, true
	s.localReplyLocked(LocalReply{Status: 503, Details: "wasm_fail_stream", GRPCStatus: 14})
}

// headerMap is the map a header call on this stream addresses.
func (s *Stream) headerMap(t MapType) (*Headers, bool) {
	if s.logPhase {
		switch t {
		case MapRequestHeaders:
			if s.req.headersSeen {
				return &s.req.headers, false
			}
		case MapResponseHeaders:
			if s.resp.headersSeen {
				return &s.resp.headers, false
			}
		case MapResponseTrailers:
			if s.resp.trailersSeen {
				return &s.resp.trailers, false
			}
		}
		return nil, false
	}
	switch t {
	case MapRequestHeaders:
		if s.req.headersAvail {
			return &s.req.headers, true
		}
	case MapRequestTrailers:
		if s.req.trailersAvail {
			return &s.req.trailers, true
		}
	case MapResponseHeaders:
		if s.resp.headersAvail {
			return &s.resp.headers, true
		}
	case MapResponseTrailers:
		if s.resp.trailersAvail {
			return &s.resp.trailers, true
		}
	}
	return nil, false
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
