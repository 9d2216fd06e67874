package plan

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"streamql/catalog"
)

// JoinType is which rows of a two-sided join reach its output without a
// partner (SPEC 2.7).
type JoinType uint8

// The join types of SPEC 2.7.
const (
	InnerJoin JoinType = iota
	LeftJoin
	RightJoin
	FullJoin
)

var joinTypeNames = [...]string{"INNER", "LEFT", "RIGHT", "FULL"}

// String returns the type as SQL writes it ("LEFT").
func (t JoinType) String() string { return joinTypeNames[t] }

// JoinInput is one input of a two-sided join: its stream, the name the query
// reads it by, its batch layout (the stream's columns, then its
// CURRENT_WATERMARK column when it has a WATERMARK) and its compiled
// watermark expression (nil without one), whose stamps go to WatermarkCol
// (-1 without one).
type JoinInput struct {
	Stream       *catalog.Stream
	Name         string
	Types        []catalog.Type
	Watermark    *Expr
	WatermarkCol int
	// KeyExprs are the join keys that are expressions, not columns
	// (MOD(b.auction, 10000)), over this input's layout: each is computed
	// into a column appended to Types, in order, after WatermarkCol.
	KeyExprs []*Expr
	// Names, when set, name the input's columns for EXPLAIN: an input that
	// is itself a join (a FROM of more than two relations) names them by
	// the relations the query wrote (b.k), not the joined rows' k0.
	Names []string
	// Keep marks the columns of the input's layout (Types) the join holds
	// in its state and passes on; nil keeps every column. The planner's
	// column pruning (planner/rule_prune_columns.go) leaves out the columns
	// no reader of the joined rows reads (the queries' select lists, WHERE,
	// GROUP BY and the like: plan.Branch.Uses), keeping the keys, the event
	// time and the CURRENT_WATERMARK column; a pruned column is NULL in the
	// joined rows. Late rows go to the late output whole (SPEC 2.7: as they
	// came), before any column is dropped.
	Keep []bool
	// Pass marks the columns of the input's layout the joined rows carry
	// (nil: every column Keep keeps): those the joined rows' readers read
	// (planner/rule_prune_columns.go), not those only the join itself reads
	// (its keys, event time and CURRENT_WATERMARK columns, its key
	// expressions' and residual ON terms' columns), which it holds (Keep)
	// but writes NULL into the joined rows (op.JoinSpec.Pass): the benchmark
	// suite's interval join writes 4 of its 8 columns. It is set for a
	// query over the join whose readers call no function (plan.OpFunc):
	// a failed call prints the joined row, every column held, in the errors
	// output (SPEC 1), as without it.
	Pass []bool
	// Filter (nil: none), BOOLEAN over the input's layout, is the part of
	// the query's WHERE (or of an outer join's ON) that reads this input
	// only and that the planner pushed below the join (planner/
	// rule_pushdown.go; Flink's FilterJoinRule): a row for which it is not
	// TRUE joins nothing and is not kept, unless it is late (SPEC 2.7: a
	// late row goes to the late output as it came, whatever the query
	// would have kept of it).
	Filter *Expr
	// NoTime, when not "", says why the join reads this input without event
	// time although its stream has some (TimeCol is then -1): an updating
	// input (BothJoin.Changes: a Top-N, an unbounded GROUP BY, a CDC
	// stream, a deduplication keeping the last row) or the final result of
	// a deduplication keeping the last row over a bounded input
	// (Derived.VersionTime), other than a temporal join's versioned side.
	// Its rows come when the operator decides them (a -U row with the
	// replaced row's older time, the final rows in key order), not in the
	// order of their time, so none is late (SPEC 2.7: a late row is below
	// its own input's watermark as it arrives): the join handles them as
	// they come, as Flink's regular join does its inputs' changes.
	NoTime string
	// FinalVersions is set on a temporal join's versioned side that is the
	// final result of a deduplication keeping the last row over a bounded
	// input (Derived.VersionTime over a Rank with Bounded): its rows come at
	// its input's end in key order, not in time order, so the join computes
	// no watermark over them (Watermark is nil) until that input ends: none
	// of them is late, and each left row waits for all of them, then joins
	// the one of its key valid at its time (SPEC 2.7).
	FinalVersions bool
}

// Pruned returns the names of the input's columns the join does not keep
// (Keep), in layout order; nil when it keeps every one.
func (in *JoinInput) Pruned() []string {
	var out []string
	for c, k := range in.Keep {
		if !k && c < len(in.Types) {
			out = append(out, in.colName(c))
		}
	}
	return out
}

// ColName returns column c of the input's layout as EXPLAIN names it
// (colName): the planner's rules name columns so in their EXPLAIN lines.
func (in *JoinInput) ColName(c int) string { return in.colName(c) }

// colName names column c of the input's layout for EXPLAIN: the query's
// name of it (Names), the stream's, or $watermark / a computed key's; a
// relation's input stream's watermark before and after each row
// (Derived.StreamWatermarks) $stream-watermark-before and -after.
func (in *JoinInput) colName(c int) string {
	d := DerivedOf(in.Stream)
	carries := in.WatermarkCol >= 0 && d != nil && d.Stamps && d.StreamWatermarks
	switch {
	case c < len(in.Names):
		return in.Names[c]
	case c < len(in.Stream.Columns):
		return in.Name + "." + in.Stream.Columns[c].Name
	case c == in.WatermarkCol:
		return in.Name + ".$watermark"
	case carries && c == in.WatermarkCol+1:
		return in.Name + ".$stream-watermark-before"
	case carries && c == in.WatermarkCol+2:
		return in.Name + ".$stream-watermark-after"
	}
	return in.keyText(c)
}

// joined reports whether the input is the rows of another join (a FROM of
// more than two relations, SPEC 2.7): they have no event time, so no row
// of it is late.
func (in *JoinInput) joined() bool {
	d := DerivedOf(in.Stream)
	return d != nil && d.Kind == "join"
}

// TimeCol returns the input's event-time column in its layout, -1 when it
// has no WATERMARK (no event time, SPEC 2.3) or the join reads it without
// (NoTime).
func (in *JoinInput) TimeCol() int {
	if in.Stream.Watermark == nil || in.NoTime != "" {
		return -1
	}
	return in.Stream.EventTime
}

// BothJoin is a join whose output has both sides' columns (SPEC 2.7): the
// regular and interval kinds of its table, INNER, LEFT, RIGHT or FULL. The
// job that holds one reads the joined rows as its stream (Job.Stream is the
// joined relation, JoinedStream; its batch is the left input's layout, then
// the right input's), so the branches, aggregates and sinks after it are the
// ones of any job.
type BothJoin struct {
	Type   JoinType
	Inputs [2]JoinInput
	// Keys are the key columns of each input, pairwise equal in type.
	Keys [2][]int
	// NullSafe marks the key pairs written a.k IS NOT DISTINCT FROM b.k
	// (or a.k <=> b.k): NULL there matches NULL, as in Flink, where an =
	// pair's NULL matches nothing (SPEC 2.7). nil when none is; else one
	// flag a pair of Keys (op.JoinSpec.NullSafe).
	NullSafe []bool
	// Interval is set for an interval join: left.t - right.t in [Lo, Hi]
	// (ms). Why says why a condition on the times did not make one ("" when
	// none was written or it did).
	Interval bool
	Lo, Hi   int64
	Why      string
	// NoPairs, when set, says that the condition's time bounds leave no
	// interval (a lower bound above the upper one), so that the join
	// matches no pair: EXPLAIN prints it as a warning, and the planner
	// warns when the query runs (Planner.Warnings; Flink's interval join
	// with a negative window size runs so, with a logged warning).
	NoPairs string
	// Window is set for a window join (SPEC 2.7: both inputs window
	// aggregates of one window, joined on window_start and window_end): an
	// interval join with Lo = Hi = 0 on the window_end columns, whose output
	// is append-only, also outer, emitted when the window fires.
	Window bool
	// Lookup is set for a lookup join (SPEC 2.7: INNER or LEFT, not an
	// interval join, with a bounded right side): the right side is read whole
	// before the left's first row, so a left row never waits for a partner
	// and the output is append-only.
	Lookup bool
	// Temporal is set for an event-time temporal join (SPEC 2.7: JOIN r FOR
	// SYSTEM_TIME AS OF l.t, INNER or LEFT): each left row joins the version
	// of its key (the right side's PRIMARY KEY, which Keys hold) valid at its
	// time; append-only.
	Temporal bool
	// KeepVersions is set for a temporal join whose versioned side's -D
	// rows are halves of updates (Derived.KeepsKeys): they end no version.
	KeepVersions bool
	// Residual are an outer join's ON terms other than its key equalities
	// and time bounds, BOOLEAN, over the joined layout (JoinedStream): a pair
	// joins only when each is TRUE, and a row none of whose pairs does is
	// padded (SPEC 2.7; Flink's join condition). An INNER join filters its
	// rows by such terms after the join instead.
	Residual []*Expr
	// Changes is set for each input that is updating (SPEC 2.8: a derived
	// relation whose rows carry kinds): the join is then a regular one, its
	// input's -U and -D rows retract the joined rows their +I/+U made (Flink's
	// StreamingJoinOperator), and its output is updating.
	Changes [2]bool
	// Extreme, when its Size is above 0, says that one input of an INNER
	// interval join is a TUMBLE window aggregate's MAX or MIN of the other
	// input's own rows, which the join's keys equal (Nexmark q7), so that
	// the join drops the other input's rows that cannot equal it as they
	// come (planner/rule_join_extreme.go proves it; op.JoinExtreme).
	Extreme JoinExtreme
	// Swap, on an INNER lookup join, reads the left input whole first and
	// keeps it, and joins each right row as it comes, instead of keeping
	// the right input (op.JoinSpec.Swap): the job's rows then reach its
	// Top-N in another order, which its result does not depend on but
	// through their positions, Rank.PosOrder (planner/rule_join_swap.go
	// proves it; Nexmark q9).
	Swap bool
	// StateTTL bounds a regular join's state ('table.exec.state.ttl',
	// SPEC 2.7's table; planner.ParseStateTTL): a row leaves the state once
	// the join's watermark is that far above its event time (processing
	// time for an input without event time); 0 keeps every row. The other
	// kinds bound their state by the watermarks and leave it 0.
	StateTTL time.Duration
	// Simplified, when set, says that the join was written as an outer one
	// that the query's WHERE made INNER (or a FULL one LEFT or RIGHT): it
	// rejects the NULLs the join would pad (Flink's outer-join
	// simplification, parser.Select.Simplified; the planner's
	// rule_simplify_outer_join.go), as EXPLAIN shows it:
	// "LEFT -> INNER (WHERE t.rn <= 10 rejects NULL rows)".
	Simplified string
	// Text is the join as written ("o JOIN p ON ..."), for EXPLAIN.
	Text string
	// Late names each input's late output (LATE INTO SIDE 'x', 'y', or
	// late-<name>), LateNamed whether LATE INTO SIDE named each (it names
	// them in FROM order: one name names the left input's only), and
	// LateOutput their indexes in Job.Outputs (set when the job is made).
	// LatePos holds the script offset of each name LATE INTO SIDE wrote, for
	// the planning error of a name that another output of the job has.
	Late       [2]string
	LateNamed  [2]bool
	LateOutput [2]int
	// LatePos is the offset of the LATE INTO SIDE name of each input in
	// the script (of the clause's first name when the join is one of a
	// FROM of more), 0 when none names it: where a planning error about
	// that late output points.
	LatePos [2]int
}

// JoinExtreme is BothJoin.Extreme: input Side's column Col (a key of the
// join) is what the other input aggregates into its MAX (Max) or MIN by
// TUMBLE windows of Size ms from Offset; a row of Side at time t can join
// the windows whose window_end e has t - e in [Lo, Hi] (ms).
type JoinExtreme struct {
	Side         int
	Col          int
	Max          bool
	Size, Offset int64
	Lo, Hi       int64
}

// Updating reports whether the join's output is updating (SPEC 2.7's table,
// 2.8): a regular outer join, or a join that reads an updating input.
func (j *BothJoin) Updating() bool {
	return !j.Interval && !j.Lookup && !j.Temporal && j.Type != InnerJoin || j.Changes[0] || j.Changes[1]
}

// OutputTime returns the event time of the join's output (SPEC 2.6, 2.7:
// event time flows through joins, as Flink's interval joins keep their
// inputs' time attributes): col is its column in the joined layout (the
// left input's time column; a RIGHT interval or window join's is the right
// input's, never NULL there, the mirror of LEFT: a window join is an
// interval join whose bounds are the constant offset of the two window
// times, windowJoin in the planner) and delay, in ms, how far below
// the largest time among the rows given so far a later row's time may be,
// so that a watermark of (that time - delay) makes no joined row late. ok
// is false when the output has no event time: a regular join (Flink
// materializes its inputs' time attributes), an updating one, a FULL join
// (a padded row has no time on one side), a RIGHT join other than an
// interval or window join, or an input without event time. The delays follow from
// the order op.Join and op.Temporal handle rows in (event-time order, once
// the watermarks pass them): a lookup or temporal join gives its left rows
// in time order (delay 0); an interval join with left.t - right.t in [Lo,
// Hi] gives a pair when its later row is handled, at time h, and pads a
// row once the handled time passes its interval's end (a left row's
// l.t - Lo, a right row's r.t + Hi), so a row's left time is at least
// h + Lo and its right time at least h - Hi (delay -Lo for the left time
// when Lo < 0, Hi for the right time when Hi > 0, as Flink holds an
// interval join's output watermark back by the interval).
func (j *BothJoin) OutputTime() (col int, delay int64, ok bool) {
	if j.Updating() || j.Type == FullJoin {
		return -1, 0, false
	}
	if j.Type == RightJoin {
		rt := j.Inputs[1].TimeCol()
		if !(j.Interval || j.Window) || rt < 0 || j.Inputs[0].TimeCol() < 0 {
			return -1, 0, false
		}
		return len(j.Inputs[0].Types) + rt, max(0, j.Hi), true
	}
	lt := j.Inputs[0].TimeCol()
	if lt < 0 {
		return -1, 0, false
	}
	switch {
	case j.Interval || j.Window:
		if j.Inputs[1].TimeCol() < 0 {
			return -1, 0, false
		}
		return lt, max(0, -j.Lo), true
	case j.Lookup, j.Temporal:
		return lt, 0, true
	}
	return -1, 0, false
}

// OutputTimeName returns the name of the join's output time as
// "<input name>.<column>" (the left input's; a RIGHT interval join's right
// input's: OutputTime), for EXPLAIN; "" when the output has no event time.
func (j *BothJoin) OutputTimeName() string {
	col, _, ok := j.OutputTime()
	if !ok {
		return ""
	}
	in := &j.Inputs[0]
	if j.Type == RightJoin {
		in, col = &j.Inputs[1], col-len(j.Inputs[0].Types)
	}
	return in.Name + "." + in.Stream.Columns[col].Name
}

// Kind returns the join's kind as SPEC 2.7's table names it.
func (j *BothJoin) Kind() string {
	switch {
	case j.Window:
		return "window join"
	case j.Interval:
		return "interval join"
	case j.Temporal:
		return "temporal join"
	case j.Lookup:
		return "lookup join"
	}
	return "regular join"
}

// JoinConnector is the connector of a joined relation (JoinedStream): its
// rows come from the job's BothJoin, not from a source. It is bounded when
// both inputs are.
var JoinConnector = &catalog.ConnectorSpec{Name: "join", Doc: "the rows of a join of two streams (SPEC 2.7)",
	Bounded: func(o map[string]string) bool { return o["bounded"] == "true" }}

// JoinedStream returns the relation j outputs, as a stream of JoinConnector:
// its columns are the left input's layout, then the right input's, each
// named "<input name>.<column>" (a CURRENT_WATERMARK column
// "<input name>.$watermark"); it has no WATERMARK of its own.
func JoinedStream(j *BothJoin) *catalog.Stream {
	st := &catalog.Stream{Name: j.Inputs[0].Name + " JOIN " + j.Inputs[1].Name, EventTime: -1, Connector: JoinConnector,
		Options: map[string]string{"bounded": fmt.Sprint(j.Inputs[0].Stream.Bounded() && j.Inputs[1].Stream.Bounded())}}
	for _, in := range j.Inputs {
		for c, t := range in.Types {
			name := "$watermark"
			switch k := c - (len(in.Types) - len(in.KeyExprs)); {
			case c < len(in.Stream.Columns):
				name = in.Stream.Columns[c].Name
			case k >= 0:
				name = fmt.Sprintf("$key%d", k)
			}
			st.Columns = append(st.Columns, catalog.Column{Name: in.Name + "." + name, Type: t})
		}
	}
	return st
}

// KeyOp returns how key pair i of j compares, for EXPLAIN and messages:
// " IS NOT DISTINCT FROM " for a null-safe pair (NullSafe), " = " else.
func (j *BothJoin) KeyOp(i int) string {
	if i < len(j.NullSafe) && j.NullSafe[i] {
		return " IS NOT DISTINCT FROM "
	}
	return " = "
}

// describe returns the Join node's text and details for EXPLAIN.
func (j *BothJoin) describe() (string, []string) {
	var keys []string
	for i := range j.Keys[0] {
		keys = append(keys, j.Inputs[0].keyText(j.Keys[0][i])+j.KeyOp(i)+j.Inputs[1].keyText(j.Keys[1][i]))
	}
	text := fmt.Sprintf("%s %s: %s", j.Type, j.Kind(), strings.Join(keys, " AND "))
	var d []string
	if j.Simplified != "" {
		d = append(d, "type: "+j.Simplified+", as Flink simplifies an outer join")
	}
	if j.Window {
		d = append(d, "windows: "+DerivedOf(j.Inputs[0].Stream).Window.Describe()+" on both sides, joined when the window fires (rows of one window_end)")
	} else if j.Interval {
		lt := j.Inputs[0].Stream.Columns[j.Inputs[0].TimeCol()].Name
		rt := j.Inputs[1].Stream.Columns[j.Inputs[1].TimeCol()].Name
		d = append(d, fmt.Sprintf("interval: %s.%s - %s.%s in [%d ms, %d ms]", j.Inputs[0].Name, lt, j.Inputs[1].Name, rt, j.Lo, j.Hi))
	}
	if j.NoPairs != "" {
		d = append(d, "warning: the time bounds leave no interval: "+j.NoPairs)
	} else if j.Why != "" {
		d = append(d, "not an interval join: "+j.Why)
	}
	if len(j.Residual) > 0 {
		d = append(d, "pairs join only when also: "+AndText(j.Residual))
	}
	switch {
	case j.Temporal:
		d = append(d, "order: rows held until both watermarks pass them, then handled in event-time order (a version before a left row of its time): each left row joins the version of its key valid at its time (SPEC 2.7: deterministic)")
	case j.Swap:
		d = append(d, "order: the left side is read whole first and kept (its rows taken as a lookup join joins them), then each right row is joined as it arrives; the Top-N after it gives its partitions in the left rows' order: the lookup join's result")
	case j.Lookup && j.Inputs[0].TimeCol() >= 0:
		d = append(d, "order: the right side is read whole first, then the left side's rows are joined in event-time order as its watermark passes them")
	case j.Lookup:
		d = append(d, "order: the right side is read whole first, then the left side's rows are joined as they arrive")
	case j.Inputs[0].TimeCol() >= 0 && j.Inputs[1].TimeCol() >= 0:
		d = append(d, "order: rows held until both watermarks pass them, then joined in event-time order (SPEC 2.7: deterministic)")
	default:
		d = append(d, "order: rows joined as they arrive (an input has no event time: the output order depends on timing)")
	}
	switch {
	case j.Temporal:
		d = append(d, "state: one version per key of the right side, and the rows the watermarks have not passed (counted against 'state.max-bytes')")
	case j.Window:
		d = append(d, "state: one window's rows per side, dropped as the watermarks pass its end (counted against 'state.max-bytes')")
	case j.Interval:
		d = append(d, "state: rows inside the interval, dropped as the watermarks pass (counted against 'state.max-bytes')")
		if x := j.Extreme; x.Size > 0 {
			fn, cmp := "MAX", "below"
			if !x.Max {
				fn, cmp = "MIN", "above"
			}
			in := &j.Inputs[x.Side]
			d = append(d, fmt.Sprintf("state: a row of %s whose %s is %s the %s of its window's rows so far is not kept: %s is that %s, and the row cannot equal it", in.Name, in.colName(x.Col), cmp, fn, j.Inputs[1-x.Side].Name, fn))
		}
	case j.Swap:
		d = append(d, "state: the left side's rows (counted against 'state.max-bytes'); right rows are not kept (but when two left rows have one key: then all of them, joined at the right side's end)")
	case j.Lookup:
		d = append(d, "state: the right side's rows (counted against 'state.max-bytes'); left rows are not kept")
	case j.StateTTL > 0:
		d = append(d, fmt.Sprintf("state: every row of both inputs until the watermark is %s past its time ('table.exec.state.ttl'; processing time for an input without event time), counted against 'state.max-bytes'", FormatTTL(j.StateTTL)))
	default:
		d = append(d, "state: every row of both inputs (counted against 'state.max-bytes')")
		if !j.Inputs[0].Stream.Bounded() || !j.Inputs[1].Stream.Bounded() {
			d = append(d, "warning: a regular join over an unbounded input keeps every row: the state grows until the job stops at 'state.max-bytes'")
		}
	}
	for _, in := range j.Inputs {
		if in.Filter != nil {
			d = append(d, fmt.Sprintf("rows of %s filtered before the join: %s", in.Name, in.Filter.Text))
		}
	}
	for _, in := range j.Inputs {
		if p := in.Pruned(); len(p) > 0 {
			d = append(d, fmt.Sprintf("columns of %s not kept (no reader reads them): %s", in.Name, strings.Join(p, ", ")))
		}
	}
	for s, in := range j.Inputs {
		if j.Changes[s] {
			d = append(d, fmt.Sprintf("changes: %s is updating: its -U and -D rows retract the rows they joined (SPEC 2.8)", in.Name))
		}
	}
	for s, in := range j.Inputs {
		if why := j.NoLateRows(s); why != "" {
			d = append(d, fmt.Sprintf("late rows of %s: none (%s)", in.Name, why))
			continue
		}
		d = append(d, fmt.Sprintf("late rows of %s -> '%s'", in.Name, j.Late[s]))
	}
	return text, d
}

// NoLateRows says why no row of input s (0 left, 1 right) can be late
// (SPEC 2.7: a row below its own input's CURRENT_WATERMARK), "" when one
// can. EXPLAIN then shows no Sink for that input's late output:
//   - the right side of a lookup join is a table read whole;
//   - the rows of another join (a FROM of more than two relations) come no
//     later than its watermark allows;
//   - an input without event time has no watermark to be below (SPEC 2.3);
//   - an updating input, or a bounded deduplication's final rows, which the
//     join reads without event time (JoinInput.NoTime);
//   - a window aggregate's rows (Derived.InTimeOrder) come out as the
//     watermark passes their window's end, in the order of their time
//     column, which is the relation's watermark.
func (j *BothJoin) NoLateRows(s int) string {
	in := j.Inputs[s]
	switch d := DerivedOf(in.Stream); {
	case s == 1 && j.Lookup:
		return "a table read whole"
	case in.joined() && in.TimeCol() >= 0:
		return "the join before it gives its rows no later than its watermark allows"
	case in.joined():
		return "a regular join's rows have no event time"
	case in.NoTime != "":
		return in.NoTime
	case in.FinalVersions:
		return "a bounded deduplication's final rows, the versions, all read before the left rows they version"
	case in.TimeCol() < 0:
		return "no event time: no watermark to be below"
	case d != nil && d.InTimeOrder():
		c := in.Stream.Columns[in.TimeCol()].Name
		return "a window aggregate: its rows come in " + c + " order, and " + c + " is its watermark"
	}
	return ""
}

// keyText names key column c of the input for EXPLAIN: "b.auction", or a
// computed key's expression.
func (in *JoinInput) keyText(c int) string {
	if c < len(in.Names) {
		return in.Names[c]
	}
	if c < len(in.Stream.Columns) {
		return in.Name + "." + in.Stream.Columns[c].Name
	}
	if k := c - (len(in.Types) - len(in.KeyExprs)); k >= 0 && k < len(in.KeyExprs) {
		return in.KeyExprs[k].Text
	}
	return "?"
}

// UpsertKey returns the upsert key of a regular INNER join's output (SPEC
// 2.8), as joined-layout columns (input 0's columns, then input 1's), nil
// when it has none. It follows Flink's FlinkRelMdUpsertKeys for a join: an
// input's upsert key is its stream's PRIMARY KEY (a CDC or upsert stream,
// or a derived relation keyed by its query); a side is unique on the join
// when its key is within its join key columns, and its key survives the
// join (Flink's filterKeys) when it holds every one of them. When the
// right side is unique, the left's surviving key is the output's; else,
// when the left is unique, the right's; else, when both survive, the two
// together. Interval, window, lookup and temporal joins, outer joins, and
// inputs without a PRIMARY KEY give none here (Flink derives keys for
// some of them too).
func (j *BothJoin) UpsertKey() []int {
	if j.Type != InnerJoin || j.Interval || j.Window || j.Lookup || j.Temporal {
		return nil
	}
	var keys [2][]int
	var unique, kept [2]bool
	for s, in := range j.Inputs {
		for _, name := range in.Stream.PrimaryKey {
			c := slices.IndexFunc(in.Stream.Columns, func(col catalog.Column) bool { return catalog.FoldName(col.Name) == catalog.FoldName(name) })
			if c < 0 {
				keys[s] = nil
				break
			}
			keys[s] = append(keys[s], c)
		}
		if keys[s] == nil {
			continue
		}
		unique[s] = !slices.ContainsFunc(keys[s], func(c int) bool { return !slices.Contains(j.Keys[s], c) })
		kept[s] = !slices.ContainsFunc(j.Keys[s], func(c int) bool { return !slices.Contains(keys[s], c) })
	}
	right := make([]int, len(keys[1]))
	for x, c := range keys[1] {
		right[x] = len(j.Inputs[0].Types) + c
	}
	switch {
	case unique[1] && kept[0]:
		return keys[0]
	case unique[0] && kept[1]:
		return right
	case kept[0] && kept[1]:
		return append(slices.Clone(keys[0]), right...)
	}
	return nil
}

// EquivalentColumn returns the joined-layout column that an INNER join's
// condition makes equal to joined-layout column c (its paired key column
// on the other side), -1 when none: an upsert key may name either
// (Flink's enrichment of join keys by equivalences).
func (j *BothJoin) EquivalentColumn(c int) int {
	if j.Type != InnerJoin {
		return -1
	}
	n := len(j.Inputs[0].Types)
	for i := range j.Keys[0] {
		l, r := j.Keys[0][i], n+j.Keys[1][i]
		switch c {
		case l:
			return r
		case r:
			return l
		}
	}
	return -1
}
