package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner/plan"
)

// WindowColumns are the columns a window function adds (SPEC 2.4).
var WindowColumns = plan.WindowColumns

// ruleWindow checks a window TVF in FROM (SPEC 2.4): the time column (the
// stream's event time, or on a bounded stream without WATERMARK FOR any BIGINT or
// TIMESTAMP column), the INTERVAL arguments (positive, |offset| < size, HOP's and
// CUMULATE's size a multiple of slide/step), SESSION's partition keys, and an
// unbounded stream without watermark. It sets sp.win. A DESCRIPTOR naming a
// PROCTIME() column (plan.IsProcTime: a computed column, or one of a view or
// subquery) makes the window one over processing time: sp.st becomes
// plan.ProcTimeView's copy.
func ruleWindow(sp *selectPlan) error {
	tvf := sp.sel.Window
	if tvf == nil {
		return nil
	}
	st := sp.st
	if tvf.InSubquery {
		return parser.Errorf(tvf.Pos, "a window function (FROM TABLE(TUMBLE(...))) may stand in the query's own FROM only, or in the subquery of a window Top-N (SPEC 2.9)")
	}
	if sp.both != nil {
		return parser.Errorf(tvf.StreamPos, "a window function over one side of a join (a window join, SPEC 2.7) is not supported yet: join the streams, then aggregate")
	}
	if !strings.EqualFold(tvf.Stream, st.Name) && !(parser.IsPlaceholder(tvf.Stream) && plan.DerivedOf(st) != nil) { // (TUMBLE(TABLE (SELECT …), …): the subquery the FROM reads, parser.windowTableArg)
		return parser.Errorf(tvf.StreamPos, "the window function reads %s but the query reads %s", tvf.Stream, st.Name)
	}
	if plan.DerivedOf(st) != nil {
		// SPEC 2.8: a window over an updating relation (a view, WITH or
		// subquery; an updating stream is refused where its window is
		// planned) would count each change as a row, and over a bounded
		// last-row deduplication it would call rows late; Flink's window
		// TVFs refuse updating input too
		if err := refuseTimeReader(tvf.Pos, st, "a window TVF", "window the relation it reads before it updates, or aggregate it without a window (GROUP BY without window_start, window_end)"); err != nil {
			return err
		}
	}
	ti := st.Column(tvf.TimeCol)
	if ti < 0 {
		return parser.Errorf(tvf.TimeColPos, "unknown column '%s' in DESCRIPTOR; %s has %s", tvf.TimeCol, st.Name, strings.Join(st.Names(), ", "))
	}
	tc := st.Columns[ti]
	proc := false
	if ti != st.EventTime && plan.IsProcTime(st, ti) {
		// a window over processing time (SPEC 2.10): the relation as seen
		// with that column as its time and watermark
		st = plan.ProcTimeView(st, ti)
		sp.st, proc = st, true
	}
	switch {
	case st.Watermark != nil && ti != st.EventTime:
		et := st.Columns[st.EventTime].Name
		return parser.Errorf(tvf.TimeColPos, "DESCRIPTOR(%s): windows follow the event time of %s, which is %s (its WATERMARK FOR column); write DESCRIPTOR(%s), or for processing time a PROCTIME() column (SPEC 2.10)", tc.Name, st.Name, et, et)
	case st.Watermark == nil && !st.Bounded() && plan.DerivedOf(st) != nil:
		return parser.Errorf(tvf.Pos, "%s is unbounded and its rows have no event time, so its windows would never fire: %s", st.Name, noEventTimeWhy(st))
	case st.Watermark == nil && !st.Bounded():
		return parser.Errorf(tvf.Pos, "%s is unbounded and has no WATERMARK FOR, so its windows would never fire: %s", st.Name, addWatermarkHint(st, tc.Name))
	case tc.Type != catalog.BigInt && tc.Type != catalog.Timestamp:
		return parser.Errorf(tvf.TimeColPos, "DESCRIPTOR(%s): a window's time column is a BIGINT (epoch ms) or TIMESTAMP, and %s is %s", tc.Name, tc.Name, tc.Type)
	}
	w := &Window{Func: tvf.Func, TimeCol: ti, TimeType: tc.Type, TimeName: tc.Name, ProcTime: proc}
	s, e := tvf.Pos, tvf.End
	if s >= 0 && e <= len(sp.p.Source) && s < e {
		w.Text = sp.p.Source[s : e-1] // without TABLE( ... )'s last parenthesis
	}
	args := tvf.Args
	positive := func(k int, what string) (int64, error) {
		if args[k].Ms <= 0 {
			return 0, parser.Errorf(args[k].Pos, "%s's %s must be positive, got %d ms", w.Func, what, args[k].Ms)
		}
		return args[k].Ms, nil
	}
	var err error
	offsetAt := -1
	switch w.Func {
	case "TUMBLE":
		if w.Size, err = positive(0, "size"); err != nil {
			return err
		}
		w.Slide = w.Size
		offsetAt = 1
	case "HOP", "CUMULATE":
		what := "slide"
		if w.Func == "CUMULATE" {
			what = "step"
		}
		if w.Slide, err = positive(0, what); err != nil {
			return err
		}
		if w.Size, err = positive(1, "size"); err != nil {
			return err
		}
		if w.Size%w.Slide != 0 {
			return parser.Errorf(args[1].Pos, "%s's size (%d ms) must be a multiple of its %s (%d ms): e.g. a size of %d ms", w.Func, w.Size, what, w.Slide, (w.Size/w.Slide+1)*w.Slide)
		}
		offsetAt = 2
	case "SESSION":
		if w.Gap, err = positive(0, "gap"); err != nil {
			return err
		}
		for k, name := range tvf.Partition {
			e, err := sp.sc.compile(&ast.ColumnNameExpr{Name: &ast.ColumnName{Name: ast.NewCIStr(name)}})
			if err != nil {
				return parser.Errorf(tvf.PartitionPos[k], "unknown column '%s' in PARTITION BY; %s has %s", name, st.Name, strings.Join(st.Names(), ", "))
			}
			e.Text = st.Columns[e.Col].Name
			w.Partition = append(w.Partition, e)
		}
	}
	if offsetAt >= 0 && offsetAt < len(args) {
		w.Offset = args[offsetAt].Ms
		if abs64(w.Offset) >= w.Size {
			return parser.Errorf(args[offsetAt].Pos, "%s's offset (%d ms) must be smaller than its size (%d ms) in absolute value (Flink's rule)", w.Func, w.Offset, w.Size)
		}
	}
	sp.sc.use(ti)
	sp.win = w
	return nil
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// noEventTimeWhy says why derived relation st has no event time, for the
// refusal of a window over it (SPEC 2.6: a derived relation keeps the
// event time of what it reads when it selects that column as it is;
// SPEC 2.7: which joins' outputs have one, plan.BothJoin.OutputTime), and
// what to write instead: for a FULL interval or window join (a row padded
// on one side has no time there), a LEFT or RIGHT interval join or a
// window join; for a join with an output time (a RIGHT window join's is
// its right input's, the mirror of LEFT), to select it as it is; for a
// regular join, to write it as an interval join.
func noEventTimeWhy(st *catalog.Stream) string {
	const keep = "a derived relation keeps the event time of what it reads when it selects that time column as it is (SPEC 2.6)"
	d := plan.DerivedOf(st)
	if d == nil {
		return keep
	}
	for _, part := range d.Parts {
		b := part.Both
		if b == nil {
			continue
		}
		switch {
		case (b.Interval || b.Window) && b.Type == plan.FullJoin:
			return "a FULL " + b.Kind() + "'s output has none (SPEC 2.7): a row padded on one side has NULL time on that side, and COALESCE of the two times is not an event time (no watermark bounds it); " +
				"write a LEFT or RIGHT interval join, whose output keeps the left or right side's time, or window each input first and join the windows (a window join, SPEC 2.7)"
		case b.OutputTimeName() != "":
			return keep + ": select the " + b.Kind() + "'s output time, " + b.OutputTimeName() + ", as it is"
		case !b.Interval && !b.Window:
			return keep + "; a regular join's output has none (SPEC 2.7: write the join as an interval join, with a BETWEEN on both sides' times, to keep the left side's time, or the right side's for a RIGHT JOIN)"
		}
	}
	return keep
}
