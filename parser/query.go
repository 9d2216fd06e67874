package parser

import (
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
)

// astInfo is what the front-end learned about a TiDB AST.
type astInfo struct {
	casts     CastTypes
	joins     map[*ast.Join]JoinKind
	asOf      map[*ast.TableName]AsOf
	fieldText map[*ast.SelectField]string
	locate    Locator
}

// selectStmt parses the SELECT that starts at token index from of rs.
func (ps *parseState) selectStmt(rs *rawStmt, from int) (*Select, *Error) {
	return ps.query(rs.all, rs.toks[from:], rs.toks[from].Offset, rs.end)
}

// query parses the query of tokens toks (significant ones; all has the
// comments too) spanning [start, end): a SELECT, WITH ... SELECT, or a
// UNION ALL of queries (SPEC 2.6). The subqueries in its FROM are parsed on
// their own (composition.go) and TiDB sees a placeholder name in their place.
func (ps *parseState) query(all, toks []Token, start, end int) (*Select, *Error) {
	if len(toks) > 0 && toks[0].is("WITH") {
		return ps.withQuery(all, toks, start, end)
	}
	if sel, ok, err := ps.unionQuery(all, toks, start, end); ok {
		return sel, err
	}
	r := newRegion(all, toks, start, end)
	derived, err := ps.derivedTables(all, r)
	if err != nil {
		return nil, err
	}
	return ps.plainQuery(r, derived)
}

// plainQuery parses the one SELECT of region r, whose subqueries in FROM
// derivedTables found (derived, nil when none: their placeholders are then
// in its region).
func (ps *parseState) plainQuery(r *region, derived *derived) (*Select, *Error) {
	if derived != nil {
		r = derived.region
	}
	rw, err := ps.rewrite(r, modeSelect, "")
	if err != nil {
		return nil, err
	}
	node, perr := ps.tidbParse(rw.text)
	if perr != nil {
		return nil, ps.syntaxError(perr, rw, r)
	}
	sel, ok := node.(*ast.SelectStmt)
	if !ok {
		return nil, notASelect(node, r)
	}
	if e := checkSelect(sel, r); e != nil {
		return nil, e
	}
	info, err := ps.annotate(sel, rw, r, modeSelect)
	if err != nil {
		return nil, err
	}
	filters, err := ps.filters(rw, r, info)
	if err != nil {
		return nil, err
	}
	if len(rw.nulls) > 0 {
		if err := orderNulls(sel, rw.nulls, info.locate); err != nil {
			return nil, err
		}
	}
	var rels map[string]*Relation
	if derived != nil {
		rels = derived.rels
	}
	return &Select{
		Filters:   filters,
		Derived:   rels,
		Range:     Range{Start: r.start, End: r.end},
		Side:      rw.side,
		SidePos:   rw.sidePos,
		Window:    rw.window,
		Unnest:    rw.unnest,
		Late:      rw.late,
		LatePos:   rw.latePos,
		Late2:     rw.late2,
		Late2Pos:  rw.late2Pos,
		Stream:    rw.stream,
		StreamPos: rw.streamPos,
		Files:     rw.files,
		FilePos:   rw.filePos,
		Query:     sel,
		Joins:     info.joins,
		AsOf:      info.asOf,
		Casts:     info.casts,
		FieldText: info.fieldText,
		Locate:    info.locate,
	}, nil
}

// notASelect is the error for a statement TiDB parsed as something other than a
// plain SELECT.
func notASelect(node ast.StmtNode, r *region) *Error {
	if _, ok := node.(*ast.SetOprStmt); ok {
		for _, w := range []string{"UNION", "EXCEPT", "INTERSECT"} {
			for i, t := range r.toks {
				if t.is(w) && r.depth[i] == 0 {
					return Errorf(t.Offset, "%s is not supported: write one SELECT per output (side branches route rows with INTO SIDE)", w)
				}
			}
		}
		return Errorf(r.start, "UNION, EXCEPT and INTERSECT are not supported: write one SELECT per output")
	}
	return Errorf(r.start, "this statement is not a plain SELECT: %s", supported)
}

// checkSelect rejects SELECT features streamql has no meaning for.
func checkSelect(sel *ast.SelectStmt, r *region) *Error {
	at := func(w string) int {
		for i, t := range r.toks {
			if t.is(w) && r.depth[i] == 0 {
				return t.Offset
			}
		}
		return r.start
	}
	switch {
	case sel.With != nil:
		return Errorf(at("WITH"), "WITH stands at the start of a query: WITH q AS (SELECT ...) SELECT ... FROM q")
	case sel.SelectIntoOpt != nil:
		return Errorf(at("INTO"), "SELECT ... INTO is not supported: write INTO SIDE 'name'")
	case sel.LockInfo != nil && sel.LockInfo.LockType != ast.SelectLockNone:
		return Errorf(at("FOR"), "locking clauses are not supported on streams")
	}
	return nil
}

// insertStmt parses INSERT INTO s [(cols)] VALUES (...), ... with TiDB.
func (ps *parseState) insertStmt(rs *rawStmt) (*Insert, *Error) {
	r := newRegion(rs.all, rs.toks, rs.start, rs.end)
	rw, err := ps.rewrite(r, modeInsert, "")
	if err != nil {
		return nil, err
	}
	node, perr := ps.tidbParse(rw.text)
	if perr != nil {
		return nil, ps.syntaxError(perr, rw, r)
	}
	ins, ok := node.(*ast.InsertStmt)
	if !ok {
		return nil, Errorf(r.start, "expected INSERT INTO stream VALUES (...)")
	}
	at := func(w string) int {
		for i, t := range r.toks {
			if t.is(w) && r.depth[i] == 0 {
				return t.Offset
			}
		}
		return r.start
	}
	switch {
	case ins.Select != nil:
		return nil, Errorf(at("SELECT"), "INSERT ... SELECT is not supported: INSERT adds literal rows to a values stream: INSERT INTO s VALUES (...)")
	case ins.Setlist:
		return nil, Errorf(at("SET"), "INSERT ... SET is not supported: write INSERT INTO s (col, ...) VALUES (...)")
	case len(ins.OnDuplicate) > 0:
		return nil, Errorf(at("ON"), "ON DUPLICATE KEY UPDATE is not supported: streams are append-only")
	case ins.IsReplace || ins.IgnoreErr || ins.Priority != 0 || len(ins.PartitionNames) > 0 || len(ins.TableHints) > 0:
		return nil, Errorf(r.start, "write INSERT INTO s VALUES (...) without modifiers")
	}
	var tn *ast.TableName
	if ins.Table != nil && ins.Table.TableRefs != nil && ins.Table.TableRefs.Right == nil {
		if ts, ok := ins.Table.TableRefs.Left.(*ast.TableSource); ok {
			tn, _ = ts.Source.(*ast.TableName)
		}
	}
	if tn == nil {
		return nil, Errorf(r.start, "expected INSERT INTO stream VALUES (...)")
	}
	info, err := ps.annotate(ins, rw, r, modeInsert)
	if err != nil {
		return nil, err
	}
	st := &Insert{
		Range:     Range{Start: r.start, End: r.end},
		Stream:    tn.Name.O,
		StreamPos: info.locate(tn),
		Rows:      ins.Lists,
		Casts:     info.casts,
		Locate:    info.locate,
	}
	if tn.Schema.O != "" {
		return nil, Errorf(st.StreamPos, "stream names cannot be qualified: write INSERT INTO %s", tn.Name.O)
	}
	// Column names: the identifiers inside the parentheses after the stream name.
	k := 0
	for k < len(r.toks) && r.toks[k].Offset <= st.StreamPos {
		k++
	}
	var colPos []int
	if k < len(r.toks) && r.toks[k].isOp("(") {
		d := r.depth[k] + 1
		for j := k + 1; j < len(r.toks) && r.depth[j] >= d; j++ {
			t := r.toks[j]
			if r.depth[j] == d && (t.Kind == TokIdent || t.Kind == TokQuotedIdent) && (r.toks[j-1].isOp("(") || r.toks[j-1].isOp(",")) {
				colPos = append(colPos, t.Offset)
			}
		}
	}
	for i, c := range ins.Columns {
		st.Columns = append(st.Columns, c.Name.O)
		p := st.StreamPos
		if len(colPos) == len(ins.Columns) {
			p = colPos[i]
		}
		st.ColumnPos = append(st.ColumnPos, p)
	}
	return st, nil
}

// parseFragment parses the expression toks (script range [start, end)) as
// SELECT <expr>, so that TiDB's offsets map to the script.
func (ps *parseState) parseFragment(all, toks []Token, start, end int) (ast.ExprNode, *astInfo, *Error) {
	r := newRegion(all, toks, start, end)
	rw, err := ps.rewrite(r, modeFragment, "SELECT ")
	if err != nil {
		return nil, nil, err
	}
	node, perr := ps.tidbParse(rw.text)
	if perr != nil {
		return nil, nil, ps.syntaxError(perr, rw, r)
	}
	sel, ok := node.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 || sel.Fields.Fields[0].Expr == nil ||
		sel.Fields.Fields[0].AsName.O != "" || sel.From != nil || sel.Where != nil || sel.GroupBy != nil ||
		sel.Having != nil || sel.OrderBy != nil || sel.Limit != nil || sel.Distinct || sel.With != nil ||
		sel.SelectIntoOpt != nil || sel.LockInfo != nil && sel.LockInfo.LockType != ast.SelectLockNone ||
		len(sel.WindowSpecs) > 0 || len(sel.TableHints) > 0 {
		return nil, nil, Errorf(start, "expected one expression, like ts - INTERVAL '5' SECOND")
	}
	expr := sel.Fields.Fields[0].Expr
	info, err := ps.annotate(expr, rw, r, modeFragment)
	if err != nil {
		return nil, nil, err
	}
	return expr, info, nil
}

// filters parses the conditions of the FILTER (WHERE ...) clauses rewrite
// took out (SPEC 2.9), each as a fragment in source coordinates; their CAST
// types join info's, and info's Locate learns their nodes.
func (ps *parseState) filters(rw *rewritten, r *region, info *astInfo) (map[int]*Fragment, *Error) {
	if len(rw.filters) == 0 {
		return nil, nil
	}
	out := map[int]*Fragment{}
	var locs []Locator
	nodes := map[ast.Node]int{}
	for _, f := range rw.filters {
		start, end := f.cond[0].Offset, f.cond[len(f.cond)-1].End()
		expr, fi, err := ps.parseFragment(r.comments, f.cond, start, end)
		if err != nil {
			return nil, err
		}
		for n, t := range fi.casts {
			info.casts[n] = t
		}
		out[f.call] = &Fragment{Expr: expr, Text: ps.src[start:end], Pos: start, Casts: fi.casts, Locate: fi.locate, File: ps.file}
		expr.Accept(&nodeCollector{nodes: nodes, k: len(locs)})
		locs = append(locs, fi.locate)
	}
	outer := info.locate
	info.locate = func(n ast.Node) int {
		if k, ok := nodes[n]; ok {
			return locs[k](n)
		}
		return outer(n)
	}
	return out, nil
}

// nodeCollector notes every node of a tree as the k-th fragment's.
type nodeCollector struct {
	nodes map[ast.Node]int
	k     int
}

func (c *nodeCollector) Enter(n ast.Node) (ast.Node, bool) { c.nodes[n] = c.k; return n, false }
func (c *nodeCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// joinCollector lists the joins of an AST (those with a right side) in the textual
// order of their JOIN keyword (or comma): an in-order walk of each join tree, since
// the keyword stands between the left and the right table reference.
type joinCollector struct{ out []*ast.Join }

func (c *joinCollector) Enter(n ast.Node) (ast.Node, bool) {
	if j, ok := n.(*ast.Join); ok {
		c.inorder(j)
		return n, true
	}
	return n, false
}

func (c *joinCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

func (c *joinCollector) inorder(j *ast.Join) {
	if j.Left != nil {
		if lj, ok := j.Left.(*ast.Join); ok {
			c.inorder(lj)
		} else {
			j.Left.Accept(c)
		}
	}
	if j.Right != nil {
		c.out = append(c.out, j)
		if rj, ok := j.Right.(*ast.Join); ok {
			c.inorder(rj)
		} else {
			j.Right.Accept(c)
		}
	}
	if j.On != nil {
		j.On.Accept(c)
	}
}

// annotate maps the AST back to the source: join kinds, CAST types,
// select field texts and node positions (the Locator).
func (ps *parseState) annotate(root ast.Node, rw *rewritten, r *region, mode rwMode) (*astInfo, *Error) {
	info := &astInfo{casts: CastTypes{}, joins: map[*ast.Join]JoinKind{}, asOf: map[*ast.TableName]AsOf{}, fieldText: map[*ast.SelectField]string{}}
	jc := &joinCollector{}
	root.Accept(jc)
	ops := r.joinOps()
	joinPos := map[*ast.Join]int{}
	if len(jc.out) == len(ops) {
		for k, j := range jc.out {
			op := r.toks[ops[k]]
			joinPos[j] = op.Offset
			if m, ok := rw.joins[op.Offset]; ok {
				joinPos[j] = m.pos
				info.joins[j] = m.kind
			}
		}
	}
	if len(info.joins) != len(rw.joins) {
		first := r.end
		for _, m := range rw.joins {
			first = min(first, m.pos)
		}
		return nil, Errorf(first, "cannot tell which join this applies to: write table references as a SEMI JOIN b ON ... (one table on each side)")
	}
	for j, kind := range info.joins {
		word := "SEMI"
		switch kind {
		case AntiJoin:
			word = "ANTI"
		case FullJoin:
			word = "FULL"
		}
		naturalFull := kind == FullJoin && j.NaturalJoin && j.Tp == 0 // (a NATURAL FULL JOIN, TiDB's NATURAL JOIN: the planner's ruleJoinUsing)
		switch {
		case !naturalFull && (j.Tp != ast.CrossJoin || j.NaturalJoin) || j.StraightJoin:
			return nil, Errorf(joinPos[j], "write %s JOIN alone: it cannot be combined with NATURAL, LEFT, RIGHT or STRAIGHT_JOIN", word)
		case j.On == nil && len(j.Using) == 0 && !naturalFull:
			return nil, Errorf(joinPos[j], "%s JOIN needs a condition: a %s JOIN b ON a.key = b.key", word, word)
		}
	}
	w := &posWalker{
		ps: ps, rw: rw, r: r, info: info, joinPos: joinPos,
		pos:     map[ast.Node]int{},
		tables:  r.tableRefs(mode),
		selects: r.words("SELECT"),
		limits:  r.words("LIMIT"),
		groups:  r.clauseWords("GROUP"),
		orders:  r.clauseWords("ORDER"),
	}
	root.Accept(w)
	if w.err != nil {
		return nil, w.err
	}
	if len(info.asOf) != len(rw.asOf) {
		for _, a := range rw.asOf {
			return nil, Errorf(a.Pos, "FOR SYSTEM_TIME AS OF stands right after the name of a join's right side: FROM l JOIN r FOR SYSTEM_TIME AS OF l.t [AS x] ON l.k = r.k")
		}
	}
	for i, t := range r.toks { // AS `` names nothing: a stream's alias too
		if t.Kind == TokQuotedIdent && t.Value() == "" && i > 0 && r.toks[i-1].is("AS") {
			return nil, Errorf(t.Offset, "an alias cannot be empty: write a name between the back-quotes, or drop the alias")
		}
	}
	start, pos := r.start, w.pos
	info.locate = func(n ast.Node) int {
		if p, ok := pos[n]; ok {
			return p
		}
		return start
	}
	return info, nil
}

// posWalker computes a script offset for every node of an AST:
//   - expressions: TiDB's OriginTextPosition (the first token of the expression; a
//     function call's name; a column's first identifier), mapped to the script;
//   - select fields: TiDB's field offset (also for * and t.*);
//   - table names: the name token in FROM/JOIN (or after INSERT INTO), claimed in
//     textual order;
//   - SELECT statements: their SELECT keyword; LIMIT clauses: the LIMIT keyword;
//   - joins with a right side: their JOIN keyword, comma, or SEMI/ANTI word;
//   - positions (GROUP BY 1, ORDER BY 2): their number token;
//   - anything else: the earliest position among its children, else the nearest
//     ancestor's position (e.g. a TimeUnitExpr gets its DATE_ADD's), else the
//     statement start.
type posWalker struct {
	ps      *parseState
	rw      *rewritten
	r       *region
	info    *astInfo
	joinPos map[*ast.Join]int
	pos     map[ast.Node]int
	stack   []frame
	tables  []Token
	ti      int
	selects []int
	si      int
	limits  []int
	li      int
	groups  []int // GROUP BY / ORDER BY keyword offsets, in textual order
	orders  []int
	gi, oi  int
	byFrom  int    // positions (GROUP BY 1) are looked for after this offset
	err     *Error // the first error found while walking (an empty alias)
}

type frame struct {
	pos, min int // own position, earliest child position (-1: unknown)
}

func (w *posWalker) mapped(rw int) int {
	if rw <= 0 || rw < w.rw.om.prefix {
		return -1
	}
	return w.rw.om.src(rw)
}

func (w *posWalker) Enter(n ast.Node) (ast.Node, bool) {
	p := -1
	switch x := n.(type) {
	case *ast.SelectField:
		p = w.mapped(x.Offset)
		if x.Expr != nil && x.Offset > 0 {
			t := w.fieldText(x)
			w.info.fieldText[x] = t
			x.SetText(nil, t) // TiDB's text is of the rewritten SQL
		}
	case *ast.TableName:
		for k := w.ti; k < len(w.tables); k++ {
			want := x.Name.O
			if x.Schema.O != "" {
				want = x.Schema.O
			}
			if strings.EqualFold(w.tables[k].Value(), want) {
				p, w.ti = w.tables[k].Offset, k+1
				if a, ok := w.rw.asOf[p]; ok {
					w.info.asOf[x] = a
				}
				break
			}
		}
	case *ast.SelectStmt:
		if w.si < len(w.selects) {
			p = w.selects[w.si]
			w.si++
		}
	case *ast.Limit:
		if w.li < len(w.limits) {
			p = w.limits[w.li]
			w.li++
		}
	case *ast.Join:
		if jp, ok := w.joinPos[x]; ok {
			p = jp
		}
	case *ast.GroupByClause:
		if w.gi < len(w.groups) {
			w.byFrom = w.groups[w.gi]
			w.gi++
		}
	case *ast.OrderByClause:
		if w.oi < len(w.orders) {
			w.byFrom = w.orders[w.oi]
			w.oi++
		}
	case *ast.PositionExpr:
		// TiDB makes GROUP BY 1 a PositionExpr with no position: the next number
		// token of that value after the clause's keyword (or the previous position).
		for _, t := range w.r.toks {
			if t.Offset > w.byFrom && t.Kind == TokNumber {
				if v, err := strconv.Atoi(t.Text); err == nil && v == x.N {
					p, w.byFrom = t.Offset, t.Offset
					break
				}
			}
		}
	default:
		p = w.mapped(n.OriginTextPosition())
	}
	switch x := n.(type) {
	case *ast.FuncCastExpr:
		name, ok := w.rw.casts[p]
		if !ok {
			name = castTypeName(x)
		}
		w.info.casts[x] = name
	}
	w.stack = append(w.stack, frame{pos: p, min: -1})
	return n, false
}

func (w *posWalker) Leave(n ast.Node) (ast.Node, bool) {
	f := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	p := f.pos
	if p < 0 {
		p = f.min
	}
	if p >= 0 {
		if k := len(w.stack) - 1; k >= 0 && (w.stack[k].min < 0 || p < w.stack[k].min) {
			w.stack[k].min = p
		}
	} else {
		p = w.r.start
		for k := len(w.stack) - 1; k >= 0; k-- {
			if w.stack[k].pos >= 0 {
				p = w.stack[k].pos
				break
			}
		}
	}
	w.pos[n] = p
	if x, ok := n.(*ast.FrameBound); ok && x.Unit == ast.TimeUnitMicrosecond && x.Expr != nil && w.rw.millis[w.pos[x.Expr]] {
		// RANGE BETWEEN INTERVAL 'v' MILLISECOND PRECEDING (SPEC 2.9): TiDB
		// parsed the MICROSECOND written in its place; the bound becomes the
		// same time in seconds
		if v, ok := x.Expr.(ast.ValueExpr); ok {
			if ms, ok := new(big.Rat).SetString(strings.TrimSpace(v.GetDatumString())); ok {
				s := strings.TrimRight(ms.Quo(ms, big.NewRat(1000, 1)).FloatString(len(v.GetDatumString())+3), "0")
				e := ast.NewValueExpr(strings.TrimSuffix(s, "."), "", "")
				x.Expr, x.Unit, w.pos[e] = e, ast.TimeUnitSecond, w.pos[x.Expr]
			}
		}
	}
	if x, ok := n.(*ast.WindowFuncExpr); ok && w.rw.countDistinct[p] && x.Distinct && strings.EqualFold(x.Name, "sum") {
		x.Name = "count" // (COUNT(DISTINCT x) OVER, read as SUM: rewrite)
	}
	if x, ok := n.(*ast.FuncCallExpr); ok && len(x.Args) == 3 && len(w.rw.millis) > 0 && w.rw.millis[w.pos[x.Args[1]]] {
		if u, ok := x.Args[2].(*ast.TimeUnitExpr); ok && u.Unit == ast.TimeUnitMicrosecond {
			ms := &MillisecondUnit{TimeUnitExpr: *u}
			x.Args[2], w.pos[ms] = ms, w.pos[u]
		}
	}
	return n, true
}

// MillisecondUnit is the unit of x ± INTERVAL 'v' MILLISECOND in TiDB's AST
// (the third argument of its DATE_ADD / DATE_SUB): TiDB has no MILLISECOND
// unit, so it parses a MICROSECOND written in its place, and the front-end
// puts this node there (SPEC 2.3: intervals in milliseconds, as in window
// functions). It restores as MILLISECOND; the planner reads it as 1 ms.
type MillisecondUnit struct{ ast.TimeUnitExpr }

// Restore writes MILLISECOND.
func (u *MillisecondUnit) Restore(ctx *format.RestoreCtx) error {
	ctx.WriteKeyWord("MILLISECOND")
	return nil
}

// Accept visits the node itself (not the embedded TimeUnitExpr, which a
// visitor would otherwise put in its place).
func (u *MillisecondUnit) Accept(v ast.Visitor) (ast.Node, bool) {
	n, _ := v.Enter(u)
	return v.Leave(n)
}

// fieldText returns the source text of a select field's expression exactly as
// written, from its first token to its last (spaces and comments inside it
// included, alias excluded): SPEC 2 names an unaliased column by it. An empty
// back-quoted alias (which TiDB reads as no alias) is recorded in w.err.
func (w *posWalker) fieldText(f *ast.SelectField) string {
	om := w.rw.om
	start := om.src(f.Offset)
	end := start
	if t := f.OriginalText(); t != "" {
		end = om.src(f.Offset+len(t)-1) + 1
	}
	all := w.r.toks
	k := sort.Search(len(all), func(i int) bool { return all[i].End() > start }) // (the token holding start: TRY_CAST, whose CAST TiDB sees at +4)
	j := k
	for j < len(all) && all[j].End() <= end {
		j++
	}
	if j+1 < len(all) && all[j].is("FILTER") && all[j+1].isOp("(") && f.AsName.O == "" {
		// an aggregate's FILTER (WHERE ...), blanked for TiDB (SPEC 2.9): part
		// of the field as written
		for depth := 0; j+1 < len(all); {
			j++
			if all[j].isOp("(") {
				depth++
			} else if all[j].isOp(")") {
				if depth--; depth == 0 {
					j++
					break
				}
			}
		}
	}
	toks := all[k:j]
	if f.AsName.O == "" && len(toks) > 1 {
		last := toks[len(toks)-1]
		if last.Kind == TokQuotedIdent && last.Value() == "" && !toks[len(toks)-2].isOp(".") && w.err == nil {
			w.err = Errorf(last.Offset, "a column alias cannot be empty: write a name between the back-quotes, or drop the alias")
		}
	}
	if f.AsName.O != "" && len(toks) > 1 {
		toks = toks[:len(toks)-1]
		if len(toks) > 1 && toks[len(toks)-1].is("AS") {
			toks = toks[:len(toks)-1]
		}
	}
	if len(toks) == 0 {
		return ""
	}
	return w.ps.src[toks[0].Offset:toks[len(toks)-1].End()]
}

// castTypeName names the type of a cast the front-end did not see written (e.g.
// BINARY x), from TiDB's field type.
func castTypeName(x *ast.FuncCastExpr) string {
	if x.FunctionType == ast.CastBinaryOperator {
		return "BINARY"
	}
	if x.Tp == nil {
		return ""
	}
	return strings.ToUpper(x.Tp.CompactStr())
}

// orderNulls makes each ORDER BY item written with NULLS FIRST or NULLS LAST
// (nulls, by the offset of the item's first token) two sort keys: `x IS
// NULL` (DESC for NULLS FIRST: true sorts above false), then x. The sorts of
// SPEC 2.9 put NULL first for ASC and last for DESC (Flink's default); this
// gives Flink's explicit null ordering on both ORDER BY and OVER (…), with no
// operator of its own. An item it cannot find is an error at its NULLS.
func orderNulls(sel *ast.SelectStmt, nulls map[int]bool, locate Locator) *Error {
	done := map[int]bool{}
	var lists []*[]*ast.ByItem
	if sel.OrderBy != nil {
		lists = append(lists, &sel.OrderBy.Items)
	}
	v := &windowSpecs{}
	sel.Accept(v)
	for _, w := range v.specs {
		if w.OrderBy != nil {
			lists = append(lists, &w.OrderBy.Items)
		}
	}
	for _, l := range lists {
		var out []*ast.ByItem
		for _, it := range *l {
			first, ok := nulls[locate(it.Expr)]
			if ok {
				done[locate(it.Expr)] = true
				out = append(out, &ast.ByItem{Expr: &ast.IsNullExpr{Expr: it.Expr}, Desc: first})
			}
			out = append(out, it)
		}
		*l = out
	}
	for off := range nulls {
		if !done[off] {
			return Errorf(off, "NULLS FIRST / NULLS LAST stands after an ORDER BY item (of the query or of an OVER window)")
		}
	}
	return nil
}

// windowSpecs collects the window specifications of a query (OVER (…) and
// WINDOW w AS (…)).
type windowSpecs struct{ specs []*ast.WindowSpec }

func (w *windowSpecs) Enter(n ast.Node) (ast.Node, bool) {
	if s, ok := n.(*ast.WindowSpec); ok {
		w.specs = append(w.specs, s)
	}
	return n, false
}

func (w *windowSpecs) Leave(n ast.Node) (ast.Node, bool) { return n, true }
