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
// the outermost PlanSelect) whose job would open a stream without
// catalog.CapReread more than once (plan.Branch.Opens, plan.Opens.ReadTwice:
// a Kafka stream of a consumer group only twice in the group, its whole
// reads, as build sides and relations over it, split nothing): a self-join, a
// UNION ALL of two queries over it, a view or WITH name over it read
// twice, a semi or anti join whose build side is its own probe stream, a
// subquery over it joined with it, at any nesting. Such a stream's input
// can be read once (stdin, a 'go' stream's pushed queue, a socket, a Kafka
// consumer group), so the second open would wait forever or take rows from
// the first: the job would hang or lose rows silently. Until one source
// can feed several readers (issue 22 item 1's DAG), the job is refused
// before it starts. The error (a *parser.Error) points at the last FROM
// entry that reads the stream, the one that reads it again, and names the
// stream, its connector, why, and what to do (ConnectorSpec.OnceWhy).
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

// ruleReadOnceJob refuses a job j that opens a stream without
// catalog.CapReread more than once across its branches (plan.Job.Opens):
// two side branches, or a side branch and the main query, whose semi or
// anti joins each read the same such stream as their build side (each
// opens its own: the second would wait forever or take rows from the
// first, as in ruleReadOnce, which refuses this within one query). The
// error points at the last such branch's join.
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
