package detect

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

// runFamilies runs the scans of the family detectors in p.fam.
func (p *pass) runFamilies() {
	if p.fam&idDetectors != 0 {
		p.scanIDs()
	}
	if p.fam&(1<<detPerson) != 0 {
		p.scanPersons()
	}
	if p.fam&(1<<detStreetAddress) != 0 {
		p.scanAddresses()
	}
	if p.fam&(1<<detDateOfBirth) != 0 {
		p.scanBirthDates()
	}
	if p.fam&labelFamily != 0 {
		p.scanLabelled()
	}
}

// familiesClean reports whether the family detectors in fam surely find
// nothing in s.
func familiesClean(s string, fam uint64) bool {
	return (fam&idDetectors == 0 || idsClean(s)) &&
		(fam&(1<<detPerson) == 0 || personsClean(s)) &&
		(fam&(1<<detStreetAddress) == 0 || addressesClean(s)) &&
		(fam&(1<<detDateOfBirth) == 0 || birthDatesClean(s)) &&
		(fam&labelFamily == 0 || labelledClean(s))
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
