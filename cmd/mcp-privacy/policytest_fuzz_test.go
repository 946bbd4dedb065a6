package main

import (
	"os"
	"slices"
	"testing"
)

// FuzzPolicyTestFiles: the test-file and catalog parsers take any bytes
// without a panic; what they accept keeps their promises (a named test
// with a known decision and one target; catalog entries with names).
func FuzzPolicyTestFiles(f *testing.F) {
	for _, name := range []string{"demo_test.yaml", "payments_test.yaml", "demo_catalog.json", "payments_catalog.json"} {
		if data, err := os.ReadFile("../../testdata/policies/" + name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("policy: p.yaml\ntests:\n  - {name: a, call: {resource: 'x://{y}'}, expect: {decision: deny, code: -1}}\n"))
	f.Add([]byte(`{"tools":[{"name":"t","_meta":{"io.cloudg/privacy":{"tags":[1,"x"],"capabilities":["exec","nope"]}}}]} {"result":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if tf, err := parseTestFile(data); err == nil {
			names := map[string]bool{}
			for _, tc := range tf.Tests {
				if tc.Name == "" || names[tc.Name] || tc.Target == "" ||
					!slices.Contains([]string{"allow", "deny", "hidden"}, tc.WantDecision) {
					t.Fatalf("accepted %+v", tc)
				}
				names[tc.Name] = true
			}
		}
		if c, err := parseCatalog(data); err == nil {
			if len(c.Entries) == 0 {
				t.Fatal("accepted an empty catalog")
			}
			for _, e := range c.Entries {
				if e.Name == "" {
					t.Fatalf("accepted an unnamed entry %+v", e)
				}
			}
		}
	})
}
