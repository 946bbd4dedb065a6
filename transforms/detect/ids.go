package detect

import "strings"

// National identifiers, passports and routing numbers (manual 12.9.1):
// the identifiers of idDefs, each checked by its check digits (and the
// birth date it encodes, where it encodes one), and passports, which have
// none, by context alone.
//
// The scan visits every ASCII digit run of the text (eight bytes at a
// time to the next digit), once per token: the run's alphanumeric segment
// (letters and digits), and the chain of segments joined to it by single
// separators (space, '-', '.', '/', '+'), as written. An identifier is the
// first m segments of a chain, whole: its span runs from its first
// character to its last, separators included, so no part of it stays in
// clear, and it starts at the token's first character, so that a shorter
// span of another detector inside it (a phone's) loses the overlap.
// Around it:
//
//   - no letter, digit or '_' glued on either side (a two-byte letter
//     counts, as in pii.go), nor a '-', '.', '/' joining it to more
//     letters or digits, nor a '+' before it (a phone's country code);
//   - a space joins it to a further group of digits only when the
//     identifier is written in groups itself (a card's 4-4-4-4 holds no
//     Aadhaar 4-4-4), and a group of up to five digits and a space
//     before it make it the tail of a longer grouped number;
//   - one or two segments of up to six capital letters in all before it,
//     joined by a separator, may be its start: "AB 12 34 56 C",
//     "X-1234567-L", "RSS MRA 85T10 A562S", "AB.CDE.1F2/0001-35".
//
// Each identifier lists its layouts: the lengths of its segments and their
// separators, such as "3.3.3-2" for a CPF ('_' for any separator; a
// length is a hexadecimal digit, so 11 characters in one segment is "b").
// Strong layouts are reported on the checks alone; weak ones (a bare run
// of 9 to 12 digits, where one random number in ten or eleven passes a
// check digit) only with one of the identifier's context words, or the
// policy's (Extra.Context), ending within idWindow bytes before it. Where
// several identifiers fit, one with its context word present comes first,
// then the first in idDefs' order.
//
// Nothing here allocates: the chain lives on the stack, the context words
// are compared in place, case-folded.

// idWindow is how far before an identifier (in bytes) its context word
// may end.
const idWindow = 64

// passportWindow is the same for a passport number, which must also be
// the first digits after its word.
const passportWindow = 40

const (
	idMaxChars = 18 // the longest identifier (China's resident identity number) without separators
	idMaxSegs  = 8  // the most segments (a NIR in seven groups), and one more
)

// idChain is the segments of a token from start: their characters without
// separators (c), and per segment the characters before its end (cum),
// its byte end and the separator before it.
type idChain struct {
	start int
	k     int // segments
	c     [idMaxChars]byte
	cum   [idMaxSegs]uint8
	end   [idMaxSegs]int
	sep   [idMaxSegs]byte
	// more is what follows segment k-1: 0 nothing that joins; a separator
	// before a segment the chain could not hold; 'w' a glued word
	// character.
	more byte
	// lc and uc have bit q set when segment q holds lower-case (c holds
	// them in upper case) or upper-case letters: an identifier in lower
	// case is one only after its word, and none mixes cases.
	lc, uc uint8
	lower  bool // the identifier idMatch tries is in lower case
}

// Character classes of the scan.
const (
	icDigit uint8 = 1 << iota
	icUpper
	icLower
	icSep // space - . / +

	icAlnum = icDigit | icUpper | icLower
)

var idClass = func() (t [256]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = icDigit
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = icUpper
		t[c+'a'-'A'] = icLower
	}
	for _, c := range " -./+" {
		t[c] = icSep
	}
	return t
}()

// idDef is one identifier: its detector, its length without separators,
// its layouts, its checks and its context words. A word ending in '*' may
// go on with more letters ("steuer*": Steuer-ID, Steueridentifikationsnummer);
// every other ASCII word is whole. Words are lower case.
type idDef struct {
	det    int
	n      uint8
	strong []string
	weak   []string
	check  idCheck
	words  []string
	basis  Basis // without context: BasisChecksum, or BasisPattern where there is no check digit
}

var (
	wordsNINO     = []string{"national insurance", "nino", "ni number", "ni no", "nin"}
	wordsNHS      = []string{"nhs*", "national health", "health service"}
	wordsDETax    = []string{"steuer*", "idnr*", "id-nr", "identifikationsnummer*", "identifikationsnr", "tax id*", "tax-id*", "taxid*", "tin", "tax identification", "tax number"}
	wordsNIR      = []string{"nir", "sécurité sociale", "securite sociale", "sécu", "insee", "social security"}
	wordsDNI      = []string{"dni", "nif", "documento nacional"}
	wordsNIE      = []string{"nie", "nif", "extranjero*"}
	wordsCF       = []string{"codice fiscale", "cf", "c.f.", "cod. fisc", "cod.fisc", "cod fisc", "fiscal code", "tax code"}
	wordsBSN      = []string{"bsn*", "burgerservice*", "sofi*", "citizen service number", "persoonsnummer", "persoonsgebonden nummer", "social security", "national identification number", "personal identification number"}
	wordsBE       = []string{"rijksregister*", "nationaal nummer", "registre national", "numéro national", "numero national", "n° national", "nº national", "national number", "national register", "niss", "insz", "rrn", "nationalregister*", "numéro de registre"}
	wordsPESEL    = []string{"pesel", "numer ewidencyjny", "social security", "national identification number", "personal identification number"}
	wordsSE       = []string{"personnum*", "personnr", "pers.nr", "pnr", "samordningsnummer", "personal identity number", "personal number", "person number", "social security", "national identification number"}
	wordsHETU     = []string{"henkilötunnu*", "hetu", "personbeteckning", "personal identity code", "sotu", "social security", "national identification number", "personal identification number"}
	wordsCPR      = []string{"cpr*", "personnum*", "personnr", "civil registration", "social security", "national identification number", "personal identification number"}
	wordsCPF      = []string{"cpf", "c.p.f", "cadastro de pessoa*", "cic"}
	wordsCNPJ     = []string{"cnpj", "c.n.p.j", "cadastro nacional", "pessoa jurídica", "pessoa juridica"}
	wordsAadhaar  = []string{"aadhaar", "aadhar", "adhaar", "आधार", "uidai", "uid"}
	wordsPAN      = []string{"pan", "permanent account number", "income tax", "पैन"}
	wordsSIN      = []string{"sin", "social insurance", "assurance sociale", "nas", "insurance number"}
	wordsTFN      = []string{"tfn", "tax file*"}
	wordsMedicare = []string{"medicare*"}
	wordsNRIC     = []string{"nric", "fin", "ic no", "identity card", "ic number"}
	wordsMyNumber = []string{"マイナンバー", "個人番号", "my number", "mynumber", "my_number", "my-number", "my no"}
	wordsITIN     = []string{"itin", "taxpayer identification", "individual taxpayer"}
	wordsSSN      = []string{"ssn*", "social security", "soc sec", "ss#", "ss no", "ssa"}
	wordsABA      = []string{"routing*", "aba", "rtn", "transit", "account*", "acct", "bank*", "wire", "ach",
		"ruta", "routage", "acheminement", "banco*", "banque*", "bancair*", "bancari*", "cuenta*", "compte*", "conta", "conto*", "konto*", "rekening*", "transferencia", "virement", "bonifico"}
	wordsCNID     = []string{"身份证", "公民身份", "居民身份", "resident id", "resident identity", "id card", "identity card", "citizen id"}
	wordsPassport = []string{"passport*", "reisepass*", "passeport*", "pasaporte*", "passaporto*", "paspoort*", "passaporte*", "paszport*", "pass", "passnummer", "pass-nr", "passnr", "pass no", "passi", "passin", "passinumero", "pasnummer", "pasnr", "pas-nr", "pas nr", "pas:", "pas=", "旅券", "パスポート", "паспорт", "पासपोर्ट", "護照", "护照", "여권"}
)

// idDefs is every identifier the scan knows, in the order ties are
// broken (manual 12.9.1 has the sources of each rule).
var idDefs = []idDef{
	{detUKNINO, 9, []string{"9", "2 2 2 2 1", "2 6 1", "2-2-2-2-1"}, nil, ckNino, wordsNINO, BasisPattern},
	// After its word, HMRC's placeholder prefix ZZ, which test data uses
	// with any suffix letter ("ZZ 123456 T"); other invalid prefixes and
	// suffixes stay no NINO.
	{detUKNINO, 9, nil, []string{"9", "2 2 2 2 1", "2 6 1", "2-2-2-2-1"}, ckNinoAny, wordsNINO, BasisPattern},
	{detESDNI, 9, []string{"9", "8_1", "2.3.3_1"}, nil, ckDni, wordsDNI, BasisChecksum},
	{detESNIE, 9, []string{"9", "1_7_1", "8_1", "1_8"}, nil, ckNie, wordsNIE, BasisChecksum},
	{detSGNRIC, 9, []string{"9"}, nil, ckNric, wordsNRIC, BasisChecksum},
	{detUSITIN, 9, []string{"3-2-4"}, []string{"9", "3_2_4"}, ckItin, wordsITIN, BasisPattern},
	{detSSN, 9, nil, []string{"9", "3_2_4"}, ckSsnContext, wordsSSN, BasisPattern},
	{detNLBSN, 9, nil, []string{"9", "4.2.3", "3_3_3"}, ckBsn, wordsBSN, BasisChecksum},
	{detCASIN, 9, nil, []string{"9", "3_3_3"}, ckSin, wordsSIN, BasisChecksum},
	{detAUTFN, 9, nil, []string{"9", "3_3_3"}, ckTfn, wordsTFN, BasisChecksum},
	{detABARouting, 9, nil, []string{"9", "4_4_1", "3_3_3"}, ckAba, wordsABA, BasisChecksum}, // 0210-0002-1 as on a cheque's MICR line
	{detINPAN, 10, []string{"a"}, nil, ckPanPerson, wordsPAN, BasisPattern},
	{detINPAN, 10, nil, []string{"a"}, ckPan, wordsPAN, BasisPattern},
	{detFIHETU, 10, []string{"6-4", "6+4"}, nil, ckHetu, wordsHETU, BasisChecksum},
	{detSEPersonnummer, 10, []string{"6-4", "6+4"}, []string{"a"}, ckSePN, wordsSE, BasisChecksum},
	{detDKCPR, 10, nil, []string{"6-4", "6 4", "a"}, ckCpr, wordsCPR, BasisPattern},
	{detAUMedicare, 10, []string{"4_5_1"}, []string{"a"}, ckMedicare, wordsMedicare, BasisChecksum},
	{detUKNHS, 10, nil, []string{"a", "3 3 4", "3-3-4"}, ckNhs, wordsNHS, BasisChecksum},
	{detFIHETU, 11, []string{"b"}, nil, ckHetu, wordsHETU, BasisChecksum},
	{detBRCPF, 11, []string{"3.3.3-2", "3.3.3.2", "9-2"}, []string{"b", "3_3_3_2"}, ckCpf, wordsCPF, BasisChecksum},
	{detBENationalNumber, 11, []string{"2_2_2_3_2", "6_3_2", "6-3.2"}, []string{"b"}, ckBe, wordsBE, BasisChecksum},
	{detPLPESEL, 11, nil, []string{"b", "6_5"}, ckPesel, wordsPESEL, BasisChecksum},
	{detDETaxID, 11, nil, []string{"b", "2_3_3_3", "3_3_3_2"}, ckDeTax, wordsDETax, BasisChecksum},
	{detAUMedicare, 11, []string{"4_5_1_1", "4_5_2"}, []string{"b"}, ckMedicare, wordsMedicare, BasisChecksum},
	{detJPMyNumber, 12, nil, []string{"c", "4_4_4"}, ckMyNumber, wordsMyNumber, BasisChecksum},
	{detINAadhaar, 12, []string{"4 4 4", "4-4-4"}, []string{"c"}, ckAadhaar, wordsAadhaar, BasisChecksum},
	{detSEPersonnummer, 12, []string{"8-4", "8+4"}, []string{"c"}, ckSePN, wordsSE, BasisChecksum},
	{detBRCNPJ, 14, []string{"2.3.3/4-2", "8/4-2"}, []string{"e", "2_3_3_4_2", "c-2"}, ckCnpj, wordsCNPJ, BasisChecksum},
	{detFRNIR, 15, []string{"f", "1_2_2_2_3_3_2", "d_2", "1_2_2_5_3_2"}, nil, ckNir, wordsNIR, BasisChecksum},
	{detITFiscalCode, 16, []string{"g", "6_5_5", "3_3_5_5"}, nil, ckCf, wordsCF, BasisChecksum},
	{detNationalID, 18, []string{"i"}, []string{"6_8_4"}, ckCNID, wordsCNID, BasisChecksum},
}

// idByLen lists the indices in idDefs of the identifiers of each length.
var idByLen = func() (t [idMaxChars + 1][]uint8) {
	for i, d := range idDefs {
		t[d.n] = append(t[d.n], uint8(i))
	}
	return t
}()

// idLens has bit n set for each length n of an identifier of idDefs.
var idLens = func() (m uint32) {
	for _, d := range idDefs {
		m |= 1 << d.n
	}
	return m
}()

// idShapes[n][m] has bit f set when a layout of an identifier of n
// characters has m segments, the first of f characters: most chains
// (IPv4 addresses, 3-6 groups, a phone's) fit none, and idChainAt asks
// idMatch nothing there.
var idShapes = func() (t [idMaxChars + 1][idMaxSegs + 1]uint32) {
	for _, d := range idDefs {
		for _, pat := range append(d.strong[:len(d.strong):len(d.strong)], d.weak...) {
			first := strings.IndexByte("0123456789abcdefghi", pat[0])
			t[d.n][(len(pat)+1)/2] |= 1 << first
		}
	}
	return t
}()

// idDetectors is idFamily and us_ssn: the detectors whose keys and
// labels stand for their context words (keys.go).
const idDetectors = idFamily | 1<<detSSN

// idScanned is the detectors scanIDs may report: idDetectors, and
// national_id for China's resident identity number, which it checks;
// national_id's keys and labels report any country's, unchecked.
const idScanned = idDetectors | 1<<detNationalID

// scanIDs finds the identifiers of the detectors in p.fam (manual
// 12.9.1).
func (p *pass) scanIDs() { p.scanDigits(idStepOn) }

// idToken is the token holding the digit run at t, for scanIDs' visit
// of it (scanDigits, which reads a run with nothing glued to it as its
// own token without this call): the segment [a, e) of letters and
// digits, and ok false when no identifier starts in it (longer than any,
// or holding lower-case letters), e then where the next visit may be.
func idToken(s string, t int) (a, e int, ok bool) {
	n := len(s)
	// The segment holding the digit (a JSON escape's letter before
	// it is no part of it).
	a = t
	for a > 0 && idClass[s[a-1]]&icAlnum != 0 && t-a <= idMaxChars {
		a--
	}
	if a > 0 && s[a-1] == '\\' && a < t && idClass[s[a]]&icLower != 0 {
		a++
	}
	e = t + 1
	for e < n && idClass[s[e]]&icAlnum != 0 && e-a <= idMaxChars {
		e++
	}
	if e-a > idMaxChars || t-a > idMaxChars {
		for e < n && idClass[s[e]]&icAlnum != 0 {
			e++
		}
		return a, e, false // a longer token: a hash, a key, a long number
	}
	var cls uint8
	for q := a; q < e; q++ {
		cls |= idClass[s[q]]
	}
	// An identifier is written in capitals, or all in lower case
	// ("12345678z"), which only its word makes one (idMatch); mixed
	// case is a word or a hash.
	return a, e, cls&(icLower|icUpper) != icLower|icUpper
}

// idsAt looks for an identifier in the token whose digit segment starts
// at a, from a segment of capitals before it or from a itself, and
// returns the end of what it reported (0: nothing).
func (p *pass) idsAt(a int) int {
	s := p.s
	// Up to two segments of capitals (or of lower-case letters: "x-1234567-l")
	// before a, six letters in all.
	var starts [2]int
	np := 0
	for b, letters := a, 0; np < 2 && b >= 2 && idClass[s[b-1]]&icSep != 0 && s[b-1] != '+' && idClass[s[b-2]]&(icUpper|icLower) != 0; {
		c := b - 2
		for c > 0 && idClass[s[c-1]]&(icUpper|icLower) != 0 {
			c--
		}
		letters += b - 1 - c
		if letters > 6 || c > 0 && idClass[s[c-1]]&icAlnum != 0 {
			break
		}
		starts[np] = c
		np++
		b = c
	}
	for k := np - 1; k >= 0; k-- {
		if idStartOK(s, starts[k]) {
			if end := p.idChainAt(starts[k]); end > 0 {
				return end
			}
		}
	}
	if !idStartOK(s, a) {
		return 0
	}
	if a >= 2 && s[a-1] == ' ' && idClass[s[a-2]]&icDigit != 0 {
		// The tail of a number written in groups, if the group before
		// is short.
		c := a - 2
		for c > 0 && idClass[s[c-1]]&icDigit != 0 {
			c--
		}
		if a-1-c <= 5 && (c == 0 || idClass[s[c-1]]&icAlnum == 0) {
			return 0
		}
	}
	return p.idChainAt(a)
}

// idStartOK: a token starting at a is no tail of a longer one.
func idStartOK(s string, a int) bool {
	if a == 0 {
		return true
	}
	if piiWordBefore(s, a) {
		return false
	}
	c := s[a-1]
	switch c {
	case '+':
		return false
	case '-', '.', '/':
		return a < 2 || idClass[s[a-2]]&icAlnum == 0
	case ':':
		return a < 2 || idClass[s[a-2]]&icDigit == 0
	}
	return true
}

// idChainAt builds the chain from a and reports the identifier it starts
// with, if any: its end, else 0.
func (p *pass) idChainAt(a int) int {
	s := p.s
	n := len(s)
	var ch idChain
	ch.start = a
	i, chars := a, 0
	for ch.k < idMaxSegs {
		j := i
		for j < n && idClass[s[j]]&icAlnum != 0 {
			j++
		}
		if chars+j-i > idMaxChars {
			ch.more = ch.sep[ch.k]
			break
		}
		for q := i; q < j; q++ {
			c := s[q]
			if idClass[c]&icLower != 0 {
				c -= 'a' - 'A'
				ch.lc |= 1 << ch.k
			} else if idClass[c]&icUpper != 0 {
				ch.uc |= 1 << ch.k
			}
			ch.c[chars] = c
			chars++
		}
		ch.cum[ch.k], ch.end[ch.k] = uint8(chars), j
		ch.k++
		if piiWordAt(s, j) || j+1 < n && s[j] == ':' && piiDigit(s[j+1]) {
			ch.more = 'w' // glued to a word, or to a time's minutes
			break
		}
		if j+1 < n && idClass[s[j]]&icSep != 0 && idClass[s[j+1]]&icAlnum != 0 {
			if ch.k == idMaxSegs {
				ch.more = s[j]
				break
			}
			ch.sep[ch.k] = s[j]
			i = j + 1
			continue
		}
		break
	}
	// No identifier is shorter than 9 characters but a passport number,
	// one segment of 6 to 9 (dates, times and short groups end here).
	if ch.k == 0 || chars < 9 && ch.cum[0] < 6 {
		return 0
	}
	// The layout of the first m segments is lay[:2m-1].
	var lay [2 * idMaxSegs]byte
	spaced := uint16(0) // bit m: a space among the first m segments' separators
	for q := 0; q < ch.k; q++ {
		lo := uint8(0)
		if q > 0 {
			lay[2*q-1] = ch.sep[q]
			lo = ch.cum[q-1]
			spaced |= spaced << 1 & (1 << q)
			if ch.sep[q] == ' ' {
				spaced |= 1 << (q + 1)
			}
		}
		lay[2*q] = "0123456789abcdefghi"[ch.cum[q]-lo]
	}
	for m := ch.k; m >= 1; m-- {
		// No layout fits, nor a passport number (one segment of 6 to 9).
		if n := ch.cum[m-1]; idShapes[n][m]>>ch.cum[0]&1 == 0 && (m > 1 || n < 6 || n > 9) {
			continue
		}
		// What follows segment m-1 must not make it part of a longer token.
		next := ch.more
		if m < ch.k {
			next = ch.sep[m]
		}
		if next == 'w' || next != 0 && next != ' ' || next == ' ' && spaced&(1<<m) != 0 && piiDigit(ch.s1(s, m)) {
			continue
		}
		segs := uint8(1)<<m - 1
		if ch.lc&segs != 0 && ch.uc&segs != 0 {
			continue // mixed case: a word, a hash
		}
		ch.lower = ch.lc&segs != 0
		if end := p.idMatch(&ch, m, lay[:2*m-1]); end > 0 {
			return end
		}
	}
	return 0
}

// s1 is the first byte after the separator that follows segment m-1
// (which some segment follows).
func (ch *idChain) s1(s string, m int) byte { return s[ch.end[m-1]+1] }

// idMatch reports the identifier the first m segments of ch make, if
// any (layout lay): its end, else 0.
func (p *pass) idMatch(ch *idChain, m int, lay []byte) int {
	n := ch.cum[m-1]
	c := ch.c[:n]
	defs := idByLen[n]
	// First an identifier whose context word is there (the nearest),
	// then the first whose layout needs none.
	best, bestAt, bestStrong, strong := -1, -1, false, -1
	var valid uint32 // bit i: defs[i] fits
	for i, k := range defs {
		d := &idDefs[k]
		if p.fam&(1<<d.det) == 0 {
			continue
		}
		isStrong := layoutIn(lay, d.strong)
		if !isStrong && !layoutIn(lay, d.weak) || !idValid(d.check, c, lay) {
			continue
		}
		valid |= 1 << i
		if isStrong && strong < 0 && !ch.lower {
			strong = int(k)
		}
		if at := p.idContext(d.det, d.words, ch.start, idWindow); at > bestAt {
			best, bestAt, bestStrong = int(k), at, isStrong
		}
	}
	if best < 0 && strong < 0 && valid != 0 && !phoneOtherNumberBefore(p.s, ch.start) && !phoneContext(p.s, ch.start) {
		// Its word just after it: "123456782 (BSN)", "850304-1231 är
		// mitt personnummer", "12 345 678 901 ist die Steuer-ID" (not
		// after "Order", "Invoice", a phone word: another kind of number).
		for i, k := range defs {
			if valid&(1<<i) != 0 && idWordAfter(p.s, ch.end[m-1], idDefs[k].words) {
				best, bestStrong = int(k), false
				break
			}
		}
	}
	if best >= 0 {
		// The identifier whose word is nearest ("personnummer (CPR)").
		d := &idDefs[best]
		b := d.basis
		if !bestStrong || ch.lower {
			b = BasisContext
		}
		p.emitBy(d.det, b, ch.start, ch.end[m-1])
		return ch.end[m-1]
	}
	if strong >= 0 && !p.otherIDNamed(defs, &idDefs[strong], ch.start) {
		p.emitBy(idDefs[strong].det, idDefs[strong].basis, ch.start, ch.end[m-1])
		return ch.end[m-1]
	}
	if m == 1 && p.fam&(1<<detPassport) != 0 && passportShape(c) {
		if at := p.idContext(detPassport, wordsPassport, ch.start, passportWindow); at >= 0 && !hasDigit(p.s[at:ch.start]) {
			p.emitBy(detPassport, BasisContext, ch.start, ch.end[0])
			return ch.end[0]
		}
	}
	return 0
}

// otherIDNamed reports whether the word of another identifier of the
// same length (defs), not d's, ends before a, nearer than any of d's
// own: a My Number whose check failed is no Aadhaar that happens to pass
// its own ("My Number 7702 8085 6054"), a HETU after "hetu" no
// personnummer; words both share ("social security") name neither.
func (p *pass) otherIDNamed(defs []uint8, d *idDef, a int) bool {
	own := -2
	for _, k := range defs {
		// (Whether the other's detector is on or not: the number is
		// still no d. An ITIN is written where an SSN is asked for.)
		o := &idDefs[k]
		if o.det == d.det || d.det == detUSITIN && o.det == detSSN {
			continue
		}
		if at := p.idContext(o.det, o.words, a, idWindow); at >= 0 {
			if own == -2 {
				own = p.idContext(d.det, d.words, a, idWindow)
			}
			if at > own {
				return true
			}
		}
	}
	return false
}

// layoutIn reports whether lay is one of pats ('_' in a pattern: any
// separator).
func layoutIn(lay []byte, pats []string) bool {
next:
	for _, pat := range pats {
		if len(pat) != len(lay) {
			continue
		}
		for i := 0; i < len(pat); i++ {
			if pat[i] != lay[i] && (pat[i] != '_' || idClass[lay[i]]&icSep == 0) {
				continue next
			}
		}
		return true
	}
	return false
}

// idContext returns where the context word of detector det nearest
// before a ends, if one of words or the policy's words for det ends
// within window bytes before a; else -1.
func (p *pass) idContext(det int, words []string, a, window int) int {
	if p.keyed {
		return a // the member's key or the label is the context (keys.go)
	}
	s := p.s
	lo := max(0, a-window)
	if det == detPassport {
		// The passport's window counts characters: Japanese or Chinese
		// ("パスポート番号をいただきました：") takes three bytes for one.
		lo = a
		for c := 0; lo > 0 && c < window && lo > a-3*window; lo-- {
			if s[lo-1]&0xc0 != 0x80 {
				c++
			}
		}
	}
	best := -1
	if det == detPassport && !mayHoldPassportWord(s[lo:a]) && (p.extra == nil || len(p.extra.Context[builtinNames[det]]) == 0) {
		return -1
	}
	for _, w := range words {
		best = max(best, lastWord(s, lo, a, w))
	}
	if p.extra != nil {
		for _, w := range p.extra.Context[builtinNames[det]] {
			best = max(best, lastWord(s, lo, a, w))
		}
	}
	return best
}

// idAfterWindow is how far after an identifier (in bytes) its context
// word may start, with no digit before it.
const idAfterWindow = 16

// idWordAfter reports whether one of words starts within idAfterWindow
// bytes after e, no digit between.
func idWordAfter(s string, e int, words []string) bool {
	hi := min(len(s), e+idAfterWindow+24)
	for _, w := range words {
		if at := lastWord(s, e, hi, w); at >= 0 && at-len(w) < e+idAfterWindow && !hasDigit(s[e:at]) {
			return true
		}
	}
	return false
}

// mayHoldPassportWord: every Latin word for passports holds "pas"; the
// others are not ASCII.
func mayHoldPassportWord(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 0x80 || c|0x20 == 'p' && i+2 < len(w) && w[i+1]|0x20 == 'a' && w[i+2]|0x20 == 's' {
			return true
		}
	}
	return false
}

// lastWord returns the end of the last occurrence of context word w (a
// '*' at its end: letters may follow) in s[lo:a], ASCII letters folded,
// on a word start, else -1.
func lastWord(s string, lo, a int, w string) int {
	prefix := len(w) > 0 && w[len(w)-1] == '*'
	if prefix {
		w = w[:len(w)-1]
	}
	if w == "" {
		return -1
	}
	ascii := w[0] < 0x80
	for j := a - len(w); j >= lo; j-- {
		if foldLower(s[j]) != foldLower(w[0]) || !foldHasPrefix(s[j:], w) {
			continue
		}
		if ascii && !idWordStart(s, j) {
			continue
		}
		e := j + len(w)
		if ascii && !prefix && idLetterAt(s, e) {
			continue
		}
		return e
	}
	return -1
}

// wordStarts is a filter for lastWord: the first two bytes (folded) of
// every place in a window where lastWord could find a word, hashed into
// 1,024 bits. A word whose first two bytes are not in it is not in the
// window; one that is may be, and lastWord says. A window of text holds
// a dozen word starts, so most of a list of context words is ruled out
// at a bit test each, not a walk of the window each.
type wordStarts [16]uint64

// wordPair is the bit of wordStarts for the bytes a, b (folded).
func wordPair(a, b byte) uint { return (uint(a)<<5 ^ uint(b)) & 1023 }

// read records the places of s[lo:a] where lastWord could match: a word
// start for ASCII words (all idWordStart allows, and more), any lead
// byte for the others.
func (ws *wordStarts) read(s string, lo, a int) {
	for j := lo; j+1 < a; j++ {
		c := s[j]
		if c < 0x80 {
			if idClass[c]&(icUpper|icLower) == 0 {
				continue
			}
			if j > 0 && idClass[s[j-1]]&(icUpper|icLower) != 0 && idClass[c]&icUpper == 0 && (j < 2 || s[j-2] != '\\') {
				continue
			}
		} else if c < 0xc0 {
			continue
		}
		k := wordPair(foldLower(c), foldLower(s[j+1]))
		ws[k>>6] |= 1 << (k & 63)
	}
}

// may reports whether context word w (lastWord's form) may be in the
// window read.
func (ws *wordStarts) may(w string) bool {
	if len(w) < 2 || w[1] == '*' {
		return true
	}
	k := wordPair(foldLower(w[0]), foldLower(w[1]))
	return ws[k>>6]&(1<<(k&63)) != 0
}

// idWordStart reports whether a word may start at s[j]: no letter before
// it, but for the letter of a JSON escape (\nBSN) and the lower-case
// letter before a capital (customerBsn).
func idWordStart(s string, j int) bool {
	if j == 0 {
		return true
	}
	b := s[j-1]
	switch {
	case idClass[b]&icLower != 0:
		return j >= 2 && s[j-2] == '\\' || idClass[s[j]]&icUpper != 0
	case idClass[b]&icUpper != 0:
		return false
	}
	return j < 2 || !piiLetter2(s[j-2], b)
}

// idLetterAt reports whether a letter (ASCII or two-byte) starts at s[i].
func idLetterAt(s string, i int) bool {
	return i < len(s) && (idClass[s[i]]&(icUpper|icLower) != 0 || i+1 < len(s) && piiLetter2(s[i], s[i+1]))
}

func foldLower(c byte) byte {
	if c-'A' < 26 {
		return c + 'a' - 'A'
	}
	return c
}

// foldHasPrefix reports whether s starts with w, ASCII letters folded.
func foldHasPrefix(s, w string) bool {
	if len(s) < len(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		if foldLower(s[i]) != foldLower(w[i]) {
			return false
		}
	}
	return true
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if piiDigit(s[i]) {
			return true
		}
	}
	return false
}

// passportShape: 6 to 9 capitals and digits, at least one digit (a
// German or Dutch number may hold a single one: C01XTPVYZ … NUNYLBPX7).
func passportShape(c []byte) bool {
	if len(c) < 6 || len(c) > 9 {
		return false
	}
	d := 0
	for _, b := range c {
		switch idClass[b] {
		case icDigit:
			d++
		case icUpper:
		default:
			return false
		}
	}
	return d >= 1
}

// idsClean: scanIDs finds nothing in a string without an ASCII digit.
func idsClean(s string) bool { return nextDigit(s, 0) == len(s) }

// ---------------------------------------------------------------- checks
//
// Each check takes the identifier's characters without separators (c,
// of its definition's length) and its layout (lay), which a few read.
// idValid calls them by a switch: a call through a function value would
// make their arguments escape, and the scan allocate.

// idCheck names a check.
type idCheck uint8

const (
	ckNino idCheck = iota
	ckNinoAny
	ckDni
	ckNie
	ckNric
	ckItin
	ckSsnContext
	ckBsn
	ckSin
	ckTfn
	ckAba
	ckPanPerson
	ckPan
	ckHetu
	ckSePN
	ckCpr
	ckMedicare
	ckNhs
	ckCpf
	ckBe
	ckPesel
	ckDeTax
	ckMyNumber
	ckAadhaar
	ckCnpj
	ckNir
	ckCf
	ckCNID
)

func idValid(k idCheck, c, lay []byte) bool {
	switch k {
	case ckNino:
		return ninoValid(c, lay)
	case ckNinoAny:
		return c[0] == 'Z' && c[1] == 'Z' && idClass[c[8]]&icUpper != 0 && allDigits(c[2:8])
	case ckDni:
		return dniValid(c, lay)
	case ckNie:
		return nieValid(c, lay)
	case ckNric:
		return nricValid(c, lay)
	case ckItin:
		return itinValid(c, lay)
	case ckSsnContext:
		return ssnContextValid(c, lay)
	case ckBsn:
		return bsnValid(c, lay)
	case ckSin:
		return sinValid(c, lay)
	case ckTfn:
		return tfnValid(c, lay)
	case ckAba:
		return abaValid(c, lay)
	case ckPanPerson:
		return panPersonValid(c, lay)
	case ckPan:
		return panValid(c, lay)
	case ckHetu:
		return hetuValid(c, lay)
	case ckSePN:
		return sePNValid(c, lay)
	case ckCpr:
		return cprValid(c, lay)
	case ckMedicare:
		return medicareValid(c, lay)
	case ckNhs:
		return nhsValid(c, lay)
	case ckCpf:
		return cpfValid(c, lay)
	case ckBe:
		return beValid(c, lay)
	case ckPesel:
		return peselValid(c, lay)
	case ckDeTax:
		return deTaxValid(c, lay)
	case ckMyNumber:
		return myNumberValid(c, lay)
	case ckAadhaar:
		return aadhaarValid(c, lay)
	case ckCnpj:
		return cnpjValid(c, lay)
	case ckNir:
		return nirValid(c, lay)
	case ckCf:
		return cfValid(c, lay)
	case ckCNID:
		return cnIDValid(c)
	}
	return false
}

func allDigits(c []byte) bool {
	for _, b := range c {
		if !piiDigit(b) {
			return false
		}
	}
	return true
}

// allSame: every character is the first (000000000, 11111111111).
func allSame(c []byte) bool {
	for _, b := range c {
		if b != c[0] {
			return false
		}
	}
	return true
}

// num returns the value of the digits c (at most 18).
func num(c []byte) uint64 {
	var v uint64
	for _, b := range c {
		v = v*10 + uint64(b-'0')
	}
	return v
}

func d2(c []byte, i int) int { return int(c[i]-'0')*10 + int(c[i+1]-'0') }

// daysIn returns the days of month m (1-12) of year y; y < 0: any year
// (29 in February).
func daysIn(m, y int) int {
	switch m {
	case 2:
		if y < 0 || y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func dateOK(y, m, d int) bool { return m >= 1 && m <= 12 && d >= 1 && d <= daysIn(m, y) }

// luhn reports whether the digits c pass the Luhn check.
func luhn(c []byte) bool {
	sum := 0
	for i := len(c) - 1; i >= 0; i -= 2 {
		sum += int(c[i] - '0')
		if i > 0 {
			d := int(c[i-1]-'0') * 2
			if d > 9 {
				d -= 9
			}
			sum += d
		}
	}
	return sum%10 == 0
}

// weighted returns the sum of the digits c times w.
func weighted(c []byte, w []int) int {
	sum := 0
	for i, x := range w {
		sum += int(c[i]-'0') * x
	}
	return sum
}

// ninoValid: UK National Insurance number, AB123456C: two prefix letters
// (not D F I Q U V, the second not O; not BG GB KN NK NT TN ZZ), six
// digits, a suffix A-D. It has no check digit.
func ninoValid(c, lay []byte) bool {
	if idClass[c[0]]&idClass[c[1]]&icUpper == 0 || !allDigits(c[2:8]) || c[8] < 'A' || c[8] > 'D' {
		return false
	}
	const bad1, bad2 = "DFIQUV", "DFIOQUV"
	for i := 0; i < len(bad2); i++ {
		if i < len(bad1) && c[0] == bad1[i] || c[1] == bad2[i] {
			return false
		}
	}
	switch string(c[:2]) {
	case "BG", "GB", "KN", "NK", "NT", "TN", "ZZ":
		return false
	}
	return true
}

// nhsValid: NHS number, ten digits, the last 11 - (Σ dᵢ·(10-i) mod 11)
// (11 reads 0; 10 is never issued).
func nhsValid(c, lay []byte) bool {
	if !allDigits(c) || allSame(c) {
		return false
	}
	r := 11 - weighted(c, []int{10, 9, 8, 7, 6, 5, 4, 3, 2})%11
	if r == 11 {
		r = 0
	}
	return r != 10 && r == int(c[9]-'0')
}

// deTaxValid: Steuer-ID, eleven digits, the first not 0; in the first
// ten, one digit twice or three times (never three in a row), the others
// at most once; the last the ISO 7064 MOD 11,10 check digit.
func deTaxValid(c, lay []byte) bool {
	if !allDigits(c) || c[0] == '0' {
		return false
	}
	var count [10]int
	for _, b := range c[:10] {
		count[b-'0']++
	}
	multi := 0
	for d, k := range count {
		switch {
		case k == 2:
			multi++
		case k == 3:
			multi++
			for i := 0; i+2 < 10; i++ {
				if c[i] == byte('0'+d) && c[i+1] == c[i] && c[i+2] == c[i] {
					return false
				}
			}
		case k > 3:
			return false
		}
	}
	if multi != 1 {
		return false
	}
	return iso7064Mod1110(c[:10]) == int(c[10]-'0')
}

// iso7064Mod1110 returns the ISO 7064 MOD 11,10 check digit of the digits c.
func iso7064Mod1110(c []byte) int {
	product := 10
	for _, b := range c {
		sum := (int(b-'0') + product) % 10
		if sum == 0 {
			sum = 10
		}
		product = sum * 2 % 11
	}
	check := 11 - product
	if check == 10 {
		check = 0
	}
	return check
}

// nirValid: French NIR, 13 characters and a 2-digit key: sex (1 2, or 3 4
// 7 8 for provisional numbers), year, month (01-12, or 20-42 and 50-99
// when unknown), département (digits, 2A or 2B for Corsica, not 00),
// commune and order; the key is 97 - (the 13 digits mod 97), 2A read 19
// and 2B read 18.
func nirValid(c, lay []byte) bool {
	switch c[0] {
	case '1', '2', '3', '4', '7', '8':
	default:
		return false
	}
	if !allDigits(c[1:5]) || !allDigits(c[7:]) {
		return false
	}
	if m := d2(c, 3); m < 1 || m > 12 && m < 20 || m > 42 && m < 50 {
		return false
	}
	var head [13]byte
	copy(head[:], c[:13])
	switch {
	case c[5] == '2' && c[6] == 'A':
		head[5], head[6] = '1', '9'
	case c[5] == '2' && c[6] == 'B':
		head[5], head[6] = '1', '8'
	case !piiDigit(c[5]) || !piiDigit(c[6]) || c[5] == '0' && c[6] == '0':
		return false
	}
	return 97-int(num(head[:])%97) == d2(c, 13)
}

const dniLetters = "TRWAGMYFPDXBNJZSQVHLCKE"

// dniValid: Spanish DNI, eight digits and the letter of their value mod 23.
func dniValid(c, lay []byte) bool {
	return allDigits(c[:8]) && !allSame(c[:8]) && c[8] == dniLetters[num(c[:8])%23]
}

// nieValid: Spanish NIE, X Y or Z (read 0 1 2), seven digits, and the
// DNI letter of the eight.
func nieValid(c, lay []byte) bool {
	if c[0] < 'X' || c[0] > 'Z' || !allDigits(c[1:8]) {
		return false
	}
	v := uint64(c[0]-'X')*10000000 + num(c[1:8])
	return c[8] == dniLetters[v%23]
}

// cfOdd is the value of a character (digit or letter, by its index 0-9
// or 0-25) in an odd position of a codice fiscale.
var cfOdd = [26]int{1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23}

// cfValid: Italian codice fiscale, RSSMRA85T10A562S: six letters
// (surname, name), year, month letter (A B C D E H L M P R S T), day
// (01-31, +40 for women), the place's letter and three digits, and the
// check letter. Omocodia replaces digits by L M N P Q R S T U V.
func cfValid(c, lay []byte) bool {
	for i := 0; i < 6; i++ {
		if idClass[c[i]] != icUpper {
			return false
		}
	}
	if idClass[c[11]] != icUpper || idClass[c[15]] != icUpper {
		return false
	}
	switch c[8] {
	case 'A', 'B', 'C', 'D', 'E', 'H', 'L', 'M', 'P', 'R', 'S', 'T':
	default:
		return false
	}
	var day int
	for _, i := range []int{6, 7, 9, 10, 12, 13, 14} {
		v := cfDigit(c[i])
		if v < 0 {
			return false
		}
		if i == 9 || i == 10 {
			day = day*10 + v
		}
	}
	if day < 1 || day > 31 && day < 41 || day > 71 {
		return false
	}
	sum := 0
	for i := 0; i < 15; i++ {
		v := int(c[i] - 'A')
		if piiDigit(c[i]) {
			v = int(c[i] - '0')
		}
		if i%2 == 0 {
			sum += cfOdd[v]
		} else {
			sum += v
		}
	}
	return c[15] == byte('A'+sum%26)
}

// cfDigit is the value of a digit of a codice fiscale, or of the letter
// omocodia puts in its place; -1 for another character.
func cfDigit(b byte) int {
	if piiDigit(b) {
		return int(b - '0')
	}
	const omo = "LMNPQRSTUV"
	for i := 0; i < len(omo); i++ {
		if omo[i] == b {
			return i
		}
	}
	return -1
}

// bsnValid: Dutch BSN, nine digits passing the 11-proof: Σ dᵢ·(9-i) for
// the first eight, minus the last, is a multiple of 11.
func bsnValid(c, lay []byte) bool {
	return allDigits(c) && !allSame(c) && (weighted(c, []int{9, 8, 7, 6, 5, 4, 3, 2})-int(c[8]-'0'))%11 == 0
}

// beValid: Belgian national register number, YYMMDD (month +20 or +40
// for BIS numbers; month or day 00 when unknown), a serial 001-998 and 97
// - (the nine digits mod 97), with 2 put before them for people born
// since 2000.
func beValid(c, lay []byte) bool {
	if !allDigits(c) {
		return false
	}
	m, d := d2(c, 2), d2(c, 4)
	if m >= 40 {
		m -= 40
	} else if m >= 20 {
		m -= 20
	}
	if m > 12 || d > 31 || m > 0 && d > daysIn(m, -1) {
		return false
	}
	if serial := num(c[6:9]); serial == 0 || serial == 999 {
		return false
	}
	base, check := num(c[:9]), uint64(d2(c, 9))
	return 97-base%97 == check || 97-(2000000000+base)%97 == check
}

// peselValid: Polish PESEL, YYMMDD (month +80 for 1800-1899, +20 2000-,
// +40 2100-, +60 2200-), four digits and a check digit: Σ with weights 1
// 3 7 9 1 3 7 9 1 3, plus the last, a multiple of 10.
func peselValid(c, lay []byte) bool {
	if !allDigits(c) || allSame(c) {
		return false
	}
	y, m, d := d2(c, 0), d2(c, 2), d2(c, 4)
	century := []int{1900, 2000, 2100, 2200, 1800}[m/20]
	if !dateOK(century+y, m%20, d) {
		return false
	}
	return (weighted(c, []int{1, 3, 7, 9, 1, 3, 7, 9, 1, 3})+int(c[10]-'0'))%10 == 0
}

// sePNValid: Swedish personnummer, [YY]YYMMDD-NNNC (the day +60 for a
// samordningsnummer), Luhn over the last ten digits; twelve digits start
// with 18, 19 or 20.
func sePNValid(c, lay []byte) bool {
	if !allDigits(c) {
		return false
	}
	y := -1
	if len(c) == 12 {
		if cc := d2(c, 0); cc < 18 || cc > 20 {
			return false
		}
		y = int(num(c[:4]))
		c = c[2:]
	}
	d := d2(c, 4)
	if d > 60 {
		d -= 60
	}
	return dateOK(y, d2(c, 2), d) && luhn(c)
}

const hetuChecks = "0123456789ABCDEFHJKLMNPRSTUVWXY"

// hetuValid: Finnish HETU, DDMMYY, the century sign (+ 1800s; - U V W X
// Y 1900s; A B C D E F 2000s), an individual number 002-999 and the
// check character of DDMMYYNNN mod 31. With '-' or '+' the chain holds
// the sign as its separator.
func hetuValid(c, lay []byte) bool {
	var sign byte
	var tail []byte
	if len(c) == 11 {
		sign, tail = c[6], c[7:]
	} else {
		sign, tail = lay[1], c[6:]
	}
	if !allDigits(c[:6]) || !allDigits(tail[:3]) || len(lay) > 3 {
		return false
	}
	var century int
	switch sign {
	case '+':
		century = 1800
	case '-', 'U', 'V', 'W', 'X', 'Y':
		century = 1900
	case 'A', 'B', 'C', 'D', 'E', 'F':
		century = 2000
	default:
		return false
	}
	if !dateOK(century+d2(c, 4), d2(c, 2), d2(c, 0)) || num(tail[:3]) < 2 {
		return false
	}
	return tail[3] == hetuChecks[(num(c[:6])*1000+num(tail[:3]))%31]
}

// cprValid: Danish CPR, DDMMYY-SSSS, a valid date in the century the
// seventh digit gives. The mod-11 check has not held since 2007: context
// words only.
func cprValid(c, lay []byte) bool {
	if !allDigits(c) {
		return false
	}
	y := d2(c, 4)
	switch d := c[6]; {
	case d <= '3':
		y += 1900
	case d == '4' || d == '9':
		if y <= 36 {
			y += 2000
		} else {
			y += 1900
		}
	default:
		if y <= 57 {
			y += 2000
		} else {
			y += 1800
		}
	}
	return dateOK(y, d2(c, 2), d2(c, 0))
}

// cpfValid: Brazilian CPF, nine digits and two mod-11 check digits
// (weights 10..2, then 11..2; a remainder under 2 gives 0), not all the
// same digit.
func cpfValid(c, lay []byte) bool {
	if !allDigits(c) || allSame(c) {
		return false
	}
	return brMod11(c, 9, false)
}

// brMod11 checks Brazil's two mod-11 check digits at c[first] and
// c[first+1]: each is 0 for a remainder below 2, else 11 minus it, of
// the characters before it (worth their code minus '0') weighted from
// the right 2, 3, … (cycling 2..9 for the CNPJ, cycle8).
func brMod11(c []byte, first int, cycle8 bool) bool {
	for k := first; k <= first+1; k++ {
		sum := 0
		for i := 0; i < k; i++ {
			w := k + 1 - i
			if cycle8 {
				w = 2 + (k-1-i)%8
			}
			sum += int(c[i]-'0') * w
		}
		r := sum % 11
		if r < 2 {
			r = 0
		} else {
			r = 11 - r
		}
		if r != int(c[k]-'0') {
			return false
		}
	}
	return true
}

// cnpjValid: Brazilian CNPJ, twelve characters (digits, or since 2026
// capitals too, each worth its ASCII code minus 48) and two mod-11 check
// digits (weights 2..9 from the right).
func cnpjValid(c, lay []byte) bool {
	if !allDigits(c[12:]) || allSame(c) {
		return false
	}
	for _, b := range c[:12] {
		if idClass[b]&(icDigit|icUpper) == 0 {
			return false
		}
	}
	return brMod11(c, 12, true)
}

// The Verhoeff check (dihedral group D5): verhoeffD its multiplication
// table, verhoeffP the permutation applied to the digit in each position
// (position i from the right uses verhoeffP[i%8]).
var verhoeffD = [10][10]uint8{
	{0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
	{1, 2, 3, 4, 0, 6, 7, 8, 9, 5},
	{2, 3, 4, 0, 1, 7, 8, 9, 5, 6},
	{3, 4, 0, 1, 2, 8, 9, 5, 6, 7},
	{4, 0, 1, 2, 3, 9, 5, 6, 7, 8},
	{5, 9, 8, 7, 6, 0, 4, 3, 2, 1},
	{6, 5, 9, 8, 7, 1, 0, 4, 3, 2},
	{7, 6, 5, 9, 8, 2, 1, 0, 4, 3},
	{8, 7, 6, 5, 9, 3, 2, 1, 0, 4},
	{9, 8, 7, 6, 5, 4, 3, 2, 1, 0},
}

var verhoeffP = func() (p [8][10]uint8) {
	p1 := [10]uint8{1, 5, 7, 6, 2, 8, 3, 0, 9, 4}
	for j := range p[0] {
		p[0][j] = uint8(j)
	}
	for i := 1; i < 8; i++ {
		for j := range p[i] {
			p[i][j] = p1[p[i-1][j]]
		}
	}
	return p
}()

func verhoeff(c []byte) bool {
	x := uint8(0)
	for i := 0; i < len(c); i++ {
		x = verhoeffD[x][verhoeffP[i%8][c[len(c)-1-i]-'0']]
	}
	return x == 0
}

// aadhaarValid: Indian Aadhaar, twelve digits, the first 2-9, passing
// the Verhoeff check.
func aadhaarValid(c, lay []byte) bool {
	return allDigits(c) && c[0] >= '2' && !allSame(c) && verhoeff(c)
}

// panValid: Indian PAN, AAAPA1234A: three letters, the holder type (A B
// C F G H J L P T), a letter, four digits, a letter. Its last letter is a
// check character whose rule is not published.
func panValid(c, lay []byte) bool {
	for _, i := range []int{0, 1, 2, 4, 9} {
		if idClass[c[i]] != icUpper {
			return false
		}
	}
	switch c[3] {
	case 'A', 'B', 'C', 'F', 'G', 'H', 'J', 'L', 'P', 'T':
	default:
		return false
	}
	return allDigits(c[5:9])
}

// panPersonValid: a PAN of a person (holder type P), the strong shape.
func panPersonValid(c, lay []byte) bool {
	return c[3] == 'P' && panValid(c, lay)
}

// sinValid: Canadian SIN, nine digits passing Luhn. (0 and 8 are not
// issued to people, but a SIN is only read after its word, where test
// data has them.)
func sinValid(c, lay []byte) bool {
	return allDigits(c) && !allSame(c) && luhn(c)
}

// tfnValid: Australian TFN, nine digits whose sum with weights 1 4 3 7 5
// 8 6 9 10 is a multiple of 11.
func tfnValid(c, lay []byte) bool {
	return allDigits(c) && !allSame(c) && weighted(c, []int{1, 4, 3, 7, 5, 8, 6, 9, 10})%11 == 0
}

// medicareValid: Australian Medicare card number, ten digits (the first
// 2-6; the ninth the sum of the first eight with weights 1 3 7 9 1 3 7 9,
// mod 10; the tenth the card's issue number, not 0), and the person's
// number 1-9 as an eleventh.
func medicareValid(c, lay []byte) bool {
	if !allDigits(c) || c[0] < '2' || c[0] > '6' || c[9] == '0' || len(c) == 11 && c[10] == '0' {
		return false
	}
	return weighted(c, []int{1, 3, 7, 9, 1, 3, 7, 9})%10 == int(c[8]-'0')
}

// nricValid: Singapore NRIC/FIN, S T F G or M, seven digits, the check
// letter of their sum with weights 2 7 6 5 4 3 2 (plus 4 for T and G, 3
// for M) mod 11.
func nricValid(c, lay []byte) bool {
	if !allDigits(c[1:8]) {
		return false
	}
	sum := weighted(c[1:], []int{2, 7, 6, 5, 4, 3, 2})
	var letters string
	switch c[0] {
	case 'S':
		letters = "JZIHGFEDCBA"
	case 'T':
		sum += 4
		letters = "JZIHGFEDCBA"
	case 'F':
		letters = "XWUTRQPNMLK"
	case 'G':
		sum += 4
		letters = "XWUTRQPNMLK"
	case 'M':
		sum += 3
		letters = "XWUTRQPNJLK"
	default:
		return false
	}
	return c[8] == letters[sum%11]
}

// myNumberValid: Japanese My Number, eleven digits and a check digit:
// with Pn the n-th digit from the right and Qn = n+1 (n ≤ 6) or n-5,
// 11 - (Σ Pn·Qn mod 11), or 0 when the remainder is 0 or 1.
func myNumberValid(c, lay []byte) bool {
	if !allDigits(c) || allSame(c) {
		return false
	}
	sum := 0
	for n := 1; n <= 11; n++ {
		q := n + 1
		if n >= 7 {
			q = n - 5
		}
		sum += int(c[11-n]-'0') * q
	}
	r := sum % 11
	if r <= 1 {
		r = 0
	} else {
		r = 11 - r
	}
	return r == int(c[11]-'0')
}

// itinValid: US ITIN, 9XX-GG-XXXX with GG in 50-65, 70-88, 90-92 or 94-99.
// It has no check digit.
func itinValid(c, lay []byte) bool {
	if !allDigits(c) || c[0] != '9' {
		return false
	}
	g := d2(c, 3)
	return g >= 50 && g <= 65 || g >= 70 && g <= 88 || g >= 90 && g <= 92 || g >= 94
}

// ssnContextValid: a US SSN written spaced or without separators (the
// pass finds the dashed form): area not 000, 666 or 9XX, group not 00,
// serial not 0000.
func ssnContextValid(c, lay []byte) bool {
	if !allDigits(c) || string(lay) == "3-2-4" {
		return false
	}
	area := num(c[:3])
	return area != 0 && area != 666 && c[0] != '9' && d2(c, 3) != 0 && num(c[5:]) != 0
}

// abaValid: US ABA routing number, nine digits, the first two 00-12,
// 21-32, 61-72 or 80, whose sum with weights 3 7 1 3 7 1 3 7 1 is a
// multiple of 10.
func abaValid(c, lay []byte) bool {
	if !allDigits(c) || allSame(c) {
		return false
	}
	if p := d2(c, 0); p > 12 && p < 21 || p > 32 && p < 61 || p > 72 && p != 80 {
		return false
	}
	return weighted(c, []int{3, 7, 1, 3, 7, 1, 3, 7, 1})%10 == 0
}

// cnIDValid: China's resident identity number (GB 11643-1999), 18
// characters: a region code (its province's two digits first), the birth date
// YYYYMMDD, a sequence of three digits and the ISO 7064 MOD 11-2 check
// character (0-9, X for 10).
func cnIDValid(c []byte) bool {
	if !allDigits(c[:17]) || !piiDigit(c[17]) && c[17] != 'X' {
		return false
	}
	// The provinces' codes, a byte of units per tens digit 1-8: 11-15,
	// 21-23, 31-37, 41-46, 50-54, 61-65, 71, 81-83.
	const provinces = "\x3e\x0e\xfe\x7e\x1f\x3e\x02\x0e"
	if t, u := c[0]-'1', c[1]-'0'; t >= 8 || provinces[t]>>u&1 == 0 {
		return false
	}
	if y := int(num(c[6:10])); y < 1900 || y > thisYear || !dateOK(y, d2(c, 10), d2(c, 12)) {
		return false
	}
	sum := 0
	for i, w := range [17]int{7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2} {
		sum += int(c[i]-'0') * w
	}
	want := byte('0' + (12-sum%11)%11)
	if want == '0'+10 {
		want = 'X'
	}
	return c[17] == want
}
