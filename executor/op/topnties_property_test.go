package op

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"streamql/executor/vector"
)

// genTieChanges is a random changelog over few values (SPEC 2.8's row
// kinds), so that most rows tie: +I a new row (partition p of parts, one
// of four groups, a value of four), -D a live row, -U a live row followed
// by +U its group's new row (its value one less, the same or one more: a
// +U with the value it had is a change too, a SUM that added 0), and now
// and then a -D of a row no one holds (Flink's "retract a non-existent
// record", skipped). Live rows repeat: two rows equal in every column.
func genTieChanges(r *rand.Rand, n int, parts int64) []retractIn {
	var live, out []retractIn
	for len(out) < n {
		switch k := r.IntN(10); {
		case k < 4 || len(live) == 0:
			x := retractIn{p: r.Int64N(parts), g: fmt.Sprintf("g%d", r.IntN(4)), c: r.Int64N(4), kind: vector.Insert}
			live = append(live, x)
			out = append(out, x)
		case k < 6:
			j := r.IntN(len(live))
			x := live[j]
			x.kind = vector.Delete
			live = slices.Delete(live, j, j+1)
			out = append(out, x)
		case k == 6:
			out = append(out, retractIn{p: r.Int64N(parts), g: "none", c: r.Int64N(4), kind: vector.Delete})
		default:
			j := r.IntN(len(live))
			old := live[j]
			old.kind = vector.UpdateBefore
			x := retractIn{p: old.p, g: old.g, c: max(0, old.c+r.Int64N(3)-1), kind: vector.UpdateAfter}
			live[j] = x
			out = append(out, old, x)
		}
	}
	return out
}

// tieRef is the reference of TestTopNTiesPerChangeProperty, written apart
// from the operators: the live rows in a plain list in the order they were
// added, each row's top recomputed from it whole after every change (a
// batch computation per change). The rule it holds (SPEC 2.9, Flink's
// RetractableTopNFunction, whose state keeps the rows of equal sort keys
// in the order they were added): ties rank in arrival order, and a row
// arrives when it is added, so a group's +U row comes after the rows
// already there with its sort key, whatever its -U row's place was. A
// retraction takes back the first row added of those equal to it in
// every column; one of no row held is skipped.
type tieRef struct {
	live    []tieLive
	seq     int
	keyed   bool // PARTITION BY the first column; otherwise one partition
	desc    bool
	thenG   int // as retractOrder: 1 then the group ascending, -1 descending, 2 the group alone
	fn      RankFunc
	n       int64
	rankCol bool
}

type tieLive struct {
	x   retractIn
	seq int // the order the row was added in
}

// apply changes the live rows by x.
func (f *tieRef) apply(x retractIn) {
	if !x.kind.Retracts() {
		f.seq++
		f.live = append(f.live, tieLive{x: x, seq: f.seq})
		return
	}
	for j, l := range f.live {
		if l.x.p == x.p && l.x.g == x.g && l.x.c == x.c {
			f.live = slices.Delete(f.live, j, j+1)
			return
		}
	}
}

// order compares two rows by the ORDER BY alone (0: a tie).
func (f *tieRef) order(a, b retractIn) int {
	if f.thenG == 2 {
		return strings.Compare(a.g, b.g)
	}
	c := cmp.Compare(a.c, b.c)
	if f.desc {
		c = -c
	}
	if c == 0 {
		c = f.thenG * strings.Compare(a.g, b.g)
	}
	return c
}

// top returns the rows of rank at most n of every partition, as the
// operators print them (partition|group|value[|rank]), sorted, and the
// identity of each (its add order, and its rank with the rank column).
func (f *tieRef) top() (table []string, ids map[[2]int64]bool) {
	parts := map[int64][]tieLive{}
	for _, l := range f.live { // (in the order added: the stable sort keeps ties so)
		p := int64(0)
		if f.keyed {
			p = l.x.p
		}
		parts[p] = append(parts[p], l)
	}
	ids = map[[2]int64]bool{}
	for _, rows := range parts {
		slices.SortStableFunc(rows, func(a, b tieLive) int { return f.order(a.x, b.x) })
		var rank, dense int64
		for j, l := range rows {
			if j == 0 || f.order(rows[j-1].x, l.x) != 0 {
				rank, dense = int64(j)+1, dense+1
			}
			r := map[RankFunc]int64{RowNumber: int64(j) + 1, Rank: rank, DenseRank: dense}[f.fn]
			if r > f.n {
				break
			}
			s := fmt.Sprintf("%d|%s|%d", l.x.p, l.x.g, l.x.c)
			id := [2]int64{int64(l.seq), 0}
			if f.rankCol {
				s += fmt.Sprintf("|%d", r)
				id[1] = r
			}
			table = append(table, s)
			ids[id] = true
		}
	}
	slices.Sort(table)
	return table, ids
}

// changeCount is the number of changes a Top-N without the rank column
// emits between two tops by identity: -D each row that left, +I each that
// entered.
func changeCount(before, after map[[2]int64]bool) int {
	n := 0
	for id := range before {
		if !after[id] {
			n++
		}
	}
	for id := range after {
		if !before[id] {
			n++
		}
	}
	return n
}

// countLog applies a Top-N's changes as changelog does and counts them.
type countLog struct {
	*changelog
	n int
}

func (c *countLog) Emit(ctx context.Context, port int, b *vector.Batch) error {
	c.n += b.N
	return c.changelog.Emit(ctx, port, b)
}

// TestTopNTiesPerChangeProperty (SPEC 2.8, 2.9: ties rank in arrival order;
// the fault: a row tied with the last of the top and arriving after it
// took its place): for random changelogs over few values (most rows tie,
// some repeat whole rows), ROW_NUMBER, RANK and DENSE_RANK, N, directions,
// ORDER BY the value, the value then the group, or the group alone, with
// and without the rank column, PARTITION BY and none, the retracting
// Top-N's changes applied after every change (every push of one row, or of
// a batch of a few) give tieRef's table; a change that leaves the top's
// rows and ranks as they were emits nothing; without the rank column a
// change emits one -D per row that left and one +I per row that entered.
func TestTopNTiesPerChangeProperty(t *testing.T) {
	for seed := range uint64(seedCount(t, 400, 60)) {
		r := rand.New(rand.NewPCG(seed, 97))
		in := genTieChanges(r, 1+r.IntN(200), 1+r.Int64N(3))
		ref := &tieRef{keyed: r.IntN(2) == 0, desc: r.IntN(2) == 0, fn: RankFunc(r.IntN(3)), n: 1 + r.Int64N(3), rankCol: r.IntN(2) == 0}
		var order []SortKey
		order, ref.thenG = retractOrder(r, ref.desc)
		var keys []int
		if ref.keyed {
			keys = []int{0}
		}
		log := &countLog{changelog: newChangelog(t)}
		o, err := NewRetractTopN(TopNSpec{Types: retractTypes, Keys: keys, Order: order, N: ref.n, Func: ref.fn, RankNumber: ref.rankCol}, log, nil)
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("seed %d (%s <= %d, desc %v, then group %d, rank column %v, partitioned %v)", seed, ref.fn, ref.n, ref.desc, ref.thenG, ref.rankCol, ref.keyed)
		one := r.IntN(3) > 0 // (one row a push: every change checked, and what it emitted)
		_, ids := ref.top()
		for at := 0; at < len(in); {
			k := 1
			if !one {
				k = min(len(in)-at, 1+r.IntN(6))
			}
			log.n = 0
			if err := o.Push(context.Background(), 0, retractBatch(in[at:at+k])); err != nil {
				t.Fatal(err)
			}
			for _, x := range in[at : at+k] {
				ref.apply(x)
			}
			want, now := ref.top()
			if got := log.rows(); !slices.Equal(got, want) {
				t.Fatalf("%s: after change %d (%s %+v), the changelog's table\n%s\nthe reference's\n%s\n(%s)", what, at+k-1, in[at+k-1].kind, in[at+k-1], strings.Join(got, "\n"), strings.Join(want, "\n"), firstDiff(got, want))
			}
			if one {
				if n := changeCount(ids, now); n == 0 && log.n > 0 || !ref.rankCol && log.n != n {
					t.Fatalf("%s: change %d (%s %+v) emitted %d rows, want %d (the rows that left and entered the top)", what, at, in[at].kind, in[at], log.n, n)
				}
			}
			ids = now
			at += k
		}
	}
}

// TestAppendTopNTiesPerChangeProperty (SPEC 2.9: ties rank in arrival
// order; the Top-N over an append-only input, also ORDER BY … LIMIT's over
// an unbounded stream): for random inputs with many ties, every ranking
// function, N, direction, with and without the rank column and PARTITION
// BY, the Top-N's changes applied after every row give refTopN's table of
// the rows so far, and without the rank column each row emits one change
// per row that left or entered the top (nothing when it does not enter).
func TestAppendTopNTiesPerChangeProperty(t *testing.T) {
	for seed := range uint64(seedCount(t, 300, 40)) {
		r := rand.New(rand.NewPCG(seed, 98))
		rows := genRankRows(r, 1+r.IntN(150), 20)
		for i := range rows {
			rows[i].x, rows[i].xNull = float64(r.IntN(3)), r.IntN(10) == 0 // (few values: ties)
			rows[i].key = 0                                                // (the partition: s or none)
		}
		fn, n, desc, rankCol := RankFunc(r.IntN(3)), 1+r.Int64N(3), r.IntN(2) == 0, r.IntN(2) == 0
		keys, byS := []int(nil), r.IntN(2) == 0
		if byS {
			keys = []int{2}
		}
		log := &countLog{changelog: newChangelog(t)}
		top, err := NewTopN(TopNSpec{Types: rankTypes, Keys: keys, Order: []SortKey{{Col: 1, Desc: desc}}, N: n, Func: fn, RankNumber: rankCol}, log, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			log.n = 0
			if err := top.Push(context.Background(), 0, rankBatch(rows[i:i+1])); err != nil {
				t.Fatal(err)
			}
			before := refTopNBy(rows[:i], byS, desc, fn, n, rankCol)
			want := refTopNBy(rows[:i+1], byS, desc, fn, n, rankCol)
			if got := log.rows(); !slices.Equal(got, want) {
				t.Fatalf("seed %d (%s <= %d, desc %v, rank column %v, by s %v): after row %d, the changelog's table\n%s\nthe reference's\n%s\n(%s)", seed, fn, n, desc, rankCol, byS, i, strings.Join(got, "\n"), strings.Join(want, "\n"), firstDiff(got, want))
			}
			if d := symDiff(before, want); d == 0 && log.n > 0 || !rankCol && log.n != d {
				t.Fatalf("seed %d (%s <= %d, desc %v, by s %v): row %d emitted %d changes, want %d", seed, fn, n, desc, byS, i, log.n, d)
			}
		}
	}
}

// refTopNBy is refTopN partitioned by s alone (byS) or not at all (the
// rows' keys all 0).
func refTopNBy(rows []rankRow, byS, desc bool, fn RankFunc, n int64, rankCol bool) []string {
	return refTopN(rows, byS, desc, fn, n, rankCol, false, 0)
}

// symDiff returns how many rows are in one of two sorted tables of
// distinct rows and not in the other.
func symDiff(a, b []string) int {
	n := 0
	for _, s := range a {
		if _, ok := slices.BinarySearch(b, s); !ok {
			n++
		}
	}
	for _, s := range b {
		if _, ok := slices.BinarySearch(a, s); !ok {
			n++
		}
	}
	return n
}
