package detect

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Addresses written in scripts whose street names the tables do not read
// (Cyrillic, Hebrew, Arabic, Devanagari), as lists that end in a
// postcode: "58750 شارع المحجوب 815 طابق، أربيل 79449", "מיכה 15, מזכרת
// בתיה, 8550856", "2/6 पुष्पा भारत, अम्बाजी 229085", "п. Сковородино,
// ул. Молодежная, д. 26, 970109". Read back from the postcode: the city's
// part (at most three words), then the part with the house number, and
// before it the parts that a street word or a Russian address
// abbreviation opens. Every word must be of such a script: Latin text is
// read by the rules of address.go.

// scriptWords are the street and house words (scriptStreet) and the
// words that open a Russian address's settlement or region part
// (scriptPlace) of those scripts, in lower case and Arabic without its
// vowel marks: a part holding a street word and a number is a street.
const (
	scriptStreet = 1 << iota
	scriptPlace
)

var scriptWords = func() *wordTable {
	m := map[string]uint16{}
	for _, w := range strings.Fields(`شارع طريق درب ممر زقاق جادة ساحة حي طابق بناية بيت
		רחוב רח שדרות שד דרך סמטת סמטה משעול כיכר דירה
		ул улица пр проспект пер переулок ш шоссе наб набережная бульвар б-р пл площадь проезд тупик д дом кв корп стр
		मार्ग रोड गली नगर चौक सेक्टर`) {
		m[w] |= scriptStreet
	}
	for _, w := range strings.Fields(`г город п пос поселок посёлок ст станица к с село дер деревня обл область
		р-н район мкр респ край клх х хутор рп пгт аул сл нп`) {
		m[w] |= scriptPlace
	}
	return newWordTable(m, false)
}()

// scriptWord is scriptWords' value of w read as the table holds its
// words: Cyrillic capitals folded, Arabic vowel marks left out.
func scriptWord(w string) uint16 {
	var buf [wordTableMax]byte
	n := 0
	for _, r := range w {
		switch {
		case r >= 0x64b && r <= 0x652:
			continue
		case r >= 0x410 && r <= 0x42f:
			r += 0x20
		case r >= 0x400 && r <= 0x40f:
			r += 0x50 // Ё
		}
		if n+utf8.RuneLen(r) > len(buf) {
			return 0
		}
		n += utf8.EncodeRune(buf[n:], r)
	}
	return scriptWords.get(string(buf[:n]))
}

// tokWord is scriptWord of the token t (0 for a number).
func tokWord(s string, t scriptTok) uint16 {
	if t.num {
		return 0
	}
	return scriptWord(s[t.start:t.end])
}

// scriptTok is a token of an address part: a word or a number.
type scriptTok struct {
	start, end int
	num        bool // a number: digits, perhaps /digits or a letter (2/6, 12а)
	slash      bool // a number written d/d
}

// scriptAddress is the address ending in the postcode at the digit run i
// (five to seven digits, perhaps -dddd), or a span with b <= a.
func scriptAddress(s string, i int) (int, int) { return scriptAddressIn(s, i, false) }

// scriptAddressIn is scriptAddress; whole says s is one value (under an
// address key), whose start is a part's start as a comma is ("כהנא 37,
// עלי זהב, 2223878").
func scriptAddressIn(s string, i int, whole bool) (int, int) {
	e := skipDigits(s, i)
	if n := e - i; n < 5 || n > 7 {
		return 0, 0
	}
	end := e
	if e+5 <= len(s) && s[e] == '-' && skipDigits(s, e+1) == e+5 {
		end = e + 5 // 00664-4403
	}
	if end < len(s) && (isDigit(s[end]) || isASCIILetter(s[end])) {
		return 0, 0
	}
	// The words are not ASCII: a window of ASCII before the postcode has
	// none, read eight bytes at a time (the scan visits every run).
	lo := max(0, i-200)
	j := max(lo, i-24)
	for ; j+8 <= i && load64(s, j)&0x8080808080808080 == 0; j += 8 {
	}
	for ; j < i && s[j] < 0x80; j++ {
	}
	if j == i {
		return 0, 0
	}
	for lo < i && s[lo]&0xC0 == 0x80 {
		lo++ // a character's first byte
	}
	parts := scriptParts(s, lo, i)
	if parts == nil {
		return 0, 0
	}
	k := len(parts) - 1
	city := parts[k]
	if len(city) > 3 {
		return 0, 0
	}
	for _, t := range city {
		if t.num || s[t.start] < 0x80 || scriptLower(s, t) && tokWord(s, t)&scriptPlace == 0 {
			return 0, 0 // a city is capitalised in a script with case (сумма 1250000 is none)
		}
	}
	// Back over the parts without a number (the city's, a district's) to
	// the house number's: the address starts there or before it.
	for k--; k >= 0; k-- {
		p := parts[k]
		if len(p) == 0 {
			return 0, 0
		}
		ni := -1
		for x, t := range p {
			if t.num {
				ni = x
				break
			}
		}
		if ni < 0 {
			if len(p) > 3 || s[p[0].start] < 0x80 || scriptLower(s, p[0]) && tokWord(s, p[0])&scriptPlace == 0 {
				return 0, 0
			}
			continue // the city or district
		}
		// The part with the house number.
		h := scriptHouseStart(s, p, ni, k > 0 || whole && k == 0 && strings.TrimSpace(s[:p[0].start]) == "", i > 0 && s[i-1] == '-')
		if h < 0 {
			return 0, 0
		}
		for _, t := range p {
			if t.start >= h && !t.num && s[t.start] < 0x80 {
				return 0, 0 // a Latin word in the street: address.go's
			}
		}
		start := h
		// Before it, parts a street or place word opens or ends
		// (ул. Молодежная, п. Сковородино; 785 درب).
		for k--; k >= 0; k-- {
			q := parts[k]
			if len(q) == 0 {
				break
			}
			opens := -1 // a place or street word among its first three (Адрес: п. Раменское)
			for x := 0; x < len(q) && x < 3 && opens < 0; x++ {
				if tokWord(s, q[x]) != 0 {
					opens = x
				}
			}
			if opens >= 0 {
				start = q[opens].start
				if opens > 0 {
					break
				}
				continue
			}
			x := len(q) - 1
			if x >= 1 && q[x-1].num && tokWord(s, q[x])&scriptStreet != 0 {
				start = q[x-1].start
			}
			break
		}
		return start, end
	}
	return 0, 0
}

// scriptHouseStart is where the part p with its first number at ni
// starts as a street: at its street word (or the number just before
// it); at its start when one to three words come before the number and
// a comma before the part; at its last number when words follow it and
// it is written d/d or the postcode is glued to its city; or -1.
func scriptHouseStart(s string, p []scriptTok, ni int, afterComma, glued bool) int {
	for x, t := range p {
		if tokWord(s, t)&scriptStreet != 0 {
			if x > 0 && p[x-1].num {
				return p[x-1].start
			}
			return t.start
		}
	}
	if afterComma && ni <= 3 && ni > 0 && !scriptLower(s, p[0]) {
		return p[0].start // a street's name, then its number (נהריה 57)
	}
	// A house number first, then the street: the part's last number,
	// written d/d or before a postcode glued to its city (भद्रक-326536).
	lx := len(p) - 1
	for lx >= 0 && !p[lx].num {
		lx--
	}
	if lx+1 < len(p) && (p[lx].slash || glued) {
		return p[lx].start
	}
	return -1
}

// scriptLower: the word t is written in lower case (a script with case).
func scriptLower(s string, t scriptTok) bool {
	r, _ := utf8.DecodeRuneInString(s[t.start:])
	return unicode.IsLower(r)
}

// scriptParts reads s[lo:i] into the parts of a list (split at ',' and
// '،'), after the last sentence end; nil when it is longer than ten parts.
func scriptParts(s string, lo, i int) [][]scriptTok {
	var parts [][]scriptTok
	var cur []scriptTok
	for k := lo; k < i; {
		c := s[k]
		switch {
		case sentenceEnd(s, k):
			parts, cur = nil, nil
			k++
		case c == ',':
			parts, cur = append(parts, cur), nil
			k++
		case c == 0xD8 && k+1 < len(s) && s[k+1] == 0x8C: // ،
			parts, cur = append(parts, cur), nil
			k += 2
		case isDigit(c):
			e := skipDigits(s, k)
			t := scriptTok{start: k, num: true}
			if e+1 < len(s) && s[e] == '/' && isDigit(s[e+1]) {
				e, t.slash = skipDigits(s, e+1), true
			}
			if e < len(s) && s[e] >= 0x80 {
				e = scriptWordEnd(s, e) // 12а, 757동
			}
			t.end = e
			cur = append(cur, t)
			k = e
		case c >= 0x80 || isASCIILetter(c):
			e := scriptWordEnd(s, k)
			if e == k {
				_, size := utf8.DecodeRuneInString(s[k:])
				k += size
				continue
			}
			cur = append(cur, scriptTok{start: k, end: e})
			k = e
			if k < i && s[k] == '.' && !sentenceEnd(s, k) {
				k++ // ул., д.
			}
		default:
			k++
		}
		if len(parts) > 10 {
			return nil
		}
	}
	return append(parts, cur)
}

// scriptWordEnd is the end of the word of letters (and marks, and a
// hyphen between letters: р-н) at k.
func scriptWordEnd(s string, k int) int {
	for k < len(s) {
		c := s[k]
		if c < 0x80 {
			if isASCIILetter(c) || c == '-' && k+1 < len(s) && s[k+1] >= 0x80 {
				k++
				continue
			}
			return k
		}
		r, size := utf8.DecodeRuneInString(s[k:])
		if !isScriptLetter(r) {
			return k
		}
		k += size
	}
	return k
}

// isScriptLetter: r is a letter or a combining mark (Arabic vowel marks,
// Devanagari vowel signs, Hebrew points).
func isScriptLetter(r rune) bool {
	switch {
	case r == '،' || r == '؟' || r == '।' || r == '׳' || r == '״':
		return false
	case r >= 0x400 && r < 0x530, r >= 0x590 && r < 0x600, r >= 0x600 && r < 0x700, r >= 0x900 && r < 0x980, r >= 0xAC00 && r < 0xD7A4:
		return true
	}
	return false
}

// koreanAddress is the Korean address that the postcode at the digit run
// i opens ("(55461) 서울특별시 성북구 봉은사06길 3", "(383-159) 용산시 1949
// 흥동8길"): after it, words that end in an administrative or road suffix
// (시, 도, 구, 군, 읍, 면, 동, 리, 로, 길, 가), numbers (with a unit: 757동),
// a building's name in brackets and building words, up to the first other
// word or a particle glued on (3(으)로; 흥동8길로 and 152에 are read to 길
// and 152); at
// least one such word and one number; or a span with b <= a.
func koreanAddress(s string, i int) (int, int) {
	if i == 0 || s[i-1] != '(' {
		return 0, 0
	}
	e := skipDigits(s, i)
	switch {
	case e-i == 5:
	case e-i == 3 && e+4 <= len(s) && s[e] == '-' && skipDigits(s, e+1) == e+4:
		e += 4
	default:
		return 0, 0
	}
	if e+2 >= len(s) || s[e] != ')' || s[e+1] != ' ' {
		return 0, 0
	}
	end, words, nums := e+1, 0, 0
	k := e + 2
	for k < len(s) && k-i < 200 {
		t, kind := koreanToken(s, k)
		if kind == 0 {
			break
		}
		switch kind {
		case 1:
			words++
		case 2:
			nums++
		}
		end = t
		if t >= len(s) || s[t] != ' ' {
			break // a particle or punctuation ends the address
		}
		k = t + 1
	}
	if words == 0 || nums == 0 {
		return 0, 0
	}
	return i - 1, end
}

// koreanToken reads the address token at k: its end and kind (1 a word
// with an administrative or road suffix, 2 a number, 3 a building's name
// or word), or kind 0.
func koreanToken(s string, k int) (int, int) {
	if s[k] == '(' {
		// A building's name: Hangul in brackets.
		j := k + 1
		for j < len(s) && s[j] >= 0x80 {
			r, size := utf8.DecodeRuneInString(s[j:])
			if !isHangul(r) {
				break
			}
			j += size
		}
		if j > k+1 && j < len(s) && s[j] == ')' {
			return j + 1, 3
		}
		return k, 0
	}
	j, digits := k, false
	for j < len(s) {
		if isDigit(s[j]) || s[j] == '-' && digits {
			digits = digits || isDigit(s[j])
			j++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[j:])
		if !isHangul(r) {
			break
		}
		j += size
	}
	if j == k {
		return k, 0
	}
	if kind := koreanWordKind(s[k:j]); kind > 0 {
		return j, kind
	}
	// A word with a particle or the copula glued on: the word before it
	// (흥동8길로, 152에, 흥동6길입니다, 688호입니다).
	w := s[k:j]
	for _, p := range []string{"입니다", "이며", "이고", "으로", "에서", "로", "에", "의", "은", "는", "이", "가"} {
		if b := strings.TrimSuffix(w, p); len(b) < len(w) && len(b) > 0 {
			if kind := koreanWordKind(b); kind > 0 && kind != 3 {
				return k + len(b), kind
			}
		}
	}
	return k, 0
}

// koreanWordKind is koreanToken's kind of the word w (digits and Hangul).
func koreanWordKind(w string) int {
	last, _ := utf8.DecodeLastRuneInString(w)
	switch {
	case isDigit(w[len(w)-1]):
		return 2 // 281, 12-3
	case strings.ContainsRune("시도구군읍면동리로길가", last):
		if last == '동' && isDigit(w[0]) {
			return 2 // 757동
		}
		return 1
	case strings.ContainsRune("호층", last) && isDigit(w[0]):
		return 2
	case w == "아파트" || w == "빌딩" || w == "타워" || w == "오피스텔" || w == "빌라":
		return 3
	}
	return 0
}

// scriptAddressAfter is the Russian address that the postcode at the
// digit run i opens, as Russian writes it: postcode, settlement, street,
// house ("821045, г. Байкальск, наб. Восточная, 955 кв. 172"). The parts
// after the postcode are taken while a place or street word opens them
// or they are the house number's; a street word and a number are needed.
func scriptAddressAfter(s string, i int) (int, int) {
	e := skipDigits(s, i)
	if n := e - i; n < 5 || n > 7 || e+3 >= len(s) || s[e] != ',' || s[e+1] != ' ' || s[e+2] < 0x80 {
		return 0, 0
	}
	end, street, house := 0, false, false
	k := e + 2
	for k < len(s) && k-i < 200 {
		// One part: to the next comma or the sentence's end.
		q := k
		for q < len(s) && q-i < 200 && s[q] != ',' && !sentenceEnd(s, q) {
			q++
		}
		toks := scriptParts(s, k, q)
		if len(toks) != 1 || len(toks[0]) == 0 {
			break
		}
		p := toks[0]
		switch {
		case p[0].num:
			house = true
		case tokWord(s, p[0])&scriptStreet != 0:
			street = true
			for _, t := range p[1:] {
				house = house || t.num
			}
		case tokWord(s, p[0])&scriptPlace != 0:
		default:
			q = -1
		}
		if q < 0 {
			break
		}
		end = p[len(p)-1].end
		if q >= len(s) || s[q] != ',' {
			break
		}
		k = skipSpaces(s, q+1)
	}
	if !street || !house {
		return 0, 0
	}
	return i, end
}
