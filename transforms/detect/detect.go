// Package detect finds personal data and secrets in strings (manual 12):
// the built-in detectors, run in one pass over a string (detect.go, with
// the personal-data steps in pii.go, email.go, phone.go, card.go and
// network.go, and the secrets' in secrets.go, tokens.go, encoded.go and
// credentials.go),
// custom RE2 detectors (custom.go), the reader view they read through
// (readerview.go), and the set a policy enables with its selections
// (set.go). Package transforms rewrites what they find.
package detect

import (
	"math/bits"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/cloudg/mcp-privacy/policy"
)

// Detection is one finding: which detector, what label and sensitivity,
// and where, as byte offsets into the scanned string (on rune boundaries).
type Detection struct {
	Detector    string
	Label       string
	Sensitivity policy.Sensitivity
	Start, End  int
	// Value is what a reader sees of the span when that differs from its
	// bytes (the reader view: invisible characters dropped, fullwidth
	// forms and escapes read as ASCII…), else "". Rewrites use it, so
	// one value has one pseudonym however it was disguised.
	Value string
	// Basis is why the span was reported (preview and explain say it).
	Basis Basis
}

// Basis is what a detection rests on.
type Basis uint8

const (
	BasisPattern    Basis = iota // the detector's shape and validation
	BasisChecksum                // an identifier's check digits
	BasisContext                 // context words, labels, honorifics
	BasisKey                     // the JSON member's name
	BasisDictionary              // an operator's dictionary term
	BasisNameTable               // given-name and surname tables
)

var basisNames = [...]string{"pattern", "checksum", "context", "key", "dictionary", "name table"}

func (b Basis) String() string {
	if int(b) < len(basisNames) {
		return basisNames[b]
	}
	return "pattern"
}

// A pass records each span's detector in 16 bits: the detector's index in
// the low six bits (detMask), its Basis above them (basisShift). Pass
// detectors record BasisPattern, 0.
const (
	detMask    = 1<<basisShift - 1
	basisShift = 6
)

// Seen is the detected value as a reader sees it: Value, or the span of s.
func (d *Detection) Seen(s string) string {
	if d.Value != "" {
		return d.Value
	}
	return s[d.Start:d.End]
}

// Replace returns s with every detection's span replaced by what with
// returns for it, given the value as a reader sees it (Detection.Seen).
// Detections must not overlap and must be in order (as Detect returns
// them).
func Replace(s string, ds []Detection, with func(d Detection, value string) string) string {
	if len(ds) == 0 {
		return s
	}
	// The replacements first, then one buffer of the result's size (a
	// buffer of len(s) grows, copying, when pseudonyms are longer than
	// what they replace).
	var small [16]string
	vs := small[:0]
	if len(ds) > len(small) {
		vs = make([]string, 0, len(ds))
	}
	n := len(s)
	for _, d := range ds {
		v := with(d, d.Seen(s))
		vs = append(vs, v)
		n += len(v) - (d.End - d.Start)
	}
	var b strings.Builder
	b.Grow(n)
	last := 0
	for k, d := range ds {
		b.WriteString(s[last:d.Start])
		b.WriteString(vs[k])
		last = d.End
	}
	b.WriteString(s[last:])
	return b.String()
}

// Span is a candidate a scanner found: [Start, End) in bytes.
type Span struct{ Start, End int }

// scanFunc appends to dst the spans of one detector in s.
type scanFunc func(s string, dst []Span) []Span

// The built-in detectors by their index in policy.BuiltinDetectors (SPEC
// 12's table order; init checks it).
const (
	detEmail = iota
	detPhone
	detCard
	detIBAN
	detSSN
	detIPv4
	detIPv6
	detMAC
	detARN
	detAWSKey
	detGitHub
	detSlack
	detStripe
	detGoogle
	detJWT
	detPEM
	detURL
	detBearer
	detGeneric
	// numPass is the number of detectors the trigger pass runs (the ones
	// above); the families below run after it (families.go).
	numPass
)

const (
	detPerson = iota + numPass
	detStreetAddress
	detDateOfBirth
	detUKNINO
	detUKNHS
	detDETaxID
	detFRNIR
	detESDNI
	detESNIE
	detITFiscalCode
	detNLBSN
	detBENationalNumber
	detPLPESEL
	detSEPersonnummer
	detFIHETU
	detDKCPR
	detBRCPF
	detBRCNPJ
	detINAadhaar
	detINPAN
	detCASIN
	detAUTFN
	detAUMedicare
	detSGNRIC
	detJPMyNumber
	detUSITIN
	detPassport
	detABARouting
	detBankAccount
	detNationalID
	detTaxID
	detDriverLicense
	numBuiltins
)

var builtinNames = [numBuiltins]string{
	"email", "phone", "credit_card", "iban", "us_ssn", "ipv4", "ipv6", "mac_address", "aws_arn",
	"aws_access_key", "github_token", "slack_token", "stripe_key", "google_api_key", "jwt",
	"private_key", "url_credentials", "bearer_token", "generic_secret",
	"person", "street_address", "date_of_birth", "uk_nino", "uk_nhs", "de_tax_id", "fr_nir", "es_dni", "es_nie",
	"it_fiscal_code", "nl_bsn", "be_national_number", "pl_pesel", "se_personnummer", "fi_hetu", "dk_cpr", "br_cpf",
	"br_cnpj", "in_aadhaar", "in_pan", "ca_sin", "au_tfn", "au_medicare", "sg_nric", "jp_my_number", "us_itin",
	"passport", "aba_routing", "bank_account", "national_id", "tax_id", "driver_license",
}

// scanners maps a built-in detector's name to a scan by that detector
// alone (Builtin, the tests and the corpus).
var scanners = map[string]scanFunc{}

// builtinIndex maps a built-in detector's name to its index.
var builtinIndex = map[string]int{}

func init() {
	if len(policy.BuiltinDetectors) != numBuiltins {
		panic("detect: the built-in detector table (manual 12) changed; update the detector indices")
	}
	for i, name := range builtinNames {
		if policy.BuiltinDetectors[i].Name != name {
			panic("detect: built-in detector " + name + " is not at its index")
		}
		scanners[name] = func(s string, dst []Span) []Span { return scanBuiltin(i, s, dst) }
		builtinIndex[name] = i
	}
}

// Builtin scans s with one built-in detector (by name) and returns its
// detections, for tests and tools; nil for an unknown name.
func Builtin(name string, s string) []Detection {
	i, ok := builtinIndex[name]
	if !ok {
		return nil
	}
	d := policy.LookupBuiltinDetector(name)
	v := newView(s)
	text := v.text
	p := pass{s: text, multi: true}
	if i < numPass {
		p.on, p.tab = 1<<i, newTrigTable(1<<i)
		p.run()
	}
	if p.fam = familyMask & (1 << i); p.fam != 0 {
		p.runFamilies() // us_ssn: also its spaced and bare forms in context
	}
	var out []Detection
	for k, sp := range p.spans {
		if int(p.dets[k]&detMask) != i || !spanOK(text, sp) {
			continue
		}
		out = append(out, Detection{Detector: name, Label: d.Label, Sensitivity: d.Sensitivity, Start: sp.Start, End: sp.End, Basis: Basis(p.dets[k] >> basisShift)})
	}
	// Two families may find one span (a birth date by its context and by
	// its label): one detection, as Set.Detect gives.
	out = resolveOverlaps(out, func(string) int { return 0 })
	if text != s {
		out = v.mapBack(s, out)
	}
	return out
}

// boundary reports whether i is at a rune boundary of s: detections never
// split a multi-byte character.
func boundary(s string, i int) bool {
	return i == len(s) || utf8.RuneStart(s[i])
}

func spanOK(s string, sp Span) bool {
	return sp.Start >= 0 && sp.End <= len(s) && sp.Start < sp.End && boundary(s, sp.Start) && boundary(s, sp.End)
}

// resolveOverlaps keeps, among overlapping detections, the one that starts
// first, then the longer, then the more sensitive, then the earlier in
// manual 12's table (rank). Set.resolve does the same on the compact
// hits of Detect.
func resolveOverlaps(ds []Detection, rank func(string) int) []Detection {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		switch {
		case a.Start != b.Start:
			return a.Start < b.Start
		case a.End-a.Start != b.End-b.Start:
			return a.End-a.Start > b.End-b.Start
		case a.Sensitivity != b.Sensitivity:
			return a.Sensitivity > b.Sensitivity
		}
		return rank(a.Detector) < rank(b.Detector)
	})
	out := ds[:0]
	end := -1
	for _, d := range ds {
		if d.Start >= end {
			out = append(out, d)
			end = d.End
		}
	}
	return out
}

// ---------------------------------------------------------------- the pass

// All built-in detectors run in one pass over the string. Each is driven
// by trigger bytes: '@' (email, url_credentials), the first digit of a run
// (phone, credit_card, iban), '-' (us_ssn, mac_address), '.' (ipv4), ':'
// (ipv6, mac_address, aws_arn, generic_secret), '=' (generic_secret), '_'
// (github_token, stripe_key) and the rarest letter of a secret's prefix:
// 'A' of AKIA…, 'x' of xox…, 'z' of AIza, 'J' of eyJ, 'G' of -----BEGIN,
// 'e' after the B of Bearer.
//
// The pass reads eight bytes at a time and turns them, with a table of
// trigger classes for the selected detectors indexed by each byte and the
// one before it, into one 64-bit word with a byte of class bits per input
// byte; a word of zero (most of prose) costs those eight lookups and
// nothing else. The set bytes of the word are then
// visited directly (count trailing zeros), never byte by byte: in the VM
// every loop iteration and branch costs far more than arithmetic, and a
// function call more still. At a trigger the cheap test of each detector
// that wants it runs inline; a detector's step is called only past it.
//
// Every detector keeps its own resume point (the next* fields): a step
// sees exactly the triggers its former loop over strings.IndexByte saw, in
// the same order, and leaves the same state, so the pass finds what
// running the detectors one after the other found. TestSinglePass* and
// FuzzSinglePass hold it to those loops, kept in detect_test.go. Steps and
// their validators live in the detector families' files (package doc).

// Trigger classes, one bit each in a byte of the pass's words.
const (
	tcDigit  uint8 = 1 << iota // 0-9 (the pass keeps only the first of a run)
	tcColon                    // :
	tcDot                      // .
	tcDash                     // -
	tcLetter                   // A x z J G B b: prefixes of secrets
	tcUnder                    // _
	tcAt                       // @
	tcEq                       // =
	// tcDigitUp is tcDigit after an upper-case letter, where an IBAN may
	// start (CC00…): its class of its own spares every other digit the
	// IBAN's test.
	tcDigitUp = tcDigit | tcLetter
)

// detTriggers is the bytes each built-in detector is triggered by.
// bearer_token's trigger is the 'e'/'E' after its B (see pairTriggers).
var detTriggers = [numPass]string{
	detEmail: "@", detPhone: "0123456789", detCard: "0123456789", detIBAN: "0123456789", detSSN: "-",
	detIPv4: ".", detIPv6: ":", detMAC: ":-", detARN: ":",
	detAWSKey: "A", detGitHub: "_", detSlack: "x", detStripe: "_", detGoogle: "z",
	detJWT: "J", detPEM: "G", detURL: "@", detBearer: "eE", detGeneric: ":=",
}

// pairTriggers reports whether byte c, one of detector d's triggers, is
// worth a visit when byte b comes before it (0 at the start of s). Each
// condition is one the detector's cheap test or step requires of the byte
// before its trigger, failing which the visit changes nothing: the pass
// skips exactly visits that found nothing and moved no resume point. They
// take out a sixth of the visits on the mixed corpus ('.' after a letter,
// '-' inside words, the 'b' and 'x' of prose), and make "the first digit
// of a run" a lookup.
func pairTriggers(d int, b, c byte) bool {
	switch d {
	case detPhone, detCard, detIBAN:
		return !piiDigit(b) // the first digit of a run
	case detSSN, detIPv4:
		return piiDigit(b) // ssnWorth, ipv4Worth
	case detMAC:
		return piiClass[b]&pcHex != 0 // macWorth
	case detARN:
		return b == 'n' // "arn:"
	case detGeneric:
		return keyPair[b]|keyQuote[b]|keySpace[b] != 0 // keyEndWorth's last byte
	case detAWSKey:
		return secCls[b]&secWord == 0 // secAWSKeyAt: no word character before
	case detSlack:
		return secCls[b]&secAlnum == 0
	case detGoogle:
		return b == 'I' // AIza
	case detJWT:
		return b == 'y' // eyJ
	case detPEM:
		return b == 'E' // BEGIN
	case detStripe:
		return b == 'k' // sk_, rk_, pk_
	case detBearer:
		return b == 'B' || b == 'b' // the e of Bearer, bearer
	}
	return true
}

// trigTable is the class table of some detectors, indexed by a byte and
// the byte before it (c<<8 | b): each pair worth a visit for one of them
// (pairTriggers) has its trigger's class, every other pair 0. Reading
// pairs costs the pass nothing more than reading bytes (one shift per
// word), and each visit it saves costs far more in the VM.
type trigTable [1 << 16]uint8

// trigTables holds the tables made so far, by detector mask: a table is
// 64 KiB, and a configuration's selections share a few masks.
var trigTables struct {
	sync.Mutex
	byMask map[uint32]*trigTable // by pass detectors (bits below numPass) and trigRuns, trigLabels
}

// Two bits of a table's mask above the pass detectors' add the triggers
// the pass records for the family scans, so that they need not walk the
// string again (families.go): trigRuns the first digit of every run
// (scanDigits), trigLabels every byte that may end a label (scanLabelled).
const (
	trigRuns   = uint32(1) << numPass
	trigLabels = uint32(1) << (numPass + 1)
)

func newTrigTable(mask uint32) *trigTable {
	trigTables.Lock()
	defer trigTables.Unlock()
	if t := trigTables.byMask[mask]; t != nil {
		return t
	}
	t := buildTrigTable(mask, pairTriggers)
	if trigTables.byMask == nil {
		trigTables.byMask = map[uint32]*trigTable{}
	}
	trigTables.byMask[mask] = t
	return t
}

// buildTrigTable makes the table of the detectors in mask, with worth
// saying which pairs are worth a visit.
func buildTrigTable(mask uint32, worth func(d int, b, c byte) bool) *trigTable {
	t := new(trigTable)
	for d := 0; d < numPass; d++ {
		if mask&(1<<d) == 0 {
			continue
		}
		for _, c := range []byte(detTriggers[d]) {
			var class uint8
			switch {
			case c >= '0' && c <= '9':
				class = tcDigit
			case c == ':':
				class = tcColon
			case c == '.':
				class = tcDot
			case c == '-':
				class = tcDash
			case c == '_':
				class = tcUnder
			case c == '@':
				class = tcAt
			case c == '=':
				class = tcEq
			default:
				class = tcLetter
			}
			for b := 0; b < 256; b++ {
				if worth(d, byte(b), c) {
					t[int(c)<<8|b] = class
				}
			}
		}
	}
	if mask&trigRuns != 0 {
		for c := '0'; c <= '9'; c++ {
			for b := 0; b < 256; b++ {
				if !piiDigit(byte(b)) {
					t[int(c)<<8|b] = tcDigit
				}
			}
		}
	}
	if mask&(1<<detIBAN) != 0 {
		for c := '0'; c <= '9'; c++ {
			for b := 'A'; b <= 'Z'; b++ {
				if t[int(c)<<8|int(b)] == tcDigit {
					t[int(c)<<8|int(b)] = tcDigitUp
				}
			}
		}
	}
	if mask&trigLabels != 0 {
		// What labelCands flags: ':', '=', a tab and the last bytes of
		// '：' and '–' after any byte, '-' after a space (labelTailAt
		// wants one), and the bytes its borrow may flag (one more than
		// one of those, after it or after another such).
		for b := 0; b < 256; b++ {
			t[':'<<8|b], t['='<<8|b] = tcColon, tcEq
			t['\t'<<8|b], t[0x9A<<8|b], t[0x93<<8|b] = tcLetter, tcLetter, tcLetter
		}
		t['-'<<8|' '] = tcDash
		for _, c := range []int{':', '=', '\t', 0x9A, 0x93} {
			t[(c^1)<<8|c], t[(c^1)<<8|c^1] = tcLetter, tcLetter
		}
		// And where a table may start (tableNext, for scanTables, which
		// runs with scanLabelled): a line break, '\r' or '|' after a
		// line break, a line break after ':' or '\r'.
		t['\n'<<8|'\n'], t['\r'<<8|'\n'], t['|'<<8|'\n'] = tcLetter, tcLetter, tcLetter
		t['\n'<<8|':'], t['\n'<<8|'\r'] = tcLetter, tcLetter
	}
	return t
}

// phoneTab classifies a byte for settleStretch: 0x81 for a digit, 0x82
// for '+', 0x88 for '.', 0x80 for another byte a phone can hold, 0 for
// the rest.
var phoneTab = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		if piiClass[c]&pcPhone != 0 {
			t[c] = 0x80 | uint8(piiClass[c]&pcDigit)
		}
	}
	t['+'] |= 0x02
	t['.'] |= 0x08
	return t
}()

// allTable is the table of all the built-in detectors. The table of one
// detector alone (Builtin, the tests) is made when first asked for.
var (
	allBuiltins = uint64(1)<<numBuiltins - 1
	allPass     = uint32(1)<<numPass - 1
	allTable    = newTrigTable(allPass)
)

// pass is the state of one pass over s: the output and every detector's
// resume point.
type pass struct {
	s  string
	on uint32 // pass detectors that run, bit d for index d
	// fam is the family detectors that run (bit d for index d ≥
	// numPass, and us_ssn for its forms in context: familyMask), run by
	// runFamilies after the pass (families.go).
	fam   uint64
	extra *Extra // what the policy adds to the families (nil: nothing)
	// keys: the classes of labels and keys read so far (nil: none yet).
	keys *keyCache
	// keyed: p.s is a value whose key or label names what it is, which
	// stands for the context words identifiers may need (keyedID).
	keyed bool
	// regions is the regions whose national phone numbers count (0: the
	// default set); phoneMin the fewest digits of such a number (8 with
	// Denmark or Singapore, else 9), both set by run.
	regions  regionSet
	phoneMin int
	tab      *trigTable // covers at least the detectors in on
	multi    bool       // record which detector found each span in dets
	spans    []Span
	dets     []uint16 // detector | basis<<basisShift
	// recRuns, recLabels: the pass records in runs the first digit of
	// every run, in labels every byte labelCands may flag but a ':' or
	// '=' no label ends before (labelSepWorth; tab has trigRuns,
	// trigLabels), for scanDigits and scanLabelled to visit instead of
	// walking p.s again.
	recRuns, recLabels bool
	runs, labels       []int32
	// tables: with recLabels, where a table may start (tableNext's
	// places, in order), for scanTables.
	tables []int32

	emailNext, emailLo                   int
	phoneNext, cardNext, ibanNext        int
	ssnNext, ipv4Next, ipv6Next, arnNext int
	macColonNext, macDashNext            int
	awsNext, slackNext                   int
	githubNext, githubLast               int
	stripeNext, stripeLast               int
	googleNext, googleLast               int
	jwtNext, jwtLast, pemNext, pemLast   int
	urlNext, urlPrevU, urlPrevA, urlLast int
	bearerUpperNext, bearerLowerNext     int
	genericNext                          int
}

// tag records detector d for the spans appended since k.
func (p *pass) tag(k int, d uint8) {
	if p.multi {
		for ; k < len(p.spans); k++ {
			p.dets = append(p.dets, uint16(d))
		}
	}
}

// emitBy records a span of family detector d found on basis b.
func (p *pass) emitBy(d int, b Basis, start, end int) {
	p.spans = append(p.spans, Span{start, end})
	if p.multi {
		p.dets = append(p.dets, uint16(d)|uint16(b)<<basisShift)
	}
}

func (p *pass) emit(d uint8, a, b int) {
	p.spans = append(p.spans, Span{a, b})
	if p.multi {
		p.dets = append(p.dets, uint16(d))
	}
}

// scanBuiltin appends to dst what built-in detector d finds in s.
func scanBuiltin(d int, s string, dst []Span) []Span {
	if d >= numPass {
		p := pass{s: s, fam: 1 << d, spans: dst}
		p.runFamilies()
		return p.spans
	}
	p := pass{s: s, on: 1 << d, tab: newTrigTable(1 << d), spans: dst}
	p.run()
	return p.spans
}

// run is the pass.
func (p *pass) run() {
	p.githubNext = 3
	p.stripeNext, p.googleNext, p.jwtNext = 2, 2, 2
	p.pemNext = 7
	p.urlPrevU, p.urlPrevA = -1, -1
	if p.regions == 0 {
		p.regions = defaultPhoneRegions
	}
	p.phoneMin = 9
	if p.regions.eightDigits() {
		p.phoneMin = 8
	}
	s, tab, on := p.s, p.tab, p.on
	n := len(s)
	var prev uint64 // the byte before i (0 at the start)
	_ = tab[0]      // one nil check, not one per word
	for i := 0; i < n; i += 8 {
		// Lane k of m is the class of the pair (s[i+k-1], s[i+k]): the
		// index of lane 0 is x<<8|prev, of lane k ≥ 1 the bits of x from
		// 8(k-1).
		var m uint64
		if i+8 <= n {
			x := load64(s, i)
			m = uint64(tab[uint16(x<<8|prev)]) | uint64(tab[uint16(x)])<<8 | uint64(tab[uint16(x>>8)])<<16 | uint64(tab[uint16(x>>16)])<<24 |
				uint64(tab[uint16(x>>24)])<<32 | uint64(tab[uint16(x>>32)])<<40 | uint64(tab[uint16(x>>40)])<<48 | uint64(tab[uint16(x>>48)])<<56
			// Clean words follow one another in this inner loop: in the
			// VM every taken branch is a jump through the function's
			// dispatch table, and a clean word here costs one (the
			// loop's), where going round the outer loop costs three.
			for m == 0 && i+16 <= n {
				i += 8
				prev = x >> 56
				x = load64(s, i)
				m = uint64(tab[uint16(x<<8|prev)]) | uint64(tab[uint16(x)])<<8 | uint64(tab[uint16(x>>8)])<<16 | uint64(tab[uint16(x>>16)])<<24 |
					uint64(tab[uint16(x>>24)])<<32 | uint64(tab[uint16(x>>32)])<<40 | uint64(tab[uint16(x>>40)])<<48 | uint64(tab[uint16(x>>48)])<<56
			}
			prev = x >> 56
		} else {
			// The last bytes, as the low lanes of x (NUL above them:
			// no pair ending in NUL triggers).
			x := tailWord(s, i)
			m = uint64(tab[uint16(x<<8|prev)]) | uint64(tab[uint16(x)])<<8 | uint64(tab[uint16(x>>8)])<<16 | uint64(tab[uint16(x>>16)])<<24 |
				uint64(tab[uint16(x>>24)])<<32 | uint64(tab[uint16(x>>32)])<<40 | uint64(tab[uint16(x>>40)])<<48
		}
		if m == 0 {
			continue
		}
		for m != 0 {
			z := uint(bits.TrailingZeros64(m)) &^ 7
			c := uint8(m >> z)
			m &^= 0xff << z
			t := i + int(z>>3)
			switch c {
			case tcDigitUp:
				// s[t-1] is a capital (the class says so).
				if on&(1<<detIBAN) != 0 && t >= p.ibanNext+2 && t+1 < n && piiClass[s[t-2]]&pcUpper != 0 && piiDigit(s[t+1]) {
					p.stepIBAN(t - 2)
				}
				fallthrough
			case tcDigit:
				if p.recRuns {
					p.runs = append(p.runs, int32(t))
				}
				phone, card := on&(1<<detPhone) != 0 && t >= p.phoneNext, on&(1<<detCard) != 0 && t >= p.cardNext
				if !phone && !card {
					break
				}
				if t+16 <= n {
					// Most runs (times, dates, ids, amounts) sit in a stretch
					// of phone bytes that ends within eight bytes with fewer
					// than 7 digits: neither a phone nor a card starts there.
					x := load64(s, t)
					lo := uint64(phoneTab[uint8(x)]) | uint64(phoneTab[uint8(x>>8)])<<8 | uint64(phoneTab[uint8(x>>16)])<<16 | uint64(phoneTab[uint8(x>>24)])<<24 |
						uint64(phoneTab[uint8(x>>32)])<<32 | uint64(phoneTab[uint8(x>>40)])<<40 | uint64(phoneTab[uint8(x>>48)])<<48 | uint64(phoneTab[uint8(x>>56)])<<56
					if gap := ^lo & 0x8080808080808080; gap != 0 {
						stop := uint(bits.TrailingZeros64(gap)) &^ 7
						if bits.OnesCount64(lo&0x0101010101010101&(1<<stop-1)) < 7 {
							e := t + int(stop>>3)
							if phone {
								p.phoneNext = e
							}
							if card {
								p.cardNext = e
							}
							break
						}
					}
					if phone, card = p.settleStretch(t, lo, phone, card); phone {
						p.stepPhone(t)
					}
					if card {
						p.stepCard(t)
					}
					break
				}
				p.stepDigits(t)
			case tcColon:
				if p.recLabels && labelSepWorth(s, t) {
					p.labels = append(p.labels, int32(t))
				}
				if on&(1<<detIPv6) != 0 && t >= p.ipv6Next {
					if (t > 0 && piiClass[s[t-1]]&pcHex != 0 || t+1 < n && (piiClass[s[t+1]]&pcHex != 0 || s[t+1] == ':')) && ipv6Worth(s, t) {
						p.stepIPv6(t)
					} else {
						p.ipv6Next = t + 1
					}
				}
				if on&(1<<detMAC) != 0 && t >= p.macColonNext && t+15 <= n && s[t+3] == ':' && macWorth(s, t) {
					p.stepMAC(t, &p.macColonNext)
				}
				if on&(1<<detARN) != 0 && t >= p.arnNext && t >= 3 && s[t-1] == 'n' && s[t-2] == 'r' && s[t-3] == 'a' {
					p.stepARN(t)
				}
				if on&(1<<detGeneric) != 0 && t >= p.genericNext && t >= 3 && keyEndWorth(s[t-3], s[t-2], s[t-1]) && genericKeyEnd(s, t) {
					p.stepGeneric(t)
				}
			case tcDot:
				if on&(1<<detIPv4) != 0 && t >= p.ipv4Next && ipv4Worth(s, t) {
					p.stepIPv4(t)
				}
			case tcDash:
				if p.recLabels && t > 0 && s[t-1] == ' ' {
					p.labels = append(p.labels, int32(t))
				}
				if on&(1<<detSSN) != 0 && t >= p.ssnNext && t+8 <= n && s[t+3] == '-' && ssnWorth(s, t) {
					p.stepSSN(t)
				}
				if on&(1<<detMAC) != 0 && t >= p.macDashNext && t+15 <= n && s[t+3] == '-' && macWorth(s, t) {
					p.stepMAC(t, &p.macDashNext)
				}
			case tcLetter:
				switch s[t] {
				case 'A':
					if on&(1<<detAWSKey) != 0 && t >= p.awsNext && t+20 <= n && s[t+3] == 'A' {
						p.stepAWSKey(t)
					}
				case 'x':
					if on&(1<<detSlack) != 0 && t >= p.slackNext && t+25 <= n && (s[t+1] == 'o' || s[t+1] == 'a') && (t == 0 || secCls[s[t-1]]&secAlnum == 0) {
						p.stepSlack(t)
					}
				case 'z':
					if on&(1<<detGoogle) != 0 && t >= p.googleNext && t+37 <= n && s[t-1] == 'I' && s[t-2] == 'A' {
						p.stepGoogle(t)
					}
				case 'J':
					if on&(1<<detJWT) != 0 && t >= p.jwtNext && t+8 <= n && s[t-1] == 'y' && s[t-2] == 'e' {
						p.stepJWT(t)
					}
				case 'G':
					if on&(1<<detPEM) != 0 && t >= p.pemNext && s[t-1] == 'E' && s[t-7] == '-' {
						p.stepPEM(t)
					}
				case '\t', 0x9A, 0x93, ';', '<', '\b', 0x9B, 0x92:
					if p.recLabels {
						p.labels = append(p.labels, int32(t))
					}
				case '\n', '\r', '|':
					// Where a table may start (tableNext): after a blank
					// line, at a line opening with '|', or after a line
					// ending in ':'.
					if p.recLabels {
						r := t
						if s[t-1] != '\n' { // the '\n' ending "…:" or "…:\r"
							if s[t-1] == '\r' && (t < 2 || s[t-2] != ':') {
								break
							}
							r = t + 1
						}
						if r < n && (len(p.tables) == 0 || int(p.tables[len(p.tables)-1]) != r) {
							p.tables = append(p.tables, int32(r))
						}
					}
				case 'e', 'E': // the e of Bearer or bearer: its B is at t-1
					b := t - 1
					next := &p.bearerLowerNext
					if s[b] == 'B' {
						next = &p.bearerUpperNext
					}
					if on&(1<<detBearer) != 0 && b >= *next && b+8 <= n && bearerWorth(s, b) {
						p.stepBearer(b, next)
					}
				}
			case tcUnder:
				if on&(1<<detGitHub) != 0 && t >= p.githubNext && (s[t-1] == 'b' || s[t-2] == 'h' && s[t-3] == 'g') {
					p.stepGitHub(t)
				}
				if on&(1<<detStripe) != 0 && t >= p.stripeNext && s[t-1] == 'k' {
					p.stepStripe(t)
				}
			case tcAt:
				if on&(1<<detEmail) != 0 && t >= p.emailNext {
					p.stepEmail(t)
				}
				if on&(1<<detURL) != 0 && t >= p.urlNext {
					p.stepURLCredentials(t)
				}
			case tcEq:
				if p.recLabels && labelSepWorth(s, t) {
					p.labels = append(p.labels, int32(t))
				}
				if on&(1<<detGeneric) != 0 && t >= p.genericNext && t >= 3 && keyEndWorth(s[t-3], s[t-2], s[t-1]) && genericKeyEnd(s, t) {
					p.stepGeneric(t)
				}
			}
		}
	}
}

// tailWord returns the bytes of s from i (fewer than eight) as the low
// lanes of a little-endian word, NUL above them.
func tailWord(s string, i int) uint64 {
	n := len(s)
	if n >= 8 {
		return load64(s, n-8) >> (8 * uint(i+8-n))
	}
	var x uint64
	for k := i; k < n; k++ {
		x |= uint64(s[k]) << (8 * (k - i))
	}
	return x
}

// load64 returns s[i:i+8] as a little-endian word (i+8 <= len(s)): one
// load where eight would each cost an address computation and a bounds
// check, which add up in the VM. Unaligned loads of pointer-free data are
// fine on every platform Go supports.
func load64(s string, i int) uint64 {
	x := *(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), i))
	if bigEndian {
		x = bits.ReverseBytes64(x)
	}
	return x
}

// bigEndian is a constant, so the test in load64 costs nothing.
const bigEndian = runtime.GOARCH == "mips" || runtime.GOARCH == "mips64" || runtime.GOARCH == "ppc64" || runtime.GOARCH == "s390x"

// The cheap tests of the pass, each a necessary condition for its step to
// find something (and, where the step would move its resume point past
// more than this trigger, for that too). They read a few bytes at fixed
// offsets and combine them without branches where they can: in the VM a
// branch costs more than a table lookup.

// settleStretch looks at the stretch of phone bytes from the digit at t,
// which starts a run (t+16 <= len(s)), for the phone and card steps due
// there (lo: the phoneTab lanes of its first eight bytes, which the pass
// has read). It moves phoneNext or cardNext past what cannot hold a match and
// reports which steps remain to run. If the stretch ends within 16 bytes:
// a card needs 13 digits; a phone needs 9 digits, or 7 after a '+', and a
// separator or the '+' (bare digit runs are not phones). And a run of four
// or more groups joined by single dots (an IPv4 address, a version such
// as 120.0.6099.109) is no phone unless it reads 0… (trunk prefix) or
// 1.NXX.NXX.XXXX (phoneValid's rules): the phone step resumes after it.
func (p *pass) settleStretch(t int, lo uint64, phone, card bool) (bool, bool) {
	s := p.s
	const member, digit, plus = 0x8080808080808080, 0x0101010101010101, 0x0202020202020202
	var before byte // the byte before the stretch: '+' makes a phone international
	if t > 0 {
		before = s[t-1]
	}
	var stop uint // bytes of the stretch, if it ends within the 16
	var hi uint64 // the lanes of the second eight bytes (0 past the stretch)
	if gap := ^lo & member; gap != 0 {
		stop = uint(bits.TrailingZeros64(gap)) >> 3
		lo &= 1<<(stop*8) - 1
	} else {
		y := load64(s, t+8)
		hi = uint64(phoneTab[uint8(y)]) | uint64(phoneTab[uint8(y>>8)])<<8 | uint64(phoneTab[uint8(y>>16)])<<16 | uint64(phoneTab[uint8(y>>24)])<<24 |
			uint64(phoneTab[uint8(y>>32)])<<32 | uint64(phoneTab[uint8(y>>40)])<<40 | uint64(phoneTab[uint8(y>>48)])<<48 | uint64(phoneTab[uint8(y>>56)])<<56
		if gap := ^hi & member; gap != 0 {
			stop = 8 + uint(bits.TrailingZeros64(gap))>>3
			hi &= 1<<((stop-8)*8) - 1
		}
	}
	if stop > 0 {
		end := t + int(stop)
		digits := bits.OnesCount64(lo&digit) + bits.OnesCount64(hi&digit)
		if card && digits < 13 {
			p.cardNext, card = end, false
		}
		switch {
		case !phone:
			return false, card
		case digits == int(stop) && phoneTab[before]&0x80 == 0: // bare
			p.phoneNext = end
			if digits >= 8 && digits <= 12 {
				p.stepBare(t, end)
			}
			return false, card
		case digits < 7:
			p.phoneNext = end
			return false, card
		case digits == lastDigit(lo, hi)+1:
			// A bare run with separators after it ("01000000 A"): phoneRun
			// may read it as bare, after a phone word.
			return true, card
		case digits < p.phoneMin && (lo|hi)&plus == 0 && before != '+',
			digits == 8 && (lo|hi)&plus == 0 && before != '+' && before != '(' && !eightShape(lo, hi):
			// Eight digits after a phone word are a number in any
			// region with a trunk zero (phoneRun: "08-15 00 08").
			if digits == 8 && phoneContext(s, t) {
				break
			}
			p.phoneNext = end
			return false, card
		}
	}
	if phone {
		if e := dottedRunEnd(s, t, before, lo, hi); e > 0 {
			p.phoneNext, phone = e, false
		}
	}
	return phone, card
}

// lastDigit is the index of the last digit in a stretch with phoneTab
// lanes lo and hi (cut at its end).
func lastDigit(lo, hi uint64) int {
	const digit = 0x0101010101010101
	if g := hi & digit; g != 0 {
		return 8 + (63-bits.LeadingZeros64(g))>>3
	}
	return (63 - bits.LeadingZeros64(lo&digit)) >> 3
}

// eightShape reports whether a stretch with phoneTab lanes lo and hi (cut
// at its end) holding 8 digits and no '+' reads dddd dddd or dd dd dd dd
// up to its last digit: the only national numbers of 8 digits (Denmark,
// Singapore: phoneRegions' forms).
func eightShape(lo, hi uint64) bool {
	const digit = 0x0101010101010101
	gl, gh := lo&digit, hi&digit
	sl, sh := lo>>7&digit&^gl, hi>>7&digit&^gh // separators
	switch gh {
	case 1: // the last digit at byte 8: dddd dddd
		return sl == 1<<32
	case 1<<8 | 1<<16: // the last digits at bytes 9 and 10: dd dd dd dd
		return sl == 1<<16|1<<40 && sh&1 == 1
	}
	return false
}

// dottedRunEnd: for the stretch from t with phoneTab lanes lo and hi (cut
// at its end if that lies within them), if the run of digit groups from t
// (groups joined by one separator each, as phoneRun reads them) ends
// within those 16 bytes, has four or more groups joined by dots, no '+',
// '(' or 0 before or at its start and is not 1.NXX.NXX.XXXX, it returns
// where the run ends; else 0.
func dottedRunEnd(s string, t int, before byte, lo, hi uint64) int {
	if before == '+' || before == '(' || s[t] == '0' {
		return 0
	}
	const digit = 0x0101010101010101
	gl, gh := lo&digit, hi&digit                     // digits
	ml, mh := lo>>7&digit, hi>>7&digit               // phone bytes
	dl, dh := lo>>3&digit, hi>>3&digit               // dots
	sl, sh := ml&^gl, mh&^gh                         // separators
	nl, nh := gl>>8|gh<<56, gh>>8                    // a digit follows
	el, eh := (^ml|sl&^nl)&digit, (^mh|sh&^nh)&digit // the run ends here
	var e uint                                       // bytes of the run
	if el != 0 {
		e = uint(bits.TrailingZeros64(el)) >> 3
		m := uint64(1)<<(8*e) - 1
		sl, dl, sh, dh = sl&m, dl&m, 0, 0
	} else {
		// A separator in the last byte need not end the run: a digit
		// may follow beyond.
		if eh &^= sh & 0x0100000000000000; eh == 0 {
			return 0
		}
		e = 8 + uint(bits.TrailingZeros64(eh))>>3
		m := uint64(1)<<(8*(e-8)) - 1
		sh, dh = sh&m, dh&m
	}
	if sl != dl || sh != dh {
		return 0 // a separator other than '.'
	}
	if t+int(e)+1 < len(s) && s[t+int(e)+1] == '(' {
		return 0 // "1.2.3.4 (5": phoneRun goes on into a parenthesised group
	}
	groups := 1 + bits.OnesCount64(dl) + bits.OnesCount64(dh)
	if groups < 4 || groups == 4 && s[t] == '1' && s[t+1] == '.' {
		return 0
	}
	return t + int(e)
}

// ipv4Worth: the '.' at t has a digit on either side and a second '.'
// within the next part's 3 digits. (When the first '.' of a dotted number
// fails, its next part has 4 or more digits or ends it: every later '.'
// of it starts from that part, and fails too.)
func ipv4Worth(s string, t int) bool {
	if t == 0 || t+6 > len(s) {
		return false
	}
	w := s[t-1 : t+5]
	return piiDigit(w[0]) && piiDigit(w[2]) && (w[3] == '.' || w[4] == '.' || w[5] == '.')
}

// v6Tab: 0 for a hex digit, 1 for ':', 2 for '.', 0x80 for any other byte.
var v6Tab = func() (t [256]uint8) {
	for c := range t {
		switch {
		case piiClass[c]&pcHex != 0:
		case c == ':':
			t[c] = 1
		case c == '.':
			t[c] = 2
		default:
			t[c] = 0x80
		}
	}
	return t
}()

// ipv6Worth, for a ':' at t with a hex digit or ':' beside it: the byte
// that ends the hex digits after it within five bytes is ':' or '.' (an
// address has a second ':' at most five bytes after its first), and the
// run of address bytes from t, if it ends within 16 bytes, has 6 ':' or a
// "::" (times such as 10:22:33.123 do not). No ':' before t in the run
// matters: the pass moves ipv6Next past every ':' it visits.
func ipv6Worth(s string, t int) bool {
	if t+17 > len(s) {
		return true
	}
	x := load64(s, t+1)
	lo := uint64(v6Tab[uint8(x)]) | uint64(v6Tab[uint8(x>>8)])<<8 | uint64(v6Tab[uint8(x>>16)])<<16 | uint64(v6Tab[uint8(x>>24)])<<24 |
		uint64(v6Tab[uint8(x>>32)])<<32 | uint64(v6Tab[uint8(x>>40)])<<40 | uint64(v6Tab[uint8(x>>48)])<<48 | uint64(v6Tab[uint8(x>>56)])<<56
	const colon, other = 0x0101010101010101, 0x8080808080808080
	if g := lo & 0xffffffffff; g == 0 || uint8(g>>(uint(bits.TrailingZeros64(g))&^7))&0x80 != 0 {
		return false // five hex digits, or a group ended by neither ':' nor '.'
	}
	var cl, ch uint64 // the ':' of the run
	if e := lo & other; e != 0 {
		// The run ends within the first eight bytes (most times such
		// as 10:22:33 do): the second eight are not read.
		cl = lo & colon & (1<<(uint(bits.TrailingZeros64(e))&^7) - 1)
	} else {
		y := load64(s, t+9)
		hi := uint64(v6Tab[uint8(y)]) | uint64(v6Tab[uint8(y>>8)])<<8 | uint64(v6Tab[uint8(y>>16)])<<16 | uint64(v6Tab[uint8(y>>24)])<<24 |
			uint64(v6Tab[uint8(y>>32)])<<32 | uint64(v6Tab[uint8(y>>40)])<<40 | uint64(v6Tab[uint8(y>>48)])<<48 | uint64(v6Tab[uint8(y>>56)])<<56
		e := hi & other
		if e == 0 {
			return true // a longer run
		}
		cl, ch = lo&colon, hi&colon&(1<<(uint(bits.TrailingZeros64(e))&^7)-1)
	}
	dbl := cl&1 | cl&(cl>>8) | ch&(ch>>8) | cl>>56&ch // "::", counting the ':' at t
	return dbl != 0 || 1+bits.OnesCount64(cl)+bits.OnesCount64(ch) >= 6
}

// macWorth: the separator at t is the first of six hex pairs joined by it
// (t+15 <= len(s)).
func macWorth(s string, t int) bool {
	if t < 2 {
		return false
	}
	w := s[t-2 : t+15]
	sep := w[2]
	return (w[5]^sep)|(w[8]^sep)|(w[11]^sep)|(w[14]^sep) == 0 && piiClass[w[0]]&piiClass[w[1]]&piiClass[w[3]]&piiClass[w[4]]&pcHex != 0
}

// keyPair is, for the last letter of a key that may name a secret, the
// letters (bit c&31) that may come before it: passwo(r)d, pass(w)d,
// passphra(s)e, secr(e)t, tok(e)n, k(e)y, credenti(a)l. keyQuote,
// keyEscape and keySpace mark what may stand between the key and its ':'
// or '=': a quote, \" (JSON shown as text), spaces.
var keyPair, keyQuote, keyEscape, keySpace = func() (pair, quote, escape, space [256]uint32) {
	for _, p := range []string{"rd", "wd", "se", "et", "en", "ey", "al"} {
		for _, c := range []byte{p[1], p[1] - 'a' + 'A'} {
			pair[c] |= 1 << (p[0] & 31)
		}
	}
	quote['"'], quote['\''] = 1, 1
	escape['\\'] = 1
	space[' '], space['\t'] = 1, 1
	return
}()

// keyEndWorth is genericKeyEnd's cheap test for the bytes c3 c2 c1 before
// a ':' or '=': the key's last two letters fit, directly or inside quotes,
// or spaces come first (genericKeyEnd skips them).
func keyEndWorth(c3, c2, c1 byte) bool {
	return keyPair[c1]>>(c2&31)&1|keyQuote[c1]&(keyPair[c2]>>(c3&31)&1|keyEscape[c2])|keySpace[c1] != 0
}

// notDigit is 0 for an ASCII digit, 1 for any other byte.
var notDigit = func() (t [256]uint8) {
	for c := range t {
		if c < '0' || c > '9' {
			t[c] = 1
		}
	}
	return t
}()

// ssnWorth: the '-' at t is the first of ddd-dd-dddd (t+8 <= len(s)).
func ssnWorth(s string, t int) bool {
	if t < 3 {
		return false
	}
	w := s[t-3 : t+8]
	return w[6] == '-' && notDigit[w[0]]|notDigit[w[1]]|notDigit[w[2]]|notDigit[w[4]]|notDigit[w[5]]|notDigit[w[7]]|notDigit[w[8]]|notDigit[w[9]]|notDigit[w[10]] == 0
}

// labelSepWorth: a label may end before the ':' or '=' at t, as
// scanRecordedLabels tests it (a separator it would pass by at once is
// not recorded): two bytes or more before it, and a closing quote, bold
// mark, space or full stop before it, or a pair labelTail knows.
func labelSepWorth(s string, t int) bool {
	return t >= 2 && (labelPrev[s[t-1]] != 0 || labelTail(s[t-2], s[t-1]))
}

// labelPrev marks the bytes before a separator that labelEnd passes over
// or reads the label's end through (a full stop: "No.:").
var labelPrev = func() (t [256]uint8) {
	for _, c := range " \"'*." {
		t[c] = 1
	}
	return t
}()

// bearerWorth: "earer" in any case follows the B at t (t+6 <= len(s)).
func bearerWorth(s string, t int) bool {
	w := s[t+1 : t+6]
	return (w[0]|0x20)^'e'|(w[1]|0x20)^'a'|(w[2]|0x20)^'r'|(w[3]|0x20)^'e'|(w[4]|0x20)^'r' == 0
}
