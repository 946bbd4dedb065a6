package transforms

import (
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms/detect"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

// restoreFixture is an engine over a real vault, its output pipeline
// (pseudonymise) and its input pipeline (the depseudonymiser). store, when
// not nil, is every run's store (Run.Store): the sealed vault.
type restoreFixture struct {
	e       *Engine
	out, in *Pipeline
	store   vault.PseudonymStore
}

// restoreStores are the two kinds of vault the restore tests run over.
var restoreStores = []string{"stored", "sealed"}

// newRestoreFixtureOf is newRestoreFixture whose runs use the sealed vault
// (over the stored one) when kind is "sealed".
func newRestoreFixtureOf(t *testing.T, scope, kind string) *restoreFixture {
	t.Helper()
	f := newRestoreFixture(t, scope)
	if kind == "sealed" {
		sv, err := vault.NewSealed([][]byte{testKey}, f.e.policy.Vault, "srv", f.e.store.(*vault.Vault), newClock().now)
		if err != nil {
			t.Fatal(err)
		}
		f.store = sv
	}
	return f
}

func newRestoreFixture(t *testing.T, scope string) *restoreFixture {
	t.Helper()
	p, errs := policy.ParsePolicy([]byte("# yaml\n{name: p, vault: {scope: "+scope+"}, transforms: [pseudonymise]}"), policy.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	clk := newClock()
	v := vault.New(testKey, p.Vault, vault.NewMemoryKV(), clk.now)
	e, err := NewEngine(p, v, testKey)
	if err != nil {
		t.Fatal(err)
	}
	f := &restoreFixture{e: e}
	if f.out, err = e.Compile(p.OutputPipeline(nil, nil)); err != nil {
		t.Fatal(err)
	}
	if f.in, err = e.Compile(p.InputPipeline(nil, nil)); err != nil {
		t.Fatal(err)
	}
	return f
}

// pseudonymise returns the pseudonym the output pipeline gives text's one
// value, in namespace ns.
func (f *restoreFixture) pseudonymise(t *testing.T, ns, text, value string) string {
	t.Helper()
	out := f.e.ApplyText(f.out, text, &Run{Namespace: ns, Store: f.store})
	sp := vault.FindPseudonyms(out, nil)
	if len(sp) != 1 || strings.Contains(out, value) {
		t.Fatalf("%q pseudonymised as %q", text, out)
	}
	return out[sp[0].Start:sp[0].End]
}

// restore runs the input pipeline over s as an argument.
func (f *restoreFixture) restore(t *testing.T, ns, s string) (string, *Run) {
	t.Helper()
	doc, err := jsondoc.Parse([]byte(`{"a":` + jsondoc.Quote(s) + `}`))
	if err != nil {
		t.Fatal(err)
	}
	run := &Run{Namespace: ns, Store: f.store}
	f.e.Apply(f.in, doc, jsondoc.Root, Arguments, run)
	got, _ := doc.Str(doc.Get(jsondoc.Root, "a"))
	return got, run
}

// glues are what a model may put next to a pseudonym: every ASCII
// character, a punctuation mark followed by a letter or a digit, and
// samples of non-ASCII classes (letters of several scripts, combining
// marks, joiners, invisible characters, space variants, fullwidth forms,
// other digits, dashes, CJK punctuation), alone and before a letter.
func glues() []string {
	var out []string
	for c := 0; c < 128; c++ {
		out = append(out, string(rune(c)))
		if c > ' ' && c < 0x7f && !wordRune(rune(c)) {
			out = append(out, string(rune(c))+"x", string(rune(c))+"5")
		}
	}
	// Escapes the reader view decodes (12.6): what they stand for glues.
	out = append(out, "%41", "%2e5", "%2D1", "%40x", "&#65;", "&#x2E;5", "&commat;b", "&nbsp;1111")
	out = append(out, []string{"é", "ß", "я", "α", "ע", "ب", "中", "。", "、", "\u0301", "\u200d", "\u200c", "\u200b", "\u00ad", "\u2060", "\ufeff",
		"\u00a0", "\u3000", "ａ", "Ａ", "５", "٣", "\U0001d7d3", "—", "\u2011", "→", "«", "»", "“", "’", "\u2011x", "．5", "\uff20x", "\u200b5", "\u200bé", "é5", " 5", " 1234", "\u00a05", " 0044", "-1234", "::1", ":5", "/5"}...)
	return out
}

// A pseudonym glued to any character is either restored exactly (and its
// value then reads as exactly that value, so an echo of it is found again)
// or left alone: never restored as part of a longer token.
func TestPseudonymGluedToAnyCharacter(t *testing.T) {
	for _, kind := range restoreStores {
		t.Run(kind, func(t *testing.T) { testPseudonymGluedToAnyCharacter(t, newRestoreFixtureOf(t, "global", kind)) })
	}
}

func testPseudonymGluedToAnyCharacter(t *testing.T, f *restoreFixture) {
	values := []struct{ text, value string }{
		{"alice@example.com", "alice@example.com"},
		{"+44 20 7946 0958", "+44 20 7946 0958"},
		{"4111 1111 1111 1111", "4111 1111 1111 1111"},
		{"10.0.0.1", "10.0.0.1"},
		{"2001:db8::8a2e:370:7334", "2001:db8::8a2e:370:7334"},
		{"DE89 3704 0044 0532 0130 00", "DE89 3704 0044 0532 0130 00"},
		{"078-05-1120", "078-05-1120"},
		{"AKIAYPKZVCGCKMHTXPVQ", "AKIAYPKZVCGCKMHTXPVQ"},
		{"password=hunter2hunter2", "hunter2hunter2"}, // found only in context
	}
	for _, v := range values {
		p := f.pseudonymise(t, "", v.text, v.value)
		alone := len(f.e.Detectors().Detect(v.value, selectAll)) > 0
		for _, g := range glues() {
			for _, in := range []string{p + g, g + p, "to " + p + g + " ok", "to " + g + p + " ok"} {
				got, _ := f.restore(t, "", in)
				if got == in {
					continue // left alone
				}
				if got != strings.Replace(in, p, v.value, 1) {
					t.Fatalf("%q restored as %q: not exactly the value %q", in, got, v.value)
				}
				at := strings.Index(got, v.value)
				if r, _ := utf8.DecodeRuneInString(got[at+len(v.value):]); unicode.IsMark(r) || r >= utf8.RuneSelf && detect.ReaderText(string(r)) == "" {
					t.Fatalf("%q restored as %q: %q changes or hides the value's last character", in, got, r)
				}
				for _, d := range f.e.Detectors().Detect(got, selectAll) {
					if d.End > at && d.Start < at+len(v.value) && (d.Start != at || d.End != at+len(v.value)) {
						t.Fatalf("%q restored as %q: the value is part of the %s %q", in, got, d.Label, got[d.Start:d.End])
					}
				}
				if alone {
					// An echo of the restored text pseudonymises the value again.
					if echo := f.e.ApplyText(f.out, got, &Run{Store: f.store}); strings.Contains(detect.ReaderText(echo), v.value) {
						t.Fatalf("%q restored as %q, echoed raw as %q", in, got, echo)
					}
				} else if joinsBefore(got[:at]) || joinsAfter(got[at+len(v.value):]) {
					t.Fatalf("%q restored as %q: the value touches a word", in, got)
				}
			}
		}
	}
}

// What a model writes around a pseudonym in ordinary text restores.
func TestPseudonymRestoredInOrdinaryText(t *testing.T) {
	for _, kind := range restoreStores {
		t.Run(kind, func(t *testing.T) { testPseudonymRestoredInOrdinaryText(t, newRestoreFixtureOf(t, "global", kind)) })
	}
}

func testPseudonymRestoredInOrdinaryText(t *testing.T, f *restoreFixture) {
	email := f.pseudonymise(t, "", "alice@example.com", "alice@example.com")
	ip := f.pseudonymise(t, "", "10.0.0.1", "10.0.0.1")
	secret := f.pseudonymise(t, "", "password=hunter2hunter2", "hunter2hunter2")
	for _, c := range []struct{ in, want string }{
		{"write to " + email + ".", "write to alice@example.com."},
		{"mailto:" + email, "mailto:alice@example.com"},
		{`"` + email + `", (` + email + `)`, `"alice@example.com", (alice@example.com)`},
		{"担当" + email + "様。", "担当alice@example.com様。"},
		{"«" + email + "»\u00a0ok", "«alice@example.com»\u00a0ok"},
		{"connect " + ip + ":8080 or " + ip + "/24", "connect 10.0.0.1:8080 or 10.0.0.1/24"},
		{secret, "hunter2hunter2"},
		{"password=" + secret, "password=hunter2hunter2"},
	} {
		if got, run := f.restore(t, "", c.in); got != c.want || run.Refused != 0 {
			t.Errorf("%q restored as %q (refused %d), want %q", c.in, got, run.Refused, c.want)
		}
	}
}

// Refused and unresolvable pseudonyms are counted for the audit: a
// resolved pseudonym whose place refuses it, one of another namespace,
// one never issued.
func TestRestoreCountsRefusedAndUnresolved(t *testing.T) {
	f := newRestoreFixture(t, "principal")
	mine := f.pseudonymise(t, "alice", "alice@example.com", "alice@example.com")
	bobs := f.pseudonymise(t, "bob", "bob@example.com", "bob@example.com")
	forged := "EMAIL_" + strings.Repeat("A", vault.TokenLen)
	got, run := f.restore(t, "alice", mine+" "+mine+".5 "+bobs+" "+forged)
	want := "alice@example.com " + mine + ".5 " + bobs + " " + forged
	if got != want || run.Resolved != 1 || run.Refused != 1 || run.Unresolved != 2 {
		t.Errorf("got %q resolved %d refused %d unresolved %d; want %q 1 1 2", got, run.Resolved, run.Refused, run.Unresolved, want)
	}
}

// The writer and the reader agree: every pseudonym the output pipeline
// writes into the mixed corpus and the detector corpus restores in place
// (none refused), giving back the text (in the spelling the vault
// stored first).
func TestPseudonymsWrittenRestoreInPlace(t *testing.T) {
	for _, kind := range restoreStores {
		t.Run(kind, func(t *testing.T) { testPseudonymsWrittenRestoreInPlace(t, newRestoreFixtureOf(t, "global", kind)) })
	}
}

// A pseudonym the writer would glue to an ASCII word character (another
// pseudonym, digits: values side by side in text without spaces) is set
// apart by a space, so the reader finds it (regression: 王伟1975年2月14日
// came back with both pseudonyms unresolved).
func TestPseudonymsGluedSetApart(t *testing.T) {
	for _, kind := range restoreStores {
		f := newRestoreFixtureOf(t, "global", kind)
		for _, doc := range []string{
			"王伟1975年2月14日出生。",
			"担当山田太郎090-1234-5678",
			"生年月日1980年5月3日山田太郎",
		} {
			out := f.e.ApplyText(f.out, doc, &Run{Store: f.store})
			if n := len(vault.FindPseudonyms(out, nil)); n != 2 {
				t.Errorf("%s: %q pseudonymised as %q: %d pseudonyms found, want 2", kind, doc, out, n)
			}
			back, run := f.restore(t, "", out)
			if run.Resolved != 2 || run.Unresolved != 0 || alnum(back) != alnum(doc) {
				t.Errorf("%s: %q pseudonymised as %q came back as %q (%d resolved, %d unresolved)", kind, doc, out, back, run.Resolved, run.Unresolved)
			}
		}
	}
}

func testPseudonymsWrittenRestoreInPlace(t *testing.T, f *restoreFixture) {
	_, docs := readMixed(t)
	for _, b := range policy.BuiltinDetectors {
		docs = append(docs, detectorCorpusTexts(t, b.Name)...)
	}
	for _, doc := range docs {
		out := f.e.ApplyText(f.out, doc, &Run{Store: f.store})
		if f.store != nil && strings.Contains(out, "[REDACTED:") {
			// A sealed vault redacts values longer than MaxSealedValue.
			long := false
			for _, d := range f.e.Detectors().Detect(doc, selectAll) {
				long = long || d.End-d.Start > vault.MaxSealedValue
			}
			if !long {
				t.Fatalf("%q pseudonymised as %q: redacted, with no value longer than %d bytes", doc, out, vault.MaxSealedValue)
			}
			continue
		}
		back, run := f.restore(t, "", out)
		if run.Refused != 0 || run.Unresolved != 0 {
			t.Fatalf("%q pseudonymised as %q: %d refused, %d unresolved on the way back (%q)", doc, out, run.Refused, run.Unresolved, back)
		}
		// The vault puts back the spelling it stored first: compare
		// letters and digits, in lower case, both as a reader reads them
		// (the reader view drops combining marks: आधार's vowel signs).
		if alnum(detect.ReaderText(back)) != alnum(detect.ReaderText(doc)) {
			t.Fatalf("%q came back as %q", doc, back)
		}
	}
}

func alnum(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if wordRune(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Through the engine: Run.Store picks the store of one message, the
// pipeline counts what a foreign or altered sealed pseudonym is, and the
// engine's own store stays the default.
func TestSealedRunStore(t *testing.T) {
	f := newRestoreFixtureOf(t, "principal", "sealed")
	mine := f.pseudonymise(t, "alice", "write to alice@example.com", "alice@example.com")
	if len(mine) <= len("EMAIL_")+vault.TokenLen {
		t.Fatalf("Run.Store not used: %q", mine)
	}
	bobs := f.pseudonymise(t, "bob", "write to bob@example.com", "bob@example.com")
	_, token := vault.SplitPseudonym(mine)
	phone := "PHONE_" + token
	swap := "A"
	if token[10] == 'A' {
		swap = "B"
	}
	altered := "EMAIL_" + token[:10] + swap + token[11:]
	otherKey := newSealed(t, [][]byte{sealedKeyB}, f.e.policy.Vault, "srv", nil, newClock().now).Pseudonymise("alice", "EMAIL", "alice@example.com")
	got, run := f.restore(t, "alice", mine+" "+bobs+" "+phone+" "+altered+" "+otherKey)
	want := "alice@example.com " + bobs + " " + phone + " " + altered + " " + otherKey
	if got != want || run.Resolved != 1 || run.Unresolved != 4 || run.Unauthentic != 4 {
		t.Errorf("got %q resolved %d unresolved %d unauthentic %d; want %q 1 4 4", got, run.Resolved, run.Unresolved, run.Unauthentic, want)
	}
	// Without Run.Store the engine's store (the per-process vault) issues.
	out := f.e.ApplyText(f.out, "write to carol@example.com", &Run{Namespace: "alice"})
	if sp := vault.FindPseudonyms(out, nil); len(sp) != 1 || sp[0].End-sp[0].Start != len("EMAIL_")+vault.TokenLen {
		t.Errorf("engine default issued %q, want a stored pseudonym", out)
	}
	// Preview issues the same sealed pseudonym, counting nothing.
	sv := f.store.(*vault.Sealed)
	issued := sv.Stats().Issued
	if out := f.e.ApplyText(f.out, "write to alice@example.com", &Run{Namespace: "alice", Store: sv, Preview: true}); out != "write to "+mine {
		t.Errorf("preview gave %q, want %q", out, "write to "+mine)
	}
	if sv.Stats().Issued != issued {
		t.Error("preview counted as issued")
	}
}

// detectorCorpusTexts are the texts of the detector corpus of name
// (testdata/detectors, read with its marks by transforms/detect's
// corpus_test.go): the lines after their "+ " or "- ", marks removed.
func detectorCorpusTexts(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile("../testdata/detectors/" + name + ".txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if len(line) < 2 || (line[0] != '+' && line[0] != '-') || line[1] != ' ' {
			continue
		}
		text := strings.ReplaceAll(line[2:], `\n`, "\n")
		out = append(out, strings.NewReplacer("«", "", "»", "").Replace(text))
	}
	return out
}
