package mcp

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/policy"
)

// Hidden primitives look missing (spec 7, hide_denied). A local answer
// can never look exactly like the server's: the server has its own error
// texts, framing (event streams or JSON), headers and latency, none of
// which the plugin can know for every server. So a request naming a
// hidden primitive is not answered locally: it goes upstream naming a
// primitive no server has (its stand-in, below), without its arguments,
// and the server's own "does not exist" answer comes back with the
// stand-in's name replaced by the name the client asked for. Whatever a
// client can observe is then what the server does for a missing name.

// standInPrefix starts every stand-in name. Letters, digits and _ only:
// servers write them into their error texts verbatim, in any escaping.
const standInPrefix = "mcp_privacy_missing_"

// standIn is the name a hidden primitive's request carries upstream: the
// same for a name on every worker VM (the answer may arrive on another
// stream), and a name no server has. A resource URI keeps its scheme, so
// the server answers as for a missing resource of that scheme.
//
// Its hash is keyed with a secret derived from the vault key (which every
// worker VM shares, section 13.3): the name goes back wherever the stand-in
// occurs in the answer, so a client that could compute it would write it
// into what the server echoes (the id, an argument's name) and see that
// changed for a hidden name only.
func (c *Config) standIn(kind policy.Kind, name string) string {
	if c.standInKey == nil {
		key, _ := c.Env.Policy.Vault.ResolveKey(LookupEnv)
		if key == nil {
			key = c.ephemeralKey()
		}
		m := hmac.New(sha256.New, key)
		m.Write([]byte("mcp-privacy stand-in"))
		c.standInKey = m.Sum(nil)
	}
	m := hmac.New(sha256.New, c.standInKey)
	m.Write([]byte(name))
	// 64 bits, always 13 base-36 digits: the stand-in has one length.
	var sum [sha256.Size]byte
	digits := strconv.FormatUint(binary.BigEndian.Uint64(m.Sum(sum[:0]))|1<<63, 36)
	id := standInPrefix + digits
	if kind.Family() == policy.FamilyResources {
		if i := strings.Index(name, "://"); i > 0 && isScheme(name[:i]) {
			return name[:i+3] + id
		}
	}
	return id
}

// isScheme reports whether s is a URI scheme (RFC 3986: a letter, then
// letters, digits, +, - or .).
func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			continue
		}
		return false
	}
	return s != ""
}

// hideAsMissing handles a request for a hidden primitive, j holding its
// denial: it takes rate-limit tokens as a call of a missing primitive of
// that name would (else a limit would tell the two apart), then rewrites
// the request to name the stand-in. j keeps the denial for the audit
// trail; j.standIn marks the request, so that its answer gets the name
// back (answerStandIn).
func (s *Stream) hideAsMissing(doc *jsondoc.Doc, m *Message, t Target, j *judgement) {
	x, matched := s.missing(&j.target)
	j.outcome = OutcomeDenied
	if !s.rateLimitFor(j, RateCall(t, &x, s.id.ID), matched) {
		return
	}
	out, err := s.cfg.pipeline(false, matched, &x.Metadata)
	if err != nil {
		j.fail(transformFailed(err), ErrTransform)
		return
	}
	j.out = out
	s.sendStandIn(doc, m, t, j)
}

// sendStandIn rewrites request m, which names the hidden primitive t, to
// name its stand-in instead. A resource URI the input pipeline turned into
// a hidden one (a pseudonym restored) is sent so too, under the name the
// client wrote: its tokens were taken and its output pipeline chosen as
// for the call the client made.
func (s *Stream) sendStandIn(doc *jsondoc.Doc, m *Message, t Target, j *judgement) {
	params := doc.Get(m.Node, "params")
	doc.SetRaw(params, standInParams(doc, params, t, s.cfg.standIn(t.Kind, t.Name)))
	j.reply, j.outcome, j.standIn = nil, OutcomeDenied, true
}

// standInParams are the params of a hidden primitive's request as it goes
// upstream: the stand-in's name and what a server needs to answer that it
// does not exist, none of the caller's data (arguments become empty).
func standInParams(doc *jsondoc.Doc, params int32, t Target, sub string) []byte {
	var out []byte
	switch t.Method {
	case "tools/call", "prompts/get":
		out = append(out, `{"name":`...)
		out = jsondoc.AppendString(out, sub)
		if doc.Get(params, "arguments") != jsondoc.None {
			out = append(out, `,"arguments":{}`...)
		}
	case "completion/complete":
		ref := doc.Get(params, "ref")
		typ, _ := doc.Str(doc.Get(ref, "type"))
		out = append(out, `{"ref":{"type":`...)
		out = jsondoc.AppendString(out, typ)
		if t.Kind == policy.KindPrompt {
			out = append(out, `,"name":`...)
		} else {
			out = append(out, `,"uri":`...)
		}
		out = jsondoc.AppendString(out, sub)
		out = append(out, '}')
		if arg := doc.Get(params, "argument"); arg != jsondoc.None {
			name, _ := doc.Str(doc.Get(arg, "name"))
			out = append(out, `,"argument":{"name":`...)
			out = jsondoc.AppendString(out, name)
			out = append(out, `,"value":""}`...)
		}
	default: // resources/read, subscribe, unsubscribe
		out = append(out, `{"uri":`...)
		out = jsondoc.AppendString(out, sub)
	}
	return append(out, '}')
}

// answerStandIn handles the server's answer to a stand-in request (f), the
// message n of doc: the name the client asked for goes back in place of
// the stand-in, then the output pipeline runs over it like over any
// answer. The name goes into the answer's bytes as the server wrote them,
// so that its spacing and escaping stay the server's (re-serializing an
// edited message would not keep them); a name JSON would escape, or a
// stand-in the server escaped, is replaced in the decoded strings.
func (s *Stream) answerStandIn(doc *jsondoc.Doc, n int32, id string, f *forwarded) {
	sub := s.cfg.standIn(f.kind, f.name)
	if raw := doc.Raw(n); plainJSON(f.name) && bytes.Contains(raw, []byte(sub)) {
		if msg, err := jsondoc.Parse(bytes.ReplaceAll(raw, []byte(sub), []byte(f.name))); err == nil {
			s.transformResponse(msg, jsondoc.Root, id, f)
			doc.SetRaw(n, msg.Bytes())
			return
		}
	}
	unhide(doc, n, sub, f.name)
	s.transformResponse(doc, n, id, f)
}

// plainJSON reports whether s is written as itself inside a JSON string
// (printable ASCII but " and \), at any depth of JSON in JSON.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// unhide puts the name the client asked for back in place of the stand-in
// in every string of message n.
func unhide(doc *jsondoc.Doc, n int32, sub, name string) {
	var walk func(int32)
	walk = func(v int32) {
		switch doc.Kind(v) {
		case jsondoc.String:
			if s, ok := doc.Str(v); ok && strings.Contains(s, sub) {
				doc.SetString(v, strings.ReplaceAll(s, sub, name))
			}
		case jsondoc.Object, jsondoc.Array:
			for c := doc.First(v); c != jsondoc.None; c = doc.Next(c) {
				walk(c)
			}
		}
	}
	walk(n)
}

// missing is the hidden primitive as if the server did not have it, and
// the rules that match the caller for it: what the configuration says of
// the name, nothing learned from the server's lists (a missing primitive
// was never listed).
func (s *Stream) missing(hidden *policy.Primitive) (policy.Primitive, []*policy.Rule) {
	x := policy.Primitive{Kind: hidden.Kind, Name: hidden.Name, URI: hidden.URI}
	x.Metadata = s.cfg.Env.Server.Metadata(x.Kind, x.Name, policy.Metadata{})
	return x, s.cfg.Env.Policy.Match(&s.id.Principal, &x)
}
