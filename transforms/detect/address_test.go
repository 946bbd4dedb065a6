package detect

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// addrCases are texts with the addresses the scan must report (marked
// «…»), or none: the formats of the countries of manual 12.9.4, and the
// hard negatives.
var addrCases = []string{
	"«1600 Pennsylvania Avenue NW, Washington, DC 20500»",
	"Send it to «221B Baker Street, London NW1 6XE».",
	"«Hauptstraße 12, 10115 Berlin»",
	"Wir wohnen in der «Karl-Marx-Allee 3a».",
	"«Hauptstr. 5, D-10115 Berlin»",
	"«12 rue de la Paix, 75002 Paris»",
	"«12, rue de la Paix\n75002 Paris»",
	"«Calle Mayor 5, 3º B, 28013 Madrid»",
	"«Via Roma 10, 00184 Roma RM»",
	"«Kerkstraat 1, 1017 GA Amsterdam»",
	"«Rua Augusta 100, 01304-000 São Paulo»",
	"«Avenida Paulista, 1578 - Bela Vista, São Paulo - SP, 01310-200»",
	"«ul. Marszałkowska 1, 00-624 Warszawa»",
	"«Drottninggatan 5, 111 51 Stockholm»",
	"«Mannerheimintie 1, 00100 Helsinki»",
	"«Strøget 2, 1160 København K»",
	"The PM lives at «10 Downing St».",
	"«Flat 3, 5 High Road»",
	"«〒100-0001 東京都千代田区千代田1-1»",
	"住所は«東京都新宿区西新宿2-8-1»です。",
	"«〒160-0023 東京都新宿区西新宿1丁目2番3号 新宿ハイツ101»",
	"«10 Anson Road #10-01 Singapore 079903»",
	"«12 George St, Sydney NSW 2000»",
	"«24 Sussex Drive, Ottawa, ON K1A 0B1»",
	"PIN «110001»",
	"«Flat 4B, 12 MG Road, Bengaluru, Karnataka 560001»",
	"«0487 Hull Village Suite 759\nLake Nicole, MT 82144»",
	"«350 Fifth Avenue, Apt 4B, New York, NY 10118»",
	// English streets of one word, the type glued (a postcode proves them)
	"Ship it to «4 Brookside, Leeds LS1 4AP»",
	"Ship it to «7 Greenway, M1 1AE Manchester»",
	"Ship it to «12 Woodside, Slough SL3 9UX»",
	"We were 3 outside, waiting",
	"«Nørregade 12, 2. th., 1165 København K»",
	"«Frankfurter Allee 12, 10247 Berlin»",
	"«Piazza di Spagna 31, 00187 Roma»",
	"«5 Place Vendôme, 75001 Paris»",
	"She lives at «Flat 72, Evans islands, New Kyle, S7 2HN».",
	"«Vestergade 5, 2000 Frederiksberg»",
	// Negatives.
	"our Paris office opened in 2024",
	"Berlin 2024 was a great conference",
	"Street Fighter 2 is a game",
	"Avenue Q is a musical",
	"Route 66 is a highway",
	"meet me at Baker Street station",
	"Main Street is busy",
	"we shipped 10115 items",
	"Order 12345 shipped on 2024-01-02",
	"version 1.2.3 of Acme Road Runner",
	"total 12,50 EUR",
	"Windows 10, 2023 Edition",
	"Invoice 10115, Berlin 2024",
	"NW1 6XE",
	"10115 Berlin",
	"Top 10 Places to visit",
	"Spring 2024 collection",
	"Level 5, 20 items",
}

func TestScanAddresses(t *testing.T) {
	for _, line := range append(addrCases[:len(addrCases):len(addrCases)], cjkAddrCases...) {
		text, want := unmark(line)
		var got []string
		for _, d := range Builtin("street_address", text) {
			got = append(got, text[d.Start:d.End])
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%q: got %q, want %q", text, got, want)
		}
	}
}

func TestPostcodeShape(t *testing.T) {
	for _, s := range []string{"20500", "20500-1234", "NW1 6XE", "SW1A 1AA", "M1 1AE", "K1A 0B1", "10115", "D-10115", "1017 GA",
		"1017GA", "111 51", "SE-111 51", "00-624", "01304-000", "1100-148", "110001", "110 001", "100-0001", "〒100-0001", "2000"} {
		if !postcodeShape(s) {
			t.Errorf("postcodeShape(%q) = false", s)
		}
	}
	for _, s := range []string{"", "123", "1234567", "NW1", "NW1 6CE", "D1A 0B1", "1017 SS", "12-34", "ABC 123", "10115 Berlin"} {
		if postcodeShape(s) {
			t.Errorf("postcodeShape(%q) = true", s)
		}
	}
}

func TestAddressShape(t *testing.T) {
	for _, s := range []string{"Hauptstraße 12, 10115 Berlin", "221B Baker Street, London NW1 6XE", "10 Downing St", " 12 rue de la Paix, 75002 Paris. "} {
		if !addressShape(s) {
			t.Errorf("addressShape(%q) = false", s)
		}
	}
	for _, s := range []string{"", "10115", "Berlin", "Acme GmbH", "I live at 10 Downing St", "10 Downing St is nice", "2024-01-02"} {
		if addressShape(s) {
			t.Errorf("addressShape(%q) = true", s)
		}
	}
}

// FuzzPostcodeShape: the postcode readers never panic nor read out of
// bounds, and a postcode is found whole after a label.
func FuzzPostcodeShape(f *testing.F) {
	for _, s := range []string{"20500-1234", "NW1 6XE", "K1A 0B1", "1017 GA", "111 51", "00-624", "01304-000", "〒100-0001", "D-10115"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for k := 0; k < len(s); k++ {
			if e, ok := postcodeAt(s, k, k%2 == 0); ok && (e <= k || e > len(s)) {
				t.Fatalf("postcodeAt(%q, %d) = %d", s, k, e)
			}
		}
		if postcodeShape(s) && utf8.ValidString(s) && !strings.ContainsAny(s, "\\%&\n") {
			// As postcodeShape reads it: spaces trimmed after 〒 too.
			text := "PLZ " + strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "〒"))
			if ds := Builtin("street_address", text); len(ds) != 1 || ds[0].End != len(text) {
				t.Fatalf("postcodeShape(%q) but the scan finds %v in %q", s, ds, text)
			}
		}
	})
}

// FuzzAddresses: the address scan never panics, its spans are in bounds,
// in order and on rune boundaries, and addressShape agrees with it; what
// the detector reports (the scan's spans and the labelled values' of the
// same detector, which may repeat them: "Via\tA 0,0000") is in order and
// without overlaps.
func FuzzAddresses(f *testing.F) {
	for _, line := range addrCases {
		f.Add(strings.NewReplacer("«", "", "»", "").Replace(line))
	}
	f.Fuzz(func(t *testing.T, s string) {
		end := 0
		for _, d := range Builtin("street_address", s) {
			if d.Start < end || d.End <= d.Start || d.End > len(s) {
				t.Fatalf("%q: detections %v", s, Builtin("street_address", s))
			}
			end = d.End
		}
		p := pass{s: s, fam: 1 << detStreetAddress}
		p.scanAddresses()
		last := 0
		for _, sp := range p.spans {
			if sp.Start < last || sp.End <= sp.Start || sp.End > len(s) {
				t.Fatalf("%q: spans %v", s, p.spans)
			}
			if utf8.ValidString(s) && !utf8.ValidString(s[sp.Start:sp.End]) {
				t.Fatalf("%q: span %v splits a character", s, sp)
			}
			last = sp.End
		}
		addressShape(s)
	})
}
