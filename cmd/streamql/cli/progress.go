package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clipperhouse/displaywidth"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"streamql/catalog"
	"streamql/internal/session"
	"streamql/internal/termtext"
)

// The live status of SPEC 4 (Progress): a job that runs longer than a second
// shows, on stderr, when stderr is a terminal and the run is not in CI, a few
// lines redrawn in place: for a bounded file a progress bar (bytes read of the
// file's size, rows/s), and for every job the rows of each output and their
// rate, each stream's malformed rows, late rows (when there are any), the rows
// and bytes an event-time join holds, and each stream's watermark. It never
// writes to stdout, and it is erased before anything else is written to the
// terminal (the job's tables, the errors lines, the job summary) and when the
// job ends.
//
// A job's sink runs on the job's goroutine, its source's Next and Progress on
// that goroutine, the executor's decode-ahead goroutine or a build side's reader
// (one call at a time per source); the status is drawn by its own goroutine.
// They share only atomics, updated once per batch (the sink and source wrappers
// here, session.Live in the engine), and the mutex that orders terminal writes.

// progressDelay and progressEvery are variables only for tests and benchmarks.
var (
	progressDelay = time.Second            // a job shorter than this never shows a status
	progressEvery = 150 * time.Millisecond // redraw interval
)

// stderrTerminal reports whether the job's stderr is a terminal; tests replace it.
var stderrTerminal = isTerminal

// progressStarted, when not nil, is given each status startProgress starts (a
// test hook).
var progressStarted func(*progress)

// ciEnv reports whether the CI environment variable says the run is in CI
// (CI=true, CI=1, ...; empty, "false" and "0" mean no).
func ciEnv(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "false", "0", "no":
		return false
	}
	return true
}

// progressWanted decides whether a job may show a live status (SPEC 4): any job
// with a stream (files, follow, stdin, sockets, datagen), when stderr is a
// terminal and the run is not in CI.
func progressWanted(job *session.Job, stderrTerminal bool, ci string) bool {
	return stderrTerminal && !ciEnv(ci) && job != nil && job.Stream != nil
}

// barWanted reports whether the status of job has a progress bar: its stream
// is a bounded file (a connector with KnownSize).
func barWanted(job *session.Job) bool {
	st := job.Stream
	return st.Connector != nil && st.Connector.KnownSize && st.Bounded()
}

// progressDue reports whether the status of a job that has run for elapsed may
// be on the screen: a job shorter than a second never shows one.
func progressDue(elapsed time.Duration) bool { return elapsed >= progressDelay }

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// terminalCols returns the columns of the terminal w, or 0 when unknown.
func terminalCols(w io.Writer) int {
	cols, _ := terminalSize(w)
	return cols
}

// terminalSize returns the width and height (columns, lines) of the
// terminal w writes to, each 0 when w is not a terminal or its size is
// unknown.
func terminalSize(w io.Writer) (cols, rows int) {
	if f, ok := w.(*os.File); ok {
		if cols, rows, err := term.GetSize(int(f.Fd())); err == nil {
			return cols, rows
		}
	}
	return 0, 0
}

// streamCounts are the rows read (malformed included) and the malformed rows
// of one stream of a job.
type streamCounts struct {
	st *catalog.Stream
	// input: st is an input of the job's join of two streams (SPEC 2.7),
	// whose rows the status's first line, the join's, counts: the job's
	// own stream is then the joined rows, which no source reads
	input bool
	// relation: st is a derived relation (SPEC 2.6) the job reads, whose
	// rows are its parts' output: the status counts the rows its parts
	// read instead (session.Job.RelationInputs, each an input)
	relation  bool
	rows      atomic.Int64
	malformed atomic.Int64
	// outage holds the stream's source when it can lose its server (an
	// outager: Kafka's brokers restarting, shown on the status)
	outage atomic.Value
}

// outager is a source that says when its server does not answer
// (connector.Outager): "" while it does.
type outager interface{ Outage() string }

// outputCount is the rows written to one output of a job.
type outputCount struct {
	name string
	rows atomic.Int64
}

// progress is the live status of one job.
type progress struct {
	w      io.Writer // the terminal (stderr)
	stream *catalog.Stream
	start  time.Time
	cols   func() int // terminal width in columns (0: unknown)

	hasBar  bool
	held    bool            // the job has a join that holds rows (session.Job.HeldJoin): show them
	streams []*streamCounts // the FROM stream first, then build sides
	outs    []*outputCount  // job.Outputs' order
	live    *session.Live
	snap    func() session.LiveSnapshot // session.Snapshot(p.live); tests replace it

	read  atomic.Int64 // bytes read and the file's size, once a source reports them
	total atomic.Int64
	bytes atomic.Bool // read and total are known

	mu       sync.Mutex // orders terminal writes: the status's and the job's
	bar      *progressbar.ProgressBar
	barBytes bool // bar shows bytes (else it spins)
	visible  bool // the job has run for progressDelay: the status may draw
	shown    int  // lines of the status on the screen (0: none)
	ended    bool
	frame    []byte

	done   chan struct{}
	loop   sync.WaitGroup
	unhook func()
	out    *bufio.Writer // the job's stdout, written through clearWriter
}

// newProgress returns the (not yet started) status of job drawn on w.
func newProgress(job *session.Job, w io.Writer) *progress {
	p := &progress{w: w, stream: job.Stream, start: time.Now(), done: make(chan struct{}),
		cols: func() int { return terminalCols(w) }, hasBar: barWanted(job), live: &session.Live{}}
	p.streams = append(p.streams, &streamCounts{st: job.Stream})
	for _, st := range job.Reads { // (the inputs of a join of two streams: a self-join's once)
		if !slices.Contains(job.BuildSides, st) && !slices.ContainsFunc(p.streams, func(c *streamCounts) bool { return c.st == st }) {
			p.streams = append(p.streams, &streamCounts{st: st, input: true})
		}
	}
	for _, st := range job.RelationInputs {
		if !slices.ContainsFunc(p.streams, func(c *streamCounts) bool { return c.st == st }) {
			p.streams = append(p.streams, &streamCounts{st: st, input: true})
		}
	}
	for _, c := range p.streams {
		c.relation = slices.Contains(job.Relations, c.st)
	}
	for _, st := range job.BuildSides {
		p.streams = append(p.streams, &streamCounts{st: st})
	}
	p.held = job.HeldJoin
	for _, o := range job.Outputs {
		p.outs = append(p.outs, &outputCount{name: o.Name})
	}
	p.snap = func() session.LiveSnapshot { return session.Snapshot(p.live) }
	return p
}

// startProgress returns the live status of job, drawing after a second, or nil
// when the job shows none (see progressWanted).
func startProgress(job *session.Job, env *session.Env, stderr io.Writer) *progress {
	if !progressWanted(job, stderrTerminal(stderr), os.Getenv("CI")) {
		return nil
	}
	p := newProgress(job, stderr)
	if progressStarted != nil {
		progressStarted(p)
	}
	session.SetSourceHook(env, p.wrapSource)
	session.SetLive(env, p.live)
	p.unhook = func() { session.SetSourceHook(env, nil); session.SetLive(env, nil) }
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

// draw redraws the status for a job that has run for elapsed. The bar exists
// from the first tick, so its byte rate is measured from the start, but nothing
// is written before progressDelay.
func (p *progress) draw(elapsed time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	p.visible = progressDue(elapsed)
	lines := p.lines(elapsed)
	if !p.visible {
		return
	}
	width := p.cols()
	f := p.frame[:0]
	f = append(f, p.erase()...)
	for i, l := range lines {
		if i > 0 {
			f = append(f, '\n')
		}
		if width > 0 {
			l = displaywidth.TruncateString(l, width-1, "…") // never the last column: no wrap
		}
		f = append(f, l...)
	}
	p.frame = f
	gateWriter{p}.Write(f)
	p.shown = len(lines)
}

// statusLines is the most lines the status draws (lines): the live table
// keeps them free under it on the terminal (render.Config.Reserve).
const statusLines = 3

// lines returns the status's lines (names escaped, not yet cut to the
// width), at most statusLines of them.
func (p *progress) lines(elapsed time.Duration) []string {
	secs := max(elapsed.Seconds(), 1e-9)
	from := p.streams[0]
	name, rows := termtext.String(from.st.Name, termtext.Line), int64(0)
	joined := false // the job reads a join's inputs or a relation's: its first line counts their rows
	for _, s := range p.streams {
		if s.input && !s.relation {
			rows += s.rows.Load()
			joined = true
		}
	}
	if !joined {
		rows = from.rows.Load()
	}
	rate := humanRate(float64(rows)/secs) + " rows/s"
	var lines []string
	if p.hasBar {
		lines = append(lines, p.barLine(name+" "+rate))
	} else {
		lines = append(lines, fmt.Sprintf("%s: %s rows read, %s", name, humanCount(float64(rows)), rate))
	}
	var outs []string
	for _, o := range p.outs {
		n := o.rows.Load()
		outs = append(outs, fmt.Sprintf("%s %s (%s rows/s)", termtext.String(o.name, termtext.Line), humanCount(float64(n)), humanRate(float64(n)/secs)))
	}
	if len(outs) > 0 {
		lines = append(lines, "out: "+strings.Join(outs, " · "))
	}
	snap := p.snap()
	var info []string
	var bad []string
	for i, s := range p.streams {
		if i == 0 && joined || s.relation {
			continue // (the joined rows, a relation's: each input's are counted)
		}
		bad = append(bad, fmt.Sprintf("%s %d", termtext.String(s.st.Name, termtext.Line), s.malformed.Load()))
	}
	info = append(info, "malformed "+strings.Join(bad, ", "))
	for _, s := range p.streams {
		if o, ok := s.outage.Load().(outager); ok {
			if text := o.Outage(); text != "" {
				info = append(info, termtext.String(s.st.Name+": "+text, termtext.Line))
			}
		}
	}
	if snap.Late > 0 {
		info = append(info, fmt.Sprintf("late %d", snap.Late))
	}
	if p.held {
		info = append(info, heldText(snap))
	}
	if snap.StateBytes > 0 {
		info = append(info, "state "+session.FormatBytes(snap.StateBytes))
	}
	if len(snap.Watermarks) > 0 {
		var wms []string
		for _, w := range snap.Watermarks {
			wms = append(wms, termtext.String(w.Stream, termtext.Line)+" "+w.Text)
		}
		info = append(info, "watermark "+strings.Join(wms, ", "))
	}
	return append(lines, strings.Join(info, " · "))
}

// heldText is the status's part for the rows a join holds (SPEC 4,
// Progress): "held 1200 rows 3MiB"; for a join of two streams, each
// input's rows too, in FROM order: "held 17 rows (o 12, p 5) 3KiB".
func heldText(snap session.LiveSnapshot) string {
	var per string
	if len(snap.HeldInputs) > 0 {
		var parts []string
		for _, h := range snap.HeldInputs {
			parts = append(parts, fmt.Sprintf("%s %d", termtext.String(h.Input, termtext.Line), h.Rows))
		}
		per = " (" + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprintf("held %d rows%s %s", snap.HeldRows, per, session.FormatBytes(snap.HeldBytes))
}

// barLine updates the progress bar and returns it, with desc at its end.
func (p *progress) barLine(desc string) string {
	bytes := p.bytes.Load()
	if p.bar == nil || p.barBytes != bytes {
		p.bar, p.barBytes = p.newBar(bytes), bytes
	}
	if bytes {
		read, total := p.read.Load(), p.total.Load()
		if p.bar.GetMax64() != total {
			p.bar.ChangeMax64(total)
		}
		p.bar.Set64(min(read, total-1)) // the bar never "finishes" on its own: stop erases it
	} else {
		p.bar.Add64(1) // spins
	}
	p.bar.Describe(desc) // renders
	return strings.TrimSpace(strings.ReplaceAll(p.bar.String(), "\r", ""))
}

func (p *progress) newBar(bytes bool) *progressbar.ProgressBar {
	width := 20
	if cols := p.cols(); cols > 0 {
		width = min(max(cols-60, 5), 30) // the rest of the line takes about 55 columns
	}
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(io.Discard), // draw takes String() into the status's frame
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

// gateWriter is the status's writer: it drops what is drawn before
// progressDelay. p.mu is held.
type gateWriter struct{ p *progress }

func (g gateWriter) Write(b []byte) (int, error) {
	if !g.p.visible {
		return len(b), nil
	}
	return g.p.w.Write(b)
}

// erase returns the control sequence that erases the status on the screen
// (nothing when none is): back to the start of its first line, and clear to
// the end of the screen.
func (p *progress) erase() string {
	switch p.shown {
	case 0:
		return ""
	case 1:
		return "\r\033[J"
	}
	return "\r\033[" + strconv.Itoa(p.shown-1) + "A\033[J"
}

// clearLocked erases the status; p.mu is held.
func (p *progress) clearLocked() {
	if p.shown > 0 {
		io.WriteString(p.w, p.erase())
		p.shown = 0
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

// sink wraps the job's sink to count the rows of each output, once per batch.
func (p *progress) sink(s session.Sink) session.Sink { return &progressSink{Sink: s, p: p} }

type progressSink struct {
	session.Sink
	p *progress
}

func (s *progressSink) Rows(r *session.Batch) error {
	for k := range r.Chunks {
		if n := len(r.Chunks[k].Sel); n > 0 && r.Chunks[k].Output < len(s.p.outs) {
			s.p.outs[r.Chunks[k].Output].rows.Add(int64(n))
		}
	}
	for k := range r.Parts {
		if n := len(r.Parts[k].Sel); n > 0 && r.Parts[k].Output < len(s.p.outs) {
			s.p.outs[r.Parts[k].Output].rows.Add(int64(n))
		}
	}
	return s.Sink.Rows(r)
}

// wrapSource is the source hook (session.Env.SetSourceHook): each source of
// the job's streams counts its rows and malformed rows after each batch, and
// the FROM stream's reports its bytes; it passes the rows on unchanged, so
// it keeps the source's handles h but the parallel reader
// (session.WrappedHandles), which would bypass its counts.
func (p *progress) wrapSource(st *catalog.Stream, src session.Source, h session.SourceHandles) (session.Source, session.SourceHandles) {
	for _, c := range p.streams {
		if c.st == st {
			if o, ok := src.(outager); ok {
				c.outage.Store(o)
			}
			return &progressSource{Source: src, p: p, c: c, from: st == p.stream}, session.WrappedHandles(h)
		}
	}
	return src, h
}

type progressSource struct {
	session.Source
	p    *progress
	c    *streamCounts
	from bool
}

func (s *progressSource) Next(b *session.Columns, bad *[]session.BadRow) error {
	err := s.Source.Next(b, bad)
	if err == nil { // what a waiting or ended source leaves in b is not a batch
		n := 0
		if bad != nil {
			n = len(*bad)
			s.c.malformed.Add(int64(n))
		}
		if b != nil {
			n += b.N
		}
		s.c.rows.Add(int64(n)) // rows read: malformed ones too, as session.Stats.Rows
	}
	if s.from {
		read, total := s.Source.Progress()
		s.p.read.Store(read)
		s.p.total.Store(total)
		s.p.bytes.Store(total > 0)
	}
	return err
}

// Unread passes session.Unreader on to the wrapped source.
func (s *progressSource) Unread(rows int) {
	if u, ok := s.Source.(session.Unreader); ok {
		u.Unread(rows)
	}
}

// UnreadAfter passes session.Unreader on to the wrapped source.
func (s *progressSource) UnreadAfter(rows, bad int) {
	if u, ok := s.Source.(session.Unreader); ok {
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

// humanRate renders a rate per second: with one decimal below 10 (0.4, 2.5),
// else as humanCount.
func humanRate(n float64) string {
	if n < 10 {
		return strconv.FormatFloat(n, 'f', 1, 64)
	}
	return humanCount(n)
}
