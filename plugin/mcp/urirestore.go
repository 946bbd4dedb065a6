package mcp

import (
	"strings"

	"github.com/cloudg/mcp-privacy/internal/uritemplate"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

// A client that read customers://EMAIL_…/profile holds the pseudonym as
// the value of a template's variable. The value goes back as the text it
// replaced, as it was (manual 13.6): the server receives what a client
// that saw the value would have sent. The TypeScript SDK's servers match
// {id} as [^/,]+ and do not decode, so an encoded value
// (alice%40example.com) is a customer they do not have; the go-sdk
// decodes, and a client that saw the address writes it raw. The URI is
// then judged again (section 4). A pseudonym in a template's literal
// text stays (it would change which resource the URI names); a URI no
// known template matches is restored as any text is.

// uriRestorer is the pseudonym store of the input pipeline over a
// resources/read URI that may hold pseudonyms: it restores as store does,
// but only inside the expressions of the template the URI is read as.
// pairs are the values it restored and the pseudonyms they replaced, the
// values encoded as RFC 6570 expansion writes them too, and encoded the
// URI with them so (when that differs): a server that decodes the URI
// and writes it again quotes those in an error (unrestoreError gives
// them back as the client sent them).
type uriRestorer struct {
	vault.PseudonymStore
	catalog *catalog
	pairs   []restoredPair
	encoded string
}

// Restore is the store's Restore, for the values inside an expression
// of the template s is read as (judging.Templates.Instance), each put back as
// the vault holds it. A pseudonym outside every expression (in a
// literal) is left as it is and counted refused; with no template
// matching s, every value goes in.
func (u *uriRestorer) Restore(ns, s string, keep vault.RestoreCheck) (string, vault.Restored) {
	tmpl := u.catalog.model.Templates.Instance(s)
	if tmpl == nil {
		out, r := u.PseudonymStore.Restore(ns, s, func(s string, spans []vault.Span, vals []string, ok []bool) {
			if keep != nil {
				keep(s, spans, vals, ok)
			}
			for i, sp := range spans {
				if ok[i] {
					u.addPairs(vals[i], "", s[sp.Start:sp.End])
				}
			}
		})
		return out, r
	}
	reading := uritemplate.Loose
	if tmpl.Match(s, uritemplate.Strict) {
		reading = uritemplate.Strict
	}
	var sbuf [4]uritemplate.Span
	exprs, _ := tmpl.Spans(s, reading, sbuf[:0])
	var restored []vault.Span
	var values []string
	raw, r := u.PseudonymStore.Restore(ns, s, func(s string, spans []vault.Span, vals []string, ok []bool) {
		if keep != nil {
			keep(s, spans, vals, ok)
		}
		for i, sp := range spans {
			if ok[i] {
				restored, values = append(restored, sp), append(values, vals[i])
			}
		}
	})
	if len(restored) == 0 {
		return raw, r
	}
	out := make([]byte, 0, len(raw)+len(raw)/2)
	enc := make([]byte, 0, len(raw)+len(raw)/2)
	last := 0
	for i, sp := range restored {
		out = append(out, s[last:sp.Start]...)
		enc = append(enc, s[last:sp.Start]...)
		last = sp.End
		e := exprOf(exprs, sp)
		if e < 0 {
			out = append(out, s[sp.Start:sp.End]...)
			enc = append(enc, s[sp.Start:sp.End]...)
			r.Resolved--
			r.Refused++
			continue
		}
		out = append(out, values[i]...)
		n := len(enc)
		enc = uritemplate.AppendEncoded(enc, tmpl.Exprs()[e].Op, values[i])
		u.addPairs(values[i], string(enc[n:]), s[sp.Start:sp.End])
	}
	out = append(out, s[last:]...)
	enc = append(enc, s[last:]...)
	if string(enc) != string(out) {
		u.encoded = string(enc)
	}
	return string(out), r
}

// addPairs records value, restored in place of the pseudonym sent, in
// the forms a server may quote it in: as it is, encoded for its
// expression (expanded, "" without a template) and wholly
// percent-encoded.
func (u *uriRestorer) addPairs(value, expanded, sent string) {
	if len(value) < minRestoredSpan {
		return
	}
	sent = strings.Clone(sent)
	u.pairs = append(u.pairs, restoredPair{strings.Clone(value), sent})
	all := uritemplate.Encode(0, value)
	for _, v := range [2]string{expanded, all} {
		if v != "" && v != value && (v != all || expanded != all) {
			u.pairs = append(u.pairs, restoredPair{v, sent})
		}
	}
}

// exprOf is the expression whose span holds sp whole, or -1.
func exprOf(exprs []uritemplate.Span, sp vault.Span) int {
	for _, e := range exprs {
		if e.Start <= sp.Start && sp.End <= e.End {
			return e.Expr
		}
	}
	return -1
}
