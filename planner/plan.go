// Package planner binds names and types once per query, type-checks
// expressions into plan.Expr trees (the executor compiles them into kernels),
// and fuses the side branches and the main query that read one stream into one
// job with one scan and ordered first-match routing (SPEC 2.1; DESIGN:
// planner). EXPLAIN's text comes from here.
//
// It imports the parser, catalog (with catalog/functions, the function
// table's declarations) and planner/plan, and must never import an executor
// package (layering_test.go): constant expressions are folded, and a call's
// constant arguments checked, through plan.Evaluator, which executor/expr
// installs when it is linked (a test of this package imports it).
package planner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/catalog"
	"streamql/catalog/functions"
	"streamql/parser"
	"streamql/planner/plan"
)

// Planner compiles statements against a catalog.
type Planner struct {
	Cat    *catalog.Catalog
	Source string // text of the script the statements come from
	// Script is that script's name ("" when unknown, as the REPL's): every
	// branch PlanSelect plans, the queries inside a subquery, WITH name, view
	// or FROM of three relations too, carries it with its line and column,
	// for the late-rows notice (SPEC 2.4, SPEC 4's positions).
	Script string
	// Ctx, when not nil, cancels a long planning: PlanSelect checks it every few
	// hundred AST nodes and returns its error (context.Canceled after Ctrl-C).
	Ctx context.Context
	// Funcs, when not nil, are the session's user-defined functions (SPEC
	// 2.10), bound next to the built-in function table.
	Funcs *functions.Registry
	// Streaming is SET 'execution.runtime-mode' = 'streaming' (Flink's key,
	// SPEC 2.8): GROUP BY without a window and global aggregates are updating
	// over bounded streams too, as in Flink's streaming mode, instead of
	// emitting each group once at the stream's end (SPEC 2.4, the default).
	Streaming bool
	// StateTTL is SET 'table.exec.state.ttl' (ParseStateTTL; 0 none): the
	// plan nodes that honour it get it (plan.BothJoin.StateTTL; an updating
	// aggregate's and a Top-N's or deduplication's, ruleSettings).
	StateTTL time.Duration
	// MiniBatch is SET 'table.exec.mini-batch.enabled' (Flink's key, SPEC
	// 2.8): an updating aggregate folds each batch's changes per key
	// (plan.Aggregate.MiniBatch, ruleSettings).
	MiniBatch bool
	// KeepColumns turns column pruning off (SET 'planner.prune-columns' =
	// 'false'; rule_prune_columns.go): a join then holds every column of its
	// inputs. The outputs are the same either way; tests compare the two.
	KeepColumns bool
	// KeepFilters turns filter pushdown off (SET 'planner.push-filters' =
	// 'false'; rule_pushdown.go): a join's conditions on one input are then
	// tested after the join. The outputs are the same either way.
	KeepFilters bool
	// Warnings are what planning found that runs but cannot be what the
	// query means, each once, positioned at the text it is about (offsets
	// into Source): a join whose time bounds leave no interval, which
	// joins no pair (Flink plans it so and warns too). The session shows
	// them on stderr when the query runs; EXPLAIN shows them in the plan.
	Warnings []*parser.Error
	// Routes, when not nil, returns the side branches pending on st (a
	// stream or a view's relation), without taking them: a statement's
	// main query that joins st with another relation (SPEC 2.7) reads st
	// through them, as a relation whose rows are those no branch took
	// (routedRelation, SPEC 2.1's probe side, 2.6). The session sets it for
	// a main query; nil plans joins of the relations as they are.
	Routes func(st *catalog.Stream) []*Branch
	// Branched are the relations whose pending branches (Routes) the last
	// planned statement attached, in FROM order: the session takes those
	// branches when it runs the statement.
	Branched []*catalog.Stream
	// scopes are the names the SELECTs being planned make visible
	// (subqueries and WITH definitions, SPEC 2.6), innermost last.
	scopes []relScope
	// boundTopNs are the FROM entries that read a ranked subquery or WITH
	// definition whose rank the outer query's WHERE bounds (topNInFrom):
	// each reads the relation that is the Top-N with that bound instead
	// (derivedSource). Keyed by the entry's name node, made lazily.
	boundTopNs map[*ast.TableName]boundTopN
	// simplerRels are the FROM entries that read a subquery or WITH name
	// whose outer joins the reading query's WHERE simplifies
	// (simplifyOuterJoinsByWhere): each reads that copy of the relation
	// instead (derivedSource). Keyed by the entry's name node, made lazily.
	simplerRels map[*ast.TableName]*parser.Relation
	// relFiles are the relations of another script than Source (a ranked
	// view's query, read where its reader bounds its rank: viewQuery,
	// readView):
	// planRelation plans each with its script's text as Source (the
	// names and texts of its expressions) and attaches its errors to it.
	relFiles map[*parser.Relation]*parser.File
	// viewFiles are the streams of the files such a view reads by a quoted
	// name (viewQuery.files), which source finds when the catalog has
	// them no longer
	viewFiles map[string]*catalog.Stream
	// rankReads holds, for each Top-N query the planner wrote for a query
	// over it (topNThenFilter, topNInFrom: SELECT * FROM (…) WHERE rn <= N),
	// where that query reads the rank (its * or rn in its text), nil when
	// it does not: a deduplication keeping the first row's * then selects
	// the columns without the rank (it gives none; a Top-N keeps it, its
	// changes as before), and an error about the rank points at the user's
	// text (markRank).
	rankReads map[*parser.Select]ast.Node
	// selects counts the PlanSelect calls in progress: 1 while a
	// statement's own SELECT is planned, more inside its subqueries, WITH
	// definitions, views and ranked queries (selectPlan.top)
	selects int
	// fromReads are the FROM entries the statement being planned resolved,
	// at any depth, in the order resolved: where each is and the relation
	// it reads (ruleReadOnce points at one of them). Reset when a
	// statement's own SELECT starts.
	fromReads []fromRead
	// views are the copies of the views' relations this planner read
	// (catalog.View.Stream to its plan.CopyRelation), one per view, so a
	// statement reading a view twice reads one relation, as before the
	// copy; viewCopies holds the same copies, to tell them from relations
	// planned for the statement (pruneDerived)
	views      map[*catalog.Stream]*catalog.Stream
	viewCopies map[*catalog.Stream]bool
}

// oneRelation points each of branches and main that reads a copy of the
// view st is a copy of (plan.Origin: each statement, planned apart, reads
// its own, plan.CopyRelation) at st, so that the job reads one relation,
// as its rules (ruleInlineView, ruleFuseRankAggSides) and the executor
// expect of a job's branches.
func oneRelation(st *catalog.Stream, branches []*Branch, main *Branch) {
	o := plan.Origin(st)
	if o == st {
		return
	}
	point := func(b *Branch) {
		if b != nil && b.Stream != st && plan.Origin(b.Stream) == o {
			b.Stream = st
		}
	}
	for _, b := range branches {
		point(b)
	}
	point(main)
}

// viewRelation returns the planner's own copy of st, the relation of a
// view of the catalog (plan.CopyRelation: planning writes into the jobs of
// what it reads, and the catalog's view is read by every query, in every
// session over the catalog, at once).
func (p *Planner) viewRelation(st *catalog.Stream) *catalog.Stream {
	if c, ok := p.views[st]; ok {
		return c
	}
	if p.views == nil {
		p.views, p.viewCopies = map[*catalog.Stream]*catalog.Stream{}, map[*catalog.Stream]bool{}
	}
	c := plan.CopyRelation(st)
	p.views[st], p.viewCopies[c] = c, true
	return c
}

func batchLayout(st *catalog.Stream) ([]catalog.Type, int) {
	types := st.Types()
	wm := -1
	if st.Watermark != nil {
		wm = len(types)
		types = append(types, st.Columns[st.EventTime].Type)
		if d := plan.DerivedOf(st); d != nil && d.Stamps && d.StreamWatermarks {
			// the stream's watermark before and after each row (plan.Derived.StreamWatermarks)
			types = append(types, st.Columns[st.EventTime].Type, st.Columns[st.EventTime].Type)
		}
	}
	return types, wm
}

// PlanSelect binds and type-checks a SELECT (side branch or main query) and
// returns its compiled branch, by the rules of selectRules in order. Errors are
// *parser.Error at the offending token: unknown stream or column, type errors,
// unsupported clauses; a cancelled p.Ctx gives its error.
func (p *Planner) PlanSelect(sel *parser.Select) (*Branch, error) {
	if p.Ctx != nil && p.Ctx.Err() != nil {
		return nil, p.Ctx.Err()
	}
	if p.selects == 0 {
		p.fromReads = p.fromReads[:0]
	}
	if s, ok := distinctOverGroups(sel); ok { // DISTINCT over grouped rows (rule_distinct.go)
		sel = s
	}
	if s, ok := groupsOverTopN(sel); ok { // GROUP BY, HAVING or DISTINCT over a bounded Top-N (rule_rank.go)
		sel = s
	}
	sel = p.simplifyOuterJoinsByWhere(sel) // an outer join whose padded rows the WHERE drops (rule_simplify_outer_join.go)
	sel, err := p.topNInFrom(sel)          // a ranked subquery or WITH name bound by the outer WHERE (rule_rank_filter.go)
	if err != nil {
		return nil, err
	}
	defer p.enterScope(sel)()
	p.selects++
	defer func() { p.selects-- }()
	if b, ok, err := p.ruleRank(sel); ok { // SPEC 2.9's shapes (rule_rank.go)
		if err == nil {
			err = p.ruleReadOnce(b)
		}
		if err == nil {
			p.ruleSettings(b)
		}
		return b, err
	}
	sp := &selectPlan{p: p, sel: sel, q: sel.Query, ticks: &ticker{ctx: p.Ctx}, top: p.selects == 1, route: p.selects == 1}
	sp.start, _ = sel.Span()
	for _, r := range selectRules {
		if err := r.apply(sp); err != nil {
			return nil, err
		}
	}
	if err := p.ruleReadOnce(sp.b); err != nil {
		return nil, err
	}
	p.ruleSettings(sp.b) // (the settings of this statement: rule_settings.go)
	return sp.b, nil
}

// warn adds w to p.Warnings unless a warning with its offset and text is
// there already (a relation planned twice warns once).
func (p *Planner) warn(w *parser.Error) {
	for _, o := range p.Warnings {
		if o.Offset == w.Offset && o.Msg == w.Msg {
			return
		}
	}
	p.Warnings = append(p.Warnings, w)
}

// enterScope opens the scope of relations sel declares (its subqueries in
// FROM and WITH names, SPEC 2.6) for the names it reads, and returns what
// closes it again.
func (p *Planner) enterScope(sel *parser.Select) (leave func()) {
	n := len(p.scopes)
	if sel.Derived != nil || sel.With != nil {
		p.scopes = append(p.scopes, relScope{derived: sel.Derived, ctes: sel.With})
	}
	return func() { p.scopes = p.scopes[:n] }
}

// selectPlan is the state of one PlanSelect that its rules read and fill.
type selectPlan struct {
	p     *Planner
	sel   *parser.Select
	q     *ast.SelectStmt
	start int // offset of the statement, for errors with no node
	ticks *ticker
	// top is set for a statement's own SELECT (not a relation it reads, a
	// ranked query's inner one or a FROM of three relations' inner join),
	// whose compiled expressions are every reader of its rows: column
	// pruning then passes on only what they read (rulePruneColumns)
	top bool
	// route is set for the statement's own query, also as a Top-N's,
	// ORDER BY's or OVER's inner query (planInner), not for a relation it
	// reads: its join's inputs read a stream through the side branches
	// pending on it (routeJoined, SPEC 2.1, 2.6)
	route bool
	// distinct is set by ruleDistinct when it wrote SELECT DISTINCT as a
	// GROUP BY, so that errors about those keys name what the query wrote.
	distinct bool
	// set by ruleFrom
	st       *catalog.Stream
	name     string // the alias or name the query reads st by
	join     *ast.Join
	rightTS  *ast.TableSource // the right side of an explicit SEMI/ANTI JOIN
	joinMode JoinMode
	wm       int // batch column of CURRENT_WATERMARK, -1 when none
	sc       *scope
	// set by ruleBothJoin for a join whose output has both sides' columns
	// (SPEC 2.7): the join, and for a comma join the WHERE conjuncts its
	// condition took
	both     *plan.BothJoin
	consumed map[ast.ExprNode]bool
	// sideRels are the relations of a join's side that is itself a join (a
	// FROM of more than two relations, rule_join_multi.go), at their offsets
	// in that side's rows; nil for a side that is one relation. resolved
	// holds the FROM entries already resolved, shared with those joins.
	sideRels [2][]relation
	resolved map[*ast.TableSource]fromLeaf
	// set by ruleFrom for CROSS JOIN UNNEST (SPEC 2.10; rule_unnest.go)
	unnest   *plan.Unnest
	keyNodes [2][]joinKeyNode // a join's computed keys, per input
	// set by ruleExplicitJoin and ruleInToSemiJoin
	j    *Join
	rest []ast.ExprNode // WHERE conjuncts that stay the branch's WHERE
	// set by ruleWhere and the rules after it
	b       *Branch
	fieldOf []ast.Node // the select field each output column comes from
	// untyped marks the output expressions that were a NULL of no type (a bare
	// NULL) made VARCHAR for stdout: a sink column of any type takes them
	untyped map[*Expr]bool
	// set by ruleWindow and ruleAggregate (SPEC 2.4)
	win *Window
	agg *Aggregate
}

// markUntyped records that output expression e is a NULL of no type made
// VARCHAR (see selectPlan.untyped).
func (sp *selectPlan) markUntyped(e *Expr) {
	if sp.untyped == nil {
		sp.untyped = map[*Expr]bool{}
	}
	sp.untyped[e] = true
}

// pos returns the script offset of n, or of the statement when n is nil or the
// statement has no locator.
func (sp *selectPlan) pos(n ast.Node) int {
	if n == nil || sp.sel.Locate == nil {
		return sp.start
	}
	return sp.sel.Locate(n)
}

// selectRule is one named step of planning a SELECT (DESIGN: planner, rules one
// per file).
type selectRule struct {
	name  string
	apply func(sp *selectPlan) error
}

// selectRules are PlanSelect's steps in order; each lives in its rule_….go file.
var selectRules []selectRule

// (set in init: a rule plans subqueries through PlanSelect, SPEC 2.6)
func init() { selectRules = rules() }

func rules() []selectRule {
	return []selectRule{
		{"unsupported_clauses", ruleUnsupportedClauses},
		{"join_using", ruleJoinUsing},
		{"from", ruleFrom},
		{"window", ruleWindow},
		{"explicit_join", ruleExplicitJoin},
		{"in_to_semijoin", ruleInToSemiJoin},
		{"pushdown", rulePushdown},
		{"join_extreme", ruleJoinExtreme},
		{"where", ruleWhere},
		{"distinct", ruleDistinct},
		{"aggregate", ruleAggregate},
		{"projection", ruleProjection},
		{"output_names", ruleOutputNames},
		{"sink", ruleSink},
		{"limit", ruleLimit},
		{"updating_source", ruleUpdatingSource},
		{"prune_columns", rulePruneColumns},
	}
}

// source resolves a FROM entry to its stream and the name it goes by.
func (p *Planner) source(ts *ast.TableSource, pos func(ast.Node) int) (*catalog.Stream, string, error) {
	tn, ok := ts.Source.(*ast.TableName)
	if !ok {
		return nil, "", parser.Errorf(pos(ts), "FROM needs a stream, a view, a WITH name or a subquery (SELECT ...) AS name here; a LATERAL subquery (correlated with the FROM before it) is not supported: join the relation on its key instead")
	}
	if tn.Schema.O != "" {
		return nil, "", parser.Errorf(pos(tn), "stream names have no schema part: write %s", tn.Name.O)
	}
	st, err := p.derivedSource(tn, pos(tn)) // a subquery, WITH name or view (SPEC 2.6)
	if err != nil {
		return nil, "", err
	}
	if st == nil {
		st = p.Cat.Lookup(tn.Name.O)
	}
	if st == nil {
		st = p.viewFiles[tn.Name.O] // (a ranked view's FROM 'x.csv', planned where it is read)
	}
	if st == nil {
		return nil, "", parser.Errorf(pos(tn), "unknown stream '%s'; %s", tn.Name.O, p.streamList())
	}
	p.fromReads = append(p.fromReads, fromRead{pos: pos(ts), st: st})
	name := st.Name
	if ts.AsName.O != "" {
		name = ts.AsName.O
	}
	return st, name, nil
}

// twoScope is the scope of a semi or anti join's condition: the probe
// side's relations (left's: one stream, or the inputs of a join of two
// streams at their offsets in the joined batch), then the build stream,
// the last relation, after them; buildWins says that the build stream wins
// an unqualified name it shares with the probe side (a subquery's own
// stream, as in SQL), else such a name is ambiguous.
func (p *Planner) twoScope(left *scope, right *catalog.Stream, name string, buildWins bool) *scope {
	two := *left
	width := 0 // (past every probe column: sides tells the two apart by it)
	for _, r := range left.rels {
		width = max(width, r.offset+len(r.stream.Columns))
	}
	two.rels = append(slices.Clip(left.rels), relation{stream: right, name: name, offset: width})
	two.prefer = -1
	if buildWins {
		two.prefer = len(two.rels) - 1
	}
	two.hidden = ""
	return &two
}

func (p *Planner) text(sel *parser.Select) string {
	s, e := sel.Span()
	if s >= 0 && e <= len(p.Source) && s <= e {
		return p.Source[s:e]
	}
	return ""
}

func (p *Planner) streamList() string {
	ss := p.Cat.Streams()
	if len(ss) == 0 {
		return "no streams are declared yet (CREATE STREAM ...)"
	}
	var n []string
	for _, s := range ss {
		n = append(n, s.Name)
	}
	return "declared streams: " + strings.Join(n, ", ")
}

// NewJob fuses side branches and an optional main query over one stream into a
// job (SPEC 2.1): outputs are main, then the side names in declaration order; two
// branches may share a side name only with the same schema; a side may not be
// named like the errors side output of any stream the job reads, probe or build
// side (SPEC 1, Bad input). Errors are *parser.Error. It takes time linear in the
// branches (and their columns). src is not used any more: the WATERMARK
// expression is compiled against its own script (CompileWatermark).
func NewJob(st *catalog.Stream, branches []*Branch, main *Branch, src string) (*Job, error) {
	return newJob(st, branches, main, true)
}

// CheckPending returns NewJob's error for a job of the side branches
// branches over st with no main query (the check a session makes when a
// side branch is declared, so that its error points at it), except the
// replay refusal (ruleReplayJob) when st is a view: a main query over the
// view that comes later may plan them in one replayed job with it
// (ruleFuseRankAggSides), and the job that runs them is checked then.
func CheckPending(st *catalog.Stream, branches []*Branch) error {
	_, err := newJob(st, branches, nil, plan.DerivedOf(st) == nil)
	return err
}

// newJob is NewJob, with the replay refusal (ruleReplayJob) when replay is
// true.
func newJob(st *catalog.Stream, branches []*Branch, main *Branch, replay bool) (*Job, error) {
	oneRelation(st, branches, main)
	st, branches, main = ruleFuseJoinWindow(st, branches, main)
	st, branches, main = ruleInlineView(st, branches, main)
	st, main = ruleFuseRankAgg(st, branches, main)
	st, branches, main, fanout := ruleFuseRankAggSides(st, branches, main)
	st, main = ruleFuseRankCalc(st, branches, main)
	types, wm := batchLayout(st)
	j := &Job{Stream: st, Branches: branches, Main: main, BatchTypes: types, WatermarkCol: wm, Fanout: fanout}
	if main != nil {
		main.Output = 0
		j.Outputs = append(j.Outputs, Output{Name: "main", Columns: main.Columns, Sink: main.Sink})
	}
	if err := ruleSideNames(j); err != nil {
		return nil, err
	}
	if err := ruleAggregateJob(j); err != nil {
		return nil, err
	}
	if err := ruleSinkJob(j); err != nil {
		return nil, err
	}
	if err := ruleBothJoinJob(j); err != nil {
		return nil, err
	}
	ruleDerivedJob(j)
	ruleUnnestJob(j)
	ruleRankJob(j)
	ruleJoinSwapJob(j)
	ruleChangelogJob(j)
	if err := ruleReadOnceJob(j); err != nil {
		return nil, err
	}
	ruleTeeJob(j)
	ruleReaderWindowsJob(j)
	if err := ruleReplayJob(j); err != nil && replay {
		return nil, err
	}
	if st.Watermark != nil {
		e, err := CompileWatermark(st)
		if err != nil {
			return nil, err
		}
		j.Watermark = e
	}
	ChooseStrategy(j, DefaultStrategyEnv()) // the session chooses again with its 'state.max-bytes'
	return j, nil
}

// Watermark is the catalog's form of a parsed WATERMARK FOR clause (SPEC 2.3):
// its text, and the clause itself as the planner's own form (CompileWatermark
// reads it); nil for nil.
func Watermark(w *parser.Watermark) *catalog.Watermark {
	if w == nil {
		return nil
	}
	return &catalog.Watermark{Text: w.Text, Def: w}
}

// ValidateOptions is catalog.ValidateOptions over a CREATE STREAM's parsed
// WITH options (stmtPos: the offset of its WITH), with its *catalog.PosError
// made a *parser.Error at the same offset (the caller's script positions it:
// line, column, caret).
func ValidateOptions(opts []parser.Option, cols []catalog.Column, stmtPos int) (*catalog.ConnectorSpec, map[string]string, error) {
	co := make([]catalog.Option, len(opts))
	for i, o := range opts {
		co[i] = catalog.Option{Key: o.Key, Value: o.Value, KeyPos: o.KeyPos, ValuePos: o.ValuePos}
	}
	spec, vals, err := catalog.ValidateOptions(co, cols, stmtPos)
	var pe *catalog.PosError
	if errors.As(err, &pe) {
		return nil, nil, parser.Errorf(pe.Pos, "%s", pe.Msg)
	}
	return spec, vals, err
}

// CompileWatermark type-checks and compiles st's WATERMARK expression (SPEC 2.3)
// over st's columns; st.Watermark must not be nil. The expression must have the
// event-time column's type. Errors are *parser.Error whose File is the script
// that declared the stream (Watermark.File), so a caret points into it, not into
// the script of the query that reads the stream.
func CompileWatermark(st *catalog.Stream) (*Expr, error) {
	if e, ok := st.Watermark.Def.(*Expr); ok { // a derived relation's (SPEC 2.6: rule_derived.go)
		return e, nil
	}
	w := st.Watermark.Def.(*parser.Watermark)
	sc := &scope{rels: []relation{{stream: st, name: st.Name}}, locate: w.Locate, casts: w.Casts, src: w.File.Source(),
		watermark: func(int) int { return -1 }}
	e, err := sc.compile(w.Expr)
	if err == nil {
		if et := st.Columns[st.EventTime].Type; e.Type != et {
			err = parser.Errorf(w.Pos, "the WATERMARK expression has type %s but %s is %s", e.Type, st.Columns[st.EventTime].Name, et)
		}
	}
	if err != nil {
		return nil, w.File.Attach(err)
	}
	return e, nil
}

// CompileComputed type-checks and compiles the expression f of a computed
// column (SPEC 1: name AS expr, Flink's form) over phys, the stream's columns
// read from the input (a computed column reads no other computed column, as in
// Flink). Errors are *parser.Error in the script that declares the stream.
func CompileComputed(phys *catalog.Stream, f *parser.Fragment) (*Expr, error) {
	sc := &scope{rels: []relation{{stream: phys, name: phys.Name}}, locate: f.Locate, casts: f.Casts, src: f.File.Source(),
		watermark: func(int) int { return -1 }}
	e, err := sc.compile(f.Expr)
	if err == nil && e.Type == catalog.Unknown {
		err = parser.Errorf(f.Pos, "the type of computed column expression %s is unknown (a bare NULL): CAST it, e.g. CAST(NULL AS BIGINT)", f.Text)
	}
	if err != nil {
		return nil, f.File.Attach(err)
	}
	return e, nil
}

func sameSchema(a, b []catalog.Column) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Type != b[i].Type {
			return false
		}
	}
	return true
}
