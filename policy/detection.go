package policy

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The detection block (manual 6.1, 12.9.6): how an operator corrects the
// detectors on both sides. Allow lists take values away (never reported),
// dictionaries add terms (always reported), keys and context words extend
// the built-ins, phone_regions names the national phone formats that
// count. A policy has one; a rule or role may carry allow lists and
// dictionaries for the calls it matches.

// Detection is a validated detection block. Nil fields add nothing.
type Detection struct {
	Allow        []AllowEntry
	Dictionaries []Dictionary
	// Keys and Context are extra JSON member names and context words per
	// built-in family detector (person, street_address, the identifiers…),
	// as written.
	Keys    map[string][]string
	Context map[string][]string
	// PhoneRegions are ISO 3166-1 alpha-2 codes; nil: the default set.
	PhoneRegions []string
	// Path is where the block is: detection, or rules[2].detection.
	Path string
}

// AllowEntry is one entry of detection.allow: values, globs and patterns
// a detection's value is compared with, for some detectors or all.
type AllowEntry struct {
	// Values are compared case-insensitively (Unicode simple folding),
	// runs of white space read as one space.
	Values []string
	// Globs (6.7) match the whole value, case-insensitively.
	Globs []string
	// Patterns are RE2 expressions matching the whole value.
	Patterns []string
	// Detectors the entry applies to; nil: every detector.
	Detectors []string
	// Path is the entry's JSON path, e.g. detection.allow[0], for explain.
	Path string
}

// Dictionary is one entry of detection.dictionaries: terms always
// reported under Label, matched case-insensitively on word boundaries.
type Dictionary struct {
	Name        string
	Label       string
	Sensitivity Sensitivity
	Group       string // pii or secrets: which group selects it
	// Terms are the inline terms followed by the file's, when read.
	Terms []string
	// File is the file named by the entry ("" when none); FileRead says
	// its terms are in Terms (the CLI reads it; under Envoy, which has no
	// file system, it is not read).
	File     string
	FileRead bool
	Path     string
}

// MaxTermBytes bounds a dictionary term.
const MaxTermBytes = 256

var (
	detectionKeys     = objectKeys("Detection")
	ruleDetectionKeys = objectKeys("RuleDetection")
	allowKeys         = objectKeys("AllowEntry")
	dictionaryKeys    = objectKeys("Dictionary")
	phoneRegion       = regexp.MustCompile(`^[A-Z]{2}$`)
	dictionaryGroups  = dictionaryGroupNames
)

// FamilyDetector reports whether name is a built-in detector that reads
// keys and context words (the families of manual 12.9: person onwards).
func FamilyDetector(name string) bool {
	seen := false
	for i := range BuiltinDetectors {
		seen = seen || BuiltinDetectors[i].Name == "person"
		if BuiltinDetectors[i].Name == name {
			return seen
		}
	}
	return false
}

// dictionaryNames adds to d.customDetectors the names of the dictionaries
// of the policy document v (its own and its rules' and roles'), before
// anything that references detector names is checked.
func (d *decoder) dictionaryNames(v *Value) {
	add := func(doc *Value) {
		if doc == nil || doc.Kind != ObjectValue {
			return
		}
		det := doc.Get("detection")
		if det == nil || det.Kind != ObjectValue {
			return
		}
		if ds := det.Get("dictionaries"); ds != nil && ds.Kind == ArrayValue {
			for _, e := range ds.Array {
				if e.Kind == ObjectValue && isStr(e, "name") {
					d.customDetectors[e.Get("name").Text] = true
				}
			}
		}
	}
	for _, doc := range []*Value{v, d.inherited} {
		if doc == nil {
			continue
		}
		add(doc)
		if r := doc.Get("roles"); r != nil && r.Kind == ObjectValue {
			for _, m := range r.Object {
				add(m.Value)
			}
		}
		if r := doc.Get("rules"); r != nil && r.Kind == ArrayValue {
			for _, e := range r.Array {
				add(e)
			}
		}
	}
}

// detection reads the detection block of o (a policy, or a rule when
// inRule). Nil when absent.
func (d *decoder) detection(o *Value, path string, inRule bool) *Detection {
	v := o.Get("detection")
	if v == nil || v.Kind == NullValue {
		return nil
	}
	p := joinPath(path, "detection")
	keys := detectionKeys
	if inRule {
		keys = ruleDetectionKeys
	}
	if v.Kind == ObjectValue {
		for _, m := range v.Object {
			if inRule && contains(detectionKeys, m.Key) && !contains(keys, m.Key) {
				d.fail(joinPath(p, m.Key), "%q is policy-wide: only allow and dictionaries may be set per rule", m.Key)
			}
		}
		// The keys reported above are not reported again as unknown.
		if inRule {
			keys = detectionKeys
		}
	}
	if !d.object(v, p, keys) {
		return nil
	}
	det := &Detection{Path: p}
	if a := v.Get("allow"); a != nil {
		d.list(a, joinPath(p, "allow"), "list of allow entries", func(e *Value, ep string) {
			if ae, ok := d.allowEntry(e, ep); ok {
				det.Allow = append(det.Allow, ae)
			}
		})
	}
	if ds := v.Get("dictionaries"); ds != nil {
		d.list(ds, joinPath(p, "dictionaries"), "list of dictionaries", func(e *Value, ep string) {
			if dc, ok := d.dictionary(e, ep); ok {
				det.Dictionaries = append(det.Dictionaries, dc)
			}
		})
	}
	if inRule {
		return det
	}
	det.Keys = d.wordsPerDetector(v, "keys", p, "JSON member names")
	det.Context = d.wordsPerDetector(v, "context", p, "context words")
	if r := v.Get("phone_regions"); r != nil {
		rp := joinPath(p, "phone_regions")
		det.PhoneRegions = []string{}
		seen := map[string]bool{}
		d.list(r, rp, "list of ISO 3166-1 alpha-2 region codes", func(e *Value, ep string) {
			switch {
			case e.Kind != StringValue:
				d.wrongType(ep, e, "region code such as \"GB\"")
			case !phoneRegion.MatchString(e.Text):
				d.fail(ep, "want an upper-case ISO 3166-1 alpha-2 region code such as \"GB\", got %q", e.Text)
			case seen[e.Text]:
				d.fail(ep, "duplicate region %q", e.Text)
			default:
				seen[e.Text] = true
				det.PhoneRegions = append(det.PhoneRegions, e.Text)
			}
		})
	}
	return det
}

// allowEntry reads one entry of detection.allow.
func (d *decoder) allowEntry(e *Value, ep string) (AllowEntry, bool) {
	ae := AllowEntry{Path: ep}
	if !d.object(e, ep, allowKeys) {
		return ae, false
	}
	ae.Values = d.nonEmptyStrings(e, "values", ep, "value")
	ae.Globs = d.nonEmptyStrings(e, "globs", ep, "glob")
	for i, g := range ae.Globs {
		if len(g) > maxGlobBytes {
			d.fail(indexPath(joinPath(ep, "globs"), i), "glob longer than %d bytes", maxGlobBytes)
			continue
		}
		if _, err := regexp.Compile(AllowGlobRegexp(g)); err != nil || strings.HasPrefix(g, "!") {
			msg := "negations (!) have no meaning in an allow list"
			if err != nil {
				msg = err.Error()
			}
			d.fail(indexPath(joinPath(ep, "globs"), i), "bad glob %q: %s", g, msg)
		}
	}
	ae.Patterns = d.nonEmptyStrings(e, "patterns", ep, "pattern")
	for i, pat := range ae.Patterns {
		if _, err := regexp.Compile(AllowPatternRegexp(pat)); err != nil {
			d.fail(indexPath(joinPath(ep, "patterns"), i), "does not compile as RE2: %v", err)
		}
	}
	if len(ae.Values)+len(ae.Globs)+len(ae.Patterns) == 0 && (e.Get("values") == nil && e.Get("globs") == nil && e.Get("patterns") == nil) {
		d.fail(ep, "an allow entry needs values, globs or patterns")
	}
	if dv := e.Get("detectors"); dv != nil {
		ae.Detectors = d.nonEmptyStrings(e, "detectors", ep, "detector name")
		for i, n := range ae.Detectors {
			if !d.partial && !d.knownDetector(n) && n != "" {
				d.fail(indexPath(joinPath(ep, "detectors"), i), "unknown detector %q (want a built-in, custom or dictionary detector name)", n)
			}
		}
		if len(ae.Detectors) == 0 && dv.Kind == ArrayValue {
			d.fail(joinPath(ep, "detectors"), "empty list (leave detectors out to allow the values for every detector)")
		}
	}
	return ae, true
}

// AllowGlobRegexp is the RE2 source an allow glob is matched with: the
// glob of 6.7 over the whole value, case-insensitively.
func AllowGlobRegexp(glob string) string { return "(?i)^" + TranslateGlob(glob) + "$" }

// AllowPatternRegexp is the RE2 source an allow pattern is matched with:
// the whole value.
func AllowPatternRegexp(pattern string) string { return "^(?:" + pattern + ")$" }

// nonEmptyStrings reads a list of non-empty strings.
func (d *decoder) nonEmptyStrings(o *Value, key, path, what string) []string {
	v := o.Get(key)
	if v == nil {
		return nil
	}
	var out []string
	d.list(v, joinPath(path, key), "list of strings", func(e *Value, ep string) {
		switch {
		case e.Kind != StringValue:
			d.wrongType(ep, e, what+" string")
		case strings.TrimSpace(e.Text) == "":
			d.fail(ep, "empty %s", what)
		default:
			out = append(out, e.Text)
		}
	})
	return out
}

// dictionary reads one entry of detection.dictionaries.
func (d *decoder) dictionary(e *Value, ep string) (Dictionary, bool) {
	dc := Dictionary{Path: ep, Sensitivity: Confidential, Group: "pii"}
	if !d.object(e, ep, dictionaryKeys) {
		return dc, false
	}
	dc.Name = d.str(e, "name", ep, "")
	switch {
	case e.Get("name") == nil:
		d.fail(ep, "missing required key \"name\"")
	case !isStr(e, "name"):
	case !detectorName.MatchString(dc.Name):
		d.fail(joinPath(ep, "name"), "want a lower-case identifier ([a-z][a-z0-9_]*), got %q", dc.Name)
	case builtinDetector(dc.Name) != nil:
		d.fail(joinPath(ep, "name"), "%q is a built-in detector (give the dictionary another name)", dc.Name)
	case d.dictionaries[dc.Name] != "":
		d.fail(joinPath(ep, "name"), "duplicate dictionary name %q (also %s)", dc.Name, d.dictionaries[dc.Name])
	case d.ownDetectors[dc.Name]:
		d.fail(joinPath(ep, "name"), "%q is the name of a custom detector", dc.Name)
	}
	if dc.Name != "" && d.dictionaries[dc.Name] == "" {
		d.dictionaries[dc.Name] = ep
	}
	dc.Label = d.str(e, "label", ep, strings.ToUpper(dc.Name))
	if isStr(e, "label") && !detectorLabel.MatchString(dc.Label) {
		d.fail(joinPath(ep, "label"), "want an upper-case label ([A-Z][A-Z0-9_]*), got %q", dc.Label)
	}
	if s := e.Get("sensitivity"); s != nil {
		dc.Sensitivity = d.sensitivity(s, joinPath(ep, "sensitivity"))
	}
	dc.Group = dictionaryGroups[d.enum(e, "group", ep, dictionaryGroups, "pii, secrets", 0)]
	dc.Terms = d.nonEmptyStrings(e, "terms", ep, "term")
	for i, t := range dc.Terms {
		if msg := termProblem(t); msg != "" {
			d.fail(indexPath(joinPath(ep, "terms"), i), "%s", msg)
		}
	}
	dc.File = d.nullableStr(e, "file", ep)
	if isStr(e, "file") && dc.File == "" {
		d.fail(joinPath(ep, "file"), "empty file name")
	}
	if e.Get("terms") == nil && dc.File == "" {
		d.fail(ep, "a dictionary needs terms or a file")
	}
	if dc.File != "" && d.readFile != nil && !d.partial {
		data, err := d.readFile(dc.File)
		if err != nil {
			d.fail(joinPath(ep, "file"), "cannot read %q: %v", dc.File, err)
		} else {
			terms, line, msg := ReadDictionaryFile(data)
			if msg != "" {
				d.fail(joinPath(ep, "file"), "%s line %d: %s", dc.File, line, msg)
			}
			dc.Terms = append(dc.Terms, terms...)
			dc.FileRead = true
		}
	}
	return dc, true
}

// termProblem says why a dictionary term is unusable, or "".
func termProblem(t string) string {
	switch {
	case !utf8.ValidString(t):
		return "invalid UTF-8"
	case len(t) > MaxTermBytes:
		return "term longer than " + itoa(MaxTermBytes) + " bytes"
	}
	return ""
}

// ReadDictionaryFile reads a dictionary file: one term per line, white
// space around it trimmed; empty lines and lines starting with # are
// skipped. On a bad line it returns the terms before it, the line's
// number and what is wrong.
func ReadDictionaryFile(data []byte) (terms []string, line int, msg string) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if m := termProblem(t); m != "" {
			return terms, line, m
		}
		terms = append(terms, t)
	}
	if err := sc.Err(); err != nil {
		return terms, line + 1, err.Error()
	}
	return terms, 0, ""
}

// wordsPerDetector reads keys or context: a map of family detector name
// to a list of non-empty strings.
func (d *decoder) wordsPerDetector(o *Value, key, path, what string) map[string][]string {
	v := o.Get(key)
	if v == nil {
		return nil
	}
	p := joinPath(path, key)
	if v.Kind != ObjectValue {
		d.wrongType(p, v, "object of detector name to list of "+what)
		return nil
	}
	out := map[string][]string{}
	for _, m := range v.Object {
		mp := joinPath(p, m.Key)
		if !FamilyDetector(m.Key) {
			d.fail(mp, "%q is not a built-in detector that reads %s (want person, street_address, date_of_birth, passport, an identifier such as uk_nino…)", m.Key, what)
			continue
		}
		var words []string
		d.list(m.Value, mp, "list of "+what, func(e *Value, ep string) {
			switch {
			case e.Kind != StringValue:
				d.wrongType(ep, e, "string")
			case strings.TrimSpace(e.Text) == "":
				d.fail(ep, "empty %s", strings.TrimSuffix(what, "s"))
			case len(e.Text) > 64:
				d.fail(ep, "longer than 64 bytes")
			default:
				words = append(words, e.Text)
			}
		})
		out[m.Key] = words
	}
	return out
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		if n /= 10; n == 0 {
			break
		}
	}
	return string(b[i:])
}

// mergeDetection merges a child policy's detection block over its
// parent's (manual 5.2): allow entries are concatenated, the parent's
// first; dictionaries merge by name (a child's replaces the parent's of
// that name in its place, new ones follow); keys and context take the
// union of the words per detector; phone_regions is the child's when it
// sets one.
func mergeDetection(parent, child *Value) *Value {
	if parent == nil || parent.Kind != ObjectValue || child.Kind != ObjectValue {
		return child.Clone()
	}
	out := parent.Clone()
	for _, m := range child.Object {
		k, cv := m.Key, m.Value
		pv := out.Get(k)
		switch {
		case pv == nil:
			out.Set(k, cv.Clone())
		case k == "allow":
			out.Set(k, concat(pv, cv))
		case k == "dictionaries":
			out.Set(k, mergeNamed(pv, cv, true))
		case k == "keys" || k == "context":
			merged := pv.Clone()
			for _, w := range cv.Object {
				merged.Set(w.Key, unionStrings(merged.Get(w.Key), w.Value))
			}
			out.Set(k, merged)
		default:
			out.Set(k, cv.Clone())
		}
	}
	return out
}
