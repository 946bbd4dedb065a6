package detect

import (
	"strings"
)

// The phone detector and the digit-run step that drives it and
// credit_card (manual 12), steps of the pass (detect.go);
// the byte classes and decisions they share are in pii.go.

// ---------------------------------------------------------------- phone

// phoneMaxGroups bounds the digit groups of one run that are considered
// together; a longer run (a space-separated table of numbers) is cut into
// pieces of this size.
const phoneMaxGroups = 24

// Separators between two digit groups of a phone run.
const (
	psSpace uint8 = 1 << iota
	psDash
	psDot
	psSlash
	psParen // a '(' or ')' is part of it
)

type phoneGroup struct {
	start, end int   // the digits
	sep        uint8 // separator before the group (0 for a run's first)
}

// stepDigits, at the first digit of a run, runs the phone and card steps
// that are due. Most runs (times, dates, ids, amounts) sit in a stretch of
// phone bytes with fewer than 7 digits from here, where neither a phone (7
// digits after '+', else 9) nor a card (13) can start: then both skip the
// stretch after this one walk.
func (p *pass) stepDigits(d int) {
	s := p.s
	n := len(s)
	e, digits := d, 0
	for e < n && digits < 7 {
		m := piiClass[s[e]]
		if m&pcPhone == 0 {
			break
		}
		digits += int(m & pcDigit) // pcDigit is bit 0
		e++
	}
	phone := p.on&(1<<detPhone) != 0 && d >= p.phoneNext
	card := p.on&(1<<detCard) != 0 && d >= p.cardNext
	if digits < 7 {
		if phone {
			p.phoneNext = e
		}
		if card {
			p.cardNext = e
		}
		return
	}
	if phone {
		p.stepPhone(d)
	}
	if card {
		p.stepCard(d)
	}
}

// stepPhone, at the first digit since the last run, finds telephone
// numbers (manual 12.9.2). A run is digit groups joined by one separator
// each: a space, '-', '.', '/', or parentheses around one group (with an
// optional space or dash after ')'); a leading '+' makes it international.
// When plain spaces cut the run, the longest valid number from its start is
// taken, then again from the group after it, so "020 7946 0958 2 items"
// still yields the number; but a number is never taken from the middle of
// a longer run of digit groups (an identifier's or an IBAN's digits), and
// nothing from a run glued to a word on its left ("DE89 3704 0044 …").
//
// International: '+' or 00, an assigned country code, then a national
// number valid for that country where the table knows it (phoneregions.go;
// 7–15 digits in all for the others, and 00 only with a known country).
//
// National: valid for one of the regions of the policy (p.regions), in a
// form people write: with its 0 (trunk prefix or, in Italy, part of the
// number) and an area code of the region's lengths, or an area code in
// parentheses, or without a 0 in one of the region's groupings (Spain
// "912 345 678", Denmark "32 12 34 56", NANP "415-555-0132"); a bare run
// of digits only after a phone word (phoneContext). Never dates, IPv4
// addresses, ddd-dd-dddd (SSN), ddddd-dddd (ZIP+4), dddddd-dddd (a
// personnummer or CPR), card numbers or one digit repeated.
func (p *pass) stepPhone(d int) {
	s := p.s
	n := len(s)
	// The stretch of phone bytes around the digit needs phoneMin digits
	// and a separator, or '+' and 7 digits, or a bare run of 8–12 digits
	// (phoneBare). (The count stops there: a long stretch is parsed a run
	// at a time, and must not be walked again for each.)
	q := d
	for q > p.phoneNext && piiClass[s[q-1]]&pcPhone != 0 {
		q--
	}
	min := p.phoneMin
	e, digits, plus := q, 0, 0
	for e < n && (digits < min || digits == e-q) {
		m := piiClass[s[e]]
		if m&pcPhone == 0 {
			break
		}
		digits += int(m & pcDigit) // pcDigit is bit 0
		plus |= int(m & pcPlus)
		e++
	}
	if digits == e-q {
		p.phoneNext = e
		p.stepBare(q, e)
		return
	}
	if digits < min && (plus == 0 || digits < 7) && (digits != 8 || !phoneContext(s, q)) {
		p.phoneNext = e
		return
	}
	// d is the first digit since phoneNext: the run starts there.
	var g [phoneMaxGroups]phoneGroup
	k := len(p.spans)
	p.phoneNext, p.spans = phoneRun(s, d, &g, p.spans, p.regions)
	p.tag(k, detPhone)
}

// phoneExtension returns the end of the extension written after a phone
// that ends at e ("415-555-0132 x204", "… ext. 12", "…x5"), else e: its
// digits are the person's line and must not stay in clear.
func phoneExtension(s string, e int) int {
	i := e
	if i < len(s) && s[i] == ' ' {
		i++
	}
	if i < len(s) && s[i]|0x20 == 'x' {
		i++
	} else if i+3 <= len(s) && foldHasPrefix(s[i:], "ext") {
		i += 3
		for _, c := range [...]byte{'.', ' '} {
			if i < len(s) && s[i] == c {
				i++
			}
		}
	} else {
		return e
	}
	j := i
	for j < len(s) && piiDigit(s[j]) {
		j++
	}
	if j == i || j-i > 6 || piiWordAt(s, j) {
		return e
	}
	return j
}

// stepBare looks at the bare run of digits s[a:e] (no separator, nothing
// but a non-phone byte before it) for a national number after a phone word.
func (p *pass) stepBare(a, e int) {
	if e-a < 8 || e-a > 12 {
		return
	}
	if phoneBare(p.s, a, e, p.regions) {
		p.emit(detPhone, a, e)
	}
}

// phoneBare reports whether the bare run s[a:e] of digits is a national
// number of a region of rs, not part of a longer token, with a phone word
// before it.
func phoneBare(s string, a, e int, rs regionSet) bool {
	if e-a < 8 || e-a > 12 || !piiNumStartOK(s, a) || !piiNumEndOK(s, e) || a > 0 && s[a-1] == '+' {
		return false
	}
	var buf [12]byte
	D := buf[:copy(buf[:], s[a:e])]
	ok := false
	for i := range phoneRegions {
		if rs&(1<<i) != 0 && phoneBareValid(&phoneRegions[i], D) {
			ok = true
			break
		}
	}
	// The phone word may stand further back than the word naming the
	// number ("Phone support ticket 4829103746", "Mobile order …").
	return ok && !phoneSameDigits(D) && phoneContext(s, a) && !phoneIDContext(s, a, e-a) && !phoneOtherNumberBefore(s, a)
}

// phoneBareValid reports whether the digits D, written without
// separators, are a national number of r.
func phoneBareValid(r *phoneRegion, D []byte) bool {
	switch {
	case D[0] == '0':
		switch r.zero {
		case pzTrunk:
			return D[1] != '0' && phoneNSNValid(r, D[1:])
		case pzKeep:
			return phoneNSNValid(r, D)
		}
		return false
	case r.nanp:
		if len(D) == 11 && D[0] == '1' {
			D = D[1:]
		}
		return phoneNSNValid(r, D)
	}
	if r.zero != pzNone {
		// Without its trunk prefix only in the forms people use (an Indian
		// mobile, a Brazilian number), and 11 digits at least: ten digits
		// from 1 are Unix times.
		lead := false
		for k := range r.forms {
			lead = lead || phoneLead(D, r.forms[k].lo, r.forms[k].hi)
		}
		if !lead || D[0] == '1' && len(D) < 11 {
			return false
		}
	}
	return phoneNSNValid(r, D)
}

// phoneWords are the words that make a bare run of digits after them a
// phone number (within phoneContextBytes): lower case, matched at the
// start of a word (or of a camelCase part) ignoring ASCII case; those
// ending in '.' must not be followed by a letter ("tel", not "telemetry").
var phoneWords = [...]string{
	"phone", "telephone", "téléphone", "telefon", "telefono", "teléfono", "telefone", "telefoon", "puhelin",
	"mobile", "mobil", "mobiel", "móvil", "matkapuhelin", "komórk", "movil", "handy", "portable", "cellulare", "celular", "cellphone",
	"whatsapp", "call", "ring", "contact", "電話", "电话", "手机", "手機", "携帯", "拨打", "联系", "連絡", "☎", "📞", "📱", "tel.", "tél.", "tlf.", "tfn.", "fax.", "cell.", "cel.", "puh.", "gsm.", "mob.",
	// Verbs of calling: "Appelez-moi au …", "Bel me op …", "Ligue para …",
	// "Chiamami al …", "Llame al …", "Ruf mich an unter …".
	"appel", "rappel", "bel.", "ligue", "chiam", "richiam", "llam", "anruf", "ruf.", "ringe", "soita", "回电", "致电", "来电",
	// Where one can be reached: "è reperibile al …", "joignable au …",
	// "erreichbar unter …", "can be reached at …", "nås på …".
	"reachable", "reached", "erreichbar", "joignable", "reperibil", "raggiungibil", "localizable", "bereikbaar",
	"contactable", "contactável", "kontakt", "nås", "tavoitettavissa",
	// Cyrillic and Greek, whose capitals the ASCII folding does not
	// reach; Korean.
	"телефон", "Телефон", "тел.", "Тел.", "моб.", "Моб.", "мобильный", "Мобильный",
	"τηλέφωνο", "Τηλέφωνο", "τηλ.", "Τηλ.", "κινητό", "Κινητό", "전화", "휴대폰", "핸드폰", "연락처",
	"связи", "звоните", "позвоните",
	// Arabic, Hebrew and Hindi (their prefixes written on: الجوال).
	"هاتف", "الهاتف", "جوال", "الجوال", "اتصل", "טלפון", "נייד", "טל.", "फ़ोन", "फोन", "मोबाइल",
	// with the prepositions Hebrew and Arabic write on (בטלפון, "by
	// phone"; بالهاتف, للجوال)
	"בטלפון", "לטלפון", "בנייד", "לנייד", "بالهاتف", "للهاتف", "بالجوال", "للجوال",
}

const phoneContextBytes = 32

// phoneContext reports whether one of the last two words within the
// phoneContextBytes before s[a] starts with a phone word ("Tel.:
// 0612345678", "Telefon privat 0612345678", `"phone":"0612345678"`; not
// `"phone":"…","created":1729387120`), or the third when the two after it
// are short, or capitalised after the word's colon ("Mon portable est le
// 0612345678", "call me on …", "Contact: John Smith, …"; not "Phone plan
// costs 123456789", "Handy-Vertrag Nr. 0171234567"). A word may hold two-byte letters (teléfono, är,
// tél.).
func phoneContext(s string, a int) bool {
	lo := max(a-phoneContextBytes, 0)
	words, wend, short, caps := 0, -1, true, true
	near := "" // the word nearest the number, when the phone word is not
	for i := a - 1; i >= lo && (words < 2 || words == 2 && (short || caps)); i-- {
		c := s[i]
		if c < 0x80 && piiClass[c]&(pcUpper|pcLower) == 0 {
			wend = -1
			continue
		}
		if wend < 0 {
			wend = i + 1
		}
		// A word starts at i: after a byte that is not a letter, or as an
		// upper-case letter after a lower-case one (customerPhone).
		if i > lo {
			b := s[i-1]
			if b >= 0x80 && c >= 0x80 || piiClass[b]&(pcUpper|pcLower) != 0 && !(piiClass[c]&pcUpper != 0 && piiClass[b]&pcLower != 0) ||
				i-1 > lo && piiLetter2(s[i-2], b) {
				// Inside a word. CJK text has no spaces between words:
				// a phone word may start at any of its characters
				// (联系电话, 请拨打电话).
				if c&0xf0 == 0xe0 && phoneWordStarts(s, i, a) {
					return true
				}
				continue
			}
		}
		// A third word: after short ones, or a label's before a name.
		if (words < 2 || short || s[wend] == ':' || s[wend] == ' ' && s[wend+1] == ':') && phoneWordStarts(s, i, a) {
			return (words == 0 || phoneMeasures.get(near) == 0) && !phoneMeasureBefore(s, i)
		}
		if words == 0 {
			near = s[i:wend]
		}
		words++
		short = short && wend-i <= 3
		caps = caps && piiClass[c]&pcUpper != 0
	}
	return false
}

// phoneMeasures are words that, after a phone word, make a label name a
// measure or a property of calls and phones, not a number to call ("Call
// volume: 12 345 678 901", "Phone model", "Anrufe gesamt", "Durée
// d'appel"): a number there is no phone by its context.
var phoneMeasures = newWordTable(func() map[string]uint16 {
	m := map[string]uint16{}
	for _, w := range strings.Fields(`volume volumes count counts duration durations length time times minutes mins seconds secs
		total totals sum id ids model models cost costs price prices rate rates charge charges fee fees
		log logs queue queues attempts tries score ratings rating stats statistics metric metrics average avg
		volumen anzahl dauer gesamt summe modell kosten preis gebühr gebühren zeit minuten sekunden
		durée duree nombre modèle modele coût cout coûts prix temps somme moyenne
		cantidad duración duracion modelo costo costos precio tiempo suma promedio
		durata modello costi prezzo tempo somma media quantità
		aantal duur kosten prijs tijd totaal gemiddelde
		quantidade duração duracao custo preço tempo média`) {
		m[w] = 1
	}
	return m
}(), true)

// phoneMeasureBefore reports whether the phone word at s[i] follows a
// measure word, alone or through a particle, with nothing but spaces
// between: "Durée d'appel", "Cantidad de llamadas", "Total calls" (the
// word order of the Romance languages and of English adjectives).
func phoneMeasureBefore(s string, i int) bool {
	e := i
	if e > 1 && s[e-1] == '\'' && s[e-2]|0x20 == 'd' && (e == 2 || s[e-3] == ' ') {
		e -= 2 // d'appel
	}
	for e > 0 && s[e-1] == ' ' {
		e--
	}
	b := e
	for b > 0 && (s[b-1] >= 0x80 || piiClass[s[b-1]]&(pcUpper|pcLower) != 0) {
		b--
	}
	if w := s[b:e]; len(w) >= 2 && len(w) <= 3 && strings.Contains(" de di da do des du del der van of ", " "+strings.ToLower(w)+" ") {
		e = b
		for e > 0 && s[e-1] == ' ' {
			e--
		}
		for b = e; b > 0 && (s[b-1] >= 0x80 || piiClass[s[b-1]]&(pcUpper|pcLower) != 0); b-- {
		}
	}
	return b < e && phoneMeasures.get(s[b:e]) != 0
}

// phoneOtherNumberBefore reports whether the label right before the run
// at st, one word or a word and its "number", "no.", "Nr." (a head of the
// key vocabulary), names another kind of number (kNumber: Invoice,
// Order no., Bestell-Nr., Número de pedido): a number of a phone's shape
// there is that number, no phone ("Invoice 943 476 5910": an NHS-shaped
// invoice number is no US phone). Identifiers are phoneIDContext's.
func phoneOtherNumberBefore(s string, st int) bool {
	e := st
	// Back over what stands between a label and its number.
	for e > 0 && (s[e-1] == ' ' || s[e-1] == ':' || s[e-1] == '#' || s[e-1] == '.') {
		e--
	}
	i := labelWordBefore(s, e)
	if i == e {
		return false
	}
	if classifyKey(s[i:e], nil).class() == kNumber {
		return true
	}
	var k normKey
	if !k.set(s[i:e]) || k.nw != 1 || !vocabHas(k.b[:k.n], inKeyHeads) {
		return false
	}
	// A head: the word before it with it (Invoice number, Order no).
	j := i
	for j > 0 && s[j-1] == ' ' {
		j--
	}
	h := labelWordBefore(s, j)
	return h < j && classifyKey(s[h:e], nil).class() == kNumber
}

// labelWordBefore is where the word of a label ending at e starts (e when
// none does): letters and inner hyphens, at most 24 bytes, not glued to
// more letters before.
func labelWordBefore(s string, e int) int {
	i := e
	for i > 0 && e-i < 24 && (piiClass[s[i-1]]&(pcUpper|pcLower) != 0 || s[i-1] == '-' || s[i-1] >= 0x80) {
		i--
	}
	if e-i >= 24 || i > 0 && piiClass[s[i-1]]&(pcUpper|pcLower) != 0 {
		return e
	}
	return i
}

// dropMistypedIDs removes from dst[k:] the numbers phoneIDContext says
// are identifiers (not those written with "+").
func dropMistypedIDs(s string, dst []Span, k int) []Span {
	out := k
	for _, sp := range dst[k:] {
		digits := 0
		for i := sp.Start; i < sp.End; i++ {
			if isDigit(s[i]) {
				digits++
			}
		}
		if s[sp.Start] != '+' && phoneIDContext(s, sp.Start, digits) {
			continue
		}
		dst[out] = sp
		out++
	}
	return dst[:out]
}

// phoneIDContext reports whether a number of digits digits at a has the
// length of an identifier (idDefs) whose context word ends within
// idWindow bytes before it, with no phone word after that word: an
// identifier whose check failed (its own detector did not take it) is a
// mistyped identifier, no phone ("Your TFN is 270 343 024", "NHS-Nummer
// des Patienten: 554 805 1939"). ABA routing numbers are left out: their
// words (account, bank, wire) are no identifier's alone.
func phoneIDContext(s string, a, digits int) bool {
	if digits > idMaxChars {
		return false
	}
	lo := max(0, a-idWindow)
	at := -1
	var starts wordStarts
	starts.read(s, lo, a)
	for _, k := range idByLen[digits] {
		d := &idDefs[k]
		if d.det == detABARouting {
			continue
		}
		for _, w := range d.words {
			if w == "tfn" && s[a] == '0' {
				continue // Swedish tfn (telefon) before a national number
			}
			if starts.may(w) {
				at = max(at, lastWord(s, lo, a, w))
			}
		}
	}
	if at < 0 {
		return false
	}
	// A phone word after the identifier's: "NHS 943 476 5919, ward phone
	// 020 7946 0958".
	for i := at; i < a; i++ {
		if piiClass[s[i]]&(pcUpper|pcLower) != 0 && piiClass[s[i-1]]&(pcUpper|pcLower) == 0 {
			for _, w := range phoneWords {
				if w != "tfn." && phoneWordAt(s, i, a, w) {
					return false
				}
			}
		}
	}
	return true
}

// phoneWordsByFirst holds, per byte, the indexes of the phoneWords that
// start with it: a word start tries those alone, not all of them.
var phoneWordsByFirst = func() (t [256][]uint8) {
	for k, w := range phoneWords {
		t[w[0]] = append(t[w[0]], uint8(k))
	}
	return t
}()

// phoneWords must fit phoneWordsByFirst's indexes.
const _ = uint(256 - len(phoneWords))

// phoneWordStarts reports whether a phone word is at s[i:], before a.
func phoneWordStarts(s string, i, a int) bool {
	c := s[i]
	if c-'A' < 26 {
		c += 'a' - 'A'
	}
	for _, k := range phoneWordsByFirst[c] {
		if phoneWordAt(s, i, a, phoneWords[k]) {
			return true
		}
	}
	return false
}

// phoneWordAt reports whether w (see phoneWords) is at s[i:], before a.
func phoneWordAt(s string, i, a int, w string) bool {
	short := w[len(w)-1] == '.'
	if short {
		w = w[:len(w)-1]
	}
	if i+len(w) > a {
		return false
	}
	for k := 0; k < len(w); k++ {
		c := s[i+k]
		if c-'A' < 26 {
			c += 'a' - 'A'
		}
		if c != w[k] {
			return false
		}
	}
	return !short || i+len(w) == a || piiClass[s[i+len(w)]]&(pcUpper|pcLower) == 0
}

// phoneRun parses the run whose first digit is s[i] into g, appends the
// phones in it to dst and returns where the run ends.
// A phone's extension is part of it (phoneExtension).
func phoneRun(s string, i int, g *[phoneMaxGroups]phoneGroup, dst []Span, rs regionSet) (int, []Span) {
	k := len(dst)
	end, dst := phoneRunAt(s, i, g, dst, rs, true)
	if len(dst) == k {
		if a, b := phoneWritten(s, i); b > a {
			dst = append(dst, Span{a, b})
			end = max(end, b)
		}
	}
	for x := k; x < len(dst); x++ {
		if e := phoneExtension(s, dst[x].End); e > dst[x].End {
			dst[x].End = e
			end = max(end, e)
		}
	}
	return end, dst
}

// phoneWritten is the span of a number no region's plan knows whose first
// digit is s[i], when a phone word stands before it and it is written as
// a phone (a faker's or a test system's: "Meu telefone é (30)
// 48977-2600", Brazil has no area code 30): 9 to 15 digits in groups
// (not bare, which phoneBare judges; not joined by dots, which the pass
// leaves to dottedRunEnd), a '+' or '(' before them, phoneShaped; not
// right after another kind of number's word, nor an identifier's (as a
// bare run after a phone word). Else a == b.
func phoneWritten(s string, i int) (a, b int) {
	a = i
	if a > 0 && (s[a-1] == '+' || s[a-1] == '(') {
		a--
		if a > 0 && s[a] == '+' && s[a-1] == '(' {
			a--
		}
	}
	b = phoneEnd(s, a)
	// Not the head or tail of a longer token (a '(' or '+' may follow a
	// word: "Phone(30) 48977-2600" joined from two items).
	if !piiNumEndOK(s, b) || a == i && !piiNumStartOK(s, a) {
		return a, a
	}
	digits, groups := 0, 1
	for k := a; k < b; k++ {
		switch c := s[k]; {
		case c-'0' < 10:
			digits++
		case c == '.':
			return a, a
		case k > a && s[k-1]-'0' >= 10 && !phoneSepPair(s[k-1], c):
			// Two separators in a row end a number ("000000  001"), as
			// they end a run's groups, but for a bracket's and a spaced
			// slash's.
			return a, a
		case c == ' ' || c == '-' || c == '/':
			groups++
		}
	}
	if digits < 9 || digits > 15 || groups < 2 && s[a] != '+' && s[a] != '(' || !phoneShaped(s[a:b]) {
		return a, a
	}
	if !phoneContext(s, a) || phoneOtherNumberBefore(s, a) || phoneIDContext(s, a, digits) {
		return a, a
	}
	return a, b
}

// phoneSepPair reports whether separators x then y may stand together in
// a phone number: a bracket and a space or dash ("(30) 4897", ")-"), a
// '+' in a bracket ("(+44)"), a spaced slash ("089 / 123").
func phoneSepPair(x, y byte) bool {
	switch {
	case x == ')' && (y == ' ' || y == '-'), y == '(' && (x == ' ' || x == '-'), x == '(' && y == '+':
		return true
	}
	return x == ' ' && y == '/' || x == '/' && y == ' '
}

// phoneRunAt is phoneRun; leadParen: a '(' just before the run (or its
// '+') may open an area code. When that group does not close, the '('
// wraps the whole number, "(090-1234-5678)", and the run is read again
// without it: a number in brackets is judged as the same number.
func phoneRunAt(s string, i int, g *[phoneMaxGroups]phoneGroup, dst []Span, rs regionSet, leadParen bool) (int, []Span) {
	n := len(s)
	st, plus, paren, inParen := i, false, -1, false
	if i > 0 {
		switch s[i-1] {
		case '+':
			st, plus = i-1, true
			if i > 1 && s[i-2] == '(' && leadParen { // (+44) 20 7946 0958
				st, paren, inParen = i-2, 0, true
			}
		case '(':
			if leadParen {
				st, paren, inParen = i-1, 0, true
			}
		}
	}
	ng, valid, digits := 0, true, 0
	j := i
	var sep uint8
	for {
		gs := j
		for j < n && piiDigit(s[j]) {
			j++
		}
		g[ng] = phoneGroup{gs, j, sep}
		ng++
		digits += j - gs
		k := j
		var f uint8
		if inParen {
			if k >= n || s[k] != ')' {
				valid = false
				break
			}
			k++
			inParen = false
			f = psParen
		}
		if k < n {
			switch s[k] {
			case ' ':
				f |= psSpace
				k++
				// "089 / 1234567": the area code after its 0 set off by a
				// spaced slash (DIN 5008's older form).
				if ng == 1 && s[gs] == '0' && k+1 < n && s[k] == '/' && s[k+1] == ' ' {
					f = psSlash // read as "089/1234567"
					k += 2
				}
			case '-':
				f |= psDash
				k++
			case '.':
				f |= psDot
				k++
			case '/':
				f |= psSlash
				k++
			}
		}
		if paren < 0 && k+1 < n && s[k] == '(' && piiDigit(s[k+1]) {
			f |= psParen
			k++
			inParen, paren = true, ng
		}
		if k == j || k >= n || !piiDigit(s[k]) || ng == phoneMaxGroups {
			break
		}
		sep = f
		j = k
	}
	if !valid && paren == 0 && ng == 1 {
		return phoneRunAt(s, i, g, dst, rs, false)
	}
	if digits < 7 {
		return j, dst
	}
	switch {
	case paren >= ng:
		paren = -1 // cut at phoneMaxGroups before the '(' group
	case paren >= 0 && (!valid || paren == ng-1):
		// "(415 555", "… (24h)", "(415) abc": the parenthesised group is
		// not part of a phone; what came before it may be.
		if paren == 0 {
			return j, dst
		}
		ng, paren = paren, -1
	case !valid:
		return j, dst
	}
	if ng == 1 && !plus {
		if paren < 0 && phoneBare(s, st, g[0].end, rs) {
			dst = append(dst, Span{st, g[0].end})
		}
		return j, dst
	}
	k := len(dst)
	dst = phoneCandidates(s, g[:ng], st, plus, paren, dst, rs)
	return j, dropMistypedIDs(s, dst, k)
}

// phoneCandidates tries the run g and appends the phones it finds: the
// whole run, or, where plain spaces cut it, the longest valid number from
// its start, then from the group after that number, and so on.
func phoneCandidates(s string, g []phoneGroup, st int, plus bool, paren int, dst []Span, rs regionSet) []Span {
	ng := len(g)
	if piiWordBefore(s, st) {
		return dst // the tail of a word ("DE89 3704 0044 …"): no phone in it
	}
	if !plus && (phoneAfterIBANGroup(s, st) || phoneGlued(s, st-1, st-2) && !(s[st-1] == ':' && phoneContext(s, st-1))) {
		return dst // "NL91 ABNA 0417 1643 00", "…-5805-4053-ab78-…" (a UUID); not "TEL:06-4209-3447" (TEL：, read as ':')
	}
	if !plus && st > 0 && (phoneOtherNumberBefore(s, st) || idAssigned(s, st)) {
		return dst // "Invoice 943 476 5910", "SIN 046 454 287", "node-id=0161-67381": another kind of number
	}
	startOK := plus || piiNumStartOK(s, st)
	cuts := false
	for x := 1; x < ng; x++ {
		cuts = cuts || g[x].sep == psSpace
	}
	if !cuts { // the whole run or nothing (most runs)
		if e := g[ng-1].end; !startOK || !phoneEndOK(s, e) {
			return dst
		}
		d := 0
		for x := range g {
			d += g[x].end - g[x].start
		}
		if d <= 17 && phoneValid(s, g, plus, paren, d, rs, true) {
			dst = append(dst, Span{st, g[ng-1].end})
		}
		return dst
	}
	// Tokens are groups joined by anything but a plain space. A number
	// starts at the run's first token, after a number found, or after a
	// token that is no part of one: a date or time ("2024-01-15 020 7946
	// 0958"), a token glued to what is before the run ("12:30 415 555
	// 0132"). Never after a lone group: "1 85 05 78 006 084 36" (a French
	// NIR) holds no phone.
	for a := 0; a < ng; {
		if a > 0 || startOK {
			if b := phoneLongest(s, g, st, plus, paren, rs, a); b >= 0 {
				start := g[a].start
				if a == 0 {
					start = st
				}
				dst = append(dst, Span{start, g[b].end})
				a = b + 1
				continue
			}
		}
		t := a
		for t+1 < ng && g[t+1].sep != psSpace {
			t++
		}
		if t == a && (a > 0 || startOK) {
			break
		}
		a = t + 1
	}
	return dst
}

// idAssigned reports whether s[st] follows an id's assignment: "id=",
// "node-id=", "nodeId=", "user_id=" (a query string's, a log's).
func idAssigned(s string, st int) bool {
	if st < 3 || s[st-1] != '=' || s[st-2]|0x20 != 'd' || s[st-3]|0x20 != 'i' {
		return false
	}
	return st == 3 || s[st-3] == 'I' || piiClass[s[st-4]]&(pcUpper|pcLower) == 0
}

// phoneEndOK: a number ending at e is not the head of a longer token,
// or what is glued to it is its extension ("489-068-2883x607").
func phoneEndOK(s string, e int) bool {
	return piiNumEndOK(s, e) && !phoneGlued(s, e, e+1) || phoneExtension(s, e) > e
}

// phoneAfterIBANGroup reports whether s[st] follows a space and a group
// of four capitals and digits, as the digits of a printed IBAN do ("NL91
// ABNA 0417 1643 00").
func phoneAfterIBANGroup(s string, st int) bool {
	if st < 5 || s[st-1] != ' ' || st > 5 && piiClass[s[st-6]]&pcWord != 0 {
		return false
	}
	w := s[st-5 : st-1]
	return piiClass[w[0]]&piiClass[w[1]]&piiClass[w[2]]&piiClass[w[3]]&pcIBAN != 0 &&
		(piiClass[w[0]]|piiClass[w[1]]|piiClass[w[2]]|piiClass[w[3]])&pcUpper != 0
}

// phoneGlued reports whether s[i] is a '-', '.', '/' or ':' that joins
// a number to a letter at s[j] ("ab78-5805-4053-a716": a UUID).
func phoneGlued(s string, i, j int) bool {
	return i >= 0 && j >= 0 && j < len(s) && piiClass[s[i]]&pcGlue != 0 && piiClass[s[j]]&(pcUpper|pcLower) != 0
}

// phoneLongest returns the last group of the number of g that starts at
// group a and ends before a plain space, or at the run's end: the longest,
// but not one that only adds a group of one or two digits to a number
// ending in a longer group ("020 7946 0958 24 hours"). -1 if none.
func phoneLongest(s string, g []phoneGroup, st int, plus bool, paren int, rs regionSet, a int) int {
	ng := len(g)
	best, d := -1, 0
	for b := a; b < ng; b++ {
		d += g[b].end - g[b].start
		if d > 17 {
			break
		}
		if b+1 < ng && g[b+1].sep != psSpace {
			continue
		}
		if e := g[b].end; b+1 == ng && !phoneEndOK(s, e) {
			continue
		}
		if best >= 0 && g[b].end-g[b].start <= 2 && g[best].end-g[best].start > 3 {
			continue
		}
		p := -1
		if paren >= a && paren <= b {
			p = paren - a
		}
		if phoneValid(s, g[a:b+1], plus && a == 0, p, d, rs, b+1 == ng) {
			best = b
		}
	}
	return best
}

// phoneValid applies the rules of stepPhone to groups g (two or more, or
// one after '+') holding d digits; paren is the index of the
// parenthesised group or -1; last says g ends the run, where the forms
// without a 0 may be read (they are not taken from the head of a longer
// run of digit groups).
func phoneValid(s string, g []phoneGroup, plus bool, paren, d int, rs regionSet, last bool) bool {
	var buf [17]byte
	D := buf[:0]
	for x := range g {
		D = append(D, s[g[x].start:g[x].end]...)
	}
	if plus {
		// After a phone word, any number of an assigned country code and
		// E.164's length: the word says what the digits are, where the
		// table would want a valid national number.
		return phoneIntl(D) || len(D) >= 8 && len(D) <= 15 && phoneCountryCode(D) > 0 && !phoneSameDigits(D) && phoneContext(s, g[0].start-1)
	}
	if len(g) < 2 || !phoneShape(s, g, paren) || phoneSameDigits(D) {
		return false
	}
	if D[0] == '0' && D[1] == '0' {
		cc := phoneCountryCode(D[2:])
		if cc == 0 {
			return false
		}
		r := phoneRegionByCC(D[2 : 2+cc])
		return r != nil && phoneNSNIntl(r, D[2+cc:])
	}
	if d < 8 || d > 13 {
		return false
	}
	for i := range phoneRegions {
		if rs&(1<<i) != 0 && phoneNational(&phoneRegions[i], s, g, paren, D, last) {
			return true
		}
	}
	return false
}

// phoneIntl reports whether the digits after a '+' are a phone number: an
// assigned country code, then a valid national number where the table
// knows the country, else 7–15 digits in all (E.164).
func phoneIntl(D []byte) bool {
	if len(D) < 7 || len(D) > 15 || phoneSameDigits(D) {
		return false
	}
	cc := phoneCountryCode(D)
	if cc == 0 {
		return false
	}
	if r := phoneRegionByCC(D[:cc]); r != nil {
		return phoneNSNIntl(r, D[cc:])
	}
	return true
}

// phoneNSNIntl reports whether nsn, written after r's country code, is a
// valid number of r: a trunk 0 written there too ("+44 (0)20 …", "+49
// 030 …") is forgiven.
func phoneNSNIntl(r *phoneRegion, nsn []byte) bool {
	if len(nsn) > 1 && nsn[0] == '0' && r.zero == pzTrunk {
		nsn = nsn[1:]
	}
	return phoneNSNValid(r, nsn)
}

// phoneShape applies the rules every national number's groups meet.
func phoneShape(s string, g []phoneGroup, paren int) bool {
	k := len(g)
	first := g[0].start
	l0 := g[0].end - first
	if paren >= 0 {
		// "0 (532) 123 45 67"; Japan's "03(1234)5678", the local number
		// in brackets between the area code and the line, glued.
		jp := paren == 1 && k == 3 && s[first] == '0' && g[2].sep == psParen && l0 <= 5
		if g[paren].end-g[paren].start > 5 || paren > 1 || paren == 1 && !jp && (l0 != 1 || s[first] != '0' && s[first] != '1') {
			return false
		}
	}
	var seps uint8
	for x := range g {
		if g[x].end-g[x].start > 8 {
			return false
		}
		seps |= g[x].sep
	}
	if g[k-1].end-g[k-1].start < 2 {
		return false
	}
	// Belgium's "02/123.45.67", "0470/12.34.56", "0470/12 34 56": the
	// area code or mobile prefix after its 0 and a slash, the rest in
	// dotted or spaced groups.
	beSlash := (seps == psSlash|psDot || seps == psSlash|psSpace) && k >= 3 && g[1].sep == psSlash && s[first] == '0'
	for x := 2; beSlash && x < k; x++ {
		beSlash = g[x].sep != psSlash // one slash: "01/02/2024 12" is a date
	}
	if seps&psDot != 0 && seps != psDot && !beSlash {
		return false
	}
	if beSlash {
		return true
	}
	if seps&psSlash != 0 && (seps != psSlash || k != 2 || s[first] != '0') {
		return false
	}
	switch {
	case seps == psDot && k == 2 && s[first] != '0' && (first == 0 || s[first-1] != '+'):
		return false // 2000.0000, 9123.4567: a decimal number (a JSON number's reading)
	case seps == psDot && k == 4 && phoneLens(g, 3, 3, 3, 3, true):
		return false // 10.120.33.200
	case seps == psDash && k == 3 && phoneLens(g, 3, 2, 4, 0, false):
		return false // ddd-dd-dddd: us_ssn
	case seps == psDash && k == 2 && phoneLens(g, 5, 4, 0, 0, false):
		return false // ZIP+4
	case seps == psDash && k == 2 && phoneLens(g, 6, 4, 0, 0, false):
		return false // yymmdd-nnnn, ddmmyy-nnnn: a personnummer, a CPR
	case k >= 3 && phoneDate(s, g):
		return false
	case seps == psDash && k == 2 && phoneLens(g, 4, 4, 0, 0, false) && yearRange(s[first:first+4], s[g[1].start:g[1].end]):
		return false // 2019-2020: a span of years (Hong Kong writes dddd dddd)
	}
	return true
}

// yearRange reports whether a and b, four digits each, read as a span of
// years: both from 1900 to 2099, b from a to a+30.
func yearRange(a, b string) bool {
	y := func(t string) int { return int(t[0]-'0')*1000 + int(t[1]-'0')*100 + int(t[2]-'0')*10 + int(t[3]-'0') }
	ya, yb := y(a), y(b)
	return ya >= 1900 && ya <= 2099 && yb >= ya && yb <= ya+30
}

// phoneNational reports whether groups g (digits D, parenthesised group
// paren or -1) are a national number of r in a form people write; last:
// g ends its run.
func phoneNational(r *phoneRegion, s string, g []phoneGroup, paren int, D []byte, last bool) bool {
	k := len(g)
	l0 := g[0].end - g[0].start
	if D[0] == '0' {
		// Nine digits at least, or eight after a phone word (Stockholm's
		// "08-15 00 08").
		if r.zero == pzNone || len(D) < 8 || len(D) == 8 && !phoneContext(s, g[0].start) {
			return false
		}
		nsn := D[1:]
		if r.zero == pzKeep {
			nsn = D
		}
		if !phoneNSNValid(r, nsn) {
			return false
		}
		switch {
		case paren == 1: // 0 (532) 123 45 67
		case l0 == 1: // 0 532 123 45 67
			if k < 3 || g[1].end-g[1].start != 3 {
				return false
			}
		case l0 > int(r.maxFirst):
			return false
		}
		if r.pairs {
			for x := range g {
				if g[x].end-g[x].start != 2 {
					return false
				}
			}
		}
		return true
	}
	if r.nanp {
		// [1] NXX NXX XXXX
		h := g
		if k == 4 && l0 == 1 && D[0] == '1' {
			h, D = g[1:], D[1:]
		}
		// After a phone word, any 3-3-4 (test data's exchange 068).
		return len(h) == 3 && phoneLens(h, 3, 3, 4, 0, false) && (phoneNSNValid(r, D) || phoneContext(s, g[0].start))
	}
	if !last || paren > 0 || !phoneNSNValid(r, D) {
		return false
	}
	for x := range r.forms {
		f := &r.forms[x]
		if len(f.groups) != k || paren == 0 && !f.paren || !phoneLead(D, f.lo, f.hi) || f.spaced && g[1].sep&(psSpace|psParen) == 0 {
			continue
		}
		ok := true
		for y := range g {
			ok = ok && g[y].end-g[y].start == int(f.groups[y]-'0')
		}
		if ok && !phoneAmount(s, g[0].start, g[k-1].end) {
			return true
		}
	}
	return false
}

// phoneAmount reports whether the digits s[a:e] read as an amount or a
// quantity: a currency sign before them, a currency sign, code or '%'
// after them ("912 345 678 EUR", "€ 612 345 678"), or decimals.
func phoneAmount(s string, a, e int) bool {
	if e+1 < len(s) && (s[e] == ',' || s[e] == '.') && piiDigit(s[e+1]) {
		return true // its decimals: "641 795 628,56 €", "819.205.565,30"
	}
	if a > 0 && s[a-1] == ' ' {
		a--
	}
	if a > 0 && s[a-1] == '$' || phoneCurrency(s[max(a-3, 0):a], true) {
		return true
	}
	if e < len(s) && s[e] == ' ' {
		e++
	}
	if e >= len(s) {
		return false
	}
	if c := s[e]; c == '$' || c == '%' || phoneCurrency(s[e:min(e+3, len(s))], false) ||
		strings.HasPrefix(s[e:], "zł") || strings.HasPrefix(s[e:], "kr") {
		return true
	}
	// A currency code: three capitals, not a word's start (EUR, PLN, DKK).
	return e+3 <= len(s) && piiClass[s[e]]&piiClass[s[e+1]]&piiClass[s[e+2]]&pcUpper != 0 &&
		(e+3 == len(s) || piiClass[s[e+3]]&(pcUpper|pcLower) == 0)
}

// phoneCurrency reports whether w ends (end) or starts with €, £ or ¥.
func phoneCurrency(w string, end bool) bool {
	for _, c := range [...]string{"€", "£", "¥"} {
		if end && strings.HasSuffix(w, c) || !end && strings.HasPrefix(w, c) {
			return true
		}
	}
	return false
}

// phoneSameDigits reports whether D is one digit repeated.
func phoneSameDigits(D []byte) bool {
	for _, c := range D {
		if c != D[0] {
			return false
		}
	}
	return true
}

// phoneLens reports whether the groups have these lengths (up to four;
// 0 ends the list); with atMost, lengths are maxima.
func phoneLens(g []phoneGroup, l0, l1, l2, l3 int, atMost bool) bool {
	want := [4]int{l0, l1, l2, l3}
	for x := range g {
		if x >= 4 || want[x] == 0 {
			return false
		}
		l := g[x].end - g[x].start
		if l > want[x] || !atMost && l != want[x] {
			return false
		}
	}
	return len(g) == 4 || want[len(g)] == 0
}

// phoneDate reports whether the first three groups read as a date:
// dd mm yyyy, mm dd yyyy or yyyy mm dd.
func phoneDate(s string, g []phoneGroup) bool {
	v := [3]int{}
	l := [3]int{}
	for x := 0; x < 3; x++ {
		l[x] = g[x].end - g[x].start
		if l[x] > 4 {
			return false
		}
		for q := g[x].start; q < g[x].end; q++ {
			v[x] = v[x]*10 + int(s[q]-'0')
		}
	}
	year := func(y int) bool { return y >= 1900 && y <= 2099 }
	day := func(x int) bool { return x >= 1 && x <= 31 }
	switch {
	case l[0] == 2 && l[1] == 2 && l[2] == 4:
		return day(v[0]) && day(v[1]) && year(v[2])
	case l[0] == 4 && l[1] == 2 && l[2] == 2:
		return year(v[0]) && v[1] >= 1 && v[1] <= 12 && day(v[2])
	}
	return false
}
