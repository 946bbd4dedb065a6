package mcpvocab

import "testing"

// TestTablesAgreeWithThemselves checks what every step relies on when it
// reads one column without the others.
func TestTablesAgreeWithThemselves(t *testing.T) {
	for r := Revision(0); r < numRevisions; r++ {
		tab := For(r)
		if len(tab.Methods()) == 0 {
			t.Fatalf("revision %d has no table", r)
		}
		for _, m := range tab.Methods() {
			if tab.Method(m.Name) != m {
				t.Errorf("%s: looked up as another entry", m.Name)
			}
			// A judged request names something and sends it through its
			// primitive's input pipeline; nothing else does.
			if m.Judged != (m.Target != KindNone) || m.Judged != (m.Input != InputNone) {
				t.Errorf("%s: judged %v, target %d, input %d", m.Name, m.Judged, m.Target, m.Input)
			}
			// Only a judged request's result can carry its primitive's data.
			if m.Output == OutputPrimitive && !m.Judged {
				t.Errorf("%s: primitive output but not judged", m.Name)
			}
			if m.List.Items != "" && (m.Result != ResultList || m.List.Key == "" || m.List.Kind == KindNone || m.List.Kind == KindRef) {
				t.Errorf("%s: list %+v with result %d", m.Name, m.List, m.Result)
			}
			if m.Result >= NumResults || m.Params >= NumParams {
				t.Errorf("%s: shape out of range", m.Name)
			}
		}
		if m := tab.Method("no/such"); *m != (Method{}) {
			t.Errorf("an unknown method has entry %+v, want the zero Method", *m)
		}
	}
}

// TestRevisionOf checks which table a protocol version is read by.
func TestRevisionOf(t *testing.T) {
	for _, c := range []struct {
		version string
		want    Revision
	}{
		{"", Rev2025}, {"2024-11-05", Rev2025}, {"2025-03-26", Rev2025}, {"2025-06-18", Rev2025},
		{"2025-11-25", Rev2025}, {"2026-07-28", Rev2026}, {"2027-01-01", Rev2026},
	} {
		if got := RevisionOf(c.version); got != c.want {
			t.Errorf("RevisionOf(%q) = %v, want %v", c.version, got, c.want)
		}
	}
}

// TestRemovedIn2026 checks that the methods 2026-07-28 removed are unknown
// to its table (not judged, so they reach the server as sent) and that the
// ones it added are known.
func TestRemovedIn2026(t *testing.T) {
	tab := For(Rev2026)
	for _, name := range []string{"initialize", "ping", "logging/setLevel", "resources/subscribe",
		"resources/unsubscribe", "tasks/list", "tasks/result"} {
		if m := tab.Method(name); *m != (Method{}) {
			t.Errorf("2026-07-28 knows removed method %s: %+v", name, *m)
		}
		if m := For(Rev2025).Method(name); m.Name != name {
			t.Errorf("2025 lost method %s", name)
		}
	}
	for _, name := range []string{"server/discover", "subscriptions/listen", "tasks/get", "tasks/update"} {
		if tab.Method(name).Name != name {
			t.Errorf("2026-07-28 does not know %s", name)
		}
	}
	if m := tab.Method("resources/read"); !m.Judged || m.Target != KindResource {
		t.Errorf("2026-07-28 resources/read: %+v", *m)
	}
}

// TestMethodLookup checks the lookup by length against a plain search of
// the table: every name is found, in both forms, and nothing else is (a
// name one byte off, a prefix, an extension, a case change, the empty
// name, one too long for the tables).
func TestMethodLookup(t *testing.T) {
	var probes []string
	for r := Revision(0); r < numRevisions; r++ {
		for _, m := range For(r).Methods() {
			n := m.Name
			probes = append(probes, n, n[:len(n)-1], n+"x", "x"+n[1:], n[:len(n)-1]+"X", string(n[0]-32)+n[1:])
		}
	}
	probes = append(probes, "", "x", string(make([]byte, maxMethodName+1)))
	for r := Revision(0); r < numRevisions; r++ {
		tab := For(r)
		for _, p := range probes {
			want := &unknown
			for _, m := range tab.Methods() {
				if m.Name == p {
					want = m
				}
			}
			if got := tab.Method(p); got != want {
				t.Errorf("revision %d: Method(%q) = %q, want %q", r, p, got.Name, want.Name)
			}
			if got := tab.methodBytes([]byte(p)); got != want {
				t.Errorf("revision %d: methodBytes(%q) = %q, want %q", r, p, got.Name, want.Name)
			}
		}
	}
	for _, p := range probes {
		known := For(Rev2025).Method(p) != &unknown || For(Rev2026).Method(p) != &unknown
		name, ok := KnownName([]byte(p))
		if ok != known || ok && name != p || !ok && name != "" {
			t.Errorf("KnownName(%q) = %q, %v; known %v", p, name, ok, known)
		}
	}
}
