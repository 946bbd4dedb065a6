package vault

import (
	"encoding/binary"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tink-crypto/tink-go/v2/daead/subtle"

	"github.com/cloudg/mcp-privacy/policy"
)

// Sealed pseudonyms (manual 13, vault.mode sealed or auto): the token is the
// value itself under deterministic authenticated encryption (AES-SIV, RFC
// 5297), so any proxy holding the key restores it without shared state.
// Deterministic: one value has one pseudonym per key, label, namespace
// (and TTL epoch), as with the store. Authenticated: the label, the
// namespace, the server (server.id) and the token's header are associated
// data, so a token presented under another label, by another principal
// (scope principal), to another server, altered in any character or under
// a key the ring lacks opens to nothing, never to another value.
//
// A token is the unpadded base32 (A–Z, 2–7, as stored tokens) of
//
//	format (1 byte: version 1 in the high nibble; bit 0: an epoch follows)
//	key id (1 byte, derived from the key)
//	epoch start (uvarint, Unix seconds; only with ttl_seconds)
//	synthetic IV (16 bytes) ‖ ciphertext (as long as the value)
//
// The alphabet is the stored tokens' one: a model already sees and copies
// it, and pseudonym detection stays one rule (an upper-case label, an
// underscore, base32). It has no lower case (a model that changes case
// does so to the whole token, which the detector then does not take for
// one) and no 0/O or 1/I pairs. What a model gets wrong when copying a
// longer token (a character dropped, doubled or changed) fails
// authentication: the pseudonym stays as it is and is counted.
//
// A sealed token is 29 characters plus 1.6 per byte of value (an email of
// 20 bytes: 61), against 12 for a stored one: the price of carrying the
// value instead of pointing at it.

const (
	sealedVersion  = 1
	sealedHasEpoch = 1 // format bit: an epoch start follows the key id
	sealedHeader   = 2 // format and key id
	sivSize        = 16
	// MaxSealedValue is the longest value (in bytes) sealed into a
	// pseudonym. A longer one would give a token of over 1,700 characters,
	// more than a model reliably copies back; it is redacted instead
	// (SealedStats.TooLong). Emails, phone numbers, IBANs, cards,
	// addresses and most tokens and keys are far shorter.
	MaxSealedValue = 1024
	maxSealedBytes = sealedHeader + binary.MaxVarintLen64 + sivSize + MaxSealedValue
	// sealedTokenMin and sealedTokenMax bound a sealed token's length in
	// characters: an empty value without epoch, and the longest value
	// with the longest epoch.
	sealedTokenMin = (8*(sealedHeader+sivSize) + 4) / 5
	sealedTokenMax = (8*maxSealedBytes + 4) / 5
	// minSealedTTL is the shortest TTL a sealed pseudonym honours: epochs
	// are whole seconds, at least one, and a token must live at least
	// half its TTL.
	minSealedTTL = 2 * time.Second
)

// isSealedTokenLen: n characters can be a sealed token: within the bounds,
// and a length unpadded base32 produces (not 1, 3 or 6 modulo 8).
func isSealedTokenLen(n int) bool {
	if n < sealedTokenMin || n > sealedTokenMax {
		return false
	}
	switch n % 8 {
	case 1, 3, 6:
		return false
	}
	return true
}

// sealKey is one key of the ring: its id and its AES-SIV instance.
type sealKey struct {
	id  byte
	siv *subtle.AESSIV
}

func newSealKey(key []byte) sealKey {
	// AES-SIV takes 64 bytes (two AES-256 keys, for S2V and for CTR);
	// HKDF gives them from a vault key of any length.
	siv, err := subtle.NewAESSIV(hkdfKey(key, "mcp-privacy sealed pseudonym v1", subtle.AESSIVKeySize))
	if err != nil {
		panic("vault: AES-SIV: " + err.Error()) // only for a bad key length
	}
	return sealKey{id: SealedKeyID(key), siv: siv}
}

// SealedKeyID is the key id a key's sealed tokens carry: derived from the
// key, so the ring needs no configured ids. Two keys of a ring may share
// one (1 in 256); both are then tried, and authentication tells them apart.
func SealedKeyID(key []byte) byte {
	return hkdfKey(key, "mcp-privacy sealed key id v1", 1)[0]
}

// Sealed issues sealed pseudonyms and restores them, and the stored
// pseudonyms of a per-process Vault when it is given one. Its first key
// issues; every key restores (rotation: the new key issues, the old ones
// restore until no live conversation holds their pseudonyms). It keeps no
// state but counters and is safe for concurrent use.
type Sealed struct {
	keys   []sealKey // keys[0] issues
	server string    // server.id, bound like the namespace
	scope  policy.VaultScope
	ttl    time.Duration // 0: tokens carry no epoch and do not expire
	epoch  int64         // epoch length in seconds, with a TTL
	stored *Vault
	now    func() time.Time
	stats  sealedCounters
	// The caches: pseudonyms this instance sealed, by (namespace, label,
	// value), and values it opened, by (namespace, pseudonym). Sealing and
	// opening are deterministic, so a cached answer is the answer; they
	// save the cipher's work (and its allocations) for values that recur,
	// as most do within a conversation. Each holds at most vaultCacheSize
	// entries; they hold values, as the VM's memory does anyway while it
	// transforms a message.
	mu       sync.Mutex
	issued   [vaultCacheSize / 2][2]sealedEntry
	resolved [vaultCacheSize / 2][2]sealedEntry
	seed     cacheSeed
	tick     uint64
}

// sealedEntry is one cached (namespace, label, value, pseudonym): for the
// epoch starting at epoch (Unix seconds; -1: none), last used at tick.
type sealedEntry struct {
	ns, label, value, pseudonym string
	epoch                       int64
	used                        uint64
}

// cacheWay returns the way of set to write an entry to: the one match
// accepts, else an empty one, else the least recently used.
func cacheWay(set *[2]sealedEntry, match func(e *sealedEntry) bool) *sealedEntry {
	for i := range set {
		if set[i].pseudonym != "" && match(&set[i]) {
			return &set[i]
		}
	}
	if set[1].used < set[0].used {
		return &set[1]
	}
	return &set[0]
}

// SealedStats counts what a Sealed did (for privacy_status and
// metrics). Only counts, never values.
type SealedStats struct {
	Issued      uint64 // Pseudonymise calls that sealed a value
	TooLong     uint64 // values longer than MaxSealedValue, redacted instead
	Resolved    uint64 // sealed pseudonyms restored
	Expired     uint64 // authentic sealed pseudonyms past their TTL
	Unauthentic uint64 // sealed-shaped tokens no key of the ring opens for this label and namespace
}

type sealedCounters struct {
	issued, tooLong, resolved, expired, unauthentic atomic.Uint64
}

// NewSealed returns the sealed vault of keys: keys[0] issues, all of
// them restore (duplicates are dropped). cfg gives the scope and the TTL.
// serverID (server.id, manual 2) is bound into every token, so two servers
// sharing a key do not restore each other's pseudonyms, as their tables
// do not (ServerKV). stored, when not nil, is the per-process vault whose
// pseudonyms it restores too (a pseudonym a session issued earlier
// arriving in a stateless request), and issues through with StoreIssuing.
func NewSealed(keys [][]byte, cfg policy.VaultConfig, serverID string, stored *Vault, now func() time.Time) (*Sealed, error) {
	if len(keys) == 0 || len(keys[0]) == 0 {
		return nil, errors.New("sealed vault: no key")
	}
	v := &Sealed{server: serverID, scope: cfg.Scope, stored: stored, now: now, seed: newCacheSeed()}
	seen := map[string]bool{}
	for _, k := range keys {
		if len(k) == 0 || seen[string(k)] {
			continue
		}
		seen[string(k)] = true
		v.keys = append(v.keys, newSealKey(k))
	}
	if ttl := ttlDuration(cfg.TTLSeconds); ttl > 0 {
		v.ttl = max(ttl, minSealedTTL)
		v.epoch = int64(v.ttl / 2 / time.Second)
	}
	return v, nil
}

// Namespace is the vault namespace of a caller, as Vault.Namespace.
func (v *Sealed) Namespace(principalID string) string {
	if v.scope == policy.VaultPerPrincipal {
		return principalID
	}
	return ""
}

// Pseudonymise returns value's sealed pseudonym in ns. Nothing is stored:
// the pseudonym is all a proxy needs to restore it.
func (v *Sealed) Pseudonymise(ns, label, value string) string {
	p, ok := v.seal(ns, label, value)
	if ok {
		v.stats.issued.Add(1)
	} else {
		v.stats.tooLong.Add(1)
	}
	return p
}

// Pseudonym is Pseudonymise without counting (preview_transform).
func (v *Sealed) Pseudonym(ns, label, value string) string {
	p, _ := v.seal(ns, label, value)
	return p
}

// sealedForm is what a value is sealed as. Emails and addresses in lower
// case, as Normalize does, so their spellings share a pseudonym (the tool
// then receives the lower-case spelling; case means nothing in them). Other
// labels are sealed exactly: Normalize drops the separators of numbers,
// which a tool may need, and a sealed pseudonym gives back what it holds.
func sealedForm(label, value string) string {
	switch label {
	case "EMAIL", "MAC_ADDRESS", "IP_ADDRESS":
		return strings.ToLower(value)
	}
	return value
}

// seal returns the sealed pseudonym of value; ok false: too long, and the
// redaction placeholder returned instead.
func (v *Sealed) seal(ns, label, value string) (string, bool) {
	plain := sealedForm(label, value)
	if len(plain) > MaxSealedValue {
		return "[REDACTED:" + label + "]", false
	}
	epoch := int64(-1)
	if v.epoch > 0 {
		now := v.now().Unix()
		epoch = max(0, now-now%v.epoch)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.tick++
	set := &v.issued[cacheSetOf(cacheHash(v.seed, ns, label, plain))]
	e := cacheWay(set, func(e *sealedEntry) bool { return e.value == plain && e.label == label && e.ns == ns })
	if e.pseudonym != "" && e.value == plain && e.label == label && e.ns == ns && e.epoch == epoch {
		e.used = v.tick
		return e.pseudonym, true
	}
	k := &v.keys[0]
	var hb [sealedHeader + binary.MaxVarintLen64]byte
	hb[0], hb[1] = sealedVersion<<4, k.id
	header := hb[:sealedHeader]
	if epoch >= 0 {
		hb[0] |= sealedHasEpoch
		header = binary.AppendUvarint(header, uint64(epoch))
	}
	var adBuf [128]byte
	ad := appendSealedAD(adBuf[:0], header, label, v.server, ns)
	ct, err := k.siv.EncryptDeterministically([]byte(plain), ad)
	if err != nil {
		return "[REDACTED:" + label + "]", false // only for lengths MaxSealedValue excludes
	}
	raw := append(header, ct...)
	out := make([]byte, len(label)+1+tokenEncoding.EncodedLen(len(raw)))
	copy(out, label)
	out[len(label)] = '_'
	tokenEncoding.Encode(out[len(label)+1:], raw)
	p := string(out)
	// plain may be a view of a message's bytes (PseudonymStore).
	*e = sealedEntry{ns: ns, label: label, value: strings.Clone(plain), pseudonym: p, epoch: epoch, used: v.tick}
	return p, true
}

// appendSealedAD is the associated data of a token: its header, then the
// label and the server length-prefixed, then the namespace (so no two
// (label, server, namespace) give the same bytes).
func appendSealedAD(dst, header []byte, label, server, ns string) []byte {
	dst = append(dst, header...)
	for _, f := range [2]string{label, server} {
		dst = binary.AppendUvarint(dst, uint64(len(f)))
		dst = append(dst, f...)
	}
	return append(dst, ns...)
}

// opened is what opening a sealed token gave.
type opened uint8

const (
	openedValue       opened = iota
	openedExpired            // authentic, past its TTL (or without the epoch a TTL needs)
	openedUnauthentic        // malformed, unknown key, or failing authentication
)

// open returns the value of a sealed token in ns under label, and the
// start of its epoch (-1: none).
func (v *Sealed) open(ns, label, token string) (string, int64, opened) {
	var rawBuf [256]byte
	raw, ok := decodeToken(rawBuf[:0], token)
	if !ok || len(raw) < sealedHeader+sivSize || raw[0]>>4 != sealedVersion || raw[0]&0x0f > sealedHasEpoch {
		return "", -1, openedUnauthentic
	}
	n := sealedHeader
	var epochStart uint64
	hasEpoch := raw[0]&sealedHasEpoch != 0
	if hasEpoch {
		e, w := binary.Uvarint(raw[n:])
		if w <= 0 || e > 1<<62 {
			return "", -1, openedUnauthentic
		}
		epochStart, n = e, n+w
	}
	if len(raw)-n < sivSize {
		return "", -1, openedUnauthentic
	}
	var adBuf [128]byte
	ad := appendSealedAD(adBuf[:0], raw[:n], label, v.server, ns)
	for i := range v.keys {
		k := &v.keys[i]
		if k.id != raw[1] {
			continue
		}
		plain, err := k.siv.DecryptDeterministically(raw[n:], ad)
		if err != nil {
			continue
		}
		epoch := int64(-1)
		if hasEpoch {
			epoch = int64(epochStart)
		}
		if v.expired(epoch) {
			return "", epoch, openedExpired
		}
		return string(plain), epoch, openedValue
	}
	return "", -1, openedUnauthentic
}

// expired: with a TTL, a token of the epoch starting at start (Unix
// seconds; -1: a token without epoch, whose age is unknown) is past it:
// more than ttl after its epoch began, so never more than ttl after it was
// issued. An epoch more than one epoch ahead of this clock is refused too
// (clocks of a fleet differ by less than that).
func (v *Sealed) expired(start int64) bool {
	if v.ttl == 0 {
		return false
	}
	now := v.now()
	if start < 0 || start > now.Unix()+v.epoch {
		return true
	}
	return now.Sub(time.Unix(start, 0)) >= v.ttl
}

// decodeToken appends to dst the bytes of an unpadded base32 token, only
// if it is the canonical encoding of them (the bits the last character
// carries beyond the bytes are zero): one byte string, one token.
func decodeToken(dst []byte, token string) ([]byte, bool) {
	if !isSealedTokenLen(len(token)) {
		return nil, false
	}
	n := tokenEncoding.DecodedLen(len(token))
	if extra := len(token)*5 - n*8; extra > 0 {
		c := token[len(token)-1]
		var x byte
		switch {
		case c >= 'A' && c <= 'Z':
			x = c - 'A'
		case c >= '2' && c <= '7':
			x = c - '2' + 26
		default:
			return nil, false
		}
		if x&(1<<extra-1) != 0 {
			return nil, false
		}
	}
	if cap(dst)-len(dst) < n {
		dst = make([]byte, 0, len(dst)+n)
	}
	out := dst[len(dst) : len(dst)+n]
	if m, err := tokenEncoding.Decode(out, []byte(token)); err != nil || m != n {
		return nil, false
	}
	return dst[:len(dst)+n], true
}

// Resolve returns the value a pseudonym stands for in ns: a sealed one
// opened, a stored one looked up in the per-process vault (if any).
func (v *Sealed) Resolve(ns, p string) (string, bool) {
	if !isPseudonym(p) {
		return "", false
	}
	var r Restored
	value, ok := v.resolve(ns, p, &r)
	return value, ok
}

func (v *Sealed) resolve(ns, p string, r *Restored) (string, bool) {
	label, token := SplitPseudonym(p)
	if len(token) == TokenLen {
		if v.stored == nil {
			return "", false
		}
		return v.stored.Resolve(ns, p)
	}
	v.mu.Lock()
	v.tick++
	set := &v.resolved[cacheSetOf(cacheHash(v.seed, ns, p, ""))]
	e := cacheWay(set, func(e *sealedEntry) bool { return e.pseudonym == p && e.ns == ns })
	if e.pseudonym == p && e.ns == ns && !v.expired(e.epoch) {
		e.used = v.tick
		value := e.value
		v.mu.Unlock()
		v.stats.resolved.Add(1)
		return value, true
	}
	v.mu.Unlock()
	value, epoch, res := v.open(ns, label, token)
	switch res {
	case openedValue:
		v.mu.Lock()
		v.tick++
		// p (and label, part of it) may be a view of a message's bytes
		// (PseudonymStore).
		p = strings.Clone(p)
		label = p[:len(label)]
		*cacheWay(set, func(e *sealedEntry) bool { return e.pseudonym == p && e.ns == ns }) = sealedEntry{ns: ns, label: label, value: value, pseudonym: p, epoch: epoch, used: v.tick}
		v.mu.Unlock()
		v.stats.resolved.Add(1)
		return value, true
	case openedExpired:
		v.stats.expired.Add(1)
	default:
		v.stats.unauthentic.Add(1)
		r.Unauthentic++
	}
	return "", false
}

// Restore replaces the pseudonyms of s that resolve in ns and that keep
// accepts, as Vault.Restore; sealed tokens that do not authenticate are
// counted in Restored.Unauthentic as well as Unresolved.
func (v *Sealed) Restore(ns, s string, keep RestoreCheck) (string, Restored) {
	var buf [8]Span
	spans := FindPseudonyms(s, buf[:0])
	if len(spans) == 0 {
		return s, Restored{}
	}
	values := make([]string, len(spans))
	ok := make([]bool, len(spans))
	var r Restored
	for i, sp := range spans {
		values[i], ok[i] = v.resolve(ns, s[sp.Start:sp.End], &r)
	}
	out, counted := RestoreSpans(s, spans, values, ok, keep)
	counted.Unauthentic = r.Unauthentic
	return out, counted
}

// Depseudonymise returns s with every pseudonym that resolves in ns
// replaced by its value, and how many it replaced (privacy_reveal).
func (v *Sealed) Depseudonymise(ns, s string) (string, int) {
	out, r := v.Restore(ns, s, nil)
	return out, r.Resolved
}

// Stats returns the counters.
func (v *Sealed) Stats() SealedStats {
	return SealedStats{
		Issued: v.stats.issued.Load(), TooLong: v.stats.tooLong.Load(), Resolved: v.stats.resolved.Load(),
		Expired: v.stats.expired.Load(), Unauthentic: v.stats.unauthentic.Load(),
	}
}

// StoreIssuing is the per-process vault as a PseudonymStore that restores
// like v: it issues (and previews) stored pseudonyms, and restores sealed
// ones and stored ones alike. For requests whose pseudonyms are not sealed
// (sessions, under vault.mode auto) while sealed pseudonyms may still
// arrive in them. It needs the stored vault NewSealed was given.
func (v *Sealed) StoreIssuing() PseudonymStore {
	if v.stored == nil {
		panic("vault: StoreIssuing of a sealed vault without a stored vault")
	}
	return storeIssuing{v}
}

type storeIssuing struct{ *Sealed }

func (s storeIssuing) Pseudonymise(ns, label, value string) string {
	return s.stored.Pseudonymise(ns, label, value)
}

func (s storeIssuing) Pseudonym(ns, label, value string) string {
	return s.stored.Pseudonym(ns, label, value)
}

func (s storeIssuing) Clock() time.Time { return s.stored.now() }

func (s storeIssuing) PseudonymiseAt(ns, label, value string, now time.Time) string {
	return s.stored.PseudonymiseAt(ns, label, value, now)
}
