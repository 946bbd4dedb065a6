package transforms

import (
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/policy"
)

const pathDoc = `{"users":[{"name":"ann","email":"a@x.io","tags":["x","y"],"addr":{"city":"Oslo","zip":"0150"}},
 {"name":"bob","email":"b@x.io","addr":{"city":"Rome"}}],
 "meta":{"a.b":1,"*":2,"0":"zero","nested":{"email":"n@x.io","deep":{"email":"d@x.io"}}},
 "matrix":[[1,2],[3,4]], "email":"top@x.io"}`

// values renders what a path reaches, sorted, as compact JSON.
func values(t *testing.T, path string) string {
	t.Helper()
	doc, err := jsondoc.Parse([]byte(pathDoc))
	if err != nil {
		t.Fatal(err)
	}
	p, err := CompilePath(path)
	if err != nil {
		t.Fatalf("%q: %v", path, err)
	}
	var got []string
	p.Walk(doc, jsondoc.Root, func(n int32) { got = append(got, string(doc.AppendValue(nil, n))) })
	sort.Strings(got)
	return strings.Join(got, " ")
}

func TestProjectionPaths(t *testing.T) {
	tests := []struct{ path, want string }{
		{"email", `"top@x.io"`},
		{"users.email", `"a@x.io" "b@x.io"`}, // arrays are transparent
		{"users.0.name", `"ann"`},
		{"users.1.addr.city", `"Rome"`},
		{"users.*.name", `"ann" "bob"`},
		{"users.addr.*", `"0150" "Oslo" "Rome"`},
		{"users.tags", `["x","y"]`},
		{"users.tags.1", `"y"`},
		{"**.email", `"a@x.io" "b@x.io" "d@x.io" "n@x.io" "top@x.io"`}, // ** is zero or more levels
		{"meta.**.email", `"d@x.io" "n@x.io"`},
		{`meta.a\.b`, `1`},
		{`meta.\*`, `2`},
		{"meta.0", `"zero"`}, // a number names an object key too
		{"matrix.1.0", `3`},
		{"matrix.*.1", `2 4`},
		{"nothing.here", ``},
		{"users.9", ``},
	}
	for _, tc := range tests {
		if got := values(t, tc.path); got != tc.want {
			t.Errorf("%q reaches %s, want %s", tc.path, got, tc.want)
		}
	}
}

func TestBadProjectionPaths(t *testing.T) {
	for _, p := range []string{"", ".a", "a.", "a..b", `a\`, `a\b`} {
		if _, err := CompilePath(p); err == nil {
			t.Errorf("%q compiled", p)
		}
	}
}

// The policy validator (package policy) and this compiler accept the same
// paths, so a policy that checks never carries a path the transforms
// cannot compile.
func FuzzPathSyntaxAgrees(f *testing.F) {
	for _, p := range []string{"a", "a.b", "**.x", `a\.b`, `a\`, "a..b", ".", `\\`, "*.0", `a.\*`} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if !utf8.ValidString(p) {
			return
		}
		src := `{"transforms": [{"type": "project", "options": {"include": [` + jsondoc.Quote(p) + `]}}]}`
		_, errs := policy.ParsePolicy([]byte(src), policy.Options{})
		_, err := CompilePath(p)
		if (len(errs) == 0) != (err == nil) {
			t.Fatalf("%q: policy says %v, compiler says %v", p, errs, err)
		}
	})
}
