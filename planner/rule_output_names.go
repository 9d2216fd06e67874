package planner

import (
	"streamql/catalog"
	"streamql/parser"
)

// ruleOutputNames refuses two output columns with one name, compared
// case-insensitively (SPEC: names), at the select field of the second. A
// query into a sink stream is not checked: its columns go by position and take
// the sink's names (SPEC 2.5).
func ruleOutputNames(sp *selectPlan) error {
	if sp.sel.Insert != "" || sp.sel.Stream != "" {
		return nil
	}
	if sp.both != nil { // SPEC 2.7: a join's repeated names get Flink's suffixes
		flinkSuffixes(sp.b.Columns)
		return nil
	}
	seen := make(map[string]bool, len(sp.b.Columns))
	for i, c := range sp.b.Columns {
		k := catalog.FoldName(c.Name)
		if seen[k] {
			return parser.Errorf(sp.pos(sp.fieldOf[i]), "the output has two columns named '%s'; give one of them another name with AS", c.Name)
		}
		seen[k] = true
	}
	return nil
}
