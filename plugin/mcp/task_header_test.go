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

// Regression (review of issue 13): the client never sees the server's
// taskId, only its sealed handle; but a server error quoting the taskId
// it got (the restored one) reached the client as it was, since only
// restored pseudonyms were put back in errors. The handle goes back in
// its place.
func TestTaskIDNotInErrors(t *testing.T) {
	cfg := mustConfig(t, mrtrEnvelope)
	ann := hdr("x-mcp-principal", "ann")
	const taskID = "786512e2-9e0d-44bd-8f29-789f320fe840"
	handle, _ := createTask(t, cfg, ann, "crm_lookup", taskID)
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		t.Run(method, func(t *testing.T) {
			s, r := post2026(t, cfg, ann, call("5", method, `{"taskId":"`+handle+`",`+taskMeta+`}`))
			if r.Reply != nil {
				t.Fatalf("answered locally: %s", r.Reply.Body)
			}
			got := finish(t, s, `{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Task `+taskID+` has expired","data":{"taskId":"`+taskID+`"}}}`)
			if strings.Contains(got, taskID) || !strings.Contains(got, handle) {
				t.Errorf("client got %s: want the handle, not the server's taskId", got)
			}
		})
	}
}
