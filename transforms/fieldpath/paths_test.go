package fieldpath

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
	p, err := Compile(path)
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
		if _, err := Compile(p); err == nil {
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
		_, err := Compile(p)
		if (len(errs) == 0) != (err == nil) {
			t.Fatalf("%q: policy says %v, compiler says %v", p, errs, err)
		}
	})
}

// runStates runs the abstract matcher of p along steps from the document.
func runStates(p Path, steps []Step) (may, must []uint64) {
	may, must = make([]uint64, p.StateWords()), make([]uint64, p.StateWords())
	p.StartStates(may)
	p.StartStates(must)
	for _, st := range steps {
		nmay, nmust := make([]uint64, len(may)), make([]uint64, len(must))
		p.AdvanceStates(may, must, nmay, nmust, st)
		may, must = nmay, nmust
	}
	return may, must
}

// The abstract matcher agrees with Walk on every concrete location of a
// document (reached: the node or an ancestor is reached; alive: the node or
// a descendant may be), and on the same locations with steps made unknown
// it bounds Walk: may from above, must from below.
func TestAbstractPathStates(t *testing.T) {
	doc, err := jsondoc.Parse([]byte(pathDoc))
	if err != nil {
		t.Fatal(err)
	}
	type location struct {
		n     int32
		steps []Step
	}
	var locs []location
	var collect func(n int32, steps []Step)
	collect = func(n int32, steps []Step) {
		locs = append(locs, location{n, steps})
		i := 0
		for c := doc.First(n); c != jsondoc.None; c = doc.Next(c) {
			st := Step{Kind: KeyStep, Key: doc.Key(c)}
			if doc.Kind(n) == jsondoc.Array {
				st = Step{Kind: IndexStep, Index: i}
			}
			collect(c, append(append([]Step(nil), steps...), st))
			i++
		}
	}
	collect(jsondoc.Root, nil)
	inside := func(n, anc int32) bool { // n is anc or below it
		for ; n != jsondoc.None; n = doc.Parent(n) {
			if n == anc {
				return true
			}
		}
		return false
	}
	paths := []string{"email", "users.email", "users.0.email", "users.*.name", "users.addr.*",
		"users.tags.1", "**.email", "meta.**.token", "meta.**", "**", "*", `meta.a\.b`, `meta.\*`,
		"meta.0", "matrix.1.0", "matrix.*.1", "**.*.city", "users.**.1", "nothing.here"}
	for _, text := range paths {
		p, err := Compile(text)
		if err != nil {
			t.Fatal(err)
		}
		var reached []int32
		p.Walk(doc, jsondoc.Root, func(n int32) { reached = append(reached, n) })
		end := len(p.segs)
		for _, l := range locs {
			covered, below := false, false
			for _, r := range reached {
				covered = covered || inside(l.n, r)
				below = below || inside(r, l.n)
			}
			may, must := runStates(p, l.steps)
			if bitHas(may, end) != covered || bitHas(must, end) != covered {
				t.Errorf("%q at %s: may %v must %v, Walk says %v", text, doc.AppendValue(nil, l.n), bitHas(may, end), bitHas(must, end), covered)
			}
			if below && !AnyPosition(may) {
				t.Errorf("%q at %s: dead, but Walk reaches below", text, doc.AppendValue(nil, l.n))
			}
			for mask := 1; mask < 1<<len(l.steps) && mask < 64; mask++ {
				abs := append([]Step(nil), l.steps...)
				for i := range abs {
					if mask&(1<<i) != 0 {
						if abs[i].Kind == KeyStep {
							abs[i] = Step{Kind: AnyKeyStep}
						} else {
							abs[i] = Step{Kind: AnyIndexStep}
						}
					}
				}
				amay, amust := runStates(p, abs)
				for w := range may {
					if may[w]&^amay[w] != 0 || amust[w]&^must[w] != 0 {
						t.Errorf("%q at %s, mask %b: abstract may %b must %b, concrete may %b must %b",
							text, doc.AppendValue(nil, l.n), mask, amay, amust, may, must)
					}
				}
			}
		}
	}
}

// Paths longer than one word of positions work too.
func TestAbstractPathStatesLong(t *testing.T) {
	segs := make([]string, 70)
	for i := range segs {
		segs[i] = "a"
	}
	p, err := Compile(strings.Join(segs, "."))
	if err != nil {
		t.Fatal(err)
	}
	steps := make([]Step, 70)
	for i := range steps {
		steps[i] = Step{Kind: KeyStep, Key: "a"}
	}
	may, must := runStates(p, steps)
	if !bitHas(may, 70) || !bitHas(must, 70) {
		t.Fatalf("70 segments not reached: %b %b", may, must)
	}
	may, _ = runStates(p, steps[:69])
	if bitHas(may, 70) || !bitHas(may, 69) {
		t.Fatalf("69 steps: %b", may)
	}
}
