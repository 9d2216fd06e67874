package render

import (
	"bytes"
	"fmt"

	"streamql/catalog"
	"streamql/internal/session"
)

// materialized is the result an updating output's changelog builds (SPEC
// 2.8: table mode, as Flink SQL client's table result): +I and +U add a row,
// -U and -D take back one equal row. A -U followed by its +U keeps the row's
// place (an update in place), so a GROUP BY's groups stay in the order of
// their first rows; a new row goes at the end. Rows are kept as their table
// cells (as tableRows holds them).
type materialized struct {
	rows  [][]byte         // each row's cells, encoded (cellsKey), nil once taken back
	index map[string][]int // row -> its live places, oldest first
	hole  int              // the place the last -U freed, -1 when none
	live  int
	scr   tableRows
}

func newMaterialized() *materialized {
	return &materialized{index: map[string][]int{}, hole: -1}
}

// apply applies row i of vals (an output of columns cols) with kind k.
func (m *materialized) apply(k session.RowKind, cols []catalog.Column, vals []*session.Vec, i int) {
	tr := &m.scr
	tr.reset()
	for c, v := range vals {
		switch {
		case v.Null[i]:
			tr.text = append(tr.text, "NULL"...)
			tr.addText()
		case cols[c].Type == catalog.Varchar:
			tr.addCell(v.S[i])
		default:
			tr.text = session.AppendValue(tr.text, cols[c].Type, v, i)
			tr.addText()
		}
	}
	key := cellsKey(tr)
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

// cellsKey encodes tr's one row: each cell's length (4 bytes) and text.
func cellsKey(tr *tableRows) []byte {
	var b []byte
	prev := 0
	for _, e := range tr.ends {
		n := e - prev
		b = append(b, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
		b = append(b, tr.text[prev:e]...)
		prev = e
	}
	return b
}

// fill appends the materialized rows, in their places, to tr; unless keep,
// it then empties m (the end of the job: the result is printed once).
func (m *materialized) fill(tr *tableRows, keep bool) {
	for _, key := range m.rows {
		if key == nil {
			continue
		}
		for len(key) > 0 {
			n := int(key[0])<<24 | int(key[1])<<16 | int(key[2])<<8 | int(key[3])
			tr.text = append(tr.text, key[4:4+n]...)
			tr.addText()
			key = key[4+n:]
		}
		tr.endRow()
	}
	if !keep {
		m.rows, m.index, m.hole, m.live = nil, map[string][]int{}, -1, 0
	}
}

// live redraws the materialized results of s's outputs on the terminal
// (SPEC 2.8: Flink SQL client's table mode): the tables drawn last time are
// erased (the cursor moves up over their lines) and drawn again with the
// current result, so the screen holds the current result and nothing scrolls
// away. final erases them and leaves the screen to the one final table.
func (s *sink) live(final bool) error {
	w := s.cfg.Stdout
	if s.liveLines > 0 {
		fmt.Fprintf(w, "\x1b[%dA\x1b[J", s.liveLines) // up over the last drawing, then clear to the end
		s.liveLines = 0
	}
	if final {
		return nil
	}
	var buf bytes.Buffer
	for _, t := range s.outs {
		if t.mat == nil {
			continue
		}
		var tr tableRows
		t.mat.fill(&tr, true)
		title := ""
		if s.hasSides {
			title = t.name
		}
		if err := writeTable(&buf, s.cfg.Format, title, t.cols, &tr); err != nil {
			return err
		}
	}
	s.liveLines = bytes.Count(buf.Bytes(), []byte{'\n'})
	_, err := w.Write(buf.Bytes())
	s.liveDirty = false
	return err
}
