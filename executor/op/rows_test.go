package op

import (
	"math/rand/v2"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// rowsModel is a reference store: each slot's value, or absent (freed,
// dropped), written apart from Rows.
type rowsModel struct {
	s    []string
	sNil []bool
	i    []int64
	live []bool
}

// TestRowsSetFreeCompactAgainstModel: random adds, in-place overwrites
// (Set), frees and Compacts (Compact, or CompactDead given the dead rows),
// with values from empty to longer than an arena
// chunk, keep every live row's values as a model says, and, with values
// shorter than a chunk, the arena no bigger than its live bytes and a third
// more, plus a chunk's tail each (the store holds what it holds, not its
// history).
func TestRowsSetFreeCompactAgainstModel(t *testing.T) {
	types := []catalog.Type{catalog.Varchar, catalog.BigInt, catalog.Varchar}
	for seed := range uint64(16) {
		longShare := int(seed%2) * 2 // (percent of the values longer than a chunk: odd seeds)
		r := rand.New(rand.NewPCG(seed, 11))
		rows := NewRows(types)
		var m rowsModel
		b := vector.NewBatch(types)
		value := func() (string, bool) {
			switch x := r.IntN(100); {
			case x < 5:
				return "", true // NULL
			case x < 10:
				return "", false
			case x < 10+longShare:
				return strings.Repeat(string(rune('a'+r.IntN(26))), arenaChunk+r.IntN(3*arenaChunk)), false
			default:
				return strings.Repeat(string(rune('a'+r.IntN(26))), 1+r.IntN(300)), false
			}
		}
		fill := func() (string, bool, int64) {
			b.Reset()
			s, null := value()
			b.Cols[0].SetString(0, []byte(s))
			b.Cols[0].Null[0] = null
			b.Cols[1].I[0], b.Cols[1].Null[0] = r.Int64(), false
			b.Cols[2].Null[0] = false
			b.Cols[2].SetString(0, []byte(s+"!"))
			b.Pos[0] = 0
			b.N = 1
			return s, null, b.Cols[1].I[0]
		}
		check := func(step int) {
			for k := range rows.Len() {
				if !m.live[k] {
					continue
				}
				if rows.Null(k, 0) != m.sNil[k] || !m.sNil[k] && string(rows.Str(k, 0)) != m.s[k] ||
					rows.Int(k, 1) != m.i[k] || string(rows.Str(k, 2)) != m.s[k]+"!" {
					t.Fatalf("seed %d step %d: row %d is (%q, %d, %q), want (%q, %d, %q)", seed, step, k,
						rows.Str(k, 0), rows.Int(k, 1), rows.Str(k, 2), m.s[k], m.i[k], m.s[k]+"!")
				}
			}
		}
		for step := range 1500 {
			switch op := r.IntN(10); {
			case op < 5 || rows.Len() == 0:
				s, null, i := fill()
				k, _ := rows.Add(b, 0)
				if k != len(m.s) {
					t.Fatalf("seed %d: Add gave row %d of %d", seed, k, len(m.s))
				}
				m.s, m.sNil, m.i, m.live = append(m.s, s), append(m.sNil, null), append(m.i, i), append(m.live, true)
			case op < 7:
				k := r.IntN(rows.Len())
				s, null, i := fill()
				rows.Set(k, b, 0)
				m.s[k], m.sNil[k], m.i[k], m.live[k] = s, null, i, true
			case op < 9:
				k := r.IntN(rows.Len())
				if m.live[k] {
					rows.Free(k)
					m.live[k] = false
				}
			default:
				var moved []int
				if r.IntN(2) == 0 {
					moved = rows.Compact(func(k int) bool { return m.live[k] })
				} else { // (CompactDead: the same, its dead prefix skipped)
					dead := make([]bool, rows.Len())
					for k := range dead {
						dead[k] = !m.live[k]
					}
					moved = rows.CompactDead(dead)
				}
				var n rowsModel
				for k, to := range moved {
					if to < 0 {
						continue
					}
					if to != len(n.s) {
						t.Fatalf("seed %d: Compact moved row %d to %d, want %d", seed, k, to, len(n.s))
					}
					n.s, n.sNil, n.i, n.live = append(n.s, m.s[k]), append(n.sNil, m.sNil[k]), append(n.i, m.i[k]), append(n.live, true)
				}
				m = n
			}
			check(step)
		}
		for c := range rows.cols {
			rc := &rows.cols[c]
			if rc.off.n == 0 || longShare > 0 { // (a long value stays where it is: the holes between them are not bounded by this)
				continue
			}
			live, long := 0, 0
			for k := range rows.Len() {
				if m.live[k] {
					live += rc.recordSize(k)
					if rc.size(k) > arenaChunk {
						long++
					}
				}
			}
			// the garbage below a quarter, and what no compaction takes: a
			// chunk's tail too short for the next value
			holes := len(rc.chunks)*301 + (long+1)*arenaChunk
			if limit := (live+holes)*4/3 + 4096; int(rc.top) > limit {
				t.Fatalf("seed %d: column %d's arena is %d bytes for %d live ones (garbage %d, long %d, chunks %d)", seed, c, rc.top, live, rc.garbage, long, len(rc.chunks))
			}
		}
	}
}

// TestPushAllAgainstPush: appending runs of values at once (intColumn's and
// nullBits' pushAll, which Rows.appendBatch uses) stores what appending them
// one by one stores: values near a block's base and far from it (a block
// turned wide in the middle of a run), runs across blocks and words, NULL
// flags set and not.
func TestPushAllAgainstPush(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 29))
	for seed := range 50 {
		var one, all intColumn
		var nOne, nAll nullBits
		var want []int64
		var wantNull []bool
		for range 40 {
			run := make([]int64, r.IntN(3000))
			nulls := make([]bool, len(run))
			for i := range run {
				run[i] = 1_600_000_000_000 + r.Int64N(1000)
				if r.IntN(500) == 0 {
					run[i] = r.Int64() // (not within 2^31: the block widens)
				}
				nulls[i] = seed%2 == 0 && r.IntN(7) == 0
				one.push(run[i])
				nOne.push(nulls[i])
			}
			all.pushAll(run)
			nAll.pushAll(nulls)
			want, wantNull = append(want, run...), append(wantNull, nulls...)
		}
		if all.n != len(want) || nAll.n != len(want) {
			t.Fatalf("seed %d: %d values, %d flags, want %d", seed, all.n, nAll.n, len(want))
		}
		for k, x := range want {
			if all.get(k) != x || one.get(k) != x {
				t.Fatalf("seed %d: value %d is %d (pushAll), %d (push), want %d", seed, k, all.get(k), one.get(k), x)
			}
			if nAll.get(k) != wantNull[k] || nOne.get(k) != wantNull[k] {
				t.Fatalf("seed %d: NULL flag %d is %v (pushAll), %v (push), want %v", seed, k, nAll.get(k), nOne.get(k), wantNull[k])
			}
		}
	}
}

// TestPackBoolsAgainstLoop: packBools (nullBits.pushAll's word of flags,
// eight read at once) sets bit i exactly where flag i is true, for every
// length up to a word's 64 flags and flags of every density.
func TestPackBoolsAgainstLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 31))
	for n := range 65 {
		for density := range 5 {
			bs := make([]bool, n)
			want := uint64(0)
			for i := range bs {
				bs[i] = r.IntN(4) < density
				if bs[i] {
					want |= 1 << i
				}
			}
			if got := packBools(bs); got != want {
				t.Fatalf("%d flags %v: %064b, want %064b", n, bs, got, want)
			}
		}
	}
}

// TestRowsFreeBelowAgainstModel: rows added in order and dropped about in
// that order (each within a window of the oldest live one, as a lookup
// join's held left rows leave), with FreeBelow called at the first live row
// whenever a chunk is freeable and Compact once the dead rows are three
// times the live ones, keep every live row's values as a model says, and
// hold no chunk below the first live row's value (with values from empty to
// longer than an arena chunk).
func TestRowsFreeBelowAgainstModel(t *testing.T) {
	types := []catalog.Type{catalog.Varchar, catalog.BigInt, catalog.Varchar}
	for seed := range uint64(8) {
		longShare := int(seed%2) * 2
		r := rand.New(rand.NewPCG(seed, 23))
		rows := NewRows(types)
		var m rowsModel
		b := vector.NewBatch(types)
		low, ndead, freed := 0, 0, 0
		for step := range 6000 {
			if r.IntN(2) == 0 || rows.Len()-ndead < 50 {
				s := ""
				switch x := r.IntN(100); {
				case x < 10:
				case x < 10+longShare:
					s = strings.Repeat(string(rune('a'+r.IntN(26))), arenaChunk+r.IntN(2*arenaChunk))
				default:
					s = strings.Repeat(string(rune('a'+r.IntN(26))), 1+r.IntN(300))
				}
				b.Reset()
				b.Cols[0].SetString(0, []byte(s))
				b.Cols[1].I[0] = int64(step)
				b.Cols[2].SetString(0, []byte(s+"!"))
				b.N = 1
				rows.appendBatch(b, nil)
				m.s, m.i, m.live = append(m.s, s), append(m.i, int64(step)), append(m.live, true)
			} else {
				k := min(rows.Len()-1, low+r.IntN(40)) // (a row near the oldest live one dies)
				if m.live[k] {
					m.live[k] = false
					ndead++
				}
			}
			for low < rows.Len() && !m.live[low] {
				low++
			}
			if rows.Freeable(low) > 0 {
				rows.FreeBelow(low)
				freed++
			}
			if ndead >= 1000 && ndead*4 >= rows.Len()*3 {
				moved := rows.Compact(func(k int) bool { return m.live[k] })
				var n rowsModel
				for k, to := range moved {
					if to >= 0 {
						n.s, n.i, n.live = append(n.s, m.s[k]), append(n.i, m.i[k]), append(n.live, true)
					}
				}
				m, low, ndead = n, 0, 0
			}
			for k := low; k < rows.Len() && step%20 == 0; k++ {
				if m.live[k] && (string(rows.Str(k, 0)) != m.s[k] || rows.Int(k, 1) != m.i[k] || string(rows.Str(k, 2)) != m.s[k]+"!") {
					t.Fatalf("seed %d step %d: row %d is (%.20q, %d), want (%.20q, %d)", seed, step, k, rows.Str(k, 0), rows.Int(k, 1), m.s[k], m.i[k])
				}
			}
			if low < rows.Len() {
				for _, c := range []int{0, 2} {
					rc := &rows.cols[c]
					if o := rc.off.get(low); o != noAddr {
						for s := range int(o >> arenaBits) {
							if rc.chunks[s] != nil {
								t.Fatalf("seed %d step %d: column %d holds chunk %d below row %d's (%d)", seed, step, c, s, low, o>>arenaBits)
							}
						}
					}
				}
			}
		}
		if freed == 0 {
			t.Fatalf("seed %d: FreeBelow never let a chunk go", seed)
		}
	}
}

// TestRowsCompactRunsAgainstModel: Compact and CompactDead move the kept
// rows down a run at a time (Rows.moveRows: column.move, intColumn.move,
// nullBits.move); over stores of several blocks (colBlock rows), with dead
// prefixes, long runs and scattered holes, every kept row keeps its values
// and position as a model written apart says: BIGINTs near their block's
// base, far enough from a lower block's to widen it when moved there
// (drifting by 2^18 a row: a block of them spans 2^30), and far from any (wide blocks), TIMESTAMPs,
// DOUBLEs, BOOLEANs and VARCHARs, with NULLs (odd seeds) or none.
func TestRowsCompactRunsAgainstModel(t *testing.T) {
	types := []catalog.Type{catalog.BigInt, catalog.Timestamp, catalog.Double, catalog.Boolean, catalog.Varchar, catalog.BigInt}
	type row struct {
		i, ts, far int64
		f          float64
		b          bool
		s          string
		null       [6]bool
		pos        int64
	}
	for seed := range uint64(12) {
		r := rand.New(rand.NewPCG(seed, 23))
		nulls := seed%2 == 1
		rows := NewRows(types)
		var model []row
		b := vector.NewBatch(types)
		next := int64(0)
		add := func(n int) { // a batch of n rows, by appendBatch or Add
			b.Reset()
			for x := range n {
				next++
				w := row{i: next << 18, ts: next * 1000, f: float64(next) / 3, b: next%3 == 0,
					s: strings.Repeat("v", int(next%17)), far: next, pos: next}
				if r.IntN(50) == 0 {
					w.far = r.Int64() // (not within 2^31 of the block's base: a wide block)
				}
				if nulls {
					for c := range w.null {
						w.null[c] = r.IntN(8) == 0
					}
				}
				cs := b.Cols
				cs[0].I[x], cs[1].I[x], cs[2].F[x], cs[3].B[x], cs[5].I[x] = w.i, w.ts, w.f, w.b, w.far
				cs[4].SetString(x, []byte(w.s))
				for c := range w.null {
					cs[c].Null[x] = w.null[c]
				}
				b.Pos[x] = w.pos
				model = append(model, w)
			}
			b.N = n
			if r.IntN(2) == 0 {
				rows.appendBatch(b, nil)
				return
			}
			for x := range n {
				rows.Add(b, x)
			}
		}
		check := func(round int) {
			if rows.Len() != len(model) {
				t.Fatalf("seed %d round %d: %d rows, want %d", seed, round, rows.Len(), len(model))
			}
			for k, w := range model {
				got := row{pos: rows.Pos(k)}
				for c := range got.null {
					got.null[c] = rows.Null(k, c)
				}
				if !w.null[0] {
					got.i = rows.Int(k, 0)
				}
				if !w.null[1] {
					got.ts = rows.Int(k, 1)
				}
				if !w.null[2] {
					got.f = rows.Float(k, 2)
				}
				if !w.null[3] {
					got.b = rows.Bool(k, 3)
				}
				if !w.null[4] {
					got.s = string(rows.Str(k, 4))
				}
				if !w.null[5] {
					got.far = rows.Int(k, 5)
				}
				want := w
				for c, null := range w.null {
					if null { // (a NULL's value is not read)
						switch c {
						case 0:
							want.i = 0
						case 1:
							want.ts = 0
						case 2:
							want.f = 0
						case 3:
							want.b = false
						case 4:
							want.s = ""
						case 5:
							want.far = 0
						}
					}
				}
				if got != want {
					t.Fatalf("seed %d round %d: row %d is %+v, want %+v", seed, round, k, got, want)
				}
			}
		}
		for round := range 12 {
			for range 1 + r.IntN(12) {
				add(1 + r.IntN(vector.Cap))
			}
			n := rows.Len()
			keep := make([]bool, n)
			prefix := r.IntN(n + 1)
			for k := prefix; k < n; k++ {
				switch r.IntN(4) {
				case 0: // (scattered holes)
					keep[k] = r.IntN(3) != 0
				default:
					keep[k] = true
				}
				if r.IntN(200) == 0 { // (a long dead run in the middle)
					for e := min(n, k+r.IntN(3*colBlock)); k < e; k++ {
						keep[k] = false
					}
				}
			}
			var moved []int
			if r.IntN(2) == 0 {
				asked := 0
				moved = rows.Compact(func(k int) bool {
					if k != asked {
						t.Fatalf("seed %d round %d: Compact asked about row %d after %d rows (once a row, in order)", seed, round, k, asked)
					}
					asked++
					return keep[k]
				})
				if asked != n {
					t.Fatalf("seed %d round %d: Compact asked about %d rows of %d", seed, round, asked, n)
				}
			} else {
				dead := make([]bool, n)
				for k := range dead {
					dead[k] = !keep[k]
				}
				moved = rows.CompactDead(dead)
			}
			var kept []row
			for k, to := range moved {
				if (to >= 0) != keep[k] || to >= 0 && to != len(kept) {
					t.Fatalf("seed %d round %d: row %d (kept %v) moved to %d, want %d", seed, round, k, keep[k], to, len(kept))
				}
				if to >= 0 {
					kept = append(kept, model[k])
				}
			}
			model = kept
			check(round)
		}
	}
}

// TestAppendBatchTextsAgainstAdd: a batch of VARCHAR values appended whole
// (appendBatch, whose records go into the arena's current chunk with one
// reservation when they fit: rowCol.addTexts) stores the same values and
// counts the same bytes, row by row and in all, as Add a row at a time,
// for batches of short, empty, NULL and long (two-byte length) values,
// many of them crossing a chunk's end.
func TestAppendBatchTextsAgainstAdd(t *testing.T) {
	types := []catalog.Type{catalog.BigInt, catalog.Varchar}
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 31))
		whole, byRow := NewRows(types), NewRows(types)
		b := vector.NewBatch(types)
		var sizes []int32
		for step := range 300 {
			n := 1 + r.IntN(vector.Cap)
			b.Reset()
			long := r.IntN(4) == 0
			for i := range n {
				b.Cols[0].I[i] = int64(step*vector.Cap + i)
				l := r.IntN(12)
				if long && r.IntN(10) == 0 {
					l = 100 + r.IntN(300)
				}
				b.Cols[1].SetString(i, []byte(strings.Repeat(string(rune('a'+r.IntN(26))), l)))
				b.Cols[1].Null[i] = r.IntN(10) == 0
			}
			b.N = n
			sizes = sizes[:0]
			got := whole.appendBatch(b, &sizes)
			want := int64(0)
			for i := range n {
				k, bytes := byRow.Add(b, i)
				want += bytes
				if w := whole.Str(k, 1); string(w) != string(byRow.Str(k, 1)) || whole.Null(k, 1) != byRow.Null(k, 1) {
					t.Fatalf("seed %d step %d row %d: appended %q (NULL %v), added %q (NULL %v)", seed, step, i, w, whole.Null(k, 1), byRow.Str(k, 1), byRow.Null(k, 1))
				}
				if int64(sizes[i]) != bytes {
					t.Fatalf("seed %d step %d row %d: appended counts %d bytes, Add %d", seed, step, i, sizes[i], bytes)
				}
			}
			if got != want {
				t.Fatalf("seed %d step %d: the batch counts %d bytes, its rows added one by one %d", seed, step, got, want)
			}
		}
	}
}
