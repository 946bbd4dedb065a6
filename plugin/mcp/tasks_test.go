package mcp

import (
	"encoding/json"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
)

// taskMeta is the _meta of a 2026-07-28 request.
const taskMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// createTask runs a tools/call of tool that the server answers with a
// CreateTaskResult for taskID through cfg, and returns the handle the
// client gets and the whole answer.
func createTask(t *testing.T, cfg *Config, who fakeRequest, tool, taskID string) (handle, got string) {
	t.Helper()
	got = respond2026(t, cfg, who, call("1", "tools/call", `{"name":"`+tool+`","arguments":{},`+taskMeta+`}`),
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"`+taskID+`","status":"working",`+
			`"statusMessage":"working for alice@example.com","createdAt":"2026-12-02T10:00:00Z","lastUpdatedAt":"2026-12-02T10:00:00Z","ttlMs":60000,"pollIntervalMs":5000}}`)
	var out struct{ Result struct{ TaskID string } }
	if err := json.Unmarshal([]byte(got), &out); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	return out.Result.TaskID, got
}

// TestTaskHandles: a task created through one Envoy is polled through
// another (a fresh Config with the same vault key, no shared data): the
// client only ever sees a sealed handle; every tasks request naming it
// reaches the server with the server's taskId (in the body and in
// Mcp-Name); tasks/get's result gets the creating tool's output pipeline
// (crm_*: pseudonymise, where the policy's is redact) and its
// inputRequests the server-request pipeline; tasks/update's inputResponses
// get the tool's input pipeline.
func TestTaskHandles(t *testing.T) {
	envoyA, envoyB := mustConfig(t, mrtrEnvelope), mustConfig(t, mrtrEnvelope)
	ann := hdr("x-mcp-principal", "ann")
	const taskID = "786512e2-9e0d-44bd-8f29-789f320fe840"
	handle, created := createTask(t, envoyA, ann, "crm_lookup", taskID)
	if !isTaskHandle(handle) || strings.Contains(created, taskID) {
		t.Fatalf("the server's taskId reached the client: %s", created)
	}
	if !emailPseudonymRE.MatchString(created) || strings.Contains(created, "alice@") {
		t.Errorf("CreateTaskResult not read by the tool's pipeline: %s", created)
	}
	if again, _ := createTask(t, envoyB, ann, "crm_lookup", taskID); again != handle {
		t.Errorf("one task, two handles: %s and %s", handle, again)
	}

	// (Restoring a pseudonym issued by another Envoy is the sealed vault's
	// job: this one was issued where it is restored.)
	p := pseudonymOf(t, envoyB, ann, "bob@example.com")
	for _, c := range []struct {
		method, params, response string
		check                    func(t *testing.T, forwarded, got string)
	}{
		{"tasks/get", `{"taskId":"` + handle + `",` + taskMeta + `}`,
			`{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","taskId":"` + taskID + `","status":"completed",` +
				`"statusMessage":"done for alice@example.com","createdAt":"x","lastUpdatedAt":"y","ttlMs":1,` +
				`"result":{"content":[{"type":"text","text":"alice@example.com"}],"structuredContent":{"mail":"alice@example.com"},"isError":false}}}`,
			func(t *testing.T, _, got string) {
				if strings.Contains(got, "alice@") || strings.Contains(got, "[REDACTED") || strings.Count(got, "EMAIL_") != 3 {
					t.Errorf("the task's result did not get the tool's pipeline: %s", got)
				}
				if !strings.Contains(got, `"taskId":"`+handle+`"`) {
					t.Errorf("the result's taskId is not the client's handle: %s", got)
				}
			}},
		{"tasks/get", `{"taskId":"` + handle + `",` + taskMeta + `}`,
			`{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","taskId":"` + taskID + `","status":"input_required","createdAt":"x","lastUpdatedAt":"y","ttlMs":1,` +
				`"inputRequests":{"name":{"method":"elicitation/create","params":{"mode":"form","message":"Is alice@example.com yours?","requestedSchema":{"type":"object"}}}}}}`,
			func(t *testing.T, _, got string) {
				if !strings.Contains(got, `"Is [REDACTED:EMAIL] yours?"`) {
					t.Errorf("the task's inputRequests did not get the server-request pipeline: %s", got)
				}
			}},
		{"tasks/get", `{"taskId":"` + handle + `",` + taskMeta + `}`,
			`{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","taskId":"` + taskID + `","status":"failed","createdAt":"x","lastUpdatedAt":"y","ttlMs":1,` +
				`"error":{"code":-32603,"message":"no mailbox alice@example.com","data":{"who":"alice@example.com"}}}}`,
			func(t *testing.T, _, got string) {
				if strings.Contains(got, "alice@") || strings.Count(got, "EMAIL_") != 2 {
					t.Errorf("the task's error did not get the tool's pipeline: %s", got)
				}
			}},
		{"tasks/update", `{"taskId":"` + handle + `","inputResponses":{"name":{"action":"accept","content":{"mail":"` + p + `","key":"` + awsKey + `"}}},` + taskMeta + `}`,
			`{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete"}}`,
			func(t *testing.T, forwarded, _ string) {
				if !strings.Contains(forwarded, `"mail":"bob@example.com"`) || strings.Contains(forwarded, awsKey) {
					t.Errorf("inputResponses did not get the tool's input pipeline: %s", forwarded)
				}
			}},
		{"tasks/cancel", `{"taskId":"` + handle + `",` + taskMeta + `}`, `{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete"}}`, nil},
	} {
		t.Run(c.method, func(t *testing.T) {
			s, r := post2026(t, envoyB, ann, call("5", c.method, c.params))
			if r.Reply != nil {
				t.Fatalf("answered locally: %s", r.Reply.Body)
			}
			var fwd struct{ Params struct{ TaskID string } }
			if err := json.Unmarshal(r.Body, &fwd); err != nil || fwd.Params.TaskID != taskID {
				t.Fatalf("forwarded taskId %q (%v): %s", fwd.Params.TaskID, err, r.Body)
			}
			if !hasHeader(r.Set, "mcp-name", taskID) {
				t.Errorf("Mcp-Name not set to the server's taskId: %v", r.Set)
			}
			got := finish(t, s, c.response)
			if c.check != nil {
				c.check(t, string(r.Body), got)
			}
		})
	}
}

// TestTaskHandleRefused: a handle that does not open is answered as the
// server answers an unknown task (-32602), never forwarded: tampered,
// issued to another principal, for another server, under another key; and,
// under 2026-07-28, a taskId the plugin never issued. A 2025 request
// naming a task of the 2025 revisions' own tasks passes as before.
func TestTaskHandleRefused(t *testing.T) {
	cfg := mustConfig(t, mrtrEnvelope)
	ann, bob := hdr("x-mcp-principal", "ann"), hdr("x-mcp-principal", "bob")
	handle, _ := createTask(t, cfg, ann, "crm_lookup", "t-1")
	otherKey := mustConfig(t, strings.Replace(mrtrEnvelope, "mrtr test key", "another key", 1))
	otherServer := mustConfig(t, mrtrEnvelope+"server: {id: other}\n")
	tampered := []byte(handle)
	tampered[len(tampered)-5] ^= 1
	for _, c := range []struct {
		name   string
		cfg    *Config
		who    fakeRequest
		taskID string
	}{
		{"tampered", cfg, ann, string(tampered)},
		{"truncated", cfg, ann, handle[:len(handle)-4]},
		{"the prefix only", cfg, ann, taskHandlePrefix},
		{"another principal", cfg, bob, handle},
		{"another server", otherServer, ann, handle},
		{"another key", otherKey, ann, handle},
	} {
		for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
			t.Run(c.name+" "+method, func(t *testing.T) {
				_, r := post2026(t, c.cfg, c.who, call("7", method, `{"taskId":"`+c.taskID+`","inputResponses":{},`+taskMeta+`}`))
				if r.Reply == nil {
					t.Fatalf("forwarded: %s", r.Body)
				}
				if want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params: task not found"}}`; string(r.Reply.Body) != want {
					t.Errorf("got %s, want %s", r.Reply.Body, want)
				}
			})
		}
	}
	// Under 2026-07-28, a taskId the plugin never issued goes on as sent:
	// the server's answer for a task it does not know (or for a method it
	// does not implement) passes as it is, a task it does know is withheld
	// as unknown (tasks/get, tasks/cancel), and tasks/update's
	// inputResponses get the policy-level input pipeline.
	for _, c := range []struct{ name, method, params, response, want string }{
		{"unknown to the server", "tasks/get", `{"taskId":"t-9",` + taskMeta + `}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Failed to retrieve task: Task not found"}}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Failed to retrieve task: Task not found"}}`},
		{"a server without tasks", "tasks/get", `{"taskId":"t-9",` + taskMeta + `}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}`},
		{"known to the server", "tasks/get", `{"taskId":"t-1",` + taskMeta + `}`,
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","taskId":"t-1","status":"completed","result":{"content":[{"type":"text","text":"alice@example.com"}]}}}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params: task not found"}}`},
		{"cancelled, known to the server", "tasks/cancel", `{"taskId":"t-1",` + taskMeta + `}`,
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","taskId":"t-1","status":"cancelled","statusMessage":"for alice@example.com"}}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params: task not found"}}`},
		{"an update", "tasks/update", `{"taskId":"t-1","inputResponses":{"k":{"action":"accept","content":{"key":"` + awsKey + `"}}},` + taskMeta + `}`,
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete"}}`, `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete"}}`},
	} {
		t.Run("never issued: "+c.name, func(t *testing.T) {
			s, r := post2026(t, cfg, ann, call("7", c.method, c.params))
			if r.Reply != nil {
				t.Fatalf("answered locally: %s", r.Reply.Body)
			}
			if sent := string(r.Body); sent != "" && (strings.Contains(sent, awsKey) || !strings.Contains(sent, `"taskId":"t-`)) {
				t.Errorf("forwarded: %s", sent)
			}
			if got := finish(t, s, c.response); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
	// The 2025 revisions' experimental tasks: taskIds pass as before,
	// both ways (only a call's answer makes a task to seal).
	_, r := post2026(t, cfg, ann, call("8", "tasks/get", `{"taskId":"t-1"}`))
	if r.Reply != nil || r.Body != nil {
		t.Errorf("a 2025 tasks/get was changed: %+v", r)
	}
	task := `{"jsonrpc":"2.0","id":8,"result":{"resultType":"task","taskId":"t-1","status":"working","createdAt":"x","lastUpdatedAt":"y","ttl":null}}`
	if got := respond2026(t, cfg, ann, call("8", "tasks/get", `{"taskId":"t-1"}`), task); got != task {
		t.Errorf("a 2025 task was changed: %s", got)
	}
	// Without hold_headers, Mcp-Name (the handle) has left before the
	// body is read: the taskId cannot be restored in both, and the
	// request is refused saying so rather than sent to a server that
	// would refuse the mismatch.
	loose := mustConfig(t, strings.Replace(mrtrEnvelope, "hold_headers: true", "hold_headers: false", 1))
	_, r = post2026(t, loose, ann, call("9", "tasks/get", `{"taskId":"`+handle+`",`+taskMeta+`}`))
	if r.Reply == nil || !strings.Contains(string(r.Reply.Body), `"code":-32603`) || !strings.Contains(string(r.Reply.Body), "hold_headers") {
		t.Errorf("a task request without hold_headers: %+v", r)
	}
	// A handle for a tool the caller may no longer use: refused as the
	// tool would be.
	denied := mustConfig(t, strings.Replace(mrtrEnvelope, `deny_tools: ["secret_*"]`, `deny_tools: ["secret_*", "crm_*"]`, 1))
	_, r = post2026(t, denied, ann, call("9", "tasks/get", `{"taskId":"`+handle+`",`+taskMeta+`}`))
	if r.Reply == nil || !strings.Contains(string(r.Reply.Body), `"code":-32003`) {
		t.Errorf("handle of a denied tool: %+v", r)
	}
}

// finish runs the JSON response of a stream whose request was posted.
func finish(t *testing.T, s *Stream, response string) string {
	t.Helper()
	return finishStatus(t, s, 200, response)
}

// finishStatus is finish with the response's HTTP status.
func finishStatus(t *testing.T, s *Stream, status int, response string) string {
	t.Helper()
	s.OnResponseHeaders(status, "application/json", "", false)
	_, edit := s.OnResponseBody(len(response), true, func() []byte { return []byte(response) })
	if !edit.Replace {
		return response
	}
	return string(edit.Data)
}

func hasHeader(set [][2]string, name, value string) bool {
	for _, h := range set {
		if h[0] == name && h[1] == value {
			return true
		}
	}
	return false
}

// TestTaskHandleOfAnySize: every handle seal writes opens, whatever the
// length of the server's taskId or the primitive's name (a bound on the
// handle's length alone once refused a long taskId's handle).
func TestTaskHandleOfAnySize(t *testing.T) {
	ts := newTaskSealer([]byte("size key"))
	for _, n := range []int{0, 1, 100, 6143, 6144, 8192, 21503, 100000} {
		for _, ref := range []taskRef{
			{method: "tools/call", name: "crm_lookup", id: strings.Repeat("7", n)},
			{method: "tools/call", name: strings.Repeat("n", n), id: "t-1"},
		} {
			h := ts.seal(ref, "srv", "ann")
			if got, ok := newTaskSealer([]byte("size key")).open(h, "srv", "ann"); !ok || got != ref {
				t.Errorf("a handle of %d characters (id %d, name %d) does not open: %v", len(h), len(ref.id), len(ref.name), ok)
			}
		}
	}
}

// FuzzTaskHandle: whatever a client sends as a taskId, opening it never
// panics, and only the handle seal wrote for a task opens, to that task,
// for its principal and server alone.
func FuzzTaskHandle(f *testing.F) {
	ts := newTaskSealer([]byte("fuzz key"))
	valid := ts.seal(taskRef{method: "tools/call", name: "crm_lookup", id: "786512e2"}, "srv", "ann")
	for _, s := range []string{valid, valid[:len(valid)-1], taskHandlePrefix, taskHandlePrefix + "AAAA", "t-1", "", valid + "A", strings.ToUpper(valid)} {
		f.Add(s, "tools/call", "crm_lookup", "786512e2")
	}
	f.Add("", "tools/call", "crm_lookup", strings.Repeat("786512e2", 1000))
	f.Fuzz(func(t *testing.T, handle, method, name, id string) {
		if ref, ok := ts.open(handle, "srv", "ann"); ok {
			if ts.seal(ref, "srv", "ann") != handle {
				t.Fatalf("%q opens but is not the handle of %+v", handle, ref)
			}
		}
		ref := taskRef{method: method, name: name, id: id}
		h := ts.seal(ref, "srv", "ann")
		if got, ok := ts.open(h, "srv", "ann"); !ok || got != ref {
			t.Fatalf("%+v sealed to %q opens to %+v, %v", ref, h, got, ok)
		}
		// Another VM (no cache) opens it too, to the same task.
		if got, ok := newTaskSealer([]byte("fuzz key")).open(h, "srv", "ann"); !ok || got != ref {
			t.Fatalf("%+v sealed to %q opens elsewhere to %+v, %v", ref, h, got, ok)
		}
		if _, ok := ts.open(h, "srv", "bob"); ok {
			t.Fatal("opened for another principal")
		}
		if _, ok := ts.open(h, "other", "ann"); ok {
			t.Fatal("opened for another server")
		}
		if len(h) > len(taskHandlePrefix) && !strings.HasPrefix(h[len(taskHandlePrefix):], "-") {
			for _, c := range h[len(taskHandlePrefix):] {
				if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
					t.Fatalf("handle %q has %q", h, c)
				}
			}
		}
	})
}

// BenchmarkTaskHandle is the cost of a task handle: sealed when a task's
// taskId goes to the client (CreateTaskResult, each tasks/get result),
// opened for each tasks request; "new" for a handle the VM has not seen
// lately (a principal of its own per op), "known" for the one a client
// polls with.
func BenchmarkTaskHandle(b *testing.B) {
	ts := newTaskSealer([]byte("bench key"))
	ref := taskRef{method: "tools/call", name: "crm_lookup", id: "786512e2-9e0d-44bd-8f29-789f320fe840"}
	principals := make([]string, 1024)
	handles := make([]string, len(principals))
	for i := range principals {
		principals[i] = "user-" + strconv.Itoa(i)
		handles[i] = newTaskSealer([]byte("bench key")).seal(ref, "srv", principals[i])
	}
	h := ts.seal(ref, "srv", "alice")
	b.Run("seal new", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			ts.seal(ref, "srv", principals[i%len(principals)])
			i++
		}
	})
	b.Run("open new", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, ok := ts.open(handles[i%len(handles)], "srv", principals[i%len(principals)]); !ok {
				b.Fatal("does not open")
			}
			i++
		}
	})
	b.Run("seal known", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ts.seal(ref, "srv", "alice")
		}
	})
	b.Run("open known", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := ts.open(h, "srv", "alice"); !ok {
				b.Fatal("does not open")
			}
		}
	})
}

// FuzzTasksStream drives one stream, as FuzzStream does, with the
// requests and answers of 2026-07-28's multi round-trip requests and the
// tasks extension (handles that open among them): nothing panics, and a
// rewritten request or JSON response is valid JSON.
func FuzzTasksStream(f *testing.F) {
	cfg, errs := NewConfig([]byte(mrtrEnvelope), newMemShared())
	if len(errs) > 0 {
		f.Fatal(errs)
	}
	tr, err := cfg.transforms()
	if err != nil {
		f.Fatal(err)
	}
	handle := tr.tasks.seal(taskRef{method: "tools/call", name: "crm_lookup", id: "t-1"}, cfg.Env.Server.ID, "ann")
	task := `"taskId":"t-1","status":"completed","createdAt":"x","lastUpdatedAt":"y","ttlMs":1,"result":{"content":[{"type":"text","text":"a@example.com"}],` +
		`"inputRequests":{"k":{"method":"elicitation/create","params":{"message":"a@example.com"}}}}`
	for _, seed := range [][3]string{
		{call("1", "tools/call", `{"name":"crm_lookup"}`), inputRequired, "json"},
		{call("1", "tools/call", `{"name":"crm_lookup","inputResponses":{"k":{"action":"accept","content":{"e":"EMAIL_AAAAAAAAAAAA"}}},"requestState":"s"}`),
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"t-1","status":"working"}}`, "json"},
		{call("1", "tasks/get", `{"taskId":"`+handle+`",`+taskMeta+`}`), `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",` + task + `}}`, "json"},
		{call("1", "tasks/update", `{"taskId":"`+handle+`","inputResponses":{"k":{"action":"decline"}},`+taskMeta+`}`), `{"jsonrpc":"2.0","id":1,"result":{}}`, "json"},
		{call("1", "subscriptions/listen", `{"notifications":{"taskIds":["`+handle+`"]},`+taskMeta+`}`),
			"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{\"notifications\":{\"taskIds\":[\"t-1\"]}}}\n\n" +
				"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tasks\",\"params\":{" + task + "}}\n\n", "sse"},
	} {
		f.Add([]byte(seed[0]), []byte(seed[1]), seed[2] == "sse")
	}
	req := hdr("x-mcp-principal", "ann", "content-type", "application/json")
	f.Fuzz(func(t *testing.T, request, response []byte, sse bool) {
		fuzzOneStream(t, cfg, as2026(req, string(request)), request, response, sse)
	})
}

// TestTaskNotifications: a subscriptions/listen request naming tasks by
// handle reaches the server with their taskIds; on its stream the
// acknowledgement names them back as the client's handles, and each
// notifications/tasks is read as a tasks/get result of its task: its
// result gets the creating tool's pipeline (pseudonymise), its taskId is
// the client's handle. A notification for a task the client did not name
// by handle is withheld; a handle that does not open refuses the listen
// request.
func TestTaskNotifications(t *testing.T) {
	cfg := mustConfig(t, mrtrEnvelope)
	ann := hdr("x-mcp-principal", "ann")
	const taskID = "srv-task-9"
	handle, _ := createTask(t, cfg, ann, "crm_lookup", taskID)
	listen := func(h string) string {
		return call("4", "subscriptions/listen", `{"notifications":{"toolsListChanged":true,"taskIds":["`+h+`"]},`+taskMeta+`}`)
	}
	s, r := post2026(t, cfg, ann, listen(handle))
	if r.Reply != nil || !strings.Contains(string(r.Body), `"taskIds":["`+taskID+`"]`) {
		t.Fatalf("listen request: %+v %s", r.Reply, r.Body)
	}
	task := `"createdAt":"x","lastUpdatedAt":"y","ttlMs":1,"status":"completed","result":{"content":[{"type":"text","text":"alice@example.com"}]}`
	in := `data: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":4},"notifications":{"toolsListChanged":true,"taskIds":["` + taskID + `"]}}}` + "\n\n" +
		`data: {"jsonrpc":"2.0","method":"notifications/tasks","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":4},"taskId":"` + taskID + `",` + task + `}}` + "\n\n" +
		`data: {"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"other-task",` + task + `}}` + "\n\n"
	s.OnResponseHeaders(200, "text/event-stream", "", false)
	_, edit := s.OnResponseBody(len(in), false, func() []byte { return []byte(in) })
	events := eventData(string(edit.Data))
	if len(events) != 3 {
		t.Fatalf("events: %q", events)
	}
	if !strings.Contains(events[0], `"taskIds":["`+handle+`"]`) {
		t.Errorf("acknowledgement: %s", events[0])
	}
	if !strings.Contains(events[1], `"taskId":"`+handle+`"`) || !emailPseudonymRE.MatchString(events[1]) || strings.Contains(events[1], "alice@") {
		t.Errorf("the listened task's notification: %s", events[1])
	}
	if !strings.Contains(events[2], `"method":"notifications/message"`) || strings.Contains(events[2], "other-task") || strings.Contains(events[2], "alice@") {
		t.Errorf("a notification of a task the client did not name by handle: %s", events[2])
	}
	tampered := []byte(handle)
	tampered[len(tampered)-3] ^= 1
	if _, r := post2026(t, cfg, ann, listen(string(tampered))); r.Reply == nil || !strings.Contains(string(r.Reply.Body), `"code":-32602`) {
		t.Errorf("listen with a tampered handle: %+v", r)
	}
	// A taskId that is no handle goes on as sent (its notifications are
	// withheld, as above).
	if _, r := post2026(t, cfg, ann, listen("t-raw")); r.Reply != nil || r.Body != nil {
		t.Errorf("listen with a taskId that is no handle: %+v", r)
	}
}

// as2026 is who's headers plus those a 2026-07-28 client sends with body
// when its _meta names that revision: MCP-Protocol-Version, Mcp-Method,
// and Mcp-Name mirroring the member the method's table entry names.
func as2026(who fakeRequest, body string) fakeRequest {
	var msg struct {
		Method string
		Params map[string]any
	}
	if json.Unmarshal([]byte(body), &msg) != nil {
		return who
	}
	meta, _ := msg.Params["_meta"].(map[string]any)
	v, _ := meta["io.modelcontextprotocol/protocolVersion"].(string)
	if v != "2026-07-28" {
		return who
	}
	h := fakeRequest{headers: maps.Clone(who.headers), props: who.props, extra: who.extra}
	h.headers["mcp-protocol-version"], h.headers["mcp-method"] = v, msg.Method
	if m := methodOf(mcpvocab.Rev2026, msg.Method); m.NameMember != "" {
		if name, ok := msg.Params[m.NameMember].(string); ok {
			h.headers["mcp-name"] = name
		}
	}
	return h
}

// post2026 and respond2026 are post and respond with as2026's headers.
func post2026(t *testing.T, cfg *Config, who fakeRequest, body string) (*Stream, BodyResult) {
	t.Helper()
	return post(t, cfg, as2026(who, body), body)
}

func respond2026(t *testing.T, cfg *Config, who fakeRequest, request, response string) string {
	t.Helper()
	return respond(t, cfg, as2026(who, request), request, response)
}

// A key rotation leaves live tasks their handles: a handle sealed under
// the old key opens where the old key is a previous key
// (vault.previous_keys_env); new handles are sealed under the new key,
// which the old sealer cannot open; a sealer without the old key opens
// none of the old handles.
func TestTaskHandleKeyRotation(t *testing.T) {
	oldKey, newKey := []byte("old key"), []byte("new key")
	ref := taskRef{method: "tools/call", name: "export", id: "t-1"}
	before := newTaskSealer(oldKey).seal(ref, "srv", "ann")
	rotated := newTaskSealer(newKey, oldKey)
	if got, ok := rotated.open(before, "srv", "ann"); !ok || got != ref {
		t.Errorf("old handle after rotation: %+v %v", got, ok)
	}
	after := newTaskSealer(newKey, oldKey).seal(ref, "srv", "ann")
	if after == before {
		t.Fatal("the rotated sealer sealed under the old key")
	}
	if _, ok := newTaskSealer(oldKey).open(after, "srv", "ann"); ok {
		t.Error("a handle sealed under the new key opened with the old one alone")
	}
	if _, ok := newTaskSealer(newKey).open(before, "srv", "ann"); ok {
		t.Error("an old handle opened without the old key")
	}
	if _, ok := rotated.open(before, "srv", "bob"); ok {
		t.Error("an old handle opened for another principal")
	}
}
