package detect

import (
	"math/big"
	"strings"
	"testing"
)

// Published sample numbers (each the example of its issuer's or a
// standard library's documentation, not a real person's), and the same
// with their check character changed, which must fail.
var idSamples = []struct {
	check idCheck
	valid string
	lay   string
}{
	{ckNino, "AB123456C", "9"},
	{ckNhs, "9434765919", "a"},
	{ckDeTax, "86095742719", "b"},
	{ckNir, "185057800608491", "f"},
	{ckDni, "12345678Z", "9"},
	{ckNie, "X1234567L", "9"},
	{ckCf, "RSSMRA85T10A562S", "g"},
	{ckBsn, "111222333", "9"},
	{ckBe, "85073003328", "b"},
	{ckPesel, "44051401359", "b"},
	{ckSePN, "8112289874", "a"},
	{ckSePN, "198112289874", "c"},
	{ckHetu, "131052-308T", "b"},
	{ckCpf, "12345678909", "b"},
	{ckCnpj, "11222333000181", "e"},
	{ckCnpj, "12ABC34501DE35", "e"},
	{ckAadhaar, "234123412346", "c"},
	{ckPan, "ABCPD1234E", "a"},
	{ckSin, "130692544", "9"},
	{ckTfn, "123456782", "9"},
	{ckMedicare, "2123456701", "a"},
	{ckNric, "S1234567D", "9"},
	{ckNric, "M1234567K", "9"},
	{ckMyNumber, "123456789018", "c"},
	{ckItin, "912701234", "9"},
	{ckAba, "021000021", "9"},
}

func TestIDChecks(t *testing.T) {
	for _, c := range idSamples {
		v := c.valid
		chars := []byte(strings.ReplaceAll(v, "-", ""))
		lay := []byte(c.lay)
		if c.check == ckHetu && strings.Contains(v, "-") {
			lay = []byte("6-4")
		}
		if !idValid(c.check, chars, lay) {
			t.Errorf("%s: check %d fails", v, c.check)
		}
		if c.check == ckNino || c.check == ckPan || c.check == ckItin {
			continue // no check character
		}
		last := len(chars) - 1
		if c.check == ckMedicare {
			last = 8 // then the issue number
		}
		for _, r := range "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ" {
			if byte(r) == chars[last] {
				continue
			}
			bad := append([]byte(nil), chars...)
			bad[last] = byte(r)
			if idValid(c.check, bad, lay) {
				t.Errorf("%s: check %d passes with its last character %c", v, c.check, r)
			}
		}
	}
	// Date rules: a right check character on an impossible date fails.
	for _, c := range []struct {
		check idCheck
		v     string
	}{
		{ckPesel, "44053201353"}, // 32 May
		{ckHetu, "310252-308Y"},  // 31 February
		{ckCpr, "3002901234"},    // 30 February
		{ckSePN, "8113289873"},   // month 13
		{ckBe, "85133003370"},    // month 13
	} {
		lay := []byte("b")
		if c.check == ckHetu {
			lay = []byte("6-4")
		} else if len(c.v) == 10 {
			lay = []byte("a")
		}
		if idValid(c.check, []byte(strings.ReplaceAll(c.v, "-", "")), lay) {
			t.Errorf("%s passes check %d", c.v, c.check)
		}
	}
}

// TestIDsWhole: on every positive line of the identifiers' corpora, all
// the detectors together (Set.Detect) report each marked identifier as
// one span, by its own detector: no phone, card or other detector keeps
// a part of it, and nothing else is reported inside it.
func TestIDsWhole(t *testing.T) {
	ds := allDetectors(t)
	all := Select(nil, 0)
	for _, def := range idDefs {
		name := builtinNames[def.det]
		if name == "us_ssn" {
			continue
		}
		for _, c := range readCorpus(t, name) {
			if !c.positive {
				continue
			}
			got := ds.Detect(c.text, all)
			for _, w := range c.want {
				found := false
				for _, d := range got {
					if d.End > w.Start && d.Start < w.End && (d.Start != w.Start || d.End != w.End || d.Detector != name) {
						t.Errorf("%s.txt:%d: %s %q overlaps %q", name, c.line, d.Detector, c.text[d.Start:d.End], c.text[w.Start:w.End])
					}
					found = found || d.Start == w.Start && d.End == w.End && d.Detector == name
				}
				if !found {
					t.Errorf("%s.txt:%d: %q not reported whole by %s: %v", name, c.line, c.text[w.Start:w.End], name, got)
				}
			}
		}
	}
}

// TestIDsContext: weak shapes need their words, strong ones do not; the
// policy's words count; a word glued into another word does not.
func TestIDsContext(t *testing.T) {
	cases := []struct {
		det  int
		text string
		want string // the span, "" for none
	}{
		{detNLBSN, "BSN: 111222333", "111222333"},
		{detNLBSN, "klant 111222333", ""},
		{detNLBSN, "customerBsn=111222333", "111222333"},
		{detNLBSN, "{\"bsn\":\"1112.22.333\"}", "1112.22.333"},
		{detNLBSN, "absn 111222333", ""},
		{detNLBSN, "BSN " + strings.Repeat("x", 70) + " 111222333", ""},
		{detUSITIN, "ref 912-70-1234", "912-70-1234"},
		{detUSITIN, "ref 912 70 1234", ""},
		{detUSITIN, "ITIN 912 70 1234", "912 70 1234"},
		{detSSN, "SSN 123 45 6789", "123 45 6789"},
		{detSSN, "social security number: 123456789", "123456789"},
		{detSSN, "Soc Sec 123.45.6789", "123.45.6789"},
		{detSSN, "SSN 123-45-6789", "123-45-6789"}, // the pass's
		{detSSN, "SSN 666 45 6789", ""},
		{detSSN, "order 123 45 6789", ""},
		{detPassport, "Passport No.: C01X00T47", "C01X00T47"},
		{detPassport, "Passport expires 2030-01-01, booking AB123456", ""},
		{detPassport, "password: AB123456", ""},
		{detPassport, "パスポート番号：TK1234567", "TK1234567"},
		{detINPAN, "ABCPD1234E", "ABCPD1234E"},
		{detINPAN, "ABCCD1234E", ""},
		{detINPAN, "PAN of the firm ABCCD1234E", "ABCCD1234E"},
		{detDKCPR, "010190-1234", ""},
		{detDKCPR, "CPR-nr. 010190-1234", "010190-1234"},
		{detABARouting, "ABA 021000021", "021000021"},
		{detABARouting, "tracking 021000021", ""},
		{detJPMyNumber, "個人番号は1234 5678 9018です", "1234 5678 9018"},
		// context words written as abbreviations with their dots
		{detBRCPF, "C.P.F.: 73993283589", "73993283589"},
		{detBRCPF, "ref. 73993283589", ""},
		{detBRCNPJ, "C.N.P.J.: 94288046000100", "94288046000100"},
		{detITFiscalCode, "Cod. Fisc.: cpvwxf90b45d612o", "cpvwxf90b45d612o"},
		{detDETaxID, "Identifikationsnr. 28946053572", "28946053572"},
	}
	for _, c := range cases {
		// Builtin: the label scan (keys.go) may find the same span.
		found := Builtin(builtinNames[c.det], c.text)
		got := ""
		if len(found) > 0 {
			got = c.text[found[0].Start:found[0].End]
		}
		if got != c.want || len(found) > 1 {
			t.Errorf("%s in %q: got %v, want %q", builtinNames[c.det], c.text, found, c.want)
		}
	}
	// The policy's words (Extra.Context).
	p := pass{s: "klantnummer 111222333", fam: 1 << detNLBSN, extra: &Extra{Context: map[string][]string{"nl_bsn": {"Klantnummer"}}}}
	p.runFamilies()
	if len(p.spans) != 1 {
		t.Errorf("extra context word: %v", p.spans)
	}
}

// TestIDsTokens: an identifier is never reported as part of a longer
// token, nor in part.
func TestIDsTokens(t *testing.T) {
	ds := allDetectors(t)
	all := Select(nil, 0)
	for _, id := range []string{"12345678Z", "RSSMRA85T10A562S", "185057800608491", "131052-308T", "S1234567D", "123.456.789-09"} {
		for _, s := range []string{"X" + id, id + "7", "é" + id, id + "é", id + "_a", "a-" + id, id + "-12", "1." + id, id + ".5", "+" + id, "\\n" + id} {
			for _, d := range ds.Detect(s, all) {
				if d.Detector != "phone" && d.Detector != "credit_card" && strings.Contains(id, d.Seen(s)) && s[d.Start:d.End] == id {
					if s == "\\n"+id {
						continue // a JSON escape before it is no letter
					}
					t.Errorf("%q: %s %q", s, d.Detector, s[d.Start:d.End])
				}
			}
		}
		if got := ds.Detect("\\n"+id, Select([]string{"@pii"}, 0)); len(got) != 1 || got[0].Start != 2 {
			t.Errorf("after an escape: %v", got)
		}
	}
}

// TestIDsSSNAlone: us_ssn selected alone still finds its forms in
// context (runFamilies runs for it), and Clean does not pass them.
func TestIDsSSNAlone(t *testing.T) {
	ds := allDetectors(t)
	sel := Select([]string{"us_ssn"}, 0)
	for _, s := range []string{"SSN 123 45 6789", "social security number: 123456789", "SSN 123-45-6789"} {
		if got := ds.Detect(s, sel); len(got) != 1 || got[0].Detector != "us_ssn" {
			t.Errorf("%q: %v", s, got)
		}
		if ds.Clean(s, &sel) {
			t.Errorf("Clean(%q)", s)
		}
	}
}

// TestIDsNoAllocation: the scan allocates nothing where it finds nothing.
func TestIDsNoAllocation(t *testing.T) {
	s := strings.Repeat("Order 4711-0815 of 2024-03-15 10:30, invoice 123456789, BSN 111222334, NIR 185057800608492, tel 0612345678. ", 20)
	p := pass{s: s, fam: idScanned}
	if n := testing.AllocsPerRun(50, func() { p.spans = p.spans[:0]; p.scanIDs() }); n != 0 || len(p.spans) != 0 {
		t.Errorf("%v allocations, %d spans", n, len(p.spans))
	}
}

func TestNextDigit(t *testing.T) {
	for _, s := range []string{"", "abc", "abcdefgh1", "0", "é½9", "\xb0\xb9\xff9", "////////:::::::::9", strings.Repeat("x", 17) + "5"} {
		want := strings.IndexAny(s, "0123456789")
		if want < 0 {
			want = len(s)
		}
		if got := nextDigit(s, 0); got != want {
			t.Errorf("nextDigit(%q) = %d, want %d", s, got, want)
		}
	}
}

// FuzzIDScan: whatever the text, every identifier span lies on token
// boundaries, holds what its layout allows, and passes its check again
// when read back; nextDigit agrees with a byte loop; Clean (with the
// identifiers selected) never passes a string where they find something.
func FuzzIDScan(f *testing.F) {
	for _, s := range []string{"BSN 111222333", "1 85 05 78 006 084 91", "AB 12 34 56 C", "X-1234567-L", "RSS MRA 85T10 A562S", "12.ABC.345/01DE-35",
		"SSN 123 45 6789", "Passport: C01X00T47", "4111 1111 1111 1111", "\\n12345678Z", "2024-01-15T10:30:00Z"} {
		f.Add(s)
	}
	ds := allDetectors(f)
	sel := Select([]string{"@pii"}, 0)
	f.Fuzz(func(t *testing.T, s string) {
		if want, got := strings.IndexAny(s, "0123456789"), nextDigit(s, 0); got != want && !(want < 0 && got == len(s)) {
			t.Fatalf("nextDigit(%q) = %d, want %d", s, got, want)
		}
		p := pass{s: s, fam: idScanned, multi: true}
		p.scanIDs()
		for k, sp := range p.spans {
			if sp.Start < 0 || sp.End > len(s) || sp.Start >= sp.End {
				t.Fatalf("%q: span %v", s, sp)
			}
			if idClass[s[sp.Start]]&icAlnum == 0 || idClass[s[sp.End-1]]&icAlnum == 0 {
				t.Fatalf("%q: span %q does not start and end on a letter or digit", s, s[sp.Start:sp.End])
			}
			if sp.End < len(s) && idClass[s[sp.End]]&icAlnum != 0 || sp.Start > 0 && idClass[s[sp.Start-1]]&(icDigit|icUpper) != 0 {
				t.Fatalf("%q: span %q is part of a token", s, s[sp.Start:sp.End])
			}
			if det := int(p.dets[k] & detMask); idScanned&(1<<det) == 0 {
				t.Fatalf("%q: detector %d", s, det)
			}
		}
		cleanSame(t, ds, []Selection{sel}, s)
	})
}

// FuzzIDChecks holds the arithmetic checks to independent oracles on any
// digits: the mod-97 keys (NIR, Belgian numbers) to math/big, Luhn to
// its doubling table, Verhoeff to the dihedral group's formula, ISO 7064
// MOD 11,10 to its definition by the recursive remainder.
func FuzzIDChecks(f *testing.F) {
	for _, s := range []string{"185057800608491", "85073003328", "130692544", "234123412346", "86095742719", "0", "99999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) == 0 || len(s) > 18 || !allDigits([]byte(s)) {
			return
		}
		c := []byte(s)
		// mod 97
		if len(c) == 11 {
			base, _ := new(big.Int).SetString(s[:9], 10)
			key := int64(d2(c, 9))
			m := new(big.Int).Mod(base, big.NewInt(97)).Int64()
			b2 := new(big.Int).Add(base, big.NewInt(2000000000))
			m2 := new(big.Int).Mod(b2, big.NewInt(97)).Int64()
			want := (97-m == key || 97-m2 == key)
			if got := beValid(c, []byte("b")); got && !want {
				t.Fatalf("beValid(%s) without its key", s)
			}
		}
		// Luhn: the doubling table against the sum of digits of 2d.
		sum := 0
		for i := 0; i < len(c); i++ {
			d := int(c[len(c)-1-i] - '0')
			if i%2 == 1 {
				d *= 2
				d = d/10 + d%10
			}
			sum += d
		}
		if luhn(c) != (sum%10 == 0) {
			t.Fatalf("luhn(%s)", s)
		}
		// Verhoeff by the formula of D5.
		dih := func(j, k int) int {
			switch {
			case j < 5 && k < 5:
				return (j + k) % 5
			case j < 5:
				return (j+k)%5 + 5
			case k < 5:
				return ((j-k)%5+5)%5 + 5
			}
			return ((j-k)%5 + 5) % 5
		}
		p1 := []int{1, 5, 7, 6, 2, 8, 3, 0, 9, 4}
		x := 0
		for i := 0; i < len(c); i++ {
			d := int(c[len(c)-1-i] - '0')
			for k := 0; k < i%8; k++ {
				d = p1[d]
			}
			x = dih(x, d)
		}
		if verhoeff(c) != (x == 0) {
			t.Fatalf("verhoeff(%s)", s)
		}
		// ISO 7064 MOD 11,10: the check digit makes the whole pass.
		if len(c) >= 2 {
			chk := iso7064Mod1110(c[:len(c)-1])
			p := 10
			for _, b := range c[:len(c)-1] {
				r := (int(b-'0') + p) % 10
				if r == 0 {
					r = 10
				}
				p = r * 2 % 11
			}
			if (p+chk)%10 != 1 && !(chk == 0 && p == 1) {
				t.Fatalf("iso7064(%s) = %d", s[:len(s)-1], chk)
			}
		}
	})
}

// BenchmarkScanIDs: the identifiers' scan alone over the mixed corpus.
func BenchmarkScanIDs(b *testing.B) {
	whole, _ := readMixed(b)
	p := pass{s: whole, fam: idScanned}
	b.SetBytes(int64(len(whole)))
	b.ReportAllocs()
	for b.Loop() {
		p.spans = p.spans[:0]
		p.scanIDs()
	}
}
