package session

import (
	"context"
	"fmt"

	"streamql/catalog"
	"streamql/internal/tune"
	"streamql/parser"
	"streamql/planner"
	"streamql/planner/plan"
)

// What the command line needs of the planner, through the session (issue 22
// item 6: cmd/ reaches the engine only through the root package or this one).

// TuneQuery is what `streamql tune` reads of one SELECT of a script: the
// stream it reads, its window (nil when it has none) and the streams whose
// rows' own lateness it reads (tune.Input.RowLate).
type TuneQuery struct {
	Stream  *catalog.Stream
	Window  *tune.Window
	RowLate []*catalog.Stream
}

// PlanTune plans st, a SELECT of script, against the session's catalog,
// user functions and runtime mode without running it, and returns what
// `streamql tune` reads of it: its window, named "<func> line <n>", and its
// row-late streams (rowLateStreams). Errors are as Exec's planning errors;
// a cancelled ctx gives its error.
func (s *Session) PlanTune(ctx context.Context, script *parser.Script, st *parser.Select) (TuneQuery, error) {
	p := &planner.Planner{Cat: s.Cat, Source: script.Source, Ctx: ctx, Funcs: s.Funcs, Streaming: s.Streaming, KeepColumns: s.KeepColumns, KeepFilters: s.KeepFilters}
	b, err := p.PlanSelect(st)
	if err != nil {
		return TuneQuery{}, err
	}
	q := TuneQuery{Stream: b.Stream, RowLate: rowLateStreams(b)}
	if b.Agg != nil && b.Agg.Window != nil {
		w := b.Agg.Window
		q.Window = &tune.Window{
			Name: fmt.Sprintf("%s line %d", w.Func, b.Line), Func: w.Func,
			Size: w.Size, Slide: w.Slide, Offset: w.Offset, Gap: w.Gap,
		}
	}
	return q, nil
}

// rowLateStreams returns the streams whose rows' own lateness (SPEC 2.3) the
// query b reads (tune.Input.RowLate): its stream when it reads
// CURRENT_WATERMARK, both sides of an event-time semi or anti join (SPEC
// 2.2), the inputs with event time of a join of two streams (SPEC 2.7).
func rowLateStreams(b *plan.Branch) []*catalog.Stream {
	var out []*catalog.Stream
	reads := plan.ReadsWatermark(b.Where)
	for _, e := range b.Project {
		reads = reads || plan.ReadsWatermark(e)
	}
	if reads {
		out = append(out, b.Stream)
	}
	if j := b.Join; j != nil && j.EventTime() {
		out = append(out, b.Stream, j.Build)
	}
	if both := b.Both; both != nil {
		for _, in := range both.Inputs {
			if in.Watermark != nil {
				out = append(out, in.Stream)
			}
		}
	}
	return out
}

// ScriptDelay is the delay (ms) of st's WATERMARK clause when it is of the
// form ts - INTERVAL (tune.Input.ScriptMs), -1 otherwise (no WATERMARK, or
// another expression, or one that does not compile).
func ScriptDelay(st *catalog.Stream) int64 {
	if st.Watermark == nil {
		return -1
	}
	e, err := planner.CompileWatermark(st)
	if err != nil || e.Op != plan.OpAddInterval || len(e.Args) != 1 || e.Args[0].Op != plan.OpCol || e.Args[0].Col != st.EventTime || e.Param > 0 {
		return -1
	}
	return -e.Param
}

// JobFile is a file a job reads or writes (planner.JobFile: a stream's path,
// a sink stream's, a side output's).
type JobFile = planner.JobFile

// CheckFiles returns the planning error of files that collide (one file read
// and written, or written twice: planner.CheckFiles, issue 30), or nil.
func CheckFiles(files []JobFile) error { return planner.CheckFiles(files) }
