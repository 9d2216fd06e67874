package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"streamql/catalog"
	"streamql/cmd/streamql/render"
	"streamql/executor"
	"streamql/parser"
	"streamql/planner"
)

// Exit statuses of SPEC 4.
const (
	exitOK        = 0
	exitRuntime   = 1
	exitPlanning  = 2
	exitInterrupt = 130
)

// Session holds what statements share: the catalog, the pending side branches,
// the settings (SPEC 3: format, side-dir, timer) and the output streams. Scripts
// given together, and the REPL's entries, run in one session.
type Session struct {
	Cat     *catalog.Catalog
	Format  string
	SideDir string
	Timer   bool
	Stdout  *bufio.Writer
	Stderr  io.Writer
	Env     *executor.Env
	Files   *render.FileSet
	// SQLFromStdin is set when the SQL itself comes from stdin or the REPL: a
	// stdin stream is then a planning error (SPEC 4).
	SQLFromStdin bool
	// Closed is set once stdout's reader has gone away (EPIPE), or a script ran
	// .quit: the run ends quietly with status 0 (DESIGN: library facts).
	Closed  bool
	pending []*planner.Branch // side branches waiting for a job, in declaration order
	// scripts holds the dot lines and files of the scripts parseScript parsed
	// (dot.go); reading is the stack of script files being run, for .read cycles.
	scripts map[*parser.Script]*scriptInfo
	reading []string
	// sides indexes pending by stream and side name (the first branch of each);
	// nil when it must be rebuilt (pendingSide).
	sides map[sideKey]*planner.Branch
}

type sideKey struct {
	st   *catalog.Stream
	side string
}

// addPending appends b to the pending side branches.
func (s *Session) addPending(b *planner.Branch) {
	s.pending = append(s.pending, b)
	if s.sides != nil {
		if _, ok := s.sides[sideKey{b.Stream, b.Side}]; !ok {
			s.sides[sideKey{b.Stream, b.Side}] = b
		}
	}
}

// pendingSide returns the first pending branch of st with side name side, or nil.
func (s *Session) pendingSide(st *catalog.Stream, side string) *planner.Branch {
	if s.sides == nil {
		s.sides = map[sideKey]*planner.Branch{}
		for _, b := range s.pending {
			if _, ok := s.sides[sideKey{b.Stream, b.Side}]; !ok {
				s.sides[sideKey{b.Stream, b.Side}] = b
			}
		}
	}
	return s.sides[sideKey{st, side}]
}

// NewSession returns a session printing to stdout and stderr.
func NewSession(stdout, stderr io.Writer, stdin io.Reader) *Session {
	return &Session{
		Cat: catalog.New(), Format: "table",
		Stdout: bufio.NewWriterSize(stdout, 256<<10), Stderr: stderr,
		Env: &executor.Env{Stdin: stdin}, Files: render.NewFileSet(),
	}
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
	return s.report(sc, s.runPending(ctx, sc))
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

// PendingSides returns the names of the side branches waiting to run, in
// declaration order, each once.
func (s *Session) PendingSides() []string {
	var out []string
	seen := map[string]bool{}
	for _, b := range s.pending {
		if !seen[b.Side] {
			seen[b.Side] = true
			out = append(out, b.Side)
		}
	}
	return out
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
		fmt.Fprintln(s.Stderr, "error: "+parser.FormatError(sc.script.Name, sc.script.Source, pe))
		return exitPlanning
	}
	fmt.Fprintln(s.Stderr, "error: "+err.Error())
	return exitRuntime
}

func (s *Session) execStmt(ctx context.Context, sc *scriptCtx, st parser.Stmt) error {
	p := &planner.Planner{Cat: s.Cat, Source: sc.script.Source, Ctx: ctx}
	switch st := st.(type) {
	case *parser.CreateStream:
		return s.createStream(sc, st)
	case *parser.DropStream:
		x := s.Cat.Lookup(st.Name)
		if x == nil {
			if st.IfExists {
				return nil
			}
			return parser.Errorf(st.NamePos, "unknown stream '%s'", st.Name)
		}
		if pend := s.branchesOf(x); len(pend) > 0 {
			var names []string
			for _, b := range pend {
				names = append(names, "'"+b.Side+"'")
			}
			return parser.Errorf(st.NamePos, "stream %s has pending side branches (%s); RUN them or DROP SIDE them first", x.Name, strings.Join(names, ", "))
		}
		s.Cat.Drop(st.Name)
		return nil
	case *parser.Select:
		b, err := p.PlanSelect(st)
		if err != nil {
			return err
		}
		if b.Side != "" {
			// check the job it will join now, so the error points at this statement:
			// against the first pending branch of that side name only, so that
			// declaring n branches takes linear time
			check := []*planner.Branch{b}
			if prev := s.pendingSide(b.Stream, b.Side); prev != nil {
				check = []*planner.Branch{prev, b}
			}
			if _, err := planner.NewJob(b.Stream, check, nil, sc.script.Source); err != nil {
				return err
			}
			s.addPending(b)
			return nil
		}
		branches := s.takeBranches(b.Stream)
		job, err := planner.NewJob(b.Stream, branches, b, sc.script.Source)
		if err != nil {
			return err
		}
		return s.runJob(ctx, job)
	case *parser.Explain:
		b, err := p.PlanSelect(st.Query)
		if err != nil {
			return err
		}
		branches := s.branchesOf(b.Stream)
		var main *planner.Branch
		if b.Side != "" {
			branches = append(branches, b)
		} else {
			main = b
		}
		job, err := planner.NewJob(b.Stream, branches, main, sc.script.Source)
		if err != nil {
			return err
		}
		var rows [][]string
		for _, l := range strings.Split(strings.TrimRight(job.Explain(), "\n"), "\n") {
			rows = append(rows, []string{l})
		}
		return render.WriteResult(s.Stdout, s.Format, render.Result{Columns: []string{"plan"}, Rows: rows})
	case *parser.Run:
		return s.runPending(ctx, sc)
	case *parser.ShowStreams:
		r := render.Result{Columns: []string{"name", "connector", "bounded", "columns"}}
		for _, x := range s.Cat.Streams() {
			var cols []string
			for _, c := range x.Columns {
				cols = append(cols, c.Name+" "+c.Type.String())
			}
			r.Rows = append(r.Rows, []string{x.Name, x.Connector.Name, fmt.Sprint(x.Bounded()), strings.Join(cols, ", ")})
		}
		return render.WriteResult(s.Stdout, s.Format, r)
	case *parser.ShowSides:
		r := render.Result{Columns: []string{"side", "stream", "statement"}}
		for _, b := range s.pending {
			r.Rows = append(r.Rows, []string{b.Side, b.Stream.Name, oneLine(b.Text)})
		}
		return render.WriteResult(s.Stdout, s.Format, r)
	case *parser.DropSide:
		kept := s.pending[:0]
		found := false
		for _, b := range s.pending {
			if b.Side == st.Name {
				found = true
				continue
			}
			kept = append(kept, b)
		}
		s.pending, s.sides = kept, nil
		if !found {
			return parser.Errorf(st.NamePos, "no pending side branch named '%s' (SHOW SIDES lists them)", st.Name)
		}
		return nil
	case *parser.Describe:
		x := s.Cat.Lookup(st.Name)
		if x == nil {
			return parser.Errorf(st.NamePos, "unknown stream '%s'", st.Name)
		}
		r := render.Result{Columns: []string{"column", "type", "watermark"}}
		for i, c := range x.Columns {
			wm := ""
			if i == x.EventTime && x.Watermark != nil {
				wm = x.Watermark.Text
			}
			r.Rows = append(r.Rows, []string{c.Name, c.Type.String(), wm})
		}
		return render.WriteResult(s.Stdout, s.Format, r)
	case *parser.Set:
		return s.set(st)
	case *parser.Insert:
		return s.insert(p, st)
	}
	start, _ := st.Span()
	return parser.Errorf(start, "this statement is not supported")
}

// insert runs INSERT INTO s VALUES (SPEC 3): the rows go to the values stream s,
// for the jobs that read it later.
func (s *Session) insert(p *planner.Planner, st *parser.Insert) error {
	ins, err := p.PlanInsert(st)
	if err != nil {
		return err
	}
	s.Env.Insert(ins)
	return nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// set applies SET 'key' = 'value' (SPEC 3; 'state.max-bytes' from SPEC 1).
func (s *Session) set(st *parser.Set) error {
	switch st.Key {
	case "format":
		if !render.ValidFormat(st.Value) {
			return parser.Errorf(st.ValuePos, "unknown format '%s'; use one of %s", st.Value, strings.Join(render.Formats, ", "))
		}
		s.Format = st.Value
	case "side-dir":
		if st.Value != "" {
			if err := os.MkdirAll(st.Value, 0o755); err != nil {
				return parser.Errorf(st.ValuePos, "cannot create the side output directory '%s': %v", st.Value, err)
			}
		}
		s.SideDir = st.Value
	case "timer":
		switch strings.ToLower(st.Value) {
		case "on", "true":
			s.Timer = true
		case "off", "false":
			s.Timer = false
		default:
			return parser.Errorf(st.ValuePos, "'timer' takes on or off")
		}
	case "state.max-bytes":
		// SPEC 1: bounds the state of every stateful operator of a job
		n, err := catalog.ParseSize(st.Value)
		if err != nil {
			return parser.Errorf(st.ValuePos, "'state.max-bytes': %v", err)
		}
		s.Env.StateMaxBytes = n
	default:
		return parser.Errorf(st.KeyPos, "unknown setting '%s'; settings: format, side-dir, timer, state.max-bytes", st.Key)
	}
	return nil
}

// branchesOf returns the pending branches of st, in declaration order.
func (s *Session) branchesOf(st *catalog.Stream) []*planner.Branch {
	var out []*planner.Branch
	for _, b := range s.pending {
		if b.Stream == st {
			out = append(out, b)
		}
	}
	return out
}

// takeBranches removes and returns the pending branches of st (a job uses them
// up, also when it fails: SPEC 2.1).
func (s *Session) takeBranches(st *catalog.Stream) []*planner.Branch {
	out := s.branchesOf(st)
	kept := s.pending[:0]
	for _, b := range s.pending {
		if b.Stream != st {
			kept = append(kept, b)
		}
	}
	s.pending, s.sides = kept, nil
	return out
}

// runPending runs one job per stream with pending branches, in the order the
// streams got their first branch (SPEC 2.1: RUN and the end of a script).
func (s *Session) runPending(ctx context.Context, sc *scriptCtx) error {
	for len(s.pending) > 0 {
		st := s.pending[0].Stream
		job, err := planner.NewJob(st, s.takeBranches(st), nil, sc.script.Source)
		if err != nil {
			return err
		}
		if err := s.runJob(ctx, job); err != nil {
			return err
		}
	}
	return nil
}

func (s *Session) runJob(ctx context.Context, job *planner.Job) error {
	cfg := render.Config{Format: s.Format, SideDir: s.SideDir, Stdout: s.Stdout, Stderr: s.Stderr, Files: s.Files}
	// a bounded file job longer than a second shows a progress bar on a terminal's
	// stderr (SPEC 4); the job's own output erases it first (progress.go)
	bar := startProgress(job, s.Env, s.Stderr)
	if bar != nil {
		cfg.Stdout, cfg.Stderr = bar.stdout(s.Stdout), bar.stderr(s.Stderr)
	}
	var counter render.Counter // the rows of each output, for --timer
	newSink := func() (executor.Sink, error) {
		sink, err := render.NewSink(cfg, job)
		counter, _ = sink.(render.Counter)
		if err != nil || bar == nil {
			return sink, err
		}
		return bar.sink(sink), nil
	}
	start := time.Now()
	stats, err := executor.Run(ctx, job, s.Env, newSink)
	if berr := bar.stop(); err == nil {
		err = berr
	}
	for _, e := range stats.Streams {
		if e.Malformed == 0 {
			continue
		}
		switch e.Policy {
		case "skip":
			fmt.Fprintf(s.Stderr, "stream %s: %d malformed row(s) skipped\n", e.Stream, e.Malformed)
		case "side":
			fmt.Fprintf(s.Stderr, "stream %s: %d malformed row(s) sent to side output '%s'\n", e.Stream, e.Malformed, e.Side)
		}
	}
	if s.Timer && counter != nil {
		fmt.Fprintln(s.Stderr, timerLine(counter.Counts(), time.Since(start)))
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
