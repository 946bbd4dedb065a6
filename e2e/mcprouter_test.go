package e2e_test

// The plugin in front of Envoy's own MCP filters, in the order
// envoy/envoy-mcp-router.yaml ships: jwt_authn, mcp-privacy, mcp,
// mcp_router. Envoy is not here; routerModel is the mcp filter and
// mcp_router as their source does it (docs/DEPLOYMENT.md, "Beside Envoy's
// MCP filters", names each file and commit), in front of real go-sdk
// servers, and the harness's LaterFilterBufferLimit is the mcp filter
// lowering the stream's buffer limit.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/proxy"
	"github.com/cloudg/mcp-privacy/internal/wasmhost"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// routerRevisions are the protocol revisions the model's fixed initialize
// answer carries in the tests. mcp_router.cc (4044863c) always answers
// 2025-06-18; the others cover a release that answers another, and the
// plugin, which takes the session's revision from that answer.
var routerRevisions = []string{"2025-03-26", "2025-06-18", "2025-11-25"}

// mcpDefaultMaxRequestBodySize is the mcp filter's default
// max_request_body_size (mcp.proto); the shipped file raises it above
// gateway.max_request_bytes.
const mcpDefaultMaxRequestBodySize = 8192

// shippedMaxRequestBodySize is envoy-mcp-router.yaml's.
const shippedMaxRequestBodySize = 2 << 20

// routerBackend is one server behind the router: its name (the prefix) and
// where it runs, recording what it receives.
type routerBackend struct {
	name string
	srv  *upstream
}

// routerModel is Envoy's mcp filter (REJECT_NO_MCP, reject_duplicate_keys,
// max_request_body_size) and mcp_router (two or more backends), as read
// from mcp_filter.cc and mcp_router.cc.
type routerModel struct {
	revision string
	maxBody  int
	backends []routerBackend
	client   *http.Client
}

func startRouterModel(t *testing.T, revision string, maxBody int, backends ...routerBackend) *httptest.Server {
	t.Helper()
	m := &routerModel{revision: revision, maxBody: maxBody, backends: backends, client: &http.Client{}}
	s := httptest.NewServer(m)
	t.Cleanup(s.Close)
	return s
}

// mcpFilterBufferLimit is the mcp filter's decodeHeaders: on a POST of
// application/json with a body it sets the stream's buffer limit to
// max_request_body_size.
func mcpFilterBufferLimit(maxBody int) func(wasmhost.Headers, bool) int {
	return func(h wasmhost.Headers, eos bool) int {
		mt, _, _ := mime.ParseMediaType(h.Value("content-type"))
		if h.Value(":method") == http.MethodPost && mt == "application/json" && !eos {
			return maxBody
		}
		return 0
	}
}

// metadata is what the mcp filter stores and the router reads.
type routerMetadata struct {
	method string
	id     int64 // numbers only: a string id reads as 0
	name   string
	uri    string
}

func (m *routerModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// mcp_router: GET is 405; a request without a body is 400.
	if r.Method == http.MethodGet {
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || len(body) == 0 {
		http.Error(w, "Missing request body", http.StatusBadRequest)
		return
	}
	// The mcp filter in REJECT_NO_MCP.
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	accept := strings.Join(r.Header.Values("Accept"), ",")
	if mt != "application/json" || !strings.Contains(accept, "application/json") || !strings.Contains(accept, "text/event-stream") {
		http.Error(w, "Only MCP traffic is allowed", http.StatusBadRequest)
		return
	}
	if len(body) > m.maxBody {
		http.Error(w, "request body is too large.", http.StatusBadRequest)
		return
	}
	if err := noDuplicateKeys(body); err != nil {
		http.Error(w, "request must be a valid JSON-RPC 2.0 message for MCP", http.StatusBadRequest)
		return
	}
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  string          `json:"method"`
		ID      json.RawMessage `json:"id"`
		Params  struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.JSONRPC != "2.0" {
		http.Error(w, "request must be a valid JSON-RPC 2.0 message for MCP", http.StatusBadRequest)
		return
	}
	md := routerMetadata{method: msg.Method, name: msg.Params.Name, uri: msg.Params.URI}
	var n float64
	if json.Unmarshal(msg.ID, &n) == nil {
		md.id = int64(n)
	}
	if stale := r.Header.Get(staleMetadataHeader); stale != "" {
		// The mcp filter ran before the plugin: its metadata is the
		// client's request (mcpFilterFirst).
		var c struct{ Name, URI string }
		_ = json.Unmarshal([]byte(stale), &c)
		md.name, md.uri = c.Name, c.URI
	}
	sessions := map[string]string{}
	if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
		raw, err := base64.RawURLEncoding.DecodeString(sid)
		if err != nil || json.Unmarshal(raw, &sessions) != nil {
			http.Error(w, "Invalid session ID", http.StatusBadRequest)
			return
		}
	}
	// The forwarded headers: header_forwarding lets trace context through.
	fwd := http.Header{}
	for _, h := range []string{"traceparent", "tracestate"} {
		if v := r.Header.Get(h); v != "" {
			fwd.Set(h, v)
		}
	}
	switch md.method {
	case "initialize":
		m.initialize(w, md, body, fwd)
	case "notifications/initialized":
		m.fanOut(body, fwd, sessions, md.id)
		w.Header().Set("Mcp-Session-Id", r.Header.Get("Mcp-Session-Id"))
		w.WriteHeader(http.StatusAccepted)
	case "ping":
		m.writeJSON(w, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, md.id), r.Header.Get("Mcp-Session-Id"))
	case "tools/list", "resources/list", "prompts/list":
		m.writeJSON(w, m.mergeList(md, m.fanOut(body, fwd, sessions, md.id)), r.Header.Get("Mcp-Session-Id"))
	case "tools/call", "prompts/get":
		backend, rest, ok := m.split(md.name, "__")
		if !ok {
			http.Error(w, fmt.Sprintf("Invalid tool name '%s': cannot determine backend", md.name), http.StatusBadRequest)
			return
		}
		m.forward(w, backend, rewriteFirst(body, md.name, rest), fwd, sessions, r.Header.Get("Mcp-Session-Id"))
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		backend, rest, ok := m.splitURI(md.uri)
		if !ok {
			http.Error(w, fmt.Sprintf("Invalid resource URI '%s': cannot determine backend", md.uri), http.StatusBadRequest)
			return
		}
		m.forward(w, backend, rewriteFirst(body, md.uri, rest), fwd, sessions, r.Header.Get("Mcp-Session-Id"))
	default:
		http.Error(w, "Unsupported method", http.StatusBadRequest)
	}
}

// initialize fans the client's initialize out and answers with the fixed
// block once a backend answered; the session id carries every backend's.
func (m *routerModel) initialize(w http.ResponseWriter, md routerMetadata, body []byte, fwd http.Header) {
	sessions := map[string]string{}
	for _, resp := range m.fanOut(body, fwd, nil, md.id) {
		if resp.ok && resp.session != "" {
			sessions[resp.backend] = resp.session
		}
	}
	if len(sessions) == 0 {
		http.Error(w, "All backends failed to initialize", http.StatusInternalServerError)
		return
	}
	raw, _ := json.Marshal(sessions)
	m.writeJSON(w, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"protocolVersion":%q,`+
		`"capabilities":{"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true}},`+
		`"serverInfo":{"name":"envoy-mcp-gateway","version":"1.0.0"},"instructions":"MCP gateway aggregating multiple backend servers."}}`,
		md.id, m.revision), base64.RawURLEncoding.EncodeToString(raw))
}

// backendResponse is one backend's answer, its JSON-RPC response taken out
// of an event stream (backend_stream.cc, aggregate mode).
type backendResponse struct {
	backend, session string
	ok               bool
	message          []byte
}

func (m *routerModel) request(b routerBackend, body []byte, fwd http.Header, session string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, b.srv.URL+"/mcp", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = fwd.Clone()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	return m.client.Do(req)
}

func (m *routerModel) fanOut(body []byte, fwd http.Header, sessions map[string]string, id int64) []backendResponse {
	out := make([]backendResponse, len(m.backends))
	var wg sync.WaitGroup
	for i, b := range m.backends {
		wg.Go(func() {
			out[i].backend = b.name
			resp, err := m.request(b, body, fwd, sessions[b.name])
			if err != nil {
				return
			}
			defer resp.Body.Close()
			data, _ := io.ReadAll(resp.Body)
			out[i].ok = resp.StatusCode/100 == 2
			out[i].session = resp.Header.Get("Mcp-Session-Id")
			out[i].message = data
			if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
				out[i].message = sseResponse(data, id)
			}
		})
	}
	wg.Wait()
	return out
}

// sseResponse is the data of the first event that is the response to id.
func sseResponse(stream []byte, id int64) []byte {
	for _, ev := range strings.Split(strings.ReplaceAll(string(stream), "\r\n", "\n"), "\n\n") {
		var data []string
		for _, line := range strings.Split(ev, "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok {
				data = append(data, strings.TrimPrefix(d, " "))
			}
		}
		var msg struct {
			ID     *int64          `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal([]byte(strings.Join(data, "\n")), &msg) == nil && msg.ID != nil && *msg.ID == id && (msg.Result != nil || msg.Error != nil) {
			return []byte(strings.Join(data, "\n"))
		}
	}
	return nil
}

// mergeList rebuilds every listed item as mcp_router.cc does: tools (when
// prefixing) with name, description, inputSchema, annotations and icons;
// resources with uri, name, description and mimeType; prompts with name,
// description and arguments. Nothing else survives: no _meta, title,
// outputSchema or nextCursor.
func (m *routerModel) mergeList(md routerMetadata, responses []backendResponse) string {
	key := strings.TrimSuffix(md.method, "/list")
	items := []map[string]any{}
	for _, resp := range responses {
		if !resp.ok {
			continue
		}
		var msg struct {
			Result map[string]json.RawMessage `json:"result"`
		}
		var list []map[string]any
		if json.Unmarshal(resp.message, &msg) != nil || json.Unmarshal(msg.Result[key], &list) != nil {
			continue
		}
		for _, it := range list {
			out := map[string]any{}
			keep := func(fields ...string) {
				for _, f := range fields {
					if v, ok := it[f]; ok {
						out[f] = v
					}
				}
			}
			switch key {
			case "tools":
				name, _ := it["name"].(string)
				keep("description", "inputSchema", "annotations", "icons")
				out["name"] = resp.backend + "__" + name
			case "prompts":
				name, _ := it["name"].(string)
				keep("description", "arguments")
				out["name"] = resp.backend + "__" + name
			case "resources":
				uri, _ := it["uri"].(string)
				keep("name", "description", "mimeType")
				if scheme, rest, ok := strings.Cut(uri, "://"); ok {
					out["uri"] = resp.backend + "+" + scheme + "://" + rest
				} else {
					out["uri"] = resp.backend + "+://" + uri
				}
			}
			items = append(items, out)
		}
	}
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": md.id, "result": map[string]any{key: items}})
	return string(raw)
}

// split is parseToolName / parsePromptName: the backend before the first
// delimiter, which must be a configured backend.
func (m *routerModel) split(name, delim string) (routerBackend, string, bool) {
	backend, rest, ok := strings.Cut(name, delim)
	if !ok {
		return routerBackend{}, "", false
	}
	i := slices.IndexFunc(m.backends, func(b routerBackend) bool { return b.name == backend })
	if i < 0 {
		return routerBackend{}, "", false
	}
	return m.backends[i], rest, true
}

// splitURI is parseResourceUri: backend+scheme://path.
func (m *routerModel) splitURI(uri string) (routerBackend, string, bool) {
	prefix, path, ok := strings.Cut(uri, "://")
	if !ok {
		return routerBackend{}, "", false
	}
	b, scheme, ok := m.split(prefix, "+")
	if !ok {
		return routerBackend{}, "", false
	}
	return b, scheme + "://" + path, true
}

// rewriteFirst is the router's prefix stripping: the first occurrence of
// the metadata's name, byte for byte, replaced.
func rewriteFirst(body []byte, old, new string) []byte {
	i := bytes.Index(body, []byte(old))
	if i < 0 {
		return body
	}
	return slices.Concat(body[:i], []byte(new), body[i+len(old):])
}

// forward sends a call to its one backend and streams the answer back.
func (m *routerModel) forward(w http.ResponseWriter, b routerBackend, body []byte, fwd http.Header, sessions map[string]string, clientSession string) {
	resp, err := m.request(b, body, fwd, sessions[b.name])
	if err != nil {
		http.Error(w, "Backend request failed", http.StatusInternalServerError)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		http.Error(w, "Backend request failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.Header().Set("Mcp-Session-Id", clientSession)
	w.WriteHeader(http.StatusOK)
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			_, _ = w.Write(buf[:n])
			w.(http.Flusher).Flush()
		}
		if err != nil {
			return
		}
	}
}

func (m *routerModel) writeJSON(w http.ResponseWriter, body, session string) {
	w.Header().Set("Content-Type", "application/json")
	if session != "" {
		w.Header().Set("Mcp-Session-Id", session)
	}
	_, _ = io.WriteString(w, body)
}

// noDuplicateKeys is reject_duplicate_keys: an object naming a key twice,
// at any depth, is an error.
func noDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var walk func() error
	walk = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				if seen[k.(string)] {
					return errors.New("duplicate key " + k.(string))
				}
				seen[k.(string)] = true
				if err := walk(); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		case json.Delim('['):
			for dec.More() {
				if err := walk(); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		}
		return nil
	}
	return walk()
}

// receivedCall reports whether the server got a tools/call whose body
// contains s.
func (u *upstream) receivedCall(s string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.ContainsFunc(u.bodies, func(b string) bool { return strings.Contains(b, `"tools/call"`) && strings.Contains(b, s) })
}

// staleMetadataHeader carries, in the tests of the wrong order, the
// metadata the mcp filter took from the client's request before the
// plugin rewrote it.
const staleMetadataHeader = "x-test-mcp-metadata-of-the-client"

// mcpFilterFirst is the wrong order, the mcp filter before the plugin: it
// parses the client's request and the router later reads that, whatever
// the plugin made of the body.
func mcpFilterFirst(t *testing.T, pluginURL string) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			Params struct {
				Name string `json:"name"`
				URI  string `json:"uri"`
			} `json:"params"`
		}
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, pluginURL+r.URL.RequestURI(), bytes.NewReader(body))
		req.Header = r.Header.Clone()
		if json.Unmarshal(body, &msg) == nil {
			md, _ := json.Marshal(map[string]string{"Name": msg.Params.Name, "URI": msg.Params.URI})
			req.Header.Set(staleMetadataHeader, string(md))
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(s.Close)
	return s
}

// bodiesCopy is what the server received so far.
func (u *upstream) bodiesCopy() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.bodies)
}

// --- The servers behind the router, and the plugin's envelope ---------

// crmServer lists two tools (one with a title, an outputSchema and _meta,
// all of which the router drops), a resource and a prompt; lookup_customer
// answers with resultBytes of text holding emails. json: answer with
// application/json rather than an event stream.
func crmServer(resultBytes int, jsonResponse bool) http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: "crm", Version: "v1"}, nil)
	s.AddTool(&mcp.Tool{Name: "lookup_customer", Title: "Look a customer up",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`),
		OutputSchema: json.RawMessage(`{"type":"object"}`),
		Meta:         mcp.Meta{"io.cloudg/privacy": map[string]any{"sensitivity": "public"}}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text := largeText(resultBytes)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: map[string]any{"size": len(text)}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "delete_customer", InputSchema: json.RawMessage(`{"type":"object"}`),
		Meta: mcp.Meta{"io.cloudg/privacy": map[string]any{"sensitivity": "public"}}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted"}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "file:///customers/42", Name: "customer-42", MIMEType: "application/json"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "application/json", Text: `{"email":"ann.lee@example.com"}`}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "summarize_customer"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "summarize"}}}}, nil
	})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: jsonResponse})
}

func opsServer() http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: "ops", Version: "v1"}, nil)
	// Its _meta says harmless; the router drops it, and the envelope's
	// ops__* entry (exec, restricted) is what the plugin judges by.
	s.AddTool(&mcp.Tool{Name: "deploy", InputSchema: json.RawMessage(`{"type":"object"}`),
		Meta: mcp.Meta{"io.cloudg/privacy": map[string]any{"sensitivity": "public", "category": "docs"}}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"}}}, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

// largeEnd ends every large result, so a cut one is told from a whole one.
const largeEnd = "END-OF-RESULT"

// largeText is about n bytes of lines, one email in every line.
func largeText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "row %05d: customer person%05d@example.com, tier gold, notes filler filler filler filler filler\n", i, i)
	}
	b.WriteString(largeEnd)
	return b.String()
}

// routerEnvelope is envoy-mcp-router.yaml's envelope with header identity
// (connect sets x-mcp-principal and x-mcp-roles): body_buffering plugin,
// every path, metadata by the router's prefixes.
func routerEnvelope(buffering string) string {
	return `{
  "policy": {"name": "aggregate", "extends": "standard", "hide_denied": true,
    "deny_categories": ["ops"], "deny_tools": ["crm__delete_*"],
    "roles": {"sre": {"allow_categories": ["ops"], "allow_capabilities": ["exec"], "max_sensitivity": "restricted"}},
    "vault": {"key": "e2e router key, not a secret"}},
  "server": {"id": "aggregate", "require_known": true, "router_backends": ["crm", "ops"], "primitives": [
    {"match": {"kinds": ["tool", "prompt"], "names": ["crm__*"]}, "category": "crm", "sensitivity": "confidential"},
    {"match": {"kinds": ["resource"], "names": ["crm+*"]}, "category": "crm", "sensitivity": "internal"},
    {"match": {"kinds": ["tool", "prompt"], "names": ["ops__*"]}, "category": "ops", "capabilities": ["exec"], "sensitivity": "restricted"}]},
  "identity": {"principal": [{"header": "x-mcp-principal"}], "roles": [{"header": "x-mcp-roles"}]},
  "gateway": {"paths": ["/*"], "virtual_tools": false, "body_buffering": "` + buffering + `", "max_request_bytes": 1048576, "max_response_bytes": 16777216}
}`
}

// startRouterChain is the shipped order: the plugin, then the mcp filter
// (its buffer limit on the plugin's stream) and mcp_router (the model),
// in front of crm and ops; tweak changes the proxy's options after that.
func startRouterChain(t *testing.T, revision string, maxBody int, buffering string, crm http.Handler, tweak ...func(*proxy.Options)) (*plugin, *upstream, *upstream) {
	t.Helper()
	crmUp, opsUp := recordedUpstream(t, crm), recordedUpstream(t, opsServer())
	router := startRouterModel(t, revision, maxBody, routerBackend{"crm", crmUp}, routerBackend{"ops", opsUp})
	p := startPlugin(t, router.URL, routerEnvelope(buffering), append([]func(*proxy.Options){func(o *proxy.Options) {
		o.BufferLimitBytes = 17 << 20 // envoy-mcp-router.yaml's listener
		o.LaterFilterBufferLimit = mcpFilterBufferLimit(maxBody)
	}}, tweak...)...)
	return p, crmUp, opsUp
}

func connectAt(t *testing.T, url, principal, roles, revision string) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, url, principal, roles, nil, &mcp.ClientSessionOptions{ProtocolVersion: revision})
}

// TestMCPRouterMergedListFiltered: behind the router, a caller's merged
// list is filtered on the prefixed names, its denied calls look missing
// and never reach a backend, allowed calls reach theirs with the prefix
// stripped, and metadata comes from the prefixes (the router dropped the
// servers' _meta, which claimed public).
func TestMCPRouterMergedListFiltered(t *testing.T) {
	for _, rev := range routerRevisions {
		t.Run(rev, func(t *testing.T) {
			p, crmUp, opsUp := startRouterChain(t, rev, shippedMaxRequestBodySize, "plugin", crmServer(200, false))
			ctx := ctxT(t)

			ann := connectAt(t, p.URL, "ann", "", rev)
			if r := ann.InitializeResult(); r.ServerInfo.Name != "envoy-mcp-gateway" || r.ProtocolVersion != rev {
				t.Fatalf("initialize: %+v", r)
			}
			if err := ann.Ping(ctx, nil); err != nil {
				t.Fatalf("ping: %v", err)
			}
			tools, err := ann.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
				if tool.Title != "" || tool.OutputSchema != nil || tool.Meta != nil {
					t.Errorf("%s: the router drops title, outputSchema and _meta: %+v", tool.Name, tool)
				}
			}
			if strings.Join(names, ",") != "crm__lookup_customer" {
				t.Errorf("ann's tools %v, want [crm__lookup_customer]", names)
			}
			// A hidden tool looks as missing as a name its backend does not
			// have: the backend's own answer, naming what the router left.
			_, missing := ann.CallTool(ctx, &mcp.CallToolParams{Name: "crm__no_such_tool"})
			for _, name := range []string{"crm__delete_customer", "ops__deploy"} {
				_, err := ann.CallTool(ctx, &mcp.CallToolParams{Name: name})
				_, rest, _ := strings.Cut(name, "__")
				if err == nil || missing == nil || strings.ReplaceAll(err.Error(), rest, "NAME") != strings.ReplaceAll(missing.Error(), "no_such_tool", "NAME") {
					t.Errorf("ann calls %s: %v; a missing tool: %v", name, err, missing)
				}
			}
			// A hidden call goes to its backend as a stand-in, which names
			// nothing it has and carries nothing of the caller's.
			if crmUp.receivedCall(`"delete_customer"`) || opsUp.receivedCall(`"deploy"`) {
				t.Error("a hidden call reached its backend under its name")
			}
			res, err := ann.ReadResource(ctx, &mcp.ReadResourceParams{URI: "crm+file:///customers/42"})
			if err != nil || len(res.Contents) != 1 || strings.Contains(res.Contents[0].Text, "ann.lee@example.com") || !strings.Contains(res.Contents[0].Text, "EMAIL_") {
				t.Errorf("resource: %v %+v", err, res)
			}
			if !crmUp.received(`"uri":"file:///customers/42"`) {
				t.Error("crm did not get the URI without the router's prefix")
			}
			prompts, err := ann.ListPrompts(ctx, nil)
			if err != nil || len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != "crm__summarize_customer" {
				t.Errorf("ann's prompts: %v %+v", err, prompts)
			}

			sre := connectAt(t, p.URL, "sam", "sre", rev)
			tools, err = sre.ListTools(ctx, nil)
			if err != nil || !slices.ContainsFunc(tools.Tools, func(tool *mcp.Tool) bool { return tool.Name == "ops__deploy" }) {
				t.Fatalf("sre's tools: %v %+v", err, tools)
			}
			out, err := sre.CallTool(ctx, &mcp.CallToolParams{Name: "ops__deploy"})
			if err != nil || out.IsError || out.Content[0].(*mcp.TextContent).Text != "deployed" {
				t.Fatalf("sre deploys: %v %+v", err, out)
			}
			if !opsUp.receivedCall(`"name":"deploy"`) {
				t.Error("ops did not get deploy by its own name")
			}
		})
	}
}

// TestMCPRouterLargeResultTransformed: under the shipped order a result
// above the mcp filter's buffer limit (8 KiB by default, the shipped 2 MiB)
// reaches the client transformed and whole, in an event stream or as one
// JSON body, however the upstream's answer is cut into chunks; with the
// host holding bodies (body_buffering host) the same JSON result meets
// Envoy's buffer limit and fails, never passed raw nor cut off.
//
// chunk fixes the size of the chunks the host hands over (0: the
// harness's reads, which usually take a 20 KB answer whole). A chunk above
// the limit after the first is what a loaded machine sometimes made of the
// default: the plugin paused over its emptied first chunk, the host added
// the next one to its buffer before the plugin saw it, and the response
// was reset (plugin/bodyhold.go, heldResponseAction).
func TestMCPRouterLargeResultTransformed(t *testing.T) {
	cases := []struct {
		name      string
		maxBody   int
		size      int
		json      bool
		buffering string
		fails     bool
		chunk     int
	}{
		{"default limit, json", mcpDefaultMaxRequestBodySize, 20 << 10, true, "plugin", false, 0},
		{"default limit, event stream", mcpDefaultMaxRequestBodySize, 20 << 10, false, "plugin", false, 0},
		{"default limit, json, 12 KiB chunks", mcpDefaultMaxRequestBodySize, 20 << 10, true, "plugin", false, 12 << 10},
		{"default limit, event stream, 12 KiB chunks", mcpDefaultMaxRequestBodySize, 20 << 10, false, "plugin", false, 12 << 10},
		{"shipped limit, json", shippedMaxRequestBodySize, shippedMaxRequestBodySize + (200 << 10), true, "plugin", false, 0},
		{"host buffering, default limit, json", mcpDefaultMaxRequestBodySize, 20 << 10, true, "host", true, 0},
	}
	for _, rev := range routerRevisions {
		for _, c := range cases {
			t.Run(rev+"/"+c.name, func(t *testing.T) {
				p, _, _ := startRouterChain(t, rev, c.maxBody, c.buffering, crmServer(c.size, c.json), func(o *proxy.Options) {
					o.Semantics.ChunkSize = c.chunk
				})
				ann := connectAt(t, p.URL, "ann", "", rev)
				res, err := ann.CallTool(ctxT(t), &mcp.CallToolParams{Name: "crm__lookup_customer", Arguments: map[string]any{"id": "42"}})
				if c.fails {
					// Envoy's answer to a buffered response over the limit:
					// a 500, or a reset once the plugin let the headers go.
					if err == nil || !strings.Contains(err.Error(), "Internal Server Error") && !strings.Contains(err.Error(), "unexpected EOF") {
						t.Fatalf("a %d-byte result with the host holding it under a %d-byte limit: %v %+v", c.size, c.maxBody, err, res)
					}
					return
				}
				if err != nil || res.IsError || len(res.Content) != 1 {
					t.Fatalf("%v %+v", err, res)
				}
				text := res.Content[0].(*mcp.TextContent).Text
				rows := strings.Count(largeText(c.size), "\n")
				if strings.Contains(text, "@example.com") || strings.Count(text, "EMAIL_") != rows || !strings.HasSuffix(text, largeEnd) {
					t.Fatalf("result of %d bytes: %d rows, %d pseudonyms, raw emails %v, ends whole %v",
						len(text), rows, strings.Count(text, "EMAIL_"), strings.Contains(text, "@example.com"), strings.HasSuffix(text, largeEnd))
				}
			})
		}
	}
}

// TestMCPRouterWrongOrderShowsHiding: with the mcp filter before the
// plugin (docs/DEPLOYMENT.md, "What breaks in each order"), the router
// routes by the client's name and searches the plugin's body for it: a
// hidden resource's stand-in reaches its backend with the router's prefix
// unstripped, and the client tells it from a missing one, which the
// shipped order prevents.
func TestMCPRouterWrongOrderShowsHiding(t *testing.T) {
	crm := func() http.Handler {
		s := mcp.NewServer(&mcp.Implementation{Name: "crm", Version: "v1"}, nil)
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	}
	envelope := strings.Replace(routerEnvelope("plugin"), `"deny_tools": ["crm__delete_*"],`, `"deny_tools": ["crm__delete_*"], "deny_resources": ["crm+secret://*"],`, 1)
	for _, order := range []string{"shipped", "mcp first"} {
		t.Run(order, func(t *testing.T) {
			crmUp, opsUp := recordedUpstream(t, crm()), recordedUpstream(t, opsServer())
			router := startRouterModel(t, "2025-06-18", shippedMaxRequestBodySize, routerBackend{"crm", crmUp}, routerBackend{"ops", opsUp})
			p := startPlugin(t, router.URL, envelope, func(o *proxy.Options) {
				o.LaterFilterBufferLimit = mcpFilterBufferLimit(shippedMaxRequestBodySize)
			})
			url := p.URL
			if order == "mcp first" {
				url = mcpFilterFirst(t, p.URL).URL
			}
			ann := connectAt(t, url, "ann", "", "2025-06-18")
			ctx := ctxT(t)
			_, hidden := ann.ReadResource(ctx, &mcp.ReadResourceParams{URI: "crm+secret://keys"})
			_, missing := ann.ReadResource(ctx, &mcp.ReadResourceParams{URI: "crm+nothing://keys"})
			if hidden == nil || missing == nil {
				t.Fatalf("hidden %v, missing %v", hidden, missing)
			}
			text := func(err error) string {
				var e *jsonrpc.Error
				if errors.As(err, &e) {
					return fmt.Sprintf("%d %s %s", e.Code, e.Message, e.Data)
				}
				return err.Error()
			}
			same := strings.ReplaceAll(text(hidden), "secret", "X") == strings.ReplaceAll(text(missing), "nothing", "X")
			// What the backend got: the router strips its prefix from a URI
			// it finds in the body, and only from such a one.
			unstripped := slices.ContainsFunc(crmUp.bodiesCopy(), func(b string) bool { return strings.Contains(b, `"uri":"crm+secret://`) })
			if order == "shipped" && unstripped || order == "mcp first" && !unstripped {
				t.Errorf("%s: the stand-in reached crm with the router's prefix: %v", order, unstripped)
			}
			if order == "shipped" && !same {
				t.Errorf("the shipped order tells hidden from missing:\nhidden  %s\nmissing %s", text(hidden), text(missing))
			}
			if order == "mcp first" && same {
				t.Errorf("with stale metadata the hidden resource still looks missing (the model no longer shows the failure):\nhidden  %s\nmissing %s", text(hidden), text(missing))
			}
		})
	}
}
