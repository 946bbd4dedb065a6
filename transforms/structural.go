package transforms

import (
	"bytes"
	"maps"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

// The structural table: what the MCP schema (schema.ts of revisions
// 2025-06-18, 2025-11-25 and 2026-07-28, and the tasks extension) says
// each member of a message is. A member one revision adds is structural in
// every revision's messages: what it holds is a protocol value wherever it
// appears, and a server of an older revision has no reason to send it. The output
// and input pipelines transform every string a client may show or pass to
// a model; a string is left alone only where this table says the schema
// puts a protocol value there (an id, a method, a cursor, a URI the policy
// judges, a name a later call must repeat, an enum value, base64 data).
// Everything the table does not name is data, including members no
// revision defines. docs/MCP_PRIVACY.md 10.7 lists the same table.
//
// Two rules hold throughout:
//   - a structural position holds a scalar: an object found there is data
//     (its strings are transformed), and an array is read element by
//     element with the same meaning (required: [names]);
//   - a value of an enumeration (a content type, a role, a log level, ...)
//     is structural only when it is one the schema allows: anything else
//     there is text like any other.

// shape is what the schema says a node is.
type shape uint8

const (
	shData shape = iota // data: every string under it is text
	// shOwn is covered by another target of the payload (a content text,
	// structuredContent, error.message and error.data, and the params,
	// result and error of the envelope): skipped here.
	shOwn
	shEnvID  // the envelope's jsonrpc, id and method: what the message is and answers
	shID     // an identifier or protocol value: read only for what the detectors find
	shBinary // base64 (image and audio data, a resource blob): only drop_binary reads it
	shIconSrc
	shSepText       // a content item's text: its own target (JSON text parsed) in results
	shSepStructured // structuredContent: its own document in results
	// shOpaque is an InputRequiredResult's requestState: server state the
	// client must echo exactly and must not read (2026-07-28, MRTR); a
	// string there is never read, anything else is data.
	shOpaque
	// Parts of a result that a pipeline of their own reads when they are
	// objects (Parts): skipped by the result's walk; anything else there
	// is data.
	shPartInputRequests // inputRequests: server requests, the server-request pipeline
	shPartTaskResult    // a tasks/get result's result: the creating request's result
	shPartTaskError     // a tasks/get result's error: an error object

	// Enumerations: structural when the value is one the schema allows.
	shContentType // "text", "image", ... (the item's shape follows from it)
	shRole
	shMime
	shLevel
	shTaskStatus
	shProtocolVersion
	shSchemaType
	shTheme
	shIncludeContext
	shToolChoiceMode
	shElicitMode
	shElicitAction
	shStopReason
	shTaskSupport
	shResultType
	shCacheScope
	shInputMethod

	// Objects.
	shEnvelope // refined to one of the four below
	shEnvRequest
	shEnvResult
	shEnvError
	shEnvOther
	shError
	shMeta
	shMetaRequest
	shRelatedTask
	shResultAny
	shResultInit
	shResultList
	shResultCall
	shResultRead
	shResultPrompt
	shResultComplete
	shResultTask
	shResultEmpty
	shResultDiscover
	shClientResult
	shParams
	shParamsRequest
	shParamsProgress
	shParamsCancelled
	shParamsLog
	shParamsUpdated
	shParamsTaskStatus
	shParamsElicitDone
	shParamsTaskID
	shParamsList
	shParamsSampling
	shParamsElicit
	shParamsSubscriptions
	shSubscriptionFilter
	shInputRequests  // an object of server requests by key (every member an shInputRequest)
	shInputRequest   // {method, params}
	shInputParams    // its params, refined by its method
	shInputResponses // an object of client results by key (every member an shClientResult)
	shImplementation
	shIcon
	shTool
	shToolAnnotations
	shToolExecution
	shResource
	shTemplate
	shPrompt
	shPromptArg
	shAnnotations
	shContent // a content block, refined by its type
	shContentText
	shContentBinary
	shContentResource
	shContentLink
	shToolUse
	shToolResult
	shContents // a resources/read entry
	shEmbedded // an embedded resource's contents
	shPromptMessage
	shSamplingMessage
	shCompletion
	shModelPrefs
	shModelHint
	shToolChoice
	shTask
	shRoot
	shSchema    // a JSON Schema
	shSchemaMap // an object of JSON Schemas by name (properties, $defs, ...)
	numShapes
)

// members maps each object shape to its members' shapes; a member not
// named is data (shSchemaMap: a schema).
var members [numShapes]map[string]shape

// memberIndex is the table of members as a hash table per shape with a
// hash cheap enough to run on every member of a list: a name's length and
// first and last bytes pick one of 64 buckets, mostly empty (a member the
// table does not know, such as description, is ruled out by the empty
// bucket) or holding the one name to compare.
var memberIndex [numShapes]*memberTable

type memberTable [64][]member

type member struct {
	key string
	sh  shape
}

func bucket[K string | []byte](k K) uint {
	return (uint(len(k))*7 + uint(k[0])*3 + uint(k[len(k)-1])) & 63
}

// shapeOf is the shape of member c in an object of the table's shape:
// what the table says, else data.
func (t *memberTable) shapeOf(d *jsondoc.Doc, c int32) shape {
	if raw, ok := d.KeyRaw(c); ok {
		if len(raw) > 0 {
			for _, m := range t[bucket(raw)] {
				if len(raw) == len(m.key) && jsondoc.SameBytes(raw, m.key) {
					return m.sh
				}
			}
		}
		return shData
	}
	k := d.Key(c) // an escaped name, read decoded
	if len(k) > 0 {
		for _, m := range t[bucket(k)] {
			if k == m.key {
				return m.sh
			}
		}
	}
	return shData
}

// tokens are the values of each enumeration the schema defines (a few
// each: a scan is cheaper than a hash).
var tokens [numShapes][]string

// holdsSeparate: shapes under which a result may hold targets of their
// own (content texts, structuredContent, binary items).
var holdsSeparate [numShapes]bool

func set(values ...string) []string { return values }

// ms is the member table of the space-separated keys, each of the shape
// at its place in shapes: written as map literals, each entry cost the
// .wasm a map assignment's code.
func ms(keys string, shapes ...shape) map[string]shape {
	ks := strings.Fields(keys)
	if len(ks) != len(shapes) {
		panic("transforms: member table " + keys + ": keys and shapes differ in number")
	}
	m := make(map[string]shape, len(shapes))
	for i, k := range ks {
		m[k] = shapes[i]
	}
	return m
}

// group is the member table of the space-separated keys, all of shape sh.
func group(sh shape, keys string) map[string]shape {
	m := map[string]shape{}
	for _, k := range strings.Fields(keys) {
		m[k] = sh
	}
	return m
}

// with returns a copy of base with more members.
func with(base map[string]shape, kv map[string]shape) map[string]shape {
	m := maps.Clone(base)
	maps.Copy(m, kv)
	return m
}

func init() {
	tokens[shContentType] = set("text", "image", "audio", "resource", "resource_link", "tool_use", "tool_result")
	tokens[shRole] = set("user", "assistant")
	tokens[shLevel] = set("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
	tokens[shTaskStatus] = set("working", "input_required", "completed", "failed", "cancelled")
	tokens[shSchemaType] = set("object", "string", "number", "integer", "boolean", "array", "null")
	tokens[shTheme] = set("light", "dark")
	tokens[shIncludeContext] = set("none", "thisServer", "allServers")
	tokens[shToolChoiceMode] = set("auto", "required", "none")
	tokens[shElicitMode] = set("form", "url")
	tokens[shElicitAction] = set("accept", "decline", "cancel")
	tokens[shStopReason] = set("endTurn", "stopSequence", "maxTokens", "toolUse")
	tokens[shTaskSupport] = set("forbidden", "optional", "required")
	tokens[shResultType] = set("complete", "input_required", "task") // "task": the tasks extension
	tokens[shCacheScope] = set("public", "private")
	tokens[shInputMethod] = set("elicitation/create", "sampling/createMessage", "roots/list")

	meta := ms("_meta", shMeta)
	// The envelope: what the plugin runs a payload over (the params of a
	// request or notification, an error object, else a result object) is
	// its own target; any other member is data, even one named params or
	// result in a message that is not what the name says.
	env := ms("jsonrpc id method", shEnvID, shEnvID, shEnvID)
	members[shEnvelope] = env
	members[shEnvRequest] = with(env, ms("params", shOwn))
	members[shEnvResult] = with(env, ms("result", shOwn))
	members[shEnvError] = with(env, ms("error", shOwn))
	members[shEnvOther] = env
	members[shError] = ms("code message data", shID, shOwn, shOwn)
	// _meta: data, but for the keys the protocol reserves for its values
	// (2026-07-28: the subscription a notification or a listen result
	// belongs to, the server's identity on a result; on requests, the
	// revision, the client's identity and the log level).
	members[shMeta] = ms("io.modelcontextprotocol/related-task io.modelcontextprotocol/subscriptionId io.modelcontextprotocol/serverInfo", shRelatedTask, shID, shImplementation)
	members[shMetaRequest] = with(members[shMeta], ms("progressToken io.modelcontextprotocol/protocolVersion io.modelcontextprotocol/clientInfo io.modelcontextprotocol/logLevel", shID, shProtocolVersion, shImplementation, shLevel)) // clientCapabilities: data
	members[shRelatedTask] = ms("taskId", shID)

	icons := ms("icons", shIcon)
	members[shIcon] = ms("src mimeType theme", shIconSrc, shMime, shTheme)
	members[shImplementation] = icons // name, title, version, description, websiteUrl: text
	members[shAnnotations] = ms("audience", shRole)
	// Names the policy judges, and that a later call must repeat exactly.
	members[shTool] = with(with(meta, icons), ms("name inputSchema outputSchema execution annotations", shID, shSchema, shSchema, shToolExecution, shToolAnnotations))
	members[shToolAnnotations] = nil // title: text; the hints are booleans
	members[shToolExecution] = ms("taskSupport", shTaskSupport)
	members[shResource] = with(with(meta, icons), ms("uri mimeType annotations", shID, shMime, shAnnotations))
	members[shTemplate] = with(with(meta, icons), ms("uriTemplate mimeType annotations", shID, shMime, shAnnotations))
	members[shPrompt] = with(with(meta, icons), ms("name arguments", shID, shPromptArg))
	members[shPromptArg] = ms("name", shID) // filled in by name in prompts/get

	item := with(meta, ms("type annotations", shContentType, shAnnotations))
	members[shContentText] = with(item, ms("text", shSepText))
	members[shContentBinary] = with(item, ms("data mimeType", shBinary, shMime))
	members[shContentResource] = with(item, ms("resource", shEmbedded))
	members[shContentLink] = with(members[shResource], ms("type", shContentType))
	members[shToolUse] = with(meta, ms("type id name", shContentType, shID, shID))
	members[shToolResult] = with(meta, ms("type toolUseId content structuredContent", shContentType, shID, shContent, shSepStructured))
	members[shContents] = with(meta, ms("uri mimeType text blob", shID, shMime, shSepText, shBinary))
	members[shEmbedded] = members[shContents]
	members[shPromptMessage] = ms("role content", shRole, shContent)
	members[shSamplingMessage] = with(meta, ms("role content", shRole, shContent))
	members[shCompletion] = nil // values: text
	members[shModelPrefs] = ms("hints", shModelHint)
	members[shModelHint] = nil // name: text (a model name hint)
	members[shToolChoice] = ms("mode", shToolChoiceMode)
	members[shTask] = ms("taskId status", shID, shTaskStatus) // statusMessage, times: text
	members[shRoot] = with(meta, ms("uri", shID))

	// JSON Schema (inputSchema, outputSchema, requestedSchema): keywords
	// that validate are structural; description, title, $comment,
	// examples, default, const, enum and enumNames are text a model reads
	// (and const/enum values are what it is told to send), so they are data.
	members[shSchema] = with(with(with(ms("type contentMediaType", shSchemaType, shMime),
		group(shID, "format pattern required $ref $schema $id $anchor $dynamicRef $dynamicAnchor contentEncoding")),
		group(shSchemaMap, "properties patternProperties $defs definitions dependentSchemas")),
		group(shSchema, "items additionalProperties not if then else contains propertyNames unevaluatedItems unevaluatedProperties additionalItems allOf anyOf oneOf prefixItems"))
	members[shSchemaMap] = nil // every member is a schema

	// Results, by the method they answer. Every result of 2026-07-28 says
	// what it is (resultType); a cacheable one for how long and to whom
	// (ttlMs: a number; cacheScope). A request that may need more input
	// (tools/call, prompts/get, resources/read) may be answered by an
	// InputRequiredResult: server requests under inputRequests, a part of
	// its own, and requestState, opaque. tools/call may be answered by the
	// tasks extension's CreateTaskResult (a task's members at the top),
	// tasks/get by a task holding its result, error or inputRequests.
	task := ms("taskId status", shID, shTaskStatus)
	result := with(meta, ms("resultType", shResultType))
	cacheable := ms("cacheScope", shCacheScope)
	inputRequired := ms("inputRequests requestState", shPartInputRequests, shOpaque)
	members[shResultEmpty] = result
	members[shResultInit] = with(result, ms("protocolVersion serverInfo", shProtocolVersion, shImplementation)) // capabilities: no string in the schema; instructions: text
	members[shResultDiscover] = with(with(result, cacheable), ms("supportedVersions", shProtocolVersion))       // capabilities: data; instructions: text
	members[shResultList] = with(with(result, cacheable), ms("nextCursor tools resources resourceTemplates prompts tasks", shID, shTool, shResource, shTemplate, shPrompt, shTask))
	members[shResultCall] = with(with(with(result, inputRequired), task), ms("content structuredContent task", shContent, shSepStructured, shTask)) // toolResult (2024-11-05): data
	members[shResultRead] = with(with(with(result, cacheable), inputRequired), ms("contents", shContents))
	members[shResultPrompt] = with(with(result, inputRequired), ms("messages", shPromptMessage)) // description: text
	members[shResultComplete] = with(result, ms("completion", shCompletion))
	members[shResultTask] = with(with(result, task), ms("inputRequests result error", shPartInputRequests, shPartTaskResult, shPartTaskError)) // statusMessage, times: text
	// A result whose method is unknown (unattributed, tasks/result): what
	// any server result says.
	union := map[string]shape{}
	for _, sh := range []shape{shResultInit, shResultDiscover, shResultList, shResultCall, shResultRead, shResultPrompt, shResultComplete, shResultTask} {
		union = with(union, members[sh])
	}
	members[shResultAny] = union
	// What a client answers a server request with (sampling, roots,
	// elicitation, tasks), also as an MRTR retry's inputResponses.
	members[shClientResult] = with(with(meta, task), ms("role content stopReason roots action tasks task nextCursor", shRole, shContent, shStopReason, shRoot, shElicitAction, shTask, shTask, shID))
	// MRTR (2026-07-28): the server requests of an InputRequiredResult or
	// a task, keyed by names the retry repeats (read, as names, for what
	// the detectors find), and the client's answers to them.
	members[shInputRequest] = ms("method params", shInputMethod, shInputParams)

	// Params of server requests and notifications, by method.
	members[shParams] = meta
	members[shParamsRequest] = ms("_meta", shMetaRequest)
	members[shParamsProgress] = with(meta, ms("progressToken", shID)) // message: text
	members[shParamsCancelled] = with(meta, ms("requestId", shID))    // reason: text
	members[shParamsLog] = with(meta, ms("level", shLevel))           // logger: text; data: data
	members[shParamsUpdated] = with(meta, ms("uri", shID))
	members[shParamsTaskStatus] = with(meta, task)
	members[shParamsElicitDone] = with(meta, ms("elicitationId", shID))
	members[shParamsTaskID] = with(members[shParamsRequest], ms("taskId", shID))
	members[shParamsList] = with(members[shParamsRequest], ms("cursor", shID))
	members[shParamsSampling] = with(members[shParamsRequest], ms("messages modelPreferences includeContext tools toolChoice", shSamplingMessage, shModelPrefs, shIncludeContext, shTool, shToolChoice)) // systemPrompt, stopSequences: text; metadata: data
	members[shParamsElicit] = with(members[shParamsRequest], ms("mode requestedSchema elicitationId", shElicitMode, shSchema, shID))                                                                     // message, url: text
	// notifications/subscriptions/acknowledged (2026-07-28): what the
	// server agreed to send; the flags are booleans.
	members[shParamsSubscriptions] = with(meta, ms("notifications", shSubscriptionFilter))
	members[shSubscriptionFilter] = ms("resourceSubscriptions taskIds", shID, shID)

	for sh := range members {
		if len(members[sh]) == 0 {
			continue
		}
		memberIndex[sh] = new(memberTable)
		for k, c := range members[sh] {
			b := bucket(k)
			memberIndex[sh][b] = append(memberIndex[sh][b], member{k, c})
		}
	}

	// Which shapes may lead to targets of their own.
	for changed := true; changed; {
		changed = false
		for sh := shape(0); sh < numShapes; sh++ {
			if holdsSeparate[sh] {
				continue
			}
			hold := sh == shContent || sh == shContents
			for _, c := range members[sh] {
				hold = hold || c == shSepText || c == shSepStructured || holdsSeparate[c]
			}
			switch sh { // members not in the table
			case shInputRequests:
				hold = holdsSeparate[shInputRequest]
			case shInputResponses:
				hold = holdsSeparate[shClientResult]
			case shInputParams:
				hold = holdsSeparate[shParamsSampling] || holdsSeparate[shParamsElicit] || holdsSeparate[shParamsRequest]
			}
			if hold {
				holdsSeparate[sh], changed = true, true
			}
		}
	}
}

// childOf is the shape of member c of an object of shape sh: what the
// table says, else data (for an object of schemas, a schema).
func childOf(d *jsondoc.Doc, c int32, sh shape) shape {
	every, table := memberShapes(sh)
	if table == nil {
		return every
	}
	return table.shapeOf(d, c)
}

// memberShapes is what the members of an object of shape sh are: the
// table that names them, or (table nil) the one shape every member has.
// A walk reads it once per object, not per member.
func memberShapes(sh shape) (every shape, table *memberTable) {
	switch sh {
	case shSchemaMap:
		return shSchema, nil
	case shInputRequests:
		return shInputRequest, nil
	case shInputResponses:
		return shClientResult, nil
	}
	if t := memberIndex[sh]; t != nil {
		return shData, t
	}
	return shData, nil
}

// refine is the shape of object n reached as sh: a content block by its
// type (strictly: a type the schema does not define makes it data), and a
// scalar position holding an object is data.
func refine(d *jsondoc.Doc, n int32, sh shape) shape {
	if sh == shEnvelope {
		switch {
		case d.Kind(d.Get(n, "method")) == jsondoc.String:
			return shEnvRequest
		case d.Kind(d.Get(n, "error")) == jsondoc.Object:
			return shEnvError
		case d.Kind(d.Get(n, "result")) == jsondoc.Object:
			return shEnvResult
		}
		return shEnvOther
	}
	if sh == shContent {
		t := d.Get(n, "type")
		switch {
		case d.StrEquals(t, "text"):
			return shContentText
		case d.StrEquals(t, "image"), d.StrEquals(t, "audio"):
			return shContentBinary
		case d.StrEquals(t, "resource"):
			return shContentResource
		case d.StrEquals(t, "resource_link"):
			return shContentLink
		case d.StrEquals(t, "tool_use"):
			return shToolUse
		case d.StrEquals(t, "tool_result"):
			return shToolResult
		}
		return shData
	}
	if sh == shInputParams {
		// A server request's params, by its method (exactly one the
		// schema allows there; else data).
		m := d.Get(d.Parent(n), "method")
		switch {
		case d.StrEquals(m, "elicitation/create"):
			return shParamsElicit
		case d.StrEquals(m, "sampling/createMessage"):
			return shParamsSampling
		case d.StrEquals(m, "roots/list"):
			return shParamsRequest
		}
		return shData
	}
	if sh < shEnvelope {
		return shData // (what another target covers was skipped before)
	}
	return sh
}

// reading is how a string is read.
type reading uint8

const (
	readNone     reading = iota // left as it is
	readText                    // text: every string step
	readFindings                // a protocol value: only what the detectors find in it changes
	readInline                  // a data: URI: the text its base64 carries, if any
)

// readingAt says how string node n, reached as sh, is read. A protocol
// value (an identifier, a URI, a cursor, a name, a schema keyword's value,
// a MIME type) stays as it is unless a detector finds something in it: a
// URI names a user's file, a server echoes into contents[].uri the URI the
// plugin restored from a pseudonym, a cursor embeds the last address
// listed, and the client reads all of it. What the detectors find there is
// transformed as in text (the value may then no longer work: the safe
// direction; pseudonyms in request URIs are restored, so a pseudonymised
// URI still reads). Only the envelope's jsonrpc, id and method, and an
// enumeration's exact values, are never read. separate: content texts and
// structuredContent are targets of their own (results), else text in
// place (server messages).
func readingAt(d *jsondoc.Doc, n int32, sh shape, separate bool) reading {
	if rd := readings[b2i(separate)][sh]; rd != readByValue {
		return rd
	}
	// A value to look at: without allocating when written plainly (what
	// every token is; an escaped one is read decoded).
	raw, ok := d.StrRaw(n)
	if !ok {
		s, _ := d.Str(n)
		raw = []byte(s)
	}
	switch sh {
	case shIconSrc:
		if bytes.HasPrefix(raw, []byte("data:")) && bytes.Contains(raw, []byte(";base64,")) {
			return readInline // an inline image, or text posing as one
		}
		return readText
	case shMime:
		if mimeToken(raw) {
			return readFindings
		}
		return readText
	case shProtocolVersion:
		if isDate(raw) {
			return readNone
		}
		return readText
	}
	for _, t := range tokens[sh] {
		if len(raw) == len(t) && jsondoc.SameBytes(raw, t) {
			return readNone
		}
	}
	return readText
}

// readByValue marks, in readings, a shape whose strings are read by their
// value (an enumeration, a MIME type, an icon's src, a protocol version).
const readByValue reading = 255

// readings is how a string reached as a shape is read when that does not
// depend on its value (else readByValue), without and with separate
// targets: what readingAt works out, looked up once per configuration.
var readings [2][numShapes]reading

func init() {
	for sep := range readings {
		for sh := range shape(numShapes) {
			readings[sep][sh] = readingOf(sh, sep == 1)
		}
	}
}

// readingOf is readingAt for a shape whose reading does not depend on the
// value, else readByValue.
func readingOf(sh shape, separate bool) reading {
	switch sh {
	case shOwn, shEnvID, shOpaque:
		return readNone
	case shID:
		return readFindings
	case shBinary:
		return readNone // a target of its own (binaryItem)
	case shSepText, shSepStructured:
		if separate {
			return readNone
		}
		return readText
	case shIconSrc, shMime, shProtocolVersion:
		return readByValue
	}
	if tokens[sh] == nil {
		return readText
	}
	return readByValue
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// textAt reports whether string node n, reached as sh, is text to
// transform whole (see readingAt).
func textAt(d *jsondoc.Doc, n int32, sh shape, separate bool) bool {
	return readingAt(d, n, sh, separate) == readText
}

// nameIsData reports whether the name of a member of an object of shape
// parent, whose value is of shape child, is data: every name but those
// the table gives a meaning (an object keyed by address, a _meta key, a
// property name of a schema, the key of a server request all carry what
// they say to whoever reads them).
func nameIsData(parent, child shape) bool {
	return child == shData || parent == shSchemaMap || parent == shInputRequests || parent == shInputResponses
}

// skipped reports whether an object reached as sh is left out of a walk:
// what another target covers.
func skipped(sh shape, separate bool) bool {
	return sh == shOwn || isPart(sh) || separate && sh == shSepStructured
}

// isPart reports whether sh is a part of a result with a pipeline of its
// own (Parts) when it is an object.
func isPart(sh shape) bool {
	return sh == shPartInputRequests || sh == shPartTaskResult || sh == shPartTaskError
}

// mimeToken reports whether s has the form of a MIME type (type/subtype
// in lower case, no spaces or parameters).
func mimeToken(s []byte) bool {
	slash := bytes.IndexByte(s, '/')
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

// isDate reports whether s is YYYY-MM-DD, the form of a protocol version.
func isDate(s []byte) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if i != 4 && i != 7 && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}
