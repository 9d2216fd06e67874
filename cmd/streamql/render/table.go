package render

import (
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

// WriteResult prints r in format to w.
func WriteResult(w io.Writer, format string, r Result) error {
	cols := make([]catalog.Column, len(r.Columns))
	for i, c := range r.Columns {
		cols[i] = catalog.Column{Name: c, Type: catalog.Varchar}
	}
	switch format {
	case "table", "markdown":
		return writeTable(w, format, "", cols, r.Rows)
	}
	var b []byte
	d := byte(',')
	if format == "tsv" {
		d = '\t'
	}
	if format == "csv" || format == "tsv" {
		for i, c := range r.Columns {
			if i > 0 {
				b = append(b, d)
			}
			b = appendCSVField(b, []byte(c), d)
		}
		b = append(b, '\n')
	}
	for _, row := range r.Rows {
		switch format {
		case "csv", "tsv":
			for i, v := range row {
				if i > 0 {
					b = append(b, d)
				}
				b = appendCSVField(b, []byte(v), d)
			}
		case "json":
			b = append(b, '{')
			for i, v := range row {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendJSONString(b, []byte(r.Columns[i]))
				b = append(b, ':')
				b = appendJSONString(b, []byte(v))
			}
			b = append(b, '}')
		default: // plain
			b = append(b, '(')
			b = append(b, strings.Join(row, ",")...)
			b = append(b, ')')
		}
		b = append(b, '\n')
	}
	_, err := w.Write(b)
	return err
}
