package transforms

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

// planted is what the schema tests put into every data position.
const planted = "alice@example.com"

// applyMessage runs p over one JSON-RPC message as the plugin does
// (plugin/mcp transform.go, mrtr.go): a request's or notification's params
// by its method, a result by the method it answers ("client" for a
// client's answer to a server request) with its parts (applyResult), an
// error object, and the envelope's own members; "retry" is a client's
// request retried with inputResponses (MRTR), of which the plugin reads
// the arguments and the inputResponses.
func applyMessage(e *Engine, p *Pipeline, doc *jsondoc.Doc, answers string, run *Run) {
	n := jsondoc.Root
	if answers == "retry" {
		params := doc.Get(n, "params")
		if a := doc.Get(params, "arguments"); a != jsondoc.None {
			e.Apply(p, doc, a, Arguments, run)
		}
		if r := doc.Get(params, "inputResponses"); r != jsondoc.None {
			e.Apply(p, doc, r, InputResponses, run)
		}
		return
	}
	switch m, isMethod := doc.Str(doc.Get(n, "method")); {
	case isMethod:
		if pr := doc.Get(n, "params"); pr != jsondoc.None {
			e.Apply(p, doc, pr, ParamsPayload(m, doc.Get(n, "id") != jsondoc.None), run)
		}
	case doc.Kind(doc.Get(n, "error")) == jsondoc.Object:
		e.Apply(p, doc, doc.Get(n, "error"), ErrorObject, run)
	case doc.Kind(doc.Get(n, "result")) != jsondoc.Object:
	case answers == "client":
		e.Apply(p, doc, doc.Get(n, "result"), AnyStrings, run)
	default:
		applyResult(e, p, doc, doc.Get(n, "result"), ResultPayload(answers), run)
	}
	e.Apply(p, doc, n, Envelope, run)
}

// applyResult runs p over result n read as kind and over each of its
// parts, as the plugin does (there, inputRequests get the pipeline of
// server requests, here the same p). A task's result is read as a
// tools/call result: the tasks extension makes tasks of tool calls only.
func applyResult(e *Engine, p *Pipeline, doc *jsondoc.Doc, n int32, kind Payload, run *Run) {
	e.Apply(p, doc, n, kind, run)
	for _, pt := range Parts(doc, n, kind, nil) {
		switch pt.Role {
		case PartInputRequests:
			e.Apply(p, doc, pt.Node, InputRequests, run)
		case PartTaskResult:
			applyResult(e, p, doc, pt.Node, ToolResult, run)
		case PartTaskError:
			e.Apply(p, doc, pt.Node, ErrorObject, run)
		}
	}
}

// schemaSamples are messages of every method of MCP's schema.ts
// (2025-06-18 and 2025-11-25) with every member the schema defines, and
// some it does not (testdata/mcp_messages.json; plugin/mcp runs the same
// file through the whole filter). answers is the method a result answers
// ("client": a client's answer to a server request; "": a server request
// or notification). Strings are written with a marker of what they are:
//
//	"§v"  structural: must come out exactly v (a protocol value holding
//	      nothing a detector finds stays as it is; the envelope's id
//	      stays even when it holds an address; see
//	      TestStructuralValuesHoldingData for protocol values holding data);
//	"§§v" binary (base64): must come out exactly v;
//	"=v"  data written as v (to set up a shape); nothing asserted;
//	any other string is data: the test replaces it with an email address,
//	which must not come out.
//
// testdata/mcp_messages_2026.json holds those of revision 2026-07-28 and
// the tasks extension, taken from the specification's examples
// (testdata/spec-2026-07-28) and widened to every member.
func schemaSamples(tb testing.TB) []struct{ answers, msg string } {
	var out []struct{ answers, msg string }
	for _, file := range []string{"testdata/mcp_messages.json", "testdata/mcp_messages_2026.json"} {
		raw, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		var list []struct {
			Answers string          `json:"answers"`
			Message json.RawMessage `json:"message"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			tb.Fatal(file, err)
		}
		for _, x := range list {
			out = append(out, struct{ answers, msg string }{x.Answers, string(x.Message)})
		}
	}
	return out
}

// plant turns a sample into the message to transform, and records what
// each string position is: structural strings by value, data positions
// to check.
func plant(v any, path string, keep map[string]string, data map[string]bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			x[k] = plant(c, path+"\x00"+k, keep, data)
		}
	case []any:
		for i, c := range x {
			x[i] = plant(c, fmt.Sprintf("%s\x00%d", path, i), keep, data)
		}
	case string:
		switch {
		case strings.HasPrefix(x, "§§"):
			keep[path] = x[len("§§"):]
			return keep[path]
		case strings.HasPrefix(x, "§"):
			keep[path] = x[len("§"):]
			return keep[path]
		case strings.HasPrefix(x, "="):
			return x[1:]
		case strings.Contains(x, planted):
			data[path] = true
			return x
		}
		data[path] = true
		return "see " + planted
	}
	return v
}

// lookup follows a path of plant (keys joined by NUL, which no key here
// holds) in a decoded message.
func lookup(v any, path string) (any, bool) {
	for _, seg := range strings.Split(path, "\x00")[1:] {
		switch x := v.(type) {
		case map[string]any:
			c, ok := x[seg]
			if !ok {
				return nil, false
			}
			v = c
		case []any:
			var i int
			if _, err := fmt.Sscan(seg, &i); err != nil || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// TestEveryStringOfEverySchemaMessage puts an email address into every
// data position of a message of every method of the MCP schema and runs
// redact over it: none may come out, and every structural string must
// come out as it went in. Regression (issue 12): initialize's
// instructions and serverInfo, list descriptions and titles, _meta, resource
// links, annotations, unknown members, the legacy toolResult and the
// envelope's own members came out raw; and top-level ids in notifications,
// data beside "type": "image" in log data, {uri, blob} in log data.
func TestEveryStringOfEverySchemaMessage(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [redact]}`)
	pl := compileOutput(t, e, p)
	for i, sm := range schemaSamples(t) {
		var v any
		if err := json.Unmarshal([]byte(sm.msg), &v); err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		keep, data := map[string]string{}, map[string]bool{}
		v = plant(v, "", keep, data)
		in, _ := json.Marshal(v)
		name := fmt.Sprintf("%d %s", i, sm.answers)
		if m, ok := v.(map[string]any)["method"].(string); ok {
			name = fmt.Sprintf("%d %s", i, m)
		}
		t.Run(name, func(t *testing.T) {
			doc, err := jsondoc.Parse(in)
			if err != nil {
				t.Fatal(err)
			}
			applyMessage(e, pl, doc, sm.answers, &Run{})
			var out any
			if err := json.Unmarshal(doc.Bytes(), &out); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, doc.Bytes())
			}
			var paths []string
			for path := range data {
				paths = append(paths, path)
			}
			sort.Strings(paths)
			for _, path := range paths {
				got, ok := lookup(out, path)
				if !ok {
					t.Errorf("%q: gone from %s", path, doc.Bytes())
					continue
				}
				if s, _ := got.(string); strings.Contains(s, planted) {
					t.Errorf("%q: data came out raw: %q", path, s)
				}
			}
			for path, want := range keep {
				if got, ok := lookup(out, path); !ok || got != want {
					t.Errorf("%q: structural value changed: got %v, want %q", path, got, want)
				}
			}
		})
	}
}

// structuralKeys is every member name the MCP schema gives a structural
// value somewhere (a superset of the table: it does not say where). A
// string under any other name is data wherever it is.
var structuralKeys = map[string]bool{
	"jsonrpc": true, "id": true, "method": true, "progressToken": true, "requestId": true, "cursor": true,
	"nextCursor": true, "uri": true, "uriTemplate": true, "name": true, "type": true, "role": true,
	"mimeType": true, "level": true, "status": true, "action": true, "mode": true, "stopReason": true,
	"theme": true, "includeContext": true, "taskSupport": true, "protocolVersion": true, "audience": true,
	"taskId": true, "elicitationId": true, "toolUseId": true, "code": true,
	"format": true, "pattern": true, "required": true, "$ref": true, "$schema": true, "$id": true,
	"$anchor": true, "$dynamicRef": true, "$dynamicAnchor": true, "contentEncoding": true, "contentMediaType": true,
	"data": true, "blob": true, "src": true,
	// 2026-07-28: requestState is never read (MRTR: the client must echo
	// it exactly); supportedVersions and cacheScope are tokens.
	"resultType": true, "cacheScope": true, "supportedVersions": true, "requestState": true,
	"io.modelcontextprotocol/protocolVersion": true, "io.modelcontextprotocol/logLevel": true,
	"io.modelcontextprotocol/subscriptionId": true, "resourceSubscriptions": true, "taskIds": true,
}

// plantData puts the email into every string under a name that is never
// structural, and into a member name of every object, and returns how
// many it planted. key is the member name a value is under (an array's
// elements are under the array's).
func plantData(v any, key string, n *int) any {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			x[k] = plantData(c, k, n)
		}
		if _, ok := x[planted]; !ok {
			x[planted] = 1
			*n++
		}
	case []any:
		for i, c := range x {
			x[i] = plantData(c, key, n)
		}
	case string:
		if structuralKeys[key] {
			if strings.Contains(x, planted) {
				return "v" // only planted values are looked for
			}
			return x
		}
		*n++
		return "see " + planted
	}
	return v
}

// stringValues appends every string of v, member names too.
func stringValues(v any, out []string) []string {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			out = append(out, k)
			out = stringValues(c, out)
		}
	case []any:
		for _, c := range x {
			out = stringValues(c, out)
		}
	case string:
		out = append(out, x)
	}
	return out
}

// FuzzEveryString: any JSON message, read as the answer to any method, as
// a server request or notification, or as a client's answer: the walk
// never panics, the output is still JSON the strict parser accepts, and
// an email planted in every string under a never-structural name, and as
// a member name of every object, never comes out.
func FuzzEveryString(f *testing.F) {
	for _, sm := range schemaSamples(f) {
		var v any
		if sm.answers == "retry" {
			// A client's request: here, every string of its params is
			// read, as a server request's are.
			sm.answers = ""
		}
		if json.Unmarshal([]byte(sm.msg), &v) == nil {
			plant(v, "", map[string]string{}, map[string]bool{})
			b, _ := json.Marshal(v)
			f.Add(b, sm.answers)
		}
	}
	f.Add([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":{"type":"image","data":"x"}}}`), "")
	msgs, _ := specExamples2026(f)
	for _, x := range msgs {
		f.Add([]byte(x.msg), x.answers)
	}
	e, p, _ := engineFor(f, `{name: p, transforms: [redact]}`)
	pl := compileOutput(f, e, p)
	f.Fuzz(func(t *testing.T, msg []byte, answers string) {
		var v any
		if answers == "retry" || json.Unmarshal(msg, &v) != nil {
			// (retry reads only a request's arguments and inputResponses)
			return
		}
		n := 0
		v = plantData(v, "", &n)
		in, _ := json.Marshal(v)
		doc, err := jsondoc.Parse(in)
		if err != nil || doc.Kind(jsondoc.Root) != jsondoc.Object {
			return // nesting over 64, keys equal but for case: refused upstream of the walk
		}
		applyMessage(e, pl, doc, answers, &Run{})
		out := doc.Bytes()
		if _, err := jsondoc.Parse(out); err != nil {
			t.Fatalf("output is not strict JSON: %v\n%s", err, out)
		}
		var got any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		for _, s := range stringValues(got, nil) {
			if strings.Contains(s, planted) {
				t.Fatalf("planted value came out raw (%d planted)\nin  %s\nout %s", n, in, out)
			}
		}
	})
}

// TestStructuralTable: single shapes of the table, with the options that
// narrow where a step acts.
func TestStructuralTable(t *testing.T) {
	cases := []struct {
		name, policy, answers, in, want string
	}{
		// A type that is not exactly one the schema defines makes the item
		// data: its "data" is not skipped as base64.
		{"a content type that is not exact is data", `{name: p, transforms: [redact, drop_binary]}`, "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"Image","data":"alice@example.com"},{"type":"image","data":"QUJD","mimeType":"image/png"}]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"Image","data":"[REDACTED:EMAIL]"},{"type":"text","text":"[image removed by privacy policy]"}]}}`},
		// A step limited by fields acts only where its paths reach: in a
		// result, paths are relative to the result.
		{"fields reach members of a result", `{name: p, transforms: [{type: redact, options: {fields: [instructions]}}]}`, "initialize",
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","instructions":"mail alice@example.com","serverInfo":{"name":"s","version":"1","description":"bob@example.com"}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","instructions":"mail [REDACTED:EMAIL]","serverInfo":{"name":"s","version":"1","description":"bob@example.com"}}}`},
		{"exclude_fields exempt list descriptions", `{name: p, transforms: [{type: redact, options: {exclude_fields: [tools.description]}}]}`, "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","title":"for alice@example.com","description":"ask bob@example.com","inputSchema":{"type":"object"}}]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","title":"for [REDACTED:EMAIL]","description":"ask bob@example.com","inputSchema":{"type":"object"}}]}}`},
		// project acts on structuredContent and JSON texts only: a list
		// result keeps its shape.
		{"project leaves list results alone", `{name: p, transforms: [{type: project, options: {include: [email]}}]}`, "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}],"nextCursor":"n"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}],"nextCursor":"n"}}`},
		{"annotate marks tool results, not lists", `{name: p, transforms: [redact, annotate]}`, "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","description":"alice@example.com","inputSchema":{"type":"object"}}]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","description":"[REDACTED:EMAIL]","inputSchema":{"type":"object"}}]}}`},
		// The token tests are strict: a role, a MIME type or a protocol
		// version of another form is text.
		{"tokens of another form are text", `{name: p, transforms: [{type: truncate, options: {max_chars: 3}}]}`, "prompts/get",
			`{"jsonrpc":"2.0","id":1,"result":{"messages":[{"role":"user","content":{"type":"image","data":"QUJDRA==","mimeType":"image/png"}},{"role":"users","content":{"type":"audio","data":"QUJDRA==","mimeType":"Audio Wav"}}]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"messages":[{"role":"user","content":{"type":"image","data":"QUJDRA==","mimeType":"image/png"}},{"role":"use…[truncated 2 characters]","content":{"type":"audio","data":"QUJDRA==","mimeType":"Aud…[truncated 6 characters]"}}]}}`},
		// Protocol text is looked at once for all the steps of a run
		// before it is copied: each step still finds what it selects.
		{"steps selecting different detectors", `{name: p, transforms: [{type: redact, options: {detectors: [ipv4]}}, {type: mask, options: {detectors: [email]}}, {type: detect, options: {min_sensitivity: restricted}}]}`, "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","description":"10.0.0.1 alice@example.com","title":"alice@example.com","annotations":{"title":"10.0.0.1"},"inputSchema":{"type":"object"}}]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","description":"[REDACTED:IP_ADDRESS] a****@example.com","title":"a****@example.com","annotations":{"title":"[REDACTED:IP_ADDRESS]"},"inputSchema":{"type":"object"}}]}}`},
		// Names and values are read decoded, as clients read them: the
		// image's data is base64 (of bytes, not text), read as such, where
		// as text it would be an AWS key.
		{"escaped names and values", `{name: p, transforms: [redact]}`, "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"\u0074ype":"im\u0061ge","d\u0061ta":"AKIAYPKZVCGCKMHTXPVQ"},{"type":"resource_link","\u0075ri":"mailto:alice","n\u0061me":"alice@example.com"}]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"\u0074ype":"im\u0061ge","d\u0061ta":"AKIAYPKZVCGCKMHTXPVQ"},{"type":"resource_link","\u0075ri":"mailto:alice","n\u0061me":"[REDACTED:EMAIL]"}]}}`},
		// An icon's src is an address (text) unless it is an inline image;
		// one whose "base64" is not base64 is read for what it says.
		{"icon src", `{name: p, transforms: [redact]}`, "initialize",
			`{"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"s","version":"1","icons":[{"src":"https://x.example/alice@example.com/i"},{"src":"data:image/png;base64,alice@example.com"}]}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"s","version":"1","icons":[{"src":"https://x.example/[REDACTED:EMAIL]/i"},{"src":"data:image/png;base64,[REDACTED:EMAIL]"}]}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, p, _ := engineFor(t, c.policy)
			doc, err := jsondoc.Parse([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			applyMessage(e, compileOutput(t, e, p), doc, c.answers, &Run{})
			if got := string(doc.Bytes()); normJSON(t, got) != normJSON(t, c.want) {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}
