package mcp

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/benchdata"
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

// The scaling benchmarks: how the cost of one message grows with the size
// of the work it carries: the policy, the list, the result (the vault's
// are in transforms/vault). Each runs at three sizes a decade or more
// apart; docs/BENCHMARKS.md tables them with the cost per unit of work,
// which must not grow from one size to the next (no step worse than
// linear).

// scalingPolicy is an envelope whose policy has n rules and globs: n/2
// deny globs, and n/2 rules, each for a role and a name glob of its own,
// so a decision meets every one of them and none applies to alice.
func scalingPolicy(n int) string {
	var b strings.Builder
	b.WriteString(`{"policy":{"name":"scaling","extends":"standard","deny_tools":[`)
	for i := range n / 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"blocked_%d_*"`, i)
	}
	b.WriteString(`],"rules":[`)
	for i := range n - n/2 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"team %d","match":{"roles":["team%d"],"names":["svc%d_*"]},"allow_tools":["svc%d_*"],"max_sensitivity":"restricted"}`, i, i, i, i)
	}
	b.WriteString(`]},"identity":{"principal":[{"header":"x-mcp-principal"}],"roles":[{"header":"x-mcp-roles"}]}}`)
	return b.String()
}

// BenchmarkScalingPolicy is BenchmarkToolsCall's request path under
// policies of 10, 1,000 and 10,000 rules and globs.
func BenchmarkScalingPolicy(b *testing.B) {
	body := []byte(benchdata.ToolCallRequest)
	read := func() []byte { return body }
	for _, n := range []int{10, 1000, 10000} {
		b.Run("rules="+strconv.Itoa(n), func(b *testing.B) {
			cfg := blConfig(b, scalingPolicy(n))
			req := hdr("x-mcp-principal", "alice", "x-mcp-roles", "analyst", "content-length", strconv.Itoa(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				s := NewStream(cfg)
				s.OnRequestHeaders(req, "POST", "/mcp", false)
				if r := s.OnRequestBody(len(body), true, read); r.Reply != nil || r.Body != nil {
					b.Fatal("not forwarded as is")
				}
			}
		})
	}
}

// BenchmarkScalingList is BenchmarkToolsList500 with lists of 50, 500
// and 5,000 tools (benchdata.ToolsListN: the same mix of hidden tools),
// each seen for the first time.
func BenchmarkScalingList(b *testing.B) {
	for _, n := range []int{50, 500, 5000} {
		b.Run("tools="+strconv.Itoa(n), func(b *testing.B) {
			// Some tools hidden, most shown.
			blToolsList500Of(b, benchdata.ListsEnvelope, "application/json", benchdata.ToolsListN(n), false,
				func(shown int) bool { return shown > n/2 && shown < n+benchdata.VirtualTools })
		})
	}
}

// scalingResult is a tools/call result whose one text item is size bytes
// of the mixed corpus (repeated past its end): tool output at the density
// of personal data and secrets real tools return.
func scalingResult(tb testing.TB, size int) []byte {
	whole, _, err := benchdata.ReadMixed("../../testdata/corpus/mixed.txt")
	if err != nil {
		tb.Fatal(err)
	}
	text := strings.Repeat(whole, size/len(whole)+1)[:size]
	for !strings.HasSuffix(text, " ") && len(text) > 1 { // a whole word, and whole UTF-8
		text = text[:len(text)-1]
	}
	out := []byte(`{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":`)
	out = jsondoc.AppendString(out, text)
	return append(out, `}],"isError":false}}`...)
}

// BenchmarkScalingResult is BenchmarkToolResult1KB's response path with
// results of 1 KB, 1 MB and 10 MB under the standard profile.
func BenchmarkScalingResult(b *testing.B) {
	cfg := blConfig(b, benchdata.TransformEnvelope)
	req := hdr("x-mcp-principal", "alice")
	body := []byte(benchdata.ToolCallRequest)
	for _, sz := range []struct {
		name string
		n    int
	}{{"1KB", 1 << 10}, {"1MB", 1 << 20}, {"10MB", 10 << 20}} {
		b.Run("result="+sz.name, func(b *testing.B) {
			result := scalingResult(b, sz.n)
			run := func() []byte {
				s := NewStream(cfg)
				s.OnRequestHeaders(req, "POST", "/mcp", false)
				if r := s.OnRequestBody(len(body), true, func() []byte { return body }); r.Reply != nil {
					b.Fatalf("answered locally: %s", r.Reply.Body)
				}
				s.OnResponseHeaders(200, "application/json", "", false)
				_, edit := s.OnResponseBody(len(result), true, func() []byte { return result })
				return edit.Data
			}
			if out := string(run()); !strings.Contains(out, "EMAIL_") {
				b.Fatalf("%s: result not transformed", sz.name)
			}
			b.SetBytes(int64(len(result)))
			b.ReportAllocs()
			for b.Loop() {
				run()
			}
		})
	}
}

// TestDecisionMemoFromMinRules: a policy decides through the memo once it
// has decisionMemoMinRules rules, and walks its rules below that (a small
// policy decides faster than it looks a decision up).
func TestDecisionMemoFromMinRules(t *testing.T) {
	for _, n := range []int{2, 10, 40, 1000} {
		cfg, errs := NewConfig([]byte(scalingPolicy(n)), nil)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		rules := len(cfg.Env.Policy.Rules)
		if got, want := cfg.Env.Policy.MemoisesDecisions(), rules >= decisionMemoMinRules; got != want {
			t.Errorf("%d rules: memoised %v, want %v", rules, got, want)
		}
		if n >= 40 && rules < decisionMemoMinRules || n <= 2 && rules >= decisionMemoMinRules {
			t.Errorf("scalingPolicy(%d) made %d rules: the cases no longer straddle the bound", n, rules)
		}
	}
}
