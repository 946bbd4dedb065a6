package wasmhost

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/higress"
)

// Profile is what a host does around the proxy-wasm ABI that current
// Envoy does not: how the configuration an operator writes becomes the
// one the plugin is handed, the properties a request carries, and how it
// treats bodies, trailers and local replies. mcp-privacy serve --host
// picks one; e2e runs its matrix over them.
type Profile struct {
	Name string
	// Configure turns the configuration written for this host into the
	// plugin configuration the host hands over; nil: unchanged.
	Configure func(config []byte) ([]byte, error)
	// Properties are the properties of a request the router sent to the
	// named route and upstream cluster; nil: none beyond the harness's.
	Properties func(route, cluster string) map[string][]byte
	// HostProperties are properties every request has on this host.
	HostProperties map[string][]byte
	// Semantics are the host's body, trailer and local-reply rules.
	Semantics Semantics
	// NoStopIteration: the host has no allow_on_headers_stop_iteration
	// (Envoy before 1.35, or the option unset; ngx_wasm_module): a PAUSE
	// on request headers holds everything until the plugin resumes the
	// request, and gateway.hold_headers hangs every POST there.
	NoStopIteration bool
}

// AllowStopIteration is the allow_on_headers_stop_iteration a
// configuration gets on this host: what hold_headers needs, where the
// host has the option.
func (p *Profile) AllowStopIteration(holdHeaders bool) bool {
	return holdHeaders && !p.NoStopIteration
}

// ProfileNames are the names serve --host takes, in the order shown.
var ProfileNames = []string{"envoy", "envoy-1.34", "higress", "ngx-wasm"}

// Profiles are the hosts serve --host knows.
var Profiles = map[string]*Profile{
	"envoy": {Name: "envoy"},
	// Envoy without allow_on_headers_stop_iteration: every Envoy before
	// 1.35, which added the option to the Wasm filter's PluginConfig, and
	// later ones where it is unset (its default).
	"envoy-1.34": {Name: "envoy-1.34", NoStopIteration: true},
	"higress":    {Name: "higress", Configure: higress.PluginConfig, Properties: higressProperties},
	// ngx_wasm_module (nginx, OpenResty; Kong Gateway's Wasm filters):
	// NgxWasmSemantics, its ngx.* properties (nginx variables, served
	// for any ngx.NAME: src/common/proxy_wasm/ngx_proxy_wasm_properties.c
	// at commit 3bed27836bb402143c6cbde17994b1d11a1084bc) and none of
	// Envoy's route_name or cluster_name.
	"ngx-wasm": {Name: "ngx-wasm", NoStopIteration: true, Semantics: NgxWasmSemantics,
		HostProperties: map[string][]byte{
			PropertyPath("ngx", "hostname"):        []byte("localhost"),
			PropertyPath("ngx", "server_protocol"): []byte("HTTP/1.1"),
		}},
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
