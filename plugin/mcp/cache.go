package mcp

import (
	"strings"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/policy"
)

// Under 2026-07-28 list and read results carry caching hints: ttlMs (how
// long the result is fresh) and cacheScope ("public": any shared cache
// may serve it to anyone). A result the plugin filtered or transformed is
// one caller's view, and so is one the policy would judge differently for
// another caller: served from a shared cache to someone else, it would
// show them what their policy hides, or their pseudonyms someone else's.
// Such a result is marked "private" (ttlMs is kept: freshness is the
// server's to say), and the HTTP response gets Cache-Control: private.

// markCacheScope sets cacheScope "private" on the result of response n,
// which answers req, when the result is cacheable and complete and the
// plugin changed the message (changed) or the policy's decisions depend
// on who calls.
func (s *Stream) markCacheScope(doc *jsondoc.Doc, n int32, req *forwarded, changed bool) {
	if req.rev != mcpvocab.Rev2026 || !methodOf(req.rev, req.method).Cacheable {
		return
	}
	result := doc.Get(n, "result")
	if doc.Kind(result) != jsondoc.Object || doc.StrEquals(doc.Get(result, "resultType"), "input_required") {
		return // interim MRTR results carry no caching hints
	}
	if !changed && !s.cfg.variesByCaller {
		return
	}
	switch scope := doc.Get(result, "cacheScope"); {
	case scope == jsondoc.None:
		doc.Append(result, "cacheScope", []byte(`"private"`))
	case !doc.StrEquals(scope, "private"):
		doc.SetString(scope, "private")
	}
}

// variesByCaller reports whether some rule of p applies to some callers
// only (by role or principal): then the same result can be judged
// differently for two callers.
func variesByCaller(p *policy.Policy) bool {
	for _, r := range p.Rules {
		if len(r.Match.Roles) > 0 || r.Match.AnyRole || r.Match.Principals != nil {
			return true
		}
	}
	return false
}

// CacheControl is the Cache-Control header the response to this stream's
// request gets, given the server's (existing, "" if none): when the
// request is a 2026-07-28 request of a cacheable method, "public" gives
// way to "private", and "private" is added unless the server already
// forbids storing it (no-store) or said private. The headers leave before
// the body is read, so this is decided for every such response, changed
// by the plugin or not, event streams included. ok is false when the
// header stays as it is.
func (s *Stream) CacheControl(existing string) (string, bool) {
	if !s.inspect || s.replied || s.rev != mcpvocab.Rev2026 || !s.forwardsCacheable() {
		return "", false
	}
	var keep []string
	for _, d := range strings.Split(existing, ",") {
		d = strings.TrimSpace(d)
		name, _, _ := strings.Cut(d, "=")
		switch strings.ToLower(name) {
		case "":
			continue
		case "no-store", "private":
			return "", false
		case "public", "s-maxage":
			continue // a shared cache's directives
		}
		keep = append(keep, d)
	}
	return strings.Join(append(keep, "private"), ", "), true
}

// forwardsCacheable reports whether a request this stream forwarded is of
// a cacheable method.
func (s *Stream) forwardsCacheable() bool {
	found := false
	check := func(f forwarded) {
		found = found || methodOf(f.rev, f.method).Cacheable
	}
	if s.requests.has {
		check(s.requests.one)
	}
	for _, f := range s.requests.many {
		check(f)
	}
	return found
}
