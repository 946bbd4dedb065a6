// Package demo is a small MCP server built with the official go-sdk: a
// customer-support backend with tools, a resource template, a static
// resource and a prompt. `make run` serves it behind the plugin, and the
// end-to-end tests use it as a real upstream.
package demo

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Customer is one record of the demo data set.
type Customer struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	Phone string `json:"phone"`
	Card  string `json:"card"`
	Notes string `json:"internal_notes"`
}

// Customers is the demo data set.
var Customers = []Customer{
	{"c-1", "Alice Martin", "alice.martin@example.com", "+44 20 7946 0958", "4111 1111 1111 1111", "prefers email"},
	{"c-2", "Bob Keller", "bob.keller@example.org", "+1 415 555 0132", "5500-0000-0000-0004", "VIP since 2021"},
}

func find(id string) (Customer, bool) {
	for _, c := range Customers {
		if c.ID == id {
			return c, true
		}
	}
	return Customer{}, false
}

type searchArgs struct {
	Query string `json:"query" jsonschema:"text to look for in names and emails"`
}

type idArgs struct {
	ID string `json:"id" jsonschema:"customer id, e.g. c-1"`
}

type echoArgs struct {
	Text string `json:"text" jsonschema:"text to send back"`
}

type customers struct {
	Customers []Customer `json:"customers"`
}

// NewServer returns the demo MCP server.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "demo-support", Version: "v1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "search_customers", Description: "Find customers by name or email."},
		func(_ context.Context, _ *mcp.CallToolRequest, a searchArgs) (*mcp.CallToolResult, customers, error) {
			var out customers
			q := strings.ToLower(a.Query)
			for _, c := range Customers {
				if strings.Contains(strings.ToLower(c.Name+" "+c.Email), q) {
					out.Customers = append(out.Customers, c)
				}
			}
			return nil, out, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "get_customer", Description: "Read one customer record."},
		func(_ context.Context, _ *mcp.CallToolRequest, a idArgs) (*mcp.CallToolResult, Customer, error) {
			c, ok := find(a.ID)
			if !ok {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no customer " + a.ID}}}, Customer{}, nil
			}
			return nil, c, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "delete_customer", Description: "Delete a customer record."},
		func(_ context.Context, _ *mcp.CallToolRequest, a idArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted " + a.ID}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Send the text back."},
		func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
		})
	s.AddResource(&mcp.Resource{URI: "docs://readme", Name: "readme", MIMEType: "text/plain"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/plain", Text: "Support desk: be kind."}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "customers://{id}/profile", Name: "customer-profile", MIMEType: "application/json"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id := strings.TrimSuffix(strings.TrimPrefix(r.Params.URI, "customers://"), "/profile")
			c, ok := find(id)
			if !ok {
				return nil, mcp.ResourceNotFoundError(r.Params.URI)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "application/json",
				Text: fmt.Sprintf(`{"id":%q,"name":%q,"email":%q}`, c.ID, c.Name, c.Email)}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "summarize_customer", Description: "Summarise a customer for a support agent.",
		Arguments: []*mcp.PromptArgument{{Name: "id", Required: true}}},
		func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user",
				Content: &mcp.TextContent{Text: "Summarise customer " + r.Params.Arguments["id"] + " in two sentences."}}}}, nil
		})
	return s
}

// Handler serves the demo server over Streamable HTTP. jsonResponse makes
// it answer application/json instead of event streams.
func Handler(jsonResponse bool) http.Handler {
	return HandlerWith(&mcp.StreamableHTTPOptions{JSONResponse: jsonResponse})
}

// HandlerWith serves the demo server with the given transport options
// (Stateless lets `curl` call tools without an initialize handshake).
func HandlerWith(opts *mcp.StreamableHTTPOptions) http.Handler {
	s := NewServer()
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, opts)
}
