package detect

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
// numbers. A run is digit groups joined by one
// separator each: a space, '-', '.', '/', or parentheses around one group
// (with an optional space or dash after ')'); a leading '+' makes it
// international. Sub-runs split at plain spaces are tried too (longest
// first), so "020 7946 0958 2 items" still yields the number; but nothing
// is taken from a run glued to a word on its left (a printed IBAN's
// digits, "DE89 3704 0044 0532 0130 00").
//
// International (+): 7–15 digits (E.164), country code not starting with 0.
//
// National: at least two groups (bare digit runs are never phones), 9–12
// digits (10–17 after a 00 international prefix), groups of at most 8
// digits, the last of at least 2, dots only with dots, '/' only in
// 0AAA/NNNNNN. It must also have a recognisable shape: a parenthesised
// area code ("(415) 555-0132", "(0)20 …"), a trunk prefix 0 in a first
// group of two or more digits ("020 7946 0958", "06-12345678"), or the
// NANP shape NXX-NXX-XXXX with an optional leading 1. So "12345-67890"
// (an order number: no trunk prefix, not NANP) is not a phone, and neither
// are dates (2024-01-15, 01-15-2024 10…), four dotted groups of up to 3
// digits (IPv4), ddd-dd-dddd (SSN), ddddd-dddd (ZIP+4), card numbers (13+
// digits) or one digit repeated. Known gap: national numbers of countries
// without a trunk prefix (Spain 912 345 678, Denmark, Norway) are found only
// in +international form.
func (p *pass) stepPhone(d int) {
	s := p.s
	n := len(s)
	// The stretch of phone bytes around the digit needs 9 digits and a
	// separator, or '+' and 7 digits. (The count stops there: a long
	// stretch is parsed a run at a time, and must not be walked again
	// for each.)
	q := d
	for q > p.phoneNext && piiClass[s[q-1]]&pcPhone != 0 {
		q--
	}
	e, digits, plus := q, 0, 0
	for e < n && (digits < 9 || digits == e-q) {
		m := piiClass[s[e]]
		if m&pcPhone == 0 {
			break
		}
		digits += int(m & pcDigit) // pcDigit is bit 0
		plus |= int(m & pcPlus)
		e++
	}
	if digits == e-q || digits < 9 && (plus == 0 || digits < 7) {
		p.phoneNext = e
		return
	}
	// d is the first digit since phoneNext: the run starts there.
	var g [phoneMaxGroups]phoneGroup
	k := len(p.spans)
	p.phoneNext, p.spans = phoneRun(s, d, &g, p.spans)
	p.tag(k, detPhone)
}

// phoneRun parses the run whose first digit is s[i] into g, appends the
// phones in it to dst and returns where the run ends.
func phoneRun(s string, i int, g *[phoneMaxGroups]phoneGroup, dst []Span) (int, []Span) {
	n := len(s)
	st, plus, paren, inParen := i, false, -1, false
	if i > 0 {
		switch s[i-1] {
		case '+':
			st, plus = i-1, true
			if i > 1 && s[i-2] == '(' { // (+44) 20 7946 0958
				st, paren, inParen = i-2, 0, true
			}
		case '(':
			st, paren, inParen = i-1, 0, true
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
	if digits < 7 || !plus && digits < 9 {
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
	return j, phoneCandidates(s, g[:ng], st, plus, paren, dst)
}

// phoneCandidates tries the run g (and its sub-runs split at plain spaces)
// and appends the phones it finds.
func phoneCandidates(s string, g []phoneGroup, st int, plus bool, paren int, dst []Span) []Span {
	ng := len(g)
	if piiWordBefore(s, st) {
		return dst // the tail of a word ("DE89 3704 0044 …"): no phone in it
	}
	cuts := false
	for x := 1; x < ng; x++ {
		cuts = cuts || g[x].sep == psSpace
	}
	if !cuts { // the whole run or nothing (most runs)
		if !plus && !piiNumStartOK(s, st) || !piiNumEndOK(s, g[ng-1].end) {
			return dst
		}
		d := 0
		for x := range g {
			d += g[x].end - g[x].start
		}
		if d <= 17 && phoneValid(s, g, plus, paren, d) {
			dst = append(dst, Span{st, g[ng-1].end})
		}
		return dst
	}
	for a := 0; a < ng; a++ {
		start := g[a].start
		if a == 0 {
			start = st
			if !plus && !piiNumStartOK(s, st) {
				continue
			}
		} else if g[a].sep != psSpace {
			continue
		}
		best, d := -1, 0
		for b := a; b < ng; b++ {
			d += g[b].end - g[b].start
			if d > 17 {
				break
			}
			if b+1 < ng && g[b+1].sep != psSpace {
				continue
			}
			if b+1 == ng && !piiNumEndOK(s, g[b].end) {
				continue
			}
			p := -1
			if paren >= a && paren <= b {
				p = paren - a
			}
			if phoneValid(s, g[a:b+1], plus && a == 0, p, d) {
				best = b
			}
		}
		if best >= 0 {
			dst = append(dst, Span{start, g[best].end})
			a = best
		}
	}
	return dst
}

// phoneValid applies the rules of scanPhone to groups g holding d digits;
// paren is the index of the parenthesised group or -1.
func phoneValid(s string, g []phoneGroup, plus bool, paren, d int) bool {
	k := len(g)
	first := g[0].start
	l0 := g[0].end - first
	if plus {
		return d >= 7 && d <= 15 && s[first] != '0' && !phoneSame(s, g)
	}
	if k < 2 {
		return false
	}
	// The shape first: it rejects most digit runs.
	switch {
	case paren >= 0:
		if g[paren].end-g[paren].start > 5 || paren > 1 || paren == 1 && s[first] != '0' && (l0 != 1 || s[first] != '1') {
			return false
		}
	case s[first] == '0':
		if l0 < 2 {
			return false
		}
	default: // NANP: [1] NXX NXX XXXX
		h := g
		if k == 4 && l0 == 1 && s[first] == '1' {
			h = g[1:]
		}
		if len(h) != 3 || !phoneLens(h, 3, 3, 4, 0, false) || s[h[0].start] < '2' || s[h[1].start] < '2' {
			return false
		}
	}
	if s[first] == '0' && l0 >= 2 && s[first+1] == '0' {
		if d < 10 || d > 17 {
			return false
		}
	} else if d < 9 || d > 12 {
		return false
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
	if seps&psDot != 0 && seps != psDot {
		return false
	}
	if seps&psSlash != 0 && (seps != psSlash || k != 2 || s[first] != '0') {
		return false
	}
	if seps == psDot && k == 4 && phoneLens(g, 3, 3, 3, 3, true) {
		return false // 10.120.33.200
	}
	if seps == psDash && k == 3 && phoneLens(g, 3, 2, 4, 0, false) {
		return false // ddd-dd-dddd: us_ssn
	}
	if seps == psDash && k == 2 && phoneLens(g, 5, 4, 0, 0, false) {
		return false // ZIP+4
	}
	if k >= 3 && phoneDate(s, g) {
		return false
	}
	return !phoneSame(s, g)
}

// phoneSame reports whether all digits of g are the same digit.
func phoneSame(s string, g []phoneGroup) bool {
	c := s[g[0].start]
	for x := range g {
		for q := g[x].start; q < g[x].end; q++ {
			if s[q] != c {
				return false
			}
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
