package transforms

import (
	"regexp"
	"testing"

	"github.com/cloudg/mcp-privacy/transforms/detect"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

func TestReplaceAndPlaceholders(t *testing.T) {
	s := "mail alice@corp.com or call +44 20 7946 0958."
	ds := []detect.Detection{
		{Detector: "email", Label: "EMAIL", Start: 5, End: 19},
		{Detector: "phone", Label: "PHONE", Start: 28, End: 44},
	}
	got := detect.Replace(s, ds, func(d detect.Detection, _ string) string { return Placeholder("[REDACTED:{label}]", d) })
	if want := "mail [REDACTED:EMAIL] or call [REDACTED:PHONE]."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	got = detect.Replace(s, ds, func(d detect.Detection, _ string) string { return Placeholder("<{detector}>", d) })
	if want := "mail <email> or call <phone>."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if detect.Replace(s, nil, nil) != s {
		t.Error("no detections changed the string")
	}
}

func TestMask(t *testing.T) {
	tests := []struct {
		label, value string
		keep         int
		char, want   string
	}{
		{"CREDIT_CARD", "4111 1111 1111 1234", 4, "*", "***************1234"},
		{"PHONE", "+44 20 7946 0958", 4, "#", "############0958"},
		{"EMAIL", "alice@corp.com", 4, "*", "a****@corp.com"},
		{"EMAIL", "élodie@corp.fr", 4, "*", "é*****@corp.fr"},
		{"SECRET", "hunter2", 0, "•", "•••••••"},
		{"SECRET", "ab", 4, "*", "ab"},
		{"SECRET", "pässwörd", 2, "*", "******rd"},
	}
	for _, tc := range tests {
		if got := Mask(tc.label, tc.value, tc.keep, tc.char); got != tc.want {
			t.Errorf("Mask(%q, %q, %d) = %q, want %q", tc.label, tc.value, tc.keep, got, tc.want)
		}
	}
}

func TestHash(t *testing.T) {
	h := NewHasher([]byte("k"))
	a := h.Hash("EMAIL", "Alice@corp.com", 16)
	if !regexp.MustCompile(`^EMAIL:[0-9a-f]{16}$`).MatchString(a) {
		t.Fatalf("hash %q", a)
	}
	if a != h.Hash("EMAIL", "alice@corp.com", 16) {
		t.Error("normalisation not applied")
	}
	if a == NewHasher([]byte("other")).Hash("EMAIL", "alice@corp.com", 16) {
		t.Error("the key does not matter")
	}
	p := vault.NewPseudonymizer([]byte("k")).Pseudonym("", "EMAIL", "alice@corp.com")
	if a[6:] == p[6:] {
		t.Error("hash and pseudonym share their derivation")
	}
	if len(h.Hash("X", "v", 999)) != len("X:")+64 || len(h.Hash("X", "v", 0)) != len("X:")+1 {
		t.Error("length not clamped to 1..64")
	}
}
