package vault

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tink-crypto/tink-go/v2/daead/subtle"

	"github.com/cloudg/mcp-privacy/policy"
)

var (
	sealedKeyA = []byte("sealed vault key A, 32 bytes...")
	sealedKeyB = []byte("sealed vault key B, 32 bytes...")
)

func newSealed(t testing.TB, keys [][]byte, cfg policy.VaultConfig, server string, stored *Vault, now func() time.Time) *Sealed {
	t.Helper()
	v, err := NewSealed(keys, cfg, server, stored, now)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

var sealedPattern = regexp.MustCompile(`^[A-Z][A-Z0-9_]*_[A-Z2-7]{29,}$`)

// referenceSeal is a sealed pseudonym built from the format's description
// alone (sealed.go), with encoding/base32 and tink's AES-SIV: what
// Sealed issues must be exactly this.
func referenceSeal(key []byte, server, ns, label, value string, epochStart int64) string {
	sivKey, _ := hkdf.Key(sha256.New, key, nil, "mcp-privacy sealed pseudonym v1", 64)
	id, _ := hkdf.Key(sha256.New, key, nil, "mcp-privacy sealed key id v1", 1)
	header := []byte{0x10, id[0]}
	if epochStart >= 0 {
		header[0] = 0x11
		header = binary.AppendUvarint(header, uint64(epochStart))
	}
	ad := append([]byte{}, header...)
	ad = binary.AppendUvarint(ad, uint64(len(label)))
	ad = append(ad, label...)
	ad = binary.AppendUvarint(ad, uint64(len(server)))
	ad = append(append(ad, server...), ns...)
	siv, err := subtle.NewAESSIV(sivKey)
	if err != nil {
		panic(err)
	}
	ct, err := siv.EncryptDeterministically([]byte(value), ad)
	if err != nil {
		panic(err)
	}
	return label + "_" + base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(append(header, ct...))
}

// Every label and scope: a sealed pseudonym has the documented form and
// length, is the reference construction, is stable, and restores to the
// value (emails and addresses in lower case) in its namespace only.
func TestSealedRoundTrip(t *testing.T) {
	values := []struct{ label, value, want string }{
		{"EMAIL", "Alice.Martin@Example.com", "alice.martin@example.com"},
		{"PHONE", "+44 20 7946 0958", "+44 20 7946 0958"},
		{"CREDIT_CARD", "4111-1111-1111-1111", "4111-1111-1111-1111"},
		{"US_SSN", "078-05-1120", "078-05-1120"},
		{"IBAN", "GB82 WEST 1234 5698 7654 32", "GB82 WEST 1234 5698 7654 32"},
		{"IP_ADDRESS", "2001:DB8::1", "2001:db8::1"},
		{"MAC_ADDRESS", "00:1A:2B:3C:4D:5E", "00:1a:2b:3c:4d:5e"},
		{"SECRET", "hunter2hunter2", "hunter2hunter2"},
		{"CUSTOM_LABEL_2", "Ünïcödé 値", "Ünïcödé 値"},
		{"X", "", ""},
		{"SECRET", strings.Repeat("k", MaxSealedValue), strings.Repeat("k", MaxSealedValue)},
	}
	clk := newClock()
	for _, scope := range []policy.VaultScope{policy.VaultGlobal, policy.VaultPerPrincipal} {
		for _, ttl := range []float64{0, 3600} {
			v := newSealed(t, [][]byte{sealedKeyA}, vaultConfig(scope, ttl, 0), "srv", nil, clk.now)
			otherServer := newSealed(t, [][]byte{sealedKeyA}, vaultConfig(scope, ttl, 0), "srv2", nil, clk.now)
			for _, c := range values {
				name := fmt.Sprintf("%s ttl %g %s %.20q", scope, ttl, c.label, c.value)
				ns := v.Namespace("alice")
				p := v.Pseudonymise(ns, c.label, c.value)
				epoch := int64(-1)
				if ttl > 0 {
					epoch = clk.t.Unix() - clk.t.Unix()%1800
				}
				if want := referenceSeal(sealedKeyA, "srv", ns, c.label, c.want, epoch); p != want {
					t.Errorf("%s: %q, want the reference %q", name, p, want)
				}
				if !sealedPattern.MatchString(p) || !isPseudonym(p) {
					t.Errorf("%s: %q is not LABEL_ and a sealed token", name, p)
				}
				if v.Pseudonym(ns, c.label, c.value) != p || v.Pseudonymise(ns, c.label, c.value) != p {
					t.Errorf("%s: not stable", name)
				}
				if got, ok := v.Resolve(ns, p); !ok || got != c.want {
					t.Errorf("%s: resolves to %q %v, want %q", name, got, ok, c.want)
				}
				if _, ok := otherServer.Resolve(ns, p); ok {
					t.Errorf("%s: resolves for another server", name)
				}
				other := v.Namespace("bob")
				if _, ok := v.Resolve(other, p); ok != (scope == policy.VaultGlobal) {
					t.Errorf("%s: resolves for another principal: %v", name, ok)
				}
			}
		}
	}
}

// Values above MaxSealedValue are redacted, counted, and never sealed.
func TestSealedTooLong(t *testing.T) {
	v := newSealed(t, [][]byte{sealedKeyA}, vaultConfig(policy.VaultGlobal, 0, 0), "srv", nil, newClock().now)
	long := strings.Repeat("x", MaxSealedValue+1)
	if got := v.Pseudonymise("", "SECRET", long); got != "[REDACTED:SECRET]" {
		t.Errorf("too long a value gave %.40q…, want [REDACTED:SECRET]", got)
	}
	if s := v.Stats(); s.TooLong != 1 || s.Issued != 0 {
		t.Errorf("stats %+v, want one too long, none issued", s)
	}
	// Emails in upper case: the limit applies to what is sealed.
	if p := v.Pseudonymise("", "EMAIL", strings.Repeat("A", MaxSealedValue)); !isPseudonym(p) {
		t.Errorf("a value of exactly MaxSealedValue bytes was not sealed: %.40q…", p)
	}
}

// One key issues, all keys of the ring restore; a key out of the ring
// restores nothing, and nothing is restored to another value.
func TestSealedRotation(t *testing.T) {
	clk := newClock()
	cfg := vaultConfig(policy.VaultGlobal, 0, 0)
	before := newSealed(t, [][]byte{sealedKeyA}, cfg, "srv", nil, clk.now)
	during := newSealed(t, [][]byte{sealedKeyB, sealedKeyA}, cfg, "srv", nil, clk.now)
	after := newSealed(t, [][]byte{sealedKeyB}, cfg, "srv", nil, clk.now)
	old := before.Pseudonymise("", "EMAIL", "alice@example.com")
	fresh := during.Pseudonymise("", "EMAIL", "alice@example.com")
	if old == fresh || after.Pseudonymise("", "EMAIL", "alice@example.com") != fresh {
		t.Fatalf("the new key does not issue: %q, %q", old, fresh)
	}
	for _, c := range []struct {
		name string
		v    *Sealed
		p    string
		ok   bool
	}{
		{"old key, old pseudonym", before, old, true},
		{"old key, new pseudonym", before, fresh, false},
		{"ring, old pseudonym", during, old, true},
		{"ring, new pseudonym", during, fresh, true},
		{"new key, old pseudonym", after, old, false},
		{"new key, new pseudonym", after, fresh, true},
	} {
		got, ok := c.v.Resolve("", c.p)
		if ok != c.ok || ok && got != "alice@example.com" || !ok && got != "" {
			t.Errorf("%s: %q %v, want restored %v", c.name, got, ok, c.ok)
		}
	}
	if s := after.Stats(); s.Unauthentic != 1 || s.Resolved != 1 {
		t.Errorf("stats of the new key alone %+v, want one unauthentic, one resolved", s)
	}
}

// Two keys of a ring with one key id are both tried.
func TestSealedKeyIDCollision(t *testing.T) {
	a := []byte("collide 0")
	var b []byte
	for i := 1; ; i++ {
		b = []byte(fmt.Sprintf("collide %d", i))
		if SealedKeyID(b) == SealedKeyID(a) {
			break
		}
	}
	clk := newClock()
	cfg := vaultConfig(policy.VaultGlobal, 0, 0)
	pa := newSealed(t, [][]byte{a}, cfg, "srv", nil, clk.now).Pseudonymise("", "EMAIL", "a@example.com")
	pb := newSealed(t, [][]byte{b}, cfg, "srv", nil, clk.now).Pseudonymise("", "EMAIL", "b@example.com")
	ring := newSealed(t, [][]byte{a, b}, cfg, "srv", nil, clk.now)
	if got, ok := ring.Resolve("", pa); !ok || got != "a@example.com" {
		t.Errorf("first key's pseudonym: %q %v", got, ok)
	}
	if got, ok := ring.Resolve("", pb); !ok || got != "b@example.com" {
		t.Errorf("second key's pseudonym: %q %v", got, ok)
	}
}

// Any one character changed, dropped or added, the label changed, the
// namespace changed: refused, counted as unauthentic, never another value.
func TestSealedTamperedRefused(t *testing.T) {
	clk := newClock()
	for _, ttl := range []float64{0, 86400} {
		v := newSealed(t, [][]byte{sealedKeyA}, vaultConfig(policy.VaultPerPrincipal, ttl, 0), "srv", nil, clk.now)
		p := v.Pseudonymise("alice", "EMAIL", "alice@example.com")
		_, token := SplitPseudonym(p)
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
		var forged []string
		for i := range len(token) {
			for j := range len(alphabet) {
				if alphabet[j] != token[i] {
					forged = append(forged, "EMAIL_"+token[:i]+alphabet[j:j+1]+token[i+1:])
				}
			}
			forged = append(forged, "EMAIL_"+token[:i]+token[i+1:], "EMAIL_"+token[:i]+"A"+token[i:])
		}
		forged = append(forged, "PHONE_"+token, "EMAIL2_"+token, "EMAIL_"+token+"A", "EMAIL_"+token[:len(token)-1])
		unauthentic := 0
		for _, f := range forged {
			if got, ok := v.Resolve("alice", f); ok || got != "" {
				t.Fatalf("ttl %g: %q (altered from %q) resolved to %q", ttl, f, p, got)
			}
			if _, r := v.Restore("alice", "to "+f+" now", nil); r.Resolved != 0 {
				t.Fatalf("ttl %g: %q restored", ttl, f)
			} else if isPseudonym(f) {
				unauthentic++
				if r.Unresolved != 1 || r.Unauthentic != 1 {
					t.Fatalf("ttl %g: %q counted %+v, want one unresolved, unauthentic", ttl, f, r)
				}
			}
		}
		if unauthentic < 32*len(token) {
			t.Errorf("ttl %g: only %d of the altered tokens had a pseudonym's form", ttl, unauthentic)
		}
		if _, ok := v.Resolve("bob", p); ok {
			t.Errorf("ttl %g: bob resolves alice's pseudonym", ttl)
		}
		if got, ok := v.Resolve("alice", p); !ok || got != "alice@example.com" {
			t.Errorf("ttl %g: the original no longer resolves: %q %v", ttl, got, ok)
		}
	}
}

// A token that is no canonical base32 (bits beyond the bytes set in its
// last character) is refused, so one value never has two tokens that open.
func TestSealedNonCanonicalRefused(t *testing.T) {
	v := newSealed(t, [][]byte{sealedKeyA}, vaultConfig(policy.VaultGlobal, 0, 0), "srv", nil, newClock().now)
	for _, value := range []string{"a@b.co", "alice@example.com", "bob.smith@example.org"} {
		p := v.Pseudonymise("", "EMAIL", value)
		_, token := SplitPseudonym(p)
		raw, _ := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(token)
		extra := len(token)*5 - len(raw)*8
		if extra == 0 {
			continue
		}
		last := strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", token[len(token)-1])
		alt := "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"[last|1]
		q := "EMAIL_" + token[:len(token)-1] + string(alt)
		if b, _ := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(q[6:]); string(b) != string(raw) {
			t.Fatalf("test setup: %q does not decode as %q", q, p)
		}
		if _, ok := v.Resolve("", q); ok {
			t.Errorf("%q, a non-canonical spelling of %q, resolved", q, p)
		}
	}
}

// With ttl_seconds a sealed pseudonym carries its epoch: the same value
// keeps its pseudonym within an epoch (half the TTL), and a pseudonym
// restores until the TTL after its epoch began, never later.
func TestSealedTTL(t *testing.T) {
	clk := newClock()
	ttl := 2 * time.Hour
	v := newSealed(t, [][]byte{sealedKeyA}, vaultConfig(policy.VaultGlobal, ttl.Seconds(), 0), "srv", nil, clk.now)
	clk.t = time.Unix(1_800_000_000-1_800_000_000%3600, 0) // an epoch's start
	p := v.Pseudonymise("", "EMAIL", "alice@example.com")
	clk.advance(time.Hour - time.Second)
	if v.Pseudonymise("", "EMAIL", "alice@example.com") != p {
		t.Error("a new pseudonym within the epoch")
	}
	clk.advance(time.Second)
	q := v.Pseudonymise("", "EMAIL", "alice@example.com")
	if q == p {
		t.Error("the same pseudonym in the next epoch")
	}
	clk.advance(time.Hour - time.Second) // ttl − 1 s after p's epoch began
	if _, ok := v.Resolve("", p); !ok {
		t.Error("expired before the TTL")
	}
	clk.advance(time.Second)
	if got, ok := v.Resolve("", p); ok || got != "" {
		t.Errorf("restored at the TTL: %q", got)
	}
	if _, ok := v.Resolve("", q); !ok {
		t.Error("the next epoch's pseudonym expired with the previous one")
	}
	_, r := v.Restore("", p, nil)
	if r.Unresolved != 1 || r.Unauthentic != 0 {
		t.Errorf("an expired pseudonym counted %+v, want unresolved, not unauthentic", r)
	}
	if s := v.Stats(); s.Expired != 2 {
		t.Errorf("stats %+v, want 2 expired", s)
	}
	// From a clock more than an epoch ahead: refused.
	ahead := newSealed(t, [][]byte{sealedKeyA}, vaultConfig(policy.VaultGlobal, ttl.Seconds(), 0), "srv", nil,
		func() time.Time { return clk.t.Add(2 * time.Hour) })
	if _, ok := v.Resolve("", ahead.Pseudonymise("", "EMAIL", "alice@example.com")); ok {
		t.Error("a pseudonym from two epochs ahead restored")
	}
	aheadLittle := newSealed(t, [][]byte{sealedKeyA}, vaultConfig(policy.VaultGlobal, ttl.Seconds(), 0), "srv", nil,
		func() time.Time { return clk.t.Add(10 * time.Minute) })
	if _, ok := v.Resolve("", aheadLittle.Pseudonymise("", "EMAIL", "alice@example.com")); !ok {
		t.Error("a pseudonym from a clock ten minutes ahead did not restore")
	}
	// Issued without a TTL: a vault with one refuses it (it cannot tell
	// its age); the other way round the epoch is ignored.
	none := newSealed(t, [][]byte{sealedKeyA}, vaultConfig(policy.VaultGlobal, 0, 0), "srv", nil, clk.now)
	if _, ok := v.Resolve("", none.Pseudonymise("", "EMAIL", "alice@example.com")); ok {
		t.Error("a pseudonym without epoch restored under a TTL")
	}
	if _, ok := none.Resolve("", p); !ok {
		t.Error("a pseudonym with an epoch did not restore without a TTL")
	}
}

// The sealed vault also restores the per-process vault's pseudonyms, and
// StoreIssuing issues those while restoring both kinds; the store vault
// alone leaves sealed pseudonyms unresolved without probing its table.
func TestSealedWithStoredVault(t *testing.T) {
	clk := newClock()
	cfg := vaultConfig(policy.VaultPerPrincipal, 0, 1024)
	kv := &countingKV{KV: NewMemoryKV()}
	stored := New(sealedKeyA, cfg, kv, clk.now)
	sealed := newSealed(t, [][]byte{sealedKeyA}, cfg, "srv", stored, clk.now)
	both := sealed.StoreIssuing()

	sp := both.Pseudonymise("alice", "EMAIL", "alice@example.com")
	if !isStoredPseudonym(sp) || both.Pseudonym("alice", "EMAIL", "alice@example.com") != sp {
		t.Fatalf("StoreIssuing issued %q, want a stored pseudonym", sp)
	}
	sl := sealed.Pseudonymise("alice", "PHONE", "+44 20 7946 0958")
	text := "mail " + sp + ", call " + sl
	want := "mail alice@example.com, call +44 20 7946 0958"
	for name, s := range map[string]PseudonymStore{"sealed": sealed, "store issuing": both} {
		if got, r := s.Restore("alice", text, nil); got != want || r.Resolved != 2 {
			t.Errorf("%s: %q (%+v), want %q", name, got, r, want)
		}
		if got, r := s.Restore("bob", text, nil); got != text || r.Unresolved != 2 || r.Unauthentic != 1 {
			t.Errorf("%s for bob: %q (%+v), want both unresolved, the sealed one unauthentic", name, got, r)
		}
	}
	gets := kv.gets
	got, r := stored.Restore("alice", text, nil)
	if got != "mail alice@example.com, call "+sl || r.Resolved != 1 || r.Unresolved != 1 {
		t.Errorf("the store vault: %q (%+v)", got, r)
	}
	if _, ok := stored.Resolve("alice", sl); ok || kv.gets != gets {
		t.Errorf("the store vault looked a sealed pseudonym up (%d reads)", kv.gets-gets)
	}
}

func TestSealedFindPseudonyms(t *testing.T) {
	v := newSealed(t, [][]byte{sealedKeyA}, vaultConfig(policy.VaultGlobal, 0, 0), "srv", nil, newClock().now)
	email := v.Pseudonymise("", "EMAIL", "a@b.co")
	ip := v.Pseudonymise("", "IP_ADDRESS", "10.0.0.1")
	long := v.Pseudonymise("", "SECRET", strings.Repeat("s", MaxSealedValue))
	short := email[:len(email)-1]
	for isSealedTokenLen(len(short) - len("EMAIL_")) {
		short = short[:len(short)-1]
	}
	tests := []struct {
		text string
		want []string
	}{
		{"send to " + email + " now", []string{email}},
		{email + "," + ip, []string{email, ip}},
		{email + "2", []string{email + "2"}}, // pseudonym-shaped: it will not authenticate
		{"«" + ip + "»", []string{ip}},
		{long + ".", []string{long}},
		{email + "x", nil},                            // token runs on
		{short, nil},                                  // 1, 3 or 6 modulo 8: no base32 length
		{"x" + email, nil},                            // inside a word
		{"EMAIL_" + strings.Repeat("A", 28), nil},     // between a stored and a sealed token
		{long + strings.Repeat("A", 24), nil},         // longer than any sealed token
		{strings.ToLower(email[:6]) + email[6:], nil}, // no label
	}
	for _, tc := range tests {
		var got []string
		for _, sp := range FindPseudonyms(tc.text, nil) {
			got = append(got, tc.text[sp.Start:sp.End])
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("FindPseudonyms(%.80q) = %.80q, want %.80q", tc.text, got, tc.want)
		}
		if len(tc.want) > 0 && !MayHoldPseudonym([]byte(`"`+tc.text+`"`)) {
			t.Errorf("MayHoldPseudonym(%.80q) = false", tc.text)
		}
	}
}

// FuzzSealedToken: whatever a client sends as a token, opening it never
// panics, and a token that opens is exactly the one sealing its value
// gives: no second spelling of a pseudonym restores, and no token restores
// to a value it was not issued for.
func FuzzSealedToken(f *testing.F) {
	clk := newClock()
	cfg := vaultConfig(policy.VaultGlobal, 0, 0)
	v := newSealed(f, [][]byte{sealedKeyA}, cfg, "srv", nil, clk.now)
	other := newSealed(f, [][]byte{sealedKeyB}, cfg, "srv", nil, clk.now)
	for _, val := range []string{"alice@example.com", "", "x", strings.Repeat("y", 40)} {
		_, tok := SplitPseudonym(v.Pseudonymise("", "EMAIL", val))
		f.Add("EMAIL", tok)
		f.Add("EMAIL", tok[:len(tok)-1]+"Q")
		_, tok = SplitPseudonym(other.Pseudonymise("", "EMAIL", val))
		f.Add("EMAIL", tok)
	}
	f.Add("EMAIL", strings.Repeat("A", 29))
	f.Add("X", "CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	f.Fuzz(func(t *testing.T, label, token string) {
		p := label + "_" + token
		value, ok := v.Resolve("", p)
		if !ok {
			if value != "" {
				t.Fatalf("%q refused but gave %q", p, value)
			}
			return
		}
		if again := v.Pseudonym("", label, value); again != p {
			t.Fatalf("%q opened to %q, which seals as %q", p, value, again)
		}
	})
}

// BenchmarkSealedPseudonymise is the cost of one sealed pseudonym (an
// email): recurring values the cache answers, and new ones sealed.
func BenchmarkSealedPseudonymise(b *testing.B) {
	clk := newClock()
	values := make([]string, 1024)
	for i := range values {
		values[i] = fmt.Sprintf("user%d@corp.com", i)
	}
	b.Run("repeated", func(b *testing.B) {
		v := newSealed(b, [][]byte{sealedKeyA}, vaultConfig(policy.VaultGlobal, 0, 0), "srv", nil, clk.now)
		for _, x := range values[:64] {
			if p := v.Pseudonymise("", "EMAIL", x); !isPseudonym(p) {
				b.Fatalf("not sealed: %q", p)
			}
		}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			v.Pseudonymise("", "EMAIL", values[i%64])
		}
	})
	b.Run("fresh", func(b *testing.B) {
		v := newSealed(b, [][]byte{sealedKeyA}, vaultConfig(policy.VaultGlobal, 0, 0), "srv", nil, clk.now)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			v.Pseudonymise("", "EMAIL", "user"+strconv.Itoa(i)+"@corp.com")
		}
	})
}

// BenchmarkSealedRestore is the cost of restoring sealed pseudonyms: one
// the cache holds, ones opened (more than the cache holds), and a small
// argument document holding two.
func BenchmarkSealedRestore(b *testing.B) {
	clk := newClock()
	cfg := vaultConfig(policy.VaultGlobal, 0, 0)
	issuer := newSealed(b, [][]byte{sealedKeyA}, cfg, "srv", nil, clk.now)
	ps := make([]string, 4096)
	for i := range ps {
		ps[i] = issuer.Pseudonymise("", "EMAIL", fmt.Sprintf("user%d@corp.com", i))
	}
	b.Run("cached", func(b *testing.B) {
		v := newSealed(b, [][]byte{sealedKeyA}, cfg, "srv", nil, clk.now)
		v.Resolve("", ps[0])
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := v.Resolve("", ps[0]); !ok {
				b.Fatal("miss")
			}
		}
	})
	b.Run("opened", func(b *testing.B) {
		v := newSealed(b, [][]byte{sealedKeyA}, cfg, "srv", nil, clk.now)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, ok := v.Resolve("", ps[i%len(ps)]); !ok {
				b.Fatal("miss")
			}
		}
	})
	b.Run("depseudonymise", func(b *testing.B) {
		v := newSealed(b, [][]byte{sealedKeyA}, cfg, "srv", nil, clk.now)
		text := `{"to":"` + ps[1] + `","cc":"` + ps[2] + `","body":"call me"}`
		b.ReportAllocs()
		for b.Loop() {
			if _, n := v.Depseudonymise("", text); n != 2 {
				b.Fatal(n)
			}
		}
	})
}
