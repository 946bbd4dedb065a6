package detect

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// piiScanners are the scanners of pii.go, by detector name.
var piiScanners = []struct {
	name string
	scan scanFunc
}{
	{"email", builtinScan(detEmail)},
	{"phone", builtinScan(detPhone)},
	{"credit_card", builtinScan(detCard)},
	{"iban", builtinScan(detIBAN)},
	{"us_ssn", builtinScan(detSSN)},
	{"ipv4", builtinScan(detIPv4)},
	{"ipv6", builtinScan(detIPv6)},
	{"mac_address", builtinScan(detMAC)},
	{"aws_arn", builtinScan(detARN)},
}

// builtinScan is the single pass with built-in detector d alone.
func builtinScan(d int) scanFunc {
	return func(s string, dst []Span) []Span { return scanBuiltin(d, s, dst) }
}

// Edge cases behind the decisions documented in pii.go, beyond the
// corpus: each input with the exact values each detector must find.
func TestPIIEdgeCases(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		// email
		{"email", `"\u003calice@example.com\u003e"`, []string{"alice@example.com"}}, // JSON-escaped <…>
		{"email", `"line\nbob@example.com"`, []string{"bob@example.com"}},           // JSON \n, unescaped text
		{"email", "alice@example.com.", []string{"alice@example.com"}},
		{"email", "foo..bar@example.com", []string{"bar@example.com"}},
		{"email", "x.@y.com", nil},
		{"email", "https://alice@example.com/", nil},
		// Three slashes: the authority is empty and the path starts (review).
		{"email", "file:///alice@example.com", []string{"alice@example.com"}},
		{"email", "file:///home/x/bob@example.org", []string{"bob@example.org"}},
		// Userinfo only in schemes that carry a user name (review): an MCP
		// server's own scheme holds an address.
		{"email", "customers://alice.martin@example.com/profile", []string{"alice.martin@example.com"}},
		{"email", "users://bob@example.org", []string{"bob@example.org"}},
		{"email", "HTTPS://alice@example.com/", nil},
		{"email", "ssh://git@example.com/repo", nil},
		{"email", "postgres://admin@db.example.com/x", nil},
		{"email", "//alice@example.com/x", nil},
		{"email", "a@example.com@example.org", nil},
		{"email", "mailto:a@b.cd,mailto:c@d.ef", []string{"a@b.cd", "c@d.ef"}},
		{"email", "メールはalice@example.comです", []string{"alice@example.com"}},
		{"email", "«name@example.com»", []string{"name@example.com"}},
		{"email", strings.Repeat("a", 65) + "@example.com", nil},
		{"email", strings.Repeat("a", 64) + "@example.com", []string{strings.Repeat("a", 64) + "@example.com"}},
		{"email", "'alice@example.com'", []string{"alice@example.com"}},
		{"email", "x@example.com's", []string{"x@example.com"}},
		{"email", "--email=john@example.com", []string{"john@example.com"}},
		{"email", "user@sub-.example.com", nil},
		{"email", "émile@example.com", []string{"émile@example.com"}},
		{"email", "×alice@example.com", []string{"alice@example.com"}}, // × is not a letter
		{"email", "user@example.com:8080", nil},
		{"email", "alice@example.com: hello", []string{"alice@example.com"}},

		// phone
		{"phone", "415 555 0132", []string{"415 555 0132"}},
		{"phone", "(415) 555-0132x", nil},
		{"phone", "0 20 7946 0958", nil},
		{"phone", "2024-01-15 020 7946 0958", []string{"020 7946 0958"}},
		{"phone", "12:30 415 555 0132", []string{"415 555 0132"}},
		{"phone", "020-7946-0958,020-7946-0959", []string{"020-7946-0958", "020-7946-0959"}},
		{"phone", "415-555-0132 415-555-0133", []string{"415-555-0132", "415-555-0133"}},
		{"phone", "+49 (0) 30 123456", []string{"+49 (0) 30 123456"}},
		{"phone", "(+44) 20 7946 0958", []string{"(+44) 20 7946 0958"}},
		{"phone", "1 (800) 555-0199", []string{"1 (800) 555-0199"}},
		{"phone", "415.555.0132.5", nil},
		{"phone", "0123456789", nil},
		{"phone", "01234 567890", []string{"01234 567890"}},
		{"phone", "02134-5678", nil}, // ZIP+4
		{"phone", "10 20 30 40 50", nil},
		{"phone", "+1 (415", nil},
		{"phone", "tel: 0171/1234567", []string{"0171/1234567"}},
		{"phone", "01/02/2024 12", nil},
		{"phone", "01.02.2024 10.30", nil},
		{"phone", "415-555-0132:5", nil},
		{"phone", `note\n415-555-0132`, []string{"415-555-0132"}},
		{"phone", "é415-555-0132", nil},
		{"phone", "DE89 3704 0044 0532 0130 00", nil}, // "0044 0532 0130 00" would pass alone
		{"phone", "ID7 020 7946 0958", nil},
		// A number in brackets is judged as the same number without them
		// (the '(' of a whole number is not an area code's).
		{"phone", "連絡先 (090-1234-5678)", []string{"090-1234-5678"}},
		{"phone", "call (+44 20 7946 0958) now", []string{"+44 20 7946 0958"}},
		{"phone", "(415) 555-0132", []string{"(415) 555-0132"}},
		{"phone", "(2024-01-15)", nil},
		{"phone", "(415 555", nil},
		// Spans of years are not Hong Kong's dddd-dddd.
		{"phone", "seasons 2019-2020 and 1998-2004", nil},
		{"phone", "Tel: 2345-6789", []string{"2345-6789"}},

		// credit_card
		{"credit_card", "4111 1111 1111 1111 12/25", []string{"4111 1111 1111 1111"}},
		{"credit_card", "2 4111 1111 1111 1111", []string{"4111 1111 1111 1111"}},
		{"credit_card", "4111111111111111,4012888888881881", []string{"4111111111111111", "4012888888881881"}},
		{"credit_card", "4111 1111 1111 1111 4111 1111 1111 1111", []string{"4111 1111 1111 1111", "4111 1111 1111 1111"}},
		{"credit_card", "4111-1111 1111-1111", []string{"4111-1111 1111-1111"}},
		{"credit_card", "é4111111111111111", nil},
		{"credit_card", "４１１１１１１１１１１１１１１１", []string{"４１１１１１１１１１１１１１１１"}}, // read as a reader reads them
		{"credit_card", "12-4111-1111-1111-1111", nil},

		// iban
		{"iban", "DE89 3704 0044 0532 0130 00 EUR", []string{"DE89 3704 0044 0532 0130 00"}},
		{"iban", "DE89 3704 0044 0532 0130 0012", nil},
		{"iban", "DE89370400440532013000.", []string{"DE89370400440532013000"}},
		{"iban", "de89 3704 0044 0532 0130 00", nil}, // upper case only
		{"iban", "GB29nwbk60161331926819", nil},
		{"iban", "DE01370400440532013000", nil},

		// us_ssn
		{"us_ssn", "078-05-1120 219-09-9999", []string{"078-05-1120", "219-09-9999"}},
		{"us_ssn", "123-45-6789-", []string{"123-45-6789"}},
		{"us_ssn", "--123-45-6789", []string{"123-45-6789"}},

		// ipv4
		{"ipv4", "1.2.3.4", []string{"1.2.3.4"}},
		{"ipv4", "1.2.3.4-rc1", nil},
		{"ipv4", "Version 10.2.3.4 released", nil},
		{"ipv4", "version: 10.0.19041.1", nil},
		{"ipv4", "Build #4.0.3.1 passed", nil},
		{"ipv4", "Die Version 5.1.2.3 ist da", nil},
		{"ipv4", "la versión 1.2.3.4", nil},
		{"ipv4", "Firmware v 2.1.0.4", nil},
		{"ipv4", "Reverse proxy 10.2.3.4", []string{"10.2.3.4"}},
		{"ipv4", "Server 10.2.3.4 is down", []string{"10.2.3.4"}},
		{"ipv4", "10.0.0.1-10.0.0.9", []string{"10.0.0.1", "10.0.0.9"}},
		{"ipv4", "10.0.0.1:8080/path", []string{"10.0.0.1"}},
		{"ipv4", "::ffff:1.2.3.4", []string{"1.2.3.4"}}, // the ipv6 detection wins the overlap

		// ipv6
		{"ipv6", "[::1]:8080", []string{"::1"}},
		{"ipv6", "a[::1]", nil},
		{"ipv6", "1::2", nil},
		{"ipv6", "100::1", []string{"100::1"}},
		{"ipv6", "fe80::1%25eth0", []string{"fe80::1"}},
		{"ipv6", "2001:db8::1::", nil},
		{"ipv6", "key:2001:db8::1", []string{"2001:db8::1"}},
		{"ipv6", "2001:db8::1.2.3", nil},

		// mac_address
		{"mac_address", "00:1a:2b:3c:4d:5e:", []string{"00:1a:2b:3c:4d:5e"}},
		{"mac_address", "aa-bb-cc-dd-ee-ff 00:11:22:33:44:55 66-77-88-99-aa-bb", []string{"aa-bb-cc-dd-ee-ff", "00:11:22:33:44:55", "66-77-88-99-aa-bb"}},

		// aws_arn
		{"aws_arn", "arn:aws:s3:::bucket/key with space", []string{"arn:aws:s3:::bucket/key"}},
		{"aws_arn", `"arn:aws:iam::123456789012:role/x\"`, []string{"arn:aws:iam::123456789012:role/x"}},
		{"aws_arn", "arn:aws:s3:::b”", []string{"arn:aws:s3:::b"}},
		{"aws_arn", "arn:aws:lambda:us-east-1:123456789012:function:f:$LATEST", []string{"arn:aws:lambda:us-east-1:123456789012:function:f:$LATEST"}},
		{"aws_arn", "arn:aws:s3:::a}b", []string{"arn:aws:s3:::a"}},
	}
	for _, c := range cases {
		var got []string
		for _, d := range Builtin(c.name, c.in) {
			got = append(got, c.in[d.Start:d.End])
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", c.want) {
			t.Errorf("%s %q: got %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

func TestIBANRegistry(t *testing.T) {
	n := 0
	for i, l := range ibanLength {
		if l == 0 {
			continue
		}
		n++
		if l < 15 || l > 34 {
			t.Errorf("%c%c: length %d", 'A'+i/26, 'A'+i%26, l)
		}
	}
	if n < 89 {
		t.Errorf("%d countries, want the whole registry", n)
	}
	for _, c := range []struct {
		cc string
		l  uint8
	}{{"DE", 22}, {"GB", 22}, {"FR", 27}, {"NO", 15}, {"RU", 33}, {"LC", 32}, {"BE", 16}} {
		if got := ibanLength[int(c.cc[0]-'A')*26+int(c.cc[1]-'A')]; got != c.l {
			t.Errorf("%s: length %d, want %d", c.cc, got, c.l)
		}
	}
}

// The scanners append to dst without allocating.
func TestPIINoAllocs(t *testing.T) {
	text := piiBenchText(64 << 10)
	dst := make([]Span, 0, 4096)
	for _, sc := range piiScanners {
		if n := testing.AllocsPerRun(5, func() { dst = sc.scan(text, dst[:0]) }); n != 0 {
			t.Errorf("%s: %v allocations per scan", sc.name, n)
		}
	}
}

// No input makes a scanner slower than linear: every scanner gets through
// 1 MB of each repeated unit, milliseconds of work. A quadratic walk would
// need about 10^12 steps, which the test binary's timeout stops; there is
// no wall-clock limit here, which a busy machine would trip.
func TestPIIScannersLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	units := []string{"1", "1 ", "1-", "1.", "1:", "1/", "(1) ", "+1 ", "+", "(", "(+1", "12 (34", "a:", "::", ":1", "a::1:",
		"@", "a@", "a@b.", "a.", "x@y.z ", "a'", "a:b@", "//a:", "\\n", "DE89", "DE89 ", "D", "00:", "0-", "ab:cd:", "12-34-",
		"1.2.3.4.", "123-45-", "arn:", "arn:aws:", "arn:aws:s3:::", "arn:aws:s3:::{", "é", "\xc3"}
	for _, u := range units {
		s := strings.Repeat(u, (1<<20)/len(u))
		for _, sc := range piiScanners {
			sc.scan(s, nil)
		}
	}
}

// BenchmarkPII runs the nine detectors over about 1 MB of mixed JSON, logs
// and prose (all: the nine in one pass, as Detect runs them; then each
// alone); the figure that matters in Envoy is the one from
// scripts/bench-wasm-go.sh.
func BenchmarkPII(b *testing.B) {
	text := piiBenchText(1 << 20)
	dst := make([]Span, 0, 1<<14)
	// Building the text leaves garbage; in wasm a collection inside the
	// timed loop (stop-the-world, single-threaded) would double a figure.
	runtime.GC()
	b.Run("all", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			dst = scanGroup("pii", text, dst[:0])
		}
	})
	for _, sc := range piiScanners {
		b.Run(sc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				dst = sc.scan(text, dst[:0])
			}
		})
	}
}

// piiBenchText builds about size bytes of realistic mixed text: JSON
// records (names, emails, phones, addresses, order ids, timestamps, UUIDs,
// amounts, prose notes), log lines and paragraphs, with a sprinkling of
// cards, IBANs, SSNs, MACs, IPv6 addresses and ARNs.
func piiBenchText(size int) string {
	r := rand.New(rand.NewPCG(1, 2))
	first := []string{"Alice", "Bob", "Carol", "Dmitri", "Émile", "Fatima", "Grace", "Hiroshi", "Ingrid", "José", "Kwame", "Lena", "Müller", "Noor", "Olivia", "Priya"}
	last := []string{"Smith", "Jones", "García", "Nguyen", "Okafor", "Schmidt", "Rossi", "Kowalski", "Tanaka", "O'Brien", "Dubois", "Andersson"}
	domains := []string{"example.com", "mail.example.org", "example.co.uk", "corp.example.net", "example.de"}
	streets := []string{"Main Street", "Hauptstraße", "Rue de la Paix", "Via Roma", "High Street", "Elm Avenue"}
	cities := []string{"Springfield, IL 62704", "10115 Berlin", "75002 Paris", "00184 Roma", "London SW1A 1AA", "Portland, OR 97205"}
	phones := []string{"+1 415 555 %04d", "(212) 555-%04d", "020 7946 %04d", "+49 30 123%04d", "06-1234%04d", "+33 1 23 45 %02d %02d"}
	words := strings.Fields("the customer asked us to deliver the parcel after five and to call before arriving " +
		"order was delayed because of weather in the region refund issued partially see ticket " +
		"payment failed twice then succeeded with another method version 2.4.1 of the app was used " +
		"shipping label printed at 10:42 warehouse B aisle 7 item count matches invoice total")
	prose := func(n int) string {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(words[r.IntN(len(words))])
		}
		return sb.String()
	}
	uuid := func() string {
		return fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Uint64()&(1<<48-1))
	}
	ts := func() string {
		return fmt.Sprintf("2024-%02d-%02dT%02d:%02d:%02d.%03dZ", 1+r.IntN(12), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1000))
	}
	var sb strings.Builder
	for sb.Len() < size {
		fn, ln := first[r.IntN(len(first))], last[r.IntN(len(last))]
		ph := phones[r.IntN(len(phones))]
		var phone string
		if strings.Count(ph, "%") == 2 {
			phone = fmt.Sprintf(ph, r.IntN(100), r.IntN(100))
		} else {
			phone = fmt.Sprintf(ph, r.IntN(10000))
		}
		fmt.Fprintf(&sb, `{"id":"ord_%05d-%05d","uuid":"%s","created_at":"%s","customer":{"name":"%s %s","email":"%s.%s@%s","phone":"%s",`+
			`"address":"%d %s, %s"},"items":[{"sku":"SKU-%05d","qty":%d,"price":%d.%02d}],"status":"shipped","ip":"10.%d.%d.%d",`+
			`"notes":"%s"}`+"\n",
			r.IntN(100000), r.IntN(100000), uuid(), ts(), fn, ln, strings.ToLower(fn), strings.ToLower(ln), domains[r.IntN(len(domains))], phone,
			1+r.IntN(200), streets[r.IntN(len(streets))], cities[r.IntN(len(cities))], r.IntN(100000), 1+r.IntN(5), r.IntN(500), r.IntN(100),
			r.IntN(256), r.IntN(256), r.IntN(256), prose(8+r.IntN(24)))
		fmt.Fprintf(&sb, "%s INFO request_id=%s path=/api/v1/orders/%d status=200 latency_ms=%d.%d client=203.0.113.%d ua=\"Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0.6099.109\"\n",
			ts(), uuid(), r.IntN(1000000), r.IntN(500), r.IntN(10), r.IntN(256))
		switch r.IntN(8) {
		case 0:
			sb.WriteString("Payment with card 4111 1111 1111 1111 was declined; IBAN DE89 3704 0044 0532 0130 00 was used instead.\n")
		case 1:
			sb.WriteString("SSN on file: 078-05-1120. Device 00:1a:2b:3c:4d:5e connected from 2001:db8::1 via arn:aws:iam::123456789012:role/edge.\n")
		case 2:
			fmt.Fprintf(&sb, "sha256=%016x%016x%016x%016x build 1.%d.%d\n", r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64(), r.IntN(20), r.IntN(100))
		}
		sb.WriteString(prose(20 + r.IntN(40)))
		sb.WriteString(".\n")
	}
	return sb.String()
}

// Per-byte references for the scanners that skip ahead by probing: every
// run (phone, credit_card) or every position (iban) is tried.
func refPhone(s string, dst []Span) []Span {
	var g [phoneMaxGroups]phoneGroup
	for i := 0; i < len(s); {
		if !piiDigit(s[i]) {
			i++
			continue
		}
		i, dst = phoneRun(s, i, &g, dst, defaultPhoneRegions)
	}
	return dst
}

func refCreditCard(s string, dst []Span) []Span {
	var g [ccMaxGroups]ccGroup
	for i := 0; i < len(s); {
		if !piiDigit(s[i]) {
			i++
			continue
		}
		i, dst = ccRun(s, i, &g, dst)
	}
	return dst
}

func refIBAN(s string, dst []Span) []Span {
	for a := 0; a+3 < len(s); a++ {
		if piiIs(s[a], pcUpper) && piiIs(s[a+1], pcUpper) && piiDigit(s[a+2]) && piiDigit(s[a+3]) {
			if e := ibanAt(s, a); e > 0 {
				dst = append(dst, Span{a, e})
				a = e - 1
			}
		}
	}
	return dst
}

var piiProbed = []struct {
	name      string
	scan, ref scanFunc
}{
	{"phone", builtinScan(detPhone), refPhone},
	{"credit_card", builtinScan(detCard), refCreditCard},
	{"iban", builtinScan(detIBAN), refIBAN},
}

func piiSameAsRef(t *testing.T, s string) {
	t.Helper()
	for _, p := range piiProbed {
		got, want := p.scan(s, nil), p.ref(s, nil)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: probing scan %v, per-byte reference %v, in %q", p.name, got, want, s)
		}
	}
}

// The probing scanners find exactly what a per-byte scan finds.
func TestPIIProbesMatchReference(t *testing.T) {
	piiSameAsRef(t, piiBenchText(256<<10))
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "0123456789012345678901234567890123456789 -.()+/ DEGBNL x:é::--abcdef"
	for range 20000 {
		b := make([]byte, 1+r.IntN(80))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		piiSameAsRef(t, string(b))
	}
	for _, v := range []string{"DE89 3704 0044 0532 0130 00", "+44 (0)20 7946 0958", "4111 1111 1111 1111", "(415) 555-0132", "GB29NWBK60161331926819", "00:1a:2b:3c:4d:5e", "AA-BB-CC-DD-EE-FF"} {
		for k := range 40 {
			piiSameAsRef(t, strings.Repeat("1 ", k)+v+strings.Repeat(" 2", k%7))
			piiSameAsRef(t, strings.Repeat("x", k)+" "+v)
		}
	}
}

// FuzzPII: no panics, spans in range, non-empty, ordered, non-overlapping
// and on rune boundaries, and dst's existing entries left alone.
func FuzzPII(f *testing.F) {
	for _, sc := range piiScanners {
		fh, err := os.Open(filepath.Join(corpusDir, sc.name+".txt"))
		if err != nil {
			f.Fatal(err)
		}
		s := bufio.NewScanner(fh)
		for s.Scan() {
			if line := s.Text(); len(line) > 2 && line[0] != '#' {
				f.Add(strings.NewReplacer("«", "", "»", "").Replace(line[2:]))
			}
		}
		fh.Close()
	}
	f.Add("\xc3@\xc3\xa9.com a\xa9b@example.com \xe4\xb8@x.io")
	f.Add("0@0.AA\x8f") // a span must not end before a stray continuation byte
	f.Add("+(((1 (2 (3 4) 5-6-7-8-9-0 ::: ..1.2.3.4.. arn:aws:s3:::{{}}")
	f.Fuzz(func(t *testing.T, s string) {
		piiSameAsRef(t, s)
		sentinel := Span{-7, -3}
		for _, sc := range piiScanners {
			out := sc.scan(s, []Span{sentinel})
			if len(out) == 0 || out[0] != sentinel {
				t.Fatalf("%s: dst prefix changed: %v", sc.name, out)
			}
			prev := 0
			for _, sp := range out[1:] {
				if sp.Start < prev || sp.Start >= sp.End || sp.End > len(s) {
					t.Fatalf("%s: bad span %v (prev end %d, len %d) in %q", sc.name, sp, prev, len(s), s)
				}
				if !utf8.RuneStart(s[sp.Start]) || sp.End < len(s) && !utf8.RuneStart(s[sp.End]) {
					t.Fatalf("%s: span %v splits a character in %q", sc.name, sp, s)
				}
				prev = sp.End
			}
		}
	})
}
