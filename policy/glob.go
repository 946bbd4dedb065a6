package policy

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// GlobList is a compiled list of fnmatch patterns (manual 6.7).
//
// A pattern is matched like Python's fnmatch.fnmatchcase: * matches any run
// of characters (including / : and newlines), ? one character, [...] a set;
// there is no escape character. A pattern starting with ! is a negation. A
// list matches a string when some positive pattern matches and no negation
// does. A GlobList is immutable and safe for concurrent use.
type GlobList struct {
	patterns []string
	src      string
	// re is the compiled expression: nil for the empty list, and made on
	// first use (reOnce) for a list of literals and prefixes, which Match
	// reads without it: a policy of thousands of rules would otherwise
	// hold a regexp program per glob (kilobytes each) that nothing runs.
	re       *regexp.Regexp
	reOnce   sync.Once
	hasPos   bool
	hasNeg   bool
	mode     globMode
	pos, neg globLits
}

// globMode picks how Match evaluates; every mode agrees with matchRegexp.
type globMode uint8

const (
	globNone    globMode = iota // nothing can match
	globLiteral                 // every pattern is "lit" or "lit*": no regexp
	globNegLits                 // negations are literal/prefix: check them, then MatchString
	globGeneral                 // FindStringSubmatchIndex (one allocation)
)

// globLits is the regexp-free form of literal ("lit") and prefix ("lit*")
// patterns.
type globLits struct {
	any      bool // a bare "*"
	exact    []string
	exactSet map[string]struct{} // replaces exact when it is long
	prefixes []string
}

const globExactSetMin = 9

func (l *globLits) add(lit string, prefix bool) {
	switch {
	case prefix && lit == "":
		l.any = true
	case prefix:
		l.prefixes = append(l.prefixes, lit)
	default:
		l.exact = append(l.exact, lit)
	}
}

func (l *globLits) finish() {
	if len(l.exact) >= globExactSetMin {
		l.exactSet = make(map[string]struct{}, len(l.exact))
		for _, s := range l.exact {
			l.exactSet[s] = struct{}{}
		}
		l.exact = nil
	}
}

func (l *globLits) match(s string) bool {
	if l.any {
		return true
	}
	if l.exactSet != nil {
		if _, ok := l.exactSet[s]; ok {
			return true
		}
	}
	for _, e := range l.exact {
		if s == e {
			return true
		}
	}
	for _, p := range l.prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// globLiteralForm reports whether body is "lit" or "lit*" (any number of
// trailing stars). Literals holding U+FFFD are excluded: the regexp engine
// decodes each invalid UTF-8 byte of the subject as U+FFFD, which a byte
// comparison would not reproduce.
func globLiteralForm(body string) (lit string, prefix, ok bool) {
	lit = strings.TrimRight(body, "*")
	if strings.ContainsAny(lit, "*?[\uFFFD") {
		return "", false, false
	}
	return lit, len(lit) < len(body), true
}

// GlobPatternError describes one bad pattern in a list given to CompileGlobs.
type GlobPatternError struct {
	Index   int    // position in the list; -1 when no single pattern is at fault
	Pattern string // the pattern as given
	Msg     string // what is wrong and what is expected, without the pattern
}

func (e GlobPatternError) Error() string {
	if e.Index < 0 {
		return "glob list: " + e.Msg
	}
	return fmt.Sprintf("glob pattern %d %q: %s", e.Index, e.Pattern, e.Msg)
}

// globCheck returns why pattern is unusable, or "".
func globCheck(pattern string) string {
	switch {
	case pattern == "":
		return "empty pattern (want a glob such as \"name*\")"
	case pattern == "!":
		return `"!" negates nothing (want "!<glob>")`
	case !utf8.ValidString(pattern):
		return "invalid UTF-8"
	}
	return ""
}

// CompileGlobs compiles patterns into one list. It returns one
// GlobPatternError per bad pattern (and a nil list) if any is bad. An empty
// list is valid and matches nothing.
func CompileGlobs(patterns []string) (*GlobList, []GlobPatternError) {
	var errs []GlobPatternError
	for i, p := range patterns {
		if msg := globCheck(p); msg != "" {
			errs = append(errs, GlobPatternError{Index: i, Pattern: p, Msg: msg})
		}
	}
	if errs != nil {
		return nil, errs
	}
	g := &GlobList{patterns: slices.Clone(patterns)}
	if len(patterns) == 0 {
		return g, nil
	}
	var pos, neg []string
	fastPos, fastNeg := true, true
	for _, p := range patterns {
		body, isNeg := strings.CutPrefix(p, "!")
		lit, prefix, ok := globLiteralForm(body)
		if isNeg {
			neg = append(neg, translateGlobBody(body))
			fastNeg = fastNeg && ok
			g.neg.add(lit, prefix)
		} else {
			pos = append(pos, translateGlobBody(body))
			fastPos = fastPos && ok
			g.pos.add(lit, prefix)
		}
	}
	g.pos.finish()
	g.neg.finish()
	g.hasPos, g.hasNeg = len(pos) > 0, len(neg) > 0

	var b strings.Builder
	b.WriteString(`\A(?s:`)
	if g.hasNeg {
		// Leftmost-first alternation: with the whole string anchored, the
		// negation group is chosen whenever any negation matches.
		b.WriteString("(" + strings.Join(neg, "|") + ")")
		if g.hasPos {
			b.WriteString("|")
		}
	}
	b.WriteString(strings.Join(pos, "|"))
	b.WriteString(`)\z`)
	g.src = b.String()
	fast := fastPos && fastNeg
	if !fast {
		re, err := regexp.Compile(g.src)
		if err != nil {
			// Not expected (no repeat counts or deep nesting are emitted); blame
			// the pattern that fails alone, if one does.
			for i, p := range patterns {
				body, _ := strings.CutPrefix(p, "!")
				if _, err1 := regexp.Compile(TranslateGlob(body)); err1 != nil {
					errs = append(errs, GlobPatternError{Index: i, Pattern: p, Msg: "cannot compile: " + err1.Error()})
				}
			}
			if errs == nil {
				errs = []GlobPatternError{{Index: -1, Msg: "cannot compile: " + err.Error()}}
			}
			return nil, errs
		}
		g.re = re
	}

	switch {
	case !g.hasPos:
		g.mode = globNone
	case fast:
		g.mode = globLiteral
	case fastNeg:
		g.mode = globNegLits
	default:
		g.mode = globGeneral
	}
	return g, nil
}

// MustCompileGlobs is CompileGlobs that panics on bad patterns; for tests
// and built-in lists.
func MustCompileGlobs(patterns ...string) *GlobList {
	g, errs := CompileGlobs(patterns)
	if errs != nil {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		panic("policy: MustCompileGlobs: " + strings.Join(msgs, "; "))
	}
	return g
}

// Match reports whether s matches the list. A nil or empty list matches
// nothing.
func (g *GlobList) Match(s string) bool {
	if g == nil {
		return false
	}
	switch g.mode {
	case globLiteral:
		return g.pos.match(s) && !g.neg.match(s)
	case globNegLits:
		// No negation matches, so the whole expression matches only
		// through a positive pattern.
		return !g.neg.match(s) && g.re.MatchString(s)
	case globGeneral:
		return g.matchRegexp(s)
	}
	return false
}

// matchRegexp is the reference engine: it uses only the compiled expression.
func (g *GlobList) matchRegexp(s string) bool {
	if g == nil || len(g.patterns) == 0 {
		return false
	}
	g.reOnce.Do(func() {
		if g.re == nil {
			// Literals and prefixes always compile.
			g.re = regexp.MustCompile(g.src)
		}
	})
	if !g.hasNeg {
		return g.re.MatchString(s)
	}
	loc := g.re.FindStringSubmatchIndex(s)
	return loc != nil && loc[2] < 0
}

// Len returns the number of patterns.
func (g *GlobList) Len() int {
	if g == nil {
		return 0
	}
	return len(g.patterns)
}

// Patterns returns a copy of the patterns as given.
func (g *GlobList) Patterns() []string {
	if g == nil {
		return nil
	}
	return slices.Clone(g.patterns)
}

// Regexp returns the RE2 source of the list's single expression: negations
// (if any) form capturing group 1, ahead of the positive alternatives. It is
// "" for an empty list.
func (g *GlobList) Regexp() string {
	if g == nil {
		return ""
	}
	return g.src
}

// TranslateGlob returns the RE2 source for one positive pattern body,
// wrapped in (?s:...) and not anchored. A leading ! is literal here. Invalid
// UTF-8 bytes are read as U+FFFD.
func TranslateGlob(pattern string) string {
	return "(?s:" + translateGlobBody(pattern) + ")"
}

// translateGlobBody follows CPython's fnmatch.translate, emitting RE2.
func translateGlobBody(pattern string) string {
	p := []rune(pattern)
	var b strings.Builder
	for i := 0; i < len(p); {
		c := p[i]
		i++
		switch c {
		case '*':
			for i < len(p) && p[i] == '*' {
				i++
			}
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '[':
			if atom, next, ok := translateGlobSet(p, i); ok {
				b.WriteString(atom)
				i = next
			} else {
				b.WriteString(`\[`) // unclosed: literal, rescan what follows
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// translateGlobSet translates the set whose "[" is at p[i-1]. It mirrors
// CPython 3.12's fnmatch.translate (including its quirks: after an empty
// range such as z-a is removed, the set may start with "!" and so become
// negated) and returns the index after the closing "]"; ok is false when the
// set is unclosed.
func translateGlobSet(p []rune, i int) (atom string, next int, ok bool) {
	n := len(p)
	j := i
	if j < n && p[j] == '!' {
		j++
	}
	if j < n && p[j] == ']' {
		j++
	}
	for j < n && p[j] != ']' {
		j++
	}
	if j >= n {
		return "", i, false
	}
	stuff := p[i:j]
	var chunks [][]rune
	if !slices.Contains(stuff, '-') {
		chunks = [][]rune{stuff}
	} else {
		// Split at the hyphens that form ranges; the character after a
		// range's end is never a range hyphen (k += 3).
		k := i + 1
		if p[i] == '!' {
			k = i + 2
		}
		start := i
		for {
			if k >= j {
				break
			}
			h := slices.Index(p[k:j], '-')
			if h < 0 {
				break
			}
			k += h
			chunks = append(chunks, p[start:k:k])
			start = k + 1
			k += 3
		}
		if start < j {
			chunks = append(chunks, p[start:j:j])
		} else {
			last := len(chunks) - 1
			chunks[last] = append(slices.Clip(chunks[last]), '-')
		}
		// Remove empty (reversed) ranges the way CPython does: drop both
		// endpoints and join the neighbouring chunks.
		for k := len(chunks) - 1; k > 0; k-- {
			prev, cur := chunks[k-1], chunks[k]
			if prev[len(prev)-1] > cur[0] {
				merged := append(slices.Clone(prev[:len(prev)-1]), cur[1:]...)
				chunks[k-1] = merged
				chunks = slices.Delete(chunks, k, k+1)
			}
		}
	}
	next = j + 1

	negate := len(chunks[0]) > 0 && chunks[0][0] == '!'
	if negate {
		chunks[0] = chunks[0][1:]
	}
	var b strings.Builder
	members := 0
	for c, ch := range chunks {
		for x, r := range ch {
			if c > 0 && x == 0 {
				continue // end of the range opened by the previous chunk
			}
			members++
			b.WriteString(globClassRune(r))
			if c < len(chunks)-1 && x == len(ch)-1 {
				b.WriteString("-" + globClassRune(chunks[c+1][0]))
			}
		}
	}
	switch {
	case members == 0 && negate:
		return ".", next, true // "[!]" left after range removal: any character
	case members == 0:
		return `[^\x00-\x{10FFFF}]`, next, true // empty set: never matches
	case negate:
		return "[^" + b.String() + "]", next, true
	}
	return "[" + b.String() + "]", next, true
}

// globClassRune escapes every class member so ] \ ^ - [ need no special care.
func globClassRune(r rune) string {
	return `\x{` + strconv.FormatInt(int64(r), 16) + "}"
}
