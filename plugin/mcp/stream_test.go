package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/policy"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// fakeRequest is a request's headers and Envoy properties. extra holds
// further values of repeated headers, after the one in headers.
type fakeRequest struct {
	headers map[string]string
	props   map[string][]byte
	extra   map[string][]string
}

func (f fakeRequest) Header(name string) (string, bool) {
	v, ok := f.headers[name]
	return v, ok
}

func (f fakeRequest) HeaderValues(name string) []string {
	v, ok := f.headers[name]
	if !ok {
		return nil
	}
	return append([]string{v}, f.extra[name]...)
}

func (f fakeRequest) Headers() [][2]string {
	var out [][2]string
	for k, v := range f.headers {
		out = append(out, [2]string{strings.ToLower(k), v})
		for _, x := range f.extra[k] {
			out = append(out, [2]string{strings.ToLower(k), x})
		}
	}
	return out
}

func (f fakeRequest) Property(path ...string) ([]byte, bool) {
	v, ok := f.props[strings.Join(path, "/")]
	return v, ok
}

func hdr(kv ...string) fakeRequest {
	f := fakeRequest{headers: map[string]string{}, props: map[string][]byte{}}
	for i := 0; i+1 < len(kv); i += 2 {
		f.headers[kv[i]] = kv[i+1]
	}
	return f
}

const testEnvelope = `
policy:
  name: test
  hide_denied: true
  deny_tools: ["delete_*"]
  deny_resources: ["cloudg://assets/{+ref}"]
  roles:
    admin: {allow_tools: ["delete_*"]}
  rules:
    - name: visible-export
      match: {names: ["export_*"]}
      deny_tools: ["export_*"]
server:
  primitives:
    - match: {kinds: [resource_template], names: ["cloudg://assets/{+ref}", "users://{id}/profile"]}
identity:
  principal: [{header: x-mcp-principal}]
  roles: [{header: x-mcp-roles}]
gateway:
  hold_headers: true
  export_headers: {principal: x-export-principal, primitive: x-export-primitive, decision: x-export-decision, rule: x-export-rule, method: x-export-method}
`

func mustConfig(t *testing.T, src string) *Config {
	t.Helper()
	cfg, errs := NewConfig([]byte(src), nil)
	if len(errs) > 0 {
		t.Fatalf("config: %v", errs)
	}
	return cfg
}

// post runs a POST body through a fresh stream and returns the body result.
func post(t *testing.T, cfg *Config, req fakeRequest, body string) (*Stream, BodyResult) {
	t.Helper()
	s := NewStream(cfg)
	h := s.OnRequestHeaders(req, "POST", "/mcp", false)
	if h.Reply != nil {
		t.Fatalf("headers answered locally: %d %s", h.Reply.Status, h.Reply.Body)
	}
	if want := map[bool]Action{true: Pause, false: Continue}[cfg.Env.Gateway.HoldHeaders]; h.Action != want {
		t.Fatalf("POST headers: action %v, want %v (hold_headers %v)", h.Action, want, cfg.Env.Gateway.HoldHeaders)
	}
	if r := s.OnRequestBody(len(body)/2, false, nil); r.Action != Pause {
		t.Fatal("partial body not buffered")
	}
	return s, s.OnRequestBody(len(body), true, func() []byte { return []byte(body) })
}

func call(id, method, params string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`
}

func TestRequestJudgement(t *testing.T) {
	cfg := mustConfig(t, testEnvelope)
	alice := hdr("x-mcp-principal", "alice")
	admin := hdr("x-mcp-principal", "root", "x-mcp-roles", "admin")
	tests := []struct {
		name    string
		req     fakeRequest
		body    string
		wantFwd bool   // forwarded upstream unchanged
		want    string // the local reply body when not forwarded
		// standIn is the body forwarded instead of a hidden primitive's
		// request (hidden.go): the server is to answer it.
		standIn string
	}{
		{name: "allowed tool", req: alice, body: call("1", "tools/call", `{"name":"search","arguments":{"q":"x"}}`), wantFwd: true},
		{name: "hidden tool", req: alice, body: call("2", "tools/call", `{"name":"delete_user","arguments":{"id":"u-1"},"_meta":{"x":1}}`),
			standIn: call("2", "tools/call", `{"name":`+jsondoc.Quote(cfg.standIn(policy.KindTool, "delete_user"))+`,"arguments":{}}`)},
		{name: "role grant", req: admin, body: call("3", "tools/call", `{"name":"delete_user"}`), wantFwd: true},
		{name: "string id kept", req: alice, body: call(`"a-1"`, "tools/call", `{"name":"delete_x"}`),
			standIn: call(`"a-1"`, "tools/call", `{"name":`+jsondoc.Quote(cfg.standIn(policy.KindTool, "delete_x"))+`}`)},
		{name: "concrete URI judged by its template", req: alice, body: call("4", "resources/read", `{"uri":"cloudg://assets/arn:aws:s3:::payroll"}`),
			standIn: call("4", "resources/read", `{"uri":`+jsondoc.Quote(cfg.standIn(policy.KindResource, "cloudg://assets/arn:aws:s3:::payroll"))+`}`)},
		{name: "other template allowed", req: alice, body: call("5", "resources/read", `{"uri":"users://7/profile"}`), wantFwd: true},
		{name: "subscribe judged too", req: alice, body: call("6", "resources/subscribe", `{"uri":"cloudg://assets/x"}`),
			standIn: call("6", "resources/subscribe", `{"uri":`+jsondoc.Quote(cfg.standIn(policy.KindResource, "cloudg://assets/x"))+`}`)},
		{name: "completion judged as its prompt ref", req: alice, body: call("7", "completion/complete", `{"ref":{"type":"ref/resource","uri":"cloudg://assets/{+ref}"},"argument":{"name":"ref","value":"a"},"context":{"arguments":{"x":"y"}}}`),
			standIn: call("7", "completion/complete", `{"ref":{"type":"ref/resource","uri":`+jsondoc.Quote(cfg.standIn(policy.KindResource, "cloudg://assets/{+ref}"))+`},"argument":{"name":"ref","value":""}}`)},
		{name: "list passes", req: alice, body: call("8", "tools/list", `{}`), wantFwd: true},
		{name: "notification passes", req: alice, body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, wantFwd: true},
		{name: "client response passes", req: alice, body: `{"jsonrpc":"2.0","id":"s1","result":{"action":"accept"}}`, wantFwd: true},
		{name: "tools/call without a name", req: alice, body: call("9", "tools/call", `{"arguments":{}}`),
			want: `{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Invalid params: params.name must be a non-empty string"}}`},
		{name: "tools/call with a non-string name", req: alice, body: call("10", "tools/call", `{"name":["delete_user"]}`),
			want: `{"jsonrpc":"2.0","id":10,"error":{"code":-32602,"message":"Invalid params: params.name must be a non-empty string"}}`},
		{name: "name with escapes decoded before judging", req: alice, body: call("11", "tools/call", `{"name":"delete\u005fuser"}`),
			standIn: call("11", "tools/call", `{"name":`+jsondoc.Quote(cfg.standIn(policy.KindTool, "delete_user"))+`}`)},
		{name: "wrong jsonrpc version", req: alice, body: `{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"delete_user"}}`,
			want: `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: jsonrpc must be \"2.0\""}}`},
		{name: "null id request", req: alice, body: `{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"search"}}`,
			want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: request id must not be null"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, r := post(t, cfg, tc.req, tc.body)
			if tc.wantFwd {
				if r.Reply != nil {
					t.Fatalf("answered locally: %s", r.Reply.Body)
				}
				if r.Body != nil {
					t.Errorf("forwarded a rewritten body %s for an unchanged message", r.Body)
				}
				return
			}
			if tc.standIn != "" {
				if r.Reply != nil || compactJSON(r.Body) != tc.standIn {
					t.Fatalf("reply %v, forwarded %s\nwant forwarded %s", r.Reply, r.Body, tc.standIn)
				}
				return
			}
			if r.Reply == nil {
				t.Fatal("forwarded; want a local reply")
			}
			if r.Reply.Status != 200 || string(r.Reply.Body) != tc.want {
				t.Errorf("reply %d %s\nwant 200 %s", r.Reply.Status, r.Reply.Body, tc.want)
			}
			if !json.Valid(r.Reply.Body) {
				t.Error("reply is not JSON")
			}
			if !s.replied {
				t.Error("stream not marked as answered locally")
			}
		})
	}
}

func TestVisibleDenial(t *testing.T) {
	cfg := mustConfig(t, strings.Replace(testEnvelope, "hide_denied: true", "hide_denied: false", 1))
	_, r := post(t, cfg, hdr("x-mcp-principal", "bob"), call("1", "tools/call", `{"name":"export_all"}`))
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"Access denied","data":{"policy":"test","rule":"visible-export","reason":"tool \"export_all\" is denied by rule \"visible-export\" (deny_tools)","kind":"tool","name":"export_all"}}}`
	if r.Reply == nil || string(r.Reply.Body) != want {
		t.Fatalf("got %+v\nwant %s", r.Reply, want)
	}
	if got := r.Set; !reflect.DeepEqual(got, [][2]string{
		{"x-export-principal", "bob"}, {"x-export-primitive", "export_all"},
		{"x-export-decision", "deny"}, {"x-export-rule", "visible-export"}, {"x-export-method", "tools/call"},
	}) {
		t.Errorf("export headers %v", got)
	}
}

// Bodies JSON parsers could read differently never reach the server.
func TestHostileBodies(t *testing.T) {
	cfg := mustConfig(t, testEnvelope)
	deep := strings.Repeat(`{"a":`, 65) + "1" + strings.Repeat("}", 65)
	tests := []struct {
		name, body string
		code       int
	}{
		{"duplicate name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","name":"delete_user"}}`, -32600},
		{"duplicate method", `{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call","params":{"name":"delete_user"}}`, -32600},
		{"case-folded params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search"},"Params":{"name":"delete_user"}}`, -32600},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"delete_\xffuser\"}}", -32600},
		{"lone surrogate", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_user\ud800"}}`, -32600},
		{"too deep", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":` + deep + `}}`, -32600},
		{"trailing data", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search"}}{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_user"}}`, -32600},
		{"not JSON", `{"jsonrpc":"2.0",`, -32700},
		{"empty batch", `[]`, -32600},
		{"scalar", `42`, -32600},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, r := post(t, cfg, hdr("x-mcp-principal", "alice"), tc.body)
			if r.Reply == nil {
				t.Fatalf("forwarded a hostile body (replacement %q)", r.Body)
			}
			var got struct {
				ID    any
				Error struct{ Code int }
			}
			if err := json.Unmarshal(r.Reply.Body, &got); err != nil {
				t.Fatalf("reply %s: %v", r.Reply.Body, err)
			}
			if got.Error.Code != tc.code || got.ID != nil {
				t.Errorf("reply %s, want code %d with id null", r.Reply.Body, tc.code)
			}
		})
	}
}

func TestBatch(t *testing.T) {
	cfg := mustConfig(t, testEnvelope)
	// An element answered locally (invalid params) and one the server answers.
	invalid := func(id string) string { return call(id, "tools/call", `{"name":""}`) }
	invalidAnswer := `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: params.name must be a non-empty string"}}`
	body := `[` + call("1", "tools/call", `{"name":"search"}`) + `,` + invalid("2") + `,{"jsonrpc":"2.0","method":"notifications/x"}]`
	s, r := post(t, cfg, hdr("x-mcp-principal", "alice"), body)
	if r.Reply != nil {
		t.Fatalf("answered locally: %s", r.Reply.Body)
	}
	wantFwd := `[` + call("1", "tools/call", `{"name":"search"}`) + `,{"jsonrpc":"2.0","method":"notifications/x"}]`
	if string(r.Body) != wantFwd {
		t.Errorf("forwarded %s\nwant %s", r.Body, wantFwd)
	}
	h := s.OnResponseHeaders(200, "application/json", "", false)
	if h.Reply != nil || !reflect.DeepEqual(h.Remove, []string{"content-length"}) {
		t.Fatalf("response headers %+v", h)
	}
	if a, _ := s.OnResponseBody(10, false, nil); a != Pause {
		t.Fatal("batch response not buffered")
	}
	_, merged := s.OnResponseBody(40, true, func() []byte { return []byte(`[{"jsonrpc":"2.0","id":1,"result":{}}]`) })
	want := `[{"jsonrpc":"2.0","id":1,"result":{}},` + invalidAnswer + `]`
	if !merged.Replace || string(merged.Data) != want {
		t.Errorf("merged %s\nwant %s", merged.Data, want)
	}

	// All denied: answered locally as an array.
	_, r = post(t, cfg, hdr("x-mcp-principal", "alice"), `[`+invalid("1")+`,`+invalid("2")+`]`)
	if r.Reply == nil || !strings.HasPrefix(string(r.Reply.Body), `[{"jsonrpc":"2.0","id":1,"error"`) {
		t.Fatalf("all-denied batch: %+v", r)
	}

	// Only notifications went upstream: the 202 becomes our answers.
	s, _ = post(t, cfg, hdr("x-mcp-principal", "alice"), `[`+invalid("1")+`,{"jsonrpc":"2.0","method":"notifications/x"}]`)
	h = s.OnResponseHeaders(202, "", "", true)
	if h.Reply == nil || h.Reply.Status != 200 || !strings.Contains(string(h.Reply.Body), "Invalid params") {
		t.Fatalf("202 not replaced by the local answers: %+v", h)
	}

	// Event-stream responses get the answers as events at the end.
	s, _ = post(t, cfg, hdr("x-mcp-principal", "alice"), body)
	s.OnResponseHeaders(200, "text/event-stream", "", false)
	if a, edit := s.OnResponseBody(5, false, func() []byte { return []byte("data:") }); a != Continue || !edit.Replace || len(edit.Data) != 0 {
		t.Fatalf("incomplete event not held: %v %+v", a, edit)
	}
	// (An event that is not JSON-RPC would be dropped: manual 16.)
	_, edit := s.OnResponseBody(5, true, func() []byte { return []byte(` {"jsonrpc":"2.0","method":"n"}` + "\n\n") })
	want = "data: {\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n\nevent: message\ndata: " + invalidAnswer + "\n\n"
	if string(edit.Data) != want {
		t.Errorf("event stream end %q\nwant %q", edit.Data, want)
	}

	// A hidden element goes upstream as its stand-in (hidden.go), in place.
	_, r = post(t, cfg, hdr("x-mcp-principal", "alice"), `[`+call("1", "tools/call", `{"name":"search"}`)+`,`+call("2", "tools/call", `{"name":"delete_user","arguments":{"id":"u"}}`)+`]`)
	wantFwd = `[` + call("1", "tools/call", `{"name":"search"}`) + `,` + call("2", "tools/call", `{"name":`+jsondoc.Quote(cfg.standIn(policy.KindTool, "delete_user"))+`,"arguments":{}}`) + `]`
	if r.Reply != nil || compactJSON(r.Body) != wantFwd {
		t.Errorf("batch with a hidden element: reply %v, forwarded %s\nwant %s", r.Reply, r.Body, wantFwd)
	}
}

func TestRequestHeaders(t *testing.T) {
	cfg := mustConfig(t, testEnvelope)
	tests := []struct {
		name       string
		method     string
		path       string
		req        fakeRequest
		end        bool
		wantStatus int // 0: no local reply
		wantAction Action
		inspected  bool
	}{
		{name: "other path untouched", method: "POST", path: "/health", req: hdr(), inspected: false},
		{name: "percent-encoded path", method: "POST", path: "/mc%70", req: hdr(), wantAction: Pause, inspected: true},
		{name: "dot segments refused", method: "POST", path: "/x/../mcp", req: hdr(), wantStatus: 400, inspected: true},
		{name: "double slash", method: "POST", path: "//mcp", req: hdr(), wantAction: Pause, inspected: true},
		{name: "upper case (case-insensitive routers)", method: "POST", path: "/MCP", req: hdr(), wantAction: Pause, inspected: true},
		{name: "mixed case, trailing slash", method: "POST", path: "/Mcp/", req: hdr(), wantAction: Pause, inspected: true},
		{name: "segment parameters", method: "POST", path: "/mcp;x=1", req: hdr(), wantAction: Pause, inspected: true},
		{name: "PUT judged like POST", method: "PUT", path: "/mcp", req: hdr(), wantAction: Pause, inspected: true},
		{name: "prefix is not the path", method: "POST", path: "/mcpx", req: hdr(), inspected: false},
		{name: "query ignored", method: "POST", path: "/mcp?session=1", req: hdr(), wantAction: Pause, inspected: true},
		{name: "subpath", method: "POST", path: "/mcp/v1", req: hdr(), wantAction: Pause, inspected: true},
		{name: "GET stream not paused", method: "GET", path: "/mcp", req: hdr(), end: true, inspected: true},
		{name: "DELETE not paused", method: "DELETE", path: "/mcp", req: hdr(), end: true, inspected: true},
		{name: "compressed body", method: "POST", path: "/mcp", req: hdr("content-encoding", "gzip"), wantStatus: 415, inspected: true},
		{name: "identity encoding is fine", method: "POST", path: "/mcp", req: hdr("content-encoding", "identity"), wantAction: Pause, inspected: true},
		{name: "declared too large", method: "POST", path: "/mcp", req: hdr("content-length", "1048577"), wantStatus: 413, inspected: true},
		{name: "empty POST", method: "POST", path: "/mcp", req: hdr(), end: true, wantStatus: 400, inspected: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStream(cfg)
			r := s.OnRequestHeaders(tc.req, tc.method, tc.path, tc.end)
			if s.inspect != tc.inspected {
				t.Errorf("inspected = %v", s.inspect)
			}
			switch {
			case tc.wantStatus != 0:
				if r.Reply == nil || r.Reply.Status != tc.wantStatus || !json.Valid(r.Reply.Body) {
					t.Fatalf("reply %+v, want status %d with a JSON-RPC body", r.Reply, tc.wantStatus)
				}
			case r.Reply != nil:
				t.Fatalf("unexpected reply %d %s", r.Reply.Status, r.Reply.Body)
			case r.Action != tc.wantAction:
				t.Errorf("action %v, want %v", r.Action, tc.wantAction)
			}
			if tc.inspected && tc.wantStatus == 0 {
				for _, h := range []string{"accept-encoding", "x-export-principal", "x-export-rule"} {
					if !contains(r.Remove, h) {
						t.Errorf("%s not removed: %v", h, r.Remove)
					}
				}
				if tc.method == "POST" && !contains(r.Remove, "content-length") {
					t.Error("content-length kept though the body may change")
				}
			}
			if !tc.inspected && (len(r.Remove) > 0 || len(r.Set) > 0) {
				t.Errorf("touched a request outside gateway.paths: %+v", r)
			}
		})
	}
	// A body over the limit without content-length is caught while buffering.
	s := NewStream(cfg)
	s.OnRequestHeaders(hdr(), "POST", "/mcp", false)
	if r := s.OnRequestBody(1<<20+1, false, nil); r.Reply == nil || r.Reply.Status != 413 {
		t.Fatalf("oversized body: %+v", r)
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func TestIdentity(t *testing.T) {
	payload := map[string]any{"sub": "alice@corp", "roles": []any{"admin", "ops"}, "org": map[string]any{"team": "blue"}, "scope": "read write"}
	st, err := structpb.NewStruct(payload)
	if err != nil {
		t.Fatal(err)
	}
	serialized, err := proto.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	payloadJSON, _ := json.Marshal(payload)
	metaKey := "metadata/filter_metadata/envoy.filters.http.jwt_authn/jwt_payload"
	cfgJWT := mustConfig(t, `
policy: permissive
identity:
  principal: [{jwt_claim: sub}, {header: x-mcp-principal}]
  roles: [{jwt_claim: roles}, {header: x-mcp-roles}]
  jwt: {payload_header: x-jwt-payload}
`)
	cfgProp := mustConfig(t, `
policy: permissive
identity:
  principal: [{property: [connection, uri_san_peer_certificate]}]
  roles: [{jwt_claim: scope}]
  anonymous_id: nobody
`)
	tests := []struct {
		name string
		cfg  *Config
		req  fakeRequest
		want identity
	}{
		{"jwt_authn metadata wins over headers", cfgJWT,
			fakeRequest{headers: map[string]string{"x-mcp-principal": "mallory", "x-mcp-roles": "root"}, props: map[string][]byte{metaKey: serialized}},
			identity{Principal: principal("alice@corp", "admin", "ops")}},
		{"forwarded payload header", cfgJWT,
			fakeRequest{headers: map[string]string{"x-jwt-payload": base64.RawURLEncoding.EncodeToString(payloadJSON)}},
			identity{Principal: principal("alice@corp", "admin", "ops")}},
		{"headers when no JWT", cfgJWT, hdr("x-mcp-principal", "bob", "x-mcp-roles", "a, b c"),
			identity{Principal: principal("bob", "a", "b", "c")}},
		{"garbage payload header ignored", cfgJWT, hdr("x-jwt-payload", "!!!", "x-mcp-principal", "bob"),
			identity{Principal: principal("bob")}},
		{"anonymous", cfgJWT, hdr(), identity{Principal: principal("anonymous"), Anonymous: true}},
		{"SPIFFE property, string claim split", cfgProp,
			fakeRequest{props: map[string][]byte{"connection/uri_san_peer_certificate": []byte("spiffe://cluster.local/ns/a/sa/b"), metaKey: serialized}},
			identity{Principal: principal("spiffe://cluster.local/ns/a/sa/b", "read", "write")}},
		{"configured anonymous id", cfgProp, hdr(), identity{Principal: principal("nobody"), Anonymous: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.req.headers == nil {
				tc.req.headers = map[string]string{}
			}
			got := resolveIdentity(&tc.cfg.Env.Identity, tc.req)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	// require: true answers 401 without a principal.
	cfgReq := mustConfig(t, "policy: permissive\nidentity: {require: true}\n")
	r := NewStream(cfgReq).OnRequestHeaders(hdr(), "POST", "/mcp", false)
	if r.Reply == nil || r.Reply.Status != 401 {
		t.Fatalf("require without principal: %+v", r)
	}
}

func principal(id string, roles ...string) policy.Principal {
	return policy.Principal{ID: id, Roles: roles}
}

// Without hold_headers, POST headers go on at once (Envoy delivers the body
// to a filter paused on headers only with allow_on_headers_stop_iteration)
// and the body is still buffered and judged before any of it goes upstream.
func TestWithoutHoldHeaders(t *testing.T) {
	cfg := mustConfig(t, `{"policy": {"deny_tools": ["delete_*"]}, "gateway": {"export_headers": {"principal": "x-p"}}}`)
	s := NewStream(cfg)
	h := s.OnRequestHeaders(hdr("x-mcp-principal", "alice"), "POST", "/mcp", false)
	if h.Action != Continue || h.Reply != nil {
		t.Fatalf("headers: %+v, want Continue", h)
	}
	if !contains(h.Remove, "content-length") {
		t.Error("content-length kept though the body may change")
	}
	if len(h.Set) != 1 || h.Set[0] != [2]string{"x-p", "alice"} {
		t.Errorf("identity exports at header time: %v", h.Set)
	}
	if r := s.OnRequestBody(10, false, nil); r.Action != Pause {
		t.Fatal("body not buffered")
	}
	body := call("1", "tools/call", `{"name":"delete_x"}`)
	r := s.OnRequestBody(len(body), true, func() []byte { return []byte(body) })
	if !sentAsStandIn(cfg, r, policy.KindTool, "delete_x") {
		t.Fatalf("denied call not kept from the server: %+v", r)
	}
}

// forwardedSet keeps every request it was given until it is taken or
// drained, one or many, and a repeated id replaces the earlier request.
func TestForwardedSet(t *testing.T) {
	for _, ids := range [][]string{nil, {"1"}, {"1", "2"}, {"1", "1"}, {`"a"`, "2", "3", `"a"`}} {
		var r forwardedSet
		want := map[string]string{}
		for i, id := range ids {
			m := fmt.Sprint("m", i)
			r.put(id, forwarded{method: m})
			want[id] = m
		}
		if r.len() != len(want) {
			t.Errorf("%v: len %d, want %d", ids, r.len(), len(want))
		}
		for id, m := range want {
			if f, ok := r.take(id); !ok || f.method != m {
				t.Errorf("%v: took %s=%q (%v), want %q", ids, id, f.method, ok, m)
			}
			r.put(id, forwarded{method: m})
		}
		if _, ok := r.take("404"); ok {
			t.Errorf("%v: took an id never put", ids)
		}
		r.drain(func(id string, f forwarded) {
			if want[id] != f.method {
				t.Errorf("%v: drained %s=%s, want %s", ids, id, f.method, want[id])
			}
			delete(want, id)
		})
		if len(want) != 0 || r.len() != 0 {
			t.Errorf("%v: not drained: %v, len %d", ids, want, r.len())
		}
	}
}

// A batch that uses one id for two requests (equal by value: 1 and 1.0,
// "a" and "\u0061") forwards the first and refuses the later with -32600:
// the server would answer both with that id, and a response judged under
// the other call's pipeline would slip past its own. Regression: both went
// upstream and the first response took the later call's pipeline.
func TestBatchDuplicateIDsRefused(t *testing.T) {
	cfg := mustConfig(t, testEnvelope)
	for _, ids := range [][2]string{{"1", "1"}, {"1", "1.0"}, {"1", "1e0"}, {`"a"`, `"\u0061"`}, {"-0", "0"}} {
		first, second := call(ids[0], "tools/call", `{"name":"search"}`), call(ids[1], "tools/call", `{"name":"export_data"}`)
		s, r := post(t, cfg, hdr("x-mcp-principal", "alice"), "["+first+","+second+"]")
		if string(r.Body) != "["+first+"]" {
			t.Errorf("%v: forwarded %s, want only the first request", ids, r.Body)
		}
		s.OnResponseHeaders(200, "application/json", "", false)
		resp := `[{"jsonrpc":"2.0","id":` + ids[0] + `,"result":{}}]`
		_, merged := s.OnResponseBody(len(resp), true, func() []byte { return []byte(resp) })
		if got := string(merged.Data); !strings.Contains(got, `"id":`+ids[1]+`,"error":{"code":-32600`) || !strings.Contains(got, "already used") {
			t.Errorf("%v: client gets %s", ids, got)
		}
	}
	// Distinct ids, and a notification beside a request, pass.
	body := "[" + call("1", "tools/call", `{"name":"search"}`) + "," + call(`"1"`, "tools/call", `{"name":"search"}`) + "," + call("2", "tools/call", `{"name":"search"}`) + `,{"jsonrpc":"2.0","method":"notifications/x"}]`
	if _, r := post(t, cfg, hdr("x-mcp-principal", "alice"), body); r.Body != nil || r.Reply != nil {
		t.Errorf("distinct ids: forwarded %s, reply %+v", r.Body, r.Reply)
	}
}

// idKey is equal for ids JSON readers take as equal, and differs otherwise.
func TestIDKey(t *testing.T) {
	same := [][]string{{"1", "1.0", "1e0", "10E-1", "0.1e1"}, {"0", "-0", "0.0"}, {"-5", "-5.0"}, {`"a"`, `"\u0061"`}, {"123456789012345678", "123456789012345678"}, {"1.5", "15e-1"}}
	seen := map[string]string{}
	for _, group := range same {
		var key string
		for i, id := range group {
			doc, err := jsondoc.Parse([]byte(id))
			if err != nil {
				t.Fatal(err)
			}
			k := idKey(doc, jsondoc.Root, id)
			if i == 0 {
				key = k
			} else if k != key {
				t.Errorf("idKey(%s) = %q, idKey(%s) = %q", id, k, group[0], key)
			}
		}
		if other, dup := seen[key]; dup {
			t.Errorf("%s and %s share the key %q", group[0], other, key)
		}
		seen[key] = group[0]
	}
	if doc, _ := jsondoc.Parse([]byte(`"1"`)); idKey(doc, jsondoc.Root, `"1"`) == seen["1"] {
		t.Error(`the string "1" and the number 1 share a key`)
	}
}

// A resource URI that SDKs would read as another (they parse it as a WHATWG
// URL) is refused, not judged as written. Regression: SECRET://x passed a
// deny of secret://* and the server read secret://x.
func TestResourceURIsInNormalFormOnly(t *testing.T) {
	cfg := mustConfig(t, listEnvelope)
	alice := hdr("x-mcp-principal", "alice")
	for _, uri := range []string{"SECRET://x", " secret://x", "secret://x ", "sec\tret://x", "secret://x\n", "secret://a/../x",
		"secret://a/%2E%2E/x", "secret://a/./x", "HTTPS://h/x", "https://H/x", "https://h\\x", "secret://a/.."} {
		for _, method := range []string{"resources/read", "resources/subscribe"} {
			q, _ := json.Marshal(uri)
			_, r := post(t, cfg, alice, call("1", method, `{"uri":`+string(q)+`}`))
			if r.Reply == nil || !strings.Contains(string(r.Reply.Body), "-32602") || !strings.Contains(string(r.Reply.Body), "normal form") {
				t.Errorf("%s %q: forwarded or wrong refusal: %+v", method, uri, r)
			}
		}
	}
	// Nor does a listed resource show under such a URI.
	got := respond(t, cfg, alice, call("2", "resources/list", `{}`),
		`{"jsonrpc":"2.0","id":2,"result":{"resources":[{"uri":"SECRET://x","name":"a"},{"uri":"notes://n1","name":"b"}]}}`)
	if strings.Contains(got, "SECRET") || !strings.Contains(got, "notes://n1") {
		t.Errorf("list with a URI not in normal form: %s", got)
	}
	for _, uri := range []string{"cloudg://assets/x", "https://h/x?a=../b", "file:///etc/x", "users://7/profile", "note:a.b", "x://h/a..b/.c"} {
		q, _ := json.Marshal(uri)
		if _, r := post(t, cfg, alice, call("1", "resources/read", `{"uri":`+string(q)+`}`)); r.Reply != nil {
			t.Errorf("%q refused: %s", uri, r.Reply.Body)
		}
	}
}

// A template's deny covers its instances also once a list made one known
// as a static resource, and a completion naming the template's text is
// judged as that template. Regressions: the listed instance showed and
// became readable; the completion was judged as an unknown resource with
// default metadata.
func TestTemplateDenyCoversListedInstances(t *testing.T) {
	cfg := mustConfig(t, testEnvelope) // deny_resources: cloudg://assets/{+ref}, a known template
	alice := hdr("x-mcp-principal", "alice")
	read := call("1", "resources/read", `{"uri":"cloudg://assets/payroll"}`)
	if _, r := post(t, cfg, alice, read); !keptHome(r) {
		t.Fatal("read of a denied template's instance forwarded")
	}
	got := respond(t, cfg, alice, call("2", "resources/list", `{}`),
		`{"jsonrpc":"2.0","id":2,"result":{"resources":[{"uri":"cloudg://assets/payroll","name":"p"},{"uri":"notes://n1","name":"n"}]}}`)
	if strings.Contains(got, "payroll") || !strings.Contains(got, "notes://n1") {
		t.Errorf("listed instance of a denied template: %s", got)
	}
	if _, r := post(t, cfg, alice, read); !keptHome(r) {
		t.Error("read forwarded once a list named the instance")
	}

	restricted := mustConfig(t, `
policy: {name: p, extends: standard}
server:
  primitives:
    - match: {kinds: [resource_template], names: ["users://{id}/profile"]}
      sensitivity: restricted
identity: {principal: [{header: x-mcp-principal}]}
`)
	for _, body := range []string{
		call("3", "completion/complete", `{"ref":{"type":"ref/resource","uri":"users://{id}/profile"},"argument":{"name":"id","value":"4"}}`),
		call("4", "resources/read", `{"uri":"users://7/profile"}`),
	} {
		if _, r := post(t, restricted, alice, body); !keptHome(r) {
			t.Errorf("forwarded: %s", body)
		}
	}
}

// A judged method sent without an id (a notification, which JSON-RPC
// executes) does not reach the server; alone or in a batch. Regression: it
// was forwarded unjudged.
func TestJudgedMethodWithoutIDRefused(t *testing.T) {
	cfg := mustConfig(t, testEnvelope)
	alice := hdr("x-mcp-principal", "alice")
	note := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"delete_user"}}`
	for _, body := range []string{note, "[" + note + `,{"jsonrpc":"2.0","method":"notifications/x"}]`} {
		_, r := post(t, cfg, alice, body)
		if strings.Contains(string(r.Body), "delete_user") || (r.Reply == nil && r.Body == nil) {
			t.Errorf("%s: forwarded (reply %+v, body %s)", body, r.Reply, r.Body)
		}
	}
}

// A result whose method has no payload the plugin knows (tasks/result of
// MCP 2025-11-25) still gets the output pipeline by its shape.
// Regression: it passed untransformed.
func TestUnknownMethodResultTransformedByShape(t *testing.T) {
	cfg := mustConfig(t, `
policy: {name: p, transforms: [{type: redact}]}
identity: {principal: [{header: x-mcp-principal}]}
`)
	got := respond(t, cfg, hdr("x-mcp-principal", "alice"), call("5", "tasks/result", `{"taskId":"t1"}`),
		`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"mail alice@corp.example"}],"structuredContent":{"email":"alice@corp.example"}}}`)
	if strings.Contains(got, "alice@corp.example") {
		t.Errorf("tasks/result untransformed: %s", got)
	}
}

// TestWallClock checks that the one-read clock tells the wall time: each
// reading lies between two of time.Now taken around it (give or take a
// millisecond for the clock's slew between its two readings), before and
// after its base is read again.
func TestWallClock(t *testing.T) {
	var c wallClock
	check := func() {
		t.Helper()
		before := time.Now().UnixNano()
		got := c.now()
		after := time.Now().UnixNano()
		if got < before-int64(time.Millisecond) || got > after+int64(time.Millisecond) {
			t.Fatalf("now() = %d, outside [%d, %d]", got, before, after)
		}
	}
	for range 100 {
		check()
	}
	// An old base is replaced: the reading is still the wall time.
	b := c.base.Load()
	c.base.Store(&clockBase{at: b.at.Add(-2 * time.Second), unix: b.unix - 7*int64(time.Hour)})
	check()
	if c.base.Load().at.Before(b.at) {
		t.Fatal("the base was not read again")
	}
}

// TestExportFieldsCoded checks that every field export_headers may name
// has its code, each a different one.
func TestExportFieldsCoded(t *testing.T) {
	seen := map[exportField]string{}
	for _, f := range policy.ExportFields {
		code, ok := exportFields[f]
		if !ok {
			t.Errorf("export field %q has no code", f)
		}
		if prev, dup := seen[code]; dup {
			t.Errorf("export fields %q and %q share code %d", prev, f, code)
		}
		seen[code] = f
	}
	if len(exportFields) != len(policy.ExportFields) {
		t.Errorf("%d codes for %d fields", len(exportFields), len(policy.ExportFields))
	}
}
