package detect

import "math/bits"

// The family detectors: personal data without a fixed shape (manual
// 12.9), found after the trigger pass by scans of their own, each family
// in its file:
//
//   - ids.go: national identifiers, passports and routing numbers, by
//     check digits and context words;
//   - names.go: people's names in text, by context and name tables;
//   - address.go: street addresses with postcodes;
//   - dob.go: dates of birth, by context words;
//   - keys.go: values labelled in text by what a JSON key would say
//     ("Passport No.: …", "Date of birth: …"), and the JSON keys
//     themselves (Set.DetectKeyed, for the walk of package transforms).
//
// Each family has a scan, which emits its spans with emitBy, and a clean
// test: xxxClean(s) false whenever its scan may find something in s
// (Set.Clean relies on it, as on the pass's triggers).

// idFamily is the detectors ids.go's scan reports.
const idFamily = uint64(1)<<detUKNINO | 1<<detUKNHS | 1<<detDETaxID | 1<<detFRNIR | 1<<detESDNI | 1<<detESNIE |
	1<<detITFiscalCode | 1<<detNLBSN | 1<<detBENationalNumber | 1<<detPLPESEL | 1<<detSEPersonnummer |
	1<<detFIHETU | 1<<detDKCPR | 1<<detBRCPF | 1<<detBRCNPJ | 1<<detINAadhaar | 1<<detINPAN | 1<<detCASIN |
	1<<detAUTFN | 1<<detAUMedicare | 1<<detSGNRIC | 1<<detJPMyNumber | 1<<detUSITIN | 1<<detPassport |
	1<<detABARouting

// familyMask is the detectors runFamilies may report: the families, and
// us_ssn, whose spaced and unseparated forms in context scanIDs finds
// (its dashed form is the pass's). Set.Detect and Set.Clean take the
// selected detectors in it as a pass's fam.
const familyMask = ^uint64(1<<numPass-1) | 1<<detSSN

// digitFamilies is the detectors scanDigits may report.
const digitFamilies = idScanned | 1<<detStreetAddress | 1<<detDateOfBirth

// runFamilies runs the scans of the family detectors in p.fam: the
// three read from digits (ids, addresses, birth dates) in one walk
// (scanDigits), then the names and the labels.
func (p *pass) runFamilies() {
	var on uint8
	if p.fam&idScanned != 0 {
		on |= idStepOn
	}
	if p.fam&(1<<detStreetAddress) != 0 {
		on |= addrStepOn
	}
	if p.fam&(1<<detDateOfBirth) != 0 {
		on |= dobStepOn
	}
	if on != 0 {
		p.scanDigits(on)
	}
	if p.fam&(1<<detPerson) != 0 {
		p.scanPersons()
	}
	if p.fam&labelFamily != 0 {
		p.scanLabelled()
		p.scanTables()
	}
}

// The scans scanDigits runs.
const (
	idStepOn uint8 = 1 << iota
	addrStepOn
	dobStepOn
)

// scanDigits runs the scans in on (the ids' visit, written here, addrStep,
// dobStep) over p.s in one walk over the first digit of each run: those
// the pass recorded (p.recRuns), else found eight bytes at a time. At
// each, every scan whose resume point the walk has passed gets a visit,
// past its cheap test, read here without a call where it can be (in the
// VM a call costs more than most of these tests). A scan that resumes
// inside a run (its last visit ended there) is visited there at once, as
// its own loop over nextDigit did: each scan sees the digits it saw
// alone, in order, and finds what it found. They report different
// detectors, so their spans interleaving in p.spans changes nothing
// (addrStep extends its own last span by its index).
func (p *pass) scanDigits(on uint8) {
	s := p.s
	n := len(s)
	idNext, addrNext, dobNext := 0, 0, 0
	last := addrLast{-1, -1}
	runs, k := p.runs, 0
	var carry uint64  // 0x80 when the byte before i is a digit
	var starts uint64 // the runs' first digits in the word at i-8
	i := 0
	for {
		var t int
		if p.recRuns {
			if k == len(runs) {
				break
			}
			t = int(runs[k])
			k++
		} else {
			for starts == 0 && i < n {
				var x uint64
				if i+8 <= n {
					x = load64(s, i)
				} else {
					x = tailWord(s, i) // NUL above the end: no digit
				}
				d := digitLanes(x)
				starts = d &^ (d<<8 | carry)
				carry = d >> 56
				i += 8
			}
			if starts == 0 {
				break
			}
			t = i - 8 + bits.TrailingZeros64(starts)>>3
			starts &= starts - 1
		}
		var b byte // the byte before the run
		if t > 0 {
			b = s[t-1]
		}
		// The run's end and the byte after it (NUL at the end), which
		// the three scans' first tests read.
		e := t + 1
		for e < n && s[e]-'0' < 10 {
			e++
		}
		var c byte
		if e < n {
			c = s[e]
		}
		if on&idStepOn != 0 && t >= idNext {
			// The visit of ids.go's scan: the run's token (most runs
			// are one alone: numbers, dates, times), then where no
			// identifier may start (the fast path below), else idsAt.
			// No visit ends inside a run: each ends where a token does.
			a, te, ok := t, e, e-t <= idMaxChars
			if b-'a' < 26 && (t < 2 || s[t-2] != '\\') {
				// Glued to a lower-case letter: a word or a hash,
				// unless the token is all in lower case and of an
				// identifier's length (kz825979a, btglon61a25e326z
				// after their word, which idMatch wants); mixed case
				// fails idToken's test.
				a, te, ok = idToken(s, t)
				ok = ok && idLens>>(te-a)&1 != 0
			} else if idClass[b]&icAlnum != 0 || idClass[c]&icAlnum != 0 {
				a, te, ok = idToken(s, t)
			}
			idNext = te
			// The fast path: from a short segment without capitals before
			// it, an identifier ends at a space or where the stretch of
			// segments joined by separators ends (not glued to a word or to
			// a time's ":30"), and holds 9 to 16 characters of a length some
			// identifier has. Where no such end exists (a date, a timestamp,
			// an amount, a version, "HTTP/1.1"), nothing starts here, nor in
			// the rest of the stretch.
			if ok && te-a < 6 && (a < 2 || idClass[s[a-1]]&icSep == 0 || idClass[s[a-2]]&icUpper == 0) {
				q, chars := te, te-a
				ok = false
				for chars <= idMaxChars {
					if q+1 < n && idClass[s[q]]&icSep != 0 && idClass[s[q+1]]&icAlnum != 0 {
						if s[q] == ' ' && idLens>>chars&1 != 0 {
							ok = true
							break
						}
						r := q + 1
						for q = r; q < n && idClass[s[q]]&icAlnum != 0; q++ {
						}
						chars += q - r
						continue
					}
					ok = idLens>>chars&1 != 0 && !piiWordAt(s, q) && (q+1 >= n || s[q] != ':' || !piiDigit(s[q+1]))
					break
				}
				if !ok {
					idNext = max(te, q)
				}
			}
			if ok {
				if end := p.idsAt(a); end > te {
					idNext = end
				}
			}
		}
		if on&addrStepOn != 0 && t >= addrNext {
			// addrWorth's commonest refusals, without the call: a
			// date's "-12" or a time's ":30" (no letter before the '-'
			// or ':'), a number after '/', ')' or ';' (no 〒), a number
			// first on a line or in a field of more than five digits or
			// without a space after it (a CSV or JSON field's).
			k := addrBefore[b]
			switch k {
			case addrDash:
				if t < 2 || !wordByte(s[t-2]) {
					k = 0
				}
			case addrJP:
				if t < 4 || s[t-2] != 0x92 { // 〒 is e3 80 92
					k = 0
				}
			case addrFirst:
				// addrFirstWorth's house number: a letter, a range or
				// a flat after it, or a space, or a comma and a space.
				long := e-t > 5 && (e-t != 8 || b != '\n') &&
					!(e-t <= 7 && c == ',' && e+2 < n && s[e+2] >= 0x80) // a postcode before a non-Latin address
				bare := c != ' ' && !isASCIILetter(c) && c != '/' && c != '-' && !(c == ',' && e+1 < n && s[e+1] == ' ') &&
					!(c == ')' && b == '(') // a Korean postcode
				if long || bare {
					k = 0
				}
			}
			if k == 1 || k != 0 && addrWorth(s, t, k) {
				r := p.addrStep(t, &last)
				for midRun(s, r) {
					r = p.addrStep(r, &last)
				}
				addrNext = r
			}
		}
		// A dob visit may end inside a run, at a digit no date starts
		// at (dateGlued: a digit before it): the next is past the run.
		if on&dobStepOn != 0 && t >= dobNext && (!dateGluedTab[b] || hebrewPrefixed(s, t) || stopThenYear(s, t, e)) && e-t <= dateRunMax[c] && (dateRunMax[c] != 4 || dateSepMay(s, t, e)) {
			dobNext = p.dobStep(t)
		}
	}
}

// midRun reports whether r is a digit after a digit: a scan resuming
// there visits it (nextDigit(s, r) == r), where the walk visits only the
// first digit of each run.
func midRun(s string, r int) bool {
	return r > 0 && r < len(s) && s[r]-'0' < 10 && s[r-1]-'0' < 10
}

// digitLanes has 0x80 in each byte of x that is an ASCII digit, exactly
// (no borrow runs from one byte into the next).
func digitLanes(x uint64) uint64 {
	t := x ^ 0x30*swarOnes // digits become 0..9
	return ^((t | swarHigh) - 0x0a*swarOnes) &^ t & swarHigh
}

// familiesClean reports whether the family detectors in fam surely find
// nothing in s.
func familiesClean(s string, fam uint64) bool { return familiesCleanWith(s, fam, nil) }

// familiesCleanWith is familiesClean for a policy that adds e (its keys
// and context words may make more of s a label or a name's context).
func familiesCleanWith(s string, fam uint64, e *Extra) bool {
	// idsClean, addressesClean and birthDatesClean are one test: no
	// ASCII digit (TestFamiliesFindAsBefore holds them to it).
	return (fam&(idScanned|1<<detStreetAddress|1<<detDateOfBirth) == 0 || nextDigit(s, 0) == len(s)) &&
		(fam&(1<<detPerson) == 0 || personsCleanExtra(s, e)) &&
		(fam&labelFamily == 0 || labelledClean(s) && (e == nil || labelledCleanWith(s, e)) && tablesClean(s, e))
}

// Extra is what a policy adds to the built-ins (its detection block,
// manual 12.9): more keys and context words per detector (by name), and
// the regions whose national phone formats count. The families read it
// through pass.extra (nil: nothing added).
type Extra struct {
	Keys         map[string][]string
	Context      map[string][]string
	PhoneRegions []string
}

// addrBefore is addressAt's first test, by the byte before the digit run
// (0 at the start of s), read with addressAt's branches: 0 when the run
// starts no address (glued to a lower-case letter, in a number, a
// version, a key=value); 1 when every branch may start one (a non-ASCII
// byte); else the test addrWorth makes: addrUpper after a capital (a
// letter postcode, NW1 6XE, after a city: a space, a comma or a line
// break before it), addrDash after '-' or ':' (addrBefore2), addrFirst
// where only a house number first may start (numberFirst: after ',',
// '"', '(', a tab or a line break, and at the start), addrSpace after a
// space, addrJP where only a 〒 before may start one ('/', ')', ';' and
// the other ASCII punctuation: a path, a version, a fraction).
var addrBefore = func() (t [256]uint8) {
	for c := range t {
		t[c] = addrJP
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = 1
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = addrUpper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = 1 // never the byte before a run's first digit
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = 0
	}
	for _, c := range "_.=+$@%&\\[{" {
		t[c] = 0
	}
	t['-'], t[':'] = addrDash, addrDash
	for _, c := range ",\"(\t\n\x00" {
		t[c] = addrFirst
	}
	t[' '] = addrSpace
	return t
}()

// addrBefore's tests (1 is none).
const (
	addrDash uint8 = 2 + iota
	addrFirst
	addrSpace
	addrJP
	addrUpper
)

// addrWorth is addrBefore's test kind of the run at t (a necessary
// condition for addressAt(s, t) to find an address).
func addrWorth(s string, t int, kind uint8) bool {
	switch kind {
	case addrDash:
		return addrBefore2(s, t)
	case addrFirst:
		return addrFirstWorth(s, t)
	case addrUpper:
		// postcodeAnchor's start of a letter postcode, then
		// cityBefore's first test (2024-10-28T11:57 stops here).
		k := t
		for k > 0 && t-k < 2 && s[k-1]-'A' < 26 {
			k--
		}
		return k > 0 && (s[k-1] == ' ' || s[k-1] == ',' || s[k-1] == '\n')
	case addrSpace:
		// numberAfter and postcodeAnchor need a word (a street, a
		// postcode's label) before the spaces, or a '.', ',', ':' after
		// it; else only numberFirst may start here (a 〒 before is a
		// non-ASCII byte).
		q := t - 1
		for q > 0 && s[q-1] == ' ' {
			q--
		}
		if q > 0 {
			if c := s[q-1]; wordByte(c) || c == '.' || c == ',' || c == ':' {
				return true
			}
		}
		return addrFirstWorth(s, t)
	}
	return t >= 4 && s[t-4:t-1] == "〒"
}

// addrFirstWorth is numberFirst's necessary shape at the run t: a house
// number as houseNumber reads it (up to five digits, a letter, a range or
// a flat: 221B, 12-14, 12/3), a comma or none, spaces, and a word's first
// letter or an ordinal (a date, a JSON number, a CSV field, "200 8428"
// stop here; "12 5th Ave" does not).
func addrFirstWorth(s string, t int) bool {
	e := skipDigits(s, t)
	if (e-t == 5 || e-t == 2 || e-t == 8) && e < len(s) && s[e] == ' ' && t >= 2 && s[t-1] == '\n' && wordByte(s[t-2]) {
		return true // a postcode under its street line (rue de Riou⏎97 298 Saint Émile, 65206427 Monteiro)
	}
	if e-t <= 7 && e+2 < len(s) && s[e] == ',' && s[e+1] == ' ' && s[e+2] >= 0x80 {
		return true // a postcode first, then a non-Latin address (scriptAddressAfter)
	}
	if e-t > 5 {
		return false
	}
	if e-t == 3 && e < len(s) && s[e] == '-' {
		return true // a Japanese postcode, any separator before its address (cjkPostcodeFirst)
	}
	if e-t == 5 && e+2 < len(s) && t > 0 && s[t-1] == '(' && s[e] == ')' && s[e+1] == ' ' && s[e+2] >= 0x80 {
		return true // a Korean postcode before its address (koreanAddress)
	}
	e = houseLetter(s, e)
	if e+1 < len(s) && (s[e] == '/' || s[e] == '-') && isDigit(s[e+1]) {
		if e2 := skipDigits(s, e+1); e2-e-1 <= 4 {
			e = houseLetter(s, e2)
		}
	}
	if e < len(s) && s[e] == ',' {
		e++
	}
	k := skipSpaces(s, e)
	return k > e && k < len(s) && (isASCIILetter(s[k]) || s[k] >= 0x80 || ordinalEnd(s, k) > k)
}

// houseLetter is houseNumber's letter after the digits ending at e (221B),
// if there is one: the end of the house number so far.
func houseLetter(s string, e int) int {
	if e < len(s) && isASCIILetter(s[e]) && (e+1 == len(s) || !wordByte(s[e+1])) {
		return e + 1
	}
	return e
}

// addrBefore2 is addressAt's test of a run after '-' (D-10115) or ':'
// (PIN:110001).
func addrBefore2(s string, t int) bool {
	if t < 2 {
		return false
	}
	if s[t-1] == '-' {
		// postcodeAnchor's country prefix (D-10115, SE-114 55), or a
		// postcode glued to its city (चित्रकूट-678169: scriptAddress).
		return s[t-2]-'A' < 26 && (countryPrefix(s, t-2) == t || t >= 3 && countryPrefix(s, t-3) == t) || s[t-2] >= 0x80
	}
	return wordByte(s[t-2])
}

// dateGluedTab is dateGlued as a table.
var dateGluedTab = func() (t [256]bool) {
	for c := range t {
		t[c] = dateGlued(byte(c))
	}
	return t
}()
