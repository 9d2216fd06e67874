package planner

// (Named rule_readerwins.go: a file ending in _windows.go is built for
// GOOS=windows only.)

import "streamql/planner/plan"

// ruleReaderWindowsJob gives each part of the derived relations j reads,
// at every depth, the windows of its readers it must refuse rows by
// (plan.Job.ReaderWindows, SPEC 1 and 2.4): with plan.Derived.Stamps the
// reader's watermark is the one the part carries, so a row whose window
// does not fit in a BIGINT, which the reader would refuse, must be refused
// by the part before it moves that watermark (a row the part drops, by its
// WHERE or an UNNEST of nothing, still moves it). A part's own relations
// get its windows and those it got, in turn. It runs on every job, the
// outermost last (a derived relation's parts are planned first), so the
// windows are those of the statement's job; a view's parts get them as they
// get the job's tees (ruleTeeJob), in the statement's own copy of the
// view's relation (plan.CopyRelation, Planner.viewRelation): the catalog's
// view, which every reader shares, is never written.
func ruleReaderWindowsJob(j *Job) {
	for _, d := range j.DerivedReads() {
		for _, part := range d.Parts {
			part.ReaderWindows = readerWindows(j, part, d)
			ruleReaderWindowsJob(part)
		}
	}
}

// readerWindows returns the windows that part, a job of the relation d
// read by reader (plan.Derived.Parts), must refuse rows by: with d.Stamps,
// the reader's window aggregates over its event time (the relation's,
// part's own event time projected as it is) and the windows it got from
// its own readers, each as a copy over part's event time; nil when none.
func readerWindows(reader, part *Job, d *plan.Derived) []*plan.Window {
	et := part.Stream.EventTime
	if !d.Stamps || et < 0 || reader.Stream.EventTime < 0 {
		return nil
	}
	var out []*plan.Window
	add := func(w *plan.Window) {
		if w == nil || w.ProcTime || w.TimeCol != reader.Stream.EventTime {
			return
		}
		c := *w
		c.TimeCol, c.TimeType, c.Partition, c.Of = et, part.Stream.Columns[et].Type, nil, nil
		out = append(out, &c)
	}
	for _, br := range reader.AllBranches() {
		if br.Agg != nil {
			add(br.Agg.Window)
		}
	}
	for _, w := range reader.ReaderWindows {
		add(w)
	}
	return out
}
