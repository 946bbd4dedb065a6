package e2e_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestZZProbe(t *testing.T) {
	for _, jsonMode := range []bool{false, true} {
	up := startUpstream(t, jsonMode)
	session := rawInitialize(t, up.URL, "", "")
	for _, b := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"nope"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"customers://zz/profile"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"nope://x"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"resources/subscribe","params":{"uri":"nope://x"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"a","value":"b"}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"nope://{x}"},"argument":{"name":"a","value":"b"}}}`,
		`[{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"nope","arguments":{}}}]`,
	} {
		req, _ := http.NewRequest("POST", up.URL+"/mcp", strings.NewReader(b))
		setRawHeaders(req, session, "", "")
		res, err := http.DefaultClient.Do(req)
		if err != nil { t.Fatal(err) }
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		fmt.Printf("json=%v %s\n  %d %v\n  %q\n", jsonMode, b, res.StatusCode, res.Header, body)
	}
	}
}
