package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/proxy"
	"github.com/cloudg/mcp-privacy/internal/wasmtest"
	"github.com/cloudg/mcp-privacy/policy"
)

// Issue 33: the CLI (policy matrix, policy test) and the plugin in serve
// must decide alike over one captured catalog. Each case gives an envelope
// and the list results a server answers; the CLI judges them from the
// files, the plugin from the wire (a server answering exactly those lists),
// for every role the policy names and the caller with no role.

// caCall is a call the matrix has no column for: a concrete URI (an
// instance of a template) or a name no list gives, judged on the CLI side
// by policy test.
type caCall struct {
	kind string // tool, prompt or resource
	name string
}

type caCase struct {
	name string
	// file is a testdata/policies envelope with its *_catalog.json; else
	// envelope and catalog hold them.
	file              string
	envelope, catalog string
	extra             []caCall
}

// caCases are the synthetic cases and, by file, the concrete URIs and
// unlisted names to try on testdata/policies envelopes; every envelope
// there with a *_catalog.json is a case, listed here or not.
var caCases = []caCase{
	{name: "demo", file: "demo.yaml", extra: []caCall{
		{"resource", "customers://c-1/profile"}, {"resource", "customers://a@b/profile"},
		{"resource", "customers://c-1/profile/x"}, {"tool", "ｄelete_customer"}}},
	{name: "payments", file: "payments.yaml", extra: []caCall{{"tool", "unlisted_tool"}}},
	{name: "aggregate", file: "aggregate.yaml", extra: []caCall{
		{"tool", "crm__unlisted"}, {"resource", "crm+file:///customers/7"}, {"prompt", "ops__unlisted"}}},

	// Without learning from lists, _meta is ignored (the tool marked
	// secret stays usable) and every listed item is still known.
	{name: "learn_off", envelope: caKnown(false, false, true), catalog: caKnownCatalog, extra: caKnownExtra},
	// Manual 4: "A primitive counts as known when it appeared in a list
	// result or any server.primitives entry matches it", also when
	// nothing is learned from lists.
	{name: "learn_off_require_known", envelope: caKnown(false, true, true), catalog: caKnownCatalog, extra: caKnownExtra},
	// require_known learning from lists, denials visible (-32003 with the
	// rule server.require_known for what no source knows).
	{name: "require_known", envelope: caKnown(true, true, false), catalog: caKnownCatalog, extra: caKnownExtra},

	{name: "metadata", envelope: caMetadataEnvelope, catalog: caMetadataCatalog, extra: []caCall{
		{"resource", "rep://7"}, {"resource", "pub://7"}, {"resource", "pub://a b"}}},
	{name: "templates", envelope: caTemplatesEnvelope, catalog: caTemplatesCatalog, extra: caTemplatesExtra},
	{name: "names", envelope: caNamesEnvelope, catalog: caNamesCatalog, extra: caNamesExtra},
	// A listed static resource that a denied template matches is hidden
	// (manual 4), for the caller with no role, who lists first: a client
	// lists resources before templates. The plugin knows the template
	// from server.primitives before any list (manual 4: a policy that
	// denies templates names them there).
	{name: "list_order", envelope: `{"policy": {"name": "order", "hide_denied": true, "vault": {"key": "an e2e key, not a secret"},
  "deny_resources": ["cloudg://users/{id}"], "roles": {"admin": {"allow_resources": ["cloudg://users/{id}"]}}},
  "server": {"primitives": [{"match": {"kinds": ["resource_template"], "names": ["cloudg://users/{id}"]}}]}}`,
		catalog: `{"resources": [{"uri": "cloudg://users/admin", "name": "admin"}]}
{"resourceTemplates": [{"uriTemplate": "cloudg://users/{id}", "name": "user"}]}`,
		extra: []caCall{{"resource", "cloudg://users/42"}}},
	// Manual 4: a URI whose WHATWG reading differs otherwise than by
	// percent-encoding is refused (-32602) whatever the policy says, and a
	// list leaves such a resource out.
	{name: "uri_forms", envelope: caFormsEnvelope, catalog: caFormsCatalog, extra: []caCall{
		{"resource", "SECRET://x"}, {"resource", "secret://a/../x"}, {"resource", "https://docs.example.com:443/b"}}},
}

const caFormsEnvelope = `{
  "policy": {
    "name": "forms",
    "hide_denied": true,
    "vault": {"key": "an e2e key, not a secret"},
    "deny_resources": ["secret://x", "https://docs.example.com/b"]
  },
  "server": {"id": "forms"}
}`

const caFormsCatalog = `{"resources": [
  {"uri": "secret://x", "name": "x"},
  {"uri": "docs://fine", "name": "fine"},
  {"uri": "HTTPS://Docs.example.com:443/a", "name": "a"}
]}`

// caKnown is an envelope over caKnownCatalog: a category and a
// sensitivity ceiling that the listed _meta would trip, the auditor may
// pass both; server.primitives knows one tool by name.
func caKnown(learn, requireKnown, hideDenied bool) string {
	return fmt.Sprintf(`{
  "policy": {
    "name": "known",
    "hide_denied": %v,
    "vault": {"key": "an e2e key, not a secret"},
    "deny_categories": ["secret"],
    "max_sensitivity": "confidential",
    "roles": {"auditor": {"allow_categories": ["secret"], "max_sensitivity": "restricted"}}
  },
  "server": {
    "id": "known",
    "learn_from_lists": %v,
    "require_known": %v,
    "primitives": [{"match": {"kinds": ["tool"], "names": ["configured_tool"]}, "category": "ops"}]
  }
}`, hideDenied, learn, requireKnown)
}

const caKnownCatalog = `[
 {"jsonrpc": "2.0", "id": 2, "result": {"tools": [
  {"name": "plain_tool", "inputSchema": {"type": "object"}},
  {"name": "secret_tool", "inputSchema": {"type": "object"},
   "_meta": {"io.cloudg/privacy": {"category": "secret", "sensitivity": "restricted"}}},
  {"name": "configured_tool", "inputSchema": {"type": "object"}}
 ]}},
 {"jsonrpc": "2.0", "id": 3, "result": {"resources": [
  {"uri": "notes://readme", "name": "readme",
   "_meta": {"io.cloudg/privacy": {"category": "secret"}}}
 ]}},
 {"jsonrpc": "2.0", "id": 4, "result": {"resourceTemplates": [
  {"uriTemplate": "notes://pages/{id}", "name": "page"}
 ]}},
 {"jsonrpc": "2.0", "id": 5, "result": {"prompts": [
  {"name": "plain_prompt", "_meta": {"io.cloudg/privacy": {"sensitivity": "restricted"}}}
 ]}}
]`

var caKnownExtra = []caCall{
	{"resource", "notes://pages/7"}, {"resource", "notes://other"}, {"tool", "unlisted_tool"}, {"prompt", "unlisted_prompt"},
	// Its reading plain_tool is listed; require_known judges the name as
	// sent.
	{"tool", "ｐlain_tool"},
}

// The metadata case: _meta from lists, server.primitives over it field by
// field, and _meta of odd types, which both sides ignore.
const caMetadataEnvelope = `{
  "policy": {
    "name": "metadata",
    "hide_denied": true,
    "vault": {"key": "an e2e key, not a secret"},
    "max_sensitivity": "confidential",
    "deny_categories": ["secret"],
    "deny_capabilities": ["exec"],
    "rules": [{"name": "no-pii-tag", "match": {"roles": ["careful"], "tags": ["pii"]}, "deny_tools": ["*"], "deny_resources": ["*"]}],
    "roles": {
      "ops": {"allow_capabilities": ["exec"], "max_sensitivity": "restricted"},
      "careful": {}
    }
  },
  "server": {
    "id": "metadata",
    "primitives": [
      {"match": {"kinds": ["tool"], "names": ["overridden"]}, "sensitivity": "internal", "category": "plain"},
      {"match": {"kinds": ["tool"], "names": ["gains_exec"]}, "capabilities": ["exec"]},
      {"match": {"kinds": ["resource"], "names": ["cfg://app.yaml"]}, "category": "config"},
      {"match": {"kinds": ["resource"], "names": ["pub://*"]}, "sensitivity": "internal"}
    ]
  }
}`

const caMetadataCatalog = `{"tools": [
  {"name": "listed_restricted", "inputSchema": {"type": "object"},
   "_meta": {"io.cloudg/privacy": {"sensitivity": "restricted"}}},
  {"name": "overridden", "inputSchema": {"type": "object"},
   "_meta": {"io.cloudg/privacy": {"sensitivity": "restricted", "category": "secret"}}},
  {"name": "gains_exec", "inputSchema": {"type": "object"},
   "_meta": {"io.cloudg/privacy": {"sensitivity": "public"}}},
  {"name": "listed_exec", "inputSchema": {"type": "object"},
   "_meta": {"io.cloudg/privacy": {"capabilities": ["exec", "teleport"]}}},
  {"name": "tagged", "inputSchema": {"type": "object"},
   "_meta": {"io.cloudg/privacy": {"tags": [1, "pii", null]}}},
  {"name": "odd_types", "inputSchema": {"type": "object"},
   "_meta": {"io.cloudg/privacy": {"category": 5, "tags": "pii", "sensitivity": ["restricted"], "capabilities": "exec", "transform_hints": []}}},
  {"name": "odd_sensitivity", "inputSchema": {"type": "object"},
   "_meta": {"io.cloudg/privacy": {"sensitivity": "top-secret", "category": null}}},
  {"name": "meta_not_object", "inputSchema": {"type": "object"}, "_meta": {"io.cloudg/privacy": "restricted"}},
  {"name": "meta_array", "inputSchema": {"type": "object"}, "_meta": [{"io.cloudg/privacy": {"category": "secret"}}]},
  {"name": "twice", "inputSchema": {"type": "object"},
   "_meta": {"io.cloudg/privacy": {"sensitivity": "restricted"}}},
  {"name": "twice", "inputSchema": {"type": "object"},
   "_meta": {"io.cloudg/privacy": {"sensitivity": "public"}}}
]}
{"resources": [
  {"uri": "cfg://app.yaml", "name": "app", "_meta": {"io.cloudg/privacy": {"sensitivity": "restricted"}}},
  {"uri": "cfg://tagged", "name": "tagged", "_meta": {"io.cloudg/privacy": {"tags": ["pii"]}}}
]}
{"resourceTemplates": [
  {"uriTemplate": "rep://{id}", "name": "report", "_meta": {"io.cloudg/privacy": {"category": "secret"}}},
  {"uriTemplate": "pub://{id}", "name": "public", "_meta": {"io.cloudg/privacy": {"sensitivity": "restricted"}}}
]}
{"prompts": [
  {"name": "secret_prompt", "_meta": {"io.cloudg/privacy": {"category": "secret"}}},
  {"name": "public_prompt", "_meta": {"io.cloudg/privacy": {"sensitivity": "public"}}}
]}`

// The templates case: templates from lists and from server.primitives'
// literal texts, their instances read strictly and loosely, a static
// resource a template also matches, and URIs the WHATWG reading changes
// only by percent-encoding (a space, é).
const caTemplatesEnvelope = `{
  "policy": {
    "name": "templates",
    "hide_denied": true,
    "vault": {"key": "an e2e key, not a secret"},
    "deny_resources": ["cloudg://assets/{+ref}"],
    "roles": {
      "users_off": {"deny_resources": ["cloudg://users/{id}"]},
      "admin_off": {"deny_resources": ["cloudg://users/admin"]},
      "files_off": {"deny_categories": ["files"]},
      "encoded_off": {"deny_resources": ["cloudg://files/my%20doc", "cloudg://files/d%C3%A9"]},
      "assets": {"allow_resources": ["cloudg://assets/{+ref}"]}
    }
  },
  "server": {
    "id": "templates",
    "primitives": [
      {"match": {"kinds": ["resource_template"], "names": ["cloudg://files/{path}"]}, "category": "files"}
    ]
  }
}`

const caTemplatesCatalog = `[
 {"resources": [
  {"uri": "cloudg://users/admin", "name": "the admin user"},
  {"uri": "cloudg://files/my%20doc", "name": "my doc"},
  {"uri": "cloudg://files/d%C3%A9", "name": "dé"},
  {"uri": "cloudg://config/app.yaml", "name": "config"}
 ]},
 {"resourceTemplates": [
  {"uriTemplate": "cloudg://users/{id}", "name": "user"},
  {"uriTemplate": "cloudg://assets/{+ref}", "name": "asset"}
 ]}
]`

var caTemplatesExtra = []caCall{
	{"resource", "cloudg://users/42"},
	{"resource", "cloudg://users/a@b"},
	{"resource", "cloudg://users/42/keys"},
	{"resource", "cloudg://assets/arn:aws:s3:::payroll"},
	{"resource", "cloudg://files/report"},
	{"resource", "cloudg://files/my doc"},
	{"resource", "cloudg://files/dé"},
	{"resource", "cloudg://files/a/b"},
	{"resource", "cloudg://users/{id}"}, // a template's own text is that template
}

// The names case: tool and prompt names beyond ASCII, read by servers as
// the ASCII names they fold to (manual 6.7), visible denials.
const caNamesEnvelope = `{
  "policy": {
    "name": "names",
    "hide_denied": false,
    "vault": {"key": "an e2e key, not a secret"},
    "deny_tools": ["delete_db"],
    "deny_prompts": ["secret_prompt"],
    "deny_capabilities": ["write_state"],
    "roles": {
      "dba": {"allow_tools": ["delete_db"], "allow_capabilities": ["write_state"]},
      "writer": {"allow_capabilities": ["write_state"]}
    }
  },
  "server": {"id": "names"}
}`

const caNamesCatalog = `{"tools": [
  {"name": "delete_db", "inputSchema": {"type": "object"}},
  {"name": "ｄelete_db", "inputSchema": {"type": "object"}},
  {"name": "write_db", "inputSchema": {"type": "object"},
   "_meta": {"io.cloudg/privacy": {"capabilities": ["write_state"]}}},
  {"name": "ｗrite_db", "inputSchema": {"type": "object"}},
  {"name": "read_db", "inputSchema": {"type": "object"}}
]}
{"prompts": [
  {"name": "secret_prompt"},
  {"name": "ｓecret_prompt"},
  {"name": "plain_prompt"}
]}`

var caNamesExtra = []caCall{
	{"tool", "ｄｅｌｅｔｅ_db"}, {"tool", "DELETE_DB"}, {"tool", "ｗｒｉｔｅ_db"}, {"prompt", "ｓｅｃｒｅｔ_prompt"},
}

func TestCLIAndPluginAgree(t *testing.T) {
	root, err := wasmtest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "mcp-privacy")
	build := exec.Command("go", "build", "-o", bin, "./cmd/mcp-privacy")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/mcp-privacy: %v\n%s", err, out)
	}
	cases := slices.Clone(caCases)
	catalogs, _ := filepath.Glob(filepath.Join(root, "testdata", "policies", "*_catalog.json"))
	if len(catalogs) == 0 {
		t.Fatal("no testdata/policies/*_catalog.json")
	}
	for _, cat := range catalogs {
		file := strings.TrimSuffix(filepath.Base(cat), "_catalog.json") + ".yaml"
		if _, err := os.Stat(filepath.Join(root, "testdata", "policies", file)); err != nil {
			continue
		}
		if !slices.ContainsFunc(cases, func(c caCase) bool { return c.file == file }) {
			cases = append(cases, caCase{name: strings.TrimSuffix(file, ".yaml"), file: file})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			caRun(t, root, bin, c)
		})
	}
}

// caVerdict is one side's answer on one call: allow (transformed and
// limited included: the call is forwarded), deny, hidden, or what else
// the wire carried; why says which rule or which answer.
type caVerdict struct {
	decision, why string
	// rule is the deciding rule, where the side says it (the CLI always,
	// the plugin in a visible denial).
	rule string
}

func caRun(t *testing.T, root, bin string, c caCase) {
	dir := t.TempDir()
	envelope, catalog := []byte(c.envelope), []byte(c.catalog)
	if c.file != "" {
		var err error
		if envelope, err = os.ReadFile(filepath.Join(root, "testdata", "policies", c.file)); err != nil {
			t.Fatal(err)
		}
		if catalog, err = os.ReadFile(filepath.Join(root, "testdata", "policies", strings.TrimSuffix(c.file, ".yaml")+"_catalog.json")); err != nil {
			t.Fatal(err)
		}
	}
	// Copies side by side, as policy test's file names them relative to
	// itself (no testdata envelope extends a file: the plugin could not).
	policyFile, catalogFile := filepath.Join(dir, "policy.yaml"), filepath.Join(dir, "catalog.json")
	if err := os.WriteFile(policyFile, envelope, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(catalogFile, catalog, 0o644); err != nil {
		t.Fatal(err)
	}

	m := caMatrix(t, bin, policyFile, catalogFile)
	cli := map[string]caVerdict{} // by caKey
	for i, role := range m.Roles {
		for j, p := range m.Primitives {
			cell := m.Cells[i][j]
			cli[caKey(role, p.Kind, p.Name)] = caVerdict{decision: caAllowed(cell.State), why: "rule " + cell.Rule + ": " + cell.Reason, rule: cell.Rule}
		}
	}
	for k, v := range caPolicyTest(t, bin, dir, m.Roles, c.extra) {
		cli[k] = v
	}

	config, hold := caPluginEnvelope(t, envelope)
	hideDenied := caHideDenied(t, bin, policyFile)
	lists := caLists(t, catalog)
	up := httptest.NewServer(lists)
	t.Cleanup(up.Close)
	p := startPlugin(t, up.URL, config, func(o *proxy.Options) { o.AllowOnHeadersStopIteration = hold })

	var calls []caCall
	for _, pr := range m.Primitives {
		calls = append(calls, caCall{pr.Kind, pr.Name})
	}
	calls = append(calls, c.extra...)
	// What was compared, for -v: one line per call, the plugin's answer
	// for each role.
	table := map[string][]string{}
	for _, role := range m.Roles {
		session := rawInitialize(t, p.URL, "", role)
		visible := caVisible(t, p.URL, session, role)
		for _, call := range calls {
			key := caKey(role, call.kind, call.name)
			want, ok := cli[key]
			if !ok {
				t.Errorf("%s: no CLI answer", key)
				continue
			}
			if call.kind == "resource_template" && !lists.knows(call.kind, call.name) && !caConfigured(t, envelope, call.name) {
				// A template no source makes known has no call that
				// names it as itself: the plugin reads its text as a URI.
				continue
			}
			got := caPluginCall(t, p.URL, session, role, call)
			table[call.kind+" "+call.name] = append(table[call.kind+" "+call.name], got.decision)
			if want.decision != got.decision {
				t.Errorf("case %s, role %q, %s %q: CLI %s (%s), plugin %s (%s)",
					c.name, role, call.kind, call.name, want.decision, want.why, got.decision, got.why)
			} else if got.decision == "deny" && want.rule != got.rule {
				// A visible denial names its rule: the same one.
				t.Errorf("case %s, role %q, %s %q: CLI denies by rule %q (%s), plugin by %q (%s)",
					c.name, role, call.kind, call.name, want.rule, want.why, got.rule, got.why)
			}
		}
		// A list shows what the caller may use; without hide_denied,
		// everything (manual 7). Listed again after the calls: what
		// the plugin learned since must not leave a stale list.
		for i, visible := range []map[string]bool{visible, caVisible(t, p.URL, session, role)} {
			for _, call := range calls {
				want := cli[caKey(role, call.kind, call.name)]
				if !lists.knows(call.kind, call.name) || want.decision == "" {
					continue
				}
				// A refused URI is left out of lists, whatever the policy.
				shown := want.decision != "refused" && (!hideDenied || want.decision != "hidden")
				if listed := visible[call.kind+" "+call.name]; listed != shown {
					t.Errorf("case %s, role %q, %s %q: CLI %s (%s), plugin's %s list shows it: %v",
						c.name, role, call.kind, call.name, want.decision, want.why, []string{"first", "second"}[i], listed)
				}
			}
		}
	}
	t.Logf("roles %q", m.Roles)
	for _, call := range calls {
		if d := table[call.kind+" "+call.name]; d != nil {
			t.Logf("%-60s %v", call.kind+" "+call.name, d)
		}
	}
}

func caKey(role, kind, name string) string { return role + "\x00" + kind + "\x00" + name }

// caAllowed folds the matrix states the wire cannot tell apart.
func caAllowed(state string) string {
	switch state {
	case "allow", "transformed", "limited":
		return "allow"
	}
	return state
}

type caMatrixJSON struct {
	Roles      []string `json:"roles"`
	Primitives []struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
	} `json:"primitives"`
	Cells [][]struct {
		State  string `json:"state"`
		Rule   string `json:"rule"`
		Reason string `json:"reason"`
	} `json:"cells"`
}

func caMatrix(t *testing.T, bin, policyFile, catalogFile string) *caMatrixJSON {
	t.Helper()
	cmd := exec.Command(bin, "policy", "matrix", policyFile, "--catalog", catalogFile, "--format", "json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("policy matrix: %v\n%s", err, stderr.String())
	}
	var m caMatrixJSON
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("policy matrix JSON: %v\n%s", err, out)
	}
	return &m
}

// caPolicyTest judges the calls for each role with policy test: every
// test expects allow, and -v says how each call was judged.
func caPolicyTest(t *testing.T, bin, dir string, roles []string, calls []caCall) map[string]caVerdict {
	t.Helper()
	out := map[string]caVerdict{}
	if len(calls) == 0 {
		return out
	}
	type test struct {
		Name   string            `json:"name"`
		Caller map[string]any    `json:"caller,omitempty"`
		Call   map[string]string `json:"call"`
		Expect map[string]string `json:"expect"`
	}
	var tests []test
	keys := map[string]string{}
	for _, role := range roles {
		for _, c := range calls {
			tt := test{Name: fmt.Sprintf("t%d", len(tests)), Call: map[string]string{c.kind: c.name}, Expect: map[string]string{"decision": "allow"}}
			if role != "" {
				tt.Caller = map[string]any{"roles": []string{role}}
			}
			keys[tt.Name] = caKey(role, c.kind, c.name)
			tests = append(tests, tt)
		}
	}
	file, _ := json.Marshal(map[string]any{"policy": "policy.yaml", "catalog": "catalog.json", "tests": tests})
	testFile := filepath.Join(dir, "agree_test.json")
	if err := os.WriteFile(testFile, file, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := exec.Command(bin, "policy", "test", "-v", testFile).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 1) {
		t.Fatalf("policy test: %v\n%s", err, res)
	}
	// "ok   FILE: NAME" or "FAIL FILE: NAME", the differences, then
	// "    caller ID [ROLES]: DECISION by RULE (...)".
	head := regexp.MustCompile(`^(ok  |FAIL) .*: (t\d+)$`)
	judged := regexp.MustCompile(`^    caller .*?\]: (allow|deny|hidden|refused) by (.*) \(transforms`)
	name := ""
	sc := bufio.NewScanner(bytes.NewReader(res))
	for sc.Scan() {
		if m := head.FindStringSubmatch(sc.Text()); m != nil {
			name = m[2]
		} else if m := judged.FindStringSubmatch(sc.Text()); m != nil && name != "" {
			out[keys[name]] = caVerdict{decision: m[1], why: "policy test: rule " + m[2], rule: strings.Trim(m[2], `"`)}
			name = ""
		}
	}
	if len(out) != len(tests) {
		t.Fatalf("policy test judged %d of %d calls:\n%s", len(out), len(tests), res)
	}
	return out
}

// caPluginEnvelope is the envelope as JSON for the plugin (a bare policy
// wrapped), the caller's identity read from headers: the matrix judges a
// caller by role alone, with the anonymous principal id, and identity
// sources are not what this test compares. hold is gateway.hold_headers.
func caPluginEnvelope(t *testing.T, data []byte) (config string, hold bool) {
	t.Helper()
	doc, err := policy.ParseDocument(data)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Get("policy") == nil && doc.Get("server") == nil && doc.Get("identity") == nil && doc.Get("gateway") == nil {
		doc = policy.Object(policy.Member{Key: "policy", Value: doc})
	}
	anonymous := policy.String("anonymous")
	if id := doc.Get("identity"); id != nil && id.Get("anonymous_id") != nil {
		anonymous = id.Get("anonymous_id")
	}
	doc.Set("identity", policy.Object(
		policy.Member{Key: "principal", Value: policy.Array()},
		policy.Member{Key: "roles", Value: policy.Array(policy.Object(policy.Member{Key: "header", Value: policy.String("x-mcp-roles")}))},
		policy.Member{Key: "anonymous_id", Value: anonymous},
	))
	if g := doc.Get("gateway"); g != nil && g.Get("hold_headers") != nil {
		hold = g.Get("hold_headers").Bool
	}
	return doc.JSON(""), hold
}

// caHideDenied is the effective policy's hide_denied (extends resolved),
// as policy flatten prints it.
func caHideDenied(t *testing.T, bin, policyFile string) bool {
	t.Helper()
	out, err := exec.Command(bin, "policy", "flatten", policyFile).Output()
	if err != nil {
		t.Fatalf("policy flatten: %v", err)
	}
	var p struct {
		HideDenied *bool `json:"hide_denied"`
	}
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("policy flatten: %v\n%s", err, out)
	}
	return p.HideDenied == nil || *p.HideDenied
}

// caConfigured reports whether an entry of the envelope's
// server.primitives for templates (or any kind) names text literally,
// which makes that template known (manual 4).
func caConfigured(t *testing.T, envelope []byte, text string) bool {
	t.Helper()
	doc, err := policy.ParseDocument(envelope)
	if err != nil {
		t.Fatal(err)
	}
	server := doc.Get("server")
	if server == nil || server.Get("primitives") == nil {
		return false
	}
	for _, e := range server.Get("primitives").Array {
		match := e.Get("match")
		if match == nil || match.Get("names") == nil {
			continue
		}
		kinds := match.Get("kinds")
		forTemplates := kinds == nil || len(kinds.Array) == 0 || slices.ContainsFunc(kinds.Array, func(k *policy.Value) bool {
			return k.Text == "resource_template" || k.Text == "resource" // resource covers templates
		})
		if forTemplates && slices.ContainsFunc(match.Get("names").Array, func(n *policy.Value) bool { return n.Text == text }) {
			return true
		}
	}
	return false
}

// caServer answers the four list methods with a captured catalog's items
// as they are (their _meta included), and every call, read, get and
// completion with a success, except of a stand-in (a hidden name), which
// it answers as the go-sdk answers a name it does not have.
type caServer struct {
	items    map[string][]json.RawMessage // by list member
	names    map[string]bool
	sessions atomic.Int64
}

// caItemKeys are, by list member, the member naming an item and its kind.
var caItemKeys = map[string]struct{ key, kind string }{
	"tools": {"name", "tool"}, "resources": {"uri", "resource"},
	"resourceTemplates": {"uriTemplate", "resource_template"}, "prompts": {"name", "prompt"},
}

var caListMembers = map[string]string{
	"tools/list": "tools", "resources/list": "resources",
	"resources/templates/list": "resourceTemplates", "prompts/list": "prompts",
}

func caLists(t *testing.T, catalog []byte) *caServer {
	t.Helper()
	s := &caServer{items: map[string][]json.RawMessage{}, names: map[string]bool{}}
	var add func(v json.RawMessage)
	add = func(v json.RawMessage) {
		var arr []json.RawMessage
		if json.Unmarshal(v, &arr) == nil {
			for _, e := range arr {
				add(e)
			}
			return
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(v, &obj); err != nil {
			t.Fatalf("catalog: %v", err)
		}
		if r, ok := obj["result"]; ok {
			add(r)
			return
		}
		for _, member := range caListMembers {
			var items []json.RawMessage
			if json.Unmarshal(obj[member], &items) != nil {
				continue
			}
			s.items[member] = append(s.items[member], items...)
			for _, it := range items {
				var named map[string]any
				_ = json.Unmarshal(it, &named)
				if name, ok := named[caItemKeys[member].key].(string); ok {
					s.names[caItemKeys[member].kind+" "+name] = true
				}
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(catalog))
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("catalog: %v", err)
		}
		add(v)
	}
	return s
}

// knows reports whether a list names the primitive.
func (s *caServer) knows(kind, name string) bool { return s.names[kind+" "+name] }

func (s *caServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name            string `json:"name"`
			URI             string `json:"uri"`
			ProtocolVersion string `json:"protocolVersion"`
			Ref             struct{ Name, URI string }
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if req.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	missing := strings.Contains(req.Params.Name+req.Params.URI+req.Params.Ref.Name+req.Params.Ref.URI, "mcp_privacy_missing_")
	var result any
	var rpcErr map[string]any
	switch req.Method {
	case "initialize":
		w.Header().Set("Mcp-Session-Id", fmt.Sprintf("agree-%d", s.sessions.Add(1)))
		result = map[string]any{"protocolVersion": req.Params.ProtocolVersion,
			"capabilities": map[string]any{"tools": map[string]any{}, "resources": map[string]any{}, "prompts": map[string]any{}, "completions": map[string]any{}},
			"serverInfo":   map[string]any{"name": "agree", "version": "v1"}}
	case "tools/list", "resources/list", "resources/templates/list", "prompts/list":
		items := s.items[caListMembers[req.Method]]
		if items == nil {
			items = []json.RawMessage{}
		}
		result = map[string]any{caListMembers[req.Method]: items}
	case "tools/call":
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "served"}}}
		if missing {
			rpcErr = map[string]any{"code": -32602, "message": fmt.Sprintf("unknown tool %q", req.Params.Name)}
		}
	case "prompts/get":
		result = map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "served"}}}}
		if missing {
			rpcErr = map[string]any{"code": -32602, "message": fmt.Sprintf("unknown prompt %q", req.Params.Name)}
		}
	case "resources/read":
		result = map[string]any{"contents": []any{map[string]any{"uri": req.Params.URI, "text": "served"}}}
		if missing {
			rpcErr = map[string]any{"code": -32002, "message": "Resource not found", "data": map[string]any{"uri": req.Params.URI}}
		}
	case "completion/complete":
		result = map[string]any{"completion": map[string]any{"values": []string{"served"}, "total": 1, "hasMore": false}}
		if missing {
			rpcErr = map[string]any{"code": -32602, "message": "unknown reference"}
		}
	default:
		result = map[string]any{}
	}
	writeRPC(w, req.ID, result, rpcErr)
}

// caAnswer is a JSON-RPC answer, from a JSON body or the first message
// of an event stream.
type caAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func caParse(t *testing.T, status int, body string) caAnswer {
	t.Helper()
	text := strings.TrimSpace(body)
	if !strings.HasPrefix(text, "{") {
		for line := range strings.SplitSeq(body, "\n") {
			if data, ok := strings.CutPrefix(line, "data:"); ok && strings.TrimSpace(data) != "" {
				text = data
				break
			}
		}
	}
	var a caAnswer
	if err := json.Unmarshal([]byte(text), &a); err != nil {
		t.Fatalf("answer %d %q: %v", status, body, err)
	}
	return a
}

// caVisible lists everything as the caller (so the plugin learns) and
// returns what each list shows, by "kind name".
func caVisible(t *testing.T, url, session, role string) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	for _, l := range []struct{ method, member, key, kind string }{
		{"tools/list", "tools", "name", "tool"},
		{"resources/list", "resources", "uri", "resource"},
		{"resources/templates/list", "resourceTemplates", "uriTemplate", "resource_template"},
		{"prompts/list", "prompts", "name", "prompt"},
	} {
		status, body := rawPost(t, url, session, "", role, `{"jsonrpc":"2.0","id":1,"method":"`+l.method+`","params":{}}`)
		a := caParse(t, status, body)
		if a.Error != nil {
			t.Fatalf("role %q: %s: error %d %s", role, l.method, a.Error.Code, a.Error.Message)
		}
		var res map[string][]map[string]any
		if err := json.Unmarshal(a.Result, &res); err != nil {
			t.Fatalf("role %q: %s: %v", role, l.method, err)
		}
		for _, it := range res[l.member] {
			if name, ok := it[l.key].(string); ok {
				seen[l.kind+" "+name] = true
			}
		}
	}
	return seen
}

// caPluginCall makes the call as the caller and classifies the answer
// from the wire: a result is allow (the call was forwarded: the server
// answers every name it is asked), -32003 deny, and the not-found the
// server gives a stand-in hidden.
func caPluginCall(t *testing.T, url, session, role string, c caCall) caVerdict {
	t.Helper()
	var params map[string]any
	method := map[string]string{"tool": "tools/call", "prompt": "prompts/get", "resource": "resources/read", "resource_template": "completion/complete"}[c.kind]
	switch c.kind {
	case "tool":
		params = map[string]any{"name": c.name, "arguments": map[string]any{}}
	case "prompt":
		params = map[string]any{"name": c.name}
	case "resource":
		params = map[string]any{"uri": c.name}
	case "resource_template":
		// A template's own text in a completion's ref is that template
		// (manual 4), judged as the matrix judges its column.
		params = map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": c.name}, "argument": map[string]any{"name": "x", "value": ""}}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	status, answer := rawPost(t, url, session, "", role, string(body))
	a := caParse(t, status, answer)
	switch {
	case a.Error == nil:
		return caVerdict{decision: "allow", why: "result " + caShort(string(a.Result))}
	case a.Error.Code == -32003:
		var data struct{ Rule, Reason string }
		_ = json.Unmarshal(a.Error.Data, &data)
		return caVerdict{decision: "deny", why: fmt.Sprintf("-32003 rule %s: %s", data.Rule, data.Reason), rule: data.Rule}
	case slices.Contains([]string{"unknown tool", "unknown prompt", "Resource not found", "unknown reference"}, caNotFound(a.Error.Message)):
		return caVerdict{decision: "hidden", why: fmt.Sprintf("%d %s", a.Error.Code, a.Error.Message)}
	case a.Error.Code == -32602 && strings.Contains(a.Error.Message, "must be in normal form"):
		// Refused whatever the policy says (manual 4): the CLI's refused.
		return caVerdict{decision: "refused", why: fmt.Sprintf("%d %s", a.Error.Code, a.Error.Message)}
	}
	return caVerdict{decision: "error", why: fmt.Sprintf("%d %s %s", a.Error.Code, a.Error.Message, a.Error.Data)}
}

// caNotFound is the words of a not-found error without the name it quotes.
func caNotFound(msg string) string {
	if i := strings.Index(msg, ` "`); i >= 0 {
		return msg[:i]
	}
	return msg
}

func caShort(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
