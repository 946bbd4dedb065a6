package policy

import (
	"fmt"
	"strings"
)

// FieldError is one configuration error: where it is, what was there and
// what was expected.
type FieldError struct {
	// Path is the JSON path of the offending value, e.g.
	// policy.rules[2].match.kinds[0]. Empty for the document itself.
	Path string `json:"path"`
	// Msg says what is wrong and what is expected; it quotes the value.
	Msg string `json:"message"`
}

func (e FieldError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
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

// prefixed returns es with prefix prepended to every path.
func (es Errors) prefixed(prefix string) Errors {
	if prefix == "" {
		return es
	}
	out := make(Errors, len(es))
	for i, e := range es {
		out[i] = FieldError{Path: joinPath(prefix, e.Path), Msg: e.Msg}
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
