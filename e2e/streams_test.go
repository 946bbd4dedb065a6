package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/proxy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

//lint:file-ignore SA1019 MCP logging, deprecated from protocol 2026-07-28 on, is part of the 2025-11-25 sessions these tests run and must cross the plugin

// Event streams through the plugin: a request's stream is rewritten event
// by event and never held back (a server request in it must reach the
// client before the stream can go on), lists are filtered in every place a
// list can travel, and the result does not depend on how the bytes were cut
// into chunks or on the server's response mode.

// stProtocol is the protocol version the stateful go-sdk sessions of this
// file ask for: initialize, Mcp-Session-Id, and a standalone GET stream.
// (A go-sdk v1.8.0 client left alone tries the stateless 2026-07-28
// protocol first.)
const stProtocol = "2025-11-25"

// stEnvelope is the policy of the handcrafted and test servers of this
// file: visible_* tools, docs:// resources and visible_* prompts for
// everyone, long_job too; everything else hidden. Virtual tools are off so
// that the expected lists are exactly the server's minus what is hidden.
func stEnvelope(hold bool) string {
	return fmt.Sprintf(`{
  "policy": {
    "name": "streams",
    "extends": "standard",
    "hide_denied": true,
    "allow_tools": ["visible_*", "long_job"],
    "allow_resources": ["docs://*"],
    "allow_prompts": ["visible_*"]
  },
  "identity": {"principal": [{"header": "x-mcp-principal"}], "roles": [{"header": "x-mcp-roles"}]},
  "gateway": {"hold_headers": %v, "virtual_tools": false}
}`, hold)
}

// stConnect opens a stateful go-sdk session (protocol stProtocol) through
// url with the given client options and the caller's identity headers.
func stConnect(t testing.TB, url, principal, roles string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, url, principal, roles, opts, &mcp.ClientSessionOptions{ProtocolVersion: stProtocol})
}

// stRecorder collects what client handlers saw, in order.
type stRecorder struct {
	mu     sync.Mutex
	events []string
}

func (r *stRecorder) add(format string, args ...any) {
	r.mu.Lock()
	r.events = append(r.events, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

func (r *stRecorder) snapshot() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

// stWaitFor polls cond until it holds or d passes.
func stWaitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type stJobArgs struct {
	Steps int `json:"steps" jsonschema:"how many steps to report"`
}

// stJobServer is a go-sdk server whose long_job tool reports progress and
// logs on the call's own stream, then asks the client a question
// (elicitation) and waits for the answer before it finishes. Closing abort
// ends a wait that would otherwise never end (the answer never came), so
// that a failing test can shut its servers down.
func stJobServer(abort <-chan struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "long_job", Description: "A job that reports progress and asks a question."},
		func(ctx context.Context, req *mcp.CallToolRequest, a stJobArgs) (*mcp.CallToolResult, any, error) {
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			go func() {
				select {
				case <-abort:
					cancel()
				case <-ctx.Done():
				}
			}()
			tok := req.Params.GetProgressToken()
			total := float64(a.Steps + 1)
			for i := 1; i <= a.Steps; i++ {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: tok, Progress: float64(i), Total: total, Message: fmt.Sprintf("step %d", i)}); err != nil {
					return nil, nil, fmt.Errorf("progress %d: %w", i, err)
				}
				if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{
					Level: "info", Logger: "long_job", Data: fmt.Sprintf("did step %d", i)}); err != nil {
					return nil, nil, fmt.Errorf("log %d: %w", i, err)
				}
			}
			answer, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
				Message: "Which colour?",
				RequestedSchema: map[string]any{
					"type":       "object",
					"properties": map[string]any{"colour": map[string]any{"type": "string"}},
					"required":   []string{"colour"},
				},
			})
			if err != nil {
				return nil, nil, fmt.Errorf("elicit: %w", err)
			}
			colour, _ := answer.Content["colour"].(string)
			// The stream goes on after the client's answer.
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: tok, Progress: total, Total: total, Message: "done"}); err != nil {
				return nil, nil, fmt.Errorf("last progress: %w", err)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: answer.Action + ": " + colour}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "visible_first", Description: "Always there."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "first"}}}, nil, nil
		})
	return s
}

// stServe serves a go-sdk server over Streamable HTTP with sessions,
// answering POSTs with event streams or, with jsonResponse, with
// application/json (the server's other messages then go to the GET stream).
func stServe(t testing.TB, s *mcp.Server, jsonResponse bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{JSONResponse: jsonResponse}))
	t.Cleanup(srv.Close)
	return srv
}

// stProbeLogger names the log messages stAwaitGETStream sends.
const stProbeLogger = "st-probe"

// stAwaitGETStream returns once a log message sent outside any request
// (which only the standalone GET stream can carry; the server drops it
// while that stream is not connected) reached the client, whose logging
// handler passes the data of stProbeLogger messages to probes. The
// session's log level must be set.
func stAwaitGETStream(ctx context.Context, server *mcp.Server, probes <-chan string) (string, error) {
	const hello = "hello from outside any request"
	for {
		for ss := range server.Sessions() {
			_ = ss.Log(context.Background(), &mcp.LoggingMessageParams{Level: "notice", Logger: stProbeLogger, Data: hello})
		}
		select {
		case got := <-probes:
			if got != hello {
				return got, fmt.Errorf("log on the GET stream: got %q, want %q", got, hello)
			}
			return got, nil
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			return "", fmt.Errorf("no log message arrived on the GET stream: %w", ctx.Err())
		}
	}
}

// A tool call whose event stream carries progress notifications and log
// messages, then an elicitation that the client must answer (with a
// separate POST through the plugin) before the server goes on. If the
// plugin held the stream back, the call would deadlock. With a server
// answering application/json, the same messages travel on the GET stream.
func TestProgressLogsAndElicitationMidCall(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			abort := make(chan struct{})
			defer close(abort)
			server := stJobServer(abort)
			up := stServe(t, server, mode.jsonResponse)
			p := startPlugin(t, up.URL, stEnvelope(mode.hold))

			rec := &stRecorder{}
			probes := make(chan string, 100)
			var elicitations int
			var elicitMu sync.Mutex
			cs := stConnect(t, p.URL, "ann", "support", &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					elicitMu.Lock()
					elicitations++
					elicitMu.Unlock()
					rec.add("elicit %s", req.Params.Message)
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"colour": "teal"}}, nil
				},
				LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
					if req.Params.Logger == stProbeLogger {
						probes <- fmt.Sprint(req.Params.Data)
						return
					}
					rec.add("log %s %s %v", req.Params.Level, req.Params.Logger, req.Params.Data)
				},
				ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
					rec.add("progress %v %g/%g %s", req.Params.ProgressToken, req.Params.Progress, req.Params.Total, req.Params.Message)
				},
			})

			// A deadlock fails here, fast, instead of hanging the test.
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
				t.Fatalf("logging/setLevel: %v", err)
			}
			if mode.jsonResponse {
				// Everything but the result will go to the GET stream, which
				// the client opens in the background.
				if _, err := stAwaitGETStream(ctx, server, probes); err != nil {
					t.Fatalf("%v\n%s", err, p.logs)
				}
			}
			params := &mcp.CallToolParams{Name: "long_job", Arguments: map[string]any{"steps": 3}}
			params.SetProgressToken("job-1")
			res, err := cs.CallTool(ctx, params)
			if err != nil {
				t.Fatalf("tools/call long_job: %v (handlers saw %q)\n%s", err, rec.snapshot(), p.logs)
			}
			if res.IsError || len(res.Content) != 1 {
				t.Fatalf("result %+v", res)
			}
			if text, _ := res.Content[0].(*mcp.TextContent); text == nil || text.Text != "accept: teal" {
				t.Errorf("result content %+v, want the elicited value %q", res.Content[0], "accept: teal")
			}

			want := []string{
				"progress job-1 1/4 step 1", "log info long_job did step 1",
				"progress job-1 2/4 step 2", "log info long_job did step 2",
				"progress job-1 3/4 step 3", "log info long_job did step 3",
				"elicit Which colour?",
				"progress job-1 4/4 done",
			}
			// The call's response is delivered apart from the notification
			// handlers: the last notification may still be on its way.
			stWaitFor(5*time.Second, func() bool { return len(rec.snapshot()) >= len(want) })
			if got := rec.snapshot(); !reflect.DeepEqual(got, want) {
				t.Errorf("client handlers saw\n%q\nwant\n%q", got, want)
			}
			elicitMu.Lock()
			n := elicitations
			elicitMu.Unlock()
			if n != 1 {
				t.Errorf("the elicitation handler ran %d times, want once", n)
			}

			// The session goes on normally.
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "visible_first"}); err != nil {
				t.Errorf("call after the job: %v", err)
			}
		})
	}
}

// Server-initiated messages outside any request travel on the client's
// standalone GET stream, through the plugin.
func TestGETStreamNotifications(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			abort := make(chan struct{})
			defer close(abort)
			server := stJobServer(abort)
			up := stServe(t, server, mode.jsonResponse)
			p := startPlugin(t, up.URL, stEnvelope(mode.hold))

			probes := make(chan string, 100)
			listChanged := make(chan struct{}, 10)
			cs := stConnect(t, p.URL, "ann", "support", &mcp.ClientOptions{
				LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
					if req.Params.Logger == stProbeLogger {
						probes <- fmt.Sprint(req.Params.Data)
					}
				},
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
					listChanged <- struct{}{}
				},
			})
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
				t.Fatalf("logging/setLevel: %v", err)
			}

			// A log message outside any request.
			if _, err := stAwaitGETStream(ctx, server, probes); err != nil {
				t.Fatalf("%v\n%s", err, p.logs)
			}

			// tools/list_changed after the tool set changed, and the new
			// list filtered as ever.
			handler := func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			}
			mcp.AddTool(server, &mcp.Tool{Name: "visible_added", Description: "Added after connect."}, handler)
			mcp.AddTool(server, &mcp.Tool{Name: "hidden_added", Description: "Added after connect, hidden."}, handler)
			select {
			case <-listChanged:
			case <-ctx.Done():
				t.Fatalf("no notifications/tools/list_changed on the GET stream\n%s", p.logs)
			}
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
			}
			sort.Strings(names)
			if want := []string{"long_job", "visible_added", "visible_first"}; !reflect.DeepEqual(names, want) {
				t.Errorf("tools after list_changed: %v, want %v", names, want)
			}
		})
	}
}

// The items of the split test's tools/list result: compact JSON with
// multi-byte characters (2, 3 and 4 bytes) and _meta, the middle one hidden
// by the policy.
const (
	stToolSearch = `{"name":"visible_search","title":"Recherche – 検索","description":"Finds café records: naïve “quotes”, ß, emoji 🚀.",` +
		`"inputSchema":{"type":"object","properties":{"q":{"type":"string","description":"Suchbegriff – 語"}}},` +
		`"_meta":{"io.cloudg/privacy":{"category":"search","sensitivity":"internal"},"com.example/ünï":"✓ ok"}}`
	stToolHidden = `{"name":"admin_wipe","description":"Efface tout — 全部削除 💥","inputSchema":{"type":"object"},` +
		`"_meta":{"io.cloudg/privacy":{"capabilities":["write_state"],"sensitivity":"restricted"},"com.example/note":"ne pas montrer ⚠"}}`
	stToolReport = `{"name":"visible_report","description":"Rapport annuel – Ωmega ✓ 📈","inputSchema":{"type":"object"},` +
		`"annotations":{"readOnlyHint":true},"_meta":{"com.example/ünï":"Ünïcødé"}}`
)

// stSplitStream is the upstream's answer to tools/list id 5, with LF line
// endings, and what the client must see of it.
func stSplitStream() (stream, want string) {
	list := `{"jsonrpc":"2.0","id":5,"result":{"tools":[%s],"nextCursor":"page-2 ➜"}}`
	full := fmt.Sprintf(list, stToolSearch+","+stToolHidden+","+stToolReport)
	filtered := fmt.Sprintf(list, stToolSearch+","+stToolReport)
	head := "id: 0\nretry: 500\ndata: \n\n" + // priming event
		"event: message\nid: 1\ndata: " +
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"st-5","progress":1,"total":2,"message":"Étape 1 – 進行中 ⏳"}}` +
		"\n\n: keep-alive ☕\n\nevent: message\nid: 2\ndata: "
	return head + full + "\n\n", head + filtered + "\n\n"
}

// stPost posts body to url+/mcp with the raw client headers and extra
// headers, and returns the status, content type and whole body.
func stPost(t *testing.T, client *http.Client, url, body string, extra map[string]string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/mcp", strings.NewReader(body))
	setRawHeaders(req, "st-session", "ann", "support")
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	return res.StatusCode, res.Header.Get("Content-Type"), string(b)
}

// stDiff describes where got first differs from want.
func stDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	return fmt.Sprintf("lengths %d/%d, first difference at byte %d: got %q, want %q",
		len(got), len(want), i, got[i:min(len(got), i+60)], want[i:min(len(want), i+60)])
}

// stSplitTransport carries the plugin's upstream requests and makes sure
// the plugin gets the upstream's two writes as two chunks: the first reads
// of a response body stop at the byte position in the x-st-split header,
// even when both writes were already on the wire.
type stSplitTransport struct{ base http.RoundTripper }

func (s stSplitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := s.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if k, err := strconv.Atoi(r.Header.Get("x-st-split")); err == nil {
		res.Body = &stSplitBody{ReadCloser: res.Body, left: k}
	}
	return res, nil
}

type stSplitBody struct {
	io.ReadCloser
	left int // bytes before the split
}

func (b *stSplitBody) Read(p []byte) (int, error) {
	if b.left > 0 && len(p) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= n
	return n, err
}

// A list response in an event stream, delivered in two writes split at
// every byte position (inside field names, line endings, a BOM, multi-byte
// characters, the JSON): the client sees the same filtered stream each
// time.
func TestEventSplitAtEveryByte(t *testing.T) {
	lf, lfWant := stSplitStream()
	if lfWant == lf || !strings.Contains(lf, stToolHidden) || strings.Contains(lfWant, stToolHidden) {
		t.Fatal("bad fixture")
	}
	// What goes out is the canonical form every client reads alike
	// (manual 8.1, "One reading"): comments emptied, LF endings, no BOM;
	// an event that needed rewriting has its empty data line written
	// "data:".
	lfCanon := strings.Replace(lfWant, ": keep-alive ☕\n", ":\n", 1)
	rewritten := strings.Replace(lfCanon, "data: \n", "data:\n", 1)
	crlf := strings.ReplaceAll(lf, "\n", "\r\n")
	variants := []struct{ name, stream, want string }{
		{"lf", lf, lfCanon},
		{"crlf", crlf, rewritten},
		// Lone CR line endings go out as LF, as clients that split lines
		// on LF only (the Go SDK's) read them.
		{"cr", strings.ReplaceAll(lf, "\n", "\r"), rewritten},
		{"bom", "\xEF\xBB\xBF" + crlf, rewritten},
		// The list's JSON spread over three data lines: the rewritten event
		// has one data line, where the first was.
		{"multiline-data", strings.NewReplacer(`"result":{`, "\"result\":\ndata: {", `],"nextCursor"`, "],\ndata:\"nextCursor\"").Replace(lf), lfCanon},
	}
	byName := map[string]string{}
	for _, v := range variants {
		byName[v.name] = v.stream
	}

	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		stream, ok := byName[r.Header.Get("x-st-variant")]
		k, err := strconv.Atoi(r.Header.Get("x-st-split"))
		if !ok || err != nil || k < 0 || k > len(stream) {
			http.Error(w, "bad split request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		_, _ = io.WriteString(w, stream[:k])
		_ = rc.Flush()
		_, _ = io.WriteString(w, stream[k:])
	}))
	t.Cleanup(up.Close)
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.DisableCompression = true
	p := startPlugin(t, up.URL, stEnvelope(false), func(o *proxy.Options) { o.Transport = stSplitTransport{base} })

	step := 1
	if testing.Short() {
		step = 7
	}
	client := &http.Client{Timeout: 10 * time.Second}
	for _, v := range variants {
		failures, runs := 0, 0
		for k := 0; k <= len(v.stream); k += step {
			runs++
			status, ct, got := stPost(t, client, p.URL, `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`,
				map[string]string{"x-st-variant": v.name, "x-st-split": strconv.Itoa(k)})
			if status != 200 || ct != "text/event-stream" || got != v.want {
				failures++
				if failures <= 5 {
					t.Errorf("%s, split at %d: status %d, content-type %q, %s", v.name, k, status, ct, stDiff(got, v.want))
				}
			}
		}
		if failures > 0 {
			t.Errorf("%s: %d of %d split positions gave a wrong stream\n%s", v.name, failures, runs, p.logs)
		}
	}
}

// stReadEvent reads one server-sent event (up to and including its empty
// line) from r.
func stReadEvent(r *bufio.Reader) (string, error) {
	var ev strings.Builder
	for {
		line, err := r.ReadString('\n')
		ev.WriteString(line)
		if err != nil {
			return ev.String(), err
		}
		if line == "\n" {
			return ev.String(), nil
		}
	}
}

// stGetRequest is a client's GET for the standalone event stream.
func stGetRequest(ctx context.Context, url string) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", "st-session")
	req.Header.Set("MCP-Protocol-Version", stProtocol)
	req.Header.Set("x-mcp-principal", "ann")
	return req
}

// stGet reads a whole GET event stream.
func stGet(t *testing.T, url string) string {
	t.Helper()
	res, err := http.DefaultClient.Do(stGetRequest(ctxT(t), url))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET %s: %d %q %v", url, res.StatusCode, res.Header.Get("Content-Type"), err)
	}
	return string(b)
}

// List responses no request on their stream asked for (a resumed stream,
// a response routed to the GET stream) are recognised by their shape and
// filtered like any list.
func TestListsFilteredOnGETStream(t *testing.T) {
	const (
		listChanged = "id: g-1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n"
		toolsFull   = "id: g-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":42,\"result\":{\"tools\":[" + stToolSearch + "," + stToolHidden + "]}}\n\n"
		toolsWant   = "id: g-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":42,\"result\":{\"tools\":[" + stToolSearch + "]}}\n\n"
		resFull     = "id: g-3\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"r-7\",\"result\":{\"resources\":[" +
			`{"uri":"secrets://vault","name":"vault – 金庫"},{"uri":"docs://readme","name":"readme"}` + "]}}\n\n"
		resWant = "id: g-3\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"r-7\",\"result\":{\"resources\":[" +
			`{"uri":"docs://readme","name":"readme"}` + "]}}\n\n"
		promptsFull = "id: g-4\ndata: {\"jsonrpc\":\"2.0\",\"id\":43,\"result\":{\"prompts\":[" +
			`{"name":"visible_summary"},{"name":"secret_prompt","description":"✗"}` + "]}}\n\n"
		promptsWant = "id: g-4\ndata: {\"jsonrpc\":\"2.0\",\"id\":43,\"result\":{\"prompts\":[" +
			`{"name":"visible_summary"}` + "]}}\n\n"
		// A response that is no list passes as it is.
		callResult = "id: g-5\ndata: {\"jsonrpc\":\"2.0\",\"id\":44,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"admin_wipe\"}]}}\n\n"
		mixedFull  = "data: {\"jsonrpc\":\"2.0\",\"id\":45,\"result\":{" +
			`"tools":[{"name":"visible_a"},{"name":"admin_wipe"}],"prompts":[{"name":"visible_p"},{"name":"secret_prompt"}]` + "}}\n\n"
		mixedWant = "data: {\"jsonrpc\":\"2.0\",\"id\":45,\"result\":{" +
			`"tools":[{"name":"visible_a"}],"prompts":[{"name":"visible_p"}]` + "}}\n\n"
	)

	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		rc := http.NewResponseController(w)
		w.Header().Set("Content-Type", "text/event-stream")
		switch r.Method {
		case http.MethodGet:
			if r.URL.Query().Has("mixed") {
				w.WriteHeader(http.StatusOK)
				_, _ = io.WriteString(w, strings.Repeat(mixedFull, 4))
				return
			}
			// The standalone stream: what it carries was asked for on no
			// POST of this stream. It stays open until released.
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, listChanged+toolsFull)
			_ = rc.Flush()
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
			_, _ = io.WriteString(w, resFull+promptsFull+callResult)
		case http.MethodPost:
			// A POST's stream carrying, before the call's own response, a
			// list response to an id this POST did not send.
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, toolsFull)
			_ = rc.Flush()
			_, _ = io.WriteString(w, "id: p-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n")
		default:
			http.Error(w, "no", http.StatusMethodNotAllowed)
		}
	}))
	t.Cleanup(up.Close)
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	p := startPlugin(t, up.URL, stEnvelope(false))

	t.Run("GET", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		res, err := http.DefaultClient.Do(stGetRequest(ctx, p.URL+"/mcp"))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("GET: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
		}
		r := bufio.NewReader(res.Body)
		// The first events arrive while the upstream keeps the stream open.
		for _, want := range []string{listChanged, toolsWant} {
			got, err := stReadEvent(r)
			if err != nil || got != want {
				t.Fatalf("open GET stream: got %q (%v)\nwant %q\n%s", got, err, want, p.logs)
			}
		}
		close(release)
		rest, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("reading the rest: %v", err)
		}
		if want := resWant + promptsWant + callResult; string(rest) != want {
			t.Errorf("rest of the GET stream:\n%s", stDiff(string(rest), want))
		}
	})

	// A result with several item arrays cannot be attributed to one list
	// method: every array is judged, else the others go out unjudged.
	t.Run("several item arrays", func(t *testing.T) {
		got := stGet(t, p.URL+"/mcp?mixed")
		if want := strings.Repeat(mixedWant, 4); got != want {
			t.Errorf("unattributed results with a tools and a prompts array:\ngot:\n%s\nwant:\n%s", got, want)
		}
	})

	t.Run("POST", func(t *testing.T) {
		status, ct, got := stPost(t, http.DefaultClient, p.URL,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"visible_search","arguments":{"q":"x"}}}`, nil)
		want := toolsWant + "id: p-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n"
		if status != 200 || ct != "text/event-stream" || got != want {
			t.Errorf("POST stream: %d %q\n%s", status, ct, stDiff(got, want))
		}
	})
}

// stLists is everything a caller can list, as the client decoded it.
type stLists struct {
	Tools     []*mcp.Tool
	Resources []*mcp.Resource
	Templates []*mcp.ResourceTemplate
	Prompts   []*mcp.Prompt
}

func stListAll(t *testing.T, cs *mcp.ClientSession) stLists {
	t.Helper()
	ctx := ctxT(t)
	var l stLists
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatalf("resources/list: %v", err)
	}
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatalf("resources/templates/list: %v", err)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatalf("prompts/list: %v", err)
	}
	l.Tools, l.Resources, l.Templates, l.Prompts = tools.Tools, res.Resources, tmpl.ResourceTemplates, prompts.Prompts
	return l
}

// stMessage returns the JSON-RPC message with an id in a raw response
// body: the body itself (application/json) or the data of the event
// carrying it (text/event-stream), byte for byte.
func stMessage(t *testing.T, body string) string {
	t.Helper()
	var candidates []string
	if strings.HasPrefix(strings.TrimSpace(body), "{") {
		candidates = append(candidates, body)
	} else {
		for _, ev := range strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n\n") {
			var data []string
			for _, line := range strings.Split(ev, "\n") {
				if v, ok := strings.CutPrefix(line, "data:"); ok {
					data = append(data, strings.TrimPrefix(v, " "))
				}
			}
			candidates = append(candidates, strings.Join(data, "\n"))
		}
	}
	for _, c := range candidates {
		var m map[string]any
		if json.Unmarshal([]byte(c), &m) == nil && m["id"] != nil {
			return c
		}
	}
	t.Fatalf("no response in %q", body)
	return ""
}

// The demo server answering with application/json or with event streams:
// through the plugin, every caller sees the same lists either way.
func TestJSONAndSSEModesAgree(t *testing.T) {
	callers := []struct{ principal, roles string }{
		{"ann", "support"}, {"", ""}, {"mallory@example.com", ""}, {"root", "admin"},
	}
	methods := []string{"tools/list", "resources/list", "resources/templates/list", "prompts/list"}
	type seen struct {
		stateful, latest stLists
		raw              map[string]string
	}
	byMode := map[bool]map[string]seen{}
	for _, jsonResponse := range []bool{true, false} {
		up := startUpstream(t, jsonResponse)
		p := startPlugin(t, up.URL, envelope(true, false))
		byMode[jsonResponse] = map[string]seen{}
		for _, c := range callers {
			s := seen{raw: map[string]string{}}
			s.stateful = stListAll(t, stConnect(t, p.URL, c.principal, c.roles, nil))
			s.latest = stListAll(t, connect(t, p.URL, c.principal, c.roles))
			session := rawInitialize(t, p.URL, c.principal, c.roles)
			for i, m := range methods {
				status, body := rawPost(t, p.URL, session, c.principal, c.roles,
					fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, i+1, m))
				if status != 200 || strings.HasPrefix(body, "{") != jsonResponse {
					t.Fatalf("json=%v %s as %q: %d %s", jsonResponse, m, c.principal, status, body)
				}
				s.raw[m] = stMessage(t, body)
			}
			byMode[jsonResponse][c.principal] = s
		}
	}

	for _, c := range callers {
		j, e := byMode[true][c.principal], byMode[false][c.principal]
		for _, cmp := range []struct {
			what     string
			json, ev any
		}{
			{"stateful session", j.stateful, e.stateful},
			{"go-sdk session with default options", j.latest, e.latest},
			{"raw messages", j.raw, e.raw},
		} {
			jb, _ := json.Marshal(cmp.json)
			eb, _ := json.Marshal(cmp.ev)
			if string(jb) != string(eb) {
				t.Errorf("caller %q, %s: application/json and text/event-stream differ:\njson: %s\nsse:  %s", c.principal, cmp.what, jb, eb)
			}
		}
	}

	// And the lists are filtered, not merely equal.
	names := func(l stLists) []string {
		var out []string
		for _, x := range l.Tools {
			out = append(out, "tool:"+x.Name)
		}
		for _, x := range l.Resources {
			out = append(out, "resource:"+x.URI)
		}
		for _, x := range l.Templates {
			out = append(out, "template:"+x.URITemplate)
		}
		for _, x := range l.Prompts {
			out = append(out, "prompt:"+x.Name)
		}
		sort.Strings(out)
		return out
	}
	want := map[string][]string{
		"ann": {"prompt:summarize_customer", "resource:docs://readme", "template:customers://{id}/profile",
			"tool:echo", "tool:get_customer", "tool:search_customers"},
		"":                    {"resource:docs://readme", "tool:echo"},
		"mallory@example.com": {"resource:docs://readme"},
		"root": {"prompt:summarize_customer", "resource:docs://readme", "template:customers://{id}/profile",
			"tool:delete_customer", "tool:echo", "tool:get_customer", "tool:preview_transform", "tool:privacy_status", "tool:search_customers"},
	}
	for _, mode := range []bool{true, false} {
		for _, c := range callers {
			s := byMode[mode][c.principal]
			for kind, l := range map[string]stLists{"stateful": s.stateful, "default": s.latest} {
				if got := names(l); !reflect.DeepEqual(got, want[c.principal]) {
					t.Errorf("json=%v, caller %q, %s session: lists %v, want %v", mode, c.principal, kind, got, want[c.principal])
				}
			}
		}
	}
}
