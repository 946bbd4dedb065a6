package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// TestBucketKeysPinned pins bucket identities as the first implementation
// (crypto/sha256, hex) gave them: buckets live in shared data across VMs
// and reloads, so a key must not change with the build or the hash code.
// The last identity and scope key are over three SHA-256 blocks.
func TestBucketKeysPinned(t *testing.T) {
	for _, c := range []struct {
		limit string
		call  Call
		want  string
	}{
		{`{rate: 10}`, Call{Kind: KindTool, Name: "search", Principal: "alice"}, "370d0735d76ac8a07c20eeff266e5e74"},
		{`{rate: 0.5, per: hour, burst: 3, scope: principal}`, Call{Kind: KindTool, Name: "search", Principal: "alice"}, "2a59af17e2e065122509ab659844c89f"},
		{`{rate: 2, per: second, scope: tool, kinds: [resource]}`, Call{Kind: KindResource, Name: "file:///etc/hosts"}, "f1c4a8f1e11c36fcbad332500e300a0b"},
		{`{rate: 1, scope: global}`, Call{Kind: KindPrompt, Name: "p", Principal: "bob"}, "83b0c90d12a838414d12d35d243cd8ec"},
		{`{rate: 100, tools: ["search*", "get_document_by_identifier_*", "list_*"], kinds: [tool, prompt]}`,
			Call{Kind: KindTool, Name: "search_" + strings.Repeat("x", 40), Principal: "tenant-with-a-long-principal-identifier"}, "e7a5dbd245e5c32b8164fc6e803a0478"},
	} {
		l := rlLimit(t, c.limit)
		b := l.BucketFor(c.call)
		if b.Key != c.want {
			t.Errorf("%s for %+v: key %s, want %s", c.limit, c.call, b.Key, c.want)
		}
		if want := referenceBucketKey(l, b.ScopeKey); b.Key != want {
			t.Errorf("%s for %+v: key %s, the reference %s", c.limit, c.call, b.Key, want)
		}
	}
}

// referenceBucketKey is bucketKey as first written.
func referenceBucketKey(l *RateLimit, scopeKey string) string {
	h := sha256.New()
	h.Write([]byte(l.config))
	h.Write([]byte{0})
	h.Write([]byte(scopeKey))
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// TestBucketKeyMatchesReference compares bucketKey with the reference
// for identities and scope keys across several SHA-256 blocks.
func TestBucketKeyMatchesReference(t *testing.T) {
	for n := range 300 {
		l := &RateLimit{config: strings.Repeat("c", n%150)}
		scope := strings.Repeat("s\x00", n/3)
		if got, want := bucketKey(l, scope), referenceBucketKey(l, scope); got != want {
			t.Fatalf("identity of %d bytes, scope key of %d: %s, want %s", len(l.config), len(scope), got, want)
		}
	}
}

// BenchmarkBucketKey is one bucket's identity: a limit of the default
// scope (principal and tool).
func BenchmarkBucketKey(b *testing.B) {
	l := &dtParse(b, "rate_limits:\n  - {rate: 10, per: minute}").RateLimits[0]
	call := Call{Kind: KindTool, Name: "search_documents", Principal: "alice@corp.example"}
	scope := scopeKey(l.Scope, call)
	if got, want := bucketKey(l, scope), referenceBucketKey(l, scope); got != want {
		b.Fatalf("key %s, want %s", got, want)
	}
	b.ReportAllocs()
	for b.Loop() {
		bucketKey(l, scope)
	}
}
