package op

import (
	"runtime"
	"testing"

	"streamql/catalog"
)

// TestAppendOnlyJoinsAllocateNothingPerBatch: issue 23's "zero allocations
// per row in steady state for append-only joins", for the append-only
// joins the interval and lookup tests (TestIntervalJoinAllocatesNothingPerRow,
// TestIntervalJoinOrdersAllocatesNothing, TestLookupJoinAllocatesNothingPerRow)
// do not cover: a regular INNER join whose state a TTL bounds (event time:
// rows leave once the watermark is TTL past them) and a temporal join (each
// key's versions replaced as new ones come). Both inputs in event-time
// order, each 1,024-row batch followed by its watermark; once the arrays
// have grown to their steady size, 64 steps of two batches allocate nothing
// (counted in all, not averaged).
func TestAppendOnlyJoinsAllocateNothingPerBatch(t *testing.T) {
	types := [2][]catalog.Type{joinTypes, joinTypes}
	keys, tm := [2][]int{{0}, {0}}, [2]int{1, 1}
	none := [2]int{-1, -1}
	cases := []struct {
		name string
		make func(e Emitter) (Operator, error)
	}{
		{"regular join with a TTL", func(e Emitter) (Operator, error) {
			return NewJoin(JoinSpec{Kind: Inner, Types: types, Keys: keys, Time: tm, Stamp: none, TTL: 50}, e, nil)
		}},
		{"temporal join", func(e Emitter) (Operator, error) {
			return NewTemporal(TemporalSpec{Kind: Inner, Types: types, Keys: keys, Time: tm, Stamp: none}, e, nil)
		}},
	}
	for _, c := range cases {
		e := &countEmitter{}
		j, err := c.make(e)
		if err != nil {
			t.Fatal(err)
		}
		steadyAllocs(t, c.name, orderedSteps(t, j, 97), e)
	}
}

// steadyAllocs runs step 64 times (warm: the arrays grow to their steady
// size), then checks that 64 more allocate nothing (counted in all: the
// mean of AllocsPerRun would round a few away) and that e got rows.
func steadyAllocs(t *testing.T, name string, step func(), e *countEmitter) {
	t.Helper()
	for range 64 {
		step()
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 64 {
		step()
	}
	runtime.ReadMemStats(&after)
	if a := after.Mallocs - before.Mallocs; a != 0 {
		t.Errorf("%s: %d allocations in 64 steps of 2 × 1,024 rows, want 0", name, a)
	}
	if e.rows == 0 {
		t.Errorf("%s: the join emitted nothing", name)
	}
}

// TestNullSafeJoinsAllocateNothingPerBatch: a null-safe key (JoinSpec.NullSafe,
// IS NOT DISTINCT FROM) whose NULLs (every 7th row's key) match each other
// costs no allocation either: the NULL's hash is a constant mixed in, its
// equality a flag compare. An interval FULL join, a regular INNER join with
// a TTL and a temporal join, in steady state as above.
func TestNullSafeJoinsAllocateNothingPerBatch(t *testing.T) {
	types := [2][]catalog.Type{joinTypes, joinTypes}
	keys, tm, ns := [2][]int{{0}, {0}}, [2]int{1, 1}, []bool{true}
	none := [2]int{-1, -1}
	for _, c := range []struct {
		name string
		make func(e Emitter) (Operator, error)
	}{
		{"interval join", func(e Emitter) (Operator, error) {
			return NewJoin(JoinSpec{Kind: Full, Types: types, Keys: keys, NullSafe: ns, Time: tm, Stamp: none, Interval: true, Lo: -15, Hi: 15}, e, nil)
		}},
		{"regular join with a TTL", func(e Emitter) (Operator, error) {
			return NewJoin(JoinSpec{Kind: Inner, Types: types, Keys: keys, NullSafe: ns, Time: tm, Stamp: none, TTL: 50}, e, nil)
		}},
		{"temporal join", func(e Emitter) (Operator, error) {
			return NewTemporal(TemporalSpec{Kind: Inner, Types: types, Keys: keys, NullSafe: ns, Time: tm, Stamp: none}, e, nil)
		}},
	} {
		e := &countEmitter{}
		j, err := c.make(e)
		if err != nil {
			t.Fatal(err)
		}
		steadyAllocs(t, c.name, orderedNullSteps(t, j, 97, 7), e)
	}
}
