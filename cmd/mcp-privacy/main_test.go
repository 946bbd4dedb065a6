package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// writeFiles writes name -> content into a temporary directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

const basePolicy = `
name: base
deny_tools: [drop_table]
vault: {key: "super-secret-key-material"}
rules:
  - name: base-rule
    match: {roles: [ops]}
    allow_tools: [drop_table]
`

const childPolicy = `
extends: base.yaml
name: child
hide_denied: false
roles:
  analyst:
    allow_tools: [search]
    rate_limits: [{rate: 5, scope: principal}]
rate_limits: [{rate: 100, per: hour, scope: global, kinds: [tool]}]
transforms: [{type: pseudonymise, id: pii, options: {detectors: ["@pii"]}}]
input_transforms: [{type: redact, id: secrets_in, options: {detectors: ["@secrets"]}}]
`

func TestPolicyCheck(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"base.yaml":  basePolicy,
		"child.yaml": childPolicy,
		"bad.yaml": `
rules:
  - match: {kinds: [tools]}
rate_limits: [{rate: 0}]
audit_size: -1
`,
		"cycle-a.yaml": "extends: cycle-b.yaml\n",
		"cycle-b.yaml": "extends: cycle-a.yaml\n",
	})
	tests := []struct {
		file       string
		wantCode   int
		wantOut    string
		wantErrors []string
	}{
		{file: "child.yaml", wantCode: 0, wantOut: "ok\n"},
		{file: "bad.yaml", wantCode: 1, wantErrors: []string{
			`audit_size: want integer >= 0, got -1`,
			`rules[0].match.kinds[0]: unknown kind "tools" (want tool, resource, resource_template, prompt)`,
			`rate_limits[0].rate: want number > 0, got 0`,
		}},
		{file: "cycle-a.yaml", wantCode: 1, wantErrors: []string{"extends cycle"}},
		{file: "missing.yaml", wantCode: 1, wantErrors: []string{"no such file"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			code, out, errOut := runCLI("policy", "check", filepath.Join(dir, tc.file))
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.wantCode, errOut)
			}
			if tc.wantOut != "" && out != tc.wantOut {
				t.Errorf("stdout %q, want %q", out, tc.wantOut)
			}
			for _, e := range tc.wantErrors {
				if !strings.Contains(errOut, e) {
					t.Errorf("stderr lacks %q:\n%s", e, errOut)
				}
			}
		})
	}
}

func TestPolicyFlattenNeverPrintsKey(t *testing.T) {
	dir := writeFiles(t, map[string]string{"base.yaml": basePolicy, "child.yaml": childPolicy})
	code, out, errOut := runCLI("policy", "flatten", filepath.Join(dir, "child.yaml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out+errOut, "super-secret") {
		t.Fatal("flatten printed the vault key")
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("flatten output is not JSON: %v\n%s", err, out)
	}
	if _, ok := doc["extends"]; ok {
		t.Error("flattened policy still has extends")
	}
	if doc["name"] != "child" || !reflect.DeepEqual(doc["deny_tools"], []any{"drop_table"}) {
		t.Errorf("flattened policy lost merged fields: %v", doc)
	}
	// The flattened policy checks on its own and describes the same rules.
	flat := filepath.Join(dir, "flat.json")
	if err := os.WriteFile(flat, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI("policy", "check", flat); code != 0 {
		t.Fatalf("flattened policy does not check: %s", errOut)
	}
}

func TestPolicyDescribe(t *testing.T) {
	dir := writeFiles(t, map[string]string{"base.yaml": basePolicy, "child.yaml": childPolicy})
	file := filepath.Join(dir, "child.yaml")
	code, out, errOut := runCLI("policy", "describe", "--json", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "super-secret") {
		t.Fatal("describe printed the vault key")
	}
	var d struct {
		Name  string
		Rules []struct{ Name, From string }
		Vault struct {
			KeySource      string `json:"key_source"`
			KeyFingerprint string `json:"key_fingerprint"`
		}
		Transforms []struct{ ID string }
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("describe --json is not JSON: %v", err)
	}
	var names []string
	for _, r := range d.Rules {
		names = append(names, r.Name+"@"+r.From)
	}
	want := []string{"role:analyst@roles.analyst", "base-rule@rules[0]"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("rules %v, want %v", names, want)
	}
	if d.Vault.KeySource != "vault.key" || len(d.Vault.KeyFingerprint) != 12 {
		t.Errorf("vault summary %+v, want source vault.key and a 12-hex fingerprint", d.Vault)
	}
	code, text, _ := runCLI("policy", "describe", file)
	if code != 0 || !strings.Contains(text, `policy "child"`) || !strings.Contains(text, d.Vault.KeyFingerprint) {
		t.Errorf("text describe:\n%s", text)
	}
}

func TestExplainJSON(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"base.yaml":  basePolicy,
		"child.yaml": childPolicy,
		"envelope.yaml": `
policy: {extends: standard, name: env}
identity: {anonymous_id: nobody}
server:
  require_known: true
  primitives:
    - match: {kinds: [tool], names: ["shell*"]}
      capabilities: [exec]
      category: ops
`,
	})
	child := filepath.Join(dir, "child.yaml")
	env := filepath.Join(dir, "envelope.yaml")
	tests := []struct {
		name string
		args []string
		want explanation
		// wantErrorData is the expected error data as JSON ("" = none).
		wantErrorData string
	}{
		{
			name: "granted by role, with limits and pipelines",
			args: []string{"--policy", child, "--principal", "alice", "--roles", "analyst", "--tool", "search"},
			want: explanation{Decision: "allow", Rule: "role:analyst",
				Reason:          `tool "search" is granted by rule "role:analyst" (allow_tools)`,
				Transforms:      []string{"pii"},
				InputTransforms: []string{"secrets_in", "depseudonymise"},
				RateLimits: []string{
					"rate_limits[0]: 100/hour burst 100 per global",
					"roles.analyst.rate_limits[0]: 5/minute burst 5 per principal [alice]",
				}},
		},
		{
			name: "visible denial from the parent's deny list",
			args: []string{"--policy", child, "--principal", "bob", "--tool", "drop_table"},
			want: explanation{Decision: "deny", Rule: "policy",
				Reason:     `tool "drop_table" is in the policy's deny_tools and no matching rule grants it`,
				Transforms: []string{}, InputTransforms: []string{}, RateLimits: []string{}},
			wantErrorData: `{"policy":"child","rule":"policy","reason":"tool \"drop_table\" is in the policy's deny_tools and no matching rule grants it","kind":"tool","name":"drop_table"}`,
		},
		{
			name: "parent's rule grants for its role",
			args: []string{"--policy", child, "--principal", "carol", "--roles", "ops", "--tool", "drop_table"},
			want: explanation{Decision: "allow", Rule: "base-rule",
				Reason:          `tool "drop_table" is granted by rule "base-rule" (allow_tools)`,
				Transforms:      []string{"pii"},
				InputTransforms: []string{"secrets_in", "depseudonymise"},
				RateLimits:      []string{"rate_limits[0]: 100/hour burst 100 per global"}},
		},
		{
			name: "envelope metadata: exec capability denied, hidden",
			args: []string{"--policy", env, "--tool", "shell_run"},
			want: explanation{Decision: "deny", Rule: "policy", Hidden: true,
				Reason:     `tool "shell_run" needs capability exec, which the policy denies and no matching rule grants`,
				Transforms: []string{}, InputTransforms: []string{}, RateLimits: []string{}},
		},
		{
			name: "require_known denies a primitive nobody describes",
			args: []string{"--policy", env, "--prompt", "greet"},
			want: explanation{Decision: "deny", Rule: "server.require_known", Hidden: true,
				Reason:     `prompt "greet" has no metadata from any source and server.require_known is set`,
				Transforms: []string{}, InputTransforms: []string{}, RateLimits: []string{}},
		},
		{
			name: "flags supply metadata: sensitivity above the standard ceiling",
			args: []string{"--policy", env, "--template", "cloudg://assets/{+ref}", "--sensitivity", "restricted", "--category", "assets"},
			want: explanation{Decision: "deny", Rule: "policy", Hidden: true,
				Reason:     `resource_template "cloudg://assets/{+ref}" has sensitivity restricted, above the ceiling confidential set by the policy`,
				Transforms: []string{}, InputTransforms: []string{}, RateLimits: []string{}},
			wantErrorData: `{"uri":"cloudg://assets/{+ref}"}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(append([]string{"explain", "--json"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var raw map[string]json.RawMessage
			if err := json.Unmarshal([]byte(out), &raw); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			keys := []string{}
			for k := range raw {
				keys = append(keys, k)
			}
			if len(keys) != 8 {
				t.Errorf("keys %v, want exactly decision, rule, reason, hidden, error, transforms, input_transforms, rate_limits", keys)
			}
			var got explanation
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			gotError := got.Error
			got.Error, tc.want.Error = nil, nil
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			if tc.want.Decision == "allow" {
				if string(raw["error"]) != "null" {
					t.Errorf("allowed call has error %s", raw["error"])
				}
				return
			}
			if gotError == nil {
				t.Fatal("denied call has no error")
			}
			if tc.wantErrorData != "" {
				var rawError struct{ Data json.RawMessage }
				if err := json.Unmarshal(raw["error"], &rawError); err != nil {
					t.Fatal(err)
				}
				var data bytes.Buffer
				if err := json.Compact(&data, rawError.Data); err != nil {
					t.Fatal(err)
				}
				if data.String() != tc.wantErrorData {
					t.Errorf("error data %s, want %s", data.String(), tc.wantErrorData)
				}
			}
		})
	}
}

func TestExplainHiddenErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{"p.yaml": "deny_tools: [t]\ndeny_prompts: [p]\ndeny_resources: ['file:///*']\n"})
	file := filepath.Join(dir, "p.yaml")
	tests := []struct {
		args        []string
		wantCode    int
		wantMessage string
	}{
		{[]string{"--tool", "t"}, -32602, "Unknown tool: t"},
		{[]string{"--prompt", "p"}, -32602, "Unknown prompt: p"},
		{[]string{"--resource", "file:///etc/passwd"}, -32002, "Resource not found"},
	}
	for _, tc := range tests {
		code, out, errOut := runCLI(append([]string{"explain", "--json", "--policy", file}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut)
		}
		var got explanation
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if !got.Hidden || got.Error == nil || got.Error.Code != tc.wantCode || got.Error.Message != tc.wantMessage {
			t.Errorf("%v: got hidden=%v error=%+v, want %d %q", tc.args, got.Hidden, got.Error, tc.wantCode, tc.wantMessage)
		}
	}
}

// explain judges a tool or prompt name in every reading a server may make
// of it, as the plugin does (manual 6.7): a spelling beyond ASCII of a
// denied name is denied, hidden under the name given; an envelope's
// server.primitives give a reading its metadata.
func TestExplainNameReadings(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"p.yaml":        "hide_denied: false\ndeny_tools: [drop_table]\ndeny_prompts: [internal]\ndeny_capabilities: [exec]\n",
		"h.yaml":        "deny_tools: [drop_table]\n",
		"envelope.yaml": "policy: {extends: p.yaml}\nserver:\n  primitives:\n    - match: {kinds: [tool], names: [run_shell]}\n      capabilities: [exec]\n",
	})
	tests := []struct {
		file, flag, name string
		allowed, hidden  bool
		reason           string
	}{
		{"p.yaml", "--tool", "ｄrop_table", false, false, `which a server may read as \"drop_table\"`},
		{"p.yaml", "--tool", "drop＿table", false, false, `read as \"drop_table\"`},
		{"p.yaml", "--prompt", "ｉnternal", false, false, `read as \"internal\"`},
		{"p.yaml", "--tool", "Drop_table", true, false, ""},
		{"p.yaml", "--tool", "ｓearch", true, false, ""},
		{"h.yaml", "--tool", "ｄrop_table", false, true, ""},
		{"envelope.yaml", "--tool", "ｒun_shell", false, false, `read as \"run_shell\", needs capability exec`},
		{"envelope.yaml", "--tool", "run_shell2", true, false, ""},
	}
	for _, tc := range tests {
		code, out, errOut := runCLI("explain", "--json", "--policy", filepath.Join(dir, tc.file), tc.flag, tc.name)
		if code != 0 {
			t.Fatalf("%s %s: exit %d: %s", tc.flag, tc.name, code, errOut)
		}
		var got explanation
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if (got.Decision == "allow") != tc.allowed || got.Hidden != tc.hidden || !strings.Contains(out, tc.reason) {
			t.Errorf("%s %s %s: %s", tc.file, tc.flag, tc.name, out)
		}
		if tc.hidden && (got.Error == nil || got.Error.Message != "Unknown tool: "+tc.name) {
			t.Errorf("%s %s: hidden error %+v, want it to name %q", tc.flag, tc.name, got.Error, tc.name)
		}
	}
}

// explain shows what an allowed name beyond ASCII runs under, as the
// plugin runs it (issue 32, item 3): the rules of its readings (the
// project step of export_customers's rule) and the buckets of its
// readings of ASCII characters beside its own.
func TestExplainNameReadingsRules(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"p.yaml": "rules:\n  - name: exports\n    match: {names: [export_customers]}\n" +
			"    transforms: [{type: project, options: {exclude: [salary]}}]\n    rate_limits: [{rate: 2, per: hour}]\n",
	})
	for _, name := range []string{"ｅxport_customers", "export_cuſtomers", "export\u00ad_customers"} {
		code, out, errOut := runCLI("explain", "--json", "--policy", filepath.Join(dir, "p.yaml"), "--principal", "ann", "--tool", name)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		var got explanation
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if got.Decision != "allow" || !slices.Contains(got.Transforms, "project") ||
			!slices.Contains(got.RateLimits, "rules[0].rate_limits[0]: 2/hour burst 2 per principal_tool [ann | tool:export_customers]") ||
			!slices.Contains(got.RateLimits, "rules[0].rate_limits[0]: 2/hour burst 2 per principal_tool [ann | tool:"+name+"]") {
			t.Errorf("%s: %s", name, out)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{"p.yaml": "name: p\n"})
	file := filepath.Join(dir, "p.yaml")
	tests := [][]string{
		{},
		{"policy"},
		{"policy", "check"},
		{"bogus"},
		{"explain", "--policy", file},
		{"explain", "--policy", file, "--tool", "a", "--prompt", "b"},
		{"explain", "--policy", file, "--tool", "a", "--sensitivity", "secret"},
		{"explain", "--policy", file, "--tool", "a", "--capabilities", "fly"},
	}
	for _, args := range tests {
		if code, _, _ := runCLI(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestExplainText(t *testing.T) {
	code, out, errOut := runCLI("explain", "--policy", "../../testdata/policies/example.yaml",
		"--principal", "alice", "--roles", "analyst", "--tool", "get_customer")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"decision:         allow", "rule:             role:analyst", "transforms:       secrets, pii, project"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
