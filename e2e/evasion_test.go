package e2e_test

//lint:file-ignore SA1019 MCP logging, deprecated from protocol 2026-07-28 on, is part of the 2025-11-25 sessions these tests run and must cross the plugin

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/proxy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A pseudonym the model glued to a character that would make its value
// part of a longer token reaches an echoing tool unrestored, and the echo
// carries nothing of the real value (issue 12, pseudonym reversal).
func TestGluedPseudonymNotReversed(t *testing.T) {
	server := startCRM(t)
	env := func(o *proxy.Options) { o.Env = map[string]string{"E2E_VAULT_KEY": "an e2e key, not a secret"} }
	p := startPlugin(t, server.URL, vaultEnvelope, env)
	ctx := ctxT(t)
	cs := connect(t, p.URL, "alice", "")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_customer", Arguments: map[string]any{"id": "c-1"}})
	if err != nil {
		t.Fatal(err)
	}
	email := res.StructuredContent.(map[string]any)["email"].(string)
	for _, glue := range []string{"é", ".5", "-x", "_", "0", "\u0301", "\u200dx", "ａ"} {
		sent, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "send_email", Arguments: map[string]any{"to": email + glue, "body": "hi"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := server.lastSent(); got != email+glue {
			t.Errorf("%q reached the server as %q, want it unrestored", email+glue, got)
		}
		raw, _ := json.Marshal(sent)
		if strings.Contains(string(raw), "alice.martin") {
			t.Errorf("%q: the echo carried the real value: %s", email+glue, raw)
		}
	}
	// Ordinary punctuation restores.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "send_email", Arguments: map[string]any{"to": "mailto:" + email, "body": "hi"}}); err != nil {
		t.Fatal(err)
	}
	if got := server.lastSent(); got != "mailto:"+alice.Email {
		t.Errorf("mailto: reached the server as %q", got)
	}
}

// Disguised values from a real server reach the client transformed: a
// card number with no-break spaces, an email with U+200B or a fullwidth
// at sign, a \u escape in JSON that is not strict JSON, a value split
// across two text items, base64 image data that is text (issue 12,
// detector evasion).
func TestDisguisedValuesThroughTheProxy(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "leaky", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "dump", Description: "Dump a record."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "card 4111\u00a01111\u00a01111\u00a01111"},
				&mcp.TextContent{Text: "mail ali\u200bce@example.com or bob\uff20example.org"},
				&mcp.TextContent{Text: `{"u":"x","u":"carol\u0040example.net"}`},
				&mcp.TextContent{Text: "then dave@exa"},
				&mcp.TextContent{Text: "mple.com too"},
				&mcp.ImageContent{MIMEType: "image/png", Data: []byte("ssn 078-05-1120 erin@example.com")},
			}}, nil, nil
		})
	upstream := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(upstream.Close)
	p := startPlugin(t, upstream.URL, `{
  "policy": {"name": "evasion", "allow_tools": ["*"], "transforms": ["redact"]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]}
}`)
	cs := connect(t, p.URL, "alice", "")
	res, err := cs.CallTool(ctxT(t), &mcp.CallToolParams{Name: "dump", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			seen.WriteString(c.Text)
		case *mcp.ImageContent:
			seen.Write(c.Data) // what a client decoding the image reads
		}
	}
	// What a reader reads: invisible characters dropped, fullwidth forms
	// and escapes read as ASCII.
	read := strings.NewReplacer("\u00a0", " ", "\u200b", "", "\uff20", "@", `\u0040`, "@").Replace(seen.String())
	for _, v := range []string{"4111 1111 1111 1111", "alice@example.com", "bob@example.org", "carol@example.net", "dave@example.com", "078-05-1120", "erin@example.com"} {
		if strings.Contains(read, v) {
			t.Errorf("the client reads %q in %q", v, read)
		}
	}
	for _, want := range []string{"[REDACTED:CREDIT_CARD]", "[REDACTED:US_SSN]"} {
		if !strings.Contains(read, want) {
			t.Errorf("no %s in %q", want, read)
		}
	}
	if img, ok := res.Content[len(res.Content)-1].(*mcp.ImageContent); !ok || base64.StdEncoding.EncodeToString(img.Data) == "" {
		t.Errorf("the image item is gone: %+v", res.Content)
	}
}

// A value split across two log notifications of one tools/call stream: the
// second reaches the client with the continuation replaced (the first
// part has left; MCP_PRIVACY.md 12.8).
func TestValueSplitAcrossLogNotifications(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "chatty", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "job", Description: "Log in two parts."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			for _, part := range []string{"owner erin.fox@exa", "mple.com, done"} {
				if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "job", Data: part}); err != nil {
					return nil, nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	upstream := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(upstream.Close)
	p := startPlugin(t, upstream.URL, `{
  "policy": {"name": "split", "allow_tools": ["*"], "transforms": ["redact"]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]}
}`)
	var mu sync.Mutex
	var logs []string
	cs := connectWith(t, p.URL, "alice", "", &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			mu.Lock()
			logs = append(logs, fmt.Sprint(req.Params.Data))
			mu.Unlock()
		},
	}, nil)
	ctx := ctxT(t)
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "job", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	// Notifications are handled apart from the result: wait for them.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		n := len(logs)
		mu.Unlock()
		if n >= 2 {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logs) != 2 || logs[1] != "[REDACTED:EMAIL], done" {
		t.Errorf("logs %q, want the second to read \"[REDACTED:EMAIL], done\"\n%s", logs, p.logs)
	}
}
