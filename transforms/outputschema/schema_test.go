package outputschema

import (
	"bytes"
	"encoding/json"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/transforms/fieldpath"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func mustPaths(t testing.TB, ps ...string) fieldpath.Paths {
	t.Helper()
	out, err := fieldpath.CompileAll(ps)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// normalJSON re-encodes JSON so that equal documents compare equal.
func normalJSON(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func TestRewriteOutputSchema(t *testing.T) {
	everywhere := func(t *testing.T) Effects { return Effects{Rewrites: []FieldScope{{}}} }
	tests := []struct {
		name   string
		schema string
		eff    func(t *testing.T) Effects
		want   string // "" : unchanged, and Rewrite reports false
	}{{
		name: "email format stripped under a global pseudonymise, numbers kept",
		schema: `{"type":"object","properties":{
			"email":{"type":"string","format":"email","minLength":3,"maxLength":254,"description":"who"},
			"age":{"type":"integer","minimum":0,"maximum":150}},
			"required":["email","age"]}`,
		eff: everywhere,
		want: `{"type":"object","properties":{
			"email":{"type":"string","description":"who"},
			"age":{"type":"integer","minimum":0,"maximum":150}},
			"required":["email","age"]}`,
	}, {
		// Issue 31: a birth date pseudonymised as DATE_OF_BIRTH_… is no
		// longer a date, a name as PERSON_… no longer fits its pattern.
		name: "date format and name pattern stripped under a global pseudonymise",
		schema: `{"type":"object","properties":{
			"birthDate":{"type":"string","format":"date"},
			"name":{"type":"string","pattern":"^[A-Z][a-z]+ [A-Z][a-z]+$","maxLength":40}}}`,
		eff: everywhere,
		want: `{"type":"object","properties":{
			"birthDate":{"type":"string"},
			"name":{"type":"string"}}}`,
	}, {
		// A step that reads numbers makes one it finds a card in a string
		// (transforms' runNumber): the type admits it, the keywords that
		// would then constrain it go, numeric enums and uniqueness too.
		// Numeric keywords stay: they do not apply to a string. Regression
		// (issue 26): "integer" was kept, and a client validating
		// structuredContent refused the redacted card.
		name: "numbers a step that reads numbers reaches admit a string",
		schema: `{"type":"object","properties":{
			"card":{"type":"integer","minimum":0,"format":"int64"},
			"amount":{"type":["number","null"],"multipleOf":0.01},
			"level":{"type":"integer","enum":[1,2,3]},
			"code":{"const":4111111111111111},
			"ids":{"type":"array","uniqueItems":true,"items":{"type":"integer"}},
			"name":{"type":"string"},"ok":{"type":"boolean"}},
			"required":["card"]}`,
		eff: func(t *testing.T) Effects { return Effects{Rewrites: []FieldScope{{Numbers: true}}} },
		want: `{"type":"object","properties":{
			"card":{"minimum":0,"type":["integer","string"]},
			"amount":{"multipleOf":0.01,"type":["number","null","string"]},
			"level":{"type":["integer","string"]},
			"code":{},
			"ids":{"type":"array","items":{"type":["integer","string"]}},
			"name":{"type":"string"},"ok":{"type":"boolean"}},
			"required":["card"]}`,
	}, {
		name:   "numbers outside a step's fields keep their type",
		schema: `{"type":"object","properties":{"card":{"type":"integer"},"age":{"type":"integer","maximum":150}}}`,
		eff: func(t *testing.T) Effects {
			return Effects{Rewrites: []FieldScope{{Fields: mustPaths(t, "card"), Numbers: true}, {}}}
		},
		want: `{"type":"object","properties":{"card":{"type":["integer","string"]},"age":{"type":"integer","maximum":150}}}`,
	}, {
		name: "fields restrict the rewrite to contact.email: phone keeps its pattern",
		schema: `{"type":"object","properties":{"contact":{"type":"object","properties":{
			"email":{"type":"string","format":"email"},
			"phone":{"type":"string","pattern":"^\\+[0-9]+$"}}},
			"email":{"type":"string","format":"email"}}}`,
		eff: func(t *testing.T) Effects {
			return Effects{Rewrites: []FieldScope{{Fields: mustPaths(t, "contact.email")}}}
		},
		want: `{"type":"object","properties":{"contact":{"type":"object","properties":{
			"email":{"type":"string"},
			"phone":{"type":"string","pattern":"^\\+[0-9]+$"}}},
			"email":{"type":"string","format":"email"}}}`,
	}, {
		name: "fields naming a container cover everything in it",
		schema: `{"type":"object","properties":{"contact":{"type":"object","properties":{
			"email":{"type":"string","format":"email"},
			"phone":{"type":"string","pattern":"^\\+"}}},
			"id":{"type":"string","format":"uuid"}}}`,
		eff: func(t *testing.T) Effects {
			return Effects{Rewrites: []FieldScope{{Fields: mustPaths(t, "contact")}}}
		},
		want: `{"type":"object","properties":{"contact":{"type":"object","properties":{
			"email":{"type":"string"},"phone":{"type":"string"}}},
			"id":{"type":"string","format":"uuid"}}}`,
	}, {
		name: "exclude_fields: what every step leaves alone keeps its constraints",
		schema: `{"type":"object","properties":{
			"contact":{"type":"object","properties":{
				"email":{"type":"string","format":"email"},
				"phone":{"type":"string","pattern":"^\\+"}}},
			"items":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string","format":"uuid"},"note":{"type":"string","maxLength":10}}}}}}`,
		eff: func(t *testing.T) Effects {
			return Effects{Rewrites: []FieldScope{
				{Exclude: mustPaths(t, "contact.phone", "**.id")},
				{Fields: mustPaths(t, "contact.email")},
			}}
		},
		want: `{"type":"object","properties":{
			"contact":{"type":"object","properties":{
				"email":{"type":"string"},
				"phone":{"type":"string","pattern":"^\\+"}}},
			"items":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string","format":"uuid"},"note":{"type":"string"}}}}}}`,
	}, {
		name: "exclude_fields of one array element protects no element",
		schema: `{"type":"object","properties":{"users":{"type":"array","items":{"type":"object","properties":{
			"email":{"type":"string","format":"email"}}}}}}`,
		eff: func(t *testing.T) Effects {
			return Effects{Rewrites: []FieldScope{{Exclude: mustPaths(t, "users.0.email")}}}
		},
		want: `{"type":"object","properties":{"users":{"type":"array","items":{"type":"object","properties":{
			"email":{"type":"string"}}}}}}`,
	}, {
		name: "project exclude of a required property",
		schema: `{"type":"object","properties":{"ssn":{"type":"string"},"name":{"type":"string"},
			"meta":{"type":"object","properties":{"token":{"type":"string"},"n":{"type":"integer"}},"required":["token","n"],"minProperties":2}},
			"required":["ssn","name"],"additionalProperties":false}`,
		eff: func(t *testing.T) Effects {
			return Effects{Exclude: mustPaths(t, "ssn", "meta.token")}
		},
		want: `{"type":"object","properties":{"name":{"type":"string"},
			"meta":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}},
			"required":["name"],"additionalProperties":false}`,
	}, {
		name:   "project exclude of the only required property drops required",
		schema: `{"type":"object","properties":{"ssn":{"type":"string"}},"required":["ssn"]}`,
		eff: func(t *testing.T) Effects {
			return Effects{Exclude: mustPaths(t, "ssn")}
		},
		want: `{"type":"object","properties":{}}`,
	}, {
		name: "project include of nested paths through arrays",
		schema: `{"type":"object","properties":{
			"users":{"type":"array","minItems":1,"items":{"type":"object",
				"properties":{"email":{"type":"string","format":"email"},"name":{"type":"string"}},
				"required":["email","name"]}},
			"total":{"type":"integer"},
			"page":{"type":"object","properties":{"next":{"type":"string"}},"required":["next"]}},
			"required":["users","total","page"]}`,
		eff: func(t *testing.T) Effects {
			return Effects{Include: mustPaths(t, "users.email", "page")}
		},
		// users may go (no user has an email: prune drops the list) and
		// so may its elements; inside an element email stays required.
		want: `{"type":"object","properties":{
			"users":{"type":"array","items":{"type":"object",
				"properties":{"email":{"type":"string","format":"email"}},
				"required":["email"]}},
			"page":{"type":"object","properties":{"next":{"type":"string"}},"required":["next"]}},
			"required":["page"]}`,
	}, {
		name: "project include of an array index drops positional schemas",
		schema: `{"type":"object","properties":{"pair":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],
			"items":false,"minItems":2,"uniqueItems":true}},"required":["pair"]}`,
		eff: func(t *testing.T) Effects {
			return Effects{Include: mustPaths(t, "pair.1")}
		},
		// Elements of unknown kind: project might make two equal.
		want: `{"type":"object","properties":{"pair":{"type":"array"}}}`,
	}, {
		name: "** in fields reaches every depth",
		schema: `{"type":"object","properties":{
			"email":{"type":"string","format":"email"},
			"a":{"type":"object","properties":{"b":{"type":"array","items":{"type":"object","properties":{
				"email":{"type":"string","format":"email"},"url":{"type":"string","format":"uri"}}}}}},
			"extra":{"type":"object","additionalProperties":{"type":"string","format":"email"}}}}`,
		eff: func(t *testing.T) Effects {
			return Effects{Rewrites: []FieldScope{{Fields: mustPaths(t, "**.email")}}}
		},
		// additionalProperties may be named email.
		want: `{"type":"object","properties":{
			"email":{"type":"string"},
			"a":{"type":"object","properties":{"b":{"type":"array","items":{"type":"object","properties":{
				"email":{"type":"string"},"url":{"type":"string","format":"uri"}}}}}},
			"extra":{"type":"object","additionalProperties":{"type":"string"}}}}`,
	}, {
		name: "** in include keeps containers, drops scalars",
		schema: `{"type":"object","properties":{
			"name":{"type":"string"},"id":{"type":"string"},
			"owner":{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}},"required":["id","name"]},
			"any":{}},
			"required":["name","id","owner"]}`,
		eff: func(t *testing.T) Effects {
			return Effects{Include: mustPaths(t, "**.id")}
		},
		want: `{"type":"object","properties":{
			"id":{"type":"string"},
			"owner":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]},
			"any":{}},
			"required":["id"]}`,
	}, {
		name: "enum and const",
		schema: `{"type":"object","properties":{
			"kind":{"type":"string","enum":["a","b"]},
			"level":{"type":"integer","enum":[1,2,3]},
			"fixed":{"const":"x"},
			"n":{"const":7},
			"pair":{"type":"object","enum":[{"k":"v"}],"properties":{"k":{"type":"string"}}},
			"nums":{"type":"array","const":[1,2]}}}`,
		eff: everywhere,
		want: `{"type":"object","properties":{
			"kind":{"type":"string"},
			"level":{"type":"integer","enum":[1,2,3]},
			"fixed":{},
			"n":{"const":7},
			"pair":{"type":"object","properties":{"k":{"type":"string"}}},
			"nums":{"type":"array","const":[1,2]}}}`,
	}, {
		name: "type lists including string, and no type at all",
		schema: `{"type":"object","properties":{
			"a":{"type":["string","null"],"format":"email","maxLength":5},
			"b":{"type":["integer","null"],"minimum":0,"format":"int32"},
			"c":{"format":"date","pattern":"^2"},
			"d":{"type":"boolean"}}}`,
		eff: everywhere,
		want: `{"type":"object","properties":{
			"a":{"type":["string","null"]},
			"b":{"type":["integer","null"],"minimum":0,"format":"int32"},
			"c":{},
			"d":{"type":"boolean"}}}`,
	}, {
		name: "allOf and anyOf branches at the same level; oneOf becomes anyOf",
		schema: `{"type":"object","properties":{
			"a":{"type":"string","allOf":[{"format":"email"},{"maxLength":99}]},
			"b":{"anyOf":[{"type":"string","pattern":"^x"},{"type":"integer","minimum":1}]},
			"c":{"oneOf":[{"type":"string","format":"email"},{"type":"string","format":"uri"}]},
			"d":{"anyOf":[{"type":"null"}],"oneOf":[{"type":"string","format":"email"}]}}}`,
		eff: everywhere,
		want: `{"type":"object","properties":{
			"a":{"type":"string","allOf":[{},{}]},
			"b":{"anyOf":[{"type":"string"},{"type":"integer","minimum":1}]},
			"c":{"anyOf":[{"type":"string"},{"type":"string"}]},
			"d":{"anyOf":[{"type":"null"}],"allOf":[{"anyOf":[{"type":"string"}]}]}}}`,
	}, {
		name:   "required in an allOf branch",
		schema: `{"type":"object","properties":{"ssn":{"type":"string"}},"allOf":[{"required":["ssn","x"]}]}`,
		eff: func(t *testing.T) Effects {
			return Effects{Exclude: mustPaths(t, "ssn")}
		},
		want: `{"type":"object","properties":{},"allOf":[{"required":["x"]}]}`,
	}, {
		name: "$defs and definitions: the referenced definition is loosened",
		schema: `{"type":"object","properties":{
			"a":{"$ref":"#/$defs/Email"},
			"b":{"$ref":"#/definitions/Phone"},
			"c":{"$ref":"#/$defs/Email"}},
			"$defs":{"Email":{"type":"string","format":"email"},"Unused":{"type":"string","format":"email"}},
			"definitions":{"Phone":{"type":"string","pattern":"^\\+"}}}`,
		eff: func(t *testing.T) Effects {
			return Effects{Rewrites: []FieldScope{{Fields: mustPaths(t, "a")}}}
		},
		// c refers to Email too and loses its format with it: the
		// over-approximation.
		want: `{"type":"object","properties":{
			"a":{"$ref":"#/$defs/Email"},
			"b":{"$ref":"#/definitions/Phone"},
			"c":{"$ref":"#/$defs/Email"}},
			"$defs":{"Email":{"type":"string"},"Unused":{"type":"string","format":"email"}},
			"definitions":{"Phone":{"type":"string","pattern":"^\\+"}}}`,
	}, {
		name: "project through a $ref: required only, the definition keeps its properties",
		schema: `{"type":"object","properties":{"a":{"$ref":"#/$defs/P"},"b":{"$ref":"#/$defs/P"}},
			"$defs":{"P":{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"string"}},"required":["x","y"]}}}`,
		eff: func(t *testing.T) Effects {
			return Effects{Exclude: mustPaths(t, "a.x")}
		},
		want: `{"type":"object","properties":{"a":{"$ref":"#/$defs/P"},"b":{"$ref":"#/$defs/P"}},
			"$defs":{"P":{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"string"}},"required":["y"]}}}`,
	}, {
		name: "a recursive schema terminates",
		schema: `{"type":"object","properties":{"name":{"type":"string","format":"email"},
			"children":{"type":"array","items":{"$ref":"#"}}},"required":["name"]}`,
		eff: func(t *testing.T) Effects {
			return Effects{Rewrites: []FieldScope{{Fields: mustPaths(t, "children.name")}}, Exclude: mustPaths(t, "children.children.name")}
		},
		want: `{"type":"object","properties":{"name":{"type":"string"},
			"children":{"type":"array","items":{"$ref":"#"}}}}`,
	}, {
		name: "an unresolved $ref goes where values may change",
		schema: `{"type":"object","properties":{"a":{"$ref":"https://example.com/email.json"},
			"b":{"$ref":"https://example.com/email.json"}}}`,
		eff: func(t *testing.T) Effects {
			return Effects{Rewrites: []FieldScope{{Fields: mustPaths(t, "a")}}}
		},
		want: `{"type":"object","properties":{"a":{},"b":{"$ref":"https://example.com/email.json"}}}`,
	}, {
		name: "not, if/then/else and unevaluatedProperties where values may change; an integer cannot",
		schema: `{"type":"object","properties":{
			"a":{"type":"string","not":{"format":"email"}},
			"b":{"type":"object","properties":{"x":{"type":"string"}},
				"if":{"properties":{"x":{"const":"p"}}},"then":{"required":["x"]},"unevaluatedProperties":false},
			"c":{"type":"integer","not":{"const":3}}}}`,
		eff: everywhere,
		want: `{"type":"object","properties":{
			"a":{"type":"string"},
			"b":{"type":"object","properties":{"x":{"type":"string"}}},
			"c":{"type":"integer","not":{"const":3}}}}`,
	}, {
		name: "a not that refers to a loosened definition goes",
		schema: `{"type":"object","properties":{
			"e":{"$ref":"#/$defs/E"},
			"other":{"type":"string","not":{"$ref":"#/$defs/E"}}},
			"$defs":{"E":{"type":"string","format":"email"}}}`,
		eff: func(t *testing.T) Effects {
			return Effects{Rewrites: []FieldScope{{Fields: mustPaths(t, "e")}}}
		},
		want: `{"type":"object","properties":{
			"e":{"$ref":"#/$defs/E"},
			"other":{"type":"string"}},
			"$defs":{"E":{"type":"string"}}}`,
	}, {
		name: "uniqueItems goes when elements may change; contains and patternProperties loosen",
		schema: `{"type":"object","properties":{
			"emails":{"type":"array","uniqueItems":true,"items":{"type":"string","format":"email"},"contains":{"const":"a@b.c"}},
			"ids":{"type":"array","uniqueItems":true,"items":{"type":"integer"}},
			"m":{"type":"object","patternProperties":{"^e":{"type":"string","format":"email"}}}}}`,
		eff: everywhere,
		want: `{"type":"object","properties":{
			"emails":{"type":"array","items":{"type":"string"},"contains":{}},
			"ids":{"type":"array","uniqueItems":true,"items":{"type":"integer"}},
			"m":{"type":"object","patternProperties":{"^e":{"type":"string"}}}}}`,
	}, {
		name:   "non-object schema",
		schema: `true`,
		eff:    everywhere,
	}, {
		name:   "array is no schema",
		schema: `[{"type":"string","format":"email"}]`,
		eff:    everywhere,
	}, {
		name:   "malformed schema is left as is",
		schema: `{"type":"object","properties":{"a":{"type":"string","format":"email"}},"required":"a"}`,
		eff:    everywhere,
	}, {
		name:   "malformed subschema is left as is",
		schema: `{"type":"object","properties":{"a":{"type":"string","format":"email"},"b":3}}`,
		eff:    everywhere,
	}, {
		name: "nothing to do: fields name what the schema does not have",
		schema: `{"type":"object", "properties": {"email": {"type": "string", "format": "email"}},
			"required": ["email"]}`,
		eff: func(t *testing.T) Effects {
			return Effects{Rewrites: []FieldScope{{Fields: mustPaths(t, "other")}}, Exclude: mustPaths(t, "nope.x")}
		},
	}, {
		name:   "nothing to do: no effects",
		schema: `{"type":"object","properties":{"email":{"type":"string","format":"email"}},"required":["email"]}`,
		eff:    func(t *testing.T) Effects { return Effects{} },
	}, {
		name:   "nothing to do: the rewrite is excluded where strings are constrained",
		schema: `{"type":"object","properties":{"id":{"type":"string","format":"uuid"},"n":{"type":"string"}}}`,
		eff: func(t *testing.T) Effects {
			return Effects{Rewrites: []FieldScope{{Exclude: mustPaths(t, "id")}}}
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(tc.schema)
			doc, err := jsondoc.Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			changed := Rewrite(doc, jsondoc.Root, tc.eff(t))
			out := doc.Bytes()
			if _, err := jsondoc.Parse(out); err != nil {
				t.Fatalf("output does not parse: %v\n%s", err, out)
			}
			if tc.want == "" {
				if changed || !bytes.Equal(out, src) {
					t.Fatalf("changed (%v):\n%s", changed, out)
				}
				return
			}
			if !changed {
				t.Fatalf("reported no change")
			}
			if got, want := normalJSON(t, out), normalJSON(t, []byte(tc.want)); got != want {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// The schema sits inside a tools/list result: "#" is the schema, and the
// rest of the message stays byte for byte.
func TestRewriteOutputSchemaInPlace(t *testing.T) {
	src := `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t",  "inputSchema": {"type": "object"},
 "outputSchema": {"type": "object", "properties": {"e": {"$ref": "#/$defs/E"}, "n": {"type": "integer",  "minimum": 1}},
  "$defs": {"E": {"type": "string", "format": "email"}}}}]}}`
	doc, err := jsondoc.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	schema := doc.Get(doc.First(doc.Path(jsondoc.Root, "result", "tools")), "outputSchema")
	if !Rewrite(doc, schema, Effects{Rewrites: []FieldScope{{}}}) {
		t.Fatal("no change")
	}
	want := `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type": "object"},` +
		`"outputSchema":{"type":"object","properties":{"e": {"$ref": "#/$defs/E"}, "n": {"type": "integer",  "minimum": 1}},` +
		`"$defs":{"E":{"type":"string"}}}}]}}`
	if got := string(doc.Bytes()); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// Past the visit budget every location gets the top state: the result is
// looser than needed, never wrong.
func TestRewriteOutputSchemaBudget(t *testing.T) {
	defer func(f func(int) int) { visitBudget = f }(visitBudget)
	visitBudget = func(int) int { return 1 }
	src := `{"type":"object","properties":{"a":{"type":"string","format":"email"},"b":{"type":"string","format":"uri"},
		"n":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}},"required":["a","b"]}`
	doc, err := jsondoc.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	eff := Effects{Rewrites: []FieldScope{{Fields: mustPaths(t, "a")}}, Exclude: mustPaths(t, "q")}
	if !Rewrite(doc, jsondoc.Root, eff) {
		t.Fatal("no change")
	}
	// The root uses up the budget: from its children on, everything may be
	// rewritten and removed, nothing must be.
	want := `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},
		"n":{"type":"object","properties":{"x":{"type":"string"}}}}}`
	if got, want := normalJSON(t, doc.Bytes()), normalJSON(t, []byte(want)); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

var fuzzSchemaPaths = []string{"email", "users.email", "**.email", "a.b", "*", "users.0", "**",
	"contact.*", "x.1.y", `a\.b`, "**.id", "a", "b.**"}

func pickPaths(t testing.TB, mask uint64) fieldpath.Paths {
	var ps []string
	for i, p := range fuzzSchemaPaths {
		if mask&(1<<i) != 0 {
			ps = append(ps, p)
		}
	}
	return mustPaths(t, ps...)
}

// fuzzEffects spreads sel over include, exclude and up to two rewriting
// steps, 13 bits each.
func fuzzEffects(t testing.TB, sel uint64) Effects {
	const w = 13
	eff := Effects{Include: pickPaths(t, sel), Exclude: pickPaths(t, sel>>w)}
	for i := range int(sel >> 60 % 3) {
		off := 2*w + 2*w*i
		fields := pickPaths(t, sel>>off)
		numbers := bits.OnesCount64(sel)%2 == i // some steps read numbers (redact), some not (truncate)
		if off+w < 60 {
			eff.Rewrites = append(eff.Rewrites, FieldScope{Fields: fields, Exclude: pickPaths(t, sel>>(off+w)), Numbers: numbers})
		} else {
			eff.Rewrites = append(eff.Rewrites, FieldScope{Fields: fields, Numbers: numbers})
		}
	}
	return eff
}

func FuzzRewriteOutputSchema(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"email":{"type":"string","format":"email"}},"required":["email"]}`,
		`{"properties":{"users":{"items":{"properties":{"email":{"format":"email"},"id":{"enum":["a",1]}},"required":["email","id"]},"minItems":1,"uniqueItems":true}},"required":["users"]}`,
		`{"properties":{"a":{"$ref":"#/$defs/A"},"b":{"not":{"$ref":"#/$defs/A"}}},"$defs":{"A":{"properties":{"b":{"$ref":"#"}},"required":["b"],"oneOf":[{"format":"x"},{"pattern":"y"}]}}}`,
		`{"prefixItems":[{"const":"a"}],"items":[{}],"if":{"properties":{"a":{"const":1}}},"then":{"required":["a"]},"unevaluatedItems":false,"unevaluatedProperties":false}`,
		`{"properties":{"contact":{"anyOf":[{"properties":{"phone":{"pattern":"^x"}}}],"allOf":[{"$ref":"#/properties/contact/anyOf/0"}]}},"dependentRequired":{"a":["email"]},"dependencies":{"b":["users"],"c":{"required":["a"]}}}`,
		`{"$id":"https://x/","properties":{"x":{"$id":"y","$defs":{"z":{"format":"email"}},"properties":{"1":{"$ref":"#/$defs/z"}}}}}`,
		`true`, `{"properties":[]}`, `{"$ref":"#/$defs/%41"}`,
		// Deleting the only $ref to the root unshares it.
		`{"properties":{"":{"0000":"000000000"},"0":{"not":{"$ref":"#"}}}}`,
	} {
		f.Add([]byte(s), uint64(0))
		f.Add([]byte(s), uint64(1)<<60|0x7ffffff)
		f.Add([]byte(s), ^uint64(0))
		f.Add([]byte(s), uint64(2)<<60|0x1234567890abc)
	}
	f.Fuzz(func(t *testing.T, src []byte, sel uint64) {
		doc, err := jsondoc.Parse(src)
		if err != nil {
			return
		}
		eff := fuzzEffects(t, sel)
		changed := Rewrite(doc, jsondoc.Root, eff)
		out := doc.Bytes()
		if !changed {
			if !bytes.Equal(out, src) {
				t.Fatalf("reported no change, but:\n%s", out)
			}
			return
		}
		again, err := jsondoc.Parse(out)
		if err != nil {
			t.Fatalf("output does not parse: %v\n%s", err, out)
		}
		if again.Kind(jsondoc.Root) != jsondoc.Object {
			t.Fatalf("schema became %v", again.Kind(jsondoc.Root))
		}
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("encoding/json: %v\n%s", err, out)
		}
		// Deterministic: map order does not leak into the result. (Not
		// idempotent: a run may delete the only $ref to a schema, which a
		// second run then edits as unshared.)
		other, _ := jsondoc.Parse(src)
		Rewrite(other, jsondoc.Root, eff)
		if !bytes.Equal(other.Bytes(), out) {
			t.Fatalf("two runs differ:\n%s\n%s", out, other.Bytes())
		}
		// A second run keeps it valid.
		Rewrite(again, jsondoc.Root, eff)
		if _, err := jsondoc.Parse(again.Bytes()); err != nil {
			t.Fatalf("second run: %v\n%s", err, again.Bytes())
		}
	})
}

// The fuzz effects decode as intended (a guard on the bit layout).
func TestFuzzEffects(t *testing.T) {
	eff := fuzzEffects(t, uint64(2)<<60|1|1<<13)
	if len(eff.Include) != 1 || len(eff.Exclude) != 1 || len(eff.Rewrites) != 2 {
		t.Fatalf("%+v", eff)
	}
	if !reflect.DeepEqual(eff.Include, mustPaths(t, "email")) {
		t.Fatalf("%v", eff.Include)
	}
}

// Schemas and instances valid under them, for the differential test: the
// rewritten schema must accept what the pipeline makes of every instance.
// Names match fuzzSchemaPaths.
var trueSchemas = []struct {
	schema    string
	instances []string
}{{
	schema: `{"type":"object","additionalProperties":false,"required":["users","contact","a","x"],"properties":{
		"users":{"type":"array","minItems":1,"uniqueItems":true,"items":{"type":"object","additionalProperties":false,
			"properties":{"email":{"type":"string","format":"email"},"id":{"type":"string","pattern":"^u[0-9]+$"},"role":{"enum":["admin","user"]}},
			"required":["email","id"]}},
		"contact":{"type":"object","minProperties":1,"required":["phone"],
			"properties":{"email":{"type":"string","format":"email","maxLength":40},"phone":{"type":"string","pattern":"^\\+[0-9]+$","minLength":5}}},
		"a":{"type":"object","properties":{"b":{"type":["string","null"],"format":"date"},"c":{"type":"integer","minimum":1}},
			"required":["b","c"],"dependentRequired":{"c":["b"]}},
		"b":{"const":{"k":"v"}},
		"x":{"type":"array","prefixItems":[{"type":"string","const":"p"},{"type":"object","properties":{"y":{"type":"string","format":"uuid"}},"required":["y"]}],
			"items":false,"minItems":2},
		"tags":{"type":"array","uniqueItems":true,"items":{"type":"string","minLength":2}},
		"n":{"type":"integer","not":{"const":3}},"ids":{"type":"array","uniqueItems":true,"items":{"type":"integer"}}}}`,
	instances: []string{
		`{"users":[{"email":"a@x.io","id":"u1","role":"admin"},{"email":"b@x.io","id":"u22"}],
		 "contact":{"email":"c@x.io","phone":"+4712345"},"a":{"b":"2024-01-01","c":3},"b":{"k":"v"},
		 "x":["p",{"y":"123e4567-e89b-12d3-a456-426614174000"}],"tags":["ab","abc"],"n":4,"ids":[1,2]}`,
		`{"users":[{"email":"a@x.io","id":"u1"}],"contact":{"phone":"+4712345"},"a":{"b":null,"c":1},
		 "x":["p",{"y":"123e4567-e89b-12d3-a456-426614174000"}]}`,
	},
}, {
	schema: `{"type":"object","required":["a","email","id"],
		"$defs":{"Email":{"type":"string","format":"email"},
			"Person":{"type":"object","properties":{"email":{"$ref":"#/$defs/Email"},"id":{"type":"string","format":"uuid"},"b":{"$ref":"#/$defs/Person"}},
				"required":["email","id"],"unevaluatedProperties":false}},
		"properties":{
			"a":{"$ref":"#/$defs/Person"},
			"email":{"oneOf":[{"$ref":"#/$defs/Email"},{"type":"string","format":"uri"}]},
			"id":{"type":"string","not":{"$ref":"#/$defs/Email"}},
			"contact":{"type":"object","properties":{"email":{"type":"string"},"phone":{"type":"string","pattern":"^\\+"}},
				"if":{"properties":{"email":{"const":"a@b.co"}}},"then":{"required":["phone"]},"unevaluatedProperties":false},
			"users":{"type":"array","items":{"anyOf":[{"type":"string","format":"email"},{"type":"object","properties":{"email":{"const":"z@z.zz"}},"required":["email"]}]}}}}`,
	instances: []string{
		`{"a":{"email":"p@x.io","id":"123e4567-e89b-12d3-a456-426614174000",
		       "b":{"email":"q@x.io","id":"123e4567-e89b-12d3-a456-426614174001"}},
		  "email":"a@b.co","id":"u1","contact":{"email":"a@b.co","phone":"+1"},"users":["a@b.co",{"email":"z@z.zz"}]}`,
		`{"a":{"email":"p@x.io","id":"123e4567-e89b-12d3-a456-426614174000"},"email":"https://x.io/","id":"not an email"}`,
	},
}, {
	// Draft 7 style: tuple items, definitions, dependencies.
	schema: `{"type":"object","definitions":{"Id":{"type":"string","pattern":"^[0-9]+$"}},
		"properties":{"x":{"type":"array","items":[{"$ref":"#/definitions/Id"},{"type":"object","properties":{"y":{"enum":["a","b"]}},"required":["y"]}],"additionalItems":false},
			"id":{"$ref":"#/definitions/Id"},"email":{"type":"string","format":"email"},"a":{"type":"integer"}},
		"dependencies":{"a":["id","email"],"email":{"required":["id"]}},
		"required":["x","id"]}`,
	instances: []string{
		`{"x":["12",{"y":"a"}],"id":"7","email":"e@x.io","a":1}`,
		`{"x":["12"],"id":"7"}`,
	},
}}

// compileSchema compiles a 2020-12 schema (draft 7 when it has
// definitions), asserting formats as a strict client would.
func compileSchema(t testing.TB, src []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if bytes.Contains(src, []byte(`"definitions"`)) {
		c.DefaultDraft(jsonschema.Draft7)
	}
	if err := c.AddResource("mem://schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem://schema.json")
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return sch
}

func validates(t testing.TB, sch *jsonschema.Schema, inst []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(inst))
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(v)
}

// simulate does to an instance what the pipeline does to structuredContent
// (transforms/payload.go): project (exclude, then include keeping the
// containers on the way) and rewriting steps that replace every string
// they reach by a value no format, pattern, enum or length expects (and,
// for a step that reads numbers, every number they reach: the worst case
// of a card found in each). Even and odd lengths get different values, so
// distinct strings collide.
func simulate(t testing.TB, inst []byte, eff Effects, rewriteFirst bool) []byte {
	doc, err := jsondoc.Parse(inst)
	if err != nil {
		t.Fatal(err)
	}
	project := func() {
		if len(eff.Exclude) > 0 {
			drop := eff.Exclude.Nodes(doc, jsondoc.Root)
			for n := range drop {
				if n == jsondoc.Root {
					for c := doc.First(n); c != jsondoc.None; c = doc.Next(c) {
						doc.Delete(c)
					}
				} else {
					doc.Delete(n)
				}
			}
		}
		if len(eff.Include) > 0 {
			keep := eff.Include.Nodes(doc, jsondoc.Root)
			var prune func(n int32) bool
			prune = func(n int32) bool {
				if keep[n] {
					return true
				}
				kept := false
				for c := doc.First(n); c != jsondoc.None; c = doc.Next(c) {
					if prune(c) {
						kept = true
					} else {
						doc.Delete(c)
					}
				}
				return kept
			}
			prune(jsondoc.Root)
		}
	}
	rewrite := func() {
		for _, sc := range eff.Rewrites {
			var in, out map[int32]bool
			if len(sc.Fields) > 0 {
				in = sc.Fields.Nodes(doc, jsondoc.Root)
			}
			if len(sc.Exclude) > 0 {
				out = sc.Exclude.Nodes(doc, jsondoc.Root)
			}
			var visit func(n int32, reached bool)
			visit = func(n int32, reached bool) {
				if out[n] {
					return
				}
				reached = reached || in[n]
				if s, ok := doc.Str(n); ok && reached {
					doc.SetString(n, [2]string{"", "[REDACTED:" + strings.Repeat("x", 300) + "]"}[len(s)%2])
				}
				if doc.Kind(n) == jsondoc.Number && reached && sc.Numbers {
					doc.SetString(n, [2]string{"", "[REDACTED:" + strings.Repeat("x", 300) + "]"}[len(doc.Raw(n))%2])
				}
				for c := doc.First(n); c != jsondoc.None; c = doc.Next(c) {
					visit(c, reached)
				}
			}
			visit(jsondoc.Root, len(sc.Fields) == 0)
		}
	}
	if rewriteFirst {
		rewrite()
		project()
	} else {
		project()
		rewrite()
	}
	return doc.Bytes()
}

// checkStaysTrue runs one schema, effects pair over its instances.
func checkStaysTrue(t testing.TB, i int, eff Effects) {
	ts := trueSchemas[i]
	orig := compileSchema(t, []byte(ts.schema))
	doc, err := jsondoc.Parse([]byte(ts.schema))
	if err != nil {
		t.Fatal(err)
	}
	Rewrite(doc, jsondoc.Root, eff)
	rewritten := compileSchema(t, doc.Bytes())
	for _, inst := range ts.instances {
		if err := validates(t, orig, []byte(inst)); err != nil {
			t.Fatalf("schema %d: test instance invalid: %v", i, err)
		}
		for _, first := range []bool{false, true} {
			out := simulate(t, []byte(inst), eff, first)
			if err := validates(t, rewritten, out); err != nil {
				t.Fatalf("schema %d, effects %s, rewrite first %v:\nschema %s\ninstance %s\n%v",
					i, describeEffects(eff), first, doc.Bytes(), out, err)
			}
		}
	}
}

func describeEffects(eff Effects) string {
	var b strings.Builder
	b.WriteString("include " + joinPaths(eff.Include) + " exclude " + joinPaths(eff.Exclude))
	for _, sc := range eff.Rewrites {
		b.WriteString(" rewrite{fields " + joinPaths(sc.Fields) + " exclude " + joinPaths(sc.Exclude) + " numbers " + strconv.FormatBool(sc.Numbers) + "}")
	}
	return b.String()
}

func joinPaths(ps fieldpath.Paths) string {
	var ss []string
	for _, p := range ps {
		ss = append(ss, p.String())
	}
	return "[" + strings.Join(ss, " ") + "]"
}

// What the pipeline makes of a valid result validates against the
// rewritten schema, with formats asserted, for many combinations of
// project and rewriting steps, in either order.
func TestRewrittenSchemaStaysTrue(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 300
	if testing.Short() {
		n = 30
	}
	for i := range trueSchemas {
		for range n {
			checkStaysTrue(t, i, fuzzEffects(t, rng.Uint64()))
		}
	}
}

func FuzzRewrittenSchemaStaysTrue(f *testing.F) {
	f.Add(uint8(0), uint64(1)<<60|0x7ffffff)
	f.Add(uint8(1), uint64(2)<<60|0x1234567890abc)
	f.Fuzz(func(t *testing.T, which uint8, sel uint64) {
		checkStaysTrue(t, int(which)%len(trueSchemas), fuzzEffects(t, sel))
	})
}
