package mcp

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

// Issue 12, leaks: what the filter passes on to the client, for each
// shape the review found raw, as application/json, as a POST's event
// stream, and (server messages) on a GET stream.

const leaksEnvelope = `
policy: {name: p, transforms: [redact]}
identity: {principal: [{header: x-mcp-principal}]}
`

const leaked = "alice@corp.example"

// postSSE answers request with one event holding response.
func postSSE(t *testing.T, cfg *Config, request, response string) string {
	t.Helper()
	return respondSSE(t, cfg, hdr("x-mcp-principal", "ann"), request, response)
}

// respondSSE is respond with the response as one server-sent event.
func respondSSE(t *testing.T, cfg *Config, req fakeRequest, request, response string) string {
	t.Helper()
	s, r := post(t, cfg, req, request)
	if r.Reply != nil {
		t.Fatalf("request answered locally: %s", r.Reply.Body)
	}
	s.OnResponseHeaders(200, "text/event-stream", "", false)
	in := "event: message\ndata: " + response + "\n\n"
	_, edit := s.OnResponseBody(len(in), true, func() []byte { return []byte(in) })
	if !edit.Replace {
		return in
	}
	return string(edit.Data)
}

// getStream sends events on a GET stream (no request to match).
func getStream(t *testing.T, cfg *Config, response string) string {
	t.Helper()
	s := NewStream(cfg)
	if r := s.OnRequestHeaders(hdr("x-mcp-principal", "ann"), "GET", "/mcp", true); r.Reply != nil {
		t.Fatalf("GET answered: %+v", r.Reply)
	}
	s.OnResponseHeaders(200, "text/event-stream", "", false)
	in := "data: " + response + "\n\n"
	_, edit := s.OnResponseBody(len(in), false, func() []byte { return []byte(in) })
	if !edit.Replace {
		return in
	}
	return string(edit.Data)
}

// eventData is the data of the events of an event stream, joined.
func eventData(stream string) []string {
	var out []string
	for _, line := range strings.Split(stream, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

func TestLeakShapes(t *testing.T) {
	cfg := mustConfig(t, leaksEnvelope)
	cases := []struct {
		name, request, response string
		keep                    []string // structural values that must come out as sent
	}{
		{"initialize instructions and serverInfo",
			call("1", "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`),
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"srv","title":"for alice@corp.example","version":"1"},"instructions":"Ask alice@corp.example"}}`,
			[]string{`"protocolVersion":"2025-06-18"`}},
		{"tools/list descriptions, titles, annotations, schema text, _meta",
			call("2", "tools/list", `{}`),
			`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"search","title":"alice@corp.example","description":"mail alice@corp.example","annotations":{"title":"alice@corp.example"},"inputSchema":{"type":"object","properties":{"to":{"type":"string","description":"e.g. alice@corp.example","default":"alice@corp.example"}},"required":["to"]},"_meta":{"owner":"alice@corp.example"}}],"nextCursor":"c-1"}}`,
			[]string{`"name":"search"`, `"nextCursor":"c-1"`, `"required":["to"]`}},
		{"resources/list names and descriptions, uri kept",
			call("3", "resources/list", `{}`),
			`{"jsonrpc":"2.0","id":3,"result":{"resources":[{"uri":"file:///r","name":"alice@corp.example","description":"alice@corp.example","mimeType":"text/plain"}]}}`,
			[]string{`"uri":"file:///r"`, `"mimeType":"text/plain"`}},
		{"prompts/list and argument descriptions",
			call("4", "prompts/list", `{}`),
			`{"jsonrpc":"2.0","id":4,"result":{"prompts":[{"name":"greet","description":"alice@corp.example","arguments":[{"name":"who","description":"alice@corp.example"}]}]}}`,
			[]string{`"name":"greet"`, `"name":"who"`}},
		{"prompts/get description",
			call("5", "prompts/get", `{"name":"greet"}`),
			`{"jsonrpc":"2.0","id":5,"result":{"description":"for alice@corp.example","messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}}`,
			[]string{`"role":"user"`}},
		{"tools/call _meta, unknown member, legacy toolResult, resource_link, annotations",
			call("6", "tools/call", `{"name":"search"}`),
			`{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"resource_link","uri":"file:///x","name":"alice@corp.example","title":"alice@corp.example","description":"alice@corp.example"},{"type":"text","text":"ok","annotations":{"lastModified":"alice@corp.example"}}],"_meta":{"by":"alice@corp.example"},"extra":"alice@corp.example","toolResult":{"who":"alice@corp.example"}}}`,
			[]string{`"uri":"file:///x"`, `"type":"resource_link"`}},
		{"envelope members of a result",
			call("7", "tools/call", `{"name":"search"}`),
			`{"jsonrpc":"2.0","id":7,"result":{"content":[]},"debug":{"who":"alice@corp.example"}}`,
			[]string{`"id":7`}},
		{"ping result with extra members",
			call("8", "ping", `{}`),
			`{"jsonrpc":"2.0","id":8,"result":{"note":"alice@corp.example"},"x":"alice@corp.example"}`,
			nil},
		{"error members beyond message and data",
			call("9", "tools/call", `{"name":"search"}`),
			`{"jsonrpc":"2.0","id":9,"error":{"code":-32000,"message":"failed","hint":"alice@corp.example"},"trace":"alice@corp.example"}`,
			[]string{`"code":-32000`}},
		{"a notification before the answer: image data, deep _meta, {uri, blob}, top-level id",
			call("10", "tools/call", `{"name":"search"}`),
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","id":"alice@corp.example","data":{"img":{"type":"image","data":"alice@corp.example"},"r":{"uri":"u","blob":"alice@corp.example"},"x":{"_meta":{"k":"alice@corp.example"}}}}}`,
			[]string{`"level":"info"`}},
		{"a notification with a progress token elsewhere than the schema puts it",
			call("11", "tools/call", `{"name":"search"}`),
			`{"jsonrpc":"2.0","method":"notifications/custom","params":{"progressToken":"alice@corp.example"}}`,
			[]string{`"method":"notifications/custom"`}},
		{"a progress notification keeps its token",
			call("12", "tools/call", `{"name":"search","_meta":{"progressToken":"alice@corp.example"}}`),
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":1,"message":"alice@corp.example","_meta":{"x":"alice@corp.example"}}}`,
			[]string{`"progressToken":"tok"`}},
	}
	check := func(t *testing.T, how, got string, keep []string) {
		t.Helper()
		if strings.Contains(got, leaked) {
			t.Errorf("%s: raw data reaches the client: %s", how, got)
		}
		for _, k := range keep {
			if !strings.Contains(got, k) {
				t.Errorf("%s: structural %s changed: %s", how, k, got)
			}
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			isResponse := !strings.Contains(c.response, `"method"`)
			if isResponse {
				got := respond(t, cfg, hdr("x-mcp-principal", "ann"), c.request, c.response)
				check(t, "json", got, c.keep)
				if _, err := jsondoc.Parse([]byte(got)); err != nil {
					t.Errorf("json: not JSON: %v", err)
				}
			}
			got := postSSE(t, cfg, c.request, c.response)
			check(t, "post event stream", got, c.keep)
			if len(eventData(got)) != 1 {
				t.Errorf("post event stream: %q", got)
			}
			got = getStream(t, cfg, c.response)
			check(t, "get stream", got, c.keep)
		})
	}
}

// Server messages that are not JSON-RPC fail closed (manual 16): a -32603
// error for the request when the message carries its id, else the message
// is withheld; with gateway.on_parse_error: pass they go through.
// Regression (issue 12): they passed unchanged.
func TestMalformedServerMessages(t *testing.T) {
	cfg := mustConfig(t, leaksEnvelope)
	pass := mustConfig(t, leaksEnvelope+"gateway: {on_parse_error: pass}\n")
	req := call("1", "tools/call", `{"name":"search"}`)
	cases := []struct {
		name, response string
		answered       bool // the message becomes a -32603 error for the request (else it is withheld)
	}{
		{"a result without an id", `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"alice@corp.example"}]}}`, false},
		{"an error without an id", `{"jsonrpc":"2.0","error":{"code":1,"message":"alice@corp.example"}}`, false},
		{"a result that is a string", `{"jsonrpc":"2.0","id":1,"result":"alice@corp.example"}`, true},
		{"a result that is an array", `{"jsonrpc":"2.0","id":1,"result":["alice@corp.example"]}`, true},
		{"an error that is a string", `{"jsonrpc":"2.0","id":1,"error":"alice@corp.example"}`, true},
		{"an error without an integer code", `{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"alice@corp.example"}}`, true},
		{"an error with a fractional code", `{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"alice@corp.example"}}`, true},
		{"an error without a string message", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":{"m":"alice@corp.example"}}}`, true},
		{"jsonrpc missing", `{"id":1,"result":{"content":[{"type":"text","text":"alice@corp.example"}]}}`, true},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"result":{"content":[{"type":"text","text":"alice@corp.example"}]}}`, true},
		{"an id that is an object", `{"jsonrpc":"2.0","id":{"x":1},"result":{"note":"alice@corp.example"}}`, false},
		{"JSON that is not JSON-RPC", `{"note":"alice@corp.example"}`, false},
		{"a method that is not a string", `{"jsonrpc":"2.0","method":1,"params":{"m":"alice@corp.example"}}`, false},
		{"params that are a string", `{"jsonrpc":"2.0","method":"notifications/message","params":"alice@corp.example"}`, false},
		{"a bare string in a batch", `["alice@corp.example"]`, false},
		{"a bare number and an object in a batch", `[7,{"jsonrpc":"2.0","id":1,"result":"alice@corp.example"}]`, true},
		{"a bare string", `"alice@corp.example"`, false},
		{"an empty batch", `[]`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, how := range []string{"json", "event stream"} {
				var got string
				if how == "json" {
					got = respond(t, cfg, hdr("x-mcp-principal", "ann"), req, c.response)
				} else {
					got = strings.Join(eventData(postSSE(t, cfg, req, c.response)), "\n")
				}
				if strings.Contains(got, leaked) {
					t.Errorf("%s: raw data reaches the client: %s", how, got)
				}
				// The open request is always answered: a JSON answer is
				// complete; an event stream answers what it can attribute
				// at once, and what is still open when it ends after a
				// withheld event then (issue 27: before, it stayed open).
				if !strings.Contains(got, `"id":1,"error":{"code":-32603`) {
					t.Errorf("%s: the request is not answered: %s", how, got)
				}
				if atEnd := strings.Contains(got, "withheld a server event"); how == "event stream" && atEnd == c.answered {
					t.Errorf("%s: want answered by the message itself %v, got %s", how, c.answered, got)
				}
				if how == "json" {
					if _, err := jsondoc.Parse([]byte(got)); err != nil {
						t.Errorf("json: not JSON: %v: %s", err, got)
					}
				}
			}
			// on_parse_error: pass delivers it (what the filter can still
			// read transformed, the rest as sent).
			if got := respond(t, pass, hdr("x-mcp-principal", "ann"), req, c.response); strings.Contains(got, "-32603") || len(got) < len(c.response)/2 {
				t.Errorf("on_parse_error pass: got %s, want it delivered", got)
			}
		})
	}
}

// A server request that is not JSON-RPC (a params string) cannot be
// answered by the filter: it reaches the client as a request no client
// implements, which the client refuses.
func TestMalformedServerRequestWithheld(t *testing.T) {
	cfg := mustConfig(t, leaksEnvelope)
	got := getStream(t, cfg, `{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":"alice@corp.example"}`)
	if strings.Contains(got, leaked) || !strings.Contains(got, `"id":"s1","method":"mcp-privacy/withheld"`) {
		t.Errorf("client gets %s", got)
	}
}

// A JSON body where no request waits for one (a POST of notifications, a
// GET) is read by clients all the same: it gets the same treatment.
// Regression (issue 12): it was not inspected at all.
func TestJSONBodyWithoutRequest(t *testing.T) {
	cfg := mustConfig(t, leaksEnvelope)
	for _, c := range []struct{ name, method, body, response string }{
		{"POST of a notification", "POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"alice@corp.example"}}`},
		{"POST of a notification, not JSON-RPC", "POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"note":"alice@corp.example"}`},
		{"GET", "GET", "",
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"alice@corp.example"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewStream(cfg)
			req := hdr("x-mcp-principal", "ann")
			if c.method == "POST" {
				s, _ = post(t, cfg, req, c.body)
			} else {
				s.OnRequestHeaders(req, "GET", "/mcp", true)
			}
			s.OnResponseHeaders(200, "application/json", "", false)
			out := c.response
			if _, edit := s.OnResponseBody(len(c.response), true, func() []byte { return []byte(c.response) }); edit.Replace {
				out = string(edit.Data)
			}
			if strings.Contains(out, leaked) {
				t.Errorf("client gets %s", out)
			}
		})
	}
}

// schemaMessages are the messages of every MCP method that the transforms
// package's generated test uses, with their markers (see
// transforms/structural_test.go: "§v" structural, "§§v" binary, "=v" data
// as written, anything else data to replace with an email).
func schemaMessages(t *testing.T) []struct {
	Answers string          `json:"answers"`
	Message json.RawMessage `json:"message"`
} {
	raw, err := os.ReadFile("../../transforms/testdata/mcp_messages.json")
	if err != nil {
		t.Fatal(err)
	}
	var list []struct {
		Answers string          `json:"answers"`
		Message json.RawMessage `json:"message"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	return list
}

// plantMarked replaces the markers: structural values are recorded by
// path (keys joined by NUL), data positions get the email.
func plantMarked(v any, path string, keep map[string]string, data map[string]bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			x[k] = plantMarked(c, path+"\x00"+k, keep, data)
		}
	case []any:
		for i, c := range x {
			x[i] = plantMarked(c, path+"\x00"+strconv.Itoa(i), keep, data)
		}
	case string:
		switch {
		case strings.HasPrefix(x, "§§"):
			keep[path] = x[len("§§"):]
			return keep[path]
		case strings.HasPrefix(x, "§"):
			keep[path] = x[len("§"):]
			return keep[path]
		case strings.HasPrefix(x, "="):
			return x[1:]
		}
		data[path] = true
		if strings.Contains(x, "alice@example.com") {
			return x
		}
		return "see alice@example.com"
	}
	return v
}

func lookupPath(v any, path string) (any, bool) {
	for _, seg := range strings.Split(path, "\x00")[1:] {
		switch x := v.(type) {
		case map[string]any:
			c, ok := x[seg]
			if !ok {
				return nil, false
			}
			v = c
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// requestFor is a request of method with id that the policy lets through.
func requestFor(method, id string) string {
	params := `{}`
	switch method {
	case "tools/call":
		params = `{"name":"search"}`
	case "prompts/get":
		params = `{"name":"greet"}`
	case "resources/read":
		params = `{"uri":"file:///a"}`
	case "completion/complete":
		params = `{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"a","value":"b"}}`
	}
	return call(id, method, params)
}

// TestEverySchemaMessageThroughTheFilter: the messages of every method of
// the MCP schema, an email in every data position, through the whole
// filter as the server's answer (JSON), as server requests and
// notifications (a GET stream), or as a client's answer to a server
// request (a POST, input pipeline): no email comes out but where the
// schema puts a structural value, and those come out as they went in.
// Regression (issue 12): most of them came out raw.
func TestEverySchemaMessageThroughTheFilter(t *testing.T) {
	cfg := mustConfig(t, `
policy: {name: p, transforms: [redact], input_transforms: [redact]}
identity: {principal: [{header: x-mcp-principal}]}
gateway: {virtual_tools: false}
`)
	ann := hdr("x-mcp-principal", "ann")
	for i, sm := range schemaMessages(t) {
		var v any
		if err := json.Unmarshal(sm.Message, &v); err != nil {
			t.Fatal(err)
		}
		keep, data := map[string]string{}, map[string]bool{}
		v = plantMarked(v, "", keep, data)
		msg, _ := json.Marshal(v)
		t.Run(strconv.Itoa(i)+" "+sm.Answers, func(t *testing.T) {
			var got string
			switch sm.Answers {
			case "":
				events := eventData(getStream(t, cfg, string(msg)))
				if len(events) != 1 {
					t.Fatalf("events %q", events)
				}
				got = events[0]
			case "client":
				_, r := post(t, cfg, ann, string(msg))
				if r.Reply != nil {
					t.Fatalf("answered locally: %s", r.Reply.Body)
				}
				got = string(msg)
				if r.Body != nil {
					got = string(r.Body)
				}
			default:
				id, _ := json.Marshal(v.(map[string]any)["id"])
				got = respond(t, cfg, ann, requestFor(sm.Answers, string(id)), string(msg))
			}
			checkPlanted(t, got, data, keep, nil)
		})
	}
}

// checkPlanted checks what came out of the filter (got) against what
// plantMarked planted: every data path is still there and holds no email
// raw, and every structural value is as it went in, but at the paths
// rewritten claims (it checks the rewrite itself).
func checkPlanted(t *testing.T, got string, data map[string]bool, keep map[string]string, rewritten func(t *testing.T, path string, g any) bool) {
	t.Helper()
	var out any
	if err := json.Unmarshal([]byte(got), &out); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, got)
	}
	for path := range data {
		g, ok := lookupPath(out, path)
		if !ok {
			t.Errorf("%q: gone from %s", path, got)
			continue
		}
		if s, _ := g.(string); strings.Contains(s, "alice@example.com") {
			t.Errorf("%q: data came out raw: %q", path, s)
		}
	}
	for path, want := range keep {
		g, ok := lookupPath(out, path)
		if rewritten != nil && rewritten(t, path, g) {
			continue
		}
		if !ok || g != want {
			t.Errorf("%q: structural value changed: got %v, want %q", path, g, want)
		}
	}
}
