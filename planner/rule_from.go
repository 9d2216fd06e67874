package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/parser"
)

// ruleFrom resolves FROM: the stream the query reads and the name it goes by
// (SPEC 2; no FROM gives one row), the right side of one SEMI / ANTI JOIN (SPEC
// 2.2; other joins are refused), and the scope that binds the query's names to
// the source batch (the stream's columns, then its watermark column).
func ruleFrom(sp *selectPlan) error {
	q, sel := sp.q, sp.sel
	if q.From == nil {
		// SPEC 2: a SELECT without FROM gives one row
		if err := checkNoFrom(q, sp.pos); err != nil {
			return err
		}
		sp.st = noFromStream()
		sp.name = sp.st.Name
	} else {
		join := q.From.TableRefs
		sp.join = join
		if join.Right != nil {
			k := sel.Joins[join]
			if k != parser.SemiJoin && k != parser.AntiJoin { // SPEC 2.7: both sides' columns
				return ruleBothJoin(sp, join, k)
			}
			if k == parser.AntiJoin {
				sp.joinMode = Anti
			}
			var ok bool
			if sp.rightTS, ok = join.Right.(*ast.TableSource); !ok {
				return parser.Errorf(sp.pos(join.Right), "the right side of a join must be a stream name")
			}
		}
		ts, ok := join.Left.(*ast.TableSource)
		if !ok {
			return parser.Errorf(sp.pos(join.Left), "FROM needs a stream name (one SEMI or ANTI JOIN at most)")
		}
		var err error
		if sp.st, sp.name, err = sp.p.source(ts, sp.pos); err != nil {
			return err
		}
	}
	if sel.Unnest != nil {
		return ruleUnnest(sp, sel.Unnest)
	}
	types, wm := batchLayout(sp.st)
	sp.wm = wm
	sp.sc = &scope{
		rels:   []relation{{stream: sp.st, name: sp.name}},
		locate: sel.Locate, casts: sel.Casts, src: sp.p.Source,
		watermark: func(int) int { return wm },
		uses:      make([]bool, len(types)),
		ticks:     sp.ticks,
		funcs:     sp.p.Funcs,
	}
	return nil
}
