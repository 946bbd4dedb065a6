package vault

import (
	"strconv"
	"testing"

	"github.com/cloudg/mcp-privacy/policy"
)

// BenchmarkScalingVault: the vault's two operations on a table already
// holding 1,000, 100,000 and 1,000,000 mappings (max_entries sized to
// hold them): pseudonymising a value it has mapped (the lookup every
// repeated value makes) and a new one, and resolving a pseudonym that a
// fresh Vault over the same store has not cached (a restore in another
// VM). docs/BENCHMARKS.md tables them with the plugin's scaling
// benchmarks: a table ten or a thousand times larger must not cost more
// per operation. Resolving comes first: a value the table lost, seen
// again, takes a slot back from another mapping ("losing a mapping is
// safe", in the manual's vault section), which a later resolve would
// then miss.
func BenchmarkScalingVault(b *testing.B) {
	clk := newClock()
	for _, n := range []int{1000, 100_000, 1_000_000} {
		b.Run("entries="+strconv.Itoa(n), func(b *testing.B) {
			kv := NewMemoryKV()
			cfg := vaultConfig(policy.VaultGlobal, 0, 2*n)
			v := New(testKey, cfg, kv, clk.now)
			values := make([]string, n)
			ps := make([]string, n)
			for i := range values {
				values[i] = "user" + strconv.Itoa(i) + "@corp.example"
				ps[i] = v.Pseudonymise("", "EMAIL", values[i])
			}
			// The mappings the table kept: at any load a few lose their
			// 8 probe slots to an earlier one (the manual's "losing a
			// mapping is safe").
			kept := New(testKey, cfg, kv, clk.now)
			held := ps[:0:0]
			for _, p := range ps {
				if _, ok := kept.Resolve("", p); ok {
					held = append(held, p)
				}
			}
			if len(held) < n*99/100 {
				b.Fatalf("%d of %d mappings kept", len(held), n)
			}
			// Spread over the table, so no run reads one cached corner.
			const stride = 7919
			b.Run("resolve", func(b *testing.B) {
				r := New(testKey, cfg, kv, clk.now)
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					if _, ok := r.Resolve("", held[i*stride%len(held)]); !ok {
						b.Fatalf("%s: not resolved", held[i*stride%len(held)])
					}
				}
			})
			b.Run("known", func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					v.Pseudonymise("", "EMAIL", values[i*stride%n])
				}
			})
			b.Run("new", func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					v.Pseudonymise("", "EMAIL", "new"+strconv.Itoa(i)+"@corp.example")
				}
			})
		})
	}
}
