// Package higress is what Higress's controller does to a plugin's
// configuration: the plugin configuration it makes of a WasmPlugin. Shared by
// the higress host profile (internal/wasmhost), the CLI and envoy/'s tests.
package higress

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
)

// higressSpec is the part of a Higress WasmPlugin spec that makes the
// plugin configuration (api/extensions/v1alpha1/wasmplugin.proto).
type higressSpec struct {
	PluginConfig         json.RawMessage `json:"pluginConfig"`
	DefaultConfig        json.RawMessage `json:"defaultConfig"`
	DefaultConfigDisable bool            `json:"defaultConfigDisable"`
	MatchRules           []struct {
		Ingress       []string        `json:"ingress"`
		Domain        []string        `json:"domain"`
		Service       []string        `json:"service"`
		Config        json.RawMessage `json:"config"`
		ConfigDisable bool            `json:"configDisable"`
		RouteType     string          `json:"routeType"`
	} `json:"matchRules"`
}

// PluginConfig is the plugin configuration Higress's controller
// makes of a WasmPlugin (the resource, or its spec, as JSON), as
// convertIstioWasmPlugin does in alibaba/higress
// pkg/ingress/config/ingress_config.go at commit
// 4e0d69143208d713e88880d5af1c86f4386e425c: pluginConfig, when set, as
// it is; else defaultConfig (unless defaultConfigDisable) plus _rules_, one
// per matchRule without configDisable, its config with _match_route_ (its
// ingress entries), _match_service_ and _match_domain_ added. Unlike the
// controller (a protobuf Struct), key order is kept.
func PluginConfig(resource []byte) ([]byte, error) {
	var obj struct {
		Spec *higressSpec `json:"spec"`
	}
	if err := json.Unmarshal(resource, &obj); err != nil {
		return nil, fmt.Errorf("higress: WasmPlugin: %v", err)
	}
	spec := obj.Spec
	if spec == nil {
		spec = &higressSpec{}
		if err := json.Unmarshal(resource, spec); err != nil {
			return nil, fmt.Errorf("higress: WasmPlugin spec: %v", err)
		}
	}
	if isJSONObject(spec.PluginConfig) {
		return spec.PluginConfig, nil
	}
	var config []byte
	if !spec.DefaultConfigDisable && isJSONObject(spec.DefaultConfig) {
		config = spec.DefaultConfig
	}
	var rules [][]byte
	for i, r := range spec.MatchRules {
		if r.ConfigDisable {
			continue
		}
		rule := []byte("{}")
		if isJSONObject(r.Config) {
			rule = r.Config
		}
		var matches [][2]any
		routes := r.Ingress
		if r.RouteType != "" && r.RouteType != "HTTP" {
			// The controller's own rewrite: every entry becomes the route
			// type's name (path.Join of the type alone).
			routes = make([]string, len(r.Ingress))
			for j := range routes {
				routes[j] = path.Join(r.RouteType)
			}
		}
		for _, m := range [][2]any{{"_match_route_", routes}, {"_match_service_", r.Service}, {"_match_domain_", r.Domain}} {
			if len(m[1].([]string)) > 0 {
				matches = append(matches, m)
			}
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("higress: matchRules[%d]: invalid match rule has no match condition (Higress refuses the WasmPlugin)", i)
		}
		for _, m := range matches {
			v, _ := json.Marshal(m[1])
			rule = withKey(rule, m[0].(string), v)
		}
		rules = append(rules, rule)
	}
	if len(rules) == 0 {
		if spec.DefaultConfigDisable {
			return nil, fmt.Errorf("higress: defaultConfigDisable and no match rule: Higress does not install the plugin")
		}
		return config, nil
	}
	if config == nil {
		config = []byte("{}")
	}
	list := append([]byte("["), bytes.Join(rules, []byte(","))...)
	return withKey(config, "_rules_", append(list, ']')), nil
}

func isJSONObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// withKey adds "key": value at the end of a JSON object.
func withKey(object []byte, key string, value []byte) []byte {
	o := bytes.TrimSpace(object)
	body := bytes.TrimSpace(o[1 : len(o)-1])
	k, _ := json.Marshal(key)
	out := append([]byte("{"), body...)
	if len(body) > 0 {
		out = append(out, ',')
	}
	out = append(append(append(out, k...), ':'), value...)
	return append(out, '}')
}
