package mcp

import (
	"strings"
	"testing"
)

// sealedEnvelope pseudonymises every result; MODE and KEY are replaced.
const sealedEnvelope = `
policy:
  name: sealed
  allow_tools: ["*"]
  transforms: [pseudonymise]
  vault: {MODE KEY}
identity:
  principal: [{header: x-mcp-principal}]
`

// The vault a request's pseudonyms come from (manual 13): under 2026-07-28
// a policy with a configured key seals them (vault.mode auto), so another
// proxy, sharing nothing but the key, restores them; a 2025 request keeps
// the per-process vault, whose pseudonyms another proxy cannot resolve.
// mode store and mode sealed decide for every revision; an ephemeral key
// never seals in auto (no other proxy holds it).
func TestSealedPseudonymsPerRevision(t *testing.T) {
	const key = `key: "fleet key, not secret"`
	for _, c := range []struct {
		name, mode, key string
		rev2026         bool
		wantSealed      bool
	}{
		{"auto, 2026, key", "", key, true, true},
		{"auto, 2025, key", "", key, false, false},
		{"auto, 2026, ephemeral key", "", "", true, false},
		{"store, 2026", "mode: store,", key, true, false},
		{"sealed, 2025", "mode: sealed,", key, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := strings.NewReplacer("MODE", c.mode, "KEY", c.key).Replace(sealedEnvelope)
			issuer, other := mustConfig(t, src), mustConfig(t, src)
			if c.key == "" { // one process's random key, for both "replicas"
				other = issuer
			}
			req, params := hdr("x-mcp-principal", "ann", "content-type", "application/json"), `{"name":"lookup"}`
			if c.rev2026 {
				req, params = req2026("tools/call", "lookup"), `{"name":"lookup",`+meta2026+`}`
			}
			out := respond(t, issuer, req, call("1", "tools/call", params),
				`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"alice@example.com"}]}}`)
			p := pseudonymRE.FindString(out)
			if p == "" || strings.Contains(out, "alice") {
				t.Fatalf("result %s: no pseudonym, or the value", out)
			}
			// A stored pseudonym's token is 12 characters; a sealed one
			// carries the value, and is longer.
			if sealed := len(p)-strings.LastIndexByte(p, '_')-1 > 12; sealed != c.wantSealed {
				t.Fatalf("pseudonym %s sealed = %v, want %v", p, sealed, c.wantSealed)
			}
			// The pseudonym sent back through the other proxy.
			if c.rev2026 {
				params = `{"name":"send","arguments":{"to":"` + p + `"},` + meta2026 + `}`
				req = req2026("tools/call", "send")
			} else {
				params = `{"name":"send","arguments":{"to":"` + p + `"}}`
			}
			_, r := post(t, other, req, call("2", "tools/call", params))
			if r.Reply != nil {
				t.Fatalf("refused: %s", r.Reply.Body)
			}
			restored := strings.Contains(string(r.Body), `"to":"alice@example.com"`)
			if want := c.wantSealed || other == issuer; restored != want {
				t.Errorf("upstream through the other proxy %s: restored %v, want %v", r.Body, restored, want)
			}
		})
	}
}
