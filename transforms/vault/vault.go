// Package vault issues pseudonyms and resolves them (manual 13): the
// keyed pseudonyms themselves (Pseudonymizer, and finding them in text),
// the stored vault (Vault: a table in proxy-wasm shared data, and the
// vault file that carries it across restarts), the sealed vault (Sealed:
// the value encrypted into the token, no shared state), and the store
// interface the transform pipeline calls (PseudonymStore).
package vault

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cloudg/mcp-privacy/internal/entropy"
	"github.com/cloudg/mcp-privacy/internal/hmacsha256"
	"github.com/cloudg/mcp-privacy/internal/streq"
	"github.com/cloudg/mcp-privacy/policy"
)

// KV is the store the vault keeps its table in: proxy-wasm shared data
// (one per Envoy process, shared by every worker VM), with its semantics:
// Get returns a value and its CAS token; Set stores a value only if cas
// still matches (0: unconditionally; a key that does not exist yet is
// always set) and reports whether it did; there is no delete.
// internal/shareddata's Store (package main's shared data) satisfies it,
// and so does the host side of `mcp-privacy serve`.
type KV interface {
	Get(key string) (value []byte, cas uint32, ok bool)
	Set(key string, value []byte, cas uint32) bool
}

// MemoryKV is a KV in process memory with shared data's semantics (every
// Set gets a new CAS token, CAS 0 is unconditional, no delete), for tests,
// the CLI and previews. It is safe for concurrent use.
type MemoryKV struct {
	mu   sync.Mutex
	m    map[string]memoryValue
	next uint32
}

type memoryValue struct {
	value []byte
	cas   uint32
}

// NewMemoryKV returns an empty MemoryKV.
func NewMemoryKV() *MemoryKV { return &MemoryKV{m: map[string]memoryValue{}} }

// Get returns a copy of key's value and its CAS token.
func (kv *MemoryKV) Get(key string) ([]byte, uint32, bool) {
	kv.mu.Lock()
	defer kv.mu.Unlock()
	v, ok := kv.m[key]
	if !ok {
		return nil, 0, false
	}
	return append([]byte(nil), v.value...), v.cas, true
}

// Set stores a copy of value under key if cas is 0, key is absent, or cas
// is key's current token.
func (kv *MemoryKV) Set(key string, value []byte, cas uint32) bool {
	kv.mu.Lock()
	defer kv.mu.Unlock()
	if old, ok := kv.m[key]; ok && cas != 0 && cas != old.cas {
		return false
	}
	kv.next++
	if kv.next == 0 {
		kv.next = 1
	}
	kv.m[key] = memoryValue{append([]byte(nil), value...), kv.next}
	return true
}

// Len is the number of keys stored.
func (kv *MemoryKV) Len() int {
	kv.mu.Lock()
	defer kv.mu.Unlock()
	return len(kv.m)
}

// Keys in the KV. Slots are SlotPrefix followed by the slot number;
// the two counters tell a host (mcp-privacy serve) that the table changed,
// without reading it: every Set gives a key a new CAS token, so the host
// compares tokens. IssuedKey changes when a new mapping is stored
// (what autosave waits for), TouchedKey when a stored mapping's last
// use is refreshed (what the save at shutdown also keeps).
const (
	SlotPrefix = "mcp-privacy|vault|"
	IssuedKey  = "mcp-privacy|vault|issued"
	TouchedKey = "mcp-privacy|vault|touched"
)

const (
	// DefaultEntries is max_entries when the configuration has none.
	DefaultEntries = 100000
	// vaultProbes is how many slots a mapping may occupy: its home slot
	// and the next ones. A short, bounded sequence keeps a lookup to a few
	// Gets while letting colliding mappings live side by side.
	vaultProbes = 8
	// vaultTries bounds the retries of a write that lost a CAS race to
	// another worker VM.
	vaultTries = 4
	// vaultCacheSize is the size of each per-instance cache of mappings
	// known to be stored (two-way set-associative: bounded, and looked up
	// without allocating).
	vaultCacheSize = 256
	// slotVersion is the first byte of a slot's plaintext.
	slotVersion = 1
	// createCAS is the CAS token used to write a key that did not exist.
	// Shared data sets a missing key whatever the token, but refuses a
	// token other than 0 or the current one once the key exists: so this
	// write creates the key, or fails if another VM created it first. It
	// would wrongly succeed only if that key's token were this very value,
	// which the host's process-wide counter hands out once per 2^32 writes.
	createCAS = math.MaxUint32
)

// Vault maps pseudonyms back to the values they stand for (manual 13). The
// mappings live in a KV as a fixed-size table, because shared data has no
// delete: max_entries slots, each holding one mapping (namespace,
// pseudonym, value, last use) sealed with AES-GCM under a subkey of the
// vault key, the slot's key as additional data (a sealed value copied to
// another slot does not open). A mapping's home slot is a keyed hash of
// (namespace, pseudonym); it may sit in any of the next vaultProbes slots.
// A write takes the probed slot that is its own, else the first empty,
// expired or unreadable one, else the least recently used one: a full
// table forgets its oldest mappings first, never a live one when a stale
// one is at hand.
//
// Slots are written with compare-and-swap, so two worker VMs writing the
// same slot at once cannot corrupt it or lose a mapping: the loser probes
// again. That includes a slot's first write (see createCAS).
//
// A key change makes every slot unreadable, that is empty: old pseudonyms
// stop resolving and their slots are reused. A Vault is safe for concurrent
// use; it starts no goroutines and reads the time only through now.
type Vault struct {
	mu      sync.Mutex
	pseudo  *Pseudonymizer
	slotMAC *hmacsha256.MAC // keyed hash choosing home slots
	slotBox sealer          // seals slots
	fileBox sealer          // seals exported files (vault_file.go)
	keyFP   string          // policy.KeyFingerprint of the key, for files
	scope   policy.VaultScope
	ttl     time.Duration // 0: mappings never expire
	refresh time.Duration
	slots   int
	kv      KV
	now     func() time.Time
	// The caches: mappings this instance knows the table holds with last
	// use `stored`, by (namespace, label, value) for Pseudonymise and by
	// (namespace, pseudonym) for Resolve. They hold values, as the VM's
	// memory does anyway while it transforms a message, and never more
	// than vaultCacheSize each.
	issued   [vaultCacheSize / 2][2]cached
	resolved [vaultCacheSize / 2][2]cached
	seed     cacheSeed
	buf      []byte // hashSlot's input
	plain    []byte // open's output
	stats    Stats
}

type cached struct {
	ns, label, value, pseudonym string
	hash                        uint64 // cacheHash of what it is looked up by
	// staleAt is the last use the table holds for the mapping plus the
	// refresh interval: from then on a use is written. (Kept as the sum,
	// so a lookup compares times without a call.)
	staleAt time.Time
}

// fresh reports whether the table holds c with a last use recent enough
// that using it again needs no write.
func (c *cached) fresh(now time.Time) bool { return now.Before(c.staleAt) }

// find returns the way of set holding the mapping of hash h that match
// accepts (-1: none).
func find(set *[2]cached, h uint64, match func(c *cached) bool) int {
	for i := range set {
		if set[i].hash == h && set[i].pseudonym != "" && match(&set[i]) {
			return i
		}
	}
	return -1
}

// replace returns the way of set to write a mapping to: its own (way,
// from find), else the one stored longest ago (or empty).
func replace(set *[2]cached, way int) *cached {
	if way >= 0 {
		return &set[way]
	}
	if set[1].staleAt.Before(set[0].staleAt) {
		return &set[1]
	}
	return &set[0]
}

// cacheSetOf is the set of a cache of vaultCacheSize/2 sets that a
// mapping of cacheHash h goes to.
func cacheSetOf(h uint64) int { return int(h % (vaultCacheSize / 2)) }

// Stats counts what one Vault instance did (one worker VM), for
// privacy_status and metrics. Only counts, never values.
type Stats struct {
	Issued     uint64 // Pseudonymise calls
	Stored     uint64 // new mappings written to the table
	Refreshed  uint64 // last-use refreshes written
	Resolved   uint64 // pseudonyms resolved
	Unresolved uint64 // pseudonym-shaped strings not (or no longer) in the vault
	Evicted    uint64 // live mappings overwritten because all their probe slots were in use
	Conflicts  uint64 // writes that lost a CAS race and were retried
	Dropped    uint64 // mappings not stored: every try lost a race
	Unreadable uint64 // slot reads that failed authentication (another key, tampering)
}

// New returns the vault of key over kv. cfg gives the scope, the TTL
// and max_entries; now is the clock (time.Now outside tests). Every Vault
// over one KV must be made with the same key and max_entries.
func New(key []byte, cfg policy.VaultConfig, kv KV, now func() time.Time) *Vault {
	v := &Vault{
		pseudo:  NewPseudonymizer(key),
		slotMAC: hmacsha256.New(subkey(key, "mcp-privacy vault slot v1")),
		slotBox: newSealer(subkey(key, "mcp-privacy vault v1")),
		fileBox: newSealer(subkey(key, "mcp-privacy vault file v1")),
		keyFP:   policy.KeyFingerprint(key),
		scope:   cfg.Scope,
		ttl:     ttlDuration(cfg.TTLSeconds),
		slots:   cfg.MaxEntries,
		kv:      kv,
		now:     now,
		seed:    newCacheSeed(),
	}
	if v.slots <= 0 {
		v.slots = DefaultEntries
	}
	// Refreshing a mapping's last use costs a seal and a shared-data write;
	// doing it on every use would put a write on every pseudonym of every
	// message. Last use only has to be precise enough for the TTL and for
	// choosing what a full table forgets, so it is written only once it is
	// older than a sixteenth of the TTL (a minute without TTL, or at most):
	// a mapping then expires between 15/16 of the TTL and the TTL after its
	// real last use, never later. The caches make a repeated issue or
	// resolve within that interval cost no shared-data read (and no
	// HMAC) either; the price is that a mapping another VM evicted in the
	// meantime is stored again only at its first use after the interval.
	v.refresh = time.Minute
	if v.ttl > 0 && v.ttl/16 < v.refresh {
		v.refresh = v.ttl / 16
	}
	return v
}

// ttlDuration converts ttl_seconds (0: none) to a Duration, at least 1ns
// and at most the longest Duration.
func ttlDuration(seconds float64) time.Duration {
	switch {
	case !(seconds > 0):
		return 0
	case seconds >= float64(math.MaxInt64)/float64(time.Second):
		return math.MaxInt64
	}
	return max(time.Duration(seconds*float64(time.Second)), 1)
}

func subkey(key []byte, info string) []byte { return hkdfKey(key, info, 32) }

// hkdfKey derives n bytes for info from the vault key (HKDF-SHA256, no
// salt): the key itself is never used directly.
func hkdfKey(key []byte, info string, n int) []byte {
	k, err := hkdf.Key(sha256.New, key, nil, info, n)
	if err != nil {
		panic("vault: HKDF: " + err.Error()) // only for impossible lengths
	}
	return k
}

// Namespace is the vault namespace of a caller: "" for scope global, the
// principal id for scope principal.
func (v *Vault) Namespace(principalID string) string {
	if v.scope == policy.VaultPerPrincipal {
		return principalID
	}
	return ""
}

// Pseudonym returns value's pseudonym in ns without storing anything
// (preview_transform).
func (v *Vault) Pseudonym(ns, label, value string) string {
	return v.pseudo.Pseudonym(ns, label, value)
}

// Pseudonymise returns value's pseudonym in ns and stores the mapping (or
// refreshes its last use) so the depseudonymiser can resolve it. If the
// store keeps losing write races the pseudonym is still returned; it then
// does not resolve (Stats.Dropped).
func (v *Vault) Pseudonymise(ns, label, value string) string {
	return v.PseudonymiseAt(ns, label, value, v.now())
}

// Clock reads the vault's clock, for PseudonymiseAt (ClockedStore).
func (v *Vault) Clock() time.Time { return v.now() }

// PseudonymiseAt is Pseudonymise at time now. The engine reads the clock
// once per payload it transforms (scratch.now): inside the VM a reading is
// two host calls, as much as the rest of a cached pseudonym.
func (v *Vault) PseudonymiseAt(ns, label, value string, now time.Time) string {
	h := cacheHash(v.seed, ns, label, value)
	v.mu.Lock()
	v.stats.Issued++
	set := &v.issued[cacheSetOf(h)]
	way := find(set, h, func(c *cached) bool {
		return streq.Same(c.value, value) && streq.Same(c.label, label) && streq.Same(c.ns, ns)
	})
	if way >= 0 && set[way].fresh(now) {
		// Most calls end here: without a deferred unlock, which costs
		// more inside the VM than the lookup.
		p := set[way].pseudonym
		v.mu.Unlock()
		return p
	}
	defer v.mu.Unlock()
	p := v.pseudo.Pseudonym(ns, label, value)
	if stored, ok := v.store(v.hashSlot(ns, p), ns, p, value, now, now, false); ok {
		// value may be a view of a message's bytes (PseudonymStore).
		*replace(set, way) = cached{ns: ns, label: label, value: strings.Clone(value), pseudonym: p, hash: h, staleAt: stored.Add(v.refresh)}
	}
	return p
}

// Resolve returns the value pseudonym stands for in ns, if the vault holds
// it there, it has not expired, and its slot is authentic. A sealed
// pseudonym is never in the table (Sealed opens those).
func (v *Vault) Resolve(ns, pseudonym string) (string, bool) {
	if !isStoredPseudonym(pseudonym) {
		return "", false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.resolve(ns, pseudonym)
}

func (v *Vault) resolve(ns, p string) (string, bool) {
	now := v.now()
	h := cacheHash(v.seed, ns, p, "")
	set := &v.resolved[cacheSetOf(h)]
	if way := find(set, h, func(c *cached) bool { return c.pseudonym == p && c.ns == ns }); way >= 0 && set[way].fresh(now) {
		v.stats.Resolved++
		return set[way].value, true
	}
	probes := v.probe(v.hashSlot(ns, p), ns, p, now)
	if probes.own < 0 {
		v.stats.Unresolved++
		return "", false
	}
	own := probes.slot[probes.own]
	stored := own.e.lastUse
	if now.Sub(stored) >= v.refresh {
		// One try: losing the race means another VM just wrote the slot,
		// most likely refreshing this very mapping.
		if v.write(own, ns, p, own.e.value, now) {
			v.stats.Refreshed++
			v.bump(TouchedKey)
			stored = now
		}
	}
	v.remember(ns, p, own.e.value, stored)
	v.stats.Resolved++
	return own.e.value, true
}

// Depseudonymise returns s with every pseudonym-shaped span that resolves
// in ns replaced by its value, and how many it replaced. Unknown, expired
// and foreign pseudonyms, and all other text, are left exactly as they are.
func (v *Vault) Depseudonymise(ns, s string) (string, int) {
	out, r := v.Restore(ns, s, nil)
	return out, r.Resolved
}

// Restore is Depseudonymise with a check: of the pseudonyms that resolve,
// only those keep (when not nil) leaves marked are replaced (the
// transforms engine's restorable). It counts what it replaced, what it
// could not resolve and what keep refused.
func (v *Vault) Restore(ns, s string, keep RestoreCheck) (string, Restored) {
	var buf [8]Span
	spans := FindPseudonyms(s, buf[:0])
	var r Restored
	if len(spans) == 0 {
		return s, r
	}
	values := make([]string, len(spans))
	ok := make([]bool, len(spans))
	v.mu.Lock()
	for i, sp := range spans {
		// A sealed pseudonym is never in the table: not looked for, and
		// counted unresolved.
		if sp.End-sp.Start > TokenLen+1 && s[sp.End-TokenLen-1] == '_' {
			values[i], ok[i] = v.resolve(ns, s[sp.Start:sp.End])
		}
	}
	v.mu.Unlock()
	return RestoreSpans(s, spans, values, ok, keep)
}

// RestoreSpans replaces the spans marked ok by their values, after keep
// has had its say, and counts: the end of Restore for a store of one's own
// (the transforms tests' map store).
func RestoreSpans(s string, spans []Span, values []string, ok []bool, keep RestoreCheck) (string, Restored) {
	var r Restored
	resolved := 0
	for _, o := range ok {
		if o {
			resolved++
		}
	}
	r.Unresolved = len(spans) - resolved
	if keep != nil && resolved > 0 {
		keep(s, spans, values, ok)
	}
	var b strings.Builder
	last := 0
	for i, sp := range spans {
		if !ok[i] {
			continue
		}
		if r.Resolved == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:sp.Start])
		b.WriteString(values[i])
		last = sp.End
		r.Resolved++
	}
	r.Refused = resolved - r.Resolved
	if r.Resolved == 0 {
		return s, r
	}
	b.WriteString(s[last:])
	return b.String(), r
}

// Stats returns this instance's counters.
func (v *Vault) Stats() Stats {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.stats
}

// Changes are the CAS tokens of IssuedKey and TouchedKey (0
// while absent): a host compares them with earlier ones to learn that the
// table changed.
type Changes struct{ Issued, Touched uint32 }

// Changes reads the change counters' tokens from the KV.
func (v *Vault) Changes() Changes {
	_, issued, _ := v.kv.Get(IssuedKey)
	_, touched, _ := v.kv.Get(TouchedKey)
	return Changes{issued, touched}
}

// isPseudonym reports whether p is exactly one pseudonym, stored or
// sealed.
func isPseudonym(p string) bool {
	if len(p) < TokenLen+2 {
		return false
	}
	var buf [1]Span
	sp := FindPseudonyms(p, buf[:0])
	return len(sp) == 1 && sp[0] == Span{0, len(p)}
}

// isStoredPseudonym reports whether p is exactly one pseudonym with a
// stored token (TokenLen characters), the only kind the table holds.
func isStoredPseudonym(p string) bool {
	return isPseudonym(p) && p[len(p)-TokenLen-1] == '_'
}

// hashSlot is the home slot of (ns, p): a keyed hash, so nobody without
// the key can aim values at one slot.
func (v *Vault) hashSlot(ns, p string) int {
	b := binary.AppendUvarint(v.buf[:0], uint64(len(ns)))
	b = append(append(b, ns...), p...)
	v.buf = b
	var sum [hmacsha256.Size]byte
	v.slotMAC.Sum(&sum, b)
	return int(binary.BigEndian.Uint64(sum[:8]) % uint64(v.slots))
}

func (v *Vault) slotKey(i int) string { return SlotPrefix + strconv.Itoa(i) }

// entry is a slot's plaintext.
type entry struct {
	ns, pseudonym, value string
	lastUse              time.Time
}

// slot is one probed slot: its key, CAS token, and what it holds.
type slot struct {
	key     string
	cas     uint32
	missing bool // never written: no mapping can sit beyond it
	free    bool // missing, unreadable or expired
	e       entry
}

type probed struct {
	slot [vaultProbes]slot
	n    int
	own  int // index of the slot holding the mapping, or -1
}

// probe reads the mapping's probe sequence up to its own slot, or up to
// the first slot never written: a mapping is always stored in the first
// free slot of its sequence, and a written slot never becomes missing
// again, so it cannot sit beyond one.
func (v *Vault) probe(home int, ns, p string, now time.Time) probed {
	r := probed{own: -1}
	for i := 0; i < min(vaultProbes, v.slots); i++ {
		s := &r.slot[i]
		r.n = i + 1
		s.key = v.slotKey((home + i) % v.slots)
		raw, cas, ok := v.kv.Get(s.key)
		s.cas = casFor(cas, ok)
		if !ok {
			s.missing, s.free = true, true
			break
		}
		e, ok := v.open(s.key, raw)
		switch {
		case !ok:
			if len(raw) > 0 {
				v.stats.Unreadable++
			}
			s.free = true
		case v.expired(e.lastUse, now):
			s.free = true
		case string(e.ns) == ns && string(e.pseudonym) == p:
			s.e = entry{ns, p, string(e.value), e.lastUse}
			r.own = i
			return r
		default:
			s.e.lastUse = e.lastUse // all a slot not ours needs
		}
	}
	return r
}

func (v *Vault) expired(lastUse, now time.Time) bool {
	return v.ttl > 0 && now.Sub(lastUse) >= v.ttl
}

// store writes the mapping (ns, p) → value with last use `use`: into its
// own slot when the stored last use is older than the refresh interval (or,
// for imports, older than use), else into a free or the least recently
// used slot. It retries when another writer got there first, and returns
// the last use the table now holds for the mapping (ok false: dropped).
func (v *Vault) store(home int, ns, p, value string, now, use time.Time, importing bool) (stored time.Time, ok bool) {
	for range vaultTries {
		r := v.probe(home, ns, p, now)
		if r.own >= 0 {
			own := r.slot[r.own]
			if importing && !use.After(own.e.lastUse) || !importing && use.Sub(own.e.lastUse) < v.refresh {
				v.remember(ns, p, own.e.value, own.e.lastUse)
				return own.e.lastUse, true
			}
			if v.write(own, ns, p, own.e.value, use) {
				v.stats.Refreshed++
				v.bump(TouchedKey)
				v.remember(ns, p, own.e.value, use)
				return use, true
			}
			v.stats.Conflicts++
			continue
		}
		target := -1
		for i := 0; i < r.n && target < 0; i++ {
			if r.slot[i].free {
				target = i
			}
		}
		evict := target < 0
		if evict {
			target = 0
			for i := 1; i < r.n; i++ {
				if r.slot[i].e.lastUse.Before(r.slot[target].e.lastUse) {
					target = i
				}
			}
		}
		if !v.write(r.slot[target], ns, p, value, use) {
			v.stats.Conflicts++
			continue
		}
		if evict {
			v.stats.Evicted++
		}
		v.stats.Stored++
		v.bump(IssuedKey)
		v.remember(ns, p, value, use)
		return use, true
	}
	v.stats.Dropped++
	return time.Time{}, false
}

// remember puts a mapping the table holds in the resolve cache.
func (v *Vault) remember(ns, p, value string, stored time.Time) {
	h := cacheHash(v.seed, ns, p, "")
	set := &v.resolved[cacheSetOf(h)]
	way := find(set, h, func(c *cached) bool { return c.pseudonym == p && c.ns == ns })
	// value or p may be a view of a message's bytes (PseudonymStore).
	*replace(set, way) = cached{ns: ns, value: strings.Clone(value), pseudonym: strings.Clone(p), hash: h, staleAt: stored.Add(v.refresh)}
}

// write seals the mapping into s if s is still as probed. (Without
// randomness for a nonce it writes nothing: the mapping then does not
// resolve, which is safe.)
func (v *Vault) write(s slot, ns, p, value string, use time.Time) bool {
	sealed, err := v.seal(s.key, entry{ns, p, value, use})
	return err == nil && v.kv.Set(s.key, sealed, s.cas)
}

// casFor is the token that writes a key only if it is still as read.
func casFor(cas uint32, exists bool) uint32 {
	if !exists {
		return createCAS
	}
	return cas
}

// bump changes key's CAS token (and counts in its value), telling a host
// that the table changed. A few tries keep the count right; the token
// changes even when they all lose.
func (v *Vault) bump(key string) {
	for range vaultTries {
		raw, cas, ok := v.kv.Get(key)
		var n uint64
		if len(raw) == 8 {
			n = binary.BigEndian.Uint64(raw)
		}
		if v.kv.Set(key, binary.BigEndian.AppendUint64(nil, n+1), casFor(cas, ok)) {
			return
		}
	}
}

// sealer is AES-256-GCM with a random 96-bit nonce before each
// ciphertext: the standard library's AEAD, and far fewer seals per key than
// the 2^32 random nonces allow. (ChaCha20-Poly1305 would be faster in a
// wasm VM, which has no AES instructions, but needs golang.org/x/crypto;
// seals are rare here: new mappings and last-use refreshes only.) Nonces
// come from internal/entropy, not crypto/rand (nor NewGCMWithRandomNonce,
// which reads it): crypto/rand arms a runtime timer, which the module must
// never do (plugin/noblocking_test.go).
type sealer struct{ aead cipher.AEAD }

const nonceSize = 12

func newSealer(key []byte) sealer {
	block, err := aes.NewCipher(key)
	if err != nil {
		panic("vault: vault cipher: " + err.Error()) // only for a bad key length
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic("vault: vault cipher: " + err.Error())
	}
	return sealer{aead}
}

// seal returns nonce ‖ ciphertext of plain, authenticating aad too.
func (s sealer) seal(plain, aad []byte) ([]byte, error) {
	out := make([]byte, nonceSize, nonceSize+len(plain)+s.aead.Overhead())
	if err := entropy.Read(out); err != nil {
		return nil, err
	}
	return s.aead.Seal(out, out, plain, aad), nil
}

// open appends to dst the plaintext of what seal returned.
func (s sealer) open(dst, sealed, aad []byte) ([]byte, error) {
	if len(sealed) < nonceSize {
		return nil, errShortCiphertext
	}
	return s.aead.Open(dst, sealed[:nonceSize], sealed[nonceSize:], aad)
}

var errShortCiphertext = errors.New("ciphertext too short")

// seal encodes and encrypts e for slot key: version, last use (Unix
// milliseconds), then namespace, pseudonym and value, length-prefixed.
func (v *Vault) seal(key string, e entry) ([]byte, error) {
	plain := make([]byte, 0, 1+2*binary.MaxVarintLen64+3+len(e.ns)+len(e.pseudonym)+len(e.value))
	plain = appendEntry(plain, e)
	out, err := v.slotBox.seal(plain, []byte(key))
	clear(plain)
	return out, err
}

func appendEntry(b []byte, e entry) []byte {
	b = append(b, slotVersion)
	b = binary.AppendVarint(b, e.lastUse.UnixMilli())
	for _, f := range [...]string{e.ns, e.pseudonym, e.value} {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	return b
}

// openedEntry is a slot's plaintext as open decodes it: the fields alias
// Vault.plain, valid until the next open.
type openedEntry struct {
	ns, pseudonym, value []byte
	lastUse              time.Time
}

func (e openedEntry) entry() entry {
	return entry{string(e.ns), string(e.pseudonym), string(e.value), e.lastUse}
}

// open authenticates and decodes slot key's value; ok is false for
// anything else (another key, another slot's value, tampering, garbage).
func (v *Vault) open(key string, raw []byte) (openedEntry, bool) {
	if len(raw) == 0 {
		return openedEntry{}, false
	}
	plain, err := v.slotBox.open(v.plain[:0], raw, []byte(key))
	if err != nil {
		return openedEntry{}, false
	}
	v.plain = plain
	return readEntry(plain)
}

// readEntry decodes what appendEntry wrote, all of b.
func readEntry(b []byte) (openedEntry, bool) {
	var e openedEntry
	if len(b) < 1 || b[0] != slotVersion {
		return e, false
	}
	ms, w := binary.Varint(b[1:])
	if w <= 0 {
		return e, false
	}
	b = b[1+w:]
	var fields [3][]byte
	for i := range fields {
		n, w := binary.Uvarint(b)
		if w <= 0 || n > uint64(len(b)-w) {
			return e, false
		}
		fields[i] = b[w : w+int(n)]
		b = b[w+int(n):]
	}
	e = openedEntry{ns: fields[0], pseudonym: fields[1], value: fields[2], lastUse: time.UnixMilli(ms)}
	return e, len(b) == 0
}

// ServerKV is kv as seen by the vault of one server (server.id, manual 2):
// its keys live under "mcp-privacy|<id>|", like the plugin's other shared
// state, so two servers configured on one vm_id neither resolve each
// other's pseudonyms nor overwrite each other's slots (with different keys,
// each would read the other's slots as empty).
func ServerKV(kv KV, serverID string) KV {
	return serverKV{kv: kv, prefix: "mcp-privacy|" + serverID + "|"}
}

type serverKV struct {
	kv     KV
	prefix string
}

func (s serverKV) key(k string) string {
	return s.prefix + strings.TrimPrefix(k, "mcp-privacy|")
}

func (s serverKV) Get(key string) ([]byte, uint32, bool) { return s.kv.Get(s.key(key)) }

func (s serverKV) Set(key string, value []byte, cas uint32) bool {
	return s.kv.Set(s.key(key), value, cas)
}
