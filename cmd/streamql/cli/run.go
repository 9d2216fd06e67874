// Package cli is streamql's command line (SPEC 4): flags, the script runner,
// SQL from stdin, and the session that REPL and scripts share. Run is the whole
// program behind main, testable in-process. It reaches the engine through
// internal/session (plans, runs, the session.Job it renders, the progress
// counters, the source hook) and must never import a planner or executor
// package (layering_test.go).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"streamql/cmd/streamql/render"
	"streamql/internal/editdist"
	"streamql/internal/pipewrite"
	"streamql/internal/session"
	"streamql/parser"
)

// Version is the program version printed by --version.
var Version = "0.1.0-dev"

const usage = `streamql: SQL for event streams (side outputs, semi/anti joins, watermarks)

usage:
  streamql                          REPL (when stdin is a terminal)
  streamql script.sql [more.sql]    run scripts in order, then exit
  streamql -f script.sql            same
  streamql -e 'SQL; SQL'            run inline SQL (also -c, as psql and duckdb); -f and -e
                                    run in the order given, after script.sql
  ... | streamql                    SQL read from stdin when it is not a terminal
  streamql test [DIR ...]           run the test cases under DIR (streamql test --help)
  streamql tune script.sql          measure how late the script's rows arrive, suggest
                                    its WATERMARK delays (streamql tune --help)
  streamql export --flink a.sql     print the scripts as Flink SQL (streamql export --help)

flags:
`

// Run runs streamql with args (without the program name) and returns the exit
// status (SPEC 4): 0 done; 1 a runtime failure; 2 an error found before a job
// starts (flags, syntax, names, types, planning); 130 interrupted (ExitStatus
// turns it into 143 or 129 when SIGTERM or SIGHUP cancelled ctx). A first
// argument `test` runs the user's test cases instead (runTest, SPEC 4).
//
// A stdout that is a pipe is written through pipewrite (issue 30): a stop
// signal ends the run within pipewrite.Grace even when the reader does not
// read, what stdout got ends on a whole row (of up to 4 KiB), and the rest is
// dropped.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runHooked(ctx, runHooks{}, args, stdin, stdout, stderr)
}

// runHooked is Run with the hooks of a test case's run.
func runHooked(ctx context.Context, hooks runHooks, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if f, ok := stdout.(*os.File); ok {
		if w, restore := pipewrite.Stdout(ctx, f); w != nil {
			defer restore()
			stdout = w
			if e, ok := stderr.(*os.File); ok { // `2>&1`: stderr shares the non-blocking pipe
				stderr = pipewrite.Stderr(f, e)
			}
		}
	}
	if n := killAfterLines(); n > 0 { // a process `streamql test --shuffle` kills (shufflekafka.go)
		stdout = &killWriter{w: stdout, left: n}
	}
	if len(args) > 0 && args[0] == "test" { // streamql test [DIR …] (testcmd.go)
		return runTest(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "tune" { // streamql tune script.sql (tune.go)
		return runTune(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "export" { // streamql export --flink script.sql (export.go)
		return runExport(ctx, args[1:], stdout, stderr)
	}
	fs := pflag.NewFlagSet("streamql", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "table", "output format: table, csv, tsv, json, plain, markdown")
	sideDir := fs.String("side-dir", "", "write each side output to DIR/<name>.<ext> instead of stdout")
	timer := fs.Bool("timer", false, "print rows, elapsed time and rows/s per job on stderr")
	version := fs.Bool("version", false, "print the version and exit")
	help := fs.BoolP("help", "h", false, "print this help and exit")
	var given []scriptArg // -f and -e in command-line order
	fs.VarP(scriptFlag{all: &given}, "file", "f", "run a script file (may repeat)")
	fs.VarP(scriptFlag{all: &given, inline: true}, "execute", "e", "run inline SQL (may repeat)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the run to `FILE` (for development)")
	memprofile := fs.String("memprofile", "", "write a heap profile taken at the run's peak heap to `FILE` (for development)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(aliasArgs(args)); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		printError(stderr, "%s", flagError(fs, err))
		return exitPlanning
	}
	if msg := checkFlagValues(fs); msg != "" {
		printError(stderr, "%s", msg)
		return exitPlanning
	}
	if *help {
		fmt.Fprint(stdout, usage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return exitOK
	}
	if *version {
		fmt.Fprintln(stdout, "streamql "+Version)
		return exitOK
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			printError(stderr, "--cpuprofile: %v", err)
			return exitPlanning
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			printError(stderr, "--cpuprofile: %v", err)
			return exitPlanning
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	if *memprofile != "" {
		stop, err := peakHeapProfile(*memprofile)
		if err != nil {
			printError(stderr, "--memprofile: %v", err)
			return exitPlanning
		}
		defer stop()
	}
	if !render.ValidFormat(*format) {
		printError(stderr, "unknown --format '%s'; %suse one of %s", *format, editdist.DidYouMean(*format, render.Formats), strings.Join(render.Formats, ", "))
		return exitPlanning
	}
	if *sideDir != "" {
		if st, err := os.Stat(*sideDir); err == nil && !st.IsDir() {
			printError(stderr, "--side-dir %s is a file, not a folder; give a folder (one that does not exist yet is created)", *sideDir)
			return exitPlanning
		} else if err != nil {
			if err := os.MkdirAll(*sideDir, 0o755); err != nil {
				printError(stderr, "--side-dir %s: cannot create the folder: %v; give a folder you can write to", *sideDir, unwrapPath(err))
				return exitPlanning
			}
		}
	}
	sess := NewSession(stdout, stderr, stdin)
	sess.Format, sess.SideDir, sess.Timer = *format, *sideDir, *timer
	if h := hooks.sourceHook; h != nil { // test --shuffle (shuffle.go)
		session.SetSourceHook(sess.Env, h)
	}
	sess.hooks = hooks

	type input struct{ name, text, dir, path string }
	var inputs []input
	wd, _ := os.Getwd()
	// positional script files first, then -f and -e in the order given
	order := make([]scriptArg, 0, fs.NArg()+len(given))
	for _, f := range fs.Args() {
		order = append(order, scriptArg{text: f})
	}
	for _, a := range append(order, given...) {
		if a.inline {
			inputs = append(inputs, input{name: "-e", text: a.text, dir: wd})
			continue
		}
		f := a.text
		b, err := loadScriptFile(ctx, f)
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "interrupted")
			return exitInterrupt
		}
		if err != nil {
			printError(stderr, "cannot read script %s: %v", f, unwrapPath(err))
			return exitPlanning
		}
		inputs = append(inputs, input{name: f, text: string(b), dir: filepath.Dir(f), path: f})
	}
	if len(inputs) == 0 {
		if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			return runREPL(ctx, sess, replOptions{Stdin: f, Stdout: stdout, Stderr: stderr, Dir: wd})
		}
		b, err := loadScriptFrom(ctx, stdin)
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "interrupted")
			return exitInterrupt
		}
		if err == errScriptTooLong {
			printError(stderr, "SQL on stdin: %v", err)
			return exitPlanning
		}
		if err != nil {
			printError(stderr, "reading SQL from stdin: %v", err)
			return exitRuntime
		}
		sess.SQLFromStdin = true
		inputs = append(inputs, input{name: "stdin", text: string(b), dir: wd})
	}
	// A script is split and parsed whole before anything runs (SPEC 4).
	scripts := make([]*parser.Script, len(inputs))
	for i, in := range inputs {
		sc, err := sess.parseScript(ctx, in.name, in.path, in.text) // dot lines too (dot.go)
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "interrupted")
			return exitInterrupt
		}
		if err != nil {
			printParseError(stderr, in.name, in.text, err)
			return exitPlanning
		}
		scripts[i] = sc
	}
	for i, sc := range scripts {
		if code := sess.ExecScript(ctx, sc, inputs[i].dir); code != exitOK || sess.Closed {
			return code
		}
	}
	return exitOK
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// isBrokenPipe reports whether err is a write to a closed pipe (`| head`): a clean
// end with status 0 and no message (DESIGN: library facts).
func isBrokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE)
}
