package policy

import (
	"fmt"
	"sort"
	"strings"
)

// FieldError is one configuration error: where it is, what was there and
// what was expected.
type FieldError struct {
	// File is the policy file the error is in when it is not the document
	// being read (a parent named by extends).
	File string `json:"file,omitempty"`
	// Path is the JSON path of the offending value, e.g.
	// policy.rules[2].match.kinds[0]. Empty for the document itself.
	Path string `json:"path"`
	// Msg says what is wrong and what is expected; it quotes the value.
	Msg string `json:"message"`
}

func (e FieldError) Error() string {
	s := e.Msg
	if e.Path != "" {
		s = e.Path + ": " + s
	}
	if e.File != "" {
		s = e.File + ": " + s
	}
	return s
}

// Errors is every error found in one configuration, in document order.
type Errors []FieldError

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Err returns es as an error, or nil when empty.
func (es Errors) Err() error {
	if len(es) == 0 {
		return nil
	}
	return es
}

func (es *Errors) add(path, format string, args ...any) {
	*es = append(*es, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
}

// prefixed returns es with prefix prepended to the path of every error in
// the document itself.
func (es Errors) prefixed(prefix string) Errors {
	if prefix == "" {
		return es
	}
	out := make(Errors, len(es))
	for i, e := range es {
		out[i] = e
		if e.File == "" { // paths in other files start at that file's root
			out[i].Path = joinPath(prefix, e.Path)
		}
	}
	return out
}

func joinPath(base, key string) string {
	if base == "" {
		return key
	}
	if key == "" {
		return base
	}
	if strings.HasPrefix(key, "[") {
		return base + key
	}
	return base + "." + key
}

func indexPath(base string, i int) string {
	return fmt.Sprintf("%s[%d]", base, i)
}

// inDocumentOrder sorts errors by where their paths are in doc (whose own
// path is root), so people read them top to bottom. Errors about a missing
// key sort at their object.
func (es Errors) inDocumentOrder(doc *Value, root string) Errors {
	order := map[string]int{}
	var walk func(v *Value, path string)
	walk = func(v *Value, path string) {
		order[path] = len(order)
		switch v.Kind {
		case ObjectValue:
			for _, m := range v.Object {
				walk(m.Value, joinPath(path, m.Key))
			}
		case ArrayValue:
			for i, e := range v.Array {
				walk(e, indexPath(path, i))
			}
		}
	}
	walk(doc, root)
	position := func(path string) int {
		for {
			if n, ok := order[path]; ok {
				return n
			}
			cut := strings.LastIndexAny(path, ".[")
			if cut < 0 {
				return len(order)
			}
			path = path[:cut]
		}
	}
	out := append(Errors(nil), es...)
	sort.SliceStable(out, func(i, j int) bool { return position(out[i].Path) < position(out[j].Path) })
	return out
}

// inFile marks errors as belonging to file (unless already attributed).
func (es Errors) inFile(file string) Errors {
	out := make(Errors, len(es))
	for i, e := range es {
		out[i] = e
		if e.File == "" {
			out[i].File = file
		}
	}
	return out
}
