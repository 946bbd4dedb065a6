package detect

import (
	"github.com/cloudg/mcp-privacy/policy"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNormalizeKey(t *testing.T) {
	for in, want := range map[string]string{
		"nachname": "nachname", "date_naissance": "datenaissance", "customerName": "customername",
		"first-name": "firstname", "Date Of Birth": "dateofbirth", "PRÉNOM": "prenom", "billingAddress.street": "billingaddressstreet",
		"Straße": "strasse", "imię": "imie", "födelsedatum": "fodelsedatum", "SSNNumber": "ssnnumber", "Driver's licence": "driverslicence",
		"address_line1": "addressline1", "氏名": "氏名", "łódź": "lodz", "Œuvre": "oeuvre",
		// Scripts that space their words: a key is its words, not one per
		// letter (which overflowed the key's bound of words).
		"تاريخ_الميلاد": "تاريخالميلاد", "שם_משפחה": "שםמשפחה", "जन्म_तिथि": "जनमतथ", "도로명_주소": "도로명주소",
		// An accented letter after a digit starts a word, as an ASCII one
		// does: eleven words, too many for a key, whichever way it is read
		// (FuzzNormalizeKey's input read as ten, its form as eleven).
		"A0A0ā0A0A0A": "", "x0ā": "x0a",
	} {
		got := normalizeKey(in)
		if got != want {
			t.Errorf("normalizeKey(%q) = %q, want %q", in, got, want)
		}
		if again := normalizeKey(got); again != got {
			t.Errorf("normalizeKey(%q) = %q, read again %q", in, got, again)
		}
	}
}

func TestClassifyKey(t *testing.T) {
	type want struct {
		class uint8
		det   int
	}
	cases := map[want][]string{
		{kName, -1}:             {"name", "Name", "nom", "nombre", "nome", "naam", "display_name", "名前"},
		{kPersonName, -1}:       {"full_name", "fullName", "customerName", "contact_name", "emergency_contact_name", "holder_name", "nombre_cliente", "nom_du_client", "nome_completo", "kundenname", "customername", "氏名", "Nombre completo"},
		{kGivenName, -1}:        {"first_name", "firstName", "given_name", "middle_name", "Vorname", "prénom", "PRÉNOM", "voornaam", "imię", "förnamn", "etunimi", "fornavn", "primeiro_nome", "名"},
		{kFamilyName, -1}:       {"last_name", "lastName", "surname", "family_name", "Nachname", "nom_de_famille", "apellidos", "cognome", "achternaam", "sobrenome", "nazwisko", "efternamn", "sukunimi", "efternavn", "姓"},
		{kAddress, -1}:          {"address", "street", "street_address", "address_line1", "billingAddress", "Straße", "adresse", "rue", "dirección", "calle", "indirizzo", "straat", "endereço", "rua", "ulica", "gatuadress", "adress", "postadress", "residence", "osoite", "postiosoite", "住所"},
		{kPostcode, -1}:         {"postcode", "postal_code", "zip", "zip_code", "PLZ", "code_postal", "código_postal", "cap", "cep", "kod_pocztowy", "postnummer", "postinumero", "郵便番号"},
		{kCity, -1}:             {"city", "town", "Ort", "ville", "ciudad", "città", "woonplaats", "cidade", "miasto", "kaupunki", "by"},
		{kBirthDate, -1}:        {"dob", "date_of_birth", "birthDate", "birthday", "Geburtsdatum", "date_naissance", "date_de_naissance", "fecha_nacimiento", "data_nascita", "data_di_nascita", "geboortedatum", "data_nascimento", "data_urodzenia", "födelsedatum", "syntymäaika", "fødselsdato", "生年月日", "Date Of Birth", "customer_dob"},
		{kID, detSSN}:           {"ssn", "SSN", "social_security_number"},
		{kID, detNationalID}:    {"national_id", "nationalId", "id_number", "Personalausweis"},
		{kID, detNLBSN}:         {"bsn", "BSN"},
		{kID, detPLPESEL}:       {"pesel"},
		{kID, detITFiscalCode}:  {"codice_fiscale"},
		{kID, detFRNIR}:         {"numero_securite_sociale", "nir"},
		{kID, detDETaxID}:       {"steuer_id", "idnr"},
		{kID, detJPMyNumber}:    {"my_number", "マイナンバー"},
		{kID, detTaxID}:         {"tax_id", "taxId", "Steuernummer"},
		{kID, detPassport}:      {"passport", "passport_number", "passportNo", "Passport No.", "reisepass", "passeport", "pasaporte", "passaporto", "paspoort"},
		{kID, detDriverLicense}: {"driver_license", "driving_licence", "Driver's licence", "führerschein", "permis_de_conduire", "carnet_de_conducir", "rijbewijs"},
		{kID, detBankAccount}:   {"bank_account", "account_number", "accountNumber", "kontonummer", "sort_code", "bsb"},
		{kID, detABARouting}:    {"routing_number", "aba"},
		{kHolder, -1}:           {"customer", "customers", "contact", "patient", "employee", "user", "kunde", "cliente", "klant"},
		{kNone, -1}:             {"product_name", "company_name", "tool_name", "file_name", "username", "user_name", "userName", "hostname", "created_date", "date", "order_date", "ip_address", "email_address", "wallet_address", "bucket_name", "vat", "vat_number", "iban", "USt-IdNr.", "id", "order_id", "description", "price", "status"},
	}
	// Keys in the scripts of Arabic, Hebrew, Hindi, Korean, Chinese and
	// Russian records, and the names of things' names.
	more := map[want][]string{
		{kName, -1}:       {"الاسم", "שם", "नाम"},
		{kPersonName, -1}: {"姓名", "الاسم_الكامل", "שם_מלא", "पूरा_नाम"},
		{kGivenName, -1}:  {"الاسم_الأول", "שם_פרטי", "पहला_नाम"},
		{kFamilyName, -1}: {"اسم_العائلة", "שם_משפחה", "उपनाम", "성"},
		{kAddress, -1}:    {"地址", "街道", "도로명", "पता", "الشارع", "العنوان", "רחוב", "כתובת"},
		{kPostcode, -1}:   {"الرمز_البريدي", "מיקוד", "पिन_कोड", "邮编"},
		{kCity, -1}:       {"postitoimipaikka", "город", "शहर", "المدينة", "עיר"},
		{kBirthDate, -1}:  {"foedselsdato", "जन्म_तिथि", "تاريخ_الميلاد", "תאריך_לידה", "дата_рождения"},
		{kPhone, -1}:      {"contact_number", "contactNumber", "फ़ोन", "الهاتف", "טלפון"},
		{kID, detCASIN}:   {"numero_assurance_sociale"},
		{kID, detTaxID}:   {"tax_code", "fiscal_code"},
		{kNamed, -1}:      {"company_name", "product_name", "brandName", "business_name", "firmenname", "raison_sociale"},
		{kLine, -1}:       {"line1", "line2"},
		{kNone, -1}:       {"line_number"},
	}
	for w, keys := range more {
		cases[w] = append(cases[w], keys...)
	}
	for w, keys := range cases {
		for _, key := range keys {
			got := classifyKey(key, nil)
			if w.class == kNone {
				if got.Reports() {
					t.Errorf("%q: class %d det %d, want nothing", key, got.class(), got.det())
				}
				continue
			}
			if got.class() != w.class || got.det() != w.det {
				t.Errorf("%q: class %d det %d, want %d %d", key, got.class(), got.det(), w.class, w.det)
			}
		}
	}
}

func TestKeyContext(t *testing.T) {
	name := classifyKey("name", nil)
	if KeyContext(0).Of(name).class() != kName {
		t.Error("a bare name alone is not left to its value's shape (TestKeyedNameAlone)")
	}
	if KeyContext(0).Member(classifyKey("email", nil)).Of(name).class() != kPersonName {
		t.Error("a name beside an e-mail is not a person's")
	}
	if classifyKey("customer", nil).Nested().Of(name).class() != kPersonName {
		t.Error("a customer's name is not a person's")
	}
	if (classifyKey("company", nil).Nested() | ctxPerson).Of(name) != 0 {
		t.Error("a company's name is a person's")
	}
	city := classifyKey("city", nil)
	if k := KeyContext(0).Member(classifyKey("email", nil)).Of(city); k.Reports() || k.class() != kNamed {
		t.Error("a city outside an address is reported, or not a place's name")
	}
	if k := classifyKey("company", nil).Nested().Of(name); k.class() != kNamed {
		t.Error("a company's name is not a thing's name")
	}
	if KeyContext(0).Member(classifyKey("street", nil)).Of(city) == 0 || classifyKey("billing_address", nil).Nested().Of(city) == 0 {
		t.Error("a city in an address is not")
	}
	// An address line with a postcode is an address (Stripe's line1,
	// postal_code, city); a line alone, or with a city, is not (a log's
	// file, line and city).
	line, postcode := classifyKey("line1", nil), classifyKey("postal_code", nil)
	if c := KeyContext(0).Member(line).Member(postcode); c.Of(city) == 0 || c.Of(postcode) == 0 || c.Of(line).class() != kAddress {
		t.Error("a line with a postcode is no address")
	}
	if c := KeyContext(0).Member(line).Member(city); c.Of(city).Reports() || c.Of(line) != 0 {
		t.Error("a line and a city make an address")
	}
}

func TestKeyedValues(t *testing.T) {
	ds := &Set{builtins: allBuiltins}
	for i := range builtinNames {
		ds.meta = append(ds.meta, detectorMeta{name: builtinNames[i], rank: i})
	}
	ds.rank = map[string]int{}
	sel := Select(nil, 0)
	cases := []struct {
		key, value string
		det        string // "" nothing by key
	}{
		{"first_name", "Alice", "person"}, {"name", "Alice Martin", "person"}, {"Nachname", "Müller", "person"},
		{"nom", "Jean Dupont", "person"}, {"氏名", "山田 太郎", "person"}, {"last_name", "van der Berg", "person"},
		{"name", "Pro Plan", ""}, {"name", "Widget 3000", ""}, {"name", "gold", ""}, {"name", "get_customer", ""},
		{"name", "Acme GmbH", ""}, {"full_name", "N/A", ""},
		{"dob", "1985-03-04", "date_of_birth"}, {"Geburtsdatum", "04.03.1985", "date_of_birth"}, {"date_naissance", "4 mars 1985", "date_of_birth"},
		{"birthDate", "1985-03-04T00:00:00Z", "date_of_birth"}, {"生年月日", "1985年3月4日", "date_of_birth"}, {"dob", "unknown", ""},
		{"dob", "2024-01-02T10:22:31Z", ""},
		// yyyymmdd whole (its fifth digit once refused it); not another
		// run of digits
		{"dob", "19850312", "date_of_birth"}, {"date_of_birth", "20011231", "date_of_birth"},
		{"dob", "19851312", ""}, {"dob", "198503121", ""}, {"dob", "12345", ""},
		{"street", "Hauptstraße 5", "street_address"}, {"address", "12 rue de la Paix, 75002 Paris", "street_address"},
		// A Chinese street with a building's letter (a Russian address,
		// postcode first, is found by its pattern: street_address.txt).
		{"street_address", "西安街A座", "street_address"}, {"street", "A座", ""}, {"番地", "6丁目2番6号", "street_address"},
		// A Hebrew street's name and number first; a city's abbreviation
		// with gershayim; a Russian settlement's; no network address.
		{"address", "שלדג 18, הר אדר, 7234480", "street_address"}, {"city", "דוב\"ב", "street_address"},
		{"город", "клх Вендинга", "street_address"}, {"address", "db01:5432, standby", ""},
		{"address", "alice@example.com", ""}, {"address", "10.0.0.1", ""},
		// A street's name, its house number in a member of its own.
		{"straat", "Kerkstraat", "street_address"}, {"street", "Main Street", "street_address"},
		{"Straße", "Karl-Marx-Allee", "street_address"}, {"calle", "Calle Mayor", "street_address"},
		{"street", "Amsterdam", ""}, {"address", "Paris", ""}, {"street", "Spring", ""},
		{"passport", "C01X00T47", "passport"}, {"passport", "pending", ""}, {"ssn", "123456789", "us_ssn"}, {"ssn", "123 45 6789", "us_ssn"},
		{"bsn", "123456780", ""}, // fails the 11-proof: no BSN, and no identifier
		{"bsn", "111222333", "nl_bsn"}, {"routing_number", "021000022", ""}, {"routing_number", "20-00-00", "bank_account"},
		{"sort_code", "20-00-00", "bank_account"}, {"bsb", "062-000", "bank_account"}, {"ifsc", "SBIN0001234", "bank_account"},
		{"bankleitzahl", "37040044", "bank_account"},
		// Phones written as their country does, the key standing for the
		// phone word; an order number under a careless key is none.
		{"telefono", "612345678", "phone"}, {"phone", "+44 20 7946 0958", "phone"}, {"Telefon", "030 12345678", "phone"},
		{"phone", "12", ""}, {"phone", "n/a", ""}, {"tax_id", "TX-88412-7", "tax_id"}, {"driver_license", "D1234567", "driver_license"},
		{"account_number", "12345678", "bank_account"}, {"routing_number", "021000021", "aba_routing"},
		// An account number that passes a personal identifier's checks is
		// the bank's, as its key says (it was an SSN, an ITIN).
		{"account_number", "123456789", "bank_account"}, {"acct", "987654321", "bank_account"}, {"Kontonummer", "123456789", "bank_account"},
		// A number written as a phone under a phone key, valid for its
		// region or not (made up by a test system or a faker); not a
		// date, a model, one digit repeated.
		{"telefone", "(30) 48977-2600", "phone"}, {"celular", "(59) 0121-1907", "phone"}, {"phone", "00587 1267471", "phone"},
		{"電話番号", "000-539-6652", "phone"}, {"电话", "005 8712 6747", "phone"}, {"numero_di_telefono", "393 813 544", "phone"},
		{"mobile", "iPhone 15", ""}, {"phone", "01/02/1985", ""}, {"mobile", "2024-01-15", ""}, {"fax", "0000000", ""},
		{"phone", "12345", ""}, {"phone", "+", ""}, {"phone", "555-0199 ext", ""},
		// Keys of other scripts and languages (a Hindi, an Arabic, a
		// Hebrew record), a date with its year word, a number under a
		// key shared by two countries.
		{"जन्म_तिथि", "1975-01-02", "date_of_birth"}, {"تاريخ_الميلاد", "1980-05-04", "date_of_birth"}, {"תאריך_לידה", "12/03/1970", "date_of_birth"},
		{"foedselsdato", "02.01.1975", "date_of_birth"}, {"дата_рождения", "26 сентября 1962 г.", "date_of_birth"},
		{"date_of_birth", "28 अक्टूबर 1963", "date_of_birth"}, {"birthDate", "2 أغسطس 1976", "date_of_birth"}, {"dob", "10 בנובמבר 1951", "date_of_birth"},
		{"dob", "26 сентября 1962 года", "date_of_birth"}, {"dob", "26 сентября 1962 г. в Москве", ""},
		{"personnummer", "130684-0524", "dk_cpr"}, {"personnummer", "0201581669", "dk_cpr"}, {"personnummer", "850412-1234", ""},
		{"contact_number", "0504291797", "phone"}, {"numero_assurance_sociale", "046 454 286", "ca_sin"},
		{"tax_code", "rssmra85t10a562s", "it_fiscal_code"}, {"שם_משפחה", "כהן", "person"}, {"उपनाम", "कुमार", "person"},
	}
	for _, c := range cases {
		k := (ctxPerson | ctxAddress).Of(classifyKey(c.key, nil))
		found := ds.DetectKeyed(nil, c.value, k, sel)
		got := ""
		for _, d := range found {
			if d.Basis == BasisKey && d.Start == 0 && d.End == len(c.value) {
				got = d.Detector
			}
		}
		if got != c.det && !(c.det == "national_id" && got != "") {
			t.Errorf("%q: %q: got %q, want %q (%v)", c.key, c.value, got, c.det, found)
		}
	}
}

func TestLabelled(t *testing.T) {
	for _, c := range []struct{ text, det, want string }{
		{"Name: Alice Martin", "person", "Alice Martin"},
		{"Full name - Jean Dupont", "person", "Jean Dupont"},
		{"Nachname: Müller, Vorname: Jürgen", "person", "Müller"},
		{"Name: Alice Martin Email: a@example.com", "person", "Alice Martin"},
		{"Passport No.: C01X00T47 issued in Lyon", "passport", "C01X00T47"},
		{"Date of birth: 04/03/1985 (age 39)", "date_of_birth", "04/03/1985"},
		{"Geburtsdatum: 4. März 1985", "date_of_birth", "4. März 1985"},
		{"Address: 12 rue de la Paix, 75002 Paris\nPhone: +33 1 23 45 67 89", "street_address", "12 rue de la Paix, 75002 Paris"},
		{"氏名：山田 太郎", "person", "山田 太郎"},
		{"name: get_customer", "person", ""},
		{"Product name: Pro Plan", "person", ""},
		{"Date: 04/03/1985", "date_of_birth", ""},
		{"City: Paris", "street_address", ""},
	} {
		got := ""
		for _, d := range Builtin(c.det, c.text) {
			if got == "" || c.text[d.Start:d.End] == c.want {
				got = c.text[d.Start:d.End]
			}
		}
		if got != c.want {
			t.Errorf("%q: %s got %q, want %q", c.text, c.det, got, c.want)
		}
	}
}

// A phone label before a number written as one: the number is a phone,
// valid for its region or not, in the labels of the corpus's languages;
// a date, a version or a count after one is none. (The label scan runs
// with the families: the default set, here.)
func TestLabelledPhones(t *testing.T) {
	ds := allDetectors(t)
	for _, c := range []struct{ text, want string }{
		{"Telefone: (37) 0838-2388", "(37) 0838-2388"},
		{"Telefoon: (0053) 966523", "(0053) 966523"},
		{"Telefono: 393 813 544 (ufficio)", "393 813 544"},
		{"电话：005 8712 6747", "005 8712 6747"},
		{"携帯電話: 000-539-6652", "000-539-6652"},
		{"GSM: 0049 03 53 40", "0049 03 53 40"},
		{"Telefon: (0002) 174000492", "(0002) 174000492"},
		{"Numer telefonu: 512 00 00 00 0", "512 00 00 00 0"},
		{"Mobile: 2024-01-15 release", ""},
		{"Tel: 15.01.2024", ""},
		{"Mobile: 10.2.3", ""},
		{"Fax: 3 pages, cell: B12", ""},
	} {
		got := ""
		for _, d := range ds.Detect(c.text, Select(nil, 0)) {
			if d.Detector == "phone" {
				got = c.text[d.Start:d.End]
			}
		}
		if got != c.want {
			t.Errorf("%q: phone %q, want %q", c.text, got, c.want)
		}
	}
}

func FuzzNormalizeKey(f *testing.F) {
	for _, s := range []string{"customerName", "Date Of Birth", "PRÉNOM", "氏名", "a_b-c.d e", "SSNNumber", strings.Repeat("x_", 40)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := normalizeKey(s)
		if len(n) > keyMax {
			t.Fatalf("normalised %q is %d bytes", s, len(n))
		}
		if n != "" && normalizeKey(n) != n && utf8.ValidString(s) && isASCII(n) {
			t.Fatalf("normalising %q twice: %q, %q", s, n, normalizeKey(n))
		}
		_ = classifyKey(s, nil)
	})
}

func FuzzScanLabelled(f *testing.F) {
	for _, s := range []string{"Name: Alice Martin", "Passport No.: C01X00T47", "Date of birth: 4 March 1985", "Address: 12 rue X\n", "氏名：山田", "a - b", "\"ssn\": \"123\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := pass{s: s, fam: labelFamily, multi: true}
		p.scanLabelled()
		for _, sp := range p.spans {
			if utf8.ValidString(s) && !spanOK(s, sp) {
				t.Fatalf("span %v of %q", sp, s)
			}
		}
		if len(p.spans) > 0 && labelledClean(s) {
			t.Fatalf("labelledClean(%q) but scanLabelled found %v", s, p.spans)
		}
	})
}

// A bare "name" in an object that says nothing of whose it is is a
// person's only by the name tables, two words or more.
func TestKeyedNameAlone(t *testing.T) {
	ds := allDetectors(t)
	sel := Select(nil, 0)
	for _, c := range []struct {
		value string
		want  bool
	}{
		{"Hans Müller", true}, {"Alice Martin", true}, {"山田 太郎", true}, {"山田太郎", true},
		{"Pro Plan", false}, {"Paris Office", false}, {"Victoria", false}, {"Morgan Stanley", false},
		{"Widget 3000", false}, {"get_customer", false}, {"Acme GmbH", false},
	} {
		k := KeyContext(0).Of(classifyKey("name", nil))
		got := false
		for _, d := range ds.DetectKeyed(nil, c.value, k, sel) {
			if d.Basis == BasisKey && d.Detector == "person" {
				got = true
			}
		}
		if got != c.want {
			t.Errorf("name %q: person %v, want %v", c.value, got, c.want)
		}
	}
}

// TestJSONTextContext: a bare name's object, read as text, says what its
// other keys and its own key say, as the walk reads the parsed object.
func TestJSONTextContext(t *testing.T) {
	for _, c := range []struct {
		s    string
		want KeyContext
	}{
		{`{"name": "X", "email": "a@b.example"}`, ctxPerson},
		{`{"email": "a@b.example", "name": "X"}`, ctxPerson},
		{`{"nom": "X", "prénom": "Y"}`, ctxPerson},
		{`{"name": "X", "price": 1}`, 0},
		{`{"product": {"name": "X"}}`, ctxThing},
		{`{"customer": {"id": 3, "name": "X"}}`, ctxPerson},
		{`{"name": "X", "owner": {"email": "a@b.example"}, "tags": ["a"]}`, 0},         // a nested object's keys are its own
		{`{"items": [{"email": "a@b.example"}], "name": "X"}`, 0},                      // so are an array's
		{`{"note": "a } brace", "name": "X", "phone": "+44 20 7946 0958"}`, ctxPerson}, // a brace in a string after the key
		{`"name": "X"`, 0}, // no object
		{`{"a": "say \"}\"", "name": "X", "email": "a@b.example"}`, ctxPerson}, // escaped quotes
		{`{"email": "a@b.example"}, {"name": "X"}`, 0},                         // a sibling object's keys are not its own
	} {
		q := strings.Index(c.s, `"name"`)
		if q < 0 {
			q = strings.Index(c.s, `"nom"`)
		}
		if got := jsonTextContext(c.s, q, nil, nil); got != c.want {
			t.Errorf("%s: context %b, want %b", c.s, got, c.want)
		}
	}
}

func FuzzJSONTextContext(f *testing.F) {
	for _, s := range []string{`{"name": "X", "email": "a@b.example"}`, `{"customer": {"name": "X"}}`, `[{"a": "}", "name": "\"x"}]`, `{"name`} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, s string, q int) {
		if q < 0 || q >= len(s) {
			return
		}
		if c := jsonTextContext(s, q, nil, nil); c&^(ctxPerson|ctxAddress|ctxThing) != 0 {
			t.Fatalf("context %b", c)
		}
	})
}

// TestSSNKeyTakesNationalNumbers: records in English call every
// country's personal number "ssn": under that key a number that passes
// another identifier's checks is that identifier, one that passes none
// is nothing.
func TestSSNKeyTakesNationalNumbers(t *testing.T) {
	ds := allDetectors(t)
	sel := Select(nil, 0)
	for _, c := range []struct{ v, want string }{
		{"86095742719", "de_tax_id"},
		{"850304-1231", "se_personnummer"},
		{"908301662", "nl_bsn"},
		{"123-45-6789", "us_ssn"},
		{"12345678903", ""},
	} {
		got := ""
		for _, d := range ds.DetectKeyed(nil, c.v, KeyContext(0).Of(ds.KeyOf("ssn")), sel) {
			if d.Start == 0 && d.End == len(c.v) {
				got = d.Detector
			}
		}
		if got != c.want {
			t.Errorf("ssn %q: %q, want %q", c.v, got, c.want)
		}
	}
}

// TestKeyedHeldName: a holder's key over a string names the person
// ("customer": "SMITH, JOHN"), in a parsed object and in JSON read as
// text; not a company's one word, an identifier or a login.
func TestKeyedHeldName(t *testing.T) {
	ds := allDetectors(t)
	sel := Select(nil, 0)
	for _, c := range []struct {
		key, value string
		want       bool
	}{
		{"customer", "SMITH, JOHN", true}, {"customer", "Xochitl Quispe", true}, {"patient", "Müller", true}, {"employee", "山田太郎", true},
		{"customer", "Globex", false}, {"customer", "Acme Corp", false}, {"customer", "C-12345", false}, {"user", "alice", false}, {"owner", "platform-team", false},
	} {
		got := false
		for _, d := range ds.DetectKeyed(nil, c.value, KeyContext(0).Of(ds.KeyOf(c.key)), sel) {
			if d.Detector == "person" && d.Start == 0 && d.End == len(c.value) {
				got = true
			}
		}
		if got != c.want {
			t.Errorf("%s %q: person %v, want %v", c.key, c.value, got, c.want)
		}
		text := `{"` + c.key + `": "` + c.value + `", "id": 7}`
		got = false
		for _, d := range ds.Detect(text, sel) {
			if d.Detector == "person" && text[d.Start:d.End] == c.value {
				got = true
			}
		}
		if got != c.want {
			t.Errorf("text %s: person %v, want %v", text, got, c.want)
		}
	}
}

// TestVocab: the vocab table holds what the maps it is built from hold,
// and nothing else.
func TestVocab(t *testing.T) {
	sets := []map[string]bool{keyHeads, keyLinks, keyDeny, labelLast}
	n := 0
	for _, sl := range vocab.slots {
		if sl.has == 0 {
			continue
		}
		n++
		k, ok := keyVocab[sl.word]
		if ok != (sl.has&inKeyVocab != 0) || ok && k != sl.key {
			t.Errorf("%q: keyVocab %v %v, vocab %v %v", sl.word, k, ok, sl.key, sl.has&inKeyVocab != 0)
		}
		for i, m := range sets {
			if m[sl.word] != (sl.has&(inKeyHeads<<i) != 0) {
				t.Errorf("%q: set %d %v, vocab %v", sl.word, i, m[sl.word], sl.has)
			}
		}
		if k, has := vocabFind([]byte(sl.word)); k != sl.key || has != sl.has {
			t.Errorf("%q: found %v %v", sl.word, k, has)
		}
	}
	words := map[string]bool{}
	for w := range keyVocab {
		words[w] = true
	}
	for _, m := range sets {
		for w := range m {
			words[w] = true
		}
	}
	if n != len(words) {
		t.Errorf("vocab holds %d words, the maps %d", n, len(words))
	}
	for _, w := range []string{"", "x", "nam", "names", "nameq", "addres", "idd", "customerz"} {
		if _, has := vocabFind([]byte(w)); has != 0 {
			t.Errorf("%q found", w)
		}
	}
}

// TestJSONTextScans: jsonTextStringEnd and jsonStructural, which pass
// bytes eight at a time, agree with reading byte by byte.
func TestJSONTextScans(t *testing.T) {
	const alphabet = "ab\"\\\n{}[]:, \x7b\x5b\xfb\xdb"
	for seed := uint64(0); seed < 3000; seed++ {
		b := make([]byte, seed%40)
		x := seed*0x9E3779B97F4A7C15 + 1
		for i := range b {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			b[i] = alphabet[x%uint64(len(alphabet))]
		}
		s := string(b)
		for i := 0; i <= len(s); i++ {
			want := -1
			for k := i; k < len(s); k++ {
				if s[k] == '\\' {
					k++
				} else if s[k] == '"' {
					want = k
					break
				} else if s[k] == '\n' {
					break
				}
			}
			if got := jsonTextStringEnd(s, i); got != want {
				t.Fatalf("jsonTextStringEnd(%q, %d) = %d, want %d", s, i, got, want)
			}
		}
		for i := 0; i+8 <= len(s); i++ {
			m := jsonStructural(load64(s, i))
			for k := 0; k < 8; k++ {
				c := s[i+k]
				want := c == '{' || c == '}' || c == '[' || c == ']' || c == '"'
				if got := m>>(8*k+7)&1 != 0; got != want {
					t.Fatalf("jsonStructural(%q) byte %d: %v, want %v", s[i:i+8], k, got, want)
				}
			}
		}
	}
}

// Under a key naming an organisation or a place, what only the name
// tables read as a person is not reported when the value is only a
// name; under a key naming another kind of number (an order's, an
// invoice's, an identifier's) a value of a phone's shape is that number,
// not a phone. A key saying nothing, more than a name, or a "+" leaves
// them.
func TestKeyedValueDrops(t *testing.T) {
	ds, err := NewSet(&policy.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	sel := Select(nil, 0)
	for _, c := range []struct {
		key, value, det string
		want            bool
	}{
		{"company", "Guerin Lefort", "person", false},
		{"employer", "Quintana Zamudio y Arellano Cortéz", "person", false},
		{"city", "Quarto Maria", "person", false},
		{"ville", "Jesus de Pires", "person", false},
		{"brand", "Rosa Smith", "person", false},
		{"company", "Lunch with Maria Garcia", "person", true},
		{"company", "Maria Garcia's bakery", "person", true},
		{"company", "Contact: Dr. Jane Doe", "person", true},
		{"name", "Rosa Smith", "person", true},
		{"note", "Rosa Smith", "person", true},
		{"customer", "Rosa Smith", "person", true},
		{"invoice_number", "943 476 5910", "phone", false},
		{"orderId", "046 454 287", "phone", false},
		{"Rechnungsnummer", "030 1234567", "phone", false},
		{"numero_de_factura", "912 345 678", "phone", false},
		{"ticket", "020 7946 0958", "phone", false},
		{"sin", "046 454 287", "phone", false},         // a SIN whose check fails
		{"nhs_number", "943 476 5910", "phone", false}, // likewise an NHS number
		{"ticket", "+44 20 7946 0958", "phone", true},
		{"invoice", "Call 020 7946 0958 about it", "phone", true},
		{"note", "020 7946 0958", "phone", true},
		{"phone", "020 7946 0958", "phone", true},
		{"order_date", "020 7946 0958", "phone", true},
		// a version under its key, no address
		{"version", "10.2.3.4", "ipv4", false},
		{"appVersion", "v1.2.3.4", "ipv4", false},
		{"firmware_version", "2.1.0.4", "ipv4", false},
		{"release", "see 10.0.0.1", "ipv4", true},
		{"host", "10.2.3.4", "ipv4", true},
	} {
		k := KeyContext(0).Of(ds.KeyOf(c.key))
		got := false
		for _, d := range ds.DetectKeyed(nil, c.value, k, sel) {
			got = got || d.Detector == c.det
		}
		if got != c.want {
			t.Errorf("%q: %q: %s %v, want %v", c.key, c.value, c.det, got, c.want)
		}
	}
}

// An identifier after a label ends before a lower-case word glued to its
// digits (a text that ends with a value read with the next, which begins
// with a word); hex and mixed tokens, and a check letter, stay whole.
func TestIDEndStopsAtGluedWord(t *testing.T) {
	for _, c := range []struct{ s, want string }{
		{"617233679order 015072845", "617233679"},
		{"12345678order", "12345678"},
		{"11010519491231002x issued", "11010519491231002x"},
		{"pr383609b", "pr383609b"},
		{"5f3e1234abcdef99", "5f3e1234abcdef99"},
		{"123abc", "123abc"},
		{"1234567890abcdef", "1234567890abcdef"},
		{"C03005988 valid", "C03005988"},
		{"DE 1234 5678 9012", "DE 1234 5678 9012"},
	} {
		if got := c.s[:idEnd(c.s, 0, len(c.s))]; got != c.want {
			t.Errorf("idEnd(%q) reads %q, want %q", c.s, got, c.want)
		}
	}
}

// TestThingNameKeys: under a key naming a company's or a product's name
// (company_name, product_name, brand_name) a value the name tables alone
// read as a person (Thomas Cook, Marie Claire) is the thing's name; under
// a key that says nothing it is still a person's unless the tables know
// it as a brand, and under a person's name key it is reported.
func TestThingNameKeys(t *testing.T) {
	ds := allDetectors(t)
	sel := Select(nil, 0)
	person := func(key, v string) bool {
		for _, d := range ds.DetectKeyed(nil, v, KeyContext(0).Of(ds.KeyOf(key)), sel) {
			if d.Detector == "person" {
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		key, v string
		want   bool
	}{
		{"company_name", "Thomas Cook", false}, {"product_name", "Marie Claire", false}, {"brandName", "Jack Daniels", false},
		{"business_name", "Edward Jones", false}, {"raison_sociale", "Thomas Cook", false},
		{"note", "Thomas Cooper", true}, {"customer_name", "Thomas Cook", true},
		// A firm known by its founder's name (the brands of the tables)
		// is none where the key says nothing.
		{"note", "Thomas Cook", false},
	} {
		if got := person(c.key, c.v); got != c.want {
			t.Errorf("%s: %q: person %v, want %v", c.key, c.v, got, c.want)
		}
	}
}
