package e2e_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// A resumed stream (Streamable HTTP resumability): the server ends a POST's
// event stream after its priming event, and the answer comes on the GET the
// client opens with Last-Event-ID. The plugin matches it to the POST's
// request by session and id (through shared data, whichever worker VM) and
// filters it like an answer on the POST's own stream: the hidden tool goes,
// and privacy_status joins the first page.
func TestResumedStreamFiltered(t *testing.T) {
	const session = "resume-session-1"
	// The answer, to the id of the last request posted (each round uses
	// its own: an id used twice in a session, for requests judged
	// differently, cannot be attributed on another stream).
	answer := `{"jsonrpc":"2.0","id":"ID","result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":"delete_customer","inputSchema":{"type":"object"}}]}}`
	var lastID atomic.Value
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") != session {
			http.Error(w, "no session", 400)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		switch r.Method {
		case "POST":
			var req struct{ ID string }
			b, _ := io.ReadAll(r.Body)
			_ = json.Unmarshal(b, &req)
			lastID.Store(req.ID)
			// Priming event, then the server closes: the client must resume.
			_, _ = io.WriteString(w, "id: ev-1\nretry: 10\ndata: \n\n")
		case "GET":
			if r.Header.Get("Last-Event-ID") != "ev-1" {
				http.Error(w, "want Last-Event-ID ev-1", 400)
				return
			}
			_, _ = io.WriteString(w, "id: ev-2\nevent: message\ndata: "+strings.Replace(answer, "ID", lastID.Load().(string), 1)+"\n\n")
		}
	}))
	t.Cleanup(up.Close)
	// admin sees every tool but delete_customer is hidden from support.
	p := startPlugin(t, up.URL, envelope(true, false))

	do := func(roles, method, body, lastEventID string) string {
		req, _ := http.NewRequest(method, p.URL+"/mcp", strings.NewReader(body))
		setRawHeaders(req, session, "ann", roles)
		if lastEventID != "" {
			req.Header.Set("Last-Event-ID", lastEventID)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", method, res.StatusCode, b)
		}
		return string(b)
	}
	for _, c := range []struct {
		roles              string
		hidden, shown, not []string
	}{
		// support may not see delete_customer.
		{"support", []string{"delete_customer"}, []string{`"name":"echo"`}, []string{"privacy_status"}},
		// admin sees everything, and privacy_status joins the page: proof
		// that the answer was matched to a first-page request, which a
		// response recognised only by its shape is not.
		{"admin", nil, []string{`"name":"echo"`, `"name":"delete_customer"`, `"name":"privacy_status"`}, nil},
	} {
		if got := do(c.roles, "POST", `{"jsonrpc":"2.0","id":"r-`+c.roles+`","method":"tools/list"}`, ""); got != "id: ev-1\nretry: 10\ndata: \n\n" {
			t.Fatalf("%s: POST stream %q", c.roles, got)
		}
		got := do(c.roles, "GET", "", "ev-1")
		for _, h := range append(c.hidden, c.not...) {
			if strings.Contains(got, h) {
				t.Errorf("%s: resumed answer shows %s: %s", c.roles, h, got)
			}
		}
		for _, s := range c.shown {
			if !strings.Contains(got, s) {
				t.Errorf("%s: resumed answer lacks %s: %s", c.roles, s, got)
			}
		}
	}
}
