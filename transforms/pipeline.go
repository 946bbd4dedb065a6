package transforms

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/streq"
	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms/detect"
	"github.com/cloudg/mcp-privacy/transforms/fieldpath"
	"github.com/cloudg/mcp-privacy/transforms/outputschema"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

// Engine runs a policy's transforms: its detectors, the vault and the
// hash key. It is immutable and shared by every stream of a VM.
type Engine struct {
	policy    *policy.Policy
	detectors *detect.Set
	store     vault.PseudonymStore
	clocked   vault.ClockedStore // store, if it is one
	hasher    *Hasher
	// pseudonyms computes pseudonyms when there is no store (tools that
	// only preview): nothing is stored, nothing resolves.
	pseudonyms *vault.Pseudonymizer
	// scratches holds *scratch: what a message's transforms reuse; in the
	// VM, plainScratch (see takeScratch).
	scratches    sync.Pool
	plainScratch *scratch
	// noMemo turns the memo of scans off, noMirror the reading of JSON
	// texts as the place of data they repeat (mirrorText): tests compare
	// with them off.
	noMemo, noMirror bool
}

// scratch is what the transforms of one message reuse from string to
// string: the detections of a scan, the bytes of a rewritten string, the
// targets of a payload. An Engine keeps them in a pool: the streams of a
// VM run one at a time, but tests and the CLI run messages in parallel.
type scratch struct {
	found   []detect.Detection
	buf     []byte
	targets []target
	// memo, when on, holds what the scans of the message found, by
	// selection and string: a result whose content text is the JSON of
	// its structuredContent (as go-sdk servers write it) has every value
	// twice, and scanning is pure. Only what was found is kept; each
	// occurrence is rewritten and counted as before.
	memo memoTable
	// strs is where rewritten strings are carved from (carve).
	strs []byte
	// docs are released documents the next JSON texts are parsed into
	// (readTexts): empty, holding nothing of a message.
	docs []*jsondoc.Doc
	// now is the time of the payload for the Vault, read at its first
	// pseudonym: every mapping the payload issues or refreshes is used at
	// that time (zero: not read yet).
	now time.Time
	// shares holds the targets' shares (pairTexts).
	shares []share
	// keys is the stack of member Keys of the data objects being walked
	// (docWalk.keys), kept from walk to walk.
	keys []detect.Key
	// kcache holds the Keys of member names (docWalk.keyOf), kept from
	// message to message.
	kcache keyCache
	// counts are the message's detections per label, until they go to
	// Run.Detections (flushCounts): a few labels, looked up by
	// comparison, rather than a map assignment per detection.
	counts []labelCount
}

type labelCount struct {
	label string
	n     int
}

// maxCounts is how many labels a scratch counts before Run.count goes to
// the map directly.
const maxCounts = 32

// carve returns a string of b's bytes. Short ones are carved from a chunk
// that is only ever appended to, never written below its length (nor
// reset when the scratch goes back to the pool): the strings a message's
// rewrites make cost one allocation together, and each stays valid as
// long as it is referenced, like any string.
func (sc *scratch) carve(b []byte) string {
	if len(b) == 0 || len(b) > maxCarved {
		return string(b)
	}
	if cap(sc.strs)-len(sc.strs) < len(b) {
		sc.strs = make([]byte, 0, carveChunk)
	}
	start := len(sc.strs)
	sc.strs = append(sc.strs, b...)
	return unsafe.String(&sc.strs[start], len(b))
}

const (
	carveChunk = 2048
	maxCarved  = 256
)

// memoTable is a small open-addressed table of scans (memoSlots slots,
// at most half of them used) hashed by a string's length and its first
// and last 8 bytes: hashing costs the same for every string (a map's hash
// reads all of it, and has no assembly in wasm). A lookup compares at
// most memoProbes strings, so colliding strings cost each scan a few
// comparisons at worst, never a quadratic search.
type memoTable struct {
	on bool
	// adding: scans are memoised (not while the last place of data is
	// walked: nothing would look them up).
	adding bool
	// text: the clean scans are memoised too (longText).
	text  bool
	used  []uint16 // the slots in use, so that reset clears only those
	slots []memoEntry
	found []detect.Detection // the detections of every entry
}

type memoEntry struct {
	s        string
	sel      uint16 // the selection's memoID (0: the slot is free)
	from, to int32  // in found
}

const (
	memoSlots  = 1024
	memoProbes = 4
)

// memoHash mixes sel, the length of s and its first and last 8 bytes.
func memoHash(sel uint16, s string) uint64 {
	var a, b uint64
	if len(s) >= 8 {
		a = memoWord(s[:8])
		b = memoWord(s[len(s)-8:])
	} else {
		for i := 0; i < len(s); i++ {
			a = a<<8 | uint64(s[i])
		}
	}
	h := (a ^ uint64(len(s))<<56) * 0x9e3779b97f4a7c15
	h ^= (b ^ uint64(sel)) * 0xc2b2ae3d27d4eb4f
	return h ^ h>>29
}

// memoWord is the first 8 bytes of s, little-endian (one load).
func memoWord(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// lookup returns the memoised scan of s by sel.
func (m *memoTable) lookup(sel uint16, s string) ([]detect.Detection, bool) {
	h := memoHash(sel, s)
	for p := range memoProbes {
		e := &m.slots[(h+uint64(p))&(memoSlots-1)]
		switch {
		case e.sel == 0:
			return nil, false
		case e.sel == sel && e.s == s:
			return m.found[e.from:e.to:e.to], true
		}
	}
	return nil, false
}

// add memoises found as the scan of s by sel, if there is room near its
// slot.
func (m *memoTable) add(sel uint16, s string, found []detect.Detection) {
	if len(m.used) >= memoSlots/2 {
		return
	}
	h := memoHash(sel, s)
	for p := range memoProbes {
		e := &m.slots[(h+uint64(p))&(memoSlots-1)]
		if e.sel == 0 {
			from := len(m.found)
			m.found = append(m.found, found...)
			*e = memoEntry{s, sel, int32(from), int32(len(m.found))}
			m.used = append(m.used, uint16((h+uint64(p))&(memoSlots-1)))
			return
		}
	}
}

// reset empties the table, keeping nothing of the message.
func (m *memoTable) reset() {
	for _, i := range m.used {
		m.slots[i] = memoEntry{}
	}
	clear(m.found)
	m.on, m.adding, m.text, m.used, m.found = false, false, false, m.used[:0], m.found[:0]
}

// takeScratch gives run a scratch for the message it transforms, unless
// it has one; the caller returns it with dropScratch(run, taken).
func (e *Engine) takeScratch(run *Run) (taken *scratch) {
	if run.sc != nil {
		return nil
	}
	// In the VM, one thread runs every message to its end: the scratch is
	// a plain field, where a sync.Pool's every Get and Put is a few
	// runtime calls and atomic operations (detect.Set does the same).
	var sc *scratch
	if singleThreaded {
		sc, e.plainScratch = e.plainScratch, nil
	} else {
		sc, _ = e.scratches.Get().(*scratch)
	}
	if sc == nil {
		sc = &scratch{}
	}
	run.sc = sc
	return sc
}

// dropScratch returns a scratch takeScratch gave (nil: none), holding no
// message's values or documents (member names in kcache, copied, stay).
func (e *Engine) dropScratch(run *Run, taken *scratch) {
	if taken == nil {
		return
	}
	run.flushCounts()
	run.sc = nil
	taken.now = time.Time{}
	clear(taken.found[:cap(taken.found)])
	clear(taken.targets[:cap(taken.targets)])
	taken.shares = taken.shares[:0]
	taken.found, taken.targets = taken.found[:0], taken.targets[:0]
	taken.memo.reset()
	// One huge message does not pin its buffers in the pool.
	if cap(taken.buf) > maxScratchBuf {
		taken.buf = nil
	}
	if cap(taken.found) > maxScratchFound {
		taken.found = nil
	}
	if cap(taken.memo.found) > maxScratchFound {
		taken.memo.found = nil
	}
	if cap(taken.targets) > maxScratchFound {
		taken.targets = nil
	}
	if cap(taken.shares) > maxScratchFound {
		taken.shares = nil
	}
	if len(taken.docs) > maxScratchDocs {
		clear(taken.docs[maxScratchDocs:])
		taken.docs = taken.docs[:maxScratchDocs]
	}
	if singleThreaded {
		e.plainScratch = taken
	} else {
		e.scratches.Put(taken)
	}
}

// singleThreaded is true in the wasm module (a constant: the other branch
// is compiled out).
const singleThreaded = runtime.GOARCH == "wasm"

// anyScanMemo is the first memoID of a run's anyScan; the steps' are
// below.
const anyScanMemo = 1 << 15

// maxScratchBuf is the largest rewrite buffer a scratch keeps,
// maxScratchFound the most detections (and targets) it keeps room for,
// maxScratchDocs the most documents for JSON texts.
const (
	maxScratchBuf   = 64 << 10
	maxScratchFound = 1024
	maxScratchDocs  = 8
)

// detect is Detect into run's scratch, when it has one, and memoised when
// the scratch memoises. The result is valid until the next detect of run,
// and read only.
func (e *Engine) detect(s string, sel *detect.Selection, memoID uint16, run *Run) []detect.Detection {
	// Most strings hold no trigger of sel's detectors (prose, names,
	// "gold"), or are a short word no detector finds anything in (an enum
	// value, most member names): no pass, no memo.
	if run.key.Reports() {
		return e.detectUnclean(s, sel, memoID, run)
	}
	if sc := run.sc; sc != nil && sc.memo.text && run.key == 0 {
		// A long document of protocol text: its strings repeat, and
		// most are clean, so the clean are memoised too (longText). Not
		// under a key, whose findings are its own (a thing's name).
		if found, ok := sc.memo.lookup(memoID, s); ok {
			return found
		}
		if e.detectors.Clean(s, sel) {
			if sc.memo.adding {
				sc.memo.add(memoID, s, nil)
			}
			return nil
		}
		return e.detectUnclean(s, sel, memoID, run)
	}
	if e.detectors.Clean(s, sel) {
		return nil
	}
	return e.detectUnclean(s, sel, memoID, run)
}

// detectUnclean is detect of a string Clean has said holds a trigger.
func (e *Engine) detectUnclean(s string, sel *detect.Selection, memoID uint16, run *Run) []detect.Detection {
	if run.key != 0 {
		return e.detectKeyed(s, sel, run)
	}
	if e.detectors.SurelyClean(s) {
		return nil
	}
	sc := run.sc
	if sc == nil {
		return e.detectors.Detect(s, *sel)
	}
	if sc.memo.on {
		if found, ok := sc.memo.lookup(memoID, s); ok {
			return found
		}
	}
	found := e.detectors.DetectAppend(sc.found[:0], s, *sel)
	sc.found = found[:0]
	if sc.memo.adding {
		sc.memo.add(memoID, s, found)
	}
	return found
}

// detectKeyed is detect of the value of a member whose name says what
// it is (Run.key): not memoised, as the same string under another key
// says something else.
func (e *Engine) detectKeyed(s string, sel *detect.Selection, run *Run) []detect.Detection {
	sc := run.sc
	if sc == nil {
		return e.detectors.DetectKeyed(nil, s, run.key, *sel)
	}
	found := e.detectors.DetectKeyed(sc.found[:0], s, run.key, *sel)
	sc.found = found[:0]
	return found
}

// NewEngine builds the transform engine of a policy. key is the vault key
// (the hash transform derives its own subkey from it).
func NewEngine(p *policy.Policy, store vault.PseudonymStore, key []byte) (*Engine, error) {
	ds, err := detect.NewSet(p)
	if err != nil {
		return nil, err
	}
	e := &Engine{policy: p, detectors: ds, store: store, hasher: NewHasher(key), pseudonyms: vault.NewPseudonymizer(key)}
	e.clocked, _ = store.(vault.ClockedStore)
	return e, nil
}

// Detectors is the policy's detector set.
func (e *Engine) Detectors() *detect.Set { return e.detectors }

// Pipeline is a resolved pipeline (policy.PipelineEntry list) compiled into
// steps ready to run.
type Pipeline struct {
	steps []step
	// runs group the steps for execution: each structural step alone,
	// each run of consecutive string steps together, so a run walks a
	// document once.
	runs []stepRun
	ids  []string
	// annotates: the pipeline has an annotate step.
	annotates bool
	// onlyDepseudonymise: the pipeline is the automatic depseudonymiser
	// alone (the input pipeline of most policies).
	onlyDepseudonymise bool
	// noMemo: too many steps for the memo's ids (anyScanMemo).
	noMemo bool
	// mirrorable: every step does to a JSON text what it does to the
	// place of data the text repeats (mirrorText, twins): no project
	// step, no fields or exclude_fields, whose paths could reach one and
	// not the other; and no block step, whose labels are those of the
	// first string it fires on, in the order of the places.
	mirrorable bool
}

type stepKind uint8

const (
	stepRedact stepKind = iota
	stepPseudonymise
	stepMask
	stepHash
	stepTruncate
	stepProject
	stepDropBinary
	stepBlock
	stepDetect
	stepAnnotate
	stepDepseudonymise
)

var stepKinds = map[string]stepKind{
	"redact": stepRedact, "pseudonymise": stepPseudonymise, "pseudonymize": stepPseudonymise,
	"mask": stepMask, "hash": stepHash, "truncate": stepTruncate, "project": stepProject,
	"drop_binary": stepDropBinary, "block": stepBlock, "detect": stepDetect,
	"annotate": stepAnnotate, policy.DepseudonymiseID: stepDepseudonymise,
}

// step is one compiled entry.
type step struct {
	id   string
	kind stepKind
	sel  detect.Selection
	// fields limits where the step acts (nil: everywhere); exclude is where
	// it does not.
	fields, exclude fieldpath.Paths
	placeholder     string
	keepLast        int
	char            string
	length          int // hash hex digits
	maxChars        int
	include, drop   fieldpath.Paths // project
	note            string
	// memoID tells the step's scans apart from others in the memo
	// (scratch.memo): its position in the pipeline, from 1.
	memoID uint16
	// scan: an annotate step scans only when no detecting step ran before
	// it; otherwise it reports what they found (scanning again would count
	// each value twice, and count placeholders as findings).
	scan bool
	// readsNumbers: a scanning step whose detectors may find something in
	// a JSON number (detect.Set.ReadsNumbers), which then becomes a
	// string (runNumber).
	readsNumbers bool
	// keyless: a scanning step none of whose detectors a member's key
	// reports (keyless): a value under a key is scanned by it only when
	// Clean does not settle it, as any other.
	keyless bool
}

func (s *step) detecting() bool {
	switch s.kind {
	case stepRedact, stepPseudonymise, stepMask, stepHash, stepBlock, stepDetect, stepAnnotate:
		return true
	}
	return false
}

// rewritesStrings reports whether the step may change string values (what
// outputSchema rewriting must know).
func (s *step) rewritesStrings() bool {
	switch s.kind {
	case stepRedact, stepPseudonymise, stepMask, stepHash, stepTruncate, stepDepseudonymise:
		return true
	}
	return false
}

// Compile turns resolved entries into a runnable pipeline. The policy
// validated every option already; an error here is a bug or a path the
// validator let through, and the caller fails closed.
func (e *Engine) Compile(entries []policy.PipelineEntry) (*Pipeline, error) {
	p := &Pipeline{ids: make([]string, 0, len(entries))}
	detected := false
	for _, en := range entries {
		k, ok := stepKinds[en.Type]
		if !ok {
			return nil, fmt.Errorf("transform %q: unknown type %q", en.ID, en.Type)
		}
		st := step{id: en.ID, kind: k, memoID: uint16(len(p.steps) + 1)}
		o := en.Options
		var err error
		if st.fields, err = pathsOption(o, "fields"); err != nil {
			return nil, fmt.Errorf("transform %q: fields: %w", en.ID, err)
		}
		if st.exclude, err = pathsOption(o, "exclude_fields"); err != nil {
			return nil, fmt.Errorf("transform %q: exclude_fields: %w", en.ID, err)
		}
		if st.detecting() {
			st.scan = k != stepAnnotate || !detected
			detected = true
			min := policy.SensitivityUnset
			if v := o.Get("min_sensitivity"); v != nil && v.Kind == policy.StringValue {
				min, _ = policy.ParseSensitivity(v.Text)
			}
			// The matched rules' allow lists and dictionaries (manual
			// 12.9.6) ride on the selection: compiled once per pipeline.
			names := stringsOption(o, "detectors")
			st.sel = e.detectors.WithRules(detect.Select(names, min), en.Detection)
			st.keyless = keyless(names)
			st.readsNumbers = st.scan && e.detectors.ReadsNumbers(st.sel)
		}
		switch k {
		case stepRedact:
			st.placeholder = stringOption(o, "placeholder", "[REDACTED:{label}]")
		case stepMask:
			st.keepLast = intOption(o, "keep_last", 4)
			st.char = stringOption(o, "char", "*")
		case stepHash:
			st.length = intOption(o, "length", 16)
		case stepTruncate:
			st.maxChars = intOption(o, "max_chars", 4096)
		case stepProject:
			if st.include, err = pathsOption(o, "include"); err != nil {
				return nil, fmt.Errorf("transform %q: include: %w", en.ID, err)
			}
			if st.drop, err = pathsOption(o, "exclude"); err != nil {
				return nil, fmt.Errorf("transform %q: exclude: %w", en.ID, err)
			}
		case stepDropBinary:
			st.note = stringOption(o, "note", "[{type} removed by privacy policy]")
		}
		if k == stepAnnotate {
			p.annotates = true
		}
		p.steps = append(p.steps, st)
		p.ids = append(p.ids, en.ID)
	}
	// A memoID is a uint16: the memo is for pipelines of fewer steps than
	// anyScanMemo (all that anyone writes).
	p.noMemo = len(p.steps) >= anyScanMemo
	p.runs = runsOf(p.steps)
	for i := range p.runs {
		p.runs[i].anyScan = anyScan(p.runs[i].steps)
		p.runs[i].anyScanID = anyScanMemo + uint16(i)
	}
	p.mirrorable = true
	for i := range p.steps {
		st := &p.steps[i]
		if st.kind == stepProject || st.kind == stepBlock || len(st.fields) > 0 || len(st.exclude) > 0 {
			p.mirrorable = false
		}
	}
	p.onlyDepseudonymise = len(p.steps) > 0
	for i := range p.steps {
		p.onlyDepseudonymise = p.onlyDepseudonymise && p.steps[i].kind == stepDepseudonymise
	}
	return p, nil
}

// stepRun is either one structural step (project, drop_binary) or a run
// of at most 64 consecutive string steps.
type stepRun struct {
	steps      []*step
	structural bool
	fieldMask  uint64 // steps limited by fields
	scoped     bool   // some step has fields or exclude_fields
	// anyScan selects every detector some scanning step of the run
	// selects (at least): one pass over a string tells whether any of
	// them could act (Engine.mayChange).
	anyScan   detect.Selection
	anyScanID uint16 // in the memo: anyScanMemo and the run's position
	// findMask selects the detecting steps: what may change a protocol
	// value or a member's name (the depseudonymiser leaves names alone).
	findMask uint64
}

func runsOf(steps []step) []stepRun {
	var out []stepRun
	for i := range steps {
		st := &steps[i]
		if st.kind == stepProject || st.kind == stepDropBinary {
			out = append(out, stepRun{steps: []*step{st}, structural: true})
			continue
		}
		if len(out) == 0 || out[len(out)-1].structural || len(out[len(out)-1].steps) == 64 {
			out = append(out, stepRun{})
		}
		sg := &out[len(out)-1]
		bit := uint64(1) << len(sg.steps)
		sg.steps = append(sg.steps, st)
		if st.detecting() {
			sg.findMask |= bit
		}
		if len(st.fields) > 0 {
			sg.fieldMask |= bit
		}
		if len(st.fields) > 0 || len(st.exclude) > 0 {
			sg.scoped = true
		}
	}
	return out
}

// anyScan is a selection of at least the detectors the scanning steps
// select (detect.Union of theirs).
func anyScan(steps []*step) detect.Selection {
	var sels []*detect.Selection
	for _, st := range steps {
		if st.detecting() && st.scan {
			sels = append(sels, &st.sel)
		}
	}
	return detect.Union(sels)
}

// keyless reports whether the detectors a step names are the secrets
// group alone (as the built-in profiles write it; a list that names
// detectors one by one is not looked up: code the module would carry):
// what a member's key reports is personal data (detect.Set.DetectKeyed:
// a name, an address, a birth date, a phone, an identifier, all of group
// pii), so a value such a step's Clean settles holds nothing for it,
// whatever its key.
func keyless(names []string) bool {
	for _, n := range names {
		if n != "@secrets" {
			return false
		}
	}
	return len(names) > 0
}

// runString runs the steps of a run that mask selects over one string.
func (e *Engine) runString(sg *stepRun, s string, mask uint64, run *Run) string {
	for i, st := range sg.steps {
		if mask&(1<<i) == 0 {
			continue
		}
		if st.scan {
			// rewriteString, with what detect would settle first
			// settled before the calls: most strings hold no trigger of
			// a step's detectors.
			if (st.keyless || !run.key.Reports()) && e.detectors.Clean(s, &st.sel) {
				continue
			}
			s = e.rewriteFound(st, s, e.detectUnclean(s, &st.sel, st.memoID, run), run)
		} else {
			s = e.rewriteString(st, s, run)
		}
		if run.Blocked {
			break
		}
	}
	return s
}

// IDs lists the pipeline's entry ids in order.
func (p *Pipeline) IDs() []string { return p.ids }

// Empty reports whether the pipeline has no step.
func (p *Pipeline) Empty() bool { return p == nil || len(p.steps) == 0 }

// SchemaEffects summarises what the pipeline does to structuredContent, for
// rewriting outputSchema (manual 10.8). A rewriting step that detects
// makes a number a string when its detectors may find something in the
// number (step.readsNumbers).
func (p *Pipeline) SchemaEffects() outputschema.Effects {
	var eff outputschema.Effects
	if p == nil {
		return eff
	}
	for i := range p.steps {
		st := &p.steps[i]
		switch {
		case st.kind == stepProject:
			eff.Include = append(eff.Include, st.include...)
			eff.Exclude = append(eff.Exclude, st.drop...)
		case st.rewritesStrings():
			eff.Rewrites = append(eff.Rewrites, outputschema.FieldScope{Fields: st.fields, Exclude: st.exclude,
				Numbers: st.readsNumbers})
		}
	}
	return eff
}

func pathsOption(o *policy.Value, key string) (fieldpath.Paths, error) {
	list := stringsOption(o, key)
	if len(list) == 0 {
		return nil, nil
	}
	return fieldpath.CompileAll(list)
}

func stringsOption(o *policy.Value, key string) []string {
	v := o.Get(key)
	if v == nil || v.Kind != policy.ArrayValue {
		return nil
	}
	out := make([]string, 0, len(v.Array))
	for _, x := range v.Array {
		if x.Kind == policy.StringValue {
			out = append(out, x.Text)
		}
	}
	return out
}

func stringOption(o *policy.Value, key, def string) string {
	if v := o.Get(key); v != nil && v.Kind == policy.StringValue {
		return v.Text
	}
	return def
}

func intOption(o *policy.Value, key string, def int) int {
	if v := o.Get(key); v != nil && v.Kind == policy.NumberValue {
		return int(v.Num)
	}
	return def
}

// Run is the state of transforming one message: the caller's namespace in
// the vault, and what the steps found, for audit, annotate and metrics.
// Detected values are never kept, only their labels.
type Run struct {
	// Namespace is the vault namespace of the caller (Vault.Namespace).
	Namespace string
	// Store, when not nil, is the pseudonym store of this message in
	// place of the engine's: plugin/mcp gives a request whose pseudonyms
	// are sealed (policy.VaultConfig.Seals) the sealed vault.
	Store vault.PseudonymStore
	// Preview computes pseudonyms without storing them.
	Preview bool
	// Detections counts detections per label over every detecting step.
	Detections map[string]int
	// Pseudonyms counts pseudonyms issued; Resolved those the
	// depseudonymiser replaced. Unresolved counts well-formed pseudonyms
	// it could not resolve for this caller (unknown, expired, or issued in
	// another namespace), Refused those it resolved but left alone because
	// their value would not read as one value at their place
	// (restore.go): both are worth an audit, as probing looks like them.
	Pseudonyms, Resolved int
	Unresolved, Refused  int
	// Unauthentic counts the unresolved pseudonyms that are sealed tokens
	// no key of the ring opens for their label and the caller's namespace
	// (Restored.Unauthentic): altered, another principal's or label's, or
	// under a key the ring lacks. Part of Unresolved.
	Unauthentic int
	// Blocked is set when a block step fired; BlockLabels are the labels
	// that fired it, sorted and distinct.
	Blocked     bool
	BlockLabels []string

	// key is what the name of the member being walked says of its
	// value (detect.KeyContext.Of; 0: nothing): its strings and numbers
	// are scanned with it (DetectKeyed), never skipped as clean.
	key detect.Key

	// sc is the scratch of the message being transformed (Engine.Apply
	// takes one from the engine's pool), or nil.
	sc *scratch
	// times is how many places of the message the place being walked
	// stands for (itself and what JSON texts repeat of it: mirrorText,
	// twins): each of its counts counts that many times. 0 is 1.
	times int
}

// weight is how many times a count of the place being walked counts.
func (r *Run) weight() int { return max(r.times, 1) }

func (r *Run) count(label string) {
	w := r.weight()
	if sc := r.sc; sc != nil {
		for i := range sc.counts {
			if streq.Same(sc.counts[i].label, label) {
				sc.counts[i].n += w
				return
			}
		}
		if len(sc.counts) < maxCounts {
			sc.counts = append(sc.counts, labelCount{label, w})
			return
		}
	}
	if r.Detections == nil {
		r.Detections = map[string]int{}
	}
	r.Detections[label] += w
}

// flushCounts adds the counts of r's scratch to Detections: before
// anything reads them (annotate), and when the scratch goes back.
func (r *Run) flushCounts() {
	sc := r.sc
	if sc == nil || len(sc.counts) == 0 {
		return
	}
	if r.Detections == nil {
		r.Detections = make(map[string]int, len(sc.counts))
	}
	for _, c := range sc.counts {
		r.Detections[c.label] += c.n
	}
	clear(sc.counts)
	sc.counts = sc.counts[:0]
}

func (r *Run) blockedBy(label string) {
	r.Blocked = true
	for _, l := range r.BlockLabels {
		if l == label {
			return
		}
	}
	i := 0
	for i < len(r.BlockLabels) && r.BlockLabels[i] < label {
		i++
	}
	r.BlockLabels = append(r.BlockLabels, "")
	copy(r.BlockLabels[i+1:], r.BlockLabels[i:])
	r.BlockLabels[i] = label
}

// truncateMarker is appended where truncate cut a string.
func truncateMarker(removed int) string {
	return "…[truncated " + strconv.Itoa(removed) + " characters]"
}

// rewriteString runs one string-level step on s and returns the result.
func (e *Engine) rewriteString(st *step, s string, run *Run) string {
	switch st.kind {
	case stepTruncate:
		if len(s) <= st.maxChars { // bytes ≥ characters: cheap early out
			return s
		}
		n := utf8.RuneCountInString(s)
		if n <= st.maxChars {
			return s
		}
		cut := 0
		for i := 0; i < st.maxChars; i++ {
			_, size := utf8.DecodeRuneInString(s[cut:])
			cut += size
		}
		return s[:cut] + truncateMarker(n-st.maxChars)
	case stepDepseudonymise:
		store := e.storeOf(run)
		if store == nil {
			return s
		}
		out, r := store.Restore(run.Namespace, s, e.restorable)
		w := run.weight()
		run.Resolved += w * r.Resolved
		run.Unresolved += w * r.Unresolved
		run.Refused += w * r.Refused
		run.Unauthentic += w * r.Unauthentic
		return out
	}
	if !st.scan {
		return s
	}
	return e.rewriteFound(st, s, e.detect(s, &st.sel, st.memoID, run), run)
}

// rewriteFound is rewriteString of a scanning step that found ds in s.
func (e *Engine) rewriteFound(st *step, s string, ds []detect.Detection, run *Run) string {
	if len(ds) == 0 {
		return s
	}
	for _, d := range ds {
		run.count(d.Label)
	}
	if st.kind == stepBlock {
		for _, d := range ds {
			run.blockedBy(d.Label)
		}
		return s
	}
	if st.kind == stepDetect || st.kind == stepAnnotate {
		return s // nothing changes
	}
	// Replace, written into the scratch's buffer and carved from its
	// chunk: no allocation of its own, however long the replacements.
	var buf []byte
	if run.sc != nil {
		buf = run.sc.buf[:0]
	}
	last := 0
	for i := range ds {
		d := &ds[i]
		buf = append(buf, s[last:d.Start]...)
		if st.kind == stepRedact {
			buf = appendPlaceholder(buf, st.placeholder, d)
		} else {
			r, _ := e.replacement(st, *d, s, run)
			// A pseudonym glued to an ASCII word character (the value
			// before, a digit after: 王伟1975年) would not be read back
			// as one: a space sets it apart.
			pseudonym := st.kind == stepPseudonymise
			if pseudonym && len(buf) > 0 && vault.GluesTo(buf[len(buf)-1]) {
				buf = append(buf, ' ')
			}
			buf = append(buf, r...)
			if pseudonym && d.End < len(s) && vault.GluesTo(s[d.End]) {
				buf = append(buf, ' ')
			}
		}
		last = d.End
	}
	buf = append(buf, s[last:]...)
	if run.sc == nil {
		return string(buf)
	}
	run.sc.buf = buf[:0]
	return run.sc.carve(buf)
}

// setApart is pseudonym r of detection d in s with a space before or
// after it where the text around d would glue it to an ASCII word
// character (rewriteFound's rule, for the one value cut at a joint).
func setApart(r, s string, d *detect.Detection) string {
	if d.Start > 0 && vault.GluesTo(s[d.Start-1]) {
		r = " " + r
	}
	if d.End < len(s) && vault.GluesTo(s[d.End]) {
		r += " "
	}
	return r
}

// appendPlaceholder appends Placeholder(template, d) to b: {label}
// becomes the label, {detector} the detector. Labels are upper-case
// letters, digits and underscores, so replacing both in one pass gives
// what Placeholder's two replacements give.
func appendPlaceholder(b []byte, template string, d *detect.Detection) []byte {
	for {
		i := strings.IndexByte(template, '{')
		if i < 0 {
			return append(b, template...)
		}
		b = append(b, template[:i]...)
		switch rest := template[i:]; {
		case strings.HasPrefix(rest, "{label}"):
			b = append(b, d.Label...)
			template = rest[len("{label}"):]
		case strings.HasPrefix(rest, "{detector}"):
			b = append(b, d.Detector...)
			template = rest[len("{detector}"):]
		default:
			b = append(b, '{')
			template = rest[1:]
		}
	}
}

func (e *Engine) pseudonym(run *Run, label, value string) string {
	store := e.storeOf(run)
	switch {
	case store == nil:
		return e.pseudonyms.Pseudonym(run.Namespace, label, value)
	case run.Preview:
		return store.Pseudonym(run.Namespace, label, value)
	}
	v := e.clocked // asserted once: in the VM an assertion to an interface is a table lookup
	if run.Store != nil {
		v, _ = store.(vault.ClockedStore)
	}
	if v != nil && run.sc != nil {
		if run.sc.now.IsZero() {
			run.sc.now = v.Clock()
		}
		return v.PseudonymiseAt(run.Namespace, label, value, run.sc.now)
	}
	return store.Pseudonymise(run.Namespace, label, value)
}

// storeOf is the store of run's message: its own, else the engine's.
func (e *Engine) storeOf(run *Run) vault.PseudonymStore {
	if run.Store != nil {
		return run.Store
	}
	return e.store
}

// ApplyText runs a pipeline over one plain string (preview of text, a
// resource URI): steps that need JSON structure (project, drop_binary,
// fields) have nothing to act on.
func (e *Engine) ApplyText(p *Pipeline, s string, run *Run) string {
	if p.Empty() {
		return s
	}
	for i := range p.steps {
		st := &p.steps[i]
		if st.kind == stepProject || st.kind == stepDropBinary {
			continue
		}
		if len(st.fields) > 0 {
			continue // fields name JSON paths: plain text has none
		}
		s = e.rewriteString(st, s, run)
		if run.Blocked {
			return s
		}
	}
	return s
}

// placeholderType fills drop_binary's note.
func placeholderType(note, typ string) string {
	return strings.ReplaceAll(note, "{type}", typ)
}
