package mcp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/policy"
)

const listEnvelope = `
policy:
  name: lists
  extends: standard
  deny_tools: ["admin_*"]
  deny_resources: ["secret://*", "vault://{name}"]
  deny_prompts: ["internal_*"]
  roles:
    admin: {allow_tools: ["admin_*"], allow_resources: ["*"], allow_capabilities: [exec]}
identity:
  principal: [{header: x-mcp-principal}]
  roles: [{header: x-mcp-roles}]
`

// respond runs one request and its JSON response through a stream and
// returns the body the client gets.
func respond(t *testing.T, cfg *Config, req fakeRequest, request, response string) string {
	t.Helper()
	s, r := post(t, cfg, req, request)
	if r.Reply != nil {
		t.Fatalf("request answered locally: %s", r.Reply.Body)
	}
	h := s.OnResponseHeaders(200, "application/json; charset=utf-8", "", false)
	if h.Reply != nil {
		t.Fatalf("response headers replied: %s", h.Reply.Body)
	}
	if a, _ := s.OnResponseBody(len(response)/2, false, nil); a != Pause {
		t.Fatal("JSON response not buffered")
	}
	a, edit := s.OnResponseBody(len(response), true, func() []byte { return []byte(response) })
	if a != Continue {
		t.Fatal("end of response held")
	}
	if !edit.Replace {
		return response
	}
	return string(edit.Data)
}

func names(t *testing.T, body, field, key string) []string {
	t.Helper()
	var msg struct {
		Result map[string]json.RawMessage
	}
	if err := json.Unmarshal([]byte(body), &msg); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	var items []map[string]any
	if err := json.Unmarshal(msg.Result[field], &items); err != nil {
		t.Fatalf("%s: %v", msg.Result[field], err)
	}
	out := []string{}
	for _, it := range items {
		out = append(out, it[key].(string))
	}
	return out
}

func TestListFiltering(t *testing.T) {
	tools := `{"jsonrpc":"2.0","id":1,"result":{"tools":[
	  {"name":"search","inputSchema":{"type":"object"}},
	  {"name":"admin_reset","inputSchema":{"type":"object"}},
	  {"name":"shell","inputSchema":{"type":"object"},"_meta":{"io.cloudg/privacy":{"capabilities":["exec"]}}},
	  {"name":"payroll","inputSchema":{"type":"object"},"_meta":{"io.cloudg/privacy":{"sensitivity":"restricted","category":"hr"}}},
	  {"name":"weather","inputSchema":{"type":"object"},"_meta":{"io.cloudg/privacy":{"sensitivity":"public","tags":["x"]},"other":1}},
	  {"inputSchema":{"type":"object"}}
	],"nextCursor":"page-2"}}`
	tests := []struct {
		name, request, response, principal, roles string
		field, key                                string
		want                                      []string
	}{
		{"tools for anyone", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, tools, "ann", "",
			"tools", "name", []string{"search", "weather", "privacy_status", "preview_transform"}},
		{"tools for admin", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, tools, "root", "admin",
			"tools", "name", []string{"search", "admin_reset", "shell", "weather", "privacy_status", "preview_transform"}},
		{"resources", `{"jsonrpc":"2.0","id":"r","method":"resources/list"}`,
			`{"jsonrpc":"2.0","id":"r","result":{"resources":[{"uri":"docs://a","name":"a"},{"uri":"secret://b","name":"b"}]}}`, "ann", "",
			"resources", "uri", []string{"docs://a"}},
		{"templates", `{"jsonrpc":"2.0","id":2,"method":"resources/templates/list"}`,
			`{"jsonrpc":"2.0","id":2,"result":{"resourceTemplates":[{"uriTemplate":"vault://{name}","name":"v"},{"uriTemplate":"docs://{path}","name":"d"}]}}`, "ann", "",
			"resourceTemplates", "uriTemplate", []string{"docs://{path}"}},
		{"prompts", `{"jsonrpc":"2.0","id":3,"method":"prompts/list"}`,
			`{"jsonrpc":"2.0","id":3,"result":{"prompts":[{"name":"internal_notes"},{"name":"greet"}]}}`, "ann", "",
			"prompts", "name", []string{"greet"}},
		{"empty page stays a page", `{"jsonrpc":"2.0","id":4,"method":"prompts/list"}`,
			`{"jsonrpc":"2.0","id":4,"result":{"prompts":[{"name":"internal_a"}]}}`, "ann", "",
			"prompts", "name", []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := mustConfig(t, listEnvelope)
			out := respond(t, cfg, hdr("x-mcp-principal", tc.principal, "x-mcp-roles", tc.roles), tc.request, tc.response)
			if got := names(t, out, tc.field, tc.key); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("listed %v, want %v\n%s", got, tc.want, out)
			}
		})
	}
	// nextCursor and unknown fields survive filtering.
	cfg := mustConfig(t, listEnvelope)
	out := respond(t, cfg, hdr("x-mcp-principal", "ann"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, tools)
	if !strings.Contains(out, `"nextCursor":"page-2"`) || !strings.Contains(out, `"other":1`) {
		t.Errorf("cursor or item fields lost: %s", out)
	}
}

// Learned metadata judges later calls, and learned templates resolve
// concrete URIs (manual 4).
func TestLearnedFromLists(t *testing.T) {
	cfg := mustConfig(t, listEnvelope)
	ann := hdr("x-mcp-principal", "ann")
	respond(t, cfg, ann, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"shell","_meta":{"io.cloudg/privacy":{"capabilities":["exec"]}}}]}}`)
	_, r := post(t, cfg, ann, call("2", "tools/call", `{"name":"shell"}`))
	if !sentAsStandIn(cfg, r, policy.KindTool, "shell") {
		t.Errorf("a tool learned to need exec was allowed: %+v", r)
	}
	// Before templates are known, a concrete URI is judged as itself.
	_, r = post(t, cfg, ann, call("3", "resources/read", `{"uri":"vault://payroll"}`))
	if r.Reply != nil {
		t.Fatalf("unknown template denied early: %s", r.Reply.Body)
	}
	respond(t, cfg, ann, `{"jsonrpc":"2.0","id":4,"method":"resources/templates/list"}`,
		`{"jsonrpc":"2.0","id":4,"result":{"resourceTemplates":[{"uriTemplate":"vault://{name}","name":"v"}]}}`)
	_, r = post(t, cfg, ann, call("5", "resources/read", `{"uri":"vault://payroll"}`))
	if !sentAsStandIn(cfg, r, policy.KindResource, "vault://payroll") {
		t.Errorf("a concrete URI of a learned, denied template was allowed: %+v", r)
	}
}

func TestRequireKnownWithLists(t *testing.T) {
	// Listed means known whether or not the server's metadata is learned
	// (manual 4): a regression, learn_from_lists false once left every
	// listed primitive unknown to the plugin, while policy test counted
	// it known.
	for _, learn := range []string{"true", "false"} {
		t.Run("learn_from_lists "+learn, func(t *testing.T) {
			cfg := mustConfig(t, listEnvelope+"server: {require_known: true, learn_from_lists: "+learn+"}\n")
			ann := hdr("x-mcp-principal", "ann")
			out := respond(t, cfg, ann, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
				`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search"}]}}`)
			if got := names(t, out, "tools", "name"); !reflect.DeepEqual(got, []string{"search", "privacy_status", "preview_transform"}) {
				t.Errorf("listed %v", got)
			}
			if _, r := post(t, cfg, ann, call("2", "tools/call", `{"name":"search"}`)); r.Reply != nil {
				t.Errorf("a listed tool is known: %s", r.Reply.Body)
			}
			if _, r := post(t, cfg, ann, call("3", "tools/call", `{"name":"never_listed"}`)); !keptHome(r) {
				t.Error("a tool no source knows was allowed under require_known")
			}
		})
	}
}

// Responses the plugin cannot inspect fail closed (manual 16).
func TestUninspectableResponses(t *testing.T) {
	cfg := mustConfig(t, listEnvelope)
	out := respond(t, cfg, hdr("x-mcp-principal", "ann"), `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":9,"result":{"tools":[{"name":"a","name":"b"}]}}`)
	if !strings.HasPrefix(out, `{"jsonrpc":"2.0","id":9,"error":{"code":-32603`) {
		t.Errorf("ambiguous response passed: %s", out)
	}
	cfgPass := mustConfig(t, listEnvelope+"gateway: {on_parse_error: pass}\n")
	bad := `{"jsonrpc":"2.0","id":9,"result":{` // truncated
	if out := respond(t, cfgPass, hdr("x-mcp-principal", "ann"), `{"jsonrpc":"2.0","id":9,"method":"ping"}`, bad); out != bad {
		t.Errorf("on_parse_error: pass changed the body: %s", out)
	}
	// A compressed response (the plugin removed accept-encoding) is refused.
	s0, _ := post(t, cfg, hdr("x-mcp-principal", "ann"), `{"jsonrpc":"2.0","id":"z","method":"tools/list"}`)
	if h := s0.OnResponseHeaders(200, "application/json", "gzip", false); h.Reply == nil ||
		!strings.Contains(string(h.Reply.Body), `"id":"z","error":{"code":-32603`) || !strings.Contains(string(h.Reply.Body), "compressed") {
		t.Errorf("compressed response: %+v", h.Reply)
	}
	small := mustConfig(t, listEnvelope+"gateway: {max_response_bytes: 10}\n")
	s, _ := post(t, small, hdr("x-mcp-principal", "ann"), `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	s.OnResponseHeaders(200, "application/json", "", false)
	_, edit := s.OnResponseBody(11, false, nil)
	if !edit.Replace || !strings.Contains(string(edit.Data), "max_response_bytes") {
		t.Errorf("oversized response: %+v", edit)
	}
}

// An event-stream response (how the reference servers answer every POST) is
// filtered event by event, whatever the chunking: here split at every byte.
func TestListFilteringInEventStreams(t *testing.T) {
	stream := "id: 1\nretry: 500\ndata: \n\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n" +
		"event: message\r\nid: 2\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"tools\":[{\"name\":\"search\"},{\"name\":\"admin_reset\"},{\"name\":\"naïve_tool\"}]}}\r\n\r\n"
	want := "id: 1\nretry: 500\ndata: \n\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n" +
		"event: message\nid: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"tools\":[{\"name\":\"search\"},{\"name\":\"naïve_tool\"}," + string(privacyStatusTool) + "," + string(previewTransformTool) + "]}}\n\n"
	cfg := mustConfig(t, listEnvelope)
	for split := 0; split <= len(stream); split++ {
		s, _ := post(t, cfg, hdr("x-mcp-principal", "ann"), `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
		s.OnResponseHeaders(200, "text/event-stream", "", false)
		var out []byte
		for i, chunk := range []string{stream[:split], stream[split:]} {
			a, edit := s.OnResponseBody(len(chunk), i == 1, func() []byte { return []byte(chunk) })
			if a != Continue {
				t.Fatalf("split %d: an event stream chunk was paused", split)
			}
			if edit.Replace {
				out = append(out, edit.Data...)
			} else {
				out = append(out, chunk...)
			}
		}
		if string(out) != want {
			t.Fatalf("split %d:\n got %q\nwant %q", split, out, want)
		}
	}
}

// Event data that is not JSON-RPC cannot be inspected: the event is
// dropped unless on_parse_error is pass, which delivers it read as text
// (the address pseudonymised).
func TestUninspectableEvents(t *testing.T) {
	for _, tc := range []struct {
		config, want string
	}{
		{listEnvelope, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"},
		{listEnvelope + "gateway: {on_parse_error: pass}\n", "data: not json EMAIL_…\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"},
	} {
		cfg := mustConfig(t, tc.config)
		s, _ := post(t, cfg, hdr("x-mcp-principal", "ann"), `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		s.OnResponseHeaders(200, "text/event-stream; charset=utf-8", "", false)
		in := "data: not json alice@example.com\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
		_, edit := s.OnResponseBody(len(in), true, func() []byte { return []byte(in) })
		got := in
		if edit.Replace {
			got = string(edit.Data)
		}
		if pseudonymRE.ReplaceAllString(got, "EMAIL_…") != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	// An event over max_event_bytes fails the stream closed.
	cfg := mustConfig(t, listEnvelope+"gateway: {max_event_bytes: 64}\n")
	s, _ := post(t, cfg, hdr("x-mcp-principal", "ann"), `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	s.OnResponseHeaders(200, "text/event-stream", "", false)
	big := "data: " + strings.Repeat("x", 100)
	_, edit := s.OnResponseBody(len(big), false, func() []byte { return []byte(big) })
	if !edit.Replace || !strings.Contains(string(edit.Data), `"id":1,"error":{"code":-32603`) {
		t.Fatalf("oversized event: %+v", edit)
	}
	_, edit = s.OnResponseBody(5, true, func() []byte { return []byte("more\n\n") })
	if !edit.Replace || len(edit.Data) != 0 {
		t.Errorf("data after a failed stream went out: %q", edit.Data)
	}
}

// privacy_status joins the first page of tools/list (only) for callers the
// policy lets use it, and is answered by the plugin.
func TestPrivacyStatus(t *testing.T) {
	cfg := mustConfig(t, strings.Replace(listEnvelope, "identity:", `  rules:
    - {name: contractors, match: {roles: [contractor]}, deny_tools: [privacy_status]}
    - {name: ops-tools, match: {roles: [admin], kinds: [tool]}, max_sensitivity: restricted}
identity:`, 1))
	admin := hdr("x-mcp-principal", "root", "x-mcp-roles", "admin")
	list := `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search"},{"name":"admin_reset"}],"nextCursor":"c2"}}`
	out := respond(t, cfg, admin, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, list)
	if got := names(t, out, "tools", "name"); !reflect.DeepEqual(got, []string{"search", "admin_reset", "privacy_status", "preview_transform"}) {
		t.Errorf("first page %v", got)
	}
	out = respond(t, cfg, admin, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"c2"}}`, list)
	if got := names(t, out, "tools", "name"); !reflect.DeepEqual(got, []string{"search", "admin_reset"}) {
		t.Errorf("second page %v", got)
	}
	out = respond(t, cfg, hdr("x-mcp-principal", "c", "x-mcp-roles", "contractor"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, list)
	if got := names(t, out, "tools", "name"); !reflect.DeepEqual(got, []string{"search", "preview_transform"}) {
		t.Errorf("contractor's first page %v", got)
	}

	_, r := post(t, cfg, admin, call("9", "tools/call", `{"name":"privacy_status","arguments":{}}`))
	if r.Reply == nil || r.Reply.Status != 200 {
		t.Fatalf("privacy_status not answered locally: %+v", r)
	}
	var res struct {
		ID     int
		Result struct {
			Content []struct {
				Type, Text string
			}
			StructuredContent struct {
				Policy struct {
					Name string
				}
				Principal struct {
					ID        string
					Roles     []string
					Anonymous bool
				}
				Rules      []string
				Primitives map[string]struct{ Visible, Hidden int }
			}
		}
	}
	if err := json.Unmarshal(r.Reply.Body, &res); err != nil {
		t.Fatalf("%s: %v", r.Reply.Body, err)
	}
	sc := res.Result.StructuredContent
	if res.ID != 9 || sc.Policy.Name != "lists" || sc.Principal.ID != "root" || !reflect.DeepEqual(sc.Principal.Roles, []string{"admin"}) ||
		!reflect.DeepEqual(sc.Rules, []string{"role:admin", "ops-tools"}) {
		t.Errorf("status %s", r.Reply.Body)
	}
	// Learned from the lists above: search and admin_reset, both visible to admin.
	if sc.Primitives["tool"].Visible != 2 || sc.Primitives["tool"].Hidden != 0 {
		t.Errorf("counts %+v", sc.Primitives)
	}
	if len(res.Result.Content) != 1 || !strings.Contains(res.Result.Content[0].Text, `"principal":{"id":"root"`) {
		t.Errorf("text content %+v", res.Result.Content)
	}
	// Counts are per caller: ann cannot see admin_reset.
	_, r = post(t, cfg, hdr("x-mcp-principal", "ann"), call("10", "tools/call", `{"name":"privacy_status"}`))
	if r.Reply == nil || !strings.Contains(string(r.Reply.Body), `"tool":{"visible":1}`) {
		t.Errorf("ann's status %s", r.Reply.Body)
	}
	// Denied like any tool.
	_, r = post(t, cfg, hdr("x-mcp-principal", "c", "x-mcp-roles", "contractor"), call("11", "tools/call", `{"name":"privacy_status"}`))
	if !sentAsStandIn(cfg, r, policy.KindTool, "privacy_status") {
		t.Errorf("contractor's status call %+v", r.Reply)
	}
	// Switched off: the call goes to the server like any other.
	off := mustConfig(t, "policy: permissive\ngateway: {virtual_tools: false}\n")
	if _, r = post(t, off, hdr(), call("12", "tools/call", `{"name":"privacy_status"}`)); r.Reply != nil {
		t.Errorf("virtual_tools off still answered: %s", r.Reply.Body)
	}
}

// A list response arriving on a stream that did not carry its request (a
// resumed GET stream, the legacy HTTP+SSE transport) is recognised by its
// shape and filtered all the same.
func TestUnattributedListFiltered(t *testing.T) {
	cfg := mustConfig(t, listEnvelope)
	s := NewStream(cfg)
	if r := s.OnRequestHeaders(hdr("x-mcp-principal", "ann"), "GET", "/mcp", true); r.Action != Continue || r.Reply != nil {
		t.Fatalf("GET: %+v", r)
	}
	s.OnResponseHeaders(200, "text/event-stream", "", false)
	in := "id: 7\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"tools\":[{\"name\":\"search\"},{\"name\":\"admin_reset\"}]}}\n\n"
	_, edit := s.OnResponseBody(len(in), false, func() []byte { return []byte(in) })
	want := "id: 7\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"tools\":[{\"name\":\"search\"}]}}\n\n"
	if !edit.Replace || string(edit.Data) != want {
		t.Errorf("got %q\nwant %q", edit.Data, want)
	}
}

// A listed primitive that was just learned resolves, without a second
// lookup, to what Resolve gives it: the learned metadata under the
// configured, and known.
func TestResolveLearnedIsResolve(t *testing.T) {
	cfg := mustConfig(t, `
policy: {name: p, extends: standard}
server:
  primitives:
    - match: {names: ["crm_*"]}
      category: crm
      capabilities: [read_state]
    - match: {kinds: [resource_template], names: ["users://{id}/profile"]}
      sensitivity: restricted
identity: {principal: [{header: x-mcp-principal}]}
`)
	c := cfg.catalog
	c.addTemplate("users://{id}/profile")
	metas := []policy.Metadata{{}, {Category: "billing", Tags: []string{"pii"}, Sensitivity: policy.Internal}, {Capabilities: policy.CapabilitySet(0).With(policy.Exec)}}
	for _, k := range []policy.Kind{policy.KindTool, policy.KindPrompt, policy.KindResource, policy.KindResourceTemplate} {
		for _, name := range []string{"crm_lookup", "other", "users://7/profile", "users://{id}/profile"} {
			for i, m := range metas {
				// Learned, then learned again at once: the second takes
				// the path that writes nothing.
				if !c.learn(k, name, m, int64(2*i+1)) || !c.learn(k, name, m, int64(2*i+2)) {
					t.Fatalf("%v %s not kept", k, name)
				}
				if k == policy.KindResource {
					c.model.AddResource(name)
				}
				want, known := c.resolve(target{Kind: k, Name: name, Args: -1})
				want.Kind = k
				got := c.resolveListed(k, name, m)
				got.Kind = k // as filterList sets it
				if !known || !reflect.DeepEqual(got, want) {
					t.Errorf("%v %s %+v: resolveListed %+v, resolve %+v (known %v)", k, name, m, got, want, known)
				}
			}
		}
	}
}

// Responses under media types that clients still parse as JSON or as an
// event stream are read so too. Regression: application/json-rpc and
// text/event-stream-x passed uninspected, denied tools included.
func TestResponseMediaTypeVariantsInspected(t *testing.T) {
	cfg := mustConfig(t, listEnvelope)
	list := `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search"},{"name":"admin_reset"}]}}`
	for _, c := range []struct{ contentType, body string }{
		{"application/json-rpc", list},
		{"Application/JSON", list},
		{"application/vnd.api+json; charset=utf-8", list},
		{"text/event-stream-x", "data: " + list + "\n\n"},
		{"TEXT/EVENT-STREAM;charset=utf-8", "data: " + list + "\n\n"},
	} {
		s, _ := post(t, cfg, hdr("x-mcp-principal", "alice"), call("1", "tools/list", `{}`))
		s.OnResponseHeaders(200, c.contentType, "", false)
		_, edit := s.OnResponseBody(len(c.body), true, func() []byte { return []byte(c.body) })
		if !edit.Replace || strings.Contains(string(edit.Data), "admin_reset") || !strings.Contains(string(edit.Data), "search") {
			t.Errorf("%s: client gets %q (replace %v)", c.contentType, edit.Data, edit.Replace)
		}
	}
}

// A server message that is both a request and a response, or carries both
// a result and an error, is withheld: a client may read the part that went
// through no pipeline. Regression: its result passed untransformed.
func TestAmbiguousServerMessageWithheld(t *testing.T) {
	cfg := mustConfig(t, `
policy: {name: p, transforms: [{type: redact}]}
identity: {principal: [{header: x-mcp-principal}]}
`)
	alice := hdr("x-mcp-principal", "alice")
	for _, resp := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"notifications/message","params":{},"result":{"content":[{"type":"text","text":"mail alice@corp.example"}]}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"},"result":{"content":[{"type":"text","text":"mail alice@corp.example"}]}}`,
	} {
		got := respond(t, cfg, alice, call("1", "tools/call", `{"name":"search"}`), resp)
		if strings.Contains(got, "alice@corp.example") || !strings.Contains(got, "-32603") {
			t.Errorf("client gets %s", got)
		}
	}
}

// TestListNamesCopiedIntoCatalog: filterList reads item names as views of
// the response's bytes; what the catalog keeps of them (learned metadata,
// static resources, templates) must be copies, still right once the body's
// buffer is reused for something else.
func TestListNamesCopiedIntoCatalog(t *testing.T) {
	cfg := mustConfig(t, listEnvelope)
	alice := hdr("x-mcp-principal", "alice")
	for _, c := range []struct{ method, response string }{
		{"tools/list", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search_a","inputSchema":{"type":"object"},"_meta":{"io.cloudg/privacy":{"category":"crm","tags":["t1"]}}},{"name":"plain_b","inputSchema":{"type":"object"}}]}}`},
		{"resources/list", `{"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"file:///docs/readme","name":"r"}]}}`},
		{"resources/templates/list", `{"jsonrpc":"2.0","id":1,"result":{"resourceTemplates":[{"uriTemplate":"users://{id}/card","name":"u"}]}}`},
	} {
		s, r := post(t, cfg, alice, call("1", c.method, `{}`))
		if r.Reply != nil {
			t.Fatalf("%s answered locally: %s", c.method, r.Reply.Body)
		}
		s.OnResponseHeaders(200, "application/json", "", false)
		buf := []byte(c.response)
		s.OnResponseBody(len(buf), true, func() []byte { return buf })
		for i := range buf {
			buf[i] = 'Z' // the host reuses its buffer
		}
	}
	cat := cfg.catalog
	for _, name := range []string{"search_a", "plain_b"} {
		if _, ok := cat.learned.get(policy.KindTool, name); !ok {
			t.Errorf("learned %v missing; have %v", name, cat.learned.byKind)
		}
	}
	if e, _ := cat.learned.get(policy.KindTool, "search_a"); e.meta.Category != "crm" || !reflect.DeepEqual(e.meta.Tags, []string{"t1"}) {
		t.Errorf("search_a's metadata = %+v", e.meta)
	}
	if !cat.model.IsResource("file:///docs/readme") {
		t.Error("resource missing")
	}
	ts := &cat.model.Templates
	if !ts.Has("users://{id}/card") || ts.Instance("users://7/card") == nil || ts.Instance("users://7/card").Text() != "users://{id}/card" {
		t.Errorf("template missing or broken: %+v", ts)
	}
	cat.learned.each(func(_ policy.Kind, name string) {
		if strings.Contains(name, "Z") {
			t.Errorf("a learned name shares the body's bytes: %q", name)
		}
	})
}
