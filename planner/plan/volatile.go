package plan

import (
	"sort"
	"strings"
)

// volatileNote is EXPLAIN's note that the job is not deterministic when an
// expression of it (a branch's filter, projection, aggregate keys, calls and
// HAVING, the watermark) calls a function that reads the clock or draws
// random numbers (OpFunc with Flag: CURRENT_TIMESTAMP, NOW(), PROCTIME(),
// UNIX_TIMESTAMP(), RAND; SPEC 2.10); "" when none does.
func (j *Job) volatileNote() string {
	names := map[string]bool{}
	volatileCalls(j.Watermark, names)
	for _, b := range j.AllBranches() {
		volatileCalls(b.Where, names)
		for _, e := range b.Project {
			volatileCalls(e, names)
		}
		if a := b.Agg; a != nil {
			volatileCalls(a.Having, names)
			for _, e := range a.Keys {
				volatileCalls(e, names)
			}
			for _, c := range a.Calls {
				volatileCalls(c.Arg, names)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	return "not deterministic: calls " + strings.Join(list, ", ") + " (the clock or random numbers)"
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
