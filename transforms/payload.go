package transforms

import (
	"bytes"
	"encoding/base64"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/transforms/fieldpath"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

// Payload says what a JSON node is, so a pipeline knows which of its
// strings carry data (manual 8). Every string is data unless the structural
// table (structural.go) says the schema puts a protocol value there.
type Payload uint8

const (
	// ToolResult is a tools/call result: content[] texts (JSON text
	// parsed), binary items and structuredContent each their own place;
	// every other string of the result (resource links, annotations,
	// _meta, members no revision defines) in the result as a document.
	ToolResult Payload = iota
	// ResourceContents is a resources/read result: contents[].text and
	// blobs as places of their own, the rest as in ToolResult.
	ResourceContents
	// PromptResult is a prompts/get result: messages[].content read as in
	// ToolResult, description and the rest in the result.
	PromptResult
	// CompletionResult is a completion/complete result.
	CompletionResult
	// ErrorObject is the error member of an error response: message (plain
	// text) and data (a document) each their own place; other members in
	// the error object.
	ErrorObject
	// AnyStrings is a client's answer to a server request (sampling,
	// roots, elicitation, tasks): every string in place, but structural
	// ones.
	AnyStrings
	// Arguments is a JSON document of arguments (tools/call arguments,
	// prompt arguments): every string, with projection paths relative to it.
	Arguments
	// Text is one string node (a resource URI, a completion argument).
	Text
	// AnyResult is a result whose method is not known (unattributed, or a
	// method such as tasks/result that answers with another's result):
	// read by every server result's shape at once.
	AnyResult
	// Envelope is a JSON-RPC message's own members beside jsonrpc, id,
	// method, params, result and error, which no revision defines.
	Envelope
	// InputRequests is the inputRequests of an InputRequiredResult or a
	// task (2026-07-28, MRTR): an object of server requests by key, each
	// request's params read as a server request of its method's are.
	InputRequests
	// InputResponses is the params.inputResponses of an MRTR retry or a
	// tasks/update: an object of client results by key, each read as a
	// client's answer to a server request is (AnyStrings).
	InputResponses

	// Payloads ResultPayload and ParamsPayload name.
	initializeResult
	listResult
	taskResult
	emptyResult
	discoverResult
	params
	paramsRequest
	paramsProgress
	paramsCancelled
	paramsLog
	paramsUpdated
	paramsTaskStatus
	paramsElicitDone
	paramsTaskID
	paramsList
	paramsSampling
	paramsElicit
	paramsSubscriptions
	numPayloads
)

// payloadShapes is the shape each schema-walked payload starts with, and
// whether its content texts and structuredContent are places of their own
// (results) or text in place (server messages, client answers).
var payloadShapes = [numPayloads]struct {
	root     shape
	separate bool
}{
	ToolResult: {shResultCall, true}, ResourceContents: {shResultRead, true},
	PromptResult: {shResultPrompt, true}, CompletionResult: {shResultComplete, true},
	AnyResult: {shResultAny, true}, initializeResult: {shResultInit, true}, listResult: {shResultList, true},
	taskResult: {shResultTask, true}, emptyResult: {shResultEmpty, true}, discoverResult: {shResultDiscover, true},
	ErrorObject: {shError, false}, Envelope: {shEnvelope, false}, AnyStrings: {shClientResult, false},
	InputRequests: {shInputRequests, false}, InputResponses: {shInputResponses, false},
	Arguments: {shData, false},
	params:    {shParams, false}, paramsRequest: {shParamsRequest, false}, paramsProgress: {shParamsProgress, false},
	paramsCancelled: {shParamsCancelled, false}, paramsLog: {shParamsLog, false},
	paramsUpdated: {shParamsUpdated, false}, paramsTaskStatus: {shParamsTaskStatus, false},
	paramsElicitDone: {shParamsElicitDone, false}, paramsTaskID: {shParamsTaskID, false},
	paramsList: {shParamsList, false}, paramsSampling: {shParamsSampling, false}, paramsElicit: {shParamsElicit, false},
	paramsSubscriptions: {shParamsSubscriptions, false},
}

// resultPayloads and paramsPayloads are the payload of each shape the
// method table (internal/mcpvocab) gives a result or server params.
var (
	resultPayloads = [mcpvocab.NumResults]Payload{
		mcpvocab.ResultAny: AnyResult, mcpvocab.ResultTool: ToolResult, mcpvocab.ResultResource: ResourceContents,
		mcpvocab.ResultPrompt: PromptResult, mcpvocab.ResultCompletion: CompletionResult,
		mcpvocab.ResultInitialize: initializeResult, mcpvocab.ResultList: listResult,
		mcpvocab.ResultTask: taskResult, mcpvocab.ResultEmpty: emptyResult, mcpvocab.ResultDiscover: discoverResult,
	}
	paramsPayloads = [mcpvocab.NumParams]Payload{
		mcpvocab.ParamsGeneric: params, mcpvocab.ParamsProgress: paramsProgress,
		mcpvocab.ParamsCancelled: paramsCancelled, mcpvocab.ParamsLog: paramsLog,
		mcpvocab.ParamsUpdated: paramsUpdated, mcpvocab.ParamsTaskStatus: paramsTaskStatus,
		mcpvocab.ParamsElicitDone: paramsElicitDone, mcpvocab.ParamsTaskID: paramsTaskID,
		mcpvocab.ParamsList: paramsList, mcpvocab.ParamsSampling: paramsSampling, mcpvocab.ParamsElicit: paramsElicit,
		mcpvocab.ParamsSubscriptions: paramsSubscriptions,
	}
)

// ResultPayload is the payload of a result answering method under the
// 2025 revisions (ResultPayloadAt).
func ResultPayload(method string) Payload { return ResultPayloadAt(mcpvocab.Rev2025, method) }

// ResultPayloadAt is the payload of a result answering method under
// revision rev: its shape in the schema, or every result's shape for a
// method the schema does not define.
func ResultPayloadAt(rev mcpvocab.Revision, method string) Payload {
	return resultPayloads[mcpvocab.For(rev).Method(method).Result]
}

// ParamsPayload is ParamsPayloadAt under the 2025 revisions.
func ParamsPayload(method string, request bool) Payload {
	return ParamsPayloadAt(mcpvocab.Rev2025, method, request)
}

// ParamsPayloadAt is the payload of the params of a server request
// (request: it has an id) or notification of method under revision rev.
func ParamsPayloadAt(rev mcpvocab.Revision, method string, request bool) Payload {
	p := mcpvocab.For(rev).Method(method).Params
	if p == mcpvocab.ParamsGeneric && request {
		return paramsRequest
	}
	return paramsPayloads[p]
}

// Part is a member of a result that a pipeline of its own reads (the
// result's own walk skips it): the caller applies the pipeline and
// payload its Role names, then looks for the parts of a PartTaskResult in
// turn. A part is always an object; anything else at its place is data of
// the result.
type Part struct {
	Node int32
	Role PartRole
}

// PartRole is what a Part is.
type PartRole uint8

const (
	// PartInputRequests is an InputRequiredResult's or a task's
	// inputRequests: server requests, which get the pipeline server
	// requests get, read as InputRequests.
	PartInputRequests PartRole = iota
	// PartTaskResult is the result of a completed task (tasks/get): what
	// the request that created the task would have returned, read by that
	// request's result payload with its pipeline.
	PartTaskResult
	// PartTaskError is the JSON-RPC error of a failed task (tasks/get),
	// read as an ErrorObject with the same pipeline as PartTaskResult.
	PartTaskError
)

// Parts appends to ps the parts of result n read as kind (none for a
// payload that is no result).
func Parts(d *jsondoc.Doc, n int32, kind Payload, ps []Part) []Part {
	if kind >= numPayloads || !payloadShapes[kind].separate || d.Kind(n) != jsondoc.Object {
		return ps
	}
	sh := refine(d, n, payloadShapes[kind].root)
	for c := d.First(n); c != jsondoc.None; c = d.Next(c) {
		if d.Kind(c) != jsondoc.Object {
			continue
		}
		switch childOf(d, c, sh) {
		case shPartInputRequests:
			ps = append(ps, Part{c, PartInputRequests})
		case shPartTaskResult:
			ps = append(ps, Part{c, PartTaskResult})
		case shPartTaskError:
			ps = append(ps, Part{c, PartTaskError})
		}
	}
	return ps
}

// annotated reports whether an annotate step marks a payload: results
// with content (what manual 11 annotates) and server messages; not list,
// initialize or empty results, nor error objects, nor the objects keyed
// by MRTR request (a _meta member there would read as one more request).
func annotated(kind Payload, d *jsondoc.Doc, n int32) bool {
	switch {
	case kind <= CompletionResult, kind == AnyStrings, kind >= params:
		return true
	case kind == AnyResult:
		return d.Kind(d.Get(n, "content")) == jsondoc.Array || d.Get(n, "structuredContent") != jsondoc.None ||
			d.Kind(d.Get(n, "contents")) == jsondoc.Array || d.Kind(d.Get(n, "messages")) == jsondoc.Array ||
			d.Kind(d.Get(n, "completion")) == jsondoc.Object
	}
	return false
}

type targetKind uint8

const (
	plainText  targetKind = iota // a string node, as text
	jsonText                     // a string node whose text is JSON: parsed into sub
	document                     // a JSON structure in the message itself
	binaryItem                   // an image, audio or blob item (drop_binary)
)

// target is one place of a payload the steps act on.
type target struct {
	kind targetKind
	node int32
	// text is a plainText target's current value.
	text    string
	changed bool
	// sub is a jsonText target's parsed text.
	sub *jsondoc.Doc
	// shape is what a document target is in the schema (structural.go);
	// separate: its content texts and structuredContent are targets of
	// their own, not walked with it.
	shape    shape
	separate bool
	// projectable: structuredContent or JSON text of content, where
	// project acts (manual 11); not arguments, error data or server messages,
	// whose shape belongs to the protocol.
	projectable bool
	// unparsed: text that looks like JSON but that the strict parser
	// rejects (duplicate keys, …). A step limited by fields cannot know
	// where its fields are in it, so it acts on the whole text rather than
	// let the data through.
	unparsed bool
	// bin is what a binaryItem is (image, audio, blob) and how it is
	// replaced.
	bin        string
	binContent bool // a content item (else a resources/read contents entry)
}

// Apply runs pipeline p over the payload at node n of doc, editing doc in
// place, and reports whether anything changed. When a block step fires,
// run.Blocked is set and Apply returns at once: the caller replaces the
// whole message with the -32004 error.
func (e *Engine) Apply(p *Pipeline, doc *jsondoc.Doc, n int32, kind Payload, run *Run) bool {
	if p.Empty() || doc.Kind(n) == jsondoc.Invalid {
		return false
	}
	if p.onlyDepseudonymise && !hasPseudonym(doc.Raw(n)) {
		// The common input pipeline, and most arguments hold no pseudonym.
		// A pseudonym written with JSON escapes is not seen here and stays
		// unresolved: the safe direction.
		return false
	}
	sc := e.takeScratch(run)
	defer e.dropScratch(run, sc)
	var ts []target
	if sc != nil { // this call's own: no other Apply of run uses them
		ts = sc.targets[:0]
	}
	ts = collect(doc, n, kind, ts)
	if sc != nil {
		sc.targets = ts[:0]
	}
	readTexts(doc, ts)
	if sc != nil && !e.noMemo && !p.noMemo && repeatsData(ts) {
		if sc.memo.slots == nil {
			sc.memo.slots = make([]memoEntry, memoSlots)
		}
		sc.memo.on = true
	}
	lastData := lastDataTarget(ts)
	for i := range p.runs {
		sg := &p.runs[i]
		joints := e.acrossItems(sg, doc, ts, run) // values split across text items (crossitem.go)
		for j := range ts {
			if sc != nil && sc.memo.on {
				sc.memo.adding = j < lastData
			}
			e.applySegment(sg, doc, &ts[j], run)
			if run.Blocked {
				return false
			}
		}
		joints.rejoin()
	}
	for i := range ts {
		t := &ts[i]
		switch {
		case t.kind == plainText && t.changed:
			doc.SetString(t.node, t.text)
		case t.kind == jsonText && t.sub.Changed():
			// A changed document's Bytes are a new buffer, which nothing
			// else holds or writes: the string can be a view of it.
			doc.SetString(t.node, bytesView(t.sub.Bytes()))
		}
		if t.kind == jsonText {
			// Nothing reads the JSON text's nodes after this (its strings
			// are copies or views of the text, not of the nodes): the
			// next parse takes the array.
			t.sub.Release()
		}
	}
	if p.annotates && annotated(kind, doc, n) {
		run.flushCounts()
		e.annotate(p, doc, n, run)
	}
	return doc.Changed()
}

// repeatsData reports whether a payload has two places of data (a JSON
// text and structuredContent, say), which often hold the same values: its
// scans are worth memoising.
func repeatsData(ts []target) bool {
	n := 0
	for i := range ts {
		if isData(&ts[i]) {
			n++
		}
	}
	return n >= 2
}

// lastDataTarget is the index of the last place of data in ts (-1: none).
func lastDataTarget(ts []target) int {
	for i := len(ts) - 1; i >= 0; i-- {
		if isData(&ts[i]) {
			return i
		}
	}
	return -1
}

func isData(t *target) bool { return t.kind == jsonText || t.kind == document && t.shape == shData }

// bytesView is b as a string without a copy. Only for bytes no one writes
// while the string lives: a document's source (jsondoc keeps it and never
// writes to it; neither does anyone after Parse), or a buffer made for the
// string.
func bytesView(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// readTexts reads the text targets: text that is JSON is parsed, so paths
// and projections reach into it; text that looks like JSON but fails the
// strict parse is plain text marked unparsed.
func readTexts(doc *jsondoc.Doc, ts []target) {
	for i := range ts {
		t := &ts[i]
		if t.kind != plainText && t.kind != jsonText {
			continue
		}
		if raw, ok := doc.StrRaw(t.node); ok {
			t.text = bytesView(raw) // nothing to decode: no copy
		} else {
			t.text, _ = doc.Str(t.node)
		}
		if t.kind == jsonText {
			t.kind = plainText
			if looksLikeJSON(t.text) {
				// Strings are never written to, and jsondoc never writes
				// to its source: the text's own bytes can be parsed.
				if sub, err := jsondoc.Parse(unsafe.Slice(unsafe.StringData(t.text), len(t.text))); err == nil {
					t.kind, t.sub = jsonText, sub
				} else {
					t.unparsed = true
				}
			}
		}
	}
}

func (e *Engine) applySegment(sg *stepRun, doc *jsondoc.Doc, t *target, run *Run) {
	if sg.structural {
		st := sg.steps[0]
		switch {
		case t.kind == binaryItem && st.kind == stepDropBinary:
			dropBinary(doc, t, st.note)
		case st.kind == stepProject && t.projectable && t.kind == jsonText:
			project(t.sub, jsondoc.Root, st.include, st.drop)
		case st.kind == stepProject && t.projectable && t.kind == document:
			project(doc, t.node, st.include, st.drop)
		case st.kind == stepProject && t.projectable && t.unparsed:
			// JSON that two parsers could read differently cannot be
			// projected: which "password" would go? None of it goes out.
			t.text, t.changed = unprojectable, true
		}
		return
	}
	switch t.kind {
	case plainText:
		// Fields name JSON paths: plain text has none, except text that
		// only failed the strict parse (see target.unparsed).
		mask := ^uint64(0)
		if !t.unparsed {
			mask &^= sg.fieldMask
		}
		if mask&(uint64(1)<<len(sg.steps)-1) == 0 {
			return
		}
		if out := e.runText(sg, t.text, mask, run); out != t.text {
			t.text, t.changed = out, true
		}
	case jsonText:
		e.runDocument(sg, t.sub, jsondoc.Root, shData, false, run)
	case document:
		e.runDocument(sg, doc, t.node, t.shape, t.separate, run)
	case binaryItem:
		e.binaryText(sg, doc, t, run) // text carried as base64 (binarytext.go)
	}
}

// runDocument runs a run of string steps over the strings of a JSON
// structure in one walk: each string gets, in order, the steps whose
// fields reach it and whose exclude_fields do not. The walk reads the
// structure as the schema shape sh: structural strings are left alone
// (structural.go), and so are the places that are targets of their own.
func (e *Engine) runDocument(sg *stepRun, d *jsondoc.Doc, root int32, sh shape, separate bool, run *Run) {
	// Protocol text (descriptions, titles, a message's other members) is
	// mostly clean: each string is looked at in place before it is
	// copied. Data (structuredContent, arguments, JSON text) often holds
	// findings, which the look would only scan twice.
	w := docWalk{e: e, sg: sg, d: d, run: run, separate: separate, precheck: sh != shData, detects: runDetects(sg)}
	if sg.scoped {
		w.in, w.out = make([]map[int32]bool, len(sg.steps)), make([]map[int32]bool, len(sg.steps))
		for i, st := range sg.steps {
			if len(st.fields) > 0 {
				w.in[i] = st.fields.Nodes(d, root)
			}
			if len(st.exclude) > 0 {
				w.out[i] = st.exclude.Nodes(d, root)
			}
		}
	}
	w.visit(root, sh, ^sg.fieldMask, 0, false)
}

// docWalk is runDocument's walk of one structure. A walk without fields
// or exclude_fields (most: every output pipeline of the standard
// profiles) gives every node the same steps, so its containers read their
// members themselves: a boolean, a clean name or a structural value costs
// no call, which inside the VM costs more than the look itself.
type docWalk struct {
	e        *Engine
	sg       *stepRun
	d        *jsondoc.Doc
	run      *Run
	separate bool
	precheck bool
	detects  bool               // some step of the run detects (runDetects)
	in, out  []map[int32]bool   // per step: the nodes its fields and exclude_fields reach
	names    map[int32]*nameSet // the objects whose members were renamed
	looks    [2]stepLook        // what the steps of the last two masks do (look)
	nextLook uint8              // the slot of looks the next new mask takes
}

// stepLook is what the steps of one mask may do to a string, as
// Engine.mayChange works it out: worked out once per walk, not per
// string (a walk without fields sees two masks: text, and protocol
// values).
type stepLook struct {
	mask     uint64
	known    bool
	always   bool // a step that may change any string
	maxChars int  // the shortest truncation (math.MaxInt: none)
	scans    bool // a scanning step
}

// look is the stepLook of mask.
func (w *docWalk) look(mask uint64) *stepLook {
	for i := range w.looks {
		if l := &w.looks[i]; l.known && l.mask == mask {
			return l
		}
	}
	l := &w.looks[w.nextLook&1]
	w.nextLook++
	*l = stepLook{mask: mask, known: true, maxChars: math.MaxInt}
	for i, st := range w.sg.steps {
		if mask&(1<<i) == 0 {
			continue
		}
		switch {
		case st.kind == stepTruncate:
			l.maxChars = min(l.maxChars, st.maxChars)
		case st.detecting():
			l.scans = l.scans || st.scan
		default:
			l.always = true
		}
	}
	return l
}

// unchanged reports whether the steps of mask surely leave plain string
// raw (no escapes) as it is, looking in place: Engine.mayChange, and
// runText's reading of base64 (a base64 word whose first characters do
// not decode to text carries none, notBase64Text).
func (w *docWalk) unchanged(raw []byte, mask uint64) bool {
	if len(raw) == 0 {
		return true // no step changes an empty string, nor reads base64 in it
	}
	if len(raw) >= minBase64Text && base64Word(raw) && !notBase64Text(raw) {
		return false
	}
	l := &w.looks[0] // look, in line for the two masks it keeps
	if !l.known || l.mask != mask {
		if l = &w.looks[1]; !l.known || l.mask != mask {
			l = w.look(mask)
		}
	}
	if l.always || len(raw) > l.maxChars {
		return false
	}
	e := w.e
	return !l.scans || e.detectors.SurelyClean(raw) || len(e.detect(bytesView(raw), &w.sg.anyScan, w.sg.anyScanID, w.run)) == 0
}

func (w *docWalk) visit(n int32, sh shape, reached, excluded uint64, named bool) {
	sg := w.sg
	if sg.scoped {
		for i := range sg.steps {
			if w.out[i][n] {
				excluded |= 1 << i
			}
			if w.in[i][n] {
				reached |= 1 << i
			}
		}
	}
	if named {
		w.e.runName(sg, w.d, n, reached&^excluded&sg.findMask, &w.names, w.run)
	}
	switch w.d.Kind(n) {
	case jsondoc.String:
		w.str(n, sh, reached&^excluded)
	case jsondoc.Number:
		w.number(n, sh, reached&^excluded)
	case jsondoc.Object:
		w.object(n, sh, reached, excluded)
	case jsondoc.Array:
		w.array(n, sh, reached, excluded)
	}
}

// object walks the members of object n reached as sh.
func (w *docWalk) object(n int32, sh shape, reached, excluded uint64) {
	if skipped(sh, w.separate) {
		return
	}
	d, run := w.d, w.run
	if sh <= shEnvelope || sh == shContent || sh == shInputParams {
		sh = refine(d, n, sh)
	}
	if w.sg.scoped {
		// Each member may be reached by other steps: visit works it out.
		for c := d.First(n); c != jsondoc.None && !run.Blocked; c = d.Next(c) {
			csh := childOf(d, c, sh)
			w.visit(c, csh, reached, excluded, nameIsData(sh, csh))
		}
		return
	}
	mask := reached &^ excluded
	nameMask := mask & w.sg.findMask
	every, table := memberShapes(sh)
	for c := d.First(n); c != jsondoc.None && !run.Blocked; c = d.Next(c) {
		key, plain := d.KeyRaw(c)
		csh := every
		switch {
		case table == nil:
		case plain && len(key) > 0:
			// memberTable.shapeOf, in line.
			csh = shData
			for _, m := range table[bucket(key)] {
				if sameBytes(key, m.key) {
					csh = m.sh
					break
				}
			}
		default:
			csh = table.shapeOf(d, c)
		}
		if nameMask != 0 && nameIsData(sh, csh) && (!plain || !w.e.detectors.SurelyClean(key)) {
			// Most names are short words, settled here as runName
			// would first (only detecting steps read names).
			w.e.runName(w.sg, d, c, nameMask, &w.names, run)
		}
		switch d.Kind(c) {
		case jsondoc.String:
			w.str(c, csh, mask)
		case jsondoc.Number:
			w.number(c, csh, mask)
		case jsondoc.Object:
			w.object(c, csh, reached, excluded)
		case jsondoc.Array:
			w.array(c, csh, reached, excluded)
		}
	}
}

// array walks the elements of array n reached as sh.
func (w *docWalk) array(n int32, sh shape, reached, excluded uint64) {
	if isPart(sh) || sh == shOpaque {
		sh = shData // what these places hold is an object, or a string
	}
	if skipped(sh, w.separate) {
		return
	}
	if sh == shEnvID {
		sh = shData // an id, method or version is never a list
	}
	d, run := w.d, w.run
	if w.sg.scoped {
		for c := d.First(n); c != jsondoc.None && !run.Blocked; c = d.Next(c) {
			w.visit(c, sh, reached, excluded, false)
		}
		return
	}
	mask := reached &^ excluded
	for c := d.First(n); c != jsondoc.None && !run.Blocked; c = d.Next(c) {
		switch d.Kind(c) {
		case jsondoc.String:
			w.str(c, sh, mask)
		case jsondoc.Number:
			w.number(c, sh, mask)
		case jsondoc.Object:
			w.object(c, sh, reached, excluded)
		case jsondoc.Array:
			w.array(c, sh, reached, excluded)
		}
	}
}

// str runs the steps of mask over string node n reached as sh.
func (w *docWalk) str(n int32, sh shape, mask uint64) {
	if mask == 0 {
		return
	}
	e, sg, d, run := w.e, w.sg, w.d, w.run
	raw, plain := d.StrRaw(n)
	rd := readText
	if sh != shData {
		if rd = readings[b2i(w.separate)][sh]; rd == readByValue {
			if toks := tokens[sh]; toks != nil && plain {
				// An enumeration's value, written plainly: readingAt,
				// in line.
				rd = readText
				for _, t := range toks {
					if sameBytes(raw, t) {
						rd = readNone
						break
					}
				}
			} else {
				rd = readingAt(d, n, sh, w.separate)
			}
		}
	}
	// A data: URI (checked by its first byte before anything is called),
	// wherever it is: its base64 is read for the text it carries (a
	// protocol value then holds nothing more). One whose "base64" is not
	// base64 (text after ;base64,) carries nothing: it is read for what
	// it says, as any protocol value.
	if rd != readNone && w.detects && (!plain || len(raw) > 0 && raw[0] == 'd') && inlineBase64(d, n) {
		read := e.dataURINode(sg, d, n, mask, run)
		if run.Blocked {
			return
		}
		if rd != readText {
			if read {
				return
			}
			rd = readFindings
		}
	}
	look := w.precheck // look in place before running the steps
	switch rd {
	case readText:
	case readFindings:
		// Only what a detector finds changes a protocol value.
		if mask &= sg.findMask; mask == 0 {
			return
		}
		look = true
	default: // readNone, and readInline without a detecting step
		return
	}
	// A string without escapes is run as a view of the document's bytes:
	// only what the steps change is copied (PseudonymStore copies what it
	// keeps).
	var s string
	if plain {
		if look && w.unchanged(raw, mask) {
			return // nothing to find
		}
		s = bytesView(raw)
	} else {
		s, _ = d.Str(n)
	}
	if r := e.runText(sg, s, mask, run); r != s {
		d.SetString(n, r)
	}
}

// number runs the steps of mask over number node n reached as sh. A
// number is read as the digits a reader sees (a card number sent as a
// JSON number); what the detectors find makes it a string. Protocol
// numbers (error codes, progress) are too short for any built-in.
func (w *docWalk) number(n int32, sh shape, mask uint64) {
	e, sg, d, run := w.e, w.sg, w.d, w.run
	if mask &= sg.findMask; mask != 0 && sh != shOwn && sh != shEnvID && !d.Replaced(n) &&
		(len(d.Raw(n)) >= minDetectedNumber || e.detectors.HasCustom()) {
		raw := d.Raw(n)
		if e.mayChange(sg, raw, mask, run) {
			if r := e.runString(sg, bytesView(raw), mask, run); r != bytesView(raw) {
				d.SetString(n, r)
			}
		}
	}
}

// notBase64Text reports whether base64 word raw (base64Word) surely
// carries no text: its first characters (at most 16, before any padding)
// decode, in the alphabet base64Text would pick, to bytes that are not
// UTF-8 text however they go on, so base64Text fails. Most identifiers
// that are base64 words ("summarize_customer") fail at the first bytes,
// and are then looked at as any string, without the decoding. False when
// it cannot tell.
func notBase64Text(raw []byte) bool {
	head := raw[:min(len(raw), 16)]
	if i := bytes.IndexByte(head, '='); i >= 0 {
		head = head[:i]
	}
	enc := base64.RawStdEncoding
	if bytes.ContainsAny(raw, "-_") {
		enc = base64.RawURLEncoding
	}
	var buf [12]byte
	// Line breaks are skipped, as base64Text removes them; a head cut
	// inside a quantum decodes the bytes it holds whole.
	k, err := enc.Decode(buf[:], head)
	return err == nil && !textBytes(buf[:k], true)
}

// runName runs the detecting steps of mask over the name of member n (see
// nameIsData); the depseudonymiser leaves names alone (MCP_PRIVACY.md
// 13.6). A new name equal to a sibling's, or to one under case folding
// (two addresses redacted to one placeholder), gets a number, so the
// object keeps its members apart. names holds, per object, the names
// taken (folded) and the next number of each new name: renaming every
// member of a large object stays linear.
func (e *Engine) runName(sg *stepRun, d *jsondoc.Doc, n int32, mask uint64, names *map[int32]*nameSet, run *Run) {
	if mask == 0 {
		return
	}
	var k string
	if raw, ok := d.KeyRaw(n); ok {
		// Most names are short words: settled before mayChange looks at
		// the steps (only detecting steps read names).
		if e.detectors.SurelyClean(raw) || !e.mayChange(sg, raw, mask, run) {
			return // the common case: nothing to find
		}
		k = bytesView(raw) // copied only if the steps change it
	} else {
		k = d.Key(n)
	}
	r := e.runString(sg, k, mask, run)
	if r == k || run.Blocked {
		return
	}
	parent := d.Parent(n)
	if *names == nil {
		*names = map[int32]*nameSet{}
	}
	ns := (*names)[parent]
	if ns == nil {
		ns = &nameSet{taken: map[string]bool{}, next: map[string]int{}}
		for c := d.First(parent); c != jsondoc.None; c = d.Next(c) {
			ns.taken[jsondoc.FoldKey(d.Key(c))] = true
		}
		(*names)[parent] = ns
	}
	delete(ns.taken, jsondoc.FoldKey(k))
	name := r
	for i := max(ns.next[r], 2); ns.taken[jsondoc.FoldKey(name)]; i++ {
		name = r + " (" + strconv.Itoa(i) + ")"
		ns.next[r] = i + 1
	}
	ns.taken[jsondoc.FoldKey(name)] = true
	d.SetKey(n, name)
}

// nameSet is what runName knows of one object's names.
type nameSet struct {
	taken map[string]bool // folded
	next  map[string]int  // the next number to try after each new name
}

// minDetectedNumber is the shortest JSON number a built-in detector can
// find anything in (a 13-digit card number).
const minDetectedNumber = 13

// inlineBase64 reports whether string node n is a whole data: URI with
// base64 data (data:text/plain;base64,…): what it says is in its base64.
func inlineBase64(d *jsondoc.Doc, n int32) bool {
	raw, ok := d.StrRaw(n)
	if !ok {
		s, _ := d.Str(n)
		return strings.HasPrefix(s, "data:") && strings.Contains(s, ";base64,")
	}
	return bytes.HasPrefix(raw, []byte("data:")) && bytes.Contains(raw, []byte(";base64,"))
}

// dataURINode runs the string steps of mask over the text the base64 of
// data: URI n carries, as a result's binary items are read
// (binarytext.go). It reports whether the URI carries base64 (text it
// read, or bytes such as an image's); false when what follows ;base64,
// is not base64, which no reader decodes and every reader reads as it is.
func (e *Engine) dataURINode(sg *stepRun, d *jsondoc.Doc, n int32, mask uint64, run *Run) bool {
	s, _ := d.Str(n)
	i := strings.Index(s, ";base64,") + len(";base64,")
	head, payload := s[:i], s[i:]
	out, isText := e.base64Steps(sg, payload, mask, false, run)
	if out != payload && !run.Blocked {
		d.SetString(n, head+out)
	}
	return isText || base64Form(payload)
}

// base64Form reports whether s holds only characters of the base64
// alphabets, padding and line breaks.
func base64Form(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9',
			c == '+', c == '/', c == '-', c == '_', c == '=', c == '\r', c == '\n':
		default:
			return false
		}
	}
	return true
}

// mayChange reports whether the steps of a run that mask selects could
// change or find anything in raw, the bytes of a string written without
// escapes. Most strings of a message hold nothing: they are looked at in
// place, and only the others copied and run (runString).
func (e *Engine) mayChange(sg *stepRun, raw []byte, mask uint64, run *Run) bool {
	if len(raw) == 0 {
		return false
	}
	// A view, only for the duration of the scans: detectors keep offsets,
	// never the text.
	view := unsafe.String(&raw[0], len(raw))
	scans := false
	for i, st := range sg.steps {
		if mask&(1<<i) == 0 {
			continue
		}
		switch {
		case st.kind == stepTruncate:
			if len(raw) > st.maxChars {
				return true
			}
		case st.detecting():
			scans = scans || st.scan
		default:
			return true
		}
	}
	// One pass for all the run's scanning steps.
	return scans && !e.detectors.SurelyClean(raw) && len(e.detect(view, &sg.anyScan, sg.anyScanID, run)) > 0
}

// project applies a project step: exclude removes what its paths reach;
// include keeps only what its paths reach (and the containers on the way).
// The root itself stays, possibly empty.
// unprojectable replaces a text that looks like JSON, fails the strict
// parse and meets a project step.
const unprojectable = "[withheld by privacy policy: JSON that cannot be parsed unambiguously]"

func project(d *jsondoc.Doc, root int32, include, exclude fieldpath.Paths) {
	if len(exclude) > 0 {
		drop := exclude.Nodes(d, root)
		if drop[root] {
			clearContainer(d, root)
		} else {
			for n := range drop {
				d.Delete(n)
			}
		}
	}
	if len(include) > 0 {
		keep := include.Nodes(d, root)
		if !keep[root] {
			prune(d, root, keep)
		}
	}
}

func clearContainer(d *jsondoc.Doc, n int32) {
	for c := d.First(n); c != jsondoc.None; c = d.Next(c) {
		d.Delete(c)
	}
}

// prune deletes the children of n that hold nothing kept, and reports
// whether n holds something kept.
func prune(d *jsondoc.Doc, n int32, keep map[int32]bool) bool {
	if keep[n] {
		return true
	}
	k := d.Kind(n)
	if k != jsondoc.Object && k != jsondoc.Array {
		return false
	}
	kept := false
	for c := d.First(n); c != jsondoc.None; c = d.Next(c) {
		if prune(d, c, keep) {
			kept = true
		} else {
			d.Delete(c)
		}
	}
	return kept
}

// dropBinary turns a binary item into a short text note (drop_binary).
func dropBinary(d *jsondoc.Doc, t *target, note string) {
	text := jsondoc.Quote(placeholderType(note, t.bin))
	item := t.node
	if t.binContent {
		// A content item becomes a text content item.
		for c := d.First(item); c != jsondoc.None; c = d.Next(c) {
			switch d.Key(c) {
			case "type":
				d.SetRaw(c, []byte(`"text"`))
			case "annotations", "_meta":
			default:
				d.Delete(c)
			}
		}
		d.Append(item, "text", []byte(text))
		t.kind, t.node = plainText, jsondoc.None // nothing left for later steps
		return
	}
	// A resources/read entry keeps its uri; its blob becomes text (an
	// entry that also has a text, which MCP does not allow, keeps that).
	hasText := false
	for c := d.First(item); c != jsondoc.None; c = d.Next(c) {
		switch d.Key(c) {
		case "blob":
			d.Delete(c)
		case "mimeType":
			d.SetRaw(c, []byte(`"text/plain"`))
		case "text":
			hasText = true
		}
	}
	if !hasText {
		deleteFolded(d, item, "text")
		d.Append(item, "text", []byte(text))
	}
	t.kind, t.node = plainText, jsondoc.None
}

// collect finds the targets of a payload.
func collect(d *jsondoc.Doc, n int32, kind Payload, ts []target) []target {
	switch kind {
	case Text:
		if d.Kind(n) == jsondoc.String {
			ts = append(ts, target{kind: plainText, node: n})
		}
		return ts
	case ErrorObject:
		if m := d.Get(n, "message"); d.Kind(m) == jsondoc.String {
			ts = append(ts, target{kind: plainText, node: m})
		} else if m != jsondoc.None {
			ts = structure(d, m, ts, false) // no string (on_parse_error: pass): data
		}
		if x := d.Get(n, "data"); x != jsondoc.None {
			ts = structure(d, x, ts, false)
		}
	}
	if kind >= numPayloads {
		return ts
	}
	ps := payloadShapes[kind]
	if d.Kind(n) == jsondoc.String && !ps.separate {
		// A client's answer or server params that are a bare string.
		return append(ts, target{kind: plainText, node: n})
	}
	// Binary items are places of their own in server messages too (a
	// sampling request's image): drop_binary removes them, and the text
	// their base64 may carry is read (binarytext.go).
	ts = separateTargets(d, n, ps.root, !ps.separate, ts)
	return append(ts, target{kind: document, node: n, shape: ps.root, separate: ps.separate})
}

// separateTargets finds, under node n of shape sh in a result, the places
// that are targets of their own: content texts and embedded or read
// resource texts (JSON text parsed, projectable), structuredContent, and
// binary items for drop_binary. It descends only where the schema can
// lead to one.
func separateTargets(d *jsondoc.Doc, n int32, sh shape, binOnly bool, ts []target) []target {
	switch d.Kind(n) {
	case jsondoc.Array:
		for c := d.First(n); c != jsondoc.None; c = d.Next(c) {
			ts = separateTargets(d, c, sh, binOnly, ts)
		}
	case jsondoc.Object:
		sh = refine(d, n, sh)
		switch sh {
		case shContentBinary:
			typ, _ := d.Str(d.Get(n, "type"))
			ts = append(ts, target{kind: binaryItem, node: n, bin: typ, binContent: true})
		case shContentResource:
			if d.Kind(d.Path(n, "resource", "blob")) == jsondoc.String {
				ts = append(ts, target{kind: binaryItem, node: n, bin: "blob", binContent: true})
			}
		case shContents:
			if d.Kind(d.Get(n, "blob")) == jsondoc.String {
				ts = append(ts, target{kind: binaryItem, node: n, bin: "blob"})
			}
		}
		if !holdsSeparate[sh] {
			return ts
		}
		for c := d.First(n); c != jsondoc.None; c = d.Next(c) {
			switch csh := childOf(d, c, sh); {
			case csh == shSepText && !binOnly:
				if d.Kind(c) == jsondoc.String {
					ts = append(ts, target{kind: jsonText, node: c, projectable: true})
				}
			case csh == shSepStructured && !binOnly:
				ts = structure(d, c, ts, true)
			case holdsSeparate[csh]:
				ts = separateTargets(d, c, csh, binOnly, ts)
			}
		}
	}
	return ts
}

// structure is a JSON value carried as such (structuredContent, error
// data): a document, or a string that may hold JSON.
func structure(d *jsondoc.Doc, n int32, ts []target, projectable bool) []target {
	switch d.Kind(n) {
	case jsondoc.Object, jsondoc.Array:
		return append(ts, target{kind: document, node: n, shape: shData, projectable: projectable})
	case jsondoc.String:
		return append(ts, target{kind: jsonText, node: n, projectable: projectable})
	}
	return ts
}

// hasPseudonym reports whether raw JSON holds something shaped like a
// pseudonym.
func hasPseudonym(raw []byte) bool {
	return bytes.IndexByte(raw, '_') >= 0 && vault.MayHoldPseudonym(raw)
}

// looksLikeJSON is the cheap test before parsing a text as JSON: an object
// or array, possibly surrounded by white space.
func looksLikeJSON(s string) bool {
	// A byte order mark is not JSON, but readers that skip it see JSON.
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "\ufeff"))
	return len(s) >= 2 && (s[0] == '{' && s[len(s)-1] == '}' || s[0] == '[' && s[len(s)-1] == ']')
}

// annotate adds _meta["io.cloudg/privacy"] to the payload: the policy, the
// pipeline, detections per label and pseudonyms issued (manual 11). A value
// the server put there is replaced, so it cannot pose as the plugin's.
func (e *Engine) annotate(p *Pipeline, d *jsondoc.Doc, n int32, run *Run) {
	if d.Kind(n) != jsondoc.Object {
		return
	}
	b := []byte(`{"policy":`)
	b = jsondoc.AppendString(b, e.policy.Name)
	b = append(b, `,"transforms":`...)
	b = jsondoc.AppendStrings(b, p.ids)
	b = append(b, `,"detections":`...)
	b = jsondoc.AppendCounts(b, run.Detections)
	b = append(b, `,"pseudonyms":`...)
	b = strconv.AppendInt(b, int64(run.Pseudonyms), 10)
	b = append(b, '}')
	meta := d.Get(n, "_meta")
	switch d.Kind(meta) {
	case jsondoc.Object:
		if old := d.Get(meta, mcpvocab.MetaKey); old != jsondoc.None {
			d.Delete(old)
		}
		deleteFolded(d, meta, mcpvocab.MetaKey)
		d.Append(meta, mcpvocab.MetaKey, b)
	case jsondoc.Invalid:
		deleteFolded(d, n, "_meta")
		d.Append(n, "_meta", append(append([]byte(`{"`+mcpvocab.MetaKey+`":`), b...), '}'))
	default:
		d.SetRaw(meta, append(append([]byte(`{"`+mcpvocab.MetaKey+`":`), b...), '}'))
	}
}

// deleteFolded removes the members of object n whose key equals key under
// case folding but is not key: a member appended as key must not give the
// document two keys the strict parser (and clients) could confuse.
func deleteFolded(d *jsondoc.Doc, n int32, key string) {
	for c := d.First(n); c != jsondoc.None; c = d.Next(c) {
		if k := d.Key(c); k != key && strings.EqualFold(k, key) {
			d.Delete(c)
		}
	}
}
