package session

import (
	"context"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner"
	"streamql/planner/plan"
)

// What the command line needs of the planner, through the session (issue 22
// item 6: cmd/ reaches the engine only through the root package or this one).

// PlanSelect plans st, a SELECT of script, against the session's catalog,
// user functions and runtime mode without running it (`streamql tune` reads
// a script's windows and late-row outputs from the plan). Errors are as
// Exec's planning errors; a cancelled ctx gives its error.
func (s *Session) PlanSelect(ctx context.Context, script *parser.Script, st *parser.Select) (*plan.Branch, error) {
	p := &planner.Planner{Cat: s.Cat, Source: script.Source, Ctx: ctx, Funcs: s.Funcs, Streaming: s.Streaming}
	return p.PlanSelect(st)
}

// WatermarkExpr returns st's WATERMARK expression bound to st's batch
// (planner.CompileWatermark), or its planning error.
func WatermarkExpr(st *catalog.Stream) (*plan.Expr, error) { return planner.CompileWatermark(st) }

// JobFile is a file a job reads or writes (planner.JobFile: a stream's path,
// a sink stream's, a side output's).
type JobFile = planner.JobFile

// JobFiles returns the files job reads and writes through its streams
// (planner.JobFiles).
func JobFiles(job *plan.Job) []JobFile { return planner.JobFiles(job) }

// CheckFiles returns the planning error of files that collide (one file read
// and written, or written twice: planner.CheckFiles, issue 30), or nil.
func CheckFiles(files []JobFile) error { return planner.CheckFiles(files) }
