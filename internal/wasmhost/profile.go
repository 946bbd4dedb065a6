package wasmhost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"path"
	"strings"
)

// Profile is what a proxy built on Envoy does around the proxy-wasm ABI
// that plain Envoy does not: how the configuration an operator writes
// becomes the one the plugin is handed, and the properties a request
// carries from the proxy's router. mcp-privacy serve --host picks one.
type Profile struct {
	Name string
	// Configure turns the configuration written for this host into the
	// plugin configuration the host hands over; nil: unchanged.
	Configure func(config []byte) ([]byte, error)
	// Properties are the properties of a request the router sent to the
	// named route and upstream cluster; nil: none beyond the harness's.
	Properties func(route, cluster string) map[string][]byte
}

// Profiles are the hosts serve --host knows.
var Profiles = map[string]*Profile{
	"envoy":   {Name: "envoy"},
	"higress": {Name: "higress", Configure: HigressPluginConfig, Properties: higressProperties},
}

// higressProperties are the properties Higress's plugins read to pick
// their rule (wasm-go pkg/matcher/rule_matcher.go at commit
// d153aa413bfa55139be9654fc2733dc3fa81976e, GetMatchConfig): Envoy's
// route_name and cluster_name. An unnamed route has no property.
func higressProperties(route, cluster string) map[string][]byte {
	p := map[string][]byte{}
	if route != "" {
		p["route_name"] = []byte(route)
	}
	if cluster != "" {
		p["cluster_name"] = []byte(cluster)
	}
	return p
}

// HigressClusterName is the cluster Higress (Istio's naming) routes a
// service to: outbound|PORT||FQDN, the form _match_service_ matches.
func HigressClusterName(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443"}[u.Scheme]
		if port == "" {
			port = "80"
		}
	}
	return "outbound|" + port + "||" + u.Hostname()
}

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

// HigressPluginConfig is the plugin configuration Higress's controller
// makes of a WasmPlugin (the resource, or its spec, as JSON), as
// convertIstioWasmPlugin does in alibaba/higress
// pkg/ingress/config/ingress_config.go at commit
// 4e0d69143208d713e88880d5af1c86f4386e425c: pluginConfig, when set, as
// it is; else defaultConfig (unless defaultConfigDisable) plus _rules_, one
// per matchRule without configDisable, its config with _match_route_ (its
// ingress entries), _match_service_ and _match_domain_ added. Unlike the
// controller (a protobuf Struct), key order is kept.
func HigressPluginConfig(resource []byte) ([]byte, error) {
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

// HigressRoute maps requests to a route name, as Higress's router names
// the route a request took: serve --route NAME=[HOST]/PATH-PREFIX.
type HigressRoute struct {
	Name, Host, PathPrefix string
}

// ParseHigressRoute reads NAME=[HOST]/PATH-PREFIX; HOST (without port)
// empty matches any.
func ParseHigressRoute(s string) (HigressRoute, error) {
	name, target, ok := strings.Cut(s, "=")
	slash := strings.IndexByte(target, '/')
	if !ok || name == "" || slash < 0 {
		return HigressRoute{}, fmt.Errorf("route %q: want NAME=[HOST]/PATH-PREFIX, e.g. mcp-a=/mcp/a or mcp-b=api.example.com/mcp", s)
	}
	return HigressRoute{Name: name, Host: target[:slash], PathPrefix: target[slash:]}, nil
}

// RouteFor returns the name of the first route matching a request's Host
// (port stripped) and path, "" when none does.
func RouteFor(routes []HigressRoute, host, path string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	for _, r := range routes {
		if (r.Host == "" || strings.EqualFold(r.Host, host)) && strings.HasPrefix(path, r.PathPrefix) {
			return r.Name
		}
	}
	return ""
}
