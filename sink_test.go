package streamql

import (
	"testing"

	"streamql/catalog"
	"streamql/executor"
	"streamql/executor/vector"
	"streamql/planner"
)

// TestSinkAllocs: giving a job's batch to OnRows allocates nothing per row,
// whether the rows run to one output or alternate between two (a call per run).
func TestSinkAllocs(t *testing.T) {
	cols := []catalog.Column{{Name: "x", Type: catalog.BigInt}, {Name: "s", Type: catalog.Varchar}}
	job := &planner.Job{Main: &planner.Branch{}, Outputs: []planner.Output{{Name: "main", Columns: cols}, {Name: "side", Columns: cols}}}
	b := vector.NewBatch([]catalog.Type{catalog.BigInt, catalog.Varchar})
	for i := 0; i < vector.Cap; i++ {
		b.Cols[0].I[i] = int64(i)
		b.Cols[1].SetString(i, []byte("abc"))
	}
	var sum int64
	var n int
	k := newSink(job, func(out Output, rows *Rows) error {
		for r := 0; r < rows.Len(); r++ {
			sum += rows.Int64(0, r) + int64(len(rows.Bytes(1, r)))
			n++
		}
		return nil
	})
	for _, alternate := range []bool{false, true} {
		r := &executor.Routed{N: vector.Cap, Dest: make([]int16, vector.Cap), Parts: []executor.Part{{Output: 0, Cols: b.Cols}, {Output: 1, Cols: b.Cols}}}
		for i := range r.Dest {
			if alternate && i%2 == 1 {
				r.Dest[i] = 1
			}
		}
		n = 0
		allocs := testing.AllocsPerRun(20, func() {
			if err := k.Rows(r); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > 0 || n != 21*vector.Cap { // AllocsPerRun runs it once more to warm up
			t.Fatalf("alternate %v: %v allocations per batch, %d rows seen", alternate, allocs, n)
		}
	}
	_ = sum
}
