package connector

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"streamql/internal/fsflags"
	"strings"
	"syscall"

	"streamql/catalog"
	"streamql/executor/codec"
	"streamql/executor/vector"
	"streamql/internal/pipewrite"
)

// fileSink is the 'file' connector's sink (SPEC 2.5): csv with a header line,
// or json lines, in the SPEC 4 encodings.
type fileSink struct {
	st   *catalog.Stream
	path string // as written in 'path', for messages
	f    *os.File
	w    *bufio.Writer
	buf  []byte
	pipe *pipewrite.Writer // under w for a FIFO ('sink.fifo'), else nil
	// enc writes the rows in the stream's 'format' (its codec.Record's
	// Lines): csv, json, or Debezium's envelope (SPEC 2.8); with an op column
	// first (catalog's Stream.OpColumn) each row's kind goes there
	enc codec.LineEncoder
}

// OpenFileSink opens the file at st's 'path' (relative to the declaring
// script's directory, st.BaseDir) for writing rows (SPEC 2.5): with
// 'sink.mode' = 'truncate' (the default) the file is replaced, with 'append'
// rows are added at its end, on a line of their own (a file that does not end
// in a newline gets one first). A csv sink writes its header line first unless
// the file already holds something. The path is never written through a
// symbolic link (the --side-dir rule, SPEC 4) unless the stream says
// 'sink.follow-symlinks' = 'true'. Errors name the stream and the path.
//
// A FIFO at 'path' is refused unless the stream declares 'sink.fifo' =
// 'true'; then the job waits for the FIFO's reader until ctx ends, and a
// reader that stops reading holds a stop no longer than pipewrite.Grace
// (pipewrite: whole rows of up to 4 KiB are written whole or not at all).
func OpenFileSink(ctx context.Context, st *catalog.Stream) (SinkWriter, error) {
	path := st.Options["path"]
	if f := catalog.LookupFormat(st.Options["format"]); f != nil && !f.Writes {
		return nil, fmt.Errorf("sink stream %s: format '%s' is read only; a sink writes %s", st.Name, f.Name, strings.Join(catalog.WritableFormats(), ", "))
	}
	rec, err := codec.Of(st)
	if err != nil {
		return nil, err
	}
	if st.Options["debezium-json.schema-include"] == "true" {
		return nil, fmt.Errorf("sink stream %s: option 'debezium-json.schema-include' = 'true' is for reading; a debezium-json sink writes the envelope without Kafka Connect's schema: remove the option", st.Name)
	}
	full := path
	if !filepath.IsAbs(full) && st.BaseDir != "" {
		full = filepath.Join(st.BaseDir, full)
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if st.Options["sink.mode"] == "append" {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	nofollow := fsflags.NoFollow
	if st.Options["sink.follow-symlinks"] == "true" {
		nofollow = 0
	} else if fi, err := os.Lstat(full); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("sink stream %s: 'path' = '%s' is a symbolic link, and a sink never writes through one: give the path of the file itself, or add 'sink.follow-symlinks' = 'true' to the stream's WITH", st.Name, path)
	}
	f, err := openSinkFile(ctx, st, full, flag|nofollow)
	if fe, ok := err.(fifoError); ok {
		return nil, fmt.Errorf("sink stream %s: %s", st.Name, string(fe))
	}
	if err != nil {
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) {
			return nil, fmt.Errorf("sink stream %s: 'path' = '%s' is a symbolic link, and a sink never writes through one: give the path of the file itself, or add 'sink.follow-symlinks' = 'true' to the stream's WITH", st.Name, path)
		}
		return nil, fmt.Errorf("sink stream %s: cannot open 'path' = '%s' for writing: %w; check that its directory exists and is writable", st.Name, path, err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() && fi.Mode()&os.ModeNamedPipe == 0 && fi.Mode()&os.ModeCharDevice == 0 {
		f.Close()
		return nil, fmt.Errorf("sink stream %s: 'path' = '%s' is not a regular file; give the path of a file", st.Name, path)
	}
	s := &fileSink{st: st, path: path, f: f, w: bufio.NewWriterSize(f, 64<<10)}
	lo := codec.LineOptions{Op: st.OpColumn()}
	if d := st.Options["csv.delimiter"]; len(d) == 1 {
		lo.Delim = d[0]
	}
	s.enc = rec.Lines(st.Columns, lo)
	if pipewrite.IsPipe(f) {
		s.pipe = pipewrite.NewWriter(ctx, f)
		s.w.Reset(s.pipe)
	}
	if err == nil && fi.Mode().IsRegular() && fi.Size() > 0 && flag&os.O_APPEND != 0 {
		if err := startLine(full, nofollow, fi.Size(), s.w); err != nil {
			f.Close()
			return nil, s.fail(err)
		}
	}
	if s.buf = s.enc.Header(s.buf[:0]); len(s.buf) > 0 && (err != nil || fi.Size() == 0) {
		if _, err := s.w.Write(s.buf); err != nil {
			f.Close()
			return nil, s.fail(err)
		}
	}
	return s, nil
}

// startLine writes a newline to w when the file at full, of size bytes (> 0),
// does not end in one, so that appended rows start on a line of their own.
// nofollow is O_NOFOLLOW or 0, as the sink opened it.
func startLine(full string, nofollow int, size int64, w *bufio.Writer) error {
	r, err := os.OpenFile(full, os.O_RDONLY|nofollow, 0)
	if err != nil {
		return err
	}
	defer r.Close()
	var last [1]byte
	if _, err := r.ReadAt(last[:], size-1); err != nil {
		return err
	}
	if last[0] != '\n' {
		return w.WriteByte('\n')
	}
	return nil
}

// openSinkFile opens full, the 'path' of the sink stream st, with flag, and
// never blocks in open(2) on a FIFO with no reader (issue 30: the job hung
// there, deaf to every signal): a FIFO is an error unless st declares
// 'sink.fifo' = 'true', and then the open waits for a reader until ctx ends.
func openSinkFile(ctx context.Context, st *catalog.Stream, full string, flag int) (*os.File, error) {
	fifo := st.Options["sink.fifo"] == "true"
	refuse := fifoError(fmt.Sprintf("'path' = '%s' is a FIFO (named pipe); give the path of a file, or declare 'sink.fifo' = 'true' to write rows into the FIFO (the job then waits for its reader)", st.Options["path"]))
	f, err := os.OpenFile(full, flag|syscall.O_NONBLOCK, 0o644)
	if errors.Is(err, syscall.ENXIO) { // a FIFO with no reader yet
		if !fifo {
			return nil, refuse
		}
		f, err = pipewrite.OpenFIFO(ctx, full, flag, 0o644)
	}
	if err == nil && !fifo && pipewrite.IsPipe(f) {
		f.Close()
		return nil, refuse
	}
	return f, err
}

// fifoError is openSinkFile's refusal of a FIFO.
type fifoError string

func (e fifoError) Error() string { return string(e) }

func (s *fileSink) fail(err error) error {
	return fmt.Errorf("sink stream %s: writing '%s': %w", s.st.Name, s.path, err)
}

// Write implements SinkWriter: the row's line (an insert, +I, for a format
// or an op column that keeps kinds).
func (s *fileSink) Write(cols []*vector.Vec, i int) error {
	return s.WriteKind(cols, i, vector.Insert)
}

// WriteKind implements KindWriter: a debezium-json sink writes the row's
// change in Debezium's envelope (cdc.Encoder); a csv or json sink with an op
// column writes the kind there (+I, -U, +U, -D) and the row's other columns
// after it; another csv or json sink, which takes inserts only, writes the
// row (codec.LineEncoder).
func (s *fileSink) WriteKind(cols []*vector.Vec, i int, kind vector.RowKind) error {
	s.buf = s.enc.Append(s.buf[:0], cols, i, kind)
	if len(s.buf) == 0 {
		return nil
	}
	if _, err := s.w.Write(s.buf); err != nil {
		return s.fail(err)
	}
	return nil
}

// Flush implements SinkWriter: the bufio buffer only ever ends on a whole row
// when it is flushed here, and a partial write is an error.
func (s *fileSink) Flush() error {
	if err := s.w.Flush(); err != nil {
		return s.fail(err)
	}
	return nil
}

// Close implements SinkWriter: flush, fsync, close.
func (s *fileSink) Close() error {
	if s.buf = s.enc.End(s.buf[:0]); len(s.buf) > 0 { // a -U that no +U followed
		s.w.Write(s.buf)
	}
	err := s.w.Flush()
	if serr := s.f.Sync(); err == nil && serr != nil && s.isRegular() {
		err = serr
	}
	if s.pipe != nil {
		s.pipe.Close()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return s.fail(err)
	}
	return nil
}

func (s *fileSink) isRegular() bool {
	fi, err := s.f.Stat()
	return err == nil && fi.Mode().IsRegular()
}
