package vault

import "time"

// PseudonymStore is what the pseudonymise and depseudonymise steps need of
// the vault (manual 13): Vault implements it over shared data, Sealed
// with the key alone.
//
// The value and s a store is given may be views of a message's bytes,
// valid only during the call (the pipeline scans strings in place and
// copies only what changes): a store that keeps one copies it.
type PseudonymStore interface {
	// Pseudonymise returns value's pseudonym in namespace ns and stores
	// the mapping so the depseudonymiser can resolve it.
	Pseudonymise(ns, label, value string) string
	// Pseudonym returns the same pseudonym without storing anything
	// (preview_transform issues no stored pseudonyms).
	Pseudonym(ns, label, value string) string
	// Restore replaces the pseudonyms of s that resolve in ns and that
	// keep accepts (all when keep is nil), and counts what it saw.
	Restore(ns, s string, keep RestoreCheck) (string, Restored)
}

// ClockedStore is a store that issues at a time it is given, so the
// pipeline reads the clock once per message (in the VM each read is two
// host calls): the stored vault, and the sealed vault issuing stored
// pseudonyms.
type ClockedStore interface {
	Clock() time.Time
	PseudonymiseAt(ns, label, value string, now time.Time) string
}

// RestoreCheck is given the pseudonyms found in s, their values and
// which of them resolved (ok), and clears ok for those it refuses.
type RestoreCheck func(s string, spans []Span, values []string, ok []bool)

// Restored counts what one Restore saw: pseudonyms replaced, well-formed
// pseudonyms that did not resolve in the caller's namespace, and resolved
// ones the check refused. Unauthentic counts the unresolved ones that are
// sealed tokens no key opens for their label and namespace (altered,
// another principal's or label's, an unknown key): part of Unresolved,
// told apart because the store vault cannot tell a forged pseudonym from
// an evicted one, and a sealed vault can.
type Restored struct{ Resolved, Unresolved, Refused, Unauthentic int }
