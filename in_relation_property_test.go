package streamql_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"streamql"
)

// TestInSubqueryOverRelationsAgainstReference: `x [NOT] IN (subquery)` whose
// subquery is more than a SELECT of one stream (SPEC 2.6: every operator
// composes with every other; SPEC 2.2's semi and anti join) runs over the
// relation the subquery gives, for every shape that was refused ("the
// subquery must read one stream", "may not have GROUP BY, HAVING ..."): a
// GROUP BY with HAVING, a UNION ALL, a join, a comma join, DISTINCT, and a
// WITH. Random inputs with NULL keys; the reference computes each
// subquery's rows and SQL's three-valued IN / NOT IN (an empty subquery
// passes every row, a NULL on either side passes no row of NOT IN) on its
// own, and the rows must come in the left stream's order. NOT (x IN
// (subquery)), which was refused, is x NOT IN (subquery), also over a
// plain SELECT of one stream.
func TestInSubqueryOverRelationsAgainstReference(t *testing.T) {
	type orow struct{ id, k int64 }
	type prow struct{ k, v int64 }
	const null = int64(math.MinInt64) // (a NULL key; the shapes compute no such value)
	field := func(v int64) string {
		if v == null {
			return ""
		}
		return fmt.Sprint(v)
	}
	for seed := int64(0); seed < 60; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var os_ []orow
		var ps []prow
		key := func() int64 {
			if rng.Intn(8) == 0 {
				return null
			}
			return rng.Int63n(5)
		}
		for i := 0; i < rng.Intn(12); i++ {
			os_ = append(os_, orow{int64(i + 1), key()})
		}
		for i := 0; i < rng.Intn(12); i++ {
			ps = append(ps, prow{key(), rng.Int63n(10)})
		}
		var ob, pb strings.Builder
		for _, r := range os_ {
			fmt.Fprintf(&ob, "%d,%s\n", r.id, field(r.k))
		}
		for _, r := range ps {
			fmt.Fprintf(&pb, "%s,%d\n", field(r.k), r.v)
		}
		dir := t.TempDir()
		for name, text := range map[string]string{"o.csv": ob.String(), "p.csv": pb.String()} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		a, b := rng.Int63n(10), rng.Int63n(12)
		// each shape: its SQL and, separately, the keys its rows hold
		type shape struct {
			sql  string
			keys func() []int64
		}
		shapes := []shape{
			{fmt.Sprintf("SELECT k FROM p GROUP BY k HAVING COUNT(*) > %d", a%3), func() []int64 {
				n := map[int64]int{}
				var order []int64
				for _, r := range ps {
					if n[r.k] == 0 {
						order = append(order, r.k)
					}
					n[r.k]++
				}
				var out []int64
				for _, k := range order {
					if n[k] > int(a%3) {
						out = append(out, k)
					}
				}
				return out
			}},
			{fmt.Sprintf("SELECT k FROM p WHERE v > %d UNION ALL SELECT k FROM o WHERE id < %d", a, b), func() []int64 {
				var out []int64
				for _, r := range ps {
					if r.v > a {
						out = append(out, r.k)
					}
				}
				for _, r := range os_ {
					if r.id < b {
						out = append(out, r.k)
					}
				}
				return out
			}},
			{"SELECT p.k FROM p JOIN o AS o2 ON p.v = o2.id", func() []int64 {
				var out []int64
				for _, r := range ps {
					for _, o := range os_ {
						if r.v == o.id {
							out = append(out, r.k)
						}
					}
				}
				return out
			}},
			{fmt.Sprintf("SELECT o2.id - %d FROM p, o AS o2 WHERE p.k = o2.k AND p.v >= %d", b%4, a), func() []int64 {
				var out []int64
				for _, r := range ps {
					for _, o := range os_ {
						if r.k != null && r.k == o.k && r.v >= a {
							out = append(out, o.id-b%4)
						}
					}
				}
				return out
			}},
			{fmt.Sprintf("SELECT DISTINCT k FROM p WHERE v < %d", a), func() []int64 {
				var out []int64
				for _, r := range ps {
					if r.v < a && !slices.Contains(out, r.k) {
						out = append(out, r.k)
					}
				}
				return out
			}},
			{fmt.Sprintf("WITH q AS (SELECT k, v FROM p WHERE v <> %d) SELECT k FROM q", a), func() []int64 {
				var out []int64
				for _, r := range ps {
					if r.v != a {
						out = append(out, r.k)
					}
				}
				return out
			}},
		}
		shapes = append(shapes, shape{fmt.Sprintf("SELECT k FROM p WHERE v >= %d", a), func() []int64 {
			var out []int64
			for _, r := range ps {
				if r.v >= a {
					out = append(out, r.k)
				}
			}
			return out
		}})
		for si, sh := range shapes {
			for _, not := range []bool{false, true} {
				keys := sh.keys()
				var want []string
				for _, o := range os_ {
					hasNull, found := false, false
					for _, k := range keys {
						hasNull = hasNull || k == null
						found = found || o.k != null && k == o.k
					}
					pass := o.k != null && found
					if not {
						pass = len(keys) == 0 || o.k != null && !found && !hasNull
					}
					if pass {
						want = append(want, fmt.Sprint(o.id))
					}
				}
				q := fmt.Sprintf("SELECT id FROM o WHERE k IN (%s);", sh.sql)
				if not { // (NOT (x IN …) is x NOT IN …, SQL's definition; written both ways)
					q = fmt.Sprintf("SELECT id FROM o WHERE k NOT IN (%s);", sh.sql)
					if seed%2 == 1 {
						q = fmt.Sprintf("SELECT id FROM o WHERE NOT (k IN (%s)) AND id > 0;", sh.sql)
					}
				}
				var rows []string
				s := open(t, streamql.Options{BaseDir: dir, OnRows: collect(&rows)})
				ddl := "CREATE STREAM o (id BIGINT, k BIGINT) WITH ('connector'='file','path'='o.csv','format'='csv');\n" +
					"CREATE STREAM p (k BIGINT, v BIGINT) WITH ('connector'='file','path'='p.csv','format'='csv');\n"
				if err := s.Exec(context.Background(), ddl+q); err != nil {
					t.Fatalf("seed %d shape %d: %s: %v", seed, si, q, err)
				}
				var got []string
				for _, r := range rows {
					if v, ok := strings.CutPrefix(r, "main main: "); ok {
						got = append(got, v)
					} else {
						t.Fatalf("seed %d: %s: unexpected output row %q", seed, q, r)
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("seed %d: %s\no %v\np %v\ngot  %v\nwant %v", seed, q, os_, ps, got, want)
				}
			}
		}
	}
}
