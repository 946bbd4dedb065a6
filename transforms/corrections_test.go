package transforms

import (
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

// TestCorrectionsPerRule: a call matching a rule runs its pipeline with
// the rule's allow list and dictionary (manual 12.9.6); a call matching
// no rule does not, and the policy's apply to both.
func TestCorrectionsPerRule(t *testing.T) {
	p := policy.MustParsePolicy(`
transforms: [{type: redact, options: {detectors: ["@pii"]}}]
detection:
  allow: [{values: [support@example.com]}]
  dictionaries: [{name: crm, label: CUSTOMER, terms: ["Acme Widgets"]}]
rules:
  - match: {names: ["qa_*"]}
    detection:
      allow: [{globs: ["*@test.example.com"]}]
      dictionaries: [{name: codes, label: CODENAME, terms: [Bluebird]}]
`)
	key := []byte("test key")
	e, err := NewEngine(p, vault.New(key, p.Vault, vault.NewMemoryKV(), time.Now), key)
	if err != nil {
		t.Fatal(err)
	}
	const text = "Acme Widgets, Bluebird: support@example.com, a@test.example.com"
	for _, c := range []struct{ tool, want string }{
		{"qa_lookup", "[REDACTED:CUSTOMER], [REDACTED:CODENAME]: support@example.com, a@test.example.com"},
		{"lookup", "[REDACTED:CUSTOMER], Bluebird: support@example.com, [REDACTED:EMAIL]"},
	} {
		matched := p.Match(&policy.Principal{ID: "u"}, &policy.Primitive{Kind: policy.KindTool, Name: c.tool})
		pl, err := e.Compile(p.OutputPipeline(matched, nil))
		if err != nil {
			t.Fatal(err)
		}
		if got := e.ApplyText(pl, text, &Run{}); got != c.want {
			t.Errorf("%s: %q, want %q", c.tool, got, c.want)
		}
		found, allowed := e.DetectionsExplained(pl, text)
		for _, d := range found {
			if (d.Detector == "crm" || d.Detector == "codes") && d.Basis.String() != "dictionary" {
				t.Errorf("%s: %+v", c.tool, d)
			}
		}
		if len(allowed) == 0 || allowed[0].By != "detection.allow[0]" {
			t.Errorf("%s: allowed %+v", c.tool, allowed)
		}
	}
}
