package plan

import (
	"fmt"
	"strings"
	"time"

	"streamql/catalog"
)

// Window is a window table-valued function as the executor runs it (SPEC 2.4).
// Sizes are milliseconds. TUMBLE has Slide = Size; CUMULATE's step is Slide;
// SESSION has Gap and its PARTITION BY keys.
type Window struct {
	Func   string // TUMBLE, HOP, CUMULATE or SESSION
	Size   int64
	Slide  int64
	Offset int64
	Gap    int64
	// TimeCol is the batch column of t (the DESCRIPTOR's column), TimeType its
	// type (BIGINT epoch ms or TIMESTAMP), TimeName its declared name.
	TimeCol  int
	TimeType catalog.Type
	TimeName string
	// ProcTime says t is processing time, a PROCTIME() column of a view or
	// subquery (SPEC 2.10; plan.Derived.ProcTime): the result depends on when
	// the rows are read.
	ProcTime bool
	// Partition holds SESSION's PARTITION BY keys, over the source batch.
	Partition []*Expr
	// Text is the function call as written, for EXPLAIN.
	Text string
	// Of, for a cascaded window aggregate (a GROUP BY of the window_start
	// and window_end of a relation that gives a window aggregate's rows, SPEC
	// 2.6), is that relation's window; the aggregate then fires each of its
	// windows once the watermark passes it (a 1 ms TUMBLE on the time
	// column, the keys keeping the windows apart). nil otherwise.
	Of *Window
}

// WindowColumns are the columns a window function adds (SPEC 2.4).
var WindowColumns = []string{"window_start", "window_end", "window_time"}

// Describe returns the function and its sizes for EXPLAIN: "TUMBLE(size 10000
// ms) on ts".
func (w *Window) Describe() string {
	if w.Of != nil {
		return fmt.Sprintf("the windows of the input, %s, by window_end %s (cascaded)", w.Of.Describe(), w.TimeName)
	}
	var parts []string
	switch w.Func {
	case "TUMBLE":
		parts = append(parts, fmt.Sprintf("size %d ms", w.Size))
	case "HOP":
		parts = append(parts, fmt.Sprintf("slide %d ms", w.Slide), fmt.Sprintf("size %d ms", w.Size))
	case "CUMULATE":
		parts = append(parts, fmt.Sprintf("step %d ms", w.Slide), fmt.Sprintf("size %d ms", w.Size))
	case "SESSION":
		var keys []string
		for _, k := range w.Partition {
			keys = append(keys, k.Text)
		}
		parts = append(parts, "partition by "+strings.Join(keys, ", "), fmt.Sprintf("gap %d ms", w.Gap))
	}
	if w.Offset != 0 {
		parts = append(parts, fmt.Sprintf("offset %d ms", w.Offset))
	}
	on := w.TimeName
	if w.ProcTime {
		on += " (processing time)"
	}
	return fmt.Sprintf("%s(%s) on %s", w.Func, strings.Join(parts, ", "), on)
}

// Aggregate is what a branch does with the rows it takes when it reads a window
// TVF or aggregates (SPEC 2.4): the window (nil for GROUP BY without a window and
// for global aggregates), the grouping keys and aggregate calls over the source
// batch, and the branch's HAVING and projection over the aggregate row, whose
// columns are window_start, window_end, window_time (with a window), the keys,
// then the aggregates (RowTypes). Without aggregation (Grouped false) the branch
// emits each row once per window, its projection reading the source batch with
// the three window columns appended at WindowBase.
type Aggregate struct {
	Window  *Window
	Grouped bool
	Keys    []*Expr
	Calls   []AggCall
	// RowTypes is the aggregate row's layout; KeyBase and CallBase index its first
	// key and first aggregate column.
	RowTypes          []catalog.Type
	KeyBase, CallBase int
	Having            *Expr // nil when none
	// WindowBase is the batch index of window_start in the windowed batch of a
	// TVF without aggregation (the source batch's width).
	WindowBase int
	// WmCol is the source batch column holding CURRENT_WATERMARK, -1 when the
	// stream has no WATERMARK (bounded: windows fire at its end).
	WmCol int
	// Late is the late output's name: LATE INTO SIDE's (LateNamed), else "late"
	// (SPEC 2.4); LateOutput indexes Job.Outputs (set by the planner when it
	// makes the job), -1 without a window.
	Late       string
	LatePos    int
	LateNamed  bool
	LateOutput int
	// LateProject, when not nil, makes each late row the rows of the
	// relation the query read (SPEC 2.4: the input row, as SELECT *, of a
	// view, subquery or WITH relation that only filters and projects the
	// job's stream, planned over the stream by the planner's
	// ruleInlineView): the relation's select list over the job's batch,
	// one expression per column of LateColumns, which are the relation's
	// columns and the late output's. nil: a late row is the batch's
	// stream columns as they are.
	LateProject []*Expr
	LateColumns []catalog.Column
	// Updating marks an aggregate whose output is a changelog (SPEC 2.8):
	// GROUP BY without a window (or a global aggregate) over an unbounded
	// stream, which emits +I for a new group and -U old, +U new for each row
	// that changes one, instead of one row per group at the stream's end.
	// MiniBatch folds each input batch's changes per group into one -U/+U
	// pair ('table.exec.mini-batch.enabled', Flink's key).
	Updating  bool
	MiniBatch bool
	// StateTTL is 'table.exec.state.ttl' for an updating aggregate (SPEC
	// 2.8): a group unchanged while the clock advanced by it is dropped
	// (the watermark is the clock when the input has event time, else
	// processing time); 0 keeps groups for ever.
	StateTTL time.Duration
	// ProcTimeTTL makes processing time StateTTL's clock although the job's
	// stream has a WATERMARK: the aggregate reads a view, subquery or WITH
	// relation that drops the event time, planned over the stream
	// (planner's ruleInlineView), and over that relation, which has no
	// event time, its groups' TTL followed processing time (SPEC 2.8).
	ProcTimeTTL bool
}

// AggCall is one aggregate function call of a query: its accumulator spec, its
// argument over the source batch (nil for COUNT(*)), and its text.
type AggCall struct {
	Spec AggSpec
	Arg  *Expr
	Text string
}

// DefaultLate is the name of the late output shared by a job's windowed queries
// without LATE INTO SIDE (SPEC 2.4).
const DefaultLate = "late"

// AggFunc is an aggregate function of SPEC 2.4.
type AggFunc uint8

// The aggregate functions of SPEC 2.4's table.
const (
	AggCountStar AggFunc = iota // COUNT(*)
	AggCount                    // COUNT(x), COUNT(DISTINCT x) with AggSpec.Distinct
	AggSum
	AggAvg
	AggMin
	AggMax
	AggFirst // FIRST_VALUE
	AggLast  // LAST_VALUE
	AggListAgg
	AggVarPop
	AggVarSamp
	AggStddevPop
	AggStddevSamp
)

var funcNames = [...]string{"COUNT", "COUNT", "SUM", "AVG", "MIN", "MAX", "FIRST_VALUE", "LAST_VALUE", "LISTAGG", "VAR_POP", "VAR_SAMP", "STDDEV_POP", "STDDEV_SAMP"}

// String returns the function's SQL name.
func (f AggFunc) String() string { return funcNames[f] }

// AggSpec is one aggregate call: the function, its argument's type (ignored by
// COUNT(*)), DISTINCT (COUNT only) and LISTAGG's separator.
type AggSpec struct {
	Func     AggFunc
	Arg      catalog.Type
	Distinct bool
	Sep      string
	// Retracting marks a call of an aggregate that reads an updating input
	// (SPEC 2.8): its state keeps what a retraction needs, the values of
	// MIN, MAX, FIRST_VALUE, LAST_VALUE, LISTAGG and COUNT(DISTINCT)
	// (executor/agg's kept.go); the counts and sums retract without it.
	Retracting bool
}

// Retractable reports whether the aggregate can take a row back out of its
// state (SPEC 2.8: an aggregate fed by an updating relation retracts):
// COUNT, SUM, AVG and the variances exactly (counts and exact sums); MIN,
// MAX, FIRST_VALUE, LAST_VALUE, LISTAGG and COUNT(DISTINCT) by keeping
// their values (Retracting). SUM(DISTINCT) and the like do not exist
// (DISTINCT is COUNT's only).
func (s *AggSpec) Retractable() bool {
	switch s.Func {
	case AggCountStar, AggCount:
		return true
	case AggSum, AggAvg, AggVarPop, AggVarSamp, AggStddevPop, AggStddevSamp:
		return !s.Distinct
	}
	return true
}

// ResultType returns the SQL type of the aggregate's result (SPEC 2.4's table).
func (s *AggSpec) ResultType() catalog.Type {
	switch s.Func {
	case AggCountStar, AggCount:
		return catalog.BigInt
	case AggSum:
		if s.Arg == catalog.BigInt {
			return catalog.BigInt
		}
		return catalog.Double
	case AggAvg, AggVarPop, AggVarSamp, AggStddevPop, AggStddevSamp:
		return catalog.Double
	case AggListAgg:
		return catalog.Varchar
	}
	return s.Arg // MIN, MAX, FIRST_VALUE, LAST_VALUE: x's type
}

// Numeric reports whether f takes numbers only (SUM, AVG and the variances).
func (f AggFunc) Numeric() bool {
	return f == AggSum || f == AggAvg || f >= AggVarPop
}

// aggLines describes the aggregate operator of a branch for EXPLAIN (SPEC 2.4):
// head is the window function and its sizes with the keys and aggregates;
// details are the HAVING, the late output and what state grows, with the
// LineKind of each (LineLate for the late output's line, else LineDetail).
func (b *Branch) aggLines(outputs []Output) (head string, details []string, kinds []LineKind) {
	a := b.Agg
	var keys, calls []string
	for _, k := range a.Keys {
		keys = append(keys, k.Text)
	}
	if len(keys) == 0 {
		keys = []string{"none"}
	}
	for _, c := range a.Calls {
		calls = append(calls, c.Text)
	}
	switch {
	case a.Window != nil && !a.Grouped:
		head = a.Window.Describe() + ", each row once per window (no state)"
	case a.Window != nil:
		head = fmt.Sprintf("%s, keys (%s), aggregates (%s)", a.Window.Describe(), strings.Join(keys, ", "), strings.Join(calls, ", "))
	case len(a.Keys) > 0:
		head = fmt.Sprintf("GROUP BY %s, aggregates (%s), emitted at the stream's end", strings.Join(keys, ", "), strings.Join(calls, ", "))
		if a.Updating {
			head = fmt.Sprintf("GROUP BY %s, aggregates (%s), each change as it happens (+I a new group, -U old and +U new, -D an emptied one)", strings.Join(keys, ", "), strings.Join(calls, ", "))
		}
	default:
		head = fmt.Sprintf("global, aggregates (%s), one row at the stream's end", strings.Join(calls, ", "))
		if a.Updating {
			head = fmt.Sprintf("global, aggregates (%s), each change as it happens (+I the first row, then -U old and +U new)", strings.Join(calls, ", "))
		}
	}
	detail := func(k LineKind, format string, args ...any) {
		details = append(details, fmt.Sprintf(format, args...))
		kinds = append(kinds, k)
	}
	if a.Having != nil {
		detail(LineDetail, "having %s", a.Having.Text)
	}
	if a.Window != nil {
		late := "'" + a.Late + "'"
		if a.LateOutput >= 0 && a.LateOutput < len(outputs) && outputs[a.LateOutput].Late {
			late += " (default)"
		}
		detail(LineLate, "late rows -> %s", late)
	}
	if a.Grouped {
		grows := "groups"
		if a.Window != nil {
			grows = "open windows × groups"
			if a.Window.Func == "SESSION" {
				grows = "open sessions per key × groups"
			}
		}
		for _, c := range a.Calls {
			switch {
			case c.Spec.Distinct:
				grows += "; distinct values of " + c.Text
			case c.Spec.Func == AggListAgg:
				grows += "; text of " + c.Text
			case c.Spec.Retracting && c.Spec.Func >= AggMin && c.Spec.Func <= AggLast:
				grows += "; values of " + c.Text + " (kept for retractions)"
			}
		}
		detail(LineDetail, "state grows with: %s", grows)
		if a.Updating && a.StateTTL > 0 && a.ProcTimeTTL {
			detail(LineDetail, "state TTL: a group unchanged for %s is dropped ('table.exec.state.ttl'; processing time is the clock: the relation it reads has no event time)", FormatTTL(a.StateTTL))
		} else if a.Updating && a.StateTTL > 0 {
			detail(LineDetail, "state TTL: a group unchanged for %s is dropped ('table.exec.state.ttl'; the watermark is the clock, else processing time)", FormatTTL(a.StateTTL))
		}
		if a.Updating && a.MiniBatch {
			detail(LineDetail, "mini-batch: each input batch's changes folded into one per group ('table.exec.mini-batch.enabled')")
		}
	}
	return head, details, kinds
}

// FormatTTL writes a 'table.exec.state.ttl' duration in Flink's syntax, in
// its largest whole unit: "0 ms", "90 s", "30 min", "12 h", "1 d".
func FormatTTL(d time.Duration) string {
	n, u := WholeUnit(d.Milliseconds())
	return fmt.Sprintf("%d %s", n, u.Short)
}

// TimeUnit is a unit of time as this project writes it: its length in ms,
// its SQL INTERVAL name (SECOND) and its short form ('table.exec.state.ttl'
// syntax: "s").
type TimeUnit struct {
	MS         int64
	SQL, Short string
}

var timeUnits = []TimeUnit{{86_400_000, "DAY", "d"}, {3_600_000, "HOUR", "h"}, {60_000, "MINUTE", "min"}, {1000, "SECOND", "s"}, {1, "MILLISECOND", "ms"}}

// WholeUnit returns ms milliseconds in the largest unit it is a whole number
// of (DAY down to MILLISECOND; 0 is 0 MILLISECOND), as that number and unit.
func WholeUnit(ms int64) (int64, TimeUnit) {
	for _, u := range timeUnits {
		if ms != 0 && ms%u.MS == 0 {
			return ms / u.MS, u
		}
	}
	return ms, timeUnits[len(timeUnits)-1]
}
