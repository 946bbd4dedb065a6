package mcpvocab

import "github.com/cloudg/mcp-privacy/internal/jsondoc"

// Err is a JSON-RPC error the plugin (or a server it answers for) sends
// (spec 15). Its code and standard message are a column of the revision's
// table: a revision may renumber one (2026-07-28 answers a resource that
// does not exist with -32602).
type Err uint8

const (
	ErrParse Err = iota
	ErrInvalidRequest
	ErrMethodNotFound
	ErrInvalidParams
	ErrInternal
	ErrResourceNotFound
	ErrAccessDenied
	ErrBlocked
	ErrRateLimited
	NumErrs
)

// ErrorCode is an error's code and standard message under one revision.
type ErrorCode struct {
	Code    int
	Message string
}

// Error is the code and standard message of e under this table's revision.
func (t *Table) Error(e Err) ErrorCode { return t.errors[e] }

// The codes of the 2025 revisions (spec 15).
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeResourceNotFound = -32002
	CodeAccessDenied     = -32003
	CodeBlocked          = -32004
	CodeRateLimited      = -32029
)

var errors2025 = [NumErrs]ErrorCode{
	ErrParse:            {CodeParseError, "Parse error"},
	ErrInvalidRequest:   {CodeInvalidRequest, "Invalid Request"},
	ErrMethodNotFound:   {CodeMethodNotFound, "Method not found"},
	ErrInvalidParams:    {CodeInvalidParams, "Invalid params"},
	ErrInternal:         {CodeInternalError, "Internal error"},
	ErrResourceNotFound: {CodeResourceNotFound, "Resource not found"},
	ErrAccessDenied:     {CodeAccessDenied, "Access denied"},
	ErrBlocked:          {CodeBlocked, "Blocked by privacy policy"},
	ErrRateLimited:      {CodeRateLimited, "Rate limit exceeded"},
}

// RPCError is a JSON-RPC error object (spec 15).
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// NewError is error e of this revision with its standard message, or with
// "message: detail" when detail is not empty.
func (t *Table) NewError(e Err, detail string, data any) *RPCError {
	c := t.errors[e]
	msg := c.Message
	if detail != "" {
		msg = c.Message + ": " + detail
	}
	return &RPCError{Code: c.Code, Message: msg, Data: data}
}

// AccessDeniedData is the data of a visible denial (-32003).
type AccessDeniedData struct {
	Policy string `json:"policy"`
	Rule   string `json:"rule"`
	Reason string `json:"reason"`
	Kind   string `json:"kind"`
	Name   string `json:"name"`
}

// ResourceNotFoundData is what servers send with -32002.
type ResourceNotFoundData struct {
	URI string `json:"uri"`
}

// RawJSON is error data already serialized.
type RawJSON []byte

// AppendErrorResponse appends a JSON-RPC error response to id (raw JSON;
// "" is null). It is the one writer of the plugin's error responses.
func AppendErrorResponse(out []byte, id string, e *RPCError) []byte {
	if id == "" {
		id = "null"
	}
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"error":`...)
	out = AppendError(out, e)
	return append(out, '}')
}

// ErrorResponse is a JSON-RPC error response to id (raw JSON; "" is null).
func ErrorResponse(id string, e *RPCError) []byte {
	return AppendErrorResponse(make([]byte, 0, 96+len(e.Message)), id, e)
}

// AppendError appends an error object.
func AppendError(out []byte, e *RPCError) []byte {
	out = append(out, `{"code":`...)
	out = appendInt(out, e.Code)
	out = append(out, `,"message":`...)
	out = jsondoc.AppendString(out, e.Message)
	if e.Data != nil {
		out = append(out, `,"data":`...)
		out = appendData(out, e.Data)
	}
	return append(out, '}')
}

func appendData(out []byte, data any) []byte {
	switch d := data.(type) {
	case AccessDeniedData:
		out = append(out, `{"policy":`...)
		out = jsondoc.AppendString(out, d.Policy)
		out = append(out, `,"rule":`...)
		out = jsondoc.AppendString(out, d.Rule)
		out = append(out, `,"reason":`...)
		out = jsondoc.AppendString(out, d.Reason)
		out = append(out, `,"kind":`...)
		out = jsondoc.AppendString(out, d.Kind)
		out = append(out, `,"name":`...)
		out = jsondoc.AppendString(out, d.Name)
		return append(out, '}')
	case ResourceNotFoundData:
		out = append(out, `{"uri":`...)
		out = jsondoc.AppendString(out, d.URI)
		return append(out, '}')
	case RawJSON:
		return append(out, d...)
	}
	return append(out, "null"...)
}

func appendInt(out []byte, n int) []byte {
	if n < 0 {
		out = append(out, '-')
		n = -n
	}
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(out, buf[i:]...)
}
