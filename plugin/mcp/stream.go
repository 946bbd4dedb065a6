package mcp

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms"
)

// Config is the plugin configuration compiled for the stream handlers.
// It is immutable and shared by every stream of a VM.
type Config struct {
	Env     *policy.Envelope
	Catalog *Catalog
	tr      *transformer // built on first use (transform.go)
}

// NewConfig validates a plugin configuration (an envelope, or a bare policy
// or profile name) and compiles it. shared is the host's shared data (nil:
// this VM only).
func NewConfig(data []byte, shared SharedData) (*Config, policy.Errors) {
	env, errs := policy.ParseEnvelope(data, policy.Options{})
	if len(errs) > 0 {
		return nil, errs
	}
	cat := NewCatalog(&env.Server)
	cat.Shared = shared
	return &Config{Env: env, Catalog: cat}, nil
}

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
}

func jsonReply(status int, body []byte, details string) *LocalReply {
	return &LocalReply{Status: status, Body: body, Details: details,
		Headers: [][2]string{{"content-type", "application/json"}}}
}

// Stream is the plugin's state for one HTTP stream.
type Stream struct {
	cfg *Config
	// inspect is set for requests on gateway.paths.
	inspect bool
	post    bool
	id      Identity
	// replied is set once the plugin answered locally: its reply passes
	// the plugin's own response callbacks untouched.
	replied bool
	// pending holds local answers to denied elements of a batch whose
	// other elements went upstream; they are merged into the response.
	pending [][]byte
	mode    responseMode
	sse     *SSERewriter
	// requests are the requests this stream forwarded, by raw id, for
	// matching the responses.
	requests map[string]forwarded
	// session is the MCP session (Mcp-Session-Id, or the legacy
	// transport's sessionid); legacy marks a POST of the 2024-11-05
	// HTTP+SSE transport, whose answers arrive on the GET stream.
	session string
	legacy  bool
}

// forwarded is what the stream remembers of a request it sent upstream.
type forwarded struct {
	method string
	// out is the output pipeline of a judged request; kind and name the
	// primitive it named, from which another stream rebuilds out.
	out  *transforms.Pipeline
	kind policy.Kind
	name string
	// firstPage: a list request without a cursor (virtual tools are
	// appended to the first page only).
	firstPage bool
}

// NewStream starts the state of one HTTP stream.
func NewStream(cfg *Config) *Stream { return &Stream{cfg: cfg} }

// Identity is the caller, once the request headers were seen.
func (s *Stream) Identity() Identity { return s.id }

// Replied reports whether the plugin answered this stream itself.
func (s *Stream) Replied() bool { return s.replied }

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
	query := ""
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path, query = path[:i], path[i+1:]
	}
	// Match the path the server will route: /mc%70, /x/../mcp and //mcp
	// are /mcp to it, and must not slip past gateway.paths.
	if !g.Paths.Match(path) && !g.Paths.Match(NormalizePath(path)) {
		return r
	}
	s.inspect = true
	s.session, _ = req.Header("mcp-session-id")
	if s.session == "" && query != "" {
		s.session = legacySession(query)
		s.legacy = s.session != "" && method == "POST"
	}
	// Clients must not set what the plugin exports to later filters, and
	// servers must answer plainly so responses can be inspected.
	r.Remove = make([]string, 0, len(g.ExportHeaders)+2)
	for _, h := range g.ExportHeaders {
		r.Remove = append(r.Remove, h.Header)
	}
	r.Remove = append(r.Remove, "accept-encoding")

	s.id = ResolveIdentity(&s.cfg.Env.Identity, req)
	if s.id.Anonymous && s.cfg.Env.Identity.Require {
		s.replied = true
		r.Reply = jsonReply(401, ErrorResponse("null", &policy.RPCError{
			Code: policy.CodeInvalidRequest, Message: "Unauthorized: this MCP endpoint requires an authenticated principal"}),
			"mcp_privacy_unauthenticated")
		r.Reply.Headers = append(r.Reply.Headers, [2]string{"www-authenticate", "Bearer"})
		return r
	}
	r.Set = s.exportHeaders(nil, nil)
	switch method {
	case "GET", "HEAD", "DELETE", "OPTIONS":
		return r // GET streams and DELETE carry no JSON-RPC body to judge
	}
	// POST, and any other method that could carry a body a server might
	// read as JSON-RPC, is judged.
	s.post = true
	if enc, ok := req.Header("content-encoding"); ok && !strings.EqualFold(strings.TrimSpace(enc), "identity") {
		s.replied = true
		r.Reply = jsonReply(415, ErrorResponse("null", &policy.RPCError{
			Code: policy.CodeInvalidRequest, Message: "Unsupported Media Type: compressed request bodies cannot be inspected"}),
			"mcp_privacy_compressed_request")
		return r
	}
	if cl, ok := req.Header("content-length"); ok {
		if n, err := strconv.ParseInt(strings.TrimSpace(cl), 10, 64); err == nil && n > int64(g.MaxRequestBytes) {
			s.replied = true
			r.Reply = tooLarge(g.MaxRequestBytes)
			return r
		}
	}
	if endOfStream {
		s.replied = true
		r.Reply = jsonReply(400, ErrorResponse("null", &policy.RPCError{
			Code: policy.CodeParseError, Message: "Parse error: empty body"}), "mcp_privacy_empty_body")
		return r
	}
	// The body may be rewritten: its length is not known yet.
	r.Remove = append(r.Remove, "content-length")
	if g.HoldHeaders {
		// Headers wait for the verdict (Envoy delivers the body to a
		// filter paused on headers only with allow_on_headers_stop_iteration).
		r.Action = Pause
	}
	return r
}

func tooLarge(limit int) *LocalReply {
	return jsonReply(413, ErrorResponse("null", &policy.RPCError{
		Code:    policy.CodeInvalidRequest,
		Message: "Request too large: the body exceeds gateway.max_request_bytes (" + strconv.Itoa(limit) + ")"}),
		"mcp_privacy_request_too_large")
}

// BodyResult is the outcome of the request body callback.
type BodyResult struct {
	Action Action
	Reply  *LocalReply
	// Body replaces the whole buffered body when non-nil.
	Body []byte
	// Set lists request headers to set (export_headers).
	Set [][2]string
}

// OnRequestBody sees the body buffered so far (size bytes) and, at
// endOfStream, judges it. read returns the whole buffered body.
func (s *Stream) OnRequestBody(size int, endOfStream bool, read func() []byte) BodyResult {
	if !s.inspect || !s.post || s.replied {
		return BodyResult{}
	}
	if size > s.cfg.Env.Gateway.MaxRequestBytes {
		s.replied = true
		return BodyResult{Reply: tooLarge(s.cfg.Env.Gateway.MaxRequestBytes)}
	}
	if !endOfStream {
		return BodyResult{Action: Pause}
	}
	return s.judgeBody(read())
}

// judgeBody parses and judges a complete request body.
func (s *Stream) judgeBody(raw []byte) BodyResult {
	body, perr := ParseBody(raw)
	if perr != nil {
		s.replied = true
		return BodyResult{Reply: jsonReply(200, ErrorResponse("null", perr), "mcp_privacy_bad_request")}
	}
	var answers [][]byte // local answers, in message order
	var exported *judgement
	nForwarded := 0
	for i := range body.Messages {
		m := &body.Messages[i]
		j := s.judge(body.Doc, m)
		if s.legacy && m.Kind == KindRequest && m.Invalid == nil && (j.reply != nil || j.answer != nil) {
			// The legacy transport answers on the GET stream: the server
			// gets a ping with this id, whose answer becomes ours there.
			answer := j.answer
			if answer == nil {
				answer = ErrorResponse(m.ID, j.reply)
			}
			s.cfg.Catalog.deferAnswer(s.session, m.ID, answer)
			body.Doc.SetRaw(m.Node, []byte(`{"jsonrpc":"2.0","id":`+m.ID+`,"method":"ping"}`))
			j.reply, j.answer = nil, nil
		}
		if j.reply != nil || j.answer != nil {
			if j.reply != nil {
				answers = append(answers, ErrorResponse(m.ID, j.reply))
			} else {
				answers = append(answers, j.answer)
			}
			if body.Batch {
				body.Doc.Delete(m.Node)
			}
		} else {
			nForwarded++
			if m.Kind == KindRequest && m.Invalid == nil {
				if s.requests == nil {
					s.requests = map[string]forwarded{}
				}
				f := forwarded{method: m.Method, firstPage: body.Doc.Path(m.Node, "params", "cursor") == jsondoc.None,
					out: j.out, kind: j.call.Kind, name: j.call.Name}
				s.requests[m.ID] = f
				if _, payload := payloadOf(m.Method); payload || listMethods[m.Method].items != "" {
					// Its answer may come back on a resumed stream.
					s.cfg.Catalog.shareRequest(s.session, m.ID, f)
				}
			}
		}
		if exported == nil && j.judged {
			exported = &j
		}
	}
	var res BodyResult
	if exported != nil {
		res.Set = s.exportHeaders(exported, body)
	}
	switch {
	case len(answers) == 0:
		if body.Doc.Changed() {
			res.Body = body.Doc.Bytes()
		}
		return res
	case !body.Batch || nForwarded == 0:
		s.replied = true
		reply := answers[0]
		if body.Batch {
			reply = joinArray(answers)
		}
		details := "mcp_privacy_denied"
		if !body.Batch && !bytesContains(reply, `"error":`) {
			details = "mcp_privacy_virtual_tool"
		}
		res.Reply = jsonReply(200, reply, details)
		return res
	default:
		s.pending = answers
		res.Body = body.Doc.Bytes()
		return res
	}
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
	call Target
	out  *transforms.Pipeline
}

func (s *Stream) judge(doc *jsondoc.Doc, m *Message) judgement {
	j := judgement{method: m.Method}
	if m.Invalid != nil {
		j.reply = m.Invalid
		return j
	}
	if m.Kind == KindResult {
		s.transformClientResult(doc, m)
		return j
	}
	if m.Kind != KindRequest || !Judged(m.Method) {
		return j
	}
	t, perr := TargetOf(doc, m)
	if perr != nil {
		j.reply = perr
		return j
	}
	if t.Method == "tools/call" && isVirtual(t.Name) {
		if d, on := s.virtualAllowed(t.Name); on {
			j.judged, j.target, j.decision, j.call = true, virtualPrimitive(t.Name), d, t
			if !d.Allowed {
				j.reply = d.Error()
				return j
			}
			result, rpcErr := s.virtualResult(doc, t)
			if rpcErr != nil {
				j.reply = rpcErr
				return j
			}
			j.answer = resultResponse(m.ID, result)
			return j
		}
	}
	x, known := s.cfg.Catalog.Resolve(t)
	p := s.cfg.Env.Policy
	if s.cfg.Env.Server.RequireKnown && !known {
		j.decision = p.DenyUnknown(&s.id.Principal, &x)
	} else {
		j.decision = p.Decide(&s.id.Principal, &x)
	}
	j.judged, j.target, j.call = true, x, t
	if !j.decision.Allowed {
		j.reply = j.decision.Error()
		return j
	}
	j.reply = s.transformRequest(doc, m, t, &j)
	return j
}

// exportHeaders builds the export_headers values: identity always, the
// call's fields once a request was judged.
func (s *Stream) exportHeaders(j *judgement, _ *Body) [][2]string {
	if len(s.cfg.Env.Gateway.ExportHeaders) == 0 {
		return nil
	}
	out := make([][2]string, 0, len(s.cfg.Env.Gateway.ExportHeaders))
	for _, h := range s.cfg.Env.Gateway.ExportHeaders {
		var v string
		switch h.Field {
		case "principal":
			v = s.id.ID
		case "roles":
			v = strings.Join(s.id.Roles, ",")
		}
		if j != nil {
			switch h.Field {
			case "method":
				v = j.method
			case "kind":
				v = j.target.Kind.String()
			case "primitive":
				v = j.target.Name
			case "decision":
				v = "allow"
				if !j.decision.Allowed {
					v = "deny"
				}
			case "rule":
				v = j.decision.Rule
			}
		}
		if v != "" {
			out = append(out, [2]string{h.Header, headerSafe(v)})
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

// legacySession finds the session id in a legacy endpoint's query
// (sessionid, or sessionId as the TypeScript SDK writes it).
func legacySession(query string) string {
	for _, kv := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if k == "sessionid" || k == "sessionId" || k == "session_id" {
			if u, err := url.QueryUnescape(v); err == nil {
				return u
			}
		}
	}
	return ""
}

// NormalizePath is the path as a server resolves it (RFC 3986): percent-
// encoded unreserved characters decoded, empty segments merged, dot
// segments removed. Encoded slashes stay encoded (servers don't split on
// them).
func NormalizePath(p string) string {
	if !strings.ContainsAny(p, "%.") && !strings.Contains(p, "//") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && i+2 < len(p) {
			if c, ok := unhex2(p[i+1], p[i+2]); ok && unreserved(c) {
				b.WriteByte(c)
				i += 2
				continue
			}
		}
		b.WriteByte(p[i])
	}
	var out []string
	for _, seg := range strings.Split(b.String(), "/") {
		switch seg {
		case "", ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, seg)
		}
	}
	n := "/" + strings.Join(out, "/")
	if strings.HasSuffix(p, "/") && n != "/" {
		n += "/"
	}
	return n
}

func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func unhex2(a, b byte) (byte, bool) {
	h := func(c byte) (byte, bool) {
		switch {
		case c >= '0' && c <= '9':
			return c - '0', true
		case c >= 'a' && c <= 'f':
			return c - 'a' + 10, true
		case c >= 'A' && c <= 'F':
			return c - 'A' + 10, true
		}
		return 0, false
	}
	x, ok1 := h(a)
	y, ok2 := h(b)
	return x<<4 | y, ok1 && ok2
}
