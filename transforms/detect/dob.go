package detect

import (
	"math"
	"math/bits"
	"strings"
	"time"
	"unicode/utf8"
)

// Dates of birth (manual 12.9.4): a date in a common format whose
// context says it is a birth date. The scan finds each digit run, reads a
// date around it (parseDateAt: numeric, ISO, with a month's name in one
// of twelve languages, Japanese years and eras), validates it (a real
// calendar date, a year from 1900 to this year) and only then looks back
// a bounded window for a context word (born, DOB, geboren, né le, 生年月日…,
// plus the policy's words). The span is the date alone.
//
// No digit, no date: birthDatesClean is one look for a digit.

// minBirthYear is the earliest plausible birth year; the latest is this
// year (thisYear, read once).
const minBirthYear = 1900

var thisYear = func() int {
	if y := time.Now().Year(); y >= 2025 {
		return y
	}
	return 2026
}()

// scanBirthDates reports the dates with a birth context before them (or
// 生まれ after them).
func (p *pass) scanBirthDates() { p.scanDigits(dobStepOn) }

// dobStep is scanBirthDates' visit of the digit run at i (which passed
// dateGlued and dateRunMax): it reports a birth date there and returns
// where the next visit may be.
func (p *pass) dobStep(i int) int {
	s := p.s
	a, b, ok := dateAround(s, i)
	if !ok {
		return skipDigits(s, i)
	}
	if birthContext(s, a, b, p.dobExtra()) && !dateRangeAfter(s, b) {
		// Polish writes "r." (roku, year) after the year: part of the
		// date's words, inside the span.
		if strings.HasPrefix(s[b:], " r.") && (b+3 == len(s) || !wordByte(s[b+3])) {
			b += 3
		}
		p.emitBy(detDateOfBirth, BasisContext, a, b)
	}
	return b
}

// dobExtra is the policy's context words for birth dates.
func (p *pass) dobExtra() []string {
	if p.extra != nil {
		return p.extra.Context["date_of_birth"]
	}
	return nil
}

// dateRunMax is the scan's cheap test of a digit run, by the byte after
// it: the longest run a date may start with there (0: none). Most digit
// runs of a message are glued to letters (dateGlued, tested first) or
// stand in JSON numbers and are not.
var dateRunMax = func() (t [256]int) {
	for _, c := range "-/." {
		t[c] = 4
	}
	for _, c := range " ,snrteoa" {
		t[c] = 2
	}
	t[0xe5] = math.MaxInt // 年
	t[0xeb] = math.MaxInt // 년
	t[0xe6] = 2           // 月 after 元年
	t[0xc2] = 2           // the ordinal's º, ª, °: "1º aprile"
	return t
}()

// dateSepMay reports whether the digits [t, e) and the '-', '/' or '.'
// after them may start a date (dateRunMax has 4 for these): dateAt's
// three groups with one separator (1985-03-04, 04.03.85; none starts
// with three digits), the Nordic "4/3 1985" and "4/3-1985", "4. März",
// "4.März", "4. 3. 1985", "4/mar/1985" or
// "04-Mar-1985". dateAround's other
// reads need a space or 年 after the run. Most runs before a separator
// are decimals, versions and a time's seconds (12:30:05.123), none.
func dateSepMay(s string, t, e int) bool {
	if e-t == 3 || e+1 >= len(s) {
		return false
	}
	c, d := s[e], s[e+1]
	if isDigit(d) {
		j := skipDigits(s, e+2)
		return j+1 < len(s) && (s[j] == c || c == '/' && (s[j] == ' ' || s[j] == '-')) && isDigit(s[j+1])
	}
	return e-t <= 2 && (c == '.' && (d == ' ' || isASCIILetter(d)) || (c == '-' || c == '/') && isASCIILetter(d))
}

// birthDatesClean reports whether s holds no ASCII digit (the reader
// view's digits of other scripts come with bytes Clean looks at anyway).
func birthDatesClean(s string) bool { return nextDigit(s, 0) == len(s) }

// birthDateShape reports whether s, trimmed of spaces, is one date in a
// format the scan reads, a real calendar date with a plausible birth year
// (1900 to this year), for the keys' walk: a birth-date key's value must
// look like one. An ISO date-time at midnight (1985-03-04T00:00:00Z) is a
// date too, and so is a Polish one with its "r." (4.03.1985 r.).
func birthDateShape(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	i := nextDigit(s, 0)
	if i == len(s) {
		return false
	}
	a, b, ok := dateAround(s, i)
	return ok && a == 0 && (b == len(s) || midnightAfter(s[b:]) || yearWordAfter(s[b:]))
}

// yearWordAfter: t is the word "year" that Polish and Russian write
// after a date's year (1985 r., 26 сентября 1962 г.).
func yearWordAfter(t string) bool {
	switch t {
	case " r.", " г.", " года", " год":
		return true
	}
	return false
}

// midnightAfter reports whether t is the time part of a date-time at
// midnight: T00:00(:00(.0+)?)?(Z|±00:00)?.
func midnightAfter(t string) bool {
	if len(t) < 6 || (t[0] != 'T' && t[0] != ' ') || t[1:6] != "00:00" {
		return false
	}
	t = t[6:]
	if strings.HasPrefix(t, ":00") {
		t = t[3:]
		if strings.HasPrefix(t, ".") {
			t = t[1:]
			for len(t) > 0 && t[0] == '0' {
				t = t[1:]
			}
		}
	}
	return t == "" || t == "Z" || t == "+00:00" || t == "-00:00"
}

// ---------------------------------------------------------------- digits

// nextDigit returns the index of the first ASCII digit of s at or after
// i, or len(s): eight bytes at a time.
func nextDigit(s string, i int) int {
	n := len(s)
	for ; i+8 <= n; i += 8 {
		if m := digits8(load64(s, i)); m != 0 {
			return i + firstLane(m)
		}
	}
	for ; i < n; i++ {
		if isDigit(s[i]) {
			return i
		}
	}
	return n
}

// digits8 has the high bit of each byte of x that is an ASCII digit set
// (exactly so for the lowest such byte; firstLane reads only that one).
func digits8(x uint64) uint64 {
	t := x ^ 0x30*swarOnes // digits become 0..9
	return (t - 0x0a*swarOnes) &^ t & swarHigh
}

func firstLane(m uint64) int { return bits.TrailingZeros64(m) >> 3 }

func isDigit(c byte) bool { return c-'0' < 10 }

func isASCIILetter(c byte) bool { return (c|0x20)-'a' < 26 }

// skipDigits returns the end of the digit run at i.
func skipDigits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// number reads the digit run at i: its value (capped), its length and end.
func number(s string, i int) (v, n, end int) {
	for end = i; end < len(s) && isDigit(s[end]); end++ {
		if v < 1e6 {
			v = v*10 + int(s[end]-'0')
		}
	}
	return v, end - i, end
}

// ---------------------------------------------------------------- dates

// validDate reports whether y-m-d is a calendar date with a plausible
// birth year.
func validDate(y, m, d int) bool {
	if y < minBirthYear || y > thisYear || m < 1 || m > 12 || d < 1 {
		return false
	}
	dim := [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		dim = 29
	}
	return d <= dim
}

// year2 is the plausible years of a two-digit year: 19yy, or 20yy when
// that is not in the future.
func year2Valid(yy, m, d int) bool {
	return validDate(1900+yy, m, d) || validDate(2000+yy, m, d)
}

// dateAround reads a date containing the digit run at i: starting there
// (numeric, day-first with a month's name, Japanese), or at a month's
// name or Japanese era just before it. It returns the date's span.
func dateAround(s string, i int) (a, b int, ok bool) {
	if i > 0 && dateGlued(s[i-1]) && !hebrewPrefixed(s, i) && !stopThenYear(s, i, skipDigits(s, i)) {
		return 0, 0, false
	}
	if b, ok := dateAt(s, i); ok {
		return i, b, true
	}
	// A month's name before the day: "March 4, 1985", "Mar. 4 1985".
	j := i
	for j > 0 && s[j-1] == ' ' {
		j--
	}
	if j < i && j > 0 && s[j-1] == '.' {
		j--
	}
	if j < i {
		ws := j
		for ws > 0 && wordByte(s[ws-1]) {
			ws--
		}
		if ws < j && (ws == 0 || !wordByte(s[ws-1]) && !isDigit(s[ws-1])) {
			if m := monthNumber(s[ws:j]); m > 0 {
				if b, ok := monthFirst(s, i, m); ok {
					return ws, b, true
				}
			}
		}
	}
	// A Japanese era: 昭和60年3月4日, and its first year 平成元年2月27日
	// (the run is then the month's).
	if i >= 6 {
		a, y, e := i-6, 0, 0
		if i >= 12 && s[i-1] == 0xb4 && s[i-6:i] == "元年" {
			a, y, e = i-12, 1, i-3
		} else {
			y, _, e = number(s, i)
		}
		if a >= 0 {
			if base := eraBase(s[a : a+6]); base > 0 {
				if b, ok := kanjiDate(s, e, base+y-1); ok {
					return a, b, true
				}
			}
		}
	}
	return 0, 0, false
}

// dateGlued reports whether a byte before a digit run makes it part of
// something else (a longer number, a version, an identifier).
func dateGlued(c byte) bool {
	return isDigit(c) || isASCIILetter(c) || c == '.' || c == '-' || c == '/' || c == '_' || c == '+' || c == '$' || c == '#'
}

// stopThenYear: the run [i, e) of four digits follows a '.' after a CJK
// character, which is what the reader view makes of a Japanese or Chinese
// full stop (面談。1993年11月1日生まれ, 面談。1966/04/20生まれ): a sentence's
// end, not a number the run is glued to.
func stopThenYear(s string, i, e int) bool {
	return i >= 4 && s[i-1] == '.' && e-i == 4 && s[i-4] >= 0xe3 && s[i-4] <= 0xe9
}

// hebrewPrefixed: the number at i has a Hebrew one-letter prefix (ב, ל,
// מ, ה, ו, כ, ש) joined to it by '-', a word of its own: ב-10.11.1951,
// "on 10.11.1951".
func hebrewPrefixed(s string, i int) bool {
	return i >= 3 && s[i-1] == '-' && s[i-3] == 0xD7 && strings.IndexByte("\x91\x9c\x9e\x94\x95\x9b\xa9", s[i-2]) >= 0 && (i == 3 || s[i-4] == ' ')
}

// dateEnds reports whether a date may end at b: nothing glued after it.
func dateEnds(s string, b int) bool {
	if b == len(s) {
		return true
	}
	c := s[b]
	if isDigit(c) || isASCIILetter(c) && c != 'T' || c == '_' || c == '%' {
		return false
	}
	if (c == '.' || c == '-' || c == '/' || c == ':') && b+1 < len(s) && isDigit(s[b+1]) {
		return false
	}
	return true
}

// dateAt reads a date starting at the digit run at i.
func dateAt(s string, i int) (int, bool) {
	v1, n1, e1 := number(s, i)
	if e1 >= len(s) {
		return 0, false
	}
	c := s[e1]
	// Numeric: three groups with one separator; German "4. 3. 1985" has
	// a space after each dot, Swedish and Danish "4/3 1985" and Danish
	// "4/3-1985" a space or '-' before the year.
	if c == '-' || c == '/' || c == '.' {
		p := e1 + 1
		spaced := c == '.' && p+1 < len(s) && s[p] == ' ' && isDigit(s[p+1])
		if spaced {
			p++
		}
		if p < len(s) && isDigit(s[p]) {
			v2, n2, e2 := number(s, p)
			q := e2 + 1
			sep2 := e2 < len(s) && s[e2] == c
			if spaced {
				sep2 = sep2 && q < len(s) && s[q] == ' '
				q++
			}
			nordic := !sep2 && c == '/' && e2 < len(s) && (s[e2] == ' ' || s[e2] == '-')
			if (sep2 || nordic) && q < len(s) && isDigit(s[q]) {
				v3, n3, e3 := number(s, q)
				if !dateEnds(s, e3) || (spaced || nordic) && n3 != 4 {
					return 0, false
				}
				switch {
				case n1 == 4 && n2 <= 2 && n3 <= 2:
					return e3, validDate(v1, v2, v3)
				case n1 <= 2 && n2 <= 2 && n3 == 4:
					return e3, validDate(v3, v2, v1) || validDate(v3, v1, v2)
				case n1 <= 2 && n2 <= 2 && n3 == 2 && c != '.':
					return e3, year2Valid(v3, v2, v1) || year2Valid(v3, v1, v2)
				case n1 <= 2 && n2 <= 2 && n3 == 2 && c == '.':
					return e3, year2Valid(v3, v2, v1)
				}
				return 0, false
			}
			// 04-Mar-1985, 4/mar/1985
			if c != '-' {
				return 0, false
			}
		}
	}
	// Japanese: 1985年3月4日; Korean: 1985년 3월 4일.
	if r := cjkAt(s, e1); n1 == 4 && (r == '年' || r == '년') {
		return kanjiDate(s, e1, v1)
	}
	if n1 > 2 || v1 < 1 || v1 > 31 {
		return 0, false
	}
	// Day first, then a month's name: "4 March 1985", "4th of March, 1985",
	// "4. März 1985", "4 de marzo de 1985", "1er mars 1985", "04-Mar-1985",
	// "4/mar/1985".
	j := e1
	sep := c == '-' || c == '/'
	if sep {
		j++
	} else {
		j = skipOrdinal(s, j)
		dot := j < len(s) && s[j] == '.'
		if dot {
			j++
		}
		k := skipSpaces(s, j)
		if k == j && !dot { // "4.März 1985" has no space
			return 0, false
		}
		j = skipWords(s, k, "de ", "of ")
	}
	ws := j
	for j < len(s) && wordByte(s[j]) {
		j++
	}
	m := monthNumber(s[ws:j])
	if m == 0 {
		return 0, false
	}
	if j < len(s) && s[j] == '.' {
		j++
	}
	if sep {
		if j >= len(s) || s[j] != c {
			return 0, false
		}
		y, n, e := number(s, j+1)
		if (n == 4 && validDate(y, m, v1) || n == 2 && year2Valid(y, m, v1)) && dateEnds(s, e) {
			return e, true
		}
		return 0, false
	}
	if j < len(s) && s[j] == ',' {
		j++
	}
	k := skipSpaces(s, j)
	if k == j {
		return 0, false
	}
	k = skipWords(s, k, "de ", "del ")
	y, n, e := number(s, k)
	if n == 4 && validDate(y, m, v1) && dateEnds(s, e) {
		return e, true
	}
	return 0, false
}

// monthFirst reads the rest of "March 4, 1985" from the day's digits at i.
func monthFirst(s string, i, m int) (int, bool) {
	d, n, j := number(s, i)
	if n > 2 {
		return 0, false
	}
	j = skipOrdinal(s, j)
	if j < len(s) && s[j] == ',' {
		j++
	}
	k := skipSpaces(s, j)
	if k == j {
		return 0, false
	}
	y, n, e := number(s, k)
	if n == 4 && validDate(y, m, d) && dateEnds(s, e) {
		return e, true
	}
	return 0, false
}

// kanjiDate reads 年M月D日 at j for year y: a space may follow 年 and
// 月 (1985年 3月 4日), and Chinese may write 号 for 日. Korean writes
// 년, 월 and 일 in their places (1985년 3월 4일).
func kanjiDate(s string, j, y int) (int, bool) {
	if r := cjkAt(s, j); r != '年' && r != '년' {
		return 0, false
	}
	m, n, e := number(s, skipSpaces(s, j+3))
	if r := cjkAt(s, e); n == 0 || n > 2 || r != '月' && r != '월' {
		return 0, false
	}
	d, n, e := number(s, skipSpaces(s, e+3))
	if r := cjkAt(s, e); n == 0 || n > 2 || r != '日' && r != '号' && r != '일' {
		return 0, false
	}
	return e + 3, validDate(y, m, d)
}

// cjkAt is the character of three UTF-8 bytes at j (CJK, full-width
// forms), or 0: compared as a rune, one test where a string's would be a
// call.
func cjkAt(s string, j int) rune {
	if j < 0 || j >= len(s) || s[j] < 0xe0 {
		return 0
	}
	if r, n := utf8.DecodeRuneInString(s[j:]); n == 3 {
		return r
	}
	return 0
}

// eraBase is the first year of the Japanese era named by w (two kanji),
// or 0.
func eraBase(w string) int {
	switch w {
	case "明治":
		return 1868
	case "大正":
		return 1912
	case "昭和":
		return 1926
	case "平成":
		return 1989
	case "令和":
		return 2019
	}
	return 0
}

// skipOrdinal skips an ordinal's suffix after a day: st nd rd th er º ª °
// (the reader view writes º and ª as o and a: "1o de abril").
func skipOrdinal(s string, j int) int {
	t := s[j:]
	switch {
	case len(t) >= 2 && (t[0] == 'o' || t[0] == 'a') && t[1] == ' ':
		return j + 1
	case len(t) >= 2 && (t[:2] == "st" || t[:2] == "nd" || t[:2] == "rd" || t[:2] == "th" || t[:2] == "er") && (len(t) == 2 || !wordByte(t[2])):
		return j + 2
	case strings.HasPrefix(t, "º") || strings.HasPrefix(t, "ª") || strings.HasPrefix(t, "°"):
		return j + 2
	}
	return j
}

func skipSpaces(s string, j int) int {
	for j < len(s) && s[j] == ' ' {
		j++
	}
	return j
}

// skipWords skips one of the words ws (each with its space) at j.
func skipWords(s string, j int, ws ...string) int {
	for _, w := range ws {
		if len(s)-j >= len(w) && strings.EqualFold(s[j:j+len(w)], w) {
			return skipSpaces(s, j+len(w))
		}
	}
	return j
}

// wordByte reports whether c may be part of a word: an ASCII letter or a
// byte of a non-ASCII character (accented letters).
func wordByte(c byte) bool { return isASCIILetter(c) || c >= 0x80 }

// monthNumber is the month a name or abbreviation means, in the
// languages of the scan (1-12), or 0: Hebrew's also with the ב ("in")
// written onto it (10 בנובמבר 1951).
func monthNumber(w string) int {
	if len(w) < 3 || len(w) > 24 {
		return 0
	}
	return int(monthNames.get(w))
}

var monthNames = newWordTable(func() map[string]uint16 {
	m := map[string]uint16{}
	for k, names := range [12]string{
		"january jan jänner januar janvier janv enero ene gennaio gen januari janeiro styczeń stycznia sty tammikuu tammikuuta tammik январь января янв січня जनवरी يناير ינואר בינואר",
		"february feb februar février févr fevr febrero febbraio februari fevereiro fev luty lutego lut helmikuu helmikuuta helmik февраль февраля фев февр лютого फ़रवरी फरवरी فبراير شباط פברואר בפברואר",
		"march mar märz mär mrz mrt mars marzo maart março marzec marca maaliskuu maaliskuuta maalisk marts март марта березня मार्च مارس آذار اذار מרץ מרס במרץ במרס",
		"april apr avril avr abril abr aprile kwiecień kwietnia kwi huhtikuu huhtikuuta huhtik апрель апреля апр квітня अप्रैल अप्रेल أبريل ابريل إبريل نيسان אפריל באפריל",
		"may mai mayo maggio mag mei maio maj maja toukokuu toukokuuta toukok май мая травня मई مايو أيار ايار מאי במאי",
		"june jun juni juin junio giugno giu juno junho czerwiec czerwca cze kesäkuu kesäkuuta kesäk июнь июня июн червня जून يونيو يونيه حزيران יוני ביוני",
		"july jul juli juillet juil julio luglio lug julho lipiec lipca lip heinäkuu heinäkuuta heinäk июль июля июл липня जुलाई يوليو يوليه تموز יולי ביולי",
		"august aug août agosto ago augustus augusti sierpień sierpnia sie elokuu elokuuta elok август августа авг серпня अगस्त أغسطس اغسطس آب אוגוסט באוגוסט",
		"september sep sept septembre septiembre setiembre settembre set setembro wrzesień września wrz syyskuu syyskuuta syysk сентябрь сентября сен сент вересня सितंबर सितम्बर سبتمبر أيلول ايلول ספטמבר בספטמבר",
		"october oct oktober okt octobre octubre ottobre ott outubro out październik października paź lokakuu lokakuuta lokak октябрь октября окт жовтня अक्टूबर अक्तूबर أكتوبر اكتوبر אוקטובר באוקטובר",
		"november nov novembre noviembre novembro listopad listopada lis marraskuu marraskuuta marrask ноябрь ноября ноя нояб листопада नवंबर नवम्बर نوفمبر נובמבר בנובמבר",
		"december dec dezember dez décembre déc diciembre dic dicembre dezembro grudzień grudnia gru joulukuu joulukuuta jouluk декабрь декабря дек грудня दिसंबर दिसम्बर ديسمبر דצמבר בדצמבר",
	} {
		for _, n := range strings.Fields(names) {
			m[n] = uint16(k + 1)
		}
	}
	return m
}(), true)

// ---------------------------------------------------------------- context

// birthContextWords are the words that say a date after them (within
// contextGap bytes, in the same sentence) is a birth date, in lower case.
// Matched on word boundaries, ASCII letters case-folded.
var birthContextWords = []string{
	// English
	"born", "born on", "dob", "d.o.b", "birth", "date of birth", "birth date", "birthdate", "birthday", "b.",
	// German
	"geboren", "geb.", "geburtsdatum", "geburtstag", "geb.-datum",
	// French
	"né", "née", "né(e)", "né le", "née le", "date de naissance", "naissance", "date naissance", "naiss.", "au monde", "anniversaire",
	// Spanish
	"nacido", "nacida", "nació", "nací", "naciste", "nacieron", "nacimiento", "fecha de nacimiento", "f. nac", "fec. nac", "nac.", "cumpleaños", "al mundo",
	// Italian
	"nato il", "nata il", "è nato", "è nata", "sei nato", "sei nata", "sono nato", "sono nata", "nato in", "nata in", "nata", "nato/a", "nato a", "nata a", "nato nel", "nata nel", "data di nascita", "nascita", "compleanno", "n.",
	// Dutch
	"geboren op", "geboortedatum", "geb. datum", "verjaardag", "ter wereld",
	// Portuguese
	"nascido", "nascida", "nasceu", "nasci", "nasceste", "nasceram", "data de nascimento", "nascimento", "nasc.", "aniversário", "ao mundo",
	// Polish
	"urodzony", "urodzona", "urodził", "urodziła", "urodzin", "urodziny", "urodzenia", "data urodzenia", "ur.",
	// Swedish
	"född", "födelsedatum", "födelsedag", "föddes", "f.",
	// Finnish
	"syntynyt", "syntyi", "synnyin", "syntymäaika", "syntymäaikani", "syntymäaikasi", "syntymäaikansa", "syntymäpäivä", "syntymäpvm", "s.", "synt.",
	// Danish
	"født", "fødselsdato", "fødselsdag",
	// Japanese
	"生年月日", "誕生日", "生まれ",
	// Chinese
	"出生日期", "出生于", "出生", "生于", "出生年月", "生日",
	// Russian and Ukrainian, Greek (capitals written out: only ASCII
	// letters are folded), Korean
	"рождения", "родился", "родилась", "Родился", "Родилась", "народження", "народився", "народилася", "Народився", "Народилася",
	"γέννησης", "γεννήθηκε", "Γεννήθηκε", "γενέθλια", "생년월일", "출생", "생일",
	// Hindi, Arabic, Hebrew
	"जन्म", "जन्मतिथि", "जन्मदिन", "पैदा",
	"مواليد", "المولود", "المولودة", "مولود", "مولودة", "ولد", "ولدت", "الميلاد", "الولادة",
	"נולד", "נולדה", "נולדתי", "יליד", "ילידת", "לידה",
	// Turkish, Czech, Hungarian, Romanian
	"doğum tarihi", "doğdu", "doğumlu", "narozen", "narozena", "narození", "született", "născut", "născută", "nașterii",
}

// birthFirst indexes birthContextWords by first byte (both cases);
// birthStarts marks those bytes.
var (
	birthFirst  [256][]uint8
	birthStarts [256]bool
)

func init() {
	for k, w := range birthContextWords {
		c := w[0]
		birthFirst[c] = append(birthFirst[c], uint8(k))
		birthStarts[c] = true
		if c-'a' < 26 {
			birthFirst[c-32] = append(birthFirst[c-32], uint8(k))
			birthStarts[c-32] = true
		}
	}
}

// gapStop marks the bytes no gap between a context word and its date
// holds (gapOK): the backward look for a context stops at the first.
// gapBreak is the bytes gapOK refuses in any gap.
var gapBreak = func() (t [256]bool) {
	for _, c := range "0123456789\n;!?|" {
		t[c] = true
	}
	return t
}()

var gapStop = func() (t [256]bool) {
	for _, c := range "0123456789\n;!?|{}[]<>=" {
		t[c] = true
	}
	t['\n'] = true
	return t
}()

// contextWindow bounds how far before a date its context may start, and
// contextGap what may stand between them.
const (
	contextWindow = 80
	contextGap    = 56
)

// labelPunct is the bytes between a label and its value (after the
// label's words): "DOB: ", "Date of Birth | ", "Geburtsdatum:\n", "**DOB:** ".
var labelPunct = func() (t [256]bool) {
	for _, c := range " \t:|=*->\n" {
		t[c] = true
	}
	return t
}()

// dobLabelEnd returns where the label punctuation before a ends: a itself
// when there is none. At most one line break and a few bytes, with the
// full-width "：", "｜" and "】" of CJK labels; an XML element's '>'
// ("<dob>1985-03-04").
func dobLabelEnd(s string, a int) int {
	k, breaks := a, 0
	for a-k < 12 && k > 0 {
		if c := s[k-1]; labelPunct[c] && (c != '>' || k >= 2 && isASCIILetter(s[k-2])) {
			if c == '\n' {
				if breaks++; breaks > 1 {
					break
				}
			}
			k--
		} else if r := cjkAt(s, k-3); r == '：' || r == '｜' || r == '】' {
			k -= 3
		} else {
			break
		}
	}
	return k
}

// birthContext reports whether the date [a, b) of s has a birth context:
// a context word before it in the window, with nothing between them but
// label punctuation (dobLabelEnd) or a few words of the same clause (no
// digit, no sentence end, no conjunction starting another clause), or a
// participle after it (geboren, zur Welt, 生まれ, 出生); and what is born
// is no thing (thingBefore: "The company was born on …").
func birthContext(s string, a, b int, extra []string) bool {
	if birthAfter(s, a, b) {
		return !thingBefore(s, a, 3)
	}
	lo := max(0, a-contextWindow)
	// A label's punctuation may hold what no gap does ("DOB | ",
	// "Date of birth:\n"); the word must then end where it starts.
	le := dobLabelEnd(s, a)
	// Back to the first byte no gap holds (a digit, a brace, a line
	// break…): in JSON and tables the window is a few bytes.
	j := le - 1
	for j >= lo && !gapStop[s[j]] {
		j--
	}
	lo = j + 1
	for j := le - 1; j >= lo; j-- {
		c := s[j]
		if !birthStarts[c] && extra == nil {
			continue
		}
		if j > 0 && wordByte(s[j-1]) && wordByte(c) && c < 0xe0 {
			continue // not at a word's start (CJK words have no spaces)
		}
		// The next byte, folded: matchWord's test of a word's second
		// byte without the call (the words are lower case, two bytes
		// or more).
		var c2 byte
		if j+1 < len(s) {
			c2 = s[j+1]
			if c2-'A' < 26 {
				c2 += 'a' - 'A'
			}
		}
		for _, k := range birthFirst[c] {
			w := birthContextWords[k]
			if w[1] != c2 {
				continue
			}
			e, ok := matchWord(s, j, w)
			if !ok || e > le {
				continue
			}
			if n := len(w); w[n-1] >= 0x80 && w[n-2]-0xc0 < 0x20 {
				// A word ending in an accented letter matched the
				// stem of an inflected form (urodził, urodziło): the
				// rest of that word is no gap word.
				for e < le && wordByte(s[e]) {
					e++
				}
			}
			// A one-letter abbreviation (b., n., f., s.) stands right
			// before its date: "b. 1985", "(n. 4/3/1985)". Dutch "en"
			// (and) after geboren ends its clause ("De band is in Ede
			// geboren en bracht op …"); in Spanish it is "in".
			if (len(w) > 2 || e == le) && gapOK(s[e:le]) && (w[0] != 'g' || !strings.HasPrefix(s[e:le], " en ")) {
				return !thingBefore(s, j, 2)
			}
		}
		for _, w := range extra {
			if w != "" && w[0]|0x20 == c|0x20 {
				if e, ok := matchWord(s, j, w); ok && e <= le && gapOK(s[e:le]) {
					return true
				}
			}
		}
	}
	return false
}

// birthAfter reports whether a participle after the date [a, b) says it
// is a birth date: 生まれ, 生, 出生 right after it; Japanese
// "1985年3月4日に東京で生まれた", "…に誕生した", "…、東京にて出生",
// Chinese "1985年3月4日在上海出生" (に, 在 or 、, then the verb before
// the clause ends and before another subject: "…に新製品が誕生");
// German and Dutch "am 4.3.1985 in Graz geboren", "op 4 maart 1985
// geboren", "kam am 4.3.1985 zur Welt", "kwam op 4 maart 1985 ter
// wereld"; the genealogical star before it, glued ("Anna Roth,
// *4.3.1985", "(* 4.3.1985)"; not an emphasis: "*2024-01-02*").
func birthAfter(s string, a, b int) bool {
	r := cjkAt(s, b)
	if b < len(s) && s[b] == ' ' {
		r = cjkAt(s, b+1)
	}
	if r == '生' || r == '出' && cjkAt(s, b+3) == '生' || r == '생' {
		return true // 1976年9月12日生まれ, 1991.08.08생
	}
	if r == '에' {
		// 1958년 12월 21일에 태어났고: the verb after "on".
		j := b + 3
		if s[b] == ' ' {
			j++
		}
		if j < len(s) && s[j] == ' ' {
			j++
		}
		if strings.HasPrefix(s[j:], "태어") || strings.HasPrefix(s[j:], "출생") {
			return true
		}
	}
	if r == 'に' || r == '在' || r == '、' {
		for j := b + 3; j < len(s) && j-b <= contextGap; j++ {
			r := cjkAt(s, j)
			if c := s[j]; c < 0x80 && !isASCIILetter(c) || r == '。' || r == '、' || r == '，' || r == 'が' {
				break
			}
			if r == '生' || r == '誕' || r == '出' {
				if r2 := cjkAt(s, j+3); r2 == 'ま' && r == '生' || r2 == '生' && r != '生' {
					return true
				}
			}
		}
	}
	// gapOK refuses any gap holding a digit, a line break, ';', '!', '?'
	// or '|': the look stops at the first (a timestamp's time, a JSON
	// number, the next line).
	for j := b; j < len(s) && j-b <= contextGap; j++ {
		if c := s[j] | 0x20; c == 'g' || c == 'z' || c == 't' {
			w := "geboren"
			if c == 'z' {
				w = "zur welt"
			} else if c == 't' {
				w = "ter wereld"
			}
			if _, ok := matchWord(s, j, w); ok && !wordByte(s[j-1]) && gapOK(s[b:j]) {
				return true
			}
		} else if gapBreak[s[j]] {
			break
		}
	}
	if st := a - 1; st > 1 && s[st] == ' ' && s[st-1] == '*' && s[st-2] == '(' {
		return true
	}
	return a > 0 && s[a-1] == '*' && (a == 1 || s[a-2] == ' ' || s[a-2] == '(') && (b == len(s) || s[b] != '*')
}

// thingBefore reports whether one of the n words before i (in the same
// clause) names a thing, not a person, whose "birth" the context word
// tells: "The company was born on", "L'idée est née le", "Het bedrijf
// werd geboren op", "Die Idee wurde am … geboren".
func thingBefore(s string, i, n int) bool {
	for ; n > 0; n-- {
		for i > 0 && (s[i-1] == ' ' || s[i-1] == '\'') {
			i--
		}
		e := i
		for i > 0 && wordByte(s[i-1]) {
			i--
		}
		if i == e {
			return false
		}
		if gapWordFlags(s[i:e])&gwThing != 0 {
			return true
		}
	}
	return false
}

// matchWord reports whether w is at j in s, ASCII letters folded, ending
// on a word boundary; and where it ends.
func matchWord(s string, j int, w string) (int, bool) {
	if len(s)-j < len(w) {
		return 0, false
	}
	for k := 0; k < len(w); k++ {
		c := s[j+k]
		if c-'A' < 26 {
			c += 32
		}
		if d := w[k]; c != d && (d-'A' >= 26 || c != d+32) {
			return 0, false
		}
	}
	e := j + len(w)
	if last := w[len(w)-1]; wordByte(last) && last < 0x80 && e < len(s) && wordByte(s[e]) {
		return 0, false
	}
	return e, true
}

// gapOK reports whether g, the text between a context word and a date,
// keeps them together: short, no digit, no sentence end (nor a CJK
// comma: "東京生まれで、2019年4月1日に入社"), no parenthesis closing,
// no words after a colon, no
// word that starts
// another clause or names a thing, no pronoun in the two words after a
// comma ("Born in Lyon, she joined on …", "Geboren in Tuil, kwam hij
// op …").
func gapOK(g string) bool {
	if len(g) > contextGap {
		return false
	}
	open := 0 // parentheses opened in g
	for k := 0; k < len(g); k++ {
		switch c := g[k]; {
		case isDigit(c) || c == '\n' || c == ';' || c == '!' || c == '?' || c == '|':
			return false
		case c == '(' || c == '[':
			open++
		case c == ')' || c == ']':
			// The context word's parenthesis closes: "(born in Lyon)
			// signed on …", "（東京生まれ）は…".
			if open--; open < 0 {
				return false
			}
		case c == '.' && (k+1 == len(g) || g[k+1] == ' ' && (k+2 == len(g) || g[k+2]-'A' < 26)) && (k == 0 || k >= 3 && wordByte(g[k-1]) && wordByte(g[k-2]) && wordByte(g[k-3])):
			// A sentence ends (right after the context word, or after
			// a word of three letters or more: no abbreviation), before
			// a capital or the date.
			return false
		case c == ':' && skipSpaces(g, k+1) < len(g) && isASCIILetter(g[skipSpaces(g, k+1)]):
			// A label's value is the words after its colon ("A star
			// is born: premiere on …").
			return false
		case c >= 0xe3:
			// Japanese が, の, Chinese 的 make the birth word part of
			// another phrase ("…生まれの方の交流会：", "出生于…的朋友
			// 聚会："), as do 欄 and 字段, a form's field ("生年月日欄を
			// …に更新"), and 格式 (format).
			if r := cjkAt(g, k); r == '、' || r == '，' || r == '。' || r == 'が' || r == 'の' || r == '的' || r == '欄' || r == '字' || r == '格' {
				return false
			} else if r == '）' {
				if open--; open < 0 {
					return false
				}
			}
		case (c == ',' || c == '.') && k >= 3 && g[k-3]-0xe3 < 0x0d: // "，", "。" read as ASCII after a CJK character
			return false
		}
	}
	comma := 0 // words to go after a comma
	for k := 0; k < len(g); {
		for k < len(g) && !wordByte(g[k]) {
			if g[k] == ',' {
				comma = 2
			}
			k++
		}
		e := k
		for e < len(g) && wordByte(g[e]) {
			e++
		}
		// A word before an apostrophe is a name's or an article's (O'Neil,
		// l'hôpital), no conjunction.
		if e > k && (e == len(g) || g[e] != '\'') {
			if f := gapWordFlags(g[k:e]); f&(gwClause|gwThing) != 0 || comma > 0 && f&gwPronoun != 0 {
				return false
			}
			comma--
		}
		k = e
	}
	return true
}

// The kinds of gapWords.
const (
	gwClause  = 1 << iota // starts another clause or names another event
	gwThing               // a thing, not a person, "born" (thingBefore)
	gwPronoun             // a subject pronoun: after a comma, another clause
)

// gapWordFlags is the kinds of the word w (ASCII letters folded).
func gapWordFlags(w string) uint8 {
	if len(w) > 16 {
		return 0
	}
	return uint8(gapWords.get(w))
}

var gapWords = newWordTable(func() map[string]uint16 {
	m := map[string]uint16{}
	for f, words := range [3]string{
		`and but or then while und aber oder dann et mais ou puis y pero o luego e ma oppure poi
		maar och men eller ja mutta tai og eller oraz ale lub
		between zwischen entre tra fra tussen mellan mellem välillä między
		from ab dès dal sinds vanaf od från alkaen
		hired joined married died died moved started ordered created updated issued expires expired valid until due since
		released published founded opened launched established incorporated shipped delivered paid signed renewed
		graduated retired verified checked confirmed changed modified corrected submitted requested received sent scheduled booked
		sale party ends ending starts begins deadline event celebration feier fête fiesta festa feest edited effective
		gala concert premiere screening meetup meeting conference webinar workshop tour exhibition
		treffen termin konzert rencontre réunion encuentro reunión concierto incontro riunione concerto
		bijeenkomst vergadering encontro reunião spotkanie träff möte tapaaminen kokous møde
		field feld champ campo veld pole fältet feltet kenttä
		appointment visit rendez-vous visite cita visita appuntamento consulta afspraak bezoek wizytę wizyta besök käynti besøg
		wedding marriage hochzeit mariage boda matrimonio huwelijk casamento ślubu bröllop häät bryllup
		veröffentlicht gegründet eröffnet publié fondé sorti publicado fundado lanzado pubblicato fondato uscito
		gepubliceerd opgericht lançado
		eingestellt verheiratet gestorben bestellt erstellt gültig bis seit trat begann geprüft geändert
		embauché marié mort décédé commandé créé valable depuis jusqu rejoint vérifié modifié
		contratado casado murió fallecido pedido creado válido hasta desde ingresó verificado modificado
		assunto sposato morto ordinato creato valido fino entrato entrata verificato modificato
		overleden besteld aangemaakt geldig tot gewijzigd gecontroleerd
		faleceu pedido criado entrou alterado
		zmarł zamówiono ważny dołączył dołączyła zmieniono
		död beställd giltig började ändrad ändrat
		kuoli tilattu voimassa aloitti muutettu
		død bestilt gyldig startede ændret`,
		`company firm business startup idea project brand band product app concept initiative movement tradition festival
		certificate acte partida certificato certidão certificado akt format
		firma unternehmen idee projekt marke produkt konzept
		entreprise société idée projet marque groupe produit
		empresa compañía proyecto marca grupo producto
		azienda società progetto marchio gruppo prodotto
		bedrijf merk
		ideia projeto
		pomysł
		företaget företag idén idé projektet märket
		yritys yhtiö projekti
		firmaet idéen virksomheden`,
		`he she they elle ils elles er sie él ella lui lei hij zij ele ela ona han hon hän hun`,
	} {
		for _, w := range strings.Fields(words) {
			m[w] |= 1 << f
		}
	}
	return m
}(), false)

// dateRangeAfter reports whether the date ending at b starts a range
// ("– 1990-01-01", " to 5 May 1990", " bis …").
func dateRangeAfter(s string, b int) bool {
	j := skipSpaces(s, b)
	if j < len(s) && s[j] == '-' {
		j++
	} else if j > b {
		k := skipWords(s, j, "to ", "till ", "until ", "bis ", "au ", "al ", "a ", "tot ", "até ", "do ", "and ", "und ", "et ", "y ", "e ", "en ", "och ", "og ", "ja ", "i ")
		if k == j {
			return false
		}
		j = k
	}
	j = skipSpaces(s, j)
	if j >= len(s) || !isDigit(s[j]) {
		return false
	}
	_, _, ok := dateAround(s, j)
	return ok
}
