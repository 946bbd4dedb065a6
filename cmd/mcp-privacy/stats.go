package main

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/wasmhost"
)

// The plugin's counters (docs/METRICS.md) as `serve --admin ADDR` shows
// them: the two views of Envoy's admin listener, so that what an operator
// sees locally is what Envoy shows.
//
//	GET /stats             wasmcustom.<name>: <value>, one a line, sorted
//	                       (?usedonly: only counters above 0; ?filter=RE2)
//	GET /stats/prometheus  Prometheus text: the names with the stats_tags of
//	                       docs/METRICS.md applied, as a bootstrap with those
//	                       tags makes Envoy export them

// statsNamespace is the prefix Envoy gives stats a Wasm module defines.
const statsNamespace = "wasmcustom."

// statsTags are the stats_tags of docs/METRICS.md (a test keeps them
// equal): the first group of each regex is cut out of the name, the second
// is the tag's value.
var statsTags = []struct {
	name string
	re   *regexp.Regexp
}{
	{"mcp_method", regexp.MustCompile(`^wasmcustom\.mcp_privacy\.requests(\.method\.([^.]+))`)},
	{"mcp_decision", regexp.MustCompile(`^wasmcustom\.mcp_privacy\.requests(?:\.method\.[^.]+)?(\.decision\.([^.]+))$`)},
	{"mcp_label", regexp.MustCompile(`^wasmcustom\.mcp_privacy\.detections(\.label\.([^.]+))$`)},
	{"mcp_scope", regexp.MustCompile(`^wasmcustom\.mcp_privacy\.rate_limited(\.scope\.([^.]+))$`)},
	{"mcp_error", regexp.MustCompile(`^wasmcustom\.mcp_privacy\.errors(\.kind\.([^.]+))$`)},
	{"mcp_tool", regexp.MustCompile(`^wasmcustom\.mcp_privacy\.calls(\.tool\.([^.]+))`)},
	{"mcp_role", regexp.MustCompile(`^wasmcustom\.mcp_privacy\.calls(?:\.tool\.[^.]+)?(\.role\.([^.]+))`)},
	{"mcp_decision", regexp.MustCompile(`^wasmcustom\.mcp_privacy\.calls(?:\.tool\.[^.]+)?(?:\.role\.[^.]+)?(\.decision\.([^.]+))$`)},
}

// statsHandler serves the metrics that metrics returns (Host.Metrics).
func statsHandler(metrics func() map[string]wasmhost.Metric) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, r *http.Request) {
		var filter *regexp.Regexp
		if f := r.URL.Query().Get("filter"); f != "" {
			var err error
			if filter, err = regexp.Compile(f); err != nil {
				http.Error(w, "filter: "+err.Error(), http.StatusBadRequest)
				return
			}
		}
		_, usedOnly := r.URL.Query()["usedonly"]
		w.Header().Set("content-type", "text/plain; charset=utf-8")
		writeStats(w, metrics(), filter, usedOnly)
	})
	mux.HandleFunc("GET /stats/prometheus", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("content-type", "text/plain; version=0.0.4; charset=utf-8")
		writePrometheus(w, metrics())
	})
	return mux
}

// writeStats writes Envoy's /stats text: "name: value" lines, sorted.
func writeStats(w io.Writer, ms map[string]wasmhost.Metric, filter *regexp.Regexp, usedOnly bool) {
	names := make([]string, 0, len(ms))
	for n := range ms {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		m := ms[n]
		full := statsNamespace + n
		if usedOnly && metricUnused(m) || filter != nil && !filter.MatchString(full) {
			continue
		}
		if m.Type == wasmhost.MetricHistogram {
			fmt.Fprintf(w, "%s: count=%d sum=%d\n", full, m.Count, m.Sum)
			continue
		}
		fmt.Fprintf(w, "%s: %d\n", full, m.Value)
	}
}

func metricUnused(m wasmhost.Metric) bool {
	if m.Type == wasmhost.MetricHistogram {
		return m.Count == 0
	}
	return m.Value == 0
}

// promSeries is one Prometheus sample.
type promSeries struct {
	labels string
	value  string
}

// writePrometheus writes the Prometheus text format: the stat name with
// its tags cut out, dots and other characters as "_", the namespace
// "wasmcustom." dropped (Envoy exports custom namespaces without the
// envoy_ prefix), tags as labels.
func writePrometheus(w io.Writer, ms map[string]wasmhost.Metric) {
	families := map[string][]promSeries{}
	types := map[string]string{}
	for n, m := range ms {
		base, tags := extractTags(statsNamespace + n)
		name := promName(strings.TrimPrefix(base, statsNamespace))
		var labels []string
		for _, t := range tags {
			labels = append(labels, t[0]+`="`+promEscape(t[1])+`"`)
		}
		sort.Strings(labels)
		typ, value := "counter", strconv.FormatInt(m.Value, 10)
		switch m.Type {
		case wasmhost.MetricGauge:
			typ = "gauge"
		case wasmhost.MetricHistogram:
			typ, value = "untyped", strconv.FormatUint(m.Sum, 10)
		}
		types[name] = typ
		families[name] = append(families[name], promSeries{strings.Join(labels, ","), value})
	}
	names := make([]string, 0, len(families))
	for n := range families {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "# TYPE %s %s\n", n, types[n])
		series := families[n]
		sort.Slice(series, func(i, j int) bool { return series[i].labels < series[j].labels })
		for _, s := range series {
			if s.labels == "" {
				fmt.Fprintf(w, "%s %s\n", n, s.value)
			} else {
				fmt.Fprintf(w, "%s{%s} %s\n", n, s.labels, s.value)
			}
		}
	}
}

// extractTags applies statsTags to a full stat name as Envoy does
// (source/common/stats/tag_producer_impl.cc, produceTags): each extractor
// in turn, the first group cut out of the name and the second the value,
// and of extractors sharing a tag name only the first that matches.
func extractTags(name string) (string, [][2]string) {
	var tags [][2]string
	remove := make([]bool, len(name))
	for _, t := range statsTags {
		m := t.re.FindStringSubmatchIndex(name)
		if m == nil || m[4] < 0 || slices.ContainsFunc(tags, func(tag [2]string) bool { return tag[0] == t.name }) {
			continue
		}
		tags = append(tags, [2]string{t.name, name[m[4]:m[5]]})
		for i := m[2]; i < m[3]; i++ {
			remove[i] = true
		}
	}
	var b strings.Builder
	for i := range name {
		if !remove[i] {
			b.WriteByte(name[i])
		}
	}
	return b.String(), tags
}

// promName makes a stat name a Prometheus metric name.
func promName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == ':') {
			b[i] = '_'
		}
	}
	return string(b)
}

func promEscape(s string) string { return promEscaper.Replace(s) }

var promEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// printUsedStats writes the counters above 0, for the log at shutdown.
func printUsedStats(w io.Writer, ms map[string]wasmhost.Metric) {
	var b strings.Builder
	writeStats(&b, ms, nil, true)
	if b.Len() == 0 {
		return
	}
	fmt.Fprint(w, "mcp-privacy serve: stats at shutdown:\n"+b.String())
}
