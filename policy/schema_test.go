package policy

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var compiledSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(JSONSchema()))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("policy.schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("policy.schema.json")
})

// schemaValidate validates a YAML or JSON configuration against JSONSchema.
func schemaValidate(t testing.TB, src []byte) error {
	t.Helper()
	sch, err := compiledSchema()
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	doc, err := ParseDocument(src)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(doc.JSON("")))
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(inst)
}

// schemaOnlyDecoder are the invalid fixtures of the decoder's tests that
// the schema accepts, each with what only the decoder can check. The list
// is exact: a fixture the schema starts rejecting must leave it.
var schemaOnlyDecoder = func() map[string]string {
	const (
		re2        = "RE2 compiling the pattern and counting its groups"
		ids        = "transform ids: each unique in its pipeline, one type per id, options keyed by an id the policy (or its parent) uses"
		names      = "which custom detector names the policy (or its parent) defines"
		duplicates = "duplicates across entries"
	)
	m := map[string]string{}
	for why, cases := range map[string][]string{
		re2: {"TestDecodeErrorsDetectors/pattern-unclosed", "TestDecodeErrorsDetectors/pattern-lookahead",
			"TestDecodeErrorsDetectors/pattern-backref", "TestDecodeErrorsDetectors/pattern-repeat",
			"TestDecodeErrorsDetectors/group-too-big", "TestDecodeErrorsDetectors/group-name"},
		ids: {"TestDecodeErrorsUnknownKeys/option-by-id", "TestDecodeErrorsTransforms/duplicate-id",
			"TestDecodeErrorsTransforms/id-two-types", "TestDecodeErrorsTransforms/options-key-neither",
			"TestDecodeErrorsTransforms/rule-options-key-neither", "TestEnvelopeErrors/hints-option-of-id",
			"TestExtendsProfileReferences/option-of-inherited-id", "TestExtendsProfileReferences/unknown-id"},
		names: {"TestDecodeErrorsTransforms/detector-unknown", "TestDecodeErrorsTransforms/detector-rule",
			"TestDecodeErrorsTransforms/detector-input", "TestDecodeErrorsTransforms/detector-transform_options",
			"TestDecodeErrorsTransforms/disabled-unknown", "TestExtendsProfileReferences/unknown-detector"},
		duplicates: {"TestDecodeErrorsDetectors/name-duplicate", "TestEnvelopeErrors/export-header-duplicate",
			"TestDecodeErrorsVault/previous_keys_env-is-key_env", "TestDecodeErrorsVault/previous_keys_env-default-key_env"},
	} {
		for _, c := range cases {
			m[c] = why
		}
	}
	return m
}()

// schemaAgrees: an invalid fixture of the decoder's tests is rejected by the
// schema too, unless schemaOnlyDecoder names it.
func schemaAgrees(t *testing.T, name, src string) {
	t.Helper()
	err := schemaValidate(t, []byte(src))
	if why, ok := schemaOnlyDecoder[name]; ok {
		if err != nil {
			t.Errorf("%s: the schema now rejects it (%v); drop it from schemaOnlyDecoder (%s)", name, err, why)
		}
		return
	}
	if err == nil {
		t.Errorf("%s: the decoder rejects %s, the schema accepts it", name, src)
	}
}

func TestJSONSchemaCompiles(t *testing.T) {
	if _, err := compiledSchema(); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(JSONSchema(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema %v", doc["$schema"])
	}
}

// TestSchemaDescribesEveryField: every field has a description, and every
// field the manual's tables document is a field of the schema (and so a
// key the decoder accepts).
func TestSchemaDescribesEveryField(t *testing.T) {
	fields := map[string]bool{}
	for _, o := range schemaObjects() {
		for _, f := range o.fields {
			fields[o.name+"."+f.key] = true
			if f.describe(o.name) == "" {
				t.Errorf("%s.%s has no description (none in the manual's tables, none in the table)", o.name, f.key)
			}
		}
	}
	for _, f := range accessFields() {
		fields["AccessRules."+f.key] = true
	}
	for name := range detectionOptions {
		fields["DetectionOptions."+name] = true
	}
	for k := range manualFields {
		if !fields[k] {
			t.Errorf("the manual documents %s, which the schema does not have", k)
		}
	}
	for _, tt := range TransformTypes {
		for name := range tt.Options {
			if optionDescription(name) == "" {
				t.Errorf("option %s of %s has no description", name, tt.Name)
			}
		}
	}
}

// TestSchemaAcceptsTheExamples: every policy under testdata/ and every
// YAML example of the manual that the decoder accepts, the schema accepts.
func TestSchemaAcceptsTheExamples(t *testing.T) {
	var files []string
	for _, g := range []string{"../testdata/policies/*.yaml", "../testdata/policies/*.json", "testdata/*.yaml", "testdata/*/*.yaml"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	if len(files) < 3 {
		t.Fatalf("only %d policy files found", len(files))
	}
	sources := map[string][]byte{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources[f] = src
	}
	for name, src := range Profiles {
		sources["profile "+name] = []byte(src)
	}
	n := 0
	for f, src := range sources {
		if _, errs := ParseEnvelope(src, Options{File: f, ReadFile: os.ReadFile}); len(errs) > 0 {
			continue // a fixture of an error test
		}
		n++
		if err := schemaValidate(t, src); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	md, err := os.ReadFile("../docs/MCP_PRIVACY.md")
	if err != nil {
		t.Fatal(err)
	}
	examples := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(md, -1)
	accepted := 0
	for _, ex := range examples {
		src := ex[1]
		if _, errs := ParseEnvelope(src, Options{ReadFile: func(string) ([]byte, error) { return []byte("{}"), nil }}); len(errs) > 0 {
			continue // a fragment (a list, a value), or an example of an error
		}
		accepted++
		if err := schemaValidate(t, src); err != nil {
			t.Errorf("manual example:\n%s\n%v", src, err)
		}
	}
	if accepted < 15 {
		t.Errorf("only %d of the manual's %d YAML examples decode", accepted, len(examples))
	}
	t.Logf("%d policy files and %d of the manual's %d YAML examples validate", n, accepted, len(examples))
}

// TestSchemaDefaultsAreTheDecoders: writing a field's schema default
// explicitly decodes to what leaving it out does.
func TestSchemaDefaultsAreTheDecoders(t *testing.T) {
	// Where each object sits in a document the decoder accepts.
	wrap := map[string]func(obj string) string{
		"Server":   func(o string) string { return `{"policy": "standard", "server": ` + o + `}` },
		"Identity": func(o string) string { return `{"policy": "standard", "identity": ` + o + `}` },
		"JWT":      func(o string) string { return `{"policy": "standard", "identity": {"jwt": ` + o + `}}` },
		"Gateway":  func(o string) string { return `{"policy": "standard", "gateway": ` + o + `}` },
		"PrimitiveMatch": func(o string) string {
			return `{"policy": "standard", "server": {"primitives": [{"match": ` + o + `}]}}`
		},
		"PolicyConfig": func(o string) string { return `{"policy": ` + o + `}` },
		"RuleConfig":   func(o string) string { return `{"policy": {"rules": [` + o + `]}}` },
		"Detector": func(o string) string {
			return `{"policy": {"detectors": [` + withFirst(o, `"name": "d", "pattern": "x"`) + `]}}`
		},
		"RateLimit": func(o string) string {
			return `{"policy": {"rate_limits": [` + withFirst(o, `"rate": 2`) + `]}}`
		},
		"Vault": func(o string) string { return `{"policy": {"vault": ` + o + `}}` },
	}
	decode := func(src string) string {
		env, errs := ParseEnvelope([]byte(src), Options{})
		if len(errs) > 0 {
			t.Fatalf("%s: %v", src, errs)
		}
		// What the plugin runs on: the decoded structures, as values.
		rates := []any{}
		for _, r := range env.Policy.RateLimits {
			rates = append(rates, []any{r.Rate, r.Per, r.Burst, r.Scope, r.Tools.Patterns(), r.Kinds})
		}
		prims := []any{}
		for _, p := range env.Server.Primitives {
			prims = append(prims, []any{p.Kinds, p.Names.Patterns()})
		}
		rules := []any{}
		for _, r := range env.Policy.Rules {
			rules = append(rules, []any{r.Name, r.Description, r.TransformsMode, r.HonorHints, r.Transforms, r.InputTransforms, r.RateLimits, r.TransformOptions})
		}
		g := env.Gateway
		desc := env.Policy.Describe(func(string) (string, bool) { return "", false })
		desc.Rules = nil // the rules as written; rules below holds them as decoded
		b, err := json.Marshal([]any{
			desc,
			env.Server.ID, env.Server.LearnFromLists, env.Server.RequireKnown, prims,
			env.Identity,
			g.Paths.Patterns(), g.VirtualTools, g.MaxRequestBytes, g.MaxResponseBytes, g.MaxEventBytes,
			g.PassOnParseError, g.PassOnOversize, g.ExportHeaders, g.HoldHeaders,
			env.Policy.Vault, rates, env.Policy.Detectors, rules,
		})
		if err != nil {
			t.Fatal(err)
		}
		// An empty list and no list mean the same to the plugin (no
		// keywords, no previous keys).
		return strings.ReplaceAll(string(b), "null", "[]")
	}
	checked := 0
	for _, o := range schemaObjects() {
		w, ok := wrap[o.name]
		if !ok {
			continue
		}
		base := decode(w("{}"))
		for _, f := range o.fields {
			if f.def == nil {
				continue
			}
			v, err := json.Marshal(f.def)
			if err != nil {
				t.Fatal(err)
			}
			if got := decode(w(`{"` + f.key + `": ` + string(v) + `}`)); got != base {
				t.Errorf("%s.%s: default %s decodes differently from leaving it out", o.name, f.key, v)
			}
			checked++
		}
	}
	if checked < 40 {
		t.Errorf("only %d defaults checked", checked)
	}
}

// withFirst puts members first into the JSON object o.
func withFirst(o, members string) string {
	if o == "{}" {
		return "{" + members + "}"
	}
	return "{" + members + ", " + o[1:]
}

// TestSchemaFileCurrent: docs/policy.schema.json, the file editors point
// at, is JSONSchema() (-update-manual rewrites it).
func TestSchemaFileCurrent(t *testing.T) {
	const file = "../docs/policy.schema.json"
	if *updateManual {
		if err := os.WriteFile(file, JSONSchema(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, JSONSchema()) {
		t.Error("docs/policy.schema.json is not JSONSchema(): go test ./policy -run 'TestSchema.*Current' -update-manual")
	}
}

// FuzzSchemaAcceptsWhatTheDecoderAccepts: the schema never flags a
// configuration the plugin would run (an editor must not reject a valid
// file).
func FuzzSchemaAcceptsWhatTheDecoderAccepts(f *testing.F) {
	for _, p := range Profiles {
		f.Add(p)
	}
	for _, s := range []string{
		`{"policy": "strict", "gateway": {"hold_headers": true, "export_headers": {"decision": "x-d"}}}`,
		`{"name": "p", "detectors": [{"name": "emp", "pattern": "E(\\d+)", "group": 1, "keywords": ["id"]}], "transforms": [{"type": "mask", "options": {"detectors": ["emp", "@pii"], "char": "#"}}]}`,
		`{"rules": [{"match": {"kinds": ["tool"], "sensitivity": ["restricted"]}, "transforms_mode": "replace", "honor_hints": null}], "vault": {"mode": "sealed", "ttl_seconds": 3600}}`,
		`{"server": {"primitives": [{"match": {"names": ["crm_*"]}, "transform_hints": {"skip": ["pii"], "redact": {"placeholder": "[x]"}}}]}, "identity": {"principal": [{"property": ["connection", "uri_san_peer_certificate"]}]}}`,
		`{"transforms": [{"type": "project", "options": {"include": ["a.b\\.c", "*.d"]}}], "rate_limits": [{"rate": 0.5, "per": "second", "burst": 3, "kinds": ["completion"]}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if _, errs := ParseEnvelope([]byte(src), Options{}); len(errs) > 0 {
			return
		}
		if err := schemaValidate(t, []byte(src)); err != nil {
			t.Errorf("the decoder accepts %s, the schema rejects it: %v", src, err)
		}
	})
}
