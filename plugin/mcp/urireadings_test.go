package mcp

import (
	"strings"
	"testing"
	"unicode/utf8"

	judging "github.com/cloudg/mcp-privacy/internal/catalog"
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/whatwgurl"
	"github.com/cloudg/mcp-privacy/policy"
)

// A URI a WHATWG URL reader (the TypeScript SDK's McpServer: new
// URL(uri).toString()) reads as a denied resource is refused, whatever
// the form: ports, authority forms, host spellings, IPv4 spellings.
// Regression (issue 32, class 2): each was judged as written, matched
// no deny, and the server read the denied resource.
func TestURIReadAsAnotherRefused(t *testing.T) {
	for _, hide := range []string{"false", "true"} {
		cfg, _, _, _ := wrConfig(t, `
policy:
  name: readings
  hide_denied: `+hide+`
  allow_tools: ["*"]
  allow_resources: ["*"]
  deny_resources: ["https://secret.example.com/*", "file:///etc/*", "http://127.0.0.1/*", "secret://*"]
identity:
  principal: [{header: x-mcp-principal}]
`)
		ann := hdr("x-mcp-principal", "ann")
		for _, tt := range []struct {
			uri  string
			code int // 0: forwarded as written
		}{
			{"https://secret.example.com:443/payroll", -32602},
			{"https://secret.example.com:0443/payroll", -32602},
			{"https://secret.example.com:/payroll", -32602},
			{"https:secret.example.com/payroll", -32602},
			{"https:/secret.example.com/payroll", -32602},
			{"https:///secret.example.com/payroll", -32602},
			{"https://@secret.example.com/payroll", -32602},
			{"https://:@secret.example.com/payroll", -32602},
			{"https://s%65cret.example.com/payroll", -32602},
			{"https://ｓecret.example.com/payroll", -32602},
			{"https://secret．example.com/payroll", -32602},
			{"https://se\u00adcret.example.com/payroll", -32602},
			{"https://SECRET.example.com/payroll", -32602},
			{"https://secret.example.com./payroll", 0}, // a trailing dot stays in a domain
			{"file://localhost/etc/passwd", -32602},
			{"file:/etc/passwd", -32602},
			{"file:etc/passwd", -32602},
			{"file://LOCALHOST/etc/passwd", -32602},
			{"http://2130706433/admin", -32602},
			{"http://127.1/admin", -32602},
			{"http://0x7f.0.0.1/admin", -32602},
			{"http://0177.0.0.1/admin", -32602},
			{"http://127.0.0.1./admin", -32602},
			{"http://[::ffff:127.0.0.1]/admin", -32602},
			{"SECRET://x", -32602},
			{"secret://a/../x", -32602},
			{"https://secret.example.com/payroll", -32003},
			{"file:///etc/passwd", -32003},
			{"http://127.0.0.1/admin", -32003},
			{"https://public.example.com/x", 0},
			{"https://public.example.com:8443/x", 0},
		} {
			s, r := post(t, cfg, ann, call("2", "resources/read", `{"uri":`+jsondoc.Quote(tt.uri)+`}`))
			s.Done()
			if hide == "true" && tt.code == -32003 {
				// Hidden: the stand-in goes upstream instead.
				if r.Reply != nil || strings.Contains(string(r.Body), jsondoc.Quote(tt.uri)) {
					t.Errorf("hidden %s: reply %v, body %s", tt.uri, r.Reply, r.Body)
				}
				continue
			}
			if tt.code == 0 {
				if r.Reply != nil || r.Body != nil && !strings.Contains(string(r.Body), jsondoc.Quote(tt.uri)) {
					t.Errorf("hide %s: read %s not forwarded as written (%v %s)", hide, tt.uri, r.Reply, r.Body)
				}
				continue
			}
			if r.Reply == nil {
				t.Errorf("hide %s: read %s forwarded: %s", hide, tt.uri, r.Body)
				continue
			}
			if code, _, _ := wrError(t, r.Reply); code != tt.code {
				t.Errorf("hide %s: read %s: code %d, want %d (%s)", hide, tt.uri, code, tt.code, r.Reply.Body)
			}
		}
	}
}

// A URI a WHATWG URL reader changes only by percent-encoding characters
// is judged in both readings: as written (go-sdk) and encoded (the
// TypeScript SDK), so a deny of either form holds.
func TestURIJudgedInBothReadings(t *testing.T) {
	cfg, _, _, _ := wrConfig(t, `
policy:
  name: readings
  hide_denied: false
  allow_tools: ["*"]
  allow_resources: ["*"]
  deny_resources: ["secret://d%C3%A9/*", "notes://x/a%20b/*", "raw://dé/*"]
server:
  primitives:
    - match: {kinds: [resource_template], names: ["tmpl://x/{+p}/%C3%A9"]}
identity:
  principal: [{header: x-mcp-principal}]
`)
	ann := hdr("x-mcp-principal", "ann")
	for _, tt := range []struct {
		uri     string
		allowed bool
	}{
		{"secret://dé/jà", false},  // read secret://d%C3%A9/j%C3%A0
		{"notes://x/a b/c", false}, // read notes://x/a%20b/c
		{"raw://dé/x", false},      // as written
		{"raw://d%C3%A9/x", true},  // no reader decodes it
		{"other://dé/jà", true},    // no deny either way
	} {
		s, r := post(t, cfg, ann, call("2", "resources/read", `{"uri":`+jsondoc.Quote(tt.uri)+`}`))
		s.Done()
		if allowed := r.Reply == nil; allowed != tt.allowed {
			t.Errorf("read %s: allowed %v, want %v (%v)", tt.uri, allowed, tt.allowed, r.Reply)
		}
	}
}

// A hidden resource's stand-in is a URI a WHATWG URL reader reads as
// written (the TypeScript SDK's McpServer quotes that reading in its
// not-found error), and one it refuses where it refuses the name.
// Regression (issue 32, class 2): https://secret.example.com/payroll
// went as https://mcp_privacy_missing_…, quoted back with a "/" after
// it that the answer for a missing URI lacks.
func TestResourceStandInReadAsWritten(t *testing.T) {
	cfg, _, _, _ := wrConfig(t, `
policy:
  name: standin
  allow_tools: ["*"]
  allow_resources: ["*"]
identity:
  principal: [{header: x-mcp-principal}]
`)
	for _, name := range []string{
		"https://secret.example.com/payroll", "https://secret.example.com/", "http://h:8080/a?b=c#d",
		"file:///etc/passwd", "file://host/share/x", "ws://h/x", "ftp://h/f",
		"secret://keys", "secret://box/alice@example.com", "secret://dé/jà", "secret://x/a\\b", "notes://x/a b/c",
		"urn:isbn:123", "mailto:a@example.com", "customers://c 1/profile", "https://h:99999/x", "no-scheme",
		"secret://x/?q=a'b&c=\"d\"",
	} {
		if !judging.URINormal(name, true) {
			t.Fatalf("%s is refused: never hidden", name)
		}
		sub := cfg.standIn(policy.KindResource, name)
		_, nameSt := whatwgurl.Href(name)
		href, st := whatwgurl.Href(sub)
		switch {
		case nameSt == whatwgurl.Failure:
			if st != whatwgurl.Failure {
				t.Errorf("%s: stand-in %s reads %s; the name is refused by the reader, the stand-in must be", name, sub, href)
			}
		case st != whatwgurl.Exact || href != sub && !judging.EncodedOnly(sub, href):
			t.Errorf("%s: stand-in %s reads %q (%d)", name, sub, href, st)
		}
		// The server quotes the stand-in as it reads it: the name comes
		// back as it reads the name.
		want, _ := whatwgurl.Href(name)
		if nameSt != whatwgurl.Exact {
			continue
		}
		answer := `{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":` + jsondoc.Quote("Resource "+href+" not found") + `}}`
		got, ok := respell([]byte(answer), sub, name)
		if wantAnswer := `{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":` + jsondoc.Quote("Resource "+want+" not found") + `}}`; !ok || string(got) != wantAnswer {
			t.Errorf("%s: answer %s respelt %s, want %s", name, answer, got, wantAnswer)
		}
	}
}

// FuzzResourceStandIn: a resource URI the filter judges has a stand-in a
// WHATWG URL reader keeps as written (but for percent-encoding, as it
// does the name), or refuses where it refuses the name.
func FuzzResourceStandIn(f *testing.F) {
	cfg, errs := NewConfig([]byte(`
policy:
  name: standin
  allow_tools: ["*"]
identity:
  principal: [{header: x-mcp-principal}]
`), nil)
	if len(errs) > 0 {
		f.Fatal(errs)
	}
	for _, s := range []string{"https://secret.example.com/payroll", "file:///etc/passwd", "secret://dé/jà", "customers://c 1/p", "urn:x", "a", "secret://x/a\\b?q=\"'`#f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if !utf8.ValidString(name) || !judging.URINormal(name, true) {
			return
		}
		sub := cfg.standIn(policy.KindResource, name)
		_, nameSt := whatwgurl.Href(name)
		href, st := whatwgurl.Href(sub)
		if (nameSt == whatwgurl.Failure) != (st == whatwgurl.Failure) {
			t.Fatalf("%q (%d): stand-in %q reads %q (%d)", name, nameSt, sub, href, st)
		}
		if st == whatwgurl.Exact && href != sub && !judging.EncodedOnly(sub, href) {
			t.Fatalf("%q: stand-in %q reads %q", name, sub, href)
		}
	})
}
