package transforms

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/transforms/detect"
)

// A JSON number is read as its readers print it back (numberReadings):
// the exact value in plain decimal, the float64 as JavaScript prints it,
// and the text as sent.
func TestNumberReadings(t *testing.T) {
	cases := []struct {
		raw  string
		want []string // in order; minLen 0
	}{
		{"4.111111111111111e15", []string{"4111111111111111", "4.111111111111111e15"}},
		{"41111111111111110e-1", []string{"4111111111111111", "41111111111111110e-1"}},
		{"4111111111111111.0", []string{"4111111111111111", "4111111111111111.0"}},
		{"4111111111111111E0", []string{"4111111111111111", "4111111111111111E0"}},
		{"0.4111111111111111E+16", []string{"4111111111111111", "0.4111111111111111E+16"}},
		{"-4.111111111111111e15", []string{"-4111111111111111", "-4.111111111111111e15"}},
		{"4111111111111111", []string{"4111111111111111"}},
		{"0", []string{"0"}},
		{"-0", []string{"0", "-0"}},
		{"-0.0e-5", []string{"0", "-0.0e-5"}},
		{"123.4500", []string{"123.45", "123.4500"}},
		{"0.000123e3", []string{"0.123", "0.000123e3"}},
		{"-1.5e-3", []string{"-0.0015", "-1.5e-3"}},
		{"1e21", []string{"1000000000000000000000", "1e+21", "1e21"}},
		{"1e-7", []string{"0.0000001", "1e-7"}},
		{"1.5E-7", []string{"0.00000015", "1.5e-7", "1.5E-7"}},
		// A float64 does not hold these: JavaScript prints another value.
		{"4111111111111110.9999999999", []string{"4111111111111110.9999999999", "4111111111111111"}},
		{"4111111111111111111", []string{"4111111111111111111", "4111111111111111000"}},
		// The exact form is not written past maxNumberReading; a float64
		// overflows to Infinity, which holds nothing.
		{"1e999999999", []string{"1e999999999"}},
		{"-1e-999999999", []string{"0", "-1e-999999999"}}, // underflows to -0
		{"1e308", []string{"1" + strings.Repeat("0", 308), "1e+308", "1e308"}},
	}
	for _, c := range cases {
		var rs numberReadings
		rs.read([]byte(c.raw), 0, nil)
		if got := rs.all(); strings.Join(got, " | ") != strings.Join(c.want, " | ") {
			t.Errorf("readings of %s:\n got  %q\n want %q", c.raw, got, c.want)
		}
	}
	// Readings shorter than minLen are left out.
	var rs numberReadings
	rs.read([]byte("1.5e3"), minDetectedNumber, nil)
	if rs.n != 0 {
		t.Errorf("1.5e3 read as %q with minLen %d", rs.all(), minDetectedNumber)
	}
}

// A card number sent as a JSON number in any spelling, in every place of
// data a client reads (structuredContent, a JSON text, error data and
// message, a log notification's data, arguments), does not come out.
// Regression (issue 26, class 1): the detectors read the number's raw
// text, so 4.111111111111111e15 went out as it came, and error data that
// was a bare number was not read at all.
func TestNumberSpellingsRead(t *testing.T) {
	spellings := []string{
		"4111111111111111", "4.111111111111111e15", "41111111111111110e-1", "4111111111111111.0",
		"4111111111111111E0", "4111111111111111.000e+0", "0.4111111111111111e16", "411111111111111.1E1",
		"4111111111111110.99999999999", // a float64 rounds it to the card
		"-4111111111111111.0",
	}
	places := []struct {
		name, answers, msg string // msg holds NUM where the number goes
	}{
		{"structuredContent member", "tools/call", `{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"card":NUM}}}`},
		{"structuredContent array", "tools/call", `{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"cards":[1,NUM]}}}`},
		{"structuredContent itself", "tools/call", `{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":NUM}}`},
		{"JSON text", "tools/call", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"card\":NUM}"}]}}`},
		{"text mirroring structuredContent", "tools/call", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"card\":NUM}"}],"structuredContent":{"card":NUM}}}`},
		{"error data member", "tools/call", `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x","data":{"card":NUM}}}`},
		{"error data itself", "tools/call", `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x","data":NUM}}`},
		{"error message a number", "tools/call", `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":NUM}}`},
		{"log data member", "", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"card":NUM}}}`},
		{"log data itself", "", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"pay","data":NUM}}`},
		{"sampling request _meta", "", `{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{"maxTokens":5,"messages":[],"_meta":{"c":NUM}}}`},
		{"arguments", "retry", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"card":NUM}}}`},
	}
	e, p, _ := engineFor(t, `{name: p, transforms: [redact]}`)
	pl := compileOutput(t, e, p)
	for _, pc := range places {
		for _, num := range spellings {
			t.Run(pc.name+"/"+num, func(t *testing.T) {
				doc, err := jsondoc.Parse([]byte(strings.ReplaceAll(pc.msg, "NUM", num)))
				if err != nil {
					t.Fatal(err)
				}
				run := &Run{}
				applyMessage(e, pl, doc, pc.answers, run)
				run.flushCounts()
				out := string(doc.Bytes())
				if strings.Contains(out, num) || strings.Contains(out, "4111111111111111") || !strings.Contains(out, "[REDACTED:CREDIT_CARD]") {
					t.Errorf("came out as\n%s", out)
				}
				if _, err := jsondoc.Parse([]byte(out)); err != nil {
					t.Errorf("output is not strict JSON: %v\n%s", err, out)
				}
				want := 1
				if strings.HasPrefix(pc.name, "text mirroring") {
					want = 2 // two places, as for a string
				}
				if run.Detections["CREDIT_CARD"] != want {
					t.Errorf("detections %v, want CREDIT_CARD: %d", run.Detections, want)
				}
			})
		}
	}
}

// What a number becomes is its exact reading transformed: the same
// pseudonym, hash or mask as the value sent as a plain integer or as a
// string; a step that changes nothing (detect) leaves the number as sent
// and counts it once; block fires on any spelling.
func TestNumberTransforms(t *testing.T) {
	for _, c := range []struct {
		name, policy string
		want         string // the value of "v" in the output
		blocked      bool
	}{
		{"pseudonymise", `{name: p, transforms: [{type: pseudonymise, options: {detectors: [credit_card]}}]}`, `PLAIN`, false},
		{"mask", `{name: p, transforms: [{type: mask, options: {keep_last: 4, detectors: [credit_card]}}]}`, `"************1111"`, false},
		{"hash", `{name: p, transforms: [{type: hash, options: {detectors: [credit_card]}}]}`, `PLAIN`, false},
		{"detect only", `{name: p, transforms: [detect]}`, `SENT`, false},
		{"detect, then redact", `{name: p, transforms: [detect, redact]}`, `"[REDACTED:CREDIT_CARD]"`, false},
		{"block", `{name: p, transforms: [block]}`, `SENT`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, p, _ := engineFor(t, c.policy)
			pl := compileOutput(t, e, p)
			apply := func(v string) (string, *Run) {
				doc, err := jsondoc.Parse([]byte(`{"content":[],"structuredContent":{"v":` + v + `}}`))
				if err != nil {
					t.Fatal(err)
				}
				run := &Run{}
				e.Apply(pl, doc, jsondoc.Root, ToolResult, run)
				run.flushCounts()
				return string(doc.AppendValue(nil, doc.Path(jsondoc.Root, "structuredContent", "v"))), run
			}
			plain, _ := apply("4111111111111111")
			str, _ := apply(`"4111111111111111"`)
			for _, num := range []string{"4.111111111111111e15", "4111111111111111.0", "41111111111111110e-1"} {
				got, run := apply(num)
				want := strings.NewReplacer("PLAIN", plain, "SENT", num).Replace(c.want)
				if got != want || run.Blocked != c.blocked {
					t.Errorf("%s became %s (blocked %v), want %s (blocked %v)", num, got, run.Blocked, want, c.blocked)
				}
				if c.want == "PLAIN" && got != str {
					t.Errorf("%s became %s, the string \"4111111111111111\" %s", num, got, str)
				}
				steps := strings.Count(c.policy, ",") // detect, redact: two steps count
				if c.name != "detect, then redact" {
					steps = 1
				}
				if run.Detections["CREDIT_CARD"] != steps {
					t.Errorf("%s: detections %v, want CREDIT_CARD: %d", num, run.Detections, steps)
				}
			}
		})
	}
}

// A custom detector reads every reading of any number, the text as sent
// included; numbers no reading of which holds a finding keep their bytes.
func TestNumberReadingsCustom(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, transforms: [redact], detectors: [
	  {name: nid, pattern: "\\b[0-9]{9}\\b", label: NATIONAL_ID, sensitivity: restricted},
	  {name: sci, pattern: "^7\\.77e7$", label: SCI, sensitivity: restricted}]}`)
	pl := compileOutput(t, e, p)
	in := `{"content":[],"structuredContent":{"a":1.23456789e8,"b":123456789.0,"c":7.77e7,"n":12,"f":1.5,"e":-3e5}}`
	doc, err := jsondoc.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	e.Apply(pl, doc, jsondoc.Root, ToolResult, &Run{})
	want := `{"content":[],"structuredContent":{"a":"[REDACTED:NATIONAL_ID]","b":"[REDACTED:NATIONAL_ID]","c":"[REDACTED:SCI]","n":12,"f":1.5,"e":-3e5}}`
	if got := string(doc.Bytes()); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// FuzzNumberReadings: a JSON number whose value, printed by an
// independent oracle (math/big for the exact value, encoding/json for
// what float64 readers print), holds a card number does not come out,
// and what is found in one is found by a detector ReadsNumbers names;
// one none of whose forms holds anything comes out byte for byte. Each
// input is tried as given and respelled (the point moved by shift, the
// exponent making up for it), so the values near the seeds' cards are
// tried in many spellings.
func FuzzNumberReadings(f *testing.F) {
	for i, s := range []string{
		"4111111111111111", "4.111111111111111e15", "41111111111111110e-1", "4111111111111111.0", "4111111111111111E0",
		"4111111111111110.99999999999", "5.500000000000004E15", "3.78282246310005e14", "6011111111111117000e-3",
		"4111111111111111111", "4.222222222222222e21", "-4.111111111111111e15", "0.1234567890123",
		"4111111111111112", "1.5", "-0.0e-0", "4.111111111111111e-15", "378282246310005", "6011000990139424",
	} {
		f.Add(s, int8(i*3-20), i%2 == 0)
	}
	e, p, _ := engineFor(f, `{name: p, transforms: [redact]}`)
	pl := compileOutput(f, e, p)
	cards, every := detect.Select([]string{"credit_card"}, 0), detect.Select(nil, 0)
	f.Fuzz(func(t *testing.T, given string, shift int8, upper bool) {
		if len(given) > 64 {
			return
		}
		for _, num := range []string{given, respell(given, int(shift), upper)} {
			if !validJSONNumber(num) {
				continue
			}
			doc, err := jsondoc.Parse([]byte(`{"content":[],"structuredContent":{"v":` + num + `}}`))
			if err != nil {
				continue // beyond float64: refused (manual 16)
			}
			e.Apply(pl, doc, jsondoc.Root, ToolResult, &Run{})
			out := string(doc.AppendValue(nil, doc.Path(jsondoc.Root, "structuredContent", "v")))
			forms := oracleForms(num)
			card, any := false, false
			for _, form := range append(forms, num) {
				card = card || len(e.Detectors().Detect(form, cards)) > 0
				for _, d := range e.Detectors().Detect(form, every) {
					any = true
					if !e.Detectors().ReadsNumbers(detect.Select([]string{d.Detector}, 0)) {
						// detect.Set.ReadsNumbers says which built-ins
						// find anything in a number (credit_card, the
						// national identifiers): outputSchema rewriting
						// (10.8) relies on it.
						t.Fatalf("%s read as %q: %s found", num, form, d.Detector)
					}
				}
			}
			switch {
			case card && (out == num || out[0] != '"'):
				t.Fatalf("%s (read as %q) came out as %s", num, forms, out)
			case !any && out != num:
				t.Fatalf("%s (read as %q, nothing found) came out as %s", num, forms, out)
			}
		}
	})
}

// respell writes JSON number s with its point moved shift places (mod
// the digits) and its exponent making up for it: the same value.
func respell(s string, shift int, upper bool) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		x, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || x > 1000 || x < -1000 {
			return ""
		}
		s, exp = s[:i], x
	}
	digits := s
	if i := strings.IndexByte(s, '.'); i >= 0 {
		digits = s[:i] + s[i+1:]
		exp -= len(s) - i - 1
	}
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return ""
	}
	q := ((shift % (len(digits) + 1)) + len(digits) + 1) % (len(digits) + 1)
	m := digits[:q] + "." + digits[q:]
	switch {
	case q == 0:
		m = "0" + m
	case q == len(digits):
		m += "0"
	}
	e := "e"
	if upper {
		e = "E"
	}
	out := m + e + strconv.Itoa(exp+len(digits)-q)
	if neg {
		out = "-" + out
	}
	return out
}

// validJSONNumber reports whether s is one JSON number.
func validJSONNumber(s string) bool {
	if s == "" || !(s[0] == '-' || s[0] >= '0' && s[0] <= '9') {
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil && string(n) == s
}

// oracleForms prints number s as readers do, independently of
// numberReadings: its exact value with math/big (when its exponent is
// small enough to write out), and the float64 encoding/json writes
// (ECMAScript's form), when finite.
func oracleForms(s string) []string {
	var forms []string
	if i := strings.IndexAny(s, "eE"); i < 0 || func() bool {
		x, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		return err == nil && x > -400 && x < 400
	}() {
		r, ok := new(big.Rat).SetString(s)
		if ok {
			if r.IsInt() {
				forms = append(forms, r.Num().String())
			} else {
				f := strings.TrimRight(r.FloatString(500), "0")
				forms = append(forms, f)
			}
		}
	}
	if x, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(x, 0) {
		b, _ := json.Marshal(x)
		forms = append(forms, string(b))
	}
	return forms
}

// The steps whose detectors may find something in a number tell the
// outputSchema rewriting that numbers may become strings (manual 10.8):
// credit_card and custom detectors read numbers; other built-ins, and
// truncate, never change one.
func TestSchemaEffectsNumbers(t *testing.T) {
	e, p, _ := engineFor(t, `{name: p, detectors: [{name: nid, pattern: "\\b[0-9]{9}\\b", label: NATIONAL_ID, sensitivity: restricted}],
	  transforms: [redact, {type: pseudonymise, options: {detectors: [email, ipv4]}}, {type: mask, options: {detectors: [nid]}},
	    {type: hash, options: {detectors: ["@pii"]}}, {type: truncate, options: {max_chars: 9}}, detect]}`)
	eff := compileOutput(t, e, p).SchemaEffects()
	want := []bool{true, false, true, true, false}
	if len(eff.Rewrites) != len(want) {
		t.Fatalf("%d rewriting scopes, want %d", len(eff.Rewrites), len(want))
	}
	for i, w := range want {
		if eff.Rewrites[i].Numbers != w {
			t.Errorf("step %d: Numbers %v, want %v", i, eff.Rewrites[i].Numbers, w)
		}
	}
}
