package e2e_test

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/demo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionConfig redacts e-mail addresses in the echo tool's answers for
// the role careful only, and denies echo to bob: an answer read under the
// wrong principal shows either.
const sessionConfig = `{"policy": {"name": "sessions", "hide_denied": false, "transforms": ["detect"],
    "rules": [{"name": "careful-echo", "match": {"roles": ["careful"], "names": ["echo"]},
      "transforms": [{"type": "redact", "options": {"detectors": ["email"]}}]},
      {"name": "no-echo-for-bob", "match": {"principals": ["bob"]}, "deny_tools": ["echo"]}]},
  "identity": {"principal": [{"header": "x-mcp-principal"}], "roles": [{"header": "x-mcp-roles"}]}}`

const sessionAddress = "alice.martin@example.com"

// sessionRequest is a Streamable HTTP request of protocol 2025-11-25 (the
// go-sdk then primes each POST stream with an event id to resume from).
func sessionRequest(t *testing.T, method, url, session, principal, roles, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, url+"/mcp", strings.NewReader(body))
	setRawHeaders(req, session, principal, roles)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	if method == "GET" {
		req.Header.Del("Content-Type")
		req.Header.Set("Accept", "text/event-stream")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// sseEvents reads an event stream until it ends or until stop returns
// true for an event's data: each event's id and data.
func sseEvents(t *testing.T, r io.Reader, stop func(data string) bool) (ids, data []string) {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	id, d := "", ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id:"):
			id = strings.TrimSpace(line[3:])
		case strings.HasPrefix(line, "data:"):
			d += strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")
		case line == "":
			if id != "" || d != "" {
				ids, data = append(ids, id), append(data, d)
				if stop(d) {
					return ids, data
				}
			}
			id, d = "", ""
		}
	}
	return ids, data
}

// An MCP session belongs to the principal that first used it. Through the
// harness in front of the go-sdk's Streamable HTTP server with an event
// store: ann (role careful) calls echo with an address, which her role
// redacts; the call's event stream can be replayed on a GET with
// Last-Event-ID. Read under another identity (bob, or anonymous), the
// replayed answer came out through the reader's pipeline: the address
// raw. That GET is now refused (404, as an unknown session), and so is
// any request of theirs naming the session. Ann herself, resuming with a
// token that lost the role, gets her call's pipeline: redacted.
func TestSessionStreamsOnlyForTheirPrincipal(t *testing.T) {
	server := demo.NewServer()
	store := mcp.NewMemoryEventStore(nil)
	up := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{EventStore: store}))
	t.Cleanup(up.Close)
	p := startPlugin(t, up.URL, sessionConfig)

	res := sessionRequest(t, "POST", p.URL, "", "ann", "careful",
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	session := res.Header.Get("Mcp-Session-Id")
	if res.StatusCode != 200 || session == "" {
		t.Fatalf("initialize: %d, session %q", res.StatusCode, session)
	}
	if status, body := rawPost(t, p.URL, session, "ann", "careful", `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != 202 {
		t.Fatalf("initialized: %d %s", status, body)
	}

	// Ann's call, on its own stream: redacted by her role.
	res = sessionRequest(t, "POST", p.URL, session, "ann", "careful",
		`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"echo","arguments":{"text":"mail `+sessionAddress+`"}}}`)
	ids, data := sseEvents(t, res.Body, func(d string) bool { return strings.Contains(d, `"c1"`) })
	res.Body.Close()
	if len(ids) < 2 || ids[0] == "" || !strings.Contains(data[len(data)-1], `"c1"`) {
		t.Fatalf("call stream: ids %q, data %q", ids, data)
	}
	if answer := data[len(data)-1]; strings.Contains(answer, sessionAddress) || !strings.Contains(answer, "REDACTED") {
		t.Fatalf("ann's own stream: %s: the role's redaction did not apply, the test proves nothing", answer)
	}
	primed := ids[0] // the priming event: the answer follows it

	replayFrom := func(principal, roles string) (int, string) {
		return replayWith(t, p.URL, session, principal, roles, primed)
	}

	// Ann, her token refreshed without the role: her call's pipeline.
	if status, got := replayFrom("ann", ""); status != 200 || !strings.Contains(got, `"c1"`) || strings.Contains(got, sessionAddress) || !strings.Contains(got, "REDACTED") {
		t.Errorf("ann's resumed stream, without the role: %d %s; want her call's answer, redacted", status, got)
	}

	for _, tc := range []struct {
		name, principal, roles string
		status                 int
	}{
		{"another principal", "bob", "", 404},
		{"another principal with every role", "bob", "careful,sales", 404},
		{"anonymous", "", "", 404},
	} {
		status, got := replayFrom(tc.principal, tc.roles)
		if strings.Contains(got, sessionAddress) {
			t.Errorf("%s: read ann's answer raw on a resumed stream: %s", tc.name, got)
		}
		if status != tc.status || !strings.Contains(got, `"code":-32600`) || !strings.Contains(got, "session not found") {
			t.Errorf("%s: GET answered %d %s, want %d session not found", tc.name, status, got, tc.status)
		}
		// Nor may they post, or end the session, under it.
		for _, method := range []string{"POST", "DELETE"} {
			body := ""
			if method == "POST" {
				body = `{"jsonrpc":"2.0","id":"b1","method":"tools/list"}`
			}
			res := sessionRequest(t, method, p.URL, session, tc.principal, tc.roles, body)
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 404 {
				t.Errorf("%s: %s under ann's session: %d %s", tc.name, method, res.StatusCode, b)
			}
		}
	}

	// Bob may not use echo at all, in a session of his own.
	bobs := rawInitialize(t, p.URL, "bob", "")
	if status, body := rawPost(t, p.URL, bobs, "bob", "", `{"jsonrpc":"2.0","id":"b2","method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`); status != 200 || !strings.Contains(body, "-32003") {
		t.Errorf("bob's own echo call: %d %s, want -32003", status, body)
	}

	// Ann, with the role again, after the others tried.
	if status, got := replayFrom("ann", "careful"); status != 200 || !strings.Contains(got, `"c1"`) || strings.Contains(got, sessionAddress) || !strings.Contains(got, "REDACTED") {
		t.Errorf("ann's resumed stream: %d %s; want her call's answer, redacted", status, got)
	}
	// The session still works for her.
	if status, body := rawPost(t, p.URL, session, "ann", "", `{"jsonrpc":"2.0","id":"p1","method":"ping"}`); status != 200 {
		t.Errorf("ann's ping after: %d %s", status, body)
	}
}

// replayWith opens a GET on session resuming after lastEventID as
// principal with roles, and returns the status and what it read up to the
// answer to c1 (or the error body).
func replayWith(t *testing.T, url, session, principal, roles, lastEventID string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url+"/mcp", nil)
	setRawHeaders(req, session, principal, roles)
	req.Header.Del("Content-Type")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	req.Header.Set("Last-Event-ID", lastEventID)
	var res *http.Response
	// The server answers 409 while it has not yet seen the previous
	// replay of this stream end (its connection is closed, but the close
	// is not read yet): wait for that, a bounded while.
	for attempt := 0; ; attempt++ {
		var err error
		if res, err = http.DefaultClient.Do(req); err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != http.StatusConflict || attempt == 50 {
			break
		}
		res.Body.Close()
		time.Sleep(20 * time.Millisecond)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	done := make(chan string, 1)
	go func() {
		_, data := sseEvents(t, res.Body, func(d string) bool { return strings.Contains(d, `"c1"`) })
		done <- strings.Join(data, "\n")
	}()
	select {
	case got := <-done:
		return res.StatusCode, got
	case <-time.After(10 * time.Second):
		t.Fatalf("replay as %q: no answer", principal)
	}
	return 0, ""
}

// The legacy HTTP+SSE transport: the session is created by a GET stream,
// and every answer to a POST naming it arrives there. Bob (denied echo)
// opens the stream and has ann (role careful, whose echo answers are
// redacted) post to his session's endpoint: her answer came out on his
// stream through his pipeline, the address raw. The endpoint event now
// binds the session to bob, and her POSTs are refused (404).
func TestLegacySessionOnlyForItsGETStreamPrincipal(t *testing.T) {
	server := demo.NewServer()
	up := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil))
	t.Cleanup(up.Close)
	p := startPlugin(t, up.URL, sessionConfig)

	req, _ := http.NewRequest("GET", p.URL+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("x-mcp-principal", "bob")
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	events := bufio.NewReader(stream.Body)
	_, data := sseEvents(t, events, func(d string) bool { return strings.HasPrefix(d, "/") })
	if len(data) == 0 || !strings.Contains(data[len(data)-1], "sessionid=") {
		t.Fatalf("no endpoint event: %q", data)
	}
	endpoint := p.URL + data[len(data)-1]

	postAs := func(principal, roles, body string) int {
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("x-mcp-principal", principal)
		if roles != "" {
			req.Header.Set("x-mcp-roles", roles)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	refused := true
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":"i1","method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"echo","arguments":{"text":"mail ` + sessionAddress + `"}}}`,
	} {
		if status := postAs("ann", "careful", body); status != 404 {
			refused = false
			t.Errorf("ann's POST to bob's session: %d, want 404", status)
		}
	}
	// Bob's own request goes on, and its answer ends what the test reads.
	if status := postAs("bob", "", `{"jsonrpc":"2.0","id":"p1","method":"ping"}`); status != 202 {
		t.Errorf("bob's ping: %d", status)
	}
	done := make(chan []string, 1)
	go func() {
		_, data := sseEvents(t, events, func(d string) bool {
			return strings.Contains(d, `"c1"`) || refused && strings.Contains(d, `"p1"`)
		})
		done <- data
	}()
	select {
	case data := <-done:
		for _, d := range data {
			if strings.Contains(d, sessionAddress) || strings.Contains(d, `"c1"`) {
				t.Errorf("bob's stream carried ann's answer: %s", d)
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal("bob's stream: no answer")
	}
}
