package vault

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/policy"
)

// clock is a fake time source.
type clock struct{ t time.Time }

func newClock() *clock                   { return &clock{time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)} }
func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

var testKey = []byte("vault test key material")

func vaultConfig(scope policy.VaultScope, ttlSeconds float64, maxEntries int) policy.VaultConfig {
	return policy.VaultConfig{Scope: scope, TTLSeconds: ttlSeconds, MaxEntries: maxEntries, Encrypt: true}
}

// countingKV counts the calls that reach a KV.
type countingKV struct {
	KV
	gets, sets int
}

func (c *countingKV) Get(key string) ([]byte, uint32, bool) { c.gets++; return c.KV.Get(key) }
func (c *countingKV) Set(key string, v []byte, cas uint32) bool {
	c.sets++
	return c.KV.Set(key, v, cas)
}

func TestMemoryKVCAS(t *testing.T) {
	kv := NewMemoryKV()
	if _, _, ok := kv.Get("k"); ok {
		t.Fatal("empty KV has k")
	}
	if !kv.Set("k", []byte("a"), 12345) {
		t.Fatal("a missing key must always be set")
	}
	v, cas, ok := kv.Get("k")
	if !ok || string(v) != "a" || cas == 0 {
		t.Fatalf("Get = %q %d %v", v, cas, ok)
	}
	v[0] = 'x' // a copy
	if !kv.Set("k", []byte("b"), cas) {
		t.Fatal("matching CAS refused")
	}
	if kv.Set("k", []byte("c"), cas) {
		t.Fatal("stale CAS accepted")
	}
	if !kv.Set("k", []byte("d"), 0) {
		t.Fatal("CAS 0 refused")
	}
	if v, _, _ := kv.Get("k"); string(v) != "d" {
		t.Fatalf("value %q, want d", v)
	}
}

func TestVaultIssueAndResolve(t *testing.T) {
	kv, clk := NewMemoryKV(), newClock()
	v := New(testKey, vaultConfig(policy.VaultGlobal, 0, 1024), kv, clk.now)
	other := New(testKey, vaultConfig(policy.VaultGlobal, 0, 1024), kv, clk.now) // another worker VM

	alice := v.Pseudonymise("", "EMAIL", "Alice@Corp.com")
	preview := v.Pseudonym("", "EMAIL", "carol@corp.com")
	before := kv.Len()
	if got := v.Pseudonym("", "EMAIL", "dave@corp.com"); got == "" || kv.Len() != before {
		t.Fatalf("Pseudonym stored something (%d keys, was %d)", kv.Len(), before)
	}
	tests := []struct {
		name      string
		vault     *Vault
		pseudonym string
		want      string
		ok        bool
	}{
		{"issuing instance", v, alice, "Alice@Corp.com", true},
		{"another instance", other, alice, "Alice@Corp.com", true},
		{"same value, same pseudonym", other, v.Pseudonymise("", "EMAIL", "Alice@Corp.com"), "Alice@Corp.com", true},
		// Another spelling of one entity shares the pseudonym; the vault
		// keeps the spelling it saw first.
		{"other spelling", other, v.Pseudonymise("", "EMAIL", "alice@corp.com"), "Alice@Corp.com", true},
		{"card", other, v.Pseudonymise("", "CREDIT_CARD", "4111 1111 1111 1111"), "4111 1111 1111 1111", true},
		{"previewed, never stored", other, preview, "", false},
		{"unknown of the right shape", other, "EMAIL_AAAAAAAAAAAA", "", false},
		{"not a pseudonym", other, "hello", "", false},
		{"pseudonym with text around", other, " " + alice, "", false},
	}
	for _, tc := range tests {
		got, ok := tc.vault.Resolve("", tc.pseudonym)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: Resolve = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	if alice != v.Pseudonym("", "EMAIL", "Alice@Corp.com") {
		t.Error("Pseudonymise and Pseudonym disagree")
	}
	if s := v.Stats(); s.Issued != 4 || s.Stored != 2 {
		t.Errorf("stats %+v, want 4 issued, 2 stored", s)
	}
}

func TestVaultScopes(t *testing.T) {
	kv, clk := NewMemoryKV(), newClock()
	perPrincipal := New(testKey, vaultConfig(policy.VaultPerPrincipal, 0, 1024), kv, clk.now)
	global := New(testKey, vaultConfig(policy.VaultGlobal, 0, 1024), kv, clk.now)
	if ns := perPrincipal.Namespace("alice"); ns != "alice" {
		t.Errorf("principal scope namespace %q", ns)
	}
	if ns := global.Namespace("alice"); ns != "" {
		t.Errorf("global scope namespace %q", ns)
	}
	p := perPrincipal.Pseudonymise("alice", "EMAIL", "a@corp.com")
	if p == perPrincipal.Pseudonym("bob", "EMAIL", "a@corp.com") {
		t.Error("two principals got one pseudonym")
	}
	for _, tc := range []struct {
		ns string
		ok bool
	}{{"alice", true}, {"bob", false}, {"", false}, {"alice ", false}} {
		if _, ok := perPrincipal.Resolve(tc.ns, p); ok != tc.ok {
			t.Errorf("resolve alice's pseudonym in %q: %v, want %v", tc.ns, ok, tc.ok)
		}
	}
}

func TestVaultTTL(t *testing.T) {
	const ttl = 100 * time.Second
	kv, clk := NewMemoryKV(), newClock()
	v := New(testKey, vaultConfig(policy.VaultGlobal, ttl.Seconds(), 64), kv, clk.now)
	resolver := func() *Vault { // a fresh instance: no cache, only the table
		return New(testKey, vaultConfig(policy.VaultGlobal, ttl.Seconds(), 64), kv, clk.now)
	}
	p := v.Pseudonymise("", "EMAIL", "a@corp.com")
	steps := []struct {
		advance time.Duration
		by      *Vault // nil: a fresh instance
		ok      bool
	}{
		{ttl - time.Second, nil, true}, // used at 99s: refreshed
		{ttl - time.Second, nil, true}, // 99s after that use
		{ttl, nil, false},              // unused for the TTL: gone
		{0, v, false},                  // for the issuing instance too
	}
	for i, st := range steps {
		clk.advance(st.advance)
		r := st.by
		if r == nil {
			r = resolver()
		}
		if _, ok := r.Resolve("", p); ok != st.ok {
			t.Fatalf("step %d: resolved %v, want %v", i, ok, st.ok)
		}
	}
	// Issuing again stores it again, in the expired slot or another.
	if v.Pseudonymise("", "EMAIL", "a@corp.com") != p {
		t.Fatal("pseudonym changed")
	}
	if got, ok := resolver().Resolve("", p); !ok || got != "a@corp.com" {
		t.Fatalf("re-issued: %q %v", got, ok)
	}
	// Repeated issues refresh the last use: the mapping outlives the TTL
	// counted from its first issue.
	for range 5 {
		clk.advance(ttl / 2)
		v.Pseudonymise("", "EMAIL", "a@corp.com")
	}
	if _, ok := resolver().Resolve("", p); !ok {
		t.Fatal("a mapping in use expired")
	}
}

// Last use is written only when it is older than the refresh interval, and
// the cache spares the reads of repeated issues.
func TestVaultRefreshWrites(t *testing.T) {
	kv, clk := &countingKV{KV: NewMemoryKV()}, newClock()
	v := New(testKey, vaultConfig(policy.VaultGlobal, 0, 64), kv, clk.now)
	c0 := v.Changes()
	v.Pseudonymise("", "EMAIL", "a@corp.com") // stored
	c1 := v.Changes()
	kv.gets, kv.sets = 0, 0
	for range 100 {
		clk.advance(100 * time.Millisecond)
		v.Pseudonymise("", "EMAIL", "a@corp.com")
	}
	if kv.gets != 0 || kv.sets != 0 {
		t.Errorf("repeated issues within the refresh interval: %d gets, %d sets; want none", kv.gets, kv.sets)
	}
	c2 := v.Changes()
	clk.advance(time.Minute)
	v.Pseudonymise("", "EMAIL", "a@corp.com")
	c3 := v.Changes()
	switch {
	case c1.Issued == c0.Issued:
		t.Error("storing a mapping did not change Issued")
	case c2 != c1:
		t.Errorf("repeated issues changed the counters: %+v → %+v", c1, c2)
	case c3.Touched == c2.Touched || c3.Issued != c2.Issued:
		t.Errorf("a refresh should change Touched only: %+v → %+v", c2, c3)
	}
	if s := v.Stats(); s.Stored != 1 || s.Refreshed != 1 {
		t.Errorf("stats %+v, want 1 stored, 1 refreshed", s)
	}
}

func TestVaultFullTable(t *testing.T) {
	for _, slots := range []int{1, 3, 16} {
		t.Run(strconv.Itoa(slots), func(t *testing.T) {
			kv, clk := NewMemoryKV(), newClock()
			cfg := vaultConfig(policy.VaultGlobal, 0, slots)
			v := New(testKey, cfg, kv, clk.now)
			hot := v.Pseudonymise("", "EMAIL", "hot@corp.com")
			var issued []string
			for i := range 300 {
				clk.advance(2 * time.Minute) // past the refresh interval: every use is written
				v.Pseudonymise("", "EMAIL", "hot@corp.com")
				issued = append(issued, v.Pseudonymise("", "EMAIL", fmt.Sprintf("user%d@corp.com", i)))
			}
			if kv.Len() > slots+2 { // the slots and the two counters
				t.Fatalf("%d keys for %d slots", kv.Len(), slots)
			}
			r := New(testKey, cfg, kv, clk.now)
			// Every mapping is evicted only by one whose probe slots hold
			// min(8, slots) mappings all used after it; so the hot one
			// (used before every insert) survives once there are two
			// slots, and so do the most recent ones.
			keep := min(vaultProbes, slots)
			if slots > 1 {
				keep--
				if _, ok := r.Resolve("", hot); !ok {
					t.Error("the mapping in constant use was evicted")
				}
			}
			for i, p := range issued {
				got, ok := r.Resolve("", p)
				if ok && got != fmt.Sprintf("user%d@corp.com", i) {
					t.Fatalf("%s resolved to another value", p)
				}
				if !ok && i >= len(issued)-keep {
					t.Errorf("recent mapping %d of %d evicted", i, len(issued))
				}
			}
			if v.Stats().Evicted == 0 {
				t.Error("a full table evicted nothing")
			}
		})
	}
}

// hookKV runs before once, just before the first Set that reaches it.
type hookKV struct {
	KV
	before func()
}

func (h *hookKV) Set(key string, v []byte, cas uint32) bool {
	if f := h.before; f != nil {
		h.before = nil
		f()
	}
	return h.KV.Set(key, v, cas)
}

// Two instances write the same slot at once: CAS makes the loser probe
// again, and both mappings are kept.
func TestVaultCASContention(t *testing.T) {
	for _, prefilled := range []bool{true, false} {
		t.Run(fmt.Sprintf("slots exist %v", prefilled), func(t *testing.T) {
			mem, clk := NewMemoryKV(), newClock()
			cfg := vaultConfig(policy.VaultGlobal, 0, 4)
			hook := &hookKV{KV: mem}
			a := New(testKey, cfg, hook, clk.now)
			b := New(testKey, cfg, mem, clk.now)
			if prefilled {
				for i := range 4 {
					mem.Set(a.slotKey(i), []byte("sealed under some old key"), 0)
				}
			}
			// Two values with one home slot.
			va := "a@corp.com"
			pa := a.Pseudonym("", "EMAIL", va)
			var vb, pb string
			for i := 0; ; i++ {
				vb = fmt.Sprintf("b%d@corp.com", i)
				pb = a.Pseudonym("", "EMAIL", vb)
				if a.hashSlot("", pb) == a.hashSlot("", pa) {
					break
				}
			}
			// a has probed and is about to write when b writes the slot.
			hook.before = func() { b.Pseudonymise("", "EMAIL", vb) }
			a.Pseudonymise("", "EMAIL", va)
			r := New(testKey, cfg, mem, clk.now)
			for p, want := range map[string]string{pa: va, pb: vb} {
				if got, ok := r.Resolve("", p); !ok || got != want {
					t.Errorf("Resolve(%s) = %q, %v; want %q", p, got, ok, want)
				}
			}
			if a.Stats().Conflicts == 0 {
				t.Error("the losing writer saw no conflict")
			}
		})
	}
}

// Many writers at once over existing slots: every mapping is kept and
// every slot stays readable.
func TestVaultConcurrentWriters(t *testing.T) {
	const slots, perWriter = 1 << 14, 300
	mem, clk := NewMemoryKV(), newClock()
	cfg := vaultConfig(policy.VaultGlobal, 0, slots)
	var mu sync.Mutex // the fake clock
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clk.now() }
	probe := New(testKey, cfg, mem, now)
	for i := range slots {
		mem.Set(probe.slotKey(i), nil, 0) // created, empty: every write is a CAS
	}
	writers := []*Vault{New(testKey, cfg, mem, now), New(testKey, cfg, mem, now)}
	var wg sync.WaitGroup
	for w, v := range writers {
		wg.Go(func() {
			for i := range perWriter {
				// Both writers issue the shared values, each its own too.
				v.Pseudonymise("", "EMAIL", fmt.Sprintf("shared%d@corp.com", i))
				v.Pseudonymise("", "EMAIL", fmt.Sprintf("w%d-%d@corp.com", w, i))
			}
		})
	}
	wg.Wait()
	for w := range writers {
		if s := writers[w].Stats(); s.Dropped != 0 || s.Evicted != 0 {
			t.Errorf("writer %d: %+v", w, s)
		}
		for i := range perWriter {
			for _, val := range []string{fmt.Sprintf("shared%d@corp.com", i), fmt.Sprintf("w%d-%d@corp.com", w, i)} {
				if got, ok := probe.Resolve("", probe.Pseudonym("", "EMAIL", val)); !ok || got != val {
					t.Fatalf("%s: %q, %v", val, got, ok)
				}
			}
		}
	}
	if s := probe.Stats(); s.Unreadable != 0 {
		t.Errorf("%d unreadable slots", s.Unreadable)
	}
}

func TestVaultAuthenticity(t *testing.T) {
	const slots = 16
	cfg := vaultConfig(policy.VaultGlobal, 0, slots)
	setup := func() (*MemoryKV, *Vault, string, int) {
		kv, clk := NewMemoryKV(), newClock()
		v := New(testKey, cfg, kv, clk.now)
		p := v.Pseudonymise("", "EMAIL", "a@corp.com")
		for i := range slots {
			raw, _, ok := kv.Get(v.slotKey(i))
			if e, good := v.open(v.slotKey(i), raw); ok && good && string(e.pseudonym) == p {
				return kv, v, p, i
			}
		}
		t.Fatal("mapping not found in the table")
		return nil, nil, "", 0
	}
	tests := []struct {
		name       string
		change     func(kv *MemoryKV, key string, raw []byte)
		unreadable bool
	}{
		{"a byte flipped", func(kv *MemoryKV, key string, raw []byte) {
			raw[len(raw)/2] ^= 1
			kv.Set(key, raw, 0)
		}, true},
		{"truncated", func(kv *MemoryKV, key string, raw []byte) { kv.Set(key, raw[:len(raw)-1], 0) }, true},
		{"emptied", func(kv *MemoryKV, key string, raw []byte) { kv.Set(key, nil, 0) }, false},
		{"moved to every other slot", func(kv *MemoryKV, key string, raw []byte) {
			for i := range slots {
				kv.Set(SlotPrefix+strconv.Itoa(i), raw, 0)
			}
			kv.Set(key, []byte("x"), 0)
		}, true},
	}
	for _, tc := range tests {
		kv, v, p, slot := setup()
		key := v.slotKey(slot)
		raw, _, _ := kv.Get(key)
		tc.change(kv, key, raw)
		fresh := New(testKey, cfg, kv, newClock().now)
		if got, ok := fresh.Resolve("", p); ok {
			t.Errorf("%s: resolved to %q", tc.name, got)
		}
		if got := fresh.Stats().Unreadable > 0; got != tc.unreadable {
			t.Errorf("%s: counted unreadable %v, want %v", tc.name, got, tc.unreadable)
		}
	}

	// Another key reads the table as empty, and reuses it.
	kv, _, p, _ := setup()
	wrong := New([]byte("another key"), cfg, kv, newClock().now)
	if _, ok := wrong.Resolve("", p); ok {
		t.Error("another key resolved the pseudonym")
	}
	q := wrong.Pseudonymise("", "EMAIL", "a@corp.com")
	if got, ok := New([]byte("another key"), cfg, kv, newClock().now).Resolve("", q); !ok || got != "a@corp.com" {
		t.Errorf("another key could not use the table: %q %v", got, ok)
	}
}

func TestDepseudonymise(t *testing.T) {
	kv, clk := NewMemoryKV(), newClock()
	v := New(testKey, vaultConfig(policy.VaultPerPrincipal, 0, 256), kv, clk.now)
	email := v.Pseudonymise("alice", "EMAIL", "alice@corp.com")
	card := v.Pseudonymise("alice", "CREDIT_CARD", "4111 1111 1111 1111")
	bobs := v.Pseudonymise("bob", "EMAIL", "bob@corp.com")
	unknown := v.Pseudonym("alice", "EMAIL", "never-issued@corp.com")
	tests := []struct {
		name, in, want string
		n              int
	}{
		{"no pseudonyms", "plain text, EMAIL_ and all", "plain text, EMAIL_ and all", 0},
		{"one", "write to " + email + ".", "write to alice@corp.com.", 1},
		{"whole string", email, "alice@corp.com", 1},
		{"two and repeated", email + "," + card + " " + email, "alice@corp.com,4111 1111 1111 1111 alice@corp.com", 3},
		{"unknown kept", "a " + unknown + " b " + email, "a " + unknown + " b alice@corp.com", 1},
		{"another principal's kept", "x " + bobs + " y", "x " + bobs + " y", 0},
		{"inside a word kept", "x" + email + " " + email + "y", "x" + email + " " + email + "y", 0},
		{"in JSON-ish text", `{"to":"` + email + `","cc":["` + unknown + `"],"n":1}`,
			`{"to":"alice@corp.com","cc":["` + unknown + `"],"n":1}`, 1},
		{"non-ASCII nearby", "→ " + email + " ←", "→ alice@corp.com ←", 1},
		// Any non-ASCII character is a boundary; ASCII letters are not.
		{"non-ASCII punctuation adjacent", "→" + email + "»", "→alice@corp.com»", 1},
		{"CJK text without spaces", "担当" + email + "様", "担当alice@corp.com様", 1},
		{"inside an ASCII word", "x" + email, "x" + email, 0},
	}
	for _, tc := range tests {
		got, n := v.Depseudonymise("alice", tc.in)
		if got != tc.want || n != tc.n {
			t.Errorf("%s: Depseudonymise = %q, %d; want %q, %d", tc.name, got, n, tc.want, tc.n)
		}
	}
}

func TestVaultExportImport(t *testing.T) {
	const ttl = time.Hour
	values := []struct{ ns, label, value string }{
		{"alice", "EMAIL", "alice@corp.com"},
		{"alice", "PHONE", "+44 20 7946 0958"},
		{"bob", "EMAIL", "bob@corp.com"},
		{"", "IBAN", "GB82 WEST 1234 5698 7654 32"},
		{"carol\xff", "SECRET", "not \xfe UTF-8"},
	}
	for _, encrypt := range []bool{true, false} {
		t.Run(fmt.Sprintf("encrypt %v", encrypt), func(t *testing.T) {
			clk := newClock()
			cfg := vaultConfig(policy.VaultPerPrincipal, ttl.Seconds(), 256)
			src := New(testKey, cfg, NewMemoryKV(), clk.now)
			stale := src.Pseudonymise("alice", "EMAIL", "stale@corp.com")
			clk.advance(ttl / 2)
			issued := make([]string, len(values))
			for i, x := range values {
				issued[i] = src.Pseudonymise(x.ns, x.label, x.value)
			}
			clk.advance(ttl/2 + time.Second) // stale is now expired
			var file bytes.Buffer
			if err := src.Export(&file, encrypt); err != nil {
				t.Fatal(err)
			}
			for _, x := range values[:4] {
				if in := strings.Contains(file.String(), x.value); in == encrypt {
					t.Errorf("value in the file: %v, encrypt %v", in, encrypt)
				}
			}
			if strings.Contains(file.String(), "stale@corp.com") {
				t.Error("an expired mapping was exported")
			}

			dst := New(testKey, cfg, NewMemoryKV(), clk.now)
			unused := NewMemoryKV() // imported, then not used
			for _, kv := range []KV{dst.kv, unused} {
				if err := New(testKey, cfg, kv, clk.now).Import(bytes.NewReader(file.Bytes())); err != nil {
					t.Fatal(err)
				}
			}
			for i, x := range values {
				if got, ok := dst.Resolve(x.ns, issued[i]); !ok || got != x.value {
					t.Errorf("%q in %q: %q, %v", issued[i], x.ns, got, ok)
				}
			}
			if _, ok := dst.Resolve("alice", stale); ok {
				t.Error("an expired mapping was imported")
			}
			// Last use survives the round trip: the mappings expire an
			// hour after their last use, not an hour after the import
			// (dst's resolves above used them).
			clk.advance(ttl/2 - time.Second)
			if _, ok := New(testKey, cfg, unused, clk.now).Resolve("alice", issued[0]); ok {
				t.Error("import reset the last use")
			}
			if _, ok := New(testKey, cfg, dst.kv, clk.now).Resolve("alice", issued[0]); !ok {
				t.Error("a mapping used after the import expired")
			}

			// Importing twice is harmless; a global vault takes only "".
			global := New(testKey, vaultConfig(policy.VaultGlobal, 0, 256), NewMemoryKV(), clk.now)
			for range 2 {
				if err := global.Import(bytes.NewReader(file.Bytes())); err != nil {
					t.Fatal(err)
				}
			}
			if _, ok := global.Resolve("", issued[3]); !ok {
				t.Error("global import lost the global mapping")
			}
			if _, ok := global.Resolve("alice", issued[0]); ok {
				t.Error("global import took a principal's mapping")
			}
		})
	}
}

func TestVaultImportErrors(t *testing.T) {
	clk := newClock()
	cfg := vaultConfig(policy.VaultGlobal, 0, 64)
	src := New(testKey, cfg, NewMemoryKV(), clk.now)
	src.Pseudonymise("", "EMAIL", "secret-person@corp.com")
	export := func(encrypt bool) string {
		var b bytes.Buffer
		if err := src.Export(&b, encrypt); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	sealed, plain := export(true), export(false)
	otherKey := New([]byte("another key"), cfg, NewMemoryKV(), clk.now)
	wantFP := otherKey.keyFP
	tests := []struct {
		name   string
		into   *Vault
		file   string
		is     error
		detail string
	}{
		{"wrong key, sealed", otherKey, sealed, ErrFileKey, "this key's is " + wantFP},
		{"wrong key, clear", otherKey, plain, ErrFileKey, "fingerprint is " + src.keyFP},
		{"sealed bytes changed", nil, strings.Replace(sealed, `"sealed": "`, `"sealed": "AAAA`, 1), ErrFileInvalid, "do not authenticate"},
		{"value edited", nil, strings.Replace(plain, "secret-person", "other-person", 1), ErrFileInvalid, "record 0: pseudonym is not its value's"},
		{"fingerprint forged", otherKey, strings.Replace(plain, src.keyFP, wantFP, 1), ErrFileInvalid, "record 0"},
		{"encrypted flag flipped", nil, strings.Replace(sealed, `"encrypted": true`, `"encrypted": false`, 1), ErrFileInvalid, "sealed"},
		{"not JSON", nil, "secret-person@corp.com", ErrFileInvalid, "not JSON"},
		{"another format", nil, `{"format":"x","version":1}`, ErrFileInvalid, "format"},
		{"newer version", nil, strings.Replace(plain, `"version": 1`, `"version": 2`, 1), ErrFileInvalid, "version 2"},
		{"bad last use", nil, strings.Replace(plain, `"last_use": "2025`, `"last_use": "x2025`, 1), ErrFileInvalid, "last_use"},
		{"wrong type", nil, strings.Replace(plain, `"version": 1`, `"version": "1"`, 1), ErrFileInvalid, "version"},
	}
	for _, tc := range tests {
		kv := NewMemoryKV()
		into := tc.into
		if into == nil {
			into = New(testKey, cfg, kv, clk.now)
		} else {
			into = New([]byte("another key"), cfg, kv, clk.now)
		}
		err := into.Import(strings.NewReader(tc.file))
		switch {
		case err == nil:
			t.Errorf("%s: imported", tc.name)
		case !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.detail):
			t.Errorf("%s: %v; want %v with %q", tc.name, err, tc.is, tc.detail)
		case strings.Contains(err.Error(), "person"):
			t.Errorf("%s: the error shows the value: %v", tc.name, err)
		case kv.Len() != 0:
			t.Errorf("%s: a failed import stored %d keys", tc.name, kv.Len())
		}
	}
}

func BenchmarkVaultPseudonymise(b *testing.B) {
	clk := newClock()
	values := make([]string, 1024)
	for i := range values {
		values[i] = fmt.Sprintf("user%d@corp.com", i)
	}
	b.Run("repeated", func(b *testing.B) {
		v := New(testKey, vaultConfig(policy.VaultGlobal, 0, DefaultEntries), NewMemoryKV(), clk.now)
		for _, x := range values[:64] {
			v.Pseudonymise("", "EMAIL", x)
			v.Pseudonymise("", "EMAIL", x)
		}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			v.Pseudonymise("", "EMAIL", values[i%64])
		}
	})
	// New values into a table with room, and into a full one, where every
	// new mapping reads all its probe slots and evicts one.
	for _, tc := range []struct {
		name  string
		slots int
	}{{"fresh", 1 << 22}, {"fresh into a full table", 1024}} {
		b.Run(tc.name, func(b *testing.B) {
			v := New(testKey, vaultConfig(policy.VaultGlobal, 0, tc.slots), NewMemoryKV(), clk.now)
			for i := range 2 * min(tc.slots, 1024) {
				v.Pseudonymise("", "EMAIL", "warm"+strconv.Itoa(i)+"@corp.com")
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				v.Pseudonymise("", "EMAIL", "user"+strconv.Itoa(i)+"@corp.com")
			}
		})
	}
}

func BenchmarkVaultResolve(b *testing.B) {
	clk := newClock()
	kv := NewMemoryKV()
	cfg := vaultConfig(policy.VaultGlobal, 0, DefaultEntries)
	v := New(testKey, cfg, kv, clk.now)
	ps := make([]string, 4096)
	for i := range ps {
		ps[i] = v.Pseudonymise("", "EMAIL", fmt.Sprintf("user%d@corp.com", i))
	}
	b.Run("cached", func(b *testing.B) {
		r := New(testKey, cfg, kv, clk.now)
		r.Resolve("", ps[0])
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := r.Resolve("", ps[0]); !ok {
				b.Fatal("miss")
			}
		}
	})
	b.Run("table", func(b *testing.B) { // more pseudonyms than the cache holds
		r := New(testKey, cfg, kv, clk.now)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, ok := r.Resolve("", ps[i%len(ps)]); !ok {
				b.Fatal("miss")
			}
		}
	})
	b.Run("depseudonymise", func(b *testing.B) {
		r := New(testKey, cfg, kv, clk.now)
		text := `{"to":"` + ps[1] + `","cc":"` + ps[2] + `","body":"call me"}`
		b.ReportAllocs()
		for b.Loop() {
			if _, n := r.Depseudonymise("", text); n != 2 {
				b.Fatal(n)
			}
		}
	})
}
