package session

import (
	"fmt"
	"sort"
	"strings"

	"streamql/executor"
	"streamql/internal/tune"
	"streamql/planner/plan"
)

// flowOf returns where the rows offered to branch k went, nil when unknown.
func flowOf(an *executor.Analysis, k int) *executor.BranchFlow {
	if k < 0 || k >= len(an.Flows) {
		return nil
	}
	return &an.Flows[k]
}

// lateOf returns the analysis of the late output out, nil when none.
func lateOf(an *executor.Analysis, out int) *executor.LateAnalysis {
	for i := range an.Late {
		if an.Late[i].Output == out {
			return &an.Late[i]
		}
	}
	return nil
}

// filterText is a Filter line's note (SPEC 4 "Finding out why"): the rows
// that reached the WHERE and did not pass it; a side branch's go on to the
// next branch (SPEC 2.1), the main query's are dropped.
func filterText(f *executor.BranchFlow, main bool) string {
	n := f.Partnered - f.Taken
	if main {
		return fmt.Sprintf("%s in, dropped %s", rowCount(f.Partnered), rowCount(n))
	}
	return fmt.Sprintf("%s in, %s did not pass (on to the next branch)", rowCount(f.Partnered), rowCount(n))
}

// noPartnerText is a Join line's note: the probe rows without a partner.
func noPartnerText(f *executor.BranchFlow) string {
	return fmt.Sprintf("probe %s, %s without a partner", rowCount(f.Offered), rowCount(f.Offered-f.Partnered))
}

// latenessText is a late output's note: how far below the watermark before
// them its rows were, and whose watermark that was.
func latenessText(la *executor.LateAnalysis) string {
	s := fmt.Sprintf("lateness largest %s, median %s, by the watermark of stream %s", tune.DurationText(la.MaxMs), tune.DurationText(la.MedianMs), la.Stream)
	if !la.Partitioned || len(la.ByPartition) == 0 {
		return s
	}
	parts := make([]int32, 0, len(la.ByPartition))
	for p := range la.ByPartition {
		parts = append(parts, p)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	var each []string
	for _, p := range parts {
		each = append(each, fmt.Sprintf("partition %d: %s", p, rowCount(la.ByPartition[p])))
	}
	return s + " (each row by its partition's: " + strings.Join(each, ", ") + ")"
}

// joinLateOf returns the late rows of the job's join of two streams that
// went to output out, nil when out is not one of its late outputs.
func joinLateOf(an *executor.Analysis, out int) *executor.LateAnalysis {
	if an.Both == nil {
		return nil
	}
	for s := range an.Both.Inputs {
		if la := &an.Both.Inputs[s].Late; la.Output == out {
			return la
		}
	}
	return nil
}

// bothJoinNotes are the notes of a line of the job's join of two streams
// (SPEC 2.7; SPEC 4 "Finding out why"): an input's Scan (rows read), Decode
// (malformed rows) and AssignWatermark (final watermark, rows refused by
// 'watermark.max-future'), and the Join (per input, named as the query reads
// it, so that a self-join's two are told apart: rows in, with a partner,
// without one, late, still held when a LIMIT ended the job, and those its
// filter took out before the join:
// planner/rule_pushdown.go).
func bothJoinNotes(l plan.Line, stats executor.Stats) []string {
	an := stats.Analysis
	if an.Both == nil {
		return nil
	}
	if l.Kind == plan.LineBothJoin {
		var each []string
		for _, in := range an.Both.Inputs {
			note := fmt.Sprintf("%s: %s in, %s with a partner, %s without a partner, %s late", in.Name, rowCount(in.In), rowCount(in.Partnered), rowCount(in.Unpartnered), rowCount(in.Late.Rows))
			if in.Held > 0 { // (a job a LIMIT ended: rows it never joined)
				note += fmt.Sprintf(", %s still held when the job ended (never joined)", rowCount(in.Held))
			}
			if in.Filtered > 0 {
				note += fmt.Sprintf(" (%s filtered out before the join)", rowCount(in.Filtered))
			}
			each = append(each, note)
		}
		return []string{strings.Join(each, "; ")}
	}
	if l.Branch < 0 || l.Branch > 1 {
		return nil
	}
	in := &an.Both.Inputs[l.Branch]
	switch l.Kind {
	case plan.LineJoinInput:
		notes := []string{"read " + rowCount(in.In+in.Filtered+in.Malformed)} // (refused rows included)
		if l.Branch == 0 {
			notes[0] += "; job " + millis(an.Nanos)
		}
		return notes
	case plan.LineJoinDecode:
		return []string{fmt.Sprintf("%d malformed row(s)", in.Malformed)}
	}
	if !in.HasWatermark {
		return nil
	}
	notes := []string{"final watermark " + in.Watermark.Text}
	if in.Refused > 0 {
		notes = append(notes, rowCount(in.Refused)+" refused as too far ahead")
	}
	return notes
}
