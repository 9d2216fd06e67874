package planner

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner/plan"
)

// ruleSink binds the sink stream of INSERT INTO s SELECT (the main query) or
// SELECT ... INTO STREAM s (a side branch named s) and checks the query's
// columns against the sink's by position (SPEC 2.5): the count must be equal
// and each type the same, except that a BIGINT may go to a DOUBLE column (it
// is cast) and a bare NULL (of no type) to a column of any type. The branch then has the sink's columns. It also resolves the
// dead-letter stream ('errors.stream') of each stream the query reads. Errors
// are *parser.Error at the sink's name or at the offending select field.
func ruleSink(sp *selectPlan) error {
	if err := ruleDeadLetters(sp); err != nil {
		return err
	}
	sel, b := sp.sel, sp.b
	name, pos, what := sel.Insert, sel.InsertPos, "INSERT INTO "
	if sel.Stream != "" {
		name, pos, what = sel.Stream, sel.StreamPos, "INTO STREAM "
		b.Side, b.SidePos = sel.Stream, sel.StreamPos
	}
	if name == "" {
		return nil
	}
	st, err := sp.p.sinkStream(name, pos)
	if err != nil {
		return err
	}
	what += st.Name
	if st == sp.st || sp.j != nil && st == sp.j.Build {
		return parser.Errorf(pos, "stream %s cannot be both a sink and a source of one job; write into another stream", st.Name)
	}
	st = st.Physical() // a sink writes the columns its connector holds, not computed ones (as in Flink)
	if err := sinkColumns(sp, st); err != nil {
		return err
	}
	if st.OpColumn() && sel.InsertColumns == nil && len(b.Columns) == len(st.Columns)-1 {
		// the op column (SPEC 2.8): the sink writes each row's kind there
		op := nullExpr(catalog.Varchar)
		op.Text = "op (the row's kind)"
		b.Project = append([]*Expr{op}, b.Project...)
		b.Columns = append([]catalog.Column{st.Columns[0]}, b.Columns...)
		if len(sp.fieldOf) > 0 {
			sp.fieldOf = append([]ast.Node{nil}, sp.fieldOf...)
		}
	}
	if len(b.Columns) != len(st.Columns) {
		return parser.Errorf(pos, "%s: the query gives %d column(s) %s but %s has %d %s; select one value per column of %s, in its order",
			what, len(b.Columns), plan.SchemaText(b.Columns), st.Name, len(st.Columns), plan.SchemaText(st.Columns), st.Name)
	}
	for i, c := range st.Columns {
		got := b.Columns[i]
		if got.Type == c.Type {
			continue
		}
		if sp.untyped[b.Project[i]] { // a bare NULL fits any column (SPEC 2: NULL has no type of its own)
			n := nullExpr(c.Type)
			inheritText(n, b.Project[i])
			b.Project[i] = n
			continue
		}
		if got.Type == catalog.BigInt && c.Type == catalog.Double {
			b.Project[i] = castTo(b.Project[i], catalog.Double)
			continue
		}
		if t, ok := catalog.LeastRestrictive(c.Type, got.Type); ok && t == c.Type && c.Type.IsNested() {
			// (an ARRAY, MAP or ROW value whose ROW field names or BIGINT
			// parts differ from the column's: ROW(a, b) into ROW<x, y>, as Flink)
			b.Project[i] = castTo(b.Project[i], c.Type)
			continue
		}
		at := pos
		if i < len(sp.fieldOf) && sp.fieldOf[i] != nil {
			at = sp.pos(sp.fieldOf[i])
		}
		return parser.Errorf(at, "%s: column %d (%s) is %s but %s.%s is %s; write CAST(%s AS %s)",
			what, i+1, got.Name, got.Type, st.Name, c.Name, c.Type, got.Name, c.Type)
	}
	if upd := updatingResult(sp); upd != "" && !st.TakesChanges() {
		return parser.Errorf(pos, "%s: the query's result is updating (%s emits -U/+U/-D changes, SPEC 2.8), and stream %s (connector '%s', format '%s') accepts only inserts: write it to a stream with 'format'='debezium-json', to a csv or json file stream whose first column is op VARCHAR (each row's kind), or with 'connector'='upsert-kafka' and a PRIMARY KEY (...) NOT ENFORCED, or show it on stdout or in --side-dir, whose outputs carry the change in an op column",
			what, upd, st.Name, st.Connector.Name, st.Shared().Format)
	}
	b.Columns = append([]catalog.Column(nil), st.Columns...)
	b.Sink, b.SinkPos = st, pos
	return nil
}

// sinkStream looks up the sink stream name (at offset pos) and checks that its
// connector can write (SPEC 2.5).
func (p *Planner) sinkStream(name string, pos int) (*catalog.Stream, error) {
	st := p.Cat.Lookup(name)
	if st == nil {
		return nil, parser.Errorf(pos, "unknown sink stream '%s'; %s", name, p.streamList())
	}
	if !st.Connector.Writes {
		return nil, parser.Errorf(pos, "stream %s cannot be a sink: its connector '%s' only reads; connectors that can write: %s",
			st.Name, st.Connector.Name, strings.Join(catalog.WriterNames(), ", "))
	}
	if f := catalog.LookupFormat(st.Shared().Format); f != nil && !f.Writes { // SPEC 2.8: canal-json, maxwell-json
		return nil, parser.Errorf(pos, "stream %s cannot be a sink: its format '%s' is read only; formats a sink writes: %s",
			st.Name, f.Name, strings.Join(catalog.WritableFormats(), ", "))
	}
	return st, nil
}

// deadLetterColumns are the columns a dead-letter sink stream must have (SPEC 2.5).
var deadLetterColumns = []string{"stream", "position", "raw", "error"}

// ruleDeadLetters resolves 'errors.stream' of the streams the query reads (its
// FROM stream, its semi join's build side, and a join's two inputs, SPEC
// 2.7) into Branch.DeadLetters: the stream must be a sink with four VARCHAR
// columns stream, position, raw, error. (A join's inputs were left out: their
// malformed rows went to the errors side output while the end-of-job notice
// named the dead-letter stream, which was never opened.)
func ruleDeadLetters(sp *selectPlan) error {
	read := []*catalog.Stream{sp.st}
	if sp.j != nil {
		read = append(read, sp.j.Build)
	}
	if sp.both != nil {
		for _, in := range sp.both.Inputs {
			if !slices.Contains(read, in.Stream) {
				read = append(read, in.Stream)
			}
		}
	}
	for _, r := range read {
		rc := r.Shared()
		name := rc.ErrorsStream
		if name == "" || rc.Errors != "side" {
			continue
		}
		dlq, err := sp.p.sinkStream(name, sp.start)
		if err != nil {
			var pe *parser.Error
			if errors.As(err, &pe) {
				pe.Msg = fmt.Sprintf("stream %s has 'errors.stream' = '%s': %s", r.Name, name, pe.Msg)
			}
			return err
		}
		for _, x := range read {
			if dlq == x {
				return parser.Errorf(sp.start, "stream %s is the dead-letter stream of %s ('errors.stream') and a source of this query; use another stream for the dead letters", dlq.Name, r.Name)
			}
		}
		ok := len(dlq.Columns) == len(deadLetterColumns)
		for i := 0; ok && i < len(dlq.Columns); i++ {
			ok = dlq.Columns[i].Type == catalog.Varchar && strings.EqualFold(dlq.Columns[i].Name, deadLetterColumns[i])
		}
		if !ok {
			return parser.Errorf(sp.start, "stream %s has 'errors.stream' = '%s', but a dead-letter stream has the columns (stream VARCHAR, position VARCHAR, raw VARCHAR, error VARCHAR), and %s has %s; declare it so",
				r.Name, name, dlq.Name, plan.SchemaText(dlq.Columns))
		}
		if sp.b.DeadLetters == nil {
			sp.b.DeadLetters = map[*catalog.Stream]*catalog.Stream{}
		}
		sp.b.DeadLetters[r] = dlq
	}
	return nil
}

// ruleSinkJob checks that no sink stream of j (an output's or a dead-letter
// stream) is also a stream the job reads (SPEC 2.5), nor the file of another
// of its streams (CheckFiles), and gathers the job's dead-letter streams into
// j.DeadLetters.
func ruleSinkJob(j *Job) error {
	read := j.Streams()
	isRead := func(st *catalog.Stream) bool {
		for _, r := range read {
			if r == st || r.Physical() == st {
				return true
			}
		}
		return false
	}
	all := append(append([]*Branch{}, j.Branches...), j.Main)
	for _, b := range all {
		if b == nil {
			continue
		}
		if b.Sink != nil && isRead(b.Sink) {
			return parser.Errorf(b.SinkPos, "stream %s cannot be both a sink and a source of one job; write into another stream", b.Sink.Name)
		}
		for src, dlq := range b.DeadLetters {
			if isRead(dlq) {
				return parser.Errorf(b.SinkPos, "stream %s is the dead-letter stream of %s ('errors.stream') and a source of this job; use another stream for the dead letters", dlq.Name, src.Name)
			}
			if j.DeadLetters == nil {
				j.DeadLetters = map[*catalog.Stream]*catalog.Stream{}
			}
			j.DeadLetters[src] = dlq
		}
	}
	return CheckFiles(JobFiles(j))
}
