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
