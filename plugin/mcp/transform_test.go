package mcp

import (
	"regexp"
	"strings"
	"testing"
)

const transformEnvelope = `
policy:
  name: tx
  transforms: [pseudonymise]
  vault: {key: "test key, not secret", scope: principal}
  roles:
    auditor: {allow_tools: ["*"]}
  rules:
    - name: secrets-blocked
      match: {names: ["shell"]}
      transforms: [{type: block, options: {detectors: ["@secrets"]}}]
      transforms_mode: prepend # block sees the result before pseudonymise
    - name: notes-redacted
      match: {names: ["notes"]}
      transforms: [redact]
      transforms_mode: replace
identity:
  principal: [{header: x-mcp-principal}]
`

var pseudonymRE = regexp.MustCompile(`[A-Z_]+_[A-Z2-7]{12,}`)

func TestTransformsOnTheWire(t *testing.T) {
	cfg := mustConfig(t, transformEnvelope)
	alice := fakeRequest{headers: map[string]string{"x-mcp-principal": "alice", "content-type": "application/json"}}
	bob := fakeRequest{headers: map[string]string{"x-mcp-principal": "bob", "content-type": "application/json"}}
	call := func(tool, args string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	}
	result := func(text string) string {
		return `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + text + `"}]}}`
	}

	// Output: the email becomes a pseudonym, the same one every time.
	out := respond(t, cfg, alice, call("lookup", `{}`), result("mail alice@example.com"))
	p := pseudonymRE.FindString(out)
	if !strings.HasPrefix(p, "EMAIL_") || strings.Contains(out, "alice@example.com") {
		t.Fatalf("not pseudonymised: %s", out)
	}
	if again := respond(t, cfg, alice, call("lookup", `{}`), result("alice@example.com")); !strings.Contains(again, p) {
		t.Errorf("a second result got another pseudonym: %s", again)
	}

	// Input: the pseudonym goes back to the server as the value.
	_, r := post(t, cfg, alice, call("send", `{"to":"`+p+`","n":1}`))
	if r.Reply != nil || !strings.Contains(string(r.Body), `"to":"alice@example.com"`) {
		t.Errorf("alice's pseudonym not resolved: %s %v", r.Body, r.Reply)
	}
	// Scope principal: bob cannot resolve alice's pseudonym.
	_, r = post(t, cfg, bob, call("send", `{"to":"`+p+`"}`))
	if r.Body != nil && !strings.Contains(string(r.Body), p) || strings.Contains(string(r.Body), "alice@example.com") {
		t.Errorf("bob resolved alice's pseudonym: %s", r.Body)
	}

	// A rule's block step turns the result into -32004.
	blocked := respond(t, cfg, alice, call("shell", `{}`), result("AKIAYPKZVCGCKMHTXPVQ"))
	if !strings.Contains(blocked, `"code":-32004`) || !strings.Contains(blocked, `"labels":["AWS_ACCESS_KEY"]`) || strings.Contains(blocked, "AKIA") {
		t.Errorf("not blocked: %s", blocked)
	}
	// transforms_mode replace: redact instead of pseudonymise.
	if got := respond(t, cfg, alice, call("notes", `{}`), result("bob@example.com")); !strings.Contains(got, "[REDACTED:EMAIL]") {
		t.Errorf("rule pipeline not used: %s", got)
	}
	// Errors are transformed too.
	errResp := `{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"no user carol@example.com"}}`
	if got := respond(t, cfg, alice, call("lookup", `{}`), errResp); strings.Contains(got, "carol@example.com") {
		t.Errorf("error message not transformed: %s", got)
	}
}

func TestUnattributedResponsesGetThePolicyPipeline(t *testing.T) {
	cfg := mustConfig(t, transformEnvelope)
	s := NewStream(cfg)
	s.OnRequestHeaders(fakeRequest{headers: map[string]string{"x-mcp-principal": "alice"}}, "GET", "/mcp", true)
	s.OnResponseHeaders(200, "text/event-stream", "", false)
	events := "data: {\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"dave@example.com\"}]}}\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"erin@example.com\"}}\n\n"
	_, edit := s.OnResponseBody(len(events), false, func() []byte { return []byte(events) })
	got := string(edit.Data)
	if !edit.Replace || strings.Contains(got, "dave@example.com") || strings.Contains(got, "erin@example.com") {
		t.Errorf("unattributed messages went out raw: %q", got)
	}
}

// Transforms act on whole events, however the stream is cut: a value split
// across two chunks, or a chunk boundary inside a multi-byte character,
// gives exactly the result of the unsplit stream.
func TestTransformsOnEventsSplitAnywhere(t *testing.T) {
	cfg := mustConfig(t, transformEnvelope)
	alice := fakeRequest{headers: map[string]string{"x-mcp-principal": "alice", "content-type": "application/json"}}
	stream := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"naïve → carol@example.com\"}}\n\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"café alice@example.com ☕\"}]}}\n\n"
	run := func(chunks ...string) string {
		s, r := post(t, cfg, alice, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"lookup","arguments":{}}}`)
		if r.Reply != nil {
			t.Fatalf("answered locally: %s", r.Reply.Body)
		}
		s.OnResponseHeaders(200, "text/event-stream", "", false)
		var out []byte
		for i, c := range chunks {
			_, edit := s.OnResponseBody(len(c), i == len(chunks)-1, func() []byte { return []byte(c) })
			if edit.Replace {
				out = append(out, edit.Data...)
			} else {
				out = append(out, c...)
			}
		}
		return string(out)
	}
	want := run(stream)
	if strings.Contains(want, "alice@example.com") || strings.Contains(want, "carol@example.com") || !strings.Contains(want, "café EMAIL_") {
		t.Fatalf("unsplit stream not transformed: %q", want)
	}
	for split := 1; split < len(stream); split++ {
		if got := run(stream[:split], stream[split:]); got != want {
			t.Fatalf("split at byte %d (%q|%q):\n got %q\nwant %q", split, stream[max(0, split-3):split], stream[split:min(len(stream), split+3)], got, want)
		}
	}
}

// A blocked server request keeps its id and becomes a method no client
// implements: the client answers "method not found" and the server's
// request ends, instead of waiting for an answer that never comes.
func TestBlockedServerRequestIsAnswerable(t *testing.T) {
	cfg := mustConfig(t, `
policy:
  name: blk
  transforms: [{type: block, options: {detectors: ["@secrets"]}}]
identity:
  principal: [{header: x-mcp-principal}]
`)
	s := NewStream(cfg)
	s.OnRequestHeaders(fakeRequest{headers: map[string]string{"x-mcp-principal": "alice"}}, "GET", "/mcp", true)
	s.OnResponseHeaders(200, "text/event-stream", "", false)
	events := "data: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"key AKIAYPKZVCGCKMHTXPVQ\"}}],\"maxTokens\":10}}\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"AKIAYPKZVCGCKMHTXPVQ\"}}\n\n"
	_, edit := s.OnResponseBody(len(events), false, func() []byte { return []byte(events) })
	got := string(edit.Data)
	for _, want := range []string{`"id":"s1","method":"mcp-privacy/withheld"`, `"labels":["AWS_ACCESS_KEY"]`, `"method":"notifications/message","params":{"level":"warning"`} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %s: %s", want, got)
		}
	}
	if strings.Contains(got, "AKIA") {
		t.Errorf("the secret went out: %s", got)
	}
}
