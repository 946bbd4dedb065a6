package transforms

import (
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
)

// A value split across two server messages of one method on a stream:
// the part sent first has left, the continuation is replaced, at any
// split point where the first part alone is no value (issue 12: values
// split across two notifications).
func TestValueSplitAcrossMessages(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [redact]}`)
	pl := compileOutput(t, e, p)
	send := func(tail *MessageTail, method, params string) string {
		t.Helper()
		doc, err := jsondoc.Parse([]byte(params))
		if err != nil {
			t.Fatal(err)
		}
		e.ApplyMessage(pl, doc, jsondoc.Root, ParamsPayload(method, false), method, tail, &Run{})
		return string(doc.Bytes())
	}
	for _, c := range []struct {
		method, first, second, value, label string
	}{
		{"notifications/message", `{"level":"info","data":%q}`, `{"level":"info","data":%q}`, "alice@example.com", "EMAIL"},
		{"notifications/message", `{"data":%q,"level":"info","logger":"job"}`, `{"data":%q,"level":"info","logger":"job"}`, "bob@example.org", "EMAIL"},
		{"notifications/progress", `{"progressToken":"t","progress":1,"message":%q}`, `{"progressToken":"t","progress":2,"message":%q}`, "4111 1111 1111 1111", "CREDIT_CARD"},
		{"notifications/message", `{"level":"info","data":{"lines":["x",%q]}}`, `{"level":"info","data":{"lines":["x",%q]}}`, "078-05-1120", "US_SSN"},
	} {
		for k := 1; k < len(c.value); k++ {
			tail := &MessageTail{}
			first := sprintfJSON(c.first, "see "+c.value[:k])
			if got := send(tail, c.method, first); got != first {
				continue // the first part alone reads as a value: replaced there
			}
			got := send(tail, c.method, sprintfJSON(c.second, c.value[k:]+" now"))
			if want := sprintfJSON(c.second, "[REDACTED:"+c.label+"] now"); got != want {
				t.Errorf("%s split at %d: second message %s, want %s", c.value, k, got, want)
			}
		}
	}
	// Another method, or another place, is not a continuation.
	tail := &MessageTail{}
	send(tail, "notifications/message", `{"level":"info","data":"see alice@exa"}`)
	if got := send(tail, "notifications/progress", `{"progressToken":"t","progress":1,"message":"mple.com now"}`); got != `{"progressToken":"t","progress":1,"message":"mple.com now"}` {
		t.Errorf("joined across methods: %s", got)
	}
}

func sprintfJSON(format, s string) string {
	q := jsondoc.Quote(s)
	out := ""
	for i := 0; i < len(format); i++ {
		if format[i] == '%' && i+1 < len(format) && format[i+1] == 'q' {
			out += q
			i++
			continue
		}
		out += string(format[i])
	}
	return out
}

// A label at the end of one server message and its value at the start
// of the next: the second message alone leaves the value in clear; read
// with its predecessor's tail, the value is replaced where it stands.
func TestLabelMessageThenValueMessage(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [redact]}`)
	pl := compileOutput(t, e, p)
	const method = "notifications/message"
	send := func(tail *MessageTail, data string) string {
		t.Helper()
		doc, err := jsondoc.Parse([]byte(sprintfJSON(`{"level":"info","data":%q}`, data)))
		if err != nil {
			t.Fatal(err)
		}
		e.ApplyMessage(pl, doc, jsondoc.Root, ParamsPayload(method, false), method, tail, &Run{})
		s, _ := doc.Str(doc.Get(jsondoc.Root, "data"))
		return s
	}
	for _, c := range []struct{ label, value, want string }{
		{"Date of birth:", "1957-04-17", "[REDACTED:DATE_OF_BIRTH]"},
		{"Geburtsdatum: ", "17.04.1957 laut Akte", "[REDACTED:DATE_OF_BIRTH] laut Akte"},
		{"Telefone:", " (30) 48977-2600", " [REDACTED:PHONE]"},
		{"BSN:", "111222333", "[REDACTED:NL_BSN]"},
	} {
		if alone := send(&MessageTail{}, c.value); alone != c.value {
			t.Fatalf("%q alone becomes %q: the case tests nothing", c.value, alone)
		}
		tail := &MessageTail{}
		send(tail, c.label)
		if got := send(tail, c.value); got != c.want {
			t.Errorf("%q then %q: second message %q, want %q", c.label, c.value, got, c.want)
		}
	}
	// Text between the label and the value is context of its own.
	tail := &MessageTail{}
	send(tail, "Date of birth:")
	if got := send(tail, "unknown; 1957-04-17 is the file date"); got != "unknown; 1957-04-17 is the file date" {
		t.Errorf("a value far from the joint was joined to the label: %q", got)
	}
}
