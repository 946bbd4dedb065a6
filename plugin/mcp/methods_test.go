package mcp

import (
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/policy"
)

// TestMethodVocabulary pins what the plugin knows of each MCP method it
// names: every method the per-step tables knew before the vocabulary
// became one table, with the same answers.
func TestMethodVocabulary(t *testing.T) {
	const none = policy.Kind(255)
	cases := []vocabCase{
		{"tools/call", true, policy.KindTool, false, true, "", "", none, "tools_call"},
		{"prompts/get", true, policy.KindPrompt, false, true, "", "", none, "prompts_get"},
		{"resources/read", true, policy.KindResource, false, true, "", "", none, "resources_read"},
		{"resources/subscribe", true, policy.KindResource, false, false, "", "", none, "resources_subscribe"},
		{"resources/unsubscribe", true, policy.KindResource, false, false, "", "", none, "resources_unsubscribe"},
		{"completion/complete", true, policy.KindPrompt, true, true, "", "", none, "completion_complete"},
		{"tools/list", false, none, false, false, "tools", "name", policy.KindTool, "tools_list"},
		{"resources/list", false, none, false, false, "resources", "uri", policy.KindResource, "resources_list"},
		{"resources/templates/list", false, none, false, false, "resourceTemplates", "uriTemplate", policy.KindResourceTemplate, "resources_templates_list"},
		{"prompts/list", false, none, false, false, "prompts", "name", policy.KindPrompt, "prompts_list"},
		{"initialize", false, none, false, false, "", "", none, "initialize"},
		{"ping", false, none, false, false, "", "", none, "ping"},
		{"logging/setLevel", false, none, false, false, "", "", none, "logging_setLevel"},
		{"tasks/list", false, none, false, false, "", "", none, "other"},
		{"tasks/get", false, none, false, false, "", "", none, "other"},
		{"tasks/result", false, none, false, false, "", "", none, "other"},
		{"tasks/cancel", false, none, false, false, "", "", none, "other"},
		{"sampling/createMessage", false, none, false, false, "", "", none, "other"},
		{"elicitation/create", false, none, false, false, "", "", none, "other"},
		{"roots/list", false, none, false, false, "", "", none, "other"},
		{"notifications/progress", false, none, false, false, "", "", none, "notifications"},
		{"notifications/initialized", false, none, false, false, "", "", none, "notifications"},
		{"responses", false, none, false, false, "", "", none, "responses"},
		{"no/such", false, none, false, false, "", "", none, "other"},
	}
	checkVocabulary(t, mcpvocab.Rev2025, cases)
	var order []string
	for _, lm := range listsInOrder(mcpvocab.Rev2025) {
		order = append(order, lm.items)
	}
	if want := "[tools resources resourceTemplates prompts]"; fmtList(order) != want {
		t.Errorf("unattributed results are filtered in the order %v, want %s", order, want)
	}
}

type vocabCase struct {
	method     string
	judged     bool
	target     policy.Kind // none: not judged
	completion bool
	carries    bool // its result carries the primitive's data
	items, key string
	itemKind   policy.Kind
	metric     string
}

// TestMethodVocabulary2026 pins what the plugin knows of 2026-07-28's
// methods: the removed ones are not judged (they reach the server as
// sent), the added ones counted under their own tags.
func TestMethodVocabulary2026(t *testing.T) {
	const none = policy.Kind(255)
	checkVocabulary(t, mcpvocab.Rev2026, []vocabCase{
		{"tools/call", true, policy.KindTool, false, true, "", "", none, "tools_call"},
		{"prompts/get", true, policy.KindPrompt, false, true, "", "", none, "prompts_get"},
		{"resources/read", true, policy.KindResource, false, true, "", "", none, "resources_read"},
		{"completion/complete", true, policy.KindPrompt, true, true, "", "", none, "completion_complete"},
		{"resources/subscribe", false, none, false, false, "", "", none, "resources_subscribe"},
		{"resources/unsubscribe", false, none, false, false, "", "", none, "resources_unsubscribe"},
		{"tools/list", false, none, false, false, "tools", "name", policy.KindTool, "tools_list"},
		{"prompts/list", false, none, false, false, "prompts", "name", policy.KindPrompt, "prompts_list"},
		{"server/discover", false, none, false, false, "", "", none, "server_discover"},
		{"subscriptions/listen", false, none, false, false, "", "", none, "subscriptions_listen"},
		{"initialize", false, none, false, false, "", "", none, "initialize"},
		{"ping", false, none, false, false, "", "", none, "ping"},
		{"tasks/get", false, none, false, false, "", "", none, "other"},
		{"tasks/update", false, none, false, false, "", "", none, "other"},
	})
}

func checkVocabulary(t *testing.T, rev mcpvocab.Revision, cases []vocabCase) {
	t.Helper()
	for _, c := range cases {
		if got := judged(rev, c.method); got != c.judged {
			t.Errorf("judged(%q) = %v, want %v", c.method, got, c.judged)
		}
		if c.judged {
			ref := `{"type":"ref/prompt","name":"p"}`
			doc, err := jsondoc.Parse([]byte(`{"jsonrpc":"2.0","id":1,"method":"` + c.method +
				`","params":{"name":"n","uri":"x://a","ref":` + ref + `,"argument":{"name":"a","value":"v"}}}`))
			if err != nil {
				t.Fatal(err)
			}
			tg, perr := targetOf(rev, doc, &message{Kind: kindRequest, Node: jsondoc.Root, Method: c.method})
			if perr != nil || tg.Kind != c.target || tg.Completion != c.completion {
				t.Errorf("targetOf(%s) = kind %v completion %v (%v), want %v %v", c.method, tg.Kind, tg.Completion, perr, c.target, c.completion)
			}
		}
		if got := resultCarriesPrimitive(rev, c.method); got != c.carries {
			t.Errorf("result of %s carries the primitive's data: %v, want %v", c.method, got, c.carries)
		}
		lm, isList := listOf(rev, c.method)
		if isList != (c.items != "") || lm.items != c.items || lm.key != c.key || isList && lm.kind != c.itemKind {
			t.Errorf("list of %s = %+v %v, want %q %q %v", c.method, lm, isList, c.items, c.key, c.itemKind)
		}
		if got := metricMethod(c.method); got != c.metric {
			t.Errorf("metricMethod(%q) = %q, want %q", c.method, got, c.metric)
		}
	}
}

func fmtList(s []string) string {
	out := "["
	for i, v := range s {
		if i > 0 {
			out += " "
		}
		out += v
	}
	return out + "]"
}

// TestSharedErrorCodes checks what vocab (the 2025 column) is trusted
// for: every error but a missing resource's has the same code and
// standard message under every revision, so the plugin's own errors that
// are not about a missing resource read them there.
func TestSharedErrorCodes(t *testing.T) {
	for e := mcpvocab.Err(0); e < mcpvocab.NumErrs; e++ {
		if e == mcpvocab.ErrResourceNotFound {
			continue
		}
		if a, b := mcpvocab.For(mcpvocab.Rev2025).Error(e), mcpvocab.For(mcpvocab.Rev2026).Error(e); a != b {
			t.Errorf("error %d: 2025 %+v, 2026-07-28 %+v: read it from the request's table", e, a, b)
		}
	}
}
