package envoy

import (
	"github.com/cloudg/mcp-privacy/internal/higress"
	"github.com/cloudg/mcp-privacy/policy"
)

// checkHigress checks the Higress WasmPlugin against Higress's CRD schema
// (a copy: Higress's Go module is not served by the module proxy and
// replaces istio.io/api with a local directory), then the plugin
// configuration Higress's controller makes of it (higress.PluginConfig,
// after convertIstioWasmPlugin) with the plugin's own validator: the global
// part and every rule.
func checkHigress(files map[string][]byte) problems {
	var p problems
	const file = "higress/wasmplugin.yaml"
	j, err := yamlToJSON(files[file])
	if p.addErr(file, err) {
		return p
	}
	checkTypeMeta(&p, file, j, "extensions.higress.io/v1alpha1", "WasmPlugin")
	checkCRD(&p, file, j, "", "higress/wasmplugin-crd.yaml", "WasmPlugin", "v1alpha1")
	v, err := decodeJSON(j)
	if p.addErr(file, err) {
		return p
	}
	spec, _ := v.(map[string]any)["spec"].(map[string]any)
	if spec["failStrategy"] != "FAIL_CLOSE" {
		p.add("%s: failStrategy %v: want FAIL_CLOSE, a failed plugin must not pass MCP traffic unfiltered", file, spec["failStrategy"])
	}
	if spec["pluginConfig"] != nil {
		p.add("%s: pluginConfig set: Higress then ignores defaultConfig and matchRules", file)
	}
	config, err := higress.PluginConfig(j)
	if p.addErr(file+": Higress's injection", err) {
		return p
	}
	doc, err := policy.ParseDocument(config)
	if p.addErr(file, err) {
		return p
	}
	h, errs := policy.DecodeHostRules(doc, policy.Options{})
	for _, e := range errs {
		p.add("%s: plugin configuration: %v", file, e)
	}
	if h == nil {
		return p
	}
	if h.Global == nil || len(h.Rules) != 2 {
		p.add("%s: want a defaultConfig and two matchRules", file)
	}
	for i, r := range h.Rules {
		if r.Match.Category != policy.MatchRoute {
			p.add("%s: matchRules[%d] does not match on routes", file, i)
		}
	}
	return p
}
