package claims

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/tidwall/gjson"
)

const keycloak = `{"sub":"f3b1","preferred_username":"alice","uid":1042,"ratio":1.50,"big":1e3,"neg":-7,
"realm_access":{"roles":["admin","","ops",7]},
"resource_access":{"my-client":{"roles":["reader"]},"other":{"roles":"a, b c"}},
"https://example.com/roles":["ext"],"a.b":"dotted","#":"hash","@odd":"at",
"groups":[{"name":"g1"},{"name":"g2"},{"id":3},{"name":4}],
"nested":[[1,2],[3]],"scope":"read write","flag":true,"nothing":null}`

func TestPaths(t *testing.T) {
	p := Parse([]byte(keycloak))
	for _, c := range []struct {
		path      string
		principal string
		roles     []string
	}{
		{"sub", "f3b1", []string{"f3b1"}},
		{"uid", "1042", nil},
		{"ratio", "1.5", nil},
		{"big", "1000", nil},
		{"neg", "-7", nil},
		{"realm_access.roles", "", []string{"admin", "ops"}},
		{"realm_access.roles.0", "admin", []string{"admin"}},
		{"realm_access.roles.00", "admin", []string{"admin"}},
		{"realm_access.roles.3", "7", nil},
		{"realm_access.roles.9", "", nil},
		{"realm_access.roles.#", "4", nil},
		{"resource_access.my-client.roles", "", []string{"reader"}},
		{"resource_access.other.roles", "a, b c", []string{"a", "b", "c"}},
		{"resource_access.*.roles", "", []string{"reader"}},
		{"resource_access.o?her.roles", "a, b c", []string{"a", "b", "c"}},
		{`https://example\.com/roles`, "", []string{"ext"}},
		{`a\.b`, "dotted", []string{"dotted"}},
		{"a.b", "", nil},
		{"#", "hash", []string{"hash"}},
		{`\@odd`, "at", []string{"at"}},
		{"groups.#.name", "", []string{"g1", "g2"}},
		{"groups.1.name", "g2", []string{"g2"}},
		{"nested.#.#", "", nil},
		{"scope", "read write", []string{"read", "write"}},
		{"flag", "", nil},
		{"nothing", "", nil},
		{"missing", "", nil},
		{"sub.x", "", nil},
	} {
		path, err := Compile(c.path)
		if err != nil {
			t.Fatalf("%q: %v", c.path, err)
		}
		if got := p.Principal(path); got != c.principal {
			t.Errorf("Principal(%q) = %q, want %q", c.path, got, c.principal)
		}
		if got := p.Roles(path); !slices.Equal(got, c.roles) {
			t.Errorf("Roles(%q) = %q, want %q", c.path, got, c.roles)
		}
	}
}

func TestCompileRefuses(t *testing.T) {
	for _, c := range []struct{ path, why string }{
		{"", "empty"},
		{"a..b", "empty key"},
		{"a.", "empty key"},
		{".a", "empty key"},
		{`a\`, "escape"},
		{"a|b", "pipes"},
		{"roles.#(name==\"x\")", "queries"},
		{"roles.#[x]", "queries"},
		{"a#", "alone"},
		{"#a", "alone"},
		{"roles.@reverse", "modifiers"},
		{"@this", "modifiers"},
		{"[a,b]", "multipaths"},
		{"a.{b}", "multipaths"},
		{"!true", "literals"},
		{`a\.*`, "wildcards"},
	} {
		if _, err := Compile(c.path); err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("Compile(%q) = %v, want an error saying %q", c.path, err, c.why)
		}
	}
}

// A payload jsondoc refuses has no claims, though gjson would read it.
func TestAmbiguousPayload(t *testing.T) {
	sub, _ := Compile("sub")
	for _, js := range []string{`{"sub":"a","sub":"b"}`, `{"sub":"a","Sub":"b"}`, "{\"sub\":\"\xff\"}", `"sub"`, ``, `{`} {
		if got := Parse([]byte(js)).Principal(sub); got != "" {
			t.Errorf("%q: principal %q, want none", js, got)
		}
	}
}

// gjsonPrincipal and gjsonRoles are what the plugin did with gjson before
// this package: the reference the package is held to.
func gjsonPrincipal(js, path string) string {
	if r := gjson.Get(js, path); r.Type == gjson.String || r.Type == gjson.Number {
		return r.String()
	}
	return ""
}

func gjsonRoles(js, path string) []string {
	r := gjson.Get(js, path)
	if r.IsArray() {
		var out []string
		for _, e := range r.Array() {
			if e.Type == gjson.String && e.Str != "" {
				out = append(out, e.Str)
			}
		}
		return out
	}
	if r.Type == gjson.String {
		return SplitRoles(r.Str)
	}
	return nil
}

// FuzzAgainstGJSON: on every payload jsondoc accepts whose value is an
// object or array (a JWT payload is an object; gjson, which does not
// validate, reads other documents from their first bracket, even inside
// a string) and every path Compile accepts, Principal and Roles give what
// gjson gives.
func FuzzAgainstGJSON(f *testing.F) {
	for _, path := range []string{"sub", "realm_access.roles", "resource_access.*.roles", `https://example\.com/roles`,
		"groups.#.name", "nested.#.#", "realm_access.roles.#", "nested.0.1", "a*", "?", "#", `\#.x`, `a\.b`, "groups.#.name.#"} {
		f.Add(keycloak, path)
	}
	f.Add(`[{"a":1},{"a":"x"}]`, "#.a")
	f.Add(`{"r":[{"a.b":"x","a":{"b":"y"}},{"a|b":"z"}]}`, `r.#.a\.b`)
	f.Add(`{"r":[{"#":"x"},{"a|b":"z"}]}`, `r.#.\#`)
	f.Add(`{"r":[{"a|b":"z"}]}`, `r.#.a\|b`)
	f.Add(`{"r":[["x"],["y","z"]]}`, `r.#.1`)
	f.Add(`{"a":{"b":1},"ab":{"b":"2"}}`, "a*.b")
	f.Fuzz(func(t *testing.T, js, path string) {
		p, err := Compile(path)
		if err != nil {
			return
		}
		var d jsondoc.Doc
		if jsondoc.ParseInto(&d, []byte(js)) != nil || d.Kind(jsondoc.Root) != jsondoc.Object && d.Kind(jsondoc.Root) != jsondoc.Array {
			return
		}
		if strings.Contains(path, "#.") && bracketInString(&d, jsondoc.Root) {
			// gjson applies the rest of a '#.' path to a string element's
			// text as if it were JSON, from its first bracket: ["[+"]
			// gives "]" at #.0. Not a claim anyone writes.
			return
		}
		payload := Parse([]byte(js))
		if got, want := payload.Principal(p), gjsonPrincipal(js, path); got != want {
			t.Errorf("Principal(%q) over %q = %q, gjson %q", path, js, got, want)
		}
		if got, want := payload.Roles(p), gjsonRoles(js, path); !slices.Equal(got, want) {
			t.Errorf("Roles(%q) over %q = %q, gjson %q", path, js, got, want)
		}
	})
}

// bracketInString reports whether a string under n holds '[' or '{'.
func bracketInString(d *jsondoc.Doc, n int32) bool {
	switch d.Kind(n) {
	case jsondoc.String:
		v, _ := d.Str(n)
		return strings.ContainsAny(v, "[{")
	case jsondoc.Array, jsondoc.Object:
		for c := d.First(n); c != jsondoc.None; c = d.Next(c) {
			if bracketInString(d, c) {
				return true
			}
		}
	}
	return false
}

// FuzzSyntax: the schema's pattern accepts exactly what Compile accepts.
func FuzzSyntax(f *testing.F) {
	for _, p := range []string{"sub", "a.b", `a\.b`, "#", "a.#.b", "a#", "#(x)", "@x", `\@x`, "a*", `a\*`, `a*\.b`, `a\`, "a..b", "!x", "a.!x", "[a", "a[", "a|b", "é.ü", "\xff"} {
		f.Add(p)
	}
	re := regexp.MustCompile(Syntax)
	f.Fuzz(func(t *testing.T, path string) {
		_, err := Compile(path)
		if re.MatchString(path) != (err == nil) {
			t.Errorf("%q: the pattern says %v, Compile %v", path, re.MatchString(path), err)
		}
	})
}
