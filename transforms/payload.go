package transforms

import (
	"bytes"
	"sort"
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
	// mirrorText: a string node whose text is, byte for byte, the JSON
	// of a place of data of the same payload (mirror): a tool result's
	// content text written as the JSON of its structuredContent, as
	// go-sdk servers write it. The steps run over that place alone, each
	// detection counted for both; the text becomes its result.
	mirrorText
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
	// mirror is the index (in the payload's targets) of what a mirrorText
	// repeats, or of where a jsonText's twins are (shares).
	mirror int
	// shares are the subtrees of a place of data that another repeats
	// byte for byte (twins, pairTwins), in node order: a jsonText's
	// twins, which its walk leaves to their sources; a document's
	// sources, whose counts count for their twins too (a mirrorText's
	// source is the document's root).
	shares []share
}

// share is a subtree of a place of data that another place repeats
// byte for byte: in a JSON text, a twin (src is its source, in the
// message); in the message, a source (twins: how many twins it has).
type share struct {
	node, src int32
	twins     int
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
	var docs *[]*jsondoc.Doc
	if run.sc != nil {
		docs = &run.sc.docs
	}
	readTexts(doc, ts, docs, p.mirrorable && !e.noMirror)
	twinned := p.mirrorable && !e.noMirror && pairTexts(doc, ts, sc)
	lastData := lastDataTarget(ts)
	memoOK := sc != nil && !e.noMemo && !p.noMemo
	// Protocol text alone (no place of data, whose scans the memo keeps
	// when they repeat, and whose strings are mostly not clean).
	textMemo := memoOK && lastData < 0 && longText(doc, ts)
	if memoOK && !twinned && repeatsData(ts) || textMemo {
		if sc.memo.slots == nil {
			sc.memo.slots = make([]memoEntry, memoSlots)
		}
		sc.memo.on, sc.memo.text = true, textMemo
	}
	for i := range p.runs {
		sg := &p.runs[i]
		joints := e.acrossItems(sg, doc, ts, run) // values split across text items (crossitem.go)
		for j := range ts {
			t := &ts[j]
			if t.kind == mirrorText {
				continue // its place runs for it
			}
			if sc != nil && sc.memo.on {
				sc.memo.adding = j < lastData || textMemo
			}
			e.applySegment(sg, doc, t, run)
			if run.Blocked {
				return false
			}
		}
		joints.rejoin()
	}
	if twinned {
		writeTwins(doc, ts)
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
		case t.kind == mirrorText && doc.Edited(ts[t.mirror].node):
			// The text is what its structure became, written as Bytes
			// writes a document, into a buffer of its own.
			raw := doc.Raw(ts[t.mirror].node)
			doc.SetString(t.node, bytesView(doc.AppendValue(make([]byte, 0, len(raw)+len(raw)/8), ts[t.mirror].node)))
		}
		if t.kind == jsonText {
			// Nothing reads the JSON text's nodes after this (its strings
			// are copies or views of the text, not of the nodes): the
			// next parse takes the array, and the next JSON text the Doc.
			t.sub.Release()
			if docs != nil {
				*docs = append(*docs, t.sub)
			}
			t.sub = nil
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

// longText reports whether ts holds a document of protocol text long
// enough for its strings to repeat (a list's items: the same parameter
// descriptions in tool after tool), whose scans are then memoised too,
// the clean ones included (Engine.detect).
func longText(d *jsondoc.Doc, ts []target) bool {
	for i := range ts {
		if t := &ts[i]; t.kind == document && t.shape != shData && len(d.Raw(t.node)) >= minMemoText {
			return true
		}
	}
	return false
}

// minMemoText is the size from which a document of protocol text has its
// scans memoised (longText): some twenty tools of a list.
const minMemoText = 4 << 10

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
// strict parse is plain text marked unparsed. A text is parsed into a Doc
// taken from docs when it has one (a scratch's, given back released by
// Apply), else a new one: in the VM an allocation costs about a
// microsecond, more than parsing a short text. With mirror, a JSON text
// that is byte for byte the JSON of a place of data becomes its
// mirrorText, neither decoded nor parsed.
func readTexts(doc *jsondoc.Doc, ts []target, docs *[]*jsondoc.Doc, mirror bool) {
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
		if t.kind == jsonText && mirror {
			if m := mirrorOf(doc, ts, t.text); m >= 0 {
				t.kind, t.mirror = mirrorText, m
				continue
			}
		}
		if t.kind == jsonText {
			t.kind = plainText
			if looksLikeJSON(t.text) {
				// Strings are never written to, and jsondoc never writes
				// to its source: the text's own bytes can be parsed.
				var sub *jsondoc.Doc
				if docs != nil && len(*docs) > 0 {
					sub = (*docs)[len(*docs)-1]
					*docs = (*docs)[:len(*docs)-1]
				} else {
					sub = new(jsondoc.Doc)
				}
				if err := jsondoc.ParseInto(sub, unsafe.Slice(unsafe.StringData(t.text), len(t.text))); err == nil {
					t.kind, t.sub = jsonText, sub
				} else {
					t.unparsed = true
					if docs != nil {
						*docs = append(*docs, sub) // left empty by ParseInto
					}
				}
			}
		}
	}
}

// mirrorOf is the index of the place of data in ts whose JSON is text,
// byte for byte (-1: none). Such a place is walked as the JSON text would
// be (as data, from its root), so every step does to it what it would do
// to the text, and its JSON, written out, is the text's result. A text
// of another length costs one comparison.
func mirrorOf(doc *jsondoc.Doc, ts []target, text string) int {
	for i := range ts {
		if t := &ts[i]; t.kind == document && t.shape == shData && !t.separate && text == bytesView(doc.Raw(t.node)) {
			return i
		}
	}
	return -1
}

// pairTexts pairs each JSON text of ts with the first place of data of
// the message of its kind (object or array): the subtrees they repeat
// byte for byte, member by member and element by element (pairTwins), are
// walked once, in the message, and written into the text afterwards
// (writeTwins). Like mirrorText, for a result whose text is the JSON of
// its structuredContent but for a few values; a mirrorText's source is
// the whole place. It reports whether anything is shared. sc, when not
// nil, lends its buffer.
func pairTexts(doc *jsondoc.Doc, ts []target, sc *scratch) bool {
	var buf []share
	if sc != nil {
		buf = sc.shares[:0]
	}
	paired := false
	for i := range ts {
		t := &ts[i]
		paired = paired || t.kind == mirrorText
		if t.kind != jsonText {
			continue
		}
		for j := range ts {
			o := &ts[j]
			if o.kind != document || o.shape != shData || o.separate || doc.Kind(o.node) != t.sub.Kind(jsondoc.Root) {
				continue
			}
			from := len(buf)
			buf = pairTwins(doc, o.node, t.sub, jsondoc.Root, buf)
			t.shares, t.mirror = buf[from:len(buf):len(buf)], j
			paired = paired || len(t.shares) > 0
			break
		}
	}
	if !paired {
		if sc != nil {
			sc.shares = buf[:0]
		}
		return false
	}
	// The sources, per document: each twin's source, in node order, once.
	for j := range ts {
		o := &ts[j]
		if o.kind != document {
			continue
		}
		from := len(buf)
		for i := range ts {
			switch t := &ts[i]; {
			case t.mirror != j:
			case t.kind == mirrorText:
				buf = append(buf, share{node: o.node, twins: 1})
			case t.kind == jsonText:
				for _, tw := range t.shares {
					buf = append(buf, share{node: tw.src, twins: 1})
				}
			}
		}
		if len(buf) == from {
			continue
		}
		srcs := buf[from:]
		for k := 1; k < len(srcs); k++ {
			if srcs[k].node < srcs[k-1].node {
				// Twins of several texts (one text's are in order).
				sort.Slice(srcs, func(a, b int) bool { return srcs[a].node < srcs[b].node })
				break
			}
		}
		k := 0
		for _, x := range srcs {
			if k > 0 && srcs[k-1].node == x.node {
				srcs[k-1].twins++
				continue
			}
			srcs[k] = x
			k++
		}
		buf = buf[:from+k]
		o.shares = buf[from:len(buf):len(buf)]
	}
	if sc != nil {
		sc.shares = buf[:0]
	}
	return true
}

// pairTwins appends the subtrees of b (in sub) whose JSON is byte for
// byte that of the subtree at the same place under a (in doc): b itself,
// else, in objects, the members of the same name at the same position,
// in arrays the elements at the same index, and so on down. Position, not
// search: the two are written by one encoder, and a search per member
// would make pairing two large objects quadratic. Before any step runs:
// the bytes are the message's.
func pairTwins(doc *jsondoc.Doc, a int32, sub *jsondoc.Doc, b int32, pairs []share) []share {
	if bytesView(doc.Raw(a)) == bytesView(sub.Raw(b)) {
		return append(pairs, share{node: b, src: a})
	}
	switch k := doc.Kind(a); {
	case k != sub.Kind(b):
	case k == jsondoc.Object:
		ca := doc.First(a)
		for cb := sub.First(b); cb != jsondoc.None && ca != jsondoc.None; cb = sub.Next(cb) {
			ka, plainA := doc.KeyRaw(ca)
			kb, plainB := sub.KeyRaw(cb)
			if plainA && plainB && bytesView(ka) == bytesView(kb) || (!plainA || !plainB) && doc.Key(ca) == sub.Key(cb) {
				pairs = pairTwins(doc, ca, sub, cb, pairs)
			}
			ca = doc.Next(ca)
		}
	case k == jsondoc.Array:
		ca := doc.First(a)
		for cb := sub.First(b); cb != jsondoc.None && ca != jsondoc.None; cb = sub.Next(cb) {
			pairs = pairTwins(doc, ca, sub, cb, pairs)
			ca = doc.Next(ca)
		}
	}
	return pairs
}

// writeTwins writes into each JSON text the twins whose sources the steps
// changed, as the sources now are: one buffer for them all (a view of
// what is written stays valid when the buffer grows into a new array).
func writeTwins(doc *jsondoc.Doc, ts []target) {
	var buf []byte
	for i := range ts {
		t := &ts[i]
		if t.kind != jsonText {
			continue
		}
		for _, tw := range t.shares {
			if !doc.Edited(tw.src) {
				continue
			}
			if buf == nil {
				buf = make([]byte, 0, len(doc.Raw(tw.src))*2+64)
			}
			start := len(buf)
			buf = doc.AppendValue(buf, tw.src)
			t.sub.SetRaw(tw.node, buf[start:len(buf):len(buf)])
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
		e.runDocument(sg, t.sub, jsondoc.Root, shData, false, t.shares, run)
	case document:
		e.runDocument(sg, doc, t.node, t.shape, t.separate, t.shares, run)
	case binaryItem:
		e.binaryText(sg, doc, t, run) // text carried as base64 (binarytext.go)
	}
}

// unprojectable replaces a text that looks like JSON, fails the strict
// parse and meets a project step.
const unprojectable = "[withheld by privacy policy: JSON that cannot be parsed unambiguously]"

// project applies a project step: exclude removes what its paths reach;
// include keeps only what its paths reach (and the containers on the way).
// The root itself stays, possibly empty.
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
// data): a document, a string that may hold JSON, or a number (read as
// numbers are, numberReadings).
func structure(d *jsondoc.Doc, n int32, ts []target, projectable bool) []target {
	switch d.Kind(n) {
	case jsondoc.Object, jsondoc.Array, jsondoc.Number:
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
