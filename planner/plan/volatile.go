package plan

import (
	"sort"
	"strings"
)

// describeVolatile adds EXPLAIN's note that the job is not deterministic
// when a branch's filter or projection calls a function that reads the clock
// or draws random numbers (OpFunc with Flag: CURRENT_TIMESTAMP, NOW(),
// PROCTIME(), UNIX_TIMESTAMP(), RAND; SPEC 2.10).
func (j *Job) describeVolatile(sb *strings.Builder) {
	names := map[string]bool{}
	for _, b := range j.AllBranches() {
		volatileCalls(b.Where, names)
		for _, e := range b.Project {
			volatileCalls(e, names)
		}
	}
	if len(names) == 0 {
		return
	}
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	sb.WriteString("  Not deterministic: calls " + strings.Join(list, ", ") + " (the clock or random numbers)\n")
}

// volatileCalls adds to names the functions of e's volatile calls.
func volatileCalls(e *Expr, names map[string]bool) {
	if e == nil {
		return
	}
	if e.Op == OpFunc && e.Flag {
		names[e.Fn] = true
	}
	for _, a := range e.Args {
		volatileCalls(a, names)
	}
}
