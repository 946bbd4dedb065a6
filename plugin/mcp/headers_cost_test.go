package mcp

import (
	"strconv"
	"strings"
	"testing"
)

// wideDeepArguments is a tools/call body under 1 MiB whose arguments
// nest depth objects deep and hold n short members at the bottom, each
// its own number (or all 0, same).
func wideDeepArguments(depth, n int, same bool) string {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",` + meta2026 + `,"arguments":`)
	for i := 0; i < depth; i++ {
		b.WriteString(`{"k":`)
	}
	b.WriteString(`{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		v := strconv.Itoa(i)
		if same {
			v = "0"
		}
		b.WriteString(`"` + strconv.Itoa(i) + `":` + v)
	}
	b.WriteString(`}` + strings.Repeat("}", depth) + `}}`)
	return b.String()
}

func BenchmarkCheckMirrorManyParams(b *testing.B) {
	for _, headers := range []int{1, 90} {
		b.Run(strconv.Itoa(headers), func(b *testing.B) { benchmarkCheckMirror(b, headers) })
	}
}

func benchmarkCheckMirror(b *testing.B, headers int) {
	cfg, errs := NewConfig([]byte(rev2026Envelope), nil)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	body := wideDeepArguments(60, 70000, false)
	kv := []string{}
	for i := 0; i < headers; i++ {
		kv = append(kv, "mcp-param-p"+strconv.Itoa(i), "69999")
	}
	req := req2026("tools/call", "t", kv...)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		_, r, _ := postOnce(cfg, req, body)
		if r.Reply != nil {
			b.Fatalf("refused: %s", r.Reply.Body)
		}
	}
}

// Regression (review of issue 13): each Mcp-Param header walked the
// arguments allocating a path per member, and kept every argument its
// value matched: 90 headers over a 1 MiB body of deep, wide arguments
// took 9 s and 6.5 GB natively for one request. Matches beyond
// maxMirroredPaths are refused as a mismatch; a header that matches few
// arguments costs a read of them.
func TestMirroredParamsBounded(t *testing.T) {
	cfg := mustConfig(t, rev2026Envelope)
	for _, c := range []struct {
		name  string
		value string // every header's
		body  string
		ok    bool
	}{
		{"each matches one argument deep down", "69999", wideDeepArguments(60, 70000, false), true},
		{"each matches every argument", "0", wideDeepArguments(60, 2000, true), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var kv []string
			for i := 0; i < 90; i++ {
				kv = append(kv, "mcp-param-p"+strconv.Itoa(i), c.value)
			}
			allocs := testing.AllocsPerRun(1, func() {
				_, r, _ := postOnce(cfg, req2026("tools/call", "t", kv...), c.body)
				if (r.Reply == nil) != c.ok {
					t.Fatalf("reply %+v, want passed %v", r.Reply, c.ok)
				}
				if !c.ok && !strings.Contains(string(r.Reply.Body), "match more than") {
					t.Fatalf("want a refusal for too many matches, got %s", r.Reply.Body)
				}
			})
			// Parsing the body is a few allocations per member; the
			// headers' walks must add none per member.
			if allocs > 400000 {
				t.Errorf("%v allocations for one request", allocs)
			}
		})
	}
}
