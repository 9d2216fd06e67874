package plan

import (
	"sort"
	"strings"
)

// volatileNote is EXPLAIN's note that the job is not deterministic (see
// Volatile); "" when it is.
func (j *Job) volatileNote() string {
	list := j.Volatile()
	if len(list) == 0 {
		return ""
	}
	return "not deterministic: calls " + strings.Join(list, ", ") + " (the clock or random numbers)"
}

// Volatile returns the names, sorted, of the functions that read the clock or
// draw random numbers (OpFunc with Flag: CURRENT_TIMESTAMP, NOW(),
// PROCTIME(), UNIX_TIMESTAMP(), RAND; SPEC 2.10) that an expression of the
// job calls: a branch's filter, projection, aggregate keys, calls and HAVING,
// the watermark, the computed columns of the streams it reads, and those of
// the jobs of the derived relations it reads
// (SPEC 2.6: a view's PROCTIME() makes the query over it depend on the
// clock). The job's result then depends on when it runs, which
// EXPLAIN notes and `streamql test --shuffle` reports (SPEC 4, "Finding out
// why"). Nil when none does.
func (j *Job) Volatile() []string {
	names := map[string]bool{}
	j.volatileNames(names)
	if len(names) == 0 {
		return nil
	}
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	return list
}

// volatileNames adds to names the volatile functions j and the parts of the
// derived relations it reads call (see Volatile).
func (j *Job) volatileNames(names map[string]bool) {
	for _, st := range j.Streams() {
		if d := DerivedOf(st); d != nil {
			for _, part := range d.Parts {
				part.volatileNames(names)
			}
		}
		for _, c := range st.Columns { // computed columns (SPEC 1: c AS PROCTIME())
			if c.Computed != nil {
				e, _ := c.Computed.Def.(*Expr)
				volatileCalls(e, names)
			}
		}
	}
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
