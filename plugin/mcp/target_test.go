package mcp

import "testing"

// TestReadTarget: the request target is split, judged and matched in one
// reading: the stream sees the gateway's targets, refuses those servers
// read differently, and takes the legacy session from the query only of a
// target it does not refuse.
func TestReadTarget(t *testing.T) {
	cfg, errs := NewConfig([]byte(`{"policy": "standard"}`), nil) // gateway.paths: /mcp, /mcp/*
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, c := range []struct {
		raw, path, query   string
		gateway, ambiguous bool
		session            string
		sessionAmbiguous   bool
	}{
		{raw: "/mcp", path: "/mcp", gateway: true},
		{raw: "/healthz", path: "/healthz"},
		{raw: "/MCP/", path: "/MCP/", gateway: true},             // case-insensitive routers, trailing slash
		{raw: "//mc%70;v=1", path: "//mc%70;v=1", gateway: true}, // read as the server routes it
		{raw: "/mcp?sessionId=abc&x=1", path: "/mcp", query: "sessionId=abc&x=1", gateway: true, session: "abc"},
		{raw: "/mcp?session_id=a;SESSIONID=b", path: "/mcp", query: "session_id=a;SESSIONID=b", gateway: true, sessionAmbiguous: true},
		{raw: "/mcp?sessionid=%zz", path: "/mcp", query: "sessionid=%zz", gateway: true, sessionAmbiguous: true},
		{raw: "/x/../mcp?sessionId=abc", path: "/x/../mcp", query: "sessionId=abc", gateway: true, ambiguous: true}, // refused: no session read
		{raw: "/mcp%2Fx", path: "/mcp%2Fx", gateway: true, ambiguous: true},
		{raw: "/other%2F..%2Fmcp", path: "/other%2F..%2Fmcp", gateway: true, ambiguous: true},
		{raw: "/other/%2e", path: "/other/%2e", ambiguous: true}, // no reading is a gateway path
	} {
		got := readTarget(c.raw, cfg.Env.Gateway.Paths)
		if got.path != c.path || got.query != c.query || got.gateway != c.gateway || (got.ambiguity != "") != c.ambiguous ||
			got.session != c.session || got.sessionAmbiguous != c.sessionAmbiguous {
			t.Errorf("%q: got %+v", c.raw, got)
		}
	}
}

func TestNormalizePath(t *testing.T) {
	for in, want := range map[string]string{
		"/mcp": "/mcp", "/mc%70": "/mcp", "/%6Dcp/": "/mcp/", "/a/../mcp": "/mcp", "/./mcp": "/mcp",
		"//mcp": "/mcp", "/mcp%2Fx": "/mcp%2Fx", "/..": "/", "/mcp/%2e%2e/admin": "/admin", "/%zz": "/%zz",
		"/mcp;x=1": "/mcp", "/mcp;x=1/": "/mcp/", "/a;b/mcp": "/a/mcp",
	} {
		if got := normalizePath(in); got != want {
			t.Errorf("normalizePath(%q) = %q, want %q", in, got, want)
		}
	}
}
