package transforms

import (
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/transforms/detect"
)

// TestKeyedMembers: members are read by what their names say, in every
// place the pipelines read JSON (manual 12.9.5).
func TestKeyedMembers(t *testing.T) {
	cases := []struct {
		name string
		kind Payload
		in   string
		gone []string // values that must not be left in clear
		kept []string // values that must stay
	}{
		{"en record", ToolResult, `{"structuredContent":{"firstName":"Alice","lastName":"Martin","dob":"1985-03-04","ssn":"123456789"}}`,
			[]string{"Alice", "Martin", "1985-03-04", "123456789"}, nil},
		{"de record", ToolResult, `{"structuredContent":{"Vorname":"Jürgen","Nachname":"Müller","Geburtsdatum":"04.03.1985","Anschrift":{"Straße":"Hauptstraße 5","PLZ":"10115","Ort":"Berlin"}}}`,
			[]string{"Jürgen", "Müller", "04.03.1985", "Hauptstraße 5", "10115", "Berlin"}, nil},
		{"fr record", ToolResult, `{"structuredContent":{"prénom":"Élodie","nom_de_famille":"Dupont","date_de_naissance":"04/03/1985","adresse":{"rue":"12 rue de la Paix","code_postal":"75002","ville":"Paris"}}}`,
			[]string{"Élodie", "Dupont", "04/03/1985", "12 rue de la Paix", "75002", "Paris"}, nil},
		{"es record", ToolResult, `{"structuredContent":{"nombre":"Lucía","apellidos":"García López","fecha_nacimiento":"1990-07-21","email":"lucia@example.es"}}`,
			[]string{"Lucía", "García López", "1990-07-21"}, nil},
		{"it record", ToolResult, `{"structuredContent":{"nome":"Giulia","cognome":"Rossi","data_nascita":"21/07/1990","telefono":"+39 06 1234 5678"}}`,
			[]string{"Giulia", "Rossi", "21/07/1990"}, nil},
		{"nl record", ToolResult, `{"structuredContent":{"voornaam":"Sanne","achternaam":"de Vries","geboortedatum":"1990-07-21","bsn":123456782}}`,
			[]string{"Sanne", "de Vries", "1990-07-21", "123456782"}, nil},
		{"pt record", ToolResult, `{"structuredContent":{"nome_completo":"João Silva","data_nascimento":"21/07/1990","endereco":{"rua":"Rua Augusta 100","cep":"01305-000","cidade":"São Paulo"}}}`,
			[]string{"João Silva", "21/07/1990", "Rua Augusta 100", "01305-000", "São Paulo"}, nil},
		{"nested customer list", ToolResult, `{"structuredContent":{"customers":[{"name":"Alice Martin","plan":"Pro Plan"},{"name":"Bob Stone","plan":"Free"}]}}`,
			[]string{"Alice Martin", "Bob Stone"}, []string{"Pro Plan", "Free"}},
		{"products stay", ToolResult, `{"structuredContent":{"products":[{"name":"Widget 3000","sku":"W-3000"},{"name":"Pro Plan"}],"order_date":"2024-01-02","company_name":"Acme GmbH","tool_name":"get_customer"}}`,
			nil, []string{"Widget 3000", "Pro Plan", "2024-01-02", "Acme GmbH", "get_customer"}},
		{"city outside an address", ToolResult, `{"structuredContent":{"name":"Alice Martin","email":"a@example.com","city":"Paris"}}`,
			[]string{"Alice Martin"}, []string{"Paris"}},
		{"JSON text", ToolResult, `{"content":[{"type":"text","text":"{\"contact_name\":\"Jean Dupont\",\"passport_number\":\"C01X00T47\"}"}]}`,
			[]string{"Jean Dupont", "C01X00T47"}, nil},
		{"error data", ErrorObject, `{"code":-32000,"message":"not allowed","data":{"customer":{"name":"Alice Martin","dob":"1985-03-04"}}}`,
			[]string{"Alice Martin", "1985-03-04"}, nil},
		{"arguments", Arguments, `{"first_name":"Alice","last_name":"Martin","zip":"10115"}`,
			[]string{"Alice", "Martin"}, []string{"10115"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, p, _ := engineFor(t, `{name: p, transforms: [redact]}`)
			pl := compileOutput(t, e, p)
			doc, err := jsondoc.Parse([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			e.Apply(pl, doc, jsondoc.Root, c.kind, &Run{})
			out := string(doc.Bytes())
			for _, v := range c.gone {
				if strings.Contains(out, v) || strings.Contains(out, strings.Trim(jsonQuote(v), `"`)) {
					t.Errorf("%q left in %s", v, out)
				}
			}
			for _, v := range c.kept {
				if !strings.Contains(out, v) {
					t.Errorf("%q changed in %s", v, out)
				}
			}
		})
	}
}

func jsonQuote(s string) string {
	var b []byte
	b = append(b, '"')
	b = append(b, s...)
	return string(append(b, '"'))
}

// TestKeyedPreview: preview says a value was found by its key.
func TestKeyedPreview(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [redact]}`)
	pl := compileOutput(t, e, p)
	doc, err := jsondoc.Parse([]byte(`{"structuredContent":{"firstName":"Alice","bsn":123456782}}`))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]detect.Basis{}
	for _, d := range e.PayloadDetections(pl, doc, jsondoc.Root, ToolResult) {
		found[d.Path] = d.Basis
	}
	if found["structuredContent.firstName"] != detect.BasisKey || found["structuredContent.bsn"] != detect.BasisKey {
		t.Errorf("preview: %v", found)
	}
}

// A step whose detectors are secrets only (keyless) finds nothing by a
// member's key: what Clean settles for it holds nothing under any key
// (runString skips the keyed scan then).
func TestKeylessSteps(t *testing.T) {
	for names, want := range map[string]bool{
		"@secrets": true, "@secrets,@secrets": true,
		"": false, "@pii": false, "@secrets,phone": false, "@secrets,my_custom": false, "jwt": false,
	} {
		var list []string
		if names != "" {
			list = strings.Split(names, ",")
		}
		if got := keyless(list); got != want {
			t.Errorf("keyless(%q) = %v", names, got)
		}
	}
	_, p, _ := engineFor(t, `{name: p}`)
	ds, err := detect.NewSet(p)
	if err != nil {
		t.Fatal(err)
	}
	sel := detect.Select([]string{"@secrets"}, 0)
	keys := []string{"name", "full_name", "first_name", "last_name", "customer", "company", "address", "street", "line1",
		"house_number", "postcode", "city", "date_of_birth", "dob", "ssn", "passport", "passport_no", "bsn", "tax_id",
		"national_id", "driver_license", "iban", "account_number", "routing_number", "phone", "telefono", "order_number", "email"}
	values := []string{"Alice Martin", "SMITH, JOHN", "Jürgen", "Hauptstraße 5", "12 rue de la Paix", "10115", "Berlin",
		"1985-03-04", "04.03.1985", "123456789", "123-45-6789", "C01XTPVYZ", "123456782", "DE89370400440532013000",
		"021000021", "+44 20 7946 0958", "612345678", "AB123456C", "rssmra85t10a562s", "Pro Plan"}
	var ctxs []detect.KeyContext
	for _, member := range []string{"", "email", "street", "company"} {
		ctxs = append(ctxs, detect.KeyContext(0).Member(ds.KeyOf(member)))
	}
	for _, key := range keys {
		for _, ctx := range ctxs {
			k := ctx.Of(ds.KeyOf(key))
			for _, v := range values {
				if ds.Clean(v, &sel) {
					if found := ds.DetectKeyed(nil, v, k, sel); len(found) > 0 {
						t.Errorf("%s: %q under a secrets-only step: %v", key, v, found)
					}
				}
			}
		}
	}
}
