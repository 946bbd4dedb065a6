package policy

import (
	"math"
	"strconv"
	"strings"
)

// decoder turns Values into typed configuration, collecting every error
// with its JSON path instead of stopping at the first.
type decoder struct {
	errs Errors
	// partial skips checks that need the whole extends chain (references to
	// transform ids and custom detectors a parent may define).
	partial bool
	// customDetectors are the names of the policy's custom detectors, for
	// checking references.
	customDetectors map[string]bool
	// transformIDs maps every transform id in the policy to its type.
	transformIDs map[string]string
	// inherited is the flattened parent of the policy being decoded: its
	// custom detectors and transform ids may be referenced.
	inherited *Value
	// ownDetectors are the custom detectors' names (customDetectors also
	// has the dictionaries'); dictionaries maps each dictionary name to
	// the path of its first entry.
	ownDetectors map[string]bool
	dictionaries map[string]string
	// readFile reads dictionary files (detection.dictionaries[].file);
	// nil where there is no file system (the plugin).
	readFile ReadFileFunc
}

func (d *decoder) fail(path, format string, args ...any) { d.errs.add(path, format, args...) }

func (d *decoder) wrongType(path string, v *Value, want string) {
	d.fail(path, "want %s, got %s", want, v.describe())
}

// object checks that v is an object whose keys are all in allowed.
func (d *decoder) object(v *Value, path string, allowed []string) bool {
	if v.Kind != ObjectValue {
		d.wrongType(path, v, "object")
		return false
	}
	for _, m := range v.Object {
		if !contains(allowed, m.Key) {
			d.fail(joinPath(path, m.Key), "unknown key %q (want one of %s)", m.Key, quoteList(allowed))
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// isStr reports whether key is present in o as a string (so checks on its
// value make sense; a wrong type was already reported by str).
func isStr(o *Value, key string) bool {
	v := o.Get(key)
	return v != nil && v.Kind == StringValue
}

func (d *decoder) str(o *Value, key, path, def string) string {
	v := o.Get(key)
	if v == nil {
		return def
	}
	if v.Kind != StringValue {
		d.wrongType(joinPath(path, key), v, "string")
		return def
	}
	return v.Text
}

// nullableStr returns "" for null or absent.
func (d *decoder) nullableStr(o *Value, key, path string) string {
	if v := o.Get(key); v != nil && v.Kind == NullValue {
		return ""
	}
	return d.str(o, key, path, "")
}

func (d *decoder) boolean(o *Value, key, path string, def bool) bool {
	v := o.Get(key)
	if v == nil {
		return def
	}
	if v.Kind != BoolValue {
		d.wrongType(joinPath(path, key), v, "bool")
		return def
	}
	return v.Bool
}

// nullableBool returns nil for null or absent.
func (d *decoder) nullableBool(o *Value, key, path string) *bool {
	v := o.Get(key)
	if v == nil || v.Kind == NullValue {
		return nil
	}
	if v.Kind != BoolValue {
		d.wrongType(joinPath(path, key), v, "bool or null")
		return nil
	}
	b := v.Bool
	return &b
}

// integer reads an integer >= min.
func (d *decoder) integer(o *Value, key, path string, def, min int) int {
	v := o.Get(key)
	if v == nil {
		return def
	}
	return d.intValue(v, joinPath(path, key), def, min)
}

func (d *decoder) intValue(v *Value, path string, def, min int) int {
	want := "integer >= " + strconv.Itoa(min)
	if v.Kind != NumberValue || v.Num != math.Trunc(v.Num) || math.Abs(v.Num) > 1<<53 {
		d.wrongType(path, v, want)
		return def
	}
	if int(v.Num) < min {
		d.fail(path, "want %s, got %s", want, v.Text)
		return def
	}
	return int(v.Num)
}

// positive reads a number > 0.
func (d *decoder) positive(v *Value, path string) float64 {
	if v.Kind != NumberValue {
		d.wrongType(path, v, "number > 0")
		return 0
	}
	if !(v.Num > 0) {
		d.fail(path, "want number > 0, got %s", v.Text)
		return 0
	}
	return v.Num
}

// list checks that v is a list and calls each for every element.
func (d *decoder) list(v *Value, path, want string, each func(e *Value, path string)) bool {
	if v.Kind != ArrayValue {
		d.wrongType(path, v, want)
		return false
	}
	for i, e := range v.Array {
		each(e, indexPath(path, i))
	}
	return true
}

func (d *decoder) strings(o *Value, key, path string) []string {
	v := o.Get(key)
	if v == nil {
		return nil
	}
	out := []string{}
	d.list(v, joinPath(path, key), "list of strings", func(e *Value, p string) {
		if e.Kind != StringValue {
			d.wrongType(p, e, "string")
			return
		}
		out = append(out, e.Text)
	})
	return out
}

// globs reads a list of globs. Absent gives def; null gives nil when
// nullable (else an error); a list gives a compiled, non-nil GlobList.
func (d *decoder) globs(o *Value, key, path string, nullable bool, def *GlobList) *GlobList {
	v := o.Get(key)
	if v == nil {
		return def
	}
	p := joinPath(path, key)
	if v.Kind == NullValue && nullable {
		return nil
	}
	want := "list of globs"
	if nullable {
		want = "list of globs or null"
	}
	var patterns []string
	if !d.list(v, p, want, func(e *Value, ep string) {
		if e.Kind != StringValue {
			d.wrongType(ep, e, "glob string")
			patterns = append(patterns, "")
			return
		}
		patterns = append(patterns, e.Text)
	}) {
		return def
	}
	for i, pat := range patterns {
		if len(pat) > maxGlobBytes {
			d.fail(indexPath(p, i), "glob longer than %d bytes", maxGlobBytes)
			return def
		}
	}
	g, errs := CompileGlobs(patterns)
	for _, ge := range errs {
		switch {
		case ge.Index < 0: // the list as a whole
			msg := ge.Msg
			if i := strings.Index(msg, ": `"); i >= 0 {
				msg = msg[:i] // RE2 quotes the whole expression
			}
			d.fail(p, "the list cannot be compiled into one expression (%s); split or simplify it", msg)
		case v.Array[ge.Index].Kind == StringValue:
			d.fail(indexPath(p, ge.Index), "bad glob %q: %s", ge.Pattern, ge.Msg)
		}
	}
	if len(errs) > 0 {
		return def
	}
	return g
}

// maxGlobBytes bounds one pattern, which keeps compiling a list fast.
const maxGlobBytes = 1024

func emptyGlobs() *GlobList { return MustCompileGlobs() }

func (d *decoder) sensitivity(v *Value, path string) Sensitivity {
	if v.Kind != StringValue {
		d.wrongType(path, v, "sensitivity ("+wantSensitivities+")")
		return SensitivityUnset
	}
	s, ok := ParseSensitivity(v.Text)
	if !ok {
		d.fail(path, "unknown sensitivity %q (want %s)", v.Text, wantSensitivities)
	}
	return s
}

func (d *decoder) capabilities(o *Value, key, path string) CapabilitySet {
	var set CapabilitySet
	v := o.Get(key)
	if v == nil {
		return 0
	}
	d.list(v, joinPath(path, key), "list of capabilities", func(e *Value, p string) {
		if e.Kind != StringValue {
			d.wrongType(p, e, "capability ("+wantCapabilities+")")
			return
		}
		c, ok := ParseCapability(e.Text)
		if !ok {
			d.fail(p, "unknown capability %q (want %s)", e.Text, wantCapabilities)
			return
		}
		set = set.With(c)
	})
	return set
}

func (d *decoder) kinds(o *Value, key, path string, withCompletion bool) KindSet {
	var set KindSet
	v := o.Get(key)
	if v == nil {
		return 0
	}
	want := wantKinds
	if withCompletion {
		want = wantRateKinds
	}
	d.list(v, joinPath(path, key), "list of kinds", func(e *Value, p string) {
		if e.Kind != StringValue {
			d.wrongType(p, e, "kind ("+want+")")
			return
		}
		k, ok := ParseKind(e.Text, withCompletion)
		if !ok {
			d.fail(p, "unknown kind %q (want %s)", e.Text, want)
			return
		}
		set |= 1 << k
	})
	return set
}

func (d *decoder) enum(o *Value, key, path string, names []string, want string, def int) int {
	v := o.Get(key)
	if v == nil {
		return def
	}
	p := joinPath(path, key)
	if v.Kind != StringValue {
		d.wrongType(p, v, "one of "+want)
		return def
	}
	for i, n := range names {
		if n == v.Text {
			return i
		}
	}
	d.fail(p, "unknown %s %q (want %s)", key, v.Text, want)
	return def
}
