package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner/plan"
)

// ruleBothJoin plans FROM l [INNER|LEFT|RIGHT|FULL] JOIN r ON ..., and the
// comma join FROM l, r WHERE ..., whose output has both sides' columns (SPEC
// 2.7). It is called by ruleFrom for a join that is not SEMI or ANTI. It:
//   - reads both sides (stream names with optional aliases; a self-join
//     needs an alias on each side);
//   - makes the scope over the joined batch: the left input's layout, then
//     the right input's, so a.x and b.x bind to their sides and an
//     unqualified name on both sides is an error that lists both;
//   - splits the condition (ON, or a comma join's WHERE) into key equalities
//     (columns of the two sides, of one type), bounds on the difference of
//     the two event times (interval join: BETWEEN, >=, >, <=, < with
//     constant INTERVAL offsets), and the rest; an INNER join's rest is
//     filtered after the join, an outer join's rest is refused;
//   - names the late outputs (LATE INTO SIDE 'x', 'y' in FROM order, or
//     late-<name>).
//
// Errors point at the join: no equality between the sides (with the
// condition's caret), keys of two types, an outer join's condition it cannot
// evaluate inside the join.
func ruleBothJoin(sp *selectPlan, join *ast.Join, kind parser.JoinKind) error {
	sides := [2]ast.ResultSetNode{joinTree(join.Left), joinTree(join.Right)}
	both := &plan.BothJoin{LateOutput: [2]int{-1, -1}}
	switch {
	case kind == parser.FullJoin:
		both.Type = plan.FullJoin
	case join.Tp == ast.LeftJoin:
		both.Type = plan.LeftJoin
	case join.Tp == ast.RightJoin:
		both.Type = plan.RightJoin
	}
	both.Simplified = sp.sel.Simplified[join]
	if join.NaturalJoin || len(join.Using) > 0 { // (ruleJoinUsing rewrites the query's own; this is an inner one)
		return parser.Errorf(sp.pos(join.Right), "USING and NATURAL JOIN join two relations here; join more with ON (a JOIN b ON a.k = b.k JOIN c ON b.k = c.k)")
	}
	// each side is a relation, or a join of relations (more than two in one
	// FROM, rule_join_multi.go): its relations, in FROM order
	var rels [2][]fromLeaf
	for s, n := range sides {
		var err error
		if rels[s], err = sp.leaves(n); err != nil {
			return err
		}
	}
	if err := sp.routeJoined(rels[:]); err != nil { // (pending side branches: rule_route_join.go)
		return err
	}
	seen := map[string]fromLeaf{}
	for _, l := range append(append([]fromLeaf(nil), rels[0]...), rels[1]...) {
		if o, ok := seen[catalog.FoldName(l.name)]; ok {
			what := "two relations of the join"
			if len(seen) == 1 && len(rels[0])+len(rels[1]) == 2 {
				what = "both sides of the join"
			}
			if unaliased(l.name, l.st) {
				return parser.Errorf(sp.pos(l.ts), "%s are subqueries without an alias: give each one (FROM (SELECT …) AS a JOIN (SELECT …) AS b ON a.k = b.k)", what)
			}
			return parser.Errorf(sp.pos(l.ts), "%s are named %s: give each an alias (FROM %s a JOIN %s b ON ...)", what, catalog.QuoteName(l.name), fromText(o.st.Name), fromText(l.st.Name))
		}
		seen[catalog.FoldName(l.name)] = l
	}
	sel := sp.sel
	// an INNER join's WHERE conjuncts that read one side only, when that side
	// is a join, filter that join's rows (pushed down, as Flink does), so a
	// comma join of three relations finds each join's equalities
	var push [2][]ast.ExprNode
	pushed := map[ast.ExprNode]bool{}
	if both.Type == plan.InnerJoin && sp.q.Where != nil {
		for _, c := range conjuncts(sp.q.Where, nil) {
			if s := pushSide(c, rels); s >= 0 && len(rels[s]) > 1 {
				push[s] = append(push[s], c)
				pushed[c] = true
			}
		}
	}
	// LATE INTO SIDE 'x', 'y' names the late outputs of the first two
	// relations in FROM order
	lateNames, latePos := [2]string{sel.Late, sel.Late2}, [2]int{sel.LatePos, sel.Late2Pos}
	sp.sideRels = [2][]relation{}
	for s, n := range sides {
		in := &both.Inputs[s]
		if j, ok := n.(*ast.Join); ok {
			var late [2]string
			var lpos [2]int
			if s == 0 {
				late, lateNames = lateNames, [2]string{}
				lpos = latePos
			} else if len(rels[0]) == 1 {
				late[0], lpos[0] = lateNames[1], latePos[1]
				lateNames[1] = ""
			}
			st, rs, err := sp.joinRelation(j, push[s], late, lpos)
			if err != nil {
				return err
			}
			in.Stream, in.Name = st, st.Name
			sp.sideRels[s] = rs
			for _, r := range rs {
				for _, c := range r.stream.Columns {
					in.Names = append(in.Names, r.name+"."+c.Name)
				}
			}
		} else {
			in.Stream, in.Name = rels[s][0].st, rels[s][0].name
		}
		in.Types, in.WatermarkCol = batchLayout(in.Stream)
		if in.Stream.Watermark != nil {
			var err error
			if in.Watermark, err = CompileWatermark(in.Stream); err != nil {
				return err
			}
		}
	}
	rts, _ := sides[1].(*ast.TableSource)
	both.Late = [2]string{"late-" + both.Inputs[0].Name, "late-" + both.Inputs[1].Name}
	// LATE INTO SIDE names the late outputs in FROM order; an input it does
	// not name keeps its default (LATE INTO SIDE 'x' names the left one's).
	for s, name := range lateNames {
		if name != "" {
			both.Late[s], both.LateNamed[s], both.LatePos[s] = name, true, latePos[s]
		}
	}
	var conds []ast.ExprNode
	onConds := map[ast.ExprNode]bool{}
	if join.On != nil {
		conds = conjuncts(join.On.Expr, nil)
		for _, c := range conds {
			onConds[c] = true
		}
	}
	if sp.q.Where != nil && (join.On == nil || both.Type == plan.InnerJoin) {
		// a comma join's condition is in WHERE; an INNER JOIN's WHERE is
		// part of its condition too (its time bounds make an interval join,
		// as Flink pushes them into the join)
		for _, c := range conjuncts(sp.q.Where, nil) {
			if !pushed[c] {
				conds = append(conds, c)
			}
		}
	}
	// Key equalities between expressions (MOD(b.auction, 10000) = s.key)
	// are computed into columns appended to their input's layout: a first
	// pass finds them, a second plans over the layouts that hold them.
	sp.keyNodes = [2][]joinKeyNode{}
	var rest []ast.ExprNode
	for pass := 0; ; pass++ {
		found := len(sp.keyNodes[0]) + len(sp.keyNodes[1])
		if err := sp.joinScope(both); err != nil {
			return err
		}
		both.Keys, both.NullSafe = [2][]int{}, nil
		if sp.q.Where != nil && (join.On == nil || both.Type == plan.InnerJoin) {
			sp.consumed = map[ast.ExprNode]bool{}
		}
		var err error
		if rest, err = sp.joinCondition(both, conds, len(both.Inputs[0].Types)); err != nil {
			return err
		}
		if len(sp.keyNodes[0])+len(sp.keyNodes[1]) == found || pass > 0 {
			break
		}
	}
	for c := range pushed {
		sp.consumed[c] = true // (a side's join filters by it)
	}
	asOf, temporal := parser.AsOf{}, false // (FOR SYSTEM_TIME AS OF after the right side: a temporal join)
	if rts != nil {
		if tn, ok := rts.Source.(*ast.TableName); ok {
			asOf, temporal = sel.AsOf[tn]
		}
	}
	if len(both.Keys[0]) == 0 {
		if temporal {
			// (its error says which equality: one on the right side's
			// PRIMARY KEY, with a left column of its type)
			if err := temporalJoin(both, asOf); err != nil {
				return err
			}
		}
		// the caret: at the ON condition, at a comma (or CROSS) join's WHERE
		// condition, which its equality would be in, and at the second
		// relation when there is neither
		at := sp.pos(join.Right)
		if join.On != nil {
			at = sp.pos(join.On.Expr)
		} else if sp.q.Where != nil {
			at = sp.pos(sp.q.Where)
		}
		from, q := exampleRels([2]string{both.Inputs[0].Name, both.Inputs[1].Name}, [2]*catalog.Stream{both.Inputs[0].Stream, both.Inputs[1].Stream})
		such := fmt.Sprintf("%s.k = %s.k", q[0], q[1])
		if from != q {
			such = fmt.Sprintf("%s JOIN %s ON %s", from[0], from[1], such)
		}
		return parser.Errorf(at, "a join needs at least one equality between its two sides (SPEC 2.7), such as %s", such)
	}
	if both.Type != plan.InnerJoin && len(rest) > 0 {
		// an outer join's other ON terms decide which pairs join (a row
		// whose pairs all fail them is padded), so they are the join's own
		// (SPEC 2.7; Flink's join condition), not a filter after it
		for _, c := range rest {
			e, err := sp.sc.compile(c)
			if err != nil {
				return err
			}
			if e.Type != catalog.Boolean && e.Type != catalog.Unknown {
				return parser.Errorf(sp.pos(c), "a join condition is BOOLEAN, and this is %s", e.Type)
			}
			both.Residual = append(both.Residual, e)
		}
		rest = nil
	}
	for _, c := range rest {
		if sp.consumed == nil || onConds[c] {
			sp.rest = append(sp.rest, c) // an inner join's other conditions filter its rows
		}
	}
	// the keys and time bounds are compiled: what the scope compiles from
	// now on reads the joined rows (column pruning's JoinInput.Pass; the
	// conditions left in rest are compiled again, by ruleWhere or
	// rulePushdown)
	sp.sc.reads = make([]bool, len(sp.sc.uses))
	if temporal {
		// (a temporal LEFT JOIN's other ON terms are tested on the
		// version each left row finds: op.TemporalSpec.Residual)
		if err := temporalJoin(both, asOf); err != nil {
			return err
		}
		if in := &both.Inputs[1]; both.Temporal && finalVersions(in.Stream) {
			in.FinalVersions, in.Watermark = true, nil
		}
	}
	if !both.Temporal {
		both.Window = windowJoin(both)
	}
	for s := range 2 {
		// SPEC 2.8: a join over an updating input retracts its joined rows
		// (a regular join, op.Join with JoinSpec.Changes); a temporal join's
		// versioned side takes changes as versions. Interval and window joins
		// read append-only inputs (Flink refuses changes there too): their
		// state leaves by the watermarks, and a retraction could come after.
		in := both.Inputs[s].Stream
		if in == nil || both.Temporal && s == 1 {
			continue
		}
		why := notInTimeOrder(in)
		if why == "" {
			continue
		}
		at := sp.pos(join.Left)
		if s == 1 {
			at = sp.pos(join.Right)
		}
		switch {
		case both.Temporal:
			return parser.Errorf(at, "the temporal join's left input %s is updating (%s, SPEC 2.8): a temporal join reads append-only rows on its left (as Flink's); join the relation it reads before it updates", in.Name, why)
		case both.Window || both.Interval:
			return parser.Errorf(at, "the join's input %s is updating (%s, SPEC 2.8), and an %s reads append-only inputs (as Flink's): its state leaves as the watermarks pass, and a retraction could come after; drop the time bounds for a regular join, or join the relation it reads before it updates", in.Name, why, both.Kind())
		}
		both.Changes[s] = readsChanges(in) // (a regular join: a bounded side's rows retract too, so no lookup join)
		if in.Watermark != nil {
			// its rows come as the operator decides them, not in time
			// order: the join reads it without event time, so none is
			// late (plan.JoinInput.NoTime)
			both.Inputs[s].NoTime = "its rows are changes, read without event time: they come as " + in.Name + " decides them, not in time order"
			if !both.Changes[s] {
				both.Inputs[s].NoTime = "a deduplication keeping the last row: its final rows come at its input's end in key order, read without event time"
			}
		}
	}
	// SPEC 2.7's kinds, the first that fits: window, interval, temporal, then
	// lookup (INNER or LEFT with a bounded right side, read whole first:
	// append-only), then regular. A join the WHERE simplified from a RIGHT
	// or FULL one (rule_simplify_outer_join.go) whose right side has event
	// time keeps the regular kind its written type has: a lookup join would
	// read the right side whole, where the written join holds its rows by
	// event time and sends its late rows to its late output, and the rows
	// must be the written query's.
	written := strings.TrimSpace(strings.Split(both.Simplified, "->")[0])
	heldRight := (written == "RIGHT" || written == "FULL") && both.Inputs[1].Stream.Watermark != nil
	if !both.Interval && !both.Temporal && !both.Changes[0] && !both.Changes[1] && (both.Type == plan.InnerJoin || both.Type == plan.LeftJoin) && !heldRight && both.Inputs[1].Stream.Bounded() {
		both.Lookup = true
	}
	if !both.Interval && !both.Temporal && !both.Lookup {
		both.StateTTL = sp.p.StateTTL // (a regular join, SPEC 2.7's table)
	}
	// a regular outer join is updating (SPEC 2.8: a row without a partner
	// is retracted when one comes): its outputs carry the kinds
	// (rule_changelog.go)
	if err := routedSides(both, sp.pos(join)); err != nil {
		return err
	}
	both.Text = strings.TrimSpace(sp.p.text(sel))
	sp.both = both
	return nil
}

// finalVersions reports whether st is the final result of a deduplication
// keeping the last row over a bounded input, or a projection, filter or
// UNION ALL of one (plan.Derived.VersionTime with a Rank whose Bounded is
// set, not 'execution.runtime-mode' = 'streaming'): its rows come at that
// input's end in key order, so a watermark computed over them would call
// versions late that are not (plan.JoinInput.FinalVersions).
func finalVersions(st *catalog.Stream) bool {
	d := plan.DerivedOf(st)
	if d == nil || !d.VersionTime {
		return false
	}
	for _, j := range d.Parts {
		if r := j.Main.Rank; r != nil {
			if r.Bounded {
				return true
			}
		} else if finalVersions(j.Stream) {
			return true
		}
	}
	return false
}

// procTimeJoin plans JOIN r FOR SYSTEM_TIME AS OF l.p where p is a
// PROCTIME() column of the left side (Flink's processing-time temporal
// join, its lookup join's syntax): each left row joins r as it is when the
// row is processed. Against a bounded r (a file, values) that is SPEC 2.7's
// lookup join: r is read whole first, and every left row sees all of it.
// It returns a planning error for other join types, time bounds, or an
// unbounded r, saying what to write.
func procTimeJoin(both *plan.BothJoin, a parser.AsOf) error {
	r := &both.Inputs[1]
	switch {
	case both.Type != plan.InnerJoin && both.Type != plan.LeftJoin:
		return parser.Errorf(a.Pos, "a temporal join is INNER or LEFT (SPEC 2.7, as Flink's), not %s", both.Type)
	case both.Interval:
		return parser.Errorf(a.Pos, "a temporal join's condition holds the key equalities only: drop the bounds on the event times")
	case !r.Stream.Bounded():
		return parser.Errorf(a.Pos, "a processing-time temporal join (FOR SYSTEM_TIME AS OF a PROCTIME() column) reads its right side whole first, and %s is unbounded: join a bounded one (a file), or join by event time (FOR SYSTEM_TIME AS OF the left side's WATERMARK FOR column, SPEC 2.7)", r.Stream.Name)
	}
	both.Why = "" // (a lookup join: ruleJoinBoth marks it, r being bounded)
	return nil
}

// temporalJoin makes both an event-time temporal join (SPEC 2.7's table:
// JOIN r FOR SYSTEM_TIME AS OF l.t, Flink's syntax; a the clause): INNER or
// LEFT, the AS OF column the left side's event time, the right side with
// event time and a PRIMARY KEY that the condition's key equalities are. It
// returns a planning error at the clause that says what to write otherwise.
func temporalJoin(both *plan.BothJoin, a parser.AsOf) error {
	l, r := &both.Inputs[0], &both.Inputs[1]
	q, col, qualified := strings.Cut(a.Col, ".")
	if !qualified {
		q, col = "", a.Col
	}
	if q == "" || strings.EqualFold(q, l.Name) {
		for c, sc := range l.Stream.Columns {
			if strings.EqualFold(sc.Name, col) && plan.IsProcTime(l.Stream, c) {
				return procTimeJoin(both, a)
			}
		}
	}
	switch {
	case both.Type != plan.InnerJoin && both.Type != plan.LeftJoin:
		return parser.Errorf(a.Pos, "a temporal join is INNER or LEFT (SPEC 2.7, as Flink's), not %s", both.Type)
	case l.TimeCol() < 0:
		return parser.Errorf(a.Pos, "a temporal join picks versions by the left side's event time, and %s has none: %s", l.Stream.Name, addWatermarkHint(l.Stream, ""))
	case r.TimeCol() < 0:
		return parser.Errorf(a.Pos, "a temporal join's versioned side %s needs event time (a WATERMARK FOR the column from which each version is valid); processing-time temporal joins are not supported", relText(r.Name, r.Stream))
	case both.Interval:
		return parser.Errorf(a.Pos, "a temporal join's condition holds the key equalities only: drop the bounds on the event times (the version valid at the left row's time is the one joined)")
	}
	lt := l.Stream.Columns[l.TimeCol()].Name
	if len(l.Names) > l.TimeCol() {
		// the left side is a join of relations (a FROM of more,
		// rule_join_multi.go): a.Col names its time column as the query
		// does, by the relation it comes from (a.t, or t when no other
		// relation has that name)
		at := -1
		for i, n := range l.Names {
			nq, nc, _ := strings.Cut(n, ".")
			if strings.EqualFold(nc, col) && (q == "" || strings.EqualFold(nq, q)) {
				if at >= 0 {
					at = -1 // (unqualified and on two relations: not the time column by itself)
					break
				}
				at = i
			}
		}
		if at != l.TimeCol() {
			return parser.Errorf(a.ColPos, "FOR SYSTEM_TIME AS OF takes the left side's event-time column %s, not %s", l.Names[l.TimeCol()], a.Col)
		}
	} else if !strings.EqualFold(col, lt) || q != "" && !strings.EqualFold(q, l.Name) {
		if unaliased(l.Name, l.Stream) {
			return parser.Errorf(a.ColPos, "FOR SYSTEM_TIME AS OF takes the left side's event-time column %s, not %s: give the subquery an alias, (SELECT …) AS s, and write s.%s", lt, a.Col, lt)
		}
		return parser.Errorf(a.ColPos, "FOR SYSTEM_TIME AS OF takes the left side's event-time column %s.%s, not %s", l.Name, lt, a.Col)
	}
	pk := r.Stream.PrimaryKey
	if len(pk) == 0 {
		if plan.DerivedOf(r.Stream) != nil {
			return parser.Errorf(a.Pos, "a temporal join's versioned side %s needs a key whose versions it holds (SPEC 2.7): a view or subquery has one when it is an updating GROUP BY selecting its keys, or a deduplication keeping the last row (ROW_NUMBER() OVER (PARTITION BY k ORDER BY t DESC) ... WHERE rn = 1) selecting k", relText(r.Name, r.Stream))
		}
		return parser.Errorf(a.Pos, "a temporal join's versioned side %s needs a PRIMARY KEY (...) NOT ENFORCED: the key whose versions it holds (SPEC 2.7)", r.Stream.Name)
	}
	var want []int
	for _, k := range pk {
		for c, sc := range r.Stream.Columns {
			if strings.EqualFold(sc.Name, k) {
				want = append(want, c)
			}
		}
	}
	got := append([]int(nil), both.Keys[1]...)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		return parser.Errorf(a.Pos, "a temporal join's ON needs an equality between a column of the left side %s and each column of the PRIMARY KEY of %s (%s), once each, and no other equality between a column of each side (SPEC 2.7: that key picks the version joined); other terms are allowed (conditions on one side, comparisons other than =): write ON %s", relText(l.Name, l.Stream), relText(r.Name, r.Stream), strings.Join(pk, ", "), pkCondition(both, want))
	}
	both.Temporal = true
	if d := plan.DerivedOf(r.Stream); d != nil {
		both.KeepVersions = d.KeepsKeys
	}
	return nil
}

// pkCondition writes the key equalities a temporal join needs, for a
// message: each column of the right side's primary key (want, its columns)
// equalled to a column of the left side of the same type, the one of the
// same name first (o.cur = r.cur), else the first in the left side's
// order; when the left side has no column of that type, a placeholder
// that names the type (o.<a VARCHAR column, or a CAST to VARCHAR> = r.cur).
func pkCondition(both *plan.BothJoin, want []int) string {
	l, r := &both.Inputs[0], &both.Inputs[1]
	var parts []string
	for _, k := range want {
		key := r.Stream.Columns[k]
		left := ""
		for c, lc := range l.Stream.Columns {
			if lc.Type != key.Type || left != "" && !strings.EqualFold(lc.Name, key.Name) {
				continue
			}
			left = l.Name + "." + lc.Name
			if c < len(l.Names) { // (a left side that is itself a join names its columns by their relations)
				left = l.Names[c]
			}
			if strings.EqualFold(lc.Name, key.Name) {
				break
			}
		}
		if left == "" {
			left = fmt.Sprintf("%s.<a %s column, or a CAST to %s>", l.Name, key.Type, key.Type)
		}
		parts = append(parts, left+" = "+r.Name+"."+key.Name)
	}
	return strings.Join(parts, " AND ")
}

// joinCondition sorts the conjuncts of a join's condition into both's keys
// and time bounds, and returns the others. For a comma join (sp.consumed
// set) it marks the conjuncts it used, which are then no WHERE of the query.
func (sp *selectPlan) joinCondition(both *plan.BothJoin, conds []ast.ExprNode, lw int) ([]ast.ExprNode, error) {
	var rest []ast.ExprNode
	lo, hi := int64(0), int64(0)
	haveLo, haveHi := false, false
	var why string
	lt, rt := both.Inputs[0].TimeCol(), both.Inputs[1].TimeCol()
	// timeOf says whether e is side s's event time plus a constant (ms).
	timeOf := func(e *plan.Expr) (side int, off int64, ok bool) {
		if e.Op == plan.OpAddInterval && e.Args[0].Op == plan.OpCol {
			off, e = e.Param, e.Args[0]
		} else if (e.Op == plan.OpAdd || e.Op == plan.OpSub) && e.Type == catalog.BigInt && e.Args[0].Op == plan.OpCol && e.Args[1].Const {
			// a BIGINT time plus a constant: milliseconds (SPEC 2.7: INTERVAL
			// arithmetic on any BIGINT column is in milliseconds)
			v := plan.Constants().Fold(e.Args[1])
			if v.Null {
				return 0, 0, false
			}
			off = v.I
			if e.Op == plan.OpSub {
				off = -off
			}
			e = e.Args[0]
		}
		switch {
		case e.Op != plan.OpCol:
			return 0, 0, false
		case lt >= 0 && e.Col == lt:
			return 0, off, true
		case rt >= 0 && e.Col == lw+rt:
			return 1, off, true
		}
		return 0, 0, false
	}
	// bound adds "a cmp b" with a and b times: a bound on d = left.t - right.t.
	bound := func(a, b *plan.Expr, op opcode.Op) bool {
		sa, oa, ok1 := timeOf(a)
		sb, ob, ok2 := timeOf(b)
		if !ok1 || !ok2 || sa == sb {
			return false
		}
		// a.t + oa  op  b.t + ob; as d = l - r with a the left: d op ob - oa
		c := ob - oa
		if sa == 1 { // r op l + c'  <=>  d flipped-op -c'
			c, op = -c, mirrorCmp(op)
		}
		switch op {
		case opcode.GE, opcode.GT:
			if op == opcode.GT {
				c++
			}
			if !haveLo || c > lo {
				lo, haveLo = c, true
			}
		case opcode.LE, opcode.LT:
			if op == opcode.LT {
				c--
			}
			if !haveHi || c < hi {
				hi, haveHi = c, true
			}
		default:
			return false
		}
		return true
	}
	readsTime := func(n ast.ExprNode) bool {
		var c colCollector
		n.Accept(&c)
		for _, col := range c.cols {
			if idx, _, err := sp.sc.column(col); err == nil && (lt >= 0 && idx == lt || rt >= 0 && idx == lw+rt) {
				return true
			}
		}
		return false
	}
	var bounds []ast.ExprNode // the conjuncts used as time bounds
	for _, c := range conds {
		keys := len(both.Keys[0])
		used, err := sp.joinConjunct(both, c, lw, bound, func(e *plan.Expr) bool { _, _, ok := timeOf(e); return ok })
		if err != nil {
			return nil, err
		}
		if used {
			if sp.consumed != nil {
				sp.consumed[c] = true
			}
			if len(both.Keys[0]) == keys {
				bounds = append(bounds, c)
			}
			continue
		}
		if lt >= 0 && rt >= 0 && readsTime(c) && why == "" {
			why = "a condition on the event times is not a constant offset of the other side's time: " + exprText(c, sp.sel.Casts)
		}
		rest = append(rest, c)
	}
	switch {
	case haveLo && haveHi && lo <= hi:
		both.Interval, both.Lo, both.Hi = true, lo, hi
	case haveLo || haveHi:
		why = "the event times are bounded on one side only (an interval join needs a lower and an upper bound)"
		if haveLo && haveHi {
			why = emptyInterval(both, lo, hi)
			both.NoPairs = why + ": the join matches no pair (an outer join pads every row of its outer side); Flink runs it so too, with a warning; write the lower bound first"
			sp.p.warn(parser.Errorf(sp.pos(bounds[0]), "the time bounds of this join leave no interval: %s", both.NoPairs))
		}
		// the bounds are still conditions of the join: an inner join filters by
		// them; an outer join cannot (refused below by its rest)
		for _, c := range bounds {
			delete(sp.consumed, c)
		}
		rest = append(rest, bounds...)
	}
	both.Why = why
	return rest, nil
}

// emptyInterval says why time bounds lo > hi (ms, on left.t - right.t)
// make no interval join (SPEC 2.7): no pair of rows has a time difference
// at least lo and at most hi.
func emptyInterval(both *plan.BothJoin, lo, hi int64) string {
	l, r := &both.Inputs[0], &both.Inputs[1]
	return fmt.Sprintf("%s.%s - %s.%s would be at least %d ms and at most %d ms",
		l.Name, l.Stream.Columns[l.TimeCol()].Name, r.Name, r.Stream.Columns[r.TimeCol()].Name, lo, hi)
}

// joinConjunct takes one conjunct of a join's condition: a key equality
// (added to both.Keys; a.k IS NOT DISTINCT FROM b.k, or a.k <=> b.k, a
// null-safe one, marked in both.NullSafe: Flink's join key whose NULLs
// match each other) or a time bound (given to bound); it reports whether
// it used c.
func (sp *selectPlan) joinConjunct(both *plan.BothJoin, c ast.ExprNode, lw int, bound func(a, b *plan.Expr, op opcode.Op) bool, isTime func(*plan.Expr) bool) (bool, error) {
	c = unparen(c)
	switch x := c.(type) {
	case *ast.BetweenExpr:
		if x.Not {
			return false, nil
		}
		e, err1 := sp.sc.compile(x.Expr)
		l, err2 := sp.sc.compile(x.Left)
		r, err3 := sp.sc.compile(x.Right)
		if err1 != nil || err2 != nil || err3 != nil {
			return false, firstErr(err1, err2, err3)
		}
		if !isTime(e) || !isTime(l) || !isTime(r) {
			return false, nil
		}
		return bound(e, l, opcode.GE) && bound(e, r, opcode.LE), nil
	case *ast.BinaryOperationExpr:
		switch x.Op {
		case opcode.EQ, opcode.NullEQ:
			a, err1 := sp.sc.compile(x.L)
			b, err2 := sp.sc.compile(x.R)
			if err1 != nil || err2 != nil {
				return false, firstErr(err1, err2)
			}
			sa, sb := exprSide(a, lw), exprSide(b, lw)
			if sa < 0 || sb < 0 || sa == sb {
				return false, nil
			}
			an, bn := x.L, x.R
			if sa == 1 {
				a, b, an, bn = b, a, bn, an
			}
			// a key that is not a column is computed into its input's layout
			// (joinScope): its column there, found by its node; so is a
			// BIGINT key equal to a DOUBLE one, widened (SPEC 2.7: keys
			// compare by SPEC 2's =, BIGINT with DOUBLE as DOUBLE)
			wa := a.Type == catalog.BigInt && b.Type == catalog.Double
			wb := b.Type == catalog.BigInt && a.Type == catalog.Double
			if a.Op != plan.OpCol || wa {
				a = sp.keyColumn(both, 0, an, a, 0, wa)
			}
			if b.Op != plan.OpCol || wb {
				b = sp.keyColumn(both, 1, bn, b, lw, wb)
			}
			if a == nil || b == nil {
				return true, nil // (the next pass plans them)
			}
			if a.Type.IsNested() || b.Type.IsNested() {
				return false, parser.Errorf(sp.pos(c), "the join key %s (%s) is an ARRAY, MAP or ROW: join on its parts (x[1], x['k'], x.field) or on CAST(x AS VARCHAR) (SPEC 2.10)", a.Text, a.Type)
			}
			if a.Type != b.Type {
				return false, parser.Errorf(sp.pos(c), "the join keys %s (%s) and %s (%s) are of two types: join on columns of one type (CAST one side in a subquery, or declare both alike)", a.Text, a.Type, b.Text, b.Type)
			}
			both.Keys[0] = append(both.Keys[0], a.Col)
			both.Keys[1] = append(both.Keys[1], b.Col-lw)
			if x.Op == opcode.NullEQ {
				both.NullSafe = append(both.NullSafe, make([]bool, len(both.Keys[0])-len(both.NullSafe))...)
				both.NullSafe[len(both.Keys[0])-1] = true
			}
			sp.sc.use(a.Col)
			sp.sc.use(b.Col)
			if isTime(a) && isTime(b) { // equal event times: also the bounds [0, 0] (a window join's window_end)
				bound(a, b, opcode.GE)
				bound(a, b, opcode.LE)
			}
			return true, nil
		case opcode.GE, opcode.GT, opcode.LE, opcode.LT:
			a, err1 := sp.sc.compile(x.L)
			b, err2 := sp.sc.compile(x.R)
			if err1 != nil || err2 != nil {
				return false, firstErr(err1, err2)
			}
			return bound(a, b, x.Op), nil
		}
	}
	return false, nil
}

// unparen returns n without the parentheses around it.
func unparen(n ast.ExprNode) ast.ExprNode {
	for {
		p, ok := n.(*ast.ParenthesesExpr)
		if !ok {
			return n
		}
		n = p.Expr
	}
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// bothOutputName is the output name of the bare column reference cn in a
// join's query: the column's declared name (SPEC 2.7: "a.*, b.*, each
// qualified name"), "" when cn names no column of either side.
func bothOutputName(sc *scope, cn *ast.ColumnNameExpr) string {
	for _, r := range sc.rels {
		if t := cn.Name.Table.O; t != "" && !strings.EqualFold(t, r.name) {
			continue
		}
		if i := r.stream.Column(cn.Name.Name.O); i >= 0 {
			return r.stream.Columns[i].Name
		}
	}
	return ""
}

// flinkSuffixes renames the later of two output columns of one name as Flink
// does for a join's output (SPEC 2.7: k, k0, k1, ...): each repeated name gets
// the first suffix number that no column has.
func flinkSuffixes(cols []catalog.Column) {
	taken := map[string]bool{}
	for _, c := range cols {
		taken[catalog.FoldName(c.Name)] = true
	}
	seen := map[string]bool{}
	for i, c := range cols {
		k := catalog.FoldName(c.Name)
		if !seen[k] {
			seen[k] = true
			continue
		}
		for n := 0; ; n++ {
			name := fmt.Sprintf("%s%d", c.Name, n)
			if !taken[catalog.FoldName(name)] {
				cols[i].Name = name
				taken[catalog.FoldName(name)] = true
				break
			}
		}
	}
}

// ruleBothJoinJob gives a job that reads a join of two streams (SPEC 2.7) its
// join and the join's two late outputs (after the job's other outputs; a
// default one, late-<name>, is shown once a row reaches it, as a window's
// default late output). A name LATE INTO SIDE gave is a side output like any
// other (SPEC 2.4, 2.1's rules): it is a planning error (*parser.Error at the
// name) when a stream the job reads has an errors side output of that name
// (SPEC 1). A late output named like another side output of the job
// (LATE INTO SIDE 'x', 'x', or a side branch's 'x') is that output when the
// columns are the same, and a planning error that names both schemas when
// not (SPEC 2.1: one side name, one schema; SPEC 2.4: LATE INTO SIDE may
// share a name only so).
func ruleBothJoinJob(j *Job) error {
	for _, b := range j.AllBranches() {
		if b.Both != nil {
			j.Both = b.Both
			break
		}
	}
	if j.Both == nil {
		return nil
	}
	var errSides map[string]*catalog.Stream
	if j.Both.LateNamed[0] || j.Both.LateNamed[1] {
		errSides = j.ErrorsSides()
	}
	for s, in := range j.Both.Inputs {
		if name := j.Both.Late[s]; j.Both.LateNamed[s] {
			if st := errSides[name]; st != nil {
				return parser.Errorf(j.Both.LatePos[s], "late side output '%s' has the name of the errors side output of stream %s, which the join reads; pick another name", name, st.Name)
			}
		}
		found := -1
		for k, o := range j.Outputs {
			if o.Name == j.Both.Late[s] && o.Sink == nil && !(j.Main != nil && k == 0) {
				found = k
				break
			}
		}
		if found >= 0 {
			if !sameSchema(j.Outputs[found].Columns, in.Stream.Columns) {
				return parser.Errorf(j.Both.LatePos[s], "late side output '%s' has the columns of %s, %s, but side output '%s' has %s (SPEC 2.1: one side name, one schema); give one another name, e.g. LATE INTO SIDE 'x', 'y'", j.Both.Late[s], in.Name, plan.SchemaText(in.Stream.Columns), j.Both.Late[s], plan.SchemaText(j.Outputs[found].Columns))
			}
			j.Both.LateOutput[s] = found
			continue
		}
		j.Both.LateOutput[s] = len(j.Outputs)
		j.Outputs = append(j.Outputs, Output{Name: j.Both.Late[s], Columns: in.Stream.Columns, Late: !j.Both.LateNamed[s]})
	}
	return nil
}

// joinWildcard expands * or t.* over a join (SPEC 2.7: a.*, b.*): the left
// input's columns, then the right input's, each named as declared (repeated
// names get their suffixes in ruleOutputNames).
func (sp *selectPlan) joinWildcard(f *ast.SelectField) error {
	tbl := f.WildCard.Table.O
	found := false
	for _, r := range sp.sc.rels {
		if tbl != "" && !strings.EqualFold(tbl, r.name) {
			continue
		}
		found = true
		for i, c := range r.stream.Columns {
			idx := r.offset + i
			sp.sc.use(idx)
			sp.b.Project = append(sp.b.Project, &Expr{Op: plan.OpCol, Type: c.Type, Col: idx, Text: r.name + "." + c.Name})
			sp.b.Columns = append(sp.b.Columns, c)
		}
	}
	if !found {
		return parser.Errorf(sp.pos(f), "unknown stream or alias '%s' in %s.*; the query reads %s", tbl, tbl, sp.sc.relNames())
	}
	return nil
}

// declaredName returns the declared name of the column cn names (a column of
// the query's stream, or of either side of a join), and whether it names one.
func (sp *selectPlan) declaredName(cn *ast.ColumnNameExpr) (string, bool) {
	if sp.both == nil {
		i := sp.st.Column(cn.Name.Name.O)
		if i < 0 {
			return "", false
		}
		return sp.st.Columns[i].Name, true
	}
	n := bothOutputName(sp.sc, cn)
	return n, n != ""
}

// joinScope lays out both's inputs (each stream's columns, its
// CURRENT_WATERMARK column, then its computed key columns, sp.keyNodes) with
// each computed key compiled over its own input, and makes the query's scope
// over the joined batch (the left input's layout, then the right input's)
// and its joined relation.
func (sp *selectPlan) joinScope(both *plan.BothJoin) error {
	sel := sp.sel
	for s := range both.Inputs {
		in := &both.Inputs[s]
		in.Types, in.WatermarkCol = batchLayout(in.Stream)
		in.KeyExprs = nil
		wm := in.WatermarkCol
		own := &scope{rels: sp.inputRels(both, s, 0), locate: sel.Locate, casts: sel.Casts, src: sp.p.Source, funcs: sp.p.Funcs,
			watermark: func(int) int { return wm }, uses: make([]bool, len(in.Types)), ticks: sp.ticks}
		if sp.sideRels[s] != nil {
			own.watermark = func(int) int { return -1 } // (a join's rows have no event time)
		}
		for _, n := range sp.keyNodes[s] {
			e, err := own.compile(n.n)
			if err != nil {
				return err
			}
			if n.widen { // (SPEC 2.7: BIGINT with DOUBLE compares as DOUBLE)
				e = &plan.Expr{Op: plan.OpCast, Type: catalog.Double, Args: []*plan.Expr{e}, Text: "CAST(" + e.Text + " AS DOUBLE)"}
			}
			in.KeyExprs = append(in.KeyExprs, e)
			in.Types = append(in.Types, e.Type)
		}
	}
	sp.st = plan.JoinedStream(both)
	sp.name = sp.st.Name
	lw := len(both.Inputs[0].Types)
	types, _ := batchLayout(sp.st)
	sp.wm = -1
	rels := append(sp.inputRels(both, 0, 0), sp.inputRels(both, 1, lw)...)
	nl := len(sp.inputRels(both, 0, 0))
	sp.sc = &scope{
		rels:   rels,
		locate: sel.Locate, casts: sel.Casts, src: sp.p.Source, funcs: sp.p.Funcs,
		watermark: func(rel int) int {
			s := 0
			if rel >= nl {
				s = 1
			}
			in := both.Inputs[s]
			if in.WatermarkCol < 0 || sp.sideRels[s] != nil {
				return -1
			}
			return s*lw + in.WatermarkCol
		},
		uses:   make([]bool, len(types)),
		ticks:  sp.ticks,
		prefer: -1, // (a name on both sides is ambiguous, SPEC 2.7)
	}
	return nil
}

// inputRels returns the relations input s of both reads, at offset off in
// the joined batch: the input's stream under its name, or, for an input
// that is a join (sp.sideRels), that join's relations.
func (sp *selectPlan) inputRels(both *plan.BothJoin, s, off int) []relation {
	if sp.sideRels[s] == nil {
		return []relation{{stream: both.Inputs[s].Stream, name: both.Inputs[s].Name, offset: off}}
	}
	rels := make([]relation, len(sp.sideRels[s]))
	for i, r := range sp.sideRels[s] {
		r.offset += off
		rels[i] = r
	}
	return rels
}

// exprSide returns the input (0 left, 1 right) whose columns e reads, -1
// when it reads both or none (a constant).
func exprSide(e *plan.Expr, lw int) int {
	side := -1
	var walk func(e *plan.Expr) bool
	walk = func(e *plan.Expr) bool {
		if e == nil {
			return true
		}
		if col := colOf(e); col >= 0 {
			s := 0
			if col >= lw {
				s = 1
			}
			if side >= 0 && side != s {
				return false
			}
			side = s
		}
		for _, a := range e.Args {
			if !walk(a) {
				return false
			}
		}
		return true
	}
	if !walk(e) {
		return -1
	}
	return side
}

// joinKeyNode is a join key computed into its input's layout: the
// expression n, widened from BIGINT to DOUBLE when widen is set (a key
// equal to a DOUBLE key of the other side, SPEC 2.7).
type joinKeyNode struct {
	n     ast.ExprNode
	widen bool
}

// keyColumn returns the column of the computed key n (compiled as e;
// widened to DOUBLE when widen is set) of input s, at offset off in the
// joined batch, when joinScope laid it out; nil when n is new, after adding
// it to sp.keyNodes for the next pass.
func (sp *selectPlan) keyColumn(both *plan.BothJoin, s int, n ast.ExprNode, e *plan.Expr, off int, widen bool) *plan.Expr {
	for k, m := range sp.keyNodes[s] {
		if m.n == n && m.widen == widen && k < len(both.Inputs[s].KeyExprs) {
			in := &both.Inputs[s]
			col := len(in.Types) - len(in.KeyExprs) + k
			t := e.Type
			if widen {
				t = catalog.Double
			}
			return &plan.Expr{Op: plan.OpCol, Type: t, Col: off + col, Text: e.Text}
		}
	}
	sp.keyNodes[s] = append(sp.keyNodes[s], joinKeyNode{n: n, widen: widen})
	return nil
}

// windowJoin reports whether both is a window join (SPEC 2.7): both inputs
// give the rows of the same window (window aggregates, or window TVFs
// without aggregation, Flink's window join of two TVFs), and the condition
// holds window_start = window_start and window_end = window_end. Their
// event times (window_end, or window_time: window_end - 1 ms) are then a
// constant offset apart, so it is an interval join with bounds [offset,
// offset], whose state is one window's rows per side, padded when the
// other side's watermark passes the window's end; windowJoin sets those
// bounds. A condition that bounds the times otherwise is an interval join.
func windowJoin(both *plan.BothJoin) bool {
	l, r := plan.DerivedOf(both.Inputs[0].Stream), plan.DerivedOf(both.Inputs[1].Stream)
	if l == nil || r == nil || !l.Windowed() || !r.Windowed() || !plan.SameWindows(l.Window, r.Window) {
		return false
	}
	var start, end bool
	for k := range both.Keys[0] {
		a, b := both.Keys[0][k], both.Keys[1][k]
		start = start || a == l.WindowStart && b == r.WindowStart
		end = end || a == l.WindowEnd && b == r.WindowEnd
	}
	lo, okL := windowTimeOffset(l)
	ro, okR := windowTimeOffset(r)
	if !start || !end || !okL || !okR || both.Interval && (both.Lo != lo-ro || both.Hi != lo-ro) {
		return false
	}
	both.Interval, both.Lo, both.Hi, both.Why = true, lo-ro, lo-ro, ""
	return true
}

// windowTimeOffset returns how far the event time of a windowed relation
// (plan.Derived.Windowed) is from its window_end: 0 for window_end itself,
// -1 for window_time (window_end - 1 ms); false for another time column.
func windowTimeOffset(d *plan.Derived) (int64, bool) {
	switch {
	case d.TimeCol < 0 || d.TimeCol == d.WindowStart:
		return 0, false
	case d.TimeCol == d.WindowEnd:
		return 0, true
	}
	return -1, true // (timeOfPart's other window column: window_time)
}
