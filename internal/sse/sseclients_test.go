package sse

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Models of how the MCP SDKs' clients read an event stream, written from
// their published sources (facts taken, no code copied). The rewriter's
// output must read the same to each (clientsDisagree); the input need not.

// clientEvent is an event a client hands on: its type ("" read as
// "message") and data.
type clientEvent struct{ typ, data string }

// readTS is the TypeScript SDK's client (@modelcontextprotocol/sdk 1.32.2,
// client/streamableHttp.js, _handleSseStream): the body through
// TextDecoderStream (UTF-8, invalid bytes replaced, a leading U+FEFF
// dropped), then eventsource-parser 3.1.1 (createParser, feed: the
// characters U+00EF U+00BB U+00BF dropped at the start of the first chunk,
// here the whole stream; lines end at CR, LF or CRLF; an id with NUL is
// ignored; an event is dispatched at an empty line when it has data).
func readTS(stream string) []clientEvent {
	s := strings.ToValidUTF8(stream, "\uFFFD")
	s = strings.TrimPrefix(s, "\uFEFF")
	s = strings.TrimPrefix(s, "ï»¿")
	var evs []clientEvent
	var typ, data string
	n := 0
	for {
		j := strings.IndexAny(s, "\r\n")
		if j < 0 {
			return evs
		}
		line := s[:j]
		if s[j] == '\r' && j+1 < len(s) && s[j+1] == '\n' {
			j++
		}
		s = s[j+1:]
		if line == "" {
			if n > 0 {
				evs = append(evs, clientEvent{typ, data})
			}
			typ, data, n = "", "", 0
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, ok := strings.Cut(line, ":")
		if ok {
			value = strings.TrimPrefix(value, " ")
		}
		switch field {
		case "event":
			typ = value
		case "data":
			if n > 0 {
				data += "\n"
			}
			data += value
			n++
		}
	}
}

// readPython is the Python SDK 1.x client: httpx (0.28, _models.py
// Response.iter_text and aiter_lines) decodes the body by its charset,
// UTF-8 here, invalid bytes replaced, a BOM kept; httpx's LineDecoder
// (_decoders.py) ends lines where str.splitlines does (LF, CR, CRLF, VT,
// FF, FS, GS, RS, NEL, U+2028, U+2029); httpx-sse 0.4.1's SSEDecoder
// (_decoders.py, decode) reads each line (a comment starts with ':', the
// field name runs to the first ':', one space dropped) and dispatches at
// an empty line when it has an event, data, an id or a retry.
func readPython(stream string) []clientEvent {
	s := strings.ToValidUTF8(stream, "\uFFFD")
	var evs []clientEvent
	var typ string
	var data []string
	pending := false
	for {
		j, n := nextBreak([]byte(s))
		if j < 0 {
			return evs // the last line, unterminated, dispatches nothing
		}
		line := s[:j]
		s = s[j+n:]
		if line == "" {
			if pending {
				evs = append(evs, clientEvent{typ, strings.Join(data, "\n")})
			}
			typ, data, pending = "", nil, false
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			typ, pending = value, true
		case "data":
			data, pending = append(data, value), true
		case "id", "retry":
			pending = true
		}
	}
}

// readGo is the go-sdk's client (v1.8.0, mcp/event.go, scanEventsLimited):
// bytes, lines ended by LF (a trailing CR trimmed), values trimmed of
// spaces, a line without a colon an error that quotes it, and the event
// still open at the end of the stream dispatched. Its data then goes to
// encoding/json (jsonrpc.DecodeMessage), which reads invalid UTF-8 as
// U+FFFD, as the decoders of the others do.
func readGo(stream string) ([]clientEvent, error) {
	var evs []clientEvent
	var typ string
	var data *bytes.Buffer
	s := stream
	for s != "" {
		line := s
		if j := strings.IndexByte(s, '\n'); j >= 0 {
			line, s = s[:j], s[j+1:]
		} else {
			s = ""
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if data != nil {
				evs = append(evs, clientEvent{typ, data.String()})
			}
			typ, data = "", nil
			continue
		}
		before, after, ok := strings.Cut(line, ":")
		if !ok {
			return evs, fmt.Errorf("malformed line in SSE stream: %q", line)
		}
		switch before {
		case "event":
			typ = strings.TrimSpace(after)
		case "data":
			if data == nil {
				data = new(bytes.Buffer)
			} else {
				data.WriteByte('\n')
			}
			data.WriteString(strings.ToValidUTF8(strings.TrimSpace(after), "\uFFFD"))
		}
	}
	if data != nil {
		evs = append(evs, clientEvent{typ, data.String()})
	}
	return evs, nil
}

// clientsDisagree says how the clients' readings of stream differ, "" when
// they read the same events (with data; the go-sdk's trimming of each data
// line's spaces aside, and the unterminated last event it alone
// dispatches).
func clientsDisagree(stream string) string {
	norm := func(evs []clientEvent, drop bool) []clientEvent {
		var out []clientEvent
		for _, e := range evs {
			if e.data == "" && drop {
				continue
			}
			if e.typ == "" {
				e.typ = "message"
			}
			lines := strings.Split(e.data, "\n")
			for i := range lines {
				lines[i] = strings.TrimSpace(lines[i])
			}
			e.data = strings.Join(lines, "\n")
			out = append(out, e)
		}
		return out
	}
	ts := norm(readTS(stream), true)
	py := norm(readPython(stream), true)
	gevs, err := readGo(stream)
	if err != nil {
		return "the go-sdk fails: " + err.Error()
	}
	goes := norm(gevs, true)
	if len(goes) == len(ts)+1 && !strings.HasSuffix(stream, "\n\n") {
		goes = goes[:len(ts)]
	}
	switch {
	case !slices.Equal(ts, py):
		return fmt.Sprintf("TypeScript reads %q, Python %q", ts, py)
	case !slices.Equal(ts, goes):
		return fmt.Sprintf("TypeScript reads %q, the go-sdk %q", ts, goes)
	}
	return ""
}

// notCanonical says why stream is not in the rewriter's canonical form
// (see Rewriter), "" when it is. The last line may lack its LF (Close).
func notCanonical(stream string) string {
	if strings.HasPrefix(stream, utf8BOM) {
		return "a BOM"
	}
	if strings.IndexByte(stream, '\r') >= 0 {
		return "a CR"
	}
	for i := range len(stream) {
		if oddBreak[stream[i]] && breakAt([]byte(stream), i) > 0 {
			return fmt.Sprintf("a line break at %d", i)
		}
	}
	for _, line := range strings.Split(stream, "\n") {
		if line != "" && !plainLine([]byte(line)) {
			return fmt.Sprintf("the line %q", line)
		}
	}
	return ""
}

// breaksAsLF is data as a client reads it from the rewriter's output:
// every line break some client reads (breakAt) an LF.
func breaksAsLF(d string) string {
	b := []byte(d)
	var out []byte
	for {
		j, n := nextBreak(b)
		if j < 0 {
			return string(append(out, b...))
		}
		out = append(append(out, b[:j]...), '\n')
		b = b[j+n:]
	}
}
