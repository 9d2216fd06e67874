package streamql

import (
	"fmt"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor"
	"streamql/executor/vector"
	"streamql/internal/session"
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
		r := &session.Batch{N: vector.Cap, Parts: []session.Part{{Output: 0, Cols: b.Cols}, {Output: 1, Cols: b.Cols}}}
		for i := range vector.Cap {
			k := 0
			if alternate && i%2 == 1 {
				k = 1
			}
			r.Parts[k].Sel = append(r.Parts[k].Sel, int32(i))
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

// TestSinkChunksInOrder: rows an operator made itself (executor.Chunk, an
// aggregate's fired windows) reach OnRows at their place among the input rows
// and before the malformed rows at the same place (SPEC 2.4, SPEC 4).
func TestSinkChunksInOrder(t *testing.T) {
	cols := []catalog.Column{{Name: "s", Type: catalog.Varchar}}
	job := &planner.Job{Main: &planner.Branch{}, Outputs: []planner.Output{{Name: "main", Columns: cols}, {Name: "side", Columns: cols}}}
	in, made := vector.NewVec(catalog.Varchar), vector.NewVec(catalog.Varchar)
	for i, v := range []string{"r0", "r1", "r2"} {
		in.SetString(i, []byte(v))
	}
	for i, v := range []string{"w0", "w1", "w2"} {
		made.SetString(i, []byte(v))
	}
	var got []string
	k := newSink(job, func(out Output, rows *Rows) error {
		for r := 0; r < rows.Len(); r++ {
			got = append(got, out.Name+":"+string(rows.Bytes(0, r)))
		}
		return nil
	})
	r := &session.Batch{N: 3,
		Parts: []executor.Part{{Output: 0, Sel: []int32{0, 1}, Cols: []*vector.Vec{in}}, {Output: 1, Sel: []int32{2}, Cols: []*vector.Vec{in}}},
		Chunks: []executor.Chunk{
			{At: 1, Part: executor.Part{Output: 0, Sel: []int32{0, 1}, Cols: []*vector.Vec{made}}},
			{At: 3, Part: executor.Part{Output: 1, Sel: []int32{2}, Cols: []*vector.Vec{made}}},
		},
		Errors: session.ErrorPort{Name: "errors", Rows: []session.ErrorRow{{Stream: "s", Position: "s.csv:3", Raw: []byte("oops"), Error: "bad", At: 1}}},
	}
	if err := k.Rows(r); err != nil {
		t.Fatal(err)
	}
	want := "main:r0 main:w0 main:w1 errors:s main:r1 side:r2 side:w2"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("OnRows saw %s, want %s", s, want)
	}
}

// TestRowsNullGetters: a NULL read through a typed getter of Rows is its
// type's zero value (0, false, the zero Time, nil, "") and Value's nil, as
// their docs say, whatever value the vector holds behind the NULL flag (an
// aggregate's output slot or a join's padding keeps another group's or
// row's value there: replay11's MAX 4621 of an all-padded session); a
// value that is not NULL reads as it is.
func TestRowsNullGetters(t *testing.T) {
	types := []catalog.Type{catalog.BigInt, catalog.Double, catalog.Boolean, catalog.Timestamp, catalog.Varchar}
	b := vector.NewBatch(types)
	for i := range 2 { // row 0 NULL, row 1 not; the same values behind both
		b.Cols[0].I[i], b.Cols[1].F[i], b.Cols[2].B[i], b.Cols[3].I[i] = 4621, 46.21, true, 4621
		b.Cols[4].SetString(i, []byte("stale"))
		for c := range types {
			b.Cols[c].Null[i] = i == 0
		}
	}
	r := &Rows{n: 2, sel: []int32{0, 1}, cols: b.Cols, types: types}
	for c := range types {
		got := fmt.Sprintf("%v|%v|%v|%v|%v|%v|%q|%v", r.IsNull(c, 0), r.Int64(c, 0), r.Float64(c, 0), r.Bool(c, 0), r.Time(c, 0).IsZero(), r.Bytes(c, 0) == nil, r.String(c, 0), r.Value(c, 0))
		if want := `true|0|0|false|true|true|""|<nil>`; got != want {
			t.Errorf("%s NULL: IsNull, Int64, Float64, Bool, Time zero, Bytes nil, String, Value give %q, want %q", types[c], got, want)
		}
	}
	if got := fmt.Sprintf("%v|%v|%v|%v|%v", r.Int64(0, 1), r.Float64(1, 1), r.Bool(2, 1), r.Time(3, 1).UnixMilli(), r.String(4, 1)); got != "4621|46.21|true|4621|stale" {
		t.Errorf("values not NULL read %q", got)
	}
}
