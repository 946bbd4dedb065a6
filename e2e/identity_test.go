package e2e_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/proxy"
	"github.com/cloudg/mcp-privacy/internal/wasmhost"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// Identity from Envoy's jwt_authn: the harness puts a verified payload in
// the dynamic metadata, serialized as Envoy does (a google.protobuf.Struct),
// and the plugin reads claims from it. Headers a client sends cannot
// override it, and require answers 401 to callers without a token.
func TestIdentityFromJWTMetadata(t *testing.T) {
	up := startUpstream(t, true)
	config := `{
  "policy": {"name": "jwt", "allow_tools": ["echo"], "roles": {"support": {"allow_tools": ["search_customers"]}}},
  "identity": {"principal": [{"jwt_claim": "sub"}], "roles": [{"jwt_claim": "realm.roles"}], "require": true},
  "gateway": {"hold_headers": true, "export_headers": {"principal": "x-mcp-export-principal"}}
}`
	// The test's stand-in for jwt_authn: x-test-verified-payload carries the
	// payload a verified token would have.
	jwtAuthn := func(r *http.Request) map[string][]byte {
		raw := r.Header.Get("x-test-verified-payload")
		if raw == "" {
			return nil
		}
		var payload map[string]any
		if err := json.Unmarshal([]byte(raw), &payload); err != nil {
			t.Errorf("test payload: %v", err)
			return nil
		}
		st, err := structpb.NewStruct(payload)
		if err != nil {
			t.Error(err)
			return nil
		}
		b, _ := proto.Marshal(st)
		return map[string][]byte{wasmhost.PropertyPath("metadata", "filter_metadata", "envoy.filters.http.jwt_authn", "jwt_payload"): b}
	}
	p := startPlugin(t, up.URL, config, func(o *proxy.Options) { o.Properties = jwtAuthn })

	post := func(payload, spoof, body string) (int, string) {
		req, _ := http.NewRequest("POST", p.URL+"/mcp", strings.NewReader(body))
		setRawHeaders(req, "", spoof, "support")
		if payload != "" {
			req.Header.Set("x-test-verified-payload", payload)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := res.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return res.StatusCode, b.String()
	}
	call := func(marker string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_customers","arguments":{"query":"` + marker + `"}}}`
	}

	// The role comes from the token: granted, so the call reaches the
	// server (which, without a session, refuses it itself).
	granted, grantedBody := post(`{"sub": "ann", "realm": {"roles": ["support"]}}`, "", call("marker-granted"))
	if granted != 200 || !up.received("marker-granted") {
		t.Errorf("support from the token: %d %s", granted, grantedBody)
	}
	// A token without the role: denied, whatever headers say. The tool is
	// hidden: the server answers its stand-in (plugin/mcp/hidden.go), here
	// as it answered the granted call, for want of a session.
	status, body := post(`{"sub": "bob", "realm": {"roles": ["viewer"]}}`, "ann", call("marker-viewer"))
	if status != granted || body != grantedBody {
		t.Errorf("token without the role: %d %s\nwant the server's answer %d %s", status, body, granted, grantedBody)
	}
	// No token: 401 (identity.require), headers notwithstanding.
	status, body = post("", "ann", call("marker-anonymous"))
	if status != 401 || !strings.Contains(body, `"code":-32600`) {
		t.Errorf("no token: %d %s", status, body)
	}
	if up.received("marker-viewer") || up.received("marker-anonymous") {
		t.Error("a refused request reached the server")
	}
}
