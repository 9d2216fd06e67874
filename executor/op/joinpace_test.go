package op

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"streamql/executor/vector"
)

// pacedJoin is a Join whose caller drains what SetPace deferred after
// each call, as executor's joinSource does, and checks that no call
// emitted more batches of joined rows than the pace.
type pacedJoin struct {
	*Join
	t        *testing.T
	e        *batchCounter
	pace     int
	deferred int // calls that left rows deferred
	// lazy: the caller does not drain between calls, only once the inputs
	// have ended (Push then releases what is deferred itself, first)
	lazy bool
}

// batchCounter is a logEmitter that also counts its batches of joined rows.
type batchCounter struct {
	logEmitter
	batches int
}

func (c *batchCounter) Emit(ctx context.Context, port int, b *vector.Batch) error {
	if port == JoinOut {
		c.batches++
	}
	return c.logEmitter.Emit(ctx, port, b)
}

// step runs call, then Drain while rows are deferred, each call within the
// pace.
func (p *pacedJoin) step(call func() error) error {
	if p.lazy {
		err := call()
		if p.Deferred() {
			p.deferred++
		}
		return err
	}
	for first := true; first || p.Deferred(); first = false {
		before := p.e.batches
		var err error
		if first {
			err = call()
		} else {
			err = p.Drain(context.Background())
		}
		if err != nil {
			return err
		}
		if n := p.e.batches - before; n > p.pace+1 { // (+1: the rows gathered when the call began, flushed at its end)
			p.t.Fatalf("one call emitted %d batches of joined rows; the pace is %d", n, p.pace)
		}
		if p.Deferred() {
			p.deferred++
		}
	}
	return nil
}

func (p *pacedJoin) Push(ctx context.Context, port int, b *vector.Batch) error {
	return p.step(func() error { return p.Join.Push(ctx, port, b) })
}

func (p *pacedJoin) Watermark(ctx context.Context, port int, wm int64) error {
	return p.step(func() error { return p.Join.Watermark(ctx, port, wm) })
}

func (p *pacedJoin) Finish(ctx context.Context, port int) error {
	return p.step(func() error { return p.Join.Finish(ctx, port) })
}

// TestJoinPaceSameOutput: a join that releases at most one batch of joined
// rows per call (SetPace, Drain) emits the same rows, late rows and
// watermarks, in the same order, as one without a pace, for every kind,
// regular and interval, also with a right input without event time, over
// inputs whose end releases many batches at once; with a caller that drains
// after each call (as executor's joinSource), and one that drains only at
// the end.
func TestJoinPaceSameOutput(t *testing.T) {
	deferred := 0
	for seed := range 12 {
		r := rand.New(rand.NewPCG(uint64(seed), 26))
		d := r.Int64N(40)
		in := [2][]testRow{genSide(r, "l", 300+r.IntN(300), d), genSide(r, "r", 300+r.IntN(300), d)}
		specs := slices.Clone(joinSpecs)
		for _, spec := range joinSpecs { // (a right input without event time: its rows are handled as they arrive)
			if !spec.Interval {
				spec.Time[1], spec.Stamp[1] = -1, -1
				specs = append(specs, spec)
			}
		}
		for _, spec := range specs {
			name := fmt.Sprintf("seed %d %s interval=%v right time=%d", seed, spec.Kind, spec.Interval, spec.Time[1])
			want := runJoin(t, spec, in, d, rand.New(rand.NewPCG(uint64(seed), 1)))
			e := &batchCounter{}
			j, err := NewJoin(spec, e, nil)
			if err != nil {
				t.Fatal(err)
			}
			j.SetPace(1)
			p := &pacedJoin{Join: j, t: t, e: e, pace: 1, lazy: seed%2 == 1}
			feed(t, p, in, nil, d, rand.New(rand.NewPCG(uint64(seed), 1)))
			for p.Deferred() {
				if err := p.Drain(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			deferred += p.deferred
			if !slices.Equal(e.out, want.out) {
				t.Fatalf("%s: with a pace:\n%s\nwithout:\n%s", name, strings.Join(e.out, "\n"), strings.Join(want.out, "\n"))
			}
			if !slices.Equal(e.late[0], want.late[0]) || !slices.Equal(e.late[1], want.late[1]) {
				t.Fatalf("%s: other late rows with a pace", name)
			}
			// a lazy caller sees fewer watermarks (one once the deferred rows
			// are out), never another last one
			if !p.lazy && !slices.Equal(e.wms, want.wms) || len(e.wms) > 0 != (len(want.wms) > 0) || len(e.wms) > 0 && e.wms[len(e.wms)-1] != want.wms[len(want.wms)-1] {
				t.Fatalf("%s: watermarks %v with a pace, want %v", name, e.wms, want.wms)
			}
		}
	}
	if deferred == 0 {
		t.Fatal("no call deferred a row: the inputs release too few rows at once to test the pace")
	}
}

// TestJoinKeepPrunesColumns: a join that keeps only some columns of its
// inputs (JoinSpec.Keep) emits the rows a join keeping every column emits,
// with the columns it does not keep NULL, and its late rows whole.
func TestJoinKeepPrunesColumns(t *testing.T) {
	for seed := range 30 {
		r := rand.New(rand.NewPCG(uint64(seed), 3))
		d := r.Int64N(40)
		in := [2][]testRow{genSide(r, "l", r.IntN(80), d), genSide(r, "r", r.IntN(80), d)}
		for _, spec := range joinSpecs {
			name := fmt.Sprintf("seed %d %s interval=%v", seed, spec.Kind, spec.Interval)
			want := runJoin(t, spec, in, d, rand.New(rand.NewPCG(uint64(seed), 1)))
			pruned := spec
			pruned.Keep = [2][]bool{{false, false, false, false}, {true, false, true, false}} // (keys, times and stamps are kept whatever Keep says)
			got := runJoin(t, pruned, in, d, rand.New(rand.NewPCG(uint64(seed), 1)))
			if len(got.out) != len(want.out) {
				t.Fatalf("%s: %d joined rows, want %d", name, len(got.out), len(want.out))
			}
			for i, w := range want.out {
				// the left value (column 2) is NULL; the rest is as kept
				f := strings.Split(w, ",")
				if len(f) == 6 {
					f[2] = "NULL"
				}
				if g := got.out[i]; g != strings.Join(f, ",") {
					t.Fatalf("%s: row %d is %q, want %q", name, i, g, strings.Join(f, ","))
				}
			}
			if !slices.Equal(got.late[0], want.late[0]) || !slices.Equal(got.late[1], want.late[1]) {
				t.Fatalf("%s: late rows differ when columns are pruned: %q, want %q", name, got.late, want.late)
			}
		}
	}
}

// TestJoinPassWritesOnlyPassedColumns: with JoinSpec.Pass, the joined rows
// of every join kind, regular and interval, are those without it, rows and
// order, but for the columns Pass leaves out (here the left key and the
// right time, which the join still holds and reads): NULL; late rows go out
// whole.
func TestJoinPassWritesOnlyPassedColumns(t *testing.T) {
	for seed := range 30 {
		r := rand.New(rand.NewPCG(uint64(seed), 5))
		d := r.Int64N(40)
		in := [2][]testRow{genSide(r, "l", r.IntN(80), d), genSide(r, "r", r.IntN(80), d)}
		for _, spec := range joinSpecs {
			name := fmt.Sprintf("seed %d %s interval=%v", seed, spec.Kind, spec.Interval)
			want := runJoin(t, spec, in, d, rand.New(rand.NewPCG(uint64(seed), 1)))
			passed := spec
			passed.Pass = [2][]bool{{false, true, true, false}, {true, false, true, false}}
			got := runJoin(t, passed, in, d, rand.New(rand.NewPCG(uint64(seed), 1)))
			if len(got.out) != len(want.out) {
				t.Fatalf("%s: %d joined rows, want %d", name, len(got.out), len(want.out))
			}
			for i, w := range want.out {
				// "+I lk,lt,lv,rk,rt,rv": lk and rt are NULL
				kind, line, _ := strings.Cut(w, " ")
				f := strings.Split(line, ",")
				if len(f) == 6 {
					f[0], f[4] = "NULL", "NULL"
				}
				if g, w := got.out[i], kind+" "+strings.Join(f, ","); g != w {
					t.Fatalf("%s: row %d is %q, want %q", name, i, g, w)
				}
			}
			if !slices.Equal(got.late[0], want.late[0]) || !slices.Equal(got.late[1], want.late[1]) {
				t.Fatalf("%s: late rows differ when columns are not passed on: %q, want %q", name, got.late, want.late)
			}
		}
	}
}
