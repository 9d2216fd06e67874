package connector

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"streamql/catalog"
)

func init() {
	Register(&catalog.ConnectorSpec{
		Name: "stdin", Doc: "reads standard input until EOF",
		Options:    catalog.WithFormat(),
		Bounded:    always,
		ReadsStdin: true,
		Caps:       catalog.CapHandBack,
	}, &Driver{Open: func(ctx context.Context, st *catalog.Stream, env *Env) (Source, error) {
		in := env.State.Get(stdinKey{}, func() any { return &Stdin{R: env.Stdin} }).(*Stdin)
		return in.Open(ctx, st, env.handBackDecoder(st))
	}})
}

// stdinKey is the key of the session's Stdin in Env.State: one per session,
// shared by all its stdin streams.
type stdinKey struct{}

// Stdin is the session's standard input, which 'stdin' streams read (SPEC 1;
// positions stdin:line). Redirected from a regular file it is decoded directly.
// Otherwise (a pipe, a terminal) one goroutine reads it for the whole session,
// started by the first stdin stream: a read blocked on stdin cannot be
// interrupted, so a job that ends (Ctrl-C, LIMIT) leaves that goroutine to the next
// job instead of waiting for it, and the next job goes on where it stopped.
type Stdin struct {
	R    io.Reader // nil reads as empty
	once sync.Once
	p    *pump

	// Redirected from a regular file: its offset when the first job opened it.
	startOnce sync.Once
	start     int64

	// lines is the session's line base: the input lines the jobs that
	// ended have consumed, added to a job's decoder lines in its positions
	// (SPEC 1: stdin:line is a line of the whole stdin).
	lines atomic.Int64
}

// Open opens a source over stdin for stream st, decoded by newDec, told
// whether the input goes on from where an earlier job stopped.
func (s *Stdin) Open(ctx context.Context, st *catalog.Stream, newDec NewHandBackDecoder) (Source, error) {
	base := s.lines.Load()
	pos := func(line int64) string { return "stdin:" + strconv.FormatInt(base+line, 10) }
	used := func(lines int64) { s.lines.Add(lines) }
	if f, ok := s.R.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			off, _ := f.Seek(0, io.SeekCurrent)
			s.startOnce.Do(func() { s.start = off })
			dec, err := newDec(f, off > s.start)
			if err != nil {
				return nil, err
			}
			return &fileSource{f: f, dec: dec, pos: pos, total: fi.Size(), keep: true, used: -1, usedLines: used}, nil
		}
	}
	s.once.Do(func() {
		r := s.R
		if r == nil {
			r = strings.NewReader("")
		}
		s.p = newPump()
		// Session-long by design (see Stdin): it ends at stdin's EOF or error.
		go s.p.run(context.Background(), r)
	})
	s.p.mu.Lock()
	continues := s.p.used
	s.p.mu.Unlock()
	hb := func(r io.Reader) (Decoder, error) { return newDec(r, continues) }
	l, err := startLive(ctx, "stream "+st.Name+": reading stdin", s.p, hb, pos, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	l.usedLines = used
	return l, nil
}
