// Package format holds the value encoders of SPEC 4 shared by the command
// line's renderers (cmd/streamql/render) and the executor's sinks (the file
// sink of SPEC 2.5): csv fields quoted as PostgreSQL's CSV output, JSON values
// and strings, and whole csv and json-lines rows. Every function appends to dst
// and returns it; none allocates beyond growing dst.
package format

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf8"

	"streamql/catalog"
	"streamql/catalog/textconv"
	"streamql/executor/vector"
)

// AppendCSVField appends f as a CSV field quoted as PostgreSQL's CSV output does
// (SPEC 4): quoted when it holds the delimiter, a quote, CR or LF, or is empty.
func AppendCSVField(dst, f []byte, delim byte) []byte {
	if !NeedsQuote(f, delim) {
		return append(dst, f...)
	}
	dst = append(dst, '"')
	for _, c := range f {
		if c == '"' {
			dst = append(dst, '"', '"')
		} else {
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// AppendJSONString appends s as a JSON string literal.
func AppendJSONString(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, `\ufffd`...)
		} else if r == '\u2028' || r == '\u2029' {
			dst = append(dst, `\u202`...)
			dst = append(dst, hex[r&15])
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// AppendJSONValue appends row i of v as a JSON value: numbers bare, NaN and
// ±Infinity as strings (SPEC 4), text and timestamps as strings, NULL as null;
// a number whose source text v keeps (vector.Vec.Text) is that text.
func AppendJSONValue(dst []byte, t catalog.Type, v *vector.Vec, i int) []byte {
	if v.Null[i] || t == catalog.Unknown {
		return append(dst, "null"...)
	}
	if v.Text != nil && v.Text[i] != nil && (t == catalog.BigInt || t == catalog.Double) {
		return append(dst, v.Text[i]...) // a finite number's printed form (vector.Vec.Text)
	}
	switch t {
	case catalog.BigInt:
		return textconv.AppendInt(dst, v.I[i])
	case catalog.Double:
		f := v.F[i]
		if math.IsNaN(f) || math.IsInf(f, 0) {
			dst = append(dst, '"')
			dst = textconv.AppendDouble(dst, f)
			return append(dst, '"')
		}
		return textconv.AppendDouble(dst, f)
	case catalog.Boolean:
		return strconv.AppendBool(dst, v.B[i])
	case catalog.Timestamp:
		dst = append(dst, '"')
		dst = textconv.AppendTimestamp(dst, v.I[i])
		return append(dst, '"')
	}
	if t.IsNested() {
		return appendJSONNested(dst, v, i)
	}
	return AppendJSONString(dst, v.S[i])
}

// appendJSONNested appends row i of a nested vector (not NULL) as nested
// JSON (SPEC 2.10, json output): ARRAY as an array, MAP as an object whose
// keys are the keys' printed text (a NULL key as "null"), ROW as an object of
// its fields; NULL inside as null.
func appendJSONNested(dst []byte, v *vector.Vec, i int) []byte {
	switch v.Type.Kind() {
	case catalog.KindArray:
		dst = append(dst, '[')
		off, n := v.Elems(i)
		el := v.Kids[0]
		for e := off; e < off+n; e++ {
			if e > off {
				dst = append(dst, ',')
			}
			dst = AppendJSONValue(dst, el.Type, el, e)
		}
		return append(dst, ']')
	case catalog.KindMap:
		dst = append(dst, '{')
		off, n := v.Elems(i)
		keys, vals := v.Kids[0], v.Kids[1]
		for e := off; e < off+n; e++ {
			if e > off {
				dst = append(dst, ',')
			}
			switch {
			case keys.Null[e]:
				dst = append(dst, `"null"`...)
			case keys.Type == catalog.Varchar:
				dst = AppendJSONString(dst, keys.S[e])
			default:
				dst = append(dst, '"')
				dst = vector.AppendValue(dst, keys.Type, keys, e)
				dst = append(dst, '"')
			}
			dst = append(dst, ':')
			dst = AppendJSONValue(dst, vals.Type, vals, e)
		}
		return append(dst, '}')
	}
	dst = append(dst, '{')
	for k, f := range v.Type.Fields() {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = AppendJSONString(dst, []byte(f.Name))
		dst = append(dst, ':')
		dst = AppendJSONValue(dst, f.Type, v.Kids[k], i)
	}
	return append(dst, '}')
}

// AppendCSVValue appends row i of v (not NULL), of type t, as a csv or tsv field
// with delimiter d: text quoted when needed, other types never need it; a
// number whose source text v keeps (vector.Vec.Text) is that text; text its
// producer marked Plain (vector.Vec.Text) as it stands, unchecked, when d is a
// comma or a tab; an ARRAY,
// MAP or ROW as its JSON text (quoted when needed), so csv output reads back.
func AppendCSVValue(b []byte, t catalog.Type, v *vector.Vec, i int, d byte) []byte {
	switch t {
	case catalog.Varchar:
		f := v.S[i]
		if v.Text != nil && v.Text[i] != nil && (d == ',' || d == '\t') {
			return append(b, f...) // checked by the value's producer (Plain, vector.Vec.Text)
		}
		if NeedsQuote(f, d) {
			return AppendCSVField(b, f, d)
		}
		return append(b, f...)
	case catalog.BigInt, catalog.Double:
		if v.Text != nil && v.Text[i] != nil {
			return append(b, v.Text[i]...) // the printed form (vector.Vec.Text)
		}
		if t == catalog.BigInt {
			return textconv.AppendInt(b, v.I[i])
		}
		return textconv.AppendDouble(b, v.F[i])
	case catalog.Unknown:
		return append(b, '"', '"') // no text: an empty field, quoted
	}
	if t.IsNested() {
		// ARRAY, MAP, ROW as their JSON text, which the csv input reads back
		// (SPEC 2.10), quoted as text is
		start := len(b)
		b = appendJSONNested(b, v, i)
		if NeedsQuote(b[start:], d) {
			f := append([]byte(nil), b[start:]...)
			b = AppendCSVField(b[:start], f, d)
		}
		return b
	}
	return vector.AppendValue(b, t, v, i) // BOOLEAN, TIMESTAMP
}

// NeedsQuote reports whether f, a csv or tsv field's text, must be quoted
// with delimiter d (SPEC 4, as PostgreSQL's CSV output): when it is empty or
// holds d, a quote, CR or LF. AppendCSVValue asks it for every VARCHAR value
// it writes, so it scans eight bytes at a time (a word of the bytes compared
// with all four at once, with no branch a byte); a field under 8 bytes is a
// byte at a time.
func NeedsQuote(f []byte, d byte) bool {
	n := len(f)
	switch {
	case n == 0:
		return true
	case n >= 4 && n < 8:
		// 4 to 7 bytes: two 4-byte loads that overlap, in one word
		// compared at once as the long path's words are
		x := uint64(binary.LittleEndian.Uint32(f)) | uint64(binary.LittleEndian.Uint32(f[n-4:]))<<32
		return swarAny(x, uint64(d)*swarLo)
	case n < 4:
		for _, c := range f {
			if c == d || c == '"' || c == '\n' || c == '\r' {
				return true
			}
		}
		return false
	}
	dp := uint64(d) * swarLo
	for i := 0; i < n-8; i += 8 {
		if swarAny(binary.LittleEndian.Uint64(f[i:]), dp) {
			return true
		}
	}
	return swarAny(binary.LittleEndian.Uint64(f[n-8:]), dp) // (the last word, overlapping the one before)
}

// Plain reports whether f, a VARCHAR value, is a csv field and a tsv field
// as it stands: not empty, and without a comma, tab, quote, CR or LF, so that
// NeedsQuote is false for both delimiters. A producer that checks its values
// once, as a lookup join's table does when it is built (executor/op), marks
// each such value in vector.Vec.Text, and AppendCSVValue copies it without
// looking at its bytes.
func Plain(f []byte) bool {
	return !NeedsQuote(f, ',') && bytes.IndexByte(f, '\t') < 0
}

// The bytes 0x01 and 0x80 in every byte of a word (NeedsQuote).
const (
	swarLo = 0x0101010101010101
	swarHi = 0x8080808080808080
)

// swarAny reports whether a byte of the word x is the byte of dp (that byte
// in every byte of a word), a quote, CR or LF: a byte of x^p is zero where
// x has p's byte, and (v-lo)&^v&hi is not zero when a byte of v is.
func swarAny(x, dp uint64) bool {
	const qp, lp, cp = '"' * swarLo, '\n' * swarLo, '\r' * swarLo
	zero := func(v uint64) uint64 { return (v - swarLo) &^ v & swarHi }
	return zero(x^dp)|zero(x^qp)|zero(x^lp)|zero(x^cp) != 0
}

// AppendCSVHeader appends the column names of cols as a csv header line's
// fields, separated by delim, without the line end (SPEC 4).
func AppendCSVHeader(dst []byte, cols []catalog.Column, delim byte) []byte {
	for i, c := range cols {
		if i > 0 {
			dst = append(dst, delim)
		}
		dst = AppendCSVField(dst, []byte(c.Name), delim)
	}
	return dst
}

// AppendCSVRow appends row i of vals (one vector per column of cols, of its
// type) as csv fields separated by delim, without the line end: NULL is an
// empty field, text quoted as PostgreSQL's CSV output (SPEC 4).
//
// The two commonest values of a joined row are written here without
// AppendCSVValue's call (the same bytes): text its producer marked Plain,
// and a BIGINT without its source text.
func AppendCSVRow(dst []byte, cols []catalog.Column, vals []*vector.Vec, i int, delim byte) []byte {
	marks := delim == ',' || delim == '\t' // (the delimiters Plain holds for)
	for c, v := range vals {
		if c > 0 {
			dst = append(dst, delim)
		}
		switch t := cols[c].Type; {
		case v.Null[i]:
		case t == catalog.Varchar && marks && v.Text != nil && v.Text[i] != nil:
			dst = append(dst, v.S[i]...)
		case t == catalog.BigInt && v.Text == nil:
			dst = textconv.AppendInt(dst, v.I[i])
		default:
			dst = AppendCSVValue(dst, t, v, i, delim)
		}
	}
	return dst
}

// AppendCSVLines appends rows from to to-1 of vals, each as AppendCSVRow
// writes it followed by a line end ('\n'): the same bytes as AppendCSVRow
// and '\n' a row (SPEC 4 csv and tsv), with what AppendCSVRow asks of each
// column once a row (which of its two common values, text its producer
// marked Plain or a BIGINT without its source text, the column can hold)
// asked once for the rows. For an encoder's run of rows that go to one
// output (a lookup join's joined rows, issue 23); it allocates nothing
// when dst has room.
func AppendCSVLines(dst []byte, cols []catalog.Column, vals []*vector.Vec, from, to int, delim byte) []byte {
	const (
		other  = iota // AppendCSVValue
		marked        // VARCHAR with marks: a marked value copied
		number        // BIGINT without source texts: AppendInt
	)
	var kinds [16]uint8
	if len(vals) > len(kinds) {
		for i := from; i < to; i++ {
			dst = append(AppendCSVRow(dst, cols, vals, i, delim), '\n')
		}
		return dst
	}
	marks := delim == ',' || delim == '\t' // (the delimiters Plain holds for)
	for c, v := range vals {
		switch t := cols[c].Type; {
		case t == catalog.Varchar && marks && v.Text != nil:
			kinds[c] = marked
		case t == catalog.BigInt && v.Text == nil:
			kinds[c] = number
		default:
			kinds[c] = other
		}
	}
	ks := kinds[:len(vals)]
	for i := from; i < to; i++ {
		for c, v := range vals {
			if c > 0 {
				dst = append(dst, delim)
			}
			if v.Null[i] {
				continue
			}
			switch ks[c] {
			case marked:
				if v.Text[i] != nil {
					dst = append(dst, v.S[i]...)
					continue
				}
			case number:
				dst = textconv.AppendInt(dst, v.I[i])
				continue
			}
			dst = AppendCSVValue(dst, cols[c].Type, v, i, delim)
		}
		dst = append(dst, '\n')
	}
	return dst
}

// AppendJSONFields appends row i of vals (one vector per column of cols) as the
// members of a JSON object, "name":value separated by commas, without the
// braces (SPEC 4 json).
func AppendJSONFields(dst []byte, cols []catalog.Column, vals []*vector.Vec, i int) []byte {
	for c, v := range vals {
		if c > 0 {
			dst = append(dst, ',')
		}
		dst = AppendJSONString(dst, []byte(cols[c].Name))
		dst = append(dst, ':')
		dst = AppendJSONValue(dst, cols[c].Type, v, i)
	}
	return dst
}
