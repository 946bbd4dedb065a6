package mcp

import (
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/sse/ssereaders"
	"golang.org/x/text/encoding/ianaindex"
)

// clientTexts is what each client surfaces of a response (status,
// content-type, body) to a user or a model, one reading per client
// (issue 32, item 1):
//   - the TypeScript SDK's client (1.32.2, client/streamableHttp.js, send):
//     a body that is not 2xx whole in its error; else by the media type's
//     essence: an event stream's events (eventsource-parser), JSON, or
//     "Unexpected content type: <header>";
//   - the Python SDK 1.x client (v1.29.0, src/mcp/client/streamable_http.py,
//     _handle_post_request and _handle_sse_event): nothing of a body that
//     is not 2xx (raise_for_status); else by startswith on the lowered
//     header: JSON, an event stream's events (httpx-sse; those named other
//     than "message" only logged by name), or an error naming the content
//     type; the body decoded by the header's
//     charset (httpx, Response.encoding; UTF-8 when Python has no codec
//     of that name, here when x/text's IANA index has none);
//   - the go-sdk's client (v1.8.0, streamable.go, checkResponse and
//     handleSSE): a body that is not 2xx decoded as JSON-RPC whatever its
//     type; else by mime.ParseMediaType: JSON, an event stream's events,
//     or "unsupported content type".
func clientTexts(status int, ct, body string) []string {
	var out []string
	lower := strings.ToLower(ct)
	essence := strings.TrimSpace(strings.SplitN(lower, ";", 2)[0])
	ok := status >= 200 && status <= 299
	data := func(evs []ssereaders.Event) {
		for _, e := range evs {
			out = append(out, e.Type, e.Data)
		}
	}
	// TypeScript
	switch {
	case !ok:
		out = append(out, body)
	case essence == "text/event-stream":
		data(ssereaders.ReadTS(body))
		out = append(out, ssereaders.IDs(body)...) // onresumptiontoken
	case essence == "application/json":
		out = append(out, body)
	default:
		out = append(out, "Unexpected content type: "+ct)
	}
	// Python
	pyBody := decodeCharset(ct, body)
	switch {
	case !ok:
	case strings.HasPrefix(lower, "application/json"):
		out = append(out, pyBody)
	case strings.HasPrefix(lower, "text/event-stream"):
		data(ssereaders.ReadPython(pyBody))
	default:
		out = append(out, "Unexpected content type: "+ct)
	}
	// Go
	switch {
	case !ok:
		out = append(out, body)
	case essence == "text/event-stream":
		evs, err := ssereaders.ReadGo(body)
		data(evs)
		if err != nil {
			out = append(out, err.Error())
		}
	case essence == "application/json":
		out = append(out, body)
	default:
		out = append(out, "unsupported content type "+essence)
	}
	return out
}

// decodeCharset is body decoded by the charset parameter of ct, as httpx
// decodes text; body itself when there is none or it is unknown.
func decodeCharset(ct, body string) string {
	_, params, _ := strings.Cut(ct, ";")
	for _, p := range strings.Split(params, ";") {
		name, value, _ := strings.Cut(p, "=")
		if !strings.EqualFold(strings.TrimSpace(name), "charset") {
			continue
		}
		enc, err := ianaindex.IANA.Encoding(strings.Trim(strings.TrimSpace(value), `"`))
		if err != nil || enc == nil {
			return body
		}
		if d, err := enc.NewDecoder().String(body); err == nil {
			return d
		}
	}
	return body
}

// encodeCharset is s encoded in the named charset (test inputs).
func encodeCharset(t *testing.T, name, s string) string {
	enc, err := ianaindex.IANA.Encoding(name)
	if err != nil || enc == nil {
		t.Fatalf("no encoder for %s: %v", name, err)
	}
	e, err := enc.NewEncoder().String(s)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// throughPlugin passes a response to a tools/call through the plugin's
// response path: what the client receives (status, content-type, body).
func throughPlugin(cfg *Config, status int, ct, enc string, chunks []string) (int, string, string) {
	_, b, s := postOnce(cfg, hdr("x-mcp-principal", "ann"), call("1", "tools/call", `{"name":"search"}`))
	if b.Reply != nil {
		return b.Reply.Status, "application/json", string(b.Reply.Body)
	}
	h := s.OnResponseHeaders(status, ct, enc, false)
	if h.Reply != nil {
		return h.Reply.Status, "application/json", string(h.Reply.Body)
	}
	for _, r := range h.Remove {
		if r == "content-type" {
			ct = ""
		}
	}
	for _, kv := range h.Set {
		if kv[0] == "content-type" {
			ct = kv[1]
		}
	}
	var out strings.Builder
	var held []byte
	for i, c := range chunks {
		end := i == len(chunks)-1
		held = append(held, c...)
		buf := held
		a, edit := s.OnResponseBody(len(buf), end, func() []byte { return buf })
		if a == Pause {
			continue
		}
		if edit.Replace {
			out.Write(edit.Data)
		} else {
			out.Write(buf)
		}
		held = nil
	}
	return status, ct, out.String()
}

const readingResult = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + leaked + `"}]}}`

// Each class of issue 32's item 1: what the plugin passed as harmless and
// a client read as data. Through the plugin, no client reads the address.
func TestResponseOneReading(t *testing.T) {
	cfg := mustConfig(t, leaksEnvelope)
	hidden := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x ` + leaked + `"}]}}`
	cases := []struct {
		name        string
		status      int
		ct, enc     string
		body        string
		failsClosed bool
		// quiet: no client model surfaces it directly (comments, ids):
		// kept to show what goes out of them.
		quiet bool
	}{
		{name: "garbled BOM before a data line", status: 200, ct: "text/event-stream", body: "ï»¿data: " + hidden + "\n\n"},
		{name: "BOM then garbled BOM", status: 200, ct: "text/event-stream", body: "\xEF\xBB\xBFï»¿data: " + hidden + "\n\n"},
		{name: "U+2028 in a comment", status: 200, ct: "text/event-stream", body: ": c\u2028data: " + hidden + "\n\n"},
		{name: "U+2029 in an id", status: 200, ct: "text/event-stream", body: "id: 1\u2029data: " + hidden + "\ndata: {}\n\n"},
		{name: "NEL in an event name", status: 200, ct: "text/event-stream", body: "event: m\u0085data: " + hidden + "\n\n"},
		{name: "VT in an unknown field", status: 200, ct: "text/event-stream", body: "x: \vdata: " + hidden + "\n\n"},
		{name: "FF FS GS RS in comments", status: 200, ct: "text/event-stream", body: ":\f" + leaked + "\n:\x1c" + leaked + "\n:\x1d" + leaked + "\n:\x1e" + leaked + "\n\n", quiet: true},
		{name: "comment text", status: 200, ct: "text/event-stream", body: ": " + leaked + "\n\n", quiet: true},
		{name: "id text", status: 200, ct: "text/event-stream", body: "id: " + leaked + "\ndata: " + readingResult + "\n\n"},
		{name: "event name", status: 200, ct: "text/event-stream", body: "event: " + leaked + "\ndata: " + readingResult + "\n\n"},
		{name: "U+2028 inside JSON data", status: 200, ct: "text/event-stream", body: `data: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a` + "\u2028" + `data: b"}]}}` + "\n\n"},
		{name: "charset utf-16 on an event stream", status: 200, ct: "text/event-stream; charset=utf-16le", body: encodeCharset(t, "utf-16le", "data: "+hidden+"\n\n"), failsClosed: true},
		{name: "charset on JSON", status: 200, ct: "application/json; charset=IBM037", body: encodeCharset(t, "IBM037", readingResult), failsClosed: true},
		{name: "two media types", status: 200, ct: "application/json, text/event-stream", body: readingResult, failsClosed: true},
		{name: "repeated content-encoding", status: 200, ct: "application/json", enc: "identity, gzip", body: readingResult, failsClosed: true, quiet: true},
		{name: "content-encoding on text", status: 500, ct: "text/plain", enc: "br", body: leaked, failsClosed: true},
		{name: "event stream not 2xx", status: 400, ct: "text/event-stream", body: ": " + leaked + "\nid: " + leaked + "\ndata: {}\n\n"},
		{name: "JSON-RPC error under text, not 2xx", status: 400, ct: "text/plain", body: `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"` + leaked + `"}}`},
		{name: "JSON-RPC error, not 2xx", status: 404, ct: "application/json", body: `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"` + leaked + `"}}`},
		{name: "content type quoted in an error", status: 200, ct: "text/plain; note=" + leaked, body: "x"},
		{name: "JSON typed as a variant", status: 200, ct: "application/json-rpc; x=" + leaked, body: readingResult},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The class is real: straight from the server, a client reads it.
			if !strings.Contains(strings.Join(clientTexts(c.status, c.ct, c.body), "\x00"), leaked) && !c.quiet &&
				!strings.Contains(c.body, "\u2028data") {
				t.Fatalf("no client reads the address directly: the case proves nothing")
			}
			for _, chunks := range [][]string{{c.body}, splitEvery(c.body, 7)} {
				status, ct, body := throughPlugin(cfg, c.status, c.ct, c.enc, chunks)
				if c.failsClosed && !strings.Contains(body, "-32603") {
					t.Errorf("not failed closed: %d %q %q", status, ct, body)
				}
				for _, s := range clientTexts(status, ct, body) {
					if strings.Contains(s, leaked) {
						t.Errorf("a client reads %q from %d %q %q", s, status, ct, body)
					}
				}
				if !c.failsClosed && strings.HasPrefix(ct, "text/event-stream") {
					if why := ssereaders.Disagree(body); why != "" {
						t.Errorf("clients read %q differently: %s", body, why)
					}
				}
			}
		})
	}
}

// Ids, retry and keep-alives keep working: a plain id, an event name and a
// retry go out as they came, a comment as an empty comment; an id the
// policy would change is dropped, not rewritten (the server must get it
// back as Last-Event-ID).
func TestResponseEventFieldsKept(t *testing.T) {
	cfg := mustConfig(t, leaksEnvelope)
	n := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`
	in := "id: 0_1\nretry: 3000\ndata: \n\n: ping\n\nid: s-7_2\nevent: message\ndata: " + n + "\n\nid: " + leaked + "\ndata: " + n + "\n\n"
	want := "id: 0_1\nretry: 3000\ndata: \n\n:\n\nid: s-7_2\nevent: message\ndata: " + n + "\n\ndata: " + n + "\n\n"
	for _, chunks := range [][]string{{in}, splitEvery(in, 3)} {
		_, ct, got := throughPlugin(cfg, 200, "text/event-stream", "", chunks)
		if got != want || ct != "text/event-stream" {
			t.Errorf("got %q %q\nwant %q", ct, got, want)
		}
	}
}

func splitEvery(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// FuzzResponseReadings feeds a response through the plugin's response
// path and reads what leaves as each client reads it (clientTexts): none
// finds the address the policy redacts, and an event stream reads the
// same to every client.
// The fuzz target's marker, found wherever it stands by a custom
// detector (no boundary, no length limit: what is judged is the reading,
// not the detector).
const (
	fuzzMarker   = "zqmarker"
	fuzzEnvelope = `
policy: {name: p, transforms: [redact], detectors: [{name: marker, pattern: "zqmarker"}]}
identity: {principal: [{header: x-mcp-principal}]}
`
	fuzzResult = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + fuzzMarker + `"}]}}`
)

func FuzzResponseReadings(f *testing.F) {
	f.Add(200, "text/event-stream", "", "ï»¿data: "+fuzzResult+"\n\n: c\u2028data: "+fuzzResult+"\n\n", uint(5))
	f.Add(200, "text/event-stream", "", "id: 1\u2029data: x\nevent: \x1c\ndata: "+fuzzResult+"\r\n\r\n", uint(3))
	f.Add(400, "text/event-stream", "", ": "+fuzzMarker+"\n\n", uint(2))
	f.Add(200, "application/json, text/event-stream", "", fuzzResult, uint(1))
	f.Add(200, "application/json", "identity, gzip", fuzzResult, uint(1))
	f.Add(302, "text/html; charset=utf-16", "", fuzzMarker, uint(1))
	cfg, errs := NewConfig([]byte(fuzzEnvelope), nil)
	if len(errs) > 0 {
		f.Fatal(errs)
	}
	f.Fuzz(func(t *testing.T, status int, ct, enc, body string, split uint) {
		if status < 200 || status > 599 {
			status = 200 + (status%400+400)%400
		}
		k := int(split % uint(len(body)+1))
		status, ct, out := throughPlugin(cfg, status, ct, enc, []string{body[:k], body[k:]})
		for _, s := range clientTexts(status, ct, out) {
			if strings.Contains(s, fuzzMarker) {
				t.Fatalf("a client reads %q from %d %q %q", s, status, ct, out)
			}
		}
		if strings.HasPrefix(ct, "text/event-stream") && status <= 299 {
			if why := ssereaders.Disagree(out); why != "" {
				t.Fatalf("clients read %q differently: %s", out, why)
			}
		}
	})
}

// A redirect's Location is quoted in the TypeScript client's error
// ("Redirect to ... not followed") and httpx's: it is read by the
// policy-level output pipeline like any text.
func TestResponseLocationJudged(t *testing.T) {
	cfg := mustConfig(t, leaksEnvelope)
	_, _, s := postOnce(cfg, hdr("x-mcp-principal", "ann"), call("1", "tools/call", `{"name":"search"}`))
	loc := "https://elsewhere.example/users/" + leaked
	if got, keep := s.ResponseLocation(loc); !keep || strings.Contains(got, leaked) || !strings.HasPrefix(got, "https://elsewhere.example/users/") {
		t.Errorf("Location %q became %q, %v", loc, got, keep)
	}
	if got, keep := s.ResponseLocation("/mcp/next"); !keep || got != "/mcp/next" {
		t.Errorf("a plain Location became %q, %v", got, keep)
	}
	other := NewStream(cfg)
	other.OnRequestHeaders(hdr(), "GET", "/elsewhere", true)
	if got, keep := other.ResponseLocation(loc); !keep || got != loc {
		t.Errorf("outside gateway.paths Location became %q, %v", got, keep)
	}
}

func TestJSONLineBreaks(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":"x"}`:                         `{"a":"x"}`,
		`{"a":"x` + "\u2028" + `y"}`:        `{"a":"x\u2028y"}`,
		`{"a":"` + "\u0085\u2029" + `é—✓"}`: `{"a":"\u0085\u2029é—✓"}`,
		"\u2028":                            `\u2028`,
		"\xE2\x80":                          "\xE2\x80",
	} {
		if got := string(jsonLineBreaks([]byte(in))); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
	if b := []byte(`{"a":"é—"}`); &jsonLineBreaks(b)[0] != &b[0] {
		t.Error("copied without a line break to escape")
	}
}

// The content type a response goes out with, and the ones clients read
// differently.
func TestResponseContentTypes(t *testing.T) {
	for _, c := range []struct{ in, ambiguous, out string }{
		{"application/json", "", "application/json"},
		{"Application/JSON; charset=UTF-8", "", "application/json"},
		{`text/event-stream; charset="utf-8"`, "", "text/event-stream"},
		{"text/event-stream;charset=utf-16", `declares charset "utf-16"`, ""},
		{"application/json; charset=cp037", `declares charset "cp037"`, ""},
		{"application/json, text/event-stream", "lists more than one media type", ""},
		{"text/html; charset=iso-8859-1", "", "text/html; charset=utf-8"},
		{"text/plain; a=application/json", "", "text/plain; charset=utf-8"},
		{"application/problem+json", "", "application/json"},
		{"te xt/plain", "", "text/plain; charset=utf-8"},
		{"", "", ""},
	} {
		mt := mediaType(c.in)
		if got := contentTypeReadings(c.in, mt); got != c.ambiguous {
			t.Errorf("%q: readings %q, want %q", c.in, got, c.ambiguous)
		}
		if c.ambiguous == "" {
			if got := canonicalType(c.in, mt); got != c.out {
				t.Errorf("%q: goes out as %q, want %q", c.in, got, c.out)
			}
		}
	}
}

// The ids the SDKs' event stores write stay (resumption keeps working)
// under the built-in profiles; an id with personal data does not.
func TestEventIDsOfTheSDKsKept(t *testing.T) {
	ids := []string{
		"3f1c2a9e-8b7d-4c6e-9f00-1a2b3c4d5e6f_1733500000000_k3j9x2ab", // TypeScript InMemoryEventStore
		"0_1", "17_1042", // go-sdk MemoryEventStore (stream, index)
		"a1b2c3d4e5f60718293a4b5c6d7e8f90", // Python: uuid4 hex
		"1733500000000",
	}
	for _, profile := range []string{"standard", "strict"} {
		cfg := mustConfig(t, "policy: "+profile+"\nidentity: {principal: [{header: x-mcp-principal}]}\n")
		_, _, s := postOnce(cfg, hdr("x-mcp-principal", "ann"), call("1", "tools/call", `{"name":"search"}`))
		for _, id := range ids {
			if !s.ex.JudgeField([]byte("id"), []byte(id)) {
				t.Errorf("%s: the id %q is dropped", profile, id)
			}
		}
		if s.ex.JudgeField([]byte("id"), []byte("4111111111111111")) {
			t.Errorf("%s: an id that is a card number goes out", profile)
		}
	}
}

// A failed answer the plugin cannot read keeps its status; a success whose
// content type clients read differently becomes 200 with the errors, one
// that is not 2xx is read as text whatever its type.
func TestResponseFailStatus(t *testing.T) {
	cfg := mustConfig(t, leaksEnvelope)
	if st, _, body := throughPlugin(cfg, 404, "application/json", "gzip", []string{"x"}); st != 404 || !strings.Contains(body, "-32603") {
		t.Errorf("compressed 404: %d %s", st, body)
	}
	if st, _, body := throughPlugin(cfg, 200, "application/json", "gzip", []string{"x"}); st != 200 || !strings.Contains(body, "-32603") {
		t.Errorf("compressed 200: %d %s", st, body)
	}
	st, ct, body := throughPlugin(cfg, 400, "application/json, text/event-stream", "", []string{"no: " + leaked})
	if st != 400 || ct != "text/plain; charset=utf-8" || strings.Contains(body, leaked) {
		t.Errorf("400 of two types: %d %q %q", st, ct, body)
	}
}
