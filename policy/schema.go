package policy

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/cloudg/mcp-privacy/internal/claims"
)

// The configuration's objects and their fields, in one table: the decoder
// takes each object's accepted keys from it (so its "unknown key" errors
// list them in this order), and JSONSchema builds the JSON Schema from it,
// with the descriptions of the manual's field tables (schema_manual.go).
// Enumerations come from the same lists the decoder reads (periodNames,
// scopeNames, ...).

// js is a fragment of JSON Schema.
type js = map[string]any

type schemaField struct {
	key    string
	schema js
	// def is the default as a JSON value; nil when the default is
	// computed (a rule's name, a burst) or there is none.
	def any
	// desc is for the fields the manual's tables do not list one by one
	// (the options of single transform types); the others take the
	// manual's meaning.
	desc string
}

type schemaObject struct {
	name     string
	fields   []schemaField
	required []string
}

// schemaObjects are the objects of the plugin envelope. They are made
// when asked for, by JSONSchema and the tests: a package variable would
// be built by the package's init in every program, the plugin too, which
// reads only the objects' keys (objectKeys, from schema_keys.go) and so
// need not carry the code that builds the schema's maps (some 150 KB of
// the .wasm).
func schemaObjects() []schemaObject {
	return []schemaObject{
		{name: "Envelope", fields: []schemaField{
			{key: "policy", schema: js{"anyOf": []any{ref("PolicyConfig"), js{"type": "string", "minLength": 1}}}},
			{key: "server", schema: ref("Server")},
			{key: "identity", schema: ref("Identity")},
			{key: "gateway", schema: ref("Gateway")},
		}},
		{name: "Server", fields: []schemaField{
			{key: "id", schema: nonEmptyString(), def: "default"},
			{key: "primitives", schema: listOf(ref("Primitive")), def: []any{}},
			{key: "learn_from_lists", schema: boolean(), def: true},
			{key: "require_known", schema: boolean(), def: false},
			{key: "router_backends", schema: listOf(nonEmptyString()), def: []any{}},
		}},
		{name: "Primitive", fields: []schemaField{
			{key: "match", schema: ref("PrimitiveMatch"), desc: "Which primitives the entry applies to (kinds and names); an entry without match applies to every primitive."},
			{key: "category", schema: js{"type": "string"}},
			{key: "tags", schema: listOf(js{"type": "string"})},
			{key: "sensitivity", schema: ref("Sensitivity")},
			{key: "capabilities", schema: listOf(ref("Capability"))},
			{key: "transform_hints", schema: ref("TransformHints")},
		}},
		{name: "PrimitiveMatch", fields: []schemaField{
			{key: "kinds", schema: listOf(ref("Kind")), def: []any{}},
			{key: "names", schema: ref("GlobList"), def: []any{}},
		}},
		{name: "Identity", fields: []schemaField{
			{key: "principal", schema: listOf(ref("IdentitySource")),
				def: []any{js{"jwt_claim": "sub"}, js{"header": "x-mcp-principal"}}},
			{key: "roles", schema: listOf(ref("IdentitySource")),
				def: []any{js{"jwt_claim": "roles"}, js{"header": "x-mcp-roles"}}},
			{key: "jwt", schema: ref("JWT"), desc: "Where the verified JWT payload is read from."},
			{key: "anonymous_id", schema: nonEmptyString(), def: "anonymous"},
			{key: "require", schema: boolean(), def: false},
		}},
		{name: "JWT", fields: []schemaField{
			{key: "metadata", schema: listOf(js{"type": "string"}), def: []any{"envoy.filters.http.jwt_authn", "jwt_payload"}},
			{key: "payload_header", schema: headerNameSchema()},
		}},
		{name: "IdentitySource", fields: []schemaField{
			{key: "header", schema: headerNameSchema()},
			{key: "jwt_claim", schema: js{"type": "string", "pattern": claims.Syntax}},
			{key: "property", schema: js{"type": "array", "items": js{"type": "string"}, "minItems": 1}},
		}},
		{name: "Gateway", fields: []schemaField{
			{key: "paths", schema: ref("GlobList"), def: []any{"/mcp", "/mcp/*"}},
			{key: "virtual_tools", schema: boolean(), def: true},
			{key: "max_request_bytes", schema: intAtLeast(1), def: 1 << 20},
			{key: "max_response_bytes", schema: intAtLeast(1), def: 16 << 20},
			{key: "max_event_bytes", schema: intAtLeast(1), def: 4 << 20},
			{key: "on_parse_error", schema: enum(onFailureNames...), def: "reject"},
			{key: "on_oversize", schema: enum(onFailureNames...), def: "reject"},
			{key: "export_headers", schema: js{"type": "object", "propertyNames": enum(ExportFields...),
				"additionalProperties": headerNameSchema()}, def: js{}},
			{key: "hold_headers", schema: boolean(), def: false},
			{key: "body_buffering", schema: enum(BodyBufferingNames...), def: "auto"},
		}},
		{name: "PolicyConfig", fields: append([]schemaField{
			{key: "name", schema: js{"type": "string"}, def: "custom"},
			{key: "description", schema: js{"type": "string"}, def: ""},
			{key: "extends", schema: js{"type": []any{"string", "null"}}, def: nil},
			{key: "hide_denied", schema: boolean(), def: true},
			{key: "honor_hints", schema: boolean(), def: true},
			{key: "audit", schema: boolean(), def: false},
			{key: "audit_size", schema: intAtLeast(0), def: 1000},
			{key: "transforms", schema: ref("Pipeline"), def: []any{}},
			{key: "input_transforms", schema: ref("Pipeline"), def: []any{}},
			{key: "transform_options", schema: ref("TransformOptions"), def: js{}},
			{key: "detectors", schema: listOf(ref("Detector")), def: []any{}},
			{key: "disabled_detectors", schema: listOf(js{"type": "string"}), def: []any{}},
			{key: "roles", schema: js{"type": "object", "propertyNames": js{"minLength": 1}, "additionalProperties": ref("RuleConfig")}, def: js{}},
			{key: "rules", schema: listOf(ref("RuleConfig")), def: []any{}},
			{key: "rate_limits", schema: listOf(ref("RateLimit")), def: []any{}},
			{key: "vault", schema: ref("Vault")},
			{key: "detection", schema: ref("Detection")},
		}, accessFields()...)},
		{name: "RuleConfig", fields: append([]schemaField{
			{key: "name", schema: js{"type": "string"}},
			{key: "description", schema: js{"type": "string"}, def: ""},
			{key: "match", schema: ref("RuleMatch")},
			{key: "transforms", schema: ref("Pipeline"), def: []any{}},
			{key: "transforms_mode", schema: enum(transformsModeNames...), def: "append"},
			{key: "transform_options", schema: ref("TransformOptions"), def: js{}},
			{key: "input_transforms", schema: ref("Pipeline"), def: []any{}},
			{key: "rate_limits", schema: listOf(ref("RateLimit")), def: []any{}},
			{key: "honor_hints", schema: js{"type": []any{"boolean", "null"}}, def: nil},
			{key: "detection", schema: ref("RuleDetection")},
		}, accessFields()...)},
		{name: "RuleMatch", fields: []schemaField{
			{key: "roles", schema: listOf(nonEmptyString())},
			{key: "principals", schema: ref("GlobList")},
			{key: "names", schema: ref("GlobList")},
			{key: "categories", schema: ref("GlobList")},
			{key: "tags", schema: listOf(js{"type": "string"})},
			{key: "kinds", schema: listOf(ref("Kind"))},
			{key: "sensitivity", schema: listOf(ref("Sensitivity"))},
			{key: "capabilities", schema: listOf(ref("Capability"))},
		}},
		{name: "TransformEntry", required: []string{"type"}, fields: []schemaField{
			{key: "type", schema: ref("TransformType")},
			{key: "id", schema: nonEmptyString()},
			{key: "options", schema: js{"type": "object"}, def: js{}},
		}},
		{name: "Detector", required: []string{"name", "pattern"}, fields: []schemaField{
			{key: "name", schema: js{"type": "string", "pattern": detectorName.String(), "not": enum(builtinDetectorNames()...)}},
			{key: "pattern", schema: nonEmptyString()},
			{key: "label", schema: js{"type": "string", "pattern": detectorLabel.String()}},
			{key: "sensitivity", schema: ref("Sensitivity"), def: "confidential"},
			{key: "group", schema: js{"anyOf": []any{intAtLeast(0), js{"type": "string"}}}, def: 0},
			{key: "validate", schema: enum(detectorValidations...), def: "none"},
			{key: "keywords", schema: listOf(js{"type": "string"}), def: []any{}},
			{key: "window", schema: intAtLeast(1), def: 32},
			{key: "case_insensitive", schema: boolean(), def: false},
		}},
		{name: "Detection", fields: []schemaField{
			{key: "allow", schema: listOf(ref("AllowEntry")), def: []any{}},
			{key: "dictionaries", schema: listOf(ref("Dictionary")), def: []any{}},
			{key: "keys", schema: wordsPerDetector(), def: js{}},
			{key: "context", schema: wordsPerDetector(), def: js{}},
			{key: "phone_regions", schema: js{"type": "array", "uniqueItems": true,
				"items": js{"type": "string", "pattern": phoneRegion.String()}}},
		}},
		{name: "RuleDetection", fields: []schemaField{
			{key: "allow", schema: listOf(ref("AllowEntry")), def: []any{}},
			{key: "dictionaries", schema: listOf(ref("Dictionary")), def: []any{}},
		}},
		{name: "AllowEntry", fields: []schemaField{
			{key: "values", schema: listOf(nonBlankString())},
			{key: "globs", schema: listOf(js{"type": "string", "pattern": `^[^!]`, "maxLength": maxGlobBytes})},
			{key: "patterns", schema: listOf(nonBlankString())},
			{key: "detectors", schema: js{"type": "array", "minItems": 1, "items": js{"type": "string", "pattern": detectorName.String()}}},
		}},
		{name: "Dictionary", required: []string{"name"}, fields: []schemaField{
			{key: "name", schema: js{"type": "string", "pattern": detectorName.String(), "not": enum(builtinDetectorNames()...)}},
			{key: "label", schema: js{"type": "string", "pattern": detectorLabel.String()}},
			{key: "sensitivity", schema: ref("Sensitivity"), def: "confidential"},
			{key: "group", schema: enum(dictionaryGroupNames...), def: "pii"},
			{key: "terms", schema: listOf(js{"type": "string", "pattern": `\S`, "maxLength": MaxTermBytes}), def: []any{}},
			{key: "file", schema: js{"anyOf": []any{nonEmptyString(), js{"type": "null"}}}, def: nil},
		}},
		{name: "RateLimit", required: []string{"rate"}, fields: []schemaField{
			{key: "rate", schema: js{"type": "number", "exclusiveMinimum": 0}},
			{key: "per", schema: enum(periodNames[:]...), def: "minute"},
			{key: "burst", schema: js{"anyOf": []any{intAtLeast(1), js{"type": "null"}}}, def: nil},
			{key: "scope", schema: enum(scopeNames[:]...), def: "principal_tool"},
			{key: "tools", schema: ref("GlobList"), def: []any{"*"}},
			{key: "kinds", schema: listOf(enum(kindNames[:]...)), def: []any{}},
		}},
		{name: "Vault", fields: []schemaField{
			{key: "key", schema: js{"anyOf": []any{nonEmptyString(), js{"type": "null"}}}, def: nil},
			{key: "key_env", schema: js{"type": "string", "pattern": envName.String()}, def: "CLOUDG_MCP_VAULT_KEY"},
			{key: "scope", schema: enum(vaultScopeNames...), def: "global"},
			{key: "ttl_seconds", schema: js{"anyOf": []any{js{"type": "number", "exclusiveMinimum": 0}, js{"type": "null"}}}, def: nil},
			{key: "path", schema: js{"type": []any{"string", "null"}}, def: nil},
			{key: "autosave", schema: boolean(), def: false},
			{key: "encrypt", schema: boolean(), def: true},
			{key: "max_entries", schema: intAtLeast(1), def: 100000},
			{key: "mode", schema: enum(vaultModeNames[:]...), def: "auto"},
			{key: "previous_keys_env", schema: js{"type": "array", "uniqueItems": true,
				"items": js{"type": "string", "pattern": envName.String()}}, def: []any{}},
		}},
	}
}

// accessFields are the AccessRules of 6.2, in policies, rules and roles.
func accessFields() []schemaField {
	return []schemaField{
		{key: "allow_tools", schema: nullableGlobs(), def: nil},
		{key: "deny_tools", schema: ref("GlobList"), def: []any{}},
		{key: "allow_resources", schema: nullableGlobs(), def: nil},
		{key: "deny_resources", schema: ref("GlobList"), def: []any{}},
		{key: "allow_prompts", schema: nullableGlobs(), def: nil},
		{key: "deny_prompts", schema: ref("GlobList"), def: []any{}},
		{key: "allow_categories", schema: nullableGlobs(), def: nil},
		{key: "deny_categories", schema: ref("GlobList"), def: []any{}},
		{key: "allow_capabilities", schema: listOf(ref("Capability")), def: []any{}},
		{key: "deny_capabilities", schema: listOf(ref("Capability")), def: []any{}},
		{key: "max_sensitivity", schema: js{"anyOf": []any{ref("Sensitivity"), js{"type": "null"}}}, def: nil},
	}
}

// Value lists the decoder and the schema share.
var (
	onFailureNames       = []string{"reject", "pass"}
	transformsModeNames  = []string{"append", "prepend", "replace"}
	detectorValidations  = []string{"none", "luhn", "mod97"}
	vaultScopeNames      = []string{"global", "principal"}
	dictionaryGroupNames = []string{"pii", "secrets"}
)

// optionDescriptions describe the options of single transform types
// (the manual describes them in one line per type, 10.5).
var optionDescriptions = map[string]string{
	"placeholder": "redact: what each detection becomes; {label} is its label, {detector} its detector's name.",
	"keep_last":   "mask: how many characters stay at the end.",
	"char":        "mask: the character that replaces the others.",
	"length":      "hash: hex characters of the keyed hash (at most 64).",
	"max_chars":   "truncate: longest string kept; longer ones are cut, with a marker telling how much was removed.",
	"include":     "project: keep only these projection paths.",
	"exclude":     "project: remove these projection paths.",
	"note":        "drop_binary: the text an image, audio or blob item becomes; {type} is the item's type.",
}

// objectKeys are an object's accepted keys, for the decoder: the
// schema's, from schema_keys.go, which TestObjectKeysCurrent keeps equal
// to schemaObjects. (Not inlined: package variables call it 21 times, and
// each inlined copy of its loop was code of the .wasm, 5 KB in all.)
//
//go:noinline
func objectKeys(name string) []string {
	for _, o := range objectKeyTable {
		if o.object == name {
			return o.keys
		}
	}
	panic("policy: no schema object " + name)
}

func ref(name string) js { return js{"$ref": "#/$defs/" + name} }
func nonBlankString() js { return js{"type": "string", "pattern": `\S`} }

// wordsPerDetector is the schema of detection.keys and .context: family
// detector names to non-empty words.
func wordsPerDetector() js {
	var names []string
	for _, b := range BuiltinDetectors {
		if FamilyDetector(b.Name) {
			names = append(names, b.Name)
		}
	}
	return js{"type": "object", "propertyNames": enum(names...),
		"additionalProperties": listOf(js{"type": "string", "pattern": `\S`, "maxLength": 64})}
}
func listOf(items js) js         { return js{"type": "array", "items": items} }
func boolean() js                { return js{"type": "boolean"} }
func nonEmptyString() js         { return js{"type": "string", "minLength": 1} }
func intAtLeast(n int) js        { return js{"type": "integer", "minimum": n} }
func nullableGlobs() js          { return js{"anyOf": []any{ref("GlobList"), js{"type": "null"}}} }
func headerNameSchema() js       { return js{"type": "string", "pattern": headerName.String()} }
func enum[T ~string](vs ...T) js { return js{"enum": anySlice(vs)} }
func anySlice[T any](vs []T) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

func builtinDetectorNames() []string {
	names := make([]string, len(BuiltinDetectors))
	for i, b := range BuiltinDetectors {
		names[i] = b.Name
	}
	return names
}

// optionSchema is the JSON Schema of one transform option's kind.
func optionSchema(k optionKind) js {
	switch k {
	case optDetectors:
		// A group, or a detector's name (built-in or custom: which custom
		// names exist only the policy knows).
		return listOf(js{"type": "string", "pattern": `^(?:@pii|@secrets|[a-z][a-z0-9_]*)$`})
	case optSensitivity:
		return ref("Sensitivity")
	case optPaths:
		return listOf(ref("ProjectionPath"))
	case optBool:
		return boolean()
	case optString:
		return js{"type": "string"}
	case optChar:
		return js{"type": "string", "minLength": 1, "maxLength": 1}
	case optNonNeg:
		return intAtLeast(0)
	case optPositive:
		return intAtLeast(1)
	}
	panic(fmt.Sprintf("policy: option kind %d has no schema", k))
}

// describe is a field's description: the manual's meaning, or desc.
func (f schemaField) describe(object string) string {
	if m, ok := manualFields[object+"."+f.key]; ok {
		return m.Meaning
	}
	if m, ok := manualFields["Detection."+f.key]; ok && object == "RuleDetection" {
		return m.Meaning
	}
	if m, ok := manualFields["AccessRules."+f.key]; ok && slices.ContainsFunc(accessFields(), func(a schemaField) bool { return a.key == f.key }) {
		return m.Meaning
	}
	return f.desc
}

// JSONSchema is the JSON Schema (2020-12) of a plugin envelope, or of a
// bare policy, or a profile name: what the decoder accepts, short of the
// checks a schema cannot state (RE2 compiling, references between ids and
// detector names, duplicates across entries).
func JSONSchema() []byte {
	defs := js{
		"Kind":        enum(kindNames[:4]...),
		"Sensitivity": enum(sensitivityNames[1:]...),
		"Capability":  enum(capabilityNames[:]...),
		"Glob": js{"type": "string", "minLength": 1, "not": js{"const": "!"},
			"description": "A glob (6.7): * any run, ? one character, [...] a class; a leading ! negates."},
		"GlobList":       listOf(ref("Glob")),
		"ProjectionPath": js{"type": "string", "pattern": projectionPathPattern, "description": "A projection path (11.7): dot-separated keys, * for any key or index, \\ escapes . * \\."},
		"Pipeline":       listOf(js{"anyOf": []any{ref("TransformType"), ref("TransformEntry")}}),
		"TransformType":  enum(transformTypeSpellings()...),
	}
	// Options: per type, and keyed by type in transform_options and hints.
	byType := js{}
	var entryOptions []any
	for _, tt := range TransformTypes {
		props := js{}
		for name, kind := range tt.Options {
			s := optionSchema(kind)
			if d := optionDescription(name); d != "" {
				s["description"] = d
			}
			if tt.Defaults != nil {
				if v := tt.Defaults.Get(name); v != nil {
					s["default"] = v.ToAny()
				}
			}
			props[name] = s
		}
		name := "Options_" + tt.Name
		defs[name] = js{"type": "object", "properties": props, "additionalProperties": false}
		spellings := []string{tt.Name}
		for alias, canonical := range transformAliases {
			if canonical == tt.Name {
				spellings = append(spellings, alias)
			}
		}
		slices.Sort(spellings)
		for _, s := range spellings {
			byType[s] = ref(name)
		}
		entryOptions = append(entryOptions, js{
			"if":   js{"properties": js{"type": enum(spellings...)}, "required": []any{"type"}},
			"then": js{"properties": js{"options": ref(name)}},
		})
	}
	// Keys that are ids, not types, can only be known from the policy.
	defs["TransformOptions"] = js{"type": "object", "properties": byType, "additionalProperties": js{"type": "object"}}
	hints := js{"skip": listOf(js{"type": "string"})}
	for k, v := range byType {
		hints[k] = v
	}
	defs["TransformHints"] = js{"type": "object", "properties": hints, "additionalProperties": js{"type": "object"}}

	for _, o := range schemaObjects() {
		props := js{}
		for _, f := range o.fields {
			s := js{}
			for k, v := range f.schema {
				s[k] = v
			}
			if d := f.describe(o.name); d != "" {
				s["description"] = d
			}
			if f.def != nil {
				s["default"] = f.def
			}
			props[f.key] = s
		}
		obj := js{"type": "object", "properties": props, "additionalProperties": false}
		if len(o.required) > 0 {
			obj["required"] = anySlice(o.required)
		}
		defs[o.name] = obj
	}
	defs["TransformEntry"].(js)["allOf"] = entryOptions
	// Fields known only from the body are exported only with hold_headers.
	var callFields []any
	for _, f := range callExportFields {
		callFields = append(callFields, js{"required": []any{f}})
	}
	defs["Gateway"].(js)["if"] = js{"properties": js{"export_headers": js{"anyOf": callFields}}, "required": []any{"export_headers"}}
	defs["Gateway"].(js)["then"] = js{"properties": js{"hold_headers": js{"const": true}}, "required": []any{"hold_headers"}}
	// The plugin holding bodies cannot hold headers (envelope.go).
	defs["Gateway"].(js)["not"] = js{"properties": js{"hold_headers": js{"const": true}, "body_buffering": js{"const": "plugin"}},
		"required": []any{"hold_headers", "body_buffering"}}
	// A source is exactly one of header, jwt_claim, property.
	defs["IdentitySource"].(js)["minProperties"] = 1
	defs["IdentitySource"].(js)["maxProperties"] = 1

	doc := js{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         "https://github.com/cloudg/mcp-privacy/policy.schema.json",
		"title":       "mcp-privacy plugin configuration",
		"description": "The plugin envelope (policy, server, identity, gateway), a bare policy, or a profile name (docs/MCP_PRIVACY.md, sections 2 and 6).",
		"anyOf":       []any{ref("Envelope"), ref("PolicyConfig"), js{"type": "string", "minLength": 1}},
		"$defs":       defs,
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(out, '\n')
}

// projectionPathPattern is checkProjectionPath's syntax as a regular
// expression: non-empty segments of plain or escaped characters.
const projectionPathPattern = `^(?:[^.\\]|\\[.*\\])+(?:\.(?:[^.\\]|\\[.*\\])+)*$`

func optionDescription(name string) string {
	if m, ok := manualFields["DetectionOptions."+name]; ok {
		return m.Meaning
	}
	return optionDescriptions[name]
}

// transformTypeSpellings are the type names and their aliases.
func transformTypeSpellings() []string {
	var out []string
	for _, t := range TransformTypes {
		out = append(out, t.Name)
	}
	for alias := range transformAliases {
		out = append(out, alias)
	}
	slices.Sort(out)
	return out
}

type manualField struct{ Type, Default, Meaning string }
