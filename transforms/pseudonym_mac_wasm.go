//go:build wasm

package transforms

import "github.com/cloudg/mcp-privacy/internal/hmacsha256"

// pseudonymMAC is internal/hmacsha256 in the wasm module: there SHA-256 is
// Go's generic code, and crypto/hmac's per-call work around it (Reset
// restoring marshaled states, interface calls, padding through copies)
// costs more than the two blocks hashed for a short value.
type pseudonymMAC = hmacsha256.MAC

func newMAC(key []byte) *pseudonymMAC { return hmacsha256.New(key) }
