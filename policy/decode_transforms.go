package policy

import (
	"regexp"
	"slices"
	"strings"
)

// Transforms as the decoder reads them: pipelines, transform options
// and their kinds, projection paths, custom detectors, and transform ids
// inherited from a parent policy. The typed readers they use are in
// decode.go.

// pipeline reads a list of transform entries.
func (d *decoder) pipeline(o *Value, key, path string) []TransformEntry {
	v := o.Get(key)
	if v == nil {
		return nil
	}
	p := joinPath(path, key)
	var out []TransformEntry
	seen := map[string]bool{}
	d.list(v, p, "list of transforms", func(e *Value, ep string) {
		var t TransformEntry
		switch e.Kind {
		case StringValue:
			t.Type = e.Text
		case ObjectValue:
			if !d.object(e, ep, entryKeys) {
				return
			}
			tv := e.Get("type")
			if tv == nil {
				d.fail(ep, "missing required key \"type\" (want one of %s)", transformTypeNames())
				return
			}
			if tv.Kind != StringValue {
				d.wrongType(joinPath(ep, "type"), tv, "transform type")
				return
			}
			t.Type = tv.Text
			t.ID = d.str(e, "id", ep, "")
			if t.ID == "" && isStr(e, "id") {
				d.fail(joinPath(ep, "id"), "empty id")
			}
			t.Options = e.Get("options")
		default:
			d.wrongType(ep, e, "transform type name or {type, id, options}")
			return
		}
		typePath := ep
		if e.Kind == ObjectValue {
			typePath = joinPath(ep, "type")
		}
		tt := LookupTransformType(t.Type)
		if tt == nil {
			d.fail(typePath, "unknown transform type %q (want %s)", t.Type, transformTypeNames())
			return
		}
		t.Type = tt.Name
		if t.ID == "" {
			t.ID = t.Type
		}
		if t.ID != t.Type && LookupTransformType(t.ID) != nil {
			d.fail(joinPath(ep, "id"), "id %q is the name of a transform type; options keyed by it would reach every %s entry (choose another id)", t.ID, LookupTransformType(t.ID).Name)
		}
		if seen[t.ID] {
			d.fail(ep, "duplicate transform id %q in one pipeline (give the entry an id)", t.ID)
		}
		seen[t.ID] = true
		if prev, ok := d.transformIDs[t.ID]; ok && prev != t.Type {
			d.fail(ep, "transform id %q is used for types %s and %s", t.ID, prev, t.Type)
		}
		d.transformIDs[t.ID] = t.Type
		if t.Options == nil {
			t.Options = Object()
		} else {
			d.options(t.Options, joinPath(ep, "options"), tt)
		}
		out = append(out, t)
	})
	return out
}

// options checks an option map against a transform type.
func (d *decoder) options(v *Value, path string, tt *TransformType) {
	if v.Kind != ObjectValue {
		d.wrongType(path, v, "object of options")
		return
	}
	for _, m := range v.Object {
		kind, ok := tt.Options[m.Key]
		p := joinPath(path, m.Key)
		if !ok {
			names := make([]string, 0, len(tt.Options))
			for n := range tt.Options {
				names = append(names, n)
			}
			slices.Sort(names)
			d.fail(p, "unknown option %q for transform %s (want one of %s)", m.Key, tt.Name, quoteList(names))
			continue
		}
		d.option(m.Value, p, kind)
	}
}

func (d *decoder) option(v *Value, path string, kind optionKind) {
	want := optionKindWant[kind]
	switch kind {
	case optBool:
		if v.Kind != BoolValue {
			d.wrongType(path, v, want)
		}
	case optString:
		if v.Kind != StringValue {
			d.wrongType(path, v, want)
		}
	case optChar:
		if v.Kind != StringValue || len([]rune(v.Text)) != 1 {
			d.wrongType(path, v, want)
		}
	case optNonNeg:
		d.intValue(v, path, 0, 0)
	case optPositive:
		d.intValue(v, path, 0, 1)
	case optSensitivity:
		d.sensitivity(v, path)
	case optPaths:
		d.list(v, path, want, func(e *Value, ep string) {
			if e.Kind != StringValue {
				d.wrongType(ep, e, "projection path string")
				return
			}
			if msg := checkProjectionPath(e.Text); msg != "" {
				d.fail(ep, "bad projection path %q: %s", e.Text, msg)
			}
		})
	case optDetectors:
		d.list(v, path, want, func(e *Value, ep string) {
			if e.Kind != StringValue {
				d.wrongType(ep, e, "detector name or @pii/@secrets")
				return
			}
			if !d.partial && !contains(DetectorGroups, e.Text) && !d.knownDetector(e.Text) {
				d.fail(ep, "unknown detector %q (want a built-in or custom detector name, @pii or @secrets)", e.Text)
			}
		})
	}
}

// checkProjectionPath validates the dotted syntax of manual 11.7.
func checkProjectionPath(p string) string {
	if p == "" {
		return "empty path"
	}
	seg := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			if i+1 >= len(p) || (p[i+1] != '.' && p[i+1] != '*' && p[i+1] != '\\') {
				return `"\" escapes only ".", "*" and "\"`
			}
			i++
			seg++
		case '.':
			if seg == 0 {
				return "empty segment"
			}
			seg = 0
		default:
			seg++
		}
	}
	if seg == 0 {
		return "empty segment"
	}
	return ""
}

func (d *decoder) knownDetector(name string) bool {
	return builtinDetector(name) != nil || d.customDetectors[name]
}

// transformOptions reads a transform_options map: keys are transform types
// or ids, values option objects.
func (d *decoder) transformOptions(o *Value, path string) *Value {
	v := o.Get("transform_options")
	if v == nil {
		return Object()
	}
	p := joinPath(path, "transform_options")
	if v.Kind != ObjectValue {
		d.wrongType(p, v, "object of transform type or id to options")
		return Object()
	}
	for _, m := range v.Object {
		d.optionsFor(m.Key, m.Value, joinPath(p, m.Key))
	}
	return v
}

// optionsFor checks the options keyed by a transform type or id.
func (d *decoder) optionsFor(key string, v *Value, path string) {
	if tt := LookupTransformType(key); tt != nil {
		d.options(v, path, tt)
		return
	}
	if typ, ok := d.transformIDs[key]; ok {
		d.options(v, path, LookupTransformType(typ))
		return
	}
	if typ := inheritedTransformType(d.inherited, key); typ != nil {
		d.options(v, path, typ)
		return
	}
	if d.partial {
		if v.Kind != ObjectValue {
			d.wrongType(path, v, "object of options")
		}
		return
	}
	d.fail(path, "%q is neither a transform type (%s) nor the id of a transform in this policy", key, transformTypeNames())
}

var detectorName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
var detectorLabel = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

func (d *decoder) detectors(o *Value, path string) []DetectorConfig {
	v := o.Get("detectors")
	if v == nil {
		return nil
	}
	var out []DetectorConfig
	seen := map[string]bool{}
	d.list(v, joinPath(path, "detectors"), "list of detectors", func(e *Value, ep string) {
		if !d.object(e, ep, detectorKeys) {
			return
		}
		c := DetectorConfig{Sensitivity: Confidential, Validate: "none", Window: 32}
		c.Name = d.str(e, "name", ep, "")
		switch {
		case e.Get("name") == nil:
			d.fail(ep, "missing required key \"name\"")
		case !isStr(e, "name"):
		case !detectorName.MatchString(c.Name):
			d.fail(joinPath(ep, "name"), "want a lower-case identifier ([a-z][a-z0-9_]*), got %q", c.Name)
		case builtinDetector(c.Name) != nil:
			d.fail(joinPath(ep, "name"), "%q is a built-in detector (switch it off with disabled_detectors and give yours another name)", c.Name)
		case seen[c.Name]:
			d.fail(joinPath(ep, "name"), "duplicate detector name %q", c.Name)
		}
		seen[c.Name] = true
		c.Label = d.str(e, "label", ep, strings.ToUpper(c.Name))
		if isStr(e, "label") && !detectorLabel.MatchString(c.Label) {
			d.fail(joinPath(ep, "label"), "want an upper-case label ([A-Z][A-Z0-9_]*), got %q", c.Label)
		}
		if s := e.Get("sensitivity"); s != nil {
			c.Sensitivity = d.sensitivity(s, joinPath(ep, "sensitivity"))
		}
		c.CaseInsensitive = d.boolean(e, "case_insensitive", ep, false)
		c.Pattern = d.str(e, "pattern", ep, "")
		var re *regexp.Regexp
		if e.Get("pattern") == nil {
			d.fail(ep, "missing required key \"pattern\" (want an RE2 expression)")
		} else if !isStr(e, "pattern") {
		} else if c.Pattern == "" {
			d.fail(joinPath(ep, "pattern"), "empty pattern (want an RE2 expression)")
		} else {
			src := c.Pattern
			if c.CaseInsensitive {
				src = "(?i)" + src
			}
			var err error
			if re, err = regexp.Compile(src); err != nil {
				d.fail(joinPath(ep, "pattern"), "does not compile as RE2: %v", err)
			}
		}
		if g := e.Get("group"); g != nil {
			gp := joinPath(ep, "group")
			switch g.Kind {
			case StringValue:
				c.GroupName = g.Text
				if re != nil {
					if c.Group = re.SubexpIndex(g.Text); c.Group < 0 {
						d.fail(gp, "the pattern has no capture group named %q", g.Text)
					}
				}
			default:
				c.Group = d.intValue(g, gp, 0, 0)
				if re != nil && c.Group > re.NumSubexp() {
					d.fail(gp, "the pattern has %d capture groups, got group %d", re.NumSubexp(), c.Group)
				}
			}
		}
		c.Validate = detectorValidations[d.enum(e, "validate", ep, detectorValidations, "none, luhn, mod97", 0)]
		c.Keywords = d.strings(e, "keywords", ep)
		c.Window = d.integer(e, "window", ep, 32, 1)
		out = append(out, c)
	})
	return out
}

// inheritedTransformType finds the type of transform id in a flattened
// parent policy (its pipelines and its rules' pipelines), or nil.
func inheritedTransformType(parent *Value, id string) *TransformType {
	if parent == nil {
		return nil
	}
	docs := []*Value{parent}
	if roles := parent.Get("roles"); roles != nil {
		for _, m := range roles.Object {
			docs = append(docs, m.Value)
		}
	}
	if rules := parent.Get("rules"); rules != nil {
		docs = append(docs, rules.Array...)
	}
	for _, doc := range docs {
		for _, key := range []string{"transforms", "input_transforms"} {
			list := doc.Get(key)
			if list == nil {
				continue
			}
			for _, e := range list.Array {
				typ, eid := e.Text, e.Text
				if e.Kind == ObjectValue {
					typ = e.Get("type").Text
					eid = typ
					if i := e.Get("id"); i != nil {
						eid = i.Text
					}
				}
				if eid == id {
					return LookupTransformType(typ)
				}
			}
		}
	}
	return nil
}
