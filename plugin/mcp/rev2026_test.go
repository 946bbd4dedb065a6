package mcp

import (
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

const rev2026Envelope = `
policy:
  name: rev
  hide_denied: false
  allow_tools: ["*"]
  deny_resources: ["secret://*"]
identity:
  principal: [{header: x-mcp-principal}]
gateway: {hold_headers: true}
`

// meta2026 is the _meta member a 2026-07-28 request carries.
const meta2026 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`

// req2026 is the headers of a 2026-07-28 POST for method naming name
// ("" for none), then kv.
func req2026(method, name string, kv ...string) fakeRequest {
	h := hdr(append([]string{"x-mcp-principal", "ann", "content-type", "application/json",
		"mcp-protocol-version", "2026-07-28", "mcp-method", method}, kv...)...)
	if name != "" {
		h.headers["mcp-name"] = name
	}
	return h
}

// postOnce runs one POST and returns its outcome, whatever it is (post
// fails the test on a refusal at headers).
func postOnce(cfg *Config, req fakeRequest, body string) (HeadersResult, BodyResult, *Stream) {
	s := NewStream(cfg)
	h := s.OnRequestHeaders(req, "POST", "/mcp", false)
	if h.Reply != nil {
		return h, BodyResult{}, s
	}
	return h, s.OnRequestBody(len(body), true, func() []byte { return []byte(body) }), s
}

// The revision of a request is its MCP-Protocol-Version header, which its
// _meta must repeat: a request whose two disagree, or whose _meta names a
// version without the header, is refused (400, -32020) before anything
// moves on; a 2026 request whose _meta lacks the version gets invalid
// params (400, -32602), as a 2026-07-28 server answers it;
// one with neither is a 2025 request, read as today. The table decides
// what is judged: resources/subscribe, removed in 2026-07-28, is judged
// (and here denied) under 2025, and answered as the method a 2026 server
// does not have under 2026.
func TestRevisionPerRequest(t *testing.T) {
	cfg := mustConfig(t, rev2026Envelope)
	sub := func(meta string) string {
		p := `{"uri":"secret://x"`
		if meta != "" {
			p += `,"_meta":{"io.modelcontextprotocol/protocolVersion":` + meta + `}`
		}
		return call("1", "resources/subscribe", p+"}")
	}
	for _, c := range []struct {
		name    string
		version string // the header ("" none)
		meta    string // _meta's version, raw JSON ("" none)
		want    string // "mismatch", "invalid" (-32602), "denied" (judged by 2025), "removed" (2026's not found)
	}{
		{"neither: 2025", "", "", "denied"},
		{"2025 header only", "2025-11-25", "", "denied"},
		{"2025 header and _meta agree", "2025-06-18", `"2025-06-18"`, "denied"},
		{"2026 both", "2026-07-28", `"2026-07-28"`, "removed"},
		{"2026 header, no _meta", "2026-07-28", "", "invalid"},
		{"2026 _meta, no header", "", `"2026-07-28"`, "mismatch"},
		{"2026 header, 2025 _meta", "2026-07-28", `"2025-11-25"`, "mismatch"},
		{"2025 header, 2026 _meta", "2025-11-25", `"2026-07-28"`, "mismatch"},
		{"_meta not a string", "2026-07-28", `20260728`, "invalid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := hdr("x-mcp-principal", "ann", "content-type", "application/json", "mcp-method", "resources/subscribe")
			if c.version != "" {
				h.headers["mcp-protocol-version"] = c.version
			}
			_, r, _ := postOnce(cfg, h, sub(c.meta))
			switch c.want {
			case "mismatch":
				if r.Reply == nil || r.Reply.Status != 400 || !strings.Contains(string(r.Reply.Body), `"code":-32020`) {
					t.Fatalf("want 400 -32020, got %+v", r.Reply)
				}
			case "invalid": // as a 2026-07-28 server answers (SEP-2575)
				if r.Reply == nil || r.Reply.Status != 400 || !strings.Contains(string(r.Reply.Body), `"code":-32602`) {
					t.Fatalf("want 400 -32602, got %+v", r.Reply)
				}
			case "denied":
				if r.Reply == nil || !strings.Contains(string(r.Reply.Body), `"code":-32003`) {
					t.Fatalf("want a 2025 denial, got %+v", r)
				}
			case "removed":
				if r.Reply == nil || r.Reply.Status != 404 || !strings.Contains(string(r.Reply.Body), `"code":-32601`) {
					t.Fatalf("want 404 -32601, got %+v", r.Reply)
				}
			}
		})
	}
}

// Every method 2026-07-28 removed reaches the server as the client sent
// it, not answered by the plugin (the server answers 404 -32601 for what
// it does not have). One that named a primitive under 2025
// (resources/subscribe) is still decided as 2025 decides it: a server
// that ignores the revision would act on it. Naming one the caller may
// not use, it gets from the plugin what a 2026 server answers, 404
// -32601, with no header of the plugin's.
func TestRemovedMethodsPass(t *testing.T) {
	cfg := mustConfig(t, rev2026Envelope)
	for _, method := range []string{"resources/subscribe", "resources/unsubscribe", "ping", "logging/setLevel", "initialize", "tasks/list", "tasks/result"} {
		body := call("3", method, `{"uri":"file:///x","level":"debug",`+meta2026+`}`)
		_, r, _ := postOnce(cfg, req2026(method, ""), body)
		if r.Reply != nil || r.Body != nil {
			t.Errorf("%s: want it upstream untouched, got reply %+v body %s", method, r.Reply, r.Body)
		}
	}
	for _, method := range []string{"resources/subscribe", "resources/unsubscribe"} {
		body := call("3", method, `{"uri":"secret://x",`+meta2026+`}`)
		_, r, _ := postOnce(cfg, req2026(method, ""), body)
		if r.Reply == nil || r.Reply.Status != 404 || !r.Reply.AsServer ||
			compactJSON(r.Reply.Body) != `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}` {
			t.Errorf("%s of a denied resource: want 404 -32601 as the server's, got %+v", method, r.Reply)
		}
	}
}

// Headers that mirror the body must agree with it (2026-07-28, Streamable
// HTTP "Server Validation"): a missing required header, a value that
// differs, a malformed Base64 sentinel, a header given twice, a mirror of
// nothing, are refused with 400 and -32020, and the refusal names the
// header, never a value.
func TestHeaderMismatchRefused(t *testing.T) {
	cfg := mustConfig(t, rev2026Envelope)
	toolCall := call("5", "tools/call", `{"name":"lookup","arguments":{"region":"us-west1","n":42,"deep":{"flag":true},"who":"Zoë"},`+meta2026+`}`)
	read := call("6", "resources/read", `{"uri":"file:///a b/ü.txt",`+meta2026+`}`)
	b64 := func(s string) string { return encodeHeaderValue(s) }
	for _, c := range []struct {
		name string
		req  fakeRequest
		body string
		ok   bool
	}{
		{"agree", req2026("tools/call", "lookup"), toolCall, true},
		{"param plain", req2026("tools/call", "lookup", "mcp-param-region", "us-west1"), toolCall, true},
		{"param name in any case", req2026("tools/call", "lookup", "Mcp-Param-Region", "us-west1"), toolCall, true},
		{"param integer numerically", req2026("tools/call", "lookup", "mcp-param-n", "42.0"), toolCall, true},
		{"param nested boolean", req2026("tools/call", "lookup", "mcp-param-flag", "true"), toolCall, true},
		{"param sentinel", req2026("tools/call", "lookup", "mcp-param-who", b64("Zoë")), toolCall, true},
		{"name sentinel", req2026("resources/read", b64("file:///a b/ü.txt")), read, true},
		{"method missing", hdr("x-mcp-principal", "ann", "content-type", "application/json", "mcp-protocol-version", "2026-07-28", "mcp-name", "lookup"), toolCall, false},
		{"method differs", req2026("tools/list", "lookup"), toolCall, false},
		{"method case differs", req2026("Tools/Call", "lookup"), toolCall, false},
		{"name missing", req2026("tools/call", ""), toolCall, false},
		{"name differs", req2026("tools/call", "other"), toolCall, false},
		{"name raw UTF-8, as the go-sdk client writes it", req2026("resources/read", "file:///a b/ü.txt"), read, true},
		{"name raw, not UTF-8", req2026("resources/read", "file:///a b/\xfc.txt"), read, false},
		{"name with a control character", req2026("resources/read", "file:///a b/\x01.txt"), read, false},
		{"name malformed sentinel", req2026("resources/read", "=?base64?not*base64?="), read, false},
		{"name on a list", req2026("tools/list", "lookup"), call("7", "tools/list", `{`+meta2026+`}`), false},
		{"param matches no argument", req2026("tools/call", "lookup", "mcp-param-region", "eu-west1"), toolCall, false},
		{"param malformed sentinel", req2026("tools/call", "lookup", "mcp-param-who", "=?base64?Zm9v!?="), toolCall, false},
		{"param on prompts/get", req2026("prompts/get", "p", "mcp-param-x", "p"), call("8", "prompts/get", `{"name":"p",`+meta2026+`}`), false},
		{"param twice", func() fakeRequest {
			r := req2026("tools/call", "lookup", "mcp-param-region", "us-west1")
			r.extra = map[string][]string{"mcp-param-region": {"us-west1"}}
			return r
		}(), toolCall, false},
		{"name twice", func() fakeRequest {
			r := req2026("tools/call", "lookup")
			r.extra = map[string][]string{"mcp-name": {"lookup"}}
			return r
		}(), toolCall, false},
		{"2025 request with a disagreeing Mcp-Name", hdr("x-mcp-principal", "ann", "content-type", "application/json", "mcp-name", "other"),
			call("9", "tools/call", `{"name":"lookup"}`), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, r, _ := postOnce(cfg, c.req, c.body)
			if c.ok {
				if r.Reply != nil {
					t.Fatalf("refused: %d %s", r.Reply.Status, r.Reply.Body)
				}
				return
			}
			if r.Reply == nil || r.Reply.Status != 400 {
				t.Fatalf("want 400, got %+v", r)
			}
			code, msg, _ := wrError(t, r.Reply)
			if code != -32020 || !strings.HasPrefix(msg, "Header mismatch: ") {
				t.Fatalf("want -32020 Header mismatch, got %d %q", code, msg)
			}
			for _, v := range []string{"us-west1", "eu-west1", "Zoë", "other", "ü"} {
				if strings.Contains(msg, v) {
					t.Errorf("the refusal echoes %q: %s", v, msg)
				}
			}
		})
	}
}

// A 2026-07-28 POST is one message: a batch is refused.
func TestBatchRefusedUnder2026(t *testing.T) {
	cfg := mustConfig(t, rev2026Envelope)
	_, r, _ := postOnce(cfg, req2026("tools/list", ""), `[`+call("1", "tools/list", `{`+meta2026+`}`)+`]`)
	if r.Reply == nil || r.Reply.Status != 400 {
		t.Fatalf("want 400, got %+v", r)
	}
}

// jsonQuote is s as a JSON string.
func jsonQuote(s string) string { return jsondoc.Quote(s) }

const hidden2026Envelope = `
policy:
  name: hide
  hide_denied: true
  allow_tools: ["*"]
  deny_tools: ["delete_*"]
  deny_resources: ["secret://*"]
identity:
  principal: [{header: x-mcp-principal}]
gateway: {hold_headers: HOLD}
`

// goSDKNotFound2026 is how the go-sdk v1.8.0 stateless server answers a
// resources/read for a URI it does not have under 2026-07-28: -32602
// "Resource not found" with the URI, and HTTP 400.
func goSDKNotFound2026(id, uri string) (int, string) {
	return 400, `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32602,"message":"Resource not found","data":{"uri":` + jsonQuote(uri) + `}}}`
}

// A hidden resource under 2026-07-28 is answered as the server answers a
// missing one under that revision (-32602, HTTP 400), not with 2025's
// -32002 and 200. With the headers held, the stand-in goes upstream and
// Mcp-Name is rewritten to it, so the server answers itself; without,
// the Mcp-Name header naming the hidden resource already left, so the
// plugin answers as the server would (code, message, data and status).
func TestHiddenResourceUnder2026LooksMissing(t *testing.T) {
	const uri = "secret://x"
	for _, hold := range []bool{true, false} {
		cfg := mustConfig(t, strings.Replace(hidden2026Envelope, "HOLD", map[bool]string{true: "true", false: "false"}[hold], 1))
		body := call("4", "resources/read", `{"uri":"`+uri+`",`+meta2026+`}`)
		_, r, s := postOnce(cfg, req2026("resources/read", uri), body)
		wantStatus, missing := goSDKNotFound2026("4", uri)
		if !hold {
			if r.Reply == nil || r.Reply.Status != wantStatus || compactJSON(r.Reply.Body) != missing {
				t.Fatalf("hold off: got %+v, want %d %s", r.Reply, wantStatus, missing)
			}
			continue
		}
		if r.Reply != nil {
			t.Fatalf("hold on: answered locally %s", r.Reply.Body)
		}
		doc, err := jsondoc.Parse(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		sent, _ := doc.Str(doc.Path(jsondoc.Root, "params", "uri"))
		if !strings.Contains(sent, standInPrefix) {
			t.Fatalf("upstream params.uri %q is not a stand-in", sent)
		}
		if !setsHeader(r.Set, "mcp-name", sent) {
			t.Fatalf("Mcp-Name not rewritten to the stand-in %q: %v", sent, r.Set)
		}
		status, answer := goSDKNotFound2026("4", sent)
		s.OnResponseHeaders(status, "application/json", "", false)
		_, edit := s.OnResponseBody(len(answer), true, func() []byte { return []byte(answer) })
		got := answer
		if edit.Replace {
			got = string(edit.Data)
		}
		if compactJSON([]byte(got)) != missing {
			t.Errorf("hold on: client got %s, want %s", got, missing)
		}
	}
}

// setsHeader reports whether set sets header name (any case) to v.
func setsHeader(set [][2]string, name, v string) bool {
	for _, kv := range set {
		if strings.EqualFold(kv[0], name) && kv[1] == v {
			return true
		}
	}
	return false
}

// A rewritten header keeps the client's way of writing it: the sentinel
// if it used it, raw UTF-8 if it wrote that (the go-sdk's server compares
// Mcp-Name raw), else what the specification says.
func TestHeaderValueEncodedLikeTheClients(t *testing.T) {
	for _, c := range []struct{ was, v, want string }{
		{"EMAIL_ABC", "alice@example.com", "alice@example.com"},
		{"EMAIL_ABC", "Zoë", "=?base64?Wm/Dqw==?="},
		{"=?base64?RU1BSUxfQUJD?=", "alice@example.com", "=?base64?YWxpY2VAZXhhbXBsZS5jb20=?="},
		{"file:///ü/EMAIL_ABC", "file:///ü/alice@example.com", "file:///ü/alice@example.com"},
		{"file:///ü/EMAIL_ABC", "line\nbreak", "=?base64?bGluZQpicmVhaw==?="},
	} {
		if got := encodeLike(c.was, c.v); got != c.want {
			t.Errorf("encodeLike(%q, %q) = %q, want %q", c.was, c.v, got, c.want)
		}
	}
}

// The Base64 sentinel as the transport page's examples write it.
func TestHeaderValueEncoding(t *testing.T) {
	for _, c := range []struct{ value, header string }{
		{"us-west1", "us-west1"},
		{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{" padded ", "=?base64?IHBhZGRlZCA=?="},
		{"line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
		{"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
	} {
		if got := encodeHeaderValue(c.value); got != c.header {
			t.Errorf("encode %q = %q, want %q", c.value, got, c.header)
		}
		if got, ok := decodeHeaderValue(c.header); !ok || got != c.value {
			t.Errorf("decode %q = %q (%v), want %q", c.header, got, ok, c.value)
		}
	}
	for _, bad := range []string{"=?base64?***?=", "=?base64?/w==?=", "a\x01b", "caf\xe9", "a\x7fb"} {
		if _, ok := decodeHeaderValue(bad); ok {
			t.Errorf("decode %q accepted", bad)
		}
	}
}

const mirrorEnvelope = `
policy:
  name: mirror
  audit: true
  hide_denied: true
  allow_tools: ["*"]
  deny_tools: ["delete_*"]
  deny_resources: ["secret://box/*@*"]
  transforms: [pseudonymise]
  vault: {key: "test key, not secret"}
identity:
  principal: [{header: x-mcp-principal}]
gateway: {hold_headers: HOLD}
`

// issuePseudonym has the server return alice@example.com to ann and
// returns the pseudonym she got.
func issuePseudonym(t *testing.T, cfg *Config) string {
	t.Helper()
	return issuePseudonymIn(t, cfg, `{"content":[{"type":"text","text":"alice@example.com"}]}`)
}

// issuePseudonymIn has the server answer a 2026-07-28 tools/call of ann's
// with result and returns the (first) pseudonym she got.
func issuePseudonymIn(t *testing.T, cfg *Config, result string) string {
	t.Helper()
	out := respond(t, cfg, req2026("tools/call", "lookup"), call("1", "tools/call", `{"name":"lookup",`+meta2026+`}`),
		`{"jsonrpc":"2.0","id":1,"result":`+result+`}`)
	p := pseudonymRE.FindString(out)
	if p == "" {
		t.Fatalf("no pseudonym in %s", out)
	}
	return p
}

// When the plugin restores a pseudonym in an argument a tool mirrors into
// an Mcp-Param header, or in a resource URI Mcp-Name mirrors, the header
// is rewritten to match the body that goes upstream (else the server
// refuses the call with -32020). Without hold_headers the headers already
// left: the value is not restored (the body keeps what the header holds)
// and the audit entry says why. A hidden tool's stand-in carries none of
// the arguments, so their headers are removed.
func TestMirroredHeadersFollowRestoration(t *testing.T) {
	for _, hold := range []bool{true, false} {
		cfg, _, lines, _ := wrConfig(t, strings.Replace(mirrorEnvelope, "HOLD", map[bool]string{true: "true", false: "false"}[hold], 1))
		p := issuePseudonym(t, cfg)

		// An argument mirrored in Mcp-Param-Email, another not.
		body := call("2", "tools/call", `{"name":"send","arguments":{"email":"`+p+`","note":"to `+p+`"},`+meta2026+`}`)
		_, r, s := postOnce(cfg, req2026("tools/call", "send", "mcp-param-email", p), body)
		s.Done()
		if r.Reply != nil {
			t.Fatalf("hold %v: refused %s", hold, r.Reply.Body)
		}
		up := string(r.Body)
		if hold {
			if !strings.Contains(up, `"email":"alice@example.com"`) || !setsHeader(r.Set, "mcp-param-email", "alice@example.com") {
				t.Errorf("hold on: upstream %s with headers %v: want the argument restored and its header rewritten", up, r.Set)
			}
		} else {
			if !strings.Contains(up, `"email":"`+p+`"`) || !strings.Contains(up, `"note":"to alice@example.com"`) || len(r.Set) > 0 {
				t.Errorf("hold off: upstream %s with headers %v: want the mirrored argument as sent, the other restored", up, r.Set)
			}
			if last := (*lines)[len(*lines)-1]; !strings.Contains(last, "hold_headers") || strings.Contains(last, "alice") {
				t.Errorf("hold off: audit entry %s does not say why (or holds the value)", last)
			}
		}

		// A URI Mcp-Name mirrors.
		uri := "file:///people/" + p
		_, r, s = postOnce(cfg, req2026("resources/read", uri), call("3", "resources/read", `{"uri":"`+uri+`",`+meta2026+`}`))
		s.Done()
		if r.Reply != nil {
			t.Fatalf("hold %v: read refused %s", hold, r.Reply.Body)
		}
		if hold && !setsHeader(r.Set, "mcp-name", "file:///people/alice@example.com") {
			t.Errorf("hold on: Mcp-Name not rewritten: %v (upstream %s)", r.Set, r.Body)
		}
		if !hold && (r.Body != nil && strings.Contains(string(r.Body), "alice") || len(r.Set) > 0) {
			t.Errorf("hold off: URI restored though Mcp-Name left: %s %v", r.Body, r.Set)
		}

		// A URI hidden once restored: it looks missing under the name the
		// client sent, whoever answers.
		hid := "secret://box/" + p
		_, r, s = postOnce(cfg, req2026("resources/read", hid), call("5", "resources/read", `{"uri":"`+hid+`",`+meta2026+`}`))
		s.Done()
		if hold {
			if r.Reply != nil || !strings.Contains(string(r.Body), standInPrefix) || strings.Contains(string(r.Body)+fmtList(flat(r.Set)), "alice") {
				t.Errorf("hold on: restored hidden URI: reply %+v, body %s, headers %v", r.Reply, r.Body, r.Set)
			}
		} else {
			_, missing := goSDKNotFound2026("5", hid)
			// As the server's own: no x-mcp-privacy header tells it apart.
			if r.Reply == nil || compactJSON(r.Reply.Body) != missing || !r.Reply.AsServer {
				t.Errorf("hold off: restored hidden URI: got %+v, want %s as the server's", r.Reply, missing)
			}
		}

		// A hidden tool's stand-in: the argument headers go (hold on) or
		// the plugin answers as missing (hold off).
		_, r, s = postOnce(cfg, req2026("tools/call", "delete_all", "mcp-param-email", p),
			call("4", "tools/call", `{"name":"delete_all","arguments":{"email":"`+p+`"},`+meta2026+`}`))
		s.Done()
		if hold {
			if r.Reply != nil || !contains(r.Remove, "mcp-param-email") || !strings.Contains(string(r.Body), standInPrefix) {
				t.Errorf("hold on: hidden tool: reply %+v, remove %v, body %s", r.Reply, r.Remove, r.Body)
			}
		} else if r.Reply == nil || r.Reply.Status != 400 || !strings.Contains(string(r.Reply.Body), `"code":-32602`) || !r.Reply.AsServer {
			t.Errorf("hold off: hidden tool: want a local 400 -32602 as the server's, got %+v", r)
		}
	}
}

// No error the plugin passes on carries a value it restored: a server's
// error quoting the restored URI or argument (its not-found, its header
// check, its own text, a plain-text error page) reaches the client with
// the pseudonym the client sent. Results are the output pipeline's.
func TestNoRestoredValueInErrors(t *testing.T) {
	const env = `
policy:
  name: errs
  allow_tools: ["*"]
  allow_resources: ["*"]
  transforms:
    - {type: pseudonymise, options: {detectors: [email], fields: [email]}}
  vault: {key: "test key, not secret"}
identity:
  principal: [{header: x-mcp-principal}]
gateway: {hold_headers: true}
`
	cfg := mustConfig(t, env)
	// Pseudonymised in the field email only: what the output pipeline
	// would not pseudonymise again elsewhere (an error's message).
	p := issuePseudonymIn(t, cfg, `{"content":[],"structuredContent":{"email":"alice@example.com"}}`)
	uri := "file:///people/" + p
	real := "file:///people/alice@example.com"
	read := call("2", "resources/read", `{"uri":"`+uri+`",`+meta2026+`}`)
	tool := call("2", "tools/call", `{"name":"send","arguments":{"to":"`+p+`"},`+meta2026+`}`)
	for _, c := range []struct {
		name, request string
		req           fakeRequest
		status        int
		ct, answer    string
	}{
		{"not found quotes the URI", read, req2026("resources/read", uri), 400, "application/json",
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Resource not found","data":{"uri":"` + real + `"}}}`},
		{"header check quotes the value", read, req2026("resources/read", uri), 400, "application/json",
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32020,"message":"header mismatch: Mcp-Name header value '` + uri + `' does not match body value '` + real + `'"}}`},
		{"error quotes the part", read, req2026("resources/read", uri), 200, "text/event-stream",
			"event: message\ndata: " + `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"no person alice@example.com"}}` + "\n\n"},
		{"tool error quotes the argument", tool, req2026("tools/call", "send"), 200, "application/json",
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"cannot send to alice@example.com"}}`},
		{"plain-text error page", tool, req2026("tools/call", "send"), 400, "text/plain",
			`Bad Request: cannot send to alice@example.com`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, r, s := postOnce(cfg, c.req, c.request)
			if r.Reply != nil {
				t.Fatalf("refused: %s", r.Reply.Body)
			}
			if !strings.Contains(string(r.Body), "alice@example.com") {
				t.Fatalf("nothing restored upstream: %s", r.Body)
			}
			s.OnResponseHeaders(c.status, c.ct, "", false)
			_, edit := s.OnResponseBody(len(c.answer), true, func() []byte { return []byte(c.answer) })
			got := c.answer
			if edit.Replace {
				got = string(edit.Data)
			}
			if strings.Contains(got, "alice") || !strings.Contains(got, p) {
				t.Errorf("client got %s: want the pseudonym %s, not the value", got, p)
			}
		})
	}
}

func flat(kvs [][2]string) []string {
	var out []string
	for _, kv := range kvs {
		out = append(out, kv[0], kv[1])
	}
	return out
}

// The legacy HTTP+SSE transport has no request headers to mirror the
// body: a POST there carrying a 2026 _meta without MCP-Protocol-Version
// (the go-sdk client's server/discover probe) goes to the server, which
// answers as it answers an unknown method; Streamable HTTP refuses it.
func TestLegacyTransportNotHeaderChecked(t *testing.T) {
	cfg := mustConfig(t, rev2026Envelope)
	body := call("1", "server/discover", `{`+meta2026+`}`)
	for _, c := range []struct {
		path string
		ok   bool
	}{{"/mcp?sessionid=abc", true}, {"/mcp", false}} {
		s := NewStream(cfg)
		if h := s.OnRequestHeaders(hdr("x-mcp-principal", "ann", "content-type", "application/json"), "POST", c.path, false); h.Reply != nil {
			t.Fatalf("%s: headers refused %s", c.path, h.Reply.Body)
		}
		r := s.OnRequestBody(len(body), true, func() []byte { return []byte(body) })
		if (r.Reply == nil) != c.ok {
			t.Errorf("%s: reply %+v, want passed %v", c.path, r.Reply, c.ok)
		}
	}
}

// On a 2026-07-28 subscriptions/listen stream, updates of a resource the
// caller may not read are withheld, hidden or visibly denied (the listen
// filter that subscribed to it was never judged); allowed ones pass.
// Under 2025 a visibly denied one's subscribe was refused, and only hidden
// ones' updates are withheld.
func TestListenStreamWithholdsDeniedUpdates(t *testing.T) {
	cfg := mustConfig(t, rev2026Envelope) // secret://* visibly denied
	update := func(uri string) string {
		return "event: message\ndata: " + `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"` + uri +
			`","_meta":{"io.modelcontextprotocol/subscriptionId":1}}}` + "\n\n"
	}
	for _, c := range []struct {
		rev2026 bool
		uri     string
		passes  bool
	}{
		{true, "secret://x", false},
		{true, "file:///ok", true},
		{false, "secret://x", true},
	} {
		req := hdr("x-mcp-principal", "ann", "content-type", "application/json")
		body := call("1", "subscriptions/listen", `{"notifications":{"resourceSubscriptions":["`+c.uri+`"]}}`)
		if c.rev2026 {
			req = req2026("subscriptions/listen", "")
			body = call("1", "subscriptions/listen", `{"notifications":{"resourceSubscriptions":["`+c.uri+`"]},`+meta2026+`}`)
		}
		_, r, s := postOnce(cfg, req, body)
		if r.Reply != nil {
			t.Fatalf("listen refused: %s", r.Reply.Body)
		}
		s.OnResponseHeaders(200, "text/event-stream", "", false)
		ev := update(c.uri)
		_, edit := s.OnResponseBody(len(ev), false, func() []byte { return []byte(ev) })
		got := ev
		if edit.Replace {
			got = string(edit.Data)
		}
		if strings.Contains(got, c.uri) != c.passes {
			t.Errorf("2026 %v, %s: got %q, want passed %v", c.rev2026, c.uri, got, c.passes)
		}
	}
}

// Without hold_headers, a mirrored argument is left as sent when the
// plugin would only restore its pseudonyms (another argument's redaction
// does not change that), and the call is refused as blocked when an
// input step would change the mirrored value itself: its header already
// carried the value upstream, and the body must not say otherwise.
func TestMirroredValueWithoutHeldHeaders(t *testing.T) {
	env := strings.Replace(mirrorEnvelope, "HOLD", "false", 1)
	env = strings.Replace(env, "  transforms: [pseudonymise]\n", "  transforms: [pseudonymise]\n  input_transforms: [{type: redact, options: {detectors: [phone]}}]\n", 1)
	cfg := mustConfig(t, env)
	p := issuePseudonym(t, cfg)
	for _, c := range []struct {
		name, args, header string
		blocked            bool
		want               string // in the upstream body
	}{
		{"restored only, another argument redacted", `{"email":"` + p + `","note":"call +1 415 555 0100"}`, p, false, `"email":"` + p + `"`},
		{"the mirrored value redacted", `{"email":"+1 415 555 0100"}`, "+1 415 555 0100", true, ""},
	} {
		_, r, s := postOnce(cfg, req2026("tools/call", "send", "mcp-param-email", c.header),
			call("2", "tools/call", `{"name":"send","arguments":`+c.args+`,`+meta2026+`}`))
		s.Done()
		if c.blocked {
			if r.Reply == nil || !strings.Contains(string(r.Reply.Body), `"code":-32004`) || strings.Contains(string(r.Reply.Body), "555") {
				t.Errorf("%s: want a -32004 refusal without the value, got %+v", c.name, r)
			}
			continue
		}
		if r.Reply != nil || !strings.Contains(string(r.Body), c.want) || strings.Contains(string(r.Body), "555") {
			t.Errorf("%s: reply %+v, upstream %s", c.name, r.Reply, r.Body)
		}
	}
}
