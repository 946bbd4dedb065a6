package mcp

import (
	"encoding/binary"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	judging "github.com/cloudg/mcp-privacy/internal/catalog"
	"github.com/cloudg/mcp-privacy/internal/hmacsha256"
	"github.com/cloudg/mcp-privacy/internal/shareddata"
	"github.com/cloudg/mcp-privacy/policy"
)

// Shared state lives in fixed-size tables, because shared data has no
// delete (manual 16): a key per primitive would grow without bound. Each slot
// holds the identity it belongs to; a collision overwrites, and losing a
// slot only means a primitive is judged with its configured metadata until
// the next list result.
const learnedSlots = 4096

func (c *catalog) sharedKey(parts ...string) string {
	return "mcp-privacy|" + c.model.Server.ID + "|" + strings.Join(parts, "|")
}

func slotOf(k policy.Kind, name string) string {
	h := fnv.New32a()
	h.Write([]byte{byte(k)})
	h.Write([]byte(name))
	return strconv.Itoa(int(h.Sum32() % learnedSlots))
}

// shareLearned writes learned metadata to its slot.
func (c *catalog) shareLearned(k policy.Kind, name string, m policy.Metadata) {
	if c.Shared == nil {
		return
	}
	c.Shared.Set(c.sharedKey("learned", slotOf(k, name)), encodeLearned(k, name, m), 0)
}

// sharedLearned reads a primitive's slot; ok only if the slot is its own.
func (c *catalog) sharedLearned(k policy.Kind, name string) (policy.Metadata, bool) {
	if c.Shared == nil {
		return policy.Metadata{}, false
	}
	v, _, ok := c.Shared.Get(c.sharedKey("learned", slotOf(k, name)))
	if !ok {
		return policy.Metadata{}, false
	}
	return decodeLearned(v, k, name)
}

// shareTemplate adds a template text to the shared list (CAS, a few tries).
func (c *catalog) shareTemplate(text string) {
	if c.Shared == nil {
		return
	}
	key := c.sharedKey("templates")
	for range 8 {
		v, cas, _ := c.Shared.Get(key)
		list := string(v)
		for _, t := range strings.Split(list, "\n") {
			if t == text {
				return
			}
		}
		if strings.Count(list, "\n") >= judging.MaxEntries {
			return
		}
		if list != "" {
			list += "\n"
		}
		if c.Shared.Set(key, []byte(list+text), cas) {
			c.templatesCAS = 0 // re-read on the next lookup
			return
		}
	}
}

// refreshTemplates picks up templates other worker VMs learned.
func (c *catalog) refreshTemplates() {
	if c.Shared == nil {
		return
	}
	v, cas, ok := c.Shared.Get(c.sharedKey("templates"))
	if !ok || cas == c.templatesCAS {
		return
	}
	c.templatesCAS = cas
	for _, t := range strings.Split(string(v), "\n") {
		if t != "" {
			c.model.Templates.Add(t)
		}
	}
}

// encodeLearned serializes a slot: kind, name, then the metadata.
func encodeLearned(k policy.Kind, name string, m policy.Metadata) []byte {
	b := []byte{byte(k)}
	b = appendBytes(b, name)
	b = appendBytes(b, m.Category)
	b = binary.AppendUvarint(b, uint64(len(m.Tags)))
	for _, t := range m.Tags {
		b = appendBytes(b, t)
	}
	b = append(b, byte(m.Sensitivity), byte(m.Capabilities))
	hints := ""
	if m.Hints != nil {
		hints = m.Hints.JSON("")
	}
	return appendBytes(b, hints)
}

func appendBytes(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// readString reads a string appendBytes wrote at the start of b, and
// returns the rest.
func readString(b []byte) (string, []byte, bool) {
	n, w := binary.Uvarint(b)
	if w <= 0 || uint64(len(b)-w) < n {
		return "", b, false
	}
	return string(b[w : w+int(n)]), b[w+int(n):], true
}

// readStrings reads a count (binary.AppendUvarint) and that many strings
// appendBytes wrote, and returns the rest.
func readStrings(b []byte) ([]string, []byte, bool) {
	count, w := binary.Uvarint(b)
	if w <= 0 || count > uint64(len(b)) {
		return nil, b, false
	}
	b = b[w:]
	var out []string
	for range count {
		s, rest, ok := readString(b)
		if !ok {
			return nil, b, false
		}
		out, b = append(out, s), rest
	}
	return out, b, true
}

// decodeLearned reads a slot written by encodeLearned, if it belongs to
// (k, name). Anything malformed reads as absent.
func decodeLearned(b []byte, k policy.Kind, name string) (policy.Metadata, bool) {
	var m policy.Metadata
	if len(b) < 1 || policy.Kind(b[0]) != k {
		return m, false
	}
	b = b[1:]
	got, b, ok := readString(b)
	if !ok || got != name {
		return m, false
	}
	if m.Category, b, ok = readString(b); !ok {
		return m, false
	}
	if m.Tags, b, ok = readStrings(b); !ok {
		return m, false
	}
	if len(b) < 2 {
		return m, false
	}
	m.Sensitivity, m.Capabilities, b = policy.Sensitivity(b[0]), policy.CapabilitySet(b[1]), b[2:]
	hints, _, ok := readString(b)
	if !ok {
		return m, false
	}
	if hints != "" {
		if v, err := policy.ParseJSON([]byte(hints)); err == nil {
			m.Hints = v
		}
	}
	return m, true
}

// Deferred answers serve the legacy HTTP+SSE transport (2024-11-05), where
// a POST is answered 202 and every response arrives on the session's GET
// stream: a request the plugin refuses goes upstream as a ping with the
// same id, and its answer is swapped for the refusal when the ping's
// response comes back on the GET stream (which may be on another worker VM).
const deferredSlots = 1024

func deferredSlot(session, id string) string {
	h := fnv.New32a()
	h.Write([]byte(session))
	h.Write([]byte{0})
	h.Write([]byte(id))
	return strconv.Itoa(int(h.Sum32() % deferredSlots))
}

// deferAnswer records the answer for (session, id).
func (c *catalog) deferAnswer(session, id string, answer []byte) {
	v := make([]byte, 0, len(session)+len(id)+len(answer)+2)
	v = append(append(append(append(append(v, session...), 0), id...), 0), answer...)
	if c.Shared != nil {
		c.Shared.Set(c.sharedKey("deferred", deferredSlot(session, id)), v, 0)
		return
	}
	if c.deferred == nil {
		c.deferred = map[string][]byte{}
	}
	c.deferred[deferredSlot(session, id)] = v
}

// takeAnswer returns and forgets the deferred answer for (session, id).
func (c *catalog) takeAnswer(session, id string) ([]byte, bool) {
	slot := deferredSlot(session, id)
	var v []byte
	var cas uint32
	if c.Shared != nil {
		var ok bool
		if v, cas, ok = c.Shared.Get(c.sharedKey("deferred", slot)); !ok {
			return nil, false
		}
	} else {
		v = c.deferred[slot]
	}
	prefix := session + "\x00" + id + "\x00"
	if len(v) <= len(prefix) || string(v[:len(prefix)]) != prefix {
		return nil, false
	}
	answer := append([]byte(nil), v[len(prefix):]...)
	if c.Shared != nil {
		c.Shared.Set(c.sharedKey("deferred", slot), nil, cas)
	} else {
		delete(c.deferred, slot)
	}
	return answer, true
}

// Requests a stream forwarded are also recorded by session and id, so a
// response that comes back on another stream (a resumed GET stream, on any
// worker VM) is matched to its request like one on its own stream.
const requestSlots = 4096

// shareRequest records a forwarded request under (session, id): its
// method, whether it asked for a first page, the primitive it named, and
// the principal (id and roles) it was judged for, whose pipeline its
// response gets wherever it arrives.
// When the session already used the id for a request recorded otherwise
// (MCP forbids reuse; two streams could do it at once), the record becomes
// ambiguous: a response arriving on another stream could belong to either,
// and their pipelines differ. Reuse for an identical request changes
// nothing a response would be judged by.
func (c *catalog) shareRequest(session, id string, f forwarded, by *policy.Principal) {
	if c.Shared == nil || session == "" {
		return
	}
	key := c.sharedKey("request", requestSlot(session, id))
	first := byte('0')
	if f.firstPage {
		first = '1'
	}
	if f.standIn {
		first += 2 // '2', '3': a hidden primitive's stand-in request
	}
	n := len(session) + len(id) + len(f.method) + len(f.name) + len(by.ID) + 24
	for _, r := range by.Roles {
		n += len(r) + 2
	}
	v := make([]byte, 0, n)
	v = append(append(append(append(append(v, session...), 0), id...), 0, first), byte(f.kind))
	v = appendBytes(appendBytes(appendBytes(v, f.method), f.name), by.ID)
	v = binary.AppendUvarint(v, uint64(len(by.Roles)))
	for _, r := range by.Roles {
		v = appendBytes(v, r)
	}
	prefix := len(session) + len(id) + 2
	if old, _, ok := c.Shared.Get(key); ok && len(old) > prefix && string(old[:prefix]) == string(v[:prefix]) {
		if string(old) != string(v) {
			c.Shared.Set(key, append(v[:prefix], ambiguousRequest), 0)
		}
		return
	}
	c.Shared.Set(key, v, 0)
}

// ambiguousRequest marks a shared request record whose id was used twice.
const ambiguousRequest = 'x'

// sharedRequest finds the request (session, id) recorded by any stream.
// A record that does not read whole is treated as lost.
func (c *catalog) sharedRequest(session, id string) (forwarded, bool) {
	if c.Shared == nil || session == "" {
		return forwarded{}, false
	}
	v, _, ok := c.Shared.Get(c.sharedKey("request", requestSlot(session, id)))
	prefix := session + "\x00" + id + "\x00"
	if !ok || len(v) < len(prefix)+1 || string(v[:len(prefix)]) != prefix {
		return forwarded{}, false
	}
	rest := v[len(prefix):]
	if rest[0] == ambiguousRequest {
		return forwarded{ambiguous: true}, true
	}
	if len(rest) < 2 {
		return forwarded{}, false
	}
	f := forwarded{firstPage: rest[0] == '1' || rest[0] == '3', standIn: rest[0] == '2' || rest[0] == '3', kind: policy.Kind(rest[1])}
	b := rest[2:]
	var ok1, ok2, ok3, ok4 bool
	f.method, b, ok1 = readString(b)
	f.name, b, ok2 = readString(b)
	f.principal.ID, b, ok3 = readString(b)
	f.principal.Roles, _, ok4 = readStrings(b)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return forwarded{}, false
	}
	return f, true
}

func requestSlot(session, id string) string {
	h := fnv.New32a()
	h.Write([]byte("request\x00"))
	h.Write([]byte(session))
	h.Write([]byte{0})
	h.Write([]byte(id))
	return strconv.Itoa(int(h.Sum32() % requestSlots))
}

// Sessions are bound to the principal that first used them (manual 8): MCP
// servers do not tie a session to whoever opened it, so without a binding
// anyone who knows a session id could open its GET stream, or resume one
// of its streams, and read its answers under their own identity. The
// binding is by principal id only; roles may change while a session lives
// (a refreshed token).
//
// The bindings live in a fixed-size table (manual 16): sessionBuckets keys,
// each holding up to sessionWays entries, found by (server.id, a digest
// of the session): the key names the server. An entry is the session's
// digest, a digest of the principal id and when the session was last
// used (refreshed at most once per sessionTouch, so a request with a
// session costs one shared-data read).
// Digests keep an entry fixed-size whatever a client puts in a header. A
// full bucket gives up the entry used least recently. A session whose
// entry was given up reads as new and is bound again by the next request
// naming it: what another principal's request left behind is then still
// kept from it by the request records, which carry whom each request was
// judged for (processMessage), and a response whose record is lost gets
// the policy-level pipeline.
const (
	sessionBuckets = 4096
	sessionWays    = 4
	sessionTag     = 16
	sessionEntry   = 2*sessionTag + 8
	sessionTouch   = int64(60 * time.Second)
)

// sessionBucket is the shared-data key of session's bucket and the
// session's digest in it.
func (c *catalog) sessionBucket(session string) (string, [sessionTag]byte) {
	// The key's prefix names the server: the digest needs only the
	// session, one SHA-256 block for the ids servers issue.
	var buf [160]byte // on the stack for ordinary ids
	d := hmacsha256.Sum256(append(buf[:0], session...))
	var tag [sessionTag]byte
	copy(tag[:], d[4:])
	if c.sessionPrefix == "" {
		c.sessionPrefix = c.sharedKey("session", "")
	}
	key := strconv.AppendUint(append(buf[:0], c.sessionPrefix...), uint64(binary.BigEndian.Uint32(d[:4])%sessionBuckets), 10)
	return string(key), tag
}

// principalTag is the digest of a principal id in a session entry. A VM
// sees few principals: their digests are kept (up to maxPrincipalTags).
func (c *catalog) principalTag(id string) [sessionTag]byte {
	if tag, ok := c.principalTags[id]; ok {
		return tag
	}
	var buf [160]byte
	d := hmacsha256.Sum256(append(append(buf[:0], "principal\x00"...), id...))
	var tag [sessionTag]byte
	copy(tag[:], d[:])
	if c.principalTags == nil || len(c.principalTags) >= maxPrincipalTags {
		c.principalTags = map[string][sessionTag]byte{}
	}
	c.principalTags[id] = tag
	return tag
}

const maxPrincipalTags = 1024

// sessionHeldByOther reports whether session is bound to a principal
// other than principal, binding nothing (a 2026-07-28 request names no
// session of its own, but a stateful server still serves one it names).
func (c *catalog) sessionHeldByOther(session, principal string) bool {
	sh := c.Shared
	if sh == nil {
		if c.local == nil {
			return false
		}
		sh = c.local
	}
	key, tag := c.sessionBucket(session)
	who := c.principalTag(principal)
	v, _, _ := sh.Get(key)
	if len(v)%sessionEntry != 0 || len(v) > sessionWays*sessionEntry {
		return false
	}
	for i := 0; i < len(v); i += sessionEntry {
		if e := v[i : i+sessionEntry]; string(e[:sessionTag]) == string(tag[:]) {
			return string(e[sessionTag:2*sessionTag]) != string(who[:])
		}
	}
	return false
}

// bindSession reports whether session may be used by principal: it is
// bound to that principal, or to nobody, in which case it is bound to it
// now (at now, Unix ns). false: another principal holds it.
func (c *catalog) bindSession(session, principal string, now int64) bool {
	sh := c.Shared
	if sh == nil {
		if c.local == nil {
			c.local = shareddata.NewLocal()
		}
		sh = c.local
	}
	key, tag := c.sessionBucket(session)
	who := c.principalTag(principal)
	for range 8 {
		v, cas, found := sh.Get(key)
		if len(v)%sessionEntry != 0 || len(v) > sessionWays*sessionEntry {
			v = nil // not a bucket: rebuilt
		}
		at, oldest := -1, -1
		var oldestUsed int64
		for i := 0; i < len(v); i += sessionEntry {
			e := v[i : i+sessionEntry]
			if string(e[:sessionTag]) == string(tag[:]) {
				if string(e[sessionTag:2*sessionTag]) != string(who[:]) {
					return false
				}
				used := int64(binary.BigEndian.Uint64(e[2*sessionTag:]))
				if used <= now && now-used < sessionTouch {
					return true // bound to this principal, and used lately
				}
				at = i
				break
			}
			if used := int64(binary.BigEndian.Uint64(e[2*sessionTag:])); oldest < 0 || used < oldestUsed {
				oldest, oldestUsed = i, used
			}
		}
		next := make([]byte, 0, sessionWays*sessionEntry)
		next = append(next, v...)
		switch {
		case at >= 0:
		case len(v) < sessionWays*sessionEntry:
			at = len(v)
			next = next[:at+sessionEntry]
		default:
			at = oldest // the entry used least recently gives way
		}
		e := next[at : at+sessionEntry]
		copy(e, tag[:])
		copy(e[sessionTag:], who[:])
		binary.BigEndian.PutUint64(e[2*sessionTag:], uint64(now))
		if !found {
			if shareddata.Create(sh, key, next) {
				return true
			}
			continue
		}
		if sh.Set(key, next, cas) {
			return true
		}
	}
	// The bucket kept changing under other workers, and no read showed
	// the session bound to another principal: it is used unbound this
	// once (its next request binds it), rather than refused.
	return true
}

// Stand-ins are also recorded by their anchor (the prefix and the keyed
// hash, hidden.go), so that a stand-in in an answer no request record
// explains (its record overwritten, which any client can do to a record
// it can find the slot of) still gets its name back. A client cannot
// find a stand-in's slot: the anchor is secret to it.
const standInSlots = 4096

func standInSlot(anchor string) string {
	h := fnv.New32a()
	h.Write([]byte(anchor))
	return strconv.Itoa(int(h.Sum32() % standInSlots))
}

// shareStandIn records the name a stand-in's anchor stands for.
func (c *catalog) shareStandIn(anchor string, kind policy.Kind, name string) {
	v := make([]byte, 0, len(anchor)+2+len(name))
	v = append(append(append(v, anchor...), 0, byte(kind)), name...)
	slot := standInSlot(anchor)
	if c.Shared != nil {
		if old, _, ok := c.Shared.Get(c.sharedKey("standin", slot)); !ok || string(old) != string(v) {
			c.Shared.Set(c.sharedKey("standin", slot), v, 0)
		}
		return
	}
	if c.standIns == nil {
		c.standIns = map[string][]byte{}
	}
	c.standIns[slot] = v
}

// standInName finds the primitive a stand-in's anchor stands for.
func (c *catalog) standInName(anchor string) (policy.Kind, string, bool) {
	var v []byte
	if c.Shared != nil {
		v, _, _ = c.Shared.Get(c.sharedKey("standin", standInSlot(anchor)))
	} else {
		v = c.standIns[standInSlot(anchor)]
	}
	if len(v) < len(anchor)+2 || string(v[:len(anchor)]) != anchor || v[len(anchor)] != 0 {
		return 0, "", false
	}
	return policy.Kind(v[len(anchor)+1]), string(v[len(anchor)+2:]), true
}
