package mcp

import "testing"

// TestToolsCallAllocations holds a judged tools/call to its allocation
// budget (BenchmarkToolsCall's path): parsing, identity, the call record
// and its exported headers. A regression: judging through
// internal/catalog's Judge once kept a pointer to the stream's principal
// in closures that escape, which moved every stream to the heap.
func TestToolsCallAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are asserted without -race")
	}
	cfg, errs := NewConfig([]byte(testEnvelope), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	req := hdr("x-mcp-principal", "alice", "content-length", "200")
	body := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"search_customers","arguments":{"query":"alice","limit":10,"filters":{"country":"DE","active":true,"tags":["vip","eu"]}},"_meta":{"progressToken":"abc-123"}}}`)
	read := func() []byte { return body }
	const budget = 10
	n := testing.AllocsPerRun(200, func() {
		s := NewStream(cfg)
		s.OnRequestHeaders(req, "POST", "/mcp", false)
		if r := s.OnRequestBody(len(body), true, read); r.Reply != nil || r.Body != nil {
			t.Fatal("not forwarded as is")
		}
	})
	if n > budget {
		t.Errorf("a tools/call costs %v allocations, budget %d", n, budget)
	}
}
