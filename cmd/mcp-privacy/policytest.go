package main

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cloudg/mcp-privacy/internal/claims"
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

const policyTestUsage = `usage: mcp-privacy policy test [--junit FILE] [-v] PATH...

Runs policy test files. A PATH that is a directory means every *_test.yaml
(and *_test.yml) in it, not its subdirectories.

A test file (YAML or JSON; docs/MCP_PRIVACY.md, 17):
  policy: demo.yaml      # relative to this file: a policy or a plugin envelope
  catalog: tools.json    # optional, or a list: captured tools/list,
                         # resources/list, resources/templates/list, prompts/list
                         # results (JSON-RPC responses or bare results)
  tests:
    - name: support cannot delete customers
      caller: {principal: ann, roles: [support]}   # or claims: {...}
      call: {tool: delete_customer, arguments: {id: c-1}}  # or resource: URI, prompt: NAME
      expect: {decision: hidden}    # allow | deny | hidden; rule:, code:, message:
    - name: support sees pseudonyms
      caller: {principal: ann, roles: [support]}
      call: {tool: get_customer}
      result: {structuredContent: {email: alice@example.com}}
      expect:
        decision: allow
        output: {structuredContent: {email: "EMAIL_*"}}   # strings are globs
        not_contains: ["alice@example.com"]

Output: a line per test, "ok" or "FAIL" with the difference, then
"N passed, M failed". With -v, what each call was judged (rule, pipelines).

Exit status: 0 every test passed; 1 a test failed; 2 a file is invalid (its
error names the file, the test and the JSON path) or a usage error.
`

func policyTest(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("policy test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, policyTestUsage)
		fmt.Fprintln(stderr, "\nFlags:")
		fs.PrintDefaults()
	}
	junit := fs.String("junit", "", "write the results as JUnit XML to `FILE`")
	verbose := fs.Bool("v", false, "print how each call was judged")
	paths, err := parseInterleaved(fs, args)
	if err != nil {
		return 2
	}
	if len(paths) == 0 {
		fs.Usage()
		return 2
	}
	files, err := testFiles(paths)
	if err != nil {
		fmt.Fprintf(stderr, "policy test: %v\n", err)
		return 2
	}
	var suites []testSuite
	passed, failed, invalid := 0, 0, 0
	for _, file := range files {
		s := runTestFile(file, *verbose, stdout)
		suites = append(suites, s)
		if s.Invalid != "" {
			invalid++
			fmt.Fprintf(stdout, "ERROR %s\n", indentRest(s.Invalid))
			continue
		}
		for _, c := range s.Cases {
			if c.Failure == "" {
				passed++
			} else {
				failed++
			}
		}
	}
	fmt.Fprintf(stdout, "%d passed, %d failed\n", passed, failed)
	if *junit != "" {
		if err := writeJUnit(*junit, suites); err != nil {
			fmt.Fprintf(stderr, "policy test: --junit: %v\n", err)
			return 2
		}
	}
	switch {
	case invalid > 0:
		return 2
	case failed > 0:
		return 1
	}
	return 0
}

// parseInterleaved parses flags anywhere among the operands (policy test
// DIR -v as well as policy test -v DIR) and returns the operands.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var operands []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return operands, nil
		}
		operands, args = append(operands, args[0]), args[1:]
	}
}

func indentRest(s string) string { return strings.ReplaceAll(s, "\n", "\n    ") }

// testFiles expands the PATHs: files as given, directories to their
// *_test.yaml and *_test.yml files in name order.
func testFiles(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		var found []string
		for _, pat := range []string{"*_test.yaml", "*_test.yml"} {
			m, _ := filepath.Glob(filepath.Join(p, pat))
			found = append(found, m...)
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no *_test.yaml file in it", p)
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	return files, nil
}

// testSuite is one test file's results.
type testSuite struct {
	File string
	// Invalid is why the file could not run (then Cases is empty).
	Invalid string
	Cases   []testCase
}

type testCase struct {
	Name    string
	Failure string // the difference, "" when it passed
}

// policyTestFile is a parsed test file.
type policyTestFile struct {
	Policy   string
	Catalogs []string
	Tests    []policyTestCase
}

type policyTestCase struct {
	Name string
	Path string // tests[i]

	Principal     string
	HasPrincipal  bool
	Roles         []string
	HasRoles      bool
	Claims        *policy.Value
	Kind          policy.Kind
	Target        string
	Arguments     *policy.Value
	Result        *policy.Value
	WantDecision  string
	WantRule      *string
	WantCode      *int
	WantMessage   *string
	WantOutput    *policy.Value
	WantArguments *policy.Value
	NotContains   []string
	Contains      []string
	WantBlocked   *bool
	WantOutTr     []string
	HasOutTr      bool
	WantInTr      []string
	HasInTr       bool
}

// testFileError is an invalid test file: the test (when in one) and the
// JSON path.
type testFileError struct {
	Test string
	Path string
	Msg  string
}

func (e *testFileError) Error() string {
	if e.Test != "" {
		return fmt.Sprintf("test %q: %s: %s", e.Test, e.Path, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// testFileParser reads a test file's Value, checking each key.
type testFileParser struct {
	test string // the test being read, for errors
	err  *testFileError
}

func (tp *testFileParser) fail(path, format string, a ...any) {
	if tp.err == nil {
		tp.err = &testFileError{Test: tp.test, Path: path, Msg: fmt.Sprintf(format, a...)}
	}
}

// object checks v is an object with only the allowed keys.
func (tp *testFileParser) object(v *policy.Value, path string, keys ...string) bool {
	if v.Kind != policy.ObjectValue {
		tp.fail(path, "want an object, got %s", v.Kind)
		return false
	}
	for _, m := range v.Object {
		if !slices.Contains(keys, m.Key) {
			tp.fail(path+"."+m.Key, "unknown key (want one of %s)", strings.Join(keys, ", "))
			return false
		}
	}
	return true
}

func (tp *testFileParser) str(v *policy.Value, path string) string {
	if v.Kind != policy.StringValue {
		tp.fail(path, "want a string, got %s", v.Kind)
	}
	return v.Text
}

func (tp *testFileParser) strings(v *policy.Value, path string) []string {
	if v.Kind != policy.ArrayValue {
		tp.fail(path, "want a list of strings, got %s", v.Kind)
		return nil
	}
	out := []string{}
	for i, e := range v.Array {
		out = append(out, tp.str(e, fmt.Sprintf("%s[%d]", path, i)))
	}
	return out
}

func parseTestFile(data []byte) (*policyTestFile, error) {
	doc, err := policy.ParseDocument(data)
	if err != nil {
		return nil, &testFileError{Path: "$", Msg: err.Error()}
	}
	tp := &testFileParser{}
	f := &policyTestFile{}
	if !tp.object(doc, "$", "policy", "catalog", "tests") {
		return nil, tp.err
	}
	if v := doc.Get("policy"); v == nil {
		tp.fail("$.policy", "missing: the policy or envelope file the tests judge")
	} else {
		f.Policy = tp.str(v, "$.policy")
	}
	if v := doc.Get("catalog"); v != nil {
		if v.Kind == policy.StringValue {
			f.Catalogs = []string{v.Text}
		} else {
			f.Catalogs = tp.strings(v, "$.catalog")
		}
	}
	tests := doc.Get("tests")
	switch {
	case tests == nil:
		tp.fail("$.tests", "missing: the list of tests")
	case tests.Kind != policy.ArrayValue:
		tp.fail("$.tests", "want a list, got %s", tests.Kind)
	case len(tests.Array) == 0:
		tp.fail("$.tests", "empty: no test to run")
	}
	if tp.err != nil {
		return nil, tp.err
	}
	names := map[string]bool{}
	for i, tv := range tests.Array {
		path := fmt.Sprintf("$.tests[%d]", i)
		tp.test = ""
		if tv.Kind == policy.ObjectValue {
			if n := tv.Get("name"); n != nil && n.Kind == policy.StringValue {
				tp.test = n.Text
			}
		}
		t := tp.testCase(tv, path)
		if tp.err == nil && names[t.Name] {
			tp.fail(path+".name", "a second test named %q", t.Name)
		}
		if tp.err != nil {
			return nil, tp.err
		}
		names[t.Name] = true
		f.Tests = append(f.Tests, t)
	}
	return f, nil
}

func (tp *testFileParser) testCase(tv *policy.Value, path string) policyTestCase {
	t := policyTestCase{Path: path}
	if !tp.object(tv, path, "name", "caller", "call", "result", "expect") {
		return t
	}
	if v := tv.Get("name"); v == nil {
		tp.fail(path+".name", "missing")
	} else if t.Name = tp.str(v, path+".name"); t.Name == "" {
		tp.fail(path+".name", "empty")
	}
	if c := tv.Get("caller"); c != nil && tp.object(c, path+".caller", "principal", "roles", "claims") {
		if v := c.Get("principal"); v != nil {
			t.Principal, t.HasPrincipal = tp.str(v, path+".caller.principal"), true
		}
		if v := c.Get("roles"); v != nil {
			t.HasRoles = true
			if v.Kind == policy.StringValue {
				t.Roles = splitList(v.Text)
			} else {
				t.Roles = tp.strings(v, path+".caller.roles")
			}
		}
		if v := c.Get("claims"); v != nil {
			if v.Kind != policy.ObjectValue {
				tp.fail(path+".caller.claims", "want an object (the JWT payload), got %s", v.Kind)
			}
			t.Claims = v
		}
	}
	call := tv.Get("call")
	if call == nil {
		tp.fail(path+".call", "missing: {tool: NAME}, {resource: URI} or {prompt: NAME}")
		return t
	}
	if !tp.object(call, path+".call", "tool", "resource", "prompt", "arguments") {
		return t
	}
	named := 0
	for _, k := range []struct {
		key  string
		kind policy.Kind
	}{{"tool", policy.KindTool}, {"resource", policy.KindResource}, {"prompt", policy.KindPrompt}} {
		if v := call.Get(k.key); v != nil {
			named++
			t.Kind, t.Target = k.kind, tp.str(v, path+".call."+k.key)
			if t.Target == "" {
				tp.fail(path+".call."+k.key, "empty")
			}
		}
	}
	if named != 1 {
		tp.fail(path+".call", "want exactly one of tool, resource, prompt")
	}
	if v := call.Get("arguments"); v != nil {
		if v.Kind != policy.ObjectValue {
			tp.fail(path+".call.arguments", "want an object, got %s", v.Kind)
		}
		if t.Kind == policy.KindResource {
			tp.fail(path+".call.arguments", "a resource read has no arguments")
		}
		t.Arguments = v
	}
	if v := tv.Get("result"); v != nil {
		if v.Kind != policy.ObjectValue {
			tp.fail(path+".result", "want an object (the server's result), got %s", v.Kind)
		}
		t.Result = v
	}
	ex := tv.Get("expect")
	if ex == nil {
		tp.fail(path+".expect", "missing: at least {decision: allow|deny|hidden}")
		return t
	}
	if !tp.object(ex, path+".expect", "decision", "rule", "code", "message", "output", "not_contains",
		"contains", "blocked", "transforms", "input_transforms", "arguments") {
		return t
	}
	ep := path + ".expect"
	if v := ex.Get("decision"); v == nil {
		tp.fail(ep+".decision", "missing: allow, deny, hidden or refused")
	} else if t.WantDecision = tp.str(v, ep+".decision"); tp.err == nil && !slices.Contains([]string{"allow", "deny", "hidden", "refused"}, t.WantDecision) {
		tp.fail(ep+".decision", "want allow, deny, hidden or refused, got %q", t.WantDecision)
	}
	if v := ex.Get("rule"); v != nil {
		s := tp.str(v, ep+".rule")
		t.WantRule = &s
	}
	if v := ex.Get("message"); v != nil {
		s := tp.str(v, ep+".message")
		t.WantMessage = &s
	}
	if v := ex.Get("code"); v != nil {
		if v.Kind != policy.NumberValue || v.Num != float64(int(v.Num)) {
			tp.fail(ep+".code", "want an integer JSON-RPC error code, got %s", v.Kind)
		}
		c := int(v.Num)
		t.WantCode = &c
	}
	if v := ex.Get("blocked"); v != nil {
		if v.Kind != policy.BoolValue {
			tp.fail(ep+".blocked", "want a bool, got %s", v.Kind)
		}
		t.WantBlocked = &v.Bool
	}
	if v := ex.Get("not_contains"); v != nil {
		t.NotContains = tp.strings(v, ep+".not_contains")
	}
	if v := ex.Get("contains"); v != nil {
		t.Contains = tp.strings(v, ep+".contains")
	}
	if v := ex.Get("transforms"); v != nil {
		t.WantOutTr, t.HasOutTr = tp.strings(v, ep+".transforms"), true
	}
	if v := ex.Get("input_transforms"); v != nil {
		t.WantInTr, t.HasInTr = tp.strings(v, ep+".input_transforms"), true
	}
	t.WantOutput = ex.Get("output")
	t.WantArguments = ex.Get("arguments")
	if t.WantOutput != nil {
		tp.globs(t.WantOutput, ep+".output")
	}
	if t.WantArguments != nil {
		tp.globs(t.WantArguments, ep+".arguments")
	}
	needsResult := t.WantOutput != nil || t.NotContains != nil || t.Contains != nil || t.WantBlocked != nil
	switch {
	case needsResult && t.Result == nil:
		tp.fail(path+".result", "missing: expect.output, contains, not_contains and blocked judge what a result becomes")
	case needsResult && t.WantDecision != "allow":
		tp.fail(ep+".decision", "%s calls get no result: output, contains, not_contains and blocked need decision allow", t.WantDecision)
	case t.WantArguments != nil && t.Arguments == nil:
		tp.fail(path+".call.arguments", "missing: expect.arguments judges what the arguments become")
	}
	return t
}

// globs checks every string of an expected output is a valid glob.
func (tp *testFileParser) globs(v *policy.Value, path string) {
	switch v.Kind {
	case policy.StringValue:
		if _, err := globRegexp(v.Text); err != nil {
			tp.fail(path, "not a valid glob: %v", err)
		}
	case policy.ArrayValue:
		for i, e := range v.Array {
			tp.globs(e, fmt.Sprintf("%s[%d]", path, i))
		}
	case policy.ObjectValue:
		for _, m := range v.Object {
			tp.globs(m.Value, path+"."+m.Key)
		}
	}
}

var globCache = map[string]*regexp.Regexp{}

// globRegexp compiles an expected string as a glob of manual 6.7 (*, ?,
// [...], no escape; a leading ! is literal).
func globRegexp(pattern string) (*regexp.Regexp, error) {
	if re, ok := globCache[pattern]; ok {
		return re, nil
	}
	re, err := regexp.Compile("^" + policy.TranslateGlob(pattern) + "$")
	if err == nil {
		globCache[pattern] = re
	}
	return re, err
}

// testFixedKey is the vault key of a policy test whose policy has none
// (neither vault.key nor its key_env set): pseudonyms are then the same on
// every run, though not the proxy's.
const testFixedKey = "mcp-privacy policy test: fixed vault key"

// runTestFile runs one test file, printing a line per test.
func runTestFile(file string, verbose bool, stdout io.Writer) testSuite {
	s := testSuite{File: file}
	invalid := func(format string, a ...any) testSuite {
		s.Invalid = file + ": " + fmt.Sprintf(format, a...)
		return s
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return invalid("%v", err)
	}
	tf, err := parseTestFile(data)
	if err != nil {
		return invalid("%v", err)
	}
	dir := filepath.Dir(file)
	rel := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	l, errs := load(rel(tf.Policy))
	if len(errs) > 0 {
		var b strings.Builder
		for _, e := range errs {
			b.WriteString("\n" + e.Error())
		}
		return invalid("$.policy: %s does not load:%s", tf.Policy, b.String())
	}
	var cat *catalogFile
	for i, c := range tf.Catalogs {
		one, err := readCatalogFile(rel(c))
		if err != nil {
			path := "$.catalog"
			if len(tf.Catalogs) > 1 {
				path = fmt.Sprintf("$.catalog[%d]", i)
			}
			return invalid("%s: %s: %v", path, c, err)
		}
		if cat == nil {
			cat = one
		} else {
			cat.Entries = append(cat.Entries, one.Entries...)
		}
	}
	j := newJudge(l, cat)
	p := l.Policy
	key, _ := p.Vault.ResolveKey(os.LookupEnv)
	if key == nil {
		key = []byte(testFixedKey)
	}
	store := vault.New(key, p.Vault, vault.NewMemoryKV(), time.Now)
	engine, err := transforms.NewEngine(p, store, key)
	if err != nil {
		return invalid("$.policy: detectors: %v", err)
	}
	// Callers first, so a bad claims file is an invalid file, not a failure.
	callers := make([]policy.Principal, len(tf.Tests))
	for i := range tf.Tests {
		t := &tf.Tests[i]
		pr, err := testCaller(l, t)
		if err != nil {
			return invalid("%v", &testFileError{Test: t.Name, Path: t.Path + ".caller.claims", Msg: err.Error()})
		}
		callers[i] = pr
	}
	for i := range tf.Tests {
		t := &tf.Tests[i]
		r := &testRun{j: j, engine: engine, store: store, pr: callers[i], t: t}
		diffs, judged := r.run()
		c := testCase{Name: t.Name, Failure: strings.Join(diffs, "\n")}
		s.Cases = append(s.Cases, c)
		if c.Failure == "" {
			fmt.Fprintf(stdout, "ok   %s: %s\n", file, t.Name)
		} else {
			fmt.Fprintf(stdout, "FAIL %s: %s\n", file, t.Name)
			for _, d := range diffs {
				fmt.Fprintf(stdout, "    %s\n", d)
			}
		}
		if verbose {
			fmt.Fprintf(stdout, "    caller %s %v: %s\n", r.pr.ID, r.pr.Roles, judged)
		}
	}
	return s
}

// testCaller is the test's principal: caller.claims read through the
// envelope's identity (its jwt_claim sources, as the plugin reads them),
// then caller.principal and caller.roles over them; with neither, the
// envelope's anonymous id (else "anonymous") as for a caller without
// identity.
func testCaller(l *loaded, t *policyTestCase) (policy.Principal, error) {
	pr := l.principal("", false, "")
	if t.Claims != nil {
		if l.Envelope == nil {
			return pr, errors.New("claims need a plugin envelope whose identity reads jwt_claim")
		}
		id := &l.Envelope.Identity
		js, _ := json.Marshal(t.Claims.ToAny())
		payload := claims.Parse(js)
		usesClaims := false
		// As the plugin reads them (plugin/mcp identity.go): the first
		// source with a value wins.
		for _, s := range id.Principal {
			if s.JWTClaim == "" {
				continue
			}
			usesClaims = true
			if v := payload.Principal(s.Claim); v != "" {
				pr.ID = v
				break
			}
		}
		for _, s := range id.Roles {
			if s.JWTClaim == "" {
				continue
			}
			usesClaims = true
			if roles := payload.Roles(s.Claim); len(roles) > 0 {
				pr.Roles = roles
				break
			}
		}
		if !usesClaims {
			return pr, errors.New("the envelope's identity reads no jwt_claim")
		}
	}
	if t.HasPrincipal {
		pr.ID = t.Principal
	}
	if t.HasRoles {
		pr.Roles = t.Roles
	}
	return pr, nil
}

// testRun runs one test.
type testRun struct {
	j      *judge
	engine *transforms.Engine
	store  *vault.Vault
	pr     policy.Principal
	t      *policyTestCase
	diffs  []string
}

func (r *testRun) failf(format string, a ...any) {
	r.diffs = append(r.diffs, fmt.Sprintf(format, a...))
}

// run judges the call and returns the differences from what the test
// expects, and a line saying how the call was judged.
func (r *testRun) run() ([]string, string) {
	t := r.t
	v := r.j.verdictOf(&r.pr, t.Kind, t.Target)
	judged := fmt.Sprintf("%s by %s (transforms [%s], input_transforms [%s], rate_limits [%s])", v.Decision, v.Rule,
		strings.Join(v.Transforms, ", "), strings.Join(v.InputTransforms, ", "), strings.Join(v.RateLimits, "; "))
	if v.Decision != t.WantDecision {
		r.failf("decision: want %s, got %s (rule %q: %s)", t.WantDecision, v.Decision, v.Rule, v.Reason)
	}
	if t.WantRule != nil && v.Rule != *t.WantRule {
		r.failf("rule: want %q, got %q (%s)", *t.WantRule, v.Rule, v.Reason)
	}
	// The error the client receives: the denial's (a hidden one is the
	// not-found of a primitive that does not exist), or a block's.
	rpcErr := v.refusal
	if rpcErr == nil {
		rpcErr = v.d.Error()
	}
	var out []byte
	blocked := false
	if v.Decision == "allow" && t.Result != nil {
		out, blocked = r.output(&v)
		if blocked {
			rpcErr = blockedError(out)
		}
	}
	if t.WantCode != nil || t.WantMessage != nil {
		switch {
		case rpcErr == nil:
			r.failf("code: want error %s, got no error (the call is allowed)", wantError(t))
		default:
			if t.WantCode != nil && rpcErr.Code != *t.WantCode {
				r.failf("code: want %d, got %d %q", *t.WantCode, rpcErr.Code, rpcErr.Message)
			}
			if t.WantMessage != nil && !globMatch(*t.WantMessage, rpcErr.Message) {
				r.failf("message: want %q, got %q", *t.WantMessage, rpcErr.Message)
			}
		}
	}
	if t.HasOutTr && !slices.Equal(t.WantOutTr, v.Transforms) {
		r.failf("transforms: want [%s], got [%s]", strings.Join(t.WantOutTr, ", "), strings.Join(v.Transforms, ", "))
	}
	if t.HasInTr && !slices.Equal(t.WantInTr, v.InputTransforms) {
		r.failf("input_transforms: want [%s], got [%s]", strings.Join(t.WantInTr, ", "), strings.Join(v.InputTransforms, ", "))
	}
	if t.WantArguments != nil && v.Decision == "allow" {
		r.checkArguments(&v)
	}
	if t.Result == nil || v.Decision != "allow" || out == nil {
		return r.diffs, judged
	}
	if t.WantBlocked != nil && blocked != *t.WantBlocked {
		r.failf("blocked: want %v, got %v (output %s)", *t.WantBlocked, blocked, out)
	}
	got, err := policy.ParseJSON(out)
	if err != nil {
		r.failf("output: not JSON: %v", err)
		return r.diffs, judged
	}
	if t.WantOutput != nil {
		r.diffs = append(r.diffs, compareValue(t.WantOutput, got, "output")...)
	}
	strs := allStrings(got, nil)
	for _, s := range t.NotContains {
		if strings.Contains(string(out), s) || slices.ContainsFunc(strs, func(x string) bool { return strings.Contains(x, s) }) {
			r.failf("not_contains: the output contains %q: %s", s, out)
		}
	}
	for _, s := range t.Contains {
		if !strings.Contains(string(out), s) && !slices.ContainsFunc(strs, func(x string) bool { return strings.Contains(x, s) }) {
			r.failf("contains: the output does not contain %q: %s", s, out)
		}
	}
	return r.diffs, judged
}

func wantError(t *policyTestCase) string {
	var parts []string
	if t.WantCode != nil {
		parts = append(parts, fmt.Sprint(*t.WantCode))
	}
	if t.WantMessage != nil {
		parts = append(parts, fmt.Sprintf("%q", *t.WantMessage))
	}
	return strings.Join(parts, " ")
}

func globMatch(pattern, s string) bool {
	re, err := globRegexp(pattern)
	return err == nil && re.MatchString(s)
}

// output runs the call's output pipeline over the test's result as the
// plugin runs it on the result of the call (preview's path): the result
// the caller receives, or the -32004 error a block step answers with.
func (r *testRun) output(v *verdict) ([]byte, bool) {
	p := r.j.l.Policy
	pipeline, err := r.engine.Compile(p.OutputPipeline(v.d.Matched, &v.x.Metadata))
	if err != nil {
		r.failf("output: the output pipeline %v cannot run: %v (a call fails closed)", v.Transforms, err)
		return nil, false
	}
	raw, _ := json.Marshal(r.t.Result.ToAny())
	doc, err := jsondoc.Parse(raw)
	if err != nil {
		r.failf("output: the result is not a message the plugin reads: %v", err)
		return nil, false
	}
	payload := transforms.ToolResult
	switch v.x.Kind {
	case policy.KindResource, policy.KindResourceTemplate:
		payload = transforms.ResourceContents
	case policy.KindPrompt:
		payload = transforms.PromptResult
	}
	run := &transforms.Run{Namespace: r.store.Namespace(r.pr.ID), Preview: true}
	r.engine.Apply(pipeline, doc, jsondoc.Root, payload, run)
	if run.Blocked {
		return blockedOutput(p.Name, run.BlockLabels, doc, jsondoc.Root), true
	}
	return doc.Bytes(), false
}

// checkArguments runs the input pipeline over the call's arguments: what
// the server receives.
func (r *testRun) checkArguments(v *verdict) {
	p := r.j.l.Policy
	pipeline, err := r.engine.Compile(p.InputPipeline(v.d.Matched, &v.x.Metadata))
	if err != nil {
		r.failf("arguments: the input pipeline %v cannot run: %v", v.InputTransforms, err)
		return
	}
	raw, _ := json.Marshal(r.t.Arguments.ToAny())
	doc, err := jsondoc.Parse(raw)
	if err != nil {
		r.failf("arguments: %v", err)
		return
	}
	run := &transforms.Run{Namespace: r.store.Namespace(r.pr.ID), Preview: true}
	r.engine.Apply(pipeline, doc, jsondoc.Root, transforms.Arguments, run)
	got, err := policy.ParseJSON(doc.Bytes())
	if err != nil {
		r.failf("arguments: not JSON: %v", err)
		return
	}
	r.diffs = append(r.diffs, compareValue(r.t.WantArguments, got, "arguments")...)
}

func blockedError(out []byte) *policy.RPCError {
	var e policy.RPCError
	_ = json.Unmarshal(out, &e)
	return &e
}

// compareValue lists where got differs from want: strings of want are
// globs, the rest exact (objects with the same members, arrays of the
// same length).
func compareValue(want, got *policy.Value, path string) []string {
	var diffs []string
	if want.Kind == policy.StringValue {
		if got.Kind != policy.StringValue || !globMatch(want.Text, got.Text) {
			diffs = append(diffs, fmt.Sprintf("%s: want %s, got %s", path, want.JSON(""), got.JSON("")))
		}
		return diffs
	}
	if want.Kind != got.Kind {
		return append(diffs, fmt.Sprintf("%s: want %s, got %s", path, want.JSON(""), got.JSON("")))
	}
	switch want.Kind {
	case policy.ArrayValue:
		if len(want.Array) != len(got.Array) {
			return append(diffs, fmt.Sprintf("%s: want %d items, got %d: %s", path, len(want.Array), len(got.Array), got.JSON("")))
		}
		for i := range want.Array {
			diffs = append(diffs, compareValue(want.Array[i], got.Array[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
	case policy.ObjectValue:
		for _, m := range want.Object {
			g := got.Get(m.Key)
			if g == nil {
				diffs = append(diffs, fmt.Sprintf("%s.%s: want %s, got nothing", path, m.Key, m.Value.JSON("")))
				continue
			}
			diffs = append(diffs, compareValue(m.Value, g, path+"."+m.Key)...)
		}
		for _, m := range got.Object {
			if want.Get(m.Key) == nil {
				diffs = append(diffs, fmt.Sprintf("%s.%s: want nothing, got %s", path, m.Key, m.Value.JSON("")))
			}
		}
	case policy.NumberValue:
		if want.Num != got.Num {
			diffs = append(diffs, fmt.Sprintf("%s: want %s, got %s", path, want.JSON(""), got.JSON("")))
		}
	case policy.BoolValue:
		if want.Bool != got.Bool {
			diffs = append(diffs, fmt.Sprintf("%s: want %v, got %v", path, want.Bool, got.Bool))
		}
	}
	return diffs
}

// allStrings is every string of v, decoded (keys too).
func allStrings(v *policy.Value, out []string) []string {
	switch v.Kind {
	case policy.StringValue:
		out = append(out, v.Text)
	case policy.ArrayValue:
		for _, e := range v.Array {
			out = allStrings(e, out)
		}
	case policy.ObjectValue:
		for _, m := range v.Object {
			out = allStrings(m.Value, append(out, m.Key))
		}
	}
	return out
}

// JUnit XML, as Jenkins, GitLab and GitHub reporters read it: a testsuite
// per file; an invalid file is a suite with one errored case.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func writeJUnit(file string, suites []testSuite) error {
	all := junitSuites{}
	for _, s := range suites {
		js := junitSuite{Name: s.File}
		if s.Invalid != "" {
			js.Tests, js.Errors = 1, 1
			js.Cases = append(js.Cases, junitCase{Name: filepath.Base(s.File), Classname: s.File, Time: "0",
				Error: &junitProblem{Message: "invalid test file", Type: "invalid", Text: s.Invalid}})
		}
		for _, c := range s.Cases {
			jc := junitCase{Name: c.Name, Classname: s.File, Time: "0"}
			if c.Failure != "" {
				first, _, _ := strings.Cut(c.Failure, "\n")
				jc.Failure = &junitProblem{Message: first, Type: "expectation", Text: c.Failure}
				js.Failures++
			}
			js.Tests++
			js.Cases = append(js.Cases, jc)
		}
		all.Tests += js.Tests
		all.Failures += js.Failures
		all.Errors += js.Errors
		all.Suites = append(all.Suites, js)
	}
	out, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append([]byte(xml.Header), append(out, '\n')...), 0o644)
}
