package plan

import (
	"fmt"
	"slices"
	"strings"

	"streamql/catalog"
)

// RoutedKind is the Kind of the relation through which a join reads a
// stream (or view) with pending side branches (SPEC 2.1, 2.7; the
// planner's routedRelation): its one part is the branches' job, main
// SELECT * of the stream, whose rows the executor routes in the join
// input's port stage (executor/joinroute.go).
const RoutedKind = "routed"

// RoutedPart returns the branches' job of d, a RoutedKind relation, when
// a join input's port stage routes its stream's rows through them (the
// executor's joinroute.go: on the join's goroutine, the join taking the
// rows no branch took): branches that filter, project, rank or
// deduplicate into side outputs. It returns nil for any other relation,
// and for branches with a semi or anti join (their build sides are read
// whole first), an aggregate, an output into a sink stream or a
// dead-letter stream, or over a stream that hands back what the job did
// not use (stdin: HandsBack): the relation's part then runs as a derived
// relation's, on a goroutine of its own (executor/derived.go).
func (d *Derived) RoutedPart() *Job {
	if d == nil || d.Kind != RoutedKind || len(d.Parts) != 1 {
		return nil
	}
	part := d.Parts[0]
	if part.Main == nil || part.Both != nil || part.Unnest != nil || len(part.DeadLetters) > 0 || part.HasAggregates() || part.HasEventTimeJoin() || d.HandsBack() {
		return nil
	}
	for _, b := range part.AllBranches() {
		if b.Join != nil {
			return nil
		}
	}
	for _, o := range part.Outputs {
		if o.Sink != nil {
			return nil
		}
	}
	return part
}

// HandsBack reports whether a part of d reads, not whole, a stream that
// hands back (catalog.CapHandBack): as its stream, a join's input or an
// UNNEST's, directly or through a derived relation of its own, as
// Job.Opens counts the opens (a build side or a lookup join's right side
// is read whole: nothing of it goes back).
func (d *Derived) HandsBack() bool {
	opens := map[*catalog.Stream]Opens{}
	for _, job := range d.Parts {
		job.Opens(opens, false)
	}
	for st, o := range opens {
		if o.N > o.Whole && st.Caps().Has(catalog.CapHandBack) {
			return true
		}
	}
	return false
}

// Derived is a relation whose rows come from other planned jobs (SPEC 2.6):
// a subquery in FROM, a WITH name, a view, or the UNION ALL of several
// queries. Its catalog.Stream (Stream.Derived holds it; its Connector is
// DerivedConnector) carries the columns, the event-time column and the
// watermark, so the query that reads it plans as over a declared stream.
//
// Each of Parts is a job whose main output is the relation's rows (one part
// for a plain query, one per SELECT of a UNION ALL, in order). Its other
// outputs (late rows of its windows and joins, SPEC 2.4 and 2.7) become
// outputs of the job that reads it (Job.DerivedOutputs).
type Derived struct {
	// Kind is what the query wrote: "subquery", "WITH", "view" or "UNION
	// ALL"; or RoutedKind for the rows a joined stream's side branches
	// leave (the planner's rule_route_join.go).
	Kind  string
	Name  string
	Parts []*Job
	// Union is "UNION ALL" or "UNION" when the relation is the rows of a
	// union the query wrote without a name, read through the parser's
	// placeholder (parser.Relation.Union): a message names it so, not as
	// a subquery without an alias (planner's relText).
	Union string
	// Of is, for one reader's copy of a view's relation (CopyRelation), the
	// catalog's relation it copies (catalog.View.Stream), which the
	// session's pending side branches over the view are kept by (Origin);
	// nil for a relation planned for its reader.
	Of *catalog.Stream
	// TimeCol is the relation's event-time column, -1 without one: a
	// stream's WATERMARK FOR column projected as it is, or window_time,
	// window_end or window_start of a window aggregate (rows of a window come
	// out when the watermark passes its end, so window_end never decreases).
	// Watermark is the watermark over the relation's batch: the stream's
	// own WATERMARK expression, over the projected column, or the time column
	// itself for a window aggregate's rows (they come in window_end order).
	TimeCol   int
	Watermark *Expr
	// Stamps is set when each part projects (and filters) a stream row by
	// row, keeping its event time (for a Kafka stream, whose rows carry
	// their partition's watermark, SPEC 2.5, see StreamWatermarks): each of a
	// part's main rows
	// carries, in a column after the relation's columns (the reading
	// batch's watermark column), the stream's watermark before it, which
	// rows the part's WHERE dropped moved too; for a UNION ALL, whose rows
	// come in event-time order, the least of the live parts' watermarks
	// before their next rows (an ended part's is +inf). The reader's
	// watermark before a row is at least that (SPEC 2.6: a filter keeps its
	// input's watermark, as Flink's does; a union the minimum of its
	// inputs'), then moves by Watermark after it. NULL where a part gives no
	// stamp (its stream's watermark unset, or a row an operator made).
	Stamps bool
	// StreamWatermarks is set, with Stamps, when the relation's one part
	// gives rows whose watermark the reader cannot compute again from
	// them: a Kafka stream's (its rows' stamps are their partitions'
	// watermarks, SPEC 2.5: a row is late by its partition's watermark, and
	// CURRENT_WATERMARK is the partition's; windows fire by the partitions'
	// minimum), a file stream's with a WATERMARK (which `streamql test
	// --shuffle` may split into partitions alike, SplitFiles), a window TVF's (a row's windowed rows all carry the
	// watermark before it, SPEC 2.4), a Top-N's or deduplication's (SPEC
	// 2.9: each change the watermark before the input row it was made at),
	// or such a relation's. Two more columns after the stamps then carry the
	// input stream's watermark before and after that input row, which rows
	// the part's WHERE dropped moved too (SPEC 2.6). The reader keeps each
	// row's stamp as its CURRENT_WATERMARK and moves its own watermark to
	// the carried ones (not by Watermark), so a window over the relation
	// has the late rows and firings of the same window over the stream
	// with the relation's WHERE. A UNION ALL with such a part has neither
	// (its reader computes its watermark over the union's rows).
	StreamWatermarks bool
	// SplitFiles is set with StreamWatermarks when only files with a
	// WATERMARK set it (their rows carry their partitions' watermarks when
	// `streamql test --shuffle` splits them, SPEC 2.5, as a Kafka stream's
	// do): a UNION ALL over such a relation keeps the least of its parts'
	// stamps (Stamps) without the stream's watermarks, as over the files.
	SplitFiles bool
	// WindowStart and WindowEnd are the columns holding window_start and
	// window_end of the window aggregate whose rows the relation gives (-1
	// when none), and Window that window: a GROUP BY of both over the
	// relation is a cascaded window aggregate, and a join of two such
	// relations on both is a window join (SPEC 2.7).
	WindowStart, WindowEnd int
	Window                 *Window
	// KeepsKeys is set when the relation's changes never remove a key:
	// deduplication keeping the last row (SPEC 2.9) over an append-only
	// input replaces a key's row with a -D of the old row and a +I of the
	// new one, so each -D is half of an update (Flink's upsert changelog
	// has no delete there); a temporal join versioning it ignores its -D.
	KeepsKeys bool
	// VersionTime is set when the relation keeps its event time only for a
	// temporal join that versions it (SPEC 2.7): a deduplication keeping
	// the last row by event time (Flink keeps its time attribute), or a
	// projection, filter or UNION ALL of one. Its rows come as changes, or
	// as the final result at a bounded input's end, in key order, not in
	// the order of the time column, so any other join reads it without
	// event time (JoinInput.NoTime): no row of it is late.
	VersionTime bool
	// ProcTime holds the columns that are processing time (SPEC 2.10,
	// Flink's proctime attribute): a PROCTIME() call projected as it is, or
	// such a column of the relation read, projected as it is. A window TVF
	// whose DESCRIPTOR names one of them uses processing time (ProcTimeView).
	ProcTime []int
}

// IsProcTime reports whether column c of the relation is processing time
// (see ProcTime).
func (d *Derived) IsProcTime(c int) bool {
	for _, k := range d.ProcTime {
		if k == c {
			return true
		}
	}
	return false
}

// IsProcTime reports whether column c of st is processing time (SPEC 2.10,
// Flink's proctime attribute): a computed column `c AS PROCTIME()` of a
// declared stream, or a processing-time column of a derived relation
// (Derived.ProcTime).
func IsProcTime(st *catalog.Stream, c int) bool {
	if d := DerivedOf(st); d != nil {
		return d.IsProcTime(c)
	}
	if c < 0 || c >= len(st.Columns) || st.Columns[c].Computed == nil {
		return false
	}
	e, ok := st.Columns[c].Computed.Def.(*Expr)
	return ok && e.Op == OpFunc && strings.EqualFold(e.Fn, "PROCTIME")
}

// ProcTimeView returns st as seen by a window over its processing-time
// column c (IsProcTime; SPEC 2.10): a copy whose event time is c and whose
// watermark is c itself, so the watermark is the largest PROCTIME() read so
// far, a window fires once a row read after its end passes through (and
// every open window at the input's end), and a row is late only when the
// clock went back. Flink fires such windows on a processing-time timer
// instead, also with no row arriving. A derived relation's copy has its own
// Derived, without window bounds (its rows are not a window aggregate's).
func ProcTimeView(st *catalog.Stream, c int) *catalog.Stream {
	cp := *st
	col := st.Columns[c]
	wm := &Expr{Op: OpCol, Type: col.Type, Col: c, Text: col.Name + " (processing time: PROCTIME())"}
	if d := DerivedOf(st); d != nil {
		dd := *d
		dd.TimeCol, dd.Watermark = c, wm
		dd.WindowStart, dd.WindowEnd, dd.Window = -1, -1, nil
		dd.Stamps, dd.StreamWatermarks, dd.SplitFiles = false, false, false // (the watermark is the clock's, not the input's event time)
		cp.Derived = &dd
	}
	cp.EventTime = c
	cp.Watermark = &catalog.Watermark{Text: wm.Text, Def: wm}
	return &cp
}

// DerivedConnector is the connector of a derived relation (Derived): its
// rows come from its parts' jobs. It is bounded when every stream the parts
// read is.
var DerivedConnector = &catalog.ConnectorSpec{Name: "query", Doc: "the rows of a subquery, WITH name, view or UNION ALL (SPEC 2.6)",
	Bounded: func(o map[string]string) bool { return o["bounded"] == "true" }}

// DerivedOf returns the Derived of a relation st, nil for a declared stream.
func DerivedOf(st *catalog.Stream) *Derived {
	if st == nil {
		return nil
	}
	d, _ := st.Derived.(*Derived)
	return d
}

// DerivedReads returns the derived relations (SPEC 2.6) j reads, each
// once: its stream, its join's two inputs, its UNNEST's inner stream and
// its branches' semi or anti join build sides, as the executor opens them
// (each with j as their parts' reader).
func (j *Job) DerivedReads() []*Derived {
	reads := []*catalog.Stream{j.Stream}
	if j.Unnest != nil {
		reads = append(reads, j.Unnest.Inner)
	}
	if j.Both != nil {
		reads = append(reads, j.Both.Inputs[0].Stream, j.Both.Inputs[1].Stream)
	}
	for _, b := range j.AllBranches() {
		if b.Join != nil {
			reads = append(reads, b.Join.Build)
		}
	}
	var out []*Derived
	for _, st := range reads {
		if d := DerivedOf(st); d != nil && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// DeclaredStreams returns every declared stream j reads, each once, at any
// depth: the streams Streams names, its branches' joins' inputs (SPEC 2.7,
// also before ruleBothJoinJob sets Job.Both), its UNNEST's inner stream, and
// those of the parts of each derived relation (SPEC 2.6: a subquery, WITH
// name, view, UNION ALL or join) among them. Their malformed rows reach j's
// outputs, so a user side output of j may not take the name of any of their
// errors side outputs (SPEC 1, Bad input). It takes time linear in the jobs
// and streams reached.
func (j *Job) DeclaredStreams() []*catalog.Stream {
	var out []*catalog.Stream
	seen := map[*Job]bool{}
	var walk func(j *Job)
	walk = func(j *Job) {
		if j == nil || seen[j] {
			return
		}
		seen[j] = true
		reads := j.Streams()
		if j.Unnest != nil {
			reads = append(reads, j.Unnest.Inner)
		}
		for _, b := range j.AllBranches() {
			if b.Both != nil {
				reads = append(reads, b.Both.Inputs[0].Stream, b.Both.Inputs[1].Stream)
			}
		}
		for _, st := range reads {
			if d := DerivedOf(st); d != nil {
				for _, part := range d.Parts {
					walk(part)
				}
			} else if st != nil && !slices.Contains(out, st) {
				out = append(out, st)
			}
		}
	}
	walk(j)
	return out
}

// ErrorsSides returns the errors side output names of the declared streams
// j reads (DeclaredStreams), each with the first stream that has it: a user
// side output of such a name would mix its rows with the stream's malformed
// ones (SPEC 1). Callers look names up in it, once per job, so that
// checking every branch stays linear in the branches.
func (j *Job) ErrorsSides() map[string]*catalog.Stream {
	out := map[string]*catalog.Stream{}
	for _, st := range j.DeclaredStreams() {
		if es := st.Shared().ErrorsSide; es != "" && out[es] == nil {
			out[es] = st
		}
	}
	return out
}

// ErrorsStream returns the declared stream whose errors configuration
// ('errors', 'errors.side', the dead-letter stream: SPEC 1) the rows of st
// that its reader refuses go by (a window's time outside BIGINT, SPEC
// 2.4): st itself when it is declared; for a derived relation (SPEC 2.6),
// the stream its rows come from, read by its first part (a UNION ALL's
// first SELECT), the left input of a join or the stream an UNNEST reads,
// at any depth. A relation has no errors options of its own, so its
// reader's refusals would otherwise go to a side output with an empty name.
func ErrorsStream(st *catalog.Stream) *catalog.Stream {
	for {
		d := DerivedOf(st)
		if d == nil || len(d.Parts) == 0 {
			return st
		}
		st = d.Parts[0].ProbeStream()
	}
}

// ErrorsConfig returns the errors options (SPEC 1: 'errors',
// 'errors.side', the dead-letter stream) that the malformed and refused
// rows j reads go by: those of the stream they come from (ErrorsStream of
// its probe stream), also when j reads a relation or a join.
func (j *Job) ErrorsConfig() *catalog.SharedConfig {
	return ErrorsStream(j.ProbeStream()).Shared()
}

// ProbeStream returns the stream whose rows j reads as its probe: the
// left input of its join (SPEC 2.7), the stream its UNNEST reads (SPEC
// 2.10), or its stream.
func (j *Job) ProbeStream() *catalog.Stream {
	switch {
	case j.Both != nil:
		return j.Both.Inputs[0].Stream
	case j.Unnest != nil:
		return j.Unnest.Inner
	}
	return j.Stream
}

// Updating reports whether the relation's rows are changes (SPEC 2.8): a
// part's main output is updating (an outer join, an updating aggregate, a
// Top-N over an unbounded input), so a query over it is too (its filters
// and projections pass each row's kind through).
func (d *Derived) Updating() bool {
	for _, part := range d.Parts {
		if part.Main != nil && len(part.Outputs) > 0 && part.Outputs[0].Updating {
			return true
		}
	}
	return false
}

// InTimeOrder reports whether the relation is a window aggregate's rows (its
// one part's main query a windowed GROUP BY, whatever follows it: HAVING, a
// window Top-N) with its time column among them: they come out as the
// watermark passes their window's end, in window_end order, and Watermark
// is the time column itself, so no row is below the relation's watermark
// (none is late for a join reading it, SPEC 2.7).
func (d *Derived) InTimeOrder() bool {
	if d.Window == nil || d.TimeCol < 0 || len(d.Parts) != 1 || d.Watermark == nil {
		return false
	}
	m := d.Parts[0].Main
	w := d.Watermark
	return m != nil && m.Agg != nil && m.Agg.Grouped && m.Agg.Window != nil && w.Op == OpCol && w.Col == d.TimeCol
}

// Windowed reports whether the relation gives a window aggregate's rows
// with both window bounds among its columns.
func (d *Derived) Windowed() bool { return d.WindowStart >= 0 && d.WindowEnd >= 0 && d.Window != nil }

// SameWindows reports whether a and b are window TVFs of the same kind,
// size, slide and offset (SPEC 2.7's window join).
func SameWindows(a, b *Window) bool {
	return a != nil && b != nil && a.Func == b.Func && a.Size == b.Size && a.Slide == b.Slide && a.Offset == b.Offset && a.Gap == b.Gap
}

// derivedTree adds the trees of d's parts, read by job j, to t (each part's
// nodes, its main output's sink left out, none counted by EXPLAIN ANALYZE)
// and returns the inputs that give the relation's rows, one per part. A
// Sink of a part's other outputs shows the output of j its rows go to
// (Job.DerivedOutputs: a late output whose name j had taken with other
// columns is renamed late-<alias>), as the run names it.
//
// The parts of a relation over streams of a consumer group (Group) read
// them whole and commit nothing (the executor's derived.go): their nodes
// say so instead of what a job of its own would do (readWhole).
func (t *Tree) derivedTree(j *Job, d *Derived) []Input {
	var outs []Input
	group := d.Group()
	for _, part := range d.Parts {
		sub := part.Tree()
		outMap := j.DerivedOutputs[part]
		id := map[int]int{}
		drop := t.sharedReads(sub, id)
		lateOf := partLateNames(sub, outMap, j)
		var mainIn []Input
		for _, n := range sub.Nodes {
			if drop[n.ID] {
				continue
			}
			if n.Kind == NodeSink && n.Output == 0 && part.Main != nil {
				for _, in := range n.Inputs {
					mainIn = append(mainIn, Input{Node: id[in.Node], Port: in.Port})
				}
				continue
			}
			c := *n
			c.Inputs = nil
			for _, in := range n.Inputs {
				c.Inputs = append(c.Inputs, Input{Node: id[in.Node], Port: in.Port})
			}
			if name, ok := lateOf[n.ID]; ok {
				c.Details = renameLateLine(c.Details, name)
			}
			if c.part == nil { // (a node of a relation the part reads keeps its own part's)
				c.part, c.inPart = part, &Node{Line: n.Line, Branch: n.Branch, Output: n.Output, detailLines: n.detailLines}
			}
			c.Line, c.Branch, c.Output, c.detailLines, c.partOut = LineOther, -1, -1, nil, 0
			if n.Kind == NodeSink { // (the part's output k, or one of its own relations' mapped to k)
				if k := partOutput(n, outMap, j); k >= 0 {
					c.partOut = k + 1
					c.Text = j.sinkText(k)
				}
			}
			if group != "" {
				readWhole(&c, group)
			}
			t.add(&c)
			id[n.ID] = c.ID
		}
		for st, tee := range sub.tees { // (the first read of a fanned-out stream: later parts and readers read its Tee)
			if t.tees[st] == nil {
				if t.tees == nil {
					t.tees = map[*catalog.Stream]*Node{}
				}
				t.tees[st] = t.Nodes[id[tee.ID]-1]
			}
		}
		outs = append(outs, mainIn...)
	}
	return outs
}

// partOutput returns the index in j.Outputs of the output a Sink node n of
// a part's tree sub feeds (its own output, or one of its relations' mapped
// to it: Node.partOut), through outMap (Job.DerivedOutputs); -1 when none.
func partOutput(n *Node, outMap []int, j *Job) int {
	k := n.Output
	if n.partOut > 0 {
		k = n.partOut - 1
	}
	if k >= 0 && k < len(outMap) && outMap[k] >= 0 && outMap[k] < len(j.Outputs) {
		return outMap[k]
	}
	return -1
}

// partLateNames returns, for each node of a part's tree sub whose late port
// feeds a Sink, the name of the output of j the late rows go to, which the
// node's "late rows -> 'x'" line must show (a name j had taken with other
// columns is renamed late-<alias>: ruleDerivedJob), by node ID.
func partLateNames(sub *Tree, outMap []int, j *Job) map[int]string {
	names := map[int]string{}
	for _, n := range sub.Nodes {
		if n.Kind != NodeSink {
			continue
		}
		k := partOutput(n, outMap, j)
		if k < 0 {
			continue
		}
		for _, in := range n.Inputs {
			if in.Port == "late" {
				names[in.Node] = j.Outputs[k].Name
			}
		}
	}
	return names
}

// renameLateLine returns details with the late-rows line's output name
// ("late rows -> 'x'", aggLines and the Top-N's) replaced by name; details
// is copied, as a part's tree is built once and shared.
func renameLateLine(details []string, name string) []string {
	const prefix = "late rows -> '"
	out := append([]string(nil), details...)
	for i, d := range out {
		if !strings.HasPrefix(d, prefix) {
			continue
		}
		rest := d[len(prefix):]
		if end := strings.IndexByte(rest, '\''); end >= 0 {
			out[i] = prefix + name + rest[end:]
		}
	}
	return out
}

// sharedReads maps each Tee node of sub (a part's tree, derivedTree) whose
// stream t already has a Tee for (Tree.tees: another part, or a reader
// added before, read it) to that node in id, and returns the nodes of sub
// to leave out: those Tees, the Scan and Decode they read, and the nodes
// reading only those (the Decode's errors Sink). So a stream the job reads
// once and fans out (Job.Tees) is one Scan in EXPLAIN whatever the number
// of parts, views and WITH names that read it (issue 22 item 1, the DAG);
// a stream each read opens on its own keeps a Scan per read.
func (t *Tree) sharedReads(sub *Tree, id map[int]int) map[int]bool {
	drop := map[int]bool{}
	up := map[int]bool{} // the nodes before a dropped Tee
	var mark func(n *Node)
	mark = func(n *Node) {
		for _, in := range n.Inputs {
			if !up[in.Node] {
				up[in.Node], drop[in.Node] = true, true
				mark(sub.Nodes[in.Node-1])
			}
		}
	}
	for st, tee := range sub.tees {
		if have := t.tees[st]; have != nil {
			id[tee.ID], drop[tee.ID] = have.ID, true
			mark(tee)
		}
	}
	if len(drop) == 0 {
		return drop
	}
	for _, n := range sub.Nodes {
		if drop[n.ID] || len(n.Inputs) == 0 {
			continue
		}
		only := true
		for _, in := range n.Inputs {
			only = only && up[in.Node]
		}
		if only {
			up[n.ID], drop[n.ID] = true, true
		}
	}
	return drop
}

// derivedText is the Scan line of a derived relation.
func derivedText(st *catalog.Stream, d *Derived) string {
	b := "unbounded"
	if st.Bounded() {
		b = "bounded"
	}
	return fmt.Sprintf("%s (%s %s, %s)", st.Name, d.Kind, SchemaText(st.Columns), b)
}

// readWhole makes node n of a part of a relation over streams of consumer
// group say that the part reads them whole (derivedTree): a strategy
// "replayed" is not, and the scale-out lines of a job of its own (the
// processes sharing the partitions, what survives a crash) give way to
// one that says it.
func readWhole(n *Node, group string) {
	n.Strategy = strings.TrimSuffix(n.Strategy, ", replayed")
	var ds []string
	scale := false
	for _, l := range n.Details {
		switch {
		case strings.HasPrefix(l, "Scale-out:"):
			scale = true
			continue
		case scale && strings.HasPrefix(l, "  "):
			continue
		}
		scale = false
		ds = append(ds, l)
	}
	if len(ds) < len(n.Details) {
		ds = append(ds, "Scale-out: a part of a relation over consumer group '"+group+"': its streams are read whole, every partition, committing no offsets")
	}
	n.Details = ds
}
