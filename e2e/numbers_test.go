package e2e_test

//lint:file-ignore SA1019 MCP logging, deprecated from protocol 2026-07-28 on, is part of the 2025-11-25 sessions these tests run and must cross the plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Issue 26, class 1: a card number a go-sdk server sends as a JSON number
// written with an exponent or a fraction (4.111111111111111e15,
// 4111111111111111.0) is the card to every client, whose JSON reader
// prints it back as the plain digits. Through the compiled plugin with a
// redacting policy it must arrive redacted in structuredContent (and the
// text that repeats it), in an error's data and in a log notification, at
// 2025-11-25 and at 2026-07-28; and the tool's outputSchema, which says
// integer, must let the redacted string through a validating client.

const nuCard = "4111111111111111"

var nuSpellings = []string{"4.111111111111111e15", "4111111111111111.0", "41111111111111110e-1", "4111111111111111E0"}

const nuEnvelope = `{
  "policy": {"name": "numbers", "allow_tools": ["*"], "transforms": ["redact"]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]},
  "gateway": {"virtual_tools": false}
}`

// nuServer serves the go-sdk server at both revisions, as startContacts
// does: stateless for 2026-07-28 requests, a session for the others.
// Tool card answers spelling n of the card in structuredContent, in the
// text repeating it and in two log messages (as a member and as the whole
// data); tool charge fails with the card as the error's data, whole and
// as a member.
func nuServer(t *testing.T) *httptest.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "payments", Version: "v1"}, nil)
	in := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	spelling := func(r *mcp.CallToolRequest) string {
		var a struct{ N int }
		_ = json.Unmarshal(r.Params.Arguments, &a)
		return nuSpellings[a.N%len(nuSpellings)]
	}
	s.AddTool(&mcp.Tool{Name: "card", Description: "The card on file.", InputSchema: in,
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"card":{"type":"integer","minimum":0},"count":{"type":"integer"}},"required":["card","count"]}`)},
		func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			num := spelling(r)
			for _, data := range []string{`{"card":` + num + `}`, num} {
				if err := r.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "payments", Data: json.RawMessage(data)}); err != nil {
					return nil, err
				}
			}
			sc := `{"card":` + num + `,"count":3}`
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: sc}}, StructuredContent: json.RawMessage(sc)}, nil
		})
	s.AddTool(&mcp.Tool{Name: "charge", Description: "Charge the card.", InputSchema: in},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			num := spelling(r)
			data := num
			if r.Params.Arguments != nil && bytes.Contains(r.Params.Arguments, []byte(`"member"`)) {
				data = `{"card":` + num + `}`
			}
			return nil, &jsonrpc.Error{Code: -32000, Message: "declined", Data: json.RawMessage(data)}
		})
	get := func(*http.Request) *mcp.Server { return s }
	stateless := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true})
	stateful := mcp.NewStreamableHTTPHandler(get, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			stateless.ServeHTTP(w, r)
		} else {
			stateful.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestCardNumberSpellingsRedacted(t *testing.T) {
	up := nuServer(t)
	p := startPlugin(t, up.URL, nuEnvelope)
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			logged := make(chan string, 100)
			cs := connectWith(t, p.URL, "ann", "", &mcp.ClientOptions{
				LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
					raw, _ := json.Marshal(req.Params.Data)
					logged <- string(raw)
				},
			}, &mcp.ClientSessionOptions{ProtocolVersion: rev})
			if got := cs.InitializeResult().ProtocolVersion; got != rev {
				t.Fatalf("negotiated %s, want %s", got, rev)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			meta := mcp.Meta{}
			if rev < "2026-07-28" {
				if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
					t.Fatal(err)
				}
			} else {
				meta["io.modelcontextprotocol/logLevel"] = "debug" // per request, 2026-07-28
			}

			// The listed outputSchema admits the string the card becomes.
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var schema *jsonschema.Schema
			for _, tool := range tools.Tools {
				if tool.Name == "card" {
					schema = nuCompile(t, tool.OutputSchema)
				}
			}
			if schema == nil {
				t.Fatalf("card not listed: %+v", tools.Tools)
			}

			for n, num := range nuSpellings {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Meta: meta, Name: "card", Arguments: map[string]any{"n": n}})
				if err != nil || res.IsError {
					t.Fatalf("%s: card: %v %+v\n%s", num, err, res, p.logs)
				}
				raw, _ := json.Marshal(res)
				if strings.Contains(string(raw), nuCard) || strings.Contains(string(raw), num) {
					t.Errorf("%s: the client read the card in the result: %s", num, raw)
				}
				sc, _ := json.Marshal(res.StructuredContent)
				if !strings.Contains(string(sc), `"card":"[REDACTED:CREDIT_CARD]"`) {
					t.Errorf("%s: structuredContent %s, want the card redacted", num, sc)
				}
				inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(sc))
				if err != nil {
					t.Fatal(err)
				}
				if err := schema.Validate(inst); err != nil {
					t.Errorf("%s: structuredContent %s fails the listed outputSchema: %v", num, sc, err)
				}
				// The client's handler may run after CallTool returns.
				var got []string
				for len(got) < 2 {
					select {
					case l := <-logged:
						got = append(got, l)
					case <-ctx.Done():
						t.Fatalf("%s: log messages %q, and no more", num, got)
					}
				}
				if got[0] != `{"card":"[REDACTED:CREDIT_CARD]"}` || got[1] != `"[REDACTED:CREDIT_CARD]"` {
					t.Errorf("%s: log data %q, want the card redacted in both", num, got)
				}

				for _, args := range []map[string]any{{"n": n}, {"n": n, "member": true}} {
					_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "charge", Arguments: args})
					var we *jsonrpc.Error
					if !errors.As(err, &we) {
						t.Fatalf("%s: charge: %v, want a JSON-RPC error", num, err)
					}
					want := `"[REDACTED:CREDIT_CARD]"`
					if args["member"] != nil {
						want = `{"card":"[REDACTED:CREDIT_CARD]"}`
					}
					if we.Code != -32000 || string(we.Data) != want {
						t.Errorf("%s: error %d %q data %s, want the card redacted: %s", num, we.Code, we.Message, we.Data, want)
					}
				}
			}
		})
	}
}

// nuCompile compiles a listed outputSchema as a validating client would.
func nuCompile(t *testing.T, schema any) *jsonschema.Schema {
	t.Helper()
	raw, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem://out.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem://out.json")
	if err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	if bytes.Contains(raw, []byte(`"type":"integer"`)) {
		t.Errorf("the listed outputSchema still says the card is an integer: %s", raw)
	}
	return s
}
