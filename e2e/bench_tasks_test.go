package e2e_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/wasmhost"
)

// BenchmarkTaskGetWasm: a poll of a task through build/mcp-privacy.wasm,
// request and response, one stream per op: the task handle opened and
// the server's taskId restored (body and Mcp-Name), the request judged as
// a call of the task's tool, the small completed result transformed with
// that tool's pipeline and the taskId sealed again. Next to
// BenchmarkToolsCallWasm/stream (a small call and its result, the same
// policy), the difference is what tasks cost.
func BenchmarkTaskGetWasm(b *testing.B) {
	config := strings.Replace(rbBenchEnvelope, `"policy": {`, `"policy": {"vault": {"key": "bench key"},`, 1)
	h := rbBenchHost(b, benchPlugin(b), config)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	// The headers a 2026-07-28 client sends with body.
	stream := func(method, body, name, response string) *wasmhost.Stream {
		s := h.NewStream()
		s.RequestHeaders(append(rbBenchRequest(body),
			wasmhost.H("mcp-protocol-version", "2026-07-28", "mcp-method", method, "mcp-name", name)...), false)
		s.RequestBody([]byte(body), true)
		s.ResponseHeaders(wasmhost.H(":status", "200", "content-type", "application/json",
			"content-length", strconv.Itoa(len(response))), false)
		s.ResponseBody([]byte(response), true)
		s.Close()
		return s
	}
	const taskID = "786512e2-9e0d-44bd-8f29-789f320fe840"
	created := stream("tools/call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_customers","arguments":{},`+meta+`}}`, "search_customers",
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"`+taskID+`","status":"working","createdAt":"x","lastUpdatedAt":"y","ttlMs":60000}}`)
	var c struct{ Result struct{ TaskID string } }
	if err := json.Unmarshal(created.Downstream().Body, &c); err != nil || !strings.HasPrefix(c.Result.TaskID, "mcpp-task-") {
		b.Fatalf("no handle: %s", created.Downstream().Body)
	}
	body := `{"jsonrpc":"2.0","id":42,"method":"tasks/get","params":{"taskId":"` + c.Result.TaskID + `",` + meta + `}}`
	result := `{"jsonrpc":"2.0","id":42,"result":{"resultType":"complete","taskId":"` + taskID + `","status":"completed","createdAt":"x","lastUpdatedAt":"y","ttlMs":60000,` +
		`"result":{"content":[{"type":"text","text":"2 customers"}],"structuredContent":{"count":2}}}}`
	s := stream("tasks/get", body, c.Result.TaskID, result)
	if up := string(s.Upstream().Body); !strings.Contains(up, `"taskId":"`+taskID+`"`) {
		b.Fatalf("taskId not restored: %s", up)
	}
	if down := string(s.Downstream().Body); !strings.Contains(down, c.Result.TaskID) || !strings.Contains(down, "2 customers") {
		b.Fatalf("response: %s", down)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		stream("tasks/get", body, c.Result.TaskID, result)
	}
	if err := h.Worker(0).Err(); err != nil {
		b.Fatal(err)
	}
}
