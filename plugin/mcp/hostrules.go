package mcp

import (
	"github.com/cloudg/mcp-privacy/internal/shareddata"
	"github.com/cloudg/mcp-privacy/policy"
)

// Configs is a plugin configuration as the host hands it over: one Config,
// or, with Higress's _rules_ (manual 2, "Higress"), a Config for the global part and
// one per rule, the request's picked at its headers as Higress's own
// plugins pick theirs (policy.HostRules.Select).
//
// Each Config is compiled whole from its own keys: policy, identity and
// gateway are per rule. What lives in shared data is keyed by server.id and
// so shared by every Config of one server, in this VM and in the others:
// the catalog of learned metadata, the rate-limit buckets (identified by
// their limit too), the audit ring, the vault and its ephemeral key (the
// validator refuses two vault settings for one server.id).
type Configs struct {
	// Global serves the requests no rule matches. Nil with rules and no
	// global keys: those requests pass by unjudged, as Higress runs a
	// plugin only where a rule matches then.
	Global *Config
	// Rules are the rules' Configs, in the order of hostRules.Rules.
	Rules     []*Config
	hostRules *policy.HostRules
}

// NewConfigs validates and compiles a plugin configuration, with or without
// _rules_. Without, it is NewConfig's one Config, as Global.
func NewConfigs(data []byte, shared shareddata.Store) (*Configs, policy.Errors) {
	doc, err := policy.ParseDocument(data)
	if err != nil || !policy.HasHostRules(doc) {
		c, errs := NewConfig(data, shared)
		if len(errs) > 0 {
			return nil, errs
		}
		return &Configs{Global: c}, nil
	}
	h, errs := policy.DecodeHostRules(doc, policy.Options{})
	if len(errs) > 0 {
		return nil, errs
	}
	cs := &Configs{hostRules: h}
	if h.Global != nil {
		cs.Global = newConfig(h.Global, shared)
	}
	for i := range h.Rules {
		cs.Rules = append(cs.Rules, newConfig(h.Rules[i].Env, shared))
	}
	return cs, nil
}

// Routed reports whether the configuration has rules: the Config is then
// picked per request by Select.
func (cs *Configs) Routed() bool { return cs.hostRules != nil }

// HostRules is the configuration's rules as validated (nil without).
func (cs *Configs) HostRules() *policy.HostRules { return cs.hostRules }

// All returns every Config: the global one (if any), then the rules'.
func (cs *Configs) All() []*Config {
	var all []*Config
	if cs.Global != nil {
		all = append(all, cs.Global)
	}
	return append(all, cs.Rules...)
}

// Select returns the Config of a request: the first rule that matches its
// :authority, route_name and cluster_name, else the global Config (nil:
// the request is not the plugin's). The properties are read only when a
// rule needs them. A request without :authority is matched as one with an
// empty host, where Higress would skip the plugin (GetMatchConfig fails).
func (cs *Configs) Select(req Request) *Config {
	if cs.hostRules == nil {
		return cs.Global
	}
	if i := cs.hostRules.Select(&requestPlace{req: req}); i >= 0 {
		return cs.Rules[i]
	}
	return cs.Global
}

// requestPlace is a request as the Higress matcher reads it.
type requestPlace struct {
	req                    Request
	route, cluster         string
	routeRead, clusterRead bool
}

func (p *requestPlace) Authority() string {
	a, _ := p.req.Header(":authority")
	return a
}

func (p *requestPlace) RouteName() string {
	if !p.routeRead {
		v, _ := p.req.Property("route_name")
		p.route, p.routeRead = string(v), true
	}
	return p.route
}

func (p *requestPlace) ClusterName() string {
	if !p.clusterRead {
		v, _ := p.req.Property("cluster_name")
		p.cluster, p.clusterRead = string(v), true
	}
	return p.cluster
}
