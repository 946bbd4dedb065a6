package mcp

import (
	"encoding/base64"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/claims"
	"github.com/cloudg/mcp-privacy/internal/pbstruct"
	"github.com/cloudg/mcp-privacy/policy"
)

// Request is what identity needs from the host: request headers and Envoy
// properties.
type Request interface {
	Header(name string) (string, bool)
	// HeaderValues returns every value of a header, one per header line
	// (nil when absent; callers must not modify it): a repeated header is
	// how a request smuggles a second content-type past a check of the
	// first.
	HeaderValues(name string) []string
	// Headers returns every header pair, names in lower case as the host
	// gives them (the Mcp-Param-* headers are found by prefix).
	Headers() [][2]string
	// Property reads an Envoy attribute; path segments as in
	// proxy_get_property. Strings come back raw, messages serialized.
	Property(path ...string) ([]byte, bool)
}

// HeaderPairs are a request's or a response's headers as the host hands
// them over: one pair per header line, names in lower case, read with one
// host call (every host call costs a trip out of the VM and, for returned
// data, another into its allocator) and looked up here, in order. They
// are a Request's headers (Header, HeaderValues, Headers).
type HeaderPairs [][2]string

// Header is the first value of name.
func (h HeaderPairs) Header(name string) (string, bool) {
	for _, kv := range h {
		if kv[0] == name {
			return kv[1], true
		}
	}
	return "", false
}

// HeaderValues returns every pair of that name: the host hands a repeated
// header over as several pairs. A header present once (the usual case) is
// returned without an allocation, as a view of its pair.
func (h HeaderPairs) HeaderValues(name string) []string {
	var vs []string
	for i := range h {
		if h[i][0] != name {
			continue
		}
		if vs == nil {
			vs = h[i][1:2:2]
		} else {
			vs = append(vs, h[i][1])
		}
	}
	return vs
}

// Headers returns every pair as the host gave them.
func (h HeaderPairs) Headers() [][2]string { return h }

// Joined returns every value of name joined with ", ", as fetch's and
// httpx's Headers.get read a repeated header ("" when absent).
func (h HeaderPairs) Joined(name string) string {
	v := ""
	for _, kv := range h {
		if kv[0] != name {
			continue
		}
		if v == "" {
			v = kv[1]
			continue
		}
		v += ", " + kv[1]
	}
	return v
}

// identity is who makes a request (manual 3).
type identity struct {
	policy.Principal
	// Anonymous is true when no source gave a principal id.
	Anonymous bool
}

// resolveIdentity reads the principal and roles from the request: sources
// in order, the first non-empty value wins. JWT claims come from the
// jwt_authn metadata when configured and present, else from the forwarded
// payload header when configured; the plugin never decodes a JWT itself.
func resolveIdentity(cfg *policy.IdentityConfig, req Request) identity {
	jwt := &jwtReader{cfg: cfg, req: req}
	var id identity
	for _, s := range cfg.Principal {
		if v := sourceString(s, req, jwt); v != "" {
			id.ID = v
			break
		}
	}
	if id.ID == "" {
		id.ID, id.Anonymous = cfg.AnonymousID, true
	}
	for _, s := range cfg.Roles {
		if roles := sourceList(s, req, jwt); len(roles) > 0 {
			id.Roles = roles
			break
		}
	}
	jwt.payload.Release()
	return id
}

// jwtReader reads the JWT payload once, when a claim is first needed.
type jwtReader struct {
	cfg     *policy.IdentityConfig
	req     Request
	read    bool
	payload claims.Payload
}

func (j *jwtReader) get() *claims.Payload {
	if !j.read {
		j.read = true
		j.payload.Read(jwtPayload(j.cfg, j.req))
	}
	return &j.payload
}

func sourceString(s policy.IdentitySource, req Request, jwt *jwtReader) string {
	switch {
	case s.Header != "":
		v, _ := req.Header(s.Header)
		return strings.TrimSpace(v)
	case s.JWTClaim != "":
		return jwt.get().Principal(s.Claim)
	case len(s.Property) > 0:
		v, _ := req.Property(s.Property...)
		return strings.TrimSpace(string(v))
	}
	return ""
}

func sourceList(s policy.IdentitySource, req Request, jwt *jwtReader) []string {
	if s.JWTClaim != "" {
		return jwt.get().Roles(s.Claim)
	}
	return claims.SplitRoles(sourceString(s, req, jwt))
}

// jwtPayload returns the verified JWT payload as JSON: from Envoy's
// jwt_authn dynamic metadata (a serialized google.protobuf.Struct), else
// from the payload header jwt_authn forwards (base64url JSON).
func jwtPayload(cfg *policy.IdentityConfig, req Request) []byte {
	if len(cfg.JWTMetadata) > 0 {
		path := append([]string{"metadata", "filter_metadata"}, cfg.JWTMetadata...)
		if raw, ok := req.Property(path...); ok && len(raw) > 0 {
			if js, ok := pbstruct.ToJSON(raw); ok {
				return js
			}
		}
	}
	if cfg.JWTHeader != "" {
		if h, ok := req.Header(cfg.JWTHeader); ok {
			h = strings.TrimRight(strings.TrimSpace(h), "=")
			if js, err := base64.RawURLEncoding.DecodeString(h); err == nil {
				return js
			}
		}
	}
	return nil
}
