package detect

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/cloudg/mcp-privacy/policy"
)

// Set is the detectors a policy runs: the built-ins of manual 12 not
// switched off by disabled_detectors, in table order, its custom
// detectors (manual 12.5), and its detection block (manual 12.9.6): the
// dictionaries and allow lists of the policy and of each rule, and what
// it adds to the built-ins (Extra).
type Set struct {
	builtins uint64 // bit i: policy.BuiltinDetectors[i] runs
	custom   []*customDetector
	// meta is every detector a hit can name: the built-ins by index, then
	// the custom detectors, then the dictionaries (the policy's, then each
	// rule's). rank is the position in manual 12's table (then the
	// policy's order: custom detectors, then dictionaries), which breaks
	// overlap ties; rank maps each name to it (for resolveOverlaps).
	meta []detectorMeta
	rank map[string]int
	// main is the policy's detection block, byRule each rule's (by the
	// rule's block, as policy.PipelineEntry.Detection names them).
	main   corrections
	byRule map[*policy.Detection]*corrections
	// dicts: some dictionary runs (the policy's or a rule's); digitTerms:
	// some term has a digit (a JSON number may hold it).
	dicts, digitTerms bool
	// extra is what the policy adds to the families (nil: nothing):
	// extra keys (KeyOf, scanLabelled) and context words.
	extra *Extra
	// regions are the numbering plans whose national forms count as
	// phones (manual 12.9.2; 0: the default set).
	regions regionSet
	// scratch is the memory of the last Detect call, for the next
	// (plainScratch in the VM: see takeScratch).
	scratch      atomic.Pointer[detectScratch]
	plainScratch *detectScratch
}

type detectorMeta struct {
	name, label string
	sensitivity policy.Sensitivity
	rank        int
	group       string // dictionaries: pii or secrets
}

// corrections is a compiled detection block: its allow entries, and its
// dictionaries in one matcher whose dictionary k is Set.meta[dictMeta+k].
type corrections struct {
	allow    allowList
	dict     *dictMatcher
	dictMeta int
}

// ruleSelection is what the matched rules of a call add to a selection
// (Set.WithRules): the allow entries that apply (the policy's, then the
// rules'), and the rules' dictionaries.
type ruleSelection struct {
	allow allowList
	dicts []*corrections
}

// NewSet builds the detector set of a policy.
func NewSet(p *policy.Policy) (*Set, error) {
	off := map[string]bool{}
	for _, n := range p.DisabledDetectors {
		off[n] = true
	}
	rank := map[string]int{}
	ds := &Set{rank: rank}
	for i := range policy.BuiltinDetectors {
		b := &policy.BuiltinDetectors[i]
		rank[b.Name] = i
		if !off[b.Name] {
			ds.builtins |= 1 << i
		}
	}
	for i := range p.Detectors {
		c := &p.Detectors[i]
		rank[c.Name] = len(policy.BuiltinDetectors) + i
		if off[c.Name] {
			continue
		}
		cd, err := newCustomDetector(c)
		if err != nil {
			return nil, err
		}
		ds.custom = append(ds.custom, cd)
	}
	for i := range policy.BuiltinDetectors {
		b := &policy.BuiltinDetectors[i]
		ds.meta = append(ds.meta, detectorMeta{b.Name, b.Label, b.Sensitivity, rank[b.Name], b.Group})
	}
	for _, c := range ds.custom {
		ds.meta = append(ds.meta, detectorMeta{c.cfg.Name, c.cfg.Label, c.cfg.Sensitivity, rank[c.cfg.Name], ""})
	}
	if err := ds.compile(&ds.main, p.Detection, off); err != nil {
		return nil, err
	}
	if d := p.Detection; d != nil {
		ds.extra = &Extra{Keys: d.Keys, Context: d.Context, PhoneRegions: d.PhoneRegions}
		var err error
		if ds.regions, err = phoneRegionSet(d.PhoneRegions); err != nil {
			return nil, fmt.Errorf("policy.detection.phone_regions: %w", err)
		}
	}
	for _, r := range p.Rules {
		if r.Detection == nil {
			continue
		}
		if ds.byRule == nil {
			ds.byRule = map[*policy.Detection]*corrections{}
		}
		c := new(corrections)
		if err := ds.compile(c, r.Detection, off); err != nil {
			return nil, err
		}
		ds.byRule[r.Detection] = c
	}
	return ds, nil
}

// compile compiles detection block d (nil: none) into c: its allow
// entries, and its dictionaries not switched off, whose detectors follow
// in ds.meta.
func (ds *Set) compile(c *corrections, d *policy.Detection, off map[string]bool) error {
	if d == nil {
		return nil
	}
	for i := range d.Allow {
		e, err := newAllowEntry(&d.Allow[i])
		if err != nil {
			return fmt.Errorf("%s: %w", d.Allow[i].Path, err)
		}
		c.allow = append(c.allow, e)
	}
	var terms [][]string
	c.dictMeta = len(ds.meta)
	for i := range d.Dictionaries {
		dc := &d.Dictionaries[i]
		if off[dc.Name] {
			continue
		}
		ds.rank[dc.Name] = len(ds.rank)
		ds.meta = append(ds.meta, detectorMeta{dc.Name, dc.Label, dc.Sensitivity, ds.rank[dc.Name], dc.Group})
		terms = append(terms, dc.Terms)
	}
	if len(terms) > 0 {
		c.dict = newDictMatcher(terms)
		ds.dicts = true
		ds.digitTerms = ds.digitTerms || c.dict.digits
	}
	return nil
}

// WithRules is sel for a call whose matched rules have the detection
// blocks dets (policy.PipelineEntry.Detection): their allow entries and
// dictionaries apply too. Without any, sel itself.
func (ds *Set) WithRules(sel Selection, dets []*policy.Detection) Selection {
	var rs *ruleSelection
	for _, d := range dets {
		c := ds.byRule[d]
		if c == nil {
			continue
		}
		if rs == nil {
			rs = &ruleSelection{allow: slices.Clone(ds.main.allow)}
		}
		rs.allow = append(rs.allow, c.allow...)
		if c.dict != nil {
			rs.dicts = append(rs.dicts, c)
		}
	}
	sel.rules = rs
	return sel
}

// DictionaryTableBytes is the size of the tables of the policy's
// dictionaries (for benchmarks and describe).
func (ds *Set) DictionaryTableBytes() int {
	n := 0
	if ds.main.dict != nil {
		n += ds.main.dict.bytes()
	}
	for _, c := range ds.byRule {
		if c.dict != nil {
			n += c.dict.bytes()
		}
	}
	return n
}

// Selection is which detectors a transform uses: its `detectors` option
// (names, @pii, @secrets; empty = all) and `min_sensitivity`.
type Selection struct {
	names          map[string]bool
	groups         map[string]bool
	all            bool
	minSensitivity policy.Sensitivity
	builtins       uint64     // the built-ins it selects, bit i for policy.BuiltinDetectors[i]
	tab            *trigTable // the triggers of those the pass runs
	// famTab is tab with the triggers the pass records for the family
	// scans it selects (trigRuns, trigLabels); tab itself when none.
	famTab *trigTable
	// rules is what the call's matched rules add (Set.WithRules); nil:
	// nothing.
	rules *ruleSelection
}

// Select builds a selection from a transform's options.
func Select(names []string, minSensitivity policy.Sensitivity) Selection {
	s := Selection{minSensitivity: minSensitivity, all: len(names) == 0, names: map[string]bool{}, groups: map[string]bool{}}
	for _, n := range names {
		if g, ok := strings.CutPrefix(n, "@"); ok {
			s.groups[g] = true
		} else {
			s.names[n] = true
		}
	}
	for i := range policy.BuiltinDetectors {
		b := &policy.BuiltinDetectors[i]
		if s.wants(b.Name, b.Group, b.Sensitivity) {
			s.builtins |= 1 << i
		}
	}
	s.tab = allTable
	pass := uint32(s.builtins) & allPass
	if pass != allPass {
		s.tab = newTrigTable(pass)
	}
	s.famTab = s.tab
	if fam := s.builtins & familyMask; fam != 0 {
		mask := pass
		if fam&digitFamilies != 0 {
			mask |= trigRuns
		}
		if fam&labelFamily != 0 {
			mask |= trigLabels
		}
		s.famTab = newTrigTable(mask)
	}
	return s
}

func (s Selection) wants(name, group string, sens policy.Sensitivity) bool {
	if sens < s.minSensitivity {
		return false
	}
	return s.all || s.names[name] || (group != "" && s.groups[group])
}

// Detect finds what the selected detectors see in s, overlaps resolved
// (manual 12), in order.
func (ds *Set) Detect(s string, sel Selection) []Detection {
	return ds.DetectAppend(nil, s, sel)
}

// wordish marks the bytes of short strings no built-in detector finds
// anything in: letters and _ $ . / #. Every built-in needs a digit, '@',
// ':', '=', '-', a space, an escape or a non-ASCII character, or at least
// 20 characters (an AWS key, a token of letters).
var wordish = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "_$./#" {
		t[c] = true
	}
	return t
}()

// Union is a selection of at least the detectors of sels: their names
// and groups together, the lowest minimum sensitivity; every detector as
// soon as one of them takes them all. No selection: nothing selected.
func Union(sels []*Selection) Selection {
	if len(sels) == 0 {
		return Selection{}
	}
	var names []string
	min, all := policy.Restricted+1, false
	var rules *ruleSelection
	for _, s := range sels {
		if rules == nil {
			rules = s.rules // the steps of a pipeline share their rules'
		}
		all = all || s.all
		min = minSensitivity(min, s.minSensitivity)
		for n := range s.names {
			names = append(names, n)
		}
		for g := range s.groups {
			names = append(names, "@"+g)
		}
	}
	if all {
		names = nil
	}
	u := Select(names, min)
	u.rules = rules
	return u
}

func minSensitivity(a, b policy.Sensitivity) policy.Sensitivity {
	if b < a {
		return b
	}
	return a
}

// ResolveOverlaps resolves the overlaps among detections of several
// selections (manual 12): the first, the longest, the most sensitive, else
// the detector first in manual 12's table.
func (ds *Set) ResolveOverlaps(dets []Detection) []Detection {
	return resolveOverlaps(dets, func(name string) int { return ds.rank[name] })
}

// HasCustom reports whether the policy has detectors that may find
// something in any short text: custom detectors, or dictionaries with a
// term holding a digit.
func (ds *Set) HasCustom() bool { return len(ds.custom) > 0 || ds.digitTerms }

// ReadsNumbers reports whether a detector of ds that sel selects may find
// something in how a JSON number reads (digits, with a '-', a '.', an
// exponent): a custom detector, credit_card, or a national identifier of
// ids.go (a BSN, a CPF, an Aadhaar number… is a bare run of digits, and
// the words that may make it one lie outside the number), or a detector
// a member's name may report a number by (keys.go: "bsn": 123456782):
// the built-ins that find a bare run of digits (phone numbers need a '+'
// before the digits or groups, the others letters or separators no
// number has).
func (ds *Set) ReadsNumbers(sel Selection) bool {
	for _, c := range ds.custom {
		if sel.wants(c.cfg.Name, "", c.cfg.Sensitivity) {
			return true
		}
	}
	if ds.digitTerms {
		return true
	}
	return ds.builtins&sel.builtins&(1<<detCard|idDetectors|labelFamily|1<<detSSN) != 0
}

// SurelyClean reports whether no detector of ds can find anything in s:
// a short word such as most member names and schema keywords ("type",
// "inputSchema", "string"), looked at without starting a pass. Never with
// custom detectors or dictionaries, whose patterns and terms may match
// anything.
func (ds *Set) SurelyClean(s string) bool {
	if len(s) >= 20 || len(ds.custom) > 0 || ds.dicts {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !wordish[s[i]] {
			return false
		}
	}
	return true
}

// DetectAppend is Detect appending to dst, so that a caller scanning many
// strings can reuse one slice: ds.DetectAppend(found[:0], s, sel). It
// allocates only when dst lacks room for what it finds (the view, the
// spans and the hits live in the Set's scratch, reused from call
// to call); for a string without findings it allocates nothing.
//
// The detectors read the reader view of s (readerview.go): spans are
// found in what a reader sees and reported in the bytes of s.
func (ds *Set) DetectAppend(dst []Detection, s string, sel Selection) []Detection {
	return ds.detectAppend(dst, s, sel, nil)
}

// Allowed is a detection an allow entry took away, and the entry's path
// (detection.allow[0], rules[1].detection.allow[0]).
type Allowed struct {
	Detection
	By string
}

// DetectExplained is Detect that also returns what allow entries took
// away (for preview and explain); overlaps among those are not resolved.
func (ds *Set) DetectExplained(s string, sel Selection) (found []Detection, allowed []Allowed) {
	found = ds.detectAppend(nil, s, sel, &allowed)
	return found, allowed
}

func (ds *Set) detectAppend(dst []Detection, s string, sel Selection, ex *[]Allowed) []Detection {
	sc := ds.takeScratch()
	v := buildView(s, sc.text, sc.segs)
	keepLarger(&sc.text, v.buf)
	keepLarger(&sc.segs, v.segs)
	if len(v.segs) == 0 {
		dst = ds.detectText(dst, s, sel, sc, ex) // nothing a reader reads differently
	} else {
		k := len(dst)
		dst = ds.detectText(dst, v.text, sel, sc, ex)
		dst = append(dst[:k], v.mapBack(s, dst[k:])...)
		if ex != nil && len(*ex) > 0 {
			a := *ex
			dets := make([]Detection, len(a))
			for i := range a {
				dets[i] = a[i].Detection
			}
			for i, d := range v.mapBack(s, dets) {
				a[i].Detection = d
			}
		}
	}
	ds.putScratch(sc)
	return dst
}

// scratch is the memory one Detect call works in: the reader view's text
// and segments, the pass's spans and the hits. A Set keeps one
// between calls, so that scanning string after string allocates only the
// detections it returns (in the VM an allocation and its collection cost
// far more than reusing a buffer). Nothing in it outlives the call that
// uses it: Detection.Value is cloned out of the view's text.
type detectScratch struct {
	text   []byte
	segs   []viewSeg
	spans  []Span
	dets   []uint16
	runs   []int32 // the pass's records for the family scans
	labels []int32
	tables []int32
	hits   []hit
	order  []hit     // sortHits' second buffer
	keys   *keyCache // the labels' classes, kept from call to call
	dict   []dictHit
	fold   []byte // an allowed value folded
}

// scratchKeep is the largest view text a Set keeps for the next
// call; a larger one is left to the collector.
const scratchKeep = 1 << 20

// keepLarger makes used the scratch's buffer *buf if it has more room.
// Storing a slice that did not grow would only cost a write barrier (a
// call in the VM while the collector marks).
func keepLarger[T any](buf *[]T, used []T) {
	if cap(used) > cap(*buf) {
		*buf = used
	}
}

// takeScratch takes the Set's scratch, or makes one if another
// goroutine holds it (never in the VM, which runs one).
//
// In the VM the scratch is a plain field: the module runs one thread,
// goroutines change only where one blocks, and an atomic swap or store of
// a pointer there is two runtime calls (its write barrier and the
// exchange) per Detect, which add up over the many short strings of a
// message. Elsewhere it is swapped atomically.
func (ds *Set) takeScratch() *detectScratch {
	var sc *detectScratch
	if singleThreaded {
		sc, ds.plainScratch = ds.plainScratch, nil
	} else {
		sc = ds.scratch.Swap(nil)
	}
	if sc == nil {
		sc = new(detectScratch)
	}
	return sc
}

func (ds *Set) putScratch(sc *detectScratch) {
	if cap(sc.text) > scratchKeep {
		sc.text = nil
	}
	if singleThreaded {
		ds.plainScratch = sc
	} else {
		ds.scratch.Store(sc)
	}
}

// singleThreaded is true in the wasm module (a constant: the other branch
// is compiled out).
const singleThreaded = runtime.GOARCH == "wasm"

// detectText is DetectAppend on text as it is; with ex, the detections
// allow entries take away are appended to *ex.
func (ds *Set) detectText(dst []Detection, s string, sel Selection, sc *detectScratch, ex *[]Allowed) []Detection {
	on := ds.builtins & sel.builtins
	p := pass{s: s, on: uint32(on) & allPass, fam: on & familyMask, extra: ds.extra, regions: ds.regions, tab: sel.tab, multi: true, spans: sc.spans[:0], dets: sc.dets[:0]}
	if p.fam != 0 && len(s) <= math.MaxInt32 {
		// The pass walks every byte anyway: it records where the family
		// scans have something to look at (sel.famTab's triggers).
		p.recRuns, p.recLabels = p.fam&digitFamilies != 0, p.fam&labelFamily != 0
		p.tab = sel.famTab
		// Room for what prose and logs hold (a run of digits per 17
		// bytes, a label candidate per 37, in the mixed corpus): one
		// allocation where growing by appends would make a dozen.
		if cap(sc.runs) < len(s)/16 {
			sc.runs = make([]int32, 0, len(s)/8)
		}
		if cap(sc.labels) < len(s)/32 {
			sc.labels = make([]int32, 0, len(s)/16)
		}
		p.runs, p.labels, p.tables = sc.runs[:0], sc.labels[:0], sc.tables[:0]
		if p.recLabels {
			if sc.keys == nil {
				sc.keys = new(keyCache)
			}
			p.keys = sc.keys
		}
	}
	if p.on != 0 || p.recRuns || p.recLabels {
		p.run()
	}
	if p.fam != 0 {
		p.runFamilies()
	}
	keepLarger(&sc.spans, p.spans)
	keepLarger(&sc.dets, p.dets)
	keepLarger(&sc.runs, p.runs)
	keepLarger(&sc.labels, p.labels)
	keepLarger(&sc.tables, p.tables)
	if len(p.spans) == 0 && len(ds.custom) == 0 && !ds.dicts {
		return dst
	}
	hits := sc.hits[:0]
	for k, sp := range p.spans {
		if spanOK(s, sp) {
			hits = append(hits, hit{sp.Start, sp.End, uint16(p.dets[k] & detMask), Basis(p.dets[k] >> basisShift)})
		}
	}
	if len(ds.custom) > 0 {
		var found []Detection
		for k, c := range ds.custom {
			if !sel.wants(c.cfg.Name, "", c.cfg.Sensitivity) {
				continue
			}
			found = c.detect(s, found[:0])
			for _, d := range found {
				hits = append(hits, hit{d.Start, d.End, uint16(numBuiltins + k), BasisPattern})
			}
		}
	}
	if ds.dicts {
		hits = ds.dictHits(s, sel, &ds.main, hits, sc)
		if sel.rules != nil {
			for _, c := range sel.rules.dicts {
				hits = ds.dictHits(s, sel, c, hits, sc)
			}
		}
	}
	allow := ds.main.allow
	if sel.rules != nil {
		allow = sel.rules.allow
	}
	if len(allow) > 0 && len(hits) > 0 {
		hits = ds.dropAllowed(s, allow, hits, sc, ex)
	}
	keepLarger(&sc.hits, hits)
	if len(hits) == 0 {
		return dst
	}
	if len(hits) > 1 {
		hits = ds.resolve(s, hits, sc)
	}
	dst = slices.Grow(dst, len(hits))
	for _, h := range hits {
		m := &ds.meta[h.det]
		dst = append(dst, Detection{Detector: m.name, Label: m.label, Sensitivity: m.sensitivity, Start: h.start, End: h.end, Basis: h.basis})
	}
	return dst
}

// hit is a finding before overlaps are resolved: a span and the index of
// its detector in Set.meta.
type hit struct {
	start, end int
	det        uint16
	basis      Basis
}

// resolve keeps, among overlapping hits, the one that starts first, then
// the longer, then the more sensitive, then the earlier in manual 12's
// table (as resolveOverlaps does with Detections); a family's hit that
// loses keeps what lies past the winner (manual 12.3).
func (ds *Set) resolve(s string, hs []hit, sc *detectScratch) []hit {
	for round := 0; ; round++ {
		sc.order = ds.sortHits(hs, sc.order)
		out := hs[:0]
		var rest []hit
		end := -1
		for _, h := range hs {
			if h.start >= end {
				out = append(out, h)
				end = h.end
				continue
			}
			// A family's span (an address, a name) that a span starting
			// before it overlaps keeps what lies past that span: "4 marca
			// 1985, ul. Marszałkowska 1, 00-624 Warszawa" is a birth date
			// and an address, and the address's street must not stay in
			// clear because its scan read the year as a house number.
			if h.end > end && h.det >= numPass && h.det < numBuiltins && round < 3 {
				a := end
				for a < h.end && (s[a] == ' ' || s[a] == ',' || s[a] == ';' || s[a] == '\t' || s[a] == '\n') {
					a++
				}
				if h.end-a >= 3 {
					rest = append(rest, hit{a, h.end, h.det, h.basis})
				}
			}
		}
		if len(rest) == 0 {
			return out
		}
		hs = append(out, rest...)
	}
}

// hitBefore is resolve's order: the hit that starts first, then the
// longer, the more sensitive, the earlier in manual 12's table.
func (ds *Set) hitBefore(a, b *hit) bool {
	switch {
	case a.start != b.start:
		return a.start < b.start
	case a.end-a.start != b.end-b.start:
		return a.end-a.start > b.end-b.start
	}
	ma, mb := &ds.meta[a.det], &ds.meta[b.det]
	if ma.sensitivity != mb.sensitivity {
		return ma.sensitivity > mb.sensitivity
	}
	return ma.rank < mb.rank
}

// sortHits puts hs in hitBefore's order, stably, with buf as the second
// buffer of a merge sort, which it returns. The hits come as a few runs
// already in order (the pass's, then each family's), which a natural
// merge joins in a few passes, each comparison a plain call where a
// general sort would make more comparisons, each through a closure.
func (ds *Set) sortHits(hs, buf []hit) []hit {
	n := len(hs)
	if n < 2 {
		return buf
	}
	i := 1
	for i < n && !ds.hitBefore(&hs[i], &hs[i-1]) {
		i++
	}
	if i == n {
		return buf
	}
	buf = slices.Grow(buf[:0], n)[:n]
	src, dst := hs, buf
	for {
		runs := 0
		for lo := 0; lo < n; runs++ {
			mid := lo + 1
			for mid < n && !ds.hitBefore(&src[mid], &src[mid-1]) {
				mid++
			}
			hi := mid
			if mid < n {
				for hi++; hi < n && !ds.hitBefore(&src[hi], &src[hi-1]); hi++ {
				}
			}
			// Merge src[lo:mid] and src[mid:hi] into dst[lo:hi], the left
			// run first on ties.
			a, b, k := lo, mid, lo
			for a < mid && b < hi {
				if ds.hitBefore(&src[b], &src[a]) {
					dst[k] = src[b]
					b++
				} else {
					dst[k] = src[a]
					a++
				}
				k++
			}
			k += copy(dst[k:], src[a:mid])
			copy(dst[k:], src[b:hi])
			lo = hi
		}
		src, dst = dst, src
		if runs == 1 {
			break
		}
	}
	if &src[0] != &hs[0] {
		copy(hs, src)
	}
	return buf
}

// dictHits appends the hits of c's dictionaries that sel selects in s.
func (ds *Set) dictHits(s string, sel Selection, c *corrections, hits []hit, sc *detectScratch) []hit {
	if c.dict == nil {
		return hits
	}
	found := c.dict.scan(s, sc.dict[:0], false)
	keepLarger(&sc.dict, found)
	for _, f := range found {
		k := c.dictMeta + int(f.dict)
		if m := &ds.meta[k]; sel.wants(m.name, m.group, m.sensitivity) {
			hits = append(hits, hit{int(f.start), int(f.end), uint16(k), BasisDictionary})
		}
	}
	return hits
}

// dropAllowed removes the hits an allow entry allows (before overlaps are
// resolved: an allowed span hides nothing), recording them in *ex.
func (ds *Set) dropAllowed(s string, allow allowList, hits []hit, sc *detectScratch, ex *[]Allowed) []hit {
	out := hits[:0]
	for _, h := range hits {
		m := &ds.meta[h.det]
		var e *allowEntry
		e, sc.fold = allow.allowedBy(m.name, s[h.start:h.end], sc.fold)
		if e == nil {
			out = append(out, h)
			continue
		}
		if ex != nil {
			*ex = append(*ex, Allowed{Detection{Detector: m.name, Label: m.label, Sensitivity: m.sensitivity, Start: h.start, End: h.end, Basis: h.basis}, e.path})
		}
	}
	return out
}

// dictsWanted reports whether sel selects some dictionary of ds.
func (ds *Set) dictsWanted(sel *Selection) bool {
	if sel.all || sel.rules != nil {
		return true
	}
	for i := numBuiltins + len(ds.custom); i < len(ds.meta); i++ {
		if m := &ds.meta[i]; sel.wants(m.name, m.group, m.sensitivity) {
			return true
		}
	}
	return false
}

// dictsClean reports whether no dictionary sel may use has a term in s,
// as Detect reads s: its reader view (readerview.go), where a combining
// mark or an escape may join or split words ("͙42" reads "42").
func (ds *Set) dictsClean(s string, sel *Selection) bool {
	if plainRun(s) == len(s) {
		return ds.dictsCleanText(s, sel)
	}
	sc := ds.takeScratch()
	v := buildView(s, sc.text, sc.segs)
	keepLarger(&sc.text, v.buf)
	keepLarger(&sc.segs, v.segs)
	clean := ds.dictsCleanText(v.text, sel)
	ds.putScratch(sc)
	return clean
}

// dictsCleanText is dictsClean of text as it is.
func (ds *Set) dictsCleanText(s string, sel *Selection) bool {
	var one [1]dictHit
	if c := ds.main.dict; c != nil && len(c.scan(s, one[:0], true)) > 0 {
		return false
	}
	if sel.rules != nil {
		for _, c := range sel.rules.dicts {
			if len(c.dict.scan(s, one[:0], true)) > 0 {
				return false
			}
		}
	}
	return true
}
