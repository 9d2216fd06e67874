package executor

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/planner"
	"streamql/planner/plan"
)

// markRow is a row of the property test's left stream l (k BIGINT, x
// DOUBLE, c BOOLEAN); a nil field is NULL.
type markRow struct {
	k *int64
	x *float64
	c *bool
}

// markBuild is a row of its right stream r (k BIGINT, d DOUBLE).
type markBuild struct {
	k *int64
	d *float64
}

// markBranch is one branch the test may give a job: its WHERE (SQL) and the
// reference's decision for it, written from SPEC 2.1 and 2.2 apart from the
// engine (three-valued logic by hand: nil is NULL).
type markBranch struct {
	where string
	pass  func(l markRow, r []markBuild) *bool
}

func tv(b bool) *bool { return &b }

// eqF is SQL's = of two DOUBLEs: NULL when either is NULL; NaN equals nothing
// (SPEC 2); -0 = 0.
func eqF(a, b *float64) *bool {
	if a == nil || b == nil {
		return nil
	}
	return tv(*a == *b)
}

func eqI(a, b *int64) *bool {
	if a == nil || b == nil {
		return nil
	}
	return tv(*a == *b)
}

// sqlIn is SQL's a IN (values): TRUE when one equals a, else NULL when one
// comparison is NULL, else FALSE.
func sqlIn(cmp []*bool) *bool {
	null := false
	for _, c := range cmp {
		if c == nil {
			null = true
		} else if *c {
			return tv(true)
		}
	}
	if null {
		return nil
	}
	return tv(false)
}

func sqlNot(b *bool) *bool {
	if b == nil {
		return nil
	}
	return tv(!*b)
}

func sqlAnd(a, b *bool) *bool {
	if (a != nil && !*a) || (b != nil && !*b) {
		return tv(false)
	}
	if a == nil || b == nil {
		return nil
	}
	return tv(true)
}

// sqlExists is EXISTS (SELECT 1 FROM r WHERE cond(r row)): TRUE when cond is
// TRUE for a row, else FALSE.
func sqlExists(r []markBuild, cond func(markBuild) *bool) *bool {
	for _, b := range r {
		if c := cond(b); c != nil && *c {
			return tv(true)
		}
	}
	return tv(false)
}

// compare returns eq of each row of r that where keeps (nil: every row),
// the comparisons of an IN (subquery).
func compare(r []markBuild, where func(markBuild) bool, eq func(markBuild) *bool) []*bool {
	var cmp []*bool
	for _, b := range r {
		if where == nil || where(b) {
			cmp = append(cmp, eq(b))
		}
	}
	return cmp
}

var markBranches = []markBranch{
	{"k IN (SELECT k FROM r)", func(l markRow, r []markBuild) *bool {
		return sqlIn(compare(r, nil, func(b markBuild) *bool { return eqI(l.k, b.k) }))
	}},
	{"k NOT IN (SELECT k FROM r)", func(l markRow, r []markBuild) *bool {
		return sqlNot(sqlIn(compare(r, nil, func(b markBuild) *bool { return eqI(l.k, b.k) })))
	}},
	{"x NOT IN (SELECT d FROM r WHERE k > 1)", func(l markRow, r []markBuild) *bool {
		above1 := func(b markBuild) bool { return b.k != nil && *b.k > 1 }
		return sqlNot(sqlIn(compare(r, above1, func(b markBuild) *bool { return eqF(l.x, b.d) })))
	}},
	{"x IN (SELECT d FROM r)", func(l markRow, r []markBuild) *bool {
		return sqlIn(compare(r, nil, func(b markBuild) *bool { return eqF(l.x, b.d) }))
	}},
	{"EXISTS (SELECT 1 FROM r WHERE r.k = l.k AND l.c)", func(l markRow, r []markBuild) *bool {
		return sqlExists(r, func(b markBuild) *bool { return sqlAnd(eqI(b.k, l.k), l.c) })
	}},
	{"NOT EXISTS (SELECT 1 FROM r WHERE r.k = l.k AND r.d > 0)", func(l markRow, r []markBuild) *bool {
		return sqlNot(sqlExists(r, func(b markBuild) *bool {
			var pos *bool
			if b.d != nil {
				pos = tv(*b.d > 0)
			}
			return sqlAnd(eqI(b.k, l.k), pos)
		}))
	}},
	{"x > 0", func(l markRow, _ []markBuild) *bool {
		if l.x == nil {
			return nil
		}
		return tv(*l.x > 0)
	}},
	{"c", func(l markRow, _ []markBuild) *bool { return l.c }},
	{"", func(markRow, []markBuild) *bool { return tv(true) }},
}

// TestMarkJoinRouting checks the router with its branches' MARK joins
// (markJoin, SPEC 2.2's semi and anti joins: IN, NOT IN's three-valued rule,
// EXISTS with a condition on the left row, NOT EXISTS with a build filter;
// BIGINT and DOUBLE keys with NULL, NaN and -0) against a reference that
// evaluates each branch's WHERE row by row in SQL's three-valued logic and
// routes each row to the first branch whose WHERE is TRUE (SPEC 2.1), over
// random jobs of one to four branches, random left rows and random, sometimes
// empty, right sides.
func TestMarkJoinRouting(t *testing.T) {
	cat := catalog.New()
	for _, s := range []*catalog.Stream{
		{Name: "l", EventTime: -1, Columns: []catalog.Column{{Name: "k", Type: catalog.BigInt}, {Name: "x", Type: catalog.Double}, {Name: "c", Type: catalog.Boolean}}},
		{Name: "r", EventTime: -1, Columns: []catalog.Column{{Name: "k", Type: catalog.BigInt}, {Name: "d", Type: catalog.Double}}},
	} {
		s.Connector = catalog.LookupConnector("file")
		s.Options = map[string]string{"path": s.Name + ".csv", "errors": "side", "errors.side": "errors"}
		cat.Add(s)
	}
	doubles := []float64{0, math.Copysign(0, -1), 1, 2.5, math.NaN(), -3}
	for seed := uint64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 22))
		pick := func(n int) bool { return rng.IntN(n) == 0 }
		intOrNull := func() *int64 {
			if pick(6) {
				return nil
			}
			v := int64(rng.IntN(5))
			return &v
		}
		dblOrNull := func() *float64 {
			if pick(6) {
				return nil
			}
			v := doubles[rng.IntN(len(doubles))]
			return &v
		}
		var right []markBuild
		for range rng.IntN(5) {
			right = append(right, markBuild{k: intOrNull(), d: dblOrNull()})
		}
		left := make([]markRow, 1+rng.IntN(60))
		for i := range left {
			left[i] = markRow{k: intOrNull(), x: dblOrNull()}
			if !pick(5) {
				left[i].c = tv(rng.IntN(2) == 0)
			}
		}
		nb := 1 + rng.IntN(4)
		var chosen []markBranch
		var sides []*planner.Branch
		var main *planner.Branch
		var texts []string
		for k := range nb {
			br := markBranches[rng.IntN(len(markBranches))]
			chosen = append(chosen, br)
			sql := "SELECT k FROM l"
			if k < nb-1 {
				sql = fmt.Sprintf("SELECT k INTO SIDE 's%d' FROM l", k)
			}
			if br.where != "" {
				sql += " WHERE " + br.where
			}
			texts = append(texts, sql)
			b := planBranch(t, cat, sql+";")
			if k < nb-1 {
				sides = append(sides, b)
			} else {
				main = b
			}
		}
		job, err := planner.NewJob(main.Stream, sides, main, strings.Join(texts, ";\n"))
		if err != nil {
			t.Fatal(err)
		}
		joins := map[*planner.Branch]*semiBuild{}
		for _, b := range job.AllBranches() {
			if j := b.Join; j != nil {
				ks := newSemiBuild(j, nil, nil)
				rb := vector.NewBatch(j.BuildTypes)
				for i, r := range right {
					rb.Cols[0].Null[i] = r.k == nil
					if r.k != nil {
						rb.Cols[0].I[i] = *r.k
					}
					rb.Cols[1].Null[i] = r.d == nil
					if r.d != nil {
						rb.Cols[1].F[i] = *r.d
					}
				}
				rb.N = len(right)
				sel := make([]int32, len(right))
				for i := range sel {
					sel[i] = int32(i)
				}
				if err := ks.absorb(rb, sel); err != nil {
					t.Fatal(err)
				}
				joins[b] = ks
			}
		}
		sink := &destSink{}
		c := buildChain(job, joins, sink, chainOpts{})
		lb := vector.NewBatch(job.BatchTypes)
		for i, l := range left {
			lb.Cols[0].Null[i], lb.Cols[1].Null[i], lb.Cols[2].Null[i] = l.k == nil, l.x == nil, l.c == nil
			if l.k != nil {
				lb.Cols[0].I[i] = *l.k
			}
			if l.x != nil {
				lb.Cols[1].F[i] = *l.x
			}
			if l.c != nil {
				lb.Cols[2].B[i] = *l.c
			}
			lb.Pos[i] = int64(i + 1)
		}
		lb.N = len(left)
		step := newStep("errors")
		// the rows in two batches, the second of its live rows only
		cut := rng.IntN(len(left) + 1)
		step.SelectRows(lb, 0, cut)
		if err := c.head.Push(context.Background(), Port{}, step); err != nil {
			t.Fatal(err)
		}
		step.SelectRows(lb, cut, len(left))
		if err := c.head.Push(context.Background(), Port{}, step); err != nil {
			t.Fatal(err)
		}
		var want []int
		for _, l := range left {
			dest := -1
			for k, br := range chosen {
				if p := br.pass(l, right); p != nil && *p {
					dest = k
					break
				}
			}
			want = append(want, dest)
		}
		if fmt.Sprint(sink.dest) != fmt.Sprint(want) {
			t.Fatalf("seed %d: %s\nright %s\nleft %s\nrouted to %v\nwant       %v", seed, strings.Join(texts, "; "), showBuild(right), showLeft(left), sink.dest, want)
		}
	}
}

// destSink records, per input row routed, the branch that took it (-1: none).
type destSink struct{ dest []int }

func (s *destSink) Rows(r *Step) error {
	dest := destsOf(r)
	for _, i := range r.Sel {
		s.dest = append(s.dest, int(dest[i]))
	}
	return nil
}
func (s *destSink) Errors(string, []ErrorRow) error { return nil }
func (s *destSink) Flush() error                    { return nil }
func (s *destSink) Close() error                    { return nil }

func showVal[T any](p *T) string {
	if p == nil {
		return "NULL"
	}
	return fmt.Sprint(*p)
}

func showLeft(rows []markRow) string {
	var parts []string
	for _, r := range rows {
		parts = append(parts, fmt.Sprintf("(%s %s %s)", showVal(r.k), showVal(r.x), showVal(r.c)))
	}
	return strings.Join(parts, " ")
}

func showBuild(rows []markBuild) string {
	var parts []string
	for _, r := range rows {
		parts = append(parts, fmt.Sprintf("(%s %s)", showVal(r.k), showVal(r.d)))
	}
	return strings.Join(parts, " ")
}

// TestMarkJoinSeesOfferedRowsOnly: a branch's join evaluates its key and
// condition expressions over the rows offered to its branch only (those no
// branch before took, SPEC 2.1), as its WHERE does, since what they do shows:
// here the NULLs a zero divisor gives, which EXPLAIN ANALYZE counts (SPEC 3).
// The rows with b = 0 all go to the side branch before the join, so the
// join's key a / b never divides by zero; the rows offered to it are counted
// once, and its WHERE sees only the rows the join passed.
func TestMarkJoinSeesOfferedRowsOnly(t *testing.T) {
	cat := catalog.New()
	for _, s := range []*catalog.Stream{
		{Name: "l", EventTime: -1, Columns: []catalog.Column{{Name: "k", Type: catalog.BigInt}, {Name: "a", Type: catalog.BigInt}, {Name: "b", Type: catalog.BigInt}}},
		{Name: "r", EventTime: -1, Columns: []catalog.Column{{Name: "k", Type: catalog.BigInt}}},
	} {
		s.Connector = catalog.LookupConnector("file")
		s.Options = map[string]string{"path": s.Name + ".csv", "errors": "side", "errors.side": "errors"}
		cat.Add(s)
	}
	side := planBranch(t, cat, "SELECT k INTO SIDE 'zero' FROM l WHERE b = 0;")
	main := planBranch(t, cat, "SELECT k FROM l WHERE a / b IN (SELECT k FROM r) AND 10 / (a - 6) > 0;")
	job, err := planner.NewJob(main.Stream, []*planner.Branch{side}, main, "")
	if err != nil {
		t.Fatal(err)
	}
	job.CountNulls() // (before the kernels are compiled, which count then)
	j := job.Main.Join
	if j == nil {
		t.Fatal("the main query has no join")
	}
	ks := newSemiBuild(j, nil, nil)
	rb := vector.NewBatch(j.BuildTypes)
	rb.Cols[0].I[0], rb.Cols[0].I[1], rb.N = 3, 4, 2
	if err := ks.absorb(rb, []int32{0, 1}); err != nil {
		t.Fatal(err)
	}
	sink := &destSink{}
	c := buildChain(job, map[*planner.Branch]*semiBuild{job.Main: ks}, sink, chainOpts{})
	lb := vector.NewBatch(job.BatchTypes)
	// (k, a, b): b = 0 goes to the side; 9/3 = 3 and 8/2 = 4 are in r, 6/2 = 3
	// too but 10 / (6 - 6) is NULL; 5/5 = 1 is not in r
	for i, r := range [][3]int64{{1, 4, 0}, {2, 9, 3}, {3, 6, 0}, {4, 8, 2}, {5, 6, 2}, {6, 5, 5}} {
		lb.Cols[0].I[i], lb.Cols[1].I[i], lb.Cols[2].I[i] = r[0], r[1], r[2]
		lb.Pos[i] = int64(i + 1)
		lb.N++
	}
	step := newStep("errors")
	step.SelectRows(lb, 0, lb.N)
	if err := c.head.Push(context.Background(), Port{}, step); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(sink.dest), "[0 1 0 1 -1 -1]"; got != want {
		t.Errorf("routed to %s, want %s", got, want)
	}
	job.CountNulls()
	key, where := j.ProbeKeys[0], job.Main.Where
	if key.Op != plan.OpDiv || where == nil || where.Args[0].Op != plan.OpDiv {
		t.Fatalf("the plan is not the one this test reads: key %s, WHERE %v", key.Text, where)
	}
	nulls := map[string]int64{"a / b": key.NullCount.Load(), "10 / (a - 6)": where.Args[0].NullCount.Load()}
	// a / b: offered the 4 rows with b <> 0, none a zero divisor; 10 / (a -
	// 6): offered the 3 rows the join passed, one with a = 6
	if nulls["a / b"] != 0 || nulls["10 / (a - 6)"] != 1 {
		t.Errorf("NULLs counted %v, want a / b: 0 and 10 / (a - 6): 1 (each over the rows offered to it)", nulls)
	}
}

// TestMarkJoinSplitDrain checks an event-time semi or anti join as its
// stage's gate operator (route.Gate) against SPEC 2.2's rule computed here
// from the build rows: a left row (k, t) has a partner when a build row of
// key k came with a time <= t; SEMI puts the rows with one on its pass
// port, ANTI those without, the others go to its rest port; while a stopped
// job drains (drain), a row the build watermark has not passed (unset, or
// <= t) while the build stream has not ended goes to neither port, and
// without drain none does. Its marks are evaluated over every offered row.
func TestMarkJoinSplitDrain(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, mode := range []string{"SEMI", "ANTI"} {
		job := planEventJoin(t, "SELECT l.k, l.ts FROM l "+mode+" JOIN r ON l.k = r.k;", 0, 0)
		j := job.Main.Join
		for range 200 {
			ks := newSemiBuild(j, nil, nil)
			// (the build watermark is set by hand below, not by the rows)
			l := markLayout(j)
			l.WM = false
			ks.op = newMarkOp(j, l, nil)
			ks.wm = -1
			earliest := map[string]int64{}
			rb := vector.NewBatch(j.BuildTypes)
			var sel []int32
			ts := int64(0)
			for i := range 1 + rng.IntN(20) {
				ts += int64(rng.IntN(5))
				k := fmt.Sprint("k", rng.IntN(8))
				rb.Cols[0].SetString(i, []byte(k))
				rb.Cols[1].I[i] = ts
				rb.N++
				sel = append(sel, int32(i))
				if _, ok := earliest[k]; !ok {
					earliest[k] = ts // (in time order: the first is the earliest, none late)
				}
			}
			if err := ks.absorb(rb, sel); err != nil {
				t.Fatal(err)
			}
			wmSet, wm, ended := rng.IntN(4) > 0, int64(rng.IntN(60)), rng.IntN(5) == 0
			if wmSet {
				_ = ks.op.Watermark(context.Background(), 1, wm)
			}
			if ended {
				_ = ks.op.Finish(context.Background(), 1)
			}
			m := newMarkJoin(j, ks, nil)
			m.drain = rng.IntN(3) > 0
			lb := vector.NewBatch(job.BatchTypes)
			var offered []int32
			for i := range vector.Cap {
				lb.Cols[0].SetString(i, []byte(fmt.Sprint("k", rng.IntN(10))))
				lb.Cols[1].I[i] = int64(rng.IntN(70))
				lb.N++
				if rng.IntN(3) > 0 {
					offered = append(offered, int32(i))
				}
			}
			var wantPass, wantRest []int32
			for _, i := range offered {
				k, lt := string(lb.Cols[0].S[i]), lb.Cols[1].I[i]
				if m.drain && !ended && (!wmSet || lt >= wm) {
					continue // pending
				}
				e, ok := earliest[k]
				if partner := ok && e <= lt; partner == (mode == "SEMI") {
					wantPass = append(wantPass, i)
				} else {
					wantRest = append(wantRest, i)
				}
			}
			pass, rest := m.Split(lb, offered, make([]int32, 0, vector.Cap), make([]int32, 0, vector.Cap))
			if fmt.Sprint(pass) != fmt.Sprint(wantPass) && len(pass)+len(wantPass) > 0 || fmt.Sprint(rest) != fmt.Sprint(wantRest) && len(rest)+len(wantRest) > 0 {
				t.Fatalf("%s (drain %v, wm %v %d, ended %v): pass %v rest %v, want %v and %v", mode, m.drain, wmSet, wm, ended, pass, rest, wantPass, wantRest)
			}
		}
	}
}

// TestMarkJoinChainsMarkAtOnce: the chains of a parallel path (the morsel
// workers, morsel.go) each have a MARK gate of their own over one build side
// (semiBuild, op.SemiJoin's Mark mode), which they mark at once once it was
// read whole: a gate's marks must depend on its own rows only. Four chains
// mark batches of keys of different lengths at once; each row's mark must
// be whether its key is a build key (SPEC 2.2), as computed here. (Run with
// -race, a state written while marking is reported as such.)
func TestMarkJoinChainsMarkAtOnce(t *testing.T) {
	job := planBounded(t, "SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k;")
	j := job.Main.Join
	mb := newSemiBuild(j, nil, nil)
	build := map[string]bool{}
	rb := vector.NewBatch(j.BuildTypes)
	for i := range 500 {
		k := fmt.Sprint("k", strings.Repeat("x", i%40), i)
		build[k] = true
		rb.Cols[0].SetString(i%vector.Cap, []byte(k))
		rb.N++
		if rb.N == vector.Cap || i == 499 {
			sel := make([]int32, rb.N)
			for x := range sel {
				sel[x] = int32(x)
			}
			if err := mb.absorb(rb, sel); err != nil {
				t.Fatal(err)
			}
			rb.Reset()
		}
	}
	errs := make(chan string, 4)
	for w := range 4 {
		go func() {
			m := newMarkJoin(j, mb, nil)
			lb := vector.NewBatch(job.BatchTypes)
			rng := rand.New(rand.NewPCG(uint64(w), 3))
			all := make([]int32, vector.Cap)
			for i := range all {
				all[i] = int32(i)
			}
			for range 100 {
				for i := range vector.Cap {
					n := rng.IntN(1000) // (half of them build keys)
					lb.Cols[0].SetString(i, []byte(fmt.Sprint("k", strings.Repeat("x", (n+w*7)%40), n)))
				}
				lb.N = vector.Cap
				mark := m.Eval(lb, all)
				for i := range vector.Cap {
					if k := string(lb.Cols[0].S[i]); mark.B[i] != build[k] || mark.Null[i] {
						errs <- fmt.Sprintf("chain %d: key %q marked %v (NULL %v), want %v", w, k, mark.B[i], mark.Null[i], build[k])
						return
					}
				}
			}
			errs <- ""
		}()
	}
	for range 4 {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}
