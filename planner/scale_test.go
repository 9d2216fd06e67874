package planner

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"streamql/catalog"
	"streamql/parser"
)

// Planning is linear in the size of the query (issue 9, item 3): these tests plan
// a query of size n and of size 4n and require the cost of the larger one to stay
// within a factor of 6 of the smaller one (a quadratic planning gives 16).

// planCost parses src once and returns the bytes allocated by one PlanSelect of
// its first statement, and the time it took (the fastest of three runs).
func planCost(t *testing.T, cat *catalog.Catalog, src string) (bytes uint64, took time.Duration) {
	t.Helper()
	sc, err := parser.Parse("scale", src)
	if err != nil {
		t.Fatal(err)
	}
	sel := sc.Stmts[0].(*parser.Select)
	p := &Planner{Cat: cat, Source: src}
	took = time.Hour
	for range 3 {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		t0 := time.Now()
		if _, err := p.PlanSelect(sel); err != nil {
			t.Fatal(err)
		}
		took = min(took, time.Since(t0))
		runtime.ReadMemStats(&m1)
		bytes = m1.TotalAlloc - m0.TotalAlloc
	}
	return bytes, took
}

func scaleCat() *catalog.Catalog {
	cat := catalog.New()
	cat.Add(testStream())
	return cat
}

func TestPlanningIsLinearInExpressionSize(t *testing.T) {
	if testing.Short() {
		t.Skip("plans queries of some thousand nodes")
	}
	cases := []struct {
		name string
		n    int
		expr func(n int) string
	}{
		// nested parentheses: each level used to copy its operand's text
		{"parentheses", 200, func(n int) string { return strings.Repeat("(", n) + "s" + strings.Repeat(")", n) }},
		// a WHERE of many conditions: the AND text used to grow by concatenation
		{"AND of many conditions", 500, func(n int) string {
			return "i FROM t WHERE " + strings.Repeat("s = '"+strings.Repeat("abcdefghij", 20)+"' AND ", n) + "b --"
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			query := func(n int) string {
				e := c.expr(n)
				if strings.Contains(e, " FROM ") {
					return "SELECT " + strings.TrimSuffix(e, " --")
				}
				return "SELECT " + e + " AS x FROM t"
			}
			b1, _ := planCost(t, scaleCat(), query(c.n))
			b4, _ := planCost(t, scaleCat(), query(4*c.n))
			if float64(b4) > 6*float64(b1) {
				t.Errorf("planning %d nodes allocated %d bytes, %d nodes %d bytes: %.1f times as much, want linear (at most 6)", c.n, b1, 4*c.n, b4, float64(b4)/float64(b1))
			}
		})
	}
}

// allocRatio plans query(n) and query(4n) and returns how many times as many
// bytes the larger allocated, and both byte counts. Bytes allocated are the
// same on every run whatever the machine's load, so the test is not timed (the
// wall time of the same plans is BenchmarkPlanningScale's). Text rendered or
// copied at every level of a tree, the faults these tests were written for,
// allocates quadratically.
func allocRatio(t *testing.T, n int, query func(n int) (*catalog.Catalog, string)) (float64, uint64, uint64) {
	c1, q1 := query(n)
	c4, q4 := query(4 * n)
	b1, _ := planCost(t, c1, q1)
	b4, _ := planCost(t, c4, q4)
	return float64(b4) / float64(max(b1, 1)), b1, b4
}

// chainQuery returns a query of n+1 terms joined by op over t's column of
// op's type (i + i + ..., s || s || ..., b AND b AND ...).
func chainQuery(op string) func(n int) (*catalog.Catalog, string) {
	col := map[string]string{" + ": "i", " || ": "s", " AND ": "b"}[op]
	return func(n int) (*catalog.Catalog, string) {
		return scaleCat(), "SELECT " + strings.Repeat(col+op, n) + col + " AS x FROM t"
	}
}

// columnsQuery returns a query that reads n columns of a stream of n columns,
// in reverse order.
func columnsQuery(n int) (*catalog.Catalog, string) {
	cat := catalog.New()
	cat.Add(wideStream(n))
	var b strings.Builder
	b.WriteString("SELECT ")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "c%d", n-1-i)
	}
	b.WriteString(" FROM w")
	return cat, b.String()
}

// BenchmarkPlanningScale plans operator chains and wide projections at n and
// 4n: ns/op of the 4n case over the n case is about 4 for linear planning
// and 16 for quadratic (compare the sub-benchmarks' ns/op).
func BenchmarkPlanningScale(b *testing.B) {
	type scaled struct {
		name  string
		n     int
		query func(n int) (*catalog.Catalog, string)
	}
	cases := []scaled{{"columns", 4000, columnsQuery}}
	for _, op := range []string{" + ", " || ", " AND "} {
		cases = append(cases, scaled{"chain" + strings.TrimSpace(op), 2000, chainQuery(op)})
	}
	for _, c := range cases {
		for _, n := range []int{c.n, 4 * c.n} {
			cat, src := c.query(n)
			sc, err := parser.Parse("scale", src)
			if err != nil {
				b.Fatal(err)
			}
			sel := sc.Stmts[0].(*parser.Select)
			b.Run(fmt.Sprintf("%s/n=%d", c.name, n), func(b *testing.B) {
				p := &Planner{Cat: cat, Source: src}
				for b.Loop() {
					if _, err := p.PlanSelect(sel); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func TestPlanningIsLinearInOperatorChains(t *testing.T) {
	if testing.Short() {
		t.Skip("plans long expressions")
	}
	// i + i + ... is an AST as deep as it is long: every level used to render the
	// text of its whole subtree (10,000 terms took 7.6 s)
	for _, op := range []string{" + ", " || ", " AND "} {
		r, b1, b4 := allocRatio(t, 2000, chainQuery(op))
		t.Logf("%q: %.2f", op, r)
		if r > 6 {
			t.Errorf("%q: planning 2000 terms allocated %d bytes, 8000 terms %d bytes: %.1f times as much, want linear (at most 6)", op, b1, b4, r)
		}
	}
}

// wideStream is a stream of n BIGINT columns c0 ... c(n-1).
func wideStream(n int) *catalog.Stream {
	st := &catalog.Stream{Name: "w", EventTime: -1, Connector: valuesSpec, Options: map[string]string{}}
	for i := range n {
		st.Columns = append(st.Columns, catalog.Column{Name: fmt.Sprintf("c%d", i), Type: catalog.BigInt})
	}
	return st
}

func TestPlanningIsLinearInColumns(t *testing.T) {
	if testing.Short() {
		t.Skip("plans queries of many columns")
	}
	if r, b1, b4 := allocRatio(t, 4000, columnsQuery); r > 6 {
		t.Errorf("planning 4000 columns allocated %d bytes, 16000 columns %d bytes: %.1f times as much, want linear (at most 6)", b1, b4, r)
	}
}

func TestPlanningStopsWhenCancelled(t *testing.T) {
	src := "SELECT " + strings.Repeat("i + ", 5000) + "i AS x FROM t"
	sc, err := parser.Parse("cancel", src)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := &Planner{Cat: scaleCat(), Source: src, Ctx: ctx}
	if _, err := p.PlanSelect(sc.Stmts[0].(*parser.Select)); !errors.Is(err, context.Canceled) {
		t.Fatalf("PlanSelect with a cancelled context = %v, want context.Canceled", err)
	}
	// cancelled while it runs: the check comes every tickEvery nodes
	ctx, cancel = context.WithCancel(context.Background())
	sc2 := &scope{rels: []relation{{stream: testStream(), name: "t"}}, ticks: &ticker{ctx: ctx}}
	for range tickEvery - 1 {
		if err := sc2.tick(); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	if err := sc2.tick(); !errors.Is(err, context.Canceled) {
		t.Fatalf("tick after cancel = %v, want context.Canceled", err)
	}
}
