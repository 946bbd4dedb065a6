package mcp

import (
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

// A resource URI whose pseudonym the depseudonymiser restored, and which
// the policy then denies, is named in the denial and in the audit entry
// as the client wrote it: the client learns nothing of the value (a
// visible denial otherwise answers the curious client with the real
// address), and no audit entry holds a detected value (manual 14).
// Regression (issue 12 review): the reply's reason and name and the
// audit entry's name held the restored URI.
func TestDeniedRestoredURINamedAsSent(t *testing.T) {
	for _, deny := range []string{`deny_resources: ["secret://box/alice*"]`, `deny_resources: ["secret://box/*@*"]`} {
		cfg, _, lines, _ := wrConfig(t, `
policy:
  name: deny-restored
  audit: true
  hide_denied: false
  allow_tools: ["*"]
  `+deny+`
  transforms: [pseudonymise]
  vault: {key: "test key, not secret"}
identity:
  principal: [{header: x-mcp-principal}]
`)
		ann := hdr("x-mcp-principal", "ann")
		out := respond(t, cfg, ann, call("1", "tools/call", `{"name":"lookup"}`),
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"alice@example.com"}]}}`)
		p := pseudonymRE.FindString(out)
		if p == "" {
			t.Fatalf("no pseudonym in %s", out)
		}
		sent := "secret://box/" + p
		s, r := post(t, cfg, ann, call("2", "resources/read", `{"uri":`+jsondoc.Quote(sent)+`}`))
		s.Done()
		code, _, data := wrError(t, r.Reply)
		if code != -32003 || strings.Contains(string(r.Reply.Body), "alice") || data["name"] != sent {
			t.Errorf("%s: denial %s: want -32003 naming %s", deny, r.Reply.Body, sent)
		}
		if len(*lines) < 2 {
			t.Fatalf("%s: %d audit lines", deny, len(*lines))
		}
		for _, l := range *lines {
			if strings.Contains(l, "alice") {
				t.Errorf("%s: audit line holds the restored value: %s", deny, l)
			}
		}
	}
}
