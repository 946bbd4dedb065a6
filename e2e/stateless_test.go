package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP 2026-07-28 through a two-replica fleet (fleet_test.go): go-sdk
// v1.8.0 clients and servers at the stateless revision, requests spread
// over two plugins that share only their configuration and vault key
// (issue 13, "End to end").

const (
	flAddress  = "alice.martin@example.com"
	flSecret   = "AKIAYPKZVCGCKMHTXPVQ" // an AWS access key id: @secrets finds it
	flTTL      = 60000                  // the server's ttlMs on every cacheable result
	flRevision = "2026-07-28"
)

// flPolicy pseudonymises personal data in every answer (the vault scoped
// per principal), redacts secrets in arguments, and hides wipe_contacts
// and the vault:// resources. The vault key is not in it: both replicas
// get the same key from the environment (startFleet) and nothing else,
// since under 2026-07-28 a policy with a vault key is fleet-ready by
// default. Headers are held until the body is judged (gateway.hold_headers,
// Envoy's allow_on_headers_stop_iteration): only then can a replica rewrite
// the Mcp-Name and Mcp-Param-* headers that mirror what it restores
// (MCP_PRIVACY 8.4 says what happens without).
const flPolicy = `{
  "policy": {"name": "fleet", "allow_tools": ["*"], "allow_resources": ["*"], "allow_prompts": ["*"],
             "hide_denied": true, "deny_tools": ["wipe_contacts"], "deny_resources": ["vault://*"],
             "transforms": ["pseudonymise"],
             "input_transforms": [{"type": "redact", "id": "secrets_in", "options": {"detectors": ["@secrets"]}}],
             "vault": {"scope": "principal"}},
  "identity": {"principal": [{"header": "x-mcp-principal"}]},
  "gateway": {"hold_headers": true}
}`

// flContacts is a go-sdk server that knows one address and records what
// its tools and resources were given.
type flContacts struct {
	*httptest.Server
	seen flSeen

	mu      sync.Mutex
	notes   []string // remember's note
	mailTo  []string // send_mail's to
	cards   []string // the URIs contacts://{+email}/card was read with
	replies []string // confirm_send: the elicitation answers' content, as JSON
	states  []string // confirm_send: the requestState of each retry
}

func (c *flContacts) lastOf(list *[]string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(*list) == 0 {
		return ""
	}
	return (*list)[len(*list)-1]
}

func (c *flContacts) add(list *[]string, v string) {
	c.mu.Lock()
	*list = append(*list, v)
	c.mu.Unlock()
}

// startContacts serves the contacts server on one endpoint at both
// revisions, as a server supporting both does: requests of 2026-07-28
// (MCP-Protocol-Version) statelessly, the others (the 2025 initialize
// carries no version header) with sessions.
func startContacts(t *testing.T) *flContacts {
	t.Helper()
	c := &flContacts{}
	s := mcp.NewServer(&mcp.Implementation{Name: "contacts", Version: "v1"}, &mcp.ServerOptions{
		SetCacheable: func(_ context.Context, _ mcp.Request, cc *mcp.Cacheable) { cc.TTLMs, cc.CacheScope = flTTL, "public" },
	})
	object := func(props string, required ...string) json.RawMessage {
		req, _ := json.Marshal(required)
		return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `}`)
	}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	args := func(r *mcp.CallToolRequest) map[string]any {
		var m map[string]any
		_ = json.Unmarshal(r.Params.Arguments, &m)
		return m
	}
	// The answer is the address alone (name@example.com, alice.martin's
	// by default): through the plugin, the text is the pseudonym alone.
	s.AddTool(&mcp.Tool{Name: "lookup", Description: "A contact's address.", InputSchema: object(`"name":{"type":"string"}`)},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			name, _ := args(r)["name"].(string)
			if name == "" {
				return text(flAddress), nil
			}
			return text(name + "@example.com"), nil
		})
	s.AddTool(&mcp.Tool{Name: "remember", Description: "Keep a note.", InputSchema: object(`"note":{"type":"string"}`, "note")},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			note, _ := args(r)["note"].(string)
			c.add(&c.notes, note)
			return text("noted"), nil
		})
	// to is mirrored into Mcp-Param-To (SEP-2243): the go-sdk client sets
	// the header, the go-sdk server refuses a call whose header and body
	// disagree (-32020).
	s.AddTool(&mcp.Tool{Name: "send_mail", Description: "Send a mail.",
		InputSchema: object(`"to":{"type":"string","x-mcp-header":"To"},"subject":{"type":"string"}`, "to")},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			to, _ := args(r)["to"].(string)
			c.add(&c.mailTo, to)
			return text("mail sent"), nil
		})
	s.AddTool(&mcp.Tool{Name: "wipe_contacts", Description: "Delete every contact.", InputSchema: object(``)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("wiped"), nil })
	// A multi round-trip tool (SEP-2322): it asks for confirmation, naming
	// the address, and completes on the retry carrying the answer.
	s.AddTool(&mcp.Tool{Name: "confirm_send", Description: "Send the report after confirmation.", InputSchema: object(``)},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			answer, ok := r.Params.InputResponses["confirm"].(*mcp.ElicitResult)
			if !ok {
				return &mcp.CallToolResult{
					InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{
						Message:         "Send the report to " + flAddress + "?",
						RequestedSchema: object(`"email":{"type":"string"},"token":{"type":"string"}`, "email"),
					}},
					RequestState: "confirm-state-1",
				}, nil
			}
			content, _ := json.Marshal(answer.Content)
			c.add(&c.replies, string(content))
			c.add(&c.states, r.Params.RequestState)
			return text("report sent"), nil
		})
	// One vault resource, hidden by the policy (a template serving any
	// vault:// name would serve the stand-in too: plugin/mcp's
	// TestHiddenStandInServedIsNotFound covers that).
	s.AddResource(&mcp.Resource{URI: "vault://c-1", Name: "vault", MIMEType: "text/plain"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/plain", Text: "secret"}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "contacts://{+email}/card", Name: "card", MIMEType: "text/plain"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			c.add(&c.cards, r.Params.URI)
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/plain", Text: "card of " + flAddress}}}, nil
		})

	get := func(*http.Request) *mcp.Server { return s }
	stateless := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true})
	stateful := mcp.NewStreamableHTTPHandler(get, nil)
	c.Server = httptest.NewServer(c.seen.record(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= flRevision {
			stateless.ServeHTTP(w, r)
		} else {
			stateful.ServeHTTP(w, r)
		}
	})))
	t.Cleanup(c.Close)
	return c
}

// flConnect connects a go-sdk client as principal at revision (the
// go-sdk's default, 2026-07-28, when empty) and checks it got it.
func flConnect(t *testing.T, url, principal, revision string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cs := connectWith(t, url, principal, "", opts, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	want := revision
	if want == "" {
		want = flRevision
	}
	if got := cs.InitializeResult().ProtocolVersion; got != want {
		t.Fatalf("the client negotiated %s, want %s", got, want)
	}
	return cs
}

// flText is a tool result's only text.
func flText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if res.IsError || len(res.Content) != 1 {
		raw, _ := json.Marshal(res)
		t.Fatalf("want one text, got %s", raw)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("want text, got %T", res.Content[0])
	}
	return tc.Text
}

// flPseudonym asks lookup for name's address (flAddress when name is
// empty): what the client gets instead.
func flPseudonym(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string) string {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"name": name}})
	if err != nil {
		t.Fatalf("lookup: %v", err)
	}
	p := flText(t, res)
	if strings.Contains(p, "@") || p == "" {
		t.Fatalf("lookup answered %q: not pseudonymised", p)
	}
	return p
}

// noLeak fails when the address is anywhere in what the client got.
func noLeak(t *testing.T, what string, v any) {
	t.Helper()
	raw, _ := json.Marshal(v)
	if s, ok := v.(string); ok {
		raw = []byte(s)
	}
	if strings.Contains(string(raw), flAddress) {
		t.Errorf("%s: the client received the address: %s", what, raw)
	}
}

// A pseudonym replica A issued is restored by replica B, which never saw
// it issued: in an argument, in an argument the tool mirrors into an
// Mcp-Param-* header (the header rewritten with it, so the server does not
// refuse the call), and in a resource URI (Mcp-Name rewritten with it).
// Another principal sending the same pseudonym gets nothing restored.
func TestFleetPseudonymsRestoredByTheOtherReplica(t *testing.T) {
	up := startContacts(t)
	f := startFleet(t, up.URL, flPolicy)
	ctx := ctxT(t)
	f.pin(0)
	cs := flConnect(t, f.URL, "alice", "", nil)
	// The client learns send_mail's x-mcp-header from the list, which
	// only replica A answers: B learns nothing of the tools until later.
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// Replica B has never seen the address: it cannot have a mapping
	// for it, only the key.
	pseudonym := flPseudonym(t, ctx, cs, "")
	f.pin(1)

	t.Run("argument", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"note": "call " + pseudonym}})
		if err != nil {
			noLeak(t, "error", err.Error())
			t.Fatalf("remember: %v\n%s", err, f)
		}
		noLeak(t, "result", res)
		if got := up.lastOf(&up.notes); got != "call "+flAddress {
			t.Errorf("the server got the note %q, want %q\n%s", got, "call "+flAddress, f)
		}
		if s, _ := f.last("tools/call"); s.replica != 1 {
			t.Errorf("the call went to replica %c, want B", 'A'+s.replica)
		}
	})

	// The header mirrors the argument: restoring one without the other
	// gets the call refused (-32020) by the server. Replica B restores it
	// whether or not it has seen the tools/list that declares the header
	// (in a fleet, the list may have gone to any replica).
	sendMail := func(t *testing.T) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "send_mail", Arguments: map[string]any{"to": pseudonym, "subject": "report"}})
		if err != nil {
			noLeak(t, "error", err.Error())
			t.Fatalf("send_mail: %v (a -32020 is the server refusing a header the plugin did not rewrite)\n%s", err, f)
		}
		noLeak(t, "result", res)
		if got := up.lastOf(&up.mailTo); got != flAddress {
			t.Errorf("the server got to=%q, want the address\n%s", got, f)
		}
		req, ok := up.seen.lastWith(`"send_mail"`)
		if !ok {
			t.Fatal("the server never got send_mail")
		}
		if got := req.header.Get("Mcp-Param-To"); got != flAddress {
			t.Errorf("the server got Mcp-Param-To %q, want the address the body holds", got)
		}
		if s, _ := f.last("tools/call"); s.replica != 1 {
			t.Errorf("the call went to replica %c, want B", 'A'+s.replica)
		}
	}
	t.Run("Mcp-Param header, tools/list unseen by B", sendMail)
	if _, err := flConnect(t, f.URL, "alice", "", nil).ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	t.Run("Mcp-Param header, tools/list seen by B", sendMail)

	t.Run("resource URI", func(t *testing.T) {
		uri := "contacts://" + pseudonym + "/card"
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			noLeak(t, "error", err.Error())
			t.Fatalf("read %s: %v\n%s", uri, err, f)
		}
		noLeak(t, "result", res)
		want := "contacts://" + flAddress + "/card"
		if got := up.lastOf(&up.cards); got != want {
			t.Errorf("the server read %q, want %q\n%s", got, want, f)
		}
		if req, ok := up.seen.lastWith(`"resources/read"`); !ok || req.header.Get("Mcp-Name") != want {
			t.Errorf("the server got Mcp-Name %q, want %q (the body's URI)", req.header.Get("Mcp-Name"), want)
		}
		if len(res.Contents) != 1 || res.Contents[0].URI != uri {
			t.Errorf("the client got contents for another URI: %+v", res.Contents)
		}
	})

	// The vault is scoped per principal: bob holds alice's pseudonym, but
	// it is not his to restore, on either replica. Whether his call is
	// refused or passed with the pseudonym as he sent it, the address
	// reaches neither the server nor him.
	t.Run("another principal", func(t *testing.T) {
		bob := flConnect(t, f.URL, "bob", "", nil)
		for i := range 2 {
			f.pin(i)
			note := fmt.Sprintf("bob %d %s", i, pseudonym)
			res, err := bob.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"note": note}})
			if err != nil {
				noLeak(t, "bob's error", err.Error())
			} else {
				noLeak(t, "bob's result", res)
			}
			if up.seen.contains(fmt.Sprintf("bob %d %s", i, flAddress)) {
				t.Errorf("bob's note via replica %c reached the server with alice's address", 'A'+i)
			}
		}
	})

	// Alternating, as a plain load balancer does: each lookup and the
	// note that sends its answer back go to different replicas, each
	// round with an address no replica saw before.
	t.Run("alternating", func(t *testing.T) {
		f.pin(-1)
		for i := range 4 {
			p := flPseudonym(t, ctx, cs, fmt.Sprintf("round%d", i))
			issued, _ := f.last("tools/call")
			note := fmt.Sprintf("round %d %s", i, p)
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"note": note}}); err != nil {
				t.Fatalf("round %d: %v\n%s", i, err, f)
			}
			restored, _ := f.last("tools/call")
			if issued.replica == restored.replica {
				t.Fatalf("round %d: both calls went to replica %c: the load balancer did not alternate", i, 'A'+issued.replica)
			}
			if got, want := up.lastOf(&up.notes), fmt.Sprintf("round %d round%d@example.com", i, i); got != want {
				t.Errorf("round %d: issued by %c, sent back through %c: the server got %q, want %q",
					i, 'A'+issued.replica, 'A'+restored.replica, got, want)
			}
		}
	})
}

// A multi round-trip request across the fleet: the InputRequiredResult
// comes back through replica A, its elicitation (naming the address)
// pseudonymised like any server-to-client request; the retry goes through
// replica B, its inputResponses through the argument pipeline (the
// pseudonym restored, the secret redacted), its requestState unchanged.
func TestFleetMultiRoundTrip(t *testing.T) {
	up := startContacts(t)
	f := startFleet(t, up.URL, flPolicy)
	ctx := ctxT(t)
	var asked []string
	cs := flConnect(t, f.URL, "alice", "", &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, r.Params.Message)
			p := strings.TrimSuffix(strings.TrimPrefix(r.Params.Message, "Send the report to "), "?")
			f.pin(1) // the retry
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": p, "token": flSecret}}, nil
		},
	})
	f.pin(0)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "confirm_send"})
	if err != nil {
		noLeak(t, "error", err.Error())
		t.Fatalf("confirm_send: %v\n%s", err, f)
	}
	if got := flText(t, res); got != "report sent" {
		t.Fatalf("confirm_send answered %q", got)
	}
	if len(asked) != 1 {
		t.Fatalf("the client was asked %d times, want once", len(asked))
	}
	noLeak(t, "the elicitation", asked[0])
	if asked[0] == "Send the report to ?" || !strings.HasPrefix(asked[0], "Send the report to ") {
		t.Errorf("the elicitation reached the client as %q", asked[0])
	}
	var reply map[string]string
	if err := json.Unmarshal([]byte(up.lastOf(&up.replies)), &reply); err != nil {
		t.Fatalf("the server's record of the answer: %v", err)
	}
	if reply["email"] != flAddress {
		t.Errorf("the server got the answer's email as %q, want the address\n%s", reply["email"], f)
	}
	if strings.Contains(reply["token"], flSecret) || reply["token"] == "" {
		t.Errorf("the server got the answer's token as %q, want it redacted", reply["token"])
	}
	if got := up.lastOf(&up.states); got != "confirm-state-1" {
		t.Errorf("the server got requestState %q, want it unchanged", got)
	}
	if s, _ := f.last("tools/call"); s.replica != 1 {
		t.Errorf("the retry went to replica %c, want B", 'A'+s.replica)
	}
}

// Lists the plugin filtered for the caller, and reads it transformed, are
// marked private (cacheScope and Cache-Control), the server's ttlMs kept:
// a shared cache must not serve one caller's view to another.
func TestFleetFilteredListsPrivate(t *testing.T) {
	up := startContacts(t)
	f := startFleet(t, up.URL, flPolicy)
	ctx := ctxT(t)

	direct, err := flConnect(t, up.URL, "", "", nil).ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if direct.CacheScope != "public" || direct.TTLMs != flTTL {
		t.Fatalf("the server's own list: cacheScope %q, ttlMs %d: the test proves nothing", direct.CacheScope, direct.TTLMs)
	}

	cs := flConnect(t, f.URL, "alice", "", nil)
	for i := range 2 {
		f.pin(i)
		// A fresh client each time: the go-sdk caches lists for ttlMs.
		if i > 0 {
			cs = flConnect(t, f.URL, "alice", "", nil)
		}
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range list.Tools {
			if tool.Name == "wipe_contacts" {
				t.Fatalf("replica %c listed the denied tool", 'A'+i)
			}
		}
		if list.CacheScope != "private" || list.TTLMs != flTTL {
			t.Errorf("replica %c: filtered tools/list has cacheScope %q, ttlMs %d; want private, %d", 'A'+i, list.CacheScope, list.TTLMs, flTTL)
		}
		if s, ok := f.last("tools/list"); !ok || !strings.Contains(strings.ToLower(s.header.Get("Cache-Control")), "private") {
			t.Errorf("replica %c: filtered tools/list has Cache-Control %q, want private", 'A'+i, s.header.Get("Cache-Control"))
		}

		read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: fmt.Sprintf("contacts://%d@example.org/card", i)})
		if err != nil {
			t.Fatal(err)
		}
		noLeak(t, "read", read)
		if read.CacheScope != "private" || read.TTLMs != flTTL {
			t.Errorf("replica %c: transformed resources/read has cacheScope %q, ttlMs %d; want private, %d", 'A'+i, read.CacheScope, read.TTLMs, flTTL)
		}
	}
}

// A 2025-11-25 session through one replica, beside 2026-07-28 clients on
// the same listener: the session is the server's (Mcp-Session-Id on every
// request after initialize) and pseudonyms round-trip within it, as
// before issue 13.
func TestFleetLegacySessionBesideStateless(t *testing.T) {
	up := startContacts(t)
	f := startFleet(t, up.URL, flPolicy)
	ctx := ctxT(t)
	legacy := flConnect(t, f.replicas[0].URL, "alice", "2025-11-25", nil)
	modern := flConnect(t, f.URL, "alice", "", nil)

	for i := range 2 {
		p := flPseudonym(t, ctx, legacy, "")
		note := fmt.Sprintf("legacy %d %s", i, p)
		if _, err := legacy.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"note": note}}); err != nil {
			t.Fatal(err)
		}
		if got, want := up.lastOf(&up.notes), fmt.Sprintf("legacy %d %s", i, flAddress); got != want {
			t.Errorf("the 2025 session's note reached the server as %q, want %q", got, want)
		}
		// The stateless client between the session's calls, on both
		// replicas.
		res, err := modern.CallTool(ctx, &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("the 2026 client beside the session: %v", err)
		}
		noLeak(t, "2026 lookup", res)
	}
	req, ok := up.seen.lastWith(`"legacy 1 `)
	if !ok || req.header.Get("Mcp-Session-Id") == "" || req.header.Get("Mcp-Protocol-Version") != "2025-11-25" {
		t.Errorf("the 2025 session's last call reached the server with Mcp-Session-Id %q, MCP-Protocol-Version %q",
			req.header.Get("Mcp-Session-Id"), req.header.Get("Mcp-Protocol-Version"))
	}
	if req, ok := up.seen.lastWith(`"lookup"`); !ok || req.header.Get("Mcp-Session-Id") != "" || req.header.Get("Mcp-Protocol-Version") != flRevision {
		t.Errorf("the 2026 client's last call reached the server with Mcp-Session-Id %q, MCP-Protocol-Version %q",
			req.header.Get("Mcp-Session-Id"), req.header.Get("Mcp-Protocol-Version"))
	}
}

// A POST whose Mcp-* headers or MCP-Protocol-Version disagree with its
// body is refused by the plugin itself (400, -32020) before anything is
// forwarded: filters after it (routing, RBAC, rate limits on Mcp-Name)
// would act on the header while the policy judged the body.
func TestFleetHeadersDisagreeingWithTheBodyRefused(t *testing.T) {
	up := startContacts(t)
	f := startFleet(t, up.URL, flPolicy)
	header := func(k, v string) func(*http.Request) { return func(r *http.Request) { r.Header.Set(k, v) } }
	for i, tc := range []struct {
		name   string
		method string // the body's
		tool   string
		params map[string]any
		tweak  func(*http.Request)
	}{
		{"Mcp-Method", "tools/call", "remember", nil, header("Mcp-Method", "tools/list")},
		{"Mcp-Name", "tools/call", "remember", nil, header("Mcp-Name", "lookup")},
		{"Mcp-Name missing", "tools/call", "remember", nil, func(r *http.Request) { r.Header.Del("Mcp-Name") }},
		{"MCP-Protocol-Version and _meta", "tools/call", "remember", map[string]any{"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion": "2025-11-25"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.pin(i % 2)
			marker := fmt.Sprintf("marker-mismatch-%d", i)
			params := map[string]any{"name": tc.tool, "arguments": map[string]any{"note": marker}}
			for k, v := range tc.params {
				params[k] = v
			}
			var tweaks []func(*http.Request)
			if tc.tweak != nil {
				tweaks = append(tweaks, tc.tweak)
			}
			status, msg := flRaw(t, f.URL, "alice", tc.method, tc.tool, params, tweaks...)
			code, _ := msg["error"].(map[string]any)["code"].(float64)
			if status != http.StatusBadRequest || code != -32020 {
				t.Errorf("answered %d %v, want 400 and -32020", status, msg)
			}
			if up.seen.contains(marker) {
				t.Errorf("the request reached the server")
			}
		})
	}
}

// Under 2026-07-28 a hidden primitive still looks missing: the whole
// HTTP answer (status, headers but the date and length, body) is the
// server's own for a name it does not have, on either replica. The
// go-sdk's not-found for a resource is -32602 at this revision, where the
// plugin's own answer was the 2025 -32002.
func TestFleetHiddenLooksMissing(t *testing.T) {
	up := startContacts(t)
	f := startFleet(t, up.URL, flPolicy)
	for i, tc := range []struct {
		method, hidden, missing string
		params                  func(name string) map[string]any
	}{
		{"tools/call", "wipe_contacts", "no_such_tool", func(n string) map[string]any {
			return map[string]any{"name": n, "arguments": map[string]any{}}
		}},
		{"resources/read", "vault://c-1", "vault://c-2", func(n string) map[string]any {
			return map[string]any{"uri": n}
		}},
	} {
		f.pin(i % 2)
		hidden := flRawAnswer(t, f.URL, "alice", tc.method, tc.hidden, tc.params(tc.hidden)).String(tc.hidden)
		missing := flRawAnswer(t, f.URL, "alice", tc.method, tc.missing, tc.params(tc.missing)).String(tc.missing)
		if hidden != missing {
			t.Errorf("%s via %c: hidden\n%s\nmissing\n%s", tc.method, 'A'+i%2, hidden, missing)
		}
		if up.seen.contains(tc.hidden) {
			t.Errorf("%s: the hidden name reached the server", tc.method)
		}
	}
}

// Without gateway.hold_headers the hidden name's Mcp-Name header has left
// before the body is judged, so the filter answers itself: with the
// status and code of the server's not-found, and no header of its own
// (x-mcp-privacy) to tell the answer apart. The wording and the headers
// a server adds are its own; hold the headers where that matters
// (MCP_PRIVACY 8.4).
func TestFleetHiddenAnsweredLocallyWithoutHeldHeaders(t *testing.T) {
	up := startContacts(t)
	f := startFleet(t, up.URL, strings.Replace(flPolicy, `"hold_headers": true`, `"hold_headers": false`, 1))
	for _, tc := range []struct{ method, hidden, missing string }{
		{"tools/call", "wipe_contacts", "no_such_tool"},
		{"resources/read", "vault://c-1", "vault://c-2"},
	} {
		params := func(n string) map[string]any {
			if tc.method == "tools/call" {
				return map[string]any{"name": n, "arguments": map[string]any{}}
			}
			return map[string]any{"uri": n}
		}
		hidden := flRawAnswer(t, f.URL, "alice", tc.method, tc.hidden, params(tc.hidden))
		missing := flRawAnswer(t, f.URL, "alice", tc.method, tc.missing, params(tc.missing))
		if hidden.status != missing.status || hidden.header.Get("X-Mcp-Privacy") != "" ||
			!strings.Contains(hidden.body, `"code":-32602`) || !strings.Contains(missing.body, `"code":-32602`) {
			t.Errorf("%s: hidden %d %v %s\nmissing %d %v %s", tc.method, hidden.status, hidden.header, hidden.body,
				missing.status, missing.header, missing.body)
		}
	}
}

// --- tasks (the io.modelcontextprotocol/tasks extension) --------------------

// flTasksPolicy pseudonymises addresses in every answer (the policy-level
// pipeline, which server requests, and so an InputRequiredResult's
// inputRequests, get too); contact_raw's answers pass unchanged, and
// export_contacts' are pseudonymised and annotated: an annotation seen in
// a tasks/get answer is that tool's pipeline, which no other answer gets.
const flTasksPolicy = `{
  "policy": {"name": "fleet-tasks", "allow_tools": ["*"],
             "transforms": [{"type": "pseudonymise", "options": {"detectors": ["email"]}}],
             "rules": [{"name": "raw", "match": {"names": ["contact_raw"]}, "transforms": [], "transforms_mode": "replace"},
                       {"name": "exports-annotated", "match": {"names": ["export_contacts"]}, "transforms_mode": "replace",
                        "transforms": [{"type": "pseudonymise", "options": {"detectors": ["email"]}}, {"type": "annotate"}]}],
             "vault": {"scope": "principal"}},
  "identity": {"principal": [{"header": "x-mcp-principal"}]},
  "gateway": {"hold_headers": true}
}`

// flTaskServer speaks the tasks extension in raw JSON-RPC (the go-sdk has
// no tasks): export_contacts creates a task that asks for confirmation
// (input_required, an elicitation naming the address) and, once
// tasks/update answered it, completes with a result naming the address.
type flTaskServer struct {
	*httptest.Server
	seen flSeen

	mu       sync.Mutex
	next     int
	answered map[string]json.RawMessage // task id: its inputResponses
}

func startTaskServer(t *testing.T) *flTaskServer {
	t.Helper()
	s := &flTaskServer{answered: map[string]json.RawMessage{}}
	s.Server = httptest.NewServer(s.seen.record(http.HandlerFunc(s.serve)))
	t.Cleanup(s.Close)
	return s
}

func (s *flTaskServer) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name           string          `json:"name"`
			TaskID         string          `json:"taskId"`
			InputResponses json.RawMessage `json:"inputResponses"`
		} `json:"params"`
	}
	if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, "want a JSON-RPC POST", http.StatusBadRequest)
		return
	}
	if req.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	task := func(id, status string, extra map[string]any) map[string]any {
		m := map[string]any{"taskId": id, "status": status, "createdAt": "2026-12-02T17:00:00Z",
			"lastUpdatedAt": "2026-12-02T17:00:00Z", "ttlMs": 60000, "pollIntervalMs": 100}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	var result any
	var rpcErr map[string]any
	s.mu.Lock()
	switch {
	case req.Method == "tools/call" && req.Params.Name == "contact_raw":
		result = map[string]any{"resultType": "complete", "content": []any{map[string]any{"type": "text", "text": flAddress}}}
	case req.Method == "tools/call" && req.Params.Name == "export_contacts":
		s.next++
		result = task(fmt.Sprintf("task-%d", s.next), "working", map[string]any{"resultType": "task"})
	case req.Method == "tasks/get" && s.answered[req.Params.TaskID] == nil && strings.HasPrefix(req.Params.TaskID, "task-"):
		result = task(req.Params.TaskID, "input_required", map[string]any{"resultType": "complete", "inputRequests": map[string]any{
			"confirm": map[string]any{"method": "elicitation/create", "params": map[string]any{
				"mode": "form", "message": "Export the contacts of " + flAddress + "?",
				"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"email": map[string]any{"type": "string"}}},
			}},
		}})
	case req.Method == "tasks/get" && s.answered[req.Params.TaskID] != nil:
		result = task(req.Params.TaskID, "completed", map[string]any{"resultType": "complete", "result": map[string]any{
			"resultType": "complete", "isError": false,
			"content": []any{map[string]any{"type": "text", "text": "exported for " + flAddress}},
		}})
	case req.Method == "tasks/update" && strings.HasPrefix(req.Params.TaskID, "task-"):
		s.answered[req.Params.TaskID] = req.Params.InputResponses
		result = map[string]any{"resultType": "complete"}
	default:
		rpcErr = map[string]any{"code": -32602, "message": "unknown method, tool or task"}
	}
	s.mu.Unlock()
	writeRPC(w, req.ID, result, rpcErr)
}

// flRaw posts one 2026-07-28 request as a client declaring the tasks
// extension would: _meta (unless params has one), MCP-Protocol-Version,
// Mcp-Method and Mcp-Name; tweak, if any, then changes the request. It
// returns the HTTP status and the JSON-RPC answer (from JSON or the last
// event of a stream).
func flRaw(t *testing.T, url, principal, method, name string, params map[string]any, tweak ...func(*http.Request)) (int, map[string]any) {
	t.Helper()
	a := flRawAnswer(t, url, principal, method, name, params, tweak...)
	data := []byte(a.body)
	if strings.HasPrefix(a.header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(strings.NewReader(a.body))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok && strings.TrimSpace(d) != "" {
				data = []byte(d)
			}
		}
	}
	var msg map[string]any
	if err := json.Unmarshal(data, &msg); err != nil {
		t.Fatalf("%s: %d %s: %v", method, a.status, a.body, err)
	}
	return a.status, msg
}

// flRawAnswer is flRaw's request and the whole HTTP answer.
func flRawAnswer(t *testing.T, url, principal, method, name string, params map[string]any, tweak ...func(*http.Request)) httpAnswer {
	t.Helper()
	if params["_meta"] == nil {
		params["_meta"] = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    flRevision,
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "e2e-raw", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
		}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest("POST", url+"/mcp", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", flRevision)
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	req.Header.Set("x-mcp-principal", principal)
	for _, f := range tweak {
		f(req)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return httpAnswer{res.StatusCode, res.Header, string(raw)}
}

// A task's answers get the pipeline of the tool that created it, on
// whichever replica they are fetched, with nothing shared between the
// replicas: the task created through A, its tasks/get through B shows the
// elicitation and the final result pseudonymised as export_contacts'
// answers are; tasks/update through A restores the pseudonym B issued.
// The server sees its own task id throughout.
func TestFleetTaskResults(t *testing.T) {
	up := startTaskServer(t)
	f := startFleet(t, up.URL, flTasksPolicy)

	// The control: another tool's answer passes unchanged.
	f.pin(0)
	if _, msg := flRaw(t, f.URL, "alice", "tools/call", "contact_raw", map[string]any{"name": "contact_raw", "arguments": map[string]any{}}); !strings.Contains(fmt.Sprint(msg), flAddress) {
		t.Fatalf("contact_raw: %v: the policy transformed it, the test proves nothing", msg)
	}

	status, msg := flRaw(t, f.URL, "alice", "tools/call", "export_contacts", map[string]any{"name": "export_contacts", "arguments": map[string]any{}})
	created, _ := msg["result"].(map[string]any)
	taskID, _ := created["taskId"].(string)
	if status != 200 || created["resultType"] != "task" || taskID == "" {
		t.Fatalf("export_contacts: %d %v\n%s", status, msg, f)
	}

	get := func(via int) map[string]any {
		t.Helper()
		f.pin(via)
		status, msg := flRaw(t, f.URL, "alice", "tasks/get", taskID, map[string]any{"taskId": taskID})
		res, _ := msg["result"].(map[string]any)
		if status != 200 || res == nil {
			t.Fatalf("tasks/get via %c: %d %v\n%s", 'A'+via, status, msg, f)
		}
		noLeak(t, fmt.Sprintf("tasks/get via %c", 'A'+via), msg)
		if req, ok := up.seen.lastWith(`"tasks/get"`); !ok || !strings.Contains(req.body, `"taskId":"task-1"`) || req.header.Get("Mcp-Name") != "task-1" {
			t.Errorf("the server got tasks/get with Mcp-Name %q and body %s, want its own task id task-1", req.header.Get("Mcp-Name"), req.body)
		}
		return res
	}

	pending := get(1)
	confirm, _ := pending["inputRequests"].(map[string]any)["confirm"].(map[string]any)
	params, _ := confirm["params"].(map[string]any)
	message, _ := params["message"].(string)
	pseudonym := strings.TrimSuffix(strings.TrimPrefix(message, "Export the contacts of "), "?")
	if pending["status"] != "input_required" || pseudonym == "" || pseudonym == message {
		t.Fatalf("tasks/get via B: %v", pending)
	}
	if pseudonym == flAddress {
		t.Fatalf("tasks/get via B: the task's elicitation reached the client untransformed, not as a server request\n%s", f)
	}

	f.pin(0)
	status, msg = flRaw(t, f.URL, "alice", "tasks/update", taskID, map[string]any{"taskId": taskID,
		"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"email": pseudonym}}}})
	if status != 200 || msg["error"] != nil {
		t.Fatalf("tasks/update via A: %d %v\n%s", status, msg, f)
	}
	up.mu.Lock()
	answer := string(up.answered["task-1"])
	up.mu.Unlock()
	if !strings.Contains(answer, flAddress) || strings.Contains(answer, pseudonym) {
		t.Errorf("the server got the task's input as %s, want the pseudonym %s restored\n%s", answer, pseudonym, f)
	}

	done := get(1)
	result, _ := done["result"].(map[string]any)
	content, _ := result["content"].([]any)
	first, _ := func() (map[string]any, bool) {
		if len(content) == 0 {
			return nil, false
		}
		m, ok := content[0].(map[string]any)
		return m, ok
	}()
	text, _ := first["text"].(string)
	if done["status"] != "completed" || !strings.HasPrefix(text, "exported for ") || text == "exported for " {
		t.Errorf("tasks/get via B after the update: %v", done)
	}
	// export_contacts' own pipeline, on the replica that never saw the
	// call: its annotation, which no other answer gets.
	if meta, _ := result["_meta"].(map[string]any); meta["io.cloudg/privacy"] == nil {
		t.Errorf("tasks/get via B: the task's result did not get export_contacts' pipeline (no annotation): %v\n%s", done, f)
	}
}
