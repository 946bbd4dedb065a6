package uritemplate

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// FastMCP 1.x (python-sdk v1.29.0, src/mcp/server/fastmcp/resources/
// templates.py, ResourceTemplate.matches) reads a URI as an instance of a
// template by a regular expression it makes from the template's text
// with two replacements, "{" by "(?P<" and "}" by ">[^/]+)", and
// re.fullmatch: the literal text is not escaped, so it is a pattern of
// Python's re. "pkg://c++/{name}" is c then a possessive c+ (Python 3.11
// on): it serves pkg://ccc/x. "db://customers?region={region}" makes the
// s optional: it serves db://customerregion=eu. The template is only
// usable so when every expression is a plain {name} (any operator makes
// a group name re refuses).
//
// python1Regexp translates that pattern into RE2, into one that matches
// every URI the Python pattern matches (a superset where RE2 has no
// equivalent: a lookaround is dropped, a backreference reads as any
// text, a possessive quantifier or atomic group reads as the greedy
// one, \d \w \s read as their Unicode classes, as Python's str patterns
// do). Each expression is one capturing group, in order; the literal's
// own groups do not capture. nil, false: a construct it cannot bound (a
// conditional group, a brace inside a class, verbose or ASCII flags);
// the caller then reads the template as matching any URI. nil, true: a
// pattern re refuses (an unbalanced parenthesis, a trailing backslash),
// which matches nothing.
func python1Regexp(text string) (*regexp.Regexp, bool) {
	var b strings.Builder
	b.WriteString(`^(?:`)
	i := 0
	// depth counts the open groups of the literal; skip is the depth of
	// an open lookaround being dropped (-1: none).
	depth, skip := 0, -1
	emit := func(s string) {
		if skip < 0 {
			b.WriteString(s)
		}
	}
	for i < len(text) {
		c := text[i]
		switch {
		case c == '{':
			j := strings.IndexByte(text[i:], '}')
			if j < 0 {
				return nil, false
			}
			if skip >= 0 {
				return nil, false // an expression inside a dropped lookaround
			}
			b.WriteString(`([^/]+)`)
			i += j + 1
			continue
		case c == '\\':
			if i+1 >= len(text) {
				return nil, true // re: bad escape (end of pattern)
			}
			n, s := pyEscape(text[i+1:], false)
			emit(s)
			i += 1 + n
			continue
		case c == '[':
			n, s, ok := pyClass(text[i:])
			if !ok {
				return nil, false
			}
			emit(s)
			i += n
			continue
		case c == '(':
			rest := text[i:]
			switch {
			case strings.HasPrefix(rest, "(?="), strings.HasPrefix(rest, "(?!"):
				if skip < 0 {
					skip = depth
				}
				depth++
				i += 3
				continue
			case strings.HasPrefix(rest, "(?<="), strings.HasPrefix(rest, "(?<!"):
				if skip < 0 {
					skip = depth
				}
				depth++
				i += 4
				continue
			case strings.HasPrefix(rest, "(?P="):
				end := strings.IndexByte(rest, ')')
				if end < 0 {
					return nil, false
				}
				emit(`(?s:.*)`)
				i += end + 1
				continue
			case strings.HasPrefix(rest, "(?#"):
				end := strings.IndexByte(rest, ')')
				if end < 0 {
					return nil, false
				}
				i += end + 1
				continue
			case strings.HasPrefix(rest, "(?("):
				return nil, false
			case strings.HasPrefix(rest, "(?P<"), strings.HasPrefix(rest, "(?<"):
				end := strings.IndexByte(rest, '>')
				if end < 0 {
					return nil, false
				}
				emit(`(?:`)
				depth++
				i += end + 1
				continue
			case strings.HasPrefix(rest, "(?>"):
				emit(`(?:`)
				depth++
				i += 3
				continue
			case strings.HasPrefix(rest, "(?:"):
				emit(`(?:`)
				depth++
				i += 3
				continue
			case strings.HasPrefix(rest, "(?"):
				// Inline flags, (?i) or (?i:…): RE2 reads the same letters
				// but a, L, u, x; those are refused.
				end := strings.IndexAny(rest, ":)")
				if end < 0 {
					return nil, false
				}
				flags := rest[2:end]
				if strings.ContainsAny(flags, "aLux") {
					return nil, false
				}
				if rest[end] == ':' {
					depth++
				}
				emit(rest[:end+1])
				i += end + 1
				continue
			}
			emit(`(?:`)
			depth++
			i++
			continue
		case c == ')':
			if depth == 0 {
				return nil, true // re: unbalanced parenthesis
			}
			depth--
			if skip == depth {
				skip = -1
			} else {
				emit(`)`)
			}
			i++
			continue
		case c == '*' || c == '+' || c == '?':
			emit(string(c))
			i++
			// A possessive quantifier (Python 3.11): read as the greedy one.
			if i < len(text) && text[i] == '+' {
				i++
			}
			continue
		case c == '.' || c == '^' || c == '|':
			emit(string(c)) // the same in RE2 (. not a line break)
			i++
			continue
		case c == '$':
			// Python's $ matches at the end and before a final line
			// break, which is then still to be matched ("${A}" serves
			// "\n"). RE2 has no lookahead to say so: dropped, as a
			// lookaround is (a superset).
			i++
			continue
		}
		// One character, whole: a quantifier after it takes all its bytes.
		_, n := utf8.DecodeRuneInString(text[i:])
		emit(regexp.QuoteMeta(text[i : i+n]))
		i += n
	}
	if depth != 0 {
		return nil, true // re: missing ), unterminated subpattern
	}
	b.WriteString(`)$`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, false
	}
	return re, true
}

// pyEscape translates the escape after a backslash at the start of s:
// how many bytes of s it takes, and its RE2 text. inClass: inside [].
func pyEscape(s string, inClass bool) (int, string) {
	c := s[0]
	set := func(class string) string {
		if inClass {
			return class
		}
		return "[" + class + "]"
	}
	switch c {
	case 'd':
		return 1, set(`\p{Nd}`)
	case 'w':
		return 1, set(`\p{L}\p{N}\p{M}_`)
	case 's':
		return 1, set(`\s\p{Z}\x1c-\x1f\x85`)
	case 'D', 'W', 'S':
		if inClass {
			return 1, `\x00-\x{10FFFF}`
		}
		return 1, `(?s:.)`
	case 'b', 'B':
		if inClass {
			return 1, `\x08`
		}
		return 1, ``
	case 'A':
		return 1, `\A`
	case 'Z':
		return 1, `\z`
	case 'n', 't', 'r', 'f', 'v', 'a':
		return 1, `\` + string(c)
	case 'x':
		if len(s) >= 3 && isHex(s[1]) && isHex(s[2]) {
			return 3, `\x{` + s[1:3] + `}`
		}
	case 'u':
		if len(s) >= 5 && isHex(s[1]) && isHex(s[2]) && isHex(s[3]) && isHex(s[4]) {
			return 5, `\x{` + s[1:5] + `}`
		}
	case 'U':
		if len(s) >= 9 {
			return 9, `\x{` + s[1:9] + `}`
		}
	}
	if c >= '0' && c <= '9' {
		// A backreference or an octal escape: any text.
		n := 1
		for n < len(s) && n < 3 && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if inClass {
			return n, `\x00-\x{10FFFF}`
		}
		return n, `(?s:.*)`
	}
	if c < 0x80 && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		// Punctuation stands for itself.
		return 1, regexp.QuoteMeta(string(c))
	}
	if c < 0x80 {
		// Another ASCII letter is an error to re: read it as any character.
		if inClass {
			return 1, `\x00-\x{10FFFF}`
		}
		return 1, `(?s:.)`
	}
	// A non-ASCII character stands for itself, all its bytes.
	_, n := utf8.DecodeRuneInString(s)
	return n, regexp.QuoteMeta(s[:n])
}

// pyClass translates the character class at the start of s: its length
// and RE2 text.
func pyClass(s string) (int, string, bool) {
	var b strings.Builder
	b.WriteByte('[')
	i := 1
	if i < len(s) && s[i] == '^' {
		b.WriteByte('^')
		i++
	}
	first := true
	for i < len(s) {
		c := s[i]
		switch {
		case c == ']' && !first:
			b.WriteByte(']')
			return i + 1, b.String(), true
		case c == '{' || c == '}':
			return 0, "", false // an expression inside a class
		case c == '\\':
			if i+1 >= len(s) {
				return 0, "", false
			}
			n, t := pyEscape(s[i+1:], true)
			b.WriteString(t)
			i += 1 + n
		default:
			if c == '[' || c == ']' || c == '-' && first {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
			i++
		}
		first = false
	}
	return 0, "", false
}
