package render

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"

	"streamql/catalog"
	"streamql/internal/session"
)

// materialized is the result an updating output's changelog builds (SPEC
// 2.8: table mode, as Flink SQL client's table result): +I and +U add a row,
// -U and -D take back one equal row. A -U followed by its +U keeps the row's
// place (an update in place), so a GROUP BY's groups stay in the order of
// their first rows; a new row goes at the end. Rows are kept, and matched,
// by their values (valueKey), not by their table cells: NULL and the text
// 'NULL', or a control character and its \xNN spelling, show alike but are
// different rows, and a retraction takes back only its own.
type materialized struct {
	rows  [][]byte         // each row's values, encoded (valueKey), nil once taken back
	index map[string][]int // row -> its live places, oldest first
	hole  int              // the place the last -U freed, -1 when none
	live  int
	scr   []byte // valueKey's scratch
	// order is the order of the final table (session.Output.Order: a
	// Top-N's over the whole input), nil when the rows stay where their
	// changes put them
	order []session.OrderKey
}

func newMaterialized() *materialized {
	return &materialized{index: map[string][]int{}, hole: -1}
}

// The tags of a value in a valueKey.
const (
	keyNull  = iota // NULL: no length, no bytes
	keyText         // a VARCHAR's bytes as they are (shown through addCell)
	keyShown        // another type's printed text (SPEC 4), shown as it is
)

// valueKey appends to dst row i of vals (an output of columns cols): per
// column a tag (keyNull, keyText, keyShown), then, unless NULL, the length
// (4 bytes) and the bytes. Two rows have equal keys exactly when their
// values are equal as they print (SPEC 2.8: a -U or -D takes back a row
// equal to it).
func valueKey(dst []byte, cols []catalog.Column, vals []*session.Vec, i int) []byte {
	for c, v := range vals {
		if v.Null[i] {
			dst = append(dst, keyNull)
			continue
		}
		tag, at := byte(keyShown), len(dst)
		dst = append(dst, 0, 0, 0, 0, 0)
		if cols[c].Type == catalog.Varchar {
			tag = keyText
			dst = append(dst, v.S[i]...)
		} else {
			dst = session.AppendValue(dst, cols[c].Type, v, i)
		}
		n := len(dst) - at - 5
		dst[at], dst[at+1], dst[at+2], dst[at+3], dst[at+4] = tag, byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	}
	return dst
}

// apply applies row i of vals (an output of columns cols) with kind k.
func (m *materialized) apply(k session.RowKind, cols []catalog.Column, vals []*session.Vec, i int) {
	m.scr = valueKey(m.scr[:0], cols, vals, i)
	key := m.scr
	if session.Retracts(k) {
		places := m.index[string(key)]
		if len(places) == 0 {
			return // (a retraction of a row never shown: nothing to take back)
		}
		p := places[len(places)-1]
		if len(places) == 1 {
			delete(m.index, string(key))
		} else {
			m.index[string(key)] = places[:len(places)-1]
		}
		m.rows[p] = nil
		m.live--
		m.hole = -1
		if k == session.UpdateBefore {
			m.hole = p
		}
		return
	}
	key = append([]byte(nil), key...)
	p := len(m.rows)
	if k == session.UpdateAfter && m.hole >= 0 {
		p = m.hole
		m.rows[p] = key
	} else {
		m.rows = append(m.rows, key)
	}
	m.hole = -1
	m.index[string(key)] = append(m.index[string(key)], p)
	m.live++
}

// fill appends the materialized rows, in their places, to tr as table cells
// (NULL as NULL, text through addCell: SPEC 4), the first limit of them
// (all when limit < 0: the live table's page takes the first rows, as Flink
// SQL client's table mode shows its first page); unless keep, it then
// empties m (the end of the job: the result is printed once).
func (m *materialized) fill(tr *tableRows, keep bool, limit int) {
	for _, key := range m.rows {
		if key == nil {
			continue
		}
		if limit >= 0 && tr.n >= limit {
			break
		}
		for len(key) > 0 {
			if key[0] == keyNull {
				tr.text = append(tr.text, "NULL"...)
				tr.addText()
				key = key[1:]
				continue
			}
			n := int(key[1])<<24 | int(key[2])<<16 | int(key[3])<<8 | int(key[4])
			if key[0] == keyText {
				tr.addCell(key[5 : 5+n])
			} else {
				tr.text = append(tr.text, key[5:5+n]...)
				tr.addText()
			}
			key = key[5+n:]
		}
		tr.endRow()
	}
	if !keep {
		m.rows, m.index, m.hole, m.live = nil, map[string][]int{}, -1, 0
	}
}

// sort puts the live rows of m, a result of columns cols, in m.order (SPEC
// 2.9: a Top-N's final table in its ORDER BY's order, SPEC 2.8's table
// format printing it once), ties where their changes put them; nothing
// when m has no order. Each row's ORDER BY values are read out of its
// valueKey, and a BIGINT's or DOUBLE's printed number parsed, once per row
// (sortValues), not in every comparison. The places it leaves are the
// rows', for fill only.
func (m *materialized) sort(cols []catalog.Column) {
	if len(m.order) == 0 {
		return
	}
	rows := make([]sortRow, 0, m.live)
	vals := make([]sortVal, 0, m.live*len(m.order)) // (one array for every row's values)
	for _, r := range m.rows {
		if r != nil {
			at := len(vals)
			vals = sortValues(vals, r, cols, m.order)
			rows = append(rows, sortRow{key: r, vals: vals[at:len(vals):len(vals)]})
		}
	}
	slices.SortStableFunc(rows, func(a, b sortRow) int {
		for k, o := range m.order {
			c := compareSortVal(cols[o.Col].Type, &a.vals[k], &b.vals[k])
			if o.Desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return 0
	})
	m.rows = m.rows[:0]
	for _, r := range rows {
		m.rows = append(m.rows, r.key)
	}
	m.index, m.hole = map[string][]int{}, -1 // (fill takes the rows as they are now)
}

// sortRow is a live row of a materialized result being sorted (sort): its
// valueKey, and its values of the ORDER BY's keys, in the keys' order.
type sortRow struct {
	key  []byte
	vals []sortVal
}

// sortVal is one ORDER BY value of a row being sorted (sort): its bytes as
// valueKey holds them (nil: NULL), and, when the column is a BIGINT or a
// DOUBLE and the bytes parse as its number (num), that number (i or f).
type sortVal struct {
	b   []byte
	i   int64
	f   float64
	num bool
}

// sortValues appends to dst the values of the columns of order (by
// position: OrderKey.Col) in key, a valueKey of a row of columns cols, each
// parsed once (sortVal).
func sortValues(dst []sortVal, key []byte, cols []catalog.Column, order []session.OrderKey) []sortVal {
	for _, o := range order {
		v := sortVal{b: field(key, o.Col)}
		switch {
		case v.b == nil:
		case cols[o.Col].Type == catalog.BigInt:
			x, err := strconv.ParseInt(string(v.b), 10, 64)
			v.i, v.num = x, err == nil
		case cols[o.Col].Type == catalog.Double:
			x, err := strconv.ParseFloat(string(v.b), 64)
			v.f, v.num = x, err == nil
		}
		dst = append(dst, v)
	}
	return dst
}

// field returns column c of key, a valueKey: its tag and bytes (nil bytes
// for NULL).
func field(key []byte, c int) []byte {
	for ; ; c-- {
		n := 0
		if key[0] != keyNull {
			n = 5 + (int(key[1])<<24 | int(key[2])<<16 | int(key[3])<<8 | int(key[4]))
		}
		if c == 0 {
			if key[0] == keyNull {
				return nil
			}
			return key[5:n]
		}
		key = key[max(n, 1):]
	}
}

// compareSortVal compares two values of a column of type t (sortValues):
// NULL sorts first, as Flink orders NULLs ascending; numbers by value (a
// DOUBLE's NaN below every other number, -0.0 equal to 0.0: cmp.Compare);
// the others, and a value that did not parse, by their bytes (a
// timestamp's printed text sorts as the time).
func compareSortVal(t catalog.Type, a, b *sortVal) int {
	switch {
	case a.b == nil || b.b == nil:
		return cmp.Compare(boolInt(a.b != nil), boolInt(b.b != nil))
	case a.num && b.num && t == catalog.BigInt:
		return cmp.Compare(a.i, b.i)
	case a.num && b.num && t == catalog.Double:
		return cmp.Compare(a.f, b.f)
	}
	return bytes.Compare(a.b, b.b)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
