package mcp

import (
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/transforms"
)

// Multi round-trip requests (MRTR, 2026-07-28). A server that needs more
// from the client answers tools/call, prompts/get or resources/read with
// an InputRequiredResult: server requests (elicitation, sampling, roots)
// under inputRequests, and requestState, opaque server state. The client
// retries the request with params.inputResponses, its answers, and
// requestState as it got it. The plugin reads both by shape, whatever the
// request's revision:
//   - inputRequests get what a server request gets (transformServerMessage):
//     the policy-level output pipeline, each request's params read by its
//     method; the rest of the result gets the call's output pipeline;
//   - requestState is never read, either way (transforms/structural.go):
//     the client must echo it exactly, and a server must refuse state it
//     cannot verify, so any rewrite would only break the retry;
//   - inputResponses get the retried call's input pipeline
//     (depseudonymiser, input redaction), as its arguments do; the retry
//     is a request like the first, judged again. A retry of a method that
//     names no primitive gets the policy-level input pipeline, as a
//     client's answer to a server request does (transformClientResult).

// applyResult runs out over result n read as kind, then each part of it
// that a pipeline of its own reads (transforms.Parts): inputRequests get
// the policy-level output pipeline, a task's result and error out, read
// as the result of the request that created the task (task; nil: any
// result). An error is a pipeline that cannot be compiled.
func (s *exchange) applyResult(tr *transformer, out *transforms.Pipeline, doc *jsondoc.Doc, n int32, kind transforms.Payload, task *taskRef, run *transforms.Run) error {
	tr.engine.Apply(out, doc, n, kind, run)
	var buf [2]transforms.Part
	for _, p := range transforms.Parts(doc, n, kind, buf[:0]) {
		if run.Blocked {
			return nil
		}
		switch p.Role {
		case transforms.PartInputRequests:
			requests, err := s.policyOutput()
			if err != nil {
				return err
			}
			tr.engine.Apply(requests, doc, p.Node, transforms.InputRequests, run)
		case transforms.PartTaskResult:
			if err := s.applyResult(tr, out, doc, p.Node, task.resultPayload(), task, run); err != nil {
				return err
			}
		case transforms.PartTaskError:
			tr.engine.Apply(out, doc, p.Node, transforms.ErrorObject, run)
		}
	}
	return nil
}

// transformInputResponses runs input pipeline in over the inputResponses
// of a request's params, if it has any, and adds what it restored there
// to j.restored (a server's error may quote it).
func (s *exchange) transformInputResponses(tr *transformer, in *transforms.Pipeline, doc *jsondoc.Doc, params int32, run *transforms.Run, j *judgement) {
	if r := doc.Get(params, "inputResponses"); r != jsondoc.None {
		applyRestoring(tr, in, doc, r, transforms.InputResponses, run, j)
	}
}

// applyRestoring runs in over node n read as kind, and adds to
// j.restored the strings in n whose pseudonyms it restored: every input
// a pseudonym can be restored in, so that no error quoting one goes back
// to the client with the value (restored.go).
func applyRestoring(tr *transformer, in *transforms.Pipeline, doc *jsondoc.Doc, n int32, kind transforms.Payload, run *transforms.Run, j *judgement) {
	sent, before := doc.Raw(n), run.Resolved
	tr.engine.Apply(in, doc, n, kind, run)
	if run.Resolved > before {
		j.restored = restoredStrings(doc, n, sent, j.restored)
	}
}

// judgeOther handles the requests the method table does not judge that
// 2026-07-28 gives something to read: the tasks extension's (tasks.go),
// and an MRTR retry of a method that names no primitive, whose
// inputResponses get the policy-level input pipeline.
func (s *exchange) judgeOther(doc *jsondoc.Doc, m *message, j *judgement) {
	if m.Kind != kindRequest {
		return
	}
	if isTaskMethod(m.Method) {
		s.judgeTask(doc, m, j)
		return
	}
	if m.Method == methodListen {
		s.judgeListen(doc, m, j)
	}
	s.policyInputResponses(doc, doc.Get(m.Node, "params"), j)
}

// policyInputResponses runs the policy-level input pipeline over the
// inputResponses of params, if any.
func (s *exchange) policyInputResponses(doc *jsondoc.Doc, params int32, j *judgement) {
	if doc.Get(params, "inputResponses") == jsondoc.None {
		return
	}
	in, err := s.cfg.pipeline(true, s.cfg.Env.Policy.Match(&s.id.Principal, nil), nil)
	if err != nil {
		j.fail(transformFailed(err), failTransform)
		return
	}
	tr, _ := s.cfg.transforms()
	run := s.newRun()
	s.transformInputResponses(tr, in, doc, params, run, j)
	s.countRun(run)
	if run.Blocked {
		j.reply, j.outcome = s.cfg.blockedError(run), outcomeBlocked
		j.reason = blockedReason(run)
	}
}
