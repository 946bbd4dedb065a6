// Package mcpvocab is what the plugin knows of each MCP method, in one
// table per protocol revision: whether a request of it is judged and what
// it names, which pipeline and payload its params and its result get,
// whether its result is a list, and the tag it counts under; and the
// vocabulary around the methods: the JSON-RPC error codes and their
// standard messages (with the one writer of an error response), and the
// _meta key of the plugin's annotations. Every step
// (judging, transforms, list filtering, metrics) reads it rather than
// keeping a switch of its own, so a revision that adds, removes or
// reshapes a method is one new table. It is a leaf: transforms and
// plugin/mcp both read it.
package mcpvocab

import (
	"strconv"

	"github.com/cloudg/mcp-privacy/internal/streq"
)

// MetaKey is the _meta key of the plugin's annotations on what it
// changed, and of the privacy metadata servers declare on listed items
// (manual 4).
const MetaKey = "io.cloudg/privacy"

// Method names the plugin writes or looks for itself, beyond the table.
const (
	// NotificationPrefix starts every notification's method.
	NotificationPrefix = "notifications/"
	// NotificationMessage is a log message; a withheld server
	// notification becomes one.
	NotificationMessage = NotificationPrefix + "message"
	// NotificationResourceUpdated tells of a changed subscribed resource.
	NotificationResourceUpdated = NotificationPrefix + "resources/updated"
)

// Revision is a protocol revision with a table of its own. The 2025
// revisions (2025-03-26, 2025-06-18, 2025-11-25) share one: what differs
// between them is in the payload shapes (transforms/structural.go), not in
// what a method is to the plugin.
type Revision uint8

const (
	// Rev2025 is every revision before 2026-07-28 (2024-11-05 included):
	// the revisions of the initialize handshake and of sessions.
	Rev2025 Revision = iota
	// Rev2026 is 2026-07-28 and any later revision: stateless, every
	// request carrying its version in _meta and mirrored in headers.
	Rev2026
	numRevisions
)

// Version2026 is the first revision of the stateless era.
const Version2026 = "2026-07-28"

// MetaProtocolVersion is the params._meta key of a 2026-07-28 request's
// protocol version; the MCP-Protocol-Version header must agree with it.
const MetaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// RevisionOf is the table a protocol version is read by: 2026-07-28 and
// later versions (dates compare as strings, as the go-sdk compares them)
// are the stateless era, anything earlier or empty the 2025 one. A later
// revision the plugin does not know is read as 2026-07-28, the closest it
// knows: the server refuses a version it does not speak itself.
func RevisionOf(version string) Revision {
	if version >= Version2026 {
		return Rev2026
	}
	return Rev2025
}

// String is the revision's name in messages and the audit trail.
func (r Revision) String() string {
	if r == Rev2026 {
		return Version2026
	}
	return "2025"
}

// Kind is what a judged request names, or what a list's items are.
type Kind uint8

const (
	KindNone Kind = iota
	KindTool
	KindPrompt
	KindResource // a concrete URI (the catalog may resolve it to a template)
	KindResourceTemplate
	// KindRef is a completion reference: the prompt or resource params.ref
	// names, by its type.
	KindRef
)

// Input says which places of a judged request's params get its
// primitive's input pipeline.
type Input uint8

const (
	InputNone Input = iota
	// InputArguments: params.arguments, as a document of arguments.
	InputArguments
	// InputCompletion: params.argument.value as text, and
	// params.context.arguments as a document of arguments.
	InputCompletion
	// InputURI: params.uri as text; a URI the pipeline changed is judged
	// again.
	InputURI
)

// Output says which pipeline a method's result gets.
type Output uint8

const (
	// OutputPolicy: the result carries no primitive's data; it gets the
	// pipeline its request picked, else the policy-level one.
	OutputPolicy Output = iota
	// OutputPrimitive: the result carries the named primitive's data and
	// gets its output pipeline wherever the answer arrives (rebuilt for a
	// request another stream forwarded).
	OutputPrimitive
)

// Result is the shape a method's result is read by (transforms maps each
// to its payload). The zero value is every result's shape at once: a
// method the schema does not define, or one that answers with another's
// result (tasks/result).
type Result uint8

const (
	ResultAny Result = iota
	ResultTool
	ResultResource
	ResultPrompt
	ResultCompletion
	ResultInitialize
	ResultList
	ResultTask
	ResultEmpty
	// ResultDiscover: server/discover's (2026-07-28).
	ResultDiscover
	NumResults
)

// Params is the shape the params of a server request or notification are
// read by (transforms maps each to its payload). The zero value is the
// generic params of a request (it has an id) or a notification.
type Params uint8

const (
	ParamsGeneric Params = iota
	ParamsProgress
	ParamsCancelled
	ParamsLog
	ParamsUpdated
	ParamsTaskStatus
	ParamsElicitDone
	ParamsTaskID
	ParamsList
	ParamsSampling
	ParamsElicit
	// ParamsSubscriptions: notifications/subscriptions/acknowledged's
	// (2026-07-28).
	ParamsSubscriptions
	NumParams
)

// List says how a list result names its items.
type List struct {
	Items string // the result's array of items
	Key   string // the item's name member
	Kind  Kind   // what each item is
}

// Method is what one method is to the plugin. The zero value is a method
// the table does not know: not judged, policy pipeline, any result shape,
// generic params, no list, counted as "other".
type Method struct {
	Name string
	// Judged: a client request of it names a primitive (Target) and is
	// judged by the policy.
	Judged bool
	Target Kind
	Input  Input
	Output Output
	Result Result
	// Params is the shape of its params when a server sends it.
	Params Params
	// List is set (Items != "") for a list method.
	List List
	// Metric is its requests tag value ("" counts as "other").
	Metric string
	// NameMember is the params member the Mcp-Name header mirrors on
	// Streamable HTTP ("" for a method whose requests carry none);
	// RequiresName: 2026-07-28 requires the header for it.
	NameMember   string
	RequiresName bool
	// ParamHeaders: Mcp-Param-* headers mirror its params.arguments, as
	// the tool's inputSchema marks them with x-mcp-header.
	ParamHeaders bool
	// Cacheable: its complete result carries ttlMs and cacheScope
	// (2026-07-28, server/utilities/caching).
	Cacheable bool
}

// Table is one revision's methods.
type Table struct {
	errors [NumErrs]ErrorCode
	// byLen are the methods by the length of their names: a lookup
	// compares the name with the few of its length instead of hashing it
	// (the VM hashes strings in generic code; a message is looked up
	// several times).
	byLen [maxMethodName + 1][]*Method
	lists []*Method
	all   []*Method
}

// maxMethodName bounds the length of a method name the tables hold.
const maxMethodName = 63

var unknown Method

// Method is the entry of method name, or the zero Method (never nil).
func (t *Table) Method(name string) *Method {
	if len(name) == 0 || len(name) > maxMethodName {
		return &unknown
	}
	for _, m := range t.byLen[len(name)] {
		// The last byte tells most names of one length apart without a
		// call to compare them whole; a message's method is mostly the
		// table's own string (KnownName), known equal without a call.
		if m.Name[len(name)-1] == name[len(name)-1] && streq.Same(m.Name, name) {
			return m
		}
	}
	return &unknown
}

// methodBytes is Method for a name given as bytes, without copying it.
func (t *Table) methodBytes(name []byte) *Method {
	if len(name) == 0 || len(name) > maxMethodName {
		return &unknown
	}
	for _, m := range t.byLen[len(name)] {
		if m.Name[len(name)-1] == name[len(name)-1] && m.Name == string(name) {
			return m
		}
	}
	return &unknown
}

// KnownName is the name some table knows, equal to name, and true; else
// "" and false. It spares a message's reader a copy of its method's name
// (an allocation per message) for the methods the plugin knows.
func KnownName(name []byte) (string, bool) {
	for _, t := range tables {
		if m := t.methodBytes(name); m != &unknown {
			return m.Name, true
		}
	}
	return "", false
}

// Lists are the list methods, in the order a result no request explains
// is filtered in.
func (t *Table) Lists() []*Method { return t.lists }

// Methods are every method of the table, in table order.
func (t *Table) Methods() []*Method { return t.all }

func newTable(ms []Method, errors [NumErrs]ErrorCode) *Table {
	t := &Table{errors: errors}
	for i := range ms {
		m := &ms[i]
		if m.Name == "" || len(m.Name) > maxMethodName {
			panic("mcpvocab: a method name of " + strconv.Itoa(len(m.Name)) + " bytes")
		}
		if t.Method(m.Name) != &unknown {
			panic("mcpvocab: " + m.Name + " twice in a table")
		}
		t.byLen[len(m.Name)] = append(t.byLen[len(m.Name)], m)
		t.all = append(t.all, m)
		if m.List.Items != "" {
			t.lists = append(t.lists, m)
		}
	}
	return t
}

var tables = [numRevisions]*Table{
	Rev2025: newTable(methods2025, errors2025),
	Rev2026: newTable(methods2026, errors2026),
}

// For is the table of revision r.
func For(r Revision) *Table { return tables[r] }

// methods2025 are the methods of the 2025 revisions. List methods are in
// the order unattributed results are filtered in.
var methods2025 = []Method{
	{Name: "tools/call", Judged: true, Target: KindTool, Input: InputArguments, Output: OutputPrimitive,
		Result: ResultTool, Metric: "tools_call", NameMember: "name", ParamHeaders: true},
	{Name: "prompts/get", Judged: true, Target: KindPrompt, Input: InputArguments, Output: OutputPrimitive,
		Result: ResultPrompt, Metric: "prompts_get", NameMember: "name"},
	{Name: "resources/read", Judged: true, Target: KindResource, Input: InputURI, Output: OutputPrimitive,
		Result: ResultResource, Metric: "resources_read", NameMember: "uri"},
	{Name: "resources/subscribe", Judged: true, Target: KindResource, Input: InputURI,
		Result: ResultEmpty, Metric: "resources_subscribe"},
	{Name: "resources/unsubscribe", Judged: true, Target: KindResource, Input: InputURI,
		Result: ResultEmpty, Metric: "resources_unsubscribe"},
	{Name: "completion/complete", Judged: true, Target: KindRef, Input: InputCompletion, Output: OutputPrimitive,
		Result: ResultCompletion, Metric: "completion_complete"},

	{Name: "tools/list", Result: ResultList, List: List{"tools", "name", KindTool}, Metric: "tools_list"},
	{Name: "resources/list", Result: ResultList, List: List{"resources", "uri", KindResource}, Metric: "resources_list"},
	{Name: "resources/templates/list", Result: ResultList,
		List: List{"resourceTemplates", "uriTemplate", KindResourceTemplate}, Metric: "resources_templates_list"},
	{Name: "prompts/list", Result: ResultList, List: List{"prompts", "name", KindPrompt}, Metric: "prompts_list"},

	{Name: "initialize", Result: ResultInitialize, Metric: "initialize"},
	{Name: "ping", Result: ResultEmpty, Metric: "ping"},
	{Name: "logging/setLevel", Result: ResultEmpty, Metric: "logging_setLevel"},

	// Tasks: asked by either side; not filtered as lists.
	{Name: "tasks/list", Result: ResultList, Params: ParamsList},
	{Name: "tasks/get", Result: ResultTask, Params: ParamsTaskID},
	{Name: "tasks/cancel", Result: ResultTask, Params: ParamsTaskID},
	{Name: "tasks/result", Params: ParamsTaskID},

	// Server requests and notifications.
	{Name: "sampling/createMessage", Params: ParamsSampling},
	{Name: "elicitation/create", Params: ParamsElicit},
	{Name: "notifications/progress", Params: ParamsProgress},
	{Name: "notifications/cancelled", Params: ParamsCancelled},
	{Name: NotificationMessage, Params: ParamsLog},
	{Name: NotificationResourceUpdated, Params: ParamsUpdated},
	{Name: "notifications/tasks/status", Params: ParamsTaskStatus},
	{Name: "notifications/elicitation/complete", Params: ParamsElicitDone},
}

// methods2026 are the methods of 2026-07-28 (schema/2026-07-28). Gone
// from 2025: initialize and its notification, ping, logging/setLevel,
// resources/subscribe and unsubscribe (subscriptions/listen replaces
// them), the core tasks methods, and server-to-client requests, which
// now travel inside an InputRequiredResult (MRTR). A request of a removed
// method is unknown here: it is not judged and goes to the server as
// sent, which answers as it answers any method it does not have.
var methods2026 = []Method{
	{Name: "tools/call", Judged: true, Target: KindTool, Input: InputArguments, Output: OutputPrimitive,
		Result: ResultTool, Metric: "tools_call", NameMember: "name", RequiresName: true, ParamHeaders: true},
	{Name: "prompts/get", Judged: true, Target: KindPrompt, Input: InputArguments, Output: OutputPrimitive,
		Result: ResultPrompt, Metric: "prompts_get", NameMember: "name", RequiresName: true},
	{Name: "resources/read", Judged: true, Target: KindResource, Input: InputURI, Output: OutputPrimitive,
		Result: ResultResource, Metric: "resources_read", NameMember: "uri", RequiresName: true, Cacheable: true},
	{Name: "completion/complete", Judged: true, Target: KindRef, Input: InputCompletion, Output: OutputPrimitive,
		Result: ResultCompletion, Metric: "completion_complete"},

	{Name: "tools/list", Result: ResultList, List: List{"tools", "name", KindTool}, Metric: "tools_list", Cacheable: true},
	{Name: "resources/list", Result: ResultList, List: List{"resources", "uri", KindResource}, Metric: "resources_list", Cacheable: true},
	{Name: "resources/templates/list", Result: ResultList,
		List: List{"resourceTemplates", "uriTemplate", KindResourceTemplate}, Metric: "resources_templates_list", Cacheable: true},
	{Name: "prompts/list", Result: ResultList, List: List{"prompts", "name", KindPrompt}, Metric: "prompts_list", Cacheable: true},

	// server/discover answers what initialize answered (versions,
	// capabilities, server info, instructions).
	{Name: "server/discover", Result: ResultDiscover, Metric: "server_discover", Cacheable: true},
	// The listen stream carries change notifications, each by its own
	// entry below; its result is read as any result.
	{Name: "subscriptions/listen", Metric: "subscriptions_listen"},

	// The tasks extension (io.modelcontextprotocol/tasks): Mcp-Name
	// mirrors params.taskId (SEP-2663); a task's result gets the pipeline
	// of the tool that made it (plugin/mcp/tasks.go).
	{Name: "tasks/get", Params: ParamsTaskID, NameMember: "taskId"},
	{Name: "tasks/update", Params: ParamsTaskID, NameMember: "taskId"},
	{Name: "tasks/cancel", Result: ResultTask, Params: ParamsTaskID, NameMember: "taskId"},

	// Shapes of the requests an InputRequiredResult carries (MRTR), and
	// of a server that sends one anyway.
	{Name: "sampling/createMessage", Params: ParamsSampling},
	{Name: "elicitation/create", Params: ParamsElicit},

	// Notifications.
	{Name: "notifications/progress", Params: ParamsProgress},
	{Name: "notifications/cancelled", Params: ParamsCancelled},
	{Name: NotificationMessage, Params: ParamsLog},
	{Name: NotificationResourceUpdated, Params: ParamsUpdated},
	{Name: "notifications/subscriptions/acknowledged", Params: ParamsSubscriptions},
}
