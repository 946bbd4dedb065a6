package transforms

import "testing"

// TestPayloadOfMethods pins the payload each method's result and params
// get: every method the switches knew before the MCP vocabulary became one
// table (internal/mcpvocab), with the same answers.
func TestPayloadOfMethods(t *testing.T) {
	results := map[string]Payload{
		"tools/call": ToolResult, "resources/read": ResourceContents, "prompts/get": PromptResult,
		"completion/complete": CompletionResult, "initialize": initializeResult,
		"tools/list": listResult, "resources/list": listResult, "resources/templates/list": listResult,
		"prompts/list": listResult, "tasks/list": listResult,
		"tasks/get": taskResult, "tasks/cancel": taskResult,
		"ping": emptyResult, "logging/setLevel": emptyResult, "resources/subscribe": emptyResult, "resources/unsubscribe": emptyResult,
		"tasks/result": AnyResult, "sampling/createMessage": AnyResult, "elicitation/create": AnyResult,
		"roots/list": AnyResult, "notifications/progress": AnyResult, "no/such": AnyResult, "": AnyResult,
	}
	for m, want := range results {
		if got := ResultPayload(m); got != want {
			t.Errorf("ResultPayload(%q) = %d, want %d", m, got, want)
		}
	}
	paramsOf := map[string]Payload{
		"notifications/progress": paramsProgress, "notifications/cancelled": paramsCancelled,
		"notifications/message": paramsLog, "notifications/resources/updated": paramsUpdated,
		"notifications/tasks/status": paramsTaskStatus, "notifications/elicitation/complete": paramsElicitDone,
		"sampling/createMessage": paramsSampling, "elicitation/create": paramsElicit,
		"tasks/get": paramsTaskID, "tasks/result": paramsTaskID, "tasks/cancel": paramsTaskID, "tasks/list": paramsList,
	}
	for m, want := range paramsOf {
		for _, request := range []bool{false, true} {
			if got := ParamsPayload(m, request); got != want {
				t.Errorf("ParamsPayload(%q, %v) = %d, want %d", m, request, got, want)
			}
		}
	}
	for _, m := range []string{"tools/call", "roots/list", "ping", "notifications/initialized", "no/such", ""} {
		if got := ParamsPayload(m, true); got != paramsRequest {
			t.Errorf("ParamsPayload(%q, true) = %d, want paramsRequest", m, got)
		}
		if got := ParamsPayload(m, false); got != params {
			t.Errorf("ParamsPayload(%q, false) = %d, want params", m, got)
		}
	}
}
