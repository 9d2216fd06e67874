package streamql

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"streamql/catalog"
	"streamql/executor"
	"streamql/executor/format"
	"streamql/executor/vector"
	"streamql/internal/session"
	"streamql/parser"
	"streamql/planner"
)

// OutputKind says what an output is.
type OutputKind int

// The kinds of Output.
const (
	// OutputMain is a job's main query ("main").
	OutputMain OutputKind = iota + 1
	// OutputSide is a side output: SELECT ... INTO SIDE 'name' (SPEC 2.1).
	OutputSide
	// OutputErrors is an errors side output: the malformed rows of a stream
	// with 'errors'='side' (SPEC 1), columns stream, position, raw, error.
	OutputErrors
	// OutputResult is the table of SHOW STREAMS, SHOW SIDES, DESCRIBE,
	// EXPLAIN or EXPLAIN ANALYZE (all columns VARCHAR; EXPLAIN ANALYZE's are
	// plan and analyze, SPEC 3).
	OutputResult
	// OutputLate is the default late output of windowed queries (SPEC 2.4):
	// the late rows, with their stream's columns.
	OutputLate
)

// String returns "main", "side", "errors" or "result".
func (k OutputKind) String() string {
	switch k {
	case OutputMain:
		return "main"
	case OutputSide:
		return "side"
	case OutputErrors:
		return "errors"
	case OutputLate:
		return "late"
	case OutputResult:
		return "result"
	}
	return fmt.Sprintf("OutputKind(%d)", int(k))
}

// Column is one column of an output: its name and SQL type (BIGINT, DOUBLE,
// VARCHAR, BOOLEAN, TIMESTAMP; SPEC 1).
type Column struct {
	Name string
	Type string
}

// Output names the output rows belong to: "main", the side name, the errors
// side output's name ('errors' unless 'errors.side' renames it), or "result"
// for the table of SHOW, DESCRIBE or EXPLAIN (the columns tell which).
//
// Updating says the output's rows are a changelog (SPEC 2.8: a regular outer
// join, an unbounded GROUP BY): each row has a change kind (Rows.Kind), and
// applying them in order (+I and +U add a row, -U and -D take back an equal
// one) gives the materialized result. UpsertKey are the indexes of the
// columns that identify a row of that result, nil when it has none.
type Output struct {
	Name      string
	Kind      OutputKind
	Columns   []Column
	Updating  bool
	UpsertKey []int
}

// Rows are rows of one output, given to Options.OnRows; valid only during the
// call. Value gives any column as a Go value; the typed getters allocate
// nothing. Row indexes run from 0 to Len()-1, columns as in Output.Columns.
type Rows struct {
	n     int
	sel   []int32          // job rows: the batch rows, in order
	cols  []*vector.Vec    // job rows: the output's columns, indexed by batch row
	types []catalog.Type   // job rows: the columns' types
	kinds []vector.RowKind // job rows: the change kinds, indexed by batch row (nil: inserts)
	errs  []executor.ErrorRow
	text  [][]string // result rows
}

// Len returns the number of rows.
func (r *Rows) Len() int { return r.n }

// Kind returns the change kind of row row as Flink prints it (SPEC 2.8):
// "+I" insert, "-U" the old row of an update, "+U" its new row, "-D"
// delete. Rows of an output that is not Updating are all "+I".
func (r *Rows) Kind(row int) string {
	if r.kinds == nil {
		return "+I"
	}
	return r.kinds[r.sel[row]].String()
}

// IsNull reports whether the value at column col of row row is NULL.
func (r *Rows) IsNull(col, row int) bool {
	if r.cols != nil {
		return r.cols[col].Null[r.sel[row]]
	}
	return false
}

// Value returns the value at column col of row row: nil for NULL, int64 for
// BIGINT, float64 for DOUBLE, string for VARCHAR, bool for BOOLEAN,
// time.Time (UTC) for TIMESTAMP, and json.RawMessage (its nested JSON, as
// the json format writes it) for ARRAY, MAP and ROW (SPEC 2.10). It panics
// for an index out of range.
func (r *Rows) Value(col, row int) any {
	if r.cols == nil {
		return r.String(col, row)
	}
	if r.IsNull(col, row) {
		return nil
	}
	switch r.types[col] {
	case catalog.BigInt:
		return r.Int64(col, row)
	case catalog.Double:
		return r.Float64(col, row)
	case catalog.Boolean:
		return r.Bool(col, row)
	case catalog.Timestamp:
		return r.Time(col, row)
	case catalog.Varchar:
		return r.String(col, row)
	}
	if t := r.types[col]; t.IsNested() {
		return json.RawMessage(format.AppendJSONValue(nil, t, r.cols[col], int(r.sel[row])))
	}
	return nil
}

// Int64 returns a BIGINT value, or a TIMESTAMP's epoch milliseconds; 0 for
// NULL (never the value a vector holds behind the NULL flag: an aggregate's
// output slot or a join's padding keeps whatever was there, as another
// group's MAX) and other types.
func (r *Rows) Int64(col, row int) int64 {
	if r.cols == nil || r.cols[col].I == nil || r.IsNull(col, row) {
		return 0
	}
	return r.cols[col].I[r.sel[row]]
}

// Float64 returns a DOUBLE value; 0 for NULL (as Int64) and other types.
func (r *Rows) Float64(col, row int) float64 {
	if r.cols == nil || r.cols[col].F == nil || r.IsNull(col, row) {
		return 0
	}
	return r.cols[col].F[r.sel[row]]
}

// Bool returns a BOOLEAN value; false for NULL (as Int64) and other types.
func (r *Rows) Bool(col, row int) bool {
	if r.cols == nil || r.cols[col].B == nil || r.IsNull(col, row) {
		return false
	}
	return r.cols[col].B[r.sel[row]]
}

// Time returns a TIMESTAMP value in UTC; the zero Time for NULL and other
// types.
func (r *Rows) Time(col, row int) time.Time {
	if r.cols == nil || r.types[col] != catalog.Timestamp || r.IsNull(col, row) {
		return time.Time{}
	}
	return time.UnixMilli(r.cols[col].I[r.sel[row]]).UTC()
}

// Bytes returns a VARCHAR value (of a job, an errors or a result row), without
// copying for a job's rows; nil for NULL (as Int64) and other types. The
// bytes are valid only during the OnRows call.
func (r *Rows) Bytes(col, row int) []byte {
	switch {
	case r.errs != nil:
		e := &r.errs[row]
		switch col {
		case 0:
			return []byte(e.Stream)
		case 1:
			return []byte(e.Position)
		case 2:
			return e.Raw
		case 3:
			return []byte(e.Error)
		}
		return nil
	case r.text != nil:
		return []byte(r.text[row][col])
	case r.IsNull(col, row):
		return nil
	case r.types[col].IsNested(): // as it prints (Flink's text, SPEC 2.10)
		return vector.AppendValue(nil, r.types[col], r.cols[col], int(r.sel[row]))
	case r.cols[col].S == nil:
		return nil
	}
	return r.cols[col].S[r.sel[row]]
}

// String returns a VARCHAR value (a copy); "" for NULL and other types.
func (r *Rows) String(col, row int) string {
	if r.text != nil {
		return r.text[row][col]
	}
	if r.errs != nil {
		e := &r.errs[row]
		switch col {
		case 0:
			return e.Stream
		case 1:
			return e.Position
		case 3:
			return e.Error
		}
	}
	return string(r.Bytes(col, row))
}

// frontend is the engine session's Frontend for the public API.
type frontend struct{ s *Session }

var _ session.Frontend = (*frontend)(nil)

// Set checks and keeps the command line's settings (SPEC 3) for
// Session.Setting: a bad value is the same positioned error as at the prompt
// (an unknown format, a timer that is not on/off, a side directory that cannot
// be created).
func (f *frontend) Set(st *parser.Set) (bool, error) {
	var typed session.Settings
	known, err := typed.Apply(st, session.Formats)
	if !known || err != nil {
		return known, err
	}
	f.s.mu.Lock()
	f.s.settings[st.Key] = st.Value
	f.s.mu.Unlock()
	return true, nil
}

// Document gives a statement's one document (EXPLAIN (FORMAT JSON), SPEC 4)
// to OnRows as an OutputResult of one row whose one column holds it whole.
func (f *frontend) Document(column, text string) error {
	return f.Result([]string{column}, [][]string{{text}})
}

// Result gives a statement's table to OnRows as an OutputResult.
func (f *frontend) Result(columns []string, rows [][]string) error {
	on := f.s.opts.OnRows
	if on == nil || len(rows) == 0 {
		return nil
	}
	out := Output{Name: "result", Kind: OutputResult}
	for _, c := range columns {
		out.Columns = append(out.Columns, Column{Name: c, Type: "VARCHAR"})
	}
	return on(out, &Rows{n: len(rows), text: rows})
}

// RunJob runs job into a sink calling OnRows, then logs the malformed-row
// notices.
func (f *frontend) RunJob(ctx context.Context, j *session.Job, run session.RunFunc) error {
	job := j.Plan()
	f.s.jobStarts(job)
	stats, err := run(func() (session.Sink, error) { return newSink(job, f.s.opts.OnRows), nil })
	if w := f.s.opts.Log; w != nil {
		for _, l := range session.JobNotices(j, stats) {
			fmt.Fprintln(w, l)
		}
		if l := session.PendingNotice(j, stats); l != "" {
			fmt.Fprintln(w, l) // SPEC 2.1: which pending branches ran, and their rows
		}
	}
	return err
}

// sink gives a job's batches to OnRows, a call per run of consecutive rows
// bound for the same output, so rows keep their input order across outputs.
type sink struct {
	on    func(Output, *Rows) error
	outs  []Output
	types [][]catalog.Type
	sel   []int32
	merge session.Merger // a batch's output order
	rows  Rows
	errs  map[string]Output
}

var errorColumns = []Column{{"stream", "VARCHAR"}, {"position", "VARCHAR"}, {"raw", "VARCHAR"}, {"error", "VARCHAR"}}

func newSink(job *planner.Job, on func(Output, *Rows) error) *sink {
	k := &sink{on: on, sel: make([]int32, 0, vector.Cap), errs: map[string]Output{}}
	for i, o := range job.Outputs {
		out := Output{Name: o.Name, Kind: OutputSide, Updating: o.Updating, UpsertKey: o.UpsertKey}
		if job.Main != nil && i == 0 {
			out.Kind = OutputMain
		} else if o.Late {
			out.Kind = OutputLate
		}
		ts := make([]catalog.Type, len(o.Columns))
		for c, col := range o.Columns {
			out.Columns = append(out.Columns, Column{Name: col.Name, Type: col.Type.String()})
			ts[c] = col.Type
		}
		k.outs = append(k.outs, out)
		k.types = append(k.types, ts)
	}
	return k
}

// Rows implements session.Sink: runs of rows of one output go to the
// callback together, in output order (the Merger's), with the rows
// operators made (r.Chunks) and the malformed rows at their places (SPEC 4).
func (k *sink) Rows(r *session.Batch) error {
	if k.on == nil {
		return nil
	}
	part := -1
	flush := func() error {
		if len(k.sel) == 0 {
			return nil
		}
		p := &r.Parts[part]
		k.rows = Rows{n: len(k.sel), sel: k.sel, cols: p.Cols, types: k.types[p.Output], kinds: p.Kinds}
		err := k.on(k.outs[p.Output], &k.rows)
		k.sel = k.sel[:0]
		return err
	}
	m := &k.merge
	m.Reset(r)
	for {
		seg, ok := m.Next()
		if !ok {
			break
		}
		if seg.Chunk != nil || seg.Bad != nil {
			if err := flush(); err != nil {
				return err
			}
		}
		if c := seg.Chunk; c != nil {
			if len(c.Sel) == 0 {
				continue
			}
			k.rows = Rows{n: len(c.Sel), sel: c.Sel, cols: c.Cols, types: k.types[c.Output], kinds: c.Kinds}
			if err := k.on(k.outs[c.Output], &k.rows); err != nil {
				return err
			}
			continue
		}
		if seg.Bad != nil {
			if err := k.Errors(r.Errors.Name, seg.Bad); err != nil {
				return err
			}
			continue
		}
		for i := seg.From; i < seg.To; i++ {
			d := int(seg.Port[i])
			if d < 0 {
				continue
			}
			if d != part {
				if err := flush(); err != nil {
					return err
				}
				part = d
			}
			k.sel = append(k.sel, int32(i))
		}
	}
	return flush()
}

// Errors implements session.Sink: malformed rows for the errors side output.
func (k *sink) Errors(name string, rows []executor.ErrorRow) error {
	if k.on == nil || len(rows) == 0 {
		return nil
	}
	out, ok := k.errs[name]
	if !ok {
		out = Output{Name: name, Kind: OutputErrors, Columns: errorColumns}
		k.errs[name] = out
	}
	k.rows = Rows{n: len(rows), errs: rows}
	return k.on(out, &k.rows)
}

// Flush implements session.Sink.
func (k *sink) Flush() error { return nil }

// Close implements session.Sink.
func (k *sink) Close() error { return nil }

var _ session.SettingsLister = (*frontend)(nil)

// SettingValues implements session.SettingsLister for Flink's SET; (SPEC 3):
// the settings the program set, with the defaults of the others.
func (f *frontend) SettingValues() map[string]string {
	out := map[string]string{"format": session.Formats[0], "side-dir": "", "timer": "off"}
	f.s.mu.Lock()
	for k, v := range f.s.settings {
		out[k] = v
	}
	f.s.mu.Unlock()
	return out
}

var (
	_ session.Noticer = (*frontend)(nil)
	_ session.Warner  = (*frontend)(nil)
)

// Warn implements session.Warner: a planning warning goes to Options.Log
// as one line with its position (session.WarningLine).
func (f *frontend) Warn(script *parser.Script, w *parser.Error) {
	f.Notice(session.WarningLine(script, w))
}

// Notice implements session.Noticer: the line goes to Options.Log.
func (f *frontend) Notice(line string) {
	if w := f.s.opts.Log; w != nil {
		fmt.Fprintln(w, line)
	}
}
