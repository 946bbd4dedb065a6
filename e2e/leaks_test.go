package e2e_test

//lint:file-ignore SA1019 MCP logging, deprecated from protocol 2026-07-28 on, is part of the 2025-11-25 sessions these tests run and must cross the plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Issue 12, leaks: a go-sdk server whose every text a client shows or
// passes to a model names a person (instructions, server title, tool
// titles and descriptions, schema descriptions, prompt and resource
// descriptions, resource links, _meta, log data, progress messages),
// behind the compiled plugin with a redacting policy. Nothing of it may
// reach the client, on the POST's event stream or (json mode) the GET
// stream, and the names the client calls must still work.

const leakedEmail = "alice@corp.example"

const leaksEnvelope = `{
  "policy": {"name": "leaks", "allow_tools": ["*"], "allow_resources": ["*"], "allow_prompts": ["*"],
             "transforms": ["redact"]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]},
  "gateway": {"virtual_tools": false}
}`

func leaksServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "crm", Title: "CRM of " + leakedEmail, Version: "v1"},
		&mcp.ServerOptions{Instructions: "Questions to " + leakedEmail + "."})
	mcp.AddTool(s, &mcp.Tool{Name: "lookup", Title: "Ask " + leakedEmail, Description: "Owned by " + leakedEmail + ".",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"who":{"type":"string","description":"e.g. ` + leakedEmail + `"}},"required":["who"]}`),
		Meta:        mcp.Meta{"owner": leakedEmail}},
		func(ctx context.Context, req *mcp.CallToolRequest, a struct {
			Who string `json:"who"`
		}) (*mcp.CallToolResult, any, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2,
					Message: "looking up " + leakedEmail}); err != nil {
					return nil, nil, err
				}
			}
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "lookup",
				Data: map[string]any{"id": leakedEmail, "img": map[string]any{"type": "image", "data": leakedEmail},
					"res": map[string]any{"uri": "file:///x", "blob": leakedEmail}, "deep": map[string]any{"_meta": map[string]any{"k": leakedEmail}}}}); err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{
				Content: []mcp.Content{
					&mcp.TextContent{Text: "found " + a.Who},
					&mcp.ResourceLink{URI: "file:///people/1", Name: leakedEmail, Title: "Card of " + leakedEmail, Description: "About " + leakedEmail},
				},
				Meta: mcp.Meta{"by": leakedEmail},
			}, nil, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "brief", Title: "Brief " + leakedEmail, Description: "For " + leakedEmail,
		Arguments: []*mcp.PromptArgument{{Name: "topic", Description: "ask " + leakedEmail}}},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Description: "Prompt of " + leakedEmail,
				Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello"}}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "docs://handbook", Name: "handbook", Description: "Kept by " + leakedEmail, MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "docs://handbook", MIMEType: "text/plain", Text: "ok"}}}, nil
		})
	return s
}

func TestNoLeakThroughTheWholeSession(t *testing.T) {
	for _, mode := range []struct {
		name         string
		jsonResponse bool
	}{{"sse", false}, {"json", true}} {
		t.Run(mode.name, func(t *testing.T) {
			server := leaksServer()
			up := stServe(t, server, mode.jsonResponse)
			p := startPlugin(t, up.URL, leaksEnvelope)

			var mu sync.Mutex
			var seen []any // everything the client's handlers got
			probes := make(chan string, 100)
			logged, progressed := make(chan struct{}, 10), make(chan struct{}, 10)
			cs := stConnect(t, p.URL, "ann", "", &mcp.ClientOptions{
				LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
					if req.Params.Logger == stProbeLogger {
						probes <- fmt.Sprint(req.Params.Data)
						return
					}
					mu.Lock()
					seen = append(seen, req.Params)
					mu.Unlock()
					logged <- struct{}{}
				},
				ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
					mu.Lock()
					seen = append(seen, req.Params)
					mu.Unlock()
					progressed <- struct{}{}
				},
			})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
				t.Fatal(err)
			}
			if mode.jsonResponse {
				if _, err := stAwaitGETStream(ctx, server, probes); err != nil {
					t.Fatalf("%v\n%s", err, p.logs)
				}
			}

			var got []any
			got = append(got, cs.InitializeResult())
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, tools)
			prompts, err := cs.ListPrompts(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, prompts)
			resources, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, resources)
			prompt, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "brief"})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, prompt)
			params := &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"who": "bob"}}
			params.SetProgressToken("tok-1")
			res, err := cs.CallTool(ctx, params)
			if err != nil || res.IsError {
				t.Fatalf("tools/call lookup: %v %+v\n%s", err, res, p.logs)
			}
			got = append(got, res)
			// In json mode both come on the GET stream, maybe after the result.
			for _, ch := range []chan struct{}{logged, progressed} {
				select {
				case <-ch:
				case <-ctx.Done():
					t.Fatal("a notification never arrived")
				}
			}
			mu.Lock()
			got = append(got, seen...)
			mu.Unlock()

			raw, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw), leakedEmail) {
				t.Errorf("the client saw %s: %s", leakedEmail, raw)
			}
			// What was transformed, not dropped: the texts are there,
			// redacted, and the names a client calls are as the server
			// gave them.
			for _, want := range []string{`"instructions":"Questions to [REDACTED:EMAIL]."`, `"description":"Owned by [REDACTED:EMAIL]."`,
				`"name":"lookup"`, `"name":"brief"`, `"uri":"docs://handbook"`, `"uri":"file:///people/1"`,
				`"progressToken":"tok-1"`, `looking up [REDACTED:EMAIL]`} {
				if !strings.Contains(string(raw), want) {
					t.Errorf("the client did not see %s: %s", want, raw)
				}
			}
		})
	}
}
