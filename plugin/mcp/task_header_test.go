package mcp

import (
	"strings"
	"testing"
)

// Regression (review of issue 13): the Mcp-Name header a task request
// goes upstream with was set to the server's taskId as it is, raw: a
// taskId with a control character (CR LF: a header of the server's
// making), a leading space or non-ASCII went into a request header
// unencoded. Every value the plugin writes into Mcp-Name is a valid
// header value that decodes to the body's taskId.
func TestTaskNameHeaderIsAHeaderValue(t *testing.T) {
	cfg := mustConfig(t, mrtrEnvelope)
	ann := hdr("x-mcp-principal", "ann")
	for _, c := range []struct{ name, jsonID, id string }{
		{"plain", `task-1`, "task-1"},
		{"CR LF", `a\r\nx-injected: 1`, "a\r\nx-injected: 1"},
		{"leading space", ` t`, " t"},
		{"non-ASCII", `tâche`, "tâche"},
	} {
		t.Run(c.name, func(t *testing.T) {
			handle, _ := createTask(t, cfg, ann, "crm_lookup", c.jsonID)
			_, r := post2026(t, cfg, ann, call("5", "tasks/get", `{"taskId":"`+handle+`",`+taskMeta+`}`))
			if r.Reply != nil {
				t.Fatalf("answered locally: %s", r.Reply.Body)
			}
			n := 0
			for _, kv := range r.Set {
				if !strings.EqualFold(kv[0], "mcp-name") {
					continue
				}
				n++
				v, ok := decodeHeaderValue(kv[1])
				if !ok || v != c.id || strings.ContainsAny(kv[1], "\r\n") || strings.TrimSpace(kv[1]) != kv[1] {
					t.Errorf("Mcp-Name set to %q: want a header value decoding to %q", kv[1], c.id)
				}
			}
			if n == 0 {
				t.Errorf("Mcp-Name not set: %v", r.Set)
			}
		})
	}
}
