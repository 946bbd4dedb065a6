package mcp

import "testing"

// Regression (review of issue 13): a POST with MCP-Protocol-Version
// 2026-07-28 had its Mcp-Session-Id (and a legacy query's session)
// ignored, so the check that a session belongs to the principal that
// first used it was skipped. A stateful go-sdk v1.8.0 server (the 2025
// deployments that keep running beside 2026 ones) serves a POST naming a
// session in that session whatever its version header: another principal
// could ride a session by adding the 2026 header. The session is still
// not used under 2026 (nothing binds to it); one bound to another
// principal is refused as unknown (404).
func TestSession2026HeaderDoesNotSkipOwnership(t *testing.T) {
	for _, c := range []struct {
		name    string
		second  fakeRequest
		target  string
		refused bool
	}{
		{"another principal, session header", with2026(who("bob", "", "S1")), "/mcp", true},
		{"another principal, legacy query", with2026(who("bob", "", "")), "/mcp?sessionid=S1", true},
		{"the principal itself", with2026(who("ann", "", "S1")), "/mcp", false},
		{"another principal, an unknown session", with2026(who("bob", "", "S9")), "/mcp", false},
		{"another principal, no session", with2026(who("bob", "", "")), "/mcp", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, vm1, vm2 := sessionVMs(t)
			if h := NewStream(vm1).OnRequestHeaders(who("ann", "", "S1"), "POST", "/mcp", false); h.Reply != nil {
				t.Fatalf("first use refused: %s", h.Reply.Body)
			}
			h := NewStream(vm2).OnRequestHeaders(c.second, "POST", c.target, false)
			if !c.refused {
				if h.Reply != nil {
					t.Fatalf("refused: %d %s", h.Reply.Status, h.Reply.Body)
				}
				return
			}
			refusal(t, h.Reply, 404, "session not found")
		})
	}
}

// with2026 is r with the 2026-07-28 version header.
func with2026(r fakeRequest) fakeRequest {
	r.headers["mcp-protocol-version"] = "2026-07-28"
	r.headers["content-type"] = "application/json"
	return r
}
