package mcp

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/internal/streq"
	"github.com/cloudg/mcp-privacy/policy"
)

// unquoted says why a response did not parse without quoting it: the
// parser's message names a duplicate key, which the server may have
// filled with data.
func unquoted(err error) string {
	se, ok := err.(*jsondoc.SyntaxError)
	switch {
	case !ok:
		return "it does not parse"
	case strings.HasPrefix(se.Msg, "duplicate key"):
		return "a key twice in one object at offset " + strconv.Itoa(se.Offset)
	case strings.Contains(se.Msg, "differ only in case"):
		return "two keys of one object that differ only in case at offset " + strconv.Itoa(se.Offset)
	case strings.HasPrefix(se.Msg, "unexpected character"):
		return "an unexpected character at offset " + strconv.Itoa(se.Offset)
	}
	return se.Error()
}

// withheldBody starts what replaces a body of another type that cannot go
// out.
const withheldBody = "[response withheld by the privacy filter"

// processText reads a complete response body that is neither JSON nor an
// event stream by its declared type: JSON all the same has every string
// read as data; UTF-8 text is read as plain text; other bytes cannot be
// read and are withheld (unless on_parse_error: pass). All by the
// policy-level output pipeline. It returns the new body, or nil when
// nothing changed.
func (s *exchange) processText(raw []byte) []byte {
	if len(raw) == 0 {
		return nil
	}
	if doc, err := jsondoc.Parse(raw); err == nil {
		if s.transformStray(doc, jsondoc.Root); doc.Changed() {
			return doc.Bytes()
		}
		return nil
	}
	if !utf8.Valid(raw) {
		if s.cfg.Env.Gateway.PassOnParseError {
			return nil
		}
		countError(s.cfg.Metrics, failResponseInvalid)
		return []byte(withheldBody + ": it is not text]")
	}
	out, err := s.policyOutput()
	if err != nil {
		countError(s.cfg.Metrics, failTransform)
		return []byte(withheldBody + ": the transforms could not run]")
	}
	tr, _ := s.cfg.transforms()
	run := s.newRun()
	text := string(raw)
	if s.requests.has {
		// An error page about the request this stream forwarded.
		text = unrestoreText(text, s.requests.one.restored)
	}
	r := tr.engine.ApplyText(out, text, run)
	s.countRun(run)
	switch {
	case run.Blocked:
		return []byte(withheldBody + ": blocked by the privacy policy]")
	case r != string(raw):
		return []byte(r)
	}
	return nil
}

// headerText reads the text of a response header a client shows by the
// policy-level output pipeline: the text as the pipeline leaves it, and
// keep false when a block step stops it or the pipeline cannot run.
func (s *exchange) headerText(v string) (string, bool) {
	out, err := s.policyOutput()
	if err != nil {
		countError(s.cfg.Metrics, failTransform)
		return "", false
	}
	tr, _ := s.cfg.transforms()
	run := s.newRun()
	r := tr.engine.ApplyText(out, v, run)
	s.countRun(run)
	if run.Blocked {
		return "", false
	}
	return r, true
}

// JudgeField judges the value of an event's id or event line (printable
// ASCII, internal/sse): clients hand it to their application (the
// TypeScript SDK's onresumptiontoken, the Python SDK's log of an unknown
// event), so it goes out only when the detectors of the policy-level
// output pipeline find nothing in it. A pipeline cannot rewrite an id the
// server must get back (Last-Event-ID) without breaking resumption: such
// a line is dropped. Nothing is stored or counted, and the value is read
// in place (no copy per event).
func (s *exchange) JudgeField(_, value []byte) bool {
	if len(value) == 0 {
		return true
	}
	out, err := s.policyOutput()
	if err != nil {
		return false
	}
	tr, _ := s.cfg.transforms()
	return len(tr.engine.Detections(out, unsafe.String(&value[0], len(value)))) == 0
}

// rewriteEvent handles the data of one server-sent event: a JSON-RPC
// message is processed like a JSON response; the empty data of priming
// events passes; anything else cannot be inspected.
func (s *exchange) rewriteEvent(data []byte) ([]byte, bool) {
	if len(data) == 0 {
		return data, false
	}
	s.keep = listToKeep{}
	if out, ok := s.listFromMemo(data); ok {
		return jsonLineBreaks(out), false
	}
	doc, err := jsondoc.Parse(data)
	if err != nil || doc.Kind(jsondoc.Root) != jsondoc.Object && doc.Kind(jsondoc.Root) != jsondoc.Array {
		if s.endpointEvent(data) {
			return data, false
		}
		if s.cfg.Env.Gateway.PassOnParseError {
			// JSON that is no message, or text: still read.
			if out := s.processText(data); out != nil {
				return out, false
			}
			return data, false
		}
		countError(s.cfg.Metrics, failResponseInvalid)
		s.withheld = "not a JSON-RPC message"
		if err != nil {
			s.withheld = "not valid JSON: " + unquoted(err)
		}
		return nil, true // fail closed: the event does not go out
	}
	changed := false
	if doc.Kind(jsondoc.Root) == jsondoc.Array && doc.Len(jsondoc.Root) == 0 && !s.cfg.Env.Gateway.PassOnParseError {
		countError(s.cfg.Metrics, failResponseInvalid)
		s.withheld = "an empty batch"
		return nil, true // an empty batch is not JSON-RPC
	}
	if doc.Kind(jsondoc.Root) == jsondoc.Array {
		kept := 0
		for m := doc.First(jsondoc.Root); m != jsondoc.None; m = doc.Next(m) {
			switch s.processMessage(doc, m) {
			case msgWithheld:
				doc.Delete(m)
				changed = true
				continue
			case msgChanged:
				changed = true
			}
			kept++
		}
		if kept == 0 && changed {
			return nil, true // every message withheld: the event goes too
		}
	} else {
		switch s.processMessage(doc, jsondoc.Root) {
		case msgWithheld:
			return nil, true // not JSON-RPC and not attributable: the event does not go out
		case msgChanged:
			changed = true
		}
		if written := s.keepList(doc, data); written != nil && changed {
			return jsonLineBreaks(written), false
		}
	}
	if !changed {
		return jsonLineBreaks(data), false
	}
	return jsonLineBreaks(doc.Bytes()), false
}

// jsonLineBreaks returns JSON text b with NEL, U+2028 and U+2029 written
// as escapes: httpx-sse, the Python SDK's client, ends a line at each
// (Python's str.splitlines), the other clients and the plugin do not, and
// the event stream writer (internal/sse) would break the line there. In
// valid JSON they can stand only inside strings, where the escape means
// the same. b itself when it holds none (the usual case: no copy).
func jsonLineBreaks(b []byte) []byte {
	if bytes.IndexByte(b, 0xC2) < 0 && bytes.IndexByte(b, 0xE2) < 0 {
		return b
	}
	var out []byte
	k := 0 // b[k:i] is not written yet
	for i := 0; i < len(b); i++ {
		esc, n := "", 0
		switch {
		case b[i] == 0xC2 && i+1 < len(b) && b[i+1] == 0x85:
			esc, n = `\u0085`, 2
		case b[i] == 0xE2 && i+2 < len(b) && b[i+1] == 0x80 && b[i+2] == 0xA8:
			esc, n = `\u2028`, 3
		case b[i] == 0xE2 && i+2 < len(b) && b[i+1] == 0x80 && b[i+2] == 0xA9:
			esc, n = `\u2029`, 3
		default:
			continue
		}
		out = append(append(out, b[k:i]...), esc...)
		k = i + n
		i += n - 1
	}
	if out == nil {
		return b
	}
	return append(out, b[k:]...)
}

// processJSON handles a complete application/json response: each message
// matched to its request and processed, the local answers of a batch
// merged in. It returns the new body, or nil when nothing changed.
func (s *exchange) processJSON(raw []byte) []byte {
	s.keep = listToKeep{}
	if len(s.pending) == 0 {
		if out, ok := s.listFromMemo(raw); ok {
			if streq.Bytes(out, raw) {
				return nil
			}
			return out
		}
	}
	doc, err := jsondoc.Parse(raw)
	if err != nil {
		if s.cfg.Env.Gateway.PassOnParseError {
			return nil
		}
		return s.failResponse(failResponseInvalid, "the response is not valid JSON: "+unquoted(err))
	}
	// Nothing keeps the document: what goes out is a copy, or raw.
	defer doc.Release()
	changed, withheld := false, false
	var written []byte // the message's bytes, when keepList wrote them
	if doc.Kind(jsondoc.Root) == jsondoc.Array && doc.Len(jsondoc.Root) == 0 && !s.cfg.Env.Gateway.PassOnParseError {
		return s.failResponse(failResponseInvalid, "the response is an empty batch")
	}
	switch doc.Kind(jsondoc.Root) {
	case jsondoc.Object:
		switch s.processMessage(doc, jsondoc.Root) {
		case msgWithheld:
			// Not JSON-RPC, and no id to answer: every request still open
			// gets the error instead (manual 16).
			return s.failResponse(failResponseInvalid, "the response is not a valid JSON-RPC message")
		case msgChanged:
			changed = true
		}
		written = s.keepList(doc, raw)
	case jsondoc.Array:
		for m := doc.First(jsondoc.Root); m != jsondoc.None; m = doc.Next(m) {
			switch s.processMessage(doc, m) {
			case msgWithheld:
				doc.Delete(m)
				changed, withheld = true, true
			case msgChanged:
				changed = true
			}
		}
	default:
		if s.cfg.Env.Gateway.PassOnParseError {
			// A bare string is still read, as data.
			if s.transformStray(doc, jsondoc.Root); doc.Changed() {
				return doc.Bytes()
			}
			return nil
		}
		return s.failResponse(failResponseInvalid, "the response is not a JSON-RPC message")
	}
	if withheld {
		// A withheld element may have been the answer to a request still
		// open: a JSON response is complete, so each gets an error now.
		e := rpcError(mcpvocab.ErrInternal, "the privacy filter withheld a server message that is not valid JSON-RPC")
		s.pending = append(s.pending, s.errorOpen(e)...)
		if len(s.pending) == 0 && doc.Len(jsondoc.Root) == 0 {
			// Nothing left and nothing open: an error, not an empty array.
			return ErrorResponse("null", e)
		}
	}
	if len(s.pending) == 0 {
		if !changed {
			return nil
		}
		if written != nil {
			return written
		}
		return doc.Bytes()
	}
	var items [][]byte
	if doc.Kind(jsondoc.Root) == jsondoc.Array {
		for m := doc.First(jsondoc.Root); m != jsondoc.None; m = doc.Next(m) {
			items = append(items, doc.AppendValue(nil, m))
		}
	} else {
		items = append(items, doc.Bytes())
	}
	items = append(items, s.pending...)
	s.pending = nil
	return joinArray(items)
}

// msgOutcome is what processing did to one server message.
type msgOutcome uint8

const (
	msgUnchanged msgOutcome = iota
	msgChanged
	// msgWithheld: the message must not go out and nothing can stand in
	// for it (it is not JSON-RPC and has no id to answer): the caller
	// removes it.
	msgWithheld
)

// checkServerMessage says why a server message is not valid JSON-RPC 2.0
// ("" when it is): what a client might read otherwise than the filter did,
// or not at all, must not pass on unjudged (manual 16).
func checkServerMessage(doc *jsondoc.Doc, n int32) string {
	if doc.Kind(n) != jsondoc.Object {
		return "not a JSON-RPC object"
	}
	if !doc.StrEquals(doc.Get(n, "jsonrpc"), "2.0") {
		return `jsonrpc is not "2.0"`
	}
	method, result, errNode := doc.Get(n, "method"), doc.Get(n, "result"), doc.Get(n, "error")
	hasMethod, hasResult, hasError := method != jsondoc.None, result != jsondoc.None, errNode != jsondoc.None
	idNode := doc.Get(n, "id")
	idKind := doc.Kind(idNode)
	idOK := idKind == jsondoc.String || idKind == jsondoc.Number
	switch {
	case hasMethod && (hasResult || hasError) || hasResult && hasError:
		// A client may read either part: only one would go through its
		// pipeline.
		return "both a request and a response, or both a result and an error"
	case hasMethod:
		if m, ok := doc.Str(method); !ok || m == "" {
			return "method is not a string"
		}
		if p := doc.Get(n, "params"); p != jsondoc.None && doc.Kind(p) != jsondoc.Object && doc.Kind(p) != jsondoc.Array {
			return "params is neither an object nor an array"
		}
		if idNode != jsondoc.None && !idOK {
			return "the id is neither a string nor a number"
		}
	case hasResult:
		if !idOK {
			return "a result without a string or number id"
		}
		if doc.Kind(result) != jsondoc.Object {
			return "the result is not an object"
		}
	case hasError:
		if !idOK && idKind != jsondoc.Null {
			return "an error without an id"
		}
		if doc.Kind(errNode) != jsondoc.Object {
			return "the error is not an object"
		}
		if _, ok := doc.Int(doc.Get(errNode, "code")); !ok {
			return "the error has no integer code"
		}
		if doc.Kind(doc.Get(errNode, "message")) != jsondoc.String {
			return "the error has no string message"
		}
	default:
		return "neither a request, a notification nor a response"
	}
	return ""
}

// refuseMessage fails a server message that is not JSON-RPC closed: a
// response with an id becomes a -32603 error for its request; a request
// with an id becomes one the client refuses (withhold); anything else is
// withheld.
func (s *exchange) refuseMessage(doc *jsondoc.Doc, n int32, why string) msgOutcome {
	countError(s.cfg.Metrics, failResponseInvalid)
	idNode := doc.Get(n, "id")
	if k := doc.Kind(idNode); k != jsondoc.String && k != jsondoc.Number {
		s.withheld = why
		return msgWithheld
	}
	hasResult := doc.Get(n, "result") != jsondoc.None
	if doc.Kind(doc.Get(n, "method")) == jsondoc.String && !hasResult && doc.Get(n, "error") == jsondoc.None {
		s.withhold(doc, n, "error", "a server request that is not valid JSON-RPC was withheld ("+why+")", nil)
		return msgChanged
	}
	id := doc.ValueString(idNode)
	e := rpcError(mcpvocab.ErrInternal, "the privacy filter withheld a server message that is not valid JSON-RPC ("+why+")")
	answer := ErrorResponse(id, e)
	if f, ok := s.requests.take(idKey(doc, idNode, id)); ok && f.rec != nil {
		f.rec.respond(responseOutcome{decision: outcomeError, reason: e.Message}, len(answer), 0)
		s.finish(f.rec, "")
	}
	doc.SetRaw(n, answer)
	return msgChanged
}

// processMessage handles one server message: a response to a request this
// stream forwarded is matched by id; list results are filtered, payloads
// transformed; server requests and notifications get the policy-level
// pipeline.
func (s *exchange) processMessage(doc *jsondoc.Doc, n int32) msgOutcome {
	if why := checkServerMessage(doc, n); why != "" {
		if !s.cfg.Env.Gateway.PassOnParseError {
			return s.refuseMessage(doc, n, why)
		}
		if doc.Kind(n) != jsondoc.Object {
			// on_parse_error: pass: a bare value is still read, as data.
			s.transformStray(doc, n)
			return msgOutcomeOf(doc)
		}
	}
	if method, ok := doc.Str(doc.Get(n, "method")); ok {
		if s.withholdHiddenUpdate(doc, n) {
			return msgChanged
		}
		s.transformServerMessage(doc, n, method)
		return msgOutcomeOf(doc)
	}
	idNode := doc.Get(n, "id")
	if idNode == jsondoc.None {
		// Only under on_parse_error: pass: what can be read still gets the
		// policy-level pipeline.
		s.transformResponse(doc, n, "null", nil)
		return msgOutcomeOf(doc)
	}
	id := doc.ValueString(idNode)
	key := idKey(doc, idNode, id)
	result := doc.Get(n, "result")
	req, ok := s.requests.take(key)
	shared := false
	var x policy.Primitive
	var d policy.Decision
	if !ok {
		if answer, deferred := s.cfg.catalog.takeAnswer(s.session, key); deferred {
			// The answer to a request the plugin refused on the legacy
			// transport (it went upstream as a ping).
			doc.SetRaw(n, answer)
			return msgChanged
		}
		// Sent on another stream of the session (a resumed stream)?
		if req, ok = s.cfg.catalog.sharedRequest(s.session, key); ok && req.ambiguous {
			// Either request's pipeline could be the wrong one: the
			// response does not go out (manual 16, fail closed).
			countError(s.cfg.Metrics, failAmbiguousID)
			doc.SetRaw(n, ErrorResponse(id, rpcError(mcpvocab.ErrInternal, "the privacy filter cannot attribute this response: the session used its id "+id+" for two requests")))
			return msgChanged
		}
		if ok && req.principal.ID != s.id.ID {
			// Judged for another principal: the session's binding was
			// lost (shared.go) and someone else now reads its streams.
			// Nothing of that answer is theirs to read.
			countError(s.cfg.Metrics, failSessionPrincipal)
			doc.SetRaw(n, ErrorResponse(id, rpcError(mcpvocab.ErrInternal, "the privacy filter withheld a response to a request another principal made")))
			return msgChanged
		}
		if ok {
			// Everything this response goes through (list filtering, the
			// pipeline, the vault scope, its audit entry) is for the
			// principal the request was judged for, not for this reader.
			defer s.judgedAs(req.principal)()
			x, d = s.rebuildOutput(&req)
			shared = true
		}
	}
	if ok && req.standIn {
		// The server's answer for a missing primitive: it goes out as the
		// answer for the hidden one (hidden.go), recorded already.
		s.answerStandIn(doc, n, id, &req)
		return msgOutcomeOf(doc)
	}
	if ok {
		t0 := s.cfg.now()
		var o responseOutcome
		if lm, isList := listOf(req.rev, req.method); isList && doc.Kind(result) == jsondoc.Object && !shared {
			// Filtered first, then transformed like any result: the
			// descriptions, titles and schemas of what remains are text
			// (through the VM's memo of lists, listmemo.go).
			o = s.filterListMemo(doc, n, result, lm, &req, id)
		} else {
			if isList && doc.Kind(result) == jsondoc.Object {
				s.filterList(doc, result, lm, req.firstPage)
			}
			o = s.transformResponse(doc, n, id, &req)
			s.markCacheScope(doc, n, req.rev, req.method)
		}
		switch {
		case req.rec != nil:
			s.answered(req.rec, o, doc, n, t0)
		case shared && judged(req.rev, req.method) && (s.legacyGET || o.decision == outcomeBlocked || o.decision == outcomeError):
			s.answeredElsewhere(&req, &x, &d, o, doc, n, t0)
		}
		return msgOutcomeOf(doc)
	}
	if s.restoreUnattributed(doc, n) {
		return msgChanged // processed as restored (hidden.go)
	}
	// A response this stream did not forward a request for (a resumed or
	// legacy GET stream): every list array in its result is filtered and
	// its payload gets the policy-level pipeline, so nothing goes out
	// unjudged for want of attribution (manual 8).
	// Its id is the server's choice too (no request of this stream
	// explains it): read like any string, and a response whose id a block
	// step stops is withheld.
	if out, err := s.policyOutput(); err == nil {
		run := s.newRun()
		blocked := s.transformID(out, doc, n, run)
		s.countRun(run)
		if blocked {
			countError(s.cfg.Metrics, failResponseInvalid)
			doc.SetRaw(n, ErrorResponse("null", s.cfg.blockedError(run)))
			return msgChanged
		}
		id = doc.ValueString(doc.Get(n, "id"))
	}
	if doc.Kind(result) == jsondoc.Object {
		for _, lm := range listsInOrder(s.rev) {
			if doc.Kind(doc.Get(result, lm.items)) == jsondoc.Array {
				s.filterList(doc, result, lm, false)
			}
		}
	}
	if o := s.transformResponse(doc, n, id, nil); o.errKind != "" {
		countError(s.cfg.Metrics, o.errKind)
	}
	s.markCacheScope(doc, n, s.rev, "")
	return msgOutcomeOf(doc)
}

func msgOutcomeOf(doc *jsondoc.Doc) msgOutcome {
	if doc.Changed() {
		return msgChanged
	}
	return msgUnchanged
}

// answered records a call this stream forwarded, now that its response
// passed: with what the output pipeline made of it.
func (s *exchange) answered(r *callRecord, o responseOutcome, doc *jsondoc.Doc, n int32, t0 int64) {
	if d := o.decisionOr(r.entry.Decision); !auditRecorded(s.cfg.Env.Policy, d) {
		// Only counted: the entry's details would never be read.
		r.entry.Decision = d
	} else {
		r.respond(o, len(doc.AppendValue(nil, n)), s.cfg.now()-t0)
	}
	s.finish(r, o.errKind)
}

// answeredElsewhere records a call another stream of the session
// forwarded, whose answer arrived here (see record.go): what this stream
// knows of it is the primitive and the response.
func (s *exchange) answeredElsewhere(f *forwarded, x *policy.Primitive, d *policy.Decision, o responseOutcome, doc *jsondoc.Doc, n int32, t0 int64) {
	r := &callRecord{method: f.method}
	r.entry = auditEntry{Time: t0, Method: f.method, Decision: outcomeAllowed}
	if x.Name != "" {
		r.entry.Kind, r.entry.Name = x.Kind.String(), x.Name
	}
	if d.Rule != "" && auditRecorded(s.cfg.Env.Policy, o.decisionOr(outcomeAllowed)) {
		r.entry.Rule, r.entry.Reason = d.Rule, d.Reason()
	}
	s.answered(r, o, doc, n, t0)
}

// failResponse is the fail-closed answer for a response the plugin cannot
// inspect (manual 16): a JSON-RPC error per request still waiting for one,
// each call among them recorded as an error of kind.
func (s *exchange) failResponse(kind errorKind, why string) []byte {
	countError(s.cfg.Metrics, kind)
	e := rpcError(mcpvocab.ErrInternal, "the privacy filter could not inspect the response ("+why+")")
	items := s.errorOpen(e)
	items = append(items, s.pending...)
	s.pending = nil
	switch len(items) {
	case 0:
		return ErrorResponse("null", e)
	case 1:
		return items[0]
	}
	return joinArray(items)
}

// errorOpen answers every request still open on this stream with error e,
// one JSON-RPC error response each, under its id, and records each call
// among them as an error (decision error, e's message as the reason).
func (s *exchange) errorOpen(e *policy.RPCError) [][]byte {
	var items [][]byte
	s.requests.drain(func(id string, f forwarded) {
		answer := ErrorResponse(id, e)
		items = append(items, answer)
		if f.rec != nil {
			f.rec.respond(responseOutcome{decision: outcomeError, reason: e.Message}, len(answer), 0)
			s.finish(f.rec, "")
		}
	})
	return items
}

// endOfEvents is what an event stream ends with for the requests still
// open on it: when the filter withheld one of its events as not valid
// JSON-RPC, that event may have been their answer, and no other can come
// on this stream, so each gets a -32603 error saying so (as a JSON body's
// withheld message does, processJSON). A stream that ended without
// answering and without a withheld event gets nothing: the server chose
// not to answer here, or (2025-11-25) closed it to let the client resume
// on a GET stream, where the answer arrives (manual 16).
func (s *exchange) endOfEvents() [][]byte {
	if s.withheld == "" || s.requests.len() == 0 {
		return nil
	}
	return s.errorOpen(rpcError(mcpvocab.ErrInternal, "the privacy filter withheld a server event that is not valid JSON-RPC ("+
		s.withheld+"), and the stream ended without another answer to this request"))
}

// mediaType is how a response body is read: "text/event-stream",
// "application/json", or the media type as given. Clients recognise the
// two by substring (the TypeScript SDK with includes, the Python SDK with
// startswith), so every variant they would still parse is read as they
// would read it, never passed uninspected.
func mediaType(ct string) string {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	mt := strings.ToLower(strings.TrimSpace(ct))
	switch {
	case strings.Contains(mt, "event-stream"):
		return "text/event-stream"
	case strings.Contains(mt, "json"):
		return "application/json"
	}
	return mt
}

// endpointEvent recognises the legacy transport's first event, the URI the
// client is to POST to (e.g. /mcp?sessionid=X), and takes the session from
// it, so this GET stream can find the answers deferred for that session.
func (s *exchange) endpointEvent(data []byte) bool {
	d := string(data)
	if !strings.HasPrefix(d, "/") && !strings.HasPrefix(d, "http://") && !strings.HasPrefix(d, "https://") {
		return false
	}
	if strings.ContainsAny(d, " \t\n{}\"") {
		return false
	}
	if _, q, ok := strings.Cut(d, "?"); ok {
		if sid, ambiguous := legacySession(q); sid != "" && !ambiguous && s.cfg.catalog.bindSession(sid, s.id.ID, s.cfg.now()) {
			// The legacy session is this stream's: bound to its principal
			// before any POST can name it.
			s.session = sid
		}
	}
	s.legacyGET = true
	return true
}
