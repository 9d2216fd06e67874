package plan

import "streamql/catalog"

// Opens counts the opens of one declared stream in a job (Job.Opens): N in
// all, Whole of them read whole, as a join's build side is (the executor's
// buildSide: every partition of a Kafka topic, outside its consumer
// group, SPEC 2.5), which a stream with catalog.CapReadWhole reads
// independently of its other opens. Cut of them are reads a LIMIT of a
// derived relation's part may stop before the stream's end (the part's own
// LIMIT, or one of a relation around it; not the statement's, which stops
// every read): the executor leaves the report of the stream's malformed
// rows to a read that reads on (executor/reportonce.go).
type Opens struct{ N, Whole, Cut int }

// Opens adds to into how many times running b opens each declared stream
// (one with a connector of its own, not a derived relation, a join's or
// the FROM-less row): its stream, or a join's two inputs, or the inner
// stream of its CROSS JOIN UNNEST, then its semi or anti join's build side
// (read whole), each derived relation counted by the opens of its parts (a
// subquery, WITH name or view read twice opens its stream twice; SPEC 2.6,
// 2.7). whole says that b's job is itself read whole. The planner fans out
// a stream that can be read once and is opened more than once
// (Opens.Fanned, planner/rule_tee.go), and refuses the reads it cannot
// run (Opens.ReadTwice, planner/rule_read_once.go).
func (b *Branch) Opens(into map[*catalog.Stream]Opens, whole bool) {
	if b == nil {
		return
	}
	probeOpens(b.Stream, b.Both, b.Unnest, into, whole, false)
	if b.Join != nil {
		streamOpens(b.Join.Build, into, true, false)
	}
}

// probeOpens adds the opens of what a job reads as its probe: a join's two
// inputs (a lookup join's right side read whole, executor/joinsource.go,
// the others as the job is), an UNNEST's inner stream, or its stream.
// cut says that a LIMIT of a relation may stop the reads (Opens.Cut).
func probeOpens(st *catalog.Stream, both *BothJoin, unnest *Unnest, into map[*catalog.Stream]Opens, whole, cut bool) {
	switch {
	case both != nil:
		streamOpens(both.Inputs[0].Stream, into, whole, cut)
		streamOpens(both.Inputs[1].Stream, into, whole || both.Lookup, cut)
	case unnest != nil:
		streamOpens(unnest.Inner, into, whole, cut)
	default:
		streamOpens(st, into, whole, cut)
	}
}

// Opens adds to into the opens of j's stream (once, however many branches
// read it: the router offers each row to them all, SPEC 2.1), or of its
// join's two inputs or its UNNEST's inner stream, and of each branch's semi
// or anti join's build side (each branch opens its own, read whole).
// whole says that j is read whole (a part of a derived relation read so).
func (j *Job) Opens(into map[*catalog.Stream]Opens, whole bool) { j.opens(into, whole, false) }

// opens is Opens, cut saying that a LIMIT of a relation may stop j's reads
// (Opens.Cut).
func (j *Job) opens(into map[*catalog.Stream]Opens, whole, cut bool) {
	probeOpens(j.Stream, j.Both, j.Unnest, into, whole, cut)
	for _, b := range j.Branches {
		if b.Join != nil {
			streamOpens(b.Join.Build, into, true, cut)
		}
	}
	if j.Main != nil && j.Main.Join != nil {
		streamOpens(j.Main.Join.Build, into, true, cut)
	}
}

// StreamOpens adds to into the opens of reading st (whole: as a build side
// reads): one of st itself when it is a declared stream, the opens of each
// part's job when it is a derived relation (Derived.Parts; read whole when
// it reads a consumer group, Derived.Group, as the executor reads it),
// none for a join's relation (its inputs are counted by the branch that
// has the join) or the FROM-less row.
func StreamOpens(st *catalog.Stream, into map[*catalog.Stream]Opens, whole bool) {
	streamOpens(st, into, whole, false)
}

// streamOpens is StreamOpens, cut saying that a LIMIT of a relation may
// stop the reads; a part with a LIMIT of its own cuts its reads too
// (Opens.Cut).
func streamOpens(st *catalog.Stream, into map[*catalog.Stream]Opens, whole, cut bool) {
	if st == nil || st.Connector == nil || st.Connector == NoFrom || st.Connector == JoinConnector {
		return
	}
	if d := DerivedOf(st); d != nil {
		whole = whole || d.Group() != ""
		for _, part := range d.Parts {
			part.opens(into, whole, cut || part.Main != nil && part.Main.Limit >= 0)
		}
		return
	}
	o := into[st]
	o.N++
	if whole {
		o.Whole++
	}
	if cut {
		o.Cut++
	}
	into[st] = o
}

// ReadTwice reports whether the opens o of st would read some of its rows
// twice in one job, which the job cannot run: st's whole reads read
// independently (catalog.CapReadWhole: a Kafka consumer group's stream)
// and more than one of its reads is not whole (two consumers of the group
// would split its partitions). A stream that can be read again
// (catalog.CapReread) never is; one that can be read once and has no whole
// reads is fanned out instead (Fanned). A consumer group's stream is not
// fanned out: its replay (SPEC 2.5: after a crash or a rebalance each
// partition is read again from the committed frontier) would have to
// commit the oldest row any reader still holds or has not taken from the
// tee's queues, and drop a revoked partition's rows from every queue and
// reader, per partition; the tee keeps neither (its readers have no
// partitions handle), so the refusal stays, and its text says so
// (ConnectorSpec.OnceWhy).
func (o Opens) ReadTwice(st *catalog.Stream) bool {
	caps := st.Caps()
	return !caps.Has(catalog.CapReread) && caps.Has(catalog.CapReadWhole) && o.N-o.Whole > 1
}

// Fanned reports whether the opens o of st make the job fan st out (a Tee,
// planner/rule_tee.go): opened more than once when it can be read once,
// with neither catalog.CapReread nor catalog.CapReadWhole (stdin, a 'go'
// stream's pushed queue, a socket).
func (o Opens) Fanned(st *catalog.Stream) bool {
	caps := st.Caps()
	return !caps.Has(catalog.CapReread) && !caps.Has(catalog.CapReadWhole) && o.N > 1
}
