package op

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// cutEmitter is a logEmitter that also records where each batch of joined
// rows ends (the output's batch cuts).
type cutEmitter struct {
	logEmitter
	cuts []int
}

func (c *cutEmitter) Emit(ctx context.Context, port int, b *vector.Batch) error {
	err := c.logEmitter.Emit(ctx, port, b)
	if port == JoinOut {
		c.cuts = append(c.cuts, len(c.out))
	}
	return err
}

// genRunSide makes n rows of one input for TestIntervalJoinRunsEqualRows:
// times about 3 ms apart, in event-time order (spread 0) or out of order
// by up to spread ms, keys among keys values (-1: NULL, about 1 in 40),
// stamped as SPEC 2.3's assigner does with watermark delay d.
func genRunSide(r *rand.Rand, name string, n int, spread, keys, d int64) []testRow {
	return genRows(name, n, d, func(i int) (int64, int64) {
		t := int64(i * 3)
		if spread > 0 {
			t += r.Int64N(spread)
		}
		key := r.Int64N(keys)
		if r.IntN(40) == 0 {
			key = -1
		}
		return t, key
	})
}

// feedBatches is feedSized with a caller that drains what a pace
// deferred after each call (as executor's joinSource does).
func feedBatches(t *testing.T, j *Join, in [2][]testRow, d int64, most int, r *rand.Rand) {
	t.Helper()
	feedSized(t, j, in, nil, d, most, r, func(err error) error {
		for err == nil && j.Deferred() {
			err = j.Drain(context.Background())
		}
		return err
	})
}

// TestIntervalJoinRunsEqualRows: an INNER interval join one of whose sides'
// rows leave as soon as they are handled (Hi <= 0: the right side's; Lo >
// 0: the left side's) releases its held rows by runs (Join.releaseRuns,
// expireRun), and that gives exactly what handling them one row at a time
// (releaseRows) gives: the same joined rows in the same order, cut into
// the same batches, the same late rows and counts, with and without a pace
// (SetPace(1), drained after each call as executor's joinSource does), for
// inputs in event-time order and out of order, with few keys (long chains)
// and many, in batches of random sizes up to 1,024 rows (runs longer than
// lookAheadRows) and random interleavings; and its final table is the
// nested-loop reference's (200 seeds).
func TestIntervalJoinRunsEqualRows(t *testing.T) {
	seeds := seedCount(t, 200, 30)
	bounds := [][2]int64{{-20, 0}, {-300, 0}, {-20, -5}, {0, 0}, {5, 20}, {1, 400}, {-5, -5}}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 31))
		d := r.Int64N(50)
		spread := [2]int64{0, 0}
		if seed%3 > 0 { // (two seeds in three out of event-time order)
			spread = [2]int64{1 + r.Int64N(60), 1 + r.Int64N(300)}
		}
		keys := []int64{3, 50, 5000}[seed%3]
		n := [2]int{r.IntN(200), r.IntN(200)}
		most := 1 + r.IntN(8)
		if seed%4 == 0 {
			n, most = [2]int{500 + r.IntN(1000), 500 + r.IntN(1000)}, 1+r.IntN(1024)
		}
		in := [2][]testRow{genRunSide(r, "l", n[0], spread[0], keys, d), genRunSide(r, "r", n[1], spread[1], keys, d)}
		for _, lh := range bounds {
			spec := JoinSpec{Kind: Inner, Types: [2][]catalog.Type{joinTypes, joinTypes}, Keys: [2][]int{{0}, {0}}, Time: [2]int{1, 1}, Stamp: [2]int{3, 3}, Interval: true, Lo: lh[0], Hi: lh[1]}
			want, late, partnered := referenceJoin(spec, in)
			for _, pace := range []int{0, 1} {
				name := fmt.Sprintf("seed %d [%d, %d] pace %d", seed, lh[0], lh[1], pace)
				var got [2]*cutEmitter
				for k, rowByRow := range []bool{false, true} {
					e := &cutEmitter{}
					j, err := NewJoin(spec, e, nil)
					if err != nil {
						t.Fatal(err)
					}
					if j.oneSided() < 0 {
						t.Fatalf("%s: not released by runs", name)
					}
					j.rowByRow = rowByRow
					j.SetPace(pace)
					feedBatches(t, j, in, d, most, rand.New(rand.NewPCG(uint64(seed), 5)))
					e.counts = j.Counts()
					got[k] = e
				}
				runs, rows := got[0], got[1]
				if !slices.Equal(runs.out, rows.out) {
					t.Fatalf("%s: by runs\n%s\nrow by row\n%s", name, strings.Join(runs.out, "\n"), strings.Join(rows.out, "\n"))
				}
				if !slices.Equal(runs.cuts, rows.cuts) {
					t.Fatalf("%s: batches of joined rows end at %v by runs, at %v row by row", name, runs.cuts, rows.cuts)
				}
				if runs.counts != rows.counts || !slices.Equal(runs.late[0], rows.late[0]) || !slices.Equal(runs.late[1], rows.late[1]) {
					t.Fatalf("%s: counts %+v and late rows %q by runs, %+v and %q row by row", name, runs.counts, runs.late, rows.counts, rows.late)
				}
				if tbl := finalTable(t, runs.out); !slices.Equal(tbl, want) {
					t.Fatalf("%s: final table\n%s\nwant (nested loops)\n%s", name, strings.Join(tbl, "\n"), strings.Join(want, "\n"))
				}
				for s := range 2 {
					if !slices.Equal(runs.late[s], late[s]) || runs.counts.Partnered[s] != partnered[s] {
						t.Fatalf("%s: input %d: late %q, partnered %d; want %q, %d", name, s, runs.late[s], runs.counts.Partnered[s], late[s], partnered[s])
					}
				}
			}
		}
	}
}

// TestOneSided: which joins release by runs (Join.oneSided).
func TestOneSided(t *testing.T) {
	base := JoinSpec{Kind: Inner, Types: [2][]catalog.Type{joinTypes, joinTypes}, Keys: [2][]int{{0}, {0}}, Time: [2]int{1, 1}, Stamp: [2]int{3, 3}, Interval: true}
	for _, c := range []struct {
		kind   JoinKind
		lo, hi int64
		want   int
	}{
		{Inner, -300_000, 0, 0}, {Inner, -10, -1, 0}, {Inner, 1, 10, 1}, {Inner, 0, 10, -1}, {Inner, -10, 10, -1},
		{Left, -10, 0, -1}, {Right, 1, 10, -1}, {Full, -10, 0, -1},
	} {
		spec := base
		spec.Kind, spec.Lo, spec.Hi = c.kind, c.lo, c.hi
		j, err := NewJoin(spec, &logEmitter{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := j.oneSided(); got != c.want {
			t.Errorf("%s [%d, %d]: oneSided %d, want %d", c.kind, c.lo, c.hi, got, c.want)
		}
	}
	regular := base
	regular.Interval = false
	if j, _ := NewJoin(regular, &logEmitter{}, nil); j.oneSided() != -1 {
		t.Error("a regular join released by runs")
	}
}
