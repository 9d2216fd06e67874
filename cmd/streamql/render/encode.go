// Package render owns the output formats of SPEC 4 (table, csv, tsv, json, plain,
// markdown): executor.Sink implementations that print a job's outputs to stdout,
// stderr and --side-dir files, and the printing of SHOW / DESCRIBE / EXPLAIN
// results through the same formats.
package render

import (
	"math"
	"strconv"
	"unicode/utf8"

	"streamql/catalog"
	"streamql/executor/textconv"
	"streamql/executor/vector"
)

// Formats lists the output formats of SPEC 4, the default first.
var Formats = []string{"table", "csv", "tsv", "json", "plain", "markdown"}

// ValidFormat reports whether f names an output format.
func ValidFormat(f string) bool {
	for _, x := range Formats {
		if x == f {
			return true
		}
	}
	return false
}

// Ext returns the --side-dir file extension of a format (SPEC 4).
func Ext(format string) string {
	switch format {
	case "csv":
		return ".csv"
	case "tsv":
		return ".tsv"
	case "json":
		return ".json"
	case "markdown":
		return ".md"
	}
	return ".txt"
}

// appendCSVField appends f as a CSV field quoted as PostgreSQL's CSV output does
// (SPEC 4): quoted when it holds the delimiter, a quote, CR or LF, or is empty.
func appendCSVField(dst, f []byte, delim byte) []byte {
	need := len(f) == 0
	if !need {
		for _, c := range f {
			if c == delim || c == '"' || c == '\n' || c == '\r' {
				need = true
				break
			}
		}
	}
	if !need {
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

// appendJSONString appends s as a JSON string literal.
func appendJSONString(dst, s []byte) []byte {
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

// appendJSONValue appends row i of v as a JSON value: numbers bare, NaN and
// ±Infinity as strings (SPEC 4), text and timestamps as strings, NULL as null.
func appendJSONValue(dst []byte, t catalog.Type, v *vector.Vec, i int) []byte {
	if v.Null[i] || t == catalog.Unknown {
		return append(dst, "null"...)
	}
	switch t {
	case catalog.BigInt:
		return strconv.AppendInt(dst, v.I[i], 10)
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
	return appendJSONString(dst, v.S[i])
}
