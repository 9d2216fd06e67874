// Package plan is the physical plan of a job as the planner makes it and the
// executor runs it (DESIGN: planner; issue 10 item 2): its source stream, its
// watermark, the side branches and the main query with their joins, windows
// and aggregates (Aggregate, Window: SPEC 2.4), projections and LIMIT, and its
// outputs, with types resolved and names bound to batch column indexes. It prints itself (Job.Explain: EXPLAIN, SPEC 3).
// It links no SQL parser: the executor and the catalog import it, the planner
// builds it.
package plan

import (
	"fmt"
	"strings"
	"sync/atomic"

	"streamql/catalog"
)

// Output is one output of a job: main or a side output, with its schema.
type Output struct {
	Name    string // "main", the side name, or the sink stream's name
	Columns []catalog.Column
	// Sink is the sink stream the output's rows go to (INSERT INTO, INTO
	// STREAM: SPEC 2.5) instead of stdout or a side output; nil for those.
	Sink *catalog.Stream
	// Late marks the default late output of windowed queries (SPEC 2.4):
	// like errors, not a side output of the job for rendering, shown only
	// once a row reaches it.
	Late bool
	// Updating says that the output's rows are a changelog (SPEC 2.8): each
	// row has a kind (executor.Part.Kinds), and line formats print it (an
	// `op` column first in csv and tsv, "op" in json, +I[...] in plain).
	// UpsertKey are the indexes of the output columns that identify a row of
	// the materialized result, as Flink's FlinkRelMdUpsertKeys derives them
	// (an unbounded GROUP BY's keys, a CDC stream's PRIMARY KEY, a Top-N's
	// partition keys and rank, a keyed inner join's: planner/
	// rule_changelog.go), each selected as it is; nil when it has none; an
	// updating output without one is a retract changelog. Both are set by the planner's changelog
	// rule (planner/rule_changelog.go); append-only outputs leave them zero.
	Updating  bool
	UpsertKey []int
}

// Branch is one compiled SELECT: a side branch (Side != "") or the main query. It
// reads the job's source batch; Where (nil = always true) decides whether it takes
// a row, Project computes the output columns.
type Branch struct {
	Side    string
	SidePos int
	Stream  *catalog.Stream
	Where   *Expr
	Project []*Expr
	Columns []catalog.Column
	Limit   int64 // main only; -1 = none
	Join    *Join // nil when the branch does not filter by another stream
	// Uses marks the source batch columns (Job.BatchTypes) that the branch's
	// WHERE, projection and join read; the other columns of a held row need
	// not be kept (SPEC 2.2, event-time strategy).
	Uses   []bool
	Text   string
	Output int // index into Job.Outputs, set by NewJob
	// Unnest is the branch's CROSS JOIN UNNEST (SPEC 2.10), nil when none;
	// Stream is then its unnested relation (UnnestedStream).
	Unnest *Unnest
	// Both is the branch's join of two streams (SPEC 2.7), nil when it reads
	// one stream; Stream is then its joined relation (JoinedStream).
	Both *BothJoin
	// Sink is the stream the branch's rows go to (SPEC 2.5: INSERT INTO for the
	// main query, INTO STREAM for a side branch, whose Side is then the sink's
	// name), nil for stdout and side outputs; SinkPos is the offset of its name.
	// Columns are then the sink's columns.
	Sink    *catalog.Stream
	SinkPos int
	// DeadLetters maps each stream the branch reads that has 'errors.stream'
	// to that dead-letter sink stream (SPEC 2.5).
	DeadLetters map[*catalog.Stream]*catalog.Stream
	// Agg is the branch's window TVF and aggregation (SPEC 2.4), nil when it
	// has neither; Project and Columns then read the aggregate row (or the
	// windowed batch).
	Agg *Aggregate
	// Rank is the Top-N, deduplication, OVER aggregation or ORDER BY the main
	// query ends with (SPEC 2.9), nil when none.
	Rank *Rank
	// ProjectKey is the upsert key of the branch's projected rows (indexes
	// of Project: an updating aggregate's keys, or the PRIMARY KEY of the
	// changes it reads, selected as they are; SPEC 2.8), which a Rank then
	// reads; nil when they are append-only or have none. Set by the
	// planner's changelog rule (planner/rule_changelog.go) with the
	// output's UpsertKey; EXPLAIN shows it on the Project.
	ProjectKey []int
	// Line and Column are the 1-based position of the statement in its script
	// (columns in characters, as SPEC 4's error positions), 0 when unknown, and
	// Script that script's name ("" when unknown): the late-rows notice tells
	// the queries of one job apart by them.
	Line, Column int
	Script       string
	// From is the name the branch reads Stream by: its FROM entry's alias,
	// or the relation's name without one ("" when it reads no one relation
	// by name: a join's, an UNNEST's). A derived relation's late outputs
	// that need a suffix take it (SPEC 2.7's late-<alias or stream name>;
	// ruleDerivedJob).
	From string
}

// Job is the physical plan of one scan of a stream: the source, its watermark,
// the side branches in declaration order and the main query (SPEC 2.1).
type Job struct {
	Stream   *catalog.Stream
	Branches []*Branch // side branches, in declaration order
	Main     *Branch   // nil when the job runs pending branches only (RUN)
	Outputs  []Output  // main first when there is a main query, then sides in declaration order
	// Watermark is the compiled WATERMARK expression over the source batch, nil
	// when the stream has none; WatermarkCol is the batch column that holds each
	// row's CURRENT_WATERMARK (the watermark before the row), -1 when none.
	Watermark    *Expr
	WatermarkCol int
	// BatchTypes are the types of the source batch's columns: the stream's
	// columns, then the watermark column when there is one (for a relation
	// with Derived.StreamWatermarks, then the two columns of its input stream's
	// watermark before and after each row).
	BatchTypes []catalog.Type
	// DeadLetters maps each stream the job reads that has 'errors.stream' to
	// its dead-letter sink stream (SPEC 2.5); nil when none.
	DeadLetters map[*catalog.Stream]*catalog.Stream
	// Both is the join the job's stream comes from when it reads a join of two
	// streams (SPEC 2.7; Stream is then JoinedStream(Both)), nil otherwise.
	Both *BothJoin
	// DerivedOutputs maps each job of a derived relation the job reads
	// (Derived.Parts, SPEC 2.6) to where its outputs go in this job: per
	// output of the part, its index in Outputs (-1 for the part's main
	// output, whose rows are the relation's).
	DerivedOutputs map[*Job][]int
	// Unnest is the job's CROSS JOIN UNNEST (SPEC 2.10), nil when none: the
	// executor reads Unnest.Inner and repeats each row per element; Stream
	// is then UnnestedStream's relation (the inner stream's columns, then the
	// new ones).
	Unnest *Unnest
	// ReaderWindows are the windows of the jobs reading the relation this
	// job is a part of (Derived.Parts with Derived.Stamps, SPEC 2.6) over
	// its event time, whose rows carry this job's watermark: each a copy
	// with TimeCol the job's Stream.EventTime. A row whose time has such a
	// window outside int64 is malformed here too and moves no watermark
	// (SPEC 1, 2.4), as over the stream itself. The planner sets it when
	// it plans the job that reads the relation (planner/rule_readerwins.go,
	// for the parts at every depth), and EXPLAIN shows it under the part's
	// AssignWatermark; a view's parts get the windows of the statement that
	// reads them, as Job.Tees (ShareTees), in that statement's copy of the
	// view's relation (CopyRelation), never in the catalog's.
	ReaderWindows []*Window
	// Fanout offers every row of the stream to every branch, each taking the
	// rows its WHERE holds for, instead of SPEC 2.1's first match: the
	// branches of a relation's GROUP BY planned over its stream, each with
	// its own copy of the aggregate, whose HAVING routes the groups' changes
	// by first match (the planner's ruleFuseRankAggSides).
	Fanout bool
	// Tees are the streams the job reads more than once that can be read
	// once (no catalog.CapReread and no catalog.CapReadWhole: stdin, a 'go'
	// stream, a socket), each opened once and its rows fanned out to its
	// readers (issue 22 item 1's DAG; the planner's ruleTee), by name. The
	// parts of the derived relations the job reads (Derived.Parts) hold the
	// same Tees, for EXPLAIN: their reads are readers of the job's tee.
	// Empty when the job reads no such stream twice.
	Tees []Tee
	// Strategy is how the executor runs the job, and Procs the CPUs it was
	// chosen for (GOMAXPROCS): set by the planner's strategy rule
	// (planner.ChooseStrategy), printed by EXPLAIN (issue 22 item 1).
	Strategy Strategy
	Procs    int
	// EncodeAhead: the main output's changelog lines are encoded and
	// written on a goroutine of their own while the job's goroutine goes on
	// (the command line's sink, cmd/streamql/render/changeenc.go), when
	// they are printed to stdout as csv or tsv lines, not on a terminal (the
	// format and the terminal are the frontend's, known when the job runs).
	// Set by the planner's encode-ahead rule (planner/rule_encode_ahead.go)
	// with the strategy; EXPLAIN prints it as the main Sink's strategy.
	EncodeAhead bool
}

// EncodeAheadText is the strategy EXPLAIN prints on the main Sink of a job
// with EncodeAhead: what runs where, and when it does not apply.
const EncodeAheadText = "changelog lines encoded on a goroutine of their own when printed to stdout as csv or tsv (not a terminal); other formats on the job's goroutine"

// CountNulls sets a NullCount on every division, DIV, % and CAST of j's
// expressions (WHERE, projections, join keys and filters, aggregate keys,
// arguments and HAVING, WATERMARK) that has none, and returns each counted
// expression once, in the order the branches declare them (EXPLAIN ANALYZE,
// SPEC 3: NULLs from a zero divisor or a failed CAST, per expression).
func (j *Job) CountNulls() []*Expr {
	var out []*Expr
	seen := map[*Expr]bool{}
	var walk func(e *Expr)
	walk = func(e *Expr) {
		if e == nil || seen[e] {
			return
		}
		seen[e] = true
		for _, a := range e.Args {
			walk(a)
		}
		switch e.Op {
		case OpDiv, OpIntDiv, OpMod, OpCast:
			if e.NullCount == nil {
				e.NullCount = new(atomic.Int64)
			}
			out = append(out, e)
		}
	}
	walk(j.Watermark)
	for _, b := range j.AllBranches() {
		walk(b.Where)
		if jn := b.Join; jn != nil {
			walk(jn.BuildFilter)
			walk(jn.ProbeFilter)
			for _, k := range jn.BuildKeys {
				walk(k)
			}
			for _, k := range jn.ProbeKeys {
				walk(k)
			}
		}
		if a := b.Agg; a != nil {
			for _, k := range a.Keys {
				walk(k)
			}
			for _, c := range a.Calls {
				walk(c.Arg)
			}
			walk(a.Having)
		}
		for _, e := range b.Project {
			walk(e)
		}
	}
	return out
}

// AllBranches returns the job's side branches in declaration order, then its
// main query when it has one: the order of the router's parts (SPEC 2.1's
// first match) and of Stats.Late. The slice is new; the branches are j's.
func (j *Job) AllBranches() []*Branch {
	bs := append(make([]*Branch, 0, len(j.Branches)+1), j.Branches...)
	if j.Main != nil {
		bs = append(bs, j.Main)
	}
	return bs
}

// HasSides reports whether the job has side outputs, which decides how line
// formats print (SPEC 4: decided when planned, even if a branch gets no rows).
// A branch into a sink stream (INTO STREAM, SPEC 2.5) is not a side output.
func (j *Job) HasSides() bool {
	for _, b := range j.Branches {
		if b.Sink == nil {
			return true
		}
	}
	for _, b := range j.AllBranches() { // LATE INTO SIDE (SPEC 2.4)
		if b.Agg != nil && b.Agg.LateNamed {
			return true
		}
	}
	if j.Both != nil && (j.Both.LateNamed[0] || j.Both.LateNamed[1]) { // a join's LATE INTO SIDE 'x', 'y' (SPEC 2.7)
		return true
	}
	for _, st := range j.Streams() { // the side outputs of the relations it reads are its own (SPEC 2.6: the first join of a FROM of three relations names the late outputs)
		if d := DerivedOf(st); d != nil {
			for _, part := range d.Parts {
				if part.HasSides() {
					return true
				}
			}
		}
	}
	return false
}

// Streams returns the streams the job reads, each once: its probe stream, then
// the build side of every branch's join, in branch order (side branches, then
// main).
func (j *Job) Streams() []*catalog.Stream {
	out := []*catalog.Stream{j.Stream}
	if j.Both != nil { // a join's two inputs (SPEC 2.7), after its joined relation
		out = append(out, j.Both.Inputs[0].Stream)
		if j.Both.Inputs[1].Stream != j.Both.Inputs[0].Stream {
			out = append(out, j.Both.Inputs[1].Stream)
		}
	}
	add := func(b *Branch) {
		if b == nil || b.Join == nil {
			return
		}
		for _, s := range out {
			if s == b.Join.Build {
				return
			}
		}
		out = append(out, b.Join.Build)
	}
	for _, b := range j.Branches {
		add(b)
	}
	add(j.Main)
	return out
}

// SchemaText renders columns as EXPLAIN and messages show them: (name TYPE, ...).
func SchemaText(cols []catalog.Column) string {
	var parts []string
	for _, c := range cols {
		parts = append(parts, c.Name+" "+c.Type.String())
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// Explain renders the job's plan as stable text (SPEC 3; SPEC 4 "Finding out
// why"): its operator tree (Tree.Text).
func (j *Job) Explain() string { return j.Tree().Text() }

// SinkText describes a sink stream for EXPLAIN (SPEC 2.5): "sink s (file
// out.csv, csv)": its connector, its path or topic when it has one, its format.
func SinkText(st *catalog.Stream) string {
	parts := []string{st.Connector.Name}
	fc, kc := st.File(), st.Kafka()
	if fc != nil && fc.Path != "" {
		parts[0] += " " + fc.Path
	} else if kc != nil && kc.Topic != "" {
		parts[0] += " " + kc.Topic
	}
	if f := st.Shared().Format; f != "" {
		parts = append(parts, f)
	}
	if fc != nil && fc.SinkMode == "append" {
		parts = append(parts, fc.SinkMode)
	}
	return "sink " + st.Name + " (" + strings.Join(parts, ", ") + ")"
}

// JoinMode is the mode of the hash join operator (SPEC 2.2).
type JoinMode uint8

// The two modes of the one hash-join operator.
const (
	Semi JoinMode = iota // keep left rows that have a match
	Anti                 // keep left rows that have no match
)

// Join filters a branch's rows (the probe side) by the keys of another stream
// (the build side), SPEC 2.2. SEMI JOIN, IN (subquery) and EXISTS lower to Semi;
// ANTI JOIN, NOT EXISTS and NOT IN to Anti (NOT IN with NullAware set: SQL's
// three-valued rule). The build side is bounded and read whole before the probe
// side streams through; its state is the set of distinct keys.
type Join struct {
	Mode      JoinMode
	NullAware bool
	Build     *catalog.Stream
	// BuildTypes is the build source's batch layout.
	BuildTypes []catalog.Type
	// BuildFilter (nil = true) selects the build rows that count; BuildKeys and
	// ProbeKeys are the key expressions, pairwise of one type (KeyTypes).
	BuildFilter *Expr
	BuildKeys   []*Expr
	ProbeKeys   []*Expr
	KeyTypes    []catalog.Type
	// NullSafe marks the key pairs written with IS NOT DISTINCT FROM (or
	// <=>) in a correlated EXISTS: NULL matches NULL there, as in Flink's
	// semi/anti join, where an = pair's NULL matches nothing. nil: none;
	// else one flag a key pair (op.MarkLayout.NullSafe).
	NullSafe []bool
	// ProbeFilter (nil = true) is a condition on the left row that is part of the
	// join condition: Semi keeps a row when it holds and a key matches; Anti keeps
	// it unless both; for NOT IN, a row for which it does not hold sees an empty
	// subquery and passes.
	ProbeFilter *Expr
	Text        string // the join as written, for EXPLAIN
	Pos         int
	// For an unbounded build side (SPEC 2.2, event-time strategy): the event-time
	// column indexes of the probe and build streams (-1 for a bounded build side)
	// and the build stream's compiled watermark expression. A left row with event
	// time t matches when a build row with an equal key and event time <= t was
	// not late; the row is held until the build watermark is greater than t.
	ProbeTime      int
	BuildTime      int
	BuildWatermark *Expr
	// BuildName is the name the query reads Build by: its alias, or the
	// relation's name without one (a derived build side's late outputs
	// that need a suffix take it, as Branch.From).
	BuildName string
}

// EventTime reports whether the join uses the event-time strategy.
func (j *Join) EventTime() bool { return j.BuildTime >= 0 }

// Describe renders the join for EXPLAIN as lines (SPEC 2.2: mode, build and
// probe sides, strategy, and the state that grows).
func (j *Join) Describe(probe string) []string {
	mode := "Semi"
	if j.Mode == Anti {
		mode = "Anti"
		if j.NullAware {
			mode = "Anti (NOT IN, null-aware)"
		}
	}
	var keys []string
	for i := range j.ProbeKeys {
		op := "="
		if i < len(j.NullSafe) && j.NullSafe[i] {
			op = "IS NOT DISTINCT FROM"
		}
		keys = append(keys, fmt.Sprintf("%s %s %s", j.ProbeKeys[i].Text, op, j.BuildKeys[i].Text))
	}
	strategy := "bounded: read whole first"
	state := "distinct build keys"
	if j.EventTime() {
		strategy = "unbounded: by event time, a probe row waits until the build watermark passes it"
		state = "distinct build keys with their earliest event time; held probe rows, released as the build watermark passes"
	}
	b := j.Build
	src := fmt.Sprintf("  build source: %s (connector=%s", b.Name, b.Connector.Name)
	if f := b.File(); f != nil && f.Path != "" {
		src += ", path=" + f.Path
	}
	bc := b.Shared()
	src += "), errors=" + bc.Errors
	if bc.Errors == "side" {
		src += " -> side output '" + bc.ErrorsSide + "'"
	}
	lines := []string{
		fmt.Sprintf("%s hash join: probe %s, build %s (%s)", mode, probe, j.Build.Name, strategy),
		src,
		"  keys: " + strings.Join(keys, " AND "),
	}
	if j.BuildFilter != nil {
		lines = append(lines, "  build filter: "+j.BuildFilter.Text)
	}
	if j.ProbeFilter != nil {
		lines = append(lines, "  probe condition: "+j.ProbeFilter.Text)
	}
	lines = append(lines, "  state: "+state+" (counted against 'state.max-bytes')")
	if j.EventTime() {
		lines = append(lines, fmt.Sprintf("  warning: held probe rows grow while the watermark of %s does not advance; the job stops when its state passes 'state.max-bytes'", j.Build.Name))
	}
	return lines
}

// Value is one typed constant: I for BIGINT and TIMESTAMP (epoch ms), F for
// DOUBLE, B for BOOLEAN, S for VARCHAR (owned by the Value); in an Insert's row,
// S holds an ARRAY, MAP or ROW column's value as JSON text (JSON_STRING's).
type Value struct {
	Null bool
	I    int64
	F    float64
	B    bool
	S    []byte
}

// Insert is a planned INSERT INTO s VALUES (SPEC 3): the values stream and its new
// rows, each with one value per column of the stream, in column order.
type Insert struct {
	Stream *catalog.Stream
	Rows   [][]Value
}

// NoFrom is the connector of the stream a SELECT without FROM reads (SPEC 2:
// `SELECT 1 + 1 AS two;` gives one row): one row of no columns, then the end.
// The executor opens it as such a source.
var NoFrom = &catalog.ConnectorSpec{Name: "none", Doc: "one row of no columns (a SELECT without FROM)",
	Bounded: func(map[string]string) bool { return true }}
