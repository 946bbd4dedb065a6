package mcp

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/cloudg/mcp-privacy/internal/hmacsha256"
	"github.com/cloudg/mcp-privacy/internal/ratelimit"
	"github.com/cloudg/mcp-privacy/internal/shareddata"
	"github.com/cloudg/mcp-privacy/policy"
)

// Config is the plugin configuration compiled for the stream handlers,
// shared by every stream of a VM.
//
// NewConfig builds it whole. Package main then binds Metrics and
// Audit.Log to the host (tests replace now too), before the first stream
// starts; nothing changes a Config afterwards. What does change as streams
// run lives behind two pointers, each with its own rules: catalog (what
// list results taught) and caches (what is built on first use: see
// vmCaches).
type Config struct {
	Env *policy.Envelope
	// catalog knows the server's primitives; it learns from list results.
	catalog *catalog
	// limiter holds the rate-limit buckets (manual 9) and Audit the audit
	// trail (manual 14), both in shared data.
	limiter *ratelimit.Limiter
	Audit   *AuditLog
	// Metrics receives the counters (docs/METRICS.md); package main binds
	// them to proxy-wasm metrics.
	Metrics Metrics
	// callMetrics names the calls counter's stats for the policy.
	callMetrics *callMetricTable
	// now is the wall clock in Unix ns (rate limits, audit times,
	// processing time); tests replace it.
	now func() int64
	// caches are built on first use; the pointer never changes.
	caches *vmCaches
	// exports are gateway.export_headers with their fields coded;
	// removeHeaders and removeHeadersBody the request headers a stream on
	// gateway.paths removes at its headers, without and with a body to
	// judge. Built once: every request would build them otherwise. Their
	// capacity is their length, so an append copies them.
	exports                          []exportHeader
	removeHeaders, removeHeadersBody []string
}

// wallClock is the wall clock in Unix ns read with one clock read where
// time.Now makes two (the wall clock and the monotonic one, each a host
// call inside the VM; a request reads the time three times): it keeps
// the wall time of a base instant and adds the monotonic time since. The
// base is read again after a second, so a step of the system clock shows
// within a second.
type wallClock struct{ base atomic.Pointer[clockBase] }

type clockBase struct {
	at   time.Time // with its monotonic reading
	unix int64     // at's wall time, Unix ns
}

func (c *wallClock) now() int64 {
	if b := c.base.Load(); b != nil {
		if d := time.Since(b.at); d >= 0 && d < time.Second {
			return b.unix + int64(d)
		}
	}
	t := time.Now()
	c.base.Store(&clockBase{at: t, unix: t.UnixNano()})
	return t.UnixNano()
}

// exportField is an export_headers field (policy.ExportFields).
type exportField uint8

const (
	exportPrincipal exportField = iota
	exportRoles
	exportMethod
	exportKind
	exportPrimitive
	exportDecision
	exportRule
)

var exportFields = map[string]exportField{
	"principal": exportPrincipal, "roles": exportRoles, "method": exportMethod, "kind": exportKind,
	"primitive": exportPrimitive, "decision": exportDecision, "rule": exportRule,
}

// exportHeader is one export_headers entry.
type exportHeader struct {
	field  exportField
	header string
}

// NewConfig validates a plugin configuration (an envelope, or a bare policy
// or profile name) and compiles it. shared is the host's shared data (nil:
// this VM only).
func NewConfig(data []byte, shared shareddata.Store) (*Config, policy.Errors) {
	env, errs := policy.ParseEnvelope(data, policy.Options{})
	if len(errs) > 0 {
		return nil, errs
	}
	return newConfig(env, shared), nil
}

// decisionMemoMinRules is the number of rules (those the policy names
// and those its profiles and deny lists make) from which decisions are
// memoised.
const decisionMemoMinRules = 16

// newConfig compiles a validated envelope.
func newConfig(env *policy.Envelope, shared shareddata.Store) *Config {
	// The policy no longer changes: its decisions may be remembered,
	// when deciding walks enough rules to cost more than the memo's key
	// and lookup (a policy of a few rules decides faster than it looks
	// the decision up).
	if len(env.Policy.Rules) >= decisionMemoMinRules {
		env.Policy.EnableDecisionMemo()
	}
	cat := newCatalog(&env.Server)
	cat.Shared = shared
	c := &Config{Env: env, catalog: cat, caches: &vmCaches{},
		limiter: ratelimit.New(shared, env.Server.ID), Audit: newAuditLog(shared, env.Server.ID),
		Metrics: NopMetrics{}, now: new(wallClock).now, callMetrics: newCallMetricTable(env.Policy)}
	g := &env.Gateway
	for _, h := range g.ExportHeaders {
		f, ok := exportFields[h.Field]
		if !ok {
			panic("mcp: export_headers field " + h.Field + " unknown") // policy validated them
		}
		c.exports = append(c.exports, exportHeader{field: f, header: h.Header})
		c.removeHeaders = append(c.removeHeaders, h.Header)
	}
	c.removeHeaders = append(c.removeHeaders, "accept-encoding")
	c.removeHeadersBody = append(slices.Clip(c.removeHeaders), "content-length")
	c.removeHeaders = slices.Clip(c.removeHeaders)
	c.removeHeadersBody = slices.Clip(c.removeHeadersBody)
	return c
}

// vmCaches is what a Config's streams build on first use and keep for
// the life of the VM: the transform state (transform.go: keys, vault,
// engine, compiled pipelines), the stand-in key of hidden primitives
// (hidden.go) and what the audit's scrubbing made of short texts
// (record.go). They stay lazy because building them reads the vault key
// (from the environment, or the ephemeral one in shared data) and costs
// what a policy that never transforms, hides or audits should not pay.
//
// Not safe for concurrent use, and not locked: a VM runs one callback at a
// time, so every stream of a Config runs on one thread. Native tests that
// run streams in parallel give each goroutine its own Config (as each
// worker VM has its own), never one Config to several.
type vmCaches struct {
	tr *transformer
	// standInMAC keys the stand-in names of hidden primitives.
	standInMAC *hmacsha256.MAC
	// scrubbed maps short texts to what the audit's scrubbing made of
	// them, forgotten all at once when scrubCacheSize is reached.
	scrubbed map[string]string
	// readings maps tool and prompt names beyond ASCII to their readings
	// (decideReadings), forgotten all at once when readingsCacheSize is
	// reached: a name's readings cost tens of µs in wasm, and calls and
	// lists repeat the same names.
	readings map[string]policy.Readings
	// lists are the last lists filtered (listmemo.go).
	lists listMemo
	// parsed is the request body being judged (exchange.judgeBody, which
	// releases it before it returns), and exported the export_headers
	// values being returned (exchange.exportHeaders, which the caller
	// hands to the host before the next callback): scratch of whichever
	// stream runs, as a VM runs one callback at a time. Not the stream's
	// own: they are 40% of its size, and in the VM each byte of a stream
	// is zeroed when made and counts towards the next collection.
	parsed   parsedBody
	exported [maxInlineExports][2]string
}
