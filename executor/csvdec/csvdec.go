// Package csvdec owns the csv input format of SPEC 1: it reads CSV text from an
// io.Reader into typed column batches (executor/vector), reporting malformed rows
// with their line number, raw text and reason instead of failing.
//
// The rules are SPEC 1's, not encoding/csv's: RFC 4180 quoting with a configurable
// quote character, records ending at LF or CRLF (a lone CR is data, a CRLF inside
// quotes stays CRLF), a UTF-8 BOM skipped, blank lines skipped, positional fields,
// quotes inside unquoted fields kept as data, and field text converted to values
// with package textconv.
//
// Decoding is the hot path of the engine: a Decoder reads into one large buffer
// that grows only for records longer than it (up to 'max-record-size': a longer
// record is skipped as it arrives, keeping its first 64 KiB for raw), VARCHAR
// values point into that buffer (only quoted fields with doubled quotes are
// copied, into the vector's arena), and a batch is decoded without allocating.
package csvdec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"streamql/catalog"
	"streamql/catalog/textconv"
	"streamql/executor/jsondec"
	"streamql/executor/records"
	"streamql/executor/vector"
)

// Options are the csv format options of SPEC 1 (csv.delimiter, csv.quote,
// csv.header, csv.null-literal, csv.allow-ragged).
type Options struct {
	Delimiter   byte   // field separator; 0 means ','
	Quote       byte   // quote character; 0 means '"'
	Header      bool   // skip the first record (csv.header)
	NullLiteral []byte // when HasNull: an UNQUOTED field equal to it is NULL
	HasNull     bool   // NullLiteral is set (csv.null-literal)
	AllowRagged bool   // missing trailing fields read as NULL, extra ones dropped
	// NotNull marks, per column, a column whose NULL makes the row malformed (the
	// event-time column of a stream with a watermark, SPEC 2.3); nil = none.
	NotNull []bool
	// Lines, when set, is asked about every record before it is split: a record
	// that holds a line the 'encoding' layer found invalid (package textenc) is
	// malformed with the raw text and reason Lines gives. nil = no check.
	Lines LineChecker
	// MaxRecord is the stream option 'max-record-size' (SPEC 1) in bytes: a
	// record whose text (without its line end) is longer is malformed, with its
	// first inbuf.RawPrefix bytes as raw, and reading goes on after it; the
	// buffer never grows past it. 0 means inbuf.DefaultMaxRecord.
	MaxRecord int
	// Continues says the input goes on where an earlier reader of the same
	// source stopped (a later job reading stdin, SPEC 1): a BOM and the header
	// line are only at the very start, so neither is skipped here.
	Continues bool
	// HeaderPending and Limit are records.Config's: for a chunk of a file
	// decoded on its own (executor/chunked; see Restart).
	HeaderPending bool
	Limit         int64
	// FieldMap, when not nil, maps fields by the header's names (SPEC 1,
	// csv.header): a record must have len(FieldMap) fields (fewer or more
	// with AllowRagged), and its field k fills column FieldMap[k], or is
	// ignored when that is -1 (a header name the stream does not declare).
	// nil reads fields by position. HeaderMap computes it.
	FieldMap []int
}

// LineChecker reports input lines found malformed before decoding (by the
// 'encoding' layer); see records.LineChecker.
type LineChecker = records.LineChecker

// BadRow is a malformed record (SPEC 1, "Bad input"); see records.BadRow.
type BadRow = records.BadRow

const initialBufSize = 256 << 10

// bufSize is the size of a new decoder's buffer; tests make it tiny to exercise
// buffer growth and compaction.
var bufSize = initialBufSize

// Scanner states inside a record.
const (
	stFieldStart    uint8 = iota // at the first byte of a field
	stUnquoted                   // inside an unquoted field (or after a closing quote)
	stQuoted                     // inside a quoted field
	stQuoteInQuoted              // just after a quote inside a quoted field
)

// field is one field of the current record.
type field struct {
	b      []byte // the field's bytes; for a quoted field without its quotes
	quoted bool
	esc    bool // quoted and contains doubled quotes, to be undoubled
}

// Decoder reads CSV records into batches. It is not safe for concurrent use.
type Decoder struct {
	names  []string
	types  []catalog.Type
	opts   Options
	delim  byte
	quote  byte
	optErr error

	hasVarchar bool
	plainKinds bool // every column is one plainRow decodes

	// The record the last scan found: it has a quoted field; it ends inside
	// an unclosed quote; it holds no quote at all, scanned in one call (so a
	// csv encoder may copy it whole, vector.Batch.Line).
	recQuoted, recUnclosed, recNoQuote bool

	// Resumable scan of the incomplete record at in.Data(), so a long record
	// arriving in small reads is scanned once.
	pendPos    int
	pendState  uint8
	pendQuoted bool

	// Cache of the next quote position, in buffer positions (in.Start()): qAt is
	// the first quote at or after qFrom in the buffered input (or -1 for none);
	// valid while qValid, which a fill clears.
	qFrom, qAt int
	qValid     bool

	fields  []field
	scratch []byte
	texts   shortTexts // VARCHAR texts found valid (recordPlain)

	r records.Reader // the record loop, with this decoder as its format
}

// NewDecoder returns a decoder reading CSV from r into columns named names with
// types types (SPEC 1 types), by position. Options with zero Delimiter or Quote get
// the defaults ',' and '"'. A delimiter equal to the quote, or either being CR or
// LF, makes every Decode return an error.
func NewDecoder(r io.Reader, names []string, types []catalog.Type, opts Options) *Decoder {
	d := &Decoder{
		names: names,
		types: types,
		opts:  opts,
		delim: opts.Delimiter,
		quote: opts.Quote,
	}
	if d.delim == 0 {
		d.delim = ','
	}
	if d.quote == 0 {
		d.quote = '"'
	}
	switch {
	case d.delim == d.quote:
		d.optErr = fmt.Errorf("csv: the delimiter and the quote are both %q", d.delim)
	case d.delim == '\n' || d.delim == '\r' || d.quote == '\n' || d.quote == '\r':
		d.optErr = errors.New("csv: the delimiter and the quote cannot be a line end")
	}
	for _, t := range types {
		if t == catalog.Varchar {
			d.hasVarchar = true
		}
	}
	d.plainKinds = plainKinds(types)
	d.fields = make([]field, 0, max(len(types), len(opts.FieldMap))+1)
	d.init(r)
	return d
}

func (d *Decoder) init(r io.Reader) {
	d.pendPos, d.pendState, d.pendQuoted, d.qValid = 0, stFieldStart, false, false
	d.recQuoted, d.recUnclosed = false, false
	d.r.Init(r, (*format)(d), records.Config{
		Name: "csv", Types: d.types, BufSize: bufSize, Header: d.opts.Header,
		Lines: d.opts.Lines, MaxRecord: d.opts.MaxRecord, Err: d.optErr,
		Continues: d.opts.Continues, HeaderPending: d.opts.HeaderPending, Limit: d.opts.Limit,
	})
}

// Restart makes d read r from its start, as a new decoder with d's names,
// types and options but for s (Options.Continues, HeaderPending, Limit), for a
// chunk of a file decoded on its own (executor/chunked). It reuses d's memory:
// what the last Decode gave is invalid from then on.
func (d *Decoder) Restart(r io.Reader, s records.Span) {
	d.opts.Continues, d.opts.HeaderPending, d.opts.Limit = s.Continues, s.HeaderPending, s.Limit
	d.init(r)
}

// End tells where d stopped once Decode returned io.EOF: at Options.Limit
// (records.End).
func (d *Decoder) End() records.End { return d.r.End() }

// BytesRead returns the number of bytes read from the reader so far (a BOM
// included), for progress reporting.
func (d *Decoder) BytesRead() int64 { return d.r.BytesRead() }

// Decode resets b and fills it with up to vector.Cap good rows (b.Pos[i] = the
// line where row i's record starts), appending malformed records to *bad, as
// records.Reader.Decode says; b's first columns have the decoder's types, as
// vector.NewBatch(types) makes them. BIGINT and DOUBLE columns get the rows'
// source texts where they are the printed form (vector.Vec.Text; allocated
// on b's first Decode), and b.Line the records that are byte for byte the
// rows' csv encoding (vector.Batch.Line, with the decoder's delimiter; kept
// when the quote is '"', the one the csv encoder quotes), neither of them
// when b.NoText is set; with b.PlainMarks (see Prepare), the VARCHAR values
// of records without a quote that hold no comma, tab or CR are marked
// format.Plain in their Vec.Text. VARCHAR values,
// those texts and BadRow.Raw point into
// the decoder's buffer or the vectors' arenas and are valid until the next call
// of Decode. It returns io.EOF at the end of input, a read error, or the error
// of an invalid delimiter or quote (see NewDecoder).
func (d *Decoder) Decode(b *vector.Batch, bad *[]BadRow) error {
	d.Prepare(b)
	err := d.r.Decode(b, bad)
	if b.Line != nil && d.quote == '"' && len(b.Cols) >= len(d.types) { // (the csv encoder quotes a field with '"')
		b.LineCols, b.LineDelim = len(d.types), d.delim
	}
	return err
}

// Prepare makes in b, once, the memory Decode keeps the rows' texts in (the
// numbers' Vec.Text and the records' Batch.Line, see Decode; none when
// b.NoText is set; the VARCHAR columns' marks, Vec.Text, when b.PlainMarks
// is set, the quote is '"' and every column is one plainRow decodes), as
// Decode does at b's first call
// (chunked.Preparer: so a batch made up front gets it up front).
func (d *Decoder) Prepare(b *vector.Batch) {
	if b.PlainMarks && d.quote == '"' && d.plainKinds { // (a field of a record without '"' may be marked: plainRow)
		for j, v := range b.Cols[:min(len(d.types), len(b.Cols))] {
			if v.Text == nil && d.types[j] == catalog.Varchar {
				v.Text = make([][]byte, vector.Cap) // once per batch: plainRow marks the plain texts
			}
		}
	}
	if b.NoText {
		return
	}
	for j, v := range b.Cols[:min(len(d.types), len(b.Cols))] {
		if v.Text == nil && (d.types[j] == catalog.BigInt || d.types[j] == catalog.Double) {
			v.Text = make([][]byte, vector.Cap) // once per batch: setPlain keeps the texts
		}
	}
	if b.Line == nil && d.quote == '"' {
		b.Line = make([][]byte, vector.Cap) // once per batch: Record keeps the records' texts
	}
}

// Rest returns the input read from the source that the caller did not use when
// it used only the first rows good rows of the last batch (rows < 0: all), byte
// for byte, valid until the next Decode (records.Reader.Rest). A later reader of
// the same source (the session's stdin, SPEC 1) reads it first.
func (d *Decoder) Rest(rows int) []byte { return d.r.Rest(rows) }

// RestAfter is Rest when the caller used the first rows good rows and the
// first bad malformed rows of the last batch (records.Reader.RestAfter: a job
// with 'errors'='fail' stops at its first malformed row, SPEC 1).
func (d *Decoder) RestAfter(rows, bad int) []byte { return d.r.RestAfter(rows, bad) }

// RestLine returns the 1-based input line where RestAfter(rows, bad) starts,
// from which a later reader of the same source numbers its lines (SPEC 1,
// stdin:line; records.Reader.RestLine).
func (d *Decoder) RestLine(rows, bad int) int64 { return d.r.RestLine(rows, bad) }

// format is the Decoder as the records.Reader sees it: how a CSV record ends
// and how it is decoded.
type format Decoder

// Dropped implements records.Format: the scan resumes at the start of the data
// left, in the state it had.
func (f *format) Dropped() { f.pendPos = 0 }

// Refilled implements records.Format: the quote cache holds buffer positions.
func (f *format) Refilled() { f.qValid = false }

// findQuote returns the index in data of the first quote at or after i, or -1;
// data is the buffered input, at position base in the buffer.
func (d *Decoder) findQuote(data []byte, base, i int) int {
	from := base + i
	if !d.qValid || from < d.qFrom || (d.qAt >= 0 && d.qAt < from) {
		d.qValid = true
		d.qFrom = from
		d.qAt = -1
		if k := bytes.IndexByte(data[i:], d.quote); k >= 0 {
			d.qAt = from + k
		}
	}
	if d.qAt < 0 {
		return -1
	}
	return d.qAt - base
}

// Scan implements records.Format: it finds the end of the CSV record at the
// start of data, where quotes allow it, and notes in recQuoted whether the record
// has a quoted field and in recUnclosed whether it ends inside an unclosed quote
// (only at EOF). When the record is not complete yet the scan state is saved, so
// the next call resumes where this one stopped.
func (f *format) Scan(data []byte, base int, eof bool) (recLen, adv int, kind records.Kind, ok bool) {
	d := (*Decoder)(f)
	i, st := d.pendPos, d.pendState
	quoted := d.pendQuoted
	noQuote := i == 0 // (a resumed scan may have passed one)
	n := len(data)
	lf := -2 // index of the next LF at or after i, -1 for none; -2 unknown
	for {
		switch st {
		case stFieldStart, stUnquoted:
			if lf == -2 || (lf >= 0 && lf < i) {
				lf = bytes.IndexByte(data[i:], '\n')
				if lf >= 0 {
					lf += i
				}
			}
			limit := n
			if lf >= 0 {
				limit = lf
			}
			q := d.findQuote(data, base, i)
			if q < 0 || q >= limit {
				if lf >= 0 {
					d.pendPos, d.pendState, d.pendQuoted = 0, stFieldStart, false
					recLen = limit
					if recLen > 0 && data[recLen-1] == '\r' {
						recLen--
					}
					d.recNoQuote = noQuote
					return recLen, limit + 1, d.found(recLen, quoted, false), true
				}
				if n > i {
					st = stUnquoted
					if data[n-1] == d.delim {
						st = stFieldStart
					}
				}
				i = n
				goto pause
			}
			noQuote = false
			if (q == i && st == stFieldStart) || (q > i && data[q-1] == d.delim) {
				quoted = true
				st = stQuoted
			} else {
				st = stUnquoted // a quote inside an unquoted field is data
			}
			i = q + 1
		case stQuoted:
			k := bytes.IndexByte(data[i:], d.quote)
			if k < 0 {
				i = n
				goto pause
			}
			i += k + 1
			st = stQuoteInQuoted
		case stQuoteInQuoted:
			if i == n {
				goto pause
			}
			if data[i] == d.quote {
				i++
				st = stQuoted // a doubled quote
			} else {
				st = stUnquoted // closed; what follows is checked when splitting
			}
		}
	}
pause:
	if !eof {
		d.pendPos, d.pendState, d.pendQuoted = i, st, quoted
		return 0, 0, 0, false
	}
	// The input ends the record.
	d.pendPos, d.pendState, d.pendQuoted = 0, stFieldStart, false
	d.recNoQuote = false
	return n, n, d.found(n, quoted, st == stQuoted), true
}

// Plain implements records.PlainFormat: records without a quote that
// recordPlain takes, one after the other, as Scan and Record would decode
// them (the rows' texts kept as Record keeps them).
func (f *format) Plain(b *vector.Batch, data []byte, base, rows, starts, maxRec int, ends []int) (n, used int) {
	d := (*Decoder)(f)
	if d.pendPos != 0 || d.pendState != stFieldStart || d.opts.HasNull || !plainRecords || d.opts.FieldMap != nil {
		return 0, 0
	}
	cols := b.Cols[:len(d.types)]
	q := d.findQuote(data, base, 0) // records ending before it hold no quote
	if q < 0 {
		q = len(data)
	}
	pos := 0
	keepLine := b.Line != nil
	for n < rows && pos < starts {
		row := b.N + n
		var ok, line bool
		lf := -1 // the record's LF in data
		if d.plainKinds {
			if lf, ok, line = plainRow(cols, row, data, pos, d.delim, &d.texts, keepLine); lf >= 0 && !ok {
				break // Record's
			}
		}
		decoded := lf >= 0
		if !decoded { // (near the end of data: a word past the record is not in it)
			if lf = bytes.IndexByte(data[pos:], '\n'); lf < 0 {
				break // incomplete: Scan's
			}
			lf += pos
		}
		if lf > q {
			break // a quote in it: Scan's
		}
		rec := data[pos:lf]
		if k := len(rec); k > 0 && rec[k-1] == '\r' {
			rec = rec[:k-1]
		}
		if len(rec) == 0 || len(rec) > maxRec {
			break // blank, or too long: the Reader's
		}
		if !decoded {
			if ok, line = recordPlain(cols, row, rec, d.delim, &d.texts); !ok {
				break // Record's
			}
		}
		if b.Line != nil {
			var l []byte
			if line {
				l = rec[:len(rec):len(rec)]
			}
			b.Line[row] = l
		}
		pos = lf + 1
		ends[n] = base + pos
		n++
	}
	return n, pos
}

// found notes what the record Scan found is and returns its records.Kind: only
// a quoted field holds line ends, and an empty line is blank (an empty quoted
// field is not).
func (d *Decoder) found(recLen int, quoted, unclosed bool) records.Kind {
	d.recQuoted, d.recUnclosed = quoted, unclosed
	if quoted {
		return records.Multiline
	}
	if recLen == 0 {
		return records.Blank
	}
	return 0
}

// Record implements records.Format: it splits rec (the complete record Scan
// found, without its line end) into fields and stores them as row b.N. It
// returns "" on success, else the reason the record is malformed.
func (f *format) Record(b *vector.Batch, rec []byte) string {
	d := (*Decoder)(f)
	if d.recUnclosed {
		return "quote never closed"
	}
	quoted := d.recQuoted
	if d.opts.FieldMap != nil {
		return d.recordMapped(b, rec, quoted)
	}
	ncols := len(d.types)
	fs := d.fields[:0]
	nf := 0
	errField := -1
	row := b.N
	if !quoted && !d.opts.HasNull && plainRecords {
		if ok, line := recordPlain(b.Cols[:ncols], row, rec, d.delim, &d.texts); ok {
			// (plainField stores no NULL: NotNull holds)
			if b.Line != nil {
				var l []byte
				if line && d.recNoQuote {
					l = rec[:len(rec):len(rec)]
				}
				b.Line[row] = l
			}
			return ""
		}
	}
	if b.Line != nil {
		b.Line[row] = nil
	}
	if !quoted {
		// More fields than columns are counted without being stored.
		fs, nf = splitUnquoted(fs, rec, d.delim, ncols)
	} else {
		fs, errField = d.splitQuoted(fs, rec)
		nf = len(fs)
	}
	d.fields = fs
	if errField >= 0 {
		if errField < ncols {
			return "column " + d.name(errField) + ": text after closing quote"
		}
		return "field " + strconv.Itoa(errField+1) + ": text after closing quote"
	}
	if nf != ncols && !d.opts.AllowRagged {
		return "expected " + strconv.Itoa(ncols) + " fields, got " + strconv.Itoa(nf)
	}
	if nf > ncols {
		if k := d.invalidExtra(rec, fs, quoted); k >= 0 {
			return "field " + strconv.Itoa(k+1) + ": invalid UTF-8 (an extra field that 'csv.allow-ragged' drops must still be valid text)"
		}
	}
	for j, v := range b.Cols[:ncols] {
		if j >= len(fs) {
			v.Null[row] = true // ragged: a missing trailing field
			if v.Text != nil {
				v.Text[row] = nil
			}
			continue
		}
		f := fs[j]
		if !f.esc && !d.opts.HasNull && setPlain(v, row, f.b, f.quoted) {
			continue
		}
		if reason := d.setField(v, j, row, f); reason != "" {
			return reason
		}
		if v.Text != nil {
			v.Text[row] = nil // not the printed form, or not checked: formatted
		}
	}
	for j, nn := range d.opts.NotNull {
		if nn && j < ncols && b.Cols[j].Null[row] {
			return "column " + d.name(j) + ": the event-time column is NULL"
		}
	}
	return ""
}

// invalidExtra returns the index of the first field past the stream's columns
// (dropped by csv.allow-ragged) that is not valid UTF-8, or -1. rec is the
// record and fs its fields as Record split them: every field when quoted,
// only the first len(d.types) otherwise.
func (d *Decoder) invalidExtra(rec []byte, fs []field, quoted bool) int {
	ncols := len(d.types)
	if quoted {
		for k := ncols; k < len(fs); k++ {
			if !utf8.Valid(fs[k].b) {
				return k
			}
		}
		return -1
	}
	extra := rec
	for range ncols {
		extra = extra[bytes.IndexByte(extra, d.delim)+1:]
	}
	if utf8.Valid(extra) {
		return -1
	}
	for k := ncols; ; k++ {
		f := extra
		i := bytes.IndexByte(extra, d.delim)
		if i >= 0 {
			f, extra = extra[:i], extra[i+1:]
		}
		if !utf8.Valid(f) || i < 0 {
			return k
		}
	}
}

// splitQuoted splits a record that has at least one quoted field. It returns the
// fields and the index of the first field with text after its closing quote, or -1.
func (d *Decoder) splitQuoted(fs []field, rec []byte) ([]field, int) {
	q, delim := d.quote, d.delim
	errField := -1
	i, n := 0, len(rec)
	for {
		if i < n && rec[i] == q {
			j := i + 1
			esc := false
			for {
				k := bytes.IndexByte(rec[j:], q)
				if k < 0 {
					// Unreachable for complete records (scan reports them
					// unclosed); keep the text and mark the field bad.
					fs = append(fs, field{b: rec[i+1:], quoted: true, esc: esc})
					if errField < 0 {
						errField = len(fs) - 1
					}
					return fs, errField
				}
				c := j + k
				if c+1 < n && rec[c+1] == q {
					esc = true
					j = c + 2
					continue
				}
				fs = append(fs, field{b: rec[i+1 : c], quoted: true, esc: esc})
				i = c + 1
				break
			}
			if i == n {
				return fs, errField
			}
			if rec[i] == delim {
				i++
				continue
			}
			if errField < 0 {
				errField = len(fs) - 1
			}
			k := bytes.IndexByte(rec[i:], delim)
			if k < 0 {
				return fs, errField
			}
			i += k + 1
			continue
		}
		k := bytes.IndexByte(rec[i:], delim)
		if k < 0 {
			fs = append(fs, field{b: rec[i:]})
			return fs, errField
		}
		fs = append(fs, field{b: rec[i : i+k]})
		i += k + 1
	}
}

// unescape appends f with every doubled quote undoubled.
func appendUnescaped(dst, f []byte, q byte) []byte {
	for {
		k := bytes.IndexByte(f, q)
		if k < 0 {
			return append(dst, f...)
		}
		dst = append(dst, f[:k+1]...)
		f = f[k+2:] // skip the second quote of the pair
	}
}

// setField stores field f of column j as row row of v. It returns "" or the reason
// the value is malformed.
func (d *Decoder) setField(v *vector.Vec, j, row int, f field) string {
	if v.Type == catalog.Varchar {
		s := f.b[:len(f.b):len(f.b)]
		if !f.quoted {
			if d.opts.HasNull && bytes.Equal(s, d.opts.NullLiteral) {
				v.Null[row] = true
				return ""
			}
		}
		if f.esc {
			start := len(v.Arena)
			v.Arena = appendUnescaped(v.Arena, f.b, d.quote)
			s = v.Arena[start:len(v.Arena):len(v.Arena)]
		}
		if !utf8.Valid(s) { // only VARCHAR fields are checked: numbers are ASCII
			return "column " + d.name(j) + ": invalid UTF-8"
		}
		v.S[row] = s
		v.Null[row] = false
		return ""
	}
	t := f.b
	if f.esc {
		d.scratch = appendUnescaped(d.scratch[:0], t, d.quote)
		t = d.scratch
	}
	t = textconv.Trim(t)
	if len(t) == 0 || (!f.quoted && d.opts.HasNull && (bytes.Equal(t, d.opts.NullLiteral) || bytes.Equal(f.b, d.opts.NullLiteral))) {
		v.Null[row] = true
		return ""
	}
	ok := false
	switch v.Type {
	case catalog.BigInt:
		v.I[row], ok = textconv.ParseInt(t)
	case catalog.Double:
		v.F[row], ok = textconv.ParseDouble(t)
	case catalog.Boolean:
		v.B[row], ok = textconv.ParseBool(t)
	case catalog.Timestamp:
		v.I[row], ok = textconv.ParseTimestamp(t)
	default: // a nested type, read from its JSON text (SPEC 2.10); Unknown: a NULL-only column
		if v.Type.IsNested() {
			if !utf8.Valid(t) {
				return "column " + d.name(j) + ": invalid UTF-8"
			}
			if reason := jsondec.SetNested(v, row, t); reason != "" {
				return "column " + d.name(j) + ": " + reason
			}
			return ""
		}
		v.Null[row] = true
		return ""
	}
	if !ok {
		return "column " + d.name(j) + ": " + strconv.Quote(string(t)) + " is not a valid " + typeName(v.Type)
	}
	v.Null[row] = false
	return ""
}

func (d *Decoder) name(j int) string {
	if j < len(d.names) {
		return d.names[j]
	}
	return "#" + strconv.Itoa(j+1)
}

func typeName(t catalog.Type) string {
	if t == catalog.Timestamp {
		return "TIMESTAMP"
	}
	return t.String()
}

// DecodeValue decodes rec, one whole record given on its own (a Kafka record
// value, SPEC 2.5: a line break inside it is data, not a record end), as row
// b.N of b, whose first columns have the decoder's types. It does not change
// b.N or b.Pos; it returns "" when the row is good, else the reason it is
// malformed (the same reasons Decode gives). It allocates nothing.
func (d *Decoder) DecodeValue(b *vector.Batch, rec []byte) string {
	if d.optErr != nil {
		return d.optErr.Error()
	}
	d.recQuoted, d.recUnclosed = d.scanValue(rec)
	d.recNoQuote = false // (its line breaks are data: no Batch.Line)
	return (*format)(d).Record(b, rec)
}

// scanValue reports whether rec has a field that starts with a quote, and
// whether such a field's quote is never closed, by Scan's rules over the whole
// of rec (line ends included).
func (d *Decoder) scanValue(rec []byte) (quoted, unclosed bool) {
	q, delim := d.quote, d.delim
	for i, n := 0, len(rec); i <= n; {
		if i < n && rec[i] == q {
			quoted = true
			j := i + 1
			for {
				k := bytes.IndexByte(rec[j:], q)
				if k < 0 {
					return true, true
				}
				c := j + k
				if c+1 < n && rec[c+1] == q {
					j = c + 2
					continue
				}
				i = c + 1
				break
			}
		}
		k := bytes.IndexByte(rec[i:], delim)
		if k < 0 {
			return quoted, false
		}
		i += k + 1
	}
	return quoted, false
}
