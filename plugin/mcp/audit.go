package mcp

import (
	"sort"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/internal/auditring"
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/shareddata"
	"github.com/cloudg/mcp-privacy/policy"
)

// Audit (manual 14). An entry says who did what and what the plugin made of
// it: never an argument or result value, only names, labels and counts.
// Denials, rate limits, blocks and errors are always recorded; allowed
// calls when the policy's audit is on. Recorded entries are logged as one
// line "cloudg.mcp.audit {json}" and kept in a ring buffer of audit_size
// entries in shared data (internal/auditring), which privacy_status shows
// to principals granted it.

// auditEntry is one audit record.
type auditEntry struct {
	// Time is when the request arrived (Unix ns).
	Time      int64
	Policy    string
	Principal string
	Roles     []string
	Session   string
	Method    string
	// Kind and Name are the primitive the request named (kind "" when
	// none): the resolved name, so a resource read through a template is
	// named by the template text.
	Kind, Name string
	Decision   outcome
	// Rule and Reason are the deciding rule and a human reason (for a
	// rate limit: the limit; for an error: what went wrong, never a value).
	Rule, Reason string
	// Transforms are the ids of the transforms that ran.
	Transforms []string
	// Detections counts detections per label.
	Detections map[string]int
	// Pseudonyms issued, and resolved by the depseudonymiser; well-formed
	// pseudonyms it could not resolve for the caller (unknown or another
	// namespace's) and resolved ones it refused to restore at their place.
	Pseudonyms, Resolved, Unresolved, Refused int
	// BytesIn and BytesOut are the sizes of the request body and of the
	// response body the client received.
	BytesIn, BytesOut int
	// Processing is the time the plugin spent on the request, in ns.
	Processing int64
}

// Longest text an entry keeps of a name or reason (bytes); longer is cut
// on a character boundary and marked with "…".
const auditTextMax = 512

// appendJSON appends the entry as one JSON object with the fields time
// (RFC 3339, UTC), policy, principal, roles, session, method, kind, name,
// decision, rule, reason, transforms, detections {label: n}, pseudonyms,
// resolved, unresolved and refused (only when not 0), bytes_in, bytes_out,
// processing_us.
func (e *auditEntry) appendJSON(out []byte) []byte {
	out = append(out, `{"time":"`...)
	out = time.Unix(0, e.Time).UTC().AppendFormat(out, time.RFC3339Nano)
	out = append(out, `","policy":`...)
	out = jsondoc.AppendString(out, e.Policy)
	out = append(out, `,"principal":`...)
	out = jsondoc.AppendString(out, e.Principal)
	out = append(out, `,"roles":`...)
	out = appendStrings(out, e.Roles)
	out = append(out, `,"session":`...)
	out = jsondoc.AppendString(out, auditText(e.Session))
	out = append(out, `,"method":`...)
	out = jsondoc.AppendString(out, auditText(e.Method))
	out = append(out, `,"kind":`...)
	out = jsondoc.AppendString(out, e.Kind)
	out = append(out, `,"name":`...)
	out = jsondoc.AppendString(out, auditText(e.Name))
	out = append(out, `,"decision":`...)
	out = jsondoc.AppendString(out, string(e.Decision))
	out = append(out, `,"rule":`...)
	out = jsondoc.AppendString(out, e.Rule)
	out = append(out, `,"reason":`...)
	out = jsondoc.AppendString(out, auditText(e.Reason))
	out = append(out, `,"transforms":`...)
	out = appendStrings(out, e.Transforms)
	out = append(out, `,"detections":{`...)
	labels := make([]string, 0, len(e.Detections))
	for l, n := range e.Detections {
		if n > 0 {
			labels = append(labels, l)
		}
	}
	sort.Strings(labels)
	for i, l := range labels {
		if i > 0 {
			out = append(out, ',')
		}
		out = jsondoc.AppendString(out, l)
		out = append(out, ':')
		out = strconv.AppendInt(out, int64(e.Detections[l]), 10)
	}
	out = append(out, `},"pseudonyms":`...)
	out = strconv.AppendInt(out, int64(e.Pseudonyms), 10)
	out = append(out, `,"resolved":`...)
	out = strconv.AppendInt(out, int64(e.Resolved), 10)
	if e.Unresolved > 0 || e.Refused > 0 {
		out = append(out, `,"unresolved":`...)
		out = strconv.AppendInt(out, int64(e.Unresolved), 10)
		out = append(out, `,"refused":`...)
		out = strconv.AppendInt(out, int64(e.Refused), 10)
	}
	out = append(out, `,"bytes_in":`...)
	out = strconv.AppendInt(out, int64(e.BytesIn), 10)
	out = append(out, `,"bytes_out":`...)
	out = strconv.AppendInt(out, int64(e.BytesOut), 10)
	out = append(out, `,"processing_us":`...)
	out = strconv.AppendInt(out, e.Processing/1000, 10)
	return append(out, '}')
}

func appendStrings(out []byte, ss []string) []byte {
	out = append(out, '[')
	for i, s := range ss {
		if i > 0 {
			out = append(out, ',')
		}
		out = jsondoc.AppendString(out, auditText(s))
	}
	return append(out, ']')
}

// auditText bounds a text field: at most auditTextMax bytes, cut on a
// character boundary.
func auditText(s string) string {
	if len(s) <= auditTextMax {
		return s
	}
	cut := auditTextMax
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// auditLogPrefix starts every audit log line.
const auditLogPrefix = "cloudg.mcp.audit "

// auditRecorded reports whether an entry with this decision is recorded:
// always, except allowed calls when the policy's audit is off.
func auditRecorded(p *policy.Policy, d outcome) bool {
	return d != outcomeAllowed || p.Audit
}

// AuditLog records audit entries: a log line each, and the ring buffer.
type AuditLog struct {
	ring *auditring.Ring // keys "mcp-privacy|<server.id>|audit|..."
	// Log receives each line ("cloudg.mcp.audit {json}"), to be logged at
	// info level; nil drops them.
	Log func(line string)
}

// newAuditLog returns an audit log over shared (nil: this VM only) for the
// server serverID.
func newAuditLog(shared shareddata.Store, serverID string) *AuditLog {
	return &AuditLog{ring: auditring.New(shared, "mcp-privacy|"+serverID+"|audit|")}
}

// record records e if the policy records its decision (auditRecorded): it
// logs the line and, with audit_size > 0, appends it to the ring buffer.
// It reports whether the entry was stored (false: not recorded, audit_size
// 0, or shared-data contention; the line was logged all the same).
func (a *AuditLog) record(p *policy.Policy, e *auditEntry) bool {
	if !auditRecorded(p, e.Decision) {
		return false
	}
	buf := make([]byte, auditring.HeaderLen, 512)
	buf = e.appendJSON(buf)
	if a.Log != nil {
		a.Log(auditLogPrefix + string(buf[auditring.HeaderLen:]))
	}
	if p.AuditSize <= 0 {
		return false
	}
	return a.ring.Append(buf, p.AuditSize)
}

// line is the log line of an entry.
func (e *auditEntry) line() string { return auditLogPrefix + string(e.appendJSON(nil)) }

// recent returns up to n of the most recent stored entries, newest first,
// each a JSON object. size is the policy's audit_size.
func (a *AuditLog) recent(n, size int) [][]byte { return a.ring.Recent(n, size) }

// privacyAudit is the name of the pseudo-tool that grants the view of the
// audit trail in privacy_status. It is never listed nor callable.
const privacyAudit = "privacy_audit"

// auditViewPrimitive is what a principal must be granted to see audit
// entries in privacy_status, until the schema has a field for it: the
// tool privacy_audit, category privacy, sensitivity internal (entries name
// principals and primitives, never values).
func auditViewPrimitive() policy.Primitive {
	return policy.Primitive{Kind: policy.KindTool, Name: privacyAudit,
		Metadata: policy.Metadata{Category: "privacy", Sensitivity: policy.Internal}}
}

// mayViewAudit reports whether a principal may see the audit trail: the
// policy allows it the privacy_audit pseudo-tool and a matching rule or
// role grants it explicitly (allow_tools or allow_categories). A policy
// that allows every tool does not show everyone the audit trail.
func mayViewAudit(p *policy.Policy, pr *policy.Principal) bool {
	x := auditViewPrimitive()
	d := p.Decide(pr, &x)
	if !d.Allowed {
		return false
	}
	for _, r := range d.Matched {
		if r.Access.AllowTools.Match(x.Name) || r.Access.AllowCategories.Match(x.Category) {
			return true
		}
	}
	return false
}
