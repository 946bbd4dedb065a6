package main

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/internal/mcpvocab"
	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

const previewUsage = `usage: mcp-privacy preview --policy FILE [--principal ID] [--roles a,b] [--tool NAME] [--json | --detections] < INPUT

Prints what the caller would receive if a server sent INPUT (stdin).

INPUT is a tools/call result when it is a JSON object with content or
structuredContent, or a JSON-RPC response whose result is such an object;
anything else (bad JSON included) is plain text, taken byte for byte.

The output pipeline is the caller's for --tool NAME (metadata from the
envelope's server.primitives, as explain resolves it), else the policy's
with the rules that match the caller without a primitive. Pseudonyms are
computed, never stored; the vault key comes from vault.key or the
environment variable vault.key_env as in the proxy, else a random key (with
a warning: pseudonyms then differ from the proxy's). The key is never printed.

Output: the transformed result (JSON) or text; a result a block step stops
prints the -32004 error object the caller would receive instead (inside the
response for a JSON-RPC response). With --json, one object:
  {"output": <result JSON, or text as a string, or the error>,
   "detections": [{"detector", "label", "start", "end", "basis"}],
   "allowed": [{"detector", "label", "start", "end", "basis", "allowed_by"}]}
basis says why a span was reported: pattern, checksum, context, key,
dictionary or name table. allowed lists what the detectors found and an
allow entry of the policy's detection block took away; allowed_by is the
entry's path (detection.allow[0], rules[1].detection.allow[0]).
With --detections (and without --json), the same goes to stderr, one
detection a line: "detector LABEL start-end by basis", or "... allowed by
PATH" (with path for a result: "path: detector ...").
For text, start and end are byte offsets into INPUT. For a result each
detection also has "path", the string it is in (relative to the result,
projection-path syntax: content.0.text, structuredContent.email; a text item
holding JSON continues into it: content.0.text.users.0.email), and start
and end are byte offsets into that string's decoded value. Detections are
what the pipeline's detecting steps find in the input as received (the
union of their selections, overlaps resolved).

Exit status: 0 the preview was printed (a block included); 1 the policy does
not load, the tool is denied to the caller (the denial is printed on
stderr, as explain describes it), stdin cannot be read or the pipeline
cannot run; 2 a usage error.
`

// previewOutput is the --json output of preview; the field names are a
// stable interface for operators' scripts.
type previewOutput struct {
	Output     json.RawMessage    `json:"output"`
	Detections []previewDetection `json:"detections"`
	// Allowed are the detections an allow entry took away (manual
	// 12.9.6), with the entry's path in allowed_by.
	Allowed []previewDetection `json:"allowed"`
}

// previewDetection is one detection: Path is set for result input only.
type previewDetection struct {
	Path     string `json:"path,omitempty"`
	Detector string `json:"detector"`
	Label    string `json:"label"`
	Start    int    `json:"start"`
	End      int    `json:"end"`
	// Basis is why the span was reported: pattern, checksum, context,
	// key, dictionary or name table (manual 12.9.6).
	Basis     string `json:"basis"`
	AllowedBy string `json:"allowed_by,omitempty"`
}

// blockedData is the data of -32004, as the plugin sends it.
type blockedData struct {
	Policy string   `json:"policy"`
	Labels []string `json:"labels"`
}

func preview(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("preview", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, previewUsage)
		fmt.Fprintln(stderr, "\nFlags:")
		fs.PrintDefaults()
	}
	file := fs.String("policy", "", "policy or plugin envelope `FILE` (YAML or JSON)")
	principal := fs.String("principal", "", "principal `ID` (default: the envelope's identity.anonymous_id)")
	roles := fs.String("roles", "", "comma-separated `roles` of the principal")
	tool := fs.String("tool", "", "preview the result of tool `NAME` (default: the policy-level pipeline)")
	asJSON := fs.Bool("json", false, "print one JSON object: output and detections")
	listDetections := fs.Bool("detections", false, "also print the detections, and what allow entries took away, on stderr")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *file == "" || fs.NArg() > 0 {
		fmt.Fprint(stderr, previewUsage)
		return 2
	}
	if set["tool"] && *tool == "" {
		fmt.Fprintln(stderr, "preview: --tool needs a tool NAME")
		return 2
	}

	l, errs := load(*file)
	if len(errs) > 0 {
		printErrors(stderr, *file, errs)
		return 1
	}
	if l.Rules != nil {
		fmt.Fprintf(stderr, "preview: %s has Higress _rules_: preview works on one policy (explain takes --route, --domain, --service)\n", *file)
		return 2
	}
	p := l.Policy
	pr := l.principal(*principal, set["principal"], *roles)

	// The pipeline, picked as the plugin picks it.
	var entries []policy.PipelineEntry
	if set["tool"] {
		x := policy.Primitive{Kind: policy.KindTool, Name: *tool}
		known := false
		if l.Envelope != nil {
			x.Metadata = l.Envelope.Server.Metadata(x.Kind, x.Name, x.Metadata)
			known = l.Envelope.Server.Known(x.Kind, x.Name)
		}
		d := l.decide(&pr, &x, known)
		if !d.Allowed {
			// No preview of what the caller may not call.
			fmt.Fprintf(stderr, "preview: tool %q is denied to principal %q: the caller receives the error below, no result\n", x.Name, pr.ID)
			printDenial(stderr, &d)
			return 1
		}
		entries = p.OutputPipeline(d.Matched, &x.Metadata)
	} else {
		entries = p.OutputPipeline(p.Match(&pr, nil), nil)
	}

	key, _ := p.Vault.ResolveKey(os.LookupEnv)
	if key == nil {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			fmt.Fprintf(stderr, "preview: no randomness for a vault key: %v\n", err)
			return 1
		}
		fmt.Fprintf(stderr, "preview: warning: no vault key (vault.key, or the environment variable %s): "+
			"using a random key; pseudonyms will differ from the proxy's\n", p.Vault.KeyEnv)
	}
	store := vault.New(key, p.Vault, vault.NewMemoryKV(), time.Now)
	engine, err := transforms.NewEngine(p, store, key)
	if err != nil {
		fmt.Fprintf(stderr, "preview: detectors: %v\n", err)
		return 1
	}
	pipeline, err := engine.Compile(entries)
	if err != nil {
		fmt.Fprintf(stderr, "preview: output pipeline %v: %v\n", policy.IDs(entries), err)
		return 1
	}

	input, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "preview: reading stdin: %v\n", err)
		return 1
	}
	run := &transforms.Run{Namespace: store.Namespace(pr.ID), Preview: true}
	out := previewOutput{Detections: []previewDetection{}, Allowed: []previewDetection{}}
	text := "" // the output for text input
	doc, result, note := toolResult(input)
	if note != "" {
		fmt.Fprintf(stderr, "preview: %s; previewing it as plain text\n", note)
	}
	if doc != nil {
		found, allowed := engine.PayloadDetectionsExplained(pipeline, doc, result, transforms.ToolResult)
		for _, d := range found {
			out.Detections = append(out.Detections, previewDetection{Path: d.Path,
				Detector: d.Detector, Label: d.Label, Start: d.Start, End: d.End, Basis: d.Basis.String()})
		}
		for _, d := range allowed {
			out.Allowed = append(out.Allowed, previewDetection{Path: d.Path,
				Detector: d.Detector, Label: d.Label, Start: d.Start, End: d.End, Basis: d.Basis.String(), AllowedBy: d.AllowedBy})
		}
		engine.Apply(pipeline, doc, result, transforms.ToolResult, run)
		// Unchanged, Bytes is stdin as read: white space around it goes.
		out.Output = bytes.TrimSpace(doc.Bytes())
	} else {
		in := string(input)
		found, allowed := engine.DetectionsExplained(pipeline, in)
		for _, d := range found {
			out.Detections = append(out.Detections, previewDetection{
				Detector: d.Detector, Label: d.Label, Start: d.Start, End: d.End, Basis: d.Basis.String()})
		}
		for _, d := range allowed {
			out.Allowed = append(out.Allowed, previewDetection{
				Detector: d.Detector, Label: d.Label, Start: d.Start, End: d.End, Basis: d.Basis.String(), AllowedBy: d.By})
		}
		text = engine.ApplyText(pipeline, in, run)
		out.Output = jsondoc.AppendString(nil, text)
	}
	if run.Blocked {
		// A block shows the error the caller receives, never the data.
		out.Output = blockedOutput(p.Name, run.BlockLabels, doc, result)
	}

	if *asJSON {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "preview: %v\n", err)
			return 1
		}
		_, _ = stdout.Write(b.Bytes())
		return 0
	}
	if *listDetections {
		for _, list := range [][]previewDetection{out.Detections, out.Allowed} {
			for _, d := range list {
				at := ""
				if d.Path != "" {
					at = d.Path + ": "
				}
				why := "by " + d.Basis
				if d.AllowedBy != "" {
					why = "allowed by " + d.AllowedBy
				}
				fmt.Fprintf(stderr, "preview: %s%s %s %d-%d %s\n", at, d.Detector, d.Label, d.Start, d.End, why)
			}
		}
	}
	if doc == nil && !run.Blocked {
		fmt.Fprint(stdout, text)
		if !strings.HasSuffix(text, "\n") {
			fmt.Fprintln(stdout)
		}
		return 0
	}
	fmt.Fprintf(stdout, "%s\n", out.Output)
	return 0
}

// toolResult parses input as a tools/call result: a JSON object with
// content or structuredContent (result is the root), or a JSON-RPC
// response whose result is one. For anything else doc is nil, and note
// says why input that looks like JSON is not taken as a result.
func toolResult(input []byte) (doc *jsondoc.Doc, result int32, note string) {
	doc, err := jsondoc.Parse(input)
	if err != nil {
		if t := bytes.TrimSpace(input); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
			return nil, 0, "stdin is not valid JSON (" + err.Error() + ")"
		}
		return nil, 0, ""
	}
	isResult := func(n int32) bool {
		return doc.Kind(n) == jsondoc.Object &&
			(doc.Get(n, "content") != jsondoc.None || doc.Get(n, "structuredContent") != jsondoc.None)
	}
	if isResult(jsondoc.Root) {
		return doc, jsondoc.Root, ""
	}
	if r := doc.Get(jsondoc.Root, "result"); isResult(r) {
		return doc, r, ""
	}
	switch doc.Kind(jsondoc.Root) {
	case jsondoc.Object, jsondoc.Array:
		return nil, 0, "stdin is JSON but not a tools/call result (no content or structuredContent)"
	}
	return nil, 0, ""
}

// blockedOutput is what the caller receives when a block step fired: the
// -32004 error object, or for a JSON-RPC response the response carrying it.
func blockedOutput(policyName string, labels []string, doc *jsondoc.Doc, result int32) json.RawMessage {
	e := mcpvocab.For(mcpvocab.Rev2025).NewError(mcpvocab.ErrBlocked, "",
		blockedData{Policy: policyName, Labels: append([]string{}, labels...)})
	var v any = e
	if doc != nil && result != jsondoc.Root {
		id := json.RawMessage("null")
		if n := doc.Get(jsondoc.Root, "id"); n != jsondoc.None {
			id = doc.AppendValue(nil, n)
		}
		v = struct {
			JSONRPC string           `json:"jsonrpc"`
			ID      json.RawMessage  `json:"id"`
			Error   *policy.RPCError `json:"error"`
		}{"2.0", id, e}
	}
	raw, _ := json.Marshal(v)
	return raw
}

// printDenial describes a denied tool the way explain does.
func printDenial(w io.Writer, d *policy.Decision) {
	fmt.Fprintf(w, "decision:         deny\n")
	fmt.Fprintf(w, "rule:             %s\n", d.Rule)
	fmt.Fprintf(w, "reason:           %s\n", d.Reason())
	fmt.Fprintf(w, "hidden:           %v\n", d.Hidden)
	if e := d.Error(); e != nil {
		data := ""
		if e.Data != nil {
			raw, _ := json.Marshal(e.Data)
			data = " " + string(raw)
		}
		fmt.Fprintf(w, "error:            %d %s%s\n", e.Code, e.Message, data)
	}
}
