package detect

import (
	"math/bits"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/cloudg/mcp-privacy/transforms/detect/internal/nameword"
)

// Keys and labels (manual 12.9.5): what a JSON member's name, or a label
// in text ("Passport No.: …"), says its value is. A key is read after
// normalising case, separators and accents (normKey), and classified by
// one vocabulary (keyVocab) in English, German, French, Spanish, Italian,
// Dutch, Portuguese, Polish, Swedish, Finnish, Danish and Japanese:
//
//   - a person's name, given name, family name;
//   - a street address, house number, postcode and city (the last three
//     only inside an address: KeyContext);
//   - a date of birth;
//   - an identifier: national, tax, passport, driver licence, bank
//     account, routing number, and the keys of the identifiers of
//     ids.go (bsn, pesel, codice_fiscale…).
//
// A composite key is its head and qualifiers: customer_name and
// holderName are names, product_name and hostname are not; date_of_birth
// is a birth date, created_date is nothing. A value is reported by its
// key only when it also looks like what the key promises (keyshape.go):
// "Pro Plan" under name is no person, an order date under date nothing.
//
// The walk of package transforms classifies each member's name (KeyOf),
// works out the context of the object from its members and its own key
// (KeyContext), and scans each string or number value with its key
// (DetectKeyed): the whole value becomes one detection, BasisKey, merged
// with what the value's own scan found. In text, scanLabelled reads the
// same vocabulary in labels followed by ':', '=', a tab or " - ".

// Key is what a member's name says of its value: a class (the low byte)
// and, for an identifier, the detector a key names (the high byte: the
// detector's index + 1; 0: the class's generic detector). The zero Key
// says nothing.
type Key uint16

// Key classes.
const (
	kNone uint8 = iota
	kStop       // a key known to say nothing (username, hostname): no guess
	// Values.
	kName       // a bare name: a person's only in a person's object
	kPersonName // a person's name: customer_name, full_name, holderName
	kGivenName  // first_name, Vorname, prénom
	kFamilyName // last_name, Nachname, nom_de_famille
	kAddress    // address, street, address_line1: the street part or all of it
	kLine       // line1, line2: an address's line, inside an address
	kHouse      // house number: inside an address
	kPostcode   // inside an address
	kCity       // inside an address
	kBirthDate  // date of birth
	kID         // an identifier: national, tax, passport, licence, account
	// Context only.
	kEmail       // a sibling that makes an object a person's
	kPhone       // likewise
	kHolder      // customer, patient, employee: the object under it is a person's
	kThing       // company, product, tool: the object under it is no person's
	kAddressPart // country, region, state: a sibling in an address, nothing itself
	// A holder's key over a scalar: "customer": "Ada Lovelace" names the
	// person (KeyContext.Of).
	kHeldName
	// An organisation or a place (company, employer, brand, hotel; city
	// outside an address): a thing (kThing) whose scalar is its name, and
	// so no person's: a run the name tables alone make a name is not
	// reported there (DetectKeyed).
	kNamed
	// The number of an order, an invoice, a ticket: a value of a phone's
	// shape under it is that number, no phone (DetectKeyed).
	kNumber
	// A version (version, build, firmware): a dotted quad under it is
	// that version, no IP address (DetectKeyed).
	kVersion
)

func mkKey(class uint8, det int) Key { return Key(class) | Key(det+1)<<8 }

func (k Key) class() uint8 { return uint8(k) }

// det is the detector a key names, or -1.
func (k Key) det() int { return int(k>>8) - 1 }

// Reports says whether a value under k may be reported by its key (in
// some context): the walk scans such a value even when it is clean.
func (k Key) Reports() bool {
	c := k.class()
	return c >= kName && c <= kID || c == kPhone || c == kHeldName
}

// KeyContext is what an object's members and its own key say of it: a
// person's record, an address, or a thing (a company, a product).
type KeyContext uint8

const (
	ctxPerson KeyContext = 1 << iota
	ctxAddress
	ctxThing
	// An address line (line1) and a postcode among the members: together
	// an address (a record's own, as Stripe writes one), apart nothing (a
	// log's line and a city are no address).
	ctxLine
	ctxPostal
)

// address: the object is an address, by a street's or house number's
// key, the key it is under, or a line with a postcode.
func (c KeyContext) address() bool {
	return c&ctxAddress != 0 || c&(ctxLine|ctxPostal) == ctxLine|ctxPostal
}

// Nested is the context k gives the object that is its value (or the
// objects of the list that is): a customer's object is a person's, a
// billing address an address, a product a thing.
func (k Key) Nested() KeyContext {
	switch k.class() {
	case kHolder:
		return ctxPerson
	case kAddress:
		return ctxAddress
	case kThing, kNamed:
		return ctxThing
	}
	return 0
}

// Member adds to c what a member keyed k says of its object: an e-mail,
// a phone, a birth date, an identifier or a given or family name make
// it a person's; a street or house number an address (and a person's),
// and so do an address line and a postcode together (address).
func (c KeyContext) Member(k Key) KeyContext {
	switch k.class() {
	case kEmail, kPhone, kBirthDate, kGivenName, kFamilyName, kPersonName:
		return c | ctxPerson
	case kID:
		if d := k.det(); d < 0 || d != detBRCNPJ {
			return c | ctxPerson
		}
	case kAddress, kHouse:
		return c | ctxAddress | ctxPerson
	case kPostcode:
		return c | ctxPerson | ctxPostal
	case kLine:
		return c | ctxLine
	}
	return c
}

// Of is the key a member keyed k has in an object of context c: a bare
// name is a person's only in a person's object that is not a thing's; a
// city, postcode or house number only in an address. The zero Key: the
// value is not reported by its key.
func (c KeyContext) Of(k Key) Key {
	switch k.class() {
	case kName:
		switch c & (ctxPerson | ctxThing) {
		case ctxPerson:
			return mkKey(kPersonName, -1)
		case 0:
			// Nothing says whose: a name only if the value itself is
			// one by the name tables (keyedSpan).
			return k
		case ctxThing:
			return mkKey(kNamed, -1) // a company's or product's name
		}
		return 0
	case kCity:
		if !c.address() {
			return mkKey(kNamed, -1) // a city alone: a place
		}
	case kHouse, kPostcode:
		if !c.address() {
			return 0
		}
	case kLine:
		if !c.address() {
			return 0
		}
		return mkKey(kAddress, -1)
	case kHolder:
		// Not an object but a string: the holder's name.
		return mkKey(kHeldName, -1)
	case kNamed, kNumber, kVersion:
		return k
	}
	if !k.Reports() {
		return 0
	}
	return k
}

// dropPhones removes from dst[start:], the detections in s, the phones
// when s is only a number (digits and the separators of one): under a
// key naming another number (an invoice's, an identifier's) a value of
// a phone's shape is that number. A "+" keeps it a phone.
func dropPhones(dst []Detection, start int, s string) []Detection {
	return dropFound(dst, start, func(d Detection) bool { return d.Detector == "phone" }, func() bool {
		for k := 0; k < len(s); k++ {
			if c := s[k]; !isDigit(c) && c != ' ' && c != '-' && c != '.' && c != '/' && c != '(' && c != ')' {
				return false
			}
		}
		return true
	})
}

// versionOnly: s is a version alone, digits and dots after an optional v.
func versionOnly(s string) bool {
	a, b := trimSpan(s, 0, len(s))
	if a < b && (s[a] == 'v' || s[a] == 'V') {
		a++
	}
	for k := a; k < b; k++ {
		if !isDigit(s[k]) && s[k] != '.' {
			return false
		}
	}
	return a < b
}

// dropTableNames removes from dst[start:], the detections in s, the
// people only the name tables found when s is a name itself: words of
// capitals joined by spaces, commas, '&', '-' and lower-case particles
// (Quarto Maria, Palma de Mallorca, Zamudio y Arellano). What s says
// beyond a name (Lunch with Maria Garcia) keeps them, and so do names
// read by context (Dr. Jane Doe).
func dropTableNames(dst []Detection, start int, s string) []Detection {
	return dropFound(dst, start, func(d Detection) bool { return d.Basis == BasisNameTable && d.Detector == "person" },
		func() bool { return namesOnly(s) })
}

// dropFound removes from dst[start:] the detections drop names, when
// there are some and the value says they go (whole, asked only then).
func dropFound(dst []Detection, start int, drop func(Detection) bool, whole func() bool) []Detection {
	found := dst[start:]
	i := 0
	for i < len(found) && !drop(found[i]) {
		i++
	}
	if i == len(found) || !whole() {
		return dst
	}
	kept := found[:i]
	for _, d := range found[i:] {
		if !drop(d) {
			kept = append(kept, d)
		}
	}
	return dst[:start+len(kept)]
}

// namesOnly: s holds only capitalised words (or CJK runs), particles and
// joiners (de, van, y, and, &) with their separators, at most 120 bytes.
func namesOnly(s string) bool {
	if len(s) > 120 {
		return false
	}
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == ',' || c == '&' || c == '-' || c == '.' || c == '\'' || c == '/':
			i++
			continue
		case c < 0x80 && nameByte[c] == 0 || nameByte[c] == 4:
			return false // digits, other punctuation: more than a name
		}
		w := readWord(s, i)
		if w.end == i {
			return false
		}
		if w.shape == shapeLower && w.flags&nameword.Particle == 0 && !nameJoiner(s[w.start:w.end]) {
			return false
		}
		i = w.end
	}
	return true
}

// ---------------------------------------------------------------- normalising

// keyMax is the longest normalised key classified (bytes), keyWords the
// most words: longer keys say nothing.
const (
	keyMax   = 64
	keyWords = 10
)

// normKey is a key normalised: lower case, accents folded (é→e, ß→ss,
// ł→l, æ→ae), its words (split at '_', '-', spaces, dots and other
// punctuation, at camelCase humps and at digits; each character of a
// script without spaces, such as Japanese, a word of its own) written
// one after the other without separators in b, starting at ws.
type normKey struct {
	b  [keyMax]byte
	n  int
	ws [keyWords + 1]uint8
	nw int
}

// foldLatin is the ASCII of U+00C0–U+017F, lower case ("" for × and ÷).
var foldLatin = func() (t [0x180 - 0xC0]string) {
	// Latin-1: À–ß, then à–ÿ; Latin Extended-A in runs of one letter.
	const latin1 = "aaaaaa_ceeeeiiiidnooooo_ouuuuy__"
	runs := []struct {
		n int
		s string
	}{{6, "a"}, {8, "c"}, {4, "d"}, {10, "e"}, {8, "g"}, {4, "h"}, {10, "i"}, {2, "ij"}, {2, "j"}, {3, "k"},
		{10, "l"}, {9, "n"}, {6, "o"}, {2, "oe"}, {6, "r"}, {8, "s"}, {6, "t"}, {12, "u"}, {2, "w"}, {3, "y"}, {6, "z"}, {1, "s"}}
	for half := 0; half < 2; half++ {
		for i := 0; i < 32; i++ {
			if c := latin1[i]; c != '_' {
				t[half*32+i] = string(c)
			}
		}
		t[half*32+6] = "ae"
		t[half*32+30] = "th"
	}
	t[0x1F], t[0x3F] = "ss", "y" // ß, ÿ
	i := 0x40
	for _, r := range runs {
		for j := 0; j < r.n; j++ {
			t[i] = r.s
			i++
		}
	}
	return t
}()

// set normalises name into k; false when it is too long to classify.
func (k *normKey) set(name string) bool {
	k.n, k.nw = 0, 0
	newWord := true
	var prev byte // class of the previous character: 'l' lower, 'u' upper, 'd' digit, 0 other
	for i := 0; i < len(name); {
		c := name[i]
		if c < utf8.RuneSelf {
			var cls byte
			switch {
			case c >= 'a' && c <= 'z':
				cls = 'l'
			case c >= 'A' && c <= 'Z':
				cls = 'u'
				// A hump: lower to upper, or the last capital of a
				// run before lower case (SSNNumber).
				if prev == 'l' || prev == 'd' || prev == 'u' && i+1 < len(name) && name[i+1] >= 'a' && name[i+1] <= 'z' {
					newWord = true
				}
				c += 'a' - 'A'
			case c >= '0' && c <= '9':
				cls = 'd'
				if prev != 'd' {
					newWord = true
				}
			case c == '\'' || c == '`':
				i++
				continue // driver's: one word
			default:
				newWord = true
				prev = 0
				i++
				continue
			}
			if cls != 'd' && prev == 'd' {
				newWord = true
			}
			if !k.add(newWord, c) {
				return false
			}
			newWord, prev = false, cls
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(name[i:])
		i += size
		switch {
		case r >= 0xC0 && r < 0x180:
			f := foldLatin[r-0xC0]
			if f == "" {
				newWord, prev = true, 0
				continue
			}
			if prev == 'd' || unicode.IsUpper(r) && prev == 'l' {
				newWord = true // after a digit, as an ASCII letter: 0ā is two words
			}
			for j := 0; j < len(f); j++ {
				if !k.add(newWord, f[j]) {
					return false
				}
				newWord = false
			}
			prev = 'l'
			if unicode.IsUpper(r) {
				prev = 'u'
			}
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			// Another script: lower case where it has case; a character
			// of a script without spaces is a word.
			var buf [utf8.UTFMax]byte
			spaced := !unspacedScript(r)
			if !spaced {
				newWord = true
			}
			n := utf8.EncodeRune(buf[:], unicode.ToLower(r))
			for j := 0; j < n; j++ {
				if !k.add(newWord, buf[j]) {
					return false
				}
				newWord = false
			}
			prev = 'l'
			if !spaced {
				newWord, prev = true, 0
			}
		case unicode.IsMark(r):
		default:
			newWord, prev = true, 0
		}
	}
	k.ws[k.nw] = uint8(k.n)
	return k.n > 0
}

// unspacedScript: r is of a script written without spaces between
// words (Chinese, Japanese, Thai…), whose every character normKey takes
// as a word. Arabic, Hebrew, Devanagari and Hangul separate words as
// Latin does: a key in them is its words (تاريخ_الميلاد is two), not one
// per letter, which would overflow keyWords.
func unspacedScript(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

func (k *normKey) add(newWord bool, c byte) bool {
	if k.n == keyMax {
		return false
	}
	if newWord || k.nw == 0 {
		if k.nw == keyWords {
			return false
		}
		k.ws[k.nw] = uint8(k.n)
		k.nw++
	}
	k.b[k.n] = c
	k.n++
	return true
}

// words returns the compact form of words [i, j).
func (k *normKey) words(i, j int) []byte { return k.b[k.ws[i]:k.ws[j]] }

func (k *normKey) word(i int) []byte { return k.words(i, i+1) }

// normalizeKey returns the compact normalised form of key (tests, docs).
func normalizeKey(key string) string {
	var k normKey
	if !k.set(key) {
		return ""
	}
	return string(k.b[:k.n])
}

// ---------------------------------------------------------------- vocabulary

// keyVocab is every key of the vocabulary, in compact normalised form,
// with its Key. Entries are written as people write keys; init
// normalises them.
var keyVocab = map[string]Key{}

// keyVocabOf lists the vocabulary: per class (and detector), keys
// separated by '|', each normalised when the table is built.
var keyVocabOf = []struct {
	class uint8
	det   int
	keys  string
}{
	{kName, -1, "name|nom|nombre|nome|naam|nazwa|navn|namn|nimi|名前|名称|display name|displayname|الاسم|اسم|שם|नाम"},
	{kPersonName, -1, "full name|fullname|person name|personal name|legal name|complete name|real name|" +
		"contact name|customer name|client name|holder name|account holder|account holder name|cardholder|card holder|cardholder name|card holder name|name on card|" +
		"patient name|employee name|beneficiary|beneficiary name|recipient name|sender name|passenger name|guest name|member name|student name|applicant name|" +
		"owner name|emergency contact|emergency contact name|next of kin|spouse name|father name|mother name|parent name|" +
		"vollständiger name|vollstaendiger name|kundenname|mitarbeitername|ansprechpartner|kontoinhaber|karteninhaber|" +
		"nom complet|nom et prenom|nom prenom|prenom nom|titulaire|nom du titulaire|" +
		"nombre completo|nombre y apellidos|nombre apellido|titular|nombre del titular|" +
		"nome completo|nome e cognome|intestatario|titolare|" +
		"volledige naam|naam klant|rekeninghouder|" +
		"nome do titular|" +
		"imie i nazwisko|imię i nazwisko|fullständigt namn|koko nimi|fulde navn|fulde navn|" +
		"氏名|お名前|フルネーム|名義人|顧客名|фио|полное имя|имя и фамилия|성명|고객명|ονοματεπώνυμο|ad soyad|celé jméno|teljes név|姓名|الاسم الكامل|الاسم الثلاثي|שם מלא|पूरा नाम|पूर्ण नाम"},
	{kGivenName, -1, "first name|firstname|given name|givenname|forename|christian name|middle name|middlename|second name|" +
		"vorname|vornamen|rufname|prenom|prenoms|nombre de pila|primer nombre|nome proprio|nome di battesimo|" +
		"voornaam|voornamen|roepnaam|primeiro nome|imie|imię|imiona|fornavn|förnamn|fornamn|tilltalsnamn|etunimi|etunimet|名|下の名前|имя|отчество|이름|όνομα|jméno|keresztnév|utónév|الاسم الأول|الاسم الاول|שם פרטי|पहला नाम|प्रथम नाम"},
	{kFamilyName, -1, "last name|lastname|surname|family name|familyname|maiden name|birth name|" +
		"nachname|familienname|zuname|geburtsname|nom de famille|nom de naissance|nom d usage|" +
		"apellido|apellidos|primer apellido|segundo apellido|cognome|achternaam|familienaam|geslachtsnaam|" +
		"sobrenome|apelido|nazwisko|efternamn|efternavn|sukunimi|姓|苗字|名字|фамилия|επώνυμο|soyad|soyadı|příjmení|vezetéknév|اسم العائلة|العائلة|اللقب|שם משפחה|उपनाम|कुलनाम|सरनेम|성|姓氏"},
	{kAddress, -1, "address|street|street address|streetaddress|street name|streetname|street line|address line|addressline|" +
		"home address|postal address|mailing address|residential address|residence address|billing address|shipping address|delivery address|" +
		"permanent address|current address|correspondence address|residence|place of residence|" +
		"adresse|anschrift|strasse|straße|strassenname|wohnadresse|postanschrift|lieferadresse|rechnungsadresse|wohnort adresse|" +
		"rue|adresse postale|domicile|adresse de livraison|adresse de facturation|" +
		"direccion|dirección|calle|domicilio|direccion postal|" +
		"indirizzo|via|indirizzo di residenza|residenza|" +
		"adres|straat|straatnaam|woonadres|" +
		"endereco|endereço|rua|logradouro|morada|" +
		"ulica|adres zamieszkania|adress|postadress|hemadress|besoksadress|besöksadress|leveransadress|gatuadress|gata|" +
		"gatunavn|vejnavn|vej|osoite|katuosoite|postiosoite|kotiosoite|toimitusosoite|katu|住所|所在地|番地|адрес|улица|주소|διεύθυνση|οδός|adresa|ulice|cím|地址|详细地址|住址|街道|도로명|도로명 주소|도로명주소|상세 주소|상세주소|पता|सड़क|गली|الشارع|شارع|العنوان|عنوان|רחוב|כתובת|вулиця|адреса"},
	{kLine, -1, "line|address 1|address 2|adresse 1|adresse 2|zusatz|adresszusatz|complement|complemento"},
	{kHouse, -1, "house number|housenumber|house no|building number|street number|hausnummer|numero de rue|numero de voie|" +
		"numero|número|civico|numero civico|huisnummer|numer domu|numer|husnummer|gatunummer|talonumero|номер дома|дом|מספר בית|رقم المبنى|건물 번호|건물번호"},
	{kPostcode, -1, "postcode|post code|postal code|postalcode|zip|zip code|zipcode|postleitzahl|plz|code postal|codepostal|cp|" +
		"codigo postal|código postal|cap|postcode nl|cep|kod pocztowy|kod|postnummer|postnr|postinumero|郵便番号|〒|почтовый индекс|индекс|우편번호|ταχυδρομικός κώδικας|posta kodu|psč|irányítószám|الرمز البريدي|رمز بريدي|מיקוד|पिन कोड|पिनकोड|邮编|邮政编码|郵遞區號"},
	{kCity, -1, "city|town|locality|municipality|suburb|village|stadt|ort|wohnort|gemeinde|ville|commune|localite|" +
		"ciudad|localidad|municipio|poblacion|citta|città|comune|localita|plaats|woonplaats|stad|gemeente|cidade|" +
		"miasto|miejscowosc|miejscowość|stad|kommun|postort|by|kaupunki|paikkakunta|kunta|市区町村|都市|город|도시|πόλη|şehir|město|város|postitoimipaikka|城市|市|शहर|नगर|مدينة|المدينة|עיר|населенный пункт|населённый пункт"},
	{kAddressPart, -1, "country|state|province|region|county|district|land|bundesland|kanton|pays|departement|provincia|" +
		"estado|pais|país|paese|regione|provincie|staat|wojewodztwo|lan|län|maa|都道府県"},
	{kBirthDate, -1, "dob|date of birth|dateofbirth|birth date|birthdate|birthday|birth day|born|born on|date born|" +
		"geburtsdatum|geburtstag|geboren|geboren am|date de naissance|date naissance|naissance|ne le|née le|" +
		"fecha de nacimiento|fecha nacimiento|nacimiento|fecha nac|f nac|data di nascita|data nascita|nato il|nata il|" +
		"geboortedatum|geboren op|data de nascimento|data nascimento|nascimento|data urodzenia|urodzony|urodzona|" +
		"fodelsedatum|födelsedatum|fodelsedag|syntymaaika|syntymäaika|syntymapaiva|syntymäpäivä|fodselsdato|fødselsdato|fodselsdag|生年月日|誕生日|出生日期|生日|дата рождения|день рождения|생년월일|생일|ημερομηνία γέννησης|doğum tarihi|datum narození|születési dátum|születési idő|foedselsdato|foedselsdag|जन्म तिथि|जन्मतिथि|जन्म दिनांक|जन्मदिन|تاريخ الميلاد|تاريخ الولادة|الميلاد|תאריך לידה|תאריך הלידה|出生年月日|дата народження"},
	// Identifiers with a detector of their own (ids.go): the value is
	// reported by that detector when its check digits hold, else by the
	// generic one of its kind (keyGeneric).
	{kID, detUKNINO, "nino|ni number|national insurance|national insurance number|nat ins no"},
	{kID, detUKNHS, "nhs|nhs number|nhs no"},
	{kID, detDETaxID, "steuer id|steuerid|steuer identifikationsnummer|steueridentifikationsnummer|steuerliche identifikationsnummer|idnr|tin de|identifikationsnummer"},
	{kID, detFRNIR, "nir|numero de securite sociale|numero securite sociale|securite sociale|num secu|no secu|insee|numero insee"},
	{kID, detESDNI, "dni|documento nacional de identidad|numero dni"},
	{kID, detESNIE, "nie|numero de identidad de extranjero"},
	{kID, detITFiscalCode, "codice fiscale|codicefiscale|cod fiscale|cf"},
	{kID, detNLBSN, "bsn|burgerservicenummer|burger service nummer|sofinummer|sofi nummer"},
	{kID, detBENationalNumber, "rijksregisternummer|numero national|numero de registre national|registre national|insz|niss"},
	{kID, detPLPESEL, "pesel"},
	{kID, detSEPersonnummer, "personnummer|person nummer|personnr|pers nr|samordningsnummer"},
	{kID, detFIHETU, "hetu|henkilotunnus|henkilötunnus|sotu|sosiaaliturvatunnus"},
	{kID, detDKCPR, "cpr|cpr nummer|cprnr|personnummer dk"},
	{kID, detBRCPF, "cpf|cpf cnpj"},
	{kID, detBRCNPJ, "cnpj"},
	{kID, detINAadhaar, "aadhaar|aadhar|uidai|aadhaar number"},
	{kID, detINPAN, "pan|pan number|permanent account number"},
	{kID, detCASIN, "sin|social insurance number|numero d assurance sociale|nas|numero assurance sociale"},
	{kID, detAUTFN, "tfn|tax file number|tax file"},
	{kID, detAUMedicare, "medicare|medicare number|medicare card|medicare card number"},
	{kID, detSGNRIC, "nric|fin|nric fin|nric no"},
	{kID, detJPMyNumber, "my number|mynumber|kojin bango|個人番号|マイナンバー"},
	{kID, detUSITIN, "itin|individual taxpayer identification number"},
	{kID, detSSN, "ssn|social security|social security number|social security no|soc sec no|us ssn"},
	{kID, detPassport, "passport|passport number|passport no|passport id|passport num|travel document|travel document number|" +
		"reisepass|reisepassnummer|passnummer|pass nr|passeport|numero de passeport|pasaporte|numero de pasaporte|passaporto|numero passaporto|" +
		"paspoort|paspoortnummer|passaporte|numero do passaporte|paszport|numer paszportu|passnummer se|passi|passin numero|passinumero|" +
		"pasnummer|pas nr|pas|旅券番号|パスポート番号|パスポート|护照|护照号|护照号码|護照號碼"},
	{kID, detABARouting, "routing number|routing|aba|aba number|aba routing|aba routing number|routing transit number|rtn|bank routing|bank routing number|routing no"},
	{kID, detBankAccount, "bank account|bank account number|bankaccount|account number|accountnumber|account no|acct no|acct number|acct|bank acct|" +
		"sort code|sortcode|bsb|bsb number|bsb code|ifsc|ifsc code|transit number|institution number|bank code|bank number|" +
		"blz|bankleitzahl|code banque|code guichet|codigo de banco|codigo de agencia|agencia|codice abi|codice cab|" +
		"bankcode|clearingnummer|clearing number|registreringsnummer|reg nr|銀行コード|支店コード|" +
		"kontonummer|bankkonto|konto|numero de compte|compte bancaire|rib|" +
		"numero de cuenta|cuenta bancaria|cuenta|numero di conto|conto corrente|conto|rekeningnummer|bankrekening|rekening|" +
		"numero da conta|conta bancaria|conta|numer konta|numer rachunku|konto bankowe|bankkontonummer|tilinumero|pankkitili|口座番号"},
	{kID, detNationalID, "national id|nationalid|national id number|national identifier|national identity number|national number|national identification number|" +
		"id number|id no|identity number|identity card|identity card number|id card|id card number|personal id|personal number|personal identification number|" +
		"citizen id|resident id|government id|state id|" +
		"personalausweis|personalausweisnummer|ausweisnummer|ausweis|identitatskarte|" +
		"carte d identite|numero carte d identite|carte nationale d identite|cni|" +
		"documento de identidad|cedula|cédula|numero de documento|documento|carta d identita|carta di identita|numero carta identita|" +
		"identiteitskaart|identiteitsbewijs|id kaart|rg|registro geral|carteira de identidade|dowod osobisty|dowód osobisty|numer dowodu|" +
		"identitetskort|henkilokortti|sozialversicherungsnummer|svnr|versicherungsnummer|rentenversicherungsnummer|" +
		"numero de seguridad social|nss|numero seguridad social|身分証番号|" +
		"身份证|身份证号|身份证号码|居民身份证|居民身份证号码|公民身份号码|身份证件号码"},
	{kID, detTaxID, "tax id|taxid|tax number|tax no|tax identification number|taxpayer id|taxpayer identification number|tin|tax reference|utr|" +
		"steuernummer|steuer nr|steuernr|numero fiscal|numero d identification fiscale|nif|numero fiscal de referencia|" +
		"nif|numero de identificacion fiscal|rfc|partita iva personale|fiscaal nummer|fiscaal identificatienummer|" +
		"nip|numer identyfikacji podatkowej|skattenummer|skatteregistreringsnummer|verotunniste|veronumero|納税者番号|tax code|fiscal code"},
	{kID, detDriverLicense, "driver license|driver licence|drivers license|drivers licence|driving license|driving licence|driver license number|" +
		"driver licence number|drivers license number|drivers licence number|driving licence number|driving license number|dl|dl number|license number|licence number|" +
		"fuhrerschein|führerschein|fuhrerscheinnummer|führerscheinnummer|permis de conduire|numero de permis|permis|" +
		"carnet de conducir|permiso de conducir|licencia de conducir|licencia|patente|patente di guida|numero patente|" +
		"rijbewijs|rijbewijsnummer|carteira de motorista|carta de conducao|cnh|prawo jazdy|korkort|körkort|ajokortti|korekort|kørekort|運転免許証|免許証番号"},
	{kEmail, -1, "email|e mail|mail|email address|e mail address|courriel|correo|correo electronico|posta elettronica|e posta|sahkoposti|メール|メールアドレス"},
	{kPhone, -1, "phone|phone number|telephone|tel|mobile|mobile number|cell|cellphone|cell phone|fax|telefon|telefonnummer|handy|mobil|mobilnummer|" +
		"telephone portable|portable|numero de telephone|telefono|movil|celular|cellulare|telefoonnummer|mobiel|gsm|puhelin|puhelinnumero|電話番号|電話|" +
		"telefoon|telefone|numero de telefone|numero de telefono|numero di telefono|telefono cellulare|telefono movil|mobiltelefon|matkapuhelin|" +
		"numer telefonu|komorka|telefon komorkowy|mobilnummer|携帯|携帯電話|电话|电话号码|手机|手机号|手机号码|手機|联系电话|телефон|номер телефона|мобильный|мобильный телефон|전화|전화번호|휴대폰|휴대전화|연락처|τηλέφωνο|κινητό|telefon numarası|cep telefonu|telefonní číslo|telefonszám|contact number|contact no|contact phone|फ़ोन|फोन|मोबाइल|फ़ोन नंबर|फोन नंबर|मोबाइल नंबर|الهاتف|هاتف|رقم الهاتف|الجوال|جوال|טלפון|נייד|מספר טלפון|핸드폰"},
	{kHolder, -1, "customer|customers|client|clients|contact|contacts|person|persons|people|individual|patient|patients|employee|employees|staff|" +
		"user|users|member|members|owner|owners|holder|holders|account holder|cardholder|guest|guests|passenger|passengers|student|students|" +
		"applicant|applicants|candidate|candidates|beneficiary|beneficiaries|recipient|recipients|sender|subscriber|subscribers|buyer|purchaser|" +
		"spouse|partner|parent|parents|father|mother|child|children|guardian|emergency contact|next of kin|profile|user profile|author|authors|" +
		"assignee|reporter|requester|manager|driver|traveler|traveller|tenant|resident|borrower|debtor|insured|policyholder|" +
		"kunde|kunden|mitarbeiter|mitarbeitende|angestellter|ansprechpartner|person|personen|benutzer|nutzer|teilnehmer|mieter|versicherter|" +
		"utilisateur|utilisateurs|salarie|salarié|employe|employé|personne|personnes|patiente|assure|locataire|" +
		"cliente|clientes|usuario|usuarios|empleado|empleados|paciente|pacientes|persona|personas|titular|" +
		"contatto|dipendente|dipendenti|utente|utenti|persone|" +
		"klant|klanten|medewerker|medewerkers|gebruiker|gebruikers|persoon|personen|patient|" +
		"funcionario|funcionário|usuário|pessoa|pessoas|" +
		"klient|klienci|pracownik|pracownicy|uzytkownik|użytkownik|osoba|pacjent|" +
		"kund|kunder|anstalld|anställd|anvandare|användare|asiakas|asiakkaat|tyontekija|työntekijä|kayttaja|käyttäjä|henkilo|henkilö|potilas|" +
		"medarbejder|bruger|顧客|患者|社員|従業員|利用者|会員"},
	{kNamed, -1, "company|companies|organisation|organization|org|organizations|business|firm|employer|vendor|vendors|supplier|suppliers|merchant|" +
		"store|shop|brand|product|products|bank|institution|school|university|hospital|hotel|restaurant|" +
		"venue|location|place|airport|airline|carrier|unternehmen|firma|produkt|entreprise|societe|produit|" +
		"empresa|producto|azienda|prodotto|bedrijf|onderneming|produto|yritys|tuote|virksomhed|会社|商品|製品|product name|productname|company name|companyname|business name|organisation name|organization name|org name|brand name|bank name|branch name|store name|shop name|firmenname|nom de l entreprise|raison sociale|nombre de la empresa|razon social|ragione sociale|bedrijfsnaam|razao social|nazwa firmy|vendor name|supplier name|merchant name|employer name|hotel name|restaurant name"},
	{kThing, -1, "item|items|sku|plan|plans|tool|tools|service|services|app|application|project|projects|repo|repository|" +
		"team|teams|group|groups|department|category|categories|tag|tags|" +
		"file|files|document|attachment|resource|resources|server|servers|host|device|devices|model|package|module|dataset|table|column|field|" +
		"event|events|campaign|course"},
	{kVersion, -1, "version|versions|ver|v|build|build number|release|firmware|firmware version|fw|fw version|app version|os version|" +
		"sdk version|api version|software version|revision|rev|patch|versionsnummer|versión|versione|versão|versie|wersja|versio|versjon"},
	{kNumber, -1, "invoice|order|ticket|reference|ref|case|tracking|booking|confirmation|transaction|serial|receipt|shipment|parcel|" +
		"purchase order|po|sku|article|contract|policy|rechnung|bestellung|bestell|auftrag|vertrag|referenz|facture|commande|" +
		"factura|pedido|fattura|ordine|riferimento|factuur|bestelling|fatura|faktura|zamowienie|lasku|tilaus|ordre|" +
		"rechnungsnummer|bestellnummer|auftragsnummer|vertragsnummer|referenznummer|factuurnummer|bestelnummer|ordernummer|fakturanummer|" +
		"numero de facture|numero de commande|numero de factura|numero de pedido|numero fattura|numero ordine|numero da fatura|numero do pedido|" +
		"numer faktury|numer zamowienia|laskun numero|tilausnumero|" +
		"customer number|customer no|kundennummer|kundennr|kundnummer|kundenummer|klantnummer|numero client|numero de client|" +
		"numero cliente|numero de cliente|numero do cliente|numer klienta|asiakasnumero|imei"},
	{kStop, -1, "username|user name|login|login name|screen name|screenname|nickname|nick name|nick|handle|account name|user id|userid|" +
		"hostname|host name|filename|file name|pathname|path name|tool name|toolname|" +
		"display name of|project name|app name|service name|server name|bucket name|table name|field name|column name|key name|" +
		"domain name|class name|function name|method name|event name|plan name|city name|country name|street name of|" +
		"date|created date|created|updated|modified|order date|start date|end date|due date|timestamp|birth place|place of birth|" +
		"geburtsort|lieu de naissance|lugar de nacimiento|luogo di nascita|geboorteplaats|naturalidade|" +
		"vat|vat number|vat id|vat no|ust id|ustid|ust idnr|ustidnr|umsatzsteuer identifikationsnummer|umsatzsteuer id|tva|numero de tva|iva|partita iva|btw|btw nummer|cif|" +
		"iban|bic|swift|card number|credit card|email address|ip address|ipaddress|mac address|wallet address|contract address|server address|" +
		"web address|url address|remote address|local address|bind address|listen address|memory address|return address|base address|"},
}

// keyHeads are the words that end a key and say which of its kind it is
// (passport_number, tax_id_no): stripped before the rest is looked up.
var keyHeads = map[string]bool{}

// keyLinks are the small words of a Romance key between its head and its
// qualifier (nombre_del_cliente, data_di_nascita).
var keyLinks = map[string]bool{}

// keyDeny are qualifiers that make a head say nothing of a person
// (product_name, ip_address, wallet_address).
var keyDeny = map[string]bool{}

func init() {
	var k normKey
	for _, e := range keyVocabOf {
		for _, w := range strings.Split(e.keys, "|") {
			if w == "" || !k.set(w) {
				continue
			}
			key := string(k.b[:k.n])
			if _, dup := keyVocab[key]; dup {
				continue // the first class listed wins
			}
			keyVocab[key] = mkKey(e.class, e.det)
		}
	}
	for _, w := range strings.Fields("number num no nr nbr nummer numero nro n code id") {
		keyHeads[w] = true
	}
	for _, w := range strings.Fields("de du des d del della dello dei di da do dos das van von der den of the la le lo el") {
		keyLinks[w] = true
	}
	for _, w := range strings.Fields("email e mail ip ipv4 ipv6 mac wallet web url uri server remote local bind listen contract memory return base network host " +
		"proxy gateway node peer endpoint broadcast multicast ethereum eth bitcoin btc crypto token hex hash pointer") {
		keyDeny[w] = true
	}
}

// lookupKey is keyVocab[string(b)], from the vocab table.
func lookupKey(b []byte) (Key, bool) {
	k, has := vocabFind(b)
	return k, has&inKeyVocab != 0
}

// vocabHas reports whether word b is in the sets of has (inKeyHeads…).
func vocabHas(b []byte, has uint8) bool {
	_, in := vocabFind(b)
	return in&has != 0
}

// vocab is every word the classifiers look up (keyVocab, keyHeads,
// keyLinks, keyDeny and labelLast, which stay the reference) in one
// open-addressed table, filled by init: a lookup hashes the bytes and
// compares a slot or two inline, where a map's lookup of a string costs
// several calls in the VM (hashing, comparing), and a label is looked up
// a dozen times.
var vocab struct {
	slots []vocabSlot
	shift uint8 // 32 - log2(len(slots))
}

type vocabSlot struct {
	word string
	hash uint32
	key  Key   // keyVocab's, with inKeyVocab
	has  uint8 // which sets hold word; 0: an empty slot
}

// The sets of a vocabSlot.
const (
	inKeyVocab uint8 = 1 << iota
	inKeyHeads
	inKeyLinks
	inKeyDeny
	inLabelLast
)

// vocabHash is FNV-1a of b.
func vocabHash(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

// vocabFind is word b's Key and sets (0, 0 if none holds it).
func vocabFind(b []byte) (Key, uint8) {
	h := vocabHash(b)
	mask := uint32(len(vocab.slots) - 1)
	for i := (h * 0x9E3779B1) >> vocab.shift; ; i = (i + 1) & mask {
		sl := &vocab.slots[i]
		if sl.has == 0 {
			return 0, 0
		}
		if sl.hash == h && len(sl.word) == len(b) {
			w := sl.word
			k := 0
			for k < len(b) && w[k] == b[k] {
				k++
			}
			if k == len(b) {
				return sl.key, sl.has
			}
		}
	}
}

// vocabAdd puts word w in the sets of has (and its Key, with inKeyVocab).
func vocabAdd(w string, has uint8, key Key) {
	h := vocabHash([]byte(w))
	mask := uint32(len(vocab.slots) - 1)
	for i := (h * 0x9E3779B1) >> vocab.shift; ; i = (i + 1) & mask {
		sl := &vocab.slots[i]
		if sl.has == 0 || sl.word == w {
			sl.word, sl.hash, sl.has = w, h, sl.has|has
			if has&inKeyVocab != 0 {
				sl.key = key
			}
			return
		}
	}
}

// buildVocab fills vocab from the maps, at a quarter of its slots.
func buildVocab() {
	words := map[string]bool{}
	for _, m := range []map[string]bool{keyHeads, keyLinks, keyDeny, labelLast} {
		for w := range m {
			words[w] = true
		}
	}
	for w := range keyVocab {
		words[w] = true
	}
	size := 64
	for size < 4*len(words) {
		size *= 2
	}
	vocab.slots = make([]vocabSlot, size)
	vocab.shift = uint8(32 - bits.TrailingZeros(uint(size)))
	for w, k := range keyVocab {
		vocabAdd(w, inKeyVocab, k)
	}
	for i, m := range []map[string]bool{keyHeads, keyLinks, keyDeny, labelLast} {
		for w := range m {
			vocabAdd(w, inKeyHeads<<i, 0)
		}
	}
}

// classify is the Key of the normalised key k.
func (k *normKey) classify() Key { return k.classifyFrom(0) }

// classifyFrom is the Key of k's words from f on, as classify gives it
// for a key of those words alone.
func (k *normKey) classifyFrom(f int) Key {
	nw := k.nw
	// Trailing digits say which of several (address_line1, phone2).
	for nw > f && k.b[k.ws[nw-1]] >= '0' && k.b[k.ws[nw-1]] <= '9' {
		nw--
	}
	if nw == f {
		return 0
	}
	if v, ok := lookupKey(k.words(f, nw)); ok {
		return v
	}
	// passport_number, tax_id_no, licence_nr, invoice_number: the head
	// names the kind.
	if nw > f+1 && vocabHas(k.word(nw-1), inKeyHeads) {
		if v, ok := lookupKey(k.words(f, nw-1)); ok && (v.class() == kID || v.class() == kStop || v.class() == kNumber) {
			return v
		}
	}
	// Head last (customer_name, billingAddress, emergency_contact_phone):
	// the longest known tail, qualified by what comes before it.
	holder := Key(0)
	for i := f + 1; i < nw; i++ {
		v, ok := lookupKey(k.words(i, nw))
		if !ok {
			continue
		}
		if v.class() == kHolder {
			// primary_contact, or nombre_cliente: a head first may come.
			holder = k.qualified(v, f, i)
			break
		}
		return k.qualified(v, f, i)
	}
	// Head first (nombre_cliente, data_di_nascita_paziente, nom_du_titulaire).
	for i := nw - 1; i >= f+1; i-- {
		v, ok := lookupKey(k.words(f, i))
		if !ok {
			continue
		}
		j := i
		for j < nw && vocabHas(k.word(j), inKeyLinks) {
			j++
		}
		if j == nw {
			return v // data_di: a link alone
		}
		q := k.qualified(v, j, nw)
		if v.class() != kName && v.class() != kHolder && !k.holders(j, nw) {
			return 0 // a head first needs a person after it: date_de_creation is no birth date
		}
		return q
	}
	if holder != 0 {
		return holder
	}
	// One word of qualifier and head (customername, kundenname,
	// billingaddress): a known qualifier, then a known head.
	w := k.b[k.ws[f]:k.n]
	if nw == f+1 && len(w) >= 5 {
		for j := 2; j < len(w)-1; j++ {
			v, ok := lookupKey(w[j:])
			if !ok || v.class() == kStop || v.class() == kHolder || v.class() == kThing || v.class() == kNamed {
				continue
			}
			q, ok := lookupKey(w[:j])
			if !ok {
				continue
			}
			switch {
			case q.class() == kHolder && (v.class() == kName || v.class() == kPersonName || v.class() == kGivenName || v.class() == kFamilyName):
				return mkKey(kPersonName, -1)
			case q.class() == kHolder || q.class() == kAddress && v.class() == kAddress:
				return v
			}
			return 0
		}
	}
	return 0
}

// holders reports whether words [i, j) are a person's qualifier.
func (k *normKey) holders(i, j int) bool {
	if v, ok := lookupKey(k.words(i, j)); ok && v.class() == kHolder {
		return true
	}
	for w := i; w < j; w++ {
		if v, ok := lookupKey(k.word(w)); ok && v.class() == kHolder {
			return true
		}
	}
	return false
}

// qualified is head v qualified by words [i, j) of k.
func (k *normKey) qualified(v Key, i, j int) Key {
	for w := i; w < j; w++ {
		word := k.word(w)
		if vocabHas(word, inKeyDeny) {
			return 0
		}
		if q, ok := lookupKey(word); ok && (q.class() == kThing || q.class() == kNamed || q.class() == kStop) {
			return mkKey(kStop, -1) // product_name, company_address: no person's
		}
	}
	switch v.class() {
	case kName:
		if k.holders(i, j) {
			return mkKey(kPersonName, -1) // customer_name, emergency_contact_name
		}
		return mkKey(kStop, -1) // bucket_name, display_name of something
	case kStop, kThing, kNamed, kAddressPart:
		return v
	case kHolder:
		return v // primary_contact, emergency_contact
	case kCity, kPostcode, kHouse:
		return v // billing_city: still only inside an address
	}
	return v
}

// keyGeneric is the generic detector of an identifier's kind: where the
// value of a key that names a detector fails that detector's checks.
func keyGeneric(det int) int {
	switch det {
	case detDETaxID, detINPAN, detAUTFN, detUSITIN, detBRCNPJ, detTaxID:
		return detTaxID
	case detPassport:
		return detPassport
	case detDriverLicense:
		return detDriverLicense
	case detBankAccount, detABARouting:
		return detBankAccount
	}
	return detNationalID
}

// ---------------------------------------------------------------- classifying names

// classifyKey is the Key of member name (or label) name, the policy's
// extra keys (x, may be nil) first.
func classifyKey(name string, x *Extra) Key {
	var k normKey
	if !k.set(name) {
		return 0
	}
	if x != nil && len(x.Keys) > 0 {
		if v, ok := extraKeys(x)[string(k.b[:k.n])]; ok {
			return v
		}
	}
	v := k.classify()
	if v.class() == kStop {
		return 0
	}
	return v
}

// KeyOf is what member name name says of its value (KeyContext.Of says
// whether it is reported where it is).
func (ds *Set) KeyOf(name string) Key {
	if !keyWorth(name) {
		return 0
	}
	return classifyKey(name, ds.extra)
}

// keyWorth is KeyOf's cheap test: a name of at most keyMax bytes that is
// not a number.
func keyWorth(name string) bool {
	if len(name) == 0 || len(name) > 3*keyMax {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < '0' || c > '9' {
			return true
		}
	}
	return false
}

// extraTables holds the extra keys of each Extra, normalised (built on
// first use; an Extra does not change once a Set has it).
var extraTables sync.Map // *Extra → map[string]Key

// extraKeys is x's keys by normalised form.
func extraKeys(x *Extra) map[string]Key {
	if t, ok := extraTables.Load(x); ok {
		return t.(map[string]Key)
	}
	t := map[string]Key{}
	var k normKey
	for name, keys := range x.Keys {
		d := -1
		for i, n := range builtinNames {
			if n == name {
				d = i
			}
		}
		var v Key
		switch {
		case d == detPerson:
			v = mkKey(kPersonName, -1)
		case d == detStreetAddress:
			v = mkKey(kAddress, -1)
		case d == detDateOfBirth:
			v = mkKey(kBirthDate, -1)
		case d >= detUKNINO || d == detSSN:
			v = mkKey(kID, d)
		default:
			continue // the other detectors find their values by shape
		}
		for _, key := range keys {
			if k.set(key) {
				t[string(k.b[:k.n])] = v
			}
		}
	}
	extraTables.Store(x, t)
	return t
}

// ---------------------------------------------------------------- values by key

// keyedSpan is the detection value s gets from key k when the detectors
// in on run: detector, basis and the span (the value without its
// surrounding white space); ok false when the value does not look like
// what its key promises.
func keyedSpan(s string, k Key, on uint64) (det int, a, b int, ok bool) {
	a, b = trimSpan(s, 0, len(s))
	if a >= b {
		return 0, 0, 0, false
	}
	v := s[a:b]
	switch k.class() {
	case kName:
		// A bare "name" in an object that says nothing of a person: a
		// person's only with two words or more the name tables know as
		// a name (not "Pro Plan", "Paris Office", "Victoria").
		ok2, _, allKnown := personNameWords(v)
		r, _ := utf8.DecodeRuneInString(v)
		det, ok = detPerson, ok2 && allKnown && (strings.ContainsAny(strings.TrimSpace(v), " \u3000") || isCJK(r))
	case kPersonName, kGivenName, kFamilyName:
		det, ok = detPerson, keyShapes.personName(v, k.class() != kPersonName)
	case kHeldName:
		// "customer": "SMITH, JOHN", "Ada Lovelace"; not one word the
		// tables do not know as a name ("customer": "Globex" is a
		// company's).
		// Nor a login in lower case ("user": "alice").
		_, _, known := personNameWords(v)
		r, _ := utf8.DecodeRuneInString(v)
		det, ok = detPerson, !unicode.IsLower(r) && keyShapes.personName(v, false) && (strings.ContainsAny(strings.TrimSpace(v), " ,") || known)
	case kAddress:
		det, ok = detStreetAddress, keyShapes.address(v) || streetNameShape(v)
	case kHouse:
		det, ok = detStreetAddress, houseNumberShape(v)
	case kPostcode:
		det, ok = detStreetAddress, keyPostcode(v)
	case kCity:
		det, ok = detStreetAddress, cityShape(v)
	case kBirthDate:
		det, ok = detDateOfBirth, keyShapes.birthDate(v)
	case kID:
		det, ok = keyedID(v, k.det(), on)
	case kPhone:
		det, ok = detPhone, on&(1<<detPhone) != 0 && (phoneShaped(v) || keyedPhone(v))
	}
	if !ok || on&(1<<det) == 0 {
		return 0, 0, 0, false
	}
	return det, a, b, true
}

// keyedID is the detector of identifier v under a key naming detector
// want (-1: none in particular): the detector of ids.go whose checks v
// passes whole, else the generic detector of the kind, if v looks like an
// identifier at all.
func keyedID(v string, want int, on uint64) (int, bool) {
	// An identifier of ids.go in lower case (rssmra85t10a562s, ab123456c)
	// is read in capitals: the key is its word; one in mixed case is
	// none. Only such a value is copied (a few per megabyte of the
	// mixed corpus).
	w := v
	var cls uint8
	for i := 0; i < len(v); i++ {
		cls |= idClass[v[i]]
	}
	switch cls & (icLower | icUpper | icDigit) {
	case icLower | icDigit:
		w = strings.ToUpper(v)
	case icLower | icUpper, icLower | icUpper | icDigit:
		w = ""
	}
	if want == detPassport {
		// Passport numbers have no check: passportShape is the test, a
		// German or Dutch one may hold a single digit (C01XTPVYZ).
		return detPassport, on&(1<<detPassport) != 0 && keyedWholeDet(w, 1<<detPassport) == detPassport
	}
	if !idShape(v) {
		return 0, false
	}
	if want >= 0 && idDetectors&(1<<want) != 0 {
		// A key naming one identifier (bsn, routing_number, passport):
		// the value is one only if it passes that identifier's checks,
		// the key standing for its context words. One that fails its
		// check digits is no identifier (an order number under a
		// careless key).
		if on&(1<<want) != 0 && keyedWholeDet(w, 1<<want) == want {
			return want, true
		}
		// A routing number of another country under a routing key (a
		// sort code 20-00-00, a BSB 062-000, an IFSC): a bank's number,
		// not an ABA number that fails its check (nine digits).
		if want == detABARouting && on&(1<<detBankAccount) != 0 && digitCount(v) != 9 {
			return detBankAccount, true
		}
		// "ssn", "social security number": what records in English call
		// every country's personal number (a personnummer, a HETU, a
		// CPR, a BSN, a NIR): another identifier that passes its own
		// checks whole is one there too.
		// Likewise "personnummer", the personal number's name in Danish
		// as in Swedish: a CPR under it is one.
		if fam := on & keySharedWith(want); fam != 0 {
			if det := keyedWholeDet(w, fam); det >= 0 {
				return det, true
			}
		}
		return 0, false
	}
	if want == detBankAccount && on&(1<<detBankAccount) != 0 {
		// A bank's number is what its key says: an account number that
		// happens to pass a personal identifier's checks (123456789, an
		// SSN's shape; 987654321, an ITIN's) is no SSN.
		return detBankAccount, true
	}
	// Passports have no check digits: any shape would do, so only a
	// passport key makes one.
	if fam := on & idDetectors &^ (1 << detPassport); fam != 0 {
		if det := keyedWholeDet(w, fam); det >= 0 {
			return det, true
		}
	}
	if want == -1 {
		return detNationalID, true
	}
	if on&(1<<want) != 0 && (want == detNationalID || want == detTaxID || want == detDriverLicense || want == detBankAccount) {
		return want, true
	}
	return keyGeneric(want), true
}

// keySharedWith is the other identifiers a key naming identifier want
// also names (keyedID): every personal number for "ssn", the Danish CPR
// for "personnummer".
func keySharedWith(want int) uint64 {
	switch want {
	case detSSN:
		return idDetectors &^ (1<<detPassport | 1<<detSSN)
	case detSEPersonnummer:
		return 1 << detDKCPR
	}
	return 0
}

// keyedPhone reports whether v whole is a phone number once its key is
// read as the phone word before it: a national number written as a bare
// run ("612345678" under "telefono") is one there, as after "Tel." in
// text (phone.go), and still has to be valid for its region.
func keyedPhone(v string) bool {
	if len(v) < 6 || len(v) > 32 {
		return false
	}
	// The text and the spans in a pooled scratch: a keyed phone is read
	// per value, and allocating them was most of its cost in the VM (the
	// pass escapes, and what it points to with it).
	sc := keyedPhoneScratch.Get().(*phoneScratch)
	defer keyedPhoneScratch.Put(sc)
	b := append(append(sc.text[:0], phoneWord...), v...)
	s := unsafe.String(&b[0], len(b)) // sc.text is not written while s lives
	p := pass{s: s, on: 1 << detPhone, tab: phoneOnly, spans: sc.spans[:0]}
	p.run()
	for _, sp := range p.spans {
		if sp.Start == len(phoneWord) && sp.End == len(s) {
			return true
		}
	}
	return false
}

// phoneWord is the phone word keyedPhone reads a value after.
const phoneWord = "tel "

// phoneScratch is keyedPhone's text and spans.
type phoneScratch struct {
	text  [len(phoneWord) + 32]byte
	spans [8]Span
}

var keyedPhoneScratch = sync.Pool{New: func() any { return new(phoneScratch) }}

// phoneOnly is the trigger table of the phone detector alone.
var phoneOnly = newTrigTable(1 << detPhone)

// keyedWholeDet is the identifier of fam that v whole is, its key
// standing for the context, or -1.
func keyedWholeDet(v string, fam uint64) int {
	p := pass{s: v, fam: fam, multi: true, keyed: true}
	p.scanIDs()
	for i, sp := range p.spans {
		if sp.Start == 0 && sp.End == len(v) {
			return int(p.dets[i] & detMask)
		}
	}
	return -1
}

// trimSpan narrows [a, b) of s past ASCII white space.
func trimSpan(s string, a, b int) (int, int) {
	for a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\n' || s[a] == '\r') {
		a++
	}
	for b > a && (s[b-1] == ' ' || s[b-1] == '\t' || s[b-1] == '\n' || s[b-1] == '\r') {
		b--
	}
	return a, b
}

// DetectKeyed is DetectAppend of the value s of a member keyed k (as
// KeyContext.Of gives it): what s holds, and s whole, by its key, when it
// looks like what the key promises, overlaps resolved (manual 12.3: the
// whole value starts first and is longest, and wins).
func (ds *Set) DetectKeyed(dst []Detection, s string, k Key, sel Selection) []Detection {
	start := len(dst)
	dst = ds.DetectAppend(dst, s, sel)
	switch k.class() {
	case kNamed:
		return dropTableNames(dst, start, s)
	case kNumber:
		return dropPhones(dst, start, s)
	case kVersion:
		return dropFound(dst, start, func(d Detection) bool { return d.Detector == "ipv4" }, func() bool { return versionOnly(s) })
	case kID:
		dst = dropPhones(dst, start, s) // an identifier whose check fails is no phone either
	}
	if !k.Reports() {
		return dst
	}
	det, a, b, ok := keyedSpan(s, k, ds.builtins&sel.builtins)
	if !ok {
		return dst
	}
	m := &ds.meta[det]
	// An allow entry takes the keyed value away like any other finding
	// (the company's support desk under "name").
	allow := ds.main.allow
	if sel.rules != nil {
		allow = sel.rules.allow
	}
	if len(allow) > 0 {
		if e, _ := allow.allowedBy(m.name, s[a:b], nil); e != nil {
			return dst
		}
	}
	kd := Detection{Detector: m.name, Label: m.label, Sensitivity: m.sensitivity, Start: a, End: b, Basis: BasisKey}
	// The value's own detections are in order and apart: those before a
	// stay; one that starts before a and reaches into the value, or one
	// as long from a that ranks first, wins over it; the rest go.
	found := dst[start:]
	i := 0
	for i < len(found) && found[i].End <= a {
		i++
	}
	if i < len(found) {
		f := &found[i]
		if f.Start < a || f.Start == a && f.End > b {
			return dst
		}
		if f.Start == a && f.End == b && (f.Sensitivity > kd.Sensitivity || f.Sensitivity == kd.Sensitivity && ds.rank[f.Detector] <= m.rank) {
			if f.Detector == m.name {
				f.Basis = BasisKey
			}
			return dst
		}
	}
	j := i
	for j < len(found) && found[j].Start < b {
		j++
	}
	if j == i+1 {
		found[i] = kd
		return dst
	}
	if j == i {
		dst = append(dst, Detection{})
		found = dst[start:]
		copy(found[i+1:], found[i:])
		found[i] = kd
		return dst
	}
	found[i] = kd
	n := copy(found[i+1:], found[j:])
	return dst[:start+i+1+n]
}

// ---------------------------------------------------------------- labels in text

// labelFamily is the detectors scanLabelled may report: a labelled value
// is a person's name, an address, a birth date or an identifier (and a
// us_ssn or a phone, when the pass runs it).
const labelFamily = idFamily | 1<<detPerson | 1<<detStreetAddress | 1<<detDateOfBirth |
	1<<detBankAccount | 1<<detNationalID | 1<<detTaxID | 1<<detDriverLicense

// labelTails marks the pairs of last bytes (lower case) of the words a
// label may end with: a separator after any other word is passed by
// without classifying it.
// (Filled by init, after keyVocab.)
var labelTails = new([1 << 16 / 8]uint8)

func init() {
	t := labelTails
	add := func(w string) {
		if len(w) >= 2 {
			i := uint16(w[len(w)-2])<<8 | uint16(w[len(w)-1])
			t[i>>3] |= 1 << (i & 7)
		}
	}
	for w, k := range keyVocab {
		if k.Reports() || k.class() == kHolder {
			add(w)
		}
	}
	for w := range keyHeads {
		add(w)
		labelLast[w] = true
	}
	var k normKey
	for _, e := range keyVocabOf {
		if !mkKey(e.class, e.det).Reports() && e.class != kHolder {
			continue
		}
		for _, w := range strings.Split(e.keys, "|") {
			if k.set(w) {
				labelLast[string(k.word(k.nw-1))] = true
				if k.nw >= 2 && len(k.word(k.nw-2)) == 1 {
					labelLast[string(k.words(k.nw-2, k.nw))] = true // d'identité: one word in text
				}
			}
		}
	}
	for w := range labelLast {
		h := uint32(0)
		for i := len(w) - 1; i >= 0; i-- {
			if w[i]-'a' >= 26 {
				h = 1 // not letters only: no word labelLastMay hashes
				break
			}
			h = h*lastMul + uint32(w[i])
		}
		if h != 1 {
			h = lastHash(h)
			labelLastBits[h>>3] |= 1 << (h & 7)
		}
	}
	buildVocab()
}

// labelLastBits has bit lastHash(h) set for the hash h of every word of
// labelLast made of the letters a-z alone (labelLastMay).
var labelLastBits = new([1 << lastBits / 8]uint8)

const (
	lastBits = 14
	lastMul  = 0x9E3779B1
)

func lastHash(h uint32) uint32 { return (h * lastMul) >> (32 - lastBits) }

// labelLastMay is labelAt's cheap test of the label ending at e (after
// its separator and labelTail's test): false only when the label's last
// word, as normKey.set splits and lowers it, is made of ASCII letters and
// is surely not in labelLast. It reads that word back from e (less a
// final '.') as set would split it: lower-case letters with the capital
// before them (a hump), or a run of capitals; anything it cannot decide
// so (an apostrophe, a non-ASCII byte, no letter, a long word) is true.
func labelLastMay(s string, e int) bool {
	j := e
	if s[j-1] == '.' {
		j--
	}
	i, h := j, uint32(0)
	for i > 0 && j-i < 24 && s[i-1]-'a' < 26 {
		i--
		h = h*lastMul + uint32(s[i])
	}
	if i > 0 && s[i-1]-'A' < 26 {
		if i < j {
			// A capital before lower case always starts a word.
			i--
			h = h*lastMul + uint32(s[i]|0x20)
		} else {
			for i > 0 && j-i < 24 && s[i-1]-'A' < 26 {
				i--
				h = h*lastMul + uint32(s[i]|0x20)
			}
		}
	}
	if i == j || j-i >= 24 || i > 0 && (s[i-1] >= utf8.RuneSelf || s[i-1] == '\'' || s[i-1] == '`') {
		return true
	}
	h = lastHash(h)
	return labelLastBits[h>>3]&(1<<(h&7)) != 0
}

// labelLast is the last word of every label that may say something: a
// label ending in another word is passed by without classifying it.
var labelLast = map[string]bool{}

// labelTail reports whether a label may end with the bytes b1 b2
// (ASCII lower-cased; any non-ASCII byte may).
func labelTail(b1, b2 byte) bool {
	if b1 >= utf8.RuneSelf || b2 >= utf8.RuneSelf {
		return true
	}
	i := uint16(b1|0x20)<<8 | uint16(b2|0x20)
	return labelTails[i>>3]&(1<<(i&7)) != 0
}

// A label is at most labelMax bytes and labelWords words before its
// separator.
const (
	labelMax   = 48
	labelWords = 5
)

// labelAt reads the label before the separator at t (sep its length):
// its Key (as KeyContext.Of gives it in a person's record, the zero Key
// if the label says nothing worth reporting), x's extra keys first.
func labelAt(s string, t int, x *Extra) Key {
	e := labelEnd(s, t, x != nil && len(x.Keys) > 0)
	if e < 0 {
		return 0
	}
	return labelFrom(s, e, x, nil)
}

// labelEnd is labelAt's cheap test of the separator at t: where the
// label before it ends, or -1 when the separator is none (a '-' without
// spaces around it, a stray byte of '：' or '–') or no label of the
// vocabulary ends there (keys: the policy adds keys, which may end in
// any word).
func labelEnd(s string, t int, keys bool) int {
	// The separator.
	switch c := s[t]; {
	case c == '-':
		if t == 0 || t+1 >= len(s) || s[t-1] != ' ' || s[t+1] != ' ' {
			return -1
		}
	case c == 0x9A:
		if t < 2 || s[t-2] != 0xEF || s[t-1] != 0xBC {
			return -1
		}
		t -= 2
	case c == 0x93:
		if t < 2 || s[t-2] != 0xE2 || s[t-1] != 0x80 || t+1 >= len(s) || s[t+1] != ' ' {
			return -1
		}
		t -= 2
	}
	// The label's end: spaces, a closing quote or bold marks before.
	e := t
	for e > 0 && (s[e-1] == ' ' || s[e-1] == '"' || s[e-1] == '\'' || s[e-1] == '*') && t-e < 4 {
		e--
	}
	if e < 2 || !labelTail(s[e-2], s[e-1]) && !(s[e-1] == '.' && e >= 3 && labelTail(s[e-3], s[e-2])) {
		return -1
	}
	if !keys && !labelLastMay(s, e) {
		return -1
	}
	return e
}

// labelFrom is labelAt of the label ending at e (labelEnd's), through
// the cache c (nil: none).
func labelFrom(s string, e int, x *Extra, c *keyCache) Key {
	// Its start: letters, digits, spaces, apostrophes, dots, hyphens and
	// non-ASCII letters, back to the line's start or other punctuation.
	b := e
	for b > 0 && e-b < labelMax {
		c := s[b-1]
		if c >= utf8.RuneSelf || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == ' ' || c == '\'' || c == '.' || c == '-' || c == '_' || c == '/' {
			b--
			continue
		}
		break
	}
	for b < e && !utf8.RuneStart(s[b]) {
		b++
	}
	// In quotes: a JSON key read as text.
	quoted := b > 0 && s[b-1] == '"' && e < len(s) && s[e] == '"'
	var v Key
	var json bool
	if c == nil {
		v, json = labelClass(s[b:e], quoted, x)
	} else {
		kind := keyLabel
		if quoted {
			kind = keyLabelQuoted
		}
		sl, ok := c.slot(s[b:e], kind)
		if !ok {
			v, json = labelClass(s[b:e], quoted, x)
			sl.store(s[b:e], kind, v, json)
		}
		v, json = sl.v, sl.json
	}
	if json {
		// "name": in JSON read as text: the bare name of a JSON key,
		// judged as the walk judges the member, by what its object's
		// other keys say (jsonTextContext): a person's in {"prenom":…,
		// "nom": "Gauthier"}, none in a product's, and where nothing
		// says, only if its words are names (keyedSpan: not "Wireless
		// Mouse").
		return jsonTextContext(s, b-1, x, c).Of(v)
	}
	return v
}

// labelClass is the Key of label (quoted: a JSON key read as text), or
// with json a bare name that the key's JSON object says whose it is.
func labelClass(label string, quoted bool, x *Extra) (v Key, json bool) {
	// The label is the last words of that run: the longest that says
	// something (Customer details Name: the last word).
	var k normKey
	if !k.set(label) || !vocabHas(k.word(k.nw-1), inLabelLast) && (x == nil || len(x.Keys) == 0) {
		return 0, false
	}
	for i := max(0, k.nw-labelWords); i < k.nw; i++ {
		ok := false
		if x != nil && len(x.Keys) > 0 {
			v, ok = extraKeys(x)[string(k.words(i, k.nw))]
		}
		if !ok {
			v = k.classifyFrom(i)
		}
		switch {
		case v.class() == kStop:
			return 0, false
		case v.class() == kName && quoted:
			return v, true
		case v.class() == kHolder && quoted:
			// "customer": "Ada Lovelace" (a string: an object under
			// it is read by its own keys).
			return KeyContext(0).Of(v), false
		case v.class() == kName:
			return mkKey(kPersonName, -1), false // "Name:" in text: a person's
		case v.class() == kHouse || v.class() == kPostcode || v.class() == kCity || v.class() == kLine:
			return 0, false // only inside an address
		case v.Reports():
			return v, false
		}
	}
	return 0, false
}

// keyCache remembers, by their text, what the last labels and member
// keys read in text were classified as: JSON shown as text repeats its
// keys, records and logs their labels, and classifying one (normalising
// it, a dozen lookups) costs far more in the VM than hashing and
// comparing its bytes. A pass has its Set's (detectScratch), or for a
// long text its own; nil: none. It holds what one Extra makes of them.
type keyCache struct {
	slots [keyCacheSlots]keyCacheSlot
}

const (
	keyCacheSlots = 256     // a power of two
	keyCacheText  = 8 << 10 // the shortest text a pass makes a cache for
)

// keyCacheSlot is a text (at most labelMax bytes) and its class.
type keyCacheSlot struct {
	n    uint8 // len(text) + 1; 0: an empty slot
	kind uint8 // keyLabel, keyLabelQuoted, keyMember
	json bool  // labelClass's
	v    Key
	text [labelMax]byte
}

// What a keyCacheSlot's text was read as.
const (
	keyLabel       uint8 = iota // a label: labelClass
	keyLabelQuoted              // a label in quotes
	keyMember                   // a member's key: classifyKey
)

// slot is the slot of text read as kind, and whether it holds it (else
// store in it what text is).
func (c *keyCache) slot(text string, kind uint8) (*keyCacheSlot, bool) {
	h := uint32(2166136261) ^ uint32(kind)
	for i := 0; i < len(text); i++ {
		h = (h ^ uint32(text[i])) * 16777619
	}
	sl := &c.slots[(h*0x9E3779B1)>>24%keyCacheSlots]
	if int(sl.n) != len(text)+1 || sl.kind != kind {
		return sl, false
	}
	k := 0
	for k < len(text) && sl.text[k] == text[k] {
		k++
	}
	return sl, k == len(text)
}

func (sl *keyCacheSlot) store(text string, kind uint8, v Key, json bool) {
	sl.n, sl.kind, sl.v, sl.json = uint8(len(text)+1), kind, v, json
	copy(sl.text[:], text)
}

// classify is classifyKey(name, x) through c (nil: none).
func (c *keyCache) classify(name string, x *Extra) Key {
	if c == nil || len(name) > labelMax {
		return classifyKey(name, x)
	}
	sl, ok := c.slot(name, keyMember)
	if !ok {
		sl.store(name, keyMember, classifyKey(name, x), false)
	}
	return sl.v
}

// jsonTextWindow bounds how far jsonTextContext looks for the object
// around a key, each way.
const jsonTextWindow = 2048

// jsonTextContext is the KeyContext of the JSON object, read as text,
// whose member's key opens with the quote at q: what the object's own
// key and its other members' keys say (KeyContext.Nested and Member, as
// the walk reads a parsed object). It reads at most jsonTextWindow bytes
// each way, and nothing when the braces around q do not close there.
func jsonTextContext(s string, q int, x *Extra, kc *keyCache) KeyContext {
	// The object's '{': back over strings and over whole objects and
	// arrays nested before the key. Quotes pair the same way read back
	// to front in well-formed JSON (one preceded by an odd number of
	// backslashes is inside a string).
	open, depth := -1, 0
	in := false
	for i := q - 1; i >= 0 && q-i <= jsonTextWindow; i-- {
		if s[i] == '"' {
			k := i
			for k > 0 && s[k-1] == '\\' {
				k--
			}
			if (i-k)%2 == 0 {
				in = !in
			}
			continue
		}
		if in {
			continue
		}
		switch s[i] {
		case '}', ']':
			depth++
		case '[':
			depth--
		case '{':
			if depth == 0 {
				open = i
			}
			depth--
		}
		if open >= 0 || depth < 0 {
			break
		}
	}
	if open < 0 {
		return 0
	}
	var c KeyContext
	// Its own key: "customer": {…}.
	j := open - 1
	for j >= 0 && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
		j--
	}
	if j > 0 && s[j] == ':' {
		j--
		for j >= 0 && (s[j] == ' ' || s[j] == '\t') {
			j--
		}
		if j > 0 && s[j] == '"' {
			if k := strings.LastIndexByte(s[max(0, j-3*keyMax):j], '"'); k >= 0 {
				base := max(0, j-3*keyMax)
				c |= kc.classify(s[base+k+1:j], x).Nested()
			}
		}
	}
	// Its members' keys, at its own depth: the bytes that are none of
	// { } [ ] " passed eight at a time.
	depth = 0
	end := min(len(s), open+2*jsonTextWindow+1)
	for i := open + 1; i < end; i++ {
		for i+8 <= end {
			if m := jsonStructural(load64(s, i)); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= end {
			break
		}
		switch s[i] {
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return c
			}
			depth--
		case '"':
			e := jsonTextStringEnd(s, i+1)
			if e < 0 {
				return c
			}
			k := e + 1
			for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
				k++
			}
			if depth == 0 && k < len(s) && s[k] == ':' && i != q {
				c = c.Member(kc.classify(s[i+1:e], x))
			}
			i = e
		}
	}
	return c
}

// jsonStructural marks (high bit) the bytes of x that are '{', '}',
// '[', ']' or '"' (x|0x20 reads '[' as '{' and ']' as '}').
func jsonStructural(x uint64) uint64 {
	return bytesOf(x|0x2020202020202020, '{') | bytesOf(x|0x2020202020202020, '}') | bytesOf(x, '"')
}

// jsonTextStringEnd is the index of the quote closing the JSON string
// whose text starts at i, or -1. The bytes that are none of \ " and a
// line break are passed eight at a time.
func jsonTextStringEnd(s string, i int) int {
	for i+8 <= len(s) {
		x := load64(s, i)
		if m := bytesOf(x, '\\') | bytesOf(x, '"') | bytesOf(x, '\n'); m != 0 {
			i += bits.TrailingZeros64(m) >> 3
			break
		}
		i += 8
	}
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		case '\n':
			return -1
		}
	}
	return -1
}

// labelCands flags (0x80) the bytes of the word x that may end a label:
// ':', '=', a tab, '-' (of " - ": one without a space on either side
// inside the word is left out, one in its first or last byte stays), and
// the last bytes of '：' (U+FF1A) and '–' (U+2013). A byte one more than
// one of these right after it may be flagged too (the borrow of the
// test): labelAt passes it by.
func labelCands(x uint64) uint64 {
	// A byte equal to c is 0 in y = x^c*swarOnes: (y-swarOnes)&^y has
	// its high bit set (and, by the borrow, maybe the next byte's).
	sp, dash := x^' '*swarOnes, x^'-'*swarOnes
	colon, eq, tab, fw, en := x^':'*swarOnes, x^'='*swarOnes, x^'\t'*swarOnes, x^0x9A*swarOnes, x^0x93*swarOnes
	sp = (sp - swarOnes) &^ sp
	dash = (dash - swarOnes) &^ dash & (sp<<8 | 0xff) & (sp>>8 | 0xff<<56)
	return ((colon-swarOnes)&^colon | (eq-swarOnes)&^eq | (tab-swarOnes)&^tab | dash | (fw-swarOnes)&^fw | (en-swarOnes)&^en) & swarHigh
}

// labelledClean: no label of the vocabulary in s.
func labelledClean(s string) bool { return labelledCleanWith(s, nil) }

// labelledCleanWith: no label of the vocabulary or of x's extra keys in s.
func labelledCleanWith(s string, x *Extra) bool {
	keys := x != nil && len(x.Keys) > 0
	n := len(s)
	i := 0
	for ; i+8 <= n; i += 8 {
		// labelCands, written out: a call per word costs more than it
		// in the VM.
		w := load64(s, i)
		sp, dash := w^' '*swarOnes, w^'-'*swarOnes
		colon, eq, tab, fw, en := w^':'*swarOnes, w^'='*swarOnes, w^'\t'*swarOnes, w^0x9A*swarOnes, w^0x93*swarOnes
		sp = (sp - swarOnes) &^ sp
		dash = (dash - swarOnes) &^ dash & (sp<<8 | 0xff) & (sp>>8 | 0xff<<56)
		m := ((colon-swarOnes)&^colon | (eq-swarOnes)&^eq | (tab-swarOnes)&^tab | dash | (fw-swarOnes)&^fw | (en-swarOnes)&^en) & swarHigh
		for ; m != 0; m &= m - 1 {
			t := i + bits.TrailingZeros64(m)>>3
			if e := labelEnd(s, t, keys); e >= 0 && labelFrom(s, e, x, nil) != 0 {
				return false
			}
		}
	}
	for ; i < n; i++ {
		switch s[i] {
		case ':', '=', '\t', '-', 0x9A, 0x93:
			if labelAt(s, i, x) != 0 {
				return false
			}
		}
	}
	return true
}

// scanLabelled reports the values after labels: "Name: Alice Martin",
// "Passport No.: C01X00T47", "Date of birth: 04/03/1985", "Address: 12
// rue de la Paix, 75002 Paris" (to the end of the line or field), each
// when it looks like what its label promises (as a keyed value does).
func (p *pass) scanLabelled() {
	s := p.s
	n := len(s)
	if p.keys == nil && n >= keyCacheText {
		p.keys = new(keyCache)
	}
	if p.recLabels {
		p.scanRecordedLabels()
		return
	}
	keys := p.extra != nil && len(p.extra.Keys) > 0
	next := 0
	i := 0
	for ; i+8 <= n; i += 8 {
		// The walk of a scan run without the pass's records (the
		// product path reads p.labels): labelCands's call is no cost
		// worth a second copy of it.
		for m := labelCands(load64(s, i)); m != 0; m &= m - 1 {
			if t := i + bits.TrailingZeros64(m)>>3; t >= next {
				if e := labelEnd(s, t, keys); e >= 0 {
					next = p.labelledAt(t, e, next)
				}
			}
		}
	}
	for ; i < n; i++ {
		switch s[i] {
		case ':', '=', '\t', '-', 0x9A, 0x93:
			if i >= next {
				if e := labelEnd(s, i, keys); e >= 0 {
					next = p.labelledAt(i, e, next)
				}
			}
		}
	}
}

// scanRecordedLabels is scanLabelled visiting the bytes the pass
// recorded (every byte labelCands may flag, and more, but the ':' and
// '=' its labelTail test passes by): in the eight-byte
// words those labelCands flags, in the tail the separators themselves.
// labelEnd's tests are written out here, but for labelLastMay: most
// candidates fail them, and in the VM a call for each costs more than
// the tests.
func (p *pass) scanRecordedLabels() {
	s := p.s
	words := len(s) &^ 7 // the bytes the walk reads eight at a time
	keys := p.extra != nil && len(p.extra.Keys) > 0
	next := 0
	for _, t32 := range p.labels {
		t := int(t32)
		if t < next {
			continue
		}
		u := t // where the separator starts
		switch s[t] {
		case ':', '=', '\t':
		case '-':
			if t == 0 || t+1 >= len(s) || s[t-1] != ' ' || s[t+1] != ' ' {
				continue
			}
		case 0x9A:
			if t < 2 || s[t-2] != 0xEF || s[t-1] != 0xBC {
				continue
			}
			u -= 2
		case 0x93:
			if t < 2 || s[t-2] != 0xE2 || s[t-1] != 0x80 || t+1 >= len(s) || s[t+1] != ' ' {
				continue
			}
			u -= 2
		default:
			// One more than one of those after it: flagged by
			// labelCands's borrow inside a word only.
			if t >= words || labelCands(load64(s, t&^7))>>(8*(t&7))&0x80 == 0 {
				continue
			}
		}
		e := u
		for e > 0 && (s[e-1] == ' ' || s[e-1] == '"' || s[e-1] == '\'' || s[e-1] == '*') && u-e < 4 {
			e--
		}
		if e < 2 || !labelTail(s[e-2], s[e-1]) && !(s[e-1] == '.' && e >= 3 && labelTail(s[e-3], s[e-2])) {
			continue
		}
		if !keys && !labelLastMay(s, e) {
			continue
		}
		next = p.labelledAt(t, e, next)
	}
}

// labelledAt reports the value after the label that ends at e
// (labelEnd's) before the separator at t, if any, and returns where the
// scan resumes (next if nothing).
func (p *pass) labelledAt(t, e, next int) int {
	s := p.s
	k := labelFrom(s, e, p.extra, p.keys)
	if k == 0 {
		return next
	}
	v := t + 1
	if s[t] == '-' {
		v = t + 2
	}
	a, b := labelledValue(s, v, k)
	if a >= b {
		return next
	}
	if det, da, db, ok := keyedSpan(s[a:b], k, uint64(p.on)|p.fam); ok {
		p.emitBy(det, BasisContext, a+da, a+db)
		return a + db
	}
	return next
}

// labelledValue is the span of the value after a label keyed k, from v:
// a quoted value to its closing quote; a name to its last word; an
// address to the end of its line or field; a date or an identifier to the
// end of its field, at most 40 bytes.
func labelledValue(s string, v int, k Key) (int, int) {
	for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
		v++
	}
	if v < len(s) && (s[v] == '"' || s[v] == '\'') {
		q := s[v]
		end := strings.IndexByte(s[v+1:], q)
		if end < 0 {
			return 0, 0
		}
		return v + 1, v + 1 + end
	}
	e := fieldEnd(s, v)
	switch k.class() {
	case kName, kPersonName, kGivenName, kFamilyName:
		return v, nameEnd(s, v, e)
	case kAddress:
		a, b := trimSpan(s, v, e)
		for b > a {
			if s[b-1] == ',' || s[b-1] == '.' {
				b--
			} else if r := cjkAt(s, b-3); b-3 >= a && (r == '。' || r == '，') {
				b -= 3 // a Chinese or Japanese sentence's end
			} else {
				break
			}
		}
		return a, b
	case kBirthDate:
		return v, dateEnd(s, v, min(e, v+40))
	case kID:
		return v, idEnd(s, v, min(e, v+40))
	case kPhone:
		return v, phoneEnd(s, v)
	}
	return 0, 0
}

// phoneEnd is the end of the phone number from v (at most 32 bytes): its
// last digit, before which stand only digits, a '+' first, and the
// separators numbers are written with (fieldEnd stops at the '(' of an
// area code).
func phoneEnd(s string, v int) int {
	end := v
	for i := v; i < len(s) && i-v < 32; i++ {
		c := s[i]
		switch {
		case c-'0' < 10:
			end = i + 1
		case c == '+' && i == v, c == ' ' || c == '-' || c == '.' || c == '/' || c == '(' || c == ')':
		default:
			return end
		}
	}
	return end
}

// phoneShaped reports whether v whole is written as a phone number is:
// 6 to 15 digits, a digit, '+' or '(' first and a digit last, between
// them only the separators numbers are written with, not one digit
// repeated. Under a phone key or after a phone label that is a phone, valid
// for a region or not: the key says what it is, and a number a test
// system or a faker made up ("(30) 48977-2600", Brazil has no area code
// 30) is still one person's number to the model.
func phoneShaped(v string) bool {
	if v == "" || v[len(v)-1]-'0' >= 10 || v[0]-'0' >= 10 && v[0] != '+' && v[0] != '(' {
		return false
	}
	digits, same := 0, true
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c-'0' < 10:
			digits++
			same = same && c == v[len(v)-1]
		case c == '+' && i == 0, c == ' ' || c == '-' || c == '.' || c == '/' || c == '(' || c == ')':
		default:
			return false
		}
	}
	return digits >= 6 && digits <= 15 && !same && !dateShaped(v)
}

// dateShaped reports whether v is three groups of digits joined by one
// '-', '.' or '/' twice, a four-digit year first or last and the other
// two of one or two digits: a date ("Mobile: 2024-01-15").
func dateShaped(v string) bool {
	var lens [3]int
	var sep byte
	g := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c-'0' < 10:
			lens[g]++
		case (c == '-' || c == '.' || c == '/') && g < 2 && lens[g] > 0 && (sep == 0 || c == sep):
			sep = c
			g++
		default:
			return false
		}
	}
	short := func(n int) bool { return n == 1 || n == 2 }
	return g == 2 && (lens[0] == 4 && short(lens[1]) && short(lens[2]) || short(lens[0]) && short(lens[1]) && lens[2] == 4)
}

// fieldEnd is where the field from v ends: a line break, a tab, '|', ';',
// a quote, a bracket, or the next label (" Phone: …").
func fieldEnd(s string, v int) int {
	for i := v; i < len(s); i++ {
		switch s[i] {
		case '\n', '\r', '\t', '|', ';', '"', '(', '[', '<', '{', '}', ']', ')', '>':
			return i
		case ' ':
			// A next label: a word ending in ':'.
			j := i + 1
			for j < len(s) && j-i < 24 && s[j] != ' ' && s[j] != ':' && s[j] != '\n' {
				j++
			}
			if j < len(s) && s[j] == ':' && j > i+1 {
				return i
			}
		}
	}
	return len(s)
}

// nameEnd is the end of the name from v (before e): words of letters
// (with ' - . inside), each capitalised, a particle, or in a script
// without case; at most six.
func nameEnd(s string, v, e int) int {
	end := v
	words := 0
	for i := v; i < e && words < 6; {
		j := i
		for j < e && s[j] != ' ' && s[j] != ',' {
			j++
		}
		w := s[i:j]
		if w == "" {
			break
		}
		if words > 0 && j < e && sonOf(s, i) {
			i = j + 1 // Muthusamy a/l Krishnan: a particle
			continue
		}
		r, _ := utf8.DecodeRuneInString(w)
		var buf [16]byte
		particle := len(w) <= 16 && nameParticles[string(lowerASCII(buf[:0], w))]
		if !(unicode.IsUpper(r) || unicode.IsLetter(r) && !unicode.IsLower(r) || particle) {
			break
		}
		ok := true
		for _, c := range w {
			if !(unicode.IsLetter(c) || unicode.IsMark(c) || c == '\'' || c == '’' || c == '-' || c == '.') {
				ok = false
				break
			}
		}
		if !ok {
			break
		}
		if !particle {
			end = j
		}
		words++
		if j < e && s[j] == ',' && !particle {
			// "Smith, John A.", "de la Cruz, Juan": the given names
			// after the family name, when they are all the field holds.
			if t := invertedGiven(s, j+1, e); t > 0 {
				end = t
			}
			break
		}
		if j >= e || j+1 < e && s[j+1] == ' ' {
			break
		}
		i = j + 1
	}
	return end
}

// invertedGiven returns the end of one to three given names or initials
// from i (after a family name's comma) that fill the field up to e but
// for spaces and a full stop ("John A.", "Juan", "Anna-Lena"), or 0: a
// field that goes on ("Smith, John called") or holds a title ("Chen,
// MD") keeps only the family name.
func invertedGiven(s string, i, e int) int {
	for i < e && s[i] == ' ' {
		i++
	}
	end := 0
	for n := 0; n < 3 && i < e; n++ {
		j := i
		for j < e && s[j] != ' ' {
			j++
		}
		w := strings.TrimSuffix(s[i:j], ".")
		r, size := utf8.DecodeRuneInString(w)
		if w == "" || !unicode.IsUpper(r) {
			return 0
		}
		initial := size == len(w) && j > i+size // "A."
		if !initial && readWord(s, i).flags&(nameword.Honorific|nameword.Label|nameword.Stop) != 0 {
			return 0 // "Herr Weber, Frau Schulz": the next person's
		}
		lower := false
		for _, c := range w[size:] {
			switch {
			case unicode.IsLower(c) || unicode.IsMark(c):
				lower = true
			case c == '-' || c == '\'' || c == '’' || unicode.IsUpper(c):
			default:
				return 0
			}
		}
		if !lower && !initial {
			return 0 // MD, PhD's kin, an acronym
		}
		end = i + len(w)
		if initial {
			end++
		}
		i = j
		for i < e && s[i] == ' ' {
			i++
		}
	}
	if i < e && !(s[i] == '.' && i+1 == e) {
		return 0
	}
	return end
}

// dateEnd is the end of the longest date from v (before e) that looks
// like a birth date.
func dateEnd(s string, v, e int) int {
	for e > v {
		_, b := trimSpan(s, v, e)
		for b > v && (s[b-1] == ',' || s[b-1] == '.') && (b-2 < v || s[b-2] < '0' || s[b-2] > '9') {
			b--
		}
		if keyShapes.birthDate(s[v:b]) {
			return b
		}
		// Drop the last word.
		j := strings.LastIndexByte(s[v:b], ' ')
		if j < 0 {
			return v
		}
		e = v + j
	}
	return v
}

// idEnd is the end of the identifier from v (before e): groups of
// letters and digits joined by single separators; after a space, only a
// group with a digit goes on (C01X00T47 issued… stops).
// gluedWordStart is where a lower-case word of three letters or more
// that ends the token [v, e) after four digits or more starts, or e: no
// identifier ends so ("617233679order", read where a text ends with a
// value and the next begins with a word). Hex tokens (letters a to f
// only: "1234567890abcdef") and mixed ones (digits after the letters)
// stay whole.
func gluedWordStart(s string, v, e int) int {
	w := e
	for w > v && s[w-1]-'a' < 26 {
		w--
	}
	d := w
	for d > v && isDigit(s[d-1]) {
		d--
	}
	if e-w >= 3 && w-d >= 4 && strings.IndexFunc(s[w:e], func(r rune) bool { return r > 'f' }) >= 0 {
		return w
	}
	return e
}

func idEnd(s string, v, e int) int {
	i := v
	for i < e && alnumByte(s[i]) {
		i++
	}
	i = gluedWordStart(s, v, i)
	end := i
	for i < e {
		c := s[i]
		if c != ' ' && c != '-' && c != '.' && c != '/' {
			break
		}
		j := i + 1
		for j < e && alnumByte(s[j]) {
			j++
		}
		if j == i+1 || c == ' ' && digitCount(s[i+1:j]) == 0 && j-i > 2 {
			break
		}
		i, end = j, j
	}
	return end
}
