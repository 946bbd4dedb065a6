package e2e_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Multi round-trip requests (2026-07-28) between a go-sdk v1.8.0 client and
// a stateless go-sdk v1.8.0 server, through the compiled plugin: the
// server's elicitation travels in an InputRequiredResult, the client's
// answer in the retry's inputResponses.

// mrtrServer is a stateless go-sdk server whose crm_confirm tool asks the
// client (by an InputRequiredResult) to confirm an address, then answers
// with what the client confirmed. It records what each retry carried.
type mrtrServer struct {
	mu        sync.Mutex
	confirmed []string // the address each retry's inputResponses held
	states    []string // each retry's requestState
}

// mrtrState is the requestState the server sets: opaque to everyone
// else, and holding what no filter may rewrite (the server would then
// refuse it).
const mrtrState = "v1.alice@example.com.c2lnbmVk"

func (m *mrtrServer) handler() http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: "mrtr", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "crm_confirm", Description: "Confirms the customer's address."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if r, ok := req.Params.InputResponses["address"].(*mcp.ElicitResult); ok && r.Action == "accept" {
				addr, _ := r.Content["email"].(string)
				m.mu.Lock()
				m.confirmed = append(m.confirmed, addr)
				m.states = append(m.states, req.Params.RequestState)
				m.mu.Unlock()
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Confirmed " + addr}}}, nil, nil
			}
			return &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{"address": &mcp.ElicitParams{
					Message: "Is alice@example.com the customer's address?",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
						"email": map[string]any{"type": "string", "description": "the address, e.g. alice@example.com"}}},
				}},
				RequestState: mrtrState,
			}, nil, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
}

// TestMultiRoundTripThroughThePlugin: the client sees the elicitation
// with the address pseudonymised (the policy's pipeline, as for any
// server request), answers with the pseudonym as a model would, and the
// server gets the address back and the requestState it sent, byte for
// byte; the client sees the final result pseudonymised. Regression
// (issue 13): the elicitation reached the client untransformed, and the
// retry reached the server with the pseudonym unrestored.
func TestMultiRoundTripThroughThePlugin(t *testing.T) {
	srv := &mrtrServer{}
	h := srv.handler()
	var bodies []string
	var mu sync.Mutex
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, r.Header.Get("Mcp-Protocol-Version")+" "+string(b))
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(up.Close)
	p := startPlugin(t, up.URL, `{
  "policy": {"name": "mrtr", "transforms": ["pseudonymise"], "vault": {"key": "mrtr e2e key"}},
  "identity": {"principal": [{"header": "x-mcp-principal"}]},
  "gateway": {"virtual_tools": false}
}`)
	pseudonym := regexp.MustCompile(`EMAIL_[A-Z2-7]{12,}`)
	var seen []string
	cs := connectWith(t, p.URL, "ann", "", &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			seen = append(seen, req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": pseudonym.FindString(req.Params.Message)}}, nil
		},
	}, nil)
	res, err := cs.CallTool(ctxT(t), &mcp.CallToolParams{Name: "crm_confirm", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("call: %v\n%s", err, p.logs)
	}
	if len(seen) != 1 || strings.Contains(seen[0], "alice@") || !pseudonym.MatchString(seen[0]) {
		t.Fatalf("the client's elicitation: %q", seen)
	}
	srv.mu.Lock()
	confirmed, states := srv.confirmed, srv.states
	srv.mu.Unlock()
	if len(confirmed) != 1 || confirmed[0] != "alice@example.com" {
		t.Errorf("the server got %q, want the restored address", confirmed)
	}
	if len(states) != 1 || states[0] != mrtrState {
		t.Errorf("requestState %q, want %q", states, mrtrState)
	}
	// The flow was MRTR at 2026-07-28, not the 2025 server request the
	// go-sdk server falls back to for older clients.
	mu.Lock()
	retried := false
	for _, b := range bodies {
		retried = retried || strings.HasPrefix(b, "2026-07-28 ") && strings.Contains(b, `"inputResponses"`)
	}
	mu.Unlock()
	if !retried {
		t.Errorf("no 2026-07-28 retry with inputResponses reached the server: %q", bodies)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if strings.Contains(text, "alice@") || !pseudonym.MatchString(text) {
		t.Errorf("the final result: %q", text)
	}
}
