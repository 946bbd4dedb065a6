package mcp

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/internal/shareddata"
	"github.com/cloudg/mcp-privacy/policy"
)

// Helpers of this file are prefixed au.

func auEntry(d outcome) *auditEntry {
	return &auditEntry{
		Time: rlAt(0.25), Policy: "standard", Principal: "alice", Roles: []string{"ops", "dev"},
		Session: "S1", Method: "tools/call", Kind: "tool", Name: "search_customers", Decision: d,
		Rule: "role:ops", Reason: `tool "search_customers" is allowed`, Transforms: []string{"secrets", "pii"},
		Detections: map[string]int{"PHONE": 1, "EMAIL": 2, "IBAN": 0}, Pseudonyms: 3, Resolved: 1,
		BytesIn: 120, BytesOut: 4096, Processing: 1_234_567,
	}
}

func TestAuditEntryJSON(t *testing.T) {
	got := string(auEntry(outcomeAllowed).appendJSON(nil))
	want := `{"time":"2023-11-14T22:13:20.25Z","policy":"standard","principal":"alice","roles":["ops","dev"],` +
		`"session":"S1","method":"tools/call","kind":"tool","name":"search_customers","decision":"allowed",` +
		`"rule":"role:ops","reason":"tool \"search_customers\" is allowed","transforms":["secrets","pii"],` +
		`"detections":{"EMAIL":2,"PHONE":1},"pseudonyms":3,"resolved":1,"bytes_in":120,"bytes_out":4096,"processing_us":1234}`
	if got != want {
		t.Errorf("entry JSON\n got %s\nwant %s", got, want)
	}
	// An empty entry is valid JSON with every field.
	var m map[string]any
	if err := json.Unmarshal((&auditEntry{}).appendJSON(nil), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"time", "policy", "principal", "roles", "session", "method", "kind", "name", "decision",
		"rule", "reason", "transforms", "detections", "pseudonyms", "resolved", "bytes_in", "bytes_out", "processing_us"} {
		if _, ok := m[k]; !ok {
			t.Errorf("field %s missing", k)
		}
	}
	// Long texts are cut on a character boundary.
	e := auEntry(outcomeDenied)
	e.Name = strings.Repeat("é", 400)
	e.Reason = "x" + strings.Repeat("\u2028", 300)
	b := e.appendJSON(nil)
	if err := json.Unmarshal(b, &m); err != nil || !utf8.Valid(b) {
		t.Fatalf("%v: %s", err, b)
	}
	if n := m["name"].(string); len(n) > auditTextMax+len("…") || !strings.HasSuffix(n, "…") {
		t.Errorf("name of %d bytes: %q", len(n), n)
	}
	if line := e.line(); !strings.HasPrefix(line, "cloudg.mcp.audit {") || strings.Contains(line, "\n") {
		t.Errorf("line %q", line)
	}
}

// Denials, rate limits, blocks and errors always; allowed calls with
// audit: true; audit_size 0 logs but keeps nothing (manual 14, manual 6.1).
func TestAuditRecordPolicy(t *testing.T) {
	cases := []struct {
		policy string
		d      outcome
		logged bool
		stored bool
	}{
		{`{}`, outcomeAllowed, false, false},
		{`{}`, outcomeDenied, true, true},
		{`{}`, outcomeRateLimited, true, true},
		{`{}`, outcomeBlocked, true, true},
		{`{}`, outcomeError, true, true},
		{`{audit: true}`, outcomeAllowed, true, true},
		{`{audit: true, audit_size: 0}`, outcomeAllowed, true, false},
		{`{audit_size: 0}`, outcomeDenied, true, false},
		{`strict`, outcomeAllowed, true, true},
		{`audit-only`, outcomeAllowed, true, true},
		{`standard`, outcomeAllowed, false, false},
	}
	for _, c := range cases {
		t.Run(c.policy+"/"+string(c.d), func(t *testing.T) {
			src := c.policy
			if !strings.HasPrefix(src, "{") {
				src = strconv.Quote(src)
			}
			p := rlPolicy(t, src)
			store := newRLHost()
			a := newAuditLog(store, "srv")
			var lines []string
			a.Log = func(l string) { lines = append(lines, l) }
			stored := a.record(p, auEntry(c.d))
			if (len(lines) == 1) != c.logged || len(lines) > 1 {
				t.Errorf("logged %d lines, want logged=%v", len(lines), c.logged)
			}
			if stored != c.stored || (len(a.recent(10, p.AuditSize)) == 1) != c.stored {
				t.Errorf("stored %v, Recent %d, want %v", stored, len(a.recent(10, p.AuditSize)), c.stored)
			}
			if !c.stored && store.Keys("") != 0 {
				t.Errorf("%d shared keys written, want none", store.Keys(""))
			}
			if c.logged && lines[0] != auEntry(c.d).line() {
				t.Errorf("line %q", lines[0])
			}
		})
	}
}

// The audit log keeps its ring per server.id, newest first, and survives
// a reload (another AuditLog over the same store).
func TestAuditRing(t *testing.T) {
	store := newRLHost()
	p := rlPolicy(t, `{audit: true, audit_size: 3}`)
	a := newAuditLog(store, "srv")
	for i := range 5 {
		e := auEntry(outcomeAllowed)
		e.Name = "t" + strconv.Itoa(i)
		if !a.record(p, e) {
			t.Fatalf("entry %d not stored", i)
		}
	}
	recent := newAuditLog(store, "srv").recent(10, 3)
	if len(recent) != 3 || !strings.Contains(string(recent[0]), `"name":"t4"`) || !strings.HasPrefix(string(recent[0]), `{"time":`) {
		t.Errorf("Recent: %q", recent)
	}
	if store.Keys("mcp-privacy|srv|audit|") != 4 {
		t.Errorf("%d keys, want head + 3 slots under the server's prefix", store.Keys("mcp-privacy|srv|audit|"))
	}
	if newAuditLog(store, "other").recent(10, 3) != nil {
		t.Error("another server's entries")
	}
}

// Who sees the audit trail in privacy_status: principals a rule or role
// grants privacy_audit explicitly; nobody by default.
func TestMayViewAudit(t *testing.T) {
	auditor := policy.Principal{ID: "carol", Roles: []string{"auditor"}}
	dev := policy.Principal{ID: "dave", Roles: []string{"dev"}}
	cases := []struct {
		policy           string
		auditor, someone bool
	}{
		{`{}`, false, false},
		{`"standard"`, false, false},
		{`"strict"`, false, false},
		{`{roles: {auditor: {allow_tools: [privacy_audit]}}}`, true, false},
		{`{roles: {auditor: {allow_categories: [privacy]}}}`, true, false},
		{`{extends: strict, roles: {auditor: {allow_tools: [privacy_audit]}}}`, true, false},
		{`{roles: {auditor: {allow_tools: [privacy_audit]}}, rules: [{match: {principals: [carol]}, deny_tools: [privacy_audit]}]}`, false, false},
		{`{rules: [{match: {roles: ["*"]}, allow_tools: ["*"]}]}`, true, true},
		{`{max_sensitivity: public, roles: {auditor: {allow_tools: [privacy_audit]}}}`, false, false},
	}
	for _, c := range cases {
		p := rlPolicy(t, c.policy)
		if got := mayViewAudit(p, &auditor); got != c.auditor {
			t.Errorf("%s: auditor may view = %v, want %v", c.policy, got, c.auditor)
		}
		if got := mayViewAudit(p, &dev); got != c.someone {
			t.Errorf("%s: dev may view = %v, want %v", c.policy, got, c.someone)
		}
	}
}

func BenchmarkAuditRecord(b *testing.B) {
	p := rlPolicy(b, `{audit: true, audit_size: 1000}`)
	for _, s := range []struct {
		name  string
		store func() shareddata.Store
	}{{"local", func() shareddata.Store { return nil }}, {"host", func() shareddata.Store { return newRLHost() }}} {
		b.Run(s.name, func(b *testing.B) {
			a := newAuditLog(s.store(), "default")
			a.Log = func(string) {}
			e := auEntry(outcomeAllowed)
			b.ReportAllocs()
			for range b.N {
				a.record(p, e)
			}
		})
	}
	b.Run("encode", func(b *testing.B) {
		e := auEntry(outcomeAllowed)
		buf := make([]byte, 0, 1024)
		b.ReportAllocs()
		for range b.N {
			buf = e.appendJSON(buf[:0])
		}
	})
}
