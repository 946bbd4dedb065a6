package policy

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
)

// A name beyond ASCII has, among its readings, what servers that
// normalise names would look up (manual 6.7).
func TestNameReadingsHoldServersReadings(t *testing.T) {
	for _, c := range []struct {
		name string
		want []string // readings that must be among NameReadings
	}{
		{"ｄｅｌｅｔｅ_ｄｂ", []string{"delete_db"}},               // fullwidth letters (NFKC)
		{"delete＿db", []string{"delete_db"}},               // fullwidth low line (NFKC)
		{"ſecret", []string{"secret", "Secret"}},           // long s: NFKC and folding, upper case
		{"\u212Aill", []string{"kill", "Kill"}},            // Kelvin sign: lower case and folding, NFKC
		{"ﬁle_ops", []string{"file_ops", "FIle_ops"}},      // ligature: NFKC and folding, full upper case
		{"straße", []string{"strasse", "straSSe"}},         // sharp s: full folding, full upper case
		{"ıd", []string{"Id"}},                             // dotless i: upper case
		{"İd", []string{"id", "i\u0307d"}},                 // dotted capital I: simple and full lower case
		{"𝐝𝐞𝐥𝐞𝐭𝐞", []string{"delete"}},                     // mathematical bold (NFKC)
		{"ⓓelete", []string{"delete"}},                     // circled letter (NFKC)
		{"ＤＥＬＥＴＥ", []string{"DELETE", "ｄｅｌｅｔｅ", "delete"}}, // NFKC, lower case, both
		{"cafe\u0301", []string{"café"}},                   // NFC
		{"café", []string{"cafe\u0301"}},                   // NFD
		{"Ǆ", []string{"DŽ", "dž", "ǆ"}},                   // NFKC, NFKC then lower case, lower case
		{"delete\u200b_db", []string{"delete_db"}},         // zero width space dropped (NFKC_Casefold)
		{"dele\u00adte_db", []string{"delete_db"}},         // soft hyphen dropped
		{"ｄelete_db\ufe0f", []string{"delete_db"}},         // variation selector dropped, then NFKC
	} {
		got := NameReadings(c.name)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("NameReadings(%q) = %q, want %q among them", c.name, got, w)
			}
		}
		if slices.Contains(got, c.name) {
			t.Errorf("NameReadings(%q) holds the name itself: %q", c.name, got)
		}
	}
}

// ASCII case stays significant: a name of ASCII characters has no other
// reading, and the ASCII characters of another name keep their case.
func TestNameReadingsKeepASCII(t *testing.T) {
	for _, name := range []string{"delete_db", "Delete_DB", "a", "get secret", "x\x00y"} {
		if got := NameReadings(name); got != nil {
			t.Errorf("NameReadings(%q) = %q, want none", name, got)
		}
	}
	for _, r := range NameReadings("Dｅlete") {
		if !strings.HasPrefix(r, "D") {
			t.Errorf("NameReadings(Dｅlete) holds %q: the ASCII D changed case", r)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = NameReadings("delete_customer_records") }); n != 0 {
		t.Errorf("NameReadings of an ASCII name allocates %v times", n)
	}
}

// A name is denied when any reading is, with the reading's denial about
// the name as sent; allowed only when every reading is (manual 6.7, 7).
func TestDecideReadings(t *testing.T) {
	const pol = `
hide_denied: %s
deny_tools: [delete_db, "exec_*"]
deny_prompts: [résumé]
deny_capabilities: [exec]
roles:
  ops:
    deny_tools: [kill]
`
	// The catalog of the server: what a reading names.
	known := map[string]CapabilitySet{"wipe": dtCaps(Exec)}
	cases := []struct {
		kind    Kind
		name    string
		roles   []string
		allowed bool
		reading string // the denied reading, "" when allowed or denied as sent
		rule    string
	}{
		{KindTool, "ｄelete_db", nil, false, "delete_db", "policy"},
		{KindTool, "delete＿db", nil, false, "delete_db", "policy"},
		{KindTool, "ｅｘｅｃ_shell", nil, false, "exec_shell", "policy"},
		{KindTool, "\u212Aill", []string{"ops"}, false, "kill", "role:ops"},
		{KindTool, "\u212Aill", nil, true, "", ""},
		{KindTool, "ｗipe", nil, false, "wipe", "policy"}, // denied by the capability of the tool it reads as
		{KindTool, "delete_db", nil, false, "", "policy"},
		{KindTool, "Delete_db", nil, true, "", ""}, // ASCII case is significant
		{KindTool, "ｓearch", nil, true, "", ""},
		{KindTool, "café", nil, true, "", ""},
		{KindPrompt, "re\u0301sume\u0301", nil, false, "résumé", "policy"},
		{KindPrompt, "résumé", nil, false, "", "policy"},
		{KindPrompt, "ｄelete_db", nil, true, "", ""}, // a tool's deny does not reach prompts
	}
	for _, hidden := range []bool{true, false} {
		hd := "false"
		if hidden {
			hd = "true"
		}
		p := dtParse(t, strings.Replace(pol, "%s", hd, 1))
		for _, c := range cases {
			pr := Principal{ID: "u", Roles: c.roles}
			x := Primitive{Kind: c.kind, Name: c.name}
			d := DecideReadings(&x, p.Decide(&pr, &x), func(name string) Decision {
				rx := Primitive{Kind: c.kind, Name: name, Metadata: x.Metadata}
				if caps, ok := known[name]; ok {
					rx.Capabilities = caps
				}
				return p.Decide(&pr, &rx)
			})
			if d.Allowed != c.allowed || d.Reading != c.reading || !d.Allowed && d.Rule != c.rule {
				t.Errorf("%s %q roles %v: allowed %v reading %q rule %q, want %v %q %q (%s)", c.kind, c.name, c.roles,
					d.Allowed, d.Reading, d.Rule, c.allowed, c.reading, c.rule, d.Reason())
				continue
			}
			if d.Allowed {
				continue
			}
			if d.Hidden != hidden {
				t.Errorf("%s %q: Hidden = %v under hide_denied %v", c.kind, c.name, d.Hidden, hidden)
			}
			// The reply is about the name as sent.
			e := d.Error()
			if hidden && !strings.HasSuffix(e.Message, ": "+c.name) {
				t.Errorf("%s %q: hidden error %q, want it to name %q", c.kind, c.name, e.Message, c.name)
			}
			if !hidden {
				data := e.Data.(AccessDeniedData)
				if data.Name != c.name || c.reading != "" && !strings.Contains(data.Reason, `read as "`+c.reading+`"`) {
					t.Errorf("%s %q: denial data %+v", c.kind, c.name, data)
				}
			}
		}
	}
}

// A name beyond ASCII too long to read in every way, or with too many
// readings, is denied.
func TestDecideReadingsTooLong(t *testing.T) {
	p := dtParse(t, "hide_denied: false")
	pr := Principal{ID: "u"}
	long := strings.Repeat("é", maxReadingName)
	for _, c := range []struct {
		name    string
		allowed bool
	}{{long, false}, {strings.Repeat("e", 4*maxReadingName), true}, {long[:maxReadingName], true},
		{"ǅǈǋǲﬁﬂﬀﬃﬄßẞΐΰ", false}, // hundreds of readings
	} {
		x := Primitive{Kind: KindTool, Name: c.name}
		d := DecideReadings(&x, p.Decide(&pr, &x), func(name string) Decision {
			rx := Primitive{Kind: KindTool, Name: name}
			return p.Decide(&pr, &rx)
		})
		if d.Allowed != c.allowed {
			t.Errorf("name of %d bytes: allowed %v, want %v (%s)", len(c.name), d.Allowed, c.allowed, d.Reason())
		}
		if !d.Allowed && !strings.Contains(d.Reason(), "too long") {
			t.Errorf("reason %q", d.Reason())
		}
	}
}

// oracleOps are the readings servers make, computed independently of
// readings.go with golang.org/x/text: the four normal forms of the whole
// name, and x/text's lower case, upper case and folding (full forms) or
// the unicode package's simple ones, of each character beyond ASCII.
var oracleOps = func() []func(string) string {
	perRune := func(f func(string) string) func(string) string {
		return func(s string) string {
			var b strings.Builder
			for len(s) > 0 {
				r, n := utf8.DecodeRuneInString(s)
				if r < utf8.RuneSelf || r == utf8.RuneError && n == 1 {
					b.WriteString(s[:n]) // ASCII, or a byte that is no UTF-8
				} else {
					b.WriteString(f(s[:n]))
				}
				s = s[n:]
			}
			return b.String()
		}
	}
	simple := func(m func(rune) rune) func(string) string {
		return func(s string) string { r, _ := utf8.DecodeRuneInString(s); return string(m(r)) }
	}
	return []func(string) string{
		norm.NFC.String, norm.NFD.String, norm.NFKC.String, norm.NFKD.String,
		perRune(cases.Lower(language.Und).String), perRune(cases.Upper(language.Und).String), perRune(cases.Fold().String),
		perRune(simple(unicode.ToLower)), perRune(simple(unicode.ToUpper)),
	}
}()

// oracleReadings are the results of every sequence of up to depth
// oracleOps applied to name.
func oracleReadings(name string, depth int) []string {
	out := []string{name}
	frontier := []string{name}
	for range depth {
		var next []string
		for _, s := range frontier {
			for _, op := range oracleOps {
				if r := op(s); !slices.Contains(out, r) {
					out = append(out, r)
					next = append(next, r)
				}
			}
		}
		frontier = next
	}
	return out
}

// FuzzNameReadings: every reading a server makes by up to three of the
// oracle's operations is among NameReadings (unless they are incomplete,
// and the name denied whatever it is), and a policy denying one of them
// denies the name.
func FuzzNameReadings(f *testing.F) {
	for _, s := range []string{"ｄｅｌｅｔｅ_ｄｂ", "ſecret", "\u212Aill", "ﬁle", "straße", "İd", "ıd", "cafe\u0301", "Ǆ", "ᾷ", "ΐ", "delete_db", "x\xffé", "ǅǈǋ"} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, name string, pick uint8) {
		if len(name) > 24 || name == "" {
			return
		}
		rs := ReadingsOf(name)
		got := rs.Names
		want := oracleReadings(name, 3)
		for _, w := range want[1:] {
			if !rs.Incomplete && !slices.Contains(got, w) {
				t.Fatalf("%q: the reading %q (%+q) is not among %+q", name, w, w, got)
			}
		}
		// A policy denying one reading denies the name.
		denied := want[int(pick)%len(want)]
		if strings.ContainsAny(denied, "*?[!\"\\\n\r") || !utf8.ValidString(denied) || denied == "" {
			return
		}
		quoted, _ := json.Marshal(denied)
		p, errs := ParsePolicy([]byte(`{"hide_denied": false, "deny_tools": [`+string(quoted)+`]}`), Options{})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		pr := Principal{ID: "u"}
		x := Primitive{Kind: KindTool, Name: name}
		d := DecideReadings(&x, p.Decide(&pr, &x), func(r string) Decision {
			rx := Primitive{Kind: KindTool, Name: r}
			return p.Decide(&pr, &rx)
		})
		if d.Allowed {
			t.Fatalf("%q allowed though its reading %q is denied", name, denied)
		}
	})
}

// BenchmarkNameReadings: names beyond ASCII as tools are named, and the
// worst a name of maxReadingName bytes can cost (it hits maxNameReadings).
func BenchmarkNameReadings(b *testing.B) {
	for _, c := range []struct{ what, name string }{
		{"ascii", "delete_customer_records"},
		{"fullwidth", "ｄｅｌｅｔｅ_ｃｕｓｔｏｍｅｒ"},
		{"german", "Straßenverzeichnis_öffnen"},
		{"greek", "Σύνοψη_κειμένου"},
		{"cjk", "天気を取得"},
		{"worst", strings.Repeat("ǅǈǋǲﬁﬂﬀﬃﬄßẞΐΰ", 20)[:maxReadingName-1]},
	} {
		b.Run(c.what, func(b *testing.B) {
			for b.Loop() {
				_ = ReadingsOf(c.name)
			}
		})
	}
}

// An allowed name takes the rules of every reading (their transforms,
// options and limits) and the buckets of each reading (issue 32, item 3).
func TestDecideReadingsTakeTheReadingsRules(t *testing.T) {
	p := dtParse(t, `
rules:
  - name: exports
    match: {names: [export_customers]}
    transforms: [{type: project, options: {exclude: [salary]}}]
    rate_limits: [{rate: 1, per: hour, burst: 2}]
  - name: others
    match: {names: [search]}
    rate_limits: [{rate: 5, per: hour, scope: tool}]
`)
	pr := Principal{ID: "u"}
	for _, c := range []struct {
		name  string
		rules string // names of the rules matched
	}{
		{"export_customers", "exports"},
		{"ｅxport_customers", "exports"},
		{"export_cuſtomers", "exports"},
		{"export\u00ad_customers", "exports"},
		{"ｓearch", "others"},
		{"ｐrint", ""},
	} {
		x := Primitive{Kind: KindTool, Name: c.name}
		d := DecideReadings(&x, p.Decide(&pr, &x), func(name string) Decision {
			return p.Decide(&pr, &Primitive{Kind: KindTool, Name: name})
		})
		var got []string
		for _, r := range d.Matched {
			got = append(got, r.Name)
		}
		if !d.Allowed || strings.Join(got, ",") != c.rules {
			t.Errorf("%q: allowed %v, rules %v, want %q", c.name, d.Allowed, got, c.rules)
		}
		// The buckets: the name's and each reading's, each once.
		bs := p.Buckets(Call{Kind: KindTool, Name: c.name, Principal: "u", Readings: NameReadings(c.name)}, d.Matched)
		var keys []string
		for _, b := range bs {
			keys = append(keys, b.ScopeKey)
		}
		read := map[string]string{"exports": "u\x00tool:export_customers", "others": "tool:search"}[c.rules]
		if read != "" && !slices.Contains(keys, read) {
			t.Errorf("%q: buckets %q, want %q among them", c.name, keys, read)
		}
		if slices.Contains(keys, "") || len(keys) != len(slices.Compact(slices.Sorted(slices.Values(keys)))) {
			t.Errorf("%q: buckets %q, want each once", c.name, keys)
		}
	}
}

// FuzzNameReadingsTakeRules: a name runs under the rules of every reading
// a server makes of it by up to three of the oracle's operations, and
// takes from that reading's bucket (issue 32, item 3), unless its
// readings are incomplete (then it is denied).
func FuzzNameReadingsTakeRules(f *testing.F) {
	for _, s := range []string{"ｅxport_customers", "export_cuſtomers", "\u212Ayc", "ﬁle", "addreß", "re\u0301sume\u0301", "ｅXPORT", "a\u00adb"} {
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, name string, pick uint8) {
		if len(name) > 24 || name == "" {
			return
		}
		want := oracleReadings(name, 3)
		read := want[int(pick)%len(want)]
		if strings.ContainsAny(read, "*?[!\"\\\n\r") || !utf8.ValidString(read) || read == "" {
			return
		}
		quoted, _ := json.Marshal(read)
		p, errs := ParsePolicy([]byte(`{"rules": [{"name": "read", "match": {"names": [`+string(quoted)+`]},
			"rate_limits": [{"rate": 1, "per": "hour", "scope": "principal_tool"}]}]}`), Options{})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		pr := Principal{ID: "u"}
		x := Primitive{Kind: KindTool, Name: name}
		rs := ReadingsOf(name)
		d := rs.Decide(&x, p.Decide(&pr, &x), func(r string) Decision {
			return p.Decide(&pr, &Primitive{Kind: KindTool, Name: r})
		})
		if rs.Incomplete {
			if d.Allowed && !asciiOnly(name) {
				t.Fatalf("%q: readings incomplete, yet allowed", name)
			}
			return
		}
		if !d.Allowed || len(d.Matched) != 1 || d.Matched[0].Name != "read" {
			t.Fatalf("%q: allowed %v, rules %v, want the rule of its reading %q", name, d.Allowed, d.Matched, read)
		}
		bs := p.Buckets(Call{Kind: KindTool, Name: name, Principal: "u", Readings: rs.Names}, d.Matched)
		found := false
		for _, b := range bs {
			found = found || b.ScopeKey == "u\x00tool:"+read
		}
		if !found {
			t.Fatalf("%q: buckets %v, want its reading %q's", name, bs, read)
		}
	})
}
