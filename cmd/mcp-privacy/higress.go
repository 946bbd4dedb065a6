package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/higress"
	"github.com/cloudg/mcp-privacy/internal/wasmhost"
	"github.com/cloudg/mcp-privacy/policy"
)

// higressResource returns the plugin configuration of a Higress WasmPlugin
// resource (apiVersion extensions.higress.io/...) as Higress's controller
// injects it (higress.PluginConfig); any other document as it is.
func higressResource(doc *policy.Value) (*policy.Value, error) {
	av := doc.Get("apiVersion")
	if av == nil || av.Kind != policy.StringValue || !strings.HasPrefix(av.Text, "extensions.higress.io/") {
		return doc, nil
	}
	if k := doc.Get("kind"); k == nil || k.Text != "WasmPlugin" {
		return nil, fmt.Errorf("a Higress resource other than WasmPlugin")
	}
	config, err := higress.PluginConfig([]byte(doc.JSON("")))
	if err != nil {
		return nil, err
	}
	return policy.ParseDocument(config)
}

// printHostRules lists what policy check found in a configuration with
// Higress's _rules_: which configuration each request gets.
func printHostRules(w io.Writer, h *policy.HostRules) {
	for _, r := range h.Rules {
		fmt.Fprintf(w, "%s: %s: policy %q for server %q\n", r.Path, r.Match.Describe(), r.Env.Policy.Name, r.Env.Server.ID)
	}
	if h.Global != nil {
		fmt.Fprintf(w, "no rule matches: the global configuration: policy %q for server %q\n", h.Global.Policy.Name, h.Global.Server.ID)
	} else {
		fmt.Fprintln(w, "no rule matches: no global configuration: Higress passes the request by, unjudged")
	}
}

// higressPlace is the request explain --route, --domain and --service
// describe, as the matcher reads it.
type higressPlace struct{ route, domain, cluster string }

func (p higressPlace) Authority() string   { return p.domain }
func (p higressPlace) RouteName() string   { return p.route }
func (p higressPlace) ClusterName() string { return p.cluster }

// clusterOf is the cluster_name of --service: a cluster name as is
// (outbound|PORT|SUBSET|FQDN), FQDN:PORT as outbound|PORT||FQDN, a bare
// FQDN with no port.
func clusterOf(service string) string {
	if service == "" || strings.Contains(service, "|") {
		return service
	}
	fqdn, port := service, ""
	if c := strings.LastIndexByte(service, ':'); c >= 0 {
		fqdn, port = service[:c], service[c+1:]
	}
	return "outbound|" + port + "||" + fqdn
}

// selectRule narrows a loaded Higress configuration to the part a request
// gets; it returns that part's name ("" when the file has no rules) and
// false when no part applies.
func (l *loaded) selectRule(route, domain, service string) (string, bool) {
	if l.Rules == nil {
		return "", true
	}
	i := l.Rules.Select(higressPlace{route: route, domain: domain, cluster: clusterOf(service)})
	if i < 0 {
		return "global", l.Rules.Global != nil
	}
	r := &l.Rules.Rules[i]
	l.Envelope, l.Policy = r.Env, r.Env.Policy
	return r.Path, true
}

// routeFlags are serve's --route flags.
type routeFlags []wasmhost.HigressRoute

func (r *routeFlags) String() string { return fmt.Sprint(*r) }

func (r *routeFlags) Set(s string) error {
	route, err := wasmhost.ParseHigressRoute(s)
	if err == nil {
		*r = append(*r, route)
	}
	return err
}

// hostProfile is serve --host's profile and the per-request properties it
// gives the plugin: under higress, route_name from --route (the request's
// Host and path) and cluster_name of the upstream (outbound|PORT||HOST).
func hostProfile(name string, routes routeFlags, upstream string) (*wasmhost.Profile, func(*http.Request) map[string][]byte, error) {
	profile, ok := wasmhost.Profiles[name]
	if !ok {
		return nil, nil, fmt.Errorf("--host %q: want one of %s", name, strings.Join(wasmhost.ProfileNames, ", "))
	}
	if len(routes) > 0 && profile.Properties == nil {
		return nil, nil, fmt.Errorf("--route names Higress routes: add --host higress")
	}
	if profile.Properties == nil {
		return profile, nil, nil
	}
	up, err := url.Parse(upstream)
	if err != nil {
		return profile, nil, nil // serve reports the upstream
	}
	cluster := wasmhost.HigressClusterName(up)
	return profile, func(r *http.Request) map[string][]byte {
		return profile.Properties(wasmhost.RouteFor(routes, r.Host, r.URL.Path), cluster)
	}, nil
}

// routedPluginConfig is the configuration serve hands the plugin for a
// Higress configuration: each part's policy flattened (the plugin resolves
// profile names only), the match keys kept. The envelope returned is the
// global part's, else the first rule's (serve's banner and limits).
func routedPluginConfig(l *loaded) (*policy.Envelope, []byte, policy.Errors) {
	doc := l.Doc.Clone()
	flatten := func(part *policy.Value, p *policy.Policy) *policy.Value {
		if !policy.IsEnvelope(part) {
			part = policy.Object()
		}
		part.Set("policy", p.Document())
		return part
	}
	out := policy.Object()
	if l.Rules.Global != nil {
		out = flatten(l.Rules.GlobalDoc.Clone(), l.Rules.Global.Policy)
	}
	rules := policy.Array()
	for i, r := range l.Rules.Rules {
		part := flatten(r.Doc.Clone(), r.Env.Policy)
		for _, m := range doc.Get(policy.HigressRulesKey).Array[i].Object {
			if strings.HasPrefix(m.Key, "_match_") {
				part.Set(m.Key, m.Value)
			}
		}
		rules.Array = append(rules.Array, part)
	}
	out.Set(policy.HigressRulesKey, rules)
	config := []byte(out.JSON(""))
	envs := configEnvelopes(config)
	if len(envs) == 0 {
		return nil, nil, policy.Errors{{Msg: "no configuration"}}
	}
	return envs[0], config, nil
}

// configEnvelopes are the envelopes of a plugin configuration: its one, or
// a Higress configuration's global part and rules.
func configEnvelopes(config []byte) []*policy.Envelope {
	doc, err := policy.ParseDocument(config)
	if err != nil {
		return nil
	}
	if !policy.HasHostRules(doc) {
		env, errs := policy.DecodeEnvelope(doc, policy.Options{})
		if len(errs) > 0 {
			return nil
		}
		return []*policy.Envelope{env}
	}
	h, errs := policy.DecodeHostRules(doc, policy.Options{})
	if len(errs) > 0 {
		return nil
	}
	var envs []*policy.Envelope
	if h.Global != nil {
		envs = append(envs, h.Global)
	}
	for _, r := range h.Rules {
		envs = append(envs, r.Env)
	}
	return envs
}

// vaultKeyEnvs are the environment variables of every part's vault keys:
// the VMs get them as Envoy's host_env_keys would pass them.
func vaultKeyEnvs(config []byte) []string {
	var keys []string
	for _, env := range configEnvelopes(config) {
		for _, k := range append([]string{env.Policy.Vault.KeyEnv}, env.Policy.Vault.PreviousKeysEnv...) {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// holdsHeaders reports whether any part sets gateway.hold_headers (the
// host then needs allow_on_headers_stop_iteration).
func holdsHeaders(config []byte) bool {
	for _, env := range configEnvelopes(config) {
		if env.Gateway.HoldHeaders {
			return true
		}
	}
	return false
}
