package vault

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/policy"
)

// TestVaultSlotsPinned pins the home slots of mappings as the first
// implementation (crypto/hmac) chose them: every VM, native tool and
// later version must look for a mapping where the others stored it. The
// last case's input is over two SHA-256 blocks.
func TestVaultSlotsPinned(t *testing.T) {
	for _, c := range []struct {
		slots int
		ns, p string
		want  int
	}{
		{DefaultEntries, "", "EMAIL_UNUEQUWWXZBV", 53670},
		{DefaultEntries, "alice", "EMAIL_PQ3XO6X7FF7Z", 205},
		{1024, "", "CREDIT_CARD_GKDOIB2XVBHV", 379},
		{7, "bob", "IBAN_YLMJ3S7GX7PV", 2},
		{1 << 22, strings.Repeat("tenant-", 20), "AWS_SECRET_ACCESS_KEY_LK2KMNJV4TMS", 3249288},
	} {
		v := New(testKey, vaultConfig(policy.VaultPerPrincipal, 0, c.slots), NewMemoryKV(), newClock().now)
		if got := v.hashSlot(c.ns, c.p); got != c.want {
			t.Errorf("%d slots, hashSlot(%q, %q) = %d, want %d", c.slots, c.ns, c.p, got, c.want)
		}
		if want := referenceSlot(testKey, c.slots, c.ns, c.p); c.want != want {
			t.Errorf("%d slots, (%q, %q): pinned %d, the reference %d", c.slots, c.ns, c.p, c.want, want)
		}
	}
}

// referenceSlot is hashSlot as first written.
func referenceSlot(key []byte, slots int, ns, p string) int {
	m := hmac.New(sha256.New, subkey(key, "mcp-privacy vault slot v1"))
	b := binary.AppendUvarint(nil, uint64(len(ns)))
	m.Write(append(append(b, ns...), p...))
	return int(binary.BigEndian.Uint64(m.Sum(nil)[:8]) % uint64(slots))
}

// BenchmarkVaultSlot is the home slot of a mapping missing from the
// caches (Pseudonymise of a new value, Resolve of one not resolved lately).
func BenchmarkVaultSlot(b *testing.B) {
	v := New(testKey, vaultConfig(policy.VaultGlobal, 0, DefaultEntries), NewMemoryKV(), newClock().now)
	const p = "EMAIL_PQ3XO6X7FF7Z"
	if got, want := v.hashSlot("", p), referenceSlot(testKey, DefaultEntries, "", p); got != want {
		b.Fatalf("slot %d, want %d", got, want)
	}
	b.ReportAllocs()
	for b.Loop() {
		v.mu.Lock()
		v.hashSlot("", p)
		v.mu.Unlock()
	}
}
