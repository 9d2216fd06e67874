package executor

import (
	"sync"

	"streamql/catalog"
	"streamql/planner/plan"
)

// reportOnce makes a job that reads a stream more than once (a self-join,
// a UNION ALL of two queries over it, a view or WITH name read twice: each
// read opens the stream anew, SPEC 2.6) report each of its malformed rows
// once, in the errors output and in the end-of-job count (SPEC 1, 2.6): the
// first read opened reports them, the others skip theirs uncounted, as a
// Tee's readers other than the one that pulled a batch do (tee.go); but a
// read that a LIMIT of a relation may stop before the stream's end (a
// part's own LIMIT, plan.Opens.Cut) leaves that to a read that reads on,
// when there is one: it would stop before malformed rows the others read
// on to, and they went unreported. One is shared by a job and the jobs of
// its derived relations' parts (runMode.once, derivedHub.once); nil when
// the job opens every stream once.
type reportOnce struct {
	mu sync.Mutex
	// twice are the streams opened more than once, and not fanned out
	// (those a Tee reads once); opened says which have been; full counts
	// each one's reads no relation's LIMIT can cut (Opens.N - Opens.Cut)
	twice, opened map[*catalog.Stream]bool
	full          map[*catalog.Stream]int
}

// newReportOnce returns job's reportOnce (nil: no stream is opened twice
// but through a Tee, tees).
func newReportOnce(job *plan.Job, tees *teeSet) *reportOnce {
	opens := map[*catalog.Stream]plan.Opens{}
	job.Opens(opens, false)
	var r *reportOnce
	for st, o := range opens {
		if o.N > 1 && tees.of(st) == nil {
			if r == nil {
				r = &reportOnce{twice: map[*catalog.Stream]bool{}, opened: map[*catalog.Stream]bool{}, full: map[*catalog.Stream]int{}}
			}
			r.twice[st] = true
			r.full[st] = o.N - o.Cut
		}
	}
	return r
}

// mute reports whether a read of st now opened skips its malformed rows:
// st is opened more than once and an earlier read reports them, or this
// read is one a relation's LIMIT may cut (cut, plan.Opens.Cut) and another
// can read on (r may be nil).
func (r *reportOnce) mute(st *catalog.Stream, cut bool) bool {
	if r == nil || !r.twice[st] {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.opened[st] || cut && r.full[st] > 0 {
		return true
	}
	r.opened[st] = true
	return false
}

// readErrors returns the StreamErrors a read o of st counts its malformed
// rows in: stats' of st, or for a muted read (opened.mute) one of its own
// that skips them and that no notice shows.
func readErrors(stats *Stats, st *catalog.Stream, o opened) *StreamErrors {
	if o.mute {
		return &StreamErrors{Stream: plan.ErrorsStream(st).Name, Policy: "skip"}
	}
	return stats.stream(st)
}
