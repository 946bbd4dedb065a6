package mcp

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestToolsCallAllocations holds a judged tools/call to its allocation
// budget (BenchmarkToolsCall's path): the stream itself (which holds the
// body's parse, the first call record, transform run and judged
// primitive), a copied string, and the test's own (its Request made an
// interface, as the host glue's is). A regression: judging
// through
// internal/catalog's Judge once kept a pointer to the stream's principal
// in closures that escape, which moved every stream to the heap.
func TestToolsCallAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are asserted without -race")
	}
	call, _ := toolsCallRun(t)
	const budget = 4
	n := testing.AllocsPerRun(200, call)
	if n > budget {
		t.Errorf("a tools/call costs %v allocations, budget %d", n, budget)
	}
}

// TestJWTClaimsAllocations: reading the principal and roles from a
// forwarded JWT payload leaves the body's parse its node array. A
// regression: the payload's jsondoc parse took the array jsondoc keeps
// for bodies and dropped it, so every such request made the body parse a
// new one (16 allocations, against 14).
func TestJWTClaimsAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are asserted without -race")
	}
	headerIdentity := "identity:\n  principal: [{header: x-mcp-principal}]\n  roles: [{header: x-mcp-roles}]\n"
	cfg := mustConfig(t, strings.Replace(testEnvelope, headerIdentity, "identity:\n  jwt: {payload_header: x-jwt-payload}\n", 1))
	payload := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"alice","roles":["admin"]}`))
	req := pairRequest{HeaderPairs{{"x-jwt-payload", payload}, {"content-length", "200"}}}
	body := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"search_customers","arguments":{"query":"alice"}}}`)
	read := func() []byte { return body }
	call := func() {
		s := NewStream(cfg)
		heldStream = s
		s.OnRequestHeaders(req, "POST", "/mcp", false)
		if s.ex.id.ID != "alice" || len(s.ex.id.Roles) != 1 {
			t.Fatalf("identity %+v", s.ex.id)
		}
		s.OnRequestBody(len(body), true, read)
	}
	const budget = 14
	if n := testing.AllocsPerRun(200, call); n > budget {
		t.Errorf("a tools/call with JWT claims costs %v allocations, budget %d", n, budget)
	}
}
