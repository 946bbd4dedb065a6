package mcp

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms"
	"github.com/cloudg/mcp-privacy/transforms/detect"
)

// What each client message leaves behind (manual 14): the requests counter
// with what became of it, and for calls and refusals an audit entry.
//
// A message answered by the plugin (denied, rate-limited, blocked on the
// way in, invalid, a virtual tool) is recorded when it is answered. A call
// that goes upstream is recorded when its response passes the plugin, with
// what the output pipeline did to it (allowed or blocked); if its stream
// ends first, when the stream ends (allowed, nothing received). Messages
// that are not calls (initialize, ping, lists, notifications, the client's
// answers to server requests) are counted when they go upstream and have
// no entry unless they are invalid.
//
// Answers that arrive on another stream of the session (a resumed GET
// stream; the legacy HTTP+SSE transport, where every answer does) are
// recorded there: on a legacy GET stream every answer, since its POST
// stream ended at once; on a resumed stream only blocks (the POST stream
// recorded the call as allowed when it ended without its answer).

// callRecord is one message's record while it is in flight.
type callRecord struct {
	entry auditEntry
	// method is the requests counter's method (responses for the client's
	// answers to server requests).
	method string
	// toolCall says the message is a judged tools/call of tool, counted
	// by the calls counter too.
	toolCall bool
	tool     string
}

// newRecord starts the record of a message judged from start (Unix ns).
// The rule and reason of the access decision are formatted only when the
// entry will be recorded with them.
func (s *exchange) newRecord(m *message, j *judgement, start int64, bytesIn int) *callRecord {
	var r *callRecord
	if s.usedFirstRec {
		r = new(callRecord)
	} else {
		s.usedFirstRec, r = true, &s.firstRecord
	}
	r.method = metricMethodOf(m)
	e := &r.entry
	e.Time = s.arrived
	if e.Time == 0 {
		e.Time = start
	}
	e.Method = m.Method
	if j.judged {
		e.Kind, e.Name = j.target.Kind.String(), j.target.Name
		if j.target.Kind == policy.KindTool && r.method == "tools/call" {
			r.toolCall, r.tool = true, j.target.Name
		}
	}
	e.Decision = j.outcome
	e.Rule, e.Reason = j.rule, j.reason
	if j.judged && e.Rule == "" && e.Reason == "" && auditRecorded(s.cfg.Env.Policy, e.Decision) {
		e.Rule, e.Reason = j.decision.Rule, j.decision.Reason()
	}
	if j.note != "" {
		e.Reason = appendNote(e.Reason, j.note)
	}
	e.Transforms = j.inIDs
	if j.in != nil {
		e.Detections = j.in.Detections
		e.Pseudonyms, e.Resolved = j.in.Pseudonyms, j.in.Resolved
		e.Unresolved, e.Refused = j.in.Unresolved, j.in.Refused
		countRestores(s.cfg.Metrics, j.in.Unresolved, j.in.Refused)
	}
	e.BytesIn = bytesIn
	e.Processing = s.cfg.now() - start
	return r
}

// requestsMetric is requestsMetricName from a table of every name: building
// the name is an allocation per message otherwise.
func requestsMetric(method string, o outcome) string {
	if n, ok := requestsMetricNames[[2]string{metricMethod(method), string(o)}]; ok {
		return n
	}
	return requestsMetricName(method, o) // not reached: the table has every pair
}

// requestsMetricNames are the requests counters' names by method tag
// value (every value metricMethod returns) and outcome.
var requestsMetricNames = func() map[[2]string]string {
	out := make(map[[2]string]string, (len(metricMethods)+1)*len(outcomes))
	for _, method := range append(slices.Collect(maps.Keys(metricMethods)), "other") {
		for _, o := range outcomes {
			out[[2]string{metricMethod(method), string(o)}] = requestsMetricName(method, o)
		}
	}
	return out
}()

// metricMethodOf is the method a message counts under.
func metricMethodOf(m *message) string {
	if m.Kind == kindResult || m.Kind == kindError {
		return "responses"
	}
	return m.Method
}

// finish counts a message with its outcome (and an error of kind, if
// set) and records its audit entry when the policy records its decision.
func (s *exchange) finish(r *callRecord, kind errorKind) {
	m := s.cfg.Metrics
	e := &r.entry
	m.Add(requestsMetric(r.method, e.Decision), 1)
	if r.toolCall {
		s.cfg.callMetrics.count(m, r.tool, s.id.Roles, e.Decision)
	}
	if kind != "" {
		countError(m, kind)
	}
	s.record(e)
}

// refuseBody counts and records a request the plugin refused as a whole,
// before any JSON-RPC message was read from it (parse error, too large,
// compressed, no principal).
func (s *exchange) refuseBody(kind errorKind, reason string, bytesIn, bytesOut int, start int64) {
	countError(s.cfg.Metrics, kind)
	e := &auditEntry{Time: s.arrived, Decision: outcomeError, Reason: reason,
		BytesIn: bytesIn, BytesOut: bytesOut, Processing: s.cfg.now() - start}
	if e.Time == 0 {
		e.Time = start
	}
	s.record(e)
}

// record completes an entry with the caller's identity and the policy
// and records it (a line in the log, and the ring buffer).
func (s *exchange) record(e *auditEntry) {
	p := s.cfg.Env.Policy
	if !auditRecorded(p, e.Decision) {
		return
	}
	e.Policy, e.Principal, e.Roles = p.Name, s.id.ID, s.id.Roles
	// What the client chose freely passes the policy's detectors: a tool
	// name, a resource URI, a session id or an unknown method could carry
	// a value. Entries never hold argument or result values.
	e.Name = s.cfg.scrub(e.Name)
	e.Session = s.cfg.scrub(s.session)
	if e.Method != "" && metricMethod(e.Method) == "other" {
		e.Method = s.cfg.scrub(e.Method)
	}
	e.Reason = s.cfg.scrub(s.cfg.scrubQuoted(e.Reason))
	if !s.cfg.Audit.record(p, e) && p.AuditSize > 0 {
		s.cfg.Metrics.Add(auditDroppedMetric, 1)
		countError(s.cfg.Metrics, failSharedData)
	}
}

// done ends the stream: calls it forwarded whose response never passed it
// are recorded now, as allowed with nothing received; on the legacy
// transport their answers arrive on the GET stream, which records them.
func (s *exchange) done() {
	s.requests.drain(func(_ string, f forwarded) {
		if f.rec != nil && !s.legacy {
			s.finish(f.rec, "")
		}
	})
}

// failed records that a callback panicked and the stream was failed
// closed: the calls in flight on it are recorded as errors.
func (s *exchange) failed(stage string) {
	countError(s.cfg.Metrics, failInternal)
	reason := "internal error in " + stage + ": the stream was failed closed"
	n := 0
	s.requests.drain(func(_ string, f forwarded) {
		if f.rec != nil {
			f.rec.entry.Decision, f.rec.entry.Rule, f.rec.entry.Reason = outcomeError, "", reason
			s.finish(f.rec, "")
			n++
		}
	})
	if n == 0 {
		now := s.cfg.now()
		s.record(&auditEntry{Time: now, Decision: outcomeError, Reason: reason})
	}
}

// respondRecord completes the record of a forwarded call with what its
// response became: the output pipeline's transforms, detections and
// pseudonyms, the bytes the client receives, the processing time.
func (r *callRecord) respond(outcome responseOutcome, bytesOut int, processing int64) {
	e := &r.entry
	if d := outcome.decisionOr(e.Decision); d != e.Decision {
		e.Decision, e.Rule, e.Reason = d, outcome.rule, outcome.reason
	}
	if outcome.ids != nil {
		e.Transforms = append(e.Transforms[:len(e.Transforms):len(e.Transforms)], outcome.ids...)
	}
	if run := outcome.run; run != nil {
		if len(run.Detections) > 0 {
			merged := make(map[string]int, len(e.Detections)+len(run.Detections))
			for l, n := range e.Detections {
				merged[l] += n
			}
			for l, n := range run.Detections {
				merged[l] += n
			}
			e.Detections = merged
		}
		e.Pseudonyms += run.Pseudonyms
		e.Resolved += run.Resolved
	}
	e.BytesOut = bytesOut
	e.Processing += processing
}

// responseOutcome is what the output pipeline made of a response.
type responseOutcome struct {
	// decision: allowed (also for a server's own error), blocked, or
	// error when the pipeline could not run; "" when nothing ran.
	decision     outcome
	errKind      errorKind
	rule, reason string
	run          *transforms.Run
	ids          []string
}

// decisionOr is the decision of a call whose earlier decision was d.
func (o responseOutcome) decisionOr(d outcome) outcome {
	if o.decision != "" && o.decision != outcomeAllowed {
		return o.decision
	}
	return d
}

// scrubQuoted scrubs the quoted strings of a reason one by one, unquoted:
// a reason quotes names with Go or JSON escapes ("user\tAKIA…"), which
// hide a value from detectors reading the escaped text. A quoted string
// that does not unquote is dropped.
func (c *Config) scrubQuoted(reason string) string {
	if strings.IndexByte(reason, '"') < 0 {
		return reason
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(reason, '"')
		if i < 0 {
			break
		}
		b.WriteString(reason[:i])
		q, err := strconv.QuotedPrefix(reason[i:])
		if err != nil {
			b.WriteString(`"…"`)
			if j := strings.IndexByte(reason[i+1:], '"'); j >= 0 {
				reason = reason[i+1+j+1:]
				continue
			}
			reason = ""
			break
		}
		text, err := strconv.Unquote(q)
		if err != nil {
			b.WriteString(`"…"`)
		} else {
			b.WriteString(strconv.Quote(c.scrub(text)))
		}
		reason = reason[i+len(q):]
	}
	b.WriteString(reason)
	return b.String()
}

// scrubAll selects every detector of the policy.
var scrubAll = detect.Select(nil, policy.SensitivityUnset)

// scrub replaces what the policy's detectors find in a text the audit
// keeps (a name, a reason, a session id) by its label, e.g. "[EMAIL]": a
// resource URI or an unknown tool's name may hold a value, and no entry
// may.
//
// Names and reasons repeat from call to call, and the detectors cost
// several µs per text in wasm: results for short texts are kept per VM
// (vmCaches.scrubbed), forgotten all at once when scrubCacheSize is reached.
func (c *Config) scrub(text string) string {
	if text == "" {
		return text
	}
	if out, ok := c.caches.scrubbed[text]; ok {
		return out
	}
	out := c.detectAndLabel(text)
	if len(text) <= scrubCacheText {
		if c.caches.scrubbed == nil || len(c.caches.scrubbed) >= scrubCacheSize {
			c.caches.scrubbed = make(map[string]string, 64)
		}
		c.caches.scrubbed[text] = out
	}
	return out
}

// Bounds of vmCaches.scrubbed: entries, and the longest text kept.
const (
	scrubCacheSize = 512
	scrubCacheText = 256
)

// detectAndLabel replaces each detection in text by its label.
func (c *Config) detectAndLabel(text string) string {
	tr, err := c.transforms()
	if err != nil {
		return "[withheld: the policy's detectors are unavailable]"
	}
	ds := tr.engine.Detectors().Detect(text, scrubAll)
	if len(ds) == 0 {
		return text
	}
	var b strings.Builder
	at := 0
	for _, d := range ds {
		if d.Start < at {
			continue
		}
		b.WriteString(text[at:d.Start])
		b.WriteString("[" + d.Label + "]")
		at = d.End
	}
	b.WriteString(text[at:])
	return b.String()
}
