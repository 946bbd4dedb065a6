package detect

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTables: a header row names its columns as a JSON key names a
// member; its rows are read by those names, in CSV (',', ';', tab), '|'
// and Markdown tables; prose and a product's table are not.
func TestTables(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"name,email\nXochitl Quispe,xq@example.org", []string{"Xochitl Quispe"}},
		{"id;nachname;vorname\n1;Przybylski;Wojciech", []string{"Przybylski", "Wojciech"}},
		{"first_name\tlast_name\tdob\nAsha\tVerma\t1990-01-30", []string{"Asha", "Verma", "1990-01-30"}},
		{"Results:\n\n| Name | Email |\n|---|---|\n| Siobhan McAllister | sm@example.ie |", []string{"Siobhan McAllister"}},
		{"name,phone\n\"Quispe, Xochitl\",+51 1 234 5678\n\nThanks, see you.", []string{"Quispe, Xochitl", "+51 1 234 5678"}},
		{"name,price\nWireless Mouse,12.50", nil},                                                                // a bare name, nothing of a person
		{"product,price\nWireless Mouse,12.50", nil},                                                             // no column reports
		{"name,email\nAda Lovelace,ada@example.org\nSee the notes, Bob, and the plan", []string{"Ada Lovelace"}}, // prose ends it
		{"Dear team, hello, all\nwe met, talked, left", nil},                                                     // no header
		{"intro\nname,email\nAda Lovelace,ada@example.org", nil},                                                 // not where a table starts
		{"Customers:\nname,email\nAda Lovelace,ada@example.org", []string{"Ada Lovelace"}},                       // after a line ending in a colon
	} {
		p := pass{s: c.text, fam: labelFamily | 1<<detPerson | 1<<detDateOfBirth, on: 1 << detPhone, multi: true}
		p.scanTables()
		var got []string
		for _, sp := range p.spans {
			got = append(got, c.text[sp.Start:sp.End])
		}
		if len(got) != len(c.want) {
			t.Errorf("%q: %q, want %q", c.text, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: %q, want %q", c.text, got, c.want)
				break
			}
		}
		if len(got) > 0 && tablesClean(c.text, nil) {
			t.Errorf("%q: tablesClean, but the scan found %q", c.text, got)
		}
	}
}

func FuzzTables(f *testing.F) {
	for _, s := range []string{"name,email\nA B,a@b.example", "| Name | x |\n|--|--|\n| A | b |", "a;b\n\"x;y\";z", "\n\n|a|b|\n|c|d|", "name,\"e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := pass{s: s, fam: labelFamily | 1<<detPerson | 1<<detDateOfBirth, on: 1 << detPhone, multi: true}
		p.scanTables()
		for _, sp := range p.spans {
			if sp.Start < 0 || sp.End > len(s) || sp.Start >= sp.End || utf8.ValidString(s) && !spanOK(s, sp) {
				t.Fatalf("span %v of %q", sp, s)
			}
		}
		if len(p.spans) > 0 && tablesClean(s, nil) {
			t.Fatalf("tablesClean(%q) but the scan found %v", s, p.spans)
		}
	})
}

// TestDelimCounts: delimCounts counts as strings.Count does, in the
// eight-byte words and in the tail of every length.
func TestDelimCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "\t;,|a \x00\xff\"9"
	text := make([]byte, 200)
	for i := range text {
		text[i] = alphabet[r.IntN(len(alphabet))]
	}
	s := string(text)
	for a := 0; a < 20; a++ {
		for b := a; b <= len(s); b++ {
			line := s[a:b]
			got := delimCounts(line)
			for k, d := range tableDelims {
				if want := strings.Count(line, string(d)); got[k] != want {
					t.Fatalf("delimCounts(%q)[%q] = %d, want %d", line, d, got[k], want)
				}
			}
		}
	}
}
