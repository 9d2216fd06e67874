package planner

import (
	"slices"
	"strings"

	"streamql/catalog/functions"
)

// strictFuncs is the set of strict functions for the outer-join
// simplification (rule_simplify_outer_join.go): a call of one is NULL
// whenever any of its arguments is NULL, so a WHERE or ON term over it
// rejects the rows a join pads when an argument does (Calcite's Strong
// analysis, which Flink's FlinkFilterJoinRule asks of its built-ins). The
// keys are the names and aliases of the built-ins (catalog/functions'
// Functions), lower case as a call reaches the planner
// (ast.FuncCallExpr.FnName.L), derived from the table by isStrict; no user
// function is strict. TestStrictFunctionsGiveNullForNull (root package)
// evaluates each entry through the engine with a NULL in each argument in
// turn and asserts NULL, so the table cannot disagree with the kernels.
var strictFuncs = map[string]bool{}

// isStrict reports whether the built-in f is strict for the outer-join
// simplification: it takes no NULLs (TakesNulls unset: any NULL argument
// gives NULL before the kernel runs), its NULL rule says so, and it is
// neither volatile nor one that may fail the job. A FailsJob function
// (ELEMENT: more than one element stops the job, as Flink's) stays out
// although ELEMENT(NULL) is NULL: the simplification lets the WHERE term
// move below the join (filter push-down to the side that was padded), where
// it would meet rows the outer join never passed to it and could fail a job
// that Flink's plan runs; only a call that cannot fail may move.
func isStrict(f *functions.Function) bool {
	return !f.TakesNulls && !f.Volatile && !f.FailsJob && f.Nulls == "NULL if any argument is NULL"
}

func init() {
	for k := range functions.Functions {
		f := &functions.Functions[k]
		if !isStrict(f) {
			continue
		}
		for _, n := range append([]string{f.Name}, f.Aliases...) {
			strictFuncs[strings.ToLower(n)] = true
		}
	}
}

// StrictFunctions returns the names of strictFuncs, lower case and sorted:
// the functions the outer-join simplification takes as NULL whenever an
// argument is NULL (for the test that checks each against the engine).
func StrictFunctions() []string {
	out := make([]string, 0, len(strictFuncs))
	for n := range strictFuncs {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
