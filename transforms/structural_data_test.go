package transforms

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/transforms/detect"
)

// leakCase is a message a server sends (answers: the method a result
// answers, "" for a server request or notification) holding raw, which
// must not come out of a redacting pipeline.
type leakCase struct {
	name, answers, msg, raw string
}

// assertNoLeak runs redact over each case and checks that raw is gone from
// the output, keys and values alike, and that the output is still JSON the
// strict parser accepts.
func assertNoLeak(t *testing.T, cases []leakCase) {
	t.Helper()
	e, p, _ := engineFor(t, `{name: p, transforms: [redact]}`)
	pl := compileOutput(t, e, p)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := jsondoc.Parse([]byte(c.msg))
			if err != nil {
				t.Fatal(err)
			}
			applyMessage(e, pl, doc, c.answers, &Run{})
			out := doc.Bytes()
			if _, err := jsondoc.Parse(out); err != nil {
				t.Fatalf("output is not strict JSON: %v\n%s", err, out)
			}
			if strings.Contains(string(out), c.raw) {
				t.Errorf("%q came out raw:\n%s", c.raw, out)
			}
		})
	}
}

// TestMemberNamesAreData: a member name is read by whoever reads the
// object, so an object keyed by an address (a map of users by email, a
// _meta key, a property name) carries the address. Regression (issue 12
// review): the walk transformed values only, and every such name came out
// raw.
func TestMemberNamesAreData(t *testing.T) {
	assertNoLeak(t, []leakCase{
		{"structuredContent keyed by email", "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"users":{"alice@example.com":{"plan":"pro"}}}}}`, "alice@example.com"},
		{"JSON text keyed by card", "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"4111 1111 1111 1111\":\"visa\"}"}]}}`, "4111 1111 1111 1111"},
		{"_meta key", "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[],"_meta":{"bob@example.org":true}}}`, "bob@example.org"},
		{"escaped key", "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"alice\u0040example.com":1}}}`, "alice@example.com"},
		{"log data key", "",
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"10.1.2.3":"up"}}}`, "10.1.2.3"},
		{"error data key", "tools/call",
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x","data":{"AKIAYPKZVCGCKMHTXPVQ":"bad"}}}`, "AKIAYPKZVCGCKMHTXPVQ"},
		{"envelope member's key", "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[]},"extra":{"alice@example.com":1}}`, "alice@example.com"},
		{"inputSchema property name", "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"alice@example.com":{"type":"string"}}}}]}}`, "alice@example.com"},
		{"sampling message structured key", "",
			`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"maxTokens":5,"messages":[{"role":"user","content":{"type":"text","text":"hi","_meta":{"x":{"alice@example.com":1}}}}]}}`, "alice@example.com"},
	})
}

// TestRenamedMembersStayDistinct: names that become the same text (two
// addresses redacted to one placeholder) must not give the object two
// members of one name, which parsers read differently; and a name equal to
// a sibling's under case folding is refused by the strict parser too.
func TestRenamedMembersStayDistinct(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [redact]}`)
	pl := compileOutput(t, e, p)
	in := `{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"alice@example.com":1,"bob@example.org":2,"[REDACTED:EMAIL] (2)":3,"[redacted:email] (3)":4}}}`
	doc, err := jsondoc.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	applyMessage(e, pl, doc, "tools/call", &Run{})
	out := doc.Bytes()
	if _, err := jsondoc.Parse(out); err != nil {
		t.Fatalf("output is not strict JSON: %v\n%s", err, out)
	}
	var v struct {
		Result struct {
			StructuredContent map[string]int `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, n := range v.Result.StructuredContent {
		sum += n
	}
	if len(v.Result.StructuredContent) != 4 || sum != 10 {
		t.Errorf("members lost or merged: %s", out)
	}
}

// TestStructuralValuesHoldingData: a protocol value (a URI, a cursor, a
// task id, a schema keyword's value, a MIME type, an inline icon) can carry
// personal data, and the client reads it like any text: a server echoes a
// resource URI the plugin restored from a pseudonym into contents[].uri, a
// resource link names a user's file, a cursor embeds the last address
// listed. Regression (issue 12 review): structural positions were never
// read by the detectors, so the restored value went back to the client.
func TestStructuralValuesHoldingData(t *testing.T) {
	svg := base64.StdEncoding.EncodeToString([]byte(`<svg xmlns="http://www.w3.org/2000/svg"><text>alice@example.com</text></svg>`))
	note := base64.StdEncoding.EncodeToString([]byte(`owner alice@example.com`))
	assertNoLeak(t, []leakCase{
		{"read contents uri", "resources/read",
			`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"customers://c/alice@example.com","text":"{}"}]}}`, "alice@example.com"},
		{"resource link uri", "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"resource_link","uri":"notes://n/1?by=alice@example.com","name":"n"}]}}`, "alice@example.com"},
		{"embedded resource uri", "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"resource","resource":{"uri":"mailto:alice@example.com","text":"x"}}]}}`, "alice@example.com"},
		{"list uri and template", "resources/list",
			`{"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"file:///home/alice@example.com/a","name":"a"}],"resourceTemplates":[{"uriTemplate":"db://10.1.2.3/{t}","name":"t"}]}}`, "alice@example.com"},
		{"template host", "resources/templates/list",
			`{"jsonrpc":"2.0","id":1,"result":{"resourceTemplates":[{"uriTemplate":"db://10.1.2.3/{t}","name":"t"}]}}`, "10.1.2.3"},
		{"next cursor", "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[],"nextCursor":"after:alice@example.com"}}`, "alice@example.com"},
		{"tool name", "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"mail_alice@example.com","inputSchema":{"type":"object"}}]}}`, "alice@example.com"},
		{"schema pattern, format and required", "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object","required":["alice@example.com"],"properties":{"a":{"type":"string","pattern":"^4111 1111 1111 1111$","format":"AKIAYPKZVCGCKMHTXPVQ"}}}}]}}`, "alice@example.com"},
		{"schema pattern", "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"string","pattern":"^4111 1111 1111 1111$"}}}}]}}`, "4111 1111 1111 1111"},
		{"progress token", "",
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-alice@example.com","progress":1}}`, "alice@example.com"},
		{"task id", "tasks/get",
			`{"jsonrpc":"2.0","id":1,"result":{"taskId":"t-alice@example.com","status":"working"}}`, "alice@example.com"},
		{"updated uri", "",
			`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///alice@example.com"}}`, "alice@example.com"},
		{"a MIME type of addresses", "resources/read",
			`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"a://b","mimeType":"10.1.2.3/10.4.5.6","text":"x"}]}}`, "10.1.2.3"},
		{"inline SVG icon", "initialize",
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1","icons":[{"src":"data:image/svg+xml;base64,` + svg + `"}]}}}`, svg},
		{"inline text icon", "initialize",
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1","icons":[{"src":"data:text/plain;base64,` + note + `"}]}}}`, note},
	})
}

// TestBinaryTextInServerMessages: the text a base64 item carries is read
// in a server's requests and notifications as in results (binarytext.go):
// an image of a sampling request, a blob of an embedded resource.
// Regression (issue 12 review): the walk of a server message skipped
// base64 positions, so text sent as an "image" reached the client.
func TestBinaryTextInServerMessages(t *testing.T) {
	b := base64.StdEncoding.EncodeToString([]byte("card 4111 1111 1111 1111 of alice@example.com"))
	assertNoLeak(t, []leakCase{
		{"sampling image", "",
			`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"maxTokens":5,"messages":[{"role":"user","content":{"type":"image","mimeType":"image/png","data":"` + b + `"}}]}}`, b},
		{"sampling audio in a list", "",
			`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"maxTokens":5,"messages":[{"role":"user","content":[{"type":"audio","mimeType":"audio/wav","data":"` + b + `"}]}]}}`, b},
		{"sampling embedded blob", "",
			`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"maxTokens":5,"messages":[{"role":"user","content":{"type":"resource","resource":{"uri":"a://b","blob":"` + b + `"}}}]}}`, b},
		{"tool result in sampling", "",
			`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"maxTokens":5,"messages":[{"role":"user","content":{"type":"tool_result","toolUseId":"u","content":[{"type":"image","mimeType":"image/png","data":"` + b + `"}]}}]}}`, b},
	})
}

// The depseudonymiser restores values, never member names
// (MCP_PRIVACY.md 13.6): a name the output pseudonymised stays as the
// pseudonym on the way in, so no name reaches the server rewritten after
// the request was judged.
func TestDepseudonymiserLeavesNames(t *testing.T) {
	e, p, store := engineFor(t, `{name: p, transforms: [pseudonymise]}`)
	out := compileOutput(t, e, p)
	doc, _ := jsondoc.Parse([]byte(`{"content":[],"structuredContent":{"alice@example.com":{"to":"alice@example.com"}}}`))
	e.Apply(out, doc, jsondoc.Root, ToolResult, &Run{})
	ps := store.pz.Pseudonym("", "EMAIL", "alice@example.com")
	want := `{"content":[],"structuredContent":{"` + ps + `":{"to":"` + ps + `"}}}`
	if got := string(doc.Bytes()); got != want {
		t.Fatalf("output %s, want %s", got, want)
	}
	in, err := e.Compile(p.InputPipeline(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	args, _ := jsondoc.Parse(doc.Bytes())
	e.Apply(in, args, args.Get(jsondoc.Root, "structuredContent"), Arguments, &Run{})
	if got, want := string(args.Bytes()), `{"content":[],"structuredContent":{"`+ps+`":{"to":"alice@example.com"}}}`; got != want {
		t.Errorf("input %s, want %s", got, want)
	}
}

// FuzzSurelyClean: a string the quick look calls clean holds nothing any
// built-in detector finds (the look skips the pass for short words, most
// member names and protocol values).
func FuzzSurelyClean(f *testing.F) {
	for _, s := range []string{"type", "inputSchema", "AKIAYPKZVCGCKMHTXPV", "ghp_abc", "sk_live_abcdefghijk", "AIzaSyA", "eyJhbGciOiJub25lIn0", "xoxb", "a.b/c#d$e_f", "Bearer", "password", "arn.aws"} {
		f.Add(s)
	}
	e, _, _ := engineFor(f, `{name: p, transforms: [redact]}`)
	f.Fuzz(func(t *testing.T, s string) {
		if !e.detectors.SurelyClean(s) {
			return
		}
		if ds := e.Detectors().Detect(s, detect.Select(nil, 0)); len(ds) > 0 {
			t.Fatalf("%q called clean, but %+v", s, ds)
		}
	})
}

// TestDataURIsRead: a data: URI carries its content in its base64, and a
// client that opens the link, or a model that decodes it, reads that
// text: in a resource link's uri, a resource's uri, a text field. (Icons
// are in TestStructuralValuesHoldingData.)
func TestDataURIsRead(t *testing.T) {
	b := base64.StdEncoding.EncodeToString([]byte("owner: alice@example.com"))
	assertNoLeak(t, []leakCase{
		{"resource link", "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"resource_link","name":"n","uri":"data:text/plain;base64,` + b + `"}]}}`, b},
		{"listed resource", "resources/list",
			`{"jsonrpc":"2.0","id":1,"result":{"resources":[{"name":"n","uri":"data:text/plain;charset=utf-8;base64,` + b + `"}]}}`, b},
		{"a description", "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","description":"data:text/plain;base64,` + b + `","inputSchema":{"type":"object"}}]}}`, b},
		{"log data", "",
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"link":"data:;base64,` + b + `"}}}`, b},
	})
}

// TestBase64TextAnywhere: a string that is, whole, base64 of text is read
// for that text wherever it is: a client shows it decoded, a model
// decodes it at a glance. Regression (issue 12 review): only the base64
// positions of the schema were decoded, so a file's content in
// structuredContent, a log line sent as base64 or a cursor of base64 JSON
// carried its address to the client.
func TestBase64TextAnywhere(t *testing.T) {
	std := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	url := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	file, line, cursor := std("name,card\nAlice,4111 1111 1111 1111\n"), std("login from alice@example.com"), url(`{"after":"alice@example.com","n":20}`)
	assertNoLeak(t, []leakCase{
		{"structuredContent value", "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"file":"` + file + `"}}}`, file},
		{"a text item", "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + line + `"}]}}`, line},
		{"JSON text", "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"b\":\"` + line + `\"}"}]}}`, line},
		{"log data", "",
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + line + `"}}`, line},
		{"image in log data", "",
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"type":"image","mimeType":"image/png","data":"` + line + `"}}}`, line},
		{"a cursor", "tools/list",
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[],"nextCursor":"` + cursor + `"}}`, cursor},
		{"an error message", "tools/call",
			`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"` + line + `"}}`, line},
	})
	// What is not base64 of text stays as it is: words of the alphabet,
	// binary data, a hash.
	e, p, _ := engineFor(t, `{name: p, transforms: [redact]}`)
	pl := compileOutput(t, e, p)
	for _, s := range []string{"internationalization", "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", std("no findings in here")} {
		in := `{"content":[],"structuredContent":{"v":"` + s + `"}}`
		doc, _ := jsondoc.Parse([]byte(in))
		e.Apply(pl, doc, jsondoc.Root, ToolResult, &Run{})
		if got := string(doc.Bytes()); got != in {
			t.Errorf("%s became %s", in, got)
		}
	}
}

// TestNumbersRead: a value a detector finds is found in a JSON number too
// (a card number, a national id matched by a custom detector), and the
// number becomes the string that replaces it. Regression (issue 12
// review): numbers were never read, so {"card": 4111111111111111} went
// out as it came.
func TestNumbersRead(t *testing.T) {
	assertNoLeak(t, []leakCase{
		{"card in structuredContent", "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"card":4111111111111111}}}`, "4111111111111111"},
		{"card in JSON text", "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"[5500000000000004]"}]}}`, "5500000000000004"},
		{"card in log data", "",
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"c":4111111111111111}}}`, "4111111111111111"},
		{"card in error data", "tools/call",
			`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x","data":[4111111111111111]}}`, "4111111111111111"},
	})
	e, p, _ := engineFor(t, `{name: p, transforms: [redact], detectors: [{name: nid, pattern: "\\b[0-9]{9}\\b", label: NATIONAL_ID, sensitivity: restricted}]}`)
	doc, _ := jsondoc.Parse([]byte(`{"content":[],"structuredContent":{"nid":123456789,"n":12,"f":1.5,"e":-3e5}}`))
	e.Apply(compileOutput(t, e, p), doc, jsondoc.Root, ToolResult, &Run{})
	if got, want := string(doc.Bytes()), `{"content":[],"structuredContent":{"nid":"[REDACTED:NATIONAL_ID]","n":12,"f":1.5,"e":-3e5}}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// An object keyed by thousands of addresses (a server's map of users)
// gets thousands of distinct placeholders, each object's names looked up
// in a set: a rename that rescanned the siblings for every number tried
// took cubic time, a denial of service from one response.
func TestManyRenamedMembers(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [redact]}`)
	const n = 3000
	var b strings.Builder
	b.WriteString(`{"content":[],"structuredContent":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"user%d@example.com":%d`, i, i)
	}
	b.WriteString(`}}`)
	doc, err := jsondoc.Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	e.Apply(compileOutput(t, e, p), doc, jsondoc.Root, ToolResult, &Run{})
	out := doc.Bytes()
	if _, err := jsondoc.Parse(out); err != nil {
		t.Fatalf("not strict JSON: %v", err)
	}
	var v struct {
		StructuredContent map[string]int `json:"structuredContent"`
	}
	if err := json.Unmarshal(out, &v); err != nil || len(v.StructuredContent) != n || strings.Contains(string(out), "@example.com") {
		t.Errorf("%d members (want %d), err %v", len(v.StructuredContent), n, err)
	}
}

// drop_binary removes the images, audio and embedded blobs of a server's
// requests too (a sampling request's image goes to the client's model).
// Regression (issue 12 review): only results' binary items were places
// of their own, so drop_binary never saw a server message's.
func TestDropBinaryInServerMessages(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [drop_binary]}`)
	pl := compileOutput(t, e, p)
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"maxTokens":5,"messages":[{"role":"user","content":{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}}]}}`,
		`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"maxTokens":5,"messages":[{"role":"user","content":[{"type":"text","text":"see"},{"type":"audio","mimeType":"audio/wav","data":"iVBORw0KGgo="}]}]}}`,
		`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"maxTokens":5,"messages":[{"role":"user","content":{"type":"resource","resource":{"uri":"a://b","blob":"iVBORw0KGgo="}}}]}}`,
	} {
		doc, err := jsondoc.Parse([]byte(msg))
		if err != nil {
			t.Fatal(err)
		}
		applyMessage(e, pl, doc, "", &Run{})
		out := string(doc.Bytes())
		if strings.Contains(out, "iVBORw0KGgo=") || !strings.Contains(out, "removed by privacy policy") {
			t.Errorf("%s became %s", msg, out)
		}
		if _, err := jsondoc.Parse([]byte(out)); err != nil {
			t.Errorf("not strict JSON: %s", out)
		}
	}
}

// A base64 position that holds no base64 (an image's data, a blob, a
// data: URI with text after ;base64,) is no binary: no client decodes it,
// and whatever shows it shows the text as it is, so what the detectors
// find there is transformed. Real base64 stays as it is (audit of issue
// 12: these went out raw).
func TestNotBase64IsRead(t *testing.T) {
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
	cases := []struct{ name, answers, in, want string }{
		{"icon src", "initialize",
			`{"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"s","version":"1","icons":[{"src":"data:image/png;base64,alice@example.com"},{"src":"data:image/png;base64,` + png + `"}]}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"s","version":"1","icons":[{"src":"data:image/png;base64,[REDACTED:EMAIL]"},{"src":"data:image/png;base64,` + png + `"}]}}}`},
		{"resource link uri, text after base64", "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"resource_link","uri":"data:text/plain;base64,QUJD#alice@example.com","name":"n"}]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"resource_link","uri":"data:text/plain;base64,QUJD#[REDACTED:EMAIL]","name":"n"}]}}`},
		{"contents uri", "resources/read",
			`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"data:application/octet-stream;base64,to alice@example.com","text":"t"}]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"data:application/octet-stream;base64,to [REDACTED:EMAIL]","text":"t"}]}}`},
		{"image data", "tools/call",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image","data":"card 4111 1111 1111 1111","mimeType":"image/png"},{"type":"image","data":"` + png + `","mimeType":"image/png"}]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image","data":"card [REDACTED:CREDIT_CARD]","mimeType":"image/png"},{"type":"image","data":"` + png + `","mimeType":"image/png"}]}}`},
		{"blob", "resources/read",
			`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"x:a","blob":"alice@example.com","mimeType":"application/octet-stream"}]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"x:a","blob":"[REDACTED:EMAIL]","mimeType":"application/octet-stream"}]}}`},
		{"sampling request image", "",
			`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"maxTokens":1,"messages":[{"role":"user","content":{"type":"image","data":"alice@example.com","mimeType":"image/png"}}]}}`,
			`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"maxTokens":1,"messages":[{"role":"user","content":{"type":"image","data":"[REDACTED:EMAIL]","mimeType":"image/png"}}]}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, p, _ := engineFor(t, `{name: p, transforms: [redact]}`)
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
