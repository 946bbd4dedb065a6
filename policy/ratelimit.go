package policy

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/hmacsha256"
)

// rateLimitIdentity is the canonical text of a limit's configuration. With
// the scope key it makes the bucket identity, so a reload that keeps a limit
// keeps its bucket.
func rateLimitIdentity(l *RateLimit) string {
	var b strings.Builder
	b.WriteString(strconv.FormatFloat(l.Rate, 'g', -1, 64))
	b.WriteString("/" + l.Per.String())
	b.WriteString(" burst " + strconv.Itoa(l.Burst))
	b.WriteString(" scope " + l.Scope.String())
	b.WriteString(" tools " + strings.Join(l.Tools.Patterns(), "\x1f"))
	b.WriteString(" kinds " + strconv.Itoa(int(l.Kinds)))
	return b.String()
}

// Covers reports whether the limit applies to a call of kind k naming name
// (a tool or prompt name, a resource URI or template, or for completions
// the ref's name or URI).
func (l *RateLimit) Covers(k Kind, name string) bool {
	if l.Kinds != 0 && !l.Kinds.covers(k) {
		return false
	}
	return l.Tools.Match(name)
}

// String describes the limit, e.g. "10/minute burst 10 per principal_tool".
func (l *RateLimit) String() string {
	return strconv.FormatFloat(l.Rate, 'g', -1, 64) + "/" + l.Per.String() +
		" burst " + strconv.Itoa(l.Burst) + " per " + l.Scope.String()
}

// Call is what rate limits look at: the kind and name of the call and who
// makes it. Kind is KindCompletion for completion/complete.
type Call struct {
	Kind      Kind
	Name      string
	Principal string
	// Readings are the other names a server may read Name as (a tool or
	// prompt name beyond ASCII, manual 6.7): the call takes from the
	// buckets of each as well, since the server may run what a reading
	// names.
	Readings []string
}

// Bucket is one token bucket a call must take a token from.
type Bucket struct {
	Limit *RateLimit
	// ScopeKey is the part of the call that selects the bucket: the
	// principal id, the primitive name, both, or "" for global.
	ScopeKey string
	// Key is the bucket identity: a hash of the limit's configuration and
	// the scope key.
	Key string
}

// String names the bucket for people: where the limit is configured, the
// limit, and the scope key.
func (b Bucket) String() string {
	s := b.Limit.Path + ": " + b.Limit.String()
	if b.ScopeKey != "" {
		s += " [" + strings.ReplaceAll(b.ScopeKey, "\x00", " | ") + "]"
	}
	return s
}

// Buckets returns the buckets covering a call: the policy's limits and
// those of every matched rule, each distinct bucket once; with readings,
// each limit's bucket for the name, then for each reading it covers.
func (p *Policy) Buckets(c Call, matched []*Rule) []Bucket {
	var out []Bucket
	add := func(ls []RateLimit) {
		for i := range ls {
			l := &ls[i]
			out = appendBucket(out, l, c)
			for _, r := range c.Readings {
				rc := c
				rc.Name = r
				out = appendBucket(out, l, rc)
			}
		}
	}
	add(p.RateLimits)
	for _, r := range matched {
		add(r.RateLimits)
	}
	return out
}

// appendBucket appends l's bucket for c when l covers c and out does not
// hold that bucket yet.
func appendBucket(out []Bucket, l *RateLimit, c Call) []Bucket {
	if !l.Covers(c.Kind, c.Name) {
		return out
	}
	b := l.BucketFor(c)
	for _, o := range out {
		if o.Key == b.Key {
			return out
		}
	}
	return append(out, b)
}

// BucketFor is the limit's bucket for a call, whether or not the limit
// covers it (privacy_status shows a caller's principal- and global-scoped
// buckets, whose key does not depend on the primitive).
func (l *RateLimit) BucketFor(c Call) Bucket {
	b := Bucket{Limit: l, ScopeKey: scopeKey(l.Scope, c)}
	b.Key = bucketKey(l, b.ScopeKey)
	return b
}

func scopeKey(s Scope, c Call) string {
	switch s {
	case ScopePrincipal:
		return c.Principal
	case ScopeTool:
		return c.Kind.String() + ":" + c.Name
	case ScopePrincipalTool:
		return c.Principal + "\x00" + c.Kind.String() + ":" + c.Name
	}
	return ""
}

// bucketKey is the hex of the first 16 bytes of SHA-256 over the limit's
// identity, a zero byte and the scope key. It is computed for every
// covering limit of every call, so the input is on the stack (long ones
// allocate) and the digest is hmacsha256's, the fastest in each build.
func bucketKey(l *RateLimit, scopeKey string) string {
	var buf [192]byte
	in := append(append(append(buf[:0], l.config...), 0), scopeKey...)
	sum := hmacsha256.Sum256(in)
	var key [32]byte
	hex.Encode(key[:], sum[:16])
	return string(key[:])
}

// BucketState is a token bucket at an instant. The zero state is a bucket
// never used, which is full.
type BucketState struct {
	Tokens float64
	// Updated is when Tokens was computed, in Unix nanoseconds; 0 = never.
	Updated int64
}

// TokensAt is how many tokens a bucket in state s holds at now.
func (l *RateLimit) TokensAt(s BucketState, now int64) float64 { return l.refill(s, now).Tokens }

// refill returns the state at now: tokens added at the limit's rate since
// the last update, capped at burst. A clock that steps back adds nothing.
func (l *RateLimit) refill(s BucketState, now int64) BucketState {
	burst := float64(l.Burst)
	if s.Updated == 0 {
		return BucketState{Tokens: burst, Updated: now}
	}
	if now > s.Updated {
		elapsed := float64(now-s.Updated) / 1e9
		s.Tokens = math.Min(burst, s.Tokens+elapsed*l.Rate/l.Per.Seconds())
		s.Updated = now
	}
	return s
}

// Take takes one token at time now (Unix nanoseconds). It returns the new
// state, whether a token was taken and, when not, how many seconds until
// one will be there.
func (l *RateLimit) Take(s BucketState, now int64) (next BucketState, ok bool, retryAfter float64) {
	s = l.refill(s, now)
	if s.Tokens >= 1 {
		s.Tokens--
		return s, true, 0
	}
	return s, false, (1 - s.Tokens) * l.Per.Seconds() / l.Rate
}

// Refund gives back a token taken by Take, for a call refused by another
// bucket (a call takes a token from every covering bucket or from none).
func (l *RateLimit) Refund(s BucketState) BucketState {
	s.Tokens = math.Min(float64(l.Burst), s.Tokens+1)
	return s
}

// TakeAll takes a token from every bucket or from none: the pure form of
// the all-or-nothing rule. It returns the new states, whether the call may
// pass, and when refused the index of the first refusing bucket and its
// retry_after in seconds.
func TakeAll(buckets []Bucket, states []BucketState, now int64) (next []BucketState, ok bool, refused int, retryAfter float64) {
	next = make([]BucketState, len(states))
	copy(next, states) // buckets after a refusal stay as they were
	for i, b := range buckets {
		var taken bool
		next[i], taken, retryAfter = b.Limit.Take(states[i], now)
		if !taken {
			for j := 0; j < i; j++ {
				next[j] = buckets[j].Limit.Refund(next[j])
			}
			return next, false, i, retryAfter
		}
	}
	return next, true, -1, 0
}

// RetryAfterSeconds rounds a retry delay up to whole seconds (at least 1),
// as Retry-After and the error data carry it.
func RetryAfterSeconds(s float64) int {
	return max(1, int(math.Ceil(s)))
}
