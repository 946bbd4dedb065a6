package detect

import (
	"math/bits"
	"strings"
)

// Tables in text (manual 12.9.5): a header row of CSV (',', ';', tab),
// of a '|' table or of a Markdown table names its columns as a JSON key
// names a member, and the rows below it are read by those names, as the
// walk reads the members of an object: "name,email\nXochitl
// Quispe,xq@example.org" holds a person's name whatever the tables
// know of it. A header is looked for where tables start: at the text's
// start, after a blank line, and on a line that opens with '|' after one
// that does not. It is a header when its cells are short names (no
// sentence, no number first) and one of them reports (KeyContext.Of over
// the context all its cells give, as one object's members do).

// tableMaxColumns bounds the columns read; tableCellMax the bytes of a
// header cell.
const (
	tableMaxColumns = 32
	tableCellMax    = 48
)

// table is a header found: its delimiter, the Key of each column and
// where its rows start.
type table struct {
	delim byte
	pipe  bool // a '|' table: cells between bars, a "|---|" row skipped
	keys  [tableMaxColumns]Key
	n     int
	rows  int
}

// scanTables reports the values of the rows of each table in p.s by the
// keys of their columns.
func (p *pass) scanTables() {
	s := p.s
	ts := tableStarts{s: s, rec: p.tables, recorded: p.recLabels}
	for from := 0; ; {
		tb, ok := nextTable(s, from, p.extra, &ts)
		if !ok {
			return
		}
		from = p.tableRows(&tb)
	}
}

// tablesClean reports whether s holds no table header (x: the policy's
// extra keys).
func tablesClean(s string, x *Extra) bool {
	_, ok := nextTable(s, 0, x, &tableStarts{s: s})
	return !ok
}

// tableStarts is where tables may start after a line break: tableNext's
// places, which the pass records (recorded, in rec) as it reads s.
type tableStarts struct {
	s        string
	rec      []int32
	recorded bool
	k        int // rec[:k] are behind the last place asked for
}

// after is tableNext(s, e), e at least the last e asked for.
func (ts *tableStarts) after(e int) int {
	if !ts.recorded {
		return tableNext(ts.s, e)
	}
	for ts.k < len(ts.rec) && int(ts.rec[ts.k]) <= e {
		ts.k++
	}
	if ts.k == len(ts.rec) {
		return -1
	}
	return int(ts.rec[ts.k])
}

// nextTable finds the first table header at or after from.
func nextTable(s string, from int, x *Extra, ts *tableStarts) (table, bool) {
	for a := from; a < len(s); {
		e := lineEnd(s, a)
		if e < len(s) && tableStart(s, a) {
			if tb, ok := readHeader(s, a, e, x); ok {
				return tb, true
			}
		}
		next := ts.after(e)
		if next < 0 {
			return table{}, false
		}
		for next < len(s) && (s[next] == '\n' || s[next] == '\r') {
			next++
		}
		a = next
	}
	return table{}, false
}

// tableNext is the next place after the line break at k (or len(s)) a
// table may start: after a blank line or a line ending in ':'
// ("Customers:"), or a line opening with '|'; -1 if none. It looks for
// line breaks eight bytes at a time: a call to strings.IndexByte for
// each line cost more in the VM.
func tableNext(s string, k int) int {
	n := len(s)
	for k < n {
		var m uint64 // the line breaks of the eight bytes at k
		if k+8 <= n {
			m = bytesOf(load64(s, k), '\n')
		} else {
			for j := k; j < n; j++ {
				if s[j] == '\n' {
					m |= 0x80 << (8 * (j - k))
				}
			}
		}
		for ; m != 0; m &= m - 1 {
			p := k + bits.TrailingZeros64(m)>>3
			if p+1 >= n {
				return -1
			}
			colon := p > 0 && (s[p-1] == ':' || s[p-1] == '\r' && p > 1 && s[p-2] == ':')
			if c := s[p+1]; c == '\n' || c == '\r' || c == '|' || colon {
				return p + 1
			}
		}
		k += 8
	}
	return -1
}

// tableStart: a table may start on the line at a: the text's first, one
// after a blank line or a ':', or a '|' line after one that is not.
func tableStart(s string, a int) bool {
	if a == 0 || s[a] != '|' {
		return true // the callers only stop at such lines
	}
	p := a - 1 // the '\n' before
	if p > 0 && s[p-1] == '\r' {
		p--
	}
	q := strings.LastIndexByte(s[:p], '\n') + 1
	return q == p || s[q] != '|'
}

// lineEnd is the index of the '\n' ending the line at a, or len(s).
func lineEnd(s string, a int) int {
	if n := strings.IndexByte(s[a:], '\n'); n >= 0 {
		return a + n
	}
	return len(s)
}

// readHeader reads the line s[a:e] as a header, with the line after it
// (which must exist) for its delimiter.
func readHeader(s string, a, e int, x *Extra) (table, bool) {
	line := strings.TrimRight(s[a:e], "\r")
	var tb table
	if strings.HasPrefix(line, "|") {
		tb.delim, tb.pipe = '|', true
	} else {
		// The delimiter the line has most of, and the next line as many.
		lc := delimCounts(line)
		var nc [len(tableDelims)]int
		counted := false
		best := 0
		for i, d := range tableDelims {
			if c := lc[i]; c > best {
				if !counted {
					nc, counted = delimCounts(s[e+1:lineEnd(s, e+1)]), true
				}
				if nc[i] >= c {
					tb.delim, best = d, c
				}
			}
		}
		if best == 0 {
			return tb, false
		}
	}
	var ctx KeyContext
	reports := false
	cells := 0
	for c := range tableCells(line, tb.delim, tb.pipe) {
		if cells == tableMaxColumns {
			return tb, false
		}
		v := strings.Trim(c.text, " \"'")
		if v == "" || len(v) > tableCellMax || isDigit(v[0]) || strings.Count(v, " ") > 3 {
			return tb, false // a cell of data or prose: no header
		}
		k := classifyKey(v, x)
		tb.keys[cells] = k
		ctx = ctx.Member(k)
		cells++
	}
	if cells < 2 {
		return tb, false
	}
	for i := 0; i < cells; i++ {
		tb.keys[i] = ctx.Of(tb.keys[i])
		reports = reports || tb.keys[i].Reports()
	}
	tb.n = cells
	tb.rows = e + 1
	return tb, reports
}

// tableDelims are the delimiters of CSV a header may have, in the order
// they are tried.
var tableDelims = [...]byte{'\t', ';', ',', '|'}

// delimCounts counts each of tableDelims in line, eight bytes at a time
// (not with a strings.Count for each: a header's candidates are often
// paragraphs, and a loop over their bytes costs in the VM), the last
// bytes as one more word (tailWord: NUL, no delimiter, above them). The
// counts are locals until the end: an array's elements stay in memory.
func delimCounts(line string) (n [len(tableDelims)]int) {
	m0, m1, m2, m3 := uint64(tableDelims[0])*swarOnes, uint64(tableDelims[1])*swarOnes, uint64(tableDelims[2])*swarOnes, uint64(tableDelims[3])*swarOnes
	var n0, n1, n2, n3 int
	for i := 0; i < len(line); i += 8 {
		var x uint64
		if i+8 <= len(line) {
			x = load64(line, i)
		} else {
			x = tailWord(line, i)
		}
		// bytesOf, with each delimiter's word made once.
		y0, y1, y2, y3 := x^m0, x^m1, x^m2, x^m3
		n0 += bits.OnesCount64(^((y0&swarLow7 + swarLow7) | y0) & swarHigh)
		n1 += bits.OnesCount64(^((y1&swarLow7 + swarLow7) | y1) & swarHigh)
		n2 += bits.OnesCount64(^((y2&swarLow7 + swarLow7) | y2) & swarHigh)
		n3 += bits.OnesCount64(^((y3&swarLow7 + swarLow7) | y3) & swarHigh)
	}
	return [len(tableDelims)]int{n0, n1, n2, n3}
}

// bytesOf marks (high bit) the bytes of x equal to c, exactly: no borrow
// runs from one byte into the next.
func bytesOf(x uint64, c byte) uint64 {
	y := x ^ uint64(c)*swarOnes
	return ^((y&swarLow7 + swarLow7) | y) & swarHigh
}

// tableRows reports the cells of tb's rows and returns where its rows end.
func (p *pass) tableRows(tb *table) int {
	s := p.s
	on := uint64(p.on) | p.fam
	a := tb.rows
	for a < len(s) {
		e := lineEnd(s, a)
		line := strings.TrimRight(s[a:e], "\r")
		if strings.TrimSpace(line) == "" || tb.pipe && !strings.HasPrefix(line, "|") {
			return a
		}
		if tb.pipe && strings.Trim(line, "|-: ") == "" {
			a = e + 1
			continue // |---|:--:|
		}
		// A row has the header's cells, no more, no fewer: a line of
		// prose after the table ends it.
		var cells [tableMaxColumns]tableCell
		n := 0
		for c := range tableCells(line, tb.delim, tb.pipe) {
			if n == tb.n {
				return a
			}
			cells[n] = c
			n++
		}
		if n != tb.n {
			return a
		}
		for col, c := range cells[:n] {
			k := tb.keys[col]
			if !k.Reports() {
				continue
			}
			if det, da, db, ok := keyedSpan(c.text, k, on); ok {
				p.emitBy(det, BasisKey, a+c.at+da, a+c.at+db)
			}
		}
		a = e + 1
	}
	return len(s)
}

// tableCell is a cell of a row: its text (without the quotes of a quoted
// CSV field) and where that text starts in the line.
type tableCell struct {
	text string
	at   int
}

// tableCells yields the cells of line split at delim: a CSV field in
// double quotes may hold the delimiter; a '|' table's outer bars open
// and close no cell.
func tableCells(line string, delim byte, pipe bool) func(func(tableCell) bool) {
	return func(yield func(tableCell) bool) {
		i, end := 0, len(line)
		if pipe {
			i = 1
			if t := strings.TrimRight(line, " "); len(t) > 1 && t[len(t)-1] == '|' {
				end = len(t) - 1
			}
		}
		for i <= end {
			if !pipe && i < end && line[i] == '"' {
				q := strings.IndexByte(line[i+1:end], '"')
				if q >= 0 {
					if !yield(tableCell{line[i+1 : i+1+q], i + 1}) {
						return
					}
					i += q + 2
					if i < end && line[i] == delim {
						i++
						continue
					}
					return
				}
			}
			j := strings.IndexByte(line[i:end], delim)
			if j < 0 {
				j = end - i
			}
			if !yield(tableCell{line[i : i+j], i}) {
				return
			}
			i += j + 1
			if i > end {
				return
			}
		}
	}
}
