package mcpvocab

import "github.com/cloudg/mcp-privacy/internal/jsondoc"

// Err is a JSON-RPC error the plugin (or a server it answers for) sends
// (manual 15). Its code and standard message are a column of the revision's
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
	// ErrHeaderMismatch: the HTTP headers that mirror the body disagree
	// with it, or a required one is missing or malformed (2026-07-28).
	ErrHeaderMismatch
	// ErrMissingCapability: the request needs a client capability its
	// _meta does not declare (2026-07-28).
	ErrMissingCapability
	// ErrUnsupportedVersion: the protocol version is not one the server
	// speaks (2026-07-28).
	ErrUnsupportedVersion
	NumErrs
)

// ErrorCode is an error's code and standard message under one revision.
type ErrorCode struct {
	Code    int
	Message string
}

// Error is the code and standard message of e under this table's revision.
func (t *Table) Error(e Err) ErrorCode { return t.errors[e] }

// The codes of the 2025 revisions (manual 15).
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

// The codes 2026-07-28 defines (basic/index, "Error Codes"), in the range
// it reserves for the specification.
const (
	CodeHeaderMismatch     = -32020
	CodeMissingCapability  = -32021
	CodeUnsupportedVersion = -32022
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
	// Not defined before 2026-07-28, and never sent under a 2025
	// revision (they are about what 2026 requests carry); the codes are
	// 2026's so the column is whole.
	ErrHeaderMismatch:     {CodeHeaderMismatch, "Header mismatch"},
	ErrMissingCapability:  {CodeMissingCapability, "Missing required client capability"},
	ErrUnsupportedVersion: {CodeUnsupportedVersion, "Unsupported protocol version"},
}

// errors2026 are 2025's codes but for a resource that does not exist,
// which is invalid params (-32602) under 2026-07-28, and the codes it
// adds.
var errors2026 = func() [NumErrs]ErrorCode {
	e := errors2025
	e[ErrResourceNotFound] = ErrorCode{CodeInvalidParams, "Resource not found"}
	return e
}()

// RPCError is a JSON-RPC error object (manual 15).
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
