package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/transforms/vault"
)

const previewKey = "preview-test-vault-key-material"

// previewStandard is the standard profile with a fixed vault key, so the
// expected pseudonyms can be computed.
const previewStandard = `
extends: standard
name: std
vault: {key: "` + previewKey + `"}
`

// previewEnvelope adds rules for two tools and server metadata for a third.
const previewEnvelope = `
policy:
  extends: standard
  name: env
  vault: {key: "` + previewKey + `", scope: principal}
  rules:
    - name: export-redacts
      match: {names: [export]}
      transforms: [{type: redact, id: scrub}]
      transforms_mode: replace
    - name: billing-blocks-cards
      match: {names: [billing]}
      transforms: [{type: block, id: no_cards, options: {detectors: [credit_card]}}]
      transforms_mode: prepend # before pii pseudonymises the card
identity: {anonymous_id: nobody}
server:
  primitives:
    - match: {kinds: [tool], names: ["shell*"]}
      capabilities: [exec]
`

// previewKeyEnv reads its key from the environment only.
const previewKeyEnv = `
extends: standard
name: keyenv
vault: {key_env: MCP_PRIVACY_PREVIEW_TEST_KEY}
`

func runPreview(stdin string, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = preview(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(t *testing.T, got, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expectation: %v\n%s", err, want)
	}
	return reflect.DeepEqual(g, w)
}

func TestPreview(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"std.yaml": previewStandard, "env.yaml": previewEnvelope, "keyenv.yaml": previewKeyEnv,
		"corr.yaml": previewCorrections,
	})
	corr := filepath.Join(dir, "corr.yaml")
	std := filepath.Join(dir, "std.yaml")
	env := filepath.Join(dir, "env.yaml")
	keyEnv := filepath.Join(dir, "keyenv.yaml")

	pz := vault.NewPseudonymizer([]byte(previewKey))
	email := pz.Pseudonym("", "EMAIL", "jo@example.com")
	card := pz.Pseudonym("", "CREDIT_CARD", "4111 1111 1111 1111")
	emailAlice := pz.Pseudonym("alice", "EMAIL", "jo@example.com")
	envKey := "a-key-from-the-environment"
	emailEnvKey := vault.NewPseudonymizer([]byte(envKey)).Pseudonym("", "EMAIL", "jo@example.com")

	// "é" is two bytes: the email starts at byte 13 (rune 12).
	const text = "Café owner: jo@example.com, card 4111 1111 1111 1111\n"
	if text[13:27] != "jo@example.com" || text[34:53] != "4111 1111 1111 1111" {
		t.Fatal("test text offsets are wrong")
	}
	const result = `{"content":[{"type":"text","text":"write to jo@example.com"}],` +
		`"structuredContent":{"owner":{"email":"jo@example.com"},"card":"4111 1111 1111 1111","id":7}}`
	blocked := `{"code":-32004,"message":"Blocked by privacy policy","data":{"policy":"env","labels":["CREDIT_CARD"]}}`

	tests := []struct {
		name  string
		args  []string
		stdin string
		env   map[string]string
		// wantCode is the exit status.
		wantCode int
		// wantOut is stdout exactly; wantJSON is stdout as a JSON value.
		wantOut, wantJSON string
		// wantErr are substrings of stderr; noErr says stderr is empty.
		wantErr []string
		noErr   bool
		// notOut must not appear on stdout.
		notOut []string
	}{
		{
			name:    "text, standard profile",
			args:    []string{"--policy", std},
			stdin:   text,
			wantOut: "Café owner: " + email + ", card " + card + "\n",
			noErr:   true,
		},
		{
			name:  "text --json: byte offsets into the input",
			args:  []string{"--policy", std, "--json"},
			stdin: text,
			wantJSON: `{"output": "Café owner: ` + email + `, card ` + card + `\n", "detections": [
				{"detector": "email", "label": "EMAIL", "start": 13, "end": 27, "basis": "pattern"},
				{"detector": "credit_card", "label": "CREDIT_CARD", "start": 34, "end": 53, "basis": "pattern"}], "allowed": []}`,
			noErr: true,
		},
		{
			name:    "text without a line end is printed with one",
			args:    []string{"--policy", std},
			stdin:   "jo@example.com",
			wantOut: email + "\n",
		},
		{
			name:  "tools/call result with structuredContent",
			args:  []string{"--policy", std},
			stdin: result,
			wantOut: `{"content":[{"type":"text","text":"write to ` + email + `"}],` +
				`"structuredContent":{"owner":{"email":"` + email + `"},"card":"` + card + `","id":7}}` + "\n",
			noErr: true,
		},
		{
			name:  "tools/call result --json: detections per string, with paths",
			args:  []string{"--policy", std, "--json"},
			stdin: result,
			wantJSON: `{"output": {"content":[{"type":"text","text":"write to ` + email + `"}],
				"structuredContent":{"owner":{"email":"` + email + `"},"card":"` + card + `","id":7}},
			"detections": [
				{"path": "content.0.text", "detector": "email", "label": "EMAIL", "start": 9, "end": 23, "basis": "pattern"},
				{"path": "structuredContent.owner.email", "detector": "email", "label": "EMAIL", "start": 0, "end": 14, "basis": "pattern"},
				{"path": "structuredContent.card", "detector": "credit_card", "label": "CREDIT_CARD", "start": 0, "end": 19, "basis": "pattern"}], "allowed": []}`,
		},
		{
			name:    "a result nothing changes is printed as received, white space trimmed",
			args:    []string{"--policy", std},
			stdin:   "  {\"content\": [{\"type\": \"text\", \"text\": \"hi\"}]}\n\n",
			wantOut: `{"content": [{"type": "text", "text": "hi"}]}` + "\n",
			noErr:   true,
		},
		{
			name:    "JSON-RPC response: the result inside is transformed",
			args:    []string{"--policy", std},
			stdin:   `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"jo@example.com"}]}}`,
			wantOut: `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"` + email + `"}]}}` + "\n",
		},
		{
			name:  "bad JSON is text",
			args:  []string{"--policy", std, "--json"},
			stdin: `{"to": jo@example.com`,
			wantJSON: `{"output": "{\"to\": ` + email + `", "detections": [
				{"detector": "email", "label": "EMAIL", "start": 7, "end": 21, "basis": "pattern"}], "allowed": []}`,
			wantErr: []string{"stdin is not valid JSON", "previewing it as plain text"},
		},
		{
			name:  "--tool whose rule replaces the pipeline with redact",
			args:  []string{"--policy", env, "--tool", "export", "--json"},
			stdin: "mail jo@example.com",
			wantJSON: `{"output": "mail [REDACTED:EMAIL]", "detections": [
				{"detector": "email", "label": "EMAIL", "start": 5, "end": 19, "basis": "pattern"}], "allowed": []}`,
			noErr: true,
		},
		{
			name:    "--principal picks the vault namespace (scope principal)",
			args:    []string{"--policy", env, "--principal", "alice", "--tool", "search"},
			stdin:   "jo@example.com",
			wantOut: emailAlice + "\n",
			noErr:   true,
		},
		{
			name:     "denied tool: the denial, exit 1",
			args:     []string{"--policy", env, "--tool", "shell_run"},
			stdin:    "jo@example.com",
			wantCode: 1,
			wantOut:  "",
			wantErr: []string{
				"decision:         deny",
				`reason:           tool "shell_run" needs capability exec, which the policy denies and no matching rule grants`,
				"hidden:           true",
				"error:            -32602 Unknown tool: shell_run",
			},
		},
		{
			name:     "block: the -32004 error object, not the data",
			args:     []string{"--policy", env, "--tool", "billing"},
			stdin:    result,
			wantJSON: blocked,
			notOut:   []string{"4111", email, "jo@example.com"},
		},
		{
			name:  "block --json: output is the error, detections still listed",
			args:  []string{"--policy", env, "--tool", "billing", "--json"},
			stdin: text,
			wantJSON: `{"output": ` + blocked + `, "detections": [
				{"detector": "email", "label": "EMAIL", "start": 13, "end": 27, "basis": "pattern"},
				{"detector": "credit_card", "label": "CREDIT_CARD", "start": 34, "end": 53, "basis": "pattern"}], "allowed": []}`,
			notOut: []string{email},
		},
		{
			name:     "block in a JSON-RPC response: the error response with its id",
			args:     []string{"--policy", env, "--tool", "billing"},
			stdin:    `{"jsonrpc":"2.0","id":"r1","result":` + result + `}`,
			wantJSON: `{"jsonrpc":"2.0","id":"r1","error":` + blocked + `}`,
			notOut:   []string{"4111"},
		},
		{
			name:    "key from key_env, as the proxy reads it",
			args:    []string{"--policy", keyEnv},
			stdin:   "jo@example.com",
			env:     map[string]string{"MCP_PRIVACY_PREVIEW_TEST_KEY": envKey},
			wantOut: emailEnvKey + "\n",
			noErr:   true,
		},
		{
			name:    "no key: a random one, with a warning",
			args:    []string{"--policy", keyEnv},
			stdin:   "jo@example.com",
			env:     map[string]string{"MCP_PRIVACY_PREVIEW_TEST_KEY": ""},
			wantErr: []string{"no vault key", "MCP_PRIVACY_PREVIEW_TEST_KEY", "pseudonyms will differ from the proxy's"},
			notOut:  []string{emailEnvKey, email, "jo@example.com"},
		},
		{
			name:     "policy that does not load",
			args:     []string{"--policy", filepath.Join(dir, "missing.yaml")},
			wantCode: 1,
			wantErr:  []string{"missing.yaml", "no such file"},
		},
		{
			name:  "--json: basis dictionary, and what an allow entry took away",
			args:  []string{"--policy", corr, "--json"},
			stdin: "Acme Widgets: jo@example.com, support@example.com",
			wantJSON: `{"output": "[REDACTED:CUSTOMER]: [REDACTED:EMAIL], support@example.com", "detections": [
				{"detector": "crm", "label": "CUSTOMER", "start": 0, "end": 12, "basis": "dictionary"},
				{"detector": "email", "label": "EMAIL", "start": 14, "end": 28, "basis": "pattern"}], "allowed": [
				{"detector": "email", "label": "EMAIL", "start": 30, "end": 49, "basis": "pattern", "allowed_by": "detection.allow[0]"}]}`,
			noErr: true,
		},
		{
			name:    "--detections: the same on stderr",
			args:    []string{"--policy", corr, "--detections"},
			stdin:   "Acme Widgets: support@example.com",
			wantOut: "[REDACTED:CUSTOMER]: support@example.com\n",
			wantErr: []string{"crm CUSTOMER 0-12 by dictionary", "email EMAIL 14-33 allowed by detection.allow[0]"},
		},
		{name: "no --policy", args: []string{"--json"}, wantCode: 2, wantErr: []string{"usage: mcp-privacy preview"}},
		{name: "empty --tool", args: []string{"--policy", std, "--tool", ""}, wantCode: 2, wantErr: []string{"--tool needs a tool NAME"}},
		{name: "stray argument", args: []string{"--policy", std, "extra"}, wantCode: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			code, out, errOut := runPreview(tc.stdin, tc.args...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.wantCode, errOut)
			}
			switch {
			case tc.wantJSON != "":
				if !sameJSON(t, out, tc.wantJSON) {
					t.Errorf("stdout:\n%s\nwant the JSON:\n%s", out, tc.wantJSON)
				}
			case tc.wantCode != 0 || tc.wantOut != "":
				if out != tc.wantOut {
					t.Errorf("stdout %q, want %q", out, tc.wantOut)
				}
			}
			for _, e := range tc.wantErr {
				if !strings.Contains(errOut, e) {
					t.Errorf("stderr lacks %q:\n%s", e, errOut)
				}
			}
			if tc.noErr && errOut != "" {
				t.Errorf("unexpected stderr:\n%s", errOut)
			}
			for _, s := range tc.notOut {
				if strings.Contains(out, s) {
					t.Errorf("stdout holds %q:\n%s", s, out)
				}
			}
			// The vault key is never printed (manual 13).
			for _, k := range []string{previewKey, envKey} {
				if strings.Contains(out+errOut, k) {
					t.Errorf("printed the vault key %q", k)
				}
			}
		})
	}
}

// TestPreviewDispatch runs preview through the command line entry.
func TestPreviewDispatch(t *testing.T) {
	code, _, errOut := runCLI("preview")
	if code != 2 || !strings.Contains(errOut, "usage: mcp-privacy preview") {
		t.Errorf("preview without --policy: exit %d, stderr:\n%s", code, errOut)
	}
	code, out, _ := runCLI("help")
	if code != 0 || !strings.Contains(out, "mcp-privacy preview --policy FILE") {
		t.Errorf("help does not list preview:\n%s", out)
	}
}

const previewCorrections = `
transforms: [redact]
vault: {key: "` + previewKey + `"}
detection:
  allow: [{values: [support@example.com]}]
  dictionaries: [{name: crm, label: CUSTOMER, terms: ["Acme Widgets"]}]
`
