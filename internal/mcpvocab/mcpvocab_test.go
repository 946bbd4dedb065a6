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
