package planner

import (
	"sort"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner/plan"
)

// fromRead is a FROM entry the planner resolved (Planner.source): its
// script offset and the relation it reads.
type fromRead struct {
	pos int
	st  *catalog.Stream
}

// ruleReadOnce refuses a statement's own SELECT b (the check runs once, at
// the outermost PlanSelect) whose job would read a stream in a way neither
// a second open nor the fan-out can run (plan.Branch.Opens,
// plan.Opens.ReadTwice): a Kafka stream of a consumer group read twice in
// the group (a join's two inputs: the two consumers would split its
// partitions, and each input would lose rows silently; its whole reads, as
// build sides and relations over it, split nothing). A stream that can be
// read once otherwise (stdin, a 'go' stream, a socket) is opened once and
// fanned out to its readers instead (ruleTeeJob, issue 22 item 1's DAG): a
// self-join, a UNION ALL of two queries over it, a view or WITH name read
// twice, at any nesting. The error (a *parser.Error) points at the last
// FROM entry that reads the stream, the one that reads it again, and names
// the stream, its connector, why, and what to do (ConnectorSpec.OnceWhy).
func (p *Planner) ruleReadOnce(b *Branch) error {
	if p.selects != 1 || b == nil {
		return nil
	}
	opens := map[*catalog.Stream]plan.Opens{}
	b.Opens(opens, false)
	twice := readTwice(opens)
	if len(twice) == 0 {
		return nil
	}
	at := func(st *catalog.Stream) int { // the last FROM entry reading st
		pos := -1
		for _, r := range p.fromReads {
			in := map[*catalog.Stream]plan.Opens{}
			plan.StreamOpens(r.st, in, false)
			if in[st].N > 0 && r.pos > pos {
				pos = r.pos
			}
		}
		return pos
	}
	sort.Slice(twice, func(i, k int) bool { return at(twice[i]) < at(twice[k]) })
	st := twice[0]
	return readOnceError(at(st), st, opens[st].N, "this query")
}

// ruleReadOnceJob refuses a job j whose branches together read a stream
// as ruleReadOnce refuses within one query (plan.Job.Opens,
// plan.Opens.ReadTwice): two side branches, or a side branch and the main
// query, whose semi or anti joins each read it as their build side. (Build
// sides read whole, and the streams that can be read once otherwise are
// fanned out, ruleTeeJob: today no such job is left, and the check stays
// as the guard of the reads a job cannot run.) The error points at the
// last such branch's join.
func ruleReadOnceJob(j *Job) error {
	opens := map[*catalog.Stream]plan.Opens{}
	j.Opens(opens, false)
	twice := readTwice(opens)
	if len(twice) == 0 {
		return nil
	}
	st, pos := twice[0], -1
	for _, b := range append(append([]*Branch(nil), j.Branches...), j.Main) {
		if b == nil || b.Join == nil {
			continue
		}
		in := map[*catalog.Stream]plan.Opens{}
		plan.StreamOpens(b.Join.Build, in, true)
		if in[st].N > 0 && b.Join.Pos > pos {
			pos = b.Join.Pos
		}
	}
	if pos < 0 { // (no join reads it twice: one query does, which ruleReadOnce refuses at its FROM entry)
		return nil
	}
	return readOnceError(pos, st, opens[st].N, "this job")
}

// readOnceError is the refusal of ruleReadOnce and ruleReadOnceJob at pos:
// what reads st n times (this query, this job) names st, its connector,
// why it can be read once and what to do (ConnectorSpec.OnceWhy).
func readOnceError(pos int, st *catalog.Stream, n int, what string) error {
	why := st.Connector.OnceWhy
	if why == "" {
		why = "its connector reads its input once"
	}
	return parser.Errorf(pos, "%s reads stream %s ('connector' = '%s') %d times, but such a stream can be read once per job: %s", what, st.Name, st.Connector.Name, n, why)
}

// readTwice returns the streams opens reads twice that can be read once
// (plan.Opens.ReadTwice), by name.
func readTwice(opens map[*catalog.Stream]plan.Opens) []*catalog.Stream {
	var twice []*catalog.Stream
	for st, o := range opens {
		if o.ReadTwice(st) {
			twice = append(twice, st)
		}
	}
	sort.Slice(twice, func(i, k int) bool { return twice[i].Name < twice[k].Name })
	return twice
}
