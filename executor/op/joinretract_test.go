package op

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// changeRow is one row of an updating input (SPEC 2.8): a testRow and its
// kind.
type changeRow struct {
	testRow
	kind vector.RowKind
}

// genChanges makes a valid changelog of n steps for one input, as an
// unbounded GROUP BY or a Top-N emits: inserts of new rows, deletes of rows
// in the table, and updates (-U of a row in the table, then +U of a new
// one). Keys are 0..4 or NULL (-1), values repeat on purpose (equal rows).
// The rows have no event time (an aggregate's output has none).
func genChanges(r *rand.Rand, name string, n int) []changeRow {
	var out []changeRow
	var table []testRow
	none := int64(math.MinInt64)
	row := func() testRow {
		return testRow{key: r.Int64N(6) - 1, t: r.Int64N(3), v: fmt.Sprintf("%s%d", name, r.IntN(4)), stamp: none}
	}
	for range n {
		switch op := r.IntN(4); {
		case op == 0 && len(table) > 0:
			i := r.IntN(len(table))
			out = append(out, changeRow{table[i], vector.Delete})
			table = slices.Delete(table, i, i+1)
		case op == 1 && len(table) > 0:
			i := r.IntN(len(table))
			nw := row()
			out = append(out, changeRow{table[i], vector.UpdateBefore}, changeRow{nw, vector.UpdateAfter})
			table[i] = nw
		default:
			x := row()
			out = append(out, changeRow{x, vector.Insert})
			table = append(table, x)
		}
	}
	return out
}

// applyChanges is an input's final table: its changelog applied.
func applyChanges(rows []changeRow) []testRow {
	var table []testRow
	for _, x := range rows {
		if x.kind.Retracts() {
			i := slices.Index(table, x.testRow)
			table = slices.Delete(table, i, i+1)
		} else {
			table = append(table, x.testRow)
		}
	}
	return table
}

// feedChanges pushes both inputs' changes to o in batches of random sizes,
// interleaved at random, then finishes both.
func feedChanges(t *testing.T, o Operator, in [2][]changeRow, r *rand.Rand) {
	t.Helper()
	ctx := context.Background()
	var at [2]int
	kinds := make([]vector.RowKind, vector.Cap)
	for at[0] < len(in[0]) || at[1] < len(in[1]) {
		s := r.IntN(2)
		if at[s] == len(in[s]) {
			s = 1 - s
		}
		n := min(1+r.IntN(7), len(in[s])-at[s])
		part := in[s][at[s] : at[s]+n]
		rows := make([]testRow, n)
		for i, x := range part {
			rows[i], kinds[i] = x.testRow, x.kind
		}
		b := batchOf(rows)
		b.Kinds = kinds
		err := o.Push(ctx, s, b)
		b.Kinds = nil
		if err != nil {
			t.Fatal(err)
		}
		at[s] += n
	}
	for _, s := range []int{0, 1} {
		if err := o.Finish(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
}

// TestJoinOverChangesAgainstReference: a regular join of INNER, LEFT, RIGHT
// and FULL kind whose inputs are updating (SPEC 2.8, JoinSpec.Changes: both,
// or one and an append-only other), fed in random batch sizes and
// interleavings, emits a changelog that never retracts a row it did not
// emit, and whose final table equals the nested-loop reference join
// (referenceJoin, SPEC 2.7) of the inputs' final tables (500 seeds per
// kind).
func TestJoinOverChangesAgainstReference(t *testing.T) {
	for _, kind := range []JoinKind{Inner, Left, Right, Full} {
		for _, changes := range [][2]bool{{true, true}, {true, false}, {false, true}} {
			spec := JoinSpec{Kind: kind, Types: [2][]catalog.Type{joinTypes, joinTypes}, Keys: [2][]int{{0}, {0}}, Time: [2]int{-1, -1}, Stamp: [2]int{-1, -1}, Changes: changes}
			t.Run(fmt.Sprintf("%s%v", kind, changes), func(t *testing.T) {
				for seed := range uint64(500) {
					r := rand.New(rand.NewPCG(seed, 23))
					var in [2][]changeRow
					for s, name := range []string{"l", "r"} {
						if changes[s] {
							in[s] = genChanges(r, name, 1+r.IntN(25))
						} else {
							for _, x := range genChanges(r, name, 1+r.IntN(12)) {
								if x.kind == vector.Insert {
									in[s] = append(in[s], x)
								}
							}
						}
					}
					e := &logEmitter{}
					j, err := NewJoin(spec, e, nil)
					if err != nil {
						t.Fatal(err)
					}
					feedChanges(t, j, in, r)
					got := finalTable(t, e.out)
					want, _, _ := referenceJoin(spec, [2][]testRow{applyChanges(in[0]), applyChanges(in[1])})
					if !slices.Equal(got, want) {
						t.Fatalf("seed %d: final table\n%s\nwant\n%s\nchangelog:\n%s", seed, strings.Join(got, "\n"), strings.Join(want, "\n"), strings.Join(e.out, "\n"))
					}
					for _, l := range e.out {
						k, _, _ := strings.Cut(l, " ")
						if kind != Inner && (k == "-U" || k == "+U") {
							t.Fatalf("seed %d: an outer join emitted %s (Flink's: -D and +I)", seed, l)
						}
					}
				}
			})
		}
	}
}

// TestJoinRetractionFreesState: a regular join whose inputs insert and then
// delete every row ends with no state charged ('state.max-bytes', SPEC 1):
// a retracted row leaves the state, and the retracting row never enters it.
func TestJoinRetractionFreesState(t *testing.T) {
	spec := JoinSpec{Kind: Full, Types: [2][]catalog.Type{joinTypes, joinTypes}, Keys: [2][]int{{0}, {0}}, Time: [2]int{-1, -1}, Stamp: [2]int{-1, -1}, Changes: [2]bool{true, true}}
	r := rand.New(rand.NewPCG(7, 7))
	var in [2][]changeRow
	for s, name := range []string{"l", "r"} {
		ins := genChanges(r, name, 3000)
		for _, x := range applyChanges(ins) {
			ins = append(ins, changeRow{x, vector.Delete})
		}
		in[s] = ins
	}
	acct := &countingAccount{}
	e := &logEmitter{}
	j, err := NewJoin(spec, e, acct)
	if err != nil {
		t.Fatal(err)
	}
	feedChanges(t, j, in, r)
	if got := finalTable(t, e.out); len(got) != 0 {
		t.Fatalf("the final table of two emptied inputs holds %d rows: %v", len(got), got[:min(5, len(got))])
	}
	if acct.bytes != 0 {
		t.Fatalf("%d bytes still charged after every row was deleted (most %d)", acct.bytes, acct.most)
	}
	if live := j.side[0].rows.Len() + j.side[1].rows.Len(); live > 2*1024+2 {
		t.Fatalf("%d rows kept after every row was deleted: the dead ones are not compacted", live)
	}
}

// TestJoinRetractedRowsOutliveCompactions: a regular join with a state TTL
// over updating inputs keeps, for each row, an item in its TTL queue; a row
// retracted before its TTL passes is dropped by the next compaction (its item
// then names no row), and later compactions and the TTL's expiry must pass
// over such items (a renumbering of a dropped row once indexed the
// compaction's map at -1 and panicked). Three rounds of inserting and
// deleting 3,000 rows a side (a compaction or more each), then the TTL
// passes: the final table is empty and no state is charged.
func TestJoinRetractedRowsOutliveCompactions(t *testing.T) {
	spec := JoinSpec{Kind: Full, Types: [2][]catalog.Type{joinTypes, joinTypes}, Keys: [2][]int{{0}, {0}}, Time: [2]int{-1, -1}, Stamp: [2]int{-1, -1}, Changes: [2]bool{true, true}, TTL: 1000}
	r := rand.New(rand.NewPCG(7, 8))
	acct := &countingAccount{}
	e := &logEmitter{}
	j, err := NewJoin(spec, e, acct)
	if err != nil {
		t.Fatal(err)
	}
	now := int64(0)
	j.SetClock(func() int64 { return now })
	ctx := context.Background()
	for range 3 {
		for s, name := range []string{"l", "r"} {
			ins := genChanges(r, name, 3000)
			for _, x := range applyChanges(ins) {
				ins = append(ins, changeRow{x, vector.Delete})
			}
			for at := 0; at < len(ins); at += 100 {
				part := ins[at:min(at+100, len(ins))]
				rows := make([]testRow, len(part))
				for i, c := range part {
					rows[i] = c.testRow
				}
				b := batchOf(rows)
				b.Kinds = make([]vector.RowKind, vector.Cap)
				for i, c := range part {
					b.Kinds[i] = c.kind
				}
				if err := j.Push(ctx, s, b); err != nil {
					t.Fatal(err)
				}
				b.Kinds = nil
			}
		}
	}
	now = 10_000 // (every TTL has passed)
	if err := j.Push(ctx, 0, batchOf(nil)); err != nil {
		t.Fatal(err)
	}
	for s := range 2 {
		if err := j.Finish(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if got := finalTable(t, e.out); len(got) != 0 {
		t.Fatalf("the final table of two emptied inputs holds %d rows: %v", len(got), got[:min(5, len(got))])
	}
	if acct.bytes != 0 {
		t.Fatalf("%d bytes still charged after every row was deleted or expired", acct.bytes)
	}
}
