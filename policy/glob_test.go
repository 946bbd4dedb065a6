package policy

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// globCorpus is testdata/glob_cases.json, made by testdata/gen_glob_cases.py
// from CPython's fnmatch.fnmatchcase.
type globCorpus struct {
	Strings []string `json:"strings"`
	Cases   []struct {
		Pattern string   `json:"pattern"`
		Extra   []string `json:"extra"`
		Match   []string `json:"match"`
	} `json:"cases"`
	Lists []struct {
		Patterns []string `json:"patterns"`
		Match    []string `json:"match"`
	} `json:"lists"`
}

func loadGlobCorpus(t testing.TB) *globCorpus {
	t.Helper()
	data, err := os.ReadFile("testdata/glob_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var c globCorpus
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Cases) < 100 || len(c.Strings) < 20 {
		t.Fatalf("corpus too small: %d cases, %d strings", len(c.Cases), len(c.Strings))
	}
	return &c
}

// checkGlob checks g.Match(s) against want and the fast path against the
// regexp engine.
func checkGlob(t *testing.T, g *GlobList, s string, want bool) {
	t.Helper()
	if got := g.Match(s); got != want {
		t.Errorf("%q.Match(%q) = %v, want %v (regexp %s)", g.Patterns(), s, got, want, g.Regexp())
	}
	if got := g.matchRegexp(s); got != want {
		t.Errorf("%q.matchRegexp(%q) = %v, want %v (regexp %s)", g.Patterns(), s, got, want, g.Regexp())
	}
}

func TestGlobPythonCorpus(t *testing.T) {
	c := loadGlobCorpus(t)
	checks := 0
	for _, tc := range c.Cases {
		// A leading "!" is literal to fnmatch but a negation to us, so such
		// a glob is checked as the negation in ["*", "!"+glob].
		list, invert := []string{tc.Pattern}, false
		if strings.HasPrefix(tc.Pattern, "!") {
			list, invert = []string{"*", "!" + tc.Pattern}, true
		}
		g, errs := CompileGlobs(list)
		if errs != nil {
			t.Errorf("CompileGlobs(%q): %v", list, errs)
			continue
		}
		for _, s := range append(slices.Clone(c.Strings), tc.Extra...) {
			checkGlob(t, g, s, slices.Contains(tc.Match, s) != invert)
			checks++
		}
	}
	for _, tc := range c.Lists {
		g := MustCompileGlobs(tc.Patterns...)
		for _, s := range c.Strings {
			checkGlob(t, g, s, slices.Contains(tc.Match, s))
			checks++
		}
	}
	t.Logf("%d patterns, %d lists, %d checks", len(c.Cases), len(c.Lists), checks)
}

func TestGlobLists(t *testing.T) {
	tests := []struct {
		name     string
		patterns []string
		yes, no  []string
	}{
		{"only negation", []string{"!get_secret*"}, nil, []string{"search", "get_secret_key", "", "!get_secret"}},
		{"star minus negation", []string{"*", "!get_secret*"}, []string{"search", "", "get_secre", "xget_secret"}, []string{"get_secret", "get_secret_key"}},
		{"negation first", []string{"!get_secret*", "*"}, []string{"search"}, []string{"get_secret_key"}},
		{"multi", []string{"read_*", "list_*", "search"}, []string{"read_file", "list_", "search"}, []string{"read", "searchx", "write_file"}},
		{"general negation", []string{"*_file", "![!r]*"}, []string{"read_file", "rm_file"}, []string{"write_file", "read_dir"}},
		{"negation prefix", []string{"a?c*", "!abc*"}, []string{"axc", "aXcd"}, []string{"abc", "abcd", "ac"}},
		{"double bang", []string{"!!x"}, nil, []string{"!x", "x"}},
		{"double bang negates", []string{"*", "!!x"}, []string{"x", "!y"}, []string{"!x"}},
		{"empty", []string{}, nil, []string{"", "a"}},
		{"case sensitive", []string{"Foo*"}, []string{"Foo", "Foobar"}, []string{"foo", "FOO", "fOo"}},
		{"anchored", []string{"foo"}, []string{"foo"}, []string{"xfoo", "foox", "fo", "foo\n", "\nfoo"}},
		{"anchored star", []string{"f*o"}, []string{"fo", "foo", "f/o"}, []string{"xfo", "fox", "fo\n"}},
		{"star across separators", []string{"cloudg://assets/*"}, []string{"cloudg://assets/a/b:c", "cloudg://assets/", "cloudg://assets/\n"}, []string{"cloudg://asset/a", "cloudg:/assets/a"}},
		{"uri template literal", []string{"cloudg://assets/{+ref}"}, []string{"cloudg://assets/{+ref}"}, []string{"cloudg://assets/x", "cloudg://assets/{ref}"}},
		{"uri template by star", []string{"cloudg://assets/*"}, []string{"cloudg://assets/{+ref}"}, nil},
		{"question is one rune", []string{"日?"}, []string{"日本", "日é"}, []string{"日", "日本語"}},
		{"backslash literal", []string{`a\*`}, []string{`a\`, `a\xyz`}, []string{"a*", "a"}},
		{"regex metachars", []string{".+()|{}$^"}, []string{".+()|{}$^"}, []string{"a", ".+"}},
		{"unclosed set", []string{"[a*"}, []string{"[a", "[abc"}, []string{"a"}},
		{"newline", []string{"a?b"}, []string{"a\nb"}, []string{"ab"}},
		{"many literals", []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "!c"}, []string{"a", "j"}, []string{"c", "k", ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := MustCompileGlobs(tc.patterns...)
			if g.Len() != len(tc.patterns) {
				t.Errorf("Len = %d, want %d", g.Len(), len(tc.patterns))
			}
			for _, s := range tc.yes {
				checkGlob(t, g, s, true)
			}
			for _, s := range tc.no {
				checkGlob(t, g, s, false)
			}
		})
	}
}

func TestGlobNilAndEmpty(t *testing.T) {
	var g *GlobList
	if g.Match("") || g.Match("a") || g.Len() != 0 || g.Patterns() != nil || g.Regexp() != "" {
		t.Error("nil GlobList: want no match, Len 0, no patterns, empty regexp")
	}
	e, errs := CompileGlobs(nil)
	if errs != nil || e == nil {
		t.Fatalf("CompileGlobs(nil) = %v, %v", e, errs)
	}
	if e.Match("") || e.Len() != 0 || e.Regexp() != "" || len(e.Patterns()) != 0 {
		t.Error("empty GlobList: want no match, Len 0, no patterns, empty regexp")
	}
}

func TestGlobBadPatterns(t *testing.T) {
	g, errs := CompileGlobs([]string{"ok*", "", "!", "!ok", "bad\xff", "!!"})
	if g != nil {
		t.Error("want nil list on errors")
	}
	want := []GlobPatternError{
		{1, "", "empty pattern (want a glob such as \"name*\")"},
		{2, "!", `"!" negates nothing (want "!<glob>")`},
		{4, "bad\xff", "invalid UTF-8"},
	}
	if !slices.Equal(errs, want) {
		t.Fatalf("errors = %#v\nwant %#v", errs, want)
	}
	if got, w := errs[1].Error(), `glob pattern 2 "!": "!" negates nothing (want "!<glob>")`; got != w {
		t.Errorf("Error() = %s, want %s", got, w)
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), "empty pattern") {
				t.Errorf("MustCompileGlobs panic = %v", r)
			}
		}()
		MustCompileGlobs("a", "")
	}()
}

func TestGlobAccessors(t *testing.T) {
	in := []string{"b*", "!bad", "a?"}
	g, _ := CompileGlobs(in)
	in[0] = "changed"
	p := g.Patterns()
	if !slices.Equal(p, []string{"b*", "!bad", "a?"}) {
		t.Errorf("Patterns = %q", p)
	}
	p[0] = "changed"
	if g.Patterns()[0] != "b*" {
		t.Error("Patterns exposes internal slice")
	}
	if got, want := g.Regexp(), `\A(?s:(bad)|b.*|a.)\z`; got != want {
		t.Errorf("Regexp = %s, want %s", got, want)
	}
	if got, want := MustCompileGlobs("x").Regexp(), `\A(?s:x)\z`; got != want {
		t.Errorf("Regexp = %s, want %s", got, want)
	}
}

func TestTranslateGlob(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a*b", `(?s:a.*b)`},
		{"***", `(?s:.*)`},
		{"?.", `(?s:.\.)`},
		{"[]-]", `(?s:[\x{5d}\x{2d}])`},
		{"[!a-c]", `(?s:[^\x{61}-\x{63}])`},
		{"[z-a]", `(?s:[^\x00-\x{10FFFF}])`},
		{"[!z-a]", `(?s:.)`},
		{"[z-a!b]", `(?s:[^\x{62}])`},
		{`[\]`, `(?s:[\x{5c}])`},
		{"[^]", `(?s:[\x{5e}])`},
		{"[!", `(?s:\[!)`},
		{"!x", `(?s:!x)`},
		{"", `(?s:)`},
	}
	for _, tc := range tests {
		got := TranslateGlob(tc.in)
		if got != tc.want {
			t.Errorf("TranslateGlob(%q) = %s, want %s", tc.in, got, tc.want)
		}
		if _, err := regexp.Compile(got); err != nil {
			t.Errorf("TranslateGlob(%q) does not compile: %v", tc.in, err)
		}
	}
}

func TestGlobModes(t *testing.T) {
	tests := []struct {
		patterns []string
		mode     globMode
	}{
		{[]string{"a", "b"}, globLiteral},
		{[]string{"a*", "b**", "*", "!c", "!d*"}, globLiteral},
		{[]string{"!a"}, globNone},
		{[]string{"a?", "!b*"}, globNegLits},
		{[]string{"a?"}, globNegLits},
		{[]string{"a*", "!?b"}, globGeneral},
		{[]string{"*a"}, globNegLits},
		{[]string{"[a]"}, globNegLits},
		{[]string{"\uFFFD"}, globNegLits},
	}
	for _, tc := range tests {
		if g := MustCompileGlobs(tc.patterns...); g.mode != tc.mode {
			t.Errorf("%q: mode %d, want %d", tc.patterns, g.mode, tc.mode)
		}
	}
}

// globRandPattern builds a random pattern that is often literal or "lit*"
// so that every mode of Match is exercised.
func globRandPattern(r *rand.Rand) string {
	const lits = "ab/:\\!-]^\n\uFFFDé"
	const metas = "*?[]!-"
	var b strings.Builder
	n := r.IntN(5)
	general := r.IntN(3) == 0
	for range n {
		if general && r.IntN(3) == 0 {
			b.WriteByte(metas[r.IntN(len(metas))])
		} else {
			rs := []rune(lits)
			b.WriteRune(rs[r.IntN(len(rs))])
		}
	}
	if r.IntN(2) == 0 {
		b.WriteString(strings.Repeat("*", 1+r.IntN(2)))
	}
	p := b.String()
	if r.IntN(3) == 0 {
		p = "!" + p
	}
	if globCheck(p) != "" {
		return "x"
	}
	return p
}

func globRandString(r *rand.Rand) string {
	parts := []string{"a", "b", "/", ":", "!", "-", "]", "\n", "\uFFFD", "\xff", "\xef\xbf", "é", "\xc3"}
	var b strings.Builder
	for range r.IntN(6) {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	return b.String()
}

func TestGlobFastPathDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	modes := map[globMode]int{}
	for range 3000 {
		ps := make([]string, 1+r.IntN(4))
		for i := range ps {
			ps[i] = globRandPattern(r)
		}
		g := MustCompileGlobs(ps...)
		modes[g.mode]++
		for range 20 {
			s := globRandString(r)
			if got, want := g.Match(s), g.matchRegexp(s); got != want {
				t.Fatalf("%q (mode %d) Match(%q) = %v, regexp says %v", ps, g.mode, s, got, want)
			}
		}
	}
	for m := globNone; m <= globGeneral; m++ {
		if modes[m] == 0 {
			t.Errorf("mode %d never exercised", m)
		}
	}
}

func TestGlobAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are asserted without -race")
	}
	tests := []struct {
		patterns []string
		s        string
		max      float64
	}{
		{[]string{"a", "b", "c"}, "c", 0},
		{[]string{"*", "!get_secret*"}, "get_secret_key", 0},
		{[]string{"a?c", "!x*"}, "abc", 0},
		{[]string{"a?c", "!?bc"}, "abc", 1}, // FindStringSubmatchIndex result
	}
	for _, tc := range tests {
		g := MustCompileGlobs(tc.patterns...)
		if n := testing.AllocsPerRun(100, func() { g.Match(tc.s) }); n > tc.max {
			t.Errorf("%q: %v allocs per Match, want <= %v", tc.patterns, n, tc.max)
		}
	}
}

func FuzzGlob(f *testing.F) {
	f.Add("*", "get_secret*", "get_secret_key")
	f.Add("[!]-a]", "[z-a!b]", "b")
	f.Add("a*b", "a?", "a\nb")
	f.Add("[a-c-e]", "[", "-")
	f.Add("x\uFFFD*", "\uFFFD", "x\xff")
	f.Fuzz(func(t *testing.T, p1, p2, s string) {
		for _, p := range []string{p1, p2} {
			if _, err := regexp.Compile(TranslateGlob(p)); err != nil {
				t.Fatalf("TranslateGlob(%q) = %s: %v", p, TranslateGlob(p), err)
			}
		}
		for _, ps := range [][]string{{p1}, {p1, p2}, {p1, "!" + p2}, {"!" + p1, p2}, {"!" + p1}} {
			g, errs := CompileGlobs(ps)
			bad := slices.ContainsFunc(ps, func(p string) bool { return globCheck(p) != "" })
			if bad != (errs != nil) {
				t.Fatalf("CompileGlobs(%q) errors = %v", ps, errs)
			}
			if bad {
				continue
			}
			if got, want := g.Match(s), g.matchRegexp(s); got != want {
				t.Fatalf("%q (mode %d) Match(%q) = %v, regexp says %v", ps, g.mode, s, got, want)
			}
		}
	})
}

func BenchmarkGlobMatch(b *testing.B) {
	benches := []struct {
		name     string
		patterns []string
		subjects []string
	}{
		{"literal", []string{"search", "read_file", "list_dir", "get_status"}, []string{"read_file", "write_file"}},
		{"literal_map", []string{"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "read_file"}, []string{"read_file", "write_file"}},
		{"prefix", []string{"*", "!get_secret*", "!admin_*"}, []string{"search_assets", "get_secret_key"}},
		{"general", []string{"*_file", "cloudg://assets/*"}, []string{"cloudg://assets/a/b:c", "read_dir"}},
		{"general_neg", []string{"*_file", "!*secret?_file"}, []string{"read_file", "my_secrets_file"}},
	}
	for _, bc := range benches {
		g := MustCompileGlobs(bc.patterns...)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				g.Match(bc.subjects[i&1])
				i++
			}
		})
	}
}

// A list of literals and prefixes compiles no regexp (a policy of
// thousands of such globs would hold a program per glob that Match never
// runs); the reference engine still has one when asked.
func TestGlobLiteralListsHoldNoRegexp(t *testing.T) {
	for _, patterns := range [][]string{{"search"}, {"svc_*", "!svc_admin"}, {"*"}, {"a", "b*", "!c*"}} {
		g := MustCompileGlobs(patterns...)
		if g.re != nil {
			t.Errorf("%q: a regexp compiled", patterns)
		}
		for _, s := range []string{"search", "svc_x", "svc_admin", "a", "bz", "cz", ""} {
			if g.Match(s) != g.matchRegexp(s) {
				t.Errorf("%q on %q: Match %v, the reference %v", patterns, s, g.Match(s), g.matchRegexp(s))
			}
		}
	}
	if g := MustCompileGlobs("a?c"); g.re == nil {
		t.Error("a general glob has no regexp")
	}
}
