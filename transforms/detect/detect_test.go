package detect

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cloudg/mcp-privacy/policy"
)

// The detectors' drivers as they were before the single pass of detect.go:
// each searched the whole string for its own trigger, one detector after
// the other. They stay as the reference the pass is held to (the same
// spans for every detector on every input: TestSinglePassMatchesDrivers,
// FuzzSinglePass) and as the "before" of the benchmarks (oldDetect).

// oldScanners is the former drivers in manual 12's table order.
var oldScanners = [numPass]scanFunc{
	oldScanEmail, oldScanPhone, oldScanCreditCard, oldScanIBAN, oldScanUSSSN, oldScanIPv4, oldScanIPv6, oldScanMAC, oldScanAWSARN,
	oldScanAWSAccessKey, oldScanGitHubToken, oldScanSlackToken, oldScanStripeKey, oldScanGoogleAPIKey, oldScanJWT,
	oldScanPrivateKey, oldScanURLCredentials, oldScanBearerToken, oldScanGenericSecret,
}

// oldDetect is the former Set.Detect with every built-in detector:
// each driver over the whole string, then the overlaps resolved.
func oldDetect(s string) []Detection {
	var out []Detection
	var spans []Span
	for i := range numPass {
		b := &policy.BuiltinDetectors[i]
		spans = oldScanners[i](s, spans[:0])
		for _, sp := range spans {
			if sp.Start < 0 || sp.End > len(s) || sp.Start >= sp.End || !boundary(s, sp.Start) || !boundary(s, sp.End) {
				continue
			}
			out = append(out, Detection{Detector: b.Name, Label: b.Label, Sensitivity: b.Sensitivity, Start: sp.Start, End: sp.End})
		}
	}
	if len(out) < 2 {
		return out
	}
	return resolveOverlaps(out, oldRank)
}

var oldRanks = func() map[string]int {
	m := map[string]int{}
	for i, b := range policy.BuiltinDetectors {
		m[b.Name] = i
	}
	return m
}()

func oldRank(name string) int { return oldRanks[name] }

func oldSecEmit(dst []Span, s string, a, b int) []Span {
	if boundary(s, a) && boundary(s, b) {
		dst = append(dst, Span{a, b})
	}
	return dst
}

func oldScanEmail(s string, dst []Span) []Span {
	i, lo := 0, 0
	for i < len(s) {
		k := strings.IndexByte(s[i:], '@')
		if k < 0 {
			break
		}
		at := i + k
		i = at + 1
		a := emailLocalStart(s, lo, at)
		if a < 0 {
			continue
		}
		e := emailDomainEnd(s, at+1)
		if e < 0 {
			continue
		}
		dst = append(dst, Span{a, e})
		i, lo = e, e
	}
	return dst
}

func oldScanPhone(s string, dst []Span) []Span {
	var g [phoneMaxGroups]phoneGroup
	n := len(s)
	i := 0
	for {
		// Every byte of a phone is a oldPhoneMember and a phone is at least
		// oldPhoneMinLen long, so a probe that is not one rules out every
		// phone starting in [i, probe]. i is never inside a run.
		p := i + oldPhoneMinLen - 1
		if p >= n {
			return dst
		}
		// A separator inside a phone has a digit or parenthesis on both
		// sides (but a spaced slash: oldPhoneMember), so s[p] inside a
		// phone is a member. Prose rarely has one.
		if !oldPhoneMember(s, p) {
			i = p + 1
			continue
		}
		// A stretch of phone bytes holding s[p] and 8 long holds s[p-4:p]
		// or s[p+1:p+5]; most digit clusters (times, UUIDs) are shorter.
		if p+4 < n && piiClass[s[p-4]]&piiClass[s[p-3]]&piiClass[s[p-2]]&piiClass[s[p-1]]&pcPhone == 0 &&
			piiClass[s[p+1]]&piiClass[s[p+2]]&piiClass[s[p+3]]&piiClass[s[p+4]]&pcPhone == 0 {
			i = p + 1
			continue
		}
		// The stretch of phone bytes around the probe needs 8 digits (the
		// default regions have Denmark's and Singapore's) and a separator,
		// or '+' and 7 digits, or is a bare run of digits that phoneBare
		// reads. (The count stops there: a long stretch is parsed a run at
		// a time, and must not be walked again for each.)
		for i < p && piiClass[s[p-1]]&pcPhone != 0 {
			p--
		}
		e, digits, plus := p, 0, 0
		for e < n && (digits < 8 || digits == e-p) {
			m := piiClass[s[e]]
			if m&pcPhone == 0 {
				break
			}
			digits += int(m & pcDigit) // pcDigit is bit 0
			plus |= int(m & pcPlus)
			e++
		}
		if digits == e-p {
			if phoneBare(s, p, e, defaultPhoneRegions) {
				dst = append(dst, Span{p, e})
			}
			i = e
			continue
		}
		if digits < 8 && (plus == 0 || digits < 7) {
			i = e
			continue
		}
		for !piiDigit(s[p]) {
			p++
		}
		i, dst = phoneRun(s, p, &g, dst, defaultPhoneRegions)
	}
}

func oldScanCreditCard(s string, dst []Span) []Span {
	var g [ccMaxGroups]ccGroup
	n := len(s)
	i := 0
	for {
		// Probe as in scanPhone: a card is at least 13 bytes of digits and
		// single separators between digits.
		p := i + 12
		if p >= n {
			return dst
		}
		if c := s[p]; !piiDigit(c) && ((c != ' ' && c != '-') || p+1 == n || !piiDigit(s[p-1]) || !piiDigit(s[p+1])) {
			i = p + 1
			continue
		}
		for i < p && piiClass[s[p-1]]&pcCard != 0 {
			p--
		}
		e, digits := p, 0
		for e < n && digits < 13 { // stops there, as in scanPhone
			m := piiClass[s[e]]
			if m&pcCard == 0 {
				break
			}
			digits += int(m & pcDigit) // pcDigit is bit 0
			e++
		}
		if digits < 13 {
			i = e
			continue
		}
		for !piiDigit(s[p]) {
			p++
		}
		i, dst = ccRun(s, p, &g, dst)
	}
}

func oldScanIBAN(s string, dst []Span) []Span {
	n := len(s)
	i := 0
	for {
		// Probe as in scanPhone: an IBAN is at least 15 bytes of A-Z, 0-9
		// and single spaces between them.
		p := i + 14
		if p >= n {
			return dst
		}
		if c := s[p]; piiClass[c]&pcIBAN == 0 && (c != ' ' || p+1 == n || piiClass[s[p-1]]&pcIBAN == 0 || piiClass[s[p+1]]&pcIBAN == 0) {
			i = p + 1
			continue
		}
		a := p
		for a > i && (piiClass[s[a-1]]&pcIBAN != 0 || s[a-1] == ' ' && a-2 >= i && piiClass[s[a-2]]&pcIBAN != 0) {
			a--
		}
		// An IBAN holding s[p] starts in [a, p].
		i = p + 1
		for ; a <= p && a+3 < n; a++ {
			if piiIs(s[a], pcUpper) && piiIs(s[a+1], pcUpper) && piiDigit(s[a+2]) && piiDigit(s[a+3]) {
				if e := ibanAt(s, a); e > 0 {
					dst = append(dst, Span{a, e})
					i = e
					break
				}
			}
		}
	}
}

func oldScanUSSSN(s string, dst []Span) []Span {
	n := len(s)
	i := 0
	for {
		k := strings.IndexByte(s[i:], '-')
		if k < 0 {
			return dst
		}
		p := i + k
		i = p + 1
		a, e := p-3, p+8
		if a < 0 {
			continue
		}
		if e > n {
			return dst
		}
		if s[p+3] != '-' || !piiDigit(s[a]) || !piiDigit(s[a+1]) || !piiDigit(s[a+2]) || !piiDigit(s[p+1]) || !piiDigit(s[p+2]) ||
			!piiDigit(s[p+4]) || !piiDigit(s[p+5]) || !piiDigit(s[p+6]) || !piiDigit(s[p+7]) {
			continue
		}
		if !piiNumStartOK(s, a) || a >= 2 && s[a-1] == '-' && piiIs(s[a-2], pcAlnum) || a >= 1 && s[a-1] == '+' {
			continue
		}
		if !piiNumEndOK(s, e) || e+1 < n && s[e] == '-' && piiIs(s[e+1], pcAlnum) {
			continue
		}
		area := s[a : a+3]
		if area == "000" || area == "666" || area[0] == '9' || s[p+1] == '0' && s[p+2] == '0' || s[p+4:e] == "0000" {
			continue
		}
		dst = append(dst, Span{a, e})
		i = e
	}
}

func oldScanIPv4(s string, dst []Span) []Span {
	n := len(s)
	i := 0
	for i < n {
		k := strings.IndexByte(s[i:], '.')
		if k < 0 {
			break
		}
		p := i + k
		if p == 0 || p+1 >= n || !piiDigit(s[p-1]) || !piiDigit(s[p+1]) {
			i = p + 1
			continue
		}
		a := p - 1
		for a > i && piiDigit(s[a-1]) {
			a--
		}
		e, parts, ok := a, 0, true
		for {
			gs, v := e, 0
			for e < n && piiDigit(s[e]) {
				if e-gs < 3 {
					v = v*10 + int(s[e]-'0')
				}
				e++
			}
			if l := e - gs; l > 3 || v > 255 || l > 1 && s[gs] == '0' {
				ok = false
			}
			parts++
			if e+1 < n && s[e] == '.' && piiDigit(s[e+1]) {
				e++
				continue
			}
			break
		}
		i = e
		if !ok || parts != 4 || piiWordBefore(s, a) || piiWordAt(s, e) {
			continue
		}
		if a >= 2 && s[a-1] == '.' && piiIs(s[a-2], pcAlnum) {
			continue
		}
		if e+1 < n && s[e] == '-' && piiIs(s[e+1], pcUpper|pcLower) {
			continue // 1.2.3.4-rc1: a version
		}
		dst = append(dst, Span{a, e})
	}
	return dst
}

func oldScanIPv6(s string, dst []Span) []Span {
	n := len(s)
	i := 0
	for i < n {
		k := strings.IndexByte(s[i:], ':')
		if k < 0 {
			break
		}
		p := i + k
		// Cheap filter: an address has a hex digit or ':' next to each ':'.
		if !(p > 0 && piiIs(s[p-1], pcHex) || p+1 < n && (piiIs(s[p+1], pcHex) || s[p+1] == ':')) {
			i = p + 1
			continue
		}
		a := p
		for a > i && piiClass[s[a-1]]&(pcHex|pcV6) != 0 && s[a-1] != '.' {
			a--
		}
		if piiWordBefore(s, a) {
			i = ipv6SkipGlued(s, a, p)
			continue
		}
		e := p + 1
		for e < n && piiClass[s[e]]&pcV6 != 0 {
			e++
		}
		i = e
		for e > a && s[e-1] == '.' {
			e--
		}
		if e-a >= 2 && s[e-1] == ':' && s[e-2] != ':' {
			e--
		}
		if e < n && s[e] != ':' && s[e] != '.' && piiWordAt(s, e) {
			continue
		}
		if a >= 2 && s[a-1] == '[' && (piiWordBefore(s, a-1) || s[a-2] == ')' || s[a-2] == ']') {
			continue
		}
		if ipv6Valid(s[a:e]) {
			dst = append(dst, Span{a, e})
		}
	}
	return dst
}

func oldScanMAC(s string, dst []Span) []Span {
	base := len(dst)
	dst = oldScanMACSep(s, dst, ':')
	mid := len(dst)
	dst = oldScanMACSep(s, dst, '-')
	if mid > base && len(dst) > mid {
		// merge the two passes into start order (insertion sort: MACs are few)
		for x := base + 1; x < len(dst); x++ {
			for y := x; y > base && dst[y].Start < dst[y-1].Start; y-- {
				dst[y], dst[y-1] = dst[y-1], dst[y]
			}
		}
	}
	return dst
}

func oldScanMACSep(s string, dst []Span, sep byte) []Span {
	i := 0
	for {
		k := strings.IndexByte(s[i:], sep)
		if k < 0 {
			return dst
		}
		f := i + k
		i = f + 1
		if f < 2 {
			continue
		}
		if f+15 > len(s) {
			return dst
		}
		if s[f+3] != sep || piiClass[s[f-2]]&piiClass[s[f-1]]&pcHex == 0 {
			continue // the common case, inlined
		}
		if e := macAt(s, f); e > 0 {
			dst = append(dst, Span{f - 2, e})
			i = e
		}
	}
}

func oldScanAWSARN(s string, dst []Span) []Span {
	i := 0
	for i < len(s) {
		// ':' is rarer than 'a', the first byte strings.Index would look
		// for; check the "arn" before it.
		k := strings.IndexByte(s[i:], ':')
		if k < 0 {
			break
		}
		p := i + k
		i = p + 1
		a := p - 3
		if a < 0 || s[a] != 'a' || s[a+1] != 'r' || s[a+2] != 'n' || piiWordBefore(s, a) {
			continue
		}
		if e := arnAt(s, p+1); e > 0 {
			dst = append(dst, Span{a, e})
			i = e
		}
	}
	return dst
}

// oldPhoneMinLen is the shortest phone in bytes: '+' and 7 digits.
const oldPhoneMinLen = 8

// oldPhoneMember reports whether s[j] can be part of a phone run: a digit,
// or a separator, '(', ')' or '+' in a position a run allows.
func oldPhoneMember(s string, j int) bool {
	c := s[j]
	if piiDigit(c) {
		return true
	}
	if piiClass[c]&pcPhone == 0 {
		return false
	}
	prev := j > 0 && (piiDigit(s[j-1]) || s[j-1] == ')')
	next := j+1 < len(s) && (piiDigit(s[j+1]) || s[j+1] == '(' || s[j+1] == '+')
	// A byte of a spaced slash between digits (089 / 1234567).
	for k := max(j-2, 1); k <= j && k+3 < len(s); k++ {
		if s[k:k+3] == " / " && piiDigit(s[k-1]) && piiDigit(s[k+3]) {
			return true
		}
	}
	switch c {
	case '(', '+':
		return next
	case ')':
		return j > 0 && piiDigit(s[j-1])
	}
	return prev && next
}

func oldScanAWSAccessKey(s string, dst []Span) []Span {
	for i := 0; i+20 <= len(s); {
		j := strings.IndexByte(s[i:len(s)-19], 'A')
		if j < 0 {
			break
		}
		i += j
		if secAWSKeyAt(s, i) {
			dst = oldSecEmit(dst, s, i, i+20)
			i += 20
			continue
		}
		i++
	}
	return dst
}

func oldScanGitHubToken(s string, dst []Span) []Span {
	// Trigger: the '_' of gh?_ and of github_pat_. A candidate starts
	// before its trigger, so it must not start inside the previous span.
	last := 0
	for u := 3; u < len(s); {
		j := strings.IndexByte(s[u:], '_')
		if j < 0 {
			break
		}
		u += j
		st := -2
		if s[u-2] == 'h' && s[u-3] == 'g' {
			st = u - 3
		} else if u >= 6 && s[u-1] == 'b' && s[u-6:u] == "github" {
			st = u - 6
		}
		if st >= last && (st == 0 || !secIs(s[st-1], secWord)) {
			if end := secGitHubAt(s, st); end > 0 {
				dst = oldSecEmit(dst, s, st, end)
				u, last = end, end
				continue
			}
		}
		u++
	}
	return dst
}

func oldScanSlackToken(s string, dst []Span) []Span {
	for i := 0; i+25 <= len(s); {
		j := strings.IndexByte(s[i:len(s)-24], 'x')
		if j < 0 {
			break
		}
		i += j
		if (s[i+1] == 'o' || s[i+1] == 'a') && (i == 0 || !secIs(s[i-1], secAlnum)) {
			end := secSlackAt(s, i)
			if end > 0 {
				dst = oldSecEmit(dst, s, i, end)
			} else {
				// Later candidates inside this run follow an alphanumeric
				// or a dash: skip it (linear time on xoxb-xoxb-…).
				end = secRun(s, i+1, secAlnum|secDash)
			}
			i = end
			continue
		}
		i++
	}
	return dst
}

func oldScanStripeKey(s string, dst []Span) []Span {
	// Trigger: the first '_' of sk_live_ and the like.
	last := 0
	for u := 2; u < len(s); {
		j := strings.IndexByte(s[u:], '_')
		if j < 0 {
			break
		}
		u += j
		if s[u-1] == 'k' && u-2 >= last {
			if end := secStripeAt(s, u-2); end > 0 {
				dst = oldSecEmit(dst, s, u-2, end)
				u, last = end, end
				continue
			}
		}
		u++
	}
	return dst
}

func oldScanGoogleAPIKey(s string, dst []Span) []Span {
	// Trigger: the rare 'z' of AIza.
	last := 0
	for u := 2; u+37 <= len(s); {
		j := strings.IndexByte(s[u:len(s)-36], 'z')
		if j < 0 {
			break
		}
		u += j
		i := u - 2
		if s[i] == 'A' && s[i+1] == 'I' && s[i+3] == 'a' && i >= last && (i == 0 || !secIs(s[i-1], secB64URL)) {
			e := secRun(s, i+4, secB64URL)
			if e-i == 39 && !secLongRun(s[i+4:e], 6) {
				dst = oldSecEmit(dst, s, i, e)
				last = e
			}
			u = e // any later AIza in this run is inside it
			continue
		}
		u++
	}
	return dst
}

func oldScanJWT(s string, dst []Span) []Span {
	// Trigger: the rare 'J' of eyJ.
	last := 0
	for u := 2; u+8 <= len(s); {
		j := strings.IndexByte(s[u:len(s)-7], 'J')
		if j < 0 {
			break
		}
		u += j
		i := u - 2
		if s[i+1] == 'y' && s[i] == 'e' && i >= last && (i == 0 || !secIs(s[i-1], secB64URL|secDot)) {
			if end := secJWTAt(s, i); end > 0 {
				dst = oldSecEmit(dst, s, i, end)
				u, last = end, end
				continue
			}
		}
		u++
	}
	return dst
}

func oldScanPrivateKey(s string, dst []Span) []Span {
	// Trigger: the rare 'G' of -----BEGIN. An END line's dashes may also
	// open the next BEGIN: a block must not start inside the previous one.
	last := 0
	for u := 7; u+4 <= len(s); {
		j := strings.IndexByte(s[u:], 'G')
		if j < 0 {
			break
		}
		u += j
		i := u - 7
		if s[i] == '-' && s[u-1] == 'E' && i >= last && strings.HasPrefix(s[i:], "-----BEGIN ") {
			if end := secPEMAt(s, i); end > 0 {
				dst = oldSecEmit(dst, s, i, end)
				u, last = end, end
				continue
			}
		}
		u++
	}
	return dst
}

func oldScanURLCredentials(s string, dst []Span) []Span {
	// Trigger: '@'; walk back over the userinfo to "://", then forward to
	// the end of the authority.
	prevU, prevA, last := -1, -1, 0
	for u := 0; u < len(s); {
		j := strings.IndexByte(s[u:], '@')
		if j < 0 {
			break
		}
		u += j
		a := u
		for a > 0 && !secURLStop(s[a-1]) && u-a < 512 {
			if a-1 == prevU { // same run as the previous '@': reuse its walk
				a = prevA
				break
			}
			a--
		}
		prevU, prevA = u, a
		if u-a >= 512 || a < 4 || s[a-1] != '/' || s[a-2] != '/' || s[a-3] != ':' {
			u++
			continue
		}
		k := a - 3
		for k > 0 && a-3-k < 32 && secIs(s[k-1], secAlnum|secDash|secDot|secPlusSl) && s[k-1] != '/' {
			k--
		}
		for k < a-3 && !secIs(s[k], secAlpha) {
			k++
		}
		e, at := u, u
		for e < len(s) && e-a < 512 && !secURLStop(s[e]) {
			if s[e] == '@' {
				at = e
			}
			e++
		}
		u = max(e, u+1)
		if k == a-3 || at+1 >= e || !secIs(s[at+1], secAlnum) && s[at+1] != '[' {
			continue
		}
		c := strings.IndexByte(s[a:at], ':')
		if c < 0 || a+c+1 == at || secPlaceholder(s[a+c+1:at]) {
			continue
		}
		if h := strings.IndexByte(s[a:at], '#'); h >= 0 && (h < c || secRun(s, a+c+1, secDigit) == a+h) {
			continue // host:port#fragment@…
		}
		if a >= last {
			dst = oldSecEmit(dst, s, a, at)
			last = at
		}
	}
	return dst
}

func oldScanBearerToken(s string, dst []Span) []Span {
	dst = oldSecBearerPass(s, 'B', dst) // Bearer, BEARER
	return oldSecBearerPass(s, 'b', dst)
}

func oldSecBearerPass(s string, first byte, dst []Span) []Span {
	for b := 0; b+7 < len(s); {
		j := strings.IndexByte(s[b:len(s)-7], first)
		if j < 0 {
			break
		}
		b += j
		i := b + 6
		if c := s[b+1] | 0x20; c != 'e' || s[b+2]|0x20 != 'a' || b > 0 && secIs(s[b-1], secWord) {
			b++
			continue
		}
		if w := s[b+1 : i]; w != "earer" && (first != 'B' || w != "EARER") {
			b++
			continue
		}
		k := i
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		b = k
		if k == i {
			continue
		}
		e := secRun(s, k, secBearer)
		for e > k && s[e-1] == '.' {
			e--
		}
		if e-k < 16 || secLongRun(s[k:e], 8) {
			continue
		}
		var cls uint16
		for p := k; p < e; p++ {
			cls |= secCls[s[p]]
		}
		if n := min(cls&secUpper, 1) + min(cls&secLower, 1) + min(cls&secDigit, 1); n < 2 || cls&^secAlpha == 0 && secCamelWords(s[k:e]) {
			continue
		}
		dst = oldSecEmit(dst, s, k, e)
		b = e
	}
	return dst
}

func oldScanGenericSecret(s string, dst []Span) []Span {
	// Two IndexByte cursors, for ':' and '='.
	nc, ne := strings.IndexByte(s, ':'), strings.IndexByte(s, '=')
	for pos := 0; ; {
		if nc >= 0 && nc < pos {
			if nc = strings.IndexByte(s[pos:], ':'); nc >= 0 {
				nc += pos
			}
		}
		if ne >= 0 && ne < pos {
			if ne = strings.IndexByte(s[pos:], '='); ne >= 0 {
				ne += pos
			}
		}
		i := nc
		if i < 0 || ne >= 0 && ne < i {
			i = ne
		}
		if i < 0 {
			return dst
		}
		pos = i + 1
		// Quick filter: the key's last letter (before spaces and a quote)
		// ends password/passwd, passphrase, secret, token, key, credential.
		j := i
		for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
			j--
		}
		if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
			j--
			if j > 0 && s[j-1] == '\\' {
				j--
			}
		}
		if j < 3 {
			continue
		}
		c1, c2, c3 := s[j-1]|0x20, s[j-2]|0x20, s[j-3]|0x20
		switch {
		case c1 == 'd' && (c2 == 'r' && c3 == 'o' || c2 == 'w' && c3 == 's'): // password, passwd
		case c1 == 'e' && c2 == 's' && c3 == 'a': // passphrase
		case c1 == 't' && c2 == 'e' && c3 == 'r': // secret
		case c2 == 'e' && c3 == 'k' && (c1 == 'n' || c1 == 'y'): // token, key
		case c1 == 'l' && c2 == 'a' && c3 == 'i': // credential
		default:
			continue
		}
		vs, ve, next := secGenericAt(s, i)
		pos = max(pos, next)
		if vs < 0 {
			continue
		}
		dst = oldSecEmit(dst, s, vs, ve)
		pos = next
	}
}

// scanGroup appends to dst what the built-in detectors of group ("pii",
// "secrets") find in s, in one pass.
func scanGroup(group, s string, dst []Span) []Span {
	sel := groupSelections[group]
	p := pass{s: s, on: uint32(sel.builtins) & allPass, tab: sel.tab, spans: dst}
	p.run()
	return p.spans
}

var groupSelections = map[string]Selection{"pii": Select([]string{"@pii"}, 0), "secrets": Select([]string{"@secrets"}, 0)}

// singlePassSame fails t unless every detector finds in s, through the
// pass, exactly what its former driver found, and Detect with every
// detector equals oldDetect (both on s as it is: the reader view in front
// of them has tests of its own).
func singlePassSame(t *testing.T, ds *Set, sel Selection, s string) {
	t.Helper()
	for d := 0; d < numPass; d++ {
		got, want := scanBuiltin(d, s, nil), oldScanners[d](s, nil)
		if d == detBearer { // the former driver ran 'B' then 'b'
			slices.SortFunc(want, func(a, b Span) int { return a.Start - b.Start })
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: single pass %v, former driver %v, in %q", builtinNames[d], got, want, s)
		}
	}
	passOnly := sel // the former drivers are the pass's detectors
	passOnly.builtins &= uint64(allPass)
	got := ds.detectText(nil, s, passOnly, new(detectScratch), nil)
	// A US SSN of nine digits or spaced groups after its word ("SSN
	// 123456789") is the identifier scan's (ids.go), which no former
	// driver had: it is compared where the SSN's own tests are.
	got = slices.DeleteFunc(got, func(d Detection) bool { return d.Detector == "us_ssn" && d.Basis == BasisContext })
	if want := oldDetect(s); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Detect %v, former %v, in %q", got, want, s)
	}
	pairPassSame(t, s)
}

// byteTable is allTable without the pair conditions of pairTriggers, but
// those the pass's visits rely on (a digit run's first digit, the B before
// bearer's e): every trigger byte visited whatever precedes it.
var byteTable = buildTrigTable(allPass, func(d int, b, c byte) bool {
	switch d {
	case detPhone, detCard, detIBAN:
		return !piiDigit(b)
	case detBearer:
		return b == 'B' || b == 'b'
	}
	return true
})

// TestPairTable: the pass with the pair table equals the pass visiting
// every trigger byte at the edges of strings and words (the byte before
// the first is none), across the eight-byte words and in the short tail,
// and where a JSON escape's letter comes before a trigger (\t4111…: not a
// word character, so no pair condition may exclude a lower-case letter
// before a digit).
func TestPairTable(t *testing.T) {
	for _, s := range []string{
		"", "4", "4111 1111 1111 1111", "Bearer abcdefghijklmnop", "bearer abcdefghijklmnop",
		"x Bearer abcdefghijklmnopqrst", "1234567.192.168.1.1", ".1.2.3.4", "078-05-1120", "a-078-05-1120",
		`x \t4111 1111 1111 1111 y`, `x \n+1 555 123 4567 y`, `\nxoxb-1234567890-abcdefghijklmn`,
		"AKIAIOSFODNN7EXAMPLE", "xAKIAIOSFODNN7EXAMPLE", "key=AIzaSyA1234567890abcdefghijklmnopqrstu",
		"00:1a:2b:3c:4d:5e", "01-23-45-67-89-ab", "fe80::1", "::1", "arn:aws:s3:::bucket",
		"password: hunter2hunter2", `"token" = "abcdefgh12345678"`, "sk_live_abcdefghijklmnop1234", "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"-----BEGIN RSA PRIVATE KEY-----", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghij",
	} {
		for pad := 0; pad < 9; pad++ {
			pairPassSame(t, strings.Repeat(" ", pad)+s)
			pairPassSame(t, strings.Repeat("a", pad)+s+strings.Repeat("9", pad))
		}
	}
}

// pairPassSame fails t unless the pass with every detector finds the same
// spans, from the same detectors in the same order, with allTable as with
// byteTable: the visits pairTriggers saves would have found nothing.
func pairPassSame(t *testing.T, s string) {
	t.Helper()
	got := pass{s: s, on: allPass, tab: allTable, multi: true}
	got.run()
	want := pass{s: s, on: allPass, tab: byteTable, multi: true}
	want.run()
	if !slices.Equal(got.spans, want.spans) || !slices.Equal(got.dets, want.dets) {
		t.Fatalf("pair table %v %v, byte table %v %v, in %q", got.spans, got.dets, want.spans, want.dets, s)
	}
}

// detectorAlphabets are the alphabets random strings for the detectors'
// tests are drawn from: each detector's triggers, separators and the
// characters around its values.
var detectorAlphabets = []string{
	"0123456789 -.()+/:DEGBNL x@é",
	"0123456789abcdefABCDEF:-. [ ]%/",
	"arn:aws:s3:::-{}/ .:1234567890",
	"AKIA0123456789XYZ_ghpsk_live_xoxb-AIzaeyJ.-----BEGIN PRIVATE KEY-----\\n",
	"Bearer bearer BEARER token=password: \"'abcXYZ0123456789._~+/",
	"://user:pass@host#@ \\\"0123",
	"a@b.c.d-_+%' \\nx@y.zz",
}

// The pass finds what the former drivers found: on the detector corpus,
// the mixed corpus (each document, and whole), the benchmark texts, and
// random strings over the detectors' alphabets.
func TestSinglePassMatchesDrivers(t *testing.T) {
	ds, sel := allDetectors(t), Select(nil, 0)
	for _, name := range builtinNames {
		for _, c := range readCorpus(t, name) {
			singlePassSame(t, ds, sel, c.text)
		}
	}
	whole, docs := readMixed(t)
	for _, doc := range docs {
		singlePassSame(t, ds, sel, doc)
	}
	singlePassSame(t, ds, sel, whole)
	singlePassSame(t, ds, sel, piiBenchText(256<<10))
	singlePassSame(t, ds, sel, secBenchText(256<<10))
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		alpha := detectorAlphabets[r.IntN(len(detectorAlphabets))]
		b := make([]byte, 1+r.IntN(120))
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
		}
		singlePassSame(t, ds, sel, string(b))
	}
	// Every value of the corpus with a little context, cut at every
	// length: the ends of the string are where bounds differ.
	for _, name := range builtinNames {
		for _, c := range readCorpus(t, name) {
			for _, w := range c.want {
				v := c.text[max(0, w.Start-3):min(len(c.text), w.End+3)]
				for k := 0; k <= len(v); k++ {
					singlePassSame(t, ds, sel, v[:k])
					singlePassSame(t, ds, sel, v[k:])
				}
			}
		}
	}
}

// addCorpusSeeds adds every case of the detector corpus as a seed of f.
func addCorpusSeeds(f *testing.F) {
	for _, name := range builtinNames {
		if b, err := os.ReadFile(filepath.Join(corpusDir, name+".txt")); err == nil {
			for _, l := range strings.Split(string(b), "\n") {
				if len(l) > 2 && l[0] != '#' {
					f.Add(strings.NewReplacer("«", "", "»", "", `\n`, "\n").Replace(l[2:]))
				}
			}
		}
	}
}

// FuzzSinglePass: the pass and the former drivers agree on any input.
func FuzzSinglePass(f *testing.F) {
	addCorpusSeeds(f)
	ds, sel := allDetectors(f), Select(nil, 0)
	f.Fuzz(func(t *testing.T, s string) {
		singlePassSame(t, ds, sel, s)
	})
}

// TestDetectScratchReuse: a Set reuses one scratch (view text,
// spans, hits) from call to call. Detections of strings scanned one after
// the other, kept across the calls, equal those of a fresh Set per
// string: Value (cut from the view's text) survives the next call writing
// that memory, and no span or hit of one string leaks into the next.
func TestDetectScratchReuse(t *testing.T) {
	_, docs := readMixed(t)
	texts := []string{
		"mail alice\u200b.smith@example.com or ａｌｉｃｅ＠example.org now",
		"card 4111\u00a01111\u00a01111\u00a01111 and 078-05-1120",
		"plain text, nothing here",
		"ip 192.168.10.20 and bob%40example.com and &#64;x",
		"",
		"bob\\u0040example.com, then carol@example.net",
		"4111 1111 1111 1111",
		strings.Repeat("x", 300) + "dave＠example.com",
	}
	texts = append(texts, docs[:40]...)
	texts = append(texts, texts[0], texts[1]) // again, after longer views
	sel := Select(nil, 0)
	shared := allDetectors(t)
	var got [][]Detection
	for _, s := range texts {
		got = append(got, shared.Detect(s, sel))
	}
	var dst []Detection
	for i, s := range texts {
		want := allDetectors(t).Detect(s, sel)
		if fmt.Sprint(got[i]) != fmt.Sprint(want) {
			t.Fatalf("string %d %q: with a reused scratch %+v, fresh %+v", i, s, got[i], want)
		}
		// DetectAppend behind earlier detections leaves them as they were.
		k := len(dst)
		dst = shared.DetectAppend(dst, s, sel)
		if fmt.Sprint(dst[k:]) != fmt.Sprint(want) {
			t.Fatalf("string %d %q: appended %+v, want %+v", i, s, dst[k:], want)
		}
	}
	// Views longer than scratchKeep are not kept; smaller ones are.
	long := strings.Repeat("a", scratchKeep) + "\u200b alice@example.com"
	if ds := shared.Detect(long, sel); len(ds) != 1 || ds[0].Label != "EMAIL" {
		t.Fatalf("long string: %+v", ds)
	}
	sc := shared.plainScratch
	if !singleThreaded {
		sc = shared.scratch.Load()
	}
	if sc == nil || sc.text != nil {
		t.Fatalf("scratch after a long view: %v", sc)
	}
}

// TestDetectConcurrent: goroutines sharing a Set each get a
// scratch of their own (the kept one, or a new one while it is taken):
// under -race, no two write the same memory, and each finds what a fresh
// set finds.
func TestDetectConcurrent(t *testing.T) {
	texts := []string{
		"mail alice\u200b.smith@example.com or ａｌｉｃｅ＠example.org now",
		"card 4111\u00a01111\u00a01111\u00a01111 and 078-05-1120",
		"ip 192.168.10.20 and bob%40example.com",
		"plain text, nothing here",
	}
	sel := Select(nil, 0)
	want := make([]string, len(texts))
	for i, s := range texts {
		want[i] = fmt.Sprint(allDetectors(t).Detect(s, sel))
	}
	shared := allDetectors(t)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 200 {
				i := (g + k) % len(texts)
				if got := fmt.Sprint(shared.Detect(texts[i], sel)); got != want[i] {
					errs <- fmt.Sprintf("%q: %s, want %s", texts[i], got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestLabelSepWorth: a ':' or '=' the pass does not record for
// scanRecordedLabels ends no label (labelEnd, with and without the
// policy's keys).
func TestLabelSepWorth(t *testing.T) {
	texts := []string{"Name: Ada", "No.: C01", `"name": "x"`, "**Name**: Ada", "x=1", "10:22:33", "é: x", "aé: x", ":", "a:", "ab:"}
	whole, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "mixed.txt"))
	if err != nil {
		t.Fatal(err)
	}
	texts = append(texts, string(whole))
	r := rand.New(rand.NewPCG(5, 6))
	const alphabet = "ab.Z9 :=\"'*é\n"
	for range 2000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		for i := 0; i < len(s); i++ {
			if (s[i] == ':' || s[i] == '=') && !labelSepWorth(s, i) && (labelEnd(s, i, false) >= 0 || labelEnd(s, i, true) >= 0) {
				t.Fatalf("labelSepWorth(%q, %d) is false before a label", s, i)
			}
		}
	}
}
