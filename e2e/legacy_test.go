package e2e_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/demo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The legacy HTTP+SSE transport (2024-11-05): POSTs are answered 202 and
// every response arrives on the session's GET stream. Refusals must arrive
// there too (the plugin sends the server a ping in the refused request's
// place and swaps its answer), and lists on that stream are filtered.
func TestLegacySSETransport(t *testing.T) {
	server := demo.NewServer()
	legacy := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil)
	var mu sync.Mutex
	var bodies []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "POST" {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			bodies = append(bodies, string(b))
			mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		legacy.ServeHTTP(w, r)
	}))
	t.Cleanup(up.Close)

	for _, hold := range []bool{false, true} {
		p := startPlugin(t, up.URL, envelope(true, hold))
		ctx := ctxT(t)
		client := mcp.NewClient(&mcp.Implementation{Name: "legacy", Version: "v1"}, nil)
		session, err := client.Connect(ctx, &mcp.SSEClientTransport{
			Endpoint:   p.URL + "/mcp",
			HTTPClient: &http.Client{Transport: withHeaders{http.DefaultTransport, map[string]string{"x-mcp-principal": "ann", "x-mcp-roles": "support"}}},
		}, nil)
		if err != nil {
			t.Fatalf("hold %v: connect: %v", hold, err)
		}
		res, err := session.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		sort.Strings(names)
		if want := []string{"echo", "get_customer", "search_customers"}; !reflect.DeepEqual(names, want) {
			t.Errorf("hold %v: legacy tools/list %v, want %v", hold, names, want)
		}
		if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "search_customers", Arguments: map[string]any{"query": "bob"}}); err != nil {
			t.Errorf("hold %v: allowed call: %v", hold, err)
		}
		_, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "delete_customer", Arguments: map[string]any{"id": "c-1"}})
		if wire := rpcError(t, err); wire.Code != -32602 || wire.Message != `unknown tool "delete_customer"` {
			t.Errorf("hold %v: refused call answered %d %q", hold, wire.Code, wire.Message)
		}
		// The session goes on after a refusal.
		if res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "after"}}); err != nil ||
			res.Content[0].(*mcp.TextContent).Text != "after" {
			t.Errorf("hold %v: call after a refusal: %v", hold, err)
		}
		_ = session.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	for _, b := range bodies {
		if strings.Contains(b, "delete_customer") {
			t.Errorf("a refused call reached the server: %s", b)
		}
	}
}

// The legacy transport attributes an answer on the session's GET stream by
// the session of the POST that asked: the plugin read the first of
// sessionId, sessionid and session_id in the query, or the Mcp-Session-Id
// header before it, while the go-sdk's server reads its sessionid
// parameter. A POST naming another session first had its answer arrive
// unattributed, under the policy-level pipeline: the echo tool's own
// redaction was skipped and the address came back raw. Such a POST is now
// refused.
func TestLegacySessionReadLikeTheServer(t *testing.T) {
	server := demo.NewServer()
	legacy := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil)
	up := httptest.NewServer(legacy)
	t.Cleanup(up.Close)
	config := `{"policy": {"name": "t", "rules": [{"name": "echo-emails", "match": {"names": ["echo"]},
    "transforms": [{"type": "redact", "options": {"detectors": ["email"]}}]}]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]}}`
	const address = "alice.martin@example.com"

	for _, tc := range []struct {
		name  string
		tweak func(r *http.Request) // applied to the tools/call POST
	}{
		{"control", nil},
		{"sessionId first", func(r *http.Request) { r.URL.RawQuery = "sessionId=other&" + r.URL.RawQuery }},
		{"session_id first", func(r *http.Request) { r.URL.RawQuery = "session_id=other&" + r.URL.RawQuery }},
		{"encoded name first", func(r *http.Request) { r.URL.RawQuery = "session%5Fid=other&" + r.URL.RawQuery }},
		{"header", func(r *http.Request) { r.Header.Set("Mcp-Session-Id", "other") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startPlugin(t, up.URL, config)
			ctx := ctxT(t)
			client := mcp.NewClient(&mcp.Implementation{Name: "legacy", Version: "v1"}, nil)
			session, err := client.Connect(ctx, &mcp.SSEClientTransport{
				Endpoint:   p.URL + "/mcp",
				HTTPClient: &http.Client{Transport: rqTweakCalls{tc.tweak}},
			}, nil)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer session.Close()
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "mail " + address}})
			if tc.tweak == nil {
				if err != nil || len(res.Content) == 0 || strings.Contains(res.Content[0].(*mcp.TextContent).Text, address) {
					t.Fatalf("the echo tool's redaction did not apply (%v): the test proves nothing", err)
				}
				return
			}
			if err == nil && len(res.Content) > 0 && strings.Contains(res.Content[0].(*mcp.TextContent).Text, address) {
				t.Errorf("the address came back raw: %q", res.Content[0].(*mcp.TextContent).Text)
			}
		})
	}
}

// rqTweakCalls applies tweak to every POST that carries a tools/call.
type rqTweakCalls struct{ tweak func(*http.Request) }

func (c rqTweakCalls) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("x-mcp-principal", "ann")
	if c.tweak != nil && r.Method == "POST" && r.Body != nil {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		if bytes.Contains(b, []byte(`"tools/call"`)) {
			c.tweak(r)
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}
