package mcp

import (
	"encoding/binary"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/cloudg/mcp-privacy/policy"
)

// SharedData is the host's process-wide key-value store (proxy-wasm shared
// data): one per vm_id, shared by every worker VM of an Envoy, with
// compare-and-swap and no delete. Package main provides it; without one
// (native tests of a single VM) the catalog keeps what it learns locally.
type SharedData interface {
	// Get returns the value and its CAS token; ok is false when absent.
	Get(key string) (value []byte, cas uint32, ok bool)
	// Set stores value if cas still matches (0: unconditionally) and
	// reports whether it did.
	Set(key string, value []byte, cas uint32) bool
}

// Shared state lives in fixed-size tables, because shared data has no
// delete (spec 16): a key per primitive would grow without bound. Each slot
// holds the identity it belongs to; a collision overwrites, and losing a
// slot only means a primitive is judged with its configured metadata until
// the next list result.
const learnedSlots = 4096

func (c *Catalog) sharedKey(parts ...string) string {
	return "mcp-privacy|" + c.server.ID + "|" + strings.Join(parts, "|")
}

func slotOf(k policy.Kind, name string) string {
	h := fnv.New32a()
	h.Write([]byte{byte(k)})
	h.Write([]byte(name))
	return strconv.Itoa(int(h.Sum32() % learnedSlots))
}

// shareLearned writes learned metadata to its slot.
func (c *Catalog) shareLearned(k policy.Kind, name string, m policy.Metadata) {
	if c.Shared == nil {
		return
	}
	c.Shared.Set(c.sharedKey("learned", slotOf(k, name)), encodeLearned(k, name, m), 0)
}

// sharedLearned reads a primitive's slot; ok only if the slot is its own.
func (c *Catalog) sharedLearned(k policy.Kind, name string) (policy.Metadata, bool) {
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
func (c *Catalog) shareTemplate(text string) {
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
		if strings.Count(list, "\n") >= maxCatalog {
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
func (c *Catalog) refreshTemplates() {
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
			c.addTemplate(t)
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

// decodeLearned reads a slot written by encodeLearned, if it belongs to
// (k, name). Anything malformed reads as absent.
func decodeLearned(b []byte, k policy.Kind, name string) (policy.Metadata, bool) {
	var m policy.Metadata
	if len(b) < 1 || policy.Kind(b[0]) != k {
		return m, false
	}
	b = b[1:]
	next := func() (string, bool) {
		n, w := binary.Uvarint(b)
		if w <= 0 || uint64(len(b)-w) < n {
			return "", false
		}
		s := string(b[w : w+int(n)])
		b = b[w+int(n):]
		return s, true
	}
	got, ok := next()
	if !ok || got != name {
		return m, false
	}
	if m.Category, ok = next(); !ok {
		return m, false
	}
	count, w := binary.Uvarint(b)
	if w <= 0 || count > uint64(len(b)) {
		return m, false
	}
	b = b[w:]
	for range count {
		t, ok := next()
		if !ok {
			return m, false
		}
		m.Tags = append(m.Tags, t)
	}
	if len(b) < 2 {
		return m, false
	}
	m.Sensitivity, m.Capabilities, b = policy.Sensitivity(b[0]), policy.CapabilitySet(b[1]), b[2:]
	hints, ok := next()
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
func (c *Catalog) deferAnswer(session, id string, answer []byte) {
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
func (c *Catalog) takeAnswer(session, id string) ([]byte, bool) {
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
// method, whether it asked for a first page, and the primitive it named.
// When the session already used the id for a request recorded otherwise
// (MCP forbids reuse; two streams could do it at once), the record becomes
// ambiguous: a response arriving on another stream could belong to either,
// and their pipelines differ. Reuse for an identical request changes
// nothing a response would be judged by.
func (c *Catalog) shareRequest(session, id string, f forwarded) {
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
	v := make([]byte, 0, len(session)+len(id)+len(f.method)+len(f.name)+8)
	v = append(append(append(append(append(v, session...), 0), id...), 0, first), f.method...)
	v = append(append(v, 0, byte(f.kind)), f.name...)
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
func (c *Catalog) sharedRequest(session, id string) (forwarded, bool) {
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
	f := forwarded{firstPage: rest[0] == '1' || rest[0] == '3', standIn: rest[0] == '2' || rest[0] == '3'}
	method, target, ok := strings.Cut(string(rest[1:]), "\x00")
	f.method = method
	if ok && len(target) > 0 {
		f.kind, f.name = policy.Kind(target[0]), target[1:]
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
func (c *Catalog) shareStandIn(anchor string, kind policy.Kind, name string) {
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
func (c *Catalog) standInName(anchor string) (policy.Kind, string, bool) {
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
