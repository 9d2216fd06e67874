package render

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"streamql/catalog"
	"streamql/executor"
	"streamql/executor/textconv"
	"streamql/executor/vector"
	"streamql/planner"
)

// Config says where and how a job's outputs are printed.
type Config struct {
	Format  string        // one of Formats
	SideDir string        // "" = side outputs on stdout (SPEC 4)
	Stdout  *bufio.Writer // main output (and sides without SideDir)
	Stderr  io.Writer     // the errors side output of line formats without SideDir
	Files   *FileSet      // --side-dir files written so far in this run
	// Chunk is the most rows a table holds before it is rendered, and Every the
	// longest time rows wait (SPEC 4: 1000 rows or each second).
	Chunk int
	Every time.Duration
}

// FileSet remembers the --side-dir files a run has written, with their header, so
// a later job that writes the same side output appends to it (SPEC 4).
type FileSet struct{ headers map[string]string }

// NewFileSet returns an empty set.
func NewFileSet() *FileSet { return &FileSet{headers: map[string]string{}} }

// open creates path (or reopens it for appending when this run wrote it before;
// the columns must then be the same). created reports a new file.
func (fs *FileSet) open(path, sig string) (f *os.File, created bool, err error) {
	if old, ok := fs.headers[path]; ok {
		if old != sig {
			return nil, false, fmt.Errorf("side output file %s was written earlier in this run with columns (%s), now (%s): give the side output another name", path, old, sig)
		}
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
		return f, false, err
	}
	f, err = os.Create(path)
	if err != nil {
		return nil, false, err
	}
	fs.headers[path] = sig
	return f, true, nil
}

// target is one destination of rows: stdout, stderr or a file.
type target struct {
	name     string // output name
	cols     []catalog.Column
	w        *bufio.Writer
	file     *os.File
	prefix   bool // print the output name on each line (line formats with sides, no side-dir)
	header   bool // header still to print
	isErrors bool
	// table and markdown formats: rows waiting to be rendered
	rows    [][]string
	total   int64
	created bool
}

// sink implements executor.Sink for every format.
type sink struct {
	cfg      Config
	job      *planner.Job
	outs     []*target // per job output
	errs     *target   // errors side output, opened at its first row
	buf      []byte
	tabular  bool
	pending  int
	last     time.Time
	hasSides bool
	stderrW  *bufio.Writer
	text     []*vector.Vec // scratch VARCHAR vectors for rows given as text
	line     lineFormat    // the line format, decided once
}

// lineFormat is a line format of SPEC 4, as appendLine switches on it per row.
type lineFormat uint8

const (
	lineNone lineFormat = iota // table and markdown: not a line format
	lineCSV
	lineTSV
	lineJSON
	linePlain
)

func lineFormatOf(format string) lineFormat {
	switch format {
	case "csv":
		return lineCSV
	case "tsv":
		return lineTSV
	case "json":
		return lineJSON
	case "plain":
		return linePlain
	}
	return lineNone
}

// NewSink returns the sink that prints job's outputs as cfg says. With SideDir,
// every side output's file is created at once, header included (SPEC 4).
func NewSink(cfg Config, job *planner.Job) (executor.Sink, error) {
	if cfg.Chunk == 0 {
		cfg.Chunk = 1000
	}
	if cfg.Every == 0 {
		cfg.Every = time.Second
	}
	s := &sink{cfg: cfg, job: job, tabular: cfg.Format == "table" || cfg.Format == "markdown", last: time.Now(), hasSides: job.HasSides(), line: lineFormatOf(cfg.Format)}
	s.stderrW = bufio.NewWriter(cfg.Stderr)
	for k, o := range job.Outputs {
		t := &target{name: o.Name, cols: o.Columns, w: cfg.Stdout, header: true}
		isMain := job.Main != nil && k == 0
		if !isMain && cfg.SideDir != "" {
			if err := s.openFile(t); err != nil {
				s.closeFiles()
				return nil, err
			}
		} else {
			t.prefix = s.hasSides && cfg.SideDir == ""
		}
		s.outs = append(s.outs, t)
	}
	if !s.tabular && job.Main != nil && !s.outs[0].prefix {
		s.writeHeader(s.outs[0])
	}
	return s, nil
}

func (s *sink) openFile(t *target) error {
	path := filepath.Join(s.cfg.SideDir, t.name+Ext(s.cfg.Format))
	var sig []string
	for _, c := range t.cols {
		sig = append(sig, c.Name+" "+c.Type.String())
	}
	f, created, err := s.cfg.Files.open(path, strings.Join(sig, ", "))
	if err != nil {
		return fmt.Errorf("side output directory: %w", err)
	}
	t.file, t.w, t.created = f, bufio.NewWriterSize(f, 64<<10), created
	t.header = created
	if !s.tabular && created {
		s.writeHeader(t)
	}
	return nil
}

func (s *sink) closeFiles() {
	for _, t := range append(s.outs, s.errs) {
		if t != nil && t.file != nil {
			t.w.Flush()
			t.file.Close()
			t.file = nil
		}
	}
}

func (s *sink) writeHeader(t *target) {
	if !t.header {
		return
	}
	t.header = false
	switch s.cfg.Format {
	case "csv", "tsv":
		d := s.delim()
		var b []byte // not s.buf: appendLine may be building a row in it
		if t.prefix {
			b = append(appendCSVField(b, []byte("output"), d), d)
		}
		for i, c := range t.cols {
			if i > 0 {
				b = append(b, d)
			}
			b = appendCSVField(b, []byte(c.Name), d)
		}
		b = append(b, '\n')
		t.w.Write(b)
	}
}

func (s *sink) delim() byte {
	if s.cfg.Format == "tsv" {
		return '\t'
	}
	return ','
}

// Rows implements executor.Sink: rows are written in input order across outputs.
func (s *sink) Rows(r *executor.Routed) error {
	bad := 0
	for i := 0; i < r.N; i++ {
		for ; bad < len(r.Bad) && r.Bad[bad].At <= i; bad++ {
			if err := s.errorRow(r.ErrorSide, &r.Bad[bad]); err != nil {
				return err
			}
		}
		k := r.Dest[i]
		if k < 0 {
			continue
		}
		p := &r.Parts[k]
		t := s.outs[p.Output]
		if s.tabular {
			row := make([]string, len(p.Cols))
			for c, v := range p.Cols {
				if v.Null[i] {
					row[c] = "NULL"
				} else {
					row[c] = string(vector.AppendValue(s.buf[:0], t.cols[c].Type, v, i))
				}
			}
			t.rows = append(t.rows, row)
			t.total++
			s.pending++
			continue
		}
		s.buf = s.appendLine(s.buf[:0], t, p.Cols, i)
		if _, err := t.w.Write(s.buf); err != nil {
			return err
		}
	}
	for ; bad < len(r.Bad); bad++ {
		if err := s.errorRow(r.ErrorSide, &r.Bad[bad]); err != nil {
			return err
		}
	}
	if s.tabular && (s.pending >= s.cfg.Chunk || time.Since(s.last) >= s.cfg.Every) {
		return s.renderTables(false)
	}
	return nil
}

// appendLine encodes row i of an output as one line of a line format.
func (s *sink) appendLine(b []byte, t *target, vals []*vector.Vec, i int) []byte {
	if t.header && t.prefix {
		s.writeHeader(t)
	}
	if s.line == lineNone { // a sink made without NewSink (WriteResult)
		s.line = lineFormatOf(s.cfg.Format)
	}
	switch s.line {
	case lineCSV, lineTSV:
		d := byte(',')
		if s.line == lineTSV {
			d = '\t'
		}
		if t.prefix {
			b = append(appendCSVField(b, []byte(t.name), d), d)
		}
		for c, v := range vals {
			if c > 0 {
				b = append(b, d)
			}
			if !v.Null[i] {
				b = appendCSVValue(b, t.cols[c].Type, v, i, d)
			}
		}
	case lineJSON:
		b = append(b, '{')
		if t.prefix {
			b = append(b, `"output":`...)
			b = appendJSONString(b, []byte(t.name))
			if len(vals) > 0 {
				b = append(b, ',')
			}
		}
		for c, v := range vals {
			if c > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, []byte(t.cols[c].Name))
			b = append(b, ':')
			b = appendJSONValue(b, t.cols[c].Type, v, i)
		}
		b = append(b, '}')
	case linePlain:
		if t.prefix {
			b = append(append(b, t.name...), "> "...)
		}
		b = append(b, '(')
		for c, v := range vals {
			if c > 0 {
				b = append(b, ',')
			}
			if v.Null[i] {
				b = append(b, "null"...)
				continue
			}
			b = vector.AppendValue(b, t.cols[c].Type, v, i)
		}
		b = append(b, ')')
	}
	return append(b, '\n')
}

// appendCSVValue appends row i of v (not NULL), of type t, as a csv or tsv field
// with delimiter d: text quoted when needed, other types never need it.
func appendCSVValue(b []byte, t catalog.Type, v *vector.Vec, i int, d byte) []byte {
	switch t {
	case catalog.Varchar:
		f := v.S[i]
		if needsQuote(f, d) {
			return appendCSVField(b, f, d)
		}
		return append(b, f...)
	case catalog.BigInt:
		return strconv.AppendInt(b, v.I[i], 10)
	case catalog.Double:
		return textconv.AppendDouble(b, v.F[i])
	case catalog.Unknown:
		return append(b, '"', '"') // no text: an empty field, quoted
	}
	return vector.AppendValue(b, t, v, i) // BOOLEAN, TIMESTAMP
}

func needsQuote(f []byte, d byte) bool {
	if len(f) == 0 {
		return true
	}
	for _, c := range f {
		if c == d || c == '"' || c == '\n' || c == '\r' {
			return true
		}
	}
	return false
}

var errorColumns = []catalog.Column{{Name: "stream", Type: catalog.Varchar}, {Name: "position", Type: catalog.Varchar}, {Name: "raw", Type: catalog.Varchar}, {Name: "error", Type: catalog.Varchar}}

// Errors implements executor.Sink: where the errors side output shows depends on
// the format (SPEC 1, bad input).
func (s *sink) Errors(name string, rows []executor.ErrorRow) error {
	for i := range rows {
		if err := s.errorRow(name, &rows[i]); err != nil {
			return err
		}
	}
	return nil
}

// errorRow writes one row of the errors side output, opening its target at the
// first row (the output exists only once a row reaches it).
func (s *sink) errorRow(name string, r *executor.ErrorRow) error {
	if s.errs == nil {
		t := &target{name: name, cols: errorColumns, header: true, isErrors: true}
		switch {
		case s.cfg.SideDir != "":
			if err := s.openFile(t); err != nil {
				return err
			}
		case s.cfg.Format == "json":
			t.w, t.prefix = s.cfg.Stdout, true
		case s.tabular:
			t.w = s.cfg.Stdout
		default:
			t.w = s.stderrW
		}
		s.errs = t
	}
	t := s.errs
	if s.tabular {
		t.rows = append(t.rows, []string{r.Stream, r.Position, string(r.Raw), r.Error})
		t.total++
		s.pending++
		return nil
	}
	b := s.buf[:0]
	if s.cfg.SideDir == "" && s.cfg.Format != "json" {
		// csv, tsv and plain show the errors side output on stderr, a line per
		// row prefixed with its name (SPEC 1)
		b = append(append(b, name...), "> "...)
	}
	b = s.appendTextRow(b, t, []byte(r.Stream), []byte(r.Position), r.Raw, []byte(r.Error))
	s.buf = b
	_, err := t.w.Write(b)
	return err
}

// appendTextRow encodes a row given as text values (all VARCHAR, none NULL) with
// the same encoder as query rows.
func (s *sink) appendTextRow(b []byte, t *target, vals ...[]byte) []byte {
	for len(s.text) < len(vals) {
		s.text = append(s.text, &vector.Vec{Type: catalog.Varchar, S: make([][]byte, 1), Null: make([]bool, 1)})
	}
	for c, v := range vals {
		s.text[c].S[0] = v
	}
	return s.appendLine(b, t, s.text[:len(vals)], 0)
}

// Flush implements executor.Sink.
func (s *sink) Flush() error {
	if s.tabular && s.pending > 0 && time.Since(s.last) >= s.cfg.Every {
		if err := s.renderTables(false); err != nil {
			return err
		}
	}
	return s.flushWriters()
}

func (s *sink) flushWriters() error {
	if err := s.cfg.Stdout.Flush(); err != nil {
		return err
	}
	if err := s.stderrW.Flush(); err != nil {
		return err
	}
	for _, t := range append(s.outs, s.errs) {
		if t != nil && t.file != nil {
			if err := t.w.Flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// Close implements executor.Sink.
func (s *sink) Close() error {
	var err error
	if s.tabular {
		err = s.renderTables(true)
	}
	if ferr := s.flushWriters(); err == nil {
		err = ferr
	}
	for _, t := range append(s.outs, s.errs) {
		if t != nil && t.file != nil {
			if cerr := t.file.Close(); err == nil {
				err = cerr
			}
			t.file = nil
		}
	}
	return err
}

// renderTables renders the buffered rows of each output as a table (SPEC 4: main
// first, then sides in declaration order, then errors; titled when the job has
// side outputs). At the end, main shows even without rows, and so does a side
// output's file.
func (s *sink) renderTables(final bool) error {
	s.pending = 0
	s.last = time.Now()
	all := append([]*target{}, s.outs...)
	if s.errs != nil {
		all = append(all, s.errs)
	}
	for _, t := range all {
		// At the end every output of the job shows, with its header only when it
		// got no rows (SPEC 4: one table per output); the errors output only once
		// a row reached it. A side file appended to by a later job is not repeated.
		if len(t.rows) == 0 && !(final && t.total == 0 && !t.isErrors && (t.file == nil || t.created)) {
			continue
		}
		title := ""
		if (s.hasSides || t.isErrors) && t.file == nil {
			title = t.name
		}
		if err := writeTable(t.w, s.cfg.Format, title, t.cols, t.rows); err != nil {
			return err
		}
		t.rows = t.rows[:0]
	}
	return nil
}
