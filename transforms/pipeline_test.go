package transforms

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/benchdata"
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms/detect"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

// mapStore is a pseudonym store over a map, for tests that need to see
// what was stored.
type mapStore struct {
	pz     *vault.Pseudonymizer
	stored map[string]string // ns|pseudonym → value
}

func newMapStore() *mapStore {
	return &mapStore{pz: vault.NewPseudonymizer([]byte("test key")), stored: map[string]string{}}
}

func (m *mapStore) Pseudonym(ns, label, value string) string { return m.pz.Pseudonym(ns, label, value) }

func (m *mapStore) Pseudonymise(ns, label, value string) string {
	p := m.pz.Pseudonym(ns, label, value)
	m.stored[ns+"|"+p] = strings.Clone(value) // value may be a view (vault.PseudonymStore)
	return p
}

func (m *mapStore) Restore(ns, s string, keep vault.RestoreCheck) (string, vault.Restored) {
	spans := vault.FindPseudonyms(s, nil)
	values := make([]string, len(spans))
	ok := make([]bool, len(spans))
	for i, sp := range spans {
		values[i], ok[i] = m.stored[ns+"|"+s[sp.Start:sp.End]]
	}
	return vault.RestoreSpans(s, spans, values, ok, keep)
}

func engineFor(t testing.TB, policyYAML string) (*Engine, *policy.Policy, *mapStore) {
	t.Helper()
	p, errs := policy.ParsePolicy([]byte("# yaml\n"+policyYAML), policy.Options{})
	if len(errs) > 0 {
		t.Fatalf("policy: %v", errs)
	}
	store := newMapStore()
	e, err := NewEngine(p, store, []byte("test key"))
	if err != nil {
		t.Fatal(err)
	}
	return e, p, store
}

func compileOutput(t testing.TB, e *Engine, p *policy.Policy) *Pipeline {
	t.Helper()
	pl, err := e.Compile(p.OutputPipeline(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// normJSON re-encodes JSON so comparisons ignore spacing and key order.
func normJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestApplyPayloads(t *testing.T) {
	pz := vault.NewPseudonymizer([]byte("test key"))
	email := pz.Pseudonym("", "EMAIL", "alice@example.com")
	cases := []struct {
		name, policy string
		kind         Payload
		in, want     string
	}{
		{"redact text content", `{name: p, transforms: [redact]}`, ToolResult,
			`{"content":[{"type":"text","text":"mail alice@example.com now"}]}`,
			`{"content":[{"type":"text","text":"mail [REDACTED:EMAIL] now"}]}`},
		{"escaped at sign is found", `{name: p, transforms: [redact]}`, ToolResult,
			`{"content":[{"type":"text","text":"alice\u0040example.com"}]}`,
			`{"content":[{"type":"text","text":"[REDACTED:EMAIL]"}]}`},
		{"pseudonymise structured and text alike", `{name: p, transforms: [pseudonymise]}`, ToolResult,
			`{"content":[{"type":"text","text":"{\"email\":\"alice@example.com\"}"}],"structuredContent":{"email":"alice@example.com","n":3}}`,
			`{"content":[{"type":"text","text":"{\"email\":\"` + email + `\"}"}],"structuredContent":{"email":"` + email + `","n":3}}`},
		{"isError results too", `{name: p, transforms: [redact]}`, ToolResult,
			`{"isError":true,"content":[{"type":"text","text":"no user alice@example.com"}]}`,
			`{"isError":true,"content":[{"type":"text","text":"no user [REDACTED:EMAIL]"}]}`},
		{"fields limit where a step acts", `{name: p, transforms: [{type: redact, options: {fields: [contact.email]}}]}`, ToolResult,
			`{"content":[{"type":"text","text":"alice@example.com"}],"structuredContent":{"contact":{"email":"a@example.com","note":"b@example.com"}}}`,
			`{"content":[{"type":"text","text":"alice@example.com"}],"structuredContent":{"contact":{"email":"[REDACTED:EMAIL]","note":"b@example.com"}}}`},
		{"exclude_fields", `{name: p, transforms: [{type: redact, options: {exclude_fields: ["**.keep"]}}]}`, ToolResult,
			`{"structuredContent":{"a":{"keep":"a@example.com","x":"b@example.com"}}}`,
			`{"structuredContent":{"a":{"keep":"a@example.com","x":"[REDACTED:EMAIL]"}}}`},
		{"project exclude in JSON text", `{name: p, transforms: [{type: project, options: {exclude: [users.ssn]}}]}`, ToolResult,
			`{"content":[{"type":"text","text":"{\"users\":[{\"n\":\"a\",\"ssn\":\"x\"},{\"n\":\"b\",\"ssn\":\"y\"}]}"}]}`,
			`{"content":[{"type":"text","text":"{\"users\":[{\"n\":\"a\"},{\"n\":\"b\"}]}"}]}`},
		{"project include", `{name: p, transforms: [{type: project, options: {include: [a.b, c]}}]}`, ToolResult,
			`{"structuredContent":{"a":{"b":1,"x":2},"c":[1,2],"d":3}}`,
			`{"structuredContent":{"a":{"b":1},"c":[1,2]}}`},
		{"truncate counts characters", `{name: p, transforms: [{type: truncate, options: {max_chars: 3}}]}`, ToolResult,
			`{"content":[{"type":"text","text":"héllo"}]}`,
			`{"content":[{"type":"text","text":"hél…[truncated 2 characters]"}]}`},
		{"mask", `{name: p, transforms: [mask]}`, ToolResult,
			`{"content":[{"type":"text","text":"card 4111 1111 1111 1111"}]}`,
			`{"content":[{"type":"text","text":"card ***************1111"}]}`},
		{"hash", `{name: p, transforms: [{type: hash, options: {length: 8}}]}`, ToolResult,
			`{"content":[{"type":"text","text":"alice@example.com"}]}`,
			`{"content":[{"type":"text","text":"` + NewHasher([]byte("test key")).Hash("EMAIL", "alice@example.com", 8) + `"}]}`},
		{"drop_binary in tool results", `{name: p, transforms: [drop_binary]}`, ToolResult,
			`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"resource","resource":{"uri":"file:///x","blob":"AAAA"}}]}`,
			`{"content":[{"type":"text","text":"[image removed by privacy policy]"},{"type":"text","text":"[blob removed by privacy policy]"}]}`},
		{"drop_binary in resources/read", `{name: p, transforms: [drop_binary]}`, ResourceContents,
			`{"contents":[{"uri":"file:///x","mimeType":"image/png","blob":"AAAA"}]}`,
			`{"contents":[{"uri":"file:///x","mimeType":"text/plain","text":"[blob removed by privacy policy]"}]}`},
		{"resources/read text", `{name: p, transforms: [redact]}`, ResourceContents,
			`{"contents":[{"uri":"file:///notes/alice","text":"bob@example.com"}]}`,
			`{"contents":[{"uri":"file:///notes/alice","text":"[REDACTED:EMAIL]"}]}`},
		{"prompts/get messages", `{name: p, transforms: [redact]}`, PromptResult,
			`{"messages":[{"role":"user","content":{"type":"text","text":"write to bob@example.com"}}]}`,
			`{"messages":[{"role":"user","content":{"type":"text","text":"write to [REDACTED:EMAIL]"}}]}`},
		{"completion values", `{name: p, transforms: [redact]}`, CompletionResult,
			`{"completion":{"values":["bob@example.com","plain"],"total":2}}`,
			`{"completion":{"values":["[REDACTED:EMAIL]","plain"],"total":2}}`},
		{"error message and data", `{name: p, transforms: [redact]}`, ErrorObject,
			`{"code":-32000,"message":"bob@example.com failed","data":{"who":"bob@example.com"}}`,
			`{"code":-32000,"message":"[REDACTED:EMAIL] failed","data":{"who":"[REDACTED:EMAIL]"}}`},
		{"notification strings but not protocol keys", `{name: p, transforms: [redact]}`, ParamsPayload("notifications/progress", false),
			`{"progressToken":"p-bob","message":"bob@example.com","_meta":{"x":"bob@example.com"}}`,
			`{"progressToken":"p-bob","message":"[REDACTED:EMAIL]","_meta":{"x":"[REDACTED:EMAIL]"}}`},
		{"steps run in order on the previous output", `{name: p, transforms: [redact, {type: truncate, options: {max_chars: 5}}]}`, ToolResult,
			`{"content":[{"type":"text","text":"bob@example.com"}]}`,
			`{"content":[{"type":"text","text":"[REDA…[truncated 11 characters]"}]}`},
		{"detect changes nothing", `{name: p, transforms: [detect]}`, ToolResult,
			`{"content":[{"type":"text","text":"bob@example.com"}]}`,
			`{"content":[{"type":"text","text":"bob@example.com"}]}`},
		{"annotate", `{name: p, transforms: [redact, annotate]}`, ToolResult,
			`{"content":[{"type":"text","text":"bob@example.com 10.0.0.1"}],"_meta":{"io.cloudg/privacy":"forged"}}`,
			`{"content":[{"type":"text","text":"[REDACTED:EMAIL] [REDACTED:IP_ADDRESS]"}],"_meta":{"io.cloudg/privacy":{"policy":"p","transforms":["redact","annotate"],"detections":{"EMAIL":1,"IP_ADDRESS":1},"pseudonyms":0}}}`},
		{"detectors option selects", `{name: p, transforms: [{type: redact, options: {detectors: [ipv4]}}]}`, ToolResult,
			`{"content":[{"type":"text","text":"bob@example.com 10.0.0.1"}]}`,
			`{"content":[{"type":"text","text":"bob@example.com [REDACTED:IP_ADDRESS]"}]}`},
		{"min_sensitivity selects", `{name: p, transforms: [{type: redact, options: {min_sensitivity: restricted}}]}`, ToolResult,
			`{"content":[{"type":"text","text":"bob@example.com 4111 1111 1111 1111"}]}`,
			`{"content":[{"type":"text","text":"bob@example.com [REDACTED:CREDIT_CARD]"}]}`},
		// Regressions (manual review): annotate after detect counts once.
		{"annotate reports earlier detections once", `{name: p, transforms: [detect, annotate]}`, ToolResult,
			`{"content":[{"type":"text","text":"bob@example.com"}]}`,
			`{"content":[{"type":"text","text":"bob@example.com"}],"_meta":{"io.cloudg/privacy":{"policy":"p","transforms":["detect","annotate"],"detections":{"EMAIL":1},"pseudonyms":0}}}`},
		{"project leaves server messages alone", `{name: p, transforms: [{type: project, options: {include: [email]}}]}`, ParamsPayload("notifications/progress", false),
			`{"progressToken":"t1","progress":1,"message":"half way"}`,
			`{"progressToken":"t1","progress":1,"message":"half way"}`},
		{"truncate spares roles, types and image data in server requests", `{name: p, transforms: [{type: truncate, options: {max_chars: 4}}]}`, ParamsPayload("sampling/createMessage", true),
			`{"messages":[{"role":"assistant","content":{"type":"image","mimeType":"image/png","data":"AAAAAAAA"}},{"role":"user","content":{"type":"text","text":"long text"}}]}`,
			`{"messages":[{"role":"assistant","content":{"type":"image","mimeType":"image/png","data":"AAAAAAAA"}},{"role":"user","content":{"type":"text","text":"long…[truncated 5 characters]"}}]}`},
		// Regression (review): protocol names deeper in a server's data are
		// user data; only the envelope and the protocol's vocabulary are
		// spared.
		{"protocol names in notification data are user data", `{name: p, transforms: [redact]}`, ParamsPayload("notifications/message", false),
			`{"level":"info","data":{"id":"alice@corp.example","user":{"role":"bob@corp.example","type":"4111 1111 1111 1111","mimeType":"carol@corp.example","blob":"dave@corp.example"},"progressToken":"erin@corp.example"}}`,
			`{"level":"info","data":{"id":"[REDACTED:EMAIL]","user":{"role":"[REDACTED:EMAIL]","type":"[REDACTED:CREDIT_CARD]","mimeType":"[REDACTED:EMAIL]","blob":"[REDACTED:EMAIL]"},"progressToken":"[REDACTED:EMAIL]"}}`},
		// Regression (review): project skipped such text and let it out.
		{"project withholds JSON the strict parser rejects", `{name: p, transforms: [{type: project, options: {exclude: [password]}}]}`, ToolResult,
			`{"content":[{"type":"text","text":"{\"Password\":\"x\",\"password\":\"hunter2\"}"}]}`,
			`{"content":[{"type":"text","text":"[withheld by privacy policy: JSON that cannot be parsed unambiguously]"}]}`},
		{"project withholds JSON behind a byte order mark", `{name: p, transforms: [{type: project, options: {exclude: [password]}}]}`, ToolResult,
			`{"content":[{"type":"text","text":"\ufeff{\"password\":\"hunter2\"}"}]}`,
			`{"content":[{"type":"text","text":"[withheld by privacy policy: JSON that cannot be parsed unambiguously]"}]}`},
		{"fields cannot be dodged by JSON the strict parser rejects", `{name: p, transforms: [{type: redact, options: {fields: [email]}}]}`, ToolResult,
			`{"content":[{"type":"text","text":"{\"email\":\"a@example.com\",\"email\":\"b@example.com\"}"}]}`,
			`{"content":[{"type":"text","text":"{\"email\":\"[REDACTED:EMAIL]\",\"email\":\"[REDACTED:EMAIL]\"}"}]}`},
		// Issue 12: a resource link's uri is what a later resources/read
		// names (judged then); its name is text a client shows.
		{"resource links keep their uri", `{name: p, transforms: [redact]}`, ToolResult,
			`{"content":[{"type":"resource_link","uri":"file:///notes/bob","name":"bob@example.com"}]}`,
			`{"content":[{"type":"resource_link","uri":"file:///notes/bob","name":"[REDACTED:EMAIL]"}]}`},
		{"but not what the detectors find in it", `{name: p, transforms: [redact]}`, ToolResult,
			`{"content":[{"type":"resource_link","uri":"mailto:bob@example.com","name":"n"}]}`,
			`{"content":[{"type":"resource_link","uri":"mailto:[REDACTED:EMAIL]","name":"n"}]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, p, _ := engineFor(t, c.policy)
			doc, err := jsondoc.Parse([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			run := &Run{}
			changed := e.Apply(compileOutput(t, e, p), doc, jsondoc.Root, c.kind, run)
			got := string(doc.Bytes())
			if normJSON(t, got) != normJSON(t, c.want) {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
			if changed != (normJSON(t, c.in) != normJSON(t, c.want)) {
				t.Errorf("changed = %v", changed)
			}
		})
	}
}

func TestApplyBlock(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [{type: block, options: {detectors: ["@secrets"]}}]}`)
	pl := compileOutput(t, e, p)
	for _, c := range []struct {
		text   string
		labels []string
	}{
		{"rotate AKIAYPKZVCGCKMHTXPVQ and 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", []string{"AWS_ACCESS_KEY", "GITHUB_TOKEN"}},
		{"mail bob@example.com", nil},
	} {
		doc, _ := jsondoc.Parse([]byte(`{"content":[{"type":"text","text":` + jsondoc.Quote(c.text) + `}]}`))
		run := &Run{}
		e.Apply(pl, doc, jsondoc.Root, ToolResult, run)
		if run.Blocked != (c.labels != nil) || !reflect.DeepEqual(run.BlockLabels, c.labels) {
			t.Errorf("%q: blocked %v %v, want %v", c.text, run.Blocked, run.BlockLabels, c.labels)
		}
	}
}

func TestPseudonymsAreStoredAndResolved(t *testing.T) {
	e, p, store := engineFor(t, `{name: p, transforms: [pseudonymise]}`)
	doc, _ := jsondoc.Parse([]byte(`{"content":[{"type":"text","text":"call +1 415 555 0100 or mail bob@example.com"}]}`))
	run := &Run{Namespace: "alice"}
	e.Apply(compileOutput(t, e, p), doc, jsondoc.Root, ToolResult, run)
	if run.Pseudonyms != 2 || len(store.stored) != 2 {
		t.Fatalf("pseudonyms %d, stored %v", run.Pseudonyms, store.stored)
	}
	out := string(doc.Bytes())
	if strings.Contains(out, "bob@example.com") {
		t.Fatalf("value leaked: %s", out)
	}
	// The pseudonymised text, sent back as an argument, resolves.
	text, _ := doc.Str(doc.Path(doc.First(doc.Get(jsondoc.Root, "content")), "text"))
	args, _ := jsondoc.Parse([]byte(`{"q":` + jsondoc.Quote(text) + `,"n":1}`))
	in, err := e.Compile(p.InputPipeline(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	run = &Run{Namespace: "alice"}
	e.Apply(in, args, jsondoc.Root, Arguments, run)
	if got := string(args.Bytes()); got != `{"q":"call +1 415 555 0100 or mail bob@example.com","n":1}` || run.Resolved != 2 {
		t.Errorf("depseudonymised %s (%d)", got, run.Resolved)
	}
	// Another namespace resolves nothing.
	args, _ = jsondoc.Parse([]byte(`{"q":` + jsondoc.Quote(text) + `}`))
	run = &Run{Namespace: "mallory"}
	if e.Apply(in, args, jsondoc.Root, Arguments, run) || run.Resolved != 0 {
		t.Errorf("resolved in another namespace: %s", args.Bytes())
	}
}

func TestPreviewStoresNothing(t *testing.T) {
	e, p, store := engineFor(t, `{name: p, transforms: [pseudonymise]}`)
	run := &Run{Preview: true}
	out := e.ApplyText(compileOutput(t, e, p), "bob@example.com", run)
	if out != store.pz.Pseudonym("", "EMAIL", "bob@example.com") || len(store.stored) != 0 {
		t.Errorf("preview %q stored %v", out, store.stored)
	}
}

func TestUntouchedBytesStay(t *testing.T) {
	// Nothing detected: not a byte changes, even in JSON text with odd spacing.
	e, p, _ := engineFor(t, `{name: p, transforms: [pseudonymise, annotate]}`)
	in := `{"content":[{"type":"text","text":"{ \"a\" : 1 }"}], "x": [1, 2]}`
	doc, _ := jsondoc.Parse([]byte(in))
	e.Apply(compileOutput(t, e, p), doc, jsondoc.Root, ToolResult, &Run{})
	got := string(doc.Bytes())
	if !strings.Contains(got, `"text":"{ \"a\" : 1 }"`) || !strings.Contains(got, `[1, 2]`) {
		t.Errorf("untouched parts rewritten: %s", got)
	}
}

// BenchmarkOutputPipeline1KB: the output pipeline alone on a 1 KB tool
// result (parse, standard profile's steps, serialize), with the vault over
// an in-memory store.
func BenchmarkOutputPipeline1KB(b *testing.B) {
	benchOutputPipeline(b, []byte(benchdata.ToolResult1KB))
}

// BenchmarkOutputPipelineMirrored1KB is BenchmarkOutputPipeline1KB on a
// result whose content text is its structuredContent byte for byte, as
// go-sdk servers write one: the text is read as the structure
// (mirrorText).
func BenchmarkOutputPipelineMirrored1KB(b *testing.B) {
	benchOutputPipeline(b, []byte(`{"jsonrpc":"2.0","id":42,"result":`+mirrored(benchdata.StructuredContent1KB, 1)+`}`))
}

// benchOutputPipeline runs the standard profile's output pipeline over
// the result of response src.
func benchOutputPipeline(b *testing.B, src []byte) {
	pol, errs := policy.ParseEnvelope([]byte(benchdata.TransformEnvelope), policy.Options{})
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	p := pol.Policy
	key := []byte(p.Vault.Key)
	e, err := NewEngine(p, vault.New(key, p.Vault, vault.NewMemoryKV(), time.Now), key)
	if err != nil {
		b.Fatal(err)
	}
	pl := compileOutput(b, e, p)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		doc, err := jsondoc.Parse(src)
		if err != nil {
			b.Fatal(err)
		}
		e.Apply(pl, doc, doc.Get(jsondoc.Root, "result"), ToolResult, &Run{})
		if len(doc.Bytes()) == 0 {
			b.Fatal("empty")
		}
	}
}

// A value repeated in one message (text and structuredContent) is
// transformed alike and counted each time, though scanned once.
func TestRepeatedValuesCountedEachTime(t *testing.T) {
	e, p, store := engineFor(t, `{name: p, transforms: [pseudonymise]}`)
	doc, _ := jsondoc.Parse([]byte(`{"content":[{"type":"text","text":"{\"email\":\"alice@example.com\"}"}],"structuredContent":{"email":"alice@example.com","cc":"alice@example.com"}}`))
	run := &Run{}
	e.Apply(compileOutput(t, e, p), doc, jsondoc.Root, ToolResult, run)
	if run.Detections["EMAIL"] != 3 || run.Pseudonyms != 3 || len(store.stored) != 1 {
		t.Errorf("detections %v, pseudonyms %d, stored %d", run.Detections, run.Pseudonyms, len(store.stored))
	}
	if got := string(doc.Bytes()); strings.Count(got, store.pz.Pseudonym("", "EMAIL", "alice@example.com")) != 3 {
		t.Errorf("not every occurrence replaced: %s", got)
	}
}

// FuzzApply: any JSON payload through a pipeline of every kind of step
// leaves a document the strict parser accepts, for every payload kind, and
// never panics.
func FuzzApply(f *testing.F) {
	for _, seed := range []string{
		`{"content":[{"type":"text","text":"{\"a\":\"bob@example.com\"}"},{"type":"image","data":"AA"}],"structuredContent":{"a":["x@example.com"]}}`,
		`{"contents":[{"uri":"file:///x","text":"t","blob":"AA","mimeType":"image/png"}]}`,
		`{"messages":[{"role":"user","content":[{"type":"resource","resource":{"uri":"u","blob":"AA","text":"4111 1111 1111 1111"}}]}]}`,
		`{"completion":{"values":["a@example.com"]}}`,
		`{"code":1,"message":"m","data":"{\"k\":\"10.0.0.1\"}"}`,
		`{"_meta":3,"progressToken":"p","x":{"type":"audio","data":"AA"}}`,
	} {
		f.Add([]byte(seed))
	}
	e, p, _ := engineFor(f, `{name: p, transforms: [drop_binary, {type: project, options: {exclude: ["**.secret"]}}, redact, pseudonymise, {type: truncate, options: {max_chars: 20}}, annotate]}`)
	pl := compileOutput(f, e, p)
	f.Fuzz(func(t *testing.T, data []byte) {
		for kind := ToolResult; kind <= Text; kind++ {
			doc, err := jsondoc.Parse(data)
			if err != nil {
				return
			}
			e.Apply(pl, doc, jsondoc.Root, kind, &Run{})
			if _, err := jsondoc.Parse(doc.Bytes()); err != nil {
				t.Fatalf("kind %d: output does not parse: %v\n%s", kind, err, doc.Bytes())
			}
		}
	})
}

// placeholderReference fills a placeholder the plain way: two
// replacements, {label} first.
func placeholderReference(template string, d detect.Detection) string {
	return strings.ReplaceAll(strings.ReplaceAll(template, "{label}", d.Label), "{detector}", d.Detector)
}

// appendPlaceholder (and Placeholder, which uses it) fill a placeholder as
// the two plain replacements do, in one pass.
func TestAppendPlaceholder(t *testing.T) {
	for _, tc := range []struct{ template, label, detector string }{
		{"[REDACTED:{label}]", "EMAIL", "email"},
		{"<{detector}:{label}>", "CREDIT_CARD", "credit_card"},
		{"no braces", "EMAIL", "email"},
		{"{", "EMAIL", "email"},
		{"}{label", "A", "x"},
		{"{{label}}{{detector}}", "B2", "{label}"},
		{"{detector{label}}", "EMAIL", "email"},
		{"{label}{label}{detector}{detector}", "X_1", "custom_one"},
		{"{lab{label}el}", "EMAIL", "email"},
		{"", "EMAIL", "email"},
	} {
		d := detect.Detection{Label: tc.label, Detector: tc.detector}
		if got, want := string(appendPlaceholder([]byte("pre:"), tc.template, &d)), "pre:"+placeholderReference(tc.template, d); got != want {
			t.Errorf("%q with %s/%s: %q, the replacements give %q", tc.template, tc.label, tc.detector, got, want)
		}
		if got, want := Placeholder(tc.template, d), placeholderReference(tc.template, d); got != want {
			t.Errorf("Placeholder(%q) with %s/%s: %q, the replacements give %q", tc.template, tc.label, tc.detector, got, want)
		}
	}
}

// FuzzAppendPlaceholder: appendPlaceholder against the plain replacements, with
// labels as the policy allows them ([A-Z][A-Z0-9_]*) and any detector name.
func FuzzAppendPlaceholder(f *testing.F) {
	f.Add("[REDACTED:{label}]", "EMAIL", "email")
	f.Add("{detector{label}}", "A", "{label}")
	f.Fuzz(func(t *testing.T, template, label, detector string) {
		if !regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`).MatchString(label) {
			return
		}
		d := detect.Detection{Label: label, Detector: detector}
		if got, want := string(appendPlaceholder(nil, template, &d)), placeholderReference(template, d); got != want {
			t.Errorf("%q: %q, the replacements give %q", template, got, want)
		}
	})
}

// The pipeline scans strings as views of the message's bytes: what the
// vaults keep of a message (values, pseudonyms to resolve) must not change
// when those bytes are reused for the next message.
func TestVaultsKeepNoViewOfTheMessage(t *testing.T) {
	p, errs := policy.ParsePolicy([]byte(`# yaml
{name: p, transforms: [pseudonymise]}`), policy.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	key := []byte("test key")
	stored := vault.New(key, p.Vault, vault.NewMemoryKV(), time.Now)
	sealed := newSealed(t, [][]byte{sealedKeyA}, p.Vault, "", nil, time.Now)
	for _, store := range []vault.PseudonymStore{stored, sealed} {
		e, err := NewEngine(p, store, key)
		if err != nil {
			t.Fatal(err)
		}
		pl := compileOutput(t, e, p)
		src := []byte(`{"content":[{"type":"text","text":"mail bob@example.com"}],"structuredContent":{"to":"carol@example.org"}}`)
		doc, err := jsondoc.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		e.Apply(pl, doc, jsondoc.Root, ToolResult, &Run{})
		out := string(doc.Bytes())
		bob, carol := store.Pseudonym("", "EMAIL", "bob@example.com"), store.Pseudonym("", "EMAIL", "carol@example.org")
		if !strings.Contains(out, bob) || !strings.Contains(out, carol) {
			t.Fatalf("%T: not pseudonymised: %s", store, out)
		}
		// The pseudonyms come back in a request, are resolved (and
		// cached), and that request's bytes are reused.
		in := []byte(`{"a":"` + bob + `","b":"` + carol + `"}`)
		back, err := jsondoc.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		depseudo, err := e.Compile([]policy.PipelineEntry{{ID: policy.DepseudonymiseID, Type: policy.DepseudonymiseID}})
		if err != nil {
			t.Fatal(err)
		}
		e.Apply(depseudo, back, jsondoc.Root, Arguments, &Run{})
		if got := string(back.Bytes()); got != `{"a":"bob@example.com","b":"carol@example.org"}` {
			t.Fatalf("%T: restored %s", store, got)
		}
		for i := range src {
			src[i] = 'x'
		}
		for i := range in {
			in[i] = 'x'
		}
		for value, pseudonym := range map[string]string{"bob@example.com": bob, "carol@example.org": carol} {
			if got, _ := store.Restore("", pseudonym, nil); got != value {
				t.Errorf("%T: %s resolves to %q after the message's bytes were reused", store, pseudonym, got)
			}
			if got := store.Pseudonymise("", "EMAIL", value); got != pseudonym {
				t.Errorf("%T: %s pseudonymised again as %q", store, value, got)
			}
		}
	}
}

// One engine transforms messages in parallel (tests, the CLI): the
// scratch each message takes from the engine's pool is its own.
func TestApplyInParallel(t *testing.T) {
	pol, errs := policy.ParseEnvelope([]byte(benchdata.TransformEnvelope), policy.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	p := pol.Policy
	key := []byte(p.Vault.Key)
	e, err := NewEngine(p, vault.New(key, p.Vault, vault.NewMemoryKV(), time.Now), key)
	if err != nil {
		t.Fatal(err)
	}
	pl := compileOutput(t, e, p)
	src := []byte(benchdata.ToolResult1KB)
	transform := func() string {
		doc, err := jsondoc.Parse(src)
		if err != nil {
			t.Error(err)
			return ""
		}
		e.Apply(pl, doc, doc.Get(jsondoc.Root, "result"), ToolResult, &Run{})
		return string(doc.Bytes())
	}
	want := transform()
	if !strings.Contains(want, "[REDACTED:STRIPE_KEY]") || strings.Contains(want, "alice.martin@example.com") {
		t.Fatalf("not transformed: %s", want)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				if got := transform(); got != want {
					t.Errorf("in parallel: %s", got)
					return
				}
			}
		})
	}
	wg.Wait()
}

// FuzzMemo: a message transformed with its scans memoised (a result
// with a JSON text and structuredContent) comes out exactly as without the
// memo, with the same counts, for the standard profile's steps and for
// steps that share detectors, mask, hash, block and truncate. And a JSON
// text that repeats structuredContent byte for byte (mirrorText: every
// input that is JSON becomes one), or repeats parts of it (twins,
// pairTexts: the seeds' texts, mutated), comes out as when it is parsed
// and walked on its own, with the same counts (a pipeline with a block
// step is not mirrorable: its labels would depend on the places' order).
func FuzzMemo(f *testing.F) {
	for _, seed := range []string{
		benchdata.ToolResult1KB[strings.Index(benchdata.ToolResult1KB, `"result":`)+len(`"result":`) : len(benchdata.ToolResult1KB)-1],
		`{"content":[{"type":"text","text":"{\"a\":\"bob@example.com\",\"b\":\"bob@example.com x\"}"}],"structuredContent":{"a":"bob@example.com","b":["bob@example.com x"]}}`,
		`{"content":[{"type":"text","text":"{\"k\":\"sk_live_4eC39HqLyjWDarjtT1zdp7dc\"}"}],"structuredContent":{"k":"sk_live_4eC39HqLyjWDarjtT1zdp7dc","n":4111111111111111}}`,
		`{"content":[{"type":"text","text":"{\"x\":\"aaaaaaaaQQaaaaaaaa\",\"y\":\"aaaaaaaaRRaaaaaaaa\"}"}],"structuredContent":{"x":"aaaaaaaaRRaaaaaaaa","y":"aaaaaaaaQQaaaaaaaa"}}`,
		`{"code":1,"message":"m","data":"{\"k\":\"10.0.0.1\"}"}`,
		`{"bob@example.com":"x","BOB@example.com":"y","a":[4111111111111111,"data:text/plain;base64,Ym9iQGV4YW1wbGUuY29t",{"k":"sk_live_4eC39HqLyjWDarjtT1zdp7dc"}]}`,
		mirrored(`{"customers":[{"email":"alice.martin@example.com","phone":"+44 20 7946 0958","notes":"card 4111 1111 1111 1111"}]}`, 2),
		// A block step fires on the first string of the first place it
		// walks: a twin (a) is left to structuredContent, so a text walked
		// with twins would block on b, with another label.
		`{"content":[{"type":"text","text":"{\"a\":\"AKIAYPKZVCGCKMHTXPVQ\",\"b\":\"sk_live_4eC39HqLyjWDarjtT1zdp7dc\"}"}],"structuredContent":{"a":"AKIAYPKZVCGCKMHTXPVQ","b":"x"}}`,
		// Lists long enough for their protocol text's scans, clean ones
		// included, to be memoised (longText), findings repeated.
		responseResult(benchdata.ToolsListN(40)),
		`{"tools":[` + strings.Repeat(`{"name":"t","description":"Mail bob@example.com or call +44 20 7946 0958","inputSchema":{"type":"object","properties":{"id":{"type":"string","description":"Record id, e.g. 4111111111111111"}}}},`, 30) + `{"name":"u"}]}`,
	} {
		f.Add([]byte(seed))
	}
	const (
		fast     = iota // memo and mirror
		memoOnly        // noMirror
		plain           // noMemo, noMirror
	)
	var engines [][3]*Engine
	var pipelines []*Pipeline
	for _, yaml := range []string{
		`{name: p, transforms: [{type: redact, options: {detectors: ["@secrets"]}}, {type: pseudonymise, options: {detectors: ["@pii"]}}]}`,
		`{name: p, transforms: [detect, {type: mask, options: {detectors: [email]}}, {type: hash, options: {fields: ["a"]}}, {type: redact, options: {exclude_fields: ["x"]}}, {type: truncate, options: {max_chars: 12}}, annotate]}`,
		`{name: p, transforms: [{type: block, options: {detectors: [stripe_key, aws_access_key]}}, pseudonymise]}`,
		`{name: p, transforms: [drop_binary, detect, {type: mask, options: {detectors: [email]}}, {type: hash, options: {detectors: [ipv4]}}, {type: truncate, options: {max_chars: 12}}, redact, annotate]}`,
		`{name: p, transforms: [{type: project, options: {exclude: ["**.k"]}}, pseudonymise]}`,
	} {
		var set [3]*Engine
		var pl *Pipeline
		for i := range set {
			e, p, _ := engineFor(f, yaml)
			e.noMemo, e.noMirror = i == plain, i != fast
			set[i], pl = e, compileOutput(f, e, p)
		}
		engines, pipelines = append(engines, set), append(pipelines, pl)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := jsondoc.Parse(data); err != nil {
			return
		}
		inputs := [][]byte{data}
		if data[0] == '{' || data[0] == '[' { // data is JSON: mirrored by a JSON text
			inputs = append(inputs, []byte(mirrored(string(data), 1)))
		}
		for _, in := range inputs {
			for k, set := range engines {
				for kind := ToolResult; kind <= Text; kind++ {
					var out [3]string
					var runs [3]Run
					for i, e := range set {
						doc, err := jsondoc.Parse(in)
						if err != nil {
							t.Fatal(err)
						}
						e.Apply(pipelines[k], doc, jsondoc.Root, kind, &runs[i])
						out[i] = string(doc.Bytes())
					}
					if out[memoOnly] != out[plain] || !reflect.DeepEqual(runs[memoOnly], runs[plain]) {
						t.Fatalf("pipeline %d, kind %d: memoised\n%s\n%+v\nnot\n%s\n%+v", k, kind, out[memoOnly], runs[memoOnly], out[plain], runs[plain])
					}
					if out[fast] != out[plain] || !reflect.DeepEqual(runs[fast], runs[plain]) {
						t.Fatalf("pipeline %d, kind %d: mirrored\n%s\n%+v\nnot\n%s\n%+v", k, kind, out[fast], runs[fast], out[plain], runs[plain])
					}
				}
			}
		}
	})
}

// responseResult is the result of a JSON-RPC response.
func responseResult(resp []byte) string {
	s := string(resp)
	return s[strings.Index(s, `"result":`)+len(`"result":`) : len(s)-1]
}

// mirrored is a tool result whose structuredContent is the JSON data and
// whose content has n text items of it, as go-sdk servers write one.
func mirrored(data string, n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = `{"type":"text","text":` + jsondoc.Quote(data) + `}`
	}
	return `{"content":[` + strings.Join(items, ",") + `],"structuredContent":` + data + `}`
}

// A JSON text that is its structuredContent byte for byte is read as
// that structure (mirrorText), not parsed again; one a byte away, or
// with a pipeline whose steps could tell the two apart (project, fields),
// is parsed.
func TestMirroredTexts(t *testing.T) {
	const data = `{"email":"bob@example.com","n":4111111111111111}`
	std := `{name: p, transforms: [redact, pseudonymise]}`
	for _, c := range []struct {
		policy, payload string
		mirrors         int
	}{
		{std, mirrored(data, 1), 1},
		{std, mirrored(data, 3), 3},
		{std, strings.Replace(mirrored(data, 1), `"n":4111111111111111}`, `"n":4111111111111112}`, 1), 0},
		{std, strings.Replace(mirrored(data, 1), `}"}`, `} "}`, 1), 0},
		{`{name: p, transforms: [{type: project, options: {exclude: ["n"]}}, pseudonymise]}`, mirrored(data, 1), 0},
		{`{name: p, transforms: [{type: pseudonymise, options: {fields: ["email"]}}]}`, mirrored(data, 1), 0},
		{`{name: p, transforms: [{type: block, options: {detectors: [stripe_key]}}, pseudonymise]}`, mirrored(data, 1), 0},
	} {
		e, p, _ := engineFor(t, c.policy)
		pl := compileOutput(t, e, p)
		doc, err := jsondoc.Parse([]byte(c.payload))
		if err != nil {
			t.Fatal(err)
		}
		ts := collect(doc, jsondoc.Root, ToolResult, nil)
		readTexts(doc, ts, nil, pl.mirrorable)
		if pl.mirrorable {
			pairTexts(doc, ts, nil)
		}
		n := 0
		for i := range ts {
			if ts[i].kind == mirrorText {
				n++
				// The source counts its mirrors: one share, at its root.
				src := &ts[ts[i].mirror]
				if src.kind != document || len(src.shares) != 1 || src.shares[0].node != src.node || src.shares[0].twins != c.mirrors {
					t.Errorf("%s: mirror of %+v", c.payload, src)
				}
			}
		}
		if n != c.mirrors {
			t.Errorf("%s with %s: %d mirrored texts, want %d", c.payload, c.policy, n, c.mirrors)
		}
	}
}

// The memo's hash reads a string's length and first and last 8 bytes:
// strings alike there are still told apart, and a crowded neighbourhood
// is simply not memoised.
func TestMemoTable(t *testing.T) {
	var m memoTable
	m.slots = make([]memoEntry, memoSlots)
	const a, b = 1, anyScanMemo
	one := []detect.Detection{{Label: "EMAIL", Start: 1, End: 2}}
	m.add(a, "aaaaaaaaQQaaaaaaaa", one)
	m.add(a, "aaaaaaaaRRaaaaaaaa", nil)
	if got, ok := m.lookup(a, "aaaaaaaaQQaaaaaaaa"); !ok || !reflect.DeepEqual(got, one) {
		t.Errorf("QQ: %v %v", got, ok)
	}
	if got, ok := m.lookup(a, "aaaaaaaaRRaaaaaaaa"); !ok || len(got) != 0 {
		t.Errorf("RR: %v %v", got, ok)
	}
	for _, s := range []string{"aaaaaaaaSSaaaaaaaa", "aaaaaaaaQQaaaaaaa", ""} {
		if _, ok := m.lookup(a, s); ok {
			t.Errorf("%q found", s)
		}
	}
	if _, ok := m.lookup(b, "aaaaaaaaQQaaaaaaaa"); ok {
		t.Error("found under another selection")
	}
	// More colliding strings than probes: the rest are not memoised.
	for i := range 2 * memoProbes {
		m.add(b, "bbbbbbbb"+strconv.Itoa(i%10)+"bbbbbbbb", nil)
	}
	for i := range 10 {
		s := "bbbbbbbb" + strconv.Itoa(i) + "bbbbbbbb"
		if _, ok := m.lookup(b, s); ok != (i < memoProbes) {
			t.Errorf("%s: memoised %v", s, ok)
		}
	}
	m.reset()
	if _, ok := m.lookup(a, "aaaaaaaaQQaaaaaaaa"); ok || len(m.used) != 0 || len(m.found) != 0 {
		t.Error("not reset")
	}
	for i := range m.slots {
		if m.slots[i] != (memoEntry{}) {
			t.Fatalf("slot %d kept %+v", i, m.slots[i])
		}
	}
}

// Strings carved from a scratch stay as they were while later ones are
// carved, new chunks begin, and the scratch serves other messages.
func TestCarvedStringsStay(t *testing.T) {
	var sc scratch
	var kept []string
	var want []string
	for i := range 3 * carveChunk / 10 {
		b := []byte(strconv.Itoa(i) + "-" + strings.Repeat("x", i%7))
		kept = append(kept, sc.carve(b))
		want = append(want, string(b))
		b[0] = '!' // the caller's buffer is reused
	}
	long := bytes.Repeat([]byte("y"), maxCarved+1)
	if s := sc.carve(long); s != string(long) || len(sc.strs) > carveChunk {
		t.Errorf("long string: %d bytes", len(s))
	}
	if sc.carve(nil) != "" {
		t.Error("empty")
	}
	for i := range kept {
		if kept[i] != want[i] {
			t.Fatalf("string %d: %q, want %q", i, kept[i], want[i])
		}
	}
}

// A message reads the vault's clock once, at its first pseudonym; the
// next message reads it again, and its mappings are used at that time:
// past the TTL of the first message's time, they still resolve.
func TestMessageReadsTheVaultClockOnce(t *testing.T) {
	p, errs := policy.ParsePolicy([]byte(`# yaml
{name: p, transforms: [pseudonymise], vault: {ttl_seconds: 60}}`), policy.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	// The stored vault itself, and as the plugin issues stored pseudonyms
	// beside sealed ones (StoreIssuing).
	for _, form := range []string{"vault", "sealed-vault-store-issuing"} {
		t.Run(form, func(t *testing.T) { messageReadsClockOnce(t, p, form) })
	}
}

func messageReadsClockOnce(t *testing.T, p *policy.Policy, form string) {
	clock, reads := time.Unix(1e9, 0), 0
	now := func() time.Time { reads++; return clock }
	key := []byte("test key, 32 bytes long ........")
	stored := vault.New(key, p.Vault, vault.NewMemoryKV(), now)
	var store vault.PseudonymStore = stored
	if form != "vault" {
		sealed, err := vault.NewSealed([][]byte{key}, p.Vault, "", stored, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		store = sealed.StoreIssuing()
	}
	e, err := NewEngine(p, store, key)
	if err != nil {
		t.Fatal(err)
	}
	pl := compileOutput(t, e, p)
	apply := func(src string) string {
		doc, err := jsondoc.Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		e.Apply(pl, doc, jsondoc.Root, ToolResult, &Run{})
		return string(doc.Bytes())
	}
	msg := `{"structuredContent":{"a":"a@example.com","b":"b@example.com","c":"c@example.org"}}`
	first := apply(msg)
	if reads != 1 {
		t.Errorf("one message of three pseudonyms read the clock %d times", reads)
	}
	clock = clock.Add(50 * time.Second)
	if second := apply(msg); second != first || reads != 2 {
		t.Errorf("second message: %s, %d reads", second, reads)
	}
	clock = clock.Add(50 * time.Second) // 100 s after the first, 50 after the second
	for _, v := range []string{"a@example.com", "b@example.com", "c@example.org"} {
		if got, _ := stored.Resolve("", stored.Pseudonym("", "EMAIL", v)); got != v {
			t.Errorf("%s: resolves to %q after the second message refreshed it", v, got)
		}
	}
}

// A message's counts wait in its scratch, and overflow to the map past
// maxCounts labels; flushCounts leaves Detections as counting into the
// map would.
func TestCountsFlushed(t *testing.T) {
	run := &Run{sc: &scratch{}}
	want := map[string]int{}
	for i := range 3 * maxCounts {
		label := "L" + strconv.Itoa(i%(maxCounts+8))
		run.count(label)
		want[label]++
	}
	run.flushCounts()
	run.count("L0")
	want["L0"]++
	run.flushCounts()
	if !reflect.DeepEqual(run.Detections, want) || len(run.sc.counts) != 0 {
		t.Errorf("%v, want %v", run.Detections, want)
	}
}

// TestJSONTextDocsReused: the documents JSON texts are parsed into are
// reused from message to message (the scratch keeps them released): a
// run of messages through one engine, with one, several or no JSON
// texts, texts the strict parse refuses and texts that change or not,
// gives each what a fresh engine gives it.
func TestJSONTextDocsReused(t *testing.T) {
	const pol = `{name: p, transforms: [pseudonymise, {type: project, options: {exclude: ["$.secret"]}}]}`
	text := func(s string) string { return `{"type":"text","text":` + jsondoc.Quote(s) + `}` }
	results := []string{
		`{"content":[` + text(`{"email":"a@example.com","secret":"x"}`) + `]}`,
		`{"content":[` + text(`{"n":1}`) + `,` + text(`{"mail":"b@example.org","secret":"y"}`) + `,` + text(`not json`) + `]}`,
		`{"content":[` + text(`{"a":1,"a":2,"mail":"c@example.net"}`) + `]}`,
		`{"content":[` + text(`{"x":"plain"}`) + `],"structuredContent":{"x":"plain"}}`,
		`{"content":[]}`,
		`{"content":[` + text(`[{"email":"d@example.com"},{"email":"d@example.com"}]`) + `]}`,
	}
	apply := func(e *Engine, p *policy.Policy, src string) string {
		doc, err := jsondoc.Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		e.Apply(compileOutput(t, e, p), doc, jsondoc.Root, ToolResult, &Run{})
		return string(doc.Bytes())
	}
	shared, sp, _ := engineFor(t, pol)
	for round := range 3 {
		for i, src := range results {
			fresh, fp, _ := engineFor(t, pol)
			if got, want := apply(shared, sp, src), apply(fresh, fp, src); got != want {
				t.Errorf("round %d, result %d: %s, a fresh engine gives %s", round, i, got, want)
			}
		}
	}
}

// pairTexts pairs the subtrees a JSON text repeats byte for byte at the
// same place of structuredContent (member by member of the same name and
// position, element by element), and no others.
func TestPairTexts(t *testing.T) {
	result := func(text, structured string) string {
		return `{"content":[{"type":"text","text":` + jsondoc.Quote(text) + `}],"structuredContent":` + structured + `}`
	}
	bench := benchdata.ToolResult1KB[strings.Index(benchdata.ToolResult1KB, `"result":`)+len(`"result":`) : len(benchdata.ToolResult1KB)-1]
	for _, c := range []struct {
		payload string
		twins   []string
	}{
		{bench, []string{
			`{"id":"c-1","name":"Alice Martin","email":"alice.martin@example.com","phone":"+44 20 7946 0958","tier":"gold","since":"2019-04-01","notes":"prefers email, renewal due in March"}`,
			`"c-2"`, `"Bob Keller"`, `"bob.keller@example.org"`, `"+1 415 555 0132"`, `"silver"`, `"2021-11-15"`, `2`,
		}},
		{result(`{"b":"x","a":"y"}`, `{"a":"y","b":"x"}`), nil},                 // same members elsewhere: not searched for
		{result(`{"a":"y","b":"x","c":1}`, `{"a":"y","c":1}`), []string{`"y"`}}, // position and name
		{result(`[1,[2,3],{"k":4}]`, `[1,[2,5],{"k":4},6]`), []string{`1`, `2`, `{"k":4}`}},
		{result(`[{"a":1}]`, `{"a":1}`), nil},
		{result(`{"a":"b\u0063"}`, `{"a":"bc"}`), nil}, // one value, written otherwise
		{`{"content":[{"type":"text","text":"[1]"},{"type":"text","text":"[1,2]"}],"structuredContent":[1,3]}`, []string{`1`, `1`}},
	} {
		doc, err := jsondoc.Parse([]byte(c.payload))
		if err != nil {
			t.Fatal(err)
		}
		ts := collect(doc, jsondoc.Root, ToolResult, nil)
		readTexts(doc, ts, nil, false)
		pairTexts(doc, ts, nil)
		var got []string
		for i := range ts {
			if ts[i].kind != jsonText {
				continue
			}
			for _, tw := range ts[i].shares {
				if string(ts[i].sub.Raw(tw.node)) != string(doc.Raw(tw.src)) {
					t.Errorf("%s: twin %s of %s", c.payload, ts[i].sub.Raw(tw.node), doc.Raw(tw.src))
				}
				got = append(got, string(ts[i].sub.Raw(tw.node)))
			}
		}
		if !reflect.DeepEqual(got, c.twins) {
			t.Errorf("%s: twins %q, want %q", c.payload, got, c.twins)
		}
		// Each source once, in node order, counting its twins.
		sources := 0
		for i := range ts {
			for k, sh := range ts[i].shares {
				if ts[i].kind == document {
					sources += sh.twins
					if k > 0 && ts[i].shares[k-1].node >= sh.node {
						t.Errorf("%s: sources out of order", c.payload)
					}
				}
			}
		}
		if sources != len(c.twins) {
			t.Errorf("%s: sources count %d twins, want %d", c.payload, sources, len(c.twins))
		}
	}
}
