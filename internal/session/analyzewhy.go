package session

import (
	"fmt"
	"sort"
	"strings"

	"streamql/executor"
	"streamql/internal/tune"
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
