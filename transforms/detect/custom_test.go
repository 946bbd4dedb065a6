package detect

import (
	"fmt"
	"testing"

	"github.com/cloudg/mcp-privacy/policy"
)

// customSet builds the detector set of a policy with these custom
// detectors, and a selection of just them (the built-ins would see cards
// and IBANs in the same texts).
func customSet(t *testing.T, detectors string) (*Set, Selection) {
	t.Helper()
	p, errs := policy.ParsePolicy([]byte(`{"detectors": `+detectors+`}`), policy.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	ds, err := NewSet(p)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range p.Detectors {
		names = append(names, d.Name)
	}
	return ds, Select(names, 0)
}

func found(s string, ds []Detection) string {
	out := ""
	for _, d := range ds {
		out += fmt.Sprintf("%s=%s ", d.Label, s[d.Start:d.End])
	}
	return out
}

func TestCustomDetectors(t *testing.T) {
	tests := []struct {
		name, detectors, text, want string
	}{
		{"pattern", `[{"name": "order", "pattern": "ORD-[0-9]{6}"}]`, "orders ORD-123456 and ORD-12", "ORDER=ORD-123456 "},
		{"label and group", `[{"name": "emp", "label": "EMPLOYEE_ID", "pattern": "emp(?:loyee)?[ #:]+([0-9]{5})", "group": 1, "case_insensitive": true}]`,
			"Employee #12345, EMP: 54321", "EMPLOYEE_ID=12345 EMPLOYEE_ID=54321 "},
		{"named group", `[{"name": "ticket", "pattern": "T-(?P<num>[0-9]+)", "group": "num"}]`, "see T-42", "TICKET=42 "},
		{"luhn", `[{"name": "card", "pattern": "[0-9]{16}", "validate": "luhn"}]`, "4111111111111111 4111111111111112", "CARD=4111111111111111 "},
		{"mod97", `[{"name": "acct", "pattern": "[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}", "validate": "mod97"}]`, "GB82WEST12345698765432 GB83WEST12345698765432", "ACCT=GB82WEST12345698765432 "},
		{"keywords within window", `[{"name": "pin", "pattern": "\\b[0-9]{4}\\b", "keywords": ["pin"], "window": 10}]`,
			"your PIN is 4821; the year 2024 is not", "PIN=4821 "},
		{"keyword too far", `[{"name": "pin", "pattern": "\\b[0-9]{4}\\b", "keywords": ["pin"], "window": 3}]`, "PIN code: 4821", ""},
		{"no keyword anywhere", `[{"name": "pin", "pattern": "\\b[0-9]{4}\\b", "keywords": ["pin"]}]`, "1234 5678", ""},
		// Regressions: lower-casing shortens the Kelvin sign (3 bytes to 1);
		// offsets into a lower-cased copy crashed or looked in the wrong place.
		{"text that lower-casing shortens", `[{"name": "pin", "pattern": "\\b[0-9]{4}\\b", "keywords": ["pin"], "window": 8}]`,
			"\u212a\u212a\u212a\u212a\u212a\u212a\u212a\u212a pin 4821", "PIN=4821 "},
		{"window counts characters", `[{"name": "pin", "pattern": "\\b[0-9]{4}\\b", "keywords": ["pin"], "window": 8}]`,
			"pin ééé 4821", "PIN=4821 "},
	}
	for _, tc := range tests {
		ds, sel := customSet(t, tc.detectors)
		if got := found(tc.text, ds.Detect(tc.text, sel)); got != tc.want {
			t.Errorf("%s: found %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSelection(t *testing.T) {
	ds, _ := customSet(t, `[{"name": "low", "pattern": "low", "sensitivity": "internal"}, {"name": "high", "pattern": "high", "sensitivity": "restricted"}]`)
	s := "low high"
	for _, tc := range []struct {
		sel  Selection
		want string
	}{
		{Select(nil, 0), "LOW=low HIGH=high "},
		{Select([]string{"high"}, 0), "HIGH=high "},
		{Select(nil, policy.Confidential), "HIGH=high "},
		{Select([]string{"@pii"}, 0), ""}, // custom detectors belong to no group
	} {
		if got := found(s, ds.Detect(s, tc.sel)); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.sel, got, tc.want)
		}
	}
}

func TestValidators(t *testing.T) {
	for v, want := range map[string]bool{"4111 1111 1111 1111": true, "4111-1111-1111-1112": false, "0": false, "79927398713": true, "12a3": false} {
		if validateLuhn(v) != want {
			t.Errorf("luhn(%q) != %v", v, want)
		}
	}
	for v, want := range map[string]bool{"GB82 WEST 1234 5698 7654 32": true, "DE89370400440532013000": true, "DE89370400440532013001": false, "GB8": false} {
		if validateMod97(v) != want {
			t.Errorf("mod97(%q) != %v", v, want)
		}
	}
}
