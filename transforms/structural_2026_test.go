package transforms

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

// specExamples2026 are the specification's own examples of 2026-07-28
// (testdata/spec-2026-07-28, copied verbatim), each as a message and the
// method it answers: a bare result is wrapped in a response, inputRequests
// in the InputRequiredResult that carries them. InputResponses, which a
// client sends, are returned apart.
func specExamples2026(tb testing.TB) (msgs []struct{ name, answers, msg string }, responses []string) {
	answers := map[string]string{
		"CallToolResultResponse": "tools/call", "CompleteResultResponse": "completion/complete",
		"DiscoverResultResponse": "server/discover", "GetPromptResultResponse": "prompts/get",
		"InputRequests": "tools/call", "InputRequiredResult": "tools/call",
		"ListPromptsResultResponse": "prompts/list", "ListResourceTemplatesResultResponse": "resources/templates/list",
		"ListResourcesResultResponse": "resources/list", "ListToolsResultResponse": "tools/list",
		"ReadResourceResultResponse": "resources/read", "SubscriptionsListenResultResponse": "subscriptions/listen",
		"SubscriptionsAcknowledgedNotification": "",
	}
	files, err := filepath.Glob("testdata/spec-2026-07-28/*/*.json")
	if err != nil || len(files) == 0 {
		tb.Fatal("no examples", err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		typ := filepath.Base(filepath.Dir(f))
		msg := string(raw)
		switch typ {
		case "InputResponses":
			responses = append(responses, msg)
			continue
		case "InputRequests":
			msg = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":` + msg + `}}`
		case "InputRequiredResult":
			msg = `{"jsonrpc":"2.0","id":1,"result":` + msg + `}`
		}
		a, ok := answers[typ]
		if !ok {
			tb.Fatalf("%s: which method does it answer?", f)
		}
		msgs = append(msgs, struct{ name, answers, msg string }{filepath.Base(f), a, msg})
	}
	return msgs, responses
}

// TestSpecExamples2026: the specification's examples of 2026-07-28 hold
// no personal data, so redact leaves them byte for byte as they are
// (resultType, cacheScope, requestState, supportedVersions, the server
// requests of inputRequests); with an email under every name that is
// never structural, and as a member name of every object, none comes out.
func TestSpecExamples2026(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [redact]}`)
	pl := compileOutput(t, e, p)
	msgs, responses := specExamples2026(t)
	for _, x := range msgs {
		t.Run(x.name, func(t *testing.T) {
			doc, err := jsondoc.Parse([]byte(x.msg))
			if err != nil {
				t.Fatal(err)
			}
			applyMessage(e, pl, doc, x.answers, &Run{})
			if doc.Changed() {
				t.Errorf("changed:\n%s\n%s", x.msg, doc.Bytes())
			}
			checkPlanted(t, x.msg, func(doc *jsondoc.Doc) { applyMessage(e, pl, doc, x.answers, &Run{}) })
		})
	}
	for i, r := range responses {
		checkPlanted(t, r, func(doc *jsondoc.Doc) { e.Apply(pl, doc, jsondoc.Root, InputResponses, &Run{}) })
		doc, _ := jsondoc.Parse([]byte(r))
		e.Apply(pl, doc, jsondoc.Root, InputResponses, &Run{})
		if doc.Changed() {
			t.Errorf("inputResponses %d changed: %s", i, doc.Bytes())
		}
	}
}

// checkPlanted plants the email under every never-structural name of msg
// (plantData), runs apply and fails if it comes out anywhere.
func checkPlanted(t *testing.T, msg string, apply func(*jsondoc.Doc)) {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(msg), &v); err != nil {
		t.Fatal(err)
	}
	n := 0
	v = plantData(v, "", &n)
	in, _ := json.Marshal(v)
	doc, err := jsondoc.Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	apply(doc)
	var out any
	if err := json.Unmarshal(doc.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	for _, s := range stringValues(out, nil) {
		if strings.Contains(s, planted) {
			t.Errorf("planted value came out raw (%d planted)\nin  %s\nout %s", n, in, doc.Bytes())
			return
		}
	}
}
