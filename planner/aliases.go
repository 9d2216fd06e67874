package planner

import (
	"streamql/catalog"
	"streamql/planner/plan"
)

// The physical plan's types live in package plan (issue 10 item 2), which
// links no SQL parser; the planner builds them under these names.
type (
	// Job is plan.Job.
	Job = plan.Job
	// Branch is plan.Branch.
	Branch = plan.Branch
	// Output is plan.Output.
	Output = plan.Output
	// Join is plan.Join.
	Join = plan.Join
	// JoinMode is plan.JoinMode.
	JoinMode = plan.JoinMode
	// Expr is plan.Expr.
	Expr = plan.Expr
	// Value is plan.Value.
	Value = plan.Value
	// Insert is plan.Insert.
	Insert = plan.Insert
)

// The join modes (plan.Semi, plan.Anti).
const (
	Semi = plan.Semi
	Anti = plan.Anti
)

// NoFrom is plan.NoFrom, the connector of a SELECT without FROM.
var NoFrom = plan.NoFrom

// SinkText is plan.SinkText.
func SinkText(st *catalog.Stream) string { return plan.SinkText(st) }
