package planner

import (
	"slices"

	"streamql/parser"
	"streamql/planner/plan"
)

// ruleSideNames gives each side branch of j its output (SPEC 2.1): outputs are
// main, then the side names in declaration order; two branches may share a side
// name only with the same schema; a side may not be named like the errors side
// output of any stream the job reads, probe or build side, or through a
// relation at any depth (SPEC 1, Bad input; SPEC 2.6).
// It sets Branch.Output, appends to j.Outputs and takes time linear in the
// branches (and their columns).
func ruleSideNames(j *Job) error {
	direct, errSides := j.Streams(), j.ErrorsSides()
	type key struct {
		name string
		sink bool
	}
	byName := make(map[key]int, len(j.Branches)) // side name -> index into j.Outputs: linear in the branches
	for _, b := range j.Branches {
		if r := errSides[b.Side]; r != nil && b.Sink == nil { // (a sink stream is not a side output, SPEC 2.5)
			how := "reads"
			switch {
			case !slices.Contains(direct, r):
				how = "reads through the relation it queries (SPEC 2.6)"
			case r != j.Stream:
				how = "reads as a join's build side"
			}
			return parser.Errorf(b.SidePos, "side output '%s' has the name of the errors side output of stream %s, which the job %s; pick another side name or set 'errors.side' on %s", b.Side, r.Name, how, r.Name)
		}
		k := key{b.Side, b.Sink != nil}
		if found, ok := byName[k]; ok {
			if !sameSchema(j.Outputs[found].Columns, b.Columns) {
				return parser.Errorf(b.SidePos, "side output '%s' is used twice with different columns (%s vs %s); give one branch another name", b.Side, plan.SchemaText(j.Outputs[found].Columns), plan.SchemaText(b.Columns))
			}
			b.Output = found
			continue
		}
		b.Output = len(j.Outputs)
		byName[k] = b.Output
		j.Outputs = append(j.Outputs, Output{Name: b.Side, Columns: b.Columns, Sink: b.Sink})
	}
	return nil
}
