package export

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"streamql/catalog"
	"streamql/catalog/functions"
	"streamql/internal/session"
	"streamql/parser"
	"streamql/planner"
)

// Input is one script to export: its name (a path, used in messages and for
// the directory relative 'path' options are read from) and its text.
type Input struct {
	Name, Source string
}

// Options are the flags of `streamql export --flink`.
type Options struct {
	// SideDir, when set, makes each side output without a sink a Flink
	// filesystem table at SideDir/<name>.csv instead of a print table (the
	// --side-dir of SPEC 4); a relative SideDir is made absolute from the
	// working directory, as streamql reads it.
	SideDir string
	// Strict makes Export fail with a *StrictError when there is any
	// Difference (SPEC 4: --strict, exit status 2).
	Strict bool
}

// Difference is one thing the Flink script does not do as streamql does
// (SPEC 4): Script and Line are where it comes from, Text says what differs
// and what to do.
type Difference struct {
	Script string
	Line   int
	Text   string
}

// String renders d as "script:line: text".
func (d Difference) String() string { return fmt.Sprintf("%s:%d: %s", d.Script, d.Line, d.Text) }

// StrictError is Export's error under Options.Strict when the script has
// differences: it lists them, each with its line.
type StrictError struct{ Diffs []Difference }

// Error lists the differences, one a line.
func (e *StrictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "--strict: the Flink script would behave differently from streamql in %d place(s):", len(e.Diffs))
	for _, d := range e.Diffs {
		b.WriteString("\n  " + d.String())
	}
	b.WriteString("\n(drop --strict to export anyway; each difference is then listed at the top of the script)")
	return b.String()
}

// ScriptError is an error in a script being exported (a syntax, name or
// planning error, or a construct that has no Flink translation): Script names
// the script and Err, a *parser.Error, holds the offset into it.
type ScriptError struct {
	Script *parser.Script
	Err    error
}

// Error renders the error as the CLI does: message, line and column, the line
// and a caret.
func (e *ScriptError) Error() string {
	if pe, ok := e.Err.(*parser.Error); ok {
		return parser.FormatError(e.Script.Name, e.Script.Source, pe)
	}
	return e.Script.Name + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *ScriptError) Unwrap() error { return e.Err }

// job is a job the session would have run, with the script it belongs to.
type job struct {
	job    *planner.Job
	script *parser.Script
	// streaming: planned under 'execution.runtime-mode' = 'streaming' (SPEC
	// 2.8: an updating GROUP BY or Top-N also over bounded streams)
	streaming bool
}

// streamDecl is a CREATE STREAM as exported: the catalog's stream and where
// it was declared.
type streamDecl struct {
	st     *catalog.Stream
	script *parser.Script
	decl   *parser.CreateStream
}

// recorder is the session frontend that records jobs instead of running them.
type recorder struct {
	jobs []job
	cur  *parser.Script
	sess *session.Session
}

func (r *recorder) Set(*parser.Set) (bool, error)     { return true, nil }
func (r *recorder) Result([]string, [][]string) error { return nil }
func (r *recorder) RunJob(_ context.Context, j *session.Job, _ session.RunFunc) error {
	r.jobs = append(r.jobs, job{job: j.Plan(), script: r.cur, streaming: r.sess != nil && r.sess.Streaming})
	return nil
}

// exporter holds what Export learned from the scripts.
type exporter struct {
	opt     Options
	cat     *catalog.Catalog
	streams []*streamDecl
	byCat   map[*catalog.Stream]*streamDecl
	values  map[*catalog.Stream][]valuesInsert
	selects map[selKey]*parser.Select
	scripts map[*parser.Script]bool
	diffs   []Difference
	// names are the Flink table names in use (lower case), for unique names.
	names map[string]bool
	// windowTime lists, per stream, the BIGINT columns without WATERMARK FOR
	// that a window reads (they get a TO_TIMESTAMP_LTZ computed column), and
	// windowTimeAt where, for the difference it is in streaming mode.
	windowTime   map[*catalog.Stream][]int
	windowTimeAt []windowUse
	// procWindow says a window aggregate of the script, or of a relation it
	// reads, is over processing time (SPEC 2.10): Flink's batch mode refuses
	// it, so the export runs in streaming mode (windowAggDiffs sets it)
	procWindow bool
	// relWatermark says a relation the script reads (a subquery, WITH name
	// or view, printed inline) calls CURRENT_WATERMARK: the export then runs
	// in Flink's streaming mode, as for a query's own call
	relWatermark bool
	// tableOf maps a stream to its Flink table name.
	tableOf map[*catalog.Stream]string
	// funcs are the session's user-defined functions (SPEC 2.10), for
	// planning the subqueries the printer reads
	funcs *functions.Registry
	// views are the script's views (SPEC 2.6), by lower-case name: a query
	// reading one gets its query inline
	views map[string]*viewDecl
	// tvfViews are the relations a window TVF reads (a view or a WITH
	// name, SPEC 2.6), each written as a CREATE TEMPORARY VIEW that the TVF
	// reads as TABLE name (the form of Flink's docs and tests): their view
	// names by relation, and the statements in the order they were first
	// printed (a view's own TVF views before it)
	tvfViews    map[*parser.Relation]string
	tvfViewDDLs []string
	// routing holds, for the ranking subquery of a side branch's Top-N or
	// deduplication (rankInner), the conditions of the rows earlier
	// branches took, each "(…) IS NOT TRUE", which its WHERE ANDs in: a
	// branch ranks only the rows it takes by first match (SPEC 2.1 with
	// 2.9), so they are filtered before the rank, not after it
	routing map[*parser.Relation][]string
	// routed holds, while a job is written, the predicates that keep the
	// rows of a joined stream no side branch takes, by the name its FROM
	// reads it by (routedFrom; SPEC 2.1, 2.7)
	routed map[string][]string
	// sideDir is opt.SideDir made absolute (from the working directory, as
	// --side-dir is read), for the side outputs' filesystem tables
	sideDir string
}

// watermarkDiff is the difference listed where a query, or a relation it
// reads, calls CURRENT_WATERMARK (SPEC 2.3).
const watermarkDiff = "CURRENT_WATERMARK is the watermark before each row in streamql (SPEC 2.3); in Flink it is the last watermark the source's periodic generator emitted ('pipeline.auto-watermark-interval'), so rows streamql finds late may be on time in Flink"

// viewDecl is a CREATE VIEW and the script it is in.
type viewDecl struct {
	decl   *parser.CreateView
	script *parser.Script
}

// windowUse is a window over a BIGINT column without WATERMARK FOR.
type windowUse struct {
	script *parser.Script
	pos    int
	col    string
}

// valuesInsert is an INSERT INTO s VALUES of a values stream, kept for the
// view that replaces the stream.
type valuesInsert struct {
	ins    *parser.Insert
	script *parser.Script
	// jobsBefore is the number of jobs planned before the INSERT.
	jobsBefore int
}

// selKey finds the statement a branch was planned from (plan.Branch's Script,
// Line and Column).
type selKey struct {
	script    string
	line, col int
}

// Export parses and plans the scripts in order in one session (as `streamql
// a.sql b.sql` would, SPEC 4), without running any job, and returns the Flink
// 2.x SQL script and the differences it lists at its top. Errors: a
// *ScriptError for a script that does not parse or plan, or that uses
// something with no Flink translation (the message names it and its line);
// a *StrictError under opt.Strict when there are differences.
func Export(inputs []Input, opt Options) (string, []Difference, error) {
	x := &exporter{opt: opt, byCat: map[*catalog.Stream]*streamDecl{}, values: map[*catalog.Stream][]valuesInsert{},
		selects: map[selKey]*parser.Select{}, scripts: map[*parser.Script]bool{}, names: map[string]bool{},
		tableOf: map[*catalog.Stream]string{}, windowTime: map[*catalog.Stream][]int{}, views: map[string]*viewDecl{},
		tvfViews: map[*parser.Relation]string{}}
	if x.sideDir = opt.SideDir; x.sideDir != "" {
		abs, err := filepath.Abs(x.sideDir)
		if err != nil {
			return "", nil, fmt.Errorf("--side-dir %s: %w (Flink resolves a relative folder from its own working directory: give an absolute one)", opt.SideDir, err)
		}
		x.sideDir = abs
	}
	rec := &recorder{}
	sess := session.New(nil, rec)
	rec.sess = sess
	sess.GoFed = true // a 'go' stream exports as a table to replace (a difference), not an error
	// FROM 'x.csv' (SPEC 1), also in a view, WITH name or subquery: a table
	// of its own, as a declared stream's, which the printer finds later
	sess.KeepFiles = func(cs *parser.CreateStream) {
		if c := sess.Cat.Lookup(cs.Name); c != nil && x.byCat[c] == nil {
			d := &streamDecl{st: c, script: rec.cur, decl: cs}
			x.streams = append(x.streams, d)
			x.byCat[c] = d
		}
	}
	x.cat, x.funcs = sess.Cat, sess.Funcs
	ctx := context.Background()
	for _, in := range inputs {
		script, err := parser.Parse(in.Name, in.Source)
		if err != nil {
			if pe, ok := err.(*parser.Error); ok {
				return "", nil, &ScriptError{Script: &parser.Script{Name: in.Name, Source: in.Source}, Err: pe}
			}
			return "", nil, fmt.Errorf("%s: %w", in.Name, err)
		}
		rec.cur = script
		dir := filepath.Dir(in.Name)
		for _, st := range script.Stmts {
			if sel, ok := st.(*parser.Select); ok {
				l, c := parser.Position(script.Source, sel.Start)
				x.selects[selKey{script.Name, l, c}] = sel
				// a Top-N or deduplication is planned from its subquery
				// (planner rule_rank.go): that branch prints the statement
				for _, rel := range sel.Derived {
					for _, in := range rel.Selects {
						l, c := parser.Position(script.Source, in.Start)
						if k := (selKey{script.Name, l, c}); x.selects[k] == nil {
							x.selects[k] = sel
						}
					}
				}
			}
			if _, ok := st.(*parser.Explain); ok {
				continue // EXPLAIN prints a plan: nothing to run on Flink
			}
			if err := sess.Exec(ctx, script, dir, st); err != nil {
				return "", nil, &ScriptError{Script: script, Err: err}
			}
			switch st := st.(type) {
			case *parser.CreateFunction: // SPEC 2.10: a WebAssembly module
				x.diff(script, st.NamePos, "function %s runs the WebAssembly module '%s' here; Flink needs a Java or Python function of the same name: CREATE FUNCTION %s AS '<your.Class>' before this script", st.Name, st.Path, st.Name)
			case *parser.CreateStream:
				if c := sess.Cat.Lookup(st.Name); c != nil && x.byCat[c] == nil {
					d := &streamDecl{st: c, script: script, decl: st}
					x.streams = append(x.streams, d)
					x.byCat[c] = d
				}
			case *parser.CreateView:
				x.views[strings.ToLower(st.Name)] = &viewDecl{decl: st, script: script}
			case *parser.DropView:
				delete(x.views, strings.ToLower(st.Name))
			case *parser.Insert:
				if c := sess.Cat.Lookup(st.Stream); c != nil {
					x.values[c] = append(x.values[c], valuesInsert{st, script, len(rec.jobs)})
				}
			}
		}
		if err := sess.RunPending(ctx, script); err != nil { // the end of a script runs its pending branches (SPEC 2.1)
			return "", nil, &ScriptError{Script: script, Err: err}
		}
	}
	out, err := x.write(rec.jobs)
	if err != nil {
		return "", nil, err
	}
	if opt.Strict && len(x.diffs) > 0 {
		return "", x.diffs, &StrictError{Diffs: x.diffs}
	}
	return out, x.diffs, nil
}

// diff records a difference at offset off of script.
func (x *exporter) diff(script *parser.Script, off int, format string, args ...any) {
	l, _ := parser.Position(script.Source, off)
	x.diffLine(script.Name, l, format, args...)
}

// diffLine records a difference at line (1-based) of the script called
// name, once.
func (x *exporter) diffLine(name string, line int, format string, args ...any) {
	d := Difference{Script: name, Line: line, Text: fmt.Sprintf(format, args...)}
	for _, e := range x.diffs {
		if e == d {
			return
		}
	}
	x.diffs = append(x.diffs, d)
}

// uniqueName returns name, or name_2, name_3, … when a table has it already.
func (x *exporter) uniqueName(name string) string {
	n := name
	for i := 2; x.names[strings.ToLower(n)]; i++ {
		n = fmt.Sprintf("%s_%d", name, i)
	}
	x.names[strings.ToLower(n)] = true
	return n
}
