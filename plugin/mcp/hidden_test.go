package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
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
func sentAsStandIn(cfg *Config, r BodyResult, kind policy.Kind, name string) bool {
	return r.Reply == nil && strings.Contains(string(r.Body), jsondoc.Quote(cfg.standIn(kind, name)))
}

// compactJSON is JSON b without insignificant spaces (a stand-in's params
// are padded with them to the length of those they replace).
func compactJSON(b []byte) string {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return string(b)
	}
	return out.String()
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

// roundTrip runs a request through a stream and the server's answer for
// what went upstream, as JSON or as an event stream, and returns what the
// client gets: the local reply, or the answer as rewritten.
func roundTrip(t *testing.T, cfg *Config, req fakeRequest, request string, server func(upstream string) string, sse bool) string {
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
	cfg.catalog.addTemplate("vault://{name}")
	for _, tc := range tests {
		for _, sse := range []bool{false, true} {
			name := tc.name
			if sse {
				name += " (event stream)"
			}
			t.Run(name, func(t *testing.T) {
				_, r := post(t, cfg, tc.who, tc.request(tc.hidden))
				if !sentAsStandIn(cfg, r, tc.kind, tc.hidden) {
					t.Fatalf("reply %v, forwarded %s: want its stand-in forwarded", r.Reply, r.Body)
				}
				if up := string(r.Body); strings.Contains(up, "marker") || strings.Contains(up, tc.hidden) {
					t.Errorf("the server got the caller's data or the hidden name: %s", up)
				}
				hidden := roundTrip(t, cfg, tc.who, tc.request(tc.hidden), fakeServer(t), sse)
				absent := roundTrip(t, cfg, tc.who, tc.request(tc.absent), fakeServer(t), sse)
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
			got := roundTrip(t, cfg, hdr("x-mcp-principal", c.who), call("1", "tools/call", `{"name":`+jsondoc.Quote(c.name)+`}`), fakeServer(t), false)
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
		if !sentAsStandIn(vm1, r, policy.KindTool, "delete_user") {
			t.Fatalf("legacy %v: reply %v, forwarded %s", legacy, r.Reply, r.Body)
		}
		g := NewStream(vm2)
		g.OnRequestHeaders(hdr("x-mcp-principal", "ann", "mcp-session-id", "S1"), "GET", "/mcp", true)
		g.OnResponseHeaders(200, "text/event-stream", "", false)
		in := "event: message\ndata: " + notFound("4", "tools/call", vm1.standIn(policy.KindTool, "delete_user")) + "\n\n"
		if legacy {
			in = "event: endpoint\ndata: /mcp?sessionid=S1\n\n" + in
		}
		_, edit := g.OnResponseBody(len(in), false, func() []byte { return []byte(in) })
		want := strings.ReplaceAll(in, vm1.standIn(policy.KindTool, "delete_user"), "delete_user")
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
		hidden := roundTrip(t, cfg, ann, request("delete_\"x\"\u00e9"), fakeServerWith(t, notFound), sse)
		missing := roundTrip(t, cfg, ann, request("nothing_\"x\"\u00e9"), fakeServerWith(t, notFound), sse)
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
	if !sentAsStandIn(cfg, r, policy.KindResource, hidden) || strings.Contains(string(r.Body), "alice") {
		t.Fatalf("reply %v, forwarded %s: want the stand-in of %s", r.Reply, r.Body, hidden)
	}
	got := roundTrip(t, cfg, ann, read(hidden), fakeServer(t), false)
	want := roundTrip(t, cfg, ann, read(missing), fakeServer(t), false)
	if strings.ReplaceAll(got, hidden, "URI") != strings.ReplaceAll(want, missing, "URI") {
		t.Errorf("hidden:  %s\nmissing: %s", got, want)
	}
}

// guessedStandIn is what a client can compute of a name's stand-in from
// the manual ("mcp_privacy_missing_ and a hash of the name"): the prefix
// and the name's FNV-1a hash, as the stand-in was first made.
func guessedStandIn(name string) string {
	h := fnv.New64a()
	h.Write([]byte(name))
	return standInPrefix + strconv.FormatUint(h.Sum64(), 36)
}

// A client cannot write a name's stand-in into what the server echoes (the
// request id, a completion's argument name) to see it come back changed
// for a hidden name and unchanged for a missing one. Before, the stand-in
// was the name's FNV hash, which any client computes, and the name went
// back in its place wherever it occurred, the id included.
func TestHiddenStandInUnguessable(t *testing.T) {
	cfg := mustConfig(t, hiddenEnvelope)
	ann := hdr("x-mcp-principal", "ann")
	tests := []struct {
		name           string
		hidden, absent string
		request        func(name string) string
	}{
		{"the id", "delete_user", "no_such_tool", func(n string) string {
			return call(jsondoc.Quote(guessedStandIn(n)), "tools/call", `{"name":`+jsondoc.Quote(n)+`}`)
		}},
		{"an id holding it", "internal_notes", "no_such_prompt", func(n string) string {
			return call(jsondoc.Quote("x"+guessedStandIn(n)+"x"), "prompts/get", `{"name":`+jsondoc.Quote(n)+`}`)
		}},
		{"a completion's argument name", "internal_notes", "no_such_prompt", func(n string) string {
			return call("1", "completion/complete", `{"ref":{"type":"ref/prompt","name":`+jsondoc.Quote(n)+`},"argument":{"name":`+jsondoc.Quote(guessedStandIn(n))+`,"value":""}}`)
		}},
	}
	for _, tc := range tests {
		server := fakeServerWith(t, notFound)
		if strings.Contains(tc.name, "argument") {
			// A server that names the argument it has no completions for.
			server = func(upstream string) string {
				doc, _ := jsondoc.Parse([]byte(upstream))
				arg, _ := doc.Str(doc.Path(jsondoc.Root, "params", "argument", "name"))
				ref, _ := doc.Str(doc.Path(jsondoc.Root, "params", "ref", "name"))
				return `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":` +
					jsondoc.Quote("no argument "+arg+" for prompt "+ref) + `}}`
			}
		}
		norm := func(answer, name string) string {
			return strings.ReplaceAll(strings.ReplaceAll(answer, guessedStandIn(name), "GUESS"), name, "NAME")
		}
		hidden := norm(roundTrip(t, cfg, ann, tc.request(tc.hidden), server, false), tc.hidden)
		absent := norm(roundTrip(t, cfg, ann, tc.request(tc.absent), server, false), tc.absent)
		if hidden != absent || !strings.Contains(absent, "GUESS") {
			t.Errorf("%s: hidden\n%s\nmissing\n%s", tc.name, hidden, absent)
		}
	}
}

// validatingServer checks params as the TypeScript and Go SDKs do before
// they look a name up (MCP's schema: arguments an object, a prompt's
// arguments strings, _meta an object whose progressToken is a string or
// an integer, ...), and answers a request that fails with -32602 holding
// the params it got, as the go-sdk does; else "not found".
func validatingServer(t *testing.T) func(string) string {
	notFoundFor := fakeServerWith(t, notFound)
	return func(upstream string) string {
		doc, err := jsondoc.Parse([]byte(upstream))
		if err != nil {
			t.Fatalf("upstream got %s: %v", upstream, err)
		}
		method, _ := doc.Str(doc.Get(jsondoc.Root, "method"))
		params := doc.Get(jsondoc.Root, "params")
		kind := func(keys ...string) jsondoc.Kind { return doc.Kind(doc.Path(params, keys...)) }
		present := func(keys ...string) bool { return doc.Path(params, keys...) != jsondoc.None }
		strings := func(keys ...string) bool { // an object of strings
			o := doc.Path(params, keys...)
			if doc.Kind(o) != jsondoc.Object {
				return false
			}
			for c := doc.First(o); c != jsondoc.None; c = doc.Next(c) {
				if doc.Kind(c) != jsondoc.String {
					return false
				}
			}
			return true
		}
		bad := present("_meta") && kind("_meta") != jsondoc.Object ||
			present("_meta", "progressToken") && kind("_meta", "progressToken") != jsondoc.String &&
				(kind("_meta", "progressToken") != jsondoc.Number || bytesContains(doc.Raw(doc.Path(params, "_meta", "progressToken")), "."))
		switch method {
		case "tools/call":
			bad = bad || present("arguments") && kind("arguments") != jsondoc.Object ||
				present("task") && kind("task") != jsondoc.Object
		case "prompts/get":
			bad = bad || present("arguments") && !strings("arguments")
		case "completion/complete":
			bad = bad || kind("argument", "name") != jsondoc.String || kind("argument", "value") != jsondoc.String ||
				present("context") && kind("context") != jsondoc.Object ||
				present("context", "arguments") && !strings("context", "arguments")
		}
		if bad {
			return `{"jsonrpc":"2.0","id":` + string(doc.Raw(doc.Get(jsondoc.Root, "id"))) + `,"error":{"code":-32602,"message":` +
				jsondoc.Quote("invalid params: "+string(doc.Raw(params))) + `}}`
		}
		return notFoundFor(upstream)
	}
}

// A request whose params a server would refuse as malformed is refused so
// whatever it names: a hidden name's stand-in (whose params are rebuilt
// well-formed) must not get "not found" where a missing name gets
// "invalid params". Before, arguments: 5, a _meta that is no object and
// the like told hidden from missing with the TypeScript and Go SDKs.
func TestHiddenMalformedParamsLookMissing(t *testing.T) {
	cfg := mustConfig(t, hiddenEnvelope)
	ann := hdr("x-mcp-principal", "ann")
	tool := func(extra string) func(string) string {
		return func(n string) string { return call("1", "tools/call", `{"name":`+jsondoc.Quote(n)+extra+`}`) }
	}
	prompt := func(extra string) func(string) string {
		return func(n string) string { return call("2", "prompts/get", `{"name":`+jsondoc.Quote(n)+extra+`}`) }
	}
	complete := func(extra string) func(string) string {
		return func(n string) string {
			return call("3", "completion/complete", `{"ref":{"type":"ref/prompt","name":`+jsondoc.Quote(n)+`}`+extra+`}`)
		}
	}
	read := func(extra string) func(string) string {
		return func(n string) string { return call("4", "resources/read", `{"uri":`+jsondoc.Quote(n)+extra+`}`) }
	}
	tests := []struct {
		name           string
		hidden, absent string
		request        func(string) string
	}{
		{"tool arguments a number", "delete_user", "no_such_tool", tool(`,"arguments":5`)},
		{"tool arguments null", "delete_user", "no_such_tool", tool(`,"arguments":null`)},
		{"tool arguments an array", "delete_user", "no_such_tool", tool(`,"arguments":["secret"]`)},
		{"_meta a string", "delete_user", "no_such_tool", tool(`,"_meta":"secret"`)},
		{"progressToken an object", "delete_user", "no_such_tool", tool(`,"_meta":{"progressToken":{"a":1}}`)},
		{"progressToken a fraction", "delete_user", "no_such_tool", tool(`,"_meta":{"progressToken":1.5}`)},
		{"task a string", "delete_user", "no_such_tool", tool(`,"task":"secret"`)},
		{"prompt argument a number", "internal_notes", "no_such_prompt", prompt(`,"arguments":{"id":5}`)},
		{"prompt arguments a string", "internal_notes", "no_such_prompt", prompt(`,"arguments":"secret"`)},
		{"completion without argument", "internal_notes", "no_such_prompt", complete(``)},
		{"completion value a number", "internal_notes", "no_such_prompt", complete(`,"argument":{"name":"id","value":5}`)},
		{"completion context arguments a number", "internal_notes", "no_such_prompt", complete(`,"argument":{"name":"id","value":""},"context":{"arguments":{"x":5}}}`)},
		{"resource _meta an array", "secret://keys", "nothing://here", read(`,"_meta":[]`)},
	}
	for _, tc := range tests {
		hidden := roundTrip(t, cfg, ann, tc.request(tc.hidden), validatingServer(t), false)
		absent := roundTrip(t, cfg, ann, tc.request(tc.absent), validatingServer(t), false)
		if got, want := strings.ReplaceAll(hidden, tc.hidden, "NAME"), strings.ReplaceAll(absent, tc.absent, "NAME"); got != want {
			t.Errorf("%s: hidden\n%s\nmissing\n%s", tc.name, got, want)
		}
		if strings.Contains(hidden, "secret\"") || strings.Contains(hidden, "not found") || strings.Contains(hidden, "unknown") {
			t.Errorf("%s: a malformed request was answered as well-formed: %s", tc.name, hidden)
		}
	}
	// Well-formed params still reach the server (as the stand-in).
	for _, ok := range []string{`,"arguments":{"id":5},"_meta":{"progressToken":7},"task":{"ttl":60}`, `,"_meta":{"progressToken":"p"}`} {
		if got := roundTrip(t, cfg, ann, tool(ok)("delete_user"), validatingServer(t), false); !strings.Contains(got, `unknown tool \"delete_user\"`) {
			t.Errorf("%s: %s", ok, got)
		}
	}
}

// jsonStyle is how a server's JSON writer spells strings and spaces.
type jsonStyle struct {
	name       string
	asciiOnly  bool   // \uXXXX for every non-ASCII character (Python, PHP, .NET)
	slash      bool   // \/ (PHP)
	escape     string // characters written \uXXXX (Go's HTML escaping, Gson, .NET)
	upperHex   bool   // \u00E9 (.NET)
	spaced     bool   // ", " and ": " (Python)
	controlHex bool   // \u000a for a line break (some writers)
}

func (st jsonStyle) str(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	hex := func(r rune) {
		f := "\\u%04x"
		if st.upperHex {
			f = "\\u%04X"
		}
		b.WriteString(fmt.Sprintf(f, r))
	}
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '/' && st.slash:
			b.WriteString(`\/`)
		case r == '\n' && !st.controlHex:
			b.WriteString(`\n`)
		case r < 0x20 || strings.ContainsRune(st.escape, r):
			hex(r)
		case r > 0x7e && st.asciiOnly:
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				hex(r1)
				hex(r2)
			} else {
				hex(r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// notFound is a server's answer for a name it does not have, holding the
// name in its message, in data, and in data as JSON text (JSON in JSON,
// as the go-sdk quotes params back).
func (st jsonStyle) notFound(id, method, name string) string {
	colon, comma := ":", ","
	if st.spaced {
		colon, comma = ": ", ", "
	}
	inner := "{" + st.str("name") + colon + st.str(name) + "}"
	return "{" + st.str("jsonrpc") + colon + st.str("2.0") + comma + st.str("id") + colon + id + comma +
		st.str("error") + colon + "{" + st.str("code") + colon + "-32602" + comma +
		st.str("message") + colon + st.str("no "+method+" named \""+name+"\"") + comma +
		st.str("data") + colon + "{" + st.str("name") + colon + st.str(name) + comma + st.str("params") + colon + st.str(inner) + "}}}"
}

// The hidden name goes back into the server's answer spelt as the server
// spells the same characters, spaces kept, also in JSON inside a string:
// what the client gets is what the server writes for a missing name.
// Before, a name with a character JSON writers escape differently (non-
// ASCII for Python and PHP, / for PHP, & < > ' + for Go, Gson and .NET,
// a quote or a line break) was written in the filter's own spelling, and
// the whole message re-serialized compactly.
func TestHiddenNameSpeltAsTheServerSpellsIt(t *testing.T) {
	cfg := mustConfig(t, hiddenEnvelope)
	ann := hdr("x-mcp-principal", "ann")
	styles := []jsonStyle{
		{name: "go"},
		{name: "go html", escape: "<>&\u2028\u2029"},
		{name: "python", asciiOnly: true, spaced: true},
		{name: "php", asciiOnly: true, slash: true},
		{name: "gson", escape: "<>&='"},
		{name: ".net", asciiOnly: true, escape: "<>&'+`", upperHex: true, controlHex: true},
	}
	tests := []struct {
		method, hidden, absent string
	}{
		{"tools/call", "delete_\"quoted\"", "nothing_\"quoted\""},
		{"tools/call", "delete_déjà", "nothing_déjà"},
		{"tools/call", "delete_a/b+c", "nothing_a/b+c"},
		{"tools/call", "delete_😀\n", "nothing_😀\n"},
		{"prompts/get", "internal_<b>&'x'", "nothing_<b>&'x'"},
		{"resources/read", "secret://dossier/données?a=1&b=<2>#é", "nothing://dossier/données?a=1&b=<2>#é"},
		{"resources/read", "secret://a\\b", "nothing://a\\b"},
	}
	for _, st := range styles {
		for _, tc := range tests {
			request := func(name string) string {
				member := "name"
				if tc.method == "resources/read" {
					member = "uri"
				}
				return call("1", tc.method, `{`+jsondoc.Quote(member)+`:`+jsondoc.Quote(name)+`}`)
			}
			server := fakeServerWith(t, st.notFound)
			hidden := roundTrip(t, cfg, ann, request(tc.hidden), server, false)
			absent := roundTrip(t, cfg, ann, request(tc.absent), server, false)
			hiddenPrefix, _, _ := strings.Cut(tc.hidden, "_")
			absentPrefix, _, _ := strings.Cut(tc.absent, "_")
			if tc.method == "resources/read" {
				hiddenPrefix, absentPrefix = "secret:", "nothing:"
			}
			if got := strings.ReplaceAll(hidden, hiddenPrefix, absentPrefix); got != absent {
				t.Errorf("%s, %q:\nhidden  %s\nmissing %s", st.name, tc.hidden, got, absent)
			}
		}
	}
}

// A server's notifications/resources/updated for a hidden resource does
// not reach the client: a server has no updates for a resource it does
// not have. The event keeps its id (no gap in the stream's ids) and loses
// its data, so clients dispatch nothing. Before, it told the client that
// the hidden resource exists.
func TestHiddenResourceUpdateWithheld(t *testing.T) {
	cfg := mustConfig(t, hiddenEnvelope)
	cfg.catalog.addTemplate("vault://{name}")
	update := func(uri string) string {
		return `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":` + jsondoc.Quote(uri) + `}}`
	}
	tests := []struct {
		name, in, want string
	}{
		{"static", "id: 7\ndata: " + update("secret://keys") + "\n\n", "id: 7\n\n"},
		{"template instance", "id: 8\ndata: " + update("vault://payroll") + "\n\n", "id: 8\n\n"},
		{"visible", "id: 9\ndata: " + update("docs://readme") + "\n\n", "id: 9\ndata: " + update("docs://readme") + "\n\n"},
		{"in a batch", "data: [" + update("secret://keys") + "," + update("docs://readme") + "]\n\n", "data: [" + update("docs://readme") + "]\n\n"},
	}
	for _, tc := range tests {
		g := NewStream(cfg)
		g.OnRequestHeaders(hdr("x-mcp-principal", "ann", "mcp-session-id", "S1"), "GET", "/mcp", true)
		g.OnResponseHeaders(200, "text/event-stream", "", false)
		_, edit := g.OnResponseBody(len(tc.in), false, func() []byte { return []byte(tc.in) })
		got := tc.in
		if edit.Replace {
			got = string(edit.Data)
		}
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// The answer to a stand-in that arrives on another stream gets the hidden
// name back even when the shared record of its request is gone: any
// client can overwrite that record (a request under a made-up session
// whose (session, id) falls into the same slot) before resuming the
// stream the answer waits on. Before, the stand-in then reached the
// client unchanged, telling it the name is hidden; and a served stand-in's
// content (a result with contents) reached the client with the name given
// back, where an attributed answer gets the not-found error.
func TestHiddenAnswerAfterItsRecordIsOverwritten(t *testing.T) {
	shared := newMemShared()
	vm1, _ := NewConfig([]byte(hiddenEnvelope), shared)
	vm2, _ := NewConfig([]byte(hiddenEnvelope), shared)
	// The answers to a stand-in, and what the client gets for them: the
	// server's not-found with the name back, a result that carries content
	// (a served stand-in) the not-found error.
	notFoundAnswer := func(id, method, name string) string { return notFound(id, method, name) }
	toolError := func(id, _, name string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":` + jsondoc.Quote("Tool "+name+" not found") + `}],"isError":true}}`
	}
	served := func(id, _, name string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"contents":[{"uri":` + jsondoc.Quote(name) + `,"text":"secret"}]}}`
	}
	missingError := func(id, _, name string) string {
		return string(mcpvocab.ErrorResponse(id, policy.MissingError(mcpvocab.Rev2025, policy.KindResource, name, name)))
	}
	for _, tc := range []struct {
		name, method, params string
		answer, want         func(id, method, name string) string
	}{
		{"delete_user", "tools/call", `{"name":"delete_user"}`, notFoundAnswer, notFoundAnswer},
		{"secret://dé/jà", "resources/read", `{"uri":"secret://dé/jà"}`, notFoundAnswer, notFoundAnswer},
		{"delete_user", "tools/call", `{"name":"delete_user"}`, toolError, toolError},
		{"secret://dé/jà", "resources/read", `{"uri":"secret://dé/jà"}`, served, missingError},
	} {
		s := NewStream(vm1)
		s.OnRequestHeaders(hdr("x-mcp-principal", "ann", "mcp-session-id", "S1"), "POST", "/mcp", false)
		body := call("4", tc.method, tc.params)
		r := s.OnRequestBody(len(body), true, func() []byte { return []byte(body) })
		kind := map[string]policy.Kind{"tools/call": policy.KindTool, "resources/read": policy.KindResource}[tc.method]
		sub := vm1.standIn(kind, tc.name)
		if !sentAsStandIn(vm1, r, kind, tc.name) {
			t.Fatalf("%s: reply %v, forwarded %s", tc.name, r.Reply, r.Body)
		}
		// Another client's request that takes the same slot.
		fake := ""
		for i := 0; fake == ""; i++ {
			if requestSlot("fake-"+strconv.Itoa(i), "4") == requestSlot("S1", "4") {
				fake = "fake-" + strconv.Itoa(i)
			}
		}
		post(t, vm2, hdr("x-mcp-principal", "mallory", "mcp-session-id", fake), call("4", "tools/call", `{"name":"search"}`))
		g := NewStream(vm2)
		g.OnRequestHeaders(hdr("x-mcp-principal", "ann", "mcp-session-id", "S1"), "GET", "/mcp", true)
		g.OnResponseHeaders(200, "text/event-stream", "", false)
		in := "event: message\ndata: " + tc.answer("4", tc.method, sub) + "\n\n"
		_, edit := g.OnResponseBody(len(in), false, func() []byte { return []byte(in) })
		got := in
		if edit.Replace {
			got = string(edit.Data)
		}
		if want := "event: message\ndata: " + tc.want("4", tc.method, tc.name) + "\n\n"; got != want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, want)
		}
	}
}

// A hidden call's stand-in is as long as the request it replaces: a server
// that refuses bodies over a size (Express's express.json(), used by the
// TypeScript SDK, answers 413 over 100 KB) refuses the hidden name's as
// it refuses the missing name's. Before, the stand-in dropped the
// arguments and got "not found" where the missing name got 413.
func TestHiddenRequestKeepsItsSize(t *testing.T) {
	cfg := mustConfig(t, hiddenEnvelope)
	ann := hdr("x-mcp-principal", "ann")
	const limit = 4000
	sizeLimited := func(upstream string) string {
		if len(upstream) > limit {
			return `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"request entity too large"}}`
		}
		return fakeServerWith(t, notFound)(upstream)
	}
	for _, size := range []int{limit - 60, limit - 1, limit, limit + 1, 2 * limit} {
		for _, tc := range []struct{ method, hidden, absent, params string }{
			{"tools/call", "delete_user", "nothing_xyz", `{"name":%q,"arguments":{"text":"%s"}}`},
			{"prompts/get", "internal_notes", "nothing_notes1", `{"name":%q, "arguments":{"text":"%s"}}`},
			{"completion/complete", "internal_notes", "nothing_notes1", `{"ref":{"type":"ref/prompt","name":%q},"argument":{"name":"x","value":"%s"}}`},
		} {
			request := func(name string) string {
				r := call("1", tc.method, fmt.Sprintf(tc.params, name, ""))
				return call("1", tc.method, fmt.Sprintf(tc.params, name, strings.Repeat("a", max(size-len(r), 0))))
			}
			if len(request(tc.hidden)) != len(request(tc.absent)) {
				t.Fatalf("the requests compared differ in size")
			}
			hidden := roundTrip(t, cfg, ann, request(tc.hidden), sizeLimited, false)
			absent := roundTrip(t, cfg, ann, request(tc.absent), sizeLimited, false)
			if strings.ReplaceAll(hidden, tc.hidden, "NAME") != strings.ReplaceAll(absent, tc.absent, "NAME") {
				t.Errorf("%s, %d bytes: hidden\n%s\nmissing\n%s", tc.method, len(request(tc.hidden)), hidden, absent)
			}
		}
	}
}

// A hidden call's arguments pass the input pipeline as a missing name's
// would: a block step that refuses what they hold refuses it for both
// alike (-32004 from the filter), and a pseudonym in them is used (its
// last use renewed, so it expires for both alike under ttl_seconds).
// Before, the hidden call skipped the input pipeline: its stand-in got
// "not found" where the missing name got -32004.
func TestHiddenArgumentsPassTheInputPipeline(t *testing.T) {
	cfg := mustConfig(t, `
policy:
  name: hide-input
  hide_denied: true
  deny_tools: ["delete_*"]
  deny_prompts: ["delete_*"]
  deny_resources: ["secret://*"]
  input_transforms: [{type: block, options: {detectors: [email]}}]
identity:
  principal: [{header: x-mcp-principal}]
`)
	ann := hdr("x-mcp-principal", "ann")
	tests := []struct {
		name, hidden, absent string
		request              func(name string) string
		want                 string
	}{
		{"tool arguments", "delete_user", "nothing_user", func(n string) string {
			return call("1", "tools/call", `{"name":`+jsondoc.Quote(n)+`,"arguments":{"to":"carol@example.com"}}`)
		}, "-32004"},
		{"prompt arguments", "delete_user", "nothing_user", func(n string) string {
			return call("2", "prompts/get", `{"name":`+jsondoc.Quote(n)+`,"arguments":{"to":"carol@example.com"}}`)
		}, "-32004"},
		{"resource URI", "secret://carol@example.com", "nothing://carol@example.com", func(n string) string {
			// (An address after a scheme of the server's own is an email,
			// transforms: the block step fires for both alike.)
			return call("3", "resources/read", `{"uri":`+jsondoc.Quote(n)+`}`)
		}, "-32004"},
		{"completion value", "delete_user", "nothing_user", func(n string) string {
			return call("4", "completion/complete", `{"ref":{"type":"ref/prompt","name":`+jsondoc.Quote(n)+`},"argument":{"name":"to","value":"carol@example.com"}}`)
		}, "-32004"},
	}
	for _, tc := range tests {
		hidden := roundTrip(t, cfg, ann, tc.request(tc.hidden), fakeServer(t), false)
		absent := roundTrip(t, cfg, ann, tc.request(tc.absent), fakeServer(t), false)
		if strings.ReplaceAll(hidden, tc.hidden, "NAME") != strings.ReplaceAll(absent, tc.absent, "NAME") || !strings.Contains(absent, tc.want) {
			t.Errorf("%s: hidden\n%s\nmissing\n%s\nwant both %s", tc.name, hidden, absent, tc.want)
		}
	}
}

// A server may serve a hidden primitive's stand-in: a resource template
// matching any name of the scheme the stand-in keeps, a tool that takes
// any name. What it answers is content of a family the caller may not
// read: the client gets the request revision's not-found instead, never
// the content (regression, issue 13: vault://{id} served the stand-in of
// a hidden vault:// resource, and the client read "secret").
func TestHiddenStandInServedIsNotFound(t *testing.T) {
	cfg := mustConfig(t, strings.Replace(hiddenEnvelope, "{virtual_tools: true}", "{virtual_tools: true, hold_headers: true}", 1))
	for _, c := range []struct {
		name, method, params string
		kind                 policy.Kind
		hidden               string
		rev2026              bool
		want                 string
	}{
		{"resource 2025", "resources/read", `{"uri":"secret://c-1"}`, policy.KindResource, "secret://c-1", false,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"secret://c-1"}}}`},
		{"resource 2026", "resources/read", `{"uri":"secret://c-1",` + meta2026 + `}`, policy.KindResource, "secret://c-1", true,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Resource not found","data":{"uri":"secret://c-1"}}}`},
		{"tool 2026", "tools/call", `{"name":"delete_all","arguments":{},` + meta2026 + `}`, policy.KindTool, "delete_all", true,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool: delete_all"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, body := hdr("x-mcp-principal", "ann", "content-type", "application/json"), call("1", c.method, c.params)
			if c.rev2026 {
				req = as2026(req, body)
			}
			s, r := post(t, cfg, req, body)
			if !sentAsStandIn(cfg, r, c.kind, c.hidden) {
				t.Fatalf("not sent as a stand-in: reply %+v, body %s", r.Reply, r.Body)
			}
			sub := cfg.standIn(c.kind, c.hidden)
			served := `{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"` + sub + `","text":"secret"}],` +
				`"content":[{"type":"text","text":"secret"}]}}`
			got := finish(t, s, served)
			if strings.Contains(got, `"text"`) || compactJSON([]byte(got)) != c.want {
				t.Errorf("client got %s, want %s", got, c.want)
			}
		})
	}
}

// A server says "not found" with an error or with a result that carries
// nothing of a primitive (notFoundResult): the TypeScript SDK v1's
// McpServer answers an unknown tool with isError: true. For every such
// shape, of every method naming a primitive, at both revisions, a hidden
// name's answer is the missing name's, name for name; a result that
// carries content is a served stand-in, and the hidden name gets the
// revision's not-found error instead (TestHiddenStandInServedIsNotFound).
// Before, every result of a stand-in became that error, so a hidden tool
// got an error where a missing one got the server's result.
func TestHiddenNotFoundResultLooksMissing(t *testing.T) {
	cfg := mustConfig(t, strings.Replace(hiddenEnvelope, "{virtual_tools: true}", "{virtual_tools: true, hold_headers: true}", 1))
	cfg.catalog.addTemplate("vault://{name}")
	q := jsondoc.Quote
	type request struct {
		kind            policy.Kind
		hidden, missing string
		body            func(name, meta string) string
	}
	var (
		tool = request{policy.KindTool, "delete_user", "no_such_tool", func(n, meta string) string {
			return call("1", "tools/call", `{"name":`+q(n)+`,"arguments":{"id":"c-1"}`+meta+`}`)
		}}
		prompt = request{policy.KindPrompt, "internal_notes", "no_such_prompt", func(n, meta string) string {
			return call("2", "prompts/get", `{"name":`+q(n)+`,"arguments":{"id":"c-1"}`+meta+`}`)
		}}
		read = request{policy.KindResource, "secret://keys", "nothing://here", func(n, meta string) string {
			return call("3", "resources/read", `{"uri":`+q(n)+meta+`}`)
		}}
		completePrompt = request{policy.KindPrompt, "internal_notes", "no_such_prompt", func(n, meta string) string {
			return call("4", "completion/complete", `{"ref":{"type":"ref/prompt","name":`+q(n)+`},"argument":{"name":"id","value":"c"}`+meta+`}`)
		}}
		completeTemplate = request{policy.KindResource, "vault://{name}", "nothing://{name}", func(n, meta string) string {
			return call("5", "completion/complete", `{"ref":{"type":"ref/resource","uri":`+q(n)+`},"argument":{"name":"name","value":"c"}`+meta+`}`)
		}}
		subscribe = request{policy.KindResource, "secret://keys", "nothing://here", func(n, meta string) string {
			return call("6", "resources/subscribe", `{"uri":`+q(n)+meta+`}`)
		}}
	)
	const serverInfo = `,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}`
	tests := []struct {
		name     string
		requests []request
		// result is the server's result for every name it is sent, NAME
		// standing for that name (as JSON escapes it inside a string).
		result   string
		notFound bool
	}{
		{"TypeScript SDK v1 unknown tool", []request{tool},
			`{"content":[{"type":"text","text":"MCP error -32602: Tool NAME not found"}],"isError":true}`, true},
		{"error result as Python writes it", []request{tool},
			`{"content": [{"type": "text", "text": "Unknown tool: NAME", "annotations": {"audience": ["user"]}}], "isError": true}`, true},
		{"error result with 2026 members", []request{tool},
			`{"content":[{"type":"text","text":"Tool NAME not found"}],"isError":true` + serverInfo + `}`, true},
		{"error result without content", []request{tool}, `{"isError":true}`, true},
		{"text result", []request{tool}, `{"content":[{"type":"text","text":"secret of NAME"}]}`, false},
		{"text result, isError false", []request{tool}, `{"content":[{"type":"text","text":"secret"}],"isError":false}`, false},
		{"isError a string", []request{tool}, `{"content":[{"type":"text","text":"secret"}],"isError":"true"}`, false},
		{"error result with an image", []request{tool},
			`{"content":[{"type":"image","data":"c2VjcmV0","mimeType":"image/png"}],"isError":true}`, false},
		{"error result with a resource in a text item", []request{tool},
			`{"content":[{"type":"text","text":"x","resource":{"uri":"a://b","text":"secret"}}],"isError":true}`, false},
		{"error result with structured content", []request{tool}, `{"content":[],"structuredContent":{"secret":1},"isError":true}`, false},
		{"error result with a member of its own", []request{tool}, `{"isError":true,"secret":"x"}`, false},
		{"input required", []request{tool, prompt, read},
			`{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"secret"}}}}`, false},
		{"task", []request{tool}, `{"resultType":"task","taskId":"secret","status":"working"}`, false},
		{"no messages", []request{prompt}, `{"messages":[]}`, true},
		{"no messages, 2026 members", []request{prompt}, `{"messages":[]` + serverInfo + `}`, true},
		{"no messages but a description", []request{prompt}, `{"description":"secret","messages":[]}`, false},
		{"messages", []request{prompt}, `{"messages":[{"role":"user","content":{"type":"text","text":"secret"}}]}`, false},
		{"no contents", []request{read}, `{"contents":[]}`, true},
		{"no contents, caching hints", []request{read}, `{"contents":[],"ttlMs":60000,"cacheScope":"public","_meta":{"example.com/uri":"NAME"}}`, true},
		{"no contents, 2026 members", []request{read}, `{"contents":[]` + serverInfo + `}`, true},
		{"nothing", []request{read, subscribe}, `{}`, true},
		{"contents null (a nil slice in Go)", []request{read}, `{"contents":null}`, true},
		{"messages null", []request{prompt}, `{"messages":null}`, true},
		{"values null", []request{completePrompt, completeTemplate}, `{"completion":{"values":null}}`, true},
		{"error result with content null", []request{tool}, `{"content":null,"isError":true}`, true},
		{"contents", []request{read}, `{"contents":[{"uri":"NAME","text":"secret"}]}`, false},
		{"contents an object", []request{read}, `{"contents":{"secret":1}}`, false},
		{"no values (the TypeScript SDK's empty completion)", []request{completePrompt, completeTemplate},
			`{"completion":{"values":[],"hasMore":false}}`, true},
		{"no values, total 0", []request{completePrompt, completeTemplate}, `{"completion":{"values":[],"total":0}` + serverInfo + `}`, true},
		{"values", []request{completePrompt, completeTemplate}, `{"completion":{"values":["secret"]}}`, false},
		{"no values but a total", []request{completePrompt, completeTemplate}, `{"completion":{"values":[],"total":3}}`, false},
		{"no values but more", []request{completePrompt, completeTemplate}, `{"completion":{"values":[],"hasMore":true}}`, false},
		{"a subscription's result with a member of its own", []request{subscribe}, `{"secret":"x"}`, false},
	}
	for _, tc := range tests {
		for _, rq := range tc.requests {
			for _, rev2026 := range []bool{false, true} {
				body := rq.body("x", "")
				method := body[strings.Index(body, `"method":"`)+10:]
				method = method[:strings.IndexByte(method, '"')]
				if rev2026 && method == "resources/subscribe" {
					continue // removed by 2026-07-28
				}
				t.Run(fmt.Sprintf("%s/%s/2026=%v", tc.name, method, rev2026), func(t *testing.T) {
					meta := ""
					if rev2026 {
						meta = "," + meta2026
					}
					server := func(upstream string) string {
						var m struct {
							ID     json.RawMessage
							Params struct {
								Name, URI string
								Ref       struct{ Name, URI string }
							}
						}
						if err := json.Unmarshal([]byte(upstream), &m); err != nil {
							t.Fatalf("upstream got %s: %v", upstream, err)
						}
						name := m.Params.Name + m.Params.URI + m.Params.Ref.Name + m.Params.Ref.URI
						result := strings.ReplaceAll(tc.result, "NAME", strings.Trim(q(name), `"`))
						return `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + `}`
					}
					answer := func(name string) string {
						body := rq.body(name, meta)
						req := hdr("x-mcp-principal", "ann", "content-type", "application/json")
						if rev2026 {
							req = as2026(req, body)
						}
						return roundTrip(t, cfg, req, body, server, false)
					}
					hidden, missing := answer(rq.hidden), answer(rq.missing)
					if strings.Contains(hidden, standInPrefix) || strings.Contains(tc.result, "NAME") && !strings.Contains(hidden, rq.hidden) {
						t.Errorf("hidden %s: the stand-in reached the client, or the name did not: %s", rq.hidden, hidden)
					}
					if !tc.notFound {
						// A served stand-in: the revision's not-found.
						rev := map[bool]mcpvocab.Revision{false: mcpvocab.Rev2025, true: mcpvocab.Rev2026}[rev2026]
						var id struct{ ID json.RawMessage }
						_ = json.Unmarshal([]byte(hidden), &id)
						want := mcpvocab.ErrorResponse(string(id.ID), policy.MissingError(rev, rq.kind, rq.hidden, rq.hidden))
						if !strings.Contains(missing, `"result":`) || compactJSON([]byte(hidden)) != string(want) {
							t.Errorf("content: hidden got %s\nmissing got %s", hidden, missing)
						}
						return
					}
					got, want := strings.ReplaceAll(hidden, rq.hidden, "NAME"), strings.ReplaceAll(missing, rq.missing, "NAME")
					if got != want || !strings.Contains(hidden, `"result":`) {
						t.Errorf("hidden:  %s\nmissing: %s", got, want)
					}
				})
			}
		}
	}
}

// Behind an aggregating router (Envoy's mcp_router) a hidden primitive's
// stand-in keeps the router's prefix, so it reaches the backend the name
// names, and the backend's "not found", which names what the router left
// of it, comes back naming what the router left of the client's name:
// what the client gets is what it gets for a missing name of that
// backend. Before, the stand-in had no prefix: the router answered 400
// (no backend), which a client's SDK takes as a failed session, and a
// resource's came back naming the stand-in without the prefix.
func TestHiddenBehindARouterLooksMissing(t *testing.T) {
	cfg := mustConfig(t, `
policy:
  name: hide
  hide_denied: true
  deny_tools: ["crm__delete_*"]
  deny_prompts: ["crm__internal_*"]
  deny_resources: ["crm+secret://*"]
server: {router_backends: [crm]}
identity:
  principal: [{header: x-mcp-principal}]
`)
	ann := hdr("x-mcp-principal", "ann")
	// router is mcp_router in front of fakeServer: it strips the prefix
	// (the first __ of a name, the backend+ of a URI's scheme) and
	// answers 400, not JSON-RPC, for a name of no backend.
	backendServer := fakeServer(t)
	router := func(upstream string) string {
		doc, err := jsondoc.Parse([]byte(upstream))
		if err != nil {
			t.Fatalf("upstream got %s: %v", upstream, err)
		}
		params := doc.Get(jsondoc.Root, "params")
		member := "name"
		name, ok := doc.Str(doc.Get(params, member))
		if !ok {
			member = "uri"
			name, _ = doc.Str(doc.Get(params, member))
		}
		var rest string
		if member == "name" {
			backend, r, ok := strings.Cut(name, "__")
			if !ok || backend != "crm" {
				return "400 no backend"
			}
			rest = r
		} else {
			r, ok := strings.CutPrefix(name, "crm+")
			if !ok {
				return "400 no backend"
			}
			rest = r
		}
		doc.SetString(doc.Get(params, member), rest)
		return backendServer(string(doc.Bytes()))
	}
	tests := []struct {
		name           string
		method, member string
		hidden, absent string
		strip          func(string) string
	}{
		{"tool", "tools/call", "name", "crm__delete_user", "crm__no_such_tool", func(n string) string { return strings.TrimPrefix(n, "crm__") }},
		{"prompt", "prompts/get", "name", "crm__internal_notes", "crm__no_such_prompt", func(n string) string { return strings.TrimPrefix(n, "crm__") }},
		{"resource", "resources/read", "uri", "crm+secret://keys", "crm+nothing://here", func(n string) string { return strings.TrimPrefix(n, "crm+") }},
	}
	for _, tc := range tests {
		for _, sse := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s sse=%v", tc.name, sse), func(t *testing.T) {
				request := func(n string) string {
					return call("1", tc.method, `{`+jsondoc.Quote(tc.member)+`:`+jsondoc.Quote(n)+`}`)
				}
				hidden := roundTrip(t, cfg, ann, request(tc.hidden), router, sse)
				absent := roundTrip(t, cfg, ann, request(tc.absent), router, sse)
				if strings.Contains(hidden, "400 no backend") || strings.Contains(hidden, standInPrefix) {
					t.Fatalf("hidden: %s", hidden)
				}
				got := strings.ReplaceAll(hidden, tc.strip(tc.hidden), "NAME")
				want := strings.ReplaceAll(absent, tc.strip(tc.absent), "NAME")
				if got != want {
					t.Errorf("hidden:  %s\nmissing: %s", got, want)
				}
			})
		}
	}
}

// splitRouted splits what mcp_router gives and nothing else; routedName
// only names of the backends server.router_backends lists.
func TestRoutedName(t *testing.T) {
	tests := []struct {
		kind         policy.Kind
		name         string
		prefix, rest string
	}{
		{policy.KindTool, "crm__lookup", "crm__", "lookup"},
		{policy.KindTool, "crm__a__b", "crm__", "a__b"},
		{policy.KindPrompt, "ops__runbook", "ops__", "runbook"},
		{policy.KindTool, "lookup", "", ""},
		{policy.KindTool, "__lookup", "", ""},
		{policy.KindTool, "a_b", "", ""},
		{policy.KindResource, "crm+file:///x", "crm+", "file:///x"},
		{policy.KindResource, "crm+://x", "crm+", "://x"}, // the router's name of a URI without a scheme, and what it sends on
		{policy.KindResource, "file:///x", "", ""},
		{policy.KindResource, "crm__file:///x", "", ""},
		{policy.KindResourceTemplate, "crm+customers://{id}", "crm+", "customers://{id}"},
	}
	for _, tc := range tests {
		prefix, rest, ok := splitRouted(tc.kind, tc.name)
		if ok != (tc.prefix != "") || prefix != tc.prefix || rest != tc.rest {
			t.Errorf("%v %q: %q %q %v, want %q %q", tc.kind, tc.name, prefix, rest, ok, tc.prefix, tc.rest)
		}
	}
}

func TestRoutedNameNeedsItsBackendListed(t *testing.T) {
	routed := mustConfig(t, "policy: standard\nserver: {router_backends: [crm]}\n")
	plain := mustConfig(t, "policy: standard\n")
	for _, name := range []string{"crm__delete", "crm+file:///x"} {
		kind := policy.KindTool
		if strings.Contains(name, "://") {
			kind = policy.KindResource
		}
		if _, _, ok := routed.routedName(kind, name); !ok {
			t.Errorf("%s: not routed with crm listed", name)
		}
		if _, _, ok := plain.routedName(kind, name); ok {
			t.Errorf("%s: routed without a router", name)
		}
	}
	if _, _, ok := routed.routedName(policy.KindTool, "ops__deploy"); ok {
		t.Error("ops__deploy: routed, but ops is no backend")
	}
	// Without a router a tool's stand-in carries nothing of its name.
	if sub := plain.standIn(policy.KindTool, "crm__delete"); !strings.HasPrefix(sub, standInPrefix) {
		t.Errorf("stand-in %s", sub)
	}
	if sub := routed.standIn(policy.KindTool, "crm__delete"); !strings.HasPrefix(sub, "crm__"+standInPrefix) {
		t.Errorf("routed stand-in %s", sub)
	}
}
