package detect

// The credit_card and iban detectors (manual 12), steps of the pass
// (detect.go); the byte classes and decisions they share are in pii.go.

// ---------------------------------------------------------------- credit_card

const ccMaxGroups = 24

type ccGroup struct {
	start, end int
	space      bool // the separator before the group is a space
}

// stepCard, at the first digit since the last run, finds payment card
// numbers: 13–19 digits, optionally
// split by single spaces or dashes (grouping need not be consistent, but
// every group except the last has at least 4 digits), Luhn-valid, with a
// known issuer prefix for its length (Visa 4: 13/16/19; Mastercard 51–55,
// 2221–2720: 16; Amex 34/37: 15; Diners 300–305, 309, 36, 38, 39: 14–19;
// JCB 3528–3589: 16–19; Mir 2200–2204: 16–19; Maestro 50, 56–59: 13–19;
// 6 (Discover, UnionPay, Maestro, RuPay…): 16–19). The IIN check cuts the
// Luhn false-positive rate of arbitrary 13–19 digit ids by about two
// thirds. A run of more than 19 digits is never split at a dash, only at a
// space ("4111 1111 1111 1111 2025" yields the card), so a card is never
// found inside a longer number; nor in a run glued to a word on its left
// (the digits of a printed IBAN, "DE89 3704 0044 …").
func (p *pass) stepCard(d int) {
	s := p.s
	n := len(s)
	// A card is at least 13 digits with single separators between them.
	q := d
	for q > p.cardNext && piiClass[s[q-1]]&pcCard != 0 {
		q--
	}
	e, digits := q, 0
	for e < n && digits < 13 { // stops there, as in stepPhone
		m := piiClass[s[e]]
		if m&pcCard == 0 {
			break
		}
		digits += int(m & pcDigit) // pcDigit is bit 0
		e++
	}
	if digits < 13 {
		p.cardNext = e
		return
	}
	var g [ccMaxGroups]ccGroup
	k := len(p.spans)
	p.cardNext, p.spans = ccRun(s, d, &g, p.spans)
	p.tag(k, detCard)
}

// ccRun parses the run of digit groups starting at s[i] into g, appends
// the cards in it to dst and returns where the run ends.
func ccRun(s string, i int, g *[ccMaxGroups]ccGroup, dst []Span) (int, []Span) {
	n := len(s)
	ng, digits := 0, 0
	j := i
	space := false
	for {
		gs := j
		for j < n && piiDigit(s[j]) {
			j++
		}
		g[ng] = ccGroup{gs, j, space}
		ng++
		digits += j - gs
		if ng == ccMaxGroups || j+1 >= n || (s[j] != ' ' && s[j] != '-') || !piiDigit(s[j+1]) {
			break
		}
		space = s[j] == ' '
		j++
	}
	if digits < 13 {
		return j, dst
	}
	return j, ccCandidates(s, g[:ng], dst)
}

func ccCandidates(s string, g []ccGroup, dst []Span) []Span {
	ng := len(g)
	if piiWordBefore(s, g[0].start) {
		return dst // the tail of a word ("DE89 3704 0044 …"): no card in it
	}
	for a := 0; a < ng; a++ {
		if a == 0 {
			if !piiNumStartOK(s, g[0].start) || g[0].start > 0 && s[g[0].start-1] == '+' {
				continue
			}
		} else if !g[a].space {
			continue
		}
		best, d := -1, 0
		for b := a; b < ng; b++ {
			if b > a && g[b-1].end-g[b-1].start < 4 {
				break
			}
			d += g[b].end - g[b].start
			if d > 19 {
				break
			}
			if d < 13 || b+1 < ng && !g[b+1].space || b+1 == ng && !piiNumEndOK(s, g[b].end) {
				continue
			}
			if ccValid(s, g[a:b+1], d) {
				best = b
			}
		}
		if best >= 0 {
			dst = append(dst, Span{g[a].start, g[best].end})
			a = best
		}
	}
	return dst
}

// ccValid checks the issuer prefix and length, then Luhn, of the d digits
// in groups g (the first group has at least 4 digits).
func ccValid(s string, g []ccGroup, d int) bool {
	p := g[0].start
	if !ccIIN(int(s[p]-'0')*1000+int(s[p+1]-'0')*100+int(s[p+2]-'0')*10+int(s[p+3]-'0'), d) {
		return false
	}
	sum, double := 0, false
	for x := len(g) - 1; x >= 0; x-- {
		for q := g[x].end - 1; q >= g[x].start; q-- {
			v := int(s[q] - '0')
			if double {
				v *= 2
				if v > 9 {
					v -= 9
				}
			}
			sum += v
			double = !double
		}
	}
	return sum%10 == 0
}

// ccIIN reports whether a number of d digits starting with the four digits
// p4 has a known issuer prefix for that length.
func ccIIN(p4, d int) bool {
	p2, p3 := p4/100, p4/10
	switch p4 / 1000 {
	case 2:
		return p4 >= 2200 && p4 <= 2204 && d >= 16 || p4 >= 2221 && p4 <= 2720 && d == 16
	case 3:
		switch {
		case p2 == 34 || p2 == 37:
			return d == 15
		case p3 >= 300 && p3 <= 305 || p3 == 309 || p2 == 36 || p2 == 38 || p2 == 39:
			return d >= 14
		case p4 >= 3528 && p4 <= 3589:
			return d >= 16
		}
	case 4:
		return d == 13 || d == 16 || d == 19
	case 5:
		if p2 >= 51 && p2 <= 55 {
			return d == 16
		}
		return p2 == 50 || p2 >= 56
	case 6:
		return d >= 16
	}
	return false
}

// ---------------------------------------------------------------- iban

// ibanLength is the IBAN length of each country of the SWIFT IBAN
// registry (2025 release), indexed by (c0-'A')*26 + (c1-'A') for country
// code c0c1; 0 for codes without IBANs.
var ibanLength = func() (t [26 * 26]uint8) {
	const registry = "AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BI27 BR29 BY28 CH21 CR22 CY28 CZ24 " +
		"DE22 DJ27 DK18 DO28 EE20 EG29 ES24 FI18 FK18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 " +
		"GT28 HN28 HR21 HU28 IE22 IL23 IQ23 IS26 IT27 JO30 KW30 KZ20 LB28 LC32 LI21 LT20 " +
		"LU20 LV21 LY25 MC27 MD24 ME22 MK19 MN20 MR27 MT31 MU30 NI28 NL18 NO15 OM23 PK24 " +
		"PL28 PS29 PT25 QA29 RO24 RS22 RU33 SA24 SC31 SD18 SE24 SI19 SK24 SM27 SO23 ST25 " +
		"SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20 YE30"
	for i := 0; i+4 <= len(registry); i += 5 {
		t[int(registry[i]-'A')*26+int(registry[i+1]-'A')] = (registry[i+2]-'0')*10 + registry[i+3] - '0'
	}
	return t
}()

// stepIBAN, at two upper-case letters and two digits, finds IBANs: a country code of the SWIFT registry, two check
// digits (02–98) and the BBAN, exactly as long as the registry says for
// that country, mod-97 == 1; compact or printed in groups of four
// separated by single spaces (the last group shorter). Letters must be
// upper case, as ISO 13616 writes them: lower-case IBANs are rare, and
// accepting them would make every lower-case word a candidate.
func (p *pass) stepIBAN(a int) {
	if e := ibanAt(p.s, a); e > 0 {
		p.emit(detIBAN, a, e)
		p.ibanNext = e
	}
}

// ibanAt returns the end of an IBAN starting at s[a] (country code, then
// two digits), or -1.
func ibanAt(s string, a int) int {
	c0, c1 := s[a], s[a+1] // A-Z, checked by the caller
	if piiWordBefore(s, a) {
		return -1
	}
	L := int(ibanLength[int(c0-'A')*26+int(c1-'A')])
	if L == 0 {
		return -1
	}
	cd := int(s[a+2]-'0')*10 + int(s[a+3]-'0')
	if cd < 2 || cd > 98 {
		return -1
	}
	n := len(s)
	grouped := a+4 < n && s[a+4] == ' '
	// mod 97 of BBAN + country code + check digits, letters as 10..35
	r := 0
	j := a + 4
	for m := 4; m < L; m++ {
		if grouped && m%4 == 0 {
			if j >= n || s[j] != ' ' {
				return -1
			}
			j++
		}
		if j >= n {
			return -1
		}
		c := s[j]
		switch {
		case piiDigit(c):
			r = (r*10 + int(c-'0')) % 97
		case piiIs(c, pcUpper):
			r = (r*100 + int(c-'A') + 10) % 97
		default:
			return -1
		}
		j++
	}
	if piiWordAt(s, j) {
		return -1
	}
	r = (r*100 + int(c0-'A') + 10) % 97
	r = (r*100 + int(c1-'A') + 10) % 97
	r = (r*100 + cd) % 97
	if r != 1 {
		return -1
	}
	return j
}
