package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/policy"
)

const virtualEnvelope = `
policy:
  name: vt
  extends: standard
  allow_tools: ["*"]
  vault: {key: "virtual tools test key", scope: principal}
  roles:
    dpo: {allow_capabilities: [reveal], max_sensitivity: restricted}
  rules:
    - name: dpo-reveal
      match: {roles: [dpo]}
      allow_tools: [privacy_reveal]
    - name: notes-redacted
      match: {names: ["notes"]}
      transforms: [redact]
      transforms_mode: replace
identity:
  principal: [{header: x-mcp-principal}]
  roles: [{header: x-mcp-roles}]
gateway: {virtual_tools: true}
`

// virtualCall runs a virtual tool call and returns its structuredContent,
// or the error object when it was refused.
func virtualCall(t *testing.T, cfg *Config, req fakeRequest, name, args string) (map[string]any, map[string]any) {
	t.Helper()
	_, r := post(t, cfg, req, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"`+name+`","arguments":`+args+`}}`)
	if r.Reply == nil {
		t.Fatalf("%s not answered locally (body %s)", name, r.Body)
	}
	var msg struct {
		Result struct {
			StructuredContent map[string]any `json:"structuredContent"`
			Content           []struct{ Text string }
		}
		Error map[string]any
	}
	if err := json.Unmarshal(r.Reply.Body, &msg); err != nil {
		t.Fatalf("%s: %v", r.Reply.Body, err)
	}
	if msg.Error == nil {
		var text map[string]any
		if len(msg.Result.Content) != 1 || json.Unmarshal([]byte(msg.Result.Content[0].Text), &text) != nil {
			t.Errorf("%s: text content is not the structured content as JSON: %s", name, r.Reply.Body)
		}
	}
	return msg.Result.StructuredContent, msg.Error
}

func TestPreviewTransform(t *testing.T) {
	cfg := mustConfig(t, virtualEnvelope)
	ann := hdr("x-mcp-principal", "ann")
	tests := []struct {
		name, args   string
		wantOutput   []string // substrings of the output
		avoid        []string // never in the output
		wantIDs      string
		wantErrCode  float64
		wantBlocked  bool
		wantLabelCnt map[string]float64
	}{
		{"text under the policy's pipeline", `{"text":"mail bob@example.com, key AKIAYPKZVCGCKMHTXPVQ"}`,
			[]string{"mail EMAIL_", "[REDACTED:AWS_ACCESS_KEY]"}, []string{"bob@example.com", "AKIAYPKZ"}, `["secrets","pii"]`, 0, false,
			map[string]float64{"EMAIL": 1, "AWS_ACCESS_KEY": 1}},
		{"a tool's own pipeline", `{"text":"bob@example.com","tool":"notes"}`,
			[]string{"[REDACTED:EMAIL]"}, []string{"bob@example.com"}, `["redact"]`, 0, false, map[string]float64{"EMAIL": 1}},
		{"json tool result", `{"json":{"content":[{"type":"text","text":"bob@example.com"}],"structuredContent":{"email":"bob@example.com"}}}`,
			[]string{`"email":"EMAIL_`}, []string{"bob@example.com"}, `["secrets","pii"]`, 0, false, map[string]float64{"EMAIL": 2}},
		{"neither text nor json", `{"tool":"notes"}`, nil, nil, "", -32602, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, rpcErr := virtualCall(t, cfg, ann, "preview_transform", tc.args)
			if tc.wantErrCode != 0 {
				if rpcErr == nil || rpcErr["code"] != tc.wantErrCode {
					t.Fatalf("error %v, want code %v", rpcErr, tc.wantErrCode)
				}
				return
			}
			if rpcErr != nil {
				t.Fatalf("refused: %v", rpcErr)
			}
			out, _ := json.Marshal(st["output"])
			for _, w := range tc.wantOutput {
				if !strings.Contains(string(out), w) {
					t.Errorf("output %s lacks %q", out, w)
				}
			}
			for _, a := range tc.avoid {
				if strings.Contains(string(out), a) {
					t.Errorf("output %s has %q", out, a)
				}
			}
			if ids, _ := json.Marshal(st["transforms"]); string(ids) != tc.wantIDs {
				t.Errorf("transforms %s, want %s", ids, tc.wantIDs)
			}
			got, _ := json.Marshal(st["detections"])
			want, _ := json.Marshal(tc.wantLabelCnt)
			if string(got) != string(want) {
				t.Errorf("detections %s, want %s", got, want)
			}
		})
	}
	// Preview stores nothing: its pseudonym does not resolve afterwards.
	st, _ := virtualCall(t, cfg, ann, "preview_transform", `{"text":"zed@example.com"}`)
	p, _ := st["output"].(string)
	_, r := post(t, cfg, ann, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"send","arguments":{"to":"`+p+`"}}}`)
	if strings.Contains(string(r.Body), "zed@example.com") {
		t.Errorf("a preview pseudonym resolved: %s", r.Body)
	}
}

func TestPrivacyReveal(t *testing.T) {
	cfg := mustConfig(t, virtualEnvelope)
	dpo := hdr("x-mcp-principal", "dee", "x-mcp-roles", "dpo")
	// dee receives a pseudonym in a tool result...
	out := respond(t, cfg, dpo, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"lookup","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"owner: carol@example.com"}]}}`)
	p := pseudonymRE.FindString(out)
	if p == "" {
		t.Fatalf("no pseudonym in %s", out)
	}
	// ... and, granted reveal, resolves it.
	st, rpcErr := virtualCall(t, cfg, dpo, "privacy_reveal", `{"text":"who is `+p+`?"}`)
	if rpcErr != nil || st["text"] != "who is carol@example.com?" || st["resolved"] != float64(1) {
		t.Errorf("reveal: %v %v", st, rpcErr)
	}
	// Without the reveal capability the tool is hidden: the call goes
	// upstream as its stand-in, for the server to say it has no such tool.
	_, r := post(t, cfg, hdr("x-mcp-principal", "ann"), `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"privacy_reveal","arguments":{"text":"`+p+`"}}}`)
	if !sentAsStandIn(cfg, r, policy.KindTool, "privacy_reveal") || strings.Contains(string(r.Body), p) {
		t.Errorf("ann revealed without the capability: %v %s", r.Reply, r.Body)
	}
	// privacy_status shows pipelines and the vault, never the key.
	st, _ = virtualCall(t, cfg, dpo, "privacy_status", `{}`)
	raw, _ := json.Marshal(st)
	for _, want := range []string{`"pipelines":{"input":["depseudonymise"],"output":["secrets","pii"]}`, `"scope":"principal"`, `"key_source":"vault.key"`, `"key_fingerprint":"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("privacy_status lacks %s: %s", want, raw)
		}
	}
	if strings.Contains(string(raw), "virtual tools test key") {
		t.Errorf("privacy_status shows the key: %s", raw)
	}
}
