package mcp

import (
	"strconv"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms"
)

// virtualResult answers an allowed call of a virtual tool (j records what
// privacy_reveal resolved).
func (s *exchange) virtualResult(doc *jsondoc.Doc, t target, j *judgement) ([]byte, *policy.RPCError) {
	switch t.Name {
	case previewTransform:
		return s.previewResult(doc, t.Args)
	case privacyReveal:
		return s.revealResult(doc, t.Args, j)
	}
	return s.statusResult(), nil
}

// previewResult is preview_transform: what the caller would receive if a
// tool (or, without one, any server message) carried this text or JSON.
// Pseudonyms are computed but not stored.
func (s *exchange) previewResult(doc *jsondoc.Doc, args int32) ([]byte, *policy.RPCError) {
	text := doc.Get(args, "text")
	js := doc.Get(args, "json")
	if doc.Kind(text) != jsondoc.String && js == jsondoc.None {
		return nil, badParams("preview_transform needs text (a string) or json")
	}
	if text != jsondoc.None && doc.Kind(text) != jsondoc.String {
		return nil, badParams("text must be a string")
	}
	var out *transforms.Pipeline
	var err error
	if tool, ok := doc.Str(doc.Get(args, "tool")); ok && tool != "" {
		x, d := s.resolveAndDecide(target{Method: "tools/call", Kind: policy.KindTool, Name: tool, Args: jsondoc.None})
		switch {
		case d.Allowed:
			out, err = s.cfg.pipeline(false, d.Matched, &x.Metadata)
		case d.Hidden:
			// Previewed as a tool of that name the server does not have,
			// which the caller may ask for: an error here would tell
			// hidden from missing (manual 7).
			mx, matched := s.missing(&x)
			out, err = s.cfg.pipeline(false, matched, &mx.Metadata)
		default:
			return nil, d.Error() // a visible denial: no preview of what one may not call
		}
	} else {
		out, err = s.policyOutput()
	}
	if err != nil {
		return nil, transformFailed(err)
	}
	tr, _ := s.cfg.transforms()
	run := s.newRun()
	run.Preview = true
	var output []byte
	if doc.Kind(text) == jsondoc.String {
		v, _ := doc.Str(text)
		output = jsondoc.AppendString(nil, tr.engine.ApplyText(out, v, run))
	} else {
		sub, perr := jsondoc.Parse(doc.AppendValue(nil, js))
		if perr != nil {
			return nil, badParams("json: " + perr.Error())
		}
		kind := transforms.Arguments
		switch {
		case sub.Kind(jsondoc.Root) == jsondoc.String:
			kind = transforms.Text
		case sub.Get(jsondoc.Root, "content") != jsondoc.None || sub.Get(jsondoc.Root, "structuredContent") != jsondoc.None:
			kind = transforms.ToolResult
		}
		tr.engine.Apply(out, sub, jsondoc.Root, kind, run)
		output = sub.Bytes()
	}
	if run.Blocked {
		output = []byte("null") // a block shows the error, never the data
	}
	st := []byte(`{"output":`)
	st = append(st, output...)
	st = append(st, `,"transforms":`...)
	st = jsondoc.AppendStrings(st, out.IDs())
	st = append(st, `,"detections":`...)
	st = jsondoc.AppendCounts(st, run.Detections)
	st = append(st, `,"pseudonyms":`...)
	st = strconv.AppendInt(st, int64(run.Pseudonyms), 10)
	st = append(st, `,"blocked":`...)
	st = strconv.AppendBool(st, run.Blocked)
	if run.Blocked {
		st = append(st, `,"labels":`...)
		st = jsondoc.AppendStrings(st, run.BlockLabels)
	}
	st = append(st, '}')
	return toolResult(st), nil
}

// revealResult is privacy_reveal: the text with the pseudonyms the vault
// resolves in the caller's namespace replaced by their values. The count
// goes into the call's audit entry and the resolved counter.
func (s *exchange) revealResult(doc *jsondoc.Doc, args int32, j *judgement) ([]byte, *policy.RPCError) {
	text, ok := doc.Str(doc.Get(args, "text"))
	if !ok {
		return nil, badParams("privacy_reveal needs text (a string)")
	}
	tr, err := s.cfg.transforms()
	if err != nil {
		return nil, transformFailed(err)
	}
	revealed, n := tr.sealed.Depseudonymise(s.newRun().Namespace, text)
	j.in = &transforms.Run{Resolved: n}
	s.countRun(j.in)
	st := []byte(`{"text":`)
	st = jsondoc.AppendString(st, revealed)
	st = append(st, `,"resolved":`...)
	st = strconv.AppendInt(st, int64(n), 10)
	st = append(st, '}')
	return toolResult(st), nil
}

// appendTransformStatus adds to privacy_status the caller's pipelines and
// the vault's settings (the key only as its source and fingerprint).
func (s *exchange) appendTransformStatus(st []byte) []byte {
	p := s.cfg.Env.Policy
	matched := p.Match(&s.id.Principal, nil)
	st = append(st, `,"pipelines":{"output":`...)
	st = jsondoc.AppendStrings(st, policy.IDs(p.OutputPipeline(matched, nil)))
	st = append(st, `,"input":`...)
	st = jsondoc.AppendStrings(st, policy.IDs(p.InputPipeline(matched, nil)))
	st = append(st, `},"vault":{"scope":`...)
	st = jsondoc.AppendString(st, p.Vault.Scope.String())
	st = append(st, `,"ttl_seconds":`...)
	if p.Vault.TTLSeconds > 0 {
		st = strconv.AppendFloat(st, p.Vault.TTLSeconds, 'g', -1, 64)
	} else {
		st = append(st, "null"...)
	}
	if tr, err := s.cfg.transforms(); err == nil {
		st = append(st, `,"key_source":`...)
		st = jsondoc.AppendString(st, tr.keySource)
		st = append(st, `,"key_fingerprint":`...)
		st = jsondoc.AppendString(st, tr.keyFingerprint)
	}
	return append(st, '}')
}
