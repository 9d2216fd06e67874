package op

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/format"
	"streamql/executor/vector"
	"streamql/internal/sensorbench"
)

// scalarRow is a row of the layout scalarTypes: DOUBLE key, BOOLEAN key,
// VARCHAR value, TIMESTAMP value, BIGINT value; a nil pointer is NULL.
type scalarRow struct {
	f  *float64
	b  *bool
	s  *string
	ts *int64
	n  *int64
}

var scalarTypes = []catalog.Type{catalog.Double, catalog.Boolean, catalog.Varchar, catalog.Timestamp, catalog.BigInt}

// genScalarRows makes n rows whose keys repeat (so keys have several rows),
// with NULLs in every column, NaN, 0.0 and -0.0 among the DOUBLE keys and
// empty strings among the values.
func genScalarRows(r *rand.Rand, n int) []scalarRow {
	floats := []float64{0, math.Copysign(0, -1), 1.5, -2, math.NaN(), math.Inf(1), 1e300}
	rows := make([]scalarRow, n)
	for i := range rows {
		var x scalarRow
		if r.IntN(9) > 0 {
			f := floats[r.IntN(len(floats))]
			x.f = &f
		}
		if r.IntN(9) > 0 {
			b := r.IntN(2) == 0
			x.b = &b
		}
		if r.IntN(7) > 0 {
			s := strings.Repeat("é", r.IntN(3)) + fmt.Sprint(i)
			if r.IntN(8) == 0 {
				s = ""
			}
			x.s = &s
		}
		if r.IntN(7) > 0 {
			ts := r.Int64N(1e12) - 5e11
			x.ts = &ts
		}
		if r.IntN(7) > 0 {
			v := int64(i)
			x.n = &v
		}
		rows[i] = x
	}
	return rows
}

// scalarBatch returns rows as a batch of scalarTypes.
func scalarBatch(rows []scalarRow) *vector.Batch {
	b := vector.NewBatch(scalarTypes)
	for i, x := range rows {
		b.Cols[0].Null[i], b.Cols[1].Null[i], b.Cols[2].Null[i], b.Cols[3].Null[i], b.Cols[4].Null[i] = x.f == nil, x.b == nil, x.s == nil, x.ts == nil, x.n == nil
		if x.f != nil {
			b.Cols[0].F[i] = *x.f
		}
		if x.b != nil {
			b.Cols[1].B[i] = *x.b
		}
		if x.s != nil {
			b.Cols[2].SetString(i, []byte(*x.s))
		}
		if x.ts != nil {
			b.Cols[3].I[i] = *x.ts
		}
		if x.n != nil {
			b.Cols[4].I[i] = *x.n
		}
		b.Pos[i] = int64(i)
	}
	b.N = len(rows)
	return b
}

// text renders x as the reference and logEmitter-like output do.
// keeping returns x with the columns keep does not mark NULL (a join's
// state without them, JoinSpec.Keep).
func (x scalarRow) keeping(keep []bool) scalarRow {
	if !keep[0] {
		x.f = nil
	}
	if !keep[1] {
		x.b = nil
	}
	if !keep[2] {
		x.s = nil
	}
	if !keep[3] {
		x.ts = nil
	}
	if !keep[4] {
		x.n = nil
	}
	return x
}

func (x scalarRow) text() string {
	var cols []string
	add := func(null bool, s string) {
		if null {
			s = "NULL"
		}
		cols = append(cols, s)
	}
	add(x.f == nil, string(vector.AppendValue(nil, catalog.Double, scalarValue(catalog.Double, x), 0)))
	add(x.b == nil, string(vector.AppendValue(nil, catalog.Boolean, scalarValue(catalog.Boolean, x), 0)))
	add(x.s == nil, string(vector.AppendValue(nil, catalog.Varchar, scalarValue(catalog.Varchar, x), 0)))
	add(x.ts == nil, string(vector.AppendValue(nil, catalog.Timestamp, scalarValue(catalog.Timestamp, x), 0)))
	add(x.n == nil, string(vector.AppendValue(nil, catalog.BigInt, scalarValue(catalog.BigInt, x), 0)))
	return strings.Join(cols, ",")
}

// scalarValue returns column t of x as a one-row vector (zero when NULL).
func scalarValue(t catalog.Type, x scalarRow) *vector.Vec {
	v := vector.NewVec(t)
	switch {
	case t == catalog.Double && x.f != nil:
		v.F[0] = *x.f
	case t == catalog.Boolean && x.b != nil:
		v.B[0] = *x.b
	case t == catalog.Varchar && x.s != nil:
		v.SetString(0, []byte(*x.s))
	case t == catalog.Timestamp && x.ts != nil:
		v.I[0] = *x.ts
	case t == catalog.BigInt && x.n != nil:
		v.I[0] = *x.n
	}
	return v
}

// scalarEmitter renders each joined row as "left | right".
type scalarEmitter struct{ out []string }

func (e *scalarEmitter) Emit(_ context.Context, port int, b *vector.Batch) error {
	if port != JoinOut {
		return fmt.Errorf("a lookup join emitted %d rows to port %d", b.N, port)
	}
	for i := 0; i < b.N; i++ {
		var cols []string
		for c := range b.Cols {
			if c == len(scalarTypes) {
				cols = append(cols, "|")
			}
			if b.Cols[c].Null[i] {
				cols = append(cols, "NULL")
				continue
			}
			cols = append(cols, string(vector.AppendValue(nil, b.Cols[c].Type, b.Cols[c], i)))
		}
		e.out = append(e.out, strings.Replace(strings.Join(cols, ","), ",|,", " | ", 1))
	}
	return nil
}

func (e *scalarEmitter) EmitWatermark(context.Context, int64) error { return nil }

// TestLookupTableAgainstReference: a lookup join probing its right side's
// lookupTable (DOUBLE, BOOLEAN, TIMESTAMP and BIGINT keys, VARCHAR values,
// NULLs everywhere, NaN and -0.0 keys; the BIGINT keys by turns dense near 0,
// near the least and the greatest BIGINT, repeated, and sparse, so that both
// of the table's indexes are probed) gives, for INNER and LEFT and each key
// set, the rows of a nested-loop reference over the whole inputs in its
// order (left rows in order, each one's partners in the right input's
// order; SPEC 2's equality: NULL and NaN match nothing, 0.0 matches -0.0),
// over random inputs and batch sizes (300 seeds), and the counts; a third of
// the seeds keep only some right columns (JoinSpec.Keep: the others are NULL).
func TestLookupTableAgainstReference(t *testing.T) {
	ctx := context.Background()
	eq := func(c int, l, r scalarRow) bool {
		switch c {
		case 0:
			return l.f != nil && r.f != nil && *l.f == *r.f // (NaN != NaN; 0.0 == -0.0)
		case 1:
			return l.b != nil && r.b != nil && *l.b == *r.b
		case 3:
			return l.ts != nil && r.ts != nil && *l.ts == *r.ts
		}
		return l.n != nil && r.n != nil && *l.n == *r.n
	}
	var indexes [2]int // the tables of key {4} with a dense index, with a hash index
	for seed := range seedCount(t, 300, 300) {
		r := rand.New(rand.NewPCG(uint64(seed), 5))
		in := [2][]scalarRow{genScalarRows(r, r.IntN(300)), genScalarRows(r, r.IntN(80))}
		// the BIGINT keys: dense from base (repeated when m is small), or
		// sparse over the whole range
		base, m := []int64{0, -40, math.MaxInt64 - 60, math.MinInt64}[seed%4], 1+r.Int64N(60)
		for s := range in {
			for i := range in[s] {
				if in[s][i].n == nil {
					continue
				}
				v := base + r.Int64N(m)
				if seed%5 == 4 {
					v = []int64{math.MinInt64, math.MaxInt64, 0, -1, r.Int64()}[r.IntN(5)]
				}
				in[s][i].n = &v
			}
		}
		// the right side's columns the join keeps (JoinSpec.Keep: nil keeps
		// all; the key columns are kept whatever it says), the others NULL in
		// the joined rows
		var keep []bool
		if seed%3 == 1 {
			keep = make([]bool, len(scalarTypes))
			for c := range keep {
				keep[c] = r.IntN(2) == 0
			}
		}
		for _, keys := range [][]int{{0}, {1}, {0, 1}, {1, 0}, {4}, {3}, {4, 1}} {
			var texts [2][]string
			for s := range in {
				for _, x := range in[s] {
					if s == 1 && keep != nil {
						x = x.keeping(keepWith(keep, keys))
					}
					texts[s] = append(texts[s], x.text())
				}
			}
			for _, kind := range []JoinKind{Inner, Left} {
				var want []string
				var partnered [2]int64
				used := make([]bool, len(in[1]))
				for li, l := range in[0] {
					matched := false
					for ri, rr := range in[1] {
						all := true
						for _, c := range keys {
							all = all && eq(c, l, rr)
						}
						if all {
							want = append(want, texts[0][li]+" | "+texts[1][ri])
							matched = true
							if !used[ri] {
								used[ri] = true
								partnered[1]++
							}
						}
					}
					if matched {
						partnered[0]++
					} else if kind == Left {
						want = append(want, texts[0][li]+" | NULL,NULL,NULL,NULL,NULL")
					}
				}
				e := &scalarEmitter{}
				j, err := NewJoin(JoinSpec{Kind: kind, Types: [2][]catalog.Type{scalarTypes, scalarTypes}, Keys: [2][]int{keys, keys},
					Time: [2]int{-1, -1}, Stamp: [2]int{-1, -1}, Lookup: true, Keep: [2][]bool{nil, keep}}, e, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range []int{1, 0} {
					for at := 0; at < len(in[s]); {
						n := min(1+r.IntN(70), len(in[s])-at)
						if err := j.Push(ctx, s, scalarBatch(in[s][at:at+n])); err != nil {
							t.Fatal(err)
						}
						at += n
					}
					if err := j.Finish(ctx, s); err != nil {
						t.Fatal(err)
					}
				}
				if j.table == nil {
					t.Fatal("the lookup join did not lay its right side out as a lookupTable")
				}
				if slices.Equal(keys, []int{4}) && len(j.table.data) > 0 {
					if j.table.dense != nil {
						indexes[0]++
					} else {
						indexes[1]++
					}
				}
				name := fmt.Sprintf("seed %d, %s, keys %v", seed, kind, keys)
				if !slices.Equal(e.out, want) {
					t.Fatalf("%s: got\n%s\nwant\n%s", name, strings.Join(e.out, "\n"), strings.Join(want, "\n"))
				}
				if c := j.Counts(); c.Partnered != partnered || c.In != [2]int64{int64(len(in[0])), int64(len(in[1]))} {
					t.Fatalf("%s: counts %+v, want partnered %v", name, c, partnered)
				}
			}
		}
	}
	if indexes[0] < 100 || indexes[1] < 30 {
		t.Fatalf("%d tables of a BIGINT key with a dense index and %d with a hash index: both want probing", indexes[0], indexes[1])
	}
}

// TestLookupLazyIndexInvisible: a lookup join that probes left batches puts
// its right side's index off (Join.lazy: the table is laid out from the
// rows) and builds it when a left row comes before the right input ends;
// its output, rows and order, and its counts equal those of the same join
// keeping the index all along, for INNER and LEFT, BIGINT and VARCHAR keys,
// batches of both inputs interleaved at random, the right input ending
// before, amid or after the left one, and right sides of up to 3,000 rows
// mostly of NULL keys (dead rows, compacted away) (300 seeds).
func TestLookupLazyIndexInvisible(t *testing.T) {
	ctx := context.Background()
	// run returns what the join emitted, and whether it built its put-off
	// index before the right input ended
	run := func(spec JoinSpec, in [2][]testRow, seed uint64, lazy bool) (*logEmitter, bool) {
		t.Helper()
		r := rand.New(rand.NewPCG(seed, 77))
		e := &logEmitter{}
		j, err := NewJoin(spec, e, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !j.lazy {
			t.Fatal("a lookup join that probes left batches keeps its right index from the start")
		}
		j.lazy = lazy
		var at [2]int
		early := false
		endRight := r.IntN(len(in[0]) + 1) // (the left rows pushed when the right input ends, if it has no rows left)
		for at[0] < len(in[0]) || at[1] < len(in[1]) || !j.done[1] {
			s := r.IntN(2)
			if at[s] == len(in[s]) {
				s = 1 - s
			}
			if s == 1 && at[1] == len(in[1]) {
				if at[0] >= endRight || at[0] == len(in[0]) {
					if err := j.Finish(ctx, 1); err != nil {
						t.Fatal(err)
					}
					continue
				}
				s = 0
			}
			n := min(1+r.IntN(200), len(in[s])-at[s])
			if err := j.Push(ctx, s, batchOf(in[s][at[s]:at[s]+n])); err != nil {
				t.Fatal(err)
			}
			at[s] += n
			early = early || lazy && !j.lazy && !j.done[1]
		}
		if err := j.Finish(ctx, 0); err != nil {
			t.Fatal(err)
		}
		e.counts = j.Counts()
		return e, early
	}
	var built int // the joins that built their lazy index amid the right input
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 31))
		in := [2][]testRow{genSide(r, "l", r.IntN(600), 0), genSide(r, "r", r.IntN(80), 0)}
		if seed%3 == 0 {
			in[1] = genSide(r, "r", 2000+r.IntN(1000), 0)
			for i := range in[1] {
				if r.IntN(10) < 7 {
					in[1][i].key = -1
				}
			}
		}
		for s := range in {
			for i := range in[s] {
				in[s][i].stamp = math.MinInt64
			}
		}
		for _, text := range []bool{false, true} {
			keys := []int{0}
			if text {
				keys = []int{2}
				for s := range in {
					for i := range in[s] {
						in[s][i].v = fmt.Sprintf("k%d", in[s][i].key)
					}
				}
			}
			for _, kind := range []JoinKind{Inner, Left} {
				spec := JoinSpec{Kind: kind, Types: [2][]catalog.Type{joinTypes, joinTypes}, Keys: [2][]int{keys, keys}, Time: [2]int{-1, -1}, Stamp: [2]int{-1, -1}, Lookup: true}
				got, early := run(spec, in, seed, true)
				want, _ := run(spec, in, seed, false)
				name := fmt.Sprintf("seed %d %s text %v", seed, kind, text)
				if !slices.Equal(got.out, want.out) {
					t.Fatalf("%s: with the index put off\n%s\nkept all along\n%s", name, strings.Join(got.out, "\n"), strings.Join(want.out, "\n"))
				}
				if got.counts != want.counts {
					t.Fatalf("%s: counts %+v, with the index kept %+v", name, got.counts, want.counts)
				}
				if early {
					built++
				}
			}
		}
	}
	if built < 100 {
		t.Fatalf("only %d joins built their put-off index before the right input ended", built)
	}
}

// BenchmarkLookupJoinText is BenchmarkLookupJoin with a VARCHAR key (the
// users' names, "user<n>"): the table's hash index, not the dense one (CPU
// ns per left row: go test ./executor/op -run XXX -bench LookupJoinText).
func BenchmarkLookupJoinText(b *testing.B) {
	const users = 100_000
	spec := JoinSpec{Kind: Left, Types: [2][]catalog.Type{joinTypes, joinTypes}, Keys: [2][]int{{2}, {2}}, Time: [2]int{-1, -1}, Stamp: [2]int{-1, -1}, Lookup: true}
	j, err := NewJoin(spec, &countEmitter{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	names := make([][]byte, users+users/10)
	for i := range names {
		names[i] = fmt.Appendf(nil, "user%d", i)
	}
	batch := vector.NewBatch(joinTypes)
	for at := 0; at < users; at += vector.Cap {
		batch.Reset()
		for i := range min(vector.Cap, users-at) {
			batch.Cols[0].I[i] = int64(at + i)
			batch.Cols[2].SetString(i, names[at+i])
			batch.Cols[3].Null[i] = true
			batch.N++
		}
		if err := j.Push(ctx, 1, batch); err != nil {
			b.Fatal(err)
		}
	}
	if err := j.Finish(ctx, 1); err != nil {
		b.Fatal(err)
	}
	if j.table == nil || j.table.dense != nil {
		b.Fatal("the VARCHAR key's table has no hash index")
	}
	b.ResetTimer()
	cpu := sensorbench.CPUTime()
	for n := 0; n < b.N; n++ {
		batch.Reset()
		for i := range vector.Cap {
			k := (n*vector.Cap + i*7919) % len(names)
			batch.Cols[0].I[i], batch.Cols[1].I[i] = int64(k), int64(n*vector.Cap+i)
			batch.Cols[2].SetString(i, names[k])
			batch.Cols[3].Null[i] = true
		}
		batch.N = vector.Cap
		if err := j.Push(ctx, 0, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((sensorbench.CPUTime()-cpu).Nanoseconds())/float64(b.N*vector.Cap), "cpu-ns/row")
}

// TestHashBatchEqualsBatchKeyHash: the lookup table's hashes of a batch's
// keys, a column at a time, are batchKeyHash's row by row (the hash index
// holds those), and a key with a NULL in an = part or a NaN has none, for
// every key set of scalarTypes' columns over random rows (NULLs, NaN, -0.0,
// empty strings), with random null-safe parts (whose NULL hashes with
// nullMark); so are batchKeyHashes' (the state's) and Rows.keyHash's.
func TestHashBatchEqualsBatchKeyHash(t *testing.T) {
	var tab lookupTable
	for seed := range 200 {
		r := rand.New(rand.NewPCG(uint64(seed), 3))
		b := scalarBatch(genScalarRows(r, 1+r.IntN(vector.Cap)))
		keys := r.Perm(len(scalarTypes))[:1+r.IntN(len(scalarTypes))]
		var ns []bool
		if seed%2 == 1 {
			for range keys {
				ns = append(ns, r.IntN(2) == 0)
			}
		}
		tab.ns = ns
		hs, ok := tab.hashBatch(b, keys)
		if len(hs) != b.N || len(ok) != b.N {
			t.Fatalf("seed %d: %d hashes for %d rows", seed, len(hs), b.N)
		}
		all, allOK := batchKeyHashes(b, keys, ns, nil, nil)
		rows := NewRows(scalarTypes)
		for i := range b.N {
			rows.Add(b, i)
		}
		for i := range b.N {
			h, fine := batchKeyHash(b, i, keys, ns)
			if ok[i] != fine || fine && hs[i] != h {
				t.Fatalf("seed %d, keys %v, null-safe %v, row %d: hashBatch %x %v, batchKeyHash %x %v", seed, keys, ns, i, hs[i], ok[i], h, fine)
			}
			if allOK[i] != fine || fine && all[i] != h {
				t.Fatalf("seed %d, keys %v, null-safe %v, row %d: batchKeyHashes %x %v, batchKeyHash %x %v", seed, keys, ns, i, all[i], allOK[i], h, fine)
			}
			if rh, rok := rows.keyHash(i, keys, ns); rok != fine || fine && rh != h {
				t.Fatalf("seed %d, keys %v, null-safe %v, row %d: Rows.keyHash %x %v, batchKeyHash %x %v", seed, keys, ns, i, rh, rok, h, fine)
			}
		}
	}
}

// plainEmitter encodes each joined row as the csv and tsv encoders and the
// other delimiters' would (format.AppendCSVRow, AppendJSONFields,
// vector.AppendValue) twice: as the join gave it, with the values the lookup
// table marked plain (vector.Vec.Text), and with every VARCHAR column's
// Text cleared (the general writer, which checks each value); it records
// the first difference and counts the values marked and not.
type plainEmitter struct {
	cols          []catalog.Column
	bare          []*vector.Vec
	diff          string
	marked, other int
	leftMarked    int      // of marked, the left side's (its columns come first: half of them)
	rows          []string // each joined row's csv line, the general writer's
}

func (e *plainEmitter) Emit(_ context.Context, port int, b *vector.Batch) error {
	if port != JoinOut {
		return fmt.Errorf("a lookup join emitted %d rows to port %d", b.N, port)
	}
	if e.cols == nil {
		for c, v := range b.Cols {
			e.cols = append(e.cols, catalog.Column{Name: fmt.Sprint("c", c), Type: v.Type})
		}
	}
	e.bare = e.bare[:0]
	for _, v := range b.Cols {
		w := *v
		if v.Type == catalog.Varchar {
			w.Text = nil
		}
		e.bare = append(e.bare, &w)
	}
	for i := range b.N {
		for c, v := range b.Cols {
			if v.Type != catalog.Varchar || v.Text == nil || v.Null[i] {
				continue
			}
			switch m := v.Text[i]; {
			case m == nil:
				e.other++
			case !bytes.Equal(m, v.S[i]) || !format.Plain(m):
				e.diff = fmt.Sprintf("row %d column %d: %q marked plain as %q", i, c, v.S[i], m)
				return nil
			default:
				e.marked++
				if c < len(b.Cols)/2 {
					e.leftMarked++
				}
			}
		}
		for _, d := range []byte{',', '\t', ';', '|'} {
			got, want := format.AppendCSVRow(nil, e.cols, b.Cols, i, d), format.AppendCSVRow(nil, e.cols, e.bare, i, d)
			if !bytes.Equal(got, want) && e.diff == "" {
				e.diff = fmt.Sprintf("row %d, delimiter %q: %q, the general writer %q", i, d, got, want)
			}
		}
		e.rows = append(e.rows, string(format.AppendCSVRow(nil, e.cols, e.bare, i, ',')))
		got, want := format.AppendJSONFields(nil, e.cols, b.Cols, i), format.AppendJSONFields(nil, e.cols, e.bare, i)
		if !bytes.Equal(got, want) && e.diff == "" {
			e.diff = fmt.Sprintf("row %d, json: %s, the general writer %s", i, got, want)
		}
		for c, v := range b.Cols {
			if !v.Null[i] && !bytes.Equal(vector.AppendValue(nil, v.Type, v, i), vector.AppendValue(nil, v.Type, e.bare[c], i)) && e.diff == "" {
				e.diff = fmt.Sprintf("row %d column %d: its printed form differs", i, c)
			}
		}
	}
	return nil
}

func (e *plainEmitter) EmitWatermark(context.Context, int64) error { return nil }

// TestLookupPlainTextEncodesAsWritten: the VARCHAR values of a lookup join's
// right side are checked once as its table is laid out (format.Plain), and
// the joined rows carry the fact in vector.Vec.Text, which the csv and tsv
// encoders copy unchecked; so do the left side's marks, made by its decoder
// (vector.Batch.PlainMarks: here most plain values of two seeds in three,
// others left unmarked), carried by the gather. Over random right sides whose text columns hold
// commas, tabs, quotes, CR, LF, other delimiters, multi-byte and plain text,
// empty strings and NULLs, with a BIGINT key (dense and hash indexes) or a
// VARCHAR key (whose flag byte carries the mark too: it must still match),
// INNER and LEFT (padded rows), random batch sizes (200 seeds): every joined
// row's csv fields for the delimiters ',', tab, ';' and '|', its JSON
// fields and its printed values equal the general writer's (each value
// checked as it is written), the joined rows are a nested-loop reference's
// over the whole inputs, in its order, a value is marked exactly when it is
// plain, and both marked and unmarked values occur.
func TestLookupPlainTextEncodesAsWritten(t *testing.T) {
	ctx := context.Background()
	types := []catalog.Type{catalog.BigInt, catalog.Varchar, catalog.Varchar, catalog.Varchar}
	pieces := []string{"a", "user7", "é", ",", "\t", "\"", "\n", "\r", ";", "|", " ", "x\"y", "DE"}
	text := func(r *rand.Rand) string {
		s := ""
		for range r.IntN(4) {
			s += pieces[r.IntN(len(pieces))]
			if r.IntN(2) == 0 {
				s += "plain"
			}
		}
		return s
	}
	batch := func(r *rand.Rand, n int, span int64, marks bool) *vector.Batch {
		b := vector.NewBatch(types)
		for i := range n {
			b.Cols[0].I[i], b.Cols[0].Null[i] = r.Int64N(span), r.IntN(15) == 0
			for c := 1; c < len(types); c++ {
				v := b.Cols[c]
				v.Null[i] = r.IntN(8) == 0
				if !v.Null[i] {
					v.SetString(i, []byte(text(r)))
				}
				if marks { // (as a decoder's, vector.Batch.PlainMarks: some plain values left unmarked)
					if v.Text == nil {
						v.Text = make([][]byte, vector.Cap)
					}
					if !v.Null[i] && format.Plain(v.S[i]) && r.IntN(4) != 0 {
						v.Text[i] = v.S[i]
					}
				}
			}
			if b.Cols[3].Null[i] && r.IntN(2) == 0 { // (a VARCHAR key from a few)
				b.Cols[3].SetString(i, []byte(pieces[r.IntN(len(pieces))]))
			}
			b.Pos[i] = int64(i)
		}
		b.N = n
		return b
	}
	var marked, other, hashed, leftMarked int
	for seed := range seedCount(t, 200, 200) {
		r := rand.New(rand.NewPCG(uint64(seed), 23))
		span := []int64{40, 1 << 40}[seed%2] // (dense, or sparse: a hash index)
		keys := [][]int{{0}, {3}}[seed/2%2]
		for _, kind := range []JoinKind{Inner, Left} {
			e := &plainEmitter{}
			j, err := NewJoin(JoinSpec{Kind: kind, Types: [2][]catalog.Type{types, types}, Keys: [2][]int{keys, keys},
				Time: [2]int{-1, -1}, Stamp: [2]int{-1, -1}, Lookup: true}, e, nil)
			if err != nil {
				t.Fatal(err)
			}
			type row struct {
				line, key string // its csv line (the general writer's), its key's text
				null      bool   // a NULL key: it matches nothing
			}
			var in [2][]row
			cols := make([]catalog.Column, len(types))
			for c, ty := range types {
				cols[c] = catalog.Column{Name: fmt.Sprint("c", c), Type: ty}
			}
			for _, s := range []int{1, 0} {
				for range 1 + r.IntN(3) {
					b := batch(r, 1+r.IntN(120), span, s == 0 && seed%3 != 0)
					for i := range b.N {
						k := b.Cols[keys[0]]
						in[s] = append(in[s], row{string(format.AppendCSVRow(nil, cols, b.Cols, i, ',')), string(vector.AppendValue(nil, k.Type, k, i)), k.Null[i]})
					}
					if err := j.Push(ctx, s, b); err != nil {
						t.Fatal(err)
					}
				}
				if err := j.Finish(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			if j.table == nil {
				t.Fatal("the lookup join did not lay its right side out as a lookupTable")
			}
			if j.table.dense == nil {
				hashed++
			}
			if e.diff != "" {
				t.Fatalf("seed %d, %s, keys %v: %s", seed, kind, keys, e.diff)
			}
			var want []string
			for _, l := range in[0] {
				n := len(want)
				for _, rr := range in[1] {
					if !l.null && !rr.null && l.key == rr.key {
						want = append(want, l.line+","+rr.line)
					}
				}
				if n == len(want) && kind == Left {
					want = append(want, l.line+strings.Repeat(",", len(types)))
				}
			}
			if !slices.Equal(e.rows, want) {
				t.Fatalf("seed %d, %s, keys %v: %d joined rows, want %d:\n%q\nwant\n%q", seed, kind, keys, len(e.rows), len(want), e.rows, want)
			}
			marked, other, leftMarked = marked+e.marked, other+e.other, leftMarked+e.leftMarked
		}
	}
	if marked < 1000 || other < 1000 || hashed < 100 || leftMarked < 1000 {
		t.Fatalf("%d joined values marked plain (%d of them left ones), %d not, %d tables with a hash index: too few to tell", marked, leftMarked, other, hashed)
	}
}

// TestRunOf: Join.gather copies a column at once only for pairs whose left
// rows are consecutive (runOf), and gathers row by row otherwise: a row
// repeated (two partners), skipped (none, INNER), or out of order.
func TestRunOf(t *testing.T) {
	for _, c := range []struct {
		sel  []int32
		want int
	}{
		{nil, -1},
		{[]int32{0}, 0},
		{[]int32{0, 1, 2, 3}, 0},
		{[]int32{5, 6, 7}, 5},
		{[]int32{0, 0, 2}, -1},
		{[]int32{0, 2, 3}, -1},
		{[]int32{1, 2, 2}, -1},
		{[]int32{3, 2, 1}, -1},
	} {
		if got := runOf(c.sel); got != c.want {
			t.Errorf("runOf(%v) = %d, want %d", c.sel, got, c.want)
		}
	}
}
