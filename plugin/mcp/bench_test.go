package mcp

import "testing"

// BenchmarkToolsCall is the request path of a small allowed tools/call:
// headers, identity, strict parse, decision (the body is forwarded as is).
// The same path runs in wasm in e2e (see docs/BENCHMARKS.md).
func BenchmarkToolsCall(b *testing.B) {
	cfg, errs := NewConfig([]byte(testEnvelope), nil)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	req := hdr("x-mcp-principal", "alice", "content-length", "200")
	body := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"search_customers","arguments":{"query":"alice","limit":10,"filters":{"country":"DE","active":true,"tags":["vip","eu"]}},"_meta":{"progressToken":"abc-123"}}}`)
	read := func() []byte { return body }
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		s := NewStream(cfg)
		s.OnRequestHeaders(req, "POST", "/mcp", false)
		if r := s.OnRequestBody(len(body), true, read); r.Reply != nil || r.Body != nil {
			b.Fatal("not forwarded as is")
		}
	}
}
