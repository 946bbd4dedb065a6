package policy

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/claims"
)

// Envelope is the plugin configuration of manual 2: the policy and everything
// a deployment needs around it.
type Envelope struct {
	Policy   *Policy
	Server   ServerConfig
	Identity IdentityConfig
	Gateway  GatewayConfig
}

// ServerConfig describes the upstream MCP server (manual 2, 4).
type ServerConfig struct {
	// ID namespaces all shared state of this server.
	ID             string
	Primitives     []PrimitiveConfig
	LearnFromLists bool
	RequireKnown   bool
	// RouterBackends names the backends of an aggregating router between
	// the filter and the servers (Envoy's mcp_router): names are then
	// backend__name and backend+scheme://... (manual 4). Only policy check
	// reads it (RouterWarnings).
	RouterBackends []string
}

// PrimitiveConfig is one server.primitives entry: metadata for the
// primitives it matches. Nil/unset fields leave earlier values alone.
type PrimitiveConfig struct {
	Kinds           KindSet // 0 = any
	Names           *GlobList
	Category        *string
	Tags            []string
	TagsSet         bool
	Sensitivity     Sensitivity
	Capabilities    CapabilitySet
	CapabilitiesSet bool
	Hints           *Value
}

// IdentitySource is one place a principal id or roles come from (manual 3).
// Exactly one field is set.
type IdentitySource struct {
	Header   string   `json:"header,omitempty"`
	JWTClaim string   `json:"jwt_claim,omitempty"`
	Property []string `json:"property,omitempty"`
	// Claim is JWTClaim compiled.
	Claim claims.Path `json:"-"`
}

// ClaimSource is the source of a claim path known to be valid (it panics
// on another).
func ClaimSource(path string) IdentitySource {
	c, err := claims.Compile(path)
	if err != nil {
		panic(err)
	}
	return IdentitySource{JWTClaim: path, Claim: c}
}

// IdentityConfig is manual 3.
type IdentityConfig struct {
	Principal   []IdentitySource
	Roles       []IdentitySource
	JWTMetadata []string
	JWTHeader   string
	AnonymousID string
	Require     bool
}

// GatewayConfig is manual 2's gateway block.
type GatewayConfig struct {
	Paths            *GlobList
	VirtualTools     bool
	MaxRequestBytes  int
	MaxResponseBytes int
	MaxEventBytes    int
	// PassOnParseError and PassOnOversize are the "pass" settings of
	// on_parse_error and on_oversize; the default rejects.
	PassOnParseError bool
	PassOnOversize   bool
	// ExportHeaders maps an exported field (principal, roles, method,
	// kind, primitive, decision, rule) to a request header name.
	ExportHeaders []HeaderExport
	// HoldHeaders keeps request headers from going upstream until the
	// body was judged. It needs Envoy's allow_on_headers_stop_iteration
	// (Envoy >= 1.35); without it Envoy never delivers the body to a
	// filter that paused on headers, and every POST would hang.
	HoldHeaders bool
	// BodyBuffering says who holds a body while it is judged (manual 2):
	// the host (a PAUSE keeps it, Envoy), the plugin (every chunk copied
	// and emptied, the processed body written at its end), or auto: the
	// plugin where the host is detected not to hold bodies (ngx_wasm_module).
	BodyBuffering BodyBuffering
}

// BodyBuffering is gateway.body_buffering.
type BodyBuffering uint8

// The gateway.body_buffering values, in BodyBufferingNames' order.
const (
	BufferAuto BodyBuffering = iota
	BufferHost
	BufferPlugin
)

// BodyBufferingNames are gateway.body_buffering's values.
var BodyBufferingNames = []string{"auto", "host", "plugin"}

// HeaderExport is one export_headers entry.
type HeaderExport struct {
	Field  string
	Header string
}

// ExportFields are the decision fields export_headers may name.
var ExportFields = []string{"principal", "roles", "method", "kind", "primitive", "decision", "rule"}

// callExportFields are known only once the body was judged: exporting them
// needs hold_headers.
var callExportFields = []string{"method", "kind", "primitive", "decision", "rule"}

// IsEnvelope reports whether a document is a plugin envelope rather than a
// bare PolicyConfig: it has a top-level key only envelopes have.
func IsEnvelope(doc *Value) bool {
	if doc == nil || doc.Kind != ObjectValue {
		return false
	}
	for _, k := range envelopeKeys {
		if doc.Get(k) != nil {
			return true
		}
	}
	return false
}

// ParseEnvelope reads a plugin envelope (JSON or YAML) and validates all of
// it, returning every error. A document that is a bare policy is accepted
// as {policy: <it>}, so operators can hand either to the CLI.
func ParseEnvelope(data []byte, opt Options) (*Envelope, Errors) {
	doc, err := ParseDocument(data)
	if err != nil {
		return nil, Errors{{Path: opt.File, Msg: err.Error()}}
	}
	return DecodeEnvelope(doc, opt)
}

// DecodeEnvelope validates an envelope document.
func DecodeEnvelope(doc *Value, opt Options) (*Envelope, Errors) {
	if doc.Kind == ObjectValue && !IsEnvelope(doc) || doc.Kind == StringValue {
		doc = Object(Member{"policy", doc})
	}
	d := decoder{}
	if !d.object(doc, "", envelopeKeys) {
		return nil, d.errs
	}
	env := &Envelope{}
	var errs Errors
	if pv := doc.Get("policy"); pv == nil {
		errs = append(errs, FieldError{Msg: `missing required key "policy" (want a policy object or profile name)`})
	} else {
		var perrs Errors
		env.Policy, perrs = DecodePolicy(pv, "policy", opt)
		errs = append(errs, perrs...)
	}
	if env.Policy != nil {
		d.transformIDs = map[string]string{}
		for _, e := range env.Policy.Transforms {
			d.transformIDs[e.ID] = e.Type
		}
		for _, e := range env.Policy.InputTransforms {
			d.transformIDs[e.ID] = e.Type
		}
		for _, r := range env.Policy.Rules {
			for _, e := range append(append([]TransformEntry{}, r.Transforms...), r.InputTransforms...) {
				d.transformIDs[e.ID] = e.Type
			}
		}
		d.customDetectors = map[string]bool{}
		for _, c := range env.Policy.Detectors {
			d.customDetectors[c.Name] = true
		}
	} else {
		d.partial = true
	}
	env.Server = d.server(doc.Get("server"), "server")
	env.Identity = d.identity(doc.Get("identity"), "identity")
	env.Gateway = d.gateway(doc.Get("gateway"), "gateway")
	errs = append(errs, d.errs...)
	if len(errs) > 0 {
		return nil, errs.inDocumentOrder(doc, "")
	}
	return env, nil
}

func (d *decoder) server(v *Value, path string) ServerConfig {
	s := ServerConfig{ID: "default", LearnFromLists: true}
	if v == nil || !d.object(v, path, serverKeys) {
		return s
	}
	s.ID = d.str(v, "id", path, s.ID)
	if s.ID == "" {
		d.fail(joinPath(path, "id"), "empty id (want a name for this server's shared state)")
	}
	s.LearnFromLists = d.boolean(v, "learn_from_lists", path, true)
	s.RequireKnown = d.boolean(v, "require_known", path, false)
	for i, b := range d.strings(v, "router_backends", path) {
		switch bp := fmt.Sprintf("%s.router_backends[%d]", path, i); {
		case b == "":
			d.fail(bp, "empty backend name")
		case strings.Contains(b, "__") || strings.ContainsAny(b, "+:/"):
			d.fail(bp, "backend name %q: the router splits names at the first __ and URIs at the first +, so a backend name holds neither (nor : or /)", b)
		case slices.Contains(s.RouterBackends, b):
			d.fail(bp, "backend %q named twice", b)
		default:
			s.RouterBackends = append(s.RouterBackends, b)
		}
	}
	if pv := v.Get("primitives"); pv != nil {
		d.list(pv, joinPath(path, "primitives"), "list of primitive metadata entries", func(e *Value, ep string) {
			if c, ok := d.primitiveConfig(e, ep); ok {
				s.Primitives = append(s.Primitives, c)
			}
		})
	}
	return s
}

func (d *decoder) primitiveConfig(v *Value, path string) (PrimitiveConfig, bool) {
	var c PrimitiveConfig
	if !d.object(v, path, primitiveKeys) {
		return c, false
	}
	if m := v.Get("match"); m != nil {
		mp := joinPath(path, "match")
		if d.object(m, mp, primMatchKeys) {
			c.Kinds = d.kinds(m, "kinds", mp, false)
			c.Names = d.globs(m, "names", mp, false, nil)
			if c.Names.Len() == 0 {
				c.Names = nil
			}
		}
	}
	if cv := v.Get("category"); cv != nil {
		cat := d.str(v, "category", path, "")
		c.Category = &cat
	}
	if v.Get("tags") != nil {
		c.Tags, c.TagsSet = d.strings(v, "tags", path), true
	}
	if s := v.Get("sensitivity"); s != nil {
		c.Sensitivity = d.sensitivity(s, joinPath(path, "sensitivity"))
	}
	if v.Get("capabilities") != nil {
		c.Capabilities, c.CapabilitiesSet = d.capabilities(v, "capabilities", path), true
	}
	if h := v.Get("transform_hints"); h != nil {
		d.hints(h, joinPath(path, "transform_hints"))
		c.Hints = h
	}
	return c, true
}

// hints checks a transform_hints map (manual 10.4).
func (d *decoder) hints(v *Value, path string) {
	if v.Kind != ObjectValue {
		d.wrongType(path, v, "object of transform type or id to options, plus skip")
		return
	}
	for _, m := range v.Object {
		p := joinPath(path, m.Key)
		if m.Key == "skip" {
			d.list(m.Value, p, "list of transform ids or types", func(e *Value, ep string) {
				if e.Kind != StringValue {
					d.wrongType(ep, e, "transform id or type")
				}
			})
			continue
		}
		d.optionsFor(m.Key, m.Value, p)
	}
}

// Metadata returns the metadata server.primitives gives a primitive, over
// base (defaults or what was learned): entries apply in order, each field an
// entry sets replacing the value before it (manual 4).
func (s *ServerConfig) Metadata(k Kind, name string, base Metadata) Metadata {
	m := base
	for i := range s.Primitives {
		c := &s.Primitives[i]
		if c.Kinds != 0 && !c.Kinds.covers(k) {
			continue
		}
		if c.Names != nil && !c.Names.Match(name) {
			continue
		}
		if c.Category != nil {
			m.Category = *c.Category
		}
		if c.TagsSet {
			m.Tags = c.Tags
		}
		if c.Sensitivity != SensitivityUnset {
			m.Sensitivity = c.Sensitivity
		}
		if c.CapabilitiesSet {
			m.Capabilities = c.Capabilities
		}
		if c.Hints != nil {
			m.Hints = c.Hints
		}
	}
	return m
}

// Known reports whether any server.primitives entry gives this primitive
// metadata (manual 4: require_known denies primitives with none from any
// source).
func (s *ServerConfig) Known(k Kind, name string) bool {
	for i := range s.Primitives {
		c := &s.Primitives[i]
		if (c.Kinds == 0 || c.Kinds.covers(k)) && (c.Names == nil || c.Names.Match(name)) {
			return true
		}
	}
	return false
}

var headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9a-z-]+$")

func (d *decoder) identity(v *Value, path string) IdentityConfig {
	c := IdentityConfig{
		Principal:   []IdentitySource{ClaimSource("sub"), {Header: "x-mcp-principal"}},
		Roles:       []IdentitySource{ClaimSource("roles"), {Header: "x-mcp-roles"}},
		JWTMetadata: []string{"envoy.filters.http.jwt_authn", "jwt_payload"},
		AnonymousID: "anonymous",
	}
	if v == nil || !d.object(v, path, identityKeys) {
		return c
	}
	if pv := v.Get("principal"); pv != nil {
		c.Principal = d.sources(pv, joinPath(path, "principal"))
	}
	if rv := v.Get("roles"); rv != nil {
		c.Roles = d.sources(rv, joinPath(path, "roles"))
	}
	if j := v.Get("jwt"); j != nil {
		jp := joinPath(path, "jwt")
		if d.object(j, jp, jwtKeys) {
			if j.Get("metadata") != nil {
				c.JWTMetadata = d.strings(j, "metadata", jp)
				if len(c.JWTMetadata) == 0 {
					c.JWTMetadata = nil
				}
			}
			c.JWTHeader = d.header(j, "payload_header", jp)
		}
	}
	c.AnonymousID = d.str(v, "anonymous_id", path, c.AnonymousID)
	if c.AnonymousID == "" {
		d.fail(joinPath(path, "anonymous_id"), "empty id (want the principal id of unidentified callers)")
	}
	c.Require = d.boolean(v, "require", path, false)
	return c
}

func (d *decoder) header(o *Value, key, path string) string {
	h := d.str(o, key, path, "")
	if isStr(o, key) && !headerName.MatchString(h) {
		d.fail(joinPath(path, key), "want a lower-case HTTP header name, got %q", h)
	}
	return h
}

func (d *decoder) sources(v *Value, path string) []IdentitySource {
	out := []IdentitySource{}
	d.list(v, path, "list of sources ({header}, {jwt_claim} or {property})", func(e *Value, ep string) {
		if !d.object(e, ep, sourceKeys) {
			return
		}
		if len(e.Object) != 1 {
			d.fail(ep, "want exactly one of header, jwt_claim, property; got %d keys", len(e.Object))
			return
		}
		var s IdentitySource
		switch e.Object[0].Key {
		case "header":
			s.Header = d.header(e, "header", ep)
		case "jwt_claim":
			if s.JWTClaim = d.str(e, "jwt_claim", ep, ""); s.JWTClaim != "" || isStr(e, "jwt_claim") {
				var err error
				if s.Claim, err = claims.Compile(s.JWTClaim); err != nil {
					d.fail(joinPath(ep, "jwt_claim"), "%s", err)
				}
			}
		case "property":
			if s.Property = d.strings(e, "property", ep); len(s.Property) == 0 && e.Get("property").Kind == ArrayValue {
				d.fail(joinPath(ep, "property"), "want a non-empty property path, e.g. [connection, uri_san_peer_certificate]")
			}
		}
		out = append(out, s)
	})
	return out
}

func (d *decoder) gateway(v *Value, path string) GatewayConfig {
	g := GatewayConfig{
		Paths:            MustCompileGlobs("/mcp", "/mcp/*"),
		VirtualTools:     true,
		MaxRequestBytes:  1 << 20,
		MaxResponseBytes: 16 << 20,
		MaxEventBytes:    4 << 20,
	}
	if v == nil || !d.object(v, path, gatewayKeys) {
		return g
	}
	g.Paths = d.globs(v, "paths", path, false, g.Paths)
	g.VirtualTools = d.boolean(v, "virtual_tools", path, true)
	g.MaxRequestBytes = d.integer(v, "max_request_bytes", path, g.MaxRequestBytes, 1)
	g.MaxResponseBytes = d.integer(v, "max_response_bytes", path, g.MaxResponseBytes, 1)
	g.MaxEventBytes = d.integer(v, "max_event_bytes", path, g.MaxEventBytes, 1)
	g.PassOnParseError = d.enum(v, "on_parse_error", path, onFailureNames, "reject, pass", 0) == 1
	g.PassOnOversize = d.enum(v, "on_oversize", path, onFailureNames, "reject, pass", 0) == 1
	g.HoldHeaders = d.boolean(v, "hold_headers", path, false)
	g.BodyBuffering = BodyBuffering(d.enum(v, "body_buffering", path, BodyBufferingNames, "auto, host, plugin", 0))
	if g.BodyBuffering == BufferPlugin && g.HoldHeaders {
		// Under plugin buffering every body chunk is continued (emptied),
		// and on Envoy a body CONTINUE releases headers held with
		// StopIteration: the headers would reach the server before the
		// verdict. Refused rather than half honoured.
		d.fail(joinPath(path, "body_buffering"), "plugin: the headers cannot be held where the plugin holds the body (a host that does not hold bodies does not hold headers for a body either); use hold_headers: false, or body_buffering: host on an Envoy whose buffer limit is above the body limits")
	}
	if eh := v.Get("export_headers"); eh != nil {
		ep := joinPath(path, "export_headers")
		if d.object(eh, ep, ExportFields) {
			seen := map[string]string{}
			for _, m := range eh.Object {
				h := strings.ToLower(d.header(eh, m.Key, ep))
				if prev, ok := seen[h]; ok && h != "" {
					d.fail(joinPath(ep, m.Key), "header %q is already exported for %s", h, prev)
				}
				seen[h] = m.Key
				g.ExportHeaders = append(g.ExportHeaders, HeaderExport{Field: m.Key, Header: h})
				if contains(callExportFields, m.Key) && !g.HoldHeaders {
					d.fail(joinPath(ep, m.Key), "%s is known only after the body is judged: set gateway.hold_headers: true (and Envoy's allow_on_headers_stop_iteration) to export it", m.Key)
				}
			}
		}
	}
	return g
}
