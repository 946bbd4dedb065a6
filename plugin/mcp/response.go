package mcp

import (
	"strings"
)

// ResponseHeadersResult is the outcome of the response headers callback.
type ResponseHeadersResult struct {
	Action Action
	Remove []string
	Reply  *LocalReply
}

// responseMode says how the body of a response is handled.
type responseMode uint8

const (
	passBody  responseMode = iota
	mergeJSON              // buffer a JSON batch response and add pending answers
	appendSSE              // add pending answers as events at the end of the stream
)

// OnResponseHeaders sees the upstream's status and content type. The
// plugin's own local replies pass untouched.
func (s *Stream) OnResponseHeaders(status int, contentType string, endOfStream bool) ResponseHeadersResult {
	var r ResponseHeadersResult
	if s.replied || len(s.pending) == 0 {
		return r
	}
	// Part of a batch was answered locally: its answers join the
	// upstream's.
	switch mt := mediaType(contentType); {
	case endOfStream || status == 202:
		s.replied = true
		r.Reply = jsonReply(200, joinArray(s.pending), "mcp_privacy_batch")
		s.pending = nil
	case mt == "application/json":
		s.mode = mergeJSON
		r.Remove = []string{"content-length"}
	case mt == "text/event-stream":
		s.mode = appendSSE
	}
	return r
}

// OnResponseBody sees the response body so far; body returns it whole.
// It returns the replacement body (nil: unchanged).
func (s *Stream) OnResponseBody(size int, endOfStream bool, body func() []byte) (Action, []byte) {
	switch s.mode {
	case mergeJSON:
		if !endOfStream {
			return Pause, nil
		}
		return Continue, s.mergeBatch(body())
	case appendSSE:
		if !endOfStream {
			return Continue, nil
		}
		// Appending at the end of the stream: the events already went out.
		var out []byte
		for _, p := range s.pending {
			out = append(out, "event: message\ndata: "...)
			out = append(out, p...)
			out = append(out, "\n\n"...)
		}
		s.pending = nil
		return Continue, append(body(), out...)
	}
	return Continue, nil
}

// mergeBatch adds the pending local answers to a JSON response: into the
// array of a batch response, or around a single response.
func (s *Stream) mergeBatch(raw []byte) []byte {
	items := s.pending
	s.pending = nil
	trimmed := strings.TrimSpace(string(raw))
	switch {
	case strings.HasPrefix(trimmed, "[") && strings.HasSuffix(trimmed, "]"):
		inner := strings.TrimSpace(trimmed[1 : len(trimmed)-1])
		if inner != "" {
			items = append([][]byte{[]byte(inner)}, items...)
		}
	case trimmed != "":
		items = append([][]byte{[]byte(trimmed)}, items...)
	}
	return joinArray(items)
}

func mediaType(ct string) string {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.ToLower(strings.TrimSpace(ct))
}
