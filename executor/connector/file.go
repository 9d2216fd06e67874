package connector

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"streamql/catalog"
	"streamql/executor/chunked"
	"streamql/executor/textenc"
	"streamql/executor/vector"
)

// FollowPoll is how often a followed file ('follow'='true') is checked for
// appended bytes once its end is reached.
var FollowPoll = 100 * time.Millisecond

// unfollowed reports whether a file stream's options read the file once
// ('follow' not 'true'): it is then bounded, and two reads of it give the
// same rows.
func unfollowed(o map[string]string) bool { return o["follow"] != "true" }

func init() {
	Register(&catalog.ConnectorSpec{
		Name: "file", Doc: "reads a file; bounded unless 'follow'='true'",
		// a changelog file sink writes kinds (SPEC 2.8); a bounded file is
		// decoded in chunks in parallel (fileSource.Parallel)
		Caps: catalog.CapSinkKinds | catalog.CapParallelDecode | catalog.CapReread, // (each open reads the file from its start, followed or not)
		Options: catalog.WithFormat(
			catalog.OptionSpec{Name: "path", Kind: catalog.OptString, Required: true, Doc: "file to read; relative to the declaring script's directory"},
			catalog.OptionSpec{Name: "follow", Kind: catalog.OptBool, Default: "false", Doc: "true keeps reading what is appended, like tail -F: a renamed, deleted or truncated file is followed to the new one"},
			catalog.OptionSpec{Name: "sink.fifo", Kind: catalog.OptBool, Default: "false", Doc: "as a sink: true writes rows into a FIFO (named pipe) at 'path', waiting for its reader; false refuses a FIFO there"},
			catalog.OptionSpec{Name: "sink.mode", Kind: catalog.OptEnum, Values: []string{"truncate", "append"}, Default: "truncate", Doc: "as a sink (SPEC 2.5): truncate replaces the file when a job starts, append adds rows at its end (no second csv header)"},
			catalog.OptionSpec{Name: "sink.follow-symlinks", Kind: catalog.OptBool, Default: "false", Doc: "as a sink: true writes through a 'path' that is a symbolic link (by default a sink refuses one, as --side-dir does, SPEC 4)"},
		),
		Bounded:    unfollowed,
		Repeatable: unfollowed, // (a followed file may rotate between two reads)
		KnownSize:  true,
		OpColumn:   true,
		Configure:  configureFile,
	}, &Driver{Open: func(ctx context.Context, st *catalog.Stream, env *Env) (Source, error) {
		return OpenFile(ctx, st, env.decoder(st))
	}, OpenSink: func(ctx context.Context, st *catalog.Stream, _ *Env) (SinkWriter, error) {
		return OpenFileSink(ctx, st)
	}})
}

// configureFile is the file connector's ConnectorSpec.Configure: its
// options as a *catalog.FileConfig.
func configureFile(st *catalog.Stream, sh catalog.SharedConfig) (catalog.Config, error) {
	o := st.Options
	return &catalog.FileConfig{SharedConfig: sh, Path: o["path"], Follow: o["follow"] == "true",
		SinkFIFO: o["sink.fifo"] == "true", SinkFollowSymlinks: o["sink.follow-symlinks"] == "true", SinkMode: o["sink.mode"]}, nil
}

// OpenFile opens the 'file' connector's source: the file at 'path' (relative to
// the declaring script's folder), decoded by newDec. With 'follow'='true' it
// keeps reading what is appended, like tail -F, and never ends by itself (see
// followReader). A path that cannot be opened or is a directory is an error
// naming it, before any row is read. Reads stop with ctx's error once ctx is
// done, even inside an endless record (/dev/zero).
func OpenFile(ctx context.Context, st *catalog.Stream, newDec NewDecoder) (Source, error) {
	path := st.Options["path"]
	full := path
	if !filepath.IsAbs(full) && st.BaseDir != "" {
		full = filepath.Join(st.BaseDir, full)
	}
	f, err := os.Open(full)
	if err != nil {
		return nil, openPathError(st.Name, path, full, err)
	}
	fi, err := f.Stat()
	if err == nil && fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("stream %s: 'path' = '%s' (%s) is a directory; give the path of a file", st.Name, path, full)
	}
	pos := func(line int64) string { return path + ":" + strconv.FormatInt(line, 10) }
	if st.Options["follow"] == "true" {
		p := newPump()
		fr := &followReader{f: f, path: full, lf: []byte{'\n'}, ended: true}
		if e, err := textenc.Lookup(st.Options["encoding"]); err == nil {
			fr.lf = e.LF()
		}
		return startLive(ctx, "stream "+st.Name+": following "+path, p, newDec, pos,
			func(ctx context.Context) { fr.ctx = ctx; p.run(ctx, fr) }, nil, fr.close)
	}
	var total int64
	if err == nil {
		total = fi.Size()
	}
	dec, err := newDec(ctxReader{ctx, f})
	if err != nil {
		f.Close()
		return nil, err
	}
	header := st.Shared().CSV.Header // (csv.* options are refused for another format)
	return &parallelFile{&fileSource{ctx: ctx, f: f, dec: dec, pos: pos, total: total, used: -1, newDec: newDec, header: header}}, nil
}

// parallelFile is the file connector's source: a fileSource that offers
// parallel decoding (ParallelSource, which the connector declares:
// catalog.CapParallelDecode). The stdin connector's fileSource does not
// (it keeps its input to hand back).
type parallelFile struct{ *fileSource }

// Parallel makes the file be decoded on workers goroutines, in chunks of
// chunked.DefaultChunkSize bytes merged in file order (executor/chunked, issue
// 15 item 3), into batches of types (the job's batch types: the stream's
// columns first). The Reader it returns gives the rows instead of Next
// (the same rows, positions and malformed rows); Close stops it. opts are
// the chunked.Options but Header, which the source sets from 'csv.header'
// (opts.ChunkSize 0: chunked.DefaultChunkSize). It returns
// nil, and Next goes on as before, when splitting is not safe or not worth it:
// a decoder that cannot be restarted on a chunk (an 'encoding' other than
// UTF-8, whose line ends are not found byte-wise), fewer than 2 workers,
// or a file smaller than two chunks.
func (s *parallelFile) Parallel(types []catalog.Type, workers int, opts chunked.Options) *chunked.Reader {
	redo, ok := s.dec.(chunked.Decoder)
	size := opts.ChunkSize
	if size <= 0 {
		size = chunked.DefaultChunkSize
	}
	if !ok || s.keep || s.newDec == nil || workers < 2 || s.total < 2*size || s.par != nil {
		return nil
	}
	decs := make([]chunked.Decoder, workers)
	for i := range decs {
		d, err := s.newDec(nil) // restarted on each chunk
		if err != nil {
			return nil
		}
		if decs[i], ok = d.(chunked.Decoder); !ok {
			return nil
		}
	}
	opts.Header = s.header
	s.par = chunked.New(ctxReaderAt{s.ctx, s.f}, s.total, decs, redo, types, opts)
	return s.par
}

// ctxReader reads r until ctx is done, then returns ctx's error: the decoders'
// read loops end with it within one read, even inside an endless record.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(b)
}

// ctxReaderAt is ctxReader for the parallel reader's workers and merge: a
// worker searching a long line, or the merge reading through it, stops within
// one read once ctx is done (issue 30).
type ctxReaderAt struct {
	ctx context.Context
	r   io.ReaderAt
}

func (c ctxReaderAt) ReadAt(b []byte, off int64) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.ReadAt(b, off)
}

// fileSource reads a bounded file (or stdin redirected from a file).
type fileSource struct {
	ctx   context.Context // the job's: the parallel reader's reads stop with it
	f     *os.File
	dec   Decoder
	pos   func(int64) string
	total int64
	keep  bool     // do not close f (stdin)
	used  int      // rows of the last batch the job used (-1: all; Unread)
	bad   int      // its malformed rows the job used (UnreadAfter)
	hb    HandBack // the job's account of what it used, read at Close (nil: none)
	// usedLines is told at Close how many input lines the job consumed
	// (stdin's line base, SPEC 1); may be nil.
	usedLines func(lines int64)
	// For Parallel: the stream's decoder maker, whether it has csv.header,
	// and the parallel reader once made.
	newDec NewDecoder
	header bool
	par    *chunked.Reader
}

// Unread implements Unreader: for stdin, Close puts the file's offset back to
// the end of the last row used.
func (s *fileSource) Unread(rows int) { s.used, s.bad = rows, 0 }

// UnreadAfter implements Unreader, like Unread.
func (s *fileSource) UnreadAfter(rows, bad int) { s.used, s.bad = rows, bad }

// SetHandBack implements HandsBack: Close reads hb.
func (s *fileSource) SetHandBack(hb HandBack) { s.hb = hb }

func (s *fileSource) Next(b *vector.Batch, bad *[]BadRow) error { return s.dec.Decode(b, bad) }

func (s *fileSource) Position(line int64) string { return s.pos(line) }

func (s *fileSource) Progress() (int64, int64) {
	if s.par != nil {
		return s.par.BytesRead(), s.total
	}
	return s.dec.BytesRead(), s.total
}

func (s *fileSource) Close() error {
	if s.par != nil {
		s.par.Close()
	}
	if s.keep {
		// stdin stays open for the session's next job, which reads on from
		// the end of the last row used: what the decoder read ahead goes back.
		if s.hb != nil {
			if rows, bad, ok := s.hb.Used(); ok {
				s.used, s.bad = rows, bad
			}
		}
		if s.usedLines != nil {
			s.usedLines(linesUsed(s.dec, s.used, s.bad))
		}
		if rest := restOf(s.dec, s.used, s.bad); len(rest) > 0 {
			if _, err := s.f.Seek(-int64(len(rest)), io.SeekCurrent); err != nil {
				return err
			}
		}
		return nil
	}
	return s.f.Close()
}

// followReader reads a file like tail -F (SPEC 1): at its end it polls every
// FollowPoll until ctx is done. It reads what is appended; a truncated file is
// read again from its start; when the path names another file (renamed or
// deleted, then created anew) it drains the old file and goes on with the new
// one from its start. It runs in the pump's goroutine; close runs after it.
type followReader struct {
	ctx  context.Context
	f    *os.File
	path string // the path as opened, checked for a new file at the end
	off  int64
	// The stream's line end ('encoding'), whether the bytes read so far end
	// with it, and a line end still to give: a file replaced or truncated in
	// the middle of a line ends that line, which is not glued to the next
	// file's first line.
	lf     []byte
	ended  bool
	inject []byte
}

func (r *followReader) Read(b []byte) (int, error) {
	for {
		if err := r.ctx.Err(); err != nil {
			return 0, err
		}
		if len(r.inject) > 0 {
			n := copy(b, r.inject)
			r.inject = r.inject[n:]
			r.ended = true
			return n, nil
		}
		n, err := r.read(b)
		if n > 0 || err != nil && err != io.EOF {
			return n, err
		}
		fi, err := r.f.Stat()
		if err == nil && fi.Size() < r.off {
			// truncated: read the new content from its start
			if _, err := r.f.Seek(0, io.SeekStart); err != nil {
				return 0, err
			}
			r.restart()
			continue
		}
		if nf, ok := r.rotated(fi); ok {
			// Drain what was written to the old file before it was replaced.
			n, err := r.read(b)
			if n > 0 || err != nil && err != io.EOF {
				nf.Close()
				return n, err
			}
			r.f.Close()
			r.f = nf
			r.restart()
			continue
		}
		t := time.NewTimer(FollowPoll)
		select {
		case <-t.C:
		case <-r.ctx.Done():
			t.Stop()
			return 0, r.ctx.Err()
		}
	}
}

// read reads the open file, keeping the offset and whether a line ended.
func (r *followReader) read(b []byte) (int, error) {
	n, err := r.f.Read(b)
	r.off += int64(n)
	if n >= len(r.lf) {
		r.ended = bytes.HasSuffix(b[:n], r.lf)
	} else if n > 0 {
		r.ended = false // (a UTF-16 line end cut between reads: rare, and only costs a blank line)
	}
	return n, err
}

// restart starts reading a file anew from its start (truncated, or the new file
// at the path), ending first a line the old content left open.
func (r *followReader) restart() {
	if !r.ended {
		r.inject = r.lf
	}
	r.off = 0
}

// rotated opens the file at the path when it is not the open file (whose
// FileInfo is cur, nil when Stat failed): the old one was renamed or deleted
// and a new one created. It reports false while the path names the open file
// or no file.
func (r *followReader) rotated(cur os.FileInfo) (*os.File, bool) {
	fi, err := os.Stat(r.path)
	if err != nil || fi.IsDir() || cur != nil && os.SameFile(cur, fi) {
		return nil, false
	}
	nf, err := os.Open(r.path)
	if err != nil {
		return nil, false
	}
	return nf, true
}

func (r *followReader) close() error { return r.f.Close() }
