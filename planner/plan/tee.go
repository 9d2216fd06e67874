package plan

import (
	"fmt"

	"streamql/catalog"
)

// Tee is one fan-out of a job (Job.Tees; issue 22 item 1, "a DAG where one
// source feeds several readers"): the declared Stream, which can be read
// once per job, opened once, and the number of Readers its rows go to, as
// Job.Opens counts the job's reads of it (a join's two inputs, the parts of
// a UNION ALL, a view or WITH name read twice, a semi or anti join's build
// side, at any nesting). The executor's tee (executor/tee.go) gives each
// reader every row, in the source's order, and buffers the rows a slower
// reader has not taken yet, counted against 'state.max-bytes' (SPEC 1).
type Tee struct {
	Stream  *catalog.Stream
	Readers int
}

// TeeOf returns j's fan-out of st, nil when j reads st once or can read it
// again (a file, values: its reads are independent).
func (j *Job) TeeOf(st *catalog.Stream) *Tee {
	for i := range j.Tees {
		if j.Tees[i].Stream == st {
			return &j.Tees[i]
		}
	}
	return nil
}

// ShareTees sets tees as the Tees of j and of every part of the derived
// relations j reads, at any depth (EXPLAIN shows each read of a fanned-out
// stream as a reader of the one tee; the executor runs the parts with the
// reading job's tees). Those parts are j's own: a view's relation is read
// through the statement's copy (CopyRelation), never the catalog's.
func (j *Job) ShareTees(tees []Tee) {
	j.Tees = tees
	for _, d := range j.DerivedReads() {
		for _, part := range d.Parts {
			part.ShareTees(tees)
		}
	}
}

// teeText is the text of the Tee node EXPLAIN prints after the Scan (and
// Decode) of a fanned-out stream, on each of its readers' paths.
func (t *Tee) teeText() string {
	return fmt.Sprintf("%s: one read of stream %s feeds its %d readers", t.Stream.Name, t.Stream.Name, t.Readers)
}

// teeDetails are the Tee node's details: how a slower reader is served,
// and where late and malformed rows are reported (SPEC 2.3, 2.7).
func teeDetails() []string {
	return []string{
		"the rows a reader has not taken yet are buffered, counted against 'state.max-bytes'",
		"malformed rows are reported once, by the reader that reads them first; a late row by each operator and join input it is late for, as over a stream read once per reader (a join of it with itself: in both inputs' late outputs)",
	}
}
