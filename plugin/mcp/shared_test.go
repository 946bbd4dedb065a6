package mcp

import (
	"github.com/cloudg/mcp-privacy/internal/shareddata/shareddatatest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/policy"
)

// newMemShared is shared data stricter than the host's
// (shareddatatest.PerKey).
func newMemShared() *shareddatatest.PerKey { return shareddatatest.NewPerKey() }

// What one worker VM learns from a list, another uses to judge a call.
func TestLearningSharedAcrossWorkers(t *testing.T) {
	shared := newMemShared()
	vm := func() *Config {
		cfg, errs := NewConfig([]byte(listEnvelope), shared)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		return cfg
	}
	vm1, vm2 := vm(), vm()
	ann := hdr("x-mcp-principal", "ann")
	respond(t, vm1, ann, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"shell","_meta":{"io.cloudg/privacy":{"capabilities":["exec"],"tags":["ops"],"category":"ops","transform_hints":{"skip":["pii"]}}}}]}}`)
	respond(t, vm1, ann, `{"jsonrpc":"2.0","id":2,"method":"resources/templates/list"}`,
		`{"jsonrpc":"2.0","id":2,"result":{"resourceTemplates":[{"uriTemplate":"vault://{name}","name":"v"}]}}`)

	if _, r := post(t, vm2, ann, call("3", "tools/call", `{"name":"shell"}`)); !sentAsStandIn(vm2, r, policy.KindTool, "shell") {
		t.Errorf("worker 2 allowed a tool worker 1 learned needs exec: %+v", r)
	}
	if _, r := post(t, vm2, ann, call("4", "resources/read", `{"uri":"vault://payroll"}`)); !sentAsStandIn(vm2, r, policy.KindResource, "vault://payroll") {
		t.Errorf("worker 2 did not resolve a template worker 1 learned: %+v", r)
	}
	m, ok := vm2.catalog.lookup(policy.KindTool, "shell")
	if !ok || m.Category != "ops" || !reflect.DeepEqual(m.Tags, []string{"ops"}) || !m.Capabilities.Has(policy.Exec) || m.Hints.Get("skip") == nil {
		t.Errorf("metadata on worker 2: %+v %v", m, ok)
	}
}

func TestLearnedSlots(t *testing.T) {
	meta := policy.Metadata{Category: "c", Tags: []string{"a", "b"}, Sensitivity: policy.Restricted,
		Capabilities: policy.CapabilitySet(0).With(policy.ReadFS), Hints: policy.Object(policy.Member{Key: "mask", Value: policy.Object()})}
	b := encodeLearned(policy.KindPrompt, "p", meta)
	got, ok := decodeLearned(b, policy.KindPrompt, "p")
	if !ok || got.Category != "c" || !reflect.DeepEqual(got.Tags, meta.Tags) || got.Sensitivity != policy.Restricted ||
		got.Capabilities != meta.Capabilities || got.Hints.JSON("") != `{"mask":{}}` {
		t.Errorf("round trip: %+v %v", got, ok)
	}
	// A slot holding another primitive (a collision) reads as absent.
	if _, ok := decodeLearned(b, policy.KindPrompt, "q"); ok {
		t.Error("another name's slot was used")
	}
	if _, ok := decodeLearned(b, policy.KindTool, "p"); ok {
		t.Error("another kind's slot was used")
	}
	for i := range b {
		decodeLearned(b[:i], policy.KindPrompt, "p") // truncated slots must not panic
	}
	// Keys are bounded: a slot number below learnedSlots.
	shared := newMemShared()
	cfg, _ := NewConfig([]byte(listEnvelope), shared)
	for i := range 20000 {
		cfg.catalog.learn(policy.KindTool, "t"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune(i)), policy.Metadata{}, 1)
	}
	if n := len(shared.Keys()); n > learnedSlots {
		t.Errorf("%d shared keys for 20000 learned tools, want at most %d", n, learnedSlots)
	}
}

// The legacy transport: a refused request goes upstream as a ping with its
// id, and the ping's answer on the GET stream (another worker VM) becomes
// the refusal.
func TestLegacyDeferredAnswers(t *testing.T) {
	shared := newMemShared()
	post1, _ := NewConfig([]byte(listEnvelope), shared)
	get2, _ := NewConfig([]byte(listEnvelope), shared)
	ann := hdr("x-mcp-principal", "ann")

	s := NewStream(post1)
	if h := s.OnRequestHeaders(ann, "POST", "/mcp?sessionid=S1", false); h.Reply != nil {
		t.Fatal(h.Reply)
	}
	// Refused locally: invalid params (a hidden tool's call would go
	// upstream as its stand-in, hidden.go).
	body := `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"","arguments":{"marker":"x"}}}`
	r := s.OnRequestBody(len(body), true, func() []byte { return []byte(body) })
	if r.Reply != nil || string(r.Body) != `{"jsonrpc":"2.0","id":4,"method":"ping"}` {
		t.Fatalf("legacy refusal: reply %+v, forwarded %s", r.Reply, r.Body)
	}

	g := NewStream(get2)
	g.OnRequestHeaders(ann, "GET", "/mcp", true)
	g.OnResponseHeaders(200, "text/event-stream", "", false)
	in := "event: endpoint\ndata: /mcp?sessionid=S1\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}\n\n"
	_, edit := g.OnResponseBody(len(in), false, func() []byte { return []byte(in) })
	want := "event: endpoint\ndata: /mcp?sessionid=S1\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32602,\"message\":\"Invalid params: params.name must be a non-empty string\"}}\n\n"
	if !edit.Replace || string(edit.Data) != want {
		t.Errorf("GET stream:\n got %q\nwant %q", edit.Data, want)
	}
	// Taken once: a second response with that id is not rewritten again.
	if _, ok := get2.catalog.takeAnswer("S1", "4"); ok {
		t.Error("a deferred answer was kept after use")
	}
	// Streamable HTTP (Mcp-Session-Id) is not legacy: refusals are local.
	s = NewStream(post1)
	s.OnRequestHeaders(hdr("x-mcp-principal", "ann", "mcp-session-id", "S2"), "POST", "/mcp?sessionid=S2", false)
	if r := s.OnRequestBody(len(body), true, func() []byte { return []byte(body) }); r.Reply == nil {
		t.Error("a Streamable HTTP refusal was not answered locally")
	}
}

// A list response that comes back on another stream of the session (a
// resumed GET stream, possibly on another worker VM) is matched to its
// request through shared data: here privacy_status joins it because the
// request asked for the first page.
func TestResumedStreamMatchedBySession(t *testing.T) {
	shared := newMemShared()
	vm1, _ := NewConfig([]byte(listEnvelope), shared)
	vm2, _ := NewConfig([]byte(listEnvelope), shared)
	ann := hdr("x-mcp-principal", "ann", "mcp-session-id", "S9")
	// The POST's own stream breaks before the answer comes.
	post(t, vm1, ann, `{"jsonrpc":"2.0","id":"L1","method":"tools/list"}`)

	g := NewStream(vm2)
	g.OnRequestHeaders(ann, "GET", "/mcp", true)
	g.OnResponseHeaders(200, "text/event-stream", "", false)
	in := "id: e5\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"L1\",\"result\":{\"tools\":[{\"name\":\"search\"},{\"name\":\"admin_reset\"}]}}\n\n"
	_, edit := g.OnResponseBody(len(in), false, func() []byte { return []byte(in) })
	want := "id: e5\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"L1\",\"result\":{\"tools\":[{\"name\":\"search\"}," + string(privacyStatusTool) + "," + string(previewTransformTool) + "]}}\n\n"
	if !edit.Replace || string(edit.Data) != want {
		t.Errorf("resumed answer:\n got %q\nwant %q", edit.Data, want)
	}
	// Another session's id does not match.
	other := NewStream(vm2)
	other.OnRequestHeaders(hdr("x-mcp-principal", "ann", "mcp-session-id", "S10"), "GET", "/mcp", true)
	other.OnResponseHeaders(200, "text/event-stream", "", false)
	_, edit = other.OnResponseBody(len(in), false, func() []byte { return []byte(in) })
	if strings.Contains(string(edit.Data), "privacy_status") || strings.Contains(string(edit.Data), "admin_reset") {
		t.Errorf("another session's stream: %q", edit.Data)
	}
}

// A VM writes learned metadata to shared data when it changed, when the VM
// had only read it, or when its own write is older than learnedResync;
// a list repeating what it wrote recently writes nothing, and another VM
// still reads what was learned.
func TestLearnWritesOnlyWhatChanged(t *testing.T) {
	exec := policy.Metadata{Capabilities: policy.CapabilitySet(0).With(policy.Exec)}
	tagged := policy.Metadata{Tags: []string{"crm"}}
	t0 := int64(1_000_000_000_000)
	steps := []struct {
		vm     int
		meta   policy.Metadata
		at     time.Duration
		writes bool
	}{
		{0, policy.Metadata{}, 0, true},                      // first learned
		{0, policy.Metadata{}, time.Second, false},           // the same, soon after
		{0, exec, 2 * time.Second, true},                     // changed
		{0, exec, 3 * time.Second, false},                    // the same again
		{0, exec, 3*time.Second + learnedResync, true},       // resynced
		{1, exec, 4*time.Second + learnedResync, true},       // the other VM never wrote it
		{1, tagged, 5*time.Second + learnedResync, true},     // changed on the other VM
		{0, exec, 6*time.Second + learnedResync, false},      // VM 0 wrote exec recently: stale slot kept until resync
		{0, exec, 4*time.Second + 2*learnedResync, true},     // resynced: the slot says exec again
		{0, exec, 4*time.Second + 2*learnedResync - 1, true}, // the clock went back: written
	}
	shared := newMemShared()
	var cfgs [2]*Config
	for i := range cfgs {
		cfgs[i], _ = NewConfig([]byte(listEnvelope), shared)
	}
	key := cfgs[0].catalog.sharedKey("learned", slotOf(policy.KindTool, "search"))
	for i, st := range steps {
		_, before, _ := shared.Get(key)
		cfgs[st.vm].catalog.learn(policy.KindTool, "search", st.meta, t0+int64(st.at))
		_, after, _ := shared.Get(key)
		if wrote := after != before; wrote != st.writes {
			t.Errorf("step %d: wrote %v, want %v", i, wrote, st.writes)
		}
	}
	// A third VM reads the last write.
	third, _ := NewConfig([]byte(listEnvelope), shared)
	if m, ok := third.catalog.lookup(policy.KindTool, "search"); !ok || !sameMetadata(&m, &exec) {
		t.Errorf("third VM read %+v, %v; want %+v", m, ok, exec)
	}
}

// Two streams of one session that use one id (MCP forbids it) leave the
// id ambiguous: its response arriving on a resumed stream is withheld and
// replaced by an error, since either call's pipeline could be the wrong
// one. Regression: the later request's pipeline was applied.
func TestResumedResponseToReusedIDWithheld(t *testing.T) {
	shared := newMemShared()
	vm1, _ := NewConfig([]byte(listEnvelope), shared)
	vm2, _ := NewConfig([]byte(listEnvelope), shared)
	vm2.Metrics = memMetrics{}
	ann := hdr("x-mcp-principal", "ann", "mcp-session-id", "S11")
	post(t, vm1, ann, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
	post(t, vm2, ann, `{"jsonrpc":"2.0","id":7.0,"method":"prompts/list"}`) // 7 by value

	g := NewStream(vm2)
	g.OnRequestHeaders(ann, "GET", "/mcp", true)
	g.OnResponseHeaders(200, "text/event-stream", "", false)
	in := "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"tools\":[{\"name\":\"search\"}]}}\n\n"
	_, edit := g.OnResponseBody(len(in), false, func() []byte { return []byte(in) })
	if !edit.Replace || !strings.Contains(string(edit.Data), `"error":{"code":-32603`) || strings.Contains(string(edit.Data), "search") {
		t.Errorf("response to a reused id: %q", edit.Data)
	}
	if n := vm2.Metrics.(memMetrics)[errorsMetric(failAmbiguousID)]; n != 1 {
		t.Errorf("ambiguous_id counted %d times", n)
	}
	// An id reused for an identical request is still matched: either
	// attribution judges the response alike.
	post(t, vm1, ann, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	post(t, vm2, ann, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	in = "data: {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"tools\":[{\"name\":\"search\"},{\"name\":\"admin_reset\"}]}}\n\n"
	_, edit = g.OnResponseBody(len(in), false, func() []byte { return []byte(in) })
	if !edit.Replace || !strings.Contains(string(edit.Data), "privacy_status") || strings.Contains(string(edit.Data), "admin_reset") {
		t.Errorf("response to id 9, reused for the same request, not matched: %q", edit.Data)
	}
	// An id used once is still matched.
	post(t, vm1, ann, `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)
	in = "data: {\"jsonrpc\":\"2.0\",\"id\":8.0,\"result\":{\"tools\":[{\"name\":\"search\"},{\"name\":\"admin_reset\"}]}}\n\n"
	_, edit = g.OnResponseBody(len(in), false, func() []byte { return []byte(in) })
	if !edit.Replace || !strings.Contains(string(edit.Data), "privacy_status") || strings.Contains(string(edit.Data), "admin_reset") {
		t.Errorf("response to id 8 (echoed as 8.0) not matched: %q", edit.Data)
	}
}

// The legacy transport's session is in the query, where servers read it
// differently: the go-sdk takes the first sessionid, Starlette (the Python
// SDK, session_id) the last, ASP.NET Core any case of sessionId, and all
// decode the name. The plugin attributes the answers that come back on the
// session's GET stream by the session it read; reading another one than
// the server, it put the call's answer through the policy-level pipeline
// instead of the call's (its rules' transforms skipped) and lost its audit
// entry. A request whose session servers could read differently is
// refused; one session named once (or the same one several ways) is read
// as every server reads it.
func TestLegacySessionReadAlike(t *testing.T) {
	cfg := mustConfig(t, testEnvelope)
	tests := []struct {
		target  string
		header  string // mcp-session-id
		session string // "" refused
	}{
		{"/mcp?sessionid=S1", "", "S1"},
		{"/mcp?sessionId=S1", "", "S1"},
		{"/mcp?session_id=S1", "", "S1"},
		{"/mcp?SessionID=S1", "", "S1"},
		{"/mcp?session%5Fid=S1", "", "S1"},
		{"/mcp?x=1&session_id=S%31", "", "S1"},
		{"/mcp?sessionid=S1&sessionId=S1", "", "S1"},
		{"/mcp?sessionid=S1", "S1", "S1"},
		// Two sessions: which one a server reads depends on the server.
		{"/mcp?sessionid=S1&sessionid=S2", "", ""},
		{"/mcp?sessionId=S1&sessionid=S2", "", ""},
		{"/mcp?session_id=S1&sessionid=S2", "", ""},
		{"/mcp?sessionid=S1&SESSIONID=S2", "", ""},
		{"/mcp?sessionid=S1&session%5Fid=S2", "", ""},
		{"/mcp?sessionid=S1&session%5fid=S2", "", ""},
		{"/mcp?x=1;sessionid=S2&sessionid=S1", "", ""},
		{"/mcp?sessionid=%zz&sessionid=S1", "", ""},
		{"/mcp?sessionid=&sessionid=S1", "", ""},
		// A header names another session than the query: a legacy server
		// reads the query, a Streamable HTTP one the header.
		{"/mcp?sessionid=S2", "S1", ""},
	}
	for _, tc := range tests {
		for _, method := range []string{"POST", "GET"} {
			req := hdr("x-mcp-principal", "ann")
			if tc.header != "" {
				req.headers["mcp-session-id"] = tc.header
			}
			s := NewStream(cfg)
			r := s.OnRequestHeaders(req, method, tc.target, method == "GET")
			if tc.session == "" {
				refusal(t, r.Reply, 400, "session")
				continue
			}
			if r.Reply != nil || s.ex.session != tc.session {
				t.Errorf("%s %q (header %q): session %q, reply %+v; want %q", method, tc.target, tc.header, s.ex.session, r.Reply, tc.session)
			}
			if legacy := method == "POST" && tc.header == ""; s.ex.legacy != legacy {
				t.Errorf("%s %q (header %q): legacy %v", method, tc.target, tc.header, s.ex.legacy)
			}
		}
	}
	// The endpoint event of a legacy GET stream is read the same way.
	for _, tc := range []struct{ data, session string }{
		{"/mcp?sessionid=S1", "S1"},
		{"/mcp?session%5Fid=S1", "S1"},
		{"/mcp?sessionid=S1&sessionid=S2", ""},
	} {
		s := NewStream(cfg)
		s.OnRequestHeaders(hdr("x-mcp-principal", "ann"), "GET", "/mcp", true) // the session's principal
		if !s.ex.endpointEvent([]byte(tc.data)) || s.ex.session != tc.session {
			t.Errorf("endpoint %q: session %q, want %q", tc.data, s.ex.session, tc.session)
		}
	}
}

// FuzzLegacySession checks the query's session against net/url's parser
// (the go-sdk's reading), splitting on & and on ;: a query read as
// unambiguous gives every session parameter, by any name and any case,
// the one value the plugin read.
func FuzzLegacySession(f *testing.F) {
	for _, q := range []string{"sessionid=S1", "sessionId=S1&sessionid=S2", "session%5Fid=S1", "x=1;session_id=S2&sessionid=S1",
		"sessionid=%zz", "SESSIONID=a+b", "session_id=S%31&sessionId=S1", "sessionid=&sessionid=S1"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, query string) {
		session, ambiguous := legacySession(query)
		if ambiguous {
			if session != "" {
				t.Fatalf("%q: ambiguous, yet session %q", query, session)
			}
			return
		}
		values, _ := url.ParseQuery(strings.ReplaceAll(query, ";", "&"))
		for k, vs := range values {
			if !strings.EqualFold(k, "sessionid") && !strings.EqualFold(k, "session_id") {
				continue
			}
			for _, v := range vs {
				if v != session {
					t.Fatalf("%q: read as session %q, but net/url reads %s=%q", query, session, k, v)
				}
			}
		}
	})
}
