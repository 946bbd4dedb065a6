package envoy

import (
	"encoding/json"
	"net/url"
	"slices"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	extensionsv1alpha1 "istio.io/api/extensions/v1alpha1"
	securityv1beta1 "istio.io/api/security/v1beta1"
)

// istioJWTMetadata is where Istio 1.21 and later have jwt_authn put the
// verified payload (payload_in_metadata "payload"; before 1.21 it was the
// issuer).
var istioJWTMetadata = []string{jwtFilter, "payload"}

// loadIstio reads an Istio resource: the CRD schema over the whole object,
// then its spec into Istio's own proto type with unknown fields refused.
func loadIstio(p *problems, file string, data []byte, apiVersion, kind, crdVersion string, spec proto.Message) bool {
	j, err := yamlToJSON(data)
	if p.addErr(file, err) {
		return false
	}
	checkTypeMeta(p, file, j, apiVersion, kind)
	checkCRD(p, file, j, istioModule, istioCRDs, kind, crdVersion)
	var obj struct {
		Spec json.RawMessage `json:"spec"`
	}
	if p.addErr(file, json.Unmarshal(j, &obj)) || obj.Spec == nil {
		p.add("%s: no spec", file)
		return false
	}
	return !p.addErr(file+": spec", protojson.UnmarshalOptions{DiscardUnknown: false}.Unmarshal(obj.Spec, spec))
}

func checkIstio(files map[string][]byte) problems {
	var p problems
	const wpFile, raFile = "istio/wasmplugin.yaml", "istio/requestauthentication.yaml"
	wp := &extensionsv1alpha1.WasmPlugin{}
	ra := &securityv1beta1.RequestAuthentication{}
	wpOK := loadIstio(&p, wpFile, files[wpFile], "extensions.istio.io/v1alpha1", "WasmPlugin", "v1alpha1", wp)
	raOK := loadIstio(&p, raFile, files[raFile], "security.istio.io/v1", "RequestAuthentication", "v1", ra)
	if !wpOK || !raOK {
		return p
	}

	// WasmPlugin.
	switch wp.GetPhase() {
	case extensionsv1alpha1.PluginPhase_AUTHZ, extensionsv1alpha1.PluginPhase_STATS:
	default:
		p.add("%s: phase %v runs the plugin before Istio's jwt_authn (or wherever the control plane likes): want AUTHZ", wpFile, wp.GetPhase())
	}
	if wp.GetFailStrategy() != extensionsv1alpha1.FailStrategy_FAIL_RELOAD {
		p.add("%s: failStrategy %v: want FAIL_RELOAD (Istio >= 1.27): a VM that traps is replaced, "+
			"and a failed plugin never passes MCP traffic unfiltered", wpFile, wp.GetFailStrategy())
	}
	if wp.GetPluginName() != pluginName {
		p.add("%s: pluginName %q, want %q (the plugin's root id)", wpFile, wp.GetPluginName(), pluginName)
	}
	if wp.GetType() == extensionsv1alpha1.PluginType_NETWORK {
		p.add("%s: type NETWORK: mcp-privacy is an HTTP filter", wpFile)
	}
	if u, err := url.Parse(wp.GetUrl()); err != nil || !slices.Contains([]string{"oci", "https", "file"}, u.Scheme) {
		p.add("%s: url %q: want oci://, https:// or file://", wpFile, wp.GetUrl())
	}
	// CEL rules of the CRD that the schema check does not evaluate.
	targets := 0
	hasTargetRef := wp.GetTargetRef() != nil
	for _, set := range []bool{wp.GetSelector() != nil, hasTargetRef, len(wp.GetTargetRefs()) > 0} {
		if set {
			targets++
		}
	}
	if targets > 1 {
		p.add("%s: only one of selector, targetRef, targetRefs may be set", wpFile)
	}
	var hostEnv []string
	for _, e := range wp.GetVmConfig().GetEnv() {
		if e.GetValueFrom() == extensionsv1alpha1.EnvValueSource_HOST {
			if e.GetValue() != "" {
				p.add("%s: vmConfig.env %s: value may only be set when valueFrom is INLINE", wpFile, e.GetName())
			}
			hostEnv = append(hostEnv, e.GetName())
		}
	}

	// The envelope: Istio hands pluginConfig to the plugin as JSON.
	cfg, err := protojson.Marshal(wp.GetPluginConfig())
	if p.addErr(wpFile+": pluginConfig", err) {
		return p
	}
	env := parseEnvelope(&p, wpFile+": pluginConfig", cfg)
	if env == nil {
		return p
	}
	checkVaultKeyEnv(&p, wpFile+": vmConfig.env (valueFrom HOST)", env, hostEnv)
	if md := env.Identity.JWTMetadata; md != nil && !slices.Equal(md, istioJWTMetadata) {
		p.add("%s: identity.jwt.metadata %v: Istio puts the verified payload at %v", wpFile, md, istioJWTMetadata)
	}
	if hs := identityHeaders(env); len(hs) > 0 {
		p.add("%s: the envelope takes identity from headers %v, but nothing in this Istio setup removes client copies of them", wpFile, hs)
	}
	if maxBuffered(env) >= envoyDefaultBufferLimit {
		p.add("%s: gateway.max_request_bytes/max_response_bytes %d must stay below Envoy's default per-connection buffer limit %d, which Istio does not raise",
			wpFile, maxBuffered(env), envoyDefaultBufferLimit)
	}

	// RequestAuthentication: the same workloads, a verifiable issuer, and no
	// claims in headers a client could also send.
	if !proto.Equal(ra.GetSelector(), wp.GetSelector()) || len(ra.GetTargetRefs()) != len(wp.GetTargetRefs()) {
		p.add("%s: selects other workloads than %s: the plugin would run where no JWT is verified", raFile, wpFile)
	}
	if len(ra.GetJwtRules()) == 0 {
		p.add("%s: no jwtRules", raFile)
	}
	for _, r := range ra.GetJwtRules() {
		if r.GetIssuer() == "" || (r.GetJwksUri() == "" && r.GetJwks() == "") {
			p.add("%s: jwt rule %q: want an issuer and jwksUri or jwks", raFile, r.GetIssuer())
		}
		if r.GetOutputPayloadToHeader() != "" || len(r.GetOutputClaimToHeaders()) > 0 {
			p.add("%s: jwt rule %q writes the token to headers; the plugin reads dynamic metadata, and headers would need stripping", raFile, r.GetIssuer())
		}
	}
	return p
}
