package render

import (
	"bufio"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"streamql/catalog"
)

// writeTable renders one table (format "table" with tablewriter, or "markdown" as
// a pipe table), preceded by its title line when title is not empty. Header names
// print exactly as the columns are named.
func writeTable(w io.Writer, format, title string, cols []catalog.Column, rows [][]string) error {
	if title != "" {
		if _, err := io.WriteString(w, title+"\n"); err != nil {
			return err
		}
	}
	if format == "markdown" {
		return writeMarkdown(w, cols, rows)
	}
	header := make([]any, len(cols))
	align := make([]tw.Align, len(cols))
	for i, c := range cols {
		header[i] = c.Name
		align[i] = tw.AlignLeft
		if c.Type.IsNumeric() {
			align[i] = tw.AlignRight
		}
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	)
	t.Header(header...)
	for _, r := range rows {
		if err := t.Append(r); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if title != "" {
		// a blank line separates the titled tables of one job
		_, err := io.WriteString(w, "\n")
		return err
	}
	return nil
}

func writeMarkdown(w io.Writer, cols []catalog.Column, rows [][]string) error {
	var sb strings.Builder
	esc := func(s string) string {
		s = strings.ReplaceAll(s, "|", `\|`)
		s = strings.ReplaceAll(s, "\r\n", "<br>")
		return strings.ReplaceAll(s, "\n", "<br>")
	}
	sb.WriteString("|")
	for _, c := range cols {
		sb.WriteString(" " + esc(c.Name) + " |")
	}
	sb.WriteString("\n|")
	for _, c := range cols {
		if c.Type.IsNumeric() {
			sb.WriteString("---:|")
		} else {
			sb.WriteString("---|")
		}
	}
	sb.WriteString("\n")
	for _, r := range rows {
		sb.WriteString("|")
		for _, v := range r {
			sb.WriteString(" " + esc(v) + " |")
		}
		sb.WriteString("\n")
	}
	sb.WriteString("\n")
	_, err := io.WriteString(w, sb.String())
	return err
}

// Result is a small named table for SHOW, DESCRIBE and EXPLAIN (SPEC 3/4: they
// print through the same formats as query results).
type Result struct {
	Columns []string
	Rows    [][]string
}

// WriteResult prints r in format to w, with the encoders of query output.
func WriteResult(w io.Writer, format string, r Result) error {
	cols := make([]catalog.Column, len(r.Columns))
	for i, c := range r.Columns {
		cols[i] = catalog.Column{Name: c, Type: catalog.Varchar}
	}
	if format == "table" || format == "markdown" {
		return writeTable(w, format, "", cols, r.Rows)
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
		bw.Write(s.buf)
	}
	return bw.Flush()
}
