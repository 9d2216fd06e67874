package render

import (
	"bufio"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"streamql/catalog"
)

// writeTable renders one table (format "table", or "markdown" as a pipe table),
// preceded by its title line when title is not empty. Header names print exactly
// as the columns are named, with control characters shown as \xNN (SPEC 4); the
// cells of rows must already be shown so (appendTerminal with cell true).
//
// The "table" format draws the box of tablewriter v1's default renderer (the
// format of SPEC 4 and of the project's golden files: one space of padding,
// numeric columns right-aligned, headers left-aligned, a tab as four spaces)
// but writes each cell straight to w: memory is the rows' own, never a copy
// per cell, so a 200 MB value stays 200 MB (SPEC 4: memory stays bounded).
func writeTable(w io.Writer, format, title string, cols []catalog.Column, rows [][]string) error {
	bw, ok := w.(*bufio.Writer)
	if !ok {
		bw = bufio.NewWriter(w)
	}
	if title != "" {
		bw.WriteString(terminalString(title, true))
		bw.WriteByte('\n')
	}
	if format == "markdown" {
		writeMarkdown(bw, cols, rows)
	} else {
		writeBox(bw, cols, rows)
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

// cellWidth is the display width of a cell as tablewriter measures it (East
// Asian wide runes count 2, a tab counts twwidth.TabWidth), without its cache,
// which would keep every large value alive.
func cellWidth(s string, opts twwidth.Options) int {
	ascii := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || c < 0x20 || c == 0x7f {
			ascii = false
			break
		}
	}
	if ascii {
		return len(s)
	}
	return twwidth.WidthWithOptions(s, opts) // no ESC left to strip: no copy
}

// writeBox draws cols and rows as tablewriter's default box table.
func writeBox(w *bufio.Writer, cols []catalog.Column, rows [][]string) {
	opts := twwidth.Options{EastAsianWidth: twwidth.IsEastAsian()}
	header := make([]string, len(cols))
	width := make([]int, len(cols))
	for i, c := range cols {
		header[i] = terminalString(c.Name, true)
		width[i] = cellWidth(header[i], opts)
	}
	for _, r := range rows {
		for i := range cols {
			if i < len(r) {
				width[i] = max(width[i], cellWidth(r[i], opts))
			}
		}
	}
	line := func(left, mid, right string) {
		w.WriteString(left)
		for i, n := range width {
			if i > 0 {
				w.WriteString(mid)
			}
			for k := 0; k < n+2; k++ {
				w.WriteString("─")
			}
		}
		w.WriteString(right)
		w.WriteByte('\n')
	}
	row := func(cells []string, header bool) {
		w.WriteString("│")
		for i, n := range width {
			cell := ""
			if i < len(cells) {
				cell = cells[i]
			}
			pad := n - cellWidth(cell, opts)
			w.WriteByte(' ')
			right := !header && cols[i].Type.IsNumeric()
			if right {
				writeSpaces(w, pad)
			}
			writeCell(w, cell)
			if !right {
				writeSpaces(w, pad)
			}
			w.WriteString(" │")
		}
		w.WriteByte('\n')
	}
	line("┌", "┬", "┐")
	row(header, true)
	if len(rows) > 0 {
		line("├", "┼", "┤")
	}
	for _, r := range rows {
		row(r, false)
	}
	line("└", "┴", "┘")
}

// writeCell writes a cell, a tab as twwidth.TabWidth spaces (as tablewriter).
func writeCell(w *bufio.Writer, s string) {
	for {
		i := strings.IndexByte(s, '\t')
		if i < 0 {
			w.WriteString(s)
			return
		}
		w.WriteString(s[:i])
		writeSpaces(w, twwidth.TabWidth())
		s = s[i+1:]
	}
}

func writeSpaces(w *bufio.Writer, n int) {
	for ; n > 0; n-- {
		w.WriteByte(' ')
	}
}

func writeMarkdown(w *bufio.Writer, cols []catalog.Column, rows [][]string) {
	esc := func(s string) {
		for {
			i := strings.IndexByte(s, '|')
			if i < 0 {
				w.WriteString(s)
				return
			}
			w.WriteString(s[:i])
			w.WriteString(`\|`)
			s = s[i+1:]
		}
	}
	w.WriteString("|")
	for _, c := range cols {
		w.WriteByte(' ')
		esc(terminalString(c.Name, true))
		w.WriteString(" |")
	}
	w.WriteString("\n|")
	for _, c := range cols {
		if c.Type.IsNumeric() {
			w.WriteString("---:|")
		} else {
			w.WriteString("---|")
		}
	}
	w.WriteString("\n")
	for _, r := range rows {
		w.WriteString("|")
		for _, v := range r {
			w.WriteByte(' ')
			esc(v)
			w.WriteString(" |")
		}
		w.WriteString("\n")
	}
	w.WriteString("\n")
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
	if format == "table" || format == "markdown" {
		rows := make([][]string, len(r.Rows))
		for i, row := range r.Rows {
			rows[i] = make([]string, len(row))
			for c, v := range row {
				rows[i][c] = terminalString(v, true)
			}
		}
		return writeTable(w, format, "", cols, rows)
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
