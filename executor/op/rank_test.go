package op

import (
	"cmp"
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

// The ranking tests' input layout: a partition key (NULL when < 0), a DOUBLE
// to order by (NULL, NaN, -0.0 and ties among them), a text, the row's
// arrival number, an event time, and the row's CURRENT_WATERMARK stamp.
var rankTypes = []catalog.Type{catalog.BigInt, catalog.Double, catalog.Varchar, catalog.BigInt, catalog.BigInt, catalog.BigInt}

type rankRow struct {
	key   int64
	x     float64
	xNull bool
	s     string
	id    int64
	t     int64
	stamp int64 // math.MinInt64: none
}

func genRankRows(r *rand.Rand, n int, delay int64) []rankRow {
	rows := make([]rankRow, n)
	doubles := []float64{0, math.Copysign(0, -1), 1, 2.5, -3, math.NaN(), math.Inf(1), 7, 7, 8}
	maxT := int64(math.MinInt64)
	for i := range rows {
		x := rankRow{key: r.Int64N(5) - 1, id: int64(i), s: fmt.Sprintf("s%d", r.IntN(4))}
		switch r.IntN(8) {
		case 0:
			x.xNull = true
		case 1, 2:
			x.x = doubles[r.IntN(len(doubles))]
		default:
			x.x = float64(r.IntN(20))
		}
		x.t = int64(i*10) + r.Int64N(2*delay+1) - delay
		x.stamp = math.MinInt64
		if maxT != math.MinInt64 {
			x.stamp = maxT - delay
		}
		maxT = max(maxT, x.t)
		rows[i] = x
	}
	return rows
}

func (x rankRow) late() bool { return x.stamp != math.MinInt64 && x.t < x.stamp }

var rankScratch = vector.NewBatch(rankTypes)

func rankBatch(rows []rankRow) *vector.Batch {
	b := rankScratch
	b.Reset()
	for i, x := range rows {
		b.Cols[0].I[i], b.Cols[0].Null[i] = x.key, x.key < 0
		b.Cols[1].F[i], b.Cols[1].Null[i] = x.x, x.xNull
		b.Cols[2].SetString(i, []byte(x.s))
		b.Cols[3].I[i], b.Cols[3].Null[i] = x.id, false
		b.Cols[4].I[i], b.Cols[4].Null[i] = x.t, false
		b.Cols[5].I[i], b.Cols[5].Null[i] = x.stamp, x.stamp == math.MinInt64
		b.Pos[i] = x.id
	}
	b.N = len(rows)
	return b
}

// rowText prints row i of b's columns as a test's table key.
func rowText(b *vector.Batch, i int) string {
	var sb []byte
	for c, v := range b.Cols {
		if c > 0 {
			sb = append(sb, '|')
		}
		if v.Null[i] {
			sb = append(sb, "NULL"...)
			continue
		}
		sb = vector.AppendValue(sb, v.Type, v, i)
	}
	return string(sb)
}

// changelog applies what an operator emits to a materialized table (a
// multiset of rows), failing on a retraction of a row the table does not
// hold; late rows and watermarks are recorded.
type changelog struct {
	t       testing.TB
	table   map[string]int
	appends []string // rows in emission order (append-only outputs)
	late    []string
	wms     []int64
	kinds   bool // some batch had kinds
}

func newChangelog(t testing.TB) *changelog { return &changelog{t: t, table: map[string]int{}} }

func (c *changelog) Emit(_ context.Context, port int, b *vector.Batch) error {
	for i := 0; i < b.N; i++ {
		row := rowText(b, i)
		if port != 0 {
			c.late = append(c.late, row)
			continue
		}
		kind := vector.Insert
		if b.Kinds != nil {
			kind = b.Kinds[i]
			c.kinds = true
		}
		if kind.Retracts() {
			if c.table[row] == 0 {
				c.t.Fatalf("%s retracts a row the result does not hold: %s", kind, row)
			}
			c.table[row]--
			if c.table[row] == 0 {
				delete(c.table, row)
			}
			continue
		}
		c.table[row]++
		c.appends = append(c.appends, row)
	}
	return nil
}

func (c *changelog) EmitWatermark(_ context.Context, wm int64) error {
	c.wms = append(c.wms, wm)
	return nil
}

func (c *changelog) rows() []string {
	var out []string
	for r, n := range c.table {
		for range n {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

// refText prints a reference row as rowText prints the operator's rows (the
// same value printing, SPEC 4), plus extra BIGINT columns.
func refText(x rankRow, extra ...string) string {
	b := rankBatch([]rankRow{x})
	s := rowText(b, 0)
	for _, e := range extra {
		s += "|" + e
	}
	return s
}

// refCmpX orders rows by x as SQL's ORDER BY x does (NULL smallest, DOUBLE
// as Java's Double.compare), written apart from the operator.
func refCmpX(a, b rankRow) int {
	switch {
	case a.xNull && b.xNull:
		return 0
	case a.xNull:
		return -1
	case b.xNull:
		return 1
	}
	an, bn := math.IsNaN(a.x), math.IsNaN(b.x)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a.x != b.x:
		return cmp.Compare(a.x, b.x)
	}
	sa, sb := 0, 0 // -0.0 below 0.0
	if math.Signbit(a.x) {
		sa = -1
	}
	if math.Signbit(b.x) {
		sb = -1
	}
	return cmp.Compare(sa, sb)
}

// refTopN is the batch reference of a Top-N: group the whole input by key
// (and s when byS), sort each group by x (then by s ascending when thenS is
// 1, descending when -1; 0: x only) (stable: ties in arrival order, or
// newest first), rank and keep the ranks up to n.
func refTopN(rows []rankRow, byS, desc bool, fn RankFunc, n int64, rankCol, newerFirst bool, thenS int) []string {
	order := func(a, b rankRow) int {
		c := refCmpX(a, b)
		if desc {
			c = -c
		}
		if c == 0 {
			c = thenS * strings.Compare(a.s, b.s)
		}
		return c
	}
	type group struct {
		k int64
		s string
	}
	groups := map[group][]rankRow{}
	for _, x := range rows {
		k := group{k: max(x.key, -1)}
		if byS {
			k.s = x.s
		}
		groups[k] = append(groups[k], x)
	}
	var out []string
	for _, g := range groups {
		if newerFirst {
			slices.Reverse(g)
		}
		slices.SortStableFunc(g, order)
		rank, dense := int64(0), int64(0)
		for j, x := range g {
			if j == 0 || order(g[j-1], x) != 0 {
				rank = int64(j) + 1
				dense++
			}
			r := rank
			switch fn {
			case RowNumber:
				r = int64(j) + 1
			case DenseRank:
				r = dense
			}
			if r > n {
				break
			}
			if rankCol {
				out = append(out, refText(x, fmt.Sprint(r)))
			} else {
				out = append(out, refText(x))
			}
		}
	}
	slices.Sort(out)
	return out
}

// pushInBatches pushes rows to o on port 0 in random batch sizes.
func pushInBatches(t testing.TB, r *rand.Rand, o Operator, rows []rankRow) {
	pushBatches(t, r, o, len(rows), func(from, to int) *vector.Batch { return rankBatch(rows[from:to]) })
}

// pushBatches pushes n rows into o in batches of random sizes (batch makes
// rows [from, to)), then finishes it.
func pushBatches(t testing.TB, r *rand.Rand, o Operator, n int, batch func(from, to int) *vector.Batch) {
	ctx := context.Background()
	for at := 0; at < n; {
		k := min(n-at, 1+r.IntN(40))
		if err := o.Push(ctx, 0, batch(at, at+k)); err != nil {
			t.Fatal(err)
		}
		at += k
	}
	if err := o.Finish(ctx, 0); err != nil {
		t.Fatal(err)
	}
}

// TestTopNAgainstReference: for random inputs, batch sizes, ranking
// functions, N, directions, ORDER BY one column or two (the second deciding
// rows tied on the first, also against a full partition's last row), and
// with and without the rank column, applying the Top-N's changelog gives the
// reference's final table (SPEC 2.9).
func TestTopNAgainstReference(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 7))
		rows := genRankRows(r, 1+r.IntN(300), 20)
		fn := RankFunc(r.IntN(3))
		n := 1 + r.Int64N(4)
		desc, rankCol, newer := r.IntN(2) == 0, r.IntN(2) == 0, fn == RowNumber && r.IntN(4) == 0
		log := newChangelog(t)
		acct := &countAccount{}
		keys, byS := []int{0}, false // (one BIGINT: the partitions indexed by its value)
		switch seed % 3 {
		case 1:
			keys = []int{0, 0} // (the same partitions, indexed by a hash of the values and compared with a held row)
		case 2:
			keys, byS = []int{0, 2}, true // (key and s: indexed by the key's bytes, which the Top-N keeps)
		}
		order, thenS := []SortKey{{Col: 1, Desc: desc}}, r.IntN(3)-1 // (then s: 1 ascending, -1 descending, 0 not)
		if thenS != 0 {
			order = append(order, SortKey{Col: 2, Desc: thenS < 0})
		}
		top, err := NewTopN(TopNSpec{Types: rankTypes, Keys: keys, Order: order, N: n, Func: fn, RankNumber: rankCol, NewerFirst: newer}, log, acct)
		if err != nil {
			t.Fatal(err)
		}
		pushInBatches(t, r, top, rows)
		want := refTopN(rows, byS, desc, fn, n, rankCol, newer, thenS)
		if got := log.rows(); !slices.Equal(got, want) {
			t.Fatalf("seed %d (keys %v, %s, N=%d, desc %v, then s %d, rank column %v, newer first %v): final table\n%s\nwant\n%s", seed, keys, fn, n, desc, thenS, rankCol, newer, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if !log.kinds {
			t.Fatalf("seed %d: the Top-N's batches have no row kinds", seed)
		}
		final := newChangelog(t) // Final: the result as inserts
		top.out = final
		if err := top.Final(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := final.rows(); !slices.Equal(got, want) || len(final.appends) != len(want) {
			t.Fatalf("seed %d: Final gives\n%s\nwant\n%s", seed, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if acct.n <= 0 {
			t.Fatalf("seed %d: state charged %d bytes", seed, acct.n)
		}
	}
}

// countAccount counts the bytes charged.
type countAccount struct{ n, peak int64 }

func (a *countAccount) Grow(n int64) error {
	a.n += n
	a.peak = max(a.peak, a.n)
	return nil
}

// TestTopNStateBounded: the Top-N's state is its partitions' top rows, not
// the input: 100,000 rows over 10 keys keep at most about 10 × N rows.
func TestTopNStateBounded(t *testing.T) {
	acct := &countAccount{}
	top, err := NewTopN(TopNSpec{Types: rankTypes, Keys: []int{0}, Order: []SortKey{{Col: 1, Desc: true}}, N: 3}, discard{}, acct)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	rows := genRankRows(r, 1000, 5)
	for range 100 {
		for i := range rows {
			rows[i].x = float64(r.IntN(1 << 20))
		}
		if err := top.Push(context.Background(), 0, rankBatch(rows[:1000])); err != nil {
			t.Fatal(err)
		}
	}
	if top.rows.Len() > 5*3*2+2048 || acct.n > 5*3*100+5*200 {
		t.Fatalf("state after 100,000 rows: %d rows stored, %d bytes charged", top.rows.Len(), acct.n)
	}
}

// TestTopNTTL: a partition untouched for the TTL is forgotten: its next row
// starts a new top list (an insert, no retraction).
func TestTopNTTL(t *testing.T) {
	now := int64(0)
	log := newChangelog(t)
	top, err := NewTopN(TopNSpec{Types: rankTypes, Keys: []int{0}, Order: []SortKey{{Col: 1}}, N: 1, TTL: 1000, Now: func() int64 { return now }}, log, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_ = top.Push(ctx, 0, rankBatch([]rankRow{{key: 1, x: 5, s: "a", id: 1}}))
	now = 2000
	_ = top.Push(ctx, 0, rankBatch([]rankRow{{key: 2, x: 5, s: "b", id: 2}}))
	if top.Partitions() != 1 {
		t.Fatalf("%d partitions after the TTL, want 1", top.Partitions())
	}
	_ = top.Push(ctx, 0, rankBatch([]rankRow{{key: 1, x: 9, s: "c", id: 3}}))
	if len(log.appends) != 3 {
		t.Fatalf("changes %v, want three inserts", log.appends)
	}
}

// TestTopNDropWhere: the partitions whose first row's position the
// predicate picks are forgotten without a change and charge nothing more
// (the executor's replay drops a Kafka partition's), the others stay; a
// dropped partition's next row starts a new top list.
func TestTopNDropWhere(t *testing.T) {
	log := newChangelog(t)
	acct := &countAccount{}
	top, err := NewTopN(TopNSpec{Types: rankTypes, Keys: []int{0}, Order: []SortKey{{Col: 1, Desc: true}}, N: 2}, log, acct)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// key k's first row has id (its position) k: odd keys are dropped
	var rows []rankRow
	for id := range int64(40) {
		rows = append(rows, rankRow{key: id % 4, x: float64(id), s: "s", id: id})
	}
	if err := top.Push(ctx, 0, rankBatch(rows)); err != nil {
		t.Fatal(err)
	}
	before, changes := acct.n, len(log.appends)
	top.DropWhere(func(pos int64) bool { return pos%2 == 1 })
	if top.Partitions() != 2 || len(log.appends) != changes || acct.n >= before {
		t.Fatalf("after DropWhere: %d partitions (want 2), %d changes (want %d: none), %d bytes charged (before %d)", top.Partitions(), len(log.appends), changes, acct.n, before)
	}
	final := newChangelog(t)
	top.out = final
	if err := top.Final(ctx); err != nil {
		t.Fatal(err)
	}
	for _, r := range final.rows() {
		if !strings.HasPrefix(r, "0|") && !strings.HasPrefix(r, "2|") {
			t.Fatalf("row %q of a dropped partition is still in the result:\n%s", r, strings.Join(final.rows(), "\n"))
		}
	}
	if len(final.rows()) != 4 {
		t.Fatalf("result %q, want the two rows of keys 0 and 2", final.rows())
	}
	top.out = log
	if err := top.Push(ctx, 0, rankBatch([]rankRow{{key: 1, x: 0, s: "s", id: 41}})); err != nil {
		t.Fatal(err)
	}
	if top.Partitions() != 3 || len(log.appends) != changes+1 {
		t.Fatalf("a dropped key's next row: %d partitions, %d changes; want 3 and one insert more", top.Partitions(), len(log.appends)-changes)
	}
}

// TestTopNForgetsManyPartitions: over thousands of partitions (several of
// the Top-N's blocks of partitions), with each kind of key (one BIGINT, two,
// bytes), the partitions DropWhere forgets are reused for new keys and the
// kept ones are still found: the result is the reference's over the rows
// not forgotten.
func TestTopNForgetsManyPartitions(t *testing.T) {
	const keys = 2500
	for _, cols := range [][]int{{0}, {0, 0}, {2}, {0, 2}} {
		log := newChangelog(t)
		top, err := NewTopN(TopNSpec{Types: rankTypes, Keys: cols, Order: []SortKey{{Col: 1, Desc: true}}, N: 2}, log, nil)
		if err != nil {
			t.Fatal(err)
		}
		var rows []rankRow
		for id := range int64(3 * keys) {
			rows = append(rows, rankRow{key: id % keys, x: float64(id % 7), s: fmt.Sprintf("k%d", id%keys), id: id})
		}
		r := rand.New(rand.NewPCG(uint64(len(cols)), uint64(cols[0])))
		pushInBatches(t, r, top, rows[:keys])
		top.DropWhere(func(pos int64) bool { return pos%2 == 1 }) // (the odd keys' first rows)
		if top.Partitions() != keys/2 {
			t.Fatalf("keys %v: %d partitions after DropWhere, want %d", cols, top.Partitions(), keys/2)
		}
		pushInBatches(t, r, top, rows[keys:])
		final := newChangelog(t)
		top.out = final
		if err := top.Final(context.Background()); err != nil {
			t.Fatal(err)
		}
		var kept []rankRow
		for _, x := range rows {
			if x.id >= keys || x.id%2 == 0 {
				kept = append(kept, x)
			}
		}
		if got, want := final.rows(), refTopN(kept, false, true, RowNumber, 2, false, false, 0); !slices.Equal(got, want) {
			t.Fatalf("keys %v: %d rows, want %d; first differences:\n%s", cols, len(got), len(want), firstDiff(got, want))
		}
		if top.Partitions() != keys {
			t.Fatalf("keys %v: %d partitions, want %d", cols, top.Partitions(), keys)
		}
	}
}

// firstDiff prints the first row where got and want differ.
func firstDiff(got, want []string) string {
	n := min(len(got), len(want))
	for i := 0; i < n; i++ {
		if got[i] != want[i] {
			return fmt.Sprintf("row %d: got %q, want %q", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("the first %d rows are equal", n)
}

type discard struct{}

func (discard) Emit(context.Context, int, *vector.Batch) error { return nil }
func (discard) EmitWatermark(context.Context, int64) error     { return nil }

// kindLog records a Top-N's changes in order: kind and row text.
type kindLog struct {
	kinds []vector.RowKind
	rows  []string
}

func (k *kindLog) Emit(_ context.Context, _ int, b *vector.Batch) error {
	for i := 0; i < b.N; i++ {
		k.kinds = append(k.kinds, b.Kinds[i])
		k.rows = append(k.rows, rowText(b, i))
	}
	return nil
}

func (k *kindLog) EmitWatermark(context.Context, int64) error { return nil }

// TestTopNRowKindsAsFlink: the kinds of a Top-N's changes are Flink 2.3's
// for an append-only input (SPEC 2.8, 2.9). Deduplication keeping the last
// row (ROW_NUMBER, rn = 1, newer first, no rank column) is Flink's
// deduplication (DeduplicateFunctionHelper.updateDeduplicateResult): +I
// for a key's first row, then -U of the row held followed by +U of the new
// one, never -D. A Top-N without the rank column is
// AppendOnlyTopNFunction.processElementWithoutRowNumber: -D of the row
// that left, then +I, never an update. With the rank column and
// ROW_NUMBER (processElementWithRowNumber): +I for a rank that was empty,
// else -U/+U pairs of one rank each, never -D (a row that leaves the top is
// overwritten by the update of rank N).
func TestTopNRowKindsAsFlink(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 13))
		rows := genRankRows(r, 1+r.IntN(300), 20)
		mode := r.IntN(3) // 0: dedup last, 1: no rank column, 2: rank column
		spec := TopNSpec{Types: rankTypes, Keys: []int{0}, Order: []SortKey{{Col: 1, Desc: r.IntN(2) == 0}}, N: 1 + r.Int64N(4), Func: RowNumber}
		switch mode {
		case 0:
			spec.N, spec.NewerFirst = 1, true
		case 2:
			spec.RankNumber = true
		}
		log := &kindLog{}
		top, err := NewTopN(spec, log, nil)
		if err != nil {
			t.Fatal(err)
		}
		pushInBatches(t, r, top, rows)
		held := map[string]bool{} // dedup: the keys with a row
		for j := 0; j < len(log.kinds); j++ {
			k, row := log.kinds[j], log.rows[j]
			key := row[:strings.IndexByte(row, '|')]
			switch mode {
			case 0:
				switch {
				case k == vector.Insert && !held[key]:
					held[key] = true
				case k == vector.UpdateBefore && held[key] && j+1 < len(log.kinds) && log.kinds[j+1] == vector.UpdateAfter &&
					strings.HasPrefix(log.rows[j+1], key+"|"):
					j++
				default:
					t.Fatalf("seed %d: deduplication emitted %s %s (change %d): want +I for a new key, else -U then +U", seed, k, row, j)
				}
			case 1:
				if k != vector.Insert && k != vector.Delete {
					t.Fatalf("seed %d: a Top-N without the rank column emitted %s %s: want -D and +I only", seed, k, row)
				}
			case 2:
				rank := row[strings.LastIndexByte(row, '|'):]
				switch {
				case k == vector.Insert:
				case k == vector.UpdateBefore && j+1 < len(log.kinds) && log.kinds[j+1] == vector.UpdateAfter && strings.HasSuffix(log.rows[j+1], rank):
					j++
				default:
					t.Fatalf("seed %d: a ROW_NUMBER Top-N with the rank column emitted %s %s (change %d): want +I, or -U then +U of one rank", seed, k, row, j)
				}
			}
		}
	}
}

// TestTopNQuietFinal: a Quiet Top-N (a bounded input's, whose changes the
// receiver would discard) emits nothing until Final, and Final emits the same
// table, row for row, as a Top-N that emitted every change.
func TestTopNQuietFinal(t *testing.T) {
	for seed := range uint64(100) {
		r := rand.New(rand.NewPCG(seed, 17))
		rows := genRankRows(r, 1+r.IntN(600), 20)
		spec := TopNSpec{Types: rankTypes, Keys: []int{0}, Order: []SortKey{{Col: 1, Desc: r.IntN(2) == 0}}, N: 1 + r.Int64N(4),
			Func: []RankFunc{RowNumber, Rank, DenseRank}[r.IntN(3)], RankNumber: r.IntN(2) == 0}
		if r.IntN(3) == 0 {
			spec.N, spec.NewerFirst, spec.Func, spec.RankNumber = 1, true, RowNumber, false
		}
		var logs [2]*kindLog
		for q := range 2 {
			logs[q] = &kindLog{}
			top, err := NewTopN(spec, logs[q], nil)
			if err != nil {
				t.Fatal(err)
			}
			top.Quiet(q == 1)
			pushInBatches(t, rand.New(rand.NewPCG(seed, 18)), top, rows)
			if q == 1 && len(logs[q].rows) > 0 {
				t.Fatalf("seed %d: a quiet Top-N emitted %d changes before Final", seed, len(logs[q].rows))
			}
			logs[q].kinds, logs[q].rows = nil, nil
			if err := top.Final(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(logs[0].rows, logs[1].rows) {
			t.Fatalf("seed %d (%+v): the quiet Top-N's final table %q, the other's %q", seed, spec, logs[1].rows, logs[0].rows)
		}
	}
}

// retractIn is a change of the updating input of TestRetractTopNAgainstReference:
// group g (partition p) with count c, its kind.
type retractIn struct {
	p    int64
	g    string
	c    int64
	kind vector.RowKind
	inc  int // (the reference's: the partition's incarnation under a state TTL, refRetractTTL)
}

// genRetractIn is the changelog of a running count per group, some groups
// emptied (-D) and started again, over random groups of a few partitions,
// as an unbounded GROUP BY emits it (SPEC 2.8): +I a new group, -U the old
// row and +U the new one, -D an emptied one.
func genRetractIn(r *rand.Rand, n int) []retractIn {
	live := map[string]int64{}
	var out []retractIn
	for len(out) < n {
		p := r.Int64N(3)
		g := fmt.Sprintf("g%d_%d", p, r.IntN(12))
		c, ok := live[g]
		switch {
		case !ok:
			live[g] = 1
			out = append(out, retractIn{p: p, g: g, c: 1, kind: vector.Insert})
		case r.IntN(6) == 0:
			delete(live, g)
			out = append(out, retractIn{p: p, g: g, c: c, kind: vector.Delete})
		default:
			d := int64(1)
			if r.IntN(4) == 0 && c > 1 {
				d = -1 // (a retraction of the GROUP BY's own input)
			}
			live[g] = c + d
			out = append(out, retractIn{p: p, g: g, c: c, kind: vector.UpdateBefore}, retractIn{p: p, g: g, c: c + d, kind: vector.UpdateAfter})
		}
	}
	return out
}

var retractTypes = []catalog.Type{catalog.BigInt, catalog.Varchar, catalog.BigInt}

func retractBatch(rows []retractIn) *vector.Batch {
	b := vector.NewBatch(retractTypes)
	b.Kinds = make([]vector.RowKind, vector.Cap)
	for i, x := range rows {
		b.Cols[0].I[i] = x.p
		b.Cols[1].SetString(i, []byte(x.g))
		b.Cols[2].I[i] = x.c
		b.Kinds[i] = x.kind
		b.Pos[i] = int64(i)
	}
	b.N = len(rows)
	return b
}

// refRetractTopN is the batch reference: the live rows at the end (each
// group's last row, unless deleted), each partition's (each incarnation
// of it apart, retractIn.inc) sorted by count
// (desc or not; then by group, thenG 1 ascending, -1 descending, 0 not; 2:
// by group alone) with
// ties in the order the rows came, ranked by fn, the rows of rank at most
// n, with the rank when rankCol.
func refRetractTopN(in []retractIn, desc bool, fn RankFunc, n int64, rankCol bool, thenG int) []string {
	type live struct {
		x   retractIn
		seq int
	}
	type group struct {
		g   string
		inc int
	}
	type part struct {
		p   int64
		inc int
	}
	last := map[group]live{}
	for seq, x := range in {
		if x.kind.Retracts() {
			delete(last, group{x.g, x.inc})
			continue
		}
		last[group{x.g, x.inc}] = live{x, seq}
	}
	byPart := map[part][]live{}
	for _, l := range last {
		byPart[part{l.x.p, l.x.inc}] = append(byPart[part{l.x.p, l.x.inc}], l)
	}
	var out []string
	for _, rs := range byPart {
		slices.SortFunc(rs, func(a, b live) int {
			c := cmp.Compare(a.x.c, b.x.c)
			if desc {
				c = -c
			}
			if thenG == 2 {
				c = strings.Compare(a.x.g, b.x.g)
			} else if c == 0 {
				c = thenG * strings.Compare(a.x.g, b.x.g)
			}
			if c != 0 {
				return c
			}
			return cmp.Compare(a.seq, b.seq)
		})
		var r int64
		for j, l := range rs {
			switch {
			case j == 0:
				r = 1
			case fn == RowNumber:
				r = int64(j) + 1
			case rs[j-1].x.c != l.x.c || thenG != 0 && rs[j-1].x.g != l.x.g:
				if fn == Rank {
					r = int64(j) + 1
				} else {
					r++
				}
			}
			if r > n {
				break
			}
			s := fmt.Sprintf("%d|%s|%d", l.x.p, l.x.g, l.x.c)
			if rankCol {
				s += fmt.Sprintf("|%d", r)
			}
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// TestRetractTopNAgainstReference (SPEC 2.8, 2.9: a Top-N over an unbounded
// GROUP BY): for random changelogs of running counts (groups growing,
// shrinking, emptied and started again), batch sizes, ranking functions,
// N, directions, with and without the rank column, applying the Top-N's
// changelog (no row retracted that it does not hold) gives the batch
// reference's final table, and the state goes back to nothing when every
// group is emptied.
func TestRetractTopNAgainstReference(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 41))
		in := genRetractIn(r, 1+r.IntN(400))
		desc, fn, n, rankCol := r.IntN(2) == 0, RankFunc(r.IntN(3)), int64(1+r.IntN(4)), r.IntN(2) == 0
		order, thenG := retractOrder(r, desc)
		log := newChangelog(t)
		acct := &countAccount{}
		o, err := NewRetractTopN(TopNSpec{Types: retractTypes, Keys: []int{0}, Order: order, N: n, Func: fn, RankNumber: rankCol}, log, acct)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		pushBatches(t, r, o, len(in), func(from, to int) *vector.Batch { return retractBatch(in[from:to]) })
		got, want := log.rows(), refRetractTopN(in, desc, fn, n, rankCol, thenG)
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d (%s <= %d, desc %v, then group %d, rank column %v): the changelog's final table\n%s\nthe reference's\n%s\n(%s)", seed, fn, n, desc, thenG, rankCol, strings.Join(got, "\n"), strings.Join(want, "\n"), firstDiff(got, want))
		}
		// every group emptied: only the partitions' keys stay charged
		var drain []retractIn
		last := map[string]retractIn{}
		for _, x := range in {
			if x.kind.Retracts() {
				delete(last, x.g)
			} else {
				last[x.g] = x
			}
		}
		for _, x := range last {
			x.kind = vector.Delete
			drain = append(drain, x)
		}
		for len(drain) > 0 {
			k := min(len(drain), vector.Cap)
			if err := o.Push(ctx, 0, retractBatch(drain[:k])); err != nil {
				t.Fatal(err)
			}
			drain = drain[k:]
		}
		if rows := log.rows(); len(rows) != 0 {
			t.Fatalf("seed %d: every group emptied, the result still holds %q", seed, rows)
		}
		if held := int64(o.Partitions())*(retractPartBytes+16) + int64(o.index.Slots())*FlatSlotBytes; acct.n > held {
			t.Fatalf("seed %d: every group emptied, %d bytes still charged for %d partitions (want at most %d)", seed, acct.n, o.Partitions(), held)
		}
	}
}

// refRetractTTL applies the state TTL rule of RetractTopN to the whole
// input, given each row's processing time (now): a partition untouched by
// any row for ttl ms is gone when its next row comes; a retraction of a
// partition gone (or never made) is dropped, an insert starts a new
// incarnation of it (retractIn.inc). Rows of an incarnation that ended stay
// in the result as they were (the TTL forgets them, it takes nothing back),
// so refRetractTopN over the rows kept, each incarnation its own partition,
// gives the final table.
func refRetractTTL(in []retractIn, now []int64, ttl int64) []retractIn {
	type state struct {
		inc     int
		touched int64
		live    bool
	}
	parts := map[int64]*state{}
	var out []retractIn
	for j, x := range in {
		s := parts[x.p]
		if s != nil && s.live && now[j]-s.touched >= ttl {
			s.live = false
		}
		if s == nil || !s.live {
			if x.kind.Retracts() {
				continue
			}
			if s == nil {
				s = &state{}
				parts[x.p] = s
			} else {
				s.inc++
			}
			s.live = true
		}
		s.touched = now[j]
		x.inc = s.inc
		out = append(out, x)
	}
	return out
}

// TestRetractTopNTTLAgainstReference ('table.exec.state.ttl', SPEC 2.8;
// Flink's RetractableTopNFunction with state TTL): for random changelogs,
// batch sizes and processing times (a clock the test moves between
// batches, sometimes past the TTL), applying the Top-N's changelog gives
// refRetractTTL's table: partitions untouched for the TTL forgotten without
// a change, retractions of their rows ignored, their keys started anew.
func TestRetractTopNTTLAgainstReference(t *testing.T) {
	const ttl = 100
	expired := 0
	for seed := range uint64(seedCount(t, 300, 30)) {
		r := rand.New(rand.NewPCG(seed, 43))
		in := genRetractIn(r, 1+r.IntN(400))
		desc, fn, n, rankCol := r.IntN(2) == 0, RankFunc(r.IntN(3)), int64(1+r.IntN(4)), r.IntN(2) == 0
		order, thenG := retractOrder(r, desc)
		log := newChangelog(t)
		acct := &countAccount{}
		clock := int64(1_000_000)
		o, err := NewRetractTopN(TopNSpec{Types: retractTypes, Keys: []int{0}, Order: order, N: n, Func: fn, RankNumber: rankCol,
			TTL: ttl, Now: func() int64 { return clock }}, log, acct)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		now := make([]int64, len(in))
		for at := 0; at < len(in); {
			switch r.IntN(8) { // (the clock between batches: still, a little, about half the TTL, past it)
			case 0:
			case 1, 2, 3:
				clock += r.Int64N(ttl / 4)
			case 4, 5, 6:
				clock += ttl/2 + r.Int64N(ttl/4)
			default:
				clock += ttl + r.Int64N(ttl)
			}
			k := min(len(in)-at, 1+r.IntN(8))
			for j := at; j < at+k; j++ {
				now[j] = clock
			}
			if err := o.Push(ctx, 0, retractBatch(in[at:at+k])); err != nil {
				t.Fatal(err)
			}
			at += k
		}
		kept := refRetractTTL(in, now, ttl)
		for _, x := range kept {
			expired = max(expired, x.inc)
		}
		got, want := log.rows(), refRetractTopN(kept, desc, fn, n, rankCol, thenG)
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d (%s <= %d, desc %v, then group %d, rank column %v): the changelog's final table\n%s\nthe reference's\n%s\n(%s)", seed, fn, n, desc, thenG, rankCol, strings.Join(got, "\n"), strings.Join(want, "\n"), firstDiff(got, want))
		}
		if o.Partitions() > 3 || acct.n <= 0 {
			t.Fatalf("seed %d: %d partitions held (of 3 keys), %d bytes charged", seed, o.Partitions(), acct.n)
		}
		clock += ttl // (every partition forgotten at the next batch: the state goes back to the index)
		if err := o.Push(ctx, 0, retractBatch(nil)); err != nil {
			t.Fatal(err)
		}
		if o.Partitions() != 0 || acct.n != int64(o.index.Slots())*FlatSlotBytes || len(o.byHash) > 0 {
			t.Fatalf("seed %d: after the TTL, %d partitions, %d bytes charged (the index: %d), %d rows hashed", seed, o.Partitions(), acct.n, o.index.Slots()*FlatSlotBytes, len(o.byHash))
		}
	}
	if expired == 0 {
		t.Fatal("no partition expired in any seed: the test does not test the TTL")
	}
}

// TestRetractTopNTTL: a partition untouched for the TTL is forgotten
// without a change; a retraction of its row is then ignored (Flink's
// lenient "state is cleared because of state ttl"), and its key's next row
// is an insert of a new top list, while a partition touched in time
// (a retraction of a row it does not hold touches it too) stays.
func TestRetractTopNTTL(t *testing.T) {
	now := int64(0)
	log := newChangelog(t)
	top, err := NewRetractTopN(TopNSpec{Types: retractTypes, Keys: []int{0}, Order: []SortKey{{Col: 2, Desc: true}}, N: 1, TTL: 1000, Now: func() int64 { return now }}, log, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	push := func(rows ...retractIn) {
		t.Helper()
		if err := top.Push(ctx, 0, retractBatch(rows)); err != nil {
			t.Fatal(err)
		}
	}
	push(retractIn{p: 1, g: "a", c: 5, kind: vector.Insert}, retractIn{p: 2, g: "b", c: 5, kind: vector.Insert})
	now = 600
	push(retractIn{p: 2, g: "x", c: 1, kind: vector.Delete}) // (nothing held: taken back from no row, the partition touched)
	now = 1200
	push(retractIn{p: 1, g: "a", c: 5, kind: vector.UpdateBefore}, retractIn{p: 1, g: "a", c: 6, kind: vector.UpdateAfter})
	if got, want := log.rows(), []string{"1|a|5", "1|a|6", "2|b|5"}; !slices.Equal(got, want) || top.Partitions() != 2 {
		t.Fatalf("after the TTL: result %q (want %q: the forgotten row stays, the new one enters), %d partitions (want 2)", got, want, top.Partitions())
	}
	push(retractIn{p: 2, g: "b", c: 5, kind: vector.Delete}) // (touched at 600: still held)
	if got, want := log.rows(), []string{"1|a|5", "1|a|6"}; !slices.Equal(got, want) {
		t.Fatalf("result %q, want %q", got, want)
	}
}

// retractOrder returns a random ORDER BY of the retractTypes rows: the
// count (desc or not), then sometimes the group's name (thenG 1 ascending,
// -1 descending, 0 not: the Top-N then compares stored rows past the
// count's order words), or the name alone (thenG 2: no order words).
func retractOrder(r *rand.Rand, desc bool) ([]SortKey, int) {
	switch r.IntN(4) {
	case 0:
		return []SortKey{{Col: 2, Desc: desc}, {Col: 1}}, 1
	case 1:
		return []SortKey{{Col: 2, Desc: desc}, {Col: 1, Desc: true}}, -1
	case 2:
		return []SortKey{{Col: 1}}, 2
	}
	return []SortKey{{Col: 2, Desc: desc}}, 0
}
