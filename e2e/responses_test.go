package e2e_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/wasmtest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Issue 32, item 1: every byte of a response a client surfaces is judged
// as that client reads it. A hostile server answers a tools/call in a way
// some client reads otherwise than the plugin did; through the plugin,
// neither the TypeScript SDK's client nor the go-sdk's surfaces the
// address the policy redacts. The Python client's readings (line breaks
// of str.splitlines, a charset) are modelled in plugin/mcp
// (response_readings_test.go, internal/sse/ssereaders).

const respConfig = `{"policy": {"name": "p", "transforms": ["redact"]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]}}`

const respLeak = "alice@corp.example"

// respCase is one hostile answer: status, header lines (repeated ones
// included), body.
type respCase struct {
	name    string
	status  int
	headers [][2]string
	body    []byte
	// direct names the client that reads the address straight from the
	// server ("ts", "go"; "" when neither does: the class is another
	// client's, or the plugin's answer is what is checked).
	direct string
}

func respCases() []respCase {
	result := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + respLeak + `"}]}}`
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(result))
	_ = zw.Close()
	sse := [][2]string{{"content-type", "text/event-stream"}}
	return []respCase{
		{name: "garbled BOM", status: 200, headers: sse, body: []byte("ï»¿data: " + result + "\n\n"), direct: "ts"},
		{name: "U+2028 after a comment", status: 200, headers: sse, body: []byte(": c\u2028data: " + result + "\n\n")},
		{name: "charset utf-16", status: 200, headers: [][2]string{{"content-type", "text/event-stream; charset=utf-16"}}, body: utf16le("data: " + result + "\n\n")},
		{name: "two media types", status: 200, headers: [][2]string{{"content-type", "application/json, text/event-stream"}}, body: []byte(result)},
		{name: "two content-type lines", status: 200, headers: [][2]string{{"content-type", "application/json"}, {"content-type", "text/event-stream"}}, body: []byte(result)},
		{name: "repeated content-encoding", status: 200, headers: [][2]string{{"content-type", "application/json"}, {"content-encoding", "identity"}, {"content-encoding", "gzip"}}, body: gz.Bytes()}, // httpx's class: undici (1.32.2's fetch) leaves "identity, gzip" undecoded
		{name: "event stream, not 2xx", status: 400, headers: sse, body: []byte(": " + respLeak + "\nid: " + respLeak + "\ndata: {}\n\n"), direct: "ts"},
		{name: "JSON-RPC error as text, not 2xx", status: 400, headers: [][2]string{{"content-type", "text/plain"}},
			body: []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"no such user ` + respLeak + `"}}`), direct: "go"},
		{name: "redirect", status: 307, headers: [][2]string{{"location", "http://127.0.0.1:1/users/" + respLeak}}, direct: "ts"},
		{name: "content type in the error", status: 200, headers: [][2]string{{"content-type", "text/plain; user=" + respLeak}}, body: []byte("x"), direct: "ts"},
	}
}

// utf16le encodes ASCII s as UTF-16LE.
func utf16le(s string) []byte {
	var b []byte
	for i := range len(s) {
		b = append(b, s[i], 0)
	}
	return b
}

// respServer answers every POST with c, anything else with 405.
func respServer(t *testing.T, c respCase) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "POST" {
			w.WriteHeader(405)
			return
		}
		for _, h := range c.headers {
			w.Header()[http.CanonicalHeaderKey(h[0])] = append(w.Header()[http.CanonicalHeaderKey(h[0])], h[1])
		}
		w.WriteHeader(c.status)
		_, _ = w.Write(c.body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// tsClientReads runs the TypeScript SDK's client against base/mcp and
// returns what it handed its application.
func tsClientReads(t *testing.T, base string) string {
	t.Helper()
	dir, err := rqTSInstall()
	if err != nil {
		t.Fatal(err)
	}
	root, err := wasmtest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(root, "e2e", "testdata", "tsclient", "client.mjs"))
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "tsclient.mjs"), src, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "tsclient.mjs", base+"/mcp")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "DONE") {
		t.Fatalf("TypeScript client: %v\n%s", err, out)
	}
	return string(out)
}

// goClientReads sends the tools/call with the go-sdk's client transport
// and returns what it hands on: the error of the write, or the messages
// read until the stream ends.
func goClientReads(t *testing.T, base string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{
		Endpoint:             base + "/mcp",
		HTTPClient:           &http.Client{Transport: withHeaders{http.DefaultTransport, map[string]string{"x-mcp-principal": "ann"}}},
		MaxRetries:           -1,
		DisableStandaloneSSE: true,
	}
	conn, err := tr.Connect(ctx)
	if err != nil {
		return "CONNECT " + err.Error()
	}
	defer conn.Close()
	id, _ := jsonrpc.MakeID(float64(1))
	if err := conn.Write(ctx, &jsonrpc.Request{ID: id, Method: "tools/call", Params: json.RawMessage(`{"name":"search","arguments":{}}`)}); err != nil {
		return "WRITE " + err.Error()
	}
	var out strings.Builder
	rctx, rcancel := context.WithTimeout(ctx, 3*time.Second)
	defer rcancel()
	for {
		msg, err := conn.Read(rctx)
		if err != nil {
			out.WriteString("READ " + err.Error() + "\n")
			return out.String()
		}
		b, _ := jsonrpc.EncodeMessage(msg)
		out.Write(append(b, '\n'))
	}
}

func TestResponsesReadByClients(t *testing.T) {
	for _, c := range respCases() {
		t.Run(c.name, func(t *testing.T) {
			up := respServer(t, c)
			// The class is real: straight from the server, a client reads
			// the address.
			switch c.direct {
			case "ts":
				if got := tsClientReads(t, up); !strings.Contains(got, respLeak) {
					t.Fatalf("the TypeScript client does not read the address directly: the case proves nothing\n%s", got)
				}
			case "go":
				if got := goClientReads(t, up); !strings.Contains(got, respLeak) {
					t.Fatalf("the go-sdk client does not read the address directly: the case proves nothing\n%s", got)
				}
			}
			p := startPlugin(t, up, respConfig)
			for client, got := range map[string]string{"TypeScript": tsClientReads(t, p.URL), "go-sdk": goClientReads(t, p.URL)} {
				if strings.Contains(got, respLeak) {
					t.Errorf("through the plugin the %s client reads the address:\n%s", client, got)
				}
			}
		})
	}
}

// What a well-behaved server sends keeps working through the plugin: the
// TypeScript client gets the result and the resumption token of an event
// with a plain id, the go-sdk client the result; keep-alives and retry
// pass (a comment as an empty one).
func TestResponsesCanonicalStillWork(t *testing.T) {
	result := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"fine ✓ – 進行"}]}}`
	c := respCase{status: 200, headers: [][2]string{{"content-type", "text/event-stream; charset=utf-8"}},
		body: []byte("id: s1_0\nretry: 1000\ndata: \n\n: keep-alive\n\r\nid: s1_1\r\nevent: message\r\ndata: " + result + "\r\n\r\n")}
	p := startPlugin(t, respServer(t, c), respConfig)
	ts := tsClientReads(t, p.URL)
	if !strings.Contains(ts, `MESSAGE {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"fine ✓ – 進行"}]}}`) ||
		!strings.Contains(ts, "TOKEN s1_1") || strings.Contains(ts, "ERROR") {
		t.Errorf("the TypeScript client got:\n%s", ts)
	}
	if g := goClientReads(t, p.URL); !strings.Contains(g, `"text":"fine ✓ – 進行"`) {
		t.Errorf("the go-sdk client got:\n%s", g)
	}
}
