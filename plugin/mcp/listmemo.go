package mcp

import (
	"bytes"
	"encoding/binary"

	judging "github.com/cloudg/mcp-privacy/internal/catalog"
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/streq"
	"github.com/cloudg/mcp-privacy/policy"
)

// Clients list a server's tools again and again (each session, each
// turn of some agents), and a 500-tool list costs hundreds of µs to
// parse, filter and write in the VM: listMemo keeps the last few list
// responses this VM filtered, and answers a response that is byte for
// byte one of them but for its id, to a list request of the same class
// of caller, with what was made of it then, before parsing it.
//
// What a filtered list is made of: the response's bytes; what the policy
// reads of the caller (policy.AppendCallerClass: the decisions and the
// pipelines follow from it); the method, its revision and whether it is
// the first page (virtual tools, cache scope); the templates the catalog
// knows (a resource is judged by every template matching it). The
// configuration is the VM's: a new one gets a new memo. The key holds
// all of them, and the bytes around the id are compared exactly.
//
// A list is memoised only when a repeat can skip its side effects
// unseen: the response is one JSON-RPC message answering a list request
// this stream forwarded; the output pipeline found, changed and counted
// nothing (no metrics, no vault entries, no audit); no value was
// restored in the request; every item was kept in the catalog; the
// message has no members beyond jsonrpc, id and result. An entry is used
// for learnedResync at most: a list seen again after that is filtered in
// full, so what it teaches reaches shared data as the catalog's rule says
// (catalog.learn).
type listMemo struct {
	entries [listMemoEntries]listMemoEntry
	next    int // the entry the next store replaces
	key     []byte
	hits    int // lists answered from the memo (for tests)
}

// listMemoEntry is one response: its bytes before and after its id, and
// what the plugin made of it, out, with the id at outID (the plugin does
// not change it).
type listMemoEntry struct {
	key            []byte
	inHead, inTail []byte
	out            []byte
	outID, idLen   int
	at             int64 // when stored (Unix ns)
}

// Bounds: entries, and the largest response memoised (its bytes and its
// output are both kept: at most about 4 × 2 × 256 KiB per VM).
const (
	listMemoEntries  = 4
	listMemoMaxBytes = 256 << 10
)

// listToKeep is a list response processMessage found worth keeping, to
// be kept once its message is written (keepList).
type listToKeep struct {
	set bool
	id  int32 // the message's id member
}

// memoisable reports whether a list request's response may be memoised
// (its side effects skipped on a repeat).
func memoisable(req *forwarded) bool {
	return req.rec == nil && len(req.restored) == 0 && !req.standIn
}

// listKey writes into m.key the key of a list requested by req for the
// caller (refreshing the templates other VMs learned, which count in it).
func (s *exchange) listKey(m *listMemo, req *forwarded, kind policy.Kind) {
	if kind == policy.KindResource || kind == policy.KindResourceTemplate {
		s.cfg.catalog.refreshTemplates()
	}
	k := s.cfg.Env.Policy.AppendCallerClass(m.key[:0], &s.id.Principal)
	k = append(k, byte(req.rev))
	if req.firstPage {
		k = append(k, 1)
	} else {
		k = append(k, 0)
	}
	k = binary.AppendUvarint(k, uint64(s.cfg.catalog.model.Templates.Len()))
	m.key = append(k, req.method...)
}

// listFromMemo answers a response from the memo: what was made of the
// same bytes around the id for a list request of this stream with that
// id and the same key, which it takes as processMessage would.
func (s *exchange) listFromMemo(raw []byte) ([]byte, bool) {
	m := &s.cfg.caches.lists
	var now int64
	var keyed []byte // the id whose request m.key was made for
	for i := range m.entries {
		e := &m.entries[i]
		// The bytes before the id first (a few), the rest last, once the
		// request and the key match.
		if e.out == nil || len(raw) <= len(e.inHead)+len(e.inTail) || !streq.Bytes(raw[:len(e.inHead)], e.inHead) {
			continue
		}
		id := raw[len(e.inHead) : len(raw)-len(e.inTail)]
		if !plainID(id) {
			continue
		}
		// The request table holds only ids that are JSON scalars as
		// idKey writes them: a match makes the bytes between a whole id.
		req, ok := s.requests.peek(string(id))
		if !ok || !memoisable(&req) {
			continue
		}
		lm, isList := listOf(req.rev, req.method)
		if !isList {
			continue
		}
		if now == 0 {
			now = s.cfg.now()
		}
		if now < e.at || now-e.at >= int64(learnedResync) {
			continue
		}
		// Entries whose heads match share the id, so its key (a host
		// call for a resource list's templates) is made once.
		if keyed == nil || !bytes.Equal(keyed, id) {
			s.listKey(m, &req, lm.kind)
			keyed = id
		}
		if !bytes.Equal(m.key, e.key) || !streq.Bytes(raw[len(raw)-len(e.inTail):], e.inTail) {
			continue
		}
		s.requests.take(string(id))
		m.hits++
		if len(id) == e.idLen {
			// The entry's own bytes with this id written in: the caller
			// hands them to the host (which copies them) before the VM
			// runs anything else, and no copy of a list's size is made.
			copy(e.out[e.outID:], id)
			return e.out, true
		}
		out := make([]byte, 0, len(e.out)-e.idLen+len(id))
		out = append(append(out, e.out[:e.outID]...), id...)
		return append(out, e.out[e.outID+e.idLen:]...), true
	}
	return nil, false
}

// entryOf is the index of the entry kept under key, or -1.
func (m *listMemo) entryOf(key []byte) int {
	for i := range m.entries {
		if m.entries[i].out != nil && bytes.Equal(m.entries[i].key, key) {
			return i
		}
	}
	return -1
}

// plainID reports whether b can be a JSON-RPC id as idKey writes it: an
// integer, or a string of printable ASCII without escapes.
func plainID(b []byte) bool {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		for _, c := range b[1 : len(b)-1] {
			if c < ' ' || c > '~' || c == '"' || c == '\\' {
				return false
			}
		}
		return true
	}
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 15 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// filterListMemo filters the list result of a response to a request this
// stream forwarded, transforms it and marks its cache scope
// (processMessage); when the response is worth keeping it is marked so
// (s.keep), to be kept once written (keepList).
func (s *exchange) filterListMemo(doc *jsondoc.Doc, n, result int32, lm listMethod, req *forwarded, id string) responseOutcome {
	m := &s.cfg.caches.lists
	memo := n == jsondoc.Root && memoisable(req) && !extraMembers(doc, n)
	if memo {
		s.listKey(m, req, lm.kind)
	}
	s.filterList(doc, result, lm, req.firstPage)
	o := s.transformResponse(doc, n, id, req)
	s.markCacheScope(doc, n, req.rev, req.method)
	if memo && quietRun(o) && s.cfg.catalog.learned.n < judging.MaxEntries && doc.Kind(doc.Get(n, "result")) == jsondoc.Object {
		s.keep = listToKeep{set: true, id: doc.Get(n, "id")}
	}
	return o
}

// quietRun reports whether a response's run found, changed and counted
// nothing.
func quietRun(o responseOutcome) bool {
	r := o.run
	return o.decision == outcomeAllowed && r != nil && !r.Blocked && len(r.Detections) == 0 &&
		r.Pseudonyms == 0 && r.Resolved == 0 && r.Unresolved == 0 && r.Refused == 0
}

// keepList keeps the response raw (parsed as doc, one message) and what
// it was made into, when processMessage marked it worth keeping. It
// returns the message's bytes when it wrote them (nil otherwise).
func (s *exchange) keepList(doc *jsondoc.Doc, raw []byte) []byte {
	k := s.keep
	s.keep = listToKeep{}
	if !k.set || len(raw) > listMemoMaxBytes {
		return nil
	}
	id := doc.Raw(k.id)
	start := doc.Offset(k.id)
	out, at := doc.BytesAt(k.id)
	// id is the source's bytes at start (doc.Raw), so only the output's
	// copy of it is checked.
	if at < 0 || len(out) > listMemoMaxBytes || !bytes.HasPrefix(out[at:], id) {
		return out
	}
	m := &s.cfg.caches.lists
	// One entry per key: a caller class's newer list replaces its older
	// one, so a list that differs from the last is compared with one
	// entry, not four near copies.
	e := &m.entries[m.next]
	if i := m.entryOf(m.key); i >= 0 {
		e = &m.entries[i]
	} else {
		m.next = (m.next + 1) % listMemoEntries
	}
	e.key = append(e.key[:0], m.key...)
	e.inHead = append(e.inHead[:0], raw[:start]...)
	e.inTail = append(e.inTail[:0], raw[start+len(id):]...)
	e.out = append(e.out[:0], out...)
	e.outID, e.idLen = at, len(id)
	e.at = s.cfg.now()
	return out
}
