// Package transforms rewrites personal data and secrets in MCP messages
// (manual 10–13): the transform pipeline over jsondoc documents (which
// strings of a message are data, and the steps run over them), the
// restore check of the depseudonymiser, previews, and the cross-item and
// cross-message checks. The detectors are package transforms/detect, the
// pseudonym vault transforms/vault, projection paths transforms/fieldpath
// and the rewriting of a tool's outputSchema transforms/outputschema. It
// is pure Go: it knows the policy language (package policy) but nothing
// of proxy-wasm, HTTP or MCP framing.
package transforms
