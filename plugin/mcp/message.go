// Package mcp handles MCP traffic as the plugin sees it: JSON-RPC bodies
// parsed once and strictly, requests turned into the primitive they name and
// judged by the policy, local error replies, and the per-stream state that
// matches responses to requests. Each HTTP stream is a Stream, the HTTP
// adapter (stream.go), which owns an exchange, the JSON-RPC message side
// (exchange.go). It talks to the host only through small interfaces
// (shareddata.Store, Metrics, Request), so it runs natively in tests;
// package main binds it to proxy-wasm.
package mcp

import (
	"math"
	"strconv"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/policy"
)

// messageKind classifies a JSON-RPC message.
type messageKind uint8

const (
	kindRequest messageKind = iota
	kindNotification
	kindResult
	kindError
)

// message is one JSON-RPC message within a parsed body.
type message struct {
	Kind messageKind
	// Node is the message object in the body's document.
	Node int32
	// ID is the raw JSON of the id ("" for notifications), echoed in the
	// plugin's own answers.
	ID string
	// Key is the id's identity, by which a response is matched to its
	// request (idKey).
	Key    string
	Method string
	// Invalid is set when the message is not valid JSON-RPC; it is then
	// answered locally and never forwarded.
	Invalid *policy.RPCError
}

// body is a parsed POST body: one message, or a batch (protocol 2025-03-26).
type body struct {
	Doc      *jsondoc.Doc
	Batch    bool
	Messages []message
}

// parseBody parses a request body strictly. A body that is not JSON gets
// -32700; one that JSON parsers could read differently gets -32600 (spec
// 16). Individual messages that are not valid JSON-RPC are marked Invalid.
// pb holds the body, its document and its one message: the VM's
// (vmCaches.parsed; each allocation costs about a microsecond inside the
// VM).
func parseBody(pb *parsedBody, b []byte) (*body, *policy.RPCError) {
	pb.body, pb.one[0] = body{}, message{} // pb.doc: ParseInto overwrites it
	doc := &pb.doc
	if err := jsondoc.ParseInto(doc, b); err != nil {
		if se, ok := err.(*jsondoc.SyntaxError); ok && se.Ambiguous {
			return nil, rpcError(mcpvocab.ErrInvalidRequest, se.Error())
		}
		return nil, rpcError(mcpvocab.ErrParse, err.Error())
	}
	body := &pb.body
	body.Doc = doc
	switch doc.Kind(jsondoc.Root) {
	case jsondoc.Object:
		pb.one[0] = readMessage(doc, jsondoc.Root)
		body.Messages = pb.one[:]
	case jsondoc.Array:
		body.Batch = true
		n := doc.Len(jsondoc.Root)
		if n == 0 {
			doc.Release()
			return nil, rpcError(mcpvocab.ErrInvalidRequest, "empty batch")
		}
		body.Messages = make([]message, 0, n)
		ids := make(map[string]bool, n) // request ids so far (keys)
		for c := doc.First(jsondoc.Root); c != jsondoc.None; c = doc.Next(c) {
			m := readMessage(doc, c)
			// Two requests with one id cannot both be answered: the
			// responses could only be told apart by order, and a
			// response judged under the other call's pipeline would slip
			// past its own. The later one is refused.
			if m.Kind == kindRequest && m.Invalid == nil {
				if ids[m.Key] {
					m.Invalid = invalid("id " + m.ID + " is already used by another request in this batch")
				}
				ids[m.Key] = true
			}
			body.Messages = append(body.Messages, m)
		}
	default:
		doc.Release()
		return nil, rpcError(mcpvocab.ErrInvalidRequest, "want a JSON-RPC object or batch")
	}
	return body, nil
}

// parsedBody is what parseBody allocates for a body: a single message
// (nearly every body) needs no more.
type parsedBody struct {
	body body
	doc  jsondoc.Doc
	one  [1]message
}

// idKey is the identity of the id at node n, written raw in the message:
// a string by its value (as the plugin would write it), a number by its
// value, since a server may echo "\u0061" as "a" or 1.0 as 1. "null" for
// anything else.
func idKey(doc *jsondoc.Doc, n int32, raw string) string {
	switch doc.Kind(n) {
	case jsondoc.String:
		if strings.IndexByte(raw, '\\') < 0 && isASCII(raw) {
			return raw // already as Quote writes it
		}
		s, _ := doc.Str(n)
		return jsondoc.Quote(s)
	case jsondoc.Number:
		plain := len(raw) <= 15 && raw != "-0"
		for i := 0; i < len(raw); i++ {
			if c := raw[i]; (c < '0' || c > '9') && (c != '-' || i > 0) {
				plain = false
				break
			}
		}
		if plain {
			return raw // an integer JSON can only write this way
		}
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return raw
		}
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return strconv.FormatInt(int64(f), 10)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return "null"
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func invalid(msg string) *policy.RPCError {
	return rpcError(mcpvocab.ErrInvalidRequest, msg)
}

// readMessage classifies one message and checks the JSON-RPC 2.0 envelope.
func readMessage(doc *jsondoc.Doc, n int32) message {
	m := message{Node: n}
	if doc.Kind(n) != jsondoc.Object {
		m.Invalid = invalid("a batch element is not an object")
		m.ID = "null"
		return m
	}
	idNode := doc.Get(n, "id")
	switch doc.Kind(idNode) {
	case jsondoc.Number, jsondoc.String:
		m.ID = doc.ValueString(idNode)
		m.Key = idKey(doc, idNode, m.ID)
	case jsondoc.Invalid:
	case jsondoc.Null:
		m.ID = "null"
	default:
		m.ID = "null"
		m.Invalid = invalid("id must be a string or a number")
		return m
	}
	if !doc.StrEquals(doc.Get(n, "jsonrpc"), "2.0") {
		m.Invalid = invalid(`jsonrpc must be "2.0"`)
		if m.ID == "" {
			m.ID = "null"
		}
		return m
	}
	methodNode := doc.Get(n, "method")
	if methodNode != jsondoc.None {
		method, ok := methodName(doc, methodNode)
		if !ok || method == "" {
			m.Invalid = invalid("method must be a non-empty string")
			if m.ID == "" {
				m.ID = "null"
			}
			return m
		}
		m.Method = method
		if p := doc.Get(n, "params"); p != jsondoc.None && doc.Kind(p) != jsondoc.Object && doc.Kind(p) != jsondoc.Array {
			m.Invalid = invalid("params must be an object or an array")
			if m.ID == "" {
				m.ID = "null"
			}
			return m
		}
		switch {
		case idNode == jsondoc.None && judgedInAny(method):
			// JSON-RPC executes notifications: a call without an id would
			// reach the server unjudged.
			m.Invalid = invalid(method + " must be a request with an id")
			m.ID = "null"
		case idNode == jsondoc.None:
			m.Kind = kindNotification
		case m.ID == "null":
			// MCP forbids null ids; a null-id request cannot be answered
			// distinctly, so it is refused rather than forwarded unjudged.
			m.Invalid = invalid("request id must not be null")
		default:
			m.Kind = kindRequest
		}
		return m
	}
	hasResult, hasError := doc.Get(n, "result") != jsondoc.None, doc.Get(n, "error") != jsondoc.None
	switch {
	case hasResult && !hasError:
		m.Kind = kindResult
	case hasError && !hasResult:
		m.Kind = kindError
	default:
		m.Invalid = invalid("neither a request, a notification nor a response")
	}
	if m.ID == "" {
		m.ID = "null"
	}
	return m
}

// methodName is the value of a method member: for a method the plugin
// knows, the table's own string rather than a copy of the body's bytes.
func methodName(doc *jsondoc.Doc, n int32) (string, bool) {
	if raw, ok := doc.StrRaw(n); ok {
		if name, known := mcpvocab.KnownName(raw); known {
			return name, true
		}
	}
	return doc.Str(n)
}

// ErrorResponse builds a JSON-RPC error response for id (raw JSON).
func ErrorResponse(id string, e *policy.RPCError) []byte { return mcpvocab.ErrorResponse(id, e) }

// rawJSON is error data already serialized.
type rawJSON = mcpvocab.RawJSON

// InternalError is the error a stream gets when the plugin fails it closed.
var InternalError = *rpcError(mcpvocab.ErrInternal, "the privacy filter failed this request")
