package policy

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Profiles are the built-in profiles of manual 5.2, exactly.
var Profiles = map[string]string{
	"permissive": `{"name": "permissive", "deny_capabilities": ["reveal"],
		"transforms": [{"type": "redact", "id": "secrets", "options": {"detectors": ["@secrets"]}}]}`,
	"standard": `{"name": "standard", "extends": "permissive", "deny_capabilities": ["exec"],
		"max_sensitivity": "confidential",
		"transforms": [{"type": "redact", "id": "secrets", "options": {"detectors": ["@secrets"]}},
		               {"type": "pseudonymise", "id": "pii", "options": {"detectors": ["@pii"]}}]}`,
	"strict": `{"name": "strict", "extends": "standard",
		"deny_capabilities": ["write_state", "write_fs", "cloud_access"],
		"max_sensitivity": "internal", "audit": true,
		"input_transforms": [{"type": "redact", "id": "secrets_in", "options": {"detectors": ["@secrets"]}}]}`,
	"audit-only": `{"name": "audit-only", "deny_capabilities": ["reveal"], "transforms": ["detect"], "audit": true}`,
}

// ProfileNames lists the built-in profiles in a stable order.
var ProfileNames = []string{"permissive", "standard", "strict", "audit-only"}

// MaxExtendsDepth is how many ancestors a policy may have.
const MaxExtendsDepth = 8

// ReadFileFunc reads a policy file named by `extends`. Only the CLI supplies
// one; in the plugin, extends takes profile names only.
type ReadFileFunc func(path string) ([]byte, error)

// Flatten resolves the extends chain of doc (read from file, "" when not
// from a file) and returns one policy document without extends, merged by
// the table of manual 5.2. Each document of the chain is checked on its own
// first; errors name the file they are in.
func Flatten(doc *Value, file string, read ReadFileFunc) (*Value, Errors) {
	return flatten(doc, file, read, []string{chainName(file)}, "")
}

func chainName(file string) string {
	if file == "" {
		return "policy"
	}
	return filepath.Clean(file)
}

// flatten resolves doc's chain; errors in doc are attributed to source
// ("" for the document being read, else the file or profile it came from).
func flatten(doc *Value, file string, read ReadFileFunc, chain []string, source string) (*Value, Errors) {
	d := decoder{partial: true}
	d.policy(doc, "")
	if len(d.errs) > 0 {
		return nil, d.errs.inFile(source)
	}
	parent, errs := flattenParent(doc, file, read, chain, source)
	if len(errs) > 0 {
		return nil, errs
	}
	return mergePolicy(parent, doc), nil
}

// flattenParent resolves what doc extends and returns it flattened, or nil
// when doc extends nothing.
func flattenParent(doc *Value, file string, read ReadFileFunc, chain []string, source string) (*Value, Errors) {
	ext := doc.Get("extends")
	if ext == nil || ext.Kind != StringValue {
		return nil, nil
	}
	at := "extends"
	fail := func(msg string) (*Value, Errors) {
		return nil, Errors{{Path: at, Msg: msg}}.inFile(source)
	}
	target := ext.Text
	var parent *Value
	var parentFile, parentSource, key string
	if src, ok := Profiles[target]; ok {
		key = "profile " + target
		parentSource = "profile " + target
		var err error
		if parent, err = ParseJSON([]byte(src)); err != nil {
			panic("built-in profile " + target + ": " + err.Error())
		}
	} else {
		if read == nil {
			return fail(fmt.Sprintf("unknown profile %q (want %s; policy files are resolved by `mcp-privacy policy flatten`)", target, quoteList(ProfileNames)))
		}
		parentFile = target
		if !filepath.IsAbs(parentFile) && file != "" {
			parentFile = filepath.Join(filepath.Dir(file), parentFile)
		}
		parentFile = filepath.Clean(parentFile)
		key = parentFile
		parentSource = parentFile
	}
	for _, c := range chain {
		if c == key {
			return fail(fmt.Sprintf("extends cycle: %s -> %s", strings.Join(chain, " -> "), key))
		}
	}
	if len(chain) > MaxExtendsDepth {
		return fail(fmt.Sprintf("extends chain deeper than %d: %s -> %s", MaxExtendsDepth, strings.Join(chain, " -> "), key))
	}
	if parent == nil {
		data, err := read(parentFile)
		if err != nil {
			return fail(fmt.Sprintf("cannot read %q: %v", target, err))
		}
		if parent, err = ParseDocument(data); err != nil {
			return nil, Errors{{File: parentFile, Msg: err.Error()}}
		}
	}
	return flatten(parent, parentFile, read, append(chain, key), parentSource)
}

// How each policy key merges (manual 5.2); keys not listed take the child's
// value when present.
var (
	unionKeys     = []string{"deny_tools", "deny_resources", "deny_prompts", "deny_categories", "disabled_detectors"}
	appendKeys    = []string{"rules", "rate_limits"}
	deepMergeKeys = []string{"transform_options", "vault"}
)

// mergePolicy merges child over a flattened parent (nil: none) and drops
// extends.
func mergePolicy(parent, child *Value) *Value {
	if parent == nil {
		out := child.Clone()
		out.Delete("extends")
		return out
	}
	out := parent.Clone()
	for _, m := range child.Object {
		k, cv := m.Key, m.Value
		switch {
		case k == "extends", k == "allow_capabilities", k == "deny_capabilities":
		case contains(unionKeys, k):
			out.Set(k, unionStrings(out.Get(k), cv))
		case contains(appendKeys, k):
			out.Set(k, concat(out.Get(k), cv))
		case contains(deepMergeKeys, k):
			out.Set(k, deepMerge(out.Get(k), cv))
		case k == "detection":
			out.Set(k, mergeDetection(out.Get(k), cv))
		case k == "roles" || k == "detectors":
			out.Set(k, mergeNamed(out.Get(k), cv, k == "detectors"))
		default:
			out.Set(k, cv.Clone())
		}
	}
	// effective deny = (parent's effective deny - child.allow) ∪ child.deny
	var deny CapabilitySet
	var d decoder
	deny = d.capabilities(parent, "deny_capabilities", "") &^ d.capabilities(child, "allow_capabilities", "")
	deny |= d.capabilities(child, "deny_capabilities", "")
	out.Delete("allow_capabilities")
	out.Delete("deny_capabilities")
	if deny != 0 {
		out.Set("deny_capabilities", Strings(deny.Names()))
	}
	return out
}

func unionStrings(a, b *Value) *Value {
	out := Array()
	seen := map[string]bool{}
	for _, l := range []*Value{a, b} {
		if l == nil {
			continue
		}
		for _, e := range l.Array {
			if !seen[e.Text] {
				seen[e.Text] = true
				out.Array = append(out.Array, e.Clone())
			}
		}
	}
	return out
}

func concat(a, b *Value) *Value {
	out := Array()
	if a != nil {
		out.Array = append(out.Array, a.Clone().Array...)
	}
	out.Array = append(out.Array, b.Clone().Array...)
	return out
}

// mergeNamed merges roles (an object keyed by role) or detectors (a list
// keyed by name): a child entry replaces the parent's of that name in its
// place; new ones follow.
func mergeNamed(parent, child *Value, list bool) *Value {
	if parent == nil {
		return child.Clone()
	}
	out := parent.Clone()
	if !list {
		for _, m := range child.Object {
			out.Set(m.Key, m.Value.Clone())
		}
		return out
	}
	for _, c := range child.Array {
		name := c.Get("name").Text
		replaced := false
		for i, p := range out.Array {
			if p.Get("name").Text == name {
				out.Array[i] = c.Clone()
				replaced = true
				break
			}
		}
		if !replaced {
			out.Array = append(out.Array, c.Clone())
		}
	}
	return out
}
