package e2e_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/proxy"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// echoOwner is the value the server holds; the client may only ever see
// its pseudonym.
const echoOwner = "alice.martin@example.com"

// echoServer keys its records by address, and echoes what it is asked
// for into protocol positions: a resource's contents[].uri and a resource
// link's uri, both built from a value the plugin restored from a
// pseudonym.
func echoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "echoes", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "owners", Description: "Owners by address."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, map[string]any{"owners": map[string]any{echoOwner: map[string]any{"plan": "pro", "email": echoOwner,
				"card": 4111111111111111, "note_b64": base64.StdEncoding.EncodeToString([]byte("card holder " + echoOwner))}}}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "link", Description: "A link to a person's notes."},
		func(_ context.Context, _ *mcp.CallToolRequest, a struct {
			Who string `json:"who"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{URI: "notes://box/" + a.Who, Name: "notes"}}}, nil, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "gone://box/{+who}", Name: "gone", MIMEType: "text/plain"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, mcp.ResourceNotFoundError(r.Params.URI)
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "notes://box/{+who}", Name: "notes", MIMEType: "text/plain"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/plain", Text: "no notes"}}}, nil
		})
	return s
}

// TestRestoredValuesNotEchoedRaw: a curious client sends a pseudonym in a
// resource URI or an argument; the plugin restores it for the server, and
// the server echoes the real value into a URI of its answer; and the
// server keys a record by address, sends a card number as a number and a
// note as base64. Regression (issue 12 review): URIs are protocol
// positions, and member names, numbers and base64 outside the schema's
// base64 positions were never read, so each reached the client raw.
func TestRestoredValuesNotEchoedRaw(t *testing.T) {
	up := stServe(t, echoServer(), false)
	env := func(o *proxy.Options) { o.Env = map[string]string{"E2E_VAULT_KEY": "an e2e key, not a secret"} }
	p := startPlugin(t, up.URL, `{
  "policy": {"name": "echo", "allow_tools": ["*"], "allow_resources": ["*"], "transforms": ["pseudonymise"],
             "vault": {"key_env": "E2E_VAULT_KEY"}},
  "identity": {"principal": [{"header": "x-mcp-principal"}]}
}`, env)
	ctx := ctxT(t)
	cs := connect(t, p.URL, "alice", "")
	var seen []any
	owners, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "owners", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	seen = append(seen, owners)
	sc, _ := owners.StructuredContent.(map[string]any)
	rec, _ := sc["owners"].(map[string]any)
	var pseudonym string
	for k, v := range rec {
		if m, ok := v.(map[string]any); ok {
			pseudonym, _ = m["email"].(string)
			if _, isNumber := m["card"].(float64); isNumber {
				t.Errorf("the card number came as a number: %v", m["card"])
			}
		}
		if pseudonym != "" && k != pseudonym {
			t.Errorf("the record's name %q is not the pseudonym of its email %q", k, pseudonym)
		}
	}
	if !pseudonymPattern.MatchString(pseudonym) {
		t.Fatalf("no pseudonym in %v", owners.StructuredContent)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes://box/" + pseudonym})
	if err != nil {
		t.Fatalf("%v\n%s", err, p.logs)
	}
	seen = append(seen, read)
	if len(read.Contents) != 1 || read.Contents[0].URI != "notes://box/"+pseudonym {
		t.Errorf("the read answers for another URI: %+v", read.Contents)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "gone://box/" + pseudonym}); err == nil {
		t.Error("gone://: no error")
	} else {
		seen = append(seen, err.Error())
	}
	link, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "link", Arguments: map[string]any{"who": pseudonym}})
	if err != nil {
		t.Fatal(err)
	}
	seen = append(seen, link)
	raw, _ := json.Marshal(seen)
	for _, v := range []string{echoOwner, "4111111111111111", base64.StdEncoding.EncodeToString([]byte("card holder " + echoOwner))} {
		if strings.Contains(string(raw), v) {
			t.Errorf("the client received %s raw: %s", v, raw)
		}
	}
}
