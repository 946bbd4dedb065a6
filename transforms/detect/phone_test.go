package detect

import (
	"strings"
	"testing"
)

// phoneCases: text, and the phones the default regions find in it.
var phoneCases = []struct {
	text string
	want []string
}{
	// Numbers without a trunk prefix, in their country's groupings.
	{"Llámame al 912 345 678", []string{"912 345 678"}},
	{"Móvil: 612 34 56 78", []string{"612 34 56 78"}},
	{"Oficina 91 234 56 78", []string{"91 234 56 78"}},
	{"Zadzwoń: 512 345 678", []string{"512 345 678"}},
	{"Biuro (12) 345 67 89", []string{"(12) 345 67 89"}},
	{"Ring på 32 12 34 56 i dag", []string{"32 12 34 56"}},
	{"Mobil 2012 3456", []string{"2012 3456"}},
	// A bare run after a phone word, with a separator after it and more text
	// (FuzzPhone: the pass's 16-byte test dropped it, phoneRun did not).
	{"Cel  01000000 A000000", []string{"01000000"}},
	{"Tel 0612345678 - mobiel, bel na vijf", []string{"0612345678"}},
	{"Handy 015123456789 ab Montag erreichbar", []string{"015123456789"}},
	{"Call 6123 4567 or 9123 4567", []string{"6123 4567", "9123 4567"}},
	{"Cellulare 312 345 6789", []string{"312 345 6789"}},
	{"cell 347 1234567", []string{"347 1234567"}},
	{"Ufficio 06 1234 5678", []string{"06 1234 5678"}},
	{"Milano 02 1234567", []string{"02 1234567"}},
	{"Liga (11) 91234-5678 hoje", []string{"(11) 91234-5678"}},
	{"Fixo (21) 3456-7890", []string{"(21) 3456-7890"}},
	{"Celular 11 9 1234-5678", []string{"11 9 1234-5678"}},
	{"東京：03-1234-5678、携帯：090-1234-5678", []string{"03-1234-5678", "090-1234-5678"}},
	{"Mobile 98765 43210", []string{"98765 43210"}},
	{"Delhi office 011 2345 6789", []string{"011 2345 6789"}},
	{"Mob 0412 345 678, office (02) 9876 5432", []string{"0412 345 678", "(02) 9876 5432"}},
	{"Ring 070-123 45 67 eller 08-123 456 78", []string{"070-123 45 67", "08-123 456 78"}},
	{"Appelez le 06 12 34 56 78", []string{"06 12 34 56 78"}},
	{"Tel. 01.23.45.67.89", []string{"01.23.45.67.89"}},
	{"Festnetz 030 12345678, Handy 0151 23456789", []string{"030 12345678", "0151 23456789"}},
	{"Mobile: 07700 900123", []string{"07700 900123"}},
	{"Bel 06-12345678 of 020 123 4567", []string{"06-12345678", "020 123 4567"}},
	{"Soita 040 123 4567", []string{"040 123 4567"}},
	{"Bel 0475 12 34 56", []string{"0475 12 34 56"}},
	{"Ligue 912 345 678", []string{"912 345 678"}},
	{"Ruf 044 668 18 00 an", []string{"044 668 18 00"}},
	{"Tel 0664 1234567", []string{"0664 1234567"}},
	{"Ring 087 123 4567", []string{"087 123 4567"}},
	{"415-555-0132 and (212) 555-0147", []string{"415-555-0132", "(212) 555-0147"}},
	{"0 532 123 45 67", []string{"0 532 123 45 67"}},
	// Bare runs after a phone word only.
	{`{"phone":"0612345678"}`, []string{"0612345678"}},
	{"Telefon: 03012345678", []string{"03012345678"}},
	{"teléfono 912345678", []string{"912345678"}},
	{"customerPhone=4155550132", []string{"4155550132"}},
	{"電話09012345678", []string{"09012345678"}},
	{"Tel.: 32123456", []string{"32123456"}},
	// International.
	{"+34 912 345 678", []string{"+34 912 345 678"}},
	{"+45 32 12 34 56", []string{"+45 32 12 34 56"}},
	{"+65 6123 4567", []string{"+65 6123 4567"}},
	{"+39 312 345 6789", []string{"+39 312 345 6789"}},
	{"+44 (0)20 7946 0958", []string{"+44 (0)20 7946 0958"}},
	{"+7 495 123-45-67", []string{"+7 495 123-45-67"}},
	{"0044 20 7946 0958", []string{"0044 20 7946 0958"}},
	{"0049 30 1234567", []string{"0049 30 1234567"}},
	// Not phones.
	{"Order 12345-67890 shipped", nil},
	{"Invoice 4155550132 is overdue", nil},
	{"order 912345678", nil},
	{"2024-01-15 10:30", nil},
	{"Population: 331 449 281", nil},
	{"Price 612 345 678 EUR", nil},
	{"Total: € 912 345 678", nil},
	{"Kwota 512 345 678 zł", nil},
	{"BSN 123456782", nil},
	{"PESEL 85050512345", nil},
	{"NIR 1 85 05 78 006 084 36", nil},
	{"NIR 2 85 05 78 006 084 36 clé", nil},
	{"personnummer 050101-1234", nil},
	{"CPR 020390-1234", nil},
	{"IBAN DE89 3704 0044 0532 0130 00", nil},
	{"IBAN 3704 0044 0532 0130 00", nil},
	{"0053 2013 0000 12", nil},
	{"00 12 34 56 78 90", nil},
	{"card 4111 1111 1111 1111", nil},
	{"node 1234:5678", nil},
	{"version 10.15.7.1234", nil},
	{"ZIP 02134-1234", nil},
	{"ID 12-3456-7890", nil},
	{"1 234 567 890", nil},
	{"12 345 678", nil},
	{"amount 1234 5678", nil},
	{"+1234567890123456", nil},
	{"+0 123 456 789", nil},
	{"+99 123 456 789", nil},
	{"+44 12 34", nil},
	{"+33 6 12 34 56", nil},
	{"15.01.2024", nil},
	{"01 02 2024 12", nil},
	{"telemetry 912345678", nil},
	{"hotel 912345678", nil},
	{"tel 0000123456", nil},
	{`{"phone":"415.555.0117","created":1729387120}`, []string{"415.555.0117"}},
	{"Telefon privat 0612345678", []string{"0612345678"}},
	{"Telefon: siehe Akte, Kundennummer 0612345678", nil},
	{"Płać 612 345 678 zł", nil},
	{"£ 912 345 678", nil},
	{"Ring på 32 12 34 56", []string{"32 12 34 56"}},
	// Words of calling back and phone words of Arabic, Hebrew, Hindi and
	// Russian before a bare national number; the same run after an
	// order's word is none.
	{"Richiamare al 3471234567 domani.", []string{"3471234567"}},
	{"Merci de rappeler au 0446120536", []string{"0446120536"}},
	{"请回电18983978853", []string{"18983978853"}},
	{"на связи: 8 (995) 907-91-04", []string{"8 (995) 907-91-04"}},
	{"الجوال 0564811907", []string{"0564811907"}},
	{"נייד 0529321809", []string{"0529321809"}},
	{"फ़ोन 9876543210", []string{"9876543210"}},
	{"Ordine 3471234567 spedito", nil},
}

func TestPhoneCases(t *testing.T) {
	for _, c := range phoneCases {
		got := scanBuiltin(detPhone, c.text, nil)
		var gs []string
		for _, sp := range got {
			gs = append(gs, c.text[sp.Start:sp.End])
		}
		if strings.Join(gs, "|") != strings.Join(c.want, "|") {
			t.Errorf("%q: got %q, want %q", c.text, gs, c.want)
		}
	}
}

// TestPhoneRegions: a policy's regions narrow the national forms, never
// the international ones.
func TestPhoneRegions(t *testing.T) {
	for _, c := range []struct {
		regions []string
		text    string
		want    bool
	}{
		{[]string{"ES"}, "912 345 678", true},
		{[]string{"GB"}, "912 345 678", false},
		{[]string{"GB"}, "+34 912 345 678", true},
		{[]string{"uk"}, "020 7946 0958", true},
		{[]string{"FR"}, "020 7946 0958", false},
		{[]string{"FR"}, "02 79 46 09 58", true},
		{[]string{"US"}, "6123 4567", false},
		{[]string{"SG"}, "6123 4567", true},
		{[]string{"it"}, "312 345 6789", true},
		{[]string{"DE"}, "312 345 6789", false},
	} {
		rs, err := phoneRegionSet(c.regions)
		if err != nil {
			t.Fatal(err)
		}
		p := pass{s: c.text, on: 1 << detPhone, tab: newTrigTable(1 << detPhone), regions: rs}
		p.run()
		if got := len(p.spans) == 1 && p.spans[0] == (Span{0, len(c.text)}); got != c.want {
			t.Errorf("%v %q: got %v, want %v", c.regions, c.text, p.spans, c.want)
		}
	}
	if _, err := phoneRegionSet([]string{"XX"}); err == nil {
		t.Error("XX: no error")
	}
	if rs, _ := phoneRegionSet(nil); rs != defaultPhoneRegions {
		t.Error("nil: not the default set")
	}
	if phoneRegions[phoneRegionDK].iso != "DK" || phoneRegions[phoneRegionSG].iso != "SG" {
		t.Error("phoneRegionDK, phoneRegionSG: wrong index")
	}
	if len(phoneRegions) > 32 {
		t.Error("regionSet has 32 bits")
	}
}

// TestPhoneCountryCodes checks the table of country codes against a few
// known facts, and that every region's code is assigned.
func TestPhoneCountryCodes(t *testing.T) {
	for _, c := range []struct {
		d    string
		want int
	}{{"14155550132", 1}, {"74951234567", 1}, {"442079460958", 2}, {"35312345678", 3}, {"97231234567", 3},
		{"3581234567", 3}, {"0441234", 0}, {"2591234", 0}, {"28123456", 0}, {"6912345", 3}, {"8501234", 3}} {
		if got := phoneCountryCode([]byte(c.d)); got != c.want {
			t.Errorf("%s: got %d, want %d", c.d, got, c.want)
		}
	}
	for i := range phoneRegions {
		r := &phoneRegions[i]
		if phoneCountryCode([]byte(r.cc+"123456789")) != len(r.cc) {
			t.Errorf("%s: country code %s not assigned", r.iso, r.cc)
		}
	}
}

// FuzzPhone: the phone step never reports a span that is not on rune
// boundaries, not made of phone bytes (and an extension after them:
// phoneExtension), or without 7 digits; and the pass agrees with the
// per-run reference.
func FuzzPhone(f *testing.F) {
	for _, c := range phoneCases {
		f.Add(c.text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := scanBuiltin(detPhone, s, nil)
		want := refPhone(s, nil)
		if len(got) != len(want) {
			t.Fatalf("%q: pass %v, reference %v", s, got, want)
		}
		for k, sp := range got {
			if sp != want[k] {
				t.Fatalf("%q: pass %v, reference %v", s, got, want)
			}
			digits, e := 0, sp.Start
			for e < sp.End && piiClass[s[e]]&pcPhone != 0 {
				digits += int(piiClass[s[e]] & pcDigit)
				e++
			}
			if e < sp.End {
				// What follows the phone bytes is its extension, whole.
				if s[e-1] == ' ' {
					e--
				}
				if phoneExtension(s, e) != sp.End {
					t.Fatalf("%q: span %q holds %q", s, s[sp.Start:sp.End], s[e:sp.End])
				}
			}
			if digits < 7 {
				t.Fatalf("%q: span %q", s, s[sp.Start:sp.End])
			}
		}
	})
}
