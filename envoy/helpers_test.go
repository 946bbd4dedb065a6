package envoy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

	"github.com/cloudg/mcp-privacy/policy"
)

// problems collects what is wrong with a deployment; a check never stops at
// the first one.
type problems []string

func (p *problems) add(format string, args ...any) {
	*p = append(*p, fmt.Sprintf(format, args...))
}

// addErr records err (if any) under what.
func (p *problems) addErr(what string, err error) bool {
	if err != nil {
		p.add("%s: %v", what, err)
		return true
	}
	return false
}

// readFiles loads the named files (relative to this directory).
func readFiles(names ...string) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, n := range names {
		data, err := os.ReadFile(filepath.FromSlash(n))
		if err != nil {
			return nil, err
		}
		files[n] = data
	}
	return files, nil
}

// yamlToJSON converts one YAML document to JSON, refusing duplicate keys.
func yamlToJSON(data []byte) ([]byte, error) {
	return yaml.YAMLToJSONStrict(data)
}

// decodeJSON decodes JSON keeping numbers as json.Number, so integers and
// floats can be told apart.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// typeMeta is what every Kubernetes resource starts with.
type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

// checkTypeMeta checks a resource's apiVersion, kind and name.
func checkTypeMeta(p *problems, file string, jsonData []byte, apiVersion, kind string) {
	var tm typeMeta
	if p.addErr(file, json.Unmarshal(jsonData, &tm)) {
		return
	}
	if tm.APIVersion != apiVersion || tm.Kind != kind {
		p.add("%s: apiVersion/kind %s/%s, want %s/%s", file, tm.APIVersion, tm.Kind, apiVersion, kind)
	}
	if tm.Metadata.Name == "" {
		p.add("%s: metadata.name is empty", file)
	}
}

// parseEnvelope validates a plugin configuration exactly as the plugin does
// at configure time.
func parseEnvelope(p *problems, where string, data []byte) *policy.Envelope {
	env, errs := policy.ParseEnvelope(data, policy.Options{})
	if len(errs) > 0 {
		for _, e := range errs {
			p.add("%s: envelope: %v", where, e)
		}
		return nil
	}
	return env
}

// identityHeaders are the request headers an envelope takes identity from:
// header sources of principal and roles, and jwt.payload_header. A client
// must not be able to set any of them.
func identityHeaders(env *policy.Envelope) []string {
	var hs []string
	for _, s := range append(slices.Clone(env.Identity.Principal), env.Identity.Roles...) {
		if s.Header != "" {
			hs = append(hs, strings.ToLower(s.Header))
		}
	}
	if env.Identity.JWTHeader != "" {
		hs = append(hs, strings.ToLower(env.Identity.JWTHeader))
	}
	return uniq(hs)
}

// defaultIdentityHeaders are the identity headers of the envelope's defaults
// (docs/MCP_PRIVACY.md section 3). Deployments that can strip headers strip
// these whether or not their envelope reads them today, so that switching a
// header source on later is safe.
var defaultIdentityHeaders = []string{"x-mcp-principal", "x-mcp-roles", "x-jwt-payload"}

// exportHeaders are the headers the plugin sets for the filters after it.
func exportHeaders(env *policy.Envelope) []string {
	var hs []string
	for _, e := range env.Gateway.ExportHeaders {
		hs = append(hs, strings.ToLower(e.Header))
	}
	return uniq(hs)
}

func uniq(s []string) []string {
	sort.Strings(s)
	return slices.Compact(s)
}

// missing returns the elements of want not in have (case-insensitively).
func missing(want, have []string) []string {
	var out []string
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, w) }) {
			out = append(out, w)
		}
	}
	return out
}

// maxBuffered is the largest body the plugin buffers whole.
func maxBuffered(env *policy.Envelope) int {
	return max(env.Gateway.MaxRequestBytes, env.Gateway.MaxResponseBytes)
}

// envoyDefaultBufferLimit is Envoy's per_connection_buffer_limit_bytes when
// none is configured.
const envoyDefaultBufferLimit = 1 << 20

// checkVaultKeyEnv checks that the variable the vault key is read from is
// handed to the Wasm VM. A literal vault.key needs no variable.
func checkVaultKeyEnv(p *problems, where string, env *policy.Envelope, passed []string) {
	if env.Policy == nil || env.Policy.Vault.Key != "" {
		return
	}
	if k := env.Policy.Vault.KeyEnv; k != "" && !slices.Contains(passed, k) {
		p.add("%s: the vault key variable %s (policy.vault.key_env) is not passed to the Wasm VM (have %v)", where, k, passed)
	}
}

// checkRoutePath checks that a route prefix sending traffic to the MCP server
// is inspected by the plugin: gateway.paths must match the prefix and what
// lies below it. OAuth metadata under /.well-known/ is the one exception.
func checkRoutePath(p *problems, where, prefix string, env *policy.Envelope) {
	if strings.HasPrefix(prefix, "/.well-known/") {
		return
	}
	if !env.Gateway.Paths.Match(prefix) || !env.Gateway.Paths.Match(strings.TrimSuffix(prefix, "/")+"/x") {
		p.add("%s: requests under %q reach the MCP server but gateway.paths %v does not make the plugin inspect them",
			where, prefix, env.Gateway.Paths.Patterns())
	}
}

// --- CRD schemas ---------------------------------------------------------

// The CRDs come from the Go modules that also provide the API types, at the
// versions go.mod pins: the same schema the Kubernetes API server enforces.
const (
	istioModule    = "istio.io/api"
	egModule       = "github.com/envoyproxy/gateway"
	gwapiModule    = "sigs.k8s.io/gateway-api"
	istioCRDs      = "kubernetes/customresourcedefinitions.gen.yaml"
	egCRDDir       = "charts/gateway-helm/charts/crds/crds/generated/"
	gwapiHTTPRoute = "config/crd/standard/gateway.networking.k8s.io_httproutes.yaml"
)

var (
	moduleDirsOnce sync.Once
	moduleDirs     map[string]string
	moduleDirsErr  error
)

// moduleDir returns the module cache directory of a module in the build
// list (go list -m, once per test binary).
func moduleDir(module string) (string, error) {
	moduleDirsOnce.Do(func() {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Path}} {{.Dir}}", istioModule, egModule, gwapiModule).Output()
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				err = fmt.Errorf("%v: %s", err, ee.Stderr)
			}
			moduleDirsErr = fmt.Errorf("go list -m: %v", err)
			return
		}
		moduleDirs = map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if path, dir, ok := strings.Cut(line, " "); ok && dir != "" {
				moduleDirs[path] = dir
			}
		}
	})
	if moduleDirsErr != nil {
		return "", moduleDirsErr
	}
	dir, ok := moduleDirs[module]
	if !ok {
		return "", fmt.Errorf("module %s is not downloaded (go mod download)", module)
	}
	return dir, nil
}

var (
	crdCache   = map[string]map[string]any{}
	crdCacheMu sync.Mutex
	docSep     = regexp.MustCompile(`(?m)^---[ \t]*$`)
)

// crdSchema returns the openAPIV3Schema of kind at version from a CRD file of
// a module.
func crdSchema(module, file, kind, version string) (map[string]any, error) {
	key := strings.Join([]string{module, file, kind, version}, "|")
	crdCacheMu.Lock()
	defer crdCacheMu.Unlock()
	if s, ok := crdCache[key]; ok {
		return s, nil
	}
	// module "": a CRD file of this directory (one copied from a project
	// whose Go module cannot be required).
	dir := "."
	if module != "" {
		var err error
		if dir, err = moduleDir(module); err != nil {
			return nil, err
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
	if err != nil {
		return nil, err
	}
	for _, doc := range docSep.Split(string(data), -1) {
		if !strings.Contains(doc, "kind: "+kind+"\n") {
			continue
		}
		j, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		var crd struct {
			Spec struct {
				Names    struct{ Kind string }
				Versions []struct {
					Name   string
					Served bool
					Schema struct {
						OpenAPIV3Schema json.RawMessage
					}
				}
			}
		}
		if err := json.Unmarshal(j, &crd); err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		if crd.Spec.Names.Kind != kind {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Name != version {
				continue
			}
			if !v.Served {
				return nil, fmt.Errorf("%s: %s %s is not served", file, kind, version)
			}
			s, err := decodeJSON(v.Schema.OpenAPIV3Schema)
			if err != nil {
				return nil, err
			}
			m, _ := s.(map[string]any)
			crdCache[key] = m
			return m, nil
		}
		return nil, fmt.Errorf("%s: %s has no version %s", file, kind, version)
	}
	return nil, fmt.Errorf("%s: no CRD for kind %s", file, kind)
}

// checkCRD validates a resource (as JSON) against its CRD's structural
// schema: unknown fields, types, required fields, enums, patterns, lengths,
// ranges and item counts. CEL rules (x-kubernetes-validations) are not
// evaluated; the deployment checks cover the ones that matter here.
func checkCRD(p *problems, file string, jsonData []byte, module, crdFile, kind, version string) {
	schema, err := crdSchema(module, crdFile, kind, version)
	if p.addErr(file+": CRD", err) {
		return
	}
	v, err := decodeJSON(jsonData)
	if p.addErr(file, err) {
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		p.add("%s: not an object", file)
		return
	}
	// The API server handles these itself; Istio's CRDs do not list them.
	for _, k := range []string{"apiVersion", "kind", "metadata"} {
		delete(obj, k)
	}
	var s schemaChecker
	s.check(file, schema, obj)
	*p = append(*p, s.problems...)
}

type schemaChecker struct {
	problems
}

func (c *schemaChecker) check(path string, s map[string]any, v any) {
	if v == nil {
		if b, _ := s["nullable"].(bool); !b {
			c.add("%s: null is not allowed", path)
		}
		return
	}
	if anyOf := asSchemas(s["anyOf"]); len(anyOf) > 0 {
		matched := false
		for _, alt := range anyOf {
			var sub schemaChecker
			sub.check(path, alt, v)
			if len(sub.problems) == 0 {
				matched = true
				break
			}
		}
		if !matched {
			c.add("%s: %v matches none of the allowed forms", path, v)
		}
	}
	for _, sub := range asSchemas(s["allOf"]) {
		c.check(path, sub, v)
	}
	if oneOf := asSchemas(s["oneOf"]); len(oneOf) > 0 {
		n := 0
		for _, alt := range oneOf {
			var sub schemaChecker
			sub.check(path, alt, v)
			if len(sub.problems) == 0 {
				n++
			}
		}
		if n != 1 {
			c.add("%s: matches %d of the oneOf forms, want exactly 1", path, n)
		}
	}
	intOrString, _ := s["x-kubernetes-int-or-string"].(bool)
	switch t, _ := s["type"].(string); t {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			c.add("%s: want an object, got %s", path, jsonType(v))
			return
		}
		c.object(path, s, obj)
	case "array":
		arr, ok := v.([]any)
		if !ok {
			c.add("%s: want a list, got %s", path, jsonType(v))
			return
		}
		c.bounds(path, s, "minItems", "maxItems", len(arr), "items")
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range arr {
				c.check(fmt.Sprintf("%s[%d]", path, i), items, e)
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			c.add("%s: want a string, got %s", path, jsonType(v))
			return
		}
		c.bounds(path, s, "minLength", "maxLength", len([]rune(str)), "characters")
		if pat, ok := s["pattern"].(string); ok {
			if re, err := regexp.Compile(pat); err == nil && !re.MatchString(str) {
				c.add("%s: %q does not match %s", path, str, pat)
			}
		}
	case "integer", "number":
		n, ok := v.(json.Number)
		if !ok {
			c.add("%s: want a number, got %s", path, jsonType(v))
			return
		}
		f, _ := n.Float64()
		if t == "integer" && strings.ContainsAny(n.String(), ".eE") {
			c.add("%s: want an integer, got %s", path, n)
		}
		if lo, ok := s["minimum"].(json.Number); ok {
			if l, _ := lo.Float64(); f < l {
				c.add("%s: %s is below the minimum %s", path, n, lo)
			}
		}
		if hi, ok := s["maximum"].(json.Number); ok {
			if h, _ := hi.Float64(); f > h {
				c.add("%s: %s is above the maximum %s", path, n, hi)
			}
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			c.add("%s: want true or false, got %s", path, jsonType(v))
		}
	case "":
		if intOrString {
			switch v := v.(type) {
			case json.Number:
			case string:
				// e.g. a resource.Quantity: the pattern constrains the string form.
				if pat, ok := s["pattern"].(string); ok {
					if re, err := regexp.Compile(pat); err == nil && !re.MatchString(v) {
						c.add("%s: %q does not match %s", path, v, pat)
					}
				}
			default:
				c.add("%s: want an integer or a string, got %s", path, jsonType(v))
			}
		}
	}
	if enum, ok := s["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) }) {
		c.add("%s: %v is not one of %v", path, v, enum)
	}
}

func (c *schemaChecker) object(path string, s map[string]any, obj map[string]any) {
	props, _ := s["properties"].(map[string]any)
	preserve, _ := s["x-kubernetes-preserve-unknown-fields"].(bool)
	for _, r := range asStrings(s["required"]) {
		if _, ok := obj[r]; !ok {
			c.add("%s: required field %q is missing", path, r)
		}
	}
	c.bounds(path, s, "minProperties", "maxProperties", len(obj), "keys")
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		sub := path + "." + k
		if ps, ok := props[k].(map[string]any); ok {
			c.check(sub, ps, obj[k])
			continue
		}
		switch ap := s["additionalProperties"].(type) {
		case map[string]any:
			c.check(sub, ap, obj[k])
			continue
		case bool:
			if ap {
				continue
			}
		}
		if !preserve {
			c.add("%s: unknown field %q", path, k)
		}
	}
}

func (c *schemaChecker) bounds(path string, s map[string]any, minKey, maxKey string, n int, unit string) {
	if lo, ok := s[minKey].(json.Number); ok {
		if l, _ := lo.Int64(); int64(n) < l {
			c.add("%s: %d %s, want at least %d", path, n, unit, l)
		}
	}
	if hi, ok := s[maxKey].(json.Number); ok {
		if h, _ := hi.Int64(); int64(n) > h {
			c.add("%s: %d %s, want at most %d", path, n, unit, h)
		}
	}
}

func asSchemas(v any) []map[string]any {
	l, _ := v.([]any)
	out := make([]map[string]any, 0, len(l))
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func asStrings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}
