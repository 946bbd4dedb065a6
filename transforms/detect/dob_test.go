package detect

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Every supported format is a date; invalid dates, implausible years and
// near misses are not.
func TestBirthDateShape(t *testing.T) {
	yes := []string{
		"1985-03-04", "1985/03/04", "1985.3.4", "04/03/1985", "4.3.1985", "04.03.85", "04-03-85", "12/31/1985",
		"March 4, 1985", "Mar. 4 1985", "March 4th, 1985", "4 March 1985", "4th of March 1985", "04-Mar-1985",
		"4. März 1985", "4 mars 1985", "1er mars 1985", "4 de marzo de 1985", "4 marzo 1985", "4 maart 1985",
		"4 de março de 1985", "4 marca 1985", "4. maaliskuuta 1985", "4. marts 1985", "4 MARCH 1985",
		"17 września 1990", "29 février 2000", "1985年3月4日", "昭和60年3月4日", "平成2年12月1日",
		"4/3 1985", "4/3-1985", "4. 3. 1985", "4/mar/1985", "04-Mar-85", "4.März 1985", "4.3.85", "1985年 3月 4日", "1985年3月4号", "平成元年2月27日", "04.03.1985 r.",
		" 1985-03-04 ", "1985-03-04T00:00:00Z", "1985-03-04T00:00:00.000Z", "1985-03-04 00:00",
	}
	no := []string{
		"", "1985", "1985-03", "1985-13-04", "1985-02-30", "31/02/1985", "1899-12-31", "2999-01-01",
		"29 February 1985", "March 4", "4 March", "March 1985", "4 Marsch 1985", "1.2.3", "1.2.1985.4",
		"v1.2.1985", "1985-03-04T10:30:00Z", "1985-03-04x", "12345", "04/03/1985 and more", "4:3:1985",
		"13/13/1985", "00/00/1985", "4/3 85", "30/2 1985", "4. 3. 85", "4/mar-1985", "4.mar.1985", "4.Marsch 1985", "元年2月27日", "平成元年13月1日",
	}
	for _, s := range yes {
		if !birthDateShape(s) {
			t.Errorf("birthDateShape(%q) = false", s)
		}
	}
	for _, s := range no {
		if birthDateShape(s) {
			t.Errorf("birthDateShape(%q) = true", s)
		}
	}
}

// The scan reports the date alone, in context; dates of other events,
// far contexts and ranges are not reported.
func TestScanBirthDates(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"DOB: 1985-03-04", "1985-03-04"},
		{"D.O.B. 04/03/1985", "04/03/1985"},
		{"Alice (b. 1985-03-04) joined us", "1985-03-04"},
		{"She was born on March 4, 1985 in Ohio.", "March 4, 1985"},
		{"born in São Paulo, Brazil, on 4 March 1985", "4 March 1985"},
		{"Geburtsdatum: 4. März 1985", "4. März 1985"},
		{"geb. 04.03.1985", "04.03.1985"},
		{"Née le 4 mars 1985 à Lyon", "4 mars 1985"},
		{"Nacido el 4 de marzo de 1985", "4 de marzo de 1985"},
		{"nata il 4 marzo 1985", "4 marzo 1985"},
		{"geboren op 4 maart 1985", "4 maart 1985"},
		{"data de nascimento: 04/03/1985", "04/03/1985"},
		{"urodzony 4 marca 1985", "4 marca 1985"},
		{"född 4 mars 1985", "4 mars 1985"},
		{"syntynyt 4. maaliskuuta 1985", "4. maaliskuuta 1985"},
		{"fødselsdato 04-03-1985", "04-03-1985"},
		{"生年月日：1985年3月4日", "1985年3月4日"},
		{"昭和60年3月4日生まれ", "昭和60年3月4日"},
		{"birthday 04-03-85", "04-03-85"},
		// Month names and birth words of Russian, Hindi, Arabic and
		// Hebrew; Korean's verb after the date. The same dates without
		// a birth word are none.
		{"Дата рождения 29 июня 1984 г.", "29 июня 1984"},
		{"родился 23 марта 1942 г.", "23 марта 1942"},
		{"народився 4 березня 1985", "4 березня 1985"},
		{"जन्म 7 सितंबर 1978", "7 सितंबर 1978"},
		{"जन्म तिथि: 28 अक्टूबर 1963", "28 अक्टूबर 1963"},
		{"من مواليد 9 أكتوبر 1956", "9 أكتوبر 1956"},
		{"المولود في 20/06/1948", "20/06/1948"},
		{"תאריך לידה: 10.11.1951", "10.11.1951"},
		{"נולדה 10 בנובמבר 1951", "10 בנובמבר 1951"},
		{"נולד ב-10.11.1951", "10.11.1951"}, // ב- ("on") written onto the date
		{"ההזמנה נשלחה ב-10.11.2023", ""},
		{"Version A-10.11.1951", ""},
		{"1958년 12월 21일에 태어났고", "1958년 12월 21일"},
		{"1991.08.08생이며", "1991.08.08"},
		{"Заказ от 29 июня 2024 г.", ""},
		{"नई दिल्ली में 7 सितंबर 2024 को बैठक", ""},
		{"الطلب بتاريخ 9 أكتوبر 2023", ""},
		{"2024년 3월 1일에 출시되었고", ""},
		{"Date of birth (DD/MM/YYYY): 04/03/1985", "04/03/1985"},
		{"Order date: 2024-01-02", ""},
		{"created_at 1985-03-04", ""},
		{"Updated 2024-01-02", ""},
		{"valid until 04/03/2030", ""},
		{"He was born in Lyon. The invoice is dated 04/03/1985.", ""},
		{"born in Lyon and hired on 2010-01-02", ""},
		{"born 1960, hired 2010-01-02", ""},
		{"version 1.2.1985 was born yesterday", ""},
		{"DOB between 01/01/1980 and 31/12/1990", ""},
		{"born 01/01/1980 - 31/12/1990", ""},
		{"NATO summit 04/04/2019", ""},
		{"born 2999-01-01", ""},
		{"Osborne 1985-03-04", ""},
		{"Name | Ann Roe\nDOB | 04/03/1985", "04/03/1985"},
		{"Geburtsdatum:\n4.3.1985", "4.3.1985"},
		{"Ann Roe, b. 1985-03-04, Leeds", "1985-03-04"},
		{"b. Lyon, 1985-03-04", ""},
		{"Urodzona 4 marca 1985 r. w Łodzi", "4 marca 1985 r."},
		{"Dziecko urodziło się w domu 1985-03-04.", "1985-03-04"},
		{"Piet kwam op 4 maart 1985 ter wereld.", "4 maart 1985"},
		{"山田は1985年3月4日に東京で生まれた。", "1985年3月4日"},
		{"生年月日：平成元年2月27日", "平成元年2月27日"},
		{"The company was born on 4 March 1985.", ""},
		{"Ann (born in Leeds) signed the lease on 4 March 2019.", ""},
		{"Born in Leeds, she joined on 4 March 2019.", ""},
		{"De band is in Ede geboren en bracht op 4 maart 2019 een album uit.", ""},
		{"A star is born: premiere on 4 March 2019.", ""},
	} {
		got := Builtin("date_of_birth", c.text)
		var spans []string
		for _, d := range got {
			spans = append(spans, c.text[d.Start:d.End])
		}
		if strings.Join(spans, "|") != c.want {
			t.Errorf("%q: got %q, want %q", c.text, spans, c.want)
		}
	}
}

// The operator's context words count like the built-in ones.
func TestBirthDateExtraContext(t *testing.T) {
	s := "Kunde seit 1985, Jahrestag 04.03.1985"
	p := pass{s: s, fam: 1 << detDateOfBirth, extra: &Extra{Context: map[string][]string{"date_of_birth": {"Jahrestag"}}}}
	p.runFamilies()
	if len(p.spans) != 1 || s[p.spans[0].Start:p.spans[0].End] != "04.03.1985" {
		t.Fatalf("got %v", p.spans)
	}
}

// FuzzBirthDateShape: the date parser never panics, its spans are in
// bounds and on rune boundaries, and a whole-string date is found by the
// scan with a context before it.
func FuzzBirthDateShape(f *testing.F) {
	for _, s := range []string{"1985-03-04", "4. März 1985", "March 4th, 1985", "昭和60年3月4日", "04-Mar-85", "31/12/1999", "1.2.3.4", "１９８５年３月４日", "4/3-1985", "平成元年2月27日"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := nextDigit(s, 0); i < len(s); i = nextDigit(s, i+1) {
			if a, b, ok := dateAround(s, i); ok {
				if a < 0 || b > len(s) || a > i || b <= i || !utf8.ValidString(s[a:b]) && utf8.ValidString(s) {
					t.Fatalf("dateAround(%q, %d) = %d, %d", s, i, a, b)
				}
			}
		}
		if birthDateShape(s) && utf8.ValidString(s) && !strings.ContainsAny(s, "\\%&\n") {
			text := "DOB: " + strings.TrimSpace(s)
			if len(Builtin("date_of_birth", text)) != 1 {
				t.Fatalf("birthDateShape(%q) but the scan finds %v in %q", s, Builtin("date_of_birth", text), text)
			}
		}
	})
}

// birthContext tests a context word's second byte, folded, before
// matchWord: the words' ASCII letters must be lower case (others are
// matched as written: Cyrillic and Greek capitals are listed apart), and
// the words two bytes or more.
func TestBirthContextWordsLower(t *testing.T) {
	for _, w := range birthContextWords {
		if len(w) < 2 || strings.IndexFunc(w, func(r rune) bool { return r >= 'A' && r <= 'Z' }) >= 0 {
			t.Errorf("%q: a birth context word must be lower case, two bytes or more", w)
		}
	}
}
