// Command mcp-demo-server serves the demo MCP server (package internal/demo)
// over Streamable HTTP, for `make run` and for trying policies by hand.
package main

import (
	"flag"
	"log"
	"net/http"

	"github.com/cloudg/mcp-privacy/internal/demo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:3000", "address to serve on")
	jsonResponse := flag.Bool("json", false, "answer application/json instead of event streams")
	stateless := flag.Bool("stateless", false, "no sessions: tools can be called without an initialize handshake (handy with curl)")
	flag.Parse()
	http.Handle("/mcp", demo.HandlerWith(&mcp.StreamableHTTPOptions{JSONResponse: *jsonResponse, Stateless: *stateless}))
	log.Printf("demo MCP server on http://%s/mcp", *listen)
	log.Fatal(http.ListenAndServe(*listen, nil))
}
