package mcp

import (
	"strings"
	"testing"
)

// With gateway.on_parse_error: pass, a message that is not valid JSON-RPC
// goes through, and what the filter can read of it is still transformed
// (MCP_PRIVACY.md 16): a bare value in a batch or as the whole body, an
// error message that is no string, an id that is an object. Regression
// (issue 12 review): these went out as sent, raw data and all.
func TestParseErrorPassStillReads(t *testing.T) {
	pass := mustConfig(t, leaksEnvelope+"gateway: {on_parse_error: pass}\n")
	req := call("1", "tools/call", `{"name":"search"}`)
	for _, r := range []string{
		`{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"alice@corp.example"}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":"alice@corp.example"}`,
		`{"jsonrpc":"2.0","id":1,"result":["alice@corp.example"]}`,
		`{"jsonrpc":"2.0","id":1,"error":"alice@corp.example"}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":{"m":"alice@corp.example"}}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":["alice@corp.example"]}}`,
		`{"jsonrpc":"2.0","id":{"x":"alice@corp.example"},"result":{"note":"x"}}`,
		`{"jsonrpc":"2.0","id":["alice@corp.example"],"result":{}}`,
		`{"note":"alice@corp.example"}`,
		`["alice@corp.example"]`,
		`[{"x":["alice@corp.example"]},"bob"]`,
		`[7,{"jsonrpc":"2.0","id":1,"result":"alice@corp.example"}]`,
		`"alice@corp.example"`,
		`{"jsonrpc":"2.0","method":1,"params":{"m":"alice@corp.example"}}`,
	} {
		got := respond(t, pass, hdr("x-mcp-principal", "ann"), req, r)
		if strings.Contains(got, leaked) {
			t.Errorf("json: %s came out as %s", r, got)
		}
		got = strings.Join(eventData(postSSE(t, pass, req, r)), "\n")
		if strings.Contains(got, leaked) {
			t.Errorf("event stream: %s came out as %s", r, got)
		}
	}
}

// Under on_parse_error: pass, an event whose data is text, not JSON, is
// read as text, as a body of another type is.
func TestParseErrorPassReadsEventText(t *testing.T) {
	pass := mustConfig(t, leaksEnvelope+"gateway: {on_parse_error: pass}\n")
	got := strings.Join(eventData(postSSE(t, pass, call("1", "tools/call", `{"name":"search"}`), `not json: alice@corp.example`)), "\n")
	if strings.Contains(got, leaked) || !strings.Contains(got, "not json") {
		t.Errorf("event data %q", got)
	}
}
