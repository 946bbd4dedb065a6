package e2e_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// The tasks extension (io.modelcontextprotocol/tasks) on a fleet of two
// Envoys sharing a vault key and nothing else: a task created through one
// is polled through the other. The go-sdk v1.8.0 has no tasks extension,
// so the server is a handcrafted one speaking the extension's wire format.

// taskServer answers tools/call with a CreateTaskResult for srvTaskID,
// tasks/get with the completed task, and refuses, as a 2026-07-28 server
// must, a request whose Mcp-Name differs from its params.taskId.
type taskServer struct {
	mu     sync.Mutex
	bodies []string
}

const srvTaskID = "786512e2-9e0d-44bd-8f29-789f320fe840"

func (ts *taskServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	ts.mu.Lock()
	ts.bodies = append(ts.bodies, r.Header.Get("Mcp-Name")+" "+string(b))
	ts.mu.Unlock()
	var msg struct {
		ID     json.RawMessage
		Method string
		Params struct{ TaskID string }
	}
	_ = json.Unmarshal(b, &msg)
	w.Header().Set("Content-Type", "application/json")
	reply := func(status int, body string) {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,`+body+`}`)
	}
	task := `"taskId":"` + srvTaskID + `","createdAt":"2026-12-02T10:00:00Z","lastUpdatedAt":"2026-12-02T10:00:01Z","ttlMs":60000,"pollIntervalMs":10`
	switch {
	case msg.Method == "tools/call":
		reply(200, `"result":{"resultType":"task",`+task+`,"status":"working","statusMessage":"looking up alice@example.com"}`)
	case strings.HasPrefix(msg.Method, "tasks/") && r.Header.Get("Mcp-Name") != msg.Params.TaskID:
		reply(400, `"error":{"code":-32020,"message":"Mcp-Name does not match the body"}`)
	case msg.Params.TaskID != srvTaskID:
		reply(200, `"error":{"code":-32602,"message":"Failed to retrieve task: Task not found"}`)
	case msg.Method == "tasks/get":
		reply(200, `"result":{"resultType":"complete",`+task+`,"status":"completed",`+
			`"result":{"content":[{"type":"text","text":"alice@example.com, owner of the account"}],"isError":false}}`)
	default:
		reply(200, `"result":{"resultType":"complete"}`)
	}
}

func (ts *taskServer) count() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return len(ts.bodies)
}

func (ts *taskServer) received(s string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, b := range ts.bodies {
		if strings.Contains(b, s) {
			return true
		}
	}
	return false
}

// post2026 sends a 2026-07-28 request (with the headers that mirror its
// body) as principal and returns the answer.
func post2026(t *testing.T, url, principal, method, name, params string) string {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`
	req, _ := http.NewRequest("POST", url+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	req.Header.Set("x-mcp-principal", principal)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return string(out)
}

// TestTaskPolledThroughAnotherEnvoy: the client gets a sealed handle from
// Envoy A; Envoy B, which shares only the vault key, opens it, names the
// server's task in the body and in Mcp-Name (the server checks both), and
// gives the task's result the output pipeline of the tool that created it
// (crm_*: pseudonymise, where the policy's is redact). Another principal's
// poll with the same handle never reaches the server.
func TestTaskPolledThroughAnotherEnvoy(t *testing.T) {
	srv := &taskServer{}
	up := httptest.NewServer(srv)
	t.Cleanup(up.Close)
	config := `{
  "policy": {"name": "tasks", "transforms": ["redact"], "vault": {"key": "fleet key, not secret"},
             "rules": [{"name": "crm", "match": {"names": ["crm_*"]}, "transforms": ["pseudonymise"], "transforms_mode": "replace"}]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]},
  "gateway": {"hold_headers": true, "virtual_tools": false}
}`
	a, b := startPlugin(t, up.URL, config), startPlugin(t, up.URL, config)
	pseudonym := regexp.MustCompile(`EMAIL_[A-Z2-7]{12,}`)

	created := post2026(t, a.URL, "ann", "tools/call", "crm_lookup", `"name":"crm_lookup","arguments":{}`)
	var c struct {
		Result struct{ TaskID, StatusMessage string }
	}
	if err := json.Unmarshal([]byte(created), &c); err != nil || !strings.HasPrefix(c.Result.TaskID, "mcpp-task-") {
		t.Fatalf("CreateTaskResult: %s\n%s", created, a.logs)
	}
	if strings.Contains(created, srvTaskID) || !pseudonym.MatchString(c.Result.StatusMessage) {
		t.Errorf("CreateTaskResult: %s", created)
	}
	handle := c.Result.TaskID

	got := post2026(t, b.URL, "ann", "tasks/get", handle, `"taskId":"`+handle+`"`)
	if !srv.received(srvTaskID + ` {"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"` + srvTaskID + `"`) {
		t.Fatalf("the server did not get its taskId in Mcp-Name and the body: %s\n%s", got, b.logs)
	}
	var g struct {
		Result struct {
			TaskID, Status string
			Result         struct{ Content []struct{ Text string } }
		}
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil || g.Result.Status != "completed" || len(g.Result.Result.Content) != 1 {
		t.Fatalf("tasks/get: %s", got)
	}
	if text := g.Result.Result.Content[0].Text; strings.Contains(text, "alice@") || strings.Contains(text, "REDACTED") || !pseudonym.MatchString(text) {
		t.Errorf("the task's result did not get its tool's pipeline: %q", text)
	}
	if g.Result.TaskID != handle {
		t.Errorf("tasks/get taskId %q, want the client's handle", g.Result.TaskID)
	}

	n := srv.count()
	refused := post2026(t, b.URL, "bob", "tasks/get", handle, `"taskId":"`+handle+`"`)
	if !strings.Contains(refused, `"code":-32602`) || srv.count() != n {
		t.Errorf("another principal's poll: %s (server requests %d, were %d)", refused, srv.count(), n)
	}
}
