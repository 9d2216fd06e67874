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

// fireReplay is the JoinReplay of a process that took over after a crash:
// the outputs below the crashed join's watermark f were written.
type fireReplay struct {
	f  int64
	ok bool
}

func (r fireReplay) Written(_ int, _ int64, t int64) bool { return r.ok && t < r.f }

// replayStep is one batch of a run: rows [from, to) of input s, then
// maybe that input's watermark.
type replayStep struct {
	s, from, to int
	wm          bool
}

// replayPlan interleaves both inputs' rows from at on in batches of random
// sizes.
func replayPlan(r *rand.Rand, in [2][]testRow, at [2]int) []replayStep {
	var steps []replayStep
	for at[0] < len(in[0]) || at[1] < len(in[1]) {
		s := r.IntN(2)
		if at[s] == len(in[s]) {
			s = 1 - s
		}
		n := min(1+r.IntN(7), len(in[s])-at[s])
		steps = append(steps, replayStep{s, at[s], at[s] + n, r.IntN(3) > 0})
		at[s] += n
	}
	return steps
}

// runSteps pushes the steps to j (a Join or a Temporal), each row at its
// index in its input as its source position, with the watermark after a
// step the largest time of its input so far (from the first row pushed)
// minus d; finish ends both inputs.
func runSteps(t *testing.T, j Operator, in [2][]testRow, steps []replayStep, d int64, finish bool) {
	t.Helper()
	ctx := context.Background()
	maxT := [2]int64{math.MinInt64, math.MinInt64}
	for _, st := range steps {
		b := batchOf(in[st.s][st.from:st.to])
		for i := range b.N {
			b.Pos[i] = int64(st.from + i)
		}
		if err := j.Push(ctx, st.s, b); err != nil {
			t.Fatal(err)
		}
		for _, x := range in[st.s][st.from:st.to] {
			maxT[st.s] = max(maxT[st.s], x.t)
		}
		if st.wm {
			if err := j.Watermark(ctx, st.s, maxT[st.s]-d); err != nil {
				t.Fatal(err)
			}
		}
	}
	if finish {
		for s := range 2 {
			if err := j.Finish(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestJoinReplayAfterACrash: a join that crashes anywhere, and a new one
// that reads each input again from the oldest row the crashed one held in
// state (EachRow) and is told that outputs below the crashed one's
// watermark were written (JoinReplay, SetReplay), together emit exactly
// what one uninterrupted join emits, in its order: no joined or padded row
// lost or doubled, for every kind, regular (with and without a state TTL)
// and interval (the Kafka replay of SPEC 2.5; the executor's
// joinreplay.go), the interval's bounds also drawn at random for each seed
// (intervalBounds: below 0, above 0, around 0, one at 0, equal), where an
// outer row's interval may end before its own time (Join.padAt).
func TestJoinReplayAfterACrash(t *testing.T) {
	specs := joinSpecs
	for _, spec := range joinSpecs {
		if !spec.Interval { // a regular join whose TTL drops rows as the watermark passes: the frontier moves with it
			spec.TTL = 60
			specs = append(specs, spec)
		}
	}
	randomInputs(300, 23, func(seed int, r *rand.Rand, d int64, in [2][]testRow) {
		specs := specs
		lo, hi := intervalBounds(rand.New(rand.NewPCG(uint64(seed), 24)), seed)
		for _, kind := range []JoinKind{Inner, Left, Right, Full} {
			spec := joinSpecs[0]
			spec.Kind, spec.Interval, spec.Lo, spec.Hi = kind, true, lo, hi
			specs = append(specs[:len(specs):len(specs)], spec)
		}
		for _, spec := range specs {
			name := fmt.Sprintf("seed %d %s interval=%v [%d, %d] ttl=%d", seed, spec.Kind, spec.Interval, spec.Lo, spec.Hi, spec.TTL)
			open := func(e *logEmitter) replayedOperator {
				j, err := NewJoin(spec, e, nil)
				if err != nil {
					t.Fatal(err)
				}
				return j
			}
			crashAndReplay(t, name, r, in, d, open)
		}
	})
}

// intervalBounds draws an interval join's bounds lo <= hi (ms, of the left
// time minus the right's; genSide's times are about 10 ms apart) from r, of
// the shape n picks: both below 0, both above, around 0, the upper at 0,
// the lower at 0, or equal.
func intervalBounds(r *rand.Rand, n int) (lo, hi int64) {
	w := 1 + r.Int64N(40)
	switch n % 6 {
	case 0:
		hi = -1 - r.Int64N(30)
		lo = hi - w
	case 1:
		lo = 1 + r.Int64N(30)
		hi = lo + w
	case 2:
		lo, hi = -w, 1+r.Int64N(40)
	case 3:
		lo = -w
	case 4:
		hi = w
	default:
		lo = r.Int64N(61) - 30
		hi = lo
	}
	return lo, hi
}

// replayedOperator is a two-input operator with a Kafka replay: Join and
// Temporal.
type replayedOperator interface {
	Operator
	SetReplay(JoinReplay)
	EachRow(s int, f func(pos int64, stamp int64, null bool))
	Watermarked() (int64, bool)
}

// crashAndReplay runs the operators open makes three times over in (d:
// the watermark delay), each batch plan drawn from r: once whole; once
// crashing after a random batch; and once as the process after the crash
// does, reading each input again from the oldest row the crashed operator
// held in state (EachRow) and told that outputs below its watermark were
// written (SetReplay). The two last together must emit exactly what the
// first did, in its order.
func crashAndReplay(t *testing.T, name string, r *rand.Rand, in [2][]testRow, d int64, open func(*logEmitter) replayedOperator) {
	t.Helper()
	steps := replayPlan(r, in, [2]int{})
	whole := &logEmitter{}
	runSteps(t, open(whole), in, steps, d, true)

	crash := r.IntN(len(steps) + 1)
	first := &logEmitter{}
	j1 := open(first)
	j1.SetReplay(fireReplay{}) // (a process with a replay and nothing to read again: a Join notes the partners)
	runSteps(t, j1, in, steps[:crash], d, false)
	var read [2]int // the rows of each input read before the crash
	for _, st := range steps[:crash] {
		read[st.s] = st.to
	}
	from := read // the oldest row of each input still in state, else the rows read
	for s := range 2 {
		j1.EachRow(s, func(pos int64, _ int64, _ bool) { from[s] = min(from[s], int(pos)) })
	}
	f, ok := j1.Watermarked()
	second := &logEmitter{}
	j2 := open(second)
	j2.SetReplay(fireReplay{f, ok})
	runSteps(t, j2, in, replayPlan(r, in, from), d, true)

	got := append(append([]string{}, first.out...), second.out...)
	if !slices.Equal(got, whole.out) {
		t.Fatalf("%s: crashed after %d of %d batches (read %v, replayed from %v, watermark %d %v): the two runs emitted\n%s\n--- one run emits\n%s",
			name, crash, len(steps), read, from, f, ok, strings.Join(got, "\n"), strings.Join(whole.out, "\n"))
	}
}

// TestTemporalReplayAfterACrash: the temporal join (SPEC 2.7) crashed
// anywhere, and a new one reading each input again from the oldest row the
// crashed one still needed (its held rows, and each key's current version:
// EachRow), told that outputs below its watermark were written, together
// emit exactly what one uninterrupted temporal join emits, in its order,
// INNER and LEFT, with and without other ON terms (300 seeds; the Kafka
// replay of SPEC 2.5).
func TestTemporalReplayAfterACrash(t *testing.T) {
	accept := func(b *vector.Batch, i int, _ [2]int64) bool { // (the values' last digits differ)
		l, r := b.Cols[2].S[i], b.Cols[len(joinTypes)+2].S[i]
		return l[len(l)-1] != r[len(r)-1]
	}
	randomInputs(300, 29, func(seed int, r *rand.Rand, d int64, in [2][]testRow) {
		for _, kind := range []JoinKind{Inner, Left} {
			for _, residual := range []func(*vector.Batch, int, [2]int64) bool{nil, accept} {
				spec := TemporalSpec{Kind: kind, Types: [2][]catalog.Type{joinTypes, joinTypes}, Keys: [2][]int{{0}, {0}}, Time: [2]int{1, 1}, Stamp: [2]int{3, 3}, Residual: residual}
				open := func(e *logEmitter) replayedOperator {
					j, err := NewTemporal(spec, e, nil)
					if err != nil {
						t.Fatal(err)
					}
					return j
				}
				crashAndReplay(t, fmt.Sprintf("seed %d temporal %s residual=%v", seed, kind, residual != nil), r, in, d, open)
			}
		}
	})
}

// TestTemporalDropRows: the rows of a revoked partition leave the temporal
// join's state, held rows and versions alike, without output, and give
// their bytes back: a left row then finds no version of the dropped one's
// key (LEFT pads it), and the rows kept join as before.
func TestTemporalDropRows(t *testing.T) {
	ctx := context.Background()
	acct := &countingAccount{}
	e := &logEmitter{}
	spec := TemporalSpec{Kind: Left, Types: [2][]catalog.Type{joinTypes, joinTypes}, Keys: [2][]int{{0}, {0}}, Time: [2]int{1, 1}, Stamp: [2]int{-1, -1}}
	j, err := NewTemporal(spec, e, acct)
	if err != nil {
		t.Fatal(err)
	}
	none := int64(math.MinInt64)
	// versions of keys 1 (at 0) and 2 (at 1), handled; a held version of key 3 (at 2)
	if err := j.Push(ctx, 1, batchOf([]testRow{{key: 1, t: 5, v: "r0", stamp: none}, {key: 2, t: 6, v: "r1", stamp: none}, {key: 3, t: 50, v: "r2", stamp: none}})); err != nil {
		t.Fatal(err)
	}
	if err := j.Push(ctx, 0, batchOf([]testRow{{key: 1, t: 20, v: "l0", stamp: none}, {key: 2, t: 21, v: "l1", stamp: none}, {key: 3, t: 60, v: "l2", stamp: none}})); err != nil {
		t.Fatal(err)
	}
	for s := range 2 {
		if err := j.Watermark(ctx, s, 10); err != nil {
			t.Fatal(err)
		}
	}
	before := acct.bytes
	odd := func(pos int64) bool { return pos%2 == 0 } // (r0, r2 and l0, l2: a partition of each input)
	for s := range 2 {
		if err := j.DropRows(s, odd); err != nil {
			t.Fatal(err)
		}
	}
	if acct.bytes >= before || acct.bytes <= 0 {
		t.Errorf("the drop took the state from %d to %d bytes, want less, not nothing", before, acct.bytes)
	}
	var kept [2][]int64
	for s := range 2 {
		j.EachRow(s, func(pos int64, _ int64, _ bool) { kept[s] = append(kept[s], pos) })
	}
	if !slices.Equal(kept[0], []int64{1}) || !slices.Equal(kept[1], []int64{1}) {
		t.Errorf("rows in state after the drop: left %v, right %v; want [1] and [1]", kept[0], kept[1])
	}
	if err := j.Push(ctx, 0, batchOf([]testRow{{key: 1, t: 30, v: "l3", stamp: none}})); err != nil {
		t.Fatal(err)
	}
	for s := range 2 {
		if err := j.Finish(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"+I 2,21,l1,2,6,r1", "+I 1,30,l3,NULL,NULL,NULL"}
	if !slices.Equal(e.out, want) {
		t.Errorf("after the drop the join emitted\n%s\nwant\n%s", strings.Join(e.out, "\n"), strings.Join(want, "\n"))
	}
	if n := len(j.version); n != 1 || acct.bytes <= 0 || acct.bytes >= before {
		t.Errorf("%d keys versioned, %d state bytes at the end: want key 2's version alone", n, acct.bytes)
	}
}

// randomInputs calls f with seeds random pairs of inputs (a tenth with
// -short) of 1 to 60 rows each, stamped with a random watermark delay d,
// drawn from r (the seed's stream of random numbers, which f may go on
// with).
func randomInputs(seeds int, stream uint64, f func(seed int, r *rand.Rand, d int64, in [2][]testRow)) {
	if testing.Short() {
		seeds /= 10
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), stream))
		d := r.Int64N(40)
		f(seed, r, d, [2][]testRow{genSide(r, "l", 1+r.IntN(60), d), genSide(r, "r", 1+r.IntN(60), d)})
	}
}

// TestJoinDropRows: rows dropped from the state (a revoked partition's)
// leave it while held, join nothing after and give their bytes back.
func TestJoinDropRows(t *testing.T) {
	for _, spec := range joinSpecs {
		acct := &countingAccount{}
		e := &logEmitter{}
		j, err := NewJoin(spec, e, acct)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		l := []testRow{{key: 1, t: 10, v: "l0", stamp: math.MinInt64}, {key: 1, t: 20, v: "l1", stamp: math.MinInt64}}
		b := batchOf(l)
		if err := j.Push(ctx, 0, b); err != nil {
			t.Fatal(err)
		}
		if err := j.Watermark(ctx, 0, 15); err != nil { // (the left rows stay held: no right watermark)
			t.Fatal(err)
		}
		before := acct.bytes
		if err := j.DropRows(0, func(pos int64) bool { return pos == 0 }); err != nil {
			t.Fatal(err)
		}
		if acct.bytes >= before || acct.bytes <= 0 {
			t.Errorf("%s: the drop took the state from %d to %d bytes, want less, not nothing", spec.Kind, before, acct.bytes)
		}
		n := 0
		j.EachRow(0, func(pos int64, _ int64, _ bool) {
			n++
			if pos != 1 {
				t.Errorf("%s: row at %d still in state", spec.Kind, pos)
			}
		})
		if n != 1 {
			t.Errorf("%s: %d left rows in state after the drop, want 1", spec.Kind, n)
		}
		rb := batchOf([]testRow{{key: 1, t: 12, v: "r0", stamp: math.MinInt64}})
		if err := j.Push(ctx, 1, rb); err != nil {
			t.Fatal(err)
		}
		for s := range 2 {
			if err := j.Finish(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		for _, line := range e.out {
			if strings.Contains(line, ",l0,") || strings.HasSuffix(line, ",l0") {
				t.Errorf("%s: the dropped row was emitted: %q", spec.Kind, line)
			}
		}
	}
}
