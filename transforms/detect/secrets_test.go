package detect

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

var secretDetectorNames = []string{
	"aws_access_key", "github_token", "slack_token", "stripe_key", "google_api_key",
	"jwt", "private_key", "url_credentials", "bearer_token", "generic_secret",
}

func secFound(name, s string) []string {
	var out []string
	for _, d := range Builtin(name, s) {
		out = append(out, s[d.Start:d.End])
	}
	return out
}

// Cases the line-based corpus cannot express (literal backslash escapes,
// exact vectors) and a few decisions pinned down.
func TestSecretScanners(t *testing.T) {
	b64 := base64.RawURLEncoding.EncodeToString
	pemLine := strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0MjQy", 2)[:64]
	jsonPEM := `-----BEGIN PRIVATE KEY-----\n` + pemLine + `\n` + pemLine + `\n-----END PRIVATE KEY-----`
	hs := b64([]byte(`{"alg":"HS256"}`))
	pl := b64([]byte(`{"sub":"1"}`))
	none := b64([]byte(`{"alg":"none"}`)) + "." + pl + "."
	stateless := "ghs_" + strings.Repeat("aB3-dE6_gH9.", 30) + "zz"
	cases := []struct {
		name, in string
		want     []string
	}{
		// PEM inside JSON shown as text: the two characters \n.
		{"private_key", `{"key": "` + jsonPEM + `"}`, []string{jsonPEM}},
		{"private_key", "-----BEGIN PRIVATE KEY-----", nil},
		{"private_key", "-----BEGIN RSA PRIVATE KEY-----\n" + pemLine + "\n-----END EC PRIVATE KEY-----", []string{"-----BEGIN RSA PRIVATE KEY-----\n" + pemLine}},
		// Escaped JSON inside a string.
		{"generic_secret", `{\"password\":\"s3cr3t-Pa55\",\"user\":\"x\"}`, []string{"s3cr3t-Pa55"}},
		{"generic_secret", `"password": "with \"quote\" inside"`, []string{`with \"quote\" inside`}},
		{"generic_secret", "password=hunter22\\nuser=bob", []string{"hunter22"}},
		{"generic_secret", "apiKey: abcdef123456, APIKEY=zyx98765, x-api-key: qwe12345", []string{"abcdef123456", "zyx98765", "qwe12345"}},
		{"generic_secret", "nextPageToken: CAUQAA1234 pageToken=CAUQAA1234 progress_token: 77777", nil},
		{"generic_secret", "self.api_key = api_key; token = access_token, password=DB_PASSWORD", nil},
		{"generic_secret", "export AWS_SESSION_TOKEN=IQoJb3JpZ2luX2VjEHcaCXVzLWVhc3QtMSJHMEUCIQD", []string{"IQoJb3JpZ2luX2VjEHcaCXVzLWVhc3QtMSJHMEUCIQD"}},
		{"generic_secret", `secret = "api_key"`, []string{"api_key"}}, // quoted: a literal
		{"bearer_token", "AddScheme<Bearer TokenAuthenticationHandler>", nil},
		// The classic GitHub checksum: a published test vector.
		{"github_token", "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", []string{"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"}},
		{"github_token", "ghp_fIkRGaBu5PeKsznMzXQOg3kETH1Sgx2oIfSD", nil},
		{"github_token", stateless + ".", []string{stateless}},
		// JWT: alg none keeps its final dot; a sentence's full stop does not count.
		{"jwt", "token " + none + " end", []string{none}},
		{"jwt", "token " + hs + "." + pl + ".c2ln.", []string{hs + "." + pl + ".c2ln"}},
		{"jwt", hs + "." + pl + ".", nil},
		// URL credentials: raw # in a password, but not host:port#fragment.
		{"url_credentials", "redis://default:pa#ss@cache:6379", []string{"default:pa#ss"}},
		{"url_credentials", "http://localhost:8080#x@y", nil},
		{"url_credentials", "http://a:b@", nil},
		{"bearer_token", "Bearer", nil},
		{"bearer_token", "BEARER abcDEF1234567890xyz", []string{"abcDEF1234567890xyz"}},
		{"aws_access_key", "AKIA", nil},
		{"slack_token", "xoxe.xoxb-1-" + strings.Repeat("Ab3", 10), []string{"xoxe.xoxb-1-" + strings.Repeat("Ab3", 10)}},
	}
	for _, c := range cases {
		if got := secFound(c.name, c.in); !slices.Equal(got, c.want) {
			t.Errorf("%s(%q)\n got  %q\n want %q", c.name, c.in, got, c.want)
		}
	}
	if !secGitHubCRC("fIkRGaBu5PeKsznMzXQOg3kETH1Sgx2oIfSC") {
		t.Error("CRC32 test vector")
	}
}

// The scanners allocate nothing beyond their result.
func TestSecretScannersDoNotAllocate(t *testing.T) {
	text := secBenchText(64 << 10)
	dst := make([]Span, 0, 1024)
	for _, n := range secretDetectorNames {
		scan := scanners[n]
		if a := testing.AllocsPerRun(5, func() { dst = scan(text, dst[:0]) }); a != 0 {
			t.Errorf("%s: %v allocations per scan", n, a)
		}
	}
}

// Adversarial repetitions stay linear: every scanner gets through 1 MB of
// each, milliseconds of work; a quadratic scanner would need about 10^12
// steps, which the test binary's timeout stops (no wall-clock limit here,
// which a busy machine would trip).
func TestSecretScannersLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	units := []string{"xoxb-", "AIza", "ghs_AAAAAAAA-", "ghp_", "github_pat_", "sk_live_", "AKIA", "@", "a@",
		"://a:b@", "x://", "password:", "password:\"", "password=x", "Bearer ", "Bearer a", "eyJ.", "eyJhbGciOiJub25lIn0.",
		"-----BEGIN PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----A", "\\\"token\\\":", "==", "::"}
	for _, u := range units {
		s := strings.Repeat(u, (1<<20)/len(u))
		for _, n := range secretDetectorNames {
			scanners[n](s, nil)
		}
	}
}

// secBenchText is MCP-like traffic: JSON-RPC results, prose, logs, code,
// config and base64, with a secret of some kind about every 8 KB.
func secBenchText(size int) string {
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields(`the a of to and in is that for it with as was on be by this are
		from at or an have not but which they you were their has one all would there been
		server request response token user password config value returns error file data
		key secret tool result content text type resource cursor progress message table`)
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	rs := func(alpha string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
		}
		return string(b)
	}
	const b62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	secrets := []func() string{
		func() string { return "AWS_ACCESS_KEY_ID=AKIA" + rs("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16) },
		func() string { return `"api_key": "AIzaSy` + rs(b62, 33) + `"` },
		func() string { return "Authorization: Bearer " + rs(b62, 40) },
		func() string { return "postgres://app:" + rs(b62, 12) + "@db:5432/prod" },
		func() string { return `"password": "` + rs(b62, 14) + `"` },
		func() string { return "xoxb-" + rs("0123456789", 12) + "-" + rs("0123456789", 13) + "-" + rs(b62, 24) },
		func() string { return "sk_live_" + rs(b62, 24) },
		func() string {
			x := rs(b62, 30)
			v := crc32.ChecksumIEEE([]byte(x))
			var c [6]byte
			for i := 5; i >= 0; i-- {
				c[i] = b62[v%62]
				v /= 62
			}
			return "git push https://ghp_" + x + string(c[:]) + "@github.com/acme/app.git"
		},
		func() string {
			return base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
				base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"42"}`)) + "." + rs(b62, 43)
		},
		func() string {
			return "-----BEGIN EC PRIVATE KEY-----\n" + rs(b62, 64) + "\n" + rs(b62, 64) + "\n-----END EC PRIVATE KEY-----"
		},
	}
	var b strings.Builder
	next := 8 << 10
	for b.Len() < size {
		switch r.IntN(6) {
		case 0, 1: // prose
			for range 40 + r.IntN(40) {
				b.WriteString(pick(words))
				b.WriteByte(" .,  "[r.IntN(5)])
			}
			b.WriteString("\n")
		case 2: // JSON-RPC result
			b.WriteString(`{"jsonrpc":"2.0","id":` + rs("0123456789", 3) + `,"result":{"content":[{"type":"text","text":"` +
				pick(words) + " " + pick(words) + `"}],"_meta":{"progressToken":"` + rs(b62, 8) + `","cursor":"` + rs(b62, 16) + `"},"isError":false}}` + "\n")
		case 3: // log line
			b.WriteString("2024-05-01T12:" + rs("012345", 1) + rs("0123456789", 1) + ":00Z INFO GET https://api.example.com/v1/" +
				pick(words) + "?page=" + rs("0123456789", 2) + " status=200 bytes=" + rs("0123456789", 4) + " ua=Mozilla/5.0\n")
		case 4: // code and config
			b.WriteString("func " + pick(words) + "(ctx context.Context, " + pick(words) + " string) error {\n\tx := cfg.Get(\"" +
				pick(words) + "\")\n\tif x == nil { return err }\n}\nname: " + pick(words) + "\nreplicas: 3\nimage: registry.example.com/app:1.2.3\n")
		case 5: // base64 blob
			b.WriteString("data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte(rs(b62, 150))) + "\n")
		}
		if b.Len() >= next {
			b.WriteString(pick([]string{"see ", "found: ", "config ", ""}) + secrets[r.IntN(len(secrets))]() + "\n")
			next += 8 << 10
		}
	}
	return b.String()
}

// BenchmarkSecrets runs the ten secret detectors over 1 MB of mixed text;
// "all" is the ten in one pass, as Detect runs them, then each alone.
func BenchmarkSecrets(b *testing.B) {
	text := secBenchText(1 << 20)
	run := func(b *testing.B, scan scanFunc) {
		b.SetBytes(int64(len(text)))
		dst := make([]Span, 0, 1024)
		for b.Loop() {
			dst = scan(text, dst[:0])
		}
		b.ReportMetric(float64(len(dst)), "spans")
	}
	b.Run("all", func(b *testing.B) {
		run(b, func(s string, dst []Span) []Span { return scanGroup("secrets", s, dst) })
	})
	for _, n := range secretDetectorNames {
		b.Run(n, func(b *testing.B) { run(b, scanners[n]) })
	}
}

// FuzzSecrets: no panics; spans in range, non-empty, on rune boundaries
// and, per scanner, not overlapping.
func FuzzSecrets(f *testing.F) {
	for _, n := range secretDetectorNames {
		if fh, err := os.Open(filepath.Join(corpusDir, n+".txt")); err == nil {
			sc := bufio.NewScanner(fh)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				if l := sc.Text(); len(l) > 2 && l[0] != '#' {
					l = strings.NewReplacer("«", "", "»", "", `\n`, "\n").Replace(l[2:])
					f.Add(l)
				}
			}
			fh.Close()
		}
	}
	f.Add("")
	f.Add("-----BEGIN PRIVATE KEY-----é")
	f.Add("Bearer ééééééééééééééééé1A")
	f.Add("password=\"é\\")
	f.Add("Bearer 000000010000000A\x8c")     // span edge next to a stray continuation byte
	f.Add("s://" + strings.Repeat("@", 600)) // was an endless loop (authority cap)
	f.Add("postgres://svc:p@ss@" + strings.Repeat("@", 2000))
	f.Add("-----BEGIN EC PRIVATE KEY-----" + strings.Repeat("0", 40) + "-----END EC PRIVATE KEY-----BEGIN PRIVATE KEY-----" + strings.Repeat("0", 40)) // END dashes open the next BEGIN
	f.Fuzz(func(t *testing.T, s string) {
		for _, n := range secretDetectorNames {
			spans := scanners[n](s, nil)
			slices.SortFunc(spans, func(a, b Span) int { return a.Start - b.Start })
			for i, sp := range spans {
				if sp.Start < 0 || sp.End > len(s) || sp.Start >= sp.End {
					t.Fatalf("%s: span %v out of range in %q", n, sp, s)
				}
				if !boundary(s, sp.Start) || !boundary(s, sp.End) {
					t.Fatalf("%s: span %v splits a character in %q", n, sp, s)
				}
				if i > 0 && sp.Start < spans[i-1].End {
					t.Fatalf("%s: spans %v and %v overlap in %q", n, spans[i-1], sp, s)
				}
			}
			if utf8.ValidString(s) {
				for _, sp := range spans {
					if !utf8.ValidString(s[sp.Start:sp.End]) {
						t.Fatalf("%s: invalid UTF-8 span", n)
					}
				}
			}
		}
	})
}

// generic_secret reports a value whole or not at all (manual 12.1): each
// form of value a reader can tell the end of, with the whole value or
// nothing, never a prefix.
func TestGenericSecretWhole(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		// unquoted: brackets the value opens it closes; ) ] } > it did
		// not open end it only where the enclosing syntax goes on
		{"apikey = z{k}q)w${a]b(c[d>-_#e}", []string{"z{k}q)w${a]b(c[d>-_#e}"}},
		{"secret: z{k}q)w${a]b(c[d>-_#e}`", []string{"z{k}q)w${a]b(c[d>-_#e}"}},
		{"passwd := z{k}q)w${a]b(c[d>-_#e},", []string{"z{k}q)w${a]b(c[d>-_#e}"}},
		{"{password:Kq7Lm2x}", []string{"Kq7Lm2x"}},
		{"[token=Kq7Lm2x], next", []string{"Kq7Lm2x"}},
		{"password=Kq)7Lm", []string{"Kq)7Lm"}},
		{"password=Kq7Lm>", []string{"Kq7Lm"}},
		{"password=Kq7<Lm", []string{"Kq7<Lm"}},
		{"<b>password=Kq7Lm</b>", []string{"Kq7Lm"}},
		// , ; & end it before white space, the end or the next key
		{"password=ab,cd", []string{"ab,cd"}},
		{"password=abcd, user=x", []string{"abcd"}},
		{"password=ab;cd;Host=x", []string{"ab;cd"}},
		{"secret=ab&cd&mode=x", []string{"ab&cd"}},
		// quotes: of the enclosing text after the value, inside it else
		{`"PASSWORD=Kq7Lm2x"`, []string{"Kq7Lm2x"}},
		{`password=Kq"7Lm`, []string{`Kq"7Lm`}},
		// quoted after := and =, with or without spaces, and prefixes
		{`password := "Kq7 Lm2x"`, []string{"Kq7 Lm2x"}},
		{`password:="Kq7Lm2x"`, []string{"Kq7Lm2x"}},
		{`password='Kq7Lm2x'`, []string{"Kq7Lm2x"}},
		{`password = @"Kq7)Lm{2x";`, []string{"Kq7)Lm{2x"}},
		{`token = b'Kq7Lm2x'`, []string{"Kq7Lm2x"}},
		{`token = rb"Kq7\dLm2x"`, []string{`Kq7\dLm2x`}},
		{`password: 'it''s-Kq7'`, []string{"it''s-Kq7"}},
		{`password = """Kq7 "Lm" 2x"""`, []string{`Kq7 "Lm" 2x`}},
		{`password = "Kq7Lm2x`, nil}, // no closing quote on its line
		{"password = \"Kq7\nLm2x\"", nil},
		// YAML lines: the rest of the line, less a comment
		{"passphrase: four plain words here", []string{"four plain words here"}},
		{"x: 1\n  - secret: four plain words # note\ny: 2", []string{"four plain words"}},
		{"user passphrase: four plain words", []string{"four"}}, // not a line of its own
		{"passphrase: abcd (four words)", []string{"abcd"}},     // not plain words: one
		{"api_key: settings.api_key or fallback", nil},          // code
		// no letter or digit: a mask
		{`password = "!?,.-"`, nil},
		{"password: ¿¡…!", nil},
	} {
		var got []string
		for _, d := range Builtin("generic_secret", c.in) {
			got = append(got, c.in[d.Start:d.End])
		}
		if strings.Join(got, "\x00") != strings.Join(c.want, "\x00") {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzGenericSecretWhole: a generic_secret span is never followed by a
// character that the value's own quoting or grammar says still belongs
// to it (genericValueGoesOn).
func FuzzGenericSecretWhole(f *testing.F) {
	for _, s := range []string{
		"apikey = z{k}q)w${a]b(c[d>-_#e}", `password = @"Kq7)Lm{2x";`, "password=ab,cd;Host=x", `password: 'it''s-Kq7'`,
		`password = """Kq7 "Lm" 2x"""`, "passphrase: four plain words # x", "{\\\"password\\\":\\\"s3cr3t\\\"}", "token=a)b]c}d>e<f/g'h\"i`j",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, sp := range scanBuiltin(detGeneric, s, nil) {
			if why := genericValueGoesOn(s, sp.Start, sp.End); why != "" {
				t.Fatalf("%q: span %q is a prefix of its value: %s", s, s[sp.Start:sp.End], why)
			}
		}
	})
}

// genericValueGoesOn says why the value [a, b) of s goes on after b by
// manual 12.1's grammar of values, or "" when it ends there.
func genericValueGoesOn(s string, a, b int) string {
	if a > 0 && (s[a-1] == '"' || s[a-1] == '\'' || s[a-1] == '`') {
		q := s[a-1]
		switch {
		case a >= 2 && s[a-2] == '\\' && q == '"':
			if !strings.HasPrefix(s[b:], `\"`) {
				return `no \" after a value opened by \"`
			}
		case a >= 3 && s[a-3] == q && s[a-2] == q:
			if !strings.HasPrefix(s[b:], s[a-3:a]) {
				return "no closing triple quote"
			}
		case b >= len(s) || s[b] != q:
			return "no closing quote"
		case q != '`' && b+1 < len(s) && s[b+1] == q:
			return "a doubled quote goes on"
		}
		return ""
	}
	closes := func(j int) bool { // the enclosing syntax goes on at j
		for j < len(s) && s[j] == '.' {
			j++
		}
		return j >= len(s) || s[j] <= ' ' || s[j] == 0x7f || strings.IndexByte("\"'`)]}>,;&\\", s[j]) >= 0
	}
	j := b
	for j < len(s) && s[j] == '.' {
		j++ // a final full stop is prose
	}
	if j >= len(s) {
		return ""
	}
	v := s[a:b]
	switch c := s[j]; {
	case c <= ' ' || c == 0x7f:
		return ""
	case c == '\\':
		if j+1 < len(s) && strings.IndexByte(`"nrt`, s[j+1]) >= 0 {
			return ""
		}
	case c == '"' || c == '\'' || c == '`':
		if closes(j + 1) {
			return ""
		}
	case c == ',' || c == ';' || c == '&':
		k := j + 1
		for k < len(s) && secIs(s[k], secKey) {
			k++
		}
		if closes(j+1) || k > j+1 && secIs(s[j+1], secAlpha|secUnder) && k < len(s) && (s[k] == '=' || s[k] == ':') {
			return ""
		}
	case c == ')' || c == ']' || c == '}' || c == '>':
		open := map[byte]byte{')': '(', ']': '[', '}': '{'}[c]
		if (open == 0 || strings.Count(v, string(open)) <= strings.Count(v, string(c))) && closes(j+1) {
			return ""
		}
	case c == '<':
		k := j + 1
		if k < len(s) && s[k] == '/' {
			k++
		}
		n := k
		for n < len(s) && secIs(s[n], secAlnum|secDash) {
			n++
		}
		if n > k && secIs(s[k], secAlpha) && n < len(s) && strings.IndexByte(" >/", s[n]) >= 0 {
			return ""
		}
	}
	return fmt.Sprintf("%q follows", s[j])
}
