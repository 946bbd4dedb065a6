package envoy

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/wrapperspb"

	jwtv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/jwt_authn/v3"
	mcpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/mcp/v3"
	mcprouterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/mcp_router/v3"
	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/rbac/v3"
	wasmfilterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/wasm/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	earlyhmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/early_header_mutation/header_mutation/v3"
	wasmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/wasm/v3"

	"github.com/cloudg/mcp-privacy/policy"
)

// The filters of envoy-mcp-router.yaml and what Envoy's MCP filters
// write and read (docs/DEPLOYMENT.md, "Beside Envoy's MCP filters", gives
// the Envoy source of each).
const (
	mcpFilter       = "envoy.filters.http.mcp"
	mcpRouterFilter = "envoy.filters.http.mcp_router"
	rbacFilter      = "envoy.filters.http.rbac"
	// mcpMetadataNamespace is where the mcp filter writes its metadata
	// from Envoy 1.38 on (source/extensions/filters/common/mcp/
	// filter_state.h); mcp_proxy before.
	mcpMetadataNamespace = "envoy.filters.http.mcp"
	// mcpMaxRequestBodySize is the proto's upper bound of
	// max_request_body_size (10 MiB).
	mcpMaxRequestBodySize = 10 << 20
	// mcpRouterDefaultTimeout is the router's per-backend request timeout
	// when mcp_cluster.timeout is unset (filter_config.cc).
	mcpRouterDefaultTimeoutSeconds = 5
)

// The router's delimiters: tools and prompts are backend__name, resources
// backend+scheme://... (mcp_router.cc, kNameDelimiter and parseResourceUri).
const (
	routerNameDelimiter = "__"
	routerURIDelimiter  = "+"
)

// forbiddenForwardHeaders are request headers no backend of the router may
// be sent: the caller's credentials and the identity headers.
var forbiddenForwardHeaders = append([]string{"authorization", "cookie", "proxy-authorization"}, defaultIdentityHeaders...)

func checkMCPRouterDeployment(files map[string][]byte) problems {
	var p problems
	checkEnvoyMCPRouter(&p, "envoy-mcp-router.yaml", files["envoy-mcp-router.yaml"])
	return p
}

// checkEnvoyMCPRouter checks a bootstrap that runs mcp-privacy in front of
// Envoy's mcp filter and mcp_router: the order jwt_authn, plugin, mcp,
// (rbac), mcp_router; the settings that make it safe; and that the
// envelope names primitives as the router does.
func checkEnvoyMCPRouter(p *problems, file string, data []byte) {
	b := loadBootstrap(p, file, data)
	if b == nil {
		return
	}
	clusters := map[string]bool{}
	for _, c := range b.GetStaticResources().GetClusters() {
		clusters[c.GetName()] = true
	}
	listeners := b.GetStaticResources().GetListeners()
	if len(listeners) != 1 {
		p.add("%s: %d listeners, want 1", file, len(listeners))
		return
	}
	l := listeners[0]
	var hcm *hcmv3.HttpConnectionManager
	for _, fc := range l.GetFilterChains() {
		for _, f := range fc.GetFilters() {
			if f.GetName() == hcmFilter {
				hcm = &hcmv3.HttpConnectionManager{}
				p.addErr(file+": "+hcmFilter, f.GetTypedConfig().UnmarshalTo(hcm))
			}
		}
	}
	if hcm == nil {
		p.add("%s: no %s", file, hcmFilter)
		return
	}

	var (
		order  []string
		jwt    *jwtv3.JwtAuthentication
		wasm   *wasmv3.PluginConfig
		mcp    *mcpv3.Mcp
		rbac   *rbacv3.RBAC
		router *mcprouterv3.McpRouter
	)
	for _, f := range hcm.GetHttpFilters() {
		order = append(order, f.GetName())
		var err error
		switch f.GetName() {
		case jwtFilter:
			jwt = &jwtv3.JwtAuthentication{}
			err = f.GetTypedConfig().UnmarshalTo(jwt)
		case wasmFilter:
			w := &wasmfilterv3.Wasm{}
			err = f.GetTypedConfig().UnmarshalTo(w)
			wasm = w.GetConfig()
		case mcpFilter:
			mcp = &mcpv3.Mcp{}
			err = f.GetTypedConfig().UnmarshalTo(mcp)
		case rbacFilter:
			rbac = &rbacv3.RBAC{}
			err = f.GetTypedConfig().UnmarshalTo(rbac)
		case mcpRouterFilter:
			router = &mcprouterv3.McpRouter{}
			err = f.GetTypedConfig().UnmarshalTo(router)
		}
		p.addErr(file+": "+f.GetName(), err)
		if f.GetDisabled() {
			p.add("%s: filter %s is disabled", file, f.GetName())
		}
	}
	// The supported order: identity verified before the plugin reads it;
	// the plugin before the mcp filter, so that its metadata, RBAC, the
	// access log and the router's routing and prefix stripping read the
	// body the plugin judged and restored; the router terminal.
	want := []string{jwtFilter, wasmFilter, mcpFilter}
	if rbac != nil {
		want = append(want, rbacFilter)
	}
	want = append(want, mcpRouterFilter)
	if !slices.Equal(order, want) {
		p.add("%s: http_filters %v: want the order %v (docs/DEPLOYMENT.md, \"Beside Envoy's MCP filters\")", file, order, want)
	}
	if jwt == nil || wasm == nil || mcp == nil || router == nil {
		return
	}

	// The plugin.
	if wasm.GetName() != pluginName || wasm.GetRootId() != pluginName {
		p.add("%s: wasm name/root_id %q/%q, want %q", file, wasm.GetName(), wasm.GetRootId(), pluginName)
	}
	if wasm.GetFailurePolicy() != wasmv3.FailurePolicy_FAIL_RELOAD {
		p.add("%s: wasm failure_policy %v: want FAIL_RELOAD", file, wasm.GetFailurePolicy())
	}
	if bi := wasm.GetReloadConfig().GetBackoff().GetBaseInterval(); bi == nil || bi.AsDuration() < minReloadBackoff || bi.AsDuration() > maxReloadBackoff {
		p.add("%s: wasm reload_config.backoff.base_interval %v: want one between %v and %v", file, bi.AsDuration(), minReloadBackoff, maxReloadBackoff)
	}
	cfg := &wrapperspb.StringValue{}
	if p.addErr(file+": wasm configuration", wasm.GetConfiguration().UnmarshalTo(cfg)) {
		return
	}
	env := parseEnvelope(p, file+": wasm configuration", []byte(cfg.GetValue()))
	if env == nil {
		return
	}
	checkVaultKeyEnv(p, file+": vm_config.environment_variables.host_env_keys", env, wasm.GetVmConfig().GetEnvironmentVariables().GetHostEnvKeys())
	// The mcp filter lowers the stream's buffer limit to its
	// max_request_body_size, in both directions: bodies the host held for
	// the plugin would meet 413 or 500 above it. The plugin holds them.
	if env.Gateway.BodyBuffering != policy.BufferPlugin {
		p.add("%s: gateway.body_buffering is %s: want plugin, the mcp filter lowers Envoy's buffer limit to %d bytes for the whole stream",
			file, policy.BodyBufferingNames[env.Gateway.BodyBuffering], mcp.GetMaxRequestBodySize().GetValue())
	}
	if allow := wasm.GetAllowOnHeadersStopIteration().GetValue(); allow != env.Gateway.HoldHeaders {
		p.add("%s: gateway.hold_headers is %v but allow_on_headers_stop_iteration is %v: they must agree", file, env.Gateway.HoldHeaders, allow)
	}
	// mcp_router ignores the route's action: every path of the listener
	// reaches it, so every path must reach the plugin too.
	for _, path := range []string{"/", "/mcp", "/mcp/x", "/other", "/a/b/c"} {
		if !env.Gateway.Paths.Match(path) {
			p.add("%s: gateway.paths %v does not match %s, which mcp_router serves uninspected", file, env.Gateway.Paths.Patterns(), path)
		}
	}

	// jwt_authn: where the plugin reads the payload, every path covered,
	// the token kept from the router (which forwarded every header before
	// Envoy 1.40).
	var metadataKeys []string
	for name, prov := range jwt.GetProviders() {
		metadataKeys = append(metadataKeys, prov.GetPayloadInMetadata())
		if prov.GetForward() {
			p.add("%s: jwt provider %s forwards the token: mcp_router sends request headers to every backend (all of them before Envoy 1.40)", file, name)
		}
		if rj := prov.GetRemoteJwks(); rj != nil && !clusters[rj.GetHttpUri().GetCluster()] {
			p.add("%s: jwt provider %s: cluster %q is not defined", file, name, rj.GetHttpUri().GetCluster())
		}
	}
	if md := env.Identity.JWTMetadata; md != nil && (len(md) != 2 || md[0] != jwtFilter || !slices.Contains(metadataKeys, md[1])) {
		p.add("%s: identity.jwt.metadata %v: providers store the payload under %v", file, md, metadataKeys)
	}
	if !jwtCovers(jwt, "/") {
		p.add("%s: no jwt_authn rule covers /: mcp_router serves every path", file)
	}

	// Client copies of identity headers go before the first filter.
	var early []string
	for _, ext := range hcm.GetEarlyHeaderMutationExtensions() {
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
	if m := missing(uniq(slices.Concat(defaultIdentityHeaders, identityHeaders(env), exportHeaders(env))), early); len(m) > 0 {
		p.add("%s: early_header_mutation_extensions do not remove %v", file, m)
	}
	if !hcm.GetNormalizePath().GetValue() || !hcm.GetMergeSlashes() ||
		hcm.GetPathWithEscapedSlashesAction() != hcmv3.HttpConnectionManager_REJECT_REQUEST {
		p.add("%s: the connection manager must set normalize_path, merge_slashes and path_with_escaped_slashes_action: REJECT_REQUEST", file)
	}
	limit := envoyDefaultBufferLimit
	if v := l.GetPerConnectionBufferLimitBytes(); v != nil {
		limit = int(v.GetValue())
	}
	if limit <= maxBuffered(env) {
		p.add("%s: per_connection_buffer_limit_bytes %d must be above %d", file, limit, maxBuffered(env))
	}

	// The mcp filter: refuses what the plugin refuses, parses all of it.
	if mcp.GetTrafficMode() != mcpv3.Mcp_REJECT_NO_MCP {
		p.add("%s: mcp traffic_mode %v: want REJECT_NO_MCP (in PASS_THROUGH the filter only logs duplicate keys and passes what is not MCP)", file, mcp.GetTrafficMode())
	}
	if !mcp.GetRejectDuplicateKeys().GetValue() {
		p.add("%s: mcp reject_duplicate_keys is off: the plugin refuses duplicate keys, the mcp filter would read the last one", file)
	}
	size := mcp.GetMaxRequestBodySize()
	switch {
	case size == nil:
		p.add("%s: mcp max_request_body_size unset: it defaults to 8192, and metadata of larger requests is partial", file)
	case size.GetValue() == 0 || size.GetValue() > mcpMaxRequestBodySize:
		p.add("%s: mcp max_request_body_size %d: want 1 to %d (0 disables the limit)", file, size.GetValue(), mcpMaxRequestBodySize)
	case int(size.GetValue()) < env.Gateway.MaxRequestBytes:
		p.add("%s: mcp max_request_body_size %d is below gateway.max_request_bytes %d: the mcp filter would parse only part of bodies the plugin accepts",
			file, size.GetValue(), env.Gateway.MaxRequestBytes)
	}
	if mcp.GetAttributeSource() != mcpv3.Mcp_BODY {
		p.add("%s: mcp attribute_source %v: want BODY (the plugin judges the body; headers are the client's)", file, mcp.GetAttributeSource())
	}

	// RBAC reads the mcp filter's namespace (or jwt_authn's).
	if rbac != nil {
		forEachMetadataMatcher(rbac.ProtoReflect(), func(m *matcherv3.MetadataMatcher) {
			if f := m.GetFilter(); f != mcpMetadataNamespace && f != jwtFilter {
				p.add("%s: rbac reads metadata %q: the mcp filter writes %q (mcp_proxy only before Envoy 1.38)", file, f, mcpMetadataNamespace)
			}
		})
	}

	// The router.
	servers := router.GetServers()
	if len(servers) < 2 {
		p.add("%s: mcp_router has %d servers: this configuration is the aggregating one (names prefixed), want 2 or more", file, len(servers))
	}
	var backends []string
	for i, s := range servers {
		where := fmt.Sprintf("%s: mcp_router servers[%d]", file, i)
		name := cmpOr(s.GetName(), s.GetMcpCluster().GetCluster())
		switch {
		case name == "":
			p.add("%s: no name", where)
		case strings.Contains(name, routerNameDelimiter) || strings.Contains(name, routerURIDelimiter) || strings.Contains(name, ":"):
			p.add("%s: name %q: the router splits names at the first %q and URIs at the first %q; a backend name must hold neither", where, name, routerNameDelimiter, routerURIDelimiter)
		case slices.Contains(backends, name):
			p.add("%s: name %q repeated", where, name)
		}
		backends = append(backends, name)
		if c := s.GetMcpCluster().GetCluster(); !clusters[c] {
			p.add("%s: cluster %q is not defined", where, c)
		}
		if t := s.GetMcpCluster().GetTimeout(); t == nil || t.AsDuration().Seconds() <= mcpRouterDefaultTimeoutSeconds {
			p.add("%s: mcp_cluster.timeout %v: the default (%d s) cuts long tool calls", where, t.AsDuration(), mcpRouterDefaultTimeoutSeconds)
		}
		hf := s.GetHeaderForwarding()
		if hf == nil {
			p.add("%s: no header_forwarding: before Envoy 1.40 the router sent every request header to every backend; state what goes", where)
			continue
		}
		if hf.GetForwardAll() {
			p.add("%s: header_forwarding.forward_all sends the caller's headers to this backend", where)
		}
		for _, h := range forbiddenForwardHeaders {
			if matchesAnyString(hf.GetAllowedHeaders().GetPatterns(), h) && !matchesAnyString(hf.GetDisallowedHeaders().GetPatterns(), h) {
				p.add("%s: header_forwarding allows %s", where, h)
			}
		}
	}

	// The envelope says which router it sits before, and names primitives
	// as the client sees them: prefixed (policy check's warnings).
	if !slices.Equal(env.Server.RouterBackends, backends) {
		p.add("%s: server.router_backends %v, want the router's servers %v", file, env.Server.RouterBackends, backends)
	}
	for _, w := range env.RouterWarnings() {
		p.add("%s: envelope: %s", file, w)
	}
}

// forEachMetadataMatcher calls f on every MetadataMatcher below m.
func forEachMetadataMatcher(m protoreflect.Message, f func(*matcherv3.MetadataMatcher)) {
	if mm, ok := m.Interface().(*matcherv3.MetadataMatcher); ok {
		f(mm)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				forEachMetadataMatcher(v.List().Get(i).Message(), f)
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				forEachMetadataMatcher(mv.Message(), f)
				return true
			})
		case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
			forEachMetadataMatcher(v.Message(), f)
		}
		return true
	})
}

// matchesAnyString evaluates Envoy string matchers on a lower-case header
// name, as Envoy's StringMatcherImpl does.
func matchesAnyString(ms []*matcherv3.StringMatcher, s string) bool {
	for _, m := range ms {
		v := s
		if m.GetIgnoreCase() {
			v = strings.ToLower(v)
		}
		fold := func(x string) string {
			if m.GetIgnoreCase() {
				return strings.ToLower(x)
			}
			return x
		}
		switch {
		case m.GetExact() != "" && v == fold(m.GetExact()),
			m.GetPrefix() != "" && strings.HasPrefix(v, fold(m.GetPrefix())),
			m.GetSuffix() != "" && strings.HasSuffix(v, fold(m.GetSuffix())),
			m.GetContains() != "" && strings.Contains(v, fold(m.GetContains())):
			return true
		case m.GetSafeRegex() != nil:
			if re, err := regexp.Compile("^(?:" + m.GetSafeRegex().GetRegex() + ")$"); err != nil || re.MatchString(s) {
				return true // an unreadable pattern counts as allowing
			}
		}
	}
	return false
}

// TestMCPRouterBrokenCopiesFail breaks copies of envoy-mcp-router.yaml the
// way a careless edit would; the check must report each.
func TestMCPRouterBrokenCopiesFail(t *testing.T) {
	t.Parallel()
	const file = "envoy-mcp-router.yaml"
	replace := func(old, new string) func(t *testing.T, src string) string {
		return func(t *testing.T, src string) string {
			if strings.Count(src, old) != 1 {
				t.Fatalf("%q occurs %d times, want once: update the case", old, strings.Count(src, old))
			}
			return strings.Replace(src, old, new, 1)
		}
	}
	// moveMCPBeforeWasm puts the mcp filter's entry before the plugin's.
	moveMCPBeforeWasm := func(t *testing.T, src string) string {
		w, m, r := strings.Index(src, "          - name: "+wasmFilter+"\n"), strings.Index(src, "          - name: "+mcpFilter+"\n"),
			strings.Index(src, "          - name: "+rbacFilter+"\n")
		if w < 0 || m < w || r < m {
			t.Fatal("no wasm, mcp, rbac entries in that order: update the case")
		}
		return src[:w] + src[m:r] + src[w:m] + src[r:]
	}
	cases := []struct {
		name   string
		mutate func(t *testing.T, src string) string
		want   string
	}{
		{"mcp before the plugin", moveMCPBeforeWasm, "want the order"},
		{"host buffering", replace(`"body_buffering": "plugin",`, `"body_buffering": "host",`), "body_buffering"},
		{"default buffering", replace(`"body_buffering": "plugin",`, ``), "body_buffering"},
		{"duplicate keys only logged", replace("reject_duplicate_keys: true", "reject_duplicate_keys: false"), "reject_duplicate_keys"},
		{"pass through", replace("traffic_mode: REJECT_NO_MCP", "traffic_mode: PASS_THROUGH"), "traffic_mode"},
		{"default body size", replace("max_request_body_size: 2097152", "max_request_body_size: 8192"), "max_request_body_size"},
		{"body size over the proto's bound", replace("max_request_body_size: 2097152", "max_request_body_size: 20971520"), "max_request_body_size"},
		{"legacy namespace", replace("filter: envoy.filters.http.mcp\n                            path: [{key: method}]",
			"filter: mcp_proxy\n                            path: [{key: method}]"), "mcp_proxy"},
		{"backend name with the delimiter", replace("- name: ops\n", "- name: ops__tools\n"), "splits names"},
		{"forward everything", replace("              - name: crm\n                mcp_cluster:\n                  cluster: crm_server\n                  path: /mcp\n                  # The default is 5 s per backend request, which cuts\n                  # long tool calls.\n                  timeout: 3600s\n                # Nothing of the client's headers but trace context reaches\n                # a server (the default since 1.40 is nothing at all).\n                header_forwarding:\n",
			"              - name: crm\n                mcp_cluster:\n                  cluster: crm_server\n                  path: /mcp\n                  # The default is 5 s per backend request, which cuts\n                  # long tool calls.\n                  timeout: 3600s\n                # Nothing of the client's headers but trace context reaches\n                # a server (the default since 1.40 is nothing at all).\n                header_forwarding:\n                  forward_all: true\n"), "forward_all"},
		{"authorization allowed", replace("patterns: [{exact: traceparent}, {exact: tracestate}]\n              - name: ops",
			"patterns: [{exact: traceparent}, {prefix: auth}]\n              - name: ops"), "allows authorization"},
		{"token forwarded", replace("forward: false\n                  payload_in_metadata", "forward: true\n                  payload_in_metadata"), "forwards the token"},
		{"default backend timeout", replace("                  cluster: ops_server\n                  path: /mcp\n                  timeout: 3600s\n",
			"                  cluster: ops_server\n                  path: /mcp\n"), "timeout"},
		{"one backend", replace("              - name: ops\n                mcp_cluster:\n                  cluster: ops_server\n                  path: /mcp\n                  timeout: 3600s\n                header_forwarding:\n                  allowed_headers:\n                    patterns: [{exact: traceparent}, {exact: tracestate}]\n", ""), "2 or more"},
		{"plugin on /mcp only", replace(`"paths": ["/*"],`, `"paths": ["/mcp", "/mcp/*"],`), "gateway.paths"},
		{"jwt on /mcp only", replace("- match: {prefix: /}\n                requires:", "- match: {prefix: /mcp}\n                requires:"), "no jwt_authn rule covers"},
		{"unprefixed tool glob", replace(`"names": ["ops__*"]}, "category": "ops", "capabilities"`, `"names": ["deploy_*"]}, "category": "ops", "capabilities"`), "deploy_*"},
		{"tool prefix on a resource", replace(`"names": ["crm+*"]`, `"names": ["crm__*"]`), "crm__*"},
		{"router backends not the router's", replace(`"router_backends": ["crm", "ops"],`, `"router_backends": ["crm"],`), "router_backends"},
		{"mcp_router config misspelled", replace("header_forwarding:\n                  allowed_headers:\n                    patterns: [{exact: traceparent}, {exact: tracestate}]\n              - name: ops",
			"header_forwarding:\n                  allowed_header:\n                    patterns: [{exact: traceparent}, {exact: tracestate}]\n              - name: ops"), "allowed_header"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			files, check := loadDeployment(t, "envoy-mcp-router")
			files[file] = []byte(c.mutate(t, string(files[file])))
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
