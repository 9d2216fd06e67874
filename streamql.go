// Package streamql embeds streamql, SQL for event streams (side outputs,
// semi/anti joins, watermarks), in a Go program, the way database/sql drivers
// embed SQLite or DuckDB. The SQL is that of SPEC.md; this package is its Go
// surface:
//
//   - Open opens a session: a catalog of streams, pending side branches and
//     settings that the statements of one program share.
//   - Session.Exec runs statements with a context, as the REPL does: the
//     text is parsed whole first (a syntax error runs nothing), then run in
//     order; side branches stay pending until a main query reads their
//     stream or RUN runs them (SPEC 2.1). Session.ExecScript runs a script
//     as the command line runs a file: its end runs the pending branches.
//   - Session.Running reports the statement running (and the rows pushed to
//     the Go-fed streams it reads); Session.Cancel, or Exec's context,
//     cancels it.
//   - Options.OnRows receives every output's rows as typed values, with the
//     output's name and kind (main, side, errors, or a statement's result
//     table such as SHOW STREAMS), in input order.
//   - A stream declared WITH ('connector'='go') is fed by Session.Push from Go
//     code, with backpressure, until Session.CloseStream.
//
// Errors are *Error values: their Kind says whether nothing ran (Syntax,
// Planning: the command line's exit status 2) or a job failed (Runtime: 1), and
// Format renders the message with the statement's line and a caret as the
// command line prints it.
//
// # Pushing rows while a job runs
//
// A job over a Go-fed stream runs until the stream is closed, so Exec of a
// query over it returns only after CloseStream. Run Exec in one goroutine and
// Push in another:
//
//	s.Exec(ctx, "CREATE STREAM clicks (user_id BIGINT, url VARCHAR) WITH ('connector'='go')")
//	done := make(chan error, 1)
//	go func() { done <- s.Exec(ctx, "SELECT url FROM clicks WHERE user_id > 0") }()
//	s.Push(ctx, "clicks", int64(1), "/a") // blocks while the job is behind
//	s.CloseStream("clicks")
//	err := <-done
//
// Push before any job reads the stream queues a few thousand rows, then blocks
// until a job reads them or ctx ends.
//
// # Layout
//
// The engine session (catalog, DDL, pending branches, statement dispatch, the
// job runner) lives in streamql/internal/session, shared with the command line,
// which renders jobs' batches directly (its fast path); this package adapts it
// to the typed API. Neither imports anything under cmd/.
package streamql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"streamql/executor/connector"
	"streamql/internal/session"
	"streamql/parser"
)

// Options configure a session. The zero value is ready to use: no stdin, paths
// relative to the working directory, outputs discarded.
type Options struct {
	// Stdin is read by streams WITH ('connector'='stdin'); nil reads nothing.
	Stdin io.Reader
	// BaseDir is the directory that relative paths of streams declared by Exec
	// are read from; "" is the working directory. ExecScript takes its own.
	BaseDir string
	// Settings are applied in key order like SET 'key' = 'value' before the
	// first statement (SPEC 3): 'state.max-bytes' bounds each job's state;
	// 'format', 'side-dir' and 'timer' belong to the command line's renderers
	// and are kept (Session.Setting) but change nothing here.
	Settings map[string]string
	// OnRows receives the rows of every output of every job, and the result
	// tables of SHOW, DESCRIBE and EXPLAIN, one call per run of rows for the
	// same output, in input order. rows is valid only during the call. An error
	// it returns ends the job and comes back from Exec as a Runtime error. nil
	// discards the rows. It runs on Exec's goroutine: Exec called from it, or
	// a Push from it to a full queue, returns ErrReentrant (the job would wait
	// for itself).
	OnRows func(out Output, rows *Rows) error
	// Log receives notices, one line each: the malformed rows a job skipped or
	// sent to a side output (SPEC 1), and the pending side branches a main
	// query ran with, with the rows each took (SPEC 2.1). nil discards them.
	Log io.Writer
}

// Session runs statements against one catalog. Exec and ExecScript run one at a
// time (a second call waits for the first); Push and CloseStream may be called
// from other goroutines while a statement runs.
type Session struct {
	opts     Options
	eng      *session.Session
	front    *frontend
	run      sync.Mutex    // one statement at a time
	runner   atomic.Uint64 // the goroutine that holds run (goid), 0 when none
	mu       sync.Mutex    // guards settings, cur and pushed
	settings map[string]string
	cur      *running         // the statement running, nil when none (status.go)
	pushed   map[string]int64 // rows pushed per Go-fed stream, by FoldName
	closed   map[string]bool  // the Go-fed streams closed, by FoldName
}

// Open returns a new session with opts. It returns an *Error when a setting
// of opts.Settings is unknown or its value bad.
func Open(opts Options) (*Session, error) {
	if opts.BaseDir == "" {
		opts.BaseDir, _ = os.Getwd()
	}
	s := &Session{opts: opts, settings: map[string]string{}}
	s.front = &frontend{s: s}
	s.eng = session.New(opts.Stdin, s.front)
	s.eng.GoFed = true
	keys := make([]string, 0, len(opts.Settings))
	for k := range opts.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		q := func(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }
		if err := s.ExecScript(context.Background(), "settings", "SET "+q(k)+" = "+q(opts.Settings[k])+";", opts.BaseDir); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Exec runs the statements of sql (separated by ';'): parsed whole first,
// then run in order (SPEC 4). As in the REPL, side branches (INTO SIDE, INTO
// STREAM) stay pending until a later main query reads their stream or a RUN
// statement runs them (SPEC 2.1): the end of an Exec call is not the end of a
// script (ExecScript's is). Relative paths are read from Options.BaseDir. It
// stops at the first failing statement and returns an *Error (Kind Syntax,
// Planning or Runtime); ctx, or Cancel, cancels a running job (the error then
// wraps ctx.Err(), or ErrCanceled).
func (s *Session) Exec(ctx context.Context, sql string) error {
	return s.exec(ctx, "-e", sql, s.opts.BaseDir, false)
}

// ExecScript runs text, the script called name (a file name, for messages),
// as the command line runs a script file: like Exec, and then its pending side
// branches (SPEC 2.1: the end of a script file runs them), with relative paths
// read from dir. Dot commands (.read, ...) are the command line's and are not
// read here.
//
// Called from inside Options.OnRows or Options.Log (the goroutine of the
// running Exec), Exec and ExecScript return a Runtime error wrapping
// ErrReentrant at once instead of waiting for the running statement, which
// waits for the callback: a deadlock.
func (s *Session) ExecScript(ctx context.Context, name, text, dir string) error {
	return s.exec(ctx, name, text, dir, true)
}

// exec runs the statements of text in order, then the pending side branches
// when runPending is set.
func (s *Session) exec(ctx context.Context, name, text, dir string, runPending bool) error {
	id := goid()
	if s.runner.Load() == id {
		return newError(KindRuntime, name, text, ErrReentrant)
	}
	s.run.Lock()
	s.runner.Store(id)
	defer func() {
		s.runner.Store(0)
		s.run.Unlock()
	}()
	script, err := parser.Parse(name, text)
	if err != nil {
		return newError(KindSyntax, name, text, err)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	for _, st := range script.Stmts {
		if err := ctx.Err(); err != nil {
			return newError(KindRuntime, name, text, context.Cause(ctx))
		}
		start, end := st.Span()
		s.begin(text[start:end], cancel)
		err := s.eng.Exec(ctx, script, dir, st)
		s.end()
		if err != nil && errors.Is(context.Cause(ctx), ErrCanceled) {
			err = fmt.Errorf("%w (%w)", ErrCanceled, err)
		}
		if err != nil {
			return newError(KindPlanning, name, text, err)
		}
	}
	if !runPending {
		return nil
	}
	s.begin("RUN", cancel)
	defer s.end()
	if err := s.eng.RunPending(ctx, script); err != nil {
		return newError(KindPlanning, name, text, err)
	}
	return nil
}

// Setting returns the value of a SET of the command line's ('format',
// 'side-dir', 'timer'), and whether one was set.
func (s *Session) Setting(key string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.settings[key]
	return v, ok
}

// feed returns the queue of the Go-fed stream named stream.
func (s *Session) feed(stream string) (*connector.Feed, error) {
	st := s.eng.Cat.Lookup(stream)
	if st == nil {
		return nil, fmt.Errorf("streamql: unknown stream '%s'; declare it first with CREATE STREAM %s (...) WITH ('connector'='go')", stream, stream)
	}
	if st.Connector == nil || !st.Connector.PushedFromGo {
		return nil, fmt.Errorf("streamql: stream %s reads connector '%s'; Push needs a stream declared WITH ('connector'='go')", st.Name, st.Connector.Name)
	}
	return s.eng.Env.Feed(st), nil
}

// Push appends one row to the Go-fed stream named stream (declared WITH
// ('connector'='go')): one value per column in declaration order, int64 (or
// another Go integer) for BIGINT, float64 for DOUBLE, string or []byte for
// VARCHAR, bool for BOOLEAN, time.Time or int64 epoch ms for TIMESTAMP, nil for
// NULL. It blocks while the queue of the stream is full (the job reading it is
// behind, or none runs yet) and returns ctx.Err() if ctx ends first; the row is
// then not pushed. Errors name the stream and column: an unknown stream, one
// of another connector, a closed one, a row of the wrong width or a value of
// the wrong type.
func (s *Session) Push(ctx context.Context, stream string, row ...any) error {
	f, err := s.feed(stream)
	if err != nil {
		return err
	}
	if err := f.PushOr(ctx, row, func() error {
		if s.runner.Load() == goid() {
			return fmt.Errorf("streamql: Push to stream %s from inside OnRows: %w", stream, ErrReentrant)
		}
		return nil
	}); err != nil {
		return err
	}
	s.counted(stream, 1, false)
	return nil
}

// ErrReentrant is the error of Exec, ExecScript, and of a Push that would
// block, called from inside Options.OnRows or Options.Log: the running Exec
// waits for the callback, which would wait for the running Exec. Collect what
// the callback needs and call Exec after the running one returns, or use
// another Session.
var ErrReentrant = errors.New("called from inside OnRows or Log of a running Exec, it would wait for itself; call it after that Exec returns, or on another Session")

// goid returns the id of the calling goroutine (from runtime.Stack's
// "goroutine N [...]" header): the one way to tell a callback of the running
// Exec from another goroutine that waits for its turn.
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = b[len("goroutine "):]
	if i := strings.IndexByte(string(b), ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return id
}

// CloseStream ends the Go-fed stream named stream: a job reading it ends after
// the rows pushed before. It returns an error for an unknown stream or one of
// another connector. Closing twice is harmless.
func (s *Session) CloseStream(stream string) error {
	f, err := s.feed(stream)
	if err != nil {
		return err
	}
	f.Close()
	s.counted(stream, 0, true)
	return nil
}
