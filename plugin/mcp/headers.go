package mcp

import (
	"bytes"
	"encoding/base64"
	"math"
	"strconv"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/policy"
)

// Streamable HTTP under 2026-07-28 mirrors parts of a POST's body into
// headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*), so
// that load balancers, RBAC and rate limits can act without parsing the
// body. The policy judges the body; a filter after this one may act on
// the headers: the two must agree, so a request whose headers disagree
// with its body is refused here (400, HeaderMismatch) before any of its
// body moves on, and when the plugin changes a mirrored value (restores a
// pseudonym, sends a hidden primitive's stand-in) it changes the header
// to match, or, where the headers already left (gateway.hold_headers
// off), leaves that value as the client sent it (mirrorAfter).
//
// Which argument an Mcp-Param-{Name} header mirrors is known from the
// tool's inputSchema (x-mcp-header), which this Envoy may never have seen
// (another replica passed tools/list). So the plugin reads a header by
// its value: an Mcp-Param header is accepted only if its decoded value
// equals the value of some scalar argument reachable through object
// members alone (where x-mcp-header may sit), and it mirrors every such
// argument. A header whose value no argument holds is refused; a missing
// header, or one carrying another argument's value, the server refuses
// itself (it knows the schema). Schemas are not learned for this: a
// binding one worker or replica learned and another did not, or one kept
// after the server changed the tool, would make a request pass on one
// Envoy and fail on the next.

// Header names as the host hands them over (lower case).
const (
	headerProtocolVersion = "mcp-protocol-version"
	headerMethod          = "mcp-method"
	headerName            = "mcp-name"
	headerParamPrefix     = "mcp-param-"
	sentinelPrefix        = "=?base64?"
	sentinelSuffix        = "?="
)

// mirroredHeaders are the headers of a request that mirror its body.
type mirroredHeaders struct {
	version, method, name []string
	// params are the Mcp-Param-* headers: the name after the prefix in
	// lower case, and the value as sent.
	params [][2]string
	// twice is the first of them given more than once ("" if none).
	twice string
}

// present reports whether the request carries any of the mirrored
// headers but the protocol version.
func (h *mirroredHeaders) present() bool {
	return len(h.method) > 0 || len(h.name) > 0 || len(h.params) > 0
}

// readMirroredHeaders collects them from the request's headers into h
// (the stream's: each field written, not a struct copied, which inside
// the VM is a bulk copy under the collector's write barrier while it
// marks); version are its MCP-Protocol-Version values, which the caller
// read already.
func readMirroredHeaders(h *mirroredHeaders, req Request, version []string) {
	h.version = version
	h.method = req.HeaderValues(headerMethod)
	h.name = req.HeaderValues(headerName)
	h.params, h.twice = nil, ""
	switch {
	case len(h.version) > 1:
		h.twice = headerProtocolVersion
	case len(h.method) > 1:
		h.twice = headerMethod
	case len(h.name) > 1:
		h.twice = headerName
	}
	for _, kv := range req.Headers() {
		// Most headers are not Mcp-Param-*: told apart before any copy.
		if len(kv[0]) < len(headerParamPrefix) || !strings.EqualFold(kv[0][:len(headerParamPrefix)], headerParamPrefix) {
			continue
		}
		name := strings.ToLower(kv[0])
		rest := name[len(headerParamPrefix):]
		for _, p := range h.params {
			if p[0] == rest && h.twice == "" {
				h.twice = name
			}
		}
		h.params = append(h.params, [2]string{rest, kv[1]})
	}
}

// decodeHeaderValue is a mirrored header's value decoded from the Base64
// sentinel (=?base64?...?=) if it is written so. ok is false for a value
// with characters a header value may not carry (controls), raw bytes that
// are not UTF-8, or a sentinel whose content is not standard Base64 of
// UTF-8. Raw UTF-8 (RFC 9110's obs-text) is read as it is: clients must
// use the sentinel for it, but the go-sdk v1.8.0 client writes Mcp-Name
// raw and its server compares it raw, so both readings are the same bytes
// for every filter that reads the header.
func decodeHeaderValue(v string) (string, bool) {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return "", false
		}
	}
	if !utf8Valid([]byte(v)) {
		return "", false
	}
	inner, ok := strings.CutPrefix(v, sentinelPrefix)
	if !ok {
		return v, true
	}
	inner, ok = strings.CutSuffix(inner, sentinelSuffix)
	if !ok {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(inner)
	if err != nil || !utf8Valid(b) {
		return "", false
	}
	return string(b), true
}

// encodeLike writes v as the value of a mirrored header the client wrote
// as was: in the sentinel if the client used it; raw when the client wrote
// raw UTF-8 and v needs no more than that (a server that compares raw, as
// the go-sdk's does Mcp-Name, reads it as the client meant); else as the
// specification says (encodeHeaderValue).
func encodeLike(was, v string) string {
	if strings.HasPrefix(was, sentinelPrefix) && strings.HasSuffix(was, sentinelSuffix) {
		return sentinelPrefix + base64.StdEncoding.EncodeToString([]byte(v)) + sentinelSuffix
	}
	if !isASCII(was) && rawSafe(v) {
		return v
	}
	return encodeHeaderValue(v)
}

// rawSafe reports whether v can be a header value as it is, non-ASCII
// UTF-8 allowed: no controls, no leading or trailing space, not in the
// sentinel's form.
func rawSafe(v string) bool {
	if v != "" && (v[0] == ' ' || v[0] == '\t' || v[len(v)-1] == ' ' || v[len(v)-1] == '\t') {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == 0x7f {
			return false
		}
	}
	return !(strings.HasPrefix(v, sentinelPrefix) && strings.HasSuffix(v, sentinelSuffix))
}

// encodeHeaderValue writes v as a mirrored header's value: as it is when
// it is plain visible ASCII, else (or when it looks like a sentinel
// itself) in the Base64 sentinel.
func encodeHeaderValue(v string) string {
	plain := v == "" || v[0] != ' ' && v[0] != '\t' && v[len(v)-1] != ' ' && v[len(v)-1] != '\t'
	for i := 0; plain && i < len(v); i++ {
		plain = v[i] >= 0x20 && v[i] <= 0x7e
	}
	if plain && !(strings.HasPrefix(v, sentinelPrefix) && strings.HasSuffix(v, sentinelSuffix)) {
		return v
	}
	return sentinelPrefix + base64.StdEncoding.EncodeToString([]byte(v)) + sentinelSuffix
}

func utf8Valid(b []byte) bool { return strings.ToValidUTF8(string(b), "\uFFFD") == string(b) }

// mirrorPlan is what a request's mirrored headers mirror, for mirrorAfter:
// the Mcp-Name header's decoded value and the params member it mirrors,
// and each Mcp-Param header's decoded value and argument paths.
type mirrorPlan struct {
	nameMember string // "" when the request sent no Mcp-Name
	name       string
	params     []paramMirror
}

type paramMirror struct {
	header string // lower case, without the prefix
	sent   string // as sent
	value  string // decoded
	paths  [][]string
	// raws are the arguments at paths as the client wrote them (JSON),
	// put back where the header already left (mirrorAfter).
	raws [][]byte
}

// mismatch is a HeaderMismatch refusal's text: which header, never a
// value (the client knows what it sent; a value here could be one the
// plugin restored).
func mismatch(what string) string { return "Header mismatch: " + what }

// checkMirror checks message m of a POST against the headers that mirror
// it, and returns why they disagree ("" when they agree) and what they
// mirror. rev is the request's revision: under 2026-07-28 the headers
// are required and its _meta protocol version must be the header's;
// under a 2025 revision headers are checked only when sent.
func (s *exchange) checkMirror(doc *jsondoc.Doc, m *message) (string, mirrorPlan) {
	h := &s.mirror
	var plan mirrorPlan
	if h.twice != "" {
		return mismatch("the " + canonicalHeader(h.twice) + " header is given more than once"), plan
	}
	params := doc.Get(m.Node, "params")
	// The protocol version: the header and _meta agree, or neither is
	// there (a 2025 client).
	hv := ""
	if len(h.version) == 1 {
		hv = h.version[0]
	}
	mv, metaSet := "", false
	if n := doc.Path(params, "_meta", mcpvocab.MetaProtocolVersion); n != jsondoc.None {
		var ok bool
		if mv, ok = doc.Str(n); !ok {
			return missingMetaVersion, plan
		}
		metaSet = true
	}
	if s.legacy && hv == "" {
		// The legacy HTTP+SSE transport has no version header: a client
		// there may send a 2026 _meta alone (the go-sdk's server/discover
		// probe). Its other mirrored headers, when sent, are checked.
		metaSet = false
	}
	request := m.Kind == kindRequest
	switch {
	case metaSet && hv == "":
		return mismatch("the MCP-Protocol-Version header is required with params._meta[\"" + mcpvocab.MetaProtocolVersion + "\"]"), plan
	case request && s.rev == mcpvocab.Rev2026 && !metaSet:
		// A 2026 request without its version in _meta: invalid params,
		// as a 2026-07-28 server answers it (SEP-2575), not a mismatch.
		return missingMetaVersion, plan
	case metaSet && hv != mv:
		return mismatch("the MCP-Protocol-Version header does not match params._meta[\"" + mcpvocab.MetaProtocolVersion + "\"]"), plan
	}
	if s.rev != mcpvocab.Rev2026 && !h.present() {
		return "", plan
	}
	// Mcp-Method: required on a 2026 request, and the body's method
	// wherever it is sent.
	switch {
	case len(h.method) == 0 && request && s.rev == mcpvocab.Rev2026:
		return mismatch("the Mcp-Method header is required"), plan
	case len(h.method) > 0 && h.method[0] != m.Method:
		return mismatch("the Mcp-Method header does not match the body's method"), plan
	}
	meth := methodOf(s.rev, m.Method)
	member := meth.NameMember
	if m.Kind != kindRequest {
		member = ""
	}
	switch {
	case member == "" && len(h.name) > 0:
		return mismatch("an Mcp-Name header on a message that names nothing"), plan
	case member != "" && len(h.name) == 0 && methodOf(mcpvocab.Rev2026, m.Method).RequiresName && s.rev == mcpvocab.Rev2026:
		return mismatch("the Mcp-Name header is required for " + m.Method), plan
	case member != "" && len(h.name) > 0:
		v, ok := decodeHeaderValue(h.name[0])
		if !ok {
			return mismatch("the Mcp-Name header is not a valid header value or Base64 sentinel"), plan
		}
		if body, ok := doc.Str(doc.Get(params, member)); !ok || body != v {
			return mismatch("the Mcp-Name header does not match params." + member), plan
		}
		plan.nameMember, plan.name = member, v
	}
	if len(h.params) == 0 {
		return "", plan
	}
	if !meth.ParamHeaders || m.Kind != kindRequest {
		return mismatch("Mcp-Param headers on a message with no tool arguments"), plan
	}
	args := doc.Get(params, "arguments")
	matched := 0
	for _, p := range h.params {
		v, ok := decodeHeaderValue(p[1])
		if !ok {
			return mismatch("the " + canonicalHeader(headerParamPrefix+p[0]) + " header is not a valid header value or Base64 sentinel"), plan
		}
		paths, ok := scalarPathsEqual(doc, args, v, nil, maxMirroredPaths-matched)
		if !ok {
			return mismatch("the Mcp-Param headers match more than " + strconv.Itoa(maxMirroredPaths) + " arguments"), plan
		}
		matched += len(paths)
		if len(paths) == 0 {
			return mismatch("the " + canonicalHeader(headerParamPrefix+p[0]) + " header matches no argument"), plan
		}
		raws := make([][]byte, len(paths))
		for k, path := range paths {
			raws[k] = bytes.Clone(doc.Raw(atPath(doc, args, path)))
		}
		plan.params = append(plan.params, paramMirror{header: p[0], sent: p[1], value: v, paths: paths, raws: raws})
	}
	return "", plan
}

// maxMirroredPaths bounds the arguments one request's Mcp-Param headers
// may match together: a header mirrors one argument, and a client that
// sends many headers over a body of many equal values must not make the
// plugin collect millions of paths.
const maxMirroredPaths = 1024

// scalarPathsEqual appends to out the paths (chains of object members
// from args) of the scalar arguments whose header form is v: a string as
// it is, an integer numerically, a boolean as true or false. ok is false
// when out would grow past limit. It allocates for matches only: each
// Mcp-Param header walks the arguments, so a walk must cost no more than
// reading them.
func scalarPathsEqual(doc *jsondoc.Doc, n int32, v string, out [][]string, limit int) ([][]string, bool) {
	num, numErr := strconv.ParseFloat(v, 64)
	hv := headerValue{s: v, num: num, isNum: numErr == nil}
	var stack []int32 // the members from args down to the object walked
	var walk func(n int32) bool
	walk = func(n int32) bool {
		for c := doc.First(n); c != jsondoc.None; c = doc.Next(c) {
			if doc.Kind(c) == jsondoc.Object {
				stack = append(stack, c)
				ok := walk(c)
				stack = stack[:len(stack)-1]
				if !ok {
					return false
				}
				continue
			}
			if !hv.equals(doc, c) {
				continue
			}
			if len(out) >= limit {
				return false
			}
			path := make([]string, 0, len(stack)+1)
			for _, m := range stack {
				path = append(path, doc.Key(m))
			}
			out = append(out, append(path, doc.Key(c)))
		}
		return true
	}
	if doc.Kind(n) != jsondoc.Object {
		return out, true
	}
	ok := walk(n)
	return out, ok
}

// headerValue is a header's decoded value, with its number form parsed
// once.
type headerValue struct {
	s     string
	num   float64
	isNum bool
}

// equals reports whether the scalar at n is the value in header form.
func (h *headerValue) equals(doc *jsondoc.Doc, n int32) bool {
	switch doc.Kind(n) {
	case jsondoc.String:
		return doc.StrEquals(n, h.s)
	case jsondoc.True:
		return h.s == "true"
	case jsondoc.False:
		return h.s == "false"
	case jsondoc.Number:
		if !h.isNum {
			return false
		}
		b, err := strconv.ParseFloat(string(doc.Raw(n)), 64)
		return err == nil && b == math.Trunc(b) && math.Abs(b) < 1<<53 && b == h.num
	}
	return false
}

// headerForm is the scalar at n in header form (ok false for anything
// else: an object, an array, null, or nothing).
func headerForm(doc *jsondoc.Doc, n int32) (string, bool) {
	switch doc.Kind(n) {
	case jsondoc.String:
		return doc.Str(n)
	case jsondoc.True:
		return "true", true
	case jsondoc.False:
		return "false", true
	case jsondoc.Number:
		return string(doc.Raw(n)), true
	}
	return "", false
}

// atPath is the node at a chain of object members from n.
func atPath(doc *jsondoc.Doc, n int32, path []string) int32 {
	for _, k := range path {
		if n = doc.Get(n, k); n == jsondoc.None {
			return n
		}
	}
	return n
}

// canonicalHeader is a header's name as the specification writes it, for
// messages (the host hands names over in lower case).
func canonicalHeader(name string) string {
	switch name {
	case headerProtocolVersion:
		return "MCP-Protocol-Version"
	case headerMethod:
		return "Mcp-Method"
	case headerName:
		return "Mcp-Name"
	}
	if rest, ok := strings.CutPrefix(name, headerParamPrefix); ok {
		return "Mcp-Param-" + rest
	}
	return name
}

// missingMetaVersion is why a 2026-07-28 request whose _meta lacks its
// protocol version (or holds one that is no string) is refused: with
// invalid params, not a header mismatch.
const missingMetaVersion = "missing or invalid _meta field \"" + mcpvocab.MetaProtocolVersion + "\""

// headerMismatchReply refuses message m of doc (400, HeaderMismatch;
// invalid params for missingMetaVersion) and records it, with the method
// and the primitive its body names (headers are checked before anything
// is judged, so the name is as sent).
func (s *exchange) headerMismatchReply(doc *jsondoc.Doc, m *message, why string, bytesIn int) *LocalReply {
	id := m.ID
	if id == "" {
		id = "null"
	}
	code := mcpvocab.For(s.rev).Error(mcpvocab.ErrHeaderMismatch).Code
	if why == missingMetaVersion {
		code = mcpvocab.For(s.rev).Error(mcpvocab.ErrInvalidParams).Code
	}
	r := jsonReply(400, ErrorResponse(id, &policy.RPCError{Code: code, Message: why}),
		"mcp_privacy_header_mismatch")
	// The text names headers, one of them (an Mcp-Param's) chosen by the
	// client: it passes the detectors like anything a client chose.
	countError(s.cfg.Metrics, failHeaderMismatch)
	e := &auditEntry{Time: s.arrived, Method: m.Method, Decision: outcomeError, Reason: s.cfg.scrub(why),
		BytesIn: bytesIn, BytesOut: len(r.Body)}
	if judged(s.rev, m.Method) {
		if t, perr := targetOf(s.rev, doc, m); perr == nil {
			e.Kind, e.Name = t.Kind.String(), t.Name
		}
	}
	e.Processing = s.cfg.now() - s.arrived
	s.record(e)
	return r
}

// headerChanges are the request headers the plugin sets or removes so
// that they mirror the body as it goes upstream.
type headerChanges struct {
	set    [][2]string
	remove []string
}

// mirrorAfter makes the mirrored headers agree with message m as it goes
// upstream, after the judgement j changed it (restored pseudonyms in its
// arguments or URI, or named a hidden primitive's stand-in). When the
// headers can still
// change (gateway.hold_headers), they are rewritten; when they already
// left, a changed value goes back to what the client sent (and the
// judgement notes why), and a stand-in, which cannot travel under the
// hidden name's header, is answered locally as the revision's not-found.
func (s *exchange) mirrorAfter(doc *jsondoc.Doc, m *message, j *judgement, plan *mirrorPlan) headerChanges {
	var ch headerChanges
	if j.reply != nil || j.answer != nil || (plan.nameMember == "" && len(plan.params) == 0) {
		return ch
	}
	hold := s.cfg.Env.Gateway.HoldHeaders
	params := doc.Get(m.Node, "params")
	if plan.nameMember != "" {
		v, _ := doc.Str(doc.Get(params, plan.nameMember))
		if j.standIn {
			v = j.standInName
		}
		if v != plan.name {
			switch {
			case hold:
				enc := encodeLike(s.mirror.name[0], v)
				ch.set = append(ch.set, [2]string{"Mcp-Name", enc})
				if !j.standIn {
					j.restored = appendHeaderForm(j.restored, enc, v, s.mirror.name[0])
				}
			case j.standIn:
				s.answerMissingLocally(j)
				return headerChanges{}
			default:
				doc.SetString(doc.Get(params, plan.nameMember), plan.name)
				j.note = appendNote(j.note, "params."+plan.nameMember+" left as sent: the Mcp-Name header had already gone upstream (gateway.hold_headers is off)")
			}
		}
	}
	if len(plan.params) == 0 {
		return ch
	}
	args := doc.Get(params, "arguments")
	for _, p := range plan.params {
		now, present := "", false
		for _, path := range p.paths {
			if j.standIn {
				break // a stand-in carries no arguments
			}
			if v, ok := headerForm(doc, atPath(doc, args, path)); ok {
				now, present = v, true
				break
			}
		}
		switch {
		case present && now == p.value:
			continue
		case hold && !present:
			ch.remove = append(ch.remove, headerParamPrefix+p.header)
		case hold:
			enc := encodeLike(p.sent, now)
			ch.set = append(ch.set, [2]string{"Mcp-Param-" + p.header, enc})
			j.restored = appendHeaderForm(j.restored, enc, now, p.sent)
		case j.standIn:
			// Arguments are dropped for a stand-in; the header already
			// went, and the answer is local (above) or the server's.
		case !present || !restoredOnly(p.value, now):
			// A detecting step changed it (a redaction, a pseudonym
			// issued): the header carried the value upstream already, so
			// the body does not follow it.
			j.reply, j.outcome = rpcError(mcpvocab.ErrBlocked, "an argument the policy changes was already sent upstream in its "+canonicalHeader(headerParamPrefix+p.header)+" header"), outcomeBlocked
			j.reason = "blocked: a transform changed an argument mirrored in " + canonicalHeader(headerParamPrefix+p.header) + ", which had already gone upstream (gateway.hold_headers is off)"
			return headerChanges{}
		default:
			// Pseudonyms restored (or a value shortened): the server gets
			// the value as sent, which its header holds.
			for k, path := range p.paths {
				if n := atPath(doc, args, path); n != jsondoc.None {
					doc.SetRaw(n, p.raws[k])
				}
			}
			j.note = appendNote(j.note, "an argument mirrored in "+canonicalHeader(headerParamPrefix+p.header)+" left as sent: the header had already gone upstream (gateway.hold_headers is off)")
		}
	}
	return ch
}

// appendHeaderForm adds to the restored pairs the header value enc the
// plugin wrote for value v in place of sent, the header as the client
// sent it, when enc is not v itself (the Base64 sentinel): a server
// quoting the header as it got it (a HeaderMismatch) quotes that form,
// which the client must not decode into the restored value.
func appendHeaderForm(out []restoredPair, enc, v, sent string) []restoredPair {
	if enc == v || len(enc) < minRestoredSpan {
		return out
	}
	return append(out, restoredPair{enc, sent})
}

// answerMissingLocally answers a hidden primitive's request locally as
// its revision's not-found, where its stand-in cannot go upstream (the
// request's Mcp-Name header, naming the hidden primitive, already left).
func (s *exchange) answerMissingLocally(j *judgement) {
	j.standIn, j.asMissing = false, true
	j.reply = j.decision.ErrorFor(s.rev)
	j.outcome = outcomeDenied
	j.note = appendNote(j.note, "answered as missing by the filter: the Mcp-Name header had already gone upstream (gateway.hold_headers is off)")
}

// statusFor is the HTTP status of the plugin's own error reply with code
// to a single request: under 2026-07-28 a server answers method not found
// with 404 and invalid params, an unsupported version or a missing
// capability with 400 (the go-sdk's stateless handler does), and the
// plugin answers as the server would; otherwise 200.
func statusFor(rev mcpvocab.Revision, code int) int {
	if rev != mcpvocab.Rev2026 {
		return 200
	}
	switch code {
	case mcpvocab.CodeMethodNotFound:
		return 404
	case mcpvocab.CodeInvalidParams, mcpvocab.CodeUnsupportedVersion, mcpvocab.CodeMissingCapability, mcpvocab.CodeHeaderMismatch:
		return 400
	}
	return 200
}

func appendNote(note, more string) string {
	if note == "" {
		return more
	}
	return note + "; " + more
}
