package policy

import "path/filepath"

// Options says where a configuration came from.
type Options struct {
	// File is the path the document was read from ("" when not a file);
	// relative extends paths resolve against its directory.
	File string
	// ReadFile reads policy files named by extends. Nil (the plugin) allows
	// profile names only.
	ReadFile ReadFileFunc
}

// ParsePolicy reads a PolicyConfig from JSON or YAML, resolves extends and
// validates it, returning every error found.
func ParsePolicy(data []byte, opt Options) (*Policy, Errors) {
	doc, err := ParseDocument(data)
	if err != nil {
		return nil, Errors{{Path: opt.File, Msg: err.Error()}}
	}
	return DecodePolicy(doc, "", opt)
}

// DecodePolicy validates a policy document: a PolicyConfig object or a
// profile name. path prefixes error paths (e.g. "policy" in an envelope).
func DecodePolicy(doc *Value, path string, opt Options) (*Policy, Errors) {
	if doc.Kind == StringValue {
		if _, ok := Profiles[doc.Text]; !ok {
			return nil, Errors{{Path: path, Msg: "unknown profile " + quote(doc.Text) + " (want " + quoteList(ProfileNames) + ")"}}
		}
		doc = Object(Member{"extends", doc})
	}
	if doc.Kind != ObjectValue {
		return nil, Errors{{Path: path, Msg: "want policy object or profile name, got " + doc.describe()}}
	}
	// The ancestors are checked file by file; the document itself is
	// checked whole, with what it inherits in view, so that all of its
	// errors are reported at once with paths into the document as written.
	parent, errs := flattenParent(doc, opt.File, opt.ReadFile, []string{chainName(opt.File)}, "")
	d := decoder{inherited: parent, partial: len(errs) > 0}
	d.policy(doc, "")
	errs = append(errs.prefixed(path), d.errs.prefixed(path)...)
	if len(errs) > 0 {
		return nil, errs.inDocumentOrder(doc, path)
	}
	return decodeFlat(mergePolicy(parent, doc), path, dictionaryReader(opt))
}

// dictionaryReader reads dictionary files relative to the policy file's
// directory, or nil when opt reads no files.
func dictionaryReader(opt Options) ReadFileFunc {
	if opt.ReadFile == nil {
		return nil
	}
	return func(name string) ([]byte, error) {
		if !filepath.IsAbs(name) && opt.File != "" {
			name = filepath.Join(filepath.Dir(opt.File), name)
		}
		return opt.ReadFile(name)
	}
}

// decodeFlat decodes a policy without extends, checking everything;
// dictionary files are read with read (nil: not read).
func decodeFlat(flat *Value, path string, read ReadFileFunc) (*Policy, Errors) {
	d := decoder{readFile: read}
	p := d.policy(flat, path)
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	p.doc = flat
	return p, nil
}

// MustParsePolicy parses a policy or panics; for tests and examples.
func MustParsePolicy(src string) *Policy {
	p, errs := ParsePolicy([]byte(src), Options{})
	if len(errs) > 0 {
		panic(errs.Error())
	}
	return p
}

// Document returns the flattened policy document (extends resolved). It
// includes vault.key when one is configured: print Redacted() instead.
func (p *Policy) Document() *Value { return p.doc }

// Redacted returns the flattened document with vault.key removed, the form
// that may be shown to people.
func (p *Policy) Redacted() *Value {
	out := p.doc.Clone()
	if v := out.Get("vault"); v != nil && v.Kind == ObjectValue {
		v.Delete("key")
	}
	return out
}

func quote(s string) string {
	return String(s).JSON("")
}
