package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"github.com/chzyer/readline"

	"streamql/cmd/streamql/render"
	"streamql/parser"
)

// The REPL (SPEC 4): prompt `streamql> `, continuation `      -> `; an entry ends
// with the line whose ';' ends the buffer (parser.Complete). Entries run in the
// session one statement after another; pending side branches wait for a main
// query or RUN. Ctrl-C cancels the running job only, Ctrl-C at the prompt drops
// the entry being typed, Ctrl-D (on an empty line) exits.

const (
	replPrompt   = "streamql> "
	replContinue = "      -> "
	historyName  = ".streamql_history"
	historyLimit = 500
)

// replOptions are the REPL's terminal and files; the zero values mean the
// process's (tests replace them).
type replOptions struct {
	Stdin io.Reader // the terminal; nil = os.Stdin
	// Stdout gets results, prompts and echo (prompts and echo go to Stderr when
	// Stdout is not a terminal and Stderr is).
	Stdout, Stderr io.Writer
	// Terminal, when set, replaces readline's check that stdin and stdout are a
	// terminal, and Stdout then always gets the prompts (tests).
	Terminal func() bool
	NoRaw    bool       // leave the terminal mode alone (tests)
	Width    func() int // nil = the terminal's width
	// Interrupts delivers Ctrl-C while a job runs; nil = os.Interrupt signals.
	Interrupts <-chan os.Signal
	// HistoryFile is the history path; "" = ~/.streamql_history (none without a
	// home directory).
	HistoryFile string
	Dir         string // base directory of relative paths; "" = working directory
}

type repl struct {
	sess  *Session
	rl    *readline.Instance
	out   io.Writer // messages of the REPL itself (stdout)
	dir   string
	hist  *history
	lines []string // the entry typed so far
	base  context.Context
	sigs  <-chan os.Signal
	tty   *os.File // the terminal, whose echo is off while a job runs; nil in tests
	// cancelBase ends base, and so the running job, on SIGTERM or SIGHUP (watchTerm)
	cancelBase context.CancelCauseFunc
	input      io.Closer // the prompt's input, closed by SIGTERM and SIGHUP
}

// runREPL runs the interactive loop until .quit, Ctrl-D, a closed stdout, or
// SIGTERM or SIGHUP, and returns the exit status (0; 143 or 129 after those
// signals, SPEC 4).
func runREPL(ctx context.Context, sess *Session, opt replOptions) int {
	if opt.Stdout == nil {
		opt.Stdout = os.Stdout
	}
	if opt.Stderr == nil {
		opt.Stderr = os.Stderr
	}
	if opt.Dir == "" {
		opt.Dir, _ = os.Getwd()
	}
	sess.SQLFromStdin = true // a stdin stream would fight the REPL for the terminal (SPEC 4)
	sess.Interactive = true  // pending branches that run with a query say so (SPEC 2.1)
	// The prompt, the echo and the REPL's own messages go to the terminal: stdout,
	// or stderr when stdout is redirected (`streamql > out.txt` keeps only results).
	ui := opt.Stdout
	if opt.Terminal == nil && !isTerminal(opt.Stdout) && isTerminal(opt.Stderr) {
		ui = opt.Stderr
	}
	r := &repl{sess: sess, out: ui, dir: opt.Dir}
	// Ctrl-C cancels the running job, not the REPL: the process's context (which
	// SIGINT cancels) is not the parent of the jobs.
	r.base, r.cancelBase = context.WithCancelCause(context.WithoutCancel(ctx))
	defer r.cancelBase(nil)
	if opt.Interrupts != nil {
		r.sigs = opt.Interrupts
	} else {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt)
		defer signal.Stop(ch)
		r.sigs = ch
	}
	path := opt.HistoryFile
	if path == "" {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, historyName)
		}
	}
	r.hist = loadHistory(path, historyLimit)

	comp := &completer{sess: sess, before: r.before}
	var inst atomic.Pointer[readline.Instance]
	cfg := &readline.Config{
		Prompt:                 replPrompt,
		HistoryLimit:           historyLimit,
		DisableAutoSaveHistory: true, // an entry is saved whole, as one line (DESIGN: library facts)
		AutoComplete:           comp,
		EOFPrompt:              "\n", // Ctrl-D ends the line without echoing ^D
		// Ctrl-C in the completion menu leaves the menu and drops the line, as
		// Ctrl-C does elsewhere at the prompt (readline would only leave the menu)
		FuncFilterInputRune: func(c rune) (rune, bool) {
			if rl := inst.Load(); c == readline.CharInterrupt && rl != nil && rl.Operation.IsInCompleteMode() {
				rl.Operation.ExitCompleteMode(true)
			}
			return c, true
		},
		Listener:       readline.FuncListener(comp.onKey),
		Stdout:         ui,
		Stderr:         opt.Stderr,
		FuncIsTerminal: opt.Terminal,
		FuncGetWidth:   opt.Width,
	}
	switch in := opt.Stdin.(type) {
	case nil:
		cfg.Stdin = readline.NewCancelableStdin(os.Stdin)
		r.tty = os.Stdin
	case *os.File:
		cfg.Stdin = readline.NewCancelableStdin(in) // closing the REPL leaves the file open
		r.tty = in
	case io.ReadCloser:
		cfg.Stdin = in
	default:
		cfg.Stdin = io.NopCloser(in)
	}
	if opt.NoRaw {
		r.tty = nil
		cfg.FuncMakeRaw = func() error { return nil }
		cfg.FuncExitRaw = func() error { return nil }
		cfg.FuncOnWidthChanged = func(func()) {}
	}
	// Ctrl-Z (or a pasted 0x1A) suspends only under a shell's job control
	// (canSuspend); else it is dropped with the NULs: readline would send
	// SIGTSTP and wait for a SIGCONT that never comes (issue 30)
	paste := &pasteIn{ReadCloser: dropNUL{cfg.Stdin, !canSuspend(r.tty)}}
	if r.tty != nil {
		paste.more = func() bool { return waitInput(r.tty, pasteGap) }
	}
	cfg.Stdin = paste
	cfg.Listener = readline.FuncListener(paste.onKey(comp.onKey))
	r.input = cfg.Stdin
	rl, err := readline.NewEx(cfg)
	if err != nil {
		printError(opt.Stderr, "cannot start the REPL: %v", err)
		return exitRuntime
	}
	defer rl.Close()
	r.rl = rl
	inst.Store(rl)
	defer r.watchTerm()()
	fmt.Fprintf(r.out, "streamql %s: SQL for event streams. End statements with ';', type .help for help.\n", Version)
	r.loop()
	sess.Stdout.Flush()
	if se, ok := r.term(); ok {
		return se.ExitCode() // SIGTERM or SIGHUP (SPEC 4)
	}
	return exitOK
}

// dropNUL removes NUL bytes from the terminal's input: readline takes a NUL
// (Ctrl-Space, Ctrl-@) for the end of input, which would end the REPL; and
// Ctrl-Z (0x1A) when ctrlZ is set (no job control: canSuspend).
type dropNUL struct {
	io.ReadCloser
	ctrlZ bool // drop 0x1A (Ctrl-Z) too
}

func (d dropNUL) Read(p []byte) (int, error) {
	for {
		n, err := d.ReadCloser.Read(p)
		k := 0
		for _, c := range p[:n] {
			if c != 0 && (c != readline.CharCtrlZ || !d.ctrlZ) {
				p[k] = c
				k++
			}
		}
		if k > 0 || n == 0 || err != nil {
			return k, err
		}
	}
}

// onlyComments reports whether src holds nothing but spaces and complete
// comments.
func onlyComments(src string) bool {
	for _, t := range parser.Tokens(src) {
		if t.Kind != parser.TokComment { // an unclosed /* is a TokError
			return false
		}
	}
	return true
}

// before is the completer's view of the entry's earlier lines.
func (r *repl) before() string {
	if len(r.lines) == 0 {
		return ""
	}
	return strings.Join(r.lines, "\n") + "\n"
}

func (r *repl) loop() {
	for {
		if len(r.lines) == 0 {
			r.rl.SetPrompt(replPrompt)
		} else {
			r.rl.SetPrompt(replContinue)
		}
		r.hist.install(r.rl)
		line, err := r.rl.Readline()
		switch {
		case r.base.Err() != nil:
			return // SIGTERM or SIGHUP (watchTerm)
		case errors.Is(err, readline.ErrInterrupt):
			r.lines = nil // Ctrl-C drops the entry being typed
			continue
		case err == io.EOF:
			return // Ctrl-D
		case err != nil:
			printError(r.sess.Stderr, "reading input: %v", err)
			return
		}
		if quitWords[strings.ToLower(strings.TrimSpace(line))] && onlyComments(r.before()) {
			r.hist.add(strings.TrimSpace(line))
			return // exit, quit or \q alone on a line (psql's and duckdb's habits)
		}
		if strings.HasPrefix(strings.TrimSpace(line), ".") && onlyComments(r.before()) {
			// a dot command where a statement could start, as in scripts (dot.go)
			r.lines = nil
			r.hist.add(strings.TrimSpace(line))
			if quit := r.meta(strings.TrimSpace(line)); quit {
				return
			}
			if r.sess.Closed {
				return
			}
			continue
		}
		r.lines = append(r.lines, line)
		text := strings.Join(r.lines, "\n")
		if strings.TrimSpace(text) == "" {
			r.lines = nil
			continue
		}
		if !parser.Complete(text) {
			continue
		}
		r.lines = nil
		r.hist.add(historyLine(text))
		r.exec(text)
		if r.sess.Closed {
			return
		}
	}
}

// exec parses and runs one entry.
func (r *repl) exec(text string) {
	r.guard(func(ctx context.Context) {
		sc, err := parser.Parse("repl", text)
		if err != nil {
			printParseError(r.sess.Stderr, "", text, err)
			return
		}
		sc.Name = "" // errors read "line L, column C:" (FormatError), not "... of repl"
		r.sess.ExecStmts(ctx, sc, r.dir)
	})
}

// guard runs f with a context that Ctrl-C cancels, and turns a panic into an
// error message: no input ends the REPL.
func (r *repl) guard(f func(ctx context.Context)) {
	for len(r.sigs) > 0 { // a stale signal must not cancel the next job
		<-r.sigs
	}
	ctx, cancel := context.WithCancel(r.base)
	defer noEcho(r.tty)() // what is typed meanwhile shows once, at the next prompt
	done := make(chan struct{})
	go func() {
		select {
		case <-r.sigs:
			cancel()
		case <-done:
		}
	}()
	defer func() {
		close(done)
		cancel()
		if v := recover(); v != nil {
			r.sess.Stdout.Flush()
			printError(r.sess.Stderr, "internal error: %v (the REPL goes on; please report this)", v)
			if os.Getenv("STREAMQL_DEBUG") != "" {
				r.sess.Stderr.Write(debug.Stack())
			}
		}
		if err := r.sess.Stdout.Flush(); isBrokenPipe(err) {
			r.sess.Closed = true
		}
	}()
	f(ctx)
}

// metaCommand is one of the REPL's dot commands.
type metaCommand struct{ name, args, help string }

var metaCommands = []metaCommand{
	{".help", "[functions]", "this help; .help functions lists the functions"},
	{".streams", "", "list the declared streams (SHOW STREAMS)"},
	{".schema", "[NAME | 'file']", "the columns of stream or view NAME (DESCRIBE NAME), or the schema inferred from a file (DESCRIBE 'file'); all streams and views without NAME"},
	{".format", "[FMT]", "output format: " + strings.Join(render.Formats, ", ") + " (also .mode)"},
	{".timer", "[on|off]", "print rows, time and rows/s after each job"},
	{".read", "FILE", "run a script file (relative paths in it are read from its folder)"},
	{".quit", "", "leave (also .exit, exit, quit, \\q, or Ctrl-D)"},
}

const replHelp = `
Statements end with ';' and may span lines. Side branches (SELECT ... INTO SIDE
'name' ...) wait until a main query reads their stream, or RUN;. SHOW SIDES lists
them, SHOW STREAMS / DESCRIBE s the streams. Tab completes keywords and names;
Up and Down recall earlier entries (~/.streamql_history). Ctrl-C stops a running
job or drops the line being typed; Ctrl-D leaves.
`

// meta runs a dot command line (dot.go, shared with scripts) and reports
// whether the REPL should end. An error is positioned in the line, like a SQL
// error.
func (r *repl) meta(line string) (quit bool) {
	r.guard(func(ctx context.Context) {
		sc := &scriptCtx{script: &parser.Script{Source: line}, dir: r.dir}
		r.sess.report(sc, r.sess.execDot(ctx, sc, dotLine{Offset: 0, Text: line}, r.out))
	})
	return r.sess.Closed
}

// history keeps the REPL's entries in memory and in a file, one file line
// each. readline saves history per physical line; the REPL saves each entry
// itself, joined into one line (historyLine), and reinstalls the list before
// each read so that readline's cursor into it starts at the end. An entry that
// still holds line breaks (a string that spans lines) is one entry too: in the
// file it is one line in the form of historyEncode.
type history struct {
	path    string
	entries []string
	limit   int
}

func loadHistory(path string, limit int) *history {
	h := &history{path: path, limit: limit}
	if path == "" {
		return h
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return h
	}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			h.entries = append(h.entries, historyDecode(l))
		}
	}
	if len(h.entries) > 2*limit { // keep the file from growing without end
		h.entries = h.entries[len(h.entries)-limit:]
		h.rewrite()
	}
	if len(h.entries) > limit {
		h.entries = h.entries[len(h.entries)-limit:]
	}
	return h
}

// add appends entry to the history and its file. An entry equal to the last
// one is not repeated.
func (h *history) add(entry string) {
	if entry == "" {
		return
	}
	if n := len(h.entries); n > 0 && h.entries[n-1] == entry {
		return
	}
	h.entries = append(h.entries, entry)
	if len(h.entries) > h.limit {
		h.entries = h.entries[len(h.entries)-h.limit:]
	}
	if h.path == "" {
		return
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return // history is a convenience: never an error
	}
	f.WriteString(historyEncode(entry) + "\n")
	f.Close()
}

// historyMark starts the file line of an entry that holds line breaks. It is a
// SQL line comment, so the line cannot be taken for a statement.
const historyMark = "--streamql-lines "

// historyEncode returns entry as one file line: itself when it has no line
// break, else historyMark and the entry with '\' as `\\`, LF as `\n` and CR
// as `\r`. historyDecode reverses it.
func historyEncode(entry string) string {
	if !strings.ContainsAny(entry, "\r\n") {
		return entry
	}
	return historyMark + strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`).Replace(entry)
}

// historyDecode returns the entry of a history file line (historyEncode).
func historyDecode(line string) string {
	enc, ok := strings.CutPrefix(line, historyMark)
	if !ok {
		return line
	}
	var b strings.Builder
	for i := 0; i < len(enc); i++ {
		if enc[i] == '\\' && i+1 < len(enc) {
			i++
			switch enc[i] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(enc[i])
			}
			continue
		}
		b.WriteByte(enc[i])
	}
	return b.String()
}

func (h *history) rewrite() {
	tmp := h.path + ".tmp"
	lines := make([]string, len(h.entries))
	for i, e := range h.entries {
		lines[i] = historyEncode(e)
	}
	if err := os.WriteFile(tmp, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err == nil {
		os.Rename(tmp, h.path)
	}
}

// install gives readline the history, with its cursor after the last entry.
func (h *history) install(rl *readline.Instance) {
	rl.ResetHistory()
	for _, e := range h.entries {
		rl.SaveHistory(e)
	}
}

// historyLine joins a multi-line entry into one line for the history: a line
// break between tokens, with the spaces around it, becomes one space (none
// after '(' or before ')'), line comments (which would swallow what follows)
// are dropped, and the spacing within a line stays as typed. A string that
// spans lines keeps its line breaks (the entry is still one history entry).
func historyLine(src string) string {
	var b strings.Builder
	last := 0
	prev, dropped := "", ""
	for _, t := range parser.Tokens(src) {
		gap := dropped + src[last:t.Offset]
		last = t.End()
		if t.Kind == parser.TokComment && !strings.HasPrefix(t.Text, "/*") {
			dropped = gap + "\n" // a line comment ends its line
			continue
		}
		dropped = ""
		switch {
		case b.Len() == 0:
		case !strings.ContainsAny(gap, "\r\n"):
			b.WriteString(gap)
		case prev != "(" && t.Text != ")":
			b.WriteByte(' ')
		}
		if t.Kind == parser.TokComment {
			b.WriteString(strings.Join(strings.Fields(t.Text), " "))
		} else {
			b.WriteString(t.Text)
		}
		prev = t.Text
	}
	return b.String()
}
