package mcp

import (
	"testing"

	"github.com/cloudg/mcp-privacy/policy"
)

// TestErrorResponseBytes pins the bytes of every kind of JSON-RPC error
// response the plugin writes, so that moving the encoder (or the codes and
// messages it reads) cannot change what a client receives.
func TestErrorResponseBytes(t *testing.T) {
	cases := []struct {
		name string
		id   string
		e    *policy.RPCError
		want string
	}{
		{"no id is null", "", &policy.RPCError{Code: policy.CodeParseError, Message: "Parse error: empty body"},
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: empty body"}}`},
		{"string id, escaped message", `"a\u0062"`, &policy.RPCError{Code: policy.CodeInvalidRequest, Message: "Invalid Request: \"x\"\n<&>\u2028\x01"},
			`{"jsonrpc":"2.0","id":"a\u0062","error":{"code":-32600,"message":"Invalid Request: \"x\"\n<&>\u2028\u0001"}}`},
		{"hidden tool", "7", &policy.RPCError{Code: policy.CodeInvalidParams, Message: "Unknown tool: t"},
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Unknown tool: t"}}`},
		{"hidden resource", "8", &policy.RPCError{Code: policy.CodeResourceNotFound, Message: "Resource not found",
			Data: policy.ResourceNotFoundData{URI: "file:///é\"x"}},
			`{"jsonrpc":"2.0","id":8,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"file:///é\"x"}}}`},
		{"access denied", "9", &policy.RPCError{Code: policy.CodeAccessDenied, Message: "Access denied",
			Data: policy.AccessDeniedData{Policy: "corp", Rule: "r", Reason: "why \"not\"", Kind: "tool", Name: "n"}},
			`{"jsonrpc":"2.0","id":9,"error":{"code":-32003,"message":"Access denied","data":{"policy":"corp","rule":"r","reason":"why \"not\"","kind":"tool","name":"n"}}}`},
		{"blocked, raw data", "10", &policy.RPCError{Code: policy.CodeBlocked, Message: "Blocked by privacy policy", Data: rawJSON(`{"a":1}`)},
			`{"jsonrpc":"2.0","id":10,"error":{"code":-32004,"message":"Blocked by privacy policy","data":{"a":1}}}`},
		{"rate limited", "11", &policy.RPCError{Code: policy.CodeRateLimited, Message: "Rate limit exceeded", Data: rawJSON(`{"retryAfter":3}`)},
			`{"jsonrpc":"2.0","id":11,"error":{"code":-32029,"message":"Rate limit exceeded","data":{"retryAfter":3}}}`},
		{"internal", "null", &InternalError,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: the privacy filter failed this request"}}`},
		{"unknown data type", "1", &policy.RPCError{Code: 0, Message: "", Data: 3},
			`{"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"","data":null}}`},
		{"positive code", "1", &policy.RPCError{Code: 12, Message: "m"},
			`{"jsonrpc":"2.0","id":1,"error":{"code":12,"message":"m"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(ErrorResponse(tc.id, tc.e)); got != tc.want {
				t.Errorf("ErrorResponse =\n %s\nwant\n %s", got, tc.want)
			}
		})
	}
}
