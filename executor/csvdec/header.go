package csvdec

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"

	"streamql/catalog"
	"streamql/executor/vector"
)

// maxHeader bounds the header line ReadHeader reads, in bytes.
const maxHeader = 1 << 20

// ReadHeader reads the first record of r as csv field names (SPEC 1,
// csv.header): a UTF-8 BOM and blank lines before it are skipped, quotes
// (quote; 0 means '"') are removed ("" is a quote), and the fields are
// split at delim (0 means ','). A header is one line: a quoted line end in it
// is kept in the name. It returns nil and no error for an empty input, and an
// error for a read error or a first line over 1 MiB.
func ReadHeader(r io.Reader, delim, quote byte) ([]string, error) {
	if delim == 0 {
		delim = ','
	}
	if quote == 0 {
		quote = '"'
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for first := true; ; first = false {
		l, err := br.ReadSlice('\n')
		for err == bufio.ErrBufferFull && len(line)+len(l) < maxHeader {
			line = append(line, l...)
			l, err = br.ReadSlice('\n')
		}
		line = append(line, l...)
		if err == bufio.ErrBufferFull {
			return nil, errHeaderTooLong
		}
		if first {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) > 0 {
			break
		}
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
	}
	var names []string
	var cur []byte
	inQ := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case inQ && c == quote && i+1 < len(line) && line[i+1] == quote:
			cur = append(cur, quote)
			i++
		case c == quote && (inQ || len(cur) == 0):
			inQ = !inQ
		case !inQ && c == delim:
			names, cur = append(names, string(cur)), cur[:0]
		default:
			cur = append(cur, c)
		}
	}
	return append(names, string(cur)), nil
}

type headerError string

func (e headerError) Error() string { return string(e) }

const errHeaderTooLong = headerError("the header line is longer than 1 MiB")

// HeaderMap returns Options.FieldMap for a stream with columns names whose
// input has the header fields header (SPEC 1, csv.header): fields map by name
// (matched as column names are: catalog.FoldName) when every column is in the
// header, else by position (nil). It also returns nil when the header is the
// columns in their order, as position reads them the same way (and fast).
func HeaderMap(names, header []string) []int {
	if len(header) == 0 {
		return nil
	}
	at := make(map[string]int, len(header))
	for k := len(header) - 1; k >= 0; k-- {
		at[catalog.FoldName(strings.TrimSpace(header[k]))] = k // the first of equal names
	}
	m := make([]int, len(header))
	for k := range m {
		m[k] = -1
	}
	same := len(names) == len(header)
	for j, n := range names {
		k, ok := at[catalog.FoldName(n)]
		if !ok {
			return nil
		}
		m[k] = j
		same = same && k == j
	}
	if same {
		return nil
	}
	return m
}

// recordMapped is Record for a stream whose fields map by the header's
// names (Options.FieldMap).
func (d *Decoder) recordMapped(b *vector.Batch, rec []byte, quoted bool) string {
	fm := d.opts.FieldMap
	row := b.N
	if b.Line != nil {
		b.Line[row] = nil
	}
	var fs []field
	var nf, errField int
	errField = -1
	if !quoted {
		fs, nf = splitUnquoted(d.fields[:0], rec, d.delim, len(fm))
	} else {
		fs, errField = d.splitQuoted(d.fields[:0], rec)
		nf = len(fs)
	}
	d.fields = fs
	if errField >= 0 {
		if errField < len(fm) && fm[errField] >= 0 {
			return "column " + d.name(fm[errField]) + ": text after closing quote"
		}
		return "field " + strconv.Itoa(errField+1) + ": text after closing quote"
	}
	if nf != len(fm) && !d.opts.AllowRagged {
		return "expected " + strconv.Itoa(len(fm)) + " fields (as the header has), got " + strconv.Itoa(nf)
	}
	for _, v := range b.Cols[:len(d.types)] {
		v.Null[row] = true // a column whose field is missing (ragged) stays NULL
		if v.Text != nil {
			v.Text[row] = nil
		}
	}
	for k, j := range fm {
		if j < 0 || k >= len(fs) {
			continue
		}
		v, f := b.Cols[j], fs[k]
		if !f.esc && !d.opts.HasNull && setPlain(v, row, f.b, f.quoted) {
			continue
		}
		if reason := d.setField(v, j, row, f); reason != "" {
			return reason
		}
		if v.Text != nil {
			v.Text[row] = nil
		}
	}
	for j, nn := range d.opts.NotNull {
		if nn && j < len(d.types) && b.Cols[j].Null[row] {
			return "column " + d.name(j) + ": the event-time column is NULL"
		}
	}
	return ""
}
