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

// scriptStreetWords are street and house words of those scripts (Arabic
// without its vowel marks): a part holding one and a number is a street.
var scriptStreetWords = []string{
	"شارع", "طريق", "درب", "ممر", "زقاق", "جادة", "ساحة", "حي", "طابق", "بناية", "بيت",
	"רחוב", "רח", "שדרות", "שד", "דרך", "סמטת", "סמטה", "משעול", "כיכר", "דירה",
	"ул", "улица", "пр", "проспект", "пер", "переулок", "ш", "шоссе", "наб", "набережная", "бульвар", "б-р",
	"пл", "площадь", "проезд", "тупик", "д", "дом", "кв", "корп", "стр",
	"मार्ग", "रोड", "गली", "नगर", "चौक", "सेक्टर",
}

// scriptPlaceWords open a part of a Russian address before its street:
// the settlement, the region.
var scriptPlaceWords = []string{
	"г", "город", "п", "пос", "поселок", "посёлок", "ст", "станица", "к", "с", "село", "дер", "деревня", "обл", "область",
	"р-н", "район", "мкр", "респ", "край",
}

// scriptTok is a token of an address part: a word or a number.
type scriptTok struct {
	start, end int
	num        bool // a number: digits, perhaps /digits or a letter (2/6, 12а)
	slash      bool // a number written d/d
}

// scriptAddress is the address ending in the postcode at the digit run i
// (five to seven digits, perhaps -dddd), or a span with b <= a.
func scriptAddress(s string, i int) (int, int) {
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
		if t.num || s[t.start] < 0x80 || scriptLower(s, t) && !scriptWordIn(s, t, scriptPlaceWords) {
			return 0, 0 // a city is capitalised in a script with case (сумма 1250000 is none)
		}
	}
	start := i
	if len(city) > 0 {
		start = city[0].start
	}
	for k--; k >= 0; k-- {
		p := parts[k]
		if len(p) == 0 {
			return 0, 0
		}
		ni := -1
		for x, t := range p {
			if !t.num && s[t.start] < 0x80 {
				return 0, 0 // a Latin word: address.go's
			}
			if t.num && ni < 0 {
				ni = x
			}
		}
		if ni < 0 {
			if len(p) > 3 || scriptLower(s, p[0]) && !scriptWordIn(s, p[0], scriptPlaceWords) {
				return 0, 0
			}
			start = p[0].start // the city or district
			continue
		}
		// The part with the house number.
		h := scriptHouseStart(s, p, ni, k > 0)
		if h < 0 {
			return 0, 0
		}
		start = h
		// Before it, parts a street or place word opens or ends
		// (ул. Молодежная, п. Сковородино; 785 درب).
		for k--; k >= 0; k-- {
			q := parts[k]
			if len(q) == 0 {
				break
			}
			opens := -1 // a place or street word among its first three (Адрес: п. Раменское)
			for x := 0; x < len(q) && x < 3 && opens < 0; x++ {
				if scriptWordIn(s, q[x], scriptPlaceWords) || scriptWordIn(s, q[x], scriptStreetWords) {
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
			if x >= 1 && !q[x].num && q[x-1].num && scriptWordIn(s, q[x], scriptStreetWords) {
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
// it); at its start when at most three words come before the number and a
// comma before the part; at a house number written d/d that opens it; or
// -1.
func scriptHouseStart(s string, p []scriptTok, ni int, afterComma bool) int {
	for x, t := range p {
		if !t.num && scriptWordIn(s, t, scriptStreetWords) {
			if x > 0 && p[x-1].num {
				return p[x-1].start
			}
			return t.start
		}
	}
	if afterComma && ni <= 3 && ni > 0 && !scriptLower(s, p[0]) {
		return p[0].start // a street's name, then its number (נהריה 57)
	}
	if p[ni].slash && ni+1 < len(p) {
		return p[ni].start
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

// scriptWordIn: the word t, without Arabic vowel marks, is one of ws.
func scriptWordIn(s string, t scriptTok, ws []string) bool {
	if t.num {
		return false
	}
	w := s[t.start:t.end]
	if strings.ContainsAny(w, "\u064b\u064c\u064d\u064e\u064f\u0650\u0651\u0652") {
		var b strings.Builder
		for _, r := range w {
			if r < 0x64b || r > 0x652 {
				b.WriteRune(r)
			}
		}
		w = b.String()
	}
	for _, x := range ws {
		if strings.EqualFold(w, x) {
			return true
		}
	}
	return false
}
