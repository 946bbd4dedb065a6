package mcp

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/internal/hmacsha256"
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/internal/whatwgurl"
	"github.com/cloudg/mcp-privacy/policy"
)

// Hidden primitives look missing (manual 7, hide_denied). A local answer
// can never look exactly like the server's: the server has its own error
// texts, framing (event streams or JSON), headers and latency, none of
// which the plugin can know for every server. So a request naming a
// hidden primitive is not answered locally: it goes upstream naming a
// primitive no server has (its stand-in, below), without its arguments,
// and the server's own "does not exist" answer (an error, or a result that
// carries nothing: notFoundResult) comes back with the stand-in's name
// replaced by the name the client asked for. Whatever a client can
// observe is then what the server does for a missing name. An answer
// with content (the server served the stand-in) never reaches the client.

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
	if c.caches.standInMAC == nil {
		key, _ := c.Env.Policy.Vault.ResolveKey(lookupEnv)
		if key == nil {
			key = c.ephemeralKey()
		}
		sub, err := hkdf.Key(sha256.New, key, nil, "mcp-privacy stand-in v1", 32)
		if err != nil {
			panic("mcp-privacy: stand-in key: " + err.Error()) // only for lengths HKDF cannot give
		}
		c.caches.standInMAC = hmacsha256.New(sub)
	}
	var sum [hmacsha256.Size]byte
	c.caches.standInMAC.Sum(&sum, []byte(name))
	// 64 bits, always 13 base-36 digits: the stand-in has one length.
	digits := strconv.FormatUint(binary.BigEndian.Uint64(sum[:])|1<<63, 36)
	out := standInPrefix + digits
	resource := kind.Family() == policy.FamilyResources
	if prefix, _, ok := c.routedName(kind, name); ok && !resource {
		// A router in front of the servers sends the stand-in where it
		// sends the name: to the same backend, as for a missing name there.
		// (A routed resource keeps its backend+scheme as the scheme of
		// resourceStandIn's URI.)
		out = prefix + out
	}
	skeleton := out
	if resource {
		skeleton = resourceStandIn(name, out, "")
	}
	// Evidence: each character of the name that JSON writers spell in
	// different ways (plainRune), and of a URI each that a WHATWG URL
	// reader percent-encodes in a path, once, closed by _ so that no
	// trimming server drops it. How the server spells them in its answer
	// is how the name is spelt there (respell).
	var evidence []byte
	for _, r := range name {
		if (!plainRune(r) || resource && pathEncoded(r)) && !strings.ContainsRune(skeleton, r) && !bytes.ContainsRune(evidence, r) {
			evidence = utf8.AppendRune(evidence, r)
		}
	}
	if len(evidence) == 0 {
		return skeleton
	}
	ev := "_" + string(evidence) + "_"
	if resource {
		return resourceStandIn(name, out, ev)
	}
	return out + ev
}

// resourceStandIn is the stand-in of resource URI name, from its hash
// part anchor and its evidence ev: a URI of the name's scheme, which a
// WHATWG URL reader (the TypeScript SDK's McpServer, which looks up
// new URL(uri).toString() and quotes that in its not-found error) reads
// as written, so that the server quotes it back as it quotes a missing
// URI (which, being normal, it also quotes as written): scheme://… gets
// the path "/" that reader gives https://…, the evidence goes into the path,
// where the name's percent-encoded characters are encoded alike. A name
// that reader refuses (it throws, whatever the URI) gets a stand-in it
// refuses too: a port that is no number (the host stays the ASCII anchor).
func resourceStandIn(name, anchor, ev string) string {
	i := strings.IndexByte(name, ':')
	if i <= 0 || !isScheme(name[:i]) {
		return anchor + ev // no scheme: no WHATWG reading either
	}
	scheme, rest := name[:i+1], name[i+1:]
	if _, st := whatwgurl.Href(name); st == whatwgurl.Failure {
		// The evidence follows the port, not the host: in the host a
		// character that needs IDNA would be read before the port fails.
		return scheme + "//" + anchor + ":_" + ev
	}
	if !strings.HasPrefix(rest, "//") {
		return scheme + anchor + ev // an opaque path
	}
	return scheme + "//" + anchor + "/" + ev
}

// pathEncoded reports whether a WHATWG URL reader percent-encodes r in a
// path (^: the standard and newer Node.js releases).
func pathEncoded(r rune) bool {
	return r < 0x20 || r > 0x7e || strings.ContainsRune(" \"<>`{}^", r)
}

// plainRune reports whether every JSON writer writes r as itself, at any
// depth of JSON in JSON: printable ASCII but what some escape (" and \
// all, / PHP, < > & ' = Go's and Gson's HTML escaping, + and ` .NET's).
// URI punctuation (? # % ...) is plain: as evidence it would change how
// a server parses the stand-in.
func plainRune(r rune) bool {
	return r >= ' ' && r <= '~' && !strings.ContainsRune("\"\\/<>&'=+`", r)
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

// routedName splits a name an aggregating router in front of the servers
// gave (Envoy's mcp_router: backend__name for tools and prompts,
// backend+scheme://... for resources) into the backend's prefix and the
// name the server behind the router reads. ok is false for a name without
// such a prefix. The router strips the prefix on the way to the server,
// so a server's "not found" names the rest: answerStandIn gives it back as
// the rest of the client's name, as the server would have written it.
//
// Only names of the backends server.router_backends lists count: without
// a router, a stand-in carries nothing of the name.
func (c *Config) routedName(kind policy.Kind, name string) (prefix, rest string, ok bool) {
	prefix, rest, ok = splitRouted(kind, name)
	if !ok || !slices.Contains(c.Env.Server.RouterBackends, strings.TrimRight(prefix, "_+")) {
		return "", "", false
	}
	return prefix, rest, true
}

// splitRouted is routedName for any backend.
func splitRouted(kind policy.Kind, name string) (prefix, rest string, ok bool) {
	if kind.Family() == policy.FamilyResources {
		i := strings.Index(name, "://")
		if i <= 0 || !isScheme(name[:i]) {
			return "", "", false
		}
		if j := strings.IndexByte(name[:i], '+'); j > 0 {
			return name[:j+1], name[j+1:], true
		}
		return "", "", false
	}
	if i := strings.Index(name, "__"); i > 0 {
		return name[:i+2], name[i+2:], true
	}
	return "", "", false
}

// respellStandIn is respell of the stand-in sub of a hidden (kind, name)
// in raw, and, for a routed name, of sub without the router's prefix as
// the rest of the name (what the server behind the router echoes).
func (c *Config) respellStandIn(raw []byte, sub string, kind policy.Kind, name string) ([]byte, bool) {
	out, found := respell(raw, sub, name)
	if prefix, rest, ok := c.routedName(kind, name); ok && strings.HasPrefix(sub, prefix) {
		in := raw
		if found {
			in = out
		}
		if next, ok := respell(in, sub[len(prefix):], rest); ok {
			out, found = next, true
		}
	}
	return out, found
}

// hideAsMissing handles a request for a hidden primitive, j holding its
// denial, as a request naming a missing primitive of that name is
// handled up to the server (else what differs would tell the two apart):
// it takes rate-limit tokens, and the input pipeline runs over its
// arguments, so that a block step refuses them alike and pseudonyms in
// them count as used alike (what the pipeline made of them is then
// dropped); then the request is rewritten to name the stand-in. j keeps
// the denial for the audit trail; j.standIn marks the request, so that
// its answer gets the name back (answerStandIn).
func (s *exchange) hideAsMissing(doc *jsondoc.Doc, m *message, t target, j *judgement) {
	x, matched := s.missing(&j.target)
	j.outcome = outcomeDenied
	if !s.rateLimitFor(j, s.rateCall(t, &x), matched) {
		return
	}
	as := judgement{method: j.method, target: x, call: t, outcome: outcomeAllowed}
	as.decision.Matched = matched
	s.transformRequest(doc, m, t, &as)
	j.in, j.inIDs = as.in, as.inIDs
	if as.reply != nil {
		// Blocked, or the pipeline failed: answered as for a missing name.
		j.reply, j.outcome, j.errKind, j.reason = as.reply, as.outcome, as.errKind, as.reason
		return
	}
	j.out = as.out
	s.sendStandIn(doc, m, t, j)
}

// sendStandIn rewrites request m, which names the hidden primitive t, to
// name its stand-in instead. A resource URI the input pipeline turned into
// a hidden one (a pseudonym restored) is sent so too, under the name the
// client wrote: its tokens were taken and its output pipeline chosen as
// for the call the client made.
func (s *exchange) sendStandIn(doc *jsondoc.Doc, m *message, t target, j *judgement) {
	params := doc.Get(m.Node, "params")
	sub := s.cfg.standIn(t.Kind, t.Name)
	s.cfg.catalog.shareStandIn(standInAnchor(sub), t.Kind, t.Name)
	doc.SetRaw(params, standInParams(s.rev, methodOf(s.rev, t.Method), doc, params, t, sub))
	j.reply, j.outcome, j.standIn, j.standInName = nil, outcomeDenied, true, sub
}

// standInParams are the params of a hidden primitive's request as it goes
// upstream: the stand-in's name and what a server needs to answer that it
// does not exist, none of the caller's data (arguments become empty),
// padded to the length of the params it replaces. Under 2026-07-28 the
// request's _meta goes too, as sent: a server refuses a request without
// its protocol version before it looks the name up.
func standInParams(rev mcpvocab.Revision, method *mcpvocab.Method, doc *jsondoc.Doc, params int32, t target, sub string) []byte {
	var out []byte
	switch method.Input {
	case mcpvocab.InputArguments: // tools/call, prompts/get
		out = append(out, `{"name":`...)
		out = jsondoc.AppendString(out, sub)
		if doc.Get(params, "arguments") != jsondoc.None {
			out = append(out, `,"arguments":{}`...)
		}
	case mcpvocab.InputCompletion:
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
	if meta := doc.Get(params, "_meta"); rev == mcpvocab.Rev2026 && meta != jsondoc.None {
		out = append(out, `,"_meta":`...)
		out = append(out, doc.Raw(meta)...)
	}
	// As long as the params it replaces, by insignificant spaces: a server
	// that refuses bodies over a size (Express's express.json(), 100 KB)
	// refuses the stand-in as it refuses a missing name's request, and
	// takes as long to receive it.
	if pad := len(doc.Raw(params)) - len(out) - 1; pad > 0 {
		out = append(out, bytes.Repeat([]byte{' '}, pad)...)
	}
	return append(out, '}')
}

// answerStandIn handles the server's answer to a stand-in request (f), the
// message n of doc: the name the client asked for goes back in place of
// the stand-in, then the output pipeline runs over it like over any
// answer. The name goes into the answer's bytes as the server wrote them,
// spelt as the server spelt the stand-in (respell), so that the server's
// spacing and escaping stay, in JSON inside its strings too. That is so
// for each shape a server answers a missing name with: an error, or a
// result that carries nothing of a primitive (notFoundResult: the
// TypeScript SDK's McpServer answers an unknown tool with isError: true).
func (s *exchange) answerStandIn(doc *jsondoc.Doc, n int32, id string, f *forwarded) {
	if result := doc.Get(n, "result"); result != jsondoc.None && !notFoundResult(doc, result, methodOf(f.rev, f.method).Result) {
		// The server served the stand-in (a resource template matching
		// any name of its scheme, a tool that takes any name): what it
		// answered is content of a hidden primitive's family, which no
		// caller may read. The answer is the revision's not-found.
		e := policy.MissingError(f.rev, f.kind, f.name, f.name)
		doc.SetRaw(n, mcpvocab.ErrorResponse(id, e))
		return
	}
	sub := s.cfg.standIn(f.kind, f.name)
	if raw, ok := s.cfg.respellStandIn(doc.Raw(n), sub, f.kind, f.name); ok {
		if msg, err := jsondoc.Parse(raw); err == nil {
			s.transformResponse(msg, jsondoc.Root, id, f)
			s.markCacheScope(msg, jsondoc.Root, f.rev, f.method)
			doc.SetRaw(n, msg.Bytes())
			return
		}
	}
	unhide(doc, n, sub, f.name)
	if prefix, rest, ok := s.cfg.routedName(f.kind, f.name); ok && strings.HasPrefix(sub, prefix) {
		unhide(doc, n, sub[len(prefix):], rest)
	}
	s.transformResponse(doc, n, id, f)
	s.markCacheScope(doc, n, f.rev, f.method)
}

// notFoundResult reports whether result, a server's answer to a stand-in
// request whose result has the shape want, is how that server says it
// does not have the name: a result that carries nothing of a primitive.
// Per the MCP schema (2025-11-25, 2026-07-28):
//
//   - tools/call: isError true, content only text items (the error's
//     words: "Any errors that originate from the tool SHOULD be reported
//     inside the result object, with isError set to true"), no
//     structuredContent. The TypeScript SDK's McpServer answers an
//     unknown tool so (v1 1.32.2, server/mcp.js: "Tool <name> not
//     found" turned into createToolError's result); a result that does
//     not say the call failed says the tool ran, which is no not-found;
//   - prompts/get: no messages (an empty array, or null as Go writes an
//     empty list), and no description, which describes a prompt;
//   - resources/read: no contents (an empty array or null);
//   - completion/complete: a completion without values (an empty array
//     or null, total 0, hasMore false): both TypeScript SDKs' McpServer
//     answer so for a ref they know and have nothing to complete for,
//     and a server whose handler completes nothing for names it lacks
//     answers so for every missing name;
//   - resources/subscribe, unsubscribe: an empty result, the only result
//     they have.
//
// Any result may also carry _meta (the TypeScript SDK v2 puts its
// serverInfo there under 2026-07-28), resultType "complete", and the
// caching hints ttlMs and cacheScope: none is a primitive's content. A
// member beyond these, a value of another type (an object where an array
// belongs, an image item), an InputRequiredResult or a task is a served
// stand-in: content, which the caller gets the not-found error for. The
// stand-in went without the caller's arguments, so what an error result's
// text says is what the server says to any call of a name it lacks.
func notFoundResult(doc *jsondoc.Doc, result int32, want mcpvocab.Result) bool {
	if doc.Kind(result) != jsondoc.Object {
		return false
	}
	failed := false
	for m := doc.First(result); m != jsondoc.None; m = doc.Next(m) {
		switch key := doc.Key(m); {
		case key == "_meta" || key == "ttlMs" && doc.Kind(m) == jsondoc.Number || key == "cacheScope" && doc.Kind(m) == jsondoc.String:
		case key == "resultType":
			if !doc.StrEquals(m, "complete") {
				return false
			}
		case want == mcpvocab.ResultTool && key == "isError":
			if failed = doc.Kind(m) == jsondoc.True; !failed {
				return false
			}
		case want == mcpvocab.ResultTool && key == "content":
			if !onlyTextItems(doc, m) {
				return false
			}
		case want == mcpvocab.ResultPrompt && key == "messages",
			want == mcpvocab.ResultResource && key == "contents":
			if !emptyList(doc, m) {
				return false
			}
		case want == mcpvocab.ResultCompletion && key == "completion":
			if !emptyCompletion(doc, m) {
				return false
			}
		default:
			return false
		}
	}
	switch want {
	case mcpvocab.ResultTool:
		return failed
	case mcpvocab.ResultPrompt, mcpvocab.ResultResource, mcpvocab.ResultCompletion, mcpvocab.ResultEmpty:
		return true
	}
	return false // a method whose result the filter cannot read as empty
}

// notFoundResultOfAny is notFoundResult for a result whose method is not
// known (its request's record is gone): a not-found of any method that
// names a primitive.
func notFoundResultOfAny(doc *jsondoc.Doc, result int32) bool {
	for _, shape := range [...]mcpvocab.Result{mcpvocab.ResultTool, mcpvocab.ResultPrompt, mcpvocab.ResultResource, mcpvocab.ResultCompletion, mcpvocab.ResultEmpty} {
		if notFoundResult(doc, result, shape) {
			return true
		}
	}
	return false
}

// onlyTextItems reports whether content is an array of text items, each
// an object of type "text" with no member but text, annotations and _meta,
// or null.
func onlyTextItems(doc *jsondoc.Doc, content int32) bool {
	if doc.Kind(content) == jsondoc.Null {
		return true
	}
	if doc.Kind(content) != jsondoc.Array {
		return false
	}
	for item := doc.First(content); item != jsondoc.None; item = doc.Next(item) {
		if doc.Kind(item) != jsondoc.Object || !doc.StrEquals(doc.Get(item, "type"), "text") ||
			doc.Kind(doc.Get(item, "text")) != jsondoc.String {
			return false
		}
		for m := doc.First(item); m != jsondoc.None; m = doc.Next(m) {
			switch doc.Key(m) {
			case "type", "text", "annotations", "_meta":
			default:
				return false
			}
		}
	}
	return true
}

// emptyList reports whether v is [] or null (Go's encoding/json writes a
// nil slice so: the go-sdk's results hold their lists in slices).
func emptyList(doc *jsondoc.Doc, v int32) bool {
	return doc.Kind(v) == jsondoc.Null || doc.Kind(v) == jsondoc.Array && doc.First(v) == jsondoc.None
}

// emptyCompletion reports whether c is a completion with no values: no
// member but values (empty), total (0, however written) and hasMore
// (false).
func emptyCompletion(doc *jsondoc.Doc, c int32) bool {
	if doc.Kind(c) != jsondoc.Object {
		return false
	}
	for m := doc.First(c); m != jsondoc.None; m = doc.Next(m) {
		switch doc.Key(m) {
		case "values":
			if !emptyList(doc, m) {
				return false
			}
		case "total":
			if doc.Kind(m) != jsondoc.Number {
				return false
			}
			if total, err := strconv.ParseFloat(string(doc.Raw(m)), 64); err != nil || total != 0 {
				return false
			}
		case "hasMore":
			if doc.Kind(m) != jsondoc.False {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// standInAnchor is the part of stand-in sub that no server spells in its
// own way: the prefix and the hash.
func standInAnchor(sub string) string {
	at := strings.Index(sub, standInPrefix)
	return sub[at : at+len(standInPrefix)+standInDigits]
}

// standInDigits is the length of a stand-in's hash.
const standInDigits = 13

// restoreUnattributed gives its names back to the stand-ins in message n,
// an answer no request this stream or the session's shared records know
// of (its record was overwritten), by the stand-ins' own records; the
// message is then processed as restored. It reports whether it did.
func (s *exchange) restoreUnattributed(doc *jsondoc.Doc, n int32) bool {
	raw := doc.Raw(n)
	if s.restoring || !bytes.Contains(raw, []byte(standInPrefix)) {
		return false
	}
	out := raw
	for i := bytes.Index(raw, []byte(standInPrefix)); i >= 0; {
		end := i + len(standInPrefix) + standInDigits
		if end > len(raw) {
			break
		}
		if kind, name, ok := s.cfg.catalog.standInName(string(raw[i:end])); ok {
			if result := doc.Get(n, "result"); result != jsondoc.None && !notFoundResultOfAny(doc, result) {
				// A served stand-in, as in answerStandIn.
				e := policy.MissingError(s.rev, kind, name, name)
				doc.SetRaw(n, mcpvocab.ErrorResponse(doc.ValueString(doc.Get(n, "id")), e))
				return true
			}
			if next, ok := s.cfg.respellStandIn(out, s.cfg.standIn(kind, name), kind, name); ok {
				out = next
			}
		}
		k := bytes.Index(raw[end:], []byte(standInPrefix))
		if k < 0 {
			break
		}
		i = end + k
	}
	if len(out) == len(raw) && &out[0] == &raw[0] {
		return false
	}
	msg, err := jsondoc.Parse(out)
	if err != nil {
		return false
	}
	s.restoring = true
	s.processMessage(msg, jsondoc.Root)
	s.restoring = false
	doc.SetRaw(n, msg.Bytes())
	return true
}

// respell replaces in raw every occurrence of the stand-in sub, however
// the server spelt it, by name spelt the same way: each character of the
// name as the server spelt that character in the stand-in (sub holds all
// of them but those every writer writes as themselves), escapes of JSON in
// JSON included. ok is false when raw holds no stand-in it could read.
func respell(raw []byte, sub, name string) ([]byte, bool) {
	at := strings.Index(sub, standInPrefix)
	anchorEnd := at + len(standInPrefix) + standInDigits
	anchor := []byte(sub[at:anchorEnd])
	before, after := []rune(sub[:at]), []rune(sub[anchorEnd:])
	var out []byte
	done, found := 0, false
	for i := 0; ; {
		k := bytes.Index(raw[i:], anchor)
		if k < 0 {
			break
		}
		p := i + k
		i = p + len(anchor)
		spelt := map[rune]string{}
		end, ok := matchSpelt(raw, i, after, -1, spelt)
		start := p
		if ok && len(before) > 0 {
			ok = false
			for q := p - len(before); q >= done && q >= p-len(before)*16; q-- {
				if _, ok = matchSpelt(raw, q, before, p, spelt); ok {
					start = q
					break
				}
			}
		}
		if !ok {
			continue // a stand-in the server changed: left as it wrote it
		}
		out = append(out, raw[done:start]...)
		for _, r := range name {
			if sp, ok := spelt[r]; ok {
				out = append(out, sp...)
			} else {
				out = utf8.AppendRune(out, r)
			}
		}
		done, i, found = end, end, true
	}
	if !found {
		return nil, false
	}
	return append(out, raw[done:]...), true
}

// matchSpelt matches the characters rs in raw from i, each written as
// itself or as a JSON escape at any depth of JSON in JSON (\", \u00e9,
// \\\/ ...), and records in spelt how each was written. With end >= 0
// the match must end there. It returns where the match ends.
func matchSpelt(raw []byte, i int, rs []rune, end int, spelt map[rune]string) (int, bool) {
	if len(rs) == 0 {
		return i, end < 0 || i == end
	}
	r := rs[0]
	try := func(n int) (int, bool) {
		if n <= 0 || i+n > len(raw) {
			return 0, false
		}
		spelt[r] = string(raw[i : i+n])
		return matchSpelt(raw, i+n, rs[1:], end, spelt)
	}
	if r >= 0x20 && r != '"' && r != '\\' {
		var enc [utf8.UTFMax]byte
		w := utf8.EncodeRune(enc[:], r)
		if bytes.HasPrefix(raw[i:], enc[:w]) {
			if j, ok := try(w); ok {
				return j, true
			}
		}
	}
	// A URI's character percent-encoded, as a WHATWG URL reader writes
	// it: each byte of its UTF-8 as %XX.
	if n := percentSpelt(raw[i:], r); n > 0 {
		if j, ok := try(n); ok {
			return j, true
		}
	}
	run := 0
	for i+run < len(raw) && raw[i+run] == '\\' {
		run++
	}
	if run == 0 {
		return 0, false
	}
	if r == '\\' {
		// A backslash is 2, 4, 8... backslashes, by depth.
		for k := 2; k <= run; k *= 2 {
			if j, ok := try(k); ok {
				return j, true
			}
		}
	}
	// An escape at depth d of JSON in JSON: each depth doubles the
	// backslashes, and escapes the letter too if it is one that depth's
	// writer escapes (" always, / for some): 2^(d-1) or 2^d - 1
	// backslashes, then the letter.
	if run&(run-1) != 0 && run&(run+1) != 0 {
		return 0, false
	}
	e := i + run
	if e < len(raw) && raw[e] == shortEscape(r) {
		if j, ok := try(run + 1); ok {
			return j, true
		}
	}
	hi, lo := r, rune(-1)
	if r > 0xffff {
		hi, lo = utf16.EncodeRune(r)
	}
	n := escapedUnit(raw, e, hi)
	if n > 0 && lo >= 0 {
		if m := escapedUnit(raw, e+n+run, lo); m > 0 && bytes.Count(raw[e+n:e+n+run], []byte{'\\'}) == run {
			n += run + m
		} else {
			n = 0
		}
	}
	if n == 0 {
		return 0, false
	}
	return try(run + n)
}

const upperHex = "0123456789ABCDEF"

// percentSpelt is the length of r percent-encoded at the start of b
// (upper-case hex), or 0.
func percentSpelt(b []byte, r rune) int {
	var enc [utf8.UTFMax]byte
	w := utf8.EncodeRune(enc[:], r)
	if len(b) < 3*w {
		return 0
	}
	for k := 0; k < w; k++ {
		if b[3*k] != '%' || b[3*k+1] != upperHex[enc[k]>>4] || b[3*k+2] != upperHex[enc[k]&15] {
			return 0
		}
	}
	return 3 * w
}

// shortEscape is the letter of r's two-character JSON escape (0: none).
func shortEscape(r rune) byte {
	switch r {
	case '"', '\\', '/':
		return byte(r)
	case '\b':
		return 'b'
	case '\f':
		return 'f'
	case '\n':
		return 'n'
	case '\r':
		return 'r'
	case '\t':
		return 't'
	}
	return 0
}

// escapedUnit matches u and four hex digits of the UTF-16 unit c at raw[i:]
// and returns their length (0: no match).
func escapedUnit(raw []byte, i int, c rune) int {
	if i+5 > len(raw) || raw[i] != 'u' {
		return 0
	}
	v, err := strconv.ParseUint(string(raw[i+1:i+5]), 16, 32)
	if err != nil || rune(v) != c {
		return 0
	}
	return 5
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

// withholdHiddenUpdate removes server message n if it is a
// notifications/resources/updated for a resource hidden from the caller,
// and reports whether it did: a server has no updates for a resource it
// does not have. Alone in an event, the message leaves the event without
// data (clients dispatch nothing, and the stream's event ids keep no gap).
// Under 2026-07-28 a visibly denied resource's updates are withheld too:
// the subscription came in a subscriptions/listen request, which names
// its resources in a filter no judgement stood before (under 2025 the
// resources/subscribe naming it was refused).
func (s *exchange) withholdHiddenUpdate(doc *jsondoc.Doc, n int32) bool {
	if !doc.StrEquals(doc.Get(n, "method"), mcpvocab.NotificationResourceUpdated) {
		return false
	}
	uri, ok := doc.Str(doc.Path(n, "params", "uri"))
	if !ok || uri == "" {
		return false
	}
	if _, d := s.resolveAndDecide(target{Method: "resources/read", Kind: policy.KindResource, Name: uri, Args: jsondoc.None}); !d.Hidden &&
		(d.Allowed || s.rev != mcpvocab.Rev2026) {
		return false
	}
	if n == jsondoc.Root {
		doc.SetRaw(n, nil)
	} else {
		doc.Delete(n)
	}
	return true
}

// missing is the hidden primitive as if the server did not have it, and
// the rules that match the caller for it: what the configuration says of
// the name, nothing learned from the server's lists (a missing primitive
// was never listed).
//
// A tool or prompt name beyond ASCII takes the rules of its readings too,
// as an allowed call does (decideReadings): a reading server.primitives
// knows with their metadata, another with the name's.
func (s *exchange) missing(hidden *policy.Primitive) (policy.Primitive, []*policy.Rule) {
	x := policy.Primitive{Kind: hidden.Kind, Name: hidden.Name, URI: hidden.URI}
	srv := &s.cfg.Env.Server
	x.Metadata = srv.Metadata(x.Kind, x.Name, policy.Metadata{})
	p := s.cfg.Env.Policy
	matched := p.Match(&s.id.Principal, &x)
	if x.Kind == policy.KindTool || x.Kind == policy.KindPrompt {
		for _, r := range (vmCatalog{s.cfg}).ReadingsOf(x.Name).Names {
			rx := policy.Primitive{Kind: x.Kind, Name: r, Metadata: x.Metadata}
			if srv.Known(x.Kind, r) {
				rx.Metadata = srv.Metadata(x.Kind, r, policy.Metadata{})
			}
			matched = p.UnionRules(matched, p.Match(&s.id.Principal, &rx))
		}
	}
	return x, matched
}
