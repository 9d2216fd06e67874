package codec

import (
	"io"

	"streamql/catalog"
	"streamql/executor/csvdec"
	"streamql/executor/format"
	"streamql/executor/vector"
)

// csvRecord is csv's code (SPEC 1, 4): csvdec reads it, with the stream's
// 'csv.*' options; sinks write PostgreSQL's CSV quoting (executor/format)
// with a header line.
var csvRecord = rowRecord(newCSV, inferCSV,
	func(cols []catalog.Column, o LineOptions) LineEncoder {
		return &csvLines{cols: cols, delim: delimOr(o.Delim), op: o.Op}
	},
	func(delim byte) RowEncoder {
		d := delimOr(delim)
		return func(dst []byte, cols []catalog.Column, vals []*vector.Vec, i int) []byte {
			return format.AppendCSVRow(dst, cols, vals, i, d)
		}
	})

// newCSV returns the csv decoder of st over r.
func newCSV(st *catalog.Stream, r io.Reader, o DecodeOptions) *csvdec.Decoder {
	c := st.Shared()
	opts := csvdec.Options{
		Delimiter:   c.CSV.Delimiter,
		Quote:       c.CSV.Quote,
		Header:      c.CSV.Header,
		AllowRagged: c.CSV.AllowRagged,
		NotNull:     o.NotNull,
		Lines:       o.Lines,
		MaxRecord:   o.MaxRecord,
		Continues:   o.Continues,
	}
	if opts.Header && !o.Continues {
		_, opts.FieldMap = CSVHeader(st) // SPEC 1: by the header's names
	}
	if c.CSV.HasNullLiteral {
		opts.NullLiteral, opts.HasNull = []byte(c.CSV.NullLiteral), true
	}
	return csvdec.NewDecoder(r, st.Names(), st.Types(), opts)
}

// csvLines is csv's LineEncoder: a header line, then a line per row; with
// an op column, each row's kind first.
type csvLines struct {
	cols  []catalog.Column
	delim byte
	op    bool
}

func (e *csvLines) Header(dst []byte) []byte {
	return append(format.AppendCSVHeader(dst, e.cols, e.delim), '\n')
}

func (e *csvLines) Append(dst []byte, vals []*vector.Vec, i int, k vector.RowKind) []byte {
	if e.op {
		dst = append(append(dst, k.String()...), e.delim)
		return append(format.AppendCSVRow(dst, e.cols[1:], vals[1:], i, e.delim), '\n')
	}
	return append(format.AppendCSVRow(dst, e.cols, vals, i, e.delim), '\n')
}

func (e *csvLines) End(dst []byte) []byte { return dst }
