package planner

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner/plan"
)

// side bits of the relations an expression references.
const (
	sideLeft  = 1
	sideRight = 2
)

// colCollector gathers the column references of an expression in order,
// not those inside a subquery (which binds its own).
type colCollector struct{ cols []*ast.ColumnNameExpr }

// names returns the column names the references name, each once (by lower
// case), in order of first use, without qualifiers.
func (c *colCollector) names() []ast.CIStr {
	var out []ast.CIStr
	seen := map[string]bool{}
	for _, col := range c.cols {
		if n := col.Name.Name; !seen[n.L] {
			seen[n.L] = true
			out = append(out, n)
		}
	}
	return out
}

func (c *colCollector) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.ColumnNameExpr:
		c.cols = append(c.cols, n)
	case *ast.SubqueryExpr:
		return n, true
	}
	return n, false
}

func (c *colCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// sides reports which sides of the semi or anti join scope sc (twoScope) n
// reads: the probe side's relations (sideLeft) or the build stream, the
// last relation (sideRight).
func (sc *scope) sides(n ast.ExprNode) (int, error) {
	var c colCollector
	n.Accept(&c)
	mask := 0
	for _, col := range c.cols {
		idx, _, err := sc.column(col)
		if err != nil {
			return 0, err
		}
		if idx < sc.build().offset {
			mask |= sideLeft
		} else {
			mask |= sideRight
		}
	}
	return mask, nil
}

// conjuncts splits an AND tree.
func conjuncts(n ast.ExprNode, out []ast.ExprNode) []ast.ExprNode {
	switch x := n.(type) {
	case *ast.ParenthesesExpr:
		return conjuncts(x.Expr, out)
	case *ast.BinaryOperationExpr:
		if x.Op == opcode.LogicAnd {
			return conjuncts(x.R, conjuncts(x.L, out))
		}
	}
	return append(out, n)
}

// build returns the build stream's relation of the semi or anti join
// scope sc (twoScope): the last one.
func (sc *scope) build() relation { return sc.rels[len(sc.rels)-1] }

// one returns a scope of the single relation r of two, at offset 0.
func (sc *scope) one(r int, wm int) *scope {
	rel := sc.rels[r]
	rel.offset = 0
	one := &scope{rels: []relation{rel}, locate: sc.locate, casts: sc.casts, src: sc.src, watermark: func(int) int { return wm }, ticks: sc.ticks, funcs: sc.funcs}
	if r == 0 {
		one.uses = sc.uses // the probe side reads the job's batch
	}
	return one
}

// probeSide returns the scope of the probe side of the semi or anti join
// scope sc (twoScope), over the job's batch: one stream's (one, its
// CURRENT_WATERMARK column wm), or, when the probe rows are a join's of
// two streams, every input's relation at its offset in the joined batch,
// with the join's scope's marks of the columns read (uses, reads: the
// joined rows carry what the semi join's keys and filter read, JoinInput.Pass)
// and a name on both inputs ambiguous (SPEC 2.7).
func (sc *scope) probeSide(wm int) *scope {
	n := len(sc.rels) - 1
	if n == 1 {
		return sc.one(0, wm)
	}
	p := *sc
	p.rels, p.prefer, p.hidden = sc.rels[:n:n], -1, ""
	return &p
}

// buildSide returns the scope of the build stream of the semi or anti join
// scope sc (twoScope), at offset 0 of its own batch.
func (sc *scope) buildSide() *scope { return sc.one(len(sc.rels)-1, -1) }

// andAll compiles conds in s and ANDs them (nil when empty); what names the
// clause for the error when a condition is not BOOLEAN.
func andAll(s *scope, conds []ast.ExprNode, what string) (*Expr, error) {
	var acc *Expr
	var terms []*Expr
	for _, c := range conds {
		e, err := s.compile(c)
		if err != nil {
			return nil, err
		}
		e = coerce(e, catalog.Boolean)
		if e.Type != catalog.Boolean {
			return nil, parser.Errorf(s.pos(c), "%s needs a BOOLEAN condition, got %s (%s)", what, e.Type, e.Text)
		}
		terms = append(terms, e)
		if acc == nil {
			acc = e
		} else {
			acc = logic(opcode.LogicAnd, acc, e)
		}
	}
	if len(terms) > 1 {
		acc.Text = plan.AndText(terms) // once: linear in the number of conditions
	}
	return acc, nil
}

// buildJoin lowers a join condition between left (the probe stream, index 0 of
// two) and right (the build stream) into a Join: key equalities, and conditions
// that reference one side only (SPEC 2.2: anything else is a planning error).
//
// keyless allows a join without key equalities (an uncorrelated EXISTS: every
// probe row matches when the build side has a row).
func (p *Planner) buildJoin(two *scope, mode JoinMode, cond ast.ExprNode, extraKeys [][2]ast.ExprNode, keyless bool, pos int, text string, leftWM int) (*Join, error) {
	right := two.build().stream
	types, _ := batchLayout(right)
	j := &Join{Mode: mode, Build: right, BuildName: two.build().name, BuildTypes: types, Text: text, Pos: pos, ProbeTime: -1, BuildTime: -1}
	if !right.Bounded() {
		// SPEC 2.2: an unbounded build side needs event time on both streams.
		left := two.rels[0].stream
		var missing []string
		for _, st := range []*catalog.Stream{left, right} {
			if st.Watermark == nil {
				missing = append(missing, st.Name)
				if d := plan.DerivedOf(st); d != nil {
					// a relation (SPEC 2.6) has event time through its
					// streams' WATERMARK columns, not a WATERMARK of its own
					what := d.Kind + " " + st.Name
					if strings.EqualFold(d.Kind, st.Name) {
						what = d.Kind // (a subquery in FROM, named by its kind)
					}
					return nil, parser.Errorf(pos, "the %s is unbounded, so the join decides by event time and needs it on both sides, but it has none: select its stream's WATERMARK column in it (an unbounded GROUP BY gives rows without event time), or read a bounded relation", what)
				}
			}
		}
		if len(missing) > 0 {
			return nil, parser.Errorf(pos, "%s is unbounded, so the join decides by event time and needs a WATERMARK on both streams; add WATERMARK FOR <col> AS <col> - INTERVAL '1' SECOND to CREATE STREAM %s (or read a bounded build side)", right.Name, strings.Join(missing, " and "))
		}
		wm, err := CompileWatermark(right) // in the script that declared right
		if err != nil {
			return nil, err
		}
		j.BuildWatermark, j.BuildTime, j.ProbeTime = wm, right.EventTime, left.EventTime
	}
	left, rs := two.probeSide(leftWM), two.buildSide()
	var leftConds, rightConds []ast.ExprNode
	var conds []ast.ExprNode
	if cond != nil {
		conds = conjuncts(cond, nil)
	}
	addKey := func(l, r ast.ExprNode, at ast.Node, nullSafe bool) error {
		le, err := left.compile(l)
		if err != nil {
			return err
		}
		re, err := rs.compile(r)
		if err != nil {
			return err
		}
		le2, re2, ok := unify(le, re)
		if !ok || le2.Type == catalog.Unknown {
			return parser.Errorf(two.pos(at), "join key types differ: %s is %s, %s is %s; use CAST on one side", exprTextOf(le), le.Type, exprTextOf(re), re.Type)
		}
		j.ProbeKeys = append(j.ProbeKeys, le2)
		j.BuildKeys = append(j.BuildKeys, re2)
		j.KeyTypes = append(j.KeyTypes, le2.Type)
		if nullSafe {
			j.NullSafe = append(j.NullSafe, make([]bool, len(j.KeyTypes)-len(j.NullSafe))...)
			j.NullSafe[len(j.KeyTypes)-1] = true
		}
		return nil
	}
	for _, k := range extraKeys {
		if err := addKey(k[0], k[1], k[0], false); err != nil {
			return nil, err
		}
	}
	for _, c := range conds {
		mask, err := two.sides(c)
		if err != nil {
			return nil, err
		}
		switch mask {
		case sideLeft:
			leftConds = append(leftConds, c)
			continue
		case 0, sideRight:
			// a constant condition filters the build side (a subquery's own
			// WHERE): NOT IN counts only the NULLs that pass it (SPEC 2.2)
			rightConds = append(rightConds, c)
			continue
		}
		eq, ok := c.(*ast.BinaryOperationExpr)
		if ok && (eq.Op == opcode.EQ || eq.Op == opcode.NullEQ) { // (IS NOT DISTINCT FROM, <=>: a null-safe key, Flink's)
			lm, err1 := two.sides(eq.L)
			rm, err2 := two.sides(eq.R)
			if err1 == nil && err2 == nil {
				switch {
				case lm == sideLeft && rm == sideRight:
					if err := addKey(eq.L, eq.R, c, eq.Op == opcode.NullEQ); err != nil {
						return nil, err
					}
					continue
				case lm == sideRight && rm == sideLeft:
					if err := addKey(eq.R, eq.L, c, eq.Op == opcode.NullEQ); err != nil {
						return nil, err
					}
					continue
				}
			}
		}
		cx, l := exprText(c, two.casts), two.rels[0].name
		how := fmt.Sprintf("write a JOIN, which outputs each %s row once per matching row (SELECT %s.* FROM ... JOIN ... ON ... AND %s)", l, l, cx)
		if mode == Anti { // (a LEFT JOIN's padded rows are the rows without a partner, SPEC 2.7)
			how = fmt.Sprintf("write a LEFT JOIN and keep its rows without a partner (SELECT %s.* FROM ... LEFT JOIN ... ON ... AND %s WHERE <a right key> IS NULL)", l, cx)
		}
		return nil, parser.Errorf(two.pos(c), "a semi or anti join's condition may compare keys with = (left.col = right.col) or reference one side only (SPEC 2.2); this one mixes both sides: %s; to compare columns of both sides %s, or compute the value on one side first", cx, how)
	}
	if len(j.ProbeKeys) == 0 && !keyless {
		return nil, parser.Errorf(pos, "the join needs at least one key equality between the streams, like %s.k = %s.k", two.rels[0].name, two.build().name)
	}
	var err error
	if j.BuildFilter, err = andAll(rs, rightConds, "a join condition"); err != nil {
		return nil, err
	}
	if j.ProbeFilter, err = andAll(left, leftConds, "a join condition"); err != nil {
		return nil, err
	}
	return j, nil
}
