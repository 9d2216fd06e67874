package streamql_test

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"streamql"
)

// TestSemiJoinOverAJoinProperty: an IN, EXISTS or NOT EXISTS subquery over
// a bounded stream (SPEC 2.2) in the WHERE of a query whose FROM is a join
// of two streams (SPEC 2.7, written with JOIN … ON or as a comma join)
// filters the joined rows by a column of either input, also one that only
// the subquery reads (the joined rows must carry it: column pruning,
// plan.JoinInput.Pass), and a qualified column of the right input is
// found (the semi join's scope is the join's, not its left input's alone).
// The reference is computed here from the rows: every pair of rows with
// equal non-NULL join keys, kept when the column's value is among the
// build side's non-NULL values (IN, EXISTS) or not (NOT EXISTS: a NULL
// column is kept), compared as multisets of (a.id, b.id). Keys and
// columns repeat and are sometimes NULL.
func TestSemiJoinOverAJoinProperty(t *testing.T) {
	for seed := int64(1); seed <= 24; seed++ {
		r := rand.New(rand.NewSource(seed))
		val := func(n int) *int64 { // (NULL one time in eight)
			if r.Intn(8) == 0 {
				return nil
			}
			v := int64(r.Intn(n))
			return &v
		}
		num := func(p *int64) string {
			if p == nil {
				return "NULL"
			}
			return fmt.Sprint(*p)
		}
		type row struct {
			id   int
			k, c *int64 // the join key, the column the subquery filters by
		}
		var as, bs []row
		var ds []*int64
		for i := range 5 + r.Intn(30) {
			as = append(as, row{id: i, k: val(6), c: val(8)})
		}
		for i := range 5 + r.Intn(30) {
			bs = append(bs, row{id: 100 + i, k: val(6), c: val(8)})
		}
		for range r.Intn(8) {
			ds = append(ds, val(8))
		}
		var sb strings.Builder
		sb.WriteString("CREATE STREAM a (id INT, k BIGINT, p BIGINT) WITH ('connector' = 'values');\n")
		sb.WriteString("CREATE STREAM b (id INT, k BIGINT, q BIGINT) WITH ('connector' = 'values');\n")
		sb.WriteString("CREATE STREAM d (x BIGINT) WITH ('connector' = 'values');\n")
		for _, x := range as {
			fmt.Fprintf(&sb, "INSERT INTO a VALUES (%d, %s, %s);\n", x.id, num(x.k), num(x.c))
		}
		for _, x := range bs {
			fmt.Fprintf(&sb, "INSERT INTO b VALUES (%d, %s, %s);\n", x.id, num(x.k), num(x.c))
		}
		for _, x := range ds {
			fmt.Fprintf(&sb, "INSERT INTO d VALUES (%s);\n", num(x))
		}
		var got []string
		s, err := streamql.Open(streamql.Options{OnRows: func(out streamql.Output, rows *streamql.Rows) error {
			if out.Name != "main" {
				return nil
			}
			for i := range rows.Len() {
				got = append(got, fmt.Sprint(rows.Value(0, i), ",", rows.Value(1, i)))
			}
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := s.ExecScript(ctx, "semi.sql", sb.String(), "."); err != nil {
			t.Fatal(err)
		}
		inD := func(c *int64) bool {
			for _, x := range ds {
				if c != nil && x != nil && *x == *c {
					return true
				}
			}
			return false
		}
		for _, col := range []string{"a.p", "b.q"} {
			for _, mode := range []string{"IN", "EXISTS", "NOT EXISTS"} {
				cond := col + " IN (SELECT x FROM d)"
				if mode != "IN" {
					cond = mode + " (SELECT 1 FROM d WHERE d.x = " + col + ")"
				}
				var want []string
				for _, x := range as {
					for _, y := range bs {
						if x.k == nil || y.k == nil || *x.k != *y.k {
							continue
						}
						c := x.c
						if col == "b.q" {
							c = y.c
						}
						if inD(c) == (mode != "NOT EXISTS") {
							want = append(want, fmt.Sprint(x.id, ",", y.id))
						}
					}
				}
				slices.Sort(want)
				for _, q := range []string{
					"SELECT a.id, b.id FROM a JOIN b ON a.k = b.k WHERE " + cond,
					"SELECT a.id, b.id FROM a, b WHERE a.k = b.k AND " + cond,
				} {
					got = got[:0]
					if err := s.Exec(ctx, q); err != nil {
						t.Fatalf("seed %d: %s: %v", seed, q, err)
					}
					slices.Sort(got)
					if !slices.Equal(got, want) {
						t.Errorf("seed %d: %s:\ngot  %v\nwant %v", seed, q, got, want)
					}
				}
			}
		}
		cancel()
	}
}
