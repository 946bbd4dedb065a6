package detect

import (
	"slices"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/policy"
)

func TestAllow(t *testing.T) {
	ds := dictSet(t, `
detection:
  allow:
    - values: ["support@example.com", "Acme  Widgets"]
      detectors: [email, crm]
    - globs: ["*@noreply.example.com"]
    - patterns: ['4111 ?1111 ?1111 ?1111']
      detectors: [credit_card]
  dictionaries:
    - {name: crm, terms: ["Acme Widgets", "Globex"]}
`)
	sel := Select(nil, 0)
	cases := []struct {
		text string
		want []string
	}{
		{"write to support@example.com or bob@example.com", []string{"email:bob@example.com"}},
		{"SUPPORT@Example.COM", []string{}},
		{"x@NoReply.example.com and x@reply.example.com", []string{"email:x@reply.example.com"}},
		{"card 4111 1111 1111 1111 and 4111111111111111", []string{}},
		{"card 5555 5555 5555 4444", []string{"credit_card:5555 5555 5555 4444"}},
		{"ACME widgets and Globex", []string{"crm:Globex"}},
		{"acme\nwidgets", []string{}},
		// An allowed span hides no longer finding over it.
		{"https://admin:hunter2@support@example.com", nil},
	}
	for _, c := range cases {
		got := spansOf(c.text, ds.Detect(c.text, sel))
		if c.want != nil && !slices.Equal(got, c.want) {
			t.Errorf("%q: %v, want %v", c.text, got, c.want)
		}
	}
	// A value allowed for one detector stays reported by another.
	only := dictSet(t, "detection: {allow: [{values: [\"4111111111111111\"], detectors: [phone]}]}\n")
	if got := spansOf("4111111111111111", only.Detect("4111111111111111", sel)); !slices.Equal(got, []string{"credit_card:4111111111111111"}) {
		t.Errorf("allowed for phone only: %v", got)
	}
	// explain: what was allowed, and by which entry.
	found, allowed := ds.DetectExplained("support@example.com, 4111 1111 1111 1111", sel)
	if len(found) != 0 || len(allowed) != 2 || allowed[0].By != "detection.allow[0]" || allowed[1].By != "detection.allow[2]" || allowed[1].Detector != "credit_card" {
		t.Errorf("DetectExplained: %v, %+v", found, allowed)
	}
}

// TestAllowLongerFinding: the allowed address inside a URL with
// credentials does not hide the URL's finding.
func TestAllowLongerFinding(t *testing.T) {
	ds := dictSet(t, "detection: {allow: [{values: [\"db.example.com\"]}], dictionaries: [{name: hosts, terms: [\"db.example.com\"]}]}\n")
	text := "postgres://app:s3cretPassw0rd@db.example.com/main"
	var names []string
	for _, d := range ds.Detect(text, Select(nil, 0)) {
		names = append(names, d.Detector)
	}
	if !slices.Contains(names, "url_credentials") || slices.Contains(names, "hosts") {
		t.Errorf("%q: %v, want url_credentials and no hosts", text, spansOf(text, ds.Detect(text, Select(nil, 0))))
	}
}

// TestAllowPerRule: the allow list and dictionary of a rule apply to the
// selections of calls that match it (WithRules), not to others.
func TestAllowPerRule(t *testing.T) {
	p, errs := policy.ParsePolicy([]byte(`
transforms: [redact]
detection: {allow: [{values: [policy@example.com]}]}
rules:
  - match: {names: ["qa_*"]}
    detection:
      allow: [{globs: ["*@test.example.com"]}]
      dictionaries: [{name: qa_terms, terms: [Bluebird]}]
`), policy.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	ds, err := NewSet(p)
	if err != nil {
		t.Fatal(err)
	}
	text := "policy@example.com a@test.example.com Bluebird"
	call := func(tool string) []string {
		matched := p.Match(&policy.Principal{ID: "u"}, &policy.Primitive{Kind: policy.KindTool, Name: tool})
		e := p.OutputPipeline(matched, nil)[0]
		sel := ds.WithRules(Select(nil, 0), e.Detection)
		if ds.Clean(text, &sel) {
			t.Errorf("%s: Clean", tool)
		}
		return spansOf(text, ds.Detect(text, sel))
	}
	if got := call("qa_lookup"); !slices.Equal(got, []string{"qa_terms:Bluebird"}) {
		t.Errorf("qa call: %v", got)
	}
	if got := call("lookup"); !slices.Equal(got, []string{"email:a@test.example.com"}) {
		t.Errorf("other call: %v", got)
	}
	// The union of a pipeline's selections keeps the rules'.
	sel := ds.WithRules(Select([]string{"email"}, 0), p.OutputPipeline(p.Rules, nil)[0].Detection)
	u := Union([]*Selection{&sel})
	if got := spansOf(text, ds.Detect(text, u)); !slices.Equal(got, []string{}) {
		t.Errorf("union: %v", got)
	}
}

// FuzzAllowValue: an allow value allows exactly the values equal to it
// after folding case (strings.EqualFold on each rune's orbit) and white
// space; the folded form is stable.
func FuzzAllowValue(f *testing.F) {
	f.Add("Support@Example.com", "support@example.COM")
	f.Add("Acme  Widgets", " acme\twidgets ")
	f.Add("ſ K", "S k")
	f.Fuzz(func(t *testing.T, allowed, value string) {
		if strings.TrimSpace(allowed) == "" || !validUTF8(allowed) || !validUTF8(value) {
			return
		}
		e, err := newAllowEntry(&policy.AllowEntry{Values: []string{allowed}})
		if err != nil {
			t.Fatal(err)
		}
		got := e.allows("email", value, foldValue(nil, value))
		want := strings.EqualFold(strings.Join(strings.FieldsFunc(allowed, isSpaceRune), " "), strings.Join(strings.FieldsFunc(value, isSpaceRune), " "))
		if got != want {
			t.Fatalf("allow %q, value %q: %v, want %v", allowed, value, got, want)
		}
		if v := string(foldValue(nil, value)); string(foldValue(nil, v)) != v {
			t.Fatalf("fold of %q not stable", value)
		}
	})
}

// An allow entry takes away a value its key would report, as it takes
// away one a scan finds (regression: DetectKeyed added the keyed
// detection after the allow lists had run).
func TestAllowKeyed(t *testing.T) {
	ds := dictSet(t, `
detection:
  allow:
    - values: ["Jane Doe"]
      detectors: [person]
`)
	sel := Select(nil, 0)
	for _, c := range []struct {
		value string
		want  bool
	}{{"Jane Doe", false}, {"jane  DOE", false}, {"Alice Martin", true}} {
		k := (ctxPerson | ctxAddress).Of(classifyKey("name", nil))
		found := ds.DetectKeyed(nil, c.value, k, sel)
		if got := len(found) > 0; got != c.want {
			t.Errorf("name %q: %v, want reported %v", c.value, found, c.want)
		}
	}
}
