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
//
// Servers send the hints at 2025 revisions too (the go-sdk 1.8 server
// writes ttlMs and cacheScope "public" on every list and read result,
// whatever the revision), and on results of other methods: a result that
// carries either hint, at any revision and of any method, leaves with
// cacheScope "private" (an absent cacheScope means "public").

// markCacheScope marks the result of response n cacheScope "private":
// always when it carries ttlMs or cacheScope, and when it is a complete
// 2026-07-28 result of a cacheable method (rev and method are its
// request's; method "" for a response no request of the stream explains).
func (s *exchange) markCacheScope(doc *jsondoc.Doc, n int32, rev mcpvocab.Revision, method string) {
	result := doc.Get(n, "result")
	if doc.Kind(result) != jsondoc.Object {
		return
	}
	if scope := doc.Get(result, "cacheScope"); scope != jsondoc.None {
		if !doc.StrEquals(scope, "private") {
			doc.SetString(scope, "private")
		}
		return
	}
	if doc.Get(result, "ttlMs") == jsondoc.None {
		if rev != mcpvocab.Rev2026 || method == "" || !methodOf(rev, method).Cacheable ||
			doc.StrEquals(doc.Get(result, "resultType"), "input_required") {
			return // interim MRTR results carry no caching hints
		}
	}
	doc.Append(result, "cacheScope", []byte(`"private"`))
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
