package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// demoPolicy is the demo envelope, absolute so test files written to a
// temporary directory can name it.
func demoPolicy(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../../testdata/policies/demo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func writeTestFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	f := filepath.Join(dir, name)
	if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

var summaryLine = regexp.MustCompile(`(?m)^\d+ passed, \d+ failed\n\z`)

// TestPolicyTestExamples: the test files of testdata/policies pass (make
// test runs them through this test).
func TestPolicyTestExamples(t *testing.T) {
	code, out, errOut := runCLI("policy", "test", "../../testdata/policies")
	if code != 0 || !strings.HasSuffix(out, " passed, 0 failed\n") || errOut != "" {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	if strings.Count(out, "\nok   ") < 15 {
		t.Errorf("fewer tests than the examples hold:\n%s", out)
	}
}

// TestPolicyTestFailure: one wrong expectation fails its test alone,
// names it, shows the difference and exits 1; the summary ends the output.
func TestPolicyTestFailure(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, test string
		diff       []string
	}{
		{"decision", `
  - name: support may delete customers
    caller: {principal: ann, roles: [support]}
    call: {tool: delete_customer}
    expect: {decision: allow}`,
			[]string{`decision: want allow, got hidden (rule "role:support"`}},
		{"output", `
  - name: support sees the address
    caller: {principal: ann, roles: [support]}
    call: {tool: get_customer}
    result: {structuredContent: {email: alice@example.com}}
    expect: {decision: allow, output: {structuredContent: {email: "*@example.com"}}}`,
			[]string{`output.structuredContent.email: want "*@example.com", got "EMAIL_`}},
		{"extra member", `
  - name: only the email
    caller: {principal: ann, roles: [support]}
    call: {tool: get_customer}
    result: {structuredContent: {email: alice@example.com, plan: Gold}}
    expect: {decision: allow, output: {structuredContent: {email: "EMAIL_*"}}}`,
			[]string{`output.structuredContent.plan: want nothing, got "Gold"`}},
		{"not_contains", `
  - name: the plan never shows
    caller: {principal: ann, roles: [support]}
    call: {tool: get_customer}
    result: {structuredContent: {email: alice@example.com, plan: Gold}}
    expect: {decision: allow, not_contains: [Gold]}`,
			[]string{`not_contains: the output contains "Gold"`}},
		{"code", `
  - name: hidden tools answer access denied
    caller: {principal: ann, roles: [support]}
    call: {tool: delete_customer}
    expect: {decision: hidden, code: -32003}`,
			[]string{`code: want -32003, got -32602 "Unknown tool: delete_customer"`}},
		{"rule", `
  - name: admin by the policy
    caller: {principal: root, roles: [admin]}
    call: {tool: delete_customer}
    expect: {decision: allow, rule: policy}`,
			[]string{`rule: want "policy", got "role:admin"`}},
		{"transforms", `
  - name: no transforms
    call: {tool: echo}
    expect: {decision: allow, transforms: []}`,
			[]string{`transforms: want [], got [secrets, pii]`}},
	} {
		f := writeTestFile(t, dir, "x_test.yaml", "policy: "+demoPolicy(t)+`
tests:
  - name: echo for all
    call: {tool: echo}
    expect: {decision: allow}`+c.test+"\n")
		code, out, errOut := runCLI("policy", "test", f)
		if code != 1 || errOut != "" || !summaryLine.MatchString(out) || !strings.HasSuffix(out, "1 passed, 1 failed\n") {
			t.Errorf("%s: exit %d, stderr %q, stdout:\n%s", c.name, code, errOut, out)
			continue
		}
		if !strings.Contains(out, "ok   "+f+": echo for all\n") || !strings.Contains(out, "FAIL "+f+": ") {
			t.Errorf("%s: the tests are not named:\n%s", c.name, out)
		}
		for _, d := range c.diff {
			if !strings.Contains(out, d) {
				t.Errorf("%s: no %q in:\n%s", c.name, d, out)
			}
		}
	}
}

// TestPolicyTestInvalidFile: a file that cannot run exits 2 with an error
// naming the file, the test and the JSON path, and the other files still run.
func TestPolicyTestInvalidFile(t *testing.T) {
	dir := t.TempDir()
	head := "policy: " + demoPolicy(t) + "\ntests:\n"
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"bad decision", head + "  - name: one\n    call: {tool: echo}\n    expect: {decision: allowed}\n",
			[]string{`test "one"`, "$.tests[0].expect.decision", `want allow, deny, hidden or refused, got "allowed"`}},
		{"two targets", head + "  - name: ok\n    call: {tool: echo}\n    expect: {decision: allow}\n  - name: two\n    call: {tool: echo, prompt: p}\n    expect: {decision: allow}\n",
			[]string{`test "two"`, "$.tests[1].call", "exactly one of tool, resource, prompt"}},
		{"unknown key", head + "  - name: typo\n    call: {tool: echo}\n    expct: {decision: allow}\n",
			[]string{`test "typo"`, "$.tests[0].expct", "unknown key"}},
		{"output without result", head + "  - name: out\n    call: {tool: echo}\n    expect: {decision: allow, output: {content: []}}\n",
			[]string{`test "out"`, "$.tests[0].result", "missing"}},
		{"no name", head + "  - call: {tool: echo}\n    expect: {decision: allow}\n",
			[]string{"$.tests[0].name", "missing"}},
		{"same name", head + "  - {name: a, call: {tool: echo}, expect: {decision: allow}}\n  - {name: a, call: {tool: echo}, expect: {decision: allow}}\n",
			[]string{`test "a"`, "$.tests[1].name", "a second test"}},
		{"code not integer", head + "  - {name: c, call: {tool: echo}, expect: {decision: deny, code: x}}\n",
			[]string{`test "c"`, "$.tests[0].expect.code", "integer"}},
		{"no policy", "tests:\n  - {name: a, call: {tool: echo}, expect: {decision: allow}}\n",
			[]string{"$.policy", "missing"}},
		{"policy does not load", "policy: nowhere.yaml\ntests:\n  - {name: a, call: {tool: echo}, expect: {decision: allow}}\n",
			[]string{"$.policy", "nowhere.yaml"}},
		{"bad catalog", head[:len(head)-len("tests:\n")] + "catalog: " + demoPolicy(t) + "\ntests:\n  - {name: a, call: {tool: echo}, expect: {decision: allow}}\n",
			[]string{"$.catalog", "none of tools"}},
		{"claims without jwt", "policy: " + filepath.Join(filepath.Dir(demoPolicy(t)), "example.yaml") +
			"\ntests:\n  - {name: c, caller: {claims: {sub: x}}, call: {tool: echo}, expect: {decision: allow}}\n",
			[]string{`test "c"`, "$.tests[0].caller.claims", "envelope"}},
		{"not YAML", "policy: [\n", []string{"$: YAML"}},
	} {
		f := writeTestFile(t, dir, "bad_test.yaml", c.body)
		good := writeTestFile(t, dir, "good_test.yaml", head+"  - {name: fine, call: {tool: echo}, expect: {decision: allow}}\n")
		code, out, _ := runCLI("policy", "test", f, good)
		if code != 2 || !strings.Contains(out, "ERROR "+f+": ") || !strings.Contains(out, "ok   "+good+": fine") ||
			!strings.HasSuffix(out, "1 passed, 0 failed\n") {
			t.Errorf("%s: exit %d, stdout:\n%s", c.name, code, out)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in:\n%s", c.name, w, out)
			}
		}
	}
	if code, _, errOut := runCLI("policy", "test", dir+"/none"); code != 2 || !strings.Contains(errOut, "none") {
		t.Errorf("missing path: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runCLI("policy", "test", t.TempDir()); code != 2 || !strings.Contains(errOut, "no *_test.yaml") {
		t.Errorf("empty directory: exit %d, %q", code, errOut)
	}
	if code, _, _ := runCLI("policy", "test"); code != 2 {
		t.Errorf("no path: exit %d, want 2", code)
	}
}

// TestPolicyTestHiddenIsExplains: a hidden call's error is the one
// explain reports (the plugin's not-found), for each kind of primitive.
func TestPolicyTestHiddenIsExplains(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ flag, key, name string }{
		{"--tool", "tool", "delete_customer"},
		{"--prompt", "prompt", "summarize_customer"},
		{"--resource", "resource", "customers://c-9/profile"},
	} {
		_, out, _ := runCLI("explain", "--policy", demoPolicy(t), "--json", c.flag, c.name)
		var e explanation
		if err := json.Unmarshal([]byte(out), &e); err != nil || !e.Hidden || e.Error == nil {
			t.Fatalf("explain %s %s: %v %s", c.flag, c.name, err, out)
		}
		msg := strings.NewReplacer("[", "[[]", "*", "[*]", "?", "[?]").Replace(e.Error.Message)
		f := writeTestFile(t, dir, "h_test.yaml", "policy: "+demoPolicy(t)+"\ntests:\n  - name: hidden\n    call: {"+
			c.key+": \""+c.name+"\"}\n    expect: {decision: hidden, code: "+itoa(e.Error.Code)+", message: \""+msg+"\"}\n")
		if code, out, _ := runCLI("policy", "test", f); code != 0 {
			t.Errorf("%s %s: explain says %d %q; policy test:\n%s", c.key, c.name, e.Error.Code, e.Error.Message, out)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestPolicyTestJUnit: --junit writes JUnit XML with a suite per file, a
// case per test, a failure with the difference and an error for an
// invalid file.
func TestPolicyTestJUnit(t *testing.T) {
	dir := t.TempDir()
	f := writeTestFile(t, dir, "a_test.yaml", "policy: "+demoPolicy(t)+`
tests:
  - {name: "echo & more <ok>", call: {tool: echo}, expect: {decision: allow}}
  - {name: wrong, call: {tool: delete_customer}, expect: {decision: allow}}
`)
	bad := writeTestFile(t, dir, "b_test.yaml", "tests: []\n")
	report := filepath.Join(dir, "junit.xml")
	code, out, _ := runCLI("policy", "test", dir, "--junit", report)
	if code != 2 {
		t.Fatalf("exit %d, want 2 (an invalid file):\n%s", code, out)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var r junitSuites
	if err := xml.Unmarshal(data, &r); err != nil {
		t.Fatalf("not XML: %v\n%s", err, data)
	}
	if r.Tests != 3 || r.Failures != 1 || r.Errors != 1 || len(r.Suites) != 2 {
		t.Fatalf("totals %d/%d/%d, %d suites:\n%s", r.Tests, r.Failures, r.Errors, len(r.Suites), data)
	}
	s := r.Suites[0]
	if s.Name != f || len(s.Cases) != 2 || s.Cases[0].Name != "echo & more <ok>" || s.Cases[0].Failure != nil ||
		s.Cases[1].Failure == nil || !strings.Contains(s.Cases[1].Failure.Text, "decision: want allow, got hidden") {
		t.Errorf("suite %+v", s)
	}
	if e := r.Suites[1]; e.Name != bad || len(e.Cases) != 1 || e.Cases[0].Error == nil || !strings.Contains(e.Cases[0].Error.Text, "$.policy") {
		t.Errorf("invalid file's suite %+v", e)
	}
	if !strings.HasPrefix(string(data), `<?xml version="1.0" encoding="UTF-8"?>`) {
		t.Errorf("no XML header: %.60s", data)
	}
}
