package mcp

import (
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

// A concrete URI is judged by every known template some server's reading
// makes it an instance of (manual 4): TypeScript reads {id} as [^/,]+,
// Python as [^/]+, so customers://c-1@x/profile is the denied template's,
// though RFC 6570's strict classes (go-sdk) do not match "@". Regression
// (issue 26, class 5): it was judged an unlisted static resource and
// allowed under allow_resources ["*"].
func TestConcreteURIJudgedByLooseReadings(t *testing.T) {
	for _, hide := range []bool{false, true} {
		cfg, _, _, _ := wrConfig(t, `
policy:
  name: loose
  hide_denied: `+map[bool]string{false: "false", true: "true"}[hide]+`
  allow_tools: ["*"]
  allow_resources: ["*"]
  deny_resources: ["customers://{id}/profile", "files://{name}.txt", "notes://{;x}"]
server:
  primitives:
    - match: {kinds: [resource_template], names: ["customers://{id}/profile", "files://{name}.txt", "files://{+path}", "notes://{;x}", "orders://{id}"]}
    - match: {kinds: [resource], names: ["customers://listed@x/profile"]}
identity:
  principal: [{header: x-mcp-principal}]
`)
		ann := hdr("x-mcp-principal", "ann")
		for _, tt := range []struct {
			uri     string
			allowed bool
		}{
			{"customers://c-1/profile", false},
			{"customers://c-1@x/profile", false},    // TS, Python
			{"customers://c%2C1/profile", false},    // every reading
			{"customers://a,b/profile", false},      // go-sdk: "," in {id}
			{"customers://listed@x/profile", false}, // a listed static one too
			{"customers://c 1/profile", false},      // TS, Python
			{"files://report@2024.txt", false},      // {name}.txt loosely, {+path} strictly
			{"files://reportXtxt", false},           // Python 1.x: "." any character
			{"notes://anything@x", false},           // TS {;x}: [^/]+, no ";"
			{"customers://c-1/other", true},         // no template
			{"customers://a/b/profile", true},       // {id} never holds "/"
			{"files://dir/report.pdf", true},        // {+path} only
			{"orders://o@1", true},                  // an allowed template, loosely
			{"customers://c-1/profile/x", true},     // no template
			{"https://example.com/customers/c@1/profile", true},
		} {
			s, r := post(t, cfg, ann, call("2", "resources/read", `{"uri":`+jsondoc.Quote(tt.uri)+`}`))
			s.Done()
			// Hidden, the read goes to the server as its stand-in's
			// (hidden.go): the URI does not reach it.
			if hide && r.Reply == nil && r.Body != nil && !strings.Contains(string(r.Body), jsondoc.Quote(tt.uri)) {
				if tt.allowed {
					t.Errorf("read %s: sent as a stand-in %s", tt.uri, r.Body)
				}
				continue
			}
			if allowed := r.Reply == nil; allowed != tt.allowed {
				reply := ""
				if r.Reply != nil {
					reply = string(r.Reply.Body)
				}
				t.Errorf("hide %v: read %s: allowed %v, want %v (%s)", hide, tt.uri, allowed, tt.allowed, reply)
				continue
			}
			if !tt.allowed {
				code, _, _ := wrError(t, r.Reply)
				if want := map[bool]int{false: -32003, true: -32002}[hide]; code != want {
					t.Errorf("hide %v: read %s: code %d, want %d (%s)", hide, tt.uri, code, want, r.Reply.Body)
				}
			}
		}
	}
}

// A pseudonym restored into a resource URI goes in as the text it
// replaced, as the vault holds it: the server receives what a client
// that saw the value would send, and an error quoting the URI, or the
// value, goes back as the client sent it. Regression (issue 32, class
// 5): the value went in percent-encoded, as RFC 6570 expansion writes it
// (customers://alice%40example.com/profile), which the TypeScript SDK's
// servers match to {id} without decoding: a customer they do not have.
func TestRestoredURIAsItWasWritten(t *testing.T) {
	cfg, _, _, _ := wrConfig(t, `
policy:
  name: restore-uri
  allow_tools: ["*"]
  allow_resources: ["*"]
  vault: {key: "test key, not secret"}
  # Tool results only: the reads' errors are no output pipeline's.
  rules: [{name: tools, match: {kinds: [tool]}, transforms: [pseudonymise]}]
server:
  primitives:
    - match: {kinds: [resource_template], names: ["customers://{id}/profile", "notes://{+path}", "tags://{.t}"]}
identity:
  principal: [{header: x-mcp-principal}]
`)
	// Templates a configured name cannot give (it would be a glob).
	cfg.catalog.addTemplate("search://q{?who,page}")
	cfg.catalog.addTemplate("mail://x{/box*}")
	ann := hdr("x-mcp-principal", "ann")
	out := respond(t, cfg, ann, call("1", "tools/call", `{"name":"lookup"}`),
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"alice@example.com"}]}}`)
	p := pseudonymRE.FindString(out)
	if p == "" {
		t.Fatalf("no pseudonym in %s", out)
	}
	for _, tt := range []struct{ sent, want string }{
		{"customers://" + p + "/profile", "customers://alice@example.com/profile"},
		{"customers://" + p + ",x/profile", "customers://alice@example.com,x/profile"},
		{"notes://dir/" + p + "/a", "notes://dir/alice@example.com/a"},
		{"search://q?who=" + p + "&page=2", "search://q?who=alice@example.com&page=2"},
		{"mail://x/inbox/" + p, "mail://x/inbox/alice@example.com"},
		{"tags://." + p, "tags://.alice@example.com"},
		{"unknown://" + p, "unknown://alice@example.com"}, // no template: as text
	} {
		s, r := post(t, cfg, ann, call("2", "resources/read", `{"uri":`+jsondoc.Quote(tt.sent)+`}`))
		if r.Reply != nil {
			t.Fatalf("read %s answered locally: %s", tt.sent, r.Reply.Body)
		}
		got := string(r.Body)
		if !strings.Contains(got, `"uri":`+string(jsondoc.Quote(tt.want))) {
			t.Errorf("read %s: forwarded %s, want uri %s", tt.sent, got, tt.want)
		}
		s.Done()
		// The server's error quotes the URI it received, encoded, and the
		// value alone: the client reads what it sent.
		resp := `{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"Resource ` + tt.want +
			` not found","data":{"uri":` + string(jsondoc.Quote(tt.want)) + `,"encoded":"` +
			strings.ReplaceAll(tt.want, "@", "%40") + `","id":"alice@example.com"}}}`
		back := respond(t, cfg, ann, call("3", "resources/read", `{"uri":`+jsondoc.Quote(tt.sent)+`}`), strings.Replace(resp, `"id":2`, `"id":3`, 1))
		if strings.Contains(back, "alice") || !strings.Contains(back, p) {
			t.Errorf("read %s: error back as %s", tt.sent, back)
		}
	}
}

// A value goes back into a URI as the server wrote it: raw where it wrote
// it raw (text the client composed a URI from), encoded where it wrote it
// encoded (a link the client reads back). Regression (issue 32, class
// 5): both went back percent-encoded by the template.
func TestRestoredURISpeltAsTheServerWroteIt(t *testing.T) {
	cfg, _, _, _ := wrConfig(t, `
policy:
  name: restore-uri
  allow_tools: ["*"]
  allow_resources: ["*"]
  vault: {key: "test key, not secret"}
  rules: [{name: tools, match: {kinds: [tool]}, transforms: [pseudonymise]}]
server:
  primitives:
    - match: {kinds: [resource_template], names: ["customers://{id}/profile"]}
identity:
  principal: [{header: x-mcp-principal}]
`)
	ann := hdr("x-mcp-principal", "ann")
	out := respond(t, cfg, ann, call("1", "tools/call", `{"name":"lookup"}`),
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"owner alice@example.com"},`+
			`{"type":"resource_link","name":"profile","uri":"customers://alice%40example.com/profile"}]}}`)
	ps := pseudonymRE.FindAllString(out, -1)
	if len(ps) != 2 || ps[0] == ps[1] {
		t.Fatalf("want two pseudonyms, one per spelling, in %s", out)
	}
	for i, want := range []string{"customers://alice@example.com/profile", "customers://alice%40example.com/profile"} {
		sent := "customers://" + ps[i] + "/profile"
		s, r := post(t, cfg, ann, call("2", "resources/read", `{"uri":`+jsondoc.Quote(sent)+`}`))
		s.Done()
		if r.Reply != nil || !strings.Contains(string(r.Body), `"uri":`+jsondoc.Quote(want)) {
			t.Errorf("read %s: forwarded %s (%v), want uri %s", sent, r.Body, r.Reply, want)
		}
	}
}
