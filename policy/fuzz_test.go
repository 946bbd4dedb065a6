package policy

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
)

// fzSeeds are valid and invalid configurations, JSON and YAML.
func fzSeeds() []string {
	seeds := []string{
		evFullJSON, evFullYAML, cfFullJSON, cfFullYAML, cfYAMLFlow(cfFullJSON),
		`{"policy": "strict"}`, "policy: standard\n", `"permissive"`, "audit-only\n", `{}`, `{"policy": {}}`,
		`{"policy": {"extends": "strict", "allow_capabilities": ["exec"], "roles": {"admin": {"allow_capabilities": ["reveal"]}}}}`,
		`{"policy": {"rules": [{}, {}, {"match": {"kinds": ["tools"]}}]}}`,
		`{"policy": "standard", "gateway": {"foo": 1}, "server": {"primitives": [{"match": {"kinds": ["tool"]}, "transform_hints": {"pii": {"detectors": ["email"]}, "skip": ["secrets"]}}]}}`,
		`{"policy": {"allow_tools": ["*", "!get_secret*"], "deny_resources": ["cloudg://assets/{+ref}"], "allow_categories": ["[!x]*"]}}`,
		`{"policy": {"rate_limits": [{"rate": 0.5, "per": "second", "burst": null, "scope": "global", "tools": ["*"], "kinds": ["completion"]}]}}`,
		`{"policy": {"vault": {"key": 12345, "ttl_seconds": 0, "max_entries": 0}}}`,
		`{"policy": {"detectors": [{"name": "d", "pattern": "(a)(?P<n>b)", "group": "n", "keywords": ["k"]}], "transforms": [{"type": "redact", "options": {"detectors": ["d"]}}]}}`,
		`{"policy": {"transforms": [{"type": "project", "options": {"include": ["a..b", "\\x"]}}]}}`,
		`{"a": 1, "a": 2}`, `{"policy": "strict"} {}`, "{\"policy\": \"\xff\"}", `[[[[[[[[[[]]]]]]]]]]`,
		"policy:\n  roles:\n    b: &r {allow_tools: [x]}\n    a: *r\n",
		"policy: {extends: nope}\n", "policy: {extends: strict, extends: standard}\n", "---\n---\n", "",
		"policy:\n  rules:\n    - match: {roles: ['*'], principals: ['svc-*']}\n      transforms_mode: replace\n      transforms: [detect]\n",
		"identity:\n  principal: [{header: x-a, jwt_claim: b}, {}]\n  jwt: {metadata: []}\npolicy: strict\n",
	}
	for _, src := range Profiles {
		seeds = append(seeds, src, `{"policy": `+src+`}`)
	}
	return seeds
}

// fzCatch turns a panic into a test failure that names the input.
func fzCatch(t *testing.T, data []byte, what string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s panicked on %q: %v\n%s", what, data, r, debug.Stack())
		}
	}()
	f()
}

var fzPrincipals = []Principal{
	{ID: "anonymous"},
	{ID: "alice@corp.com", Roles: []string{"admin", "dev"}},
	{ID: "svc-x", Roles: []string{"*", ""}},
}

func fzPrimitives() []Primitive {
	return []Primitive{
		{Kind: KindTool, Name: "get_user"},
		{Kind: KindTool, Name: "db_write", Metadata: Metadata{Category: "db", Tags: []string{"pii"}, Sensitivity: Restricted, Capabilities: cfCaps(WriteState, Exec, Reveal)}},
		{Kind: KindResource, Name: "file:///etc/passwd", Metadata: Metadata{Sensitivity: Public}},
		{Kind: KindResourceTemplate, Name: "cloudg://assets/{+ref}", URI: "cloudg://assets/a/b"},
		{Kind: KindPrompt, Name: "greet", Metadata: Metadata{Category: "", Capabilities: cfCaps(ReadFS)}},
	}
}

// fzOutcome summarises what a policy does for the fixed principals and
// primitives, so two policies can be compared.
func fzOutcome(env *Envelope) string {
	var b strings.Builder
	p := env.Policy
	for _, pr := range fzPrincipals {
		fmt.Fprintf(&b, "%s: %v\n", pr.ID, cfRuleNames(p.MatchPrincipal(&pr)))
		for _, x := range fzPrimitives() {
			x.Metadata = env.Server.Metadata(x.Kind, x.Name, x.Metadata)
			d := p.Decide(&pr, &x)
			fmt.Fprintf(&b, "  %v %s: %v %v %s %q %v\n", x.Kind, x.Name, d.Allowed, d.Hidden, d.Rule, d.Reason(), d.Error() != nil)
			fmt.Fprintf(&b, "    out %v in %v\n", IDs(p.OutputPipeline(d.Matched, &x.Metadata)), IDs(p.InputPipeline(d.Matched, &x.Metadata)))
			for _, bk := range p.Buckets(Call{Kind: x.Kind, Name: x.Name, Principal: pr.ID}, d.Matched) {
				fmt.Fprintf(&b, "    bucket %s\n", bk)
			}
			_ = env.Server.Known(x.Kind, x.Name)
		}
		_ = p.OutputPipeline(p.MatchPrincipal(&pr), nil)
	}
	_ = env.Gateway.Paths.Match("/mcp/x")
	return b.String()
}

func fzCheckEnvelope(t *testing.T, data []byte) {
	var env *Envelope
	var errs Errors
	fzCatch(t, data, "ParseEnvelope", func() { env, errs = ParseEnvelope(data, Options{}) })
	if len(errs) > 0 {
		if env != nil {
			t.Fatalf("ParseEnvelope(%q) returned an envelope and errors %v", data, errs)
		}
		for _, e := range errs {
			if e.Msg == "" {
				t.Fatalf("ParseEnvelope(%q): error at %q without a message", data, e.Path)
			}
		}
		// The same input gives the same errors.
		var again Errors
		fzCatch(t, data, "ParseEnvelope (again)", func() { _, again = ParseEnvelope(data, Options{}) })
		if again.Error() != errs.Error() {
			t.Fatalf("ParseEnvelope(%q) is not deterministic:\n%v\n---\n%v", data, errs, again)
		}
		return
	}
	if env == nil || env.Policy == nil || env.Gateway.Paths == nil {
		t.Fatalf("ParseEnvelope(%q) succeeded without an envelope, policy or paths", data)
	}
	var outcome string
	fzCatch(t, data, "deciding", func() { outcome = fzOutcome(env) })

	// The flattened document is a policy of its own, and the same policy.
	doc := env.Policy.Document()
	raw := doc.JSON("")
	var env2 *Envelope
	var errs2 Errors
	fzCatch(t, data, "re-parsing Document()", func() {
		env2, errs2 = ParseEnvelope([]byte(`{"policy": `+raw+`}`), Options{})
	})
	if len(errs2) > 0 {
		t.Fatalf("ParseEnvelope(%q) succeeded, but its flattened policy %s does not parse:\n%v", data, raw, errs2)
	}
	if raw2 := env2.Policy.Document().JSON(""); raw2 != raw {
		t.Fatalf("flattened policy changes when parsed again:\n%s\n%s", raw, raw2)
	}
	env2.Server, env2.Identity, env2.Gateway = env.Server, env.Identity, env.Gateway
	var outcome2 string
	fzCatch(t, data, "deciding (re-parsed)", func() { outcome2 = fzOutcome(env2) })
	if outcome2 != outcome {
		t.Fatalf("flattened policy of %q decides differently:\n%s\n---\n%s", data, outcome, outcome2)
	}
	if r := env.Policy.Redacted(); r.Get("vault") != nil && r.Get("vault").Get("key") != nil {
		t.Fatalf("Redacted() keeps vault.key")
	}
}

func FuzzParseEnvelope(f *testing.F) {
	for _, s := range fzSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(fzCheckEnvelope)
}

func FuzzParseDocument(f *testing.F) {
	for _, s := range fzSeeds() {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		"a: &x [1, 2]\nb: *x\n", "a: !!binary aGVsbG8=\nb: !custom x\nc: 0x1F\nd: 0o17\ne: 1_000\nf: -.5e3\n",
		"? [a, b]\n: c\n", "<<: {a: 1}\n", "a: 1\n...\n", "'a': \"\\u00e9\\x41\"\n", "{\"a\": \"\\ud800\"}",
		"{\"a\": -0, \"b\": 1E400}", "{\"a\": 1.0e-400}", "[1, 2, {\"x\": [true, false, null]}]",
		"# c\n- a\n- b: [c, {d: e}]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v *Value
		var err error
		fzCatch(t, data, "ParseDocument", func() { v, err = ParseDocument(data) })
		if err != nil {
			return
		}
		if v == nil {
			t.Fatalf("ParseDocument(%q) returned neither a value nor an error", data)
		}
		trimmed := strings.TrimLeft(string(data), " \t\r\n\ufeff")
		if strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "[") {
			if !json.Valid(data) {
				t.Fatalf("ParseDocument accepted invalid JSON %q", data)
			}
		}
		// Re-encoded as JSON, the value reads back the same.
		var raw string
		fzCatch(t, data, "JSON", func() { raw = v.JSON("") })
		if !json.Valid([]byte(raw)) {
			t.Fatalf("ParseDocument(%q) gives a value whose JSON %q is invalid", data, raw)
		}
		var v2 *Value
		fzCatch(t, data, "ParseJSON of the re-encoding", func() { v2, err = ParseJSON([]byte(raw)) })
		if err != nil {
			t.Fatalf("ParseDocument(%q) = %s, which ParseJSON rejects: %v", data, raw, err)
		}
		if raw2 := v2.JSON(""); raw2 != raw {
			t.Fatalf("JSON round trip differs:\n%s\n%s", raw, raw2)
		}
		if c := v.Clone().JSON(""); c != raw {
			t.Fatalf("Clone differs:\n%s\n%s", raw, c)
		}
		_ = v.ToAny()
		_ = v.JSON("  ")
	})
}

// TestFuzzSeedsSmoke runs the fuzz checks on the seeds with a summary of
// which seeds are valid, so a seed that stops parsing is noticed.
func TestFuzzSeedsSmoke(t *testing.T) {
	valid := 0
	for _, s := range fzSeeds() {
		if _, errs := ParseEnvelope([]byte(s), Options{}); len(errs) == 0 {
			valid++
		}
	}
	if valid < 15 {
		t.Errorf("only %d fuzz seeds are valid envelopes; the fuzzer needs valid starting points", valid)
	}
}
