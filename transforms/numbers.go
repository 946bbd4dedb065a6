package transforms

import (
	"errors"
	"math"
	"strconv"
)

// The readings of a JSON number: the texts its readers print it back as.
// A detector reads text, and a number reaches a client's model or screen
// as whatever its JSON reader prints: 4.111111111111111e15 is the card
// 4111111111111111 to JavaScript, to Go's encoding/json and to every
// reader of exact values. Every place that reads a number for the
// detectors reads it through numberReadings (manual 12.6).

// numberReadings holds the readings of one number, distinct, in the order
// a step's transform prefers them (runNumber):
//
//  1. the exact value in plain decimal: no exponent, no leading zeros, no
//     trailing zeros after the point, no point when it is an integer, and
//     "0" for zero ("-0" too). What readers of exact values print
//     (Python's int and Decimal, Java's BigDecimal.toPlainString, Go's
//     math/big), and, for an integer a float64 holds exactly, what every
//     reader prints: the value itself. First, so that a value's pseudonym
//     or hash is the same however the server spelled it, and the same as
//     for that value sent as a string.
//  2. the nearest float64 as ECMAScript's Number::toString prints it
//     (JavaScript, JSON.stringify; Go's encoding/json writes the same):
//     shortest round-trip digits, in plain form from 1e-6 up to 1e21,
//     else d.ddde±x. It differs from 1 where a float64 cannot hold the
//     value (4111111111111110.9999999999 prints 4111111111111111).
//  3. the text as sent, which custom detectors may match as it is (and
//     readers that keep the text, such as Go's json.Number, print).
//
// Not read apart: Python's float repr (the shortest digits of 2, with
// ".0" or an exponent from 1e16) and other exponent spellings (Go's %v,
// Java's Double.toString): their digits are those of reading 2, glued to
// a point or an exponent, where no built-in detector finds a number.
//
// The exact form of a number with a large exponent is long (1e999999999
// is a billion digits): it is written only up to maxNumberReading bytes,
// which no detector's match needs; beyond that the number is read as
// sent and as a float64 (Infinity, which holds nothing, past 1.8e308).
type numberReadings struct {
	r [3]string
	n int
}

// maxNumberReading is the longest exact form a number is read as.
const maxNumberReading = 1024

// maxExactDigits is the most digits of an integer every float64 reader
// prints back as sent (any 15-digit integer is below 2^53).
const maxExactDigits = 15

// plainNumber reports whether JSON number raw reads as itself in every
// reading: an integer of at most maxExactDigits digits, but -0. Most
// numbers of a message are, and go no further.
func plainNumber(raw []byte) bool {
	i := 0
	if len(raw) > 0 && raw[0] == '-' {
		i = 1
	}
	if len(raw)-i > maxExactDigits || len(raw)-i == 1 && i == 1 && raw[1] == '0' {
		return false
	}
	for ; i < len(raw); i++ {
		if raw[i] < '0' || raw[i] > '9' {
			return false
		}
	}
	return true
}

// mayGrow reports whether a reading of JSON number raw may be longer
// than raw: only an exponent makes it (a fraction's readings drop digits,
// never add them).
func mayGrow(raw []byte) bool {
	for _, c := range raw {
		if c|0x20 == 'e' {
			return true
		}
	}
	return false
}

// read sets rs to the readings of JSON number raw (as the strict parser
// accepted it), each at least minLen bytes long: shorter ones hold
// nothing the detectors could find. A computed reading is carved from
// sc (nil: copied), memory that lives as long as the message (scans are
// memoised by their text); raw itself is used as it is.
func (rs *numberReadings) read(raw []byte, minLen int, sc *scratch) {
	rs.n = 0
	var buf [64]byte
	if b, ok := appendExactDecimal(buf[:0], raw); ok {
		rs.add(b, raw, minLen, sc)
	}
	// JSON's number syntax is a subset of ParseFloat's: raw parses.
	if f, err := strconv.ParseFloat(bytesView(raw), 64); !math.IsInf(f, 0) && (err == nil || errors.Is(err, strconv.ErrRange)) {
		rs.add(appendJSNumber(buf[:0], f), raw, minLen, sc)
	}
	rs.add(raw, raw, minLen, nil)
}

// add appends reading b (raw when it is raw's bytes) unless it is too
// short or already there.
func (rs *numberReadings) add(b, raw []byte, minLen int, sc *scratch) {
	if len(b) < minLen {
		return
	}
	for _, r := range rs.r[:rs.n] {
		if r == string(b) {
			return
		}
	}
	switch {
	case string(b) == string(raw):
		rs.r[rs.n] = bytesView(raw)
	case sc != nil:
		rs.r[rs.n] = sc.carve(b)
	default:
		rs.r[rs.n] = string(b)
	}
	rs.n++
}

// all is the readings, in order.
func (rs *numberReadings) all() []string { return rs.r[:rs.n] }

// appendExactDecimal appends the exact value of JSON number raw in plain
// decimal (numberReadings, 1), unless that is longer than
// maxNumberReading.
func appendExactDecimal(b, raw []byte) ([]byte, bool) {
	neg := len(raw) > 0 && raw[0] == '-'
	i := 0
	if neg {
		i = 1
	}
	// The significant digits are raw[i:j] without the point; the value is
	// those digits times 10^exp.
	start := i
	for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
		i++
	}
	intEnd, fracStart, fracEnd := i, i, i
	if i < len(raw) && raw[i] == '.' {
		i++
		fracStart = i
		for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
			i++
		}
		fracEnd = i
	}
	exp := 0
	if i < len(raw) && raw[i]|0x20 == 'e' {
		i++
		expNeg := i < len(raw) && raw[i] == '-'
		if i < len(raw) && (raw[i] == '-' || raw[i] == '+') {
			i++
		}
		for ; i < len(raw); i++ {
			if exp < 1<<30 { // saturated: far past maxNumberReading either way
				exp = exp*10 + int(raw[i]-'0')
			}
		}
		if expNeg {
			exp = -exp
		}
	}
	exp -= fracEnd - fracStart
	// digit k of the significand, k from 0 to n-1, across the point.
	n := intEnd - start + fracEnd - fracStart
	digit := func(k int) byte {
		if k < intEnd-start {
			return raw[start+k]
		}
		return raw[fracStart+k-(intEnd-start)]
	}
	lead := 0
	for lead < n && digit(lead) == '0' {
		lead++
	}
	if lead == n {
		return append(b, '0'), true // zero, and -0
	}
	trail := n
	for digit(trail-1) == '0' {
		trail--
		exp++
	}
	sig := trail - lead
	point := sig + exp // digits before the point (≤ 0: "0." and zeros first)
	var size int
	switch {
	case exp >= 0:
		size = sig + exp
	case point > 0:
		size = sig + 1
	default:
		size = 2 - point + sig
	}
	if neg {
		size++
	}
	if size > maxNumberReading || exp > maxNumberReading || exp < -maxNumberReading {
		return b, false
	}
	if neg {
		b = append(b, '-')
	}
	if point <= 0 {
		b = append(b, '0', '.')
		for range -point {
			b = append(b, '0')
		}
	}
	for k := lead; k < trail; k++ {
		if k-lead == point && point > 0 {
			b = append(b, '.')
		}
		b = append(b, digit(k))
	}
	for range max(exp, 0) {
		b = append(b, '0')
	}
	return b, true
}

// appendJSNumber appends finite f as ECMAScript's Number::toString
// prints it (numberReadings, 2).
func appendJSNumber(b []byte, f float64) []byte {
	if f == 0 {
		return append(b, '0') // -0 too
	}
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		return strconv.AppendFloat(b, f, 'f', -1, 64)
	}
	// Go writes at least two exponent digits (1e-07); ECMAScript as few
	// as it takes (1e-7).
	b = strconv.AppendFloat(b, f, 'e', -1, 64)
	if n := len(b); b[n-2] == '0' && (b[n-3] == '-' || b[n-3] == '+') {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}

// readNumber sets rs to the readings of JSON number raw the engine's
// detectors could find anything in (numberReadings.read, sc).
func (e *Engine) readNumber(rs *numberReadings, raw []byte, sc *scratch) {
	minLen := minDetectedNumber
	if e.detectors.HasCustom() {
		minLen = 0 // a custom pattern may match any text
	}
	rs.read(raw, minLen, sc)
}

// runNumber runs the steps of mask over JSON number raw, read as its
// readings (numberReadings). Each scanning step reads the number by the
// first reading it finds something in, and counts what it found there:
// once per number, however many readings hold it. The first step that
// rewrites what it found makes the number the string it wrote (that
// reading, transformed: a string every reader prints as it is), and the
// steps after it run over that string as over any. It reports the
// string, or false when the number stays as sent: nothing found, or
// found only by steps that change nothing (detect, annotate, a block
// that did not fire).
func (e *Engine) runNumber(sg *stepRun, raw []byte, mask uint64, run *Run) (string, bool) {
	var rs numberReadings
	e.readNumber(&rs, raw, run.sc)
	for i, st := range sg.steps {
		if mask&(1<<i) == 0 || !st.scan {
			continue
		}
		for _, r := range rs.all() {
			if !run.key.Reports() && e.detectors.Clean(r, &st.sel) {
				continue
			}
			ds := e.detectUnclean(r, &st.sel, st.memoID, run)
			if len(ds) == 0 {
				continue
			}
			out := e.rewriteFound(st, r, ds, run)
			if run.Blocked {
				return "", false
			}
			if out == r {
				break // counted; this step changes nothing
			}
			if rest := mask &^ (uint64(2)<<i - 1); rest != 0 {
				out = e.runString(sg, out, rest, run)
			}
			return out, true
		}
	}
	return "", false
}
