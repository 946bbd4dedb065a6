package detect

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Street addresses (manual 12.9.4): a street line (a house number and a
// street-type word, or a street name with a house number and a postcode
// after it) with what follows it of the same address: flat or unit,
// district and city, state or province, postcode, city. The span is the
// whole address, so that nothing of it is left in clear.
//
// The scan visits each digit run (no digit, no address) and tries, in
// order:
//
//   - a Japanese address: 〒 and its postcode, the prefecture, city and
//     ward (都道府県, 市区町村) and the block numbers (1-2-3, 1丁目2番3号);
//   - a street line with the house number first ("221B Baker Street",
//     "12 rue de la Paix", "1600 Pennsylvania Avenue NW") or last
//     ("Hauptstraße 12", "Calle Mayor 5", "ul. Marszałkowska 1",
//     "Kerkstraat 1"), then its tail (addrTail);
//   - a postcode after a label (PIN, ZIP, PLZ, CEP, Postcode, 〒…), or a
//     British or Canadian postcode after a city, with the street line
//     before it when there is one.
//
// A street name without a type word is an address only with a postcode
// of its country's shape after it; a type word only English tables have
// (Village, Park, View…) too. A postcode alone or a postcode-shaped
// number with a city alone ("10115 Berlin") is not reported, nor a street
// without a house number ("Baker Street station", "Main Street").

// scanAddresses reports the addresses of p.s.
func (p *pass) scanAddresses() { p.scanDigits(addrStepOn) }

// addrStep is scanAddresses' visit of the digit run at i: it reports the
// address the run belongs to, extending the last one it overlaps, and
// returns where the next visit may be.
func (p *pass) addrStep(i int, last *addrLast) int {
	s := p.s
	a, b := addressAt(s, i)
	if b <= a {
		return skipDigits(s, i)
	}
	if a < last.end {
		// Overlaps the last one: extend it.
		sp := &p.spans[last.k]
		if b > sp.End {
			sp.End = b
		}
		if a < sp.Start {
			sp.Start = a
		}
	} else {
		last.k = len(p.spans)
		p.emitBy(detStreetAddress, BasisPattern, a, b)
	}
	last.end = max(last.end, b)
	return b
}

// addrLast is the last address addrStep reported: its index in p.spans
// and the end of what it covers (-1 before the first).
type addrLast struct{ k, end int }

// addressesClean reports whether s holds no ASCII digit.
func addressesClean(s string) bool { return nextDigit(s, 0) == len(s) }

// addressShape reports whether s, trimmed of spaces and a final period,
// is one street address as the scan finds them, for the keys' walk: an
// address key's value must look like one.
func addressShape(s string) bool {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, ".")
	if cjkStreetShape(s) {
		return true // 孔旁7号, 西安街A座: the key proves a weak street type
	}
	if addressesClean(s) {
		return false
	}
	for i := nextDigit(s, 0); i < len(s); i = nextDigit(s, skipDigits(s, i)) {
		if a, b := addressAt(s, i); b > a {
			if a == 0 && b == len(s) {
				return true
			}
			continue // a part (a run later may read the whole)
		}
		if a, b := scriptAddressIn(s, i, true); a == 0 && b == len(s) {
			return true // a street's name and number first (כהנא 37, עלי זהב, 2223878)
		}
	}
	return false
}

// postcodeShape reports whether s, trimmed of spaces, is a postcode of
// one of the formats the scan reads (with a country prefix such as D- or
// SE-, or 〒): five digits (US, DE, FR, ES, IT, FI), ZIP+4, four (AU, DK,
// NL with its letters, BE, AT, CH), 111 51 (SE), 00-624 (PL), 01304-000
// (BR), 1100-148 (PT), six (IN, SG), 100-0001 (JP), GB and CA formats.
// Shape only: 12345 is a postcode in this sense.
func postcodeShape(s string) bool {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "〒")
	s = strings.TrimSpace(s)
	j := countryPrefix(s, 0)
	e, ok := postcodeAt(s, j, false)
	if j < len(s) && !isDigit(s[j]) {
		e, ok = letterPostcode(s, j, true) // alone, a real one
	}
	return ok && e == len(s)
}

// addressAt returns the address the digit run at i belongs to, or a
// span with b <= a.
func addressAt(s string, i int) (a, b int) {
	// What stands before the digits decides what they may start: most
	// digit runs of a message are glued to letters or punctuation (ids,
	// hex, versions, JSON numbers) and start nothing.
	if i > 0 {
		switch c := s[i-1]; {
		case c-'a' < 26:
			return 0, 0
		case c-'A' < 26:
			return postcodeAnchor(s, i) // NW1 6XE, K1A 0B1
		case c == '-':
			if i >= 2 && s[i-2]-'A' < 26 {
				return postcodeAnchor(s, i) // D-10115
			}
			if i >= 2 && s[i-2] >= 0x80 {
				return scriptAddress(s, i) // चित्रकूट-678169
			}
			return 0, 0
		case c == '_' || c == '.' || c == '=' || c == '+' || c == '$' || c == '@' || c == '%' || c == '&' || c == '\\':
			return 0, 0
		case c == ':' || c == '[' || c == '{':
			if c == ':' && i >= 2 && wordByte(s[i-2]) {
				return postcodeAnchor(s, i) // PIN:110001
			}
			return 0, 0
		}
	}
	if a, b := cjkAddress(s, i); b > a {
		return a, b // address_cjk.go
	}
	if a, b := numberFirst(s, i); b > a {
		// "Rua Augusta 100, São Paulo - SP, 01305-000": the number also
		// ends a street named before it; the address is both, or the
		// street's name is left in clear.
		if a2, b2 := numberAfter(s, i); b2 > a2 && a2 < a {
			return a2, max(b, b2)
		}
		return a, b
	}
	if a, b := numberAfter(s, i); b > a {
		if a > 2 && (s[a-2] == ',' || s[a-1] == '\n') {
			// The district of a street before it: Rua Correia, Vila
			// Maloca, 76174-093 Cardoso / DF.
			if a2, b2 := snAddress(s, i); b2 > a2 && a2 < a {
				return a2, max(b, b2)
			}
		}
		return a, b
	}
	if a, b := snAddress(s, i); b > a {
		return a, b
	}
	if a, b := postcodeAnchor(s, i); b > a {
		return a, b
	}
	if a, b := koreanAddress(s, i); b > a {
		return a, b // address_scripts.go
	}
	if a, b := scriptAddress(s, i); b > a {
		return a, b // address_scripts.go
	}
	if a, b := scriptAddressAfter(s, i); b > a {
		return a, b // address_scripts.go
	}
	return wordedAddress(s, i)
}

// addressWords say that an address follows them, in the languages whose
// streets the tables above do not read (Russian, Hebrew, Arabic, Korean,
// Hindi): по адресу, לכתובת, العنوان, 주소, पता; with Hebrew's and
// Arabic's prefixes written on.
var addressWords = []string{"адресу", "адрес", "адреса", "לכתובת", "בכתובת", "כתובת", "العنوان", "عنوان", "بالعنوان", "주소", "पता", "पते"}

// wordedAddress is the address that the digit run at i belongs to, read
// after an address word within 80 bytes before it (addressWords) with no
// sentence end between: from the word (or a colon after it) to the end
// of its sentence, at most 160 bytes. "…по адресу 790482, г. Нижний
// Тагил, Черноморская ал., 502." is the postcode, the city, the street
// and the house; a street of these scripts has no type word the tables
// know.
func wordedAddress(s string, i int) (int, int) {
	// Only runs after a space or a letter of those scripts: what the
	// scan's filter of digit runs lets through (addrBefore); a run after
	// '(' or ',' is inside what a run before it began.
	if c := s[max(0, i-1)]; i == 0 || c < 0x80 && (c != ' ' || !addrWorth(s, i, addrSpace)) {
		return 0, 0
	}
	// The words are not ASCII: a window of ASCII (most text before a
	// number) has none, read eight bytes at a time.
	lo := max(0, i-80)
	j := lo
	for ; j+8 <= i && load64(s, j)&0x8080808080808080 == 0; j += 8 {
	}
	for ; j < i && s[j] < 0x80; j++ {
	}
	if j == i {
		return 0, 0
	}
	start := -1
	for k := i - 1; k >= lo && start < 0; k-- {
		if sentenceEnd(s, k) {
			return 0, 0
		}
		if s[k] < 0xC0 || k > 0 && wordByte(s[k-1]) {
			continue // a word starts at a non-ASCII letter's first byte
		}
		for _, w := range addressWords {
			if e := k + len(w); strings.HasPrefix(s[k:], w) && e < len(s) && !wordByte(s[e]) {
				start = e
				break
			}
		}
	}
	if start < 0 {
		return 0, 0
	}
	if k := strings.LastIndexByte(s[start:i], ':'); k >= 0 {
		start += k + 1 // पते पर भेजें: 6/2 दोषी, …: the address after the colon
	}
	for start < i && s[start] == ' ' {
		start++
	}
	if e := skipDigits(s, i); strings.ContainsAny(s[start:i], "@/") || e+1 < len(s) && s[e] == '.' && isDigit(s[e+1]) {
		return 0, 0 // a server's, a mail or web address; a version
	}
	end := i
	for end < len(s) && end-start < 160 && !sentenceEnd(s, end) {
		end++
	}
	for end > start && (s[end-1] == ' ' || s[end-1] == ',') {
		end--
	}
	return start, end
}

// sentenceEnd: s[k] ends a sentence: a line break, '!', '?', ';', '。',
// '؟', '।', or a '.' before a space or the end after digits or a word
// that is no lower-case abbreviation (г., ул., д., просп.; not "Тагил.").
func sentenceEnd(s string, k int) bool {
	switch c := s[k]; c {
	case '\n', '!', '?', ';':
		return true
	case '.':
		if k+1 < len(s) && s[k+1] != ' ' && s[k+1] != '\n' {
			return false
		}
		w := wordBefore(s, k)
		r, _ := utf8.DecodeRuneInString(s[w:])
		return w == k || !unicode.IsLower(r) || k-w > 10
	case 0xE3, 0xD8, 0xE0: // the first bytes of 。, ؟ and ।
		r, _ := utf8.DecodeRuneInString(s[k:])
		return r == '。' || r == '؟' || r == '।'
	}
	return false
}

// ---------------------------------------------------------------- words

// A street type: where it stands (before or after the name, or glued to
// its end) and how much it proves alone.
const (
	stLast     = 1 << iota // after the name, alone: 10 Downing Street
	stLastExt              // after the name, only with a postcode: 12 Hull Village
	stFirst                // before the name: rue de la Paix, Calle Mayor
	stFirstExt             // before the name, only with a postcode: Bloque, Contrada, Vila, szosa
	stHead                 // capitalised, may start a name: Östra Gengatan, Alte Frankfurter Straße
	stPrep                 // capitalised, starts a name: Am Quettinger Feld, Zur Alten Mühle
	stParticle             // lower-case in a Dutch name: van de Meerweg, Johan de Wittlaan
	stCityTail             // lower-case, ends a city: Sesto Nicodemo calabro, Pavani nell'emilia

	stAny = stLast | stLastExt | stFirst | stFirstExt // a street type
)

var streetTypes = newWordTable(func() map[string]uint16 {
	m := map[string]uint16{}
	add := func(k uint8, words string) {
		for _, w := range strings.Fields(words) {
			m[w] |= uint16(k)
		}
	}
	add(stLast, `street st avenue ave av road rd lane ln drive dr boulevard blvd bd way court ct place pl
		square sq terrace tce crescent cres close grove gardens parade highway hwy parkway pkwy circle cir trail
		row mews walk alley plaza marg salai
		straße strasse str allee platz weg gasse ring damm ufer chaussee`)
	add(stLastExt, `branch bridge brook brooks burg bypass camp canyon cape causeway center centre circles cliff cliffs club common
		corner corners course courts cove coves creek crest crossing crossroad curve dale dam divide drives estate estates
		expressway extension falls ferry field fields flat flats ford fords forest forge fork forks fort freeway garden
		gateway glen glens green greens groves harbor harbour harbors haven heights hill hills hollow inlet island islands isle
		junction key keys knoll knolls lake lakes land landing lanes light lights loaf lock locks lodge loop mall manor manors
		meadow meadows mill mills mission motorway mount mountain mountains neck orchard oval overpass park parks parkways pass
		passage path pike pine pines plain plains point points port ports prairie radial ramp ranch rapid rapids rest ridge
		ridges river roads route run shoal shoals shore shores skyway spring springs spur spurs squares station stravenue stream
		streets summit throughway trace track trafficway trailer tunnel turnpike underpass union unions valley valleys via
		viaduct view views village villages ville vista walks wall ways well wells nagar chowk ganj path brae lea
		grange wood glade vale fold rise drove paddock croft end yard chase bank gate mead garth wynd approach brow side
		copse burgs centers extensions fall inlets junctions forges`)
	add(stFirst, `rue avenue av avda avenida boulevard bd bld bvd chemin ch place pl allée allee impasse imp quai route rte cours
		passage calle c carrer plaza pza paseo camino ronda travesía travesia glorieta via viale piazza corso largo vicolo
		piazzale strada rua travessa tv praça praca alameda estrada rodovia ulica ul aleja al plac os osiedle jalan lorong
		carretera callejón urbanización avinguda passeig rambla lungomare ladeira viela contrada`)
	// Common words too (Grupo Bimbo 2024, park 3 cars): a name, a
	// number and the postcode after them make them a street.
	add(stFirstExt, `apartamento entrada lado subida bloque edificio arroyo pasaje torrente vía acceso bajada barranco
		barrio calleja conjunto cuesta grupo huerta jardines lugar manzana masía muelle pasadizo polígono puente sector
		sendero mercado monte parque incrocio borgo rotonda vico traversa salita località frazione canale vila beco passagem
		marginal quadra setor szosa park droga ogród rondo skwer wybrzeże bulwar pasaż zaułek trakt riera ferrocarril
		extrarradio solar quinta arrabal prolongación terrenos colonia rampa caserío caserio poblado puerta municipio
		ramal parcela rynek wyspa bulw wyb aldea colegio escalinata explanada extramuros gran partida rincón salida
		sección senda chalet voie vial stretto aeroporto área campo chácara colônia condomínio distrito esplanada
		estação favela fazenda feira jardim lago lagoa loteamento morro núcleo passarela pátio recanto residencial sítio
		trecho trevo vale vereda viaduto cañada drève galerie jardin parc parvis porte square`)
	// What may stand before the words that prove a street (nameHeadBefore).
	add(stHead, `östra västra norra södra övre nedre stora lilla gamla nya yttre inre nordre søndre østre vestre
		store lille gamle ny nye øvre ytre indre alte alter alten altes neue neuer neuen kleine kleiner kleinen große
		grosse großer großen hohe hoher hohen lange langer langen obere oberer untere unterer mittlere innere hintere
		vordere nieuwe oude korte grote hoge lage eerste tweede derde oost west noord zuid sint iso pikku vanha uusi
		undre petite petit grande grand vieille vieux haute basse nouvelle gammel`)
	add(stPrep, `am an auf im in zum zur unter hinter vor bei beim über achter aan bij over op`)
	add(stParticle, `van de der den ter ten op het`)
	add(stCityTail, `lido terme sardo calabro veneto laziale ligure salentino umbro friuli nell'emilia mare kunta`)
	return m
}(), true)

// Street-type suffixes glued to the street's name (German, Dutch,
// Scandinavian, Finnish), each with a flag: weak ones (an English word
// may end so: Spring, Brigade, Bowtie) need a postcode.
var gluedSuffixes = []struct {
	suffix string
	weak   bool
}{
	{"straße", false}, {"strasse", false}, {"str", false}, {"allee", false}, {"platz", false}, {"gasse", false},
	{"weg", false}, {"damm", false}, {"ufer", false}, {"chaussee", false}, {"steig", false}, {"pfad", false},
	{"straat", false}, {"laan", false}, {"gracht", false}, {"kade", false}, {"singel", false}, {"dijk", false},
	{"steeg", false}, {"plein", false}, {"dreef", false}, {"plantsoen", false}, {"hof", true}, {"pad", true}, {"park", true},
	{"gatan", false}, {"vägen", false}, {"gränd", false}, {"stigen", false}, {"torget", false}, {"allén", false}, {"gränden", false}, {"gärdet", false},
	{"katu", false}, {"polku", false}, {"raitti", false}, {"penger", false}, {"kuja", false}, {"väylä", false}, {"kaari", false}, {"rinne", false},
	{"vej", false}, {"stræde", false}, {"allé", false}, {"vænget", false},
	{"ring", true}, {"markt", true}, {"gade", true}, {"tie", true}, {"torv", true}, {"plads", true}, {"backen", true},
	{"gata", true}, {"väg", true}, {"tori", true}, {"veien", true}, {"linja", true}, {"ranta", true},
}

// connectors may stand between the capitalised words of a name.
var connectors = newWordTable(func() map[string]uint16 {
	m := map[string]uint16{}
	for _, w := range strings.Fields(`de la le les los las du des del della delle dei di da do dos das van von der den het ter
		am an auf of the upon on sur en y e i och og aan op bij and et im`) {
		m[w] = 1
	}
	return m
}(), true)

// unitWords introduce a flat, suite, floor or block.
var unitWords = newWordTable(func() map[string]uint16 {
	m := map[string]uint16{}
	for _, w := range strings.Fields(`flat apt apartment suite ste unit studio room rm floor fl level lvl blk block
		piso planta puerta pta esc escalera wohnung whg etage app appartement bât bâtiment étage etg lgh lok m top
		stiege tür bus bte box interno int scala sc piano andar apto sala zimmer hus appartamento casa lote sobrado
		uss usns usnv uscgc psc`) {
		m[w] = 1
	}
	return m
}(), true)

// addrMarks are the words that mark a part of an address other than its
// street type, or no street: a floor after its number (4 étage, 3 hoog,
// 2. th), a Finnish type written apart (Kochin tie), a Spanish floor and
// its side (Bajo Izda., 3º Dcha.), a word before a number that names
// something else (Order 12345), the labels of a postcode.
const (
	amFloor = 1 << iota
	amFinnish
	amFloorES
	amSide
	amNotStreet
	amLabel     // a postcode's label: PIN, ZIP, PLZ, CEP, Postcode
	amLabelCP   // a label only before a postcode after a street: CP
	amLabelLong // a label only before a postcode alone: Postleitzahl
	amLabelCode // a label before "code": PIN code, ZIP code, postal code
	amMilitary  // a US military address's state: AA, AE, AP
	amParticle  // lower-case inside a street's name: Unter den Linden
	amPart      // a Dutch part of a house after its number: 12-hoog, 7 hs
)

var addrMarks = newWordTable(func() map[string]uint16 {
	m := map[string]uint16{}
	for k, words := range [...]string{
		`étage etage hoog verdieping og stock piano andar floor kerros våning th tv mf sal`,
		`tie katu polku kuja väylä kaari rinne raitti aukio tori ranta penger puistotie`,
		`bajo ático`,
		`izda dcha izq izqda`,
		`order invoice version page chapter section item ticket case no nr number room level floor gate terminal
			platform flight model step phase release build row seat table figure vol part episode season issue account
			id ref`,
		`pin zip cep plz cap postcode pincode zipcode`,
		`cp`,
		`postleitzahl postnummer postinumero`,
		`pin zip post postal`,
		`aa ae ap`,
		`den der dem des de da do das dos la le van von op di del`,
		`hoog hs h huis`,
	} {
		for _, w := range strings.Fields(words) {
			m[w] |= 1 << k
		}
	}
	return m
}(), true)

// addrMark returns the marks of w (addrMarks).
func addrMark(w string) uint16 { return addrMarks.get(w) }

// lowerKey folds w's ASCII letters into buf and returns them (w at most
// len(buf) bytes, else "").
func lowerKey(w string, buf *[24]byte) string {
	if len(w) > len(buf) {
		return ""
	}
	for k := 0; k < len(w); k++ {
		c := w[k]
		if c-'A' < 26 {
			c += 32
		} else if k > 0 && w[k-1] == 0xc3 && c >= 0x80 && c <= 0x9e && c != 0x97 {
			c += 0x20
		}
		buf[k] = c
	}
	return string(buf[:len(w)])
}

func streetType(w string) uint8 { return uint8(streetTypes.get(w)) }

func isConnector(w string) bool { return connectors.get(w) != 0 }

func isUnitWord(w string) bool { return unitWords.get(w) != 0 }

// glued reports whether word w ends with a glued street-type suffix after
// at least three bytes of name, and whether that suffix is weak.
func glued(w string) (ok, weak bool) {
	var buf [24]byte
	if len(w) > len(buf) {
		w = w[len(w)-len(buf):]
	}
	l := lowerKey(w, &buf)
	for _, g := range gluedSuffixes {
		if len(l) >= len(g.suffix)+3 && strings.HasSuffix(l, g.suffix) {
			pre := l[len(l)-len(g.suffix)-1]
			if g.suffix == "ring" && strings.IndexByte("aeiouy", pre) >= 0 {
				continue // Hiring, Boring
			}
			return true, g.weak
		}
	}
	return false, false
}

// wordAt returns the end of the word at i: letters, non-ASCII letters and
// inner hyphens and apostrophes (Karl-Marx-Allee, St Mary's, d'Italie).
func wordAt(s string, i int) int {
	j := i
	for j < len(s) {
		c := s[j]
		switch {
		case isASCIILetter(c):
			j++
		case c >= 0x80:
			r, n := utf8.DecodeRuneInString(s[j:])
			if r == '’' {
				if j+n < len(s) && isASCIILetter(s[j+n]) && j > i {
					j += n
					continue
				}
				return j
			}
			if !unicode.IsLetter(r) {
				return j
			}
			j += n
		case (c == '-' || c == '\'') && j > i && j+1 < len(s) && wordByte(s[j+1]):
			j++
		default:
			return j
		}
	}
	return j
}

// wordBefore returns the start of the word ending at e.
func wordBefore(s string, e int) int {
	j := e
	for j > 0 {
		c := s[j-1]
		switch {
		case isASCIILetter(c):
			j--
		case c >= 0x80:
			r, n := utf8.DecodeLastRuneInString(s[:j])
			if !unicode.IsLetter(r) && r != '’' {
				return j
			}
			j -= n
		case (c == '-' || c == '\'') && j < e && j >= 2 && wordByte(s[j-2]):
			j--
		default:
			return j
		}
	}
	return j
}

// capital reports whether the word at i starts with a capital letter.
func capital(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	if c := s[i]; c < 0x80 {
		return c-'A' < 26
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsUpper(r)
}

// nameWord reports whether the word [i, e) may be part of a proper name:
// capitalised, or d'/l' before a capital.
func nameWord(s string, i, e int) bool {
	if e-i >= 3 && (s[i] == 'd' || s[i] == 'l') && s[i+1] == '\'' {
		return capital(s, i+2)
	}
	return capital(s, i)
}

// ---------------------------------------------------------------- house numbers

// houseNumber reads a house number at i: 1 to 5 digits, a letter, a
// range or a flat after a slash (12, 221B, 3a, 12-14, 12/3, 5/12).
func houseNumber(s string, i int) (int, bool) {
	_, n, e := number(s, i)
	if n == 0 || n > 5 {
		return 0, false
	}
	if e < len(s) && isASCIILetter(s[e]) && (e+1 == len(s) || !wordByte(s[e+1])) {
		e++
	}
	if e+1 < len(s) && (s[e] == '/' || s[e] == '-') && isDigit(s[e+1]) {
		_, n2, e2 := number(s, e+1)
		if n2 <= 4 {
			e = e2
			if e < len(s) && isASCIILetter(s[e]) && (e+1 == len(s) || !wordByte(s[e+1])) {
				e++
			}
		}
	}
	if e < len(s) && (isDigit(s[e]) || wordByte(s[e]) || s[e] == '.' && e+1 < len(s) && isDigit(s[e+1]) || s[e] == '%' || s[e] == ':' && e+1 < len(s) && isDigit(s[e+1])) {
		return 0, false
	}
	// 12 bis, 12 ter
	if t := s[e:]; strings.HasPrefix(t, " bis") || strings.HasPrefix(t, " ter") {
		if len(t) == 4 || !wordByte(t[4]) {
			e += 4
		}
	}
	return e, true
}

// numberStarts reports whether a house number may start at i: not glued
// to what comes before.
func numberStarts(s string, i int) bool {
	if i == 0 {
		return true
	}
	c := s[i-1]
	return c == ' ' || c == ',' || c == '\n' || c == '(' || c == '\t' || c == '"' || c == '/' && i >= 2 && isDigit(s[i-2])
}

// ---------------------------------------------------------------- street lines

// ordinalEnd is the end of the ordinal a street's name may be at q (5th,
// 42nd: up to three digits and two letters), or q.
func ordinalEnd(s string, q int) int {
	if _, n, de := number(s, q); n > 0 && n <= 3 {
		if we := wordAt(s, de); we-de == 2 {
			return we
		}
	}
	return q
}

// numberFirst reads a street line with the house number first at i, and
// its tail: "221B Baker Street, London NW1 6XE", "12 rue de la Paix".
func numberFirst(s string, i int) (int, int) {
	if !numberStarts(s, i) || i > 0 && s[i-1] == '/' {
		return 0, 0
	}
	e, ok := houseNumber(s, i)
	if !ok {
		return 0, 0
	}
	j := e
	if j < len(s) && s[j] == ',' {
		j++
	}
	k := skipSpaces(s, j)
	if k == j || k >= len(s) {
		return 0, 0
	}
	w := wordAt(s, k)
	if w == k { // an ordinal: 69999 6th Street
		if ordinalEnd(s, k) == k {
			return 0, 0
		}
	} else if !capital(s, k) && streetType(s[k:w])&stFirst == 0 {
		return 0, 0 // 3 items, 10 rue… (rue is a type)
	}
	start := unitBefore(s, i)
	if i >= 2 && s[i-1] == ' ' { // Flat 72, Evans islands
		if ws := wordBefore(s, i-1); ws < i-1 && isUnitWord(s[ws:i-1]) && (ws == 0 || !wordByte(s[ws-1])) {
			start = ws
		}
	}
	// The type first: 12 rue de la Paix, 5 Place Vendôme.
	if streetType(s[k:w])&stFirst != 0 {
		end := nameAfter(s, dotAfter(s, w))
		if end > w {
			t, _ := addrTail(s, end, false)
			return start, t
		}
	}
	// The name, then the type: 221B Baker Street, 10 Downing St, 350 Fifth Avenue.
	names, typeEnd, kind := 0, 0, uint8(0)
	for q, words := k, 0; words < 6 && q < len(s); words++ {
		we := wordAt(s, q)
		if we == q { // an ordinal: 42nd, 5th
			if we = ordinalEnd(s, q); we == q {
				break
			}
		} else if t := streetType(s[q:we]); t&(stLast|stLastExt) != 0 && names > 0 {
			typeEnd, kind = we, t
		} else if !nameWord(s, q, we) && !isConnector(s[q:we]) {
			break
		}
		names++
		q = we
		if q < len(s) && s[q] == '.' {
			q++
		}
		if q >= len(s) || s[q] != ' ' {
			break
		}
		q++
	}
	if typeEnd > 0 {
		end := directional(s, typeEnd)
		t, post := addrTail(s, end, false)
		if kind&stLast != 0 || post {
			return start, t
		}
		return 0, 0
	}
	// No type: capitalised words and a strong postcode.
	last := 0
	for q, words := k, 0; words < 4; words++ {
		we := wordAt(s, q)
		if we == q || !nameWord(s, q, we) && !isConnector(s[q:we]) || isUnitWord(s[q:we]) && words > 0 {
			break
		}
		if nameWord(s, q, we) {
			last = we
		}
		if we+1 < len(s) && s[we] == ' ' && wordByte(s[we+1]) {
			q = we + 1
			continue
		}
		break
	}
	if last > 0 {
		// The postcode with no city before or after it proves nothing
		// here: "770 Teilnehmer, 78786 visitors" counts things.
		if t, post := addrTail(s, last, true); post && !postcodeAlone(s, last, t) {
			return start, t
		}
	}
	return 0, 0
}

// directional takes N, S, E, W, NE, NW, SE, SW after a US street type.
func directional(s string, e int) int {
	if e+2 <= len(s) && s[e] == ' ' {
		w := wordAt(s, e+1)
		switch s[e+1 : w] {
		case "N", "S", "E", "W", "NE", "NW", "SE", "SW":
			return w
		}
	}
	return e
}

func dotAfter(s string, e int) int {
	if e < len(s) && s[e] == '.' {
		return e + 1
	}
	return e
}

// nameAfter reads the name after a type-first word ending at e (spaces,
// capitalised words and connectors, at least one capitalised word of two
// letters) and returns where it ends, or e.
func nameAfter(s string, e int) int {
	end, q := e, e
	for words := 0; words < 6; words++ {
		k := skipSpaces(s, q)
		if k == q && !(q > 0 && s[q-1] == '\'') || k >= len(s) {
			break
		}
		w := wordAt(s, k)
		if w == k {
			break
		}
		if nameWord(s, k, w) && w-k >= 2 {
			end = w
		} else if !isConnector(s[k:w]) && !(w-k == 1 && w < len(s) && s[w] == '\'') {
			break
		}
		q = w
		if q < len(s) && s[q] == '\'' { // l'Église
			q++
		}
	}
	return end
}

// unitBefore extends a street line's start at i over a flat or unit
// before it: "Flat 3, 5 High Road", "Unit 5/", "Blk 123 ".
func unitBefore(s string, i int) int {
	j := i
	if j > 0 && s[j-1] == '/' { // 5/12 George St
		return i
	}
	for j > 0 && s[j-1] == ' ' {
		j--
	}
	// The unit on the line before ("Flat 3\n5 High Road").
	if j > 0 && s[j-1] == '\n' {
		j--
		if j > 0 && s[j-1] == '\r' {
			j--
		}
		for j > 0 && s[j-1] == ' ' {
			j--
		}
	}
	if j > 0 && s[j-1] == ',' {
		j--
	}
	// The flat before a slash, apart from the house number: "8 /\n 6
	// Kent Court", "8 / 6 Kent Court" (8/6 Kent Court, unit 8, house 6).
	if j < i && j >= 2 && s[j-1] == '/' {
		k := j - 1
		for k > 0 && s[k-1] == ' ' {
			k--
		}
		f := k
		for f > 0 && k-f < 4 && isDigit(s[f-1]) {
			f--
		}
		if f < k && (f == 0 || !wordByte(s[f-1]) && !isDigit(s[f-1]) && s[f-1] != '/' && s[f-1] != '.') {
			return f
		}
		return i
	}
	if j == i {
		return i
	}
	// The unit's number, and a letter after it.
	ne := j
	if j >= 2 && isASCIILetter(s[j-1]) && isDigit(s[j-2]) {
		j--
	}
	for j > 0 && isDigit(s[j-1]) {
		j--
	}
	if j == ne || j == 0 || s[j-1] != ' ' {
		return i
	}
	k := j - 1
	if k > 0 && s[k-1] == '.' {
		k--
	}
	ws := wordBefore(s, k)
	if ws < k && isUnitWord(s[ws:k]) && (ws == 0 || !wordByte(s[ws-1])) {
		return ws
	}
	return i
}

// numberAfter reads a street line with the house number after the name,
// ending at the digit run at i: "Hauptstraße 12", "Calle Mayor 5",
// "Avenida Paulista, 1578", "ul. Marszałkowska 1/5".
func numberAfter(s string, i int) (int, int) {
	if i < 2 || !numberStarts(s, i) || s[i-1] == '/' || s[i-1] == '(' || s[i-1] == '"' {
		return 0, 0
	}
	e, ok := houseNumber(s, i)
	if !ok {
		return 0, 0
	}
	he := e
	if strings.HasSuffix(s[i:e], " bis") || strings.HasSuffix(s[i:e], " ter") {
		he -= 4 // Drève Kemmer 323 bis: the house number alone is short
	}
	return streetLineBefore(s, i, he, unitAfterNumber(s, e), false)
}

// streetLineBefore reads the street name before a house number [i, he)
// and the flats after it, to e (numberAfter), or, sn, before "s/n" or
// "snc" (no number, snAddress): then only a typed street with a postcode
// after it is one.
func streetLineBefore(s string, i, he, e int, sn bool) (int, int) {
	j := i
	for j > 0 && s[j-1] == ' ' {
		j--
	}
	// nl: the street's line ended before the digits; they can only be
	// its postcode (rue de Riou⏎97 298 Saint Émile).
	nl := false
	if j > 0 && (s[j-1] == ',' && j < i || sn && s[j-1] == '\n') {
		j--
	} else if j == i && j > 1 && s[j-1] == '\n' && !sn {
		j, nl = j-1, true
		for j > 0 && (s[j-1] == ' ' || s[j-1] == '\r') {
			j--
		}
	}
	if j == i || j == 0 {
		return 0, 0
	}
	we := j
	dot := s[we-1] == '.'
	if dot {
		we--
	}
	ws := wordBefore(s, we)
	if ws == we || ws > 0 && (isDigit(s[ws-1]) || s[ws-1] == '@' || s[ws-1] == '/' || s[ws-1] == '_') {
		return 0, 0
	}
	if p := wordBefore(s, max(ws-1, 0)); !nameWord(s, ws, we) && ws > 1 && s[ws-1] == ' ' && p < ws-1 && capital(s, p) && addrMark(s[p:ws-1])&amParticle != 0 {
		ws = p // Rotonda De luca 576: a family name's particle is its capital
	}
	if !nameWord(s, ws, we) { // Rue d'Arlon 12 has a name
		// A Finnish type word apart after a genitive: Kochin tie 252,
		// Elisabeth Kochin tie 252, Walentin Chorellin polku 1.
		if p := wordBefore(s, max(ws-1, 0)); ws > 1 && s[ws-1] == ' ' && p < ws-2 && s[ws-2] == 'n' && capital(s, p) && addrMark(s[ws:we])&amFinnish != 0 && !dot {
			start := p
			if q := wordBefore(s, max(p-1, 0)); p > 1 && s[p-1] == ' ' && q < p-1 && capital(s, q) && (q == 0 || !wordByte(s[q-1])) {
				start = q
			}
			return start, addrTailEnd(s, e)
		}
		return 0, 0 // at 10, is 2024
	}
	w := s[ws:we]
	// Glued: Hauptstraße 12, Hauptstr. 5, Karl-Marx-Allee 3a, Drottninggatan 5.
	if ok, weak := glued(w); ok && capital(s, ws) && (!dot || strings.HasSuffix(strings.ToLower(w), "str")) {
		if nl {
			return 0, 0
		}
		t, post := addrTail(s, e, false)
		if weak || sn {
			t, post = weakTail(s, e)
		}
		if !weak && !sn || post {
			// A type-first word before a name that ends like a glued
			// type, or before a particle and it: Via Sartori 26, Voie La
			// Boétie 94.
			start := nameHeadBefore(s, ws, false)
			for n, q := 0, start; n < 2 && q > 1 && s[q-1] == ' '; n++ {
				p := wordBefore(s, q-1)
				if p < q-1 && capital(s, p) && streetType(s[p:q-1])&(stFirst|stFirstExt) != 0 {
					start = p
					break
				}
				if q-1-p > 3 || p == q-1 {
					break
				}
				q = p
			}
			return start, t
		}
		return 0, 0
	}
	// A type word after adjectives (Frankfurter Allee 12), or before the
	// name (Calle Mayor 5, Via Roma 10, ul. Marszałkowska 1).
	q, start, typed, weakType := ws, -1, false, false
	if t := streetType(w); t&stLast != 0 && capital(s, ws) && !dot {
		// The type word needs its name before it: "Ring 91 234 56 78"
		// (a phone), "Straße 12 is closed" name no street.
		p := wordBefore(s, max(ws-1, 0))
		if ws == 0 || s[ws-1] != ' ' || p == ws-1 || !capital(s, p) || streetType(s[p:ws-1])&stAny != 0 {
			return 0, 0
		}
		start, typed = nameHeadBefore(s, p, true), true
	} else {
		for words := 0; words < 7; words++ {
			// The furthest type word: Arroyo Guillermo Arroyo Balderas,
			// Bloque María de los Ángeles Tello Espinosa.
			t := streetType(s[q:we])
			if t&(stFirst|stFirstExt) != 0 && words > 0 {
				start, typed, weakType = q, true, t&stFirst == 0
			}
			if !nameWord(s, q, we) && !isConnector(s[q:we]) || q == 0 {
				break
			}
			// The word before q.
			p := q
			if p > 0 && s[p-1] == ' ' {
				p--
			} else {
				break
			}
			pe := p
			if pe > 0 && s[pe-1] == '.' {
				pe--
			}
			if pe > 0 && s[pe-1] == '/' && pe >= 2 && (s[pe-2] == 'C' || s[pe-2] == 'c') { // C/ Mayor
				pe--
			}
			pw := wordBefore(s, pe)
			if pw == pe || pw > 0 && !(s[pw-1] == ' ' || s[pw-1] == '\n' || s[pw-1] == ',' || s[pw-1] == '(' || s[pw-1] == ':' || s[pw-1] == '"' || s[pw-1] == '\t' || s[pw-1] == '>' || s[pw-1] == ';') {
				break
			}
			q, we = pw, pe
		}
		if t := streetType(s[q:we]); t&(stFirst|stFirstExt) != 0 && q < ws {
			start, typed, weakType = q, true, t&stFirst == 0
		}
	}
	if typed && start > 1 && s[start-1] == ' ' {
		// An adjective before a type-first word: Petite rue, Grande Rue.
		if p := wordBefore(s, start-1); p < start-1 && capital(s, p) && (p == 0 || !wordByte(s[p-1])) && streetType(s[p:start-1])&stHead != 0 {
			start = p
		}
	}
	if typed {
		// A weak type (Grupo, Parque, park: common words too) and "s/n"
		// need the postcode: "Grupo Bimbo 2024" is a company and a year.
		t, post := addrTail(s, e, false)
		if weakType || sn {
			t, post = weakTail(s, e)
		}
		if nl {
			t, post = e, false
		}
		if !post && !sn && (nl || s[i-1] == ' ' && s[i-2] == ',') {
			// "rue Jacquet, 39624 Lelievre-sur-Lemaitre", "boulevard
			// Guillou, 26 330 Rolland": no house number, and after the
			// comma or line break a postcode of five digits with its city.
			if pe, ok := postcodeAt(s, i, false); ok && pe-i >= 5 {
				if pt := postTail(s, pe); pt > pe {
					t, post = pt, true
				}
			}
		}
		if post || !weakType && !sn && !nl {
			return start, t
		}
	}
	if sn || nl {
		return 0, 0
	}
	// No type: the capitalised words before the number, and a strong
	// postcode (Strøget 2, 1160 København K); a flat's word (Box 5678,
	// Zimmer 457) is no street's name.
	if !capital(s, ws) || he-i > 6 || notStreet(w) || isUnitWord(w) || len(w) > 1 && allUpper(w) { // GB55 YION 4613 4872: an IBAN
		return 0, 0
	}
	// And a comma or a line break after the number: without a type word,
	// "Steueridentifikationsnummer 84 370 615" and "Order 12 345 67" are
	// a label and digit groups (an identifier, an amount), not a street.
	k := e
	for k < len(s) && s[k] == ' ' {
		k++
	}
	if k == len(s) || s[k] != ',' && s[k] != '\n' {
		return 0, 0
	}
	start = ws
	if p := wordBefore(s, max(ws-1, 0)); ws > 1 && s[ws-1] == ' ' && p < ws-1 && capital(s, p) {
		start = p
	}
	start = nameHeadBefore(s, streetParticlesBefore(s, start), true)
	if t, post := addrTail(s, e, true); post && !postcodeAlone(s, e, t) {
		return start, t
	}
	return 0, 0
}

// addrTailEnd is where addrTail ends the address after a street line
// ending at e.
func addrTailEnd(s string, e int) int {
	t, _ := addrTail(s, e, false)
	return t
}

// streetParticlesBefore extends a street name starting at ws back over
// the particles inside it to the capitalised word before them: "Unter den
// Linden", "Achter de Dijk", "Rua da Consolação" read from their last
// word.
func streetParticlesBefore(s string, ws int) int {
	start := ws
	for n := 0; n < 2 && start > 1 && s[start-1] == ' '; n++ {
		p := wordBefore(s, start-1)
		if p == start-1 {
			break
		}
		if capital(s, p) || addrMark(s[p:start-1])&amParticle == 0 {
			if capital(s, p) && n > 0 {
				return p
			}
			return ws
		}
		start = p
	}
	return ws
}

// nameHeadBefore extends a street name starting at ws back over the
// words before it the scan does not prove it by: direction and adjective
// words (Östra Gengatan, Nordre Strandvej, Nieuwe Binnenweg), German
// adjectives of place (Bergische Landstr.), a German or Dutch preposition
// (Am Quettinger Feld, Zur Alten Mühle), Dutch particles from van, ter,
// ten, op, de or den or from the name before them (van de Meerweg, de
// Bruynlaan, Johan de Wittlaan; not "in der Lindenstraße"), and,
// genitive, one name before a genitive (Andersson Lindströms Väg).
func nameHeadBefore(s string, ws int, genitive bool) int {
	start, named := ws, ws // named: start without the particles after it
words:
	for n := 0; n < 4 && start > 2 && s[start-1] == ' '; n++ {
		if s[start-2] == '.' { // an abbreviated name: Chr. Winthersvej, Dr. Tolstrups Gade
			if p := wordBefore(s, start-2); p < start-2 && start-2-p <= 4 && capital(s, p) && (p == 0 || s[p-1] == ' ' || s[p-1] == '\n') {
				start, named = p, p
				continue
			}
			break
		}
		p := wordBefore(s, start-1)
		if p == start-1 || p > 0 && wordByte(s[p-1]) {
			break
		}
		w := s[p : start-1]
		t := streetType(w)
		if !capital(s, p) {
			if t&stParticle == 0 {
				break
			}
			start = p
			continue
		}
		switch {
		case t&(stPrep|stParticle) != 0, start < named: // Am, Van, Johan de
			return p
		case t&stHead != 0, strings.HasSuffix(w, "ische"), len(w) >= 7 && strings.HasSuffix(w, "er"):
		case genitive && n == 0 && s[wordAt(s, start)-1] == 's' && len(w) > 2 && !allUpper(w):
			return p
		default:
			break words
		}
		start, named = p, p
	}
	for ; start < named; start = skipSpaces(s, wordAt(s, start)) {
		if w := s[start:wordAt(s, start)]; w != "der" && w != "het" { // van, ter, ten, op, de, den
			break
		}
	}
	return start
}

// unitAfterNumber takes the flats, floors and parts right after a house
// number ending at e, before the comma: "1 m. 5", "107 I", "7-II",
// "12-hoog", "164 II 3 hoog", "80 3e verdieping", "39a Zimmer 457", "53
// Piano 7", "7 Bajo Izda.", "5 C" (a Finnish staircase).
func unitAfterNumber(s string, e int) int {
	for n := 0; n < 3 && e+1 < len(s) && (s[e] == ' ' || s[e] == '-' && n == 0); n++ {
		if s[e] == ' ' {
			if u := addrUnitAt(s, e+1); u > e+1 {
				e = u
				continue
			}
		}
		x := wordAt(s, e+1)
		if x == e+1 {
			break
		}
		// What follows the word: the line's end or comma, or a floor
		// after a Dutch part (164 II 3 hoog).
		ends := x == len(s) || s[x] == ',' || s[x] == '\n' || s[x] == '\r'
		w := s[e+1 : x]
		m := addrMark(w)
		switch {
		case len(w) <= 3 && strings.Trim(w, "IV") == "": // I, II, III, IV
			if !ends && !(x+1 < len(s) && s[x] == ' ' && isDigit(s[x+1])) {
				return e
			}
		case m&amPart != 0: // hoog, hs, huis
			if !ends {
				return e
			}
		case m&amFloorES != 0:
			// Bajo, Bajo A, Bajo Izda., Ático A (Spanish floors)
			if y := wordAt(s, x+1); x+1 < len(s) && s[x] == ' ' && (y == x+2 && capital(s, x+1) || addrMark(s[x+1:y])&amSide != 0) {
				x = dotAfter(s, y)
			}
		case len(w) != 1 || !capital(s, e+1) || !ends:
			return e
		}
		e = x
	}
	return e
}

// snAddress reads a street line without a house number, "s/n" or "snc"
// (sin número, senza numero civico) in its place, before the postcode
// at i: "Camino Irene s/n, 68394 Barcelona".
func snAddress(s string, i int) (int, int) {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == ',' || s[j-1] == '\n') && i-j < 3 {
		j--
	}
	t := strings.TrimSuffix(s[:j], ".")
	if j == i {
		return 0, 0
	}
	if !strings.HasSuffix(t, " s/n") && !strings.HasSuffix(t, " S/N") && !strings.HasSuffix(t, " snc") {
		// No number at all, and the district between the street and
		// the postcode: "Lagoa de Moraes, Novo Ouro Preto, 32863-831
		// Pires de Barros / TO" (BR), its city after it. The street
		// ends at the comma before the district.
		d := j
		for d > 0 && j-d < 40 && s[d-1] != ',' && s[d-1] != '\n' {
			d--
		}
		pe, ok := postcodeAt(s, i, false)
		if ds := skipSpaces(s, d); ok && pe-i >= 5 && postTail(s, pe) > pe && d > 0 && (s[d-1] == ',' && ds > d || s[d-1] == '\n') && capital(s, ds) {
			return streetLineBefore(s, ds, ds, d-1, true)
		}
		return 0, 0
	}
	return streetLineBefore(s, len(t)-3, j, j, true)
}

// ---------------------------------------------------------------- the tail

// addrTail reads what follows a street line ending at e: flats, floors
// and units, districts and cities, a state or province, the postcode and
// the city after it. It returns where the address ends (e, or past the
// units right after the street line, without a postcode) and whether it
// found a postcode. strong asks for a postcode that proves more than its
// digits (not a year-like 19xx or 20xx without a state before it).
func addrTail(s string, e int, strong bool) (int, bool) {
	end, q := e, e
	cities, unitsOnly := 0, true
	prevState := false
	for tokens := 0; tokens < 9 && q < len(s) && q-e < 160; tokens++ {
		k, nl := q, 0
		for k < len(s) {
			c := s[k]
			if c == ' ' || c == ',' || c == '\t' {
				k++
			} else if c == '\n' && nl == 0 {
				nl++
				k++
			} else if (c == '-' || c == '/') && k+1 < len(s) && s[k+1] == ' ' && k > q && s[k-1] == ' ' {
				k++ // São Paulo - SP, 01304-000 São Paulo / SP
			} else if c == '/' && k == q && k+2 < len(s) && s[k+1]-'A' < 26 && s[k+2]-'A' < 26 {
				k++ // São Paulo/SP
			} else {
				break
			}
		}
		if k == q || k >= len(s) {
			break
		}
		// A unit: Apt 4B, Suite 759, #10-01, 3º B, 2. th. After a city,
		// FL and SC are states (Lindafurt, FL 12507), no floor or stair.
		if u := addrUnitAt(s, k); u > k && !(cities > 0 && s[k+1]-'A' < 26 && allUpper(s[k:wordAt(s, k)])) {
			q = u
			if unitsOnly {
				end = u
			}
			continue
		}
		unitsOnly = false
		// "Lindenstraße 5 in 10969 Berlin", "14 rue Lepic à 75018
		// Paris": a preposition, then a postcode that is no year and
		// its city ("in 2019 was", "in 2020 renoviert" are dates).
		if c := addrPrepositionEnd(s, k); c > k {
			if pe, ok := postcodeAt(s, c, true); ok {
				if t := postTail(s, pe); t > pe {
					return t, true
				}
			}
			break
		}
		// The postcode.
		pk := postLabel(s, k)
		pk = countryPrefix(s, pk)
		if pe, ok := postcodeAt(s, pk, strong && !prevState); ok {
			return postTail(s, pe), true
		}
		// A state or province: NSW, DC, ON, SP.
		w := wordAt(s, k)
		if w == k {
			if s[k] == '(' {
				break
			}
			break
		}
		if st := w - k; st >= 1 && st <= 3 && allUpper(s[k:w]) {
			prevState = true
			q = w
			continue
		}
		prevState = false
		// A district or city.
		if cities == 3 || !nameWord(s, k, w) {
			break
		}
		cities++
		q = cityEnd(s, w)
	}
	return end, false
}

// weakTail is addrTail for a street line a weak type proves: a postcode
// with a city before or after it ("Notepad 11, 2024 update", "Parque
// Warner 12, 28001 visitantes" count things; "Nørregade 5, 2000
// Frederiksberg" is an address).
func weakTail(s string, e int) (int, bool) {
	t, post := addrTail(s, e, false)
	return t, post && !postcodeAlone(s, e, t)
}

// postcodeAlone reports whether the tail [e, t) of a street line is a
// postcode alone, right after it.
func postcodeAlone(s string, e, t int) bool {
	for e < len(s) && (s[e] == ',' || s[e] == ' ') {
		e++
	}
	pe, ok := postcodeAt(s, e, false)
	return ok && pe == t
}

// addrPrepositionEnd returns where the word after the preposition at k
// starts, if k starts "in ", "à ", "en ", "em ", "w ", "i " or "a "
// (the words of the languages of 12.9.2 that put a postcode after a
// street in prose); else k.
func addrPrepositionEnd(s string, k int) int {
	for _, p := range [...]string{"in ", "à ", "en ", "em ", "w ", "i ", "a "} {
		if strings.HasPrefix(s[k:], p) {
			return skipSpaces(s, k+len(p))
		}
	}
	return k
}

// postTail extends a postcode ending at e over the city after it and a
// state or district code: "75002 Paris", "00184 Roma RM", "1160 København
// K", "01304-000 São Paulo / SP", "00184, Roma (RM)".
func postTail(s string, e int) int {
	k := e
	if k < len(s) && s[k] == ',' {
		k++
	}
	k2 := skipSpaces(s, k)
	// The city on the next line ("4661 EW\nToldijk"): it must end that
	// line.
	nl := false
	if k2 < len(s) && s[k2] == '\r' && k2+1 < len(s) && s[k2+1] == '\n' {
		k2++
	}
	if k2 < len(s) && s[k2] == '\n' {
		k2, nl = skipSpaces(s, k2+1), true
	}
	if k2 == k && k == e || k2 >= len(s) {
		return e
	}
	w := wordAt(s, k2)
	if w > k2 && !capital(s, k2) && cityStarts(s, k2) {
		k2, w = w+1, wordAt(s, w+1) // 68595572 das Neves de Oliveira
	} else if strings.HasPrefix(s[k2:], "'s-") {
		k2 += 3 // 's-Gravenpolder
		w = wordAt(s, k2)
	}
	if w == k2 || !nameWord(s, k2, w) {
		// Cedex
		return e
	}
	end := cityEnd(s, w)
	if nl && end < len(s) && s[end] != '\n' && s[end] != '\r' && s[end] != ',' && s[end] != '.' && !strings.HasPrefix(s[end:], " (") {
		return e
	}
	// A state or district code after the city.
	k = end
	if k < len(s) && (s[k] == ' ' || s[k] == ',') {
		k2 := skipSpaces(s, k+1)
		if k2 < len(s) && (s[k2] == '/' || s[k2] == '-') && k2+1 < len(s) && s[k2+1] == ' ' {
			k2 = skipSpaces(s, k2+1)
		}
		paren := k2 < len(s) && s[k2] == '('
		if paren {
			k2++
		}
		w := wordAt(s, k2)
		if w > k2 && w-k2 <= 3 && allUpper(s[k2:w]) {
			if paren {
				if w < len(s) && s[w] == ')' {
					end = w + 1
				}
			} else if w == len(s) || !wordByte(s[w]) {
				end = w
			}
		} else if w > k2 && strings.EqualFold(s[k2:w], "cedex") {
			end = w
			if x := skipSpaces(s, w); x > w && x < len(s) && isDigit(s[x]) {
				_, n, f := number(s, x)
				if n <= 2 {
					end = f
				}
			}
		}
	}
	return end
}

// cityEnd extends a name's first word ending at w over its further
// capitalised words and connectors (São Paulo, Frankfurt am Main, Rio de
// Janeiro, Lake Nicole, Saint-Étienne): at most four words.
func cityEnd(s string, w int) int {
	end, q := w, w
	if w >= 2 && w+1 < len(s) && s[w-1] == 't' && capital(s, w-2) && wordBefore(s, w) == w-2 && s[w] == '.' && s[w+1] == ' ' {
		q++ // St. Hamill, Ft. Worth, Mt. Vernon
	}
	for words := 0; words < 4; words++ {
		if q >= len(s) || s[q] != ' ' {
			break
		}
		k := q + 1
		x := wordAt(s, k)
		if x == k || x < len(s) && isDigit(s[x]) { // Grimesfield S29 39N
			break
		}
		if nameWord(s, k, x) && !(x-k >= 2 && x-k <= 3 && allUpper(s[k:x])) || streetType(s[k:x])&stCityTail != 0 {
			end = x
		} else if !isConnector(s[k:x]) && s[k:x] != "a" { // Guerriero a mare
			break
		}
		q = x
	}
	return end
}

// notStreet reports whether w, before a number, names something else
// (Order 12345, Version 2, Room 5).
func notStreet(w string) bool { return addrMark(w)&amNotStreet != 0 }

func allUpper(w string) bool {
	for k := 0; k < len(w); k++ {
		if c := w[k]; c-'A' >= 26 && c < 0x80 {
			return false
		}
	}
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// addrUnitAt reads a flat, suite, floor or block at k, returning its end or k.
func addrUnitAt(s string, k int) int {
	if s[k] == '#' && k+1 < len(s) && isDigit(s[k+1]) { // #10-01
		_, _, e := number(s, k+1)
		if e+1 < len(s) && s[e] == '-' && isDigit(s[e+1]) {
			_, _, e = number(s, e+1)
		}
		return e
	}
	if isDigit(s[k]) {
		_, n, e := number(s, k)
		if n > 2 {
			return k
		}
		// 3º B, 2ª, 3° (º and ª read as o and a in the reader view)
		if t := s[e:]; strings.HasPrefix(t, "°") || len(t) >= 1 && (t[0] == 'o' || t[0] == 'a') && (len(t) == 1 || !wordByte(t[1])) {
			if t[0] == 'o' || t[0] == 'a' {
				e--
			}
			e += 2
			if e+1 < len(s) && s[e] == ' ' && isASCIILetter(s[e+1]) && (e+2 == len(s) || !wordByte(s[e+2])) {
				e += 2
			} else if w := wordAt(s, e+1); e+1 < len(s) && s[e] == ' ' && addrMark(s[e+1:w])&amSide != 0 {
				e = dotAfter(s, w) // 3º Izda., 1º Dcha.
			} else if e < len(s) && isASCIILetter(s[e]) && (e+1 == len(s) || !wordByte(s[e+1])) {
				e++
			}
			return e
		}
		// 4 étage, 3 hoog (achter), 3e verdieping, 8 OG, 2 andar
		f := e
		if f+1 < len(s) && s[f] == 'e' && s[f+1] == ' ' {
			f++
		}
		if f+1 < len(s) && s[f] == ' ' {
			if w := wordAt(s, f+1); addrMark(s[f+1:w])&amFloor != 0 {
				if strings.HasPrefix(s[w:], " achter") || strings.HasPrefix(s[w:], " voor") {
					w = wordAt(s, w+1)
				}
				return w
			}
		}
		// 2. th., 1. sal, 3. OG, 2. Stock, 4. étage
		if strings.HasPrefix(s[e:], ". ") {
			if w := wordAt(s, e+2); addrMark(s[e+2:w])&amFloor != 0 {
				return dotAfter(s, w)
			}
		}
		return k
	}
	w := wordAt(s, k)
	if w == k {
		return k
	}
	// A 3 (a staircase and a flat, Finnish)
	if w-k == 1 && capital(s, k) && w+1 < len(s) && s[w] == ' ' && isDigit(s[w+1]) {
		_, n, e := number(s, w+1)
		if n <= 3 && (e == len(s) || !wordByte(s[e]) && !isDigit(s[e])) {
			return e
		}
	}
	if !isUnitWord(s[k:w]) {
		return k
	}
	e := dotAfter(s, w)
	e2 := skipSpaces(s, e)
	if e2 == e && !(e2 < len(s) && s[e2] == '#') {
		return k
	}
	if e2 < len(s) && s[e2] == '#' {
		e2++
	}
	x := e2
	for x < len(s) && (isDigit(s[x]) || isASCIILetter(s[x]) || (s[x] == '-' || s[x] == '/') && x+1 < len(s) && isDigit(s[x+1])) {
		x++
	}
	if x == e2 || x-e2 > 8 || !isDigit(s[e2]) && x-e2 > 2 {
		return k
	}
	return x
}

// cityStarts reports whether a city's name starts at k: a capital, or a
// particle before one (das Neves de Oliveira, a Brazilian family's name).
func cityStarts(s string, k int) bool {
	if capital(s, k) {
		return true
	}
	w := wordAt(s, k)
	return w+1 < len(s) && s[w] == ' ' && s[k] == 'd' && (w-k == 2 || w-k == 3 && s[k+2] == 's') && strings.IndexByte("aoe", s[k+1]) >= 0 && capital(s, w+1)
}

// postLabel skips a postcode's label at k: PIN, ZIP, CEP, PLZ, CAP, CP,
// Postcode (and a colon).
func postLabel(s string, k int) int {
	w := wordAt(s, k)
	if w == k {
		return k
	}
	if addrMark(s[k:w])&(amLabel|amLabelCP) != 0 {
		e := w
		if e < len(s) && s[e] == ':' {
			e++
		}
		if e2 := skipSpaces(s, e); e2 < len(s) && (isDigit(s[e2]) || e2 > e) {
			return e2
		}
	}
	return k
}

// countryPrefix skips a country prefix before a postcode at k: D-, F-,
// SE-, DK-, FI-, NL-, CH-, A-, I-, E-, L-, B-, P-.
func countryPrefix(s string, k int) int {
	for n := 1; n <= 2; n++ {
		if k+n+1 < len(s) && s[k+n] == '-' && isDigit(s[k+n+1]) {
			if n == 1 && strings.IndexByte("DFAIELBP", s[k]) >= 0 || n == 2 && s[k] != ' ' && s[k+1] != ' ' && strings.Contains("SE DK FI NL CH PL NO", s[k:k+2]) {
				return k + n + 1
			}
		}
	}
	return k
}

// postcodeAt reads a postcode at k, in one of the formats of postcodeShape,
// ending on a boundary. strong refuses four digits that may be a year.
func postcodeAt(s string, k int, strong bool) (int, bool) {
	if k >= len(s) {
		return 0, false
	}
	if isDigit(s[k]) {
		v, n, e := number(s, k)
		var end int
		switch n {
		case 5:
			end = e
			if e+1 < len(s) && s[e] == '-' && isDigit(s[e+1]) {
				if _, n2, e2 := number(s, e+1); n2 == 4 || n2 == 3 {
					end = e2 // ZIP+4, CEP
				}
			}
		case 4:
			end = e
			if e+1 < len(s) && s[e] == '-' && isDigit(s[e+1]) {
				if _, n2, e2 := number(s, e+1); n2 == 3 {
					end = e2 // PT
					break
				}
				return 0, false
			}
			// NL: 1017 GA, 1017GA
			l := e
			if l < len(s) && s[l] == ' ' {
				l++
			}
			if l+2 <= len(s) && s[l]-'A' < 26 && s[l+1]-'A' < 26 && (l+2 == len(s) || !wordByte(s[l+2])) {
				if p := s[l : l+2]; p != "SA" && p != "SD" && p != "SS" && v >= 1000 {
					end = l + 2
					break
				}
			}
			if strong && v >= 1900 && v <= 2099 {
				return 0, false
			}
		case 3:
			if e+1 < len(s) && (s[e] == ' ' || s[e] == '-') && isDigit(s[e+1]) {
				_, n2, e2 := number(s, e+1)
				switch {
				case n2 == 2 && s[e] == ' ', n2 == 3 && s[e] == ' ', n2 == 4 && s[e] == '-':
					end = e2 // SE, IN, JP
				}
			}
		case 2:
			if e+1 < len(s) && s[e] == '-' && isDigit(s[e+1]) {
				if _, n2, e2 := number(s, e+1); n2 == 3 {
					end = e2 // PL
				}
			} else if e+1 < len(s) && s[e] == ' ' && isDigit(s[e+1]) {
				// FR written with a space, "75 002 Paris": only before
				// its city.
				if _, n2, e2 := number(s, e+1); n2 == 3 && e2+1 < len(s) && s[e2] == ' ' && cityStarts(s, e2+1) {
					end = e2
				}
			}
		case 6:
			end = e
		case 8:
			// BR's CEP without its hyphen, "01310100 São Paulo": only
			// before its city.
			if e+1 < len(s) && s[e] == ' ' && cityStarts(s, e+1) {
				end = e
			}
		}
		if end == 0 || end < len(s) && (isDigit(s[end]) || wordByte(s[end]) || s[end] == '.' && end+1 < len(s) && isDigit(s[end+1]) || s[end] == '-' && end+1 < len(s) && isDigit(s[end+1])) {
			return 0, false
		}
		return end, true
	}
	return letterPostcode(s, k, strong)
}

// letterPostcode reads a British (SW1A 1AA, NW1 6XE, M1 1AE) or Canadian
// (K1A 0B1) postcode at k. strict refuses the inward letters C I K M O V
// that no real postcode has, and the inward 99A; after a typed street
// line they are taken (generated data, typos: PR8 3YK).
func letterPostcode(s string, k int, strict bool) (int, bool) {
	up := func(j int) bool { return j < len(s) && s[j]-'A' < 26 }
	dg := func(j int) bool { return j < len(s) && isDigit(s[j]) }
	end := func(j int) (int, bool) {
		if j < len(s) && (isDigit(s[j]) || wordByte(s[j])) {
			return 0, false
		}
		return j, true
	}
	// Canada: A9A 9A9, no D F I O Q U, not W or Z first.
	if up(k) && dg(k+1) && up(k+2) {
		j := k + 3
		if j < len(s) && s[j] == ' ' {
			j++
		}
		if dg(j) && up(j+1) && dg(j+2) && !strings.ContainsAny(s[k:j+3], "DFIOQU") && s[k] != 'W' && s[k] != 'Z' {
			return end(j + 3)
		}
	}
	// Britain: outward A9, A99, AA9, AA99, A9A, AA9A; inward 9AA.
	j := k
	if !up(j) {
		return 0, false
	}
	j++
	if up(j) {
		j++
	}
	if !dg(j) {
		return 0, false
	}
	j++
	if dg(j) || up(j) {
		j++
	}
	if j < len(s) && s[j] == ' ' {
		j++
	}
	// Loose, also AA99 99A: no real inward code, but generated data writes it so.
	if dg(j) && up(j+2) && (up(j+1) && (!strict || !strings.ContainsAny(s[j+1:j+3], "CIKMOV")) || !strict && dg(j+1) && s[j-1] == ' ') {
		return end(j + 3)
	}
	return 0, false
}

// ---------------------------------------------------------------- postcodes first

// postcodeAnchor reads an address found by its postcode at or around the
// digit run at i: after a label (PIN 110001, PLZ 10115, 〒), or a
// British or Canadian postcode after a city (London NW1 6XE, Ottawa ON
// K1A 0B1), with the street line before when there is one.
func postcodeAnchor(s string, i int) (int, int) {
	// Back to the start of a letter postcode: NW1, SW1A, K1A.
	k := i
	for k > 0 && i-k < 2 && s[k-1]-'A' < 26 {
		k--
	}
	if k > 0 && wordByte(s[k-1]) {
		return 0, 0
	}
	if k < i {
		e, ok := letterPostcode(s, k, true)
		if !ok {
			return 0, 0
		}
		// A city before it.
		c := cityBefore(s, k)
		if c < 0 && k >= 2 && s[k-1] == '\n' {
			// On its own line under its city's (GB): a line of the city
			// alone, and a street line above it (Flat 47⏎Holden
			// inlet⏎Lyonsview⏎WA74 3SE).
			j := k - 1
			if s[j-1] == '\r' {
				j--
			}
			if c = cityWordsBefore(s, j); c > 0 && s[c-1] == '\n' && streetBefore(s, c) == c {
				c = -1
			}
		}
		if c < 0 {
			return 0, 0
		}
		return streetBefore(s, c), postTail(s, e)
	}
	// A label before the digits (and a country prefix: PLZ D-10115).
	for n := 1; n <= 2; n++ {
		if k-n-1 >= 0 && countryPrefix(s, k-n-1) == k && (k-n-1 == 0 || !wordByte(s[k-n-2])) {
			k -= n + 1
			break
		}
	}
	j := k
	for j > 0 && s[j-1] == ' ' {
		j--
	}
	if j > 0 && s[j-1] == ':' {
		j--
		for j > 0 && s[j-1] == ' ' {
			j--
		}
	}
	if j == k && !(j > 0 && s[j-1] == ':') {
		return 0, 0
	}
	ws := wordBefore(s, j)
	if ws == j {
		return 0, 0
	}
	if m := addrMark(s[ws:j]); m&amMilitary != 0 {
		return militaryAddress(s, k, ws)
	} else if m&(amLabel|amLabelLong) == 0 {
		// Postal code, PIN code, ZIP code.
		p := wordBefore(s, max(ws-1, 0))
		if ws < 1 || s[ws-1] != ' ' || p == ws-1 || !strings.EqualFold(s[ws:j], "code") || addrMark(s[p:ws-1])&amLabelCode == 0 {
			return 0, 0
		}
	}
	e, ok := postcodeAt(s, countryPrefix(s, k), false)
	if !ok {
		return 0, 0
	}
	return k, e
}

// militaryAddress reads a US military address whose ZIP is at k after
// its APO, FPO or DPO and the state code at ws (AA, AE, AP), with the
// ship or the unit and box before them: "USS Webster, FPO AP 60978",
// "PSC 1234, Box 5678, APO AA 12345", "Unit 1234 Box 5678, DPO AE
// 12345".
func militaryAddress(s string, k, ws int) (int, int) {
	p := wordBefore(s, max(ws-1, 0))
	if ws < 2 || s[ws-1] != ' ' || ws-1-p != 3 || s[p+1:ws-1] != "PO" || !strings.Contains("AFD", s[p:p+1]) {
		return 0, 0
	}
	e, ok := postcodeAt(s, k, false)
	if !ok || e-k != 5 {
		return 0, 0
	}
	start := streetBefore(s, p) // USS (a unit word), PSC 1234, Box 5678
	if start == p {
		return 0, 0
	}
	return start, e
}

// cityBefore returns the start of the city (and state) before a postcode
// at k ("London NW1 6XE", "Ottawa, ON K1A 0B1"), or -1.
func cityBefore(s string, k int) int {
	j := k
	for j > 0 && (s[j-1] == ' ' || s[j-1] == ',') {
		j--
	}
	if j == k || j == 0 || s[k-1] == '\n' {
		return -1
	}
	return cityWordsBefore(s, j)
}

// cityWordsBefore returns the start of the city's words ending at j, or -1.
func cityWordsBefore(s string, j int) int {
	start := -1
	for words := 0; words < 4; words++ {
		ws := wordBefore(s, j)
		if ws == j || !nameWord(s, ws, j) {
			break
		}
		start = ws
		if ws == 0 || s[ws-1] != ' ' && s[ws-1] != ',' {
			break
		}
		j = ws
		for j > 0 && (s[j-1] == ' ' || s[j-1] == ',') {
			j--
		}
		if ws-j > 2 {
			break
		}
		if p := wordBefore(s, j); p < j && !capital(s, p) {
			break
		}
	}
	return start
}

// streetBefore extends an address starting at c (its city) back over a
// street line before it: a comma or a line break, then a segment that
// holds a house number or a street type ("Flat 72, Evans islands,
// London").
func streetBefore(s string, c int) int {
	start := c
	for segs := 0; segs < 3; segs++ {
		j := start
		for j > 0 && s[j-1] == ' ' {
			j--
		}
		if j == 0 || s[j-1] != ',' && s[j-1] != '\n' {
			break
		}
		j--
		for j > 0 && s[j-1] == ' ' {
			j--
		}
		// The segment: words and numbers back to a comma, a line break or
		// a word that is no part of a name.
		q, proof, segStart := j, false, -1
		for q > 0 && j-q < 60 {
			c := s[q-1]
			if c == ',' || c == '\n' {
				break
			}
			if c == ' ' || c == '.' || c == '#' || c == '/' || c == '-' {
				q--
				continue
			}
			if isDigit(c) || isASCIILetter(c) && q >= 2 && isDigit(s[q-2]) { // Studio 86u
				for q > 0 && (isDigit(s[q-1]) || isASCIILetter(s[q-1]) && q-2 >= 0 && isDigit(s[q-2])) {
					q--
				}
				proof = true
				segStart = q
				continue
			}
			ws := wordBefore(s, q)
			if ws == q {
				break
			}
			w := s[ws:q]
			switch {
			case streetType(w)&stAny != 0 && !strings.HasPrefix(s[q:], ". ") || isUnitWord(w): // Dr. Donald Cox is no Drive
				proof = true
			case nameWord(s, ws, q):
			case isConnector(w):
			default:
				q = -1
			}
			if q < 0 {
				break
			}
			if ok, _ := glued(w); ok {
				proof = true
			}
			segStart = ws
			q = ws
		}
		if !proof || segStart < 0 {
			break
		}
		for segStart < j && s[segStart] == ' ' {
			segStart++
		}
		start = segStart
	}
	return start
}

// ---------------------------------------------------------------- Japan

// jpAddress reads a Japanese address around the digit run at i: 〒 and
// its postcode, then the prefecture, city, ward and town in kanji and
// kana, and the block numbers (1-1, 1-2-3, 1丁目2番3号).
func jpAddress(s string, i int) (int, int) {
	start, k := -1, i
	if i >= 3 && s[i-3:i] == "〒" {
		start = i - 3
	} else if i >= 4 && s[i-4:i] == "〒 " {
		start = i - 4
	}
	if start >= 0 {
		_, n, e := number(s, k)
		if n != 3 || e+5 > len(s) || s[e] != '-' {
			return 0, 0
		}
		_, n2, e2 := number(s, e+1)
		if n2 != 4 {
			return 0, 0
		}
		end := e2
		q := skipSpaces(s, e2)
		if b, ok := jpBody(s, q); ok {
			end = b
		}
		end, _ = cjkTail(s, end)
		return start, end
	}
	// Without 〒: the kanji before the block numbers.
	a := i
	region := false
	for a >= 3 && i-a < 60 && cjk(s, a-3) {
		if jpRegion(s[a-3 : a]) {
			region = true
		}
		a -= 3
	}
	// Not the words before: start at the prefecture (two kanji before
	// its 都道府県, three for 神奈川, 和歌山, 鹿児島), else after the
	// last particle (は, に, で, を, が).
	pref := -1
	for k := a; k < i; k += 3 {
		if strings.Contains("都道府県", s[k:k+3]) {
			if s[k:k+3] == "都" && strings.HasPrefix(s[k+3:], "府") { // 京都府, not 石川県府中市
				k += 3
			}
			pref = k
			k = i
		}
	}
	switch {
	case pref >= 0 && pref-a >= 9 && jp3Prefecture(s[pref-9:pref]):
		a = pref - 9
	case pref >= 0 && pref-a >= 6:
		a = pref - 6
	case pref < 0:
		for k := a; k < i; k += 3 {
			if strings.Contains("はにでをが", s[k:k+3]) {
				a = k + 3
			}
		}
	}
	region = false
	for k := a; k < i; k += 3 {
		region = region || jpRegion(s[k:k+3])
	}
	if a == i {
		return 0, 0
	}
	if b, ok := jpBlocks(s, i); ok {
		_, _, e := number(s, i)
		if e+3 == b && s[e:b] == "号" && (jpRegion(s[i-3:i]) || han(s, b)) {
			return 0, 0 // 通道3号, 数据中心2号机房: a lone 号 is no block
		}
		lone := e+3 == b
		b, post := cjkTail(s, jpBuilding(s, b))
		if region || post && !lone {
			return a, b // no region word: a postcode after (六本木1-2-3, 106-0032)
		}
	}
	return 0, 0
}

// jpBlockLine reads block numbers that are a street line alone at i
// (faker's: 4丁目3番9号, 9丁目6-3; 3丁目の交差点 is none), the town's
// kanji glued before them, the building, postcode and city after them.
func jpBlockLine(s string, i int) (int, int, bool) {
	_, n, e := number(s, i)
	if n > 2 || !strings.HasPrefix(s[e:], "丁目") || e+6 >= len(s) || !isDigit(s[e+6]) {
		return 0, 0, false
	}
	b, ok := jpBlocks(s, i)
	if !ok {
		return 0, 0, false
	}
	a := i
	for a-3 >= 0 && i-a < 30 && cjk(s, a-3) && !jpParticle(s[a-3:a]) {
		a -= 3
	}
	b, _ = cjkTail(s, jpBuilding(s, b))
	return a, b, true
}

// jpParticle reports whether the kana k is a particle that ends the words
// before an address (住所は, 東京に).
func jpParticle(k string) bool {
	return len(k) == 3 && strings.Contains("はにでをがのへ", k)
}

// jpBody reads the kanji and kana of an address at q and its block
// numbers (after 〒 and its postcode: a region word need not be there,
// 〒106-0032 六本木6-10-1).
func jpBody(s string, q int) (int, bool) {
	k := q
	for k+3 <= len(s) && k-q < 60 && cjk(s, k) {
		k += 3
	}
	if k == q || k >= len(s) || !isDigit(s[k]) || s[k] == '0' { // 電話03-1234-5678
		return 0, false
	}
	b, ok := jpBlocks(s, k)
	if !ok {
		return 0, false
	}
	return jpBuilding(s, b), true
}

// jpBlocks reads block numbers at k: 1-1, 1-2-3, 1丁目2番3号, 4番地.
func jpBlocks(s string, k int) (int, bool) {
	_, n, e := number(s, k)
	if n == 0 || n > 4 {
		return 0, false
	}
	groups := 1
	for e < len(s) {
		t := s[e:]
		switch {
		case t[0] == '-' && len(t) > 1 && isDigit(t[1]):
			_, _, e = number(s, e+1)
			groups++
			continue
		case strings.HasPrefix(t, "丁目") && len(t) > 6 && isDigit(t[6]):
			_, _, e = number(s, e+6)
			groups++
			continue
		case strings.HasPrefix(t, "番地") && len(t) > 6 && isDigit(t[6]), strings.HasPrefix(t, "番") && len(t) > 3 && isDigit(t[3]):
			e = e + 3
			if strings.HasPrefix(s[e:], "地") {
				e += 3
			}
			_, _, e = number(s, e)
			groups++
			continue
		case strings.HasPrefix(t, "丁目"), strings.HasPrefix(t, "番地"):
			return e + 6, true
		case strings.HasPrefix(t, "号线"), strings.HasPrefix(t, "号線"):
			return 0, false // 2号線, a railway line
		case strings.HasPrefix(t, "番"), strings.HasPrefix(t, "号"):
			return e + 3, true
		}
		break
	}
	if groups < 2 {
		return 0, false
	}
	return e, true
}

// jpBuilding extends the address ending at b over a building name and
// room after a space: "千代田ハイツ101".
func jpBuilding(s string, b int) int {
	k := b
	if k < len(s) && s[k] == ' ' {
		k++
	}
	q := k
	for q+3 <= len(s) && q-k < 72 && cjk(s, q) { // パレス虎ノ門ヒルズ森タワー192
		q += 3
	}
	spaced := q > k && q+1 < len(s) && s[q] == ' ' && isDigit(s[q+1]) // 森タワー 42階
	if spaced {
		q++
	}
	if q == k || q >= len(s) || !isDigit(s[q]) {
		return b
	}
	_, n, e := number(s, q)
	if n > 4 {
		return b
	}
	switch t := s[e:]; {
	case strings.HasPrefix(t, "号室"):
		e += 6
	case strings.HasPrefix(t, "階"), strings.HasPrefix(t, "号"):
		e += 3
	case len(t) > 0 && t[0] == 'F' && (len(t) == 1 || !wordByte(t[1])):
		e++
	case spaced:
		return b
	}
	return e
}

// jp3Prefecture reports whether p is the name of a prefecture of three
// kanji before its 県.
func jp3Prefecture(p string) bool {
	return p == "神奈川" || p == "和歌山" || p == "鹿児島"
}

// cjk reports whether a kanji or kana (or 々, ヶ) starts at k.
func cjk(s string, k int) bool {
	if k+3 > len(s) {
		return false
	}
	c := s[k]
	switch {
	case c == 0xe3:
		return s[k+1] >= 0x81 || s[k+1] == 0x80 && s[k+2] == 0x85 // kana, 々
	case c >= 0xe4 && c <= 0xe9:
		return true
	}
	return false
}

// jpRegion reports whether the kanji k names a level of a Japanese
// address: 都 道 府 県 市 区 町 村 郡.
func jpRegion(k string) bool {
	return len(k) == 3 && strings.Contains("都道府県市区町村郡", k)
}
