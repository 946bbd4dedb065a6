package transforms

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

// Payload says what a JSON node is, so a pipeline knows which of its
// strings carry data (SPEC 8): the protocol's own fields (ids, types, URIs
// of listed items, cursors) are never rewritten.
type Payload uint8

const (
	// ToolResult is a tools/call result: content[] text, the text of
	// embedded resources, binary items, and structuredContent.
	ToolResult Payload = iota
	// ResourceContents is a resources/read result: contents[].text and blobs.
	ResourceContents
	// PromptResult is a prompts/get result: messages[].content.
	PromptResult
	// CompletionResult is a completion/complete result: completion.values[].
	CompletionResult
	// ErrorObject is the error member of an error response: message and data.
	ErrorObject
	// AnyStrings is every string under the node except protocol keys
	// (_meta, progressToken, …): server requests and notifications, client
	// responses to server requests.
	AnyStrings
	// Arguments is a JSON document of arguments (tools/call arguments,
	// prompt arguments): every string, with projection paths relative to it.
	Arguments
	// Text is one string node (a resource URI, a completion argument).
	Text
)

// protocolMember reports whether member c of object obj, in a structure
// walked as AnyStrings (server requests and notifications, client
// results), is protocol rather than user data and so left alone: rewriting
// it would break the protocol (a progress token the client no longer
// recognises; a truncate cutting a role, a content type or a MIME type).
// Only the envelope's own members (top: obj is the walk's root) and values
// of the protocol's vocabulary count; the same names deeper in data a
// server sends, such as a log message's {"id": "alice@example.com"}, are
// user data.
func protocolMember(d *jsondoc.Doc, obj, c int32, top bool) bool {
	switch d.Key(c) {
	case "_meta":
		return true
	case "progressToken", "requestId", "cursor", "nextCursor", "jsonrpc", "method", "id":
		return top
	case "role":
		return d.StrEquals(c, "user") || d.StrEquals(c, "assistant")
	case "type":
		s, ok := d.Str(c)
		return ok && protocolTypes[s]
	case "mimeType":
		s, ok := d.Str(c)
		return ok && mimeToken(s)
	case "blob":
		return d.Get(obj, "uri") != jsondoc.None // a resource's binary contents
	}
	return false
}

// protocolTypes are the values of "type" in MCP content blocks, references
// and the JSON Schemas of elicitation requests.
var protocolTypes = map[string]bool{
	"text": true, "image": true, "audio": true, "resource": true, "resource_link": true,
	"tool_use": true, "tool_result": true, "ref/prompt": true, "ref/resource": true,
	"object": true, "string": true, "number": true, "integer": true, "boolean": true, "array": true, "null": true,
}

// mimeToken reports whether s has the form of a MIME type (type/subtype
// in lower case, no spaces or parameters).
func mimeToken(s string) bool {
	slash := strings.IndexByte(s, '/')
	if slash <= 0 || slash == len(s)-1 || len(s) > 127 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i != slash && !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("!#$&^_.+-", c) >= 0) {
			return false
		}
	}
	return true
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
	// skipProtocol: a document target of AnyStrings.
	skipProtocol bool
	// projectable: structuredContent or JSON text of content, where
	// project acts (SPEC 11); not arguments, error data or server messages,
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
	ts := collect(doc, n, kind, nil)
	readTexts(doc, ts)
	for i := range p.runs {
		sg := &p.runs[i]
		joints := e.acrossItems(sg, doc, ts, run) // values split across text items (crossitem.go)
		for j := range ts {
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
			doc.SetString(t.node, string(t.sub.Bytes()))
		}
	}
	if annotate := p.annotates; annotate && kind <= CompletionResult || annotate && kind == AnyStrings {
		e.annotate(p, doc, n, run)
	}
	return doc.Changed()
}

// readTexts reads the text targets: text that is JSON is parsed, so paths
// and projections reach into it; text that looks like JSON but fails the
// strict parse is plain text marked unparsed.
func readTexts(doc *jsondoc.Doc, ts []target) {
	for i := range ts {
		t := &ts[i]
		if t.kind != plainText && t.kind != jsonText {
			continue
		}
		t.text, _ = doc.Str(t.node)
		if t.kind == jsonText {
			t.kind = plainText
			if looksLikeJSON(t.text) {
				if sub, err := jsondoc.Parse([]byte(t.text)); err == nil {
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
		if out := e.runString(sg, t.text, mask, run); out != t.text {
			t.text, t.changed = out, true
		}
	case jsonText:
		e.runDocument(sg, t.sub, jsondoc.Root, false, run)
	case document:
		e.runDocument(sg, doc, t.node, t.skipProtocol, run)
	case binaryItem:
		e.binaryText(sg, doc, t, run) // text carried as base64 (binarytext.go)
	}
}

// runDocument runs a run of string steps over the strings of a JSON
// structure in one walk: each string gets, in order, the steps whose
// fields reach it and whose exclude_fields do not.
func (e *Engine) runDocument(sg *stepRun, d *jsondoc.Doc, root int32, skipProtocol bool, run *Run) {
	var in, out []map[int32]bool
	if sg.scoped {
		in, out = make([]map[int32]bool, len(sg.steps)), make([]map[int32]bool, len(sg.steps))
		for i, st := range sg.steps {
			if len(st.fields) > 0 {
				in[i] = st.fields.Nodes(d, root)
			}
			if len(st.exclude) > 0 {
				out[i] = st.exclude.Nodes(d, root)
			}
		}
	}
	var visit func(n int32, reached, excluded uint64)
	visit = func(n int32, reached, excluded uint64) {
		if sg.scoped {
			for i := range sg.steps {
				if out[i][n] {
					excluded |= 1 << i
				}
				if in[i][n] {
					reached |= 1 << i
				}
			}
		}
		switch d.Kind(n) {
		case jsondoc.String:
			if mask := reached &^ excluded; mask != 0 {
				s, _ := d.Str(n)
				if r := e.runString(sg, s, mask, run); r != s {
					d.SetString(n, r)
				}
			}
		case jsondoc.Object:
			binary := skipProtocol && isBinaryContent(d, n)
			for c := d.First(n); c != jsondoc.None && !run.Blocked; c = d.Next(c) {
				if skipProtocol && protocolMember(d, n, c, n == root) || binary && d.Key(c) == "data" {
					continue
				}
				visit(c, reached, excluded)
			}
		case jsondoc.Array:
			for c := d.First(n); c != jsondoc.None && !run.Blocked; c = d.Next(c) {
				visit(c, reached, excluded)
			}
		}
	}
	visit(root, ^sg.fieldMask, 0)
}

// project applies a project step: exclude removes what its paths reach;
// include keeps only what its paths reach (and the containers on the way).
// The root itself stays, possibly empty.
// unprojectable replaces a text that looks like JSON, fails the strict
// parse and meets a project step.
const unprojectable = "[withheld by privacy policy: JSON that cannot be parsed unambiguously]"

func project(d *jsondoc.Doc, root int32, include, exclude Paths) {
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
	case ToolResult:
		for it := d.First(d.Get(n, "content")); it != jsondoc.None; it = d.Next(it) {
			ts = contentTargets(d, it, ts)
		}
		if sc := d.Get(n, "structuredContent"); sc != jsondoc.None {
			ts = structure(d, sc, ts, true)
		}
	case ResourceContents:
		for it := d.First(d.Get(n, "contents")); it != jsondoc.None; it = d.Next(it) {
			if x := d.Get(it, "text"); d.Kind(x) == jsondoc.String {
				ts = append(ts, target{kind: jsonText, node: x, projectable: true})
			}
			if d.Kind(d.Get(it, "blob")) == jsondoc.String {
				ts = append(ts, target{kind: binaryItem, node: it, bin: "blob"})
			}
		}
	case PromptResult:
		for m := d.First(d.Get(n, "messages")); m != jsondoc.None; m = d.Next(m) {
			c := d.Get(m, "content")
			if d.Kind(c) == jsondoc.Array {
				for it := d.First(c); it != jsondoc.None; it = d.Next(it) {
					ts = contentTargets(d, it, ts)
				}
			} else {
				ts = contentTargets(d, c, ts)
			}
		}
	case CompletionResult:
		for v := d.First(d.Path(n, "completion", "values")); v != jsondoc.None; v = d.Next(v) {
			if d.Kind(v) == jsondoc.String {
				ts = append(ts, target{kind: plainText, node: v})
			}
		}
	case ErrorObject:
		if m := d.Get(n, "message"); d.Kind(m) == jsondoc.String {
			ts = append(ts, target{kind: plainText, node: m})
		}
		if x := d.Get(n, "data"); x != jsondoc.None {
			ts = structure(d, x, ts, false)
		}
	case AnyStrings:
		if d.Kind(n) == jsondoc.String {
			ts = append(ts, target{kind: plainText, node: n})
		} else {
			ts = append(ts, target{kind: document, node: n, skipProtocol: true})
		}
	case Arguments:
		ts = append(ts, target{kind: document, node: n})
	case Text:
		if d.Kind(n) == jsondoc.String {
			ts = append(ts, target{kind: plainText, node: n})
		}
	}
	return ts
}

// structure is a JSON value carried as such (structuredContent, error
// data): a document, or a string that may hold JSON.
func structure(d *jsondoc.Doc, n int32, ts []target, projectable bool) []target {
	switch d.Kind(n) {
	case jsondoc.Object, jsondoc.Array:
		return append(ts, target{kind: document, node: n, projectable: projectable})
	case jsondoc.String:
		return append(ts, target{kind: jsonText, node: n, projectable: projectable})
	}
	return ts
}

// contentTargets reads one MCP content item: text, an embedded resource's
// text or blob, an image or audio item. Resource links name a resource and
// carry no content.
func contentTargets(d *jsondoc.Doc, it int32, ts []target) []target {
	typ := d.Get(it, "type")
	switch {
	case d.StrEquals(typ, "text"):
		if x := d.Get(it, "text"); d.Kind(x) == jsondoc.String {
			ts = append(ts, target{kind: jsonText, node: x, projectable: true})
		}
	case d.StrEquals(typ, "resource"):
		r := d.Get(it, "resource")
		if x := d.Get(r, "text"); d.Kind(x) == jsondoc.String {
			ts = append(ts, target{kind: jsonText, node: x, projectable: true})
		}
		if d.Kind(d.Get(r, "blob")) == jsondoc.String {
			ts = append(ts, target{kind: binaryItem, node: it, bin: "blob", binContent: true})
		}
	case d.StrEquals(typ, "image"), d.StrEquals(typ, "audio"):
		name, _ := d.Str(typ)
		ts = append(ts, target{kind: binaryItem, node: it, bin: name, binContent: true})
	}
	return ts
}

// hasPseudonym reports whether raw JSON holds something shaped like a
// pseudonym.
func hasPseudonym(raw []byte) bool {
	return bytes.IndexByte(raw, '_') >= 0 && MayHoldPseudonym(raw) // pseudonym.go
}

// isBinaryContent reports whether object n is an image or audio content
// item, whose data is base64, not text.
func isBinaryContent(d *jsondoc.Doc, n int32) bool {
	t := d.Get(n, "type")
	return d.StrEquals(t, "image") || d.StrEquals(t, "audio")
}

// looksLikeJSON is the cheap test before parsing a text as JSON: an object
// or array, possibly surrounded by white space.
func looksLikeJSON(s string) bool {
	// A byte order mark is not JSON, but readers that skip it see JSON.
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "\ufeff"))
	return len(s) >= 2 && (s[0] == '{' && s[len(s)-1] == '}' || s[0] == '[' && s[len(s)-1] == ']')
}

// annotate adds _meta["io.cloudg/privacy"] to the payload: the policy, the
// pipeline, detections per label and pseudonyms issued (SPEC 11). A value
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
		if old := d.Get(meta, MetaKey); old != jsondoc.None {
			d.Delete(old)
		}
		deleteFolded(d, meta, MetaKey)
		d.Append(meta, MetaKey, b)
	case jsondoc.Invalid:
		deleteFolded(d, n, "_meta")
		d.Append(n, "_meta", append(append([]byte(`{"`+MetaKey+`":`), b...), '}'))
	default:
		d.SetRaw(meta, append(append([]byte(`{"`+MetaKey+`":`), b...), '}'))
	}
}

// MetaKey is the _meta key of the plugin's annotations (and of the
// metadata servers declare, SPEC 4).
const MetaKey = "io.cloudg/privacy"

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
