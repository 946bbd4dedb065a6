package mcp

import (
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/policy"
)

// readingsEnvelope denies tools by name and by the capability of the
// tools the server has (server.primitives and what lists teach).
const readingsEnvelope = `
policy:
  name: names
  hide_denied: %s
  deny_tools: ["delete_*", "kill_*"]
  deny_prompts: ["internal_*"]
  deny_capabilities: [exec]
server:
  learn_from_lists: true
  primitives:
    - match: {kinds: [tool], names: ["wipe_*", "shred_*"]}
      capabilities: [exec]
identity:
  principal: [{header: x-mcp-principal}]
gateway: {virtual_tools: false}
`

func readingsConfig(t *testing.T, hidden bool) *Config {
	hd := "false"
	if hidden {
		hd = "true"
	}
	return mustConfig(t, strings.Replace(readingsEnvelope, "%s", hd, 1))
}

// A tool or prompt name is judged in every reading a server may make of
// it (manual 6.7): one that a reading makes a denied name is denied, on
// every method that names one, hidden or visibly as the reading's denial
// is, under the name the client sent.
func TestNameReadingsJudged(t *testing.T) {
	ann := hdr("x-mcp-principal", "ann")
	toolCall := func(name string) string {
		return call("1", "tools/call", `{"name":`+jsondoc.Quote(name)+`,"arguments":{"id":"marker"}}`)
	}
	promptGet := func(name string) string {
		return call("2", "prompts/get", `{"name":`+jsondoc.Quote(name)+`}`)
	}
	complete := func(name string) string {
		return call("3", "completion/complete", `{"ref":{"type":"ref/prompt","name":`+jsondoc.Quote(name)+`},"argument":{"name":"a","value":"b"}}`)
	}
	cases := []struct {
		what    string
		kind    policy.Kind
		name    string
		request func(string) string
		reading string // the denied reading; "" for a call that passes
	}{
		{"fullwidth letter", policy.KindTool, "ｄelete_user", toolCall, "delete_user"},
		{"fullwidth low line", policy.KindTool, "delete＿user", toolCall, "delete_user"},
		{"mathematical letters", policy.KindTool, "𝐝𝐞𝐥𝐞𝐭𝐞_user", toolCall, "delete_user"},
		{"long s, by the capability its reading has", policy.KindTool, "ſhred_disk", toolCall, "shred_disk"},
		{"Kelvin sign", policy.KindTool, "\u212Aill_job", toolCall, "kill_job"},
		{"fullwidth, by the capability its reading has", policy.KindTool, "ｗｉｐｅ_disk", toolCall, "wipe_disk"},
		{"zero width space", policy.KindTool, "delete\u200b_user", toolCall, "delete_user"},
		{"prompt", policy.KindPrompt, "ｉnternal_notes", promptGet, "internal_notes"},
		{"completion of a prompt", policy.KindPrompt, "ｉnternal_notes", complete, "internal_notes"},
		{"allowed beyond ASCII", policy.KindTool, "ｓearch", toolCall, ""},
		{"allowed accented", policy.KindTool, "résumé", toolCall, ""},
		{"ASCII case is significant", policy.KindTool, "Delete_user", toolCall, ""},
		{"a tool's deny is not a prompt's", policy.KindPrompt, "ｄelete_user", promptGet, ""},
	}
	for _, hidden := range []bool{true, false} {
		cfg := readingsConfig(t, hidden)
		for _, c := range cases {
			_, r := post(t, cfg, ann, c.request(c.name))
			switch {
			case c.reading == "":
				if r.Reply != nil || r.Body != nil {
					t.Errorf("%s (%q): not forwarded as sent: reply %v, body %s", c.what, c.name, r.Reply, r.Body)
				}
			case hidden:
				if !sentAsStandIn(cfg, r, c.kind, c.name) || strings.Contains(string(r.Body), "marker") {
					t.Errorf("%s (%q): want its stand-in upstream, got reply %v, body %s", c.what, c.name, r.Reply, r.Body)
				}
			default:
				if r.Reply == nil {
					t.Errorf("%s (%q): forwarded %s, want a denial", c.what, c.name, r.Body)
					continue
				}
				body := string(r.Reply.Body)
				if !strings.Contains(body, `"code":-32003`) || !strings.Contains(body, `"name":`+jsondoc.Quote(c.name)) ||
					!strings.Contains(body, `read as \"`+c.reading+`\"`) {
					t.Errorf("%s (%q): denial %s", c.what, c.name, body)
				}
			}
		}
	}
}

// A listed tool whose reading is denied is left out like the denied one.
func TestNameReadingsFilterLists(t *testing.T) {
	cfg := readingsConfig(t, true)
	list := `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search"},{"name":"ｄelete_user"},{"name":"wipe_disk"},{"name":"ｗipe_disk"},{"name":"résumé"}]}}`
	out := respond(t, cfg, hdr("x-mcp-principal", "ann"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, list)
	got := strings.Join(names(t, out, "tools", "name"), ",")
	if got != "search,résumé" {
		t.Errorf("listed %s, want search,résumé", got)
	}
	prompts := `{"jsonrpc":"2.0","id":2,"result":{"prompts":[{"name":"ｉnternal_notes"},{"name":"summary"}]}}`
	out = respond(t, cfg, hdr("x-mcp-principal", "ann"), `{"jsonrpc":"2.0","id":2,"method":"prompts/list"}`, prompts)
	if got := strings.Join(names(t, out, "prompts", "name"), ","); got != "summary" {
		t.Errorf("listed prompts %s, want summary", got)
	}
}

// A reading the server listed is judged with what the list said of it: a
// tool that a list made an exec tool is denied under its other spellings.
func TestNameReadingsUseLearnedMetadata(t *testing.T) {
	cfg := readingsConfig(t, true)
	ann := hdr("x-mcp-principal", "ann")
	list := `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"format_disk","_meta":{"io.cloudg/privacy":{"capabilities":["exec"]}}}]}}`
	respond(t, cfg, ann, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, list)
	for _, name := range []string{"ｆormat_disk", "format＿disk", "ⓕormat_disk"} {
		_, r := post(t, cfg, ann, call("2", "tools/call", `{"name":`+jsondoc.Quote(name)+`}`))
		if !sentAsStandIn(cfg, r, policy.KindTool, name) {
			t.Errorf("%q: want its stand-in upstream, got reply %v, body %s", name, r.Reply, r.Body)
		}
	}
}

// An ASCII name costs the readings nothing: no allocation.
func TestNameReadingsASCIIFast(t *testing.T) {
	cfg := readingsConfig(t, true)
	s := &exchange{cfg: cfg}
	x := policy.Primitive{Kind: policy.KindTool, Name: "search_customers"}
	d := cfg.Env.Policy.Decide(&s.id.Principal, &x)
	j := s.caller()
	if n := testing.AllocsPerRun(100, func() { _ = j.DecideReadings(&x, d) }); n != 0 {
		t.Errorf("DecideReadings of an ASCII name allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = s.decideConcrete(&x, true) }); n != 0 {
		t.Errorf("decideConcrete of an ASCII tool name allocates %v times", n)
	}
}
