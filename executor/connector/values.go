package connector

import (
	"context"
	"io"
	"sync"

	"streamql/catalog"
	"streamql/executor/jsondec"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

func init() {
	Register(&catalog.ConnectorSpec{
		Name: "values", Doc: "rows come from INSERT INTO ... VALUES statements",
		Bounded:     always,
		Repeatable:  always,
		Caps:        catalog.CapReread,
		TakesInsert: true,
	}, &Driver{
		Open: func(_ context.Context, st *catalog.Stream, env *Env) (Source, error) {
			return table(st, env).Open(), nil
		},
		Insert: func(st *catalog.Stream, env *Env, rows [][]plan.Value) {
			table(st, env).Append(rows)
		},
	})
}

// tableKey is the key of a values stream's Table in Env.State: a stream
// declared anew under a dropped one's name is another *catalog.Stream, so it
// starts empty.
type tableKey struct{ st *catalog.Stream }

// table returns the session's Table of the values stream st.
func table(st *catalog.Stream, env *Env) *Table {
	return env.State.Get(tableKey{st}, func() any { return NewTable(st.Types()) }).(*Table)
}

// Table holds the rows that INSERT INTO ... VALUES gave a 'values' stream (SPEC 1,
// SPEC 3), in order, as typed column batches. A job reading the stream reads the
// rows inserted before it started.
type Table struct {
	mu      sync.Mutex
	types   []catalog.Type
	batches []*vector.Batch // full but the last
}

// NewTable returns an empty table with columns of the given types.
func NewTable(types []catalog.Type) *Table { return &Table{types: types} }

// Append adds rows, each with one value per column of that column's type (as
// plan.PlanInsert makes them; an ARRAY, MAP or ROW column's as its JSON text).
func (t *Table) Append(rows [][]plan.Value) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, row := range rows {
		if len(t.batches) == 0 || t.batches[len(t.batches)-1].N == vector.Cap {
			t.batches = append(t.batches, vector.NewBatch(t.types))
		}
		b := t.batches[len(t.batches)-1]
		i := b.N
		for c, v := range row {
			col := b.Cols[c]
			col.Null[i] = v.Null
			if v.Null {
				continue
			}
			switch t.types[c] {
			case catalog.BigInt, catalog.Timestamp:
				col.I[i] = v.I
			case catalog.Double:
				col.F[i] = v.F
			case catalog.Boolean:
				col.B[i] = v.B
			case catalog.Varchar:
				col.SetString(i, v.S)
			default:
				// an ARRAY, MAP or ROW as its JSON text (plan.Value's),
				// read as the json format reads it
				if t.types[c].IsNested() && jsondec.SetNested(col, i, v.S) != "" {
					col.Null[i] = true
				}
			}
		}
		b.N++
		b.Pos[i] = int64(len(t.batches)-1)*vector.Cap + int64(i) + 1
	}
}

// Len returns the number of rows.
func (t *Table) Len() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.batches) == 0 {
		return 0
	}
	return int64(len(t.batches)-1)*vector.Cap + int64(t.batches[len(t.batches)-1].N)
}

// Open returns a source over the rows inserted so far.
func (t *Table) Open() Source {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := &valuesSource{batches: append([]*vector.Batch(nil), t.batches...)}
	if k := len(s.batches); k > 0 {
		s.last = s.batches[k-1].N
	}
	return s
}

// valuesSource reads a snapshot of a Table. Rows appended to the table's last
// batch after Open are past s.last and never read; the values it hands out point
// into the table, which never changes them.
type valuesSource struct {
	batches []*vector.Batch
	last    int // rows of the last batch in the snapshot
	k       int // next batch
}

func (s *valuesSource) Next(b *vector.Batch, _ *[]BadRow) error {
	if s.k >= len(s.batches) {
		return io.EOF
	}
	src := s.batches[s.k]
	n := src.N
	if s.k == len(s.batches)-1 {
		n = s.last
	}
	s.k++
	b.ShareRows(src, n)
	return nil
}

func (s *valuesSource) Position(line int64) string { return rowNumber(line) }

func (s *valuesSource) Progress() (int64, int64) { return 0, 0 }

func (s *valuesSource) Close() error { return nil }
