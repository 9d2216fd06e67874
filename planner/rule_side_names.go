package planner

import (
	"streamql/parser"
	"streamql/planner/plan"
)

// ruleSideNames gives each side branch of j its output (SPEC 2.1): outputs are
// main, then the side names in declaration order; two branches may share a side
// name only with the same schema; a side may not be named like the errors side
// output of any stream the job reads, probe or build side (SPEC 1, Bad input).
// It sets Branch.Output, appends to j.Outputs and takes time linear in the
// branches (and their columns).
func ruleSideNames(j *Job) error {
	read := j.Streams()
	type key struct {
		name string
		sink bool
	}
	byName := make(map[key]int, len(j.Branches)) // side name -> index into j.Outputs: linear in the branches
	for _, b := range j.Branches {
		for _, r := range read {
			if b.Sink != nil {
				break // a sink stream is not a side output (SPEC 2.5)
			}
			if errSide := r.Shared().ErrorsSide; errSide != "" && b.Side == errSide {
				how := "reads"
				if r != j.Stream {
					how = "reads as a join's build side"
				}
				return parser.Errorf(b.SidePos, "side output '%s' has the name of the errors side output of stream %s, which the job %s; pick another side name or set 'errors.side' on %s", b.Side, r.Name, how, r.Name)
			}
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
