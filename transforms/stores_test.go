package transforms

import (
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

// Fixtures of the tests that run the pipeline over the vault's stores
// (package vault's tests have their own).

var (
	testKey    = []byte("vault test key material")
	sealedKeyA = []byte("sealed vault key A, 32 bytes...")
	sealedKeyB = []byte("sealed vault key B, 32 bytes...")
)

// clock is a fake time source.
type clock struct{ t time.Time }

func newClock() *clock          { return &clock{time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)} }
func (c *clock) now() time.Time { return c.t }

func newSealed(t testing.TB, keys [][]byte, cfg policy.VaultConfig, server string, stored *vault.Vault, now func() time.Time) *vault.Sealed {
	t.Helper()
	v, err := vault.NewSealed(keys, cfg, server, stored, now)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
