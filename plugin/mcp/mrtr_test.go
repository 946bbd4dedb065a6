package mcp

import (
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// mrtrEnvelope gives the crm_* tools and prompts an output pipeline of
// their own (pseudonymise) and everything else the policy's (redact), so
// a test tells which pipeline read a string; arguments and client answers
// lose their secrets on the way in.
const mrtrEnvelope = `
policy:
  name: p
  transforms: [redact]
  input_transforms: [{type: redact, options: {detectors: ["@secrets"]}}]
  vault: {key: "mrtr test key, not secret"}
  deny_tools: ["secret_*"]
  hide_denied: false
  rules:
    - name: crm
      match: {names: ["crm_*"]}
      transforms: [pseudonymise]
      transforms_mode: replace
identity:
  principal: [{header: x-mcp-principal}]
gateway: {virtual_tools: false, hold_headers: true}
`

// awsKey is a secret the input pipeline redacts.
const awsKey = "AKIAYPKZVCGCKMHTXPVQ"

var emailPseudonymRE = regexp.MustCompile(`EMAIL_[A-Z2-7]{12}`)

// pseudonymOf issues, through the crm tool's output pipeline, the
// pseudonym of an address, as a client would have got it.
func pseudonymOf(t *testing.T, cfg *Config, who fakeRequest, email string) string {
	t.Helper()
	got := respond2026(t, cfg, who, call("90", "tools/call", `{"name":"crm_lookup"}`),
		`{"jsonrpc":"2.0","id":90,"result":{"content":[{"type":"text","text":"`+email+`"}]}}`)
	p := emailPseudonymRE.FindString(got)
	if p == "" {
		t.Fatalf("no pseudonym in %s", got)
	}
	return p
}

// inputRequired is an InputRequiredResult whose server requests and
// requestState hold an address, and whose own _meta holds another.
const inputRequired = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required",` +
	`"inputRequests":{"contact":{"method":"elicitation/create","params":{"mode":"form","message":"Confirm alice@example.com?",` +
	`"requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean","description":"mail bob@example.com"}}}}},` +
	`"summary":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Write to carol@example.com"}}],"maxTokens":10}}},` +
	`"requestState":"c3RhdGU6YWxpY2VAZXhhbXBsZS5jb20=.alice@example.com\u00e9",` +
	`"_meta":{"note":"dave@example.com"}}}`

// TestInputRequiredResult: the server requests of an InputRequiredResult
// get the pipeline server requests get (the policy's redact), not the
// call's output pipeline (crm_*: pseudonymise), which the rest of the
// result gets; requestState passes byte for byte, whatever it holds.
// Regression (issue 13): inputRequests reached the client untransformed.
func TestInputRequiredResult(t *testing.T) {
	cfg := mustConfig(t, mrtrEnvelope)
	ann := hdr("x-mcp-principal", "ann")
	requestState := `"c3RhdGU6YWxpY2VAZXhhbXBsZS5jb20=.alice@example.com\u00e9"`
	for _, c := range []struct {
		name, request string
		ownPipeline   bool // the result's own members get pseudonymise
	}{
		{"tools/call", call("1", "tools/call", `{"name":"crm_lookup","arguments":{}}`), true},
		{"prompts/get", call("1", "prompts/get", `{"name":"crm_prompt"}`), true},
		{"resources/read", call("1", "resources/read", `{"uri":"file:///notes"}`), false},
		{"a method the table does not know", call("1", "custom/ask", `{}`), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := respond2026(t, cfg, ann, c.request, inputRequired)
			var out struct {
				Result struct {
					InputRequests map[string]struct {
						Method string
						Params json.RawMessage
					}
					RequestState string
					Meta         map[string]string `json:"_meta"`
				}
			}
			if err := json.Unmarshal([]byte(got), &out); err != nil {
				t.Fatalf("%v: %s", err, got)
			}
			r := out.Result
			for key, want := range map[string]string{"contact": "[REDACTED:EMAIL]", "summary": "Write to [REDACTED:EMAIL]"} {
				p := string(r.InputRequests[key].Params)
				if !strings.Contains(p, want) || strings.Contains(p, "@example.com") || emailPseudonymRE.MatchString(p) {
					t.Errorf("inputRequests[%s] not read as a server request: %s", key, p)
				}
			}
			if !strings.Contains(string(r.InputRequests["contact"].Params), `"mail [REDACTED:EMAIL]"`) {
				t.Errorf("the requested schema's text not read: %s", r.InputRequests["contact"].Params)
			}
			if r.InputRequests["contact"].Method != "elicitation/create" || r.InputRequests["summary"].Method != "sampling/createMessage" {
				t.Errorf("methods changed: %s", got)
			}
			if !strings.Contains(got, `"requestState":`+requestState+`,`) {
				t.Errorf("requestState not passed byte for byte: %s", got)
			}
			note := r.Meta["note"]
			if c.ownPipeline != emailPseudonymRE.MatchString(note) || strings.Contains(note, "@") {
				t.Errorf("result's own _meta: %q (the call's output pipeline pseudonymises: %v)", note, c.ownPipeline)
			}
		})
	}
}

// TestInputResponses: a retry's inputResponses get the retried call's
// input pipeline, as its arguments do: pseudonyms restored, secrets
// redacted; its requestState goes upstream byte for byte; the retry is
// judged like any call (a denied tool stays denied). A retry of a method
// that names no primitive gets the policy-level input pipeline.
// Regression (issue 13): inputResponses reached the server with
// pseudonyms unrestored and secrets unredacted.
func TestInputResponses(t *testing.T) {
	cfg := mustConfig(t, mrtrEnvelope)
	ann := hdr("x-mcp-principal", "ann")
	p := pseudonymOf(t, cfg, ann, "alice@example.com")
	responses := `"inputResponses":{"contact":{"action":"accept","content":{"email":"` + p + `","token":"` + awsKey + `"}},` +
		`"summary":{"role":"assistant","content":{"type":"text","text":"Dear ` + p + `"},"model":"m","stopReason":"endTurn"}},` +
		`"requestState":"opaque ` + p + ` ` + awsKey + `"`
	for _, c := range []struct {
		name, request string
		restored      bool // pseudonyms restored (a primitive's input pipeline)
	}{
		{"tools/call", call("2", "tools/call", `{"name":"crm_lookup","arguments":{"who":"`+p+`"},`+responses+`}`), true},
		{"prompts/get", call("2", "prompts/get", `{"name":"crm_prompt","arguments":{"who":"`+p+`"},`+responses+`}`), true},
		{"resources/read", call("2", "resources/read", `{"uri":"file:///notes",`+responses+`}`), true},
		{"a method no primitive", call("2", "custom/ask", `{`+responses+`}`), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, r := post2026(t, cfg, ann, c.request)
			if r.Reply != nil {
				t.Fatalf("answered locally: %s", r.Reply.Body)
			}
			var body struct {
				Params struct {
					InputResponses json.RawMessage
					RequestState   string
				}
			}
			if err := json.Unmarshal(r.Body, &body); err != nil {
				t.Fatalf("%v: %s", err, r.Body)
			}
			ir := string(body.Params.InputResponses)
			if strings.Contains(ir, awsKey) || !strings.Contains(ir, "[REDACTED:AWS_ACCESS_KEY]") {
				t.Errorf("secret not redacted: %s", ir)
			}
			if c.restored && (strings.Contains(ir, p) || strings.Count(ir, "alice@example.com") != 2) {
				t.Errorf("pseudonyms not restored: %s", ir)
			}
			if !strings.Contains(ir, `"action":"accept"`) || !strings.Contains(ir, `"stopReason":"endTurn"`) {
				t.Errorf("structural values changed: %s", ir)
			}
			if want := "opaque " + p + " " + awsKey; body.Params.RequestState != want {
				t.Errorf("requestState %q, want %q", body.Params.RequestState, want)
			}
		})
	}
	// The retry is judged as the first request was.
	_, r := post2026(t, cfg, ann, call("3", "tools/call", `{"name":"secret_tool",`+responses+`}`))
	if r.Reply == nil || !strings.Contains(string(r.Reply.Body), `"code":-32003`) {
		t.Errorf("retry of a denied tool: %+v", r)
	}
}

// TestEvery2026SchemaMessageThroughTheFilter: the 2026-07-28 samples of
// the transforms package (with their markers, see
// transforms/structural_test.go), an email in every data position,
// through the whole filter: as the answer to a request (a task's results
// to a tasks request naming it by a handle), as server notifications, and
// as MRTR retries (the forwarded request). No email comes out where the
// schema puts data; structural values come out as they went in, but a
// taskId, which the client gets as a sealed handle.
func TestEvery2026SchemaMessageThroughTheFilter(t *testing.T) {
	cfg := mustConfig(t, `
policy: {name: p, transforms: [redact], input_transforms: [redact], vault: {key: "k"}}
identity: {principal: [{header: x-mcp-principal}]}
gateway: {virtual_tools: false, hold_headers: true}
`)
	ann := hdr("x-mcp-principal", "ann")
	tr, err := cfg.transforms()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../../transforms/testdata/mcp_messages_2026.json")
	if err != nil {
		t.Fatal(err)
	}
	var list []struct {
		Answers string          `json:"answers"`
		Message json.RawMessage `json:"message"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	for i, sm := range list {
		var v any
		if err := json.Unmarshal(sm.Message, &v); err != nil {
			t.Fatal(err)
		}
		keep, data := map[string]string{}, map[string]bool{}
		v = plantMarked(v, "", keep, data)
		msg, _ := json.Marshal(v)
		t.Run(strconv.Itoa(i)+" "+sm.Answers, func(t *testing.T) {
			var got string
			switch sm.Answers {
			case "":
				events := eventData(getStream(t, cfg, string(msg)))
				if len(events) != 1 {
					t.Fatalf("events %q", events)
				}
				got = events[0]
			case "retry":
				_, r := post2026(t, cfg, ann, string(msg))
				if r.Reply != nil {
					t.Fatalf("answered locally: %s", r.Reply.Body)
				}
				got = string(msg)
				if r.Body != nil {
					got = string(r.Body)
				}
			default:
				id, _ := json.Marshal(v.(map[string]any)["id"])
				request := requestFor(sm.Answers, string(id))
				if isTaskMethod(sm.Answers) {
					handle := tr.tasks.seal(taskRef{method: "tools/call", name: "search", id: "t"}, cfg.Env.Server.ID, "ann")
					request = call(string(id), sm.Answers, `{"taskId":"`+handle+`"}`)
				}
				got = respond2026(t, cfg, ann, request, string(msg))
			}
			// A result's taskId is the client's sealed handle; its
			// cacheScope is private (issue 32, item 4).
			checkPlanted(t, got, data, keep, func(t *testing.T, path string, g any) bool {
				if strings.HasSuffix(path, "\x00result\x00cacheScope") {
					if g != "private" {
						t.Errorf("%q: %v, want private", path, g)
					}
					return true
				}
				if !strings.HasSuffix(path, "\x00result\x00taskId") {
					return false
				}
				if s, _ := g.(string); !isTaskHandle(s) {
					t.Errorf("%q: %v is no task handle", path, g)
				}
				return true
			})
		})
	}
}
