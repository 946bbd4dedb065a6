package mcp

import (
	judging "github.com/cloudg/mcp-privacy/internal/catalog"
	"math"
	"os"
	"strings"
	"time"

	"github.com/cloudg/mcp-privacy/internal/entropy"
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

// transformer is a VM's transform state: the engine (detectors, vault,
// hash key) and the pipelines compiled so far. It is built on first use,
// not at configuration, so that every worker VM finds the ephemeral key
// the first one stored (see vaultKey).
type transformer struct {
	engine *transforms.Engine
	vault  *vault.Vault
	// sealed issues sealed pseudonyms (manual 13: any proxy holding the key
	// restores them) for the requests vault.mode seals, and restores both
	// kinds for every request.
	sealed *vault.Sealed
	// keyConfigured: the key is configured, not this process's random one.
	keyConfigured bool
	keySource     string
	// keyFingerprint identifies the key without revealing it (manual 13).
	keyFingerprint string
	// pipelines caches compiled pipelines by the rules and hints that
	// shape them: resolving and compiling per call would cost more than
	// running them.
	pipelines map[string]*transforms.Pipeline
	// unshaped are the output [0] and input [1] pipelines of a call no
	// rule matches and no hints shape (most calls, and most listed
	// tools), once compiled: found without a map lookup.
	unshaped [2]*transforms.Pipeline
	// tasks seals task handles (tasks.go).
	tasks *taskSealer
	err   error
}

// maxPipelines bounds the cache: it is keyed by matched rules and hints,
// which a policy bounds, but hints come from servers.
const maxPipelines = 512

// lookupEnv reads the VM's environment (Envoy passes the vault key with
// vm_config.environment_variables); tests replace it.
var lookupEnv = os.LookupEnv

// transforms returns the VM's transform state, building it once.
func (c *Config) transforms() (*transformer, error) {
	if c.caches.tr != nil {
		return c.caches.tr, c.caches.tr.err
	}
	p := c.Env.Policy
	t := &transformer{pipelines: map[string]*transforms.Pipeline{}}
	c.caches.tr = t
	key, source := p.Vault.ResolveKey(lookupEnv)
	if key == nil {
		key = c.ephemeralKey()
	}
	t.keySource, t.keyFingerprint = source, policy.KeyFingerprint(key)
	var kv vault.KV = vault.NewMemoryKV()
	if c.catalog.Shared != nil {
		kv = c.catalog.Shared
	}
	t.vault = vault.New(key, p.Vault, vault.ServerKV(kv, c.Env.Server.ID), time.Now)
	t.keyConfigured = source != policy.KeySourceEphemeral
	keys := [][]byte{key}
	for _, pk := range p.Vault.ResolvePreviousKeys(lookupEnv) {
		if pk.Key != nil {
			keys = append(keys, pk.Key)
		}
	}
	t.tasks = newTaskSealer(keys...)
	if t.sealed, t.err = vault.NewSealed(keys, p.Vault, c.Env.Server.ID, t.vault, time.Now); t.err != nil {
		return t, t.err
	}
	t.engine, t.err = transforms.NewEngine(p, t.sealed.StoreIssuing(), key)
	return t, t.err
}

// ephemeralKey is the process's random vault key when none is configured
// (manual 13: pseudonyms then change at restart). It lives in shared data so
// that every worker VM of the Envoy uses the same one; the first VM to
// need it stores it.
func (c *Config) ephemeralKey() []byte {
	fresh := make([]byte, 32)
	if err := entropy.Read(fresh); err != nil {
		panic("mcp-privacy: no randomness for an ephemeral vault key: " + err.Error())
	}
	sh := c.catalog.Shared
	if sh == nil {
		return fresh
	}
	k := c.catalog.sharedKey("vault-ephemeral-key")
	for range 8 {
		v, cas, ok := sh.Get(k)
		if ok && len(v) == 32 {
			return v
		}
		if !ok {
			// Envoy creates a missing key whatever the CAS, and refuses
			// this one once another VM has created it: the first key
			// stored wins, and every VM reads that one.
			cas = math.MaxUint32
		}
		if !sh.Set(k, fresh, cas) && !ok {
			if _, _, exists := sh.Get(k); !exists {
				sh.Set(k, fresh, 0) // a store that refuses CAS on a missing key
			}
		}
	}
	return fresh
}

// Warnings are logged at configuration: an ephemeral vault key, and
// vault.path, which only a host with a filesystem (mcp-privacy serve)
// honours (manual 13).
func (c *Config) Warnings() []string {
	var w []string
	v := &c.Env.Policy.Vault
	if _, source := v.ResolveKey(lookupEnv); source == policy.KeySourceEphemeral {
		w = append(w, "mcp-privacy: no vault key (vault.key, or the environment variable "+v.KeyEnv+
			" passed with vm_config.environment_variables): using a random key; pseudonyms change when Envoy restarts")
	}
	if _, persisted := lookupEnv("MCP_PRIVACY_VAULT_FILE_HOST"); v.Path != "" && !persisted {
		w = append(w, "mcp-privacy: vault.path is not supported under Envoy (the VM has no filesystem): "+
			"the vault lives in shared data and is lost when Envoy restarts; mcp-privacy serve persists it")
	}
	blocks := []*policy.Detection{c.Env.Policy.Detection}
	for _, r := range c.Env.Policy.Rules {
		blocks = append(blocks, r.Detection)
	}
	for _, d := range blocks {
		if d == nil {
			continue
		}
		for _, dc := range d.Dictionaries {
			if dc.File != "" && !dc.FileRead {
				w = append(w, "mcp-privacy: "+dc.Path+".file is not read under Envoy (the VM has no filesystem): "+
					"dictionary "+dc.Name+" has only its inline terms")
			}
		}
	}
	return w
}

// pipeline returns the compiled output (or input) pipeline for the rules
// M and the primitive's metadata.
func (c *Config) pipeline(input bool, matched []*policy.Rule, meta *policy.Metadata) (*transforms.Pipeline, error) {
	t, err := c.transforms()
	if err != nil {
		return nil, err
	}
	p := c.Env.Policy
	unshaped := len(matched) == 0 && (meta == nil || meta.Hints == nil || !p.HonorsHints(matched))
	if unshaped {
		if pl := t.unshaped[b2i(input)]; pl != nil {
			return pl, nil
		}
	}
	// The key on the stack: a map lookup with string(key) does not
	// allocate, and this runs for every judged call.
	var buf [128]byte
	key := buf[:0]
	if input {
		key = append(key, "in"...)
	} else {
		key = append(key, "out"...)
	}
	for _, r := range matched {
		key = append(append(key, 0), r.Name...)
	}
	if meta != nil && meta.Hints != nil && p.HonorsHints(matched) {
		key = append(append(key, 1), meta.Hints.JSON("")...)
	} else {
		meta = nil
	}
	if pl, ok := t.pipelines[string(key)]; ok {
		if unshaped {
			t.unshaped[b2i(input)] = pl
		}
		return pl, nil
	}
	var entries []policy.PipelineEntry
	if input {
		entries = p.InputPipeline(matched, meta)
	} else {
		entries = p.OutputPipeline(matched, meta)
	}
	pl, err := t.engine.Compile(entries)
	if err != nil {
		return nil, err
	}
	if len(t.pipelines) >= maxPipelines {
		clear(t.pipelines)
	}
	t.pipelines[string(key)] = pl
	if unshaped {
		t.unshaped[b2i(input)] = pl
	}
	return pl, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// newRun starts the transform state of one message for the caller.
func (s *exchange) newRun() *transforms.Run {
	ns := ""
	if s.cfg.Env.Policy.Vault.Scope == policy.VaultPerPrincipal {
		ns = s.id.Principal.ID
	}
	var run *transforms.Run
	if s.usedFirstRun {
		run = new(transforms.Run)
	} else {
		s.usedFirstRun, run = true, &s.firstRun
	}
	run.Namespace = ns
	// Under 2026-07-28 a request has no session to stick to: vault.mode
	// auto seals its pseudonyms so any proxy of a fleet restores them.
	if tr, err := s.cfg.transforms(); err == nil &&
		s.cfg.Env.Policy.Vault.Seals(s.rev == mcpvocab.Rev2026, tr.keyConfigured) {
		run.Store = tr.sealed
	}
	return run
}

// transformStray runs the policy-level output pipeline over a value that
// is no JSON-RPC message (on_parse_error: pass delivers it: what can be
// read of it is still transformed), every string of it as data.
func (s *exchange) transformStray(doc *jsondoc.Doc, n int32) {
	out, err := s.policyOutput()
	if err != nil {
		countError(s.cfg.Metrics, failTransform)
		doc.SetRaw(n, []byte("null"))
		return
	}
	tr, _ := s.cfg.transforms()
	run := s.newRun()
	tr.engine.Apply(out, doc, n, transforms.Arguments, run)
	s.countRun(run)
	if run.Blocked {
		doc.SetRaw(n, []byte("null"))
	}
}

// extraMembers reports whether message n has members beyond those a
// pipeline runs over as its payload (transforms.Envelope reads them the
// same way): jsonrpc, id, and method and params, or error, or result. A
// member of another kind of message (params in a response) is data too.
func extraMembers(doc *jsondoc.Doc, n int32) bool {
	known := 0
	for _, k := range [...]string{"jsonrpc", "id"} {
		if doc.Get(n, k) != jsondoc.None {
			known++
		}
	}
	switch {
	case doc.Kind(doc.Get(n, "method")) == jsondoc.String:
		known++
		if doc.Get(n, "params") != jsondoc.None {
			known++
		}
	case doc.Kind(doc.Get(n, "error")) == jsondoc.Object, doc.Kind(doc.Get(n, "result")) == jsondoc.Object:
		known++
	}
	if k := doc.Kind(doc.Get(n, "id")); k == jsondoc.Object || k == jsondoc.Array {
		return true // an id that is no id (on_parse_error: pass) is data
	}
	return doc.Len(n) > known // counted, not read by key: no allocation
}

// blockedError is -32004 for a result a block step stopped (manual 11).
func (c *Config) blockedError(run *transforms.Run) *policy.RPCError {
	data := append([]byte(`{"policy":`), jsondoc.Quote(c.Env.Policy.Name)...)
	data = append(data, `,"labels":`...)
	data = jsondoc.AppendStrings(data, run.BlockLabels)
	return vocab.NewError(mcpvocab.ErrBlocked, "", rawJSON(append(data, '}')))
}

// transformFailed is the fail-closed answer when a pipeline cannot run.
func transformFailed(err error) *policy.RPCError {
	return rpcError(mcpvocab.ErrInternal, "the privacy filter could not apply its transforms ("+err.Error()+")")
}

// transformRequest runs the input pipeline of an allowed request over what
// it sends the server (manual 8: tools/call and prompts/get arguments,
// resource URIs, completion arguments), ending with the depseudonymiser,
// and picks the output pipeline for its response. A URI the pipeline
// changed is judged again: what the server receives is what was judged.
// A request it cannot let through gets j.reply.
func (s *exchange) transformRequest(doc *jsondoc.Doc, m *message, t target, j *judgement) {
	x := &j.target
	in, err := s.cfg.pipeline(true, j.decision.Matched, &x.Metadata)
	if err != nil {
		j.fail(transformFailed(err), failTransform)
		return
	}
	if j.out, err = s.cfg.pipeline(false, j.decision.Matched, &x.Metadata); err != nil {
		j.fail(transformFailed(err), failTransform)
		return
	}
	tr, _ := s.cfg.transforms()
	run := s.newRun()
	j.in, j.inIDs = run, in.IDs()
	defer s.countRun(run)
	params := doc.Get(m.Node, "params")
	s.transformInputResponses(tr, in, doc, params, run, j) // an MRTR retry's (mrtr.go)
	switch methodOf(s.rev, m.Method).Input {
	case mcpvocab.InputArguments:
		if a := doc.Get(params, "arguments"); a != jsondoc.None {
			applyRestoring(tr, in, doc, a, transforms.Arguments, run, j)
		}
	case mcpvocab.InputCompletion:
		if v := doc.Path(params, "argument", "value"); v != jsondoc.None {
			applyRestoring(tr, in, doc, v, transforms.Text, run, j)
		}
		if a := doc.Path(params, "context", "arguments"); a != jsondoc.None {
			applyRestoring(tr, in, doc, a, transforms.Arguments, run, j)
		}
	case mcpvocab.InputURI:
		u := doc.Get(params, "uri")
		sent, _ := doc.Str(u)
		// With templates known, a value goes back only inside the
		// expressions of the template the URI is an instance of
		// (urirestore.go).
		var ur *uriRestorer
		store := run.Store
		if s.cfg.catalog.model.Templates.Len() > 0 && vault.MayHoldPseudonym(doc.Raw(u)) {
			if store == nil {
				store = tr.sealed.StoreIssuing() // the engine's
			}
			ur = &uriRestorer{PseudonymStore: store, catalog: s.cfg.catalog}
			store, run.Store = run.Store, ur
		}
		applied := tr.engine.Apply(in, doc, u, transforms.Text, run)
		run.Store = store
		if !applied || run.Blocked {
			break
		}
		uri, _ := doc.Str(u)
		j.restored = appendRestored(j.restored, uri, sent)
		if ur != nil {
			if ur.encoded != "" {
				j.restored = appendRestored(j.restored, ur.encoded, sent)
			}
			j.restored = append(j.restored, ur.pairs...)
		}
		if reading := judging.WHATWGReading(uri); reading != "" {
			// As a WHATWG URL reader writes it (the TypeScript SDK quotes
			// that in its not-found error).
			j.restored = appendRestored(j.restored, reading, sent)
		}
		t.Name = uri
		x2, d := s.resolveAndDecide(t)
		if !d.Allowed {
			// The reply names the URI as the client sent it: the one
			// judged holds the values its pseudonyms stand for.
			if x2.Name == uri {
				x2.Name = sent
			}
			if x2.URI == uri {
				x2.URI = sent
			}
			j.target = x2
			j.deny(d.Renamed(uri, sent))
			if d.Hidden {
				s.sendStandIn(doc, m, j.call, j) // looks missing (hidden.go)
			}
			return
		}
	}
	if run.Blocked {
		j.reply, j.outcome = s.cfg.blockedError(run), outcomeBlocked
		j.reason = blockedReason(run)
	}
}

// blockedReason says in an audit entry why a block step fired: the labels,
// never the values.
func blockedReason(run *transforms.Run) string {
	return "blocked by the privacy policy: " + strings.Join(run.BlockLabels, ", ") + " detected"
}

// countRun counts what one transform run found (docs/METRICS.md):
// detections, pseudonyms issued and resolved.
func (s *exchange) countRun(run *transforms.Run) {
	countTransforms(s.cfg.Metrics, run.Detections, run.Pseudonyms, run.Resolved)
}

// transformClientResult runs the policy-level input pipeline over a
// client's answer to a server request (sampling, elicitation, roots).
func (s *exchange) transformClientResult(doc *jsondoc.Doc, m *message) {
	result, idNode := doc.Get(m.Node, "result"), doc.Get(m.Node, "id")
	named := doc.Kind(idNode) == jsondoc.String
	if result == jsondoc.None && !named {
		return
	}
	in, err := s.cfg.pipeline(true, s.cfg.Env.Policy.Match(&s.id.Principal, nil), nil)
	if err != nil {
		countError(s.cfg.Metrics, failTransform)
		doc.SetRaw(m.Node, ErrorResponse(m.ID, transformFailed(err)))
		return
	}
	tr, _ := s.cfg.transforms()
	run := s.newRun()
	if named {
		// The id of the server's request, which went out transformed
		// (transformServerMessage): a pseudonym in it is restored, so the
		// server matches its answer.
		tr.engine.Apply(in, doc, idNode, transforms.Text, run)
	}
	if result != jsondoc.None && !run.Blocked {
		tr.engine.Apply(in, doc, result, transforms.AnyStrings, run)
	}
	s.countRun(run)
	if run.Blocked {
		doc.SetRaw(m.Node, ErrorResponse(m.ID, s.cfg.blockedError(run)))
	}
}

// transformID runs pipeline p over the string id of message n, a server
// request's or a response's no request of this stream explains: the
// server chose it, and like every string it may hold data (manual 8). An
// id a block step stops is removed, and reported.
func (s *exchange) transformID(p *transforms.Pipeline, doc *jsondoc.Doc, n int32, run *transforms.Run) (blocked bool) {
	id := doc.Get(n, "id")
	if doc.Kind(id) != jsondoc.String {
		return false
	}
	tr, _ := s.cfg.transforms()
	tr.engine.Apply(p, doc, id, transforms.Text, run)
	if run.Blocked {
		doc.Delete(id)
		return true
	}
	return false
}

// policyOutput is the output pipeline for what no request names: the
// policy's, with the rules that match the caller without a primitive.
func (s *exchange) policyOutput() (*transforms.Pipeline, error) {
	return s.cfg.pipeline(false, s.cfg.Env.Policy.Match(&s.id.Principal, nil), nil)
}

// transformServerMessage runs the policy-level output pipeline over a
// server request or notification (manual 8: sampling, elicitation, log and
// progress messages): its params read by the schema of its method, and
// any member of its own.
func (s *exchange) transformServerMessage(doc *jsondoc.Doc, n int32, method string) {
	if s.taskNotification(doc, n, method) {
		return // a task, read as a tasks/get result (tasks.go)
	}
	defer s.sealAcknowledged(doc, n, method)() // its taskIds: the client's handles
	params, extra := doc.Get(n, "params"), extraMembers(doc, n)
	if params == jsondoc.None && !extra && doc.Kind(doc.Get(n, "id")) != jsondoc.String {
		return
	}
	out, err := s.policyOutput()
	if err != nil {
		countError(s.cfg.Metrics, failTransform)
		s.withhold(doc, n, "error", "a server message was withheld: the privacy filter could not apply its transforms", nil)
		return
	}
	tr, _ := s.cfg.transforms()
	run := s.newRun()
	// A request's id: the client's answer echoes it, and the input
	// pipeline restores it there (transformClientResult). One a block
	// step stops is removed: the request is withheld as a notification,
	// and the server's request ends at its own timeout.
	if s.transformID(out, doc, n, run) {
		s.countRun(run)
		s.withhold(doc, n, "warning", "a server message was blocked by the privacy policy", run.BlockLabels)
		return
	}
	if params != jsondoc.None {
		// Joined to the stream's previous server message: a value split
		// across two messages (transforms/crossmessage.go).
		kind := transforms.ParamsPayloadAt(s.rev, method, doc.Get(n, "id") != jsondoc.None)
		tr.engine.ApplyMessage(out, doc, params, kind, method, &s.serverTail, run)
	}
	if extra && !run.Blocked {
		tr.engine.Apply(out, doc, n, transforms.Envelope, run)
	}
	s.countRun(run)
	if run.Blocked {
		s.withhold(doc, n, "warning", "a server message was blocked by the privacy policy", run.BlockLabels)
	}
}

// withhold replaces a server message the client must not see. A
// notification becomes a log message saying so. A request (sampling,
// elicitation) keeps its id but becomes a method no client implements,
// so the client answers it with "method not found" and the server's
// request ends with an error instead of waiting for a timeout.
func (s *exchange) withhold(doc *jsondoc.Doc, n int32, level, why string, labels []string) {
	id := doc.Get(n, "id")
	if id == jsondoc.None {
		msg := []byte(`{"jsonrpc":"2.0","method":"` + mcpvocab.NotificationMessage + `","params":{"level":"` + level + `","logger":"mcp-privacy","data":`)
		msg = jsondoc.AppendString(msg, why)
		doc.SetRaw(n, append(msg, "}}"...))
		return
	}
	msg := []byte(`{"jsonrpc":"2.0","id":`)
	msg = doc.AppendValue(msg, id)
	msg = append(msg, `,"method":"mcp-privacy/withheld","params":{"reason":`...)
	msg = jsondoc.AppendString(msg, why)
	msg = append(msg, `,"policy":`...)
	msg = jsondoc.AppendString(msg, s.cfg.Env.Policy.Name)
	msg = append(msg, `,"labels":`...)
	msg = jsondoc.AppendStrings(msg, labels)
	doc.SetRaw(n, append(msg, "}}"...))
}

// transformResponse runs the output pipeline over a response, every
// result and error alike (initialize, lists and ping too): the request's
// pipeline when the response was matched to one (req), the policy-level
// one otherwise. The result is read by the schema of the method it
// answers, or of any method when that is unknown (transforms.AnyResult).
// A block replaces the response with -32004. It returns what became of
// the response (decision "" when no pipeline ran).
func (s *exchange) transformResponse(doc *jsondoc.Doc, n int32, id string, req *forwarded) responseOutcome {
	if req != nil {
		unrestoreError(doc, n, req.restored)
	}
	result, kind := doc.Get(n, "result"), transforms.AnyResult
	switch {
	case doc.Kind(doc.Get(n, "error")) == jsondoc.Object:
		result, kind = doc.Get(n, "error"), transforms.ErrorObject
	case req != nil:
		kind = transforms.ResultPayloadAt(req.rev, req.method)
	}
	extra := extraMembers(doc, n)
	if doc.Kind(result) != jsondoc.Object && !extra {
		return responseOutcome{}
	}
	var out *transforms.Pipeline
	var err error
	if req != nil && req.out != nil {
		out = req.out
	} else {
		out, err = s.policyOutput()
	}
	if err != nil {
		e := transformFailed(err)
		doc.SetRaw(n, ErrorResponse(id, e))
		return responseOutcome{decision: outcomeError, errKind: failTransform, reason: e.Message}
	}
	tr, _ := s.cfg.transforms()
	run := s.newRun()
	if doc.Kind(result) == jsondoc.Object {
		// With its MRTR parts and task handle (mrtr.go, tasks.go).
		if r := s.transformResult(tr, out, doc, result, kind, req, run); r != nil {
			doc.SetRaw(n, ErrorResponse(id, r.err))
			return responseOutcome{decision: r.decision, errKind: r.kind, reason: r.reason}
		}
	}
	if extra && !run.Blocked {
		tr.engine.Apply(out, doc, n, transforms.Envelope, run)
	}
	s.countRun(run)
	o := responseOutcome{decision: outcomeAllowed, run: run, ids: out.IDs()}
	if run.Blocked {
		doc.SetRaw(n, ErrorResponse(id, s.cfg.blockedError(run)))
		o.decision, o.reason = outcomeBlocked, blockedReason(run)
	}
	return o
}

// judgedAs makes the stream act for principal p (the one a request another
// stream forwarded was judged for) until the returned function restores
// the caller. The VM runs one callback at a time.
func (s *exchange) judgedAs(p policy.Principal) func() {
	saved := s.id.Principal
	s.id.Principal = p
	return func() { s.id.Principal = saved }
}

// rebuildOutput recomputes the output pipeline of a request another stream
// forwarded, from the primitive it named, for the principal it was judged
// for (s acts for it, judgedAs); it returns the primitive and the decision
// on it.
func (s *exchange) rebuildOutput(f *forwarded) (policy.Primitive, policy.Decision) {
	if !resultCarriesPrimitive(f.rev, f.method) || f.name == "" {
		return policy.Primitive{Kind: f.kind, Name: f.name}, policy.Decision{}
	}
	x, d := s.resolveAndDecide(target{Method: f.method, Kind: f.kind, Name: f.name, Args: jsondoc.None})
	f.out, _ = s.cfg.pipeline(false, d.Matched, &x.Metadata)
	return x, d
}
