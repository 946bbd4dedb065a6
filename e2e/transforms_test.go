package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/proxy"
	"github.com/cloudg/mcp-privacy/internal/wasmhost"
	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms/vault"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	schemav6 "github.com/santhosh-tekuri/jsonschema/v6"
)

// customerRecord is what the CRM server's get_customer returns.
type customerRecord struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	Phone string `json:"phone"`
	Card  string `json:"card"`
}

var alice = customerRecord{"c-1", "Alice Martin", "alice.martin@example.com", "+44 20 7946 0958", "4111 1111 1111 1111"}

// customerSchema declares formats and patterns a pseudonym cannot meet:
// the plugin must rewrite it in tools/list (manual 8).
var customerSchema = json.RawMessage(`{"type":"object","properties":{
  "id":{"type":"string","pattern":"^c-[0-9]+$"},
  "name":{"type":"string"},
  "email":{"type":"string","format":"email"},
  "phone":{"type":"string","pattern":"^\\+[0-9 ]+$"},
  "card":{"type":"string","pattern":"^[0-9 ]{13,23}$"}},
  "required":["id","email"]}`)

// crm is a go-sdk server with a customer record and a mail tool that
// records the address it was given.
type crm struct {
	*httptest.Server
	mu   sync.Mutex
	sent []string
}

func startCRM(t *testing.T) *crm {
	t.Helper()
	c := &crm{}
	s := mcp.NewServer(&mcp.Implementation{Name: "crm", Version: "v1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "get_customer", Description: "Read a customer record.", OutputSchema: customerSchema},
		func(_ context.Context, _ *mcp.CallToolRequest, _ struct {
			ID string `json:"id"`
		}) (*mcp.CallToolResult, customerRecord, error) {
			return nil, alice, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "send_email", Description: "Send an email."},
		func(_ context.Context, _ *mcp.CallToolRequest, a struct {
			To   string `json:"to"`
			Body string `json:"body"`
		}) (*mcp.CallToolResult, any, error) {
			c.mu.Lock()
			c.sent = append(c.sent, a.To)
			c.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sent to " + a.To}}}, nil, nil
		})
	c.Server = httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(c.Close)
	return c
}

func (c *crm) lastSent() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.sent) == 0 {
		return ""
	}
	return c.sent[len(c.sent)-1]
}

const vaultEnvelope = `{
  "policy": {"name": "vault-e2e", "allow_tools": ["*"], "transforms": ["pseudonymise"],
             "vault": {"scope": "principal", "key_env": "E2E_VAULT_KEY"}},
  "identity": {"principal": [{"header": "x-mcp-principal"}]}
}`

var pseudonymPattern = regexp.MustCompile(`\b[A-Z][A-Z_]*_[A-Z2-7]{12}\b`)

// strictValidate checks structuredContent against the listed outputSchema
// with formats asserted, as strict clients do.
func strictValidate(t *testing.T, schema any, value any) error {
	t.Helper()
	c := schemav6.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("out.json", schema); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("out.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(value)
}

func TestVaultEndToEnd(t *testing.T) {
	server := startCRM(t)
	env := func(o *proxy.Options) { o.Env = map[string]string{"E2E_VAULT_KEY": "an e2e key, not a secret"} }
	p := startPlugin(t, server.URL, vaultEnvelope, env)
	ctx := ctxT(t)
	cs := connect(t, p.URL, "alice", "")

	// The listed schema no longer promises what pseudonyms cannot keep.
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var listed any
	for _, tool := range tools.Tools {
		if tool.Name == "get_customer" {
			listed = roundTrip(t, tool.OutputSchema)
		}
	}
	if listed == nil {
		t.Fatal("get_customer not listed")
	}
	// The server's schema rejects a pseudonymised record: the rewrite matters.
	if strictValidate(t, roundTrip(t, customerSchema), map[string]any{"id": "c-1", "email": "EMAIL_ABCDEFGHIJKL"}) == nil {
		t.Fatal("the original schema accepts a pseudonym: the test proves nothing")
	}

	get := func(cs *mcp.ClientSession) (*mcp.CallToolResult, string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_customer", Arguments: map[string]any{"id": "c-1"}})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(res)
		return res, string(raw)
	}
	res, raw := get(cs)
	for _, v := range []string{alice.Email, alice.Phone, alice.Card, "7946", "1111 1111"} {
		if strings.Contains(raw, v) {
			t.Errorf("the client saw %q: %s", v, raw)
		}
	}
	if err := strictValidate(t, listed, roundTrip(t, res.StructuredContent)); err != nil {
		t.Errorf("the pseudonymised result fails the listed schema: %v", err)
	}
	sc := res.StructuredContent.(map[string]any)
	email := sc["email"].(string)
	for field, label := range map[string]string{"email": "EMAIL_", "phone": "PHONE_", "card": "CREDIT_CARD_"} {
		if v, _ := sc[field].(string); !strings.HasPrefix(v, label) || !pseudonymPattern.MatchString(v) {
			t.Errorf("%s = %q, want a %s pseudonym", field, v, label)
		}
	}
	// The same value gets the same pseudonym in a later call.
	if res2, _ := get(cs); res2.StructuredContent.(map[string]any)["email"] != email {
		t.Errorf("a later call got another pseudonym for the same email")
	}

	// The model writes back with the pseudonym; the server gets the address.
	sent, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "send_email", Arguments: map[string]any{"to": email, "body": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := server.lastSent(); got != alice.Email {
		t.Errorf("server received %q, want the real address", got)
	}
	// ... and the answer, which names the address, is pseudonymised again.
	if text := sent.Content[0].(*mcp.TextContent).Text; text != "sent to "+email {
		t.Errorf("answer %q, want %q", text, "sent to "+email)
	}

	// scope: principal — bob cannot resolve alice's pseudonym.
	bob := connect(t, p.URL, "bob", "")
	if res, err := bob.CallTool(ctx, &mcp.CallToolParams{Name: "send_email", Arguments: map[string]any{"to": email, "body": "hi"}}); err != nil || res.IsError {
		t.Fatal(err, res)
	}
	if got := server.lastSent(); got != email {
		t.Errorf("bob's call reached the server with %q, want the unresolved pseudonym", got)
	}

	// A restarted proxy with the same key and the vault saved to a file
	// still resolves: the file is what `mcp-privacy serve` keeps.
	var file bytes.Buffer
	if err := hostVault(p.proxy).Export(&file, true); err != nil {
		t.Fatal(err)
	}
	p2 := startPlugin(t, server.URL, vaultEnvelope, env)
	if err := hostVault(p2.proxy).Import(&file); err != nil {
		t.Fatal(err)
	}
	again := connect(t, p2.URL, "alice", "")
	if _, err := again.CallTool(ctx, &mcp.CallToolParams{Name: "send_email", Arguments: map[string]any{"to": email, "body": "hi"}}); err != nil {
		t.Fatal(err)
	}
	if got := server.lastSent(); got != alice.Email {
		t.Errorf("after a restart the server received %q, want the real address", got)
	}
}

// hostVault is the vault as the host sees it in the proxy's shared data,
// with the key the plugin uses: what serve saves and loads.
func hostVault(p *proxy.Proxy) *vault.Vault {
	pol, errs := policy.ParseEnvelope([]byte(vaultEnvelope), policy.Options{})
	if len(errs) > 0 {
		panic(errs)
	}
	return vault.New([]byte("an e2e key, not a secret"), pol.Policy.Vault, vault.ServerKV(sharedKV{p.Host().SharedData()}, pol.Server.ID), time.Now)
}

// sharedKV adapts the host's shared data to the vault's store.
type sharedKV struct{ s *wasmhost.SharedData }

func (k sharedKV) Get(key string) ([]byte, uint32, bool) {
	v, cas, st := k.s.Get(key)
	return v, cas, st == wasmhost.StatusOK
}

func (k sharedKV) Set(key string, value []byte, cas uint32) bool {
	return k.s.Set(key, value, cas) == wasmhost.StatusOK
}

func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
