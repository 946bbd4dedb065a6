package e2e_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// postChunkedWithTrailers sends body as an HTTP/1.1 chunked request, cut in
// two chunks and ended by trailers, on a raw connection (Go's client adds
// trailers only to bodies it chunks itself), and returns the response.
func postChunkedWithTrailers(t *testing.T, url, session, principal, roles, body string) (*http.Response, string) {
	t.Helper()
	host := strings.TrimPrefix(url, "http://")
	c, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	half := len(body) / 2
	req := "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-03-26\r\n" +
		"Mcp-Session-Id: " + session + "\r\nx-mcp-principal: " + principal + "\r\nx-mcp-roles: " + roles + "\r\n" +
		"Transfer-Encoding: chunked\r\nTrailer: X-Checksum\r\n\r\n" +
		fmt.Sprintf("%x\r\n%s\r\n%x\r\n%s\r\n", half, body[:half], len(body)-half, body[half:]) +
		"0\r\nX-Checksum: 5eb63bbbe01eeed0\r\n\r\n"
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatalf("reading the response body: %v", err)
	}
	return res, string(b)
}

// A request whose body ends in trailers is judged like any other: a denied
// call (alone or in a batch) never reaches the server and gets the
// denial; an allowed one is answered and its answer transformed.
// Regression: the trailers released the held body unjudged.
func TestRequestEndingInTrailers(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			up := startUpstream(t, mode.jsonResponse)
			p := startPlugin(t, up.URL, envelope(true, mode.hold))
			session := rawInitialize(t, p.URL, "ann", "support")
			denied := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_customer","arguments":{"id":"marker-trailers-denied"}}}`
			allowed := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_customers","arguments":{"query":"alice"}}}`
			tests := []struct {
				name, body string
				want       []string // in the answer
				reached    string   // must reach the server ("" none)
			}{
				{"denied call", denied, []string{`"id":2`, `"code":-32602`, `delete_customer`}, ""},
				{"denied batch element", "[" + allowed + "," + denied + "]",
					[]string{`"id":2`, `"code":-32602`, `delete_customer`, `"id":3`, "EMAIL_"}, `"query":"alice"`},
				{"allowed call", allowed, []string{`"id":3`, "EMAIL_"}, `"query":"alice"`},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					res, body := postChunkedWithTrailers(t, p.URL, session, "ann", "support", tt.body)
					if res.StatusCode != 200 {
						t.Fatalf("HTTP %d: %s\n%s", res.StatusCode, body, p.logs)
					}
					for _, w := range tt.want {
						if !strings.Contains(body, w) {
							t.Errorf("answer %s lacks %s", body, w)
						}
					}
					if strings.Contains(body, "alice.martin@example.com") {
						t.Errorf("raw personal data in the answer: %s", body)
					}
					if up.received("marker-trailers-denied") {
						t.Fatal("the denied call reached the server")
					}
					if tt.reached != "" && !up.received(tt.reached) {
						t.Errorf("the allowed call did not reach the server")
					}
				})
			}
		})
	}
}

// A JSON answer that ends in trailers comes out transformed and filtered,
// without the trailers. Regression: the trailers released the held answer
// untransformed.
func TestResponseEndingInTrailers(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		result := `{"content":[{"type":"text","text":"Alice Martin <alice.martin@example.com>"}]}`
		if msg.Method == "tools/list" {
			result = `{"tools":[{"name":"search_customers","inputSchema":{"type":"object"}},{"name":"delete_customer","inputSchema":{"type":"object"}}]}`
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Trailer", "X-Debug")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":`+result+`}`)
		w.Header().Set("X-Debug", "served alice.martin@example.com")
	}))
	t.Cleanup(up.Close)
	for _, hold := range []bool{false, true} {
		t.Run(fmt.Sprintf("hold_headers=%v", hold), func(t *testing.T) {
			p := startPlugin(t, up.URL, envelope(true, hold))
			tests := []struct {
				name, request string
				want, absent  []string
			}{
				{"tools/call", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"search_customers","arguments":{"query":"alice"}}}`,
					[]string{`"id":5`, "EMAIL_"}, []string{"alice.martin@example.com"}},
				{"tools/list", `{"jsonrpc":"2.0","id":6,"method":"tools/list"}`,
					[]string{`"id":6`, "search_customers"}, []string{"delete_customer"}},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					req, _ := http.NewRequest("POST", p.URL+"/mcp", strings.NewReader(tt.request))
					setRawHeaders(req, "", "ann", "support")
					res, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					b, err := io.ReadAll(res.Body)
					res.Body.Close()
					if err != nil {
						t.Fatalf("reading the answer: %v", err)
					}
					body := string(b)
					for _, w := range tt.want {
						if !strings.Contains(body, w) {
							t.Errorf("answer %s lacks %s", body, w)
						}
					}
					for _, a := range tt.absent {
						if strings.Contains(body, a) {
							t.Errorf("answer %s holds %s", body, a)
						}
					}
					if len(res.Trailer) != 0 {
						t.Errorf("the server's trailers reached the client: %v", res.Trailer)
					}
				})
			}
		})
	}
}
