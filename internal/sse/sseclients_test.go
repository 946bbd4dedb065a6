package sse

import (
	"fmt"
	"strings"
)

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
