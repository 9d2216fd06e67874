package render

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/clipperhouse/displaywidth"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/tw"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/internal/session"
)

// rowsOf buffers rows (text cells, ncols per row, missing cells empty) as a
// table's chunk.
func rowsOf(ncols int, rows [][]string) *tableRows {
	var tr tableRows
	for _, r := range rows {
		for c := range ncols {
			v := ""
			if c < len(r) {
				v = r[c]
			}
			tr.addCell([]byte(v))
		}
		tr.endRow()
	}
	return &tr
}

// shownForTerminal is SPEC 4's rule written out independently of
// termtext.Append: control characters (U+0000–U+001F except tab, U+007F,
// U+0080–U+009F) as \xNN in lower-case hex, a line feed in a cell as \n,
// each byte that is not valid UTF-8 as \xNN.
func shownForTerminal(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case (r < 0x20 && r != '\t') || (r >= 0x7f && r <= 0x9f):
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// tablewriterBox renders header and rows (already shown for a terminal) with
// tablewriter v1 configured as the table format's look (SPEC 4): headers as
// named and left-aligned, no trimming, numeric columns right-aligned.
func tablewriterBox(t *testing.T, cols []catalog.Column, rows [][]string) string {
	t.Helper()
	var out bytes.Buffer
	align := make([]tw.Align, len(cols))
	header := make([]any, len(cols))
	for i, c := range cols {
		align[i] = tw.AlignLeft
		if c.Type.IsNumeric() {
			align[i] = tw.AlignRight
		}
		header[i] = shownForTerminal(c.Name)
	}
	tbl := tablewriter.NewTable(&out,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	)
	tbl.Header(header...)
	for _, r := range rows {
		if err := tbl.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := tbl.Render(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// textPieces are the parts random cells are made of: ASCII, CJK and other wide
// runes, combining and zero-width runes, East Asian ambiguous ones, tabs,
// spaces, pipes, control characters (C0, DEL, C1, ESC), a byte that is not
// UTF-8, and values longer than a line buffer's direct-write threshold.
var textPieces = []string{
	"a", "xyz", "Hello world", "设备", "温度", "한국어", "ｶﾀｶﾅ", "カタカナ", "é", "e\u0301",
	"😀", "👍🏽", "\u200b", "Ω", "±", "→", "─┼", "╬", "\t", " ", "  ", "|", "NULL", "-",
	"\x00", "\x01", "\x1b[31m", "\x7f", "\u0085", "\u009f", "\n", "\r\n", "\xff", "\xe4\xb8",
	strings.Repeat("x", 70), strings.Repeat("长", 40), strings.Repeat("y", bigCell+10),
}

func randText(r *rand.Rand) string {
	if r.IntN(8) == 0 {
		return ""
	}
	var b strings.Builder
	for range 1 + r.IntN(4) {
		p := textPieces[r.IntN(len(textPieces))]
		if len(p) > 100 && r.IntN(20) != 0 {
			continue // long values are rarer, so 1,000-row tables stay quick
		}
		b.WriteString(p)
	}
	return b.String()
}

// doubles are DOUBLE values with their Java Double.toString text (SPEC 4).
var doubles = []struct {
	v    float64
	text string
}{{5.5, "5.5"}, {-0.25, "-0.25"}, {100, "100.0"}, {1e7, "1.0E7"}, {1e-4, "1.0E-4"}, {math.NaN(), "NaN"}, {math.Inf(-1), "-Infinity"}, {0, "0.0"}}

// randColumns returns 1 to 5 columns of random names and types.
func randColumns(r *rand.Rand) []catalog.Column {
	types := []catalog.Type{catalog.Varchar, catalog.BigInt, catalog.Double}
	cols := make([]catalog.Column, 1+r.IntN(5))
	for i := range cols {
		name := randText(r)
		if name == "" || len(name) > 100 {
			name = "c" + strconv.Itoa(i)
		}
		cols[i] = catalog.Column{Name: name, Type: types[r.IntN(len(types))]}
	}
	return cols
}

// fill sets row i of the vectors to random values (some NULL) and returns
// the row's cells as the table shows them.
func fill(r *rand.Rand, cols []catalog.Column, vecs []*session.Vec, i int) []string {
	cells := make([]string, len(cols))
	for c, col := range cols {
		v := vecs[c]
		v.Null[i] = r.IntN(10) == 0
		if v.Null[i] {
			cells[c] = "NULL"
			continue
		}
		switch col.Type {
		case catalog.Varchar:
			s := randText(r)
			v.S[i] = []byte(s)
			cells[c] = shownForTerminal(s)
		case catalog.BigInt:
			n := r.Int64() >> r.IntN(64)
			if r.IntN(2) == 0 {
				n = -n
			}
			v.I[i] = n
			cells[c] = strconv.FormatInt(n, 10)
		case catalog.Double:
			d := doubles[r.IntN(len(doubles))]
			v.F[i] = d.v
			cells[c] = d.text
		}
	}
	return cells
}

func newVecs(cols []catalog.Column) []*session.Vec {
	vecs := make([]*session.Vec, len(cols))
	for i, c := range cols {
		vecs[i] = vector.NewVec(c.Type)
	}
	return vecs
}

// TestBoxMatchesTablewriterRandom is the differential test of the table
// format against tablewriter v1 (SPEC 4: "tablewriter tables"): random chunks,
// seeded, rendered through the sink, must be byte for byte what tablewriter
// draws for the same cells: wide, CJK and zero-width text, empty strings,
// NULLs, one to five columns, up to 1,000 rows, long values, control
// characters shown as \xNN, and titled tables (a job with a side output and
// an errors side output).
func TestBoxMatchesTablewriterRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 1))
	// at least 50 tables, then as many as fit in 3 s (at most 400)
	deadline := time.Now().Add(3 * time.Second)
	ea := twwidth.IsEastAsian()
	defer twwidth.SetOptions(twwidth.Options{EastAsianWidth: ea, ForceNarrowBorders: ea && twwidth.Width("─") == 1})
	iterations := 0
	for ; iterations < 400 && (iterations < 50 || time.Now().Before(deadline)); iterations++ {
		// East Asian ambiguous runes (Ω, ±, →, the borders' ─) are wide in two
		// tables of three, borders narrowed again in one of them
		twwidth.SetOptions(twwidth.Options{EastAsianWidth: iterations%3 > 0, ForceNarrowBorders: iterations%3 == 2})
		nrows := []int{0, 1, 2, r.IntN(30), r.IntN(200), 1000}[r.IntN(6)]
		sides := r.IntN(3) == 0
		mainCols := randColumns(r)
		outputs := []session.Output{{Name: "main", Columns: mainCols}}
		job := &session.Job{HasMain: true, Bounded: true}
		if sides {
			outputs = append(outputs, session.Output{Name: "side-" + randText(r), Columns: randColumns(r)})
			job.HasSides = true
		}
		job.Outputs = outputs
		routed := &session.Batch{N: nrows}
		want := make([][][]string, len(outputs))
		for k, o := range outputs {
			routed.Parts = append(routed.Parts, session.Part{Output: k, Cols: newVecs(o.Columns)})
		}
		var errRows [][]string
		if sides && r.IntN(2) == 0 {
			routed.Errors.Name = "errors"
			for range 1 + r.IntN(3) {
				e := session.ErrorRow{Stream: "s", Position: "s.csv:" + strconv.Itoa(r.IntN(100)), Raw: []byte(randText(r)), Error: randText(r), At: r.IntN(nrows + 1)}
				routed.Errors.Rows = append(routed.Errors.Rows, e)
			}
			// the sink takes bad rows in the order of At
			for i := 1; i < len(routed.Errors.Rows); i++ {
				for j := i; j > 0 && routed.Errors.Rows[j].At < routed.Errors.Rows[j-1].At; j-- {
					routed.Errors.Rows[j], routed.Errors.Rows[j-1] = routed.Errors.Rows[j-1], routed.Errors.Rows[j]
				}
			}
			for _, e := range routed.Errors.Rows {
				errRows = append(errRows, []string{e.Stream, e.Position, shownForTerminal(string(e.Raw)), shownForTerminal(e.Error)})
			}
		}
		for i := range nrows {
			k := r.IntN(len(outputs))
			routed.Parts[k].Sel = append(routed.Parts[k].Sel, int32(i))
			want[k] = append(want[k], fill(r, outputs[k].Columns, routed.Parts[k].Cols, i))
		}

		var out bytes.Buffer
		w := bufio.NewWriter(&out)
		s, err := NewSink(Config{Format: "table", Stdout: w, Stderr: &out, Files: NewFileSet(), Chunk: 1 << 20, Every: time.Hour}, job)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Rows(routed); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}

		var expect strings.Builder
		for k, o := range outputs {
			if sides {
				expect.WriteString(shownForTerminal(o.Name) + "\n")
			}
			expect.WriteString(tablewriterBox(t, o.Columns, want[k]))
			if sides {
				expect.WriteString("\n")
			}
		}
		if errRows != nil {
			expect.WriteString("errors\n" + tablewriterBox(t, errorColumns, errRows) + "\n")
		}
		if got := out.String(); got != expect.String() {
			t.Fatalf("iteration %d (%d rows, columns %v): differs from tablewriter at byte %d\ngot\n%s\nwant (tablewriter)\n%s",
				iterations, nrows, mainCols, firstDiff(got, expect.String()), clip(got), clip(expect.String()))
		}
	}
	t.Logf("%d random tables matched tablewriter", iterations)
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// clip shortens a rendering for a failure message.
func clip(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "…"
	}
	return s
}

// TestTableRowsAllocate: buffering and rendering a chunk allocates nothing
// per row once the buffers have grown (the first chunk grows them).
func TestTableRowsAllocate(t *testing.T) {
	cols := []catalog.Column{{Name: "deviceNo", Type: catalog.Varchar}, {Name: "ts", Type: catalog.BigInt}, {Name: "temperature", Type: catalog.Double}}
	for _, format := range []string{"table", "markdown"} {
		s, err := NewSink(Config{Format: format, Stdout: bufio.NewWriter(&bytes.Buffer{}), Stderr: &bytes.Buffer{}, Files: NewFileSet()}, mainJob(cols...))
		if err != nil {
			t.Fatal(err)
		}
		routed := &session.Batch{N: vector.Cap, Parts: []session.Part{{Output: 0, Cols: newVecs(cols)}}}
		v := routed.Parts[0].Cols
		for i := range vector.Cap {
			routed.Parts[0].Sel = append(routed.Parts[0].Sel, int32(i))
			v[0].S[i] = []byte("设备" + strconv.Itoa(i%8))
			v[1].I[i] = 1610035289736 + int64(i)
			v[2].F[i] = float64(i%1000) / 10
			v[2].Null[i] = i%97 == 0
		}
		s.Rows(routed) // grows the buffers
		s.(*sink).cfg.Stdout.Reset(discard{})
		const batches = 50
		allocs := testing.AllocsPerRun(5, func() {
			for range batches {
				if err := s.Rows(routed); err != nil {
					t.Fatal(err)
				}
			}
		})
		if perRow := allocs / (batches * vector.Cap); perRow > 0.001 {
			t.Errorf("%s: %.0f allocations for %d rows (%.4f per row), want none per row", format, allocs, batches*vector.Cap, perRow)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestCellWidthEveryRune: cellWidth counts every rune (and a byte that is not
// UTF-8) as twwidth does, with East Asian widths off, on, and on with narrow
// borders.
func TestCellWidthEveryRune(t *testing.T) {
	for _, o := range []twwidth.Options{{}, {EastAsianWidth: true}, {EastAsianWidth: true, ForceNarrowBorders: true}} {
		opts := displaywidth.Options{EastAsianWidth: o.EastAsianWidth}
		bad := 0
		var buf [8]byte
		for r := rune(0); r <= utf8.MaxRune && bad < 10; r++ {
			s := utf8.AppendRune(buf[:0], r)
			if r >= 0x80 && r < 0x100 {
				s = append(buf[:0], byte(r)) // a lone byte of 0x80–0xff: not UTF-8
			}
			if got, want := cellWidth(s, 4, opts, o.ForceNarrowBorders), twwidth.WidthWithOptions(string(s), o); got != want {
				t.Errorf("%+v: width of %q is %d, twwidth says %d", o, s, got, want)
				bad++
			}
		}
	}
}
