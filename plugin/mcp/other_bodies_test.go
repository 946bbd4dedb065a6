package mcp

import (
	"strings"
	"testing"
)

// A response body of any other type (an error page, plain text, none
// declared) is read too: clients put its text into the error they raise
// (the TypeScript SDK's "Error POSTing to endpoint: <body>"), which a user
// or a model then reads. Regression (issue 12 review): such bodies went
// out as the server sent them.
func TestOtherResponseBodiesRead(t *testing.T) {
	cfg := mustConfig(t, leaksEnvelope)
	req := call("1", "tools/call", `{"name":"search"}`)
	cases := []struct {
		name, contentType, body string
		status                  int
	}{
		{"a plain-text error", "text/plain; charset=utf-8", "no such user: alice@corp.example\n", 500},
		{"an HTML error page", "text/html", "<html><body><p>Contact alice&#64;corp.example</p></body></html>", 502},
		{"no content type", "", "user alice@corp.example is locked", 403},
		{"a 200 of another type", "text/markdown", "# alice@corp.example", 200},
		{"JSON under another type", "text/plain", `{"error":"alice@corp.example"}`, 400},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, r := post(t, cfg, hdr("x-mcp-principal", "ann"), req)
			if r.Reply != nil {
				t.Fatalf("answered locally: %s", r.Reply.Body)
			}
			if h := s.OnResponseHeaders(c.status, c.contentType, "", false); h.Reply != nil {
				t.Fatalf("headers replied: %s", h.Reply.Body)
			}
			got := c.body
			if a, edit := s.OnResponseBody(len(c.body), true, func() []byte { return []byte(c.body) }); a != Continue {
				t.Fatalf("action %v", a)
			} else if edit.Replace {
				got = string(edit.Data)
			}
			if strings.Contains(got, "alice@corp.example") || strings.Contains(got, "alice&#64;corp.example") || got == "" {
				t.Errorf("the client gets %q", got)
			}
		})
	}
	// Bytes that are not text cannot be read: withheld.
	s, _ := post(t, cfg, hdr("x-mcp-principal", "ann"), req)
	s.OnResponseHeaders(500, "application/octet-stream", "", false)
	bin := "\xff\xfealice@corp.example\x00"
	if _, edit := s.OnResponseBody(len(bin), true, func() []byte { return []byte(bin) }); !edit.Replace || strings.Contains(string(edit.Data), "alice") {
		t.Errorf("binary body went out: %q", edit.Data)
	}
}

// The error that replaces a response which does not parse strictly says
// why without quoting it: a key the server sent twice (an address, as
// some serialisers write a map's keys) is not repeated to the client.
// Regression (issue 12 review): the -32603 message quoted the key.
func TestUnparsableResponseErrorQuotesNothing(t *testing.T) {
	cfg := mustConfig(t, leaksEnvelope)
	req := call("1", "tools/call", `{"name":"search"}`)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"alice@corp.example":1,"alice@corp.example":2}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"alice@corp.example":1,"ALICE@CORP.EXAMPLE":2}}`,
	} {
		got := respond(t, cfg, hdr("x-mcp-principal", "ann"), req, body)
		if strings.Contains(strings.ToLower(got), leaked) || !strings.Contains(got, "-32603") {
			t.Errorf("%s became %s", body, got)
		}
	}
}
