package envoy

import (
	"reflect"
	"regexp"
	"slices"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"
)

var sha256Hex = regexp.MustCompile(`^[a-f0-9]{64}$`)

// loadK8s reads a Kubernetes resource into its Go API type with unknown and
// duplicate fields refused, and checks it against the CRD schema.
func loadK8s(p *problems, file string, data []byte, apiVersion, kind string, obj any, module, crdFile, crdVersion string) bool {
	j, err := yamlToJSON(data)
	if p.addErr(file, err) {
		return false
	}
	checkTypeMeta(p, file, j, apiVersion, kind)
	checkCRD(p, file, j, module, crdFile, kind, crdVersion)
	return !p.addErr(file, yaml.UnmarshalStrict(data, obj))
}

func loadEG(p *problems, file string, data []byte, kind, plural string, obj any) bool {
	return loadK8s(p, file, data, "gateway.envoyproxy.io/v1alpha1", kind, obj,
		egModule, egCRDDir+"gateway.envoyproxy.io_"+plural+".yaml", "v1alpha1")
}

func checkGateway(files map[string][]byte) problems {
	var p problems
	const (
		eepFile   = "gateway/envoyextensionpolicy.yaml"
		spFile    = "gateway/securitypolicy.yaml"
		ctpFile   = "gateway/clienttrafficpolicy.yaml"
		proxyFile = "gateway/envoyproxy.yaml"
		routeFile = "gateway/httproute.yaml"
	)
	var (
		eep   egv1a1.EnvoyExtensionPolicy
		sp    egv1a1.SecurityPolicy
		ctp   egv1a1.ClientTrafficPolicy
		proxy egv1a1.EnvoyProxy
		route gwapiv1.HTTPRoute
	)
	ok := loadEG(&p, eepFile, files[eepFile], "EnvoyExtensionPolicy", "envoyextensionpolicies", &eep)
	ok = loadEG(&p, spFile, files[spFile], "SecurityPolicy", "securitypolicies", &sp) && ok
	ok = loadEG(&p, ctpFile, files[ctpFile], "ClientTrafficPolicy", "clienttrafficpolicies", &ctp) && ok
	ok = loadEG(&p, proxyFile, files[proxyFile], "EnvoyProxy", "envoyproxies", &proxy) && ok
	ok = loadK8s(&p, routeFile, files[routeFile], "gateway.networking.k8s.io/v1", "HTTPRoute", &route,
		gwapiModule, gwapiHTTPRoute, "v1") && ok
	if !ok {
		return p
	}

	// The Wasm extension.
	if len(eep.Spec.Wasm) != 1 {
		p.add("%s: %d wasm entries, want 1", eepFile, len(eep.Spec.Wasm))
		return p
	}
	w := eep.Spec.Wasm[0]
	if w.Name == nil || *w.Name != pluginName || w.RootID == nil || *w.RootID != pluginName {
		p.add("%s: wasm name and rootID must be %q (the plugin registers that root id)", eepFile, pluginName)
	}
	// Envoy Gateway's Wasm has failOpen only (internal/xds/translator/wasm.go
	// sets Envoy's fail_open from it): no FAIL_RELOAD to ask for, so a VM
	// that traps stays failed there (docs/DEPLOYMENT.md).
	if w.FailOpen == nil || *w.FailOpen {
		p.add("%s: wasm failOpen must be set to false: a failed VM must not pass MCP traffic unfiltered", eepFile)
	}
	var sha *string
	switch w.Code.Type {
	case egv1a1.ImageWasmCodeSourceType:
		if w.Code.Image == nil || w.Code.HTTP != nil {
			p.add("%s: code type Image needs code.image and no code.http", eepFile)
		} else {
			sha = w.Code.Image.SHA256
		}
	case egv1a1.HTTPWasmCodeSourceType:
		if w.Code.HTTP == nil || w.Code.Image != nil {
			p.add("%s: code type HTTP needs code.http and no code.image", eepFile)
		} else {
			sha = w.Code.HTTP.SHA256
		}
	}
	if sha != nil && !sha256Hex.MatchString(*sha) {
		p.add("%s: sha256 %q: want 64 lower-case hex digits", eepFile, *sha)
	}
	if w.Config == nil {
		p.add("%s: wasm config (the envelope) is missing", eepFile)
		return p
	}
	// Envoy Gateway hands config to the plugin as its raw JSON.
	env := parseEnvelope(&p, eepFile+": wasm config", w.Config.Raw)
	if env == nil {
		return p
	}
	var hostKeys []string
	if w.Env != nil {
		hostKeys = w.Env.HostKeys
	}
	checkVaultKeyEnv(&p, eepFile+": wasm env.hostKeys", env, hostKeys)

	// JWT: where Envoy Gateway puts the payload, and headers it sets.
	var providers, claimHeaders []string
	if sp.Spec.JWT == nil || len(sp.Spec.JWT.Providers) == 0 {
		p.add("%s: no jwt providers", spFile)
	} else {
		if sp.Spec.JWT.Optional != nil && sp.Spec.JWT.FailOpen != nil {
			p.add("%s: optional and failOpen cannot both be set", spFile)
		}
		if sp.Spec.JWT.FailOpen != nil && *sp.Spec.JWT.FailOpen {
			p.add("%s: jwt failOpen turns invalid tokens into anonymous callers; use optional", spFile)
		}
		for _, pr := range sp.Spec.JWT.Providers {
			providers = append(providers, pr.Name)
			if (pr.RemoteJWKS == nil) == (pr.LocalJWKS == nil) {
				p.add("%s: provider %s: exactly one of remoteJWKS, localJWKS", spFile, pr.Name)
			}
			for _, c := range pr.ClaimToHeaders {
				claimHeaders = append(claimHeaders, c.Header)
			}
		}
	}
	if md := env.Identity.JWTMetadata; md != nil {
		if len(md) != 2 || md[0] != jwtFilter || !slices.Contains(providers, md[1]) {
			p.add("%s: identity.jwt.metadata %v: Envoy Gateway puts the payload at [%s, <provider name>], providers %v",
				eepFile, md, jwtFilter, providers)
		}
	}
	if h := env.Identity.JWTHeader; h != "" {
		p.add("%s: identity.jwt.payload_header %s: Envoy Gateway does not set one", eepFile, h)
	}

	// Client copies of identity headers go before any filter.
	var early []string
	if h := ctp.Spec.Headers; h != nil && h.EarlyRequestHeaders != nil {
		early = h.EarlyRequestHeaders.Remove
	}
	mustStrip := slices.Concat(defaultIdentityHeaders, identityHeaders(env), claimHeaders, exportHeaders(env))
	if m := missing(uniq(mustStrip), early); len(m) > 0 {
		p.add("%s: headers.earlyRequestHeaders.remove lacks %v: a client could set them before jwt_authn and mcp-privacy read them", ctpFile, m)
	}
	// Path hygiene (Envoy Gateway always sets normalize_path; its default
	// for escaped slashes is a redirect).
	if ps := ctp.Spec.Path; ps == nil || ps.EscapedSlashesAction == nil || *ps.EscapedSlashesAction != egv1a1.RejectRequestAction ||
		ps.DisableMergeSlashes != nil && *ps.DisableMergeSlashes {
		p.add("%s: path must set escapedSlashesAction: RejectRequest and keep slashes merged (disableMergeSlashes unset or false): else a server can route a path the plugin read differently", ctpFile)
	}
	limit := int64(envoyDefaultBufferLimit)
	if c := ctp.Spec.Connection; c != nil && c.BufferLimit != nil {
		limit = c.BufferLimit.Value()
	}
	if limit <= int64(maxBuffered(env)) {
		p.add("%s: connection.bufferLimit %d must be above max(gateway.max_request_bytes, gateway.max_response_bytes) = %d",
			ctpFile, limit, maxBuffered(env))
	}

	// The vault key must be in Envoy's environment for hostKeys to pass it.
	var proxyEnv []string
	if k := proxy.Spec.Provider; k != nil && k.Kubernetes != nil && k.Kubernetes.EnvoyDeployment != nil && k.Kubernetes.EnvoyDeployment.Container != nil {
		for _, e := range k.Kubernetes.EnvoyDeployment.Container.Env {
			proxyEnv = append(proxyEnv, e.Name)
		}
	}
	if m := missing(hostKeys, proxyEnv); len(m) > 0 {
		p.add("%s: the Envoy container's env lacks %v (wasm env.hostKeys)", proxyFile, m)
	}

	// Attachments: both policies on the route, the listener policy on the
	// route's gateway.
	if !reflect.DeepEqual(eep.Spec.TargetRefs, sp.Spec.TargetRefs) || len(eep.Spec.TargetRefs) == 0 {
		p.add("%s and %s must target the same resources: the plugin must only run where the JWT is verified", eepFile, spFile)
	}
	for _, t := range eep.Spec.TargetRefs {
		if t.Kind != "HTTPRoute" || string(t.Name) != route.Name {
			p.add("%s: targets %s %s, want HTTPRoute %s", eepFile, t.Kind, t.Name, route.Name)
		}
	}
	var gateways []string
	for _, pr := range route.Spec.ParentRefs {
		gateways = append(gateways, string(pr.Name))
	}
	for _, t := range ctp.Spec.TargetRefs {
		if t.Kind != "Gateway" || !slices.Contains(gateways, string(t.Name)) {
			p.add("%s: targets %s %s, want the route's Gateway %v", ctpFile, t.Kind, t.Name, gateways)
		}
	}
	if len(ctp.Spec.TargetRefs) == 0 {
		p.add("%s: targets nothing", ctpFile)
	}

	// Routes: everything sent to the MCP server is inspected, and streams
	// are not cut by a request timeout.
	for i, r := range route.Spec.Rules {
		for _, m := range r.Matches {
			if m.Path == nil || m.Path.Type == nil || *m.Path.Type != gwapiv1.PathMatchPathPrefix || m.Path.Value == nil {
				p.add("%s: rules[%d]: want a PathPrefix match", routeFile, i)
				continue
			}
			checkRoutePath(&p, routeFile, *m.Path.Value, env)
			if env.Gateway.Paths.Match(*m.Path.Value) && (r.Timeouts == nil || r.Timeouts.Request == nil || *r.Timeouts.Request != "0s") {
				p.add("%s: rules[%d]: timeouts.request must be \"0s\": the default cuts event streams and long tool calls", routeFile, i)
			}
		}
	}
	return p
}
