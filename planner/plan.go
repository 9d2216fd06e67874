// Package planner binds names and types once per query, compiles expressions into
// closures over column batches, and fuses the side branches and the main query
// that read one stream into one job with one scan and ordered first-match routing
// (SPEC 2.1; DESIGN: planner). EXPLAIN's text comes from here.
package planner

import (
	"context"
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/parser"
)

// Output is one output of a job: main or a side output, with its schema.
type Output struct {
	Name    string // "main", the side name, or the sink stream's name
	Columns []catalog.Column
	// Sink is the sink stream the output's rows go to (INSERT INTO, INTO
	// STREAM: SPEC 2.5) instead of stdout or a side output; nil for those.
	Sink *catalog.Stream
	// Late marks the default late output of windowed queries (SPEC 2.4):
	// like errors, not a side output of the job for rendering, shown only
	// once a row reaches it.
	Late bool
}

// Branch is one compiled SELECT: a side branch (Side != "") or the main query. It
// reads the job's source batch; Where (nil = always true) decides whether it takes
// a row, Project computes the output columns.
type Branch struct {
	Side    string
	SidePos int
	Stream  *catalog.Stream
	Where   *Expr
	Project []*Expr
	Columns []catalog.Column
	Limit   int64 // main only; -1 = none
	Join    *Join // nil when the branch does not filter by another stream
	// Uses marks the source batch columns (Job.BatchTypes) that the branch's
	// WHERE, projection and join read; the other columns of a held row need
	// not be kept (SPEC 2.2, event-time strategy).
	Uses   []bool
	Text   string
	Output int // index into Job.Outputs, set by NewJob
	// Sink is the stream the branch's rows go to (SPEC 2.5: INSERT INTO for the
	// main query, INTO STREAM for a side branch, whose Side is then the sink's
	// name), nil for stdout and side outputs; SinkPos is the offset of its name.
	// Columns are then the sink's columns.
	Sink    *catalog.Stream
	SinkPos int
	// DeadLetters maps each stream the branch reads that has 'errors.stream'
	// to that dead-letter sink stream (SPEC 2.5).
	DeadLetters map[*catalog.Stream]*catalog.Stream
	// Agg is the branch's window TVF and aggregation (SPEC 2.4,
	// rule_aggregate.go), nil when it has neither; Project and Columns then
	// read the aggregate row (or the windowed batch).
	Agg *Aggregate
}

// Job is the physical plan of one scan of a stream: the source, its watermark,
// the side branches in declaration order and the main query (SPEC 2.1).
type Job struct {
	Stream   *catalog.Stream
	Branches []*Branch // side branches, in declaration order
	Main     *Branch   // nil when the job runs pending branches only (RUN)
	Outputs  []Output  // main first when there is a main query, then sides in declaration order
	// Watermark is the compiled WATERMARK expression over the source batch, nil
	// when the stream has none; WatermarkCol is the batch column that holds each
	// row's CURRENT_WATERMARK (the watermark before the row), -1 when none.
	Watermark    *Expr
	WatermarkCol int
	// BatchTypes are the types of the source batch's columns: the stream's
	// columns, then the watermark column when there is one.
	BatchTypes []catalog.Type
	// DeadLetters maps each stream the job reads that has 'errors.stream' to
	// its dead-letter sink stream (SPEC 2.5); nil when none.
	DeadLetters map[*catalog.Stream]*catalog.Stream
}

// HasSides reports whether the job has side outputs, which decides how line
// formats print (SPEC 4: decided when planned, even if a branch gets no rows).
// A branch into a sink stream (INTO STREAM, SPEC 2.5) is not a side output.
func (j *Job) HasSides() bool {
	for _, b := range j.Branches {
		if b.Sink == nil {
			return true
		}
	}
	for _, b := range append(j.Branches[:len(j.Branches):len(j.Branches)], j.Main) { // LATE INTO SIDE (SPEC 2.4)
		if b != nil && b.Agg != nil && b.Agg.LateNamed {
			return true
		}
	}
	return false
}

// Planner compiles statements against a catalog.
type Planner struct {
	Cat    *catalog.Catalog
	Source string // text of the script the statements come from
	// Ctx, when not nil, cancels a long planning: PlanSelect checks it every few
	// hundred AST nodes and returns its error (context.Canceled after Ctrl-C).
	Ctx context.Context
}

func batchLayout(st *catalog.Stream) ([]catalog.Type, int) {
	types := st.Types()
	wm := -1
	if st.Watermark != nil {
		wm = len(types)
		types = append(types, st.Columns[st.EventTime].Type)
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
	sp := &selectPlan{p: p, sel: sel, q: sel.Query, ticks: &ticker{ctx: p.Ctx}}
	sp.start, _ = sel.Span()
	for _, r := range selectRules {
		if err := r.apply(sp); err != nil {
			return nil, err
		}
	}
	return sp.b, nil
}

// selectPlan is the state of one PlanSelect that its rules read and fill.
type selectPlan struct {
	p     *Planner
	sel   *parser.Select
	q     *ast.SelectStmt
	start int // offset of the statement, for errors with no node
	ticks *ticker
	// set by ruleFrom
	st       *catalog.Stream
	name     string // the alias or name the query reads st by
	join     *ast.Join
	rightTS  *ast.TableSource // the right side of an explicit SEMI/ANTI JOIN
	joinMode JoinMode
	wm       int // batch column of CURRENT_WATERMARK, -1 when none
	sc       *scope
	// set by ruleExplicitJoin and ruleInToSemiJoin
	j    *Join
	rest []ast.ExprNode // WHERE conjuncts that stay the branch's WHERE
	// set by ruleWhere and the rules after it
	b       *Branch
	fieldOf []ast.Node // the select field each output column comes from
	// set by ruleWindow and ruleAggregate (SPEC 2.4)
	win *Window
	agg *Aggregate
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
var selectRules = []selectRule{
	{"unsupported_clauses", ruleUnsupportedClauses},
	{"from", ruleFrom},
	{"window", ruleWindow},
	{"explicit_join", ruleExplicitJoin},
	{"in_to_semijoin", ruleInToSemiJoin},
	{"where", ruleWhere},
	{"aggregate", ruleAggregate},
	{"projection", ruleProjection},
	{"output_names", ruleOutputNames},
	{"sink", ruleSink},
	{"limit", ruleLimit},
}

// source resolves a FROM entry to its stream and the name it goes by.
func (p *Planner) source(ts *ast.TableSource, pos func(ast.Node) int) (*catalog.Stream, string, error) {
	tn, ok := ts.Source.(*ast.TableName)
	if !ok {
		return nil, "", parser.Errorf(pos(ts), "FROM needs a stream name (subqueries in FROM are not supported)")
	}
	if tn.Schema.O != "" {
		return nil, "", parser.Errorf(pos(tn), "stream names have no schema part: write %s", tn.Name.O)
	}
	st := p.Cat.Lookup(tn.Name.O)
	if st == nil {
		return nil, "", parser.Errorf(pos(tn), "unknown stream '%s'; %s", tn.Name.O, p.streamList())
	}
	name := st.Name
	if ts.AsName.O != "" {
		name = ts.AsName.O
	}
	return st, name, nil
}

// twoScope is the scope of a join condition: the probe stream, then the build
// stream; prefer (0 or 1, -1 none) says which wins an unqualified name found in
// both (a subquery's own stream, as in SQL).
func (p *Planner) twoScope(left *scope, right *catalog.Stream, name string, prefer int) *scope {
	two := *left
	two.rels = []relation{left.rels[0], {stream: right, name: name, offset: len(left.rels[0].stream.Columns)}}
	two.prefer = prefer
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

func colEval(idx int) func(b *vector.Batch, _ []int32) *vector.Vec {
	return func(b *vector.Batch, _ []int32) *vector.Vec { return b.Cols[idx] }
}

// NewJob fuses side branches and an optional main query over one stream into a
// job (SPEC 2.1): outputs are main, then the side names in declaration order; two
// branches may share a side name only with the same schema; a side may not be
// named like the errors side output of any stream the job reads, probe or build
// side (SPEC 1, Bad input). Errors are *parser.Error. It takes time linear in the
// branches (and their columns). src is not used any more: the WATERMARK
// expression is compiled against its own script (CompileWatermark).
func NewJob(st *catalog.Stream, branches []*Branch, main *Branch, src string) (*Job, error) {
	types, wm := batchLayout(st)
	j := &Job{Stream: st, Branches: branches, Main: main, BatchTypes: types, WatermarkCol: wm}
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
	if st.Watermark != nil {
		e, err := CompileWatermark(st)
		if err != nil {
			return nil, err
		}
		j.Watermark = e
	}
	return j, nil
}

// Streams returns the streams the job reads, each once: its probe stream, then
// the build side of every branch's join, in branch order (side branches, then
// main).
func (j *Job) Streams() []*catalog.Stream {
	out := []*catalog.Stream{j.Stream}
	add := func(b *Branch) {
		if b == nil || b.Join == nil {
			return
		}
		for _, s := range out {
			if s == b.Join.Build {
				return
			}
		}
		out = append(out, b.Join.Build)
	}
	for _, b := range j.Branches {
		add(b)
	}
	add(j.Main)
	return out
}

// CompileWatermark type-checks and compiles st's WATERMARK expression (SPEC 2.3)
// over st's columns; st.Watermark must not be nil. The expression must have the
// event-time column's type. Errors are *parser.Error whose File is the script
// that declared the stream (Watermark.File), so a caret points into it, not into
// the script of the query that reads the stream.
func CompileWatermark(st *catalog.Stream) (*Expr, error) {
	w := st.Watermark
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

func schemaText(cols []catalog.Column) string {
	var parts []string
	for _, c := range cols {
		parts = append(parts, c.Name+" "+c.Type.String())
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// Explain renders the job's plan as stable text (SPEC 3: sources, decode,
// watermark, process with its ordered branches, sinks).
func (j *Job) Explain() string {
	var sb strings.Builder
	st := j.Stream
	fmt.Fprintf(&sb, "Source: %s (connector=%s", st.Name, st.Connector.Name)
	if path := st.Options["path"]; path != "" {
		fmt.Fprintf(&sb, ", path=%s", path)
	}
	bounded := "bounded"
	if !st.Bounded() {
		bounded = "unbounded"
	}
	fmt.Fprintf(&sb, ", %s)\n", bounded)
	if f := st.Options["format"]; f != "" {
		fmt.Fprintf(&sb, "  Decode: %s %s, errors=%s", f, schemaText(st.Columns), st.Options["errors"])
		if dlq := j.DeadLetters[st]; dlq != nil {
			fmt.Fprintf(&sb, " -> %s", SinkText(dlq))
		} else if st.Options["errors"] == "side" {
			fmt.Fprintf(&sb, " -> side output '%s'", st.Options["errors.side"])
		}
		sb.WriteString("\n")
	}
	if st.Watermark != nil {
		fmt.Fprintf(&sb, "  Watermark: %s AS %s\n", st.Columns[st.EventTime].Name, st.Watermark.Text)
	}
	then := ", then main"
	if j.Main == nil {
		then = ""
	}
	fmt.Fprintf(&sb, "  Process: first match of %d side branch(es)%s\n", len(j.Branches), then)
	for i, b := range j.Branches {
		if b.Sink != nil {
			fmt.Fprintf(&sb, "    %d. into stream %s: %s\n", i+1, b.Sink.Name, b.describe())
		} else {
			fmt.Fprintf(&sb, "    %d. side '%s': %s\n", i+1, b.Side, b.describe())
		}
		b.describeJoin(&sb)
		b.describeAgg(&sb, j.Outputs)
	}
	if j.Main != nil {
		fmt.Fprintf(&sb, "    main: %s", j.Main.describe())
		if j.Main.Limit >= 0 {
			fmt.Fprintf(&sb, " LIMIT %d", j.Main.Limit)
		}
		sb.WriteString("\n")
		j.Main.describeJoin(&sb)
		j.Main.describeAgg(&sb, j.Outputs)
	} else {
		sb.WriteString("    (no main query: rows no branch takes are discarded)\n")
	}
	for k, o := range j.Outputs {
		dest := "stdout"
		switch {
		case o.Sink != nil:
			dest = SinkText(o.Sink)
		case o.Late:
			dest = "late output (shown once a row reaches it)"
		case j.Main == nil || k > 0:
			dest = "side output '" + o.Name + "'"
		}
		fmt.Fprintf(&sb, "  Sink: %s %s -> %s\n", o.Name, schemaText(o.Columns), dest)
	}
	return sb.String()
}

// SinkText describes a sink stream for EXPLAIN (SPEC 2.5): "sink s (file
// out.csv, csv)": its connector, its path or topic when it has one, its format.
func SinkText(st *catalog.Stream) string {
	parts := []string{st.Connector.Name}
	if p := st.Options["path"]; p != "" {
		parts[0] += " " + p
	} else if t := st.Options["topic"]; t != "" {
		parts[0] += " " + t
	}
	if f := st.Options["format"]; f != "" {
		parts = append(parts, f)
	}
	if m := st.Options["sink.mode"]; m == "append" {
		parts = append(parts, m)
	}
	return "sink " + st.Name + " (" + strings.Join(parts, ", ") + ")"
}

// describeJoin writes the branch's join, if any, under the branch's line.
func (b *Branch) describeJoin(sb *strings.Builder) {
	if b.Join == nil {
		return
	}
	for _, l := range b.Join.Describe(b.Stream.Name) {
		sb.WriteString("      " + l + "\n")
	}
}

func (b *Branch) describe() string {
	var cols []string
	for i, e := range b.Project {
		c := b.Columns[i].Name
		if e.Text != "" && e.Text != c {
			c = e.Text + " AS " + c
		}
		cols = append(cols, c)
	}
	s := "project " + strings.Join(cols, ", ")
	if b.Where != nil {
		s = "where " + b.Where.Text + ", " + s
	}
	return s
}
