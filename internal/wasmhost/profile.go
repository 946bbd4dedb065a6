package wasmhost

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/higress"
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
	"higress": {Name: "higress", Configure: higress.PluginConfig, Properties: higressProperties},
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
