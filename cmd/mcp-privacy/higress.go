package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/wasmhost"
	"github.com/cloudg/mcp-privacy/policy"
)

// higressResource returns the plugin configuration of a Higress WasmPlugin
// resource (apiVersion extensions.higress.io/...) as Higress's controller
// injects it (wasmhost.HigressPluginConfig); any other document as it is.
func higressResource(doc *policy.Value) (*policy.Value, error) {
	av := doc.Get("apiVersion")
	if av == nil || av.Kind != policy.StringValue || !strings.HasPrefix(av.Text, "extensions.higress.io/") {
		return doc, nil
	}
	if k := doc.Get("kind"); k == nil || k.Text != "WasmPlugin" {
		return nil, fmt.Errorf("a Higress resource other than WasmPlugin")
	}
	config, err := wasmhost.HigressPluginConfig([]byte(doc.JSON("")))
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
