package transforms

import (
	"encoding/base64"
	"flag"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/benchdata"
	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/policy"
	"github.com/cloudg/mcp-privacy/transforms/detect"
	"github.com/cloudg/mcp-privacy/transforms/vault"
)

// The mixed corpus, testdata/corpus/mixed.txt: about 1 MB of what tools
// return, for the throughput benchmarks. Documents are separated by a line
// holding only a form feed (mixedSep); each is one string a transform
// would scan: a JSON tool result, a block of log lines, prose, a CSV
// export, a source or config file. Most of it is clean; personal data and
// secrets occur at the density of real tool output (the figures are in
// TestMixedCorpus). Every value is fictional: documentation ranges for
// addresses, 555 and Ofcom drama numbers for phones, test card numbers,
// random tokens that are only well-formed.
//
// genMixedCorpus writes it deterministically (its own random generator, so
// a Go release cannot change it):
//
//	go test -run TestMixedCorpus ./transforms/ -update-corpus
const (
	mixedCorpusPath = "../testdata/corpus/mixed.txt"
	mixedSep        = benchdata.MixedSep
	mixedSize       = 1_000_000
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite testdata/corpus/mixed.txt")

// mixedDetections pins what the detectors find in the corpus: per detector
// the number of detections of Detect with every detector, over each
// document. An optimisation of the scanners must not change it.
var mixedDetections = map[string]int{
	"email": 931, "phone": 268, "credit_card": 5, "iban": 32, "us_ssn": 21, "ipv4": 690, "ipv6": 70, "mac_address": 48, "aws_arn": 51,
	"aws_access_key": 6, "github_token": 5, "slack_token": 7, "stripe_key": 3, "google_api_key": 0, "jwt": 5, "private_key": 1,
	"url_credentials": 21, "bearer_token": 13, "generic_secret": 21,
	// The families (manual 12.9): the corpus's customers' names (CSV rows,
	// tickets, JSON records, signatures), its addresses' street lines and
	// the birth dates of its verification requests; it holds no national
	// identifier or passport.
	"person": 872, "street_address": 133, "date_of_birth": 21,
	"uk_nino": 0, "uk_nhs": 0, "de_tax_id": 0, "fr_nir": 0, "es_dni": 0, "es_nie": 0, "it_fiscal_code": 0, "nl_bsn": 0,
	"be_national_number": 0, "pl_pesel": 0, "se_personnummer": 0, "fi_hetu": 0, "dk_cpr": 0, "br_cpf": 0, "br_cnpj": 0,
	"in_aadhaar": 0, "in_pan": 0, "ca_sin": 0, "au_tfn": 0, "au_medicare": 0, "sg_nric": 0, "jp_my_number": 0, "us_itin": 0,
	"passport": 0, "aba_routing": 0, "bank_account": 0, "national_id": 0, "tax_id": 0, "driver_license": 0,
}

// mixedFingerprint is FNV-64a over every detection (document, detector,
// start, end) in order.
const mixedFingerprint = 0xa3dad13bc116582d

func readMixed(tb testing.TB) (whole string, docs []string) {
	tb.Helper()
	whole, docs, err := benchdata.ReadMixed(mixedCorpusPath)
	if err != nil {
		tb.Fatal(err)
	}
	return whole, docs
}

func mixedInputs(tb testing.TB) []benchdata.MixedInput {
	whole, docs := readMixed(tb)
	return benchdata.MixedInputs(whole, docs)
}

func allDetectors(tb testing.TB) *detect.Set {
	tb.Helper()
	ds, err := detect.NewSet(&policy.Policy{})
	if err != nil {
		tb.Fatal(err)
	}
	return ds
}

func TestMixedCorpus(t *testing.T) {
	gen := genMixedCorpus()
	if *updateCorpus {
		if err := os.MkdirAll(filepath.Dir(mixedCorpusPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(mixedCorpusPath, []byte(gen), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	whole, docs := readMixed(t)
	if whole != gen {
		t.Fatalf("%s differs from genMixedCorpus: run with -update-corpus", mixedCorpusPath)
	}
	ds, sel := allDetectors(t), detect.Select(nil, 0)
	counts := map[string]int{}
	h := fnv.New64a()
	n := 0
	for i, doc := range docs {
		for _, d := range ds.Detect(doc, sel) {
			counts[d.Detector]++
			n++
			fmt.Fprintf(h, "%d %s %d %d\n", i, d.Detector, d.Start, d.End)
		}
	}
	t.Logf("%d documents, %d bytes, %d detections (one per %d bytes): %v", len(docs), len(whole), n, len(whole)/max(n, 1), counts)
	if *updateCorpus {
		t.Logf("pin: mixedDetections = %#v; mixedFingerprint = %#x", counts, h.Sum64())
		return
	}
	// Every detector is pinned: an empty or partial pin checks nothing.
	for _, b := range policy.BuiltinDetectors {
		if pinned, ok := mixedDetections[b.Name]; !ok || counts[b.Name] != pinned {
			t.Errorf("%s: %d detections in the mixed corpus, pinned %d (in the pin: %v)", b.Name, counts[b.Name], pinned, ok)
		}
	}
	if h.Sum64() != mixedFingerprint {
		t.Errorf("fingerprint of the detections %#x, pinned %#x", h.Sum64(), uint64(mixedFingerprint))
	}
}

// BenchmarkDetectMixed: Detect with every detector over the mixed corpus
// (BenchmarkDetectMixedFormer in package detect: the former drivers).
func BenchmarkDetectMixed(b *testing.B) {
	ds, sel := allDetectors(b), detect.Select(nil, 0)
	benchMixed(b, func(s string) []detect.Detection { return ds.Detect(s, sel) }, false)
}

// BenchmarkScanPseudonymise: what the pseudonymise transform does to each
// string: Detect with every detector, then Replace every detection by its
// pseudonym (Pseudonymizer, global namespace, no vault).
func BenchmarkScanPseudonymise(b *testing.B) {
	ds, sel := allDetectors(b), detect.Select(nil, 0)
	benchMixed(b, func(s string) []detect.Detection { return ds.Detect(s, sel) }, true)
}

// benchMixed runs detect over the mixed corpus's inputs, reporting the
// detections; with pseudonymise every detection is also replaced by its
// pseudonym. Package detect has a copy for the former drivers.
func benchMixed(b *testing.B, scan func(string) []detect.Detection, pseudonymise bool) {
	p := vault.NewPseudonymizer([]byte("benchmark vault key, 32 bytes.."))
	with := func(d detect.Detection, v string) string { return p.Pseudonym("", d.Label, v) }
	benchdata.RunMixed(b, mixedInputs(b), func(s string) int {
		ds := scan(s)
		if pseudonymise {
			detect.Replace(s, ds, with)
		}
		return len(ds)
	}, !pseudonymise)
}

// BenchmarkPseudonym is the cost of one pseudonym, to split the figures
// above into scanning and pseudonymising.
func BenchmarkPseudonym(b *testing.B) {
	p := vault.NewPseudonymizer([]byte("benchmark vault key, 32 bytes.."))
	b.ReportAllocs()
	for b.Loop() {
		p.Pseudonym("", "EMAIL", "alice.smith@example.com")
	}
}

// ---------------------------------------------------------------- generator

// mixRand is splitmix64: fixed forever, unlike math/rand's helpers.
type mixRand struct{ x uint64 }

func (r *mixRand) next() uint64 {
	r.x += 0x9e3779b97f4a7c15
	z := r.x
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (r *mixRand) intn(n int) int { return int(r.next() % uint64(n)) }

// chance is true with probability 1/n.
func (r *mixRand) chance(n int) bool { return r.intn(n) == 0 }

func (r *mixRand) pick(xs []string) string { return xs[r.intn(len(xs))] }

func (r *mixRand) str(alpha string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alpha[r.intn(len(alpha))]
	}
	return string(b)
}

func (r *mixRand) digits(n int) string { return r.str("0123456789", n) }

const (
	mxB62   = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	mxHex   = "0123456789abcdef"
	mxUpper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
)

var (
	mxFirst   = strings.Fields("Alice Bob Carol Dmitri Emma Fatima Grace Hiroshi Ingrid José Kwame Lena Mateo Noor Olivia Priya Quentin Rosa Sven Tomás Uma Viktor Wei Yusuf Zoë")
	mxLast    = strings.Fields("Smith Jones García Nguyen Okafor Schmidt Rossi Kowalski Tanaka Dubois Andersson Müller Silva Novak Haddad Kim Fischer Moreau Costa Ivanova")
	mxDomains = strings.Fields("example.com example.org example.net mail.example.com corp.example.net example.co.uk example.de")
	mxWords   = strings.Fields(`the a of to and in is that for it with as was on be by this are from at or an have not but
		which they you were their has one all would there been if more when will about up out do so can what no just into
		than them some could other only then its also after use two how our work first well way even new want because any
		these give day most us customer order request service deploy cluster release build test config update error value
		team review change issue report data user account payment invoice shipment support ticket feature branch merge
		pipeline latency timeout retry cache database query index schema migration backup restore monitor alert metric`)
	mxSentenceEnd = []string{".", ".", ".", "?", "!", ":", ";"}
)

func (r *mixRand) name() (string, string) { return r.pick(mxFirst), r.pick(mxLast) }

func mxASCII(s string) string {
	return strings.NewReplacer("é", "e", "á", "a", "ü", "u", "ë", "e").Replace(s)
}

func (r *mixRand) email() string {
	f, l := r.name()
	f, l = strings.ToLower(mxASCII(f)), strings.ToLower(mxASCII(l))
	switch r.intn(4) {
	case 0:
		return f + "." + l + "@" + r.pick(mxDomains)
	case 1:
		return f[:1] + l + "@" + r.pick(mxDomains)
	case 2:
		return f + "@" + r.pick(mxDomains)
	}
	return f + "_" + l + r.digits(2) + "@" + r.pick(mxDomains)
}

func (r *mixRand) phone() string {
	switch r.intn(7) {
	case 0:
		return "(" + r.pick([]string{"212", "415", "312", "617", "206"}) + ") 555-01" + r.digits(2)
	case 1:
		return "+1 " + r.pick([]string{"212", "415", "312"}) + "-555-01" + r.digits(2)
	case 2:
		return "020 7946 0" + r.digits(3)
	case 3:
		return "+44 20 7946 0" + r.digits(3)
	case 4:
		return "+49 30 " + r.digits(7)
	case 5:
		return "+33 1 23 45 " + r.digits(2) + " " + r.digits(2)
	}
	return r.pick([]string{"415", "212", "646"}) + ".555.01" + r.digits(2)
}

func luhnDigit(body string) byte {
	sum := 0
	for i := len(body) - 1; i >= 0; i-- {
		d := int(body[i] - '0')
		if (len(body)-1-i)%2 == 0 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return byte('0' + (10-sum%10)%10)
}

func (r *mixRand) card() string {
	var n string
	switch r.intn(3) {
	case 0:
		n = "4" + r.digits(14)
	case 1:
		n = "5" + string(rune('1'+r.intn(5))) + r.digits(13)
	default:
		n = "37" + r.digits(12)
	}
	n += string(luhnDigit(n))
	if len(n) == 16 && r.chance(2) {
		sep := r.pick([]string{" ", "-"})
		return n[:4] + sep + n[4:8] + sep + n[8:12] + sep + n[12:]
	}
	return n
}

func (r *mixRand) iban() string {
	var cc, bban string
	switch r.intn(4) {
	case 0:
		cc, bban = "DE", r.digits(18)
	case 1:
		cc, bban = "GB", r.str(mxUpper, 4)+r.digits(14)
	case 2:
		cc, bban = "FR", r.digits(23)
	default:
		cc, bban = "NL", r.str(mxUpper, 4)+r.digits(10)
	}
	rem := 0
	for _, c := range bban + cc + "00" {
		if c >= 'A' {
			rem = (rem*100 + int(c-'A'+10)) % 97
		} else {
			rem = (rem*10 + int(c-'0')) % 97
		}
	}
	s := cc + fmt.Sprintf("%02d", 98-rem) + bban
	if r.chance(2) {
		var b strings.Builder
		for i := 0; i < len(s); i += 4 {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(s[i:min(i+4, len(s))])
		}
		return b.String()
	}
	return s
}

func (r *mixRand) ssn() string {
	return fmt.Sprintf("%03d-%02d-%04d", 1+r.intn(665), 1+r.intn(99), 1+r.intn(9999))
}

func (r *mixRand) ipv4() string {
	switch r.intn(4) {
	case 0:
		return fmt.Sprintf("10.%d.%d.%d", r.intn(256), r.intn(256), 1+r.intn(254))
	case 1:
		return fmt.Sprintf("192.168.%d.%d", r.intn(256), 1+r.intn(254))
	case 2:
		return fmt.Sprintf("203.0.113.%d", 1+r.intn(254))
	}
	return fmt.Sprintf("198.51.100.%d", 1+r.intn(254))
}

func (r *mixRand) ipv6() string {
	if r.chance(2) {
		return fmt.Sprintf("2001:db8:%x:%x::%x", r.intn(1<<16), r.intn(1<<16), 1+r.intn(1<<16-1))
	}
	return fmt.Sprintf("fe80::%x:%xff:fe%02x:%x", r.intn(1<<16), r.intn(256), r.intn(256), 1+r.intn(1<<16-1))
}

func (r *mixRand) mac() string {
	sep := ":"
	if r.chance(4) {
		sep = "-"
	}
	p := make([]string, 6)
	for i := range p {
		p[i] = r.str(mxHex, 2)
	}
	return strings.Join(p, sep)
}

func (r *mixRand) account() string { return "1234" + r.digits(8) }

func (r *mixRand) arn() string {
	switch r.intn(4) {
	case 0:
		return "arn:aws:iam::" + r.account() + ":role/" + r.pick([]string{"deploy", "ci-runner", "lambda-exec", "readonly"})
	case 1:
		return "arn:aws:s3:::" + r.pick([]string{"acme-logs", "acme-backups", "build-artifacts"}) + "/" + r.pick(mxWords) + ".json"
	case 2:
		return "arn:aws:lambda:us-east-1:" + r.account() + ":function:" + r.pick(mxWords) + "-handler"
	}
	return "arn:aws:sqs:eu-west-1:" + r.account() + ":" + r.pick(mxWords) + "-queue"
}

func (r *mixRand) uuid() string {
	return r.str(mxHex, 8) + "-" + r.str(mxHex, 4) + "-4" + r.str(mxHex, 3) + "-a" + r.str(mxHex, 3) + "-" + r.str(mxHex, 12)
}

func (r *mixRand) ts() string {
	return fmt.Sprintf("2024-%02d-%02dT%02d:%02d:%02d.%03dZ", 1+r.intn(12), 1+r.intn(28), r.intn(24), r.intn(60), r.intn(60), r.intn(1000))
}

func (r *mixRand) date() string { return fmt.Sprintf("2024-%02d-%02d", 1+r.intn(12), 1+r.intn(28)) }

func (r *mixRand) sha() string { return r.str(mxHex, 40) }

func (r *mixRand) version() string {
	return fmt.Sprintf("%d.%d.%d", r.intn(5), r.intn(30), r.intn(20))
}

func (r *mixRand) awsKey() string { return "AKIA" + r.str("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16) }

func (r *mixRand) githubToken() string {
	x := r.str(mxB62, 30)
	v := crc32.ChecksumIEEE([]byte(x))
	var c [6]byte
	for i := 5; i >= 0; i-- {
		c[i] = mxB62[v%62]
		v /= 62
	}
	return "ghp_" + x + string(c[:])
}

func (r *mixRand) slackToken() string {
	return "xoxb-" + r.digits(12) + "-" + r.digits(13) + "-" + r.str(mxB62, 24)
}

func (r *mixRand) stripeKey() string { return "sk_live_" + r.str(mxB62, 24) }

func (r *mixRand) googleKey() string { return "AIzaSy" + r.str(mxB62+"-_", 33) }

func (r *mixRand) jwt() string {
	h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"RS256","typ":"JWT","kid":"` + r.str(mxHex, 8) + `"}`))
	p := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"` + r.uuid() + `","iat":17` + r.digits(8) + `,"scope":"read write"}`))
	return h + "." + p + "." + r.str(mxB62+"-_", 86)
}

func (r *mixRand) pem() string {
	var b strings.Builder
	b.WriteString("-----BEGIN RSA PRIVATE KEY-----\n")
	for range 12 {
		b.WriteString(r.str(mxB62+"+/", 64) + "\n")
	}
	b.WriteString(r.str(mxB62+"+/", 24) + "==\n-----END RSA PRIVATE KEY-----")
	return b.String()
}

func (r *mixRand) password() string {
	return r.str("abcdefghjkmnpqrstuvwxyz", 5) + r.digits(3) + r.pick([]string{"!", "#", "+", "%"}) + r.str(mxB62, 5)
}

func mxCap(w string) string { return strings.ToUpper(w[:1]) + w[1:] }

func (r *mixRand) sentence() string {
	n := 6 + r.intn(14)
	w := make([]string, n)
	for i := range w {
		w[i] = r.pick(mxWords)
	}
	w[0] = mxCap(w[0])
	return strings.Join(w, " ") + r.pick(mxSentenceEnd)
}

func (r *mixRand) paragraph(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = r.sentence()
	}
	return strings.Join(s, " ")
}

func jsonString(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(s)
}

// The document kinds, each a function of the generator.

func (r *mixRand) docCRM() string {
	var b strings.Builder
	b.WriteString(`{"object":"list","data":[`)
	n := 3 + r.intn(8)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		f, l := r.name()
		fmt.Fprintf(&b, `{"id":"cus_%s","name":"%s %s","email":"%s",`, r.str(mxB62, 14), f, l, r.email())
		if r.chance(2) {
			fmt.Fprintf(&b, `"phone":"%s",`, r.phone())
		}
		fmt.Fprintf(&b, `"created":%d,"currency":"%s","balance":%d,"delinquent":%t,"address":{"line1":"%d %s","city":"%s","postal_code":"%s","country":"%s"},`,
			1700000000+r.intn(30000000), r.pick([]string{"usd", "eur", "gbp"}), r.intn(100000), r.chance(5),
			1+r.intn(300), r.pick([]string{"Main Street", "High Street", "Elm Avenue", "Rue de la Paix"}),
			r.pick([]string{"Springfield", "Berlin", "Paris", "London", "Portland"}), r.digits(5), r.pick([]string{"US", "DE", "FR", "GB"}))
		fmt.Fprintf(&b, `"metadata":{"plan":"%s","seats":"%d","signup_source":"%s"},"notes":"%s"}`,
			r.pick([]string{"team", "business", "enterprise"}), 1+r.intn(200), r.pick([]string{"web", "sales", "partner"}), jsonString(r.paragraph(1+r.intn(3))))
	}
	fmt.Fprintf(&b, `],"has_more":%t,"url":"/v1/customers"}`, r.chance(2))
	return b.String()
}

func (r *mixRand) docIssues() string {
	var b strings.Builder
	b.WriteString("[")
	n := 2 + r.intn(6)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		num := 1000 + r.intn(9000)
		login := strings.ToLower(mxASCII(r.pick(mxFirst))) + r.digits(2)
		body := r.paragraph(2 + r.intn(6))
		if r.chance(3) {
			body += "\n\n```\n" + fmt.Sprintf("panic: runtime error: index out of range [%d] with length %d\n\ngoroutine %d [running]:\nmain.(*Server).handle(0xc000%s, {0x%s, 0x%d})\n\t/src/server.go:%d +0x%s",
				r.intn(10), r.intn(10), 1+r.intn(200), r.str(mxHex, 6), r.str(mxHex, 6), r.intn(100), 10+r.intn(400), r.str(mxHex, 3)) + "\n```"
		}
		if r.chance(12) {
			body += "\n\nRepro: `curl -H 'Authorization: Bearer " + r.str(mxB62, 40) + "' https://api.example.com/v2/items`"
		}
		fmt.Fprintf(&b, `{"number":%d,"title":"%s","state":"%s","user":{"login":"%s","id":%d},"labels":["%s","%s"],"comments":%d,"created_at":"%s","updated_at":"%s","html_url":"https://github.com/acme/platform/issues/%d","body":"%s"}`,
			num, jsonString(r.sentence()), r.pick([]string{"open", "closed"}), login, 100000+r.intn(9000000), r.pick(mxWords), r.pick(mxWords),
			r.intn(40), r.ts(), r.ts(), num, jsonString(body))
	}
	b.WriteString("]")
	return b.String()
}

func (r *mixRand) docPods() string {
	var b strings.Builder
	b.WriteString(`{"apiVersion":"v1","kind":"PodList","items":[`)
	n := 3 + r.intn(8)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		app := r.pick([]string{"api", "web", "worker", "billing", "search", "auth"})
		fmt.Fprintf(&b, `{"metadata":{"name":"%s-%s-%s","namespace":"%s","uid":"%s","resourceVersion":"%d","creationTimestamp":"%s","labels":{"app":"%s","pod-template-hash":"%s"}},`,
			app, r.str(mxHex, 10), r.str("bcdfghjklmnpqrstvwxz2456789", 5), r.pick([]string{"prod", "staging", "default"}), r.uuid(), r.intn(90000000), r.ts(), app, r.str(mxHex, 10))
		fmt.Fprintf(&b, `"spec":{"nodeName":"ip-10-0-%d-%d.ec2.internal","containers":[{"name":"%s","image":"registry.example.com/%s:%s","ports":[{"containerPort":%d,"protocol":"TCP"}],"resources":{"requests":{"cpu":"%dm","memory":"%dMi"}}}]},`,
			r.intn(256), r.intn(256), app, app, r.version(), 8000+r.intn(100), 100*(1+r.intn(9)), 128*(1+r.intn(8)))
		fmt.Fprintf(&b, `"status":{"phase":"%s","hostIP":"10.0.%d.%d","podIP":"%s","startTime":"%s","containerStatuses":[{"ready":%t,"restartCount":%d,"imageID":"registry.example.com/%s@sha256:%s%s"}]}}`,
			r.pick([]string{"Running", "Running", "Pending"}), r.intn(256), 1+r.intn(254), r.ipv4(), r.ts(), r.chance(5), r.intn(4), app, r.sha(), r.str(mxHex, 24))
	}
	b.WriteString(`]}`)
	return b.String()
}

func (r *mixRand) docSearch() string {
	var b strings.Builder
	b.WriteString(`{"query":"` + r.pick(mxWords) + " " + r.pick(mxWords) + `","results":[`)
	n := 4 + r.intn(7)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"rank":%d,"title":"%s","url":"https://docs.example.com/%s/%s-%s","snippet":"%s","score":0.%s,"published":"%s"}`,
			i+1, jsonString(r.sentence()), r.pick(mxWords), r.pick(mxWords), r.pick(mxWords), jsonString(r.paragraph(2)), r.digits(4), r.date())
	}
	fmt.Fprintf(&b, `],"took_ms":%d,"total":%d}`, r.intn(300), r.intn(100000))
	return b.String()
}

func (r *mixRand) docOrders() string {
	var b strings.Builder
	b.WriteString(`{"orders":[`)
	n := 3 + r.intn(6)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"order_id":"ORD-%s-%s","placed_at":"%s","status":"%s","total":{"amount":%d.%s,"currency":"EUR"},"items":[{"sku":"SKU-%s","qty":%d,"unit_price":%d.%s}],"payment":{"method":"card","brand":"%s","last4":"%s","exp":"%02d/%d"}`,
			r.date(), r.digits(6), r.ts(), r.pick([]string{"paid", "shipped", "refunded"}), r.intn(900), r.digits(2), r.digits(6), 1+r.intn(4), r.intn(200), r.digits(2),
			r.pick([]string{"visa", "mastercard", "amex"}), r.digits(4), 1+r.intn(12), 25+r.intn(6))
		switch {
		case r.chance(15):
			fmt.Fprintf(&b, `,"raw_pan":"%s"`, r.card())
		case r.chance(15):
			fmt.Fprintf(&b, `,"refund_iban":"%s"`, r.iban())
		}
		fmt.Fprintf(&b, `,"shipping":{"carrier":"%s","tracking":"1Z%s"}}`, r.pick([]string{"UPS", "DHL", "FedEx"}), r.str(mxUpper+"0123456789", 16))
	}
	b.WriteString(`]}`)
	return b.String()
}

func (r *mixRand) docCalendar() string {
	var b strings.Builder
	b.WriteString(`{"events":[`)
	n := 2 + r.intn(5)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"%s","summary":"%s","start":"%s","end":"%s","location":"%s","attendees":[`,
			r.str("abcdefghijklmnopqrstuv0123456789", 26), jsonString(r.sentence()), r.ts(), r.ts(), r.pick([]string{"Room 4.12", "https://meet.example.com/abc-defg-hij", "Zoom", "Berlin office"}))
		for j := range 1 + r.intn(4) {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"email":"%s","responseStatus":"%s"}`, r.email(), r.pick([]string{"accepted", "needsAction", "declined"}))
		}
		fmt.Fprintf(&b, `],"description":"%s"}`, jsonString(r.paragraph(1+r.intn(3))))
	}
	b.WriteString(`]}`)
	return b.String()
}

func (r *mixRand) docAccessLog() string {
	var b strings.Builder
	n := 10 + r.intn(30)
	for range n {
		ip := "203.0.113." + fmt.Sprint(1+r.intn(254))
		if r.chance(8) {
			ip = r.ipv6()
		}
		fmt.Fprintf(&b, "%s - - [%02d/Mar/2024:%02d:%02d:%02d +0000] \"%s /api/v%d/%s/%d HTTP/1.1\" %s %d \"-\" \"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0.%d.%d Safari/537.36\" %d.%03d\n",
			ip, 1+r.intn(28), r.intn(24), r.intn(60), r.intn(60), r.pick([]string{"GET", "GET", "POST", "PUT"}), 1+r.intn(2), r.pick(mxWords), r.intn(100000),
			r.pick([]string{"200", "200", "200", "201", "304", "404", "500"}), r.intn(50000), r.intn(7000), r.intn(200), r.intn(2), r.intn(1000))
	}
	return b.String()
}

func (r *mixRand) docAppLog() string {
	var b strings.Builder
	n := 8 + r.intn(25)
	for range n {
		lvl := r.pick([]string{"INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"})
		switch r.intn(12) {
		case 0:
			fmt.Fprintf(&b, "%s %s auth: login succeeded user=%s ip=%s session=%s\n", r.ts(), lvl, r.email(), r.ipv4(), r.str(mxHex, 32))
		case 1:
			fmt.Fprintf(&b, "%s %s dhcp: lease %s to %s (%s)\n", r.ts(), lvl, r.ipv4(), r.mac(), r.pick([]string{"printer-2f", "laptop-jd", "phone-ak"}))
		case 2:
			fmt.Fprintf(&b, "%s %s db: slow query took %dms: SELECT id, status FROM orders WHERE customer_id = %d AND created_at > '%s' LIMIT %d\n", r.ts(), lvl, 200+r.intn(3000), r.intn(1000000), r.date(), 10*(1+r.intn(10)))
		case 3:
			fmt.Fprintf(&b, "%s %s worker[%d]: job %s finished in %d.%03ds (attempt %d/%d)\n", r.ts(), lvl, r.intn(64), r.uuid(), r.intn(60), r.intn(1000), 1+r.intn(3), 3)
		default:
			fmt.Fprintf(&b, `{"ts":"%s","level":"%s","msg":"%s","request_id":"%s","path":"/v1/%s","status":%s,"latency_ms":%d.%d,"version":"%s"}`+"\n",
				r.ts(), strings.ToLower(lvl), jsonString(r.sentence()), r.uuid(), r.pick(mxWords), r.pick([]string{"200", "200", "201", "400", "404", "500"}), r.intn(900), r.intn(10), r.version())
		}
	}
	return b.String()
}

func (r *mixRand) docProse() string {
	var b strings.Builder
	b.WriteString("# " + r.sentence() + "\n\n")
	n := 2 + r.intn(6)
	for i := range n {
		b.WriteString(r.paragraph(3 + r.intn(6)))
		if r.chance(3) {
			b.WriteString("\n\n- " + r.sentence() + "\n- " + r.sentence() + "\n- " + r.sentence())
		}
		if i < n-1 {
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

func (r *mixRand) docTicket() string {
	f, l := r.name()
	var b strings.Builder
	fmt.Fprintf(&b, "Ticket #%d opened %s by %s %s\n\n", 10000+r.intn(90000), r.date(), f, l)
	b.WriteString("Hi team,\n\n" + r.paragraph(2+r.intn(3)) + "\n\n")
	switch r.intn(5) {
	case 0:
		fmt.Fprintf(&b, "You can reach me on %s or at %s.", r.phone(), r.email())
	case 1:
		fmt.Fprintf(&b, "Please refund the amount to my account %s (%s %s).", r.iban(), f, l)
	case 2:
		fmt.Fprintf(&b, "My callback number is %s.", r.phone())
	case 3:
		fmt.Fprintf(&b, "For verification, my SSN is %s and my date of birth is %s.", r.ssn(), r.date())
	default:
		b.WriteString(r.paragraph(2))
	}
	fmt.Fprintf(&b, "\n\nThanks,\n%s\n\n---\nAgent reply (%s): %s", f, r.ts(), r.paragraph(2+r.intn(4)))
	return b.String()
}

func (r *mixRand) docCSV() string {
	var b strings.Builder
	switch r.intn(3) {
	case 0:
		b.WriteString("date,description,amount,currency,balance,reference\n")
		bal := 1000 + r.intn(100000)
		for range 15 + r.intn(40) {
			amt := r.intn(20000) - 10000
			bal += amt
			fmt.Fprintf(&b, "%s,\"%s %s\",%d.%s,EUR,%d.%s,TX%s\n", r.date(), r.pick([]string{"CARD PAYMENT", "SEPA TRANSFER", "DIRECT DEBIT", "ATM"}), strings.ToUpper(r.pick(mxWords)),
				amt/100, r.digits(2), bal/100, r.digits(2), r.digits(10))
		}
	case 1:
		b.WriteString("customer_id,name,email,phone,country,signup_date,plan\n")
		for range 10 + r.intn(30) {
			f, l := r.name()
			phone := ""
			if r.chance(3) {
				phone = r.phone()
			}
			fmt.Fprintf(&b, "%d,%s %s,%s,%s,%s,%s,%s\n", 100000+r.intn(900000), f, l, r.email(), phone, r.pick([]string{"US", "DE", "FR", "GB", "NL"}), r.date(), r.pick([]string{"free", "pro", "team"}))
		}
	default:
		b.WriteString("sku,name,warehouse,qty,unit_cost,updated\n")
		for range 20 + r.intn(40) {
			fmt.Fprintf(&b, "SKU-%s,%s %s,WH-%d,%d,%d.%s,%s\n", r.digits(6), mxCap(r.pick(mxWords)), r.pick(mxWords), 1+r.intn(9), r.intn(5000), r.intn(300), r.digits(2), r.ts())
		}
	}
	return b.String()
}

func (r *mixRand) docCode() string {
	var b strings.Builder
	switch r.intn(3) {
	case 0:
		fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"context\"\n\t\"fmt\"\n\t\"time\"\n)\n\n", r.pick(mxWords))
		for range 2 + r.intn(4) {
			fn := r.pick(mxWords)
			fmt.Fprintf(&b, "// %s%s returns the %s of the %s.\nfunc (s *Service) %s%s(ctx context.Context, id string) (*Result, error) {\n\tctx, cancel := context.WithTimeout(ctx, %d*time.Second)\n\tdefer cancel()\n\tres, err := s.client.Get(ctx, fmt.Sprintf(\"/v1/%s/%%s\", id))\n\tif err != nil {\n\t\treturn nil, fmt.Errorf(\"%s %%s: %%w\", id, err)\n\t}\n\tfor i := 0; i < len(res.Items); i++ {\n\t\tres.Items[i].Score *= 0.%s\n\t}\n\treturn res, nil\n}\n\n",
				strings.ToUpper(fn[:1]), fn[1:], r.pick(mxWords), r.pick(mxWords), strings.ToUpper(fn[:1]), fn[1:], 1+r.intn(30), fn, fn, r.digits(2))
		}
	case 1:
		fmt.Fprintf(&b, "def %s(event, context):\n    \"\"\"%s\"\"\"\n    records = event.get(\"Records\", [])\n    for rec in records:\n        body = json.loads(rec[\"body\"])\n        if body.get(\"version\") != \"%s\":\n            logger.warning(\"skipping %%s\", body.get(\"id\"))\n            continue\n        table.put_item(Item={\"pk\": body[\"id\"], \"ts\": int(time.time()), \"ttl\": %d})\n    return {\"statusCode\": 200, \"body\": json.dumps({\"processed\": len(records)})}\n",
			r.pick(mxWords), r.sentence(), r.version(), 86400*(1+r.intn(30)))
	default:
		fmt.Fprintf(&b, "const %s = async (req, res) => {\n  const { id } = req.params;\n  const item = await db.collection('%s').findOne({ _id: id });\n  if (!item) return res.status(404).json({ error: 'not found' });\n  res.set('Cache-Control', 'max-age=%d');\n  return res.json(item);\n};\n",
			r.pick(mxWords), r.pick(mxWords), 60*(1+r.intn(60)))
	}
	return b.String()
}

func (r *mixRand) docConfig() string {
	var b strings.Builder
	switch r.intn(4) {
	case 0: // .env
		fmt.Fprintf(&b, "# %s\nNODE_ENV=production\nPORT=%d\nLOG_LEVEL=info\nDATABASE_URL=postgres://app:%s@db.internal:5432/app\nREDIS_URL=redis://cache.internal:6379/0\n",
			r.sentence(), 3000+r.intn(100), r.password())
		switch r.intn(5) {
		case 0:
			fmt.Fprintf(&b, "AWS_ACCESS_KEY_ID=%s\nAWS_REGION=eu-west-1\n", r.awsKey())
		case 1:
			fmt.Fprintf(&b, "STRIPE_SECRET_KEY=%s\nSTRIPE_PUBLISHABLE_KEY=pk_live_%s\n", r.stripeKey(), r.str(mxB62, 24))
		case 2:
			fmt.Fprintf(&b, "SLACK_BOT_TOKEN=%s\n", r.slackToken())
		case 3:
			fmt.Fprintf(&b, "GITHUB_TOKEN=%s\n", r.githubToken())
		default:
			fmt.Fprintf(&b, "GOOGLE_MAPS_KEY=%s\n", r.googleKey())
		}
		fmt.Fprintf(&b, "SESSION_SECRET=%s\nFEATURE_FLAGS=search,export,beta-ui\n", r.str(mxB62, 32))
	case 1: // k8s manifest
		app := r.pick([]string{"api", "web", "worker"})
		fmt.Fprintf(&b, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\n  namespace: prod\n  labels:\n    app: %s\nspec:\n  replicas: %d\n  selector:\n    matchLabels:\n      app: %s\n  template:\n    spec:\n      serviceAccountName: %s\n      containers:\n        - name: %s\n          image: registry.example.com/%s:%s\n          ports:\n            - containerPort: %d\n          env:\n            - name: LOG_LEVEL\n              value: info\n            - name: DB_PASSWORD\n              valueFrom:\n                secretKeyRef:\n                  name: %s-db\n                  key: password\n          resources:\n            limits:\n              cpu: %dm\n              memory: %dMi\n",
			app, app, 1+r.intn(6), app, app, app, app, r.version(), 8000+r.intn(100), app, 250*(1+r.intn(4)), 256*(1+r.intn(4)))
	case 2: // terraform
		fmt.Fprintf(&b, "resource \"aws_iam_role_policy_attachment\" \"%s\" {\n  role       = \"%s\"\n  policy_arn = \"arn:aws:iam::aws:policy/ReadOnlyAccess\"\n}\n\nresource \"aws_lambda_permission\" \"allow_sqs\" {\n  statement_id  = \"AllowExecution\"\n  action        = \"lambda:InvokeFunction\"\n  function_name = \"%s\"\n  source_arn    = \"%s\"\n}\n",
			r.pick(mxWords), r.arn(), r.pick(mxWords), r.arn())
	default: // an HTTP trace
		fmt.Fprintf(&b, "> POST /oauth/token HTTP/1.1\n> Host: auth.example.com\n> Content-Type: application/x-www-form-urlencoded\n> User-Agent: curl/8.%d.0\n>\n< HTTP/1.1 200 OK\n< Date: Tue, %02d Mar 2024 %02d:%02d:%02d GMT\n< Content-Type: application/json\n<\n",
			r.intn(10), 1+r.intn(28), r.intn(24), r.intn(60), r.intn(60))
		switch r.intn(3) {
		case 0:
			fmt.Fprintf(&b, "{\"access_token\":\"%s\",\"token_type\":\"Bearer\",\"expires_in\":3600}\n", r.jwt())
		case 1:
			fmt.Fprintf(&b, "> GET /v1/me HTTP/1.1\n> Authorization: Bearer %s\n< HTTP/1.1 200 OK\n{\"id\":%d,\"name\":\"%s\"}\n", r.str(mxB62, 48), r.intn(100000), r.pick(mxFirst))
		default:
			fmt.Fprintf(&b, "{\"error\":\"invalid_grant\",\"error_description\":\"%s\"}\n", r.sentence())
		}
	}
	if r.chance(40) {
		b.WriteString("\n" + r.pem() + "\n")
	}
	return b.String()
}

// genMixedCorpus writes the corpus: document kinds drawn with weights
// that give, by bytes, about 40% JSON tool results, 20% logs, 20% prose
// and support tickets, 8% CSV and 12% code and configuration.
func genMixedCorpus() string {
	r := &mixRand{x: 20241201}
	kinds := []struct {
		weight int
		gen    func() string
	}{
		{4, r.docCRM}, {6, r.docIssues}, {2, r.docPods}, {8, r.docSearch}, {5, r.docOrders}, {4, r.docCalendar},
		{3, r.docAccessLog}, {6, r.docAppLog}, {14, r.docProse}, {16, r.docTicket}, {8, r.docCSV}, {20, r.docCode}, {16, r.docConfig},
	}
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	var b strings.Builder
	for b.Len() < mixedSize {
		w := r.intn(total)
		for _, k := range kinds {
			if w -= k.weight; w < 0 {
				if b.Len() > 0 {
					b.WriteString(mixedSep)
				}
				b.WriteString(k.gen())
				break
			}
		}
	}
	return b.String()
}

// listEngine is the engine and policy-level output pipeline of
// plugin/mcp's list benchmarks (benchdata.ListsEnvelope: the standard
// profile), with a 500-tool tools/list result.
func listEngine(tb testing.TB) (*Engine, *Pipeline, []byte) {
	tb.Helper()
	pol, errs := policy.ParseEnvelope([]byte(benchdata.ListsEnvelope), policy.Options{})
	if len(errs) > 0 {
		tb.Fatal(errs)
	}
	p := pol.Policy
	key := []byte(p.Vault.Key)
	e, err := NewEngine(p, vault.New(key, p.Vault, vault.NewMemoryKV(), time.Now), key)
	if err != nil {
		tb.Fatal(err)
	}
	return e, compileOutput(tb, e, p), benchdata.ToolsList()
}

// BenchmarkListResult500: the transforms' share of plugin/mcp's
// BenchmarkToolsList500, on the whole list (500 tools, not filtered): the
// output pipeline's walk of the result (names, titles, descriptions,
// schemas, _meta), without the parse and the serialization, which
// internal/jsondoc measures. The list holds nothing to change, so one
// document serves every iteration (checked).
func BenchmarkListResult500(b *testing.B) {
	e, pl, src := listEngine(b)
	doc, err := jsondoc.Parse(src)
	if err != nil {
		b.Fatal(err)
	}
	result := doc.Get(jsondoc.Root, "result")
	if e.Apply(pl, doc, result, ResultPayload("tools/list"), &Run{}) {
		b.Fatalf("the list changed: %s", doc.Bytes())
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		e.Apply(pl, doc, result, ResultPayload("tools/list"), &Run{})
	}
}
