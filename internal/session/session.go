// Package session is streamql's engine session (SPEC 2.1, SPEC 3): the catalog,
// DDL, the pending side branches, statement dispatch and the job runner. The
// public package streamql and the command line (cmd/streamql/cli) are its two
// clients: each gives it a Frontend that receives what statements produce (a
// job's output batches, SHOW/DESCRIBE/EXPLAIN tables) and the settings that
// belong to the client (format, side-dir, timer). A Frontend sees a job as
// data (Job) and renders it through the output contract of frontend.go, so
// the command line imports no executor or planner package.
//
// It imports the engine (catalog, planner, executor) and never anything under
// cmd/ nor the root package streamql.
package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"streamql/catalog"
	"streamql/catalog/functions"
	"streamql/executor"
	"streamql/internal/editdist"
	"streamql/internal/termtext"
	"streamql/parser"
	"streamql/planner"
	"streamql/planner/plan"
)

// DocumentFrontend is a Frontend that takes a statement's result that is one
// document, EXPLAIN (FORMAT JSON)'s (SPEC 4: "the same as one JSON
// document"), whole: column names its one column and text the document,
// ending in a line break. A Frontend without it gets the document's lines as
// rows of Result.
type DocumentFrontend interface {
	Document(column, text string) error
}

// LineRows returns text's lines (without a final empty one) as one-cell rows,
// as EXPLAIN gives its tree to Frontend.Result.
func LineRows(text string) [][]string {
	var rows [][]string
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		rows = append(rows, []string{l})
	}
	return rows
}

// explainJSON returns doc, the plan tree's JSON object, with notes (the
// streams' csv header mappings and type conversions that EXPLAIN prints after
// its tree) as its "notes" array of strings when there are any, so that the
// whole stays one JSON document.
func explainJSON(doc string, notes []string) string {
	if len(notes) == 0 {
		return doc
	}
	i := strings.LastIndex(doc, "}")
	b, err := json.MarshalIndent(notes, "  ", "  ")
	if i < 0 || err != nil { // (a JSON object of plain strings: cannot happen)
		return doc
	}
	return strings.TrimRight(doc[:i], "\n") + ",\n  \"notes\": " + string(b) + "\n}\n"
}

// Frontend receives what a session's statements produce.
type Frontend interface {
	// Set applies a SET that the engine does not own (SPEC 3: format,
	// side-dir, timer). It returns known false for a key it does not know,
	// and an error positioned in st for a bad value.
	Set(st *parser.Set) (known bool, err error)
	// Result receives the table of SHOW STREAMS, SHOW SIDES, DESCRIBE and
	// EXPLAIN: column names and rows of text.
	Result(columns []string, rows [][]string) error
	// RunJob runs job (its outputs as data, Job; the plan for the engine's
	// own clients, Job.Plan): it must call run once with the factory of the
	// job's sink and return run's error, or its own (an output that failed).
	RunJob(ctx context.Context, job *Job, run RunFunc) error
}

// Session holds what statements share: the catalog, the pending side branches
// and the job environment (stdin, values tables, Go-fed streams). Statements
// run one at a time (not safe for concurrent use, except Env's Go-fed feeds).
type Session struct {
	Cat   *catalog.Catalog
	Env   *executor.Env
	Front Frontend
	// SQLFromStdin is set when the SQL itself comes from stdin or the REPL: a
	// stdin stream is then a planning error (SPEC 4).
	SQLFromStdin bool
	// GoFed allows streams WITH ('connector'='go'), which only Go code can feed
	// (the package streamql sets it; the command line cannot push rows).
	GoFed bool
	// KeepFiles, when set, keeps the stream declared for a file read by
	// its quoted name (FROM 'x.csv', SPEC 1) in the catalog after the
	// statement, so a later statement and the caller see it, and is called
	// with its declaration once, when it is declared (streamql export
	// --flink prints it as a table). nil: such a stream lives for its
	// statement only.
	KeepFiles func(*parser.CreateStream)
	// Funcs are the session's user-defined functions (SPEC 2.10): Go
	// functions registered by the library, CREATE FUNCTION's WASM modules.
	Funcs *functions.Registry
	// MiniBatch is 'table.exec.mini-batch.enabled' (Flink's key, SPEC 2.8):
	// updating aggregates fold each batch's changes per group.
	MiniBatch bool
	// StateTTL is 'table.exec.state.ttl' (Flink's key, SPEC 2.7, 2.8;
	// planner.ParseStateTTL): how long the state of an unbounded GROUP BY,
	// a Top-N or a deduplication keeps a key after its last change, and a
	// regular join a row (given to planner.Planner.StateTTL); 0 keeps it for
	// ever.
	StateTTL time.Duration
	// Streaming is 'execution.runtime-mode' = 'streaming' (Flink's key, SPEC
	// 2.8; planner.Planner.Streaming); the default is batch-like results over
	// bounded streams (SPEC 2.4).
	Streaming bool
	// KeepColumns is SET 'planner.prune-columns' = 'false'
	// (planner.Planner.KeepColumns): joins hold every column of their inputs.
	KeepColumns bool
	// KeepFilters is SET 'planner.push-filters' = 'false'
	// (planner.Planner.KeepFilters): a join's conditions on one input are
	// tested after the join.
	KeepFilters bool

	pending []*planner.Branch // side branches waiting for a job, in declaration order
	// views are the CREATE VIEW statements in force, in declaration order,
	// with their scripts: a SET that changes how queries are planned plans
	// them again (replanViews).
	views []viewDef
	// sides indexes pending by stream and side name (the first branch of each);
	// nil when it must be rebuilt (pendingSide).
	sides map[sideKey]*planner.Branch
}

// viewDef is one CREATE VIEW, the script it stands in and that script's
// folder (the files its query reads by a quoted name are relative to it).
type viewDef struct {
	stmt   *parser.CreateView
	script *parser.Script
	dir    string
}

type sideKey struct {
	st   *catalog.Stream
	side string
}

// New returns a session reading stdin streams from stdin (nil: none) and
// giving its results to front.
func New(stdin io.Reader, front Frontend) *Session {
	return &Session{Cat: catalog.New(), Env: &executor.Env{Stdin: stdin}, Front: front, Funcs: functions.NewRegistry()}
}

// addPending appends b to the pending side branches.
func (s *Session) addPending(b *planner.Branch) {
	s.pending = append(s.pending, b)
	if s.sides != nil {
		if _, ok := s.sides[sideKey{plan.Origin(b.Stream), b.Side}]; !ok {
			s.sides[sideKey{plan.Origin(b.Stream), b.Side}] = b
		}
	}
}

// pendingSide returns the first pending branch of st with side name side, or nil.
func (s *Session) pendingSide(st *catalog.Stream, side string) *planner.Branch {
	if s.sides == nil {
		s.sides = map[sideKey]*planner.Branch{}
		for _, b := range s.pending {
			if _, ok := s.sides[sideKey{plan.Origin(b.Stream), b.Side}]; !ok {
				s.sides[sideKey{plan.Origin(b.Stream), b.Side}] = b
			}
		}
	}
	return s.sides[sideKey{plan.Origin(st), side}]
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

// newPlanner returns a planner of statements of script under the session's
// catalog, user functions and current settings (runtime mode, state TTL,
// mini-batch, column pruning, filter pushdown: each statement is planned
// under the SETs before it, as Flink's SQL client does).
func (s *Session) newPlanner(ctx context.Context, script *parser.Script) *planner.Planner {
	return &planner.Planner{Cat: s.Cat, Source: script.Source, Script: script.Name, Ctx: ctx, Funcs: s.Funcs, Streaming: s.Streaming, StateTTL: s.StateTTL, MiniBatch: s.MiniBatch, KeepColumns: s.KeepColumns, KeepFilters: s.KeepFilters}
}

// Exec runs one statement st of script (relative paths of a CREATE STREAM
// are read from dir). Errors are *parser.Error at offsets into
// script.Source for planning errors (SPEC 4: exit status 2), context.Canceled
// after a cancel, and other errors for a job that failed (status 1).
func (s *Session) Exec(ctx context.Context, script *parser.Script, dir string, st parser.Stmt) error {
	p := s.newPlanner(ctx, script)
	switch st := st.(type) {
	case *parser.CreateStream:
		return s.createStream(dir, st)
	case *parser.CreateFunction:
		return s.createFunction(dir, st)
	case *parser.DropFunction:
		return s.dropFunction(st)
	case *parser.DropStream:
		x := s.Cat.Lookup(st.Name)
		if x == nil {
			if st.IfExists {
				return nil
			}
			return parser.Errorf(st.NamePos, "unknown stream '%s'", st.Name)
		}
		if vs := viewsReading(s.Cat, x); len(vs) > 0 {
			return parser.Errorf(st.NamePos, "view %s reads stream %s: DROP VIEW %s first (SPEC 2.6)", vs[0], x.Name, vs[0])
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
	case *parser.CreateView: // SPEC 2.6: planned now, expanded where read
		if s.Cat.LookupView(st.Name) != nil || s.Cat.Lookup(st.Name) != nil {
			if st.IfNotExists && s.Cat.LookupView(st.Name) != nil {
				return nil
			}
			what := "a view"
			if s.Cat.Lookup(st.Name) != nil {
				what = "a stream"
			}
			return parser.Errorf(st.NamePos, "%s named %s exists already (views and streams share one namespace): DROP it first or pick another name", what, st.Name)
		}
		drop, err := s.viewFileStreams(dir, st.Rel) // (FROM 'x.csv' in a view reads the file as in a query: SPEC 1, 2.6)
		if err != nil {
			return err
		}
		v, err := p.PlanView(st)
		q := p.ViewQuery(st) // (while the view's file streams are declared)
		drop()
		if err != nil {
			return err
		}
		s.warn(p, script)
		v.Name = st.Name
		s.Cat.AddView(&catalog.View{Name: st.Name, Text: oneLine(st.Text), Stream: v, Query: q})
		s.views = append(s.views, viewDef{st, script, dir})
		return nil
	case *parser.DropView:
		if pend := s.branchesOf(viewStream(s.Cat, st.Name)); len(pend) > 0 {
			return parser.Errorf(st.NamePos, "view %s has pending side branches; RUN them or DROP SIDE them first", st.Name)
		}
		if vs := viewsReadingView(s.Cat, st.Name); len(vs) > 0 {
			// as for DROP STREAM: the view reading it was planned over it,
			// and would go on reading the dropped query (or a later view of
			// that name's, not its own)
			return parser.Errorf(st.NamePos, "view %s reads view %s: DROP VIEW %s first (SPEC 2.6)", vs[0], st.Name, vs[0])
		}
		if !s.Cat.DropView(st.Name) && !st.IfExists {
			return parser.Errorf(st.NamePos, "unknown view '%s' (SHOW VIEWS lists them)", st.Name)
		}
		for i, v := range s.views {
			if strings.EqualFold(v.stmt.Name, st.Name) {
				s.views = append(s.views[:i], s.views[i+1:]...)
				break
			}
		}
		return nil
	case *parser.ShowViews:
		var rows [][]string
		for _, v := range s.Cat.Views() {
			var cols []string
			for _, c := range v.Stream.Columns {
				cols = append(cols, c.Name+" "+c.Type.String())
			}
			rows = append(rows, []string{v.Name, strings.Join(cols, ", "), v.Text})
		}
		return s.Front.Result([]string{"name", "columns", "query"}, rows)
	case *parser.Select:
		drop, err := s.fileStreams(dir, st)
		if err != nil {
			return err
		}
		keep := false // a side branch reads the file's stream later
		defer func() {
			if !keep {
				drop()
			}
		}()
		if st.Side == "" && st.Stream == "" {
			p.Routes = s.branchesOf // (a join's inputs read through their branches: SPEC 2.1, 2.7)
		}
		b, err := p.PlanSelect(st)
		for _, r := range p.Branched {
			s.takeBranches(r) // (the job of the relation they route uses them up, also when planning failed: SPEC 2.1)
		}
		if err != nil {
			return err
		}
		s.warn(p, script)
		if b.Side != "" {
			// check the job it will join now, so the error points at this statement:
			// against the first pending branch of that side name only, so that
			// declaring n branches takes linear time
			check := []*planner.Branch{b}
			if prev := s.pendingSide(b.Stream, b.Side); prev != nil {
				prev.Stream = b.Stream // (one view's copies: branchesOf)
				check = []*planner.Branch{prev, b}
			}
			if err := planner.CheckPending(b.Stream, check); err != nil {
				return err
			}
			s.addPending(b)
			keep = true
			return nil
		}
		branches := s.takeBranches(b.Stream)
		job, err := s.newJob(b.Stream, branches, b, script.Source)
		if err != nil {
			return err
		}
		s.warnPendingRead(job, script, st.Start)
		return s.runJob(ctx, job)
	case *parser.Explain:
		drop, err := s.fileStreams(dir, st.Query)
		if err != nil {
			return err
		}
		defer drop()
		if st.Analyze {
			return s.explainAnalyze(ctx, p, script, st)
		}
		job, err := s.explainJob(p, script, st)
		if err != nil {
			return err
		}
		if st.JSON { // EXPLAIN (FORMAT JSON): one JSON document (SPEC 4, "Finding out why")
			doc := explainJSON(job.Tree().JSON(), explainNotes(job))
			if d, ok := s.Front.(DocumentFrontend); ok {
				return d.Document("plan", doc)
			}
			return s.Front.Result([]string{"plan"}, LineRows(doc))
		}
		rows := LineRows(job.Explain())
		for _, l := range explainNotes(job) {
			rows = append(rows, []string{l})
		}
		return s.Front.Result([]string{"plan"}, rows)
	case *parser.Run:
		return s.RunPending(ctx, script)
	case *parser.ShowStreams:
		var rows [][]string
		for _, x := range s.Cat.Streams() {
			var cols []string
			for _, c := range x.Columns {
				cols = append(cols, c.Name+" "+c.Type.String())
			}
			rows = append(rows, []string{x.Name, x.Connector.Name, fmt.Sprint(x.Bounded()), strings.Join(cols, ", ")})
		}
		return s.Front.Result([]string{"name", "connector", "bounded", "columns"}, rows)
	case *parser.ShowFunctions:
		return s.Front.Result(functionColumns, functionRows(s.Funcs))
	case *parser.ShowSides:
		var rows [][]string
		for _, b := range s.pending {
			rows = append(rows, []string{b.Side, b.Stream.Name, oneLine(b.Text)})
		}
		return s.Front.Result([]string{"side", "stream", "statement"}, rows)
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
		if st.File != "" {
			return s.describeFile(dir, st)
		}
		x := s.Cat.Lookup(st.Name)
		if x == nil {
			x = viewStream(s.Cat, st.Name)
		}
		if x == nil {
			return parser.Errorf(st.NamePos, "unknown stream '%s'", st.Name)
		}
		return s.describe(x)
	case *parser.Set:
		return s.setAndReplan(ctx, st)
	case *parser.ShowSettings:
		return s.showSettings()
	case *parser.ShowCreate:
		return s.showCreate(st)
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

// setAndReplan is set, then, when the setting changed how queries are planned
// (runtime mode, state TTL, mini-batch, column pruning, filter pushdown), replanViews: a
// view is a named query expanded where it is read (SPEC 2.6), so a reader
// planned after the SET sees the view as the same query written inline would
// be, as in Flink, not as it was planned at CREATE VIEW. When a view cannot be
// planned under the new setting, the setting is restored and the error names
// the view.
func (s *Session) setAndReplan(ctx context.Context, st *parser.Set) error {
	type planSettings struct {
		streaming, keepColumns, keepFilters, miniBatch bool
		ttl                                            time.Duration
	}
	before := planSettings{s.Streaming, s.KeepColumns, s.KeepFilters, s.MiniBatch, s.StateTTL}
	if err := s.set(st); err != nil {
		return err
	}
	if (planSettings{s.Streaming, s.KeepColumns, s.KeepFilters, s.MiniBatch, s.StateTTL}) == before {
		return nil
	}
	if err := s.replanViews(ctx); err != nil {
		s.Streaming, s.KeepColumns, s.KeepFilters, s.MiniBatch, s.StateTTL = before.streaming, before.keepColumns, before.keepFilters, before.miniBatch, before.ttl
		if err2 := s.replanViews(ctx); err2 != nil { // (planned under these settings before: cannot fail)
			return err2
		}
		return err
	}
	return nil
}

// replanViews plans every view again, in declaration order (a view reading an
// earlier one gets its new plan), under the session's current settings, and
// points the pending side branches of a view (same columns) at its new
// relation. Errors name the view.
func (s *Session) replanViews(ctx context.Context) error {
	for _, d := range s.views {
		v := s.Cat.LookupView(d.stmt.Name)
		if v == nil {
			continue
		}
		p := s.newPlanner(ctx, d.script)
		drop, err := s.viewFileStreams(d.dir, d.stmt.Rel)
		if err != nil {
			return err
		}
		st, err := p.PlanView(d.stmt)
		drop()
		if err != nil {
			var pe *parser.Error
			if errors.As(err, &pe) { // shown at the view's CREATE VIEW, in its own script
				return &parser.Error{Offset: pe.Offset, File: d.script.File, Msg: fmt.Sprintf("the SET is not applied: view %s cannot be planned under it: %s; DROP VIEW %s first, or change it", d.stmt.Name, pe.Msg, d.stmt.Name)}
			}
			return fmt.Errorf("the SET is not applied: view %s cannot be planned under it: %w", d.stmt.Name, err)
		}
		st.Name = d.stmt.Name
		for _, b := range s.pending {
			if plan.Origin(b.Stream) == v.Stream {
				b.Stream = plan.CopyRelation(st) // (the branch's own: the catalog's relation is read through copies)
			}
		}
		s.sides = nil
		s.Cat.SetViewStream(v, st) // (under the catalog's lock: another session may be reading v)
	}
	return nil
}

// set applies SET 'key' = 'value' (SPEC 3; 'state.max-bytes' from SPEC 1,
// ParseStateMaxBytes); the other keys go to the frontend (Settings.Apply).
func (s *Session) set(st *parser.Set) error {
	if st.Key == "state.max-bytes" {
		// SPEC 1: bounds the state of every stateful operator of a job
		n, err := ParseStateMaxBytes(st)
		if err != nil {
			return err
		}
		s.Env.StateMaxBytes = n
		return nil
	}
	if st.Key == planner.StateTTLKey {
		// SPEC 2.7, 2.8: Flink's key and duration syntax
		d, err := planner.ParseStateTTL(st.Value)
		if err != nil {
			return parser.Errorf(st.ValuePos, "%v", err)
		}
		s.StateTTL = d
		return nil
	}
	if st.Key == RuntimeModeKey {
		switch strings.ToLower(st.Value) {
		case "streaming":
			s.Streaming = true
		case "batch":
			s.Streaming = false
		default:
			return parser.Errorf(st.ValuePos, "'%s' takes 'streaming' (GROUP BY over a bounded stream updates as rows arrive, as in Flink) or 'batch' (each group once at the end, the default)", RuntimeModeKey)
		}
		return nil
	}
	flags := map[string]struct {
		to   *bool
		not  bool
		what string
	}{
		planner.PruneColumnsKey: {&s.KeepColumns, true, " (a join keeps only the columns the query reads, the default) or 'false' (every column)"},
		planner.PushFiltersKey:  {&s.KeepFilters, true, " (a join's conditions on one input filter that input before the join, the default) or 'false' (after the join)"},
		MiniBatchKey:            {&s.MiniBatch, false, " or 'false'"},
	}
	if f, ok := flags[st.Key]; ok {
		v, ok := map[string]bool{"true": true, "false": false}[strings.ToLower(st.Value)]
		if !ok {
			return parser.Errorf(st.ValuePos, "'%s' takes 'true'%s", st.Key, f.what)
		}
		*f.to = v != f.not
		return nil
	}
	if known, err := s.Front.Set(st); known || err != nil {
		return err
	}
	return parser.Errorf(st.KeyPos, "unknown setting '%s'; %ssettings: %s", st.Key, editdist.DidYouMean(st.Key, strings.Split(SettingKeys, ", ")), SettingKeys)
}

// branchesOf returns the pending branches of st, in declaration order, each
// pointed at st: a view's are kept by the view's relation (plan.Origin),
// each statement reading its own copy of it (plan.CopyRelation), and join
// the job of the statement that reads st.
func (s *Session) branchesOf(st *catalog.Stream) []*planner.Branch {
	var out []*planner.Branch
	o := plan.Origin(st)
	for _, b := range s.pending {
		if plan.Origin(b.Stream) == o {
			b.Stream = st
			out = append(out, b)
		}
	}
	return out
}

// warnPendingRead warns, at the statement that starts at offset at of
// script, for each stream that job reads with side branches still pending
// after it took its own (SPEC 2.1, 2.6: branches attach to the relation
// their FROM names and run with the next job whose main query reads it): a
// stream the job reads only inside a subquery, view, WITH name or UNION ALL
// (a join there too) or as a build side. Its branches do not run with the
// job, every row of the stream reaches the relation, and they run later:
// with the next query that reads the stream in its FROM, at RUN; or at the
// script's end, which reads the stream again. (They stayed pending to the
// script's end without a word.)
func (s *Session) warnPendingRead(job *planner.Job, script *parser.Script, at int) {
	wr, ok := s.Front.(Warner)
	if !ok || job == nil || len(s.pending) == 0 {
		return
	}
	opens := map[*catalog.Stream]plan.Opens{}
	job.Opens(opens, false)
	var streams []*catalog.Stream // (in the order the streams got their first branch)
	names := map[*catalog.Stream][]string{}
	for _, pb := range s.pending {
		o := plan.Origin(pb.Stream)
		if _, read := opens[o]; !read {
			continue
		}
		if names[o] == nil {
			streams = append(streams, o)
		}
		names[o] = append(names[o], "'"+pb.Side+"'")
	}
	for _, st := range streams {
		wr.Warn(script, &parser.Error{Offset: at, Msg: fmt.Sprintf("the side branches pending on %s (%s) do not run with this query: it reads %s only inside a subquery, view, WITH name or UNION ALL, or as a build side, and side branches run with the next query whose FROM names their stream (SPEC 2.1, 2.6), so every row of %s reaches this one; they run then, at RUN; or at the script's end, reading %s again. To run them now, read %s in this query's FROM, or RUN; before it",
			st.Name, strings.Join(names[st], ", "), st.Name, st.Name, st.Name, st.Name)})
	}
	s.warnPendingJoinRead(wr, opens, script, at)
}

// warnPendingJoinRead warns, at the statement that starts at offset at of
// script, for each pending side branch over a join of two streams (its FROM
// is an anonymous join, not one stream: plan.Branch.Both) that reads a
// stream the job reads (opens, Job.Opens) which can be read only once
// (no catalog.CapReread: stdin, a 'go' stream, a socket, SPEC 1). No
// later query's FROM can name that join, so the branch runs as its own
// job at RUN; or at the script's end (SPEC 2.1), and finds there only the
// rows of the stream this job leaves (none once it read stdin to its end):
// a plain stream's branch read only inside a subquery gets the same
// warning (warnPendingRead). Streams read again whole (a file) are not
// warned about: the branch's job reads every row of them.
func (s *Session) warnPendingJoinRead(wr Warner, opens map[*catalog.Stream]plan.Opens, script *parser.Script, at int) {
	for _, pb := range s.pending {
		if pb.Both == nil {
			continue
		}
		reads := map[*catalog.Stream]plan.Opens{} // (the declared streams under each input, a subquery's too)
		for _, in := range pb.Both.Inputs {
			plan.StreamOpens(in.Stream, reads, false)
		}
		var once []*catalog.Stream
		for st := range reads {
			if _, read := opens[st]; read && !st.Caps().Has(catalog.CapReread) {
				once = append(once, st)
			}
		}
		sort.Slice(once, func(i, k int) bool { return once[i].Name < once[k].Name })
		for _, st := range once {
			wr.Warn(script, &parser.Error{Offset: at, Msg: fmt.Sprintf("the side branch '%s' pending on the join of %s and %s does not run with this query: it reads a join, not one stream, so it runs as its own job at RUN; or at the script's end (SPEC 2.1), and %s can be read only once, so that job gets only the rows of %s this query leaves (none once this query reads %s to its end). To have the branch read them, RUN; before this query",
				pb.Side, pb.Both.Inputs[0].Name, pb.Both.Inputs[1].Name, st.Name, st.Name, st.Name)})
		}
	}
}

// takeBranches removes and returns the pending branches of st (a job uses them
// up, also when it fails: SPEC 2.1).
func (s *Session) takeBranches(st *catalog.Stream) []*planner.Branch {
	out := s.branchesOf(st)
	kept := s.pending[:0]
	for _, b := range s.pending {
		if b.Stream != st { // (branchesOf pointed st's at it)
			kept = append(kept, b)
		}
	}
	s.pending, s.sides = kept, nil
	return out
}

// RunPending runs one job per stream with pending branches, in the order the
// streams got their first branch (SPEC 2.1: RUN and the end of a script).
// Errors are those of Exec.
func (s *Session) RunPending(ctx context.Context, script *parser.Script) error {
	for len(s.pending) > 0 {
		st := s.pending[0].Stream
		job, err := s.newJob(st, s.takeBranches(st), nil, script.Source)
		if err != nil {
			return err
		}
		if err := s.runJob(ctx, job); err != nil {
			return err
		}
	}
	return nil
}

// runJob runs job through the frontend, which supplies its sink.
// newJob is planner.NewJob with the strategy chosen for this session's
// 'state.max-bytes' and the process's CPUs (planner.ChooseStrategy), as the
// job will run and as EXPLAIN prints it.
func (s *Session) newJob(st *catalog.Stream, branches []*planner.Branch, main *planner.Branch, src string) (*planner.Job, error) {
	job, err := planner.NewJob(st, branches, main, src)
	if err != nil {
		return nil, err
	}
	// (the TTL and mini-batch of its branches are their statements', stamped
	// when each was planned: planner's ruleSettings)
	env := planner.DefaultStrategyEnv()
	env.StateMaxBytes = s.Env.StateMaxBytes
	planner.ChooseStrategy(job, env)
	return job, nil
}

func (s *Session) runJob(ctx context.Context, job *planner.Job) error {
	return s.Front.RunJob(ctx, NewJob(job), func(newSink func() (Sink, error)) (Stats, error) {
		return executor.Run(ctx, job, s.Env, func() (executor.Sink, error) {
			sink, err := newSink()
			if sink == nil {
				return nil, err
			}
			return EngineSink(sink), err
		})
	})
}

// JobNotices returns the lines that tell how many malformed rows a job that
// ran with stats skipped or sent to a side output, one per stream that had
// some (SPEC 1, 'errors'), then one per windowed query with late rows (SPEC
// 2.4, executor.LateRows.Notice: by its position and its shortened text).
// When every row the job read from its FROM stream was malformed, one more
// line says so with the header it saw and the columns declared (allMalformed).
// The CLI prints them on stderr.
func JobNotices(j *Job, stats Stats) []string {
	job := j.Plan()
	var out []string
	if l := allMalformed(job, stats); l != "" {
		out = append(out, l)
	}
	for _, e := range stats.Streams {
		if e.Malformed == 0 {
			continue
		}
		switch e.Policy {
		case "skip":
			out = append(out, fmt.Sprintf("stream %s: %d malformed row(s) skipped", e.Stream, e.Malformed))
		case "side":
			if e.DeadLetter != "" {
				out = append(out, fmt.Sprintf("stream %s: %d malformed row(s) sent to dead-letter stream %s", e.Stream, e.Malformed, e.DeadLetter))
				continue
			}
			out = append(out, fmt.Sprintf("stream %s: %d malformed row(s) sent to side output '%s'", e.Stream, e.Malformed, e.Side))
		}
	}
	for _, l := range stats.Late { // SPEC 2.4: one line per query with late rows
		if l.Rows > 0 {
			out = append(out, LateNotice(l))
		}
	}
	return out
}

// LateNotice is the stderr line of a query with late rows (SPEC 2.4): the count,
// the query's position when known ("q.sql, line 3, column 1", as an error's,
// SPEC 4) and its text (cut to 57 characters and "..." past 60), so two
// windowed queries of one job read apart, and where the rows went.
func LateNotice(l *executor.LateRows) string {
	q := l.Query
	if utf8.RuneCountInString(q) > 60 {
		q = termtext.Shorten(q, 57)
	}
	if l.Line <= 0 {
		return fmt.Sprintf("%d late row(s) of the query %q sent to '%s'", l.Rows, q, l.Output)
	}
	at := fmt.Sprintf("line %d, column %d", l.Line, l.Column)
	if l.Script != "" {
		at = l.Script + ", " + at
	}
	return fmt.Sprintf("%d late row(s) of the query at %s (%q) sent to '%s'", l.Rows, at, q, l.Output)
}

// viewStream returns the relation of the view named name (SPEC 2.6), nil
// when there is none.
func viewStream(cat *catalog.Catalog, name string) *catalog.Stream {
	if v := cat.LookupView(name); v != nil {
		return v.Stream
	}
	return nil
}

// viewsReading returns the names of the views that read st, directly or
// through other relations (SPEC 2.6), in SHOW VIEWS' order.
func viewsReading(cat *catalog.Catalog, st *catalog.Stream) []string {
	return viewsReadingRel(cat, func(rel *catalog.Stream, _ *plan.Derived) bool { return rel == st })
}

// viewsReadingView returns the names of the other views that read the view
// called name (through any depth of relations), in declaration order. A
// view reads its own copy of another's plan (plan.CopyRelation), so the
// view read is known by its name.
func viewsReadingView(cat *catalog.Catalog, name string) []string {
	return viewsReadingRel(cat, func(_ *catalog.Stream, d *plan.Derived) bool {
		return d != nil && d.Kind == "view" && strings.EqualFold(d.Name, name)
	})
}

// viewsReadingRel returns the names of the views that read a relation
// that is (given its stream, and its derived relation or nil for a stream),
// directly or through other relations; a view's own relation is not one it
// reads.
func viewsReadingRel(cat *catalog.Catalog, is func(*catalog.Stream, *plan.Derived) bool) []string {
	var reads func(rel *catalog.Stream) bool
	reads = func(rel *catalog.Stream) bool {
		d := plan.DerivedOf(rel)
		if d == nil {
			return false
		}
		for _, part := range d.Parts {
			for _, in := range part.Streams() {
				if is(in, plan.DerivedOf(in)) || reads(in) {
					return true
				}
			}
		}
		return false
	}
	var out []string
	for _, v := range cat.Views() {
		if plan.DerivedOf(v.Stream) == nil && is(v.Stream, nil) || reads(v.Stream) {
			out = append(out, v.Name)
		}
	}
	return out
}
