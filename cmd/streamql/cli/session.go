package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"streamql/cmd/streamql/render"
	"streamql/internal/session"
	"streamql/parser"
)

// Exit statuses of SPEC 4.
const (
	exitOK        = 0
	exitRuntime   = 1
	exitPlanning  = 2
	exitInterrupt = 130
)

// Session is the CLI's side of a session (internal/session holds the engine's):
// the settings of SPEC 3 that decide rendering (format, side-dir, timer), the
// output streams, and the scripts being run. Scripts given together, and the
// REPL's entries, run in one session. It is the engine session's Frontend.
type Session struct {
	*session.Session
	// Settings are the values of SET 'format', 'side-dir' and 'timer' (and of
	// the flags and dot commands of the same names).
	session.Settings
	Stdout *bufio.Writer
	Stderr io.Writer
	Files  *render.FileSet
	// written counts the bytes stdout accepted, under Stdout's buffer (the
	// side files' cut when stdout is closed early, SPEC 4).
	written *render.WriteCounter
	// Closed is set once stdout's reader has gone away (EPIPE), or a script ran
	// .quit: the run ends quietly with status 0 (DESIGN: library facts).
	Closed bool
	// scripts holds the dot lines and files of the scripts parseScript parsed
	// (dot.go); reading is the stack of script files being run, for .read cycles.
	scripts map[*parser.Script]*scriptInfo
	reading []string
	// Interactive is set in the REPL: a job that picks up pending side
	// branches says so on stderr (as on a terminal's stderr; pendingNotice).
	Interactive bool
	// TableEvery is the longest time rows of a table or markdown output
	// wait before they are rendered (render.Config.Every; 0: SPEC 4's one
	// second). A test that compares two runs' outputs byte for byte sets it
	// long: where such a time cuts the tables depends on the machine's
	// speed, not on the job (the cut every 1000 rows stays).
	TableEvery time.Duration
	// hooks are a test case's run's (runHooks); zero otherwise.
	hooks runHooks
}

// NewSession returns a session printing to stdout and stderr.
func NewSession(stdout, stderr io.Writer, stdin io.Reader) *Session {
	written := &render.WriteCounter{W: stdout}
	s := &Session{
		Settings: session.Settings{Format: "table"},
		Stdout:   bufio.NewWriterSize(written, 256<<10), Stderr: stderr,
		Files: render.NewFileSet(), written: written,
	}
	s.Session = session.New(stdin, s)
	s.Session.Env.OwnsProcess = true // the heap's limit follows 'state.max-bytes'
	return s
}

// scriptCtx is what a statement needs to know about the script it comes from.
type scriptCtx struct {
	script *parser.Script
	dir    string // base directory of relative paths
}

// ExecScript runs every statement of script in order, then the pending side
// branches (SPEC 2.1: the end of each script runs them). It stops at the first
// failing statement and returns its exit status (SPEC 4).
func (s *Session) ExecScript(ctx context.Context, script *parser.Script, dir string) int {
	if code := s.ExecStmts(ctx, script, dir); code != exitOK || s.Closed {
		return code
	}
	sc := &scriptCtx{script: script, dir: dir}
	return s.report(sc, s.RunPending(ctx, script))
}

// ExecStmts runs the statements of script in order, like ExecScript, but leaves
// the pending side branches waiting (REPL: they run with the next job that reads
// their stream, or at RUN). It stops at the first failing statement and returns
// its exit status.
// The dot lines of a script parsed by parseScript run in their place among the
// statements (SPEC 4).
func (s *Session) ExecStmts(ctx context.Context, script *parser.Script, dir string) int {
	sc := &scriptCtx{script: script, dir: dir}
	var dots []dotLine
	if info := s.scripts[script]; info != nil {
		defer delete(s.scripts, script)
		dots = info.dots
		if info.path != "" {
			s.reading = append(s.reading, scriptKey(info.path))
			defer func() { s.reading = s.reading[:len(s.reading)-1] }()
		}
	}
	runDots := func(before int) int {
		for len(dots) > 0 && dots[0].Offset < before {
			d := dots[0]
			dots = dots[1:]
			if code := s.report(sc, s.execDot(ctx, sc, d, s.Stdout)); code != exitOK || s.Closed {
				return code
			}
		}
		return exitOK
	}
	for _, st := range script.Stmts {
		if err := ctx.Err(); err != nil { // Ctrl-C between statements (a long script)
			return s.report(sc, err)
		}
		start, _ := st.Span()
		if code := runDots(start); code != exitOK || s.Closed {
			return code
		}
		if code := s.report(sc, s.execStmt(ctx, sc, st)); code != exitOK || s.Closed {
			return code
		}
	}
	return runDots(len(script.Source) + 1)
}

// report prints err for a user and returns the exit status it means.
func (s *Session) report(sc *scriptCtx, err error) int {
	defer s.Stdout.Flush()
	if err == nil {
		return exitOK
	}
	var pe *parser.Error
	var reported exitError
	switch {
	case errors.As(err, &reported):
		return int(reported) // a script run by .read printed its error
	case isBrokenPipe(err) || isBrokenPipe(s.Stdout.Flush()):
		// the reader went away (`| head`): a clean end, and nothing more runs
		s.Closed = true
		return exitOK
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(s.Stderr, "interrupted")
		return exitInterrupt
	case errors.As(err, &pe):
		printError(s.Stderr, "%s", parser.FormatError(sc.script.Name, sc.script.Source, pe))
		return exitPlanning
	}
	printError(s.Stderr, "%s", err.Error())
	return exitRuntime
}

// execStmt runs one statement of the script sc through the engine session.
func (s *Session) execStmt(ctx context.Context, sc *scriptCtx, st parser.Stmt) error {
	return s.Session.Exec(ctx, sc.script, sc.dir, st)
}

// Result implements session.Frontend: it prints a statement's table in the
// session's format.
func (s *Session) Result(columns []string, rows [][]string) error {
	columns, rows = fitAnalyze(s.Format, terminalWidth(s.written.W), columns, rows)
	return render.WriteResult(s.Stdout, s.Format, render.Result{Columns: columns, Rows: rows})
}

// Document implements session.DocumentFrontend (EXPLAIN (FORMAT JSON), SPEC
// 4): in csv, tsv and json the document is one row's one field, so that a
// reader of the format gets it back whole (`jq -r .plan`); table, markdown and
// plain show its lines as rows, for reading.
func (s *Session) Document(column, text string) error {
	switch s.Format {
	case "csv", "tsv", "json":
		return render.WriteResult(s.Stdout, s.Format, render.Result{Columns: []string{column}, Rows: [][]string{{text}}})
	}
	return s.Result([]string{column}, session.LineRows(text))
}

// Set implements session.Frontend: SET 'format', 'side-dir' and 'timer'
// (SPEC 3), parsed into s.Settings.
func (s *Session) Set(st *parser.Set) (bool, error) {
	return s.Settings.Apply(st, render.Formats)
}

// RunJob implements session.Frontend: the job's outputs are rendered in the
// session's format (render.NewSink), with the progress bar and --timer line of
// SPEC 4 and the malformed-row notices on stderr.
func (s *Session) RunJob(ctx context.Context, job *session.Job, run session.RunFunc) error {
	renameGroups(s.Cat, groupSuffix(s.hooks.groupSuffix)) // streamql test: each run its own consumer groups (shufflekafka.go)
	if seen := s.hooks.jobObserver; seen != nil {         // test --shuffle (shuffle.go)
		seen(job)
	}
	if err := s.checkSideFiles(job); err != nil {
		return err // a planning error: nothing is read (SPEC 4)
	}
	if l := job.ReplayNotice(); l != "" { // (SPEC 2.5: state a crash in a consumer group loses)
		printNotice(s.Stderr, l)
	}
	// (Stdout holds nothing while the job runs, also under the progress
	// bar's buffer: a failed flush shows again in the job's first write)
	s.Stdout.Flush()
	cfg := render.Config{Format: s.Format, SideDir: s.SideDir, Stdout: s.Stdout, Stderr: s.Stderr, Files: s.Files, Written: s.written, ResultMode: s.Settings.ResultMode, Terminal: isTerminal(s.written.W), Every: s.TableEvery}
	// a job longer than a second shows a live status on a terminal's
	// stderr (SPEC 4): a bar for bounded files, each output's rows, malformed rows,
	// held state and watermarks; the job's own output erases it first (progress.go)
	bar := startProgress(job, s.Env, s.Stderr)
	if cfg.Terminal { // the live table fits the terminal (SPEC 2.8, render's livetable.go)
		cfg.Size = func() (int, int) { return terminalSize(s.written.W) }
	}
	if bar != nil {
		cfg.Stdout, cfg.Stderr = bar.stdout(s.Stdout), bar.stderr(s.Stderr)
		cfg.Reserve = statusLines
	}
	var counter render.Counter // the rows of each output, for --timer
	newSink := func() (session.Sink, error) {
		sink, err := render.NewSink(cfg, job)
		counter, _ = sink.(render.Counter)
		if err != nil || bar == nil {
			return sink, err
		}
		return bar.sink(sink), nil
	}
	start := time.Now()
	stats, err := run(newSink)
	if berr := bar.stop(); err == nil {
		err = berr
	}
	if isBrokenPipe(err) || isBrokenPipe(s.Stdout.Flush()) {
		// `| head`: the run ends quietly (SPEC 4). The counts would also
		// include rows past the cut that the side files no longer hold.
		return err
	}
	for _, l := range session.JobNotices(job, stats) {
		printNotice(s.Stderr, l)
	}
	s.pendingNotice(job, stats)
	if s.Timer && counter != nil {
		printNotice(s.Stderr, timerLine(counter.Counts(), time.Since(start)))
	}
	return err
}

// timerLine is the --timer line of a job (SPEC 4): the rows written to its
// outputs, not the rows decoded, the elapsed time and rows/s, and each output's
// rows when the job has more than one: "3 rows in 0.012 s (250 rows/s): main 2,
// high-tmp 1".
func timerLine(outs []render.OutputRows, el time.Duration) string {
	var total int64
	for _, o := range outs {
		total += o.Rows
	}
	line := fmt.Sprintf("%d rows in %.3f s (%.0f rows/s)", total, el.Seconds(), float64(total)/max(el.Seconds(), 1e-9))
	if len(outs) > 1 {
		for i, o := range outs {
			sep := ", "
			if i == 0 {
				sep = ": "
			}
			line += fmt.Sprintf("%s%s %d", sep, o.Name, o.Rows)
		}
	}
	return line
}
