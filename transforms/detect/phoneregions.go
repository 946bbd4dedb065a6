package detect

import (
	"fmt"
	"strings"
)

// The numbering plans the phone detector knows (manual 12.9.2): per
// region, its country calling code, whether national numbers are written
// with a trunk prefix 0, which national significant numbers (NSN: the
// digits after the country code) are valid, and the written forms people
// use for the numbers they write without a 0. The facts are those of
// ITU-T E.164 national plans as libphonenumber's PhoneNumberMetadata.xml
// records them (read, not copied: this is a coarse table of leading
// digits and lengths, not its patterns). docs/RATIONALE.md says why a
// table of our own and not github.com/nyaruka/phonenumbers.

// phoneRule: an NSN whose first len(lo) digits lie in [lo, hi] and whose
// length is in [min, max] is valid; if at > 0, its digit at index at must
// also lie in [alo, ahi].
type phoneRule struct {
	lo, hi   string
	min, max uint8
	at       uint8
	alo, ahi byte
}

// phoneForm is a written form of a national number without a 0: the
// digits of each group (groups "333": 3, 3 and 3), for NSNs whose first
// digits lie in [lo, hi]; paren allows the first group in parentheses.
type phoneForm struct {
	lo, hi string
	groups string
	paren  bool
	spaced bool // a space or ')' after the first group (an area code)
}

// How a region's national numbers start.
const (
	pzNone  = iota // never with 0 (Spain, Denmark…)
	pzTrunk        // trunk prefix 0, dropped after the country code
	pzKeep         // a 0 that belongs to the number, kept after +cc (Italy)
)

type phoneRegion struct {
	iso  string
	cc   string
	zero uint8
	// maxFirst is the longest first group of a number written with its
	// 0 (the 0 and the area code: "020", "01632", "033203").
	maxFirst uint8
	pairs    bool // written in pairs only ("01 23 45 67 89")
	nanp     bool // North American plan: [1] NXX NXX XXXX
	rules    []phoneRule
	forms    []phoneForm
}

// phoneRegions is the table, in the order of regionSet's bits.
var phoneRegions = [...]phoneRegion{
	{iso: "US", cc: "1", nanp: true, rules: []phoneRule{{lo: "2", hi: "9", min: 10, max: 10, at: 3, alo: '2', ahi: '9'}}},
	{iso: "CA", cc: "1", nanp: true, rules: []phoneRule{{lo: "2", hi: "9", min: 10, max: 10, at: 3, alo: '2', ahi: '9'}}},
	{iso: "GB", cc: "44", zero: pzTrunk, maxFirst: 6, rules: []phoneRule{
		{lo: "1", hi: "1", min: 9, max: 10}, {lo: "2", hi: "3", min: 10, max: 10}, {lo: "5", hi: "5", min: 10, max: 10},
		{lo: "7", hi: "7", min: 10, max: 10}, {lo: "8", hi: "8", min: 9, max: 10}, {lo: "9", hi: "9", min: 10, max: 10}}},
	{iso: "DE", cc: "49", zero: pzTrunk, maxFirst: 6, rules: []phoneRule{
		{lo: "15", hi: "17", min: 10, max: 11}, {lo: "18", hi: "18", min: 8, max: 11}, {lo: "2", hi: "9", min: 6, max: 11}}},
	{iso: "FR", cc: "33", zero: pzTrunk, maxFirst: 2, pairs: true, rules: []phoneRule{{lo: "1", hi: "9", min: 9, max: 9}}},
	{iso: "ES", cc: "34", rules: []phoneRule{{lo: "6", hi: "9", min: 9, max: 9}},
		forms: []phoneForm{{lo: "6", hi: "9", groups: "333"}, {lo: "6", hi: "9", groups: "3222"}, {lo: "8", hi: "9", groups: "2322"}}},
	{iso: "IT", cc: "39", zero: pzKeep, maxFirst: 5, rules: []phoneRule{
		{lo: "01", hi: "09", min: 6, max: 11}, {lo: "3", hi: "3", min: 9, max: 10}},
		forms: []phoneForm{{lo: "3", hi: "3", groups: "334"}, {lo: "3", hi: "3", groups: "37"}, {lo: "3", hi: "3", groups: "3322"}}},
	{iso: "NL", cc: "31", zero: pzTrunk, maxFirst: 4, rules: []phoneRule{{lo: "1", hi: "9", min: 9, max: 9}}},
	{iso: "BR", cc: "55", zero: pzTrunk, maxFirst: 3, rules: []phoneRule{
		// Fixed lines from 2 to 5; 6 to 9 the mobiles of eight digits
		// before the ninth digit (2016), still written ((21) 8765-4321).
		{lo: "11", hi: "99", min: 10, max: 10, at: 2, alo: '2', ahi: '9'}, {lo: "11", hi: "99", min: 11, max: 11, at: 2, alo: '9', ahi: '9'}},
		forms: []phoneForm{{lo: "11", hi: "99", groups: "254", paren: true, spaced: true}, {lo: "11", hi: "99", groups: "244", paren: true, spaced: true},
			{lo: "11", hi: "99", groups: "2144", paren: true, spaced: true}}},
	{iso: "PL", cc: "48", rules: []phoneRule{{lo: "1", hi: "9", min: 9, max: 9}},
		forms: []phoneForm{ // mobiles 3-3-3, fixed lines (area code) 3-2-2
			{lo: "45", hi: "45", groups: "333"}, {lo: "50", hi: "53", groups: "333"}, {lo: "57", hi: "57", groups: "333"},
			{lo: "60", hi: "60", groups: "333"}, {lo: "66", hi: "66", groups: "333"}, {lo: "69", hi: "69", groups: "333"},
			{lo: "72", hi: "73", groups: "333"}, {lo: "78", hi: "79", groups: "333"}, {lo: "88", hi: "88", groups: "333"},
			{lo: "12", hi: "95", groups: "2322", paren: true, spaced: true}, {lo: "12", hi: "95", groups: "2322"}}}, // and 12-345-67-89
	{iso: "SE", cc: "46", zero: pzTrunk, maxFirst: 4, rules: []phoneRule{{lo: "7", hi: "7", min: 9, max: 9}, {lo: "1", hi: "9", min: 7, max: 9}}},
	{iso: "FI", cc: "358", zero: pzTrunk, maxFirst: 4, rules: []phoneRule{{lo: "4", hi: "5", min: 6, max: 10}, {lo: "1", hi: "9", min: 6, max: 9}}},
	{iso: "DK", cc: "45", rules: []phoneRule{{lo: "2", hi: "9", min: 8, max: 8}},
		forms: []phoneForm{{lo: "2", hi: "9", groups: "2222"}, {lo: "2", hi: "9", groups: "44"}}},
	{iso: "IN", cc: "91", zero: pzTrunk, maxFirst: 5, rules: []phoneRule{{lo: "1", hi: "9", min: 10, max: 10}},
		forms: []phoneForm{{lo: "6", hi: "9", groups: "55"}}},
	{iso: "SG", cc: "65", rules: []phoneRule{{lo: "6", hi: "6", min: 8, max: 8}, {lo: "8", hi: "9", min: 8, max: 8}},
		forms: []phoneForm{{lo: "6", hi: "6", groups: "44"}, {lo: "8", hi: "9", groups: "44"}}},
	{iso: "AU", cc: "61", zero: pzTrunk, maxFirst: 4, rules: []phoneRule{{lo: "2", hi: "4", min: 9, max: 9}, {lo: "7", hi: "8", min: 9, max: 9}}},
	{iso: "JP", cc: "81", zero: pzTrunk, maxFirst: 5, rules: []phoneRule{{lo: "1", hi: "9", min: 9, max: 10}}},
	{iso: "BE", cc: "32", zero: pzTrunk, maxFirst: 4, rules: []phoneRule{{lo: "45", hi: "49", min: 9, max: 9}, {lo: "1", hi: "9", min: 8, max: 8}}},
	{iso: "PT", cc: "351", rules: []phoneRule{{lo: "2", hi: "2", min: 9, max: 9}, {lo: "9", hi: "9", min: 9, max: 9}},
		forms: []phoneForm{{lo: "2", hi: "2", groups: "333"}, {lo: "9", hi: "9", groups: "333"}}},
	{iso: "CH", cc: "41", zero: pzTrunk, maxFirst: 3, rules: []phoneRule{{lo: "2", hi: "9", min: 9, max: 9}}},
	{iso: "AT", cc: "43", zero: pzTrunk, maxFirst: 5, rules: []phoneRule{{lo: "1", hi: "9", min: 5, max: 13}}},
	{iso: "IE", cc: "353", zero: pzTrunk, maxFirst: 4, rules: []phoneRule{{lo: "1", hi: "9", min: 7, max: 10}}},
	{iso: "IL", cc: "972", zero: pzTrunk, maxFirst: 3, rules: []phoneRule{
		{lo: "2", hi: "4", min: 8, max: 8}, {lo: "8", hi: "9", min: 8, max: 8}, {lo: "5", hi: "5", min: 9, max: 9}, {lo: "7", hi: "7", min: 9, max: 9}}},
	{iso: "TR", cc: "90", zero: pzTrunk, maxFirst: 4, rules: []phoneRule{{lo: "2", hi: "5", min: 10, max: 10}, {lo: "8", hi: "8", min: 10, max: 10}}},
	// China: fixed lines after the trunk 0 and an area code of two to
	// four digits (010, 021, 0755), mobiles of eleven digits from 13 to
	// 19 without a 0, written 3-4-4 (138 0013 8000).
	{iso: "CN", cc: "86", zero: pzTrunk, maxFirst: 4, rules: []phoneRule{
		{lo: "10", hi: "10", min: 10, max: 10}, {lo: "13", hi: "19", min: 11, max: 11}, {lo: "2", hi: "2", min: 10, max: 10}, {lo: "3", hi: "9", min: 10, max: 11}},
		forms: []phoneForm{{lo: "13", hi: "19", groups: "344"}}},
}

// regionSet is a set of phoneRegions, bit i for phoneRegions[i].
type regionSet uint32

// defaultPhoneRegions is every region of the table: the locales of
// manual 12.9.2.
const defaultPhoneRegions = regionSet(1)<<len(phoneRegions) - 1

// phoneRegionSet compiles a policy's detection.phone_regions (ISO 3166
// alpha-2 codes, any case; UK is GB): nil or empty is the default set.
func phoneRegionSet(codes []string) (regionSet, error) {
	if len(codes) == 0 {
		return defaultPhoneRegions, nil
	}
	var set regionSet
	for _, c := range codes {
		u := strings.ToUpper(c)
		if u == "UK" {
			u = "GB"
		}
		i := phoneRegionIndex(u)
		if i < 0 {
			return 0, fmt.Errorf("phone region %q: not one of %s", c, phoneRegionList())
		}
		set |= 1 << i
	}
	return set, nil
}

func phoneRegionIndex(iso string) int {
	for i := range phoneRegions {
		if phoneRegions[i].iso == iso {
			return i
		}
	}
	return -1
}

// phoneRegionList names the regions of the table, for errors and docs.
func phoneRegionList() string {
	var b strings.Builder
	for i := range phoneRegions {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(phoneRegions[i].iso)
	}
	return b.String()
}

// eightDigits reports whether the set has regions with 8-digit national
// numbers written without a 0 (Denmark, Singapore): the pass then looks
// at stretches of 8 digits.
func (rs regionSet) eightDigits() bool {
	return rs&(1<<phoneRegionDK|1<<phoneRegionSG) != 0
}

// Indexes of phoneRegions the code names.
const (
	phoneRegionDK = 12
	phoneRegionSG = 14
)

// phoneRuleOK reports whether nsn is valid under r's rules.
func phoneNSNValid(r *phoneRegion, nsn []byte) bool {
	n := len(nsn)
	for k := range r.rules {
		u := &r.rules[k]
		if n < int(u.min) || n > int(u.max) || !phoneLead(nsn, u.lo, u.hi) {
			continue
		}
		if u.at > 0 && (nsn[u.at] < u.alo || nsn[u.at] > u.ahi) {
			continue
		}
		return true
	}
	return false
}

// phoneLead reports whether the first len(lo) digits of d lie in [lo, hi].
func phoneLead(d []byte, lo, hi string) bool {
	if len(d) < len(lo) {
		return false
	}
	p := string(d[:len(lo)]) // no allocation: compared only
	return p >= lo && p <= hi
}

// phoneCountryCodes are the assigned country calling codes of ITU-T
// E.164 (two and three digits; 1 and 7 are the one-digit codes), as a
// bitset over 0–999.
var phoneCountryCodes = func() (t [16]uint64) {
	const list = "20 27 30 31 32 33 34 36 39 40 41 43 44 45 46 47 48 49 51 52 53 54 55 56 57 58 60 61 62 63 64 65 66 81 82 84 86 90 91 92 93 94 95 98 " +
		"211 212 213 216 218 220-258 260-269 290 291 297 298 299 350-359 370-378 380-383 385-387 389 420 421 423 500-509 590-599 " +
		"670 672-683 685-692 800 808 850 852 853 855 856 870 878 880-883 886 888 960-968 970-977 979 992-996 998"
	for _, f := range strings.Fields(list) {
		lo, hi, _ := strings.Cut(f, "-")
		a := phoneAtoi(lo)
		b := a
		if hi != "" {
			b = phoneAtoi(hi)
		}
		for c := a; c <= b; c++ {
			t[c>>6] |= 1 << (c & 63)
		}
	}
	return t
}()

func phoneAtoi(s string) int {
	v := 0
	for i := 0; i < len(s); i++ {
		v = v*10 + int(s[i]-'0')
	}
	return v
}

// phoneCountryCode returns the length of the country code d starts with
// (digits after + or 00), 0 if none is assigned.
func phoneCountryCode(d []byte) int {
	if len(d) < 2 || d[0] == '0' {
		return 0
	}
	if d[0] == '1' || d[0] == '7' {
		return 1
	}
	c := int(d[0]-'0')*10 + int(d[1]-'0')
	if phoneCountryCodes[c>>6]&(1<<(c&63)) != 0 {
		return 2
	}
	if len(d) < 3 {
		return 0
	}
	c = c*10 + int(d[2]-'0')
	if phoneCountryCodes[c>>6]&(1<<(c&63)) != 0 {
		return 3
	}
	return 0
}

// phoneRegionByCC returns the first region of the table with country
// code cc, or nil.
func phoneRegionByCC(cc []byte) *phoneRegion {
	for i := range phoneRegions {
		if phoneRegions[i].cc == string(cc) {
			return &phoneRegions[i]
		}
	}
	return nil
}
