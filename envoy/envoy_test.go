package envoy

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	jwtv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/jwt_authn/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
	wasmfilterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/wasm/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	earlyhmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/early_header_mutation/header_mutation/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	wasmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/wasm/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	// Every type an Any in the configurations names must be registered,
	// or protojson refuses the file.
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/router/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"

	"github.com/cloudg/mcp-privacy/policy"
)

// Names the checks look for in a bootstrap.
const (
	hcmFilter       = "envoy.filters.network.http_connection_manager"
	jwtFilter       = "envoy.filters.http.jwt_authn"
	wasmFilter      = "envoy.filters.http.wasm"
	ratelimitFilter = "envoy.filters.http.ratelimit"
	routerFilter    = "envoy.filters.http.router"
	mcpCluster      = "mcp_server"
	pluginName      = "mcp-privacy"
	v8Runtime       = "envoy.wasm.runtime.v8"
	httpOptionsKey  = "envoy.extensions.upstreams.http.v3.HttpProtocolOptions"
)

// The range of FAIL_RELOAD's back-off base interval the checks accept.
const (
	minReloadBackoff = time.Second
	maxReloadBackoff = time.Minute
)

// loadBootstrap reads an Envoy bootstrap as Envoy would: YAML to JSON to the
// Bootstrap proto with unknown fields refused, then protoc-gen-validate's
// rules over the bootstrap and, unpacked, every Any inside it (Bootstrap's
// own ValidateAll stops at Any fields).
func loadBootstrap(p *problems, file string, data []byte) *bootstrapv3.Bootstrap {
	j, err := yamlToJSON(data)
	if p.addErr(file, err) {
		return nil
	}
	b := &bootstrapv3.Bootstrap{}
	if p.addErr(file, protojson.UnmarshalOptions{DiscardUnknown: false}.Unmarshal(j, b)) {
		return nil
	}
	p.addErr(file+": validate", b.ValidateAll())
	validateAnys(p, file, b.ProtoReflect())
	return b
}

type validator interface{ ValidateAll() error }

// validateAnys unpacks every Any below m and validates what it holds.
func validateAnys(p *problems, path string, m protoreflect.Message) {
	visit := func(path string, m protoreflect.Message) {
		if a, ok := m.Interface().(*anypb.Any); ok {
			inner, err := a.UnmarshalNew()
			if p.addErr(path, err) {
				return
			}
			if v, ok := inner.(validator); ok {
				p.addErr(path+" ("+a.GetTypeUrl()+")", v.ValidateAll())
			}
			m = inner.ProtoReflect()
		}
		validateAnys(p, path, m)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := path + "." + string(fd.Name())
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				visit(fmt.Sprintf("%s[%d]", name, i), v.List().Get(i).Message())
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				visit(fmt.Sprintf("%s[%s]", name, k.String()), mv.Message())
				return true
			})
		case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
			visit(name, v.Message())
		}
		return true
	})
}

// envoyDeployment is what the checks found in one bootstrap.
type envoyDeployment struct {
	bootstrap *bootstrapv3.Bootstrap
	hcm       *hcmv3.HttpConnectionManager
	jwt       *jwtv3.JwtAuthentication
	wasm      *wasmv3.PluginConfig
	ratelimit *ratelimitv3.RateLimit
	envelope  *policy.Envelope
	// envelopeJSON is the configuration string as written.
	envelopeJSON string
	// descriptors are the key sequences of the routes' rate_limits.
	descriptors [][]string
}

// checkEnvoy checks a bootstrap that runs mcp-privacy: the filter chain, the
// plugin and its envelope, and that the rest of the configuration agrees
// with what the envelope expects.
func checkEnvoy(p *problems, file string, data []byte) *envoyDeployment {
	b := loadBootstrap(p, file, data)
	if b == nil {
		return nil
	}
	d := &envoyDeployment{bootstrap: b}
	clusters := map[string]*clusterv3.Cluster{}
	for _, c := range b.GetStaticResources().GetClusters() {
		clusters[c.GetName()] = c
	}
	checkCluster := func(where, name string) *clusterv3.Cluster {
		c, ok := clusters[name]
		if !ok {
			p.add("%s: cluster %q is not defined", where, name)
		}
		return c
	}

	listeners := b.GetStaticResources().GetListeners()
	if len(listeners) != 1 {
		p.add("%s: %d listeners, want 1", file, len(listeners))
		return nil
	}
	l := listeners[0]
	for _, fc := range l.GetFilterChains() {
		for _, f := range fc.GetFilters() {
			if f.GetName() == hcmFilter {
				d.hcm = &hcmv3.HttpConnectionManager{}
				p.addErr(file+": "+hcmFilter, f.GetTypedConfig().UnmarshalTo(d.hcm))
			}
		}
	}
	if d.hcm == nil {
		p.add("%s: no %s", file, hcmFilter)
		return nil
	}

	// Filter order: identity is verified before the plugin reads it, the
	// plugin's exported headers exist before ratelimit reads them, and the
	// router is last.
	var order []string
	for _, f := range d.hcm.GetHttpFilters() {
		order = append(order, f.GetName())
		var err error
		switch f.GetName() {
		case jwtFilter:
			d.jwt = &jwtv3.JwtAuthentication{}
			err = f.GetTypedConfig().UnmarshalTo(d.jwt)
		case wasmFilter:
			w := &wasmfilterv3.Wasm{}
			err = f.GetTypedConfig().UnmarshalTo(w)
			d.wasm = w.GetConfig()
		case ratelimitFilter:
			d.ratelimit = &ratelimitv3.RateLimit{}
			err = f.GetTypedConfig().UnmarshalTo(d.ratelimit)
		}
		p.addErr(file+": "+f.GetName(), err)
		if f.GetDisabled() {
			p.add("%s: filter %s is disabled", file, f.GetName())
		}
	}
	want := []string{jwtFilter, wasmFilter}
	if d.ratelimit != nil {
		want = append(want, ratelimitFilter)
	}
	want = append(want, routerFilter)
	pos := -1
	for _, name := range want {
		i := slices.Index(order, name)
		if i < 0 {
			p.add("%s: http_filters %v lack %s", file, order, name)
			continue
		}
		if i < pos {
			p.add("%s: http_filters %v: want the order %v", file, order, want)
		}
		pos = i
	}
	if len(order) == 0 || order[len(order)-1] != routerFilter {
		p.add("%s: http_filters %v: the router must be last", file, order)
	}
	if d.wasm == nil || d.jwt == nil {
		return nil
	}

	// The plugin.
	w := d.wasm
	if w.GetName() != pluginName || w.GetRootId() != pluginName {
		p.add("%s: wasm name/root_id %q/%q, want %q (the plugin registers that root id)", file, w.GetName(), w.GetRootId(), pluginName)
	}
	//lint:ignore SA1019 the deprecated fail_open must stay unset next to failure_policy
	failOpen := w.GetFailOpen()
	if w.GetFailurePolicy() != wasmv3.FailurePolicy_FAIL_RELOAD || failOpen {
		p.add("%s: wasm failure_policy %v (fail_open %v): want FAIL_RELOAD: a VM that traps is replaced (Envoy >= 1.33), "+
			"and a failed VM never passes MCP traffic unfiltered", file, w.GetFailurePolicy(), failOpen)
	}
	// The reload back-off: Envoy's default (1 s) stated, and not so short
	// that a request that traps every VM keeps a worker busy reloading (a
	// VM takes about 0.6 s to start) nor so long that a worker refuses
	// traffic for minutes. mcp-privacy serve uses the same interval.
	if b := w.GetReloadConfig().GetBackoff().GetBaseInterval(); b == nil || b.AsDuration() < minReloadBackoff || b.AsDuration() > maxReloadBackoff {
		p.add("%s: wasm reload_config.backoff.base_interval %v: want one between %v and %v", file, b.AsDuration(), minReloadBackoff, maxReloadBackoff)
	}
	vm := w.GetVmConfig()
	if vm.GetVmId() != pluginName || vm.GetRuntime() != v8Runtime {
		p.add("%s: vm_config vm_id/runtime %q/%q, want %q/%q", file, vm.GetVmId(), vm.GetRuntime(), pluginName, v8Runtime)
	}
	if vm.GetCode().GetLocal().GetFilename() == "" && vm.GetCode().GetRemote() == nil {
		p.add("%s: vm_config.code names no module", file)
	}
	cfg := &wrapperspb.StringValue{}
	if p.addErr(file+": wasm configuration (want a google.protobuf.StringValue holding the envelope)", w.GetConfiguration().UnmarshalTo(cfg)) {
		return nil
	}
	d.envelopeJSON = cfg.GetValue()
	env := parseEnvelope(p, file+": wasm configuration", []byte(d.envelopeJSON))
	if env == nil {
		return nil
	}
	d.envelope = env
	// hold_headers pauses request headers until the body is judged; Envoy
	// delivers the body to a paused filter only with
	// allow_on_headers_stop_iteration, else every POST hangs. Without
	// hold_headers the option is harmless but says the config is confused.
	if allow := w.GetAllowOnHeadersStopIteration().GetValue(); allow != env.Gateway.HoldHeaders {
		p.add("%s: gateway.hold_headers is %v but the wasm filter's allow_on_headers_stop_iteration is %v: they must agree (a mismatch hangs every MCP POST or gives up holding headers)",
			file, env.Gateway.HoldHeaders, allow)
	}
	checkVaultKeyEnv(p, file+": vm_config.environment_variables.host_env_keys", env, vm.GetEnvironmentVariables().GetHostEnvKeys())

	// Where the plugin reads the verified JWT must be where jwt_authn puts it.
	var metadataKeys, payloadHeaders, claimHeaders []string
	for name, prov := range d.jwt.GetProviders() {
		metadataKeys = append(metadataKeys, prov.GetPayloadInMetadata())
		if h := prov.GetForwardPayloadHeader(); h != "" {
			payloadHeaders = append(payloadHeaders, h)
		}
		for _, c := range prov.GetClaimToHeaders() {
			claimHeaders = append(claimHeaders, c.GetHeaderName())
		}
		if rj := prov.GetRemoteJwks(); rj != nil {
			checkCluster(fmt.Sprintf("%s: jwt provider %s remote_jwks", file, name), rj.GetHttpUri().GetCluster())
		}
	}
	if md := env.Identity.JWTMetadata; md != nil {
		if len(md) != 2 || md[0] != jwtFilter || !slices.Contains(metadataKeys, md[1]) {
			p.add("%s: identity.jwt.metadata %v: jwt_authn stores the payload under [%s, <payload_in_metadata>], providers have %v",
				file, md, jwtFilter, metadataKeys)
		}
	}
	if h := env.Identity.JWTHeader; h != "" && !slices.Contains(payloadHeaders, h) {
		p.add("%s: identity.jwt.payload_header %s is not a forward_payload_header of any jwt provider (%v)", file, h, payloadHeaders)
	}

	// Client copies of identity headers (and of headers the plugin or
	// jwt_authn set) must be gone before the first filter runs.
	var early []string
	for _, ext := range d.hcm.GetEarlyHeaderMutationExtensions() {
		m := &earlyhmv3.HeaderMutation{}
		if p.addErr(file+": early_header_mutation_extensions", ext.GetTypedConfig().UnmarshalTo(m)) {
			continue
		}
		for _, mu := range m.GetMutations() {
			if r := mu.GetRemove(); r != "" {
				early = append(early, r)
			}
		}
	}
	// Clients could spoof x-forwarded-for etc. as well, but those are not
	// identity here.
	mustStrip := slices.Concat(defaultIdentityHeaders, identityHeaders(env), exportHeaders(env), claimHeaders, payloadHeaders)
	if m := missing(uniq(mustStrip), early); len(m) > 0 {
		p.add("%s: early_header_mutation_extensions do not remove %v: a client could set them before jwt_authn and mcp-privacy read them", file, m)
	}

	// Path hygiene: the router, the plugin and the server read one path.
	if !d.hcm.GetNormalizePath().GetValue() || !d.hcm.GetMergeSlashes() ||
		d.hcm.GetPathWithEscapedSlashesAction() != hcmv3.HttpConnectionManager_REJECT_REQUEST {
		p.add("%s: the connection manager must set normalize_path: true, merge_slashes: true and path_with_escaped_slashes_action: REJECT_REQUEST (have %v, %v, %v): else a server can route a path the plugin read differently",
			file, d.hcm.GetNormalizePath().GetValue(), d.hcm.GetMergeSlashes(), d.hcm.GetPathWithEscapedSlashesAction())
	}

	// Listener buffer limit: above what the plugin buffers, or Envoy answers
	// first with its own 413/500.
	limit := envoyDefaultBufferLimit
	if v := l.GetPerConnectionBufferLimitBytes(); v != nil {
		limit = int(v.GetValue())
	}
	if limit <= maxBuffered(env) {
		p.add("%s: per_connection_buffer_limit_bytes %d must be above max(gateway.max_request_bytes, gateway.max_response_bytes) = %d",
			file, limit, maxBuffered(env))
	}

	// Routes.
	rc := d.hcm.GetRouteConfig()
	if rc == nil {
		p.add("%s: want an inline route_config", file)
		return d
	}
	toMCP := 0
	for _, vh := range rc.GetVirtualHosts() {
		where := fmt.Sprintf("%s: virtual host %s", file, vh.GetName())
		removed := slices.Concat(rc.GetRequestHeadersToRemove(), vh.GetRequestHeadersToRemove())
		if m := missing(slices.Concat(defaultIdentityHeaders, identityHeaders(env)), removed); len(m) > 0 {
			p.add("%s: request_headers_to_remove lacks %v", where, m)
		}
		for _, h := range exportHeaders(env) {
			if slices.Contains(removed, h) {
				p.add("%s: request_headers_to_remove removes %s, which the plugin exports for the filters after it", where, h)
			}
		}
		d.descriptors = append(d.descriptors, rateLimitDescriptors(vh.GetRateLimits())...)
		for i, r := range vh.GetRoutes() {
			rwhere := fmt.Sprintf("%s route[%d]", where, i)
			ra := r.GetRoute()
			if ra == nil {
				continue
			}
			d.descriptors = append(d.descriptors, rateLimitDescriptors(ra.GetRateLimits())...)
			cluster := ra.GetCluster()
			checkCluster(rwhere, cluster)
			if cluster != mcpCluster {
				continue
			}
			toMCP++
			m := r.GetMatch()
			switch {
			case m.GetPathSeparatedPrefix() != "":
				checkRoutePath(p, rwhere, m.GetPathSeparatedPrefix(), env)
			default:
				p.add("%s: routes to %s must match a path_separated_prefix (got %s); prefix: /mcp would also send /mcpx past the plugin's paths",
					rwhere, mcpCluster, protojson.Format(m))
			}
			if ra.GetHostRewriteSpecifier() != nil {
				p.add("%s: host rewrite: the MCP server must see the Host the client sent", rwhere)
			}
			if env.Gateway.Paths.Match(m.GetPathSeparatedPrefix()) && !jwtCovers(d.jwt, m.GetPathSeparatedPrefix()) {
				p.add("%s: no jwt_authn rule covers %s: tokens would not be verified and every caller would be anonymous", rwhere, m.GetPathSeparatedPrefix())
			}
			if env.Gateway.Paths.Match(m.GetPathSeparatedPrefix()) && ra.GetTimeout().AsDuration() != 0 {
				p.add("%s: timeout %v would cut event streams and long tool calls; want 0s", rwhere, ra.GetTimeout().AsDuration())
			}
		}
	}
	if toMCP == 0 {
		p.add("%s: no route sends traffic to %s", file, mcpCluster)
	}

	// The global rate limit filter.
	if rl := d.ratelimit; rl != nil {
		if rl.GetDomain() == "" {
			p.add("%s: ratelimit domain is empty", file)
		}
		name := rl.GetRateLimitService().GetGrpcService().GetEnvoyGrpc().GetClusterName()
		if c := checkCluster(file+": ratelimit rate_limit_service", name); c != nil && !http2(p, file, c) {
			p.add("%s: cluster %s speaks gRPC and needs HTTP/2 (typed_extension_protocol_options %s explicit_http_config.http2_protocol_options)",
				file, name, httpOptionsKey)
		}
		if len(d.descriptors) == 0 {
			p.add("%s: the ratelimit filter is configured but no route has rate_limits", file)
		}
	}
	for _, keys := range d.descriptors {
		for _, k := range keys {
			if h, ok := strings.CutPrefix(k, "header:"); ok && !slices.Contains(exportHeaders(env), h) {
				p.add("%s: a rate_limits descriptor reads header %s, which the plugin does not export (gateway.export_headers %v): clients could choose its value",
					file, h, exportHeaders(env))
			}
		}
	}
	return d
}

// jwtCovers reports whether a jwt_authn rule matching by prefix applies to
// every path under prefix.
func jwtCovers(j *jwtv3.JwtAuthentication, prefix string) bool {
	for _, r := range j.GetRules() {
		p := cmpOr(r.GetMatch().GetPrefix(), r.GetMatch().GetPathSeparatedPrefix())
		if p != "" && strings.HasPrefix(prefix, p) {
			return true
		}
	}
	return false
}

// rateLimitDescriptors returns each rate_limits entry as the list of its
// descriptor keys, and for request_headers actions the header as
// "header:<name>" right after the key.
func rateLimitDescriptors(rls []*routev3.RateLimit) [][]string {
	var out [][]string
	for _, rl := range rls {
		var keys []string
		for _, a := range rl.GetActions() {
			switch {
			case a.GetRequestHeaders() != nil:
				keys = append(keys, a.GetRequestHeaders().GetDescriptorKey(), "header:"+strings.ToLower(a.GetRequestHeaders().GetHeaderName()))
			case a.GetGenericKey() != nil:
				keys = append(keys, cmpOr(a.GetGenericKey().GetDescriptorKey(), "generic_key"))
			default:
				keys = append(keys, "(unsupported action)")
			}
		}
		out = append(out, keys)
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// http2 reports whether a cluster talks HTTP/2 upstream.
func http2(p *problems, file string, c *clusterv3.Cluster) bool {
	//lint:ignore SA1019 the deprecated field still makes the cluster speak HTTP/2
	if c.GetHttp2ProtocolOptions() != nil {
		return true
	}
	a, ok := c.GetTypedExtensionProtocolOptions()[httpOptionsKey]
	if !ok {
		return false
	}
	o := &upstreamhttpv3.HttpProtocolOptions{}
	if p.addErr(file+": "+httpOptionsKey, a.UnmarshalTo(o)) {
		return false
	}
	return o.GetExplicitHttpConfig().GetHttp2ProtocolOptions() != nil
}

// --- envoyproxy/ratelimit configuration -----------------------------------

// The service's configuration is plain YAML; these mirror its loader
// (src/config/config_impl.go), including its list of valid keys.
type rlsRoot struct {
	Domain      string          `yaml:"domain"`
	Descriptors []rlsDescriptor `yaml:"descriptors"`
}

type rlsDescriptor struct {
	Key            string          `yaml:"key"`
	Value          string          `yaml:"value"`
	RateLimit      *rlsRateLimit   `yaml:"rate_limit"`
	Descriptors    []rlsDescriptor `yaml:"descriptors"`
	ShadowMode     bool            `yaml:"shadow_mode"`
	DetailedMetric bool            `yaml:"detailed_metric"`
}

type rlsRateLimit struct {
	RequestsPerUnit uint32 `yaml:"requests_per_unit"`
	Unit            string `yaml:"unit"`
	Unlimited       bool   `yaml:"unlimited"`
	Name            string `yaml:"name"`
	Replaces        []struct {
		Name string `yaml:"name"`
	} `yaml:"replaces"`
}

// checkRateLimitConfig checks a rate limit service configuration the way the
// service loads it, and that it has entries for every descriptor shape
// (sequence of keys) Envoy sends for domain.
func checkRateLimitConfig(p *problems, file string, data []byte, domain string, shapes [][]string) {
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	var root rlsRoot
	if p.addErr(file, dec.Decode(&root)) {
		return
	}
	if root.Domain == "" {
		p.add("%s: empty domain", file)
	}
	if root.Domain != domain {
		p.add("%s: domain %q, but Envoy's ratelimit filter sends domain %q", file, root.Domain, domain)
	}
	var walk func(path string, ds []rlsDescriptor)
	walk = func(path string, ds []rlsDescriptor) {
		seen := map[string]bool{}
		for i, d := range ds {
			where := fmt.Sprintf("%s[%d]", path, i)
			if d.Key == "" {
				p.add("%s: %s: descriptor has empty key", file, where)
			}
			composite := d.Key
			if d.Value != "" {
				composite += "_" + d.Value
			}
			if seen[composite] {
				p.add("%s: %s: duplicate descriptor composite key %q", file, where, composite)
			}
			seen[composite] = true
			if rl := d.RateLimit; rl != nil {
				unit, ok := rlsv3.RateLimitResponse_RateLimit_Unit_value[strings.ToUpper(rl.Unit)]
				valid := ok && unit != int32(rlsv3.RateLimitResponse_RateLimit_UNKNOWN)
				switch {
				case rl.Unlimited && valid:
					p.add("%s: %s: a unit with unlimited", file, where)
				case !rl.Unlimited && !valid:
					p.add("%s: %s: invalid rate limit unit %q", file, where, rl.Unit)
				case !rl.Unlimited && rl.RequestsPerUnit == 0:
					p.add("%s: %s: requests_per_unit 0 refuses every request", file, where)
				}
			}
			walk(where+".descriptors", d.Descriptors)
		}
	}
	walk("descriptors", root.Descriptors)

	for _, shape := range shapes {
		var keys []string
		for _, k := range shape {
			if !strings.HasPrefix(k, "header:") {
				keys = append(keys, k)
			}
		}
		level, found := root.Descriptors, true
		for i, k := range keys {
			var next []rlsDescriptor
			hasKey, limited := false, false
			for _, d := range level {
				if d.Key == k {
					hasKey = true
					next = append(next, d.Descriptors...)
					limited = limited || d.RateLimit != nil
				}
			}
			if !hasKey || (i == len(keys)-1 && !limited) {
				found = false
				break
			}
			level = next
		}
		if !found {
			p.add("%s: Envoy sends descriptors %v, which no entry here limits", file, keys)
		}
	}
}

// --- the deployments --------------------------------------------------------

func checkPlainEnvoy(files map[string][]byte) problems {
	var p problems
	checkEnvoy(&p, "envoy.yaml", files["envoy.yaml"])
	return p
}

func checkEnvoyRateLimit(files map[string][]byte) problems {
	var p problems
	d := checkEnvoy(&p, "envoy-ratelimit.yaml", files["envoy-ratelimit.yaml"])
	if d == nil {
		return p
	}
	if d.ratelimit == nil {
		p.add("envoy-ratelimit.yaml: no %s filter", ratelimitFilter)
		return p
	}
	if d.envelope != nil && len(d.envelope.Gateway.ExportHeaders) == 0 {
		p.add("envoy-ratelimit.yaml: the envelope exports no headers for the ratelimit filter")
	}
	checkRateLimitConfig(&p, "ratelimit-config.yaml", files["ratelimit-config.yaml"], d.ratelimit.GetDomain(), d.descriptors)

	// envoy-ratelimit.yaml is envoy.yaml plus rate limiting: the parts they
	// share must not drift apart.
	var bp problems
	base := checkEnvoy(&bp, "envoy.yaml", files["envoy.yaml"])
	if base == nil {
		p.add("envoy.yaml does not load, cannot compare: %v", bp)
		return p
	}
	if !proto.Equal(base.jwt, d.jwt) {
		p.add("envoy-ratelimit.yaml: jwt_authn configuration differs from envoy.yaml")
	}
	bw, rw := proto.Clone(base.wasm).(*wasmv3.PluginConfig), proto.Clone(d.wasm).(*wasmv3.PluginConfig)
	bw.Configuration, rw.Configuration = nil, nil
	if !proto.Equal(bw, rw) {
		p.add("envoy-ratelimit.yaml: wasm plugin settings differ from envoy.yaml")
	}
	if a, b := envelopeWithoutExports(base.envelopeJSON), envelopeWithoutExports(d.envelopeJSON); !reflect.DeepEqual(a, b) {
		p.add("envoy-ratelimit.yaml: the envelope differs from envoy.yaml's in more than gateway.export_headers")
	}
	for _, name := range []string{mcpCluster, "jwks"} {
		if !proto.Equal(findCluster(base.bootstrap, name), findCluster(d.bootstrap, name)) {
			p.add("envoy-ratelimit.yaml: cluster %s differs from envoy.yaml", name)
		}
	}
	return p
}

func envelopeWithoutExports(s string) any {
	var v map[string]any
	if json.Unmarshal([]byte(s), &v) != nil {
		return nil
	}
	if g, ok := v["gateway"].(map[string]any); ok {
		delete(g, "export_headers")
	}
	return v
}

func findCluster(b *bootstrapv3.Bootstrap, name string) *clusterv3.Cluster {
	for _, c := range b.GetStaticResources().GetClusters() {
		if c.GetName() == name {
			return c
		}
	}
	return nil
}

// --- tests -----------------------------------------------------------------

// deployments are the configurations in this directory, each with the files
// it consists of and the check over them.
var deployments = []struct {
	name  string
	files []string
	check func(map[string][]byte) problems
}{
	{"envoy", []string{"envoy.yaml"}, checkPlainEnvoy},
	{"envoy-ratelimit", []string{"envoy-ratelimit.yaml", "ratelimit-config.yaml", "envoy.yaml"}, checkEnvoyRateLimit},
	{"envoy-mcp-router", []string{"envoy-mcp-router.yaml"}, checkMCPRouterDeployment},
	{"istio", []string{"istio/wasmplugin.yaml", "istio/requestauthentication.yaml", istioOverrideFile}, checkIstio},
	{"gateway", []string{"gateway/envoyextensionpolicy.yaml", "gateway/securitypolicy.yaml",
		"gateway/clienttrafficpolicy.yaml", "gateway/envoyproxy.yaml", "gateway/httproute.yaml"}, checkGateway},
	{"higress", []string{"higress/wasmplugin.yaml", "higress/wasmplugin-crd.yaml"}, checkHigress},
	// The stats_tags of every bootstrap against the plugin's metrics; the
	// rule files are checked by the tests of ./observability.
	{"stats-tags", []string{"envoy.yaml", "envoy-ratelimit.yaml", "envoy-mcp-router.yaml", "gateway/envoyproxy.yaml", istioOverrideFile, statsGolden, promGolden,
		"observability/mcp-privacy-rules.yaml", "observability/mcp-privacy-prometheusrule.yaml"}, checkStatsTags},
}

func loadDeployment(t *testing.T, name string) (map[string][]byte, func(map[string][]byte) problems) {
	t.Helper()
	for _, d := range deployments {
		if d.name == name {
			files, err := readFiles(d.files...)
			if err != nil {
				t.Fatal(err)
			}
			return files, d.check
		}
	}
	t.Fatalf("no deployment %q", name)
	return nil, nil
}

// TestDeployments loads every configuration into the proxy's own API types
// and checks it (see checkEnvoy, checkIstio, checkGateway).
func TestDeployments(t *testing.T) {
	t.Parallel()
	for _, d := range deployments {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			files, check := loadDeployment(t, d.name)
			for _, msg := range check(files) {
				t.Error(msg)
			}
		})
	}
}

// The starts of the filter entries in the bootstrap files, and a pseudo
// replacement that moves the jwt_authn entry after the plugin's.
const (
	moveJWTAfterWasm = "<move jwt_authn after wasm>"
	jwtBlock         = "          - name: " + jwtFilter + "\n"
	wasmBlock        = "          - name: " + wasmFilter + "\n"
	routerBlock      = "          - name: " + routerFilter + "\n"
)

// TestBrokenCopiesFail makes sure the checks can fail: each case breaks one
// file in memory the way a careless edit would, and the check must report
// it.
func TestBrokenCopiesFail(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, deployment, file string
		old, new               string
		want                   string // in one of the problems reported
	}{
		// Higress: the CRD schema, and every part of the injected configuration.
		{"higress misspelled field", "higress", "higress/wasmplugin.yaml",
			"  matchRules:", "  matchRule:", "matchRule"}, // and then no _rules_
		{"higress bad enum", "higress", "higress/wasmplugin.yaml",
			"failStrategy: FAIL_CLOSE", "failStrategy: FAIL_CLOSED", "FAIL_CLOSED"},
		{"higress bad rule", "higress", "higress/wasmplugin.yaml",
			"extends: strict", "extends: strictest", "_rules_[0].policy.extends"},
		{"higress rule without a condition", "higress", "higress/wasmplugin.yaml",
			"  - ingress: [higress-system/mcp-docs]", "  - ingress: []", "no match condition"},
		// stats_tags: every bootstrap turns the plugin's names into the
		// dashboard's.
		{"stats tag dropped", "stats-tags", "envoy.yaml",
			"  - tag_name: mcp_scope\n", "  - tag_name: mcp_scope_x\n", "mcp_scope_x"},
		{"stats tag regex off", "stats-tags", "gateway/envoyproxy.yaml",
			`calls(?:\.tool\.[^.]+)?(\.role\.([^.]+))'`, `calls(?:\.tool\.[^.]+)?(\.role\.([^.]+))$'`, "would not show mcp_privacy_calls"},
		{"gateway bootstrap replaced", "stats-tags", "gateway/envoyproxy.yaml",
			"    type: Merge\n", "    type: Replace\n", "want Merge"},
		{"istio stats tag regex off", "stats-tags", istioOverrideFile,
			`"^wasmcustom\\.mcp_privacy\\.errors(\\.kind\\.([^.]+))$"`, `"^wasmcustom\\.mcp_privacy\\.errors\\.(kind\\.([^.]+))$"`, "would not show mcp_privacy_errors"},
		{"istio override beyond stats_tags", "istio", istioOverrideFile,
			`"stats_config": {`, `"stats_config": {"use_all_default_tags": true,`, "only stats_config.stats_tags"},
		{"istio override in another namespace", "istio", istioOverrideFile,
			"  namespace: mcp\n", "  namespace: default\n", "namespace"},
		// Envoy: proto field names, enums, validation rules, Any types.
		{"envoy misspelled field", "envoy", "envoy.yaml",
			"per_connection_buffer_limit_bytes:", "per_connection_buffer_limit_byte:", "unknown field"},
		{"envoy misspelled field in Any", "envoy", "envoy.yaml",
			"payload_in_metadata: jwt_payload", "payload_in_metdata: jwt_payload", "unknown field"},
		{"envoy misspelled @type", "envoy", "envoy.yaml",
			"envoy.extensions.filters.http.router.v3.Router", "envoy.extensions.filters.http.router.v3.Routr", "envoy.extensions.filters.http.router.v3.Routr"},
		{"envoy bad enum", "envoy", "envoy.yaml",
			"failure_policy: FAIL_RELOAD", "failure_policy: FAIL_RELOADS", "FAIL_RELOADS"},
		{"envoy validation rule in Any", "envoy", "envoy.yaml",
			"stat_prefix: mcp", "stat_prefix: \"\"", "StatPrefix"},
		{"envoy duplicate key", "envoy", "envoy.yaml",
			"connect_timeout: 5s\n    load_assignment:\n      cluster_name: mcp_server", "connect_timeout: 5s\n    connect_timeout: 5s\n    load_assignment:\n      cluster_name: mcp_server", "already set"},
		// Envoy: what the checks add on top of the schema.
		{"envoy invalid envelope", "envoy", "envoy.yaml",
			`"extends": "standard"`, `"extends": "standrad"`, "envelope"},
		{"envoy unknown envelope key", "envoy", "envoy.yaml",
			`"anonymous_id": "anonymous"`, `"anonymus_id": "anonymous"`, "envelope"},
		{"envoy filter disabled", "envoy", "envoy.yaml",
			"          - name: envoy.filters.http.jwt_authn\n", "          - name: envoy.filters.http.jwt_authn\n            disabled: true\n", "disabled"},
		{"envoy filter order", "envoy", "envoy.yaml", moveJWTAfterWasm, "", "want the order"},
		{"envoy hold_headers without the Envoy option", "envoy", "envoy.yaml",
			"allow_on_headers_stop_iteration: true", "allow_on_headers_stop_iteration: false", "must agree"},
		{"envoy Envoy option without hold_headers", "envoy", "envoy.yaml",
			`"hold_headers": true,`, ``, "must agree"},
		{"envoy fail open", "envoy", "envoy.yaml",
			"failure_policy: FAIL_RELOAD", "failure_policy: FAIL_OPEN", "FAIL_RELOAD"},
		{"envoy fail closed without reload", "envoy", "envoy.yaml",
			"failure_policy: FAIL_RELOAD", "failure_policy: FAIL_CLOSED", "FAIL_RELOAD"},
		{"envoy reload without back-off", "envoy", "envoy.yaml",
			"                reload_config:\n                  backoff:\n                    base_interval: 1s\n", "", "base_interval"},
		{"envoy reload back-off too short", "envoy", "envoy.yaml",
			"base_interval: 1s", "base_interval: 0.01s", "base_interval"},
		{"envoy ratelimit fail closed without reload", "envoy-ratelimit", "envoy-ratelimit.yaml",
			"failure_policy: FAIL_RELOAD", "failure_policy: FAIL_CLOSED", "FAIL_RELOAD"},
		{"envoy identity header not stripped", "envoy", "envoy.yaml",
			`"principal": [{"jwt_claim": "sub"}]`, `"principal": [{"jwt_claim": "sub"}, {"header": "x-user"}]`, "x-user"},
		{"envoy early mutation dropped", "envoy", "envoy.yaml",
			"              - remove: x-jwt-payload\n", "", "x-jwt-payload"},
		{"envoy metadata key mismatch", "envoy", "envoy.yaml",
			"payload_in_metadata: jwt_payload", "payload_in_metadata: payload", "identity.jwt.metadata"},
		{"envoy buffer limit too small", "envoy", "envoy.yaml",
			"per_connection_buffer_limit_bytes: 17825792", "per_connection_buffer_limit_bytes: 1048576", "per_connection_buffer_limit_bytes"},
		{"envoy escaped slashes kept", "envoy", "envoy.yaml",
			"path_with_escaped_slashes_action: REJECT_REQUEST", "path_with_escaped_slashes_action: KEEP_UNCHANGED", "path_with_escaped_slashes_action"},
		{"envoy escaped slashes unset", "envoy", "envoy.yaml",
			"          path_with_escaped_slashes_action: REJECT_REQUEST\n", "", "path_with_escaped_slashes_action"},
		{"envoy paths not normalised", "envoy", "envoy.yaml",
			"normalize_path: true", "normalize_path: false", "normalize_path"},
		{"envoy slashes not merged", "envoy", "envoy.yaml",
			"merge_slashes: true", "merge_slashes: false", "merge_slashes"},
		{"ratelimit escaped slashes forwarded", "envoy-ratelimit", "envoy-ratelimit.yaml",
			"path_with_escaped_slashes_action: REJECT_REQUEST", "path_with_escaped_slashes_action: UNESCAPE_AND_FORWARD", "path_with_escaped_slashes_action"},
		{"envoy route timeout", "envoy", "envoy.yaml",
			"timeout: 0s", "timeout: 15s", "timeout"},
		{"envoy uninspected route", "envoy", "envoy.yaml",
			"direct_response:\n                  status: 404", "route: {cluster: mcp_server}", "prefix"},
		{"envoy vault key not passed", "envoy", "envoy.yaml",
			"host_env_keys: [CLOUDG_MCP_VAULT_KEY]", "host_env_keys: [VAULT_KEY]", "CLOUDG_MCP_VAULT_KEY"},
		{"envoy jwt rule misses the route", "envoy", "envoy.yaml",
			"- match: {prefix: /mcp}", "- match: {prefix: /api}", "no jwt_authn rule"},
		{"envoy unknown cluster", "envoy", "envoy.yaml",
			"cluster: jwks", "cluster: jwks_cluster", "jwks_cluster"},
		// Rate limits.
		{"ratelimit descriptor on a client header", "envoy-ratelimit", "envoy-ratelimit.yaml",
			"header_name: x-mcp-method", "header_name: x-method", "x-method"},
		{"ratelimit descriptor key renamed", "envoy-ratelimit", "envoy-ratelimit.yaml",
			"descriptor_key: primitive}", "descriptor_key: tool}", "[principal tool]"},
		{"ratelimit cluster without http2", "envoy-ratelimit", "envoy-ratelimit.yaml",
			"          http2_protocol_options: {}", "          http_protocol_options: {}", "HTTP/2"},
		{"ratelimit drift from envoy.yaml", "envoy-ratelimit", "envoy-ratelimit.yaml",
			"audiences: [mcp-gateway]", "audiences: [mcp]", "differs"},
		{"ratelimit config unknown key", "envoy-ratelimit", "ratelimit-config.yaml",
			"requests_per_unit: 600", "request_per_unit: 600", "request_per_unit"},
		{"ratelimit config bad unit", "envoy-ratelimit", "ratelimit-config.yaml",
			"unit: second", "unit: seconds", "seconds"},
		{"ratelimit config domain", "envoy-ratelimit", "ratelimit-config.yaml",
			"domain: mcp", "domain: mcp-privacy", "domain"},
		// Istio.
		{"istio misspelled spec field", "istio", "istio/wasmplugin.yaml",
			"failStrategy: FAIL_RELOAD", "failStrategies: FAIL_RELOAD", "failStrategies"},
		{"istio fail closed without reload", "istio", "istio/wasmplugin.yaml",
			"failStrategy: FAIL_RELOAD", "failStrategy: FAIL_CLOSE", "FAIL_RELOAD"},
		{"istio fail open", "istio", "istio/wasmplugin.yaml",
			"failStrategy: FAIL_RELOAD", "failStrategy: FAIL_OPEN", "FAIL_RELOAD"},
		{"istio bad enum", "istio", "istio/wasmplugin.yaml",
			"phase: AUTHZ", "phase: AUTHORIZATION", "AUTHORIZATION"},
		{"istio sha256 placeholder", "istio", "istio/wasmplugin.yaml",
			"  imagePullPolicy: IfNotPresent", "  sha256: <digest>\n  imagePullPolicy: IfNotPresent", "sha256"},
		{"istio phase before jwt_authn", "istio", "istio/wasmplugin.yaml",
			"phase: AUTHZ", "phase: AUTHN", "AUTHN"},
		{"istio invalid envelope", "istio", "istio/wasmplugin.yaml",
			"max_sensitivity: public", "max_sensitivity: secret", "envelope"},
		{"istio wrong metadata key", "istio", "istio/wasmplugin.yaml",
			"metadata: [envoy.filters.http.jwt_authn, payload]", "metadata: [envoy.filters.http.jwt_authn, https://auth.example.com/]", "identity.jwt.metadata"},
		{"istio header identity", "istio", "istio/wasmplugin.yaml",
			"      - {jwt_claim: roles}", "      - {header: x-mcp-roles}", "x-mcp-roles"},
		{"istio env HOST with value", "istio", "istio/wasmplugin.yaml",
			"      valueFrom: HOST", "      valueFrom: HOST\n      value: x", "INLINE"},
		{"istio request authentication field", "istio", "istio/requestauthentication.yaml",
			"jwksUri:", "jwks_url:", "jwks_url"},
		{"istio request authentication other workloads", "istio", "istio/requestauthentication.yaml",
			"app: mcp-server", "app: other", "other workloads"},
		// Envoy Gateway.
		{"gateway misspelled field", "gateway", "gateway/envoyextensionpolicy.yaml",
			"rootID: mcp-privacy", "rootId: mcp-privacy", "rootId"},
		{"gateway bad enum", "gateway", "gateway/envoyextensionpolicy.yaml",
			"type: Image", "type: OCI", "OCI"},
		{"gateway invalid envelope", "gateway", "gateway/envoyextensionpolicy.yaml",
			"scope: principal", "scope: everyone", "envelope"},
		{"gateway metadata key is not the provider", "gateway", "gateway/securitypolicy.yaml",
			"- name: mcp-idp", "- name: idp", "identity.jwt.metadata"},
		{"gateway claim header not stripped", "gateway", "gateway/securitypolicy.yaml",
			"header: x-mcp-principal", "header: x-principal", "x-principal"},
		{"gateway buffer limit", "gateway", "gateway/clienttrafficpolicy.yaml",
			"bufferLimit: 17Mi", "bufferLimit: 1Mi", "bufferLimit"},
		{"gateway early removal dropped", "gateway", "gateway/clienttrafficpolicy.yaml",
			"remove: [x-mcp-principal, x-mcp-roles, x-jwt-payload]", "remove: [x-mcp-roles, x-jwt-payload]", "x-mcp-principal"},
		{"gateway vault key not in envoy env", "gateway", "gateway/envoyproxy.yaml",
			"- name: CLOUDG_MCP_VAULT_KEY", "- name: VAULT_KEY", "CLOUDG_MCP_VAULT_KEY"},
		{"gateway escaped slashes redirected", "gateway", "gateway/clienttrafficpolicy.yaml",
			"escapedSlashesAction: RejectRequest", "escapedSlashesAction: UnescapeAndRedirect", "escapedSlashesAction"},
		{"gateway escaped slashes default", "gateway", "gateway/clienttrafficpolicy.yaml",
			"    escapedSlashesAction: RejectRequest\n", "", "escapedSlashesAction"},
		{"gateway slashes not merged", "gateway", "gateway/clienttrafficpolicy.yaml",
			"disableMergeSlashes: false", "disableMergeSlashes: true", "disableMergeSlashes"},
		{"gateway route schema", "gateway", "gateway/httproute.yaml",
			"{type: PathPrefix, value: /mcp}", "{type: Prefix, value: /mcp}", "Prefix"},
		{"gateway route timeout", "gateway", "gateway/httproute.yaml",
			"      request: 0s\n", "      request: 30s\n", "timeouts.request"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			files, check := loadDeployment(t, c.deployment)
			src := string(files[c.file])
			if c.old == moveJWTAfterWasm {
				i, j := strings.Index(src, jwtBlock), strings.Index(src, wasmBlock)
				if i < 0 || j < i {
					t.Fatalf("%s: no jwt_authn filter entry before the wasm one: update the case", c.file)
				}
				block := src[i:j]
				src = strings.Replace(src, block, "", 1)
				files[c.file] = []byte(strings.Replace(src, routerBlock, block+routerBlock, 1))
			} else {
				if strings.Count(src, c.old) != 1 {
					t.Fatalf("%s: %q occurs %d times, want once: update the case", c.file, c.old, strings.Count(src, c.old))
				}
				files[c.file] = []byte(strings.Replace(src, c.old, c.new, 1))
			}
			got := check(files)
			if len(got) == 0 {
				t.Fatalf("the broken copy passed")
			}
			if !slices.ContainsFunc(got, func(msg string) bool { return strings.Contains(msg, c.want) }) {
				t.Errorf("no problem mentions %q; got:\n%s", c.want, strings.Join(got, "\n"))
			}
		})
	}
}

// TestEveryConfigIsChecked fails when a YAML file here belongs to no
// deployment, so a new configuration cannot go unvalidated.
func TestEveryConfigIsChecked(t *testing.T) {
	t.Parallel()
	checked := map[string]bool{}
	for _, d := range deployments {
		for _, f := range d.files {
			checked[f] = true
		}
	}
	err := filepath.WalkDir(".", func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ext := filepath.Ext(path); !e.IsDir() && (ext == ".yaml" || ext == ".yml") && !checked[filepath.ToSlash(path)] {
			t.Errorf("%s is not part of any deployment in envoy_test.go", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
