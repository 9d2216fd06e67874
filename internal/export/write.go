package export

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner"
	"streamql/planner/plan"
)

// outTable is a Flink table that an output without a sink becomes.
type outTable struct {
	name, schema string
	ddl          string
}

// write renders the Flink script of the recorded jobs.
func (x *exporter) write(jobs []job) (string, error) {
	for _, d := range x.streams {
		x.tableOf[d.st] = x.uniqueName(d.st.Name)
	}
	sinks := map[*catalog.Stream]bool{}
	for _, j := range jobs {
		for _, b := range j.job.AllBranches() {
			if b.Sink != nil {
				sinks[b.Sink] = true
			}
		}
		for _, dl := range j.job.DeadLetters {
			sinks[dl] = true
		}
	}
	var inserts []string
	var sorts []pendingSort // the inserts whose query ends with ORDER BY, placed once the runtime mode is known
	var tables []*outTable
	sides := map[string]*outTable{}
	usesWatermark := false
	allBounded := true
	session := false                    // Flink runs no SESSION window in batch mode
	temporal := false                   // nor an event-time temporal join (its planner's "unexpected correlate variable")
	changelog := false                  // Flink's batch mode reads no changelog source (SPEC 2.8)
	readBy := map[*catalog.Stream]int{} // the first job that reads a stream
	streaming := false                  // a job was planned in 'execution.runtime-mode' = 'streaming'
	for ji, j := range jobs {
		streaming = streaming || j.streaming
		// the relations it reads, and the declared streams under them at any
		// depth (SPEC 2.6: a stream read only through a view, subquery or
		// join is read, a source whose malformed rows Flink treats its own way)
		for _, st := range append(j.job.Streams(), j.job.DeclaredStreams()...) {
			if st != nil && !st.Bounded() {
				allBounded = false
			}
			if st != nil && st.Updating() != "" {
				changelog = true
			}
			if _, ok := readBy[st]; !ok {
				readBy[st] = ji
			}
		}
	}
	jobs = routedJobs(jobs)
	for ji, j := range jobs {
		routed, err := x.routedFrom(j)
		if err != nil {
			return "", err
		}
		x.routed = routed
		branches := j.job.AllBranches()
		qs := make([]*branchQuery, len(branches))
		sels := make([]*parser.Select, len(branches))
		takes := make([]*parser.Select, len(branches)) // (the query whose WHERE routes the branch's rows: rankInner's for a ranking branch)
		inner := make([]*parser.Relation, len(branches))
		for i, b := range branches {
			sel := x.selects[selKey{b.Script, b.Line, b.Column}]
			if sel != nil && sel.Window != nil && sel.Window.Func == "SESSION" {
				session = true
			}
			if b.Both != nil && b.Both.Temporal {
				temporal = true
			}
			if sel == nil {
				return "", fmt.Errorf("%s:%d: internal error: the statement of this branch was not found", b.Script, b.Line)
			}
			sels[i], takes[i] = sel, sel
			if b != j.job.Main && b.Rank != nil {
				if rel, isel := rankInner(sel); rel != nil {
					inner[i], takes[i] = rel, isel
				}
			}
			qs[i] = x.newBranchQuery(j.script, sel, b.Stream, "")
			qs[i].p.outQual = qs[i].defaultQual()
		}
		for i, b := range branches {
			q := qs[i]
			target, err := x.outputTable(j, b, sides, &tables)
			if err != nil {
				return "", err
			}
			fields, err := q.fields()
			if err != nil {
				return "", &ScriptError{Script: j.script, Err: err}
			}
			isMain := b == j.job.Main
			// SPEC 2.1: a row no earlier side branch took (their predicate is false or NULL)
			var others []string
			for k := 0; k < len(j.job.Branches) && (isMain || k < i); k++ {
				other := x.newBranchQuery(j.script, takes[k], branches[k].Stream, q.p.outQual)
				t, err := other.take()
				if err != nil {
					return "", &ScriptError{Script: j.script, Err: err}
				}
				if other.p.usesWatermark {
					usesWatermark = true // its own branch reports it
				}
				if t == "" {
					others = append(others, "FALSE")
				} else {
					others = append(others, t+" IS NOT TRUE")
				}
			}
			if inner[i] != nil { // (a ranking branch ranks the rows it takes: the conditions go into its subquery)
				if x.routing == nil {
					x.routing = map[*parser.Relation][]string{}
				}
				x.routing[inner[i]], others = others, nil
			}
			from, preds, err := q.from()
			if err != nil {
				return "", &ScriptError{Script: j.script, Err: err}
			}
			if isMain {
				if w := q.sel.Query.Where; w != nil {
					s, err := q.p.expr(w)
					if err != nil {
						return "", &ScriptError{Script: j.script, Err: err}
					}
					preds = append(preds, s)
				}
			} else {
				own, err := q.take()
				if err != nil {
					return "", &ScriptError{Script: j.script, Err: err}
				}
				if own != "" {
					preds = []string{own + " IS TRUE"}
				} else {
					preds = nil
				}
			}
			preds = append(preds, others...)
			tail, err := q.tail()
			if err != nil {
				return "", &ScriptError{Script: j.script, Err: err}
			}
			sc, err := q.sort()
			if err != nil {
				return "", &ScriptError{Script: j.script, Err: err}
			}
			if sc != nil {
				sorts = append(sorts, pendingSort{insert: len(inserts), sc: sc, j: j, b: b})
			}
			var s strings.Builder
			fmt.Fprintf(&s, "INSERT INTO %s\n  SELECT %s", quote(target), fields)
			if from != "" {
				s.WriteString("\n  FROM " + from)
			}
			if len(preds) > 0 {
				s.WriteString("\n  WHERE " + strings.Join(preds, "\n    AND "))
			}
			if tail != "" {
				s.WriteString("\n " + tail)
			}
			s.WriteString(";")
			inserts = append(inserts, s.String())
			if q.p.usesWatermark {
				usesWatermark = true
			}
			x.branchDiffs(j, b, q, ji, readBy)
		}
	}
	usesWatermark = usesWatermark || x.relWatermark
	batch := allBounded && !usesWatermark && !session && !temporal && !changelog && !x.procWindow && !streaming && len(jobs) > 0
	// why the export runs in Flink's streaming mode, for the queries whose
	// result only that mode makes a changelog (flinkUpdates)
	var streamingWhy string
	switch {
	case !allBounded:
		streamingWhy = "an unbounded stream"
	case temporal:
		streamingWhy = "an event-time temporal join, which Flink's batch mode does not run"
	case changelog:
		streamingWhy = "a changelog source, which Flink's batch mode does not read"
	case usesWatermark:
		streamingWhy = "CURRENT_WATERMARK"
	case session:
		streamingWhy = "a SESSION window"
	case x.procWindow:
		streamingWhy = "a window over processing time, which Flink's batch mode does not run"
	}
	if !batch {
		for _, u := range x.windowTimeAt {
			x.diff(u.script, u.pos, "the window's time column %s is BIGINT without WATERMARK FOR: a Flink streaming job windows only a time attribute; declare WATERMARK FOR %s on the stream", u.col, u.col)
		}
	}
	if !batch {
		for _, j := range jobs {
			for _, b := range j.job.AllBranches() {
				if b.Join != nil {
					x.diff(j.script, x.selects[selKey{b.Script, b.Line, b.Column}].Start, "a semi/anti join in a streaming Flink job is a regular join: its output order depends on how the inputs interleave, and an anti join retracts rows a later build row matches (SPEC 2.2's answer is deterministic, left rows in left order)")
				}
				if bj := b.Both; bj != nil && bj.Interval && !bj.Window && bj.Type != plan.InnerJoin &&
					!(timeAttribute(bj.Inputs[0].Stream) && timeAttribute(bj.Inputs[1].Stream)) {
					// (bench/flink-export: Flink plans the BIGINT bounds as a join condition)
					x.diff(j.script, x.selects[selKey{b.Script, b.Line, b.Column}].Start, "a %s interval join on BIGINT event time: Flink's interval join needs TIMESTAMP time attributes, so Flink runs it as a regular %s join, whose output is a changelog (a padded row, then -D and the joined row; a filesystem or kafka sink refuses it) that ends in streamql's rows (SPEC 2.7)", bj.Type, bj.Type)
				}
				updating := b.Output >= 0 && b.Output < len(j.job.Outputs) && j.job.Outputs[b.Output].Updating
				if b.Agg != nil && b.Agg.Window == nil && b.Agg.Grouped && (!b.Stream.Bounded() || j.streaming) {
					x.diff(j.script, x.selects[selKey{b.Script, b.Line, b.Column}].Start, "GROUP BY without a window on an unbounded stream (or in streaming mode) is an updating result in both engines, but Flink's print sink shows its changelog (+I, -U, +U) and a filesystem or kafka sink refuses it")
				} else if what, ours := flinkUpdates(b); what != "" && !updating {
					x.diff(j.script, x.selects[selKey{b.Script, b.Line, b.Column}].Start, "%s", streamingChangelogText(what, ours, streamingWhy, readsBoundedOnly(b)))
				}
			}
		}
	}
	for _, ps := range sorts {
		ins := strings.TrimSuffix(inserts[ps.insert], ";")
		if c := x.orderBy(ps, batch); c != "" {
			ins += "\n  " + c
		}
		inserts[ps.insert] = ins + ";"
	}
	for st, ins := range x.values {
		for _, vi := range ins {
			if r, ok := readBy[st]; ok && r < vi.jobsBefore {
				x.diff(vi.script, vi.ins.Start, "these rows of the values stream %s come after a job that read it: streamql's earlier job did not see them, Flink's view holds every row for every reader", st.Name)
			}
		}
	}
	var ddls []string
	for _, d := range x.streams {
		_, read := readBy[d.st]
		ddl, err := x.createTable(d, sinks[d.st], read)
		if err != nil {
			return "", err
		}
		ddls = append(ddls, ddl)
	}
	var b strings.Builder
	b.WriteString("-- Flink SQL (Flink 2.x), written by `streamql export --flink` from ")
	var names []string
	seen := map[string]bool{}
	for _, d := range x.streams {
		if !seen[d.script.Name] {
			seen[d.script.Name] = true
			names = append(names, d.script.Name)
		}
	}
	for _, j := range jobs {
		if !seen[j.script.Name] {
			seen[j.script.Name] = true
			names = append(names, j.script.Name)
		}
	}
	b.WriteString(strings.Join(names, ", ") + ".\n")
	if len(x.diffs) == 0 {
		b.WriteString("-- Differences from streamql: none.\n")
	} else {
		b.WriteString("-- Differences from streamql (SPEC 4; `--strict` refuses them), one per item:\n")
		sortDiffs(x.diffs, names)
		for _, d := range x.diffs {
			b.WriteString("--   " + strings.ReplaceAll(d.String(), "\n", " ") + "\n")
		}
	}
	b.WriteString("\n-- Window columns of BIGINT event time are epoch milliseconds in UTC.\nSET 'table.local-time-zone' = 'UTC';\n")
	if batch {
		b.WriteString("-- Every stream is bounded: batch mode gives each output once, final (SPEC 2.2, 2.4).\nSET 'execution.runtime-mode' = 'batch';\n")
	} else if allBounded && len(jobs) > 0 && streaming {
		b.WriteString("-- The script sets 'execution.runtime-mode' = 'streaming': updating results are changelogs in both engines (SPEC 2.8).\nSET 'execution.runtime-mode' = 'streaming';\n")
	} else if allBounded && len(jobs) > 0 && temporal && !usesWatermark && !session && !changelog {
		b.WriteString("-- Every stream is bounded, but Flink's batch mode runs no event-time temporal join (SPEC 2.7): streaming mode.\nSET 'execution.runtime-mode' = 'streaming';\n")
	} else if allBounded && len(jobs) > 0 && x.procWindow && !temporal && !changelog && !usesWatermark && !session {
		b.WriteString("-- Every stream is bounded, but Flink's batch mode runs no window over processing time (SPEC 2.10): streaming mode.\nSET 'execution.runtime-mode' = 'streaming';\n")
	} else if allBounded && len(jobs) > 0 && !usesWatermark && !session {
		b.WriteString("-- Every stream is bounded, but Flink's batch mode reads no changelog source (SPEC 2.8): streaming mode.\nSET 'execution.runtime-mode' = 'streaming';\n")
	} else if allBounded && len(jobs) > 0 {
		b.WriteString("-- Every stream is bounded, but CURRENT_WATERMARK or a SESSION window needs streaming mode.\nSET 'execution.runtime-mode' = 'streaming';\n")
	} else {
		b.WriteString("SET 'execution.runtime-mode' = 'streaming';\n")
	}
	for _, ddl := range ddls {
		b.WriteString("\n" + ddl)
	}
	for _, v := range x.tvfViewDDLs {
		b.WriteString("\n" + v)
	}
	for _, t := range tables {
		b.WriteString("\n" + t.ddl)
	}
	if len(inserts) == 0 {
		return b.String(), nil
	}
	b.WriteString("\nEXECUTE STATEMENT SET\nBEGIN\n")
	for _, s := range inserts {
		b.WriteString(s + "\n")
	}
	b.WriteString("END;\n")
	return b.String(), nil
}

// sortDiffs orders differences by script (in the order given), then line.
func sortDiffs(d []Difference, scripts []string) {
	idx := map[string]int{}
	for i, s := range scripts {
		idx[s] = i
	}
	sort.SliceStable(d, func(i, j int) bool {
		if d[i].Script != d[j].Script {
			return idx[d[i].Script] < idx[d[j].Script]
		}
		return d[i].Line < d[j].Line
	})
}

// outputTable returns the Flink table an output of branch b goes to: its sink
// stream's table, or a print (or --side-dir filesystem) table named after the
// output, created once per name and schema.
func (x *exporter) outputTable(j job, b *planner.Branch, sides map[string]*outTable, tables *[]*outTable) (string, error) {
	if b.Sink != nil {
		return x.tableOf[b.Sink], nil
	}
	out := j.job.Outputs[b.Output]
	var cols []string
	used := map[string]bool{}
	for _, c := range out.Columns {
		n := c.Name
		for i := 2; used[strings.ToLower(n)]; i++ {
			n = fmt.Sprintf("%s_%d", c.Name, i)
		}
		used[strings.ToLower(n)] = true
		cols = append(cols, "  "+quote(n)+" "+flinkType(c.Type))
	}
	schema := strings.Join(cols, ",\n")
	key := out.Name
	if b == j.job.Main {
		key = "\x00main"
	}
	if t := sides[key]; t != nil && t.schema == schema && key != "\x00main" {
		return t.name, nil
	}
	t := &outTable{name: x.uniqueName(out.Name), schema: schema}
	sides[key] = t
	opts := []kv{{"connector", "print"}, {"print-identifier", out.Name}}
	if x.opt.SideDir != "" && b != j.job.Main {
		opts = []kv{{"connector", "filesystem"}, {"path", filepath.Join(x.sideDir, out.Name+".csv")}, {"format", "csv"}}
	}
	var o []string
	for _, p := range opts {
		o = append(o, str(p.k)+" = "+str(p.v))
	}
	t.ddl = fmt.Sprintf("CREATE TABLE %s (\n%s\n) WITH (%s);\n", quote(t.name), schema, strings.Join(o, ", "))
	*tables = append(*tables, t)
	return t.name, nil
}

// branchDiffs records what Flink does differently for branch b of job j.
func (x *exporter) branchDiffs(j job, b *planner.Branch, q *branchQuery, ji int, readBy map[*catalog.Stream]int) {
	at := q.sel.Start
	l, _ := parser.Position(j.script.Source, at)
	ordered := q.sel.Query.OrderBy != nil // (its ties and LIMIT are orderBy's)
	if r := b.Rank; r != nil && !ordered && r.Func == plan.RankRowNumber && (r.Kind == plan.RankTopN || r.Kind == plan.RankDedup || r.Kind == plan.RankWindowTopN) && rowNumberTies(b, r) {
		// (bench/flink-export: Nexmark q18 and q19 differ in exactly the rows that tie)
		x.diff(j.script, at, "ROW_NUMBER over rows that tie on its ORDER BY: streamql numbers them in arrival order, Flink in an order of its parallel instances, so the rows kept among ties may differ; add a column to ORDER BY that breaks ties")
	}
	x.lateDiffs(b, j.job.Outputs, j.script.Name, l, "")
	x.readLateDiffs(b, map[*catalog.Stream]bool{})
	if q.p.usesWatermark {
		x.diff(j.script, max(at, q.p.wmPos), watermarkDiff)
	}
	if q.sel.Query.Limit != nil && !ordered {
		x.diff(j.script, at, "LIMIT takes the first rows in input order and ends the job in streamql; Flink takes any rows of its parallel instances")
	}
	if b.Sink != nil {
		if r, ok := readBy[b.Sink]; ok && r > ji {
			x.diff(j.script, at, "stream %s is written here and read by a later job: streamql runs the jobs one after the other, Flink's statement set runs them at the same time", b.Sink.Name)
		}
	}
}

// lateDiffs records, at line of the script called script, the late outputs
// of branch b (outs: its job's outputs), which Flink does not have: its
// window aggregate's (windowAggDiffs), its event-time join's, one per input
// whose rows can be late (SPEC 2.7; not a window aggregate's, another
// join's or a lookup join's table: plan.BothJoin.NoLateRows), and its
// deduplication's, Top-N's, OVER window's or ORDER BY's (SPEC 2.9). in names
// the relation b is a part of (", in the view v,"), "" for a query's own
// branch.
func (x *exporter) lateDiffs(b *planner.Branch, outs []plan.Output, script string, line int, in string) {
	x.windowAggDiffs(b, script, line, in)
	if bj := b.Both; bj != nil { // (a lookup join's left input too; its table's rows are never late: NoLateRows)
		for k, inp := range bj.Inputs {
			if inp.Watermark != nil && bj.Late[k] != "" && bj.NoLateRows(k) == "" {
				x.diffLine(script, line, "the join's rows of %s%s that are late (below its watermark, SPEC 2.7) go to the side output '%s'; Flink has no late output: its streaming join drops them or joins them by processing order, its batch mode joins them", inp.Name, in, bj.Late[k])
			}
		}
	}
	if r := b.Rank; r != nil && r.LateOutput >= 0 && r.LateOutput < len(outs) {
		x.diffLine(script, line, "rows late for this %s%s (below the watermark, SPEC 2.9) go to the side output '%s'; Flink has no late output: it drops them in streaming mode and keeps them in batch mode", rankKind(r), in, outs[r.LateOutput].Name)
	}
}

// windowAggDiffs records what Flink does differently for branch b's window
// aggregate (SPEC 2.4), if it has one, at line of the script called script:
// its late rows go to a side output, which Flink drops; FIRST_VALUE and
// LAST_VALUE in a SESSION window, which Flink refuses. in names the
// relation b is a part of (", in the view v,"), "" for a query's own branch.
func (x *exporter) windowAggDiffs(b *planner.Branch, script string, line int, in string) {
	a := b.Agg
	if a == nil || a.Window == nil || !a.Grouped {
		return
	}
	late := "'late' (shown once a row reaches it)"
	if a.LateNamed {
		late = "'" + a.Late + "' (LATE INTO SIDE)"
	}
	x.diffLine(script, line, "a window's late rows%s go to the side output %s; Flink drops rows late for a window (SPEC 2.4)", in, late)
	if a.Window.ProcTime {
		// (bench/flink-export: Flink 2.3's batch mode refuses it, "Processing
		// time Window TableFunction is not supported yet"; compare-flink's
		// streaming q12 ends with 0 rows)
		x.procWindow = true
		x.diffLine(script, line, "a window over processing time (%s, a PROCTIME() column, SPEC 2.10)%s: streamql fires a window once a row read after its end passes, and the open ones at the input's end; Flink fires it on a timer only, so its job over bounded input ends before the windows still open fire (its batch mode refuses processing-time windows: this export runs in streaming mode)", a.Window.TimeName, in)
	}
	if a.Window.Func == "SESSION" {
		for _, c := range a.Calls {
			if c.Spec.Func == plan.AggFirst || c.Spec.Func == plan.AggLast {
				// (bench/flink-export: Flink 2.3's FirstValueAggFunction has no merge)
				x.diffLine(script, line, "%s in a SESSION window%s: Flink merges sessions and its FIRST_VALUE and LAST_VALUE cannot merge, so Flink refuses the query; compute it in a second query over the session's rows", c.Text, in)
				break
			}
		}
	}
}

// readLateDiffs records lateDiffs for every branch of the relations branch
// b reads (SPEC 2.6: subqueries, WITH names, views and UNION ALL parts,
// printed inline, the inner joins of a FROM of three, and the relations
// they read in turn), each at its own query's line: the late rows of their
// window aggregates, event-time joins and deduplications go to side outputs
// in streamql too (EXPLAIN shows them) and Flink drops or joins them. seen
// holds the relations already walked.
func (x *exporter) readLateDiffs(b *planner.Branch, seen map[*catalog.Stream]bool) {
	if b == nil {
		return
	}
	for _, st := range branchReads(b) {
		d := plan.DerivedOf(st)
		if d == nil || seen[st] {
			continue
		}
		seen[st] = true
		in := ", in a subquery,"
		switch d.Kind {
		case "view":
			in = ", in the view " + d.Name + ","
		case "WITH":
			in = ", in the WITH name " + d.Name + ","
		case "join":
			in = ", in the join " + d.Name + ","
		}
		for _, part := range d.Parts {
			for _, pb := range part.AllBranches() {
				x.lateDiffs(pb, part.Outputs, pb.Script, pb.Line, in)
				x.readLateDiffs(pb, seen)
			}
		}
	}
}

// rowNumberTies reports whether ROW_NUMBER over r (branch b's Top-N,
// deduplication or window Top-N, SPEC 2.9; or its ORDER BY … LIMIT) can
// number rows that tie on its PARTITION BY and ORDER BY keys (a window
// Top-N's window too) and differ in what the query writes, so that which of
// them streamql keeps (arrival order) and which Flink keeps (an order of its
// parallel instances) may differ. It cannot when:
//   - the order is complete: every column the query writes (but the row
//     number) is a key, so rows that tie write the same values, whichever
//     is kept;
//   - the order is unique: the keys hold a unique key of r's input, a
//     grouped aggregate's on b (its window's start or end and its GROUP BY
//     keys) or the upsert key of the relation b reads (SPEC 2.8: a GROUP BY
//     or a deduplication in a subquery, view or WITH name), so no two rows
//     tie.
//
// A key is a column of r's input (Branch.Project); two columns are the same
// key when their expressions are (the hidden copies the planner adds for
// the keys: k AS $rank0).
func rowNumberTies(b *planner.Branch, r *plan.Rank) bool {
	id := func(c int) string {
		if c < 0 || c >= len(b.Project) {
			return fmt.Sprintf("#%d", c)
		}
		if e := b.Project[c]; e.Op != plan.OpCol {
			return "expr " + e.Text
		}
		return fmt.Sprintf("col %d", b.Project[c].Col)
	}
	keys := map[string]bool{}
	for _, k := range r.Keys {
		keys[id(k)] = true
	}
	for _, o := range r.Order {
		keys[id(o.Col)] = true
	}
	if r.Kind == plan.RankWindowTopN {
		for _, c := range []int{r.Start, r.End} {
			if c >= 0 {
				keys[id(c)] = true
			}
		}
	}
	complete := true
	for _, o := range r.Output {
		if o < len(r.Types) && !keys[id(o)] { // (o past the input: the row number)
			complete = false
			break
		}
	}
	if complete {
		return false
	}
	has := func(col int) bool { return keys[fmt.Sprintf("col %d", col)] }
	var unique [][]int // (in the columns b.Project reads)
	if a := b.Agg; a != nil {
		unique = aggUnique(a, nil)
	} else if d := plan.DerivedOf(b.Stream); d != nil {
		unique = derivedUnique(b.Stream, d)
	}
	if unique == nil {
		return true
	}
	for _, alts := range unique {
		if !slices.ContainsFunc(alts, has) {
			return true
		}
	}
	return false
}

// aggUnique returns the columns that hold a unique key of a grouped
// aggregate's rows, each as the columns any one of which holds it: its
// GROUP BY keys and, with a window, window_end (one window of each key ends
// there, SPEC 2.4), or window_start but for CUMULATE, whose windows of one
// step share it. They are the aggregate row's columns when project is nil,
// else the indexes of project (a select list over the aggregate row) that
// give them as they are. nil when there is none: no GROUP BY, or a key
// project drops.
func aggUnique(a *plan.Aggregate, project []*plan.Expr) [][]int {
	if !a.Grouped {
		return nil
	}
	var key [][]int
	if w := a.Window; w != nil {
		win := []int{1} // (window_end; window_start is column 0 of the aggregate row)
		if w.Func != "CUMULATE" {
			win = append(win, 0)
		}
		key = append(key, win)
	}
	for k := a.KeyBase; k < a.CallBase; k++ {
		key = append(key, []int{k})
	}
	if project == nil {
		return key
	}
	for i, alts := range key {
		var at []int
		for c, e := range project {
			if e.Op == plan.OpCol && slices.Contains(alts, e.Col) {
				at = append(at, c)
			}
		}
		if at == nil {
			return nil
		}
		key[i] = at
	}
	return key
}

// derivedUnique returns the columns of relation st (a subquery, view or WITH
// name, SPEC 2.6) that hold a unique key of its rows, as aggUnique: its
// upsert key (SPEC 2.8), or the GROUP BY keys (and window) of its one
// part's grouped aggregate, selected as they are; nil when it has none it
// knows of.
func derivedUnique(st *catalog.Stream, d *plan.Derived) [][]int {
	if len(st.PrimaryKey) > 0 {
		var key [][]int
		for _, name := range st.PrimaryKey {
			c := st.Column(name)
			if c < 0 {
				return nil
			}
			key = append(key, []int{c})
		}
		return key
	}
	if len(d.Parts) != 1 || d.Parts[0].Main == nil || d.Parts[0].Main.Agg == nil {
		return nil
	}
	m := d.Parts[0].Main
	return aggUnique(m.Agg, m.Project)
}

// flinkUpdates names the operator of branch b, or of a relation b reads
// (SPEC 2.6: a subquery, WITH name or view, printed inline), whose result
// Flink's streaming mode gives as a changelog (+I, -U, +U, -D) although
// streamql's is append-only, and says what streamql writes (ours): a GROUP
// BY without a window (also DISTINCT and an aggregate without GROUP BY),
// a Top-N or a deduplication keeping the last row over bounded input (each
// group's or key's final row, written once at the input's end, SPEC 2.4,
// 2.9), an outer lookup join (SPEC 2.7: each row once; a regular join in
// Flink, which pads a row, then retracts it when its partner comes). ""
// when there is none. (An outer interval join on BIGINT time is listed on
// its own; a deduplication keeping the first row by event time, OVER and
// the window operators are append-only in both engines.)
func flinkUpdates(b *planner.Branch) (what, ours string) {
	const final = "streamql writes its result once, final"
	switch {
	case b == nil:
		return "", ""
	case b.Agg != nil && b.Agg.Window == nil && b.Agg.Grouped:
		return "an aggregate without a window (GROUP BY, DISTINCT; SPEC 2.4)", final
	case b.Rank != nil && b.Rank.Kind == plan.RankTopN && b.Rank.NewerFirst:
		return "a deduplication keeping the last row (SPEC 2.9)", final
	case b.Rank != nil && b.Rank.Kind == plan.RankTopN:
		return "a Top-N (SPEC 2.9)", final
	case b.Both != nil && b.Both.Lookup && b.Both.Type != plan.InnerJoin:
		return fmt.Sprintf("a %s JOIN with a bounded right side (SPEC 2.7: a lookup join in streamql, a regular join in Flink)", b.Both.Type), "streamql writes each row once, a padded one when the right side has no partner"
	}
	reads := []*catalog.Stream{b.Stream}
	if b.Both != nil {
		reads = []*catalog.Stream{b.Both.Inputs[0].Stream, b.Both.Inputs[1].Stream}
	}
	for _, st := range reads {
		d := plan.DerivedOf(st)
		if d == nil {
			continue
		}
		for _, part := range d.Parts {
			if what, ours := flinkUpdates(part.Main); what != "" {
				if d.Kind == "view" || d.Kind == "WITH" {
					return fmt.Sprintf("%s, in the %s %s it reads", what, map[string]string{"view": "view", "WITH": "WITH name"}[d.Kind], d.Name), ours
				}
				return what + ", in a relation it reads", ours
			}
		}
	}
	return "", ""
}

// branchReads returns the relations branch b reads (streams, or the
// subqueries, WITH names and views of SPEC 2.6): its stream, a two-input
// join's inputs instead, and a semi or anti join's build side.
func branchReads(b *planner.Branch) []*catalog.Stream {
	reads := []*catalog.Stream{b.Stream}
	if b.Both != nil {
		reads = []*catalog.Stream{b.Both.Inputs[0].Stream, b.Both.Inputs[1].Stream}
	}
	if b.Join != nil {
		reads = append(reads, b.Join.Build)
	}
	return reads
}

// readsBoundedOnly reports whether every stream branch b reads, also
// through the relations it reads (SPEC 2.6), is bounded: exported in a
// script of its own, it would run in Flink's batch mode.
func readsBoundedOnly(b *planner.Branch) bool {
	if b == nil {
		return true
	}
	for _, st := range branchReads(b) {
		if !st.Bounded() {
			return false
		}
		if d := plan.DerivedOf(st); d != nil {
			for _, part := range d.Parts {
				for _, pb := range part.AllBranches() {
					if !readsBoundedOnly(pb) {
						return false
					}
				}
			}
		}
	}
	return true
}

// streamingChangelogText is the difference of a query holding what, whose
// result streamql writes as ours says (flinkUpdates), in an export that
// runs in Flink's streaming mode for why; bounded: the query reads only
// bounded streams, so a script of its own would run in batch mode.
func streamingChangelogText(what, ours, why string, bounded bool) string {
	s := what + ": " + ours + "; this export runs in Flink's streaming mode"
	if why != "" {
		s += " (the script has " + why + ")"
	}
	s += ", where the result is a changelog (+I, -U, +U, -D) that ends in the same rows, and a filesystem or kafka sink refuses it"
	if bounded {
		s += "; export this query in a script of its own to run it in Flink's batch mode"
	}
	return s
}

// timeAttribute reports whether st's event time is a Flink time attribute
// as declared: a TIMESTAMP column with a WATERMARK (a BIGINT one is epoch ms,
// whose rowtime column the export adds).
func timeAttribute(st *catalog.Stream) bool {
	return st != nil && st.Watermark != nil && st.EventTime >= 0 && st.Columns[st.EventTime].Type != catalog.BigInt
}

// pendingSort is an INSERT (inserts[insert]) whose query ends with ORDER BY
// (SPEC 2.9), branch b of job j.
type pendingSort struct {
	insert int
	sc     *sortClause
	j      job
	b      *planner.Branch
}

// orderBy returns the ORDER BY [LIMIT] clause of ps's INSERT in Flink's
// runtime mode (batch or streaming), "" when Flink's streaming mode cannot
// sort so, and records what Flink does differently (bench/flink-export
// checks these shapes on Flink 2.3):
//   - batch mode (every input bounded) sorts any keys at the input's end, as
//     streamql's sort of a bounded input (plan.RankSort) does; NULLs come
//     first ascending in both;
//   - streaming mode sorts without a LIMIT only on a time attribute
//     ascending (its first key), releasing rows as the watermark passes them
//     and dropping rows below it, as streamql's plan.RankTimeSort does but
//     for the late rows (branchDiffs lists its late output); over a bounded
//     input streamql's sort keeps the rows below the watermark (a
//     difference), and a sort on other keys is left out (a difference: Flink
//     refuses it);
//   - ORDER BY … LIMIT in streaming mode is Flink's Top-N over the whole
//     stream, updating (+I, -D), as streamql's plan.RankTopN; over a bounded
//     input (plan.RankSort) and on the event time (plan.RankTimeSort)
//     streamql writes the final rows once instead (a difference);
//   - with a LIMIT, the rows kept among those that tie on the keys differ,
//     unless no two rows can tie and differ in what the query writes
//     (rowNumberTies).
func (x *exporter) orderBy(ps pendingSort, batch bool) string {
	sc, r, at, script := ps.sc, ps.b.Rank, ps.sc.at, ps.j.script
	if sc.limit != "" && (r == nil || rowNumberTies(ps.b, r)) {
		x.diff(script, at, "ORDER BY … LIMIT over rows that tie on its keys at the last place kept: streamql keeps the first that arrived, Flink any of them; add a key that breaks ties")
	}
	if batch {
		return "ORDER BY " + sc.batch + sc.limit
	}
	kind := plan.RankSort
	if r != nil {
		kind = r.Kind
	}
	switch {
	case sc.limit != "" && kind == plan.RankTopN:
		return "ORDER BY " + sc.batch + sc.limit
	case sc.limit != "":
		x.diff(script, at, "ORDER BY … LIMIT in Flink's streaming mode is a Top-N whose result is a changelog (+I, -D; a filesystem or kafka sink refuses it) ending in the same rows; streamql writes them once, in order (SPEC 2.9)")
		return "ORDER BY " + sc.batch + sc.limit
	case sc.stream != "":
		if kind == plan.RankSort {
			x.diff(script, at, "ORDER BY the event time over a bounded input: streamql sorts every row when the input ends, Flink's streaming sort on the time attribute drops rows below the watermark")
		}
		return "ORDER BY " + sc.stream
	}
	x.diff(script, at, "ORDER BY %s in streaming mode: Flink's streaming mode sorts only on a time attribute ascending, so the export leaves this ORDER BY out and Flink writes the rows unsorted (streamql sorts them, SPEC 2.9)", sc.batch)
	return ""
}

// rankKind names the SPEC 2.9 operator r is, for a difference's text.
func rankKind(r *plan.Rank) string {
	switch r.Kind {
	case plan.RankDedup:
		return "deduplication"
	case plan.RankWindowTopN:
		return "window Top-N"
	case plan.RankOver:
		return "OVER window"
	case plan.RankSort, plan.RankTimeSort:
		return "ORDER BY"
	}
	return "Top-N"
}

// routedJobs returns jobs with, before each job whose main query joins a
// stream through its side branches (planner.BranchedParts), a job of those branches
// alone: they are exported as the INSERTs of the end of a script's
// branches, their first match among themselves (SPEC 2.1), and the join
// reads the stream's rows none of them takes (routedFrom).
func routedJobs(jobs []job) []job {
	var out []job
	for _, j := range jobs {
		for _, d := range planner.BranchedParts(j.job) {
			part := *d.Parts[0]
			part.Main = nil
			out = append(out, job{job: &part, script: j.script, streaming: j.streaming})
		}
		out = append(out, j)
	}
	return out
}

// routedFrom returns, for job j, the predicates by the name its FROM reads
// each routed stream by (planner.BranchedParts): the rows none of its branches takes
// (each branch's condition IS NOT TRUE, SPEC 2.1), which the join reads as
// (SELECT * FROM stream AS name WHERE …) AS name (printer.tableSource).
func (x *exporter) routedFrom(j job) (map[string][]string, error) {
	var out map[string][]string
	for _, d := range planner.BranchedParts(j.job) {
		part := d.Parts[0]
		var preds []string
		for _, b := range part.Branches {
			sel := x.selects[selKey{b.Script, b.Line, b.Column}]
			if sel == nil {
				return nil, fmt.Errorf("%s:%d: internal error: the statement of this branch was not found", b.Script, b.Line)
			}
			q := x.newBranchQuery(j.script, sel, part.Stream, d.Name)
			t, err := q.take()
			if err != nil {
				return nil, &ScriptError{Script: j.script, Err: err}
			}
			if t == "" {
				t = "TRUE"
			}
			preds = append(preds, t+" IS NOT TRUE")
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[strings.ToLower(d.Name)] = preds
	}
	return out, nil
}
