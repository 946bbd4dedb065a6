package policy

import (
	"reflect"
	"testing"
)

// plHints parses a transform_hints object written as JSON.
func plHints(t *testing.T, src string) *Metadata {
	t.Helper()
	if src == "" {
		return &Metadata{}
	}
	v, err := ParseJSON([]byte(src))
	if err != nil {
		t.Fatalf("hints %s: %v", src, err)
	}
	return &Metadata{Hints: v}
}

// plRules picks rules of p by name, in the order given.
func plRules(t *testing.T, p *Policy, names ...string) []*Rule {
	t.Helper()
	var out []*Rule
	for _, n := range names {
		found := false
		for _, r := range p.Rules {
			if r.Name == n {
				out = append(out, r)
				found = true
			}
		}
		if !found {
			t.Fatalf("no rule named %q", n)
		}
	}
	return out
}

func plEntry(t *testing.T, es []PipelineEntry, id string) PipelineEntry {
	t.Helper()
	for _, e := range es {
		if e.ID == id {
			return e
		}
	}
	t.Fatalf("no entry %q in %q", id, IDs(es))
	return PipelineEntry{}
}

func plNum(t *testing.T, e PipelineEntry, key string) float64 {
	t.Helper()
	v := e.Options.Get(key)
	if v == nil || v.Kind != NumberValue {
		t.Fatalf("entry %s: option %s = %v, want a number (options %s)", e.ID, key, v, e.Options.JSON(""))
	}
	return v.Num
}

func plStr(t *testing.T, e PipelineEntry, key string) string {
	t.Helper()
	v := e.Options.Get(key)
	if v == nil || v.Kind != StringValue {
		t.Fatalf("entry %s: option %s = %v, want a string (options %s)", e.ID, key, v, e.Options.JSON(""))
	}
	return v.Text
}

func plStrs(t *testing.T, e PipelineEntry, key string) []string {
	t.Helper()
	v := e.Options.Get(key)
	if v == nil || v.Kind != ArrayValue {
		t.Fatalf("entry %s: option %s = %v, want a list (options %s)", e.ID, key, v, e.Options.JSON(""))
	}
	out := []string{}
	for _, s := range v.Array {
		out = append(out, s.Text)
	}
	return out
}

// ---------------------------------------------------------------------------
// Output pipeline: policy transforms combined by each matched rule's
// transforms_mode, in order (manual 10, manual 6.3).

func TestOutputPipelineModes(t *testing.T) {
	p := dtParse(t, `
transforms: [redact]
rules:
  - {name: app, transforms: [mask]}
  - {name: pre, transforms: [hash], transforms_mode: prepend}
  - {name: rep, transforms: [truncate], transforms_mode: replace}
  - {name: app2, transforms: [detect, annotate], transforms_mode: append}
  - {name: pre2, transforms: [block, drop_binary], transforms_mode: prepend}
  - {name: none}
`)
	cases := []struct {
		matched []string
		want    []string
	}{
		{nil, []string{"redact"}},
		{[]string{"none"}, []string{"redact"}},
		{[]string{"app"}, []string{"redact", "mask"}},
		{[]string{"pre"}, []string{"hash", "redact"}},
		{[]string{"rep"}, []string{"truncate"}},
		{[]string{"app", "pre"}, []string{"hash", "redact", "mask"}},
		{[]string{"pre", "app"}, []string{"hash", "redact", "mask"}},
		{[]string{"app", "pre", "rep"}, []string{"truncate"}},
		{[]string{"app", "pre", "rep", "app2"}, []string{"truncate", "detect", "annotate"}},
		{[]string{"rep", "pre"}, []string{"hash", "truncate"}},
		{[]string{"pre", "rep"}, []string{"truncate"}},
		{[]string{"app2", "pre2", "app"}, []string{"block", "drop_binary", "redact", "detect", "annotate", "mask"}},
		{[]string{"rep", "app", "pre2", "none"}, []string{"block", "drop_binary", "truncate", "mask"}},
	}
	for _, c := range cases {
		got := IDs(p.OutputPipeline(plRules(t, p, c.matched...), nil))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("M=%q: pipeline %q, want %q", c.matched, got, c.want)
		}
	}
	// The policy's own list is not changed by resolving.
	if got := len(p.Transforms); got != 1 || p.Transforms[0].ID != "redact" {
		t.Errorf("policy transforms changed: %+v", p.Transforms)
	}
}

// The output pipeline of a real call uses M from Match: rules that do not
// match add nothing.
func TestOutputPipelineFromMatch(t *testing.T) {
	p := dtParse(t, `
transforms: [{type: redact, id: secrets}]
roles:
  analyst: {transforms: [{type: mask, id: cards}]}
  auditor: {transforms: [detect], transforms_mode: replace}
rules:
  - {match: {tags: [pii]}, transforms: [{type: pseudonymise, id: pii}], transforms_mode: prepend}
  - {match: {names: [export_*]}, transforms: [truncate]}
`)
	cases := []struct {
		pr   Principal
		x    Primitive
		want []string
	}{
		{dtWho("u"), dtTool("search"), []string{"secrets"}},
		{dtWho("u", "analyst"), dtTool("search"), []string{"secrets", "cards"}},
		{dtWho("u", "analyst"), dtTool("search", dtTags("pii")), []string{"pii", "secrets", "cards"}},
		{dtWho("u", "analyst", "auditor"), dtTool("search", dtTags("pii")), []string{"pii", "detect"}},
		{dtWho("u", "auditor"), dtTool("export_all"), []string{"detect", "truncate"}},
	}
	for _, c := range cases {
		pr, x := c.pr, c.x
		m := p.Match(&pr, &x)
		if got := IDs(p.OutputPipeline(m, &x.Metadata)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v %s: pipeline %q, want %q", pr.Roles, x.Name, got, c.want)
		}
	}
}

// ---------------------------------------------------------------------------
// Input pipeline: policy input_transforms + matched rules' appended +
// depseudonymise last (manual 10, 13).

func TestInputPipeline(t *testing.T) {
	p := dtParse(t, `
input_transforms: [{type: redact, id: in_policy}]
transform_options:
  in_policy: {placeholder: "[P]"}
rules:
  - {name: a, input_transforms: [{type: mask, id: in_a}]}
  - {name: b, input_transforms: [{type: hash, id: in_b}], transforms_mode: replace, transforms: [detect]}
  - {name: c, input_transforms: [{type: truncate, id: in_c}], transforms_mode: prepend}
`)
	cases := []struct {
		matched []string
		want    []string
	}{
		{nil, []string{"in_policy", "depseudonymise"}},
		{[]string{"a"}, []string{"in_policy", "in_a", "depseudonymise"}},
		{[]string{"a", "b", "c"}, []string{"in_policy", "in_a", "in_b", "in_c", "depseudonymise"}},
		{[]string{"c", "a"}, []string{"in_policy", "in_c", "in_a", "depseudonymise"}},
	}
	for _, c := range cases {
		got := p.InputPipeline(plRules(t, p, c.matched...), nil)
		if ids := IDs(got); !reflect.DeepEqual(ids, c.want) {
			t.Errorf("M=%q: input pipeline %q, want %q", c.matched, ids, c.want)
			continue
		}
		last := got[len(got)-1]
		if last.Type != "depseudonymise" || !last.Required {
			t.Errorf("M=%q: last entry %+v, want a required depseudonymise", c.matched, last)
		}
		if e := plEntry(t, got, "in_policy"); plStr(t, e, "placeholder") != "[P]" {
			t.Errorf("policy transform_options not applied to the input pipeline: %s", e.Options.JSON(""))
		}
	}

	// With no input transforms at all, the depseudonymiser is still there.
	q := dtParse(t, `name: t`)
	if ids := IDs(q.InputPipeline(nil, nil)); !reflect.DeepEqual(ids, []string{"depseudonymise"}) {
		t.Errorf("empty input pipeline = %q, want [depseudonymise]", ids)
	}

	// Hints cannot skip the depseudonymiser, but can skip other entries.
	meta := plHints(t, `{"skip": ["depseudonymise", "in_a"]}`)
	got := IDs(p.InputPipeline(plRules(t, p, "a"), meta))
	if want := []string{"in_policy", "depseudonymise"}; !reflect.DeepEqual(got, want) {
		t.Errorf("input pipeline with skip hints = %q, want %q", got, want)
	}
}

// ---------------------------------------------------------------------------
// Option merge order (manual 10): type defaults < entry options < policy
// transform_options[type] < [id] < each matched rule's [type] then [id] <
// honoured hints [type] then [id].

func TestPipelineOptionMergeOrder(t *testing.T) {
	type layers struct {
		entry  string // entry options (flow YAML object)
		policy string // policy transform_options
		a, b   string // transform_options of matched roles a and b
		hints  string // JSON
	}
	const unmatched = `{mask: {keep_last: 99, char: "c"}, m1: {keep_last: 98, char: "d"}}`
	cases := []struct {
		name     string
		l        layers
		keepLast float64
		char     string
	}{
		{"type defaults", layers{}, 4, "*"},
		{"entry options over defaults", layers{entry: `{keep_last: 3}`}, 3, "*"},
		{"entry options keep other defaults", layers{entry: `{char: "-"}`}, 4, "-"},
		{"policy [type] over entry", layers{entry: `{keep_last: 3}`, policy: `{mask: {keep_last: 2, char: "#"}}`}, 2, "#"},
		{"policy [type] keeps entry keys it does not set", layers{entry: `{keep_last: 3}`, policy: `{mask: {char: "#"}}`}, 3, "#"},
		{"policy [id] over policy [type]", layers{entry: `{keep_last: 3}`, policy: `{m1: {keep_last: 1}, mask: {keep_last: 2, char: "#"}}`}, 1, "#"},
		{"policy [id] over policy [type], type written last", layers{policy: `{mask: {keep_last: 2}, m1: {keep_last: 1}}`}, 1, "*"},
		{"rule [type] over policy [id]",
			layers{entry: `{keep_last: 3}`, policy: `{m1: {keep_last: 1}, mask: {char: "#"}}`, a: `{mask: {keep_last: 5}}`}, 5, "#"},
		{"rule [id] over rule [type]",
			layers{policy: `{m1: {keep_last: 1}}`, a: `{m1: {keep_last: 6}, mask: {keep_last: 5, char: "a"}}`}, 6, "a"},
		{"later rule [type] over earlier rule [id]",
			layers{policy: `{m1: {keep_last: 1}}`, a: `{m1: {keep_last: 6}, mask: {char: "a"}}`, b: `{mask: {keep_last: 7}}`}, 7, "a"},
		{"later rule [id] over its own [type]",
			layers{a: `{m1: {keep_last: 6, char: "a"}}`, b: `{m1: {char: "b"}, mask: {keep_last: 7, char: "x"}}`}, 7, "b"},
		{"hints [type] over rules",
			layers{a: `{m1: {keep_last: 6}}`, b: `{m1: {char: "b"}}`, hints: `{"mask": {"keep_last": 8}}`}, 8, "b"},
		{"hints [id] over hints [type]",
			layers{a: `{m1: {keep_last: 6}}`, b: `{m1: {char: "b"}}`, hints: `{"m1": {"char": "!"}, "mask": {"keep_last": 8, "char": "?"}}`}, 8, "!"},
		{"hints for another type change nothing",
			layers{entry: `{keep_last: 3}`, hints: `{"redact": {"placeholder": "x"}}`}, 3, "*"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			or := func(s string) string {
				if s == "" {
					return "{}"
				}
				return s
			}
			src := "transforms:\n  - {type: mask, id: m1, options: " + or(c.l.entry) + "}\n" +
				"transform_options: " + or(c.l.policy) + "\n" +
				"roles:\n" +
				"  a: {transform_options: " + or(c.l.a) + "}\n" +
				"  b: {transform_options: " + or(c.l.b) + "}\n" +
				"  c: {transform_options: " + unmatched + "}\n"
			p := dtParse(t, src)
			pr := dtWho("u", "a", "b")
			x := dtTool("t")
			x.Metadata = *plHints(t, c.l.hints)
			m := p.Match(&pr, &x)
			for _, es := range [][]PipelineEntry{p.OutputPipeline(m, &x.Metadata)} {
				e := plEntry(t, es, "m1")
				if e.Type != "mask" {
					t.Errorf("type %q, want mask", e.Type)
				}
				if got := plNum(t, e, "keep_last"); got != c.keepLast {
					t.Errorf("keep_last = %v, want %v (options %s)", got, c.keepLast, e.Options.JSON(""))
				}
				if got := plStr(t, e, "char"); got != c.char {
					t.Errorf("char = %q, want %q (options %s)", got, c.char, e.Options.JSON(""))
				}
			}
		})
	}
}

// Deep merge: maps merge key by key, lists and scalars replace (manual 10).
func TestPipelineOptionListsReplace(t *testing.T) {
	p := dtParse(t, `
transforms:
  - {type: mask, id: m1, options: {detectors: [email, phone], min_sensitivity: internal, fields: [a.b]}}
transform_options:
  mask: {detectors: [iban]}
roles:
  a: {transform_options: {m1: {fields: [c]}}}
`)
	pr := dtWho("u", "a")
	x := dtTool("t")
	e := plEntry(t, p.OutputPipeline(p.Match(&pr, &x), nil), "m1")
	if got := plStrs(t, e, "detectors"); !reflect.DeepEqual(got, []string{"iban"}) {
		t.Errorf("detectors = %q, want [iban] (lists replace)", got)
	}
	if got := plStrs(t, e, "fields"); !reflect.DeepEqual(got, []string{"c"}) {
		t.Errorf("fields = %q, want [c] (lists replace)", got)
	}
	if got := plStr(t, e, "min_sensitivity"); got != "internal" {
		t.Errorf("min_sensitivity = %q, want internal (kept from the entry)", got)
	}
	if got := plNum(t, e, "keep_last"); got != 4 {
		t.Errorf("keep_last = %v, want the default 4", got)
	}

	x.Metadata = *plHints(t, `{"m1": {"detectors": ["ipv4"]}}`)
	e = plEntry(t, p.OutputPipeline(p.Match(&pr, &x), &x.Metadata), "m1")
	if got := plStrs(t, e, "detectors"); !reflect.DeepEqual(got, []string{"ipv4"}) {
		t.Errorf("detectors with a hint = %q, want [ipv4]", got)
	}
}

func TestDeepMergeNestedMapsListsReplace(t *testing.T) {
	dst, err := ParseJSON([]byte(`{"a": {"x": 1, "y": {"p": 1, "q": 2}}, "l": [1, 2], "s": "keep", "o": {"k": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	src, err := ParseJSON([]byte(`{"a": {"y": {"q": 3, "r": 4}, "z": 5}, "l": [9], "o": "scalar", "n": {"new": true}}`))
	if err != nil {
		t.Fatal(err)
	}
	before := dst.JSON("")
	got := deepMerge(dst, src).JSON("")
	want := `{"a":{"x":1,"y":{"p":1,"q":3,"r":4},"z":5},"l":[9],"s":"keep","o":"scalar","n":{"new":true}}`
	if got != want {
		t.Errorf("deepMerge =\n %s\nwant\n %s", got, want)
	}
	if dst.JSON("") != before {
		t.Errorf("deepMerge modified its destination: %s", dst.JSON(""))
	}
}

// Resolving twice gives the same result, and the caller may change what it
// got without changing the policy.
func TestPipelineOptionsAreFresh(t *testing.T) {
	p := dtParse(t, `
transforms: [{type: mask, id: m1, options: {keep_last: 3}}]
transform_options: {mask: {char: "#"}}
`)
	first := p.OutputPipeline(nil, nil)
	first[0].Options.Set("keep_last", Number(0))
	first[0].Options.Set("char", String("X"))
	second := plEntry(t, p.OutputPipeline(nil, nil), "m1")
	if plNum(t, second, "keep_last") != 3 || plStr(t, second, "char") != "#" {
		t.Errorf("second resolution sees the first caller's changes: %s", second.Options.JSON(""))
	}
	if d := LookupTransformType("mask").Defaults.JSON(""); d != `{"keep_last":4,"char":"*"}` {
		t.Errorf("mask defaults changed: %s", d)
	}
}

// Defaults of manual 11 reach the pipeline.
func TestPipelineTypeDefaults(t *testing.T) {
	p := dtParse(t, `transforms: [redact, mask, truncate, hash]`)
	es := p.OutputPipeline(nil, nil)
	if got := plStr(t, plEntry(t, es, "redact"), "placeholder"); got != "[REDACTED:{label}]" {
		t.Errorf("redact placeholder = %q", got)
	}
	if got := plNum(t, plEntry(t, es, "mask"), "keep_last"); got != 4 {
		t.Errorf("mask keep_last = %v", got)
	}
	if got := plStr(t, plEntry(t, es, "mask"), "char"); got != "*" {
		t.Errorf("mask char = %q", got)
	}
	if got := plNum(t, plEntry(t, es, "truncate"), "max_chars"); got != 4096 {
		t.Errorf("truncate max_chars = %v", got)
	}
}

// ---------------------------------------------------------------------------
// transform_hints (manual 10.4).

func TestPipelineHonorHints(t *testing.T) {
	const hints = `{"skip": ["secrets"], "mask": {"keep_last": 1}}`
	cases := []struct {
		name    string
		policy  string
		roles   []string
		honored bool
	}{
		{"policy default honours", `name: t`, nil, true},
		{"policy true honours", `honor_hints: true`, nil, true},
		{"policy false ignores", `honor_hints: false`, nil, false},
		{"rule true re-enables", "honor_hints: false\nroles:\n  a: {honor_hints: true}", []string{"a"}, true},
		{"unmatched rule true does not re-enable", "honor_hints: false\nroles:\n  a: {honor_hints: true}", []string{"z"}, false},
		{"rule false disables", "roles:\n  a: {honor_hints: false}", []string{"a"}, false},
		{"last rule wins: false last", "honor_hints: false\nroles:\n  a: {honor_hints: true}\n  b: {honor_hints: false}", []string{"a", "b"}, false},
		{"last rule wins: true last", "roles:\n  a: {honor_hints: false}\n  b: {honor_hints: true}", []string{"a", "b"}, true},
		{"rule null keeps the earlier value", "honor_hints: false\nroles:\n  a: {honor_hints: true}\n  b: {honor_hints: null}", []string{"a", "b"}, true},
		{"rule without honor_hints keeps the policy's", "honor_hints: false\nroles:\n  a: {deny_tools: [z]}", []string{"a"}, false},
		{"rules after roles decide last", "roles:\n  a: {honor_hints: true}\nrules:\n  - {match: {kinds: [tool]}, honor_hints: false}", []string{"a"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.policy + "\ntransforms: [{type: redact, id: secrets}, {type: mask, id: m1}]"
			p := dtParse(t, src)
			pr := dtWho("u", c.roles...)
			x := dtTool("t")
			x.Metadata = *plHints(t, hints)
			m := p.Match(&pr, &x)
			if got := p.HonorsHints(m); got != c.honored {
				t.Errorf("HonorsHints = %v, want %v", got, c.honored)
			}
			es := p.OutputPipeline(m, &x.Metadata)
			ids := IDs(es)
			keep := plNum(t, plEntry(t, es, "m1"), "keep_last")
			if c.honored {
				if !reflect.DeepEqual(ids, []string{"m1"}) || keep != 1 {
					t.Errorf("hints not honoured: ids %q keep_last %v, want [m1] 1", ids, keep)
				}
			} else if !reflect.DeepEqual(ids, []string{"secrets", "m1"}) || keep != 4 {
				t.Errorf("hints honoured: ids %q keep_last %v, want [secrets m1] 4", ids, keep)
			}
		})
	}
}

func TestPipelineHintsSkip(t *testing.T) {
	const pol = `
transforms:
  - {type: redact, id: secrets}
  - {type: mask, id: m1}
  - {type: redact, id: req, options: {required: true}}
  - hash
`
	cases := []struct {
		name  string
		hints string
		want  []string
	}{
		{"no hints", ``, []string{"secrets", "m1", "req", "hash"}},
		{"skip by id", `{"skip": ["secrets"]}`, []string{"m1", "req", "hash"}},
		{"skip by id defaulted to the type", `{"skip": ["hash"]}`, []string{"secrets", "m1", "req"}},
		{"skip by type", `{"skip": ["mask"]}`, []string{"secrets", "req", "hash"}},
		{"skip by type drops every entry of it except required", `{"skip": ["redact"]}`, []string{"m1", "req", "hash"}},
		{"required entry cannot be skipped by id", `{"skip": ["req"]}`, []string{"secrets", "m1", "req", "hash"}},
		{"skip of an unknown id changes nothing", `{"skip": ["nope", "truncate"]}`, []string{"secrets", "m1", "req", "hash"}},
		{"hints cannot add entries", `{"truncate": {"max_chars": 10}, "project": {"include": ["a"]}, "annotate": {}}`, []string{"secrets", "m1", "req", "hash"}},
		{"hints cannot set required to avoid a skip", `{"skip": ["m1"], "m1": {"required": true}}`, []string{"secrets", "req", "hash"}},
		{"hints cannot set required by type", `{"skip": ["mask"], "mask": {"required": true}}`, []string{"secrets", "req", "hash"}},
		{"hints cannot clear required", `{"skip": ["req"], "req": {"required": false}, "redact": {"required": false}}`, []string{"secrets", "m1", "req", "hash"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := dtParse(t, pol)
			meta := plHints(t, c.hints)
			es := p.OutputPipeline(nil, meta)
			if got := IDs(es); !reflect.DeepEqual(got, c.want) {
				t.Errorf("pipeline %q, want %q", got, c.want)
			}
			for _, e := range es {
				wantReq := e.ID == "req"
				if e.Required != wantReq {
					t.Errorf("%s: Required = %v, want %v", e.ID, e.Required, wantReq)
				}
				r := e.Options.Get("required")
				gotReq := r != nil && r.Kind == BoolValue && r.Bool
				if gotReq != wantReq {
					t.Errorf("%s: options.required = %v, want %v", e.ID, r, wantReq)
				}
			}
		})
	}
}

// A required entry stays even when required comes from policy options and
// the hint skips it by type; hint options still change it.
func TestPipelineRequiredKeepsHintOptions(t *testing.T) {
	p := dtParse(t, `
transforms: [{type: mask, id: m1, options: {required: true}}]
`)
	meta := plHints(t, `{"skip": ["mask", "m1"], "m1": {"keep_last": 2}}`)
	es := p.OutputPipeline(nil, meta)
	if got := IDs(es); !reflect.DeepEqual(got, []string{"m1"}) {
		t.Fatalf("pipeline %q, want [m1]", got)
	}
	if !es[0].Required || plNum(t, es[0], "keep_last") != 2 {
		t.Errorf("entry %+v options %s: want required with keep_last 2", es[0], es[0].Options.JSON(""))
	}
}

// ---------------------------------------------------------------------------
// Entries: id defaults to type; pseudonymize is an alias (manual 10, 11).

func TestPipelineEntryIDsAndAlias(t *testing.T) {
	p := dtParse(t, `
transforms:
  - redact
  - {type: mask}
  - {type: hash, id: h1}
  - pseudonymize
  - {type: pseudonymize, id: p2}
`)
	es := p.OutputPipeline(nil, nil)
	want := []PipelineEntry{
		{ID: "redact", Type: "redact"},
		{ID: "mask", Type: "mask"},
		{ID: "h1", Type: "hash"},
		{ID: "pseudonymise", Type: "pseudonymise"},
		{ID: "p2", Type: "pseudonymise"},
	}
	if len(es) != len(want) {
		t.Fatalf("pipeline %q, want %d entries", IDs(es), len(want))
	}
	for i, w := range want {
		if es[i].ID != w.ID || es[i].Type != w.Type {
			t.Errorf("entry %d = {id %q type %q}, want {id %q type %q}", i, es[i].ID, es[i].Type, w.ID, w.Type)
		}
		if es[i].Options == nil || es[i].Options.Kind != ObjectValue {
			t.Errorf("entry %d options = %v, want an object", i, es[i].Options)
		}
	}
	// The alias entry gets options addressed by the canonical type name.
	q := dtParse(t, `
transforms: [pseudonymize]
transform_options: {pseudonymise: {min_sensitivity: restricted}}
`)
	if got := plStr(t, q.OutputPipeline(nil, nil)[0], "min_sensitivity"); got != "restricted" {
		t.Errorf("min_sensitivity = %q, want restricted", got)
	}
}

// The alias names the same type everywhere a type name is accepted:
// transform_options keys and transform_hints keys and skip lists.
func TestPipelineAliasAsOptionKey(t *testing.T) {
	t.Run("policy transform_options keyed by the alias", func(t *testing.T) {
		p := dtParse(t, `
transforms: [pseudonymise]
transform_options: {pseudonymize: {min_sensitivity: restricted}}
`)
		e := p.OutputPipeline(nil, nil)[0]
		if v := e.Options.Get("min_sensitivity"); v == nil || v.Text != "restricted" {
			t.Errorf("transform_options[pseudonymize] accepted by validation but not applied: options %s", e.Options.JSON(""))
		}
	})
	t.Run("rule transform_options keyed by the alias", func(t *testing.T) {
		p := dtParse(t, `
transforms: [pseudonymise]
rules:
  - {transform_options: {pseudonymize: {min_sensitivity: internal}}}
`)
		e := p.OutputPipeline(p.Rules, nil)[0]
		if v := e.Options.Get("min_sensitivity"); v == nil || v.Text != "internal" {
			t.Errorf("rule transform_options[pseudonymize] accepted but not applied: options %s", e.Options.JSON(""))
		}
	})
	t.Run("hints keyed by the alias", func(t *testing.T) {
		p := dtParse(t, `transforms: [pseudonymise]`)
		e := p.OutputPipeline(nil, plHints(t, `{"pseudonymize": {"min_sensitivity": "restricted"}}`))[0]
		if v := e.Options.Get("min_sensitivity"); v == nil || v.Text != "restricted" {
			t.Errorf("transform_hints[pseudonymize] not applied: options %s", e.Options.JSON(""))
		}
	})
	t.Run("hints skip by the alias", func(t *testing.T) {
		p := dtParse(t, `transforms: [pseudonymise, redact]`)
		if got := IDs(p.OutputPipeline(nil, plHints(t, `{"skip": ["pseudonymize"]}`))); !reflect.DeepEqual(got, []string{"redact"}) {
			t.Errorf("skip [pseudonymize] gives %q, want [redact]", got)
		}
	})
}
