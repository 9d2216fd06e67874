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
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/parser"
)

// Output is one output of a job: main or a side output, with its schema.
type Output struct {
	Name    string // "main" or the side name
	Columns []catalog.Column
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
}

// HasSides reports whether the job has side outputs, which decides how line
// formats print (SPEC 4: decided when planned, even if a branch gets no rows).
func (j *Job) HasSides() bool { return len(j.Branches) > 0 }

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
// returns its compiled branch. Errors are *parser.Error at the offending token:
// unknown stream or column, type errors, unsupported clauses.
func (p *Planner) PlanSelect(sel *parser.Select) (*Branch, error) {
	ticks := &ticker{ctx: p.Ctx}
	if p.Ctx != nil && p.Ctx.Err() != nil {
		return nil, p.Ctx.Err()
	}
	q := sel.Query
	start, _ := sel.Span()
	pos := func(n ast.Node) int {
		if n == nil || sel.Locate == nil {
			return start
		}
		return sel.Locate(n)
	}
	unsupported := func(n ast.Node, what string) error {
		return parser.Errorf(pos(n), "%s is not supported in a stream query", what)
	}
	switch {
	case q.GroupBy != nil:
		return nil, unsupported(q.GroupBy, "GROUP BY")
	case q.Having != nil:
		return nil, unsupported(q.Having, "HAVING")
	case q.OrderBy != nil:
		return nil, unsupported(q.OrderBy, "ORDER BY")
	case q.Distinct:
		return nil, parser.Errorf(start, "DISTINCT is not supported in a stream query")
	case q.WindowSpecs != nil:
		return nil, parser.Errorf(start, "windows are not supported")
	}
	var st *catalog.Stream
	var name string
	var rightTS *ast.TableSource
	var joinMode JoinMode
	var join *ast.Join
	if q.From == nil {
		// SPEC 2: a SELECT without FROM gives one row
		if err := checkNoFrom(q, pos); err != nil {
			return nil, err
		}
		st = noFromStream()
		name = st.Name
	} else {
		join = q.From.TableRefs
		if join.Right != nil {
			k, ok := sel.Joins[join]
			if !ok || k == parser.InnerJoin {
				return nil, parser.Errorf(pos(join.Right), "joins other than SEMI JOIN / ANTI JOIN are not supported: a stream query outputs rows of one stream")
			}
			if k == parser.AntiJoin {
				joinMode = Anti
			}
			if rightTS, ok = join.Right.(*ast.TableSource); !ok {
				return nil, parser.Errorf(pos(join.Right), "the right side of a join must be a stream name")
			}
		}
		ts, ok := join.Left.(*ast.TableSource)
		if !ok {
			return nil, parser.Errorf(pos(join.Left), "FROM needs a stream name (one SEMI or ANTI JOIN at most)")
		}
		var err error
		if st, name, err = p.source(ts, pos); err != nil {
			return nil, err
		}
	}
	types, wm := batchLayout(st)
	sc := &scope{
		rels:   []relation{{stream: st, name: name}},
		locate: sel.Locate, casts: sel.Casts, src: p.Source,
		watermark: func(int) int { return wm },
		uses:      make([]bool, len(types)),
		ticks:     ticks,
	}
	var j *Join
	if rightTS != nil {
		rst, rname, err := p.source(rightTS, pos)
		if err != nil {
			return nil, err
		}
		two := p.twoScope(sc, rst, rname, -1)
		var on ast.ExprNode
		if join.On != nil {
			on = join.On.Expr
		}
		word := "SEMI JOIN"
		if joinMode == Anti {
			word = "ANTI JOIN"
		}
		if j, err = p.buildJoin(two, joinMode, on, nil, false, pos(rightTS), name+" "+word+" "+rname, wm); err != nil {
			return nil, err
		}
		sc.hidden = rname
	}
	// IN / EXISTS conjuncts of WHERE become the branch's join (SPEC 2.2); the
	// other conjuncts stay its WHERE.
	var rest []ast.ExprNode
	if q.Where != nil {
		for _, c := range conjuncts(q.Where, nil) {
			sj, err := p.subqueryJoin(sc, c, wm, pos)
			if err != nil {
				return nil, err
			}
			if sj == nil {
				rest = append(rest, c)
				continue
			}
			if j != nil {
				return nil, parser.Errorf(pos(c), "one SEMI/ANTI JOIN or IN/EXISTS subquery per query is supported; split the query into side branches")
			}
			j = sj
		}
	}
	b := &Branch{Side: sel.Side, SidePos: sel.SidePos, Stream: st, Limit: -1, Text: strings.TrimSpace(p.text(sel)), Join: j, Uses: sc.uses}
	var err error
	if b.Where, err = andAll(sc, rest, "WHERE"); err != nil {
		return nil, err
	}
	var fieldOf []ast.Node // the select field each output column comes from
	var last ast.Node
	for _, f := range q.Fields.Fields {
		for len(fieldOf) < len(b.Columns) {
			fieldOf = append(fieldOf, last)
		}
		last = f
		if f.WildCard != nil {
			tbl := f.WildCard.Table.O
			if sc.hidden != "" && strings.EqualFold(tbl, sc.hidden) {
				return nil, parser.Errorf(pos(f), "%s.* selects the join's build side: a semi or anti join outputs left rows only; write %s.* instead", tbl, name)
			}
			if tbl != "" && !strings.EqualFold(tbl, name) && !strings.EqualFold(tbl, st.Name) {
				return nil, parser.Errorf(pos(f), "unknown stream or alias '%s' in %s.*; the query reads %s", tbl, tbl, name)
			}
			for i, c := range st.Columns {
				idx := i
				sc.use(idx)
				b.Project = append(b.Project, &Expr{Type: c.Type, Col: idx, Text: c.Name, Eval: colEval(idx)})
				b.Columns = append(b.Columns, c)
			}
			continue
		}
		e, err := sc.compile(f.Expr)
		if err != nil {
			return nil, err
		}
		if e.Type == catalog.Unknown {
			e = coerce(e, catalog.Varchar)
		}
		colName := f.AsName.O
		if colName == "" {
			if cn, ok := f.Expr.(*ast.ColumnNameExpr); ok {
				colName = st.Columns[st.Column(cn.Name.Name.O)].Name
			} else if t := strings.TrimSpace(f.Text()); t != "" {
				colName = t
			} else {
				colName = e.Text
			}
		}
		b.Project = append(b.Project, e)
		b.Columns = append(b.Columns, catalog.Column{Name: colName, Type: e.Type})
	}
	for len(fieldOf) < len(b.Columns) {
		fieldOf = append(fieldOf, last)
	}
	seen := make(map[string]bool, len(b.Columns))
	for i, c := range b.Columns {
		k := catalog.FoldName(c.Name)
		if seen[k] {
			return nil, parser.Errorf(pos(fieldOf[i]), "the output has two columns named '%s'; give one of them another name with AS", c.Name)
		}
		seen[k] = true
	}
	if q.Limit != nil {
		if sel.Side != "" {
			return nil, parser.Errorf(pos(q.Limit), "LIMIT is allowed on the main query only, not on side branch '%s'", sel.Side)
		}
		if q.Limit.Offset != nil {
			return nil, parser.Errorf(pos(q.Limit), "LIMIT with an offset is not supported on a stream")
		}
		n, err := sc.compile(q.Limit.Count)
		if err != nil {
			return nil, err
		}
		if !n.Const || n.Type != catalog.BigInt {
			return nil, parser.Errorf(pos(q.Limit), "LIMIT needs a non-negative integer")
		}
		b.Limit = n.Eval(nil, []int32{0}).I[0]
		if b.Limit < 0 {
			return nil, parser.Errorf(pos(q.Limit), "LIMIT needs a non-negative integer")
		}
	}
	return b, nil
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

// subqueryJoin lowers a WHERE conjunct that is [NOT] IN (subquery) or [NOT]
// EXISTS (subquery) to a join (SPEC 2.2: the same plan as SEMI / ANTI JOIN); it
// returns nil for other conjuncts.
func (p *Planner) subqueryJoin(sc *scope, c ast.ExprNode, wm int, pos func(ast.Node) int) (*Join, error) {
	for {
		par, ok := c.(*ast.ParenthesesExpr)
		if !ok {
			break
		}
		c = par.Expr
	}
	not := false
	if u, ok := c.(*ast.UnaryOperationExpr); ok && (u.Op == opcode.Not || u.Op == opcode.Not2) {
		if _, ok := u.V.(*ast.ExistsSubqueryExpr); ok {
			not, c = true, u.V
		}
	}
	var sub *ast.SubqueryExpr
	var in *ast.PatternInExpr
	switch x := c.(type) {
	case *ast.PatternInExpr:
		if x.Sel == nil {
			return nil, nil
		}
		in, not = x, x.Not
		sub, _ = x.Sel.(*ast.SubqueryExpr)
	case *ast.ExistsSubqueryExpr:
		not = not != x.Not
		sub, _ = x.Sel.(*ast.SubqueryExpr)
	default:
		return nil, nil
	}
	var q *ast.SelectStmt
	if sub != nil {
		q, _ = sub.Query.(*ast.SelectStmt)
	}
	if q == nil || q.From == nil || q.From.TableRefs.Right != nil {
		return nil, parser.Errorf(pos(c), "the subquery must read one stream: (SELECT col FROM stream [WHERE ...])")
	}
	if q.GroupBy != nil || q.Having != nil || q.Limit != nil || q.OrderBy != nil {
		return nil, parser.Errorf(pos(c), "the subquery may not have GROUP BY, HAVING, ORDER BY or LIMIT")
	}
	ts, ok := q.From.TableRefs.Left.(*ast.TableSource)
	if !ok {
		return nil, parser.Errorf(pos(c), "the subquery must read one stream")
	}
	rst, rname, err := p.source(ts, pos)
	if err != nil {
		return nil, err
	}
	two := p.twoScope(sc, rst, rname, 1)
	var cond ast.ExprNode
	if q.Where != nil {
		cond = q.Where
	}
	mode := Semi
	if not {
		mode = Anti
	}
	var keys [][2]ast.ExprNode
	text := "EXISTS subquery on " + rname
	if in != nil {
		if len(q.Fields.Fields) != 1 || q.Fields.Fields[0].WildCard != nil {
			return nil, parser.Errorf(pos(c), "IN (subquery) needs a subquery that selects one column")
		}
		keys = [][2]ast.ExprNode{{in.Expr, q.Fields.Fields[0].Expr}}
		text = "IN subquery on " + rname
		if not {
			text = "NOT " + text
		}
	} else if not {
		text = "NOT " + text
	}
	j, err := p.buildJoin(two, mode, cond, keys, in == nil, pos(c), text, wm)
	if err != nil {
		return nil, err
	}
	j.NullAware = in != nil && not
	if j.NullAware && j.EventTime() {
		return nil, parser.Errorf(pos(c), "NOT IN (subquery) over the unbounded stream %s cannot be decided (a NULL may still arrive); use NOT EXISTS (SELECT 1 FROM %s WHERE ...)", rname, rname)
	}
	return j, nil
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
		j.Outputs = append(j.Outputs, Output{Name: "main", Columns: main.Columns})
	}
	read := j.Streams()
	byName := make(map[string]int, len(branches)) // side name -> index into j.Outputs: linear in the branches
	for _, b := range branches {
		for _, r := range read {
			if errSide := r.Options["errors.side"]; errSide != "" && b.Side == errSide {
				how := "reads"
				if r != st {
					how = "reads as a join's build side"
				}
				return nil, parser.Errorf(b.SidePos, "side output '%s' has the name of the errors side output of stream %s, which the job %s; pick another side name or set 'errors.side' on %s", b.Side, r.Name, how, r.Name)
			}
		}
		if found, ok := byName[b.Side]; ok {
			if !sameSchema(j.Outputs[found].Columns, b.Columns) {
				return nil, parser.Errorf(b.SidePos, "side output '%s' is used twice with different columns (%s vs %s); give one branch another name", b.Side, schemaText(j.Outputs[found].Columns), schemaText(b.Columns))
			}
			b.Output = found
			continue
		}
		b.Output = len(j.Outputs)
		byName[b.Side] = b.Output
		j.Outputs = append(j.Outputs, Output{Name: b.Side, Columns: b.Columns})
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
		if st.Options["errors"] == "side" {
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
		fmt.Fprintf(&sb, "    %d. side '%s': %s\n", i+1, b.Side, b.describe())
		b.describeJoin(&sb)
	}
	if j.Main != nil {
		fmt.Fprintf(&sb, "    main: %s", j.Main.describe())
		if j.Main.Limit >= 0 {
			fmt.Fprintf(&sb, " LIMIT %d", j.Main.Limit)
		}
		sb.WriteString("\n")
		j.Main.describeJoin(&sb)
	} else {
		sb.WriteString("    (no main query: rows no branch takes are discarded)\n")
	}
	for _, o := range j.Outputs {
		fmt.Fprintf(&sb, "  Sink: %s %s\n", o.Name, schemaText(o.Columns))
	}
	return sb.String()
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
