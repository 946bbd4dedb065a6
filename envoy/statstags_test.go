package envoy

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"google.golang.org/protobuf/encoding/protojson"
	"sigs.k8s.io/yaml"
)

// The plugin's metrics as Envoy's /stats/prometheus shows them under each
// shipped configuration: the stats_tags of the bootstrap applied to every
// stat the plugin defines (observability/testdata/plugin-stats.txt, which
// cmd/mcp-privacy writes from the compiled plugin) must give exactly the
// names and labels of observability/testdata/plugin-metrics.prom, which
// serve --admin shows and the dashboard and alert rules are checked
// against.
//
// How Envoy names them, from its source (envoyproxy/envoy):
//   - source/extensions/common/wasm/stats_handler.h (902143755769e08aae0474981b9eef0ab6bf28d8):
//     a Wasm module's metrics live in the custom stat namespace
//     "wasmcustom", which the Wasm extension registers; context.cc
//     (b40935ac07f770581a402ca8a220d251bc02b3a5, defineMetric) names a
//     counter {namespace, name}: wasmcustom.<name>.
//   - source/common/stats/tag_producer_impl.cc (004cb09da51b84b19d41cb6f071be20f5603ff7c):
//     first the extractors whose regex has no prefix token, then those
//     whose regex starts with "^token\." (or "^token(?=\.)"), only on
//     names whose first token is that, each group in configuration order;
//     an extractor whose tag name another one already extracted is
//     skipped; every extractor matches the original name, and the
//     characters each one's first group matched are removed.
//   - source/common/stats/tag_extractor_impl.cc (19c6e6572e0964164d56228282ab6660370f6f75):
//     a regex given in stats_tags is a std::regex searched in the full
//     name; group 1 is removed, group 2 (else group 1) is the value.
//   - source/server/admin/prometheus_stats.cc (051c84f73b69172f0d910deece56d880e9adbdf9):
//     a tag-extracted name in a registered custom namespace loses the
//     namespace and gets no envoy_ prefix; every character outside
//     [a-zA-Z0-9_] becomes _; tags become labels.
//
// The regexes here use only what std::regex (ECMAScript) and Go's RE2
// read alike: anchors, groups, (?:), character classes, ? and +.

// statsTag is one tag extractor of a bootstrap.
type statsTag struct {
	name string
	// prefix is the regex's prefix token (Envoy's extractRegexPrefix,
	// tag_extractor_impl.cc): the extractor sees only names whose first
	// token it is. "" for an extractor that sees every name.
	prefix string
	// re is nil for a regex Go cannot read (lookahead) whose prefix token
	// is not the plugin's: it never sees the plugin's names.
	re *regexp.Regexp
}

var (
	regexPrefixToken = regexp.MustCompile(`^\^([a-zA-Z0-9_]+)(?:\\\.|\(\?=\\\.\)|\$$)`)
	// pluginStatToken is the first token of every stat the plugin defines.
	pluginStatToken = "wasmcustom"
)

// newStatsTag compiles a regex tag extractor.
func newStatsTag(name, regex string) (statsTag, error) {
	t := statsTag{name: name}
	if m := regexPrefixToken.FindStringSubmatch(regex); m != nil {
		t.prefix = m[1]
	}
	re, err := regexp.Compile(regex)
	if err != nil && t.prefix != "" && t.prefix != pluginStatToken {
		return t, nil
	}
	t.re = re
	return t, err
}

// bootstrapStatsTags returns the regex stats_tags of a bootstrap.
func bootstrapStatsTags(p *problems, file string, b *bootstrapv3.Bootstrap) []statsTag {
	var out []statsTag
	for _, t := range b.GetStatsConfig().GetStatsTags() {
		tag, err := newStatsTag(t.GetTagName(), t.GetRegex())
		if p.addErr(fmt.Sprintf("%s: stats_tags %s", file, t.GetTagName()), err) {
			continue
		}
		out = append(out, tag)
	}
	return out
}

// istioStatsTags are the stats_tags of the bootstrap Istio generates
// (istio/istio tools/packaging/common/envoy_bootstrap.json at
// 86c9f01fd735fb01d8192f5bcaf0d424afb7f14c, without extraStatTags, which
// only match Istio's own stat format), with use_all_default_tags false.
// A bootstrap override's stats_tags are appended to them (protobuf merge
// of --config-yaml, Istio's pkg/envoy/proxy.go).
var istioStatsTags = [][2]string{
	{"cluster_name", `^cluster(\.(.+);)`},
	{"http_conn_manager_prefix", `^http\.(((?:[_.[:digit:]\w]*|[_\[\]aAbBcCdDeEfF[:digit:]\w\:]*));\.)`},
	{"thread_name", `^server(\.(.+))\.watchdog`},
	{"tcp_prefix", `^tcp\.((.*?)\.)\w+?$`},
	{"response_code", `_rq(_(\d{3}))$`},
	{"response_code_class", `_rq(_(\dxx))$`},
	{"http_conn_manager_listener_prefix", `^listener(?=\.).*?\.http\.(((?:[_.[:digit:]]*|[_\[\]aAbBcCdDeEfF[:digit:]]*))\.)`},
	{"listener_address", `^listener\.(((?:[_.[:digit:]]*|[_\[\]aAbBcCdDeEfF[:digit:]]*))\.)`},
	{"mongo_prefix", `^mongo\.(.+?)\.(collection|cmd|cx_|op_|delays_|decoding_)(.*?)$`},
	{"cache", `(cache\.(.+?)\.)`},
	{"component", `(component\.(.+?)\.)`},
	{"tag", `(tag\.(.+?);\.)`},
	{"wasm_filter", `(wasm_filter\.(.+?)\.)`},
	{"authz_enforce_result", `rbac(\.(allowed|denied))`},
	{"authz_dry_run_action", `(\.istio_dry_run_(allow|deny)_)`},
	{"authz_dry_run_result", `(\.shadow_(allowed|denied))`},
}

// istioStatsInclusion are the prefixes in the stats_matcher inclusion list
// of every bootstrap Istio generates, whatever ProxyConfig or annotations
// add (pkg/bootstrap/config.go requiredEnvoyStatsMatcherInclusionPrefixes,
// and the template's fixed entries, at the same commit). Envoy matches a
// prefix without a trailing dot as a plain string prefix of the stat name
// (source/common/stats/stats_matcher_impl.cc).
var istioStatsInclusion = []string{"cluster_manager", "listener_manager", "server", "cluster.xds-grpc", "wasm", "reporter=", "component", "istio"}

// promSeries is a Prometheus metric name with its labels, "name{k=v,...}".
func promSeries(name string, labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + labels[k]
	}
	return name + "{" + strings.Join(parts, ",") + "}"
}

var promUnsafe = regexp.MustCompile(`[^a-zA-Z0-9_]`)

// envoyPrometheusSeries is what Envoy's /stats/prometheus shows for the
// stat full (wasmcustom.<name>) under tags.
func envoyPrometheusSeries(full string, tags []statsTag) string {
	remove := make([]bool, len(full))
	labels := map[string]string{}
	first, _, _ := strings.Cut(full, ".")
	ordered := make([]statsTag, 0, len(tags))
	for _, t := range tags {
		if t.prefix == "" {
			ordered = append(ordered, t)
		}
	}
	for _, t := range tags {
		if t.prefix != "" && t.prefix == first {
			ordered = append(ordered, t)
		}
	}
	for _, t := range ordered {
		if _, dup := labels[t.name]; dup {
			continue
		}
		m := t.re.FindStringSubmatchIndex(full)
		if m == nil || m[2] < 0 {
			continue
		}
		v := m[2:4]
		if len(m) > 4 && m[4] >= 0 {
			v = m[4:6]
		}
		labels[promUnsafe.ReplaceAllString(t.name, "_")] = full[v[0]:v[1]]
		for i := m[2]; i < m[3]; i++ {
			remove[i] = true
		}
	}
	var b strings.Builder
	for i := range full {
		if !remove[i] {
			b.WriteByte(full[i])
		}
	}
	name, ok := strings.CutPrefix(b.String(), "wasmcustom.")
	if !ok {
		name = "envoy_" + name
	}
	return promSeries(promUnsafe.ReplaceAllString(name, "_"), labels)
}

// goldenStats reads the plugin's stat names from the /stats golden file.
func goldenStats(p *problems, data []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name, _, ok := strings.Cut(sc.Text(), ": ")
		if !ok || !strings.HasPrefix(name, "wasmcustom.mcp_privacy.") {
			p.add("plugin-stats.txt: line %q", sc.Text())
			continue
		}
		out = append(out, name)
	}
	return out
}

// goldenSeries reads the /stats/prometheus golden file with Prometheus's
// own text parser.
func goldenSeries(p *problems, data []byte) []string {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(data))
	if p.addErr("plugin-metrics.prom", err) {
		return nil
	}
	var out []string
	for name, f := range families {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			out = append(out, promSeries(name, labels))
		}
	}
	sort.Strings(out)
	return out
}

const (
	statsGolden = "observability/testdata/plugin-stats.txt"
	promGolden  = "observability/testdata/plugin-metrics.prom"
)

// checkStatsTags checks the stats_tags of every shipped configuration
// that gives Envoy a bootstrap against the plugin's metrics.
func checkStatsTags(files map[string][]byte) problems {
	var p problems
	stats := goldenStats(&p, files[statsGolden])
	want := goldenSeries(&p, files[promGolden])
	if len(stats) == 0 || len(want) == 0 {
		p.add("no metrics in the golden files")
		return p
	}
	configs := map[string][]statsTag{}
	for _, f := range []string{"envoy.yaml", "envoy-ratelimit.yaml", "envoy-mcp-router.yaml"} {
		if b := loadBootstrap(&p, f, files[f]); b != nil {
			configs[f] = bootstrapStatsTags(&p, f, b)
		}
	}
	const proxyFile = "gateway/envoyproxy.yaml"
	var proxy egv1a1.EnvoyProxy
	if j, err := yamlToJSON(files[proxyFile]); !p.addErr(proxyFile, err) && !p.addErr(proxyFile, yaml.UnmarshalStrict(j, &proxy)) {
		bs := proxy.Spec.Bootstrap
		switch {
		case bs == nil || bs.Value == nil || bs.Type == nil:
			p.add("%s: no bootstrap with the stats_tags", proxyFile)
		case *bs.Type != egv1a1.BootstrapTypeMerge:
			p.add("%s: bootstrap type %s, want Merge (Replace would drop Envoy Gateway's bootstrap)", proxyFile, *bs.Type)
		default:
			b := &bootstrapv3.Bootstrap{}
			j, err := yamlToJSON([]byte(*bs.Value))
			if !p.addErr(proxyFile+": bootstrap", err) && !p.addErr(proxyFile+": bootstrap", protojson.Unmarshal(j, b)) {
				p.addErr(proxyFile+": bootstrap: validate", b.ValidateAll())
				configs[proxyFile+" (bootstrap)"] = bootstrapStatsTags(&p, proxyFile, b)
			}
		}
	}
	// Istio: its own stats_tags, then the override's; and its stats
	// matcher must let the plugin's stats through.
	if b, _ := loadIstioBootstrapOverride(&p, istioOverrideFile, files[istioOverrideFile]); b != nil {
		var tags []statsTag
		for _, t := range istioStatsTags {
			tag, err := newStatsTag(t[0], t[1])
			if !p.addErr("Istio's stats_tags "+t[0], err) {
				tags = append(tags, tag)
			}
		}
		configs[istioOverrideFile+" (after Istio's stats_tags)"] = append(tags, bootstrapStatsTags(&p, istioOverrideFile, b)...)
	}
	for _, s := range stats {
		if !slices.ContainsFunc(istioStatsInclusion, func(prefix string) bool { return strings.HasPrefix(s, prefix) }) {
			p.add("Istio's stats matcher would not export %s", s)
		}
	}
	for file, tags := range configs {
		var got []string
		for _, s := range stats {
			got = append(got, envoyPrometheusSeries(s, tags))
		}
		sort.Strings(got)
		if slices.Equal(got, want) {
			continue
		}
		for _, s := range got {
			if _, found := slices.BinarySearch(want, s); !found {
				p.add("%s: Envoy would show %s, which serve --admin and the dashboard do not know", file, s)
			}
		}
		for _, s := range want {
			if _, found := slices.BinarySearch(got, s); !found {
				p.add("%s: Envoy would not show %s", file, s)
			}
		}
	}
	return p
}

// TestIstioStatsTagsOnPolicyNames: tool and role names come from the
// policy, and Istio's unanchored extractors (cache, component,
// wasm_filter, authz_dry_run_result), which run before the plugin's, match
// inside some of them. Envoy extracts every tag from the original name, so
// the series keeps its name and mcp_* labels and gains Istio's label
// (docs/DEPLOYMENT.md, "Dashboard and alerts", says so).
func TestIstioStatsTagsOnPolicyNames(t *testing.T) {
	t.Parallel()
	files, err := readFiles("envoy.yaml", istioOverrideFile)
	if err != nil {
		t.Fatal(err)
	}
	var p problems
	plain := bootstrapStatsTags(&p, "envoy.yaml", loadBootstrap(&p, "envoy.yaml", files["envoy.yaml"]))
	var istio []statsTag
	for _, tg := range istioStatsTags {
		tag, err := newStatsTag(tg[0], tg[1])
		if err != nil {
			t.Fatal(err)
		}
		istio = append(istio, tag)
	}
	b, _ := loadIstioBootstrapOverride(&p, istioOverrideFile, files[istioOverrideFile])
	istio = append(istio, bootstrapStatsTags(&p, istioOverrideFile, b)...)
	if len(p) > 0 {
		t.Fatal(p)
	}
	for _, c := range []struct{ tool, role, extra string }{
		{"search", "support", ""},
		{"clear_cache", "support", "cache=role"},
		{"search", "ops_cache", "cache=decision"},
		{"get_component", "support", "component=role"},
		{"shadow_allowed_list", "support", "authz_dry_run_result=allowed"},
		{"wasm_filter", "support", "wasm_filter=role"},
	} {
		name := "wasmcustom.mcp_privacy.calls.tool." + c.tool + ".role." + c.role + ".decision.denied"
		want := envoyPrometheusSeries(name, plain)
		if c.extra != "" {
			name, labels, _ := strings.Cut(strings.TrimSuffix(want, "}"), "{")
			l := append(strings.Split(labels, ","), c.extra)
			sort.Strings(l)
			want = name + "{" + strings.Join(l, ",") + "}"
		}
		if got := envoyPrometheusSeries(name, istio); got != want {
			t.Errorf("%s: Istio shows %s, want %s", name, got, want)
		}
	}
}
