package detect

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/policy"
)

// Allow lists (manual 12.9.6): values, globs and RE2 patterns an
// operator never wants reported, for some detectors or all. They are
// applied to the hits of a scan before overlaps are resolved: an allowed
// span is gone before it could hide a longer finding that overlaps it
// (a URL with credentials around an allowed address).
//
// A hit is compared as a reader sees it (the reader view the detectors
// read). Values compare folded: the least rune of each character's
// simple-folding orbit (as dictionaries match), runs of white space as
// one space, white space around trimmed; globs case-insensitively, and
// patterns as written, each over the whole value. Lookups run only on
// hits, never over text.

// allowEntry is a compiled policy.AllowEntry.
type allowEntry struct {
	values   map[string]struct{} // folded
	res      []*regexp.Regexp    // globs, then patterns
	detector map[string]bool     // nil: every detector
	path     string
}

func newAllowEntry(a *policy.AllowEntry) (*allowEntry, error) {
	e := &allowEntry{path: a.Path}
	if len(a.Values) > 0 {
		e.values = make(map[string]struct{}, len(a.Values))
		for _, v := range a.Values {
			e.values[string(foldValue(nil, v))] = struct{}{}
		}
	}
	for _, g := range a.Globs {
		re, err := regexp.Compile(policy.AllowGlobRegexp(g))
		if err != nil {
			return nil, err
		}
		e.res = append(e.res, re)
	}
	for _, p := range a.Patterns {
		re, err := regexp.Compile(policy.AllowPatternRegexp(p))
		if err != nil {
			return nil, err
		}
		e.res = append(e.res, re)
	}
	if a.Detectors != nil {
		e.detector = map[string]bool{}
		for _, d := range a.Detectors {
			e.detector[d] = true
		}
	}
	return e, nil
}

// allows reports whether the entry allows value (folded: its folded form)
// found by detector.
func (e *allowEntry) allows(detector, value string, folded []byte) bool {
	if e.detector != nil && !e.detector[detector] {
		return false
	}
	if e.values != nil {
		if _, ok := e.values[string(folded)]; ok {
			return true
		}
	}
	for _, re := range e.res {
		if re.MatchString(value) {
			return true
		}
	}
	return false
}

// foldValue appends v folded to dst: each rune folded (foldRune), each run
// of white space one space, none at either end.
func foldValue(dst []byte, v string) []byte {
	v = strings.TrimFunc(v, isSpaceRune)
	space := false
	for _, r := range v {
		if isSpaceRune(r) {
			space = true
			continue
		}
		if space {
			dst = append(dst, ' ')
			space = false
		}
		dst = utf8.AppendRune(dst, foldRune(r))
	}
	return dst
}

func isSpaceRune(r rune) bool {
	if r < 0x80 {
		return dictClass[r] == tkSpace
	}
	return runeKind(r) == tkSpace
}

// allowList is the allow entries that apply to a scan: the policy's, then
// those of the matched rules.
type allowList []*allowEntry

// allowedBy returns the entry that allows value found by detector, or
// nil; buf is scratch for the folded value (returned for reuse).
func (l allowList) allowedBy(detector, value string, buf []byte) (*allowEntry, []byte) {
	if len(l) == 0 {
		return nil, buf
	}
	buf = foldValue(buf[:0], value)
	for _, e := range l {
		if e.allows(detector, value, buf) {
			return e, buf
		}
	}
	return nil, buf
}
