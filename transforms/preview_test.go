package transforms

import (
	"reflect"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/transforms/detect"
)

func TestDetections(t *testing.T) {
	tests := []struct {
		name   string
		policy string
		text   string
		want   []detect.Detection
	}{
		{
			name:   "union of the steps' selections, byte offsets",
			policy: "transforms: [{type: redact, options: {detectors: ['@secrets']}}, {type: pseudonymise, options: {detectors: [email]}}]\n",
			// "ü" is two bytes.
			text: "Grüße jo@example.com password=hunter22 ip 10.0.0.1",
			want: []detect.Detection{
				{Detector: "email", Label: "EMAIL", Start: 8, End: 22},
				{Detector: "generic_secret", Label: "SECRET", Start: 32, End: 40},
			},
		},
		{
			name:   "a step limited by fields does not act on plain text",
			policy: "transforms: [{type: redact, options: {fields: [email]}}, {type: mask, options: {detectors: [ipv4]}}]\n",
			text:   "jo@example.com 10.0.0.1",
			want:   []detect.Detection{{Detector: "ipv4", Label: "IP_ADDRESS", Start: 15, End: 23}},
		},
		{
			name:   "the same finding by two steps is listed once",
			policy: "transforms: [detect, {type: block, options: {detectors: [email]}}]\n",
			text:   "jo@example.com",
			want:   []detect.Detection{{Detector: "email", Label: "EMAIL", Start: 0, End: 14}},
		},
		{
			name:   "steps that do not detect find nothing",
			policy: "transforms: [truncate, drop_binary]\n",
			text:   "jo@example.com",
		},
		{name: "empty pipeline", policy: "name: p\n", text: "jo@example.com"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, p, _ := engineFor(t, tc.policy)
			got := e.Detections(compileOutput(t, e, p), tc.text)
			for i := range got {
				got[i].Sensitivity = 0
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestPayloadDetections(t *testing.T) {
	type found struct {
		Path       string
		Label      string
		Start, End int
	}
	tests := []struct {
		name    string
		policy  string
		payload string
		kind    Payload
		want    []found
	}{
		{
			name:   "tool result: text, JSON text, structuredContent as JSON and as text",
			policy: "transforms: [pseudonymise]\n",
			payload: `{"content":[
				{"type":"text","text":"to jo@example.com"},
				{"type":"image","data":"jo@example.com","mimeType":"image/png"},
				{"type":"text","text":"{\"users\":[{\"email\":\"a@b.org\"},{\"email\":\"c@d.org\"}]}"}],
				"structuredContent":{"a.b":{"x*":"ip 10.0.0.1"}}}`,
			kind: ToolResult,
			want: []found{
				{"content.0.text", "EMAIL", 3, 17},
				{"content.2.text.users.0.email", "EMAIL", 0, 7},
				{"content.2.text.users.1.email", "EMAIL", 0, 7},
				{`structuredContent.a\.b.x\*`, "IP_ADDRESS", 3, 11},
			},
		},
		{
			// Read as Apply reads them (numberReadings): Start and End
			// index the reading the card is found in.
			name:   "numbers in any spelling",
			policy: "transforms: [redact]\n",
			payload: `{"content":[{"type":"text","text":"[4111111111111111.0]"}],
				"structuredContent":{"a":4.111111111111111e15,"b":-41111111111111110e-1,"c":1.5e3,"d":4111111111111111}}`,
			kind: ToolResult,
			want: []found{
				{"content.0.text.0", "CREDIT_CARD", 0, 16},
				{"structuredContent.a", "CREDIT_CARD", 0, 16},
				{"structuredContent.b", "CREDIT_CARD", 1, 17},
				{"structuredContent.d", "CREDIT_CARD", 0, 16},
			},
		},
		{
			name:    "error data that is a number",
			policy:  "transforms: [redact]\n",
			payload: `{"code":1,"message":"x","data":4111111111111111E0}`,
			kind:    ErrorObject,
			want:    []found{{"data", "CREDIT_CARD", 0, 16}},
		},
		{
			name:    "structuredContent sent as a JSON string",
			policy:  "transforms: [pseudonymise]\n",
			payload: `{"structuredContent":"{\"email\":\"a@b.org\"}"}`,
			kind:    ToolResult,
			want:    []found{{"structuredContent.email", "EMAIL", 0, 7}},
		},
		{
			name: "fields and exclude_fields limit each step",
			policy: "transforms: [{type: redact, options: {fields: [owner]}}, " +
				"{type: mask, options: {detectors: [ipv4], exclude_fields: [internal]}}]\n",
			payload: `{"structuredContent":{"owner":"jo@example.com 10.0.0.1","other":"x@y.org","internal":"10.0.0.2"}}`,
			kind:    ToolResult,
			want: []found{
				{"structuredContent.owner", "EMAIL", 0, 14},
				{"structuredContent.owner", "IP_ADDRESS", 15, 23},
			},
		},
		{
			name:    "a projection hides what later steps would not see; paths stay those of the input",
			policy:  "transforms: [{type: project, options: {exclude: ['rows.0']}}, pseudonymise]\n",
			payload: `{"structuredContent":{"rows":[{"email":"a@b.org"},{"email":"c@d.org"}]}}`,
			kind:    ToolResult,
			want:    []found{{"structuredContent.rows.1.email", "EMAIL", 0, 7}},
		},
		{
			name:    "a projection after the detecting step hides nothing from it",
			policy:  "transforms: [detect, {type: project, options: {exclude: [rows]}}]\n",
			payload: `{"structuredContent":{"rows":[{"email":"a@b.org"}]}}`,
			kind:    ToolResult,
			want:    []found{{"structuredContent.rows.0.email", "EMAIL", 0, 7}},
		},
		{
			name:    "server messages: structural members are left alone, _meta is data",
			policy:  "transforms: [detect]\n",
			payload: `{"progressToken":"x@y.org","_meta":{"by":"x@y.org"},"message":"jo@example.com"}`,
			kind:    ParamsPayload("notifications/progress", false),
			want:    []found{{"_meta.by", "EMAIL", 0, 7}, {"message", "EMAIL", 0, 14}},
		},
		// Regressions: preview reads payloads as Apply does.
		{
			name:    "JSON text the strict parser rejects is scanned whole by a step with fields",
			policy:  "transforms: [{type: redact, options: {fields: [email]}}]\n",
			payload: `{"content":[{"type":"text","text":"{\"email\":\"a@example.com\",\"email\":\"b@example.com\"}"}]}`,
			kind:    ToolResult,
			want:    []found{{"content.0.text", "EMAIL", 10, 23}, {"content.0.text", "EMAIL", 34, 47}},
		},
		{
			name:    "image data in server messages is not scanned",
			policy:  "transforms: [detect]\n",
			payload: `{"content":{"type":"image","data":"bob@example.com"},"note":"jo@example.com"}`,
			kind:    AnyStrings,
			want:    []found{{"note", "EMAIL", 0, 14}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, p, _ := engineFor(t, tc.policy)
			doc, err := jsondoc.Parse([]byte(tc.payload))
			if err != nil {
				t.Fatal(err)
			}
			var got []found
			for _, d := range e.PayloadDetections(compileOutput(t, e, p), doc, jsondoc.Root, tc.kind) {
				got = append(got, found{d.Path, d.Label, d.Start, d.End})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			if doc.Changed() {
				t.Error("PayloadDetections changed the document")
			}
		})
	}
}
