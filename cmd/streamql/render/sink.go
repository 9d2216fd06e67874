package render

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"streamql/catalog"
	"streamql/executor/format"
	"streamql/internal/fsflags"
	"streamql/internal/session"
	"streamql/internal/termtext"
)

// Config says where and how a job's outputs are printed.
type Config struct {
	Format  string        // one of Formats
	SideDir string        // "" = side outputs on stdout (SPEC 4)
	Stdout  *bufio.Writer // main output (and sides without SideDir)
	Stderr  io.Writer     // the errors side output of line formats without SideDir
	Files   *FileSet      // --side-dir files written so far in this run
	// Written, when not nil, counts the bytes write(2) accepted on stdout:
	// it is the writer under Stdout's buffer (any buffer between them must
	// be empty when the job starts and flush at every write, as the
	// progress bar's does). With SideDir, when a write to stdout fails, the
	// side files are cut back to the rows routed before the last main row it
	// accepted whole, a table's file ending on a whole table (SPEC 4,
	// cut.go).
	Written *WriteCounter
	// Chunk is the most rows a table holds before it is rendered, and Every the
	// longest time rows wait (SPEC 4: 1000 rows or each second).
	Chunk int
	Every time.Duration
	// ResultMode is 'sql-client.execution.result-mode' (SPEC 2.8): how
	// table and markdown show an updating output: "table" its materialized
	// result, "changelog" its changes with an op column, "" by the job:
	// table when every stream it reads is bounded or stdout is a terminal
	// (Terminal), changelog otherwise. Line formats and --side-dir files
	// always print the changelog.
	ResultMode string
	Terminal   bool
	// Size, when not nil, returns the width and height of the terminal
	// (Terminal) in columns and lines, 0 when unknown; the live table reads
	// it at each redraw and fits its frame to it (livetable.go). Reserve is
	// the lines kept free under the live table for the live status on
	// stderr (SPEC 4), 0 when there is none.
	Size    func() (cols, rows int)
	Reserve int
}

// FileSet remembers the --side-dir files a run has written, with their header, so
// a later job that writes the same side output appends to it (SPEC 4).
type FileSet struct{ headers map[string]string }

// NewFileSet returns an empty set.
func NewFileSet() *FileSet { return &FileSet{headers: map[string]string{}} }

// Columns returns the columns (session.SchemaText) with which this run wrote the
// side file path, and false when it wrote none there: every side file the
// sinks opened, also the ones opened at their first row (errors, late).
func (fs *FileSet) Columns(path string) (string, bool) {
	sig, ok := fs.headers[path]
	return sig, ok
}

// open creates path (or reopens it for appending when this run wrote it before;
// the columns must then be the same) and returns it with its size (bytes, 0
// for a new file). created reports a new file. Errors name the path.
func (fs *FileSet) open(path, sig string) (f *os.File, size int64, created bool, err error) {
	if old, ok := fs.headers[path]; ok {
		if old != sig {
			return nil, 0, false, fmt.Errorf("side output file %s was written earlier in this run with columns %s, now %s: give the side output another name", path, old, sig)
		}
		f, size, err = openNoFollow(path, os.O_WRONLY|os.O_APPEND)
		return f, size, false, err
	}
	f, _, err = openNoFollow(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return nil, 0, false, err
	}
	fs.headers[path] = sig
	return f, 0, true, nil
}

// SideFilePath returns the file of side output name in dir (--side-dir) for
// a format whose extension is ext (Ext): DIR/<name><ext>, or an error naming
// the side output when that would not be a file directly inside dir (a name
// that holds a path separator or NUL, or a file name "." or ".."). SPEC 4: a
// side file is never written outside --side-dir. Every other name SPEC 2.1
// allows gets its file: "." with ext ".csv" is the file "..csv" inside dir.
// The sink writes its side files there; the CLI checks them there.
func SideFilePath(dir, name, ext string) (string, error) {
	file := name + ext
	if name == "" || file == "." || file == ".." || strings.ContainsRune(name, '/') || strings.ContainsRune(name, filepath.Separator) || strings.IndexByte(name, 0) >= 0 {
		return "", fmt.Errorf("side output '%s' cannot be a file name inside --side-dir %s: rename the side output", name, dir)
	}
	return filepath.Join(dir, file), nil
}

// openNoFollow opens path with flag (plus O_NOFOLLOW) and mode 0644, refusing a
// symbolic link as the file itself (SPEC 4: a side file is never written through
// a symbolic link; a dangling one is refused too, so nothing is created where it
// points). The --side-dir folder itself may be a symbolic link: that is where the
// user chose to put the files. Anything but a regular file is refused too (a
// named pipe, a device): when stdout is closed early a side file is cut back to
// the rows routed before the last row written to stdout (SPEC 4, cut.go), which
// only a regular file can be; O_NONBLOCK keeps the open of a named pipe from
// waiting for a reader. It returns the file and its size once opened (bytes:
// the one stat of the file). Errors name the path and say what to do.
func openNoFollow(path string, flag int) (*os.File, int64, error) {
	f, err := os.OpenFile(path, flag|fsflags.NoFollow|fsflags.NonBlock, 0o644)
	notRegular := func() error {
		return fmt.Errorf("%s is not a regular file (a named pipe or a device), and side files are regular files that can be cut back when stdout is closed early: remove it or choose another --side-dir", path)
	}
	if err == nil {
		st, serr := f.Stat()
		if serr != nil || !st.Mode().IsRegular() {
			f.Close()
			if serr != nil {
				return nil, 0, serr
			}
			return nil, 0, notRegular()
		}
		return f, st.Size(), nil
	}
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) {
		return nil, 0, fmt.Errorf("%s is a symbolic link, and side files are never written through one: remove it or choose another --side-dir", path)
	}
	if errors.Is(err, syscall.ENXIO) { // a named pipe without a reader
		return nil, 0, notRegular()
	}
	return nil, 0, err
}

// target is one destination of rows: stdout, stderr or a file.
type target struct {
	name     string // output name
	cols     []catalog.Column
	nested   int8 // hasNested: 0 not yet known, 1 no ARRAY/MAP/ROW column, 2 some
	w        *bufio.Writer
	file     *os.File
	prefix   bool // print the output name on each line (line formats with sides, no side-dir)
	header   bool // header still to print
	isErrors bool
	// late: the default late output of windowed queries (SPEC 2.4), opened at
	// its first row like errors; toStderr: its lines go to stderr as "late> ..."
	late, toStderr bool
	sink           bool // the output goes to a sink stream (SPEC 2.5): counted, never printed
	// an updating output (session.Output.Updating, SPEC 2.8): op prints each
	// row's kind first (an op column, "op" in json, +I[...] in plain); mat,
	// when not nil, keeps the materialized result instead (table mode)
	op  bool
	mat *materialized
	// table and markdown formats: rows waiting to be rendered
	rows    tableRows
	total   int64 // rows that reached this output (written or buffered)
	created bool
	path    string // the side file's, once opened
	// The cut when stdout is closed early (cut.go): track says whether this
	// target is stdout's main output or a side file; cw counts the bytes in
	// a side file (its length at open included); tag is the tag of its last
	// rows, base the length it keeps whatever comes, log its lengths at the
	// epochs its rows crossed; at is its length before a chunk's bytes
	// (addCut); rowTags the tags of a side file's rows waiting in rows,
	// boxes the column widths of the box tables a cut may fall in, back to
	// back (cutLen.inTable).
	track   uint8
	cw      *WriteCounter
	tag     int
	base    cutLen
	log     []cutLen
	at      int64
	rowTags []int
	boxes   []int
}

// sink implements session.Sink for every format.
type sink struct {
	cfg      Config
	merge    session.Merger // a batch's output order (Rows)
	job      *session.Job
	outs     []*target // per job output
	errs     []*target // errors side outputs, one per name, each opened at its first row
	buf      []byte
	esc      []byte // scratch: a line shown for a terminal (termtext.Append)
	tabular  bool
	pending  int
	last     time.Time
	hasSides bool
	stderrW  *bufio.Writer
	text     []*session.Vec // scratch VARCHAR vectors for rows given as text
	line     lineFormat     // the line format, decided once
	// copies[k]: the rows of part k of the batch being written are the input's
	// decoded columns, so a row whose record text the decoder kept
	// (session.Columns.Line) is that text (copyLines); else fields[k] has bit c
	// set when column c of part k is a decoded column, whose value on such a
	// row is written as its text (fieldLines).
	copies []bool
	fields []uint64
	// direct[k]: part k's output when such a row is written as it is, the
	// line alone (no prefix, header or terminal escapes: row's work); nil
	// when not.
	direct []*target
	// encoded[k]: part k's output when its rows that are neither copied
	// nor written by fields are written as csv or tsv lines of their values
	// and nothing else (plainLines, no op column, no nested value: encode's
	// work); nil when row does it.
	encoded []*target
	// maxLine is the longest line written so far (bytes): a line is built in
	// its writer's buffer when that has room for twice as much (row).
	maxLine int
	// cut, when not nil, is the log that cuts the side files back when
	// stdout is closed early (cut.go); badTag, when not -1, is the tag of
	// the malformed row WriteChunk writes.
	cut    *cutLog
	badTag int
	// kind is the change kind of the row being written (row), printed on an
	// updating output (target.op)
	kind session.RowKind
	// the live table of materialized results on a terminal (changelog.go):
	// the lines drawn last, whether a result changed since, and when it was
	// drawn
	liveLines int
	liveDirty bool
	liveAt    time.Time
	// the terminal's size the frame was drawn for, and each of its lines'
	// width (eraseLive after a resize)
	liveCols, liveRows int
	liveWidths         []int
	// livePage's scratch, kept from frame to frame: the outputs shown, their
	// first rows, how many of them are shown, the tables drawn, the frame
	liveMats  []*target
	livePages []tableRows
	liveShown []int
	liveBuf   bytes.Buffer
	liveFrame []byte
	// enc, when not nil, is the goroutine that encodes and writes the
	// changelog rows of main's chunks (changeenc.go)
	enc *changeStage
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

// lineFormatOf returns the line format of format (its printer's).
func lineFormatOf(format string) lineFormat { return printerOf(format).line }

// NewSink returns the sink that prints job's outputs as cfg says. With SideDir,
// every side output's file is created at once, header included (SPEC 4); with
// cfg.Written too, Close cuts the side files back when stdout was closed early
// to the rows routed before the last main row written (cut.go): in table and
// markdown, a row is written when its line in main's table is, and a side
// file cut inside one of its tables is closed there by that table's own
// bottom border (as wide as the rows it was drawn with made it). Its errors
// name the side file and say what to do.
func NewSink(cfg Config, job *session.Job) (session.Sink, error) {
	if cfg.Chunk == 0 {
		cfg.Chunk = 1000
	}
	if cfg.Every == 0 {
		cfg.Every = time.Second
	}
	s := &sink{cfg: cfg, job: job, tabular: isTabular(cfg.Format), last: time.Now(), hasSides: job.HasSides, line: lineFormatOf(cfg.Format), badTag: -1}
	s.stderrW = bufio.NewWriter(cfg.Stderr)
	if cfg.Written != nil && cfg.SideDir != "" && (s.line != lineNone || s.tabular) && job.HasMain && !job.Outputs[0].Sink {
		s.cut = &cutLog{out: cfg.Written, w: cfg.Stdout, ends: make([]int64, 0, 256)}
		if s.tabular {
			s.cut.table = cfg.Format
		}
	}
	for k, o := range job.Outputs {
		t := &target{name: o.Name, cols: o.Columns, w: cfg.Stdout, header: true}
		isMain := job.HasMain && k == 0
		if o.Updating {
			s.changelogMode(t, isMain || cfg.SideDir == "")
			if t.mat != nil {
				t.mat.order = o.Order
			}
		}
		if o.Late { // shown once a row reaches it, like errors (SPEC 2.4)
			t.late, t.isErrors, t.w = true, true, nil
		} else if o.Sink { // written by the executor's sink (SPEC 2.5)
			t.sink, t.header = true, false
		} else if !isMain && cfg.SideDir != "" {
			if err := s.openFile(t); err != nil {
				s.closeFiles()
				return nil, err
			}
		} else {
			t.prefix = s.hasSides && cfg.SideDir == ""
			if isMain && s.cut != nil {
				t.track = trackMain
			}
		}
		s.outs = append(s.outs, t)
	}
	if !s.tabular && job.HasMain && !s.outs[0].prefix && !s.outs[0].sink {
		s.writeHeader(s.outs[0])
	}
	return s, nil
}

// changelogMode sets how target t of an updating output shows (SPEC 2.8):
// line formats and --side-dir files print each change with its op (onStdout
// false), table and markdown on stdout keep the materialized result or print
// the changelog as Config.ResultMode says.
func (s *sink) changelogMode(t *target, onStdout bool) {
	if !s.tabular || !onStdout {
		t.op = true
	} else if mode := s.cfg.ResultMode; mode == "table" || mode == "" && (s.cfg.Terminal || s.job.Bounded) {
		t.mat = newMaterialized()
	} else {
		t.op = true
	}
	if t.op && s.tabular {
		t.cols = append([]catalog.Column{{Name: "op", Type: catalog.Varchar}}, t.cols...)
	}
}

func (s *sink) openFile(t *target) error {
	path, err := SideFilePath(s.cfg.SideDir, t.name, Ext(s.cfg.Format))
	if err != nil {
		return err
	}
	f, size, created, err := s.cfg.Files.open(path, session.SchemaText(t.cols))
	if err != nil {
		return fmt.Errorf("side output directory: %w", err)
	}
	t.cw = &WriteCounter{W: f, N: size} // (the cut's lengths are the file's)
	t.file, t.w, t.created, t.path = f, bufio.NewWriterSize(t.cw, 64<<10), created, path
	t.header = created
	if !s.tabular && created {
		s.writeHeader(t)
	}
	if s.cut != nil {
		t.track, t.tag, t.base = trackSide, s.sideTag(), cutLen{n: t.length()}
		s.cut.files = append(s.cut.files, t)
	}
	return nil
}

// sideTag is the cut's tag of a side row routed now: the malformed row
// WriteChunk writes has its own (cut.go).
func (s *sink) sideTag() int {
	if s.badTag >= 0 {
		return s.badTag
	}
	return s.cut.tag()
}

func (s *sink) closeFiles() {
	for _, t := range s.targets() {
		if t.file != nil {
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
	if l := lineFormatOf(s.cfg.Format); l.delimited() {
		d := l.delim()
		var b []byte // not s.buf: appendLine may be building a row in it
		if t.prefix {
			b = append(format.AppendCSVField(b, []byte("output"), d), d)
		}
		if t.op {
			b = append(append(b, "op"...), d)
		}
		b = append(format.AppendCSVHeader(b, t.cols, d), '\n')
		t.w.Write(b)
	}
}

// delim returns the field delimiter of the sink's line format (its
// printer's, lineFormat.delim).
func (s *sink) delim() byte { return lineFormatOf(s.cfg.Format).delim() }

// Rows implements session.Sink: rows are written in input order across
// outputs, with the rows operators made (r.Chunks) and the malformed rows at
// their places (SPEC 4).
func (s *sink) Rows(r *session.Batch) error {
	s.copies, s.fields = s.lineModes(r, s.copies[:0], s.fields[:0])
	s.direct = s.direct[:0]
	for k, c := range s.copies {
		var t *target
		if c {
			t = s.outs[r.Parts[k].Output]
			if t.late || t.sink || t.toStderr || t.prefix || t.header || t.w == nil || t.op || t.mat != nil {
				t = nil // (row's work)
			}
		}
		s.direct = append(s.direct, t)
	}
	s.encoded = s.encoded[:0]
	for k := range r.Parts {
		var t *target
		if !s.copies[k] && s.fields[k] == 0 {
			t = s.outs[r.Parts[k].Output]
			if !encodeRows || !s.plainLines(t) || t.op || t.late || t.hasNested() {
				t = nil // (row's work)
			}
		}
		s.encoded = append(s.encoded, t)
	}
	copies, direct, fields, encoded := s.copies, s.direct, s.fields, s.encoded // (locals: kept across the calls)
	lines := start(&s.merge, r)
	m := &s.merge
	for {
		seg, ok := m.Next()
		if !ok {
			break
		}
		if seg.Chunk != nil {
			if s.changeEncodable(&seg.Chunk.Part) {
				if err := s.encodeChange(&seg.Chunk.Part); err != nil {
					return err
				}
				continue
			}
			if err := s.enc.sync(); err != nil {
				return err
			}
			if err := s.chunk(seg.Chunk); err != nil {
				return err
			}
			continue
		}
		if s.enc != nil && (len(seg.Bad) > 0 || routes(seg.Port[seg.From:seg.To])) {
			if err := s.enc.sync(); err != nil { // (the rows after the encoder's)
				return err
			}
		}
		for k := range seg.Bad {
			if err := s.errorRow(r.Errors.Name, &seg.Bad[k]); err != nil {
				return err
			}
		}
		for i := seg.From; i < seg.To; i++ {
			k := seg.Port[i]
			if k < 0 {
				continue
			}
			var line []byte
			var plain uint64
			if copies[k] {
				line = lines[i]
				if t := direct[k]; t != nil && line != nil {
					t.total++
					if err := s.put(t, line, true); err != nil {
						return err
					}
					continue
				}
			} else if fields[k] != 0 && lines[i] != nil {
				plain = fields[k]
			} else if t := encoded[k]; t != nil && t.w.Available() >= 2*s.maxLine+64 {
				n, err := s.encode(t, r.Parts[k].Cols, seg.Port[:seg.To], i)
				if err != nil {
					return err
				}
				i += n - 1
				continue
			}
			if err := s.row(&r.Parts[k], i, line, plain); err != nil {
				return err
			}
		}
	}
	if s.tabular && s.pending > 0 && time.Since(s.last) >= s.cfg.Every {
		return s.renderTables(false)
	}
	if s.liveDirty && time.Since(s.liveAt) >= s.cfg.Every {
		if err := s.enc.sync(); err != nil {
			return err
		}
		s.liveAt = time.Now()
		return s.live(false)
	}
	return nil
}

// routes reports whether a row of ports (a segment's, Segment.Port) goes
// to an output.
func routes(ports []int16) bool {
	for _, k := range ports {
		if k >= 0 {
			return true
		}
	}
	return false
}

// encode writes row i of vals and the rows after it of the same part (ports:
// each row's part, up to the segment's end) to t, whose rows plainLines
// says are csv or tsv lines and nothing else (Rows' encoded), as row would:
// the lines (format.AppendCSVRow) built in t.w's free buffer while it has
// room for twice the longest line so far (the caller checked it for the
// first), then written at once; the cut's log noted as put does (after the
// first row alone when a side row came before it). It returns the rows
// written and t.w's error.
func (s *sink) encode(t *target, vals []*session.Vec, ports []int16, i int) (int, error) {
	b, d, k := t.w.AvailableBuffer(), s.line.delim(), ports[i]
	one := t.track == trackMain && s.cut.dirty // (its end noted after it: mainRow)
	n := 0
	for j := i; j < len(ports) && ports[j] == k && (n == 0 || !one && cap(b)-len(b) >= 2*s.maxLine+64); j++ {
		at := len(b)
		b = append(format.AppendCSVRow(b, t.cols, vals, j, d), '\n')
		s.maxLine = max(s.maxLine, len(b)-at)
		n++
	}
	t.total += int64(n)
	_, err := t.w.Write(b)
	if t.track == trackMain {
		s.cut.mainRow()
	}
	return n, err
}

// start resets m to r and returns r's kept record texts by arrival
// ordinal (nil: none kept): what sink.Rows and encChunk.Rows begin with.
func start(m *session.Merger, r *session.Batch) [][]byte {
	m.Reset(r)
	if r.In == nil {
		return nil
	}
	return r.In.Line
}

// put writes b, one row's line, to t: b ends in LF, or, with lf, put adds
// it (in t.w's free buffer when that has room). It notes the row in the
// cut's log when t takes part in it (cut.go: a side file's length before
// the row, a main row's end after it): every row of a line format is
// written here. It returns t.w's error.
func (s *sink) put(t *target, b []byte, lf bool) error {
	if t.track == trackSide {
		s.cut.sideRow(t, s.sideTag())
	}
	var err error
	if !lf {
		_, err = t.w.Write(b)
	} else if a := t.w.AvailableBuffer(); len(b) < cap(a) {
		_, err = t.w.Write(append(append(a, b...), '\n'))
	} else if _, err = t.w.Write(b); err == nil {
		err = t.w.WriteByte('\n')
	}
	if t.track == trackMain {
		s.cut.mainRow()
	}
	return err
}

// chunk writes the rows an operator made, in order: the first as row
// writes any row, the rest together (lines) when they are plain csv or tsv
// lines (an updating query's changelog, issue 24).
func (s *sink) chunk(c *session.Chunk) error {
	for k, i := range c.Sel {
		if t := s.outs[c.Output]; k > 0 && s.plainLines(t) {
			return s.lines(t, &c.Part, c.Sel[k:])
		}
		if err := s.row(&c.Part, int(i), nil, 0); err != nil {
			return err
		}
	}
	return nil
}

// plainLines reports whether row writes t's rows as csv or tsv lines into
// its open writer and nothing else (no table, materialized result, name
// prefix, header, stderr or side file's cut tag), so that a chunk's rows
// can go out together (lines).
func (s *sink) plainLines(t *target) bool {
	return (s.line == lineCSV || s.line == lineTSV) && !s.tabular && t.w != nil && !t.sink && t.mat == nil &&
		!t.toStderr && !t.prefix && !t.header && t.track != trackSide
}

// lines writes rows sel of p to t (plainLines) as row does, the lines
// built in t.w's free buffer back to back and handed to it together. The
// cut's note of a main row (cutLog.mainRow) is the first row's of the
// chunk: no side row comes between.
func (s *sink) lines(t *target, p *session.Part, sel []int32) error {
	for len(sel) > 0 {
		room := 2*s.maxLine + 64
		if t.w.Available() < room && (t.w.Size() < room || t.w.Flush() != nil) {
			s.kind = session.KindAt(p, int(sel[0]))
			if err := s.put(t, s.appendLine(s.buf[:0], t, p.Cols, int(sel[0]), nil, 0), false); err != nil {
				return err
			}
			t.total++
			sel = sel[1:]
			continue
		}
		b := t.w.AvailableBuffer()
		n := 0
		for _, i := range sel {
			if cap(b)-len(b) < room {
				break
			}
			s.kind = session.KindAt(p, int(i))
			at := len(b)
			b = s.appendLine(b, t, p.Cols, int(i), nil, 0)
			s.maxLine = max(s.maxLine, len(b)-at)
			n++
		}
		t.total += int64(n)
		sel = sel[n:]
		if _, err := t.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// lineModes appends to copies and fields, per part of r, whether its rows'
// lines are r.In's kept record texts (copyLines) and else which of its values
// are their fields' texts (fieldLines): what row's line and plain are.
func (s *sink) lineModes(r *session.Batch, copies []bool, fields []uint64) ([]bool, []uint64) {
	for k := range r.Parts {
		c := s.copyLines(r.In, &r.Parts[k])
		var f uint64
		if !c {
			f = s.fieldLines(r.In, &r.Parts[k])
		}
		copies, fields = append(copies, c), append(fields, f)
	}
	return copies, fields
}

// encodeRows turns Rows' encoded path on (encode); the tests turn it off to
// compare with row's.
var encodeRows = true

// recordLines turns copyLines on; the tests turn it off to compare with the
// encoders.
var recordLines = true

// copyLines reports whether the csv or tsv lines of p's rows are in's kept
// record texts (session.Columns.Line): p's columns are in's decoded columns
// themselves, in order, all of them (SELECT * or the same list), of the
// output's types, and in's delimiter is the format's.
func (s *sink) copyLines(in *session.Columns, p *session.Part) bool {
	if !recordLines || in == nil || in.LineCols == 0 || len(p.Cols) != in.LineCols || (s.line != lineCSV && s.line != lineTSV) || in.LineDelim != s.delim() {
		return false
	}
	cols := s.outs[p.Output].cols
	if len(cols) != len(p.Cols) {
		return false
	}
	for c, v := range p.Cols {
		if v != in.Cols[c] || cols[c].Type != v.Type || v.Type.IsNested() {
			return false // (a nested value's field is its JSON text: hasNested)
		}
	}
	return true
}

// fieldLines returns the columns of p (bit c for column c, the first 64) that
// are decoded columns of in, of the output's types, for csv or tsv with in's
// delimiter: on a row whose record text in kept (session.Columns.Line), each
// such value's text is its csv field as it stands (appendFields).
func (s *sink) fieldLines(in *session.Columns, p *session.Part) uint64 {
	if !recordLines || in == nil || in.LineCols == 0 || (s.line != lineCSV && s.line != lineTSV) || in.LineDelim != s.delim() {
		return 0
	}
	cols := s.outs[p.Output].cols
	var m uint64
	for c, v := range p.Cols[:min(len(p.Cols), len(cols), 64)] {
		for _, w := range in.Cols[:in.LineCols] {
			if v == w && cols[c].Type == v.Type {
				m |= 1 << uint(c)
			}
		}
	}
	return m
}

// appendFields is format.AppendCSVRow for a row whose record text its batch
// kept (session.Columns.Line): a column with its bit set in plain (fieldLines)
// is its VARCHAR text or its number's source text as it stands.
func appendFields(b []byte, cols []catalog.Column, vals []*session.Vec, i int, d byte, plain uint64) []byte {
	for c, v := range vals {
		if c > 0 {
			b = append(b, d)
		}
		if c < 64 && plain>>uint(c)&1 != 0 {
			if v.Type == catalog.Varchar {
				b = append(b, v.S[i]...)
				continue
			}
			if v.Text != nil && v.Text[i] != nil {
				b = append(b, v.Text[i]...)
				continue
			}
		}
		if !v.Null[i] {
			b = appendCSVValue(b, cols[c].Type, v, i, d)
		}
	}
	return b
}

// hasNested reports whether the target has an ARRAY, MAP or ROW column,
// which csv and tsv on stdout and in --side-dir print as Flink prints them,
// `[1, 2]`, `{a=1}`, `(1, x)` (SPEC 2.10; the table, markdown and plain
// formats and CAST(x AS VARCHAR) give the same text, SPEC 2), quoted as text
// is, through appendFields; other rows are format.AppendCSVRow's. (The csv
// record format of a file sink writes them as JSON, which its csv source
// reads back.) Computed once per target.
func (t *target) hasNested() bool {
	if t.nested == 0 {
		t.nested = 1
		for _, c := range t.cols {
			if c.Type.IsNested() {
				t.nested = 2
			}
		}
	}
	return t.nested == 2
}

// appendCSVValue appends row i of v (not NULL), of type t, as a csv or tsv
// field with delimiter d: format.AppendCSVValue, but an ARRAY, MAP or ROW as
// its printed text (hasNested).
func appendCSVValue(b []byte, t catalog.Type, v *session.Vec, i int, d byte) []byte {
	if !t.IsNested() {
		return format.AppendCSVValue(b, t, v, i, d)
	}
	start := len(b)
	b = session.AppendValue(b, t, v, i)
	if format.NeedsQuote(b[start:], d) {
		f := append([]byte(nil), b[start:]...)
		b = format.AppendCSVField(b[:start], f, d)
	}
	return b
}

// row writes row i of part p to its output (or buffers it for a table); line,
// when not nil, is the row's csv encoding (copyLines), else plain says which
// of its values are their fields' texts (appendFields).
func (s *sink) row(p *session.Part, i int, line []byte, plain uint64) error {
	t := s.outs[p.Output]
	if t.late && t.w == nil {
		if err := s.openLate(t); err != nil {
			return err
		}
	}
	t.total++
	if t.sink {
		return nil
	}
	s.kind = session.KindAt(p, i)
	if t.mat != nil {
		t.mat.apply(s.kind, t.cols, p.Cols, i)
		s.liveDirty = s.cfg.Terminal
		return nil
	}
	if s.tabular {
		tr := &t.rows
		if t.op {
			tr.text = append(tr.text, session.KindText(s.kind)...)
			tr.addText()
		}
		for _, v := range p.Cols {
			switch {
			case v.Null[i]:
				tr.text = append(tr.text, "NULL"...)
				tr.addText()
			case v.Type == catalog.Varchar:
				tr.addCell(v.S[i])
			default: // a number, a boolean, a timestamp: nothing to escape
				tr.text = session.AppendValue(tr.text, v.Type, v, i)
				tr.addText()
			}
		}
		tr.endRow()
		return s.added(t)
	}
	if s.line == linePlain || t.toStderr { // shown for a terminal (SPEC 4)
		b := s.buf[:0]
		if t.toStderr {
			b = append(append(b, t.name...), "> "...)
		}
		s.buf = s.appendLine(b, t, p.Cols, i, line, plain)
		return s.write(t, s.buf)
	}
	if t.header && t.prefix {
		s.writeHeader(t) // (before the line is built in t.w's buffer)
	}
	// Built in t.w's free buffer, which Write then keeps where it is, when it
	// has room (else in s.buf, copied by Write).
	b := s.buf[:0]
	if room := 2*s.maxLine + 64; t.w.Available() >= room || (t.w.Size() >= room && t.w.Flush() == nil) {
		b = t.w.AvailableBuffer()
	}
	c0 := cap(b)
	b = s.appendLine(b, t, p.Cols, i, line, plain)
	s.maxLine = max(s.maxLine, len(b))
	if cap(b) != c0 {
		s.buf = b[:0] // grown into new memory: kept for the next long line
	}
	return s.put(t, b, false)
}

// added counts a row of t just buffered for a table, notes it in the cut's
// log when t takes part in it (cut.go), and renders the tables once they
// hold cfg.Chunk rows (SPEC 4: chunks of at most 1000 rows).
func (s *sink) added(t *target) error {
	switch t.track {
	case trackMain:
		s.cut.tableMainRow(t.rows.n - 1)
	case trackSide:
		s.cut.tableSideRow(t, s.sideTag())
	}
	s.pending++
	if s.pending >= s.cfg.Chunk {
		return s.renderTables(false)
	}
	return nil
}

// write writes one encoded line (ending in LF) to t (put). Lines bound for a
// terminal (plain, and the errors> lines on stderr) show control characters
// as \xNN (SPEC 4); csv, tsv and json keep the bytes.
func (s *sink) write(t *target, line []byte) error {
	if (s.line == linePlain || t.w == s.stderrW) && termtext.Needs(line[:len(line)-1], termtext.Line) {
		s.esc = append(termtext.Append(s.esc[:0], line[:len(line)-1], termtext.Line), '\n')
		line = s.esc
	}
	return s.put(t, line, false)
}

// targets returns every output of the job, the errors side outputs last.
func (s *sink) targets() []*target {
	return append(s.outs[:len(s.outs):len(s.outs)], s.errs...)
}

// OutputRows is the number of rows one output of a job received.
type OutputRows struct {
	Name string
	Rows int64
}

// Counter is implemented by the sinks NewSink returns: Counts gives the rows
// each output of the job received so far (main first, then the side outputs
// in declaration order, then the errors side outputs that got rows), for
// --timer (SPEC 4).
type Counter interface {
	Counts() []OutputRows
}

// Counts implements Counter.
func (s *sink) Counts() []OutputRows {
	var out []OutputRows
	for _, t := range s.targets() {
		out = append(out, OutputRows{Name: t.name, Rows: t.total})
	}
	return out
}

// appendLine encodes row i of an output as one line of a line format.
// line, when not nil, is the row's csv or tsv encoding (copyLines), else
// plain says which values are their csv or tsv fields' texts (appendFields).
func (s *sink) appendLine(b []byte, t *target, vals []*session.Vec, i int, line []byte, plain uint64) []byte {
	if t.header && t.prefix {
		s.writeHeader(t)
	}
	if s.line == lineNone { // a sink made without NewSink (WriteResult)
		s.line = lineFormatOf(s.cfg.Format)
	}
	switch s.line {
	case lineCSV, lineTSV:
		d := s.line.delim()
		if t.prefix {
			b = append(format.AppendCSVField(b, []byte(t.name), d), d)
		}
		if t.op {
			b = append(append(b, session.KindText(s.kind)...), d)
		}
		switch {
		case line != nil:
			b = append(b, line...)
		case plain != 0:
			b = appendFields(b, t.cols, vals, i, d, plain)
		case t.hasNested():
			b = appendFields(b, t.cols, vals, i, d, 0) // (ARRAY, MAP, ROW as Flink prints them)
		default:
			b = format.AppendCSVRow(b, t.cols, vals, i, d)
		}
	case lineJSON:
		b = append(b, '{')
		if t.prefix {
			b = append(b, `"output":`...)
			b = format.AppendJSONString(b, []byte(t.name))
			if len(vals) > 0 || t.op {
				b = append(b, ',')
			}
		}
		if t.op {
			b = append(append(append(b, `"op":"`...), session.KindText(s.kind)...), '"')
			if len(vals) > 0 {
				b = append(b, ',')
			}
		}
		b = append(format.AppendJSONFields(b, t.cols, vals, i), '}')
	case linePlain:
		if t.prefix {
			b = append(append(b, t.name...), "> "...)
		}
		open, sep, end := byte('('), ",", byte(')')
		if t.op { // Flink's print sink for a changelog: +I[a, 1]
			b = append(b, session.KindText(s.kind)...)
			open, sep, end = '[', ", ", ']'
		}
		b = append(b, open)
		for c, v := range vals {
			if c > 0 {
				b = append(b, sep...)
			}
			if v.Null[i] {
				b = append(b, "null"...)
				continue
			}
			b = session.AppendValue(b, t.cols[c].Type, v, i)
		}
		b = append(b, end)
	}
	return append(b, '\n')
}

// errorColumns are the columns of an errors side output, as the sink writes
// its rows and its --side-dir file's header (SPEC 1: stream, position, raw,
// error, all VARCHAR).
var errorColumns = []catalog.Column{{Name: "stream", Type: catalog.Varchar}, {Name: "position", Type: catalog.Varchar}, {Name: "raw", Type: catalog.Varchar}, {Name: "error", Type: catalog.Varchar}}

// Errors implements session.Sink: where the errors side output shows depends on
// the format (SPEC 1, bad input).
func (s *sink) Errors(name string, rows []session.ErrorRow) error {
	if err := s.enc.sync(); err != nil {
		return err
	}
	for i := range rows {
		if err := s.errorRow(name, &rows[i]); err != nil {
			return err
		}
	}
	return nil
}

// errorRow writes one row of the errors side output, opening its target at the
// first row (the output exists only once a row reaches it).
func (s *sink) errorRow(name string, r *session.ErrorRow) error {
	var t *target
	for _, e := range s.errs {
		if e.name == name {
			t = e
			break
		}
	}
	if t == nil {
		t = &target{name: name, cols: errorColumns, header: true, isErrors: true}
		switch {
		case s.cfg.SideDir != "":
			if err := s.openFile(t); err != nil {
				return err
			}
		case printerOf(s.cfg.Format).inlineSides:
			t.w, t.prefix = s.cfg.Stdout, true
		case s.tabular:
			t.w = s.cfg.Stdout
		default:
			t.w = s.stderrW
		}
		s.errs = append(s.errs, t)
	}
	t.total++
	if s.tabular {
		tr := &t.rows
		tr.addCell([]byte(r.Stream))
		tr.addCell([]byte(r.Position))
		tr.addCell(r.Raw)
		tr.addCell([]byte(r.Error))
		tr.endRow()
		return s.added(t)
	}
	b := s.buf[:0]
	if s.cfg.SideDir == "" && !printerOf(s.cfg.Format).inlineSides {
		// csv, tsv and plain show the errors side output on stderr, a line per
		// row prefixed with its name (SPEC 1)
		b = append(append(b, name...), "> "...)
	}
	b = s.appendTextRow(b, t, []byte(r.Stream), []byte(r.Position), r.Raw, []byte(r.Error))
	s.buf = b
	return s.write(t, b)
}

// openLate opens the default late output at its first row, where SPEC 2.4 shows
// it: DIR/late.<ext>, json objects with "output": "late", its own titled table,
// or in csv, tsv and plain lines on stderr prefixed "late> ".
func (s *sink) openLate(t *target) error {
	switch {
	case s.cfg.SideDir != "":
		return s.openFile(t)
	case printerOf(s.cfg.Format).inlineSides:
		t.w, t.prefix = s.cfg.Stdout, true
	case s.tabular:
		t.w = s.cfg.Stdout
	default:
		t.w, t.toStderr, t.header = s.stderrW, true, false
	}
	return nil
}

// appendTextRow encodes a row given as text values (all VARCHAR, none NULL) with
// the same encoder as query rows.
func (s *sink) appendTextRow(b []byte, t *target, vals ...[]byte) []byte {
	for len(s.text) < len(vals) {
		s.text = append(s.text, &session.Vec{Type: catalog.Varchar, S: make([][]byte, 1), Null: make([]bool, 1)})
	}
	for c, v := range vals {
		s.text[c].S[0] = v
	}
	return s.appendLine(b, t, s.text[:len(vals)], 0, nil, 0)
}

// Flush implements session.Sink.
func (s *sink) Flush() error {
	if err := s.enc.sync(); err != nil {
		return err
	}
	// (the other tables first: the live table is drawn again under them)
	if s.tabular && s.pending > 0 && time.Since(s.last) >= s.cfg.Every {
		if err := s.renderTables(false); err != nil {
			return err
		}
	}
	if time.Since(s.liveAt) >= s.cfg.Every/4 && (s.liveDirty || s.liveResized()) {
		s.liveAt = time.Now()
		if err := s.live(false); err != nil {
			return err
		}
	}
	return s.flushWriters()
}

// flushWriters flushes stdout, stderr and every side file, each even when an
// earlier one failed (stdout closed by `| head`: the side files still get every
// row routed so far, SPEC 4), and returns the first error.
func (s *sink) flushWriters() error {
	err := s.cfg.Stdout.Flush()
	if ferr := s.stderrW.Flush(); err == nil {
		err = ferr
	}
	for _, t := range s.targets() {
		if t.file != nil {
			if ferr := t.w.Flush(); err == nil {
				err = ferr
			}
		}
	}
	return err
}

// Close implements session.Sink.
func (s *sink) Close() error {
	err := s.enc.sync()
	s.enc.stop()
	s.enc = nil
	if s.liveLines > 0 {
		if lerr := s.live(true); err == nil { // (the final table replaces the live one)
			err = lerr
		}
	}
	if s.tabular {
		if rerr := s.renderTables(true); err == nil {
			err = rerr
		}
	}
	if ferr := s.flushWriters(); err == nil {
		err = ferr
	}
	if s.cut != nil { // stdout closed early: the side files end where it did (SPEC 4)
		if cerr := s.cut.apply(); err == nil {
			err = cerr
		}
	}
	for _, t := range s.targets() {
		if t.file != nil {
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
func (s *sink) renderTables(final bool) (err error) {
	if s.liveLines > 0 && s.pending > 0 {
		// the live table's frame goes first, and is drawn again under
		// these rows: nothing stale stays on the screen (livetable.go)
		s.eraseLive()
		s.liveDirty = true
	}
	s.pending = 0
	s.last = time.Now()
	for _, t := range s.targets() {
		if t.mat != nil {
			if !final {
				continue // (the materialized result shows once, at the end)
			}
			t.mat.sort(t.cols)
			t.mat.fill(&t.rows, false, -1)
		}
		// At the end every output of the job shows, with its header only when it
		// got no rows (SPEC 4: one table per output); the errors output only once
		// a row reached it. A side file appended to by a later job is not repeated.
		if t.sink || t.rows.n == 0 && !(final && t.total == 0 && !t.isErrors && (t.file == nil || t.created)) {
			continue
		}
		title := ""
		if (s.hasSides || t.isErrors) && t.file == nil {
			title = t.name
		}
		// every table is rendered even after one failed: with stdout closed
		// (`| head`), the side files still get their rows (SPEC 4)
		var start int64
		if t.rows.track = t.track != trackNone; t.rows.track {
			start = s.cut.tableStart(t)
		}
		if werr := writeTable(t.w, s.cfg.Format, title, t.cols, &t.rows); err == nil {
			err = werr
		}
		if t.rows.track {
			s.cut.tableDrawn(t, start, &t.rows)
		}
		t.rows.reset() // a huge value's buffer is let go
	}
	if s.cut != nil { // (no row waits: the log's epochs can be folded)
		s.cut.prune()
	}
	return err
}
