package detect

import (
	"hash/crc32"
	"strings"
)

// The vendor token detectors (manual 12): AWS access keys, GitHub,
// Slack, Stripe and Google tokens; steps of the pass (detect.go);
// what they share is in secrets.go.

// ---------------------------------------------------------------- AWS

// stepAWSKey, at an 'A' with 20 bytes left: AKIA/ASIA/AIDA/AROA/AIPA/ANPA/ANVA/AGPA/ABIA/ACCA +
// 16 of [A-Z0-9], \b on both sides. AWS's documentation keys (…EXAMPLE)
// and runs such as AKIAXXXXXXXXXXXXXXXX are placeholders.
func (p *pass) stepAWSKey(i int) {
	if secAWSKeyAt(p.s, i) {
		p.secEmit(detAWSKey, i, i+20)
		p.awsNext = i + 20
		return
	}
	p.awsNext = i + 1
}

func secAWSKeyAt(s string, i int) bool {
	if s[i+3] != 'A' {
		return false
	}
	switch s[i+1 : i+4] {
	case "KIA", "SIA", "IDA", "ROA", "IPA", "NPA", "NVA", "GPA", "BIA", "CCA":
	default:
		return false
	}
	if i > 0 && secIs(s[i-1], secWord) || i+20 < len(s) && secIs(s[i+20], secWord) {
		return false
	}
	for k := i + 4; k < i+20; k++ {
		if !secIs(s[k], secUpper|secDigit) {
			return false
		}
	}
	return !strings.HasSuffix(s[i:i+20], "EXAMPLE") && !secLongRun(s[i+4:i+20], 6)
}

// ---------------------------------------------------------------- GitHub

// stepGitHub, at the '_' of gh?_ or github_pat_: ghp_/gho_/ghu_/ghs_/ghr_ + 36 base62 whose last 6 are
// the base62 CRC32 of the 30 before (GitHub's 2021 format; verified on
// public examples), github_pat_ + 82 of [A-Za-z0-9_], and the stateless
// ghs_ installation tokens of 2026 (ghs_ + more than 36 of [A-Za-z0-9._-]).
func (p *pass) stepGitHub(u int) {
	// A candidate starts before its trigger, so it must not start inside
	// the previous span.
	s := p.s
	p.githubNext = u + 1
	st := -2
	if s[u-2] == 'h' && s[u-3] == 'g' {
		st = u - 3
	} else if u >= 6 && s[u-1] == 'b' && s[u-6:u] == "github" {
		st = u - 6
	}
	if st >= p.githubLast && (st == 0 || !secIs(s[st-1], secWord)) {
		if end := secGitHubAt(s, st); end > 0 {
			p.secEmit(detGitHub, st, end)
			p.githubNext, p.githubLast = end, end
		}
	}
}

func secGitHubAt(s string, i int) int {
	if len(s)-i < 40 {
		return -1
	}
	if s[i+1] == 'h' && s[i+3] == '_' {
		switch s[i+2] {
		case 'p', 'o', 'u', 'r', 's':
		default:
			return -1
		}
		b := i + 4
		e := secRun(s, b, secAlnum)
		if s[i+2] == 's' {
			// The stateless installation tokens: variable length, with . _ -.
			x := secRun(s, e, secB64URL|secDot)
			for x > e && s[x-1] == '.' { // a sentence's full stop
				x--
			}
			if x > e || e-b > 36 {
				if x-b > 36 {
					return x
				}
				return -1
			}
		}
		if e-b != 36 || e < len(s) && s[e] == '_' || !secGitHubCRC(s[b:e]) {
			return -1
		}
		return e
	}
	if !strings.HasPrefix(s[i:], "github_pat_") {
		return -1
	}
	b := i + len("github_pat_")
	e := secRun(s, b, secWord)
	if e-b != 82 || secLongRun(s[b:e], 8) {
		return -1
	}
	return e
}

// secGitHubCRC checks the classic token's tail: the 6 last characters are
// CRC32-IEEE of the 30 first, in base62 (0-9A-Za-z), zero-padded.
func secGitHubCRC(t string) bool {
	tab := crc32.IEEETable
	crc := ^uint32(0)
	for k := 0; k < 30; k++ {
		crc = tab[byte(crc)^t[k]] ^ crc>>8
	}
	crc = ^crc
	var v uint64
	for k := 30; k < 36; k++ {
		c := t[k]
		var d byte
		switch {
		case c <= '9':
			d = c - '0'
		case c <= 'Z':
			d = c - 'A' + 10
		default:
			d = c - 'a' + 36
		}
		v = v*62 + uint64(d)
	}
	return v == uint64(crc)
}

// ---------------------------------------------------------------- Slack

// stepSlack, at an 'x' with 25 bytes left: xox[abeprs]- (also wrapped in the rotating xoxe. form)
// and xapp- followed by dash-separated alphanumeric segments, the first
// all digits, no empty segment, at least 20 characters after the prefix
// (xapp-: at least three segments).
func (p *pass) stepSlack(i int) {
	s := p.s
	if (s[i+1] == 'o' || s[i+1] == 'a') && (i == 0 || !secIs(s[i-1], secAlnum)) {
		end := secSlackAt(s, i)
		if end > 0 {
			p.secEmit(detSlack, i, end)
		} else {
			// Later candidates inside this run follow an alphanumeric
			// or a dash: skip it (linear time on xoxb-xoxb-…).
			end = secRun(s, i+1, secAlnum|secDash)
		}
		p.slackNext = end
		return
	}
	p.slackNext = i + 1
}

func secSlackAt(s string, i int) int {
	p := i
	if strings.HasPrefix(s[p:], "xoxe.") {
		p += 5
	}
	minSeg := 2
	switch {
	case len(s)-p > 5 && s[p+1] == 'o' && s[p] == 'x' && s[p+2] == 'x' && s[p+4] == '-' && strings.IndexByte("abeprs", s[p+3]) >= 0:
	case p == i && strings.HasPrefix(s[p:], "xapp-"):
		minSeg = 3
	default:
		return -1
	}
	b := p + 5
	e := secRun(s, b, secAlnum|secDash)
	for e > b && s[e-1] == '-' {
		e--
	}
	if e-b < 20 || e < len(s) && s[e] == '_' {
		return -1
	}
	segs, first := 1, true
	for k := b; k < e; k++ {
		c := s[k]
		if c == '-' {
			if s[k-1] == '-' || k == b {
				return -1
			}
			segs++
			first = false
		} else if first && !secIs(c, secDigit) {
			return -1
		}
	}
	if segs < minSeg || secLongRun(s[strings.LastIndexByte(s[:e], '-')+1:e], 10) {
		return -1
	}
	return e
}

// ---------------------------------------------------------------- Stripe

// stepStripe, at the first '_' of sk_live_ and the like: sk_live_/sk_test_/rk_live_/rk_test_ + at least 24
// alphanumerics, \b on both sides. Publishable keys (pk_) are public.
func (p *pass) stepStripe(u int) {
	p.stripeNext = u + 1
	if p.s[u-1] == 'k' && u-2 >= p.stripeLast {
		if end := secStripeAt(p.s, u-2); end > 0 {
			p.secEmit(detStripe, u-2, end)
			p.stripeNext, p.stripeLast = end, end
		}
	}
}

func secStripeAt(s string, i int) int {
	if s[i] != 's' && s[i] != 'r' || i > 0 && secIs(s[i-1], secWord) || len(s)-i < 32 {
		return -1
	}
	if m := s[i+3 : i+8]; m != "live_" && m != "test_" {
		return -1
	}
	b := i + 8
	e := secRun(s, b, secAlnum)
	if e-b < 24 || e < len(s) && s[e] == '_' || secLongRun(s[b:e], 6) {
		return -1
	}
	return e
}

// ---------------------------------------------------------------- Google

// stepGoogle, at the rare 'z' of AIza with 37 bytes left: AIza + exactly 35 of [A-Za-z0-9_-], not inside a
// longer base64url run.
func (p *pass) stepGoogle(u int) {
	s := p.s
	i := u - 2
	if s[i] == 'A' && s[i+1] == 'I' && s[i+3] == 'a' && i >= p.googleLast && (i == 0 || !secIs(s[i-1], secB64URL)) {
		e := secRun(s, i+4, secB64URL)
		if e-i == 39 && !secLongRun(s[i+4:e], 6) {
			p.secEmit(detGoogle, i, e)
			p.googleLast = e
		}
		p.googleNext = e // any later AIza in this run is inside it
		return
	}
	p.googleNext = u + 1
}
