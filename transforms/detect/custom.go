package detect

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/policy"
)

// customDetector is a detector of the policy's own (manual 12.5): an RE2
// pattern, the capture group to report, an optional validation and
// optional keywords that must occur shortly before a match.
type customDetector struct {
	cfg      *policy.DetectorConfig
	re       *regexp.Regexp
	prefix   string   // a literal every match starts with, checked first
	keywords []string // lower-cased when case-insensitive
}

func newCustomDetector(c *policy.DetectorConfig) (*customDetector, error) {
	src := c.Pattern
	if c.CaseInsensitive {
		src = "(?i)" + src
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, err
	}
	cd := &customDetector{cfg: c, re: re}
	if p, _ := re.LiteralPrefix(); !c.CaseInsensitive {
		cd.prefix = p
	}
	for _, k := range c.Keywords {
		cd.keywords = append(cd.keywords, strings.ToLower(k))
	}
	return cd, nil
}

// detect appends the custom detector's findings in s. The regular
// expression only runs when its literal prefix or a keyword occurs: RE2 is
// slow inside the VM, and most strings contain neither.
func (c *customDetector) detect(s string, out []Detection) []Detection {
	if c.prefix != "" && !strings.Contains(s, c.prefix) {
		return out
	}
	var lower string
	if len(c.keywords) > 0 {
		lower = strings.ToLower(s)
		found := false
		for _, k := range c.keywords {
			found = found || strings.Contains(lower, k)
		}
		if !found {
			return out
		}
	}
	for _, m := range c.re.FindAllStringSubmatchIndex(s, -1) {
		start, end := m[0], m[1]
		if g := c.cfg.Group; g > 0 {
			if 2*g+1 >= len(m) || m[2*g] < 0 {
				continue
			}
			start, end = m[2*g], m[2*g+1]
		}
		if start == end || !boundary(s, start) || !boundary(s, end) {
			continue
		}
		if !validate(c.cfg.Validate, s[start:end]) {
			continue
		}
		if len(c.keywords) > 0 && !keywordBefore(s, c.keywords, m[0], c.cfg.Window) {
			continue
		}
		out = append(out, Detection{Detector: c.cfg.Name, Label: c.cfg.Label, Sensitivity: c.cfg.Sensitivity, Start: start, End: end})
	}
	return out
}

// keywordBefore reports whether a keyword occurs within window characters
// before position at of s. The region is lower-cased on its own: offsets
// into a lower-cased copy of s would be wrong wherever lower-casing
// changes a character's length (the Kelvin sign K becomes k).
func keywordBefore(s string, keywords []string, at, window int) bool {
	from := at
	for n := 0; n < window && from > 0; n++ {
		_, size := utf8.DecodeLastRuneInString(s[:from])
		from -= size
	}
	region := strings.ToLower(s[from:at])
	for _, k := range keywords {
		if strings.Contains(region, k) {
			return true
		}
	}
	return false
}

// validate applies a custom detector's validation to a match.
func validate(kind, v string) bool {
	switch kind {
	case "luhn":
		return validateLuhn(v)
	case "mod97":
		return validateMod97(v)
	}
	return true
}

// validateLuhn checks the Luhn checksum of the digits in v (separators
// ignored); fewer than two digits never pass.
func validateLuhn(v string) bool {
	sum, n := 0, 0
	for i := len(v) - 1; i >= 0; i-- {
		c := v[i]
		if c < '0' || c > '9' {
			if c == ' ' || c == '-' {
				continue
			}
			return false
		}
		d := int(c - '0')
		if n%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		n++
	}
	return n >= 2 && sum%10 == 0
}

// validateMod97 checks an ISO 7064 mod 97-10 checksum the way IBANs use it:
// the first four characters moved to the end, letters as 10–35, the
// number mod 97 equal to 1. Spaces are ignored.
func validateMod97(v string) bool {
	var b []byte
	for i := 0; i < len(v); i++ {
		if v[i] != ' ' {
			b = append(b, v[i])
		}
	}
	if len(b) < 5 {
		return false
	}
	b = append(b[4:], b[:4]...)
	rem := 0
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A'+10)) % 97
		case c >= 'a' && c <= 'z':
			rem = (rem*100 + int(c-'a'+10)) % 97
		default:
			return false
		}
	}
	return rem == 1
}
