// Package ratelimit enforces a policy's rate limits (manual 9) over the
// host's shared data. The arithmetic is policy's (Buckets, Take, Refund);
// this package keeps the buckets in shared data, where every worker VM of
// an Envoy sees them, and makes a call take a token from every covering
// bucket or from none. It knows calls as policy.Call (what a call is, in
// MCP terms, is the caller's) and nothing of the host.
//
// Slots. Shared data has no delete, so buckets live in a fixed table of
// rateSlots keys. A bucket may live in one of two slots (two choices, from
// its identity hash); each slot holds its bucket's identity, tokens, last
// update and the instant it will be full again. Looking a bucket up reads
// both; a bucket not found claims, in order of preference, an absent slot,
// a slot whose bucket is full by now (forgetting a full bucket loses
// nothing: it would start full anyway), or the slot whose bucket will be
// full soonest. Only that last case loses state, and it errs on the
// permissive side: the evicted bucket starts again full, so it may let up
// to burst extra calls through; it never refuses a call it should have
// let pass. Verdict.LossyEvictions counts such evictions (metric
// mcp_privacy.errors.kind.rate_limit_eviction). With rateSlots slots and
// two choices, that needs thousands of buckets in use at once, not
// refilled yet. One race remains: when the occupant of a bucket's first
// slot turns full while two VMs look the new bucket up, one may claim the
// second slot and the other the first; lookups check the first slot
// first, so the second is used only by calls in flight at that moment
// (at most one per worker, once), which may then pass uncounted.
//
// Concurrency. Each bucket is updated with compare-and-swap. A call first
// reads every covering bucket; if one has no token the call is refused
// and writes nothing (a refused call never holds tokens other calls could
// have used). Otherwise it takes from each bucket in turn, each with CAS,
// re-reading a bucket whose CAS failed; if a bucket ran dry in the
// meantime, the tokens already taken are given back, each with CAS too
// (Refund on the bucket's current state), so the call takes from none.
// The only window where a call holds tokens it may give back is between
// its first and last take.
//
// Creation. A set with CAS 0 is unconditional, and a set of a missing key
// always succeeds whatever the CAS (proxy-wasm-cpp-host
// SharedData::set). A bucket slot is therefore created with a set whose
// CAS is one no current slot is likely to carry: if another VM created
// the slot meanwhile, the set fails (its CAS differs) instead
// of overwriting it (shareddata.Create).
package ratelimit

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/shareddata"
	"github.com/cloudg/mcp-privacy/policy"
)

const (
	rateSlots = 8192
	// casTries bounds the CAS retries of one take on one bucket; beyond
	// it the call is refused (Contended). Each failure means another VM
	// updated the bucket, so this takes more than casTries concurrent
	// updates of one bucket.
	casTries = 256
	// refundTries bounds the retries of a refund; beyond it the token
	// stays taken (the conservative side).
	refundTries = 4096
)

// Limiter enforces rate limits over shared data. It keeps no state of its
// own but the store: one Limiter per VM (or per configuration) sees what
// every other sees.
type Limiter struct {
	shared shareddata.Store
	prefix string // "mcp-privacy|<server.id>|rl|"
}

// New returns a Limiter over shared (nil: a store of this VM only) for the
// server serverID (server.id: bucket state is namespaced by it, under keys
// "mcp-privacy|<server.id>|rl|<slot>", and survives configuration
// reloads).
func New(shared shareddata.Store, serverID string) *Limiter {
	if shared == nil {
		shared = shareddata.NewLocal()
	}
	return &Limiter{shared: shared, prefix: "mcp-privacy|" + serverID + "|rl|"}
}

// Verdict is the outcome of Limiter.Check.
type Verdict struct {
	Allowed bool
	// Buckets is how many buckets covered the call.
	Buckets int
	// Bucket is, for a refused call, the refusing bucket (Bucket.Limit is
	// its limit): when several have no token, the first in check order
	// (the policy's limits, then those of each matched rule).
	Bucket policy.Bucket
	// RetryAfter is, for a refused call, the seconds until Bucket has a
	// token.
	RetryAfter float64
	// Contended is set when the call was refused because a bucket's CAS
	// kept failing (casTries), not because it had no token.
	Contended bool
	// LossyEvictions counts buckets with state that this call evicted
	// from their slot (see Slots in the package comment).
	LossyEvictions int
}

// RetryAfterSeconds is RetryAfter rounded up to whole seconds, at least 1:
// the value of the Retry-After header and of retry_after in the error.
func (v *Verdict) RetryAfterSeconds() int { return policy.RetryAfterSeconds(v.RetryAfter) }

// Limit names the refusing limit as the error data and the manual do
// (section 9): where it is configured and its settings, e.g.
// "rate_limits[1]: 30/minute burst 30 per principal_tool".
func (v *Verdict) Limit() string {
	if v.Bucket.Limit == nil {
		return ""
	}
	return limitPath(v.Bucket.Limit) + ": " + v.Bucket.Limit.String()
}

// limitPath is where a limit is configured, relative to the policy (an
// envelope's limits are under "policy.").
func limitPath(l *policy.RateLimit) string { return strings.TrimPrefix(l.Path, "policy.") }

// Path is where the refusing limit is configured, relative to the policy
// (rate_limits[1], roles.ops.rate_limits[0], ...); "" when none refused.
func (v *Verdict) Path() string {
	if v.Bucket.Limit == nil {
		return ""
	}
	return limitPath(v.Bucket.Limit)
}

// Header is the Retry-After response header of a refused call.
func (v *Verdict) Header() [2]string {
	return [2]string{"retry-after", strconv.Itoa(v.RetryAfterSeconds())}
}

// Check takes a token for call from every bucket covering it (the policy's
// limits and those of the matched rules) or from none, at now (Unix
// nanoseconds). Only allowed calls are checked: a denied call takes
// nothing.
func (l *Limiter) Check(p *policy.Policy, call policy.Call, matched []*policy.Rule, now int64) Verdict {
	if !Apply(p, matched) {
		return Verdict{Allowed: true}
	}
	return l.Take(p.Buckets(call, matched), now)
}

// Apply reports whether any limit may cover a call: the policy has limits,
// or a matched rule has. Check answers allowed without reading shared data
// otherwise; a caller may test it first to spare reading the clock.
func Apply(p *policy.Policy, matched []*policy.Rule) bool {
	if len(p.RateLimits) > 0 {
		return true
	}
	for _, r := range matched {
		if len(r.RateLimits) > 0 {
			return true
		}
	}
	return false
}

// slotRef is a bucket's slot as last read.
type slotRef struct {
	key   string // the shared-data key
	cas   uint32
	state policy.BucketState
	// found: the slot holds this bucket. Otherwise the slot is the one
	// the bucket would claim: absent, or holding another bucket (lossy
	// when that bucket is not full yet).
	found, absent, lossy bool
}

// Take takes a token from every bucket or from none (see Concurrency in
// the package comment).
func (l *Limiter) Take(buckets []policy.Bucket, now int64) Verdict {
	v := Verdict{Allowed: true, Buckets: len(buckets)}
	if len(buckets) == 0 {
		return v
	}
	var buf [4]slotRef
	refs := buf[:0]
	// Read every bucket; if any has no token, refuse without writing.
	refuse := -1
	for i := range buckets {
		ref := l.locate(&buckets[i], now)
		refs = append(refs, ref)
		if _, ok, retry := buckets[i].Limit.Take(ref.state, now); !ok && refuse < 0 {
			refuse, v.RetryAfter = i, retry
		}
	}
	if refuse >= 0 {
		v.Allowed, v.Bucket = false, buckets[refuse]
		return v
	}
	// Take from each in turn.
	for i := range buckets {
		b := &buckets[i]
		for try := 0; ; try++ {
			next, ok, retry := b.Limit.Take(refs[i].state, now)
			if !ok {
				l.refundAll(buckets[:i], now)
				v.Allowed, v.Bucket, v.RetryAfter = false, *b, retry
				return v
			}
			if l.write(&refs[i], b, next) {
				if refs[i].lossy {
					v.LossyEvictions++
				}
				break
			}
			if try == casTries {
				l.refundAll(buckets[:i], now)
				v.Allowed, v.Bucket, v.RetryAfter, v.Contended = false, *b, 1, true
				return v
			}
			refs[i] = l.locate(b, now)
		}
	}
	return v
}

func (l *Limiter) refundAll(taken []policy.Bucket, now int64) {
	for i := range taken {
		l.refund(&taken[i], now)
	}
}

// refund gives back a token taken from b, on the bucket's current state.
// A bucket that lost its slot meanwhile started again full: nothing to
// give back.
func (l *Limiter) refund(b *policy.Bucket, now int64) {
	for range refundTries {
		ref := l.locate(b, now)
		if !ref.found {
			return
		}
		if l.shared.Set(ref.key, encodeBucket(b, b.Limit.Refund(ref.state)), ref.cas) {
			return
		}
	}
}

// write stores a bucket's new state in its slot, with CAS (creating the
// slot if it was absent).
func (l *Limiter) write(ref *slotRef, b *policy.Bucket, s policy.BucketState) bool {
	v := encodeBucket(b, s)
	if ref.absent {
		return shareddata.Create(l.shared, ref.key, v)
	}
	return l.shared.Set(ref.key, v, ref.cas)
}

// locate finds a bucket's slot, or the slot it would claim.
func (l *Limiter) locate(b *policy.Bucket, now int64) slotRef {
	s1, s2 := bucketSlots(b.Key)
	var cand [2]slotRef
	var fullAt [2]int64
	for i, slot := range [2]int{s1, s2} {
		ref := slotRef{key: l.prefix + strconv.Itoa(slot)}
		v, cas, ok := l.shared.Get(ref.key)
		ref.cas = cas
		if !ok {
			ref.absent = true
			cand[i] = ref
			continue
		}
		id, state, full, valid := decodeBucket(v)
		if valid && string(id) == b.Key {
			ref.found, ref.state = true, state
			return ref
		}
		if valid {
			fullAt[i] = full
		} // an unreadable slot is free (fullAt 0)
		cand[i] = ref
	}
	// Not found: claim an absent slot, else one whose bucket is full by
	// now, else the one whose bucket will be full soonest.
	for i := range cand {
		if cand[i].absent {
			return cand[i]
		}
	}
	for i := range cand {
		if fullAt[i] <= now {
			return cand[i]
		}
	}
	i := 0
	if fullAt[1] < fullAt[0] {
		i = 1
	}
	cand[i].lossy = true
	return cand[i]
}

// bucketSlots are a bucket's two slots, from its identity (a hex hash).
func bucketSlots(key string) (int, int) {
	var h [8]byte
	if len(key) >= 16 {
		if _, err := hex.Decode(h[:], []byte(key[:16])); err != nil {
			h = [8]byte{}
		}
	}
	if h == ([8]byte{}) {
		// Not hex (never, from policy): hash the text instead.
		x := fnv64(key)
		binary.BigEndian.PutUint64(h[:], x)
	}
	s1 := int(binary.BigEndian.Uint32(h[0:4]) % rateSlots)
	s2 := int(binary.BigEndian.Uint32(h[4:8]) % rateSlots)
	if s2 == s1 {
		s2 = (s1 + 1) % rateSlots
	}
	return s1, s2
}

func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// A slot value: version, identity length and identity, then tokens
// (float64 bits), updated and full-at (Unix ns), little-endian.
const bucketVersion = 1

func encodeBucket(b *policy.Bucket, s policy.BucketState) []byte {
	out := make([]byte, 0, 2+len(b.Key)+24)
	out = append(out, bucketVersion, byte(len(b.Key)))
	out = append(out, b.Key...)
	out = binary.LittleEndian.AppendUint64(out, math.Float64bits(s.Tokens))
	out = binary.LittleEndian.AppendUint64(out, uint64(s.Updated))
	return binary.LittleEndian.AppendUint64(out, uint64(fullAt(b.Limit, s)))
}

// decodeBucket reads a slot value; id is the bucket identity it holds.
func decodeBucket(v []byte) (id []byte, s policy.BucketState, full int64, ok bool) {
	if len(v) < 2 || v[0] != bucketVersion || len(v) != 2+int(v[1])+24 {
		return nil, s, 0, false
	}
	n := int(v[1])
	id = v[2 : 2+n]
	r := v[2+n:]
	s.Tokens = math.Float64frombits(binary.LittleEndian.Uint64(r))
	s.Updated = int64(binary.LittleEndian.Uint64(r[8:]))
	full = int64(binary.LittleEndian.Uint64(r[16:]))
	if math.IsNaN(s.Tokens) {
		return nil, s, 0, false
	}
	return id, s, full, true
}

// fullAt is when a bucket in state s is full again (Unix ns).
func fullAt(l *policy.RateLimit, s policy.BucketState) int64 {
	missing := float64(l.Burst) - s.Tokens
	if s.Updated == 0 || missing <= 0 {
		return s.Updated
	}
	ns := missing * l.Per.Seconds() / l.Rate * 1e9
	if ns >= float64(math.MaxInt64-s.Updated) {
		return math.MaxInt64
	}
	return s.Updated + int64(math.Ceil(ns))
}

// Headroom is one rate limit as privacy_status shows it to a caller.
type Headroom struct {
	// Path is where the limit is configured, relative to the policy
	// (rate_limits[0], roles.ops.rate_limits[1], ...); Limit describes it.
	Path, Limit string
	Scope       policy.Scope
	Burst       int
	// Remaining is how many calls the caller's bucket would let through
	// now (whole tokens), when Known: for scopes principal and global.
	// Scopes tool and principal_tool have a bucket per primitive.
	Remaining int
	Known     bool
}

// Headroom reads, without taking anything, the limits that can apply to a
// principal: the policy's and those of rules (pass policy.RulesFor: the
// rules whose roles and principals conditions hold for the caller).
func (l *Limiter) Headroom(p *policy.Policy, principal string, rules []*policy.Rule, now int64) []Headroom {
	var out []Headroom
	add := func(ls []policy.RateLimit) {
		for i := range ls {
			lim := &ls[i]
			h := Headroom{Path: limitPath(lim), Limit: lim.String(), Scope: lim.Scope, Burst: lim.Burst}
			if lim.Scope == policy.ScopePrincipal || lim.Scope == policy.ScopeGlobal {
				b := lim.BucketFor(policy.Call{Principal: principal})
				ref := l.locate(&b, now)
				h.Remaining = int(math.Floor(lim.TokensAt(ref.state, now) + 1e-9))
				h.Known = true
			}
			out = append(out, h)
		}
	}
	add(p.RateLimits)
	for _, r := range rules {
		add(r.RateLimits)
	}
	return out
}

// AppendHeadroomJSON appends headroom as a JSON array of {path, limit,
// scope, burst, remaining} (remaining null when the bucket is per
// primitive).
func AppendHeadroomJSON(out []byte, hs []Headroom) []byte {
	out = append(out, '[')
	for i, h := range hs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"path":`...)
		out = jsondoc.AppendString(out, h.Path)
		out = append(out, `,"limit":`...)
		out = jsondoc.AppendString(out, h.Limit)
		out = append(out, `,"scope":`...)
		out = jsondoc.AppendString(out, h.Scope.String())
		out = append(out, `,"burst":`...)
		out = strconv.AppendInt(out, int64(h.Burst), 10)
		out = append(out, `,"remaining":`...)
		if h.Known {
			out = strconv.AppendInt(out, int64(h.Remaining), 10)
		} else {
			out = append(out, "null"...)
		}
		out = append(out, '}')
	}
	return append(out, ']')
}
