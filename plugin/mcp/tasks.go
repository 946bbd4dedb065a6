package mcp

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strings"
	"sync"

	"github.com/cloudg/mcp-privacy/internal/hmacsha256"
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms"
)

// The tasks extension (io.modelcontextprotocol/tasks, SEP-2663). A server
// may answer tools/call with a CreateTaskResult (resultType "task", a
// taskId); the client then polls tasks/get with the taskId, answers the
// task's inputRequests with tasks/update, and may send tasks/cancel.
// tasks/get carries the tool's result once the task completes, so it must
// get that tool's output pipeline, on whichever Envoy it arrives, with no
// shared state: nothing of the tools/call request is on the Envoy that
// sees the poll.
//
// So the client never sees the server's taskId. The plugin gives it a
// sealed task handle instead: the taskId, the method and the primitive
// the creating request named, encrypted and authenticated (AES-256-GCM
// under a subkey of the vault key) with the principal and the upstream
// server bound as associated data. Any Envoy holding the vault key opens
// it, restores the server's taskId before forwarding, and judges the
// request as a call of that primitive: tasks/get's result gets its
// output pipeline, tasks/update's inputResponses its input pipeline. A
// handle that does not open (tampered, issued to another principal or
// for another server, under another key) is answered as the server
// answers an unknown task (-32602), and never forwarded. The nonce is
// derived from the handle's contents (an HMAC, as in SIV), so one task
// always gets one handle: a client that compares the taskId of a
// tasks/get result with the one it holds finds them equal.

// taskRef is what a sealed task handle carries.
type taskRef struct {
	method string // the request that created the task ("" when unknown)
	name   string // the primitive it named
	id     string // the server's taskId
	// unsealed: a 2026-07-28 request named the task by a taskId that is
	// no handle (never sealed; see judgeTask).
	unsealed bool
}

// resultPayload is how a completed task's result is read: as the result
// of the request that created it (any result when that is unknown).
func (t *taskRef) resultPayload() transforms.Payload {
	if t == nil || t.method == "" {
		return transforms.AnyResult
	}
	return transforms.ResultPayload(t.method)
}

// taskHandlePrefix starts every sealed handle; the rest is base64url
// without padding (characters a model copies without change). The
// version of the handle's contents is its first plaintext byte.
const taskHandlePrefix = "mcpp-task-"

const (
	taskHandleVersion = 1
	taskNonceSize     = 12
)

// taskSealer seals and opens task handles. One per VM (transformer).
type taskSealer struct {
	// keys are the vault key's and each previous key's (vault.
	// previous_keys_env): the first seals, every one opens, so a key
	// rotation leaves live tasks their handles.
	keys []taskKey
	mu   sync.Mutex // guards what follows
	buf  []byte
	// opened and sealed are what this VM opened or sealed lately, by
	// associated data and handle, and by associated data and contents: a
	// client polls one task with one handle, and in the VM, which has no
	// AES instructions, a seal or an open costs tens of microseconds. A
	// cache of the VM alone: any other VM opens a handle as well, only
	// slower. Each is emptied when full (maxKnownTasks).
	opened map[string]taskRef
	sealed map[string]string
}

// maxKnownTasks bounds taskSealer.opened and taskSealer.sealed.
const maxKnownTasks = 256

// (aad is length-prefixed: aad ‖ anything keys no two pairs alike.)

func (ts *taskSealer) knownOpen(aad []byte, handle string) (taskRef, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ref, ok := ts.opened[string(aad)+handle]
	return ref, ok
}

func (ts *taskSealer) knownSeal(aad, pt []byte) (string, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	h, ok := ts.sealed[string(aad)+string(pt)]
	return h, ok
}

func (ts *taskSealer) remember(aad, pt []byte, handle string, ref taskRef) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.opened == nil || len(ts.opened) >= maxKnownTasks || len(ts.sealed) >= maxKnownTasks {
		ts.opened, ts.sealed = make(map[string]taskRef, 8), make(map[string]string, 8)
	}
	ts.opened[string(aad)+handle] = ref
	ts.sealed[string(aad)+string(pt)] = handle
}

// taskKey is one key's handle cipher and synthetic-nonce MAC.
type taskKey struct {
	aead cipher.AEAD
	syn  *hmacsha256.MAC
}

// newTaskSealer is the sealer of the vault key and the previous keys,
// in that order (at least one).
func newTaskSealer(vaultKeys ...[]byte) *taskSealer {
	ts := &taskSealer{}
	for _, vaultKey := range vaultKeys {
		enc, err := hkdf.Key(sha256.New, vaultKey, nil, "mcp-privacy task handle v1", 32)
		if err != nil {
			panic("mcp-privacy: HKDF: " + err.Error()) // only for impossible lengths
		}
		syn, err := hkdf.Key(sha256.New, vaultKey, nil, "mcp-privacy task handle nonce v1", 32)
		if err != nil {
			panic("mcp-privacy: HKDF: " + err.Error())
		}
		block, err := aes.NewCipher(enc)
		if err != nil {
			panic("mcp-privacy: task handle cipher: " + err.Error())
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			panic("mcp-privacy: task handle cipher: " + err.Error())
		}
		ts.keys = append(ts.keys, taskKey{aead: aead, syn: hmacsha256.New(syn)})
	}
	return ts
}

// appendField appends a length-prefixed field: no two field lists give
// the same bytes.
func appendField(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// taskAAD is what a handle is bound to: the upstream server and the
// principal.
func taskAAD(server, principal string) []byte {
	return appendField(appendField(make([]byte, 0, 8+len(server)+len(principal)), server), principal)
}

// nonceFor is the synthetic nonce of plaintext pt under aad and key k.
func (ts *taskSealer) nonceFor(k *taskKey, aad, pt []byte) [taskNonceSize]byte {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.buf = append(append(ts.buf[:0], aad...), pt...)
	var sum [hmacsha256.Size]byte
	k.syn.Sum(&sum, ts.buf)
	return [taskNonceSize]byte(sum[:taskNonceSize])
}

// seal is the handle of task t for principal at server.
func (ts *taskSealer) seal(t taskRef, server, principal string) string {
	pt := appendField(appendField([]byte{taskHandleVersion}, t.method), t.name)
	pt = append(pt, t.id...)
	aad := taskAAD(server, principal)
	if h, ok := ts.knownSeal(aad, pt); ok {
		return h
	}
	k := &ts.keys[0]
	nonce := ts.nonceFor(k, aad, pt)
	sealed := k.aead.Seal(nonce[:], nonce[:], pt, aad)
	handle := taskHandlePrefix + base64.RawURLEncoding.EncodeToString(sealed)
	ts.remember(aad, pt, handle, t)
	return handle
}

// isTaskHandle reports whether s has the form of a sealed handle (it may
// still not open).
func isTaskHandle(s string) bool { return strings.HasPrefix(s, taskHandlePrefix) }

// open returns the task a handle carries if it was sealed with this key
// for principal at server. It bounds no handle's length of its own: a
// server's taskId has none in the protocol, and every handle seal writes
// must open; what a client sends is bounded by gateway.max_request_bytes.
func (ts *taskSealer) open(handle, server, principal string) (taskRef, bool) {
	enc, ok := strings.CutPrefix(handle, taskHandlePrefix)
	if !ok {
		return taskRef{}, false
	}
	aad := taskAAD(server, principal)
	if ref, ok := ts.knownOpen(aad, handle); ok {
		return ref, true
	}
	sealed, err := base64.RawURLEncoding.Strict().DecodeString(enc)
	if err != nil || len(sealed) < taskNonceSize+ts.keys[0].aead.Overhead() {
		return taskRef{}, false
	}
	for i := range ts.keys {
		k := &ts.keys[i]
		pt, err := k.aead.Open(nil, sealed[:taskNonceSize], sealed[taskNonceSize:], aad)
		if err != nil {
			continue
		}
		// Only the handle seal writes for these contents opens: one task,
		// one handle.
		if nonce := ts.nonceFor(k, aad, pt); !bytes.Equal(nonce[:], sealed[:taskNonceSize]) {
			return taskRef{}, false
		}
		ref, ok := readTaskRef(pt)
		if ok {
			ts.remember(aad, pt, handle, ref)
		}
		return ref, ok
	}
	return taskRef{}, false
}

// readTaskRef decodes a handle's plaintext.
func readTaskRef(pt []byte) (taskRef, bool) {
	if len(pt) == 0 || pt[0] != taskHandleVersion {
		return taskRef{}, false
	}
	rest := pt[1:]
	var fields [2]string
	for i := range fields {
		n, w := binary.Uvarint(rest)
		if w <= 0 || n > uint64(len(rest)-w) {
			return taskRef{}, false
		}
		fields[i] = string(rest[w : w+int(n)])
		rest = rest[w+int(n):]
	}
	return taskRef{method: fields[0], name: fields[1], id: string(rest)}, true
}

// isTaskMethod reports whether a client request of method names a task
// by its taskId (the tasks extension's methods).
func isTaskMethod(method string) bool {
	switch method {
	case "tasks/get", "tasks/update", "tasks/cancel":
		return true
	}
	return false
}

// methodListen opens a subscription stream; its notifications.taskIds
// name tasks (judgeListen).
const methodListen = "subscriptions/listen"

// taskNotFound is what a server answers for a task it does not know
// (SEP-2663: -32602): the answer to a handle that does not open.
func taskNotFound() *policy.RPCError {
	return rpcError(mcpvocab.ErrInvalidParams, "task not found")
}

// judgeTask judges tasks/get, tasks/update and tasks/cancel. A sealed
// handle is opened and the server's taskId restored, and the request is
// judged as a call of the primitive that created the task: its output
// pipeline for the result (j.out), its input pipeline over tasks/update's
// inputResponses. A handle that does not open is refused as an unknown
// task. A taskId that is no handle is one the plugin never issued: under
// 2026-07-28 the request goes on as sent (the server's answer for a task
// it does not know, or for a method it does not implement, passes as the
// server gave it), but a task the server does know is withheld as
// unknown, since it is not the client's (a task's result must not leave
// with another pipeline than its tool's), and tasks/update's
// inputResponses get the policy-level input pipeline; under the 2025
// revisions it is a task of their experimental tasks and passes as
// before.
func (s *exchange) judgeTask(doc *jsondoc.Doc, m *message, j *judgement) {
	params := doc.Get(m.Node, "params")
	idNode := doc.Get(params, "taskId")
	handle, ok := doc.Str(idNode)
	if !ok {
		return // the server refuses it as invalid params
	}
	if !isTaskHandle(handle) {
		if s.rev == mcpvocab.Rev2026 {
			// Not a task the plugin issued: the server answers for it as
			// it answers for any task it does not know (or a server
			// without tasks, -32601, for every one), so the request goes
			// on as sent. What it answers for a task it does know is no
			// task of this client's: withheld (transformResult).
			j.task = &taskRef{id: handle, unsealed: true}
			s.policyInputResponses(doc, params, j)
		}
		return
	}
	tr, err := s.cfg.transforms()
	if err != nil {
		j.fail(transformFailed(err), failTransform)
		return
	}
	ref, ok := tr.tasks.open(handle, s.cfg.Env.Server.ID, s.id.ID)
	if !ok {
		j.fail(taskNotFound(), failInvalidParams)
		j.reason = "a task handle that does not open: tampered, or issued to another principal, for another server or under another key"
		return
	}
	if !s.cfg.Env.Gateway.HoldHeaders {
		// Mcp-Name says the handle and has left already: the server would
		// refuse the request for the mismatch (-32020), quoting the
		// restored taskId back. Refused here, saying why.
		j.fail(rpcError(mcpvocab.ErrInternal, "the privacy filter cannot name this task to the server: its Mcp-Name header left before the body was read (gateway.hold_headers is off)"), failInvalidParams)
		return
	}
	matched, meta := s.cfg.Env.Policy.Match(&s.id.Principal, nil), (*policy.Metadata)(nil)
	if ref.name != "" {
		t := target{Method: ref.method, Kind: policyKinds[methodOf(s.rev, ref.method).Target], Name: ref.name, Args: jsondoc.None}
		x, d := s.resolveAndDecide(t)
		j.target, j.call, j.decision = x, t, d
		if !d.Allowed {
			// A primitive the caller may no longer use: its task's
			// results are not theirs either.
			if d.Hidden {
				j.fail(taskNotFound(), failInvalidParams)
				j.outcome, j.reason = outcomeDenied, d.Reason()
			} else {
				j.deny(d)
			}
			return
		}
		matched, meta = d.Matched, &x.Metadata
	}
	if j.out, err = s.cfg.pipeline(false, matched, meta); err != nil {
		j.fail(transformFailed(err), failTransform)
		return
	}
	doc.SetString(idNode, ref.id)
	j.restored = appendTaskID(j.restored, ref.id, handle)
	j.task = &ref
	s.taskName = ref.id
	if doc.Get(params, "inputResponses") == jsondoc.None {
		return
	}
	in, err := s.cfg.pipeline(true, matched, meta)
	if err != nil {
		j.fail(transformFailed(err), failTransform)
		return
	}
	run := s.newRun()
	j.in, j.inIDs = run, in.IDs()
	s.transformInputResponses(tr, in, doc, params, run, j)
	s.countRun(run)
	if run.Blocked {
		j.reply, j.outcome = s.cfg.blockedError(run), outcomeBlocked
		j.reason = blockedReason(run)
	}
}

// taskToSeal finds in result n the taskId the client must get as a
// handle, and the handle: a CreateTaskResult's (resultType "task") for the
// request that created it, and the taskId of the result of a request that
// named its task by a handle (tasks/get). node is None when there is
// none.
func (s *exchange) taskToSeal(tr *transformer, doc *jsondoc.Doc, n int32, req *forwarded) (node int32, handle string) {
	node = doc.Get(n, "taskId")
	id, ok := doc.Str(node)
	if !ok {
		return jsondoc.None, ""
	}
	var ref taskRef
	switch {
	case req != nil && req.task != nil:
		ref = *req.task
	case !doc.StrEquals(doc.Get(n, "resultType"), "task"):
		return jsondoc.None, ""
	case req != nil && !resultCarriesPrimitive(req.rev, req.method):
		// Only a call makes a task (SEP-2663: tools/call); another
		// method's "task" result is read as its result, taskId as a
		// protocol value.
		return jsondoc.None, ""
	case req != nil:
		ref = taskRef{method: req.method, name: req.name}
	}
	// (No request known: the handle names no primitive, and the task's
	// results get the policy-level pipeline, as this result did.)
	ref.id = id
	return node, tr.tasks.seal(ref, s.cfg.Env.Server.ID, s.id.ID)
}

// transformResult runs the output pipeline over a response's result
// (applyResult) and gives the client a sealed handle for the taskId it
// carries (taskToSeal), set once the pipeline ran: the handle is no text
// for the pipeline to read, and the taskId is sealed as the server sent
// it.
func (s *exchange) transformResult(tr *transformer, out *transforms.Pipeline, doc *jsondoc.Doc, n int32, kind transforms.Payload, req *forwarded, run *transforms.Run) *resultRefusal {
	var task *taskRef
	if req != nil {
		task = req.task
	}
	// No task the filter did not issue leaves, whichever tasks method
	// returns it (get, cancel): it is no task of this client's, and its
	// contents would leave by no tool's pipeline. tasks/update answers
	// with an empty acknowledgement, which passes.
	if task != nil && task.unsealed && isTaskMethod(req.method) && req.method != "tasks/update" && kind != transforms.ErrorObject {
		return &resultRefusal{err: taskNotFound(), decision: outcomeError, kind: failInvalidParams,
			reason: "a task the privacy filter did not issue: withheld"}
	}
	node, handle := jsondoc.None, ""
	if kind != transforms.ErrorObject {
		node, handle = s.taskToSeal(tr, doc, n, req)
	}
	if err := s.applyResult(tr, out, doc, n, kind, task, run); err != nil {
		e := transformFailed(err)
		return &resultRefusal{err: e, decision: outcomeError, kind: failTransform, reason: e.Message}
	}
	if handle != "" && !run.Blocked {
		doc.SetString(node, handle)
	}
	return nil
}

// resultRefusal is an answer transformResult gives instead of the server's.
type resultRefusal struct {
	err      *policy.RPCError
	decision outcome
	kind     errorKind
	reason   string
}

// Task notifications. A client may ask for notifications/tasks of the
// tasks it names in a subscriptions/listen request's
// notifications.taskIds: handles, which the plugin opens (a handle that
// does not open refuses the request, as in judgeTask) and replaces with
// the server's taskIds, remembering on the stream which task each is:
// the listen stream is that request's response. On it, the server's
// acknowledgement names the taskIds back, and each notifications/tasks
// carries a task as tasks/get does: its taskId goes out as the client's
// handle, and its result, error and inputRequests get the pipelines a
// tasks/get result gets. A notification for a task the stream was not
// asked about by handle is withheld, as tasks/get of such a task is.

// judgeListen opens the task handles of a subscriptions/listen request,
// and sends each hidden resource it subscribes to as its stand-in (as a
// read of it goes, hidden.go): the server acknowledges, or refuses, as
// for a resource it does not have, and the client's URI goes back in the
// acknowledgement (sealAcknowledged) and in errors (j.restored).
func (s *exchange) judgeListen(doc *jsondoc.Doc, m *message, j *judgement) {
	params := doc.Get(m.Node, "params")
	if uris := doc.Path(params, "notifications", "resourceSubscriptions"); doc.Kind(uris) == jsondoc.Array {
		for c := doc.First(uris); c != jsondoc.None; c = doc.Next(c) {
			uri, ok := doc.Str(c)
			if !ok {
				continue // the server refuses it
			}
			t := target{Method: "resources/read", Kind: policy.KindResource, Name: uri, Args: jsondoc.None}
			if _, d := s.resolveAndDecide(t); d.Allowed || !d.Hidden {
				continue // a visibly denied one's updates are withheld
			}
			sub := s.cfg.standIn(policy.KindResource, uri)
			if s.listenStandIns == nil {
				s.listenStandIns = map[string]string{}
			}
			s.listenStandIns[sub] = uri
			doc.SetString(c, sub)
			j.restored = append(j.restored, restoredPair{sub, uri})
		}
	}
	ids := doc.Path(params, "notifications", "taskIds")
	if doc.Kind(ids) != jsondoc.Array {
		return
	}
	tr, err := s.cfg.transforms()
	if err != nil {
		j.fail(transformFailed(err), failTransform)
		return
	}
	for c := doc.First(ids); c != jsondoc.None; c = doc.Next(c) {
		handle, ok := doc.Str(c)
		if !ok {
			continue // the server refuses it
		}
		if !isTaskHandle(handle) {
			continue // its notifications are withheld (taskNotification)
		}
		ref, ok := tr.tasks.open(handle, s.cfg.Env.Server.ID, s.id.ID)
		if !ok {
			j.fail(taskNotFound(), failInvalidParams)
			j.reason = "a task handle that does not open: tampered, or issued to another principal, for another server or under another key"
			return
		}
		if s.listened == nil {
			s.listened = map[string]taskRef{}
		}
		s.listened[ref.id] = ref
		doc.SetString(c, ref.id)
		j.restored = appendTaskID(j.restored, ref.id, handle)
	}
}

// appendTaskID adds the server's taskId id, restored from handle, to the
// values a server error must not carry back to the client (restored.go),
// in its header form too (the Mcp-Name it went upstream in). An id
// shorter than minRestoredSpan is left: replacing it would rewrite
// unrelated text.
func appendTaskID(out []restoredPair, id, handle string) []restoredPair {
	if len(id) < minRestoredSpan {
		return out
	}
	out = append(out, restoredPair{id, handle})
	return appendHeaderForm(out, encodeHeaderValue(id), id, handle)
}

// noSeal is sealAcknowledged's answer when there is nothing to seal.
func noSeal() {}

// sealAcknowledged finds the taskIds of a
// notifications/subscriptions/acknowledged and returns what sets them to
// the client's handles once the message's pipeline ran.
func (s *exchange) sealAcknowledged(doc *jsondoc.Doc, n int32, method string) func() {
	if method != "notifications/subscriptions/acknowledged" {
		return noSeal
	}
	var hidden []int32 // stand-ins acknowledged
	if uris := doc.Path(doc.Get(n, "params"), "notifications", "resourceSubscriptions"); doc.Kind(uris) == jsondoc.Array && s.listenStandIns != nil {
		for c := doc.First(uris); c != jsondoc.None; c = doc.Next(c) {
			if sub, ok := doc.Str(c); ok && s.listenStandIns[sub] != "" {
				hidden = append(hidden, c)
			}
		}
	}
	unhide := func() {
		for _, c := range hidden {
			sub, _ := doc.Str(c)
			doc.SetString(c, s.listenStandIns[sub])
		}
	}
	ids := doc.Path(doc.Get(n, "params"), "notifications", "taskIds")
	tr, err := s.cfg.transforms()
	if doc.Kind(ids) != jsondoc.Array || err != nil {
		return unhide
	}
	type sealed struct {
		node   int32
		handle string
	}
	var set []sealed
	for c := doc.First(ids); c != jsondoc.None; c = doc.Next(c) {
		if id, ok := doc.Str(c); ok {
			if ref, ok := s.listened[id]; ok { // (others are as the client sent them)
				set = append(set, sealed{c, tr.tasks.seal(ref, s.cfg.Env.Server.ID, s.id.ID)})
			}
		}
	}
	return func() {
		unhide()
		for _, x := range set {
			doc.SetString(x.node, x.handle)
		}
	}
}

// taskNotification transforms a notifications/tasks as a tasks/get result
// of its task (see above) and reports whether it did; a notification
// without a string taskId is left to transformServerMessage.
func (s *exchange) taskNotification(doc *jsondoc.Doc, n int32, method string) bool {
	if method != "notifications/tasks" {
		return false
	}
	params := doc.Get(n, "params")
	idNode := doc.Get(params, "taskId")
	id, ok := doc.Str(idNode)
	tr, err := s.cfg.transforms()
	if !ok || doc.Kind(params) != jsondoc.Object || err != nil {
		return false
	}
	ref, ok := s.listened[id]
	if !ok {
		// Not a task the client named by a handle: not the client's.
		s.withhold(doc, n, "warning", "a task notification for a task the privacy filter did not issue was withheld", nil)
		return true
	}
	out, err := s.policyOutput()
	if ref.name != "" && err == nil {
		t := target{Method: ref.method, Kind: policyKinds[methodOf(s.rev, ref.method).Target], Name: ref.name, Args: jsondoc.None}
		x, d := s.resolveAndDecide(t)
		if !d.Allowed {
			s.withhold(doc, n, "warning", "a task notification for a primitive the caller may not use was withheld", nil)
			return true
		}
		out, err = s.cfg.pipeline(false, d.Matched, &x.Metadata)
	}
	if err != nil {
		countError(s.cfg.Metrics, failTransform)
		s.withhold(doc, n, "error", "a server message was withheld: the privacy filter could not apply its transforms", nil)
		return true
	}
	run := s.newRun()
	handle := tr.tasks.seal(ref, s.cfg.Env.Server.ID, s.id.ID)
	if err := s.applyResult(tr, out, doc, params, transforms.ResultPayload("tasks/get"), &ref, run); err != nil {
		countError(s.cfg.Metrics, failTransform)
		s.withhold(doc, n, "error", "a server message was withheld: the privacy filter could not apply its transforms", nil)
		return true
	}
	if extraMembers(doc, n) && !run.Blocked {
		tr.engine.Apply(out, doc, n, transforms.Envelope, run)
	}
	s.countRun(run)
	if run.Blocked {
		s.withhold(doc, n, "warning", "a server message was blocked by the privacy policy", run.BlockLabels)
		return true
	}
	doc.SetString(idNode, handle)
	return true
}
