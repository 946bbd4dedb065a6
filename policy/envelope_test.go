package policy

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func evParse(t testing.TB, src string) *Envelope {
	t.Helper()
	env, errs := cfCatch(t, func() (*Envelope, Errors) { return ParseEnvelope([]byte(src), Options{}) })
	if len(errs) > 0 {
		t.Fatalf("ParseEnvelope(%q):\n%v", src, errs)
	}
	if env == nil || env.Policy == nil {
		t.Fatalf("ParseEnvelope(%q) returned no envelope or policy", src)
	}
	return env
}

func evErrors(t testing.TB, src string) Errors {
	t.Helper()
	env, errs := cfCatch(t, func() (*Envelope, Errors) { return ParseEnvelope([]byte(src), Options{}) })
	if len(errs) == 0 {
		t.Fatalf("ParseEnvelope(%q) succeeded, want errors", src)
	}
	if env != nil {
		t.Errorf("ParseEnvelope(%q) returned an envelope together with errors", src)
	}
	return errs
}

func evCheckDefaults(t *testing.T, env *Envelope) {
	t.Helper()
	s := env.Server
	if s.ID != "default" || len(s.Primitives) != 0 || !s.LearnFromLists || s.RequireKnown {
		t.Errorf("server = %+v, want id default, no primitives, learn_from_lists true, require_known false", s)
	}
	g := env.Gateway
	cfGlobs(t, "gateway.paths", g.Paths, "/mcp", "/mcp/*")
	for path, want := range map[string]bool{
		"/mcp": true, "/mcp/": true, "/mcp/x": true, "/mcp/x/y": true, "/mcp/a:b": true,
		"/mcpx": false, "/other": false, "/": false, "": false, "/MCP": false, "mcp": false, "/x/mcp": false, "/mcp2/x": false,
	} {
		if got := g.Paths.Match(path); got != want {
			t.Errorf("gateway.paths.Match(%q) = %v, want %v", path, got, want)
		}
	}
	if !g.VirtualTools || g.MaxRequestBytes != 1048576 || g.MaxResponseBytes != 16777216 || g.MaxEventBytes != 4194304 {
		t.Errorf("gateway = %+v, want virtual_tools true and limits 1048576/16777216/4194304", g)
	}
	if g.PassOnParseError || g.PassOnOversize {
		t.Errorf("on_parse_error/on_oversize should default to reject: %+v", g)
	}
	if len(g.ExportHeaders) != 0 {
		t.Errorf("export_headers = %v, want none", g.ExportHeaders)
	}
	if g.HoldHeaders {
		t.Error("hold_headers should default to false (it needs an Envoy option)")
	}
	if g.BodyBuffering != BufferAuto {
		t.Errorf("body_buffering = %v, want auto", g.BodyBuffering)
	}
	id := env.Identity
	if id.AnonymousID != "anonymous" || id.Require {
		t.Errorf("identity anonymous_id=%q require=%v, want anonymous false", id.AnonymousID, id.Require)
	}
	if !slices.Equal(id.JWTMetadata, []string{"envoy.filters.http.jwt_authn", "jwt_payload"}) {
		t.Errorf("identity.jwt.metadata = %q", id.JWTMetadata)
	}
	// The sources of manual 3: a principal header and the sub claim; a roles
	// header and the roles claim.
	has := func(list []IdentitySource, s IdentitySource) bool {
		return slices.ContainsFunc(list, func(e IdentitySource) bool { return reflect.DeepEqual(e, s) })
	}
	if !has(id.Principal, IdentitySource{Header: "x-mcp-principal"}) || !has(id.Principal, ClaimSource("sub")) {
		t.Errorf("identity.principal = %+v", id.Principal)
	}
	if !has(id.Roles, IdentitySource{Header: "x-mcp-roles"}) || !has(id.Roles, ClaimSource("roles")) {
		t.Errorf("identity.roles = %+v", id.Roles)
	}
}

func TestEnvelopeDefaults(t *testing.T) {
	for _, src := range []string{
		`{"policy": "standard"}`,
		"policy: standard\n",
		`{"policy": "standard", "server": {}, "identity": {}, "gateway": {}}`,
		"policy: standard\nserver: {}\nidentity: {}\ngateway: {}\n",
	} {
		t.Run(src, func(t *testing.T) {
			env := evParse(t, src)
			evCheckDefaults(t, env)
			if env.Policy.Name != "standard" {
				t.Errorf("policy = %q, want standard", env.Policy.Name)
			}
		})
	}
}

const evFullYAML = `
policy:
  extends: strict
  name: gw
  transforms: [{type: redact, id: secrets}, {type: mask, id: cards}]
server:
  id: payments
  learn_from_lists: false
  require_known: true
  primitives:
    - match: {kinds: [tool], names: ["pay_*"]}
      category: payments
      tags: [money, pii]
      sensitivity: restricted
      capabilities: [write_state, cloud_access]
      transform_hints: {cards: {keep_last: 2}, redact: {placeholder: "[x]"}, skip: [secrets]}
    - match: {names: ["cloudg://assets/{+ref}"]}
      sensitivity: public
identity:
  principal: [{header: x-user}, {jwt_claim: claims.email}, {property: [connection, uri_san_peer_certificate]}]
  roles: [{header: x-roles}]
  jwt:
    metadata: [my.jwt, payload]
    payload_header: x-jwt-payload
  anonymous_id: nobody
  require: true
gateway:
  paths: ["/api/mcp", "/tools/*"]
  virtual_tools: false
  max_request_bytes: 1000
  max_response_bytes: 2000
  max_event_bytes: 300
  on_parse_error: pass
  on_oversize: pass
  hold_headers: true
  export_headers: {principal: x-mcp-principal, primitive: x-mcp-primitive, method: x-mcp-method}
`

const evFullJSON = `{
  "policy": {"extends": "strict", "name": "gw", "transforms": [{"type": "redact", "id": "secrets"}, {"type": "mask", "id": "cards"}]},
  "server": {
    "id": "payments", "learn_from_lists": false, "require_known": true,
    "primitives": [
      {"match": {"kinds": ["tool"], "names": ["pay_*"]}, "category": "payments", "tags": ["money", "pii"],
       "sensitivity": "restricted", "capabilities": ["write_state", "cloud_access"],
       "transform_hints": {"cards": {"keep_last": 2}, "redact": {"placeholder": "[x]"}, "skip": ["secrets"]}},
      {"match": {"names": ["cloudg://assets/{+ref}"]}, "sensitivity": "public"}
    ]
  },
  "identity": {
    "principal": [{"header": "x-user"}, {"jwt_claim": "claims.email"}, {"property": ["connection", "uri_san_peer_certificate"]}],
    "roles": [{"header": "x-roles"}],
    "jwt": {"metadata": ["my.jwt", "payload"], "payload_header": "x-jwt-payload"},
    "anonymous_id": "nobody",
    "require": true
  },
  "gateway": {
    "paths": ["/api/mcp", "/tools/*"], "virtual_tools": false,
    "max_request_bytes": 1000, "max_response_bytes": 2000, "max_event_bytes": 300,
    "on_parse_error": "pass", "on_oversize": "pass",
    "hold_headers": true,
    "export_headers": {"principal": "x-mcp-principal", "primitive": "x-mcp-primitive", "method": "x-mcp-method"}
  }
}`

func TestEnvelopeEveryKey(t *testing.T) {
	for name, src := range map[string]string{"yaml": evFullYAML, "json": evFullJSON} {
		t.Run(name, func(t *testing.T) {
			env := evParse(t, src)
			if env.Policy.Name != "gw" || !env.Policy.Audit || env.Policy.Access.MaxSensitivity != Internal {
				t.Errorf("policy name=%q audit=%v", env.Policy.Name, env.Policy.Audit)
			}
			s := env.Server
			if s.ID != "payments" || s.LearnFromLists || !s.RequireKnown || len(s.Primitives) != 2 {
				t.Fatalf("server = %+v", s)
			}
			pc := s.Primitives[0]
			if pc.Kinds != cfKinds(KindTool) || pc.Category == nil || *pc.Category != "payments" || !pc.TagsSet ||
				!slices.Equal(pc.Tags, []string{"money", "pii"}) || pc.Sensitivity != Restricted ||
				!pc.CapabilitiesSet || pc.Capabilities != cfCaps(WriteState, CloudAccess) || pc.Hints == nil {
				t.Errorf("primitives[0] = %+v", pc)
			}
			cfGlobs(t, "primitives[0].match.names", pc.Names, "pay_*")
			id := env.Identity
			wantP := []IdentitySource{{Header: "x-user"}, ClaimSource("claims.email"), {Property: []string{"connection", "uri_san_peer_certificate"}}}
			if !reflect.DeepEqual(id.Principal, wantP) || !reflect.DeepEqual(id.Roles, []IdentitySource{{Header: "x-roles"}}) {
				t.Errorf("identity sources = %+v / %+v", id.Principal, id.Roles)
			}
			if !slices.Equal(id.JWTMetadata, []string{"my.jwt", "payload"}) || id.JWTHeader != "x-jwt-payload" ||
				id.AnonymousID != "nobody" || !id.Require {
				t.Errorf("identity = %+v", id)
			}
			g := env.Gateway
			cfGlobs(t, "gateway.paths", g.Paths, "/api/mcp", "/tools/*")
			if g.Paths.Match("/mcp") || !g.Paths.Match("/tools/a/b") {
				t.Error("gateway.paths not applied")
			}
			if g.VirtualTools || g.MaxRequestBytes != 1000 || g.MaxResponseBytes != 2000 || g.MaxEventBytes != 300 ||
				!g.PassOnParseError || !g.PassOnOversize {
				t.Errorf("gateway = %+v", g)
			}
			wantH := []HeaderExport{{"principal", "x-mcp-principal"}, {"primitive", "x-mcp-primitive"}, {"method", "x-mcp-method"}}
			if !reflect.DeepEqual(g.ExportHeaders, wantH) {
				t.Errorf("export_headers = %+v, want %+v (in document order)", g.ExportHeaders, wantH)
			}
		})
	}
	// Every export field.
	env := evParse(t, `{"policy": "strict", "gateway": {"hold_headers": true, "export_headers": {"principal": "x-a", "roles": "x-b", "method": "x-c",
		"kind": "x-d", "primitive": "x-e", "decision": "x-f", "rule": "x-g"}}}`)
	if len(env.Gateway.ExportHeaders) != 7 {
		t.Errorf("export_headers = %v", env.Gateway.ExportHeaders)
	}
}

func TestEnvelopePolicyForms(t *testing.T) {
	for _, name := range ProfileNames {
		for _, src := range []string{`{"policy": "` + name + `"}`, "policy: " + name + "\n", `"` + name + `"`, name + "\n"} {
			if env := evParse(t, src); env.Policy.Name != name {
				t.Errorf("%q: policy %q", src, env.Policy.Name)
			}
		}
	}
	// A bare policy is accepted as an envelope with defaults elsewhere.
	for _, src := range []string{
		`{"name": "bare", "deny_tools": ["x"]}`,
		"name: bare\ndeny_tools: [x]\n",
	} {
		env := evParse(t, src)
		if env.Policy.Name != "bare" || !env.Policy.Access.DenyTools.Match("x") {
			t.Errorf("%q: policy = %q", src, env.Policy.Name)
		}
		evCheckDefaults(t, env)
	}
	if env := evParse(t, `{}`); env.Policy.Name != "custom" {
		t.Errorf("{}: policy %q, want the default policy", env.Policy.Name)
	}
	if env := evParse(t, `{"policy": {}}`); env.Policy.Name != "custom" {
		t.Errorf(`{"policy": {}}: policy %q`, env.Policy.Name)
	}
	// A bare policy's errors still name their paths.
	errs := evErrors(t, `{"name": "bare", "bogus": 1}`)
	if len(errs) != 1 || !strings.HasSuffix(errs[0].Path, "bogus") {
		t.Errorf("bare policy errors = %v", errs)
	}

	cases := []struct{ src, path, want string }{
		{`{"policy": "nope"}`, "policy", `unknown profile "nope"`},
		{`{"policy": 5}`, "policy", "number 5"},
		{`{"policy": null}`, "policy", "null"},
		{`{"policy": ["strict"]}`, "policy", "list"},
		{`{"server": {"id": "x"}}`, "", `missing required key "policy"`},
		{`{"gateway": {}}`, "", `missing required key "policy"`},
		{`[1]`, "", "want object"},
		{`5`, "", ""},
	}
	for _, c := range cases {
		errs := evErrors(t, c.src)
		if len(errs) != 1 || errs[0].Path != c.path || !strings.Contains(errs[0].Msg, c.want) {
			t.Errorf("%q: errors = %v, want one at %q containing %q", c.src, errs, c.path, c.want)
		}
	}
}

func TestEnvelopeErrors(t *testing.T) {
	cases := []struct {
		name     string
		src      string
		paths    []string
		contains []string
		full     string
	}{
		// Unknown keys in every block.
		{name: "top", src: `{"policy": "standard", "foo": 1}`, paths: []string{"foo"},
			contains: []string{`unknown key "foo"`, "policy, server, identity, gateway"}},
		{name: "gateway", src: `{"policy": "standard", "gateway": {"foo": 1}}`, paths: []string{"gateway.foo"},
			contains: []string{"paths, virtual_tools, max_request_bytes"}},
		{name: "server", src: `{"policy": "standard", "server": {"foo": 1}}`, paths: []string{"server.foo"}},
		{name: "identity", src: `{"policy": "standard", "identity": {"foo": 1}}`, paths: []string{"identity.foo"}},
		{name: "identity-jwt", src: `{"policy": "standard", "identity": {"jwt": {"foo": 1}}}`, paths: []string{"identity.jwt.foo"}},
		{name: "identity-source", src: `{"policy": "standard", "identity": {"principal": [{"foo": "x"}]}}`, paths: []string{"identity.principal[0].foo"}},
		{name: "primitive", src: `{"policy": "standard", "server": {"primitives": [{"foo": 1}]}}`, paths: []string{"server.primitives[0].foo"}},
		{name: "primitive-match", src: `{"policy": "standard", "server": {"primitives": [{"match": {"tags": ["x"]}}]}}`,
			paths: []string{"server.primitives[0].match.tags"}},
		{name: "export-field", src: `{"policy": "standard", "gateway": {"export_headers": {"user": "x-user"}}}`,
			paths: []string{"gateway.export_headers.user"}, contains: []string{"principal, roles, method, kind, primitive, decision, rule"}},
		{name: "policy", src: `{"policy": {"bar": 1}}`, paths: []string{"policy.bar"}},
		{name: "policy-rule", src: `{"policy": {"rules": [{"bar": 1}]}}`, paths: []string{"policy.rules[0].bar"}},
		{name: "policy-vault", src: `{"policy": {"vault": {"bar": 1}}}`, paths: []string{"policy.vault.bar"}},
		{name: "spec-example", src: `{"policy": {"rules": [{}, {}, {"match": {"kinds": ["tools"]}}]}}`,
			paths: []string{"policy.rules[2].match.kinds[0]"},
			full:  `policy.rules[2].match.kinds[0]: unknown kind "tools" (want tool, resource, resource_template, prompt)`},
		{name: "every-block", src: `{"policy": {"rules": [{"bar": 1}]}, "server": {"foo": 1}, "identity": {"foo": 1}, "gateway": {"foo": 1}}`,
			paths: []string{"policy.rules[0].bar", "server.foo", "identity.foo", "gateway.foo"}},
		{name: "every-block-reordered", src: `{"gateway": {"foo": 1}, "identity": {"foo": 1}, "server": {"foo": 1}, "policy": {"rules": [{"bar": 1}]}}`,
			paths: []string{"gateway.foo", "identity.foo", "server.foo", "policy.rules[0].bar"}},

		// server
		{name: "server-type", src: `{"policy": "standard", "server": []}`, paths: []string{"server"}},
		{name: "server-id-empty", src: `{"policy": "standard", "server": {"id": ""}}`, paths: []string{"server.id"}},
		{name: "server-id-type", src: `{"policy": "standard", "server": {"id": 5}}`, paths: []string{"server.id"}},
		{name: "learn_from_lists", src: `{"policy": "standard", "server": {"learn_from_lists": "yes"}}`, paths: []string{"server.learn_from_lists"}},
		{name: "require_known", src: `{"policy": "standard", "server": {"require_known": 1}}`, paths: []string{"server.require_known"}},
		{name: "primitives-type", src: `{"policy": "standard", "server": {"primitives": {}}}`, paths: []string{"server.primitives"}},
		{name: "primitive-kind", src: `{"policy": "standard", "server": {"primitives": [{"match": {"kinds": ["tools"]}}]}}`,
			paths: []string{"server.primitives[0].match.kinds[0]"},
			full:  `server.primitives[0].match.kinds[0]: unknown kind "tools" (want tool, resource, resource_template, prompt)`},
		{name: "primitive-names", src: `{"policy": "standard", "server": {"primitives": [{"match": {"names": ["", "!"]}}]}}`,
			paths: []string{"server.primitives[0].match.names[0]", "server.primitives[0].match.names[1]"}},
		{name: "primitive-sensitivity", src: `{"policy": "standard", "server": {"primitives": [{"sensitivity": "secret"}]}}`,
			paths: []string{"server.primitives[0].sensitivity"}, contains: []string{`"secret"`}},
		{name: "primitive-capabilities", src: `{"policy": "standard", "server": {"primitives": [{"capabilities": ["fly"]}]}}`,
			paths: []string{"server.primitives[0].capabilities[0]"}},
		{name: "primitive-tags", src: `{"policy": "standard", "server": {"primitives": [{"tags": "x"}]}}`, paths: []string{"server.primitives[0].tags"}},
		{name: "primitive-category", src: `{"policy": "standard", "server": {"primitives": [{"category": 5}]}}`, paths: []string{"server.primitives[0].category"}},
		{name: "hints-type", src: `{"policy": "standard", "server": {"primitives": [{"transform_hints": "x"}]}}`,
			paths: []string{"server.primitives[0].transform_hints"}},
		{name: "hints-unknown-option", src: `{"policy": "standard", "server": {"primitives": [{"transform_hints": {"redact": {"bogus": 1}}}]}}`,
			paths: []string{"server.primitives[0].transform_hints.redact.bogus"}, contains: []string{`unknown option "bogus" for transform redact`}},
		{name: "hints-option-of-id", src: `{"policy": "standard", "server": {"primitives": [{"transform_hints": {"pii": {"placeholder": "x"}}}]}}`,
			paths: []string{"server.primitives[0].transform_hints.pii.placeholder"}, contains: []string{"pseudonymise"}},
		{name: "hints-option-value", src: `{"policy": "standard", "server": {"primitives": [{"transform_hints": {"mask": {"keep_last": -1}}}]}}`,
			paths: []string{"server.primitives[0].transform_hints.mask.keep_last"}},
		{name: "hints-not-object", src: `{"policy": "standard", "server": {"primitives": [{"transform_hints": {"redact": "x"}}]}}`,
			paths: []string{"server.primitives[0].transform_hints.redact"}},
		{name: "hints-skip-type", src: `{"policy": "standard", "server": {"primitives": [{"transform_hints": {"skip": "pii"}}]}}`,
			paths: []string{"server.primitives[0].transform_hints.skip"}},
		{name: "hints-skip-entry", src: `{"policy": "standard", "server": {"primitives": [{"transform_hints": {"skip": ["pii", 1]}}]}}`,
			paths: []string{"server.primitives[0].transform_hints.skip[1]"}},

		// identity
		{name: "identity-type", src: `{"policy": "standard", "identity": "x"}`, paths: []string{"identity"}},
		{name: "principal-type", src: `{"policy": "standard", "identity": {"principal": "x-user"}}`, paths: []string{"identity.principal"}},
		{name: "source-empty", src: `{"policy": "standard", "identity": {"principal": [{}]}}`, paths: []string{"identity.principal[0]"},
			contains: []string{"exactly one of header, jwt_claim, property", "got 0 keys"}},
		{name: "source-two", src: `{"policy": "standard", "identity": {"roles": [{"header": "x-a", "jwt_claim": "roles"}]}}`,
			paths: []string{"identity.roles[0]"}, contains: []string{"got 2 keys"}},
		{name: "source-not-object", src: `{"policy": "standard", "identity": {"roles": ["x-roles"]}}`, paths: []string{"identity.roles[0]"}},
		{name: "source-header", src: `{"policy": "standard", "identity": {"principal": [{"header": "x user"}]}}`,
			paths: []string{"identity.principal[0].header"}, contains: []string{`"x user"`}},
		{name: "source-header-empty", src: `{"policy": "standard", "identity": {"principal": [{"header": ""}]}}`,
			paths: []string{"identity.principal[0].header"}},
		{name: "source-claim-empty", src: `{"policy": "standard", "identity": {"principal": [{"jwt_claim": ""}]}}`,
			paths: []string{"identity.principal[0].jwt_claim"}},
		// gjson's syntax beyond keys, escapes, wildcards, indexes and '#'
		// is refused where it is written (internal/claims).
		{name: "source-claim-query", src: `{"policy": "standard", "identity": {"roles": [{"header": "x-r"}, {"jwt_claim": "groups.#(name==\"a\").id"}]}}`,
			paths: []string{"identity.roles[1].jwt_claim"}, contains: []string{"queries"}},
		{name: "source-claim-modifier", src: `{"policy": "standard", "identity": {"principal": [{"jwt_claim": "roles.@reverse"}]}}`,
			paths: []string{"identity.principal[0].jwt_claim"}, contains: []string{"modifiers"}},
		{name: "source-property-empty", src: `{"policy": "standard", "identity": {"principal": [{"property": []}]}}`,
			paths: []string{"identity.principal[0].property"}},
		// A wrong type is one error, not also a second about the "" used in its place.
		{name: "source-header-type", src: `{"policy": "standard", "identity": {"principal": [{"header": 5}]}}`,
			paths: []string{"identity.principal[0].header"}, contains: []string{"number 5"}},
		{name: "source-claim-type", src: `{"policy": "standard", "identity": {"principal": [{"jwt_claim": 5}]}}`,
			paths: []string{"identity.principal[0].jwt_claim"}},
		{name: "source-property-type", src: `{"policy": "standard", "identity": {"principal": [{"property": "x"}]}}`,
			paths: []string{"identity.principal[0].property"}},
		{name: "jwt-header-type", src: `{"policy": "standard", "identity": {"jwt": {"payload_header": 5}}}`,
			paths: []string{"identity.jwt.payload_header"}},
		{name: "jwt-type", src: `{"policy": "standard", "identity": {"jwt": []}}`, paths: []string{"identity.jwt"}},
		{name: "jwt-metadata", src: `{"policy": "standard", "identity": {"jwt": {"metadata": "x"}}}`, paths: []string{"identity.jwt.metadata"}},
		{name: "jwt-header", src: `{"policy": "standard", "identity": {"jwt": {"payload_header": "bad header"}}}`, paths: []string{"identity.jwt.payload_header"}},
		{name: "anonymous_id", src: `{"policy": "standard", "identity": {"anonymous_id": ""}}`, paths: []string{"identity.anonymous_id"}},
		{name: "require", src: `{"policy": "standard", "identity": {"require": "yes"}}`, paths: []string{"identity.require"}},

		// gateway
		{name: "gateway-type", src: `{"policy": "standard", "gateway": 1}`, paths: []string{"gateway"}},
		{name: "paths-type", src: `{"policy": "standard", "gateway": {"paths": "/mcp"}}`, paths: []string{"gateway.paths"}},
		{name: "paths-glob", src: `{"policy": "standard", "gateway": {"paths": ["/mcp", ""]}}`, paths: []string{"gateway.paths[1]"}},
		{name: "virtual_tools", src: `{"policy": "standard", "gateway": {"virtual_tools": "no"}}`, paths: []string{"gateway.virtual_tools"}},
		{name: "max_request_bytes-zero", src: `{"policy": "standard", "gateway": {"max_request_bytes": 0}}`, paths: []string{"gateway.max_request_bytes"}},
		{name: "max_request_bytes-string", src: `{"policy": "standard", "gateway": {"max_request_bytes": "1MB"}}`,
			paths: []string{"gateway.max_request_bytes"}, contains: []string{`"1MB"`}},
		{name: "max_response_bytes", src: `{"policy": "standard", "gateway": {"max_response_bytes": -1}}`, paths: []string{"gateway.max_response_bytes"}},
		{name: "max_event_bytes", src: `{"policy": "standard", "gateway": {"max_event_bytes": 1.5}}`, paths: []string{"gateway.max_event_bytes"}},
		{name: "on_parse_error", src: `{"policy": "standard", "gateway": {"on_parse_error": "drop"}}`, paths: []string{"gateway.on_parse_error"},
			contains: []string{`"drop"`, "reject, pass"}},
		{name: "on_oversize", src: `{"policy": "standard", "gateway": {"on_oversize": "truncate"}}`, paths: []string{"gateway.on_oversize"}},
		{name: "export-call-field-needs-hold", src: `{"policy": "standard", "gateway": {"export_headers": {"principal": "x-p", "primitive": "x-q"}}}`,
			paths: []string{"gateway.export_headers.primitive"}, contains: []string{"hold_headers"}},
		{name: "hold-headers-type", src: `{"policy": "standard", "gateway": {"hold_headers": "yes"}}`, paths: []string{"gateway.hold_headers"}},
		{name: "body-buffering-value", src: `{"policy": "standard", "gateway": {"body_buffering": "nginx"}}`, paths: []string{"gateway.body_buffering"},
			contains: []string{`"nginx"`, "auto, host, plugin"}},
		{name: "body-buffering-plugin-with-hold", src: `{"policy": "standard", "gateway": {"hold_headers": true, "body_buffering": "plugin"}}`,
			paths: []string{"gateway.body_buffering"}, contains: []string{"hold_headers"}},
		{name: "export-type", src: `{"policy": "standard", "gateway": {"export_headers": ["x"]}}`, paths: []string{"gateway.export_headers"}},
		{name: "export-header-space", src: `{"policy": "standard", "gateway": {"export_headers": {"principal": "x mcp"}}}`,
			paths: []string{"gateway.export_headers.principal"}, contains: []string{`"x mcp"`}},
		{name: "export-header-colon", src: `{"policy": "standard", "gateway": {"hold_headers": true, "export_headers": {"method": "x:y"}}}`,
			paths: []string{"gateway.export_headers.method"}},
		{name: "export-header-empty", src: `{"policy": "standard", "gateway": {"hold_headers": true, "export_headers": {"method": ""}}}`,
			paths: []string{"gateway.export_headers.method"}},
		{name: "export-header-type", src: `{"policy": "standard", "gateway": {"hold_headers": true, "export_headers": {"method": 5}}}`,
			paths: []string{"gateway.export_headers.method"}},
		{name: "export-header-duplicate", src: `{"policy": "standard", "gateway": {"hold_headers": true, "export_headers": {"principal": "x-a", "rule": "x-a"}}}`,
			paths: []string{"gateway.export_headers.rule"}, contains: []string{`"x-a"`}},
	}
	for _, c := range cases {
		schemaAgrees(t, t.Name()+"/"+c.name, c.src)
		for _, form := range []struct{ name, src string }{{"json", c.src}, {"yaml", cfYAMLFlow(c.src)}} {
			t.Run(c.name+"/"+form.name, func(t *testing.T) {
				errs := evErrors(t, form.src)
				if got := cfPaths(errs); !slices.Equal(got, c.paths) {
					t.Errorf("%s\npaths = %q\nwant    %q\n%v", c.src, got, c.paths, errs)
				}
				for _, s := range c.contains {
					if !strings.Contains(errs.Error(), s) {
						t.Errorf("%s: errors do not contain %q:\n%v", c.src, s, errs)
					}
				}
				if c.full != "" && errs.Error() != c.full {
					t.Errorf("Error() = %q\nwant      %q", errs.Error(), c.full)
				}
			})
		}
	}
}

// TestEnvelopeHintsReferences: transform_hints may name any type, or an id
// of the policy's transforms (its own, inherited, or a rule's).
func TestEnvelopeHintsReferences(t *testing.T) {
	evParse(t, `{"policy": "strict", "server": {"primitives": [{"transform_hints": {
		"secrets": {"placeholder": "[s]", "required": true}, "pii": {"detectors": ["email"]}, "secrets_in": {"placeholder": "?"},
		"project": {"include": ["a.b"]}, "pseudonymize": {"min_sensitivity": "restricted"}, "skip": ["pii", "redact", "whatever"]}}]}}`)
	evParse(t, `{"policy": {"rules": [{"transforms": [{"type": "mask", "id": "cards"}]}]},
		"server": {"primitives": [{"transform_hints": {"cards": {"keep_last": 2}}}]}}`)
	evParse(t, `{"policy": {"detectors": [{"name": "emp", "pattern": "E\\d+"}]},
		"server": {"primitives": [{"transform_hints": {"redact": {"detectors": ["emp", "@pii"]}}}]}}`)
}

func TestServerMetadata(t *testing.T) {
	env := evParse(t, `
policy: standard
server:
  primitives:
    - {category: general, sensitivity: internal, tags: [base]}
    - match: {names: ["db_*"]}
      sensitivity: restricted
      capabilities: [write_state]
    - match: {names: ["db_read*"]}
      capabilities: [read_state]
      tags: []
    - match: {kinds: [resource], names: ["file:///*"]}
      category: files
      transform_hints: {redact: {placeholder: "[x]"}, skip: [pii]}
    - match: {kinds: [resource_template]}
      sensitivity: public
    - match: {kinds: [prompt, tool], names: [db_write]}
      category: ""
`)
	s := &env.Server
	type want struct {
		cat   string
		tags  []string
		sens  Sensitivity
		caps  CapabilitySet
		hints bool
	}
	cases := []struct {
		kind Kind
		name string
		want want
	}{
		{KindTool, "other", want{"general", []string{"base"}, Internal, 0, false}},
		{KindTool, "db_write", want{"", []string{"base"}, Restricted, cfCaps(WriteState), false}},
		{KindTool, "db_read_x", want{"general", []string{}, Restricted, cfCaps(ReadState), false}},
		{KindPrompt, "db_write", want{"", []string{"base"}, Restricted, cfCaps(WriteState), false}},
		{KindPrompt, "db_x", want{"general", []string{"base"}, Restricted, cfCaps(WriteState), false}},
		{KindResource, "file:///a", want{"files", []string{"base"}, Internal, 0, true}},
		// resource covers resource_template; resource_template does not cover resource.
		{KindResourceTemplate, "file:///{path}", want{"files", []string{"base"}, Public, 0, true}},
		{KindResourceTemplate, "cloudg://x/{id}", want{"general", []string{"base"}, Public, 0, false}},
		{KindResource, "cloudg://x/1", want{"general", []string{"base"}, Internal, 0, false}},
	}
	for _, c := range cases {
		m := s.Metadata(c.kind, c.name, Metadata{})
		got := want{m.Category, m.Tags, m.Sensitivity, m.Capabilities, m.Hints != nil}
		if got.cat != c.want.cat || !slices.Equal(got.tags, c.want.tags) || got.sens != c.want.sens || got.caps != c.want.caps || got.hints != c.want.hints {
			t.Errorf("Metadata(%v, %q) = %+v, want %+v", c.kind, c.name, got, c.want)
		}
	}
	if h := s.Metadata(KindResource, "file:///a", Metadata{}).Hints; h == nil || h.Get("redact").Get("placeholder").Text != "[x]" {
		t.Errorf("hints = %v", h.JSON(""))
	}

	// Fields no entry sets keep the base (learned) value.
	env = evParse(t, "policy: standard\nserver:\n  primitives:\n    - {match: {names: [x]}, sensitivity: restricted}\n")
	hints := Object(Member{"skip", Strings([]string{"pii"})})
	base := Metadata{Category: "learned", Tags: []string{"l"}, Sensitivity: Public, Capabilities: cfCaps(Exec), Hints: hints}
	m := env.Server.Metadata(KindTool, "x", base)
	if m.Category != "learned" || !slices.Equal(m.Tags, []string{"l"}) || m.Sensitivity != Restricted || m.Capabilities != cfCaps(Exec) || m.Hints != hints {
		t.Errorf("Metadata over base = %+v", m)
	}
	if m := env.Server.Metadata(KindTool, "y", base); !reflect.DeepEqual(m, base) {
		t.Errorf("an unmatched primitive keeps the base: %+v", m)
	}
	// Explicit empty values replace too.
	env = evParse(t, `{"policy": "standard", "server": {"primitives": [{"category": "", "tags": [], "capabilities": []}]}}`)
	m = env.Server.Metadata(KindTool, "x", base)
	if m.Category != "" || len(m.Tags) != 0 || m.Capabilities != 0 || m.Sensitivity != Public {
		t.Errorf("empty values should replace: %+v", m)
	}
}

func TestServerKnown(t *testing.T) {
	env := evParse(t, `
policy: standard
server:
  primitives:
    - match: {names: ["db_*"]}
    - match: {kinds: [resource], names: ["file:///*"]}
    - match: {kinds: [prompt], names: [greet]}
`)
	s := &env.Server
	for _, c := range []struct {
		kind Kind
		name string
		want bool
	}{
		{KindTool, "db_write", true},
		{KindPrompt, "db_x", true},
		{KindTool, "other", false},
		{KindResource, "file:///a", true},
		{KindResourceTemplate, "file:///{path}", true},
		{KindTool, "file:///a", false},
		{KindPrompt, "greet", true},
		{KindTool, "greet", false},
	} {
		if got := s.Known(c.kind, c.name); got != c.want {
			t.Errorf("Known(%v, %q) = %v, want %v", c.kind, c.name, got, c.want)
		}
	}
	if env := evParse(t, `{"policy": "standard"}`); env.Server.Known(KindTool, "x") {
		t.Error("nothing is known without server.primitives")
	}
}
