package render

import (
	"bufio"
	"bytes"
	"io"
	"unicode/utf8"

	"github.com/clipperhouse/displaywidth"
	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"streamql/catalog"

	"streamql/internal/termtext"
)

// tableRows holds the rows of one table waiting to be rendered (SPEC 4: a
// chunk of at most 1000 rows or a second's rows): every cell's text back to back
// in one buffer, already shown for a terminal (control characters as \xNN, a
// line feed as \n). Buffering a row allocates nothing once the buffers have
// grown to a chunk's size; reset lets go of buffers a huge value made large.
type tableRows struct {
	text  []byte // the cells' text, back to back
	ends  []int  // end offset in text of each cell, row by row
	n     int    // rows
	width []int  // scratch of writeBox: each cell's display width, then each column's
	// scratch of writeBox: the header's cells, shown for a terminal
	head     []byte
	headEnds []int
	line     []byte // scratch of writeBox and writeMarkdown: the line being drawn
	// track: writeTable notes in lineEnds the end of each row's line, in
	// bytes from the start of the table's output (its title included), and
	// in box the column widths of a box table (writeBox's scratch, valid
	// until the next table): the cut when stdout is closed early (cut.go).
	track    bool
	lineEnds []int64
	box      []int
}

// addCell appends a cell holding v shown for a terminal (SPEC 4).
func (tr *tableRows) addCell(v []byte) {
	if termtext.Needs(v, termtext.Cell) {
		tr.text = termtext.Append(tr.text, v, termtext.Cell)
	} else {
		tr.text = append(tr.text, v...)
	}
	tr.ends = append(tr.ends, len(tr.text))
}

// addText appends a cell whose text was appended to tr.text since the last
// cell, as is (a number, a boolean, a timestamp, NULL: nothing to show as \xNN).
func (tr *tableRows) addText() { tr.ends = append(tr.ends, len(tr.text)) }

// addHead appends a header cell holding name shown for a terminal (SPEC 4),
// allocating only when name holds a control character.
func (tr *tableRows) addHead(name string) {
	start := len(tr.head)
	if tr.head = append(tr.head, name...); termtext.Needs(tr.head[start:], termtext.Cell) {
		tr.head = append(tr.head[:start], termtext.String(name, termtext.Cell)...)
	}
	tr.headEnds = append(tr.headEnds, len(tr.head))
}

// headCell returns header cell i added by addHead.
func (tr *tableRows) headCell(i int) []byte {
	start := 0
	if i > 0 {
		start = tr.headEnds[i-1]
	}
	return tr.head[start:tr.headEnds[i]]
}

// endRow ends the row whose cells were just added.
func (tr *tableRows) endRow() { tr.n++ }

// cell returns cell k (row*ncols+column) of the buffered rows.
func (tr *tableRows) cell(k int) []byte {
	start := 0
	if k > 0 {
		start = tr.ends[k-1]
	}
	return tr.text[start:tr.ends[k]]
}

// reset empties tr after a chunk is rendered, keeping its buffers unless a
// large value grew one past 1 MiB (memory stays bounded, SPEC 4).
func (tr *tableRows) reset() {
	tr.text, tr.ends, tr.n = tr.text[:0], tr.ends[:0], 0
	if cap(tr.text) > 1<<20 {
		tr.text = nil
	}
	if cap(tr.line) > 1<<20 {
		tr.line = nil
	}
	if cap(tr.head) > 1<<20 {
		tr.head = nil
	}
	if cap(tr.ends) > 1<<16 {
		tr.ends, tr.width = nil, nil
	}
}

// writeTable renders one table (format "table", or "markdown" as a pipe table)
// of the rows in tr, preceded by its title line when title is not empty, and
// returns the first write error. Header names print exactly as the columns are
// named, with control characters shown as \xNN (SPEC 4); tr's cells are shown
// so already.
//
// The "table" format draws the box of tablewriter v1's default renderer (the
// format of SPEC 4 and of the project's golden files: one space of padding,
// numeric columns right-aligned, headers left-aligned, a tab as
// twwidth.TabWidth spaces, tabs at either end of a cell left out);
// TestBoxMatchesTablewriterRandom compares the two byte for byte. Each line is
// drawn in a scratch buffer reused from chunk to chunk, a cell longer than
// bigCell straight to w, so memory is the rows' own and a 200 MB value stays
// 200 MB (SPEC 4: memory stays bounded).
func writeTable(w io.Writer, format, title string, cols []catalog.Column, tr *tableRows) error {
	bw, ok := w.(*bufio.Writer)
	if !ok {
		bw = bufio.NewWriter(w)
	}
	var at int64 // the bytes written before the box
	if title != "" {
		n, _ := bw.WriteString(termtext.String(title, termtext.Cell))
		bw.WriteByte('\n')
		at = int64(n) + 1
	}
	tr.lineEnds = tr.lineEnds[:0]
	if printerOf(format).pipes {
		writeMarkdown(bw, cols, tr, at)
	} else {
		writeBox(bw, cols, tr, at)
		if title != "" {
			// a blank line separates the titled tables of one job
			bw.WriteByte('\n')
		}
	}
	if !ok {
		return bw.Flush()
	}
	// a *bufio.Writer keeps its first write error; Flush is the caller's
	_, err := bw.Write(nil)
	return err
}

// bigCell is the length in bytes past which a cell is written to the output
// directly rather than copied into the line being drawn.
const bigCell = 4 << 10

// cellWidth is the display width of a cell as tablewriter v1 measures it
// (twwidth.WidthWithOptions: the sum of displaywidth's width of each rune, East
// Asian wide runes 2, a tab counting tab), without twwidth's cache, which would
// keep every large value alive, and without a copy of the cell. narrowBox is
// twwidth's ForceNarrowBorders (box-drawing runes count 1). A cell holding
// ESC (never one shown for a terminal) is measured by twwidth itself, which
// leaves ANSI sequences out.
func cellWidth(s []byte, tab int, opts displaywidth.Options, narrowBox bool) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			n++
			i++
		case c == '\t':
			n += tab
			i++
		case c == 0x1b:
			return twwidth.WidthWithOptions(string(s), twwidth.Options{EastAsianWidth: opts.EastAsianWidth, ForceNarrowBorders: narrowBox})
		default:
			r, size := utf8.DecodeRune(s[i:])
			n += runeCols(r, opts, narrowBox)
			i += size
		}
	}
	return n
}

// runeCols is the display width of r (not ASCII) as cellWidth counts it.
func runeCols(r rune, opts displaywidth.Options, narrowBox bool) int {
	switch {
	case r >= 0x4e00 && r <= 0x9fff:
		return 2 // CJK Unified Ideographs: East Asian Wide (UAX #11)
	case narrowBox && r >= 0x2500 && r <= 0x257f:
		return 1 // twwidth's ForceNarrowBorders
	}
	return opts.Rune(r)
}

// dashWidth is the display width of the box border's "─", which is East
// Asian ambiguous: 2 columns wide when East Asian widths are on, unless
// twwidth's ForceNarrowBorders is on too (which has no getter: the width of
// "─" tells).
func dashWidth() int { return max(twwidth.Width("─"), 1) }

// widthOptions returns how cellWidth measures text in this locale, as
// tablewriter does: displaywidth's options (East Asian widths or not), the
// width of the border's "─" (dashWidth) and whether box-drawing runes count
// 1 (twwidth's ForceNarrowBorders).
func widthOptions() (opts displaywidth.Options, dash int, narrowBox bool) {
	opts = displaywidth.Options{EastAsianWidth: twwidth.IsEastAsian()}
	dash = dashWidth()
	return opts, dash, opts.EastAsianWidth && dash == 1
}

// writeBox draws cols and the rows of tr as tablewriter's default box table
// (with TrimSpace off, so only tabs at either end of a cell are trimmed, as
// tablewriter does by default). With tr.track, each row's line end goes to
// tr.lineEnds (bytes, at plus those from the box's start) and the column
// widths to tr.box.
func writeBox(w *bufio.Writer, cols []catalog.Column, tr *tableRows, at int64) {
	opts, dash, narrowBox := widthOptions()
	tab := twwidth.TabWidth()
	nc := len(cols)
	tr.box = nil
	if nc == 0 {
		return
	}
	// the header's cells are row -1, before the rows' cells
	tr.head, tr.headEnds = tr.head[:0], tr.headEnds[:0]
	for _, c := range cols {
		tr.addHead(c.Name)
	}
	cell := func(r, i int) []byte {
		if r >= 0 {
			return trimTabs(tr.cell(r*nc + i))
		}
		return trimTabs(tr.headCell(i))
	}
	cells := nc * (tr.n + 1)
	if cap(tr.width) < cells+nc {
		tr.width = make([]int, cells+nc)
	}
	cw, width := tr.width[:cells], tr.width[cells:cells+nc]
	for k := range cells {
		cw[k] = cellWidth(cell(k/nc-1, k%nc), tab, opts, narrowBox)
	}
	for i := range width {
		n := cw[i]
		for k := nc + i; k < cells; k += nc {
			n = max(n, cw[k])
		}
		width[i] = n
	}
	l := boxLine{w: w, b: tr.line[:0]}
	tr.box = width
	row := func(r int) {
		l.b = append(l.b, "│"...)
		for i, n := range width {
			pad := n - cw[(r+1)*nc+i]
			l.b = append(l.b, ' ')
			right := r >= 0 && cols[i].Type.IsNumeric()
			if right {
				l.repeat(spaces, 1, pad)
			}
			l.cell(cell(r, i), tab)
			if !right {
				l.repeat(spaces, 1, pad)
			}
			l.b = append(l.b, " │"...)
		}
		l.b = append(l.b, '\n')
		if r >= 0 && tr.track {
			tr.lineEnds = append(tr.lineEnds, at+l.n+int64(len(l.b)))
		}
		l.flushIfLong()
	}
	l.border(width, dash, "┌", "┬", "┐")
	row(-1)
	if tr.n > 0 {
		l.border(width, dash, "├", "┼", "┤")
	}
	for r := 0; r < tr.n; r++ {
		row(r)
	}
	l.border(width, dash, "└", "┴", "┘")
	l.write(l.b)
	tr.line = l.b[:0]
}

// writeTableEnd writes what closes a table of format cut after one of its
// rows (cut.go): a box table's bottom border, its columns width wide (the
// table's tr.box), or the blank line after a pipe table.
func writeTableEnd(w *bufio.Writer, format string, width []int) {
	if printerOf(format).pipes {
		w.WriteByte('\n')
		return
	}
	l := boxLine{w: w}
	l.border(width, dashWidth(), "└", "┴", "┘")
	l.write(l.b)
}

// trimTabs returns s without the tabs at its start and end (tablewriter's
// TrimTab, on by default).
func trimTabs(s []byte) []byte {
	for len(s) > 0 && s[0] == '\t' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] == '\t' {
		s = s[:len(s)-1]
	}
	return s
}

// boxLine gathers the text writeBox draws in b, written to w in pieces of
// about 32 KiB; a cell longer than bigCell goes to w directly, so a huge value
// or the padding and border it widens are never copied whole.
type boxLine struct {
	w *bufio.Writer
	b []byte
	n int64 // bytes handed to w
}

// write hands p to w, counted.
func (l *boxLine) write(p []byte) {
	l.w.Write(p)
	l.n += int64(len(p))
}

func (l *boxLine) flushIfLong() {
	if len(l.b) >= 32<<10 {
		l.write(l.b)
		l.b = l.b[:0]
	}
}

// border appends a border line of columns width wide (dash: the display
// width of "─") with the corners and joints given.
func (l *boxLine) border(width []int, dash int, left, mid, right string) {
	l.b = append(l.b, left...)
	for i, n := range width {
		if i > 0 {
			l.b = append(l.b, mid...)
		}
		// as tablewriter: as many dashes as fit, then spaces
		l.repeat(dashes, len("─"), (n+2)/dash)
		l.repeat(spaces, 1, (n+2)%dash)
	}
	l.b = append(l.b, right...)
	l.b = append(l.b, '\n')
}

// repeat appends n units of unit bytes each taken from run (a string of the
// same unit repeated); nothing when n <= 0.
func (l *boxLine) repeat(run string, unit, n int) {
	for n > 0 {
		k := min(n, len(run)/unit)
		l.b = append(l.b, run[:k*unit]...)
		n -= k
		l.flushIfLong()
	}
}

// cell appends a cell, a tab as tab spaces (as tablewriter).
func (l *boxLine) cell(s []byte, tab int) {
	if len(s) > bigCell {
		l.write(l.b)
		l.b = l.b[:0]
	}
	for {
		i := bytes.IndexByte(s, '\t')
		if i < 0 {
			break
		}
		l.text(s[:i])
		l.repeat(spaces, 1, tab)
		s = s[i+1:]
	}
	l.text(s)
}

// text appends s, or writes it to w when it is longer than bigCell (b is then
// empty: cell wrote it).
func (l *boxLine) text(s []byte) {
	if len(s) > bigCell {
		l.write(l.b)
		l.b = l.b[:0]
		l.write(s)
		return
	}
	l.b = append(l.b, s...)
}

// escPipe is a '|' in a pipe table's cell.
var escPipe = []byte(`\|`)

const dashes = "────────────────────────────────────────────────────────────────"

const spaces = "                                                                "

// writeMarkdown draws cols and the rows of tr as a pipe table, a '|' in a
// cell as \| (SPEC 4). With tr.track, each row's line end goes to
// tr.lineEnds (bytes, at plus those from the table's start).
func writeMarkdown(w *bufio.Writer, cols []catalog.Column, tr *tableRows, at int64) {
	l := boxLine{w: w, b: tr.line[:0]}
	esc := func(s []byte) {
		if len(s) > bigCell {
			l.write(l.b)
			l.b = l.b[:0]
			for {
				i := bytes.IndexByte(s, '|')
				if i < 0 {
					l.write(s)
					return
				}
				l.write(s[:i])
				l.write(escPipe)
				s = s[i+1:]
			}
		}
		for {
			i := bytes.IndexByte(s, '|')
			if i < 0 {
				l.b = append(l.b, s...)
				return
			}
			l.b = append(append(l.b, s[:i]...), `\|`...)
			s = s[i+1:]
		}
	}
	tr.head, tr.headEnds = tr.head[:0], tr.headEnds[:0]
	l.b = append(l.b, '|')
	for i, c := range cols {
		tr.addHead(c.Name)
		l.b = append(l.b, ' ')
		esc(tr.headCell(i))
		l.b = append(l.b, " |"...)
	}
	l.b = append(l.b, "\n|"...)
	for _, c := range cols {
		if c.Type.IsNumeric() {
			l.b = append(l.b, "---:|"...)
		} else {
			l.b = append(l.b, "---|"...)
		}
	}
	l.b = append(l.b, '\n')
	nc := len(cols)
	for r := 0; r < tr.n; r++ {
		l.b = append(l.b, '|')
		for i := 0; i < nc; i++ {
			l.b = append(l.b, ' ')
			esc(tr.cell(r*nc + i))
			l.b = append(l.b, " |"...)
		}
		l.b = append(l.b, '\n')
		if tr.track {
			tr.lineEnds = append(tr.lineEnds, at+l.n+int64(len(l.b)))
		}
		l.flushIfLong()
	}
	l.b = append(l.b, '\n')
	l.write(l.b)
	tr.line = l.b[:0]
}

// Result is a small named table for SHOW, DESCRIBE and EXPLAIN (SPEC 3/4: they
// print through the same formats as query results).
type Result struct {
	Columns []string
	Rows    [][]string
}

// WriteResult prints r in format to w, with the encoders of query output
// (control characters shown as \xNN in table, markdown and plain, SPEC 4), and
// returns the first write error.
func WriteResult(w io.Writer, format string, r Result) error {
	cols := make([]catalog.Column, len(r.Columns))
	for i, c := range r.Columns {
		cols[i] = catalog.Column{Name: c, Type: catalog.Varchar}
	}
	if isTabular(format) {
		var tr tableRows
		for _, row := range r.Rows {
			for c := range cols {
				v := ""
				if c < len(row) {
					v = row[c]
				}
				tr.addCell([]byte(v))
			}
			tr.endRow()
		}
		return writeTable(w, format, "", cols, &tr)
	}
	bw := bufio.NewWriter(w)
	s := &sink{cfg: Config{Format: format}}
	t := &target{cols: cols, w: bw, header: true}
	s.writeHeader(t)
	vals := make([][]byte, len(cols))
	for _, row := range r.Rows {
		for i, v := range row {
			vals[i] = []byte(v)
		}
		s.buf = s.appendTextRow(s.buf[:0], t, vals...)
		s.write(t, s.buf)
	}
	return bw.Flush()
}
