package transforms

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/cloudg/mcp-privacy/policy"
)

// eachFixture is a detector set with custom detectors (one overlapping
// the built-ins' email and card, one of low sensitivity) and groups of
// selections a pipeline's steps could make.
func eachFixture(t testing.TB) (*DetectorSet, [][]Selection) {
	t.Helper()
	p, errs := policy.ParsePolicy([]byte(`{"detectors": [
		{"name": "order", "pattern": "ORD-[0-9]{6}"},
		{"name": "mailbox", "pattern": "[a-z]+@example", "sensitivity": "internal"},
		{"name": "digits", "pattern": "[0-9]{4} [0-9]{4}", "sensitivity": "restricted"}],
		"disabled_detectors": ["ipv6"]}`), policy.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	ds, err := NewDetectorSet(p)
	if err != nil {
		t.Fatal(err)
	}
	all, secrets, pii := Select(nil, 0), Select([]string{"@secrets"}, 0), Select([]string{"@pii"}, 0)
	return ds, [][]Selection{
		{secrets, pii}, // the standard profile
		{pii, secrets},
		{all},
		{all, all},
		{Select([]string{"email"}, 0), Select([]string{"mailbox", "card"}, 0), Select(nil, policy.Confidential)},
		{Select([]string{"@pii", "order"}, policy.Confidential), Select([]string{"digits", "phone"}, 0)},
		{Select([]string{"ipv6"}, 0), Select([]string{"nothing"}, 0)},
	}
}

// eachSame checks that DetectEach gives each selection what DetectAppend
// gives it alone.
func eachSame(t *testing.T, ds *DetectorSet, groups [][]Selection, s string) {
	t.Helper()
	for g, sels := range groups {
		parts := make([]*Selection, len(sels))
		for i := range sels {
			parts[i] = &sels[i]
		}
		m, ok := ds.SelectEach(parts)
		if !ok {
			t.Fatalf("group %d: SelectEach refused", g)
		}
		// Something in dst already: DetectEach appends after it.
		prefix := []Detection{{Label: "BEFORE"}}
		got, ends := ds.DetectEach(prefix, nil, s, &m)
		if len(ends) != len(sels) || !reflect.DeepEqual(got[:1], prefix) {
			t.Fatalf("group %d: ends %v, dst %v", g, ends, got)
		}
		from := int32(1)
		for i, sel := range sels {
			want := ds.Detect(s, sel)
			if part := got[from:ends[i]]; !(len(part) == 0 && len(want) == 0) && !reflect.DeepEqual(part, want) {
				t.Fatalf("group %d, selection %d, %q:\none pass %+v\nalone    %+v", g, i, s, part, want)
			}
			from = ends[i]
		}
	}
}

// DetectEach, one pass for several selections, finds for each what a
// pass of its own finds: on the corpus, the mixed corpus, text with
// escapes (the reader view) and random strings over the detectors'
// alphabets.
func TestDetectEach(t *testing.T) {
	ds, groups := eachFixture(t)
	for _, name := range builtinNames {
		for _, c := range readCorpus(t, name) {
			eachSame(t, ds, groups, c.text)
		}
	}
	_, docs := readMixed(t)
	for _, doc := range docs {
		eachSame(t, ds, groups, doc)
	}
	for _, s := range []string{
		"", "x", "ORD-123456 bob@example.com 4111 1111 1111 1111",
		`mail bob\u0040example.com or ORD\u002d123456, key sk_live_4eC39HqLyjWDarjtT1zdp7dc`,
		"card 4111&#32;1111 1111 1111 from 2001:db8::1 and 203.0.113.7",
	} {
		eachSame(t, ds, groups, s)
	}
	r := rand.New(rand.NewPCG(7, 8))
	const alpha = "0123456789 -.:@_ORD-abexmplco\\u0040+AKIAsk_live_x"
	for range 5000 {
		b := make([]byte, 1+r.IntN(80))
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
		}
		eachSame(t, ds, groups, string(b))
	}
}

// FuzzDetectEach: one pass for several selections and a pass for each
// agree on any input.
func FuzzDetectEach(f *testing.F) {
	for _, s := range []string{
		"ORD-123456 bob@example.com 4111 1111 1111 1111",
		`bob\u0040example.com sk_live_4eC39HqLyjWDarjtT1zdp7dc`,
		"+44 20 7946 0958, 2001:db8::1",
	} {
		f.Add(s)
	}
	ds, groups := eachFixture(f)
	f.Fuzz(func(t *testing.T, s string) {
		eachSame(t, ds, groups, s)
	})
}
