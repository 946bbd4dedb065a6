package mcp

import (
	"slices"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/policy"
)

// rulesEnvelope gives listed tools and a prompt rules of their own: a
// project step that drops the salary and a bucket of two calls an hour
// (issue 32, item 3; manual 6.7).
const rulesEnvelope = `
policy:
  name: names
  hide_denied: true
  rules:
    - name: exports
      match: {names: [export_customers, kyc_report, address_report, file_report, EXPORT_CUSTOMERS, summary]}
      transforms: [{type: project, options: {exclude: [salary]}}]
      rate_limits: [{rate: 1, per: hour, burst: 2}]
server:
  learn_from_lists: true
identity:
  principal: [{header: x-mcp-principal}]
gateway: {virtual_tools: false}
`

// rdSpellings are names a server that normalises names (NFKC, case
// folding, default ignorables dropped) reads as a listed tool or prompt
// with rules, one per kind of reading manual 6.7 lists.
var rdSpellings = []struct{ what, sent, read string }{
	{"fullwidth letter (NFKC)", "ｅxport_customers", "export_customers"},
	{"fullwidth letters (NFKC)", "ｅｘｐｏｒｔ_customers", "export_customers"},
	{"fullwidth low line (NFKC)", "export＿customers", "export_customers"},
	{"mathematical bold (NFKC)", "𝐞𝐱𝐩𝐨𝐫𝐭_customers", "export_customers"},
	{"long s (NFKC, case folding)", "export_cuſtomers", "export_customers"},
	{"Kelvin sign (NFC, lower case)", "\u212Ayc_report", "kyc_report"},
	{"sharp s (full case folding)", "addreß_report", "address_report"},
	{"ligature fi (NFKC, full lower case)", "ﬁle_report", "file_report"},
	{"fullwidth, upper case (NFKC)", "ｅXPORT_CUSTOMERS", "EXPORT_CUSTOMERS"},
	{"soft hyphen (default ignorable)", "export\u00ad_customers", "export_customers"},
	{"zero width space (default ignorable)", "export_\u200bcustomers", "export_customers"},
	{"variation selector (default ignorable)", "export_customers\ufe0f", "export_customers"},
}

func rdListed(t *testing.T, cfg *Config) {
	t.Helper()
	list := `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"export_customers"},{"name":"kyc_report"},{"name":"address_report"},{"name":"file_report"},{"name":"EXPORT_CUSTOMERS"},{"name":"search"}]}}`
	respond(t, cfg, hdr("x-mcp-principal", "ann"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, list)
}

func rdCall(name string) string {
	return call("5", "tools/call", `{"name":`+jsondoc.Quote(name)+`,"arguments":{}}`)
}

const rdSalary = `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"{\"name\":\"c-1\",\"salary\":91000}"}],"structuredContent":{"name":"c-1","salary":91000}}}`

// A call whose name reads as a listed tool runs under that tool's rules:
// its project step drops the salary, whatever reading leads there.
func TestNameReadingsTakeTheToolsTransforms(t *testing.T) {
	cfg := mustConfig(t, rulesEnvelope)
	rdListed(t, cfg)
	ann := hdr("x-mcp-principal", "ann")
	for _, c := range append(rdSpellings, struct{ what, sent, read string }{"as listed", "export_customers", "export_customers"}) {
		out := respond(t, cfg, ann, rdCall(c.sent), rdSalary)
		if strings.Contains(out, "salary") || strings.Contains(out, "91000") || !strings.Contains(out, "c-1") {
			t.Errorf("%s: %q, read as %q, answered %s: want its rule's project step", c.what, c.sent, c.read, out)
		}
		// A fresh caller each time: the bucket is the next test's.
		ann = hdr("x-mcp-principal", "ann-"+c.read+"-"+c.what)
	}
	// A name none of whose readings has the rule keeps the salary.
	if out := respond(t, cfg, ann, rdCall("ｓearch"), rdSalary); !strings.Contains(out, "91000") {
		t.Errorf("ｓearch: %s, want the salary: no rule matches it", out)
	}
}

// A call whose name reads as a listed tool takes from that tool's
// buckets: once export_customers's bucket is empty, no spelling of it
// runs, and each spelling empties the tool's bucket as a call of it would.
func TestNameReadingsTakeTheToolsBuckets(t *testing.T) {
	for _, c := range rdSpellings {
		cfg := mustConfig(t, rulesEnvelope)
		rdListed(t, cfg)
		ann := hdr("x-mcp-principal", "ann")
		for i := 0; i < 2; i++ {
			if _, r := post(t, cfg, ann, rdCall(c.read)); r.Reply != nil {
				t.Fatalf("%s: %q call %d refused: %s", c.what, c.read, i, r.Reply.Body)
			}
		}
		if _, r := post(t, cfg, ann, rdCall(c.sent)); r.Reply == nil || !strings.Contains(string(r.Reply.Body), `"code":-32029`) {
			t.Errorf("%s: %q ran after %q's bucket was empty (%v)", c.what, c.sent, c.read, r.Reply)
		}

		// The other way round: the spelling takes the tool's tokens.
		bob := hdr("x-mcp-principal", "bob")
		for i := 0; i < 2; i++ {
			if _, r := post(t, cfg, bob, rdCall(c.sent)); r.Reply != nil {
				t.Fatalf("%s: %q call %d refused: %s", c.what, c.sent, i, r.Reply.Body)
			}
		}
		if _, r := post(t, cfg, bob, rdCall(c.read)); r.Reply == nil || !strings.Contains(string(r.Reply.Body), `"code":-32029`) {
			t.Errorf("%s: %q ran after two calls of %q took its tokens (%v)", c.what, c.read, c.sent, r.Reply)
		}
	}
}

// Prompts too: prompts/get of a spelling of a prompt with rules takes its
// bucket and its pipeline.
func TestNameReadingsTakeThePromptsRules(t *testing.T) {
	cfg := mustConfig(t, rulesEnvelope)
	ann := hdr("x-mcp-principal", "ann")
	get := func(name string) string {
		return call("6", "prompts/get", `{"name":`+jsondoc.Quote(name)+`}`)
	}
	for i := 0; i < 2; i++ {
		if _, r := post(t, cfg, ann, get("summary")); r.Reply != nil {
			t.Fatalf("summary call %d refused: %s", i, r.Reply.Body)
		}
	}
	for _, name := range []string{"ｓummary", "ſummary", "sum\u00admary"} {
		if _, r := post(t, cfg, ann, get(name)); r.Reply == nil || !strings.Contains(string(r.Reply.Body), `"code":-32029`) {
			t.Errorf("prompts/get %q ran after summary's bucket was empty (%v)", name, r.Reply)
		}
	}
}

// A hidden name beyond ASCII takes the tokens a missing one of that name
// takes: those of its readings too.
func TestNameReadingsHiddenTakeTheReadingsBuckets(t *testing.T) {
	cfg := mustConfig(t, strings.Replace(rulesEnvelope, "  rules:\n", "  deny_tools: [\"ｅxport_*\"]\n  rules:\n", 1))
	ann := hdr("x-mcp-principal", "ann")
	for i := 0; i < 2; i++ {
		if _, r := post(t, cfg, ann, rdCall("export_customers")); r.Reply != nil {
			t.Fatalf("export_customers call %d refused: %s", i, r.Reply.Body)
		}
	}
	// Hidden: a missing ｅxport_customers would be refused by the
	// bucket of export_customers, so the hidden one is too.
	if _, r := post(t, cfg, ann, rdCall("ｅxport_customers")); r.Reply == nil || !strings.Contains(string(r.Reply.Body), `"code":-32029`) {
		t.Errorf("hidden ｅxport_customers: %v, want -32029 as for a missing name", r.Reply)
	}
}

// A listed name beyond ASCII shares its bucket with its other normal
// forms: résumé decomposed (NFD) is résumé composed to a server that
// normalises, and stops where its bucket is empty.
func TestNameReadingsListedBeyondASCIIShareABucket(t *testing.T) {
	cfg := mustConfig(t, strings.Replace(rulesEnvelope, "summary]}", "summary, \"résumé\"]}", 1))
	list := `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"résumé"}]}}`
	respond(t, cfg, hdr("x-mcp-principal", "ann"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, list)
	ann := hdr("x-mcp-principal", "ann")
	for i := 0; i < 2; i++ {
		if _, r := post(t, cfg, ann, rdCall("résumé")); r.Reply != nil {
			t.Fatalf("résumé call %d refused: %s", i, r.Reply.Body)
		}
	}
	if _, r := post(t, cfg, ann, rdCall("re\u0301sume\u0301")); r.Reply == nil || !strings.Contains(string(r.Reply.Body), `"code":-32029`) {
		t.Errorf("résumé decomposed ran after résumé's bucket was empty (%v)", r.Reply)
	}
}

// A call takes the buckets of its name's readings of ASCII characters
// and of those the catalog knows, not of every reading: a name mixing
// characters of special case mappings has dozens, and a bucket for each
// would let a few calls fill the slot table.
func TestNameReadingsBucketsBounded(t *testing.T) {
	cfg := mustConfig(t, rulesEnvelope)
	rdListed(t, cfg)
	s := NewStream(cfg)
	s.OnRequestHeaders(hdr("x-mcp-principal", "ann"), "POST", "/mcp", false)
	for _, c := range []struct {
		name string
		want []string // among the buckets' readings
		most int
	}{
		{"ｅxport_customers", []string{"export_customers"}, 2},
		{"ﬁßΐ_ｅxport", nil, 0},                // 60 readings, none of ASCII, none listed
		{"Straßenverzeichnis_öffnen", nil, 0}, // 11
		{"ßｅxpoſt", []string{"ssexpost"}, 7},  // 18, 7 of ASCII
	} {
		got := s.ex.bucketReadings(policy.KindTool, c.name)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: bucket readings %q, want %q among them", c.name, got, w)
			}
		}
		if len(got) > c.most {
			t.Errorf("%q: %d bucket readings %q (of %d readings), want at most %d", c.name, len(got), got, len(policy.NameReadings(c.name)), c.most)
		}
	}
}

// A rule that matches the listed tool by what its list said of it (a
// category, tags) reaches the spellings that read as it: the reading is
// judged with the listed tool's metadata.
func TestNameReadingsTakeRulesByLearnedMetadata(t *testing.T) {
	cfg := mustConfig(t, `
policy:
  name: names
  rules:
    - name: by-category
      match: {categories: [exports]}
      transforms: [{type: project, options: {exclude: [salary]}}]
    - name: by-tag
      match: {tags: [quota]}
      rate_limits: [{rate: 1, per: hour, burst: 1, scope: tool}]
server:
  learn_from_lists: true
identity:
  principal: [{header: x-mcp-principal}]
gateway: {virtual_tools: false}
`)
	list := `{"jsonrpc":"2.0","id":1,"result":{"tools":[` +
		`{"name":"payroll_export","_meta":{"io.cloudg/privacy":{"category":"exports"}}},` +
		`{"name":"bulk_send","_meta":{"io.cloudg/privacy":{"tags":["quota"]}}}]}}`
	ann := hdr("x-mcp-principal", "ann")
	respond(t, cfg, ann, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, list)
	for _, name := range []string{"payroll_export", "ｐayroll_export", "payroll＿export"} {
		if out := respond(t, cfg, ann, rdCall(name), rdSalary); strings.Contains(out, "91000") {
			t.Errorf("%q: %s, want the project step of the rule its category matches", name, out)
		}
	}
	if _, r := post(t, cfg, ann, rdCall("bulk_send")); r.Reply != nil {
		t.Fatalf("bulk_send refused: %s", r.Reply.Body)
	}
	if _, r := post(t, cfg, hdr("x-mcp-principal", "bob"), rdCall("bulk＿send")); r.Reply == nil || !strings.Contains(string(r.Reply.Body), `"code":-32029`) {
		t.Errorf("bulk＿send ran after bulk_send's tool bucket was empty (%v)", r.Reply)
	}
}

// The reading's rule's input pipeline runs too: its block step refuses
// arguments with an email before they reach the tool the server runs.
func TestNameReadingsTakeTheToolsInputTransforms(t *testing.T) {
	cfg := mustConfig(t, `
policy:
  name: names
  rules:
    - name: mail-guard
      match: {names: [send_mail]}
      input_transforms: [{type: block, options: {detectors: [email]}}]
identity:
  principal: [{header: x-mcp-principal}]
gateway: {virtual_tools: false}
`)
	ann := hdr("x-mcp-principal", "ann")
	for _, name := range []string{"send_mail", "ｓend_mail", "send＿mail", "ſend_mail", "send_\u200bmail"} {
		_, r := post(t, cfg, ann, call("7", "tools/call", `{"name":`+jsondoc.Quote(name)+`,"arguments":{"to":"alice@example.com"}}`))
		if r.Reply == nil || !strings.Contains(string(r.Reply.Body), `"code":-32004`) {
			t.Errorf("%q with an email: reply %v, body %s; want send_mail's block step (-32004)", name, r.Reply, r.Body)
		}
	}
	if _, r := post(t, cfg, ann, call("7", "tools/call", `{"name":"ｓearch","arguments":{"to":"alice@example.com"}}`)); r.Reply != nil {
		t.Errorf("ｓearch blocked: %s", r.Reply.Body)
	}
}
