package main

// The vocabulary around names, written for this project (not taken from
// the dataset): per language, the words that introduce a name, end a
// letter, form a company or a street, and the common words that are also
// names (or that a capitalised word next to a name must not be).

// honorifics come before a name: the name after them is reported.
var honorifics = []string{
	// en
	"Mr", "Mrs", "Ms", "Miss", "Mx", "Dr", "Prof", "Professor", "Sir", "Dame", "Lady", "Lord", "Rev", "Fr", "Capt", "Col", "Gen", "Lt", "Sgt", "Mister", "Madam", "Madame",
	// de
	"Herr", "Herrn", "Frau", "Fräulein", "Hr", "Fr", "Dipl", "Ing",
	// fr
	"M", "MM", "Mme", "Mmes", "Mlle", "Mlles", "Monsieur", "Mademoiselle", "Maître", "Pr",
	// es, pt
	"Sr", "Sra", "Srta", "Sres", "Señor", "Señora", "Señorita", "Don", "Doña", "Dña", "Dra", "Lic", "Ing", "Senhor", "Senhora", "Sras", "Dona", "Exmo", "Exma",
	// it
	"Sig", "Sigg", "Signor", "Signore", "Signora", "Signorina", "Sig.ra", "Sig.na", "Dott", "Dott.ssa", "Dottssa", "Dottor", "Dottore", "Dottoressa", "Avv", "Geom", "Rag",
	// nl
	"Dhr", "Mevr", "Mw", "Mevrouw", "Meneer", "Mijnheer", "Heer", "Drs", "Ir", "Mr", "Ing",
	// pl
	"Pan", "Pani", "Panu", "Panem", "Panią", "Państwo",
	// sv, da, nb, fi
	"Herr", "Fru", "Fröken", "Hr", "Fr", "Frk", "Herra", "Rouva", "Neiti",
	// in, sg, my
	"Shri", "Smt", "Shrimati", "Encik", "Puan",
	// ru, el
	"Господин", "Госпожа", "Г-н", "Г-жа", "Гн", "Гжа", "Κύριος", "Κυρία", "Κ", "Κος", "Κα",
	// hi, ar, he: scripts without case
	"श्री", "श्रीमती", "सुश्री", "कुमारी", "डॉ", "السيد", "السيدة", "الدكتور", "الدكتورة", "الأستاذ", "מר", "גברת", "ד״ר",
}

// greetings open a letter or message: a name in the tables may follow.
var greetings = []string{
	"Dear", "Hi", "Hello", "Hey", "Dearest", "Greetings", "Morning", "Thanks", "Thank",
	"Liebe", "Lieber", "Liebes", "Hallo", "Servus", "Moin", "Sehr", "Geehrte", "Geehrter",
	"Bonjour", "Bonsoir", "Salut", "Cher", "Chère", "Chers", "Coucou",
	"Hola", "Estimado", "Estimada", "Querido", "Querida", "Buenos", "Buenas",
	"Ciao", "Caro", "Cara", "Gentile", "Gentilissimo", "Gentilissima", "Salve", "Buongiorno", "Egregio", "Egregia",
	"Beste", "Geachte", "Hoi", "Dag", "Goedemorgen", "Goedemiddag",
	"Olá", "Oi", "Prezado", "Prezada", "Bom", "Boa",
	"Szanowny", "Szanowna", "Szanowni", "Drogi", "Droga", "Cześć", "Witaj", "Dzień",
	"Hej", "Hejsan", "Kära", "Bästa", "Hei", "Moi", "Hyvä", "Kære", "Hejsa", "Kjære", "Namaste",
	"Здравствуйте", "Уважаемый", "Уважаемая", "Дорогой", "Дорогая", "Привет", "Αγαπητέ", "Αγαπητή", "Γεια",
}

// closings end a letter: the name on the next line is its signature. The
// last word of the closing line is looked up.
var closings = []string{
	"regards", "Regards", "wishes", "sincerely", "faithfully", "truly", "cheers", "thanks", "best", "yours", "respectfully", "cordially",
	"Grüßen", "Grüße", "Grüssen", "Grüsse", "Gruß", "Gruss", "Hochachtung", "Dank",
	"cordialement", "salutations", "amitiés", "bises", "distinguées", "sincères",
	"saludos", "atentamente", "cordialmente", "abrazo", "abrazos", "afectuosamente",
	"saluti", "distinti", "cordiali", "grazie",
	"groet", "groeten", "hoogachtend", "dank",
	"atenciosamente", "abraços", "beijos", "obrigado", "obrigada",
	"pozdrawiam", "poważaniem", "pozdrowienia",
	"hälsningar", "hälsning", "mvh", "terveisin", "kiittäen", "hilsen", "hilsner",
	"уважением", "С", "φιλικά", "εκτίμηση",
}

// particles join the parts of a name: van der Berg, da Silva, de la Cruz.
var particles = []string{
	"van", "der", "den", "de", "del", "della", "delle", "dei", "degli", "di", "da", "dal", "dalla", "das", "do", "dos", "du", "des",
	"la", "le", "las", "los", "von", "vom", "zu", "zum", "zur", "ter", "ten", "te", "het", "op", "af", "av", "bin", "binti", "binte", "bte", "ibn", "al", "el",
}

// labels name the role of the person whose name follows.
var labels = []string{
	"customer", "client", "patient", "employee", "contact", "user", "author", "owner", "assignee", "reporter", "applicant", "tenant", "guest",
	"passenger", "candidate", "member", "recipient", "sender", "attn", "attention", "signed", "signature", "cc", "manager", "colleague",
	"Kunde", "Kundin", "Mitarbeiter", "Mitarbeiterin", "Ansprechpartner", "Ansprechpartnerin", "Patientin", "Bewerber", "Bewerberin", "Mieter", "Mieterin",
	"cliente", "paciente", "empleado", "empleada", "titular", "destinatario", "destinataria", "contacto",
	"paziente", "dipendente", "referente", "intestatario",
	"klant", "medewerker", "medewerkster", "contactpersoon", "aanvrager",
	"funcionário", "funcionária", "contato",
	"klient", "klientka", "pracownik", "pracownica", "kund", "anställd", "asiakas", "kunde", "medarbejder",
	"salarié", "salariée", "employé", "employée", "locataire", "destinataire", "interlocuteur",
	// A speaker's own name after the verb that introduces it (Ich heiße,
	// je m'appelle, me llamo, mi chiamo, me chamo, ik heet, jeg hedder,
	// jag heter); "my name is" and its kin are read in names.go.
	"heiße", "heisse", "appelle", "llamo", "chiamo", "chamo", "heet", "hedder", "heter",
	// According to: the name after it is who said so (laut Müller,
	// selon Dupont, enligt Löfgren).
	"laut", "selon", "según", "secondo", "volgens", "segundo", "według", "enligt", "ifølge",
}

// verbs are what a person, named alone, does in a note or a ticket: says,
// asks, calls, writes, wants, confirms (third person, present and past).
// A name of the tables alone, capitalised, is reported before one of
// them (Lindgren ringde igen, Anna möchte die Rechnung …); a word that is
// also a common word (May said, Will asked) is not.
var verbs = []string{
	// en
	"said", "says", "asked", "asks", "called", "calls", "phoned", "rang", "wrote", "writes", "replied", "replies", "told", "tells",
	"wants", "wanted", "requested", "requests", "confirmed", "confirms", "mentioned", "mentions", "reported", "reports", "emailed",
	"explained", "explains", "complained", "complains", "agreed", "agrees", "answered", "answers", "insisted", "insists", "prefers", "preferred",
	// de
	"sagte", "sagt", "meinte", "meint", "fragte", "fragt", "rief", "ruft", "schrieb", "schreibt", "antwortete", "antwortet", "möchte",
	"wollte", "bat", "bittet", "bestätigte", "bestätigt", "meldete", "meldet", "erklärte", "erklärt", "berichtete", "berichtet",
	"beschwerte", "beschwert", "wünscht", "wünschte", "braucht", "benötigt",
	// fr
	"souhaite", "souhaitait", "veut", "voulait", "demande", "demandait", "appelle", "appelait", "écrit", "répond", "confirme",
	"explique", "signale", "indique", "précise", "affirme", "ajoute", "rappelle", "réclame",
	// es
	"dice", "dijo", "quiere", "quería", "pide", "pidió", "pregunta", "preguntó", "llama", "llamó", "escribe", "escribió", "responde",
	"respondió", "confirma", "confirmó", "explica", "explicó", "informa", "informó", "comenta", "comentó", "solicita", "solicitó", "necesita",
	// it
	"disse", "vuole", "voleva", "chiede", "chiese", "chiama", "chiamò", "scrive", "scrisse", "risponde", "rispose", "conferma", "confermò",
	"spiega", "spiegò", "segnala", "segnalò", "richiede",
	// nl
	"zei", "zegt", "vroeg", "vraagt", "belde", "belt", "schreef", "schrijft", "antwoordde", "antwoordt", "wil", "wilde", "bevestigde",
	"bevestigt", "meldde", "meldt",
	// pt
	"diz", "quer", "queria", "pede", "pediu", "perguntou", "liga", "ligou", "escreve", "escreveu", "respondeu", "confirmou", "explicou",
	"informou", "solicitou",
	// pl
	"powiedział", "powiedziała", "mówi", "chce", "chciał", "chciała", "prosi", "prosił", "prosiła", "pyta", "pytał", "pytała", "dzwonił",
	"dzwoniła", "zadzwonił", "zadzwoniła", "napisał", "napisała", "pisze", "odpowiedział", "odpowiedziała", "potwierdził", "potwierdziła",
	"zgłosił", "zgłosiła",
	// sv, da
	"sa", "sade", "säger", "frågade", "frågar", "ringde", "ringer", "skrev", "skriver", "svarade", "svarar", "vill", "ville", "bekräftade",
	"bekräftar", "berättade", "berättar", "meddelade", "undrar", "undrade", "sagde", "siger", "spurgte", "spørger", "ringede", "svarede",
	"svarer", "vil", "bekræftede", "bekræfter", "fortalte", "fortæller", "meddelte", "beder", "önskar", "önskade", "ønsker", "ønskede",
	// fi
	"sanoi", "sanoo", "kysyi", "kysyy", "soitti", "soittaa", "kirjoitti", "kirjoittaa", "vastasi", "vastaa", "haluaa", "halusi",
	"vahvisti", "vahvistaa", "kertoi", "kertoo", "ilmoitti", "ilmoittaa", "pyysi", "pyytää", "toivoo",
	// ru
	"сказал", "сказала", "говорит", "спросил", "спросила", "позвонил", "позвонила", "написал", "написала", "ответил", "ответила",
	"хочет", "хотел", "хотела", "просит", "просил", "просила", "подтвердил", "подтвердила", "сообщил", "сообщила",
	// he (after the name), hi (after it: the verb, or the ergative ने of
	// its subject), ar (before it: Arabic puts the verb first, طلب وسيم)
	"מבקש", "מבקשת", "ביקש", "ביקשה", "אמר", "אמרה", "התקשר", "התקשרה", "כתב", "כתבה", "רוצה", "שאל", "שאלה", "אישר", "אישרה",
	"דיווח", "דיווחה", "מסר", "מסרה",
	"ने", "चाहते", "चाहती", "चाहता", "कहते", "कहती", "पूछते", "पूछती",
	"طلب", "طلبت", "أفاد", "أفادت", "قال", "قالت", "اتصل", "اتصلت", "سأل", "سألت", "أرسل", "أرسلت", "كتب", "كتبت", "أكد", "أكدت",
	"يريد", "تريد", "يطلب", "تطلب", "ذكر", "ذكرت", "أبلغ", "أبلغت",
}

// orgWords make a company, an institution, a street or a place of the
// capitalised words next to them: no person is reported there.
var companyWords = []string{
	"Inc", "Incorporated", "LLC", "LLP", "Ltd", "Limited", "Corp", "Corporation", "Co", "Company", "Group", "Holdings", "Holding", "Partners", "Associates",
	"Sons", "Brothers", "Bros", "Industries", "Enterprises", "Technologies", "Solutions", "Systems", "Consulting", "Services", "Bank", "Capital", "Ventures",
	"Foundation", "Institute", "Trust", "Fund", "Labs", "Studio", "Studios", "Media", "Software", "Pharma", "Motors", "Airlines", "Insurance", "Securities",
	"GmbH", "AG", "KG", "KGaA", "OHG", "eG", "eV", "UG", "mbH", "Söhne", "Gebrüder", "Stiftung", "Verlag", "Bau", "Werke",
	"SA", "SAS", "SARL", "SASU", "SNC", "EURL", "Cie", "Fils", "Frères", "Groupe",
	"SL", "SLU", "SAU", "Ltda", "Hermanos", "Hijos", "Compañía", "Grupo", "Sucesores", "Asociados", "Associados", "Comércio", "Bedrijf", "Combinatie", "Groep", "Gruppe", "Gruppen", "Aktiebolag", "Kommanditbolag", "Investment", "figli", "Zonen",
	"SpA", "Srl", "Snc", "Sas", "Figli", "Fratelli", "Gruppo",
	"BV", "NV", "VOF", "Zonen", "Gebroeders",
	"ME", "EIRELI", "Filhos", "Irmãos",
	"sp", "SA", "Spółka", "AB", "HB", "KB", "Oy", "Oyj", "Ky", "ApS", "AS", "ASA", "IS", "PLC", "Pty", "Pvt", "Plc",
}

// orgWords are institutions, places and streets.
var orgWords = []string{
	"Huis", "Haus", "Maison", "Casa", "Museu", "Musée", "Stichting", "Fondation", "Fundación", "Fondazione",
	"University", "College", "School", "Academy", "Hospital", "Clinic", "Hotel", "Restaurant", "Cafe", "Café", "Bar", "Museum", "Library", "Church", "Cathedral",
	"Center", "Centre", "Station", "Airport", "Park", "Heath", "Green", "Cross", "End", "Common", "Upton", "Newton", "Stadium", "Arena", "Hall", "Theatre", "Theater", "Gallery", "Prize", "Award", "Medal", "Bridge", "Tower",
	"Universität", "Hochschule", "Schule", "Klinik", "Krankenhaus", "Bahnhof", "Flughafen", "Kirche", "Rathaus",
	"Université", "École", "Lycée", "Collège", "Hôpital", "Gare", "Aéroport", "Musée", "Église", "Hôtel",
	"Universidad", "Escuela", "Colegio", "Hospital", "Estación", "Aeropuerto", "Museo", "Iglesia", "Universidade", "Escola", "Estação",
	"Università", "Scuola", "Liceo", "Ospedale", "Stazione", "Aeroporto", "Chiesa", "Universiteit", "Ziekenhuis", "Kerk",
	"Saint", "Sankt", "San", "Santa", "Santo", "São", "Sainte", "Mount", "Mont", "Lake", "Port", "Fort", "Cape", "Bay", "Isle", "Island", "Valley", "River",
	"North", "South", "East", "West", "New", "Upper", "Lower", "Great", "Little", "Old", "Bad", "Nord", "Sud", "Ost",
	// CJK: companies, places, titles (a name is not followed by them)
	"株式会社", "有限会社", "会社", "商事", "工業", "産業", "銀行", "証券", "保険", "物産", "建設", "電機", "製作所", "不動産", "自動車", "病院", "大学", "学校", "高校",
	"市", "県", "区", "町", "村", "駅", "店", "屋", "社", "部", "課", "局", "署", "府", "都", "道", "線", "館", "堂", "寺", "神社", "公園", "通り", "ビル", "本店", "支店",
	"公司", "集团", "银行", "大学", "医院", "学校", "省", "路", "街", "区",
	// streets
	"Street", "St", "Road", "Rd", "Avenue", "Ave", "Boulevard", "Blvd", "Lane", "Drive", "Court", "Place", "Square", "Way", "Terrace", "Crescent", "Close", "Gardens", "Grove", "Highway", "Parkway", "Row", "Mews",
	"Straße", "Strasse", "Str", "Weg", "Platz", "Allee", "Gasse", "Ring", "Damm", "Ufer", "Chaussee", "Steig", "Pfad",
	"Rue", "Avenue", "Boulevard", "Place", "Chemin", "Impasse", "Allée", "Quai", "Cours", "Route", "Passage", "Square",
	"Calle", "Avenida", "Avda", "Plaza", "Paseo", "Camino", "Carretera", "Ronda", "Travesía", "Glorieta",
	"Via", "Viale", "Piazza", "Piazzale", "Corso", "Vicolo", "Largo", "Strada", "Lungomare",
	"Straat", "Laan", "Plein", "Gracht", "Kade", "Dijk", "Singel", "Steeg",
	"Rua", "Travessa", "Praça", "Largo", "Alameda", "Estrada", "Rodovia",
	"Ulica", "Aleja", "Plac", "Osiedle", "Gatan", "Vägen", "Gata", "Väg", "Torget", "Katu", "Tie", "Kuja", "Polku", "Gade", "Vej", "Vei", "Veien", "Gate", "Gaten", "Torv",
}

// common is, per language, words that are capitalised at the start of a
// sentence or in a heading, or are places, months or brands: when also a
// name they are Common (a name only with context), else Stop.
var common = map[string][]string{
	"en": {
		// brands that are also names, and the models after a brand that
		// is a name (Ford Mustang, Lincoln Navigator: Ford and Lincoln
		// stay names, Harrison Ford)
		"dodge", "chrysler", "porsche", "ferrari", "lamborghini", "mercedes", "tesla", "jaguar", "bentley", "cadillac",
		"mustang", "navigator", "explorer", "fiesta", "bronco", "camry", "corolla", "civic", "passat", "tiguan", "cayenne",
		"a", "about", "above", "garden", "gardens", "field", "fields", "street", "castle", "church", "glass", "salt", "sugar", "honey", "cotton", "silver", "steel", "iron", "brick", "mill", "bridge", "house", "court", "lake", "rivers", "marsh", "springs", "access", "account", "across", "action", "add", "admin", "after", "again", "against", "all", "also", "always", "am", "an", "and", "any", "api", "apply", "april", "are", "as", "ask", "at", "august", "autumn", "back", "bank", "be", "because", "been", "before", "being", "below", "best", "better", "between", "big", "bill", "billing", "black", "blue", "both", "build", "but", "by", "call", "can", "cancel", "card", "care", "case", "change", "chase", "check", "christian", "christmas", "city", "clear", "click", "close", "cloud", "code", "cold", "color", "come", "commit", "common", "config", "contact", "content", "continue", "copy", "could", "country", "cover", "create", "current", "customer", "customers", "daily", "data", "date", "dawn", "day", "dear", "december", "default", "delete", "delivery", "deploy", "destiny", "did", "do", "does", "done", "down", "draft", "drive", "during", "each", "early", "easter", "edit", "either", "else", "email", "end", "error", "even", "event", "every", "example", "faith", "fall", "false", "february", "field", "file", "find", "fine", "first", "fix", "for", "forest", "frank", "free", "friday", "from", "full", "general", "get", "give", "glen", "go", "gold", "good", "grace", "grant", "great", "guy", "had", "happy", "has", "have", "he", "heart", "hello", "help", "her", "here", "hi", "high", "his", "holly", "home", "hope", "how", "however", "i", "if", "in", "info", "into", "is", "issue", "it", "its", "ivy", "jack", "january", "jewel", "job", "join", "joy", "july", "june", "just", "keep", "key", "kind", "last", "late", "lead", "learn", "less", "let", "life", "light", "like", "lily", "line", "link", "list", "live", "load", "log", "look", "love", "low", "made", "main", "major", "make", "many", "march", "mark", "master", "max", "may", "me", "meet", "meeting", "member", "merry", "message", "might", "miles", "mister", "model", "monday", "more", "most", "move", "much", "must", "my", "name", "need", "never", "new", "news", "next", "nick", "night", "no", "none", "not", "note", "notes", "november", "now", "number", "october", "of", "off", "ok", "old", "on", "once", "one", "only", "open", "or", "order", "other", "our", "out", "over", "page", "part", "pat", "patience", "pay", "payment", "pearl", "penny", "people", "per", "pierce", "please", "post", "prince", "print", "private", "project", "public", "pull", "push", "queen", "quick", "rain", "ray", "read", "ready", "red", "release", "report", "request", "reset", "rest", "review", "right", "river", "robin", "rock", "rose", "ruby", "rule", "run", "sage", "sale", "sales", "same", "saturday", "save", "say", "search", "season", "see", "select", "send", "september", "server", "service", "set", "setting", "settings", "shall", "she", "ship", "shop", "should", "show", "sign", "since", "sky", "small", "so", "some", "sort", "spring", "start", "state", "status", "step", "sterling", "still", "stop", "storm", "story", "subject", "summer", "summit", "sunday", "sunny", "support", "sure", "table", "take", "team", "terry", "test", "than", "thank", "thanks", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "through", "thursday", "time", "to", "today", "token", "too", "total", "track", "true", "try", "tuesday", "type", "under", "until", "up", "update", "upon", "us", "use", "user", "users", "valid", "value", "very", "view", "want", "warning", "was", "water", "way", "we", "wednesday", "week", "welcome", "well", "were", "what", "when", "where", "which", "while", "who", "why", "will", "winter", "with", "within", "without", "word", "work", "world", "would", "write", "year", "yes", "yet", "you", "your",
		// firms known by a founder's surname alone (Ford said, Bayer
		// reported): a name with a given name before it (Henry Ford)
		"ford", "bayer", "bosch", "siemens", "philips", "boeing", "merck", "pfizer", "heineken", "kellogg", "dyson", "bloomberg",
		"reuters", "nestle", "nestlé", "heinz", "kraft", "cadbury", "colgate", "gillette", "hershey", "dunlop", "michelin", "renault",
		"peugeot", "citroen", "citroën", "opel", "daimler", "krupp", "thyssen", "miele", "braun", "henkel", "goodyear", "hilton",
		"marriott", "gucci", "prada", "dior", "versace", "cartier", "kellogg", "mattel", "hasbro", "pepsi", "nike",
		"alexa", "apple", "amazon", "siri", "cortana", "chrome", "safari", "firefox", "edge", "jenkins", "kafka", "ruby", "julia", "django", "flask", "hugo", "jekyll", "ansible", "docker", "tesla", "dell", "mercedes", "porsche", "ferrari", "lamborghini", "bentley", "chanel", "dior", "armani", "gucci", "prada", "versace", "boss", "cartier", "harley", "lincoln", "chevrolet", "chevy", "morgan", "stanley", "marietta", "lockheed", "goldman", "sachs", "merrill", "lynch", "wells", "fargo", "schwab", "disney", "warner", "hilton", "marriott", "macy",
		"paris", "london", "berlin", "florence", "jordan", "victoria", "sydney", "adelaide", "austin", "dallas", "houston", "phoenix", "denver", "madison", "savannah", "charlotte", "georgia", "virginia", "carolina", "dakota", "montana", "india", "china", "asia", "africa", "america", "europe", "israel", "lourdes", "regina", "vienna", "lorraine", "chelsea", "kent", "york", "hudson", "troy", "orlando", "sofia", "valencia", "santiago", "lima", "florida", "nevada", "washington", "jackson", "lincoln", "clinton", "cleveland", "brooklyn", "camden", "aurora", "alexandria", "kingston", "hamilton", "wellington", "melbourne", "perth", "darwin", "brisbane", "canberra", "hobart", "delhi", "mumbai", "chennai", "bangalore", "singapore", "tokyo", "osaka", "kyoto", "rome", "milan", "naples", "venice", "genoa", "turin", "munich", "hamburg", "cologne", "lyon", "nice", "marseille", "madrid", "barcelona", "seville", "lisbon", "porto", "amsterdam", "rotterdam", "brussels", "warsaw", "krakow", "stockholm", "oslo", "helsinki", "copenhagen", "dublin", "edinburgh", "glasgow", "cardiff", "belfast", "manchester", "liverpool", "bristol", "leeds", "oxford", "cambridge",
		"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mon", "tue", "wed", "thu", "fri", "sat", "sun",
		// given names that are nouns or adjectives first and seldom
		// surnames (Amber Alert, Olive Oil, Ginger Ale): a name with a
		// surname of the tables after it, or with context
		"amber", "crystal", "candy", "brandy", "ginger", "olive", "cherry", "rusty", "dusty", "misty",
		"jasmine", "violet", "daisy", "poppy", "hazel", "basil", "angel", "chip", "skip",
	},
	"de": {
		"aber", "alle", "als", "am", "an", "auch", "auf", "aus", "bei", "bis", "das", "dass", "dem", "den", "der", "des", "die", "dies", "diese", "dieser", "doch", "du", "durch", "ein", "eine", "einer", "er", "es", "für", "gut", "hier", "ich", "ihr", "im", "in", "ist", "ja", "jetzt", "kann", "kein", "mit", "nach", "nein", "nicht", "noch", "nur", "oder", "ohne", "sehr", "sie", "sind", "so", "um", "und", "uns", "unter", "vom", "von", "vor", "wann", "war", "warum", "was", "weil", "wenn", "wer", "wie", "wir", "wo", "zu", "zum", "zur",
		"januar", "februar", "märz", "mai", "juni", "juli", "oktober", "dezember", "montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag", "herbst", "frühling",
		"weber", "kurz", "groß", "gross", "neu", "alt", "weiß", "weiss", "schwarz", "rot", "grün", "könig", "wald", "frei", "glück", "heil", "licht", "mann", "kind", "haus", "kunde", "rechnung", "bestellung", "termin", "bitte", "danke", "anfrage", "angebot", "projekt", "team", "datum", "name",
		"berlin", "hamburg", "münchen", "köln", "frankfurt", "stuttgart", "düsseldorf", "dresden", "leipzig", "hannover", "bremen", "essen", "dortmund", "wien", "zürich", "bern", "basel", "mainz", "trier", "ulm", "worms", "siegen", "marburg", "hessen", "bayern", "sachsen", "deutschland", "österreich", "schweiz",
	},
	"fr": {
		"à", "au", "aux", "avec", "ce", "cette", "ces", "dans", "de", "des", "du", "elle", "en", "est", "et", "il", "ils", "je", "la", "le", "les", "leur", "mais", "nous", "ou", "où", "par", "pas", "pour", "qui", "que", "quand", "sans", "sur", "un", "une", "vous", "voici", "voilà", "bonjour", "merci", "bien", "tout", "tous", "très", "plus", "notre", "votre",
		"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche", "été", "hiver", "printemps", "automne", "noël", "pâques",
		"blanc", "blanche", "noir", "rouge", "vert", "petit", "grand", "roux", "brun", "leclerc", "carrefour", "auchan", "renault", "peugeot", "citroën", "michelin", "total", "orange", "lacoste", "hermès", "dior", "chanel", "vuitton", "cartier", "client", "facture", "commande", "rendez", "projet", "équipe", "date", "nom", "objet",
		"lyon", "marseille", "toulouse", "nice", "nantes", "strasbourg", "montpellier", "bordeaux", "lille", "rennes", "reims", "toulon", "grenoble", "dijon", "angers", "nîmes", "brest", "tours", "limoges", "amiens", "metz", "besançon", "orléans", "rouen", "caen", "nancy", "avignon", "france", "belgique", "suisse", "bretagne", "normandie", "provence",
	},
	"es": {
		"a", "al", "como", "con", "de", "del", "el", "en", "es", "esta", "este", "ella", "ellos", "hay", "la", "las", "lo", "los", "mi", "muy", "no", "nos", "para", "pero", "por", "que", "qué", "se", "si", "sí", "sin", "su", "sus", "también", "un", "una", "usted", "ustedes", "y", "ya", "hola", "gracias", "buenos", "buenas", "saludos",
		"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo", "verano", "invierno", "primavera", "otoño", "navidad", "semana",
		"rosa", "dolores", "mercedes", "pilar", "consuelo", "soledad", "amparo", "luz", "paz", "ángel", "jesús", "rocío", "esperanza", "milagros", "concepción", "asunción", "encarnación", "remedios", "angustias", "socorro", "montserrat", "cliente", "factura", "pedido", "cita", "proyecto", "equipo", "fecha", "nombre", "asunto",
		"madrid", "barcelona", "valencia", "sevilla", "zaragoza", "málaga", "murcia", "palma", "bilbao", "alicante", "córdoba", "valladolid", "vigo", "gijón", "granada", "toledo", "salamanca", "santander", "burgos", "cádiz", "méxico", "españa", "argentina", "colombia", "chile", "perú", "cuba", "venezuela", "bolivia", "ecuador", "paraguay", "uruguay", "guadalupe", "florida",
	},
	"it": {
		"a", "al", "alla", "anche", "che", "chi", "ci", "come", "con", "da", "dal", "del", "della", "di", "e", "è", "gli", "ha", "ho", "i", "il", "in", "io", "la", "le", "lei", "lo", "lui", "ma", "mi", "ne", "noi", "non", "per", "più", "se", "si", "sono", "su", "sul", "tu", "un", "una", "voi", "ciao", "grazie", "buongiorno", "salve",
		"gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre", "lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato", "domenica", "estate", "inverno", "primavera", "autunno", "natale", "pasqua",
		"grande", "piccolo", "allegra", "gioia", "speranza", "fortunato", "benvenuto", "stella", "vittoria", "ferrari", "lamborghini", "maserati", "fiat", "lancia", "armani", "prada", "gucci", "versace", "fendi", "valentino", "barilla", "lavazza", "cliente", "fattura", "ordine", "appuntamento", "progetto", "squadra", "data", "nome", "oggetto",
		"roma", "milano", "napoli", "torino", "palermo", "genova", "bologna", "firenze", "bari", "catania", "venezia", "verona", "messina", "padova", "trieste", "brescia", "parma", "modena", "perugia", "livorno", "cagliari", "foggia", "salerno", "ferrara", "rimini", "siena", "pisa", "lucca", "italia", "sicilia", "sardegna", "toscana", "veneto", "lombardia",
	},
	"nl": {
		"aan", "al", "als", "bij", "dat", "de", "den", "der", "die", "dit", "door", "een", "en", "er", "het", "hij", "ik", "in", "is", "je", "met", "na", "naar", "niet", "nog", "nu", "of", "om", "ook", "op", "over", "te", "tot", "uit", "van", "voor", "want", "was", "wat", "we", "wie", "wij", "zij", "zo", "hallo", "bedankt", "dank", "groet",
		"januari", "februari", "maart", "mei", "juni", "juli", "augustus", "oktober", "maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag", "zondag", "zomer", "lente", "herfst", "kerst", "pasen",
		"klant", "factuur", "bestelling", "afspraak", "project", "datum", "naam", "onderwerp",
		"amsterdam", "rotterdam", "utrecht", "eindhoven", "groningen", "tilburg", "almere", "breda", "nijmegen", "haarlem", "arnhem", "zwolle", "leiden", "maastricht", "delft", "nederland", "holland", "limburg", "brabant", "friesland",
	},
	"pt": {
		"a", "ao", "aos", "as", "com", "como", "da", "das", "de", "do", "dos", "e", "ela", "ele", "em", "é", "esta", "este", "eu", "mais", "mas", "na", "nas", "no", "nos", "não", "o", "os", "ou", "para", "pela", "pelo", "por", "que", "se", "sem", "seu", "sua", "um", "uma", "você", "olá", "obrigado", "obrigada", "bom", "boa",
		"janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro", "segunda", "terça", "quarta", "quinta", "sexta", "sábado", "domingo", "verão", "inverno", "primavera", "outono", "natal", "páscoa",
		"rosa", "luz", "paz", "graça", "glória", "vitória", "esperança", "conceição", "aparecida", "socorro", "fátima", "cliente", "fatura", "pedido", "projeto", "equipe", "data", "nome", "assunto",
		"lisboa", "porto", "braga", "coimbra", "faro", "aveiro", "funchal", "brasil", "portugal", "paulo", "salvador", "fortaleza", "recife", "curitiba", "manaus", "belém", "goiânia", "natal", "vitória", "florianópolis", "campinas", "londrina", "niterói",
	},
	"pl": {
		"i", "w", "na", "z", "do", "nie", "się", "to", "jest", "że", "o", "jak", "ale", "po", "co", "tak", "za", "od", "dla", "pan", "pani", "dzień", "dobry", "dziękuję", "styczeń", "luty", "marzec", "kwiecień", "maj", "czerwiec", "lipiec", "sierpień", "wrzesień", "październik", "listopad", "grudzień", "poniedziałek", "wtorek", "środa", "czwartek", "piątek", "sobota", "niedziela",
		"warszawa", "kraków", "łódź", "wrocław", "poznań", "gdańsk", "szczecin", "bydgoszcz", "lublin", "katowice", "białystok", "gdynia", "polska", "klient", "faktura", "zamówienie",
	},
	"sv": {
		"och", "att", "det", "som", "en", "på", "är", "av", "för", "med", "till", "den", "har", "de", "inte", "om", "ett", "han", "men", "var", "jag", "hej", "tack", "januari", "februari", "mars", "april", "maj", "juni", "juli", "augusti", "september", "oktober", "november", "december", "måndag", "tisdag", "onsdag", "torsdag", "fredag", "lördag", "söndag", "sommar", "vinter", "vår", "höst",
		"stockholm", "göteborg", "malmö", "uppsala", "västerås", "örebro", "linköping", "helsingborg", "lund", "umeå", "sverige", "kund", "faktura", "beställning",
	},
	"fi": {
		"ja", "on", "ei", "se", "että", "hän", "oli", "ovat", "mutta", "kun", "tai", "niin", "kuin", "myös", "hei", "kiitos", "tammikuu", "helmikuu", "maaliskuu", "huhtikuu", "toukokuu", "kesäkuu", "heinäkuu", "elokuu", "syyskuu", "lokakuu", "marraskuu", "joulukuu", "maanantai", "tiistai", "keskiviikko", "torstai", "perjantai", "lauantai", "sunnuntai", "kesä", "talvi", "kevät", "syksy",
		"helsinki", "espoo", "tampere", "vantaa", "oulu", "turku", "jyväskylä", "lahti", "kuopio", "pori", "suomi", "asiakas", "lasku", "tilaus", "aino", "onni", "lahja", "ilma", "tuuli", "sade", "taivas", "satu", "kai",
	},
	"da": {
		"og", "i", "at", "det", "en", "den", "til", "er", "som", "på", "de", "med", "han", "af", "for", "ikke", "der", "var", "mig", "sig", "men", "et", "har", "om", "vi", "hej", "tak", "januar", "februar", "marts", "april", "maj", "juni", "juli", "august", "september", "oktober", "november", "december", "mandag", "tirsdag", "onsdag", "torsdag", "fredag", "lørdag", "søndag", "vinter", "forår", "efterår",
		"københavn", "aarhus", "odense", "aalborg", "esbjerg", "randers", "kolding", "horsens", "vejle", "roskilde", "danmark", "norge", "oslo", "bergen", "trondheim", "stavanger", "kunde", "faktura", "bestilling",
	},
	// Scripts without case: no capital ends a name, so a run of words
	// ends at a word these lists make Stop (the verb, adverb or
	// postposition after a name: कल अमित कुमार ने फोन किया, السيد أحمد
	// محمد اتصل أمس).
	"hi": {
		"आज", "कल", "परसों", "सुबह", "शाम", "रात", "दिन", "दोपहर", "बात", "फोन", "किया", "की", "कहा", "गया", "गई", "गए", "आया", "आई", "आए", "आना", "जाना",
		"था", "थी", "थे", "है", "हैं", "हूँ", "और", "लेकिन", "अभी", "यहाँ", "वहाँ", "यहां", "वहां", "उनका", "उनकी", "उनके", "उसने", "उसका", "उसकी", "मैंने", "हमने",
		"आपने", "आपका", "आपकी", "आपके", "मेरा", "मेरी", "मेरे", "हमारा", "हमारी", "इसलिए", "क्योंकि", "बहुत", "सबसे", "साथ", "लिए", "बाद", "पहले", "अपने", "अपनी", "अपना",
		"जब", "तब", "कुछ", "सभी", "नहीं", "हाँ", "जी", "ने", "से", "को", "का", "के", "में", "पर", "भी", "तो", "ही", "एक", "यह", "वह", "ये", "वे", "इस", "उस", "कोई",
		"क्या", "कब", "कहाँ", "कैसे", "क्यों", "धन्यवाद", "नमस्ते", "कृपया", "बताया", "मिला", "मिली", "मिले", "करेंगे", "करेगा", "करेगी", "करना", "करें", "रहा", "रही", "रहे",
		"सकता", "सकती", "चाहिए", "बजे", "सोमवार", "मंगलवार", "बुधवार", "गुरुवार", "शुक्रवार", "शनिवार", "रविवार", "जनवरी", "फरवरी", "मार्च", "अप्रैल", "जुलाई", "अगस्त",
		"सितंबर", "अक्टूबर", "नवंबर", "दिसंबर", "भारत", "दिल्ली", "मुंबई", "चेन्नई", "कोलकाता", "बेंगलुरु", "भेजा", "भेजी", "पूछा", "लिखा", "देखा", "आएंगे", "आएगा", "आएगी",
	},
	"ar": {
		"اتصل", "اتصلت", "قال", "قالت", "في", "من", "إلى", "على", "عن", "مع", "أمس", "اليوم", "غدا", "غداً", "هو", "هي", "هم", "و", "أو", "ثم", "لكن", "هذا", "هذه",
		"ذلك", "التي", "الذي", "كان", "كانت", "يوم", "صباح", "مساء", "الساعة", "بخصوص", "حول", "عند", "بعد", "قبل", "شكرا", "شكراً", "مرحبا", "سوف", "قد", "لقد", "لم",
		"لن", "لا", "نعم", "أن", "إن", "ما", "ماذا", "متى", "أين", "كيف", "زار", "زارت", "أرسل", "أرسلت", "طلب", "طلبت", "وصل", "وصلت", "حضر", "حضرت", "سيتصل",
		"يريد", "تريد", "الفاتورة", "الطلب", "بشأن", "صباحا", "مساءً", "الأسبوع", "الماضي", "القادم", "الرياض", "جدة", "دبي", "القاهرة",
	},
	"he": {
		"התקשר", "התקשרה", "אמר", "אמרה", "היום", "אתמול", "מחר", "של", "עם", "הוא", "היא", "הם", "את", "על", "אל", "מן", "כי", "אבל", "או", "גם", "רק", "כבר",
		"עוד", "לא", "כן", "זה", "זאת", "היה", "הייתה", "בבוקר", "בערב", "שלום", "תודה", "ביקש", "ביקשה", "שלח", "שלחה", "הגיע", "הגיעה", "בנוגע", "לגבי", "אחרי",
		"לפני", "בשעה", "שוב", "ירושלים", "חיפה",
	},
}

// monthNames are the months of the common words' other languages (and
// the forms that follow a preposition: od maja): a month that is also a
// name is a name only in context (Maj, Mei, Abril). English and German
// months are Common as those languages' common words (June, Mai).
var monthNames = []string{
	"janvier", "février", "mars", "avril", "juin", "juillet", "août",
	"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
	"gennaio", "febbraio", "aprile", "maggio", "giugno", "luglio",
	"januari", "februari", "maart", "mei", "augustus",
	"janeiro", "fevereiro", "março", "maio", "junho", "julho",
	"maj", "maja", "czerwiec", "lipiec", "augusti", "marts",
}

// streetsBefore come before a street's name, in lower case too (au 12
// rue Victor Hugo, in via Garibaldi).
var streetsBefore = []string{
	"rue", "avenue", "boulevard", "allée", "impasse", "quai", "chemin", "place", "via", "viale", "piazza", "piazzale", "corso", "vicolo", "largo",
	"calle", "avenida", "plaza", "paseo", "camino", "carretera", "rua", "travessa", "praça", "alameda", "estrada", "ulica", "aleja", "plac", "osiedle",
}

// functionWords are prepositions and conjunctions of scripts without
// case that a name list also holds: Stop whatever the lists say.
var functionWords = []string{"אל", "על", "עם", "את", "של", "מן", "גם", "כי", "או", "אם"}

// placePrefixes open place names (Sesto San Giovanni, Borgo Valsugana,
// Quarto d'Altino; תל אביב) more often than they are given names: they
// lose their name flags.
var placePrefixes = []string{"Borgo", "Quarto", "Sesto", "Settimo",
	// Hebrew: the first words of towns (תל אביב, באר שבע, רמת גן, קריית
	// שמונה, כפר סבא, פתח תקווה, ראש העין)
	"תל", "באר", "רמת", "גבעת", "קריית", "כפר", "פתח", "ראש", "נווה", "מעלה", "עין"}

// brands are companies, brands and places named after a person, known
// well enough to be written without a company form: the two words are
// not reported as a person without context.
var brands = []string{
	"Calvin Klein", "Ralph Lauren", "Tommy Hilfiger", "Michael Kors", "Kate Spade", "Tom Ford", "Hugo Boss", "Giorgio Armani", "Christian Dior", "Christian Louboutin",
	"Yves Saint", "Louis Vuitton", "Jimmy Choo", "Vera Wang", "Marc Jacobs", "Paul Smith", "Ted Baker", "Karl Lagerfeld", "Stella McCartney", "Oscar Renta",
	"Charles Schwab", "Philip Morris", "Johnnie Walker", "Jack Daniels", "Jim Beam", "Martin Marietta", "Morgan Stanley", "Goldman Sachs", "Merrill Lynch", "Dow Jones",
	"Clifford Chance", "Price Waterhouse", "Baker McKenzie", "Grant Thornton", "Ernst Young", "Arthur Andersen", "Booz Allen", "Estée Lauder", "Mercedes Benz", "Walt Disney",
	"Harley Davidson", "Aston Martin", "Rolls Royce", "Alfa Romeo", "Enzo Ferrari", "Ben Jerry", "Wells Fargo", "Julia Lang", "Charlotte Amalie", "Santa Claus",
	"Robert Bosch", "Carl Zeiss", "Max Planck", "Hugo Junkers", "Anne Frank", "Victoria Albert", "Martin Luther", "George Washington", "Abraham Lincoln", "John Lewis", "Marks Spencer",
	// More firms, fashion houses, foods and drinks known by a founder's
	// or a person's name; the possessive's form too (Jack Daniel's).
	"Thomas Cook", "Edward Jones", "Smith Barney", "Raymond James", "Dean Witter", "Paine Webber", "Jones Lang", "Lloyds Banking",
	"Massimo Dutti", "Pierre Cardin", "Salvatore Ferragamo", "Dolce Gabbana", "Emilio Pucci", "Roberto Cavalli", "Donna Karan", "Vivienne Westwood",
	"Alexander McQueen", "Tory Burch", "Kenneth Cole", "Anne Klein", "Vera Bradley", "Ben Sherman", "Fred Perry", "Tommy Bahama", "Steve Madden",
	"Max Mara", "Levi Strauss", "Harry Winston", "Jo Malone", "Elizabeth Arden", "Helena Rubinstein", "Max Factor", "Mary Kay", "Bobbi Brown",
	"Marie Claire", "Jack Daniel", "Louis Roederer", "Earl Grey", "Tim Tam", "Tim Tams", "Tim Hortons", "Sara Lee", "Betty Crocker", "Uncle Ben",
	"Little Debbie", "Marie Callender", "Ferrero Rocher", "Albert Heijn", "Chuck Taylor", "Baskin Robbins", "Papa John", "Dr Pepper", "Dr Oetker",
	"Dr Martens", "Dr Scholl", "Dr Hauschka", "Hugo Boss", "Ray Ban", "Tom Tailor", "Marc O'Polo", "Peek Cloppenburg", "Thomas Sabo", "Jil Sander",
}

// romanised are names as the locales without a Latin script in the
// dataset write them in Latin letters (Japanese in Hepburn, Chinese in
// pinyin and as Singapore and Hong Kong write them, Korean, Russian,
// Arabic, Greek), written for this project from common knowledge of the
// most frequent names: the dataset has them only in their own scripts.
var romanisedGiven = []string{
	// ja
	"Hiroshi", "Takashi", "Takeshi", "Kenji", "Kenta", "Kazuki", "Daiki", "Haruto", "Yuto", "Sota", "Ren", "Riku", "Yuki", "Yuka", "Yoko", "Yoshiko", "Keiko", "Kazuko", "Akiko", "Tomoko",
	"Naoko", "Mayumi", "Megumi", "Ayaka", "Misaki", "Haruka", "Sakura", "Yui", "Hina", "Aoi", "Yuna", "Mei", "Rin", "Koharu", "Shota", "Takumi", "Naoki", "Makoto", "Satoshi", "Tetsuya",
	"Hideo", "Hideki", "Kaito", "Yusuke", "Ryota", "Shun", "Daisuke", "Kohei", "Taro", "Jiro", "Ichiro", "Hanako", "Emi", "Kaori", "Noriko", "Sachiko", "Masako", "Junko", "Kyoko", "Ayumi",
	"Asuka", "Nanami", "Mio", "Riko", "Miyu", "Kenichi", "Shinji", "Masato", "Tatsuya", "Yasuhiro", "Nobuo", "Hiroko", "Tomoya", "Akira", "Minoru", "Osamu", "Haruki", "Sho", "Yuma", "Kota",
	// zh, sg, hk (given syllables)
	"Wei", "Ming", "Hui", "Jun", "Jie", "Xin", "Ling", "Mei", "Hao", "Yu", "Li", "Fang", "Jing", "Yan", "Ying", "Lei", "Qiang", "Tao", "Bo", "Chen", "Xiao", "Hong", "Hua", "Jian", "Yong",
	"Zhi", "Kai", "Yi", "Xiu", "Lan", "Na", "Ping", "Rui", "Hui Min", "Wei Ling", "Jun Jie", "Kai Wen", "Zhi Hao", "Jia Hui", "Xin Yi", "Siew", "Kok", "Seng", "Boon", "Chee", "Keng", "Kian",
	"Meng", "Soon", "Teck", "Hock", "Kiat", "Wai", "Ka", "Man", "Kin", "Siu", "Chun", "Yee", "Mun", "Sze", "Pei", "Shu", "Qian", "Yun", "Zhen", "Ning", "Feng", "Gang", "Dong", "Long",
	// ko
	"Min-jun", "Seo-yeon", "Ji-hoon", "Ji-woo", "Seo-jun", "Ha-eun", "Do-yun", "Ji-min", "Min-seo", "Hyun-woo", "Su-bin", "Ye-jin", "Joon-ho", "Eun-ji", "Sung-min", "Young-ho", "Jae-won",
	"Minjun", "Seoyeon", "Jihoon", "Jiwoo", "Seojun", "Haeun", "Doyun", "Jimin", "Minseo", "Hyunwoo", "Subin", "Yejin", "Joonho", "Eunji", "Sungmin", "Youngho", "Jaewon", "Minsu", "Jisoo",
	// ru, uk
	"Dmitri", "Dmitry", "Dmitriy", "Sergei", "Sergey", "Alexei", "Alexey", "Aleksandr", "Andrei", "Andrey", "Mikhail", "Nikolai", "Nikolay", "Vladimir", "Yuri", "Yury", "Igor", "Oleg",
	"Pavel", "Maxim", "Ivan", "Artem", "Boris", "Viktor", "Anatoly", "Evgeny", "Yevgeny", "Olga", "Natalia", "Natalya", "Tatiana", "Tatyana", "Svetlana", "Ekaterina", "Yekaterina",
	"Anastasia", "Irina", "Elena", "Yelena", "Marina", "Anna", "Maria", "Oksana", "Ludmila", "Lyudmila", "Galina", "Nadezhda", "Vera", "Yulia", "Daria", "Darya", "Ksenia", "Polina", "Taras", "Bohdan",
	// ar
	"Mohammed", "Mohamed", "Muhammad", "Mohammad", "Ahmed", "Ahmad", "Ali", "Omar", "Umar", "Hassan", "Hasan", "Hussein", "Husain", "Khalid", "Yusuf", "Youssef", "Ibrahim", "Mustafa",
	"Abdullah", "Abdul", "Karim", "Samir", "Tariq", "Rashid", "Faisal", "Nasser", "Walid", "Ziad", "Fatima", "Fatma", "Aisha", "Aysha", "Maryam", "Mariam", "Layla", "Leila", "Noor", "Nour",
	"Zainab", "Khadija", "Amina", "Yasmin", "Salma", "Hana", "Rania", "Huda", "Nadia", "Samira", "Siti", "Nur", "Nurul", "Aminah", "Farah", "Aziz", "Hamid", "Rahman", "Faizal", "Hafiz",
	// el
	"Georgios", "Giorgos", "Dimitrios", "Konstantinos", "Ioannis", "Nikolaos", "Panagiotis", "Vasilis", "Christos", "Athanasios", "Eleni", "Aikaterini", "Katerina", "Sofia", "Dimitra", "Ioanna",
	// in: the dataset's en_IN list is of classical names; these are the
	// most frequent given names of people born in India since 1960
	"Aarav", "Vivaan", "Aditya", "Vihaan", "Arjun", "Sai", "Reyansh", "Ayaan", "Krishna", "Ishaan", "Shaurya", "Atharv", "Advik", "Pranav", "Advait", "Dhruv",
	"Kabir", "Ritvik", "Aarush", "Kayaan", "Darsh", "Veer", "Rohan", "Rahul", "Amit", "Anil", "Sunil", "Rajesh", "Ramesh", "Suresh", "Mahesh", "Ganesh", "Dinesh",
	"Vijay", "Sanjay", "Ajay", "Manoj", "Vinod", "Ashok", "Deepak", "Pradeep", "Sandeep", "Rakesh", "Mukesh", "Naveen", "Praveen", "Nitin", "Sachin", "Vikram",
	"Vikas", "Varun", "Karan", "Arun", "Tarun", "Kiran", "Gaurav", "Saurabh", "Abhishek", "Ankit", "Ankur", "Yash", "Kunal", "Nikhil", "Akshay", "Manish", "Ravi",
	"Rajiv", "Sanjeev", "Siddharth", "Arnav", "Anirudh", "Aryan", "Parth", "Kartik", "Mohit", "Rohit", "Sumit", "Amitabh", "Sourav", "Subhash", "Srinivas",
	"Venkatesh", "Prakash", "Girish", "Harish", "Satish", "Jagdish", "Mohan", "Gopal", "Hari", "Shankar", "Lakshman", "Bharat", "Naresh", "Hitesh", "Ritesh",
	"Ananya", "Diya", "Saanvi", "Aadhya", "Pari", "Anika", "Navya", "Myra", "Aaradhya", "Kiara", "Riya", "Priya", "Pooja", "Neha", "Sneha", "Anjali", "Kavya",
	"Shreya", "Isha", "Ishita", "Nisha", "Divya", "Swati", "Sunita", "Anita", "Kavita", "Rekha", "Meena", "Geeta", "Gita", "Seema", "Suman", "Poonam", "Jyoti",
	"Preeti", "Rani", "Lakshmi", "Sarita", "Shalini", "Shweta", "Tanvi", "Avni", "Prisha", "Aanya", "Anvi", "Vanya", "Siya", "Khushi", "Aditi", "Nandini",
	"Radhika", "Deepika", "Priyanka", "Aishwarya", "Madhuri", "Archana", "Sushma", "Usha", "Padma", "Indira", "Sangeeta", "Vandana", "Manisha", "Mamta",
	"Payal", "Ritu", "Sonal", "Komal", "Pallavi", "Bhavna", "Harpreet", "Gurpreet", "Manpreet", "Simran", "Jaspreet", "Navneet", "Parminder", "Sukhwinder",
	// African (Ghana, Nigeria, Kenya)
	"Kwame", "Kofi", "Kwaku", "Kwabena", "Yaw", "Ama", "Akosua", "Abena", "Chinedu", "Chukwuemeka", "Emeka", "Ngozi", "Chiamaka", "Oluwaseun", "Adebayo", "Wanjiru", "Otieno", "Achieng",
}

var romanisedSurnames = []string{
	// ja
	"Sato", "Satou", "Suzuki", "Takahashi", "Tanaka", "Watanabe", "Ito", "Itou", "Yamamoto", "Nakamura", "Kobayashi", "Kato", "Katou", "Yoshida", "Yamada", "Sasaki", "Yamaguchi", "Matsumoto",
	"Inoue", "Kimura", "Hayashi", "Shimizu", "Yamazaki", "Mori", "Abe", "Ikeda", "Hashimoto", "Yamashita", "Ishikawa", "Nakajima", "Maeda", "Fujita", "Ogawa", "Goto", "Okada", "Hasegawa",
	"Murakami", "Kondo", "Ishii", "Saito", "Sakamoto", "Endo", "Aoki", "Fujii", "Nishimura", "Fukuda", "Ota", "Miura", "Fujiwara", "Okamoto", "Matsuda", "Nakagawa", "Nakano", "Harada",
	"Ono", "Tamura", "Takeuchi", "Kaneko", "Wada", "Nakayama", "Ishida", "Ueda", "Morita", "Hara", "Shibata", "Sakai", "Kudo", "Yokoyama", "Miyazaki", "Miyamoto", "Uchida", "Takagi", "Ando",
	"Taniguchi", "Ohno", "Maruyama", "Imai", "Takada", "Fujimoto", "Takeda", "Murata", "Ueno", "Sugiyama", "Masuda", "Sugawara", "Hirano", "Otsuka", "Chiba", "Kubo", "Matsui", "Iwasaki", "Sakurai", "Kinoshita", "Noguchi", "Matsuo", "Nomura", "Kikuchi", "Sano", "Onishi", "Sugimoto", "Arai",
	// zh, sg, hk, tw
	"Wang", "Zhang", "Liu", "Chen", "Yang", "Huang", "Zhao", "Wu", "Zhou", "Xu", "Sun", "Zhu", "Hu", "Guo", "Lin", "Luo", "Zheng", "Liang", "Xie", "Song", "Tang", "Han", "Feng", "Deng",
	"Cao", "Peng", "Zeng", "Xiao", "Tian", "Dong", "Pan", "Yuan", "Cai", "Jiang", "Yu", "Du", "Ye", "Cheng", "Wei", "Su", "Lu", "Ding", "Ren", "Shen", "Yao", "Tan", "Lim", "Lee", "Ng", "Ong",
	"Wong", "Goh", "Chua", "Chan", "Koh", "Teo", "Ang", "Yeo", "Tay", "Ho", "Low", "Toh", "Sim", "Chong", "Chia", "Seah", "Foo", "Leong", "Yap", "Phua", "Quek", "Loh", "Heng", "Neo", "Soh",
	"Tham", "Wee", "Kwek", "Chew", "Cheong", "Lau", "Leung", "Cheung", "Tsang", "Fung", "Kwok", "Yeung", "Mak", "Lai", "Tse", "Chiu", "Poon", "Chau", "Tsai", "Hsu", "Kuo", "Chang", "Huang",
	// ko
	"Kim", "Park", "Choi", "Jung", "Jeong", "Kang", "Cho", "Jo", "Yoon", "Yun", "Jang", "Lim", "Im", "Shin", "Han", "Oh", "Seo", "Kwon", "Hwang", "Ahn", "Song", "Hong", "Yoo", "Ryu", "Bae", "Baek",
	// ru, uk
	"Ivanov", "Ivanova", "Petrov", "Petrova", "Smirnov", "Smirnova", "Kuznetsov", "Kuznetsova", "Popov", "Popova", "Volkov", "Volkova", "Sokolov", "Sokolova", "Lebedev", "Lebedeva",
	"Kozlov", "Kozlova", "Novikov", "Novikova", "Morozov", "Morozova", "Pavlov", "Pavlova", "Vasiliev", "Vasilieva", "Fedorov", "Fedorova", "Mikhailov", "Mikhailova", "Orlov", "Orlova",
	"Romanov", "Romanova", "Egorov", "Egorova", "Nikolaev", "Nikolaeva", "Zaitsev", "Zaitseva", "Shevchenko", "Kovalenko", "Bondarenko", "Tkachenko", "Kravchenko", "Melnyk", "Boyko",
	// ar
	"Haddad", "Khalil", "Hassan", "Hussein", "Ibrahim", "Mansour", "Nasser", "Saleh", "Salem", "Khoury", "Aziz", "Rahman", "Abdullah", "Mahmoud", "Darwish", "Farouk", "Hamdan", "Karam",
	"Nassar", "Sabbagh", "Younes", "Yousef", "Zaki", "Qureshi", "Sheikh", "Malik", "Siddiqui", "Chaudhry", "Hashemi", "Rahimi", "Hosseini",
	// el
	"Papadopoulos", "Papadopoulou", "Georgiou", "Dimitriou", "Nikolaou", "Konstantinou", "Ioannou", "Vlachos", "Papageorgiou", "Oikonomou", "Karagiannis", "Christodoulou", "Alexiou",
	// in
	"Sharma", "Verma", "Gupta", "Singh", "Kumar", "Kumari", "Patel", "Shah", "Mehta", "Reddy", "Rao", "Nair", "Menon", "Pillai", "Iyer", "Iyengar", "Mukherjee",
	"Chatterjee", "Banerjee", "Bose", "Dutta", "Ghosh", "Chakraborty", "Chakrabarti", "Agarwal", "Aggarwal", "Jain", "Joshi", "Kulkarni", "Deshpande", "Patil",
	"Pawar", "Jadhav", "Shinde", "Naidu", "Choudhary", "Chaudhary", "Yadav", "Mishra", "Pandey", "Tiwari", "Dubey", "Srivastava", "Saxena", "Kapoor", "Khanna",
	"Malhotra", "Chopra", "Bhatia", "Sethi", "Arora", "Sandhu", "Sidhu", "Dhillon", "Grewal", "Bajwa", "Thakur", "Rajput", "Chauhan", "Rathore", "Hegde", "Shetty",
	"Kamath", "Krishnan", "Subramanian", "Venkatesan", "Raman", "Ahuja", "Bedi", "Trivedi", "Bhatt", "Desai", "Parikh", "Vyas", "Chawla", "Sinha", "Jha",
	"Prasad", "Mahajan", "Goyal", "Bansal", "Mittal", "Garg", "Goel", "Kaur", "Nayak", "Mohanty", "Panda", "Sahu", "Naik", "Gowda", "Acharya", "Banerji",
	// African
	"Okafor", "Okonkwo", "Adeyemi", "Oyelaran", "Mensah", "Boateng", "Owusu", "Asante", "Osei", "Agyeman", "Nwosu", "Eze", "Ogunleye", "Balogun", "Abubakar", "Kamau", "Mwangi", "Ochieng", "Odhiambo", "Kiplagat", "Nkosi", "Dlamini", "Ndlovu",
}

// kanjiSurnames and kanjiGiven are frequent Japanese family and given
// names in kanji, written for this project from common knowledge: the
// dataset's ja lists are short, so a name like 貝塚美咲様 or 結城翔太さん
// had no family name to start from. Family names of one kanji (林, 森,
// 東) are left out: they start too many ordinary words.
var kanjiSurnames = []string{
	"佐藤", "鈴木", "高橋", "田中", "伊藤", "渡辺", "渡邊", "山本", "中村", "小林", "加藤", "吉田", "山田", "佐々木", "山口", "松本", "井上", "木村", "斎藤", "斉藤",
	"清水", "山崎", "池田", "橋本", "阿部", "石川", "山下", "中島", "石井", "小川", "前田", "岡田", "長谷川", "藤田", "後藤", "近藤", "村上", "遠藤", "青木", "坂本",
	"福田", "太田", "西村", "藤井", "金子", "岡本", "藤原", "中野", "三浦", "原田", "中川", "松田", "竹内", "小野", "田村", "中山", "和田", "石田", "森田", "上田",
	"内田", "柴田", "酒井", "宮崎", "横山", "高木", "安藤", "宮本", "大野", "小島", "谷口", "今井", "工藤", "高田", "増田", "丸山", "杉山", "村田", "大塚", "新井",
	"小山", "平野", "藤本", "河野", "上野", "野口", "武田", "松井", "千葉", "岩崎", "菅原", "木下", "久保", "佐野", "野村", "松尾", "市川", "菊地", "杉本", "古川",
	"大西", "島田", "水野", "桜井", "高野", "渡部", "吉川", "山内", "西田", "飯田", "菊池", "西川", "小松", "北村", "安田", "五十嵐", "川口", "平田", "中田", "久保田",
	"服部", "岩田", "土屋", "川崎", "福島", "本田", "樋口", "秋山", "田口", "永井", "山中", "中西", "吉村", "川上", "石原", "大橋", "松岡", "馬場", "浜田", "森本",
	"星野", "矢野", "浅野", "大久保", "松下", "小池", "野田", "荒木", "大谷", "内藤", "松浦", "熊谷", "黒田", "尾崎", "永田", "川村", "望月", "田辺", "松村", "荒井",
	"大石", "中尾", "結城", "貝塚", "大城", "比嘉", "金城", "宮城", "新垣", "玉城", "上原", "島袋", "知念", "青山", "石橋", "宮沢", "若松", "村山", "山岸", "三宅",
	"小泉", "高山", "津田", "吉本", "広川", "浜口", "片山", "早川", "堀内", "岡崎", "関口", "細川", "平井", "桑原", "長田", "宮田", "西山", "小西", "河合", "今村",
}

// devanagariGiven and devanagariSurnames are frequent Indian given and
// family names in Devanagari, written for this project from common
// knowledge: Python Faker's hi_IN lists are short (83 each), and with
// the vowel signs read as part of a word (कौल is not कल) a name they lack
// is no name without context.
var devanagariGiven = []string{
	"अमित", "राहुल", "प्रिया", "सुनील", "अनिल", "राजेश", "सुरेश", "रमेश", "विजय", "संजय", "नेहा", "पूजा", "अंजलि", "रवि", "मनोज", "दीपक",
	"आकाश", "विकास", "अर्जुन", "राज", "स्नेहा", "कविता", "सीमा", "सुनीता", "अनीता", "रेखा", "ममता", "गीता", "लक्ष्मी", "सरिता", "अजय",
	"अभिषेक", "आदित्य", "रोहित", "सचिन", "गौरव", "निखिल", "विवेक", "आशीष", "सौरभ", "हर्ष", "करण", "अक्षय", "वरुण", "कुणाल", "पंकज",
	"नितिन", "योगेश", "महेश", "दिनेश", "राकेश", "मुकेश", "उमेश", "नरेश", "प्रकाश", "विनोद", "प्रमोद", "संदीप", "मनीष", "अरुण",
	"किरण", "श्वेता", "प्रीति", "रुचि", "दिव्या", "निशा", "आरती", "ज्योति", "मीना", "शालिनी", "पल्लवी", "स्वाति", "सोनिया", "रीना",
	"काजल", "मोनिका", "साक्षी", "तन्वी", "अनुष्का", "राधा", "सुमन", "ऊषा", "उषा", "इंदु", "मधु", "वंदना", "अर्चना", "रश्मि", "नीतू",
	"विशाल", "अंकित", "हिमांशु", "सुमित", "अनुराग", "अनूप", "भरत", "गोपाल", "हरीश", "जितेंद्र", "कमल", "लोकेश", "नवीन", "ओम",
	"प्रवीण", "राजीव", "संतोष", "शिव", "सूरज", "तरुण", "उदय", "वीरेंद्र", "यश", "आयुष", "ईशान", "कृष्ण", "मोहन", "श्याम",
}

var devanagariSurnames = []string{
	"शर्मा", "वर्मा", "गुप्ता", "सिंह", "कुमार", "यादव", "पटेल", "जैन", "अग्रवाल", "मिश्रा", "तिवारी", "पांडे", "पाण्डेय", "चौहान",
	"मेहता", "शाह", "जोशी", "त्रिपाठी", "दुबे", "श्रीवास्तव", "सक्सेना", "राठौर", "ठाकुर", "चौधरी", "रेड्डी", "नायर", "मेनन", "पिल्लै",
	"अय्यर", "राव", "देशमुख", "कुलकर्णी", "पाटिल", "भट्ट", "बंसल", "गोयल", "मित्तल", "सिन्हा", "प्रसाद", "मल्होत्रा", "कपूर", "खन्ना",
	"चोपड़ा", "अरोड़ा", "सेठी", "बत्रा", "भाटिया", "ढिल्लों", "गिल", "संधू", "बनर्जी", "चटर्जी", "मुखर्जी", "घोष", "दास", "बोस", "सेन",
}

var kanjiGiven = []string{
	"翔太", "大輔", "健太", "拓也", "直樹", "達也", "和也", "蓮", "陽翔", "大翔", "悠真", "湊", "大和", "陽太", "悠人", "颯太", "健一", "誠", "太郎", "一郎",
	"次郎", "健二", "浩二", "翼", "亮", "涼", "悠斗", "海斗", "陸", "蒼", "結翔", "優斗", "拓海", "大樹", "翔平", "亮介", "洋介", "康弘", "裕太", "裕樹",
	"直人", "英樹", "智也", "拓真", "太一", "修平", "健", "浩", "学", "剛", "隆", "茂", "博", "清", "勇", "修", "明", "聡", "晃", "淳", "稔", "陽一", "涼平",
	"美咲", "陽菜", "結衣", "葵", "凛", "結菜", "陽葵", "芽依", "莉子", "美桜", "結愛", "花子", "陽子", "恵子", "幸子", "洋子", "和子", "京子", "裕子", "直子",
	"智子", "久美子", "由美子", "真由美", "明美", "香織", "加奈", "春香", "舞", "桃子", "裕美子", "愛", "彩", "優子", "恵", "美穂", "麻衣", "沙織", "彩香", "奈々",
	"美優", "七海", "杏", "楓", "優花", "千尋", "真理子", "美香", "由香", "朋美", "亜美", "絵美", "理恵", "友美", "紀子", "典子", "順子", "節子", "弘子", "美紀",
}
