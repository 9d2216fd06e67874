package plan

import "streamql/catalog"

// Opens counts the opens of one declared stream in a job (Job.Opens): N in
// all, Whole of them read whole, as a join's build side is (the executor's
// buildSide: every partition of a Kafka topic, outside its consumer
// group, SPEC 2.5), which a stream with catalog.CapReadWhole reads
// independently of its other opens.
type Opens struct{ N, Whole int }

// Opens adds to into how many times running b opens each declared stream
// (one with a connector of its own, not a derived relation, a join's or
// the FROM-less row): its stream, or a join's two inputs, or the inner
// stream of its CROSS JOIN UNNEST, then its semi or anti join's build side
// (read whole), each derived relation counted by the opens of its parts (a
// subquery, WITH name or view read twice opens its stream twice; SPEC 2.6,
// 2.7). whole says that b's job is itself read whole. The planner refuses a
// job that opens a stream without catalog.CapReread more than once
// (planner/rule_read_once.go).
func (b *Branch) Opens(into map[*catalog.Stream]Opens, whole bool) {
	if b == nil {
		return
	}
	probeOpens(b.Stream, b.Both, b.Unnest, into, whole)
	if b.Join != nil {
		StreamOpens(b.Join.Build, into, true)
	}
}

// probeOpens adds the opens of what a job reads as its probe: a join's two
// inputs (a lookup join's right side read whole, executor/joinsource.go,
// the others as the job is), an UNNEST's inner stream, or its stream.
func probeOpens(st *catalog.Stream, both *BothJoin, unnest *Unnest, into map[*catalog.Stream]Opens, whole bool) {
	switch {
	case both != nil:
		StreamOpens(both.Inputs[0].Stream, into, whole)
		StreamOpens(both.Inputs[1].Stream, into, whole || both.Lookup)
	case unnest != nil:
		StreamOpens(unnest.Inner, into, whole)
	default:
		StreamOpens(st, into, whole)
	}
}

// Opens adds to into the opens of j's stream (once, however many branches
// read it: the router offers each row to them all, SPEC 2.1), or of its
// join's two inputs or its UNNEST's inner stream, and of each branch's semi
// or anti join's build side (each branch opens its own, read whole).
// whole says that j is read whole (a part of a derived relation read so).
func (j *Job) Opens(into map[*catalog.Stream]Opens, whole bool) {
	probeOpens(j.Stream, j.Both, j.Unnest, into, whole)
	for _, b := range j.Branches {
		if b.Join != nil {
			StreamOpens(b.Join.Build, into, true)
		}
	}
	if j.Main != nil && j.Main.Join != nil {
		StreamOpens(j.Main.Join.Build, into, true)
	}
}

// StreamOpens adds to into the opens of reading st (whole: as a build side
// reads): one of st itself when it is a declared stream, the opens of each
// part's job when it is a derived relation (Derived.Parts; read whole when
// it reads a consumer group, Derived.Group, as the executor reads it),
// none for a join's relation (its inputs are counted by the branch that
// has the join) or the FROM-less row.
func StreamOpens(st *catalog.Stream, into map[*catalog.Stream]Opens, whole bool) {
	if st == nil || st.Connector == nil || st.Connector == NoFrom || st.Connector == JoinConnector {
		return
	}
	if d := DerivedOf(st); d != nil {
		whole = whole || d.Group() != ""
		for _, part := range d.Parts {
			part.Opens(into, whole)
		}
		return
	}
	o := into[st]
	o.N++
	if whole {
		o.Whole++
	}
	into[st] = o
}

// ReadTwice reports whether the opens o of st read some of its rows twice
// in one job when it can be read once (no catalog.CapReread): opened more
// than once, or, when its whole reads read independently
// (catalog.CapReadWhole: a Kafka consumer group's stream), more than once
// other than whole (two consumers of the group would split its partitions).
func (o Opens) ReadTwice(st *catalog.Stream) bool {
	caps := st.Caps()
	switch {
	case caps.Has(catalog.CapReread):
		return false
	case caps.Has(catalog.CapReadWhole):
		return o.N-o.Whole > 1
	}
	return o.N > 1
}
