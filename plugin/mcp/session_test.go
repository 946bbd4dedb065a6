package mcp

import (
	"github.com/cloudg/mcp-privacy/internal/shareddata/shareddatatest"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/policy"
)

// sessionEnvelope gives one role a transform of its own (redacting
// e-mail addresses) and keeps a tool from everyone but another role: a
// response read under the wrong principal shows either.
const sessionEnvelope = `
policy:
  name: sessions
  hide_denied: false
  transforms: [detect]
  deny_tools: ["crm_*"]
  roles:
    careful:
      transforms: [{type: redact, options: {detectors: [email]}}]
      transforms_mode: append
    sales: {allow_tools: ["crm_*"]}
identity:
  principal: [{header: x-mcp-principal}]
  roles: [{header: x-mcp-roles}]
`

// sessionVMs are two worker VMs over one shared data.
func sessionVMs(t *testing.T) (*shareddatatest.PerKey, *Config, *Config) {
	t.Helper()
	shared := newMemShared()
	vm1, errs := NewConfig([]byte(sessionEnvelope), shared)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	vm2, _ := NewConfig([]byte(sessionEnvelope), shared)
	vm1.Metrics, vm2.Metrics = memMetrics{}, memMetrics{}
	return shared, vm1, vm2
}

// who is a principal's request headers, naming session when it is set.
func who(principal, roles, session string) fakeRequest {
	r := hdr("x-mcp-principal", principal)
	if principal == "" {
		delete(r.headers, "x-mcp-principal") // anonymous
	}
	if roles != "" {
		r.headers["x-mcp-roles"] = roles
	}
	if session != "" {
		r.headers["mcp-session-id"] = session
	}
	return r
}

// A session belongs to the principal that first used it: any request,
// GET stream or DELETE naming it under another principal id is refused
// with 404 (as an unknown session), on any worker VM, while the same
// principal with other roles (a refreshed token) goes on. Regression: MCP
// servers do not tie sessions to principals, and the plugin let anyone
// who named a session open its GET stream and read its answers.
func TestSessionBoundToFirstPrincipal(t *testing.T) {
	tests := []struct {
		name         string
		first        fakeRequest
		firstMethod  string
		second       fakeRequest
		secondMethod string
		target       string
		refused      bool
	}{
		{"another principal posts", who("ann", "", "S1"), "POST", who("bob", "", "S1"), "POST", "/mcp", true},
		{"another principal opens the GET stream", who("ann", "", "S1"), "POST", who("bob", "sales", "S1"), "GET", "/mcp", true},
		{"another principal deletes the session", who("ann", "", "S1"), "POST", who("bob", "", "S1"), "DELETE", "/mcp", true},
		{"anonymous uses a principal's session", who("ann", "", "S1"), "GET", who("", "", "S1"), "GET", "/mcp", true},
		{"a principal uses an anonymous session", who("", "", "S1"), "POST", who("ann", "", "S1"), "POST", "/mcp", true},
		{"the principal with other roles", who("ann", "careful", "S1"), "POST", who("ann", "", "S1"), "GET", "/mcp", false},
		{"the principal again", who("ann", "", "S1"), "GET", who("ann", "", "S1"), "POST", "/mcp", false},
		{"another session", who("ann", "", "S1"), "POST", who("bob", "", "S2"), "GET", "/mcp", false},
		{"legacy session in the query", who("ann", "", ""), "POST", who("bob", "", ""), "POST", "/mcp?sessionid=S1", true},
		{"header after query", who("ann", "", ""), "POST", who("bob", "", "S1"), "GET", "/mcp?sessionid=S1", true},
		{"no session: nothing bound", who("ann", "", ""), "POST", who("bob", "", ""), "POST", "/mcp", false},
		// A CORS preflight carries no credentials, and nothing of a
		// session flows on OPTIONS or HEAD: they neither bind nor are
		// refused.
		{"preflight of another principal", who("ann", "", "S1"), "POST", who("", "", "S1"), "OPTIONS", "/mcp?sessionid=S1", false},
		{"HEAD of another principal", who("ann", "", "S1"), "POST", who("bob", "", "S1"), "HEAD", "/mcp", false},
		{"a preflight binds nothing", who("", "", ""), "OPTIONS", who("ann", "", ""), "POST", "/mcp?sessionid=S1", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, vm1, vm2 := sessionVMs(t)
			s := NewStream(vm1)
			if h := s.OnRequestHeaders(tc.first, tc.firstMethod, tc.target, tc.firstMethod != "POST"); h.Reply != nil {
				t.Fatalf("first use refused: %d %s", h.Reply.Status, h.Reply.Body)
			}
			s = NewStream(vm2)
			h := s.OnRequestHeaders(tc.second, tc.secondMethod, tc.target, tc.secondMethod != "POST")
			if !tc.refused {
				if h.Reply != nil {
					t.Fatalf("refused: %d %s", h.Reply.Status, h.Reply.Body)
				}
				return
			}
			refusal(t, h.Reply, 404, "session not found")
			if n := vm2.Metrics.(memMetrics)[errorsMetric(failSessionPrincipal)]; n != 1 {
				t.Errorf("session_principal counted %d times", n)
			}
			// The first principal still uses it.
			if h := NewStream(vm2).OnRequestHeaders(tc.first, "GET", tc.target, true); h.Reply != nil {
				t.Errorf("the session's own principal refused after: %s", h.Reply.Body)
			}
		})
	}
	// One refusal for every session the caller may not use: nothing in it
	// says whose the session is.
	_, vm1, _ := sessionVMs(t)
	var bodies []string
	for i, owner := range []string{"ann", "", "carol"} {
		session := "S" + strconv.Itoa(i)
		NewStream(vm1).OnRequestHeaders(who(owner, "", session), "POST", "/mcp", false)
		h := NewStream(vm1).OnRequestHeaders(who("bob", "", session), "GET", "/mcp", true)
		if h.Reply == nil {
			t.Fatalf("bob used %s's session", owner)
		}
		bodies = append(bodies, strconv.Itoa(h.Reply.Status)+" "+string(h.Reply.Body))
	}
	if bodies[0] != bodies[1] || bodies[1] != bodies[2] {
		t.Errorf("refusals differ by owner: %q", bodies)
	}
}

// The legacy transport's session is created by its GET stream: the
// endpoint event binds it to the stream's principal, before any POST names
// it.
func TestLegacySessionBoundByItsGETStream(t *testing.T) {
	_, vm1, vm2 := sessionVMs(t)
	g := NewStream(vm1)
	g.OnRequestHeaders(who("ann", "", ""), "GET", "/mcp", true)
	g.OnResponseHeaders(200, "text/event-stream", "", false)
	in := "event: endpoint\ndata: /mcp?sessionid=L1\n\n"
	g.OnResponseBody(len(in), false, func() []byte { return []byte(in) })
	if g.ex.session != "L1" {
		t.Fatalf("endpoint event: session %q", g.ex.session)
	}
	h := NewStream(vm2).OnRequestHeaders(who("bob", "sales", ""), "POST", "/mcp?sessionid=L1", false)
	refusal(t, h.Reply, 404, "session not found")
	if h := NewStream(vm2).OnRequestHeaders(who("ann", "", ""), "POST", "/mcp?sessionid=L1", false); h.Reply != nil {
		t.Errorf("the stream's own principal refused: %s", h.Reply.Body)
	}
}

// A response that arrives on another stream of the session (a resumed GET
// stream, a POST stream, the legacy GET stream) gets the pipeline of the
// principal its request was judged for, with the roles it was judged
// with, not the reader's: here the caller's role redacts e-mail addresses,
// and the reader is the same principal without that role. Regression: the
// pipeline was built for whoever read the stream, so the role's transform
// was skipped. A reader of another principal (the session's binding lost
// to eviction) gets none of it.
func TestResponseOnAnotherStreamGetsRequestPrincipalPipeline(t *testing.T) {
	call := `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"lookup","arguments":{}}}`
	answer := `{"jsonrpc":"2.0","id":"c1","result":{"content":[{"type":"text","text":"write to ann.lee@example.com"}]}}`
	tests := []struct {
		name        string
		caller      fakeRequest
		reader      fakeRequest
		method      string
		evict       bool
		want, never string
	}{
		{"resumed GET stream, roles dropped", who("ann", "careful", "S1"), who("ann", "", "S1"), "GET", false, "[REDACTED:EMAIL]", "ann.lee@example.com"},
		{"another POST stream, other roles", who("ann", "careful", "S1"), who("ann", "sales", "S1"), "POST", false, "[REDACTED:EMAIL]", "ann.lee@example.com"},
		{"resumed GET stream, roles added", who("ann", "", "S1"), who("ann", "careful", "S1"), "GET", false, "ann.lee@example.com", "REDACTED"},
		{"binding lost, another principal reads", who("ann", "careful", "S1"), who("bob", "", "S1"), "GET", true, `"code":-32603`, "ann.lee"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			shared, vm1, vm2 := sessionVMs(t)
			if _, r := post(t, vm1, tc.caller, call); r.Reply != nil {
				t.Fatalf("call answered locally: %s", r.Reply.Body)
			}
			if tc.evict {
				key, _ := vm1.catalog.sessionBucket("S1")
				shared.Set(key, nil, 0) // the bucket gave the entry up
			}
			g := NewStream(vm2)
			if h := g.OnRequestHeaders(tc.reader, tc.method, "/mcp", tc.method == "GET"); h.Reply != nil {
				t.Fatalf("reader refused: %s", h.Reply.Body)
			}
			g.OnResponseHeaders(200, "text/event-stream", "", false)
			in := "id: e1\ndata: " + answer + "\n\n"
			_, edit := g.OnResponseBody(len(in), false, func() []byte { return []byte(in) })
			got := in
			if edit.Replace {
				got = string(edit.Data)
			}
			if !strings.Contains(got, tc.want) || strings.Contains(got, tc.never) {
				t.Errorf("read on another stream: %q; want %q, never %q", got, tc.want, tc.never)
			}
			if n := vm2.Metrics.(memMetrics)[errorsMetric(failSessionPrincipal)]; (n == 1) != tc.evict {
				t.Errorf("session_principal counted %d times", n)
			}
		})
	}
}

// A response whose request was judged for a principal that may use a tool
// is not refiltered for a reader who may not: the list a sales caller
// asked for keeps crm_export when read on the session's GET stream by the
// same principal whose token lost the role (lists are the caller's, as
// every other answer).
func TestListOnAnotherStreamFilteredForRequestPrincipal(t *testing.T) {
	shared := newMemShared()
	hiding := strings.Replace(sessionEnvelope, "hide_denied: false", "hide_denied: true", 1)
	vm1, errs := NewConfig([]byte(hiding), shared)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	vm2, _ := NewConfig([]byte(hiding), shared)
	post(t, vm1, who("ann", "sales", "S1"), `{"jsonrpc":"2.0","id":"l1","method":"tools/list"}`)
	g := NewStream(vm2)
	g.OnRequestHeaders(who("ann", "", "S1"), "GET", "/mcp", true)
	g.OnResponseHeaders(200, "text/event-stream", "", false)
	in := "data: {\"jsonrpc\":\"2.0\",\"id\":\"l1\",\"result\":{\"tools\":[{\"name\":\"crm_export\"},{\"name\":\"lookup\"}]}}\n\n"
	_, edit := g.OnResponseBody(len(in), false, func() []byte { return []byte(in) })
	got := in
	if edit.Replace {
		got = string(edit.Data)
	}
	if !strings.Contains(got, `"crm_export"`) || !strings.Contains(got, `"lookup"`) {
		t.Errorf("list read on the GET stream: %q", got)
	}
}

// The bindings are a fixed-size table: a bucket holds sessionWays
// sessions and gives up the one used least recently; every session lands
// in one of sessionBuckets keys, however many there are.
func TestSessionBindingTable(t *testing.T) {
	shared, vm, _ := sessionVMs(t)
	c := vm.catalog
	// sessionWays+1 sessions that share a bucket.
	var same []string
	want, _ := c.sessionBucket("x0")
	same = append(same, "x0")
	for i := 1; len(same) <= sessionWays; i++ {
		s := "x" + strconv.Itoa(i)
		if k, _ := c.sessionBucket(s); k == want {
			same = append(same, s)
		}
	}
	t0 := int64(1_000_000_000_000_000)
	for i, s := range same[:sessionWays] {
		if !c.bindSession(s, "ann", t0+int64(i)) {
			t.Fatalf("%s not bound", s)
		}
	}
	// same[0] is used again later: same[1] is now the least recently used.
	if !c.bindSession(same[0], "ann", t0+2*sessionTouch) {
		t.Fatal("same[0] refused to its principal")
	}
	if !c.bindSession(same[sessionWays], "ann", t0+2*sessionTouch+1) {
		t.Fatal("a new session not bound in a full bucket")
	}
	// Checked last: bob's use binds the session given up, which gives up
	// another.
	for _, i := range []int{0, 2, 3, 4, 1} {
		s, stillAnn := same[i], i != 1
		if got := !c.bindSession(s, "bob", t0+2*sessionTouch+2); got != stillAnn {
			t.Errorf("%s: bound to ann %v, want %v", s, got, stillAnn)
		}
	}
	// Bounded whatever the traffic.
	for i := range 3 * sessionBuckets {
		c.bindSession("many"+strconv.Itoa(i), "p"+strconv.Itoa(i), t0)
	}
	keys := 0
	for _, k := range shared.Keys() {
		if strings.Contains(k, "|session|") {
			keys++
			if v, _, _ := shared.Get(k); len(v) > sessionWays*sessionEntry {
				t.Errorf("bucket %s holds %d bytes", k, len(v))
			}
		}
	}
	if keys > sessionBuckets {
		t.Errorf("%d session keys, table has %d", keys, sessionBuckets)
	}
	// A long session id costs no more than a short one.
	long := strings.Repeat("s", 60000)
	c.bindSession(long, "ann", t0)
	k, _ := c.sessionBucket(long)
	if v, _, _ := shared.Get(k); len(v) > sessionWays*sessionEntry {
		t.Errorf("a 60 kB session id took %d bytes", len(v))
	}
}

// A request record read whole round-trips the principal it was judged for;
// a truncated one reads as lost.
func TestSharedRequestRecordsPrincipal(t *testing.T) {
	shared, vm, _ := sessionVMs(t)
	c := vm.catalog
	by := policy.Principal{ID: "ann", Roles: []string{"careful", "sales"}}
	c.shareRequest("S1", `"c1"`, forwarded{method: "tools/call", kind: policy.KindTool, name: "lookup\x00x"}, &by)
	f, ok := c.sharedRequest("S1", `"c1"`)
	if !ok || f.principal.ID != "ann" || strings.Join(f.principal.Roles, ",") != "careful,sales" || f.name != "lookup\x00x" || f.method != "tools/call" || f.kind != policy.KindTool {
		t.Fatalf("record: %+v, %v", f, ok)
	}
	key := c.sharedKey("request", requestSlot("S1", `"c1"`))
	v, _, _ := shared.Get(key)
	for cut := len(v) - 1; cut > len(`S1`)+len(`"c1"`)+2; cut-- {
		shared.Set(key, v[:cut], 0)
		if f, ok := c.sharedRequest("S1", `"c1"`); ok && !f.ambiguous {
			t.Fatalf("a record cut to %d bytes read as %+v", cut, f)
		}
	}
}

// BenchmarkToolsCallSession is BenchmarkToolsCall with a session and the
// host's shared data: the binding check is one shared-data read.
func BenchmarkToolsCallSession(b *testing.B) {
	cfg, errs := NewConfig([]byte(testEnvelope), newMemShared())
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	req := hdr("x-mcp-principal", "alice", "content-length", "200", "mcp-session-id", "a7f3c0d2-5e1b-4c8e-9f6a-2b7d4e9c1a03")
	body := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"search_customers","arguments":{"query":"alice","limit":10,"filters":{"country":"DE","active":true,"tags":["vip","eu"]}},"_meta":{"progressToken":"abc-123"}}}`)
	read := func() []byte { return body }
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		s := NewStream(cfg)
		s.OnRequestHeaders(req, "POST", "/mcp", false)
		if r := s.OnRequestBody(len(body), true, read); r.Reply != nil || r.Body != nil {
			b.Fatal("not forwarded as is")
		}
	}
}

// FuzzSessionSharedRecords writes arbitrary bytes where a session bucket
// and a request record live (shared data another VM, or an older build,
// wrote): reading them never panics, a bucket that does not read whole is
// rebuilt, and a binding made then holds.
func FuzzSessionSharedRecords(f *testing.F) {
	f.Add([]byte{}, []byte("S1\x00\"c1\"\x001\x01\x0atools/call\x06lookup\x03ann\x01\x07careful"))
	f.Add(make([]byte, sessionEntry), []byte("S1\x00\"c1\"\x00x"))
	f.Add(make([]byte, sessionWays*sessionEntry+1), []byte("S1\x00\"c1\"\x000\x01\xff\xff\xff\xff\x0f"))
	f.Fuzz(func(t *testing.T, bucket, record []byte) {
		shared := newMemShared()
		cfg, _ := NewConfig([]byte(sessionEnvelope), shared)
		c := cfg.catalog
		key, _ := c.sessionBucket("S1")
		shared.Set(key, bucket, 0)
		shared.Set(c.sharedKey("request", requestSlot("S1", `"c1"`)), record, 0)
		c.sharedRequest("S1", `"c1"`)
		first := c.bindSession("S1", "ann", 1)
		if first && c.bindSession("S1", "bob", 2) {
			t.Fatalf("bucket %x: bound to ann, then usable by bob", bucket)
		}
		if v, _, _ := shared.Get(key); len(v) > sessionWays*sessionEntry && first {
			t.Fatalf("bucket grew to %d bytes", len(v))
		}
	})
}

// Under 2026-07-28 there are no sessions: a POST's Mcp-Session-Id (or a
// legacy query's session) is not used, so it binds no session to the
// caller and its requests are not shared under it; but one bound to
// someone else is refused, as for a 2025 request, since a stateful
// server serves what names it (TestSession2026HeaderDoesNotSkipOwnership).
func TestSessionIgnoredUnder2026(t *testing.T) {
	_, vm1, vm2 := sessionVMs(t)
	s := NewStream(vm1)
	if h := s.OnRequestHeaders(who("alice", "", "s-1"), "POST", "/mcp", false); h.Reply != nil {
		t.Fatalf("alice's 2025 POST refused: %s", h.Reply.Body)
	}
	for _, c := range []struct {
		name  string
		req   fakeRequest
		path  string
		ok    bool
		bound bool
	}{
		{"2026 POST naming alice's session", func() fakeRequest {
			r := who("bob", "", "s-1")
			r.headers["mcp-protocol-version"] = "2026-07-28"
			return r
		}(), "/mcp", false, false},
		{"2026 POST with a legacy query session", func() fakeRequest {
			r := who("bob", "", "")
			r.headers["mcp-protocol-version"] = "2026-07-28"
			return r
		}(), "/mcp?sessionid=s-1", false, false},
		{"2025 POST naming alice's session", who("bob", "", "s-1"), "/mcp", false, true},
	} {
		st := NewStream(vm2)
		h := st.OnRequestHeaders(c.req, "POST", c.path, false)
		if (h.Reply == nil) != c.ok {
			t.Errorf("%s: refused %v, want %v", c.name, h.Reply != nil, !c.ok)
		}
		if (st.ex.session != "") != c.bound {
			t.Errorf("%s: session %q", c.name, st.ex.session)
		}
	}
	// A session only a 2026 request named is bound to no one.
	st := NewStream(vm1)
	r := who("carol", "", "s-2")
	r.headers["mcp-protocol-version"] = "2026-07-28"
	st.OnRequestHeaders(r, "POST", "/mcp", false)
	if h := NewStream(vm2).OnRequestHeaders(who("dave", "", "s-2"), "POST", "/mcp", false); h.Reply != nil {
		t.Errorf("a 2026 request bound session s-2: dave refused %s", h.Reply.Body)
	}
}
