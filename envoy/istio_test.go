package envoy

import (
	"encoding/json"
	"net/url"
	"slices"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	metricsv3 "github.com/envoyproxy/go-control-plane/envoy/config/metrics/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	extensionsv1alpha1 "istio.io/api/extensions/v1alpha1"
	securityv1beta1 "istio.io/api/security/v1beta1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// istioOverrideFile is the ConfigMap that the
// sidecar.istio.io/bootstrapOverride annotation names, and
// istioOverrideKey the file in it Istio's injector points
// ISTIO_BOOTSTRAP_OVERRIDE at (istio/istio
// manifests/charts/istio-control/istio-discovery/files/injection-template.yaml
// at 86c9f01fd735fb01d8192f5bcaf0d424afb7f14c).
const (
	istioOverrideFile = "istio/bootstrap-override.yaml"
	istioOverrideKey  = "custom_bootstrap.json"
)

// loadIstioBootstrapOverride reads the override ConfigMap into
// Kubernetes's ConfigMap type (unknown fields refused) and its
// custom_bootstrap.json into Envoy's Bootstrap, as loadBootstrap reads
// envoy.yaml. pilot-agent passes the file to Envoy as --config-yaml, which
// Envoy merges into Istio's bootstrap, so the override may hold nothing
// but stats_config.stats_tags: anything else would change Istio's
// bootstrap (use_all_default_tags would add Envoy's default extractors).
func loadIstioBootstrapOverride(p *problems, file string, data []byte) (*bootstrapv3.Bootstrap, string) {
	j, err := yamlToJSON(data)
	if p.addErr(file, err) {
		return nil, ""
	}
	checkTypeMeta(p, file, j, "v1", "ConfigMap")
	var cm corev1.ConfigMap
	if p.addErr(file, yaml.UnmarshalStrict(j, &cm)) {
		return nil, ""
	}
	override, ok := cm.Data[istioOverrideKey]
	if !ok || len(cm.Data) != 1 || len(cm.BinaryData) != 0 {
		p.add("%s: want exactly data.%s, which Istio mounts for Envoy", file, istioOverrideKey)
		return nil, cm.Namespace
	}
	b := loadBootstrap(p, file+": "+istioOverrideKey, []byte(override))
	if b == nil {
		return nil, cm.Namespace
	}
	only := &bootstrapv3.Bootstrap{StatsConfig: &metricsv3.StatsConfig{StatsTags: b.GetStatsConfig().GetStatsTags()}}
	if !proto.Equal(b, only) || len(only.StatsConfig.StatsTags) == 0 {
		p.add("%s: %s must hold only stats_config.stats_tags: Envoy merges it into the bootstrap Istio generates", file, istioOverrideKey)
	}
	return b, cm.Namespace
}

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
	// The override ConfigMap is mounted into the pods the WasmPlugin
	// selects, so it lives in their namespace.
	var wpMeta typeMeta
	if j, err := yamlToJSON(files[wpFile]); err == nil && json.Unmarshal(j, &wpMeta) == nil {
		if _, ns := loadIstioBootstrapOverride(&p, istioOverrideFile, files[istioOverrideFile]); ns != wpMeta.Metadata.Namespace {
			p.add("%s: namespace %q: the pods of %s are in %q, and a pod mounts ConfigMaps of its own namespace", istioOverrideFile, ns, wpFile, wpMeta.Metadata.Namespace)
		}
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
