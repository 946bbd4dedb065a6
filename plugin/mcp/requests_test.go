package mcp

import (
	"encoding/json"
	"mime"
	"net/url"
	"path"
	"strings"
	"testing"
)

// refusal checks that a local reply is status with a JSON-RPC -32600 error
// whose message contains want.
func refusal(t *testing.T, r *LocalReply, status int, want string) {
	t.Helper()
	if r == nil {
		t.Fatalf("no local reply, want %d", status)
	}
	var body struct {
		Error struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || r.Status != status || body.Error.Code != -32600 || !strings.Contains(body.Error.Message, want) {
		t.Fatalf("reply %d %s (%v), want %d, -32600 mentioning %q", r.Status, r.Body, err, status, want)
	}
}

// Request targets that servers read differently are refused wherever one
// reading could be a gateway path, and left alone where none can.
func TestRequestTargets(t *testing.T) {
	cfg := mustConfig(t, testEnvelope) // gateway.paths: /mcp, /mcp/*
	const (
		refused = iota
		inspected
		untouched
	)
	tests := []struct {
		target string
		want   int
		why    string // in the refusal's message
	}{
		// Fragments.
		{"/mcp#x", refused, "fragment"},
		{"/mcp?sessionid=1#x", refused, "fragment"},
		{"/mcp/#/../x", refused, "fragment"},
		{"/other#/../mcp", refused, "fragment"},
		{"/other#x", untouched, ""},
		// Encoded slashes and backslashes, raw backslashes.
		{"/mcp%2F", refused, "encoded slash"},
		{"/mcp%2fx", refused, "encoded slash"},
		{"/x%2F..%2Fmcp", refused, "encoded slash"},
		{"/MCP%2F", refused, "encoded slash"},
		{"/mcp%5C", refused, "encoded slash"},
		{"/mcp%5c", refused, "encoded slash"},
		{"/mcp\\", refused, "backslash"},
		{"/x\\..\\mcp", refused, "backslash"},
		{"/api%2Fv1", untouched, ""},
		{"/api\\v1", untouched, ""},
		// Dots, raw or encoded.
		{"/x/../mcp", refused, "dot segment"},
		{"/mcp/.", refused, "dot segment"},
		{"/./mcp", refused, "dot segment"},
		{"/mcp/..;/x", refused, "dot segment"},
		{"/%2e%2e/mcp", refused, "encoded dot"},
		{"/mcp/%2E", refused, "encoded dot"},
		{"/mcp%2E", refused, "encoded dot"},
		{"/mcp%2E%2E%20", refused, "encoded dot"},
		{"/static/%2e%2e/mcp", refused, "encoded dot"},
		{"/x/../other", untouched, ""},
		{"/mcp/v1.json", inspected, ""}, // a dot in a name is no dot segment
		// A segment ending in a dot: Windows servers (IIS, http.sys) trim
		// it, so /mcp. is their /mcp.
		{"/mcp.", refused, "ending in a dot"},
		{"/MCP./", refused, "ending in a dot"},
		{"/mcp..", refused, "ending in a dot"},
		{"/mcp.;x=1", refused, "ending in a dot"},
		{"/mcp./x", refused, "ending in a dot"},
		{"/x./../mcp", refused, "ending in a dot"},
		{"/other.", untouched, ""},
		{"/mcp.json", untouched, ""},
		// Double encoding.
		{"/mcp%252F", refused, "encoded twice"},
		{"/%256Dcp", refused, "encoded twice"},
		{"/x%252F..%252Fmcp", refused, "encoded twice"},
		{"/api%2525", untouched, ""},
		// NUL and control characters, raw or encoded.
		{"/mcp%00", refused, "control"},
		{"/mcp%00.json", refused, "control"},
		{"/mc%0Ap", refused, "control"},
		{"/mcp\x00", refused, "control"},
		{"/mc\tp", refused, "control"},
		{"/mcp%20", refused, "control"},
		{"/other%00", untouched, ""},
		// Non-ASCII, raw or encoded: overlong UTF-8, fullwidth forms.
		{"/mcp%C0%AF", refused, "non-ASCII"},
		{"/x%C0%AF..%C0%AFmcp", refused, "non-ASCII"},
		{"/\xef\xbd\x8dcp", refused, "non-ASCII"},
		{"/%EF%BD%8Dcp", refused, "non-ASCII"},
		{"/mcp/caf%C3%A9", refused, "non-ASCII"},
		{"/m\u200bcp", refused, "non-ASCII"},
		{"/other/caf%C3%A9", untouched, ""},
		// Encoded delimiters, malformed escapes.
		{"/mcp%3Bx=1", refused, "delimiter"},
		{"/mcp%3F", refused, "delimiter"},
		{"/mcp%23", refused, "delimiter"},
		{"/mcp/%zz", refused, "malformed"},
		{"/mcp/%4", refused, "malformed"},
		{"/other%zz", untouched, ""},
		{"/mcp%u002f", refused, "malformed"},
		{"/x%u002F..%u002Fmcp", refused, "malformed"},
		{"/mcp%", refused, "malformed"},
		{"/mc%p", refused, "malformed"},
		{"/%uFF4Dcp", refused, "malformed"},
		// Not a path.
		{"http://h/mcp", refused, "not a path"},
		{"mcp", refused, "not a path"},
		{"*", untouched, ""},
		// Plain paths, read alike by every server: matched normalised.
		{"/mcp", inspected, ""},
		{"//mcp", inspected, ""},
		{"/mcp;x=1", inspected, ""},
		{"/mc%70", inspected, ""},
		{"/MCP", inspected, ""},
		{"/mcp/v1?x=%2F#", refused, "fragment"},
		{"/mcp/v1?x=%2F", inspected, ""}, // the query is not the path
		{"/mcpx", untouched, ""},
	}
	for _, tc := range tests {
		for _, method := range []string{"POST", "GET"} {
			s := NewStream(cfg)
			r := s.OnRequestHeaders(hdr(), method, tc.target, method == "GET")
			switch tc.want {
			case refused:
				if !s.inspect || !s.replied {
					t.Errorf("%s %q: not refused (inspected %v)", method, tc.target, s.inspect)
					continue
				}
				refusal(t, r.Reply, 400, tc.why)
				if b := s.OnRequestBody(10, true, func() []byte { return []byte(call("1", "tools/call", `{"name":"search"}`)) }); b.Reply != nil || b.Action != Continue {
					t.Errorf("%s %q: the refused request's body was judged: %+v", method, tc.target, b)
				}
			case inspected:
				if !s.inspect || r.Reply != nil {
					t.Errorf("%s %q: inspected %v, reply %+v; want inspected", method, tc.target, s.inspect, r.Reply)
				}
			case untouched:
				if s.inspect || r.Reply != nil || len(r.Remove)+len(r.Set) > 0 {
					t.Errorf("%s %q: touched a request outside gateway.paths: inspected %v, %+v", method, tc.target, s.inspect, r)
				}
			}
		}
	}
}

// Only application/json in UTF-8, declared once, is taken for a body to
// judge; any other declaration a server might decode differently is 415.
func TestRequestContentType(t *testing.T) {
	cfg := mustConfig(t, testEnvelope)
	tests := []struct {
		values []string
		why    string // "" accepted
	}{
		{nil, ""},
		{[]string{"application/json"}, ""},
		{[]string{"Application/JSON"}, ""},
		{[]string{"application/json; charset=utf-8"}, ""},
		{[]string{`application/json;charset="UTF-8"`}, ""},
		{[]string{" application/json ; charset=Utf-8 "}, ""},
		// Other charsets: Express decodes them all.
		{[]string{"application/json; charset=utf-7"}, "charset"},
		{[]string{"application/json; charset=UTF-16"}, "charset"},
		{[]string{"application/json; charset=utf-16le"}, "charset"},
		{[]string{"application/json; charset=utf-32"}, "charset"},
		{[]string{"application/json; charset=iso-8859-1"}, "charset"},
		{[]string{"application/json; charset=utf8"}, "charset"},
		{[]string{`application/json; charset="utf-7"`}, "charset"},
		{[]string{"application/json; charset="}, "charset"},
		{[]string{"application/json; charset=utf-8; charset=utf-7"}, "second charset"},
		// Other parameters, malformed parameters.
		{[]string{"application/json; boundary=x"}, "parameter"},
		{[]string{"application/json; charset=utf-8; q=1"}, "parameter"},
		{[]string{"application/json;"}, "malformed"},
		{[]string{"application/json; charset"}, "malformed"},
		{[]string{"application/json; =utf-8"}, "malformed"},
		// Two media types, two headers.
		{[]string{"application/json, text/plain"}, "more than one media type"},
		{[]string{"application/json;charset=utf-8,application/json;charset=utf-7"}, "more than one media type"},
		{[]string{"application/json", "application/json; charset=utf-7"}, "more than one content-type"},
		{[]string{"application/json", "application/json"}, "more than one content-type"},
		// Other media types body parsers may still decode.
		{[]string{"text/plain"}, "not application/json"},
		{[]string{"text/json"}, "not application/json"},
		{[]string{"application/json-rpc"}, "not application/json"},
		{[]string{"application/vnd.api+json"}, "not application/json"},
		{[]string{"application/x-www-form-urlencoded"}, "not application/json"},
		{[]string{"multipart/form-data; boundary=x"}, "not application/json"},
		{[]string{"*/*"}, "not application/json"},
		{[]string{""}, "not application/json"},
	}
	for _, tc := range tests {
		req := hdr("x-mcp-principal", "alice")
		if len(tc.values) > 0 {
			req.headers["content-type"] = tc.values[0]
			req.extra = map[string][]string{"content-type": tc.values[1:]}
		}
		for _, method := range []string{"POST", "PUT"} {
			s := NewStream(cfg)
			r := s.OnRequestHeaders(req, method, "/mcp", false)
			if tc.why == "" {
				if r.Reply != nil {
					t.Errorf("%s %q: refused: %s", method, tc.values, r.Reply.Body)
				}
				continue
			}
			refusal(t, r.Reply, 415, tc.why)
			if !strings.Contains(string(r.Reply.Body), "Unsupported Media Type") {
				t.Errorf("%q: %s", tc.values, r.Reply.Body)
			}
		}
	}
	// Bodiless methods carry no body to decode: their content-type is not
	// judged.
	req := hdr("content-type", "application/json; charset=utf-7")
	if r := NewStream(cfg).OnRequestHeaders(req, "GET", "/mcp", true); r.Reply != nil {
		t.Errorf("GET refused for its content-type: %s", r.Reply.Body)
	}
}

// A body on GET, HEAD, DELETE or OPTIONS is refused, announced by headers
// or not; without one those requests go on at once; a body on any other
// method is judged as a POST's.
func TestBodyOnBodilessMethods(t *testing.T) {
	cfg := mustConfig(t, testEnvelope)
	denied := call("1", "tools/call", `{"name":"delete_user"}`)
	for _, method := range []string{"GET", "HEAD", "DELETE", "OPTIONS"} {
		for _, announced := range []fakeRequest{hdr("content-length", "12"), hdr("transfer-encoding", "chunked"), hdr("content-length", " 1 ")} {
			s := NewStream(cfg)
			r := s.OnRequestHeaders(announced, method, "/mcp", false)
			refusal(t, r.Reply, 400, "must not carry a body")
		}
		// Not announced (chunked, HTTP/2): refused at the first data.
		// Under hold_headers (testEnvelope) the headers wait for it.
		for _, chunks := range [][]int{{len(denied)}, {0, 5}} {
			s := NewStream(cfg)
			r := s.OnRequestHeaders(hdr(), method, "/mcp", false)
			if r.Reply != nil || r.Action != Pause {
				t.Fatalf("%s without a declared body, end of stream not yet seen: %+v, want headers held", method, r)
			}
			var b BodyResult
			for i, n := range chunks {
				b = s.OnRequestBody(n, i == len(chunks)-1, func() []byte { return []byte(denied[:n]) })
				if n == 0 && (b.Reply != nil || b.Action != Continue) {
					t.Fatalf("%s: an empty body callback: %+v", method, b)
				}
			}
			refusal(t, b.Reply, 400, "must not carry a body")
		}
		// No body: nothing paused (a GET stream lives as long as the
		// session), nothing refused; without hold_headers nothing is
		// paused even before the end of stream is seen.
		noHold := mustConfig(t, `{"policy": {"deny_tools": ["delete_*"]}}`)
		for _, c := range []*Config{cfg, noHold} {
			for _, req := range []fakeRequest{hdr(), hdr("content-length", "0")} {
				s := NewStream(c)
				if r := s.OnRequestHeaders(req, method, "/mcp", true); r.Reply != nil || r.Action != Continue {
					t.Errorf("%s without a body: %+v", method, r)
				}
				if b := s.OnRequestBody(0, true, func() []byte { return nil }); b.Reply != nil || b.Action != Continue {
					t.Errorf("%s: end of an empty body: %+v", method, b)
				}
			}
			s := NewStream(c)
			if r := s.OnRequestHeaders(hdr(), method, "/mcp", false); r.Reply != nil || r.Action != map[bool]Action{true: Pause, false: Continue}[c.Env.Gateway.HoldHeaders] {
				t.Errorf("%s, end of stream not yet seen (hold_headers %v): %+v", method, c.Env.Gateway.HoldHeaders, r)
			}
			if b := s.OnRequestBody(0, true, func() []byte { return nil }); b.Reply != nil || b.Action != Continue {
				t.Errorf("%s: end of an empty body: %+v", method, b)
			}
		}
		// Outside gateway.paths: untouched.
		s := NewStream(cfg)
		if r := s.OnRequestHeaders(hdr("content-length", "12"), method, "/other", false); r.Reply != nil {
			t.Errorf("%s /other refused", method)
		}
		if b := s.OnRequestBody(12, true, func() []byte { return []byte(denied) }); b.Reply != nil {
			t.Errorf("%s /other: body refused", method)
		}
	}
	for _, method := range []string{"PATCH", "PROPFIND", "QUERY"} {
		s := NewStream(cfg)
		if r := s.OnRequestHeaders(hdr("x-mcp-principal", "alice"), method, "/mcp", false); r.Reply != nil {
			t.Fatalf("%s: %s", method, r.Reply.Body)
		}
		b := s.OnRequestBody(len(denied), true, func() []byte { return []byte(denied) })
		// Judged: the hidden tool's call goes upstream as its stand-in
		// (hidden_test.go), never as sent.
		if b.Reply != nil || !strings.Contains(string(b.Body), standInPrefix) || strings.Contains(string(b.Body), "delete_user") {
			t.Errorf("%s body not judged: reply %+v, forwarded %q", method, b.Reply, b.Body)
		}
	}
}

// FuzzRequestTarget checks the target rule against an independent reading
// (net/url's decoding, path.Clean): a target that some such reading routes
// to a gateway path is inspected, and refused when servers could read it
// differently; a target taken as plain decodes to the same segments.
func FuzzRequestTarget(f *testing.F) {
	for _, s := range []string{"/mcp", "/mcp#x", "/mcp%2F", "/x/../mcp", "/%2e%2e/mcp", "/mcp%252F", "/mcp%00",
		"/mcp\\", "/MCP;x=1", "//mcp/", "/mc%70?a=%2F", "http://h/mcp", "/\xef\xbd\x8dcp", "/mcp%C0%AF"} {
		f.Add(s)
	}
	cfg, errs := NewConfig([]byte(`{"policy": "standard"}`), nil) // gateway.paths: /mcp, /mcp/*
	if len(errs) > 0 {
		f.Fatal(errs)
	}
	gateway := func(p string) bool {
		p = strings.ToLower(p)
		return p == "/mcp" || strings.HasPrefix(p, "/mcp/")
	}
	f.Fuzz(func(t *testing.T, target string) {
		s := NewStream(cfg)
		s.OnRequestHeaders(hdr(), "GET", target, true)
		ambiguity := targetAmbiguity(target)
		p, _, _ := strings.Cut(target, "?")
		readings := []string{p}
		for _, r := range []string{p, strings.ReplaceAll(p, "\\", "/"), strings.SplitN(p, "#", 2)[0]} {
			if once, err := url.PathUnescape(r); err == nil {
				readings = append(readings, once, strings.ReplaceAll(once, "\\", "/"))
				if twice, err := url.PathUnescape(once); err == nil {
					readings = append(readings, twice)
				}
			}
		}
		for _, r := range readings {
			if !strings.HasPrefix(r, "/") {
				continue
			}
			if c := path.Clean(r); gateway(c) || gateway(c+"/") && strings.HasSuffix(r, "/") {
				if !s.inspect {
					t.Fatalf("%q reads as %q (from %q) but was not inspected", target, c, r)
				}
			}
		}
		if ambiguity != "" {
			if s.inspect && !s.replied {
				t.Fatalf("%q (%s) inspected but not refused", target, ambiguity)
			}
			return
		}
		if s.replied {
			t.Fatalf("plain %q refused", target)
		}
		if strings.ContainsAny(p, "\\") || strings.Contains(target, "#") {
			t.Fatalf("%q taken as plain", target)
		}
		if target == "*" {
			return
		}
		dec, err := url.PathUnescape(p)
		if err != nil || strings.Count(dec, "/") != strings.Count(p, "/") || strings.Count(dec, ";") != strings.Count(p, ";") || strings.ContainsAny(dec, "\\#?%") {
			t.Fatalf("plain %q decodes to %q (%v)", target, dec, err)
		}
		for _, seg := range strings.Split(dec, "/") {
			if seg == "." || seg == ".." {
				t.Fatalf("plain %q has a dot segment", target)
			}
			for i := 0; i < len(seg); i++ {
				if seg[i] < 0x21 || seg[i] >= 0x7f {
					t.Fatalf("plain %q decodes to a control or non-ASCII byte", target)
				}
			}
		}
	})
}

// FuzzContentType checks the content-type rule against mime's parser: an
// accepted value is one media type, application/json, with no parameter
// but charset=utf-8.
func FuzzContentType(f *testing.F) {
	for _, s := range []string{"application/json", "application/json; charset=utf-8", "application/json; charset=utf-7",
		`application/json;charset="utf-8"`, "text/plain", "application/json, text/plain", "application/json; a=b", ""} {
		f.Add(s, "")
	}
	f.Add("application/json", "application/json")
	f.Fuzz(func(t *testing.T, a, b string) {
		values := []string{a}
		if b != "" {
			values = append(values, b)
		}
		why := contentTypeProblem(values)
		if why != "" {
			return
		}
		if len(values) > 1 {
			t.Fatalf("%q accepted", values)
		}
		mt, params, err := mime.ParseMediaType(a)
		if err != nil || mt != "application/json" || len(params) > 1 || len(params) == 1 && !strings.EqualFold(params["charset"], "utf-8") {
			t.Fatalf("%q accepted; mime reads %q %v (%v)", a, mt, params, err)
		}
	})
}

// Routers that ignore a trailing slash (Express, whose createMcpExpressApp
// the TypeScript SDK's servers use, Spring's PathPattern, ASP.NET Core)
// route /mcp/ to a /mcp route and /rpc to a /rpc/ route: with
// gateway.paths ["/mcp"], /mcp/ carried a denied call to such a server
// uninspected.
func TestTrailingSlashIsTheSamePath(t *testing.T) {
	cfg := mustConfig(t, `{"policy": {"hide_denied": false, "deny_tools": ["delete_*"]}, "gateway": {"paths": ["/mcp", "/rpc/"]}}`)
	denied := call("1", "tools/call", `{"name":"delete_user"}`)
	tests := []struct {
		target    string
		inspected bool
	}{
		{"/mcp", true},
		{"/mcp/", true},
		{"/MCP/", true},
		{"/mcp//", true},
		{"//mcp/", true},
		{"/mcp;x=1/", true},
		{"/mcp/?x=1", true},
		{"/mc%70/", true},
		{"/rpc/", true},
		{"/rpc", true},
		{"/RPC", true},
		{"/rpc?x=1", true},
		// Not the same path to any router.
		{"/mcp/x", false},
		{"/mcpx/", false},
		{"/rpcx", false},
		{"/", false},
	}
	for _, tc := range tests {
		s := NewStream(cfg)
		r := s.OnRequestHeaders(hdr(), "POST", tc.target, false)
		if s.inspect != tc.inspected {
			t.Errorf("POST %q: inspected %v, want %v", tc.target, s.inspect, tc.inspected)
			continue
		}
		b := s.OnRequestBody(len(denied), true, func() []byte { return []byte(denied) })
		if tc.inspected && (r.Reply != nil || b.Reply == nil || !strings.Contains(string(b.Reply.Body), `"code":-32003`)) {
			t.Errorf("POST %q: the denied call was not judged: %+v %+v", tc.target, r, b)
		}
	}
	// An ambiguous target with a trailing slash is refused the same way.
	s := NewStream(cfg)
	refusal(t, s.OnRequestHeaders(hdr(), "POST", "/x/../mcp/", false).Reply, 400, "dot segment")
}

// Every content-encoding a request carries is checked, not the first: a
// server given identity and gzip may decode either.
func TestEveryContentEncodingChecked(t *testing.T) {
	cfg := mustConfig(t, testEnvelope)
	for _, values := range [][]string{
		{"identity", "gzip"},
		{"Identity", "br"},
		{"identity", ""},
		{"gzip", "identity"},
		{"identity, gzip"},
	} {
		req := hdr("x-mcp-principal", "ann", "content-encoding", values[0])
		req.extra = map[string][]string{"content-encoding": values[1:]}
		r := NewStream(cfg).OnRequestHeaders(req, "POST", "/mcp", false)
		if r.Reply == nil || r.Reply.Status != 415 || !strings.Contains(string(r.Reply.Body), "compressed") {
			t.Errorf("content-encoding %q: %+v, want 415", values, r.Reply)
		}
	}
	for _, values := range [][]string{{"identity"}, {"identity", "IDENTITY"}} {
		req := hdr("x-mcp-principal", "ann", "content-encoding", values[0])
		req.extra = map[string][]string{"content-encoding": values[1:]}
		if r := NewStream(cfg).OnRequestHeaders(req, "POST", "/mcp", false); r.Reply != nil {
			t.Errorf("content-encoding %q refused: %s", values, r.Reply.Body)
		}
	}
}
