package vault

import (
	"regexp"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

func TestPseudonyms(t *testing.T) {
	p := NewPseudonymizer([]byte("test key material"))
	other := NewPseudonymizer([]byte("another key"))
	a := p.Pseudonym("", "EMAIL", "Alice@Corp.com")
	if !regexp.MustCompile(`^EMAIL_[A-Z2-7]{12}$`).MatchString(a) {
		t.Fatalf("pseudonym %q is not EMAIL_ + 12 base32 characters", a)
	}
	tests := []struct {
		name string
		x, y string
		same bool
	}{
		{"stable", a, p.Pseudonym("", "EMAIL", "Alice@Corp.com"), true},
		{"email case folded", a, p.Pseudonym("", "EMAIL", "alice@corp.com"), true},
		{"other value", a, p.Pseudonym("", "EMAIL", "bob@corp.com"), false},
		{"other namespace", a, p.Pseudonym("alice", "EMAIL", "Alice@Corp.com"), false},
		{"other key", a, other.Pseudonym("", "EMAIL", "Alice@Corp.com"), false},
		{"card separators", p.Pseudonym("", "CREDIT_CARD", "4111 1111 1111 1111"), p.Pseudonym("", "CREDIT_CARD", "4111-1111-1111-1111"), true},
		{"phone separators", p.Pseudonym("", "PHONE", "+44 20 7946 0958"), p.Pseudonym("", "PHONE", "+44-20-7946-0958"), true},
		{"iban spacing and case", p.Pseudonym("", "IBAN", "GB82 WEST 1234 5698 7654 32"), p.Pseudonym("", "IBAN", "gb82west12345698765432"), true},
		// Length-prefixed fields: moving bytes between namespace and value
		// must not give the same pseudonym.
		{"field boundaries", p.Pseudonym("ab", "SECRET", "c"), p.Pseudonym("a", "SECRET", "bc"), false},
	}
	for _, tc := range tests {
		if (tc.x == tc.y) != tc.same {
			t.Errorf("%s: %q vs %q, want same=%v", tc.name, tc.x, tc.y, tc.same)
		}
	}
}

func TestFindPseudonyms(t *testing.T) {
	p := NewPseudonymizer([]byte("k"))
	email := p.Pseudonym("", "EMAIL", "a@b.co")
	card := p.Pseudonym("", "CREDIT_CARD", "4111111111111111")
	tests := []struct {
		text string
		want []string
	}{
		{"send to " + email + " now", []string{email}},
		{email + "," + card, []string{email, card}},
		{`{"to":"` + email + `"}`, []string{email}},
		{"x" + email, nil},                     // inside a word
		{email + "X", nil},                     // token runs on
		{strings.ToLower(email), nil},          // lower case is not a pseudonym
		{"EMAIL_ABC", nil},                     // token too short
		{"_" + email[6:], nil},                 // no label
		{"card " + card + ".", []string{card}}, // punctuation after
		{"9EMAIL_" + email[6:], nil},           // label must start with a letter after a non-word byte
	}
	for _, tc := range tests {
		var got []string
		for _, sp := range FindPseudonyms(tc.text, nil) {
			got = append(got, tc.text[sp.Start:sp.End])
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("FindPseudonyms(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func FuzzFindPseudonyms(f *testing.F) {
	f.Add("EMAIL_ABCDEFGHIJKL x")
	f.Add("CREDIT_CARD_234567ABCDEF")
	f.Add("a\tEMAIL_ABCDEFGHIJKL\u2028")
	f.Add("EMAIL_CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.")
	f.Fuzz(func(t *testing.T, s string) {
		for _, sp := range FindPseudonyms(s, nil) {
			if sp.Start < 0 || sp.End > len(s) || sp.End-sp.Start < TokenLen+2 {
				t.Fatalf("bad span %+v in %q", sp, s)
			}
			label, token := SplitPseudonym(s[sp.Start:sp.End])
			if label == "" || !isUpper(label[0]) || len(token) != TokenLen && !isSealedTokenLen(len(token)) {
				t.Fatalf("span %+v of %q: label %q, token %q", sp, s, label, token)
			}
			for i := 0; i < len(token); i++ {
				if !isTokenByte(token[i]) {
					t.Fatalf("span %+v of %q: token %q", sp, s, token)
				}
			}
			if sp.End < len(s) && isWordByte(s[sp.End]) {
				t.Fatalf("span %+v of %q runs into a word", sp, s)
			}
		}
		// The raw-JSON prefilter never misses what the depseudonymiser finds.
		if raw := jsondoc.Quote(s); len(FindPseudonyms(s, nil)) > 0 && !MayHoldPseudonym([]byte(raw)) {
			t.Fatalf("MayHoldPseudonym(%s) = false", raw)
		}
	})
}

// The allocation-free normalisation gives exactly Normalize's bytes.
func TestAppendNormalizedMatchesNormalize(t *testing.T) {
	cases := [][2]string{
		{"EMAIL", "Alice.Martin@Example.COM"}, {"EMAIL", "ÉLISE@example.com"}, {"MAC_ADDRESS", "00:1A:2B:3C:4D:5E"},
		{"IP_ADDRESS", "FE80::1"}, {"PHONE", "+44 (20) 7946-0958"}, {"CREDIT_CARD", "4111-1111 1111-1111"},
		{"US_SSN", "078-05-1120"}, {"IBAN", "de89 3704 0044 0532 0130 00"}, {"SECRET", "Hunter2"},
	}
	for _, c := range cases {
		want := Normalize(c[0], c[1])
		n := NormalizedLen(c[0], c[1])
		if n < 0 {
			continue // takes Normalize itself
		}
		if got := string(AppendNormalized(nil, c[0], c[1])); got != want || n != len(want) {
			t.Errorf("%s %q: %q (len %d), want %q", c[0], c[1], got, n, want)
		}
	}
}

// The new labels of manual 13.1: a name or street address whatever its
// case and inner white space, an identifier whatever its separators.
func TestNormalizeWordsAndIdentifiers(t *testing.T) {
	same := [][3]string{
		{"PERSON", "Alice Martin", "  alice   MARTIN\t"},
		{"PERSON", "Jean-Luc Dupont", "JEAN-LUC\n dupont"},
		{"PERSON", "Élise Müller", "élise  MÜLLER"},
		{"ADDRESS", "12 Rue de la Paix", "12 rue  de la paix "},
		{"FR_NIR", "1 85 05 78 006 084 36", "1850578006084 36"},
		{"IT_FISCAL_CODE", "RSSMRA85T10A562S", "rssmra85t10a562s"},
		{"UK_NINO", "AB 12 34 56 C", "ab123456c"},
		{"BR_CPF", "123.456.789-09", "12345678909"},
		{"PASSPORT", "C01X00T47", "c01x00t47"},
	}
	for _, c := range same {
		if a, b := Normalize(c[0], c[1]), Normalize(c[0], c[2]); a != b {
			t.Errorf("%s: %q → %q, %q → %q: want one form", c[0], c[1], a, c[2], b)
		}
	}
	differ := [][3]string{
		{"PERSON", "Alice Martin", "Alice Martins"},
		{"PERSON", "Ann Marie", "Annmarie"},
		{"DATE_OF_BIRTH", "04/03/1985", "4.3.1985"}, // dates stay as written
	}
	for _, c := range differ {
		if a, b := Normalize(c[0], c[1]), Normalize(c[0], c[2]); a == b {
			t.Errorf("%s: %q and %q both → %q", c[0], c[1], c[2], a)
		}
	}
}

// NormalizedLen and AppendNormalized agree with Normalize for every label
// kind, on any value.
func FuzzAppendNormalized(f *testing.F) {
	for _, s := range []string{"  Alice \t MARTIN ", "AB 12-34/56.c", "é Ü", "\v\f x", ""} {
		f.Add(s)
	}
	labels := []string{"EMAIL", "PHONE", "CREDIT_CARD", "IBAN", "PERSON", "ADDRESS", "FR_NIR", "PASSPORT", "DATE_OF_BIRTH", "X"}
	f.Fuzz(func(t *testing.T, v string) {
		for _, l := range labels {
			want := Normalize(l, v)
			n := NormalizedLen(l, v)
			if n >= 0 {
				if got := string(AppendNormalized(nil, l, v)); got != want || n != len(want) {
					t.Fatalf("%s %q: AppendNormalized %q (len %d), Normalize %q", l, v, got, n, want)
				}
			}
			if got, ascii := appendNormalizedASCII(nil, l, v); ascii && string(got) != want {
				t.Fatalf("%s %q: appendNormalizedASCII %q, Normalize %q", l, v, got, want)
			}
		}
	})
}
