package e2e_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// envelope is the demo policy as the plugin takes it (JSON). support may
// search and read customers, admin may do anything, others only echo and
// the readme.
func envelope(hideDenied, holdHeaders bool) string {
	return fmt.Sprintf(`{
  "policy": {
    "name": "e2e",
    "extends": "standard",
    "hide_denied": %v,
    "allow_tools": ["echo"],
    "allow_resources": ["docs://*"],
    "allow_prompts": [],
    "roles": {
      "support": {"allow_tools": ["search_customers", "get_customer"], "allow_resources": ["customers://{id}/profile"],
                  "allow_prompts": ["summarize_customer"], "deny_tools": ["delete_customer"]},
      "admin": {"allow_tools": ["*"], "allow_resources": ["*"], "allow_prompts": ["*"],
                "allow_capabilities": ["write_state"], "max_sensitivity": "restricted"}
    },
    "rules": [{"name": "no-mallory", "match": {"principals": ["mallory*"]}, "deny_tools": ["echo"]}]
  },
  "server": {"primitives": [
    {"match": {"kinds": ["tool"], "names": ["delete_customer"]}, "capabilities": ["write_state"], "sensitivity": "restricted"},
    {"match": {"kinds": ["resource_template"], "names": ["customers://{id}/profile"]}, "category": "customers"}
  ]},
  "identity": {"principal": [{"header": "x-mcp-principal"}], "roles": [{"header": "x-mcp-roles"}]},
  "gateway": {"hold_headers": %v}
}`, hideDenied, holdHeaders)
}

// rpcError extracts the JSON-RPC error a go-sdk call returned.
func rpcError(t *testing.T, err error) *jsonrpc.Error {
	t.Helper()
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) {
		t.Fatalf("error %v (%T) is not a JSON-RPC error", err, err)
	}
	return wire
}

// Every combination the product runs in: upstreams answering with event
// streams (like the reference servers) or JSON, and Envoy holding headers
// or not.
var modes = []struct {
	name               string
	jsonResponse, hold bool
}{
	{"sse", false, false},
	{"sse-hold", false, true},
	{"json", true, false},
	{"json-hold", true, true},
}

func TestDecisionsThroughThePlugin(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			up := startUpstream(t, mode.jsonResponse)
			p := startPlugin(t, up.URL, envelope(true, mode.hold))
			ctx := ctxT(t)

			support := connect(t, p.URL, "ann", "support")
			admin := connect(t, p.URL, "root", "admin")
			anon := connect(t, p.URL, "", "")
			mallory := connect(t, p.URL, "mallory@example.com", "")
			direct := connect(t, up.URL, "", "")

			// Allowed calls are answered exactly as the server answers them
			// when there is nothing to transform...
			echo := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "nothing personal here"}}
			viaPlugin, err := support.CallTool(ctx, echo)
			if err != nil {
				t.Fatalf("allowed call: %v", err)
			}
			viaDirect, err := direct.CallTool(ctx, echo)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(viaPlugin, viaDirect) {
				t.Errorf("allowed call answered differently through the plugin:\n%+v\n%+v", viaPlugin, viaDirect)
			}
			// ... and with the standard profile's transforms otherwise: the
			// record's personal data arrives as pseudonyms.
			found, err := support.CallTool(ctx, &mcp.CallToolParams{Name: "search_customers", Arguments: map[string]any{"query": "alice"}})
			if err != nil {
				t.Fatalf("allowed call: %v", err)
			}
			raw, _ := json.Marshal(found)
			if strings.Contains(string(raw), "alice.martin@example.com") || !strings.Contains(string(raw), "EMAIL_") {
				t.Errorf("search result not pseudonymised: %s", raw)
			}
			// The name, by its key beside the e-mail (manual 12.9.5).
			if strings.Contains(string(raw), "Alice") || strings.Contains(string(raw), "Martin") || !strings.Contains(string(raw), "PERSON_") {
				t.Errorf("the customer's name not pseudonymised: %s", raw)
			}

			// Hidden denials get the server's own answer for a name it does
			// not have (the go-sdk's wording), e2e/hidden_test.go.
			denied := []struct {
				who     *mcp.ClientSession
				call    func(*mcp.ClientSession) error
				code    int64
				message string
				marker  string // in the request body; must never reach the server
			}{
				{support, func(s *mcp.ClientSession) error {
					_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "delete_customer", Arguments: map[string]any{"id": "marker-support-delete"}})
					return err
				}, -32602, `unknown tool "delete_customer"`, "marker-support-delete"},
				{anon, func(s *mcp.ClientSession) error {
					_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "search_customers", Arguments: map[string]any{"query": "marker-anon-search"}})
					return err
				}, -32602, `unknown tool "search_customers"`, "marker-anon-search"},
				{anon, func(s *mcp.ClientSession) error {
					_, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "customers://c-1/profile"})
					return err
				}, -32602, "Resource not found", "customers://c-1/profile"},
				{anon, func(s *mcp.ClientSession) error {
					_, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize_customer", Arguments: map[string]string{"id": "marker-anon-prompt"}})
					return err
				}, -32602, `unknown prompt "summarize_customer"`, "marker-anon-prompt"},
				{mallory, func(s *mcp.ClientSession) error {
					_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "marker-mallory-echo"}})
					return err
				}, -32602, `unknown tool "echo"`, "marker-mallory-echo"},
			}
			for i, d := range denied {
				err := d.call(d.who)
				if err == nil {
					t.Errorf("denied call %d went through", i)
					continue
				}
				wire := rpcError(t, err)
				if wire.Code != d.code || wire.Message != d.message {
					t.Errorf("denied call %d: got %d %q, want %d %q", i, wire.Code, wire.Message, d.code, d.message)
				}
				if up.received(d.marker) {
					t.Errorf("denied call %d reached the server", i)
				}
			}

			// Grants work per role and principal.
			if res, err := admin.CallTool(ctx, &mcp.CallToolParams{Name: "delete_customer", Arguments: map[string]any{"id": "c-2"}}); err != nil || res.IsError {
				t.Errorf("admin delete: %v %+v", err, res)
			}
			if _, err := support.ReadResource(ctx, &mcp.ReadResourceParams{URI: "customers://c-1/profile"}); err != nil {
				t.Errorf("support reads a profile through the template: %v", err)
			}
			if _, err := anon.ReadResource(ctx, &mcp.ReadResourceParams{URI: "docs://readme"}); err != nil {
				t.Errorf("anonymous reads the readme: %v", err)
			}
			if _, err := support.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize_customer", Arguments: map[string]string{"id": "c-1"}}); err != nil {
				t.Errorf("support gets the prompt: %v", err)
			}

			// Lists show each caller only what it may use, in both response
			// modes (the reference servers answer with event streams).
			listTools := func(s *mcp.ClientSession) []string {
				res, err := s.ListTools(ctx, nil)
				if err != nil {
					t.Fatalf("tools/list: %v", err)
				}
				var names []string
				for _, tool := range res.Tools {
					names = append(names, tool.Name)
				}
				sort.Strings(names)
				return names
			}
			for _, c := range []struct {
				who  *mcp.ClientSession
				want []string
			}{
				{support, []string{"echo", "get_customer", "search_customers"}},
				{anon, []string{"echo"}},
				{mallory, nil},
				{admin, []string{"delete_customer", "echo", "get_customer", "preview_transform", "privacy_status", "search_customers"}},
			} {
				if got := listTools(c.who); !reflect.DeepEqual(got, c.want) {
					t.Errorf("tools listed %v, want %v", got, c.want)
				}
			}
			if res, err := anon.ListResourceTemplates(ctx, nil); err != nil || len(res.ResourceTemplates) != 0 {
				t.Errorf("anonymous sees templates: %v %+v", err, res)
			}
			if res, err := support.ListResourceTemplates(ctx, nil); err != nil || len(res.ResourceTemplates) != 1 {
				t.Errorf("support's templates: %v %+v", err, res)
			}
			if res, err := anon.ListPrompts(ctx, nil); err != nil || len(res.Prompts) != 0 {
				t.Errorf("anonymous sees prompts: %v %+v", err, res)
			}
			if res, err := anon.ListResources(ctx, nil); err != nil || len(res.Resources) != 1 || res.Resources[0].URI != "docs://readme" {
				t.Errorf("anonymous resources: %v %+v", err, res)
			}

			// The sessions survive denials: the same session keeps working.
			for _, s := range []*mcp.ClientSession{support, anon} {
				if res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "still here"}}); err != nil ||
					res.Content[0].(*mcp.TextContent).Text != "still here" {
					t.Errorf("session after a denial: %v", err)
				}
				if err := s.Ping(ctx, nil); err != nil {
					t.Errorf("ping: %v", err)
				}
			}
		})
	}
}

// Without hide_denied, a denied call says so, with the policy's reasons.
//
// The exact error is checked on the wire: go-sdk v1.8 clients reserve the
// code -32003 (manual 15's "access denied") for their own "client is closing"
// and report it as mcp.ErrConnectionClosed, keeping only the message. The
// session itself stays usable, which the second half checks.
func TestVisibleDenials(t *testing.T) {
	up := startUpstream(t, false)
	p := startPlugin(t, up.URL, envelope(false, true))
	session := rawInitialize(t, p.URL, "ann", "support")
	status, body := rawPost(t, p.URL, session, "ann", "support",
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"delete_customer","arguments":{"id":"c-1"}}}`)
	want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32003,"message":"Access denied","data":{"policy":"e2e","rule":"role:support",` +
		`"reason":"tool \"delete_customer\" is denied by rule \"role:support\" (deny_tools)","kind":"tool","name":"delete_customer"}}}`
	if status != 200 || body != want {
		t.Fatalf("got %d %s\nwant 200 %s", status, body, want)
	}

	ctx := ctxT(t)
	support := connect(t, p.URL, "ann", "support")
	_, err := support.CallTool(ctx, &mcp.CallToolParams{Name: "delete_customer", Arguments: map[string]any{"id": "c-1"}})
	if err == nil || !strings.Contains(err.Error(), "Access denied") {
		t.Fatalf("go-sdk client got %v, want an error saying Access denied", err)
	}
	if res, err := support.CallTool(ctx, &mcp.CallToolParams{Name: "get_customer", Arguments: map[string]any{"id": "c-1"}}); err != nil || res.IsError {
		t.Errorf("session after a visible denial: %v", err)
	}
}

// Raw HTTP: batches are judged element by element, and the answers for
// denied elements join the server's.
func TestBatchThroughThePlugin(t *testing.T) {
	up := startUpstream(t, true)
	p := startPlugin(t, up.URL, envelope(true, true))
	session := rawInitialize(t, p.URL, "ann", "support")
	batch := `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}},` +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_customer","arguments":{"id":"marker-batch"}}}]`
	status, body := rawPost(t, p.URL, session, "ann", "support", batch)
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	var answers []struct {
		ID     int
		Result json.RawMessage
		Error  *struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal([]byte(body), &answers); err != nil {
		t.Fatalf("batch answer %s: %v", body, err)
	}
	byID := map[int]bool{}
	for _, a := range answers {
		switch a.ID {
		case 1:
			byID[1] = a.Error == nil && len(a.Result) > 0
		case 2:
			byID[2] = a.Error != nil && a.Error.Code == -32602 && a.Error.Message == `unknown tool "delete_customer"`
		}
	}
	if len(answers) != 2 || !byID[1] || !byID[2] {
		t.Errorf("batch answers %s", body)
	}
	if up.received("marker-batch") {
		t.Error("the denied element reached the server")
	}
}

// rawInitialize opens a session with plain HTTP and returns its id.
func rawInitialize(t *testing.T, url, principal, roles string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	setRawHeaders(req, "", principal, roles)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	session := res.Header.Get("Mcp-Session-Id")
	if res.StatusCode != 200 || session == "" {
		t.Fatalf("initialize: %d, session %q", res.StatusCode, session)
	}
	status, body := rawPost(t, url, session, principal, roles, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if status != 202 {
		t.Fatalf("initialized notification: %d %s", status, body)
	}
	return session
}

func setRawHeaders(req *http.Request, session, principal, roles string) {
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-03-26")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if principal != "" {
		req.Header.Set("x-mcp-principal", principal)
	}
	if roles != "" {
		req.Header.Set("x-mcp-roles", roles)
	}
}

func rawPost(t *testing.T, url, session, principal, roles, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/mcp", strings.NewReader(body))
	setRawHeaders(req, session, principal, roles)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}
