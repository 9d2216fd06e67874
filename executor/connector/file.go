package connector

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"streamql/catalog"
	"streamql/executor/vector"
)

// FollowPoll is how often a followed file ('follow'='true') is checked for
// appended bytes once its end is reached.
var FollowPoll = 100 * time.Millisecond

// OpenFile opens the 'file' connector's source: the file at 'path' (relative to
// the declaring script's folder), decoded by newDec. With 'follow'='true' it
// keeps reading what is appended, like tail -f, and never ends by itself; a file
// that shrinks (truncated) is read again from its start.
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
	pos := func(line int64) string { return path + ":" + strconv.FormatInt(line, 10) }
	if st.Options["follow"] == "true" {
		p := newPump()
		fr := &followReader{f: f}
		return startLive(ctx, "stream "+st.Name+": following "+path, p, newDec, pos,
			func(ctx context.Context) { fr.ctx = ctx; p.run(ctx, fr) }, nil, f.Close)
	}
	var total int64
	if fi, err := f.Stat(); err == nil {
		total = fi.Size()
	}
	dec, err := newDec(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &fileSource{f: f, dec: dec, pos: pos, total: total}, nil
}

// fileSource reads a bounded file (or stdin redirected from a file).
type fileSource struct {
	f     *os.File
	dec   Decoder
	pos   func(int64) string
	total int64
	keep  bool // do not close f (stdin)
}

func (s *fileSource) Next(b *vector.Batch, bad *[]BadRow) error { return s.dec.Decode(b, bad) }

func (s *fileSource) Position(line int64) string { return s.pos(line) }

func (s *fileSource) Progress() (int64, int64) { return s.dec.BytesRead(), s.total }

func (s *fileSource) Close() error {
	if s.keep {
		return nil
	}
	return s.f.Close()
}

// followReader reads a file like tail -f: at its end it polls for appended bytes
// every FollowPoll until ctx is done. It runs in the pump's goroutine.
type followReader struct {
	ctx context.Context
	f   *os.File
	off int64
}

func (r *followReader) Read(b []byte) (int, error) {
	for {
		n, err := r.f.Read(b)
		r.off += int64(n)
		if n > 0 || err != nil && err != io.EOF {
			return n, err
		}
		if fi, err := r.f.Stat(); err == nil && fi.Size() < r.off {
			// truncated: read the new content from its start
			if _, err := r.f.Seek(0, io.SeekStart); err != nil {
				return 0, err
			}
			r.off = 0
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
