package policy

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestDetectionDecode(t *testing.T) {
	p := cfParse(t, `
detectors: [{name: employee_id, pattern: 'EMP-\d+'}]
detection:
  allow:
    - values: ["support@example.com"]
      globs: ["*@example.com"]
      patterns: ['4111 ?1111 ?1111 ?1111']
      detectors: [email, credit_card, employee_id, crm]
  dictionaries:
    - name: crm
      terms: ["Acme Widgets", "Project Bluebird"]
    - {name: codes, label: CODENAME, sensitivity: restricted, group: secrets, terms: [Bluebird]}
  keys: {person: [kunde, client_name]}
  context: {date_of_birth: [verjaardag]}
  phone_regions: [GB, DE]
transforms: [{type: redact, options: {detectors: [crm, "@pii"]}}]
disabled_detectors: [codes]
rules:
  - match: {names: ["qa_*"]}
    detection:
      allow: [{values: [x], detectors: [qa_terms]}]
      dictionaries: [{name: qa_terms, terms: [alpha]}]
`)
	d := p.Detection
	if d == nil || d.Path != "detection" {
		t.Fatalf("Detection = %+v", d)
	}
	want := AllowEntry{Values: []string{"support@example.com"}, Globs: []string{"*@example.com"},
		Patterns: []string{"4111 ?1111 ?1111 ?1111"}, Detectors: []string{"email", "credit_card", "employee_id", "crm"}, Path: "detection.allow[0]"}
	if len(d.Allow) != 1 || !reflect.DeepEqual(d.Allow[0], want) {
		t.Errorf("Allow = %+v, want %+v", d.Allow, want)
	}
	if len(d.Dictionaries) != 2 {
		t.Fatalf("Dictionaries = %+v", d.Dictionaries)
	}
	crm, codes := d.Dictionaries[0], d.Dictionaries[1]
	if crm.Label != "CRM" || crm.Sensitivity != Confidential || crm.Group != "pii" || len(crm.Terms) != 2 || crm.Path != "detection.dictionaries[0]" {
		t.Errorf("crm = %+v", crm)
	}
	if codes.Label != "CODENAME" || codes.Sensitivity != Restricted || codes.Group != "secrets" {
		t.Errorf("codes = %+v", codes)
	}
	if !reflect.DeepEqual(d.Keys, map[string][]string{"person": {"kunde", "client_name"}}) ||
		!reflect.DeepEqual(d.Context, map[string][]string{"date_of_birth": {"verjaardag"}}) ||
		!reflect.DeepEqual(d.PhoneRegions, []string{"GB", "DE"}) {
		t.Errorf("keys %v context %v regions %v", d.Keys, d.Context, d.PhoneRegions)
	}
	r := p.Rules[0].Detection
	if r == nil || r.Path != "rules[0].detection" || len(r.Allow) != 1 || len(r.Dictionaries) != 1 || r.Dictionaries[0].Name != "qa_terms" {
		t.Errorf("rule detection = %+v", r)
	}
}

// TestDetectionErrors: every field's errors carry the JSON path of the
// offending value.
func TestDetectionErrors(t *testing.T) {
	cases := []struct {
		name, src string
		path, msg string
	}{
		{"not an object", `detection: [1]`, "detection", "want object"},
		{"unknown key", `detection: {allowed: []}`, "detection.allowed", "unknown key"},
		{"allow not a list", `detection: {allow: {values: [a]}}`, "detection.allow", "want list of allow entries"},
		{"allow entry empty", `detection: {allow: [{}]}`, "detection.allow[0]", "needs values, globs or patterns"},
		{"allow unknown key", `detection: {allow: [{value: [a]}]}`, "detection.allow[0].value", "unknown key"},
		{"empty value", `detection: {allow: [{values: [" "]}]}`, "detection.allow[0].values[0]", "empty value"},
		{"value not a string", `detection: {allow: [{values: [1]}]}`, "detection.allow[0].values[0]", "want value string"},
		{"long glob", `detection: {allow: [{globs: ["` + strings.Repeat("a", 1025) + `"]}]}`, "detection.allow[0].globs[0]", "longer than 1024"},
		{"negated glob", `detection: {allow: [{globs: ["!a*"]}]}`, "detection.allow[0].globs[0]", "negations"},
		{"bad RE2", `detection: {allow: [{patterns: ["a(b"]}]}`, "detection.allow[0].patterns[0]", "does not compile as RE2"},
		{"RE2 lookahead", `detection: {allow: [{patterns: ["a(?=b)"]}]}`, "detection.allow[0].patterns[0]", "does not compile as RE2"},
		{"unknown detector", `detection: {allow: [{values: [a], detectors: [emial]}]}`, "detection.allow[0].detectors[0]", `unknown detector "emial"`},
		{"empty detectors", `detection: {allow: [{values: [a], detectors: []}]}`, "detection.allow[0].detectors", "empty list"},
		{"dictionary without name", `detection: {dictionaries: [{terms: [a]}]}`, "detection.dictionaries[0]", `missing required key "name"`},
		{"dictionary bad name", `detection: {dictionaries: [{name: CRM, terms: [a]}]}`, "detection.dictionaries[0].name", "lower-case identifier"},
		{"dictionary built-in name", `detection: {dictionaries: [{name: email, terms: [a]}]}`, "detection.dictionaries[0].name", "built-in detector"},
		{"dictionary custom name", "detectors: [{name: crm, pattern: x}]\ndetection: {dictionaries: [{name: crm, terms: [a]}]}", "detection.dictionaries[0].name", "custom detector"},
		{"duplicate dictionary", `detection: {dictionaries: [{name: crm, terms: [a]}, {name: crm, terms: [b]}]}`, "detection.dictionaries[1].name", "duplicate dictionary name"},
		{"duplicate across rule", "detection: {dictionaries: [{name: crm, terms: [a]}]}\nrules: [{detection: {dictionaries: [{name: crm, terms: [b]}]}}]", "rules[0].detection.dictionaries[0].name", "duplicate dictionary name"},
		{"empty term", `detection: {dictionaries: [{name: crm, terms: ["Acme", ""]}]}`, "detection.dictionaries[0].terms[1]", "empty term"},
		{"long term", `detection: {dictionaries: [{name: crm, terms: ["` + strings.Repeat("a", 257) + `"]}]}`, "detection.dictionaries[0].terms[0]", "longer than 256"},
		{"no terms", `detection: {dictionaries: [{name: crm}]}`, "detection.dictionaries[0]", "needs terms or a file"},
		{"bad label", `detection: {dictionaries: [{name: crm, label: crm, terms: [a]}]}`, "detection.dictionaries[0].label", "upper-case label"},
		{"bad sensitivity", `detection: {dictionaries: [{name: crm, sensitivity: secret, terms: [a]}]}`, "detection.dictionaries[0].sensitivity", "unknown sensitivity"},
		{"bad group", `detection: {dictionaries: [{name: crm, group: "@pii", terms: [a]}]}`, "detection.dictionaries[0].group", "unknown group"},
		{"empty file", `detection: {dictionaries: [{name: crm, file: ""}]}`, "detection.dictionaries[0].file", "empty file name"},
		{"keys not a map", `detection: {keys: [person]}`, "detection.keys", "want object"},
		{"keys of a pass detector", `detection: {keys: {email: [mail]}}`, "detection.keys.email", "not a built-in detector that reads"},
		{"keys of an unknown detector", `detection: {keys: {persn: [kunde]}}`, "detection.keys.persn", "not a built-in detector"},
		{"empty key", `detection: {keys: {person: [""]}}`, "detection.keys.person[0]", "empty JSON member name"},
		{"context not a list", `detection: {context: {date_of_birth: born}}`, "detection.context.date_of_birth", "want list of context words"},
		{"empty context word", `detection: {context: {date_of_birth: [" "]}}`, "detection.context.date_of_birth[0]", "empty context word"},
		{"bad region", `detection: {phone_regions: [gb]}`, "detection.phone_regions[0]", "ISO 3166-1 alpha-2"},
		{"long region", `detection: {phone_regions: [GBR]}`, "detection.phone_regions[0]", "ISO 3166-1 alpha-2"},
		{"duplicate region", `detection: {phone_regions: [GB, GB]}`, "detection.phone_regions[1]", "duplicate region"},
		{"region not a string", `detection: {phone_regions: [44]}`, "detection.phone_regions[0]", "want region code"},
		{"keys in a rule", `rules: [{detection: {keys: {person: [kunde]}}}]`, "rules[0].detection.keys", "policy-wide"},
		{"regions in a role", `roles: {qa: {detection: {phone_regions: [GB]}}}`, "roles.qa.detection.phone_regions", "policy-wide"},
		{"rule unknown detector", `rules: [{detection: {allow: [{values: [a], detectors: [nope]}]}}]`, "rules[0].detection.allow[0].detectors[0]", "unknown detector"},
		{"unknown dictionary in options", `transforms: [{type: redact, options: {detectors: [crm]}}]`, "transforms[0].options.detectors[0]", "unknown detector"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errs := cfErrors(t, c.src)
			for _, e := range errs {
				if e.Path == c.path && strings.Contains(e.Msg, c.msg) {
					return
				}
			}
			t.Errorf("errors %v, want one at %s containing %q", errs, c.path, c.msg)
		})
	}
}

// TestDetectionNamesReferenced: dictionaries are detector names for
// detectors options, disabled_detectors and allow entries, in the policy,
// its rules and a child policy.
func TestDetectionNamesReferenced(t *testing.T) {
	cfParse(t, `
transforms: [{type: redact, options: {detectors: [crm, qa_terms]}}]
disabled_detectors: [qa_terms]
detection: {allow: [{values: [a], detectors: [qa_terms]}], dictionaries: [{name: crm, terms: [Acme]}]}
roles: {qa: {detection: {dictionaries: [{name: qa_terms, terms: [x]}]}}}
`)
	fs := exFS{
		"/p/base.yaml":  `detection: {dictionaries: [{name: crm, terms: [Acme]}]}`,
		"/p/child.yaml": "extends: base.yaml\ntransforms: [{type: redact, options: {detectors: [crm]}}]\ndetection: {allow: [{values: [a], detectors: [crm]}]}",
	}
	fs.mustParse(t, "/p/child.yaml")
}

func TestDetectionExtends(t *testing.T) {
	fs := exFS{
		"/p/base.yaml": `
detection:
  allow: [{values: [a@example.com]}]
  dictionaries: [{name: crm, terms: [Acme]}, {name: codes, terms: [Bluebird]}]
  keys: {person: [kunde]}
  context: {date_of_birth: [born]}
  phone_regions: [GB]
`,
		"/p/child.yaml": `
extends: base.yaml
detection:
  allow: [{globs: ["*@test.example.com"]}]
  dictionaries: [{name: codes, label: CODE, terms: [Redbird]}, {name: more, terms: [x]}]
  keys: {person: [kunde, client_name], passport: [reisepass]}
  phone_regions: [DE, FR]
`,
	}
	p := fs.mustParse(t, "/p/child.yaml")
	d := p.Detection
	if len(d.Allow) != 2 || d.Allow[0].Values[0] != "a@example.com" || d.Allow[1].Globs[0] != "*@test.example.com" || d.Allow[1].Path != "detection.allow[1]" {
		t.Errorf("allow = %+v, want the parent's then the child's", d.Allow)
	}
	var names []string
	for _, dc := range d.Dictionaries {
		names = append(names, dc.Name+":"+dc.Label+":"+strings.Join(dc.Terms, ","))
	}
	if want := []string{"crm:CRM:Acme", "codes:CODE:Redbird", "more:MORE:x"}; !slices.Equal(names, want) {
		t.Errorf("dictionaries = %v, want %v", names, want)
	}
	if !reflect.DeepEqual(d.Keys, map[string][]string{"person": {"kunde", "client_name"}, "passport": {"reisepass"}}) {
		t.Errorf("keys = %v", d.Keys)
	}
	if !reflect.DeepEqual(d.Context, map[string][]string{"date_of_birth": {"born"}}) {
		t.Errorf("context = %v", d.Context)
	}
	if !slices.Equal(d.PhoneRegions, []string{"DE", "FR"}) {
		t.Errorf("phone_regions = %v, want the child's", d.PhoneRegions)
	}
}

func TestDetectionDictionaryFile(t *testing.T) {
	fs := exFS{
		"/p/policy.yaml":   `detection: {dictionaries: [{name: crm, terms: [Acme], file: customers.txt}]}`,
		"/p/customers.txt": "# customers\nGlobex Corporation\n\n  Initech  \n",
		"/p/bad.yaml":      `detection: {dictionaries: [{name: crm, file: missing.txt}]}`,
		"/p/badterm.yaml":  `detection: {dictionaries: [{name: crm, file: bad.txt}]}`,
		"/p/bad.txt":       "ok\n" + strings.Repeat("x", 300) + "\n",
		"/p/inherits.yaml": `extends: policy.yaml`,
	}
	p := fs.mustParse(t, "/p/policy.yaml")
	dc := p.Detection.Dictionaries[0]
	if !dc.FileRead || !slices.Equal(dc.Terms, []string{"Acme", "Globex Corporation", "Initech"}) {
		t.Errorf("dictionary = %+v", dc)
	}
	if p := fs.mustParse(t, "/p/inherits.yaml"); len(p.Detection.Dictionaries[0].Terms) != 3 {
		t.Errorf("inherited dictionary = %+v", p.Detection.Dictionaries[0])
	}
	_, errs := fs.parse(t, "/p/bad.yaml")
	if len(errs) != 1 || errs[0].Path != "detection.dictionaries[0].file" || !strings.Contains(errs[0].Msg, "cannot read") {
		t.Errorf("missing file: %v", errs)
	}
	_, errs = fs.parse(t, "/p/badterm.yaml")
	if len(errs) != 1 || !strings.Contains(errs[0].Msg, "line 2: term longer than 256 bytes") {
		t.Errorf("bad term: %v", errs)
	}
	// Without a file system (the plugin), the file is not read.
	p = cfParse(t, `detection: {dictionaries: [{name: crm, terms: [Acme], file: customers.txt}]}`)
	if dc := p.Detection.Dictionaries[0]; dc.FileRead || len(dc.Terms) != 1 || dc.File != "customers.txt" {
		t.Errorf("plugin dictionary = %+v", dc)
	}
}

// TestDetectionPerRule: a call matching a rule gets its detection block on
// every entry of its pipelines; another call does not.
func TestDetectionPerRule(t *testing.T) {
	p := cfParse(t, `
transforms: [{type: redact, options: {detectors: ["@pii"]}}]
input_transforms: [redact]
detection: {allow: [{values: [policy@example.com]}]}
rules:
  - match: {names: ["qa_*"]}
    detection: {allow: [{values: [qa@example.com]}]}
  - match: {names: ["qa_*"]}
    allow_tools: ["*"]
roles:
  ops: {detection: {dictionaries: [{name: hosts, terms: [db-1]}]}}
`)
	tool := func(name string) *Primitive { return &Primitive{Kind: KindTool, Name: name} }
	qa := p.Match(&Principal{ID: "u"}, tool("qa_lookup"))
	other := p.Match(&Principal{ID: "u"}, tool("lookup"))
	both := p.Match(&Principal{ID: "u", Roles: []string{"ops"}}, tool("qa_lookup"))
	for _, e := range p.OutputPipeline(qa, nil) {
		if len(e.Detection) != 1 || e.Detection[0].Allow[0].Values[0] != "qa@example.com" {
			t.Errorf("qa output entry %s: Detection = %v", e.ID, e.Detection)
		}
	}
	for _, e := range p.InputPipeline(qa, nil) {
		if len(e.Detection) != 1 && e.ID != DepseudonymiseID {
			t.Errorf("qa input entry %s: Detection = %v", e.ID, e.Detection)
		}
	}
	for _, e := range p.OutputPipeline(other, nil) {
		if e.Detection != nil {
			t.Errorf("other call's entry %s: Detection = %v, want none", e.ID, e.Detection)
		}
	}
	out := p.OutputPipeline(both, nil)
	if len(out[0].Detection) != 2 || out[0].Detection[0].Path != "roles.ops.detection" || out[0].Detection[1].Path != "rules[0].detection" {
		t.Errorf("role and rule: Detection = %+v", out[0].Detection)
	}
}

// FuzzReadDictionaryFile: every term read is trimmed, non-empty, valid
// UTF-8 and within MaxTermBytes, and no comment line becomes a term.
func FuzzReadDictionaryFile(f *testing.F) {
	f.Add([]byte("# c\nAcme\n\n  Globex  \r\n"))
	f.Add([]byte(strings.Repeat("x", 300)))
	f.Fuzz(func(t *testing.T, data []byte) {
		terms, line, msg := ReadDictionaryFile(data)
		if (msg == "") != (line == 0) {
			t.Fatalf("line %d with message %q", line, msg)
		}
		for _, term := range terms {
			if term == "" || term != strings.TrimSpace(term) || termProblem(term) != "" || strings.HasPrefix(term, "#") {
				t.Fatalf("bad term %q", term)
			}
		}
	})
}
