package planner

import (
	"strings"

	"streamql/parser"
)

// ruleWhere starts the branch and compiles what is left of WHERE (after
// ruleInToSemiJoin) into its BOOLEAN filter (SPEC 2: a WHERE that is NULL drops
// the row; nil when there is none).
func ruleWhere(sp *selectPlan) error {
	sel := sp.sel
	sp.b = &Branch{Side: sel.Side, SidePos: sel.SidePos, Stream: sp.st, Limit: -1, Text: strings.TrimSpace(sp.p.text(sel)), Join: sp.j, Uses: sp.sc.uses, Both: sp.both, Unnest: sp.unnest}
	if sp.both == nil && sp.unnest == nil {
		sp.b.From = sp.name
	}
	sp.b.Line, sp.b.Column = parser.Position(sp.p.Source, sp.start)
	sp.b.Script = sp.p.Script
	var err error
	sp.b.Where, err = andAll(sp.sc, sp.rest, "WHERE")
	return err
}
