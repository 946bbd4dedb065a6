package mcp

import (
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
)

// Under 2026-07-28 list and read results carry caching hints: ttlMs (how
// long the result is fresh) and cacheScope ("public": any shared cache
// may serve it to anyone). A result that passed the filter is one
// caller's view: filtered, transformed, or judged as the policy judges
// that caller; served from a shared cache to someone else, it would show
// them what their policy hides, or their pseudonyms someone else's. Every
// such result is marked "private" (ttlMs is kept: freshness is the
// server's to say), and the HTTP response gets Cache-Control: private
// (Stream.CacheControl, stream.go).
// Marking only the results the filter changed would tell a caller which
// list page lost a hidden item.

// markCacheScope sets cacheScope "private" on the result of response n,
// which answers req, when the result is cacheable and complete.
func (s *exchange) markCacheScope(doc *jsondoc.Doc, n int32, req *forwarded) {
	if req.rev != mcpvocab.Rev2026 || !methodOf(req.rev, req.method).Cacheable {
		return
	}
	result := doc.Get(n, "result")
	if doc.Kind(result) != jsondoc.Object || doc.StrEquals(doc.Get(result, "resultType"), "input_required") {
		return // interim MRTR results carry no caching hints
	}

	switch scope := doc.Get(result, "cacheScope"); {
	case scope == jsondoc.None:
		doc.Append(result, "cacheScope", []byte(`"private"`))
	case !doc.StrEquals(scope, "private"):
		doc.SetString(scope, "private")
	}
}

// forwardsCacheable reports whether a request this stream forwarded is of
// a cacheable method.
func (s *exchange) forwardsCacheable() bool {
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
