package transforms

import (
	"strings"

	"github.com/cloudg/mcp-privacy/policy"
)

// DetectorSet is the detectors a policy runs: the built-ins of SPEC 12 not
// switched off by disabled_detectors, in table order, and its custom
// detectors (SPEC 12.5).
type DetectorSet struct {
	builtins []builtinEntry
	custom   []*customDetector
	rank     map[string]int // table order, for overlap ties
}

type builtinEntry struct {
	meta *policy.BuiltinDetector
	scan scanFunc
}

// NewDetectorSet builds the detector set of a policy.
func NewDetectorSet(p *policy.Policy) (*DetectorSet, error) {
	off := map[string]bool{}
	for _, n := range p.DisabledDetectors {
		off[n] = true
	}
	ds := &DetectorSet{rank: map[string]int{}}
	for i := range policy.BuiltinDetectors {
		b := &policy.BuiltinDetectors[i]
		ds.rank[b.Name] = i
		if scan, ok := scanners[b.Name]; ok && !off[b.Name] {
			ds.builtins = append(ds.builtins, builtinEntry{meta: b, scan: scan})
		}
	}
	for i := range p.Detectors {
		c := &p.Detectors[i]
		ds.rank[c.Name] = len(policy.BuiltinDetectors) + i
		if off[c.Name] {
			continue
		}
		cd, err := newCustomDetector(c)
		if err != nil {
			return nil, err
		}
		ds.custom = append(ds.custom, cd)
	}
	return ds, nil
}

// Selection is which detectors a transform uses: its `detectors` option
// (names, @pii, @secrets; empty = all) and `min_sensitivity`.
type Selection struct {
	names          map[string]bool
	groups         map[string]bool
	all            bool
	minSensitivity policy.Sensitivity
}

// Select builds a selection from a transform's options.
func Select(names []string, minSensitivity policy.Sensitivity) Selection {
	s := Selection{minSensitivity: minSensitivity, all: len(names) == 0, names: map[string]bool{}, groups: map[string]bool{}}
	for _, n := range names {
		if g, ok := strings.CutPrefix(n, "@"); ok {
			s.groups[g] = true
		} else {
			s.names[n] = true
		}
	}
	return s
}

func (s Selection) wants(name, group string, sens policy.Sensitivity) bool {
	if sens < s.minSensitivity {
		return false
	}
	return s.all || s.names[name] || (group != "" && s.groups[group])
}

// Detect finds what the selected detectors see in s, overlaps resolved
// (SPEC 12), in order.
func (ds *DetectorSet) Detect(s string, sel Selection) []Detection {
	var out []Detection
	var spans []Span
	for _, b := range ds.builtins {
		if !sel.wants(b.meta.Name, b.meta.Group, b.meta.Sensitivity) {
			continue
		}
		spans = b.scan(s, spans[:0])
		for _, sp := range spans {
			if sp.Start < 0 || sp.End > len(s) || sp.Start >= sp.End || !boundary(s, sp.Start) || !boundary(s, sp.End) {
				continue
			}
			out = append(out, Detection{Detector: b.meta.Name, Label: b.meta.Label, Sensitivity: b.meta.Sensitivity, Start: sp.Start, End: sp.End})
		}
	}
	for _, c := range ds.custom {
		if sel.wants(c.cfg.Name, "", c.cfg.Sensitivity) {
			out = c.detect(s, out)
		}
	}
	if len(out) < 2 {
		return out
	}
	return resolveOverlaps(out, func(name string) int { return ds.rank[name] })
}
