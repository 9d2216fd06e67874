package plan

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"streamql/catalog"
)

// NodeKind is the kind of one operator of a plan tree (issue 22 item 1;
// DESIGN, "The engine's third shape").
type NodeKind string

// The operator kinds a job's tree holds today. Join, Window and Aggregate
// nodes take a second input (a build side) or give a second port (late
// rows) as the operators do.
const (
	NodeScan       NodeKind = "Scan"            // a stream's source: connector, path, bounded or not
	NodeDecode     NodeKind = "Decode"          // the format's decoder; port "errors" gives malformed rows
	NodeUnnest     NodeKind = "Unnest"          // CROSS JOIN UNNEST: each row repeated per element (SPEC 2.10)
	NodeAssign     NodeKind = "AssignWatermark" // the WATERMARK FOR assigner (SPEC 2.3)
	NodeRoute      NodeKind = "Route"           // first-match routing, one port per branch (SPEC 2.1)
	NodeFilter     NodeKind = "Filter"          // a branch's WHERE, evaluated by the router
	NodeJoin       NodeKind = "Join"            // semi or anti hash join (SPEC 2.2): input 0 the probe, input 1 the build side
	NodeWindow     NodeKind = "Window"          // a window TVF without aggregation (SPEC 2.4)
	NodeAggregate  NodeKind = "Aggregate"       // a (window) aggregate (SPEC 2.4); port "late" gives late rows
	NodeLimit      NodeKind = "Limit"           // the main query's LIMIT
	NodeProject    NodeKind = "Project"         // a branch's projection
	NodeTopN       NodeKind = "Rank"            // Top-N, deduplication keeping the last row (SPEC 2.9): updating
	NodeDedup      NodeKind = "Deduplicate"     // deduplication keeping the first row by event time (SPEC 2.9)
	NodeWindowTopN NodeKind = "WindowRank"      // window Top-N (SPEC 2.9), at firing
	NodeOver       NodeKind = "OverAggregate"   // OVER aggregation (SPEC 2.9)
	NodeSort       NodeKind = "Sort"            // ORDER BY at the end of a query (SPEC 2.9)
	NodeTee        NodeKind = "Tee"             // one read of a read-once stream fanned out to its readers (Job.Tees)
	NodeSink       NodeKind = "Sink"            // an output: stdout, a side output, a sink stream, errors
)

// Input is one input of a node: the node it reads (its ID) and that node's
// port ("" for its only output; "errors", "late", or a branch's port of a
// Route).
type Input struct {
	Node int    `json:"node"`
	Port string `json:"port,omitempty"`
}

// Node is one operator of a plan tree, as data: its kind, what EXPLAIN says of
// it (Text, Details), its inputs, its time column (the event-time column its
// rows carry a watermark for, "" when none: SPEC 2.6), whether its output is
// append-only or updating (SPEC 2.8: a regular outer join, an unbounded
// GROUP BY and every operator after one are updating) with its upsert key, the state it keeps ("" when none) and its strategy ("" when
// it has no choice). Line, Branch and Output say what EXPLAIN ANALYZE counts
// on its line (LineKind; the branch index in AllBranches' order and the
// index into Job.Outputs, -1 when none).
type Node struct {
	ID       int      `json:"id"`
	Kind     NodeKind `json:"kind"`
	Text     string   `json:"text"`
	Inputs   []Input  `json:"inputs"`
	Time     string   `json:"time,omitempty"`
	Updating bool     `json:"updating"`
	// UpsertKey names the columns that identify a row of an updating
	// node's materialized result (SPEC 2.8), nil when it has none.
	UpsertKey []string `json:"upsertKey,omitempty"`
	State     string   `json:"state,omitempty"`
	Strategy  string   `json:"strategy,omitempty"`
	Details   []string `json:"details,omitempty"`

	Line   LineKind `json:"-"`
	Branch int      `json:"-"`
	Output int      `json:"-"`
	// detailLines are the kinds of Details' lines (LineDetail when unset).
	detailLines []LineKind
	// partOut is, for a Sink node of a derived relation's part (whose Output
	// is -1: derivedTree), 1 + the index of the output of the job whose
	// tree holds it that its rows go to; 0 otherwise.
	partOut int
	// part is, for a node of a derived relation's part (SPEC 2.6), that
	// part's job, and inPart the node's Line, Branch, Output and detail
	// lines in the part's own tree, what EXPLAIN ANALYZE counts on its line
	// from the part's run (Line.Part); nil for the job's own nodes, whose
	// Line, Branch and Output say it
	part   *Job
	inPart *Node
}

// Tree is a job's plan as a DAG of operators: Nodes in creation order, node
// i+1 at index i (IDs start at 1), every input before its readers. A node
// with no input is a root (a source); a node may feed several readers (the
// router's ports, one late output read by several aggregates).
type Tree struct {
	Nodes []*Node `json:"nodes"`
	// tees are the Tee nodes of the job's fanned-out streams (Job.Tees)
	// added so far: a later read of the stream reads the same node
	tees map[*catalog.Stream]*Node
}

// Tree returns the job's plan as a tree of operators (EXPLAIN, SPEC 3 and 4
// "Finding out why"): each stream's Scan and Decode, the watermark assigner,
// the router and, per branch in routing order, its filter, join, window or
// aggregate, limit, projection and sink, with the errors and late ports
// feeding their sinks.
func (j *Job) Tree() *Tree {
	t := &Tree{}
	st := j.Stream
	var last *Node
	var timeCol string
	if j.Both != nil {
		last = t.bothJoin(j)
		if st.Watermark != nil { // (a window over the join, planned as one job: JoinWindowReplayed)
			timeCol = st.Columns[st.EventTime].Name
			last = t.add(&Node{Kind: NodeAssign, Text: fmt.Sprintf("%s AS %s", timeCol, st.Watermark.Text), Inputs: []Input{{Node: last.ID}}, Time: timeCol, Line: LineWatermark, Branch: -1, Output: -1})
		}
	} else {
		last, timeCol = t.input(j, st, LineSource, -1, true) // (its Scan has the strategy)
		if last.Kind == NodeAssign && len(j.ReaderWindows) > 0 {
			last.Details = append(last.Details, readerWindowsText(j.ReaderWindows))
		}
	}
	if note := j.volatileNote(); note != "" {
		// (the note covers the derived relations' parts, whose first Scan
		// may be Nodes[0] with its own note: this one replaces it)
		d := t.Nodes[0].Details
		d = slices.DeleteFunc(d, func(s string) bool { return strings.HasPrefix(s, "not deterministic: ") })
		t.Nodes[0].Details = append(d, note)
	}
	then := ", then main"
	if j.Main == nil {
		then = ""
	}
	how := "first match of"
	if j.Fanout {
		how = "every row to each of" // (each branch's aggregate routes its changes: Job.Fanout)
	}
	route := t.add(&Node{Kind: NodeRoute, Text: fmt.Sprintf("%s %d side branch(es)%s", how, len(j.Branches), then), Inputs: []Input{{Node: last.ID}}, Time: timeCol, Line: LineProcess, Branch: -1, Output: -1, Updating: j.Both != nil && j.Both.Updating()})
	if j.Main == nil {
		route.Details = append(route.Details, "(no main query: rows no branch takes are discarded)")
	}
	sinks := map[int]*Node{} // by output index
	for k, b := range j.AllBranches() {
		t.branch(j, b, k, route, timeCol, sinks)
	}
	t.passUpdates()
	t.passKeys()
	return t
}

// passKeys gives each updating node that passes its input's rows on as
// they are (Decode, AssignWatermark, Route, Filter) its input's upsert key
// when it has none of its own: Flink's rule that a filter keeps its
// input's upsert keys (FlinkRelMdUpsertKeys).
func (t *Tree) passKeys() {
	for _, n := range t.Nodes {
		switch n.Kind {
		case NodeDecode, NodeAssign, NodeRoute, NodeFilter:
		default:
			continue
		}
		if !n.Updating || n.UpsertKey != nil || len(n.Inputs) == 0 {
			continue
		}
		n.UpsertKey = t.Nodes[n.Inputs[0].Node-1].UpsertKey
	}
}

// passUpdates marks updating every node that reads an updating node's rows
// (SPEC 2.8: filters, projections, routes and sinks pass the row kinds
// through); the errors and late ports carry rows as they came, append-only.
func (t *Tree) passUpdates() {
	for _, n := range t.Nodes {
		for _, in := range n.Inputs {
			if in.Port == "errors" || strings.HasPrefix(in.Port, "late") || in.Port == "build" {
				continue
			}
			if t.Nodes[in.Node-1].Updating {
				n.Updating = true
			}
		}
	}
}

// input adds the Scan, Decode and AssignWatermark nodes of stream st and
// returns the last of them and its time column; the Scan's line is line
// (LineSource, LineBuild of branch k, or LineJoinInput of the join's input k).
// A derived relation's Scan (SPEC 2.6) reads its parts' operator trees,
// whichever of these it is. timed is false for a join's build side read
// whole first (a bounded one, SPEC 2.2): no watermark is kept for its rows,
// so it has no time column and no assigner.
func (t *Tree) input(j *Job, st *catalog.Stream, line LineKind, k int, timed bool) (*Node, string) {
	timeCol := ""
	if st.Watermark == nil {
		timed = false
	}
	if timed {
		timeCol = st.Columns[st.EventTime].Name
	}
	if tee := t.tees[st]; tee != nil && j.TeeOf(st) != nil { // (another reader of the one read: its Scan, Decode and Tee are there)
		return t.assign(st, tee, timed, timeCol, line, k), timeCol
	}
	if d := DerivedOf(st); line == LineJoinInput && d.RoutedPart() != nil {
		return t.routedInput(j, d), timeCol
	}
	var scan *Node
	if d := DerivedOf(st); d != nil { // SPEC 2.6: the jobs that give its rows, then the relation
		ins := t.derivedTree(j, d)
		scan = t.add(&Node{Kind: NodeScan, Text: derivedText(st, d), Inputs: ins, Time: timeCol, Line: line, Branch: k, Output: -1})
	} else {
		scan = t.add(&Node{Kind: NodeScan, Text: scanText(st), Time: timeCol, Line: line, Branch: k, Output: -1})
	}
	if st == j.Stream && line != LineBuild {
		scan.Strategy = j.strategyText()
		var sb strings.Builder
		j.describeScaleOut(&sb)
		for _, l := range strings.Split(strings.TrimRight(sb.String(), "\n"), "\n") {
			if l != "" {
				scan.Details = append(scan.Details, strings.TrimPrefix(l, "  "))
			}
		}
	}
	last := scan
	if why := st.Updating(); why != "" { // SPEC 2.8: a source of changes
		scan.Updating = true
		scan.Details = append(scan.Details, updatingText(st, why))
		scan.UpsertKey = st.PrimaryKey // (Flink: a source's primary key is its upsert key)
	} else if d := DerivedOf(st); d != nil && d.Updating() {
		scan.UpsertKey = st.PrimaryKey // (the key of its query's result, planner/rule_derived.go's upsertKeyOf)
	}
	if u := j.Unnest; u != nil && st == j.Stream && line != LineBuild {
		// the decoder reads the inner stream; the unnesting follows it
		if st.Shared().Format != "" {
			last = t.decode(j, u.Inner, scan, timeCol)
		}
		added := st.Columns[len(u.Inner.Columns):]
		last = t.add(&Node{Kind: NodeUnnest, Text: u.Text + " " + SchemaText(added), Inputs: []Input{{Node: last.ID}}, Time: timeCol, Line: LineOther, Branch: -1, Output: -1,
			Details: []string{"each row once per element of " + u.Expr.Text + unnestEmpty(u.Left) + ", the repeated row's values shared"}})
	} else if st.Shared().Format != "" || st.Connector.Upserts {
		last = t.decode(j, st, scan, timeCol)
		switch line {
		case LineJoinInput:
			last.Line, last.Branch = LineJoinDecode, k
		case LineBuild:
			last.Line, last.Branch = LineDetail, k
		}
	}
	if tee := j.TeeOf(st); tee != nil { // (issue 22 item 1: one read, its rows to each reader)
		last = t.add(&Node{Kind: NodeTee, Text: tee.teeText(), Inputs: []Input{{Node: last.ID}}, Time: timeCol, Updating: last.Updating, UpsertKey: last.UpsertKey, Details: teeDetails(), Line: LineOther, Branch: -1, Output: -1})
		if t.tees == nil {
			t.tees = map[*catalog.Stream]*Node{}
		}
		t.tees[st] = last
	}
	return t.assign(st, last, timed, timeCol, line, k), timeCol
}

// RoutedStrategy is the strategy EXPLAIN prints on the Scan of a stream
// whose side branches a join input's port stage routes
// (Derived.RoutedPart).
const RoutedStrategy = "join input port: routed on the join's goroutine, the join takes the rows no side branch took"

// routedInput adds the operators of d's part, the side branches a join
// input routes in its port stage (Derived.RoutedPart), and returns the
// node of its main port, which the join reads: no Scan of the relation
// and no watermark assigner of its own, since the rows reach the join
// from the route as they are, with their watermark.
func (t *Tree) routedInput(j *Job, d *Derived) *Node {
	from := len(t.Nodes)
	ins := t.derivedTree(j, d)
	for _, n := range t.Nodes[from:] {
		if n.Kind == NodeScan && n.part == d.Parts[0] && n.Strategy != "" {
			n.Strategy = RoutedStrategy
		}
	}
	return t.Nodes[ins[0].Node-1]
}

// readerWindowsText is the detail of a relation's part's AssignWatermark
// that says which windows of its readers it refuses rows by
// (Job.ReaderWindows, SPEC 1 and 2.4).
func readerWindowsText(ws []*Window) string {
	var ds []string
	for _, w := range ws {
		ds = append(ds, w.Describe())
	}
	return "refuses, as malformed, a row whose time has a window of its readers' that does not fit in a BIGINT, before it moves the watermark they carry: " + strings.Join(ds, "; ")
}

// assign adds, when timed, the AssignWatermark node of st reading last for
// a read on line (of branch or join input k) and returns it; last when not
// timed.
func (t *Tree) assign(st *catalog.Stream, last *Node, timed bool, timeCol string, line LineKind, k int) *Node {
	if !timed {
		return last
	}
	last = t.add(&Node{Kind: NodeAssign, Text: fmt.Sprintf("%s AS %s", timeCol, st.Watermark.Text) + maxFutureText(st), Inputs: []Input{{Node: last.ID}}, Time: timeCol, Line: LineWatermark, Branch: -1, Output: -1})
	switch line {
	case LineJoinInput:
		last.Line, last.Branch = LineJoinWatermark, k
	case LineBuild:
		last.Line = LineOther
	}
	return last
}

// bothJoin adds the two inputs of j.Both and the join reading them (SPEC
// 2.7), with its late ports feeding the late outputs' sinks, and returns the
// join's node.
func (t *Tree) bothJoin(j *Job) *Node {
	b := j.Both
	var ins [2]*Node
	for s := range b.Inputs {
		ins[s], _ = t.input(j, b.Inputs[s].Stream, LineJoinInput, s, true)
	}
	text, details := b.describe()
	var sb strings.Builder
	b.describeScaleOut(&sb, j.stateAfterJoin(), j.JoinAggReplayed(), j.JoinWindowReplayed(), j.JoinRankReplayed(), j.sideAggs(), len(j.Branches) > 0) // (SPEC 2.5: co-partitioned Kafka inputs)
	for _, l := range strings.Split(strings.TrimRight(sb.String(), "\n"), "\n") {
		if l != "" {
			details = append(details, strings.TrimPrefix(l, "  "))
		}
	}
	n := t.add(&Node{Kind: NodeJoin, Text: text, Inputs: []Input{{Node: ins[0].ID, Port: "left"}, {Node: ins[1].ID, Port: "right"}}, Details: details, Updating: b.Updating(), Line: LineBothJoin, Branch: -1, Output: -1})
	if key := b.UpsertKey(); n.Updating && key != nil { // (SPEC 2.8, Flink's rule for a join)
		cols := JoinedStream(b).Columns
		for _, c := range key {
			n.UpsertKey = append(n.UpsertKey, cols[c].Name)
		}
	}
	n.Strategy = j.strategyText()
	n.Time = b.OutputTimeName() // (SPEC 2.6, 2.7)
	for s, k := range b.LateOutput {
		if k >= 0 && k < len(j.Outputs) && b.NoLateRows(s) == "" { // (no Sink for an input none of whose rows can be late)
			t.add(&Node{Kind: NodeSink, Text: j.sinkText(k), Inputs: []Input{{Node: n.ID, Port: "late " + b.Inputs[s].Name}}, Line: LineSink, Branch: -1, Output: k})
		}
	}
	return n
}

// updatingText says why st is a source of changes and its upsert key (its
// PRIMARY KEY), as EXPLAIN prints it under its Scan.
func updatingText(st *catalog.Stream, why string) string {
	s := "changelog: " + why + " (rows are +I, -U, +U, -D)"
	if len(st.PrimaryKey) > 0 {
		s += ", upsert key (" + strings.Join(st.PrimaryKey, ", ") + ")"
	}
	return s
}

// scanText is a Scan node's text: the stream, its connector, path and
// boundedness.
func scanText(st *catalog.Stream) string {
	s := fmt.Sprintf("%s (connector=%s", st.Name, st.Connector.Name)
	if f := st.File(); f != nil && f.Path != "" {
		s += ", path=" + f.Path
	}
	if st.Bounded() {
		return s + ", bounded)"
	}
	return s + ", unbounded)"
}

// decode adds the Decode node of st after in, with its errors port feeding
// the errors side output or the stream's dead-letter sink (SPEC 1, 2.5).
func (t *Tree) decode(j *Job, st *catalog.Stream, in *Node, timeCol string) *Node {
	c := st.Shared()
	f := c.Format
	if k := st.Kafka(); st.Connector.Upserts && k != nil { // SPEC 2.8: upsert-kafka's key and value
		f = "key " + k.KeyFormat + ", value " + k.ValueFormat
	}
	d := t.add(&Node{Kind: NodeDecode, Text: fmt.Sprintf("%s %s, errors=%s", f, SchemaText(st.Columns), c.Errors), Inputs: []Input{{Node: in.ID}}, Time: timeCol, Line: LineDecode, Branch: -1, Output: -1})
	dest := ""
	if dlq := j.DeadLetters[st]; dlq != nil {
		dest = SinkText(dlq)
	} else if c.Errors == "side" {
		dest = "side output '" + c.ErrorsSide + "' (shown once a row reaches it)"
	}
	if dest != "" {
		t.add(&Node{Kind: NodeSink, Text: "errors -> " + dest, Inputs: []Input{{Node: d.ID, Port: "errors"}}, Line: LineOther, Branch: -1, Output: -1})
	}
	return d
}

// branch adds branch k's operators after route's port for it.
func (t *Tree) branch(j *Job, b *Branch, k int, route *Node, timeCol string, sinks map[int]*Node) {
	port := "main"
	if b != j.Main {
		port = fmt.Sprintf("%d '%s'", k+1, b.Side)
		if b.Sink != nil {
			port = fmt.Sprintf("%d into stream %s", k+1, b.Sink.Name)
		}
	}
	in := Input{Node: route.ID, Port: port}
	upd := j.Both != nil && j.Both.Updating() // (SPEC 2.8: kinds pass through filters and projections)
	var key []string
	add := func(n *Node) *Node {
		n.Inputs = append([]Input{in}, n.Inputs...)
		n.Branch, n.Output = k, -1
		n.Updating = n.Updating || upd
		if n.Updating && n.UpsertKey == nil {
			n.UpsertKey = key
		}
		n = t.add(n)
		in = Input{Node: n.ID}
		return n
	}
	if b.Where != nil {
		add(&Node{Kind: NodeFilter, Text: b.Where.Text, Time: timeCol, Line: LineFilter})
	}
	if jn := b.Join; jn != nil {
		t.join(j, b, k, add, timeCol)
	}
	if a := b.Agg; a != nil {
		if a.Updating {
			upd = true
			for _, kx := range a.Keys {
				key = append(key, kx.Text)
			}
		}
		t.aggregate(j, b, add, sinks)
		timeCol = ""
		if a.Window != nil {
			timeCol = "window_time"
		}
	}
	if b == j.Main && b.Limit >= 0 {
		add(&Node{Kind: NodeLimit, Text: fmt.Sprint(b.Limit), Time: timeCol, Line: LineDetail})
	}
	p := add(&Node{Kind: NodeProject, Text: b.projectText(), Line: LineDetail})
	p.Time = projectedTime(b, timeCol)
	p.UpsertKey = nil // (the projected rows' own: Branch.ProjectKey)
	projected := b.Columns
	if b.Rank != nil {
		projected = b.Rank.InColumns
	}
	for _, c := range b.ProjectKey {
		p.UpsertKey = append(p.UpsertKey, projected[c].Name)
	}
	if r := b.Rank; r != nil { // SPEC 2.9 (rank.go)
		key = nil // (the rank's and what follows it: the output's, Flink's rule for a Rank, planner/rule_changelog.go)
		o := j.Outputs[b.Output]
		for _, c := range o.UpsertKey {
			key = append(key, o.Columns[c].Name)
		}
		state := r.State
		if r.StateTTL > 0 { // (op.TopN, and op.RetractTopN over an updating input: a partition untouched that long is forgotten)
			state += fmt.Sprintf(", dropped %s after its key's last change ('table.exec.state.ttl')", FormatTTL(r.StateTTL))
		}
		n := &Node{Kind: r.Kind.NodeKind(), Text: r.Text, Updating: r.Updating && !r.Bounded, State: state, Line: LineRank}
		if len(r.Thin) > 0 || r.Retract || r.StateTTL > 0 { // (a Top-N storing only its right-side columns says so: rule_join_swap.go; one over an updating input, every live row of it; one with a TTL, when it forgets: SPEC 4 "Finding out why")
			n.Details = []string{"state: " + state}
		}
		p = add(n)
		if r.LateOutput >= 0 {
			t.sink(j, r.LateOutput, Input{Node: p.ID, Port: "late"}, "", sinks)
		}
		// the query over the operator fused into the job (Rank.Where, Calc)
		if r.Where != nil {
			p = add(&Node{Kind: NodeFilter, Text: r.Where.Text, Updating: n.Updating, Line: LineDetail})
		}
		if r.Calc != nil {
			p = add(&Node{Kind: NodeProject, Text: calcText(r.Calc, b.Columns), Updating: n.Updating, Line: LineDetail})
		}
	}
	t.sink(j, b.Output, in, p.Time, sinks)
}

// join adds branch k's semi or anti join: input 0 the branch's rows, input 1
// the build side's own operators as any input's (Tree.input): a stream's
// Scan, Decode and, when the join decides by event time, AssignWatermark; a
// subquery's, WITH name's or view's operator tree (SPEC 2.2, 2.6).
func (t *Tree) join(j *Job, b *Branch, k int, add func(*Node) *Node, timeCol string) {
	jn := b.Join
	lines := jn.Describe(b.Stream.Name)
	last, _ := t.input(j, jn.Build, LineBuild, k, jn.EventTime())
	n := &Node{Kind: NodeJoin, Text: strings.Replace(lines[0], " hash join:", ":", 1), Inputs: []Input{{Node: last.ID, Port: "build"}}, Time: timeCol, Line: LineJoin}
	for _, l := range lines[1:] {
		l = strings.TrimPrefix(l, "  ")
		switch {
		case strings.HasPrefix(l, "build source: "):
			continue // (the build side's Scan)
		case strings.HasPrefix(l, "state: "):
			n.State = strings.TrimPrefix(l, "state: ")
		}
		n.Details = append(n.Details, l)
	}
	if jn.EventTime() {
		n.Strategy = Held.String()
	}
	add(n)
}

// aggregate adds branch k's window or aggregate, its late port feeding the
// late output's sink.
func (t *Tree) aggregate(j *Job, b *Branch, add func(*Node) *Node, sinks map[int]*Node) {
	a := b.Agg
	head, details, kinds := b.aggLines(j.Outputs)
	kind := NodeAggregate
	if a.Window != nil && !a.Grouped {
		kind = NodeWindow
	}
	out := "" // (GROUP BY without a window: no time column; SPEC 2.6)
	if a.Window != nil {
		out = "window_time"
	}
	n := add(&Node{Kind: kind, Text: head, Time: out, Details: details, detailLines: kinds, Line: LineAggregate})
	if a.Grouped {
		n.State = strings.TrimPrefix(details[len(details)-1], "state grows with: ")
	}
	if a.Window != nil && a.LateOutput >= 0 && a.LateOutput < len(j.Outputs) {
		t.sink(j, a.LateOutput, Input{Node: n.ID, Port: "late"}, "", sinks)
	}
}

// sink adds (or, when another operator feeds it already, extends) the Sink
// node of output k.
func (t *Tree) sink(j *Job, k int, in Input, timeCol string, sinks map[int]*Node) {
	if s := sinks[k]; s != nil {
		s.Inputs = append(s.Inputs, in)
		return
	}
	o := j.Outputs[k]
	n := &Node{Kind: NodeSink, Text: j.sinkText(k), Inputs: []Input{in}, Time: timeCol, Line: LineSink, Branch: -1, Output: k, Updating: o.Updating}
	for _, c := range o.UpsertKey {
		n.UpsertKey = append(n.UpsertKey, o.Columns[c].Name)
	}
	if s := o.Sink; s != nil && s.Connector.Upserts && len(s.PrimaryKey) > 0 {
		n.Details = append(n.Details, upsertSinkText(s, o))
	}
	if k == 0 && j.EncodeAhead { // (the main output: Job.EncodeAhead)
		n.Strategy = EncodeAheadText
	}
	sinks[k] = t.add(n)
}

// upsertSinkText says by which key an upsert sink (upsert-kafka, SPEC 2.8)
// writes output o's rows, and, for an updating o, whether that PRIMARY KEY
// contains the query's upsert key. Flink's rule: when it does not (or the
// query has none), Flink puts an upsert materializer before the sink
// ('table.exec.sink.upsert-materialize' = 'auto'), which keeps every row
// per primary key; streamql writes each change in order (a -U whose +U has
// another key becomes the tombstone of its key), which gives the result
// only while the PRIMARY KEY is unique in it, and says so.
func upsertSinkText(s *catalog.Stream, o Output) string {
	pk := strings.Join(s.PrimaryKey, ", ")
	text := "writes upserts by PRIMARY KEY (" + pk + ")"
	if !o.Updating {
		return text + " (the query is append-only: each row is an upsert)"
	}
	var key []string
	contained := o.UpsertKey != nil
	for _, c := range o.UpsertKey {
		name := o.Columns[c].Name
		key = append(key, name)
		if !slices.ContainsFunc(s.PrimaryKey, func(p string) bool { return catalog.FoldName(p) == catalog.FoldName(name) }) {
			contained = false
		}
	}
	switch {
	case contained:
		return text + ", which holds the query's upsert key (" + strings.Join(key, ", ") + ")"
	case key == nil:
		text += "; the query has no upsert key"
	default:
		text += "; it does not hold the query's upsert key (" + strings.Join(key, ", ") + ")"
	}
	return text + ": a -U whose +U has another key is written as a tombstone, so the topic holds the query's result only while (" + pk + ") is unique in it (Flink puts an upsert materializer before such a sink)"
}

// sinkText is the text of the Sink node of output k of j: its name,
// columns and where its rows go (stdout for the main query, a sink
// stream, a late output shown once a row reaches it, or a side output).
func (j *Job) sinkText(k int) string {
	o := j.Outputs[k]
	dest := "stdout"
	switch {
	case o.Sink != nil:
		dest = SinkText(o.Sink)
	case o.Late:
		dest = "late output (shown once a row reaches it)"
	case j.Main == nil || k > 0:
		dest = "side output '" + o.Name + "'"
	}
	return fmt.Sprintf("%s %s -> %s", o.Name, SchemaText(o.Columns), dest)
}

// add appends n to t with the next ID.
func (t *Tree) add(n *Node) *Node {
	n.ID = len(t.Nodes) + 1
	if n.Inputs == nil {
		n.Inputs = []Input{}
	}
	t.Nodes = append(t.Nodes, n)
	return n
}

// calcText is the projection of a query fused over a rank operator
// (Rank.Calc) as EXPLAIN shows it, each expression named by its column of
// cols.
func calcText(calc []*Expr, cols []catalog.Column) string {
	var out []string
	for i, e := range calc {
		c := cols[i].Name
		if e.Text != "" && e.Text != c {
			c = e.Text + " AS " + c
		}
		out = append(out, c)
	}
	return strings.Join(out, ", ")
}

// projectText is a branch's projection as EXPLAIN shows it: "name, t * 2 AS
// double_t".
func (b *Branch) projectText() string {
	var cols []string
	names := b.projectedColumns()
	for i, e := range b.Project {
		c := names[i].Name
		if e.Text != "" && e.Text != c {
			c = e.Text + " AS " + c
		}
		cols = append(cols, c)
	}
	return strings.Join(cols, ", ")
}

// projectedTime is the output column of b that carries the time column tc
// through the projection (a bare reference to it, SPEC 2.6), "" when none.
func projectedTime(b *Branch, tc string) string {
	if tc == "" {
		return ""
	}
	if tc == "window_time" { // window_end, else window_start, when window_time is not projected (SPEC 2.6)
		for _, w := range []string{"window_time", "window_end", "window_start"} {
			if n := projectedTime(b, w+"!"); n != "" {
				return n
			}
		}
		return ""
	}
	tc = strings.TrimSuffix(tc, "!")
	names := b.projectedColumns()
	for i, e := range b.Project {
		x := e.Text
		if dot := strings.LastIndexByte(x, '.'); dot >= 0 {
			x = x[dot+1:]
		}
		if strings.EqualFold(x, tc) {
			return names[i].Name
		}
	}
	return ""
}

// projectedColumns are the columns b.Project computes: the branch's own, or
// with a Rank (SPEC 2.9) the operator's input (hidden columns included).
func (b *Branch) projectedColumns() []catalog.Column {
	if b.Rank != nil {
		return b.Rank.InColumns
	}
	return b.Columns
}

// Text renders t as EXPLAIN prints it: every root (a source) with the
// operators that read it below it, one operator a line, Flink's tree marks
// (":- " for a child with siblings after it, "+- " for the last). A node
// with several inputs is drawn under its first and named again ("-> #ID")
// under the others. Each line ends with the node's ID, its time column and
// whether it is append-only or updating; its details follow on lines of
// their own.
func (t *Tree) Text() string {
	var sb strings.Builder
	for _, l := range t.Lines() {
		sb.WriteString(l.Text)
		sb.WriteByte('\n')
	}
	return sb.String()
}

// Lines returns Text's lines, without line ends, each with what EXPLAIN
// ANALYZE counts on it (Line).
func (t *Tree) Lines() []Line {
	readers := make([][]Input, len(t.Nodes)+1) // node ID -> its readers (Node: the reader, Port: the port it reads)
	for _, n := range t.Nodes {
		for _, in := range n.Inputs {
			readers[in.Node] = append(readers[in.Node], Input{Node: n.ID, Port: in.Port})
		}
	}
	var out []Line
	var walk func(id int, port, lead, indent string)
	walk = func(id int, port, lead, indent string) {
		n := t.Nodes[id-1]
		own := n // (what its line counts: in its part's run for a part's node)
		if n.inPart != nil {
			own = n.inPart
		}
		attrs := []string{fmt.Sprintf("#%d", n.ID)}
		if n.Time != "" {
			attrs = append(attrs, "time "+n.Time)
		}
		switch {
		case n.Updating && n.UpsertKey != nil:
			attrs = append(attrs, "updating, upsert key ("+strings.Join(n.UpsertKey, ", ")+")")
		case n.Updating:
			attrs = append(attrs, "updating")
		default:
			attrs = append(attrs, "append-only")
		}
		if port != "" && t.Nodes[n.Inputs[0].Node-1].Kind == NodeRoute {
			// a branch's port of the router: its own line, for the rows it took
			kind := LineBranch
			if own.Branch < 0 {
				kind = LineOther
			}
			out = append(out, Line{Text: lead + "port " + port, Kind: kind, Branch: own.Branch, Output: -1, Part: n.part})
			lead, indent = indent+"+- ", indent+"   "
		} else if port != "" {
			lead += "[" + port + "] "
		}
		out = append(out, Line{Text: fmt.Sprintf("%s%s %s  (%s)", lead, n.Kind, n.Text, strings.Join(attrs, ", ")), Kind: own.Line, Branch: own.Branch, Output: own.Output, Part: n.part})
		rs := readers[id]
		bar := "   "
		if len(rs) > 0 {
			bar = "|  "
		}
		if n.Strategy != "" {
			out = append(out, Line{Text: indent + bar + "strategy: " + n.Strategy, Kind: LineOther, Branch: -1, Output: -1})
		}
		for i, d := range n.Details {
			k := LineDetail
			if i < len(own.detailLines) && own.detailLines[i] != 0 {
				k = own.detailLines[i]
			}
			b := own.Branch
			if b < 0 {
				k = LineOther // (a source's or the router's: nothing of a branch)
			}
			out = append(out, Line{Text: indent + bar + d, Kind: k, Branch: b, Output: -1, Part: n.part})
		}
		for i, r := range rs {
			mark, next := ":- ", ":  "
			if i == len(rs)-1 {
				mark, next = "+- ", "   "
			}
			reader := t.Nodes[r.Node-1]
			if reader.Inputs[0].Node != id || reader.Inputs[0].Port != r.Port {
				p := ""
				if r.Port != "" {
					p = "[" + r.Port + "] "
				}
				out = append(out, Line{Text: fmt.Sprintf("%s%s%s-> #%d %s", indent, mark, p, reader.ID, reader.Kind), Kind: LineOther, Branch: -1, Output: -1})
				continue
			}
			walk(r.Node, r.Port, indent+mark, indent+next)
		}
	}
	for _, n := range t.Nodes {
		if len(n.Inputs) == 0 {
			walk(n.ID, "", "", "")
		}
	}
	return out
}

// JSON renders t as one JSON document (EXPLAIN (FORMAT JSON), SPEC 4
// "Finding out why"): {"nodes": [...]}, each node with its id, kind, text,
// inputs, time column, updating, state, strategy and details, indented two
// spaces.
func (t *Tree) JSON() string {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false) // ("->" as written)
	enc.SetIndent("", "  ")
	if err := enc.Encode(t); err != nil { // (plain strings, ints and bools only)
		panic(err)
	}
	return sb.String()
}

// unnestEmpty says what an Unnest gives for a NULL or empty value (SPEC
// 2.10; LEFT JOIN UNNEST keeps the row, as Flink).
func unnestEmpty(left bool) string {
	if left {
		return " (once, NULL padded, for NULL or empty)"
	}
	return " (none for NULL or empty)"
}
