package policy

// BuiltinDetector describes one built-in detector of manual 12. The scanners
// live in package transforms; the policy language only needs the names.
type BuiltinDetector struct {
	Name        string
	Label       string
	Sensitivity Sensitivity
	Group       string // "pii" or "secrets"
}

// BuiltinDetectors is the table of manual 12, in table order (which breaks
// overlap ties).
var BuiltinDetectors = []BuiltinDetector{
	{"email", "EMAIL", Confidential, "pii"},
	{"phone", "PHONE", Confidential, "pii"},
	{"credit_card", "CREDIT_CARD", Restricted, "pii"},
	{"iban", "IBAN", Restricted, "pii"},
	{"us_ssn", "US_SSN", Restricted, "pii"},
	{"ipv4", "IP_ADDRESS", Internal, "pii"},
	{"ipv6", "IP_ADDRESS", Internal, "pii"},
	{"mac_address", "MAC_ADDRESS", Internal, "pii"},
	{"aws_arn", "AWS_ARN", Confidential, "pii"},
	{"aws_access_key", "AWS_ACCESS_KEY", Restricted, "secrets"},
	{"github_token", "GITHUB_TOKEN", Restricted, "secrets"},
	{"slack_token", "SLACK_TOKEN", Restricted, "secrets"},
	{"stripe_key", "STRIPE_KEY", Restricted, "secrets"},
	{"google_api_key", "GOOGLE_API_KEY", Restricted, "secrets"},
	{"jwt", "JWT", Restricted, "secrets"},
	{"private_key", "PRIVATE_KEY", Restricted, "secrets"},
	{"url_credentials", "URL_CREDENTIALS", Restricted, "secrets"},
	{"bearer_token", "BEARER_TOKEN", Restricted, "secrets"},
	{"generic_secret", "SECRET", Restricted, "secrets"},
	// Personal data without a fixed shape (manual 12.9): found by context,
	// name tables, JSON keys and check digits. These run outside the
	// trigger pass of the ones above (package detect, families.go).
	{"person", "PERSON", Confidential, "pii"},
	{"street_address", "ADDRESS", Confidential, "pii"},
	{"date_of_birth", "DATE_OF_BIRTH", Confidential, "pii"},
	{"uk_nino", "UK_NINO", Restricted, "pii"},
	{"uk_nhs", "UK_NHS", Restricted, "pii"},
	{"de_tax_id", "DE_TAX_ID", Restricted, "pii"},
	{"fr_nir", "FR_NIR", Restricted, "pii"},
	{"es_dni", "ES_DNI", Restricted, "pii"},
	{"es_nie", "ES_NIE", Restricted, "pii"},
	{"it_fiscal_code", "IT_FISCAL_CODE", Restricted, "pii"},
	{"nl_bsn", "NL_BSN", Restricted, "pii"},
	{"be_national_number", "BE_NATIONAL_NUMBER", Restricted, "pii"},
	{"pl_pesel", "PL_PESEL", Restricted, "pii"},
	{"se_personnummer", "SE_PERSONNUMMER", Restricted, "pii"},
	{"fi_hetu", "FI_HETU", Restricted, "pii"},
	{"dk_cpr", "DK_CPR", Restricted, "pii"},
	{"br_cpf", "BR_CPF", Restricted, "pii"},
	{"br_cnpj", "BR_CNPJ", Restricted, "pii"},
	{"in_aadhaar", "IN_AADHAAR", Restricted, "pii"},
	{"in_pan", "IN_PAN", Restricted, "pii"},
	{"ca_sin", "CA_SIN", Restricted, "pii"},
	{"au_tfn", "AU_TFN", Restricted, "pii"},
	{"au_medicare", "AU_MEDICARE", Restricted, "pii"},
	{"sg_nric", "SG_NRIC", Restricted, "pii"},
	{"jp_my_number", "JP_MY_NUMBER", Restricted, "pii"},
	{"us_itin", "US_ITIN", Restricted, "pii"},
	{"passport", "PASSPORT", Restricted, "pii"},
	{"aba_routing", "ABA_ROUTING", Confidential, "pii"},
	{"bank_account", "BANK_ACCOUNT", Restricted, "pii"},
	{"national_id", "NATIONAL_ID", Restricted, "pii"},
	{"tax_id", "TAX_ID", Restricted, "pii"},
	{"driver_license", "DRIVER_LICENSE", Restricted, "pii"},
}

// DetectorGroups are the names that stand for a group of built-ins in a
// transform's `detectors` option.
var DetectorGroups = []string{"@pii", "@secrets"}

// LookupBuiltinDetector returns the built-in detector named name, or nil.
func LookupBuiltinDetector(name string) *BuiltinDetector { return builtinDetector(name) }

func builtinDetector(name string) *BuiltinDetector {
	for i := range BuiltinDetectors {
		if BuiltinDetectors[i].Name == name {
			return &BuiltinDetectors[i]
		}
	}
	return nil
}

// optionKind is the type of one transform option.
type optionKind uint8

const (
	optDetectors   optionKind = iota // list of detector names or groups
	optSensitivity                   // a sensitivity name
	optPaths                         // list of projection paths (11.7)
	optBool
	optString
	optChar     // a string of exactly one character
	optNonNeg   // integer >= 0
	optPositive // integer >= 1
)

var optionKindWant = [...]string{
	optDetectors:   "list of detector names or @pii/@secrets",
	optSensitivity: "one of " + wantSensitivities,
	optPaths:       "list of projection paths",
	optBool:        "bool",
	optString:      "string",
	optChar:        "string of one character",
	optNonNeg:      "integer >= 0",
	optPositive:    "integer >= 1",
}

// TransformType is one built-in transform type of manual 11: its options and
// their defaults.
type TransformType struct {
	Name     string
	Options  map[string]optionKind
	Defaults *Value // the type's default options
	// Detecting types act on detections; the others act on structure.
	Detecting bool
}

var detectionOptions = map[string]optionKind{
	"detectors": optDetectors, "min_sensitivity": optSensitivity,
	"fields": optPaths, "exclude_fields": optPaths, "required": optBool,
}

func withOptions(base map[string]optionKind, extra map[string]optionKind) map[string]optionKind {
	out := make(map[string]optionKind, len(base)+len(extra))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// TransformTypes is manual 11's table.
var TransformTypes = []*TransformType{
	{Name: "redact", Detecting: true,
		Options:  withOptions(detectionOptions, map[string]optionKind{"placeholder": optString}),
		Defaults: Object(Member{"placeholder", String("[REDACTED:{label}]")})},
	{Name: "pseudonymise", Detecting: true, Options: detectionOptions, Defaults: Object()},
	{Name: "mask", Detecting: true,
		Options:  withOptions(detectionOptions, map[string]optionKind{"keep_last": optNonNeg, "char": optChar}),
		Defaults: Object(Member{"keep_last", Number(4)}, Member{"char", String("*")})},
	{Name: "hash", Detecting: true,
		Options:  withOptions(detectionOptions, map[string]optionKind{"length": optPositive}),
		Defaults: Object(Member{"length", Number(16)})},
	{Name: "truncate",
		Options: map[string]optionKind{"max_chars": optPositive, "fields": optPaths,
			"exclude_fields": optPaths, "required": optBool},
		Defaults: Object(Member{"max_chars", Number(4096)})},
	{Name: "project",
		Options:  map[string]optionKind{"include": optPaths, "exclude": optPaths, "required": optBool},
		Defaults: Object()},
	{Name: "drop_binary",
		Options:  map[string]optionKind{"note": optString, "required": optBool},
		Defaults: Object(Member{"note", String("[{type} removed by privacy policy]")})},
	{Name: "block", Detecting: true, Options: detectionOptions, Defaults: Object()},
	{Name: "detect", Detecting: true, Options: detectionOptions, Defaults: Object()},
	{Name: "annotate", Detecting: true, Options: detectionOptions, Defaults: Object()},
}

// transformAliases maps accepted spellings to the canonical type name.
var transformAliases = map[string]string{"pseudonymize": "pseudonymise"}

// DepseudonymiseID is the id and type of the automatic last input step
// (manual 13). It is not written in policies.
const DepseudonymiseID = "depseudonymise"

// LookupTransformType returns the built-in type named name (aliases
// accepted), or nil.
func LookupTransformType(name string) *TransformType {
	if a, ok := transformAliases[name]; ok {
		name = a
	}
	for _, t := range TransformTypes {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func transformTypeNames() string {
	names := make([]string, len(TransformTypes))
	for i, t := range TransformTypes {
		names[i] = t.Name
	}
	return quoteList(names)
}
