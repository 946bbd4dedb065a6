// Package ssereaders models how the MCP SDKs' clients read an event
// stream, written from their published sources (facts taken, no code
// copied), for tests: the plugin's output must read the same to each.
// It is imported by tests only.
package ssereaders

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Event is an event a client hands on: its type ("" read as
// "message") and data.
type Event struct{ Type, Data string }

// readTS is the TypeScript SDK's client (@modelcontextprotocol/sdk 1.32.2,
// client/streamableHttp.js, _handleSseStream): the body through
// TextDecoderStream (UTF-8, invalid bytes replaced, a leading U+FEFF
// dropped), then eventsource-parser 3.1.1 (createParser, feed: the
// characters U+00EF U+00BB U+00BF dropped at the start of the first chunk,
// here the whole stream; lines end at CR, LF or CRLF; an id with NUL is
// ignored; an event is dispatched at an empty line when it has data).
func ReadTS(stream string) []Event {
	s := strings.ToValidUTF8(stream, "\uFFFD")
	s = strings.TrimPrefix(s, "\uFEFF")
	s = strings.TrimPrefix(s, "ï»¿")
	var evs []Event
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
				evs = append(evs, Event{typ, data})
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
func ReadPython(stream string) []Event {
	s := strings.ToValidUTF8(stream, "\uFFFD")
	var evs []Event
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
				evs = append(evs, Event{typ, strings.Join(data, "\n")})
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
func ReadGo(stream string) ([]Event, error) {
	var evs []Event
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
				evs = append(evs, Event{typ, data.String()})
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
		evs = append(evs, Event{typ, data.String()})
	}
	return evs, nil
}

// clientsDisagree says how the clients' readings of stream differ, "" when
// they read the same events (with data other than white space; the
// go-sdk's trimming of each data line's spaces aside, and the unterminated
// last event it alone dispatches).
func Disagree(stream string) string {
	norm := func(evs []Event, drop bool) []Event {
		var out []Event
		for _, e := range evs {
			if e.Type == "" {
				e.Type = "message"
			}
			lines := strings.Split(e.Data, "\n")
			for i := range lines {
				lines[i] = strings.TrimSpace(lines[i])
			}
			e.Data = strings.Join(lines, "\n")
			if strings.TrimSpace(e.Data) == "" && drop {
				continue // nothing to read (the go-sdk trims it away)
			}
			out = append(out, e)
		}
		return out
	}
	ts := norm(ReadTS(stream), true)
	py := norm(ReadPython(stream), true)
	gevs, err := ReadGo(stream)
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

// nextBreak returns the index and length of the first line break in b
// that Python's str.splitlines reads (LF, CR, CRLF, VT, FF, FS, GS, RS,
// NEL, U+2028, U+2029), or -1.
func nextBreak(b []byte) (int, int) {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\n', 0x0B, 0x0C, 0x1C, 0x1D, 0x1E:
			return i, 1
		case '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				return i, 2
			}
			return i, 1
		case 0xC2:
			if i+1 < len(b) && b[i+1] == 0x85 {
				return i, 2
			}
		case 0xE2:
			if i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9) {
				return i, 3
			}
		}
	}
	return -1, 0
}

// IDs returns the value of every id line as eventsource-parser reads the
// stream (see ReadTS): what the TypeScript client may hand its
// application as a resumption token (more than it does: only the ids of
// events with data reach it).
func IDs(stream string) []string {
	s := strings.ToValidUTF8(stream, "\uFFFD")
	s = strings.TrimPrefix(strings.TrimPrefix(s, "\uFEFF"), "ï»¿")
	var ids []string
	for s != "" {
		line := s
		if j := strings.IndexAny(s, "\r\n"); j >= 0 {
			line, s = s[:j], s[j+1:]
		} else {
			s = ""
		}
		if field, value, _ := strings.Cut(line, ":"); field == "id" && !strings.Contains(value, "\x00") {
			ids = append(ids, strings.TrimPrefix(value, " "))
		}
	}
	return ids
}
