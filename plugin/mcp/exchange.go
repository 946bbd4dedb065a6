package mcp

import (
	judging "github.com/cloudg/mcp-privacy/internal/catalog"
	"strconv"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/internal/ratelimit"
	"github.com/cloudg/mcp-privacy/internal/uritemplate"
	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms"
)

// exchange is the message side of one HTTP stream: JSON-RPC in, decision
// and transforms, JSON-RPC out. It parses and judges a request body
// (judgeBody), remembers what it forwarded, and processes what comes back
// (processJSON, rewriteEvent, processText), with the audit of each call.
// Its Stream owns it and calls it; it never calls back.
type exchange struct {
	cfg *Config
	id  identity
	// pending holds local answers to denied elements of a batch whose
	// other elements went upstream; they are merged into the response.
	pending [][]byte
	// requests are the requests this stream forwarded, by raw id, for
	// matching the responses.
	requests forwardedSet
	// keep is the list response being processed, when it is to be kept
	// in the VM's memo of lists (listmemo.go).
	keep listToKeep
	// firstRun, firstRecord and firstPrim are the stream's first
	// transform run (newRun), call record (newRecord) and judged
	// primitive (resolveAndDecide), each used once, so never shared:
	// most streams carry one call, and an allocation costs about a
	// microsecond inside the VM.
	firstRun                                  transforms.Run
	firstRecord                               callRecord
	firstPrim                                 policy.Primitive
	usedFirstRun, usedFirstRec, usedFirstPrim bool
	// session is the MCP session (Mcp-Session-Id, or the legacy
	// transport's sessionid); legacy marks a POST of the 2024-11-05
	// HTTP+SSE transport, whose answers arrive on the GET stream.
	session string
	legacy  bool
	// legacyGET marks the GET stream of the legacy transport (it sent the
	// endpoint event): every answer arrives on it.
	legacyGET bool
	// arrived is when the request headers arrived (Unix ns): the time of
	// its audit entries.
	arrived int64
	// serverTail is the end of the last server message passed on this
	// stream, for values split across two messages.
	serverTail transforms.MessageTail
	// retryAfter is the Retry-After header for the response of a batch
	// part of which a rate limit refused.
	retryAfter [2]string
	// restoring: a message whose stand-ins got their names back from
	// their own records is being processed (restoreUnattributed).
	restoring bool
	// rev is the protocol revision of the stream's request (its
	// MCP-Protocol-Version header, which _meta must agree with): which
	// method table its messages are read by. Rev2025 without the header.
	rev mcpvocab.Revision
	// mirror are the request headers that mirror its body (2026-07-28),
	// checked against it before anything is forwarded (headers.go).
	mirror mirroredHeaders
	// taskName is the server's taskId a task request's sealed handle was
	// opened to (tasks.go): Mcp-Name must say it too.
	taskName string
	// listened are the tasks a subscriptions/listen request named by
	// handle, by the server's taskId (tasks.go).
	listened map[string]taskRef
	// listenStandIns are the hidden resources a subscriptions/listen
	// request named, by the stand-in each went upstream as (judgeListen).
	listenStandIns map[string]string
	// withheld says why the filter withheld a server event of this
	// stream that was not valid JSON-RPC ("" if none did): it may have
	// been the answer to a request still open, which then gets an error
	// at the end of the stream (endOfEvents).
	withheld string
}

// judgeRemoved judges a request of a method the request's revision
// removed but an earlier one judges (resources/subscribe under
// 2026-07-28). A server of that revision answers it as a method it does
// not have, and the request goes to it as sent; but a server that ignores
// the revision would act on it, so the primitive it names is decided as
// the earlier revision would: one the caller may not use (denied or
// hidden alike) gets, from the filter, the answer a server of the
// revision gives (method not found), without a header of the filter's.
func (s *exchange) judgeRemoved(doc *jsondoc.Doc, m *message, j *judgement) {
	t, perr := targetOf(mcpvocab.Rev2025, doc, m)
	if perr != nil {
		return // no primitive named: the server answers it
	}
	x, d := s.resolveAndDecide(t)
	if d.Allowed {
		return
	}
	j.judged, j.target, j.call, j.decision = true, x, t, d
	j.deny(d)
	j.reply = mcpvocab.For(s.rev).NewError(mcpvocab.ErrMethodNotFound, "", nil)
	j.asMissing = true
	j.reason = "a method " + m.Method + " the request's protocol revision removed, naming a " + x.Kind.String() +
		" the caller may not use: answered as a server of that revision answers it (" + j.reason + ")"
}

// forwarded is what the stream remembers of a request it sent upstream.
type forwarded struct {
	method string
	// rev is the request's revision: its answer is read by that table.
	rev mcpvocab.Revision
	// out is the output pipeline of a judged request; kind and name the
	// primitive it named, from which another stream rebuilds out.
	out  *transforms.Pipeline
	kind policy.Kind
	name string
	// firstPage: a list request without a cursor (virtual tools are
	// appended to the first page only).
	firstPage bool
	// rec is the record of a judged call, completed and recorded when its
	// response passes (nil for other requests, and for requests another
	// stream forwarded).
	rec *callRecord
	// ambiguous: a request another stream forwarded under an id the
	// session used twice, so which request it was is unknown.
	ambiguous bool
	// standIn: a request for a hidden primitive, sent upstream naming its
	// stand-in (hidden.go); name is the one the client asked for.
	standIn bool
	// principal is whom a request another stream forwarded was judged
	// for (from its shared record): its response gets that principal's
	// pipeline, wherever it arrives.
	principal policy.Principal
	// restored are the values the plugin restored in the request: an
	// error answering it quotes them as the client sent them.
	restored []restoredPair
	// task is the task a request named by a sealed handle (tasks.go).
	task *taskRef
}

// forwardedSet holds the requests a stream forwarded, by raw id. Nearly
// every stream forwards one request, so the set holds one without a map
// (in the VM a map costs a few microseconds per stream) and makes a map
// only for a batch.
type forwardedSet struct {
	id   string
	one  forwarded
	has  bool
	many map[string]forwarded
}

func (r *forwardedSet) put(id string, f forwarded) {
	switch {
	case r.many != nil:
		r.many[id] = f
	case !r.has || r.id == id:
		r.id, r.one, r.has = id, f, true
	default:
		r.many = map[string]forwarded{r.id: r.one, id: f}
		r.id, r.one, r.has = "", forwarded{}, false
	}
}

// peek returns the request with this id, leaving it in the set.
func (r *forwardedSet) peek(id string) (forwarded, bool) {
	if r.many != nil {
		f, ok := r.many[id]
		return f, ok
	}
	return r.one, r.has && r.id == id
}

// take removes and returns the request with this id.
func (r *forwardedSet) take(id string) (forwarded, bool) {
	if r.many != nil {
		f, ok := r.many[id]
		delete(r.many, id)
		return f, ok
	}
	if !r.has || r.id != id {
		return forwarded{}, false
	}
	f := r.one
	r.id, r.one, r.has = "", forwarded{}, false
	return f, true
}

func (r *forwardedSet) len() int {
	if r.many != nil {
		return len(r.many)
	}
	if r.has {
		return 1
	}
	return 0
}

// drain empties the set, calling fn for each request in it.
func (r *forwardedSet) drain(fn func(id string, f forwarded)) {
	if r.has {
		fn(r.id, r.one)
	}
	for id, f := range r.many {
		fn(id, f)
	}
	*r = forwardedSet{}
}

// judgeBody parses and judges a complete request body. A result with a
// Reply answers the whole request: nothing of it goes upstream.
func (s *exchange) judgeBody(raw []byte) BodyResult {
	body, perr := parseBody(&s.cfg.caches.parsed, raw)
	if perr != nil {
		reply := ErrorResponse("null", perr)
		kind := failParse
		if perr.Code == errCode(mcpvocab.ErrInvalidRequest) {
			kind = failInvalidRequest
		}
		s.refuseBody(kind, perr.Message, len(raw), len(reply), s.arrived)
		return BodyResult{Reply: jsonReply(200, reply, "mcp_privacy_bad_request")}
	}
	// Nothing keeps the document: what goes upstream is a copy, or raw.
	defer body.Doc.Release()
	if body.Batch && s.rev == mcpvocab.Rev2026 {
		r := s.refusal(400, "mcp_privacy_batch",
			"Invalid Request: a batch is not a "+mcpvocab.Version2026+" request; send each message as its own POST")
		return BodyResult{Reply: r}
	}
	// The headers that mirror the body are checked before any message is
	// judged (a refusal is the whole POST's). On the legacy HTTP+SSE
	// transport too, when sent: a query naming a session does not stop a
	// Streamable HTTP server (or a filter after this one) from reading
	// them (checkMirror excuses only the version header it lacks).
	var one [1]mirrorPlan
	plans := one[:]
	if len(body.Messages) > 1 {
		plans = make([]mirrorPlan, len(body.Messages))
	}
	for i := range body.Messages {
		if m := &body.Messages[i]; m.Invalid == nil {
			var why string
			if why, plans[i] = s.checkMirror(body.Doc, m); why != "" {
				return BodyResult{Reply: s.headerMismatchReply(body.Doc, m, why, len(raw))}
			}
		}
	}
	var answers [][]byte   // local answers, in message order
	var exported judgement // the first judged message's
	var retryAfter [2]string
	var mirrored headerChanges
	replyCode := 0 // the code of the (first) local error answer
	nForwarded := 0
	asMissing := false // a hidden primitive answered locally as missing
	for i := range body.Messages {
		m := &body.Messages[i]
		bytesIn := len(raw)
		if body.Batch {
			bytesIn = len(body.Doc.Raw(m.Node)) // as received: nothing is edited yet
		}
		t0 := s.cfg.now()
		plan := plans[i]
		j := s.judge(body.Doc, m)
		if plan.nameMember != "" || len(plan.params) > 0 {
			mirrored = s.mirrorAfter(body.Doc, m, &j, &plan)
		}
		asMissing = asMissing || j.asMissing
		if !exported.judged && j.judged {
			exported = j
		}
		if j.retryAfter[0] != "" && laterRetry(j.retryAfter, retryAfter) {
			retryAfter = j.retryAfter
		}
		request := m.Kind == kindRequest && m.Invalid == nil
		if j.standIn {
			// A hidden primitive's request: a denial, recorded now; what
			// goes upstream asks for its stand-in.
			s.finish(s.newRecord(m, &j, t0, bytesIn), "")
		}
		if j.reply != nil && j.answer == nil && replyCode == 0 {
			replyCode = j.reply.Code
		}
		if j.reply != nil || j.answer != nil {
			answer := j.answer
			if answer == nil {
				answer = ErrorResponse(m.ID, j.reply)
			}
			rec := s.newRecord(m, &j, t0, bytesIn)
			rec.entry.BytesOut = len(answer)
			s.finish(rec, j.errKind)
			if !s.legacy || !request {
				answers = append(answers, answer)
				if body.Batch {
					body.Doc.Delete(m.Node)
				}
				continue
			}
			// The legacy transport answers on the GET stream: the server
			// gets a ping with this id, whose answer becomes ours there.
			s.cfg.catalog.deferAnswer(s.session, m.Key, answer)
			body.Doc.SetRaw(m.Node, []byte(`{"jsonrpc":"2.0","id":`+m.ID+`,"method":"ping"}`))
		} else if !request || !j.judged {
			// Not a call (initialize, lists, notifications, answers to
			// server requests): counted, never audited.
			s.cfg.Metrics.Add(requestsMetric(metricMethodOf(m), outcomeAllowed), 1)
		}
		nForwarded++
		if request {
			f := forwarded{method: m.Method, rev: s.rev, firstPage: body.Doc.Path(m.Node, "params", "cursor") == jsondoc.None,
				out: j.out, kind: j.call.Kind, name: j.call.Name, standIn: j.standIn, restored: j.restored, task: j.task}
			if j.judged && j.reply == nil && j.answer == nil && !j.standIn {
				// A call: recorded when its response passes (response.go).
				f.rec = s.newRecord(m, &j, t0, bytesIn)
			}
			s.requests.put(m.Key, f)
			if meth := methodOf(s.rev, m.Method); meth.Output == mcpvocab.OutputPrimitive || meth.List.Items != "" {
				// Its answer may come back on a resumed stream.
				s.cfg.catalog.shareRequest(s.session, m.Key, f, &s.id.Principal)
			}
		}
	}
	var res BodyResult
	if exported.judged {
		res.Set = s.exportHeaders(&exported)
	}
	res.Set, res.Remove = append(res.Set, mirrored.set...), mirrored.remove
	if s.taskName != "" && !body.Batch {
		res.Set = append(res.Set, [2]string{"mcp-name", encodeHeaderValue(s.taskName)}) // as the body now says (tasks.go), in header form
	}
	switch {
	case len(answers) == 0:
		if body.Doc.Changed() {
			res.Body = body.Doc.Bytes()
		}
		return res
	case !body.Batch || nForwarded == 0:
		reply := answers[0]
		if body.Batch {
			reply = joinArray(answers)
		}
		details := "mcp_privacy_denied"
		if !body.Batch && !bytesContains(reply, `"error":`) {
			details = "mcp_privacy_virtual_tool"
		}
		status := 200
		if !body.Batch && replyCode != 0 {
			status = statusFor(s.rev, replyCode)
		}
		res.Reply = jsonReply(status, reply, details)
		res.Reply.AsServer = asMissing && !body.Batch
		if retryAfter[0] != "" {
			res.Reply.Headers = append(res.Reply.Headers, retryAfter)
			if !body.Batch {
				res.Reply.Details = "mcp_privacy_rate_limited"
			}
		}
		return res
	default:
		s.pending = answers
		s.retryAfter = retryAfter
		res.Body = body.Doc.Bytes()
		return res
	}
}

// refusal answers a request refused as a whole with status and a JSON-RPC
// -32600 error, and records it.
func (s *exchange) refusal(status int, details, message string) *LocalReply {
	r := jsonReply(status, ErrorResponse("null", &policy.RPCError{Code: errCode(mcpvocab.ErrInvalidRequest), Message: message}), details)
	s.refuseBody(failInvalidRequest, message, 0, len(r.Body), s.arrived)
	return r
}

// laterRetry reports whether the Retry-After value a is later than b (or
// b is unset).
func laterRetry(a, b [2]string) bool {
	if b[0] == "" {
		return true
	}
	x, _ := strconv.Atoi(a[1])
	y, _ := strconv.Atoi(b[1])
	return x > y
}

// judgement is the verdict on one message.
type judgement struct {
	judged   bool
	reply    *policy.RPCError // non-nil: answer locally with this error
	answer   []byte           // non-nil: answer locally with this response (virtual tools)
	method   string
	target   policy.Primitive
	decision policy.Decision
	// call is what the request named; out the output pipeline for the
	// response of an allowed request.
	call target
	out  *transforms.Pipeline
	// outcome is what became of the message so far (its audit decision);
	// errKind the kind of an error outcome; rule and reason, when set,
	// replace the decision's in the audit entry.
	outcome      outcome
	errKind      errorKind
	rule, reason string
	// retryAfter is the Retry-After header of a call a rate limit refused.
	retryAfter [2]string
	// standIn: the request names a hidden primitive and goes upstream
	// naming its stand-in (hidden.go), standInName.
	standIn     bool
	standInName string
	// asMissing: a hidden primitive answered by the filter as missing
	// (its stand-in could not go: answerMissingLocally).
	asMissing bool
	// in is what the input pipeline did (nil: it did not run); inIDs its
	// transform ids.
	in    *transforms.Run
	inIDs []string
	// note is added to the audit entry's reason: what the plugin left
	// undone and why (a mirrored value it could not rewrite, headers.go).
	note string
	// restored are the values the input pipeline restored, with what the
	// client sent (restored.go).
	restored []restoredPair
	// task is the task a request named by a sealed handle (tasks.go).
	task *taskRef
}

// fail answers the message with an error the plugin found.
func (j *judgement) fail(e *policy.RPCError, kind errorKind) {
	j.reply, j.outcome, j.errKind, j.reason = e, outcomeError, kind, e.Message
}

// deny answers the message with the denial of d.
func (j *judgement) deny(d policy.Decision) {
	j.decision = d
	j.reply, j.outcome = d.Error(), outcomeDenied
}

// rateLimit takes a token for an allowed call from every bucket covering
// it (manual 9); a refused call gets -32029 and a Retry-After header.
func (s *exchange) rateLimit(j *judgement, c policy.Call) bool {
	return s.rateLimitFor(j, c, j.decision.Matched)
}

// rateLimitFor is rateLimit with the limits of the rules matched.
func (s *exchange) rateLimitFor(j *judgement, c policy.Call, matched []*policy.Rule) bool {
	p := s.cfg.Env.Policy
	// Also checked in Check: here it spares the clock read.
	if !ratelimit.Apply(p, matched) {
		return true
	}
	v := s.cfg.limiter.Check(p, c, matched, s.cfg.now())
	countRateLimited(s.cfg.Metrics, &v)
	if v.Allowed {
		return true
	}
	j.reply, j.retryAfter, j.outcome = rateLimitRefusal(&v, p.Name), v.Header(), outcomeRateLimited
	if v.Bucket.Limit != nil {
		j.rule = v.Path()
	}
	j.reason = "rate limit exceeded: " + v.Limit() + " (retry after " + v.Header()[1] + " s)"
	if v.Contended {
		j.reason = "rate limit not checked: shared data kept changing (" + v.Limit() + ")"
	}
	return false
}

func (s *exchange) judge(doc *jsondoc.Doc, m *message) judgement {
	j := judgement{method: m.Method, outcome: outcomeAllowed}
	if m.Invalid != nil {
		j.fail(m.Invalid, failInvalidRequest)
		return j
	}
	if m.Kind == kindResult || m.Kind == kindError {
		// The client's answer to a server request.
		s.transformClientResult(doc, m)
		return j
	}
	if m.Kind == kindRequest && !judged(s.rev, m.Method) && judged(mcpvocab.Rev2025, m.Method) {
		s.judgeRemoved(doc, m, &j)
		return j
	}
	if m.Kind != kindRequest || !judged(s.rev, m.Method) {
		s.judgeOther(doc, m, &j) // tasks, MRTR retries (mrtr.go)
		return j
	}
	t, perr := targetOf(s.rev, doc, m)
	if perr != nil {
		j.fail(perr, failInvalidParams)
		return j
	}
	if t.Method == "tools/call" && isVirtual(t.Name) {
		if d, on := s.virtualAllowed(t.Name); on {
			j.judged, j.target, j.decision, j.call = true, virtualPrimitive(t.Name), d, t
			if !d.Allowed {
				j.deny(d)
				if d.Hidden {
					j.reply = nil
					s.hideAsMissing(doc, m, t, &j)
				}
				return j
			}
			// Virtual tools are limited like any tool.
			if !s.rateLimit(&j, policy.Call{Kind: policy.KindTool, Name: t.Name, Principal: s.id.ID}) {
				return j
			}
			result, rpcErr := s.virtualResult(doc, t, &j)
			if rpcErr != nil {
				kind := failInvalidParams
				switch rpcErr.Code {
				case errCode(mcpvocab.ErrInternal):
					kind = failTransform
				case errCode(mcpvocab.ErrAccessDenied):
					kind = ""
				}
				if kind == "" {
					// preview_transform of a tool the caller may not use.
					j.reply, j.outcome = rpcErr, outcomeDenied
				} else {
					j.fail(rpcErr, kind)
				}
				return j
			}
			j.answer = resultResponse(m.ID, result)
			return j
		}
	}
	x, d := s.resolveAndDecide(t)
	j.judged, j.target, j.call, j.decision = true, x, t, d
	if !d.Allowed {
		j.deny(d)
		if d.Hidden {
			// Looks missing: the server answers (hidden.go).
			j.reply = nil
			s.hideAsMissing(doc, m, t, &j)
		}
		return j
	}
	// Access first, then rate limits: a visibly denied call takes no token
	// (a hidden one takes them as a missing one would, hideAsMissing).
	if !s.rateLimit(&j, s.rateCall(t, &x)) {
		return j
	}
	s.transformRequest(doc, m, t, &j)
	return j
}

// maxInlineExports is how many export_headers values an exchange holds
// without an allocation (the schema's fields are seven).
const maxInlineExports = 8

// exportHeaders builds the export_headers values: identity always, the
// call's fields once a request was judged. They are the VM's own until
// the next call of any stream (vmCaches.exported).
func (s *exchange) exportHeaders(j *judgement) [][2]string {
	if len(s.cfg.exports) == 0 {
		return nil
	}
	// The caller hands the values to the host before it calls again,
	// on any stream.
	exported := &s.cfg.caches.exported
	out := exported[:0]
	if len(s.cfg.exports) > len(exported) {
		out = make([][2]string, 0, len(s.cfg.exports))
	}
	for _, h := range s.cfg.exports {
		var v string
		switch h.field {
		case exportPrincipal:
			v = s.id.ID
		case exportRoles:
			v = strings.Join(s.id.Roles, ",")
		}
		if j != nil {
			switch h.field {
			case exportMethod:
				v = j.method
			case exportKind:
				v = j.target.Kind.String()
			case exportPrimitive:
				v = j.target.Name
			case exportDecision:
				v = "allow"
				if !j.decision.Allowed {
					v = "deny"
				}
			case exportRule:
				v = j.decision.Rule
			}
		}
		if v != "" {
			// Within out's capacity (made for every export); the two
			// strings written, not a [2]string copied (a bulk copy under
			// the collector's write barrier while it marks).
			i := len(out)
			out = out[:i+1]
			out[i][0], out[i][1] = h.header, headerSafe(v)
		}
	}
	return out
}

// headerSafe drops characters a header value cannot carry.
func headerSafe(v string) string {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == 0x7f {
			return strings.Map(func(r rune) rune {
				if r < 0x20 || r == 0x7f {
					return -1
				}
				return r
			}, v)
		}
	}
	return v
}

func joinArray(items [][]byte) []byte {
	n := 2
	for _, it := range items {
		n += len(it) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
	}
	return append(out, ']')
}

func bytesContains(b []byte, s string) bool { return strings.Contains(string(b), s) }

// resolveAndDecide resolves what a request names against the catalog and
// judges it for the caller.
func (s *exchange) resolveAndDecide(t target) (policy.Primitive, policy.Decision) {
	// The decision holds the primitive it judged (the first of the
	// stream is the exchange's own, used once, as firstRun).
	var x *policy.Primitive
	if s.usedFirstPrim {
		x = new(policy.Primitive)
	} else {
		s.usedFirstPrim, x = true, &s.firstPrim
	}
	var known bool
	*x, known = s.cfg.catalog.resolve(t)
	d := s.decideConcrete(x, known)
	return *x, d
}

// decideConcrete judges x for the caller through the catalog
// (judging.Judge.DecideConcrete: every reading of a tool's or prompt's
// name, every known template a concrete URI may also be read as; *x
// becomes what a denial denied). The templates are as Resolve or
// filterList last refreshed them.
func (s *exchange) decideConcrete(x *policy.Primitive, known bool) policy.Decision {
	j := s.caller()
	return j.DecideConcrete(x, known)
}

// caller is the caller's judging.Judge, over the VM's catalog.
func (s *exchange) caller() judging.Judge {
	return judging.Judge{Policy: s.cfg.Env.Policy, Server: &s.cfg.Env.Server, Principal: s.id.Principal, Catalog: vmCatalog{s.cfg}}
}

// vmCatalog is the VM's catalog as judging.Catalog. It holds the config,
// not the exchange: an exchange in an interface would move every stream
// to the heap.
type vmCatalog struct{ cfg *Config }

// Resolve is judging.Catalog's: the plugin's catalog's resolution.
func (c vmCatalog) Resolve(kind policy.Kind, name string) (policy.Primitive, bool) {
	return c.cfg.catalog.resolve(target{Kind: kind, Name: name, Args: jsondoc.None})
}

// EachLooseMatch is judging.Catalog's: the templates the catalog knows.
func (c vmCatalog) EachLooseMatch(uri string, fn func(t *uritemplate.Template) bool) {
	c.cfg.catalog.model.Templates.EachLooseMatch(uri, fn)
}

// ReadingsOf are the readings of a tool or prompt name (policy.ReadingsOf),
// kept per VM: they cost tens of µs in wasm, and a call's name is read
// again for its rate limits (rateCall). None for a name of ASCII
// characters, without a map lookup. (judging.Catalog's.)
func (v vmCatalog) ReadingsOf(name string) policy.Readings {
	if judging.ASCIIName(name) {
		return policy.Readings{}
	}
	c := v.cfg.caches
	rs, ok := c.readings[name]
	if !ok {
		rs = policy.ReadingsOf(name)
		if len(name) <= readingsCacheName {
			if c.readings == nil || len(c.readings) >= readingsCacheSize {
				c.readings = make(map[string]policy.Readings, 16)
			}
			c.readings[strings.Clone(name)] = rs // the name may be a view of a body
		}
	}
	return rs
}

// Bounds of vmCaches.readings: entries, and the longest name kept (a
// longer one has no readings judged, policy.ReadingsOf).
const (
	readingsCacheSize = 256
	readingsCacheName = 512
)
