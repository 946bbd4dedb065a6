package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/policy"
)

const hiddenEnvelope = `
policy:
  name: hide
  hide_denied: true
  deny_tools: ["delete_*"]
  deny_prompts: ["internal_*"]
  deny_capabilities: [reveal]
  deny_resources: ["secret://*", "vault://{name}"]
  rules:
    - name: no-export
      match: {principals: ["eve"]}
      deny_tools: ["export"]
identity:
  principal: [{header: x-mcp-principal}]
gateway: {virtual_tools: true}
`

// keptHome reports whether a request was kept from the server: answered
// locally, or sent as a hidden primitive's stand-in, which names nothing
// the server has and carries none of the caller's data.
func keptHome(r BodyResult) bool {
	return r.Reply != nil || strings.Contains(string(r.Body), standInPrefix)
}

// sentAsStandIn reports whether a request for a hidden primitive went
// upstream as its stand-in.
func sentAsStandIn(r BodyResult, kind policy.Kind, name string) bool {
	return r.Reply == nil && strings.Contains(string(r.Body), jsondoc.Quote(standIn(kind, name)))
}

// notFound is how a server (the go-sdk's wording) answers a request
// naming something it does not have.
func notFound(id, method, name string) string {
	var e string
	switch method {
	case "tools/call":
		e = `{"code":-32602,"message":` + jsondoc.Quote(`unknown tool "`+name+`"`) + `}`
	case "prompts/get":
		e = `{"code":-32602,"message":` + jsondoc.Quote(`unknown prompt "`+name+`"`) + `}`
	case "completion/complete":
		e = `{"code":-32602,"message":` + jsondoc.Quote("no completions for "+name) + `,"data":{"ref":` + jsondoc.Quote(name) + `}}`
	default:
		e = `{"code":-32002,"message":"Resource not found","data":{"uri":` + jsondoc.Quote(name) + `}}`
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"error":` + e + `}`
}

// spacedNotFound is notFound as Python's json.dumps writes it, with a
// space after every , and :.
func spacedNotFound(id, method, name string) string {
	compact := notFound(id, method, name)
	var b strings.Builder
	in := false
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		b.WriteByte(c)
		switch {
		case c == '\\' && in:
			i++
			b.WriteByte(compact[i])
		case c == '"':
			in = !in
		case !in && (c == ',' || c == ':'):
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// exchange runs a request through a stream and the server's answer for
// what went upstream, as JSON or as an event stream, and returns what the
// client gets: the local reply, or the answer as rewritten.
func exchange(t *testing.T, cfg *Config, req fakeRequest, request string, server func(upstream string) string, sse bool) string {
	t.Helper()
	s, r := post(t, cfg, req, request)
	if r.Reply != nil {
		return "local " + string(r.Reply.Body)
	}
	upstream := request
	if r.Body != nil {
		upstream = string(r.Body)
	}
	answer := server(upstream)
	ct := "application/json"
	if sse {
		ct, answer = "text/event-stream", "event: message\ndata: "+answer+"\n\n"
	}
	if h := s.OnResponseHeaders(200, ct, "", false); h.Reply != nil {
		t.Fatalf("response headers replied: %s", h.Reply.Body)
	}
	_, edit := s.OnResponseBody(len(answer), true, func() []byte { return []byte(answer) })
	if edit.Replace {
		return string(edit.Data)
	}
	return answer
}

// fakeServer answers every request naming a primitive with "not found"
// for the name it was sent (it has none of them), written with spaces as
// Python writes JSON: what the plugin gives back must keep them.
func fakeServer(t *testing.T) func(string) string { return fakeServerWith(t, spacedNotFound) }

func fakeServerWith(t *testing.T, notFound func(id, method, name string) string) func(string) string {
	return func(upstream string) string {
		doc, err := jsondoc.Parse([]byte(upstream))
		if err != nil {
			t.Fatalf("upstream got %s: %v", upstream, err)
		}
		method, _ := doc.Str(doc.Get(jsondoc.Root, "method"))
		params := doc.Get(jsondoc.Root, "params")
		name, ok := doc.Str(doc.Get(params, "name"))
		if !ok {
			name, ok = doc.Str(doc.Get(params, "uri"))
		}
		if !ok {
			ref := doc.Get(params, "ref")
			if name, ok = doc.Str(doc.Get(ref, "name")); !ok {
				name, _ = doc.Str(doc.Get(ref, "uri"))
			}
		}
		return notFound(string(doc.Raw(doc.Get(jsondoc.Root, "id"))), method, name)
	}
}

// A hidden primitive is answered as the server answers for a primitive
// it does not have: what the client gets for it is what it gets for a
// missing name (allowed, so the server answers), name for name. Before,
// the plugin answered locally in its own words, as JSON.
func TestHiddenLooksMissing(t *testing.T) {
	cfg := mustConfig(t, hiddenEnvelope)
	ann := hdr("x-mcp-principal", "ann")
	eve := hdr("x-mcp-principal", "eve")
	tests := []struct {
		name           string
		who            fakeRequest
		kind           policy.Kind
		hidden, absent string // a hidden name and one the server does not have
		request        func(name string) string
	}{
		{"tool", ann, policy.KindTool, "delete_user", "no_such_tool", func(n string) string {
			return call("1", "tools/call", `{"name":`+jsondoc.Quote(n)+`,"arguments":{"id":"marker-arg"},"_meta":{"progressToken":"marker-meta"}}`)
		}},
		{"tool denied by a rule", eve, policy.KindTool, "export", "no_such_tool", func(n string) string {
			return call(`"s-1"`, "tools/call", `{"name":`+jsondoc.Quote(n)+`}`)
		}},
		{"virtual tool", ann, policy.KindTool, "privacy_reveal", "privacy_nothing", func(n string) string {
			return call("2", "tools/call", `{"name":`+jsondoc.Quote(n)+`,"arguments":{"text":"marker-arg"}}`)
		}},
		{"prompt", ann, policy.KindPrompt, "internal_notes", "no_such_prompt", func(n string) string {
			return call("3", "prompts/get", `{"name":`+jsondoc.Quote(n)+`,"arguments":{"id":"marker-arg"}}`)
		}},
		{"resource", ann, policy.KindResource, "secret://keys", "nothing://here", func(n string) string {
			return call("4", "resources/read", `{"uri":`+jsondoc.Quote(n)+`}`)
		}},
		{"template instance", ann, policy.KindResource, "vault://payroll", "nothing://payroll", func(n string) string {
			return call("5", "resources/read", `{"uri":`+jsondoc.Quote(n)+`}`)
		}},
		{"subscribe", ann, policy.KindResource, "secret://keys", "nothing://here", func(n string) string {
			return call("6", "resources/subscribe", `{"uri":`+jsondoc.Quote(n)+`}`)
		}},
		{"completion of a prompt", ann, policy.KindPrompt, "internal_notes", "no_such_prompt", func(n string) string {
			return call("7", "completion/complete", `{"ref":{"type":"ref/prompt","name":`+jsondoc.Quote(n)+`},"argument":{"name":"id","value":"marker-arg"},"context":{"arguments":{"x":"marker-ctx"}}}`)
		}},
		{"completion of a template", ann, policy.KindResource, "vault://{name}", "nothing://{name}", func(n string) string {
			return call("8", "completion/complete", `{"ref":{"type":"ref/resource","uri":`+jsondoc.Quote(n)+`},"argument":{"name":"name","value":"marker-arg"}}`)
		}},
	}
	// vault://{name} is a template the server listed.
	cfg.Catalog.AddTemplate("vault://{name}")
	for _, tc := range tests {
		for _, sse := range []bool{false, true} {
			name := tc.name
			if sse {
				name += " (event stream)"
			}
			t.Run(name, func(t *testing.T) {
				_, r := post(t, cfg, tc.who, tc.request(tc.hidden))
				if !sentAsStandIn(r, tc.kind, tc.hidden) {
					t.Fatalf("reply %v, forwarded %s: want its stand-in forwarded", r.Reply, r.Body)
				}
				if up := string(r.Body); strings.Contains(up, "marker") || strings.Contains(up, tc.hidden) {
					t.Errorf("the server got the caller's data or the hidden name: %s", up)
				}
				hidden := exchange(t, cfg, tc.who, tc.request(tc.hidden), fakeServer(t), sse)
				absent := exchange(t, cfg, tc.who, tc.request(tc.absent), fakeServer(t), sse)
				if got, want := strings.ReplaceAll(hidden, tc.hidden, "NAME"), strings.ReplaceAll(absent, tc.absent, "NAME"); got != want {
					t.Errorf("hidden:  %s\nmissing: %s", got, want)
				}
				if strings.Contains(hidden, standInPrefix) {
					t.Errorf("the stand-in reached the client: %s", hidden)
				}
			})
		}
	}
}

// Hidden calls take rate-limit tokens as calls of missing primitives do:
// a limit does not tell them apart. Before, a hidden call took none.
func TestHiddenRateLimitedAsMissing(t *testing.T) {
	cfg := mustConfig(t, strings.Replace(hiddenEnvelope, "  hide_denied: true\n",
		"  hide_denied: true\n  rate_limits: [{rate: 1, per: hour, burst: 2, scope: principal, kinds: [tool]}]\n", 1))
	var outcomes [2][]string
	for i, c := range []struct{ who, name string }{{"ann", "delete_user"}, {"bob", "no_such_tool"}} {
		for range 3 {
			got := exchange(t, cfg, hdr("x-mcp-principal", c.who), call("1", "tools/call", `{"name":`+jsondoc.Quote(c.name)+`}`), fakeServer(t), false)
			outcomes[i] = append(outcomes[i], strings.ReplaceAll(got, c.name, "NAME"))
		}
	}
	for k := range outcomes[0] {
		if outcomes[0][k] != outcomes[1][k] {
			t.Errorf("call %d: hidden %s\nmissing %s", k+1, outcomes[0][k], outcomes[1][k])
		}
	}
	if !strings.Contains(outcomes[1][0], `unknown tool \"NAME\"`) || !strings.Contains(outcomes[1][2], "-32029") {
		t.Errorf("calls of a missing tool: %v, want the server's answer, then -32029 at the third", outcomes[1])
	}
}

// The answer to a stand-in that arrives on another stream (a resumed GET
// stream, the legacy transport's GET stream), on another worker VM, is
// given the hidden name back too.
func TestHiddenAnsweredOnAnotherStream(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		shared := newMemShared()
		vm1, _ := NewConfig([]byte(hiddenEnvelope), shared)
		vm2, _ := NewConfig([]byte(hiddenEnvelope), shared)
		ann, path := hdr("x-mcp-principal", "ann", "mcp-session-id", "S1"), "/mcp"
		if legacy {
			ann, path = hdr("x-mcp-principal", "ann"), "/mcp?sessionid=S1"
		}
		s := NewStream(vm1)
		s.OnRequestHeaders(ann, "POST", path, false)
		body := call("4", "tools/call", `{"name":"delete_user"}`)
		r := s.OnRequestBody(len(body), true, func() []byte { return []byte(body) })
		if !sentAsStandIn(r, policy.KindTool, "delete_user") {
			t.Fatalf("legacy %v: reply %v, forwarded %s", legacy, r.Reply, r.Body)
		}
		g := NewStream(vm2)
		g.OnRequestHeaders(hdr("x-mcp-principal", "ann", "mcp-session-id", "S1"), "GET", "/mcp", true)
		g.OnResponseHeaders(200, "text/event-stream", "", false)
		in := "event: message\ndata: " + notFound("4", "tools/call", standIn(policy.KindTool, "delete_user")) + "\n\n"
		if legacy {
			in = "event: endpoint\ndata: /mcp?sessionid=S1\n\n" + in
		}
		_, edit := g.OnResponseBody(len(in), false, func() []byte { return []byte(in) })
		want := strings.ReplaceAll(in, standIn(policy.KindTool, "delete_user"), "delete_user")
		if !edit.Replace || string(edit.Data) != want {
			t.Errorf("legacy %v:\n got %q\nwant %q", legacy, edit.Data, want)
		}
	}
}

// preview_transform of a hidden tool previews it as a tool the server
// does not have: no error that a missing name would not get. A visible
// denial still refuses.
func TestPreviewOfHiddenTool(t *testing.T) {
	cfg := mustConfig(t, hiddenEnvelope)
	ann := hdr("x-mcp-principal", "ann")
	args := func(tool string) string {
		return `{"text":"mail carol@example.com","tool":` + jsondoc.Quote(tool) + `}`
	}
	hidden, herr := virtualCall(t, cfg, ann, "preview_transform", args("delete_user"))
	missing, merr := virtualCall(t, cfg, ann, "preview_transform", args("no_such_tool"))
	if herr != nil || merr != nil || !jsonEqual(hidden, missing) {
		t.Errorf("hidden: %v %v\nmissing: %v %v", hidden, herr, missing, merr)
	}
	visible := mustConfig(t, strings.Replace(hiddenEnvelope, "hide_denied: true", "hide_denied: false", 1))
	if _, err := virtualCall(t, visible, ann, "preview_transform", args("delete_user")); err == nil || err["message"] != "Access denied" {
		t.Errorf("visible denial previewed: %v", err)
	}
}

// privacy_status counts no hidden primitives under hide_denied: a server
// with one more hidden tool (or prompts that are all hidden) gives the
// same status.
func TestStatusCountsNoHidden(t *testing.T) {
	status := func(tools, prompts string) map[string]any {
		cfg := mustConfig(t, hiddenEnvelope)
		ann := hdr("x-mcp-principal", "ann")
		respond(t, cfg, ann, call("1", "tools/list", `{}`), `{"jsonrpc":"2.0","id":1,"result":{"tools":[`+tools+`]}}`)
		respond(t, cfg, ann, call("2", "prompts/list", `{}`), `{"jsonrpc":"2.0","id":2,"result":{"prompts":[`+prompts+`]}}`)
		st, err := virtualCall(t, cfg, ann, "privacy_status", `{}`)
		if err != nil {
			t.Fatal(err)
		}
		delete(st["vault"].(map[string]any), "key_fingerprint") // a random key per config
		return st
	}
	without := status(`{"name":"search"}`, ``)
	with := status(`{"name":"search"},{"name":"delete_user"}`, `{"name":"internal_notes"}`)
	if !jsonEqual(with, without) {
		t.Errorf("status with hidden primitives %v\nwithout %v", with, without)
	}
	visible := mustConfig(t, strings.Replace(hiddenEnvelope, "hide_denied: true", "hide_denied: false", 1))
	respond(t, visible, hdr("x-mcp-principal", "ann"), call("1", "tools/list", `{}`), `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search"},{"name":"delete_user"}]}}`)
	if st, _ := virtualCall(t, visible, hdr("x-mcp-principal", "ann"), "privacy_status", `{}`); !strings.Contains(jsonString(st), `"tool":{"hidden":0,"visible":2}`) {
		t.Errorf("without hide_denied the counts keep their hidden member: %v", jsonString(st))
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func jsonEqual(a, b any) bool { return jsonString(a) == jsonString(b) }

// A name that JSON escapes is put back into the decoded strings of the
// server's answer (the message is then written compactly).
func TestHiddenNameWithEscapes(t *testing.T) {
	cfg := mustConfig(t, hiddenEnvelope)
	ann := hdr("x-mcp-principal", "ann")
	request := func(name string) string { return call("1", "tools/call", `{"name":`+jsondoc.Quote(name)+`}`) }
	for _, sse := range []bool{false, true} {
		hidden := exchange(t, cfg, ann, request("delete_\"x\"\u00e9"), fakeServerWith(t, notFound), sse)
		missing := exchange(t, cfg, ann, request("nothing_\"x\"\u00e9"), fakeServerWith(t, notFound), sse)
		if got, want := strings.Replace(hidden, "delete_", "nothing_", 1), missing; got != want || strings.Contains(hidden, standInPrefix) {
			t.Errorf("hidden:  %s\nmissing: %s", hidden, missing)
		}
	}
}

// A resource URI that the input pipeline turns into a hidden one (a
// pseudonym restored to its value) goes upstream as the stand-in of the
// URI the client wrote, and answers as a missing one: before, the plugin
// answered it itself.
func TestHiddenAfterDepseudonymisation(t *testing.T) {
	cfg := mustConfig(t, `
policy:
  name: hide-pseudo
  hide_denied: true
  deny_resources: ["secret://box/alice*"]
  transforms: [pseudonymise]
  vault: {key: "hidden test key"}
identity:
  principal: [{header: x-mcp-principal}]
`)
	ann := hdr("x-mcp-principal", "ann")
	pseudonym := func(email string) string {
		out := respond(t, cfg, ann, call("1", "tools/call", `{"name":"lookup"}`),
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`+email+`"}]}}`)
		p := pseudonymRE.FindString(out)
		if p == "" {
			t.Fatalf("no pseudonym in %s", out)
		}
		return p
	}
	// (A pseudonym is restored only where its value is read back as
	// itself, transforms/restore.go: here a path segment.)
	hidden, missing := "secret://box/"+pseudonym("alice@example.com"), "secret://box/nothing"
	read := func(uri string) string { return call("2", "resources/read", `{"uri":`+jsondoc.Quote(uri)+`}`) }
	_, r := post(t, cfg, ann, read(hidden))
	if !sentAsStandIn(r, policy.KindResource, hidden) || strings.Contains(string(r.Body), "alice") {
		t.Fatalf("reply %v, forwarded %s: want the stand-in of %s", r.Reply, r.Body, hidden)
	}
	got := exchange(t, cfg, ann, read(hidden), fakeServer(t), false)
	want := exchange(t, cfg, ann, read(missing), fakeServer(t), false)
	if strings.ReplaceAll(got, hidden, "URI") != strings.ReplaceAll(want, missing, "URI") {
		t.Errorf("hidden:  %s\nmissing: %s", got, want)
	}
}
