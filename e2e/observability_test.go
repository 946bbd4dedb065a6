package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/internal/wasmhost"
	"github.com/cloudg/mcp-privacy/internal/wasmtest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Audit and metrics of the compiled plugin (manual 14) through real go-sdk
// sessions. Helpers are prefixed ob.

// obCorpusValue is one true positive of the detector corpus: the line it
// is marked in and the raw value.
type obCorpusValue struct {
	detector, line, value string
}

// obCorpus reads testdata/detectors/*.txt: every value between « » on a
// positive line, with the line it appears in (marks removed).
func obCorpus(t *testing.T) (lines []string, values []obCorpusValue) {
	t.Helper()
	root, err := wasmtest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "testdata", "detectors", "*.txt"))
	if len(files) < 19 {
		t.Fatalf("%d corpus files", len(files))
	}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			raw, ok := strings.CutPrefix(sc.Text(), "+ ")
			if !ok {
				continue
			}
			raw = strings.ReplaceAll(raw, `\n`, "\n")
			var text, cur strings.Builder
			var vs []string
			in := false
			for _, r := range raw {
				switch {
				case r == '«':
					in = true
					cur.Reset()
				case r == '»':
					in = false
					vs = append(vs, cur.String())
				default:
					text.WriteRune(r)
					if in {
						cur.WriteRune(r)
					}
				}
			}
			lines = append(lines, text.String())
			for _, v := range vs {
				if utf8.RuneCountInString(v) < 2 {
					// A name of one character (라, 翔) occurs inside other
					// words of any line (달라고): no evidence either way.
					continue
				}
				values = append(values, obCorpusValue{strings.TrimSuffix(filepath.Base(f), ".txt"), text.String(), v})
			}
		}
		fh.Close()
	}
	return lines, values
}

// obServer is a go-sdk server whose tools carry values both ways: emit
// returns a corpus line as its result, consume takes any arguments and
// says only how long they were, get_customer returns a record, send_email
// takes an address, leak_key returns an AWS access key. jsonResponse:
// answers as application/json instead of event streams.
func obServer(t *testing.T, corpus []string, jsonResponse bool) *httptest.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "ob", Version: "v1"}, nil)
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "emit", Description: "Returns corpus line n."},
		func(_ context.Context, _ *mcp.CallToolRequest, a struct {
			N int `json:"n"`
		}) (*mcp.CallToolResult, any, error) {
			if a.N < 0 || a.N >= len(corpus) {
				return nil, nil, errors.New("no such line")
			}
			return text(corpus[a.N]), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "consume", Description: "Takes a text."},
		func(_ context.Context, _ *mcp.CallToolRequest, a struct {
			Text string `json:"text"`
		}) (*mcp.CallToolResult, any, error) {
			return text("received " + strconv.Itoa(len(a.Text)) + " bytes"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "get_customer", Description: "Read a customer record."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ struct {
			ID string `json:"id"`
		}) (*mcp.CallToolResult, customerRecord, error) {
			return nil, alice, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "send_email", Description: "Send an email."},
		func(_ context.Context, _ *mcp.CallToolRequest, a struct {
			To string `json:"to"`
		}) (*mcp.CallToolResult, any, error) {
			return text("sent to " + a.To), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "leak_key", Description: "Returns a key."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return text("key AKIAYPKZVCGCKMHTXPVQ"), nil, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{JSONResponse: jsonResponse}))
	t.Cleanup(srv.Close)
	return srv
}

// obAuditSlots reads every audit entry the ring buffer in the host's
// shared data holds.
func obAuditSlots(h *wasmhost.Host) []string {
	sd := h.SharedData()
	var out []string
	for _, k := range sd.Keys() {
		if !strings.Contains(k, "|audit|") || strings.HasSuffix(k, "|head") {
			continue
		}
		if v, _, st := sd.Get(k); st == wasmhost.StatusOK && len(v) > 8 {
			out = append(out, string(v[8:]))
		}
	}
	return out
}

// indexToken is where form stands in text not glued to a digit where it
// begins or ends with one: a postcode "04109" inside a log line's
// timestamp "…27.604109377Z" is no leak of it (a flaky match, once the
// corpus held five-digit values). -1 if nowhere.
func indexToken(text, form string) int {
	if form == "" {
		return -1
	}
	digit := func(c byte) bool { return c >= '0' && c <= '9' }
	for from := 0; ; {
		i := strings.Index(text[from:], form)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(form)
		if !(digit(form[0]) && i > 0 && digit(text[i-1])) && !(digit(form[len(form)-1]) && end < len(text) && digit(text[end])) {
			return i
		}
		from = i + 1
	}
}

// obForms are the ways a value could appear in a log line or entry: as
// is, and JSON-escaped (with and without HTML escaping).
func obForms(v string) []string {
	forms := []string{v}
	b, _ := json.Marshal(v)
	forms = append(forms, string(b[1:len(b)-1]))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	forms = append(forms, strings.TrimSuffix(strings.TrimSpace(buf.String()), `"`)[1:])
	return forms
}

// No log line and no audit entry ever holds a detected value: every true
// positive of the detector corpus goes through the plugin as a tool
// result, as tool arguments and inside a (denied) tool name, with audit on
// for every call; then every plugin log line, every entry of the ring
// buffer and the audit view of privacy_status are searched for each raw
// value.
func TestAuditNeverHoldsDetectedValues(t *testing.T) {
	corpus, values := obCorpus(t)
	if len(values) < 500 {
		t.Fatalf("only %d corpus values", len(values))
	}
	up := obServer(t, corpus, false)
	p := startPlugin(t, up.URL, `{
  "policy": {"name": "no-leak", "audit": true, "audit_size": 8192,
    "allow_tools": ["emit", "consume"],
    "transforms": [{"type": "redact", "id": "secrets", "options": {"detectors": ["@secrets"]}},
                   {"type": "pseudonymise", "id": "pii", "options": {"detectors": ["@pii"]}}],
    "input_transforms": [{"type": "redact", "id": "secrets_in", "options": {"detectors": ["@secrets"]}}],
    "vault": {"key": "an e2e key, not a secret"},
    "roles": {"auditor": {"allow_tools": ["privacy_audit", "privacy_status"]}}},
  "identity": {"principal": [{"header": "x-mcp-principal"}], "roles": [{"header": "x-mcp-roles"}]}
}`)
	cs := connect(t, p.URL, "alice", "")
	for i, line := range corpus {
		// A deadline per line: the whole corpus (three calls a line, 1,100
		// lines and more) ran past one 30-second deadline under -race on
		// a loaded machine.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "emit", Arguments: map[string]any{"n": i}})
		if err != nil || res.IsError {
			t.Fatalf("emit %d: %v %+v", i, err, res)
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "consume", Arguments: map[string]any{"text": line, "note": line}}); err != nil {
			t.Fatalf("consume %d: %v", i, err)
		}
		// Denied: the name is what the entry records.
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: line, Arguments: map[string]any{}}); err == nil {
			t.Fatalf("tool %q not denied", line)
		}
		cancel()
	}
	ctx := ctxT(t)
	auditor := connect(t, p.URL, "ivy", "auditor")
	status, err := auditor.CallTool(ctx, &mcp.CallToolParams{Name: "privacy_status"})
	if err != nil {
		t.Fatal(err)
	}
	view, _ := json.Marshal(status.StructuredContent)
	var st struct {
		Audit []map[string]any `json:"audit"`
	}
	if err := json.Unmarshal(view, &st); err != nil || len(st.Audit) != 20 {
		t.Fatalf("auditor's view: %d entries (%v): %s", len(st.Audit), err, view)
	}

	logText := p.logs.String()
	slots := obAuditSlots(p.proxy.Host())
	// Every call left an entry: allowed ones (audit on) and denials.
	if n := strings.Count(logText, "cloudg.mcp.audit {"); n < 3*len(corpus) {
		t.Errorf("%d audit lines for %d calls", n, 3*len(corpus))
	}
	if len(slots) < 3*len(corpus) {
		t.Errorf("%d entries in the ring for %d calls", len(slots), 3*len(corpus))
	}
	if !strings.Contains(logText, `"detections":{"EMAIL":`) {
		t.Errorf("no detections recorded: the test would prove little")
	}
	haystacks := map[string]string{"plugin log": logText, "ring buffer": strings.Join(slots, "\n"), "privacy_status": string(view)}
	leaks := 0
	for _, v := range values {
		for where, text := range haystacks {
			for _, form := range obForms(v.value) {
				if i := indexToken(text, form); i >= 0 {
					leaks++
					if leaks <= 10 {
						lo, hi := max(0, i-200), min(len(text), i+len(form)+50)
						t.Errorf("%s holds the %s value %q (line %q):\n…%s…", where, v.detector, v.value, v.line, text[lo:hi])
					}
				}
			}
		}
	}
	if leaks > 10 {
		t.Errorf("%d leaks in all", leaks)
	}
}

// obMetrics reads the plugin's counters.
func obMetrics(p *plugin) map[string]int64 {
	out := map[string]int64{}
	for name, m := range p.proxy.Host().Metrics() {
		out[name] = m.Value
	}
	return out
}

// The counters after a scripted session: requests by method and decision,
// detections by label, pseudonyms issued and resolved, rate-limited calls,
// errors by kind (docs/METRICS.md).
func TestMetricsAfterAScriptedSession(t *testing.T) {
	for _, mode := range []struct {
		name string
		json bool
	}{{"sse", false}, {"json", true}} {
		t.Run(mode.name, func(t *testing.T) {
			srv := obServer(t, nil, mode.json)
			p := startPlugin(t, srv.URL, `{
  "policy": {"name": "metrics", "deny_tools": ["delete_*"], "transforms": ["pseudonymise"],
    "vault": {"key": "an e2e key, not a secret"},
    "rate_limits": [{"rate": 1, "per": "hour", "burst": 1, "tools": ["get_customer"]}],
    "rules": [{"name": "keys-blocked", "match": {"names": ["leak_key"]},
               "transforms": [{"type": "block", "options": {"detectors": ["@secrets"]}}], "transforms_mode": "prepend"}]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]}
}`)
			before := obMetrics(p)
			for name, v := range before {
				if v != 0 {
					t.Errorf("%s = %d before any request", name, v)
				}
			}
			if _, ok := before["mcp_privacy.errors.kind.internal"]; !ok {
				t.Fatalf("counters not defined at start: %v", before)
			}
			ctx := ctxT(t)
			cs := connect(t, p.URL, "alice", "")
			if err := cs.Ping(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			// One record with an email, a phone number and a card number,
			// each in the text content and in structuredContent.
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_customer", Arguments: map[string]any{"id": "c-1"}})
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(res.StructuredContent)
			var rec customerRecord
			_ = json.Unmarshal(raw, &rec)
			if !strings.HasPrefix(rec.Email, "EMAIL_") {
				t.Fatalf("not pseudonymised: %s", raw)
			}
			// The second get_customer is over the limit.
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_customer", Arguments: map[string]any{"id": "c-1"}}); err == nil {
				t.Fatal("second get_customer passed")
			}
			// The pseudonym goes back resolved; the answer names it again.
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "send_email", Arguments: map[string]any{"to": rec.Email}}); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_everything"}); err == nil {
				t.Fatal("delete_everything passed")
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "leak_key"}); err == nil {
				t.Fatal("leak_key not blocked")
			}
			rawPost(t, p.URL, "", "alice", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`)
			rawPost(t, p.URL, "", "alice", "", `{"jsonrpc":`)

			got := obMetrics(p)
			want := map[string]int64{
				"mcp_privacy.requests.method.initialize.decision.allowed":      1,
				"mcp_privacy.requests.method.ping.decision.allowed":            1,
				"mcp_privacy.requests.method.tools_list.decision.allowed":      1,
				"mcp_privacy.requests.method.tools_call.decision.allowed":      2,
				"mcp_privacy.requests.method.tools_call.decision.rate_limited": 1,
				"mcp_privacy.requests.method.tools_call.decision.denied":       1,
				"mcp_privacy.requests.method.tools_call.decision.blocked":      1,
				"mcp_privacy.requests.method.tools_call.decision.error":        1,
				"mcp_privacy.detections.label.EMAIL":                           3,
				"mcp_privacy.detections.label.PHONE":                           2,
				"mcp_privacy.detections.label.CREDIT_CARD":                     2,
				"mcp_privacy.detections.label.AWS_ACCESS_KEY":                  1,
				"mcp_privacy.detections.label.PERSON":                          2, // the name, structured and in the text twin
				"mcp_privacy.pseudonyms.issued":                                9,
				"mcp_privacy.pseudonyms.resolved":                              1,
				"mcp_privacy.rate_limited.scope.principal_tool":                1,
				"mcp_privacy.errors.kind.invalid_params":                       1,
				"mcp_privacy.errors.kind.parse_error":                          1,
				"mcp_privacy.errors.kind.internal":                             0,
				"mcp_privacy.audit.dropped":                                    0,
			}
			for name, v := range want {
				if got[name] != v {
					t.Errorf("%s = %d, want %d", name, got[name], v)
				}
			}
			if got["mcp_privacy.requests.method.notifications.decision.allowed"] < 1 {
				t.Errorf("notifications/initialized not counted")
			}
			if t.Failed() {
				var used []string
				for n, v := range got {
					if v != 0 {
						used = append(used, n+"="+strconv.FormatInt(v, 10))
					}
				}
				t.Logf("counters in use: %v", used)
			}
		})
	}
}

// obHeaders records the headers of every response a client receives.
type obHeaders struct {
	base http.RoundTripper
	mu   sync.Mutex
	seen []http.Header
}

func (o *obHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := o.base.RoundTrip(r)
	if err == nil {
		o.mu.Lock()
		o.seen = append(o.seen, res.Header.Clone())
		o.mu.Unlock()
	}
	return res, err
}

func (o *obHeaders) values(name string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for _, h := range o.seen {
		if v := h.Get(name); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// A go-sdk client over the limit gets the JSON-RPC error -32029 with its
// data, and the HTTP response a Retry-After header; privacy_status shows
// the caller's headroom.
func TestRateLimitThroughGoSDK(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			up := startUpstream(t, mode.jsonResponse)
			p := startPlugin(t, up.URL, `{
  "policy": {"name": "limited", "rate_limits": [{"rate": 2, "per": "hour", "scope": "principal", "tools": ["echo", "privacy_status"]}]},
  "identity": {"principal": [{"header": "x-mcp-principal"}]},
  "gateway": {"hold_headers": `+strconv.FormatBool(mode.hold)+`}
}`)
			headers := &obHeaders{base: withHeaders{http.DefaultTransport, map[string]string{"x-mcp-principal": "alice"}}}
			client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v1"}, nil)
			ctx := ctxT(t)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: p.URL + "/mcp",
				HTTPClient: &http.Client{Transport: headers}, MaxRetries: -1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			status, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "privacy_status"})
			if err != nil {
				t.Fatal(err)
			}
			// The status call itself took one of the two tokens.
			sc, _ := json.Marshal(status.StructuredContent)
			var st struct {
				RateLimits []map[string]any `json:"rate_limits"`
			}
			wantHeadroom := []map[string]any{{"path": "rate_limits[0]", "limit": "2/hour burst 2 per principal", "scope": "principal",
				"burst": float64(2), "remaining": float64(1)}}
			if err := json.Unmarshal(sc, &st); err != nil || !reflect.DeepEqual(st.RateLimits, wantHeadroom) {
				t.Errorf("headroom in privacy_status: %s", sc)
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "one"}}); err != nil {
				t.Fatal(err)
			}
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "two"}})
			var wire *jsonrpc.Error
			if !errors.As(err, &wire) {
				t.Fatalf("over the limit: %v (%T), want a JSON-RPC error", err, err)
			}
			var data map[string]any
			if err := json.Unmarshal(wire.Data, &data); err != nil {
				t.Fatalf("data %s: %v", wire.Data, err)
			}
			if wire.Code != -32029 || wire.Message != "Rate limit exceeded" || data["policy"] != "limited" ||
				data["limit"] != "rate_limits[0]: 2/hour burst 2 per principal" || data["retry_after"] != float64(1800) || len(data) != 3 {
				t.Errorf("error %d %q %s", wire.Code, wire.Message, wire.Data)
			}
			if got := headers.values("Retry-After"); len(got) != 1 || got[0] != "1800" {
				t.Errorf("Retry-After headers %v, want one 1800", got)
			}
			// The session stays usable for what the limit does not cover.
			if err := cs.Ping(ctx, nil); err != nil {
				t.Errorf("ping after a refusal: %v", err)
			}
			if !up.received(`"one"`) || up.received(`"two"`) {
				t.Error("the refused call reached the server, or the allowed one did not")
			}
		})
	}
}
