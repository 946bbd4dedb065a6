package mcp

import (
	"strconv"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/internal/sse"
	"github.com/cloudg/mcp-privacy/policy"
)

// Action is what a callback tells the host.
type Action uint8

const (
	Continue Action = iota
	// Pause buffers: the host keeps the data and calls again with more.
	Pause
)

// LocalReply is an HTTP response the plugin sends instead of forwarding.
type LocalReply struct {
	Status  int
	Body    []byte
	Headers [][2]string
	// Details is Envoy's response code detail (shown in access logs).
	Details string
	// AsServer: the reply stands for the server's own (a hidden primitive
	// answered as missing), so it carries no x-mcp-privacy header, which
	// would tell it apart.
	AsServer bool
}

func jsonReply(status int, body []byte, details string) *LocalReply {
	return &LocalReply{Status: status, Body: body, Details: details,
		Headers: [][2]string{{"content-type", "application/json"}}}
}

// Stream is the plugin's state for one HTTP stream: the HTTP side of it,
// what Envoy hands over and what goes back. It reads the request line and
// headers (gateway.paths, the request target, the session, identity,
// content type and encoding, sizes), answers what it refuses there (400,
// 401, 404, 413, 415) and frames the bodies: a request body buffered to
// its end, a JSON response buffered, an event stream rewritten event by
// event (internal/sse), each response given one reading (its content type
// written canonically, no content coding: OnResponseHeaders). What the
// bodies say is its exchange's: Stream hands it each complete body, or
// each event's data, and applies what comes back.
//
// The seam, one way: Stream calls exchange's judgeBody (a request body),
// processJSON, rewriteEvent and processText (a response body or event),
// JudgeField (an event's id or name, through internal/sse), headerText (a
// response header a client shows), failResponse (a response it must
// fail), refusal and refuseBody (a
// refusal of its own, for the audit), exportHeaders, forwardsCacheable,
// done and failed; at the request headers it sets what they say of the
// messages: the caller's identity, the session, the protocol revision and
// the mirrored headers (and arrived, when they did); at the response
// headers and the end of an event stream it takes the local answers a
// batch left pending, with their Retry-After. exchange never calls Stream,
// and knows nothing of HTTP but the status of its local answers.
type Stream struct {
	cfg *Config
	// inspect is set for requests on gateway.paths.
	inspect bool
	post    bool
	// replied is set once the plugin answered locally: its reply passes
	// the plugin's own response callbacks untouched.
	replied bool
	// bodyless is the method of an inspected GET, HEAD, DELETE or
	// OPTIONS ("" for others): a body on it is refused.
	bodyless string
	mode     responseMode
	sse      *sse.Rewriter
	// ex is the message exchange of this stream.
	ex exchange
}

// NewStream starts the state of one HTTP stream.
func NewStream(cfg *Config) *Stream { return &Stream{cfg: cfg, ex: exchange{cfg: cfg}} }

// HeadersResult is the outcome of the request headers callback.
type HeadersResult struct {
	Action Action
	// Remove lists request headers to delete; Set lists headers to set
	// (after removal).
	Remove []string
	Set    [][2]string
	Reply  *LocalReply
}

// OnRequestHeaders inspects the request line and headers. path is :path,
// method :method; endOfStream is set when there is no body.
func (s *Stream) OnRequestHeaders(req Request, method, path string, endOfStream bool) HeadersResult {
	var r HeadersResult
	g := &s.cfg.Env.Gateway
	// The request target, read once (target.go): outside gateway.paths
	// in every reading, the stream is not the plugin's.
	t := readTarget(path, g.Paths)
	if !t.gateway {
		return r
	}
	s.inspect = true
	s.ex.arrived = s.cfg.now()
	if t.ambiguity != "" {
		s.ex.id = resolveIdentity(&s.cfg.Env.Identity, req)
		r.Reply = s.refuseRequest(400, "mcp_privacy_ambiguous_target",
			"Invalid Request: the request target "+t.ambiguity+", which servers read differently; send a plain path")
		return r
	}
	// The session: the Mcp-Session-Id header (Streamable HTTP), else the
	// query's (the legacy transport). Answers that come back on another
	// stream are attributed by it, so the plugin must read the session the
	// server reads; where servers could read different ones, the request
	// is refused below.
	sessions := req.HeaderValues("mcp-session-id")
	querySession, sessionAmbiguous := t.session, t.sessionAmbiguous
	var ignoredSessions []string // named by a 2026-07-28 request
	versions := req.HeaderValues(headerProtocolVersion)
	if method == "POST" && statelessVersion(versions) {
		// 2026-07-28 has no sessions: a 2026 server ignores Mcp-Session-Id
		// (and a legacy query's), so the plugin does too. Nothing binds,
		// nothing is shared by it; the answer comes back on this stream.
		// But a stateful server serves a POST naming a session in it
		// whatever its version: one held by another principal is refused
		// below, as for any request.
		ignoredSessions = append(sessions, querySession)
		sessions, querySession, sessionAmbiguous = nil, "", false
	}
	if len(sessions) > 0 {
		s.ex.session = sessions[0]
		for _, v := range sessions[1:] {
			sessionAmbiguous = sessionAmbiguous || v != s.ex.session
		}
		// A legacy server reads the query, a Streamable HTTP one the header.
		sessionAmbiguous = sessionAmbiguous || querySession != "" && querySession != s.ex.session
	}
	if s.ex.session == "" {
		s.ex.session = querySession
		s.ex.legacy = s.ex.session != "" && method == "POST"
	}
	// Clients must not set what the plugin exports to later filters, and
	// servers must answer plainly so responses can be inspected.
	r.Remove = s.cfg.removeHeaders

	s.ex.id = resolveIdentity(&s.cfg.Env.Identity, req)
	if s.ex.id.Anonymous && s.cfg.Env.Identity.Require {
		s.replied = true
		r.Reply = jsonReply(401, ErrorResponse("null", &policy.RPCError{Code: errCode(mcpvocab.ErrInvalidRequest), Message: "Unauthorized: this MCP endpoint requires an authenticated principal"}),
			"mcp_privacy_unauthenticated")
		r.Reply.Headers = append(r.Reply.Headers, [2]string{"www-authenticate", "Bearer"})
		s.ex.refuseBody(failUnauthenticated, "no principal, and identity.require is set", 0, len(r.Reply.Body), s.ex.arrived)
		return r
	}
	if sessionAmbiguous {
		r.Reply = s.refuseRequest(400, "mcp_privacy_ambiguous_session",
			"Invalid Request: the request names more than one session (in its query, its Mcp-Session-Id headers, or both), which servers read differently; send one")
		return r
	}
	for _, v := range ignoredSessions {
		if v != "" && s.cfg.catalog.sessionHeldByOther(v, s.ex.id.ID) {
			r.Reply = s.refuseSession()
			return r
		}
	}
	if s.ex.session != "" && method != "OPTIONS" && method != "HEAD" && !s.cfg.catalog.bindSession(s.ex.session, s.ex.id.ID, s.ex.arrived) {
		// The session belongs to another principal: its streams carry
		// that principal's answers and server messages. Answered as an
		// unknown session is (404, which tells a client to start a new
		// one), whatever the method: a GET stream, a DELETE and a POST.
		// OPTIONS and HEAD neither bind nor are refused: nothing of a
		// session flows on them (a body is refused below), and a
		// browser's CORS preflight carries no credentials, so it would
		// bind a legacy session's URL to the anonymous principal.
		r.Reply = s.refuseSession()
		return r
	}
	r.Set = s.ex.exportHeaders(nil)
	switch method {
	case "GET", "HEAD", "DELETE", "OPTIONS":
		// GET streams and DELETE carry no JSON-RPC body to judge, and must
		// not be paused (a GET stream lives as long as the session). A
		// body they carry anyway would go upstream unjudged: refused here
		// when announced, else at its first byte (OnRequestBody).
		s.bodyless = method
		if declaresBody(req) {
			r.Reply = s.refuseRequest(400, "mcp_privacy_body_not_allowed",
				"Invalid Request: a "+method+" request must not carry a body")
		} else if !endOfStream && g.HoldHeaders {
			// Something follows the headers: under hold_headers the
			// server sees nothing of the request until it is known to be
			// empty (the end of stream comes at once for a bodiless one).
			r.Action = Pause
		}
		return r
	}
	// POST, and any other method that could carry a body a server might
	// read as JSON-RPC, is judged, by the table of its revision; the
	// headers that mirror its body are checked against it (headers.go).
	s.post = true
	readMirroredHeaders(&s.ex.mirror, req, versions)
	if len(s.ex.mirror.version) == 1 {
		s.ex.rev = mcpvocab.RevisionOf(s.ex.mirror.version[0])
	}
	if enc, ok := compressed(req.HeaderValues("content-encoding")); ok {
		s.replied = true
		r.Reply = jsonReply(415, ErrorResponse("null", &policy.RPCError{Code: errCode(mcpvocab.ErrInvalidRequest), Message: "Unsupported Media Type: compressed request bodies cannot be inspected"}),
			"mcp_privacy_compressed_request")
		s.ex.refuseBody(failCompressedRequest, "compressed request body ("+headerSafe(enc)+")", 0, len(r.Reply.Body), s.ex.arrived)
		return r
	}
	if why := contentTypeProblem(req.HeaderValues("content-type")); why != "" {
		r.Reply = s.refuseRequest(415, "mcp_privacy_unsupported_media_type",
			"Unsupported Media Type: "+why+"; the body must be sent as application/json (UTF-8)")
		return r
	}
	if cl, ok := req.Header("content-length"); ok {
		if n, err := strconv.ParseInt(strings.TrimSpace(cl), 10, 64); err == nil && n > int64(g.MaxRequestBytes) {
			s.replied = true
			r.Reply = s.tooLarge(int(min(n, 1<<62)))
			return r
		}
	}
	if endOfStream {
		r.Reply = s.emptyBody()
		return r
	}
	// The body may be rewritten: its length is not known yet.
	r.Remove = s.cfg.removeHeadersBody
	if g.HoldHeaders {
		// Headers wait for the verdict (Envoy delivers the body to a
		// filter paused on headers only with allow_on_headers_stop_iteration).
		r.Action = Pause
	}
	return r
}

// statelessVersion reports whether a request whose MCP-Protocol-Version
// values are v is of the stateless era (its one such header is 2026-07-28
// or later).
func statelessVersion(v []string) bool {
	return len(v) == 1 && mcpvocab.RevisionOf(v[0]) == mcpvocab.Rev2026
}

// refuseRequest answers a request the plugin refuses from its headers with
// status and a JSON-RPC -32600 error, and records it.
func (s *Stream) refuseRequest(status int, details, message string) *LocalReply {
	s.replied = true
	return s.ex.refusal(status, details, message)
}

// refuseSession answers a request naming a session bound to another
// principal (shared.go, bindSession): 404 with a JSON-RPC -32600 error,
// the same for every session the caller may not use, so the answer does
// not say whose it is.
func (s *Stream) refuseSession() *LocalReply {
	s.replied = true
	r := jsonReply(404, ErrorResponse("null", &policy.RPCError{Code: errCode(mcpvocab.ErrInvalidRequest),
		Message: "Not Found: session not found; start a new session"}), "mcp_privacy_session_not_found")
	s.ex.refuseBody(failSessionPrincipal, "the request names a session bound to another principal", 0, len(r.Body), s.ex.arrived)
	return r
}

// compressed returns the first content-encoding value other than
// identity: every value counts, as a server given two may decode either.
func compressed(values []string) (string, bool) {
	for _, v := range values {
		if !strings.EqualFold(strings.TrimSpace(v), "identity") {
			return v, true
		}
	}
	return "", false
}

// removeLength is the Remove of most responses; callers must not modify
// it (appends copy it first).
var removeLength = []string{"content-length"}

// responseCoding returns the first content coding of a response's
// content-encoding lines (joined with ", ") other than identity.
func responseCoding(v string) (string, bool) {
	for v != "" {
		var c string
		c, v, _ = strings.Cut(v, ",")
		if c = strings.TrimSpace(c); c != "" && !strings.EqualFold(c, "identity") {
			return c, true
		}
	}
	return "", false
}

// declaresBody reports whether the headers announce a request body: a
// transfer-encoding, or a content-length other than 0.
func declaresBody(req Request) bool {
	if _, ok := req.Header("transfer-encoding"); ok {
		return true
	}
	cl, ok := req.Header("content-length")
	return ok && strings.TrimSpace(cl) != "0"
}

// tooLarge answers a request body of size bytes over max_request_bytes
// (413), and records it.
func (s *Stream) tooLarge(size int) *LocalReply {
	limit := s.cfg.Env.Gateway.MaxRequestBytes
	r := jsonReply(413, ErrorResponse("null", &policy.RPCError{Code: errCode(mcpvocab.ErrInvalidRequest),
		Message: "Request too large: the body exceeds gateway.max_request_bytes (" + strconv.Itoa(limit) + ")"}),
		"mcp_privacy_request_too_large")
	s.ex.refuseBody(failRequestTooLarge, "request body over gateway.max_request_bytes", size, len(r.Body), s.ex.arrived)
	return r
}

// BodyResult is the outcome of the request body callback.
type BodyResult struct {
	Action Action
	Reply  *LocalReply
	// Body replaces the whole buffered body when non-nil.
	Body []byte
	// Set lists request headers to set (export_headers, and mirrored
	// headers the plugin rewrote, headers.go); Remove lists headers to
	// delete (before Set). Both take effect only while the headers are
	// held (gateway.hold_headers).
	Set    [][2]string
	Remove []string
}

// OnRequestBody sees the body buffered so far (size bytes) and, at
// endOfStream, judges it. read returns the whole buffered body.
func (s *Stream) OnRequestBody(size int, endOfStream bool, read func() []byte) BodyResult {
	if s.bodyless != "" && s.inspect && !s.replied && size > 0 {
		// A body on GET, HEAD, DELETE or OPTIONS that no header announced
		// (chunked, or HTTP/2 without content-length): refused before any
		// of it moves on.
		return BodyResult{Reply: s.refuseRequest(400, "mcp_privacy_body_not_allowed",
			"Invalid Request: a "+s.bodyless+" request must not carry a body")}
	}
	if !s.inspect || !s.post || s.replied {
		return BodyResult{}
	}
	if size > s.cfg.Env.Gateway.MaxRequestBytes {
		s.replied = true
		return BodyResult{Reply: s.tooLarge(size)}
	}
	if !endOfStream {
		return BodyResult{Action: Pause}
	}
	res := s.ex.judgeBody(read())
	s.replied = res.Reply != nil
	return res
}

// A message may end in trailers (HTTP/1.1 chunked trailers, HTTP/2
// trailers): the host then signals end of stream with the trailers
// callback, after a last body callback whose endOfStream was false. What
// a body callback does at end of stream is done there instead, so nothing
// passes unjudged whatever ends the message. Trailers are header fields,
// never JSON-RPC, and no MCP SDK reads them; on inspected paths they are
// removed in both directions, so the server receives exactly the judged
// body and the client nothing the filter did not see.

// StripTrailers reports whether this stream's trailers are removed (it is
// on gateway.paths).
func (s *Stream) StripTrailers() bool { return s.inspect }

// OnRequestTrailers ends a request whose body ended in trailers: the body
// the last body callback buffered (size bytes, 0 when there was none; read
// returns it) is handled exactly as by a body callback at end of stream,
// and an absent one as a request that ended with its headers.
func (s *Stream) OnRequestTrailers(size int, read func() []byte) BodyResult {
	if size == 0 && s.inspect && s.post && !s.replied {
		return BodyResult{Reply: s.emptyBody()}
	}
	return s.OnRequestBody(size, true, read)
}

// emptyBody answers a request that must carry a body and ended without
// one (400), and records it.
func (s *Stream) emptyBody() *LocalReply {
	s.replied = true
	r := jsonReply(400, ErrorResponse("null", rpcError(mcpvocab.ErrParse, "empty body")), "mcp_privacy_empty_body")
	s.ex.refuseBody(failParse, "Parse error: empty body", 0, len(r.Body), s.ex.arrived)
	return r
}

// ResponseHeadersResult is the outcome of the response headers callback.
type ResponseHeadersResult struct {
	Action Action
	Remove []string
	// Set lists response headers to set (after removal).
	Set   [][2]string
	Reply *LocalReply
}

// responseMode says how the body of a response is handled.
type responseMode uint8

const (
	passBody   responseMode = iota
	bufferJSON              // buffer an application/json response, then process it whole
	streamSSE               // rewrite a text/event-stream event by event as it flows
	dropBody                // the response failed closed: nothing more of it goes out
	bufferText              // buffer a body of any other type, then read it as text
)

// OnResponseHeaders sees the upstream's status and content type. The
// plugin's own local replies pass untouched. contentType and
// contentEncoding are every line of those headers joined with ", ", as
// clients read a repeated header (fetch's Headers.get, httpx's
// Headers.get).
//
// What leaves has one reading (manual 8.1): the content type the plugin
// reads the body by, written canonically, and no content coding. A
// response clients could read otherwise (two media types, a charset other
// than UTF-8 on JSON or an event stream, a content coding) is replaced by
// the fail-closed answer of manual 16. A body that is not 2xx is read as
// the text clients put into their errors, whatever its type.
func (s *Stream) OnResponseHeaders(status int, contentType, contentEncoding string, endOfStream bool) ResponseHeadersResult {
	var r ResponseHeadersResult
	if s.replied || !s.inspect {
		return r
	}
	mt := mediaType(contentType)
	g := &s.cfg.Env.Gateway
	success := status >= 200 && status <= 299
	// A failed answer keeps its status (a 404 still tells a client its
	// session is gone); a success becomes 200.
	failStatus := 200
	if status >= 300 {
		failStatus = status
	}
	enc, coded := responseCoding(contentEncoding)
	if coded && !endOfStream && !g.PassOnParseError {
		// The plugin asked for plain responses (accept-encoding removed);
		// one it cannot read does not go out (manual 16). Every coding of
		// every line counts: httpx applies each it knows.
		s.replied = true
		r.Reply = jsonReply(failStatus, s.ex.failResponse(failResponseCompressed, "the response is compressed ("+headerSafe(enc)+")"), "mcp_privacy_compressed_response")
		return r
	}
	if why := contentTypeReadings(contentType, mt); why != "" && success && !endOfStream && !g.PassOnParseError {
		// (A body that is not 2xx is read as text whatever its type.)
		s.replied = true
		r.Reply = jsonReply(200, s.ex.failResponse(failResponseInvalid, "its content type "+why+", which clients read differently"), "mcp_privacy_ambiguous_response")
		return r
	}
	if len(s.ex.pending) > 0 && (endOfStream || status == 202) {
		// Part of a batch was answered locally and nothing else will come:
		// the local answers are the response.
		s.replied = true
		r.Reply = jsonReply(200, joinArray(s.ex.pending), "mcp_privacy_batch")
		if s.ex.retryAfter[0] != "" {
			r.Reply.Headers = append(r.Reply.Headers, s.ex.retryAfter)
		}
		s.ex.pending = nil
		return r
	}
	if s.ex.retryAfter[0] != "" {
		// A rate limit refused part of the batch.
		r.Set = append(r.Set, s.ex.retryAfter)
	}
	if endOfStream {
		return r
	}
	if !success {
		// Not a success: clients put the body into the error they raise
		// (the TypeScript SDK's client all of its text, an event stream's
		// comments and ids included; the go-sdk's decodes it as JSON-RPC
		// whatever its type). JSON stays JSON; anything else is read
		// whole, as text.
		if mt != "application/json" {
			mt = ""
		}
	}
	// What goes out has one content type and no content coding: the
	// plugin removed any (identity) or failed above (on_parse_error: pass
	// lets a coded body through as it came, its header kept).
	if contentEncoding != "" && !coded {
		r.Remove = append(r.Remove, "content-encoding")
	}
	if r.Remove == nil {
		r.Remove = removeLength // shared: no allocation per response
	} else {
		r.Remove = append(r.Remove, "content-length")
	}
	switch mt {
	case "application/json":
		// Also when no request is waiting (a POST of notifications, a
		// GET): what a server sends there is read by clients all the same.
		s.mode = bufferJSON
	case "text/event-stream":
		s.mode = streamSSE
		s.sse = sse.NewRewriter(g.MaxEventBytes, s.ex.rewriteEvent)
		s.sse.JudgeFields(&s.ex)
	default:
		// Any other body (an error page, plain text, none declared): clients
		// put its text into the error they raise, which a user or a model
		// reads (processText).
		s.mode = bufferText
	}
	if ct := canonicalType(contentType, mt); ct != contentType {
		r.Remove = append(r.Remove[:len(r.Remove):len(r.Remove)], "content-type")
		if ct != "" {
			r.Set = append(r.Set, [2]string{"content-type", ct})
		}
	}
	return r
}

// ResponseLocation is what becomes of a response's Location header (every
// line joined with ", "): clients quote a redirect's target in the error
// they raise (the TypeScript SDK's "Redirect to ... not followed", httpx's
// raise_for_status), so on an inspected stream it is read by the
// policy-level output pipeline like any text, and goes out as the
// pipeline leaves it; keep is false when a block step stops it (the
// header is dropped).
func (s *Stream) ResponseLocation(v string) (out string, keep bool) {
	if !s.inspect || s.replied {
		return v, true
	}
	return s.ex.headerText(v)
}

// BodyEdit says what becomes of the body chunk a callback saw.
type BodyEdit struct {
	// Replace is set when Data replaces the chunk (an empty Data holds it
	// back entirely); otherwise the chunk goes on as it is.
	Replace bool
	Data    []byte
}

func replaceWith(b []byte) BodyEdit { return BodyEdit{Replace: true, Data: b} }

// OnResponseBody sees the response body: with a Pause before, everything
// buffered so far, else the newest chunk; body returns those bytes.
func (s *Stream) OnResponseBody(size int, endOfStream bool, body func() []byte) (Action, BodyEdit) {
	switch s.mode {
	case bufferJSON, bufferText:
		if size > s.cfg.Env.Gateway.MaxResponseBytes {
			if s.cfg.Env.Gateway.PassOnOversize {
				s.mode = passBody
				return Continue, BodyEdit{}
			}
			text := s.mode == bufferText
			s.mode = dropBody
			if text {
				countError(s.cfg.Metrics, failResponseTooLarge)
				return Continue, replaceWith([]byte(withheldBody + ": it exceeds gateway.max_response_bytes]"))
			}
			return Continue, replaceWith(s.ex.failResponse(failResponseTooLarge, "the response exceeds gateway.max_response_bytes"))
		}
		if !endOfStream {
			return Pause, BodyEdit{}
		}
		var out []byte
		if s.mode == bufferText {
			out = s.ex.processText(body())
		} else {
			out = s.ex.processJSON(body())
		}
		if out != nil {
			return Continue, replaceWith(out)
		}
		return Continue, BodyEdit{}
	case streamSSE:
		return Continue, s.streamEvents(body(), endOfStream)
	case dropBody:
		return Continue, replaceWith(nil)
	}
	return Continue, BodyEdit{}
}

// eventTooLarge is the message of the error that answers what is open when
// a server-sent event exceeds the limit.
const eventTooLarge = "mcp: server-sent event exceeds gateway.max_event_bytes"

// streamEvents passes a chunk of an event stream through the rewriter:
// the events it completes go out, an incomplete one is held back.
func (s *Stream) streamEvents(chunk []byte, endOfStream bool) BodyEdit {
	out, err := s.sse.Write(chunk)
	var tail []byte
	if err == nil && endOfStream {
		tail, err = s.sse.Close()
	}
	if err != nil {
		// Headers are gone: answer what is still open as events, drop the rest.
		s.mode = dropBody
		// (The only error is sse.ErrEventTooLarge.)
		return replaceWith(sseEventBytes(s.ex.failResponse(failResponseTooLarge, eventTooLarge)))
	}
	// Requests still open when the stream ends after a withheld event get
	// their errors (endOfEvents); then the answers to a batch's denied
	// elements go last: after the server answered every request it got,
	// or at the end of the stream. Not only at the end: a stream that ends
	// in trailers can have nothing added.
	var open [][]byte
	if endOfStream {
		open = s.ex.endOfEvents()
	}
	flush := len(s.ex.pending) > 0 && (endOfStream || s.ex.requests.len() == 0)
	if len(tail) > 0 || flush || len(open) > 0 {
		out = append(append([]byte(nil), out...), tail...)
	}
	for _, a := range open {
		out = append(out, sseEventBytes(a)...)
	}
	if flush {
		for _, p := range s.ex.pending {
			out = append(out, sseEventBytes(p)...)
		}
		s.ex.pending = nil
	}
	if len(out) == len(chunk) && (len(out) == 0 || &out[0] == &chunk[0]) {
		return BodyEdit{} // every event unchanged and complete: as received
	}
	return replaceWith(out)
}

func sseEventBytes(data []byte) []byte {
	out := make([]byte, 0, len(data)+24)
	out = append(out, "event: message\ndata: "...)
	out = append(out, jsonLineBreaks(data)...)
	return append(out, "\n\n"...)
}

// OnResponseTrailers ends a response whose body ended in trailers (see
// StripTrailers): the last body callback had endOfStream false.
//
// A JSON body was paused, so the host still holds it: size is what the
// last body callback saw and body returns it; it is processed and replaced
// as at end of stream. An event stream went on chunk by chunk and the
// host has nothing left to add bytes to: the incomplete event the rewriter
// holds back is dropped (an event without its closing empty line is
// discarded by SSE readers anyway), and answers to a batch's denied
// elements not yet sent (they follow the server's last answer, see
// streamEvents) are lost. Those calls then stay unanswered, as calls the
// server left unanswered do; nothing unfiltered goes out.
func (s *Stream) OnResponseTrailers(size int, body func() []byte) (Action, BodyEdit) {
	switch s.mode {
	case bufferJSON, bufferText:
		return s.OnResponseBody(size, true, body)
	case streamSSE:
		s.ex.pending = nil
		s.mode = dropBody
	}
	return Continue, BodyEdit{}
}

// CacheControl is the Cache-Control header the response to this stream's
// request gets, given the server's (existing, "" if none): "public" and
// "s-maxage" (a shared cache's directives) give way to "private" on any
// inspected response, whatever its revision and method, since every
// answer that passes the filter is one caller's view; and when the
// request is a 2026-07-28 request of a cacheable method, "private" is
// added even when the server said nothing of shared caches. A server's
// no-store or private stands. The headers leave before the body is read,
// so this is decided for every such response, changed by the plugin or
// not, event streams included. ok is false when the header stays as it
// is.
func (s *Stream) CacheControl(existing string) (string, bool) {
	if !s.inspect || s.replied {
		return "", false
	}
	cacheable := s.ex.rev == mcpvocab.Rev2026 && s.ex.forwardsCacheable()
	if !cacheable && existing == "" {
		return "", false
	}
	var keep []string
	shared := false
	for _, d := range strings.Split(existing, ",") {
		d = strings.TrimSpace(d)
		name, _, _ := strings.Cut(d, "=")
		switch strings.ToLower(name) {
		case "":
			continue
		case "no-store", "private":
			return "", false
		case "public", "s-maxage":
			shared = true
			continue // a shared cache's directives
		}
		keep = append(keep, d)
	}
	if !cacheable && !shared {
		return "", false
	}
	return strings.Join(append(keep, "private"), ", "), true
}

// Done ends the stream: calls it forwarded whose response never passed it
// are recorded.
func (s *Stream) Done() { s.ex.done() }

// Failed records that a callback panicked and the stream was failed
// closed: the calls in flight on it are recorded as errors.
func (s *Stream) Failed(stage string) { s.ex.failed(stage) }
