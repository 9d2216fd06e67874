package planner

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner/plan"
)

// This file plans SPEC 2.6's composition: a relation that is a query (a
// subquery in FROM, a WITH name, a view, a UNION ALL) becomes a
// plan.Derived, whose parts are jobs of their own, read by the outer query
// as a stream (executor/derived.go runs them). Event time flows through: a
// projected WATERMARK column keeps its stream's watermark, and a window
// aggregate's window_time, window_end or window_start is event time.

// relScope is what one SELECT being planned makes visible by name: its
// subqueries (by their placeholder names) and its WITH definitions.
type relScope struct {
	derived map[string]*parser.Relation
	ctes    []*parser.CTE
}

// derivedSource resolves the name tn of a FROM entry when it names a
// subquery, a WITH definition or a view, and returns its relation; nil, nil
// for a stream's name.
func (p *Planner) derivedSource(tn *ast.TableName, pos int) (*catalog.Stream, error) {
	if b, ok := p.boundTopNs[tn]; ok { // (a ranked relation with the outer query's bound: topNInFrom)
		return p.planRelation(b.rel, b.kind, b.name, p.Source)
	}
	name := tn.Name.O
	if parser.IsPlaceholder(name) {
		for i := len(p.scopes) - 1; i >= 0; i-- {
			if rel := p.scopes[i].derived[name]; rel != nil {
				if r := p.simplerRels[tn]; r != nil {
					rel = r // (its outer joins simplified by the reader's WHERE)
				}
				return p.planRelation(rel, "subquery", "subquery", p.Source)
			}
		}
	}
	for i := len(p.scopes) - 1; i >= 0; i-- {
		ctes := p.scopes[i].ctes
		for k := len(ctes) - 1; k >= 0; k-- {
			c := ctes[k]
			if !strings.EqualFold(c.Name, name) {
				continue
			}
			// lexical scope: the definition sees the definitions before it
			saved := p.scopes
			p.scopes = append(saved[:i:i], relScope{ctes: ctes[:k]})
			rel := c.Rel
			if r := p.simplerRels[tn]; r != nil {
				rel = r // (its outer joins simplified by the reader's WHERE)
			}
			st, err := p.planRelation(rel, "WITH", c.Name, p.Source)
			p.scopes = saved
			return st, err
		}
	}
	if v := p.Cat.LookupView(name); v != nil {
		if rv, ok := v.Query.(*viewQuery); ok {
			return nil, parser.Errorf(pos, "view %s ranks its rows (%s) without a bound: read it with one, SELECT … FROM %s WHERE %s <= N (a Top-N, SPEC 2.9; the view's query is planned where it is read, as Flink inlines views), or bound the rank inside the view", v.Name, rv.rn.O, v.Name, rv.rn.O)
		}
		return p.viewRelation(v.Stream), nil
	}
	return nil, nil
}

// viewQuery is the query of a view whose select list ranks rows without
// a bound (CREATE VIEW v AS SELECT *, ROW_NUMBER() OVER (…) AS rn FROM t),
// kept in catalog.View.Query: a reader that bounds its rank (SELECT * FROM
// v WHERE rn <= 3, or through a join) plans the view's query there, with
// that bound, as a Top-N (topNInFrom, as for a WITH name: Flink inlines
// views, so the bound reaches the ranking); rel is the query, file its
// script (its offsets' and texts'), rn the rank column. (A view of an
// outer join keeps no query: its readers read the relation planned at
// CREATE VIEW, whose side branches and main query share its rows by
// first match, SPEC 2.1, so one reader's WHERE must not change them:
// simplifyOuterJoinsByWhere.)
type viewQuery struct {
	rel  *parser.Relation
	file *parser.File
	rn   ast.CIStr
	// files are the streams of the files its query reads by a quoted name
	// (FROM 'x.csv', SPEC 1), declared while the view was created and
	// dropped after (the session's viewFileStreams): a reader finds them
	// here (Planner.viewFiles)
	files map[string]*catalog.Stream
}

// readView makes the query of view rv, planned here as rel (its own or a
// copy of it), read with its own script (Planner.relFiles) and the streams
// of the files it reads by a quoted name (Planner.viewFiles).
func (p *Planner) readView(rv *viewQuery, rel *parser.Relation) {
	if p.relFiles == nil {
		p.relFiles = map[*parser.Relation]*parser.File{}
	}
	p.relFiles[rel] = rv.file
	if p.viewFiles == nil {
		p.viewFiles = map[string]*catalog.Stream{}
	}
	maps.Copy(p.viewFiles, rv.files)
}

// rankColumn returns the rank column of rel when rel is one SELECT whose
// select list names a ranking function's result (… ROW_NUMBER() OVER (…)
// AS rn, rankFuncs); false otherwise.
func rankColumn(rel *parser.Relation) (ast.CIStr, bool) {
	if rel == nil || len(rel.Selects) != 1 || rel.Selects[0].Query == nil || rel.Selects[0].Query.Fields == nil {
		return ast.CIStr{}, false
	}
	for _, f := range rel.Selects[0].Query.Fields.Fields {
		if w, ok := f.Expr.(*ast.WindowFuncExpr); ok && f.AsName.L != "" {
			if _, ok := rankFuncs[strings.ToLower(w.Name)]; ok {
				return f.AsName, true
			}
		}
	}
	return ast.CIStr{}, false
}

// PlanView plans the query of CREATE VIEW (SPEC 2.6) as the relation the
// view gives; src is the text of the script that declares it. Errors are
// *parser.Error into that script. A view that ranks rows without a bound
// (ViewQuery) is planned as its readers will plan it, with a bound
// (SELECT * FROM v WHERE rn <= 2): the relation gives the view's columns
// and the streams it reads, and the errors of its query show at CREATE
// VIEW; a reader plans the query again with its own bound.
func (p *Planner) PlanView(cv *parser.CreateView) (*catalog.Stream, error) {
	rn, ok := rankColumn(cv.Rel)
	if !ok {
		return p.planRelation(cv.Rel, "view", cv.Name, p.Source)
	}
	file := parser.NewFile(p.Script, p.Source)
	text := fmt.Sprintf("SELECT * FROM `%s` WHERE `%s` <= 2;", strings.ReplaceAll(cv.Name, "`", "``"), strings.ReplaceAll(rn.O, "`", "``"))
	script, err := parser.Parse("view", text)
	if err != nil {
		return nil, fmt.Errorf("view %s: %w", cv.Name, err)
	}
	sel, ok := script.Stmts[0].(*parser.Select)
	if !ok {
		return nil, fmt.Errorf("view %s: %s is not a SELECT", cv.Name, text)
	}
	sel.With = []*parser.CTE{{Name: cv.Name, NamePos: cv.NamePos, Rel: cv.Rel}}
	if p.relFiles == nil {
		p.relFiles = map[*parser.Relation]*parser.File{}
	}
	p.relFiles[cv.Rel] = file
	saved := p.Source
	p.Source = text
	st, err := p.planRelation(&parser.Relation{Selects: []*parser.Select{sel}}, "view", cv.Name, text)
	p.Source = saved
	return st, file.Attach(err)
}

// ViewQuery returns what catalog.View.Query keeps of view cv (planned by
// PlanView): a *viewQuery when its query ranks rows without a bound, nil
// otherwise (the view's relation is then the one PlanView gave).
//
// Call it while the streams of the files the view reads by a quoted name
// are declared (as PlanView): the view keeps them for its readers.
func (p *Planner) ViewQuery(cv *parser.CreateView) any {
	rn, ok := rankColumn(cv.Rel)
	if !ok {
		return nil
	}
	rv := &viewQuery{rel: cv.Rel, file: parser.NewFile(p.Script, p.Source), rn: rn, files: map[string]*catalog.Stream{}}
	var walk func(rel *parser.Relation)
	walk = func(rel *parser.Relation) {
		for _, sel := range rel.Selects {
			for _, f := range sel.Files {
				if st := p.Cat.Lookup(f); st != nil {
					rv.files[f] = st
				}
			}
			for _, d := range sel.Derived {
				walk(d)
			}
			for _, c := range sel.With {
				walk(c.Rel)
			}
		}
	}
	walk(cv.Rel)
	return rv
}

// scopeRelation returns the relation FROM entry name of sel reads when it
// is a subquery of sel (its placeholder, cte nil) or a WITH definition in
// scope (sel's own, then the enclosing queries', the latest first: cte is
// it); nil when it is neither (a stream or a view).
func (p *Planner) scopeRelation(sel *parser.Select, name string) (rel *parser.Relation, cte *parser.CTE) {
	if parser.IsPlaceholder(name) {
		return sel.Derived[name], nil
	}
	scopes := append(slices.Clone(p.scopes), relScope{ctes: sel.With})
	for i := len(scopes) - 1; i >= 0; i-- {
		for k := len(scopes[i].ctes) - 1; k >= 0; k-- {
			if c := scopes[i].ctes[k]; strings.EqualFold(c.Name, name) {
				return c.Rel, c
			}
		}
	}
	return nil, nil
}

// PlanRelation plans rel, a subquery or WITH definition read as name, as
// the relation it gives (SPEC 2.6), as a query that reads it would; with
// the WITH definitions ctes visible. Errors are *parser.Error into p.Source.
func (p *Planner) PlanRelation(rel *parser.Relation, name string, ctes []*parser.CTE) (*catalog.Stream, error) {
	if ctes != nil {
		p.scopes = append(p.scopes, relScope{ctes: ctes})
		defer func(n int) { p.scopes = p.scopes[:n] }(len(p.scopes) - 1)
	}
	return p.planRelation(rel, "subquery", name, p.Source)
}

// planRelation plans rel, a query read as a relation named name (kind: what
// the query wrote, for EXPLAIN), into a derived relation: a job per SELECT
// (UNION ALL: the parts in order, each part's columns widened to the
// union's types, BIGINT to DOUBLE), and the stream that describes it.
func (p *Planner) planRelation(rel *parser.Relation, kind, name, src string) (st *catalog.Stream, err error) {
	return p.planRelationWith(rel, kind, name, src, nil)
}

// planRelationWith is planRelation, with the side branches branches (SPEC
// 2.1) attached to the job of rel's one SELECT: they take its input's rows
// by first match, and the relation's rows are those no branch took
// (routedRelation).
func (p *Planner) planRelationWith(rel *parser.Relation, kind, name, src string, branches []*Branch) (st *catalog.Stream, err error) {
	if f, ok := p.relFiles[rel]; ok { // (a ranked view's query, read where it is bounded: its own script)
		saved, warned := p.Source, len(p.Warnings)
		p.Source, src = f.Source(), f.Source()
		defer func() {
			p.Source = saved
			err = f.Attach(err)
			for _, w := range p.Warnings[warned:] { // (its warnings are into its script too)
				f.Attach(w)
			}
		}()
	}
	var mains []*Branch
	for _, sel := range rel.Selects {
		b, err := p.PlanSelect(sel)
		if err != nil {
			return nil, err
		}
		if b.Sink != nil {
			return nil, parser.Errorf(b.SinkPos, "a %s cannot write to a stream: INSERT INTO stands in the outermost query", kind)
		}
		mains = append(mains, b)
	}
	if len(mains) > 1 {
		kind = "UNION ALL"
		if err := unionTypes(mains, rel.Selects, rel.Distinct); err != nil {
			return nil, err
		}
	}
	cols := append([]catalog.Column(nil), mains[0].Columns...)
	d := &plan.Derived{Kind: kind, Name: name, Union: rel.Union, TimeCol: -1, WindowStart: -1, WindowEnd: -1}
	bounded := true
	var times []partTime
	for _, b := range mains {
		j, err := NewJob(b.Stream, branches, b, src)
		if err != nil {
			return nil, err
		}
		for _, s := range j.Streams() {
			bounded = bounded && s.Bounded()
		}
		d.Parts = append(d.Parts, j)
		times = append(times, timeOfPart(j))
	}
	// the relation's event time: the parts' when they agree
	t := times[0]
	stamps, streamWms, split, versions := t.stamps, t.streamWms, t.split, t.versions
	for _, o := range times[1:] {
		t = unionTime(t, o)
		stamps = stamps && o.stamps
		versions = versions || o.versions
		streamWms = streamWms || o.streamWms
		split = split && o.split
	}
	switch {
	case len(times) > 1 && streamWms && split:
		// (parts over files only, which `streamql test --shuffle` may
		// split: the union keeps the least of its parts' stamps, as it
		// did before such files carried the stream's watermarks)
		streamWms = false
	case len(times) > 1 && streamWms:
		// (a union's rows carry the least of its parts' watermarks, which a
		// part whose rows carry their partitions' watermarks has not:
		// its reader computes its watermark over the union's rows)
		stamps, streamWms = false, false
	}
	if len(times) > 1 {
		t.start, t.end, t.win = -1, -1, nil // (a union is no window aggregate's output)
	}
	d.ProcTime = procTimeCols(d.Parts)
	st = &catalog.Stream{Name: name, Columns: cols, EventTime: -1, Connector: plan.DerivedConnector,
		Options: map[string]string{"bounded": fmt.Sprint(bounded)}, Derived: d}
	if len(mains) == 1 {
		st.PrimaryKey, d.KeepsKeys = upsertKeyOf(d.Parts[0])
	}
	if t.col >= 0 && t.wm != nil {
		d.TimeCol, d.Watermark = t.col, t.wm
		d.WindowStart, d.WindowEnd, d.Window = t.start, t.end, t.win
		d.Stamps, d.StreamWatermarks = stamps, stamps && streamWms
		d.SplitFiles = d.StreamWatermarks && split
		d.VersionTime = versions
		st.EventTime = t.col
		st.Watermark = &catalog.Watermark{Text: t.wm.Text, Def: t.wm}
	}
	return st, nil
}

// upsertKeyOf returns the names of the columns that key the rows of job
// j's main output, one row per key (SPEC 2.8's upsert key; a derived
// relation's PRIMARY KEY, so that a temporal join may version it, SPEC
// 2.7): the PARTITION BY columns of a ROW_NUMBER Top-N keeping one row
// (deduplication keeping the last row), or the upsert key of an output
// over an updating GROUP BY (Output.UpsertKey, through a Top-N over it),
// each selected as it is; nil otherwise (a relation that passes a CDC
// stream's changes on, or a Top-N's (partition, rank) key, is no
// versioned relation here, as Flink versions only upsert sources and
// deduplicating views). keeps reports the
// deduplication over an append-only input, whose -D rows never remove a
// key (plan.Derived.KeepsKeys).
func upsertKeyOf(j *Job) (names []string, keeps bool) {
	if j.Main == nil || len(j.Outputs) == 0 {
		return nil, false
	}
	var cols []int
	out := j.Outputs[0]
	switch r := j.Main.Rank; {
	case r != nil && r.Kind == plan.RankTopN && r.Func == plan.RankRowNumber && r.N == 1 && len(r.Keys) > 0:
		if cols = outputCols(j.Main, r.Keys); cols == nil {
			return nil, false
		}
		keeps = !readsChanges(j.Stream) && j.Both == nil
	case out.UpsertKey != nil && j.Main.Agg != nil:
		cols = out.UpsertKey
	default:
		return nil, false
	}
	for _, c := range cols {
		names = append(names, out.Columns[c].Name)
	}
	return names, keeps
}

// unionTypes checks that the parts of a UNION ALL have one column count and
// types, widening a BIGINT column to DOUBLE where another part has DOUBLE
// (SPEC 2.6), and ARRAY, MAP and ROW columns to their common type
// (catalog.LeastRestrictive: a ROW's field names are the first part's, as
// Flink's); the names are the first part's. distinct: the parts of a UNION
// (without ALL), which the messages name as written.
func unionTypes(parts []*Branch, sels []*parser.Select, distinct bool) error {
	first := parts[0]
	union := "UNION ALL"
	if distinct {
		union = "UNION"
	}
	for k, b := range parts[1:] {
		if len(b.Columns) != len(first.Columns) {
			return parser.Errorf(sels[k+1].Start, "%s of queries with %d and %d columns (query %d): every query gives the same columns", union, len(first.Columns), len(b.Columns), k+2)
		}
	}
	for c := range first.Columns {
		t := first.Columns[c].Type
		for k, b := range parts {
			u := b.Columns[c].Type
			if w, ok := catalog.LeastRestrictive(t, u); ok {
				t = w
			} else {
				return parser.Errorf(sels[k].Start, "%s: column %d (%s) is %s in the first query but %s in query %d: CAST one of them", union, c+1, first.Columns[c].Name, t, u, k+1)
			}
		}
		for _, b := range parts {
			if b.Columns[c].Type != t {
				e := b.Project[c]
				b.Project[c] = &Expr{Op: plan.OpCast, Type: t, Args: []*Expr{e}, Text: e.Text}
				b.Columns[c].Type = t
			}
		}
	}
	return nil
}

// partTime is the event time of a part's output: its column (-1 none), its
// watermark over the output batch, and the window bounds' columns (-1 none)
// with their window; stamps: the part gives its stream's rows one by one
// (a projection and filter), each with the stream's watermark before it
// (plan.Derived.Stamps); streamWms: those stamps are the rows' (Kafka or
// split file) partitions' watermarks, and the stream's own come beside them
// (plan.Derived.StreamWatermarks); split: streamWms only because the
// stream is a file that `streamql test --shuffle` may split into partitions
// (plan.Derived.SplitFiles).
type partTime struct {
	col        int
	wm         *Expr
	start, end int
	win        *Window
	stamps     bool
	streamWms  bool
	split      bool
	// versions: the time is kept only for a temporal join's versions
	// (plan.Derived.VersionTime)
	versions bool
}

// timeOfPart finds the event time of job j's main output (SPEC 2.6): a
// projected WATERMARK FOR column keeps its stream's watermark (every column
// the WATERMARK expression reads must be projected as it is); a window
// aggregate's window_time, else window_end, else window_start (TUMBLE and
// HOP, whose starts come in the order of their ends) is event time, and its
// rows come in window order, so the watermark is the column itself.
//
// A Top-N and an ORDER BY of a bounded input (plan.RankTopN,
// plan.RankSort) give none: their rows are
// their input's, emitted when the operator decides them (at the end of a
// bounded input, or as changes of an unbounded one), in rank order, so far
// behind the input's watermark with nothing late about them; a join or
// window that read them by event time would call them late (SPEC 2.7: a
// join input's late row is below its own stream's watermark). As in Flink,
// whose Top-N output loses its time attribute (only a deduplication on the
// event time, keeping the first or the last row, a window Top-N, an OVER
// aggregation and a sort on the time attribute keep it: rankKeepsTime), a
// reader plans such a
// relation as one without event time (SPEC 2.7's table: a lookup or
// regular join).
func timeOfPart(j *Job) partTime {
	t := partTime{col: -1, start: -1, end: -1}
	m := j.Main
	if m.Rank != nil && !rankKeepsTime(m.Rank) {
		return t
	}
	// (a deduplication keeping the last row, or a relation over one: its
	// time is for a temporal join's versions only, plan.Derived.VersionTime)
	t.versions = m.Rank != nil && m.Rank.Kind == plan.RankTopN
	if d := plan.DerivedOf(j.Stream); d != nil && d.VersionTime && m.Rank == nil && m.Agg == nil {
		t.versions = true
	}
	if a := m.Agg; a != nil {
		if a.Window != nil && !a.Grouped && a.Window.Of == nil {
			return timeOfTVF(j)
		}
		if a.Window == nil || !a.Grouped {
			return t
		}
		w := a.Window
		var d *plan.Derived
		if w.Of != nil {
			d = plan.DerivedOf(j.Stream)
			w = w.Of
		}
		wcol := [3]int{-1, -1, -1} // window_start, window_end, window_time among the outputs
		for i, e := range m.Project {
			if e.Op != plan.OpCol {
				continue
			}
			k := e.Col
			if d != nil { // a cascaded aggregate: its keys hold the input's window bounds
				k = -1
				if kk := e.Col - a.KeyBase; kk >= 0 && kk < len(a.Keys) && a.Keys[kk].Op == plan.OpCol {
					switch a.Keys[kk].Col {
					case d.WindowStart:
						k = 0
					case d.WindowEnd:
						k = 1
					}
				}
			}
			if k >= 0 && k < 3 && wcol[k] < 0 {
				wcol[k] = i
			}
		}
		t.start, t.end, t.win = wcol[0], wcol[1], w
		switch {
		case wcol[2] >= 0:
			t.col = wcol[2]
		case wcol[1] >= 0:
			t.col = wcol[1]
		case wcol[0] >= 0 && (w.Func == "TUMBLE" || w.Func == "HOP"):
			t.col = wcol[0]
		}
		if t.col >= 0 {
			c := m.Columns[t.col]
			t.wm = &Expr{Op: plan.OpCol, Type: c.Type, Col: t.col, Text: c.Name}
		}
		return t
	}
	st := j.Stream
	// a projection of the stream: its columns as they are, by output index
	out := map[int]int{}
	for i, e := range m.Project {
		if e.Op == plan.OpCol {
			if _, ok := out[e.Col]; !ok {
				out[e.Col] = i
			}
		}
	}
	if j.Both != nil { // a join's output time (SPEC 2.7: its left input's, a RIGHT interval join's right input's, held back by the interval)
		return joinTimeOfPart(j, out, t)
	}
	if st.Watermark == nil || j.Watermark == nil {
		return t
	}
	col, ok := out[st.EventTime]
	if !ok || col >= len(m.Columns) { // (a column the query computes but does not output: a Top-N's order columns, an OVER's time)
		return t
	}
	wm, ok := remapCols(j.Watermark, out)
	if !ok {
		return t
	}
	wm.Text = st.Watermark.Text
	if name := st.Columns[st.EventTime].Name; !strings.EqualFold(name, m.Columns[col].Name) {
		wm.Text = m.Columns[col].Name + " (" + name + " of " + st.Name + ": " + st.Watermark.Text + ")"
	}
	t.col, t.wm = col, wm
	t.stamps, t.streamWms, t.split = stampsOf(st, m, false)
	return t
}

// rankKeepsTime says whether the output of the SPEC 2.9 operator r keeps
// its input's event time for the relation's readers (timeOfPart): yes for
// the append-only operators whose rows come out as the watermark passes
// them (a deduplication keeping the first row by event time, a window
// Top-N at its window's firing, an OVER aggregation, an ORDER BY the event
// time), as Flink keeps the time attribute of those, and for a
// deduplication keeping the last row by event time (updating; Flink keeps
// its time attribute too, which makes it a versioned view for a temporal
// join, SPEC 2.7); no for any other Top-N (Flink's Rank loses the time
// attribute; also the last row by processing time, whose NewerFirst has no
// event time: Time -1) and an ORDER BY other columns of a bounded input (its
// rows in sort order, not time order).
func rankKeepsTime(r *plan.Rank) bool {
	switch r.Kind {
	case plan.RankTopN:
		return r.NewerFirst && r.Time >= 0
	case plan.RankSort:
		return false
	}
	return true
}

// stampsOf says whether the rows of a part that reads st with main query m
// and keeps its event time carry their input's watermark
// (plan.Derived.Stamps; SPEC 2.6: event time keeps its watermark through
// projections, filters, unions and joins): yes for a projection and
// filter, a CROSS JOIN UNNEST (over the unnested rows, whose watermark its
// job computes, as over the UNNEST written inline) and a window TVF
// without aggregation (tvf: each windowed row its input row's, SPEC 2.4).
// stream: the input stream's watermark comes beside the stamps
// (plan.Derived.StreamWatermarks), for a window TVF (whose rows of one
// input row all carry the watermark before it, as Flink's windowing TVF
// forwards its input's watermark after them) and the rows of a Kafka
// stream (SPEC 2.5: the stamps are the partitions' watermarks; windows
// fire by their minimum) or of such a relation; it is taken from the
// job's watermark marks, which the rows an event-time semi or anti join
// releases do not have, so there the reader keeps its own watermark over
// the rows, as before. A file stream with a WATERMARK that the source hook
// of `streamql test --shuffle` may split into partitions of its own (SPEC
// 2.5, mayBeSplit) is planned as a Kafka stream is, so that a window over
// the relation has the late rows of the same window over the stream
// however the file is split; split reports that case (its stream's
// watermarks are then the stamps themselves when it is not split, and a
// UNION ALL of such parts keeps the parts' stamps, plan.Derived.SplitFiles).
//
// A Top-N or deduplication (SPEC 2.9) carries none: its reader computes
// its watermark over the rows it emits (each change's time less the
// delay), as before. Flink's rank operator forwards its input's watermark
// after the changes a row made, but here the changes of a batch are
// emitted together after its last row (executor/rank's emit), so the row
// that made a change is not known, and stamping them with the batch's
// last row's watermark would make CURRENT_WATERMARK over them depend on
// batch sizes (SPEC 2.5's promise: the same rows whatever the
// interleaving). The Top-N's own late rows (a first-row deduplication,
// a window Top-N) are decided over its input's watermark, and a window
// over an updating Top-N is refused (SPEC 2.8, as Flink's window
// operators take append-only input only); over an append-only one (a
// first-row deduplication, whose rows come out as the watermark passes
// their time) the reader's watermark trails its input's.
func stampsOf(st *catalog.Stream, m *Branch, tvf bool) (stamps, stream, split bool) {
	if m.Rank != nil {
		return false, false, false
	}
	d := plan.DerivedOf(st)
	if st.Kafka() != nil || d != nil && d.StreamWatermarks || tvf || mayBeSplit(st) {
		split = !tvf && (mayBeSplit(st) || d != nil && d.SplitFiles)
		return m.Join == nil || !m.Join.EventTime(), true, split
	}
	return true, false, false
}

// mayBeSplit reports whether st is read from a bounded input of a known
// size (a file) with a WATERMARK, which the source hook of `streamql test
// --shuffle` reads as partitions of its own (cmd/streamql/cli/shuffle.go's
// variant.hook, SPEC 2.5: each row then carries its partition's watermark).
func mayBeSplit(st *catalog.Stream) bool {
	return st.Watermark != nil && plan.DerivedOf(st) == nil && st.SizedBounded()
}

// unionTime is the event time of a UNION ALL of parts with the event times
// t and o (SPEC 2.6: a union keeps its inputs' event time, with the minimum
// of their watermarks): t when they agree; when both are one column's time
// held back by a constant delay (WATERMARK FOR ts AS ts - INTERVAL ..., or
// ts), the one with the larger delay, whose watermark over the union's rows
// (given in event-time order, executor/derived.go) is the lesser; no event
// time otherwise. When every part filters a stream row by row, its rows also
// carry the least of the parts' own watermarks, which the reader's watermark
// is at least (plan.Derived.Stamps).
func unionTime(t, o partTime) partTime {
	none := partTime{col: -1, start: -1, end: -1}
	switch {
	case o.col != t.col || o.wm == nil || t.wm == nil:
		return none
	case o.wm.Text == t.wm.Text:
		return t
	}
	delay := func(wm *Expr) (int64, bool) {
		switch {
		case wm.Op == plan.OpCol && wm.Col == t.col:
			return 0, true
		case wm.Op == plan.OpAddInterval && len(wm.Args) == 1 && wm.Args[0].Op == plan.OpCol && wm.Args[0].Col == t.col:
			return -wm.Param, true
		}
		return 0, false
	}
	dt, ok1 := delay(t.wm)
	do, ok2 := delay(o.wm)
	switch {
	case !ok1 || !ok2:
		return none
	case do > dt:
		return o
	}
	return t
}

// timeOfTVF finds the event time of job j's main output when it is a window
// TVF without aggregation (SPEC 2.4: each row as it arrives, once per
// window, with window_start, window_end and window_time appended): as in
// Flink, window_time (else window_end) is its time column, and the stream's
// watermark carries over, over its columns projected as they are (a row on
// time in the stream has window_time >= its time >= the watermark). With
// window_start and window_end among the outputs the relation gives its
// window's rows (plan.Derived.Windowed): a join of two on both is a window
// join (SPEC 2.7), a GROUP BY of both a window aggregate.
func timeOfTVF(j *Job) partTime {
	t := partTime{col: -1, start: -1, end: -1}
	m, st, a := j.Main, j.Stream, j.Main.Agg
	if st.Watermark == nil || j.Watermark == nil || st.EventTime < 0 || st.EventTime != a.Window.TimeCol {
		return t
	}
	out := map[int]int{}       // the stream's columns projected as they are, by output index
	wcol := [3]int{-1, -1, -1} // window_start, window_end, window_time among the outputs
	for i, e := range m.Project {
		if e.Op != plan.OpCol || i >= len(m.Columns) {
			continue
		}
		if k := e.Col - a.WindowBase; k >= 0 && k < 3 {
			if wcol[k] < 0 {
				wcol[k] = i
			}
		} else if _, ok := out[e.Col]; !ok && e.Col < a.WindowBase {
			out[e.Col] = i
		}
	}
	wm, ok := remapCols(j.Watermark, out)
	if !ok {
		return t
	}
	switch {
	case wcol[2] >= 0:
		t.col = wcol[2]
	case wcol[1] >= 0:
		t.col = wcol[1]
	default:
		return t
	}
	name := st.Columns[st.EventTime].Name
	wm.Text = m.Columns[t.col].Name + " (the watermark of " + name + " of " + st.Name + ": " + st.Watermark.Text + ")"
	t.wm, t.start, t.end, t.win = wm, wcol[0], wcol[1], a.Window
	t.stamps, t.streamWms, _ = stampsOf(st, m, true)
	return t
}

// joinTimeOfPart is timeOfPart for a job that reads a join of two streams
// (j.Both): the join's output time (plan.BothJoin.OutputTime), when the
// query projects that column as it is, with the watermark (the column less
// the join's delay) over the output; out maps the joined layout's columns
// to the outputs that project them.
//
// Its rows carry no watermark stamps (plan.Derived.Stamps): the join
// releases its rows in event-time order (SPEC 2.7's determinism), each
// once the other side's watermark passed it, and a row is late for the
// join by its own input's watermark; its output watermark, as Flink's
// interval join's, is the least of its inputs' held back by the delay, which
// no released row is below. The reader's watermark over the rows (their
// time less the delay) is at most that and is never above a later row's
// time less the delay either, so a window over the relation finds no row
// late either way and holds the same rows; only when it fires differs
// (later, when the join drops rows without a partner).
func joinTimeOfPart(j *Job, out map[int]int, t partTime) partTime {
	lt, delay, ok := j.Both.OutputTime()
	if !ok || len(j.Main.Project) == 0 {
		return t
	}
	col, ok := out[lt]
	if !ok || col >= len(j.Main.Columns) {
		return t
	}
	c := j.Main.Columns[col]
	wm := &Expr{Op: plan.OpCol, Type: c.Type, Col: col, Text: c.Name}
	if delay > 0 {
		wm = &Expr{Op: plan.OpAddInterval, Type: c.Type, Args: []*Expr{wm}, Param: -delay, Col: -1,
			Text: c.Name + " - " + intervalText(delay)}
	}
	wm.Text += " (the " + j.Both.Kind() + "'s output time: " + j.Both.OutputTimeName() + ")"
	t.col, t.wm = col, wm
	return t
}

// intervalText writes ms milliseconds as an INTERVAL literal in its largest
// whole unit (INTERVAL '5' SECOND, INTERVAL '1500' MILLISECOND).
func intervalText(ms int64) string {
	n, u := plan.WholeUnit(ms)
	return fmt.Sprintf("INTERVAL '%d' %s", n, u.SQL)
}

// procTimeCols returns the output columns that are processing time in
// every part (SPEC 2.10, Flink's proctime attribute): PROCTIME() as it is,
// or a processing-time column of the relation a part reads (a computed
// column `AS PROCTIME()`, or a view's), projected as it is. A part that aggregates or joins gives none (its rows are not read when
// they are made, so its PROCTIME() is no longer the time a row arrived).
func procTimeCols(parts []*Job) []int {
	var cols []int
	for k, j := range parts {
		m := j.Main
		var mine []int
		if m != nil && m.Agg == nil && j.Both == nil && m.Join == nil {
			for i, e := range m.Project {
				if e.Op == plan.OpFunc && strings.EqualFold(e.Fn, "PROCTIME") ||
					e.Op == plan.OpCol && plan.IsProcTime(j.Stream, e.Col) {
					mine = append(mine, i)
				}
			}
		}
		if k == 0 {
			cols = mine
			continue
		}
		var both []int
		for _, c := range cols {
			if slices.Contains(mine, c) {
				both = append(both, c)
			}
		}
		cols = both
	}
	return cols
}

// remapCols returns a copy of e whose column references go to the columns
// out maps them to; false when e reads a column out does not map.
func remapCols(e *Expr, out map[int]int) (*Expr, bool) {
	if e == nil {
		return nil, true
	}
	c := *e
	if e.Op == plan.OpCol {
		k, ok := out[e.Col]
		if !ok {
			return nil, false
		}
		c.Col = k
	}
	if e.Op == plan.OpCurrentWatermark {
		return nil, false
	}
	c.Args = nil
	for _, a := range e.Args {
		x, ok := remapCols(a, out)
		if !ok {
			return nil, false
		}
		c.Args = append(c.Args, x)
	}
	return &c, true
}

// cascadeWindow returns the window of a GROUP BY over a relation that gives
// a window aggregate's rows when the keys hold both its window_start and its
// window_end columns (Flink's cascading window aggregation, SPEC 2.6): its
// groups are the input's windows, fired when the watermark passes their
// end; nil otherwise.
func cascadeWindow(sp *selectPlan) *Window {
	d := plan.DerivedOf(sp.st)
	if d == nil || !d.Windowed() || d.TimeCol < 0 || sp.q.GroupBy == nil {
		return nil
	}
	var start, end bool
	for _, it := range sp.q.GroupBy.Items {
		cn, ok := it.Expr.(*ast.ColumnNameExpr)
		if !ok {
			continue
		}
		idx, _, err := sp.sc.column(cn)
		if err != nil {
			continue
		}
		start = start || idx == d.WindowStart
		end = end || idx == d.WindowEnd
	}
	if !start || !end {
		return nil
	}
	tc := sp.st.Columns[d.TimeCol]
	// a 1 ms TUMBLE on the time column fires a window's rows once the
	// watermark passes it; the keys keep the input's windows apart
	return &Window{Func: "TUMBLE", Size: 1, Slide: 1, TimeCol: d.TimeCol, TimeType: tc.Type, TimeName: tc.Name, Of: d.Window,
		Text: "the windows of " + sp.name}
}

// ruleDerivedJob gives the outputs of the jobs of the derived relations job
// reads (its stream, a join's inputs) a place among job's outputs (SPEC 2.6:
// their late rows are the job's): an output of the same name and columns is
// shared; a name taken with other columns gets, as a suffix, the name the
// job reads the relation by (late-<alias or relation name>, as SPEC 2.7
// names a join's late outputs; readAs), or, for a subquery or UNION ALL
// read without an alias, the name its part reads its own input by (the
// part's stream name or alias, late-p for a part over stream p, as a join
// input's default late-<alias> is made), not the placeholder "subquery"
// no query writes (unaliasedName).
func ruleDerivedJob(j *Job) {
	for _, st := range j.Streams() {
		d := plan.DerivedOf(st)
		if d == nil {
			continue
		}
		rel := readAs(j, st)
		for _, part := range d.Parts {
			rel := rel
			if d.Name == unaliasedName && strings.EqualFold(rel, unaliasedName) && part.Stream != nil {
				rel = readAs(part, part.Stream)
			}
			if j.DerivedOutputs == nil {
				j.DerivedOutputs = map[*Job][]int{}
			}
			if _, ok := j.DerivedOutputs[part]; ok {
				continue
			}
			m := make([]int, len(part.Outputs))
			for k, o := range part.Outputs {
				if k == 0 && part.Main != nil {
					m[k] = -1
					continue
				}
				m[k] = derivedOutput(j, o, rel)
			}
			j.DerivedOutputs[part] = m
		}
	}
}

// readAs returns the name job j reads the derived relation st by: the
// alias its FROM gives it (a join's input, the stream of the main query or
// a side branch, a SEMI or ANTI JOIN's build side), else the relation's own name (a view's or
// WITH name's; "subquery" for a subquery without an alias).
func readAs(j *Job, st *catalog.Stream) string {
	if j.Both != nil {
		for _, in := range j.Both.Inputs {
			if in.Stream == st && in.Name != "" {
				return in.Name
			}
		}
	}
	for _, b := range append([]*Branch{j.Main}, j.Branches...) { // (the main query's name first)
		if b == nil {
			continue
		}
		if b.Stream == st && b.From != "" {
			return b.From
		}
		if b.Join != nil && b.Join.Build == st && b.Join.BuildName != "" {
			return b.Join.BuildName
		}
	}
	return st.Name
}

// derivedOutput returns the index in j.Outputs of the output o of a derived
// relation's job, adding it when j has none of its name and columns. A name
// j has with other columns is taken, and o gets late-<rel>, then a number
// (SPEC 2.7's late-<alias or stream name>), except by a join's default late
// output for an input none of whose rows can be late (unusedLate): it
// never gets a row, EXPLAIN shows no Sink for it, so its name is free.
func derivedOutput(j *Job, o Output, rel string) int {
	name := o.Name
	for n := 0; ; n++ {
		taken := false
		for k, x := range j.Outputs {
			if x.Name != name || j.Main != nil && k == 0 {
				continue
			}
			if sameSchema(x.Columns, o.Columns) && x.Late == o.Late && x.Sink == o.Sink {
				return k
			}
			if unusedLate(j, k) {
				continue
			}
			taken = true
		}
		if !taken {
			break
		}
		name = o.Name + "-" + rel
		if n > 0 {
			name = fmt.Sprintf("%s-%s%d", o.Name, rel, n)
		}
	}
	o.Name = name
	j.Outputs = append(j.Outputs, o)
	return len(j.Outputs) - 1
}

// unusedLate reports whether output k of j is the default late output
// (late-<alias>, not named by LATE INTO SIDE) of an input of j's join none
// of whose rows can be late (plan.BothJoin.NoLateRows: a window aggregate's
// rows, a table read whole, an input without event time).
func unusedLate(j *Job, k int) bool {
	if j.Both == nil {
		return false
	}
	for s, lk := range j.Both.LateOutput {
		if lk == k && !j.Both.LateNamed[s] && j.Both.NoLateRows(s) != "" {
			return true
		}
	}
	return false
}

// updatingWhy names what makes the relation st updating (SPEC 2.8), for the
// error of a reader that cannot take its changes: a stream's changelog
// format or connector, or a derived relation's first updating part's reason
// (updatingPart).
func updatingWhy(st *catalog.Stream) string {
	if why := st.Updating(); why != "" { // (a changelog stream: its format or connector)
		return why
	}
	if d := plan.DerivedOf(st); d != nil {
		for _, j := range d.Parts {
			if j.Main != nil && len(j.Outputs) > 0 && j.Outputs[0].Updating {
				return updatingPart(j, j.Main)
			}
		}
	}
	return "its rows carry -U/+U/-D changes"
}

// updatingPart names what makes the main query b of job j updating (SPEC
// 2.8), for the error of a relation that cannot be read.
func updatingPart(j *Job, b *Branch) string {
	switch {
	case b.Agg != nil && b.Agg.Updating:
		return "its GROUP BY without a window emits -U/+U changes"
	case b.Rank != nil && b.Rank.Updating && !b.Rank.Bounded:
		return "its Top-N emits changes as rows enter and leave the top"
	case j.Both != nil && (j.Both.Changes[0] || j.Both.Changes[1]):
		return fmt.Sprintf("its regular %s JOIN reads an updating input and retracts the rows it joined", j.Both.Type)
	case j.Both != nil && j.Both.Updating():
		return fmt.Sprintf("its regular %s JOIN retracts padded rows", j.Both.Type)
	case j.Stream != nil && j.Stream.Updating() != "":
		return "it reads stream " + j.Stream.Name + ", which is updating (" + j.Stream.Updating() + ")"
	}
	return "its result changes"
}

// addWatermarkHint says how relation st gets event time, for an error whose
// query needs it (col names the column to suggest; "" for a placeholder):
// a declared stream's WATERMARK FOR; for a subquery, WITH name, view or
// UNION ALL (SPEC 2.6), which has no WATERMARK FOR of its own, what keeps
// its input's event time.
// relationText names derived relation st (of d) in a message: "the
// subquery", "WITH name w", "view v", or "the" and its kind.
func relationText(st *catalog.Stream, d *plan.Derived) string {
	what := map[string]string{"subquery": "the subquery", "WITH": "WITH name " + st.Name, "view": "view " + st.Name}[d.Kind]
	if what == "" {
		what = "the " + d.Kind
	}
	return what
}

func addWatermarkHint(st *catalog.Stream, col string) string {
	if col == "" {
		col = "<time column>"
	}
	d := plan.DerivedOf(st)
	if d == nil {
		return fmt.Sprintf("add WATERMARK FOR %s AS %s - INTERVAL '5' SECOND to CREATE STREAM %s", col, col, st.Name)
	}
	what := relationText(st, d)
	return fmt.Sprintf("%s has no event time of its own (SPEC 2.6): it keeps its input's when it selects the input's WATERMARK FOR column as it is (and the columns its WATERMARK reads), or a window's window_start, window_end or window_time; a regular join's rows have none, nor do a FULL join's (an INNER or LEFT interval, window, lookup or temporal join keeps its left input's time column, a RIGHT interval or window join its right input's), nor a Top-N's (but a deduplication's on the event time) or a bounded input's ORDER BY (Flink's Top-N loses its time attribute)", what)
}
