// Package transforms finds personal data and secrets in strings and
// rewrites them (SPEC 10–13): the built-in detectors of SPEC 12, custom
// ones, the transform pipeline and the pseudonym vault. It is pure Go: it
// knows the policy language (package policy) but nothing of proxy-wasm,
// HTTP or MCP framing.
package transforms

import (
	"sort"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/policy"
)

// Detection is one finding: which detector, what label and sensitivity,
// and where, as byte offsets into the scanned string (on rune boundaries).
type Detection struct {
	Detector    string
	Label       string
	Sensitivity policy.Sensitivity
	Start, End  int
}

// Span is a candidate a scanner found: [Start, End) in bytes.
type Span struct{ Start, End int }

// scanFunc appends to dst the spans of one detector in s. Scanners are
// hand-written: they look for cheap trigger bytes ('@', digits, ':', known
// prefixes) and validate around them, because Go's regexp runs at about
// 1 MB/s inside the VM (../shared/notes/performance.md).
type scanFunc func(s string, dst []Span) []Span

// scanners maps a built-in detector's name to its scanner; the files
// detect_*.go register them.
var scanners = map[string]scanFunc{}

func register(name string, f scanFunc) {
	if policy.LookupBuiltinDetector(name) == nil {
		panic("transforms: no built-in detector " + name)
	}
	scanners[name] = f
}

// Builtin scans s with one built-in detector (by name) and returns its
// detections, for tests and tools; nil for an unknown name.
func Builtin(name string, s string) []Detection {
	f, ok := scanners[name]
	if !ok {
		return nil
	}
	d := policy.LookupBuiltinDetector(name)
	var out []Detection
	for _, sp := range f(s, nil) {
		if sp.Start < 0 || sp.End > len(s) || sp.Start >= sp.End || !boundary(s, sp.Start) || !boundary(s, sp.End) {
			continue
		}
		out = append(out, Detection{Detector: name, Label: d.Label, Sensitivity: d.Sensitivity, Start: sp.Start, End: sp.End})
	}
	return out
}

// boundary reports whether i is at a rune boundary of s: detections never
// split a multi-byte character.
func boundary(s string, i int) bool {
	return i == len(s) || utf8.RuneStart(s[i])
}

// resolveOverlaps keeps, among overlapping detections, the one that starts
// first, then the longer, then the more sensitive, then the earlier in
// SPEC 12's table (rank).
func resolveOverlaps(ds []Detection, rank func(string) int) []Detection {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		switch {
		case a.Start != b.Start:
			return a.Start < b.Start
		case a.End-a.Start != b.End-b.Start:
			return a.End-a.Start > b.End-b.Start
		case a.Sensitivity != b.Sensitivity:
			return a.Sensitivity > b.Sensitivity
		}
		return rank(a.Detector) < rank(b.Detector)
	})
	out := ds[:0]
	end := -1
	for _, d := range ds {
		if d.Start >= end {
			out = append(out, d)
			end = d.End
		}
	}
	return out
}
