package executor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"streamql/catalog"
	"streamql/executor/csvdec"
	"streamql/executor/vector"
)

// ErrWaiting is returned by Source.Next when the source has no row ready and is
// about to wait for input; the job flushes its sinks and calls Next again.
var ErrWaiting = errors.New("source waiting for input")

// BadRow is a malformed input row (alias of the CSV decoder's type, shared by all
// decoders).
type BadRow = csvdec.BadRow

// Source produces batches of a stream's rows.
type Source interface {
	// Next resets b and fills it with the next rows (b.N >= 0), appending malformed
	// rows to *bad. It returns io.EOF at the end, ErrWaiting (see there), or a read
	// error.
	Next(b *vector.Batch, bad *[]BadRow) error
	// Position renders a source position for messages and the errors side output
	// (SPEC 1: path:line with the path as written, stdin:line, host:port:line).
	Position(line int64) string
	// Progress returns the bytes read so far and the total (0 when unknown).
	Progress() (read, total int64)
	Close() error
}

// Env gives a job what it opens: the working directory of relative paths comes
// from each stream's BaseDir; Stdin is the process's standard input.
type Env struct {
	Stdin io.Reader
}

// Open opens the source of st. Errors name the stream, the option and what to do.
func (e *Env) Open(ctx context.Context, st *catalog.Stream) (Source, error) {
	switch st.Connector.Name {
	case "file":
		path := st.Options["path"]
		full := path
		if !filepath.IsAbs(full) && st.BaseDir != "" {
			full = filepath.Join(st.BaseDir, full)
		}
		f, err := os.Open(full)
		if err != nil {
			return nil, fmt.Errorf("stream %s: cannot open 'path' = '%s' (%s): %w; a relative path is read from the declaring script's folder", st.Name, path, full, errors.Unwrap(err))
		}
		var total int64
		if fi, err := f.Stat(); err == nil {
			total = fi.Size()
		}
		dec, err := newDecoder(st, f)
		if err != nil {
			f.Close()
			return nil, err
		}
		return &fileSource{f: f, dec: dec, path: path, total: total}, nil
	}
	return nil, fmt.Errorf("stream %s: connector '%s' is not supported yet", st.Name, st.Connector.Name)
}

type fileSource struct {
	f     *os.File
	dec   Decoder
	path  string
	total int64
}

func (s *fileSource) Next(b *vector.Batch, bad *[]BadRow) error {
	return s.dec.Decode(b, bad)
}

func (s *fileSource) Position(line int64) string { return s.path + ":" + strconv.FormatInt(line, 10) }

func (s *fileSource) Progress() (int64, int64) { return s.dec.BytesRead(), s.total }

func (s *fileSource) Close() error { return s.f.Close() }
