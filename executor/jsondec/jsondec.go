// Package jsondec owns the json input format of SPEC 1: one JSON object per line,
// read into typed column batches (executor/vector), with malformed lines reported
// (line number, raw text, reason) instead of failing. Its API is csvdec's.
//
// The rules are SPEC 1's, not encoding/json's:
//
//   - a line holding only JSON whitespace is blank and skipped; a UTF-8 BOM at the
//     start of the input is skipped; a line ends at LF or CRLF;
//   - the whole line must be one JSON object (RFC 8259, strictly: no comments, no
//     trailing commas, no NaN, no leading zeros, no raw control characters in
//     strings); anything else, and any invalid UTF-8, makes the row malformed; so
//     does a \u escape that is half of a surrogate pair (never a silent U+FFFD);
//   - fields are matched to columns by name, case-sensitively (after unescaping
//     the name); the last of duplicate fields wins; other fields are checked but
//     ignored; a missing field or null is NULL;
//   - BIGINT: a JSON number without fraction and exponent, read exactly (no float64
//     round trip), in int64 range; TIMESTAMP: such a number (epoch milliseconds);
//     DOUBLE: any JSON number; BOOLEAN: true or false; for these four a JSON string
//     is read as text is read (package textconv: trimmed, "12", "1e3", "NaN",
//     "TRUE", "2021-01-17 12:48:29"), so "" is malformed; any other JSON value is
//     malformed;
//   - VARCHAR: a string is unescaped; any other value is kept as its compact JSON
//     text (whitespace outside strings removed, as json.Compact does);
//   - ARRAY, MAP and ROW (SPEC 2.10): a JSON array or object, read into the
//     column's child vectors by SetNested (nested.go).
//
// Decoding allocates nothing per row: the decoder reads into one buffer, VARCHAR
// values point into it (strings with escapes and containers with whitespace are
// copied into the vector's arena).
package jsondec

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"streamql/catalog"
	"streamql/catalog/textconv"
	"streamql/executor/records"
	"streamql/executor/vector"
)

// Options are the json format options.
type Options struct {
	// NotNull marks, per column, a column whose NULL makes the row malformed (the
	// event-time column of a stream with a watermark, SPEC 2.3); nil = none.
	NotNull []bool
	// Lines, when set, is asked about every line before it is parsed (the
	// 'encoding' layer, package textenc; see records.LineChecker).
	Lines records.LineChecker
	// MaxRecord is the stream option 'max-record-size' (SPEC 1) in bytes: a line
	// longer than it (without its line end) is malformed, with its first
	// inbuf.RawPrefix bytes as raw, and reading goes on after it; the buffer
	// never grows past it. 0 means inbuf.DefaultMaxRecord.
	MaxRecord int
	// Continues says the input goes on where an earlier reader of the same
	// source stopped (a later job reading stdin, SPEC 1): a BOM is only at the
	// very start, so none is skipped here.
	Continues bool
	// Limit is records.Config's: for a chunk of a file decoded on its own
	// (executor/chunked; see Restart).
	Limit int64
}

// BadRow is a malformed line; see records.BadRow (one line is one record here).
type BadRow = records.BadRow

const initialBufSize = 256 << 10

// bufSize is the size of a new decoder's buffer; tests make it tiny.
var bufSize = initialBufSize

// Kinds of JSON values.
const (
	kMissing uint8 = iota
	kNull
	kString
	kNumber
	kTrue
	kFalse
	kObject
	kArray
)

// value is the last value of a column's field in the current line.
type value struct {
	kind       uint8
	flag       bool // string: has escapes; number: has a fraction or exponent; container: has whitespace
	start, end int  // the value's text in the line (a string with its quotes)
}

// Decoder reads JSON lines into batches. It is not safe for concurrent use.
type Decoder struct {
	names []string
	types []catalog.Type
	opts  Options
	index map[string]int

	vals    []value // per column
	hint    int     // the column after the last one matched: fields usually come in order
	stack   []byte  // open containers while skipping a value
	scratch []byte

	pendPos int            // the buffered input's first pendPos bytes hold no LF
	r       records.Reader // the record loop, with this decoder as its format
}

// NewDecoder returns a decoder reading JSON lines from r into columns named names
// with types types (SPEC 1 types); fields are matched to names case-sensitively.
func NewDecoder(r io.Reader, names []string, types []catalog.Type, opts Options) *Decoder {
	d := &Decoder{
		names: names,
		types: types,
		opts:  opts,
		index: make(map[string]int, len(names)),
		vals:  make([]value, len(types)),
		stack: make([]byte, 0, 16),
	}
	for j, n := range names {
		if j < len(types) {
			d.index[n] = j
		}
	}
	d.init(r)
	return d
}

func (d *Decoder) init(r io.Reader) {
	d.pendPos, d.hint = 0, 0
	d.r.Init(r, (*format)(d), records.Config{
		Name: "json", Types: d.types, BufSize: bufSize, Lines: d.opts.Lines, MaxRecord: d.opts.MaxRecord,
		Continues: d.opts.Continues, Limit: d.opts.Limit,
	})
}

// Restart makes d read r from its start, as a new decoder with d's names,
// types and options but for s (Options.Continues, Limit; json has no header),
// for a chunk of a file decoded on its own (executor/chunked). It reuses d's
// memory: what the last Decode gave is invalid from then on.
func (d *Decoder) Restart(r io.Reader, s records.Span) {
	d.opts.Continues, d.opts.Limit = s.Continues, s.Limit
	d.init(r)
}

// End tells where d stopped once Decode returned io.EOF: at Options.Limit
// (records.End).
func (d *Decoder) End() records.End { return d.r.End() }

// BytesRead returns the number of bytes read from the reader so far (a BOM
// included), for progress reporting.
func (d *Decoder) BytesRead() int64 { return d.r.BytesRead() }

// Decode resets b and fills it with up to vector.Cap good rows (b.Pos[i] = row
// i's line), appending malformed lines to *bad, as records.Reader.Decode says.
// VARCHAR values and BadRow.Raw are valid until the next call of Decode. It
// returns io.EOF at the end of input, a read error, or the error of a batch of
// the wrong shape.
func (d *Decoder) Decode(b *vector.Batch, bad *[]BadRow) error {
	return d.r.Decode(b, bad)
}

// Rest returns the input the caller did not use when it used only the first
// rows good rows of the last batch (rows < 0: all), byte for byte, valid until
// the next Decode: see records.Reader.Rest.
func (d *Decoder) Rest(rows int) []byte { return d.r.Rest(rows) }

// RestAfter is Rest when the caller used the first rows good rows and the
// first bad malformed rows of the last batch (records.Reader.RestAfter: a job
// with 'errors'='fail' stops at its first malformed row, SPEC 1).
func (d *Decoder) RestAfter(rows, bad int) []byte { return d.r.RestAfter(rows, bad) }

// RestLine returns the 1-based input line where RestAfter(rows, bad) starts,
// from which a later reader of the same source numbers its lines (SPEC 1,
// stdin:line; records.Reader.RestLine).
func (d *Decoder) RestLine(rows, bad int) int64 { return d.r.RestLine(rows, bad) }

// format is the Decoder as the records.Reader sees it: a record is one line.
type format Decoder

// Scan implements records.Format: the line ends at the next LF (a CR before it
// is not part of the line).
func (f *format) Scan(data []byte, _ int, eof bool) (recLen, adv int, kind records.Kind, ok bool) {
	recLen, adv, blank, ok := ScanLine(data, &f.pendPos, eof)
	if blank {
		kind = records.Blank
	}
	return recLen, adv, kind, ok
}

// ScanLine finds the JSON line at the start of data (a records.Format's Scan
// for one JSON value per line; executor/cdc reads its changelog records so):
// the line's length without its LF (and a CR before it), the bytes to consume,
// whether it holds JSON whitespace only, and ok = false when no LF is buffered
// yet and eof is false. *pend is where the last call stopped looking, reset
// to 0 when a line is found (and by the caller when the data is dropped).
func ScanLine(data []byte, pend *int, eof bool) (recLen, adv int, blank, ok bool) {
	if k := bytes.IndexByte(data[*pend:], '\n'); k >= 0 {
		k += *pend
		*pend = 0
		recLen, adv = k, k+1
		if k > 0 && data[k-1] == '\r' {
			recLen--
		}
	} else if !eof {
		*pend = len(data)
		return 0, 0, false, false
	} else {
		*pend = 0
		recLen, adv = len(data), len(data)
	}
	return recLen, adv, skipWS(data[:recLen], 0) == recLen, true
}

// Dropped implements records.Format.
func (f *format) Dropped() { f.pendPos = 0 }

// Refilled implements records.Format: pendPos is relative to the unconsumed
// input, which a fill does not change.
func (f *format) Refilled() {}

// wsTab marks JSON whitespace; strSafe the bytes a string holds as they are.
var wsTab, strSafe [256]bool

func init() {
	for _, c := range " \t\r\n" {
		wsTab[c] = true
	}
	for c := 0x20; c < 256; c++ {
		strSafe[c] = c != '"' && c != '\\'
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && wsTab[b[i]] {
		i++
	}
	return i
}

// syntaxErr is a JSON syntax error at byte pos of the line.
type syntaxErr struct {
	pos int
	msg string
}

func (e *syntaxErr) reason(rec []byte) string {
	if e.pos >= len(rec) {
		if strings.HasPrefix(e.msg, "inside") {
			return "invalid JSON: the line ends " + e.msg
		}
		return "invalid JSON: the line ends too early (" + e.msg + ")"
	}
	return "invalid JSON at byte " + strconv.Itoa(e.pos+1) + ": " + e.msg
}

// Syntax errors are values without allocation: msg texts are constants and the
// error is returned by pointer to a decoder-owned struct.
func (d *Decoder) fail(err *syntaxErr, pos int, msg string) *syntaxErr {
	err.pos, err.msg = pos, msg
	return err
}

// Record implements records.Format: it parses rec (a non-blank line without its
// line end) and stores it as row b.N. It returns "" on success, else the reason
// the line is malformed.
func (f *format) Record(b *vector.Batch, rec []byte) string {
	d := (*Decoder)(f)
	if !utf8.Valid(rec) {
		return "invalid UTF-8 at byte " + strconv.Itoa(firstInvalidUTF8(rec)+1)
	}
	for j := range d.vals {
		d.vals[j].kind = kMissing
	}
	var se syntaxErr
	if err := d.parseObject(rec, &se); err != nil {
		if err.msg == "" {
			return "not a JSON object"
		}
		return err.reason(rec)
	}
	row := b.N
	ncols := len(d.types)
	for j, v := range b.Cols[:ncols] {
		val := d.vals[j]
		if val.kind == kMissing || val.kind == kNull {
			v.Null[row] = true
			continue
		}
		if reason := d.setValue(v, j, row, rec, val); reason != "" {
			return reason
		}
	}
	for j, nn := range d.opts.NotNull {
		if nn && j < ncols && b.Cols[j].Null[row] {
			return "column " + d.name(j) + ": the event-time column is NULL"
		}
	}
	return ""
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// parseObject parses rec as one JSON object, recording the fields of known
// columns in d.vals. It returns nil, or the error (msg "" when the line is not an
// object at all).
func (d *Decoder) parseObject(rec []byte, se *syntaxErr) *syntaxErr {
	n := len(rec)
	i := skipWS(rec, 0)
	if i >= n || rec[i] != '{' {
		return d.fail(se, i, "")
	}
	i = skipWS(rec, i+1)
	if i < n && rec[i] == '}' {
		i++
	} else {
		for {
			if i >= n || rec[i] != '"' {
				return d.fail(se, i, "expected a field name")
			}
			ks := i
			var esc bool
			var err *syntaxErr
			if i, esc, err = d.scanString(rec, i, se); err != nil {
				return err
			}
			col := d.lookup(rec[ks+1:i-1], esc)
			i = skipWS(rec, i)
			if i >= n || rec[i] != ':' {
				return d.fail(se, i, "expected ':' after a field name")
			}
			i = skipWS(rec, i+1)
			vs := i
			var kind uint8
			var flag bool
			if kind, i, flag, err = d.skipValue(rec, i, se); err != nil {
				return err
			}
			if col >= 0 {
				d.vals[col] = value{kind: kind, flag: flag, start: vs, end: i}
			}
			i = skipWS(rec, i)
			if i < n && rec[i] == ',' {
				i = skipWS(rec, i+1)
				continue
			}
			if i < n && rec[i] == '}' {
				i++
				break
			}
			return d.fail(se, i, "expected ',' or '}' after a field")
		}
	}
	if i = skipWS(rec, i); i != n {
		return d.fail(se, i, "text after the object")
	}
	return nil
}

// lookup returns the column of the field named by key (the text between the
// quotes), or -1.
func (d *Decoder) lookup(key []byte, esc bool) int {
	if esc {
		d.scratch = appendUnescaped(d.scratch[:0], key)
		key = d.scratch
	}
	if h := d.hint; h < len(d.names) && h < len(d.types) && string(key) == d.names[h] {
		d.hint = h + 1
		return h
	}
	if j, ok := d.index[string(key)]; ok {
		d.hint = j + 1
		return j
	}
	return -1
}

// scanString scans the string starting with the quote at rec[i] (rec is valid
// UTF-8) and returns the index after its closing quote and whether it has escapes.
func (d *Decoder) scanString(rec []byte, i int, se *syntaxErr) (int, bool, *syntaxErr) {
	n := len(rec)
	esc := false
	j := i + 1
	for {
		for j < n && strSafe[rec[j]] {
			j++
		}
		if j >= n {
			return 0, false, d.fail(se, n, "inside a string")
		}
		switch c := rec[j]; {
		case c == '"':
			return j + 1, esc, nil
		case c == '\\':
			esc = true
			if j+1 >= n {
				return 0, false, d.fail(se, n, "inside a string")
			}
			switch rec[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				r, ok := hex4(rec, j+2)
				if !ok {
					return 0, false, d.fail(se, j, `invalid \u escape`)
				}
				if utf16.IsSurrogate(r) {
					if r >= 0xDC00 || j+12 > n || rec[j+6] != '\\' || rec[j+7] != 'u' {
						return 0, false, d.fail(se, j, `\u escape of half a surrogate pair`)
					}
					r2, ok := hex4(rec, j+8)
					if !ok || r2 < 0xDC00 || r2 > 0xDFFF {
						return 0, false, d.fail(se, j, `\u escape of half a surrogate pair`)
					}
					j += 6
				}
				j += 6
			default:
				return 0, false, d.fail(se, j, "invalid escape")
			}
		default: // a control character
			return 0, false, d.fail(se, j, "control character in a string")
		}
	}
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// scanNumber scans the JSON number at rec[i] and returns the index after it and
// whether it has a fraction or an exponent.
func (d *Decoder) scanNumber(rec []byte, i int, se *syntaxErr) (int, bool, *syntaxErr) {
	n := len(rec)
	j := i
	if rec[j] == '-' {
		j++
	}
	switch {
	case j < n && rec[j] == '0':
		j++
	case j < n && '1' <= rec[j] && rec[j] <= '9':
		for j < n && '0' <= rec[j] && rec[j] <= '9' {
			j++
		}
	default:
		return 0, false, d.fail(se, j, "invalid number")
	}
	frac := false
	if j < n && rec[j] == '.' {
		frac = true
		j++
		k := j
		for j < n && '0' <= rec[j] && rec[j] <= '9' {
			j++
		}
		if j == k {
			return 0, false, d.fail(se, j, "invalid number")
		}
	}
	if j < n && (rec[j] == 'e' || rec[j] == 'E') {
		frac = true
		j++
		if j < n && (rec[j] == '+' || rec[j] == '-') {
			j++
		}
		k := j
		for j < n && '0' <= rec[j] && rec[j] <= '9' {
			j++
		}
		if j == k {
			return 0, false, d.fail(se, j, "invalid number")
		}
	}
	return j, frac, nil
}

// scanScalar scans a scalar value at rec[i] (i < len(rec)).
func (d *Decoder) scanScalar(rec []byte, i int, se *syntaxErr) (kind uint8, end int, flag bool, err *syntaxErr) {
	switch c := rec[i]; {
	case c == '"':
		end, flag, err = d.scanString(rec, i, se)
		return kString, end, flag, err
	case c == '-' || ('0' <= c && c <= '9'):
		end, flag, err = d.scanNumber(rec, i, se)
		return kNumber, end, flag, err
	case c == 't' && bytes.HasPrefix(rec[i:], litTrue):
		return kTrue, i + 4, false, nil
	case c == 'f' && bytes.HasPrefix(rec[i:], litFalse):
		return kFalse, i + 5, false, nil
	case c == 'n' && bytes.HasPrefix(rec[i:], litNull):
		return kNull, i + 4, false, nil
	}
	return 0, 0, false, d.fail(se, i, "expected a value")
}

var (
	litTrue  = []byte("true")
	litFalse = []byte("false")
	litNull  = []byte("null")
)

// skipValue scans the value at rec[i]: a scalar, or an object or array with all
// it holds (checked). For a container, flag reports whitespace inside it outside
// strings.
func (d *Decoder) skipValue(rec []byte, i int, se *syntaxErr) (kind uint8, end int, flag bool, err *syntaxErr) {
	n := len(rec)
	if i >= n {
		return 0, 0, false, d.fail(se, n, "expected a value")
	}
	c := rec[i]
	if c != '{' && c != '[' {
		return d.scanScalar(rec, i, se)
	}
	kind = kArray
	if c == '{' {
		kind = kObject
	}
	stack := append(d.stack[:0], c)
	i++
	ws := false
	first := true // just after an opening bracket
	afterElem := false
	for {
		j := skipWS(rec, i)
		if j != i {
			ws = true
			i = j
		}
		if i >= n {
			d.stack = stack
			return 0, 0, false, d.fail(se, n, "inside an object or array")
		}
		top := stack[len(stack)-1]
		closer := byte(']')
		if top == '{' {
			closer = '}'
		}
		if afterElem || (first && rec[i] == closer) {
			if rec[i] == closer {
				stack = stack[:len(stack)-1]
				i++
				if len(stack) == 0 {
					d.stack = stack
					return kind, i, ws, nil
				}
				first, afterElem = false, true
				continue
			}
			if rec[i] != ',' {
				d.stack = stack
				if top == '{' {
					return 0, 0, false, d.fail(se, i, "expected ',' or '}' in an object")
				}
				return 0, 0, false, d.fail(se, i, "expected ',' or ']' in an array")
			}
			i++
			first, afterElem = false, false
			continue
		}
		// An element.
		if top == '{' {
			if rec[i] != '"' {
				d.stack = stack
				return 0, 0, false, d.fail(se, i, "expected a field name")
			}
			if i, _, err = d.scanString(rec, i, se); err != nil {
				d.stack = stack
				return 0, 0, false, err
			}
			if j := skipWS(rec, i); j != i {
				ws = true
				i = j
			}
			if i >= n || rec[i] != ':' {
				d.stack = stack
				return 0, 0, false, d.fail(se, i, "expected ':' after a field name")
			}
			i++
			if j := skipWS(rec, i); j != i {
				ws = true
				i = j
			}
			if i >= n {
				d.stack = stack
				return 0, 0, false, d.fail(se, n, "expected a value")
			}
		}
		if c := rec[i]; c == '{' || c == '[' {
			stack = append(stack, c)
			i++
			first, afterElem = true, false
			continue
		}
		if _, i, _, err = d.scanScalar(rec, i, se); err != nil {
			d.stack = stack
			return 0, 0, false, err
		}
		first, afterElem = false, true
	}
}

// setValue stores val (a non-null value of column j) as row row of v. It returns
// "" or the reason the value is malformed.
func (d *Decoder) setValue(v *vector.Vec, j, row int, rec []byte, val value) string {
	text := rec[val.start:val.end]
	switch v.Type {
	case catalog.Varchar, catalog.BigInt, catalog.Double, catalog.Boolean, catalog.Timestamp:
	default: // a nested type, or Unknown: a NULL-only column
		if v.Type.IsNested() {
			if reason := SetNested(v, row, text); reason != "" {
				return "column " + d.name(j) + ": " + reason
			}
			return ""
		}
		v.Null[row] = true
		return ""
	}
	if v.Type == catalog.Varchar {
		switch {
		case val.kind == kString && !val.flag:
			s := text[1 : len(text)-1]
			v.S[row] = s[:len(s):len(s)]
		case val.kind == kString:
			start := len(v.Arena)
			v.Arena = appendUnescaped(v.Arena, text[1:len(text)-1])
			v.S[row] = v.Arena[start:len(v.Arena):len(v.Arena)]
		case (val.kind == kObject || val.kind == kArray) && val.flag:
			start := len(v.Arena)
			v.Arena = appendCompact(v.Arena, text)
			v.S[row] = v.Arena[start:len(v.Arena):len(v.Arena)]
		default:
			v.S[row] = text[:len(text):len(text)]
		}
		v.Null[row] = false
		return ""
	}
	var t []byte // text to read as text is read
	switch val.kind {
	case kString:
		t = text[1 : len(text)-1]
		if val.flag {
			d.scratch = appendUnescaped(d.scratch[:0], t)
			t = d.scratch
		}
	case kNumber:
		t = text
		if val.flag && (v.Type == catalog.BigInt || v.Type == catalog.Timestamp) {
			return d.invalid(j, text, v.Type)
		}
	case kTrue, kFalse:
		if v.Type == catalog.Boolean {
			v.B[row] = val.kind == kTrue
			v.Null[row] = false
			return ""
		}
		return d.invalid(j, text, v.Type)
	default:
		return d.invalid(j, text, v.Type)
	}
	ok := false
	switch v.Type {
	case catalog.BigInt:
		v.I[row], ok = textconv.ParseInt(t)
	case catalog.Double:
		v.F[row], ok = textconv.ParseDouble(t)
	case catalog.Boolean:
		if val.kind == kString {
			v.B[row], ok = textconv.ParseBool(t)
		}
	case catalog.Timestamp:
		v.I[row], ok = textconv.ParseTimestamp(t)
	}
	if !ok {
		return d.invalid(j, text, v.Type)
	}
	v.Null[row] = false
	return ""
}

// invalid is the reason for a value of column j that its type cannot hold.
func (d *Decoder) invalid(j int, text []byte, t catalog.Type) string {
	const maxShown = 64
	shown := string(text)
	if len(text) > maxShown {
		k := maxShown
		for k > 0 && !utf8.RuneStart(text[k]) {
			k--
		}
		shown = string(text[:k]) + "..."
	}
	name := t.String()
	if t == catalog.Timestamp {
		name = "TIMESTAMP"
	}
	return "column " + d.name(j) + ": " + shown + " is not a valid " + name
}

func (d *Decoder) name(j int) string {
	if j < len(d.names) {
		return d.names[j]
	}
	return "#" + strconv.Itoa(j+1)
}

// appendUnescaped appends the JSON string content s (valid, between its quotes)
// unescaped to dst.
func appendUnescaped(dst, s []byte) []byte {
	for {
		k := bytes.IndexByte(s, '\\')
		if k < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:k]...)
		c := s[k+1]
		s = s[k+2:]
		switch c {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, _ := hex4(s, 0)
			s = s[4:]
			if utf16.IsSurrogate(r) && len(s) >= 6 { // checked: a valid pair
				r2, _ := hex4(s, 2)
				r = utf16.DecodeRune(r, r2)
				s = s[6:]
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, c)
		}
	}
}

// appendCompact appends the valid JSON value v without whitespace outside strings.
func appendCompact(dst, v []byte) []byte {
	for i := 0; i < len(v); {
		c := v[i]
		if wsTab[c] {
			i++
			continue
		}
		if c != '"' {
			dst = append(dst, c)
			i++
			continue
		}
		j := i + 1
		for v[j] != '"' {
			if v[j] == '\\' {
				j++
			}
			j++
		}
		dst = append(dst, v[i:j+1]...)
		i = j + 1
	}
	return dst
}

// DecodeValue decodes rec, one whole JSON object given on its own (a Kafka
// record value, SPEC 2.5: line breaks inside it are JSON whitespace), as row
// b.N of b, whose first columns have the decoder's types. It does not change
// b.N or b.Pos; it returns "" when the row is good, else the reason it is
// malformed (the same reasons Decode gives). It allocates nothing.
func (d *Decoder) DecodeValue(b *vector.Batch, rec []byte) string {
	return (*format)(d).Record(b, rec)
}
