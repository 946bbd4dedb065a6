package mcp

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// Regression (issue 27, item 6): the audit entry of a -32020 refusal had
// an empty method and name; it carries what the body said.
func TestHeaderMismatchAuditNamesTheBody(t *testing.T) {
	for _, c := range []struct {
		name, body, method, kind, primitive string
		headers                             []string
	}{
		{"tools/call", call("1", "tools/call", `{"name":"lookup","arguments":{"region":"us"},`+meta2026+`}`),
			"tools/call", "tool", "lookup", []string{"mcp-method", "tools/call", "mcp-name", "other"}},
		{"resources/read", call("2", "resources/read", `{"uri":"file:///a.txt",`+meta2026+`}`),
			"resources/read", "resource", "file:///a.txt", []string{"mcp-method", "resources/read", "mcp-name", "file:///b.txt"}},
		{"method only", call("3", "tools/list", `{`+meta2026+`}`),
			"tools/list", "", "", []string{"mcp-method", "prompts/list"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, _, lines, _ := wrConfig(t, rev2026Envelope)
			s := NewStream(cfg)
			h := hdr(append([]string{"x-mcp-principal", "ann", "content-type", "application/json",
				"mcp-protocol-version", "2026-07-28"}, c.headers...)...)
			if r := s.OnRequestHeaders(h, "POST", "/mcp", false); r.Reply != nil {
				t.Fatalf("headers refused %s", r.Reply.Body)
			}
			r := s.OnRequestBody(len(c.body), true, func() []byte { return []byte(c.body) })
			if r.Reply == nil || !strings.Contains(string(r.Reply.Body), `"code":-32020`) {
				t.Fatalf("want -32020, got %+v", r.Reply)
			}
			es := wrEntries(t, *lines)
			if len(es) != 1 {
				t.Fatalf("audit entries %v", es)
			}
			e := es[0]
			if e["decision"] != "error" || e["method"] != c.method {
				t.Errorf("entry %v: want decision error, method %q", e, c.method)
			}
			kind, _ := e["kind"].(string)
			name, _ := e["name"].(string)
			if kind != c.kind || name != c.primitive {
				t.Errorf("entry kind %q name %q, want %q %q (%v)", kind, name, c.kind, c.primitive, e)
			}
		})
	}
}

// eventsOut feeds an event stream's chunks to s (the last one at end of
// stream) and returns what went to the client.
func eventsOut(t *testing.T, s *Stream, chunks ...string) string {
	t.Helper()
	if h := s.OnResponseHeaders(200, "text/event-stream", "", false); h.Reply != nil {
		t.Fatalf("response headers answered locally: %s", h.Reply.Body)
	}
	var out strings.Builder
	for i, c := range chunks {
		_, edit := s.OnResponseBody(len(c), i == len(chunks)-1, func() []byte { return []byte(c) })
		if edit.Replace {
			out.Write(edit.Data)
		} else {
			out.WriteString(c)
		}
	}
	return out.String()
}

// sseAnswers reads the JSON-RPC messages of an event stream's data lines.
func sseAnswers(t *testing.T, stream string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, ev := range strings.Split(stream, "\n\n") {
		for _, l := range strings.Split(ev, "\n") {
			d, ok := strings.CutPrefix(l, "data: ")
			if !ok || d == "" {
				continue
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(d), &m); err != nil {
				t.Fatalf("event data %q: %v", d, err)
			}
			out = append(out, m)
		}
	}
	return out
}

// Issue 27, item 5: a request whose answer the filter withheld as not
// valid JSON-RPC is not left waiting: when the event stream ends with it
// still open, it gets a -32603 error event for its id, and its call an
// audit entry with decision error. A stream the server ended without an
// answer and without a withheld event gets nothing added (its answer may
// come on a resumed GET stream, 2025-11-25).
func TestWithheldEventAnswersOpenRequests(t *testing.T) {
	const (
		ok1       = `data: {"jsonrpc":"2.0","id":1,"result":{"content":[]}}` + "\n\n"
		progress  = `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}` + "\n\n"
		notJSON   = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]\n\n"
		notRPC    = `data: {"jsonrpc":"2.0","foo":1}` + "\n\n"
		emptyList = "data: []\n\n"
		bareValue = "data: 42\n\n"
		priming   = "id: e1\ndata: \n\n"
	)
	single := wrToolCall("1", "search", `{}`)
	batch := `[` + wrToolCall("1", "search", `{}`) + `,` + wrToolCall("2", "search", `{}`) + `]`
	for _, c := range []struct {
		name   string
		body   string
		chunks []string
		// errorIDs are the ids answered with the filter's error, in order;
		// results the ids the server's answers reached.
		errorIDs []float64
		why      string
	}{
		{"single, event not JSON", single, []string{progress, notJSON}, []float64{1}, "not valid JSON"},
		{"single, event not JSON-RPC", single, []string{notRPC}, []float64{1}, "neither a request, a notification nor a response"},
		{"single, empty batch event", single, []string{emptyList}, []float64{1}, "an empty batch"},
		{"single, bare value", single, []string{bareValue}, []float64{1}, "not a JSON-RPC message"},
		{"single, truncated last event", single, []string{progress, `data: {"jsonrpc":"2.0","id":1,"res`}, []float64{1}, "not valid JSON"},
		{"single, withheld then answered", single, []string{notJSON, ok1}, nil, ""},
		{"single, answered then withheld", single, []string{ok1, notJSON}, nil, ""},
		{"single, clean close without answer", single, []string{priming, progress}, nil, ""},
		{"single, end chunk empty", single, []string{notJSON, ""}, []float64{1}, "not valid JSON"},
		{"batch, one answered, one withheld", batch, []string{ok1, notJSON}, []float64{2}, "not valid JSON"},
		{"batch, both withheld", batch, []string{notRPC}, []float64{1, 2}, "neither a request"},
		{"batch, clean close without answers", batch, []string{progress}, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, m, lines, _ := wrConfig(t, wrEnvelope)
			s, r := post(t, cfg, hdr("x-mcp-principal", "alice"), c.body)
			if r.Reply != nil {
				t.Fatalf("refused: %s", r.Reply.Body)
			}
			out := eventsOut(t, s, c.chunks...)
			s.Done()
			var errs []float64
			for _, a := range sseAnswers(t, out) {
				e, isErr := a["error"].(map[string]any)
				if !isErr {
					continue
				}
				msg, _ := e["message"].(string)
				if e["code"] != float64(-32603) || !strings.Contains(msg, "withheld a server event") || !strings.Contains(msg, c.why) {
					t.Errorf("error %v: want -32603 saying why (%q)", e, c.why)
				}
				id, _ := a["id"].(float64)
				errs = append(errs, id)
			}
			slicesSort(errs)
			if !reflect.DeepEqual(errs, c.errorIDs) && (len(errs) > 0 || len(c.errorIDs) > 0) {
				t.Fatalf("errors for ids %v, want %v; stream:\n%s", errs, c.errorIDs, out)
			}
			// Every call has one entry: error for those answered so.
			decisions := map[string]int{}
			for _, e := range wrEntries(t, *lines) {
				decisions[e["decision"].(string)]++
				if e["decision"] == "error" && !strings.Contains(e["reason"].(string), "withheld a server event") {
					t.Errorf("error entry without the reason: %v", e)
				}
			}
			calls := strings.Count(c.body, `"tools/call"`)
			if decisions["error"] != len(c.errorIDs) || decisions["allowed"] != calls-len(c.errorIDs) {
				t.Errorf("audit decisions %v, want %d error of %d calls", decisions, len(c.errorIDs), calls)
			}
			if got := m[requestsMetric("tools/call", outcomeError)]; got != uint64(len(c.errorIDs)) {
				t.Errorf("requests counter with outcome error %d, want %d (%v)", got, len(c.errorIDs), m)
			}
		})
	}
}

func slicesSort(f []float64) { sort.Float64s(f) }
