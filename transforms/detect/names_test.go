package detect

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// personSpans returns what the person detector reports in s.
func personSpans(s string) []string {
	var out []string
	for _, d := range Builtin("person", s) {
		out = append(out, s[d.Start:d.End])
	}
	return out
}

// The classes of the person detector: context before the name (each
// honorific, greeting and closing language), the name's own forms
// (particles, hyphens, apostrophes, two surnames), the tables' rules, and
// what is not a person.
func TestPersonClasses(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		// honorifics, the span without them
		{"Dear Mr Müller,", []string{"Müller"}},
		{"Mr. John Smith", []string{"John Smith"}},
		{"Herr Dr. Schmidt", []string{"Schmidt"}},
		{"Herrn Prof. Dr. Klaus Becker", []string{"Klaus Becker"}},
		{"Mme Durand", []string{"Durand"}},
		{"M. Jean Dupont", []string{"Jean Dupont"}},
		{"Mlle Chloé Girard", []string{"Chloé Girard"}},
		{"Sr. García López", []string{"García López"}},
		{"Sra. Ana Pérez", []string{"Ana Pérez"}},
		{"Sig. Rossi", []string{"Rossi"}},
		{"Sig.ra Lucia Ferrari", []string{"Lucia Ferrari"}},
		{"Dhr. de Vries", []string{"de Vries"}},
		{"Mevr. van den Berg", []string{"van den Berg"}},
		{"Sr. João da Silva", []string{"João da Silva"}},
		{"Pan Piotr Zieliński", []string{"Piotr Zieliński"}},
		{"Fru Karlsson", []string{"Karlsson"}},
		{"Dr. Xylo Quarnby", []string{"Xylo Quarnby"}}, // unknown words after an honorific
		// greetings: a name of the tables
		{"Hola María", []string{"María"}},
		{"Hi Tom,", []string{"Tom"}},
		{"Hallo Lena, wie geht's?", []string{"Lena"}},
		{"Ciao Marco!", []string{"Marco"}},
		{"Hello World", nil},
		{"Hi Team", nil},
		{"Dear Customer", nil},
		// signatures
		{"— Jean Dupont", []string{"Jean Dupont"}},
		{"ok\n-- Lisa", []string{"Lisa"}},
		{"Best regards,\nAnna Kowalska", []string{"Anna Kowalska"}},
		{"Mit freundlichen Grüßen\nHans Meier", []string{"Hans Meier"}},
		{"Atentamente,\nLucía Gómez", []string{"Lucía Gómez"}},
		{"Pozdrawiam,\nTomasz Lewandowski", []string{"Tomasz Lewandowski"}},
		{"Best regards,\nThe Support Team", nil},
		{"Best regards,\n\nLisa", []string{"Lisa"}}, // past a blank line
		{"Regards, Lisa", []string{"Lisa"}},         // after the comma
		{"Kind regards,\n\n\nLisa", nil},            // two blank lines: no longer the closing's
		// a label opens a department's name too: one word after it is a
		// name only when the tables know it as nothing else
		{"Customer Success will call", nil},
		{"Contact Customer Care today", nil},
		{"Customer Will asked", nil},
		{"Kunde Müller hat angerufen", []string{"Müller"}},
		{"Customer Xylo Quarnby called", []string{"Xylo Quarnby"}},
		// family name, comma, given names: the whole name when they
		// fill the field
		{"Patient: Smith, John A.", []string{"Smith, John A."}},
		{"Kunde: Schneider, Hans\nAdresse: x", []string{"Schneider, Hans"}},
		{"Mr Smith, John called yesterday", []string{"Smith"}},
		{"Herr Weber, Frau Schulz", []string{"Weber", "Schulz"}},
		{"Dr. Emily Chen, MD", []string{"Emily Chen"}},
		// son of, daughter of (Singapore, Malaysia)
		{"Rajesh s/o Kumar will attend", []string{"Rajesh s/o Kumar"}},
		// a name does not end with a particle: the surname after it,
		// however cased (records write De rosa); Dutch 't and 's
		{"Yesterday Ausonio De rosa called", []string{"Ausonio De rosa"}},
		{"Gentile Sig. De luca, la contatto", []string{"De luca"}},
		{"Nome: Mario Del monte", []string{"Mario Del monte"}},
		{"Yesterday Tristan van 't Erve called", []string{"Tristan van 't Erve"}},
		{"Yesterday Bram 's Gravensande called", []string{"Bram 's Gravensande"}},
		// scripts without case: the name ends at the verb or adverb after
		// it, and an abugida's vowel signs are part of its words (कल,
		// yesterday, is not काले, a surname)
		{"कल अमित कुमार ने फोन किया।", []string{"अमित कुमार"}},
		{"आज सुबह प्रिया शर्मा आई थी", []string{"प्रिया शर्मा"}},
		{"श्री राजेश शर्मा से बात हुई", []string{"राजेश शर्मा"}},
		{"السيد أحمد محمد اتصل أمس", []string{"أحمد محمد"}},
		{"מר דוד כהן התקשר אתמול", []string{"דוד כהן"}},
		{"कल काले जी आए", nil},
		// Arabic given names are in the tables: a name of two known words
		// needs no context, a signature's is read; a known given name
		// before a word the tables do not know is none (جميل حقا,
		// "really nice"; प्रदीप चाहते, "Pradeep wants", is the given name
		// alone, for its verb)
		// a lower-case honorific, then the particles that open the
		// surname; honorifics the reader reads as two words (г-н,
		// Sig.ra); not a particle after a noun
		{"mevrouw de Koning belde.", []string{"de Koning"}},
		{"meneer van der Berg belde.", []string{"van der Berg"}},
		{"Het boek van de Koning ligt hier.", nil},
		{"г-н Ширяев позвонил.", []string{"Ширяев"}},
		{"Sig.ra Fontana ha richiamato.", []string{"Fontana"}},
		{"Dott.ssa Bianchi ha firmato.", []string{"Bianchi"}},
		{"Il modulo A-Fontana è pronto.", nil},
		// a month that is also a name, and German's capitalised words,
		// are names only beside a surname of the tables or in context
		{"Im Mai beginnt das Projekt.", nil},
		{"Od Maja Obowiązuje.", nil},
		{"Vanaf Mei Geldt dit.", nil},
		{"Desde Abril Vigente.", nil},
		{"Maja Nowak dzwoniła.", []string{"Maja Nowak"}},
		{"Abril Fernández llamó.", []string{"Abril Fernández"}},
		{"اتصل محمد أحمد أمس", []string{"محمد أحمد"}},
		{"مع أطيب التحيات،\nأفراح شربتلي", []string{"أفراح شربتلي"}},
		{"هذا عمل جميل حقا", nil},
		{"الرجل الكريم ساعدنا", nil},
		{"प्रदीप चाहते हैं कि बिल भेजा जाए", []string{"प्रदीप"}}, // the name alone, before its verb
		{"Priya d/o Raman signed", []string{"Priya d/o Raman"}},
		{"The s/o ratio is 3", nil},
		// honorifics of more locales
		{"Geachte heer Jansen,", []string{"Jansen"}},
		{"Geachte heer Van den Berg,", []string{"Van den Berg"}},
		{"Smt Lakshmi Devi has paid", []string{"Lakshmi Devi"}},
		{"Encik Ahmad bin Ismail", []string{"Ahmad bin Ismail"}},
		{"We visited Sri Lanka", nil},
		{"Regards,\nAnna", []string{"Anna"}},
		{"Kind regards,\r\nLukas", []string{"Lukas"}},
		// labels
		{"customer Alice Martin", []string{"Alice Martin"}},
		{"Kunde Jürgen Wolff", []string{"Jürgen Wolff"}},
		// the tables
		{"Alice Martin paid.", []string{"Alice Martin"}},
		{"Sophia Brown and Lukas Fischer", []string{"Sophia Brown", "Lukas Fischer"}},
		{"Will Smith", []string{"Will Smith"}},
		{"Jean-Pierre O'Brien", []string{"Jean-Pierre O'Brien"}},
		{"José María García López", []string{"José María García López"}},
		{"Ana Maria dos Santos", []string{"Ana Maria dos Santos"}},
		{"Ludwig van Beethoven", []string{"Ludwig van Beethoven"}},
		{"John F. Kennedy", []string{"John F. Kennedy"}},
		{"Jean DUPONT", []string{"Jean DUPONT"}},
		{"Patrick McDonald", []string{"Patrick McDonald"}},
		{"Иван Петров", []string{"Иван Петров"}},
		{"Tan Wei Ming", []string{"Tan Wei Ming"}},
		{"Ο Αλέξανδρος Αγγελόπουλος ήρθε", []string{"Αλέξανδρος Αγγελόπουλος"}},
		{"ΓΙΏΡΓΟΣ", nil},
		{"Kim Min-jun", []string{"Kim Min-jun"}},
		{"Hiroshi Tanaka", []string{"Hiroshi Tanaka"}},
		{"Siti Nurhaliza binti Abdullah", []string{"Siti Nurhaliza binti Abdullah"}},
		{"Dmitri Ivanova", []string{"Dmitri Ivanova"}},
		{"Grace Haddad", []string{"Grace Haddad"}},
		// Japanese, Chinese, Korean
		{"山田太郎", []string{"山田太郎"}},
		{"山田 太郎", []string{"山田 太郎"}},
		{"田中さん", []string{"田中"}},
		{"佐藤様", []string{"佐藤"}},
		{"営業の鈴木さん", []string{"鈴木"}},
		{"スミスさん", []string{"スミス"}},
		{"王伟先生", []string{"王伟"}},
		{"김민수 씨", []string{"김민수"}},
		// not persons
		{"Will you grant access?", nil},
		{"May 2024", nil},
		{"Frank discussion", nil},
		{"Paris office", nil},
		{"Martin Marietta", nil},
		{"Johnson & Johnson", nil},
		{"Morgan Stanley", nil},
		{"Rue Victor Hugo", nil},
		{"Karl-Marx-Straße", nil},
		{"Victor Hugo Street", nil},
		{"Anna Schmidt GmbH", nil},
		{"JavaScript", nil},
		{"ALICE MARTIN", nil},
		{"Christian Values", nil},
		{"Florence", nil},
		{"お客様", nil},
		{"山田工業", nil},
		{"Mark", nil},
		{"Calvin Klein", nil},
		{"Mr. Calvin Klein", []string{"Calvin Klein"}},
		{"Martin Luther King Jr. Boulevard", nil},
		{"Ferreira, Lobato y Quintana Asociados", nil},
		{"Lake Edwina", nil},
		{"4821 Marlon Ridge", nil},
		{"Emma Hall", []string{"Emma Hall"}},
		{"La Rochelle", nil},
		{"Crona - Graham", nil},
	}
	for _, c := range cases {
		got := personSpans(c.text)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%q: got %q, want %q", c.text, got, c.want)
		}
	}
}

func TestPersonNameShape(t *testing.T) {
	for _, c := range []struct {
		s  string
		ok bool
	}{
		{"Alice Martin", true}, {"  Jane Doe ", true}, {"María José García López", true}, {"Jean-Pierre O'Brien", true},
		{"van den Berg", true}, {"Doe, Jane", true}, {"J. R. Smith", true}, {"ALICE MARTIN", true}, {"Alice", true},
		{"山田太郎", true}, {"山田 花子", true}, {"김민수", true}, {"Иван Петров", true},
		{"", false}, {"Acme GmbH", false}, {"Alice Martin Inc", false}, {"Widget 3000", false}, {"Ergonomic Granite Chair", false},
		{"getCustomerName", false}, {"Paris", false}, {"the best chair", false}, {"Schmidt & Partner", false}, {"山田工業", false},
		{"Alice2 Martin", false}, {"Rue Victor Hugo", false}, {"alice martin", true}, {"the chair", false}, {"Dr. Alice Martin Jr.", true},
		{"Calvin Klein", false}, {"M Jean Dupont", true}, {"Morgan Stanley", false}, {"Will Grant", false},
		{"Guerin Lefort S.A.S.", false}, {"Souza Silva S/A", false}, {"Naser Barkholz e.V.", false}, {"Dupont Baby A/S", false},
		{"J.R. Smith", true},
	} {
		if ok, _ := personNameShape(c.s); ok != c.ok {
			t.Errorf("personNameShape(%q) = %v, want %v", c.s, ok, c.ok)
		}
	}
}

func TestDottedCompanyForm(t *testing.T) {
	for _, c := range []struct {
		s  string
		ok bool
	}{
		{"S.A.S.", true}, {"S.A.R.L. en", true}, {"S.A.", true}, {"S.A", true}, {"e.V.", true}, {"S/A", true}, {"A/S,", true},
		{"S.L.", true}, {"B.V.", true}, {"N.V.", true}, {"S.p.A.", true}, {"S.r.l.", true},
		{"J.R.", false}, {"J. R.", false}, {"S.", false}, {"SAS", false}, {"S.A.Smith", false}, {"S.Av", false}, {"A.B.C.D.E.F.G.", false},
		{"s.a.", false}, {"S.A.é", false}, {"", false},
	} {
		if ok := dottedCompanyForm(c.s, 0); ok != c.ok {
			t.Errorf("dottedCompanyForm(%q) = %v, want %v", c.s, ok, c.ok)
		}
	}
}

// The scan allocates nothing of its own.
func TestPersonScanAllocs(t *testing.T) {
	s := "Dear Mr Müller, Alice Martin and 山田太郎 met Will. Best regards,\nAnna Kowalska"
	p := pass{s: s, fam: 1 << detPerson, spans: make([]Span, 0, 16)}
	if n := testing.AllocsPerRun(100, func() { p.spans = p.spans[:0]; p.scanPersons() }); n != 0 {
		t.Errorf("%v allocations per scan", n)
	}
}

// FuzzPersons: spans are in order, on rune boundaries, inside s, and
// personsClean never passes a string the scan finds something in.
func FuzzPersons(f *testing.F) {
	for _, s := range []string{"Dear Mr Müller", "Alice Martin", "— Jean Dupont", "Best regards,\nAnna", "山田 太郎様", "김민수 씨", "Dhr. de Vries", "O'Brien-McDonald", "M.", "Sig.ra Rossi"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := pass{s: s, fam: 1 << detPerson}
		p.scanPersons()
		last := 0
		for _, sp := range p.spans {
			if sp.Start < last || sp.End <= sp.Start || sp.End > len(s) || utf8.ValidString(s) && (!boundary(s, sp.Start) || !boundary(s, sp.End)) {
				t.Fatalf("bad span %v in %q", sp, s)
			}
			last = sp.End
		}
		if len(p.spans) > 0 && personsClean(s) {
			t.Fatalf("personsClean(%q) but the scan finds %v", s, p.spans)
		}
		if utf8.ValidString(s) {
			personNameShape(s)
		}
	})
}

// FuzzPersonNameShape: a string with a digit is never a name, and the
// shape never panics.
func FuzzPersonNameShape(f *testing.F) {
	for _, s := range []string{"Alice Martin", "山田 花子", "Acme GmbH", "J. R. Smith", "Doe, Jane"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ok, _ := personNameShape(s)
		if ok && strings.ContainsAny(s, "0123456789") {
			t.Fatalf("personNameShape(%q) with a digit", s)
		}
	})
}

// BenchmarkPersonScan is the person scan alone over the mixed corpus,
// beside the trigger pass of the other detectors (BenchmarkPassMixed):
// what the person detector adds to a whole-document scan.
func BenchmarkPersonScan(b *testing.B) {
	whole, _ := readMixed(b)
	b.SetBytes(int64(len(whole)))
	p := pass{s: whole, fam: 1 << detPerson, spans: make([]Span, 0, 4096)}
	for b.Loop() {
		p.spans = p.spans[:0]
		p.scanPersons()
	}
	b.ReportMetric(float64(len(p.spans)), "names")
}

func BenchmarkPassMixed(b *testing.B) {
	whole, _ := readMixed(b)
	b.SetBytes(int64(len(whole)))
	for b.Loop() {
		p := pass{s: whole, on: allPass, tab: allTable, spans: make([]Span, 0, 4096)}
		p.run()
	}
}

// The policy's context words for person act as labels: the name after
// them is reported whatever the tables say, and Clean says so too.
func TestPersonExtraContext(t *testing.T) {
	e := &Extra{Context: map[string][]string{"person": {"Ansprechpartner", "account holder"}}}
	for _, c := range []struct {
		text string
		want string
	}{
		{"Ansprechpartner Xylo Quarnby", "Xylo Quarnby"},
		{"the account holder Zorvath Quill", "Zorvath Quill"},
		{"the account holder: Zorvath", "Zorvath"},
	} {
		p := pass{s: c.text, fam: 1 << detPerson, extra: e}
		p.scanPersons()
		var got []string
		for _, sp := range p.spans {
			got = append(got, c.text[sp.Start:sp.End])
		}
		if strings.Join(got, "|") != c.want {
			t.Errorf("%q: got %q, want %q", c.text, got, c.want)
		}
		if personsCleanExtra(c.text, e) {
			t.Errorf("personsCleanExtra(%q) with the context words", c.text)
		}
	}
	if got := personSpans("the account holder Zorvath Quill"); len(got) != 0 {
		t.Errorf("without the policy's words: %q", got)
	}
}

// BenchmarkPersonJapanese is the person scan over Japanese prose with names.
func BenchmarkPersonJapanese(b *testing.B) {
	para := "本日の会議では、営業部の田中さんが新しい製品の販売計画について説明しました。担当は山田 太郎です。来週までに資料を準備してください。東京本社の会議室で午後三時から開始します。"
	s := strings.Repeat(para, 2000)
	b.SetBytes(int64(len(s)))
	p := pass{s: s, fam: 1 << detPerson, spans: make([]Span, 0, 8192)}
	for b.Loop() {
		p.spans = p.spans[:0]
		p.scanPersons()
	}
	b.ReportMetric(float64(len(p.spans)), "names")
}

// A detection keeps its basis whatever its value (regression: a pass
// packed it in two bits, and "name table" came out as "checksum").
func TestPersonBasis(t *testing.T) {
	ds := allDetectors(t)
	for _, c := range []struct {
		text  string
		basis Basis
	}{{"Dear Mr Müller, thanks", BasisContext}, {"opened by Sven Müller yesterday", BasisNameTable}} {
		found := ds.Detect(c.text, Select(nil, 0))
		if len(found) != 1 || found[0].Detector != "person" || found[0].Basis != c.basis {
			t.Errorf("%q: %+v, want one person by %v", c.text, found, c.basis)
		}
	}
}
