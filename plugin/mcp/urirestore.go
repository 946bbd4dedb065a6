package mcp

import (
	"strings"

	"github.com/cloudg/mcp-privacy/internal/uritemplate"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

// A client that read customers://EMAIL_…/profile holds the pseudonym as
// the value of a template's variable: it expanded customers://{id}/profile
// with it. The value it stands for goes back as that expansion would write
// it (customers://alice%40example.com/profile), so the server receives
// what a client holding the real value would have sent, and the URI is
// still an instance of the template it is judged by (manual 13.6). A URI
// no known template matches is restored as any text is.

// uriRestorer is the pseudonym store of the input pipeline over a
// resources/read URI that may hold pseudonyms: it restores as store does,
// each value encoded for the expression it lies in. pairs are the values
// it restored and the pseudonyms they replaced, and raw the URI with the
// values restored unencoded: a server quotes either in an error
// (unrestoreError gives them back as the client sent them).
type uriRestorer struct {
	vault.PseudonymStore
	catalog *catalog
	pairs   []restoredPair
	raw     string
}

// Restore is the store's Restore, each restored value encoded as RFC 6570
// expansion writes it for its expression in the template s is read as
// (catalog.matchTemplate). A pseudonym outside every expression (in a
// literal) is left as it is and counted refused; with no template
// matching s, the values go in as they are.
func (u *uriRestorer) Restore(ns, s string, keep vault.RestoreCheck) (string, vault.Restored) {
	tmpl := u.catalog.matchTemplate(s)
	if tmpl == nil {
		return u.PseudonymStore.Restore(ns, s, keep)
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
	last := 0
	for i, sp := range restored {
		out = append(out, s[last:sp.Start]...)
		last = sp.End
		e := exprOf(exprs, sp)
		if e < 0 {
			out = append(out, s[sp.Start:sp.End]...)
			r.Resolved--
			r.Refused++
			continue
		}
		out = uritemplate.AppendEncoded(out, tmpl.Exprs()[e].Op, values[i])
		if len(values[i]) >= minRestoredSpan {
			u.pairs = append(u.pairs, restoredPair{strings.Clone(values[i]), strings.Clone(s[sp.Start:sp.End])})
		}
	}
	out = append(out, s[last:]...)
	u.raw = raw
	return string(out), r
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
