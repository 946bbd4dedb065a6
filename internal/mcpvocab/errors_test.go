package mcpvocab

import "testing"

// TestErrorColumn checks that every revision gives every error a code and
// a standard message, no two errors one code (but where a revision merges
// two: 2026-07-28's missing resource is invalid params), and that the
// 2025 revisions keep manual 15's codes and 2026-07-28 its own.
func TestErrorColumn(t *testing.T) {
	for r := Revision(0); r < numRevisions; r++ {
		tab := For(r)
		seen := map[int]Err{}
		for e := Err(0); e < NumErrs; e++ {
			c := tab.Error(e)
			if c.Code == 0 || c.Message == "" {
				t.Errorf("revision %d, error %d: code %d, message %q", r, e, c.Code, c.Message)
			}
			if r == Rev2026 && e == ErrResourceNotFound {
				continue
			}
			if o, dup := seen[c.Code]; dup {
				t.Errorf("revision %d: errors %d and %d share code %d", r, o, e, c.Code)
			}
			seen[c.Code] = e
		}
	}
	spec15 := map[Err]int{
		ErrParse: -32700, ErrInvalidRequest: -32600, ErrMethodNotFound: -32601, ErrInvalidParams: -32602,
		ErrInternal: -32603, ErrResourceNotFound: -32002, ErrAccessDenied: -32003, ErrBlocked: -32004,
		ErrRateLimited: -32029,
	}
	for e, code := range spec15 {
		if got := For(Rev2025).Error(e).Code; got != code {
			t.Errorf("2025, error %d: code %d, want %d", e, got, code)
		}
	}
	rev2026 := map[Err]int{
		ErrResourceNotFound: -32602, ErrInvalidParams: -32602, ErrMethodNotFound: -32601,
		ErrHeaderMismatch: -32020, ErrMissingCapability: -32021, ErrUnsupportedVersion: -32022,
	}
	for e, code := range rev2026 {
		if got := For(Rev2026).Error(e).Code; got != code {
			t.Errorf("2026-07-28, error %d: code %d, want %d", e, got, code)
		}
	}
	got := For(Rev2025).NewError(ErrInvalidParams, "no name", nil).Message
	if got != "Invalid params: no name" {
		t.Errorf("NewError message %q", got)
	}
}
