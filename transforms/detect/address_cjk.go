package detect

import "strings"

// Chinese addresses, and what Chinese and Japanese addresses share: the
// postcode and city written after the street or before it, with spaces
// or commas between ("严中心7794号, 387686 长宁市", "387686 长宁市 严路
// 3491号", "9丁目6番3号, 668-5942 港本田町").
//
// A Chinese street line is a street name in Han characters ending in a
// street type, a house number and 号 (延安西路2299号, 萧街44号), the
// province, city and district glued before it (上海市长宁区…) and the
// building, unit, floor and room after it (3单元502室, 5楼). The strong
// types (路 街 巷 弄 胡同 大道) make a street line alone; the weak ones
// (道 里 村 桥 侬 旁 中心 栋: 通道, 数据中心, 这里) only with a region word
// before the name, a postcode next to the line, or an address key
// (cjkStreetShape).

// cjkAddress is addressAt's reader for the digit run at i in Chinese
// and Japanese text: a Chinese street line, a Japanese address (jpAddress,
// block numbers alone: 4丁目3番9号), or a postcode before either; with
// the postcode and city after them.
func cjkAddress(s string, i int) (int, int) {
	e := skipDigits(s, i)
	if i > 0 && s[i-1] >= 0x80 {
		if a, b := zhStreet(s, i, false); b > a {
			return a, b
		}
		if a, b := jpAddress(s, i); b > a {
			return a, b
		}
	} else if i >= 4 && s[i-4:i-1] == "〒" {
		if a, b := jpAddress(s, i); b > a {
			return a, b
		}
	}
	// The rest starts where scanDigits' filter (families.go addrBefore)
	// visits a run that is no house number: after Han or kana, or after
	// a word and spaces; at the start of a line or after punctuation
	// only 086-6240 (a house number's shape).
	q := i
	for q > 0 && s[q-1] == ' ' {
		q--
	}
	switch {
	case q < i:
		if q == 0 || !wordByte(s[q-1]) && !strings.Contains(",.:", s[q-1:q]) {
			return 0, 0
		}
	case i == 0 || s[i-1] < 0x80:
		if e-i != 3 || e >= len(s) || s[e] != '-' || i > 0 && !strings.Contains(",\"(\t\n", s[i-1:i]) {
			return 0, 0
		}
	}
	if e < len(s) && s[e] >= 0x80 {
		if a, b, ok := jpBlockLine(s, i); ok {
			return a, b
		}
	}
	if e-i == 6 && q < i && cjkPostcode(s, i) == e {
		if a := zhBuildingBefore(s, q); a < q {
			b, _ := cjkTail(s, e)
			return a, b
		}
	}
	if e-i == 6 || e-i == 3 && e < len(s) && s[e] == '-' {
		if a, b := cjkPostcodeFirst(s, i); b > a {
			return a, b
		}
	}
	if e = cjkPostcode(s, i); e > i && cjkPostcodeLabel(s, i) {
		return i, e // 邮编 100022, 郵便番号は192-7330, as PLZ 10115
	}
	return 0, 0
}

// cjkPostcodeLabel reports whether 邮编, 邮政编码 or 郵便番号 stands before
// i, with は, a colon or spaces between.
func cjkPostcodeLabel(s string, i int) bool {
	j := i
	for j > 0 && s[j-1] == ' ' {
		j--
	}
	if strings.HasSuffix(s[:j], "：") || strings.HasSuffix(s[:j], "は") {
		j -= 3
	} else if j > 0 && s[j-1] == ':' {
		j--
	}
	for j > 0 && s[j-1] == ' ' {
		j--
	}
	return strings.HasSuffix(s[:j], "邮编") || strings.HasSuffix(s[:j], "邮政编码") || strings.HasSuffix(s[:j], "郵便番号")
}

// cjkStreetShape reports whether s is a Chinese street line whole, weak
// street types included: an address key has said what it is (萧街44号,
// 孔旁7号).
func cjkStreetShape(s string) bool {
	i := nextDigit(s, 0)
	if i == len(s) {
		// A street and a building's letter (西安街A座, 建国路B座): a
		// street key's value without a house number.
		if n := len(s); n >= 10 && strings.HasSuffix(s, "座") && isASCIILetter(s[n-4]) && han(s, 0) {
			switch s[n-7 : n-4] {
			case "街", "路", "道", "巷":
				return true
			}
		}
		return false
	}
	if i == 0 || s[i-1] < 0x80 {
		return false
	}
	a, b := zhStreet(s, i, true)
	return a == 0 && b == len(s)
}

// han reports whether a Han character (U+4000 to U+9FFF) starts at k.
func han(s string, k int) bool {
	return k >= 0 && k+3 <= len(s) && s[k] >= 0xe4 && s[k] <= 0xe9
}

// zhStreet reads a Chinese street line whose house number is the digit
// run at i. weak admits a weak street type without a region word or a
// postcode (the caller has other proof).
func zhStreet(s string, i int, weak bool) (int, int) {
	if i < 6 {
		return 0, 0
	}
	// The street type before the digits, and one Han character of name
	// at least before it.
	ts := i - 3
	if t := s[i-6 : i]; t == "大道" || t == "胡同" || t == "中心" {
		ts = i - 6
	}
	strong := false
	switch t := s[ts:i]; {
	case t == "大道" || t == "胡同":
		strong = true
	case t == "中心":
	case strings.Contains("路街巷弄", t):
		strong = true
	case strings.Contains("道里村桥侬旁栋", t):
	default:
		return 0, 0
	}
	if !han(s, ts-3) {
		return 0, 0
	}
	_, n, e := number(s, i)
	if strings.HasPrefix(s[e:], "弄") && e+3 < len(s) && isDigit(s[e+3]) {
		_, n, e = number(s, e+3) // 长宁路123弄4号, a lane and its house
	}
	if n > 5 || !strings.HasPrefix(s[e:], "号") {
		return 0, 0
	}
	e += 3
	if strings.HasPrefix(s[e:], "线") { // 2号线, a metro line
		return 0, 0
	}
	// The building, unit, floor and room: SOHO现代城5号楼1201室, 3单元
	// 502室, 5楼; a building's name only before the first.
	for first := true; e < len(s); first = false {
		k := e
		for first && k-e < 36 && k < len(s) && (han(s, k) || isASCIILetter(s[k])) {
			if han(s, k) {
				k += 2
			}
			k++
		}
		_, n, f := number(s, k)
		u := 3
		switch {
		case n == 0 || n > 5:
			u = 0
		case strings.HasPrefix(s[f:], "单元"), strings.HasPrefix(s[f:], "号楼"):
			u = 6
		case f+3 > len(s) || !strings.Contains("楼层室栋幢号", s[f:f+3]):
			u = 0
		}
		if u == 0 {
			break
		}
		e = f + u
	}
	// A weak type's number ends the words: 数据中心2号机房 is a room.
	if !strong && han(s, e) && !strings.HasPrefix(s[e:], "邮") && !strings.HasPrefix(s[e:], "的") {
		return 0, 0
	}
	// A flat after a space: 8064号 套房 218, 961号 公寓 478.
	if k := skipSpaces(s, e); k > e && (strings.HasPrefix(s[k:], "套房") || strings.HasPrefix(s[k:], "公寓")) {
		if _, n, f := number(s, skipSpaces(s, k+6)); n > 0 && n <= 5 {
			e = f
			if strings.HasPrefix(s[e:], "室") || strings.HasPrefix(s[e:], "号") {
				e += 3
			}
		}
	}
	a, region := zhRegionBefore(s, ts)
	b, post := cjkTail(s, e)
	if !strong && !weak && !region && !post {
		return 0, 0
	}
	return a, b
}

// zhRegionBefore returns the start of the street's name and the province,
// city and district glued before the street type at ts, not over the
// words that lead to them (寄到, 住在, 位于, 地址是), and whether a region
// word is among them.
func zhRegionBefore(s string, ts int) (int, bool) {
	a, region := ts-3, false
	for a >= 3 && ts-a < 60 && han(s, a-3) {
		a -= 3
	}
	for k := a; k < ts; k += 3 {
		if k < ts-3 && strings.Contains("到在于至是为址往", s[k:k+3]) {
			a, region = k+3, false
		} else {
			region = region || zhRegion(s[k:k+3])
		}
	}
	return a, region
}

// zhBuildingBefore reads a Chinese street line without a house number
// ending at q, before its postcode: the street, a building's letter and
// 座 (湖北省宁县永川长沙街Q座 225634), the region words before them.
func zhBuildingBefore(s string, q int) int {
	if !strings.HasSuffix(s[:q], "座") {
		return q
	}
	p := q - 3
	for p > 0 && q-p < 6 && isASCIILetter(s[p-1]) {
		p--
	}
	if p == q-3 || p < 6 || !strings.Contains("路街巷弄道", s[p-3:p]) || !han(s, p-6) {
		return q
	}
	if a, region := zhRegionBefore(s, p-3); region {
		return a
	}
	return q
}

// zhRegion reports whether the Han character k ends the name of a
// Chinese province, city, county, district or town.
func zhRegion(k string) bool {
	return len(k) == 3 && strings.Contains("省市区县镇乡", k)
}

// cjkRegionWord returns the end of a place name at k that ends in a
// region word (长宁市, 港本田町, 咲良区) and stands alone (no kanji, kana
// or digit follows: 萧大道4844号 is a street), or k.
func cjkRegionWord(s string, k int) int {
	q := k
	for q-k < 36 && cjk(s, q) {
		q += 3
	}
	if q-k < 6 || cjk(s, q) || q < len(s) && isDigit(s[q]) || !(zhRegion(s[q-3:q]) || jpRegion(s[q-3:q])) {
		return k
	}
	return q
}

// cjkPostcode returns the end of a Chinese (387686) or Japanese
// (668-5942) postcode at k, after a label (邮编, 邮政编码, 〒) if any, or k.
func cjkPostcode(s string, k int) int {
	q := k
	for _, l := range [...]string{"邮编", "邮政编码", "〒"} {
		if strings.HasPrefix(s[q:], l) {
			q += len(l)
			if strings.HasPrefix(s[q:], "：") {
				q += 3
			} else if q < len(s) && s[q] == ':' {
				q++
			}
			q = skipSpaces(s, q)
			break
		}
	}
	_, n, e := number(s, q)
	if n == 3 && e+5 <= len(s) && s[e] == '-' {
		var n2 int
		_, n2, e = number(s, e+1)
		if n2 == 4 {
			n = 6
		}
	}
	if n != 6 || e < len(s) && (isDigit(s[e]) || s[e] == '-' || isASCIILetter(s[e])) {
		return k
	}
	return e
}

// cjkSep returns the end of the separators at k: spaces, line breaks,
// commas (, ， 、) and an opening parenthesis.
func cjkSep(s string, k int) int {
	for k < len(s) {
		switch {
		case s[k] == ' ' || s[k] == ',' || s[k] == '(' || s[k] == '\n':
			k++
		case k+3 <= len(s) && strings.Contains("，、（", s[k:k+3]):
			k += 3
		default:
			return k
		}
	}
	return k
}

// cjkTail extends an address ending at b over the postcode and the place
// name after it ("，邮编387686", ", 387686 长宁市", " 武汉市 456572",
// " (636-9302)"), and reports whether it holds a postcode.
func cjkTail(s string, b int) (int, bool) {
	post, place := false, false
	for range 2 {
		k := cjkSep(s, b)
		if k == b && !strings.HasPrefix(s[k:], "邮") {
			break // glued: only 7794号邮编387686
		}
		if e := cjkPostcode(s, k); e > k && !post {
			b, post = e, true
		} else if e := cjkRegionWord(s, k); e > k && !place {
			b, place = e, true
		} else {
			break
		}
		if strings.HasPrefix(s[b:], ")") {
			b++
		} else if strings.HasPrefix(s[b:], "）") {
			b += 3
		}
	}
	return b, post
}

// cjkPostcodeFirst reads a postcode at i and the address after it,
// separated from it by spaces, commas and place names: "387686 长宁市
// 严路3491号", "668-5942 港本田町, 9丁目6番3号". A postcode-shaped number
// with no street after it (注文番号 123-4567) is none.
func cjkPostcodeFirst(s string, i int) (int, int) {
	e := cjkPostcode(s, i)
	if e == i {
		return 0, 0
	}
	g := cjkSep(s, e)
	if g >= len(s) || g == e || s[g] < 0x80 && !isDigit(s[g]) {
		return 0, 0
	}
	for range 2 {
		q := cjkRegionWord(s, g)
		if q == g {
			break
		}
		g = cjkSep(s, q)
	}
	// The street's digits, after the kanji of its name.
	j := g
	for j-g < 60 && cjk(s, j) {
		j += 3
	}
	if j >= len(s) || !isDigit(s[j]) {
		return 0, 0
	}
	a, b := 0, 0
	if j > g {
		if a, b = zhStreet(s, j, true); b <= a {
			a, b = jpAddress(s, j)
		}
		if c, ok := jpBlocks(s, j); b <= a && ok && c > skipDigits(s, j)+3 {
			a, b = g, c // 六本木1-2-3 after its postcode, without a region word
			b, _ = cjkTail(s, jpBuilding(s, b))
		}
	} else if c, d, ok := jpBlockLine(s, j); ok {
		a, b = c, d
	}
	if b <= a || a != g {
		return 0, 0
	}
	return i, b
}
