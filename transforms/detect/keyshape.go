package detect

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The shapes a value must have to be reported by its key or label
// (keys.go): a person's name, an address, a birth date, a postcode, an
// identifier. The family files own the finer checks (names.go's
// personNameShape, address.go's addressShape, dob.go's birthDateShape);
// keyShapes is the seam through which keys.go asks, so that theirs
// replace these minimal ones where they are merged.
var keyShapes = struct {
	// personName: v is a person's name; single allows one word (a given
	// or family name).
	personName func(v string, single bool) bool
	address    func(v string) bool
	birthDate  func(v string) bool
}{func(v string, single bool) bool {
	if ok, _ := personNameShape(v); ok {
		return true // names.go's tables and rules
	}
	return keyPersonName(v, single)
},
	// A value under an address or birth-date key is one when the scans
	// would find it (address.go, dob.go) or it has the looser shape a
	// key's promise is enough for.
	func(v string) bool { return addressShape(v) || keyAddress(v) },
	func(v string) bool { return birthDateShape(v) || keyBirthDate(v) }}

// nameParticles are the lower-case words a name may hold.
var nameParticles = map[string]bool{}

// notNames are words that make a capitalised value no person's: legal
// forms of companies and the words of products, plans and roles.
var notNames = map[string]bool{}

func init() {
	for _, w := range strings.Fields("van von der den de del della delle dei di da das do dos du la le lo el y e i zu ten ter bin binti bint ibn al af av mac ap") {
		nameParticles[w] = true
	}
	for _, w := range strings.Fields("gmbh ag kg ohg ug ltd limited llc llp inc incorporated corp corporation co company plc pty sa sas sarl sl slu srl spa bv nv oy oyj ab asa as aps kk gk " +
		"ltda eireli me sp zoo group holding holdings partners gbr ev foundation stiftung trust bank " +
		"plan pro basic premium enterprise free starter team business standard plus gold silver bronze platinum " +
		"admin administrator test testing default unknown none null anonymous system service support sales billing " +
		"widget product order invoice item account project server tool api app demo sample example customer user guest " +
		"n/a na tbd todo unnamed untitled new") {
		notNames[w] = true
	}
}

// keyPersonName: 1 to 6 words of letters (an apostrophe, a hyphen or a
// dot inside), each capitalised or a particle, or in a script without
// case; no digit, no '@', '_', '/' or other mark of an identifier; not a
// company's legal form or a product's word. Lower-case words only when
// single (a given or family name's key: "alice" under first_name).
func keyPersonName(v string, single bool) bool {
	if len(v) < 2 || len(v) > 80 {
		return false
	}
	words, capital, uncased := 0, 0, 0
	for i := 0; i < len(v); {
		// One word: letters, with ' - . inside.
		for i < len(v) && v[i] == ' ' {
			i++
		}
		if i == len(v) {
			break
		}
		start := i
		first := true
		var firstRune rune
		for i < len(v) && v[i] != ' ' {
			r, size := utf8.DecodeRuneInString(v[i:])
			switch {
			case unicode.IsLetter(r) || unicode.IsMark(r):
			case r == '\'' || r == '’' || r == '-' || r == '.' || r == '‐':
				if first {
					return false
				}
			case r == ',' && (i+size == len(v) || v[i+size] == ' '):
				// "Martin, Alice"
			default:
				return false
			}
			if first {
				firstRune, first = r, false
			}
			i += size
		}
		word := strings.TrimRight(v[start:i], ".,")
		words++
		if words > 6 {
			return false
		}
		var buf [16]byte
		lw := lowerASCII(buf[:0], word)
		if len(word) > len(buf) {
			lw = nil
		}
		if notNames[string(lw)] {
			return false
		}
		switch {
		case unicode.IsUpper(firstRune) || unicode.IsTitle(firstRune):
			capital++
		case !unicode.IsLower(firstRune):
			uncased++ // 山田, 김
		case nameParticles[string(lw)]:
		default:
			if !single {
				return false // a lower-case word under a bare name: gold, get customer
			}
		}
	}
	if words == 0 {
		return false
	}
	return capital+uncased > 0 || single
}

// lowerASCII appends word to b in ASCII lower case (a word longer than
// cap(b) is cut: the tables hold short words).
func lowerASCII(b []byte, word string) []byte {
	for i := 0; i < len(word) && len(b) < cap(b); i++ {
		c := word[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// keyAddress: a street address or its street line: letters, at most 200
// bytes, two words or more; no '@', no "://", no identifier of a machine
// (an IP address, a hex string).
func keyAddress(v string) bool {
	if len(v) < 4 || len(v) > 200 || strings.ContainsAny(v, "@:=") || strings.HasPrefix(v, "0x") {
		return false // a mail or network address (host:port, addr=…), a URL
	}
	letters, spaces := 0, 0
	for _, r := range v {
		switch {
		case unicode.IsLetter(r):
			letters++
		case r == ' ' || r == ',':
			spaces++
		}
	}
	if letters < 3 {
		return false
	}
	if spaces == 0 {
		// One word: a Japanese address (東京都千代田区…), or a
		// compound street name with its number glued (Hauptstr.5).
		return utf8.RuneCountInString(v) >= 6 && !isASCII(v) || digitCount(v) > 0 && letters >= 4 && strings.ContainsAny(v, ".")
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// houseNumberShape: 1 to 5 digits, a letter or two, a range (12-14), bis.
func houseNumberShape(v string) bool {
	if len(v) > 12 || v == "" || v[0] < '0' || v[0] > '9' {
		return false
	}
	d := digitCount(v)
	return d >= 1 && d <= 6
}

// keyPostcode: a postcode under a postcode key: address.go's
// postcodeShape, or 3 to 10 letters, digits and one space or dash, with
// two digits or more (a country's format the scan does not know).
func keyPostcode(v string) bool { return postcodeShape(v) || loosePostcode(v) }

func loosePostcode(v string) bool {
	if len(v) < 3 || len(v) > 10 {
		return false
	}
	seps := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c == ' ' || c == '-':
			seps++
		default:
			return false
		}
	}
	return seps <= 1 && digitCount(v) >= 2
}

// cityShape: letters, spaces, hyphens, apostrophes and dots; capitalised
// or in a script without case; at most 50 bytes.
func cityShape(v string) bool {
	if len(v) < 2 || len(v) > 50 {
		return false
	}
	r0, _ := utf8.DecodeRuneInString(v)
	if unicode.IsLower(r0) {
		// A settlement's abbreviation first (г. Сарапул, п. Биробиджан).
		if k := strings.IndexAny(v, ". "); k > 0 && scriptWord(v[:k])&scriptPlace != 0 {
			rest := strings.TrimLeft(v[k:], ". ")
			return len(rest) < len(v)-k && cityShape(rest)
		}
		return false
	}
	if !unicode.IsLetter(r0) {
		return false
	}
	hebrew := r0 >= 0x5d0 && r0 <= 0x5ea
	for _, r := range v {
		if !(unicode.IsLetter(r) || unicode.IsMark(r) || r == ' ' || r == '-' || r == '\'' || r == '.' || r == '’' || hebrew && (r == '"' || r == '״' || r == '׳')) {
			return false // (a Hebrew abbreviation's gershayim: ראשל"צ, דוב"ב)
		}
	}
	return true
}

// streetNameShape: a street's name without its house number (kept in a
// member of its own: "straat": "Kerkstraat", "huisnummer": "12"):
// capitalised words of letters with a street-type word and a name, or a
// strong glued suffix (Kerkstraat, Main Street, Rue de la Paix).
func streetNameShape(v string) bool {
	v = strings.TrimSpace(v)
	if !cityShape(v) {
		return false
	}
	words := strings.Fields(v)
	for _, w := range words {
		w = strings.TrimSuffix(w, ".")
		if streetType(w) != 0 && len(words) > 1 { // a type word alone (Spring, Park) names no street
			return true
		}
		if ok, weak := glued(w); ok && !weak {
			return true
		}
	}
	return false
}

// idShape: an identifier: 4 to 40 bytes of letters and digits with
// single spaces, dashes, dots or slashes between groups; two digits or
// more; not one character repeated; no word of prose (a group of letters
// longer than 4 without digits after the first group).
func idShape(v string) bool {
	if len(v) < 4 || len(v) > 40 {
		return false
	}
	digits, alnum := 0, 0
	var first byte
	same := true
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c == ' ' || c == '-' || c == '.' || c == '/':
			if i == 0 || i+1 == len(v) || !alnumByte(v[i-1]) || !alnumByte(v[i+1]) {
				return false
			}
			continue
		default:
			return false
		}
		alnum++
		if first == 0 {
			first = c
		} else if c != first {
			same = false
		}
	}
	if digits < 2 || same || alnum < 4 {
		return false
	}
	// A group of 5 or more letters alone is a word (Passport: pending).
	run := 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) && (v[i]|0x20 >= 'a' && v[i]|0x20 <= 'z') {
			run++
			continue
		}
		if run >= 5 && (i == len(v) || !alnumByte(v[i])) && (i-run == 0 || !alnumByte(v[i-run-1])) {
			return false
		}
		run = 0
	}
	return true
}

func alnumByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

func digitCount(v string) int {
	n := 0
	for i := 0; i < len(v); i++ {
		if v[i] >= '0' && v[i] <= '9' {
			n++
		}
	}
	return n
}

// monthWords are the months of the vocabulary's languages by their
// first three letters (folded), and the Japanese date marks.
var monthWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("jan feb mar apr may jun jul aug sep oct nov dec " +
		"jae maer mai okt dez janv fev avr jui aou dic ene abr ago gen mag giu lug set ott " +
		"maa mei out sty lut kwi maj cze lip sie wrz paz lis gru tam hel huh tou kes hei elo syy lok jou") {
		monthWords[w] = true
	}
}

// keyBirthDate: a date a person could be born on: day, month and year
// (year 1900–2029) in a numeric form (1985-03-04, 04/03/1985, 4.3.1985,
// 04-03-85, 19850304), optionally with a time of midnight, or with the
// month in words (4 March 1985, März 4, 1985, 1985年3月4日).
func keyBirthDate(v string) bool {
	if len(v) < 6 || len(v) > 40 {
		return false
	}
	if t := strings.IndexAny(v, "T "); t >= 8 && numericDate(v[:t]) {
		rest := v[t+1:]
		return strings.HasPrefix(rest, "00:00") || rest == "" // a time of day other than midnight: a timestamp
	}
	if numericDate(v) {
		return true
	}
	return wordDate(v)
}

// numericDate: d, m, y in some order, separated by one of - / . (the same
// twice), or 8 digits yyyymmdd.
func numericDate(v string) bool {
	var parts [3]int
	var widths [3]int
	n := 0
	var sep byte
	w := 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) && v[i] >= '0' && v[i] <= '9' {
			if w == 8 { // (yyyymmdd whole; a part of three is checked below)
				return false
			}
			parts[n] = parts[n]*10 + int(v[i]-'0')
			w++
			continue
		}
		if w == 0 {
			return false
		}
		widths[n] = w
		n++
		w = 0
		if i == len(v) {
			break
		}
		c := v[i]
		if c != '-' && c != '/' && c != '.' || n == 3 || sep != 0 && c != sep {
			return false
		}
		sep = c
	}
	if n == 1 && widths[0] == 8 {
		y, m, d := parts[0]/10000, parts[0]/100%100, parts[0]%100
		return plausibleDate(y, m, d)
	}
	if n != 3 {
		return false
	}
	switch {
	case widths[0] == 4: // y m d
		return widths[1] <= 2 && widths[2] <= 2 && plausibleDate(parts[0], parts[1], parts[2])
	case widths[2] == 4 || widths[2] == 2: // d m y or m d y
		y := parts[2]
		if widths[2] == 2 {
			y += 1900
			if y < 1930 {
				y += 100
			}
		}
		return widths[0] <= 2 && widths[1] <= 2 && (plausibleDate(y, parts[1], parts[0]) || plausibleDate(y, parts[0], parts[1]))
	}
	return false
}

func plausibleDate(y, m, d int) bool {
	return y >= 1900 && y <= 2029 && m >= 1 && m <= 12 && d >= 1 && d <= 31
}

// wordDate: a year, a day and a month in words, nothing else but
// separators (and "de", "of", "the", ordinal suffixes); or y年m月d日
// (Korean: y년 m월 d일).
func wordDate(v string) bool {
	if strings.Contains(v, "年") && strings.Contains(v, "月") || strings.Contains(v, "년") && strings.Contains(v, "월") {
		y, m, d := 0, 0, 0
		var cur int
		for _, r := range v {
			switch {
			case r >= '0' && r <= '9':
				cur = cur*10 + int(r-'0')
			case r == '年' || r == '년':
				y, cur = cur, 0
			case r == '月' || r == '월':
				m, cur = cur, 0
			case r == '日' || r == '일':
				d, cur = cur, 0
			case r == ' ':
			default:
				return false
			}
		}
		return plausibleDate(y, m, d)
	}
	year, day, month := 0, 0, 0
	var k normKey
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ',' || r == '.' || r == '/' || r == '-' }) {
		switch {
		case f[0] >= '0' && f[0] <= '9':
			n := 0
			dg := 0
			for dg < len(f) && f[dg] >= '0' && f[dg] <= '9' {
				n = n*10 + int(f[dg]-'0')
				dg++
			}
			switch suffix := strings.ToLower(f[dg:]); {
			case dg == 4 && suffix == "":
				year = n
			case dg <= 2 && (suffix == "" || suffix == "st" || suffix == "nd" || suffix == "rd" || suffix == "th" || suffix == "er" || suffix == "e" || suffix == "º" || suffix == "o"):
				day = n
			default:
				return false
			}
		default:
			if !k.set(f) || k.nw != 1 {
				return false
			}
			w := string(k.b[:k.n])
			switch {
			case len(w) >= 3 && monthWords[w[:3]]:
				month++
			case w == "de" || w == "of" || w == "the" || w == "di" || w == "del" || w == "der":
			default:
				return false
			}
		}
	}
	return month == 1 && day >= 1 && day <= 31 && year >= 1900 && year <= 2029
}
