package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"streamql/catalog"
	"streamql/executor"
	"streamql/executor/vector"
	"streamql/planner"
)

// The progress bar of SPEC 4: a bounded file job that runs longer than a second
// shows, on stderr, the bytes read of the file's size and the rows per second,
// when stderr is a terminal and the run is not in CI. It never writes to stdout,
// and it is erased before anything else is written to the terminal (the job's
// tables, the errors lines, the job summary).
//
// A job's sink runs on the job's goroutine, its source's Next and Progress on
// that goroutine or on the executor's decode-ahead goroutine (one call at a
// time); the bar is drawn by its own goroutine. They share only atomics (rows,
// bytes read, total) and the mutex that orders terminal writes.
//
// Rows are counted by a Sink wrapper; bytes by a wrapper of the job's Source,
// installed with executor.Env.SetSourceHook for the job's duration. A source
// that reports no total (Progress) leaves the bar spinning, with rows/s.

const (
	progressDelay = time.Second            // a job shorter than this never shows a bar
	progressEvery = 150 * time.Millisecond // redraw interval
)

// ciEnv reports whether the CI environment variable says the run is in CI
// (CI=true, CI=1, ...; empty, "false" and "0" mean no).
func ciEnv(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "false", "0", "no":
		return false
	}
	return true
}

// progressWanted decides whether a job may show a progress bar (SPEC 4): its
// stream is a bounded file (a connector with KnownSize), stderr is a terminal, and the run is not in CI.
func progressWanted(job *planner.Job, stderrTerminal bool, ci string) bool {
	if !stderrTerminal || ciEnv(ci) || job == nil || job.Stream == nil {
		return false
	}
	st := job.Stream
	return st.Connector != nil && st.Connector.KnownSize && st.Bounded()
}

// progressDue reports whether the bar of a job that has run for elapsed may be
// on the screen: a job shorter than a second never shows one.
func progressDue(elapsed time.Duration) bool { return elapsed >= progressDelay }

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress is the bar of one job.
type progress struct {
	w      io.Writer // the terminal (stderr)
	stream *catalog.Stream
	start  time.Time

	rows  atomic.Int64 // rows of the probe stream so far (sink wrapper)
	read  atomic.Int64 // bytes read and the file's size, once a source reports them
	total atomic.Int64
	bytes atomic.Bool // read and total are known

	mu       sync.Mutex // orders terminal writes: the bar's and the job's
	bar      *progressbar.ProgressBar
	barBytes bool // bar shows bytes (else it spins)
	visible  bool // the job has run for progressDelay: the bar may draw
	shown    bool // the bar is on the screen
	ended    bool

	done   chan struct{}
	loop   sync.WaitGroup
	unhook func()
	out    *bufio.Writer // the job's stdout, written through clearWriter
}

// startProgress returns the bar of job, drawing after a second, or nil when the
// job shows none (see progressWanted).
func startProgress(job *planner.Job, env *executor.Env, stderr io.Writer) *progress {
	if !progressWanted(job, isTerminal(stderr), os.Getenv("CI")) {
		return nil
	}
	p := &progress{w: stderr, stream: job.Stream, start: time.Now(), done: make(chan struct{})}
	env.SetSourceHook(p.wrapSource)
	p.unhook = func() { env.SetSourceHook(nil) }
	p.loop.Add(1)
	go p.run()
	return p
}

func (p *progress) run() {
	defer p.loop.Done()
	t := time.NewTicker(progressEvery)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case now := <-t.C:
			p.draw(now.Sub(p.start))
		}
	}
}

// draw updates the bar. The bar exists from the first tick, so its byte rate is
// measured from the start, but it writes nothing before progressDelay.
func (p *progress) draw(elapsed time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	bytes := p.bytes.Load()
	if p.bar == nil || p.barBytes != bytes {
		p.bar, p.barBytes = p.newBar(bytes), bytes
	}
	p.visible = progressDue(elapsed)
	if bytes {
		read, total := p.read.Load(), p.total.Load()
		if p.bar.GetMax64() != total {
			p.bar.ChangeMax64(total)
		}
		p.bar.Set64(min(read, total-1)) // the bar never "finishes" on its own: stop erases it
	} else {
		p.bar.Add64(1) // spins
	}
	rows := p.rows.Load()
	p.bar.Describe(fmt.Sprintf("%s %s rows/s", p.stream.Name, humanCount(float64(rows)/elapsed.Seconds()))) // renders
}

func (p *progress) newBar(bytes bool) *progressbar.ProgressBar {
	width := 20
	if f, ok := p.w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
			width = min(max(cols-60, 5), 30) // the rest of the line takes about 55 columns
		}
	}
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(gateWriter{p}),
		progressbar.OptionUseANSICodes(true), // erase with \033[2K, not spaces
		progressbar.OptionSetWidth(width),
		progressbar.OptionSetSpinnerChangeInterval(0), // no goroutine of its own: draw drives it
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionShowDescriptionAtLineEnd(),
	}
	if !bytes {
		return progressbar.NewOptions64(-1, opts...)
	}
	return progressbar.NewOptions64(max(p.total.Load(), 1), append(opts,
		progressbar.OptionShowBytes(true), progressbar.OptionShowTotalBytes(true), progressbar.OptionShowCount())...)
}

// gateWriter is the bar's writer: it drops what the bar draws before
// progressDelay and notes when the bar is on the screen. p.mu is held.
type gateWriter struct{ p *progress }

func (g gateWriter) Write(b []byte) (int, error) {
	if !g.p.visible {
		return len(b), nil
	}
	g.p.shown = true
	return g.p.w.Write(b)
}

// clearLocked erases the bar; p.mu is held.
func (p *progress) clearLocked() {
	if p.shown {
		io.WriteString(p.w, "\r\033[2K")
		p.shown = false
	}
}

// stop ends the bar and erases it, and flushes the job's stdout written through
// stdout(). It is safe on a nil *progress.
func (p *progress) stop() error {
	if p == nil {
		return nil
	}
	close(p.done)
	p.loop.Wait()
	if p.unhook != nil {
		p.unhook()
	}
	var err error
	if p.out != nil {
		err = p.out.Flush()
	}
	p.mu.Lock()
	p.ended = true
	p.clearLocked()
	p.mu.Unlock()
	return err
}

// clearWriter erases the bar before each write to the terminal; with flush it
// pushes the bytes out at once (the bar comes back at its next redraw, below).
type clearWriter struct {
	p     *progress
	w     io.Writer
	flush func() error
}

func (c clearWriter) Write(b []byte) (int, error) {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	c.p.clearLocked()
	n, err := c.w.Write(b)
	if err == nil && c.flush != nil {
		err = c.flush()
	}
	return n, err
}

// stdout returns the writer a job's sink prints its outputs to: out, behind a
// buffer of its own that erases the bar whenever it is written out.
func (p *progress) stdout(out *bufio.Writer) *bufio.Writer {
	p.out = bufio.NewWriterSize(clearWriter{p: p, w: out, flush: out.Flush}, out.Size())
	return p.out
}

// stderr returns w behind a writer that erases the bar first.
func (p *progress) stderr(w io.Writer) io.Writer { return clearWriter{p: p, w: w} }

// sink wraps the job's sink to count rows.
func (p *progress) sink(s executor.Sink) executor.Sink { return &progressSink{Sink: s, p: p} }

type progressSink struct {
	executor.Sink
	p *progress
}

func (s *progressSink) Rows(r *executor.Routed) error {
	s.p.rows.Add(int64(r.N + len(r.Bad)))
	return s.Sink.Rows(r)
}

// wrapSource is the hook of sourceHooker: sources of the job's stream report
// their bytes after each batch.
func (p *progress) wrapSource(st *catalog.Stream, src executor.Source) executor.Source {
	if st != p.stream {
		return src
	}
	return &progressSource{Source: src, p: p}
}

type progressSource struct {
	executor.Source
	p *progress
}

func (s *progressSource) Next(b *vector.Batch, bad *[]executor.BadRow) error {
	err := s.Source.Next(b, bad)
	read, total := s.Source.Progress()
	s.p.read.Store(read)
	s.p.total.Store(total)
	s.p.bytes.Store(total > 0)
	return err
}

// Unread passes executor.Unreader on to the wrapped source.
func (s *progressSource) Unread(rows int) {
	if u, ok := s.Source.(executor.Unreader); ok {
		u.Unread(rows)
	}
}

// UnreadAfter passes executor.Unreader on to the wrapped source.
func (s *progressSource) UnreadAfter(rows, bad int) {
	if u, ok := s.Source.(executor.Unreader); ok {
		u.UnreadAfter(rows, bad)
	}
}

// humanCount renders n with a k/M/G suffix: 950, 12.3k, 4.5M.
func humanCount(n float64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1fG", n/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", n/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.1fk", n/1e3)
	}
	return fmt.Sprintf("%.0f", n)
}
